/*
 * lawn.h -- Timer Lawn (lawn.c) as parts that another scheme can embed:
 * the hybrid keeps its TTL queues this way beside a hierarchical wheel.
 */
#ifndef TW_LAWN_H
#define TW_LAWN_H

#include "../scheme.h"

struct lawn_q {
    struct tw_link list;        /* FIFO of timers, sorted by construction */
    tw_time_t ttl;
    struct lawn_q *hnext;       /* hash chain, or the spare list */
    uint32_t hidx;              /* position in the heads heap */
    uint8_t mode;               /* enum tw_ttl_hint: AUTO, QUEUE (kept), WHEEL */
};

struct lawn_ent {
    tw_time_t e;                /* a lower bound of its head's deadline */
    struct lawn_q *q;
};

struct lawn_state {
    struct lawn_q **bucket;     /* TTL -> queue, chained */
    uint32_t nbucket, nq;       /* nbucket a power of two; nq queues hashed */
    struct lawn_ent *heap;      /* binary min-heap of non-empty queues' heads */
    uint32_t hlen, hcap;
    struct lawn_q *spare;       /* reclaimed queues kept for reuse */
    uint32_t nspare;
    uint32_t lane;              /* ready lane for the next queue collected */
    bool scan;                  /* TW_OPT_LAWN_SCAN: the paper's scan */
};

int tw_lawn_setup(struct tw *tw, struct lawn_state *L, bool scan);
void tw_lawn_teardown(struct tw *tw, struct lawn_state *L);
TW_INLINE uint32_t tw_lawn_hash(tw_time_t ttl, uint32_t nbucket)
{
    /* Fibonacci hashing: the top bits of ttl * 2^64/phi. */
    return (uint32_t)((ttl * 0x9e3779b97f4a7c15ull) >> 32) & (nbucket - 1);
}

/* The queue of this TTL, or NULL; inline for the start fast path. */
TW_INLINE struct lawn_q *tw_lawn_lookup(const struct lawn_state *L, tw_time_t ttl)
{
    struct lawn_q *q = L->bucket[tw_lawn_hash(ttl, L->nbucket)];
    while (q && q->ttl != ttl)
        q = q->hnext;
    return q;
}
/* Make room for a timer of this TTL; then tw_lawn_get() cannot fail. */
int tw_lawn_reserve(struct tw *tw, struct lawn_state *L, tw_time_t ttl);
struct lawn_q *tw_lawn_get(struct tw *tw, struct lawn_state *L, tw_time_t ttl);
void tw_lawn_insert(struct tw *tw, struct lawn_state *L, struct lawn_q *q, struct tw_timer *t);
/* Stop of a queue's only timer: the queue leaves the heap and may be
 * reclaimed. */
void tw_lawn_remove_last(struct tw *tw, struct lawn_state *L, struct tw_timer *t);
void tw_lawn_collect(struct tw *tw, struct lawn_state *L, tw_time_t now, struct tw_ready *out);
int tw_lawn_next(struct tw *tw, struct lawn_state *L, tw_time_t *out);
/* Is t, pending in a queue, not its queue's only timer?  Then its stop is
 * one unlink, its head's included: the queue's key in the heads heap stays
 * as it was, a lower bound of the new head's deadline (lawn.c).  The only
 * timer is the one whose prev and next are both the queue's list head. */
TW_INLINE bool tw_lawn_unlinkable(const struct tw_timer *t)
{
    return t->tw_u.link.next != t->tw_u.link.prev;
}
/* Stop: for lawn.c and hybrid.c (whose stop leaves make the same test
 * themselves). */
TW_INLINE void tw_lawn_remove(struct tw *tw, struct lawn_state *L, struct tw_timer *t)
{
    if (TW_LIKELY(tw_lawn_unlinkable(t)))
        tw_list_del(&t->tw_u.link);
    else
        tw_lawn_remove_last(tw, L, t);
}
/* Audit: `flag` the scheme flags of every queued node, `horizon` the time
 * before which the owner skips collect (at most every queue's key). */
int tw_lawn_check(struct tw *tw, struct lawn_state *L, struct tw_checker *c, uint32_t flag,
                  tw_time_t horizon);
int tw_lawn_hint(struct tw *tw, struct lawn_state *L, tw_time_t ttl, int hint);

/* For lawn_scan.c: move the due prefix of q, whose head is due, to a ready
 * lane; false if q emptied, else true and its new head's deadline in *e. */
bool tw_lawn_mow(struct lawn_state *L, struct lawn_q *q, tw_time_t now, struct tw_ready *out,
                 tw_time_t *e);
/* Keep a queue taken out of the hash for reuse, or free it; shrink the
 * tables when a quarter full. */
void tw_lawn_release(struct tw *tw, struct lawn_state *L, struct lawn_q *q);
void tw_lawn_shrink(struct tw *tw, struct lawn_state *L);

/* TW_OPT_LAWN_SCAN (lawn_scan.c): the paper's bookkeeping, a peek at every
 * queue's head, with no heads heap; what tw_lawn_collect() and
 * tw_lawn_next() do in that mode. */
void tw_lawn_scan_collect(struct tw *tw, struct lawn_state *L, tw_time_t now,
                          struct tw_ready *out);
int tw_lawn_scan_next(const struct lawn_state *L, tw_time_t *out);

#endif
