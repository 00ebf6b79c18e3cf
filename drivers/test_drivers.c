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
 *      per wake-up and per sync that moved it, far fewer than timers.
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
