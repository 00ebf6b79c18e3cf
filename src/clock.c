/*
 * clock.c -- the clock layer: a system clock (or the caller's) read once per
 * loop iteration, nanoseconds to ticks and back with the rounding that keeps
 * every timer from firing early, and the poll timeouts.
 *
 * The one rule behind every function here: a time the program will wait
 * for is rounded up, the time it has reached is rounded down.  With a
 * reading r (ns) and ticks of q ns, the current tick is floor(r / q); a
 * deadline d ns after r is the tick ceil((r + d) / q), so that the tick
 * is reached, floor(t / q) >= ceil((r + d) / q), only once t >= r + d; and
 * a poll timeout rounds the wait from r up to the unit the call takes.
 * Converting the duration alone (ceil(d / q)) and adding it to floor(r / q)
 * loses the part of a tick that r is past its boundary: up to one tick
 * early, which is why deadlines go through tw_clock_after().
 */
#define _POSIX_C_SOURCE 200809L

#include "base.h"
#include "facility.h"

#include <limits.h>
#include <time.h>

/* What tw_create() makes from a NULL configuration (schemes.c). */
extern const enum tw_scheme tw_default_scheme;

#define CLOCK_MAGIC 0x74636c6bu /* "tclk" */

/* ------------------------------------------------------------ arithmetic */

/* ceil(a / q) for q >= 1, without overflow. */
static uint64_t div_up(uint64_t a, uint64_t q)
{
    return a / q + (a % q != 0);
}

/* ---------------------------------------------------------------- reading */

static int valid(const struct tw_clock *c)
{
    return c != NULL && c->tw_magic == CLOCK_MAGIC;
}

/* One reading of the clock, in ns; 0 and *ok = 0 if the system clock
 * cannot be read. */
static uint64_t read_ns(const struct tw_clock *c, int *ok)
{
    *ok = 1;
    if (c->tw_source == TW_CLOCK_USER)
        return c->tw_read(c->tw_ctx);
    clockid_t id = CLOCK_MONOTONIC;
#ifdef CLOCK_BOOTTIME
    if (c->tw_source == TW_CLOCK_BOOTTIME)
        id = CLOCK_BOOTTIME;
#endif
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) {
        *ok = 0;
        return 0;
    }
    return tw_ns_of(ts);
}

static int clock_setup(struct tw_clock *c, enum tw_clock_source source, tw_clock_read_fn *read,
                       void *ctx, uint64_t tick)
{
    if (c == NULL || tick < TW_TICK_NS_MIN || tick > TW_TICK_NS_MAX)
        return TW_EINVAL;
    struct tw_clock n = {0};
    n.tw_read = read;
    n.tw_ctx = ctx;
    n.tw_tick_ns = tick;
    n.tw_source = (uint32_t)source;
    n.tw_magic = CLOCK_MAGIC;
    int ok;
    n.tw_ns = read_ns(&n, &ok);
    if (!ok)
        return TW_EINVAL; /* a clock this system does not have */
    *c = n;
    return 0;
}

int tw_clock_init(struct tw_clock *c, enum tw_clock_source source, uint64_t tick)
{
    switch (source) {
    case TW_CLOCK_MONOTONIC:
        break;
    case TW_CLOCK_BOOTTIME:
#ifndef CLOCK_BOOTTIME
        return TW_EINVAL;
#else
        break;
#endif
    case TW_CLOCK_USER:
    default:
        return TW_EINVAL;
    }
    return clock_setup(c, source, NULL, NULL, tick);
}

int tw_clock_init_user(struct tw_clock *c, tw_clock_read_fn *read, void *ctx, uint64_t tick)
{
    if (read == NULL)
        return TW_EINVAL;
    return clock_setup(c, TW_CLOCK_USER, read, ctx, tick);
}

tw_time_t tw_clock_update(struct tw_clock *c)
{
    if (!valid(c))
        return 0;
    int ok;
    uint64_t ns = read_ns(c, &ok);
    if (!ok || ns < c->tw_ns)
        c->tw_backwards++; /* never taken: time does not go back */
    else
        c->tw_ns = ns;
    return c->tw_ns / c->tw_tick_ns;
}

tw_time_t tw_clock_observe(struct tw_clock *c, uint64_t ns)
{
    if (ns > c->tw_ns)
        c->tw_ns = ns;
    return c->tw_ns / c->tw_tick_ns;
}

tw_time_t tw_clock_now(const struct tw_clock *c)
{
    return valid(c) ? c->tw_ns / c->tw_tick_ns : 0;
}

uint64_t tw_clock_now_ns(const struct tw_clock *c)
{
    return valid(c) ? c->tw_ns : 0;
}

tw_time_t tw_clock_after(const struct tw_clock *c, uint64_t ns)
{
    if (!valid(c))
        return 0;
    uint64_t q = c->tw_tick_ns, r = c->tw_ns;
    if (ns > UINT64_MAX - r) {
        /* r + ns overflows: (r / q) + ceil((r % q + ns) / q), saturating */
        uint64_t t = r / q, rest = r % q;
        uint64_t more = ns / q + div_up(rest + ns % q, q);
        return tw_sat_add(t, more);
    }
    return div_up(r + ns, q);
}

tw_time_t tw_clock_ticks(const struct tw_clock *c, uint64_t ns)
{
    return valid(c) ? div_up(ns, c->tw_tick_ns) : 0;
}

uint64_t tw_clock_backwards(const struct tw_clock *c)
{
    return valid(c) ? c->tw_backwards : 0;
}

int tw_clock_set_slack(struct tw_clock *c, uint64_t slack_ns)
{
    if (!valid(c))
        return TW_EINVAL;
    c->tw_slack_ns = slack_ns;
    return 0;
}

/* ------------------------------------------------------------- facility */

int tw_clock_create(struct tw **out, const struct tw_config *cfg, struct tw_clock *c)
{
    if (!valid(c) || out == NULL)
        return TW_EINVAL;
    struct tw_config k;
    if (cfg == NULL)
        tw_config_init(&k, tw_default_scheme);
    else
        k = *cfg;
    /* The clock moves only if the facility is made: a call that fails
     * changes nothing. */
    struct tw_clock n = *c;
    k.start = tw_clock_update(&n);
    int rc = tw_create(out, &k);
    if (rc == 0)
        *c = n;
    return rc;
}

int tw_clock_start(struct tw_clock *c, struct tw *tw, struct tw_timer *timer, uint64_t ns)
{
    if (!valid(c))
        return TW_EINVAL;
    return tw_start_at(tw, timer, tw_clock_after(c, ns));
}

int tw_clock_periodic_start(struct tw_clock *c, struct tw *tw, struct tw_periodic *p,
                            uint64_t ns)
{
    if (!valid(c))
        return TW_EINVAL;
    return tw_periodic_start_at(tw, p, tw_clock_after(c, ns), tw_clock_ticks(c, ns));
}

/* ------------------------------------------------------------- timeouts */

/* The wake-up time in ns for the earliest deadline: 1 and *at, 0 when
 * nothing is pending or can come due on this clock, or an error.  With slack, the first multiple of the
 * slack at or after the deadline, unless that passes deadline + slack
 * (it cannot) or overflows. */
static int wake_at(const struct tw_clock *c, struct tw *tw, uint64_t *at)
{
    tw_time_t d;
    int rc = tw_next_wakeup(tw, &d);
    if (rc <= 0)
        return rc;
    /* A tick whose first nanosecond is past the last one the clock can
     * read (a clock of the caller's near 2^64 ns) never comes: nothing to
     * wait for, rather than a wait that ends at once, again and again. */
    if (d > UINT64_MAX / c->tw_tick_ns)
        return 0;
    uint64_t ns = d * c->tw_tick_ns;
    uint64_t s = c->tw_slack_ns;
    if (s > 1 && ns > c->tw_ns && ns % s != 0) {
        uint64_t up = ns + (s - ns % s);
        if (up > ns) /* no wrap */
            ns = up;
    }
    *at = ns;
    return 1;
}

int tw_clock_timeout_ms(const struct tw_clock *c, struct tw *tw)
{
    /* An error is 0, not a negative code: poll() and epoll_wait() read
     * any negative timeout as "block forever". */
    if (!valid(c) || tw == NULL)
        return 0;
    uint64_t at;
    int rc = wake_at(c, tw, &at);
    if (rc < 0)
        return 0;
    if (rc == 0)
        return -1;
    if (at <= c->tw_ns)
        return 0;
    uint64_t ms = div_up(at - c->tw_ns, UINT64_C(1000000));
    return ms > (uint64_t)INT_MAX ? INT_MAX : (int)ms;
}

int tw_clock_timeout_ts(const struct tw_clock *c, struct tw *tw, int abs, void *out)
{
    if (!valid(c) || tw == NULL || out == NULL)
        return TW_EINVAL;
    uint64_t at;
    int rc = wake_at(c, tw, &at);
    if (rc <= 0)
        return rc;
    uint64_t ns;
    if (abs)
        ns = at > 0 ? at : 1; /* {0, 0} would disarm a timerfd */
    else
        ns = at > c->tw_ns ? at - c->tw_ns : 0;
    *(struct timespec *)out = tw_timespec_of(ns);
    return 1;
}
