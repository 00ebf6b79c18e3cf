/*
 * vclock.c -- the virtual clock the peers (libev, libuv, libevent) run on.
 *
 * The peers read the real monotonic clock themselves; none has a call to be
 * handed a time.  To run the same tick-by-tick workloads as twheel without
 * waiting in real time, this file defines clock_gettime(), gettimeofday(),
 * epoll_wait() and epoll_pwait() in the twbench executable.  The peers'
 * shared libraries call them through their PLT, and a definition in the
 * executable comes first in the dynamic linker's search order, so:
 *
 *   - while vclock.on is set (a peer's run is in progress), the monotonic
 *     clocks (MONOTONIC, _RAW, _COARSE, BOOTTIME) answer VBASE_MONO seconds
 *     plus vclock.ns, and the wall clocks VBASE_REAL seconds plus vclock.ns:
 *     time stands still except when a workload advances it;
 *   - while vclock.on and vclock.stub_poll are set, epoll_wait() and
 *     epoll_pwait() return 0 events at once.  No peer watches a file
 *     descriptor here, so a real poll with timeout 0 could only return 0
 *     too: stubbing it leaves out the syscall and nothing else;
 *   - otherwise the real functions, found with dlsym(RTLD_NEXT), answer.
 *
 * Each peer adapter checks at start-up that its library really sees this
 * clock (a timer fires on the virtual tick it should, not before) and
 * refuses to run otherwise.  What the interposition changes in what is
 * measured: a clock read costs a call into this file (a few ns) instead of
 * the vDSO's clock_gettime; a poll costs a call instead of a syscall.  Both
 * real costs are measured here (vclock_read_ns(), vclock_poll_ns()) and the
 * report states them with the number of reads and polls each peer makes.
 */
#define _GNU_SOURCE

#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <unistd.h>

struct vclock vclock;

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);

static void resolve(void)
{
    if (real_clock_gettime)
        return;
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    real_epoll_wait =
        (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
    real_epoll_pwait = (int (*)(int, struct epoll_event *, int, int, const sigset_t *))dlsym(
        RTLD_NEXT, "epoll_pwait");
    if (!real_clock_gettime || !real_gettimeofday || !real_epoll_wait || !real_epoll_pwait) {
        fprintf(stderr, "twbench: dlsym(RTLD_NEXT) cannot find the libc clock functions\n");
        abort();
    }
}

void vclock_init(void)
{
    resolve();
    bench_clock_gettime = real_clock_gettime;
}

static void virtual_time(uint64_t base_s, struct timespec *ts)
{
    ts->tv_sec = (time_t)(base_s + vclock.ns / 1000000000u);
    ts->tv_nsec = (long)(vclock.ns % 1000000000u);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (vclock.on) {
        switch (id) {
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_BOOTTIME:
            vclock.reads++;
            virtual_time(VBASE_MONO, ts);
            return 0;
        case CLOCK_REALTIME:
        case CLOCK_REALTIME_COARSE:
            vclock.reads++;
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
    if (vclock.on && tz == NULL) {
        struct timespec ts;
        vclock.reads++;
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
    if (vclock.on) {
        vclock.polls++;
        if (vclock.stub_poll)
            return 0;
    }
    resolve();
    return real_epoll_wait(epfd, events, maxevents, timeout);
}

int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
                const sigset_t *sigmask)
{
    if (vclock.on) {
        vclock.polls++;
        if (vclock.stub_poll)
            return 0;
    }
    resolve();
    return real_epoll_pwait(epfd, events, maxevents, timeout, sigmask);
}

double vclock_poll_ns(void)
{
    static double cached = -1;
    if (cached >= 0)
        return cached;
    resolve();
    cached = 0;
    int fd = epoll_create1(0);
    if (fd >= 0) {
        struct epoll_event ev[8];
        const int k = 20000;
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < k; i++)
            real_epoll_wait(fd, ev, 8, 0);
        cached = (double)(bench_now_ns() - t0) / k;
        close(fd);
    }
    return cached;
}

double vclock_read_ns(void)
{
    static double cached = -1;
    if (cached >= 0)
        return cached;
    resolve();
    struct timespec ts;
    const int k = 200000;
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < k; i++)
        real_clock_gettime(CLOCK_MONOTONIC, &ts);
    cached = (double)(bench_now_ns() - t0) / k;
    return cached;
}
