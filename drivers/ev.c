/*
 * ev.c -- one ev_timer drives a facility (twheel_ev.h).
 */
#define _GNU_SOURCE
#include "twheel_ev.h"

#include <stdint.h>
#include <time.h>

static void on_ev_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    struct tw_ev *d = t->data;
    d->wakeups++;
    d->armed = 0; /* a timer with no repeat is stopped once it went off */
    tw_advance(d->tw, tw_clock_update(d->clk));
    tw_ev_sync(d);
}

int tw_ev_init(struct tw_ev *d, struct ev_loop *loop, struct tw *tw, struct tw_clock *clk)
{
    if (d == NULL || loop == NULL || tw == NULL || clk == NULL)
        return TW_EINVAL;
    ev_timer_init(&d->timer, on_ev_timer, 0., 0.);
    d->timer.data = d;
    d->loop = loop;
    d->tw = tw;
    d->clk = clk;
    d->armed = 0;
    d->armed_ns = 0;
    d->starts = 0;
    d->wakeups = 0;
    return tw_ev_sync(d);
}

int tw_ev_sync(struct tw_ev *d)
{
    if (d == NULL)
        return TW_EINVAL;
    struct timespec ts;
    int rc = tw_clock_timeout_ts(d->clk, d->tw, 1, &ts);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        if (d->armed) {
            ev_timer_stop(d->loop, &d->timer);
            d->armed = 0;
        }
        return 0;
    }
    uint64_t at = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    if (d->armed && at == d->armed_ns)
        return 0;
    uint64_t now = tw_clock_now_ns(d->clk);
    double wait = at > now ? (double)(at - now) * 1e-9 : 0.;
    if (d->armed)
        ev_timer_stop(d->loop, &d->timer);
    ev_timer_set(&d->timer, wait, 0.);
    ev_timer_start(d->loop, &d->timer);
    d->starts++;
    d->armed = 1;
    d->armed_ns = at;
    return 0;
}

void tw_ev_stop(struct tw_ev *d)
{
    if (d == NULL || !d->armed)
        return;
    ev_timer_stop(d->loop, &d->timer);
    d->armed = 0;
}
