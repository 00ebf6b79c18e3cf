/*
 * lock.h -- the timer service's shard lock and condition variables.
 *
 * Every start and stop of a service timer takes its shard's lock once, so
 * the lock's uncontended round trip is part of each call's cost: in a
 * loop on the AMD VM of docs/service.md, pthread_mutex_lock + unlock
 * costs 10 ns, one compare-and-swap + one exchange 5.5 ns.  On Linux
 * the lock is therefore a futex word, as in Drepper's "Futexes Are
 * Tricky" (the mutex whose word says free, held, or held with sleepers):
 *
 *   take       one compare-and-swap 0 -> 1; if held, spin a little
 *              while it is held with no sleepers, then mark it 2 (held,
 *              maybe sleepers) by exchange and sleep on the word until
 *              an exchange finds it free
 *   release    one exchange to 0; a futex wake only if it was 2
 *
 * and a condition variable is a sequence word: a waiter reads it and
 * counts itself (both under the lock), releases the lock and sleeps on
 * the word while it still holds that value; a signal, under the lock,
 * bumps the word and wakes a sleeper only if one is counted.  A signal
 * between the release and the sleep changes the word, so the sleep
 * returns at once: no wake-up is lost.  Waits may end spuriously (a
 * signal of the process, a broadcast): callers wait in a loop on their
 * predicate, as with pthread.  The lock's exchange and compare-and-swap
 * are release and acquire: what one holder wrote, the next one sees
 * (and ThreadSanitizer sees it too).
 *
 * Elsewhere these are pthread's mutex and condition variables
 * (CLOCK_MONOTONIC for the timed wait): off Linux, and on 32-bit Linux,
 * whose futex call takes the old 32-bit timespec where a 64-bit time_t
 * is built.  A kernel that refuses futex calls (a seccomp filter) would
 * leave the waits spinning: tw_lock_supported() lets the service refuse
 * to start there.
 */
/* Its includer defines _DEFAULT_SOURCE first, for syscall(). */
#ifndef TW_LOCK_H
#define TW_LOCK_H

#include "base.h"

#include <pthread.h>
#include <time.h>

/* The futex lock needs the kernel's <linux/futex.h>, which a libc of its
 * own (musl's musl-gcc) may not offer: then the pthread one. */
#if defined(__linux__) && defined(__LP64__) && !defined(TW_LOCK_PTHREAD) && defined(__has_include)
#if !__has_include(<linux/futex.h>)
#define TW_LOCK_PTHREAD
#endif
#endif

#if defined(__linux__) && defined(__LP64__) && !defined(TW_LOCK_PTHREAD)

#include <limits.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tw_lock {
    atomic_uint v;              /* 0 free, 1 held, 2 held and maybe slept on */
};

struct tw_cond {
    atomic_uint seq;            /* bumped by each signal */
    unsigned waiters;           /* counted under the lock */
};

static inline void tw_futex_wait(atomic_uint *w, unsigned val, const struct timespec *abs)
{
    /* WAIT_BITSET takes an absolute CLOCK_MONOTONIC time; NULL: none. */
    (void)syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, abs,
                  NULL, FUTEX_BITSET_MATCH_ANY);
}

static inline void tw_futex_wake(atomic_uint *w, int n)
{
    (void)syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n, NULL, NULL, 0);
}

static inline int tw_lock_init(struct tw_lock *l)
{
    atomic_init(&l->v, 0);
    return 0;
}

/* Does the kernel take the futex calls?  A seccomp filter that refuses
 * them would leave every wait spinning (an idle worker at 100% of a
 * core), so the service refuses to start instead.  A wake of a word no
 * one waits on: 0 where futexes work. */
static inline bool tw_lock_supported(void)
{
    atomic_uint w;
    atomic_init(&w, 0);
    return syscall(SYS_futex, (unsigned *)&w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
                   0) >= 0;
}

static inline void tw_lock_fini(struct tw_lock *l)
{
    (void)l;
}

static TW_NOINLINE void tw_lock_contended(struct tw_lock *l)
{
    /* A holder's section is short (an O(1) start or stop): spin while it
     * is held with no sleepers, in case it ends soon. */
    for (int i = 0; i < 64; i++) {
        unsigned e = atomic_load_explicit(&l->v, memory_order_relaxed);
        if (e == 2)
            break;
        if (e == 0 && atomic_compare_exchange_weak_explicit(&l->v, &e, 1, memory_order_acquire,
                                                            memory_order_relaxed))
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    while (atomic_exchange_explicit(&l->v, 2, memory_order_acquire) != 0)
        tw_futex_wait(&l->v, 2, NULL);
}

static inline void tw_lock_take(struct tw_lock *l)
{
    unsigned e = 0;
    if (TW_UNLIKELY(!atomic_compare_exchange_strong_explicit(&l->v, &e, 1, memory_order_acquire,
                                                             memory_order_relaxed)))
        tw_lock_contended(l);
}

static inline void tw_lock_release(struct tw_lock *l)
{
    if (TW_UNLIKELY(atomic_exchange_explicit(&l->v, 0, memory_order_release) == 2))
        tw_futex_wake(&l->v, 1);
}

static inline int tw_cond_init(struct tw_cond *c)
{
    atomic_init(&c->seq, 0);
    c->waiters = 0;
    return 0;
}

static inline void tw_cond_fini(struct tw_cond *c)
{
    (void)c;
}

/* With l held: release it, sleep until a signal, the absolute time `abs`
 * on CLOCK_MONOTONIC (NULL: none) or a spurious wake-up, take it again. */
static inline void tw_cond_wait(struct tw_cond *c, struct tw_lock *l, const struct timespec *abs)
{
    unsigned seq = atomic_load_explicit(&c->seq, memory_order_relaxed);
    c->waiters++;
    tw_lock_release(l);
    tw_futex_wait(&c->seq, seq, abs);
    tw_lock_take(l);
    c->waiters--;
}

/* With the lock held: wake one waiter (signal) or all (broadcast). */
static inline void tw_cond_signal(struct tw_cond *c)
{
    atomic_fetch_add_explicit(&c->seq, 1, memory_order_relaxed);
    if (c->waiters)
        tw_futex_wake(&c->seq, 1);
}

static inline void tw_cond_broadcast(struct tw_cond *c)
{
    atomic_fetch_add_explicit(&c->seq, 1, memory_order_relaxed);
    if (c->waiters)
        tw_futex_wake(&c->seq, INT_MAX);
}

#else /* pthread */

struct tw_lock {
    pthread_mutex_t m;
};

struct tw_cond {
    pthread_cond_t c;
};

static inline int tw_lock_init(struct tw_lock *l)
{
    return pthread_mutex_init(&l->m, NULL) == 0 ? 0 : -1;
}

static inline bool tw_lock_supported(void)
{
    return true;
}

static inline void tw_lock_fini(struct tw_lock *l)
{
    pthread_mutex_destroy(&l->m);
}

static inline void tw_lock_take(struct tw_lock *l)
{
    pthread_mutex_lock(&l->m);
}

static inline void tw_lock_release(struct tw_lock *l)
{
    pthread_mutex_unlock(&l->m);
}

static inline int tw_cond_init(struct tw_cond *c)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                     pthread_cond_init(&c->c, &ca) == 0
                 ? 0
                 : -1;
    pthread_condattr_destroy(&ca);
    return rc;
}

static inline void tw_cond_fini(struct tw_cond *c)
{
    pthread_cond_destroy(&c->c);
}

static inline void tw_cond_wait(struct tw_cond *c, struct tw_lock *l, const struct timespec *abs)
{
    if (abs)
        (void)pthread_cond_timedwait(&c->c, &l->m, abs);
    else
        (void)pthread_cond_wait(&c->c, &l->m);
}

static inline void tw_cond_signal(struct tw_cond *c)
{
    pthread_cond_signal(&c->c);
}

static inline void tw_cond_broadcast(struct tw_cond *c)
{
    pthread_cond_broadcast(&c->c);
}

#endif
#endif /* TW_LOCK_H */
