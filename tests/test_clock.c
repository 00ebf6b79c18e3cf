/*
 * test_clock.c -- the clock layer and periodic timers (suite "clock"), on
 * every scheme, with a fake clock the test moves by hand: what is checked
 * is behaviour, never how long anything took.
 *
 *   - rounding: the current time rounds down, a deadline up (and is the
 *     least tick that is not early), over random readings, durations and
 *     tick sizes, and readings near 2^64;
 *   - never early: timers started in ns on the fake clock, the clock moved
 *     by random steps, each firing checked against its start reading + ns;
 *   - poll timeouts at tick and millisecond boundaries, as ms and as
 *     relative and absolute timespecs, with and without slack;
 *   - a clock that goes backwards, and bad input;
 *   - periodic timers: 10^6 periods without drift, each stall policy
 *     against a model under random stalls, stop and restart from the
 *     callback, the end of time, bad input.
 */
#define _POSIX_C_SOURCE 200809L
#include "facility.h" /* the service's reading apart from the cache: internal */
#include "test.h"

#include <limits.h>
#include <time.h>

/* 128-bit values for exact comparisons, built from 64-bit halves (no
 * __int128, which 32-bit targets lack). */
struct wide {
    uint64_t hi, lo;
};

static struct wide wide_mul(uint64_t a, uint64_t b)
{
    struct wide w = {rng_mulhi(a, b), a * b};
    return w;
}

static struct wide wide_add(uint64_t a, uint64_t b)
{
    struct wide w = {0, a + b};
    w.hi = w.lo < a;
    return w;
}

static int wide_lt(struct wide x, struct wide y)
{
    return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo);
}

#define CREATE(name)                  \
    struct tw *name = test_create(c); \
    if (name == NULL)                 \
        return

struct fake {
    uint64_t ns;
};

static uint64_t fake_read(void *ctx)
{
    return ((struct fake *)ctx)->ns;
}

/* A facility on a fake clock at `ns`, ticks of q ns, the case's scheme. */
static struct tw *clocked(struct ctx *c, struct tw_clock *clk, struct fake *f, uint64_t ns,
                          uint64_t q)
{
    f->ns = ns;
    struct tw *tw = NULL;
    if (tw_clock_init_user(clk, fake_read, f, q) != 0) {
        test_fail(__FILE__, __LINE__, "tw_clock_init_user(q = %llu) failed", (unsigned long long)q);
        return NULL;
    }
    struct tw_config cfg = c->cfg;
    int rc = tw_clock_create(&tw, &cfg, clk);
    if (rc != 0) {
        test_fail(__FILE__, __LINE__, "tw_clock_create: %s", tw_strerror(rc));
        return NULL;
    }
    return tw;
}

/* --------------------------------------------------------------- rounding */

static void case_rounding(struct ctx *c)
{
    (void)c;
    struct rng r = {0x636c6f636b31ull};
    static const uint64_t qs[] = {1000, 1024, 999983, 1000000, 1000000000};
    for (int i = 0; i < 200000; i++) {
        struct fake f;
        struct tw_clock clk;
        uint64_t q = qs[rng_below(&r, 5)];
        int big = rng_below(&r, 4) == 0;
        f.ns = big ? UINT64_MAX - rng_below(&r, 1u << 30) : rng_next(&r) >> rng_below(&r, 64);
        ASSERT_OK(tw_clock_init_user(&clk, fake_read, &f, q));
        ASSERT_EQ_U64(tw_clock_update(&clk), f.ns / q);
        ASSERT_EQ_U64(tw_clock_now(&clk), f.ns / q);
        ASSERT_EQ_U64(tw_clock_now_ns(&clk), f.ns);
        uint64_t d = rng_next(&r) >> rng_below(&r, 64);
        tw_time_t t = tw_clock_after(&clk, d);
        struct wide want = wide_add(f.ns, d);
        if (wide_lt(wide_mul(t, q), want)) /* only where the tick saturated */
            ASSERT_EQ_U64(t, TW_TIME_MAX);
        if (t != TW_TIME_MAX && t > 0)
            ASSERT_TRUE(wide_lt(wide_mul(t - 1, q), want)); /* the least such tick */
        ASSERT_EQ_U64(tw_clock_ticks(&clk, d), d / q + (d % q != 0));
        RETURN_IF_FAILED();
    }
}

/* ------------------------------------------------------------ never early */

struct fired {
    struct tw_timer node;
    const struct fake *f;
    uint64_t start_ns, ns;   /* the reading it counts from, its duration */
    uint64_t fired_ns;
    int fired;
};

static void on_fired(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct fired *x = tw_container_of(t, struct fired, node);
    x->fired++;
    x->fired_ns = x->f->ns;
}

static void case_never_early(struct ctx *c)
{
    enum { N = 64 };
    static const uint64_t qs[] = {1000, 1000000, 333333, 1000000000};
    struct rng r = {0x6e6576657231ull ^ c->start};
    for (int round = 0; round < 4; round++) {
        uint64_t q = qs[round];
        struct fake f;
        struct tw_clock clk;
        /* the clock starts anywhere, here near the case's start tick */
        struct tw *tw = clocked(c, &clk, &f, (uint64_t)(c->start % (UINT64_MAX / q)) * q + 17, q);
        RETURN_IF_FAILED();
        struct fired x[N];
        memset(x, 0, sizeof x);
        uint64_t max_d = tw_max_interval(tw) < (1u << 20) ? (tw_max_interval(tw) - 1) * q : q << 12;
        for (int i = 0; i < N; i++) {
            x[i].f = &f;
            tw_timer_init(&x[i].node, on_fired);
        }
        for (int step = 0; step < 4000; step++) {
            int i = (int)rng_below(&r, N);
            if (!tw_timer_pending(&x[i].node) && (uint64_t)f.ns < UINT64_MAX - 2 * max_d) {
                x[i].start_ns = tw_clock_now_ns(&clk);
                x[i].ns = rng_below(&r, max_d + 1);
                x[i].fired = 0;
                ASSERT_OK(tw_clock_start(&clk, tw, &x[i].node, x[i].ns));
            }
            f.ns += rng_below(&r, q * 3 + 1); /* under and over a tick */
            ASSERT_GE_INT((int)tw_advance(tw, tw_clock_update(&clk)), 0);
            for (int k = 0; k < N; k++)
                if (x[k].fired) {
                    ASSERT_EQ_INT(x[k].fired, 1);
                    ASSERT_GE_U64(x[k].fired_ns, x[k].start_ns + x[k].ns); /* never early */
                    x[k].fired = 0;
                }
            RETURN_IF_FAILED();
        }
        ASSERT_OK(tw_destroy(tw));
    }
}

/* ---------------------------------------------------------- poll timeouts */

/* A clock of the caller's near the top of its 64-bit range: a deadline
 * whose tick begins past the last nanosecond it can read never comes, so
 * the loop blocks instead of waking at once, again and again. */
static void case_timeout_end_of_clock(struct ctx *c)
{
    const uint64_t q = 1000;
    struct fake f;
    struct tw_clock clk;
    struct tw *tw = clocked(c, &clk, &f, UINT64_MAX - 10, q);
    RETURN_IF_FAILED();
    struct tw_timer t, u;
    tw_timer_init(&t, NULL);
    tw_timer_init(&u, NULL);
    ASSERT_OK(tw_clock_start(&clk, tw, &t, TW_USEC(5)));
    struct timespec ts = {123, 456};
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(tw_clock_timeout_ms(&clk, tw), -1);
        ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 0);
        ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 1, &ts), 0);
        ASSERT_EQ_INT((int)ts.tv_sec, 123); /* untouched */
        f.ns = UINT64_MAX;
        tw_advance(tw, tw_clock_update(&clk));
        ASSERT_EQ_INT(tw_timer_pending(&t), 1);
    }
    /* a wait of a century (or to the slot before it, in a hierarchical
     * wheel): never a negative tv_sec, which a 32-bit time_t would wrap to
     * (it is clamped there to 2^31 - 1 s) */
    {
        struct tw_clock cc;
        struct fake h = {1000};
        ASSERT_OK(tw_clock_init_user(&cc, fake_read, &h, TW_MSEC(1)));
        struct tw *t3 = NULL;
        ASSERT_OK(tw_clock_create(&t3, &c->cfg, &cc));
        struct tw_timer far;
        tw_timer_init(&far, NULL);
        uint64_t century = TW_SEC(UINT64_C(3155760000));
        if (tw_clock_ticks(&cc, century) <= tw_max_interval(t3)) {
            ASSERT_OK(tw_clock_start(&cc, t3, &far, century));
            for (int abs = 0; abs < 2; abs++) {
                ASSERT_EQ_INT(tw_clock_timeout_ts(&cc, t3, abs, &ts), 1);
                ASSERT_TRUE(ts.tv_sec > 0);
                ASSERT_TRUE(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
            }
        }
        ASSERT_OK(tw_destroy(t3));
    }
    /* a deadline the clock does reach is waited for */
    struct tw_clock low;
    struct fake g = {UINT64_MAX - 5000};
    ASSERT_OK(tw_clock_init_user(&low, fake_read, &g, q));
    struct tw *tw2 = NULL;
    ASSERT_OK(tw_clock_create(&tw2, &c->cfg, &low));
    ASSERT_OK(tw_clock_start(&low, tw2, &u, 1000));
    ASSERT_EQ_INT(tw_clock_timeout_ms(&low, tw2), 1);
    ASSERT_EQ_INT(tw_clock_timeout_ts(&low, tw2, 0, &ts), 1);
    ASSERT_OK(tw_destroy(tw2));
    ASSERT_OK(tw_destroy(tw));
}

/* A wait longer than INT_MAX ms is INT_MAX ms, on every scheme whose
 * range reaches that far; with slack, a timer already due is still a wait
 * of 0 (the slack rounds a wait up, never a due one). */
static void case_timeout_clamp_slack(struct ctx *c)
{
    struct fake f;
    struct tw_clock clk;
    struct tw *tw = clocked(c, &clk, &f, 0, TW_MSEC(1));
    RETURN_IF_FAILED();
    struct tw_timer t;
    tw_timer_init(&t, NULL);
    const tw_time_t far = (tw_time_t)1 << 40; /* ms: 35 years */
    if (tw_max_interval(tw) >= far) {
        ASSERT_OK(tw_start_at(tw, &t, far));
        tw_time_t wake;
        ASSERT_EQ_INT(tw_next_wakeup(tw, &wake), 1);
        ASSERT_EQ_U64(wake, far); /* aligned: every wheel's slot begins there */
        ASSERT_EQ_INT(tw_clock_timeout_ms(&clk, tw), INT_MAX);
        ASSERT_EQ_INT(tw_stop(tw, &t), 1);
    }
    f.ns = TW_MSEC(7);
    tw_advance(tw, tw_clock_update(&clk));
    ASSERT_OK(tw_clock_set_slack(&clk, TW_MSEC(5)));
    ASSERT_OK(tw_start_at(tw, &t, tw_clock_now(&clk))); /* due at once */
    struct timespec ts = {123, 456};
    ASSERT_EQ_INT(tw_clock_timeout_ms(&clk, tw), 0);
    ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 1);
    ASSERT_TRUE(ts.tv_sec == 0 && ts.tv_nsec == 0);
    ASSERT_EQ_INT(tw_advance(tw, tw_clock_now(&clk)), 1);
    ASSERT_OK(tw_destroy(tw));
}

static void case_timeout_boundaries(struct ctx *c)
{
    const uint64_t q = 1000; /* 1 us ticks */
    struct fake f;
    struct tw_clock clk;
    struct tw *tw = clocked(c, &clk, &f, 5000000, q); /* 5 ms, on a tick */
    RETURN_IF_FAILED();
    struct tw_timer t;
    tw_timer_init(&t, NULL);
    struct timespec ts = {123, 456};
    ASSERT_EQ_INT(tw_clock_timeout_ms(&clk, tw), -1); /* nothing pending */
    ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 0);
    ASSERT_TRUE(ts.tv_sec == 123 && ts.tv_nsec == 456); /* untouched */
    static const struct {
        uint64_t d;   /* ns after the reading */
        int ms;       /* the poll timeout */
        uint64_t rel; /* the relative timespec, ns */
    } want[] = {
        {0, 0, 0},                  /* due now */
        {1, 1, 1000},               /* the next tick: 1 us, rounded up to 1 ms */
        {999, 1, 1000},
        {1000, 1, 1000},
        {999999, 1, 1000000},
        {1000000, 1, 1000000},      /* exactly 1 ms */
        {1000001, 2, 1001000},      /* a tick more: 2 ms */
        {2500000, 3, 2500000},
        {UINT64_C(1000000000000000000), INT_MAX, UINT64_C(1000000000000000000)},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (tw_max_interval(tw) < want[i].d / q) {
            ASSERT_EQ_RC(tw_clock_start(&clk, tw, &t, want[i].d), TW_ERANGE);
            continue;
        }
        ASSERT_OK(tw_clock_start(&clk, tw, &t, want[i].d));
        /* The timeouts wait for tw_next_wakeup(), asked first (asking
         * tw_next_expiry() may fill a wheel's cache, which it answers). */
        int ms = tw_clock_timeout_ms(&clk, tw);
        ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 1);
        uint64_t rel = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 1, &ts), 1);
        uint64_t abs = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        ASSERT_EQ_U64(abs, f.ns + rel);
        tw_time_t wake, due;
        ASSERT_EQ_INT(tw_next_wakeup(tw, &wake), 1);
        ASSERT_EQ_INT(tw_next_expiry(tw, &due), 1);
        ASSERT_LE_U64(wake, due);
        if (wake < due) { /* a hierarchical wheel's slot: the wait ends at its tick */
            ASSERT_EQ_U64(f.ns + rel, wake * q);
            ASSERT_LE_U64(rel, want[i].rel);
            ASSERT_LE_INT(ms, want[i].ms);
        } else if (scheme_exact(c->scheme)) {
            ASSERT_EQ_INT(ms, want[i].ms);
            ASSERT_EQ_U64(rel, want[i].rel);
        } else { /* hierarchical_coarse: its rounded-up firing tick, never less */
            ASSERT_GE_INT(ms, want[i].ms);
            ASSERT_GE_U64(rel, want[i].rel);
        }
        ASSERT_EQ_INT(tw_stop(tw, &t), 1);
        RETURN_IF_FAILED();
    }
    /* the reading between ticks: the wait counts from the reading */
    f.ns += 400;
    tw_clock_update(&clk);
    ASSERT_OK(tw_clock_start(&clk, tw, &t, 1000000)); /* due at 6,000,400 ns: tick 6001 */
    int ms = tw_clock_timeout_ms(&clk, tw);
    tw_time_t wake;
    ASSERT_EQ_INT(tw_next_wakeup(tw, &wake), 1);
    if (wake == 6001 && scheme_exact(c->scheme))
        ASSERT_EQ_INT(ms, 2); /* 1,000,600 ns: 2 ms */
    else if (wake < 6001) /* a wheel's slot: tick 5952 (level 1), 951,600 ns */
        ASSERT_EQ_INT(ms, 1);
    ASSERT_EQ_INT(tw_stop(tw, &t), 1);
    /* an absolute timespec is never {0, 0}: at reading 0, due at tick 0 */
    struct fake z = {0};
    struct tw_clock zc;
    struct tw *zt;
    ASSERT_OK(tw_clock_init_user(&zc, fake_read, &z, q));
    struct tw_config cfg = c->cfg;
    ASSERT_OK(tw_clock_create(&zt, &cfg, &zc));
    ASSERT_OK(tw_clock_start(&zc, zt, &t, 0));
    ASSERT_EQ_INT(tw_clock_timeout_ts(&zc, zt, 1, &ts), 1);
    ASSERT_TRUE(ts.tv_sec != 0 || ts.tv_nsec != 0);
    ASSERT_EQ_INT(tw_clock_timeout_ms(&zc, zt), 0);
    ASSERT_OK(tw_destroy(zt));
    ASSERT_OK(tw_destroy(tw));
}

/* Random readings and deadlines: the wait in ms (and in ns) never ends
 * before the deadline; with slack it ends at most one slack later, on a
 * multiple of the slack. */
static void case_timeout_random(struct ctx *c)
{
    struct rng r = {0x74696d656f7574ull};
    static const uint64_t qs[] = {1000, 250000, 1000000, 1000000000};
    for (int round = 0; round < 8; round++) {
        uint64_t q = qs[round % 4], slack = round >= 4 ? 1000000u * (1 + rng_below(&r, 50)) : 0;
        struct fake f;
        struct tw_clock clk;
        struct tw *tw = clocked(c, &clk, &f, rng_next(&r) >> 8, q);
        RETURN_IF_FAILED();
        ASSERT_OK(tw_clock_set_slack(&clk, slack));
        struct tw_timer t;
        tw_timer_init(&t, NULL);
        for (int i = 0; i < 2000; i++) {
            /* a reading between ticks can put the deadline a tick further */
            uint64_t limit =
                tw_max_interval(tw) < (1u << 20) ? (tw_max_interval(tw) - 1) * q : q << 20;
            ASSERT_OK(tw_clock_start(&clk, tw, &t, rng_below(&r, limit)));
            tw_time_t due;
            ASSERT_EQ_INT(tw_next_expiry(tw, &due), 1);
            uint64_t due_ns = due * q; /* far below 2^64 here */
            int ms = tw_clock_timeout_ms(&clk, tw);
            struct timespec ts;
            ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 1);
            uint64_t rel = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
            ASSERT_GE_INT(ms, 0);
            if (due_ns <= f.ns) {
                ASSERT_EQ_INT(ms, 0);
                ASSERT_EQ_U64(rel, 0);
            } else {
                ASSERT_TRUE((uint64_t)ms * 1000000u >= due_ns - f.ns); /* never early */
                ASSERT_GE_U64(f.ns + rel, due_ns);
                if (slack > 1) {
                    ASSERT_LT_U64(f.ns + rel, due_ns + slack);
                    ASSERT_EQ_U64((f.ns + rel) % slack, 0);
                } else {
                    ASSERT_EQ_U64(f.ns + rel, due_ns);
                    ASSERT_LT_U64((uint64_t)ms * 1000000u, (due_ns - f.ns) + 1000000u);
                }
            }
            f.ns += rng_below(&r, 3 * q);
            tw_clock_update(&clk);
            tw_advance(tw, tw_clock_now(&clk));
            RETURN_IF_FAILED();
        }
        ASSERT_OK(tw_destroy(tw));
    }
}

/* An event loop that sleeps until tw_next_wakeup() and advances there:
 * every wake-up is after now and at or before the earliest deadline (the
 * test's own record of them; the coarse wheel's, at the tick its slot
 * fires), no timer fires before its deadline, and a wake-up that fires nothing is followed
 * by a later one.  Half the steps restart the earliest timer far out, as a
 * server's keep-alive timers are, the rest start, stop or restart random
 * ones. */
#define WK_N 512

struct wk_timer {
    struct tw_timer t;
    uint64_t due;     /* its deadline, 0 when idle */
    uint64_t *fired;  /* the test's count */
    uint64_t *late;   /* fired before its deadline: the count */
};

static void wk_fire(struct tw *tw, struct tw_timer *t)
{
    struct wk_timer *w = tw_container_of(t, struct wk_timer, t);
    if (tw_now(tw) < w->due)
        (*w->late)++;
    (*w->fired)++;
    w->due = 0;
}

static void case_wakeup(struct ctx *c)
{
    CREATE(tw);
    static struct wk_timer w[WK_N];
    uint64_t fired = 0, early = 0, empty = 0;
    struct rng r = {0x77616b65ull ^ (uint64_t)c->scheme};
    for (int i = 0; i < WK_N; i++) {
        tw_timer_init(&w[i].t, wk_fire);
        w[i].due = 0;
        w[i].fired = &fired;
        w[i].late = &early;
    }
    uint64_t max = tw_max_interval(tw) < (1u << 20) ? tw_max_interval(tw) : 1u << 20;
    for (int step = 0; step < 4000; step++) {
        for (int k = 0; k < 8; k++) {
            int i = (int)rng_below(&r, WK_N);
            if (rng_pct(&r, 50)) { /* the earliest pending, restarted far out */
                int e = -1;
                for (int j = 0; j < WK_N; j++)
                    if (w[j].due && (e < 0 || w[j].due < w[e].due))
                        e = j;
                i = e < 0 ? i : e;
            }
            if (rng_pct(&r, 20)) {
                ASSERT_TRUE(tw_stop(tw, &w[i].t) >= 0);
                w[i].due = 0;
            } else {
                uint64_t d = 1 + rng_below(&r, max);
                ASSERT_OK(tw_start(tw, &w[i].t, d));
                w[i].due = tw_now(tw) + d;
            }
        }
        uint64_t earliest = 0;
        for (int j = 0; j < WK_N; j++)
            if (w[j].due && (earliest == 0 || w[j].due < earliest))
                earliest = w[j].due;
        tw_time_t wake;
        int rc = tw_next_wakeup(tw, &wake);
        if (earliest == 0) {
            ASSERT_EQ_INT(rc, 0);
            continue;
        }
        ASSERT_EQ_INT(rc, 1);
        ASSERT_GT_U64(wake, tw_now(tw));
        if (scheme_exact(c->scheme)) /* the coarse wheel wakes at its slot's tick */
            ASSERT_LE_U64(wake, earliest);
        uint64_t before = fired;
        ASSERT_TRUE(tw_advance(tw, wake) >= 0);
        if (fired == before) { /* a slot moved down: the next wake-up is later */
            empty++;
            tw_time_t next;
            if (tw_next_wakeup(tw, &next) == 1)
                ASSERT_GT_U64(next, wake);
        }
        RETURN_IF_FAILED();
    }
    ASSERT_EQ_U64(early, 0);
    ASSERT_OK(tw_check(tw, NULL, 0));
    ASSERT_OK(tw_destroy(tw));
}

/* --------------------------------------------------- backwards, bad input */

static void case_backwards(struct ctx *c)
{
    const uint64_t q = 1000000;
    struct fake f;
    struct tw_clock clk;
    struct tw *tw = clocked(c, &clk, &f, UINT64_C(7) << 40, q);
    RETURN_IF_FAILED();
    struct fired x = {0};
    x.f = &f;
    tw_timer_init(&x.node, on_fired);
    x.start_ns = f.ns;
    x.ns = 5 * q;
    ASSERT_OK(tw_clock_start(&clk, tw, &x.node, x.ns));
    tw_time_t now = tw_clock_now(&clk);
    f.ns -= 3 * q; /* the clock goes back */
    ASSERT_EQ_U64(tw_clock_update(&clk), now);
    ASSERT_EQ_U64(tw_clock_now_ns(&clk), x.start_ns);
    ASSERT_EQ_U64(tw_clock_backwards(&clk), 1);
    ASSERT_EQ_INT((int)tw_advance(tw, tw_clock_now(&clk)), 0);
    f.ns += 7 * q; /* 4 ms after the start: not yet */
    tw_advance(tw, tw_clock_update(&clk));
    ASSERT_EQ_INT(x.fired, 0);
    f.ns += 2 * q;
    tw_advance(tw, tw_clock_update(&clk));
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_INT(x.fired, 1);
    } else {
        f.ns += 10 * q;
        tw_advance(tw, tw_clock_update(&clk));
        ASSERT_EQ_INT(x.fired, 1);
    }
    ASSERT_GE_U64(x.fired_ns, x.start_ns + x.ns);
    ASSERT_EQ_U64(tw_clock_backwards(&clk), 1);
    ASSERT_OK(tw_destroy(tw));
}

/* A reading taken apart from the cache (the service reads before it
 * locks): tw_clock_observe() moves the cache forward only, and an older
 * reading (another thread's, taken earlier) is not a clock that went
 * back. */
static void case_observe(struct ctx *c)
{
    (void)c;
    const uint64_t q = 1000;
    struct fake f = {UINT64_C(5) << 30};
    struct tw_clock clk;
    ASSERT_OK(tw_clock_init_user(&clk, fake_read, &f, q));
    uint64_t first = f.ns, r = first + 7 * q + 1;
    ASSERT_EQ_U64(tw_clock_observe(&clk, r), r / q);
    ASSERT_EQ_U64(tw_clock_now_ns(&clk), r);
    ASSERT_EQ_U64(tw_clock_observe(&clk, first), r / q); /* older: kept */
    ASSERT_EQ_U64(tw_clock_now_ns(&clk), r);
    ASSERT_EQ_U64(tw_clock_after(&clk, q), r / q + 2); /* from the cache */
    ASSERT_EQ_U64(tw_clock_backwards(&clk), 0);
}

static void case_clock_bad_input(struct ctx *c)
{
    (void)c;
    struct fake f = {42};
    struct tw_clock clk, before;
    memset(&clk, 0x5a, sizeof clk);
    before = clk;
    ASSERT_EQ_RC(tw_clock_init(NULL, TW_CLOCK_MONOTONIC, 1000000), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init(&clk, TW_CLOCK_MONOTONIC, 999), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init(&clk, TW_CLOCK_MONOTONIC, 1000000001), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init(&clk, TW_CLOCK_USER, 1000000), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init(&clk, (enum tw_clock_source)7, 1000000), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init_user(&clk, NULL, &f, 1000000), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_init_user(&clk, fake_read, &f, 0), TW_EINVAL);
    ASSERT_TRUE(memcmp(&clk, &before, sizeof clk) == 0); /* nothing written */
    /* never initialised: every call refuses or answers 0 */
    ASSERT_EQ_U64(tw_clock_update(&clk), 0);
    ASSERT_EQ_U64(tw_clock_now(&clk), 0);
    ASSERT_EQ_U64(tw_clock_after(&clk, 5), 0);
    ASSERT_EQ_RC(tw_clock_set_slack(&clk, 5), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_set_slack(NULL, 5), TW_EINVAL);
    struct tw *tw = NULL;
    ASSERT_EQ_RC(tw_clock_create(&tw, NULL, &clk), TW_EINVAL);
    ASSERT_NULL(tw);
    ASSERT_OK(tw_clock_init_user(&clk, fake_read, &f, 1000));
    ASSERT_EQ_RC(tw_clock_create(NULL, NULL, &clk), TW_EINVAL);
    /* a configuration refused: the clock has not moved either */
    struct tw_config bad;
    ASSERT_OK(tw_config_init(&bad, TW_HIERARCHICAL));
    bad.slots = 3;
    f.ns = 7777777;
    ASSERT_EQ_RC(tw_clock_create(&tw, &bad, &clk), TW_ECONFIG);
    ASSERT_NULL(tw);
    ASSERT_EQ_U64(tw_clock_now_ns(&clk), 42);
    ASSERT_OK(tw_clock_create(&tw, NULL, &clk));
    ASSERT_EQ_U64(tw_clock_now_ns(&clk), 7777777);
    /* 0, never a negative value, which poll() reads as "block forever" */
    ASSERT_EQ_INT(tw_clock_timeout_ms(&clk, NULL), 0);
    ASSERT_EQ_INT(tw_clock_timeout_ms(NULL, tw), 0);
    struct tw_clock never; /* never initialised */
    memset(&never, 0, sizeof never);
    ASSERT_EQ_INT(tw_clock_timeout_ms(&never, tw), 0);
    struct timespec ts;
    ASSERT_EQ_RC(tw_clock_timeout_ts(&clk, tw, 0, NULL), TW_EINVAL);
    ASSERT_EQ_RC(tw_clock_timeout_ts(NULL, tw, 0, &ts), TW_EINVAL);
    struct tw_timer t;
    tw_timer_init(&t, NULL);
    ASSERT_EQ_RC(tw_clock_start(NULL, tw, &t, 5), TW_EINVAL);
    ASSERT_EQ_INT(tw_timer_pending(&t), 0);
    ASSERT_OK(tw_destroy(tw));
    /* the system clocks: a reading, and time that does not go back */
    ASSERT_OK(tw_clock_init(&clk, TW_CLOCK_MONOTONIC, 1000));
    tw_time_t a = tw_clock_now(&clk), b = tw_clock_update(&clk);
    ASSERT_LE_U64(a, b);
#ifdef __linux__
    ASSERT_OK(tw_clock_init(&clk, TW_CLOCK_BOOTTIME, 1000000));
    ASSERT_LE_U64(tw_clock_now(&clk), tw_clock_update(&clk));
#endif
}

/* ---------------------------------------------------------------- periodic */

struct per {
    struct tw_periodic p;
    uint64_t calls, last_missed, total_missed;
    tw_time_t last_now;
    int stop_at, restart_at; /* stop or restart (period 3) at this call */
    int rc;
};

static void on_period(struct tw *tw, struct tw_periodic *p, uint64_t missed)
{
    struct per *x = tw_container_of(p, struct per, p);
    x->calls++;
    x->last_missed = missed;
    x->total_missed += missed;
    x->last_now = tw_now(tw);
    if (x->stop_at && x->calls == (uint64_t)x->stop_at)
        x->rc = tw_periodic_stop(tw, p);
    if (x->restart_at && x->calls == (uint64_t)x->restart_at)
        x->rc = tw_periodic_start(tw, p, 3);
}

/* 10^6 periods, each fired by an advance to its firing tick: every
 * deadline on the grid t0 + k P, exactly. */
static void case_periodic_drift(struct ctx *c)
{
    CREATE(tw);
    struct per x = {0};
    const tw_time_t P = 7, t0 = tw_now(tw);
    ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_SKIP));
    ASSERT_OK(tw_periodic_start(tw, &x.p, P));
    for (uint64_t k = 1; k <= 1000000; k++) {
        ASSERT_EQ_U64(tw_periodic_next(&x.p), t0 + k * P);
        tw_time_t at;
        ASSERT_EQ_INT(tw_next_expiry(tw, &at), 1);
        ASSERT_EQ_INT((int)tw_advance(tw, at), 1);
        ASSERT_EQ_U64(x.calls, k);
        ASSERT_EQ_U64(tw_periodic_count(&x.p), k);
        ASSERT_EQ_U64(x.last_missed, 0);
        RETURN_IF_FAILED();
    }
    ASSERT_EQ_U64(tw_periodic_next(&x.p), t0 + 1000001 * P);
    ASSERT_EQ_INT(tw_periodic_stop(tw, &x.p), 1);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* Each policy under random stalls, against a model of the grid. */
static void case_periodic_policies(struct ctx *c)
{
    static const enum tw_missed pol[] = {TW_MISSED_BURST, TW_MISSED_SKIP, TW_MISSED_DELAY};
    struct rng r = {0x706f6c69637931ull ^ c->start};
    for (int pi = 0; pi < 3; pi++) {
        CREATE(tw);
        struct per x = {0};
        const tw_time_t P = 1 + rng_below(&r, 100);
        ASSERT_OK(tw_periodic_init(&x.p, on_period, pol[pi]));
        ASSERT_OK(tw_periodic_start(tw, &x.p, P));
        tw_time_t due = tw_periodic_next(&x.p), now = tw_now(tw);
        uint64_t count = 0;
        if (due > TW_TIME_MAX - 100000 * P) { /* the grid would reach the end of time */
            ASSERT_OK(tw_destroy(tw));
            continue;
        }
        for (int step = 0; step < 20000; step++) {
            /* mostly small steps, sometimes a stall over many periods */
            tw_time_t dt = rng_below(&r, 8) == 0 ? rng_below(&r, 20 * P) : rng_below(&r, P);
            now += dt;
            uint64_t calls = x.calls;
            ASSERT_GE_INT((int)tw_advance(tw, now), 0);
            if (x.calls == calls)
                continue;
            ASSERT_EQ_U64(x.calls, calls + 1); /* one expiry per advance */
            ASSERT_EQ_U64(x.last_now, now);
            ASSERT_GE_U64(now, due); /* never early */
            uint64_t m = (now - due) / P;
            switch (pol[pi]) {
            case TW_MISSED_BURST:
                ASSERT_EQ_U64(x.last_missed, 0);
                due += P;
                count += 1;
                break;
            case TW_MISSED_SKIP:
                ASSERT_EQ_U64(x.last_missed, m);
                due += (m + 1) * P;
                count += 1 + m;
                break;
            case TW_MISSED_DELAY:
                /* re-based on now only after a stall: lateness alone
                 * leaves it on the grid */
                ASSERT_EQ_U64(x.last_missed, m);
                due = m == 0 ? due + P : now + P;
                count += 1 + m;
                break;
            }
            ASSERT_EQ_U64(tw_periodic_next(&x.p), due);
            ASSERT_EQ_U64(tw_periodic_count(&x.p), count);
            ASSERT_EQ_INT(tw_timer_pending(&x.p.tw_timer), 1);
            RETURN_IF_FAILED();
        }
        ASSERT_CHECK(tw);
        ASSERT_OK(tw_destroy(tw));
    }
}

static void case_periodic_callback_ops(struct ctx *c)
{
    CREATE(tw);
    struct per x = {0};
    x.stop_at = 3;
    ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_SKIP));
    ASSERT_OK(tw_periodic_start(tw, &x.p, 10));
    tw_time_t now = tw_now(tw);
    for (int i = 0; i < 10; i++)
        tw_advance(tw, now += 10);
    ASSERT_EQ_U64(x.calls, 3);
    ASSERT_EQ_RC(x.rc, 1); /* stopped while re-armed: it was pending */
    ASSERT_EQ_INT(tw_timer_pending(&x.p.tw_timer), 0);
    ASSERT_EQ_INT(tw_periodic_pending(&x.p), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    /* restart from the callback: a new grid from that moment */
    x.stop_at = 0;
    x.restart_at = 5;
    ASSERT_OK(tw_periodic_start(tw, &x.p, 10));
    tw_time_t t0 = tw_now(tw);
    for (int i = 1; i <= 2; i++)
        tw_advance(tw, t0 + (tw_time_t)i * 10);
    ASSERT_EQ_U64(x.calls, 5);
    ASSERT_OK(x.rc);
    ASSERT_EQ_U64(tw_periodic_next(&x.p), t0 + 20 + 3);
    ASSERT_EQ_U64(tw_periodic_count(&x.p), 0);
    tw_time_t at;
    ASSERT_EQ_INT(tw_next_expiry(tw, &at), 1);
    tw_advance(tw, at);
    ASSERT_EQ_U64(x.calls, 6);
    ASSERT_EQ_U64(tw_periodic_next(&x.p), t0 + 20 + 6);
    ASSERT_EQ_INT(tw_periodic_stop(tw, &x.p), 1);
    ASSERT_EQ_INT(tw_periodic_stop(tw, &x.p), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* At the end of time the grid stops: no expiry past its last point (the
 * next one, MAX + 5, is not saturated onto TW_TIME_MAX). */
static void case_periodic_end_of_time(struct ctx *c)
{
    CREATE(tw);
    struct per x = {0};
    ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_BURST));
    tw_time_t first = TW_TIME_MAX - 5;
    int rc = tw_periodic_start_at(tw, &x.p, first, 10);
    if (rc == TW_ERANGE) { /* wheel: the end of time is beyond its range */
        ASSERT_OK(tw_destroy(tw));
        return;
    }
    ASSERT_OK(rc);
    tw_advance(tw, first);
    if (x.calls < 1) /* hierarchical_coarse: its firing tick */
        tw_advance(tw, TW_TIME_MAX);
    ASSERT_EQ_U64(x.calls, 1);
    ASSERT_EQ_INT(tw_periodic_pending(&x.p), 0);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_U64(x.calls, 1);
    ASSERT_EQ_INT(tw_timer_pending(&x.p.tw_timer), 0);
    ASSERT_EQ_INT(tw_periodic_pending(&x.p), 0); /* past its last run */
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* A period of the whole range (the wheel's MaxInterval) is taken and
 * kept: each re-arm is one period after a deadline that was due. */
static void case_periodic_full_range(struct ctx *c)
{
    CREATE(tw);
    struct per x = {0};
    tw_time_t P = tw_max_interval(tw) < 100000 ? tw_max_interval(tw) : 100000;
    ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_BURST));
    tw_time_t t0 = tw_now(tw);
    ASSERT_OK(tw_periodic_start(tw, &x.p, P));
    for (tw_time_t k = 1; k <= 3; k++) {
        tw_time_t at; /* the grid point, or the coarse wheel's firing tick */
        ASSERT_EQ_INT(tw_next_expiry(tw, &at), 1);
        ASSERT_GE_U64(at, t0 + k * P);
        tw_advance(tw, at);
        ASSERT_EQ_U64(x.calls, k);
        ASSERT_EQ_U64(tw_periodic_next(&x.p), t0 + (k + 1) * P);
    }
    ASSERT_EQ_INT(tw_periodic_stop(tw, &x.p), 1);
    ASSERT_OK(tw_destroy(tw));
}

/* SKIP and DELAY at the end of time: the grid points up to TW_TIME_MAX
 * are each counted once, and the timer stops after the expiry that counted
 * the last; with period 1 from tick 0 the count of points skipped is the
 * whole range (no wrap, no expiry after it). */
static void case_periodic_end_of_time_skip(struct ctx *c)
{
    static const enum tw_missed pol[] = {TW_MISSED_SKIP, TW_MISSED_DELAY};
    for (int pi = 0; pi < 2; pi++) {
        CREATE(tw);
        struct per x = {0};
        ASSERT_OK(tw_periodic_init(&x.p, on_period, pol[pi]));
        /* the grid MAX - 10, MAX - 5, MAX */
        int rc = tw_periodic_start_at(tw, &x.p, TW_TIME_MAX - 10, 5);
        if (rc == TW_ERANGE) { /* wheel: the end of time is beyond its range */
            ASSERT_OK(tw_destroy(tw));
            return;
        }
        ASSERT_OK(rc);
        tw_advance(tw, TW_TIME_MAX);
        if (x.calls == 0)
            tw_advance(tw, TW_TIME_MAX);
        ASSERT_EQ_U64(x.calls, 1);
        ASSERT_EQ_U64(x.last_missed, 2);
        ASSERT_EQ_U64(tw_periodic_count(&x.p), 3);
        ASSERT_EQ_INT(tw_periodic_pending(&x.p), 0);
        ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
        ASSERT_EQ_U64(x.calls, 1);
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_OK(tw_destroy(tw));

        /* period 1 from tick 0, first seen at the end of time */
        struct tw_config cfg = c->cfg;
        cfg.start = 0;
        struct tw *t0 = NULL;
        ASSERT_OK(tw_create(&t0, &cfg));
        struct per y = {0};
        ASSERT_OK(tw_periodic_init(&y.p, on_period, pol[pi]));
        ASSERT_OK(tw_periodic_start_at(t0, &y.p, 0, 1));
        tw_advance(t0, TW_TIME_MAX);
        if (y.calls == 0)
            tw_advance(t0, TW_TIME_MAX);
        ASSERT_EQ_U64(y.calls, 1);
        ASSERT_EQ_U64(y.last_missed, TW_TIME_MAX);
        ASSERT_EQ_U64(tw_periodic_count(&y.p), UINT64_MAX); /* saturated */
        ASSERT_EQ_INT(tw_periodic_pending(&y.p), 0);
        ASSERT_EQ_INT(tw_advance(t0, TW_TIME_MAX), 0);
        ASSERT_EQ_U64(y.calls, 1);
        ASSERT_OK(tw_destroy(t0));
        RETURN_IF_FAILED();
    }
}

/* A re-arm that fails for want of memory (a scheme that allocates on
 * start: lawn needs a queue for the new interval) leaves the timer idle
 * when its callback runs, and the callback can see it; every other scheme
 * re-arms.  Either way the facility is whole and a later start works. */
struct per_oom {
    struct per x;
    int pending_in_cb;
};

static void on_period_oom(struct tw *tw, struct tw_periodic *p, uint64_t missed)
{
    on_period(tw, p, missed);
    struct per_oom *o = tw_container_of(p, struct per_oom, x.p);
    o->pending_in_cb = tw_periodic_pending(p);
}

static void case_periodic_rearm_enomem(struct ctx *c)
{
    struct test_alloc ta;
    test_alloc_init(&ta, 1);
    struct tw_config cfg = c->cfg;
    cfg.allocator = &ta.a;
    struct tw *tw = NULL;
    ASSERT_OK(tw_create(&tw, &cfg));
    struct per_oom o;
    memset(&o, 0, sizeof o);
    o.pending_in_cb = -1;
    ASSERT_OK(tw_periodic_init(&o.x.p, on_period_oom, TW_MISSED_BURST));
    tw_time_t t0 = tw_now(tw);
    ASSERT_OK(tw_periodic_start(tw, &o.x.p, 10));
    ta.fail_after = 0;
    /* late by 3: the re-arm's interval is 7, one no queue holds */
    ASSERT_EQ_INT(tw_advance(tw, t0 + 13), 1);
    ASSERT_EQ_U64(o.x.calls, 1);
    ASSERT_EQ_INT(o.pending_in_cb, tw_periodic_pending(&o.x.p));
    if (!o.pending_in_cb) {
        ASSERT_TRUE(scheme_allocates(c->scheme));
        ASSERT_EQ_U64(tw_count(tw), 0);
    } else {
        ASSERT_EQ_U64(tw_periodic_next(&o.x.p), t0 + 20);
        ASSERT_EQ_U64(tw_count(tw), 1);
    }
    ASSERT_CHECK(tw);
    ta.fail_after = -1;
    ASSERT_OK(tw_periodic_start(tw, &o.x.p, 10));
    ASSERT_EQ_INT(tw_advance(tw, t0 + 23), 1);
    ASSERT_EQ_INT(tw_periodic_pending(&o.x.p), 1);
    ASSERT_EQ_U64(tw_periodic_next(&o.x.p), t0 + 33);
    ASSERT_EQ_INT(tw_periodic_stop(tw, &o.x.p), 1);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
    ASSERT_EQ_U64(ta.outstanding, 0);
}

/* tw_clock_periodic_start(): from a reading anywhere in a tick, with a
 * period in ns that is or is not a whole number of ticks, the k-th expiry
 * comes at or after reading + k * ns, on a loop that sleeps what
 * tw_clock_timeout_ts() says. */
static void case_periodic_clock(struct ctx *c)
{
    static const uint64_t qs[] = {1000000, 333333, 1000};
    struct rng r = {0x7065726370ull ^ c->start};
    for (int round = 0; round < 12; round++) {
        uint64_t q = qs[round % 3];
        struct fake f;
        struct tw_clock clk;
        struct tw *tw = clocked(c, &clk, &f, UINT64_C(5000000000) + rng_below(&r, q), q);
        RETURN_IF_FAILED();
        uint64_t ns = round < 6 ? q * (1 + rng_below(&r, 20)) : 1 + rng_below(&r, 20 * q);
        if (tw_clock_ticks(&clk, ns) > tw_max_interval(tw))
            ns = q * (tw_max_interval(tw) / 2);
        struct per x = {0};
        ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_SKIP));
        uint64_t t0 = tw_clock_now_ns(&clk);
        ASSERT_OK(tw_clock_periodic_start(&clk, tw, &x.p, ns));
        uint64_t count = 0;
        for (int step = 0; step < 300; step++) {
            struct timespec ts;
            ASSERT_EQ_INT(tw_clock_timeout_ts(&clk, tw, 0, &ts), 1);
            f.ns += (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
            ASSERT_GE_INT((int)tw_advance(tw, tw_clock_update(&clk)), 0);
            if (tw_periodic_count(&x.p) != count) {
                count = tw_periodic_count(&x.p);
                ASSERT_GE_U64(f.ns, t0 + count * ns); /* never early */
            }
            RETURN_IF_FAILED();
        }
        ASSERT_GT_U64(count, 0);
        ASSERT_EQ_RC(tw_clock_periodic_start(NULL, tw, &x.p, ns), TW_EINVAL);
        ASSERT_EQ_RC(tw_clock_periodic_start(&clk, tw, &x.p, 0), TW_EINVAL);
        ASSERT_EQ_INT(tw_periodic_pending(&x.p), 1);
        ASSERT_OK(tw_destroy(tw));
    }
}

/* The count does not depend on lateness at the end of time: the grid
 * MAX - 7, MAX - 2 (the next point, MAX + 3, is past the end), fired on
 * time or all at once at TW_TIME_MAX, counts 2 in every policy and stops. */
static void case_periodic_end_of_grid(struct ctx *c)
{
    static const enum tw_missed pol[] = {TW_MISSED_BURST, TW_MISSED_SKIP, TW_MISSED_DELAY};
    for (int pi = 0; pi < 3; pi++)
        for (int late = 0; late < 2; late++) {
            CREATE(tw);
            struct per x = {0};
            ASSERT_OK(tw_periodic_init(&x.p, on_period, pol[pi]));
            int rc = tw_periodic_start_at(tw, &x.p, TW_TIME_MAX - 7, 5);
            if (rc == TW_ERANGE) { /* wheel: beyond its range */
                ASSERT_OK(tw_destroy(tw));
                return;
            }
            ASSERT_OK(rc);
            if (!late)
                tw_advance(tw, TW_TIME_MAX - 7);
            for (int i = 0; i < 3; i++) /* as often as the grid asks */
                tw_advance(tw, TW_TIME_MAX);
            ASSERT_EQ_U64(tw_periodic_count(&x.p), 2);
            ASSERT_EQ_INT(tw_periodic_pending(&x.p), 0);
            ASSERT_EQ_U64(tw_count(tw), 0);
            ASSERT_OK(tw_destroy(tw));
            RETURN_IF_FAILED();
        }
}

static void case_periodic_bad_input(struct ctx *c)
{
    CREATE(tw);
    struct per x = {0};
    struct tw_periodic raw;
    memset(&raw, 0, sizeof raw);
    ASSERT_EQ_RC(tw_periodic_init(NULL, on_period, TW_MISSED_SKIP), TW_EINVAL);
    ASSERT_EQ_RC(tw_periodic_init(&x.p, NULL, TW_MISSED_SKIP), TW_EINVAL);
    ASSERT_EQ_RC(tw_periodic_init(&x.p, on_period, (enum tw_missed)9), TW_EINVAL);
    /* never initialised: TW_ENOTINIT, as for a node */
    ASSERT_EQ_RC(tw_periodic_start(tw, &raw, 5), TW_ENOTINIT);
    ASSERT_EQ_RC(tw_periodic_start_at(tw, &raw, 5, 5), TW_ENOTINIT);
    ASSERT_EQ_RC(tw_periodic_stop(tw, &raw), TW_ENOTINIT);
    ASSERT_EQ_INT(tw_periodic_pending(&raw), 0);
    ASSERT_EQ_RC(tw_periodic_start(tw, NULL, 5), TW_EINVAL);
    ASSERT_EQ_RC(tw_periodic_stop(tw, NULL), TW_EINVAL);
    ASSERT_EQ_INT(tw_periodic_pending(NULL), 0);
    ASSERT_OK(tw_periodic_init(&x.p, on_period, TW_MISSED_SKIP));
    ASSERT_EQ_RC(tw_periodic_start(tw, &x.p, 0), TW_EINVAL);
    ASSERT_EQ_RC(tw_periodic_start(NULL, &x.p, 5), TW_EINVAL);
    ASSERT_EQ_INT(tw_timer_pending(&x.p.tw_timer), 0);
    ASSERT_OK(tw_periodic_start(tw, &x.p, 5));
    tw_time_t next = tw_periodic_next(&x.p);
    if (tw_max_interval(tw) != TW_TIME_MAX) {
        /* wheel: a period beyond its range is refused, the timer unchanged */
        ASSERT_EQ_RC(tw_periodic_start(tw, &x.p, tw_max_interval(tw) + 1), TW_ERANGE);
        ASSERT_EQ_U64(tw_periodic_next(&x.p), next);
    }
    ASSERT_EQ_RC(tw_periodic_start(tw, &x.p, 0), TW_EINVAL);
    ASSERT_EQ_U64(tw_periodic_next(&x.p), next); /* still pending, unchanged */
    ASSERT_EQ_INT(tw_timer_pending(&x.p.tw_timer), 1);
    ASSERT_EQ_INT(tw_periodic_pending(&x.p), 1);
    ASSERT_EQ_U64(tw_periodic_count(NULL), 0);
    ASSERT_EQ_U64(tw_periodic_next(NULL), 0);
    ASSERT_OK(tw_destroy(tw));
}

/* ---------------------------------------------------------------- suite */

const struct test_case test_suite_clock[] = {
    {"rounding", case_rounding, 0},
    {"never_early", case_never_early, 1},
    {"timeout_boundaries", case_timeout_boundaries, 0},
    {"timeout_random", case_timeout_random, 0},
    {"timeout_end_of_clock", case_timeout_end_of_clock, 0},
    {"timeout_clamp_slack", case_timeout_clamp_slack, 0},
    {"wakeup", case_wakeup, 0},
    {"backwards", case_backwards, 0},
    {"observe", case_observe, 0},
    {"clock_bad_input", case_clock_bad_input, 0},
    {"periodic_drift", case_periodic_drift, 0},
    {"periodic_policies", case_periodic_policies, 1},
    {"periodic_callback_ops", case_periodic_callback_ops, 1},
    {"periodic_end_of_time", case_periodic_end_of_time, 0},
    {"periodic_full_range", case_periodic_full_range, 0},
    {"periodic_end_of_time_skip", case_periodic_end_of_time_skip, 0},
    {"periodic_end_of_grid", case_periodic_end_of_grid, 0},
    {"periodic_rearm_enomem", case_periodic_rearm_enomem, 0},
    {"periodic_clock", case_periodic_clock, 0},
    {"periodic_bad_input", case_periodic_bad_input, 0},
};
const size_t test_suite_clock_count = sizeof test_suite_clock / sizeof test_suite_clock[0];
