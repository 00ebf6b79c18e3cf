/*
 * counters.c -- instructions, cycles and L1 data misses over the timed
 * phases of each window (counters.h says what is counted and when), from
 * the CPU's counters (perf_event_open(2)) or from callgrind (--counts);
 * the --counts parent that re-executes twbench under callgrind, and the
 * words that say where a run's counts come from.
 *
 * perf_event.  One group for the calling thread, user space only
 * (exclude_kernel, exclude_hv: a paranoid level of 2, the default, allows
 * that without privileges): instructions as the leader, cycles and L1D
 * read misses (PERF_TYPE_HW_CACHE: L1D, READ, MISS) as members, opened
 * disabled.  A phase enables and disables the group with one ioctl each
 * (PERF_IOC_FLAG_GROUP); a take reads the whole group in one read(2)
 * (PERF_FORMAT_GROUP) and keeps the difference from the take before,
 * since a counter only advances while enabled.  time_enabled and
 * time_running come with it: when the kernel multiplexed the group off the
 * PMU for part of the phases, the counts are scaled by their ratio, and a
 * window the group never ran in has none.  A member the CPU does not
 * offer is left out; the leader is the minimum.
 *
 * callgrind.  The --counts parent (counters_reexec()) runs the same
 * command line under `valgrind --tool=callgrind --collect-atstart=no
 * --cache-sim=yes --callgrind-out-file=DIR/cg.%p`, DIR a fresh temporary
 * folder named in TWBENCH_CALLGRIND_DIR.  The child toggles collection on
 * and off around each phase (CALLGRIND_TOGGLE_COLLECT; instrumentation,
 * and so the cache simulation, stays on throughout), and a take asks for a
 * dump (CALLGRIND_DUMP_STATS_AT), which callgrind writes before the client
 * request returns, as DIR/cg.<pid>.<k> for the k-th dump, and then zeroes
 * its counters.  The take reads the dump's `events:` line (the order of
 * the columns, e.g. Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw) and its
 * `summary:` line (or `totals:`; trailing zeros are left out), and deletes
 * the file.  The valgrind headers are Debian's `valgrind` package; CMake
 * defines TW_HAVE_CALLGRIND when it finds them, and without them --counts
 * says it is not built in.
 */
#define _GNU_SOURCE

#include "counters.h"
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TW_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>
#endif

/* The environment variable that names the dump folder to the child. */
#define CG_DIR_ENV "TWBENCH_CALLGRIND_DIR"

enum { EV_INSTR, EV_CYCLES, EV_L1D, EV_COUNT };

static struct {
    enum counts_source src;
    char why[200];
    /* perf_event */
    int fd[EV_COUNT];      /* -1: not open */
    int slot[EV_COUNT];    /* its place in the group's read, -1: absent */
    int nopen;
    uint64_t last[EV_COUNT], last_enabled, last_running;
    /* callgrind */
    char dir[4096];
    unsigned dumps;
    int collecting;
} cs = {.fd = {-1, -1, -1}, .slot = {-1, -1, -1}};

enum counts_source counters_source(void)
{
    return cs.src;
}

const char *counters_why(void)
{
    return cs.why;
}

const char *counters_source_name(void)
{
    return cs.src == COUNTS_PERF ? "perf_event" : cs.src == COUNTS_CALLGRIND ? "callgrind" : NULL;
}

int counters_have_cycles(void)
{
    return cs.src == COUNTS_PERF && cs.slot[EV_CYCLES] >= 0;
}

int counters_have_l1d(void)
{
    return cs.src == COUNTS_CALLGRIND || (cs.src == COUNTS_PERF && cs.slot[EV_L1D] >= 0);
}

const char *counters_l1d_name(void)
{
    return cs.src == COUNTS_CALLGRIND ? "D1 misses" : "L1D read misses";
}

/* ------------------------------------------------------------ perf_event */

static int perf_open(uint32_t type, uint64_t config, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = group < 0; /* the leader starts disabled, members follow it */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */, group,
                        PERF_FLAG_FD_CLOEXEC);
}

/* Why the kernel refused the leader, in the words the report uses. */
static void perf_refused(int err)
{
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
        snprintf(cs.why, sizeof cs.why, "no hardware PMU (a VM?)");
    } else if (err == EACCES || err == EPERM) {
        int level = 99;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (fscanf(f, "%d", &level) != 1)
                level = 99;
            fclose(f);
        }
        if (level == 99)
            snprintf(cs.why, sizeof cs.why, "perf_event_open: %s", strerror(err));
        else if (level > 2)
            snprintf(cs.why, sizeof cs.why,
                     "kernel.perf_event_paranoid = %d (2 or less lets a process count itself "
                     "in user space)",
                     level);
        else
            snprintf(cs.why, sizeof cs.why,
                     "kernel.perf_event_paranoid = %d, yet refused (%s): a container's "
                     "seccomp filter?",
                     level, strerror(err));
    } else if (err == ENOSYS) {
        snprintf(cs.why, sizeof cs.why, "perf_event_open(2) is not in this kernel");
    } else {
        snprintf(cs.why, sizeof cs.why, "perf_event_open: %s", strerror(err));
    }
}

/* One read of the group: nr, time_enabled, time_running, then the values
 * in the order the events joined it.  0, or -1. */
static int perf_read(uint64_t *v, uint64_t *enabled, uint64_t *running)
{
    uint64_t buf[3 + EV_COUNT];
    ssize_t k = read(cs.fd[EV_INSTR], buf, sizeof buf);
    if (k < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)cs.nopen ||
        k < (ssize_t)((3 + buf[0]) * sizeof(uint64_t)))
        return -1;
    *enabled = buf[1];
    *running = buf[2];
    for (int e = 0; e < EV_COUNT; e++)
        v[e] = cs.slot[e] >= 0 ? buf[3 + cs.slot[e]] : 0;
    return 0;
}

static void perf_close(void)
{
    for (int e = 0; e < EV_COUNT; e++) {
        if (cs.fd[e] >= 0)
            close(cs.fd[e]);
        cs.fd[e] = cs.slot[e] = -1;
    }
    cs.nopen = 0;
}

static volatile uint64_t perf_sink;

static void perf_init(void)
{
    static const struct {
        uint32_t type;
        uint64_t config;
    } ev[EV_COUNT] = {
        [EV_INSTR] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        [EV_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        [EV_L1D] = {PERF_TYPE_HW_CACHE,
                    PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                        ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    };
    for (int e = 0; e < EV_COUNT; e++) {
        int fd = perf_open(ev[e].type, ev[e].config, e == EV_INSTR ? -1 : cs.fd[EV_INSTR]);
        if (fd < 0) {
            if (e == EV_INSTR) {
                perf_refused(errno);
                return;
            }
            continue; /* a member this CPU does not offer: left out */
        }
        cs.fd[e] = fd;
        cs.slot[e] = cs.nopen++;
    }
    /* Does it count?  Some hypervisors accept the events and count nothing. */
    uint64_t v[EV_COUNT], en, run;
    ioctl(cs.fd[EV_INSTR], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    for (int i = 0; i < 100000; i++)
        perf_sink += (uint64_t)i;
    ioctl(cs.fd[EV_INSTR], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    if (perf_read(v, &en, &run) != 0 || run == 0 || v[EV_INSTR] < 100000) {
        perf_close();
        snprintf(cs.why, sizeof cs.why,
                 "the hardware counters opened but counted nothing (a hypervisor's PMU?)");
        return;
    }
    memcpy(cs.last, v, sizeof v);
    cs.last_enabled = en;
    cs.last_running = run;
    cs.src = COUNTS_PERF;
}

static void perf_take(struct wl_counts *out)
{
    uint64_t v[EV_COUNT], en, run;
    out->instr = out->cycles = out->l1d = NAN;
    if (perf_read(v, &en, &run) != 0)
        bench_die("reading the hardware counters: %s", strerror(errno));
    uint64_t den = en - cs.last_enabled, drun = run - cs.last_running;
    double d[EV_COUNT];
    for (int e = 0; e < EV_COUNT; e++)
        d[e] = (double)(v[e] - cs.last[e]);
    memcpy(cs.last, v, sizeof v);
    cs.last_enabled = en;
    cs.last_running = run;
    if (den > 0 && drun == 0)
        return; /* enabled, but never on the PMU: nothing to say */
    /* Multiplexed for part of the time: scale up by the share it ran. */
    double scale = drun > 0 && drun < den ? (double)den / (double)drun : 1.0;
    out->instr = d[EV_INSTR] * scale;
    if (cs.slot[EV_CYCLES] >= 0)
        out->cycles = d[EV_CYCLES] * scale;
    if (cs.slot[EV_L1D] >= 0)
        out->l1d = d[EV_L1D] * scale;
}

/* ------------------------------------------------------------- callgrind */

int counters_callgrind_built(void)
{
#ifdef TW_HAVE_CALLGRIND
    return 1;
#else
    return 0;
#endif
}

int counters_under_callgrind(const char **why)
{
#ifdef TW_HAVE_CALLGRIND
    if (!RUNNING_ON_VALGRIND)
        return 0;
    const char *d = getenv(CG_DIR_ENV);
    if (d == NULL || d[0] == '\0') {
        *why = "twbench is under valgrind, but not as twbench --counts's own child: run "
               "twbench --counts directly, it starts callgrind itself";
        return -1;
    }
    return 1;
#else
    (void)why;
    return 0;
#endif
}

/* Parse callgrind's dump at path: instructions and D1 misses.  0, or -1. */
static int cg_parse(const char *path, struct wl_counts *out)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[4096], names[64][16];
    int nnames = 0, ir = -1, d1r = -1, d1w = -1, got = 0;
    double val[64] = {0};
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "events:", 7) == 0) {
            char *save = NULL;
            for (char *t = strtok_r(line + 7, " \t\n", &save); t && nnames < 64;
                 t = strtok_r(NULL, " \t\n", &save))
                snprintf(names[nnames++], sizeof names[0], "%s", t);
        } else if (!got && (strncmp(line, "summary:", 8) == 0 || strncmp(line, "totals:", 7) == 0)) {
            char *p = strchr(line, ':') + 1;
            for (int k = 0; k < 64; k++) {
                char *end;
                double x = strtod(p, &end);
                if (end == p)
                    break; /* callgrind leaves trailing zeros out */
                val[k] = x;
                p = end;
            }
            got = 1;
        }
    }
    fclose(f);
    for (int k = 0; k < nnames; k++) {
        if (!strcmp(names[k], "Ir"))
            ir = k;
        else if (!strcmp(names[k], "D1mr"))
            d1r = k;
        else if (!strcmp(names[k], "D1mw"))
            d1w = k;
    }
    if (!got || ir < 0)
        return -1;
    out->instr = val[ir];
    out->cycles = NAN;
    out->l1d = d1r >= 0 && d1w >= 0 ? val[d1r] + val[d1w] : NAN;
    return 0;
}

static void cg_toggle(void)
{
#ifdef TW_HAVE_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
#endif
    cs.collecting = !cs.collecting;
}

static void cg_take(struct wl_counts *out, const char *label)
{
    char path[4200];
    if (cs.collecting)
        bench_die("callgrind: a take while counting (a phase not ended)");
#ifdef TW_HAVE_CALLGRIND
    CALLGRIND_DUMP_STATS_AT(label);
#else
    (void)label;
#endif
    cs.dumps++;
    snprintf(path, sizeof path, "%s/cg.%ld.%u", cs.dir, (long)getpid(), cs.dumps);
    if (cg_parse(path, out) != 0)
        bench_die("callgrind's dump %s is missing or has no summary: was twbench started by "
                  "twbench --counts?",
                  path);
    unlink(path);
}

/* ------------------------------------------------------------- interface */

enum counts_source counters_init(int callgrind)
{
    if (callgrind) {
        const char *d = getenv(CG_DIR_ENV);
        snprintf(cs.dir, sizeof cs.dir, "%s", d ? d : ".");
        cs.src = COUNTS_CALLGRIND;
        return cs.src;
    }
#ifdef TW_HAVE_CALLGRIND
    if (RUNNING_ON_VALGRIND) { /* memcheck, say: its counters would be valgrind's */
        snprintf(cs.why, sizeof cs.why, "under valgrind (twbench --counts runs callgrind "
                                        "itself)");
        return cs.src;
    }
#endif
    perf_init();
    return cs.src;
}

void counters_begin(void)
{
    if (cs.src == COUNTS_PERF)
        ioctl(cs.fd[EV_INSTR], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    else if (cs.src == COUNTS_CALLGRIND && !cs.collecting)
        cg_toggle();
}

void counters_end(void)
{
    if (cs.src == COUNTS_PERF)
        ioctl(cs.fd[EV_INSTR], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    else if (cs.src == COUNTS_CALLGRIND && cs.collecting)
        cg_toggle();
}

void counters_take(struct wl_counts *out, const char *label)
{
    if (cs.src == COUNTS_PERF)
        perf_take(out);
    else if (cs.src == COUNTS_CALLGRIND)
        cg_take(out, label);
    else
        out->instr = out->cycles = out->l1d = NAN;
}

/* ------------------------------------------------------------- --counts */

/* The executable `name` on PATH, into buf; 0, or -1. */
static int find_on_path(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t k = strcspn(path, ":");
        int w = snprintf(buf, len, "%.*s/%s", (int)k, k ? path : ".", name);
        if (w > 0 && (size_t)w < len && access(buf, X_OK) == 0)
            return 0;
        path += k + (path[k] == ':');
    }
    return -1;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4400];
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static volatile pid_t reexec_child;

static void forward_signal(int sig)
{
    if (reexec_child > 0)
        kill(reexec_child, sig);
}

int counters_reexec(int argc, char **argv)
{
    char valgrind[4096], self[4096], dir[4096], out[4200];
    if (!counters_callgrind_built()) {
        fprintf(stderr, "twbench: --counts is not built in: valgrind's headers "
                        "(<valgrind/callgrind.h>) were missing when twbench was built; install "
                        "valgrind (scripts/deps.sh --pkg valgrind) and build again\n");
        exit(2);
    }
    if (find_on_path("valgrind", valgrind, sizeof valgrind) != 0) {
        fprintf(stderr, "twbench: --counts needs valgrind, which is not on PATH (install it: "
                        "scripts/deps.sh --pkg valgrind)\n");
        exit(2);
    }
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        fprintf(stderr, "twbench: --counts: cannot find this program (/proc/self/exe): %s\n",
                strerror(errno));
        return 1;
    }
    self[k] = '\0';
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/twbench-counts-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "twbench: --counts: cannot make a folder for callgrind's dumps (%s): "
                        "%s\n",
                dir, strerror(errno));
        return 1;
    }
    snprintf(out, sizeof out, "--callgrind-out-file=%s/cg.%%p", dir);
    char **args = calloc((size_t)argc + 8, sizeof *args);
    if (args == NULL) {
        rmdir(dir);
        return 1;
    }
    int a = 0;
    args[a++] = valgrind;
    args[a++] = "--tool=callgrind";
    args[a++] = "-q";
    args[a++] = "--collect-atstart=no";
    args[a++] = "--cache-sim=yes";
    args[a++] = out;
    args[a++] = self;
    for (int i = 1; i < argc; i++)
        args[a++] = argv[i];
    args[a] = NULL;
    setenv(CG_DIR_ENV, dir, 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "twbench: --counts: fork: %s\n", strerror(errno));
        free(args);
        rmdir(dir);
        return 1;
    }
    if (pid == 0) {
        execv(valgrind, args);
        fprintf(stderr, "twbench: --counts: cannot run %s: %s\n", valgrind, strerror(errno));
        _exit(127);
    }
    /* A signal that would end the parent goes to the child instead (^C
     * reaches both), and the parent stays to remove the dumps. */
    reexec_child = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    free(args);
    remove_dir(dir);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    fprintf(stderr, "twbench: --counts: the run under callgrind ended by signal %d\n",
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return 1;
}

/* ------------------------------------------------------------- words */

int counts_kinds(void)
{
    if (cs.src == COUNTS_NONE)
        return 0;
    return 1 | (counters_have_cycles() ? 2 : 0) | (counters_have_l1d() ? 4 : 0);
}

const char *counts_kind_name(int k)
{
    return k == 0 ? "instructions" : k == 1 ? "cycles" : counters_l1d_name();
}

const char *counts_line(char *buf, size_t len)
{
    switch (counters_source()) {
    case COUNTS_PERF:
        snprintf(buf, len, "counts: perf_event (the CPU's counters, user space of twbench's "
                           "thread): instructions%s%s per operation over the phases each "
                           "window times, the harness's loop included",
                 counters_have_cycles() ? ", cycles" : "",
                 counters_have_l1d() ? ", L1D read misses" : "");
        break;
    case COUNTS_CALLGRIND:
        snprintf(buf, len, "counts: callgrind (twbench --counts): instructions and simulated "
                           "D1 misses per operation over the phases each window times, the "
                           "harness's loop included; no times (valgrind runs ~50x slower)");
        break;
    case COUNTS_NONE:
        snprintf(buf, len, "counts: unavailable: %s; %s",
                 counters_why()[0] ? counters_why() : "not set up",
                 counters_callgrind_built()
                     ? "twbench --counts counts instructions under callgrind"
                     : "twbench --counts (callgrind) is not built in: valgrind's headers were "
                       "missing at build time");
        break;
    }
    return buf;
}
