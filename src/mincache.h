/*
 * mincache.h -- the earliest deadlines of a table whose slots span many
 * ticks (mincache.c).
 */
#ifndef TW_MINCACHE_H
#define TW_MINCACHE_H

#include "check.h"
#include "list.h"

/* The earliest deadlines of a table, for the schemes whose next_expiry
 * must look inside a slot (hashed, hierarchical).  v[0..m) ascending are
 * the m smallest deadlines the table holds (counted with repeats), and
 * every deadline it holds besides them is >= v[m-1]; m == 0: nothing
 * known.  next_expiry fills it with one walk and answers v[0] from then on;
 * start and stop keep it exact with one compare against `max` (= v[m-1],
 * or 0 when m == 0: the tables hold only deadlines > now >= 0); expiry
 * drops what fired.  It empties only after its m timers have left, so a
 * caller that stops the earliest timer again and again (an event loop
 * whose connections close before their timeouts) pays one walk per m of
 * them, not one per stop. */
#define TW_MINCACHE_CAP 64u

struct tw_mincache {
    tw_time_t max;              /* v[m-1], or 0 */
    uint32_t m;
    tw_time_t v[TW_MINCACHE_CAP];
};

TW_INLINE bool tw_mincache_known(const struct tw_mincache *c) { return c->m != 0; }

/* Out of line, for the rare cases: a deadline among the cached ones. */
void tw_mincache_put(struct tw_mincache *c, tw_time_t e);
void tw_mincache_del(struct tw_mincache *c, tw_time_t e);

TW_INLINE void tw_mincache_insert(struct tw_mincache *c, tw_time_t e)
{
    if (TW_UNLIKELY(e < c->max))
        tw_mincache_put(c, e);
}

TW_INLINE void tw_mincache_remove(struct tw_mincache *c, tw_time_t e)
{
    if (TW_UNLIKELY(e <= c->max))
        tw_mincache_del(c, e);
}

/* A walk offers every deadline it sees to an empty cache. */
TW_INLINE void tw_mincache_offer(struct tw_mincache *c, tw_time_t e)
{
    if (c->m < TW_MINCACHE_CAP || e < c->max)
        tw_mincache_put(c, e);
}

/* Drop the deadlines <= now (their timers fired); keep only those <= t
 * (a walk that stopped where the unvisited timers are >= t). */
void tw_mincache_drop(struct tw_mincache *c, tw_time_t now);
TW_INLINE void tw_mincache_expire(struct tw_mincache *c, tw_time_t now)
{
    if (c->m != 0 && c->v[0] <= now) /* else nothing cached has fired */
        tw_mincache_drop(c, now);
}
void tw_mincache_clip(struct tw_mincache *c, tw_time_t t);

/* Offer every deadline on the k <= TW_LANES lists heads[0..k) to c, the
 * lists walked in turn, a node of each, so that their misses overlap: a
 * walk of one list is one dependent miss per node. */
void tw_lists_offer(struct tw_link *const *heads, unsigned k, struct tw_mincache *c);

/* tw_check(): call see() with every deadline the table holds, then end(),
 * which reports any disagreement through tw_fail(). */
struct tw_mincache_audit {
    uint64_t matched;           /* bit i: v[i] met a timer */
    tw_time_t missing;          /* a deadline below max the cache lacks */
    bool bad;
};
void tw_mincache_see(const struct tw_mincache *c, struct tw_mincache_audit *a, tw_time_t e);
int tw_mincache_end(const struct tw_mincache *c, const struct tw_mincache_audit *a,
                    struct tw_checker *k, const char *who);

#endif /* TW_MINCACHE_H */
