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
#include "hier.h"
#include "lawn.h"

#include "../entry.h"

#define HYB_F_LAWN TW_F_SCHEME2   /* node is in a Lawn queue */
#define HYB_CANDIDATES 4096u

struct hybrid_cand {
    tw_time_t ttl;
    uint32_t count;
};

struct hybrid_state {
    struct lawn_state lawn;
    struct hier_state wheel;
    uint32_t threshold;
    bool route_lawn;            /* reserve's decision, for insert */
    tw_time_t wheel_horizon;    /* each part's own: collect only the parts */
    tw_time_t lawn_horizon;     /* that can have work; tw->horizon is the min */
    struct hybrid_cand cand[HYB_CANDIDATES];
};

#define HYB(tw) TW_STATE(tw, struct hybrid_state)

/* The candidate slot of a TTL, and what its count becomes with one more
 * start of that TTL (1 when another TTL held the slot; saturating). */
TW_INLINE struct hybrid_cand *tw_hybrid_cand(struct hybrid_state *H, tw_time_t ttl)
{
    return &H->cand[(uint32_t)((ttl * 0x9e3779b97f4a7c15ull) >> 52) % HYB_CANDIDATES];
}

TW_INLINE uint32_t tw_hybrid_count(const struct hybrid_cand *c, tw_time_t ttl)
{
    if (c->ttl != ttl)
        return 1;
    return c->count < UINT32_MAX ? c->count + 1 : c->count;
}

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
    tw->word_queued = tw->word_mine | tw_node_word_of(HYB_F_LAWN, 0);
    int rc = tw_lawn_setup(tw, &H->lawn, false);
    if (rc)
        return rc;
    rc = tw_hier_setup(tw, &H->wheel, cfg->slots, cfg->options);
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

static void hybrid_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop);

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
    tw->now = now; /* for floors() */
    hybrid_floors(tw, &tw->start_floor, &tw->stop_floor);
}

/* The earlier of the parts' answers: the wheel's next expiry, or with
 * `wake` its wake-up (tw_hier_wakeup()), against the queues' earliest. */
static int hybrid_earliest(struct tw *tw, tw_time_t *out, bool wake)
{
    struct hybrid_state *H = HYB(tw);
    tw_time_t a = 0, b = 0;
    int ra = wake ? tw_hier_wakeup(tw, &H->wheel, &a) : tw_hier_next(tw, &H->wheel, &a);
    int rb = tw_lawn_next(tw, &H->lawn, &b);
    if (!ra && !rb)
        return 0;
    *out = !ra ? b : !rb ? a : (a < b ? a : b);
    return 1;
}

static int hybrid_next(struct tw *tw, tw_time_t *out) { return hybrid_earliest(tw, out, false); }
static int hybrid_wakeup(struct tw *tw, tw_time_t *out) { return hybrid_earliest(tw, out, true); }

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

/* ------------------------------------------------ start and stop */

/* The floors: no start floor (the start leaf tests its own cases); a stop
 * floor for a node in the wheel (word_mine), max(now, the wheel's cache's
 * last entry) as in the exact wheel; a node in a queue (word_queued) has
 * now for its floor, which the stop leaf reads itself. */
static void hybrid_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    tw_time_t m = TW_STATE(tw, const struct hybrid_state)->wheel.min.max;
    *start = TW_TIME_MAX;
    *stop = m > tw->now ? m : tw->now;
}

#define HYBRID_HOOKS \
    ((struct tw_hooks){hybrid_reserve, hybrid_insert, hybrid_remove, hybrid_floors, false})

TW_ENTRY_FULL_PATHS(hybrid, HYBRID_HOOKS)

/* Can a pending node be taken out with one unlink (in a queue that keeps a
 * timer; in the wheel, beyond the earliest-deadline cache, a lane it
 * empties keeping its bits: slots.h)? */
TW_INLINE bool hybrid_unlinkable(const struct hybrid_state *H, const struct tw_timer *t)
{
    if (t->tw_flags & HYB_F_LAWN)
        return tw_lawn_unlinkable(t);
    return t->tw_expires > H->wheel.min.max;
}

/* The routing of hybrid_reserve() and hybrid_insert() in the cases that
 * touch neither the heap of queue heads nor an allocation: a TTL with a
 * queue that has timers (the node goes to its tail), or a TTL that goes to
 * the wheel (its candidate counted, below the threshold).  false, with
 * nothing changed, for every other case. */
TW_INLINE bool hybrid_start_part(struct tw *tw, struct tw_timer *t, tw_time_t deadline,
                                 bool pending)
{
    struct hybrid_state *H = HYB(tw);
    tw_time_t ttl = deadline - tw->now;
    struct lawn_q *q = tw_lawn_lookup(&H->lawn, ttl);
    if (pending && !hybrid_unlinkable(H, t))
        return false;
    if (q != NULL && q->mode != TW_TTL_WHEEL) {
        if (tw_list_empty(&q->list))
            return false;
        if (pending)
            tw_list_del(&t->tw_u.link); /* see hybrid_unlinkable() */
        tw_arm_node(t, deadline, tw->word_queued);
        tw_list_add_tail(&q->list, &t->tw_u.link);
        return true;
    }
    if (deadline < H->wheel.min.max)
        return false;
    if (q == NULL) {
        struct hybrid_cand *c = tw_hybrid_cand(H, ttl);
        uint32_t count = tw_hybrid_count(c, ttl);
        if (count >= H->threshold)
            return false; /* it becomes a queue */
        c->ttl = ttl;
        c->count = count;
    }
    if (pending)
        tw_list_del(&t->tw_u.link);
    tw_arm_node(t, deadline, tw->word_mine);
    tw_time_t up;
    if (tw_hier_link(&H->wheel, t, deadline, tw->now, &up)) {
        /* A lane's first timer.  A lane that had timers has its slot's bit
         * set, whose tick is at or above both horizons already (tw_check
         * verifies it), as in the exact wheel's leaf. */
        if (up < H->wheel_horizon)
            H->wheel_horizon = up;
        tw_horizon_lower(tw, up);
    }
    return true;
}

/* The common case of a start, as a leaf (one saved register with gcc 12
 * -O2): a valid node, idle or pending here and unlinkable, a deadline
 * before the end of time, and a TTL that hybrid_start_part() routes.
 * Everything else takes the full path before anything has changed. */
static int hybrid_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    int state = tw_start_state(tw, t, interval);
    if (TW_UNLIKELY(state < 0))
        return hybrid_start_slow(tw, t, interval);
    bool pending = state > 0;
    tw_time_t deadline = tw_deadline_of(tw, interval);
    if (TW_UNLIKELY(pending && t->tw_expires <= tw->now))
        return hybrid_start_full(tw, t, interval); /* on a core list */
    /* Below the end of time, interval is deadline - now: one register
     * fewer to keep across the routing. */
    if (TW_UNLIKELY(deadline == TW_TIME_MAX))
        return hybrid_start_full(tw, t, interval);
    if (TW_UNLIKELY(!hybrid_start_part(tw, t, deadline, pending)))
        return hybrid_start_full(tw, t, deadline - tw->now);
    if (!pending)
        tw->count++;
    return 0;
}

/* A node in the wheel above its cache, or in a queue above now and not
 * alone in it: one unlink (a node alone in a wheel's lane leaves the
 * lane's bits set: slots.h).  The only timer of a queue takes the full
 * path (its queue leaves the heap of heads). */
static int hybrid_stop(struct tw *tw, struct tw_timer *t)
{
    if (TW_UNLIKELY(t == NULL))
        return hybrid_stop_full(tw, t);
    uint64_t w = tw_node_word(t);
    tw_time_t floor;
    if (TW_LIKELY(w == tw->word_mine))
        floor = tw->stop_floor;
    else if (w == tw->word_queued)
        floor = tw->now;
    else
        return hybrid_stop_full(tw, t);
    if (TW_LIKELY(t->tw_expires > floor) &&
        (w == tw->word_mine || t->tw_u.link.next != t->tw_u.link.prev)) {
        tw_list_del(&t->tw_u.link);
        return tw_stopped(tw, t);
    }
    return hybrid_stop_full(tw, t);
}

const struct tw_ops tw_hybrid_ops = {
    .by_interval = true, /* a queue per TTL */
    .order = TW_ORDER_NONE,
    .default_slots = 64,
    .options = TW_OPT_REAL_TIME, /* its wheel's */
    .validate = hybrid_validate,
    .state_size = hybrid_state_size,
    .init = hybrid_init,
    .fini = hybrid_fini,
    .reserve = hybrid_reserve,
    .insert = hybrid_insert,
    .remove = hybrid_remove,
    .collect = hybrid_collect,
    .next = hybrid_next,
    .wakeup = hybrid_wakeup,
    .check = hybrid_check,
    .hint = hybrid_hint,
    .start = hybrid_start,
    .stop = hybrid_stop,
    .floors = hybrid_floors,
};
