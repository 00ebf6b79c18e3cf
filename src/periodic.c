/*
 * periodic.c -- timers that fire on a fixed grid, t0 + k * period.
 *
 * A periodic timer is a plain node with a callback of its own, fired(),
 * which works out the next grid point from the deadline that fired (never
 * from "now", which would carry each expiry's lateness into the next: the
 * drift of re-arming in the callback), re-arms the node there, and only
 * then calls the user's function.  Re-arming first means the user's
 * function finds its timer pending and may stop or restart it like any
 * other, with no flag to consult afterwards.
 *
 * Grid points passed over during a stall: m = (now - due) / period of them
 * lie after the one that fired and at or before now.  BURST re-arms at the
 * next grid point, which is due, so the next tw_advance() fires it, and so
 * on until the timer catches up; SKIP re-arms at the first grid point
 * after now and reports m; DELAY reports m and, when m > 0, re-arms at
 * now + period (a late expiry that passed over no grid point stays on the
 * grid in every policy: lateness alone never moves it).
 */
#include "base.h"

#include <stddef.h>

#define PERIODIC_MAGIC 0x74706572u /* "tper" */

static int valid(const struct tw_periodic *p)
{
    return p != NULL && p->tw_magic == PERIODIC_MAGIC;
}

static void fired(struct tw *tw, struct tw_timer *t)
{
    struct tw_periodic *p = tw_container_of(t, struct tw_periodic, tw_timer);
    tw_time_t due = tw_timer_deadline(t), now = tw_now(tw), P = p->tw_period;
    uint64_t missed = now > due ? (now - due) / P : 0;
    /* The next grid point (re-based on now by DELAY after a stall), if it
     * lies at or before the end of time: the grid ends there, and the
     * timer stops after its last point (a point past TW_TIME_MAX is not
     * saturated onto it: it would fire there, or not, by lateness alone). */
    tw_time_t base = due;
    uint64_t k = 1, passed = 0; /* k periods on from base; passed: told to the callback */
    switch (p->tw_policy) {
    case TW_MISSED_SKIP:
        k = missed + 1; /* wraps to 0 only for missed = 2^64 - 1: no next point */
        passed = missed;
        break;
    case TW_MISSED_DELAY:
        if (missed > 0)
            base = now;
        passed = missed;
        break;
    case TW_MISSED_BURST:
    default:
        break;
    }
    p->tw_count = tw_sat_add(p->tw_count, tw_sat_add(passed, 1));
    /* A re-arm can fail only in a scheme that allocates on start
     * (TW_ENOMEM): the timer is then idle when its function runs, which
     * tw_periodic_pending() tells it (twheel.h). */
    if (k != 0 && k <= (TW_TIME_MAX - base) / P)
        (void)tw_start_at(tw, t, base + k * P);
    p->tw_fn(tw, p, passed);
}

int tw_periodic_init(struct tw_periodic *p, tw_periodic_fn *fn, enum tw_missed policy)
{
    if (p == NULL || fn == NULL ||
        (policy != TW_MISSED_BURST && policy != TW_MISSED_SKIP && policy != TW_MISSED_DELAY))
        return TW_EINVAL;
    tw_timer_init(&p->tw_timer, fired);
    p->tw_fn = fn;
    p->tw_period = 0;
    p->tw_count = 0;
    p->tw_policy = (uint32_t)policy;
    p->tw_magic = PERIODIC_MAGIC;
    return 0;
}

/* The checks every call on a periodic timer makes: NULL is TW_EINVAL, a
 * timer never initialised TW_ENOTINIT (as tw_start() says of a node). */
static int check_periodic(const struct tw_periodic *p)
{
    if (p == NULL)
        return TW_EINVAL;
    return valid(p) ? 0 : TW_ENOTINIT;
}

int tw_periodic_start_at(struct tw *tw, struct tw_periodic *p, tw_time_t first, tw_time_t period)
{
    if (tw == NULL || period == 0)
        return TW_EINVAL;
    int rc = check_periodic(p);
    if (rc != 0)
        return rc;
    /* A scheme with a range (wheel) must take every re-arm: the longest is
     * one period after a deadline that was due, at most the period. */
    if (period > tw_max_interval(tw))
        return TW_ERANGE;
    rc = tw_start_at(tw, &p->tw_timer, first);
    if (rc != 0)
        return rc;
    p->tw_period = period;
    p->tw_count = 0;
    return 0;
}

int tw_periodic_start(struct tw *tw, struct tw_periodic *p, tw_time_t period)
{
    if (tw == NULL)
        return TW_EINVAL;
    return tw_periodic_start_at(tw, p, tw_sat_add(tw_now(tw), period), period); /* checks */
}

int tw_periodic_stop(struct tw *tw, struct tw_periodic *p)
{
    int rc = check_periodic(p);
    if (rc != 0)
        return rc;
    return tw_stop(tw, &p->tw_timer);
}

int tw_periodic_pending(const struct tw_periodic *p)
{
    return valid(p) && tw_timer_pending(&p->tw_timer);
}

tw_time_t tw_periodic_next(const struct tw_periodic *p)
{
    return valid(p) ? tw_timer_deadline(&p->tw_timer) : 0;
}

uint64_t tw_periodic_count(const struct tw_periodic *p)
{
    return valid(p) ? p->tw_count : 0;
}
