/*
 * peer_libev.c -- libev's ev_timer as a twbench target.
 *
 * libev keeps relative timers in a 4-ary heap (16 bytes per entry, its
 * deadline cached beside the pointer) and reads the clock itself: there is
 * no call to hand it a time.  To run the same tick-by-tick workloads as
 * twheel without waiting in real time, twbench drives libev in virtual time:
 *
 *   - one tick is one microsecond: a timer of d ticks is ev_timer_set(w,
 *     d * 1e-6, 0.) followed by ev_timer_start(); a stop is ev_timer_stop();
 *   - the twbench executable defines clock_gettime() and gettimeofday().
 *     libev.so calls them through its PLT, and a definition in the executable
 *     comes first in the dynamic linker's search order, so while a libev run
 *     is in progress libev sees a monotonic (and a wall) clock that stands
 *     still except when the workload advances it.  Outside a run, and for
 *     clocks libev does not use, the real functions (found with
 *     dlsym(RTLD_NEXT)) answer.  libev_target_init() checks that libev really
 *     sees the virtual clock, and refuses to run otherwise;
 *   - advancing to tick t sets the virtual clock to t microseconds and calls
 *     ev_run(loop, EVRUN_NOWAIT): one loop iteration, which reads the clock,
 *     expires the due timers off its heap and runs their callbacks;
 *   - each such iteration also polls its backend.  No file descriptor is
 *     watched, so the poll can only return zero events; unless
 *     --libev-real-poll is given, epoll_wait() is interposed too and returns
 *     0 at once, so that the figures measure libev's timer code rather than
 *     a syscall.  The cost of the real syscall is measured and printed.
 *
 * libev fires a timer when its deadline is strictly before the loop's time,
 * so a timer of d ticks fires at tick d + 1 where twheel fires it at d; the
 * expire workload lets it run that one tick longer.
 *
 * Memory: ev_set_allocator() routes libev's own allocations (its loop, heap
 * and pending arrays) through a counting realloc.
 */
#define _GNU_SOURCE

#include "bench.h"

#include <dlfcn.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <unistd.h>

/* ------------------------------------------------- interposed libc calls */

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);

static int virt;             /* 1 while a libev run is in progress */
static int stub_poll;        /* 1: epoll_wait returns 0 at once while virt */
static uint64_t vnow_ns;     /* the virtual clock, from the start of a run */
static uint64_t stub_polls;  /* how many polls were answered by the stub */

/* Where the virtual clocks start (seconds): small for the monotonic clock,
 * so that doubles keep sub-nanosecond precision; a plausible date for the
 * wall clock, which libev reads only to keep ev_now() near real time. */
#define VBASE_MONO 1000u
#define VBASE_REAL 1700000000u

static void resolve(void)
{
    if (real_clock_gettime)
        return;
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    real_epoll_wait =
        (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
    if (!real_clock_gettime || !real_gettimeofday || !real_epoll_wait) {
        fprintf(stderr, "twbench: dlsym(RTLD_NEXT) cannot find the libc clock functions\n");
        abort();
    }
}

static void virtual_time(uint64_t base_s, struct timespec *ts)
{
    ts->tv_sec = (time_t)(base_s + vnow_ns / 1000000000u);
    ts->tv_nsec = (long)(vnow_ns % 1000000000u);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (virt) {
        switch (id) {
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_BOOTTIME:
            virtual_time(VBASE_MONO, ts);
            return 0;
        case CLOCK_REALTIME:
        case CLOCK_REALTIME_COARSE:
            virtual_time(VBASE_REAL, ts);
            return 0;
        default:
            break;
        }
    }
    resolve();
    return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    if (virt && tz == NULL) {
        struct timespec ts;
        virtual_time(VBASE_REAL, &ts);
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
        return 0;
    }
    resolve();
    return real_gettimeofday(tv, tz);
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
    if (virt && stub_poll) {
        stub_polls++;
        return 0;
    }
    resolve();
    return real_epoll_wait(epfd, events, maxevents, timeout);
}

/* ------------------------------------------------- counting allocator */

#define BLOCKS_MAX 256
static struct {
    void *p;
    long size;
} blocks[BLOCKS_MAX];
static size_t live_bytes;

static void *counting_realloc(void *ptr, long size)
{
    int slot = -1;
    if (ptr)
        for (int i = 0; i < BLOCKS_MAX && slot < 0; i++)
            if (blocks[i].p == ptr)
                slot = i;
    if (ptr && slot < 0)
        bench_die("libev reallocated a block it never got from us");
    if (size == 0) {
        free(ptr);
        if (slot >= 0) {
            live_bytes -= (size_t)blocks[slot].size;
            blocks[slot].p = NULL;
        }
        return NULL;
    }
    void *q = realloc(ptr, (size_t)size);
    if (q == NULL)
        return NULL; /* libev reports it and aborts */
    if (slot < 0)
        for (int i = 0; i < BLOCKS_MAX && slot < 0; i++)
            if (blocks[i].p == NULL)
                slot = i;
    if (slot < 0)
        bench_die("libev holds more than %d blocks", BLOCKS_MAX);
    live_bytes = live_bytes - (size_t)(blocks[slot].p ? blocks[slot].size : 0) + (size_t)size;
    blocks[slot].p = q;
    blocks[slot].size = size;
    return q;
}

/* ------------------------------------------------------------ driver */

struct lnode {
    ev_timer w;
    void *user;
};

struct drv {
    struct ev_loop *loop;
    struct lnode *nodes;
};

static ev_tstamp ticks_s(uint64_t ticks) { return (ev_tstamp)ticks * 1e-6; }

static void lnode_fired(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    struct lnode *b = (struct lnode *)(void *)((char *)w - offsetof(struct lnode, w));
    struct wl_ctx *c = b->user;
    c->fired++;
    if (c->rearm) {
        ev_timer_set(w, ticks_s(rng_range(&c->rng, c->lo, c->hi)), 0.);
        ev_timer_start(loop, w);
    }
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    (void)s;
    vnow_ns = 0;
    virt = 1;
    d->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (d->loop == NULL) {
        virt = 0;
        fprintf(stderr, "twbench: ev_loop_new failed\n");
        return -1;
    }
    d->nodes = calloc(nodes, sizeof *d->nodes);
    if (d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    for (size_t i = 0; i < nodes; i++) {
        ev_timer_init(&d->nodes[i].w, lnode_fired, 0., 0.);
        d->nodes[i].user = c;
    }
    return 0;
}

static void drv_close(struct drv *d)
{
    ev_loop_destroy(d->loop);
    virt = 0;
    free(d->nodes);
}

static inline void drv_start(struct drv *d, size_t i, uint64_t interval)
{
    ev_timer *w = &d->nodes[i].w;
    ev_timer_set(w, ticks_s(interval), 0.);
    ev_timer_start(d->loop, w);
}

static inline void drv_stop(struct drv *d, size_t i)
{
    ev_timer *w = &d->nodes[i].w;
    if (__builtin_expect(!ev_is_active(w), 0))
        bench_die("libev: stopping a timer that is not active");
    ev_timer_stop(d->loop, w);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    vnow_ns = now * 1000u;
    ev_run(d->loop, EVRUN_NOWAIT);
}

static size_t drv_node_bytes(void) { return sizeof(ev_timer); }

static size_t drv_facility_bytes(struct drv *d)
{
    (void)d;
    return live_bytes;
}

static void drv_check(struct drv *d, const char *when)
{
    (void)when;
    ev_verify(d->loop); /* aborts if libev finds its state corrupt */
}

#define WL_RUN libev_target_run
#include "workloads.h"

/* ------------------------------------------------------------ set-up */

static void count_fire(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    ++*(int *)w->data;
}

/* Does libev run on the virtual clock?  A timer of 3 ticks must not fire at
 * tick 3 and must fire by tick 4; ev_now() must follow the clock. */
static const char *self_test(void)
{
    const char *err = NULL;
    int fired = 0;
    ev_timer w;
    vnow_ns = 0;
    virt = 1;
    stub_polls = 0;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (loop == NULL) {
        virt = 0;
        return "ev_loop_new failed";
    }
    ev_tstamp t0 = ev_now(loop);
    ev_timer_init(&w, count_fire, ticks_s(3), 0.);
    w.data = &fired;
    ev_timer_start(loop, &w);
    vnow_ns = 3000;
    ev_run(loop, EVRUN_NOWAIT);
    if (fired)
        err = "libev fired a timer before its deadline on the virtual clock";
    vnow_ns = 4000;
    ev_run(loop, EVRUN_NOWAIT);
    if (!err && fired != 1)
        err = "clock interposition failed: libev does not see twbench's virtual clock";
    vnow_ns = 5000000000u;
    ev_now_update(loop);
    double moved = ev_now(loop) - t0;
    if (!err && (moved < 4.999999 || moved > 5.000001))
        err = "clock interposition failed: ev_now() does not follow the virtual clock";
    if (!err && stub_poll && stub_polls == 0)
        err = "epoll_wait interposition failed (try --libev-real-poll)";
    ev_timer_stop(loop, &w);
    ev_loop_destroy(loop);
    virt = 0;
    return err;
}

static const char *backend_name(unsigned b)
{
    switch (b) {
    case EVBACKEND_EPOLL:
        return "epoll";
    case EVBACKEND_POLL:
        return "poll";
    case EVBACKEND_SELECT:
        return "select";
    default:
        return "other";
    }
}

int libev_target_init(int real_poll, struct peer_info *info)
{
    memset(info, 0, sizeof *info);
    resolve();
    bench_clock_gettime = real_clock_gettime;
    ev_set_allocator(counting_realloc);
    stub_poll = !real_poll;
    info->real_poll = real_poll;
    snprintf(info->version, sizeof info->version, "%d.%d", ev_version_major(),
             ev_version_minor());

    const char *err = self_test();
    if (err) {
        snprintf(info->error, sizeof info->error, "%s", err);
        return -1;
    }
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (loop == NULL) {
        snprintf(info->error, sizeof info->error, "ev_loop_new failed");
        return -1;
    }
    snprintf(info->backend, sizeof info->backend, "%s", backend_name(ev_backend(loop)));
    ev_loop_destroy(loop);

    /* What stubbing the poll leaves out: one epoll_wait on an empty set. */
    int fd = epoll_create1(0);
    if (fd >= 0) {
        struct epoll_event ev[8];
        const int k = 20000;
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < k; i++)
            real_epoll_wait(fd, ev, 8, 0);
        info->poll_ns = (double)(bench_now_ns() - t0) / k;
        close(fd);
    }
    return 0;
}
