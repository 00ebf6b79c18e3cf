/*
 * twbench -- measures every twheel scheme, and the timers of libev, libuv
 * and libevent beside them, on the workloads of docs/benchmarks.md; reproduces
 * the paper's Fig. 9; fits the complexity slopes; writes a report.
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
 *
 * Targets: every scheme this build of twheel implements, lawn_scan (lawn
 * with TW_OPT_LAWN_SCAN: the paper's per-tick scan of every queue instead
 * of the heap of queue heads), and the peers found at build time.  The
 * peers run in virtual time: see vclock.c and peer_*.c for exactly what is
 * and is not measured.
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

#include "harness.h"

#include <twheel.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include("fig9.h") && defined(TW_HAVE_FIG9)
#include "fig9.h"
#define TWBENCH_FIG9 1
#endif
#endif

/* ============================================================ twheel driver */

/* The user's struct: a timer node and one pointer of user data. */
struct bnode {
    struct tw_timer timer;
    void *user;
};

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
struct crossover cross;
struct machine machine;
struct run_opts ropt;

/* The workloads as the user names them.  A ttl entry with ttls == 0 is the
 * sweep over D. */
enum { W_FIG9 = -1 };
struct wdef {
    const char *name;
    int id;                /* enum wl_id, or W_FIG9 */
    uint32_t ttls;
    const char *figure;
    const char *name2;     /* the second figure's series, or NULL */
    const char *figure2;
    int fifo;              /* ttl: stops in start order (wl_spec.stop_fifo) */
    const char *unit2;     /* the second figure's unit, if not ns per op */
    int restart;           /* churn: one call restarts (wl_spec.restart) */
};

static const struct wdef wdefs[] = {
    {"startstop", WL_STARTSTOP, 0, "ns per stop+start pair (random timer, random interval)", NULL,
     NULL, 0, NULL, 0},
    {"churn", WL_CHURN, 0, "ns per stop+start of one timer restarted beyond n far timers",
     "churn-any", "ns per stop+start of a random one of n far timers, restarted beyond all", 0, NULL, 0},
    {"restart", WL_CHURN, 0, "ns per restart (one call) of one timer beyond n far timers",
     "restart-any", "ns per restart (one call) of a random one of n far timers, beyond all", 0,
     NULL, 1},
    {"expire", WL_EXPIRE, 0, "ns per timer: n starts + tick-by-tick advances until all fired",
     "expire-jump", "ns per timer: one advance by 2^40 + 1 ticks firing n timers (deadlines up "
     "to 2^40)", 0, "ns per timer", 0},
    {"tcp", WL_TCP, 0, "ns per operation (restart or expiry), ~95% stopped before expiry", NULL,
     NULL, 0, NULL, 0},
    {"idle", WL_TCP, 0, "ns per operation: an idle timeout pushed back to now + 2^16 (one call), "
     "or its expiry", NULL, NULL, 0, NULL, 1},
    {"tick", WL_TICK, 0, "ns per advance of one tick, nothing due, n far timers pending",
     "tick-jump", "ns per jump of 2^36 ticks over n timers pending beyond it", 0, "ns per jump", 0},
    {"ttl-1", WL_TTL, 1, "ns per timer (start + expire), 1 TTL, n pending", "ttl-1-stop",
     "ns per stop of a random pending timer, 1 TTL", 0, NULL, 0},
    {"ttl-8", WL_TTL, 8, "ns per timer (start + expire), 8 distinct TTLs, n pending", "ttl-8-stop",
     "ns per stop of a random pending timer, 8 distinct TTLs", 0, NULL, 0},
    {"ttl-64", WL_TTL, 64, "ns per timer (start + expire), 64 distinct TTLs, n pending",
     "ttl-64-stop", "ns per stop of a random pending timer, 64 distinct TTLs", 0, NULL, 0},
    {"ttl-8-fifo", WL_TTL, 8, "ns per timer (start + expire), 8 distinct TTLs, n pending",
     "ttl-8-fifo-stop", "ns per stop of the timer started longest ago, 8 distinct TTLs", 1, NULL, 0},
    {"ttl-many", WL_TTL, TTL_MANY, "ns per timer (start + expire), 10^5 distinct TTLs, n pending",
     "ttl-many-stop", "ns per stop of a random pending timer, 10^5 distinct TTLs", 0, NULL, 0},
    {"ttl-sweep", WL_TTL, 0, "ns per timer (start + expire) against distinct TTLs D, n fixed",
     "ttl-sweep-stop", "ns per stop of a random pending timer against distinct TTLs D", 0, NULL, 0},
    {"fig9", W_FIG9, 0, "ns per untimeout+timeout (or unset+set) of one callout beyond n", NULL,
     NULL, 0, NULL, 0},
};
#define NWDEFS ((int)(sizeof wdefs / sizeof wdefs[0]))

static const uint32_t sweep_d[] = {1, 8, 64, 512, 4096, 32768, 100000, 1000000};
#define NSWEEP ((int)(sizeof sweep_d / sizeof sweep_d[0]))

#define N_MAX_LIST X_MAX

static struct {
    int wsel[NWDEFS];
    int nsel;
    size_t n[N_MAX_LIST];
    int nn;
    const char *json;
    const char *out;
    int have_out;
    int full;              /* --full: every workload, every target */
    int default_run;       /* neither --full, --quick, --workload nor --scheme */
    int n_given;
    int rounds;
    char ratio[8][2][32]; /* --ratio A/B: numerator and denominator names */
    int nratio;
} opt;

static int g_tty;

/* The default run (no --full, --quick, --workload or --scheme): the
 * workloads the README's table shows, for the default scheme, the best of
 * each family and the three peers.  Sized for about 2 minutes on 2 cores;
 * --full runs every workload on every target. */
static const char *const default_workloads[] = {"startstop", "churn",   "restart", "expire",
                                                "tcp",       "idle",    "tick",    "ttl-8"};
#define DEFAULT_WORKLOADS_TEXT "startstop, churn, restart, expire, tcp, idle, tick and ttl-8 (each with\n" \
                               "its second figure)"
static const char *const default_schemes[] = {"hierarchical", "hierarchical_coarse", "hybrid",
                                              "heap", "peers"};
#define DEFAULT_SCHEMES_TEXT "hierarchical (the default scheme), hierarchical_coarse, hybrid and heap,"

static const char *workload_names(void);

/* ------------------------------------------------------------- utilities */

/* Print `list` ("a, b, c") wrapped to lines that start with `indent`
 * spaces, at most 80 columns. */
static void print_wrapped(FILE *f, const char *list, int indent)
{
    int col = indent;
    fprintf(f, "%*s", indent, "");
    for (const char *p = list; *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        if (col > indent && col + 1 + (int)len > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            col += fprintf(f, " ");
        }
        col += fprintf(f, "%.*s", (int)len, p);
        p += len;
    }
    fputc('\n', f);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: twbench [options]\n"
            "       twbench advise [options]   (twbench advise --help)\n"
            "\n"
            "With no options: the default run, about 2 minutes on 2 cores: the workloads\n"
            DEFAULT_WORKLOADS_TEXT "\n"
            "for " DEFAULT_SCHEMES_TEXT "\n"
            "and the peers libev, libuv and libevent, at n = 1e3, 1e4, 1e5, 1e6.\n"
            "\n"
            "  --full                  every workload and every scheme (about 8 minutes)\n"
            "  --quick                 every workload and scheme at n = 1e3 and 1e4, 3\n"
            "                          repetitions (CI: under 30 s)\n"
            "  --workload NAME[,NAME]  run these workloads (the others stay out); one of:\n");
    print_wrapped(f, workload_names(), 26);
    fprintf(f,
            "                          or ttl (every ttl-*), all.  A second figure\n"
            "                          (churn-any, expire-jump, ...) is measured with its\n"
            "                          first: asking for either runs both\n"
            "  --scheme NAME[,NAME]    run these targets: twheel schemes, lawn_scan, libev,\n"
            "                          libuv, libevent, peers (default: every one this build\n"
            "                          has; with no --workload either, the default run's)\n"
            "  --n LIST                pending timers, e.g. 1e3,1e4 (default 1e3,1e4,1e5,\n"
            "                          1e6; 1e7 on request)\n"
            "  --reps K                measured windows after one warm-up, 1 to %d (default\n"
            "                          5 below n = 1e6, 3 from 1e6 on)\n"
            "  --rounds R              run every cell R times, 1 to %d, the targets in turn,\n"
            "                          and report medians of the rounds and of the ratios\n"
            "                          within a round (default 1)\n"
            "  --ratio A/B[,C/D]       also print target A's figure over B's at every n\n"
            "  --out DIR               write report.html, summary.md, twbench.json and the\n"
            "                          SVG plots to DIR (default ./twbench-report; '' for\n"
            "                          none)\n"
            "  --json FILE             also write the JSON to FILE\n"
            "  --seed S                base seed, an unsigned integer (default fixed)\n"
            "  --check                 check each structure after each phase (slow, untimed)\n"
            "  --real-poll             let the peers' loops make real epoll_wait syscalls\n"
            "  --help                  this text\n",
            WINDOWS_MAX - 1, ROUNDS_MAX);
}

#define OPTIONS_TEXT                                                                           \
    "--full, --quick, --workload, --scheme, --n, --reps, --rounds, --ratio, --out, --json, "   \
    "--seed, --check, --real-poll, --help"

/* A usage error: one line that names the option and what it accepts, on
 * stderr, exit 2, before any work. */
static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twbench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    struct rng r = {a ^ (b * 0x9e3779b97f4a7c15u)};
    return rng_next(&r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(const double *v, int k, double *med, double *mn, double *mx)
{
    double s[WINDOWS_MAX];
    memcpy(s, v, (size_t)k * sizeof *s);
    qsort(s, (size_t)k, sizeof *s, cmp_double);
    *mn = s[0];
    *mx = s[k - 1];
    *med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

/* Split "a,b,c" and call fn on each item. */
static void each_item(const char *opt_name, const char *list, void (*fn)(const char *item))
{
    char buf[512];
    if (strlen(list) >= sizeof buf)
        usage_error("%s: a list of more than %zu characters: %.40s...", opt_name, sizeof buf - 1,
                    list);
    strcpy(buf, list);
    char *save = NULL;
    int any = 0;
    for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        fn(p);
        any = 1;
    }
    if (!any)
        usage_error("%s: an empty list '%s': want NAME[,NAME...]", opt_name, list);
}

/* ------------------------------------------------------------- options */

enum { SEL_LAWN_SCAN = TW_SCHEME_COUNT, SEL_LIBEV, SEL_LIBUV, SEL_LIBEVENT, SEL_COUNT };
static int scheme_selected[SEL_COUNT];
static int scheme_filter;

static void select_wdef(int w)
{
    for (int i = 0; i < opt.nsel; i++)
        if (opt.wsel[i] == w)
            return;
    opt.wsel[opt.nsel++] = w;
}

/* "startstop, churn, churn-any, ...": every name --workload takes, in
 * the order of wdefs[] (a second figure right after its first). */
static const char *workload_names(void)
{
    static char buf[512];
    if (buf[0])
        return buf;
    size_t k = 0;
    for (int w = 0; w < NWDEFS; w++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", w ? ", " : "", wdefs[w].name);
        if (wdefs[w].name2)
            k += (size_t)snprintf(buf + k, sizeof buf - k, ", %s", wdefs[w].name2);
    }
    return buf;
}

/* A workload by name: the name of its first or of its second figure
 * (churn-any runs churn, which measures both); "ttl" for every ttl-*,
 * "all" for all of them. */
static void add_workload(const char *name)
{
    if (strcmp(name, "all") == 0) {
        for (int w = 0; w < NWDEFS; w++)
            select_wdef(w);
        return;
    }
    if (strcmp(name, "ttl") == 0) {
        for (int w = 0; w < NWDEFS; w++)
            if (wdefs[w].id == WL_TTL)
                select_wdef(w);
        return;
    }
    for (int w = 0; w < NWDEFS; w++)
        if (strcmp(name, wdefs[w].name) == 0 ||
            (wdefs[w].name2 && strcmp(name, wdefs[w].name2) == 0)) {
            select_wdef(w);
            return;
        }
    usage_error("unknown --workload '%s' (known: %s; ttl for every ttl-*, all)", name,
                workload_names());
}

static void add_scheme(const char *name)
{
    scheme_filter = 1;
    static const char *extra[] = {"lawn_scan", "libev", "libuv", "libevent"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, extra[i]) == 0) {
            scheme_selected[SEL_LAWN_SCAN + i] = 1;
            return;
        }
    if (strcmp(name, "peers") == 0) {
        scheme_selected[SEL_LIBEV] = scheme_selected[SEL_LIBUV] = scheme_selected[SEL_LIBEVENT] = 1;
        return;
    }
    int s = tw_scheme_from_name(name);
    if (s < 0) {
        char known[320] = "";
        for (int i = 0; i < TW_SCHEME_COUNT; i++) {
            strcat(known, tw_scheme_name((enum tw_scheme)i));
            strcat(known, ", ");
        }
        usage_error("unknown --scheme '%s' (known: %slawn_scan, libev, libuv, libevent, peers)",
                    name, known);
    }
    if (!tw_scheme_available((enum tw_scheme)s))
        usage_error("--scheme '%s' is not implemented in this build of twheel (see twbench --help "
                    "for the others)", name);
    scheme_selected[s] = 1;
}

static void add_n(const char *text)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno || !(v >= 1) || v > (double)(UINT32_MAX / 2) ||
        v != floor(v))
        usage_error("bad --n '%s': want whole numbers from 1 to %u (like 1e3,1e4 or 5000)", text,
                    UINT32_MAX / 2);
    if (opt.nn == N_MAX_LIST)
        usage_error("--n: at most %d values", N_MAX_LIST);
    for (int i = 0; i < opt.nn; i++)
        if (opt.n[i] == (size_t)v)
            return;
    opt.n[opt.nn++] = (size_t)v;
}

static void add_ratio(const char *item)
{
    const char *slash = strchr(item, '/');
    if (slash == NULL || slash == item || !slash[1] || opt.nratio == 8 ||
        (size_t)(slash - item) >= sizeof opt.ratio[0][0] || strlen(slash + 1) >= sizeof opt.ratio[0][1])
        usage_error("bad --ratio '%s': want TARGET/TARGET, e.g. hierarchical/libev (at most 8)",
                    item);
    snprintf(opt.ratio[opt.nratio][0], sizeof opt.ratio[0][0], "%.*s", (int)(slash - item), item);
    snprintf(opt.ratio[opt.nratio][1], sizeof opt.ratio[0][1], "%s", slash + 1);
    opt.nratio++;
}

/* The value of a count option, 1..max, or a usage error. */
static int parse_count(const char *name, const char *val, int max)
{
    char *end;
    long k = strtol(val, &end, 10);
    if (*val == '\0' || *end || k < 1 || k > max)
        usage_error("bad %s '%s': want 1 to %d", name, val, max);
    return (int)k;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static void parse_args(int argc, char **argv)
{
    ropt.seed = 0x7477686565ull; /* "twhee" */
    opt.out = "twbench-report";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char name[32];
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name)
            usage_error("unknown option '%.40s' (known: " OPTIONS_TEXT ")", a);
        memcpy(name, a, len);
        name[len] = '\0';
        int takes = !strcmp(name, "--workload") || !strcmp(name, "--scheme") ||
                    !strcmp(name, "--n") || !strcmp(name, "--reps") || !strcmp(name, "--rounds") || !strcmp(name, "--ratio") ||
                    !strcmp(name, "--json") || !strcmp(name, "--seed") || !strcmp(name, "--out");
        if (takes) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                usage_error("option %s needs a value (twbench --help says which)", name);
        } else if (eq) {
            usage_error("option %s takes no value", name);
        }
        if (!strcmp(name, "--workload"))
            each_item(name, val, add_workload);
        else if (!strcmp(name, "--scheme"))
            each_item(name, val, add_scheme);
        else if (!strcmp(name, "--n")) {
            each_item(name, val, add_n);
            opt.n_given = 1;
        }
        else if (!strcmp(name, "--reps"))
            ropt.reps = parse_count(name, val, WINDOWS_MAX - 1);
        else if (!strcmp(name, "--ratio"))
            each_item(name, val, add_ratio);
        else if (!strcmp(name, "--rounds"))
            opt.rounds = parse_count(name, val, ROUNDS_MAX);
        else if (!strcmp(name, "--json"))
            opt.json = val;
        else if (!strcmp(name, "--out")) {
            opt.out = val;
            opt.have_out = 1;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            ropt.seed = strtoull(val, &end, 0);
            if (!isdigit((unsigned char)*val) || *end || errno == ERANGE)
                usage_error("bad --seed '%s': want an unsigned 64-bit integer (decimal, or hex "
                            "with 0x)",
                            val);
        } else if (!strcmp(name, "--quick"))
            ropt.quick = 1;
        else if (!strcmp(name, "--full"))
            opt.full = 1;
        else if (!strcmp(name, "--check"))
            ropt.check = 1;
        else if (!strcmp(name, "--real-poll") || !strcmp(name, "--libev-real-poll"))
            ropt.real_poll = 1;
        else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            usage(stdout);
            exit(0);
        } else
            usage_error("unknown option '%s' (known: " OPTIONS_TEXT ")", a);
    }
    if (opt.full && ropt.quick)
        usage_error("--full and --quick: choose one");
    if (opt.rounds == 0)
        opt.rounds = 1;
    int whole = opt.full || ropt.quick;
    opt.default_run = !whole && opt.nsel == 0 && !scheme_filter;
    if (opt.nsel == 0) {
        if (whole)
            add_workload("all");
        else
            for (size_t k = 0; k < sizeof default_workloads / sizeof *default_workloads; k++)
                add_workload(default_workloads[k]);
    }
    /* The default run's targets only in the default run: --workload alone
     * runs every target, as --full does (the ttl sweep needs lawn). */
    if (opt.default_run)
        for (size_t k = 0; k < sizeof default_schemes / sizeof *default_schemes; k++)
            add_scheme(default_schemes[k]);
    if (opt.nn == 0) {
        static const size_t full[] = {1000, 10000, 100000, 1000000};
        int k = ropt.quick ? 2 : 4;
        for (int i = 0; i < k; i++)
            opt.n[opt.nn++] = full[i];
    }
    qsort(opt.n, (size_t)opt.nn, sizeof opt.n[0], cmp_size);
}

static int reps_for(size_t n)
{
    if (ropt.reps)
        return ropt.reps;
    if (ropt.quick)
        return 3;
    return n >= 1000000 ? 3 : 5;
}

/* ------------------------------------------------------------- targets */

static struct target *new_target(const char *name)
{
    struct target *t = &targets[ntargets++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->scheme = -1;
    t->max_interval = UINT64_MAX;
    return t;
}

static void add_peer(enum peer_id p, const char *name, int sel)
{
    if (scheme_filter && !scheme_selected[sel])
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
            if (scheme_filter && !scheme_selected[sel])
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
    add_peer(PEER_LIBEV, "libev", SEL_LIBEV);
    add_peer(PEER_LIBUV, "libuv", SEL_LIBUV);
    add_peer(PEER_LIBEVENT, "libevent", SEL_LIBEVENT);
}

static int is_sweep_target(const struct target *t)
{
    return t->scheme == TW_HEAP || t->scheme == TW_HIERARCHICAL || t->scheme == TW_LAWN ||
           t->scheme == TW_HYBRID;
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
        /* the peers' nodes: ev_timer 32-64, uv_timer_t ~150, struct event ~130 */
        if (targets[ti].peer != PEER_NONE && !targets[ti].missing)
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

static void check_memory(void)
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
static enum cell_state plan(const struct target *t, int wl, size_t n, uint32_t D,
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
    /* What would take minutes: see the top of the file. */
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

/* ------------------------------------------------------------- running */

/* ------------------------------------------------------------- progress */

/*
 * Progress over the whole run: before the first cell, every cell that will
 * run is planned and given an a priori cost in seconds (cell_cost(), fitted
 * to this project's reference machine, a 2-core VM); as cells finish, the
 * time left is the planned cost still ahead scaled by how fast this
 * machine has gone through the planned cost behind.  On a terminal: one
 * line with a bar, rewritten in place; otherwise one plain line per n.
 */
static struct {
    double total, done;    /* planned seconds: all, finished */
    int cells, cells_done;
    uint64_t t0;           /* when the first cell started */
} prog;

/* fig9's cost per value of n, planned seconds (its windows are its own). */
#define FIG9_COST_PER_N 1.5

/* The planned seconds of one cell, from its spec: warm-up and measured
 * windows of `ops` operations, plus setting up n timers, at a per-op cost
 * that grows with n as the timers leave the caches, times a factor for
 * the target.  Fitted to a full run's per-cell seconds on the reference
 * machine (within about 2x per cell; the whole run's estimate is what
 * counts, and the time left corrects itself as cells finish). */
static double cell_cost(const struct target *t, const struct wl_spec *s)
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
        /* wheel heap lawn scan hashed libev libuv/libevent */
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
    return 0.01 + f * (windows * per_window + n * per_timer[c]) * 1e-9;
}

static void fmt_secs(double secs, char *buf, size_t len)
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
static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
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
static void progress_end(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress_end(const char *fmt, ...)
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

static void fill_cell(struct cell *c, const struct wl_result *res, int reps, int second,
                      const struct wl_spec *spec, double seconds)
{
    c->state = CELL_OK;
    c->why = NULL;
    c->reps = reps;
    for (int w = 1; w <= reps; w++)
        c->ns[w - 1] = second ? res[w].ns2 : res[w].ns_per_op;
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
    enum cell_state st = plan(t, wd->id, n, D, &spec, &why);
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
        return;
    }
    h->round_med[h->rounds++] = c->med;
    double mn, mx; /* of the round medians: not wanted, min and max are the windows' */
    stats(h->round_med, h->rounds, &h->med, &mn, &mx);
    h->min = c->min < h->min ? c->min : h->min;
    h->max = c->max > h->max ? c->max : h->max;
    h->seconds += c->seconds;
    h->last = c->last;
}

/* The points (n, D) of a workload's series: every n of the run, or for
 * the sweep the values of D at one n (the run's largest, at most 1e6). */
static int wdef_points(const struct wdef *wd, size_t *n, uint32_t *d)
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

static size_t fig9_points(size_t *n);

/* Plan the whole run for the progress line: every cell that will run, with
 * its planned cost. */
static void plan_run(void)
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
        if (wd->id == W_FIG9) {
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
                if (plan(&targets[ti], wd->id, n[xi], d[xi], &spec, &why) != CELL_OK)
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

static void run_wdef(int w)
{
    const struct wdef *wd = &wdefs[w];
    char nb[32];
    if (wd->id == W_FIG9)
        return; /* run_fig9() */
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
/* The n of the experiment: from the run's smallest n up to its largest, at
 * most 1e5 (the BSD list takes seconds per window beyond), with points in
 * between for the slope. */
static const size_t fig9_n[] = {1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
                                1000000};

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

/* The n of the experiment: from the run's smallest n up to its largest, at
 * most 1e5 unless --n asks for more. */
static size_t fig9_points(size_t *n)
{
    size_t lo = opt.n[0], hi = opt.n[opt.nn - 1], k = 0;
    size_t cap = hi > 100000 && !opt.n_given ? 100000 : hi;
    for (size_t i = 0; i < sizeof fig9_n / sizeof fig9_n[0] && k < FIG9_MAX; i++)
        if (fig9_n[i] >= lo && fig9_n[i] <= cap)
            n[k++] = fig9_n[i];
    return k < 2 ? 0 : k;
}

static void run_fig9(void)
{
    char nb[32];
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
static size_t fig9_points(size_t *n)
{
    (void)n;
    return 0;
}

static void run_fig9(void)
{
    fig9.have = 0;
    fig9.why = "not built: bench/fig9.c (the callout layer's experiment) is not in this tree yet";
}
#endif

/* ------------------------------------------------------------- slopes */

/*
 * The complexity each target claims for each workload, as data: the first
 * rule that matches a (workload, target) pair gives the claim the fitted
 * slope is judged against and its source.  A rule matches on the
 * workload's base name (churn-any, restart and restart-any count as churn;
 * idle as tcp), NULL for any; on the target (a scheme, ANY_SCHEME for every
 * twheel scheme, PEERS for libev, libuv and libevent); and on all the
 * conditions in `when`.
 */
enum { ANY_SCHEME = -1, PEERS = -2 };
enum {
    W_STOP = 1 << 0,    /* a ttl-*-stop workload */
    W_NOSTOP = 1 << 1,  /* not one */
    W_TTL = 1 << 2,     /* a ttl-* workload */
    W_IDLE = 1 << 3,    /* idle itself (its base is tcp) */
    W_SCAN = 1 << 4,    /* Lawn with TW_OPT_LAWN_SCAN */
    W_NOSCAN = 1 << 5,
};

struct claim_rule {
    const char *workload;
    int target;
    unsigned when;
    enum claim claim;
    const char *why;
};

static const struct claim_rule claim_rules[] = {
    {.workload = "tick", .target = PEERS, .claim = CLAIM_FLAT,
     .why = "a loop iteration with nothing due: O(1)"},
    {.workload = "tick-jump", .target = PEERS, .claim = CLAIM_FLAT,
     .why = "a loop iteration with nothing due: O(1)"},
    {.target = PEERS, .claim = CLAIM_LOG, .why = "binary/4-ary heap: O(log n)"},
    {.workload = "tick", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "twheel: nothing due costs one compare (the horizon)"},
    {.workload = "tick-jump", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "twheel: nothing due costs one compare (the horizon)"},
    {.workload = "expire-jump", .target = TW_HEAP, .claim = CLAIM_LOG,
     .why = "Table II: O(log n) per expiry"},
    {.workload = "expire-jump", .target = TW_HASHED_SORTED, .claim = CLAIM_NONE,
     .why = "start O(n/M): not judged"},
    {.workload = "expire-jump", .target = TW_LAWN, .when = W_SCAN, .claim = CLAIM_NONE,
     .why = "the queues scanned per advance, about n TTLs here: not judged"},
    {.workload = "expire-jump", .target = TW_LAWN, .claim = CLAIM_LOG,
     .why = "about n distinct TTLs: O(log TTLs) per queue head"},
    {.workload = "expire-jump", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "one advance over any gap: O(expired + occupied slots visited); list, "
            "ordered: one O(n) walk"},
    {.workload = "startstop", .target = TW_LIST, .claim = CLAIM_FLAT,
     .why = "Table II: start, stop O(1)"},
    {.workload = "churn", .target = TW_LIST, .claim = CLAIM_FLAT,
     .why = "Table II: start, stop O(1)"},
    {.target = TW_LIST, .when = W_STOP, .claim = CLAIM_FLAT, .why = "Table II: start, stop O(1)"},
    {.target = TW_LIST, .when = W_IDLE, .claim = CLAIM_FLAT,
     .why = "an O(n) walk when now reaches the earliest deadline, about once per "
            "I/2..2I/3 ticks at the n it runs (20n/I resets per tick): O(1) per reset"},
    {.target = TW_LIST, .claim = CLAIM_LINEAR, .why = "Table II: O(n) per tick"},
    {.target = TW_ORDERED, .when = W_IDLE, .claim = CLAIM_FLAT,
     .why = "rear search: a reset to now + I goes at the tail, O(1)"},
    {.workload = "ttl-1", .target = TW_ORDERED, .claim = CLAIM_FLAT,
     .why = "rear search: with one TTL every start goes at the tail, O(1)"},
    {.workload = "churn", .target = TW_ORDERED, .claim = CLAIM_FLAT,
     .why = "rear search: a start beyond all others is O(1) (front search: fig9)"},
    {.target = TW_ORDERED, .when = W_STOP, .claim = CLAIM_FLAT, .why = "Table II: stop O(1)"},
    {.target = TW_ORDERED, .claim = CLAIM_LINEAR, .why = "Table II: start O(n)"},
    {.target = TW_HEAP, .claim = CLAIM_LOG, .why = "Table II: O(log n)"},
    {.workload = "churn", .target = TW_HASHED_SORTED, .claim = CLAIM_FLAT,
     .why = "Table II: stop O(1); a start beyond all others appends"},
    {.target = TW_HASHED_SORTED, .when = W_STOP, .claim = CLAIM_FLAT,
     .why = "Table II: stop O(1); a start beyond all others appends"},
    {.target = TW_HASHED_SORTED, .claim = CLAIM_NONE,
     .why = "Table II: start O(n/M): flat below M = 4096, linear far above; not judged"},
    {.workload = "tcp", .target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_NONE,
     .why = "O(TTLs) per tick shared by 20n/2^16 operations per tick: not judged"},
    {.workload = "expire", .target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_LINEAR,
     .why = "Lawn Table IV: O(distinct TTLs) per tick; here ~min(n, 2^16) TTLs"},
    {.target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_FLAT,
     .why = "Lawn Table IV: O(1) start/stop, O(TTLs) per tick, TTLs fixed"},
    {.target = TW_LAWN, .when = W_TTL | W_STOP, .claim = CLAIM_FLAT,
     .why = "Lawn Table IV: O(1); heap of heads O(log TTLs)"},
    {.target = TW_LAWN, .when = W_TTL, .claim = CLAIM_LOG,
     .why = "Lawn Table IV: O(1); heap of heads O(log TTLs)"},
    {.target = TW_LAWN, .claim = CLAIM_LOG,
     .why = "distinct TTLs grow with n: O(log TTLs) heap of heads"},
    {.target = TW_HYBRID, .claim = CLAIM_FLAT, .why = "Lawn queues + Scheme 7: O(1)"},
    {.target = TW_WHEEL, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HASHED, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HIERARCHICAL, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HIERARCHICAL_COARSE, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = ANY_SCHEME, .claim = CLAIM_FLAT, .why = "O(1)"},
};

static enum claim claim_for(const char *sname, const struct target *t, const char **why)
{
    int churn = !strcmp(sname, "churn-any") || !strncmp(sname, "restart", 7);
    const char *base = churn ? "churn" : !strcmp(sname, "idle") ? "tcp" : sname;
    int stop = strstr(base, "-stop") != NULL;
    unsigned have = (stop ? W_STOP : W_NOSTOP) | (strncmp(base, "ttl-", 4) == 0 ? W_TTL : 0u) |
                    (!strcmp(sname, "idle") ? W_IDLE : 0u) |
                    (t->options & TW_OPT_LAWN_SCAN ? W_SCAN : W_NOSCAN);
    int target = t->peer != PEER_NONE ? PEERS : t->scheme;
    for (size_t i = 0; i < sizeof claim_rules / sizeof claim_rules[0]; i++) {
        const struct claim_rule *r = &claim_rules[i];
        if ((r->workload == NULL || !strcmp(r->workload, base)) &&
            (r->target == target || (r->target == ANY_SCHEME && target != PEERS)) &&
            (r->when & have) == r->when) {
            *why = r->why;
            return r->claim;
        }
    }
    *why = NULL;
    return CLAIM_NONE;
}

const char *claim_name(enum claim c)
{
    switch (c) {
    case CLAIM_FLAT:
        return "0";
    case CLAIM_LOG:
        return "log";
    case CLAIM_LINEAR:
        return "1";
    case CLAIM_NONE:
        break;
    }
    return "-";
}

/*
 * The verdict.  A slope s of log(ns/op) against log(n) over n = 1e3..1e6 is
 * 1 for O(n), 0 for O(1), and ~0.1-0.2 for O(log n); but from n ~ 1e5 on the
 * nodes no longer fit in the caches and every scheme's ns/op grows with the
 * cost of a memory access (~x5-10 from 1e3 to 1e6 on this kind of machine,
 * a slope of up to ~0.35 for an O(1) scheme).  So the test separates only
 * what the noise and the caches cannot blur: a claim of O(1) or O(log n)
 * is contradicted by a slope above 0.6, a claim of O(n) by one below 0.5.
 */
#define SLOPE_SUBLINEAR_MAX 0.6
#define SLOPE_LINEAR_MIN 0.5

/* Least-squares slope of log(v) against log(n) over the cells that ran;
 * which = 0 median, 1 min, 2 max.  Returns the number of points. */
static int fit(const struct series *s, int ti, int which, double *slope, double *ratio)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, first = 0, last = 0;
    int k = 0;
    for (int xi = 0; xi < s->nx; xi++) {
        const struct cell *c = &s->cell[xi][ti];
        double v = which == 0 ? c->med : which == 1 ? c->min : c->max;
        if (c->state != CELL_OK || !(v > 0))
            continue;
        double x = log((double)s->n[xi]), y = log(v);
        if (k == 0)
            first = v;
        last = v;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k++;
    }
    if (k < 2 || k * sxx - sx * sx <= 0)
        return 0;
    *slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    *ratio = last / first;
    return k;
}

static int contradicts(enum claim c, double slope)
{
    if (c == CLAIM_LINEAR)
        return slope < SLOPE_LINEAR_MIN;
    if (c == CLAIM_FLAT || c == CLAIM_LOG)
        return slope > SLOPE_SUBLINEAR_MAX;
    return 0;
}

/* A contradiction is flagged only when the slopes of the medians, of the
 * minima and of the maxima all contradict the claim: one noisy window
 * cannot raise a flag. */
static void fit_slopes(void)
{
    for (int si = 0; si < nseries; si++) {
        struct series *s = &series[si];
        if (s->by_ttls)
            continue;
        for (int ti = 0; ti < ntargets; ti++) {
            struct slope *sl = &s->slope[ti];
            sl->claim = claim_for(s->name, &targets[ti], &sl->why);
            double smin = 0, smax = 0, r;
            sl->points = fit(s, ti, 0, &sl->s, &sl->ratio);
            if (sl->points < 2)
                continue;
            fit(s, ti, 1, &smin, &r);
            fit(s, ti, 2, &smax, &r);
            sl->flag = contradicts(sl->claim, sl->s) && contradicts(sl->claim, smin) &&
                       contradicts(sl->claim, smax);
        }
    }
}

/* ------------------------------------------------------------- crossover */

static double cell_med(const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    return c->state == CELL_OK ? c->med : -1;
}

static int target_index(const char *name)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (!strcmp(targets[ti].name, name))
            return ti;
    return -1;
}

/* Where does a (lawn) stop beating b (hierarchical)?  After the last D at
 * which a's figure is at most b's, when a loses at every D after it; the
 * crossing is interpolated on log D between those two points.  Returns 1
 * with the crossing, 0 if a wins at the last D, -1 if a never wins, -2 if
 * nothing was measured. */
static int crossing(const struct series *s, int a, int b, double *d_cross, double *d_lo,
                    double *d_hi)
{
    int last_win = -1, next = -1, any = 0;
    for (int xi = 0; xi < s->nx; xi++) {
        double va = cell_med(s, xi, a), vb = cell_med(s, xi, b);
        if (va <= 0 || vb <= 0)
            continue;
        any = 1;
        if (va <= vb) {
            last_win = xi;
            next = -1;
        } else if (next < 0)
            next = xi;
    }
    if (!any)
        return -2;
    if (last_win < 0)
        return -1;
    if (next < 0)
        return 0;
    double pa = cell_med(s, last_win, a), pb = cell_med(s, last_win, b);
    double va = cell_med(s, next, a), vb = cell_med(s, next, b);
    double r0 = log(pa / pb), r1 = log(va / vb);
    double l0 = log(s->x[last_win]), l1 = log(s->x[next]);
    double f = r0 == r1 ? 0.5 : r0 / (r0 - r1);
    *d_cross = exp(l0 + f * (l1 - l0));
    *d_lo = s->x[last_win];
    *d_hi = s->x[next];
    return 1;
}

static void add_cross(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add_cross(const char *fmt, ...)
{
    if (cross.ntext == 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cross.text[cross.ntext++], sizeof cross.text[0], fmt, ap);
    va_end(ap);
}

static void find_crossover(void)
{
    const struct series *s = NULL, *s2 = NULL;
    for (int si = 0; si < nseries; si++)
        if (series[si].by_ttls && !strstr(series[si].name, "-stop"))
            s = &series[si];
        else if (series[si].by_ttls)
            s2 = &series[si];
    int lawn = target_index("lawn"), hier = target_index("hierarchical");
    int scan = target_index("lawn_scan"), hyb = target_index("hybrid");
    if (!s || lawn < 0 || hier < 0 || s->nx == 0)
        return;
    cross.have = 1;
    cross.n = s->n[0];
    char nb[32];
    fmt_n(cross.n, nb, sizeof nb);
    double dc, lo, hi;
    int r = crossing(s, lawn, hier, &dc, &lo, &hi);
    if (r == 1) {
        cross.d_cross = dc;
        add_cross("start+expire: lawn stops beating hierarchical between D = %.0f and %.0f "
                  "distinct TTLs (interpolated D ~ %.0f) with n = %s pending: distinct TTLs / "
                  "live timers ~ %.2g",
                  lo, hi, dc, nb, dc / (double)cross.n);
    } else if (r == 0) {
        add_cross("start+expire: lawn beats hierarchical at every D measured (up to %.0f "
                  "distinct TTLs, %.2g per live timer, n = %s): no crossover in the sweep",
                  s->x[s->nx - 1], s->x[s->nx - 1] / (double)cross.n, nb);
    } else if (r == -1) {
        add_cross("start+expire: lawn is slower than hierarchical at every D measured (n = %s)",
                  nb);
    }
    int rs = s2 ? crossing(s2, lawn, hier, &dc, &lo, &hi) : -2;
    if (rs == 1)
        add_cross("stop: lawn's stop costs more than hierarchical's from D ~ %.0f on (between "
                  "%.0f and %.0f; %.2g per live timer)",
                  dc, lo, hi, dc / (double)cross.n);
    else if (rs == 0)
        add_cross("stop: lawn's stop costs no more than hierarchical's at every D measured");
    else if (rs == -1) {
        double rmin = 0, rmax = 0;
        for (int xi = 0; xi < s2->nx; xi++) {
            double a = cell_med(s2, xi, lawn), b = cell_med(s2, xi, hier);
            if (a > 0 && b > 0) {
                rmin = rmin == 0 || a / b < rmin ? a / b : rmin;
                rmax = a / b > rmax ? a / b : rmax;
            }
        }
        add_cross("stop: lawn's stop costs more than hierarchical's at every D measured "
                  "(%.2fx to %.2fx)",
                  rmin, rmax);
    }
    if (scan >= 0) {
        int r2 = crossing(s, scan, lawn, &dc, &lo, &hi);
        if (r2 == 1)
            add_cross("heap of queue heads: lawn_scan (the paper's scan) is as fast as lawn up to "
                      "D ~ %.0f (between %.0f and %.0f), then slower: the heap pays from there",
                      dc, lo, hi);
        else if (r2 == -1)
            add_cross("heap of queue heads: lawn_scan is slower than lawn at every D measured: "
                      "the heap pays everywhere");
        else if (r2 == 0)
            add_cross("heap of queue heads: lawn_scan never slower than lawn where measured");
    }
    if (hyb >= 0) {
        double worst = 0, wd = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            double a = cell_med(s, xi, hyb), b = cell_med(s, xi, hier), c = cell_med(s, xi, lawn);
            double best = b > 0 && c > 0 ? (b < c ? b : c) : b > 0 ? b : c;
            if (a > 0 && best > 0 && a / best > worst) {
                worst = a / best;
                wd = s->x[xi];
            }
        }
        if (worst > 0)
            add_cross("hybrid: at most %.2fx the better of lawn and hierarchical (worst at D = "
                      "%.0f)",
                      worst, wd);
    }
}

/* ------------------------------------------------------------- tables */

static const char *missing_text(int ti)
{
    const char *m = targets[ti].missing;
    return m && strlen(m) <= 40 ? m : "unusable";
}

static int col_width(int ti)
{
    int w = (int)strlen(targets[ti].name);
    if (targets[ti].missing)
        w = (int)strlen(missing_text(ti));
    return w < 9 ? 9 : w;
}

static void print_value(double v, int w)
{
    if (v >= 10000)
        printf("  %*.0f", w, v);
    else
        printf("  %*.1f", w, v);
}

static int series_has_target(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (s->cell[xi][ti].state != CELL_NONE)
            return 1;
    return 0;
}

/* a / b for one point: with rounds run side by side (neither copied from
 * another series, or both), the median of the ratios within a round and
 * their range, *paired = 1; else the ratio of the medians, *paired = 0.
 * 0 when either is missing. */
static double paired_ratio(const struct cell *a, const struct cell *b, double *lo, double *hi,
                           int *paired)
{
    *paired = 0;
    if (a->state != CELL_OK || b->state != CELL_OK || a->med <= 0 || b->med <= 0)
        return 0;
    if (a->rounds > 1 && a->rounds == b->rounds && a->copied == b->copied) {
        *paired = 1;
        double q[ROUNDS_MAX], med;
        for (int r = 0; r < a->rounds; r++)
            q[r] = a->round_med[r] / b->round_med[r];
        stats(q, a->rounds, &med, lo, hi);
        return med;
    }
    *lo = *hi = a->med / b->med;
    return *lo;
}

/* The --ratio lines under a table. */
static void print_ratios(const struct series *s)
{
    char nb[32];
    for (int k = 0; k < opt.nratio; k++) {
        int a = target_index(opt.ratio[k][0]), b = target_index(opt.ratio[k][1]);
        if (a < 0 || b < 0 || !series_has_target(s, a) || !series_has_target(s, b))
            continue;
        printf("   %s / %s:", targets[a].name, targets[b].name);
        for (int xi = 0; xi < s->nx; xi++) {
            int paired;
            double lo, hi, r = paired_ratio(&s->cell[xi][a], &s->cell[xi][b], &lo, &hi, &paired);
            if (r <= 0)
                continue;
            printf(" %s %.2fx", fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb), r);
            if (paired)
                printf(" (%.2f-%.2f)", lo, hi);
        }
        printf("\n");
    }
}

static void print_series(const struct series *s)
{
    char nb[32];
    int reps_lo = 99, reps_hi = 0;
    for (int xi = 0; xi < s->nx; xi++)
        for (int ti = 0; ti < ntargets; ti++)
            if (s->cell[xi][ti].state == CELL_OK) {
                int r = s->cell[xi][ti].reps;
                reps_lo = r < reps_lo ? r : reps_lo;
                reps_hi = r > reps_hi ? r : reps_hi;
            }
    printf("\n== %s: %s", s->name, s->figure);
    if (s->by_ttls)
        printf(", n = %s", fmt_n(s->n[0], nb, sizeof nb));
    if (reps_hi && opt.rounds > 1 && reps_lo == reps_hi)
        printf(" (median of %d rounds, each the median of %d) ==\n", opt.rounds, reps_hi);
    else if (reps_hi && opt.rounds > 1)
        printf(" (median of %d rounds, each the median of %d-%d) ==\n", opt.rounds, reps_lo,
               reps_hi);
    else if (reps_hi && reps_lo == reps_hi)
        printf(" (median of %d) ==\n", reps_hi);
    else if (reps_hi)
        printf(" (median of %d-%d) ==\n", reps_lo, reps_hi);
    else
        printf(" ==\n");
    int any_peer = 0;
    for (int ti = 0; ti < ntargets; ti++)
        if (targets[ti].peer != PEER_NONE && series_has_target(s, ti))
            any_peer = 1;
    printf("%8s", s->by_ttls ? "D" : "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (series_has_target(s, ti))
            printf("  %*s", col_width(ti), targets[ti].name);
    if (any_peer)
        printf("  best twheel / best peer");
    printf("\n");
    for (int xi = 0; xi < s->nx; xi++) {
        printf("%8s", fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb));
        int best = -1, bestp = -1;
        for (int ti = 0; ti < ntargets; ti++) {
            if (!series_has_target(s, ti))
                continue;
            const struct cell *c = &s->cell[xi][ti];
            int w = col_width(ti);
            switch (c->state) {
            case CELL_OK:
                print_value(c->med, w);
                if (targets[ti].peer == PEER_NONE) {
                    if (best < 0 || c->med < s->cell[xi][best].med)
                        best = ti;
                } else if (bestp < 0 || c->med < s->cell[xi][bestp].med)
                    bestp = ti;
                break;
            case CELL_SKIP:
                printf("  %*s", w, "skipped");
                break;
            case CELL_NA:
                printf("  %*s", w, "n/a");
                break;
            case CELL_MISSING:
                printf("  %*s", w, missing_text(ti));
                break;
            case CELL_NONE:
                printf("  %*s", w, "-");
                break;
            }
        }
        if (any_peer) {
            int paired = 0;
            double lo = 0, hi = 0, r = best >= 0 && bestp >= 0
                                          ? paired_ratio(&s->cell[xi][best], &s->cell[xi][bestp],
                                                         &lo, &hi, &paired)
                                          : 0;
            if (r > 0 && paired)
                printf("  %s / %s %.2fx (%d rounds %.2f-%.2f)", targets[best].name,
                       targets[bestp].name, r, s->cell[xi][best].rounds, lo, hi);
            else if (r > 0)
                printf("  %s / %s %.2fx", targets[best].name, targets[bestp].name, r);
            else
                printf("  -");
        }
        printf("\n");
    }
    /* Notes: why cells are empty, and what was changed for a target. */
    for (int ti = 0; ti < ntargets; ti++) {
        if (!series_has_target(s, ti))
            continue;
        const char *why = NULL;
        size_t from = 0;
        int folded = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            const struct cell *c = &s->cell[xi][ti];
            if (c->state == CELL_SKIP || c->state == CELL_NA || c->state == CELL_MISSING) {
                if (!why)
                    from = s->by_ttls ? s->d[xi] : s->n[xi];
                why = c->why;
            }
            if (c->state == CELL_OK && c->hi < (1u << 16))
                folded = 1;
        }
        if (why && targets[ti].missing) {
            if (strcmp(missing_text(ti), why) != 0)
                printf("   %s: %s\n", targets[ti].name, why);
        } else if (why && from == (s->by_ttls ? s->d[0] : s->n[0]))
            printf("   %s: %s\n", targets[ti].name, why);
        else if (why)
            printf("   %s: %s >= %s %s\n", targets[ti].name, s->by_ttls ? "D" : "n",
                   fmt_n(from, nb, sizeof nb), why);
        if (folded && !strcmp(s->name, "idle"))
            printf("   %s: idle timeout %llu (its MaxInterval) instead of 2^16\n",
                   targets[ti].name, (unsigned long long)targets[ti].max_interval);
        else if (folded)
            printf("   %s: intervals drawn in [1, %llu] (its MaxInterval) instead of [1, %s]\n",
                   targets[ti].name, (unsigned long long)targets[ti].max_interval,
                   !strcmp(s->name, "expire-jump") ? "2^40" : "2^16");
        if (targets[ti].late && !targets[ti].missing &&
            (s->wl == WL_EXPIRE || s->wl == WL_TTL || s->wl == WL_TCP))
            printf("   %s fires a timer one tick after its deadline (deadline < now)\n",
                   targets[ti].name);
    }
    if (s->wl == WL_TCP) {
        double lo = 101, hi = -1;
        for (int xi = 0; xi < s->nx; xi++)
            for (int ti = 0; ti < ntargets; ti++) {
                const struct cell *c = &s->cell[xi][ti];
                if (c->state != CELL_OK || c->last.ops == 0)
                    continue;
                double p = 100.0 * (double)c->last.stops / (double)c->last.ops;
                lo = p < lo ? p : lo;
                hi = p > hi ? p : hi;
            }
        if (hi >= 0)
            printf("   share of operations that restarted a timer before expiry: %.1f%% .. %.1f%%\n",
                   lo, hi);
    }
    if (s->by_ttls) {
        printf("   D / n:");
        for (int xi = 0; xi < s->nx; xi++)
            printf(" %.2g", (double)s->d[xi] / (double)s->n[xi]);
        printf("   (distinct TTLs per live timer; TTLs with a live timer ~ D (1 - e^(-n/D)))\n");
    }
    print_ratios(s);
}

static void print_peer_notes(void)
{
    int any = 0;
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        if (t->peer == PEER_NONE)
            continue;
        if (!any)
            printf("Peers, in virtual time (twbench interposes clock_gettime, gettimeofday, "
                   "epoll_wait):\n");
        any = 1;
        if (t->missing) {
            printf("  %-8s %s\n", t->name, t->info.error);
            continue;
        }
        const char *how = t->peer == PEER_LIBEV ? "ev_timer_set+ev_timer_start / ev_timer_stop / "
                                                  "ev_run(EVRUN_NOWAIT)"
                          : t->peer == PEER_LIBUV
                              ? "uv_timer_start / uv_timer_stop / uv_run(UV_RUN_NOWAIT)"
                              : "event_add(timeval) / event_del / "
                                "event_base_loop(NONBLOCK|ONCE)";
        printf("  %-8s %s (%s): %s; 1 tick = %s; per advance %.0f poll(s) and %.0f clock "
               "read(s), per start %.0f read(s)\n",
               t->name, t->info.version, t->info.backend, how, t->tick,
               t->info.polls_per_advance, t->info.reads_per_advance, t->info.reads_per_start);
    }
    if (!any)
        return;
    if (ropt.real_poll)
        printf("  Measured (--real-poll): the real epoll_wait(0), %.0f ns each here.  Not "
               "measured: the real clock_gettime, %.0f ns each here.\n",
               machine.poll_ns, machine.clock_read_ns);
    else
        printf("  Not measured: the real epoll_wait(0) (stubbed: no fd is watched, it returns 0; "
               "%.0f ns each here) and the real clock_gettime (%.0f ns each here).\n",
               machine.poll_ns, machine.clock_read_ns);
    printf("  libev fires a timer only when its deadline is strictly before now (one tick late); "
           "libuv counts whole milliseconds (1 tick = 1 ms, exact in virtual time, up to 1 ms "
           "late in real use); libevent fires at deadline <= now.\n");
}

static void print_memory(void)
{
    char nb[32];
    const struct series *s = NULL;
    for (int si = 0; si < nseries && !s; si++)
        if (!strcmp(series[si].name, "startstop") || !strcmp(series[si].name, "expire") ||
            !strcmp(series[si].name, "tcp"))
            s = &series[si];
    if (!s)
        return;
    printf("\n== bytes per timer: node + own memory / n, n pending (%s) ==\n", s->name);
    printf("%8s", "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (series_has_target(s, ti))
            printf("  %*s", col_width(ti), targets[ti].name);
    printf("\n");
    for (int xi = 0; xi < s->nx; xi++) {
        printf("%8s", fmt_n(s->n[xi], nb, sizeof nb));
        for (int ti = 0; ti < ntargets; ti++) {
            if (!series_has_target(s, ti))
                continue;
            const struct cell *c = &s->cell[xi][ti];
            if (c->state == CELL_OK)
                printf("  %*.1f", col_width(ti), c->bytes_per_timer);
            else
                printf("  %*s", col_width(ti), "-");
        }
        printf("\n");
    }
}

static void print_slopes(void)
{
    int any = 0;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++)
            if (series[si].slope[ti].points >= 2)
                any = 1;
    if (!any)
        return;
    printf("\n== complexity: slope of log(ns/op) against log(n), claimed in brackets "
           "(0: O(1), log: O(log n), 1: O(n)); ! contradicts the claim ==\n");
    printf("%-15s", "figure");
    for (int ti = 0; ti < ntargets; ti++)
        if (!targets[ti].missing)
            printf("  %*s", col_width(ti), targets[ti].name);
    printf("\n");
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        if (s->by_ttls)
            continue;
        printf("%-15s", s->name);
        for (int ti = 0; ti < ntargets; ti++) {
            if (targets[ti].missing)
                continue;
            const struct slope *sl = &s->slope[ti];
            char buf[32];
            if (sl->points >= 2)
                snprintf(buf, sizeof buf, "%s%.2f [%s]", sl->flag ? "!" : "", sl->s,
                         claim_name(sl->claim));
            else
                snprintf(buf, sizeof buf, "-");
            printf("  %*s", col_width(ti), buf);
        }
        printf("\n");
    }
    printf("   A claim of O(1) or O(log n) is contradicted by a slope above %.1f, a claim of O(n)"
           " by one below %.1f:\n   between 1e5 and 1e6 every scheme slows with cache misses "
           "(slope up to ~0.35 for O(1)), which no finer test survives.\n",
           SLOPE_SUBLINEAR_MAX, SLOPE_LINEAR_MIN);
    int flags = 0;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++) {
            const struct slope *sl = &series[si].slope[ti];
            if (sl->points < 2 || !sl->flag)
                continue;
            if (!flags)
                printf("   Contradictions:\n");
            flags++;
            printf("   ! %s on %s: slope %.2f over %d points (x%.1f), claimed %s (%s)\n",
                   targets[ti].name, series[si].name, sl->s, sl->points, sl->ratio,
                   claim_name(sl->claim), sl->why ? sl->why : "");
        }
    if (!flags)
        printf("   No contradiction.\n");
}

static void print_fig9(void)
{
    char nb[32];
    if (!fig9.have) {
        printf("\n== fig9: %s ==\n", fig9.why ? fig9.why : "not run");
        return;
    }
    printf("\n== fig9: the paper's section VII experiment (ns per cancel + re-set of one "
           "callout beyond n) ==\n");
    printf("%8s  %14s  %16s  %16s  %8s\n", "n", "(a) BSD list", "(b) S6 + hash", "(c) S6 + handle",
           "(c)/(b)");
    for (int i = 0; i < fig9.npts; i++)
        printf("%8s  %14.1f  %16.1f  %16.1f  %8.2f\n", fmt_n(fig9.n[i], nb, sizeof nb),
               fig9.ns[0][i], fig9.ns[1][i], fig9.ns[2][i],
               fig9.ns[1][i] > 0 ? fig9.ns[2][i] / fig9.ns[1][i] : 0.0);
    printf("   slopes: (a) %.2f, (b) %.2f, (c) %.2f\n", fig9.slope[0], fig9.slope[1],
           fig9.slope[2]);
    printf("   checks: (a) grows linearly (slope > 0.7): %s; (b), (c) flat (slope < 0.3): %s; "
           "(c) < (b) (median ratio %.2f): %s\n",
           fig9.linear_ok ? "yes" : "NO", fig9.flat_ok ? "yes" : "NO", fig9.order_ratio,
           fig9.order_ok ? "yes" : "NO");
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
    print_peer_notes();
    fflush(stdout);

    /* Let the CPU reach its working clock before the first figure. */
    uint64_t t0 = bench_now_ns();
    while (bench_now_ns() - t0 < 200000000u)
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
        int first = nseries;
        run_wdef(w);
        if (g_tty) /* the bar's line, before stdout's tables */
            fputs("\r\033[K", stderr);
        for (int si = first; si < nseries; si++)
            print_series(&series[si]);
        fflush(stdout);
    }
    print_memory();
    fit_slopes();
    print_slopes();
    find_crossover();
    if (cross.have) {
        printf("\n== lawn crossover (ttl-sweep, n = %zu) ==\n", cross.n);
        for (int i = 0; i < cross.ntext; i++)
            printf("   %s\n", cross.text[i]);
    }
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
