/*
 * hashed_sorted.c -- Scheme 5 of Varghese & Lauck: a hashed timing wheel
 * whose slots hold sorted lists.
 *
 * As in Scheme 6, a table of M slots (a power of two) is indexed by the low
 * bits of the absolute deadline; here each slot's list is kept sorted by
 * deadline, so the per-tick visit of a slot looks only at its head.
 *
 *     slot = deadline & (M-1)
 *
 *      [i] -> e=i <-> e=i+M <-> e=i+3M     sorted: the head is due first
 *
 *     level  slots  granularity  one revolution  range
 *       0      M      1 tick        M ticks      all 64 bits (a slot holds
 *                                                every revolution, sorted)
 *     (default M = 4096)
 *
 *     START_TIMER            O(1) avg, O(n) worst   sorted insert, from the rear
 *     STOP_TIMER             O(1)                   unlink
 *     PER_TICK_BOOKKEEPING   O(1)                   compare one head
 *     next_expiry            O(M/64 + occupied)     bitmap scan, heads only
 *
 * With a good spread of deadlines over the slots a list holds n/M timers and
 * the sorted insert is short; it degrades to Scheme 2 when deadlines collide
 * modulo M (all timers a multiple of M apart), which is the paper's warning.
 * The insert searches from the rear: timers started later usually expire
 * later, so the place is near the tail; equal deadlines stay FIFO.
 *
 * next_expiry is exact without looking past list heads: going round the
 * slots from the cursor, the first slot whose head is due in this revolution
 * holds the minimum; if none is, the minimum of the heads is.
 *
 * Occupancy bitmap and tickless jumps as in Scheme 6.  Within one advance
 * timers fire slot by slot in tick order, each slot in deadline order and
 * FIFO among equal deadlines.
 */
#include "../scheme.h"
#include "../slots.h"

struct hsorted_state {
    struct tw_slots s;
};

static size_t hsorted_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct hsorted_state);
}

static int hsorted_init(struct tw *tw, const struct tw_config *cfg)
{
    return tw_slots_init(tw, &TW_STATE(tw, struct hsorted_state)->s, cfg->slots, 0);
}

static void hsorted_fini(struct tw *tw)
{
    tw_slots_fini(tw, &TW_STATE(tw, struct hsorted_state)->s);
}

static void hsorted_insert(struct tw *tw, struct tw_timer *t)
{
    struct tw_slots *s = &TW_STATE(tw, struct hsorted_state)->s;
    size_t i = (size_t)(t->tw_expires & s->mask);
    struct tw_link *head = &s->head[i], *p = head->prev;
    while (p != head && tw_of(p)->tw_expires > t->tw_expires)
        p = p->prev;
    tw_list_add_after(p, &t->tw_u.link);
    tw_bm_set(s->bm, i);
    tw_horizon_lower(tw, t->tw_expires);
}

static void hsorted_remove(struct tw *tw, struct tw_timer *t)
{
    tw_slots_unlink(&TW_STATE(tw, struct hsorted_state)->s, &t->tw_u.link, 0);
}

static void hsorted_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_link *out = tw_ready_lane(ready, 0);
    struct tw_slots *s = &TW_STATE(tw, struct hsorted_state)->s;
    tw_time_t gap = now - tw->now;
    size_t span = gap >= s->n ? s->n : (size_t)gap;
    size_t from = (size_t)((tw->now + 1) & s->mask);
    size_t done = 0, i;
    while ((i = tw_window_next(s->bm, 0, s->n, from, span, &done)) != SIZE_MAX) {
        struct tw_link *head = &s->head[i], *l = head->next;
        while (l != head && tw_of(l)->tw_expires <= now) {
            struct tw_link *n = l->next;
            tw_list_del(l);
            tw_list_add_tail(out, l);
            l = n;
        }
        if (tw_list_empty(head))
            tw_bm_clear(s->bm, i);
    }
    tw->horizon = tw_slots_next_tick(s, now);
}

static int hsorted_next(struct tw *tw, tw_time_t *out)
{
    struct tw_slots *s = &TW_STATE(tw, struct hsorted_state)->s;
    tw_time_t best = TW_TIME_MAX;
    bool any = false;
    size_t from = (size_t)((tw->now + 1) & s->mask);
    size_t done = 0, i;
    while ((i = tw_window_next(s->bm, 0, s->n, from, s->n, &done)) != SIZE_MAX) {
        tw_time_t e = tw_of(s->head[i].next)->tw_expires;
        if (e < best)
            best = e;
        any = true;
        if (e == tw->now + done) /* due in this revolution: the minimum */
            break;
    }
    if (any)
        *out = best;
    return any;
}

static int hsorted_check(struct tw *tw, struct tw_checker *c)
{
    struct tw_slots *s = &TW_STATE(tw, struct hsorted_state)->s;
    int rc = tw_slots_check_bits(s, c, "hashed_sorted", false);
    for (uint32_t i = 0; rc == 0 && i < s->n; i++) {
        struct tw_link *head = &s->head[i];
        tw_time_t last = 0;
        for (struct tw_link *l = head->next; rc == 0 && l != head; l = l->next) {
            const struct tw_timer *t = tw_of(l);
            if (l->next->prev != l)
                return tw_fail(c, "hashed_sorted: broken link in slot %u", i);
            rc = tw_check_node(tw, c, t);
            if (rc == 0 && (t->tw_expires & s->mask) != i)
                rc = tw_fail(c, "hashed_sorted: deadline %llu in slot %u",
                             (unsigned long long)t->tw_expires, i);
            if (rc == 0 && t->tw_expires < last)
                rc = tw_fail(c, "hashed_sorted: slot %u out of order", i);
            last = t->tw_expires;
            c->seen++;
        }
    }
    return rc;
}

const struct tw_ops tw_hashed_sorted_ops = {
    .order = TW_ORDER_EQUAL_FIFO,
    .default_slots = 4096,
    .validate = tw_slots_validate,
    .state_size = hsorted_state_size,
    .init = hsorted_init,
    .fini = hsorted_fini,
    .reserve = NULL,
    .insert = hsorted_insert,
    .remove = hsorted_remove,
    .collect = hsorted_collect,
    .next = hsorted_next,
    .check = hsorted_check,
};
