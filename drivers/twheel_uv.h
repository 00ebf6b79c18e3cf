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
 * before libuv polls).
 *
 * libuv measures its timers from its own cached loop time, in whole ms, so
 * its timer may go off before twheel's deadline; the callback then
 * advances nothing and re-arms for the rest: a timer never fires early.
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
};

/* Set up the driver's uv_timer_t on `loop` for `tw` on `clk`.  Returns 0,
 * TW_EINVAL (NULL, or a clock never initialised, checked before the
 * handle is made: nothing to close), or libuv's error. */
int tw_uv_init(struct tw_uv *d, uv_loop_t *loop, struct tw *tw, struct tw_clock *clk);

/* Re-arm (or stop) the uv timer if the wake-up moved.  Returns 0
 * or libuv's error. */
int tw_uv_sync(struct tw_uv *d);

/* Close the uv timer (uv_close(); `cb` may be NULL).  The facility is the
 * caller's. */
void tw_uv_close(struct tw_uv *d, uv_close_cb cb);

#ifdef __cplusplus
}
#endif
#endif /* TWHEEL_UV_H */
