/*
 * peer_libevent.c -- libevent's timeouts (event_add with a timeval) as a
 * twbench target.
 *
 * libevent keeps timeouts in a binary min-heap of pointers to struct event
 * (the event remembers its heap index), keyed by absolute deadline in
 * microseconds.  A timer here is an event with no file descriptor, set up
 * once with event_assign(ev, base, -1, 0, cb, node) inside the caller's
 * node (struct event from event2/event_struct.h, as an intrusive node);
 * twbench drives it in virtual time (vclock.c):
 *
 *   - one tick is one microsecond, libevent's unit: a timer of d ticks is
 *     event_add(ev, {d / 10^6, d % 10^6}) (which re-arms a pending event);
 *     a stop is event_del();
 *   - a start outside a callback reads the clock (libevent caches the time
 *     only while its loop runs): one clock_gettime per event_add, answered
 *     by the virtual clock;
 *   - advancing to tick t sets the virtual clock to t us and calls
 *     event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE): one dispatch
 *     (epoll_wait with timeout 0), one clock read, then the due timeouts are
 *     made active and their callbacks run;
 *   - the epoll_wait is a real syscall on every loop; no descriptor is
 *     watched, so unless --real-poll is given it is stubbed (vclock.c) and
 *     the figures measure libevent's timer code; the syscall's cost is
 *     measured and printed beside them.
 *
 * libevent fires a timeout when its deadline is at or before the loop's
 * time: the same tick as twheel.  Not used: libevent's "common timeouts"
 * (event_base_init_common_timeout), a FIFO queue per duration for up to 256
 * durations, which is Lawn's idea; twbench measures event_add as most code
 * calls it.
 *
 * The trap: Debian's libev.so also exports libevent's old API (event_add,
 * event_del, event_base_new, event_get_version, ...).  If libev comes
 * before libevent in the link, these calls resolve to libev and crash.
 * bench/CMakeLists.txt links libevent first, and libevent_target_init()
 * checks with dladdr() that event_add really is libevent's, and that
 * event_get_version() answers a 2.x version, before anything runs.
 *
 * Memory: event_set_mem_functions() routes libevent's own allocations (the
 * base, the heap array) through a counting allocator.
 */
#define _GNU_SOURCE

#include "bench.h"
#include "countalloc.h"

#include <dlfcn.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ driver */

struct enode {
    struct event ev;
    void *user;
};

struct drv {
    struct event_base *base;
    struct enode *nodes;
    size_t count;
};

static inline struct timeval ticks_tv(uint64_t ticks)
{
    struct timeval tv;
    tv.tv_sec = (time_t)(ticks / 1000000u);
    tv.tv_usec = (suseconds_t)(ticks % 1000000u);
    return tv;
}

static void enode_fired(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct enode *b = arg;
    struct wl_ctx *c = b->user;
    wl_fired(c, (size_t)(b - (const struct enode *)c->nodes));
    if (c->rearm) {
        struct timeval tv = ticks_tv(rng_range(&c->rng, c->lo, c->hi));
        if (event_add(&b->ev, &tv))
            bench_die("event_add from a callback failed");
    }
}

static struct event_base *new_base(void)
{
    struct event_config *cfg = event_config_new();
    if (cfg == NULL)
        return NULL;
    event_config_set_flag(cfg, EVENT_BASE_FLAG_IGNORE_ENV);
    struct event_base *b = event_base_new_with_config(cfg);
    event_config_free(cfg);
    return b;
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    (void)s;
    vclock.ns = 0;
    vclock.on = 1;
    d->base = new_base();
    if (d->base == NULL) {
        vclock.on = 0;
        fprintf(stderr, "twbench: event_base_new failed\n");
        return -1;
    }
    d->count = nodes;
    d->nodes = calloc(nodes, sizeof *d->nodes);
    if (d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    for (size_t i = 0; i < nodes; i++) {
        if (event_assign(&d->nodes[i].ev, d->base, -1, 0, enode_fired, &d->nodes[i]))
            bench_die("event_assign failed");
        d->nodes[i].user = c;
    }
    c->nodes = d->nodes;
    return 0;
}

static void drv_close(struct drv *d)
{
    for (size_t i = 0; i < d->count; i++)
        event_del(&d->nodes[i].ev);
    event_base_free(d->base);
    vclock.on = 0;
    free(d->nodes);
}

static inline void drv_start(struct drv *d, size_t i, uint64_t interval)
{
    struct timeval tv = ticks_tv(interval);
    if (__builtin_expect(event_add(&d->nodes[i].ev, &tv) != 0, 0))
        bench_die("event_add(%llu us) failed", (unsigned long long)interval);
}

static inline void drv_stop(struct drv *d, size_t i)
{
    struct event *ev = &d->nodes[i].ev;
    if (__builtin_expect(!event_pending(ev, EV_TIMEOUT, NULL), 0))
        bench_die("libevent: stopping a timer that is not pending");
    event_del(ev);
}

/* libevent's restart: event_add() on a pending event replaces its timeout
 * (2.1 removes it from the heap and inserts it again, inside the call). */
static inline void drv_restart(struct drv *d, size_t i, uint64_t interval)
{
    if (__builtin_expect(!event_pending(&d->nodes[i].ev, EV_TIMEOUT, NULL), 0))
        bench_die("libevent: restarting a timer that is not pending");
    drv_start(d, i, interval);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    vclock.ns = now * 1000u;
    if (__builtin_expect(event_base_loop(d->base, EVLOOP_NONBLOCK | EVLOOP_ONCE) < 0, 0))
        bench_die("event_base_loop failed");
}

static size_t drv_node_bytes(void) { return sizeof(struct event); }

static size_t drv_facility_bytes(struct drv *d)
{
    (void)d;
    return cnt_live_bytes;
}

static void drv_check(struct drv *d, const char *when)
{
    (void)when;
    /* libevent's own verifier of its heap and queues: exported, not
     * declared in its headers, so looked up (and skipped if absent). */
    void (*assert_ok)(struct event_base *) =
        (void (*)(struct event_base *))dlsym(RTLD_DEFAULT, "event_base_assert_ok_");
    if (assert_ok)
        assert_ok(d->base); /* aborts if libevent finds its state corrupt */
}

#define WL_RUN libevent_target_run
#include "workloads.h"

/* ------------------------------------------------------------ set-up */

static int fired_count;

static void count_fire(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fired_count++;
}

/* Is it libevent at all (not libev's look-alike), and does it run on the
 * virtual clock?  A timer of 3 ticks must not fire at tick 2 and must fire
 * at tick 3. */
static const char *self_test(struct peer_info *info)
{
    /* Where the dynamic linker's global search finds event_add (what
     * libevent's own internal calls use too), against event_base_new_with_
     * config, which only libevent exports. */
    Dl_info a, b;
    void *add = dlsym(RTLD_DEFAULT, "event_add");
    void *own = dlsym(RTLD_DEFAULT, "event_base_new_with_config");
    if (!add || !own || !dladdr(add, &a) || !dladdr(own, &b) || !a.dli_fname || !b.dli_fname ||
        strcmp(a.dli_fname, b.dli_fname) != 0)
        return "event_add resolves to another library than libevent (libev's look-alike?): "
               "link -levent before -lev";
    const char *v = event_get_version();
    if (v == NULL || v[0] < '2' || v[0] > '9' || v[1] != '.')
        return "event_get_version() is not libevent 2.x (libev's look-alike?)";
    if (event_get_version_number() < 0x02000000)
        return "libevent older than 2.0";

    const char *err = NULL;
    struct event ev;
    vclock.ns = 0;
    vclock.on = 1;
    struct event_base *base = new_base();
    if (base == NULL) {
        vclock.on = 0;
        return "event_base_new failed";
    }
    snprintf(info->backend, sizeof info->backend, "%s", event_base_get_method(base));
    fired_count = 0;
    event_assign(&ev, base, -1, 0, count_fire, NULL);
    struct timeval tv = ticks_tv(3);
    uint64_t reads0 = vclock.reads;
    event_add(&ev, &tv);
    info->reads_per_start = (double)(vclock.reads - reads0);
    uint64_t polls0 = vclock.polls;
    reads0 = vclock.reads;
    vclock.ns = 2000;
    event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
    info->polls_per_advance = (double)(vclock.polls - polls0);
    info->reads_per_advance = (double)(vclock.reads - reads0);
    if (fired_count)
        err = "libevent fired a timer before its deadline on the virtual clock";
    vclock.ns = 3000;
    event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
    if (!err && fired_count != 1)
        err = "clock interposition failed: libevent does not see twbench's virtual clock";
    if (!err && info->polls_per_advance < 1)
        err = "epoll_wait interposition failed (try --real-poll)";
    event_del(&ev);
    event_base_free(base);
    vclock.on = 0;
    return err;
}

int libevent_target_init(int real_poll, struct peer_info *info)
{
    memset(info, 0, sizeof *info);
    vclock_init();
    event_set_mem_functions(cnt_malloc, cnt_realloc, cnt_free);
    vclock.stub_poll = !real_poll;
    info->real_poll = real_poll;
    const char *v = event_get_version();
    snprintf(info->version, sizeof info->version, "%s", v ? v : "?");
    const char *err = self_test(info);
    if (err) {
        snprintf(info->error, sizeof info->error, "%s", err);
        return -1;
    }
    return 0;
}
