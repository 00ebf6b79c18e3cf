/*
 * twbench -- measures every twheel scheme, and beside them its peers: the
 * timers of libev, libuv and libevent, and refwheel, a lean hierarchical
 * wheel written here from the paper (the yardstick of an embedded wheel), on
 * the workloads of docs/benchmarks.md; reproduces the paper's Fig. 9; fits
 * the complexity slopes; writes a report.
 *
 * Workloads (exact definitions in workloads.h):
 *
 *     startstop  n pending, random intervals in [1, 2^16]; ns per stop+start
 *                of a random timer
 *     churn      the paper's Fig. 9 test on the plain API: n pending far out
 *                ([2^20, 2^21]), one more timer stopped and restarted
 *                farther out than all of them; ns per stop+start, and
 *                (churn-any) the same for a random one of the n, restarted
 *                beyond all: a cold node at large n
 *     restart    the same operations, each one call of the target's own
 *                restart of a pending timer (tw_start() on it; libev's
 *                ev_timer_again(); libuv's uv_timer_start(); libevent's
 *                event_add()), and (restart-any) for a random one of the n
 *     expire     start n with intervals in [1, 2^16], advance tick by tick
 *                until all fired; ns per timer, both phases; and
 *                (expire-jump) start them again with deadlines up to
 *                2^40, then one advance by 2^40 + 1 ticks that fires
 *                them all; ns per timer of that advance
 *     tcp        steady state, ~95% of timers stopped before they expire;
 *                ns per operation (restart or expiry)
 *     idle       tcp's steady state with a fixed idle timeout of 2^16 ticks,
 *                each reset one call of the target's restart (as restart);
 *                ns per operation (reset or expiry)
 *     tick       n pending far out ([2^43, 2^44)); ns per advance of one tick
 *                with nothing due, and (tick-jump) ns per jump of 2^36 ticks
 *     ttl-1, ttl-8, ttl-64, ttl-many
 *                timers started continuously with TTLs from a set of 1, 8,
 *                64 or 10^5 distinct values in [10^6, 2*10^6) ticks, n
 *                pending in the steady state; ns per timer (start + expire)
 *                and (ttl-*-stop) ns per stop of a random pending timer
 *     ttl-8-fifo as ttl-8, and (ttl-8-fifo-stop) ns per stop of the timer
 *                started longest ago (request timeouts answered in order)
 *     ttl-sweep  the same at one n (the largest of the run, at most 1e6)
 *                over D = 1, 8, 64, 512, 4096, 32768, 10^5, 10^6 distinct
 *                TTLs, for heap, hierarchical, lawn, lawn_scan and hybrid:
 *                where lawn stops beating the hierarchical wheel
 *     fig9       the paper's section VII experiment on the callout layer
 *                (bench/fig9.c): (a) the old BSD sorted list, (b) Scheme 6
 *                through untimeout()/timeout(), (c) Scheme 6 with handles
 *     service    tw_service from 1, 2, 4 and 8 threads in real time against
 *                one facility behind a mutex, a mutex + heap thread, the
 *                ordered list behind a mutex, POSIX timers and timerfds
 *                (bench/svcbench.c, which twsvc runs on its own too)
 *
 * Targets: every scheme this build of twheel implements, lawn_scan (lawn
 * with TW_OPT_LAWN_SCAN: the paper's per-tick scan of every queue instead
 * of the heap of queue heads), refwheel (refwheel.c, always built, called
 * directly) and the event-loop peers found at build time, which run in
 * virtual time: see vclock.c and peer_*.c for exactly what is and is not
 * measured.
 *
 * Method.  For each workload, n and target: one warm-up window that is
 * thrown away, then --reps measured windows (default: 5 below n = 1e6, 3
 * from 1e6 on), timed as a whole with CLOCK_MONOTONIC (successive windows
 * of one steady-state run, or fresh facilities for expire: workloads.h);
 * seeds are fixed by
 * (--seed, workload, n, D) and the same for every target.  Tables show the
 * median; the JSON adds min, max and every sample.  Timer nodes are one
 * array of a struct embedding the target's node plus a pointer-sized user
 * field; setup starts them in a random order.
 *
 * Fitting the workloads to a target:
 *   - wheel accepts intervals up to its MaxInterval (default 4096): its
 *     startstop, expire and tcp draw intervals in [1, MaxInterval] instead
 *     of [1, 2^16]; churn, tick and ttl, whose intervals are far longer,
 *     are "n/a" for it;
 *   - list (O(n) per tick with something due) and ordered (O(n) per start)
 *     would take minutes: n > 1e4 is skipped for list in every workload
 *     that advances time, and for ordered in every workload (filling it in
 *     random order is O(n^2)); in the ttl workloads n > 1e3 is skipped for
 *     both (each start or advance there is O(n) with n = 1e4 already
 *     costing seconds per run);
 *   - hashed_sorted keeps n/M timers per sorted slot (M = 4096 slots by
 *     default), so a start walks ~n/2M nodes: n > 1e5 is skipped for it in
 *     runs without --n (with --n, 1e6 runs: ~100 s for churn, expire, tcp
 *     and tick);
 *   - hashed (Scheme 6) walks n/M timers per tick: in the ttl workloads,
 *     whose TTLs are ~370 revolutions of its 4096 slots, n > 1e5 is skipped;
 *   - lawn_scan scans every non-empty queue at each advance with something
 *     due: a run is skipped when its scans would take more than ~4 s (in
 *     expire and tcp, whose intervals take ~n distinct values up to 2^16,
 *     from n = 1e4 on; in ttl when D and n are both large);
 *   - unless --n is given: at n = 1e6, libuv and libevent run startstop,
 *     churn, restart, tcp, idle, tick, ttl-1 and ttl-many but not expire,
 *     ttl-8, ttl-64 and ttl-8-fifo (their pointer heaps miss the cache at
 *     every level: 3-9 s per cell); an explicit --n runs all.
 *
 * Runs: the default (about 2 minutes on 2 cores) takes the workloads and
 * targets of default_workloads[] and default_schemes[]; --full every
 * workload and target (about 8 minutes); --quick every workload and target
 * at n = 1e3 and 1e4.
 *
 * Bytes per timer: the node (sizeof(struct tw_timer), or the peer's) plus
 * the target's own memory with n timers pending, divided by n.
 *
 * Counts: each cell also gets instructions, cycles and L1D misses per
 * operation over the same timed phases (the median over the windows),
 * from the CPU's counters where the kernel allows them (perf_event_open),
 * or with --counts from callgrind: twbench runs itself again under it,
 * and every figure of that run is instructions per operation, not a time
 * (counters.c).
 *
 * Output: tables on stdout, progress on stderr (a bar with the time left on
 * a terminal, a line per point otherwise), and (unless --out is empty)
 * report.html, summary.md, twbench.json, the SVG plots (up to about six
 * lines each, one or more per figure) and fig9.svg in --out DIR (default
 * ./twbench-report).
 *
 * Exit status: 0, 1 if a run failed (a library call misbehaved) or the
 * report could not be written, 2 for a usage error.
 */
#define _GNU_SOURCE

#include "twbench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * The parts of twbench, each a file under bench/: this one has main(), the
 * twheel target's driver and the targets of the run; cli.c reads the
 * options; plan.c plans every cell and draws the progress line; run.c runs
 * them; claims.c judges the slopes and finds the lawn crossover; print.c
 * writes the tables on stdout; report.c and report_*.c write the report's
 * files; advise.c is `twbench advise`; peer_*.c and vclock.c run the peers
 * (peer_refwheel.c the wheel of refwheel.c); counters.c counts each
 * window's timed phases and starts --counts's run under callgrind; util.c
 * has what they all share.
 */

/* ============================================================ twheel driver */

/* The user's struct is struct bnode (twbench.h): a timer node and one
 * pointer of user data. */

struct drv {
    struct tw *tw;
    struct bnode *nodes;
    size_t count;
};

static void bnode_fired(struct tw *tw, struct tw_timer *t)
{
    struct bnode *b = tw_container_of(t, struct bnode, timer);
    struct wl_ctx *c = b->user;
    wl_fired(c, (size_t)(b - (const struct bnode *)c->nodes));
    if (c->rearm) {
        int rc = tw_start(tw, t, rng_range(&c->rng, c->lo, c->hi));
        if (rc)
            bench_die("tw_start from a callback: %s", tw_strerror(rc));
    }
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    struct tw_config cfg;
    tw_config_init(&cfg, (enum tw_scheme)s->scheme);
    cfg.options = s->options;
    int rc = tw_create(&d->tw, &cfg);
    if (rc) {
        fprintf(stderr, "twbench: tw_create(%s): %s\n", tw_scheme_name((enum tw_scheme)s->scheme),
                tw_strerror(rc));
        return -1;
    }
    d->count = nodes;
    d->nodes = calloc(nodes ? nodes : 1, sizeof *d->nodes);
    if (d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    for (size_t i = 0; i < nodes; i++) {
        tw_timer_init(&d->nodes[i].timer, bnode_fired);
        d->nodes[i].user = c;
    }
    c->nodes = d->nodes;
    return 0;
}

static void drv_close(struct drv *d)
{
    int rc = tw_destroy(d->tw);
    if (rc)
        bench_die("tw_destroy: %s", tw_strerror(rc));
    free(d->nodes);
}

static inline void drv_start(struct drv *d, size_t i, uint64_t interval)
{
    int rc = tw_start(d->tw, &d->nodes[i].timer, interval);
    if (__builtin_expect(rc != 0, 0))
        bench_die("tw_start(%llu): %s", (unsigned long long)interval, tw_strerror(rc));
}

static inline void drv_stop(struct drv *d, size_t i)
{
    int rc = tw_stop(d->tw, &d->nodes[i].timer);
    if (__builtin_expect(rc != 1, 0))
        bench_die("tw_stop of a pending timer returned %d (%s)", rc, tw_strerror(rc));
}

/* A pending timer restarted: tw_start() moves it, one call. */
static inline void drv_restart(struct drv *d, size_t i, uint64_t interval)
{
    drv_start(d, i, interval);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    int64_t rc = tw_advance(d->tw, now);
    if (__builtin_expect(rc < 0, 0))
        bench_die("tw_advance(%llu): %s", (unsigned long long)now, tw_strerror((int)rc));
}

static size_t drv_node_bytes(void) { return sizeof(struct tw_timer); }

static size_t drv_facility_bytes(struct drv *d) { return tw_memory(d->tw); }

static void drv_check(struct drv *d, const char *when)
{
    char msg[256];
    if (tw_check(d->tw, msg, sizeof msg))
        bench_die("tw_check %s: %s", when, msg);
}

#define WL_RUN tw_target_run
#include "workloads.h"

/* ================================================================= harness */

struct target targets[TARGETS_MAX];
int ntargets;
struct series series[SERIES_MAX];
int nseries;
struct fig9_result fig9;
struct service_result svcres;
struct crossover cross;
struct machine machine;
struct run_opts ropt;

/* ------------------------------------------------------------- targets */

static struct target *new_target(const char *name)
{
    if (ntargets == TARGETS_MAX)
        bench_die("more than %d targets", TARGETS_MAX);
    struct target *t = &targets[ntargets++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->scheme = -1;
    t->max_interval = UINT64_MAX;
    return t;
}

static void add_peer(enum peer_id p, const char *name, int sel)
{
    if (!scheme_wanted(sel))
        return;
    struct target *t = new_target(name);
    t->peer = p;
    int rc = -1;
    switch (p) {
    case PEER_LIBEV:
        t->tick = "1 us";
        t->late = 1;
#ifdef TW_HAVE_LIBEV
        t->run = libev_target_run;
        rc = libev_target_init(ropt.real_poll, &t->info);
#else
        t->missing = "missing: apt-get install libev-dev";
#endif
        break;
    case PEER_LIBUV:
        t->tick = "1 ms";
#ifdef TW_HAVE_LIBUV
        t->run = libuv_target_run;
        rc = libuv_target_init(ropt.real_poll, &t->info);
#else
        t->missing = "missing: apt-get install libuv1-dev";
#endif
        break;
    case PEER_LIBEVENT:
        t->tick = "1 us";
#ifdef TW_HAVE_LIBEVENT
        t->run = libevent_target_run;
        rc = libevent_target_init(ropt.real_poll, &t->info);
#else
        t->missing = "missing: apt-get install libevent-dev";
#endif
        break;
    case PEER_REFWHEEL:
        t->tick = "1 tick";
        t->run = refwheel_target_run;
        rc = refwheel_target_init(&t->info);
        break;
    case PEER_NONE:
        break;
    }
    if (t->missing)
        snprintf(t->info.error, sizeof t->info.error, "%s", t->missing);
    else if (rc)
        t->missing = t->info.error;
}

static void setup_targets(void)
{
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if (!tw_scheme_available((enum tw_scheme)s))
            continue;
        for (int scan = 0; scan <= (s == TW_LAWN); scan++) {
            int sel = scan ? SEL_LAWN_SCAN : s;
            if (!scheme_wanted(sel))
                continue;
            struct tw_config cfg;
            struct tw *tw;
            tw_config_init(&cfg, (enum tw_scheme)s);
            int rc = tw_create(&tw, &cfg);
            if (rc)
                bench_die("tw_create(%s): %s", tw_scheme_name((enum tw_scheme)s),
                          tw_strerror(rc));
            struct target *t = new_target(scan ? "lawn_scan" : tw_scheme_name((enum tw_scheme)s));
            t->scheme = s;
            t->options = scan ? TW_OPT_LAWN_SCAN : 0;
            t->run = tw_target_run;
            t->max_interval = tw_max_interval(tw);
            tw_destroy(tw);
        }
    }
    /* refwheel first: the lean wheel's column sits next to the schemes' */
    add_peer(PEER_REFWHEEL, "refwheel", SEL_REFWHEEL);
    add_peer(PEER_LIBEV, "libev", SEL_LIBEV);
    add_peer(PEER_LIBUV, "libuv", SEL_LIBUV);
    add_peer(PEER_LIBEVENT, "libevent", SEL_LIBEVENT);
}

/* ------------------------------------------------------------- machine */

static void read_machine(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(machine.cpu, sizeof machine.cpu, "unknown");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    p[strcspn(p, "\n")] = '\0';
                    snprintf(machine.cpu, sizeof machine.cpu, "%s", p);
                }
                break;
            }
        fclose(f);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    machine.cpus = cpus > 0 ? (int)cpus : 0;
#ifdef __VERSION__
    snprintf(machine.compiler, sizeof machine.compiler, "%s %s",
#ifdef __clang__
             "clang",
#else
             "gcc",
#endif
             __VERSION__);
#endif
#ifdef TW_BENCH_FLAGS
    snprintf(machine.flags, sizeof machine.flags, "%s", TW_BENCH_FLAGS);
#else
    snprintf(machine.flags, sizeof machine.flags, "-O2");
#endif
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(machine.date, sizeof machine.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
#ifdef TW_GIT_REV
    snprintf(machine.rev, sizeof machine.rev, "%s", TW_GIT_REV);
#endif
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(machine.kernel, sizeof machine.kernel, "%.20s %.80s %.20s", u.sysname, u.release,
                 u.machine);
    if (getloadavg(machine.load_start, 3) < 0)
        machine.load_start[0] = -1;
}

/* ------------------------------------------------------------- main */

/* Can `path` be written?  Opens it without truncating, and removes it if
 * this call created it.  0, or -1 with why in err. */
static int probe_file(const char *path, char *err, size_t len)
{
    if (path[0] == '\0') {
        snprintf(err, len, "an empty path: want a file name");
        return -1;
    }
    int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        snprintf(err, len, "cannot write: %s", strerror(errno));
        return -1;
    }
    fclose(f);
    if (!existed)
        remove(path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "advise") == 0)
        return advise_main(argc - 1, argv + 1);
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(ropt.cmdline);
        snprintf(ropt.cmdline + used, sizeof ropt.cmdline - used, "%s%s", i ? " " : "",
                 i ? argv[i] : "twbench");
    }
    parse_args(argc, argv);
    char err[512];
    if (opt.out && opt.out[0] && report_probe(opt.out, err, sizeof err))
        usage_error("--out: %s", err);
    if (opt.json && probe_file(opt.json, err, sizeof err))
        usage_error("--json %s: %s", opt.json, err);
    /* --counts: this process starts the same command under callgrind, which
     * counts; the child, under callgrind, measures. */
    if (ropt.counts) {
        const char *why = NULL;
        int under = counters_under_callgrind(&why);
        if (under < 0)
            usage_error("--counts: %s", why);
        if (under == 0)
            return counters_reexec(argc, argv);
    }
    counters_init(ropt.counts);
    g_tty = isatty(2);
    vclock_init();
    setup_targets();
    char names[512] = "";
    for (int ti = 0; ti < ntargets; ti++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", ti ? ", " : "",
                 targets[ti].name);
    for (int k = 0; k < opt.nratio; k++)
        for (int j = 0; j < 2; j++)
            if (target_index(opt.ratio[k][j]) < 0)
                usage_error("--ratio %s/%s: no target '%s' in this run (its targets: %s)",
                            opt.ratio[k][0], opt.ratio[k][1], opt.ratio[k][j], names);
    if (ntargets == 0)
        usage_error("no scheme to run");
    check_memory();
    read_machine();
    machine.clock_read_ns = vclock_read_ns();
    machine.poll_ns = vclock_poll_ns();

    printf("twbench: twheel %s on %s (%d CPUs), %s; median of the measured windows after one "
           "warm-up; sizeof(struct tw_timer) = %zu\n",
           tw_version(), machine.cpu, machine.cpus, machine.compiler, sizeof(struct tw_timer));
    char cl[400];
    printf("twbench: %s\n", counts_line(cl, sizeof cl));
    if (ropt.counts)
        printf("twbench: --counts: every figure below is instructions per operation, counted by "
               "callgrind; no times, no slopes\n");
    print_peer_notes();
    fflush(stdout);

    /* Let the CPU reach its working clock before the first figure. */
    uint64_t t0 = bench_now_ns();
    while (!ropt.counts && bench_now_ns() - t0 < 200000000u)
        ;
    plan_run();
    char est[32];
    fmt_secs(prog.total, est, sizeof est);
    progress_end("%d cells to measure, about %s%s",
                 prog.cells, est,
                 opt.default_run ? " (the default run; --full runs every workload and scheme)" : "");
    for (int i = 0; i < opt.nsel; i++) {
        int w = opt.wsel[i];
        if (wdefs[w].id == W_FIG9) {
            run_fig9();
            if (g_tty)
                fputs("\r\033[K", stderr);
            print_fig9();
            fflush(stdout);
            continue;
        }
        if (wdefs[w].id == W_SERVICE) {
            run_service();
            if (g_tty)
                fputs("\r\033[K", stderr);
            print_service();
            fflush(stdout);
            continue;
        }
        int first = nseries;
        run_wdef(w);
        if (g_tty) /* the bar's line, before stdout's tables */
            fputs("\r\033[K", stderr);
        for (int si = first; si < nseries; si++)
            print_series(&series[si]);
        fflush(stdout);
    }
    print_memory();
    if (!ropt.counts) { /* claims about times: not judged on counts */
        fit_slopes();
        print_slopes();
        find_crossover();
        print_crossover();
    }
    print_redis();
    ropt.seconds = (double)(bench_now_ns() - t0) / 1e9;
    if (getloadavg(machine.load_end, 3) < 0)
        machine.load_end[0] = -1;
    char took[32];
    fmt_secs(ropt.seconds, took, sizeof took);
    progress_end("finished in %s (planned: %s)", took, est);
    printf("\nload average: %.2f at start, %.2f at the end (%d CPUs): figures from a loaded "
           "machine are noisier\n",
           machine.load_start[0], machine.load_end[0], machine.cpus);
    if (opt.json) {
        FILE *f = fopen(opt.json, "w");
        if (f == NULL) {
            fprintf(stderr, "twbench: cannot write %s: %s\n", opt.json, strerror(errno));
            return 1;
        }
        json_write(f);
        if (fclose(f) != 0) {
            fprintf(stderr, "twbench: cannot write %s: %s\n", opt.json, strerror(errno));
            remove(opt.json);
            return 1;
        }
        printf("JSON written to %s\n", opt.json);
    }
    if (opt.out && opt.out[0]) {
        if (report_write(opt.out, err, sizeof err)) {
            fprintf(stderr, "twbench: %s\n", err);
            return 1;
        }
        char abs[4096];
        const char *dir = realpath(opt.out, abs) ? abs : opt.out;
        printf("report: %s/report.html (which scheme to use, plots, tables)\n"
               "        %s/summary.md (the summary in Markdown), twbench.json beside them\n",
               dir, dir);
    }
    return 0;
}
