/*
 * harness.h -- what the run (twbench.c and the files of twbench.h), the
 * report (report.c and the files of report.h: JSON, SVG, report.html,
 * summary.md) and advise.c (twbench advise) share: targets, series of
 * cells, the machine's description.
 */
#ifndef TWBENCH_HARNESS_H
#define TWBENCH_HARNESS_H

#include "bench.h"

#include <twheel.h>

#include <stdio.h>

/* Every twheel scheme, lawn_scan and the four peers. */
#define TARGETS_MAX (TW_SCHEME_COUNT + 5)
#define X_MAX 16
#define ROUNDS_MAX 15 /* --rounds; stats() takes up to WINDOWS_MAX values */
#define SERIES_MAX 28

_Static_assert(ROUNDS_MAX <= WINDOWS_MAX, "stats() sorts round medians in a window buffer");

/* The peers: the event loops' timers, and refwheel, the lean wheel written
 * here as the yardstick of an embedded wheel (peer_refwheel.c). */
enum peer_id { PEER_NONE, PEER_LIBEV, PEER_LIBUV, PEER_LIBEVENT, PEER_REFWHEEL };

struct target {
    const char *name;
    int scheme;            /* enum tw_scheme, or -1 for a peer */
    uint32_t options;      /* tw_config.options */
    enum peer_id peer;
    wl_run_fn *run;
    uint64_t max_interval;
    const char *missing;   /* non-NULL: why this target cannot run */
    struct peer_info info; /* peers */
    const char *tick;      /* peers: what one tick is */
    int late;              /* fires one tick after the deadline (libev) */
};

enum cell_state { CELL_NONE, CELL_OK, CELL_SKIP, CELL_NA, CELL_MISSING };

/* A peer that is an event loop, run on the virtual clock (vclock.c): libev,
 * libuv, libevent; not refwheel, which is called directly. */
static inline int is_loop_peer(const struct target *t)
{
    return t->peer != PEER_NONE && t->peer != PEER_REFWHEEL;
}

/* Counts per operation (counters.h), the median over the measured windows
 * (with --rounds, of the rounds' medians); NAN where not counted. */
struct cell_counts {
    double instr, cycles, l1d;
};

struct cell {
    enum cell_state state;
    const char *why;
    int reps;
    double ns[WINDOWS_MAX];
    double med, min, max;
    int rounds;            /* --rounds: how many times the cell ran */
    int copied;            /* figures copied from a point measured under
                              another name (their rounds are not this
                              series' rounds) */
    double round_med[ROUNDS_MAX]; /* the median of each round */
    double bytes_per_timer;
    struct cell_counts cnt;
    struct cell_counts cnt_round[ROUNDS_MAX]; /* each round's */
    uint64_t lo, hi;       /* intervals used */
    double seconds;        /* wall time the whole run took */
    struct wl_result last; /* the last window */
};

/* A slope of log(ns/op) against log(n), and what the paper claims. */
enum claim { CLAIM_NONE, CLAIM_FLAT, CLAIM_LOG, CLAIM_LINEAR };

struct slope {
    int points;            /* 0: not fitted */
    double s;              /* fitted slope */
    double ratio;          /* ns/op at the largest n over the smallest */
    enum claim claim;
    const char *why;       /* the claim's source or reason */
    int flag;              /* 1: the slope contradicts the claim */
};

struct series {
    char name[40];         /* "startstop", "tick-jump", "ttl-8-stop" */
    int wl;                /* its workload's enum wl_id (tcp and idle: WL_TCP) */
    const char *figure;    /* what a cell is */
    const char *unit;      /* "ns per op", "ns per jump" */
    int second;            /* the workload's second figure (wl_result.ns2) */
    int by_ttls;           /* x is the number of distinct TTLs, n fixed */
    int nx;
    double x[X_MAX];
    size_t n[X_MAX];
    uint32_t d[X_MAX];
    struct cell cell[X_MAX][TARGETS_MAX];
    struct slope slope[TARGETS_MAX];
};

/* The Fig. 9 reproduction, filled when bench/fig9.h exists. */
#define FIG9_MAX 16
struct fig9_result {
    int have;              /* 0: not built, or not selected */
    const char *why;       /* when !have */
    int npts;
    size_t n[FIG9_MAX];
    double ns[3][FIG9_MAX];    /* (a) BSD list, (b) hash interface, (c) handles */
    double slope[3];
    int linear_ok, flat_ok, order_ok; /* the three checks */
    double order_ratio;    /* median over n of (c)/(b) */
};

/* The timer service's table (the service workload, bench/svcbench.c):
 * per target, producer threads and n, million stop + start per second
 * and the p50 / p99 latency.  status: 0 measured, 1 beyond this system's
 * limit, 2 not run. */
#define SVC_TARGETS_MAX 13
#define SVC_THREADS 4
struct service_result {
    int have;
    const char *why;
    int ntargets, npts;
    const char *target[SVC_TARGETS_MAX];
    const char *what[SVC_TARGETS_MAX]; /* each target's legend */
    unsigned threads[SVC_THREADS];
    size_t n[X_MAX];
    int status[SVC_TARGETS_MAX][SVC_THREADS][X_MAX];
    double mops[SVC_TARGETS_MAX][SVC_THREADS][X_MAX];
    double p50[SVC_TARGETS_MAX][SVC_THREADS][X_MAX], p99[SVC_TARGETS_MAX][SVC_THREADS][X_MAX];
    unsigned ms;           /* per cell */
};

/* The crossover of lawn against hierarchical in the ttl sweep. */
struct crossover {
    int have;
    size_t n;
    char text[4][400];     /* findings, one per line */
    int ntext;
    double d_cross;        /* 0: none found in the sweep */
};

struct machine {
    char cpu[128];
    int cpus;
    char compiler[128];
    char flags[256];
    char date[40];
    char rev[48];          /* git describe of the source tree, "" if unknown */
    char kernel[128];
    double load_start[3], load_end[3];
    double clock_read_ns, poll_ns;
};

extern struct target targets[TARGETS_MAX];
extern int ntargets;
extern struct series series[SERIES_MAX];
extern int nseries;
extern struct fig9_result fig9;
extern struct service_result svcres;

/* The Redis module against the sorted-set delay queue (--redis FILE:
 * scripts/redis-bench.sh's rounds), medians per (n, implementation). */
#define REDIS_ROWS_MAX 64
#define REDIS_ROUNDS_MAX 15
#define REDIS_FIELDS 8
/* A column of the redis table: tqbench's key, the report's heading, the
 * console's shorter one, the JSON member, the printf format of a value,
 * and whether a line may lack it (written by an older tqbench: the cell
 * is then NaN, shown as a dash and null). */
struct redis_field {
    const char *key, *head, *short_head, *json, *fmt;
    int optional;
};
extern const struct redis_field redis_field[REDIS_FIELDS];
/* Cell k's value v as the tables show it, in buf: the field's format, or a
 * dash for a value that was not measured.  Returns buf. */
const char *redis_cell(char *buf, size_t size, int k, double v);
struct redis_row {
    size_t n;
    char name[48];
    int rounds;
    double v[REDIS_FIELDS];
};
struct redis_result {
    int have;
    char path[256];
    int nrows;
    struct redis_row row[REDIS_ROWS_MAX];
};
extern struct redis_result redisres;
/* Read FILE into redisres: 0, or -1 if it cannot be read or is not
 * tqbench's lines (redisres.have stays 0). */
int redis_load(const char *path);
/* Did the service workload's target t run from threads[h] at any n (else
 * its row is left out of the tables)?  (run.c) */
int svc_row_run(int t, int h);
extern struct crossover cross;
extern struct machine machine;

struct run_opts {
    int reps;              /* 0: auto */
    uint64_t seed;
    int quick;
    int real_poll;
    int check;
    int counts;            /* --counts: the figures are instructions per
                              operation counted by callgrind, not times */
    double seconds;        /* the run's wall time */
    char cmdline[512];     /* how twbench was called */
};
extern struct run_opts ropt;

/* --counts turns every figure into instructions per operation: the unit of
 * the tables ("ns", "instr") and a series' unit and figure in those words
 * (util.c). */
const char *fig_word(void);
const char *series_unit(const struct series *s, char *buf, size_t len);
const char *series_figure(const struct series *s, char *buf, size_t len);
/* A count per operation as the tables write it (util.c). */
const char *fmt_count(double v, char *buf, size_t len);
/* Cell c's count k (0 instructions, 1 cycles, 2 L1D misses: counters.h's
 * counts_kinds()) per operation, NAN if not counted (util.c). */
double cell_count(const struct cell *c, int k);

/* report_json.c: twbench.json. */
void json_write(FILE *f);
/* report.c */
/* Write report.html, summary.md (the which-scheme summary and the table of
 * every target at the largest n, in Markdown), the SVG plots (one or more
 * per series, at most about six lines each) and fig9.svg, and
 * twbench.json into dir, each under a temporary name first, then renamed;
 * on any error removes what it wrote and returns -1 with a message in
 * err. */
int report_write(const char *dir, char *err, size_t errlen);
/* Can dir be written (created if missing)?  0, or -1 with a message. */
int report_probe(const char *dir, char *err, size_t errlen);
/* util.c */
const char *fmt_n(size_t n, char *buf, size_t len);
/* qsort()'s order of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* The median, minimum and maximum of v[0..k-1], 1 <= k <= WINDOWS_MAX. */
void stats(const double *v, int k, double *med, double *mn, double *mx);

/* claims.c: "0", "log", "1", or "-" for none. */
const char *claim_name(enum claim c);

/* advise.c */
int advise_main(int argc, char **argv);

#endif /* TWBENCH_HARNESS_H */
