/*
 * twbench -- measures every twheel scheme, and libev's timers beside them,
 * on the workloads of SPEC section 5.
 *
 * Workloads (exact definitions in workloads.h):
 *
 *     startstop  n pending, random intervals in [1, 2^16]; ns per stop+start
 *                of a random timer
 *     churn      the paper's Fig. 9: n pending far out ([2^20, 2^21]), one
 *                more timer stopped and restarted farther out than all of
 *                them; ns per stop+start
 *     expire     start n with intervals in [1, 2^16], advance tick by tick
 *                until all fired; ns per timer, both phases
 *     tcp        steady state, ~95% of timers stopped before they expire;
 *                ns per operation (restart or expiry)
 *     tick       n pending far out; ns per advance of one tick with nothing
 *                due, and ns for one jump of 2^40 ticks over them
 *
 * Method.  For each workload, n and target: one warm-up repetition that is
 * thrown away, then --reps repetitions (default 5, at least 1), each on a
 * fresh facility and a fresh calloc'd node array, with seeds fixed by
 * (--seed, workload, n, repetition) and the same for every target.  Each
 * phase is timed with CLOCK_MONOTONIC around the whole loop (never per
 * operation); tables show the median, JSON adds min, max and every sample.
 * Timer nodes are one array of a struct embedding the target's node plus a
 * pointer-sized user field; setup starts them in a random order.
 *
 * Fitting the workloads to a scheme:
 *   - wheel accepts intervals up to its MaxInterval (default 4096): its
 *     startstop, expire and tcp draw intervals in [1, MaxInterval] instead
 *     of [1, 2^16], and churn and tick, whose intervals are far longer, are
 *     "n/a" for it.
 *   - list (O(n) per tick) and ordered (O(n) per start) would take minutes:
 *     n > 1e4 is skipped for list in expire, tcp and tick, and for ordered
 *     in every workload: filling it in random order is O(n^2) (at n = 1e5,
 *     about 25 s per repetition on a 2020s x86 core before any figure).
 *     hashed_sorted keeps n/M timers per sorted slot (M = 4096 slots by
 *     default), so a start walks ~n/2M nodes: n > 1e5 is skipped for it
 *     (at 1e6, minutes per workload).
 *
 * Bytes per timer: the node (sizeof(struct tw_timer), or libev's ev_timer)
 * plus the target's own memory with n timers pending, divided by n
 * (tw_memory(); for libev, what its allocator hook saw it hold).
 *
 * Exit status: 0, 1 if a run failed (a library call misbehaved), 2 for a
 * usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <twheel.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int (*bench_clock_gettime)(clockid_t, struct timespec *) = clock_gettime;

static char g_where[160] = "setup";

void bench_die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "\ntwbench: %s: ", g_where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

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
    c->fired++;
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
    int rc = tw_create(&d->tw, &cfg);
    if (rc) {
        fprintf(stderr, "twbench: tw_create(%s): %s\n", tw_scheme_name((enum tw_scheme)s->scheme),
                tw_strerror(rc));
        return -1;
    }
    d->count = nodes;
    d->nodes = calloc(nodes, sizeof *d->nodes);
    if (d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    for (size_t i = 0; i < nodes; i++) {
        tw_timer_init(&d->nodes[i].timer, bnode_fired);
        d->nodes[i].user = c;
    }
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

static const struct {
    const char *name;
    const char *figure;    /* what a cell of its table is */
} wl_info[WL_COUNT] = {
    [WL_STARTSTOP] = {"startstop", "ns per stop+start pair (random timer, random interval)"},
    [WL_CHURN] = {"churn", "ns per stop+start of one timer restarted beyond n far timers"},
    [WL_EXPIRE] = {"expire", "ns per timer: n starts + tick-by-tick advances until all fired"},
    [WL_TCP] = {"tcp", "ns per operation (restart or expiry), ~95% stopped before expiry"},
    [WL_TICK] = {"tick", "ns per advance of one tick, nothing due, n far timers pending"},
};

#define N_MAX_LIST 16
#define REPS_MAX 101
#define TARGETS_MAX (TW_SCHEME_COUNT + 1)

struct target {
    const char *name;
    int scheme;            /* enum tw_scheme, or -1 for libev */
    wl_run_fn *run;
    uint64_t max_interval;
    const char *missing;   /* non-NULL: why this target cannot run */
};

enum cell_state { CELL_NONE, CELL_OK, CELL_SKIP, CELL_NA, CELL_MISSING };

struct cell {
    enum cell_state state;
    const char *why;
    struct wl_spec spec;
    int reps;
    double ns[REPS_MAX], jump[REPS_MAX];
    double med, min, max, jmed, jmin, jmax;
    struct wl_result last;
};

static struct target targets[TARGETS_MAX];
static int ntargets;
static struct cell cells[WL_COUNT][N_MAX_LIST][TARGETS_MAX];

static struct {
    int wl[WL_COUNT];
    int nwl;
    size_t n[N_MAX_LIST];
    int nn;
    int reps;
    uint64_t seed;
    const char *json;
    int check;
    int real_poll;
    int quick;
} opt;

static struct peer_info libev_info;
static int any_libev;

/* ------------------------------------------------------------- utilities */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: twbench [options]\n"
            "  --workload NAME[,NAME]  startstop, churn, expire, tcp, tick, or all (default)\n"
            "  --scheme NAME[,NAME]    twheel schemes and/or libev (default: all available)\n"
            "  --n LIST                outstanding timers, e.g. 1e3,1e4 (default 1e3..1e6)\n"
            "  --reps K                measured repetitions after one warm-up (default 5)\n"
            "  --quick                 n up to 1e4, 3 repetitions\n"
            "  --json FILE             write every figure as JSON to FILE\n"
            "  --seed S                base seed (default fixed)\n"
            "  --check                 run tw_check() after every phase (slow; untimed)\n"
            "  --libev-real-poll       let libev's ev_run call the real epoll_wait\n"
            "  --help                  this text\n");
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twbench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(twbench --help lists the options)\n");
    exit(2);
}

/* "1e3" for 1000, "25000" for 25000. */
static const char *fmt_n(size_t n, char *buf, size_t len)
{
    int k = 0;
    size_t m = n;
    while (m >= 10 && m % 10 == 0) {
        m /= 10;
        k++;
    }
    if (k >= 3)
        snprintf(buf, len, "%zue%d", m, k);
    else
        snprintf(buf, len, "%zu", n);
    return buf;
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
    double s[REPS_MAX];
    memcpy(s, v, (size_t)k * sizeof *s);
    qsort(s, (size_t)k, sizeof *s, cmp_double);
    *mn = s[0];
    *mx = s[k - 1];
    *med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

/* Split "a,b,c" and call fn on each item. */
static void each_item(const char *list, void (*fn)(const char *item))
{
    char buf[512];
    if (strlen(list) >= sizeof buf)
        usage_error("argument too long: %.40s...", list);
    strcpy(buf, list);
    char *save = NULL;
    int any = 0;
    for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        fn(p);
        any = 1;
    }
    if (!any)
        usage_error("empty list '%s'", list);
}

/* ------------------------------------------------------------- options */

static int scheme_selected[TARGETS_MAX + 1];
static int scheme_filter;

static void add_workload(const char *name)
{
    if (strcmp(name, "all") == 0) {
        for (int w = 0; w < WL_COUNT; w++)
            add_workload(wl_info[w].name);
        return;
    }
    for (int w = 0; w < WL_COUNT; w++)
        if (strcmp(name, wl_info[w].name) == 0) {
            for (int i = 0; i < opt.nwl; i++)
                if (opt.wl[i] == w)
                    return;
            opt.wl[opt.nwl++] = w;
            return;
        }
    usage_error("unknown workload '%s' (known: startstop, churn, expire, tcp, tick, all)", name);
}

static void add_scheme(const char *name)
{
    scheme_filter = 1;
    if (strcmp(name, "libev") == 0) {
        scheme_selected[TW_SCHEME_COUNT] = 1;
        return;
    }
    int s = tw_scheme_from_name(name);
    if (s < 0) {
        char known[256] = "";
        for (int i = 0; i < TW_SCHEME_COUNT; i++) {
            strcat(known, tw_scheme_name((enum tw_scheme)i));
            strcat(known, ", ");
        }
        usage_error("unknown scheme '%s' (known: %slibev)", name, known);
    }
    if (!tw_scheme_available((enum tw_scheme)s))
        usage_error("scheme '%s' is not implemented in this build of twheel", name);
    scheme_selected[s] = 1;
}

static void add_n(const char *text)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno || !(v >= 1) || v > 1e8 || v != floor(v))
        usage_error("bad n '%s': want a whole number from 1 to 1e8 (like 1e3 or 5000)", text);
    if (opt.nn == N_MAX_LIST)
        usage_error("at most %d values of n", N_MAX_LIST);
    opt.n[opt.nn++] = (size_t)v;
}

static void parse_args(int argc, char **argv)
{
    int reps_given = 0;
    opt.reps = 5;
    opt.seed = 0x7477686565ull; /* "twhee" */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char name[32];
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name)
            usage_error("unknown option '%s'", a);
        memcpy(name, a, len);
        name[len] = '\0';
        int takes = !strcmp(name, "--workload") || !strcmp(name, "--scheme") ||
                    !strcmp(name, "--n") || !strcmp(name, "--reps") ||
                    !strcmp(name, "--json") || !strcmp(name, "--seed");
        if (takes) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                usage_error("option %s needs a value", name);
        } else if (eq) {
            usage_error("option %s takes no value", name);
        }
        if (!strcmp(name, "--workload"))
            each_item(val, add_workload);
        else if (!strcmp(name, "--scheme"))
            each_item(val, add_scheme);
        else if (!strcmp(name, "--n"))
            each_item(val, add_n);
        else if (!strcmp(name, "--reps")) {
            char *end;
            long k = strtol(val, &end, 10);
            if (*val == '\0' || *end || k < 1 || k > REPS_MAX - 1)
                usage_error("bad --reps '%s': want 1 to %d", val, REPS_MAX - 1);
            opt.reps = (int)k;
            reps_given = 1;
        } else if (!strcmp(name, "--json"))
            opt.json = val;
        else if (!strcmp(name, "--seed")) {
            char *end;
            opt.seed = strtoull(val, &end, 0);
            if (*val == '\0' || *end)
                usage_error("bad --seed '%s'", val);
        } else if (!strcmp(name, "--quick"))
            opt.quick = 1;
        else if (!strcmp(name, "--check"))
            opt.check = 1;
        else if (!strcmp(name, "--libev-real-poll"))
            opt.real_poll = 1;
        else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            usage(stdout);
            exit(0);
        } else
            usage_error("unknown option '%s'", a);
    }
    if (opt.nwl == 0)
        add_workload("all");
    if (opt.quick && !reps_given)
        opt.reps = 3;
    if (opt.nn == 0) {
        static const size_t full[] = {1000, 10000, 100000, 1000000};
        int k = opt.quick ? 2 : 4;
        for (int i = 0; i < k; i++)
            opt.n[opt.nn++] = full[i];
    }
}

/* ------------------------------------------------------------- targets */

static void setup_targets(void)
{
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if (!tw_scheme_available((enum tw_scheme)s))
            continue;
        if (scheme_filter && !scheme_selected[s])
            continue;
        struct tw_config cfg;
        struct tw *tw;
        tw_config_init(&cfg, (enum tw_scheme)s);
        int rc = tw_create(&tw, &cfg);
        if (rc)
            bench_die("tw_create(%s): %s", tw_scheme_name((enum tw_scheme)s), tw_strerror(rc));
        struct target *t = &targets[ntargets++];
        t->name = tw_scheme_name((enum tw_scheme)s);
        t->scheme = s;
        t->run = tw_target_run;
        t->max_interval = tw_max_interval(tw);
        tw_destroy(tw);
    }
    if (scheme_filter && !scheme_selected[TW_SCHEME_COUNT])
        return;
    struct target *t = &targets[ntargets++];
    t->name = "libev";
    t->scheme = -1;
    t->max_interval = UINT64_MAX;
    any_libev = 1;
#ifdef TW_HAVE_LIBEV
    t->run = libev_target_run;
    if (libev_target_init(opt.real_poll, &libev_info))
        t->missing = libev_info.error;
#else
    t->missing = "missing: apt-get install libev-dev";
    snprintf(libev_info.error, sizeof libev_info.error, "%s", t->missing);
#endif
}

/* Fill the spec of one cell, or say why it does not run. */
static enum cell_state plan(const struct target *t, int wl, size_t n, struct wl_spec *s,
                            const char **why)
{
    const uint64_t k16 = 1u << 16;
    memset(s, 0, sizeof *s);
    s->wl = (enum wl_id)wl;
    s->scheme = t->scheme;
    s->n = n;
    s->check = opt.check;
    if (t->missing) {
        *why = t->missing;
        return CELL_MISSING;
    }
    int list = t->scheme == TW_LIST, ordered = t->scheme == TW_ORDERED;
    /* What would take minutes: see the top of the file. */
    int ticks = wl != WL_STARTSTOP && wl != WL_CHURN;
    if (n > 10000 && (ordered || (list && ticks))) {
        *why = "skipped (O(n))";
        return CELL_SKIP;
    }
    if (n > 100000 && t->scheme == TW_HASHED_SORTED) {
        *why = "skipped (O(n/M) per start)";
        return CELL_SKIP;
    }
    switch (wl) {
    case WL_STARTSTOP:
        s->lo = 1;
        s->hi = k16;
        s->ops = n > 4 * k16 ? n : 4 * k16;
        if (ordered && s->ops > 4096)
            s->ops = 4096; /* each start is O(n): a sample of the same steady state */
        break;
    case WL_CHURN:
        s->lo = 1u << 20;
        s->hi = 1u << 21;
        s->ops = 4 * k16;
        break;
    case WL_EXPIRE:
        s->lo = 1;
        s->hi = k16;
        break;
    case WL_TCP:
        s->lo = 1;
        s->hi = k16;
        s->ops = n * 5 / 2 > k16 ? n * 5 / 2 : k16; /* restarts in the timed phase */
        if (list || ordered)
            s->ops = 8192; /* O(n) per tick or per restart */
        break;
    case WL_TICK:
        s->lo = 1ull << 30;
        s->hi = 1ull << 31;
        s->ops = k16;
        if (list) { /* O(n) per advance: fewer advances, same figure */
            uint64_t a = (1u << 24) / n;
            s->ops = a < 256 ? 256 : a > k16 ? k16 : a;
        }
        break;
    }
    uint64_t need = wl == WL_CHURN ? 2 * s->hi : wl == WL_TICK ? 4 * WL_JUMP : s->hi;
    if (need > t->max_interval) {
        if (wl == WL_CHURN || wl == WL_TICK) {
            *why = "n/a (intervals beyond its MaxInterval)";
            return CELL_NA;
        }
        s->hi = t->max_interval; /* wheel: intervals in [1, MaxInterval] */
    }
    *why = NULL;
    return CELL_OK;
}

static int g_tty;

/* One line of progress on stderr: rewritten in place on a terminal. */
static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    va_list ap;
    fputs(g_tty ? "\r\033[K" : "", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(g_tty ? "" : "\n", stderr);
    fflush(stderr);
}

static void run_cell(int wl, int ni, int ti)
{
    struct target *t = &targets[ti];
    struct cell *c = &cells[wl][ni][ti];
    size_t n = opt.n[ni];
    char nb[32];
    c->state = plan(t, wl, n, &c->spec, &c->why);
    if (c->state != CELL_OK)
        return;
    snprintf(g_where, sizeof g_where, "%s, %s, n=%s", wl_info[wl].name, t->name,
             fmt_n(n, nb, sizeof nb));
    for (int rep = 0; rep <= opt.reps; rep++) {
        if (g_tty)
            progress("twbench: %s n=%s %s: %s %d/%d", wl_info[wl].name, nb, t->name,
                     rep ? "rep" : "warm-up", rep, opt.reps);
        struct wl_result r;
        /* rep 0 is the warm-up, with its own seed */
        c->spec.seed = mix(mix(opt.seed, (uint64_t)wl), mix((uint64_t)n, (uint64_t)rep));
        if (t->run(&c->spec, &r))
            bench_die("the run failed");
        if (rep == 0)
            continue;
        c->ns[c->reps] = r.ns_per_op;
        c->jump[c->reps] = r.jump_ns;
        c->reps++;
        c->last = r;
    }
    stats(c->ns, c->reps, &c->med, &c->min, &c->max);
    stats(c->jump, c->reps, &c->jmed, &c->jmin, &c->jmax);
    c->state = CELL_OK;
}

/* ------------------------------------------------------------- output */

/* A missing peer's column says how to get it, when that is short. */
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

static void print_cell_value(double v, int w)
{
    if (v >= 10000)
        printf("  %*.0f", w, v);
    else
        printf("  %*.1f", w, v);
}

/* One table: rows n, columns targets; `jump` picks tick's second figure. */
static void print_table(int wl, int jump)
{
    char nb[32];
    int libev = -1;
    for (int ti = 0; ti < ntargets; ti++)
        if (targets[ti].scheme < 0)
            libev = ti;
    printf("\n== %s%s: %s (median of %d) ==\n", wl_info[wl].name, jump ? " (jump)" : "",
           jump ? "ns for one advance of 2^40 ticks over n timers pending beyond it"
                : wl_info[wl].figure,
           opt.reps);
    printf("%8s", "n");
    for (int ti = 0; ti < ntargets; ti++)
        printf("  %*s", col_width(ti), targets[ti].name);
    if (libev >= 0)
        printf("  %s", "best twheel / libev");
    printf("\n");
    for (int ni = 0; ni < opt.nn; ni++) {
        printf("%8s", fmt_n(opt.n[ni], nb, sizeof nb));
        int best = -1;
        for (int ti = 0; ti < ntargets; ti++) {
            struct cell *c = &cells[wl][ni][ti];
            int w = col_width(ti);
            double v = jump ? c->jmed : c->med;
            switch (c->state) {
            case CELL_OK:
                print_cell_value(v, w);
                if (targets[ti].scheme >= 0 &&
                    (best < 0 || v < (jump ? cells[wl][ni][best].jmed : cells[wl][ni][best].med)))
                    best = ti;
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
        if (libev >= 0) {
            struct cell *l = &cells[wl][ni][libev];
            if (best >= 0 && l->state == CELL_OK) {
                double b = jump ? cells[wl][ni][best].jmed : cells[wl][ni][best].med;
                double lv = jump ? l->jmed : l->med;
                printf("  %s %.2fx", targets[best].name, lv > 0 ? b / lv : 0.0);
            } else
                printf("  -");
        }
        printf("\n");
    }
    /* Notes: why cells are empty, and what was changed for a target. */
    for (int ti = 0; ti < ntargets; ti++) {
        const char *why = NULL;
        size_t from = 0;
        int folded = 0;
        for (int ni = 0; ni < opt.nn; ni++) {
            struct cell *c = &cells[wl][ni][ti];
            if (c->state == CELL_SKIP || c->state == CELL_NA || c->state == CELL_MISSING) {
                if (!why)
                    from = opt.n[ni];
                why = c->why;
            }
            if (c->state == CELL_OK && c->spec.hi < (wl == WL_CHURN ? 1u << 21 : 1u << 16))
                folded = 1;
        }
        if (why && targets[ti].missing) {
            if (strcmp(missing_text(ti), why) != 0)
                printf("   %s: %s\n", targets[ti].name, why);
        } else if (why && from == opt.n[0])
            printf("   %s: %s\n", targets[ti].name, why);
        else if (why)
            printf("   %s: n >= %s %s\n", targets[ti].name, fmt_n(from, nb, sizeof nb), why);
        if (folded)
            printf("   %s: intervals drawn in [1, %llu] (its MaxInterval) instead of [1, 2^16]\n",
                   targets[ti].name, (unsigned long long)targets[ti].max_interval);
    }
    if (wl == WL_TCP && !jump) {
        double lo = 101, hi = -1;
        for (int ni = 0; ni < opt.nn; ni++)
            for (int ti = 0; ti < ntargets; ti++) {
                struct cell *c = &cells[wl][ni][ti];
                if (c->state != CELL_OK || c->last.ops == 0)
                    continue;
                double p = 100.0 * (double)c->last.stops / (double)c->last.ops;
                lo = p < lo ? p : lo;
                hi = p > hi ? p : hi;
            }
        if (hi >= 0)
            printf("   share of operations that stopped a timer before expiry: %.1f%% .. %.1f%%\n",
                   lo, hi);
    }
}

static void print_libev_note(void)
{
    if (!any_libev)
        return;
    if (libev_info.error[0]) {
        printf("libev: %s\n", libev_info.error);
        return;
    }
    printf("libev %s (%s backend) as the peer: ev_timer_set+ev_timer_start, ev_timer_stop; "
           "advance = ev_run(EVRUN_NOWAIT)\n"
           "  in virtual time (1 tick = 1 us; twbench interposes clock_gettime and gettimeofday).\n"
           "  %s  One empty epoll_wait(0) costs %.0f ns here.\n"
           "  libev fires a timer only once its deadline is strictly before now: one tick later "
           "than twheel.\n",
           libev_info.version, libev_info.backend,
           libev_info.real_poll
               ? "Each ev_run makes its real epoll_wait syscall (--libev-real-poll)."
               : "Each ev_run's epoll_wait is stubbed to return 0 events at once (no fds are "
                 "watched), so figures are libev's timer code, not the syscall.",
           libev_info.poll_ns);
}

static void print_memory(void)
{
    char nb[32];
    int shown = 0;
    for (int i = 0; i < opt.nwl && !shown; i++) {
        int wl = opt.wl[i];
        if (wl == WL_TICK || wl == WL_CHURN)
            continue; /* prefer a workload whose intervals every target takes */
        shown = 1;
        printf("\n== bytes per timer: node + own memory / n, n pending (%s) ==\n",
               wl_info[wl].name);
        printf("%8s", "n");
        for (int ti = 0; ti < ntargets; ti++)
            printf("  %*s", col_width(ti), targets[ti].name);
        printf("\n");
        for (int ni = 0; ni < opt.nn; ni++) {
            printf("%8s", fmt_n(opt.n[ni], nb, sizeof nb));
            for (int ti = 0; ti < ntargets; ti++) {
                struct cell *c = &cells[wl][ni][ti];
                if (c->state == CELL_OK)
                    printf("  %*.1f", col_width(ti),
                           (double)c->last.node_bytes +
                               (double)c->last.facility_bytes / (double)opt.n[ni]);
                else
                    printf("  %*s", col_width(ti), "-");
            }
            printf("\n");
        }
    }
}

/* ------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_samples(FILE *f, const double *v, int k)
{
    fputc('[', f);
    for (int i = 0; i < k; i++)
        fprintf(f, "%s%.3f", i ? ", " : "", v[i]);
    fputc(']', f);
}

static void json_cell(FILE *f, int *first, int wl, int ti, size_t n, const struct cell *c,
                      int jump)
{
    const char *wname = jump ? "tick-jump" : wl_info[wl].name;
    fprintf(f, "%s\n    {\"workload\": ", *first ? "" : ",");
    *first = 0;
    json_str(f, wname);
    fprintf(f, ", \"target\": ");
    json_str(f, targets[ti].name);
    fprintf(f, ", \"figure\": ");
    json_str(f, jump ? "ns for one advance of 2^40 ticks" : wl_info[wl].figure);
    fprintf(f, ", \"n\": %zu, \"status\": ", n);
    static const char *st[] = {"none", "ok", "skipped", "n/a", "missing"};
    json_str(f, st[c->state]);
    if (c->state != CELL_OK) {
        fprintf(f, ", \"reason\": ");
        json_str(f, c->why ? c->why : "");
        fputc('}', f);
        return;
    }
    const struct wl_result *r = &c->last;
    if (jump) {
        fprintf(f, ", \"unit\": \"ns per jump\", \"ops\": 1, \"median\": %.3f, \"min\": %.3f, "
                   "\"max\": %.3f, \"samples\": ",
                c->jmed, c->jmin, c->jmax);
        json_samples(f, c->jump, c->reps);
    } else {
        fprintf(f, ", \"unit\": \"ns per op\", \"ops\": %llu, \"median\": %.3f, \"min\": %.3f, "
                   "\"max\": %.3f, \"samples\": ",
                (unsigned long long)r->ops, c->med, c->min, c->max);
        json_samples(f, c->ns, c->reps);
    }
    fprintf(f, ", \"interval_lo\": %llu, \"interval_hi\": %llu",
            (unsigned long long)c->spec.lo, (unsigned long long)c->spec.hi);
    fprintf(f, ", \"node_bytes\": %zu, \"facility_bytes\": %zu, \"bytes_per_timer\": %.3f",
            r->node_bytes, r->facility_bytes,
            (double)r->node_bytes + (double)r->facility_bytes / (double)n);
    if (c->spec.wl == WL_EXPIRE)
        fprintf(f, ", \"start_ns_per_timer\": %.3f, \"advance_ns_per_timer\": %.3f",
                (double)r->phase1_ns / (double)n, (double)r->phase2_ns / (double)n);
    if (c->spec.wl == WL_TCP)
        fprintf(f, ", \"restarts\": %llu, \"expiries\": %llu, \"stopped_share\": %.4f",
                (unsigned long long)r->stops, (unsigned long long)r->fired,
                r->ops ? (double)r->stops / (double)r->ops : 0.0);
    fputc('}', f);
}

static void write_json(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "twbench: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "{\n  \"tool\": \"twbench\",\n  \"twheel_version\": ");
    json_str(f, tw_version());
    fprintf(f, ",\n  \"quick\": %s,\n  \"reps\": %d,\n  \"warmup_reps\": 1,\n  \"seed\": %llu,\n  \"statistic\": "
               "\"median\",\n  \"clock\": \"CLOCK_MONOTONIC\",\n",
            opt.quick ? "true" : "false", opt.reps, (unsigned long long)opt.seed);
    fprintf(f, "  \"libev\": {");
    if (!any_libev)
        fprintf(f, "\"status\": \"not selected\"");
    else if (libev_info.error[0]) {
        fprintf(f, "\"status\": ");
        json_str(f, libev_info.error);
    } else {
        fprintf(f, "\"status\": \"ok\", \"version\": ");
        json_str(f, libev_info.version);
        fprintf(f, ", \"backend\": ");
        json_str(f, libev_info.backend);
        fprintf(f, ", \"tick\": \"1 us (virtual clock)\", \"poll\": \"%s\", "
                   "\"epoll_wait_zero_ns\": %.1f, \"fires\": \"when deadline < now\"",
                libev_info.real_poll ? "real epoll_wait" : "stubbed, 0 events", libev_info.poll_ns);
    }
    fprintf(f, "},\n  \"results\": [");
    int first = 1;
    for (int i = 0; i < opt.nwl; i++) {
        int wl = opt.wl[i];
        for (int ni = 0; ni < opt.nn; ni++)
            for (int ti = 0; ti < ntargets; ti++)
                json_cell(f, &first, wl, ti, opt.n[ni], &cells[wl][ni][ti], 0);
        if (wl == WL_TICK)
            for (int ni = 0; ni < opt.nn; ni++)
                for (int ti = 0; ti < ntargets; ti++)
                    json_cell(f, &first, wl, ti, opt.n[ni], &cells[wl][ni][ti], 1);
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "twbench: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* ------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    g_tty = isatty(2);
    setup_targets();
    if (ntargets == 0)
        usage_error("no scheme to run");

    printf("twbench: twheel %s; %d repetition(s) after 1 warm-up, median shown; "
           "sizeof(struct tw_timer) = %zu\n",
           tw_version(), opt.reps, sizeof(struct tw_timer));
    print_libev_note();
    fflush(stdout);

    /* Let the CPU reach its working clock before the first figure. */
    uint64_t t0 = bench_now_ns();
    while (bench_now_ns() - t0 < 200000000u)
        ;
    for (int i = 0; i < opt.nwl; i++) {
        int wl = opt.wl[i];
        for (int ni = 0; ni < opt.nn; ni++) {
            uint64_t t1 = bench_now_ns();
            for (int ti = 0; ti < ntargets; ti++)
                run_cell(wl, ni, ti);
            if (!g_tty) {
                char nb[32];
                progress("twbench: %s n=%s: %.1f s", wl_info[wl].name,
                         fmt_n(opt.n[ni], nb, sizeof nb), (double)(bench_now_ns() - t1) / 1e9);
            }
        }
        if (g_tty)
            progress("twbench: %s done", wl_info[wl].name);
        print_table(wl, 0);
        if (wl == WL_TICK)
            print_table(wl, 1);
        fflush(stdout);
    }
    print_memory();
    progress("twbench: finished in %.1f s", (double)(bench_now_ns() - t0) / 1e9);
    if (g_tty)
        fputc('\n', stderr);
    if (opt.json) {
        write_json(opt.json);
        printf("\nJSON written to %s\n", opt.json);
    }
    return 0;
}
