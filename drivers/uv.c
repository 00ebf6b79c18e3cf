/*
 * uv.c -- one uv_timer_t drives a facility (twheel_uv.h).
 */
#define _GNU_SOURCE /* uv.h needs the POSIX types (pthread_rwlock_t) */
#include "twheel_uv.h"
#include "wake.h"

#include <stdint.h>
#include <time.h>

static void on_uv_timer(uv_timer_t *t)
{
    struct tw_uv *d = t->data;
    d->wakeups++;
    d->armed = 0; /* a one-shot uv timer is stopped once it went off */
    tw_advance(d->tw, tw_clock_update(d->clk));
    tw_uv_sync(d);
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
    return tw_uv_sync(d);
}

int tw_uv_sync(struct tw_uv *d)
{
    if (d == NULL)
        return TW_EINVAL;
    uint64_t at = 0, wait = 0;
    int rc = tw_wake_next(d->armed, d->armed_ns, d->clk, d->tw, &at, &wait);
    if (rc == 2) {
        uv_timer_stop(&d->timer);
        d->armed = 0;
    } else if (rc == 1) {
        rc = uv_timer_start(&d->timer, on_uv_timer, (wait + 999999) / 1000000, 0);
        if (rc != 0)
            return rc;
        d->starts++;
        d->armed = 1;
        d->armed_ns = at;
    }
    return rc < 0 ? rc : 0;
}

void tw_uv_close(struct tw_uv *d, uv_close_cb cb)
{
    if (d == NULL)
        return;
    d->armed = 0;
    uv_close((uv_handle_t *)&d->timer, cb);
}
