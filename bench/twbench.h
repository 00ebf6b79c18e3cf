/*
 * twbench.h -- what the parts of a twbench run share beyond harness.h: the
 * workloads as the user names them and the options (cli.c); the plan of
 * every cell, the memory check and the progress line (plan.c); the runs
 * (run.c); the claims, the slopes and the crossover (claims.c); the text
 * tables (print.c).  twbench.c's main() calls them in that order, and
 * defines the run's state they share (harness.h's globals).  Each of them
 * calls only the ones listed before it, util.c, counters.c and (run.c)
 * fig9.c;
 * claims.c calls none of cli.c, plan.c and run.c.  The report (report.h)
 * and advise (advise.c) need harness.h alone.
 */
#ifndef TWBENCH_TWBENCH_H
#define TWBENCH_TWBENCH_H

#include "harness.h"

#include <twheel.h>

/* The paper's Fig. 9 experiment on the callout layer, when bench/fig9.h is
 * in the tree and CMake compiled fig9.c in. */
#if defined(__has_include)
#if __has_include("fig9.h") && defined(TW_HAVE_FIG9)
#define TWBENCH_FIG9 1
#endif
#endif

/* ------------------------------------------------------------- twbench.c */

/* The user's struct of the twheel targets: a timer node and one pointer of
 * user data (its size is what plan.c's memory check counts). */
struct bnode {
    struct tw_timer timer;
    void *user;
};

/* ----------------------------------------------------------------- cli.c */

/* The workloads as the user names them.  A ttl entry with ttls == 0 is the
 * sweep over D. */
enum { W_FIG9 = -1, W_SERVICE = -2 };
struct wdef {
    const char *name;
    int id;                /* enum wl_id, W_FIG9 or W_SERVICE */
    uint32_t ttls;
    const char *figure;
    const char *name2;     /* the second figure's series, or NULL */
    const char *figure2;
    int fifo;              /* ttl: stops in start order (wl_spec.stop_fifo) */
    const char *unit2;     /* the second figure's unit, if not ns per op */
    int restart;           /* churn: one call restarts (wl_spec.restart) */
};

#define NWDEFS 15 /* the entries of wdefs[] (cli.c checks) */
extern const struct wdef *const wdefs;

#define N_MAX_LIST X_MAX

/* The options of this run (beyond ropt, which the report shows too). */
struct cli_opts {
    int wsel[NWDEFS];      /* the workloads selected, indices into wdefs[] */
    int nsel;
    size_t n[N_MAX_LIST];  /* ascending */
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
};
extern struct cli_opts opt;

/* What --scheme selects beyond the twheel schemes (enum tw_scheme). */
enum {
    SEL_LAWN_SCAN = TW_SCHEME_COUNT,
    SEL_LIBEV,
    SEL_LIBUV,
    SEL_LIBEVENT,
    SEL_REFWHEEL,
    SEL_COUNT
};

/* Read the command line into opt and ropt, the defaults filled in; --help
 * prints the usage and exits 0, a usage error exits 2. */
void parse_args(int argc, char **argv);
/* Is target sel (an enum tw_scheme or a SEL_*) in the run?  Every one when
 * no --scheme narrowed them. */
int scheme_wanted(int sel);
/* A usage error: one line that names the option and what it accepts, on
 * stderr, exit 2, before any work. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---------------------------------------------------------------- plan.c */

/* Measured windows per cell at n: --reps, or the default. */
int reps_for(size_t n);
/* Does the ttl sweep run target t? */
int is_sweep_target(const struct target *t);
/* Refuse (a usage error) an n this machine's memory cannot hold. */
void check_memory(void);
/* Fill the spec of one cell, or say why it does not run. */
enum cell_state plan_cell(const struct target *t, int wl, size_t n, uint32_t D,
                          struct wl_spec *s, const char **why);
/* The points (n, D) of a workload's series; how many. */
int wdef_points(const struct wdef *wd, size_t *n, uint32_t *d);
/* The n of the fig9 experiment; how many (0: fewer than two). */
size_t fig9_points(size_t *n);

/* The progress over the whole run, in planned seconds (plan.c says how). */
struct prog_state {
    double total, done;    /* planned seconds: all, finished */
    int cells, cells_done;
    uint64_t t0;           /* when the first cell started */
};
extern struct prog_state prog;
extern int g_tty;          /* stderr is a terminal: a progress bar */

/* fig9's cost per value of n, planned seconds (its windows are its own). */
#define FIG9_COST_PER_N 1.5
/* Planned seconds per cell of the service workload (a window, set-up). */
#define SVC_COST_PER_CELL 0.35

/* The planned seconds of one cell. */
double cell_cost(const struct target *t, const struct wl_spec *s);
/* Plan the whole run for the progress line: every cell that will run, with
 * its planned cost (into prog). */
void plan_run(void);
/* "2 min 05 s", "40 s". */
void fmt_secs(double secs, char *buf, size_t len);
/* Report progress: the cell now starting (terminal) or the point just
 * finished (plain lines). */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that stays: ends the bar's line on a terminal first. */
void progress_end(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------- run.c */

/* Run the workload wdefs[w] over its points and targets into new series. */
void run_wdef(int w);
/* Run the fig9 experiment into fig9 (or say why not). */
void run_fig9(void);
/* Run the timer service's table into svcres (or say why not); its cells,
 * for the plan. */
void run_service(void);
int svc_cells(void);

/* -------------------------------------------------------------- claims.c */

/* The verdict's thresholds (claims.c says why): a claim of O(1) or
 * O(log n) is contradicted by a slope above the first, one of O(n) by a
 * slope below the second. */
#define SLOPE_SUBLINEAR_MAX 0.6
#define SLOPE_LINEAR_MIN 0.5

/* Fit every series' slopes and judge them against the claims. */
void fit_slopes(void);
/* The target with that name, or -1. */
int target_index(const char *name);
/* Where lawn stops beating hierarchical in the ttl sweep, into cross. */
void find_crossover(void);

/* --------------------------------------------------------------- print.c */

void print_peer_notes(void);
void print_series(const struct series *s);
void print_fig9(void);
void print_service(void);
void print_redis(void);
void print_memory(void);
void print_slopes(void);
void print_crossover(void);

#endif /* TWBENCH_TWBENCH_H */
