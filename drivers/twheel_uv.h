/*
 * twheel_uv.h -- drive a twheel facility from one libuv timer.
 *
 * One uv_timer_t on a uv_loop_t stands for every timer of the facility: it
 * is armed for the next wake-up (the clock layer's wait, rounded up
 * to ms, slack included) and re-armed only when that deadline moves.  A
 * libuv program can then hold a million connection timeouts at twheel's
 * 40 bytes each instead of a uv_timer_t (152 bytes with libuv's heap
 * entry) each.  After starting or stopping timers outside a twheel
 * callback, call tw_uv_sync() (e.g. from a uv_prepare_t, which runs right
 * before libuv polls).  The clock's cached reading is the last one taken,
 * possibly before the loop slept: in a callback of the loop's own (I/O, a
 * uv_timer_t of yours), call tw_clock_update() before starting timers.
 *
 * libuv measures its timers from its own cached loop time, in whole ms, so
 * its timer may go off before twheel's deadline; the callback then
 * advances nothing and re-arms for the rest: a timer never fires early.
 * libuv before 1.45 runs a timer re-armed for 0 ms from a timer callback
 * again in the same pass, without polling; with such a libuv, timers that
 * twheel callbacks leave due are run 1 ms later, after the loop polls.
 */
#ifndef TWHEEL_UV_H
#define TWHEEL_UV_H

#include <twheel.h>
#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_uv {
    uv_timer_t timer;       /* timer.data is this struct */
    struct tw *tw;
    struct tw_clock *clk;
    int armed;
    uint64_t armed_ns;      /* the wake-up time it is armed for, on clk */
    uint64_t starts;        /* uv_timer_start() calls so far */
    uint64_t wakeups;       /* times the uv timer went off */
    void *live_;            /* private: the dispatches under way */
};

/* Set up the driver's uv_timer_t on `loop` for `tw` on `clk`.  Returns 0,
 * TW_EINVAL (NULL, or a clock never initialised, checked before the
 * handle is made: nothing to close), or libuv's error. */
int tw_uv_init(struct tw_uv *d, uv_loop_t *loop, struct tw *tw, struct tw_clock *clk);

/* Re-arm (or stop) the uv timer if the wake-up moved, reading the clock
 * (tw_clock_update()) when it re-arms.  Returns 0, TW_EINVAL (NULL, or
 * closed), or libuv's error. */
int tw_uv_sync(struct tw_uv *d);

/* Close the uv timer (uv_close(); `cb` may be NULL); a second call does
 * nothing.  From a twheel callback the driver does not re-arm after it;
 * as for any libuv handle, free `d` in `cb` or after it ran.  The facility
 * is the caller's. */
void tw_uv_close(struct tw_uv *d, uv_close_cb cb);

#ifdef __cplusplus
}
#endif
#endif /* TWHEEL_UV_H */
