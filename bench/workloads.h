/*
 * workloads.h -- the twbench workloads, written once for every target.
 *
 * Include this file once, after defining the driver of the target:
 *
 *     struct drv;                                   the target's state
 *     static int  drv_open(struct drv *, const struct wl_spec *, size_t nodes,
 *                          struct wl_ctx *);        0, or -1 with a message
 *     static void drv_close(struct drv *);
 *     static void drv_start(struct drv *, size_t i, uint64_t interval);
 *     static void drv_stop(struct drv *, size_t i);
 *     static void drv_advance(struct drv *, uint64_t now);   absolute tick
 *     static size_t drv_node_bytes(void);
 *     static size_t drv_facility_bytes(struct drv *);
 *     static void drv_check(struct drv *, const char *when); dies if broken
 *
 * and WL_RUN, the name of the entry point to generate (a wl_run_fn).  The
 * driver functions are static and called directly, so the compiler inlines
 * them: a figure is what the target's own calls cost.  Nodes are indexed
 * 0..nodes-1 and live in one array; a driver's expiry callback adds one to
 * ctx->fired and, when ctx->rearm is set, restarts the timer with an interval
 * drawn from ctx->rng in [ctx->lo, ctx->hi].
 *
 * Every random choice (intervals, victims, start order) comes from the spec's
 * seed, so every target sees the same operations in the same order.  Setup
 * phases start the timers in a random order of the node array, so that
 * neighbours in memory are not neighbours in the structure.
 */
#ifndef WL_RUN
#error "define WL_RUN and the driver before including workloads.h"
#endif

#include <stdlib.h>

/* A random permutation of 0..n-1 (Fisher-Yates). */
static uint32_t *wl_perm(size_t n, struct rng *r)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    if (p == NULL)
        bench_die("out of memory for %zu indices", n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(r, i);
        uint32_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
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

/*
 * startstop: n timers pending with intervals in [lo, hi]; then `ops` times:
 * pick a random timer, stop it, start it again with a fresh interval.
 * Figure: ns per stop+start pair, with n outstanding throughout.
 */
static void wl_startstop(struct drv *d, const struct wl_spec *s, struct rng *r,
                         struct wl_result *res)
{
    uint64_t t0 = bench_now_ns();
    wl_fill(d, s->n, r, s->lo, s->hi);
    res->setup_ns = bench_now_ns() - t0;
    res->facility_bytes = drv_facility_bytes(d);
    if (s->check)
        drv_check(d, "after setup");
    uint64_t t1 = bench_now_ns();
    for (uint64_t k = 0; k < s->ops; k++) {
        size_t i = (size_t)rng_below(r, s->n);
        drv_stop(d, i);
        drv_start(d, i, rng_range(r, s->lo, s->hi));
    }
    uint64_t t2 = bench_now_ns();
    if (s->check)
        drv_check(d, "after the stop+start pairs");
    res->ops = s->ops;
    res->ns_per_op = wl_per(t2 - t1, s->ops);
}

/*
 * churn (the paper's Fig. 9 experiment): n timers set far in the future,
 * intervals in [lo, hi]; one more timer is then `ops` times stopped and
 * restarted at a random interval in [hi + 1, 2 hi], i.e. always farther out
 * than all the others, as the paper's test did with untimeout()/timeout().
 * Time never advances.  Figure: ns per stop+start of that timer.
 */
static void wl_churn(struct drv *d, const struct wl_spec *s, struct rng *r,
                     struct wl_result *res)
{
    uint64_t t0 = bench_now_ns();
    wl_fill(d, s->n, r, s->lo, s->hi);
    drv_start(d, s->n, rng_range(r, s->hi + 1, 2 * s->hi));
    res->setup_ns = bench_now_ns() - t0;
    res->facility_bytes = drv_facility_bytes(d);
    if (s->check)
        drv_check(d, "after setup");
    uint64_t t1 = bench_now_ns();
    for (uint64_t k = 0; k < s->ops; k++) {
        drv_stop(d, s->n);
        drv_start(d, s->n, rng_range(r, s->hi + 1, 2 * s->hi));
    }
    uint64_t t2 = bench_now_ns();
    if (s->check)
        drv_check(d, "after churning");
    res->ops = s->ops;
    res->ns_per_op = wl_per(t2 - t1, s->ops);
}

/*
 * expire: start n timers with intervals in [lo, hi] (timed), then advance one
 * tick at a time until every one has fired (timed); the callback counts and
 * reads the node.  Figure: ns per timer for both phases together.  A target
 * that fires a timer only after its deadline (libev) needs one tick more.
 */
static void wl_expire(struct drv *d, const struct wl_spec *s, struct rng *r,
                      struct wl_ctx *c, struct wl_result *res)
{
    uint32_t *p = wl_perm(s->n, r);
    uint64_t *iv = malloc((s->n ? s->n : 1) * sizeof *iv);
    if (iv == NULL)
        bench_die("out of memory for %zu intervals", s->n);
    for (size_t i = 0; i < s->n; i++)
        iv[i] = rng_range(r, s->lo, s->hi);
    uint64_t t0 = bench_now_ns();
    for (size_t i = 0; i < s->n; i++)
        drv_start(d, p[i], iv[i]);
    uint64_t t1 = bench_now_ns();
    res->facility_bytes = drv_facility_bytes(d);
    if (s->check)
        drv_check(d, "after the starts");
    uint64_t limit = s->hi + 2, now = 0;
    uint64_t t2 = bench_now_ns();
    while (c->fired < s->n) {
        drv_advance(d, ++now);
        if (now > limit)
            bench_die("expire: %llu of %zu timers fired by tick %llu (longest interval %llu)",
                      (unsigned long long)c->fired, s->n, (unsigned long long)now,
                      (unsigned long long)s->hi);
    }
    uint64_t t3 = bench_now_ns();
    if (c->fired != s->n)
        bench_die("expire: %llu callbacks for %zu timers", (unsigned long long)c->fired, s->n);
    if (s->check)
        drv_check(d, "after expiry");
    free(iv);
    free(p);
    res->phase1_ns = t1 - t0;
    res->phase2_ns = t3 - t2;
    res->ops = s->n;
    res->ns_per_op = wl_per(res->phase1_ns + res->phase2_ns, s->n);
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
 * The measured share is reported.  After I/8 steps of warm-up, the timed
 * phase runs enough steps for about `ops` restarts.
 * Figure: ns per operation, an operation being one restart or one expiry
 * (with its restart), each carrying its share of the per-tick advances.
 */
static void wl_tcp(struct drv *d, const struct wl_spec *s, struct rng *r, struct wl_ctx *c,
                   struct wl_result *res)
{
    const double rate = 20.0 * (double)s->n / (double)s->hi;
    const uint64_t rate_fp = (uint64_t)(rate * 4294967296.0);
    const double want = (double)s->ops;
    const uint64_t warm = s->hi / 8 ? s->hi / 8 : 1;
    const uint64_t steps = (uint64_t)(want / rate) + 1;

    uint64_t t0 = bench_now_ns();
    wl_fill(d, s->n, r, s->lo, s->hi);
    res->setup_ns = bench_now_ns() - t0;
    res->facility_bytes = drv_facility_bytes(d);
    c->rearm = 1;
    c->lo = s->lo;
    c->hi = s->hi;

    uint64_t now = 0, acc = 0, stops = 0, fired0 = 0, t1 = 0;
    for (uint64_t step = 0; step < warm + steps; step++) {
        if (step == warm) {
            if (s->check)
                drv_check(d, "after warm-up");
            stops = 0;
            fired0 = c->fired;
            t1 = bench_now_ns();
        }
        drv_advance(d, ++now);
        acc += rate_fp;
        for (uint64_t k = acc >> 32; k; k--) {
            size_t i = (size_t)rng_below(r, s->n);
            drv_stop(d, i);
            drv_start(d, i, rng_range(r, s->lo, s->hi));
            stops++;
        }
        acc &= 0xffffffffu;
    }
    uint64_t t2 = bench_now_ns();
    if (s->check)
        drv_check(d, "after the timed steps");
    res->stops = stops;
    res->fired = c->fired - fired0;
    res->ops = stops + res->fired;
    res->phase1_ns = t2 - t1;
    res->ns_per_op = wl_per(t2 - t1, res->ops);
}

/*
 * tick, part 1: n timers pending with intervals in [lo, hi], far beyond the
 * measured window; `ops` advances of one tick each, nothing due.
 * Figure: ns per advance.
 */
static void wl_tick(struct drv *d, const struct wl_spec *s, struct rng *r, struct wl_ctx *c,
                    struct wl_result *res)
{
    uint64_t t0 = bench_now_ns();
    wl_fill(d, s->n, r, s->lo, s->hi);
    res->setup_ns = bench_now_ns() - t0;
    res->facility_bytes = drv_facility_bytes(d);
    if (s->check)
        drv_check(d, "after setup");
    uint64_t t1 = bench_now_ns();
    for (uint64_t now = 1; now <= s->ops; now++)
        drv_advance(d, now);
    uint64_t t2 = bench_now_ns();
    if (c->fired)
        bench_die("tick: %llu timers fired early", (unsigned long long)c->fired);
    if (s->check)
        drv_check(d, "after the advances");
    res->ops = s->ops;
    res->ns_per_op = wl_per(t2 - t1, s->ops);
}

/* The long jump of tick, part 2. */
#define WL_JUMP (UINT64_C(1) << 40)

/*
 * tick, part 2: n timers with intervals in [2^41, 2^42], then one advance of
 * 2^40 ticks, over which nothing is due.  Figure: ns for the jump.
 */
static void wl_jump(struct drv *d, const struct wl_spec *s, struct rng *r, struct wl_ctx *c,
                    struct wl_result *res)
{
    wl_fill(d, s->n, r, 2 * WL_JUMP, 4 * WL_JUMP);
    uint64_t t1 = bench_now_ns();
    drv_advance(d, WL_JUMP);
    uint64_t t2 = bench_now_ns();
    if (c->fired)
        bench_die("tick: %llu timers fired early in the jump", (unsigned long long)c->fired);
    if (s->check)
        drv_check(d, "after the jump");
    res->jump_ns = (double)(t2 - t1);
}

int WL_RUN(const struct wl_spec *s, struct wl_result *res)
{
    struct drv d;
    struct wl_ctx c = {0};
    struct rng r = {s->seed};
    c.rng.s = s->seed ^ 0x5bd1e9955bd1e995u;
    memset(res, 0, sizeof *res);
    res->node_bytes = drv_node_bytes();
    if (drv_open(&d, s, s->n + 1, &c))
        return -1;
    switch (s->wl) {
    case WL_STARTSTOP:
        wl_startstop(&d, s, &r, res);
        break;
    case WL_CHURN:
        wl_churn(&d, s, &r, res);
        break;
    case WL_EXPIRE:
        wl_expire(&d, s, &r, &c, res);
        break;
    case WL_TCP:
        wl_tcp(&d, s, &r, &c, res);
        break;
    case WL_TICK:
        wl_tick(&d, s, &r, &c, res);
        drv_close(&d);
        memset(&c, 0, sizeof c);
        if (drv_open(&d, s, s->n, &c))
            return -1;
        wl_jump(&d, s, &r, &c, res);
        break;
    case WL_COUNT:
        break;
    }
    drv_close(&d);
    return 0;
}
