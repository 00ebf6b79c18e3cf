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
    uint8_t level_of_msb[64];   /* msb of (e ^ now) -> level */
};

int tw_hier_validate(uint32_t slots, uint32_t levels);
int tw_hier_setup(struct tw *tw, struct hier_state *h, uint32_t slots);
void tw_hier_teardown(struct tw *tw, struct hier_state *h);
/* Returns the tick at which the timer's slot comes up (its own horizon). */
tw_time_t tw_hier_insert(struct tw *tw, struct hier_state *h, struct tw_timer *t);
void tw_hier_remove(struct tw *tw, struct hier_state *h, struct tw_timer *t);
void tw_hier_collect(struct tw *tw, struct hier_state *h, tw_time_t now, struct tw_ready *out);
int tw_hier_next(struct tw *tw, struct hier_state *h, tw_time_t *out);
int tw_hier_check(struct tw *tw, struct hier_state *h, struct tw_checker *c);

#endif
