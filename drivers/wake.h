/*
 * wake.h -- what the three drivers share: when their one loop timer should
 * go off, and whether that moved since they armed it.
 */
#ifndef TWHEEL_DRIVERS_WAKE_H
#define TWHEEL_DRIVERS_WAKE_H

#include <twheel.h>

#include <stdint.h>
#include <time.h>

/* One dispatch of a driver (its callback's tw_advance()), on that
 * callback's stack: a stop or close from a twheel callback marks every
 * dispatch under way dead, and a dead one touches the driver no more (the
 * callback may have freed it).  The driver's live_ field points to the
 * innermost one (a callback may dispatch again, nested), NULL outside. */
struct tw_drv_frame {
    int live;
    struct tw_drv_frame *up;
};

/* Enter a dispatch: *head is the driver's live_ field. */
static inline void tw_drv_enter(struct tw_drv_frame *f, void **head)
{
    f->live = 1;
    f->up = (struct tw_drv_frame *)*head;
    *head = f;
}

/* Leave it: 1 if the driver may still be used (then live_ is restored),
 * 0 if a stop or close ended it (do not touch the driver). */
static inline int tw_drv_leave(struct tw_drv_frame *f, void **head)
{
    if (!f->live)
        return 0;
    *head = f->up;
    return 1;
}

/* A stop or close: every dispatch under way ends, and live_ is NULL (the
 * frames are left without a word to the driver). */
static inline void tw_drv_end(void **head)
{
    for (struct tw_drv_frame *f = (struct tw_drv_frame *)*head; f != NULL; f = f->up)
        f->live = 0;
    *head = NULL;
}

/* What a driver's loop timer, armed (or not) for armed_ns, absolute on
 * the facility's clock, should do now: 0 nothing (armed for the earliest
 * deadline already, or idle with nothing pending), 1 arm it for *at_ns
 * (absolute; *wait_ns from the clock's reading), 2 stop it; or a negative
 * TW_E* code.
 *
 * With `fresh`, the clock is read again before a wait is computed (only
 * when there is something to arm): a relative wait is counted by the loop
 * from its own time, which it takes after each poll, while the clock's
 * cached reading may be as old as the last wake-up (a sync from a prepare
 * hook after the loop slept, a stop from an I/O callback).  A driver that
 * arms at an absolute time needs no fresh reading. */
static inline int tw_wake_next(int armed, uint64_t armed_ns, struct tw_clock *c,
                               struct tw *tw, int fresh, uint64_t *at_ns, uint64_t *wait_ns)
{
    struct timespec ts;
    int rc = tw_clock_timeout_ts(c, tw, 1, &ts);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return armed ? 2 : 0;
    uint64_t at = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    if (armed && at == armed_ns)
        return 0; /* the wake-up has not moved */
    if (fresh)
        tw_clock_update(c);
    uint64_t now = tw_clock_now_ns(c);
    *at_ns = at;
    *wait_ns = at > now ? at - now : 0;
    return 1;
}

/* 0 if the clock and the facility can drive a loop timer, else the
 * TW_E* code that tw_wake_next() would give: asked before a driver creates
 * anything, so that a refused argument leaves nothing to close. */
static inline int tw_wake_check(struct tw_clock *c, struct tw *tw)
{
    struct timespec ts;
    int rc = tw_clock_timeout_ts(c, tw, 1, &ts);
    return rc < 0 ? rc : 0;
}

#endif /* TWHEEL_DRIVERS_WAKE_H */
