/*
 * bench.h -- what the twbench harness and its targets share.
 *
 * A target is something that keeps timers: one twheel scheme, or a peer
 * library (libev).  Each target is one translation unit that defines a small
 * driver (open, start, stop, advance, close) and then includes workloads.h,
 * which expands the workloads against that driver with direct calls, so the
 * figures carry no dispatch cost that a user of the target would not pay.
 * The harness (twbench.c) picks what to run, repeats it, takes statistics and
 * prints tables and JSON.
 *
 * Time inside a workload is in ticks of the target.  twheel's ticks are
 * abstract; the libev adapter maps one tick to one microsecond.
 */
#ifndef TWBENCH_BENCH_H
#define TWBENCH_BENCH_H

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
    WL_COUNT
};

/* What the harness asks one run of a workload to do.  The interval ranges
 * are inclusive and already fitted to the target (see twbench.c). */
struct wl_spec {
    enum wl_id wl;
    int scheme;            /* twheel targets: enum tw_scheme; peers: unused */
    size_t n;              /* outstanding timers */
    uint64_t seed;         /* every random choice derives from it */
    uint64_t lo, hi;       /* interval range of the n timers */
    uint64_t ops;          /* measured operations (startstop, churn) or
                            * advances (tick); 0 elsewhere */
    int check;             /* --check: verify the structure after phases */
};

/* What one run measured.  Times are nanoseconds. */
struct wl_result {
    double ns_per_op;      /* the workload's figure */
    double jump_ns;        /* tick: one advance of 2^40 ticks */
    uint64_t ops;          /* operations the figure is divided by */
    uint64_t setup_ns;     /* untimed setup, for information */
    uint64_t phase1_ns;    /* expire: the starts; tcp: timed ticks */
    uint64_t phase2_ns;    /* expire: the advances */
    uint64_t stops;        /* tcp: restarts (timers stopped before expiry) */
    uint64_t fired;        /* tcp: expiries in the timed phase */
    size_t node_bytes;     /* size of the target's timer node */
    size_t facility_bytes; /* target's own memory with n timers pending */
};

/* Run one repetition.  Returns 0, or -1 after printing why to stderr. */
typedef int wl_run_fn(const struct wl_spec *spec, struct wl_result *res);

/* ------------------------------------------------------------------- clock */

/* The real CLOCK_MONOTONIC, never the libev adapter's virtual one. */
extern int (*bench_clock_gettime)(clockid_t, struct timespec *);

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    bench_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print "twbench: <where>: <message>" and exit(1).  For a library call that
 * failed where it must not: a benchmark of wrong behaviour is worthless. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ------------------------------------------------------------------ random */

/* splitmix64 (Steele, Lea, Flood): tiny, fast, and good enough to pick
 * intervals and victims; every stream is fixed by its seed. */
struct rng {
    uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, span) by a multiply-high (no division on the hot path). */
static inline uint64_t rng_below(struct rng *r, uint64_t span)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)rng_next(r) * span) >> 64);
}

/* Uniform in [lo, hi]. */
static inline uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
    return lo + rng_below(r, hi - lo + 1);
}

/* State a target's expiry callback works on: it counts, and in the tcp
 * workload re-arms the timer that fired with a fresh interval. */
struct wl_ctx {
    uint64_t fired;
    int rearm;
    uint64_t lo, hi;
    struct rng rng;
};

/* --------------------------------------------------------------- targets */

/* twbench.c: the twheel schemes. */
int tw_target_run(const struct wl_spec *spec, struct wl_result *res);

/* What a peer adapter says about itself once set up. */
struct peer_info {
    char version[32];      /* e.g. "4.33" */
    char backend[16];      /* e.g. "epoll" */
    int real_poll;         /* 1: the backend's poll is a real syscall */
    double poll_ns;        /* cost of one empty epoll_wait(timeout 0) */
    char error[200];       /* why the peer cannot run, "" if it can */
};

/* peer_libev.c (only when TW_HAVE_LIBEV): libev's ev_timer.  Init sets the
 * adapter up and verifies its virtual clock; 0, or -1 with info->error. */
int libev_target_init(int real_poll, struct peer_info *info);
int libev_target_run(const struct wl_spec *spec, struct wl_result *res);

#endif /* TWBENCH_BENCH_H */
