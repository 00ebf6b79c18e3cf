/*
 * slots.h -- a table of slots, each a list head or a few lanes of them,
 * with occupancy bits (slots.c): the wheels' storage.
 */
#ifndef TW_SLOTS_H
#define TW_SLOTS_H

#include "bitmap.h"
#include "check.h"
#include "list.h"

struct tw;

/* n logical slots, each of 1 << lshift lanes (physical list heads).  Bit i
 * of the bitmap is set iff some lane bit of slot i is; a lane's bit is set
 * when the lane has timers, as follows.  Timers are spread over the lanes
 * of a slot by their addresses (tw_lane_of()), so that a slot taken whole
 * comes out as several independent chains (see struct tw_ready).
 *
 * Bits left set.  In the one-level tables (wheel, hashed, hashed_sorted)
 * a bit is set exactly while its lane or slot has timers: every unlink
 * goes through tw_slots_unlink(), which clears it.  In the hierarchical
 * wheels (the exact one, the hybrid's, the no-migration one) the start
 * and stop leaves unlink with a plain tw_list_del() and leave an emptied
 * lane's bits, and its slot's, set (the stop leaves, and the unlink of a
 * restart): a timer alone in a far slot, stopped and started again and
 * again (the paper's Fig. 9 test), then writes no bit at all.
 * There a set bit means "may have timers", and every reader copes:
 *   - collect takes such a slot with nothing in it (the horizon counts it:
 *     at most one collect more per bit left set);
 *   - next_expiry clears the empty slots it finds before the first
 *     occupied one;
 *   - a start into a lane whose bit is set links and writes nothing else
 *     (the slot's tick is at or above the horizon already);
 *   - tw_check() accepts the extra bits for these wheels alone
 *     (tw_slots_check_bits() with stale_ok). */
struct tw_slots {
    struct tw_link *head;       /* n << lshift list heads */
    uint64_t *bm;
    uint8_t *lanes;             /* lshift > 0: bit j for lane j (see above) */
    uint32_t n, mask;           /* n a power of two */
    unsigned lshift;            /* 0 (one list per slot) or TW_LANE_SHIFT */
};

const char *tw_slots_validate(const struct tw_config *cfg);
int tw_slots_init(struct tw *tw, struct tw_slots *s, uint32_t n, unsigned lshift);
void tw_slots_fini(struct tw *tw, struct tw_slots *s);
/* Every slot's and lane's bit against its lists: set iff not empty, or
 * with stale_ok, set if not empty ("Bits left set" above). */
int tw_slots_check_bits(const struct tw_slots *s, struct tw_checker *c, const char *who,
                        bool stale_ok);

/* The hot routines take the table's lane shift as an argument, always a
 * constant at the call (0 or TW_LANE_SHIFT, the one the table was made
 * with), so that they compile to straight code: at 10^6 timers a start or
 * stop waits on a cache miss, and how many of them overlap depends on how
 * few instructions each one is (docs/design.md, "Short paths"). */
/* Link l at the tail of the list at head h.  Returns true if the list was
 * empty, read from the tail pointer the link loads anyway. */
TW_INLINE bool tw_lane_add(struct tw_link *h, struct tw_link *l)
{
    bool empty = h->prev == h; /* the tail the link loads anyway */
    tw_list_add_tail(h, l);
    return empty;
}

/* Set the bits of lane `lane` of slot i: the slot's bit and, with lanes,
 * the lane's bit in the slot's byte. */
TW_INLINE void tw_slots_mark_lane(struct tw_slots *s, size_t i, unsigned lane, unsigned lshift)
{
    tw_bm_set(s->bm, i);
    if (lshift)
        s->lanes[i] |= (uint8_t)(1u << lane);
}

/* The same for lane k of the table (slot k >> lshift). */
TW_INLINE void tw_slots_mark(struct tw_slots *s, size_t k, unsigned lshift)
{
    tw_slots_mark_lane(s, k >> lshift, (unsigned)(k & ((1u << lshift) - 1)), lshift);
}

/* Is the bit of lane k of the table (slot k >> lshift) set?  In the
 * hierarchical wheels (the hybrid's too) a set bit may stand over an
 * emptied lane (struct tw_slots): a start into it need not mark anything. */
TW_INLINE bool tw_slots_lane_marked(const struct tw_slots *s, size_t k, unsigned lshift)
{
    return ((unsigned)s->lanes[k >> lshift] >> (k & ((1u << lshift) - 1))) & 1u;
}

/* Link l at the tail of lane `lane` of slot i.  Returns true if the lane
 * was empty (its bits are set now); false if it had timers, whose bits are
 * set already. */
TW_INLINE bool tw_slots_add_lane(struct tw_slots *s, size_t i, unsigned lane, struct tw_link *l,
                                 unsigned lshift)
{
    if (!tw_lane_add(&s->head[(i << lshift) + lane], l))
        return false;
    tw_slots_mark_lane(s, i, lane, lshift);
    return true;
}

/* Link l into slot i, at the lane of its node's address. */
TW_INLINE void tw_slots_add(struct tw_slots *s, size_t i, struct tw_link *l, unsigned lshift)
{
    unsigned lane = lshift ? tw_lane_of(l) : 0;
    (void)tw_slots_add_lane(s, i, lane, l, lshift);
}

/* True if every lane of slot i is empty. */
TW_INLINE bool tw_slots_empty(const struct tw_slots *s, size_t i)
{
    const struct tw_link *h = &s->head[i << s->lshift];
    for (unsigned j = 0; j < (1u << s->lshift); j++)
        if (!tw_list_empty(&h[j]))
            return false;
    return true;
}

/* Clear slot i's bits, every lane of it empty. */
TW_INLINE void tw_slots_clear(struct tw_slots *s, size_t i)
{
    tw_bm_clear(s->bm, i);
    if (s->lshift)
        s->lanes[i] = 0;
}

/* Clear the bits of the lane at head h, which has just emptied: the lane's
 * bit, and its slot's when no lane of it is left.  h must be one of the
 * table's heads (tw_slots_unlink() checks). */
TW_INLINE void tw_slots_clear_lane(struct tw_slots *s, const struct tw_link *h, unsigned lshift)
{
    size_t k = (size_t)(h - s->head), i = k >> lshift;
    if (lshift == 0 || (s->lanes[i] &= (uint8_t)~(1u << (k & ((1u << lshift) - 1)))) == 0)
        tw_bm_clear(s->bm, i);
}

/* Unlink a node from whichever slot holds it, clearing the slot's bit when
 * it empties: a node that was alone has the head on both sides.  The node
 * may also be on a list outside the table (a ready list): then no bit
 * changes. */
TW_INLINE void tw_slots_unlink(struct tw_slots *s, struct tw_link *l, unsigned lshift)
{
    tw_list_del(l);
    if (TW_UNLIKELY(l->next == l->prev)) {
        /* Unsigned: a head below the table wraps to a huge index. */
        size_t k = (size_t)((uintptr_t)l->next - (uintptr_t)s->head) / sizeof *s->head;
        if (k < ((size_t)s->n << lshift))
            tw_slots_clear_lane(s, &s->head[k], lshift);
    }
}

/* Move slot i's lists, lane by lane, to the tails of out's lanes, and
 * clear its bit.  With lanes, only those whose bit is set: a lane with
 * timers always has it (a set bit over an empty lane splices nothing).
 * lshift: the table's, a constant at the call. */
TW_INLINE void tw_slots_take(struct tw_slots *s, size_t i, struct tw_ready *out, unsigned lshift)
{
    struct tw_link *h = &s->head[i << lshift];
    if (lshift) {
        unsigned m = s->lanes[i];
        out->live |= m;
        for (; m; m &= m - 1) {
            unsigned j = (unsigned)tw_ctz64(m);
            tw_list_splice_tail(&out->lane[j], &h[j]);
        }
        s->lanes[i] = 0;
    } else {
        tw_list_splice_tail(tw_ready_lane(out, 0), &h[0]);
    }
    tw_bm_clear(s->bm, i);
}

/* The tick of the first occupied slot after c in a one-level table, in
 * which slot i is visited at the ticks congruent to i; TW_TIME_MAX if none
 * (or past the end of time). */
TW_INLINE tw_time_t tw_slots_next_tick(const struct tw_slots *s, tw_time_t c)
{
    size_t d = tw_bm_find_circular(s->bm, 0, s->n, (size_t)((c + 1) & s->mask));
    if (d == s->n || c + 1 + d < c)
        return TW_TIME_MAX;
    return c + 1 + d;
}

#endif /* TW_SLOTS_H */
