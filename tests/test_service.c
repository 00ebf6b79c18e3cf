/*
 * test_service.c -- the timer service (tw_service_*) under many threads,
 * on one scheme (the first argument), every case checked against a
 * per-timer model kept by the test under its own locks:
 *
 *   - every timer started and not stopped fires exactly once, never before
 *     its delay has passed on CLOCK_MONOTONIC (no other timing assertion:
 *     a loaded machine only makes things later);
 *   - stop returns 1 exactly when it prevented the callback;
 *   - stop_sync returns only when the timer's callback is not running, and
 *     refuses (TW_EDEADLK) from that callback;
 *   - a stale generation stops nothing;
 *   - shutdown runs no callback after it returns, cancels or drains;
 *   - bad input gets its error code and changes nothing;
 *   - a start at a time on the clock (tw_service_start_at) keeps every
 *     rule of a start after an interval (half of the model's starts use
 *     it);
 *   - tw_service_timer_state() says idle, pending (with its deadline) and
 *     running as they are.
 *
 * The stress case runs threads (more than the cores) for a bounded time
 * with random interleavings: `twheel_service SCHEME [SECONDS]`.  It
 * prints "ok" and exits 0, or prints every failure and exits 1.
 */
#define _POSIX_C_SOURCE 200809L

#include "twheel.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_ulong failures;
static const char *scheme_name = "?";

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed\n", __FILE__, __LINE__, \
                    scheme_name, #c);                                             \
            atomic_fetch_add(&failures, 1);                                       \
        }                                                                         \
    } while (0)

#define CHECK_EQ(a, b)                                                                    \
    do {                                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);                               \
        if (a_ != b_) {                                                                   \
            fprintf(stderr, "%s:%d: [%s] %s == %lld, expected %s == %lld\n", __FILE__,    \
                    __LINE__, scheme_name, #a, a_, #b, b_);                               \
            atomic_fetch_add(&failures, 1);                                               \
        }                                                                                 \
    } while (0)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A small PRNG per thread (xorshift64*). */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static enum tw_scheme the_scheme;
static enum tw_placement the_placement;
/* "An hour out", or as far as the scheme reaches (wheel: MaxInterval
 * ticks of 1 ms). */
static uint64_t far_ns;

/* A service on the scheme under test, 1 ms ticks (100 us for the fast
 * cases), `shards` workers. */
static struct tw_service *make(unsigned shards, uint64_t tick_ns)
{
    struct tw_service_config cfg;
    CHECK_EQ(tw_service_config_init(&cfg), 0);
    CHECK_EQ(tw_config_init(&cfg.facility, the_scheme), 0);
    /* wheel reaches MaxInterval (4096) ticks: 1 ms ticks keep far_ns in it */
    cfg.tick_ns = the_scheme == TW_WHEEL && tick_ns < TW_MSEC(1) ? TW_MSEC(1) : tick_ns;
    cfg.shards = shards;
    cfg.placement = the_placement;
    struct tw_service *svc = NULL;
    int rc = tw_service_create(&svc, &cfg);
    CHECK_EQ(rc, 0);
    return rc == 0 ? svc : NULL;
}

/* ------------------------------------------------------------ the model */

/* A timer with the test's record of it, under `m` (taken by the test's
 * threads around each call and by the callback). */
struct ttimer {
    struct tw_stimer st;
    pthread_mutex_t m;
    int armed;               /* started, neither stopped nor fired */
    uint64_t due_ns;         /* the earliest time it may fire */
    uint64_t gen;            /* the generation of the arming */
    unsigned long starts, stops, fires;
    atomic_int in_callback;  /* 1 while its callback runs */
    atomic_int gate;         /* 1: the callback waits until it is 0 */
    uint64_t hold_ns;        /* the callback sleeps this long */
    int restart_left;        /* the callback restarts it this many times */
    uint64_t restart_ns;
};

static void on_fire(struct tw_service *svc, struct tw_stimer *st)
{
    struct ttimer *t = tw_container_of(st, struct ttimer, st);
    atomic_store(&t->in_callback, 1);
    uint64_t now = now_ns();
    pthread_mutex_lock(&t->m);
    CHECK(t->armed);                /* fired only when armed */
    CHECK(now >= t->due_ns);        /* never early */
    t->armed = 0;
    t->fires++;
    if (t->restart_left > 0) {
        t->restart_left--;
        t->due_ns = now_ns() + t->restart_ns;
        CHECK_EQ(tw_service_start(svc, st, t->restart_ns, &t->gen), 0);
        t->armed = 1;
        t->starts++;
    }
    uint64_t hold = t->hold_ns;
    pthread_mutex_unlock(&t->m);
    if (hold)
        sleep_ns(hold);
    while (atomic_load(&t->gate))
        sleep_ns(100000);
    atomic_store(&t->in_callback, 0);
}

static void ttimer_init(struct ttimer *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->m, NULL);
    tw_stimer_init(&t->st, on_fire);
}

/* The model's record of a start that returned rc, due at `due` (under
 * t->m). */
static void model_start(struct ttimer *t, int rc, uint64_t due)
{
    if (rc == 0) {
        CHECK(!t->armed); /* the model's rule: a start of an idle timer */
        t->armed = 1;
        t->due_ns = due;
        t->starts++;
        CHECK(t->gen != 0);
    }
}

/* Start t, idle in the model, to fire after ns (under its lock); with
 * `if_idle`, a timer the model has armed is left alone (1).  Every other
 * start is made with tw_service_start_at() and the same due time. */
static atomic_uint start_turn;
static int tstart_x(struct tw_service *svc, struct ttimer *t, uint64_t ns, int if_idle)
{
    pthread_mutex_lock(&t->m);
    if (if_idle && t->armed) {
        pthread_mutex_unlock(&t->m);
        return 1;
    }
    uint64_t due = now_ns() + ns;
    int rc = atomic_fetch_add(&start_turn, 1) % 2
                 ? tw_service_start_at(svc, &t->st, due, &t->gen)
                 : tw_service_start(svc, &t->st, ns, &t->gen);
    model_start(t, rc, due);
    pthread_mutex_unlock(&t->m);
    return rc;
}

static int tstart(struct tw_service *svc, struct ttimer *t, uint64_t ns)
{
    return tstart_x(svc, t, ns, 0);
}

/* Start t, idle in the model, after ns (at 0) or at `ns` on the clock
 * (at 1), with that call and no other (under its lock). */
static int tstart_how(struct tw_service *svc, struct ttimer *t, uint64_t ns, int at)
{
    pthread_mutex_lock(&t->m);
    uint64_t due = at ? ns : now_ns() + ns;
    int rc = at ? tw_service_start_at(svc, &t->st, ns, &t->gen)
                : tw_service_start(svc, &t->st, ns, &t->gen);
    model_start(t, rc, due);
    pthread_mutex_unlock(&t->m);
    return rc;
}

/* Stop t (under its lock): the return must match the model. */
static int tstop(struct tw_service *svc, struct ttimer *t, int sync)
{
    pthread_mutex_lock(&t->m);
    int r = sync ? tw_service_stop_sync(svc, &t->st, 0) : tw_service_stop(svc, &t->st, 0);
    if (r == 1) {
        CHECK(t->armed);
        t->armed = 0;
        t->stops++;
    }
    pthread_mutex_unlock(&t->m);
    return r;
}

/* stop_sync t, not under t->m (a running callback takes it: stop_sync
 * would wait for a callback waiting for the test), for a timer that only
 * this thread starts: the return must match the model. */
static int tstop_sync_unlocked(struct tw_service *svc, struct ttimer *t)
{
    int r = tw_service_stop_sync(svc, &t->st, 0);
    CHECK(r == 0 || r == 1);
    if (r == 1) {
        pthread_mutex_lock(&t->m);
        CHECK(t->armed);
        t->armed = 0;
        t->stops++;
        pthread_mutex_unlock(&t->m);
    }
    return r;
}

/* Wait (bounded) until every timer of a set is disarmed. */
static int wait_disarmed(struct ttimer *ts, size_t n, uint64_t limit_ns)
{
    uint64_t end = now_ns() + limit_ns;
    for (;;) {
        size_t armed = 0;
        for (size_t i = 0; i < n; i++) {
            pthread_mutex_lock(&ts[i].m);
            armed += ts[i].armed != 0;
            pthread_mutex_unlock(&ts[i].m);
        }
        if (armed == 0)
            return 1;
        if (now_ns() > end)
            return 0;
        sleep_ns(1000000);
    }
}

/* ------------------------------------------------------------ the cases */

/* Timers fire once each, not early, on every shard. */
static void case_fire(void)
{
    struct tw_service *svc = make(3, TW_USEC(100));
    if (!svc)
        return;
    enum { N = 300 };
    static struct ttimer ts[N];
    uint64_t seed = 1;
    for (size_t i = 0; i < N; i++) {
        ttimer_init(&ts[i]);
        CHECK_EQ(tstart(svc, &ts[i], TW_USEC(rnd(&seed) % 20000)), 0);
    }
    CHECK(wait_disarmed(ts, N, TW_SEC(60)));
    for (size_t i = 0; i < N; i++)
        CHECK_EQ(ts[i].fires, 1);
    CHECK_EQ(tw_service_count(svc), 0);
    struct tw_service_stats st;
    CHECK_EQ(tw_service_stats(svc, &st), 0);
    CHECK_EQ(st.fired, N);
    CHECK_EQ(tw_service_destroy(svc), 0);
    for (size_t i = 0; i < N; i++)
        pthread_mutex_destroy(&ts[i].m);
}

/* A start earlier than the time the worker sleeps until wakes it: with a
 * timer far out, the worker sleeps towards it; one started 1 ms out must
 * fire long before (30 s is 30,000 times its delay: a bound on a hang,
 * not on how soon).  Run first: every later case relies on it, and would
 * hang, not fail, without it. */
static int case_earlier_start_wakes(void)
{
    /* far out of reach for the case: an hour, or on the wheel (4,096
     * ticks) 300 s at 100 ms ticks */
    int wheel = the_scheme == TW_WHEEL;
    struct tw_service *svc = make(1, wheel ? TW_MSEC(100) : TW_MSEC(1));
    if (!svc)
        return 1; /* make() said why */
    struct ttimer far, soon;
    ttimer_init(&far);
    ttimer_init(&soon);
    CHECK_EQ(tstart(svc, &far, wheel ? TW_SEC(300) : far_ns), 0);
    sleep_ns(TW_MSEC(5)); /* the worker is asleep towards `far` by now, or soon */
    CHECK_EQ(tstart(svc, &soon, TW_MSEC(1)), 0);
    int woke = wait_disarmed(&soon, 1, TW_SEC(30));
    CHECK(woke);
    CHECK_EQ(soon.fires, 1);
    CHECK_EQ(far.fires, 0);
    CHECK_EQ(tstop(svc, &far, 0), 1);
    CHECK_EQ(tw_service_destroy(svc), 0);
    pthread_mutex_destroy(&far.m);
    pthread_mutex_destroy(&soon.m);
    return woke;
}

/* stop prevents; a second stop finds it idle; a stale generation stops
 * nothing; a restart gives a new generation. */
static void case_stop_and_generations(void)
{
    struct tw_service *svc = make(1, TW_MSEC(1));
    if (!svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    CHECK_EQ(tw_service_stop(svc, &t.st, 0), 0); /* idle */
    uint64_t g1 = 0, g2 = 0;
    CHECK_EQ(tw_service_start(svc, &t.st, far_ns, &g1), 0);
    CHECK_EQ(tw_service_start(svc, &t.st, far_ns, &g2), 0); /* restart */
    CHECK(g1 != 0 && g2 != 0 && g1 != g2);
    CHECK_EQ(tw_service_count(svc), 1);
    CHECK_EQ(tw_service_stop(svc, &t.st, g1), 0);      /* stale: nothing */
    CHECK_EQ(tw_service_stop_sync(svc, &t.st, g1), 0); /* stale: nothing */
    CHECK_EQ(tw_service_count(svc), 1);
    CHECK_EQ(tw_service_stop(svc, &t.st, g2), 1);
    CHECK_EQ(tw_service_stop(svc, &t.st, g2), 0);
    CHECK_EQ(tw_service_stop_sync(svc, &t.st, 0), 0);
    CHECK_EQ(tw_service_count(svc), 0);
    CHECK_EQ(t.fires, 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
    CHECK_EQ(t.fires, 0);
}

/* stop_sync racing a running callback returns after it; from the callback
 * itself it is TW_EDEADLK and a plain stop is 0. */
static atomic_int own_rc_sync = 99, own_rc_stop = 99;
static void on_fire_self_stop(struct tw_service *svc, struct tw_stimer *st)
{
    atomic_store(&own_rc_sync, tw_service_stop_sync(svc, st, 0));
    atomic_store(&own_rc_stop, tw_service_stop(svc, st, 0));
}

static void case_stop_sync(void)
{
    struct tw_service *svc = make(2, TW_USEC(100));
    if (!svc)
        return;
    /* A callback that holds 30 ms: stop_sync from here waits it out. */
    struct ttimer t;
    ttimer_init(&t);
    t.hold_ns = TW_MSEC(30);
    CHECK_EQ(tstart(svc, &t, TW_MSEC(1)), 0);
    uint64_t end = now_ns() + TW_SEC(30);
    while (!atomic_load(&t.in_callback) && now_ns() < end)
        sleep_ns(100000);
    CHECK(atomic_load(&t.in_callback));
    CHECK_EQ(tw_service_stop_sync(svc, &t.st, 0), 0); /* it fired: not prevented */
    CHECK(!atomic_load(&t.in_callback));               /* ... and it has returned */
    CHECK_EQ(t.fires, 1);

    /* From its own callback. */
    atomic_store(&own_rc_sync, 99);
    atomic_store(&own_rc_stop, 99);
    struct tw_stimer self;
    tw_stimer_init(&self, on_fire_self_stop);
    CHECK_EQ(tw_service_start(svc, &self, TW_MSEC(1), NULL), 0);
    end = now_ns() + TW_SEC(30);
    while (atomic_load(&own_rc_stop) == 99 && now_ns() < end)
        sleep_ns(100000);
    CHECK_EQ(atomic_load(&own_rc_sync), TW_EDEADLK);
    CHECK_EQ(atomic_load(&own_rc_stop), 0);
    CHECK_EQ(tw_service_stop_sync(svc, &self, 0), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* Another thread restarts a timer while its callback runs: the timer is
 * pending again at once, and fires again after the callback has
 * returned; stop_sync then finds it idle. */
static void case_restart_while_running(void)
{
    struct tw_service *svc = make(2, TW_USEC(100));
    if (!svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    atomic_store(&t.gate, 1); /* the callback waits for the test */
    CHECK_EQ(tstart(svc, &t, TW_MSEC(1)), 0);
    CHECK(wait_disarmed(&t, 1, TW_SEC(30))); /* its callback has begun */
    CHECK(atomic_load(&t.in_callback));
    CHECK_EQ(tstart(svc, &t, TW_MSEC(1)), 0); /* restarted while it runs */
    CHECK_EQ(tw_service_count(svc), 1);       /* pending at once */
    sleep_ns(TW_MSEC(5));
    CHECK_EQ(t.fires, 1); /* its shard runs one callback at a time */
    atomic_store(&t.gate, 0);
    CHECK(wait_disarmed(&t, 1, TW_SEC(30))); /* fires again */
    uint64_t end = now_ns() + TW_SEC(30);
    while (atomic_load(&t.in_callback) && now_ns() < end)
        sleep_ns(100000);
    CHECK_EQ(t.fires, 2);
    CHECK_EQ(tw_service_stop_sync(svc, &t.st, 0), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
    pthread_mutex_destroy(&t.m);
}

/* A callback restarts its own timer; stop_sync from another thread ends
 * it: after stop_sync no callback runs and the timer stays idle. */
static void case_restart_from_callback(void)
{
    struct tw_service *svc = make(1, TW_USEC(100));
    if (!svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    t.restart_left = 1000000;
    t.restart_ns = TW_USEC(200);
    CHECK_EQ(tstart(svc, &t, TW_USEC(200)), 0);
    uint64_t end = now_ns() + TW_SEC(30);
    for (;;) {
        pthread_mutex_lock(&t.m);
        unsigned long f = t.fires;
        pthread_mutex_unlock(&t.m);
        if (f >= 20 || now_ns() > end)
            break;
        sleep_ns(TW_MSEC(1));
    }
    /* Not under t.m: the callback takes it. */
    int r = tw_service_stop_sync(svc, &t.st, 0);
    CHECK(r == 0 || r == 1);
    CHECK(!atomic_load(&t.in_callback));
    pthread_mutex_lock(&t.m);
    unsigned long fires = t.fires;
    if (r == 1)
        t.armed = 0, t.stops++;
    CHECK(!t.armed);
    pthread_mutex_unlock(&t.m);
    CHECK(fires >= 20);
    sleep_ns(TW_MSEC(20));
    CHECK_EQ(t.fires, fires); /* nothing after stop_sync */
    CHECK_EQ(tw_service_count(svc), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* Shutdown: CANCEL runs nothing pending; DRAIN runs everything pending at
 * its deadline and refuses new starts; nothing runs after it returns. */
static void case_shutdown(void)
{
    for (int how = 0; how < 2; how++) {
        struct tw_service *svc = make(2, TW_USEC(100));
        if (!svc)
            return;
        enum { N = 64 };
        static struct ttimer ts[N];
        for (size_t i = 0; i < N; i++) {
            ttimer_init(&ts[i]);
            CHECK_EQ(tstart(svc, &ts[i], how ? TW_MSEC(5 + i % 10) : far_ns), 0);
        }
        CHECK_EQ(tw_service_shutdown(svc, how ? TW_SHUTDOWN_DRAIN : TW_SHUTDOWN_CANCEL), 0);
        unsigned long fired = 0;
        for (size_t i = 0; i < N; i++)
            fired += ts[i].fires;
        CHECK_EQ(fired, how ? N : 0);
        CHECK_EQ(tw_service_count(svc), 0);
        CHECK_EQ(tw_service_start(svc, &ts[0].st, 1, NULL), TW_ESHUTDOWN);
        CHECK_EQ(tw_service_start_at(svc, &ts[0].st, 1, NULL), TW_ESHUTDOWN);
        CHECK_EQ(tw_service_stop(svc, &ts[0].st, 0), 0);
        CHECK_EQ(tw_service_stop_sync(svc, &ts[0].st, 0), 0);
        struct tw_service_stats st;
        CHECK_EQ(tw_service_stats(svc, &st), 0);
        CHECK_EQ(st.fired, how ? N : 0);
        CHECK_EQ(tw_service_shutdown(svc, TW_SHUTDOWN_CANCEL), TW_ESHUTDOWN);
        sleep_ns(TW_MSEC(5));
        unsigned long later = 0;
        for (size_t i = 0; i < N; i++)
            later += ts[i].fires;
        CHECK_EQ(later, fired);
        /* Every timer is idle: it may start on another service. */
        struct tw_service *other = make(1, TW_MSEC(1));
        if (other) {
            CHECK_EQ(tw_service_start(other, &ts[1].st, far_ns, NULL), 0);
            CHECK_EQ(tw_service_destroy(other), 0);
        }
        CHECK_EQ(tw_service_destroy(svc), 0);
        for (size_t i = 0; i < N; i++)
            pthread_mutex_destroy(&ts[i].m);
    }
}

/* A drain waits for the pending timers; a stop of the last one ends it
 * then and there, not at the stopped timer's deadline. */
struct drain_arg {
    struct tw_service *svc;
    atomic_int done;
};
static void *drain_thread(void *p)
{
    struct drain_arg *a = p;
    CHECK_EQ(tw_service_shutdown(a->svc, TW_SHUTDOWN_DRAIN), 0);
    atomic_store(&a->done, 1);
    return NULL;
}

static void case_drain_stop(void)
{
    if (far_ns < TW_SEC(600))
        return; /* (wheel: its range is too short to tell) */
    struct drain_arg a = {make(2, TW_MSEC(1)), 0};
    if (!a.svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    CHECK_EQ(tstart(a.svc, &t, far_ns), 0);
    pthread_t th;
    pthread_create(&th, NULL, drain_thread, &a);
    sleep_ns(TW_MSEC(20));
    CHECK(!atomic_load(&a.done)); /* it waits for the timer an hour out */
    CHECK_EQ(tstop(a.svc, &t, 0), 1);
    uint64_t end = now_ns() + TW_SEC(600); /* not an hour */
    while (!atomic_load(&a.done) && now_ns() < end)
        sleep_ns(TW_MSEC(1));
    CHECK(atomic_load(&a.done));
    pthread_join(th, NULL);
    CHECK_EQ(t.fires, 0);
    CHECK_EQ(tw_service_destroy(a.svc), 0);
    pthread_mutex_destroy(&t.m);
}

/* A service idle for longer than its scheme's range (the wheel: 256
 * slots of 100 us here) still accepts a start within that range from
 * now: the facility's time is brought to the clock's first. */
static void case_idle_then_range(void)
{
    struct tw_service_config cfg;
    CHECK_EQ(tw_service_config_init(&cfg), 0);
    CHECK_EQ(tw_config_init(&cfg.facility, the_scheme), 0);
    if (the_scheme == TW_WHEEL)
        cfg.facility.slots = 256;
    cfg.tick_ns = TW_USEC(100);
    cfg.placement = the_placement;
    struct tw_service *svc = NULL;
    CHECK_EQ(tw_service_create(&svc, &cfg), 0);
    if (!svc)
        return;
    struct ttimer t[2];
    for (int at = 0; at < 2; at++) {
        sleep_ns(TW_MSEC(60)); /* 600 ticks, beyond 256 */
        ttimer_init(&t[at]);
        CHECK_EQ(tstart_how(svc, &t[at], at ? now_ns() + TW_MSEC(1) : TW_MSEC(1), at), 0);
        CHECK(wait_disarmed(&t[at], 1, TW_SEC(30)));
        CHECK_EQ(t[at].fires, 1);
    }
    CHECK_EQ(tw_service_destroy(svc), 0);
    pthread_mutex_destroy(&t[0].m);
    pthread_mutex_destroy(&t[1].m);
}

/* A time on the clock: one already past fires at once (0, a second ago,
 * now), never before it; one beyond a scheme's range is TW_ERANGE and
 * leaves the timer as it was; the end of time is pending until stopped
 * on a scheme that reaches it. */
static void case_start_at(void)
{
    struct tw_service *svc = make(2, TW_USEC(100));
    if (!svc)
        return;
    enum { N = 4 };
    static struct ttimer ts[N];
    uint64_t now = now_ns();
    const uint64_t at[N] = {0, now > TW_SEC(1) ? now - TW_SEC(1) : 0, now, now + TW_MSEC(2)};
    for (size_t i = 0; i < N; i++) {
        ttimer_init(&ts[i]);
        CHECK_EQ(tstart_how(svc, &ts[i], at[i], 1), 0);
    }
    CHECK(wait_disarmed(ts, N, TW_SEC(30)));
    for (size_t i = 0; i < N; i++)
        CHECK_EQ(ts[i].fires, 1);

    struct ttimer far;
    ttimer_init(&far);
    int rc = tw_service_start_at(svc, &far.st, UINT64_MAX, NULL);
    if (the_scheme == TW_WHEEL) {
        CHECK_EQ(rc, TW_ERANGE);
        CHECK_EQ(tw_service_stop(svc, &far.st, 0), 0);
    } else {
        CHECK_EQ(rc, 0);
        CHECK_EQ(tw_service_count(svc), 1);
        CHECK_EQ(tw_service_stop(svc, &far.st, 0), 1);
    }
    CHECK_EQ(tw_service_count(svc), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
    for (size_t i = 0; i < N; i++)
        pthread_mutex_destroy(&ts[i].m);
    pthread_mutex_destroy(&far.m);
}

/* Bad input: a clear code, nothing changed. */
static void case_bad_input(void)
{
    struct tw_service *svc = make(1, TW_MSEC(1));
    if (!svc)
        return;
    struct tw_service_config cfg;
    CHECK_EQ(tw_service_config_init(NULL), TW_EINVAL);
    CHECK_EQ(tw_service_config_init(&cfg), 0);
    struct tw_service *bad = NULL;
    CHECK_EQ(tw_service_create(NULL, &cfg), TW_EINVAL);
    cfg.shards = 0;
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    cfg.shards = TW_SERVICE_MAX_SHARDS + 1;
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    cfg.shards = 1;
    cfg.tick_ns = 1;
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    cfg.tick_ns = TW_SEC(3600);
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    cfg.tick_ns = TW_MSEC(1);
    cfg.placement = 3;
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    cfg.placement = TW_PLACE_TIMER;
    cfg.facility.scheme = (enum tw_scheme)999;
    CHECK_EQ(tw_service_create(&bad, &cfg), TW_ECONFIG);
    CHECK(bad == NULL);

    struct tw_stimer never; /* never initialised */
    memset(&never, 0xa5, sizeof never);
    CHECK_EQ(tw_service_start(svc, &never, 1, NULL), TW_ENOTINIT);
    CHECK_EQ(tw_service_start_at(svc, &never, 1, NULL), TW_ENOTINIT);
    CHECK_EQ(tw_service_stop(svc, &never, 0), TW_ENOTINIT);
    CHECK_EQ(tw_service_stop_sync(svc, &never, 0), TW_ENOTINIT);
    struct tw_stimer t;
    tw_stimer_init(&t, NULL);
    CHECK_EQ(tw_service_start(svc, &t, 1, NULL), TW_EINVAL); /* no callback */
    CHECK_EQ(tw_service_start_at(svc, &t, 1, NULL), TW_EINVAL);
    tw_stimer_init(&t, on_fire_self_stop);
    CHECK_EQ(tw_service_start(NULL, &t, 1, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_start(svc, NULL, 1, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_start_at(NULL, &t, 1, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_start_at(svc, NULL, 1, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_stop(NULL, &t, 0), TW_EINVAL);
    CHECK_EQ(tw_service_stop_sync(svc, NULL, 0), TW_EINVAL);
    CHECK_EQ(tw_service_shutdown(NULL, TW_SHUTDOWN_CANCEL), TW_EINVAL);
    CHECK_EQ(tw_service_shutdown(svc, (enum tw_shutdown)7), TW_EINVAL);
    CHECK_EQ(tw_service_destroy(NULL), TW_EINVAL);
    CHECK_EQ(tw_service_stats(svc, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_count(NULL), 0);

    /* Pending on one service: another refuses it, and it stays pending. */
    struct tw_service *other = make(1, TW_MSEC(1));
    if (other) {
        CHECK_EQ(tw_service_start(svc, &t, far_ns, NULL), 0);
        CHECK_EQ(tw_service_start(other, &t, 1, NULL), TW_EOWNER);
        CHECK_EQ(tw_service_start_at(other, &t, 1, NULL), TW_EOWNER);
        CHECK_EQ(tw_service_stop(other, &t, 0), TW_EOWNER);
        CHECK_EQ(tw_service_stop_sync(other, &t, 0), TW_EOWNER);
        CHECK_EQ(tw_service_count(svc), 1);
        CHECK_EQ(tw_service_count(other), 0);
        CHECK_EQ(tw_service_stop(svc, &t, 0), 1);
        CHECK_EQ(tw_service_destroy(other), 0);
    }
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* An idle service sleeps: with nothing pending, and with timers an hour
 * out, its workers wake up a bounded number of times, not per tick. */
static void case_idle(void)
{
    struct tw_service *svc = make(2, TW_MSEC(1));
    if (!svc)
        return;
    sleep_ns(TW_MSEC(50));
    struct tw_service_stats a, b;
    CHECK_EQ(tw_service_stats(svc, &a), 0);
    enum { N = 1000 };
    static struct tw_stimer ts[N];
    for (size_t i = 0; i < N; i++) {
        tw_stimer_init(&ts[i], on_fire_self_stop);
        CHECK_EQ(tw_service_start(svc, &ts[i], far_ns + TW_MSEC(i), NULL), 0);
    }
    sleep_ns(TW_MSEC(100));
    CHECK_EQ(tw_service_stats(svc, &b), 0);
    /* 100 ticks passed: a periodic worker would have woken ~100 times per
     * shard.  The first start may wake each shard once. */
    CHECK(b.wakeups - a.wakeups <= 2 * 2 + 4); /* + a few spurious ones */
    CHECK_EQ(b.fired, 0);
    CHECK_EQ(tw_service_count(svc), N);
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* ------------------------------------------------------------ stress */

struct stress {
    struct tw_service *svc;
    struct ttimer *ts;
    size_t n;
    uint64_t end_ns;
    uint64_t seed;
};

/* Random starts, stops, stop_syncs and restarts of random timers until the end:
 * the model's rule (start an idle timer, stop an armed one) under each
 * timer's lock, so that the counts must balance at the end. */
static void *stress_thread(void *arg)
{
    struct stress *s = arg;
    uint64_t seed = s->seed;
    while (now_ns() < s->end_ns) {
        struct ttimer *t = &s->ts[rnd(&seed) % s->n];
        unsigned op = (unsigned)(rnd(&seed) % 8);
        pthread_mutex_lock(&t->m);
        int armed = t->armed;
        pthread_mutex_unlock(&t->m);
        if (!armed) {
            int rc = tstart_x(s->svc, t, TW_USEC(rnd(&seed) % 3000), 1);
            CHECK(rc == 0 || rc == 1);
        } else if (op == 0) {
            (void)tstop_sync_unlocked(s->svc, t);
        } else if (op < 4) {
            (void)tstop(s->svc, t, 0);
        } else if (op < 6) {
            /* a restart of a timer the model has armed: 1 if it was still
             * pending (a new deadline), 0 if it fired meanwhile (its
             * callback waits for t->m) */
            pthread_mutex_lock(&t->m);
            if (t->armed) {
                uint64_t ns = TW_USEC(rnd(&seed) % 3000), due = now_ns() + ns;
                int rc = op == 4 ? tw_service_restart(s->svc, &t->st, ns, 0, &t->gen)
                                 : tw_service_restart_at(s->svc, &t->st, due, 0, &t->gen);
                CHECK(rc == 0 || rc == 1);
                if (rc == 1)
                    t->due_ns = due;
            }
            pthread_mutex_unlock(&t->m);
        }
    }
    return NULL;
}

static void case_stress(double seconds)
{
    static const unsigned threads[] = {1, 3, 8};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        struct tw_service *svc = make(k == 0 ? 1 : 2, TW_USEC(100));
        if (!svc)
            return;
        enum { N = 256 };
        static struct ttimer ts[N];
        for (size_t i = 0; i < N; i++)
            ttimer_init(&ts[i]);
        pthread_t th[8];
        struct stress s[8];
        uint64_t end = now_ns() + (uint64_t)(seconds * 1e9 / 3);
        for (unsigned i = 0; i < threads[k]; i++) {
            s[i] = (struct stress){svc, ts, N, end, 0x9e3779b97f4a7c15u * (i + 1) + k};
            pthread_create(&th[i], NULL, stress_thread, &s[i]);
        }
        for (unsigned i = 0; i < threads[k]; i++)
            pthread_join(th[i], NULL);
        /* Every timer still armed fires (exactly once) at its deadline. */
        CHECK_EQ(tw_service_shutdown(svc, TW_SHUTDOWN_DRAIN), 0);
        unsigned long starts = 0, ends = 0;
        for (size_t i = 0; i < N; i++) {
            CHECK(!ts[i].armed);
            CHECK_EQ(ts[i].starts, ts[i].stops + ts[i].fires);
            starts += ts[i].starts;
            ends += ts[i].stops + ts[i].fires;
        }
        CHECK_EQ(starts, ends);
        CHECK(starts > 0);
        CHECK_EQ(tw_service_count(svc), 0);
        CHECK_EQ(tw_service_destroy(svc), 0);
        for (size_t i = 0; i < N; i++)
            pthread_mutex_destroy(&ts[i].m);
    }
}

/* Free after stop_sync: timers on the heap, stopped and freed by one
 * thread while their callbacks run in the workers (ASan and TSan see any
 * use after free). */
struct heap_timer {
    struct tw_stimer st;
    atomic_int *live;
};

static void on_heap_fire(struct tw_service *svc, struct tw_stimer *st)
{
    struct heap_timer *h = tw_container_of(st, struct heap_timer, st);
    atomic_fetch_add(h->live, 1);
    (void)tw_service_start(svc, st, TW_USEC(50), NULL); /* keep it busy */
    atomic_fetch_sub(h->live, 1);
}

static void case_free_after_stop_sync(void)
{
    struct tw_service *svc = make(2, TW_USEC(100));
    if (!svc)
        return;
    atomic_int live = 0;
    enum { N = 64 };
    struct heap_timer *hs[N];
    for (size_t i = 0; i < N; i++) {
        hs[i] = malloc(sizeof *hs[i]);
        tw_stimer_init(&hs[i]->st, on_heap_fire);
        hs[i]->live = &live;
        CHECK_EQ(tw_service_start(svc, &hs[i]->st, TW_USEC(100 + i), NULL), 0);
    }
    sleep_ns(TW_MSEC(20));
    for (size_t i = 0; i < N; i++) {
        int r = tw_service_stop_sync(svc, &hs[i]->st, 0);
        CHECK(r == 0 || r == 1);
        memset(hs[i], 0xdd, sizeof *hs[i]);
        free(hs[i]);
    }
    CHECK_EQ(tw_service_count(svc), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
    CHECK_EQ(atomic_load(&live), 0);
}


/* A callback that works a little and re-arms its timer for a time already
 * past, as a periodic timer catching up does: due at once, again and
 * again.  stop_sync from another thread must still get in and return: it
 * needs its shard's lock once while a callback runs (the worker releases
 * it for every callback), and the worker then stops the re-arm as that
 * callback returns.  It returns 1 (it stopped a re-arm), and no callback
 * runs after it.  (Without the worker's stop it never returned: the
 * worker held the lock from each run to the next.)  How many runs begin
 * before it gets the lock depends on the scheduler, so that is not
 * asserted. */
struct rearm_due {
    struct tw_stimer st;
    atomic_ulong runs;
};

static void on_rearm_due(struct tw_service *svc, struct tw_stimer *st)
{
    struct rearm_due *r = tw_container_of(st, struct rearm_due, st);
    atomic_fetch_add(&r->runs, 1);
    uint64_t until = now_ns() + TW_USEC(50);
    while (now_ns() < until)
        ; /* work */
    uint64_t now = now_ns();
    CHECK_EQ(tw_service_start_at(svc, st, now - TW_MSEC(2), NULL), 0);
}

static void case_stop_sync_rearm_due(void)
{
    struct tw_service *svc = make(1, TW_MSEC(1));
    if (!svc)
        return;
    struct rearm_due r;
    tw_stimer_init(&r.st, on_rearm_due);
    atomic_store(&r.runs, 0);
    CHECK_EQ(tw_service_start(svc, &r.st, 0, NULL), 0);
    uint64_t end = now_ns() + TW_SEC(30);
    while (atomic_load(&r.runs) < 50 && now_ns() < end)
        sleep_ns(TW_USEC(100));
    for (int round = 0; round < 3; round++) {
        CHECK_EQ(tw_service_stop_sync(svc, &r.st, 0), 1);
        unsigned long after = atomic_load(&r.runs);
        sleep_ns(TW_MSEC(5));
        CHECK_EQ(atomic_load(&r.runs), after); /* nothing after it */
        CHECK_EQ(tw_service_count(svc), 0);
        CHECK_EQ(tw_service_start(svc, &r.st, 0, NULL), 0); /* and again */
        end = now_ns() + TW_SEC(30);
        while (atomic_load(&r.runs) < after + 20 && now_ns() < end)
            sleep_ns(TW_USEC(100));
    }
    CHECK_EQ(tw_service_stop_sync(svc, &r.st, 0), 1);
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* stop_sync with the generation of the running callback, which re-arms
 * its timer and then goes on: it waits until that callback has returned,
 * however often its wait is woken (here by signals, without SA_RESTART),
 * and leaves the re-arm (a later generation) pending. */
struct held {
    struct tw_stimer st;
    atomic_int in_cb, gate, rearmed;
};

static void on_held(struct tw_service *svc, struct tw_stimer *st)
{
    struct held *h = tw_container_of(st, struct held, st);
    atomic_store(&h->in_cb, 1);
    if (!atomic_exchange(&h->rearmed, 1))
        CHECK_EQ(tw_service_start(svc, st, far_ns, NULL), 0);
    while (atomic_load(&h->gate))
        sleep_ns(TW_USEC(100));
    atomic_store(&h->in_cb, 0);
}

struct sync_call {
    struct tw_service *svc;
    struct held *h;
    uint64_t gen;
    int rc, cb_at_return;
    atomic_int returned;
};

static void *call_stop_sync(void *arg)
{
    struct sync_call *c = arg;
    c->rc = tw_service_stop_sync(c->svc, &c->h->st, c->gen);
    c->cb_at_return = atomic_load(&c->h->in_cb);
    atomic_store(&c->returned, 1);
    return NULL;
}

static void on_signal(int sig) { (void)sig; }

static void case_stop_sync_gen_woken(void)
{
    struct tw_service *svc = make(1, TW_USEC(100));
    if (!svc)
        return;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a wait it interrupts returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &old);
    struct held h;
    tw_stimer_init(&h.st, on_held);
    atomic_store(&h.in_cb, 0);
    atomic_store(&h.gate, 1);
    atomic_store(&h.rearmed, 0);
    struct sync_call c = {.svc = svc, .h = &h};
    atomic_store(&c.returned, 0);
    CHECK_EQ(tw_service_start(svc, &h.st, TW_MSEC(1), &c.gen), 0);
    uint64_t end = now_ns() + TW_SEC(30);
    while (!atomic_load(&h.rearmed) && now_ns() < end)
        sleep_ns(TW_USEC(100));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, call_stop_sync, &c), 0);
    for (int i = 0; i < 10; i++) {
        sleep_ns(TW_MSEC(3));
        pthread_kill(th, SIGUSR1);
    }
    sleep_ns(TW_MSEC(3));
    CHECK(!atomic_load(&c.returned)); /* the callback still runs */
    atomic_store(&h.gate, 0);
    pthread_join(th, NULL);
    CHECK_EQ(c.rc, 0);           /* its arming had fired; the re-arm is not its */
    CHECK_EQ(c.cb_at_return, 0); /* it returned after the callback */
    CHECK_EQ(tw_service_timer_state(svc, &h.st, NULL), TW_STIMER_PENDING);
    CHECK_EQ(tw_service_stop_sync(svc, &h.st, 0), 1);
    sigaction(SIGUSR1, &old, NULL);
    CHECK_EQ(tw_service_destroy(svc), 0);
}


/* One owner thread per timer, four timers on one shard: each owner alone
 * stop_syncs (gen 0) its timer and starts it again, and each callback
 * re-arms its own timer, often for a time already due.  No two calls race
 * on one timer, so every arming ends in exactly one callback or exactly
 * one stop_sync returning 1 (starts == fires + prevented, per timer), and
 * after each stop_sync the timer is idle and its callback not running:
 * the worker's stop of a re-arm is credited to the stop_sync waiting for
 * that run, never to another timer's. */
struct owned {
    struct tw_stimer st;
    atomic_ulong starts, fires, prevented;
    atomic_int in_cb, rearm;
    uint64_t seed;
};

static void on_owned(struct tw_service *svc, struct tw_stimer *st)
{
    struct owned *o = tw_container_of(st, struct owned, st);
    atomic_fetch_add(&o->fires, 1);
    atomic_store(&o->in_cb, 1);
    uint64_t r = rnd(&o->seed);
    uint64_t until = now_ns() + r % TW_USEC(30);
    while (now_ns() < until)
        ; /* work */
    if (atomic_load(&o->rearm) && r % 4 != 0) {
        int rc = r & 16 ? tw_service_start_at(svc, st, now_ns() - TW_MSEC(1), NULL)
                        : tw_service_start(svc, st, (r >> 8) % TW_USEC(200), NULL);
        if (rc == 0)
            atomic_fetch_add(&o->starts, 1);
    }
    atomic_store(&o->in_cb, 0);
}

struct owner_arg {
    struct tw_service *svc;
    struct owned *o;
    uint64_t end;
};

static void *owner_thread(void *arg)
{
    struct owner_arg *a = arg;
    struct owned *o = a->o;
    uint64_t seed = o->seed * 7 + 1;
    while (now_ns() < a->end) {
        if (tw_service_stop_sync(a->svc, &o->st, 0) == 1)
            atomic_fetch_add(&o->prevented, 1);
        CHECK(!atomic_load(&o->in_cb));
        CHECK_EQ(tw_service_timer_state(a->svc, &o->st, NULL), 0);
        if (tw_service_start(a->svc, &o->st, rnd(&seed) % TW_USEC(300), NULL) == 0)
            atomic_fetch_add(&o->starts, 1);
        sleep_ns(rnd(&seed) % TW_USEC(400));
    }
    atomic_store(&o->rearm, 0);
    if (tw_service_stop_sync(a->svc, &o->st, 0) == 1)
        atomic_fetch_add(&o->prevented, 1);
    return NULL;
}

static void case_stop_sync_accounting(double seconds)
{
    struct tw_service *svc = make(1, TW_USEC(100));
    if (!svc)
        return;
    enum { N = 4 };
    struct owned o[N];
    struct owner_arg a[N];
    pthread_t th[N];
    uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
    for (int i = 0; i < N; i++) {
        tw_stimer_init(&o[i].st, on_owned);
        atomic_store(&o[i].starts, 0);
        atomic_store(&o[i].fires, 0);
        atomic_store(&o[i].prevented, 0);
        atomic_store(&o[i].in_cb, 0);
        atomic_store(&o[i].rearm, 1);
        o[i].seed = 0x9e3779b97f4a7c15u * (uint64_t)(i + 1);
        a[i] = (struct owner_arg){svc, &o[i], end};
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, owner_thread, &a[i]), 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(atomic_load(&o[i].starts),
                 atomic_load(&o[i].fires) + atomic_load(&o[i].prevented));
        CHECK(atomic_load(&o[i].fires) > 0);
    }
    CHECK_EQ(tw_service_count(svc), 0);
    CHECK_EQ(tw_service_destroy(svc), 0);
}

/* Is t armed in the model? */
static int armed(struct ttimer *t)
{
    pthread_mutex_lock(&t->m);
    int a = t->armed;
    pthread_mutex_unlock(&t->m);
    return a;
}

/* A worker with a timer due at the next tick collects that tick before it
 * begins (docs/service.md).  Timers due on consecutive ticks keep it
 * there while this thread stops timers (stop and stop_sync return 1
 * exactly when they prevented the callback) and starts idle ones again
 * a tick out and at a time already past: none fires early or twice,
 * none is lost. */
static unsigned long long ahead_total;
static void case_collect_ahead(void)
{
    const uint64_t tick = TW_MSEC(1);
    struct tw_service *svc = make(1, tick);
    if (!svc)
        return;
    enum { N = 400 };
    static struct ttimer ts[N];
    for (size_t i = 0; i < N; i++) {
        ttimer_init(&ts[i]);
        CHECK_EQ(tstart(svc, &ts[i], (2 + i / 2) * tick), 0); /* two per tick */
    }
    uint64_t seed = 3, end = now_ns() + (N / 2) * tick;
    while (now_ns() < end) {
        for (int k = 0; k < 4; k++) {
            struct ttimer *t = &ts[rnd(&seed) % N];
            uint64_t how = rnd(&seed) % 4;
            if (how == 0)
                (void)tstop(svc, t, 0);
            else if (how == 1)
                (void)tstop_sync_unlocked(svc, t);
            else if (how == 2) {
                int rc = tstart_x(svc, t, tick, 1);
                CHECK(rc == 0 || rc == 1); /* 1: armed, left alone */
            }
            else if (!armed(t))
                CHECK_EQ(tstart_how(svc, t, now_ns() - tick, 1), 0); /* past */
        }
        sleep_ns(tick / 4);
    }
    CHECK(wait_disarmed(ts, N, TW_SEC(60)));
    for (size_t i = 0; i < N; i++)
        CHECK_EQ(ts[i].fires, ts[i].starts - ts[i].stops);
    CHECK_EQ(tw_service_count(svc), 0);
    struct tw_service_stats st;
    CHECK_EQ(tw_service_stats(svc, &st), 0);
    ahead_total += st.ahead; /* reported, not asserted: a loaded machine may never get ahead */
    CHECK_EQ(tw_service_destroy(svc), 0);
    for (size_t i = 0; i < N; i++)
        pthread_mutex_destroy(&ts[i].m);
}

/* A tick collected ahead, met from outside.  With 50 ms ticks, two
 * timers started just after a tick begins, due at the next one (F), are
 * collected by the worker long before F begins.  While the clock is
 * still before F, one is stopped and one restarted, and two more are
 * started at F and at a time already past.  The stop prevents its
 * callback and the restarted timer fires once, at its new time, if the
 * calls ended before F began (they then met the timers collected and
 * not run: nothing runs before its tick); on a machine too loaded to
 * get there first the case tries again, and after three tries it says
 * so and asserts only what holds whatever the timing. */
static atomic_int ahead_b_fires;
static _Atomic uint64_t ahead_b_first_ns;
static void on_fire_count(struct tw_service *svc, struct tw_stimer *st)
{
    (void)svc;
    (void)st;
    uint64_t expect = 0;
    atomic_compare_exchange_strong(&ahead_b_first_ns, &expect, now_ns());
    atomic_fetch_add(&ahead_b_fires, 1);
}

static unsigned ahead_ops_skipped;
static void case_ahead_ops(void)
{
    const uint64_t tick = TW_MSEC(50);
    for (int attempt = 0; attempt < 3; attempt++) {
        struct tw_service *svc = make(1, tick);
        if (!svc)
            return;
        enum { A, C, D, N }; /* stopped; started at F; started in the past */
        struct ttimer ts[N];
        for (size_t i = 0; i < N; i++)
            ttimer_init(&ts[i]);
        struct tw_stimer b; /* restarted: counted by its own callback */
        tw_stimer_init(&b, on_fire_count);
        atomic_store(&ahead_b_fires, 0);
        atomic_store(&ahead_b_first_ns, 0);
        uint64_t now = now_ns();
        sleep_ns((now / tick + 1) * tick - now + TW_MSEC(1)); /* just after a tick begins */
        uint64_t f = (now_ns() / tick + 1) * tick;           /* when F begins */
        CHECK_EQ(tstart_how(svc, &ts[A], f - 1, 1), 0);
        CHECK_EQ(tw_service_start_at(svc, &b, f - 1, NULL), 0);
        struct tw_service_stats st;
        do {
            sleep_ns(TW_MSEC(1));
            CHECK_EQ(tw_service_stats(svc, &st), 0);
        } while (st.ahead == 0 && now_ns() < f);
        int stopped = tstop(svc, &ts[A], 0);
        uint64_t restart_ns = now_ns();
        CHECK_EQ(tw_service_start(svc, &b, tick, NULL), 0);
        uint64_t t1 = now_ns();
        CHECK_EQ(tstart_how(svc, &ts[C], f - 1, 1), 0);
        CHECK_EQ(tstart_how(svc, &ts[D], now_ns() - TW_SEC(1), 1), 0);
        CHECK(wait_disarmed(ts, N, TW_SEC(60)));
        uint64_t end = now_ns() + TW_SEC(60);
        while (atomic_load(&ahead_b_fires) == 0 && now_ns() < end)
            sleep_ns(TW_MSEC(1));
        sleep_ns(2 * tick); /* a second firing of b would come by now */
        CHECK_EQ(tw_service_destroy(svc), 0);
        for (size_t i = 0; i < N; i++) {
            CHECK_EQ(ts[i].fires, ts[i].starts - ts[i].stops);
            pthread_mutex_destroy(&ts[i].m);
        }
        int early = st.ahead > 0 && t1 < f; /* the calls met F collected */
        if (early) {
            CHECK_EQ(stopped, 1);
            CHECK_EQ(ts[A].fires, 0);
            CHECK_EQ(atomic_load(&ahead_b_fires), 1);
            CHECK(atomic_load(&ahead_b_first_ns) >= restart_ns + tick);
            return;
        }
        CHECK(atomic_load(&ahead_b_fires) >= 1 && atomic_load(&ahead_b_fires) <= 2);
    }
    ahead_ops_skipped++;
}

/* tw_service_timer_state(): 0 while idle; pending with its deadline, the
 * start of a tick at or after the time asked; running while its callback
 * runs, pending and running once another thread restarts it then; and
 * the errors of a stop for bad input and a timer of another service. */
static void case_timer_state(void)
{
    const uint64_t tick = TW_MSEC(1);
    struct tw_service *svc = make(2, tick);
    if (!svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    uint64_t at = 12345;
    CHECK_EQ(tw_service_timer_state(svc, &t.st, &at), 0);
    CHECK_EQ(at, 12345); /* untouched unless pending */
    uint64_t asked = now_ns() + far_ns;
    CHECK_EQ(tstart_how(svc, &t, asked, 1), 0);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, &at), TW_STIMER_PENDING);
    CHECK(at >= asked && at - asked < tick);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, NULL), TW_STIMER_PENDING);
    CHECK_EQ(tstop(svc, &t, 0), 1);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, &at), 0);

    atomic_store(&t.gate, 1); /* its callback waits until the gate opens */
    CHECK_EQ(tstart(svc, &t, tick), 0);
    /* disarmed in the model by its callback, which then waits at the gate */
    CHECK(wait_disarmed(&t, 1, TW_SEC(30)));
    CHECK(atomic_load(&t.in_callback));
    CHECK_EQ(tw_service_timer_state(svc, &t.st, NULL), TW_STIMER_RUNNING);
    CHECK_EQ(tstart(svc, &t, far_ns), 0);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, NULL), TW_STIMER_PENDING | TW_STIMER_RUNNING);
    atomic_store(&t.gate, 0);
    CHECK_EQ(tstop_sync_unlocked(svc, &t), 1);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, NULL), 0);

    CHECK_EQ(tw_service_timer_state(NULL, &t.st, NULL), TW_EINVAL);
    CHECK_EQ(tw_service_timer_state(svc, NULL, NULL), TW_EINVAL);
    struct tw_stimer raw;
    memset(&raw, 0, sizeof raw);
    CHECK_EQ(tw_service_timer_state(svc, &raw, NULL), TW_ENOTINIT);
    struct tw_service *other = make(1, tick);
    if (other) {
        CHECK_EQ(tstart(other, &t, far_ns), 0);
        CHECK_EQ(tw_service_timer_state(svc, &t.st, &at), TW_EOWNER);
        CHECK_EQ(tw_service_timer_state(other, &t.st, NULL), TW_STIMER_PENDING);
        CHECK_EQ(tstop(other, &t, 0), 1);
        CHECK_EQ(tw_service_destroy(other), 0);
    }
    CHECK_EQ(tw_service_destroy(svc), 0);
    CHECK_EQ(t.fires, 1);
    pthread_mutex_destroy(&t.m);
}

/* The restart under test: after an interval, or (at) at the time on the
 * clock that interval gives, through tw_service_restart_at(). */
static int restart_x(struct tw_service *svc, struct tw_stimer *st, uint64_t ns, uint64_t gen,
                     uint64_t *newgen, int at)
{
    if (at)
        return tw_service_restart_at(svc, st, now_ns() + ns, gen, newgen);
    return tw_service_restart(svc, st, ns, gen, newgen);
}

/* tw_service_restart() and tw_service_restart_at() re-arm only a pending
 * timer of the generation given (0: any): never an idle one, one stopped,
 * fired or of a later arming; the re-arm keeps every rule of a start (the
 * model checks its firing time). */
static void restart_pending(int at)
{
    const uint64_t tick = TW_MSEC(1);
    struct tw_service *svc = make(2, tick);
    if (!svc)
        return;
    struct ttimer t;
    ttimer_init(&t);
    uint64_t g = 7;
    CHECK_EQ(restart_x(svc, &t.st, tick, 0, &g, at), 0); /* idle */
    CHECK_EQ(g, 7);
    CHECK_EQ(tw_service_timer_state(svc, &t.st, NULL), 0);
    CHECK_EQ(tstart(svc, &t, far_ns), 0);
    uint64_t g1 = t.gen;
    pthread_mutex_lock(&t.m);
    CHECK_EQ(restart_x(svc, &t.st, far_ns / 2, g1 + 1, &g, at), 0); /* not yet its gen */
    CHECK_EQ(restart_x(svc, &t.st, far_ns / 2, g1, &g, at), 1);
    CHECK(g > g1);
    t.gen = g;
    CHECK_EQ(restart_x(svc, &t.st, far_ns / 2, g1, NULL, at), 0); /* stale now */
    uint64_t g2 = t.gen;
    t.due_ns = now_ns() + 2 * tick;
    CHECK_EQ(restart_x(svc, &t.st, 2 * tick, 0, &t.gen, at), 1); /* any gen */
    CHECK(t.gen > g2);
    pthread_mutex_unlock(&t.m);
    CHECK(wait_disarmed(&t, 1, TW_SEC(30)));
    CHECK_EQ(tstop_sync_unlocked(svc, &t), 0); /* its callback has returned */
    CHECK_EQ(t.fires, 1);
    CHECK_EQ(restart_x(svc, &t.st, tick, 0, NULL, at), 0); /* fired: not revived */
    CHECK_EQ(tstart(svc, &t, far_ns), 0);
    CHECK_EQ(tstop(svc, &t, 0), 1);
    CHECK_EQ(restart_x(svc, &t.st, tick, 0, NULL, at), 0); /* stopped: not revived */
    CHECK_EQ(tw_service_count(svc), 0);

    CHECK_EQ(restart_x(NULL, &t.st, tick, 0, NULL, at), TW_EINVAL);
    CHECK_EQ(restart_x(svc, NULL, tick, 0, NULL, at), TW_EINVAL);
    struct tw_stimer raw;
    memset(&raw, 0, sizeof raw);
    CHECK_EQ(restart_x(svc, &raw, tick, 0, NULL, at), TW_ENOTINIT);
    struct tw_service *other = make(1, tick);
    if (other) {
        CHECK_EQ(tstart(other, &t, far_ns), 0);
        CHECK_EQ(restart_x(svc, &t.st, tick, 0, NULL, at), TW_EOWNER);
        CHECK_EQ(tstop(other, &t, 0), 1);
        CHECK_EQ(tw_service_destroy(other), 0);
    }
    CHECK_EQ(tw_service_shutdown(svc, TW_SHUTDOWN_CANCEL), 0);
    CHECK_EQ(restart_x(svc, &t.st, tick, 0, NULL, at), 0); /* idle after shutdown */
    CHECK_EQ(tw_service_destroy(svc), 0);
    pthread_mutex_destroy(&t.m);
}

static void case_restart_pending(void)
{
    restart_pending(0);
    restart_pending(1);
}

#if defined(__SANITIZE_THREAD__)
#define TW_TEST_NO_SECCOMP 1 /* its runtime's own locks are futexes */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TW_TEST_NO_SECCOMP 1
#endif
#endif
#if defined(__has_include) /* no kernel headers (musl-gcc): the library's lock is pthread's */
#if !__has_include(<linux/futex.h>) || !__has_include(<linux/filter.h>)
#define TW_TEST_NO_SECCOMP 1
#endif
#endif
#if defined(__linux__) && defined(__x86_64__) && !defined(TW_LOCK_PTHREAD) && \
    !defined(TW_TEST_NO_SECCOMP)
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where the kernel refuses futex calls (a seccomp filter, in a child
 * process), tw_service_create() says so (TW_ENOSYS) and starts nothing,
 * rather than a service whose idle workers would spin. */
static void case_futex_refused(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
            _exit(77); /* no seccomp here: nothing to check */
        struct tw_service *svc = NULL;
        int rc = tw_service_create(&svc, NULL);
        _exit(rc == TW_ENOSYS && svc == NULL ? 0 : 1);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77));
}
#else
static void case_futex_refused(void) {}
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: twheel_service SCHEME [STRESS_SECONDS]\n");
        return 2;
    }
    scheme_name = argv[1];
    int s = tw_scheme_from_name(argv[1]);
    if (s < 0) {
        fprintf(stderr, "twheel_service: unknown scheme '%s'\n", argv[1]);
        return 2;
    }
    the_scheme = (enum tw_scheme)s;
    far_ns = the_scheme == TW_WHEEL ? TW_SEC(3) : TW_SEC(3600);
    double seconds = argc > 2 ? atof(argv[2]) : 0.6;
    case_futex_refused();
    static const char *const place_names[] = {"timer", "thread", "ttl"};
    for (int p = TW_PLACE_TIMER; p <= TW_PLACE_TTL; p++) {
        the_placement = (enum tw_placement)p;
        unsigned long before = atomic_load(&failures);
        if (!case_earlier_start_wakes()) {
            fprintf(stderr, "twheel_service %s: a start did not wake the worker; the other "
                    "cases would hang\n", argv[1]);
            return 1;
        }
        case_bad_input();
        case_stop_and_generations();
        case_fire();
        case_stop_sync();
        case_restart_from_callback();
        case_restart_while_running();
        case_shutdown();
        case_drain_stop();
        case_idle_then_range();
        case_start_at();
        case_collect_ahead();
        case_ahead_ops();
        case_idle();
        case_free_after_stop_sync();
        case_stop_sync_rearm_due();
        case_stop_sync_gen_woken();
        case_stop_sync_accounting(seconds / 3);
        case_timer_state();
        case_restart_pending();
        case_stress(seconds / 3);
        if (atomic_load(&failures) != before)
            fprintf(stderr, "twheel_service %s: the failures above are with placement by %s\n",
                    argv[1], place_names[p]);
    }
    unsigned long f = atomic_load(&failures);
    if (f) {
        fprintf(stderr, "twheel_service %s: %lu failures\n", argv[1], f);
        return 1;
    }
    printf("twheel_service %s: ok (ticks collected ahead: %llu; a stop and a restart met a "
           "timer collected ahead with %u of the 3 placements)\n",
           argv[1], ahead_total, 3 - ahead_ops_skipped);
    /* Nothing collected ahead anywhere: the ahead cases checked only what
     * holds whatever the timing.  Said as a skip (77), which ctest shows,
     * not as a pass. */
    if (ahead_total == 0 && ahead_ops_skipped == 3) {
        printf("twheel_service %s: no tick was ever collected ahead: skipped\n", argv[1]);
        return 77;
    }
    return 0;
}
