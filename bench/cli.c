/*
 * cli.c -- twbench's command line: the workloads as the user names them
 * (wdefs[]), the default run's selection, the usage text, the parsing of
 * every option into opt and ropt, and which workloads, targets and n a run
 * takes.  A bad option is refused here, exit 2, before any work.
 */
#define _GNU_SOURCE

#include "twbench.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct wdef wdef_table[] = {
    {.name = "startstop", .id = WL_STARTSTOP,
     .figure = "ns per stop+start pair (random timer, random interval)"},
    {.name = "churn", .id = WL_CHURN,
     .figure = "ns per stop+start of one timer restarted beyond n far timers",
     .name2 = "churn-any",
     .figure2 = "ns per stop+start of a random one of n far timers, restarted beyond all"},
    {.name = "restart", .id = WL_CHURN,
     .figure = "ns per restart (one call) of one timer beyond n far timers",
     .name2 = "restart-any",
     .figure2 = "ns per restart (one call) of a random one of n far timers, beyond all",
     .restart = 1},
    {.name = "expire", .id = WL_EXPIRE,
     .figure = "ns per timer: n starts + tick-by-tick advances until all fired",
     .name2 = "expire-jump",
     .figure2 = "ns per timer: one advance by 2^40 + 1 ticks firing n timers (deadlines up "
                "to 2^40)",
     .unit2 = "ns per timer"},
    {.name = "tcp", .id = WL_TCP,
     .figure = "ns per operation (restart or expiry), ~95% stopped before expiry"},
    {.name = "idle", .id = WL_TCP,
     .figure = "ns per operation: an idle timeout pushed back to now + 2^16 (one call), "
               "or its expiry",
     .restart = 1},
    {.name = "tick", .id = WL_TICK,
     .figure = "ns per advance of one tick, nothing due, n far timers pending",
     .name2 = "tick-jump", .figure2 = "ns per jump of 2^36 ticks over n timers pending beyond it",
     .unit2 = "ns per jump"},
    {.name = "ttl-1", .id = WL_TTL, .ttls = 1,
     .figure = "ns per timer (start + expire), 1 TTL, n pending",
     .name2 = "ttl-1-stop", .figure2 = "ns per stop of a random pending timer, 1 TTL"},
    {.name = "ttl-8", .id = WL_TTL, .ttls = 8,
     .figure = "ns per timer (start + expire), 8 distinct TTLs, n pending",
     .name2 = "ttl-8-stop", .figure2 = "ns per stop of a random pending timer, 8 distinct TTLs"},
    {.name = "ttl-64", .id = WL_TTL, .ttls = 64,
     .figure = "ns per timer (start + expire), 64 distinct TTLs, n pending",
     .name2 = "ttl-64-stop",
     .figure2 = "ns per stop of a random pending timer, 64 distinct TTLs"},
    {.name = "ttl-8-fifo", .id = WL_TTL, .ttls = 8,
     .figure = "ns per timer (start + expire), 8 distinct TTLs, n pending",
     .name2 = "ttl-8-fifo-stop",
     .figure2 = "ns per stop of the timer started longest ago, 8 distinct TTLs", .fifo = 1},
    {.name = "ttl-many", .id = WL_TTL, .ttls = TTL_MANY,
     .figure = "ns per timer (start + expire), 10^5 distinct TTLs, n pending",
     .name2 = "ttl-many-stop",
     .figure2 = "ns per stop of a random pending timer, 10^5 distinct TTLs"},
    {.name = "ttl-sweep", .id = WL_TTL,
     .figure = "ns per timer (start + expire) against distinct TTLs D, n fixed",
     .name2 = "ttl-sweep-stop",
     .figure2 = "ns per stop of a random pending timer against distinct TTLs D"},
    {.name = "fig9", .id = W_FIG9,
     .figure = "ns per untimeout+timeout (or unset+set) of one callout beyond n"},
    {.name = "service", .id = W_SERVICE,
     .figure = "million stop+start per second from 1-8 threads: tw_service and the "
               "timers of multi-threaded programs"},
};
_Static_assert(sizeof wdef_table / sizeof wdef_table[0] == NWDEFS,
               "NWDEFS in twbench.h counts the entries of wdefs[]");

const struct wdef *const wdefs = wdef_table;

struct cli_opts opt;

/* The default run (no --full, --quick, --workload or --scheme): the
 * workloads the README's table shows, for the default scheme, the best of
 * each family and the four peers.  Sized for about 2 minutes on 2 cores;
 * --full runs every workload on every target. */
static const char *const default_workloads[] = {"startstop", "churn",   "restart", "expire",
                                                "tcp",       "idle",    "tick",    "ttl-8"};
#define DEFAULT_WORKLOADS_TEXT "startstop, churn, restart, expire, tcp, idle, tick and ttl-8 (each with\n" \
                               "its second figure)"
static const char *const default_schemes[] = {"hierarchical", "hierarchical_coarse", "hybrid",
                                              "heap", "peers"};
#define DEFAULT_SCHEMES_TEXT "hierarchical (the default scheme), hierarchical_coarse, hybrid and heap,"

static const char *workload_names(void);

/* ------------------------------------------------------------- usage */

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
            "and the peers refwheel (a lean wheel written here from the paper), libev,\n"
            "libuv and libevent, at n = 1e3, 1e4, 1e5, 1e6.\n"
            "\n"
            "  --full                  every workload and every scheme (about 8 minutes)\n"
            "  --quick                 every workload and scheme at n = 1e3 and 1e4, 3\n"
            "                          repetitions (CI: about 25 s on 2 idle cores)\n"
            "  --workload NAME[,NAME]  run these workloads (the others stay out); one of:\n");
    print_wrapped(f, workload_names(), 26);
    fprintf(f,
            "                          or ttl (every ttl-*), all.  A second figure\n"
            "                          (churn-any, expire-jump, ...) is measured with its\n"
            "                          first: asking for either runs both\n"
            "  --scheme NAME[,NAME]    run these targets: twheel schemes, lawn_scan,\n"
            "                          refwheel, libev, libuv, libevent, peers (the last\n"
            "                          four; default: every one this build has; with no\n"
            "                          --workload either, the default run's)\n"
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
            "  --redis FILE            add the Redis module's figures, the rounds that\n"
            "                          scripts/redis-bench.sh wrote to FILE\n"
            "  --seed S                base seed, an unsigned integer (default fixed)\n"
            "  --counts                count instead of timing: run again under valgrind's\n"
            "                          callgrind and report instructions (and simulated\n"
            "                          D1 misses) per operation; no times.  Defaults to\n"
            "                          n = 1e3,1e4 and --reps 1\n"
            "  --check                 check each structure after each phase (slow, untimed)\n"
            "  --real-poll             let the event-loop peers make real epoll_wait syscalls\n"
            "  --help                  this text\n",
            WINDOWS_MAX - 1, ROUNDS_MAX);
}

#define OPTIONS_TEXT                                                                           \
    "--full, --quick, --workload, --scheme, --n, --reps, --rounds, --ratio, --out, --json, "   \
    "--redis, --seed, --counts, --check, --real-poll, --help"

/* A usage error: one line that names the option and what it accepts, on
 * stderr, exit 2, before any work. */
void usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twbench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
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

static int scheme_selected[SEL_COUNT];
static int scheme_filter;

int scheme_wanted(int sel)
{
    return !scheme_filter || scheme_selected[sel];
}

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
    /* in the order of the SEL_* that follow the schemes */
    static const char *const extra[] = {"lawn_scan", "libev", "libuv", "libevent", "refwheel"};
    _Static_assert(sizeof extra / sizeof extra[0] == SEL_COUNT - SEL_LAWN_SCAN,
                   "a name for every SEL_* beyond the schemes");
    for (int i = 0; i < SEL_COUNT - SEL_LAWN_SCAN; i++)
        if (strcmp(name, extra[i]) == 0) {
            scheme_selected[SEL_LAWN_SCAN + i] = 1;
            return;
        }
    if (strcmp(name, "peers") == 0) {
        scheme_selected[SEL_REFWHEEL] = scheme_selected[SEL_LIBEV] = 1;
        scheme_selected[SEL_LIBUV] = scheme_selected[SEL_LIBEVENT] = 1;
        return;
    }
    int s = tw_scheme_from_name(name);
    if (s < 0) {
        char known[320] = "";
        for (int i = 0; i < TW_SCHEME_COUNT; i++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s, ", tw_scheme_name((enum tw_scheme)i));
        }
        usage_error("unknown --scheme '%s' (known: %slawn_scan, refwheel, libev, libuv, "
                    "libevent, peers)",
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

void parse_args(int argc, char **argv)
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
                    !strcmp(name, "--json") || !strcmp(name, "--seed") || !strcmp(name, "--out") ||
                    !strcmp(name, "--redis");
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
        else if (!strcmp(name, "--redis")) {
            if (redis_load(val) != 0)
                usage_error("bad --redis '%s': want the rounds file scripts/redis-bench.sh "
                            "writes (out/redis-bench.txt)",
                            val);
        }
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
        else if (!strcmp(name, "--counts"))
            ropt.counts = 1;
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
        int k = ropt.quick || ropt.counts ? 2 : 4; /* --counts: ~50x slower */
        for (int i = 0; i < k; i++)
            opt.n[opt.nn++] = full[i];
    }
    qsort(opt.n, (size_t)opt.nn, sizeof opt.n[0], cmp_size);
}
