/*
 * peer_libuv.c -- libuv's uv_timer_t as a twbench target.
 *
 * libuv keeps timers in a binary min-heap whose nodes live inside each
 * uv_timer_t (three pointers), ordered by (deadline, start sequence), and
 * counts time in whole milliseconds: uv_timer_start() takes milliseconds,
 * and the loop's time (uv_now()) is the monotonic clock divided down to
 * milliseconds, read once per loop iteration (uv_update_time()) and cached.
 * twbench drives it in virtual time (vclock.c):
 *
 *   - one tick is one millisecond, libuv's own unit, so no rounding: a timer
 *     of d ticks is uv_timer_start(h, cb, d, 0); a stop is uv_timer_stop();
 *     a start reads no clock (it adds d to the cached loop time);
 *   - advancing to tick t sets the virtual clock to t ms and calls
 *     uv_run(loop, UV_RUN_NOWAIT): one loop iteration, which reads the clock
 *     twice (uv_update_time and the idle-time metrics), runs the due timers'
 *     callbacks, runs the idle, prepare and check phases (empty here) and
 *     polls for I/O with epoll_wait(timeout 0);
 *   - that epoll_wait is a real syscall on every uv_run, and it costs more
 *     than everything else an advance does.  No descriptor is watched, so
 *     it can only return 0 events: unless --real-poll is given it is stubbed
 *     (vclock.c), and the figures measure libuv's timer code and loop; the
 *     syscall's own cost is measured and printed beside them.
 *
 * libuv fires a timer when its deadline is at or before the loop's time,
 * so in virtual time it fires on the same tick as twheel; in real use its
 * whole milliseconds mean a timer fires up to 1 ms late by design.  What is
 * not measured: the real clock reads (two per uv_run, each a vDSO call whose
 * cost is printed) and the real poll.
 *
 * Memory: uv_replace_allocator() routes libuv's own allocations through a
 * counting allocator; the loop itself (sizeof(uv_loop_t)) is the caller's
 * and is counted as facility memory too.  Nodes are sizeof(uv_timer_t).
 */
#define _GNU_SOURCE

#include "bench.h"
#include "countalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* ------------------------------------------------------------ driver */

struct unode {
    uv_timer_t t;
    void *user;
};

struct drv {
    uv_loop_t loop;
    uint64_t t0;           /* uv_now() at tick 0 */
    struct unode *nodes;
    size_t count;
};

static void unode_fired(uv_timer_t *h)
{
    struct unode *b = (struct unode *)(void *)((char *)h - offsetof(struct unode, t));
    struct wl_ctx *c = b->user;
    wl_fired(c, (size_t)(b - (const struct unode *)c->nodes));
    if (c->rearm) {
        int rc = uv_timer_start(h, unode_fired, rng_range(&c->rng, c->lo, c->hi), 0);
        if (rc)
            bench_die("uv_timer_start from a callback: %s", uv_strerror(rc));
    }
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    (void)s;
    vclock.ns = 0;
    vclock.on = 1;
    int rc = uv_loop_init(&d->loop);
    if (rc) {
        vclock.on = 0;
        fprintf(stderr, "twbench: uv_loop_init: %s\n", uv_strerror(rc));
        return -1;
    }
    d->t0 = uv_now(&d->loop);
    d->count = nodes;
    d->nodes = calloc(nodes, sizeof *d->nodes);
    if (d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    for (size_t i = 0; i < nodes; i++) {
        uv_timer_init(&d->loop, &d->nodes[i].t);
        d->nodes[i].user = c;
    }
    c->nodes = d->nodes;
    return 0;
}

static void drv_close(struct drv *d)
{
    for (size_t i = 0; i < d->count; i++)
        uv_close((uv_handle_t *)&d->nodes[i].t, NULL);
    uv_run(&d->loop, UV_RUN_DEFAULT); /* runs the closes; nothing else is active */
    int rc = uv_loop_close(&d->loop);
    if (rc)
        bench_die("uv_loop_close: %s", uv_strerror(rc));
    vclock.on = 0;
    free(d->nodes);
}

static inline void drv_start(struct drv *d, size_t i, uint64_t interval)
{
    int rc = uv_timer_start(&d->nodes[i].t, unode_fired, interval, 0);
    if (__builtin_expect(rc != 0, 0))
        bench_die("uv_timer_start(%llu): %s", (unsigned long long)interval, uv_strerror(rc));
}

static inline void drv_stop(struct drv *d, size_t i)
{
    uv_timer_t *t = &d->nodes[i].t;
    if (__builtin_expect(!uv_is_active((uv_handle_t *)t), 0))
        bench_die("libuv: stopping a timer that is not active");
    uv_timer_stop(t);
}

/* libuv's restart: uv_timer_start() on an active timer moves it (it stops
 * it first, inside the call). */
static inline void drv_restart(struct drv *d, size_t i, uint64_t interval)
{
    if (__builtin_expect(!uv_is_active((uv_handle_t *)&d->nodes[i].t), 0))
        bench_die("libuv: restarting a timer that is not active");
    drv_start(d, i, interval);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    vclock.ns = now * 1000000u;
    uv_run(&d->loop, UV_RUN_NOWAIT);
}

static size_t drv_node_bytes(void) { return sizeof(uv_timer_t); }

static size_t drv_facility_bytes(struct drv *d)
{
    (void)d;
    return sizeof(uv_loop_t) + cnt_live_bytes;
}

static void drv_check(struct drv *d, const char *when)
{
    /* libuv has no verifier: check what its API shows, the loop's time. */
    if ((uv_now(&d->loop) - d->t0) * 1000000u != vclock.ns)
        bench_die("libuv %s: uv_now() is %llu ms after tick 0, the virtual clock %llu ns", when,
                  (unsigned long long)(uv_now(&d->loop) - d->t0), (unsigned long long)vclock.ns);
}

#define WL_RUN libuv_target_run
#include "workloads.h"

/* ------------------------------------------------------------ set-up */

static int fired_count;

static void count_fire(uv_timer_t *h)
{
    (void)h;
    fired_count++;
}

/* Does libuv run on the virtual clock?  A timer of 3 ticks must not fire at
 * tick 2 and must fire at tick 3; uv_now() must follow the clock. */
static const char *self_test(struct peer_info *info)
{
    const char *err = NULL;
    uv_loop_t loop;
    uv_timer_t t;
    vclock.ns = 0;
    vclock.on = 1;
    if (uv_loop_init(&loop)) {
        vclock.on = 0;
        return "uv_loop_init failed";
    }
    fired_count = 0;
    uint64_t t0 = uv_now(&loop);
    uv_timer_init(&loop, &t);
    uint64_t reads0 = vclock.reads;
    uv_timer_start(&t, count_fire, 3, 0);
    info->reads_per_start = (double)(vclock.reads - reads0);
    uint64_t polls0 = vclock.polls;
    reads0 = vclock.reads;
    vclock.ns = 2000000;
    uv_run(&loop, UV_RUN_NOWAIT);
    info->polls_per_advance = (double)(vclock.polls - polls0);
    info->reads_per_advance = (double)(vclock.reads - reads0);
    if (fired_count)
        err = "libuv fired a timer before its deadline on the virtual clock";
    vclock.ns = 3000000;
    uv_run(&loop, UV_RUN_NOWAIT);
    if (!err && fired_count != 1)
        err = "clock interposition failed: libuv does not see twbench's virtual clock";
    vclock.ns = 5000000000u;
    uv_update_time(&loop);
    if (!err && uv_now(&loop) - t0 != 5000)
        err = "clock interposition failed: uv_now() does not follow the virtual clock";
    if (!err && info->polls_per_advance < 1)
        err = "epoll_wait interposition failed (try --real-poll)";
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    vclock.on = 0;
    return err;
}

int libuv_target_init(int real_poll, struct peer_info *info)
{
    memset(info, 0, sizeof *info);
    vclock_init();
    if (uv_replace_allocator(cnt_malloc, cnt_realloc, cnt_calloc, cnt_free)) {
        snprintf(info->error, sizeof info->error, "uv_replace_allocator failed");
        return -1;
    }
    vclock.stub_poll = !real_poll;
    info->real_poll = real_poll;
    snprintf(info->version, sizeof info->version, "%s", uv_version_string());
    snprintf(info->backend, sizeof info->backend, "epoll");
    const char *err = self_test(info);
    if (err) {
        snprintf(info->error, sizeof info->error, "%s", err);
        return -1;
    }
    return 0;
}
