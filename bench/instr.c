/*
 * twinstr -- a fixed sequence of twheel calls, for counting the library's
 * instructions per operation under callgrind (scripts/instr-count.sh).
 *
 *   twinstr --scheme NAME --n N --workload W --ops K
 *
 * Time in twbench moves with the machine's load; instructions do not.  This
 * program makes the calls of one of twbench's workloads, with the same
 * definitions and parameters (bench/workloads.h), through the public API
 * only, so that it links against any build of the library, an older one
 * too.  The script runs it twice under valgrind's callgrind, once with
 * --ops K and once with --ops 0 (the same set-up, nothing measured), sums
 * the self cost of the functions whose source is the library's
 * (scripts/callgrind-ir.sh: files under src/, or bench/refwheel.[ch] for
 * the reference wheel; inline code counted where it was inlined, system
 * headers' too, this program's loop and callbacks not), and divides the difference by the
 * operations this program prints:
 *
 *   churn       n timers at intervals in [2^20, 2^21], time frozen; K times
 *               a random one of them stopped and started again beyond all
 *               the others (twbench's churn-any).  Operation: stop + start.
 *   churn-one   the same, the one extra timer stopped and started again
 *               each time (twbench's churn: the paper's Fig. 9 test).
 *   startstop   n timers at intervals in [1, 2^16]; K times a random one
 *               stopped and started at a fresh interval in [1, 2^16].
 *   expire      with K > 0: n timers started at intervals in [1, 2^16],
 *               then time advanced a tick at a time until all have fired.
 *               Operation: one timer's start and expiry, with its share
 *               of the advances.  (--ops 0: the facility alone.)
 *   expire-next the same timers, time advanced straight to each distinct
 *               deadline in turn (the caller knows them: no tw_next()),
 *               so that about one timer is due per advance at 10^4.
 *   tcp         n connections' timers at intervals in [1, 2^16], time
 *               advancing a tick per step, 20 n / 2^16 random timers reset
 *               (stop + start) per step, an expired one restarted from its
 *               callback; K resets after a warm-up of 2^12 steps.
 *               Operation: one reset or one expiry with its restart, with
 *               their share of the advances.
 *
 * It prints "ops N": the operations the difference is divided by.  On
 * wheel, whose intervals stop at MaxInterval, the intervals shrink to fit.
 *
 * --scheme refwheel makes the same calls, with the same random draws, on
 * twbench's lean reference wheel instead: rw_start() with now + the
 * interval, rw_stop(), rw_advance().  The script then counts refwheel's
 * functions as the library.  Its nodes are its 32-byte struct rw_timer and
 * the same index, in an array of their own.  It needs bench/refwheel.c
 * linked in and TW_INSTR_REFWHEEL defined, as CMake's twinstr and
 * scripts/instr-count.sh and instr-check.sh build it; compiled alone with
 * the library, twinstr calls twheel only.
 */
#define _POSIX_C_SOURCE 200809L
#include "twheel.h"

#include "../common/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct tw_timer t;
    size_t i;
};

static struct tw *tw;
static struct node *nodes;
static struct rng rng;
static uint64_t fired, rearm_lo, rearm_hi;

static void die(const char *what)
{
    fprintf(stderr, "twinstr: %s\n", what);
    exit(1);
}

static void check(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "twinstr: %s: %s\n", what, tw_strerror(rc));
        exit(1);
    }
}

/* The callback's restart is a library call like any other: counted. */
static void on_fire(struct tw *w, struct tw_timer *t)
{
    fired++;
    if (rearm_hi)
        check(tw_start(w, t, rng_range(&rng, rearm_lo, rearm_hi)), "restart");
}

#ifdef TW_INSTR_REFWHEEL
#include "refwheel.h"

struct rnode {
    struct rw_timer t;
    size_t i;
};

static struct rw_wheel *rw; /* --scheme refwheel: the reference wheel instead */
static struct rnode *rnodes;

static void on_rw_fire(struct rw_wheel *w, struct rw_timer *t)
{
    fired++;
    if (rearm_hi)
        rw_start(w, t, w->now + rng_range(&rng, rearm_lo, rearm_hi));
}

static void rw_setup(size_t n)
{
    rw = malloc(sizeof *rw);
    rnodes = calloc(n + 1, sizeof *rnodes);
    if (rw == NULL || rnodes == NULL)
        die("out of memory");
    rw_init(rw, 0);
    for (size_t i = 0; i <= n; i++) {
        rw_timer_init(&rnodes[i].t, on_rw_fire);
        rnodes[i].i = i;
    }
}

static void rw_free(void)
{
    free(rnodes);
    free(rw);
}

/* The calls of the workloads, on twheel or on refwheel. */
static void start(size_t i, uint64_t interval)
{
    if (rw)
        rw_start(rw, &rnodes[i].t, rw->now + interval);
    else
        check(tw_start(tw, &nodes[i].t, interval), "start");
}

static void stop(size_t i)
{
    if (rw)
        rw_stop(&rnodes[i].t);
    else
        check(tw_stop(tw, &nodes[i].t), "stop");
}

static int64_t advance(uint64_t now)
{
    return rw ? (int64_t)rw_advance(rw, now) : tw_advance(tw, now);
}
#else
/* Compiled alone, with the library only: the calls on twheel. */
static const void *const rw = NULL;

static void rw_setup(size_t n)
{
    (void)n;
    die("--scheme refwheel: this twinstr was built without bench/refwheel.c "
        "(link it, with -DTW_INSTR_REFWHEEL)");
}

static void rw_free(void) {}

static void start(size_t i, uint64_t interval)
{
    check(tw_start(tw, &nodes[i].t, interval), "start");
}

static void stop(size_t i)
{
    check(tw_stop(tw, &nodes[i].t), "stop");
}

static int64_t advance(uint64_t now)
{
    return tw_advance(tw, now);
}
#endif

static void fill(size_t n, uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < n; i++)
        start(i, rng_range(&rng, lo, hi));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t num(const char *v, const char *name)
{
    char *end;
    double x = strtod(v, &end);
    if (*v == '\0' || *end || x < 0 || x > 1e9)
        die(name);
    return (uint64_t)x;
}

int main(int argc, char **argv)
{
    const char *scheme = "hierarchical", *wl = "churn";
    uint64_t n = 1000, ops = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--scheme"))
            scheme = argv[i + 1];
        else if (!strcmp(argv[i], "--workload"))
            wl = argv[i + 1];
        else if (!strcmp(argv[i], "--n"))
            n = num(argv[i + 1], "bad --n");
        else if (!strcmp(argv[i], "--ops"))
            ops = num(argv[i + 1], "bad --ops");
        else
            die("usage: twinstr --scheme NAME --n N --workload W --ops K");
    }
    if (!strcmp(scheme, "refwheel")) {
        rw_setup(n);
    } else {
        int s = tw_scheme_from_name(scheme);
        if (s < 0)
            die("unknown --scheme (a twheel scheme, or refwheel)");
        struct tw_config cfg;
        check(tw_config_init(&cfg, (enum tw_scheme)s), "config");
        check(tw_create(&tw, &cfg), "create");
        nodes = calloc(n + 1, sizeof *nodes);
        if (nodes == NULL)
            die("out of memory");
        for (size_t i = 0; i <= n; i++) {
            tw_timer_init(&nodes[i].t, on_fire);
            nodes[i].i = i;
        }
    }
    rng_seed(&rng, 42);
    uint64_t k16 = UINT64_C(1) << 16, lo20 = UINT64_C(1) << 20, hi20 = UINT64_C(1) << 21;
    /* wheel (Scheme 4) takes intervals up to its MaxInterval only: as in
     * twbench, its intervals are scaled into [1, MaxInterval] */
    uint64_t lim = rw ? UINT64_MAX : tw_max_interval(tw);
    if (lim < 4 * hi20) {
        lo20 = lim / 8;
        hi20 = lim / 4;
        k16 = k16 < lim ? k16 : lim;
    }
    uint64_t done = 0;
    if (!strcmp(wl, "churn") || !strcmp(wl, "churn-one")) {
        int one = !strcmp(wl, "churn-one");
        fill(n, lo20, hi20);
        start(n, hi20 + 1);
        uint64_t far = 2 * hi20 + 1;
        for (uint64_t k = 0; k < ops; k++) {
            size_t i = one ? n : (size_t)rng_below(&rng, n);
            stop(i);
            start(i, one ? rng_range(&rng, hi20 + 1, 2 * hi20) : far);
            far = far < lim ? far + 1 : 2 * hi20 + 1;
        }
        done = ops;
    } else if (!strcmp(wl, "startstop")) {
        fill(n, 1, k16);
        for (uint64_t k = 0; k < ops; k++) {
            size_t i = (size_t)rng_below(&rng, n);
            stop(i);
            start(i, rng_range(&rng, 1, k16));
        }
        done = ops;
    } else if (!strcmp(wl, "expire")) {
        if (ops > 0) {
            fill(n, 1, k16);
            for (uint64_t now = 1; fired < n; now++)
                if (now > k16 + 2 || advance(now) < 0)
                    die("expire: not every timer fired");
            done = n;
        }
    } else if (!strcmp(wl, "expire-next")) {
        if (ops > 0) {
            uint64_t *dl = malloc((n ? n : 1) * sizeof *dl);
            if (dl == NULL)
                die("out of memory");
            for (size_t i = 0; i < n; i++) {
                dl[i] = rng_range(&rng, 1, k16);
                start(i, dl[i]);
            }
            qsort(dl, n, sizeof *dl, cmp_u64);
            for (size_t i = 0; i < n; i++)
                if ((i == 0 || dl[i] != dl[i - 1]) && advance(dl[i]) < 0)
                    die("expire-next: advance");
            if (fired < n)
                check((int)advance(k16 + 2), "advance");
            if (fired != n)
                die("expire-next: not every timer fired");
            free(dl);
            done = n;
        }
    } else if (!strcmp(wl, "tcp")) {
        const uint64_t rate_fp = (uint64_t)(20.0 * (double)n / (double)k16 * 4294967296.0);
        fill(n, 1, k16);
        rearm_lo = 1;
        rearm_hi = k16;
        uint64_t now = 0, acc = 0, resets = 0;
        for (int phase = 0; phase < 2; phase++) {
            uint64_t f0 = fired, r0 = resets;
            /* warm-up: 2^12 steps; then steps until K resets */
            for (uint64_t step = 0; phase == 0 ? step < 4096 : resets - r0 < ops; step++) {
                check((int)advance(++now), "advance");
                acc += rate_fp;
                for (uint64_t k = acc >> 32; k; k--) {
                    size_t i = (size_t)rng_below(&rng, n);
                    stop(i);
                    start(i, rng_range(&rng, 1, k16));
                    resets++;
                }
                acc &= 0xffffffffu;
            }
            if (phase == 1)
                done = resets - r0 + fired - f0;
        }
    } else {
        die("unknown --workload (churn, churn-one, startstop, expire, expire-next, tcp)");
    }
    printf("ops %llu\n", (unsigned long long)done);
    free(nodes); /* the facility's timers are not stopped: no tw_* cost after */
    rw_free();
    return 0;
}
