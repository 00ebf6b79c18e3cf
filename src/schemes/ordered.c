/*
 * ordered.c -- Scheme 2 of Varghese & Lauck: an ordered timer list.
 *
 * Timers sit on one doubly linked list sorted by absolute deadline, earliest
 * at the head; this is the old BSD callout list (calltodo) that the paper's
 * section VII replaces, except that calltodo kept each entry's time as a
 * difference from the one before it, and this list keeps absolute
 * deadlines (an insert compares, with no sum to carry).  Per-tick work
 * looks only at the head.
 *
 *     head <-> [5] <-> [9] <-> [9] <-> [40] <-> head
 *              ^ next to expire           ^ searched first on insert
 *
 *     START_TIMER            O(n)   search for the place
 *     STOP_TIMER             O(1)   unlink
 *     PER_TICK_BOOKKEEPING   O(1)   compare the head with now
 *     EXPIRY_PROCESSING      O(1)   per expired timer
 *     next_expiry            O(1)   the head
 *
 * Insertion searches from the rear, as the paper suggests: when intervals are
 * similar (one TTL, retransmission timers) a new timer belongs at or near the
 * tail, so the search is short in the common case and O(n) only when a
 * short timer joins many long ones.
 *
 * Equal deadlines are FIFO: a new timer goes after every timer with the same
 * deadline, so timers due together fire in the order they were started.
 *
 * TW_OPT_ORDERED_FRONT searches from the head instead, as 4.3BSD's
 * timeout() did; that is the O(n) start the paper's Fig. 9 measured, and
 * twbench's fig9 workload reproduces it with this option.
 */
#include "../scheme.h"

struct ordered_state {
    struct tw_link head;
    bool front;                 /* TW_OPT_ORDERED_FRONT: search from the head */
};

static size_t ordered_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct ordered_state);
}

static int ordered_init(struct tw *tw, const struct tw_config *cfg)
{
    struct ordered_state *o = TW_STATE(tw, struct ordered_state);
    tw_list_init(&o->head);
    o->front = (cfg->options & TW_OPT_ORDERED_FRONT) != 0;
    return 0;
}

static void ordered_fini(struct tw *tw) { (void)tw; }

static void ordered_insert(struct tw *tw, struct tw_timer *t)
{
    struct ordered_state *o = TW_STATE(tw, struct ordered_state);
    struct tw_link *h = &o->head, *p;
    tw_time_t e = t->tw_expires;
    if (o->front) {
        /* BSD's timeout(): walk from the head past every timer due no later */
        p = h->next;
        while (p != h && tw_of(p)->tw_expires <= e)
            p = p->next;
        p = p->prev;
    } else {
        p = h->prev;
        while (p != h && tw_of(p)->tw_expires > e)
            p = p->prev;
    }
    tw_list_add_after(p, &t->tw_u.link);
    tw_horizon_lower(tw, e);
}

static void ordered_remove(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    tw_list_del(&t->tw_u.link);
}

static void ordered_collect(struct tw *tw, tw_time_t now, struct tw_ready *ready)
{
    struct tw_link *out = tw_ready_lane(ready, 0);
    struct tw_link *h = &TW_STATE(tw, struct ordered_state)->head;
    struct tw_link *l = h->next;
    while (l != h && tw_of(l)->tw_expires <= now) {
        struct tw_link *n = l->next;
        tw_list_del(l);
        tw_list_add_tail(out, l);
        l = n;
    }
    tw->horizon = l != h ? tw_of(l)->tw_expires : TW_TIME_MAX;
}

static int ordered_next(struct tw *tw, tw_time_t *out)
{
    struct tw_link *h = &TW_STATE(tw, struct ordered_state)->head;
    if (tw_list_empty(h))
        return 0;
    *out = tw_of(h->next)->tw_expires;
    return 1;
}

static int ordered_check(struct tw *tw, struct tw_checker *c)
{
    struct tw_link *h = &TW_STATE(tw, struct ordered_state)->head;
    tw_time_t last = 0;
    for (struct tw_link *l = h->next; l != h; l = l->next) {
        if (l->next->prev != l)
            return tw_fail(c, "ordered: broken link at %p", (void *)l);
        int rc = tw_check_node(tw, c, tw_of(l));
        if (rc)
            return rc;
        if (tw_of(l)->tw_expires < last)
            return tw_fail(c, "ordered: %llu after %llu", (unsigned long long)tw_of(l)->tw_expires,
                           (unsigned long long)last);
        last = tw_of(l)->tw_expires;
        c->seen++;
    }
    return 0;
}

const struct tw_ops tw_ordered_ops = {
    .order = TW_ORDER_DEADLINE,
    .options = TW_OPT_ORDERED_FRONT,
    .state_size = ordered_state_size,
    .init = ordered_init,
    .fini = ordered_fini,
    .reserve = NULL,
    .insert = ordered_insert,
    .remove = ordered_remove,
    .collect = ordered_collect,
    .next = ordered_next,
    .check = ordered_check,
};
