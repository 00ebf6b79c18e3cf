/*
 * heap.c -- Scheme 3 of Varghese & Lauck: a tree-based priority queue.
 *
 * The paper's Scheme 3 keeps timers in a balanced tree or heap so that start
 * costs O(log n) instead of the ordered list's O(n).  We use an implicit
 * 4-ary min-heap in one array, as libev does: four children per node halve
 * the depth of a binary heap, and the four children of a node share one or
 * two cache lines, so a sift-down costs about half the cache misses.
 *
 *                        a[0]
 *            a[1]      a[2]      a[3]      a[4]
 *          a[5..8]   a[9..12]  a[13..16] a[17..20]      children of i:
 *                                                        4i+1 .. 4i+4
 *
 * Each array entry holds the deadline beside the node pointer, so that
 * comparisons during a sift read the array only and never the nodes; a node
 * is written once per move to keep its index, which makes stop O(log n)
 * instead of a search.  Equal deadlines are broken by a 64-bit start
 * sequence number stored in the node, which makes the heap FIFO: timers due
 * at the same tick fire in the order they were (re)started.
 *
 *     START_TIMER            O(log n)  append, sift up
 *     STOP_TIMER             O(log n)  move the last entry in, sift
 *     PER_TICK_BOOKKEEPING   O(1)      compare the root with now
 *     EXPIRY_PROCESSING      O(log n)  per expired timer (pop)
 *     next_expiry            O(1)      the root
 *
 * Memory: 40 bytes of node plus 16 bytes of array entry per timer; the array
 * doubles when full through the facility's allocator (amortised O(1), and a
 * failed growth makes tw_start() return TW_ENOMEM with nothing changed) and
 * halves when three quarters empty.  The timers it holds come out of one
 * advance in deadline order, FIFO among equals, after any started already
 * due (the core's list, which fires first).
 */
#include "../heap.h"
#include "../scheme.h"

struct heap_ent {
    tw_time_t e;
    struct tw_timer *t;
};

struct heap_state {
    struct heap_ent *a;
    uint32_t len, cap;
    uint64_t seq;
};

#define HEAP_MIN_CAP 64u

/* Earlier deadline first; among equal deadlines, the earlier start (the
 * order the scheme promises). */
#define ENT_LESS(x, y) \
    ((x)->e < (y)->e || ((x)->e == (y)->e && (x)->t->tw_u.heap.seq < (y)->t->tw_u.heap.seq))
#define ENT_MOVED(v, i) ((v).t->tw_u.heap.index = (i))

TW_HEAP_DEFINE(ent, struct heap_state, struct heap_ent, a, len, 4, ENT_LESS, ENT_MOVED)

static size_t heap_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct heap_state);
}

static int heap_init(struct tw *tw, const struct tw_config *cfg)
{
    (void)cfg;
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    h->a = tw_mem_alloc(tw, HEAP_MIN_CAP * sizeof *h->a);
    if (h->a == NULL)
        return TW_ENOMEM;
    h->cap = HEAP_MIN_CAP;
    return 0;
}

static void heap_fini(struct tw *tw)
{
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    tw_mem_free(tw, h->a, (size_t)h->cap * sizeof *h->a);
    h->a = NULL;
}

static int heap_reserve(struct tw *tw, tw_time_t deadline)
{
    (void)deadline;
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    if (TW_LIKELY(h->len < h->cap))
        return 0;
    if (h->cap >= UINT32_MAX / 2)
        return TW_ENOMEM;
    uint32_t ncap = h->cap * 2;
    struct heap_ent *a = tw_mem_realloc(tw, h->a, (size_t)h->cap * sizeof *a,
                                        (size_t)ncap * sizeof *a);
    if (a == NULL)
        return TW_ENOMEM;
    h->a = a;
    h->cap = ncap;
    return 0;
}

/* Give memory back when the heap is three quarters empty; a failure to
 * shrink is harmless. */
static void heap_shrink(struct tw *tw, struct heap_state *h)
{
    if (h->cap <= HEAP_MIN_CAP || h->len > h->cap / 4)
        return;
    uint32_t ncap = h->cap / 2;
    struct heap_ent *a = tw_mem_realloc(tw, h->a, (size_t)h->cap * sizeof *a,
                                        (size_t)ncap * sizeof *a);
    if (a) {
        h->a = a;
        h->cap = ncap;
    }
}

static void heap_insert(struct tw *tw, struct tw_timer *t)
{
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    t->tw_u.heap.seq = h->seq++;
    struct heap_ent v = {t->tw_expires, t};
    ent_up(h, h->len++, v);
    tw_horizon_lower(tw, v.e);
}

static void heap_remove(struct tw *tw, struct tw_timer *t)
{
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    ent_delete(h, t->tw_u.heap.index);
    heap_shrink(tw, h);
}

static void heap_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_link *out = tw_ready_lane(ready, 0);
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    while (h->len > 0 && h->a[0].e <= now) {
        struct tw_timer *t = h->a[0].t;
        ent_delete(h, 0);
        tw_list_add_tail(out, &t->tw_u.link);
    }
    heap_shrink(tw, h);
    tw->horizon = h->len ? h->a[0].e : TW_TIME_MAX;
}

static int heap_next(struct tw *tw, tw_time_t *out)
{
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    if (h->len == 0)
        return 0;
    *out = h->a[0].e;
    return 1;
}

static int heap_check(struct tw *tw, struct tw_checker *c)
{
    struct heap_state *h = TW_STATE(tw, struct heap_state);
    if (h->len > h->cap)
        return tw_fail(c, "heap: len %u > cap %u", h->len, h->cap);
    for (uint32_t i = 0; i < h->len; i++) {
        const struct heap_ent *x = &h->a[i];
        int rc = tw_check_node(tw, c, x->t);
        if (rc)
            return rc;
        if (x->t->tw_u.heap.index != i)
            return tw_fail(c, "heap: node at %u says index %u", i, x->t->tw_u.heap.index);
        if (x->e != x->t->tw_expires)
            return tw_fail(c, "heap: entry %u caches %llu, node has %llu", i,
                           (unsigned long long)x->e, (unsigned long long)x->t->tw_expires);
        if (i > 0 && ENT_LESS(x, &h->a[(i - 1) / 4]))
            return tw_fail(c, "heap: entry %u is less than its parent", i);
        c->seen++;
    }
    return 0;
}

const struct tw_ops tw_heap_ops = {
    .order = TW_ORDER_DEADLINE,
    .state_size = heap_state_size,
    .init = heap_init,
    .fini = heap_fini,
    .reserve = heap_reserve,
    .insert = heap_insert,
    .remove = heap_remove,
    .collect = heap_collect,
    .next = heap_next,
    .check = heap_check,
};
