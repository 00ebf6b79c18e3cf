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
    int live = 1;
    d->live_ = &live;
    d->wakeups++;
    d->armed = 0; /* a timer with no repeat is stopped once it went off */
    tw_advance(d->tw, tw_clock_update(d->clk));
    if (!live)
        return; /* stopped by a callback: no re-arm, and d may be gone */
    d->live_ = NULL;
    tw_ev_sync(d);
}

int tw_ev_init(struct tw_ev *d, struct ev_loop *loop, struct tw *tw, struct tw_clock *clk)
{
    if (d == NULL || loop == NULL || tw == NULL || clk == NULL)
        return TW_EINVAL;
    int rc = tw_wake_check(clk, tw);
    if (rc != 0)
        return rc;
    ev_timer_init(&d->timer, on_ev_timer, 0., 0.);
    d->timer.data = d;
    d->loop = loop;
    d->tw = tw;
    d->clk = clk;
    d->armed = 0;
    d->armed_ns = 0;
    d->starts = 0;
    d->wakeups = 0;
    d->live_ = NULL;
    return tw_ev_sync(d);
}

int tw_ev_sync(struct tw_ev *d)
{
    if (d == NULL)
        return TW_EINVAL;
    uint64_t at = 0, wait = 0;
    int rc = tw_wake_next(d->armed, d->armed_ns, d->clk, d->tw, &at, &wait);
    if (rc == 2) {
        ev_timer_stop(d->loop, &d->timer);
        d->armed = 0;
    } else if (rc == 1) {
        if (d->armed)
            ev_timer_stop(d->loop, &d->timer);
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
    if (d->live_ != NULL) { /* from a twheel callback: no re-arm after it */
        *d->live_ = 0;
        d->live_ = NULL;
    }
    if (!d->armed)
        return;
    ev_timer_stop(d->loop, &d->timer);
    d->armed = 0;
}
