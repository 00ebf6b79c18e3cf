/*
 * test_cases.c -- the edge cases of the contract (docs/design.md, "The
 * contract"), each its own case, run against every available scheme at
 * every start clock.
 *
 * Timing words used below: "exact" schemes fire a timer in the very advance
 * whose `now` first reaches its deadline; hierarchical_coarse may fire later,
 * by latest_fire() (test_util.c), but never before the deadline.  Cases that
 * need a firing advance therefore advance to fire_by(), which is the deadline
 * for exact schemes and latest_fire() for the coarse one.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define CREATE(name)                      \
    struct tw *name = test_create(c);     \
    if (name == NULL)                     \
        return

/* The advance that must have fired a timer with `deadline` armed at
 * `armed_at`, given the current time `now`. */
static tw_time_t fire_by(const struct ctx *c, tw_time_t armed_at, tw_time_t deadline,
                         tw_time_t now)
{
    return max_u64(latest_fire(c->scheme, armed_at, deadline), now);
}

/* Advance so that pending `x`, armed at `armed_at`, fires: nothing of it at
 * the tick before its deadline, then exactly at the deadline (exact schemes)
 * or by latest_fire() (coarse), exactly once. */
static void fire_one(struct ctx *c, struct tw *tw, struct ttimer *x, tw_time_t armed_at)
{
    tw_time_t dl = tw_timer_deadline(&x->node);
    int before = x->fired;
    ASSERT_TRUE(tw_timer_pending(&x->node));
    if (dl > tw_now(tw)) {
        ASSERT_GE_INT(tw_advance(tw, dl - 1), 0);
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(x->fired, before); /* never early */
        ASSERT_TRUE(tw_timer_pending(&x->node));
    }
    tw_time_t now = tw_now(tw);
    tw_time_t to = fire_by(c, armed_at, dl, now);
    ASSERT_GE_INT(tw_advance(tw, to), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(x->fired, before + 1);
    ASSERT_GE_U64(x->fired_at, dl);
    if (scheme_exact(c->scheme))
        ASSERT_EQ_U64(x->fired_at, max_u64(dl, now));
}

/* ----------------------------------------------------- due immediately */

static void case_zero_interval(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    tw_time_t now = tw_now(tw);
    ASSERT_EQ_U64(now, c->start);

    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), now);
    ASSERT_EQ_U64(tw_count(tw), 1);
    tw_time_t ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, now);

    /* An advance to the same now fires it, once. */
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(a.fired, 1);
    ASSERT_EQ_U64(a.fired_at, now);
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_INT(tw_advance(tw, now), 0);
    ASSERT_EQ_INT(a.fired, 1);

    /* An advance to a later now fires it too, at that now. */
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_advance(tw, sat_add(now, 1)), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(a.fired, 2);
    ASSERT_EQ_U64(a.fired_at, sat_add(now, 1));

    /* start_at(now) is the same thing. */
    now = tw_now(tw);
    ASSERT_OK(tw_start_at(tw, &a.node, now));
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), now);
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_EQ_INT(a.fired, 3);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

static void case_past_deadline(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b, d;
    tt_init(&a, 1);
    tt_init(&b, 2);
    tt_init(&d, 3);
    ASSERT_EQ_INT(tw_advance(tw, sat_add(c->start, 1000)), 0);
    ASSERT_CHECK(tw);
    tw_time_t now = tw_now(tw);

    ASSERT_OK(tw_start_at(tw, &a.node, now - 500));
    ASSERT_OK(tw_start_at(tw, &b.node, 0));
    ASSERT_OK(tw_start_at(tw, &d.node, now - 1));
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), 3);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), now - 500);
    ASSERT_EQ_U64(tw_timer_deadline(&b.node), 0);
    ASSERT_EQ_U64(tw_timer_deadline(&d.node), now - 1);
    tw_time_t ne = 1;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, 0); /* a due timer gives its own deadline */

    ASSERT_EQ_INT(tw_advance(tw, now), 3);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(a.fired, 1);
    ASSERT_EQ_INT(b.fired, 1);
    ASSERT_EQ_INT(d.fired, 1);
    ASSERT_EQ_U64(a.fired_at, now);
    /* After firing, the deadline is the one it fired for. */
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), now - 500);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* ---------------------------------------------------------- saturation */

static void case_saturation(struct ctx *c)
{
    CREATE(tw);
    struct ttimer t[8];
    for (int i = 0; i < 8; i++)
        tt_init(&t[i], i);
    tw_time_t maxi = tw_max_interval(tw);
    tw_time_t now0 = tw_now(tw);
    int early = 0; /* timers started at now0 */

    if (maxi == TW_TIME_MAX) {
        /* From any clock: the longest interval saturates at the end of time. */
        ASSERT_OK(tw_start(tw, &t[0].node, TW_TIME_MAX));
        ASSERT_EQ_U64(tw_timer_deadline(&t[0].node), TW_TIME_MAX);
        ASSERT_OK(tw_start_at(tw, &t[1].node, TW_TIME_MAX));
        ASSERT_EQ_U64(tw_timer_deadline(&t[1].node), TW_TIME_MAX);
        early = 2;
        ASSERT_CHECK(tw);
    }
    /* Near the end of time, intervals that overflow saturate. */
    tw_time_t near = TW_TIME_MAX - 1000;
    if (near > now0)
        ASSERT_EQ_INT(tw_advance(tw, near), 0);
    ASSERT_CHECK(tw);
    tw_time_t now = tw_now(tw);
    tw_time_t left = TW_TIME_MAX - now;
    ASSERT_OK(tw_start(tw, &t[2].node, cap_interval(tw, TW_TIME_MAX - 5)));
    ASSERT_EQ_U64(tw_timer_deadline(&t[2].node),
                  sat_add(now, cap_interval(tw, TW_TIME_MAX - 5)));
    ASSERT_OK(tw_start(tw, &t[3].node, cap_interval(tw, left + 1000)));
    ASSERT_EQ_U64(tw_timer_deadline(&t[3].node), TW_TIME_MAX);
    ASSERT_OK(tw_start(tw, &t[4].node, left)); /* exactly the end, no overflow */
    ASSERT_EQ_U64(tw_timer_deadline(&t[4].node), TW_TIME_MAX);
    ASSERT_OK(tw_start(tw, &t[5].node, left - 1));
    ASSERT_EQ_U64(tw_timer_deadline(&t[5].node), TW_TIME_MAX - 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), (uint64_t)early + 4);

    /* Nothing fires before its tick. */
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX - 2), 0);
    ASSERT_CHECK(tw);
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_INT(t[i].fired, 0);
    int64_t n = tw_advance(tw, TW_TIME_MAX - 1);
    ASSERT_CHECK(tw);
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_INT(n, 1);
        ASSERT_EQ_INT(t[5].fired, 1);
    }
    for (int i = 0; i < 5; i++)
        if (tw_timer_deadline(&t[i].node) == TW_TIME_MAX)
            ASSERT_EQ_INT(t[i].fired, 0);
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 1);
    ASSERT_CHECK(tw);
    for (int i = 0; i < 6; i++) {
        if (i < 2 && i >= early)
            continue;
        ASSERT_EQ_INT(t[i].fired, 1);
        ASSERT_GE_U64(t[i].fired_at, tw_timer_deadline(&t[i].node));
    }
    ASSERT_EQ_U64(tw_count(tw), 0);

    /* At the end of time every start is due at once, and fires at the next
     * advance (which can only be to TW_TIME_MAX again). */
    ASSERT_OK(tw_start(tw, &t[6].node, 5));
    ASSERT_EQ_U64(tw_timer_deadline(&t[6].node), TW_TIME_MAX);
    ASSERT_OK(tw_start(tw, &t[7].node, 0));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 2);
    ASSERT_EQ_INT(t[6].fired, 1);
    ASSERT_EQ_INT(t[7].fired, 1);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------------ firing on time */

static void case_exact_fire(struct ctx *c)
{
    static const tw_time_t ivs[] = {
        1, 2, 3, 7, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097, 65536, 1u << 20,
        (1ull << 32) + 3, 1ull << 40, (1ull << 62) + 12345,
    };
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    for (size_t i = 0; i < sizeof ivs / sizeof ivs[0]; i++) {
        if (ivs[i] > tw_max_interval(tw))
            continue;
        tw_time_t now = tw_now(tw);
        ASSERT_OK(tw_start(tw, &a.node, ivs[i]));
        ASSERT_EQ_U64(tw_timer_deadline(&a.node), sat_add(now, ivs[i]));
        ASSERT_CHECK(tw);
        fire_one(c, tw, &a, now);
        RETURN_IF_FAILED();
        /* And with an offset of the clock that is not a multiple of anything. */
        if (tw_now(tw) < TW_TIME_MAX - 1000)
            ASSERT_EQ_INT(tw_advance(tw, tw_now(tw) + 1 + (tw_time_t)i * 37), 0);
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Tick by tick over 600 ticks, timers at many intervals fire at their tick. */
static void case_tick_by_tick(struct ctx *c)
{
    enum { N = 40 };
    CREATE(tw);
    struct ttimer t[N];
    tw_time_t now0 = tw_now(tw);
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        tw_time_t iv = (tw_time_t)((i * 37 + i * i) % 300);
        ASSERT_OK(tw_start(tw, &t[i].node, iv));
    }
    ASSERT_CHECK(tw);
    for (tw_time_t k = 0; k <= 600; k++) {
        tw_time_t now = sat_add(now0, k);
        ASSERT_GE_INT(tw_advance(tw, now), 0);
        ASSERT_CHECK(tw);
        for (int i = 0; i < N; i++) {
            tw_time_t dl = tw_timer_deadline(&t[i].node);
            if (dl > now)
                ASSERT_EQ_INT(t[i].fired, 0);
            else if (scheme_exact(c->scheme) || latest_fire(c->scheme, now0, dl) <= now)
                ASSERT_EQ_INT(t[i].fired, 1);
            if (t[i].fired && scheme_exact(c->scheme))
                ASSERT_EQ_U64(t[i].fired_at, dl);
        }
        if (now == TW_TIME_MAX)
            break;
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Uneven steps: a timer fires in the advance that passes its deadline, with
 * that advance's now. */
static void case_uneven_steps(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    static const tw_time_t steps[] = {3, 5, 1, 17, 64, 100, 1000, 4000, 9, 2};
    for (int round = 0; round < 20; round++) {
        tw_time_t now0 = tw_now(tw);
        tw_time_t iv = cap_interval(tw, (tw_time_t)(round * 53 + 7));
        ASSERT_OK(tw_start(tw, &a.node, iv));
        tw_time_t dl = tw_timer_deadline(&a.node);
        tw_time_t due_by = fire_by(c, now0, dl, now0);
        int before = a.fired;
        for (int k = 0; a.fired == before; k++) {
            tw_time_t prev = tw_now(tw);
            tw_time_t to = sat_add(prev, steps[(size_t)(k + round) % 10]);
            ASSERT_GE_INT(tw_advance(tw, to), 0);
            ASSERT_CHECK(tw);
            if (a.fired != before) {
                ASSERT_LE_U64(dl, to); /* never early */
                if (scheme_exact(c->scheme))
                    ASSERT_GT_U64(dl, prev); /* not late either */
                ASSERT_EQ_U64(a.fired_at, to);
            } else {
                ASSERT_LT_U64(to, due_by);
            }
            ASSERT_LT_INT(k, 10000);
        }
        ASSERT_EQ_INT(a.fired, before + 1);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* ----------------------------------------------------------- callbacks */

static void case_cb_stop_self(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    a.action = ACT_STOP_SELF;
    a.rc = 99;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 5));
    fire_one(c, tw, &a, now);
    RETURN_IF_FAILED();
    ASSERT_EQ_RC(a.rc, 0); /* it was no longer pending */
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Two timers due in the same advance each stop the other: whichever runs
 * first wins and the other never fires.  Once through the scheme (interval
 * 10), once through the due list (interval 0), once with two deadlines. */
static void case_cb_stop_other_same_advance(struct ctx *c)
{
    CREATE(tw);
    static const tw_time_t ivs[3][2] = {{10, 10}, {0, 0}, {3, 9}};
    for (int v = 0; v < 3; v++) {
        struct ttimer a, b;
        tt_init(&a, 1);
        tt_init(&b, 2);
        a.action = b.action = ACT_STOP_OTHER;
        a.other = &b;
        b.other = &a;
        a.rc = b.rc = 99;
        tw_time_t now = tw_now(tw);
        ASSERT_OK(tw_start(tw, &a.node, ivs[v][0]));
        ASSERT_OK(tw_start(tw, &b.node, ivs[v][1]));
        tw_time_t to = max_u64(fire_by(c, now, tw_timer_deadline(&a.node), now),
                               fire_by(c, now, tw_timer_deadline(&b.node), now));
        if (ivs[v][0] != ivs[v][1] && tw_timer_deadline(&a.node) < TW_TIME_MAX)
            ASSERT_EQ_INT(tw_advance(tw, tw_timer_deadline(&a.node) - 1), 0);
        ASSERT_EQ_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(a.fired + b.fired, 1);
        struct ttimer *w = a.fired ? &a : &b, *l = a.fired ? &b : &a;
        ASSERT_EQ_RC(w->rc, 1); /* the loser was pending */
        ASSERT_EQ_INT(l->fired, 0);
        ASSERT_EQ_INT(tw_timer_pending(&l->node), 0);
        ASSERT_EQ_U64(tw_count(tw), 0);
        /* and it stays stopped */
        ASSERT_EQ_INT(tw_advance(tw, sat_add(to, 100000)), 0);
        ASSERT_EQ_INT(l->fired, 0);
    }
    ASSERT_OK(tw_destroy(tw));
}

static void case_cb_restart_self(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    a.action = ACT_RESTART_SELF;
    a.arg = 10;
    a.budget = 3;
    tw_time_t armed = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 5));
    for (int k = 0; k < 4; k++) {
        fire_one(c, tw, &a, armed);
        RETURN_IF_FAILED();
        armed = tw_now(tw);
        ASSERT_EQ_INT(a.fired, k + 1);
        if (k < 3) {
            ASSERT_EQ_RC(a.rc, 0);
            ASSERT_EQ_INT(tw_timer_pending(&a.node), 1);
            ASSERT_EQ_U64(tw_timer_deadline(&a.node), sat_add(armed, 10));
            ASSERT_EQ_U64(tw_count(tw), 1);
        } else {
            ASSERT_EQ_INT(tw_timer_pending(&a.node), 0);
            ASSERT_EQ_U64(tw_count(tw), 0);
        }
    }
    ASSERT_OK(tw_destroy(tw));
}

/* Two timers due in the same advance: the first to run re-arms the other,
 * which then does not fire in this advance but at its new deadline. */
static void case_cb_restart_other(struct ctx *c)
{
    static const tw_time_t rearm[] = {7, 0};
    CREATE(tw);
    for (int v = 0; v < 2; v++) {
        struct ttimer a, b;
        tt_init(&a, 1);
        tt_init(&b, 2);
        a.action = b.action = ACT_RESTART_OTHER;
        a.other = &b;
        b.other = &a;
        a.arg = b.arg = rearm[v];
        a.budget = b.budget = 1;
        tw_time_t now = tw_now(tw);
        ASSERT_OK(tw_start(tw, &a.node, 10));
        ASSERT_OK(tw_start(tw, &b.node, 10));
        tw_time_t to = fire_by(c, now, tw_timer_deadline(&a.node), now);
        ASSERT_EQ_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(a.fired + b.fired, 1);
        struct ttimer *w = a.fired ? &a : &b, *l = a.fired ? &b : &a;
        ASSERT_EQ_RC(w->rc, 0);
        ASSERT_EQ_INT(tw_timer_pending(&l->node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&l->node), sat_add(to, rearm[v]));
        ASSERT_EQ_U64(tw_count(tw), 1);
        fire_one(c, tw, l, to);
        RETURN_IF_FAILED();
        ASSERT_EQ_INT(l->fired, 1);
        ASSERT_EQ_INT(w->fired, 1);
        /* l's callback re-armed w in turn (the same rule, one level down) */
        ASSERT_EQ_RC(l->rc, 0);
        ASSERT_EQ_INT(tw_timer_pending(&w->node), 1);
        ASSERT_EQ_INT(tw_stop(tw, &w->node), 1);
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_CHECK(tw);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* A callback starts an idle timer with interval 0: it fires on the next
 * advance, not in this one. */
static void case_cb_start_new_zero(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    a.action = ACT_RESTART_OTHER;
    a.other = &b;
    a.arg = 0;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 1));
    tw_time_t to = fire_by(c, now, tw_timer_deadline(&a.node), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(a.fired, 1);
    ASSERT_EQ_INT(b.fired, 0);
    ASSERT_EQ_INT(tw_timer_pending(&b.node), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&b.node), to);
    ASSERT_EQ_INT(tw_advance(tw, to), 1);
    ASSERT_EQ_INT(b.fired, 1);
    ASSERT_EQ_U64(b.fired_at, to);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* Callbacks free their own (malloc'd) nodes; run under ASan this catches
 * any touch of a node after its callback. */
static void case_cb_free_self(struct ctx *c)
{
    enum { N = 12 };
    CREATE(tw);
    struct ttimer keep[2];
    tt_init(&keep[0], 100);
    tt_init(&keep[1], 101);
    tw_time_t now = tw_now(tw);
    test_log_reset();
    for (int i = 0; i < N; i++) {
        struct ttimer *x = malloc(sizeof *x);
        ASSERT_NOT_NULL(x);
        tt_init(x, i);
        x->action = ACT_FREE_SELF;
        /* same deadline, next deadline, and due at once */
        ASSERT_OK(tw_start(tw, &x->node, (tw_time_t)(i % 3)));
        if (i == N / 2)
            ASSERT_OK(tw_start(tw, &keep[0].node, 1));
    }
    ASSERT_OK(tw_start(tw, &keep[1].node, 2));
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), N + 2);
    tw_time_t to = fire_by(c, now, sat_add(now, 2), now);
    ASSERT_EQ_INT(tw_advance(tw, to), N + 2);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(test_log.n, N + 2);
    int seen[N] = {0};
    for (int i = 0; i < test_log.n; i++)
        if (test_log.ids[i] < N)
            seen[test_log.ids[i]]++;
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(seen[i], 1);
    ASSERT_EQ_INT(keep[0].fired, 1);
    ASSERT_EQ_INT(keep[1].fired, 1);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* A callback that re-arms itself with interval 0 (or a past deadline) fires
 * once per advance, never loops inside one. */
static void case_cb_zero_rearm(struct ctx *c)
{
    CREATE(tw);
    for (int v = 0; v < 3; v++) {
        struct ttimer a;
        tt_init(&a, 1);
        a.budget = 5;
        if (v == 0) {
            a.action = ACT_RESTART_SELF;
            a.arg = 0;
        } else {
            a.action = ACT_RESTART_SELF_AT;
            a.arg = v == 1 ? sat_sub(tw_now(tw), 3) : 0;
        }
        tw_time_t now = tw_now(tw);
        /* first through the scheme when possible, then through the due list */
        ASSERT_OK(tw_start(tw, &a.node, 4));
        tw_time_t to = fire_by(c, now, tw_timer_deadline(&a.node), now);
        ASSERT_EQ_INT(tw_advance(tw, to), 1);
        ASSERT_CHECK(tw);
        for (int k = 0; k < 5; k++) {
            ASSERT_EQ_RC(a.rc, 0);
            ASSERT_EQ_INT(tw_timer_pending(&a.node), 1);
            ASSERT_EQ_U64(tw_count(tw), 1);
            ASSERT_EQ_INT(tw_advance(tw, to), 1); /* the same now: once */
            ASSERT_CHECK(tw);
            ASSERT_EQ_INT(a.fired, k + 2);
        }
        ASSERT_EQ_INT(tw_timer_pending(&a.node), 0);
        ASSERT_EQ_INT(tw_advance(tw, to), 0);
        ASSERT_EQ_INT(a.fired, 6);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* tw_advance, tw_collect and tw_destroy on the facility whose callback is
 * running are refused with TW_EBUSY and change nothing; another facility
 * can be advanced. */
static void case_cb_reentrant_busy(struct ctx *c)
{
    CREATE(tw);
    struct tw *tw2 = test_create(c);
    ASSERT_NOT_NULL(tw2);
    struct ttimer a, b, other, x2;
    tt_init(&a, 1);
    tt_init(&b, 2);
    tt_init(&other, 3);
    tt_init(&x2, 4);
    a.action = ACT_REENTER;
    a.tw2 = tw2;
    a.tw2_now = sat_add(tw_now(tw2), 5);
    a.rc_advance = a.rc_advance_later = a.rc_collect = a.rc_destroy = a.rc_tw2 = 99;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 2));
    ASSERT_OK(tw_start(tw, &b.node, 2));
    ASSERT_OK(tw_start(tw, &other.node, cap_interval(tw, 1000)));
    ASSERT_OK(tw_start(tw2, &x2.node, 0));
    tw_time_t to = fire_by(c, now, tw_timer_deadline(&a.node), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 2);
    ASSERT_CHECK(tw);
    ASSERT_CHECK(tw2);
    ASSERT_EQ_INT(a.fired, 1);
    ASSERT_EQ_INT(b.fired, 1);
    ASSERT_EQ_RC(a.rc_advance, TW_EBUSY);
    ASSERT_EQ_RC(a.rc_advance_later, TW_EBUSY);
    ASSERT_EQ_RC(a.rc_collect, TW_EBUSY);
    ASSERT_EQ_RC(a.rc_destroy, TW_EBUSY);
    ASSERT_EQ_INT(a.rc_tw2, 1);
    ASSERT_EQ_INT(x2.fired, 1);
    ASSERT_EQ_U64(tw_now(tw), to);
    ASSERT_EQ_U64(tw_now(tw2), a.tw2_now);
    /* the facility still works */
    ASSERT_EQ_INT(other.fired, 0);
    ASSERT_EQ_INT(tw_timer_pending(&other.node), 1);
    ASSERT_EQ_U64(tw_count(tw), 1);
    fire_one(c, tw, &other, now);
    RETURN_IF_FAILED();
    ASSERT_OK(tw_destroy(tw));
    ASSERT_OK(tw_destroy(tw2));
}

/* Inside a callback: the facility's time is the advance's now, the timer is
 * idle with the deadline it fired for, tw_count() still counts the due
 * timers that have not run yet, which are still pending. */
static void case_cb_context(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    a.action = b.action = ACT_INSPECT;
    a.other = &b;
    b.other = &a;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 3));
    ASSERT_OK(tw_start(tw, &b.node, 3));
    tw_time_t dl = tw_timer_deadline(&a.node);
    tw_time_t to = sat_add(fire_by(c, now, dl, now), 2);
    ASSERT_EQ_INT(tw_advance(tw, to), 2);
    ASSERT_CHECK(tw);
    struct ttimer *first = test_log_first(&a, &b);
    ASSERT_NOT_NULL(first);
    struct ttimer *second = first == &a ? &b : &a;
    ASSERT_EQ_U64(a.fired_at, to);
    ASSERT_EQ_U64(b.fired_at, to);
    ASSERT_EQ_INT(a.pending_in_cb, 0);
    ASSERT_EQ_INT(b.pending_in_cb, 0);
    ASSERT_EQ_U64(a.deadline_in_cb, dl);
    ASSERT_EQ_U64(b.deadline_in_cb, dl);
    ASSERT_EQ_U64(first->count_in_cb, 1);
    ASSERT_EQ_U64(second->count_in_cb, 0);
    ASSERT_EQ_INT(first->other_pending_in_cb, 1);
    ASSERT_EQ_INT(second->other_pending_in_cb, 0);
    ASSERT_OK(tw_destroy(tw));
}

/* tw_check() from inside a callback, while other due timers wait their
 * turn, finds nothing wrong: the facility is consistent at every point a
 * caller can observe it. */
static void case_cb_check_inside(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    a.action = b.action = ACT_INSPECT;
    a.other = &b;
    b.other = &a;
    a.rc_check = b.rc_check = 99;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 3));
    ASSERT_OK(tw_start(tw, &b.node, 3));
    tw_time_t to = fire_by(c, now, tw_timer_deadline(&a.node), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 2);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw)); /* first: the checks below may return */
    struct ttimer *first = test_log_first(&a, &b);
    ASSERT_NOT_NULL(first);
    if (first->rc_check != 0)
        test_fail(__FILE__, __LINE__,
                  "tw_check() from the first callback of an advance with two due timers "
                  "returned %d (%s): %s",
                  first->rc_check, tw_err_name(first->rc_check), first->check_msg);
    RETURN_IF_FAILED();
    struct ttimer *second = first == &a ? &b : &a;
    ASSERT_EQ_RC(second->rc_check, 0);
}

/* tw_next_expiry() from inside a callback sees the due timers that have not
 * run yet: they are pending (tw_timer_pending() says so, tw_count() counts
 * them) and due, so it must give their deadline. */
static void case_cb_next_expiry_inside(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    a.action = b.action = ACT_INSPECT;
    a.other = &b;
    b.other = &a;
    a.rc_next = b.rc_next = 99;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 3));
    ASSERT_OK(tw_start(tw, &b.node, 3));
    tw_time_t dl = tw_timer_deadline(&a.node);
    tw_time_t to = fire_by(c, now, dl, now);
    ASSERT_EQ_INT(tw_advance(tw, to), 2);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw)); /* first: the checks below may return */
    struct ttimer *first = test_log_first(&a, &b);
    ASSERT_NOT_NULL(first);
    struct ttimer *second = first == &a ? &b : &a;
    ASSERT_EQ_INT(first->other_pending_in_cb, 1);
    ASSERT_EQ_U64(first->count_in_cb, 1);
    ASSERT_EQ_INT(first->rc_next, 1);
    ASSERT_EQ_U64(first->next, dl); /* a due timer gives its deadline */
    ASSERT_EQ_INT(second->rc_next, 0);
}

/* --------------------------------------------------------- time and order */

static void case_backwards(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    ASSERT_OK(tw_start(tw, &a.node, cap_interval(tw, 100)));
    ASSERT_EQ_INT(tw_advance(tw, sat_add(c->start, 10)), 0);
    ASSERT_OK(tw_start(tw, &b.node, 0));
    ASSERT_CHECK(tw);
    tw_time_t now = tw_now(tw);
    tw_time_t da = tw_timer_deadline(&a.node), ne0 = 0, ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne0), 1);
    static const tw_time_t back[] = {1, 2, 10, 1000};
    for (size_t i = 0; i < 4; i++) {
        if (now < back[i])
            continue;
        ASSERT_EQ_RC(tw_advance(tw, now - back[i]), TW_ETIME);
        ASSERT_EQ_RC(tw_collect(tw, now - back[i]), TW_ETIME);
    }
    if (now > 0) {
        ASSERT_EQ_RC(tw_advance(tw, 0), TW_ETIME);
    }
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_now(tw), now);
    ASSERT_EQ_U64(tw_count(tw), 2);
    ASSERT_EQ_INT(a.fired + b.fired, 0);
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 1);
    ASSERT_EQ_INT(tw_timer_pending(&b.node), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), da);
    ASSERT_EQ_U64(tw_timer_deadline(&b.node), now);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, ne0);
    ASSERT_NULL(tw_get_expired(tw));
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_EQ_INT(b.fired, 1);
    ASSERT_OK(tw_destroy(tw));
}

/* Timers started when already due fire before every other timer of the
 * advance that runs them, in start order, on every scheme (tw_advance's
 * contract), also when the scheme has timers of many slots, lanes or TTL
 * queues due in the same advance; tw_collect queues them in that order. */
static void case_due_started_first(struct ctx *c)
{
    enum { S = 24, D = 6 };
    CREATE(tw);
    struct ttimer sch[S], due[D];
    for (int i = 0; i < S; i++)
        tt_init(&sch[i], 100 + i);
    for (int i = 0; i < D; i++)
        tt_init(&due[i], i);
    for (int form = 0; form < 2; form++) {
        tw_time_t now = tw_now(tw);
        if (sat_add(now, 8) != now + 8)
            break; /* the end of time: every start is due (case saturation) */
        test_log_reset();
        /* scheme timers of distinct intervals 1..4 (distinct TTLs, several
         * slots and lanes), due-started ones between them, deadlines from
         * now back */
        int d = 0;
        for (int i = 0; i < S; i++) {
            ASSERT_OK(tw_start(tw, &sch[i].node, 1 + (tw_time_t)(i % 4)));
            if (i % 4 == 3 && d < D) {
                ASSERT_OK(tw_start_at(tw, &due[d].node, sat_sub(now, (tw_time_t)(d % 3))));
                d++;
            }
        }
        ASSERT_EQ_INT(d, D);
        ASSERT_CHECK(tw);
        int got[S + D], ng = 0;
        if (form == 0) {
            int64_t n = tw_advance(tw, now + 4);
            ASSERT_LE_INT(D, (int)n);
            for (int i = 0; i < test_log.n; i++)
                got[ng++] = test_log.ids[i];
        } else {
            int64_t n = tw_collect(tw, now + 4);
            ASSERT_LE_INT(D, (int)n);
            struct tw_timer *x;
            while ((x = tw_get_expired(tw)) != NULL) {
                ASSERT_LT_INT(ng, S + D);
                got[ng++] = tt_of(x)->id;
            }
            ASSERT_EQ_INT(ng, (int)n);
        }
        for (int i = 0; i < D; i++) {
            if (got[i] != i) {
                test_fail(__FILE__, __LINE__,
                          "form %d: callback %d was timer %d, expected the due-started timer %d",
                          form, i, got[i], i);
                return;
            }
        }
        for (int i = D; i < ng; i++)
            ASSERT_LE_INT(100, got[i]);
        ASSERT_CHECK(tw);
        for (int i = 0; i < S; i++) /* a late scheme (coarse) may keep some */
            (void)tw_stop(tw, &sch[i].node);
        ASSERT_EQ_U64(tw_count(tw), 0);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* Equal deadlines fire in start order (re-arming moves to the back) for
 * the schemes that document it (scheme_fifo); ordered, heap and wheel also
 * fire an earlier deadline of the same advance first. */
static void case_fifo_equal_deadlines(struct ctx *c)
{
    enum { N = 16 };
    if (!scheme_fifo(c->scheme))
        return;
    CREATE(tw);
    struct ttimer t[N], early, late;
    static const int perm[N] = {5, 12, 0, 9, 3, 15, 7, 1, 10, 14, 2, 8, 13, 4, 11, 6};
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    tt_init(&early, 100);
    tt_init(&late, 101);

    for (int form = 0; form < 3; form++) {
        /* form 0: tw_advance; 1: tw_collect + tw_get_expired; 2: late
         * timers (deadline in the past) through the due list. */
        tw_time_t now = tw_now(tw);
        tw_time_t dl = form == 2 ? sat_sub(now, 5) : sat_add(now, 20);
        int expect[N + 1], ne = 0;
        test_log_reset();
        for (int i = 0; i < N; i++) {
            struct ttimer *x = &t[perm[i]];
            if (i % 2 || form == 2)
                ASSERT_OK(tw_start_at(tw, &x->node, dl));
            else
                ASSERT_OK(tw_start(tw, &x->node, dl - now));
            if (i == 4 && form != 2)
                ASSERT_OK(tw_start_at(tw, &early.node, dl - 1));
            if (i == 9 && form != 2)
                ASSERT_OK(tw_start_at(tw, &late.node, dl + 1));
        }
        /* re-arm the fourth to the same deadline: it goes to the back */
        ASSERT_OK(tw_start_at(tw, &t[perm[3]].node, dl));
        ASSERT_CHECK(tw);
        if (form != 2)
            expect[ne++] = early.id;
        for (int i = 0; i < N; i++)
            if (i != 3)
                expect[ne++] = perm[i];
        expect[ne++] = perm[3];

        int got[N + 1], ng = 0;
        if (form == 1) {
            int64_t n = tw_collect(tw, max_u64(dl, now));
            ASSERT_EQ_INT(n, ne);
            struct tw_timer *x;
            while ((x = tw_get_expired(tw)) != NULL) {
                ASSERT_LT_INT(ng, ne);
                got[ng++] = tt_of(x)->id;
            }
        } else {
            ASSERT_EQ_INT(tw_advance(tw, max_u64(dl, now)), ne);
            ASSERT_EQ_INT(test_log.n, ne);
            for (int i = 0; i < test_log.n; i++)
                got[ng++] = test_log.ids[i];
        }
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(ng, ne);
        if (scheme_fifo(c->scheme) == 1 && form != 2) {
            /* no order across deadlines: compare the equal ones only */
            int k = 0;
            for (int i = 0; i < ng; i++)
                if (got[i] != early.id)
                    got[k++] = got[i];
            ASSERT_EQ_INT(k, ne - 1);
            for (int i = 0; i < k; i++)
                expect[i] = expect[i + 1]; /* expect[0] is early */
            ne = ng = k;
        }
        for (int i = 0; i < ne; i++) {
            if (got[i] != expect[i]) {
                test_fail(__FILE__, __LINE__,
                          "form %d: position %d fired timer %d, expected %d (FIFO order)",
                          form, i, got[i], expect[i]);
                return;
            }
        }
        if (form != 2) {
            ASSERT_EQ_U64(tw_count(tw), 1); /* `late` */
            ASSERT_EQ_INT(tw_stop(tw, &late.node), 1);
        }
        ASSERT_EQ_U64(tw_count(tw), 0);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------------------- stopping */

static void case_stop_idle_and_twice(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 0); /* never started */
    ASSERT_OK(tw_start(tw, &a.node, 10));
    ASSERT_EQ_U64(tw_count(tw), 1);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 0); /* twice */
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);

    /* a due timer stopped before the advance does not fire */
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 1);
    ASSERT_EQ_INT(tw_advance(tw, tw_now(tw)), 0);
    ASSERT_EQ_INT(a.fired, 0);

    /* a stopped scheme timer does not fire either */
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 5));
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 1);
    ASSERT_EQ_INT(tw_advance(tw, sat_add(fire_by(c, now, sat_add(now, 5), now), 10)), 0);
    ASSERT_EQ_INT(a.fired, 0);
    ASSERT_CHECK(tw);

    /* after it fired, stopping is a no-op */
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_advance(tw, tw_now(tw)), 1);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 0);
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 0);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Re-arming a pending timer moves its deadline; it fires once, at the new
 * deadline only. */
static void case_rearm_pending(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    /* later to earlier */
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, cap_interval(tw, 1000)));
    ASSERT_OK(tw_start(tw, &a.node, 10));
    ASSERT_EQ_U64(tw_count(tw), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), sat_add(now, 10));
    ASSERT_CHECK(tw);
    fire_one(c, tw, &a, now);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(tw_advance(tw, sat_add(tw_now(tw), 5000)), 0);
    ASSERT_EQ_INT(a.fired, 1);

    /* earlier to later: nothing at the old deadline */
    now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 10));
    ASSERT_OK(tw_start_at(tw, &a.node, sat_add(now, 300)));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_advance(tw, sat_add(now, 10)), 0);
    ASSERT_EQ_INT(a.fired, 1);
    fire_one(c, tw, &a, now);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(a.fired, 2);

    /* due (interval 0) to the future, and back to due */
    now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_OK(tw_start(tw, &a.node, 50));
    ASSERT_EQ_INT(tw_advance(tw, now), now == TW_TIME_MAX ? 1 : 0);
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_U64(tw_count(tw), 1);
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* The paper's Fig. 9 shape: one timer alone in a far slot, restarted again
 * and again, in each of the three ways (a stop and a start, tw_start() on
 * the pending timer, tw_start_at()), to deadlines that go up and down, so
 * that the slots it leaves lie before and after the one it is in (the
 * hierarchical wheels leave an emptied lane's bits set: docs/design.md,
 * "Bits left set").  A near timer keeps next_expiry honest first; then
 * alone, the far timer must be what next_expiry names, not a slot it left,
 * and fire at its deadline, not before. */
static void case_lone_far_restart(struct ctx *c)
{
    CREATE(tw);
    struct ttimer near, far;
    tt_init(&near, 1);
    tt_init(&far, 2);
    tw_time_t now = tw_now(tw), ne = 0;
    tw_time_t span = cap_interval(tw, (tw_time_t)1 << 22);
    ASSERT_OK(tw_start(tw, &near.node, 5));
    ASSERT_OK(tw_start(tw, &far.node, span));
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < 96; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        tw_time_t iv = span / 2 + 1 + x % (span / 2); /* in (span/2, span] */
        switch (k % 3) {
        case 0:
            ASSERT_EQ_INT(tw_stop(tw, &far.node), 1);
            ASSERT_OK(tw_start(tw, &far.node, iv));
            break;
        case 1:
            ASSERT_OK(tw_start(tw, &far.node, iv)); /* pending: moved */
            break;
        default:
            ASSERT_OK(tw_start_at(tw, &far.node, sat_add(now, iv)));
            break;
        }
        ASSERT_CHECK(tw);
        ASSERT_EQ_U64(tw_count(tw), 2);
        ASSERT_EQ_U64(tw_timer_deadline(&far.node), sat_add(now, iv));
        ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
        if (scheme_exact(c->scheme))
            ASSERT_EQ_U64(ne, sat_add(now, 5));
        else
            ASSERT_LE_U64(ne, latest_fire(c->scheme, now, sat_add(now, 5)));
        RETURN_IF_FAILED();
    }
    ASSERT_EQ_INT(tw_stop(tw, &near.node), 1);
    tw_time_t dl = tw_timer_deadline(&far.node);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_U64(ne, dl);
    } else {
        ASSERT_GE_U64(ne, dl);
        ASSERT_LE_U64(ne, latest_fire(c->scheme, now, dl));
    }
    /* Over the slots it left, in a few jumps: nothing fires. */
    for (int j = 1; j <= 4 && dl > now && dl - now > 8; j++) {
        ASSERT_EQ_INT(tw_advance(tw, now + (dl - now) / 8 * (tw_time_t)j), 0);
        ASSERT_CHECK(tw);
    }
    ASSERT_EQ_INT(far.fired, 0);
    fire_one(c, tw, &far, now);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(near.fired, 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* Timeouts pushed back a little, the common restart: pending timers at
 * every level of the default wheels, each restarted in one call (tw_start()
 * on it) to deadlines a few ticks to a few slots of its level away from
 * the one it has, later and earlier, so that most land in the slot they
 * are in and some cross into the next or the one before (a move that kept
 * such a node in place was tried: docs/design.md, "Restart in place").
 * After each restart
 * tw_check (which for the exact wheel verifies that every node sits in the
 * slot a start now would give it), the count, the deadline and an exact
 * next_expiry; then time runs in jumps and every timer fires at its last
 * deadline (by latest_fire() on the coarse wheel), once. */
static void case_restart_in_slot(struct ctx *c)
{
    enum { N = 10 };
    CREATE(tw);
    struct ttimer t[N];
    tw_time_t base[N], armed[N];
    tw_time_t now = tw_now(tw), ne = 0;
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        /* 7, then about 2^(4i+4): levels 0 to 6 of the 6-bit wheels */
        base[i] = cap_interval(tw, i == 0 ? 7 : ((tw_time_t)1 << (4 * i + 4)) + 3 * (tw_time_t)i);
        ASSERT_OK(tw_start(tw, &t[i].node, base[i]));
        armed[i] = now;
    }
    ASSERT_CHECK(tw);
    uint64_t x = 0x2545f4914f6cdd1du;
    for (int k = 0; k < 40 * N; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int i = k % N;
        /* a step of up to 2^(j) ticks, j at most the timer's level's digit
         * and two bits beyond it, down or up */
        unsigned top = (unsigned)(64 - __builtin_clzll(base[i] | 1));
        tw_time_t step = (x >> 8) & (((tw_time_t)1 << (x % (top + 1))) - 1);
        tw_time_t iv = tw_timer_deadline(&t[i].node) - now;
        iv = (x & 128) ? iv + step : (iv > step + 1 ? iv - step : 1);
        iv = cap_interval(tw, iv);
        ASSERT_OK(tw_start(tw, &t[i].node, iv)); /* pending: moved */
        armed[i] = now;
        ASSERT_CHECK(tw);
        ASSERT_EQ_U64(tw_count(tw), N);
        ASSERT_EQ_U64(tw_timer_deadline(&t[i].node), sat_add(now, iv));
        tw_time_t mn = TW_TIME_MAX, ml = TW_TIME_MAX;
        for (int j = 0; j < N; j++) {
            mn = min_u64(mn, tw_timer_deadline(&t[j].node));
            ml = min_u64(ml, latest_fire(c->scheme, armed[j], tw_timer_deadline(&t[j].node)));
        }
        ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
        if (scheme_exact(c->scheme)) {
            ASSERT_EQ_U64(ne, mn);
        } else {
            ASSERT_GE_U64(ne, mn);
            ASSERT_LE_U64(ne, ml);
        }
        RETURN_IF_FAILED();
        /* now and then time moves, to the tick before the earliest deadline */
        if (k % 37 == 36 && mn > now + 1) {
            ASSERT_EQ_INT(tw_advance(tw, mn - 1), 0);
            ASSERT_CHECK(tw);
            now = tw_now(tw);
        }
    }
    /* Every timer in deadline order: it fires at its last deadline. */
    for (int left = N; left > 0; left--) {
        int e = -1;
        for (int j = 0; j < N; j++)
            if (tw_timer_pending(&t[j].node) &&
                (e < 0 || tw_timer_deadline(&t[j].node) < tw_timer_deadline(&t[e].node)))
                e = j;
        if (e < 0)
            break; /* fired with an earlier one */
        fire_one(c, tw, &t[e], armed[e]);
        RETURN_IF_FAILED();
    }
    for (int j = 0; j < N; j++) {
        ASSERT_EQ_INT(t[j].fired, 1);
        ASSERT_GE_U64(t[j].fired_at, tw_timer_deadline(&t[j].node));
        if (scheme_exact(c->scheme))
            ASSERT_EQ_U64(t[j].fired_at, max_u64(tw_timer_deadline(&t[j].node), now));
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------------------- pull API */

static void case_pull(struct ctx *c)
{
    enum { N = 6 };
    CREATE(tw);
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    tw_time_t now = tw_now(tw);
    static const tw_time_t ivs[N] = {0, 5, 5, 10, 100000, 1ull << 40};
    for (int i = 0; i < N; i++)
        ASSERT_OK(tw_start(tw, &t[i].node, cap_interval(tw, ivs[i])));
    ASSERT_CHECK(tw);
    tw_time_t to = fire_by(c, now, tw_timer_deadline(&t[3].node), now);
    int due = 0;
    for (int i = 0; i < N; i++)
        due += tw_timer_deadline(&t[i].node) <= to;
    ASSERT_GE_INT(due, 4);

    ASSERT_EQ_INT(tw_collect(tw, to), due);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_now(tw), to);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, 0); /* no callbacks */
    ASSERT_EQ_U64(tw_count(tw), N);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(tw_timer_pending(&t[i].node), 1);
    tw_time_t ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, now); /* t[0], queued, due at now */

    /* a second collect at the same now queues nothing new */
    ASSERT_EQ_INT(tw_collect(tw, to), 0);
    /* an advance does not fire what is queued */
    ASSERT_EQ_INT(tw_advance(tw, to), 0);

    /* stop one in the queue: 1, and it is not handed out */
    ASSERT_EQ_INT(tw_stop(tw, &t[2].node), 1);
    ASSERT_EQ_INT(tw_timer_pending(&t[2].node), 0);
    ASSERT_EQ_U64(tw_count(tw), N - 1);
    ASSERT_CHECK(tw);
    /* re-arm one in the queue: it leaves the queue */
    ASSERT_OK(tw_start(tw, &t[3].node, 7));
    ASSERT_CHECK(tw);

    int got[N] = {0};
    struct tw_timer *x;
    int n = 0;
    while ((x = tw_get_expired(tw)) != NULL) {
        struct ttimer *y = tt_of(x);
        ASSERT_TRUE(y >= t && y < t + N);
        ASSERT_EQ_INT(tw_timer_pending(x), 0);
        ASSERT_LE_U64(tw_timer_deadline(x), to);
        got[y->id]++;
        n++;
        ASSERT_CHECK(tw);
        ASSERT_LT_INT(n, N + 1);
    }
    ASSERT_EQ_INT(n, due - 2);
    ASSERT_EQ_INT(got[0], 1);
    ASSERT_EQ_INT(got[1], 1);
    ASSERT_EQ_INT(got[2], 0);
    ASSERT_EQ_INT(got[3], 0);
    ASSERT_NULL(tw_get_expired(tw));
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, 0);
    ASSERT_EQ_U64(tw_count(tw), (uint64_t)(N - due + 1));
    ASSERT_EQ_INT(tw_timer_pending(&t[3].node), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&t[3].node), sat_add(to, 7));

    /* handed-out timers are idle and can be restarted */
    ASSERT_OK(tw_start(tw, &t[0].node, 0));
    ASSERT_EQ_INT(tw_advance(tw, to), 1);
    ASSERT_EQ_INT(t[0].fired, 1);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* A callback of an advance stops a timer waiting in the expired queue. */
static void case_pull_stop_from_callback(struct ctx *c)
{
    CREATE(tw);
    struct ttimer q, a;
    tt_init(&q, 1);
    tt_init(&a, 2);
    ASSERT_OK(tw_start(tw, &q.node, 0));
    ASSERT_EQ_INT(tw_collect(tw, tw_now(tw)), 1);
    a.action = ACT_STOP_OTHER;
    a.other = &q;
    a.rc = 99;
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_advance(tw, tw_now(tw)), 1);
    ASSERT_EQ_RC(a.rc, 1);
    ASSERT_CHECK(tw);
    ASSERT_NULL(tw_get_expired(tw));
    ASSERT_EQ_INT(q.fired, 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Successive collects queue in order: what an earlier tw_collect() queued
 * comes out of tw_get_expired() before what a later one queued. */
static void case_pull_order(struct ctx *c)
{
    enum { N = 4 };
    CREATE(tw);
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &t[0].node, 0));
    ASSERT_OK(tw_start(tw, &t[1].node, 2));
    ASSERT_OK(tw_start(tw, &t[2].node, 40));
    ASSERT_OK(tw_start(tw, &t[3].node, 0));
    ASSERT_EQ_INT(tw_collect(tw, now), 2); /* t0 and t3, the due ones */
    ASSERT_EQ_INT(tw_collect(tw, fire_by(c, now, sat_add(now, 2), now)), 1);
    ASSERT_EQ_INT(tw_collect(tw, fire_by(c, now, sat_add(now, 40), now)), 1);
    ASSERT_CHECK(tw);
    struct tw_timer *x;
    int got[N], n = 0;
    while ((x = tw_get_expired(tw)) != NULL && n < N)
        got[n++] = tt_of(x)->id;
    ASSERT_EQ_INT(n, N);
    ASSERT_TRUE((got[0] == 0 && got[1] == 3) || (got[0] == 3 && got[1] == 0));
    ASSERT_EQ_INT(got[2], 1);
    ASSERT_EQ_INT(got[3], 2);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* tw_timer_set_callback() on an idle and on a pending node; a node with no
 * callback is drained through the pull API. */
static void case_set_callback(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a;
    tt_init(&a, 1);
    tw_timer_init(&a.node, NULL);
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_collect(tw, now), 1);
    ASSERT_EQ_PTR(tw_get_expired(tw), &a.node);
    ASSERT_EQ_INT(a.fired, 0);
    /* set while idle */
    tw_timer_set_callback(&a.node, tt_cb);
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_EQ_INT(a.fired, 1);
    /* set while pending: to NULL and back again */
    ASSERT_OK(tw_start(tw, &a.node, 5));
    tw_timer_set_callback(&a.node, NULL);
    ASSERT_EQ_INT(tw_timer_pending(&a.node), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&a.node), sat_add(now, 5));
    tw_timer_set_callback(&a.node, tt_cb);
    ASSERT_CHECK(tw);
    fire_one(c, tw, &a, now);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(a.fired, 2);
    ASSERT_OK(tw_destroy(tw));
}

/* -------------------------------------------------------------- destroy */

static void case_destroy_pending(struct ctx *c)
{
    enum { N = 6 };
    struct tw *a = test_create(c);
    ASSERT_NOT_NULL(a);
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    tw_time_t now = tw_now(a);
    ASSERT_OK(tw_start(a, &t[0].node, 1));              /* queued below */
    ASSERT_EQ_INT(tw_collect(a, fire_by(c, now, sat_add(now, 1), now)), 1);
    ASSERT_OK(tw_start(a, &t[1].node, 0));              /* due */
    ASSERT_OK(tw_start(a, &t[2].node, 50));             /* in the scheme */
    ASSERT_OK(tw_start(a, &t[3].node, cap_interval(a, 1ull << 40)));
    ASSERT_OK(tw_start(a, &t[4].node, cap_interval(a, TW_TIME_MAX)));
    ASSERT_CHECK(a);
    ASSERT_EQ_U64(tw_count(a), 5);
    ASSERT_OK(tw_destroy(a));
    for (int i = 0; i < N; i++) {
        ASSERT_EQ_INT(tw_timer_pending(&t[i].node), 0);
        ASSERT_EQ_INT(t[i].fired, 0);
    }

    /* reusable on another facility, without re-initialising */
    struct tw *b = test_create(c);
    ASSERT_NOT_NULL(b);
    now = tw_now(b);
    for (int i = 0; i < N; i++)
        ASSERT_OK(tw_start(b, &t[i].node, 3));
    ASSERT_CHECK(b);
    ASSERT_EQ_U64(tw_count(b), N);
    ASSERT_EQ_INT(tw_advance(b, fire_by(c, now, sat_add(now, 3), now)), N);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, 1);
    ASSERT_CHECK(b);
    /* and pending on a facility of another scheme too */
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if (s == (int)c->scheme || !tw_scheme_available((enum tw_scheme)s))
            continue;
        struct tw_config cfg;
        struct tw *o = NULL;
        ASSERT_OK(tw_config_init(&cfg, (enum tw_scheme)s));
        ASSERT_OK(tw_create(&o, &cfg));
        ASSERT_OK(tw_start(o, &t[0].node, 2));
        ASSERT_OK(tw_start(b, &t[1].node, 2));
        ASSERT_EQ_RC(tw_start(b, &t[0].node, 2), TW_EOWNER);
        ASSERT_OK(tw_destroy(o));
        ASSERT_EQ_INT(tw_timer_pending(&t[0].node), 0);
        ASSERT_OK(tw_start(b, &t[0].node, 2));
        ASSERT_CHECK(b);
        ASSERT_EQ_INT(tw_stop(b, &t[0].node), 1);
        ASSERT_EQ_INT(tw_stop(b, &t[1].node), 1);
        break;
    }
    ASSERT_OK(tw_destroy(b));
}

/* ---------------------------------------------------------- big jumps */

static void case_big_jump(struct ctx *c)
{
    enum { N = 40 };
    CREATE(tw);
    struct ttimer t[N];
    tw_time_t now = tw_now(tw);
    int wheel = tw_max_interval(tw) != TW_TIME_MAX;
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        tw_time_t iv, k = (tw_time_t)i;
        if (wheel)
            iv = k * (tw_max_interval(tw) / N + 1) % (tw_max_interval(tw) + 1);
        else if (k < 4)
            iv = k;
        else if (k < 34)
            iv = ((k - 4) << 43) + k;           /* up to ~2^48 */
        else
            iv = (1ull << 48) + (k - 34);       /* at the jump's end, and just after */
        ASSERT_OK(tw_start(tw, &t[i].node, iv));
    }
    ASSERT_CHECK(tw);
    tw_time_t to = sat_add(now, 1ull << 48);
    int64_t n = tw_advance(tw, to);
    ASSERT_CHECK(tw);
    int must = 0, may = 0;
    for (int i = 0; i < N; i++) {
        tw_time_t dl = tw_timer_deadline(&t[i].node);
        if (dl > to) {
            ASSERT_EQ_INT(t[i].fired, 0);
            ASSERT_EQ_INT(tw_timer_pending(&t[i].node), 1);
            continue;
        }
        may++;
        if (scheme_exact(c->scheme) || latest_fire(c->scheme, now, dl) <= to) {
            must++;
            ASSERT_EQ_INT(t[i].fired, 1);
            ASSERT_EQ_U64(t[i].fired_at, to);
        }
    }
    ASSERT_GE_INT(n, must);
    ASSERT_LE_INT(n, may);
    /* a second jump fires the rest, each once */
    ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_CHECK(tw);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, 1);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* --------------------------------------------------------- next expiry */

/* next_expiry while the earliest timers leave one after another: stopped
 * (an event loop whose connections close before their timeouts), fired,
 * joined by new timers below, at and above the earliest known, with equal
 * deadlines among them.  Every answer against a reference computed from
 * the nodes; tw_check() (which audits the schemes' caches of earliest
 * deadlines) after every step.  N is more than the caches hold. */
static void case_next_expiry_earliest_leave(struct ctx *c)
{
    enum { N = 100 };
    CREATE(tw);
    static struct ttimer t[N];
    tw_time_t started[N]; /* tw_now() at each timer's last start */
    uint64_t seed = 0x243f6a8885a308d3u;
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        /* far (upper levels, many rounds of a hashed table), a few equal */
        tw_time_t d = 100000 + (seed >> 40) % 5000;
        if (i % 10 == 3)
            d = 100000 + 777;
        ASSERT_OK(tw_start(tw, &t[i].node, cap_interval(tw, d)));
        started[i] = tw_now(tw);
    }
    for (int step = 0; step < 3 * N; step++) {
        tw_time_t ne = 0, want = TW_TIME_MAX;
        int any = 0, at = -1;
        for (int i = 0; i < N; i++)
            if (tw_timer_pending(&t[i].node)) {
                any = 1;
                if (at < 0 || tw_timer_deadline(&t[i].node) < want) {
                    want = tw_timer_deadline(&t[i].node);
                    at = i;
                }
            }
        ASSERT_EQ_INT(tw_next_expiry(tw, &ne), any);
        if (!any)
            break;
        if (scheme_exact(c->scheme)) {
            ASSERT_EQ_U64(ne, want);
        } else { /* coarse: the tick the earliest will fire at */
            ASSERT_GE_U64(ne, want);
            ASSERT_LE_U64(ne, latest_fire(c->scheme, started[at], want));
        }
        ASSERT_CHECK(tw);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        switch ((seed >> 33) % 8) {
        case 0: /* restart one just below the earliest */
            if (want > tw_now(tw) + 1) {
                size_t j = (size_t)((seed >> 20) % N);
                ASSERT_OK(tw_start_at(tw, &t[j].node, want - 1));
                started[j] = tw_now(tw);
            }
            break;
        case 1: { /* restart one at the earliest (an equal deadline) */
            size_t j = (size_t)((seed >> 20) % N);
            ASSERT_OK(tw_start_at(tw, &t[j].node, want));
            started[j] = tw_now(tw);
            break;
        }
        case 2: /* advance to the earliest (coarse: the tick it fires at) */
            if (step % 4 == 0) {
                ASSERT_GE_INT(tw_advance(tw, ne), 1);
                break;
            }
            /* fall through */
        default: /* stop the earliest */
            ASSERT_EQ_INT(tw_stop(tw, &t[at].node), 1);
            break;
        }
        ASSERT_CHECK(tw);
    }
    ASSERT_OK(tw_destroy(tw));
}

/* Ask lawn and the hybrid to keep a queue for `ttl` (TW_TTL_QUEUE): so the
 * hybrid's first timers of it go to a queue, not to its wheel.  Other
 * schemes refuse with TW_EINVAL, which changes nothing.  1 if the call
 * did what its scheme documents. */
static int pin_queue(struct tw *tw, tw_time_t ttl)
{
    int rc = tw_ttl_hint(tw, ttl, TW_TTL_QUEUE);
    return scheme_takes_hints(tw_get_scheme(tw)) ? rc == 0 : rc == TW_EINVAL;
}

/* Stops in start order, each of the earliest pending timer, as request
 * timeouts go when requests are answered in the order they came: in lawn
 * and the hybrid every such stop takes the head of its TTL's queue (two
 * TTLs, started in turn).  After a stop, in turn: tw_next_expiry() is the
 * least pending deadline (exact schemes); an advance to the tick before it
 * fires nothing; an advance to it fires the earliest timer (in the other
 * queue, whose head is due before the stopped queue's new head).  At the
 * end every timer not stopped has fired once, never early. */
static void case_stop_in_start_order(struct ctx *c)
{
    enum { N = 48 };
    CREATE(tw);
    static struct ttimer t[N];
    tw_time_t armed[N];
    int stopped[N] = {0};
    const tw_time_t ttl[2] = {cap_interval(tw, 3000), cap_interval(tw, 3001)};
    for (int k = 0; k < 2; k++) /* the hybrid: queues from the first start */
        ASSERT_TRUE(pin_queue(tw, ttl[k]));
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        ASSERT_OK(tw_start(tw, &t[i].node, ttl[i % 2]));
        armed[i] = tw_now(tw);
        ASSERT_EQ_INT(tw_advance(tw, sat_add(tw_now(tw), 4)), 0);
    }
    for (int i = 0; i < N / 2; i++) {
        if (!tw_timer_pending(&t[i].node))
            continue; /* fired by an advance below */
        ASSERT_EQ_INT(tw_stop(tw, &t[i].node), 1);
        stopped[i] = 1;
        tw_time_t want = TW_TIME_MAX;
        int at = -1;
        for (int j = 0; j < N; j++)
            if (tw_timer_pending(&t[j].node) && (at < 0 || tw_timer_deadline(&t[j].node) < want)) {
                want = tw_timer_deadline(&t[j].node);
                at = j;
            }
        ASSERT_TRUE(at > i);
        if (i % 3 == 0) {
            tw_time_t ne = 0;
            ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
            if (scheme_exact(c->scheme)) {
                ASSERT_EQ_U64(ne, want);
            } else {
                ASSERT_GE_U64(ne, want);
                ASSERT_LE_U64(ne, latest_fire(c->scheme, armed[at], want));
            }
        } else if (i % 3 == 1) {
            if (want > tw_now(tw) + 1)
                ASSERT_EQ_INT(tw_advance(tw, want - 1), 0); /* never early */
        } else {
            ASSERT_GE_INT(tw_advance(tw, fire_by(c, armed[at], want, tw_now(tw))), 1);
            ASSERT_EQ_INT(t[at].fired, 1);
            if (scheme_exact(c->scheme))
                ASSERT_EQ_U64(t[at].fired_at, want);
        }
        ASSERT_CHECK(tw);
    }
    for (int i = 0; i < N; i++) {
        if (tw_timer_pending(&t[i].node))
            fire_one(c, tw, &t[i], armed[i]);
        ASSERT_EQ_INT(t[i].fired, !stopped[i]);
        if (t[i].fired)
            ASSERT_GE_U64(t[i].fired_at, tw_timer_deadline(&t[i].node));
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* Lawn keys a queue in its heap of heads by a lower bound of its head's
 * deadline, left as it was when a head is stopped (lawn.c).  Four short
 * sequences, each of which needs such a stale key corrected at the right
 * moment, on every scheme (lawn and the hybrid with their TTLs pinned as
 * queues) through the contract alone.  Times are from b, the start clock:
 *   0: two stale keys stacked at the root: next_expiry corrects both;
 *   1: a stale root whose head is not due, above a queue whose head is:
 *      the latter fires at its deadline;
 *   2: the same, both passed in one advance;
 *   3: a pinned queue's only timer stopped under a stale key, the queue
 *      then filled again. */
static void case_stale_queue_keys(struct ctx *c)
{
    static const int want[4][5] = {
        {0, 0, 1, 1, 1}, {0, 1, 1, 0, 0}, {0, 1, 1, 0, 0}, {0, 1, 0, 1, 0}};
    for (int v = 0; v < 4; v++) {
        CREATE(tw);
        static struct ttimer t[5];
        tw_time_t b = tw_now(tw), ne = 0, armed[5] = {b, b, b, b, b};
        for (int i = 0; i < 5; i++)
            tt_init(&t[i], i);
        for (tw_time_t ttl = 100; ttl <= 150; ttl++)
            ASSERT_TRUE(pin_queue(tw, ttl));
        if (v == 0) {
            ASSERT_OK(tw_start(tw, &t[0].node, 100));
            ASSERT_OK(tw_start(tw, &t[1].node, 101));
            ASSERT_OK(tw_start(tw, &t[2].node, 150));
            ASSERT_EQ_INT(tw_advance(tw, b + 60), 0);
            ASSERT_OK(tw_start(tw, &t[3].node, 100)); /* b + 160 */
            ASSERT_OK(tw_start(tw, &t[4].node, 101)); /* b + 161 */
            armed[3] = armed[4] = b + 60;
            ASSERT_EQ_INT(tw_stop(tw, &t[0].node), 1);
            ASSERT_EQ_INT(tw_stop(tw, &t[1].node), 1);
            ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
            if (scheme_exact(c->scheme))
                ASSERT_EQ_U64(ne, b + 150);
            else
                ASSERT_TRUE(ne >= b + 150 && ne <= latest_fire(c->scheme, b, b + 150));
        } else if (v == 1 || v == 2) {
            ASSERT_OK(tw_start(tw, &t[0].node, 100));
            ASSERT_OK(tw_start(tw, &t[1].node, 150));
            ASSERT_EQ_INT(tw_advance(tw, b + 99), 0);
            ASSERT_OK(tw_start(tw, &t[2].node, 100)); /* b + 199 */
            armed[2] = b + 99;
            ASSERT_EQ_INT(tw_stop(tw, &t[0].node), 1);
            if (v == 1) {
                ASSERT_EQ_INT(tw_advance(tw, b + 149), 0);
                fire_one(c, tw, &t[1], b);
            } else if (scheme_exact(c->scheme)) {
                ASSERT_EQ_INT(tw_advance(tw, b + 160), 1);
                ASSERT_EQ_INT(t[1].fired, 1);
                ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
                ASSERT_EQ_U64(ne, b + 199);
            }
            ASSERT_EQ_INT(t[2].fired, 0);
        } else {
            ASSERT_OK(tw_start(tw, &t[0].node, 100));
            ASSERT_OK(tw_start(tw, &t[1].node, 120));
            ASSERT_EQ_INT(tw_advance(tw, b + 10), 0);
            ASSERT_OK(tw_start(tw, &t[2].node, 100)); /* b + 110 */
            ASSERT_EQ_INT(tw_stop(tw, &t[0].node), 1);
            ASSERT_EQ_INT(tw_stop(tw, &t[2].node), 1); /* the queue's only timer */
            ASSERT_EQ_INT(tw_advance(tw, b + 15), 0);
            ASSERT_OK(tw_start(tw, &t[3].node, 100)); /* b + 115 */
            armed[3] = b + 15;
            ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
            if (scheme_exact(c->scheme))
                ASSERT_EQ_U64(ne, b + 115);
            fire_one(c, tw, &t[3], armed[3]);
        }
        ASSERT_CHECK(tw);
        for (int i = 0; i < 5; i++) {
            if (tw_timer_pending(&t[i].node))
                fire_one(c, tw, &t[i], armed[i]);
            ASSERT_EQ_INT(t[i].fired, want[v][i]);
        }
        ASSERT_CHECK(tw);
        ASSERT_OK(tw_destroy(tw));
    }
}

static void case_next_expiry(struct ctx *c)
{
    CREATE(tw);
    struct ttimer a, b;
    tt_init(&a, 1);
    tt_init(&b, 2);
    tw_time_t ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0); /* fresh */
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &a.node, cap_interval(tw, 1000)));
    ASSERT_OK(tw_start(tw, &b.node, 3));
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_U64(ne, sat_add(now, 3));
    } else {
        /* coarse: the tick it will fire at */
        ASSERT_GE_U64(ne, sat_add(now, 3));
        ASSERT_LE_U64(ne, latest_fire(c->scheme, now, sat_add(now, 3)));
    }
    ASSERT_EQ_INT(tw_stop(tw, &b.node), 1);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_U64(ne, sat_add(now, cap_interval(tw, 1000)));
    } else {
        ASSERT_GE_U64(ne, sat_add(now, cap_interval(tw, 1000)));
        ASSERT_LE_U64(ne, latest_fire(c->scheme, now, sat_add(now, cap_interval(tw, 1000))));
    }
    ASSERT_EQ_INT(tw_stop(tw, &a.node), 1);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0); /* all stopped */
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1);
    ASSERT_EQ_U64(ne, now);
    ASSERT_EQ_INT(tw_advance(tw, now), 1);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0); /* all fired */
    ASSERT_OK(tw_start(tw, &a.node, 0));
    ASSERT_EQ_INT(tw_collect(tw, now), 1);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 1); /* queued is pending */
    ASSERT_EQ_U64(ne, now);
    ASSERT_EQ_PTR(tw_get_expired(tw), &a.node);
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), 0); /* all handed out */
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* --------------------------------------------------------------- volume */

/* Many timers: growth and shrinking of tables, and exactly-once over a
 * spread of deadlines. */
static void case_many_timers(struct ctx *c)
{
    enum { N = 1500 };
    CREATE(tw);
    struct ttimer *t = malloc(N * sizeof *t);
    ASSERT_NOT_NULL(t);
    struct rng r;
    rng_seed(&r, 42);
    tw_time_t now = tw_now(tw);
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        tw_time_t iv = cap_interval(tw, rng_below(&r, 20000));
        ASSERT_OK(tw_start(tw, &t[i].node, iv));
    }
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), N);
    for (int i = 0; i < N; i += 2)
        ASSERT_EQ_INT(tw_stop(tw, &t[i].node), 1);
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_count(tw), N / 2);
    tw_time_t at = now;
    while (tw_count(tw) > 0 && at != TW_TIME_MAX) {
        at = sat_add(at, 97);
        ASSERT_GE_INT(tw_advance(tw, at), 0);
        ASSERT_CHECK(tw);
        for (int i = 1; i < N; i += 2) {
            tw_time_t dl = tw_timer_deadline(&t[i].node);
            if (dl > at)
                ASSERT_EQ_INT(t[i].fired, 0);
            else if (latest_fire(c->scheme, now, dl) <= at)
                ASSERT_EQ_INT(t[i].fired, 1);
        }
    }
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(t[i].fired, i % 2);
    ASSERT_OK(tw_destroy(tw));
    free(t);
}

static int cmp_time(const void *a, const void *b)
{
    tw_time_t x = *(const tw_time_t *)a, y = *(const tw_time_t *)b;
    return x < y ? -1 : x > y;
}

/* Enough timers (more than 2^14) that the hierarchical wheels walk a
 * slot that comes up with its lanes interleaved, with fewer after half
 * of them fired (one lane after another): started in deadline order,
 * advanced in steps of 97 ticks, each fires once, at the first step at
 * or after its deadline (late schemes: by the step after latest_fire). */
static void case_many_migrate(struct ctx *c)
{
    enum { N = 40000, STEP = 97 };
    CREATE(tw);
    struct ttimer *t = malloc(N * sizeof *t);
    tw_time_t *dl = malloc(N * sizeof *dl);
    ASSERT_NOT_NULL(t);
    ASSERT_NOT_NULL(dl);
    struct rng r;
    rng_seed(&r, 7);
    tw_time_t now = tw_now(tw);
    for (int i = 0; i < N; i++)
        dl[i] = cap_interval(tw, 1 + rng_below(&r, 1u << 16));
    qsort(dl, N, sizeof *dl, cmp_time); /* ordered's start stays O(1) */
    for (int i = 0; i < N; i++) {
        tt_init(&t[i], i);
        ASSERT_OK(tw_start(tw, &t[i].node, dl[i]));
        dl[i] = tw_timer_deadline(&t[i].node);
    }
    ASSERT_CHECK(tw);
    tw_time_t at = now;
    for (unsigned k = 0; tw_count(tw) > 0 && at != TW_TIME_MAX; k++) {
        at = sat_add(at, STEP);
        ASSERT_GE_INT(tw_advance(tw, at), 0);
        if (k % 64 == 0)
            ASSERT_CHECK(tw);
    }
    ASSERT_CHECK(tw);
    for (int i = 0; i < N; i++) {
        tw_time_t step_at = now + (dl[i] - now + STEP - 1) / STEP * STEP;
        tw_time_t late = latest_fire(c->scheme, now, dl[i]);
        tw_time_t late_at = now + (late - now + STEP - 1) / STEP * STEP;
        ASSERT_EQ_INT(t[i].fired, 1);
        ASSERT_GE_U64(t[i].fired_at, dl[i]);
        if (scheme_exact(c->scheme))
            ASSERT_EQ_U64(t[i].fired_at, step_at);
        else
            ASSERT_LE_U64(t[i].fired_at, late_at);
    }
    ASSERT_OK(tw_destroy(tw));
    free(dl);
    free(t);
}

/* The facility's user data: NULL at creation, what tw_set_data() stored
 * afterwards, seen from a callback (through the tw it gets) and through a
 * pull; kept across advances; tw_set_data(NULL tw) changes nothing. */
struct data_probe {
    struct tw_timer node;
    void *seen;
    int runs;
};

static void data_cb(struct tw *tw, struct tw_timer *t)
{
    struct data_probe *p = tw_container_of(t, struct data_probe, node);
    p->seen = tw_data(tw);
    p->runs++;
}

static void case_user_data(struct ctx *c)
{
    CREATE(tw);
    int mine = 0, other = 0;
    ASSERT_NULL(tw_data(tw));
    ASSERT_NULL(tw_data(NULL));
    tw_set_data(NULL, &mine); /* no crash, nothing stored anywhere */
    ASSERT_NULL(tw_data(tw));
    tw_set_data(tw, &mine);
    ASSERT_TRUE(tw_data(tw) == &mine);
    struct data_probe p = {.seen = NULL, .runs = 0};
    tw_timer_init(&p.node, data_cb);
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &p.node, 5));
    tw_time_t to = fire_by(c, now, tw_timer_deadline(&p.node), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 1);
    ASSERT_EQ_INT(p.runs, 1);
    ASSERT_TRUE(p.seen == &mine);
    tw_set_data(tw, &other);
    now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &p.node, 7));
    to = fire_by(c, now, tw_timer_deadline(&p.node), now);
    ASSERT_EQ_INT(tw_advance(tw, to), 1);
    ASSERT_TRUE(p.seen == &other);
    tw_set_data(tw, NULL);
    ASSERT_NULL(tw_data(tw));
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------- an idle timer's links */

/* A timer that, when it fires, goes on its owner's own list (tw_data())
 * through its links, as twheel.h allows while a timer is idle. */
struct parked {
    struct tw_timer node;
    int fired;
};

static void park_cb(struct tw *tw, struct tw_timer *t)
{
    struct tw_link *head = tw_data(tw), *l = &t->tw_u.link;
    l->prev = head->prev;
    l->next = head;
    head->prev->next = l;
    head->prev = l;
    tw_container_of(t, struct parked, node)->fired++;
}

/* The timers on list `head`, each checked to be one of p[0..n) and there
 * once, in `order`; how many. */
static int parked_walk(struct ctx *c, struct tw_link *head, struct parked *p, int n, int *order)
{
    int k = 0, seen[16] = {0};
    for (struct tw_link *l = head->next; l != head; l = l->next) {
        struct parked *x = tw_container_of(tw_container_of(l, struct tw_timer, tw_u.link),
                                           struct parked, node);
        if (!(x >= p && x < p + n) || seen[x - p]++ || l->next->prev != l || k >= n) {
            (void)c;
            test_fail(__FILE__, __LINE__, "parked list: a node foreign, twice, or badly linked");
            return -1;
        }
        order[k++] = (int)(x - p);
    }
    return k;
}

/* While a timer is idle -- never started, stopped, fired, or handed out
 * by tw_get_expired() -- the library reads and writes nothing of its
 * links, so its owner may keep it on a list of its own through them (the
 * Redis module keeps its ready timers so): the list survives every call
 * on the facility, and the timers still stop (0), restart and fire as
 * they should. */
static void case_idle_links_are_callers(struct ctx *c)
{
    enum { N = 8 };
    CREATE(tw);
    struct tw_link head = {&head, &head};
    tw_set_data(tw, &head);
    struct parked p[N];
    for (int i = 0; i < N; i++) {
        tw_timer_init(&p[i].node, park_cb);
        p[i].fired = 0;
    }
    int order[N];
    park_cb(tw, &p[0].node); /* never started: parked by hand (fired 1) */
    ASSERT_EQ_INT(tw_stop(tw, &p[0].node), 0);
    tw_time_t now = tw_now(tw);
    static const tw_time_t ivs[N] = {0, 0, 1, 5, 64, 4096, 1u << 20, 3};
    tw_time_t dl[N] = {0};
    for (int i = 1; i < N; i++) {
        ASSERT_OK(tw_start(tw, &p[i].node, cap_interval(tw, ivs[i])));
        dl[i] = tw_timer_deadline(&p[i].node);
    }
    ASSERT_EQ_INT(tw_stop(tw, &p[N - 1].node), 1);
    park_cb(tw, &p[N - 1].node); /* stopped: parked by hand */
    ASSERT_EQ_INT(tw_stop(tw, &p[N - 1].node), 0);
    ASSERT_CHECK(tw);
    /* the others fire, each parking itself, over a few advances */
    tw_time_t last = 0;
    for (int i = 1; i < N - 1; i++)
        last = max_u64(last, fire_by(c, now, dl[i], now));
    while (tw_now(tw) < last) {
        tw_time_t step = tw_now(tw) + (last - tw_now(tw)) / 3 + 1;
        ASSERT_GE_INT(tw_advance(tw, step), 0);
        ASSERT_CHECK(tw);
        ASSERT_GE_INT(parked_walk(c, &head, p, N, order), 2);
    }
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_INT(parked_walk(c, &head, p, N, order), N);
    ASSERT_EQ_INT(order[0], 0);
    ASSERT_EQ_INT(order[1], N - 1);
    for (int i = 0; i < N; i++) {
        ASSERT_EQ_INT(p[i].fired, 1);
        ASSERT_EQ_INT(tw_timer_pending(&p[i].node), 0);
        ASSERT_EQ_INT(tw_stop(tw, &p[i].node), 0); /* idle, on the list */
        if (i > 0 && i < N - 1)
            ASSERT_EQ_U64(tw_timer_deadline(&p[i].node), dl[i]); /* kept */
    }
    ASSERT_EQ_INT(parked_walk(c, &head, p, N, order), N);
    ASSERT_CHECK(tw);

    /* the pull form: collected timers handed out and parked */
    head.next = head.prev = &head;
    now = tw_now(tw);
    for (int i = 0; i < 4; i++)
        ASSERT_OK(tw_start(tw, &p[i].node, (tw_time_t)i));
    tw_time_t to = fire_by(c, now, now + 3, now);
    ASSERT_EQ_INT(tw_collect(tw, to), 4);
    struct tw_timer *x;
    while ((x = tw_get_expired(tw)) != NULL)
        park_cb(tw, x);
    ASSERT_EQ_INT(parked_walk(c, &head, p, N, order), 4);
    ASSERT_EQ_INT(tw_advance(tw, to), 0);
    ASSERT_EQ_INT(parked_walk(c, &head, p, N, order), 4);

    /* taken off the list, each starts again and fires as any timer */
    head.next = head.prev = &head;
    now = tw_now(tw);
    for (int i = 0; i < N; i++)
        ASSERT_OK(tw_start(tw, &p[i].node, (tw_time_t)(i + 1)));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_advance(tw, fire_by(c, now, now + N, now)), N);
    ASSERT_EQ_INT(parked_walk(c, &head, p, N, order), N);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_INT(p[i].fired, i < 4 ? 3 : 2);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}

/* One TTL's timers started at successive ticks (one of them re-armed to
 * the back), all due by one advance (form 0) or one collect (form 1):
 * every one fires once, and in start order where the scheme promises it
 * for one TTL -- deadline order (here start order), Lawn's queues, the
 * hybrid's queued TTL (hinted to a queue from its first start). */
static void case_ttl_start_order(struct ctx *c)
{
    enum { N = 12 };
    CREATE(tw);
    struct ttimer t[N];
    for (int i = 0; i < N; i++)
        tt_init(&t[i], i);
    const tw_time_t T = cap_interval(tw, 500);
    int ordered = scheme_fifo(c->scheme) == 2 || scheme_takes_hints(c->scheme);
    if (scheme_takes_hints(c->scheme))
        ASSERT_OK(tw_ttl_hint(tw, T, TW_TTL_QUEUE));
    for (int form = 0; form < 2; form++) {
        tw_time_t t0 = tw_now(tw);
        int expect[N], ne = 0;
        test_log_reset();
        for (int i = 0; i < N; i++) {
            ASSERT_EQ_INT(tw_advance(tw, sat_add(t0, (tw_time_t)i)), 0);
            ASSERT_OK(tw_start(tw, &t[i].node, T));
            if (i != 1)
                expect[ne++] = i;
            if (i == 5) {
                ASSERT_OK(tw_start(tw, &t[1].node, T)); /* to the back */
                expect[ne++] = 1;
            }
        }
        ASSERT_CHECK(tw);
        tw_time_t now = tw_now(tw);
        tw_time_t by = fire_by(c, now, sat_add(now, T), now);
        int got[N], ng = 0;
        if (form == 0) {
            ASSERT_EQ_INT(tw_advance(tw, by), N);
            for (int i = 0; i < test_log.n && ng < N; i++)
                got[ng++] = test_log.ids[i];
        } else {
            ASSERT_EQ_INT(tw_collect(tw, by), N);
            struct tw_timer *x;
            while ((x = tw_get_expired(tw)) != NULL && ng < N)
                got[ng++] = tt_of(x)->id;
        }
        ASSERT_EQ_INT(ng, N);
        int seen[N] = {0};
        for (int i = 0; i < N; i++) {
            ASSERT_TRUE(got[i] >= 0 && got[i] < N && !seen[got[i]]);
            seen[got[i]] = 1;
            if (ordered && got[i] != expect[i]) {
                test_fail(__FILE__, __LINE__,
                          "form %d: position %d fired timer %d, expected %d (one TTL's start order)",
                          form, i, got[i], expect[i]);
                return;
            }
        }
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_CHECK(tw);
    }
    ASSERT_OK(tw_destroy(tw));
}

const struct test_case test_suite_cases[] = {
    {"zero_interval", case_zero_interval, 1},
    {"past_deadline", case_past_deadline, 1},
    {"saturation", case_saturation, 1},
    {"exact_fire", case_exact_fire, 1},
    {"tick_by_tick", case_tick_by_tick, 1},
    {"uneven_steps", case_uneven_steps, 1},
    {"cb_stop_self", case_cb_stop_self, 1},
    {"cb_stop_other_same_advance", case_cb_stop_other_same_advance, 1},
    {"cb_restart_self", case_cb_restart_self, 1},
    {"cb_restart_other", case_cb_restart_other, 1},
    {"cb_start_new_zero", case_cb_start_new_zero, 1},
    {"cb_free_self", case_cb_free_self, 1},
    {"cb_zero_rearm", case_cb_zero_rearm, 1},
    {"cb_reentrant_busy", case_cb_reentrant_busy, 1},
    {"cb_context", case_cb_context, 1},
    {"user_data", case_user_data, 1},
    {"cb_check_inside", case_cb_check_inside, 1},
    {"cb_next_expiry_inside", case_cb_next_expiry_inside, 1},
    {"backwards", case_backwards, 1},
    {"fifo_equal_deadlines", case_fifo_equal_deadlines, 1},
    {"ttl_start_order", case_ttl_start_order, 1},
    {"due_started_first", case_due_started_first, 1},
    {"stop_idle_and_twice", case_stop_idle_and_twice, 1},
    {"idle_links_are_callers", case_idle_links_are_callers, 1},
    {"rearm_pending", case_rearm_pending, 1},
    {"lone_far_restart", case_lone_far_restart, 1},
    {"restart_in_slot", case_restart_in_slot, 1},
    {"pull", case_pull, 1},
    {"pull_stop_from_callback", case_pull_stop_from_callback, 1},
    {"pull_order", case_pull_order, 1},
    {"set_callback", case_set_callback, 1},
    {"destroy_pending", case_destroy_pending, 1},
    {"big_jump", case_big_jump, 1},
    {"next_expiry", case_next_expiry, 1},
    {"next_expiry_earliest_leave", case_next_expiry_earliest_leave, 1},
    {"stop_in_start_order", case_stop_in_start_order, 1},
    {"stale_queue_keys", case_stale_queue_keys, 1},
    {"many_timers", case_many_timers, 1},
    {"many_migrate", case_many_migrate, 1},
};
const size_t test_suite_cases_count = sizeof test_suite_cases / sizeof test_suite_cases[0];
