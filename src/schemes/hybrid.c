/*
 * hybrid.c -- Timer Lawn's queues for the TTLs a program uses again and
 * again, an exact hierarchical wheel (Scheme 7) for everything else.
 *
 * Lawn is at its best when many timers share few TTLs (a queue per TTL,
 * O(1) start and expiry, no migration) and at its worst when TTLs are
 * scattered (a queue and a heap operation per timer).  The hierarchical
 * wheel does not care about TTLs but migrates a timer up to m-1 times.  The
 * hybrid routes each start:
 *
 *                        +-- TTL has a queue (or TW_TTL_QUEUE) --> Lawn queue
 *     start(ttl) --------+
 *                        +-- otherwise ------------------------> wheel
 *
 * Policy (documented, deterministic): a direct-mapped table of 4096
 * candidates counts starts per TTL: slot hash(ttl) holds one TTL and its
 * count; a start of that TTL increments it, a start of another TTL that
 * hashes there replaces it with count 1.  When a TTL's count reaches the
 * threshold K (cfg.ttl_threshold, default 8), that start and every later
 * one of the TTL go to a Lawn queue, which lives until it empties; the next
 * start of the TTL makes a new queue at once, unless another TTL has taken
 * its candidate slot meanwhile (then its count starts again).  So a TTL
 * becomes a queue after K starts without a competing TTL in its slot:
 * frequent TTLs are promoted at once, and 10^5 scattered TTLs keep
 * evicting each other and stay in the wheel.  The table's size bounds the
 * TTLs that can be promoted: 4096 slots let up to a few thousand become
 * queues, about where Lawn stops beating the wheel (the crossover, ~10^4
 * TTLs at 10^6 timers: docs/benchmarks.md).  The
 * caller can override per TTL with tw_ttl_hint(): TW_TTL_QUEUE (a queue,
 * kept while empty) or TW_TTL_WHEEL (never a queue).
 *
 *     START_TIMER     O(1): candidate lookup, then Lawn append or wheel place
 *     STOP_TIMER      O(1): a node flag says which part holds it
 *     advance         both parts; nothing due: one compare (the horizon is
 *                     the earlier of the two parts')
 *     next_expiry     exact: the earlier of the two parts' answers
 *
 * Order: FIFO within a TTL while it has a queue; otherwise as the wheel.
 * Memory: the 40-byte node; the wheel's 90 KiB (default 64 x 11) plus
 * 64 KiB of candidates plus Lawn's per-TTL tables.
 */
#include "hybrid.h"

#define HYB_DEFAULT_K 8u /* starts of a TTL that make it a queue */

static const char *hybrid_validate(const struct tw_config *cfg)
{
    return tw_hier_validate(cfg->slots, cfg->levels);
}

static size_t hybrid_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct hybrid_state);
}

static int hybrid_init(struct tw *tw, const struct tw_config *cfg)
{
    struct hybrid_state *H = HYB(tw);
    H->threshold = cfg->ttl_threshold ? cfg->ttl_threshold : HYB_DEFAULT_K;
    H->wheel_horizon = H->lawn_horizon = TW_TIME_MAX;
    int rc = tw_lawn_setup(tw, &H->lawn, false);
    if (rc)
        return rc;
    rc = tw_hier_setup(tw, &H->wheel, cfg->slots);
    if (rc)
        tw_lawn_teardown(tw, &H->lawn);
    return rc;
}

static void hybrid_fini(struct tw *tw)
{
    struct hybrid_state *H = HYB(tw);
    tw_hier_teardown(tw, &H->wheel);
    tw_lawn_teardown(tw, &H->lawn);
}

/* Decide where a timer of this TTL goes, and make room there. */
static int hybrid_reserve(struct tw *tw, tw_time_t deadline)
{
    struct hybrid_state *H = HYB(tw);
    tw_time_t ttl = deadline - tw->now;
    struct lawn_q *q = tw_lawn_lookup(&H->lawn, ttl);
    bool lawn;
    struct hybrid_cand *c = NULL;
    uint32_t count = 0;
    if (q) {
        lawn = q->mode != TW_TTL_WHEEL;
    } else {
        c = tw_hybrid_cand(H, ttl);
        count = tw_hybrid_count(c, ttl);
        lawn = count >= H->threshold;
    }
    if (lawn) {
        int rc = tw_lawn_reserve(tw, &H->lawn, ttl);
        if (rc)
            return rc; /* the candidate's count too is as it was */
    }
    if (c) {
        c->ttl = ttl;
        c->count = count;
    }
    H->route_lawn = lawn;
    return 0;
}

static void hybrid_insert(struct tw *tw, struct tw_timer *t)
{
    struct hybrid_state *H = HYB(tw);
    if (H->route_lawn) {
        /* Looked up again: a re-armed timer may have emptied (and so
         * reclaimed) the queue since reserve; the room is still there. */
        struct lawn_q *q = tw_lawn_get(tw, &H->lawn, t->tw_expires - tw->now);
        t->tw_flags |= HYB_F_LAWN;
        tw_lawn_insert(tw, &H->lawn, q, t);
        if (t->tw_expires < H->lawn_horizon)
            H->lawn_horizon = t->tw_expires;
    } else {
        tw_time_t up = tw_hier_insert(tw, &H->wheel, t);
        if (up < H->wheel_horizon)
            H->wheel_horizon = up;
    }
}

/* A node flag says which part holds the timer (the core rewrites the
 * node's flags after every remove, so the flag is left as it is). */
static void hybrid_remove(struct tw *tw, struct tw_timer *t)
{
    struct hybrid_state *H = HYB(tw);
    if (t->tw_flags & HYB_F_LAWN)
        tw_lawn_remove(tw, &H->lawn, t);
    else
        tw_hier_remove(&H->wheel, t);
}

static void hybrid_collect(struct tw *tw, tw_time_t now, struct tw_ready *out)
{
    struct hybrid_state *H = HYB(tw);
    /* Each part's collect sets tw->horizon to its own; a part whose horizon
     * is ahead has nothing to do (the facility's fast path, per part). */
    if (now >= H->wheel_horizon) {
        tw_hier_collect(tw, &H->wheel, now, out);
        H->wheel_horizon = tw->horizon;
    }
    if (now >= H->lawn_horizon) {
        tw_lawn_collect(tw, &H->lawn, now, out);
        H->lawn_horizon = tw->horizon;
    }
    tw->horizon = H->wheel_horizon < H->lawn_horizon ? H->wheel_horizon : H->lawn_horizon;
}

static int hybrid_next(struct tw *tw, tw_time_t *out)
{
    struct hybrid_state *H = HYB(tw);
    tw_time_t a = 0, b = 0;
    int ra = tw_hier_next(tw, &H->wheel, &a);
    int rb = tw_lawn_next(tw, &H->lawn, &b);
    if (!ra && !rb)
        return 0;
    *out = !ra ? b : !rb ? a : (a < b ? a : b);
    return 1;
}

static int hybrid_check(struct tw *tw, struct tw_checker *c)
{
    struct hybrid_state *H = HYB(tw);
    int rc = tw_lawn_check(tw, &H->lawn, c, HYB_F_LAWN, H->lawn_horizon);
    if (rc == 0)
        rc = tw_hier_check(tw, &H->wheel, c, HYB_F_LAWN, H->wheel_horizon);
    /* The facility's horizon is the earlier of the parts' (collect sets it
     * so; the leaves lower it with the part's own). */
    tw_time_t part = H->wheel_horizon < H->lawn_horizon ? H->wheel_horizon : H->lawn_horizon;
    if (rc == 0 && tw->horizon > part)
        rc = tw_fail(c, "hybrid: horizon %llu above its parts' (wheel %llu, lawn %llu)",
                     (unsigned long long)tw->horizon, (unsigned long long)H->wheel_horizon,
                     (unsigned long long)H->lawn_horizon);
    return rc;
}

static int hybrid_hint(struct tw *tw, tw_time_t ttl, int hint)
{
    return tw_lawn_hint(tw, &HYB(tw)->lawn, ttl, hint);
}

const struct tw_ops tw_hybrid_ops = {
    .validate = hybrid_validate,
    .state_size = hybrid_state_size,
    .init = hybrid_init,
    .fini = hybrid_fini,
    .reserve = hybrid_reserve,
    .insert = hybrid_insert,
    .remove = hybrid_remove,
    .collect = hybrid_collect,
    .next = hybrid_next,
    .check = hybrid_check,
    .hint = hybrid_hint,
};
