/*
 * wheel.c -- Scheme 4 of Varghese & Lauck: the basic timing wheel.
 *
 * When every interval is at most MaxInterval ticks, an array of MaxInterval
 * slots indexed by time modulo MaxInterval holds each timer in the slot of
 * its deadline; the current-time pointer moves one slot per tick and expires
 * the whole slot it lands on.
 *
 *              cursor = now & (M-1)
 *                 v
 *     slot:  [0] [1] [2] [3] ... [M-1]        M = MaxInterval (power of 2)
 *             |       |
 *            t7      t2 <-> t9                 all of one slot share one deadline
 *
 *     START_TIMER            O(1)   append to slot e & (M-1)
 *     STOP_TIMER             O(1)   unlink; clear the slot's bit if emptied
 *     PER_TICK_BOOKKEEPING   O(1)   splice the slot onto the ready list
 *     next_expiry            O(M/64) bitmap scan from the cursor
 *
 * The range is (now, now + M]: a slot then never holds two deadlines, so a
 * whole slot is due or not, and expiry splices it in O(1) without looking at
 * a single node.  tw_start() refuses a longer interval with TW_ERANGE and
 * changes nothing, as the paper defines the scheme.
 *
 * Occupancy bitmap (the paper's Appendix A, in software): one bit per slot.
 * An advance visits only occupied slots between the old and the new time,
 * so a jump over many ticks costs O(occupied slots), and a jump of M or more
 * ticks expires every slot.  Within one advance, slots expire in deadline
 * order; within a slot, start order (FIFO); timers started already due
 * (on the core's list) fire before all of them.
 *
 * Memory: 16 bytes per slot plus one bit; 64 KiB for the default M = 4096.
 */
#include "../scheme.h"
#include "../slots.h"

struct wheel_state {
    struct tw_slots s;
};

static size_t wheel_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct wheel_state);
}

static int wheel_init(struct tw *tw, const struct tw_config *cfg)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    int rc = tw_slots_init(tw, &w->s, cfg->slots, 0);
    if (rc == 0)
        tw->max_interval = cfg->slots;
    return rc;
}

static void wheel_fini(struct tw *tw)
{
    tw_slots_fini(tw, &TW_STATE(tw, struct wheel_state)->s);
}

static void wheel_insert(struct tw *tw, struct tw_timer *t)
{
    struct tw_slots *s = &TW_STATE(tw, struct wheel_state)->s;
    tw_slots_add(s, (size_t)(t->tw_expires & s->mask), &t->tw_u.link, 0);
    tw_horizon_lower(tw, t->tw_expires);
}

static void wheel_remove(struct tw *tw, struct tw_timer *t)
{
    tw_slots_unlink(&TW_STATE(tw, struct wheel_state)->s, &t->tw_u.link, 0);
}

static void wheel_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_slots *s = &TW_STATE(tw, struct wheel_state)->s;
    tw_time_t gap = now - tw->now;
    size_t span = gap >= s->n ? s->n : (size_t)gap;
    size_t from = (size_t)((tw->now + 1) & s->mask);
    /* Visit occupied slots of ticks now+1 .. now+span in tick order. */
    size_t done = 0, i;
    while ((i = tw_window_next(s->bm, 0, s->n, from, span, &done)) != SIZE_MAX)
        tw_slots_take(s, i, ready, 0);
    tw->horizon = tw_slots_next_tick(s, now);
}

static int wheel_next(struct tw *tw, tw_time_t *out)
{
    struct tw_slots *s = &TW_STATE(tw, struct wheel_state)->s;
    size_t d = tw_bm_find_circular(s->bm, 0, s->n, (size_t)((tw->now + 1) & s->mask));
    if (d == s->n)
        return 0;
    *out = tw->now + 1 + d;
    return 1;
}

static int wheel_check(struct tw *tw, struct tw_checker *c)
{
    struct tw_slots *s = &TW_STATE(tw, struct wheel_state)->s;
    int rc = tw_slots_check_bits(s, c, "wheel", false);
    for (uint32_t i = 0; rc == 0 && i < s->n; i++) {
        struct tw_link *h = &s->head[i];
        for (struct tw_link *l = h->next; rc == 0 && l != h; l = l->next) {
            const struct tw_timer *t = tw_of(l);
            if (l->next->prev != l)
                return tw_fail(c, "wheel: broken link in slot %u", i);
            rc = tw_check_node(tw, c, t);
            if (rc == 0 && ((t->tw_expires & s->mask) != i || t->tw_expires - tw->now > s->n))
                rc = tw_fail(c, "wheel: deadline %llu in slot %u at now %llu",
                             (unsigned long long)t->tw_expires, i, (unsigned long long)tw->now);
            c->seen++;
        }
    }
    return rc;
}

const struct tw_ops tw_wheel_ops = {
    .order = TW_ORDER_DEADLINE,
    .default_slots = 4096,
    .validate = tw_slots_validate,
    .state_size = wheel_state_size,
    .init = wheel_init,
    .fini = wheel_fini,
    .reserve = NULL,
    .insert = wheel_insert,
    .remove = wheel_remove,
    .collect = wheel_collect,
    .next = wheel_next,
    .check = wheel_check,
};
