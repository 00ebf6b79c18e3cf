/*
 * entry.h -- the skeleton of tw_start() and tw_stop(), from which the core
 * builds the entry points of every scheme that has none of its own
 * (facility.c), and a scheme with fast paths builds its own (their rare
 * cases, with the scheme's insert and remove compiled in place).
 *
 * tw_start() and tw_stop() jump to tw->start and tw->stop, which are a
 * scheme's ops->start and ops->stop or the core's.  A scheme's own are
 * leaves: one load and compare of the node's state word, a compare with
 * the facility's floors (struct tw), a link or an unlink, and a tail call
 * into the full path below for everything else (docs/design.md,
 * "Dispatch" and "Short paths").
 *
 * The full path takes the scheme as a struct tw_hooks: passed as a
 * constant to the always-inline functions here, its calls compile to
 * direct calls or inline code; built from tw's own copies of the ops
 * (the core's entry points), they are calls through those pointers.
 */
#ifndef TW_ENTRY_H
#define TW_ENTRY_H

#include "scheme.h"

#if defined(__SSE2__)
#include <emmintrin.h> /* tw_arm_node() */
#endif

struct tw_hooks {
    /* ops->reserve, or NULL: insert never fails */
    int (*reserve)(struct tw *tw, tw_time_t deadline);
    void (*insert)(struct tw *tw, struct tw_timer *t);
    void (*remove)(struct tw *tw, struct tw_timer *t);
    /* ops->floors, or NULL: floors that never move */
    void (*floors)(const struct tw *tw, tw_time_t *start, tw_time_t *stop);
    /* ops->keeps_late */
    bool keeps_late;
};

/* The scheme-private flag bits, which the fast paths ignore. */
#define TW_SCHEME_BITS (TW_F_SCHEME1 | TW_F_SCHEME2)

/* Keep the floors after anything that may have moved the time or a
 * scheme's cache: every path but the leaves, which move neither. */
TW_INLINE void tw_floors_sync(struct tw *tw, const struct tw_hooks h)
{
    if (h.floors)
        h.floors(tw, &tw->start_floor, &tw->stop_floor);
}

/* Argument checks shared by start and stop: 0 or an error. */
TW_INLINE int tw_check_args(const struct tw *tw, const struct tw_timer *t)
{
    if (TW_UNLIKELY(tw == NULL || t == NULL))
        return TW_EINVAL;
    if (TW_UNLIKELY(!tw_node_valid(t)))
        return TW_ENOTINIT;
    if (TW_UNLIKELY(tw_node_pending(t) && t->tw_owner != tw->id))
        return TW_EOWNER;
    return 0;
}

/* A node's deadline and state word as a start leaves them. */
TW_INLINE void tw_arm_node(struct tw_timer *t, tw_time_t deadline, uint64_t word)
{
    /* Adjacent (node.h): one 16-byte store where the target has one, a
     * store-queue entry fewer on the hot paths (docs/design.md, "Short
     * paths"). */
    void *at = (char *)t + offsetof(struct tw_timer, tw_expires);
#if defined(__SSE2__)
    _mm_storeu_si128((__m128i *)at, _mm_set_epi64x((long long)word, (long long)deadline));
#else
    const uint64_t v[2] = {deadline, word};
    memcpy(at, v, sizeof v);
#endif
}

/* now + interval, saturated at the end of time (never wrapping into the
 * past). */
TW_INLINE tw_time_t tw_deadline_of(const struct tw *tw, tw_time_t interval)
{
    return tw_sat_add(tw->now, interval);
}

/* A node is no longer pending: its idle state word, one fewer pending. */
TW_INLINE int tw_stopped(struct tw *tw, struct tw_timer *t)
{
    uint64_t idle = tw_node_word_of(TW_MAGIC, 0);
    memcpy(&t->tw_flags, &idle, sizeof idle);
    tw->count--;
    return 1;
}

/* Is t a node pending on this facility?  One load and compare of its state
 * word; the cases it tells apart from that, tw_stop_slow() sorts out. */
TW_INLINE bool tw_pending_here(const struct tw *tw, const struct tw_timer *t)
{
    return t != NULL &&
           (tw_node_word(t) & ~tw_node_word_of(TW_SCHEME_BITS, 0)) == tw->word_mine;
}

/* Take a pending timer of this facility out of wherever it is: a plain
 * unlink from a core list (due, ready or expired) when its deadline has
 * come, else the scheme's remove (every node, in a scheme that keeps
 * timers late). */
TW_INLINE void tw_detach(struct tw *tw, struct tw_timer *t, const struct tw_hooks h)
{
    if (t->tw_expires <= tw->now && !h.keeps_late)
        tw_list_del(&t->tw_u.link);
    else
        h.remove(tw, t);
}

/* Start at an absolute deadline, the arguments already checked. */
TW_INLINE int tw_arm(struct tw *tw, struct tw_timer *t, tw_time_t deadline,
                     const struct tw_hooks h)
{
    bool late = deadline <= tw->now;
    if (!late) {
        if (TW_UNLIKELY(deadline - tw->now > tw->max_interval))
            return TW_ERANGE;
        /* Reserve before anything moves, so that failure changes nothing. */
        if (h.reserve) {
            int rc = h.reserve(tw, deadline);
            if (TW_UNLIKELY(rc))
                return rc;
        }
    }
    if (tw_node_pending(t))
        tw_detach(tw, t, h);
    else
        tw->count++;
    tw_arm_node(t, deadline, tw->word_mine);
    if (late)
        tw_list_add_tail(&tw->due, &t->tw_u.link);
    else
        h.insert(tw, t);
    tw_floors_sync(tw, h);
    return 0;
}

/* Every case of start that the full path does not take: a NULL argument,
 * interval 0 or beyond MaxInterval, the end of time, a node not
 * initialised or pending elsewhere.  The order of the checks is the
 * documented one. */
TW_INLINE int tw_start_slow(struct tw *tw, struct tw_timer *t, tw_time_t interval,
                            const struct tw_hooks h)
{
    int rc = tw_check_args(tw, t); /* EINVAL, ENOTINIT, EOWNER: as tw_start_at */
    if (TW_UNLIKELY(rc))
        return rc;
    if (TW_UNLIKELY(interval > tw->max_interval))
        return TW_ERANGE; /* even where the deadline would saturate */
    return tw_arm(tw, t, tw_deadline_of(tw, interval), h);
}

/* The checks of the start paths: -1 for every case tw_start_slow() must
 * take (NULL, interval 0 -- it wraps -- or beyond MaxInterval, the end of
 * time, a node not initialised or pending elsewhere), else 1 if t is
 * pending here and 0 if it is idle, from one load and compare of the
 * node's state word. */
TW_INLINE int tw_start_state(const struct tw *tw, const struct tw_timer *t, tw_time_t interval)
{
    if (t == NULL || interval - 1 >= tw->max_interval || tw->now == TW_TIME_MAX)
        return -1;
    uint64_t w = tw_node_word(t) & ~tw_node_word_of(TW_SCHEME_BITS, 0);
    if (w == tw->word_mine)
        return 1;
    return w == tw_node_word_of(TW_MAGIC, 0) ? 0 : -1;
}

/*
 * The full start: a valid node, idle or pending here, an interval in
 * [1, MaxInterval], a clock before the end of time, with one load and
 * compare of the node's state word in place of the separate checks; the
 * rest goes to tw_start_slow().  `slow` is the out-of-line copy of
 * tw_start_slow() for these hooks, so that this function's own callers
 * keep no frame for it.
 */
TW_INLINE int tw_start_full(struct tw *tw, struct tw_timer *t, tw_time_t interval,
                            const struct tw_hooks h,
                            int (*slow)(struct tw *, struct tw_timer *, tw_time_t))
{
    int state = tw_start_state(tw, t, interval);
    if (TW_UNLIKELY(state < 0))
        return slow(tw, t, interval);
    tw_time_t deadline = tw_deadline_of(tw, interval);
    if (h.reserve) {
        int rc = h.reserve(tw, deadline);
        if (TW_UNLIKELY(rc))
            return rc;
    }
    if (state > 0)
        tw_detach(tw, t, h);
    else
        tw->count++;
    tw_arm_node(t, deadline, tw->word_mine);
    h.insert(tw, t);
    tw_floors_sync(tw, h);
    return 0;
}

/* The out-of-line full paths of a scheme with leaves, for its hooks:
 * prefix_start_slow() (tw_start_slow()), prefix_start_full()
 * (tw_start_full()) and prefix_stop_full() (tw_stop_full()), the targets
 * of its leaves' tail calls. */
#define TW_ENTRY_FULL_PATHS(prefix, hooks)                                                 \
    static TW_NOINLINE int prefix##_start_slow(struct tw *tw, struct tw_timer *t,          \
                                               tw_time_t interval)                         \
    {                                                                                      \
        return tw_start_slow(tw, t, interval, hooks);                                      \
    }                                                                                      \
    static TW_NOINLINE int prefix##_start_full(struct tw *tw, struct tw_timer *t,          \
                                               tw_time_t interval)                         \
    {                                                                                      \
        return tw_start_full(tw, t, interval, hooks, prefix##_start_slow);                 \
    }                                                                                      \
    static TW_NOINLINE int prefix##_stop_full(struct tw *tw, struct tw_timer *t)           \
    {                                                                                      \
        return tw_stop_full(tw, t, hooks);                                                 \
    }

/* Stop's every case: 1 if it was pending (now idle), 0 if it was idle, or
 * the error the arguments make. */
TW_INLINE int tw_stop_slow(struct tw *tw, struct tw_timer *t, const struct tw_hooks h)
{
    int rc = tw_check_args(tw, t);
    if (TW_UNLIKELY(rc))
        return rc;
    if (!tw_node_pending(t))
        return 0;
    tw_detach(tw, t, h);
    tw_floors_sync(tw, h);
    return tw_stopped(tw, t);
}

/* A node pending here, taken out with the hooks' remove; everything else
 * (NULL too: TW_EINVAL), tw_stop_slow(). */
TW_INLINE int tw_stop_full(struct tw *tw, struct tw_timer *t, const struct tw_hooks h)
{
    if (TW_UNLIKELY(!tw_pending_here(tw, t)))
        return tw_stop_slow(tw, t, h);
    tw_detach(tw, t, h);
    tw_floors_sync(tw, h);
    return tw_stopped(tw, t);
}

/* The stop leaf of a hierarchical wheel (the exact one, the no-migration
 * one): a node pending here, due after stop_floor, is one unlink, whether
 * or not it was alone in its lane (the unlink of a lone node leaves the
 * head empty, and the lane's bits are left set: slots.h, "Bits left
 * set"); everything else is `full`, the scheme's full path (a constant: a
 * direct tail call). */
TW_INLINE int tw_wheel_stop(struct tw *tw, struct tw_timer *t,
                            int (*full)(struct tw *, struct tw_timer *))
{
    if (TW_LIKELY(t != NULL && tw_node_word(t) == tw->word_mine &&
                  t->tw_expires > tw->stop_floor)) {
        tw_list_del(&t->tw_u.link);
        return tw_stopped(tw, t);
    }
    return full(tw, t);
}

#endif /* TW_ENTRY_H */
