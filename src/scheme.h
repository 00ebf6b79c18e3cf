/*
 * scheme.h -- the interface between the facility core and a scheme.
 *
 * The core (facility.c) owns the contract: argument checks, the due list of
 * timers whose deadline is not after the facility's time, the ready list that
 * makes callbacks safe, the pull queue, counting and re-entrancy.  A scheme
 * only keeps timers whose deadline is strictly after tw->now, and is reached
 * through one const struct tw_ops.  That split gives every scheme the same
 * answer to "where is this pending timer?":
 *
 *     deadline >  tw->now   in the scheme        -> ops->remove()
 *     deadline <= tw->now   on a plain list       -> unlink
 *                           (due, ready or expired queue)
 *
 * so the node needs no state beyond "pending", and stop is O(1) wherever the
 * timer is.  (A scheme that fires late, ops->keeps_late, may still hold a
 * timer whose deadline has passed; its remove() accepts any node.)
 */
#ifndef TW_SCHEME_H
#define TW_SCHEME_H

#include "check.h"
#include "facility.h"

/* The order in which the timers of one advance fire, as a scheme promises
 * it (twheel.h, tw_collect()): timers already due when started come first
 * in every scheme; then */
enum tw_order {
    TW_ORDER_NONE = 0,   /* no order */
    TW_ORDER_EQUAL_FIFO, /* equal deadlines in start order */
    TW_ORDER_DEADLINE,   /* deadline order, equal deadlines in start order */
};

/* One scheme.  Its name and enum value come from TW_SCHEME_MAP (twheel.h);
 * the rest, traits and hooks, is here. */
struct tw_ops {
    /* tw_config_init()'s slots for this scheme; 0 where it has none. */
    uint32_t default_slots;
    /* True when the scheme may keep a timer past its deadline (it fires
     * late, never early): then remove() is called for every pending timer,
     * wherever it is, and must cope with one on a core list. */
    bool keeps_late;
    /* True when where a timer goes depends on its interval from the
     * facility's time, not on its deadline alone (Lawn's TTL queues, the
     * coarse wheel's level and so its rounding): a caller that starts
     * timers at times on a clock while the facility's time lags
     * (tw_service_start_at() on a sleeping shard) brings it to the
     * clock's time first. */
    bool by_interval;
    /* With keeps_late: the last tick by which a timer started at start_now
     * with this deadline fires, in a facility of this configuration (the
     * bound twheel.h documents; the tests hold the scheme to it).  NULL for
     * a scheme that fires at the deadline. */
    tw_time_t (*latest_fire)(const struct tw_config *cfg, tw_time_t start_now,
                             tw_time_t deadline);
    /* The callback order it promises. */
    enum tw_order order;
    /* NULL for a configuration the scheme accepts, else why not: a static
     * sentence naming the field and the rule, which tw_config_check()
     * hands out with TW_ECONFIG (as given: tw_create applies no defaults;
     * tw_config_init does).  NULL when there is nothing to check. */
    const char *(*validate)(const struct tw_config *cfg);
    /* The TW_OPT_ bits the scheme takes; any other is TW_ECONFIG. */
    uint32_t options;
    /* Bytes of scheme state that follow struct tw (fixed part). */
    size_t (*state_size)(const struct tw_config *cfg);
    /* Initialise the state; may allocate (then TW_ENOMEM). */
    int (*init)(struct tw *tw, const struct tw_config *cfg);
    /* Release what init and growth allocated.  The scheme is empty. */
    void (*fini)(struct tw *tw);
    /* Make room so that inserting a timer with this deadline (> tw->now)
     * cannot fail (NULL: insert never fails).  Called before the timer, if
     * pending, is taken out, so room for one more is what it must make. */
    int (*reserve)(struct tw *tw, tw_time_t deadline);
    /* Insert a timer with t->tw_expires > tw->now, and lower tw->horizon
     * to the tick at which collect will have work for it, at the latest
     * (tw_horizon_lower()).  Never fails after a successful reserve. */
    void (*insert)(struct tw *tw, struct tw_timer *t);
    /* Remove a timer this scheme holds.  The core rewrites the node's
     * flags and owner afterwards, so the scheme's flag bits need no
     * clearing here. */
    void (*remove)(struct tw *tw, struct tw_timer *t);
    /* Move every timer with deadline <= now (now > tw->now) to the tails of
     * out's lanes, linked through tw_u.link, and make the scheme ready for
     * tw->now == now.  Touches no timer it does not have to.  Sets
     * tw->horizon: the core skips collect while now < horizon, so it must
     * be no later than the first tick at which collect would find work
     * (a timer due, or a slot to migrate); insert lowers it likewise.
     * A scheme with floors also sets tw->now to now and then its floors
     * (floors()): the core does not call floors() after a collect. */
    void (*collect)(struct tw *tw, tw_time_t now, struct tw_ready *out);
    /* Earliest deadline held: 1 and *out, or 0 when empty.  May update
     * caches, never moves timers. */
    int (*next)(struct tw *tw, tw_time_t *out);
    /* tw_next_wakeup(): a tick at or before the earliest deadline held,
     * after tw->now, at which collect has work; 1 and *out, or 0 when
     * empty.  NULL: next() answers. */
    int (*wakeup)(struct tw *tw, tw_time_t *out);
    /* Verify placement of every held timer, counting them into c. */
    int (*check)(struct tw *tw, struct tw_checker *c);
    /* The scheme's own entry points, or NULL for the core's (entry.h):
     * tw_start() and tw_stop() jump to them with tw not NULL and every
     * other argument unchecked. */
    int (*start)(struct tw *tw, struct tw_timer *t, tw_time_t interval);
    int (*stop)(struct tw *tw, struct tw_timer *t);
    /* The floors of the scheme's leaves as its state and tw->now make
     * them (struct tw), or NULL for none (both TW_TIME_MAX).  Each floor
     * is TW_TIME_MAX or max(now, b) for a bound b of the scheme's state,
     * and start is TW_TIME_MAX or equal to stop: so a floor that an
     * advance with nothing to collect passes becomes the new now, which
     * tw_advance() sets without calling this. */
    void (*floors)(const struct tw *tw, tw_time_t *start, tw_time_t *stop);
    /* tw_ttl_hint(), for the schemes that group timers by TTL (NULL:
     * TW_EINVAL). */
    int (*hint)(struct tw *tw, tw_time_t ttl, int hint);
};

/* Every scheme's ops and name, by enum tw_scheme (schemes.c, from
 * TW_SCHEME_MAP). */
extern const struct tw_ops *const tw_schemes[TW_SCHEME_COUNT];
extern const char *const tw_scheme_names[TW_SCHEME_COUNT];
extern const enum tw_scheme tw_default_scheme;

/* Common checks on a node the scheme holds: valid, pending, owned, after now
 * (unless the scheme keeps late timers). */
int tw_check_node(struct tw *tw, struct tw_checker *c, const struct tw_timer *t);

#endif /* TW_SCHEME_H */
