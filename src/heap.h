/*
 * heap.h -- one array-based d-ary min-heap, written once for every user:
 * the heap scheme (schemes/heap.c, 4-ary, of timers) and Lawn's heap of
 * queue heads (schemes/lawn.c, binary, of queues).
 *
 *     TW_HEAP_DEFINE(prefix, heap_t, ent_t, A, LEN, ARITY, LESS, MOVED)
 *
 * defines, for a struct heap_t whose fields `ent_t *A` and `uint32_t LEN`
 * are the array and its length:
 *
 *     prefix_up(h, i, v)      v into hole i, moved towards the root
 *     prefix_down(h, i, v)    v into hole i, moved towards the leaves
 *     prefix_delete(h, i)     entry i out, the last entry in its place
 *
 * LESS(x, y) compares two entries (pointers to ent_t); MOVED(v, i) is
 * told that entry v now sits at index i, so that its owner can find it in
 * O(1) to delete it or change its key.  All three are macros, expanded in
 * place: the comparisons and the position stores compile to straight
 * code, as in a heap written out by hand.  Growth and shrinking stay with
 * the user, who owns the array and its allocator.
 */
#ifndef TW_HEAP_H
#define TW_HEAP_H

#include "base.h"

#define TW_HEAP_DEFINE(prefix, heap_t, ent_t, A, LEN, ARITY, LESS, MOVED)                \
    TW_INLINE void prefix##_place(heap_t *h, uint32_t i, ent_t v)                           \
    {                                                                                      \
        h->A[i] = v;                                                                       \
        MOVED(v, i);                                                                       \
    }                                                                                      \
    static TW_UNUSED void prefix##_up(heap_t *h, uint32_t i, ent_t v)                      \
    {                                                                                      \
        while (i > 0) {                                                                    \
            uint32_t p = (i - 1) / (ARITY);                                                \
            if (!(LESS(&v, &h->A[p])))                                                     \
                break;                                                                     \
            prefix##_place(h, i, h->A[p]);                                                 \
            i = p;                                                                         \
        }                                                                                  \
        prefix##_place(h, i, v);                                                           \
    }                                                                                      \
    static TW_UNUSED void prefix##_down(heap_t *h, uint32_t i, ent_t v)                    \
    {                                                                                      \
        for (;;) {                                                                         \
            uint32_t c = (ARITY) * i + 1;                                                  \
            if (c >= h->LEN)                                                               \
                break;                                                                     \
            uint32_t m = c;                                                                \
            if ((ARITY) == 2) { /* one compare, no loop: a constant folds it */            \
                if (c + 1 < h->LEN && LESS(&h->A[c + 1], &h->A[c]))                        \
                    m = c + 1;                                                             \
            } else {                                                                       \
                uint32_t end = c + (ARITY) < h->LEN ? c + (ARITY) : h->LEN;                \
                for (uint32_t k = c + 1; k < end; k++)                                     \
                    if (LESS(&h->A[k], &h->A[m]))                                          \
                        m = k;                                                             \
            }                                                                              \
            if (!(LESS(&h->A[m], &v)))                                                     \
                break;                                                                     \
            prefix##_place(h, i, h->A[m]);                                                 \
            i = m;                                                                         \
        }                                                                                  \
        prefix##_place(h, i, v);                                                           \
    }                                                                                      \
    static TW_UNUSED void prefix##_delete(heap_t *h, uint32_t i)                           \
    {                                                                                      \
        ent_t last = h->A[--h->LEN];                                                       \
        if (i == h->LEN)                                                                   \
            return;                                                                        \
        if (i > 0 && LESS(&last, &h->A[(i - 1) / (ARITY)]))                                \
            prefix##_up(h, i, last);                                                       \
        else                                                                               \
            prefix##_down(h, i, last);                                                     \
    }

#endif /* TW_HEAP_H */
