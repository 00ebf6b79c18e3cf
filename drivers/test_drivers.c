/*
 * test_drivers.c -- each loop driver against its real library, on every
 * scheme: built three times, with DRV_TIMERFD, DRV_UV or DRV_EV.
 *
 *   test_DRIVER [SCHEME]     (every available scheme when none is named)
 *
 * For each scheme, on CLOCK_MONOTONIC with 1 ms ticks:
 *   1. the driver re-arms its timer only when the wake-up moves
 *      (tw_next_wakeup()): a first timer arms it, 100 later ones do not,
 *      an earlier one and its stop do when they move the wake-up;
 *   2. a real loop (epoll on the timerfd, uv_run, ev_run) fires 200 timers
 *      of 1 to 40 ms, a fifth of them stopped before they fire and a tenth
 *      restarted from their callback: each fires once, none before its
 *      start reading + duration (read from the real clock in the
 *      callback), the stopped ones never, and the facility ends empty;
 *   3. re-arms stay O(1) per change of the wake-up: at most one
 *      per wake-up and per sync that moved it, far fewer than timers;
 *   4. a stop (libev) or close (libuv, timerfd) from a twheel callback
 *      sticks: the driver does not re-arm after the callback, the timer
 *      left pending never fires, the loop returns, and (libev, timerfd)
 *      the driver freed in that callback is not touched again;
 *   5. (libuv, libev) a sync that moves the wake-up later, with the
 *      clock's reading gone stale, arms the loop's timer for the wait
 *      from the clock's time now (a user clock, the loop never run);
 *   6. (libuv, libev) a timer that a twheel callback re-arms for "now",
 *      again and again, runs once per loop iteration: the loop polls in
 *      between (libuv before 1.45 would run it again in the same pass).
 * Behaviour only: no assertion on how long anything took (a wall-clock cap
 * of 60 s only stops a hung loop).  Exit 0, 1 on a failure, 77 when the
 * named scheme is not in this build.
 */
#define _GNU_SOURCE
#include <twheel.h>

#include "../common/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(DRV_TIMERFD)
#include <fcntl.h>
#include "twheel_timerfd.h"
#include <sys/epoll.h>
#define DRV_NAME "timerfd"
#elif defined(DRV_UV)
#include "twheel_uv.h"
#define DRV_NAME "libuv"
#elif defined(DRV_EV)
#include "twheel_ev.h"
#define DRV_NAME "libev"
#else
#error "build with DRV_TIMERFD, DRV_UV or DRV_EV"
#endif

static int failures;
static const char *scheme_name = "";

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "test_%s: %s: %s:%d: %s\n", DRV_NAME, scheme_name, __FILE__,     \
                    __LINE__, #cond);                                                      \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static uint64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum { N = 200 };

struct job {
    struct tw_timer node;
    struct tw_clock *clk;
    uint64_t start_ns, ns;
    int fired, restart, stopped;
};

static void on_job(struct tw *tw, struct tw_timer *t)
{
    struct job *j = tw_container_of(t, struct job, node);
    CHECK(!j->stopped);
    CHECK(real_ns() >= j->start_ns + j->ns); /* never early in real time */
    j->fired++;
    if (j->restart) { /* once, from the callback, 5 ms on */
        j->restart = 0;
        j->fired--;
        tw_clock_update(j->clk);
        j->start_ns = tw_clock_now_ns(j->clk);
        j->ns = TW_MSEC(5);
        CHECK(tw_clock_start(j->clk, tw, t, j->ns) == 0);
    }
}

/* The driver, in one shape for the three. */
struct drv {
#if defined(DRV_TIMERFD)
    struct tw_timerfd d;
    int ep;
#elif defined(DRV_UV)
    uv_loop_t loop;
    struct tw_uv d;
#else
    struct ev_loop *loop;
    struct tw_ev d;
#endif
};

static int drv_open(struct drv *v, struct tw *tw, struct tw_clock *clk)
{
#if defined(DRV_TIMERFD)
    if (tw_timerfd_open(&v->d, tw, clk) != 0)
        return -1;
    v->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    return epoll_ctl(v->ep, EPOLL_CTL_ADD, tw_timerfd_fd(&v->d), &ev);
#elif defined(DRV_UV)
    if (uv_loop_init(&v->loop) != 0)
        return -1;
    return tw_uv_init(&v->d, &v->loop, tw, clk);
#else
    v->loop = ev_loop_new(EVFLAG_AUTO);
    return v->loop ? tw_ev_init(&v->d, v->loop, tw, clk) : -1;
#endif
}

static void drv_sync(struct drv *v)
{
#if defined(DRV_TIMERFD)
    CHECK(tw_timerfd_sync(&v->d) == 0);
#elif defined(DRV_UV)
    CHECK(tw_uv_sync(&v->d) == 0);
#else
    CHECK(tw_ev_sync(&v->d) == 0);
#endif
}

static uint64_t drv_arms(const struct drv *v)
{
#if defined(DRV_TIMERFD)
    return tw_timerfd_settimes(&v->d);
#else
    return v->d.starts;
#endif
}

/* Run the loop until the facility is empty (or 60 s pass: a hang). */
static uint64_t drv_run(struct drv *v, struct tw *tw)
{
    uint64_t wakeups = 0, until = real_ns() + 60000000000u;
    while (tw_count(tw) > 0 && real_ns() < until) {
#if defined(DRV_TIMERFD)
        struct epoll_event ev;
        if (epoll_wait(v->ep, &ev, 1, 1000) == 1) {
            wakeups++;
            CHECK(tw_timerfd_dispatch(&v->d) >= 0);
        }
#elif defined(DRV_UV)
        uv_run(&v->loop, UV_RUN_ONCE);
        wakeups = v->d.wakeups;
#else
        ev_run(v->loop, EVRUN_ONCE);
        wakeups = v->d.wakeups;
#endif
    }
    return wakeups;
}

static void drv_close(struct drv *v)
{
#if defined(DRV_TIMERFD)
    tw_timerfd_close(&v->d);
    close(v->ep);
#elif defined(DRV_UV)
    tw_uv_close(&v->d, NULL);
    uv_run(&v->loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&v->loop) == 0);
#else
    tw_ev_stop(&v->d);
    ev_loop_destroy(v->loop);
#endif
}

/* 4. A stop or close of the driver from a twheel callback. */
struct quit {
    struct tw_timer node;
    void *drv;   /* the driver */
    int fired;
    int free_it; /* libev, timerfd: the callback frees it */
};

static void on_quit(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct quit *q = tw_container_of(t, struct quit, node);
    q->fired++;
#if defined(DRV_TIMERFD)
    tw_timerfd_close(q->drv);
    tw_timerfd_close(q->drv); /* a second close does nothing */
    if (q->free_it)
        free(q->drv);
#elif defined(DRV_UV)
    tw_uv_close(q->drv, NULL);
    tw_uv_close(q->drv, NULL); /* a second close does nothing */
    CHECK(tw_uv_sync(q->drv) == TW_EINVAL);
#else
    tw_ev_stop(q->drv);
    if (q->free_it)
        free(q->drv);
#endif
}

static void on_never(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    (void)t;
    int left_pending_when_the_driver_stopped = 1;
    CHECK(!left_pending_when_the_driver_stopped); /* it fired: a failure */
}

static void stop_from_callback(struct tw *tw, struct tw_clock *clk, int free_it)
{
    struct quit q = {0};
    q.free_it = free_it;
    struct tw_timer later;
    tw_timer_init(&q.node, on_quit);
    tw_timer_init(&later, on_never);
    /* the facility (empty here) at the clock's time: the wheel's range
     * counts from it */
    CHECK(tw_advance(tw, tw_clock_update(clk)) == 0);
    CHECK(tw_clock_start(clk, tw, &q.node, TW_MSEC(1)) == 0);
    /* never reached while the loop runs (the wheel: as far as it goes) */
    uint64_t far = tw_max_interval(tw) > 3600000 ? TW_SEC(3600)
                                                 : (tw_max_interval(tw) - 1) * TW_MSEC(1);
    CHECK(tw_clock_start(clk, tw, &later, far) == 0);
#if defined(DRV_TIMERFD)
    struct tw_timerfd *d = malloc(sizeof *d);
    CHECK(d != NULL && tw_timerfd_open(d, tw, clk) == 0);
    if (d == NULL)
        return;
    q.drv = d;
    int fd = tw_timerfd_fd(d), ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    uint64_t until = real_ns() + 60000000000u;
    while (!q.fired && real_ns() < until)
        if (epoll_wait(ep, &ev, 1, 1000) == 1) {
            int64_t n = tw_timerfd_dispatch(d); /* not an error: it ran one */
            CHECK(n == 0 || n == 1);
        }
    close(ep);
    CHECK(fcntl(fd, F_GETFD) == -1); /* closed */
    if (!free_it)
        free(d);
#elif defined(DRV_UV)
    uv_loop_t loop;
    struct tw_uv d;
    CHECK(uv_loop_init(&loop) == 0);
    CHECK(tw_uv_init(&d, &loop, tw, clk) == 0);
    q.drv = &d;
    uv_run(&loop, UV_RUN_DEFAULT); /* returns: no active handle is left */
    CHECK(uv_loop_close(&loop) == 0);
#else
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    struct tw_ev *d = malloc(sizeof *d);
    CHECK(loop != NULL && d != NULL && tw_ev_init(d, loop, tw, clk) == 0);
    if (loop == NULL || d == NULL)
        return;
    q.drv = d;
    ev_run(loop, 0); /* returns: no active watcher is left */
    ev_loop_destroy(loop);
    if (!free_it)
        free(d);
#endif
    CHECK(q.fired == 1);
    CHECK(tw_timer_pending(&later));
    CHECK(tw_stop(tw, &later) == 1);
}

#if defined(DRV_TIMERFD)
/* 4b. A dispatch nested in a callback (it advances nothing: the facility
 * is in its advance), then a close and free of the driver by the second
 * of the two callbacks of that advance (their order is the scheme's):
 * neither dispatch touches the driver again. */
struct nest {
    struct tw_timer a, b;
    struct tw_timerfd *d;
    int ran, inner_rc_ok, closed;
};

static void nest_close_if_second(struct nest *x)
{
    if (++x->ran == 2) {
        tw_timerfd_close(x->d);
        free(x->d);
        x->closed = 1;
    }
}

static void on_nest_a(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct nest *x = tw_container_of(t, struct nest, a);
    int64_t rc = tw_timerfd_dispatch(x->d); /* nested: TW_EBUSY from the advance */
    x->inner_rc_ok = rc == TW_EBUSY || rc >= 0;
    nest_close_if_second(x);
}

static void on_nest_b(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    nest_close_if_second(tw_container_of(t, struct nest, b));
}

static void nested_dispatch(struct tw *tw, struct tw_clock *clk)
{
    struct nest x;
    memset(&x, 0, sizeof x);
    tw_timer_init(&x.a, on_nest_a);
    tw_timer_init(&x.b, on_nest_b);
    tw_clock_update(clk);
    tw_time_t at = tw_clock_after(clk, TW_MSEC(2));
    CHECK(tw_start_at(tw, &x.a, at) == 0);
    CHECK(tw_start_at(tw, &x.b, at) == 0); /* the same tick: one advance */
    x.d = malloc(sizeof *x.d);
    CHECK(x.d != NULL && tw_timerfd_open(x.d, tw, clk) == 0);
    if (x.d == NULL)
        return;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, tw_timerfd_fd(x.d), &ev) == 0);
    uint64_t until = real_ns() + 60000000000u;
    while (!x.closed && real_ns() < until)
        if (epoll_wait(ep, &ev, 1, 1000) == 1)
            CHECK(tw_timerfd_dispatch(x.d) >= 0); /* the outer one: 0, or 2 run */
    close(ep);
    CHECK(x.closed && x.inner_rc_ok);
}
#endif

#if !defined(DRV_TIMERFD)
/* 5. The wait armed after a stale reading: on a user clock, never run. */
static uint64_t fake_ns;

static uint64_t read_fake(void *ctx)
{
    (void)ctx;
    return fake_ns;
}

static void noop(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    (void)t;
}

static void stale_wait(const struct tw_config *cfg)
{
    struct tw_clock clk;
    struct tw *tw;
    fake_ns = UINT64_C(1000000000000);
    CHECK(tw_clock_init_user(&clk, read_fake, NULL, TW_MSEC(1)) == 0);
    CHECK(tw_clock_create(&tw, cfg, &clk) == 0);
    struct tw_timer a, b;
    tw_timer_init(&a, noop);
    tw_timer_init(&b, noop);
    CHECK(tw_clock_start(&clk, tw, &a, TW_MSEC(100)) == 0);
    CHECK(tw_clock_start(&clk, tw, &b, TW_MSEC(200)) == 0);
    struct drv v;
    CHECK(drv_open(&v, tw, &clk) == 0);
    fake_ns += TW_MSEC(90); /* the loop ran for 90 ms; nobody read the clock */
    CHECK(tw_stop(tw, &a) == 1);
    drv_sync(&v);
    tw_time_t w;
    CHECK(tw_next_wakeup(tw, &w) == 1);
    uint64_t want_ns = w * TW_MSEC(1) - fake_ns; /* from the clock's time now */
#if defined(DRV_UV)
    CHECK(uv_timer_get_due_in(&v.d.timer) == (want_ns + 999999) / 1000000);
#else
    double left = ev_timer_remaining(v.loop, &v.d.timer);
    CHECK(left > (double)want_ns * 1e-9 - 1e-6 && left < (double)want_ns * 1e-9 + 1e-6);
#endif
    CHECK(tw_stop(tw, &b) == 1);
    drv_close(&v);
    CHECK(tw_destroy(tw) == 0);
}

/* 6. A timer re-armed for "now" from its callback, 20 times. */
struct again {
    struct tw_timer node;
    const uint64_t *iter;
    struct drv *v;     /* synced from the callback every other time */
    uint64_t seen[21];
    int n;
};

static void on_again(struct tw *tw, struct tw_timer *t)
{
    struct again *g = tw_container_of(t, struct again, node);
    g->seen[g->n++] = *g->iter;
    if (g->n < 21) {
        CHECK(tw_start(tw, t, 0) == 0); /* due at once */
        if (g->n % 2)
            drv_sync(g->v); /* a sync of its own changes nothing */
    }
}

#if defined(DRV_UV)
static void count_iter(uv_prepare_t *p)
{
    (*(uint64_t *)p->data)++;
}
#else
static void count_iter(struct ev_loop *loop, ev_prepare *p, int revents)
{
    (void)loop;
    (void)revents;
    (*(uint64_t *)p->data)++;
}
#endif

static void due_again(struct tw *tw, struct tw_clock *clk)
{
    uint64_t iter = 0;
    struct again g;
    memset(&g, 0, sizeof g);
    g.iter = &iter;
    tw_timer_init(&g.node, on_again);
    tw_clock_update(clk);
    CHECK(tw_clock_start(clk, tw, &g.node, TW_MSEC(1)) == 0);
    struct drv v;
    CHECK(drv_open(&v, tw, clk) == 0);
    g.v = &v;
#if defined(DRV_UV)
    uv_prepare_t prep;
    uv_prepare_init(&v.loop, &prep);
    prep.data = &iter;
    uv_prepare_start(&prep, count_iter);
    uv_unref((uv_handle_t *)&prep);
    uv_run(&v.loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&prep, NULL);
#else
    ev_prepare prep;
    ev_prepare_init(&prep, count_iter);
    prep.data = &iter;
    ev_prepare_start(v.loop, &prep);
    ev_unref(v.loop);
    ev_run(v.loop, 0);
    ev_ref(v.loop);
    ev_prepare_stop(v.loop, &prep);
#endif
    CHECK(g.n == 21);
    for (int i = 1; i < g.n; i++)
        CHECK(g.seen[i] > g.seen[i - 1]); /* one run per loop iteration */
    drv_close(&v);
}
#endif

static void run_scheme(enum tw_scheme s)
{
    scheme_name = tw_scheme_name(s);
    struct tw_clock clk;
    struct tw *tw;
    struct tw_config cfg;
    tw_config_init(&cfg, s);
    CHECK(tw_clock_init(&clk, TW_CLOCK_MONOTONIC, TW_MSEC(1)) == 0);
    CHECK(tw_clock_create(&tw, &cfg, &clk) == 0);
    struct drv v;
    int opened = drv_open(&v, tw, &clk) == 0;
    CHECK(opened); /* the driver could be set up */
    if (!opened)
        return;
    static struct job j[N + 2];
    memset(j, 0, sizeof j);
    for (int i = 0; i < N + 2; i++) {
        j[i].clk = &clk;
        tw_timer_init(&j[i].node, on_job);
    }

    /* 1. re-armed only when the wake-up moves (tw_next_wakeup(): the
     * earliest deadline, or the tick a wheel's slot holding it comes up,
     * which depends on where the clock's time falls against the slots) */
    uint64_t arms0 = drv_arms(&v);
    tw_time_t w0 = 0, w1 = 0, w2 = 0;
    j[N].start_ns = tw_clock_now_ns(&clk);
    j[N].ns = TW_MSEC(40);
    CHECK(tw_clock_start(&clk, tw, &j[N].node, j[N].ns) == 0);
    drv_sync(&v);
    CHECK(drv_arms(&v) == arms0 + 1);
    CHECK(tw_next_wakeup(tw, &w0) == 1);
    for (int i = 0; i < 100; i++) { /* later than the first: no re-arm */
        j[i].start_ns = tw_clock_now_ns(&clk);
        j[i].ns = TW_MSEC(41) + (uint64_t)i * 1000;
        CHECK(tw_clock_start(&clk, tw, &j[i].node, j[i].ns) == 0);
        drv_sync(&v);
    }
    CHECK(drv_arms(&v) == arms0 + 1);
    j[N + 1].start_ns = tw_clock_now_ns(&clk);
    j[N + 1].ns = TW_MSEC(2);
    CHECK(tw_clock_start(&clk, tw, &j[N + 1].node, j[N + 1].ns) == 0); /* earlier */
    drv_sync(&v);
    CHECK(tw_next_wakeup(tw, &w1) == 1);
    uint64_t arms = arms0 + 1 + (w1 != w0);
    CHECK(drv_arms(&v) == arms);
    j[N + 1].stopped = 1;
    CHECK(tw_stop(tw, &j[N + 1].node) == 1); /* the earliest leaves */
    drv_sync(&v);
    CHECK(tw_next_wakeup(tw, &w2) == 1);
    CHECK(drv_arms(&v) == arms + (w2 != w1));

    /* 2. the real loop: the rest of the 200, some stopped, some restarted */
    struct rng r = {0x64726976ull + (uint64_t)s};
    for (int i = 100; i < N; i++) {
        j[i].start_ns = tw_clock_now_ns(&clk);
        j[i].ns = TW_MSEC(1) + rng_below(&r, TW_MSEC(39));
        j[i].restart = rng_below(&r, 10) == 0;
        CHECK(tw_clock_start(&clk, tw, &j[i].node, j[i].ns) == 0);
    }
    for (int i = 0; i < N; i += 5) {
        j[i].stopped = 1;
        CHECK(tw_stop(tw, &j[i].node) == 1);
    }
    drv_sync(&v);
    uint64_t arms1 = drv_arms(&v);
    uint64_t wakeups = drv_run(&v, tw);
    CHECK(tw_count(tw) == 0);
    for (int i = 0; i <= N; i++)
        CHECK(j[i].fired == (j[i].stopped ? 0 : 1));
    /* 3. at most one re-arm per wake-up (and the last one disarms) */
    CHECK(drv_arms(&v) - arms1 <= wakeups + 1);
    CHECK(drv_arms(&v) < N);
    drv_close(&v);
    /* 4, 5 and 6 */
    stop_from_callback(tw, &clk, 0);
    stop_from_callback(tw, &clk, 1);
#if defined(DRV_TIMERFD)
    nested_dispatch(tw, &clk);
#else
    stale_wait(&cfg);
    due_again(tw, &clk);
#endif
    CHECK(tw_count(tw) == 0);
    CHECK(tw_destroy(tw) == 0);
}

#if defined(DRV_TIMERFD)
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}
#endif

/* A clock never initialised is refused (TW_EINVAL) before the driver
 * makes anything: no descriptor left open, no handle left on the loop. */
static void bad_clock(void)
{
    scheme_name = "bad input";
    struct tw *tw;
    CHECK(tw_create(&tw, NULL) == 0);
    struct tw_clock never;
    memset(&never, 0, sizeof never);
#if defined(DRV_TIMERFD)
    struct tw_timerfd d;
    int before = open_fds();
    CHECK(tw_timerfd_open(&d, tw, &never) == TW_EINVAL);
    CHECK(open_fds() == before);
#elif defined(DRV_UV)
    uv_loop_t loop;
    struct tw_uv d;
    CHECK(uv_loop_init(&loop) == 0);
    CHECK(tw_uv_init(&d, &loop, tw, &never) == TW_EINVAL);
    CHECK(uv_loop_close(&loop) == 0); /* UV_EBUSY if a handle were left */
#else
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    struct tw_ev d;
    CHECK(loop != NULL);
    if (loop) {
        CHECK(tw_ev_init(&d, loop, tw, &never) == TW_EINVAL);
        ev_loop_destroy(loop);
    }
#endif
    CHECK(tw_destroy(tw) == 0);
}

int main(int argc, char **argv)
{
    bad_clock();
    int ran = 0;
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if (!tw_scheme_available((enum tw_scheme)s))
            continue;
        if (argc > 1 && strcmp(argv[1], tw_scheme_name((enum tw_scheme)s)) != 0)
            continue;
        run_scheme((enum tw_scheme)s);
        ran++;
    }
    if (ran == 0)
        return 77;
    if (failures == 0)
        printf("test_%s: %d scheme(s): every timer fired once, none early; re-armed only when "
               "the wake-up moved\n",
               DRV_NAME, ran);
    return failures ? 1 : 0;
}
