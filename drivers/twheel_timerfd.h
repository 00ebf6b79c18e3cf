/*
 * twheel_timerfd.h -- drive a twheel facility from one Linux timerfd.
 *
 * One timerfd per facility, armed at the absolute time of the earliest
 * deadline on the facility's clock (tw_clock_timeout_ts(), slack
 * included) and re-armed only when that time changes: one
 * timerfd_settime() per change of the wake-up, however many
 * timers start and stop.  Put tw_timerfd_fd() in your epoll set; when it
 * is readable, call tw_timerfd_dispatch(); after starting or stopping
 * timers outside a callback, call tw_timerfd_sync() before you wait.  The
 * clock's cached reading is the last one taken: call tw_clock_update()
 * after each wait, before the callbacks that start timers.
 *
 * The clock must be TW_CLOCK_MONOTONIC or TW_CLOCK_BOOTTIME (a timerfd
 * needs a system clock).  Not thread-safe, as the facility.
 */
#ifndef TWHEEL_TIMERFD_H
#define TWHEEL_TIMERFD_H

#include <twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_timerfd {
    int fd;                 /* the timerfd, -1 when closed */
    struct tw *tw;
    struct tw_clock *clk;
    int armed;              /* 1: armed at armed_ns */
    uint64_t armed_ns;      /* absolute, on the clock */
    uint64_t settimes;      /* timerfd_settime() calls so far */
    void *live_;            /* private: the dispatches under way */
};

/* Create the timerfd (non-blocking, close-on-exec) for `tw` on `clk`.
 * Returns 0, TW_EINVAL (NULL, a user clock, or a clock never
 * initialised), or -errno of timerfd_create() or timerfd_settime(); on
 * error no descriptor is left open and d->fd is -1 (d not NULL). */
int tw_timerfd_open(struct tw_timerfd *d, struct tw *tw, struct tw_clock *clk);

/* The file descriptor to watch for readability. */
int tw_timerfd_fd(const struct tw_timerfd *d);

/* Re-arm the timerfd if the time of the wake-up changed
 * (disarm it when nothing is pending).  Returns 0, TW_EINVAL (NULL, or
 * closed), or -errno. */
int tw_timerfd_sync(struct tw_timerfd *d);

/* The timerfd is readable: consume it, update the clock, advance the
 * facility (running the callbacks), then sync.  Returns the number of
 * callbacks run, or a negative error: a TW_E* code (below -4095), or
 * -errno of a system call (-1 to -4095). */
int64_t tw_timerfd_dispatch(struct tw_timerfd *d);

/* timerfd_settime() calls so far. */
uint64_t tw_timerfd_settimes(const struct tw_timerfd *d);

/* Close the timerfd (the facility is the caller's).  NULL, or a second
 * call, is a no-op.  From a twheel callback, tw_timerfd_dispatch() returns
 * the callbacks run so far and touches `d` no more: it may be freed (or
 * opened again, which arms it for what is pending then; timers started
 * after that in the same advance wait for the next tw_timerfd_sync()). */
void tw_timerfd_close(struct tw_timerfd *d);

#ifdef __cplusplus
}
#endif
#endif /* TWHEEL_TIMERFD_H */
