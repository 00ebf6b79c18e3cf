/*
 * hybrid.h -- the hybrid's state (hybrid.c) and its routing policy, which
 * both hybrid.c and the start and stop leaves of facility.c apply.
 */
#ifndef TW_HYBRID_H
#define TW_HYBRID_H

#include "hier.h"
#include "lawn.h"

#define HYB_F_LAWN TW_F_SCHEME2   /* node is in a Lawn queue */
#define HYB_CANDIDATES 4096u

struct hybrid_cand {
    tw_time_t ttl;
    uint32_t count;
};

struct hybrid_state {
    struct lawn_state lawn;
    struct hier_state wheel;
    uint32_t threshold;
    bool route_lawn;            /* reserve's decision, for insert */
    tw_time_t wheel_horizon;    /* each part's own: collect only the parts */
    tw_time_t lawn_horizon;     /* that can have work; tw->horizon is the min */
    struct hybrid_cand cand[HYB_CANDIDATES];
};

#define HYB(tw) TW_STATE(tw, struct hybrid_state)

/* The candidate slot of a TTL, and what its count becomes with one more
 * start of that TTL (1 when another TTL held the slot; saturating). */
TW_INLINE struct hybrid_cand *tw_hybrid_cand(struct hybrid_state *H, tw_time_t ttl)
{
    return &H->cand[(uint32_t)((ttl * 0x9e3779b97f4a7c15ull) >> 52) % HYB_CANDIDATES];
}

TW_INLINE uint32_t tw_hybrid_count(const struct hybrid_cand *c, tw_time_t ttl)
{
    if (c->ttl != ttl)
        return 1;
    return c->count < UINT32_MAX ? c->count + 1 : c->count;
}

#endif
