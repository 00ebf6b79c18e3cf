/*
 * service.c -- the timer service: a facility per shard behind the shard's
 * lock, and a worker thread per shard that sleeps until the shard's next
 * wake-up and runs the callbacks that come due (docs/service.md).
 *
 * Everything a shard has -- its facility, its clock, the timer whose
 * callback runs, the time its worker sleeps until -- changes under its
 * lock, and so does every field of a timer but its owner and its shard
 * (below).  An operation from any thread is: a clock reading, for a start
 * after an interval, taken before any lock; find the timer's shard (its
 * shard field), lock it, O(1) work on the facility (a start or stop of the
 * scheme), unlock, and a signal to the worker when a start comes before
 * the worker's wake-up.  The worker takes the lock to advance the
 * facility and pops the timers due one at a time (tw_collect() and
 * tw_get_expired(): the pull interface), releasing the lock around each
 * callback.  So a callback may take the lock again (start, stop), and a
 * stop from another thread meets a timer in one of three places: pending
 * in the facility (its callback will not run: 1), idle (0), or running,
 * which stop_sync waits out on the shard's `idle` condition.
 *
 * Two fields of a timer are read before the right lock is known to be
 * held, so they are accessed atomically: its shard (to find the lock; it
 * changes only under the lock of the shard it names, see lock_timer()),
 * and its owner (the service's id while it is pending: a timer misused on
 * two services then costs a TW_EOWNER, not a data race).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall(), for the futex of lock.h */

#include "base.h"
#include "facility.h"
#include "lock.h"
#include "node.h"
#include "scheme.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#define SERVICE_MAGIC 0x74777376u /* "twsv" */
#define STIMER_MAGIC 0x5e71u

/* What a shard accepts (its mode, under its lock). */
enum {
    MODE_RUNNING = 0,  /* everything */
    MODE_DRAINING,     /* stops; starts fail: the worker ends when none is pending */
    MODE_CANCELLING,   /* stops; starts fail: the worker ends at once */
};

/* A stop_sync with gen 0 waiting for run `run` of the shard's running
 * timer, on the waiter's stack and on the shard's list (under its lock):
 * the worker stops an arming of the timer made while that run went on,
 * as the run ends, and credits the stop to one such waiter. */
struct sync_wait {
    struct sync_wait *next;
    uint64_t run;
    int credited;
};

/* sleep_until while the worker is not waiting. */
#define AWAKE 0

struct shard {
    _Alignas(64) struct tw_lock lock; /* lock.h */
    struct tw_cond wake;          /* the worker waits here */
    struct tw_cond idle;          /* stop_sync waits here for `running` to change */
    struct tw *tw;
    struct tw_clock clk;          /* read by whoever holds the lock */
    struct tw_stimer *running;    /* whose callback runs now, or NULL */
    uint64_t runs;                /* callbacks begun: the number of the one running */
    uint64_t running_gen;         /* the generation whose callback runs */
    struct sync_wait *syncs;      /* the stop_syncs (gen 0) waiting for a run */
    tw_time_t sleep_until;        /* AWAKE, or the tick the worker waits for
                                   * (TW_TIME_MAX: nothing pending) */
    int mode;
    unsigned waiting;             /* stop_sync callers waiting on `idle` */
    uint64_t wakeups, fired, wakes_sent, ahead;
    pthread_t thread;
    struct tw_service *svc;
};

struct tw_service {
    uint32_t magic;
    uint32_t id;                  /* stored in the timers it has */
    unsigned nshards;
    uint32_t placement;           /* enum tw_placement */
    _Atomic unsigned next_home;   /* TW_PLACE_THREAD: the next thread's shard */
    uint64_t tick_ns;
    pthread_mutex_t shut_lock;    /* shutdown is called once */
    pthread_cond_t shut_done;     /* a later call waits for the first */
    int shut, done;
    struct shard shard[];
};

/* Service ids tag pending timers; 0 is none. */
static _Atomic uint32_t next_id = 1;

/* The calling thread's view: in a worker thread, its shard (NULL
 * elsewhere), which is how shutdown and stop_sync know they are called
 * from a callback, without reading anything another thread writes; and
 * for TW_PLACE_THREAD, its shard (index + 1) of the service it used last
 * (another service deals it a shard anew).  One struct: one read of the
 * thread pointer finds them all. */
#if defined(__GNUC__)
/* Initial-exec: an offset from the thread pointer, not a call (the
 * library is built position-independent, whose default model calls
 * __tls_get_addr on each access); 24 bytes of the static TLS space a
 * dlopen()ed library may use. */
#define TW_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define TW_TLS_MODEL
#endif
static _Thread_local struct {
    struct shard *shard;
    uint32_t home_svc;
    unsigned home_ix;
} here TW_TLS_MODEL;

static uint32_t owner_of(const struct tw_stimer *t)
{
    return __atomic_load_n(&t->tw_sowner, __ATOMIC_RELAXED);
}

static void set_owner(struct tw_stimer *t, uint32_t id)
{
    __atomic_store_n(&t->tw_sowner, id, __ATOMIC_RELAXED);
}

/* A value's shard: Fibonacci hashing, then a multiply-shift into
 * [0, nshards). */
static unsigned hash_ix(const struct tw_service *svc, uint64_t v)
{
    uint64_t h = (v * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
    return (unsigned)((h * svc->nshards) >> 32);
}

/* Is the calling thread one of the service's workers? */
static int on_worker(const struct tw_service *svc)
{
    return here.shard != NULL && here.shard->svc == svc;
}

/* The shard index of t's address: where a timer never started is found. */
static unsigned addr_ix(const struct tw_service *svc, const struct tw_stimer *t)
{
    return hash_ix(svc, (uint64_t)(uintptr_t)t);
}

/* A start's time: an interval from the clock's reading (tw_service_start,
 * tw_service_restart) or a time on the clock (tw_service_start_at,
 * tw_service_restart_at).  Never passed by value: a compiler copies a
 * struct argument with 16-byte loads of the 8-byte stores that built it,
 * which the processor cannot forward, and the start waits for its own
 * stores to reach the cache.  The paths that take it are inlined into
 * the entry points, or take a pointer. */
struct when {
    uint64_t ns;
    tw_time_t tick;             /* at: the first tick at or after ns (at_time()) */
    uint64_t read;              /* an interval: the clock's reading (after_now()), 0 if none */
    bool at;
};

/* The shard (index + 1, as in the timer's shard field) a start of an
 * idle t moves it to, by the service's placement, for a start at w; sh is
 * the shard t is on, its lock held. */
static unsigned placed_ix(struct tw_service *svc, struct shard *sh, const struct tw_stimer *t,
                          const struct when *w)
{
    switch (svc->placement) {
    case TW_PLACE_THREAD:
        if (on_worker(svc))
            return (unsigned)(here.shard - svc->shard) + 1; /* a callback: its worker's */
        if (here.home_svc != svc->id) {
            here.home_svc = svc->id;
            here.home_ix = atomic_fetch_add(&svc->next_home, 1u) % svc->nshards + 1;
        }
        return here.home_ix;
    case TW_PLACE_TTL: {
        /* By the interval: a time on the clock is the interval from a
         * reading of it (placement by TTL pays that read). */
        uint64_t ns = w->ns;
        if (w->at) {
            tw_clock_update(&sh->clk);
            uint64_t now = tw_clock_now_ns(&sh->clk);
            ns = w->ns > now ? w->ns - now : 0;
        }
        return hash_ix(svc, ns / svc->tick_ns) + 1;
    }
    default:
        return addr_ix(svc, t) + 1;
    }
}

static unsigned shard_field(const struct tw_stimer *t)
{
    return __atomic_load_n(&t->tw_sshard, __ATOMIC_RELAXED);
}

/* The shard field as a thread that holds a shard's lock re-reads it: an
 * acquire, pairing with the release of the move (tw_service_start()), so
 * that a thread that finds a timer moved to its shard also sees what was
 * written to the timer under the old shard's lock. */
static unsigned shard_field_acquire(const struct tw_stimer *t)
{
    return __atomic_load_n(&t->tw_sshard, __ATOMIC_ACQUIRE);
}

/* Lock the shard t is on and return it: the one its shard field names,
 * or, for a timer never started (0; or a shard number beyond this
 * service's, left by a bigger one), the shard of its address.  The field
 * changes only under the lock of that shard, so once it is held and the
 * field is as read, t stays on it. */
TW_INLINE struct shard *lock_timer(struct tw_service *svc, struct tw_stimer *t)
{
    for (;;) {
        unsigned ix = shard_field(t);
        struct shard *sh = ix != 0 && ix <= svc->nshards ? &svc->shard[ix - 1]
                                                         : &svc->shard[addr_ix(svc, t)];
        tw_lock_take(&sh->lock);
        if (shard_field_acquire(t) == ix)
            return sh;
        tw_lock_release(&sh->lock);
    }
}

static int valid_service(const struct tw_service *svc)
{
    return svc != NULL && svc->magic == SERVICE_MAGIC;
}

/* -------------------------------------------------------------- the worker */

/* The time on CLOCK_MONOTONIC, in ns, at which tick `t` begins (saturated). */
static uint64_t tick_ns_of(const struct tw_service *svc, tw_time_t t)
{
    return t > UINT64_MAX / svc->tick_ns ? UINT64_MAX : t * svc->tick_ns;
}

/* The same as a struct timespec. */
static struct timespec tick_time(const struct tw_service *svc, tw_time_t t)
{
    return tw_timespec_of(tick_ns_of(svc, t));
}

/* Stop t if pending, under its shard's lock: 1 or 0. */
TW_INLINE int stop_locked(struct shard *sh, struct tw_stimer *t)
{
    int r = tw_stop(sh->tw, &t->tw_node);
    if (r == 1) {
        set_owner(t, 0);
        /* A draining worker that sleeps towards this timer ends now. */
        if (sh->mode == MODE_DRAINING && tw_count(sh->tw) == 0)
            tw_cond_signal(&sh->wake);
    }
    return r;
}

/* Run `run` of t's callback has returned (the lock held).  If stop_sync
 * callers with gen 0 wait for it, t is valid (its callback may not free
 * it then), and an arming made while it ran (by the callback or another
 * thread) is stopped here, before this worker could run it again and
 * keep them out for good; the stop goes to one of them.  A timer the
 * callback started on another service is left alone (its owner says so,
 * read without that service's lock). */
static void after_run(struct shard *sh, struct tw_stimer *t, uint64_t run)
{
    struct sync_wait *first = NULL;
    for (struct sync_wait *w = sh->syncs; w; w = w->next)
        if (w->run == run) {
            first = w;
            break;
        }
    if (first && owner_of(t) == sh->svc->id && stop_locked(sh, t) == 1)
        first->credited = 1;
}

/* Run the callbacks due at the clock's time, one at a time, the lock
 * released around each; stop early when a cancelling shutdown begins.
 * While the facility is a tick ahead of the clock (worker()), its collect
 * to the clock's time fails (TW_ETIME) and nothing runs. */
static void run_due(struct shard *sh)
{
    if (tw_collect(sh->tw, tw_clock_now(&sh->clk)) < 0)
        return;
    struct tw_timer *n;
    while (sh->mode != MODE_CANCELLING && (n = tw_get_expired(sh->tw)) != NULL) {
        struct tw_stimer *t = tw_container_of(n, struct tw_stimer, tw_node);
        tw_stimer_fn *fn = t->tw_sfn;
        set_owner(t, 0); /* idle: its callback may free it */
        sh->running = t;
        sh->fired++;
        uint64_t run = ++sh->runs;
        sh->running_gen = t->tw_gen;
        tw_lock_release(&sh->lock);
        fn(sh->svc, t);
        tw_lock_take(&sh->lock);
        sh->running = NULL;
        after_run(sh, t, run);
        if (sh->waiting)
            tw_cond_broadcast(&sh->idle);
    }
}

static void *worker(void *arg)
{
    struct shard *sh = arg;
    here.shard = sh;
#if defined(__linux__)
    /* Linux lets a timed wait end up to the thread's timer slack late
     * (50 us by default): the worker's waits are its timers' lateness. */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    tw_lock_take(&sh->lock);
    bool fresh = false; /* the clock was just read: no need to again */
    for (;;) {
        if (!fresh)
            tw_clock_update(&sh->clk);
        fresh = false;
        run_due(sh);
        if (sh->mode == MODE_CANCELLING ||
            (sh->mode == MODE_DRAINING && tw_count(sh->tw) == 0))
            break;
        tw_time_t next;
        int some = tw_next_wakeup(sh->tw, &next);
        if (some == 1) {
            tw_time_t now = tw_clock_update(&sh->clk);
            if (next < sh->tw->now)
                next = sh->tw->now; /* collected ahead: its tick is the facility's */
            if (next <= now) {
                fresh = true;
                continue; /* due already: no wait */
            }
            /* The next tick is collected before it begins: the advance
             * (a level's slot that comes up moves all its timers down at
             * once) is done while the worker would sleep, and at the tick
             * only the callbacks run.  Until then the facility's time is
             * a tick after the clock's, and every rule holds: run_due()
             * runs nothing; a start at that tick, or at a time already
             * past, goes on the facility's due list and runs at the tick;
             * a stop or restart of a timer collected takes it off the
             * expired list, as from the wheel.  (A scheme that places a
             * timer by its interval measures it from the facility's time:
             * a tick less, the same deadline.) */
            if (next == now + 1 && next > sh->tw->now) {
                (void)tw_collect(sh->tw, next);
                sh->ahead++;
                some = tw_next_wakeup(sh->tw, &next);
            }
        }
        if (some != 1) {
            sh->sleep_until = TW_TIME_MAX;
            tw_cond_wait(&sh->wake, &sh->lock, NULL);
        } else {
            sh->sleep_until = next;
            struct timespec ts = tick_time(sh->svc, next);
            tw_cond_wait(&sh->wake, &sh->lock, &ts);
        }
        sh->sleep_until = AWAKE;
        sh->wakeups++;
    }
    tw_lock_release(&sh->lock);
    return NULL;
}

/* ------------------------------------------------------- create, shutdown */

int tw_service_config_init(struct tw_service_config *cfg)
{
    if (cfg == NULL)
        return TW_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    (void)tw_config_init(&cfg->facility, TW_HIERARCHICAL);
    cfg->tick_ns = TW_MSEC(1);
    cfg->shards = 1;
    cfg->placement = TW_PLACE_THREAD;
    return 0;
}

static void shard_fini(struct shard *sh)
{
    if (sh->tw)
        (void)tw_destroy(sh->tw);
    tw_cond_fini(&sh->idle);
    tw_cond_fini(&sh->wake);
    tw_lock_fini(&sh->lock);
}

static int shard_init(struct tw_service *svc, struct shard *sh,
                      const struct tw_service_config *cfg)
{
    memset(sh, 0, sizeof *sh);
    sh->svc = svc;
    /* Each step is undone on failure: a shard is whole or not at all. */
    int made = 0, rc = TW_ENOMEM;
    if (tw_lock_init(&sh->lock) == 0 && ++made && tw_cond_init(&sh->wake) == 0 && ++made &&
        tw_cond_init(&sh->idle) == 0 && ++made) {
        rc = tw_clock_init(&sh->clk, TW_CLOCK_MONOTONIC, cfg->tick_ns);
        /* A real clock, and the program's work between the advances: a
         * scheme that takes TW_OPT_REAL_TIME gets it. */
        struct tw_config fc = cfg->facility; /* checked by tw_service_create() */
        fc.options |= tw_schemes[fc.scheme]->options & TW_OPT_REAL_TIME;
        if (rc == 0)
            rc = tw_clock_create(&sh->tw, &fc, &sh->clk);
    }
    if (rc != 0) {
        if (made >= 3)
            tw_cond_fini(&sh->idle);
        if (made >= 2)
            tw_cond_fini(&sh->wake);
        if (made >= 1)
            tw_lock_fini(&sh->lock);
    }
    return rc;
}

/* Make the shard's mode `mode`, and wake its worker to see it. */
static void shard_close(struct shard *sh, int mode)
{
    tw_lock_take(&sh->lock);
    sh->mode = mode;
    tw_cond_signal(&sh->wake);
    tw_lock_release(&sh->lock);
}

/* After the worker has ended: every timer still pending becomes idle. */
static void shard_cancel_all(struct shard *sh)
{
    tw_lock_take(&sh->lock);
    sh->mode = MODE_CANCELLING;
    (void)tw_collect(sh->tw, TW_TIME_MAX);
    struct tw_timer *n;
    while ((n = tw_get_expired(sh->tw)) != NULL)
        set_owner(tw_container_of(n, struct tw_stimer, tw_node), 0);
    tw_lock_release(&sh->lock);
}

int tw_service_create(struct tw_service **out, const struct tw_service_config *cfg)
{
    if (out == NULL)
        return TW_EINVAL;
    struct tw_service_config def;
    if (cfg == NULL) {
        (void)tw_service_config_init(&def);
        cfg = &def;
    }
    if (tw_config_check(&cfg->facility, NULL) != 0 || cfg->tick_ns < TW_TICK_NS_MIN ||
        cfg->tick_ns > TW_TICK_NS_MAX || cfg->shards < 1 || cfg->shards > TW_SERVICE_MAX_SHARDS ||
        cfg->placement > TW_PLACE_TTL)
        return TW_ECONFIG;
    if (!tw_lock_supported())
        return TW_ENOSYS;
    size_t size = sizeof(struct tw_service) + cfg->shards * sizeof(struct shard);
    size = (size + 63) & ~(size_t)63;
    struct tw_service *svc = aligned_alloc(64, size);
    if (svc == NULL)
        return TW_ENOMEM;
    memset(svc, 0, sizeof *svc);
    svc->id = next_id++;
    if (svc->id == 0)
        svc->id = next_id++;
    svc->tick_ns = cfg->tick_ns;
    svc->placement = cfg->placement;
    if (pthread_mutex_init(&svc->shut_lock, NULL) != 0) {
        free(svc);
        return TW_ENOMEM;
    }
    if (pthread_cond_init(&svc->shut_done, NULL) != 0) {
        pthread_mutex_destroy(&svc->shut_lock);
        free(svc);
        return TW_ENOMEM;
    }
    unsigned made = 0, started = 0;
    int rc = 0;
    while (made < cfg->shards && (rc = shard_init(svc, &svc->shard[made], cfg)) == 0)
        made++; /* only whole shards count */
    svc->nshards = made;
    if (rc == 0) {
        /* The workers start with every signal blocked, as libuv's threads
         * do: signals go to the program's own threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        for (; started < made; started++)
            if (pthread_create(&svc->shard[started].thread, NULL, worker,
                               &svc->shard[started]) != 0) {
                rc = TW_EAGAIN;
                break;
            }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (rc != 0) {
        for (unsigned i = 0; i < started; i++) {
            shard_close(&svc->shard[i], MODE_CANCELLING);
            pthread_join(svc->shard[i].thread, NULL);
        }
        for (unsigned i = 0; i < made; i++)
            shard_fini(&svc->shard[i]);
        pthread_cond_destroy(&svc->shut_done);
        pthread_mutex_destroy(&svc->shut_lock);
        free(svc);
        return rc;
    }
    svc->magic = SERVICE_MAGIC;
    *out = svc;
    return 0;
}

int tw_service_shutdown(struct tw_service *svc, enum tw_shutdown how)
{
    if (!valid_service(svc) || (how != TW_SHUTDOWN_CANCEL && how != TW_SHUTDOWN_DRAIN))
        return TW_EINVAL;
    if (on_worker(svc))
        return TW_EDEADLK;
    pthread_mutex_lock(&svc->shut_lock);
    int shut = svc->shut;
    svc->shut = 1;
    while (shut && !svc->done) /* another call is shutting it down */
        pthread_cond_wait(&svc->shut_done, &svc->shut_lock);
    pthread_mutex_unlock(&svc->shut_lock);
    if (shut)
        return TW_ESHUTDOWN;
    int mode = how == TW_SHUTDOWN_DRAIN ? MODE_DRAINING : MODE_CANCELLING;
    for (unsigned i = 0; i < svc->nshards; i++)
        shard_close(&svc->shard[i], mode);
    for (unsigned i = 0; i < svc->nshards; i++) {
        pthread_join(svc->shard[i].thread, NULL);
        shard_cancel_all(&svc->shard[i]);
    }
    pthread_mutex_lock(&svc->shut_lock);
    svc->done = 1;
    pthread_cond_broadcast(&svc->shut_done);
    pthread_mutex_unlock(&svc->shut_lock);
    return 0;
}

int tw_service_destroy(struct tw_service *svc)
{
    if (!valid_service(svc))
        return TW_EINVAL;
    if (on_worker(svc))
        return TW_EDEADLK;
    (void)tw_service_shutdown(svc, TW_SHUTDOWN_CANCEL);
    for (unsigned i = 0; i < svc->nshards; i++)
        shard_fini(&svc->shard[i]);
    pthread_cond_destroy(&svc->shut_done);
    pthread_mutex_destroy(&svc->shut_lock);
    svc->magic = 0;
    free(svc);
    return 0;
}

/* ------------------------------------------------------------------ timers */

void tw_stimer_init(struct tw_stimer *t, tw_stimer_fn *fn)
{
    if (t == NULL)
        return;
    memset(t, 0, sizeof *t);
    tw_timer_init(&t->tw_node, NULL);
    t->tw_sfn = fn;
    t->tw_smagic = STIMER_MAGIC;
}

/* The checks of every timer call: 0 or the error. */
static int check_timer(const struct tw_service *svc, const struct tw_stimer *t)
{
    if (!valid_service(svc) || t == NULL)
        return TW_EINVAL;
    if (t->tw_smagic != STIMER_MAGIC)
        return TW_ENOTINIT;
    return 0;
}

/* Pending on another service? (Under the lock of this service's shard.) */
static int foreign(const struct tw_service *svc, const struct tw_stimer *t)
{
    uint32_t o = owner_of(t);
    return o != 0 && o != svc->id;
}

/* Bring shard sh's facility (its lock held) to the clock's time, if it is
 * behind: true if that made timers due and the worker sleeps, so that it
 * must be woken. */
static bool catch_up(struct shard *sh, uint64_t read)
{
    tw_time_t now = read ? tw_clock_observe(&sh->clk, read) : tw_clock_update(&sh->clk);
    return now > sh->tw->now /* at most once a tick */ &&
           tw_collect(sh->tw, now) > 0 && sh->sleep_until != AWAKE;
}

/* Wake shard sh's sleeping worker (its lock held).  It is marked awake at
 * once: it computes its wake-up again, under the lock, before it sleeps,
 * so the starts that come before it runs need not signal again. */
static void signal_worker(struct shard *sh)
{
    sh->wakes_sent++;
    sh->sleep_until = AWAKE;
    tw_cond_signal(&sh->wake);
}

/* A time on the clock as a start takes it: its first tick at or after
 * at_ns.  Worked out before any lock: the divide's latency overlaps the
 * lock's. */
static struct when at_time(const struct tw_service *svc, uint64_t at_ns)
{
    return (struct when){at_ns, at_ns / svc->tick_ns + (at_ns % svc->tick_ns != 0), 0, true};
}

/* An interval from now, as a start or restart of t takes it: the clock
 * read before any lock (every shard's clock is CLOCK_MONOTONIC), so that
 * the lock is held for the facility's work and not for the read as well,
 * which costs about as much as the rest of a start (docs/service.md).
 * Called before anything reads t: t's line is asked for first, so that
 * its cache miss overlaps the read's wait on the clock's fence instead of
 * coming before or after it.  The interval counts from the reading, taken
 * during the call, so the timer fires no earlier than the interval after
 * the call; a shard whose cached reading is later (another thread read
 * after this one) counts from that. */
static struct when after_now(const struct tw_stimer *t, uint64_t ns)
{
    TW_PREFETCH(t);
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return (struct when){ns, 0, 0, false}; /* 0: catch_up() reads under the lock */
    return (struct when){ns, 0, tw_ns_of(ts), false};
}

/* Start t on shard sh, whose lock is held. */
TW_INLINE int start_on(struct tw_service *svc, struct shard *sh, struct tw_stimer *t,
                       const struct when *w, uint64_t *gen)
{
    if (sh->mode != MODE_RUNNING)
        return TW_ESHUTDOWN;
    if (foreign(svc, t))
        return TW_EOWNER;
    /* The facility's time is the worker's last advance, which may be long
     * ago while it sleeps, or a tick ahead of the clock (worker()).  An
     * interval is measured from now, so a facility behind is brought to
     * now first (a timer that comes due by it waits on the pull queue for
     * the worker; one ahead stays where it is: the deadline is the
     * clock's).  A time on the clock needs no reading:
     * the first tick at or after it is its deadline whatever the
     * facility's time, and a deadline at or before that time is due at
     * once.  Only a scheme with a range (wheel: MaxInterval, measured from
     * the facility's time) may refuse it from a time that is behind: then
     * the facility is brought to now and asked again.  A scheme that
     * places a timer by its interval from the facility's time (Lawn's
     * TTL queues, the coarse wheel's level) is brought to now first, so
     * that the interval is the one the caller meant. */
    bool wake = false; /* one signal at most, counted */
    tw_time_t d;
    int rc;
    if (w->at) {
        bool by_interval = sh->tw->ops->by_interval;
        if (by_interval)
            wake = catch_up(sh, 0);
        d = w->tick;
        rc = tw_start_at(sh->tw, &t->tw_node, d);
        if (rc == TW_ERANGE && !by_interval) {
            wake = catch_up(sh, 0);
            rc = tw_start_at(sh->tw, &t->tw_node, d);
        }
    } else {
        wake = catch_up(sh, w->read);
        d = tw_clock_after(&sh->clk, w->ns);
        rc = tw_start_at(sh->tw, &t->tw_node, d);
    }
    if (rc != 0) {
        if (wake)
            signal_worker(sh);
        return rc;
    }
    set_owner(t, svc->id);
    if (++t->tw_gen == 0)
        t->tw_gen = 1;
    if (gen)
        *gen = t->tw_gen;
    /* Wake the worker if it now has an earlier wake-up: a deadline before
     * its sleep tells (in a scheme that fires late the wake-up may still
     * be later: ask it then).  A deadline at or before the facility's
     * time runs at that time's tick, which a worker that collected it
     * ahead sleeps until already. */
    tw_time_t next;
    if (!wake && sh->sleep_until != AWAKE &&
        (d > sh->tw->now ? d : sh->tw->now) < sh->sleep_until &&
        tw_next_wakeup(sh->tw, &next) == 1 && next < sh->sleep_until)
        wake = true;
    if (wake)
        signal_worker(sh);
    return 0;
}

/*
 * A start locks the shard t is on.  If t is idle there (neither pending
 * nor running) and the placement picks another shard, t moves: its shard
 * field is rewritten under the old shard's lock, which is then released,
 * and the start takes the new shard's lock and checks that t is still
 * placed there (another thread may have moved it on meanwhile: then it
 * begins again).  t holds no state on either shard in between, so the
 * start takes effect, as every call does, under one lock: the new
 * shard's.  A pending or running t is started where it is.
 */
static int service_start(struct tw_service *svc, struct tw_stimer *t, uint64_t ns, bool at,
                         uint64_t *gen)
{
    struct when w;
    if (!at)
        w = after_now(t, ns); /* before the checks read t */
    int rc = check_timer(svc, t);
    if (rc)
        return rc;
    if (t->tw_sfn == NULL)
        return TW_EINVAL;
    if (at)
        w = at_time(svc, ns);
    for (;;) {
        struct shard *sh = lock_timer(svc, t);
        if (!foreign(svc, t) && sh->running != t && !tw_node_pending(&t->tw_node)) {
            /* Idle: placed on the placement's shard (asked only now: a
             * restart of a pending or running timer stays where it is),
             * under the lock of the shard it was on. */
            unsigned ix = placed_ix(svc, sh, t, &w);
            if (shard_field(t) != ix) {
                __atomic_store_n(&t->tw_sshard, (uint16_t)ix, __ATOMIC_RELEASE);
                if (sh != &svc->shard[ix - 1]) {
                    tw_lock_release(&sh->lock);
                    continue; /* lock_timer() finds it on its new shard, or wherever it went */
                }
            }
        }
        rc = start_on(svc, sh, t, &w, gen);
        tw_lock_release(&sh->lock);
        return rc;
    }
}

int tw_service_start(struct tw_service *svc, struct tw_stimer *t, uint64_t ns, uint64_t *gen)
{
    return service_start(svc, t, ns, false, gen);
}

int tw_service_start_at(struct tw_service *svc, struct tw_stimer *t, uint64_t at_ns,
                        uint64_t *gen)
{
    return service_start(svc, t, at_ns, true, gen);
}

/* The prologue of stop and stop_sync: the timer's checks, then its
 * shard locked (*sh) unless the result is an error. */
TW_INLINE int lock_to_stop(struct tw_service *svc, struct tw_stimer *t, struct shard **sh)
{
    int rc = check_timer(svc, t);
    if (rc)
        return rc;
    *sh = lock_timer(svc, t);
    if (foreign(svc, t)) {
        tw_lock_release(&(*sh)->lock);
        return TW_EOWNER;
    }
    return 0;
}

/* A pending t is on its shard for good (only an idle one moves), so the
 * lock a stop takes is the one to re-arm it under. */
TW_INLINE int service_restart(struct tw_service *svc, struct tw_stimer *t,
                              const struct when *w, uint64_t gen, uint64_t *newgen)
{
    struct shard *sh;
    int rc = lock_to_stop(svc, t, &sh);
    if (rc)
        return rc;
    if (tw_node_pending(&t->tw_node) && (gen == 0 || gen == t->tw_gen)) {
        rc = start_on(svc, sh, t, w, newgen);
        if (rc == 0)
            rc = 1;
    }
    tw_lock_release(&sh->lock);
    return rc;
}

int tw_service_restart(struct tw_service *svc, struct tw_stimer *t, uint64_t ns, uint64_t gen,
                       uint64_t *newgen)
{
    struct when w = after_now(t, ns);
    return service_restart(svc, t, &w, gen, newgen);
}

int tw_service_restart_at(struct tw_service *svc, struct tw_stimer *t, uint64_t at_ns,
                          uint64_t gen, uint64_t *newgen)
{
    if (!valid_service(svc))
        return TW_EINVAL;
    struct when w = at_time(svc, at_ns);
    return service_restart(svc, t, &w, gen, newgen);
}

int tw_service_stop(struct tw_service *svc, struct tw_stimer *t, uint64_t gen)
{
    struct shard *sh;
    int rc = lock_to_stop(svc, t, &sh);
    if (rc)
        return rc;
    if (gen == 0 || gen == t->tw_gen)
        rc = stop_locked(sh, t);
    tw_lock_release(&sh->lock);
    return rc;
}

int tw_service_stop_sync(struct tw_service *svc, struct tw_stimer *t, uint64_t gen)
{
    struct shard *sh;
    int rc = lock_to_stop(svc, t, &sh);
    if (rc)
        return rc;
    if (sh->running == t && here.shard == sh) {
        rc = TW_EDEADLK; /* its own callback: it would wait for itself */
    } else if (gen == 0 || gen == t->tw_gen || (sh->running == t && sh->running_gen == gen)) {
        /* Stop it (gen 0, or gen its current generation), then wait out
         * the run of its callback under way, however often the wait wakes
         * (a signal, a broadcast for another timer).  With a gen that run
         * only: a re-arm is a later generation, not ours.  With gen 0 the
         * worker stops an arming made while that run went on, as it ends
         * (after_run()), before it could run it again and keep this thread
         * out for good; credited with that stop, this call is done.  Not
         * credited, it stops an arming another thread made meanwhile and
         * waits for a run that began meanwhile.  While the lock is
         * released, another thread may move the idle timer to another
         * shard and start it there: not ours to stop. */
        unsigned on = shard_field(t);
        for (;;) {
            if ((gen == 0 || gen == t->tw_gen) && stop_locked(sh, t) == 1)
                rc = 1;
            if (sh->running != t)
                break;
            struct sync_wait w = {sh->syncs, sh->runs, 0};
            if (gen == 0)
                sh->syncs = &w;
            sh->waiting++;
            while (sh->running == t && sh->runs == w.run)
                tw_cond_wait(&sh->idle, &sh->lock, NULL);
            sh->waiting--;
            if (gen != 0)
                break;
            for (struct sync_wait **p = &sh->syncs; *p; p = &(*p)->next)
                if (*p == &w) {
                    *p = w.next;
                    break;
                }
            if (w.credited) {
                rc = 1;
                break;
            }
            if (shard_field(t) != on)
                break;
        }
    }
    tw_lock_release(&sh->lock);
    return rc;
}

/* ------------------------------------------------------------ introspection */

int tw_service_timer_state(struct tw_service *svc, struct tw_stimer *t, uint64_t *at_ns)
{
    struct shard *sh;
    int rc = lock_to_stop(svc, t, &sh); /* the checks and the lock of a stop */
    if (rc)
        return rc;
    int state = 0;
    if (tw_node_pending(&t->tw_node)) {
        state |= TW_STIMER_PENDING;
        if (at_ns)
            *at_ns = tick_ns_of(svc, tw_timer_deadline(&t->tw_node));
    }
    if (sh->running == t)
        state |= TW_STIMER_RUNNING;
    tw_lock_release(&sh->lock);
    return state;
}

size_t tw_service_count(struct tw_service *svc)
{
    if (!valid_service(svc))
        return 0;
    size_t n = 0;
    for (unsigned i = 0; i < svc->nshards; i++) {
        struct shard *sh = &svc->shard[i];
        tw_lock_take(&sh->lock);
        n += tw_count(sh->tw);
        tw_lock_release(&sh->lock);
    }
    return n;
}

int tw_service_stats(struct tw_service *svc, struct tw_service_stats *st)
{
    if (!valid_service(svc) || st == NULL)
        return TW_EINVAL;
    memset(st, 0, sizeof *st);
    for (unsigned i = 0; i < svc->nshards; i++) {
        struct shard *sh = &svc->shard[i];
        tw_lock_take(&sh->lock);
        st->wakeups += sh->wakeups;
        st->fired += sh->fired;
        st->wakes_sent += sh->wakes_sent;
        st->ahead += sh->ahead;
        tw_lock_release(&sh->lock);
    }
    return 0;
}
