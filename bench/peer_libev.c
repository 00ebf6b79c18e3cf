/*
 * peer_libev.c -- libev's ev_timer as a twbench target.
 *
 * libev keeps relative timers in a 4-ary heap (16 bytes per entry, its
 * deadline cached beside the pointer) and reads the clock itself: there is
 * no call to hand it a time.  twbench drives it in virtual time (vclock.c):
 *
 *   - one tick is one microsecond: a timer of d ticks is ev_timer_set(w,
 *     d * 1e-6, 0.) followed by ev_timer_start(); a stop is ev_timer_stop();
 *     a start reads no clock (libev uses the loop's cached ev_now());
 *   - advancing to tick t sets the virtual clock to t microseconds and calls
 *     ev_run(loop, EVRUN_NOWAIT): one loop iteration, which reads the clock,
 *     expires the due timers off its heap and runs their callbacks;
 *   - each such iteration also polls its backend (epoll_wait with timeout
 *     0).  No file descriptor is watched, so the poll can only return zero
 *     events; unless --real-poll is given it is stubbed (vclock.c) and the
 *     figures measure libev's timer code rather than a syscall.  The cost of
 *     the real syscall is measured and printed beside the figures.
 *
 * libev fires a timer when its deadline is strictly before the loop's time,
 * so a timer of d ticks fires at tick d + 1 where twheel fires it at d; the
 * expire workload lets it run that one tick longer.  libev_target_init()
 * checks exactly that on the virtual clock, and refuses to run otherwise.
 *
 * Memory: ev_set_allocator() routes libev's own allocations (its loop, heap
 * and pending arrays) through a counting realloc.
 */
#define _GNU_SOURCE

#include "bench.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    wl_fired(c, (size_t)(b - (const struct lnode *)c->nodes));
    if (c->rearm) {
        /* A watcher restarted with repeat set (restart, idle) has been
         * re-armed by libev already: it must be stopped before it is set. */
        if (ev_is_active(w))
            ev_timer_stop(loop, w);
        ev_timer_set(w, ticks_s(rng_range(&c->rng, c->lo, c->hi)), 0.);
        ev_timer_start(loop, w);
    }
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    (void)s;
    vclock.ns = 0;
    vclock.on = 1;
    d->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (d->loop == NULL) {
        vclock.on = 0;
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
    c->nodes = d->nodes;
    return 0;
}

static void drv_close(struct drv *d)
{
    ev_loop_destroy(d->loop);
    vclock.on = 0;
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

/* libev's own restart of an active timer, the second method of its
 * manual's "Be smart about timeouts": with repeat set, ev_timer_again()
 * moves the deadline to now + repeat and adjusts the heap in place.  A
 * watcher so restarted that fires (idle, rarely) is re-armed by libev
 * before the callback, which stops it first (lnode_fired()). */
static inline void drv_restart(struct drv *d, size_t i, uint64_t interval)
{
    ev_timer *w = &d->nodes[i].w;
    if (__builtin_expect(!ev_is_active(w), 0))
        bench_die("libev: restarting a timer that is not active");
    w->repeat = ticks_s(interval);
    ev_timer_again(d->loop, w);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    vclock.ns = now * 1000u;
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
 * tick 3 and must fire by tick 4; ev_now() must follow the clock.  Counts
 * the polls and clock reads of an advance and of a start. */
static const char *self_test(struct peer_info *info)
{
    const char *err = NULL;
    int fired = 0;
    ev_timer w;
    vclock.ns = 0;
    vclock.on = 1;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (loop == NULL) {
        vclock.on = 0;
        return "ev_loop_new failed";
    }
    ev_tstamp t0 = ev_now(loop);
    ev_timer_init(&w, count_fire, ticks_s(3), 0.);
    w.data = &fired;
    uint64_t reads0 = vclock.reads;
    ev_timer_start(loop, &w);
    info->reads_per_start = (double)(vclock.reads - reads0);
    uint64_t polls0 = vclock.polls;
    reads0 = vclock.reads;
    vclock.ns = 3000;
    ev_run(loop, EVRUN_NOWAIT);
    info->polls_per_advance = (double)(vclock.polls - polls0);
    info->reads_per_advance = (double)(vclock.reads - reads0);
    if (fired)
        err = "libev fired a timer before its deadline on the virtual clock";
    vclock.ns = 4000;
    ev_run(loop, EVRUN_NOWAIT);
    if (!err && fired != 1)
        err = "clock interposition failed: libev does not see twbench's virtual clock";
    vclock.ns = 5000000000u;
    ev_now_update(loop);
    double moved = ev_now(loop) - t0;
    if (!err && (moved < 4.999999 || moved > 5.000001))
        err = "clock interposition failed: ev_now() does not follow the virtual clock";
    if (!err && info->polls_per_advance < 1)
        err = "epoll_wait interposition failed (try --real-poll)";
    ev_timer_stop(loop, &w);
    ev_loop_destroy(loop);
    vclock.on = 0;
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
    vclock_init();
    ev_set_allocator(counting_realloc);
    vclock.stub_poll = !real_poll;
    info->real_poll = real_poll;
    snprintf(info->version, sizeof info->version, "%d.%d", ev_version_major(),
             ev_version_minor());

    const char *err = self_test(info);
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
    return 0;
}
