/*
 * test_differential.c -- a reference model and a randomized differential
 * test with fixed seeds.
 *
 * The model is a plain array of timers, each with a state (idle, pending,
 * or queued on the pull API's expired queue), a deadline, the clock at which
 * it was started and how often it fired.  A seeded stream of operations
 * (start, start_at, re-arm, stop, advance, collect + get_expired, next
 * expiry, backwards time) is applied to the facility and to the model, and
 * after every step the two must agree:
 *
 *   - tw_check() passes, tw_count() and tw_now() match the model, and every
 *     node's pending flag and deadline match;
 *   - in an advance, a timer fires only if it was pending with deadline <= now
 *     when the advance began and no callback has stopped or re-armed it since
 *     (never early, never twice, never after a stop); for exact schemes every
 *     such timer fires in that very advance, for hierarchical_coarse every
 *     one whose latest_fire() has passed;
 *   - tw_next_expiry() is the minimum pending deadline (exact schemes), or
 *     for hierarchical_coarse the tick at which the next timer will fire
 *     (between the minimum deadline and the minimum latest_fire()); an
 *     advance to before it fires nothing, and one that reaches it fires
 *     something (unless the only pending timers are in the expired queue).
 *
 * Callbacks act too: they re-arm themselves (interval 0 included), stop or
 * re-arm other timers, and try the calls that must be refused from inside a
 * callback (tw_advance, tw_collect, tw_destroy: TW_EBUSY).
 *
 * The last NPERIODIC timers are periodic (struct tw_periodic), a third with
 * each missed-run policy, started, restarted and stopped by the same
 * stream.  The model keeps each one's grid: at an expiry at `now` of the
 * point `due`, m = (now - due) / period points were passed over; BURST
 * reports 0, counts 1 and goes on at due + period (due again at once when
 * m > 0: one per advance), SKIP reports and counts m + 1 and goes on at
 * the first point after now, DELAY does the same but goes on at now +
 * period when m > 0 (else due + period); a next point past the end of
 * time leaves the timer idle.  The callback
 * must find the timer re-armed there, and it must not fire again in the
 * same advance.  Handed out by tw_get_expired() it is idle, and the
 * caller may re-arm it on its grid.
 *
 * Each run starts the clock at 0, near 2^32, near 2^63 or near 2^64 (the
 * runner's start clocks), with the scheme's default tables and, for the
 * schemes that have tables, with small ones that wrap all the time; the
 * hierarchical wheel and the hybrid also with 32 slots per level.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define NTIMERS 64
#define NPERIODIC 9 /* the last ones: three per policy */

enum mstate { M_IDLE, M_PENDING, M_QUEUED };

struct diff;

struct mtimer {
    struct tw_timer node;       /* plain timers */
    struct tw_periodic per;     /* periodic ones: their node is per.tw_timer */
    struct diff *d;
    int idx;
    int periodic;
    enum tw_missed policy;
    tw_time_t period;
    uint64_t pcount;            /* the model's tw_periodic_count() */
    enum mstate state;
    tw_time_t deadline;
    tw_time_t start_now;        /* model clock when it was (re)armed */
    unsigned long fired;        /* fired or handed out by tw_get_expired() */
    /* For the advance (or collect) in progress. */
    int eligible;               /* pending, deadline <= now, when it began */
    int touched;                /* started or stopped by a callback since */
    int fired_now;              /* fired in it */
};

struct diff {
    struct ctx *c;
    struct tw *tw;
    enum tw_scheme s;
    int exact;
    uint32_t slots;             /* the configuration's, for latest_fire */
    int quiet;                  /* callbacks only record */
    int ttl_mode;               /* intervals mostly from a few TTLs */
    struct rng r;
    tw_time_t now;              /* the model's clock */
    tw_time_t maxi;             /* tw_max_interval() */
    size_t count;               /* model: pending + queued */
    int in_advance;
    tw_time_t adv_now;
    long fired_in_advance;
    int ne_valid;               /* ne: the last tw_next_expiry() answer */
    tw_time_t ne;
    unsigned long stat_fired, stat_periodic, stat_missed, stat_ops, stat_erange, stat_busy;
    struct mtimer t[NTIMERS];
};

static struct tw_timer *node_of(struct mtimer *m)
{
    return m->periodic ? &m->per.tw_timer : &m->node;
}

/* The model timer of a node the facility handed out, or NULL if it is none
 * of the run's (a search: a periodic node is not at `node`). */
static struct mtimer *mt_find(struct diff *d, struct tw_timer *t)
{
    for (int i = 0; i < NTIMERS; i++)
        if (node_of(&d->t[i]) == t)
            return &d->t[i];
    return NULL;
}

/* ------------------------------------------------------------ generators */

static const tw_time_t boundary_intervals[] = {
    1, 2, 15, 16, 17, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097,
    (1ull << 12) * 64 - 1, (1ull << 18), (1ull << 24) + 1, (1ull << 32) - 1,
    (1ull << 32), (1ull << 32) + 1, (1ull << 48), (1ull << 63) - 1, (1ull << 63),
};
#define NBOUNDARY (sizeof boundary_intervals / sizeof boundary_intervals[0])

/* The "ttl" variant: a program that uses a few TTLs again and again, the
 * case Lawn and the hybrid are built for (queues fill, empty, come back). */
static const tw_time_t ttl_set[] = {1, 7, 30, 64, 500, 4096, 1u << 20, 1ull << 40};

static tw_time_t gen_interval(struct diff *d)
{
    uint64_t p = rng_below(&d->r, 100);
    tw_time_t iv;
    if (d->ttl_mode && p < 85) {
        iv = ttl_set[rng_below(&d->r, sizeof ttl_set / sizeof ttl_set[0])];
        return iv > d->maxi ? d->maxi : iv;
    }
    if (p < 8)
        iv = 0;
    else if (p < 35)
        iv = 1 + rng_below(&d->r, 16);
    else if (p < 58)
        iv = rng_below(&d->r, 5000);
    else if (p < 68)
        iv = rng_below(&d->r, 1u << 20);
    else if (p < 76)
        iv = (1ull << 40) + rng_below(&d->r, 1ull << 40);
    else if (p < 86) {
        iv = boundary_intervals[rng_below(&d->r, NBOUNDARY)];
        if (d->maxi != TW_TIME_MAX && rng_pct(&d->r, 50))
            iv = d->maxi - rng_below(&d->r, 2); /* exactly at the limit */
    } else if (p < 93)
        iv = TW_TIME_MAX - rng_below(&d->r, 1000); /* saturates */
    else
        iv = rng_next(&d->r) >> rng_below(&d->r, 64);

    if (iv > d->maxi) {
        /* wheel: an interval whose deadline saturates within range is not
         * tested (the header leaves it open); a plain long one is refused
         * now and then, to check TW_ERANGE changes nothing. */
        if (iv > TW_TIME_MAX - d->now || !rng_pct(&d->r, 10))
            iv = rng_below(&d->r, d->maxi + 1);
    }
    return iv;
}

/* A periodic timer's period: mostly short, so that it comes round many
 * times in a run; now and then 0 (refused) or any interval. */
static tw_time_t gen_period(struct diff *d)
{
    uint64_t p = rng_below(&d->r, 100);
    if (p < 3)
        return 0;
    if (p < 55)
        return 1 + rng_below(&d->r, 64);
    if (p < 80)
        return 1 + rng_below(&d->r, 5000);
    return gen_interval(d);
}

static tw_time_t gen_deadline(struct diff *d)
{
    uint64_t p = rng_below(&d->r, 100);
    if (p < 10)
        return sat_sub(d->now, 1 + rng_below(&d->r, 1000)); /* in the past */
    if (p < 12)
        return 0;
    if (p < 22)
        return d->now;
    if (p < 24)
        return TW_TIME_MAX;
    return sat_add(d->now, gen_interval(d));
}

static struct mtimer *pick(struct diff *d)
{
    return &d->t[rng_below(&d->r, NTIMERS)];
}

/* The earliest deadline of a pending (or queued) model timer; 0 if none. */
static int model_min(const struct diff *d, tw_time_t *min, tw_time_t *min_latest)
{
    int any = 0;
    for (int i = 0; i < NTIMERS; i++) {
        const struct mtimer *m = &d->t[i];
        if (m->state == M_IDLE)
            continue;
        tw_time_t l = latest_fire_slots(d->s, d->slots, m->start_now, m->deadline);
        if (!any || m->deadline < *min)
            *min = m->deadline;
        if (!any || l < *min_latest)
            *min_latest = l;
        any = 1;
    }
    return any;
}

static tw_time_t gen_advance_to(struct diff *d, unsigned long step)
{
    uint64_t p = rng_below(&d->r, 1000);
    tw_time_t now = d->now, to;
    tw_time_t mn = 0, ml = 0;
    if (p < 100)
        to = now;
    else if (p < 300)
        to = sat_add(now, 1 + rng_below(&d->r, 4));
    else if (p < 480)
        to = sat_add(now, rng_below(&d->r, 64));
    else if (p < 620)
        to = sat_add(now, rng_below(&d->r, 100000));
    else if (p < 660)
        to = sat_add(now, (1ull << 40) + rng_below(&d->r, 1ull << 20));
    else if (p < 760) {
        /* exactly to the next deadline, or to its latest firing time */
        to = model_min(d, &mn, &ml) ? (rng_pct(&d->r, 70) ? mn : ml) : now + 1;
    } else if (p < 820) {
        to = model_min(d, &mn, &ml) ? sat_sub(mn, 1) : now;
    } else if (p < 900) {
        /* a random timer's deadline, or the tick before it */
        struct mtimer *m = pick(d);
        to = m->state != M_IDLE ? sat_sub(m->deadline, rng_below(&d->r, 2)) : now;
    } else if (p < 980) {
        /* around a wrap of a table: a multiple of 2^k, plus -1, 0 or 1 */
        unsigned k = (unsigned)(4 + rng_below(&d->r, 40));
        tw_time_t unit = 1ull << k;
        tw_time_t up = (now | (unit - 1));
        to = sat_add(up, rng_below(&d->r, 3));
    } else if (p < 995) {
        to = sat_add(now, 1ull << 48);
    } else {
        /* the end of time, only late in a run (it ends the run's future) */
        to = step > test_diff_steps * 9 / 10 ? TW_TIME_MAX : sat_add(now, 7);
    }
    if (to == TW_TIME_MAX && step <= test_diff_steps * 9 / 10)
        to = now + (TW_TIME_MAX - now) / 2; /* keep a future to run in */
    return to < now ? now : to;
}

/* ------------------------------------------------------------- the model */

static void arm_model(struct diff *d, struct mtimer *m, tw_time_t deadline)
{
    if (m->state == M_IDLE)
        d->count++;
    m->state = M_PENDING;
    m->deadline = deadline;
    m->start_now = d->now;
    if (d->in_advance)
        m->touched = 1;
}

static int expect_arm(const struct diff *d, tw_time_t deadline)
{
    if (deadline > d->now && deadline - d->now > d->maxi)
        return TW_ERANGE;
    return 0;
}

/* Start a periodic timer on the grid first, first + period, ...: through
 * tw_periodic_start() when first is one period from now, else (or now and
 * then anyway) through tw_periodic_start_at(). */
static void do_periodic_at(struct diff *d, struct mtimer *m, tw_time_t first, tw_time_t period)
{
    int expect = period == 0 ? TW_EINVAL : period > d->maxi ? TW_ERANGE : expect_arm(d, first);
    int rc;
    if (first == sat_add(d->now, period) && rng_pct(&d->r, 70))
        rc = tw_periodic_start(d->tw, &m->per, period);
    else
        rc = tw_periodic_start_at(d->tw, &m->per, first, period);
    ASSERT_EQ_RC(rc, expect);
    if (rc == 0) {
        arm_model(d, m, first);
        m->period = period;
        m->pcount = 0;
    } else {
        d->stat_erange++;
    }
}

static void do_periodic(struct diff *d, struct mtimer *m)
{
    tw_time_t period = gen_period(d);
    do_periodic_at(d, m, sat_add(d->now, period), period);
}

static void do_start(struct diff *d, struct mtimer *m, tw_time_t interval)
{
    if (m->periodic) {
        do_periodic(d, m);
        return;
    }
    tw_time_t deadline = sat_add(d->now, interval);
    int expect = expect_arm(d, deadline);
    int rc = tw_start(d->tw, &m->node, interval);
    ASSERT_EQ_RC(rc, expect);
    if (rc == 0)
        arm_model(d, m, deadline);
    else
        d->stat_erange++;
}

static void do_start_at(struct diff *d, struct mtimer *m, tw_time_t deadline)
{
    if (m->periodic) {
        do_periodic_at(d, m, deadline, gen_period(d));
        return;
    }
    int expect = expect_arm(d, deadline);
    int rc = tw_start_at(d->tw, &m->node, deadline);
    ASSERT_EQ_RC(rc, expect);
    if (rc == 0)
        arm_model(d, m, deadline);
    else
        d->stat_erange++;
}

static void do_stop(struct diff *d, struct mtimer *m)
{
    int expect = m->state != M_IDLE;
    int rc = m->periodic ? tw_periodic_stop(d->tw, &m->per) : tw_stop(d->tw, &m->node);
    ASSERT_EQ_RC(rc, expect);
    if (m->state != M_IDLE)
        d->count--;
    m->state = M_IDLE;
    if (d->in_advance)
        m->touched = 1;
}

/* A pending timer's deadline pushed back or brought forward a little (up to
 * 2^k ticks, k below 30), by tw_start() on it: the common restart, which
 * mostly lands in the slot the timer is in. */
static void do_nudge(struct diff *d, struct mtimer *m)
{
    if (m->periodic || m->state != M_PENDING || m->deadline <= d->now || m->deadline == TW_TIME_MAX) {
        do_start(d, m, gen_interval(d));
        return;
    }
    tw_time_t iv = m->deadline - d->now;
    tw_time_t step = rng_below(&d->r, (tw_time_t)1 << rng_below(&d->r, 30)) + 1;
    if (rng_pct(&d->r, 50))
        iv = iv > step ? iv - step : 1;
    else
        iv = step < TW_TIME_MAX - d->now - iv ? iv + step : iv;
    if (iv > d->maxi)
        iv = d->maxi;
    do_start(d, m, iv);
}

/* What a callback may do besides being counted. */
static void cb_act(struct diff *d, struct mtimer *self)
{
    struct tw *tw = d->tw;
    switch (rng_below(&d->r, 6)) {
    case 0:
        do_start(d, self, rng_pct(&d->r, 40) ? 0 : gen_interval(d));
        break;
    case 1:
        do_stop(d, pick(d));
        break;
    case 2:
        if (rng_pct(&d->r, 30))
            do_nudge(d, pick(d));
        else
            do_start(d, pick(d), gen_interval(d));
        break;
    case 3:
        do_start_at(d, pick(d), gen_deadline(d));
        break;
    case 4:
        do_stop(d, self); /* a one-shot is idle already (0), a periodic one re-armed (1) */
        break;
    default:
        d->stat_busy++;
        ASSERT_EQ_RC(tw_advance(tw, d->adv_now), TW_EBUSY);
        ASSERT_EQ_RC(tw_advance(tw, sat_add(d->adv_now, 1)), TW_EBUSY);
        ASSERT_EQ_RC(tw_collect(tw, d->adv_now), TW_EBUSY);
        ASSERT_EQ_RC(tw_destroy(tw), TW_EBUSY);
        break;
    }
}

/* A timer fires in an advance: may it?  (Counted either way; a failure is
 * recorded, and the caller returns on it.) */
static void check_fire(struct tw *tw, struct diff *d, struct mtimer *m)
{
    d->fired_in_advance++;
    ASSERT_TRUE(d->in_advance);
    ASSERT_EQ_PTR(tw, d->tw);
    ASSERT_EQ_U64(tw_now(tw), d->adv_now);
    if (!m->eligible) {
        test_fail(__FILE__, __LINE__,
                  "timer %d fired at now %" PRIu64 " but was not due when the advance "
                  "began (model state %d, deadline %" PRIu64 ", fired %lu times)",
                  m->idx, d->adv_now, (int)m->state, m->deadline, m->fired);
        return;
    }
    if (m->touched) {
        test_fail(__FILE__, __LINE__,
                  "timer %d fired although this advance stopped or re-armed it (model "
                  "state %d, deadline %" PRIu64 ")",
                  m->idx, (int)m->state, m->deadline);
        return;
    }
    if (m->fired_now) {
        test_fail(__FILE__, __LINE__, "timer %d fired twice in one advance", m->idx);
        return;
    }
    ASSERT_LE_U64(m->deadline, d->adv_now); /* never early */
    m->fired_now = 1;
    m->fired++;
    d->stat_fired++;
}

static void diff_cb(struct tw *tw, struct tw_timer *t)
{
    struct mtimer *m = tw_container_of(t, struct mtimer, node);
    struct diff *d = m->d;
    check_fire(tw, d, m);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(tw_timer_pending(t), 0);
    ASSERT_EQ_U64(tw_timer_deadline(t), m->deadline);
    m->state = M_IDLE;
    d->count--;
    ASSERT_EQ_U64(tw_count(tw), d->count);
    if (!d->quiet && rng_pct(&d->r, 30))
        cb_act(d, m);
}

/* A periodic timer fires: the model works out where its grid goes on (see
 * the top of the file) and finds it there. */
static void periodic_cb(struct tw *tw, struct tw_periodic *p, uint64_t missed)
{
    struct mtimer *m = tw_container_of(p, struct mtimer, per);
    struct diff *d = m->d;
    check_fire(tw, d, m);
    RETURN_IF_FAILED();
    tw_time_t due = m->deadline, now = d->adv_now, P = m->period;
    uint64_t passed = (now - due) / P, k = 1;
    tw_time_t base = due;
    if (m->policy == TW_MISSED_SKIP)
        k = passed + 1; /* 0 if passed is 2^64 - 1: no next point */
    else if (m->policy == TW_MISSED_DELAY && passed > 0)
        base = now;
    if (m->policy == TW_MISSED_BURST)
        passed = 0;
    /* the next point, base + k * P, if neither the product nor the sum
     * passes the end of time */
    int next = k != 0 && k <= TW_TIME_MAX / P && base <= TW_TIME_MAX - k * P;
    ASSERT_EQ_U64(missed, passed);
    d->stat_periodic++;
    d->stat_missed += passed != 0;
    m->pcount = sat_add(m->pcount, sat_add(passed, 1));
    if (next) {
        m->deadline = base + k * P;
        m->start_now = now;
        m->touched = 1; /* maybe due again at once (BURST): not in this advance */
    } else {
        m->state = M_IDLE;
        d->count--;
    }
    ASSERT_EQ_INT(tw_periodic_pending(p), next);
    if (next)
        ASSERT_EQ_U64(tw_periodic_next(p), m->deadline);
    ASSERT_EQ_U64(tw_periodic_count(p), m->pcount);
    ASSERT_EQ_U64(tw_count(tw), d->count);
    if (d->quiet)
        do_stop(d, m); /* the final drain: BURST would catch up for ever */
    else if (rng_pct(&d->r, 30))
        cb_act(d, m);
}

static int any_queued(const struct diff *d)
{
    for (int i = 0; i < NTIMERS; i++)
        if (d->t[i].state == M_QUEUED)
            return 1;
    return 0;
}

/* Mark what may fire in an advance or collect to `to`. */
static void begin_expiry(struct diff *d, tw_time_t to)
{
    for (int i = 0; i < NTIMERS; i++) {
        struct mtimer *m = &d->t[i];
        m->eligible = m->state == M_PENDING && m->deadline <= to;
        m->touched = 0;
        m->fired_now = 0;
    }
}

/* After an advance or a collect: nothing that had to go is still there. */
static void end_expiry(struct diff *d, tw_time_t to)
{
    for (int i = 0; i < NTIMERS; i++) {
        struct mtimer *m = &d->t[i];
        if (!m->eligible || m->touched || m->fired_now)
            continue;
        tw_time_t late = latest_fire_slots(d->s, d->slots, m->start_now, m->deadline);
        if (d->exact || late <= to) {
            test_fail(__FILE__, __LINE__,
                      "timer %d with deadline %" PRIu64 " (started at %" PRIu64
                      ", due by %" PRIu64 ") did not fire in the advance to %" PRIu64,
                      m->idx, m->deadline, m->start_now, late, to);
            return;
        }
    }
}

static void do_advance(struct diff *d, tw_time_t to)
{
    begin_expiry(d, to);
    d->now = to;
    d->in_advance = 1;
    d->adv_now = to;
    d->fired_in_advance = 0;
    int queued = any_queued(d);
    int64_t rc = tw_advance(d->tw, to);
    d->in_advance = 0;
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(rc, d->fired_in_advance);
    if (d->ne_valid && to < d->ne)
        ASSERT_EQ_INT(rc, 0); /* nothing before tw_next_expiry() */
    if (d->ne_valid && to >= d->ne && !queued)
        ASSERT_GE_INT(rc, 1); /* something at it */
    end_expiry(d, to);
}

/* A periodic timer handed out by tw_get_expired() is idle: the caller
 * goes on with its grid (half the time), at the point after the one that
 * fired, if there is one. */
static void rearm_on_grid(struct diff *d, struct mtimer *m)
{
    if (m->periodic && m->deadline <= TW_TIME_MAX - m->period && rng_pct(&d->r, 50))
        do_periodic_at(d, m, m->deadline + m->period, m->period);
}

/* Hand out up to `k` timers of the expired queue. */
static void do_drain(struct diff *d, size_t k)
{
    for (size_t n = 0; n < k; n++) {
        struct tw_timer *t = tw_get_expired(d->tw);
        if (t == NULL) {
            for (int i = 0; i < NTIMERS; i++)
                if (d->t[i].state == M_QUEUED) {
                    test_fail(__FILE__, __LINE__,
                              "tw_get_expired() returned NULL but timer %d (deadline %" PRIu64
                              ") is queued",
                              i, d->t[i].deadline);
                    return;
                }
            return;
        }
        struct mtimer *m = mt_find(d, t);
        ASSERT_NOT_NULL(m);
        if (m->state != M_QUEUED) {
            test_fail(__FILE__, __LINE__,
                      "tw_get_expired() handed out timer %d which the model has in state %d",
                      m->idx, (int)m->state);
            return;
        }
        ASSERT_EQ_INT(tw_timer_pending(t), 0);
        ASSERT_EQ_U64(tw_timer_deadline(t), m->deadline);
        m->state = M_IDLE;
        m->fired++;
        d->count--;
        d->stat_fired++;
        rearm_on_grid(d, m);
        RETURN_IF_FAILED();
    }
}

static void do_collect(struct diff *d, tw_time_t to)
{
    begin_expiry(d, to);
    d->now = to;
    int queued = any_queued(d);
    int64_t rc = tw_collect(d->tw, to);
    ASSERT_GE_INT(rc, 0);
    if (d->ne_valid && to < d->ne)
        ASSERT_EQ_INT(rc, 0);
    if (d->ne_valid && to >= d->ne && !queued)
        ASSERT_GE_INT(rc, 1);
    if (d->exact) {
        long expect = 0;
        for (int i = 0; i < NTIMERS; i++)
            if (d->t[i].eligible) {
                d->t[i].state = M_QUEUED;
                expect++;
            }
        ASSERT_EQ_INT(rc, expect);
        if (rng_pct(&d->r, 50))
            do_drain(d, (size_t)rng_below(&d->r, (uint64_t)expect + 2));
        return;
    }
    /* A scheme that may be late: which ones were queued is known only by
     * handing them all out now. */
    int64_t got = 0;
    struct tw_timer *t;
    while ((t = tw_get_expired(d->tw)) != NULL) {
        struct mtimer *m = mt_find(d, t);
        ASSERT_NOT_NULL(m);
        if (!m->eligible || m->fired_now) {
            test_fail(__FILE__, __LINE__,
                      "tw_get_expired() handed out timer %d (deadline %" PRIu64
                      ") not due at %" PRIu64 " or twice",
                      m->idx, m->deadline, to);
            return;
        }
        ASSERT_EQ_INT(tw_timer_pending(t), 0);
        m->fired_now = 1;
        m->fired++;
        m->state = M_IDLE;
        d->count--;
        d->stat_fired++;
        got++;
        rearm_on_grid(d, m);
        RETURN_IF_FAILED();
    }
    ASSERT_EQ_INT(got, rc);
    end_expiry(d, to);
}

/* The facility agrees with the model. */
static void verify(struct diff *d)
{
    struct tw *tw = d->tw;
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_now(tw), d->now);
    ASSERT_EQ_U64(tw_count(tw), d->count);
    for (int i = 0; i < NTIMERS; i++) {
        struct mtimer *m = &d->t[i];
        const struct tw_timer *node = node_of(m);
        if (tw_timer_pending(node) != (m->state != M_IDLE)) {
            test_fail(__FILE__, __LINE__,
                      "timer %d: tw_timer_pending() is %d, model state %d (deadline %" PRIu64
                      ")",
                      i, tw_timer_pending(node), (int)m->state, m->deadline);
            return;
        }
        if (m->state != M_IDLE && tw_timer_deadline(node) != m->deadline) {
            test_fail(__FILE__, __LINE__,
                      "timer %d: tw_timer_deadline() is %" PRIu64 ", model %" PRIu64, i,
                      tw_timer_deadline(node), m->deadline);
            return;
        }
        if (m->periodic) {
            ASSERT_EQ_INT(tw_periodic_pending(&m->per), m->state != M_IDLE);
            if (m->state != M_IDLE)
                ASSERT_EQ_U64(tw_periodic_next(&m->per), m->deadline);
            ASSERT_EQ_U64(tw_periodic_count(&m->per), m->pcount);
        }
    }
    tw_time_t ne = 0xdeadbeef, mn = 0, ml = 0;
    int any = model_min(d, &mn, &ml);
    int rc = tw_next_expiry(tw, &ne);
    ASSERT_EQ_INT(rc, any);
    d->ne_valid = any;
    if (!any)
        return;
    d->ne = ne;
    if (d->exact) {
        ASSERT_EQ_U64(ne, mn);
    } else {
        /* the tick the next timer will fire at: never before a deadline,
         * never after the bound */
        ASSERT_GE_U64(ne, mn);
        ASSERT_LE_U64(ne, ml);
    }
}

static void run_one(struct ctx *c, struct diff *d, const struct tw_config *cfg)
{
    memset(d, 0, sizeof *d);
    d->ttl_mode = c->variant != NULL && strcmp(c->variant, "ttl") == 0;
    d->c = c;
    d->s = c->scheme;
    d->exact = scheme_exact(c->scheme);
    d->slots = cfg->slots;
    d->now = cfg->start;
    rng_seed(&d->r, c->seed);
    ASSERT_OK(tw_create(&d->tw, cfg));
    d->maxi = tw_max_interval(d->tw);
    ASSERT_EQ_INT(tw_get_scheme(d->tw), c->scheme);
    if (d->ttl_mode) {
        /* pin one TTL's queue; keep another in the hybrid's wheel */
        int ttl_schemes = scheme_takes_hints(c->scheme);
        ASSERT_EQ_RC(tw_ttl_hint(d->tw, 30, TW_TTL_QUEUE), ttl_schemes ? 0 : TW_EINVAL);
        ASSERT_EQ_RC(tw_ttl_hint(d->tw, 500, TW_TTL_WHEEL),
                     c->scheme == TW_HYBRID ? 0 : TW_EINVAL);
        ASSERT_EQ_RC(tw_ttl_hint(d->tw, 0, TW_TTL_QUEUE), TW_EINVAL);
    }
    for (int i = 0; i < NTIMERS; i++) {
        struct mtimer *m = &d->t[i];
        m->d = d;
        m->idx = i;
        if (i < NTIMERS - NPERIODIC) {
            tw_timer_init(&m->node, diff_cb);
        } else {
            static const enum tw_missed policies[] = {TW_MISSED_BURST, TW_MISSED_SKIP,
                                                      TW_MISSED_DELAY};
            m->periodic = 1;
            m->policy = policies[i % 3];
            ASSERT_OK(tw_periodic_init(&m->per, periodic_cb, m->policy));
        }
    }
    c->step = 0;
    verify(d);
    RETURN_IF_FAILED();

    for (unsigned long step = 1; step <= test_diff_steps; step++) {
        c->step = step;
        d->stat_ops++;
        uint64_t p = rng_below(&d->r, 100);
        if (p < 20) {
            do_start(d, pick(d), gen_interval(d));
        } else if (p < 28) {
            do_nudge(d, pick(d));
        } else if (p < 40) {
            do_start_at(d, pick(d), gen_deadline(d));
        } else if (p < 43) {
            /* a burst on one deadline: equal deadlines, some re-armed */
            tw_time_t dl = gen_deadline(d);
            unsigned k = (unsigned)(2 + rng_below(&d->r, 6));
            for (unsigned j = 0; j < k && !TEST_CASE_FAILED(); j++)
                do_start_at(d, pick(d), dl);
        } else if (p < 55) {
            do_stop(d, pick(d));
        } else if (p < 82) {
            do_advance(d, gen_advance_to(d, step));
        } else if (p < 88) {
            do_collect(d, gen_advance_to(d, step));
        } else if (p < 93) {
            do_drain(d, (size_t)rng_below(&d->r, 8));
        } else if (p < 96) {
            /* time going backwards is refused and changes nothing */
            if (d->now > 0) {
                tw_time_t back = d->now - 1 - rng_below(&d->r, min_u64(d->now, 1000));
                if (rng_pct(&d->r, 50))
                    ASSERT_EQ_RC(tw_advance(d->tw, back), TW_ETIME);
                else
                    ASSERT_EQ_RC(tw_collect(d->tw, back), TW_ETIME);
            }
        } else {
            /* the same now again: due timers (interval 0) fire */
            do_advance(d, d->now);
        }
        RETURN_IF_FAILED();
        verify(d);
        RETURN_IF_FAILED();
    }
    c->step = 0;
    tw_time_t last_now = d->now;

    /* Drain everything: a final jump to the end of time fires every timer
     * (callbacks only record now, so nothing is re-armed). */
    d->quiet = 1;
    do_drain(d, NTIMERS + 1);
    RETURN_IF_FAILED();
    verify(d);
    RETURN_IF_FAILED();
    do_advance(d, TW_TIME_MAX);
    RETURN_IF_FAILED();
    verify(d);
    RETURN_IF_FAILED();
    ASSERT_EQ_U64(tw_count(d->tw), 0);
    ASSERT_OK(tw_destroy(d->tw));
    d->tw = NULL;
    if (test_verbose)
        printf("  %s start %#" PRIx64 " %s seed %" PRIu64 ": %lu ops, %lu fired (%lu "
               "periodic, %lu of them after missed points), %lu refused, %lu EBUSY "
               "rounds, clock at the end %#" PRIx64 "\n",
               c->scheme_name, c->start, c->variant, c->seed, d->stat_ops, d->stat_fired,
               d->stat_periodic, d->stat_missed, d->stat_erange, d->stat_busy, last_now);
}

static void case_differential(struct ctx *c)
{
    struct diff *d = calloc(1, sizeof *d);
    ASSERT_NOT_NULL(d);
    static const char *const names[] = {"default", "small", "ttl, real-time", "slots32"};
    for (int variant = 0; variant < 4; variant++) {
        struct tw_config cfg = c->cfg;
        if (variant == 2 && c->scheme == TW_HYBRID)
            cfg.ttl_threshold = 2; /* promote TTLs to queues quickly */
        if (variant == 2 && (scheme_options(c->scheme) & TW_OPT_REAL_TIME))
            cfg.options |= TW_OPT_REAL_TIME; /* slots walked interleaved at any count */
        if (variant == 3) {
            /* the hierarchical wheel with 5-bit digits: a top level of 4
             * bits, and the word-per-level paths with S < 64 */
            if (c->scheme != TW_HIERARCHICAL && c->scheme != TW_HYBRID)
                continue;
            cfg.slots = 32;
            cfg.levels = 0;
        }
        if (variant == 1) {
            /* small tables that wrap all the time; only for schemes with tables */
            switch (c->scheme) {
            case TW_ORDERED:
                cfg.options = TW_OPT_ORDERED_FRONT; /* BSD's search */
                break;
            case TW_LAWN:
                cfg.options = TW_OPT_LAWN_SCAN; /* the paper's scan */
                break;
            case TW_HIERARCHICAL:
                cfg.slots = 4;
                cfg.levels = 0;
                break;
            case TW_HIERARCHICAL_COARSE:
                /* the smallest it accepts (twheel.h: 16) */
                cfg.slots = 16;
                cfg.levels = 0;
                break;
            default:
                if (c->cfg.slots == 0)
                    continue; /* no table: tw_config_init() gives it no slots */
                cfg.slots = 16;
                break;
            }
        }
        c->variant = names[variant];
        for (unsigned k = 0; k < test_diff_seeds; k++) {
            c->seed = 1000u * (unsigned)variant + k + 1;
            run_one(c, d, &cfg);
            if (TEST_CASE_FAILED())
                break;
        }
        if (TEST_CASE_FAILED())
            break;
    }
    c->seed = 0;
    c->variant = NULL;
    free(d);
}

const struct test_case test_suite_differential[] = {
    {"differential", case_differential, 1},
};
const size_t test_suite_differential_count =
    sizeof test_suite_differential / sizeof test_suite_differential[0];
