/*
 * list.h -- intrusive circular doubly linked lists, and the ready lanes on
 * which a scheme hands expired timers to the core.
 */
#ifndef TW_LIST_H
#define TW_LIST_H

#include "base.h"


TW_INLINE void tw_list_init(struct tw_link *h) { h->next = h->prev = h; }
TW_INLINE bool tw_list_empty(const struct tw_link *h) { return h->next == h; }

TW_INLINE void tw_list_add_tail(struct tw_link *h, struct tw_link *n)
{
    struct tw_link *p = h->prev;
    n->next = h;
    n->prev = p;
    p->next = n;
    h->prev = n;
}

TW_INLINE void tw_list_add_after(struct tw_link *pos, struct tw_link *n)
{
    struct tw_link *nx = pos->next;
    n->prev = pos;
    n->next = nx;
    nx->prev = n;
    pos->next = n;
}

TW_INLINE void tw_list_del(struct tw_link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
}

/* Move the nodes of `from`, its first through `last` (one of its nodes),
 * to the tail of `to`, in their order.  It reads `from`, `last` and `to`
 * but not the node after `last`, which it only writes: at large n that
 * node is usually cold, and a load of it would stall where a store
 * does not. */
TW_INLINE void tw_list_splice_through(struct tw_link *to, struct tw_link *from,
                                      struct tw_link *last)
{
    struct tw_link *first = from->next, *next = last->next, *tail = to->prev;
    tail->next = first;
    first->prev = tail;
    last->next = to;
    to->prev = last;
    from->next = next;
    next->prev = from;
}

/* Move every node of `from` to the tail of `to`; `from` ends empty. */
TW_INLINE void tw_list_splice_tail(struct tw_link *to, struct tw_link *from)
{
    if (!tw_list_empty(from))
        tw_list_splice_through(to, from, from->prev);
}

TW_INLINE struct tw_timer *tw_of(struct tw_link *l)
{
    return (struct tw_timer *)(void *)l; /* link is the first member */
}


/* Expired timers are handed from the scheme to the core on TW_LANES lists.
 * Walking one linked list costs a full memory latency per node, because
 * each node's address is in the node before it; the core pops the lanes in
 * turn, so TW_LANES chains of cache misses are in flight at once instead of
 * one.  A scheme that promises an order puts everything on lane 0. */
#define TW_LANE_SHIFT 3u /* 8 lanes: one byte of lane bits per slot */
#define TW_LANES (1u << TW_LANE_SHIFT)

struct tw_ready {
    struct tw_link lane[TW_LANES];
    /* Bit k set: lane k may hold nodes.  Whoever links nodes onto a lane
     * sets its bit (tw_ready_lane()), so that the pops that follow neither
     * look at every lane to find a lone timer nor to learn that none is
     * left; the core clears the bits when it takes the lanes
     * (tw_ready_take_live()).  A bit may stand over a lane emptied since
     * (a callback stopped its timers): the pops cope. */
    unsigned live;
};

TW_INLINE void tw_ready_init(struct tw_ready *r)
{
    for (unsigned j = 0; j < TW_LANES; j++)
        tw_list_init(&r->lane[j]);
    r->live = 0;
}

/* Lane k of r, for nodes about to be linked onto it: its bit is set. */
TW_INLINE struct tw_link *tw_ready_lane(struct tw_ready *r, unsigned k)
{
    r->live |= 1u << k;
    return &r->lane[k];
}

/* The lanes that may hold nodes, for tw_ready_pop(); their bits are
 * cleared: the caller pops until none is left. */
TW_INLINE unsigned tw_ready_take_live(struct tw_ready *r)
{
    unsigned m = r->live;
    r->live = 0;
    return m;
}

/* Pop the next node, taking the lanes of *live in turn from *j; NULL when
 * none is left.  Nodes may leave the lanes between pops (a callback stops
 * a timer), never join them: a lane found empty leaves *live. */
TW_INLINE struct tw_link *tw_ready_pop(struct tw_ready *r, unsigned *j, unsigned *live)
{
    while (*live) {
        unsigned m = *live, k;
        if ((m & (m - 1)) == 0) { /* one lane left: no turn to take */
            k = (unsigned)tw_ctz64(m);
        } else {
            unsigned rot = ((m >> *j) | (m << (TW_LANES - *j))) & ((1u << TW_LANES) - 1);
            k = (*j + (unsigned)tw_ctz64(rot)) & (TW_LANES - 1);
        }
        struct tw_link *h = &r->lane[k];
        *j = (k + 1) & (TW_LANES - 1);
        if (tw_list_empty(h)) {
            *live = m & ~(1u << k);
            continue;
        }
        struct tw_link *l = h->next;
        tw_list_del(l);
        TW_PREFETCH(h->next);
        if (tw_list_empty(h))
            *live = m & ~(1u << k);
        return l;
    }
    return NULL;
}

/* A lane for a node from its address alone (Fibonacci hashing of the
 * address's low 32 bits: the top bits of their product with 2^32 / phi):
 * no state to load and store per start, as a counter dealing lanes in
 * turn would need.  Nodes at any stride below 2^29 bytes spread evenly
 * over the lanes.  32 bits, not 64: the multiply takes its constant as an
 * immediate, one instruction fewer per start than a 64-bit constant,
 * which must be loaded first.  The address of the node or of its link
 * (the node's first member) gives the same lane. */
TW_INLINE unsigned tw_lane_of(const void *node)
{
    return (unsigned)((uint32_t)(uintptr_t)node * UINT32_C(0x9e3779b9)) >> (32u - TW_LANE_SHIFT);
}

#endif /* TW_LIST_H */
