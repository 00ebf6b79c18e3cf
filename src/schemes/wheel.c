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
 * order; within a slot, start order (FIFO).
 *
 * Memory: 16 bytes per slot plus one bit; 64 KiB for the default M = 4096.
 */
#include "../twheel_internal.h"

struct wheel_state {
    uint32_t mask;
    uint32_t nslots;
    struct tw_link *slots;
    uint64_t *bm;
};

static int wheel_validate(const struct tw_config *cfg)
{
    if (!tw_is_pow2(cfg->slots) || cfg->slots > (1u << 28))
        return TW_ECONFIG;
    return 0;
}

static size_t wheel_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct wheel_state);
}

static size_t bm_words(uint32_t n) { return ((size_t)n + 63) / 64; }

static int wheel_init(struct tw *tw, const struct tw_config *cfg)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    w->nslots = cfg->slots;
    w->mask = cfg->slots - 1;
    w->slots = tw_mem_alloc(tw, (size_t)w->nslots * sizeof *w->slots);
    w->bm = tw_mem_alloc(tw, bm_words(w->nslots) * sizeof *w->bm);
    if (w->slots == NULL || w->bm == NULL) {
        tw_mem_free(tw, w->slots, (size_t)w->nslots * sizeof *w->slots);
        tw_mem_free(tw, w->bm, bm_words(w->nslots) * sizeof *w->bm);
        return TW_ENOMEM;
    }
    for (uint32_t i = 0; i < w->nslots; i++)
        tw_list_init(&w->slots[i]);
    memset(w->bm, 0, bm_words(w->nslots) * sizeof *w->bm);
    tw->max_interval = w->nslots;
    return 0;
}

static void wheel_fini(struct tw *tw)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    tw_mem_free(tw, w->slots, (size_t)w->nslots * sizeof *w->slots);
    tw_mem_free(tw, w->bm, bm_words(w->nslots) * sizeof *w->bm);
}

static void wheel_insert(struct tw *tw, struct tw_timer *t)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    size_t s = (size_t)(t->tw_expires & w->mask);
    tw_list_add_tail(&w->slots[s], &t->tw_u.link);
    tw_bm_set(w->bm, s);
}

static void wheel_remove(struct tw *tw, struct tw_timer *t)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    struct tw_link *l = &t->tw_u.link;
    tw_list_del(l);
    if (l->next == l->prev) /* it was alone: its neighbour is the head */
        tw_bm_clear(w->bm, (size_t)(l->next - w->slots));
}

static void wheel_collect(struct tw *tw, tw_time_t now, struct tw_link *out)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    tw_time_t gap = now - tw->now;
    size_t span = gap >= w->nslots ? w->nslots : (size_t)gap;
    size_t from = (size_t)((tw->now + 1) & w->mask);
    size_t done = 0;
    while (done < span) {
        size_t d = tw_bm_find_circular(w->bm, w->nslots, (from + done) & w->mask);
        if (d >= span - done)
            break;
        size_t s = (from + done + d) & w->mask;
        tw_list_splice_tail(out, &w->slots[s]);
        tw_bm_clear(w->bm, s);
        done += d + 1;
    }
}

static int wheel_next(struct tw *tw, tw_time_t *out)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    size_t from = (size_t)((tw->now + 1) & w->mask);
    size_t d = tw_bm_find_circular(w->bm, w->nslots, from);
    if (d == w->nslots)
        return 0;
    *out = tw->now + 1 + d;
    return 1;
}

static int wheel_check(struct tw *tw, struct tw_checker *c)
{
    struct wheel_state *w = TW_STATE(tw, struct wheel_state);
    for (uint32_t s = 0; s < w->nslots; s++) {
        struct tw_link *h = &w->slots[s];
        if (tw_list_empty(h) == tw_bm_test(w->bm, s))
            return tw_fail(c, "wheel: slot %u bit %d disagrees with its list", s,
                           (int)tw_bm_test(w->bm, s));
        for (struct tw_link *l = h->next; l != h; l = l->next) {
            const struct tw_timer *t = tw_of(l);
            if (l->next->prev != l)
                return tw_fail(c, "wheel: broken link in slot %u", s);
            int rc = tw_check_node(tw, c, t);
            if (rc)
                return rc;
            if ((t->tw_expires & w->mask) != s || t->tw_expires - tw->now > w->nslots)
                return tw_fail(c, "wheel: deadline %llu in slot %u at now %llu",
                               (unsigned long long)t->tw_expires, s,
                               (unsigned long long)tw->now);
            c->seen++;
        }
    }
    return 0;
}

const struct tw_ops tw_wheel_ops = {
    .validate = wheel_validate,
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
