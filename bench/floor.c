/*
 * twfloor -- how far a stop + start of a random timer is from the memory
 * floor, at n pending timers.
 *
 * At n = 10^6 the timers do not fit in the caches, and a stop + start of a
 * random one (the tcp workload) begins with a miss on the caller's node.
 * twbench gives the whole cost; this program separates the floor from the
 * rest.  In one process, on the same array of 48-byte user nodes (a 40-byte
 * tw_timer and one pointer, as in twbench), with the same random victims
 * and intervals, it times three loops:
 *
 *   bare      unlink the node from a doubly linked list and link it at the
 *             tail of one of 704 lists (the hierarchical wheel's slot count)
 *             chosen by the new deadline: the list work and nothing else
 *   padded    the bare loop plus a chain of dependent adds, sized so that
 *             each iteration executes about as many instructions as the
 *             library's stop + start does (twfloor --pad K to choose)
 *   stores    the bare loop plus K stores to a local array that is always
 *             in L1 (twfloor --stores K, default 8: about what the pushes,
 *             pops and return addresses of two calls with stack frames
 *             store)
 *   clock     the bare loop plus a clock_gettime(CLOCK_MONOTONIC) per
 *             operation, as a start after an interval reads the clock;
 *             beside it the clock read alone, in a loop of its own
 *   library   tw_stop + tw_start on a facility of the chosen scheme
 *
 * and prints ns per operation for each, the median of --reps windows, with
 * the ratios library/bare and padded/bare.  An operation's loads are
 * independent of the previous operation's, so a core can keep several
 * operations' misses in flight at once, as many as fit in its reorder
 * window and its store queue: how many instructions, and above all how many
 * stores, an operation takes decides how many overlap (x86 commits stores
 * in order, so a store that hits L1 still waits behind one to a cold
 * line).  The padded and stores loops show both effects on the bare list
 * work alone.  The clock loop shows a third: where the clock source is
 * read with an ordered rdtsc (a fence before it: the vDSO's on kvm-clock
 * and on the TSC), each read waits for the misses before it, so that no
 * two operations' misses overlap.
 *
 *   twfloor [--n N] [--ops K] [--reps R] [--scheme NAME] [--pad K] [--stores K]
 *
 * docs/design.md ("Short paths") has figures from this machine.
 */
#define _POSIX_C_SOURCE 200809L
#include "twheel.h"

#include "../common/rng.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct link {
    struct link *prev, *next;
};

/* The bare loop's node: the same size and field offsets as twbench's. */
struct bare {
    struct link l;
    uint64_t e;
    void *fn;
    uint32_t flags, owner;
    void *user;
};

struct unode {
    struct tw_timer t;
    void *user;
};

#define LISTS 704u
#define REPS_MAX 99

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void link_tail(struct link *h, struct link *n)
{
    n->prev = h->prev;
    n->next = h;
    h->prev->next = n;
    h->prev = n;
}

static void unlink_node(struct link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
}

static void die(const char *what)
{
    fprintf(stderr, "twfloor: %s\n", what);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int m)
{
    qsort(v, (size_t)m, sizeof *v, cmp_double);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

static void fired(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    (void)t; /* time never advances: nothing fires */
}

/* The victims and intervals of one window, the same for every loop. */
static void fill_ops(uint32_t *idx, uint32_t *ivl, uint64_t ops, size_t n, uint64_t seed)
{
    struct rng s = {.s = seed};
    for (uint64_t k = 0; k < ops; k++) {
        idx[k] = (uint32_t)rng_below(&s, n);
        ivl[k] = (uint32_t)rng_range(&s, 1, 65536);
    }
}

/* The bare loop; pad dependent adds, or `stores` stores that hit L1, per
 * operation. */
static double bare_window(struct bare *v, struct link *h, const uint32_t *idx, const uint32_t *ivl,
                          uint64_t ops, int pad, int stores, int clock)
{
    volatile uint64_t sink[16];
    uint64_t t0 = now_ns();
    for (uint64_t k = 0; k < ops; k++) {
        struct bare *x = &v[idx[k]];
        unlink_node(&x->l);
        x->e = ivl[k];
        x->flags |= 1;
        for (int z = 0; z < pad; z++)
            __asm__ volatile("add $1, %%r8" ::: "r8");
        for (int z = 0; z < stores; z++)
            sink[z & 15] = k;
        if (clock)
            sink[0] = now_ns();
        link_tail(&h[ivl[k] % LISTS], &x->l);
    }
    (void)sink[0];
    return (double)(now_ns() - t0) / (double)ops;
}

/* The clock read alone: ns per clock_gettime(CLOCK_MONOTONIC). */
static double clock_window(uint64_t ops)
{
    volatile uint64_t sink = 0;
    uint64_t t0 = now_ns();
    for (uint64_t k = 0; k < ops; k++)
        sink = now_ns();
    (void)sink;
    return (double)(now_ns() - t0) / (double)ops;
}

static double lib_window(struct tw *tw, struct unode *u, const uint32_t *idx, const uint32_t *ivl,
                         uint64_t ops)
{
    uint64_t bad = 0;
    uint64_t t0 = now_ns();
    for (uint64_t k = 0; k < ops; k++) {
        struct tw_timer *t = &u[idx[k]].t;
        bad += tw_stop(tw, t) != 1;
        bad += tw_start(tw, t, ivl[k]) != 0;
    }
    double r = (double)(now_ns() - t0) / (double)ops;
    if (bad)
        die("a stop or start failed");
    return r;
}

#define USAGE "usage: twfloor [--n N] [--ops K] [--reps R] [--scheme NAME] [--pad K] [--stores K]"

/* A usage error: one line naming the option and what it accepts, exit 2,
 * before any work. */
static void bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bad_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twfloor: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* A whole number in [lo, hi] ("1e6" accepted), or a usage error. */
static double count_arg(const char *opt, const char *v, double lo, double hi)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= lo && x <= hi) || x != (double)(uint64_t)x)
        bad_usage("bad %s '%s': want a whole number from %.0f to %.0f", opt, v, lo, hi);
    return x;
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    uint64_t ops = 2000000;
    int reps = 5, pad = 40, stores = 8;
    const char *scheme = "hierarchical";
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf(USAGE "\n"
                   "  --n N          pending timers, 1 to 4e9 (default 1e6)\n"
                   "  --ops K        operations per window, 1 to 1e9 (default 2e6)\n"
                   "  --reps R       measured windows, 1 to %d (default 5)\n"
                   "  --scheme NAME  a twheel scheme (default hierarchical)\n"
                   "  --pad K        dependent adds in the padded loop, 0 to 10000 (default 40)\n"
                   "  --stores K     L1 stores in the stores loop, 0 to 10000 (default 8)\n",
                   REPS_MAX);
            return 0;
        }
        int known = !strcmp(a, "--n") || !strcmp(a, "--ops") || !strcmp(a, "--reps") ||
                    !strcmp(a, "--scheme") || !strcmp(a, "--pad") || !strcmp(a, "--stores");
        if (!known)
            bad_usage("unknown option '%s' (known: --n, --ops, --reps, --scheme, --pad, "
                      "--stores, --help)", a);
        if (v == NULL)
            bad_usage("option %s needs a value", a);
        if (!strcmp(a, "--n"))
            n = (size_t)count_arg(a, v, 1, (double)UINT32_MAX);
        else if (!strcmp(a, "--ops"))
            ops = (uint64_t)count_arg(a, v, 1, 1e9);
        else if (!strcmp(a, "--reps"))
            reps = (int)count_arg(a, v, 1, REPS_MAX);
        else if (!strcmp(a, "--pad"))
            pad = (int)count_arg(a, v, 0, 10000);
        else if (!strcmp(a, "--stores"))
            stores = (int)count_arg(a, v, 0, 10000);
        else
            scheme = v;
    }
    int sch = tw_scheme_from_name(scheme);
    if (sch < 0 || !tw_scheme_available((enum tw_scheme)sch)) {
        char known[256] = "";
        for (int k = 0; k < TW_SCHEME_COUNT; k++)
            if (tw_scheme_available((enum tw_scheme)k)) {
                strcat(known, k ? ", " : "");
                strcat(known, tw_scheme_name((enum tw_scheme)k));
            }
        bad_usage("unknown --scheme '%s' (known: %s)", scheme, known);
    }

    struct bare *v = calloc(n, sizeof *v);
    struct unode *u = calloc(n, sizeof *u);
    struct link *h = malloc(LISTS * sizeof *h);
    uint32_t *idx = malloc(ops * sizeof *idx), *ivl = malloc(ops * sizeof *ivl);
    if (!v || !u || !h || !idx || !ivl)
        die("out of memory");
    struct tw_config cfg;
    struct tw *tw;
    if (tw_config_init(&cfg, (enum tw_scheme)sch) != 0)
        die("cannot configure the facility");
    if (sch == TW_WHEEL)
        cfg.slots = 65536; /* MaxInterval covers the intervals, 1..65536 */
    if (tw_create(&tw, &cfg) != 0)
        die("cannot create the facility");

    /* Fill both in the same random order, so that list neighbours are
     * not memory neighbours. */
    struct rng s = {.s = 0x9e3779b97f4a7c15u};
    for (size_t i = 0; i < LISTS; i++)
        h[i].prev = h[i].next = &h[i];
    uint32_t *perm = malloc(n * sizeof *perm);
    if (perm == NULL)
        die("out of memory");
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(&s, i);
        uint32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t ivl0 = (uint32_t)rng_range(&s, 1, 65536);
        v[perm[i]].e = ivl0;
        link_tail(&h[ivl0 % LISTS], &v[perm[i]].l);
        tw_timer_init(&u[perm[i]].t, fired);
        if (tw_start(tw, &u[perm[i]].t, ivl0) != 0)
            die("tw_start failed");
    }
    free(perm);

    double wb[REPS_MAX], wp[REPS_MAX], ws[REPS_MAX], wc[REPS_MAX], wk[REPS_MAX], wl[REPS_MAX];
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        fill_ops(idx, ivl, ops, n, 0x1000u + (uint64_t)(r + 1));
        double b = bare_window(v, h, idx, ivl, ops, 0, 0, 0);
        double p = bare_window(v, h, idx, ivl, ops, pad, 0, 0);
        double st = bare_window(v, h, idx, ivl, ops, 0, stores, 0);
        double c = bare_window(v, h, idx, ivl, ops, 0, 0, 1);
        double k = clock_window(ops);
        double l = lib_window(tw, u, idx, ivl, ops);
        if (r >= 0) {
            wb[r] = b;
            wp[r] = p;
            ws[r] = st;
            wc[r] = c;
            wk[r] = k;
            wl[r] = l;
        }
    }
    if (tw_count(tw) != n || tw_check(tw, NULL, 0) != 0)
        die("the facility is not as it should be after the windows");
    double mb = median(wb, reps), mp = median(wp, reps), ms = median(ws, reps);
    double mc = median(wc, reps), mk = median(wk, reps), ml = median(wl, reps);
    printf("twfloor: n = %zu, %llu ops per window, median of %d windows (ns per stop + start)\n",
           n, (unsigned long long)ops, reps);
    char what[64];
    printf("  %-34s %8.1f\n", "bare list work", mb);
    snprintf(what, sizeof what, "bare + %d dependent adds", pad);
    printf("  %-34s %8.1f   %.2fx bare\n", what, mp, mp / mb);
    snprintf(what, sizeof what, "bare + %d stores that hit L1", stores);
    printf("  %-34s %8.1f   %.2fx bare\n", what, ms, ms / mb);
    printf("  %-34s %8.1f   %.2fx bare (the read alone: %.1f)\n", "bare + a clock read", mc,
           mc / mb, mk);
    snprintf(what, sizeof what, "tw_stop + tw_start, %s", tw_scheme_name((enum tw_scheme)sch));
    printf("  %-34s %8.1f   %.2fx bare\n", what, ml, ml / mb);
    tw_destroy(tw);
    free(v);
    free(u);
    free(h);
    free(idx);
    free(ivl);
    return 0;
}
