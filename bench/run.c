/*
 * run.c -- running what plan.c planned: each cell of a workload's series
 * (the target's runs of every window, their statistics, the rounds of
 * --rounds folded together, a ttl point measured once under one name and
 * copied under the others), the series themselves, and the paper's Fig. 9
 * experiment on the callout layer (bench/fig9.c).  Each cell also keeps
 * its counts per operation (counters.h), and under --counts its figures
 * are the instructions per operation instead of the times.
 */
#define _GNU_SOURCE

#include "twbench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svcbench.h" /* run_service() */
#ifdef TWBENCH_FIG9
#include "fig9.h"
#endif

static uint64_t mix(uint64_t a, uint64_t b)
{
    struct rng r = {.s = a ^ (b * 0x9e3779b97f4a7c15u)};
    return rng_next(&r);
}

static struct series *new_series(const char *name, const char *figure, int by_ttls)
{
    if (nseries == SERIES_MAX)
        bench_die("too many series");
    struct series *s = &series[nseries++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->figure = figure;
    s->unit = "ns per op";
    s->by_ttls = by_ttls;
    return s;
}

/* The median of v[0..k-1] over its finite values; NAN if none. */
static double finite_median(const double *v, int k)
{
    double f[WINDOWS_MAX], med, mn, mx;
    int m = 0;
    for (int i = 0; i < k; i++)
        if (isfinite(v[i]))
            f[m++] = v[i];
    if (m == 0)
        return NAN;
    stats(f, m, &med, &mn, &mx);
    return med;
}

/* Window w's count `which` (0 instructions, 1 cycles, 2 L1D misses) per
 * operation of the figure; NAN if not counted. */
static double count_per_op(const struct wl_result *r, int second, int which)
{
    const struct wl_counts *c = second ? &r->cnt2 : &r->cnt;
    uint64_t ops = second ? r->ops2 : r->ops;
    double x = which == 0 ? c->instr : which == 1 ? c->cycles : c->l1d;
    return ops ? x / (double)ops : NAN;
}

static void fill_counts(struct cell *c, const struct wl_result *res, int reps, int second)
{
    double v[3][WINDOWS_MAX];
    for (int w = 1; w <= reps; w++)
        for (int k = 0; k < 3; k++)
            v[k][w - 1] = count_per_op(&res[w], second, k);
    c->cnt.instr = finite_median(v[0], reps);
    c->cnt.cycles = finite_median(v[1], reps);
    c->cnt.l1d = finite_median(v[2], reps);
}

static void fill_cell(struct cell *c, const struct wl_result *res, int reps, int second,
                      const struct wl_spec *spec, double seconds)
{
    c->state = CELL_OK;
    c->why = NULL;
    c->reps = reps;
    for (int w = 1; w <= reps; w++)
        c->ns[w - 1] = second ? res[w].ns2 : res[w].ns_per_op;
    fill_counts(c, res, reps, second);
    /* --counts: the figures are callgrind's instructions per operation;
     * the times, ~50x those of a run outside valgrind, are dropped. */
    if (ropt.counts)
        for (int w = 1; w <= reps; w++) {
            c->ns[w - 1] = count_per_op(&res[w], second, 0);
            if (!(c->ns[w - 1] > 0))
                bench_die("callgrind counted no instructions in window %d", w);
        }
    stats(c->ns, reps, &c->med, &c->min, &c->max);
    c->last = res[reps];
    c->lo = spec->lo;
    c->hi = second && spec->wl == WL_EXPIRE ? spec->hi2 : spec->hi; /* expire-jump's: at most */
    c->seconds = seconds;
    c->bytes_per_timer =
        (double)res[reps].node_bytes + (double)res[reps].facility_bytes / (double)spec->n;
}

static struct wl_result g_res[WINDOWS_MAX];

/* Run one (workload, n, D, target) into c1 (and c2, the second figure).
 * Returns 1 when the figures were copied from a point measured under
 * another name instead (home: the cell being filled, never a source). */
static int run_cell(const struct wdef *wd, size_t n, uint32_t D, int ti, struct cell *c1,
                    struct cell *c2, const struct cell *home)
{
    struct target *t = &targets[ti];
    struct wl_spec spec;
    const char *why;
    char nb[32];
    enum cell_state st = plan_cell(t, wd->id, n, D, &spec, &why);
    spec.stop_fifo = wd->fifo;
    spec.restart = wd->restart;
    if (st != CELL_OK) {
        c1->state = st;
        c1->why = why;
        if (c2) {
            c2->state = st;
            c2->why = why;
        }
        return 0;
    }
    /* A ttl point already measured under another name (ttl-8 at the sweep's
     * n is the sweep's D = 8): same seed, same figures.  Not the fifo
     * workload's, whose stops are another figure. */
    if (wd->id == WL_TTL && !wd->fifo) {
        for (int si = 0; si < nseries; si++) {
            struct series *s = &series[si];
            if (strstr(s->name, "ttl-") != s->name || strstr(s->name, "-stop") ||
                strstr(s->name, "-fifo"))
                continue;
            for (int xi = 0; xi < s->nx; xi++)
                if (s->n[xi] == n && s->d[xi] == D && s->cell[xi][ti].state == CELL_OK &&
                    &s->cell[xi][ti] != home) {
                    *c1 = s->cell[xi][ti];
                    if (c2)
                        *c2 = (s + 1)->cell[xi][ti]; /* its -stop series follows it */
                    prog.cells_done++; /* planned at no cost */
                    return 1;
                }
        }
    }
    snprintf(bench_where, sizeof bench_where, "%s, %s, n=%s, D=%u", wd->name, t->name,
             fmt_n(n, nb, sizeof nb), D);
    if (g_tty)
        progress("%s n=%s%s%.0u %s", wd->name, nb, D ? " D=" : "", D, t->name);
    spec.seed = mix(mix(ropt.seed, (uint64_t)wd->id), mix((uint64_t)n, (uint64_t)D));
    uint64_t t0 = bench_now_ns();
    if (t->run(&spec, g_res))
        bench_die("the run failed");
    double secs = (double)(bench_now_ns() - t0) / 1e9;
    prog.done += cell_cost(t, &spec);
    prog.cells_done++;
    fill_cell(c1, g_res, spec.reps, 0, &spec, secs);
    if (c2)
        fill_cell(c2, g_res, spec.reps, 1, &spec, secs);
    return 0;
}

/* Fold round r's result c into the cell h: round 0 is taken whole; later
 * rounds add their median, and the cell's median becomes the median of the
 * rounds' medians, its min and max the extremes of all windows. */
static void merge_round(struct cell *h, const struct cell *c, int r)
{
    if (r == 0 || c->state != CELL_OK || h->state != CELL_OK) {
        *h = *c;
        h->rounds = c->state == CELL_OK ? 1 : 0;
        h->round_med[0] = c->med;
        h->cnt_round[0] = c->cnt;
        return;
    }
    h->cnt_round[h->rounds] = c->cnt;
    h->round_med[h->rounds++] = c->med;
    double mn, mx; /* of the round medians: not wanted, min and max are the windows' */
    stats(h->round_med, h->rounds, &h->med, &mn, &mx);
    double v[3][ROUNDS_MAX];
    for (int k = 0; k < h->rounds; k++) {
        v[0][k] = h->cnt_round[k].instr;
        v[1][k] = h->cnt_round[k].cycles;
        v[2][k] = h->cnt_round[k].l1d;
    }
    h->cnt.instr = finite_median(v[0], h->rounds);
    h->cnt.cycles = finite_median(v[1], h->rounds);
    h->cnt.l1d = finite_median(v[2], h->rounds);
    h->min = c->min < h->min ? c->min : h->min;
    h->max = c->max > h->max ? c->max : h->max;
    h->seconds += c->seconds;
    h->last = c->last;
}

void run_wdef(int w)
{
    const struct wdef *wd = &wdefs[w];
    char nb[32];
    if (wd->id == W_FIG9 || wd->id == W_SERVICE)
        return; /* run_fig9(), run_service() */
    int sweep = wd->id == WL_TTL && wd->ttls == 0;
    struct series *s1 = new_series(wd->name, wd->figure, sweep);
    struct series *s2 = wd->name2 ? new_series(wd->name2, wd->figure2, sweep) : NULL;
    s1->wl = wd->id;
    if (s2) {
        s2->wl = wd->id;
        s2->second = 1;
        if (wd->unit2)
            s2->unit = wd->unit2;
    }
    int npts = wdef_points(wd, s1->n, s1->d);
    for (int xi = 0; xi < npts; xi++)
        s1->x[xi] = sweep ? (double)s1->d[xi] : (double)s1->n[xi];
    s1->nx = npts;
    if (s2) {
        s2->nx = npts;
        memcpy(s2->x, s1->x, sizeof s1->x);
        memcpy(s2->n, s1->n, sizeof s1->n);
        memcpy(s2->d, s1->d, sizeof s1->d);
    }
    for (int xi = 0; xi < npts; xi++) {
        uint64_t t1 = bench_now_ns();
        /* --rounds R: the targets run R times, in turn, forwards in even
         * rounds and backwards in odd ones, so that a drift of the machine
         * (a neighbour's load) falls on all of them alike; each cell keeps
         * the median of every round, and the ratios in the table are the
         * medians of the ratios within a round (print_series). */
        for (int r = 0; r < opt.rounds; r++) {
            for (int k = 0; k < ntargets; k++) {
                int ti = r & 1 ? ntargets - 1 - k : k;
                if (sweep && !is_sweep_target(&targets[ti]))
                    continue;
                struct cell *h1 = &s1->cell[xi][ti], *h2 = s2 ? &s2->cell[xi][ti] : NULL;
                struct cell c1 = {0}, c2 = {0};
                if (run_cell(wd, s1->n[xi], s1->d[xi], ti, &c1, h2 ? &c2 : NULL, h1)) {
                    *h1 = c1; /* copied whole, rounds and all */
                    h1->copied = 1;
                    if (h2) {
                        *h2 = c2;
                        h2->copied = 1;
                    }
                    continue;
                }
                merge_round(h1, &c1, r);
                if (h2)
                    merge_round(h2, &c2, r);
            }
        }
        if (!g_tty)
            progress("%s n=%s%s%.0u took %.1f s", wd->name, fmt_n(s1->n[xi], nb, sizeof nb),
                     sweep ? " D=" : "", sweep ? s1->d[xi] : 0,
                     (double)(bench_now_ns() - t1) / 1e9);
    }
}

/* ------------------------------------------------------------- fig9 */

#ifdef TWBENCH_FIG9
static double fig9_slope(int k)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < fig9.npts; i++) {
        if (!(fig9.ns[k][i] > 0))
            continue;
        double x = log((double)fig9.n[i]), y = log(fig9.ns[k][i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        m++;
    }
    return m >= 2 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : 0;
}

void run_fig9(void)
{
    char nb[32];
    if (ropt.counts) {
        fig9.have = 0;
        fig9.why = "not run under --counts: its figures are times, and callgrind does not "
                   "count its windows";
        return;
    }
    fig9.npts = (int)fig9_points(fig9.n);
    if (fig9.npts < 2) {
        fig9.have = 0;
        fig9.why = "fewer than two values of n in 1e3..1e5 (fig9 needs a range of n)";
        return;
    }
    double ratios[FIG9_MAX];
    for (int i = 0; i < fig9.npts; i++) {
        struct fig9_measurement m;
        unsigned reps = (unsigned)reps_for(fig9.n[i]);
        snprintf(bench_where, sizeof bench_where, "fig9, n=%s", fmt_n(fig9.n[i], nb, sizeof nb));
        if (g_tty)
            progress("fig9 n=%s", nb);
        uint64_t t1 = bench_now_ns();
        int rc = fig9_measure(fig9.n[i], reps, mix(ropt.seed, fig9.n[i]), &m);
        if (rc)
            bench_die("fig9_measure(%zu): %s", fig9.n[i], tw_strerror(rc));
        prog.done += FIG9_COST_PER_N;
        prog.cells_done++;
        if (!g_tty)
            progress("fig9 n=%s took %.1f s", nb, (double)(bench_now_ns() - t1) / 1e9);
        fig9.ns[0][i] = m.v[FIG9_BSD_LIST].median_ns;
        fig9.ns[1][i] = m.v[FIG9_WHEEL_HASH].median_ns;
        fig9.ns[2][i] = m.v[FIG9_WHEEL_HANDLE].median_ns;
        ratios[i] = m.handle_over_hash;
    }
    for (int k = 0; k < 3; k++)
        fig9.slope[k] = fig9_slope(k);
    qsort(ratios, (size_t)fig9.npts, sizeof ratios[0], cmp_double);
    fig9.order_ratio = fig9.npts % 2 ? ratios[fig9.npts / 2]
                                     : (ratios[fig9.npts / 2 - 1] + ratios[fig9.npts / 2]) / 2;
    fig9.linear_ok = fig9.slope[0] > 0.7;
    fig9.flat_ok = fig9.slope[1] < 0.3 && fig9.slope[2] < 0.3;
    fig9.order_ok = fig9.order_ratio < 1.0;
    fig9.have = 1;
}
#else
void run_fig9(void)
{
    fig9.have = 0;
    fig9.why = "not built: bench/fig9.c (the callout layer's experiment) is not in this tree yet";
}
#endif

/* ------------------------------------------------------------- service */

/* The service workload's targets, of svcbench.c's (its inbox prototype is
 * twsvc's alone). */
static const char *const svc_names[] = {
    "facility", "refwheel", "service",     "service_at", "service_restart", "service_restart_at",
    "locked",   "heap",     "heap_key",    "heap_key_at", "ordered",        "posix",
    "timerfd"};
_Static_assert(sizeof svc_names / sizeof svc_names[0] <= SVC_TARGETS_MAX,
               "SVC_TARGETS_MAX holds the service workload's targets");

/* The points the service workload runs: the run's n up to 10^6. */
static int svc_points(size_t *n)
{
    int k = 0;
    for (int i = 0; i < opt.nn && k < X_MAX; i++)
        if (opt.n[i] <= 1000000)
            n[k++] = opt.n[i];
    return k;
}

static unsigned svc_window_ms(void)
{
    return ropt.quick ? 100 : 300;
}

int svc_cells(void)
{
    size_t n[X_MAX];
    return svc_points(n) * SVC_THREADS * (int)(sizeof svc_names / sizeof svc_names[0]);
}

void run_service(void)
{
    char nb[32];
    memset(&svcres, 0, sizeof svcres);
    if (ropt.counts) {
        svcres.why = "not run under --counts: its figures are times of threads on the real clock";
        return;
    }
    svcres.npts = svc_points(svcres.n);
    if (svcres.npts == 0) {
        svcres.why = "no n up to 1e6 in this run";
        return;
    }
    static const unsigned thr[SVC_THREADS] = {1, 2, 4, 8};
    memcpy(svcres.threads, thr, sizeof thr);
    svcres.ms = svc_window_ms();
    svcres.ntargets = (int)(sizeof svc_names / sizeof svc_names[0]);
    for (int t = 0; t < svcres.ntargets; t++) {
        int k = -1;
        for (int j = 0; j < svc_target_count(); j++)
            if (!strcmp(svc_target_name(j), svc_names[t]))
                k = j;
        if (k < 0)
            bench_die("service: svcbench.c has no target %s", svc_names[t]);
        svcres.target[t] = svc_names[t];
        svcres.what[t] = svc_target_what(k);
        for (int h = 0; h < SVC_THREADS; h++)
            for (int i = 0; i < svcres.npts; i++) {
                snprintf(bench_where, sizeof bench_where, "service, %s, %u threads, n=%s",
                         svc_names[t], thr[h], fmt_n(svcres.n[i], nb, sizeof nb));
                if (g_tty)
                    progress("service %s T=%u n=%s", svc_names[t], thr[h], nb);
                struct svc_cell c = svc_measure(k, svcres.n[i], thr[h], svcres.ms);
                svcres.status[t][h][i] = c.status;
                svcres.mops[t][h][i] = c.mops;
                svcres.p50[t][h][i] = (double)c.p50;
                svcres.p99[t][h][i] = (double)c.p99;
                prog.done += SVC_COST_PER_CELL;
                prog.cells_done++;
            }
        if (!g_tty)
            progress("service %s done", svc_names[t]);
    }
    svcres.have = 1;
}

int svc_row_run(int t, int h)
{
    for (int i = 0; i < svcres.npts; i++)
        if (svcres.status[t][h][i] != 2)
            return 1;
    return 0;
}
