/*
 * hier.h -- the exact hierarchical wheel (hierarchical.c) as parts that
 * another scheme can embed: the hybrid keeps one beside its TTL queues.
 * Every function takes the wheel's state explicitly; tw->now is the time
 * the wheel is placed against, and tw->horizon is lowered by insert and set
 * by collect exactly as for a scheme of its own.
 */
#ifndef TW_HIER_H
#define TW_HIER_H

#include "../twheel_internal.h"

struct hier_state {
    struct tw_slots s;          /* levels * S slots of TW_LANES lanes */
    unsigned bits;              /* B */
    unsigned levels;            /* m */
    uint32_t S, mask;
    struct tw_mincache min;
    uint8_t shift_of_msb[64];   /* msb of (e ^ now) -> level * B */
    uint16_t base_of_msb[64];   /*   ... -> level * S, its first slot */
};

int tw_hier_validate(uint32_t slots, uint32_t levels);
int tw_hier_setup(struct tw *tw, struct hier_state *h, uint32_t slots);
void tw_hier_teardown(struct tw *tw, struct hier_state *h);
void tw_hier_collect(struct tw *tw, struct hier_state *h, tw_time_t now, struct tw_ready *out);
int tw_hier_next(struct tw *tw, struct hier_state *h, tw_time_t *out);
/* forbid: node flag bits that no timer in the wheel may carry (the
 * hybrid's "in a Lawn queue"), reported as corruption. */
int tw_hier_check(struct tw *tw, struct hier_state *h, struct tw_checker *c, uint32_t forbid);

/* Place t against reference time `ref` (< its deadline): the level of the
 * highest digit in which they differ, the slot of t's digit there.
 * Returns the tick at which its slot comes up, when collect must first
 * look at it. */
TW_INLINE tw_time_t tw_hier_place(struct hier_state *h, struct tw_timer *t, tw_time_t ref)
{
    tw_time_t e = t->tw_expires;
    unsigned msb = 63u - (unsigned)tw_clz64(e ^ ref);
    unsigned shift = h->shift_of_msb[msb];
    tw_slots_add(&h->s, h->base_of_msb[msb] + (size_t)((e >> shift) & h->mask), &t->tw_u.link,
                 TW_LANE_SHIFT);
    return (e >> shift) << shift;
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
