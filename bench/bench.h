/*
 * bench.h -- what the twbench harness and its targets share.
 *
 * A target is something that keeps timers: one twheel scheme (with its
 * options), or a peer: refwheel (the lean wheel of refwheel.c) or a library
 * (libev, libuv, libevent).  Each target is one
 * translation unit that defines a small driver (open, start, stop, advance,
 * close) and then includes workloads.h, which expands the workloads against
 * that driver with direct calls, so the figures carry no dispatch cost that
 * a user of the target would not pay.  The harness (twbench.c and the files
 * twbench.h names) picks what to run, takes statistics, checks slopes and
 * crossovers; report.c and the files report.h names write the JSON, the SVG
 * plots, report.html and summary.md.
 *
 * Time inside a workload is in ticks of the target.  twheel's and
 * refwheel's ticks are abstract; the event-loop peers map a tick to their
 * own unit (peer_*.c say which) and read it from a virtual clock (vclock.c).
 */
#ifndef TWBENCH_BENCH_H
#define TWBENCH_BENCH_H

#include "counters.h" /* struct wl_counts, counters_begin/end/take() */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---------------------------------------------------------------- workloads */

enum wl_id {
    WL_STARTSTOP,
    WL_CHURN,
    WL_EXPIRE,
    WL_TCP,
    WL_TICK,
    WL_TTL,
    WL_ID_COUNT
};

/* The TTL workloads draw TTLs from D values spread evenly over
 * [TTL_R, 2 TTL_R): see wl_ttl() in workloads.h. */
#define TTL_R UINT64_C(1000000)
#define TTL_MANY 100000u

/* expire-jump: the longest interval and the jump, 2^40 ticks (12.7 days in
 * microseconds, 35 years in milliseconds): see wl_expire(). */
#define WL_EXPIRE_JUMP (UINT64_C(1) << 40)

/* The long jumps of tick, part 2, and where its timers are: the jumps of
 * all windows together stay below WL_JUMP_LO, and 2^44 ticks is as far as
 * libuv's milliseconds can go on a nanosecond clock: see wl_tick(). */
#define WL_JUMP (UINT64_C(1) << 36)
#define WL_JUMP_LO (UINT64_C(1) << 43)
#define WL_JUMP_HI ((UINT64_C(1) << 44) - 1)

/* What the harness asks one run of a workload to do.  The interval ranges
 * are inclusive and already fitted to the target (see plan.c). */
struct wl_spec {
    enum wl_id wl;
    int scheme;            /* twheel targets: enum tw_scheme; peers: unused */
    uint32_t options;      /* twheel targets: tw_config.options */
    size_t n;              /* outstanding timers */
    uint64_t seed;         /* every random choice derives from it */
    uint64_t lo, hi;       /* interval range of the n timers */
    uint64_t hi2;          /* expire-jump: the longest interval, 2^40 (wheel:
                            * its MaxInterval); wl_expire() draws up to
                            * 2^40 - now, so that no deadline passes 2^40 */
    uint64_t ops;          /* operations per window (see workloads.h) */
    uint32_t ttls;         /* ttl: number of distinct TTLs, D */
    int stop_fifo;         /* ttl: stop in start order, not at random */
    int restart;           /* churn: drv_restart() instead of a stop + start */
    int reps;              /* measured windows, after one warm-up window */
    int check;             /* --check: verify the structure after phases */
};

#define WINDOWS_MAX 32

/* What one window (repetition) measured.  Times are nanoseconds.  Window 0
 * is the warm-up and is thrown away by the harness. */
struct wl_result {
    double ns_per_op;      /* the workload's figure */
    double ns2;            /* second figure: tick: ns per jump of 2^36;
                            * expire: ns per timer of one jump of 2^40;
                            * ttl: ns per stop of a random pending timer */
    uint64_t ops;          /* operations the figure is divided by */
    uint64_t ops2;         /* operations of the second figure */
    uint64_t phase1_ns;    /* expire: the starts */
    uint64_t phase2_ns;    /* expire: the advances */
    uint64_t stops;        /* tcp: restarts (timers stopped before expiry) */
    uint64_t fired;        /* tcp, ttl: expiries in the window */
    uint64_t advances;     /* ttl: calls to advance in the window */
    size_t live;           /* timers pending at the end of the window */
    size_t node_bytes;     /* size of the target's timer node */
    size_t facility_bytes; /* target's own memory with n timers pending */
    struct wl_counts cnt;  /* counted over the phases of ns_per_op (counters.h) */
    struct wl_counts cnt2; /* over those of ns2 */
};

/* Run the warm-up window and spec->reps measured ones into res[0..reps].
 * Returns 0, or -1 after printing why to stderr. */
typedef int wl_run_fn(const struct wl_spec *spec, struct wl_result *res);

/* ------------------------------------------------------------------- clock */

/* The real CLOCK_MONOTONIC, never the peers' virtual one. */
extern int (*bench_clock_gettime)(clockid_t, struct timespec *);

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    bench_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print "twbench: <where>: <message>" and exit(1).  For a library call that
 * failed where it must not: a benchmark of wrong behaviour is worthless.
 * bench_where names the cell running (util.c). */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
extern char bench_where[160];

/* ------------------------------------------------------------------ random */

#include "../common/rng.h" /* struct rng, rng_next(), rng_below(), rng_range() */

/* State a target's expiry callback works on: it counts, in the tcp workload
 * re-arms the timer that fired with a fresh interval, and in the ttl
 * workload returns the node to the free pool. */
struct wl_ctx {
    uint64_t fired;
    int rearm;
    uint64_t lo, hi;
    struct rng rng;
    const void *nodes;     /* the driver's node array, for wl_fired() */
    uint32_t *pool;        /* ttl: indices of idle nodes */
    size_t npool;
};

/* A driver's callback calls this with the index of the node that fired. */
static inline void wl_fired(struct wl_ctx *c, size_t i)
{
    c->fired++;
    if (c->pool)
        c->pool[c->npool++] = (uint32_t)i;
}

/* --------------------------------------------------------------- targets */

/* twbench.c: the twheel schemes. */
int tw_target_run(const struct wl_spec *spec, struct wl_result *res);

/* What a peer adapter says about itself once set up. */
struct peer_info {
    char version[32];      /* e.g. "4.33" */
    char backend[16];      /* e.g. "epoll" */
    int real_poll;         /* 1: the backend's poll is a real syscall */
    double polls_per_advance;  /* backend polls one advance makes */
    double reads_per_advance;  /* clock reads one advance makes */
    double reads_per_start;    /* clock reads one start makes (outside a loop) */
    char error[200];       /* why the peer cannot run, "" if it can */
};

/* peer_*.c (each only when its library was found at build time).  Init sets
 * the adapter up and verifies that the library runs on the virtual clock;
 * 0, or -1 with info->error. */
int libev_target_init(int real_poll, struct peer_info *info);
int libev_target_run(const struct wl_spec *spec, struct wl_result *res);
int libuv_target_init(int real_poll, struct peer_info *info);
int libuv_target_run(const struct wl_spec *spec, struct wl_result *res);
int libevent_target_init(int real_poll, struct peer_info *info);
int libevent_target_run(const struct wl_spec *spec, struct wl_result *res);
/* peer_refwheel.c, always built: 0, or -1 with info->error if its self-test
 * fails. */
int refwheel_target_init(struct peer_info *info);
int refwheel_target_run(const struct wl_spec *spec, struct wl_result *res);

/* ------------------------------------------------------- virtual clock */

/*
 * vclock.c: the executable defines clock_gettime(), gettimeofday(),
 * epoll_wait() and epoll_pwait().  The peers' shared libraries call them
 * through their PLT, and a definition in the executable comes first in the
 * dynamic linker's search order, so while vclock.on is set they see a
 * monotonic (and a wall) clock that stands still except when a workload
 * advances it, and (unless stub_poll is 0) a poll that returns 0 events at
 * once.  Outside a peer's run the real functions (dlsym(RTLD_NEXT)) answer.
 */
struct vclock {
    int on;                /* a peer's run is in progress */
    int stub_poll;         /* epoll_wait/epoll_pwait return 0 at once */
    uint64_t ns;           /* virtual time since the start of the run */
    uint64_t polls;        /* polls made while on (stubbed or real) */
    uint64_t reads;        /* clock reads answered by the virtual clock */
};
extern struct vclock vclock;

/* Where the virtual clocks start (seconds): small for the monotonic clock,
 * so that a double keeps sub-microsecond precision; a plausible date for the
 * wall clock. */
#define VBASE_MONO 1000u
#define VBASE_REAL 1700000000u

/* Find the real functions; sets bench_clock_gettime to the real clock. */
void vclock_init(void);
/* Cost of one real epoll_wait(timeout 0) on an empty epoll set, and of one
 * real clock_gettime(CLOCK_MONOTONIC), in ns (measured once). */
double vclock_poll_ns(void);
double vclock_read_ns(void);

#endif /* TWBENCH_BENCH_H */
