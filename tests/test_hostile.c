/*
 * test_hostile.c -- the hostile cases (docs/testing.md) that the cases suite does
 * not already name, each run on every available scheme at every start
 * clock (0, near 2^32, near 2^63, near 2^64):
 *
 *   level_boundaries        timers at span-1, span, span+1 of every level
 *                           (64-slot levels, the facility's own tables, the
 *                           coarse wheel's level limits), one at a time and
 *                           all at once, fired exactly (coarse: in bound)
 *   aligned_boundaries      absolute deadlines at multiple-of-span -1, 0, +1
 *                           reached by advances that land on them exactly
 *   cb_stop_all_others      a callback stops every other timer due in the
 *                           same tick: exactly one of them fires
 *   cb_stop_then_restart    a callback stops a timer due in the same tick
 *                           and restarts it: it fires once, at the new
 *                           deadline, not in this advance
 *   cb_start_into_draining  a callback starts timers whose deadlines map to
 *                           the slot being drained (now + 0, + span of each
 *                           level): none fires in this advance, each fires
 *                           exactly at its deadline
 *   cb_free_self_batch      many heap nodes due at once all free themselves
 *                           while others stop and restart (ASan/valgrind)
 *   alloc_fail_ttl          lawn/hybrid: a failing allocator while TTL
 *                           queues are created and hinted: TW_ENOMEM with
 *                           nothing changed, then everything works again
 *   saturated_same_ttl      a TTL queue whose second timer's deadline
 *                           saturated at TW_TIME_MAX (lawn/hybrid bug)
 *   check_detects_corruption  a node corrupted in place (magic, pending
 *                           flag, owner, deadline, links) makes tw_check()
 *                           return TW_ECORRUPT with a message, or at least
 *                           not crash; restored, it passes again
 *   hybrid_flag_checked     hybrid: a wheel node carrying the "in a Lawn
 *                           queue" flag fails tw_check(); every scheme:
 *                           stops and restarts across the two parts
 *   hybrid_routing          hybrid: which part each start goes to, by the
 *                           threshold, a candidate slot taken by another
 *                           TTL, and the hints; restarts out of a queue
 *                           (middle, last, head) fire in deadline order
 *
 *     twheel_hostile [SCHEME|all] [CASE]
 *
 * Exit 77 when SCHEME is not available in this build, 1 on failure.
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


/* -------------------------------------------------------------- helpers */

#define CREATE(name)                  \
    struct tw *name = test_create(c); \
    if (name == NULL)                 \
    return

/* The tick by which a timer armed at `armed` for `dl` must have fired. */
static tw_time_t due_by(const struct ctx *c, tw_time_t armed, tw_time_t dl)
{
    return latest_fire_slots(c->scheme, c->cfg.slots, armed, dl);
}

/* The boundary intervals: span-1, span, span+1 of every level of a 64-slot
 * wheel (64^l), of the facility's table (S^l) and the coarse level limits
 * ((S-2) 8^l), deduplicated, ascending, capped by tw_max_interval(). */
static size_t boundary_intervals(const struct tw *tw, const struct ctx *c, tw_time_t *out,
                                 size_t cap)
{
    size_t n = 0;
    tw_time_t maxi = tw_max_interval(tw);
    uint32_t S = c->cfg.slots ? c->cfg.slots : 64;
    unsigned bits = 0;
    while ((1u << bits) < S)
        bits++;
    tw_time_t base[64 * 3];
    size_t nb = 0;
    for (unsigned l = 0; l <= 10; l++)
        base[nb++] = 1ull << (6 * l);
    for (unsigned l = 0; bits && bits * l < 64; l++)
        base[nb++] = 1ull << (bits * l);
    for (unsigned l = 0; l < 21 && S > 2; l++) {
        tw_time_t v = (tw_time_t)(S - 2) << (3 * l);
        if ((v >> (3 * l)) == S - 2)
            base[nb++] = v;
    }
    for (size_t i = 0; i < nb; i++) {
        for (int d = -1; d <= 1; d++) {
            tw_time_t v = d < 0 ? base[i] - 1 : d == 0 ? base[i] : sat_add(base[i], 1);
            if (v > maxi)
                continue;
            int dup = 0;
            for (size_t k = 0; k < n; k++)
                dup |= out[k] == v;
            if (!dup && n < cap)
                out[n++] = v;
        }
    }
    /* ascending (insertion sort: n is small) */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && out[k - 1] > out[k]; k--) {
            tw_time_t t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    return n;
}

/* Fire pending x: nothing at dl-1, then at dl (exact) or by due_by. */
static void fire_exactly(struct ctx *c, struct tw *tw, struct ttimer *x, tw_time_t armed)
{
    tw_time_t dl = tw_timer_deadline(&x->node);
    int before = x->fired;
    if (dl > tw_now(tw)) {
        ASSERT_GE_INT(tw_advance(tw, dl - 1), 0);
        ASSERT_EQ_INT(x->fired, before);
        ASSERT_TRUE(tw_timer_pending(&x->node));
    }
    tw_time_t to = max_u64(due_by(c, armed, dl), tw_now(tw));
    if (!scheme_exact(c->scheme)) {
        /* coarse: next_expiry says when; it is within the bound */
        tw_time_t ne = 0;
        ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
        ASSERT_GE_U64(ne, dl);
        ASSERT_LE_U64(ne, to);
        to = max_u64(ne, tw_now(tw));
    }
    ASSERT_GE_INT(tw_advance(tw, to), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(x->fired, before + 1);
    ASSERT_GE_U64(x->fired_at, dl);
    if (scheme_exact(c->scheme))
        ASSERT_EQ_U64(x->fired_at, dl);
}

/* ------------------------------------------------------------- the cases */

static void case_level_boundaries(struct ctx *c)
{
    tw_time_t ivs[200];
    CREATE(tw);
    size_t n = boundary_intervals(tw, c, ivs, 200);
    ASSERT_GT_INT(n, 3);
    struct ttimer a;
    tt_init(&a, 1);
    /* one at a time, from a clock moved off any alignment in between */
    for (size_t i = 0; i < n; i++) {
        tw_time_t now = tw_now(tw);
        if (sat_add(now, ivs[i]) == TW_TIME_MAX && now != TW_TIME_MAX && i + 1 < n)
            continue; /* saturated: the batch below covers the end of time */
        ASSERT_OK(tw_start(tw, &a.node, ivs[i]));
        ASSERT_CHECK(tw);
        fire_exactly(c, tw, &a, now);
        RETURN_IF_FAILED();
        if (tw_now(tw) < TW_TIME_MAX - 1000)
            ASSERT_EQ_INT(tw_advance(tw, tw_now(tw) + 1 + (tw_time_t)i * 13), 0);
    }
    ASSERT_OK(tw_destroy(tw));

    /* all at once; advance from one next_expiry to the next */
    tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct ttimer *t = calloc(n, sizeof *t);
    ASSERT_NOT_NULL(t);
    tw_time_t now0 = tw_now(tw);
    for (size_t i = 0; i < n; i++) {
        tt_init(&t[i], (int)i);
        ASSERT_OK(tw_start(tw, &t[i].node, ivs[i]));
    }
    ASSERT_CHECK(tw);
    for (int guard = 0; tw_count(tw) > 0 && guard < 1000; guard++) {
        tw_time_t ne = 0;
        ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
        tw_time_t to = max_u64(ne, tw_now(tw));
        if (to > tw_now(tw))
            ASSERT_EQ_INT(tw_advance(tw, to - 1), 0);
        ASSERT_GE_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        for (size_t i = 0; i < n; i++) {
            tw_time_t dl = tw_timer_deadline(&t[i].node);
            if (dl > to)
                ASSERT_EQ_INT(t[i].fired, 0);
            else if (due_by(c, now0, dl) <= to)
                ASSERT_EQ_INT(t[i].fired, 1);
            if (t[i].fired && scheme_exact(c->scheme))
                ASSERT_EQ_U64(t[i].fired_at, dl);
            if (t[i].fired)
                ASSERT_GE_U64(t[i].fired_at, dl);
        }
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
    free(t);
}

static void case_aligned_boundaries(struct ctx *c)
{
    CREATE(tw);
    struct ttimer t[3];
    for (int i = 0; i < 3; i++)
        tt_init(&t[i], i);
    for (unsigned k = 1; k < 64; k += 3) {
        tw_time_t now = tw_now(tw);
        tw_time_t unit = 1ull << k;
        tw_time_t edge = now | (unit - 1); /* the tick before a multiple of 2^k */
        if (edge >= TW_TIME_MAX - 2)
            break;
        int started = 0;
        for (int d = 0; d < 3; d++) {
            tw_time_t dl = edge + (tw_time_t)d; /* 2^k m - 1, 2^k m, 2^k m + 1 */
            if (dl <= now || dl - now > tw_max_interval(tw))
                continue;
            ASSERT_OK(tw_start_at(tw, &t[d].node, dl));
            started++;
        }
        ASSERT_CHECK(tw);
        for (int d = 0; d < 3; d++)
            if (tw_timer_pending(&t[d].node)) {
                fire_exactly(c, tw, &t[d], now);
                RETURN_IF_FAILED();
            }
        ASSERT_EQ_U64(tw_count(tw), 0);
        (void)started;
    }
    ASSERT_OK(tw_destroy(tw));
}

/* Every timer of a batch due in the same tick stops all the others. */
static struct ttimer *stop_all_batch;
static int stop_all_n;

static void cb_stop_all(struct tw *tw, struct tw_timer *self)
{
    struct ttimer *x = tt_of(self);
    x->fired++;
    x->fired_at = tw_now(tw);
    for (int i = 0; i < stop_all_n; i++)
        if (&stop_all_batch[i] != x)
            x->rc += tw_stop(tw, &stop_all_batch[i].node);
}

static void case_cb_stop_all_others(struct ctx *c)
{
    enum { N = 16 };
    CREATE(tw);
    struct ttimer t[N];
    stop_all_batch = t;
    stop_all_n = N;
    static const tw_time_t ivs[] = {0, 1, 5, 64, 4096};
    for (size_t v = 0; v < sizeof ivs / sizeof ivs[0]; v++) {
        if (ivs[v] > tw_max_interval(tw))
            continue;
        tw_time_t now = tw_now(tw);
        for (int i = 0; i < N; i++) {
            tt_init(&t[i], i);
            tw_timer_set_callback(&t[i].node, cb_stop_all);
            /* half through start, half through start_at, same deadline */
            if (i % 2)
                ASSERT_OK(tw_start(tw, &t[i].node, ivs[v]));
            else
                ASSERT_OK(tw_start_at(tw, &t[i].node, sat_add(now, ivs[v])));
        }
        ASSERT_CHECK(tw);
        tw_time_t to = max_u64(due_by(c, now, sat_add(now, ivs[v])), now);
        ASSERT_EQ_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        int fired = 0;
        for (int i = 0; i < N; i++) {
            fired += t[i].fired;
            if (t[i].fired)
                ASSERT_EQ_INT(t[i].rc, N - 1); /* all the others were pending */
            ASSERT_EQ_INT(tw_timer_pending(&t[i].node), 0);
        }
        ASSERT_EQ_INT(fired, 1);
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_EQ_INT(tw_advance(tw, sat_add(to, 1ull << 20)), 0);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* The first of two timers due in the same tick to run stops the other and
 * restarts it, then stops (a no-op: it is idle) and restarts itself: the
 * other does not fire in this advance, and each fires once, exactly at
 * its new deadline. */
static int sr_done;
static tw_time_t sr_iv;

static void cb_stop_restart(struct tw *tw, struct tw_timer *self)
{
    struct ttimer *x = tt_of(self);
    x->fired++;
    x->fired_at = tw_now(tw);
    if (sr_done)
        return;
    sr_done = 1;
    x->rc = tw_stop(tw, &x->other->node);
    x->rc_check = tw_start(tw, &x->other->node, sr_iv);
    x->rc_next = tw_stop(tw, self);
    x->rc_advance = tw_start(tw, self, sr_iv + 1);
}

static void case_cb_stop_then_restart(struct ctx *c)
{
    CREATE(tw);
    static const tw_time_t rearm[] = {0, 1, 63, 64, 65, 5000};
    for (size_t v = 0; v < sizeof rearm / sizeof rearm[0]; v++) {
        if (rearm[v] + 1 > tw_max_interval(tw))
            continue;
        struct ttimer a, b;
        tt_init(&a, 1);
        tt_init(&b, 2);
        tw_timer_set_callback(&a.node, cb_stop_restart);
        tw_timer_set_callback(&b.node, cb_stop_restart);
        a.other = &b;
        b.other = &a;
        sr_done = 0;
        sr_iv = rearm[v];
        tw_time_t now = tw_now(tw);
        ASSERT_OK(tw_start(tw, &a.node, 10));
        ASSERT_OK(tw_start(tw, &b.node, 10));
        tw_time_t to = max_u64(due_by(c, now, sat_add(now, 10)), now);
        ASSERT_EQ_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        struct ttimer *w = a.fired ? &a : &b, *l = a.fired ? &b : &a;
        ASSERT_EQ_INT(w->fired, 1);
        ASSERT_EQ_INT(l->fired, 0);
        ASSERT_EQ_RC(w->rc, 1);         /* l was pending (due) */
        ASSERT_EQ_RC(w->rc_check, 0);
        ASSERT_EQ_RC(w->rc_next, 0);    /* w itself was idle */
        ASSERT_EQ_RC(w->rc_advance, 0);
        ASSERT_EQ_U64(tw_count(tw), 2);
        ASSERT_EQ_U64(tw_timer_deadline(&l->node), sat_add(to, rearm[v]));
        ASSERT_EQ_U64(tw_timer_deadline(&w->node), sat_add(to, rearm[v] + 1));
        fire_exactly(c, tw, l, to);
        RETURN_IF_FAILED();
        if (tw_timer_pending(&w->node)) {
            fire_exactly(c, tw, w, to);
            RETURN_IF_FAILED();
        }
        ASSERT_EQ_INT(l->fired, 1);
        ASSERT_EQ_INT(w->fired, 2);
        ASSERT_EQ_U64(tw_count(tw), 0);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* A callback at tick T starts timers at T + 0 and T + span of each level:
 * in the wheels these map to the slot index being drained.  None may fire
 * in this advance; each fires exactly at its deadline. */
enum { DRAIN_N = 24 };
static struct ttimer drain_t[DRAIN_N];
static tw_time_t drain_iv[DRAIN_N];
static int drain_n;

static void cb_drain_starter(struct tw *tw, struct tw_timer *self)
{
    struct ttimer *x = tt_of(self);
    x->fired++;
    x->fired_at = tw_now(tw);
    for (int i = 0; i < drain_n; i++)
        x->rc |= tw_start(tw, &drain_t[i].node, drain_iv[i]);
}

static void case_cb_start_into_draining(struct ctx *c)
{
    CREATE(tw);
    struct ttimer s, same;
    tt_init(&s, 100);
    tt_init(&same, 101);
    tw_timer_set_callback(&s.node, cb_drain_starter);
    uint32_t S = c->cfg.slots ? c->cfg.slots : 64;
    drain_n = 0;
    drain_iv[drain_n++] = 0;
    for (tw_time_t span = S; span != 0 && drain_n < DRAIN_N - 2; span *= S) {
        drain_iv[drain_n++] = span;
        if (span > TW_TIME_MAX / S)
            break;
    }
    for (tw_time_t span = 64; span != 0 && drain_n < DRAIN_N; span <<= 12)
        drain_iv[drain_n++] = span;
    for (int i = 0; i < drain_n; i++) {
        tt_init(&drain_t[i], i);
        drain_iv[i] = cap_interval(tw, drain_iv[i]);
    }
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &s.node, 7));
    ASSERT_OK(tw_start(tw, &same.node, 7)); /* shares the slot being drained */
    tw_time_t to = max_u64(due_by(c, now, sat_add(now, 7)), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 2);
    ASSERT_CHECK(tw);
    ASSERT_EQ_RC(s.rc, 0);
    ASSERT_EQ_INT(same.fired, 1);
    for (int i = 0; i < drain_n; i++) {
        ASSERT_EQ_INT(drain_t[i].fired, 0); /* not in this advance */
        ASSERT_EQ_INT(tw_timer_pending(&drain_t[i].node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&drain_t[i].node), sat_add(to, drain_iv[i]));
    }
    /* now fire them in deadline order, each exactly */
    for (int i = 0; i < drain_n; i++) {
        if (drain_t[i].fired)
            continue;
        tw_time_t dl = tw_timer_deadline(&drain_t[i].node);
        if (dl > tw_now(tw))
            ASSERT_GE_INT(tw_advance(tw, dl - 1), 0);
        for (int k = 0; k < drain_n; k++)
            if (tw_timer_deadline(&drain_t[k].node) >= dl &&
                tw_timer_deadline(&drain_t[k].node) > tw_now(tw))
                ASSERT_EQ_INT(drain_t[k].fired, 0);
        ASSERT_GE_INT(tw_advance(tw, max_u64(due_by(c, to, dl), tw_now(tw))), 1);
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(drain_t[i].fired, 1);
        if (scheme_exact(c->scheme))
            ASSERT_EQ_U64(drain_t[i].fired_at, max_u64(dl, to));
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Many heap nodes due together: a third free themselves, a third stop and
 * restart a neighbour, a third re-arm themselves with 0. */
static void case_cb_free_self_batch(struct ctx *c)
{
    enum { N = 60 };
    CREATE(tw);
    struct ttimer *t[N];
    tw_time_t now = tw_now(tw);
    for (int i = 0; i < N; i++) {
        t[i] = malloc(sizeof *t[i]);
        ASSERT_NOT_NULL(t[i]);
        tt_init(t[i], i);
    }
    for (int i = 0; i < N; i++) {
        switch (i % 3) {
        case 0:
            t[i]->action = ACT_FREE_SELF;
            break;
        case 1:
            t[i]->action = ACT_RESTART_OTHER;
            t[i]->other = t[(i + 1) % N]; /* a %3==2 one: re-armed, not freed */
            t[i]->arg = 3;
            t[i]->budget = 1;
            break;
        default:
            t[i]->action = ACT_RESTART_SELF;
            t[i]->arg = 0;
            t[i]->budget = 1;
            break;
        }
        ASSERT_OK(tw_start(tw, &t[i]->node, (tw_time_t)(i % 4)));
    }
    ASSERT_CHECK(tw);
    tw_time_t to = max_u64(due_by(c, now, sat_add(now, 3)), now);
    ASSERT_GE_INT(tw_advance(tw, to), N / 3);
    ASSERT_CHECK(tw);
    /* the survivors drain at the end of time, each exactly once more at most */
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), 0);
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue; /* freed */
        ASSERT_GE_INT(t[i]->fired, 1);
        ASSERT_LE_INT(t[i]->fired, 3);
        free(t[i]);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* The schemes that take TTL hints (lawn and hybrid) allocate a queue per
 * TTL: with the allocator failing, starts and hints either work or return
 * TW_ENOMEM with nothing changed. */
static void case_alloc_fail_ttl(struct ctx *c)
{
    enum { N = 200 };
    if (!scheme_takes_hints(c->scheme))
        return;
    for (int with_realloc = 0; with_realloc < 2; with_realloc++) {
        struct test_alloc *ta = malloc(sizeof *ta);
        ASSERT_NOT_NULL(ta);
        test_alloc_init(ta, with_realloc);
        struct tw_config cfg = c->cfg;
        cfg.allocator = &ta->a;
        cfg.ttl_threshold = 1; /* hybrid: every TTL gets a queue at once */
        struct tw *tw = NULL;
        ASSERT_OK(tw_create(&tw, &cfg));
        struct ttimer *t = malloc(N * sizeof *t);
        ASSERT_NOT_NULL(t);
        size_t pending = 0;
        for (long fail = 0; fail < 6; fail++) {
            ta->fail_after = fail;
            for (int i = 0; i < N; i++) {
                if (fail == 0)
                    tt_init(&t[i], i);
                tw_time_t ttl = 10 + (tw_time_t)(i % 37) * 1000 + (tw_time_t)fail;
                int was = tw_timer_pending(&t[i].node);
                tw_time_t d0 = tw_timer_deadline(&t[i].node);
                int rc = tw_start(tw, &t[i].node, ttl);
                if (rc == TW_ENOMEM) {
                    ASSERT_EQ_INT(tw_timer_pending(&t[i].node), was);
                    if (was)
                        ASSERT_EQ_U64(tw_timer_deadline(&t[i].node), d0);
                } else {
                    ASSERT_OK(rc);
                    if (!was)
                        pending++;
                }
                if (i % 17 == 0) {
                    rc = tw_ttl_hint(tw, ttl + 5, TW_TTL_QUEUE);
                    ASSERT_TRUE(rc == 0 || rc == TW_ENOMEM);
                }
                ASSERT_EQ_U64(tw_count(tw), pending);
                ASSERT_EQ_U64(tw_memory(tw), ta->outstanding);
            }
            ASSERT_CHECK(tw);
            for (int i = 0; i < N; i += 3)
                if (tw_stop(tw, &t[i].node) == 1)
                    pending--;
            ASSERT_GE_INT(tw_advance(tw, sat_add(tw_now(tw), 20000)), 0);
            ASSERT_CHECK(tw);
            pending = tw_count(tw);
        }
        ta->fail_after = -1;
        ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_CHECK(tw);
        ASSERT_OK(tw_destroy(tw));
        ASSERT_EQ_U64(ta->outstanding, 0);
        ASSERT_EQ_U64(ta->size_errors, 0);
        ASSERT_EQ_U64(ta->unknown_ptrs, 0);
        free(t);
        free(ta);
    }
}

/* tw_check() finds a corrupted node wherever it is (in the scheme, on the
 * due list, on the expired queue), says what it found, and passes again
 * once the node is restored.  Corrupts only the node's own fields: bad
 * magic, the pending flag, the owner (always detected), a deadline moved
 * to now (detected by the exact schemes), and for the rest (a deadline
 * moved elsewhere, a broken back link, a wrong heap index) detection is
 * the scheme's business: tw_check() must return 0 or TW_ECORRUPT, and not
 * crash. */
static void corrupt_and_check(struct ctx *c, struct tw *tw, struct tw_timer *t, int kind,
                              int in_scheme)
{
    struct tw_timer save = *t;
    char msg[256];
    int must = 1;
    switch (kind) {
    case 0:
        t->tw_flags = 0;
        break;
    case 1:
        t->tw_flags &= ~1u; /* the pending bit */
        break;
    case 2:
        t->tw_owner ^= 0x5a5au;
        break;
    case 3:
        t->tw_expires = tw_now(tw);
        must = in_scheme && scheme_exact(c->scheme);
        break;
    case 4:
        t->tw_expires = in_scheme ? t->tw_expires + 1 : tw_now(tw) + 1;
        must = !in_scheme;
        break;
    case 5:
        t->tw_expires ^= 1ull << 40;
        must = 0;
        break;
    case 6:
        must = in_scheme && c->scheme == TW_HEAP;
        if (must)
            t->tw_u.heap.index += 1;
        else
            t->tw_u.link.prev = &t->tw_u.link;
        break;
    default:
        return;
    }
    int rc = tw_check(tw, msg, sizeof msg);
    int rc_nomsg = tw_check(tw, NULL, 0);
    *t = save;
    if (must && rc != TW_ECORRUPT)
        test_fail(__FILE__, __LINE__, "corruption %d of a node %s not detected: %s", kind,
                  in_scheme ? "in the scheme" : "on a list", tw_err_name(rc));
    RETURN_IF_FAILED();
    ASSERT_TRUE(rc == 0 || rc == TW_ECORRUPT);
    ASSERT_EQ_RC(rc_nomsg, rc);
    if (rc)
        ASSERT_TRUE(msg[0] != '\0');
    ASSERT_CHECK(tw);
}

static void case_check_detects_corruption(struct ctx *c)
{
    enum { N = 24 };
    static const tw_time_t ivs[] = {1, 5, 5, 5, 63, 64, 65, 4095, 5000, 1u << 20,
                                    1ull << 40, 1ull << 40, TW_TIME_MAX};
    enum { NIV = sizeof ivs / sizeof ivs[0] };
    CREATE(tw);
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    ASSERT_EQ_RC(tw_check(NULL, NULL, 0), TW_EINVAL);
    /* two on the expired queue, two due, the rest in the scheme */
    ASSERT_OK(tw_start(tw, &t[0].node, 0));
    ASSERT_OK(tw_start(tw, &t[1].node, 0));
    ASSERT_EQ_INT(tw_collect(tw, tw_now(tw)), 2);
    ASSERT_OK(tw_start(tw, &t[2].node, 0));
    ASSERT_OK(tw_start_at(tw, &t[3].node, 0));
    for (int i = 4; i < 4 + NIV; i++)
        ASSERT_OK(tw_start(tw, &t[i].node, cap_interval(tw, ivs[i - 4])));
    ASSERT_CHECK(tw);
    for (int i = 0; i < 4 + NIV; i++) {
        int in_scheme = tw_timer_deadline(&t[i].node) > tw_now(tw);
        for (int kind = 0; kind < 7; kind++) {
            corrupt_and_check(c, tw, &t[i].node, kind, in_scheme);
            RETURN_IF_FAILED();
        }
    }
    while (tw_get_expired(tw) != NULL)
        ;
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* The hybrid's stop reads a node flag to tell its Lawn part from its
 * wheel, and no longer clears it (the core rewrites the flags after every
 * remove): tw_check must report a node in the wheel that carries it.  The
 * other schemes have no such flag: there the case checks only that a stop
 * and restart leave the facility consistent. */
#define HYB_IN_LAWN 0x4u /* HYB_F_LAWN in src/schemes/hybrid.c */

static void case_hybrid_flag_checked(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    /* a's TTL is met once (the wheel); b's is hinted to a queue */
    ASSERT_OK(tw_start(tw, &a.node, cap_interval(tw, 5000)));
    if (c->scheme == TW_HYBRID)
        ASSERT_OK(tw_ttl_hint(tw, 7, TW_TTL_QUEUE));
    ASSERT_OK(tw_start(tw, &b.node, 7));
    ASSERT_CHECK(tw);
    if (c->scheme == TW_HYBRID) {
        ASSERT_EQ_INT((int)(b.node.tw_flags & HYB_IN_LAWN), (int)HYB_IN_LAWN);
        a.node.tw_flags |= HYB_IN_LAWN;
        ASSERT_EQ_RC(tw_check(tw, NULL, 0), TW_ECORRUPT);
        a.node.tw_flags &= ~HYB_IN_LAWN;
    }
    /* stop and restart both, from one part to the other and back */
    ASSERT_EQ_INT(tw_stop(tw, &b.node), 1);
    ASSERT_OK(tw_start(tw, &b.node, cap_interval(tw, 5000)));
    ASSERT_OK(tw_start(tw, &a.node, 7));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 1);
    ASSERT_EQ_INT(tw_stop(tw, &b.node), 1);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* The hybrid's candidate slot of a TTL: the hash of hybrid.c's
 * tw_hybrid_cand(), to find two TTLs that share a slot. */
static unsigned hyb_cand(tw_time_t ttl)
{
    return (unsigned)((ttl * 0x9e3779b97f4a7c15ull) >> 52) % 4096u;
}

/* In the hybrid, does x sit in a Lawn queue?  -1 for the other schemes. */
static int in_queue(const struct ctx *c, const struct ttimer *x)
{
    if (c->scheme != TW_HYBRID)
        return -1;
    return (x->node.tw_flags & HYB_IN_LAWN) != 0;
}

#define ASSERT_ROUTE(x, want)                                                   \
    do {                                                                       \
        if (c->scheme == TW_HYBRID)                                            \
            ASSERT_EQ_INT(in_queue(c, (x)), (want));                           \
    } while (0)

/*
 * The hybrid's routing policy, which both its full path (hybrid_reserve(),
 * hybrid_insert()) and the start fast path in facility.c apply, pinned
 * start by start (threshold K = 8):
 *   - the first K-1 starts of a TTL go to the wheel, the K-th and later to
 *     a queue, and a timer restarted with that TTL then joins the queue;
 *   - a TTL that lands in the same candidate slot resets the count;
 *   - TW_TTL_WHEEL on a TTL whose queue has timers sends its next start to
 *     the wheel;
 *   - restarts out of a queue (a middle node to the wheel, the last one
 *     back to its tail, the head to the wheel): checked after each, and
 *     the three fire in deadline order.
 * On the other schemes the same starts and restarts must keep the facility
 * consistent and fire on time.
 */
static void case_hybrid_routing(struct ctx *c)
{
    c->cfg.ttl_threshold = 8;
    CREATE(tw);
    if (tw_max_interval(tw) < 4000 || c->start > TW_TIME_MAX - 100000) {
        ASSERT_OK(tw_destroy(tw)); /* TTLs must be deadline - now exactly */
        return;
    }
    enum { N = 24 };
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    const tw_time_t T = 100, T3 = 50;
    /* T2 < U <= 4000 (within the wheel's MaxInterval) sharing a candidate
     * slot, apart from T's and T3's */
    tw_time_t T2 = 200, U = 0;
    for (; T2 < 4000; T2++) {
        for (U = T2 + 1; U <= 4000 && hyb_cand(U) != hyb_cand(T2); U++)
            ;
        if (U <= 4000 && hyb_cand(T2) != hyb_cand(T) && hyb_cand(T2) != hyb_cand(T3))
            break;
    }
    ASSERT_TRUE(T2 < 4000); /* a pair exists for hybrid.c's hash */

    /* K-1 starts of T in the wheel, the K-th and (K+1)-th in a queue */
    for (int i = 0; i < 7; i++) {
        ASSERT_OK(tw_start(tw, &t[i].node, T));
        ASSERT_ROUTE(&t[i], 0);
    }
    ASSERT_OK(tw_start(tw, &t[7].node, T));
    ASSERT_ROUTE(&t[7], 1);
    ASSERT_OK(tw_start(tw, &t[8].node, T));
    ASSERT_ROUTE(&t[8], 1);
    ASSERT_OK(tw_start(tw, &t[2].node, T)); /* from the wheel to the queue */
    ASSERT_ROUTE(&t[2], 1);
    ASSERT_CHECK(tw);

    /* T2 counted to K-1, reset by U in its slot: the next T2 is a 1 */
    for (int i = 9; i < 16; i++)
        ASSERT_OK(tw_start(tw, &t[i].node, T2));
    ASSERT_OK(tw_start(tw, &t[16].node, U));
    ASSERT_OK(tw_start(tw, &t[17].node, T2));
    ASSERT_ROUTE(&t[17], 0);
    ASSERT_CHECK(tw);

    /* T's queue has timers; hinted to the wheel, T's next start is not
     * queued (those already queued stay) */
    if (c->scheme == TW_HYBRID)
        ASSERT_OK(tw_ttl_hint(tw, T, TW_TTL_WHEEL));
    ASSERT_OK(tw_start(tw, &t[18].node, T));
    ASSERT_ROUTE(&t[18], 0);
    ASSERT_ROUTE(&t[7], 1);
    ASSERT_CHECK(tw);

    /* A queue A, B, C of T3 (hinted: a queue from the first start) */
    if (c->scheme == TW_HYBRID)
        ASSERT_OK(tw_ttl_hint(tw, T3, TW_TTL_QUEUE));
    struct ttimer *a = &t[19], *b = &t[20], *d = &t[21];
    tw_time_t armed = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a->node, T3));
    ASSERT_OK(tw_start(tw, &b->node, T3));
    ASSERT_OK(tw_start(tw, &d->node, T3));
    ASSERT_ROUTE(a, 1);
    ASSERT_ROUTE(d, 1);
    ASSERT_OK(tw_start(tw, &b->node, T3 + 10)); /* middle node: to the wheel */
    ASSERT_ROUTE(b, 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_start(tw, &d->node, T3)); /* last node: back to the tail */
    ASSERT_ROUTE(d, 1);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_start(tw, &a->node, T3 + 20)); /* the head: to the wheel */
    ASSERT_ROUTE(a, 0);
    ASSERT_CHECK(tw);

    /* d at +T3, b at +T3+10, a at +T3+20: each at its own tick (the
     * coarse wheel: all three by the bound of the last) */
    if (scheme_exact(c->scheme)) {
        ASSERT_GE_INT(tw_advance(tw, armed + T3 - 1), 0);
        ASSERT_EQ_INT(d->fired, 0);
        ASSERT_GE_INT(tw_advance(tw, armed + T3), 0);
        ASSERT_EQ_INT(d->fired, 1);
        ASSERT_EQ_INT(b->fired, 0);
        ASSERT_GE_INT(tw_advance(tw, armed + T3 + 10), 0);
        ASSERT_EQ_INT(b->fired, 1);
        ASSERT_EQ_INT(a->fired, 0);
        ASSERT_GE_INT(tw_advance(tw, armed + T3 + 20), 0);
    } else {
        ASSERT_GE_INT(tw_advance(tw, due_by(c, armed, armed + T3 + 20)), 0);
        ASSERT_EQ_INT(d->fired, 1);
        ASSERT_EQ_INT(b->fired, 1);
    }
    ASSERT_EQ_INT(a->fired, 1);
    ASSERT_CHECK(tw);
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Two timers of the same TTL where the second's deadline saturates at
 * TW_TIME_MAX: started with interval X = 2^64 - 256 at 0 (deadline X) and
 * at 255 (deadline 2^64 - 1, so deadline - now is X again: lawn and the
 * hybrid put both in the TTL-X queue).  The advance to X fires the first;
 * the second must stay visible (tw_check, tw_next_expiry) and fire at the
 * end of time.  Found by the fuzzer (fuzz/crashes/lawn-saturated-head). */
static void case_saturated_same_ttl(struct ctx *c)
{
    c->cfg.ttl_threshold = 1; /* hybrid: a queue for every TTL */
    CREATE(tw);
    if (tw_max_interval(tw) != TW_TIME_MAX || c->start > 255) {
        ASSERT_OK(tw_destroy(tw));
        return; /* wheel refuses X; the clock must start at or before 255 */
    }
    const tw_time_t X = TW_TIME_MAX - 255;
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    ASSERT_OK(tw_start(tw, &a.node, X - c->start));
    ASSERT_EQ_INT(tw_advance(tw, 255), 0);
    ASSERT_OK(tw_start(tw, &b.node, X));
    ASSERT_EQ_U64(tw_timer_deadline(&b.node), TW_TIME_MAX);
    ASSERT_CHECK(tw);
    tw_time_t to = due_by(c, c->start, X);
    int64_t n = tw_advance(tw, to);
    ASSERT_EQ_INT(a.fired, 1);
    ASSERT_CHECK(tw);
    if (!scheme_exact(c->scheme) && b.fired) {
        ASSERT_EQ_INT(n, 2); /* coarse: X rounds up to the end of time */
        ASSERT_OK(tw_destroy(tw));
        return;
    }
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_INT(tw_timer_pending(&b.node), 1);
    tw_time_t ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, TW_TIME_MAX);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 1);
    ASSERT_EQ_INT(b.fired, 1);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* ---------------------------------------------------------------- runner */

static const struct test_case hostile_cases[] = {
    {"level_boundaries", case_level_boundaries, 1},
    {"aligned_boundaries", case_aligned_boundaries, 1},
    {"cb_stop_all_others", case_cb_stop_all_others, 1},
    {"cb_stop_then_restart", case_cb_stop_then_restart, 1},
    {"cb_start_into_draining", case_cb_start_into_draining, 1},
    {"cb_free_self_batch", case_cb_free_self_batch, 1},
    {"alloc_fail_ttl", case_alloc_fail_ttl, 1},
    {"check_detects_corruption", case_check_detects_corruption, 1},
    {"hybrid_flag_checked", case_hybrid_flag_checked, 1},
    {"hybrid_routing", case_hybrid_routing, 1},
    {"saturated_same_ttl", case_saturated_same_ttl, 1},
};
#define NCASES (sizeof hostile_cases / sizeof hostile_cases[0])

static const tw_time_t start_clocks[] = {
    0,
    (1ull << 32) - 1000,
    (1ull << 63) - 1000,
    UINT64_MAX - 100000,
};

int main(int argc, char **argv)
{
    int scheme_filter = -1;
    const char *case_filter = NULL;
    if (argc > 1 && strcmp(argv[1], "all") != 0) {
        scheme_filter = tw_scheme_from_name(argv[1]);
        if (scheme_filter < 0) {
            fprintf(stderr, "unknown scheme %s\n", argv[1]);
            return 2;
        }
        if (!tw_scheme_available((enum tw_scheme)scheme_filter)) {
            printf("scheme %s is not available in this build: skipped\n", argv[1]);
            return 77;
        }
    }
    if (argc > 2)
        case_filter = argv[2];
    unsigned long runs = 0, failed = 0;
    for (size_t k = 0; k < NCASES; k++) {
        if (case_filter && strstr(hostile_cases[k].name, case_filter) == NULL)
            continue;
        for (int s = 0; s < TW_SCHEME_COUNT; s++) {
            if ((scheme_filter >= 0 && s != scheme_filter) ||
                !tw_scheme_available((enum tw_scheme)s))
                continue;
            for (size_t ci = 0; ci < sizeof start_clocks / sizeof start_clocks[0]; ci++) {
                struct ctx c;
                memset(&c, 0, sizeof c);
                c.scheme = (enum tw_scheme)s;
                c.scheme_name = tw_scheme_name(c.scheme);
                c.suite = "hostile";
                c.case_name = hostile_cases[k].name;
                c.start = start_clocks[ci];
                if (tw_config_init(&c.cfg, c.scheme) != 0)
                    return 2;
                c.cfg.start = c.start;
                test_ctx = &c;
                test_failures_at_case_start = test_failures;
                test_log_reset();
                hostile_cases[k].fn(&c);
                runs++;
                if (TEST_CASE_FAILED())
                    failed++;
                test_ctx = NULL;
            }
        }
    }
    printf("hostile: %lu runs, %lu failed, %lu failed assertions\n", runs, failed,
           test_failures);
    return test_failures ? 1 : 0;
}
