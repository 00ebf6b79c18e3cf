/*
 * hashed.c -- Scheme 6 of Varghese & Lauck: a hashed timing wheel with
 * unsorted slot lists.
 *
 * A table of M slots (a power of two) is indexed by the low bits of a timer's
 * absolute deadline; each slot holds an unsorted list.  The current-time
 * pointer visits one slot per tick and expires the timers of that slot whose
 * deadline has come; the others belong to later revolutions and stay.
 *
 *     slot = deadline & (M-1)
 *
 *      [0]   [1]   [2]  ...  [now&(M-1)]  ...  [M-1]
 *       |           |             |
 *      e=4096      e=2         e=8195 <-> e=3 ...   (unsorted; mixed rounds)
 *
 *     level  slots  granularity  one revolution  range
 *       0      M      1 tick        M ticks      all 64 bits (a slot holds
 *                                                every revolution, unsorted)
 *     (default M = 4096)
 *
 *     START_TIMER            O(1)        append to the slot's tail
 *     STOP_TIMER             O(1)        unlink; clear the bit if emptied
 *     PER_TICK_BOOKKEEPING   O(n/M) avg  walk one slot's list
 *     next_expiry            O(1) cached; O(n) worst case to refresh
 *
 * Stored per timer: the absolute deadline, not a count of remaining
 * revolutions (the paper offers both).  A rounds counter must be decremented
 * in every node of the slot at each visit, a write to every node, which
 * dirties n/M cache lines per tick; comparing an absolute deadline only
 * reads them, and is what every other scheme here stores anyway, so a timer
 * can move between schemes and the facility's due test (deadline <= now)
 * means the same everywhere.  No interval is out of range.  Measured with a
 * counter in the deadline's place (twbench expire, four alternating pairs,
 * docs/schemes/hashed.md): 15% slower at n = 10^5 (218 against 251 ns per
 * timer), no clear difference at 10^6, where the walk waits on each node's
 * miss either way.  A counter also counts visits, so it cannot survive a
 * tickless skip: an advance that passes a slot without visiting it, or
 * visits it once for several revolutions, would have to know how many
 * revolutions each slot missed.  The deadline needs nothing of the kind.
 *
 * The occupancy bitmap (Appendix A in software) lets an advance skip empty
 * slots: a jump of g ticks visits the occupied slots among min(g, M), so a
 * jump of M or more walks every list once, O(n), and expires what is due.
 *
 * next_expiry must be exact, and an unsorted slot does not know its
 * minimum.  The earliest deadline is found by visiting occupied slots from
 * the cursor on and stopping at the first slot holding a timer due in this
 * revolution (that is then the minimum), slots walked in batches of 1, 2,
 * 4, then 8 together so that
 * their misses overlap, and then on, at most as far again, until the 64
 * earliest are known.  The walk keeps the 64 earliest deadlines it saw
 * (struct tw_mincache), which stay exact through inserts, removals and
 * advances, so an event loop pays for a walk once per 64 earliest timers
 * consumed (or as many as the walk saw, if fewer), not per call.  That is the cost of unsorted slots, the trade
 * the paper makes for O(1) start: at 10^6 timers all far out, stopping the
 * earliest and asking next_expiry costs 0.44 ms amortised (one walk of
 * every timer, 28 ms, per 64), against 0.6 us for the heap.
 *
 * Within one advance timers fire slot by slot in tick order, and within a
 * slot in start order, so a one-tick advance is FIFO.
 */
#include "../scheme.h"
#include "../slots.h"
#include "../mincache.h"

struct hashed_state {
    struct tw_slots s;
    struct tw_mincache min;
};

static size_t hashed_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct hashed_state);
}

static int hashed_init(struct tw *tw, const struct tw_config *cfg)
{
    return tw_slots_init(tw, &TW_STATE(tw, struct hashed_state)->s, cfg->slots, 0);
}

static void hashed_fini(struct tw *tw)
{
    tw_slots_fini(tw, &TW_STATE(tw, struct hashed_state)->s);
}

static void hashed_insert(struct tw *tw, struct tw_timer *t)
{
    struct hashed_state *h = TW_STATE(tw, struct hashed_state);
    tw_slots_add(&h->s, (size_t)(t->tw_expires & h->s.mask), &t->tw_u.link, 0);
    tw_horizon_lower(tw, t->tw_expires);
    tw_mincache_insert(&h->min, t->tw_expires);
}

static void hashed_remove(struct tw *tw, struct tw_timer *t)
{
    struct hashed_state *h = TW_STATE(tw, struct hashed_state);
    tw_slots_unlink(&h->s, &t->tw_u.link, 0);
    tw_mincache_remove(&h->min, t->tw_expires);
}

/* Move the due timers of slot i to out. */
static void take_due(struct tw_slots *s, size_t i, tw_time_t now, struct tw_link *out)
{
    struct tw_link *head = &s->head[i], *l = head->next;
    while (l != head) {
        struct tw_link *n = l->next;
        if (tw_of(l)->tw_expires <= now) {
            tw_list_del(l);
            tw_list_add_tail(out, l);
        }
        l = n;
    }
    if (tw_list_empty(head))
        tw_bm_clear(s->bm, i);
}

static void hashed_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_link *out = tw_ready_lane(ready, 0);
    struct hashed_state *h = TW_STATE(tw, struct hashed_state);
    struct tw_slots *s = &h->s;
    tw_time_t gap = now - tw->now;
    size_t span = gap >= s->n ? s->n : (size_t)gap;
    size_t from = (size_t)((tw->now + 1) & s->mask);
    size_t done = 0, i;
    while ((i = tw_window_next(s->bm, 0, s->n, from, span, &done)) != SIZE_MAX)
        take_due(s, i, now, out);
    tw_mincache_expire(&h->min, now);
    /* Both are lower bounds of the earliest deadline: take the later. */
    tw->horizon = tw_slots_next_tick(s, now);
    if (tw_mincache_known(&h->min) && h->min.v[0] > tw->horizon)
        tw->horizon = h->min.v[0];
}

static int hashed_next(struct tw *tw, tw_time_t *out)
{
    struct hashed_state *h = TW_STATE(tw, struct hashed_state);
    struct tw_slots *s = &h->s;
    struct tw_mincache *mc = &h->min;
    if (tw_mincache_known(mc)) {
        *out = mc->v[0];
        return 1;
    }
    /* Slots in tick order from now + 1; a timer in a slot is due no
     * earlier than the slot's tick in this round, so the walk can stop at
     * the first slot whose tick is not before the earliest deadline seen,
     * keeping the deadlines seen up to that tick.  The slots are walked in
     * batches of 1, 2, 4, then 8 together (tw_lists_offer), so that a long
     * walk keeps 8 misses in flight while a near answer still stops after
     * one slot. */
    size_t from = (size_t)((tw->now + 1) & s->mask);
    size_t done = 0, i, visited = 0, budget = SIZE_MAX;
    struct tw_link *heads[TW_LANES];
    unsigned k = 0, batch = 1;
    for (;;) {
        i = tw_window_next(s->bm, 0, s->n, from, s->n, &done);
        tw_time_t tick = i == SIZE_MAX ? TW_TIME_MAX : tw->now + done; /* slot i, this round */
        if (k > 0 && (k == batch || i == SIZE_MAX)) {
            tw_lists_offer(heads, k, mc);
            k = 0;
            if (batch < TW_LANES)
                batch *= 2;
            /* Once the earliest is known, what the cache keeps is what is
             * below the next unvisited tick: walk on (at most as many
             * slots again) until that is all of it, so that the next walk
             * is 64 departures away, not one. */
            if (budget == SIZE_MAX && tw_mincache_known(mc) && mc->v[0] <= tick)
                budget = visited;
            if (budget != SIZE_MAX &&
                ((mc->m == TW_MINCACHE_CAP && mc->max <= tick) || visited >= 2 * budget)) {
                tw_mincache_clip(mc, tick); /* the unvisited are >= tick */
                break;
            }
        }
        if (i == SIZE_MAX)
            break;
        heads[k++] = &s->head[i];
        visited++;
    }
    if (!tw_mincache_known(mc))
        return 0;
    *out = mc->v[0];
    return 1;
}

static int hashed_check(struct tw *tw, struct tw_checker *c)
{
    struct hashed_state *h = TW_STATE(tw, struct hashed_state);
    struct tw_slots *s = &h->s;
    int rc = tw_slots_check_bits(s, c, "hashed", false);
    struct tw_mincache_audit audit = {0, 0, false};
    for (uint32_t i = 0; rc == 0 && i < s->n; i++) {
        struct tw_link *head = &s->head[i];
        for (struct tw_link *l = head->next; rc == 0 && l != head; l = l->next) {
            const struct tw_timer *t = tw_of(l);
            if (l->next->prev != l)
                return tw_fail(c, "hashed: broken link in slot %u", i);
            rc = tw_check_node(tw, c, t);
            if (rc == 0 && (t->tw_expires & s->mask) != i)
                rc = tw_fail(c, "hashed: deadline %llu in slot %u",
                             (unsigned long long)t->tw_expires, i);
            tw_mincache_see(&h->min, &audit, t->tw_expires);
            c->seen++;
        }
    }
    if (rc == 0)
        rc = tw_mincache_end(&h->min, &audit, c, "hashed");
    return rc;
}

const struct tw_ops tw_hashed_ops = {
    .order = TW_ORDER_EQUAL_FIFO,
    .default_slots = 4096,
    .validate = tw_slots_validate,
    .state_size = hashed_state_size,
    .init = hashed_init,
    .fini = hashed_fini,
    .reserve = NULL,
    .insert = hashed_insert,
    .remove = hashed_remove,
    .collect = hashed_collect,
    .next = hashed_next,
    .check = hashed_check,
};
