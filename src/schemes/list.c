/*
 * list.c -- Scheme 1 of Varghese & Lauck: an unordered timer list.
 *
 * The paper's first scheme keeps every outstanding timer on one unordered
 * list and, on each tick, walks the whole list.  The original decrements a
 * remaining-time counter in every node; like the paper's own refinement we
 * store the absolute deadline instead and compare it with the clock, so a
 * node is written only when it is inserted, removed or expires.
 *
 *     head <-> t1 <-> t2 <-> ... <-> tn <-> head      (any order)
 *
 *     START_TIMER            O(1)   append at the tail
 *     STOP_TIMER             O(1)   unlink (doubly linked)
 *     PER_TICK_BOOKKEEPING   O(n)   every advance that reaches the earliest
 *                                   deadline walks all n timers (the others
 *                                   compare with the horizon: O(1))
 *     next_expiry            O(n)   walk for the minimum
 *
 * Because one walk serves any gap, an advance over many ticks costs the same
 * O(n) as an advance over one: the scheme is tickless for free, and useless
 * for large n.  It is here as the baseline the paper starts from, and because
 * for a handful of timers (n below ~16) nothing beats a short list.
 *
 * Order of expiry: timers due in one advance fire in list order, which is
 * start order (a re-armed timer moves to the tail).
 */
#include "../scheme.h"

struct list_state {
    struct tw_link head;
};

static size_t list_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct list_state);
}

static int list_init(struct tw *tw, const struct tw_config *cfg)
{
    (void)cfg;
    tw_list_init(&TW_STATE(tw, struct list_state)->head);
    return 0;
}

static void list_fini(struct tw *tw) { (void)tw; }

static void list_insert(struct tw *tw, struct tw_timer *t)
{
    tw_list_add_tail(&TW_STATE(tw, struct list_state)->head, &t->tw_u.link);
    tw_horizon_lower(tw, t->tw_expires);
}

static void list_remove(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    tw_list_del(&t->tw_u.link);
}

static void list_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_link *out = tw_ready_lane(ready, 0);
    struct tw_link *h = &TW_STATE(tw, struct list_state)->head;
    struct tw_link *l = h->next;
    tw_time_t min = TW_TIME_MAX;
    while (l != h) {
        struct tw_link *n = l->next;
        tw_time_t e = tw_of(l)->tw_expires;
        if (e <= now) {
            tw_list_del(l);
            tw_list_add_tail(out, l);
        } else if (e < min) {
            min = e;
        }
        l = n;
    }
    tw->horizon = min;
}

static int list_next(struct tw *tw, tw_time_t *out)
{
    struct tw_link *h = &TW_STATE(tw, struct list_state)->head;
    if (tw_list_empty(h))
        return 0;
    tw_time_t best = TW_TIME_MAX;
    for (struct tw_link *l = h->next; l != h; l = l->next)
        if (tw_of(l)->tw_expires < best)
            best = tw_of(l)->tw_expires;
    *out = best;
    return 1;
}

static int list_check(struct tw *tw, struct tw_checker *c)
{
    struct tw_link *h = &TW_STATE(tw, struct list_state)->head;
    for (struct tw_link *l = h->next; l != h; l = l->next) {
        if (l->next->prev != l)
            return tw_fail(c, "list: broken link at %p", (void *)l);
        int rc = tw_check_node(tw, c, tw_of(l));
        if (rc)
            return rc;
        c->seen++;
    }
    return 0;
}

const struct tw_ops tw_list_ops = {
    .order = TW_ORDER_EQUAL_FIFO,
    .state_size = list_state_size,
    .init = list_init,
    .fini = list_fini,
    .reserve = NULL,
    .insert = list_insert,
    .remove = list_remove,
    .collect = list_collect,
    .next = list_next,
    .check = list_check,
};
