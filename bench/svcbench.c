/*
 * svcbench.c -- twsvc: the timer service against what multi-threaded C
 * programs use for timers today, in one run (docs/service.md, "Figures").
 *
 *   twsvc [--threads LIST] [--n LIST] [--target LIST] [--ms MS] [--shards S]
 *         [--placement P] [--scheme NAME] [--slots K] [--lateness N] [--pin]
 *   twsvc --cores MB
 *
 * Throughput: n timers pending an hour out, split among T producer
 * threads; each thread, for MS milliseconds, stops a random timer of its
 * own and starts it again an hour out (one operation: stop + start).  The
 * figure is operations per second over all threads, and the latency of
 * every 16th operation (p50, p99: each timed with CLOCK_MONOTONIC, a
 * clock read of the figure: 27 ns on the AMD VM of docs/service.md).
 * Targets:
 *
 *   service     tw_service, S shards (default 2: the cores), a lock each
 *   service_at  the same, each start at a time on the clock
 *               (tw_service_start_at) from a reading the thread takes
 *               once per 64 operations, as an event loop reads its clock
 *               once per pass
 *   service_restart  the same as service, the stop + start one call,
 *               tw_service_restart (one lock round trip, not two)
 *   service_restart_at  the restart at a time on the clock, from a reading
 *               taken once per 64 operations (tw_service_restart_at)
 *   locked      one facility (hierarchical) behind one mutex, the clock
 *               read under it: the service with a single global lock
 *   heap        a binary heap behind one mutex, with a condition variable
 *               and a worker thread: the hand-written timer thread
 *   heap_key    the same thread with libev's heap: 4-ary, each deadline
 *               beside its pointer in the array, and the stop + start one
 *               change of the key in place under one lock (as
 *               ev_timer_again): the strongest mutex + heap
 *   heap_key_at the same, each start at a time from a clock reading taken
 *               once per 64 operations (as service_at)
 *   ordered     the ordered list (Scheme 2) behind one mutex: Appendix B's
 *               "common structure tied up" for O(n) per start
 *   posix       a POSIX timer per timer (timer_create, SIGEV_NONE):
 *               timer_settime to arm and to disarm, a system call each
 *   timerfd     a timerfd per timer: timerfd_settime, a system call each
 *   facility    the bare single-threaded facility (T = 1 only): the cost
 *               the others are measured against
 *   refwheel    twbench's lean reference wheel (refwheel.c: 32-byte node,
 *               no checks), bare (T = 1 only): what a linked wheel costs
 *               at this operation with nothing around it
 *
 * The service's and both heap threads' timers are 64 bytes, a cache line
 * each (the heaps' padded to the size of struct tw_stimer); the others
 * keep dense arrays of their nodes.
 *
 * Lateness (--lateness N, default 10^5): N timers with delays uniform in
 * [1 ms, 1 s], started from one thread, on the service (1 ms and 100 us
 * ticks) and on the mutex + heap thread; each callback records how late it
 * ran against start time + delay on CLOCK_MONOTONIC: p50, p99, max.  For
 * the service also how late it ran past the beginning of the first tick
 * at or after that time (ticks begin at multiples of the tick on the
 * clock): the lateness that is not the tick's rounding, p50 and p99.
 * Last, the machine's own wake-up lateness: a thread that sleeps to each
 * of 1,000 tick boundaries of 1 ms, the floor of "past the tick".
 *
 * The machine and the load decide the figures: they print the core count
 * and the load average, and every ratio should be read within one run.
 */
#define _GNU_SOURCE

#include "twheel.h"
#include "svcbench.h"
#include "refwheel.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* ns on CLOCK_MONOTONIC as the absolute time of a timed wait. */
static struct timespec timespec_of(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    return ts;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void die(const char *what)
{
    fprintf(stderr, "twsvc: %s\n", what);
    exit(1);
}

#define HOUR_NS UINT64_C(3600000000000)

/* --ttls K: the intervals are an hour plus one of K whole milliseconds (a
 * few TTLs: Lawn's case); 0, the default, an hour plus up to a second in
 * ns, about 1,000 distinct ticks at 1 ms. */
static uint64_t opt_ttls;

/* The part of an interval past the hour, from a random (or running) v. */
static uint64_t spread(uint64_t v)
{
    return opt_ttls ? (v % opt_ttls) * UINT64_C(1000000) : v % UINT64_C(1000000000);
}

/* ------------------------------------------------------------ targets */

/* A target: set-up of n timers (all started an hour out), an operation
 * on timer i from any thread, tear-down. */
struct target {
    const char *name;
    const char *what;           /* for the legend of the tables */
    size_t max_n;               /* the most timers it can hold here */
    int single_thread;          /* facility: T = 1 only */
    void *(*setup)(size_t n, unsigned threads);
    void (*op)(void *st, size_t i, uint64_t *seed);
    void (*teardown)(void *st, size_t n);
    /* Run by each producer on its timers [lo, hi) before the clock starts,
     * or NULL. */
    void (*prepare)(void *st, size_t lo, size_t hi);
};

/* service */
struct svc_st {
    struct tw_service *svc;
    struct tw_stimer *t;
};
static unsigned opt_shards = 2;
static int opt_pin; /* --pin: producer k on the k-th allowed CPU (mod their count) */
static uint32_t opt_placement = TW_PLACE_THREAD;
static enum tw_scheme opt_scheme = TW_HIERARCHICAL; /* the service's facilities */
static uint32_t opt_slots;                          /* their slots; 0: the scheme's default */

/* The service's facility configuration: the scheme and slots asked for. */
static void svc_facility(struct tw_config *cfg)
{
    tw_config_init(cfg, opt_scheme);
    if (opt_slots)
        cfg->slots = opt_slots;
}
static const char *const place_names[] = {"timer", "thread", "ttl"};

static void noop_stimer(struct tw_service *s, struct tw_stimer *t)
{
    (void)s;
    (void)t;
}

/* The service the options describe: shards, placement, scheme, slots. */
static void svc_config(struct tw_service_config *cfg)
{
    tw_service_config_init(cfg);
    svc_facility(&cfg->facility);
    cfg->shards = opt_shards;
    cfg->placement = opt_placement;
}

static void *svc_setup(size_t n, unsigned threads)
{
    (void)threads;
    struct svc_st *st = calloc(1, sizeof *st);
    struct tw_service_config cfg;
    svc_config(&cfg);
    if (!st || tw_service_create(&st->svc, &cfg) != 0)
        die("tw_service_create");
    st->t = aligned_alloc(64, (n * sizeof *st->t + 63) & ~(size_t)63);
    if (!st->t)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        tw_stimer_init(&st->t[i], noop_stimer);
        if (tw_service_start(st->svc, &st->t[i], HOUR_NS + spread(i), NULL) != 0)
            die("tw_service_start (a scheme whose range is shorter than an hour?)");
    }
    return st;
}
static void svc_op(void *p, size_t i, uint64_t *seed)
{
    struct svc_st *st = p;
    tw_service_stop(st->svc, &st->t[i], 0);
    if (tw_service_start(st->svc, &st->t[i], HOUR_NS + spread(rnd(seed)), NULL) != 0)
        die("tw_service_start (a scheme whose range is shorter than an hour?)");
}
/* The thread's clock reading for the targets that start at a time, taken
 * once per 64 operations, as an event loop reads its clock once a pass. */
static _Thread_local uint64_t at_base;
static _Thread_local unsigned at_left;
static uint64_t batch_now(void)
{
    if (at_left-- == 0) {
        at_base = now_ns();
        at_left = 63;
    }
    return at_base;
}
static void svc_at_op(void *p, size_t i, uint64_t *seed)
{
    struct svc_st *st = p;
    tw_service_stop(st->svc, &st->t[i], 0);
    if (tw_service_start_at(st->svc, &st->t[i], batch_now() + HOUR_NS + spread(rnd(seed)),
                            NULL) != 0)
        die("tw_service_start_at (a scheme whose range is shorter than an hour?)");
}
/* The set-up thread started every timer, so all are on its shard; a stop
 * + start places an idle timer by the calling thread: each producer first
 * moves its timers to its own shard, where a program's threads start
 * theirs (a restart keeps a timer where it is, and would otherwise make
 * every producer take the one shard's lock). */
static void svc_prepare(void *p, size_t lo, size_t hi)
{
    struct svc_st *st = p;
    for (size_t i = lo; i < hi; i++) {
        tw_service_stop(st->svc, &st->t[i], 0);
        if (tw_service_start(st->svc, &st->t[i], HOUR_NS + spread(i), NULL) != 0)
            die("tw_service_start (a scheme whose range is shorter than an hour?)");
    }
}
static void svc_restart_op(void *p, size_t i, uint64_t *seed)
{
    struct svc_st *st = p;
    if (tw_service_restart(st->svc, &st->t[i], HOUR_NS + spread(rnd(seed)), 0, NULL) != 1)
        die("tw_service_restart (a timer not pending?)");
}
static void svc_restart_at_op(void *p, size_t i, uint64_t *seed)
{
    struct svc_st *st = p;
    if (tw_service_restart_at(st->svc, &st->t[i], batch_now() + HOUR_NS + spread(rnd(seed)), 0,
                              NULL) != 1)
        die("tw_service_restart_at (a timer not pending?)");
}
static void svc_teardown(void *p, size_t n)
{
    (void)n;
    struct svc_st *st = p;
    tw_service_destroy(st->svc);
    free(st->t);
    free(st);
}

/* locked facility, and the ordered list under the same lock */
struct locked_st {
    pthread_mutex_t m;
    struct tw *tw;
    struct tw_clock clk;
    struct tw_timer *t;
};
static void *locked_setup_scheme(size_t n, enum tw_scheme scheme)
{
    struct locked_st *st = calloc(1, sizeof *st);
    if (!st)
        die("out of memory");
    pthread_mutex_init(&st->m, NULL);
    tw_clock_init(&st->clk, TW_CLOCK_MONOTONIC, TW_MSEC(1));
    struct tw_config cfg;
    tw_config_init(&cfg, scheme);
    if (tw_clock_create(&st->tw, &cfg, &st->clk) != 0)
        die("tw_clock_create");
    st->t = calloc(n, sizeof *st->t);
    if (!st->t)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        tw_timer_init(&st->t[i], NULL);
        tw_clock_start(&st->clk, st->tw, &st->t[i], HOUR_NS + spread(i));
    }
    return st;
}
static void *locked_setup(size_t n, unsigned threads)
{
    (void)threads;
    return locked_setup_scheme(n, TW_HIERARCHICAL);
}
static void *ordered_setup(size_t n, unsigned threads)
{
    (void)threads;
    return locked_setup_scheme(n, TW_ORDERED);
}
static void locked_op(void *p, size_t i, uint64_t *seed)
{
    struct locked_st *st = p;
    uint64_t d = HOUR_NS + spread(rnd(seed));
    pthread_mutex_lock(&st->m);
    tw_stop(st->tw, &st->t[i]);
    tw_clock_update(&st->clk);
    tw_clock_start(&st->clk, st->tw, &st->t[i], d);
    pthread_mutex_unlock(&st->m);
}
static void locked_teardown(void *p, size_t n)
{
    (void)n;
    struct locked_st *st = p;
    tw_destroy(st->tw);
    free(st->t);
    free(st);
}

/* the lean reference wheel (refwheel.c), bare, virtual time: one thread:
 * what a linked wheel costs at this operation with a 32-byte node, no
 * checks and no lock. */
struct rw_st {
    struct rw_wheel w;
    struct rw_timer *t;
};
static void *rw_setup(size_t n, unsigned threads)
{
    (void)threads;
    struct rw_st *st = calloc(1, sizeof *st);
    if (!st)
        die("out of memory");
    rw_init(&st->w, 0);
    st->t = calloc(n, sizeof *st->t);
    if (!st->t)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        rw_timer_init(&st->t[i], NULL);
        rw_start(&st->w, &st->t[i], 3600000 + i % 1000);
    }
    return st;
}
static void rw_op(void *p, size_t i, uint64_t *seed)
{
    struct rw_st *st = p;
    if (rw_pending(&st->t[i]))
        rw_stop(&st->t[i]);
    rw_start(&st->w, &st->t[i], 3600000 + rnd(seed) % 1000);
}
static void rw_teardown(void *p, size_t n)
{
    (void)n;
    struct rw_st *st = p;
    free(st->t);
    free(st);
}

/* the bare facility, virtual time: one thread */
static void *facility_setup(size_t n, unsigned threads)
{
    (void)threads;
    return locked_setup_scheme(n, TW_HIERARCHICAL);
}
static void facility_op(void *p, size_t i, uint64_t *seed)
{
    struct locked_st *st = p;
    tw_stop(st->tw, &st->t[i]);
    tw_start(st->tw, &st->t[i], 3600000 + rnd(seed) % 1000);
}

/* mutex + binary heap + condition variable + worker thread */
/* A heap thread's timer, padded to a cache line as the service's struct
 * tw_stimer is (64 bytes): a program embeds either in its own objects,
 * so a timer is a line of its own in both, not a dense array's 16 or 8
 * bytes. */
#define TIMER_LINE 64
struct hnode {
    uint64_t due;
    size_t idx; /* position in the heap + 1; 0: not in it */
    char pad[TIMER_LINE - 2 * sizeof(uint64_t)];
};
struct heap_st {
    pthread_mutex_t m;
    pthread_cond_t cv;
    struct hnode **h;
    struct hnode *nodes;
    size_t len;
    int quit;
    pthread_t worker;
    /* lateness mode */
    uint64_t *late;
    atomic_size_t nlate;
};
/* What both heap threads share: a mutex and a condition variable on
 * CLOCK_MONOTONIC, their timers (n padded lines, zeroed), and the worker's
 * stop. */
static void heap_sync_init(pthread_mutex_t *m, pthread_cond_t *cv)
{
    pthread_mutex_init(m, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
}
static void *heap_timers(size_t n, size_t size)
{
    void *v = aligned_alloc(TIMER_LINE, (n ? n : 1) * size);
    if (!v)
        die("out of memory");
    return memset(v, 0, (n ? n : 1) * size);
}
static void heap_worker_stop(pthread_mutex_t *m, pthread_cond_t *cv, int *quit, pthread_t w)
{
    pthread_mutex_lock(m);
    *quit = 1;
    pthread_cond_signal(cv);
    pthread_mutex_unlock(m);
    pthread_join(w, NULL);
}
static void hswap(struct heap_st *s, size_t a, size_t b)
{
    struct hnode *x = s->h[a];
    s->h[a] = s->h[b];
    s->h[b] = x;
    s->h[a]->idx = a + 1;
    s->h[b]->idx = b + 1;
}
static void hup(struct heap_st *s, size_t i)
{
    while (i > 0 && s->h[(i - 1) / 2]->due > s->h[i]->due) {
        hswap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}
static void hdown(struct heap_st *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->len && s->h[l]->due < s->h[m]->due)
            m = l;
        if (r < s->len && s->h[r]->due < s->h[m]->due)
            m = r;
        if (m == i)
            return;
        hswap(s, i, m);
        i = m;
    }
}
static void hremove(struct heap_st *s, struct hnode *x)
{
    size_t i = x->idx - 1;
    s->len--;
    if (i != s->len) {
        s->h[i] = s->h[s->len];
        s->h[i]->idx = i + 1;
        hdown(s, i);
        hup(s, i);
    }
    x->idx = 0;
}
/* Insert; returns 1 if x is the new earliest (the worker must know). */
static int hinsert(struct heap_st *s, struct hnode *x)
{
    s->h[s->len] = x;
    x->idx = ++s->len;
    hup(s, s->len - 1);
    return x->idx == 1;
}
static void *heap_worker(void *p)
{
    struct heap_st *s = p;
    pthread_mutex_lock(&s->m);
    while (!s->quit) {
        if (s->len == 0) {
            pthread_cond_wait(&s->cv, &s->m);
            continue;
        }
        uint64_t due = s->h[0]->due, now = now_ns();
        if (due > now) {
            struct timespec ts = timespec_of(due);
            pthread_cond_timedwait(&s->cv, &s->m, &ts);
            continue;
        }
        struct hnode *x = s->h[0];
        hremove(s, x);
        if (s->late) /* the "callback": record the lateness */
            s->late[atomic_fetch_add(&s->nlate, 1)] = now - x->due;
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}
static struct heap_st *heap_make(size_t n)
{
    struct heap_st *s = calloc(1, sizeof *s);
    if (!s)
        die("out of memory");
    heap_sync_init(&s->m, &s->cv);
    s->h = calloc(n ? n : 1, sizeof *s->h);
    s->nodes = heap_timers(n, sizeof *s->nodes);
    if (!s->h)
        die("out of memory");
    if (pthread_create(&s->worker, NULL, heap_worker, s) != 0)
        die("pthread_create");
    return s;
}
static void heap_start(struct heap_st *s, struct hnode *x, uint64_t due)
{
    pthread_mutex_lock(&s->m);
    if (x->idx)
        hremove(s, x);
    x->due = due;
    if (hinsert(s, x))
        pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->m);
}
static void *heap_setup(size_t n, unsigned threads)
{
    (void)threads;
    struct heap_st *s = heap_make(n);
    uint64_t now = now_ns();
    for (size_t i = 0; i < n; i++)
        heap_start(s, &s->nodes[i], now + HOUR_NS + spread(i));
    return s;
}
static void heap_op(void *p, size_t i, uint64_t *seed)
{
    struct heap_st *s = p;
    struct hnode *x = &s->nodes[i];
    pthread_mutex_lock(&s->m);
    if (x->idx)
        hremove(s, x);
    pthread_mutex_unlock(&s->m);
    heap_start(s, x, now_ns() + HOUR_NS + spread(rnd(seed)));
}
static void heap_teardown(void *p, size_t n)
{
    (void)n;
    struct heap_st *s = p;
    heap_worker_stop(&s->m, &s->cv, &s->quit, s->worker);
    free(s->h);
    free(s->nodes);
    free(s);
}

/* The stronger heap thread, libev's heap: 4-ary (children of i are 4i + 1
 * .. 4i + 4: half the levels of a binary heap, and the four children of
 * a node share a cache line or two), each deadline in the array beside
 * its pointer, so that a sift compares without touching the timers, and
 * a restart that changes a key in place (the hole moves, the entry is
 * written once). */
struct kentry {
    uint64_t due;
    struct knode *x;
};
struct knode {
    size_t idx; /* position in the heap + 1; 0: not in it */
    char pad[TIMER_LINE - sizeof(size_t)];
};
struct kheap_st {
    pthread_mutex_t m;
    pthread_cond_t cv;
    struct kentry *h;
    struct knode *nodes;
    size_t len;
    int quit;
    pthread_t worker;
};
static void kput(struct kheap_st *s, size_t i, struct kentry e)
{
    s->h[i] = e;
    e.x->idx = i + 1;
}
/* Entry e into the hole at i, moving toward the root or the leaves. */
static void kup(struct kheap_st *s, size_t i, struct kentry e)
{
    while (i > 0 && s->h[(i - 1) / 4].due > e.due) {
        kput(s, i, s->h[(i - 1) / 4]);
        i = (i - 1) / 4;
    }
    kput(s, i, e);
}
static void kdown(struct kheap_st *s, size_t i, struct kentry e)
{
    for (;;) {
        size_t c = 4 * i + 1, end = c + 4 < s->len ? c + 4 : s->len, m = c;
        if (c >= s->len)
            break;
        for (size_t k = c + 1; k < end; k++)
            if (s->h[k].due < s->h[m].due)
                m = k;
        if (s->h[m].due >= e.due)
            break;
        kput(s, i, s->h[m]);
        i = m;
    }
    kput(s, i, e);
}
static void kset(struct kheap_st *s, size_t i, struct kentry e)
{
    if (i > 0 && s->h[(i - 1) / 4].due > e.due)
        kup(s, i, e);
    else
        kdown(s, i, e);
}
static void *kheap_worker(void *p)
{
    struct kheap_st *s = p;
    pthread_mutex_lock(&s->m);
    while (!s->quit) {
        if (s->len == 0) {
            pthread_cond_wait(&s->cv, &s->m);
            continue;
        }
        uint64_t due = s->h[0].due, now = now_ns();
        if (due > now) {
            struct timespec ts = timespec_of(due);
            pthread_cond_timedwait(&s->cv, &s->m, &ts);
            continue;
        }
        s->h[0].x->idx = 0;
        if (--s->len > 0)
            kdown(s, 0, s->h[s->len]);
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}
/* Start or restart x at due: one lock, one sift. */
static void kheap_start(struct kheap_st *s, struct knode *x, uint64_t due)
{
    struct kentry e = {due, x};
    pthread_mutex_lock(&s->m);
    if (x->idx) {
        kset(s, x->idx - 1, e);
    } else {
        s->len++;
        kup(s, s->len - 1, e);
    }
    if (x->idx == 1)
        pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->m);
}
static void *kheap_setup(size_t n, unsigned threads)
{
    (void)threads;
    struct kheap_st *s = calloc(1, sizeof *s);
    if (!s)
        die("out of memory");
    heap_sync_init(&s->m, &s->cv);
    s->h = calloc(n ? n : 1, sizeof *s->h);
    s->nodes = heap_timers(n, sizeof *s->nodes);
    if (!s->h)
        die("out of memory");
    if (pthread_create(&s->worker, NULL, kheap_worker, s) != 0)
        die("pthread_create");
    uint64_t now = now_ns();
    for (size_t i = 0; i < n; i++)
        kheap_start(s, &s->nodes[i], now + HOUR_NS + spread(i));
    return s;
}
static void kheap_op(void *p, size_t i, uint64_t *seed)
{
    struct kheap_st *s = p;
    kheap_start(s, &s->nodes[i], now_ns() + HOUR_NS + spread(rnd(seed)));
}
/* The same, each start at a time from a clock reading the thread takes
 * once per 64 operations, as service_at's. */
static void kheap_at_op(void *p, size_t i, uint64_t *seed)
{
    struct kheap_st *s = p;
    kheap_start(s, &s->nodes[i], batch_now() + HOUR_NS + spread(rnd(seed)));
}
static void kheap_teardown(void *p, size_t n)
{
    (void)n;
    struct kheap_st *s = p;
    heap_worker_stop(&s->m, &s->cv, &s->quit, s->worker);
    free(s->h);
    free(s->nodes);
    free(s);
}

/* POSIX timers */
struct posix_st {
    timer_t *t;
};
static void *posix_setup(size_t n, unsigned threads)
{
    (void)threads;
    struct posix_st *st = calloc(1, sizeof *st);
    st->t = calloc(n, sizeof *st->t);
    if (!st || !st->t)
        die("out of memory");
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_NONE;
    for (size_t i = 0; i < n; i++) {
        if (timer_create(CLOCK_MONOTONIC, &ev, &st->t[i]) != 0) {
            /* the kernel's limit (RLIMIT_SIGPENDING counts them) */
            while (i > 0)
                timer_delete(st->t[--i]);
            free(st->t);
            free(st);
            return NULL;
        }
        struct itimerspec its = {{0, 0}, {3600, (long)i}};
        timer_settime(st->t[i], 0, &its, NULL);
    }
    return st;
}
static void posix_op(void *p, size_t i, uint64_t *seed)
{
    struct posix_st *st = p;
    struct itimerspec off = {{0, 0}, {0, 0}};
    struct itimerspec on = {{0, 0}, {3600, (long)spread(rnd(seed))}};
    timer_settime(st->t[i], 0, &off, NULL);
    timer_settime(st->t[i], 0, &on, NULL);
}
static void posix_teardown(void *p, size_t n)
{
    struct posix_st *st = p;
    for (size_t i = 0; i < n; i++)
        timer_delete(st->t[i]);
    free(st->t);
    free(st);
}

/* timerfd per timer */
static void *tfd_setup(size_t n, unsigned threads)
{
    (void)threads;
    int *fd = calloc(n, sizeof *fd);
    if (!fd)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        fd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (fd[i] < 0) { /* the open-file limit */
            while (i > 0)
                close(fd[--i]);
            free(fd);
            return NULL;
        }
        struct itimerspec its = {{0, 0}, {3600, (long)i}};
        timerfd_settime(fd[i], 0, &its, NULL);
    }
    return fd;
}
static void tfd_op(void *p, size_t i, uint64_t *seed)
{
    int *fd = p;
    struct itimerspec off = {{0, 0}, {0, 0}};
    struct itimerspec on = {{0, 0}, {3600, (long)spread(rnd(seed))}};
    timerfd_settime(fd[i], 0, &off, NULL);
    timerfd_settime(fd[i], 0, &on, NULL);
}
static void tfd_teardown(void *p, size_t n)
{
    int *fd = p;
    for (size_t i = 0; i < n; i++)
        close(fd[i]);
    free(fd);
}

/* inbox: the lock-free alternative to the shard lock, as a prototype.
 * A producer never touches the facility: it writes the timer's requested
 * deadline and state (atomics), and queues the timer on its shard's
 * inbox -- an intrusive multi-producer queue (Vyukov's), one atomic
 * exchange per push, in which a timer is at most once (its `queued`
 * flag), so the inbox is bounded by the timers and never grows.  A stop
 * says whether it prevented the callback from an exchange of the state
 * word.  The shard's worker pops the inbox and applies each timer's
 * latest request to its facility; it spins a little when the inbox is
 * empty, then sleeps on a futex that a push wakes.  Producers go to the
 * shard of their thread, as the service's placement by thread. */
struct ibox_timer {
    struct tw_timer node;                 /* the worker's facility only */
    _Atomic uint64_t req;                 /* the requested deadline, in ticks */
    _Atomic uint32_t state;               /* 1 armed, 0 stopped */
    _Atomic uint32_t queued;              /* in its shard's inbox */
    struct ibox_timer *_Atomic next;      /* inbox link */
    unsigned shard;
};
struct ibox_shard {
    _Alignas(64) struct ibox_timer *_Atomic tail; /* producers push here */
    _Atomic uint32_t sleeping;
    _Alignas(64) struct ibox_timer *head;         /* the worker pops here */
    struct ibox_timer stub;
    struct tw *tw;
    struct tw_clock clk;
    _Atomic int quit;
    pthread_t worker;
    uint64_t applied;
};
struct ibox_st {
    struct ibox_shard *sh;
    unsigned nsh;
    struct ibox_timer *t;
};

static void ibox_push(struct ibox_shard *q, struct ibox_timer *n)
{
    atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
    struct ibox_timer *prev = atomic_exchange_explicit(&q->tail, n, memory_order_acq_rel);
    atomic_store_explicit(&prev->next, n, memory_order_release);
    if (atomic_load_explicit(&q->sleeping, memory_order_seq_cst) &&
        atomic_exchange(&q->sleeping, 0))
        syscall(SYS_futex, &q->sleeping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static struct ibox_timer *ibox_pop(struct ibox_shard *q)
{
    struct ibox_timer *head = q->head;
    struct ibox_timer *next = atomic_load_explicit(&head->next, memory_order_acquire);
    if (head == &q->stub) {
        if (next == NULL)
            return NULL;
        q->head = next;
        head = next;
        next = atomic_load_explicit(&next->next, memory_order_acquire);
    }
    if (next != NULL) {
        q->head = next;
        return head;
    }
    if (head != atomic_load_explicit(&q->tail, memory_order_acquire))
        return NULL; /* a push is half done: later */
    ibox_push(q, &q->stub);
    next = atomic_load_explicit(&head->next, memory_order_acquire);
    if (next != NULL) {
        q->head = next;
        return head;
    }
    return NULL;
}

static void *ibox_worker(void *p)
{
    struct ibox_shard *q = p;
    unsigned idle = 0;
    while (!atomic_load(&q->quit)) {
        struct ibox_timer *n = ibox_pop(q);
        if (n == NULL) {
            if (++idle < 2000) {
                __builtin_ia32_pause();
                continue;
            }
            idle = 0;
            atomic_store(&q->sleeping, 1);
            if (ibox_pop(q) == NULL && !atomic_load(&q->quit)) {
                struct timespec ts = {0, 1000000}; /* at most 1 ms: the time moves */
                syscall(SYS_futex, &q->sleeping, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
            }
            atomic_store(&q->sleeping, 0);
            tw_advance(q->tw, tw_clock_update(&q->clk));
            continue;
        }
        idle = 0;
        /* Clear `queued` before reading the request: a request made after
         * the read queues the timer again. */
        atomic_store(&n->queued, 0);
        if (atomic_load(&n->state))
            tw_start_at(q->tw, &n->node, atomic_load(&n->req));
        else
            tw_stop(q->tw, &n->node);
        q->applied++;
    }
    return NULL;
}

static void *ibox_setup(size_t n, unsigned threads)
{
    struct ibox_st *st = calloc(1, sizeof *st);
    if (!st)
        die("out of memory");
    st->nsh = opt_shards;
    st->sh = aligned_alloc(64, ((st->nsh * sizeof *st->sh) + 63) & ~(size_t)63);
    st->t = calloc(n, sizeof *st->t);
    if (!st->sh || !st->t)
        die("out of memory");
    for (unsigned k = 0; k < st->nsh; k++) {
        struct ibox_shard *q = &st->sh[k];
        memset(q, 0, sizeof *q);
        q->head = &q->stub;
        atomic_store(&q->tail, &q->stub);
        tw_clock_init(&q->clk, TW_CLOCK_MONOTONIC, TW_MSEC(1));
        if (tw_clock_create(&q->tw, NULL, &q->clk) != 0)
            die("tw_clock_create");
    }
    /* the timers of producer k (ops of run_cell) go to shard k % shards */
    for (size_t i = 0; i < n; i++) {
        struct ibox_timer *t = &st->t[i];
        tw_timer_init(&t->node, NULL);
        unsigned k = (unsigned)(i * threads / n);
        t->shard = k % st->nsh;
        struct ibox_shard *q = &st->sh[t->shard];
        tw_clock_start(&q->clk, q->tw, &t->node, HOUR_NS + spread(i));
        atomic_store(&t->state, 1);
        atomic_store(&t->req, tw_timer_deadline(&t->node));
    }
    for (unsigned k = 0; k < st->nsh; k++)
        pthread_create(&st->sh[k].worker, NULL, ibox_worker, &st->sh[k]);
    return st;
}

static void ibox_op(void *p, size_t i, uint64_t *seed)
{
    struct ibox_st *st = p;
    struct ibox_timer *t = &st->t[i];
    struct ibox_shard *q = &st->sh[t->shard];
    /* stop: prevented if it was armed */
    if (atomic_exchange(&t->state, 0) == 1 && !atomic_exchange(&t->queued, 1))
        ibox_push(q, t);
    /* start: the deadline from a fresh reading, rounded up */
    uint64_t d = (now_ns() + HOUR_NS + spread(rnd(seed)) + 999999u) / 1000000u;
    atomic_store(&t->req, d);
    atomic_store(&t->state, 1);
    if (!atomic_exchange(&t->queued, 1))
        ibox_push(q, t);
}

static void ibox_teardown(void *p, size_t n)
{
    (void)n;
    struct ibox_st *st = p;
    for (unsigned k = 0; k < st->nsh; k++) {
        atomic_store(&st->sh[k].quit, 1);
        syscall(SYS_futex, &st->sh[k].sleeping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        pthread_join(st->sh[k].worker, NULL);
        tw_destroy(st->sh[k].tw);
    }
    free(st->sh);
    free(st->t);
    free(st);
}

static struct target targets[] = {
    {"facility", "the bare single-threaded facility", (size_t)-1, 1, facility_setup,
     facility_op, locked_teardown, NULL},
    {"refwheel", "the lean reference wheel (bench/refwheel.c), bare", (size_t)-1, 1,
     rw_setup, rw_op, rw_teardown, NULL},
    {"service", "tw_service, 2 shards, placement by thread, each start after an interval "
     "(a clock read)", (size_t)-1, 0, svc_setup, svc_op, svc_teardown, svc_prepare},
    {"service_at", "the same, each start at a time on the clock from a reading taken once "
     "per 64 operations", (size_t)-1, 0, svc_setup, svc_at_op, svc_teardown, svc_prepare},
    {"service_restart", "the same as service, the stop + start one call "
     "(tw_service_restart)", (size_t)-1, 0, svc_setup, svc_restart_op, svc_teardown,
     svc_prepare},
    {"service_restart_at", "the restart at a time on the clock from a reading taken once per 64 "
     "operations (tw_service_restart_at)", (size_t)-1, 0, svc_setup, svc_restart_at_op,
     svc_teardown, svc_prepare},
    {"inbox", "a lock-free inbox per shard, drained by its worker (the design not chosen)",
     (size_t)-1, 0, ibox_setup, ibox_op, ibox_teardown, NULL},
    {"locked", "one facility behind one mutex, the clock read under it", (size_t)-1, 0,
     locked_setup, locked_op, locked_teardown, NULL},
    {"heap", "a mutex + binary heap + condition variable thread", (size_t)-1, 0, heap_setup,
     heap_op, heap_teardown, NULL},
    {"heap_key", "the same with libev's heap: 4-ary, deadlines beside the pointers, a "
     "restart re-keyed in place under one lock", (size_t)-1, 0, kheap_setup, kheap_op, kheap_teardown,
     NULL},
    {"heap_key_at", "the same, each start at a time from a reading taken once per 64 "
     "operations", (size_t)-1, 0, kheap_setup, kheap_at_op, kheap_teardown, NULL},
    {"ordered", "the ordered list (Scheme 2) behind one mutex", 10000, 0, ordered_setup,
     locked_op, locked_teardown, NULL},
    {"posix", "a POSIX timer per timer (timer_create)", 1000000, 0, posix_setup, posix_op,
     posix_teardown, NULL},
    {"timerfd", "a timerfd per timer", 1000000, 0, tfd_setup, tfd_op, tfd_teardown, NULL},
};
#define NTARGETS (sizeof targets / sizeof targets[0])

/* ------------------------------------------------------------ throughput */

struct worker_arg {
    const struct target *tg;
    void *st;
    size_t lo, hi;              /* its timers */
    uint64_t ms;
    pthread_barrier_t *bar;
    uint64_t ops;
    uint64_t *lat;              /* sampled latencies */
    size_t nlat, cap;
    uint64_t seed;
};

static void *producer(void *p)
{
    struct worker_arg *w = p;
    uint64_t seed = w->seed;
    size_t span = w->hi - w->lo;
    if (w->tg->prepare)
        w->tg->prepare(w->st, w->lo, w->hi);
    pthread_barrier_wait(w->bar);
    uint64_t end = now_ns() + w->ms * 1000000u, ops = 0;
    for (;;) {
        for (int k = 0; k < 256; k++, ops++) {
            size_t i = w->lo + (size_t)(rnd(&seed) % span);
            if ((ops & 15) == 0 && w->nlat < w->cap) {
                uint64_t a = now_ns();
                w->tg->op(w->st, i, &seed);
                w->lat[w->nlat++] = now_ns() - a;
            } else {
                w->tg->op(w->st, i, &seed);
            }
        }
        if (now_ns() >= end)
            break;
    }
    w->ops = ops;
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i];
}

struct cell {
    double mops;                /* million operations per second */
    uint64_t p50, p99;          /* ns */
};

/* The k-th CPU of the set `all`, modulo their count. */
static size_t nth_cpu(const cpu_set_t *all, unsigned k)
{
    unsigned n = (unsigned)CPU_COUNT(all), seen = 0;
    for (size_t c = 0; c < (size_t)CPU_SETSIZE; c++)
        if (CPU_ISSET(c, all) && seen++ == k % n)
            return c;
    return 0; /* not reached: a thread's set is never empty */
}

/* A set of the one CPU `cpu`. */
static cpu_set_t cpu_alone(size_t cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return one;
}

/* --pin: producer k on the k-th CPU this process may use, modulo their
 * count, so that two runs put each producer on the same CPU (a CPU's
 * caches can differ from another's: --cores).  The service's workers
 * and the heap threads stay where the scheduler puts them. */
static void pin_producer(pthread_t th, unsigned k)
{
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        die("sched_getaffinity");
    cpu_set_t one = cpu_alone(nth_cpu(&all, k));
    if (pthread_setaffinity_np(th, sizeof one, &one) != 0)
        die("pthread_setaffinity_np");
}

static struct cell run_cell(const struct target *tg, size_t n, unsigned T, uint64_t ms)
{
    void *st = tg->setup(n, T);
    if (st == NULL)
        return (struct cell){-1, 0, 0}; /* beyond what the system allows */
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, T + 1);
    struct worker_arg *w = calloc(T, sizeof *w);
    pthread_t *th = calloc(T, sizeof *th);
    if (!w || !th)
        die("out of memory");
    for (unsigned k = 0; k < T; k++) {
        w[k] = (struct worker_arg){tg, st, n * k / T, n * (k + 1) / T, ms, &bar, 0, NULL, 0,
                                   1u << 20, 0x9e3779b97f4a7c15u * (k + 1)};
        w[k].lat = malloc(w[k].cap * sizeof *w[k].lat);
        if (!w[k].lat)
            die("out of memory");
        pthread_create(&th[k], NULL, producer, &w[k]);
        if (opt_pin)
            pin_producer(th[k], k);
    }
    pthread_barrier_wait(&bar);
    uint64_t t0 = now_ns();
    uint64_t ops = 0;
    size_t nlat = 0;
    for (unsigned k = 0; k < T; k++) {
        pthread_join(th[k], NULL);
        ops += w[k].ops;
        nlat += w[k].nlat;
    }
    uint64_t dt = now_ns() - t0;
    uint64_t *lat = malloc((nlat ? nlat : 1) * sizeof *lat);
    if (!lat)
        die("out of memory");
    size_t j = 0;
    for (unsigned k = 0; k < T; k++) {
        memcpy(lat + j, w[k].lat, w[k].nlat * sizeof *lat);
        j += w[k].nlat;
        free(w[k].lat);
    }
    qsort(lat, nlat, sizeof *lat, cmp_u64);
    struct cell c = {(double)ops / ((double)dt / 1e9) / 1e6, pct(lat, nlat, 0.5),
                     pct(lat, nlat, 0.99)};
    free(lat);
    free(w);
    free(th);
    pthread_barrier_destroy(&bar);
    tg->teardown(st, n);
    return c;
}

/* ------------------------------------------------------------ the API */

static struct rlimit nofile;

/* Raise the open-file limit to its hard limit (timerfds); once. */
static void svc_raise_nofile(void)
{
    static int done;
    if (done++)
        return;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
        getrlimit(RLIMIT_NOFILE, &nofile);
    }
}

int svc_target_count(void) { return (int)NTARGETS; }

const char *svc_target_name(int k)
{
    return k >= 0 && k < (int)NTARGETS ? targets[k].name : NULL;
}

const char *svc_target_what(int k)
{
    return k >= 0 && k < (int)NTARGETS ? targets[k].what : NULL;
}

/* The cell's status before it runs: 0 runs, 1 system limit, 2 not run. */
static int cell_status(const struct target *tg, size_t n, unsigned T)
{
    if ((tg->single_thread && T != 1) || n > tg->max_n || n < T)
        return 2;
    if (!strcmp(tg->name, "timerfd") && n + 64 > nofile.rlim_cur)
        return 1;
    return 0;
}

struct svc_cell svc_measure(int k, size_t n, unsigned threads, uint64_t ms)
{
    struct svc_cell out = {2, 0, 0, 0};
    if (k < 0 || k >= (int)NTARGETS)
        return out;
    svc_raise_nofile();
    out.status = cell_status(&targets[k], n, threads);
    if (out.status != 0)
        return out;
    struct cell c = run_cell(&targets[k], n, threads, ms);
    if (c.mops < 0) {
        out.status = 1;
        return out;
    }
    out.mops = c.mops;
    out.p50 = c.p50;
    out.p99 = c.p99;
    return out;
}

#ifndef TWSVC_NO_MAIN
/* ------------------------------------------------------------ lateness */

struct late_timer {
    struct tw_stimer st;
    uint64_t due;
};
static uint64_t *late_v, *late_past; /* lateness; past the tick */
static uint64_t late_tick;
static atomic_size_t late_n;

static void on_late(struct tw_service *svc, struct tw_stimer *t)
{
    (void)svc;
    struct late_timer *l = tw_container_of(t, struct late_timer, st);
    uint64_t now = now_ns();
    size_t k = atomic_fetch_add(&late_n, 1);
    late_v[k] = now > l->due ? now - l->due : 0;
    uint64_t tick_at = (l->due + late_tick - 1) / late_tick * late_tick;
    late_past[k] = now > tick_at ? now - tick_at : 0;
}

/* A row: lateness p50, p99, max; past the tick p50 and p99 (past NULL:
 * no tick). */
static void report_late(const char *name, uint64_t *v, uint64_t *past, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    printf("| %s | %zu | %.1f | %.1f | %.1f |", name, n, (double)pct(v, n, 0.5) / 1e3,
           (double)pct(v, n, 0.99) / 1e3, n ? (double)v[n - 1] / 1e3 : 0.0);
    if (past) {
        qsort(past, n, sizeof *past, cmp_u64);
        printf(" %.1f | %.1f |\n", (double)pct(past, n, 0.5) / 1e3,
               (double)pct(past, n, 0.99) / 1e3);
    } else {
        printf(" — | — |\n");
    }
}

/* The machine's own wake-up lateness, for reading the rows above: a
 * thread with the workers' timer slack (1 ns) that sleeps to each of
 * `n` tick boundaries in turn (clock_nanosleep, absolute) and records
 * how late it woke.  On a quiet machine this is the floor of "past the
 * tick"; a VM whose host is busy shows it here as well. */
struct sleeper {
    uint64_t tick, *v;
    size_t n;
};
static void *sleeper_run(void *p)
{
    struct sleeper *s = p;
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    uint64_t at = (now_ns() / s->tick + 1) * s->tick;
    for (size_t i = 0; i < s->n; i++) {
        struct timespec ts = timespec_of(at);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        uint64_t now = now_ns();
        s->v[i] = now - at;
        at = (now / s->tick + 1) * s->tick; /* the next boundary, even after a stall */
    }
    return NULL;
}

static void report_sleeper(uint64_t tick, size_t n)
{
    struct sleeper s = {tick, calloc(n, sizeof(uint64_t)), n};
    pthread_t th;
    if (!s.v)
        die("out of memory");
    if (pthread_create(&th, NULL, sleeper_run, &s) != 0)
        die("pthread_create");
    pthread_join(th, NULL);
    /* Its lateness is all past the tick: the same figures twice. */
    report_late("a thread sleeping to each 1 ms tick", s.v, s.v, n);
    free(s.v);
}

static void lateness(size_t n)
{
    printf("\nLateness of %zu timers, delays uniform in [1 ms, 1 s], after start + delay "
           "(CLOCK_MONOTONIC), us;\n"
           "past the tick: after the beginning of the first tick at or after it:\n\n"
           "| target | fired | p50 | p99 | max | past the tick p50 | p99 |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n",
           n);
    uint64_t seed = 7;
    /* the service, 1 ms and 100 us ticks */
    late_v = calloc(n, sizeof *late_v);
    late_past = calloc(n, sizeof *late_past);
    struct late_timer *lt = calloc(n, sizeof *lt);
    if (!late_v || !late_past || !lt)
        die("out of memory");
    for (int k = 0; k < 2; k++) {
        uint64_t tick = k == 0 ? TW_MSEC(1) : TW_USEC(100);
        late_tick = tick;
        struct tw_service *svc;
        struct tw_service_config cfg;
        tw_service_config_init(&cfg);
        svc_facility(&cfg.facility);
        cfg.shards = opt_shards;
        cfg.tick_ns = tick;
        if (tw_service_create(&svc, &cfg) != 0)
            die("tw_service_create");
        atomic_store(&late_n, 0);
        for (size_t i = 0; i < n; i++) {
            uint64_t d = TW_MSEC(1) + rnd(&seed) % TW_SEC(1);
            tw_stimer_init(&lt[i].st, on_late);
            lt[i].due = now_ns() + d;
            if (tw_service_start(svc, &lt[i].st, d, NULL) != 0)
                die("tw_service_start (a scheme whose range is shorter than a second?)");
        }
        tw_service_shutdown(svc, TW_SHUTDOWN_DRAIN);
        tw_service_destroy(svc);
        report_late(k == 0 ? "service, 1 ms ticks" : "service, 100 us ticks", late_v, late_past,
                    atomic_load(&late_n));
    }
    free(lt);
    /* the mutex + heap thread */
    struct heap_st *h = heap_make(n);
    memset(late_v, 0, n * sizeof *late_v);
    h->late = late_v;
    atomic_store(&h->nlate, 0);
    for (size_t i = 0; i < n; i++)
        heap_start(h, &h->nodes[i], now_ns() + TW_MSEC(1) + rnd(&seed) % TW_SEC(1));
    while (atomic_load(&h->nlate) < n) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    size_t got = atomic_load(&h->nlate);
    heap_teardown(h, n);
    report_late("mutex + heap thread", late_v, NULL, got);
    report_sleeper(TW_MSEC(1), 1000);
    free(late_v);
    free(late_past);
}

/* ------------------------------------------------------------ idle */

/* Wake-ups of an idle service over `ms` milliseconds: with no timer, and
 * with n timers pending an hour out. */
static void idle(size_t n, uint64_t ms)
{
    printf("\nIdle service (%u shards, 1 ms ticks), worker wake-ups per second over %llu ms:\n\n"
           "| pending | wake-ups/s |\n|---:|---:|\n",
           opt_shards, (unsigned long long)ms);
    for (int k = 0; k < 2; k++) {
        size_t m = k == 0 ? 0 : n;
        struct tw_service *svc;
        struct tw_service_config cfg;
        tw_service_config_init(&cfg);
        svc_facility(&cfg.facility);
        cfg.shards = opt_shards;
        if (tw_service_create(&svc, &cfg) != 0)
            die("tw_service_create");
        struct tw_stimer *t = calloc(m ? m : 1, sizeof *t);
        if (!t)
            die("out of memory");
        for (size_t i = 0; i < m; i++) {
            tw_stimer_init(&t[i], noop_stimer);
            if (tw_service_start(svc, &t[i], HOUR_NS + spread(i), NULL) != 0)
                die("tw_service_start (a scheme whose range is shorter than an hour?)");
        }
        struct tw_service_stats a, b;
        tw_service_stats(svc, &a);
        struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        tw_service_stats(svc, &b);
        printf("| %zu | %.2f |\n", m, (double)(b.wakeups - a.wakeups) * 1000.0 / (double)ms);
        tw_service_destroy(svc);
        free(t);
    }
}

/* ------------------------------------------------------------ main */

/* Is `name` one of the comma-separated names of `list` (NULL: all)? */
static int in_list(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* The number `v` given to option `opt`, in [lo, hi]; anything else ends
 * the program with a message that names the option. */
static double parse_num(const char *opt, const char *v, double lo, double hi)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !(x >= lo && x <= hi)) {
        fprintf(stderr, "twsvc: %s: a number from %.15g to %.15g, not '%s'\n", opt, lo, hi, v);
        exit(2);
    }
    return x;
}

/* A comma-separated list of such numbers: how many (1 to max). */
static int parse_list(const char *opt, const char *s, double lo, double hi, double *out, int max)
{
    int k = 0;
    char *dup = strdup(s), *save = NULL;
    if (!dup)
        die("out of memory");
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (k == max) {
            fprintf(stderr, "twsvc: %s: at most %d values\n", opt, max);
            exit(2);
        }
        out[k++] = parse_num(opt, t, lo, hi);
    }
    free(dup);
    if (k == 0) {
        fprintf(stderr, "twsvc: %s: a list of numbers, not '%s'\n", opt, s);
        exit(2);
    }
    return k;
}

/* Is the service the options describe one the library accepts?  Asked
 * once, before any table, so that a bad --shards, --scheme or --slots is
 * a message, not a failure halfway through a run. */
static void check_service_config(void)
{
    struct tw_service_config cfg;
    svc_config(&cfg);
    struct tw_service *svc;
    const char *what = "the library refuses that service";
    int rc = tw_service_create(&svc, &cfg);
    if (rc == 0) {
        /* the benchmark's timers are an hour out (wheel's range is less) */
        struct tw_stimer t;
        tw_stimer_init(&t, noop_stimer);
        rc = tw_service_start(svc, &t, HOUR_NS, NULL);
        if (rc != 0)
            what = "a timer an hour out, as the benchmark's are, is refused";
        tw_service_destroy(svc); /* stops t */
    }
    if (rc != 0) {
        fprintf(stderr, "twsvc: --shards %u --scheme %s --slots %u: %s: %s (%s)\n", opt_shards,
                tw_scheme_name(opt_scheme), (unsigned)opt_slots, what, tw_strerror(rc),
                tw_err_name(rc));
        exit(2);
    }
}

/* ------------------------------------------------------------ cores */

/* The latency of one dependent load over `mb` MiB of 64-byte lines in a
 * random cycle, on each CPU this process may run on, the thread pinned to
 * it in turn.  n timers of the service take about 64 n bytes (each its
 * own line here), so --cores 6.1 is 10^5 timers' lines: it shows whether
 * the CPUs hold such a set in cache alike (on a VM two vCPUs may not,
 * and a producer then runs at the speed of the CPU it lands on). */
static volatile size_t cores_sink; /* the chain's end, so that the walk is kept */

static int cores(double mb)
{
    size_t n = (size_t)(mb * 1048576.0 / 64.0);
    if (n < 2)
        n = 2;
    size_t *line = aligned_alloc(64, n * 64), *perm = malloc(n * sizeof *perm);
    if (!line || !perm)
        die("out of memory");
    uint64_t seed = 1;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* one cycle through every line */
        size_t j = (size_t)(rnd(&seed) % (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        line[perm[i] * 8] = perm[(i + 1) % n] * 8;
    free(perm);
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        die("sched_getaffinity");
    printf("twsvc: a dependent load over %.1f MiB (%zu lines), each CPU in turn:\n", mb, n);
    for (unsigned k = 0; k < (unsigned)CPU_COUNT(&all); k++) {
        size_t cpu = nth_cpu(&all, k);
        cpu_set_t one = cpu_alone(cpu);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            die("sched_setaffinity");
        size_t at = 0, loads = 4 * n > 2000000 ? 4 * n : 2000000;
        for (size_t i = 0; i < n; i++) /* warm: the set as this CPU's caches keep it */
            at = line[at];
        uint64_t t0 = now_ns();
        for (size_t i = 0; i < loads; i++)
            at = line[at];
        double per = (double)(now_ns() - t0) / (double)loads;
        cores_sink = at;
        printf("  cpu %zu: %.1f ns per load\n", cpu, per);
    }
    sched_setaffinity(0, sizeof all, &all);
    free(line);
    return 0;
}

int main(int argc, char **argv)
{
    double thr[8] = {1, 2, 4, 8}, ns[8] = {1e3, 1e4, 1e5, 1e6};
    int nthr = 4, nn = 4;
    const char *tlist = NULL; /* every target */
    uint64_t ms = 300;
    size_t nlate = 100000;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--threads") && v)
            nthr = parse_list("--threads", v, 1, 1024, thr, 8), a++;
        else if (!strcmp(argv[a], "--n") && v)
            nn = parse_list("--n", v, 1, 1e8, ns, 8), a++;
        else if (!strcmp(argv[a], "--target") && v)
            tlist = v, a++;
        else if (!strcmp(argv[a], "--ms") && v)
            ms = (uint64_t)parse_num("--ms", v, 1, 3.6e6), a++;
        else if (!strcmp(argv[a], "--shards") && v)
            opt_shards = (unsigned)parse_num("--shards", v, 0, 65535), a++;
        else if (!strcmp(argv[a], "--placement") && v) {
            opt_placement = 99;
            for (uint32_t k = 0; k < 3; k++)
                if (!strcmp(v, place_names[k]))
                    opt_placement = k;
            if (opt_placement == 99) {
                fprintf(stderr, "twsvc: --placement: timer, thread or ttl\n");
                return 2;
            }
            a++;
        } else if (!strcmp(argv[a], "--scheme") && v) {
            int sc = tw_scheme_from_name(v);
            if (sc < 0) {
                fprintf(stderr, "twsvc: --scheme: a scheme's name (hierarchical, heap, ...)\n");
                return 2;
            }
            opt_scheme = (enum tw_scheme)sc;
            a++;
        } else if (!strcmp(argv[a], "--slots") && v) {
            opt_slots = (uint32_t)parse_num("--slots", v, 0, 4294967295.0);
            a++;
        } else if (!strcmp(argv[a], "--ttls") && v) {
            opt_ttls = (uint64_t)parse_num("--ttls", v, 0, 1000); /* within a second */
            a++;
        } else if (!strcmp(argv[a], "--lateness") && v)
            nlate = (size_t)parse_num("--lateness", v, 0, 1e8), a++;
        else if (!strcmp(argv[a], "--cores") && v)
            return cores(parse_num("--cores", v, 0.001, 4096));
        else if (!strcmp(argv[a], "--pin"))
            opt_pin = 1;
        else {
            fprintf(stderr,
                    "usage: twsvc [--threads LIST] [--n LIST] [--target LIST] [--ms MS] "
                    "[--shards S] [--placement P] [--scheme NAME] [--slots K] [--ttls K]\n"
                    "             [--lateness N] [--pin] [--cores MB]\n"
                    "  --threads   producer threads (default 1,2,4,8)\n"
                    "  --n         pending timers (default 1e3,1e4,1e5,1e6)\n"
                    "  --target    facility,refwheel,service,service_at,service_restart,\n"
                    "              service_restart_at,inbox,locked,heap,heap_key,heap_key_at,\n"
                    "              ordered,posix,timerfd (default all)\n"
                    "  --ms        milliseconds per cell (default 300)\n"
                    "  --shards    the service's shards (default 2)\n"
                    "  --placement the service's placement: timer, thread, ttl (default thread)\n"
                    "  --scheme    the service's facilities' scheme (default hierarchical)\n"
                    "  --slots     their slots (struct tw_config; default the scheme's)\n"
                    "  --ttls      intervals an hour plus one of K (<= 1000) whole ms (Lawn's case:\n"
                    "              a few TTLs); 0: plus up to 1 s, about 1,000 ticks (default 0)\n"
                    "  --lateness  timers of the lateness run, 0 for none (default 1e5)\n"
                    "  --pin       producer k on the k-th CPU the process may use (mod their\n"
                    "              count), for runs to compare at 10^4-10^5 (--cores)\n"
                    "  --cores MB  instead: a dependent load over MB MiB on each CPU in turn\n"
                    "              (6.1: 10^5 timers' lines; do the CPUs cache it alike?)\n");
            return strcmp(argv[a], "--help") ? 2 : 0;
        }
    }
    check_service_config();
    svc_raise_nofile();
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    printf("twsvc: %ld cores, load %.2f, %llu ms per cell, service shards %u, placement by %s, "
           "scheme %s",
           sysconf(_SC_NPROCESSORS_ONLN), load[0], (unsigned long long)ms, opt_shards,
           place_names[opt_placement], tw_scheme_name(opt_scheme));
    if (opt_slots)
        printf(", %u slots", (unsigned)opt_slots);
    if (opt_ttls)
        printf(", %llu TTLs", (unsigned long long)opt_ttls);
    if (opt_pin)
        printf(", producers pinned");
    printf("\n\n");
    printf("Stop + start of a random own timer, all pending an hour out: million ops/s "
           "(p50 / p99 latency in ns)\n\n");
    printf("| target | threads |");
    for (int j = 0; j < nn; j++)
        printf(" n = %.0e |", ns[j]);
    printf("\n|---|---:|");
    for (int j = 0; j < nn; j++)
        printf("---:|");
    printf("\n");
    for (size_t k = 0; k < NTARGETS; k++) {
        const struct target *tg = &targets[k];
        if (!in_list(tlist, tg->name))
            continue;
        for (int i = 0; i < nthr; i++) {
            unsigned T = (unsigned)thr[i];
            if (tg->single_thread && T != 1)
                continue;
            printf("| %s | %u |", tg->name, T);
            fflush(stdout);
            for (int j = 0; j < nn; j++) {
                size_t n = (size_t)ns[j];
                int st = cell_status(tg, n, T);
                if (st != 0) {
                    printf(st == 1 ? " limit |" : " — |");
                    continue;
                }
                struct cell c = run_cell(tg, n, T, ms);
                if (c.mops < 0)
                    printf(" limit |");
                else
                    printf(" %.2f (%llu / %llu) |", c.mops, (unsigned long long)c.p50,
                           (unsigned long long)c.p99);
                fflush(stdout);
            }
            printf("\n");
        }
    }
    if (nlate)
        lateness(nlate);
    if (nlate)
        idle(1000000, 2000);
    getloadavg(load, 3);
    printf("\nload at the end %.2f\n", load[0]);
    return 0;
}
#endif /* TWSVC_NO_MAIN */
