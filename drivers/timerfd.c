/*
 * timerfd.c -- one timerfd drives a facility (twheel_timerfd.h).
 *
 * The timerfd is armed with TFD_TIMER_ABSTIME at the wake-up time the
 * clock layer computes (tw_next_wakeup(), rounded up, slack included),
 * never after the earliest deadline; the armed time is remembered, and
 * sync() calls timerfd_settime() only when it changes.  A wake-up that
 * finds nothing due (a wheel's slot that comes up first, or a timer
 * stopped since) fires nothing and re-arms for what is left.
 */
#define _GNU_SOURCE
#include "twheel_timerfd.h"
#include "wake.h"

#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int tw_timerfd_open(struct tw_timerfd *d, struct tw *tw, struct tw_clock *clk)
{
    if (d == NULL)
        return TW_EINVAL;
    d->fd = -1; /* closing a refused one closes nothing */
    d->live_ = NULL;
    if (tw == NULL || clk == NULL || clk->tw_source == TW_CLOCK_USER)
        return TW_EINVAL;
    int rc = tw_wake_check(clk, tw);
    if (rc != 0)
        return rc;
    clockid_t id = clk->tw_source == TW_CLOCK_BOOTTIME ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
    int fd = timerfd_create(id, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    d->fd = fd;
    d->tw = tw;
    d->clk = clk;
    d->armed = 0;
    d->armed_ns = 0;
    d->settimes = 0;
    rc = tw_timerfd_sync(d);
    if (rc != 0) {
        close(fd); /* nothing left open on error */
        d->fd = -1;
    }
    return rc;
}

int tw_timerfd_fd(const struct tw_timerfd *d)
{
    return d ? d->fd : -1;
}

int tw_timerfd_sync(struct tw_timerfd *d)
{
    if (d == NULL || d->fd < 0)
        return TW_EINVAL;
    uint64_t at = 0, wait = 0;
    int rc = tw_wake_next(d->armed, d->armed_ns, d->clk, d->tw, 0, &at, &wait); /* absolute */
    if (rc <= 0)
        return rc;
    struct itimerspec its = {{0, 0}, {0, 0}}; /* rc 2: disarm */
    if (rc == 1) {
        its.it_value.tv_sec = (time_t)(at / UINT64_C(1000000000));
        its.it_value.tv_nsec = (long)(at % UINT64_C(1000000000));
    }
    if (timerfd_settime(d->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        return -errno;
    d->settimes++;
    d->armed = rc == 1;
    d->armed_ns = at;
    return 0;
}

int64_t tw_timerfd_dispatch(struct tw_timerfd *d)
{
    if (d == NULL || d->fd < 0)
        return TW_EINVAL;
    uint64_t expirations;
    if (read(d->fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        return -errno;
    d->armed = 0; /* a fired timerfd is disarmed: the next sync arms it */
    struct tw_drv_frame f;
    tw_drv_enter(&f, &d->live_);
    int64_t fired = tw_advance(d->tw, tw_clock_update(d->clk));
    if (!tw_drv_leave(&f, &d->live_))
        return fired; /* closed by a callback: d may be gone */
    if (fired < 0)
        return fired;
    int rc = tw_timerfd_sync(d);
    return rc < 0 ? rc : fired;
}

uint64_t tw_timerfd_settimes(const struct tw_timerfd *d)
{
    return d ? d->settimes : 0;
}

void tw_timerfd_close(struct tw_timerfd *d)
{
    if (d == NULL || d->fd < 0)
        return;
    tw_drv_end(&d->live_); /* from a twheel callback: dispatch ends there */
    close(d->fd);
    d->fd = -1;
    d->armed = 0;
}
