/*
 * plan.c -- what a twbench run will do before it does it: the spec of
 * every cell (intervals, operations per window, windows) fitted to its
 * target, or why the cell is skipped; the points of each series; the check
 * that the largest n fits in this machine's memory; and the progress line,
 * from every cell's a priori cost.
 */
#define _GNU_SOURCE

#include "twbench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

/* The ttl sweep's values of D. */
static const uint32_t sweep_d[] = {1, 8, 64, 512, 4096, 32768, 100000, 1000000};
#define NSWEEP ((int)(sizeof sweep_d / sizeof sweep_d[0]))

int reps_for(size_t n)
{
    if (ropt.reps)
        return ropt.reps;
    if (ropt.counts)
        return 1; /* callgrind's counts hardly move from window to window */
    if (ropt.quick)
        return 3;
    return n >= 1000000 ? 3 : 5;
}

/* twheel's TTL schemes and their references (heap, hierarchical), and
 * refwheel, the lean wheel: not the event loops. */
int is_sweep_target(const struct target *t)
{
    return t->scheme == TW_HEAP || t->scheme == TW_HIERARCHICAL || t->scheme == TW_LAWN ||
           t->scheme == TW_HYBRID || t->peer == PEER_REFWHEEL;
}

/* ------------------------------------------------------------- memory */

/* Bytes one pending timer may need at most, over the selected targets and
 * workloads: the node and its user pointer, the facility's share (heap
 * entries, a Lawn queue per timer in the worst case), the workload's
 * arrays (ttl-8-fifo's start numbers and its sort's scratch among them);
 * times 1.25 for the ttl pool's slack. */
static double bytes_per_timer_estimate(void)
{
    double node = sizeof(struct bnode);
    for (int ti = 0; ti < ntargets; ti++) {
        /* the event loops' nodes: ev_timer 32-64, uv_timer_t ~150, struct
         * event ~130 (refwheel's, 32 bytes, is smaller than twheel's) */
        if (is_loop_peer(&targets[ti]) && !targets[ti].missing)
            node = node > 168 ? node : 168;
    }
    return (node + 96 + 24 + 24) * 1.25;
}

static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    double kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024.0;
}

void check_memory(void)
{
    size_t nmax = opt.n[opt.nn - 1];
    double per = bytes_per_timer_estimate();
    double need = per * (double)nmax;
    double have = mem_available();
    if (have > 0 && need > 0.8 * have)
        usage_error("--n %zu would need about %.1f GB (%.0f bytes per timer: node, the "
                    "structure's share, the workload's arrays), more than 80%% of the %.1f GB "
                    "available here; refusing",
                    nmax, need / 1e9, per, have / 1e9);
    if (nmax > UINT32_MAX / 2)
        usage_error("--n %zu is beyond what twbench indexes (at most %u)", nmax, UINT32_MAX / 2);
}

/* ------------------------------------------------------------- planning */

/* Fill the spec of one cell, or say why it does not run. */
enum cell_state plan_cell(const struct target *t, int wl, size_t n, uint32_t D,
                          struct wl_spec *s, const char **why)
{
    const uint64_t k16 = 1u << 16;
    memset(s, 0, sizeof *s);
    s->wl = (enum wl_id)wl;
    s->scheme = t->scheme;
    s->options = t->options;
    s->n = n;
    s->ttls = D;
    s->reps = reps_for(n);
    s->check = ropt.check;
    if (t->missing) {
        *why = t->missing;
        return CELL_MISSING;
    }
    int list = t->scheme == TW_LIST, ordered = t->scheme == TW_ORDERED;
    /* What would take minutes: see the top of twbench.c. */
    int ticks = wl != WL_STARTSTOP && wl != WL_CHURN;
    if (wl == WL_TTL && n > 1000 && (ordered || list)) {
        *why = "skipped (O(n) per start or advance)";
        return CELL_SKIP;
    }
    if (n > 10000 && (ordered || (list && ticks))) {
        *why = "skipped (O(n))";
        return CELL_SKIP;
    }
    if (!opt.n_given && n > 100000 && t->scheme == TW_HASHED_SORTED) {
        *why = "skipped unless --n asks (O(n/M) per start; --n 1e6 runs it)";
        return CELL_SKIP;
    }
    /* The default run's time budget: libuv's and libevent's binary heaps
     * miss the cache at every level from n = 1e6 on, 3-9 s per cell in
     * expire, ttl-8, ttl-64 and ttl-8-fifo (D = 8 too); they run there only
     * when --n asks. */
    if (!opt.n_given && n >= 1000000 && (t->peer == PEER_LIBUV || t->peer == PEER_LIBEVENT) &&
        (wl == WL_EXPIRE || (wl == WL_TTL && (D == 8 || D == 64)))) {
        *why = "skipped unless --n asks (3-9 s per cell; --n 1e6 runs it)";
        return CELL_SKIP;
    }
    const uint64_t eighth = n / 8; /* windows at large n: an eighth of the timers */
    switch (wl) {
    case WL_STARTSTOP:
        s->lo = 1;
        s->hi = k16;
        s->ops = eighth > 2 * k16 ? eighth : 2 * k16;
        if (ordered && s->ops > 4096)
            s->ops = 4096; /* each start is O(n): a sample of the same steady state */
        break;
    case WL_CHURN:
        s->lo = 1u << 20;
        s->hi = 1u << 21;
        s->ops = 2 * k16;
        break;
    case WL_EXPIRE:
        s->lo = 1;
        s->hi = k16;
        s->hi2 = t->max_interval < WL_EXPIRE_JUMP ? t->max_interval : WL_EXPIRE_JUMP;
        break;
    case WL_TCP:
        s->lo = 1;
        s->hi = k16;
        s->ops = eighth > k16 ? eighth : k16; /* restarts per window */
        if (list || ordered)
            s->ops = 8192; /* O(n) per tick or per restart */
        break;
    case WL_TICK:
        s->lo = WL_JUMP_LO;
        s->hi = WL_JUMP_HI;
        s->ops = k16;
        if (list) { /* O(n) per advance: fewer advances, same figure */
            uint64_t a = (1u << 24) / n;
            s->ops = a < 256 ? 256 : a > k16 ? k16 : a;
        }
        break;
    case WL_TTL: {
        s->lo = TTL_R;
        s->hi = 2 * TTL_R - 1;
        s->ops = n / 16 > k16 / 2 ? n / 16 : k16 / 2; /* starts per window */
        if (list || ordered)
            s->ops = 4096;
        if (t->scheme == TW_HASHED && n > 100000) {
            *why = "skipped (walks n/M timers per tick; TTLs ~370 revolutions)";
            return CELL_SKIP;
        }
        break;
    }
    }
    /* lawn_scan scans every non-empty queue at each advance with something
     * due: skip a run whose scans would take more than ~4 s.  With D
     * distinct TTLs equally likely, q = D (1 - e^(-n/D)) queues hold a
     * timer; a queue visited costs ~2 ns while the queues fit in the
     * caches, a miss (~40 ns) beyond. */
    if (t->scheme == TW_LAWN && (t->options & TW_OPT_LAWN_SCAN)) {
        double win = (double)(s->reps + 1), visits = 0;
        double dd = wl == WL_TTL ? (double)D : 65536.0;
        double q = dd * -expm1(-(double)n / dd);
        double due = (double)n / 65536.0 < 1 ? (double)n / 65536.0 : 1; /* share of ticks */
        if (wl == WL_TTL)
            visits = q * (2.0 * (double)n + win * (double)s->ops); /* ~1 advance per start */
        else if (wl == WL_EXPIRE)
            visits = q * 65536.0 * due * win;
        else if (wl == WL_TCP)
            visits = q * due * (4096.0 + win * (double)s->ops / (20.0 * (double)n / 65536.0));
        if (visits * (q < 4096 ? 2e-9 : 4e-8) > 4.0) {
            *why = "skipped (scans every queue per advance)";
            return CELL_SKIP;
        }
    }
    uint64_t need = wl == WL_CHURN ? 2 * s->hi : s->hi;
    if (need > t->max_interval) {
        if (wl == WL_CHURN || wl == WL_TICK || wl == WL_TTL) {
            *why = "n/a (intervals beyond its MaxInterval)";
            return CELL_NA;
        }
        s->hi = t->max_interval; /* wheel: intervals in [1, MaxInterval] */
    }
    *why = NULL;
    return CELL_OK;
}

/* The points (n, D) of a workload's series: every n of the run, or for
 * the sweep the values of D at one n (the run's largest, at most 1e6). */
int wdef_points(const struct wdef *wd, size_t *n, uint32_t *d)
{
    int npts = 0;
    if (wd->id == WL_TTL && wd->ttls == 0) {
        size_t nsweep = opt.n[opt.nn - 1] < 1000000 ? opt.n[opt.nn - 1] : 1000000;
        for (int k = 0; k < NSWEEP; k++)
            if (sweep_d[k] <= (nsweep > TTL_MANY ? nsweep : TTL_MANY)) {
                n[npts] = nsweep;
                d[npts] = sweep_d[k];
                npts++;
            }
    } else {
        for (int k = 0; k < opt.nn; k++) {
            n[npts] = opt.n[k];
            d[npts] = wd->ttls;
            npts++;
        }
    }
    return npts;
}

#ifdef TWBENCH_FIG9
/* The n of the experiment: from the run's smallest n up to its largest, at
 * most 1e5 (the BSD list takes seconds per window beyond), with points in
 * between for the slope. */
static const size_t fig9_n[] = {1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
                                1000000};

/* The n of the experiment: from the run's smallest n up to its largest, at
 * most 1e5 unless --n asks for more. */
size_t fig9_points(size_t *n)
{
    size_t lo = opt.n[0], hi = opt.n[opt.nn - 1], k = 0;
    size_t cap = hi > 100000 && !opt.n_given ? 100000 : hi;
    for (size_t i = 0; i < sizeof fig9_n / sizeof fig9_n[0] && k < FIG9_MAX; i++)
        if (fig9_n[i] >= lo && fig9_n[i] <= cap)
            n[k++] = fig9_n[i];
    return k < 2 ? 0 : k;
}
#else
size_t fig9_points(size_t *n)
{
    (void)n;
    return 0;
}
#endif

/* ------------------------------------------------------------- progress */

/*
 * Progress over the whole run: before the first cell, every cell that will
 * run is planned and given an a priori cost in seconds (cell_cost(), fitted
 * to this project's reference machine, a 2-core VM); as cells finish, the
 * time left is the planned cost still ahead scaled by how fast this
 * machine has gone through the planned cost behind.  On a terminal: one
 * line with a bar, rewritten in place; otherwise one plain line per n.
 */
struct prog_state prog;
int g_tty;

/* How much longer a cell takes under --counts: callgrind with its cache
 * simulation, on the reference machine at n = 1e3 and 1e4. */
#define COUNTS_SLOWDOWN 60.0

/* The planned seconds of one cell, from its spec: warm-up and measured
 * windows of `ops` operations, plus setting up n timers, at a per-op cost
 * that grows with n as the timers leave the caches, times a factor for
 * the target.  Fitted to a full run's per-cell seconds on the reference
 * machine (within about 2x per cell; the whole run's estimate is what
 * counts, and the time left corrects itself as cells finish). */
double cell_cost(const struct target *t, const struct wl_spec *s)
{
    enum { C_OTHER, C_EXPIRE, C_TICK, C_TTL };
    enum { T_WHEEL, T_HEAP, T_LAWN, T_SCAN, T_HASHED, T_LIBEV, T_LOOP };
    /* ns per op and per timer set up, at n = 1e3, 1e4, 1e5, 1e6 */
    static const double decade[4][4] = {
        {0.21, 0.24, 1.15, 5.3},   /* startstop, churn, restart, tcp, idle */
        {0.20, 0.33, 0.71, 1.6},   /* expire */
        {0.06, 0.11, 0.67, 7.0},   /* tick */
        {0.52, 0.30, 1.01, 2.9},   /* ttl */
    };
    static const double target[4][7] = {
        /* wheel (and refwheel) heap lawn scan hashed libev libuv/libevent */
        {1, 2, 6, 10, 1.2, 1.6, 4.4},
        {1, 2.2, 5, 10, 3, 5, 14},
        {1, 2.2, 5, 5, 1.3, 6, 10},
        {1, 1.8, 0.9, 2, 20, 1.8, 5.2},
    };
    static const double per_op[4] = {150, 0, 20, 500}, per_timer[4] = {60, 400, 60, 300};
    int c = s->wl == WL_EXPIRE ? C_EXPIRE : s->wl == WL_TICK ? C_TICK : s->wl == WL_TTL ? C_TTL
                                                                                       : C_OTHER;
    int k = t->peer == PEER_LIBUV || t->peer == PEER_LIBEVENT ? T_LOOP
          : t->peer == PEER_LIBEV                             ? T_LIBEV
          : t->scheme == TW_HEAP                              ? T_HEAP
          : t->scheme == TW_HASHED                            ? T_HASHED
          : t->scheme == TW_LAWN && (t->options & TW_OPT_LAWN_SCAN) ? T_SCAN
          : t->scheme == TW_LAWN                              ? T_LAWN
                                                              : T_WHEEL;
    double n = (double)s->n, windows = (double)(s->reps + 1);
    double lg = log10(n < 1000 ? 1000 : n) - 3;
    int d = lg >= 3 ? 3 : (int)lg;
    double f = decade[c][d] * target[c][k] * (lg > 3 ? pow(10, lg - 3) : 1);
    double per_window = (double)s->ops * per_op[c] + (c == C_EXPIRE ? n * per_timer[c] : 0);
    double slow = ropt.counts ? COUNTS_SLOWDOWN : 1;
    return slow * (0.01 + f * (windows * per_window + n * per_timer[c]) * 1e-9);
}

void fmt_secs(double secs, char *buf, size_t len)
{
    long v = lround(secs < 0 ? 0 : secs);
    if (v >= 60)
        snprintf(buf, len, "%ld min %02ld s", v / 60, v % 60);
    else
        snprintf(buf, len, "%ld s", v);
}

/* Time left, in seconds: planned cost ahead at the speed seen so far (the
 * planned cost itself until a few percent are done). */
static double prog_left(void)
{
    double elapsed = (double)(bench_now_ns() - prog.t0) / 1e9;
    double ahead = prog.total - prog.done;
    if (prog.done < 0.03 * prog.total || elapsed < 2)
        return ahead;
    return ahead * elapsed / prog.done;
}

/* Report progress: `what` is the cell now starting (terminal) or the
 * point just finished (plain lines). */
void progress(const char *fmt, ...)
{
    char what[160], left[32], spent[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fmt_secs(prog_left(), left, sizeof left);
    fmt_secs((double)(bench_now_ns() - prog.t0) / 1e9, spent, sizeof spent);
    int pct = prog.total > 0 ? (int)(100 * prog.done / prog.total) : 0;
    pct = pct > 100 ? 100 : pct;
    if (g_tty) {
        /* One line no wider than the terminal: a wrapped line would leave
         * its first part behind at every update. */
        struct winsize ws;
        int cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
        char bar[21], line[512];
        int fill = pct / 5;
        for (int i = 0; i < 20; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[20] = '\0';
        int len = snprintf(line, sizeof line, "[%s] %3d%%  %d/%d cells, %s, about %s left  %s",
                           bar, pct, prog.cells_done, prog.cells, spent, left, what);
        if (len > cols - 1)
            len = cols - 1;
        fprintf(stderr, "\r\033[K%.*s", len < 0 ? 0 : len, line);
    } else {
        fprintf(stderr, "twbench: %3d%% (%d/%d cells, %s, about %s left): %s\n", pct,
                prog.cells_done, prog.cells, spent, left, what);
    }
    fflush(stderr);
}

/* A line that stays: ends the bar's line on a terminal first. */
void progress_end(const char *fmt, ...)
{
    va_list ap;
    if (g_tty)
        fputs("\r\033[K", stderr);
    fputs("twbench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

/* Plan the whole run for the progress line: every cell that will run, with
 * its planned cost. */
void plan_run(void)
{
    /* The ttl points measured once and copied under other names (run_cell):
     * counted as cells, at no cost. */
    static struct {
        size_t n;
        uint32_t d;
        int ti;
    } seen[NWDEFS * X_MAX * TARGETS_MAX];
    int nseen = 0;
    memset(&prog, 0, sizeof prog);
    for (int i = 0; i < opt.nsel; i++) {
        const struct wdef *wd = &wdefs[opt.wsel[i]];
        if (wd->id == W_SERVICE) {
            if (ropt.counts)
                continue; /* not run: its figures are times */
            int k = svc_cells();
            prog.total += (double)k * SVC_COST_PER_CELL;
            prog.cells += k;
            continue;
        }
        if (wd->id == W_FIG9) {
            if (ropt.counts)
                continue; /* not run: its figures are times */
            size_t n[FIG9_MAX];
            size_t k = fig9_points(n);
            prog.total += (double)k * FIG9_COST_PER_N;
            prog.cells += (int)k;
            continue;
        }
        int sweep = wd->id == WL_TTL && wd->ttls == 0;
        size_t n[X_MAX];
        uint32_t d[X_MAX];
        int npts = wdef_points(wd, n, d);
        for (int xi = 0; xi < npts; xi++)
            for (int ti = 0; ti < ntargets; ti++) {
                struct wl_spec spec;
                const char *why;
                if (sweep && !is_sweep_target(&targets[ti]))
                    continue;
                if (plan_cell(&targets[ti], wd->id, n[xi], d[xi], &spec, &why) != CELL_OK)
                    continue;
                prog.cells += opt.rounds;
                if (wd->id == WL_TTL && !wd->fifo) {
                    int k = 0;
                    while (k < nseen &&
                           !(seen[k].n == n[xi] && seen[k].d == d[xi] && seen[k].ti == ti))
                        k++;
                    if (k < nseen)
                        continue; /* a copy */
                    seen[nseen].n = n[xi];
                    seen[nseen].d = d[xi];
                    seen[nseen++].ti = ti;
                }
                prog.total += opt.rounds * cell_cost(&targets[ti], &spec);
            }
    }
    prog.t0 = bench_now_ns();
}
