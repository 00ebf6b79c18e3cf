/*
 * uv.c -- one uv_timer_t drives a facility (twheel_uv.h).
 */
#define _GNU_SOURCE /* uv.h needs the POSIX types (pthread_rwlock_t) */
#include "twheel_uv.h"
#include "wake.h"

#include <stdint.h>
#include <time.h>

/* libuv before 1.45 runs a timer started with timeout 0 from a timer
 * callback again in the same pass over its timers, without polling: a
 * twheel timer that keeps re-arming itself for "now" would keep I/O out
 * for good.  From 1.45 on, such a timer waits for the next iteration. */
#define TW_UV_RUNS_DUE_AGAIN(v) ((v) < 0x012d00u)

static void on_uv_timer(uv_timer_t *t);

int tw_uv_sync(struct tw_uv *d)
{
    if (d == NULL || uv_is_closing((uv_handle_t *)&d->timer))
        return TW_EINVAL;
    uint64_t at = 0, wait = 0;
    int rc = tw_wake_next(d->armed, d->armed_ns, d->clk, d->tw, 1, &at, &wait);
    if (rc == 2) {
        uv_timer_stop(&d->timer);
        d->armed = 0;
    } else if (rc == 1) {
        /* libuv counts from its loop time: bring it to the reading just
         * taken, or its timer would end early by the difference */
        uv_update_time(d->timer.loop);
        uint64_t ms = (wait + 999999) / 1000000;
        /* in a dispatch (the driver's own timer callback), not this pass */
        if (ms == 0 && d->live_ != NULL && TW_UV_RUNS_DUE_AGAIN(uv_version()))
            ms = 1;
        rc = uv_timer_start(&d->timer, on_uv_timer, ms, 0);
        if (rc != 0)
            return rc;
        d->starts++;
        d->armed = 1;
        d->armed_ns = at;
    }
    return rc < 0 ? rc : 0;
}

static void on_uv_timer(uv_timer_t *t)
{
    struct tw_uv *d = t->data;
    struct tw_drv_frame f;
    tw_drv_enter(&f, &d->live_);
    d->wakeups++;
    d->armed = 0; /* a one-shot uv timer is stopped once it went off */
    tw_advance(d->tw, tw_clock_update(d->clk));
    if (f.live)
        tw_uv_sync(d); /* still in the dispatch: a due timer waits a pass */
    (void)tw_drv_leave(&f, &d->live_);
}

int tw_uv_init(struct tw_uv *d, uv_loop_t *loop, struct tw *tw, struct tw_clock *clk)
{
    if (d == NULL || loop == NULL || tw == NULL || clk == NULL)
        return TW_EINVAL;
    int rc = tw_wake_check(clk, tw); /* before the handle: nothing to close */
    if (rc != 0)
        return rc;
    rc = uv_timer_init(loop, &d->timer);
    if (rc != 0)
        return rc;
    d->timer.data = d;
    d->tw = tw;
    d->clk = clk;
    d->armed = 0;
    d->armed_ns = 0;
    d->starts = 0;
    d->wakeups = 0;
    d->live_ = NULL;
    return tw_uv_sync(d);
}

void tw_uv_close(struct tw_uv *d, uv_close_cb cb)
{
    if (d == NULL || uv_is_closing((uv_handle_t *)&d->timer))
        return;
    tw_drv_end(&d->live_); /* from a twheel callback: no re-arm after it */
    d->armed = 0;
    uv_close((uv_handle_t *)&d->timer, cb);
}
