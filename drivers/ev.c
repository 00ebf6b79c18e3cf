/*
 * ev.c -- one ev_timer drives a facility (twheel_ev.h).
 */
#define _GNU_SOURCE
#include "twheel_ev.h"
#include "wake.h"

#include <stdint.h>
#include <time.h>

static void on_ev_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    struct tw_ev *d = t->data;
    struct tw_drv_frame f;
    tw_drv_enter(&f, &d->live_);
    d->wakeups++;
    d->armed = 0; /* a timer with no repeat is stopped once it went off */
    tw_advance(d->tw, tw_clock_update(d->clk));
    if (tw_drv_leave(&f, &d->live_)) /* else stopped by a callback: d may be gone */
        tw_ev_sync(d);
}

int tw_ev_init(struct tw_ev *d, struct ev_loop *loop, struct tw *tw, struct tw_clock *clk)
{
    if (d == NULL)
        return TW_EINVAL;
    d->armed = 0; /* a stop of a refused one does nothing */
    d->live_ = NULL;
    if (loop == NULL || tw == NULL || clk == NULL)
        return TW_EINVAL;
    int rc = tw_wake_check(clk, tw);
    if (rc != 0)
        return rc;
    ev_timer_init(&d->timer, on_ev_timer, 0., 0.);
    d->timer.data = d;
    d->loop = loop;
    d->tw = tw;
    d->clk = clk;
    d->armed_ns = 0;
    d->starts = 0;
    d->wakeups = 0;
    return tw_ev_sync(d);
}

int tw_ev_sync(struct tw_ev *d)
{
    if (d == NULL)
        return TW_EINVAL;
    uint64_t at = 0, wait = 0;
    int rc = tw_wake_next(d->armed, d->armed_ns, d->clk, d->tw, 1, &at, &wait);
    if (rc == 2) {
        ev_timer_stop(d->loop, &d->timer);
        d->armed = 0;
    } else if (rc == 1) {
        if (d->armed)
            ev_timer_stop(d->loop, &d->timer);
        /* libev counts from ev_now(): bring it to the reading just taken,
         * or its timer would end early by the difference */
        ev_now_update(d->loop);
        ev_timer_set(&d->timer, (double)wait * 1e-9, 0.);
        ev_timer_start(d->loop, &d->timer);
        d->starts++;
        d->armed = 1;
        d->armed_ns = at;
    }
    return rc < 0 ? rc : 0;
}

void tw_ev_stop(struct tw_ev *d)
{
    if (d == NULL)
        return;
    tw_drv_end(&d->live_); /* from a twheel callback: no re-arm after it */
    if (!d->armed)
        return;
    ev_timer_stop(d->loop, &d->timer);
    d->armed = 0;
}
