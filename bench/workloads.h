/*
 * workloads.h -- the twbench workloads, written once for every target.
 *
 * Include this file once, after defining the driver of the target:
 *
 *     struct drv;                                   the target's state
 *     static int  drv_open(struct drv *, const struct wl_spec *, size_t nodes,
 *                          struct wl_ctx *);        0, or -1 with a message;
 *                                                   sets ctx->nodes
 *     static void drv_close(struct drv *);
 *     static void drv_start(struct drv *, size_t i, uint64_t interval);
 *     static void drv_stop(struct drv *, size_t i);
 *     static void drv_restart(struct drv *, size_t i, uint64_t interval);
 *                          a pending timer moved to now + interval by the
 *                          target's own one call for it
 *     static void drv_advance(struct drv *, uint64_t now);   absolute tick
 *     static size_t drv_node_bytes(void);
 *     static size_t drv_facility_bytes(struct drv *);
 *     static void drv_check(struct drv *, const char *when); dies if broken
 *
 * and WL_RUN, the name of the entry point to generate (a wl_run_fn).  The
 * driver functions are static and called directly, so the compiler inlines
 * them: a figure is what the target's own calls cost.  Nodes are indexed
 * 0..nodes-1 and live in one array; a driver's expiry callback calls
 * wl_fired(ctx, index) and, when ctx->rearm is set, restarts the timer with
 * an interval drawn from ctx->rng in [ctx->lo, ctx->hi].
 *
 * Every random choice (intervals, victims, start order) comes from the spec's
 * seed, so every target sees the same operations in the same order.  Setup
 * phases start the timers in a random order of the node array, so that
 * neighbours in memory are not neighbours in the structure.
 *
 * Repetitions.  Every workload runs one warm-up window and then spec->reps
 * measured windows, each timed as a whole with CLOCK_MONOTONIC (never per
 * operation).  In the steady-state workloads (startstop, churn, tcp, idle, tick,
 * ttl) the windows are successive stretches of the same run on one facility,
 * which the window before leaves in the same state as it found it (n timers
 * pending, same distributions): setting n timers up costs more than
 * measuring them, and at n = 1e6 a fresh setup per repetition would not fit
 * the time budget.  expire empties its facility, so each of its windows is a
 * fresh facility (the warm-up one at n at most 1e5).
 *
 * The generator.  Each timed loop draws from a copy of the workload's
 * generator in a local (struct rng lr = *r; ... *r = lr;), whose address
 * never leaves the loop, so that the compiler keeps its one word in a
 * register.  Reached through the pointer, it was written back to memory
 * before every call into the target, which might read it: one store per
 * operation of the harness's own, paid by every target.  The draws are the
 * same.  (Its effect on the figures is within this machine's noise:
 * docs/benchmarks.md, "The harness's generator".)
 *
 * Counts.  Each timed phase is bracketed by counters_begin() before its
 * first clock read and counters_end() after its last (counters.h), so that
 * the hardware counters or callgrind count the same interval the clock
 * times, and never add to it; wl_counted() then takes a window's counts of
 * one figure (res[w].cnt for ns_per_op, res[w].cnt2 for ns2).  Without a
 * source of counts they return at once.
 */
#ifndef WL_RUN
#error "define WL_RUN and the driver before including workloads.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Move a uniform random sample of k of p[0..n) to p[0..k), in random
 * order (the first k steps of a Fisher-Yates shuffle; k = n - 1 shuffles
 * the whole array). */
static void wl_sample(uint32_t *p, size_t n, size_t k, struct rng *r)
{
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)rng_below(r, n - i);
        uint32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* Sort p[0..n) by key[p[i]], ascending. */
struct wl_kv {
    uint64_t k;
    uint32_t v;
};

static int wl_cmp_kv(const void *a, const void *b)
{
    uint64_t x = ((const struct wl_kv *)a)->k, y = ((const struct wl_kv *)b)->k;
    return (x > y) - (x < y);
}

static void wl_sort_by(uint32_t *p, size_t n, const uint64_t *key)
{
    struct wl_kv *a = malloc((n ? n : 1) * sizeof *a);
    if (a == NULL)
        bench_die("out of memory sorting %zu timers", n);
    for (size_t i = 0; i < n; i++) {
        a[i].k = key[p[i]];
        a[i].v = p[i];
    }
    qsort(a, n, sizeof *a, wl_cmp_kv);
    for (size_t i = 0; i < n; i++)
        p[i] = a[i].v;
    free(a);
}

/* A random permutation of 0..n-1. */
static uint32_t *wl_perm(size_t n, struct rng *r)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    if (p == NULL)
        bench_die("out of memory for %zu indices", n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint32_t)i;
    wl_sample(p, n, n ? n - 1 : 0, r);
    return p;
}

/* Start timers 0..n-1, in a random order, with intervals in [lo, hi]. */
static void wl_fill(struct drv *d, size_t n, struct rng *r, uint64_t lo, uint64_t hi)
{
    uint32_t *p = wl_perm(n, r);
    for (size_t i = 0; i < n; i++)
        drv_start(d, p[i], rng_range(r, lo, hi));
    free(p);
}

static double wl_per(uint64_t ns, uint64_t ops)
{
    return ops ? (double)ns / (double)ops : 0.0;
}

/* What the counters counted since the last take: window w's phases of
 * figure fig (1: ns_per_op, 2: ns2). */
static void wl_counted(struct wl_counts *out, int w, int fig)
{
    char label[240];
    snprintf(label, sizeof label, "%s, window %d, figure %d", bench_where, w, fig);
    counters_take(out, label);
}

static void wl_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->rng.s = s->seed ^ 0x5bd1e9955bd1e995u;
    if (drv_open(d, s, nodes, c))
        bench_die("could not open the target");
}

/* Record what every window shares. */
static void wl_note_memory(const struct wl_spec *s, struct wl_result *res, size_t bytes)
{
    for (int w = 0; w <= s->reps; w++)
        res[w].facility_bytes = bytes;
}

/*
 * startstop: n timers pending with intervals in [lo, hi]; then, per window,
 * `ops` times: pick a random timer, stop it, start it again with a fresh
 * interval.  Figure: ns per stop+start pair, with n outstanding throughout.
 */
static void wl_startstop(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c;
    wl_open(&d, s, s->n, &c);
    wl_fill(&d, s->n, r, s->lo, s->hi);
    wl_note_memory(s, res, drv_facility_bytes(&d));
    if (s->check)
        drv_check(&d, "after setup");
    for (int w = 0; w <= s->reps; w++) {
        struct rng lr = *r;
        counters_begin();
        uint64_t t1 = bench_now_ns();
        for (uint64_t k = 0; k < s->ops; k++) {
            size_t i = (size_t)rng_below(&lr, s->n);
            drv_stop(&d, i);
            drv_start(&d, i, rng_range(&lr, s->lo, s->hi));
        }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt, w, 1);
        *r = lr;
        res[w].ops = s->ops;
        res[w].ns_per_op = wl_per(t2 - t1, s->ops);
        res[w].live = s->n;
    }
    if (s->check)
        drv_check(&d, "after the stop+start pairs");
    drv_close(&d);
}

/*
 * churn (the paper's Fig. 9 experiment, on the plain API): n timers set far
 * in the future, intervals in [lo, hi]; one more timer is then, per window,
 * `ops` times stopped and restarted at a random interval in [hi + 1, 2 hi],
 * i.e. always farther out than all the others, as the paper's test did with
 * untimeout()/timeout().  Time never advances.  Figure: ns per stop+start of
 * that timer.  Second figure (churn-any): see below.
 *
 * restart (s->restart): the same operations, each one call of the target's
 * own restart of a pending timer instead of a stop and a start: tw_start()
 * on a pending timer (the kernel's mod_timer()), libev's ev_timer_again(),
 * libuv's uv_timer_start() and libevent's event_add() on an active timer.
 * Same seed as churn, so the same victims and intervals.
 */
static void wl_churn(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c;
    wl_open(&d, s, s->n + 1, &c);
    wl_fill(&d, s->n, r, s->lo, s->hi);
    drv_start(&d, s->n, rng_range(r, s->hi + 1, 2 * s->hi));
    wl_note_memory(s, res, drv_facility_bytes(&d));
    if (s->check)
        drv_check(&d, "after setup");
    for (int w = 0; w <= s->reps; w++) {
        struct rng lr = *r;
        counters_begin();
        uint64_t t1 = bench_now_ns();
        if (s->restart)
            for (uint64_t k = 0; k < s->ops; k++)
                drv_restart(&d, s->n, rng_range(&lr, s->hi + 1, 2 * s->hi));
        else
            for (uint64_t k = 0; k < s->ops; k++) {
                drv_stop(&d, s->n);
                drv_start(&d, s->n, rng_range(&lr, s->hi + 1, 2 * s->hi));
            }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt, w, 1);
        *r = lr;
        res[w].ops = s->ops;
        res[w].ns_per_op = wl_per(t2 - t1, s->ops);
        res[w].live = s->n + 1;
    }
    if (s->check)
        drv_check(&d, "after churning");
    /* churn-any, the second figure: the same, but the timer stopped and
     * restarted is a random one of the n (a cold node at large n), and each
     * restart goes beyond every deadline pending (intervals from 2 hi + 1
     * up, one tick more each time): the paper's Fig. 9 test with a cold
     * timer (libev ~210 ns at 10^6 on a slower day: its stop deletes from
     * a random place in its heap). */
    uint64_t far = 2 * s->hi + 1;
    for (int w = 0; w <= s->reps; w++) {
        struct rng lr = *r;
        counters_begin();
        uint64_t t1 = bench_now_ns();
        if (s->restart)
            for (uint64_t k = 0; k < s->ops; k++)
                drv_restart(&d, (size_t)rng_below(&lr, s->n), far++);
        else
            for (uint64_t k = 0; k < s->ops; k++) {
                size_t i = (size_t)rng_below(&lr, s->n);
                drv_stop(&d, i);
                drv_start(&d, i, far++);
            }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt2, w, 2);
        *r = lr;
        res[w].ns2 = wl_per(t2 - t1, s->ops);
        res[w].ops2 = s->ops;
    }
    if (s->check)
        drv_check(&d, "after churning random timers");
    drv_close(&d);
}

/* The warm-up window of expire runs at most this many timers. */
#define WL_EXPIRE_WARM_N 100000u
/* expire-jump's longest interval and jump: WL_EXPIRE_JUMP (bench.h). */

/*
 * expire: start n timers with intervals in [lo, hi] (timed), then advance one
 * tick at a time until every one has fired (timed); the callback counts and
 * reads the node.  Figure: ns per timer for both phases together.  A target
 * that fires a timer only after its deadline (libev) needs one tick more.
 * Each window is a fresh facility.
 *
 * expire-jump, the second figure, in the same window once all have fired:
 * the same nodes started again in the same order with intervals in
 * [1, 2^40 - now] (now = the last tick of the first phase, about 2^16; the
 * wheel: [1, MaxInterval]), then one advance by WL_EXPIRE_JUMP + 1 ticks,
 * which fires them all (timed): every deadline is at or below 2^40, which
 * hierarchical_coarse's rounding up keeps (2^40 is a multiple of the step
 * of every level that holds such a deadline).  Figure: ns per
 * timer of that one advance; times n, the advance's time (milliseconds
 * for 10^6 timers in the wheels).
 */
static void wl_expire(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    for (int w = 0; w <= s->reps; w++) {
        size_t n = w == 0 && s->n > WL_EXPIRE_WARM_N ? WL_EXPIRE_WARM_N : s->n;
        struct drv d;
        struct wl_ctx c;
        wl_open(&d, s, n, &c);
        uint32_t *p = wl_perm(n, r);
        uint64_t *iv = malloc((n ? n : 1) * sizeof *iv);
        if (iv == NULL)
            bench_die("out of memory for %zu intervals", n);
        for (size_t i = 0; i < n; i++)
            iv[i] = rng_range(r, s->lo, s->hi);
        counters_begin();
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < n; i++)
            drv_start(&d, p[i], iv[i]);
        uint64_t t1 = bench_now_ns();
        counters_end();
        res[w].facility_bytes = drv_facility_bytes(&d);
        if (s->check)
            drv_check(&d, "after the starts");
        uint64_t limit = s->hi + 2, now = 0;
        counters_begin();
        uint64_t t2 = bench_now_ns();
        while (c.fired < n) {
            drv_advance(&d, ++now);
            if (now > limit)
                bench_die("expire: %llu of %zu timers fired by tick %llu (longest interval %llu)",
                          (unsigned long long)c.fired, n, (unsigned long long)now,
                          (unsigned long long)s->hi);
        }
        uint64_t t3 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt, w, 1);
        if (c.fired != n)
            bench_die("expire: %llu callbacks for %zu timers", (unsigned long long)c.fired, n);
        if (s->check)
            drv_check(&d, "after expiry");
        /* deadlines at or below 2^40 (now is about 2^16 here), a multiple
         * of every step of the coarse wheel's levels that hold them, so
         * that its rounding up stays within the jump too */
        uint64_t jhi = s->hi2 < WL_EXPIRE_JUMP ? s->hi2 : WL_EXPIRE_JUMP - now;
        for (size_t i = 0; i < n; i++)
            iv[i] = rng_range(r, 1, jhi);
        for (size_t i = 0; i < n; i++)
            drv_start(&d, p[i], iv[i]);
        counters_begin();
        uint64_t t4 = bench_now_ns();
        drv_advance(&d, now + WL_EXPIRE_JUMP + 1);
        uint64_t t5 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt2, w, 2);
        if (c.fired != 2 * (uint64_t)n)
            bench_die("expire-jump: %llu of %zu timers fired by the jump",
                      (unsigned long long)(c.fired - n), n);
        if (s->check)
            drv_check(&d, "after the jump");
        drv_close(&d);
        free(iv);
        free(p);
        res[w].phase1_ns = t1 - t0;
        res[w].phase2_ns = t3 - t2;
        res[w].ops = n;
        res[w].fired = n; /* the tick-by-tick phase's */
        res[w].advances = now;
        res[w].ns_per_op = wl_per(res[w].phase1_ns + res[w].phase2_ns, n);
        res[w].ns2 = wl_per(t5 - t4, n);
        res[w].ops2 = n;
    }
}

/* idle's timers as its steady state has them from the first step: each
 * one last reset an exponentially distributed time ago (mean I/20, the
 * reset rate), so its deadline is now + I - age, where an age beyond I
 * counts from the fresh timeout its expiry started: the exponential taken
 * modulo I.  (tcp's uniform initial intervals would go on expiring long
 * after the warm-up.) */
static void wl_fill_idle(struct drv *d, size_t n, struct rng *r, uint64_t idle)
{
    uint32_t *p = wl_perm(n, r);
    for (size_t i = 0; i < n; i++) {
        double u = ((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53; /* (0, 1) */
        /* an age beyond I is that much beyond the fresh timeout's start */
        uint64_t a = (uint64_t)fmod(-log(u) * (double)idle / 20.0, (double)idle);
        drv_start(d, p[i], idle - a);
    }
    free(p);
}

/*
 * tcp: the steady state of n connections, each with one retransmission /
 * idle timer of interval uniform in [lo, hi] (I = hi).  Exactly:
 *
 *   - time advances one tick per step (drv_advance(now + 1));
 *   - after each advance, r = 20 n / I random timers are stopped and started
 *     again with a fresh interval (a segment was acknowledged, the timer is
 *     reset); r is fractional, carried in a 32.32 fixed-point accumulator;
 *   - a timer that expires is restarted from its callback (the retransmit),
 *     so n stay outstanding.
 *
 * Each timer is reset at rate 20/I per tick, so a lifetime of length d ends
 * in expiry with probability exp(-20 d / I); averaged over d uniform in
 * [1, I] that is 1/20: about 95% of timers are stopped before they expire.
 * The measured share is reported.  After I/16 steps of untimed warm-up
 * (each timer reset about 1.25 times), each window runs enough steps for
 * about `ops` restarts.
 * Figure: ns per operation, an operation being one restart or one expiry
 * (with its restart), each carrying its share of the per-tick advances.
 *
 * idle (s->restart): the same steps, but each connection's timer is an
 * idle timeout of fixed length I: a reset pushes it back to now + I with
 * one call of the target's restart of a pending timer (drv_restart(), as
 * in restart), and an expiry starts a fresh one of length I.  A reset
 * moves the deadline by the time since the last one (about I/20 on
 * average), the pattern of a server's idle and keepalive timers (libev's
 * documentation, "Be smart about timeouts"); almost none expire.  The
 * timers start in that steady state (wl_fill_idle()).
 */
static void wl_tcp(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c;
    const double rate = 20.0 * (double)s->n / (double)s->hi;
    const uint64_t rate_fp = (uint64_t)(rate * 4294967296.0);
    const uint64_t warm = s->hi / 16 ? s->hi / 16 : 1;
    const uint64_t steps = (uint64_t)((double)s->ops / rate) + 1;

    wl_open(&d, s, s->n, &c);
    if (s->restart)
        wl_fill_idle(&d, s->n, r, s->hi);
    else
        wl_fill(&d, s->n, r, s->lo, s->hi);
    wl_note_memory(s, res, drv_facility_bytes(&d));
    c.rearm = 1;
    c.lo = s->restart ? s->hi : s->lo;
    c.hi = s->hi;

    uint64_t now = 0, acc = 0;
    for (int w = -1; w <= s->reps; w++) {
        uint64_t todo = w < 0 ? warm : steps, stops = 0, fired0 = c.fired;
        struct rng lr = *r;
        struct wl_counts warm_cnt;
        counters_begin();
        uint64_t t1 = bench_now_ns();
        for (uint64_t step = 0; step < todo; step++) {
            drv_advance(&d, ++now);
            acc += rate_fp;
            for (uint64_t k = acc >> 32; k; k--) {
                size_t i = (size_t)rng_below(&lr, s->n);
                if (s->restart) {
                    drv_restart(&d, i, s->hi);
                } else {
                    drv_stop(&d, i);
                    drv_start(&d, i, rng_range(&lr, s->lo, s->hi));
                }
                stops++;
            }
            acc &= 0xffffffffu;
        }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(w < 0 ? &warm_cnt : &res[w].cnt, w, 1);
        *r = lr;
        if (w < 0) {
            if (s->check)
                drv_check(&d, "after warm-up");
            continue;
        }
        res[w].stops = stops;
        res[w].fired = c.fired - fired0;
        res[w].ops = stops + res[w].fired;
        res[w].advances = todo;
        res[w].phase1_ns = t2 - t1;
        res[w].ns_per_op = wl_per(t2 - t1, res[w].ops);
        res[w].live = s->n;
    }
    if (s->check)
        drv_check(&d, "after the timed steps");
    drv_close(&d);
}

/* The long jumps of tick, part 2, and where its timers are: WL_JUMP,
 * WL_JUMP_LO and WL_JUMP_HI (bench.h). */

/* Jumps per window: as many as fit, at most 16 (one jump is too short to
 * time alone: a clock read costs as much). */
static uint64_t wl_jumps(int reps)
{
    uint64_t j = (WL_JUMP_LO / WL_JUMP) / (uint64_t)(reps + 1) / 2;
    return j > 16 ? 16 : j ? j : 1;
}

/*
 * tick: n timers pending with intervals in [2^43, 2^44) (the spec's lo, hi),
 * far beyond everything below.  Part 1: per window `ops` advances of one
 * tick each, nothing due.  Figure: ns per advance.  Part 2 (the second
 * figure, tick-jump), on the same timers: per window up to 16 advances of
 * 2^36 ticks each (19 hours in microseconds, 2 years in milliseconds),
 * over which nothing is due.  Figure: ns per jump.
 */
static void wl_tick(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c;
    wl_open(&d, s, s->n, &c);
    wl_fill(&d, s->n, r, s->lo, s->hi);
    wl_note_memory(s, res, drv_facility_bytes(&d));
    if (s->check)
        drv_check(&d, "after setup");
    const uint64_t jumps = wl_jumps(s->reps);
    if ((uint64_t)(s->reps + 1) * (s->ops + jumps * WL_JUMP) >= s->lo)
        bench_die("tick: the windows would reach the timers");
    uint64_t now = 0;
    for (int w = 0; w <= s->reps; w++) {
        counters_begin();
        uint64_t t1 = bench_now_ns();
        for (uint64_t k = 0; k < s->ops; k++)
            drv_advance(&d, ++now);
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt, w, 1);
        res[w].ops = s->ops;
        res[w].advances = s->ops;
        res[w].ns_per_op = wl_per(t2 - t1, s->ops);
        res[w].live = s->n;
    }
    if (c.fired)
        bench_die("tick: %llu timers fired early", (unsigned long long)c.fired);
    if (s->check)
        drv_check(&d, "after the advances");
    for (int w = 0; w <= s->reps; w++) {
        counters_begin();
        uint64_t t1 = bench_now_ns();
        for (uint64_t k = 0; k < jumps; k++) {
            now += WL_JUMP;
            drv_advance(&d, now);
        }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(&res[w].cnt2, w, 2);
        res[w].ns2 = wl_per(t2 - t1, jumps);
        res[w].ops2 = jumps;
    }
    if (c.fired)
        bench_die("tick: %llu timers fired early in the jumps", (unsigned long long)c.fired);
    if (s->check)
        drv_check(&d, "after the jumps");
    drv_close(&d);
}

/* The timers a ttl run may need: n pending plus the run's fluctuation. */
static size_t wl_ttl_nodes(size_t n)
{
    return n + n / 4 + 1024;
}

/* A random idle node, taken out of the pool. */
static inline size_t wl_take(struct wl_ctx *c, struct rng *r)
{
    if (__builtin_expect(c->npool == 0, 0))
        bench_die("ttl: more timers pending than the node pool holds");
    size_t j = (size_t)rng_below(r, c->npool);
    size_t i = c->pool[j];
    c->pool[j] = c->pool[--c->npool];
    return i;
}

/*
 * ttl: timers with few or many distinct TTLs, started and expiring
 * continuously (the load of a cache, a session table, a rate limiter).
 * Exactly:
 *
 *   - the TTL set: D values spread evenly over [R, 2R), R = 10^6 ticks:
 *     ttl_k = R + floor((2k + 1) R / 2D), k = 0..D-1 (D = 1: 1.5 R);
 *     ttl-1, ttl-8, ttl-64 use D = 1, 8, 64; ttl-many D = 10^5;
 *   - starts arrive at the constant rate n / mu per tick (mu the mean TTL),
 *     carried in a 32.32 fixed-point accumulator, so that n timers are
 *     pending in the steady state; each start takes a random idle node
 *     from a pool (so start order is not memory order) and a TTL uniform
 *     over the set;
 *   - one step: advance the clock to the next tick at which a start is due
 *     (one call to advance, even when that skips ticks in which nothing
 *     starts: at n = 1e6 a start is due every 1.5 ticks, at n = 1e4 every
 *     150), which fires every timer due by then, and make those starts.  A
 *     timer that fires goes back to the pool; none is restarted;
 *   - warm-up: steps for 2R ticks (the longest TTL), untimed, after which
 *     the pending count is n and expiries match starts;
 *   - each window: the steps that make `ops` starts, timed as a whole.
 *     Figure: ns per timer, i.e. the window's time (starts, advances,
 *     callbacks) divided by its starts, which in the steady state equal its
 *     expiries;
 *   - then the second figure, ns per stop: per window, rounds of
 *     K = min(2^15, n/4) pending timers are stopped (timed), then started
 *     again with fresh TTLs (untimed) so that n stay pending, until the
 *     window holds at least 2^16 stops.  Each round is a uniform random
 *     sample of the pending timers, drawn afresh (untimed).  ttl-8-fifo
 *     (stop_fifo) instead stops the K started longest ago, oldest first,
 *     as request timeouts go when requests are answered in the order they
 *     came: every stop is of the earliest timer of its TTL, in Lawn the
 *     head of its queue.  (The pending timers are listed in start order
 *     once, untimed; each round takes the next K of that list, circularly,
 *     copied out untimed, and the restarts, made in that order, put them
 *     at the end of the start order, where the list has them.)
 */
static void wl_ttl(const struct wl_spec *s, struct rng *r, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c;
    const uint64_t D = s->ttls ? s->ttls : 1;
    uint64_t *ttl = malloc(D * sizeof *ttl);
    if (ttl == NULL)
        bench_die("out of memory for %llu TTLs", (unsigned long long)D);
    double mean = 0;
    for (uint64_t k = 0; k < D; k++) {
        ttl[k] = TTL_R + (2 * k + 1) * TTL_R / (2 * D);
        mean += (double)ttl[k] / (double)D;
    }
    const uint64_t rate_fp = (uint64_t)((double)s->n / mean * 4294967296.0) + 1;
    const size_t nodes = wl_ttl_nodes(s->n);

    wl_open(&d, s, nodes, &c);
    c.pool = malloc(nodes * sizeof *c.pool);
    if (c.pool == NULL)
        bench_die("out of memory for a pool of %zu", nodes);
    for (size_t i = 0; i < nodes; i++)
        c.pool[i] = (uint32_t)i;
    c.npool = nodes;

    /* stop_fifo: each node's start number, for the start order of the
     * pending timers (a predictable branch in the timed loop otherwise) */
    uint64_t *born = NULL, nborn = 0;
    if (s->stop_fifo && (born = calloc(nodes, sizeof *born)) == NULL)
        bench_die("out of memory for %zu start numbers", nodes);
    uint64_t now = 0, acc = 0;
    for (int w = -1; w <= s->reps; w++) {
        uint64_t started = 0, advances = 0, fired0 = c.fired;
        struct rng lr = *r;
        struct wl_counts warm_cnt;
        counters_begin();
        uint64_t t1 = bench_now_ns();
        while (w < 0 ? now < 2 * TTL_R : started < s->ops) {
            /* ticks until the accumulator crosses the next whole start */
            uint64_t k = ((UINT64_C(1) << 32) - acc + rate_fp - 1) / rate_fp;
            now += k;
            acc += k * rate_fp;
            drv_advance(&d, now);
            advances++;
            for (uint64_t m = acc >> 32; m; m--) {
                size_t i = wl_take(&c, &lr);
                if (born)
                    born[i] = nborn++;
                drv_start(&d, i, ttl[rng_below(&lr, D)]);
                started++;
            }
            acc &= 0xffffffffu;
        }
        uint64_t t2 = bench_now_ns();
        counters_end();
        wl_counted(w < 0 ? &warm_cnt : &res[w].cnt, w, 1);
        *r = lr;
        if (w < 0) {
            wl_note_memory(s, res, drv_facility_bytes(&d));
            if (s->check)
                drv_check(&d, "after warm-up");
            continue;
        }
        res[w].ops = started;
        res[w].fired = c.fired - fired0;
        res[w].advances = advances;
        res[w].ns_per_op = wl_per(t2 - t1, started);
        res[w].live = nodes - c.npool;
    }
    if (s->check)
        drv_check(&d, "after the start+expire windows");

    /* Stops: the pending timers, in a random order, K per window. */
    size_t live = nodes - c.npool;
    unsigned char *idle = calloc(nodes, 1);
    uint32_t *victims = malloc((live ? live : 1) * sizeof *victims);
    if (idle == NULL || victims == NULL)
        bench_die("out of memory for the stop phase");
    for (size_t j = 0; j < c.npool; j++)
        idle[c.pool[j]] = 1;
    size_t nv = 0;
    for (size_t i = 0; i < nodes; i++)
        if (!idle[i])
            victims[nv++] = (uint32_t)i;
    if (born)
        wl_sort_by(victims, nv, born);
    size_t K = s->n / 4 < 32768 ? s->n / 4 : 32768;
    if (K == 0)
        K = 1;
    if (K > nv)
        K = nv;
    uint32_t *round = born ? malloc((K ? K : 1) * sizeof *round) : NULL;
    if (born && round == NULL)
        bench_die("out of memory for a round of %zu stops", K);
    size_t at = 0;
    for (int w = 0; w <= s->reps && K > 0; w++) {
        /* rounds of K stops, untimed restarts between them, until a window
         * holds at least 2^16 stops */
        uint64_t ns = 0, stops = 0;
        while (stops < 65536) {
            uint32_t *v = victims;
            if (born) {
                for (size_t j = 0; j < K; j++)
                    round[j] = victims[(at + j) % nv];
                at = (at + K) % nv;
                v = round;
            } else {
                wl_sample(victims, nv, K, r);
            }
            counters_begin();
            uint64_t t1 = bench_now_ns();
            for (size_t j = 0; j < K; j++)
                drv_stop(&d, v[j]);
            uint64_t t2 = bench_now_ns();
            counters_end();
            for (size_t j = 0; j < K; j++)
                drv_start(&d, v[j], ttl[rng_below(r, D)]);
            ns += t2 - t1;
            stops += K;
        }
        wl_counted(&res[w].cnt2, w, 2);
        res[w].ns2 = wl_per(ns, stops);
        res[w].ops2 = stops;
    }
    if (s->check)
        drv_check(&d, "after the stops");
    drv_close(&d);
    free(victims);
    free(idle);
    free(born);
    free(round);
    free(c.pool);
    free(ttl);
}

int WL_RUN(const struct wl_spec *s, struct wl_result *res)
{
    struct rng r = {.s = s->seed};
    if (s->reps < 1 || s->reps >= WINDOWS_MAX)
        bench_die("bad number of windows %d", s->reps);
    memset(res, 0, (size_t)(s->reps + 1) * sizeof *res);
    for (int w = 0; w <= s->reps; w++)
        res[w].node_bytes = drv_node_bytes();
    switch (s->wl) {
    case WL_STARTSTOP:
        wl_startstop(s, &r, res);
        break;
    case WL_CHURN:
        wl_churn(s, &r, res);
        break;
    case WL_EXPIRE:
        wl_expire(s, &r, res);
        break;
    case WL_TCP:
        wl_tcp(s, &r, res);
        break;
    case WL_TICK:
        wl_tick(s, &r, res);
        break;
    case WL_TTL:
        wl_ttl(s, &r, res);
        break;
    case WL_ID_COUNT:
        break;
    }
    return 0;
}
