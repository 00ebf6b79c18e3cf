/*
 * twheel_ev.h -- drive a twheel facility from one libev ev_timer.
 *
 * One ev_timer on an ev_loop stands for every timer of the facility: armed
 * for the next wake-up (the clock layer's wait, slack included) and
 * re-armed only when that deadline moves.  After starting or stopping
 * timers outside a twheel callback, call tw_ev_sync() (e.g. from an
 * ev_prepare watcher, which runs right before libev polls).  The clock's
 * cached reading is the last one taken, possibly before the loop slept: in
 * a callback of the loop's own (I/O, an ev_timer of yours), call
 * tw_clock_update() before starting timers.
 *
 * libev measures its timer from its own cached ev_now() and fires it when
 * its (double) clock has passed; if that is before twheel's deadline, the
 * callback advances nothing and re-arms for the rest: a timer never fires
 * early.
 */
#ifndef TWHEEL_EV_H
#define TWHEEL_EV_H

#include <ev.h>
#include <twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_ev {
    ev_timer timer;         /* timer.data is this struct */
    struct ev_loop *loop;
    struct tw *tw;
    struct tw_clock *clk;
    int armed;
    uint64_t armed_ns;
    uint64_t starts;        /* ev_timer_start() calls so far */
    uint64_t wakeups;
    void *live_;            /* private: the dispatches under way */
};

/* Set up the driver on `loop` for `tw` on `clk`.  Returns 0 or TW_EINVAL
 * (NULL, or a clock never initialised); on error nothing is set up. */
int tw_ev_init(struct tw_ev *d, struct ev_loop *loop, struct tw *tw, struct tw_clock *clk);

/* Re-arm (or stop) the ev_timer if the wake-up moved, reading the clock
 * (tw_clock_update()) when it re-arms.  Returns 0, TW_EINVAL (NULL), or a
 * TW_E* code of the facility. */
int tw_ev_sync(struct tw_ev *d);

/* Stop the ev_timer until the next tw_ev_sync().  From a twheel callback
 * the driver does not re-arm after it, and touches `d` no more: it may be
 * freed.  A tw_ev_sync() later in that callback arms for what is pending
 * then; timers started after it in the same advance wait for the next
 * sync (a prepare watcher's).  The facility is the caller's. */
void tw_ev_stop(struct tw_ev *d);

#ifdef __cplusplus
}
#endif
#endif /* TWHEEL_EV_H */
