/*
 * hier.h -- the exact hierarchical wheel (hierarchical.c) as parts that
 * another scheme can embed: the hybrid keeps one beside its TTL queues.
 * Every function takes the wheel's state explicitly; tw->now is the time
 * the wheel is placed against, and tw->horizon is lowered by insert and set
 * by collect exactly as for a scheme of its own.
 */
#ifndef TW_HIER_H
#define TW_HIER_H

#include "../scheme.h"
#include "../slots.h"
#include "../mincache.h"

struct hier_state {
    struct tw_slots s;          /* levels * S slots of TW_LANES lanes */
    uint16_t bits;              /* B */
    uint16_t levels;            /* m */
    uint32_t S, mask;
    uint32_t many;              /* from this many pending timers, walk interleaved */
    struct tw_mincache min;
    /* msb of (e ^ now) -> where a deadline goes, one load for both:
     * bits 0-7 the level's shift (level * B), 32-63 the level's first slot
     * (level * S).  TW_HIER_SHIFT and TW_HIER_BASE unpack it; the digit
     * mask is `mask` (tw_hier_slot()). */
    uint64_t place_of_msb[64];
};

/* The level's shift and the level's first slot of a place_of_msb entry. */
#define TW_HIER_SHIFT(g) ((unsigned)(g) & 63u)
#define TW_HIER_BASE(g) ((size_t)((g) >> 32))

/* The table slot of deadline e against reference time ref (< e). */
TW_INLINE size_t tw_hier_slot(const struct hier_state *h, tw_time_t e, tw_time_t ref,
                              unsigned *shift)
{
    uint64_t g = h->place_of_msb[63u - (unsigned)tw_clz64(e ^ ref)];
    *shift = TW_HIER_SHIFT(g);
    /* The mask as a memory operand of the and: fewer instructions than
     * unpacking it from g (at 10^6 timers each one of a start costs about
     * as much as a cache miss overlapped with others: docs/design.md,
     * "Short paths"). */
    return TW_HIER_BASE(g) + ((size_t)(e >> *shift) & h->mask);
}

const char *tw_hier_validate(uint32_t slots, uint32_t levels);
int tw_hier_setup(struct tw *tw, struct hier_state *h, uint32_t slots, uint32_t options);
void tw_hier_teardown(struct tw *tw, struct hier_state *h);
void tw_hier_collect(struct tw *tw, struct hier_state *h, tw_time_t now, struct tw_ready *out);
int tw_hier_next(struct tw *tw, struct hier_state *h, tw_time_t *out);
/* tw_next_wakeup(): the cached earliest deadline, else the tick at which
 * the first occupied slot comes up (a level-0 slot's is its deadline),
 * from the bitmaps alone. */
int tw_hier_wakeup(struct tw *tw, struct hier_state *h, tw_time_t *out);
/* forbid: node flag bits that no timer in the wheel may carry (the
 * hybrid's "in a Lawn queue"), reported as corruption; horizon: the wheel's
 * own (tw->horizon, or the hybrid's wheel_horizon), which must be at or
 * below the tick of its first marked slot. */
int tw_hier_check(struct tw *tw, struct hier_state *h, struct tw_checker *c, uint32_t forbid,
                  tw_time_t horizon);

/* Place t, deadline e, against reference time `ref` (< e): the level of
 * the highest digit in which they differ, the slot of e's digit there, the
 * lane of t's address.  *up: the tick at which its slot comes up, when
 * collect must first look at it.  Returns true if the lane was empty (its
 * bits are set now). */
TW_INLINE bool tw_hier_link(struct hier_state *h, struct tw_timer *t, tw_time_t e, tw_time_t ref,
                            tw_time_t *up)
{
    unsigned shift;
    size_t i = tw_hier_slot(h, e, ref, &shift);
    *up = (e >> shift) << shift;
    return tw_slots_add_lane(&h->s, i, tw_lane_of(&t->tw_u.link), &t->tw_u.link, TW_LANE_SHIFT);
}

/* tw_hier_link() of t's own deadline; returns the tick its slot comes up. */
TW_INLINE tw_time_t tw_hier_place(struct hier_state *h, struct tw_timer *t, tw_time_t ref)
{
    tw_time_t up;
    (void)tw_hier_link(h, t, t->tw_expires, ref, &up);
    return up;
}

/* Start and stop, inline for the schemes that embed the wheel: these are
 * the hot paths.  Insert returns the tick at which the timer's slot comes
 * up (its own horizon). */
TW_INLINE tw_time_t tw_hier_insert(struct tw *tw, struct hier_state *h, struct tw_timer *t)
{
    tw_time_t up = tw_hier_place(h, t, tw->now);
    tw_horizon_lower(tw, up);
    tw_mincache_insert(&h->min, t->tw_expires);
    return up;
}

TW_INLINE void tw_hier_remove(struct hier_state *h, struct tw_timer *t)
{
    tw_slots_unlink(&h->s, &t->tw_u.link, TW_LANE_SHIFT);
    tw_mincache_remove(&h->min, t->tw_expires);
}

#endif
