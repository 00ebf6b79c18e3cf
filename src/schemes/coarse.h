/*
 * coarse.h -- the no-migration wheel (hierarchical_coarse.c): its state and
 * the placement of a timer, shared by the scheme's insert and by the start
 * leaf in facility.c, so that both put a timer in the same lane of the same
 * slot.
 */
#ifndef TW_COARSE_H
#define TW_COARSE_H

#include "../twheel_internal.h"

#define COARSE_GSHIFT 3u        /* each level 8 times coarser */

struct coarse_state {
    struct tw_slots s;          /* levels * S slots of TW_LANES lanes */
    unsigned bits;              /* log2 S */
    unsigned levels;
    uint32_t S, mask;
    /* The level of an interval d: level_of_msb[msb(d)], one higher when
     * d > hold[that level].  Level l holds d up to hold[l] = (S-2) * 8^l - 1
     * (the top level: everything), and the levels grow by 8 while an msb
     * spans a factor of 2, so one step is enough. */
    uint8_t level_of_msb[64];
    tw_time_t hold[32];
};

TW_INLINE unsigned tw_coarse_level(const struct coarse_state *h, tw_time_t d)
{
    unsigned l = h->level_of_msb[63u - (unsigned)tw_clz64(d | 1u)];
    return l + (d > h->hold[l]);
}

/* Link t, deadline e (interval e - now, e > now), into its lane: the slot of
 * e rounded up to its level's granularity, the lane from the node's address
 * (tw_lane_of()).  A lane whose bit is set (it has timers, or had them
 * until the stop leaf emptied it) leaves the bits and the horizon as they
 * are: every timer of a slot expires at the same tick (it holds rounded
 * deadlines 1 to S granules ahead, one residue mod S), and the horizon is
 * at or below the tick of every slot whose bit is set already. */
TW_INLINE void tw_coarse_link(struct tw *tw, struct coarse_state *h, struct tw_timer *t,
                              tw_time_t e)
{
    unsigned l = tw_coarse_level(h, e - tw->now), sh = l * COARSE_GSHIFT;
    tw_time_t up = ((e - 1) >> sh) + 1; /* ceil(e / 2^sh), e > now >= 0 */
    size_t i = ((size_t)l << h->bits) + (size_t)(up & h->mask);
    size_t k = (i << TW_LANE_SHIFT) + tw_lane_of(t);
    if (!tw_lane_add(&h->s.head[k], &t->tw_u.link))
        return;
    /* Bits left set by the stop leaf (stop_lane_last() in facility.c): the
     * slot counts as occupied, the horizon is at or below its tick. */
    if (tw_slots_lane_marked(&h->s, k, TW_LANE_SHIFT))
        return;
    tw_slots_mark(&h->s, k, TW_LANE_SHIFT);
    tw_horizon_lower(tw, up > (TW_TIME_MAX >> sh) ? TW_TIME_MAX : up << sh);
}

#endif
