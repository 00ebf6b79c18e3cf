/*
 * refwheel.h -- a lean hierarchical timing wheel: twbench's yardstick of
 * what an embedded wheel costs (refwheel.c explains how it works).
 *
 * Time is a 64-bit count of ticks, and stays below 2^64 - 1: there is no
 * wraparound (twbench's runs end far below it).  A timer is a 32-byte node the caller
 * embeds and initialises once with rw_timer_init(); the wheel is a struct
 * the caller places where it likes and sets up with rw_init().  Nothing is
 * allocated and no argument is checked: starting a pending timer, stopping
 * an idle one or advancing from inside a callback is the caller's bug.
 */
#ifndef TWBENCH_REFWHEEL_H
#define TWBENCH_REFWHEEL_H

#include <stddef.h>
#include <stdint.h>

#define RW_BITS 6                   /* bits of time per level: a digit */
#define RW_SLOTS (1u << RW_BITS)    /* 64 slots per level */
#define RW_LEVELS 11                /* 11 digits of 6 bits cover 64-bit time */

struct rw_wheel;

struct rw_timer {
    struct rw_timer *next, *prev;   /* circular slot list; next NULL: idle */
    uint64_t deadline;              /* absolute tick */
    void (*cb)(struct rw_wheel *, struct rw_timer *);
};

_Static_assert(sizeof(void *) != 8 || sizeof(struct rw_timer) == 32,
               "the node is 32 bytes on LP64");

struct rw_wheel {
    uint64_t now;                   /* the last tick advanced to */
    uint64_t occ[RW_LEVELS];        /* bit s of occ[l]: slot s of level l may
                                     * hold timers; clear: it holds none */
    struct rw_timer due;            /* sentinel: the timers an advance fires */
    struct rw_timer slot[RW_LEVELS][RW_SLOTS]; /* sentinels of the slots */
};

/* Set the wheel up, empty, at tick `now`. */
void rw_init(struct rw_wheel *w, uint64_t now);

/* Make a node idle, with the callback its expiry runs. */
static inline void rw_timer_init(struct rw_timer *t,
                                 void (*cb)(struct rw_wheel *, struct rw_timer *))
{
    t->next = t->prev = NULL;
    t->cb = cb;
}

/* Is the timer pending (started, neither stopped nor fired)? */
static inline int rw_pending(const struct rw_timer *t)
{
    return t->next != NULL;
}

/* Start an idle timer with an absolute deadline; one at or before now
 * fires at the next advance.  O(1). */
void rw_start(struct rw_wheel *w, struct rw_timer *t, uint64_t deadline);

/* Stop a pending timer.  O(1): an unlink. */
void rw_stop(struct rw_timer *t);

/* Move time to `now` (later than the wheel's, by any amount) and run the
 * callback of every timer whose deadline is at or before it, each once,
 * with the wheel's time already `now`.  A callback may start or stop any
 * timer, the firing one included.  Returns how many fired. */
uint64_t rw_advance(struct rw_wheel *w, uint64_t now);

/* The earliest deadline pending, exact (it walks the one slot that holds
 * it): 1 and *deadline, or 0 if no timer is pending.  Not from a callback
 * (the timers still to fire in that advance are not looked at). */
int rw_next_deadline(struct rw_wheel *w, uint64_t *deadline);

#endif /* TWBENCH_REFWHEEL_H */
