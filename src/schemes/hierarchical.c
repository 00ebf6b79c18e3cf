/*
 * hierarchical.c -- Scheme 7 of Varghese & Lauck: hierarchical timing
 * wheels, exact, over the whole 64-bit range, tickless.
 *
 * Time is read as digits of B bits (S = 2^B slots per level, default B = 6):
 * level l is a wheel indexed by digit l of a deadline.  A timer goes to the
 * level of the highest digit in which its deadline differs from the current
 * time, into the slot of its own digit there.  Level 0 therefore holds the
 * timers due before the next carry into digit 1, each in the slot of its
 * exact tick; level l holds timers due in later slots of the current
 * level-(l+1) period.
 *
 *     level   granularity     range covered (default B = 6, 11 levels)
 *       0      1 tick          the current 64-tick period
 *       1      2^6  ticks      the current 2^12-tick period
 *       2      2^12 ticks      the current 2^18-tick period
 *      ...
 *      10      2^60 ticks      all of time (digit 10 has 4 bits: 16 slots used)
 *
 *     now = ...|  3 | 17 | 41 |        e = ...|  3 | 20 |  5 |
 *                                         differs first in digit 1:
 *                                         level 1, slot 20
 *
 * When the clock passes into slot 20 of level 1 (digit 1 of now becomes 20),
 * the slot's timers migrate: each is re-placed against the new time, now in
 * level 0 at the slot of its digit 0 (5), or fires if it is already due.  A
 * timer moves at most once per level, downwards, and fires at exactly its
 * tick: the migration is the price of exactness (Scheme 7 without migration
 * is hierarchical_coarse.c).
 *
 *     START_TIMER            O(1)       msb of (e XOR now) picks the level
 *     STOP_TIMER             O(1)       unlink; clear the bit if emptied
 *                                       (the leaf leaves it: see below)
 *     PER_TICK_BOOKKEEPING   O(1) avg   one bitmap test per level whose
 *                                       digit changed (1 + 1/S + ... levels)
 *     migration              O(1) per timer per level passed, at most m-1
 *     next_expiry            O(m) bitmap scans; walks one slot when the
 *                                       earliest timer is above level 0,
 *                                       keeping its 64 earliest deadlines
 *
 * An advance over any gap is tickless: the occupancy bitmap (Appendix A in
 * software) yields the occupied slots time passed over in O(S/64) word
 * tests per level whose digit changed.  Let top be the highest such level.
 * Every occupied slot below top, and every slot of top before the new
 * digit there, holds only timers that are due: such a slot is spliced
 * onto the ready lanes whole, its timers untouched.  (With S <= 64 a level
 * below top is taken whole, from its one bitmap word; with more slots, the
 * slots passed over are a circular window of at most S slots per level.)
 * The slot of top's new digit (top above level 0) has come up: its timers
 * are unlinked (after every other slot is taken, so that none can land in
 * a slot still to be visited) and each fires or is re-placed against the
 * new time.  A jump of 2^40 ticks costs O(levels * S/64 + slots passed +
 * timers of the slot that comes up), never O(ticks).
 *
 * next_expiry is exact: a level-0 slot gives its timer's deadline (the
 * digits above are those of now), and the first occupied slot of the lowest
 * non-empty level holds the earliest timer; above level 0 that slot spans
 * many ticks and is walked (its 8 lanes together, so that 8 misses are in
 * flight), keeping the slot's 64 earliest deadlines (struct tw_mincache):
 * start, stop and expiry keep them exact, and the next walk comes after 64
 * of them have left (all of the slot's, if it held fewer).  At 10^6 timers
 * all in level-3 slots, stopping the earliest and asking next_expiry costs
 * 98 us amortised (a walk of 4.8 ms per 64), against 0.6 us for the heap
 * and 33 ms before the lanes were walked together and more than one
 * deadline kept.
 *
 * Bits left set (slots.h): the start and stop leaves below leave an
 * emptied lane's bits set, so a timer alone in a far slot, stopped and
 * restarted again and again, writes no bit at all.
 *
 * Order: within one advance, none is promised, not even among equal
 * deadlines: a slot's timers are spread over 8 lanes, which expiry pops in
 * turn (docs/design.md, "Ready lanes").
 *
 * Memory: per slot 8 lane heads of 16 bytes, a byte of lane bits and a bit,
 * S * m slots: 89 KiB for the default 64 x 11 (259 KiB for 256 x 8), and a
 * 528-byte cache of earliest deadlines; nothing per timer beyond the 40-byte
 * node.
 */
#include "hier.h"

#include "../entry.h"

static unsigned levels_needed(unsigned bits) { return (64 + bits - 1) / bits; }

const char *tw_hier_validate(uint32_t slots, uint32_t levels)
{
    if (!tw_is_pow2(slots) || slots < 2 || slots > 256)
        return "slots: a power of two from 2 to 256";
    unsigned bits = (unsigned)tw_ctz64(slots);
    if (levels != 0 && levels != levels_needed(bits))
        return "levels: 0, or exactly ceil(64 / log2(slots)), the levels that cover 64 bits";
    return NULL;
}

/* From this many pending timers (640 KiB of nodes, beyond a core's L2
 * cache) the lanes of a slot that comes up are walked interleaved
 * (migrate_slot()); with fewer, their nodes are taken to be in cache and
 * the lanes are walked one after the other, the fewer instructions.  On
 * a real clock (TW_OPT_REAL_TIME: the service) always: there a slot that
 * comes up holds timers placed a level's period ago or more, whose nodes
 * the program's other work has evicted since, however few they are, and
 * walked one after the other each node waits a full memory latency
 * (docs/design.md, "Ready lanes": 184-227 ns per timer, against 32-60
 * interleaved). */
#define TW_HIER_MANY 16384

int tw_hier_setup(struct tw *tw, struct hier_state *h, uint32_t slots, uint32_t options)
{
    h->many = (options & TW_OPT_REAL_TIME) ? 0 : TW_HIER_MANY;
    h->bits = (uint16_t)tw_ctz64(slots);
    h->levels = (uint16_t)levels_needed(h->bits);
    h->S = slots;
    h->mask = slots - 1;
    for (unsigned b = 0; b < 64; b++) {
        unsigned lvl = b / h->bits;
        h->place_of_msb[b] = (uint64_t)(lvl * h->bits) | (uint64_t)(lvl << h->bits) << 32;
    }
    return tw_slots_init(tw, &h->s, h->S * h->levels, TW_LANE_SHIFT);
}

void tw_hier_teardown(struct tw *tw, struct hier_state *h)
{
    tw_slots_fini(tw, &h->s);
}

/* Bits 0 .. d of a word (d < 64: 2 << 63 wraps to 0, giving all ones). */
TW_INLINE uint64_t bits_upto(unsigned d) { return (UINT64_C(2) << d) - 1; }

/* With S <= 64 a level's S bits lie in one word of the bitmap (S divides
 * 64): level lvl's occupancy, slot j at bit j.  bits is h->bits, passed
 * so that a caller with a constant (the default 64 slots) folds it. */
TW_INLINE uint64_t level_bits(const struct hier_state *h, unsigned lvl, unsigned bits)
{
    size_t base = (size_t)lvl << bits;
    return (h->s.bm[base >> 6] >> (base & 63)) & (~UINT64_C(0) >> (64u - (1u << bits)));
}

/* first_slot() for S <= 64: a word per level.  Every slot of a level at
 * or before c's digit there is clear (a timer sits after now's digit at
 * its level, and collect clears every slot time passes over, bits left
 * set included), so the first non-zero word is the level. */
TW_INLINE size_t first_slot_words(const struct hier_state *h, unsigned bits)
{
    for (unsigned lvl = 0; lvl < h->levels; lvl++) {
        uint64_t x = level_bits(h, lvl, bits);
        if (x)
            return ((size_t)lvl << bits) + (size_t)tw_ctz64(x);
    }
    return SIZE_MAX;
}

/* The first occupied slot against time c: the first occupied slot of the
 * lowest non-empty level (every slot of a level comes up before any slot of
 * the levels above, and every timer of a level sits after c's digit there,
 * so no level wraps).  Returns its index in the table, or SIZE_MAX. */
TW_INLINE size_t first_slot(const struct hier_state *h, tw_time_t c)
{
    if (h->S == 64)
        return first_slot_words(h, 6);
    if (h->S < 64)
        return first_slot_words(h, h->bits);
    for (unsigned lvl = 0; lvl < h->levels; lvl++) {
        unsigned shift = lvl * h->bits;
        size_t base = (size_t)lvl << h->bits;
        size_t from = (size_t)((c >> shift) & h->mask) + 1;
        size_t i = tw_bm_find(h->s.bm, base + from, base + h->S);
        if (i < base + h->S)
            return i;
    }
    return SIZE_MAX;
}

/* The tick at which table slot i comes up against time c: c's digits above
 * its level, its own digit, zeros below. */
TW_INLINE tw_time_t slot_tick(size_t i, tw_time_t c, unsigned bits)
{
    unsigned shift = (unsigned)(i >> bits) * bits;
    tw_time_t mask = ((tw_time_t)1 << bits) - 1;
    tw_time_t digits = ((c >> shift) & ~mask) | (tw_time_t)(i & mask);
    return digits << shift;
}

/* Re-place or fire the node at l, of lane k, against the new time. */
TW_INLINE void migrate_one(struct hier_state *h, struct tw_link *l, unsigned k, tw_time_t now,
                           struct tw_ready *out)
{
    tw_time_t e = tw_of(l)->tw_expires;
    if (e <= now) {
        tw_list_add_tail(tw_ready_lane(out, k), l);
    } else {
        /* Lane k is tw_lane_of(t): no hash to compute again. */
        unsigned shift;
        size_t i = tw_hier_slot(h, e, now, &shift);
        (void)tw_slots_add_lane(&h->s, i, k, l, TW_LANE_SHIFT);
    }
}

/* Walk the lanes `live` of the slot at `head` in place, one after the
 * other, their heads emptied first, migrating each node. */
TW_INLINE void migrate_lanes(struct hier_state *h, struct tw_link *head, unsigned live,
                             tw_time_t now, struct tw_ready *out)
{
    for (; live; live &= live - 1) {
        unsigned k = (unsigned)tw_ctz64(live);
        struct tw_link *end = &head[k], *l = end->next;
        tw_list_init(end);
        while (l != end) {
            struct tw_link *next = l->next;
            migrate_one(h, l, k, now, out);
            l = next;
        }
    }
}

/* migrate_slot() with several lanes: the lanes are walked in turn, a
 * node of each, so that several chains of misses are in flight at once.
 * The lanes still to walk are kept packed (a finished one takes the
 * last one's place), so that a turn is a plain loop. */
static TW_NOINLINE void migrate_interleaved(struct hier_state *h, struct tw_link *head,
                                            unsigned live, tw_time_t now, struct tw_ready *out)
{
    struct tw_link *at[TW_LANES], *end[TW_LANES];
    unsigned lane[TW_LANES], n = 0;
    for (unsigned m = live; m; m &= m - 1) {
        unsigned k = (unsigned)tw_ctz64(m);
        at[n] = head[k].next;
        end[n] = &head[k];
        lane[n++] = k;
        tw_list_init(&head[k]);
    }
    while (n) {
        for (unsigned j = 0; j < n;) {
            struct tw_link *l = at[j];
            if (l == end[j]) { /* the lane is done: the last one takes its place */
                n--;
                at[j] = at[n];
                end[j] = end[n];
                lane[j] = lane[n];
                continue;
            }
            at[j] = l->next;
            TW_PREFETCH(at[j]);
            migrate_one(h, l, lane[j], now, out);
            j++;
        }
    }
}

/* Migrate the timers of upper slot i, which has come up: each fires or is
 * re-placed a level or more down.  Called after every other slot time
 * passed over is taken, so that nothing lands in a slot still to be
 * visited; nothing lands in slot i either (every timer leaves its level).
 * The slot's lanes are walked in place, their heads emptied first: each
 * node's links are rewritten where it goes, and no store reaches the next
 * node, the line a pop would write and the walk waits for.  (A node's lane
 * is tw_lane_of() of its address wherever it is placed, so lane k also
 * gives the due timers their ready lane.)  With several lanes and at
 * least h->many pending timers the lanes are walked interleaved, else one
 * after the other, the fewer instructions. */
TW_INLINE void migrate_slot(const struct tw *tw, struct hier_state *h, size_t i, tw_time_t now,
                            struct tw_ready *out)
{
    struct tw_link *head = &h->s.head[i << TW_LANE_SHIFT];
    unsigned live = h->s.lanes[i];
    h->s.lanes[i] = 0;
    tw_bm_clear(h->s.bm, i);
    if ((live & (live - 1)) != 0 && tw->count >= h->many)
        migrate_interleaved(h, head, live, now, out);
    else
        migrate_lanes(h, head, live, now, out);
}

/* Every level whose digit changed, the slots passed over taken, with
 * S <= 64 (bits a constant where the caller passes one): a word per
 * level.  Let `top` be the highest level whose digit changed (above level
 * 0: collect_bits() takes the advances that stay within level 0's period).
 * Every timer of a level below top is due: its deadline has the old
 * digits from top up, below the new time's.  And every occupied slot of
 * such a level is one that time passed over: the slots at or before the
 * old time's digit are clear (first_slot_words()), and those after it are
 * the rest of the old period.  So each of those levels goes to the ready
 * lanes whole, slot by occupied slot, timers untouched, with no window to
 * compute.  At top, the slots before the new digit are due too; the slot
 * of the new digit holds timers that may not be due yet: it migrates,
 * last, so that nothing lands in a slot still to be taken. */
TW_INLINE void collect_levels_words(struct tw *tw, struct hier_state *h, tw_time_t now,
                                    struct tw_ready *out, unsigned bits)
{
    uint64_t g = h->place_of_msb[63u - (unsigned)tw_clz64(tw->now ^ now)];
    size_t top = TW_HIER_BASE(g);
    unsigned tl = (unsigned)(top >> bits);
    for (unsigned lvl = 0; lvl < tl; lvl++)
        for (uint64_t x = level_bits(h, lvl, bits); x; x &= x - 1)
            tw_slots_take(&h->s, ((size_t)lvl << bits) + (size_t)tw_ctz64(x), out,
                          TW_LANE_SHIFT);
    unsigned d = (unsigned)(now >> TW_HIER_SHIFT(g)) & ((1u << bits) - 1);
    uint64_t x = level_bits(h, tl, bits);
    for (uint64_t y = x & ((UINT64_C(1) << d) - 1); y; y &= y - 1)
        tw_slots_take(&h->s, top + (size_t)tw_ctz64(y), out, TW_LANE_SHIFT);
    if ((x >> d) & 1)
        migrate_slot(tw, h, top + d, now, out);
}

/* The same with more than 64 slots: at each level whose digit changed, the
 * slots passed over are a circular window of the level, walked in the
 * bitmap (the reasoning above, the window standing for the word). */
static TW_NOINLINE void collect_levels_wide(struct tw *tw, struct hier_state *h, tw_time_t now,
                                            struct tw_ready *out)
{
    const tw_time_t mask = h->mask;
    const unsigned bits = h->bits;
    size_t up = SIZE_MAX;
    /* cl, nl: the old and new time's digits from lvl up; the loop stops
     * at the first level whose digits did not change (above the last
     * level they are 0 and 0).  Digits above lvl equal only at top. */
    tw_time_t cl = tw->now, nl = now;
    for (unsigned lvl = 0; cl != nl; lvl++) {
        tw_time_t cu = cl >> bits, nu = nl >> bits;
        size_t base = (size_t)lvl << bits;
        tw_time_t diff = nl - cl;
        size_t span = diff >= h->S ? h->S : (size_t)diff;
        size_t from = (size_t)((cl + 1) & mask), done = 0, i;
        size_t d = cu == nu && lvl > 0 ? (size_t)(nl & mask) : SIZE_MAX;
        while ((i = tw_window_next(h->s.bm, base, h->S, from, span, &done)) != SIZE_MAX) {
            if (i == d)
                up = base + i;
            else
                tw_slots_take(&h->s, base + i, out, TW_LANE_SHIFT);
        }
        cl = cu;
        nl = nu;
    }
    if (up != SIZE_MAX)
        migrate_slot(tw, h, up, now, out);
}

/* Collect with B = bits, a constant where the caller passes one.  An
 * advance that stays within the current level-0 period (most, when time
 * moves a few ticks at a time) takes bits (now, new now] of level 0's word
 * and finds the next slot in the same word: no level loop, no horizon
 * search above level 0 unless level 0 is empty past now. */
TW_INLINE void collect_bits(struct tw *tw, struct hier_state *h, tw_time_t now,
                            struct tw_ready *out, unsigned bits)
{
    if (bits <= 6 && ((tw->now ^ now) >> bits) == 0) {
        const tw_time_t mask = ((tw_time_t)1 << bits) - 1;
        unsigned d0 = (unsigned)(tw->now & mask), d1 = (unsigned)(now & mask);
        uint64_t occ = level_bits(h, 0, bits);
        for (uint64_t due = occ & bits_upto(d1) & ~bits_upto(d0); due; due &= due - 1)
            tw_slots_take(&h->s, (size_t)tw_ctz64(due), out, TW_LANE_SHIFT);
        tw_mincache_expire(&h->min, now);
        uint64_t rest = occ & ~bits_upto(d1);
        if (rest) {
            tw->horizon = (now & ~mask) | (tw_time_t)tw_ctz64(rest);
            return;
        }
    } else {
        if (bits <= 6)
            collect_levels_words(tw, h, now, out, bits);
        else
            collect_levels_wide(tw, h, now, out);
        tw_mincache_expire(&h->min, now);
    }
    size_t first = bits <= 6 ? first_slot_words(h, bits) : first_slot(h, now);
    tw->horizon = first == SIZE_MAX ? TW_TIME_MAX : slot_tick(first, now, bits);
}

/* Collect with any other number of slots: out of line, so that the
 * default's code is not spread around it. */
static TW_NOINLINE void collect_any(struct tw *tw, struct hier_state *h, tw_time_t now,
                                    struct tw_ready *out)
{
    collect_bits(tw, h, now, out, h->bits);
}

/* Collect, the default 64 slots compiled apart with their constants. */
TW_INLINE void collect(struct tw *tw, struct hier_state *h, tw_time_t now, struct tw_ready *out)
{
    if (TW_LIKELY(h->bits == 6))
        collect_bits(tw, h, now, out, 6);
    else
        collect_any(tw, h, now, out);
}

void tw_hier_collect(struct tw *tw, struct hier_state *h, tw_time_t now, struct tw_ready *out)
{
    collect(tw, h, now, out);
}

/* The first occupied slot against now, the slots before it whose bits
 * the leaves left over empty lanes cleared on the way (slots.h): each
 * such slot is passed once per bit left.  SIZE_MAX if none. */
static size_t first_live_slot(struct tw *tw, struct hier_state *h)
{
    size_t i;
    while ((i = first_slot(h, tw->now)) != SIZE_MAX && tw_slots_empty(&h->s, i))
        tw_slots_clear(&h->s, i);
    return i;
}

/* The earliest tick known without a walk: the cache's first deadline (*slot
 * SIZE_MAX), or the tick at which the first live slot comes up (*slot its
 * index).  0 when the wheel is empty. */
static int first_known(struct tw *tw, struct hier_state *h, tw_time_t *out, size_t *slot)
{
    *slot = SIZE_MAX;
    if (tw_mincache_known(&h->min)) {
        *out = h->min.v[0];
        return 1;
    }
    size_t i = first_live_slot(tw, h);
    if (i == SIZE_MAX)
        return 0;
    *slot = i;
    *out = slot_tick(i, tw->now, h->bits);
    return 1;
}

int tw_hier_next(struct tw *tw, struct hier_state *h, tw_time_t *out)
{
    size_t i;
    if (!first_known(tw, h, out, &i))
        return 0;
    if (i == SIZE_MAX || (i >> h->bits) == 0)
        return 1; /* the cache's, or a level-0 slot's: one tick, exact */
    /* An upper slot spans many ticks: walk it, its 8 lanes together, and
     * keep its earliest deadlines.  The levels below are empty and every
     * later slot comes up after this one ends, so they are the earliest of
     * the whole wheel. */
    struct tw_link *heads[TW_LANES];
    for (unsigned k = 0; k < TW_LANES; k++)
        heads[k] = &h->s.head[(i << TW_LANE_SHIFT) + k];
    tw_lists_offer(heads, TW_LANES, &h->min);
    *out = h->min.v[0];
    return 1;
}

/* An upper slot comes up at its tick, when collect moves its timers down
 * a level, and every deadline in it is at or after that tick: a wake-up
 * there is never late, and never needs the slot walked.  Empty slots
 * before it are cleared on the way, as for tw_hier_next(): a loop whose
 * earliest timers are stopped wakes for none of them. */
int tw_hier_wakeup(struct tw *tw, struct hier_state *h, tw_time_t *out)
{
    size_t i;
    return first_known(tw, h, out, &i);
}

int tw_hier_check(struct tw *tw, struct hier_state *h, struct tw_checker *c, uint32_t forbid,
                  tw_time_t horizon)
{
    /* Stale bits: an emptied lane's, left by the leaves (the scheme's own
     * and the hybrid's wheel's). */
    int rc = tw_slots_check_bits(&h->s, c, "hierarchical", true);
    struct tw_mincache_audit audit = {0, 0, false};
    for (uint32_t k = 0; rc == 0 && k < (h->s.n << TW_LANE_SHIFT); k++) {
        struct tw_link *head = &h->s.head[k];
        uint32_t i = k >> TW_LANE_SHIFT;
        unsigned lvl = i >> h->bits;
        for (struct tw_link *l = head->next; rc == 0 && l != head; l = l->next) {
            const struct tw_timer *t = tw_of(l);
            if (l->next->prev != l)
                return tw_fail(c, "hierarchical: broken link in slot %u", i);
            rc = tw_check_node(tw, c, t);
            if (rc)
                break;
            if (t->tw_flags & forbid)
                return tw_fail(c, "hierarchical: a node in slot %u has flags %#x", i,
                               (unsigned)t->tw_flags);
            tw_time_t e = t->tw_expires;
            unsigned want =
                TW_HIER_SHIFT(h->place_of_msb[63 - tw_clz64(e ^ tw->now)]) / h->bits;
            size_t slot = (size_t)((e >> (want * h->bits)) & h->mask);
            if (want != lvl || slot != (i & h->mask))
                rc = tw_fail(c, "hierarchical: deadline %llu at level %u slot %u, "
                             "belongs at level %u slot %zu (now %llu)",
                             (unsigned long long)e, lvl, i & h->mask, want, slot,
                             (unsigned long long)tw->now);
            tw_mincache_see(&h->min, &audit, e);
            c->seen++;
        }
    }
    if (rc == 0)
        rc = tw_mincache_end(&h->min, &audit, c, "hierarchical");
    /* No bit at or before now's digit at its level, stale or not:
     * first_slot() relies on it. */
    for (size_t j = 0; rc == 0 && j < h->s.n; j++) {
        unsigned shift = (unsigned)(j >> h->bits) * h->bits;
        if (tw_bm_test(h->s.bm, j) && (j & h->mask) <= ((tw->now >> shift) & h->mask))
            rc = tw_fail(c, "hierarchical: slot %zu marked at or before now %llu", j,
                         (unsigned long long)tw->now);
    }
    /* The horizon is at or below the tick of every marked slot: the first
     * one's, stale bits included.  (A start lowers it only when a lane's
     * bit was clear: a lane whose bit is set keeps its slot's bit set.) */
    size_t i = first_slot(h, tw->now);
    if (rc == 0 && i != SIZE_MAX && slot_tick(i, tw->now, h->bits) < horizon)
        rc = tw_fail(c, "hierarchical: slot %zu comes up at %llu, before the horizon %llu", i,
                     (unsigned long long)slot_tick(i, tw->now, h->bits),
                     (unsigned long long)horizon);
    return rc;
}

/* ------------------------------------------------ the scheme on its own */

#define HIER(tw) TW_STATE(tw, struct hier_state)

static const char *hier_validate(const struct tw_config *cfg)
{
    return tw_hier_validate(cfg->slots, cfg->levels);
}

static size_t hier_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct hier_state);
}

static int hier_init(struct tw *tw, const struct tw_config *cfg)
{
    return tw_hier_setup(tw, HIER(tw), cfg->slots, cfg->options);
}

static void hier_fini(struct tw *tw) { tw_hier_teardown(tw, HIER(tw)); }
static void hier_insert(struct tw *tw, struct tw_timer *t) { (void)tw_hier_insert(tw, HIER(tw), t); }
static void hier_remove(struct tw *tw, struct tw_timer *t) { tw_hier_remove(HIER(tw), t); }

/* The body inline: an advance that fires one timer makes no more calls
 * than it must. */
static void hier_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop);

static void hier_collect(struct tw *tw, tw_time_t now, struct tw_ready *out)
{
    collect(tw, HIER(tw), now, out);
    tw->now = now; /* for floors() */
    hier_floors(tw, &tw->start_floor, &tw->stop_floor);
}

static int hier_next(struct tw *tw, tw_time_t *out) { return tw_hier_next(tw, HIER(tw), out); }

static int hier_wakeup(struct tw *tw, tw_time_t *out)
{
    return tw_hier_wakeup(tw, HIER(tw), out);
}

static int hier_check(struct tw *tw, struct tw_checker *c)
{
    return tw_hier_check(tw, HIER(tw), c, 0, tw->horizon);
}

/* ------------------------------------------------ start and stop */

/*
 * The leaves.  A start whose deadline is above tw->start_floor (max of now
 * and the earliest-deadline cache's last entry) is a link and, for a
 * pending node, an unlink, and nothing else: the node is in the wheel, not
 * on a core list, and neither it nor the new deadline touches the cache.
 * A stop above tw->stop_floor (the same) of a node that is not alone in
 * its lane is one unlink.  At 10^6 timers each operation waits on a cold
 * node and its cold list neighbours, and how many operations keep their
 * misses in flight together is bounded by the loads and stores each one
 * holds in the core's queues until it retires (docs/design.md, "Short
 * paths").  So these leaves read the facility's first line and two
 * slot-table words, and write nothing of the facility's but the count and
 * the lane's head: one compare with start_floor stands for the checks of
 * the interval, of the end of time and of the cache; one load of
 * place_of_msb for the level's shift and first slot (the mask is h->mask);
 * and the horizon is lowered only when the lane's bit was clear (a lane
 * with its bit set, timers in it or not, has its slot's tick at or above
 * the horizon already).  Everything else takes the full path (entry.h)
 * with this file's insert and remove in place.
 */

static void hier_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    tw_time_t m = TW_STATE(tw, const struct hier_state)->min.max;
    *start = *stop = m > tw->now ? m : tw->now;
}

#define HIER_HOOKS ((struct tw_hooks){NULL, hier_insert, hier_remove, hier_floors, false})

TW_ENTRY_FULL_PATHS(hier, HIER_HOOKS)

/* A start of the leaf that found its lane empty: if the lane's bit is
 * clear, the lane's and the slot's bits, and the horizon lowered to the
 * slot's tick.  Out of line and recomputed from the lane's head, so that
 * the leaf keeps nothing live for it (at 10^6 timers each instruction of a
 * start costs about as much as an overlapped cache miss: docs/design.md,
 * "Short paths"). */
static TW_NOINLINE int hier_lane_first(struct tw *tw, struct tw_link *head, tw_time_t e)
{
    struct hier_state *h = HIER(tw);
    size_t k = (size_t)(head - h->s.head);
    /* Bits left set (slots.h): the slot counts as occupied, so the horizon
     * is at or below its tick already. */
    if (tw_slots_lane_marked(&h->s, k, TW_LANE_SHIFT))
        return 0;
    tw_slots_mark(&h->s, k, TW_LANE_SHIFT);
    unsigned shift = TW_HIER_SHIFT(h->place_of_msb[63u - (unsigned)tw_clz64(e ^ tw->now)]);
    tw_horizon_lower(tw, (e >> shift) << shift);
    return 0;
}

/* Link t, deadline e beyond start_floor, at the tail of its lane: the
 * level and slot from one place_of_msb load and the mask, the lane from
 * the node's address.  A lane that had timers keeps its slot's bit and its
 * slot's tick at or above the horizon, so only a first timer needs more. */
TW_INLINE int hier_link(struct tw *tw, struct hier_state *h, struct tw_timer *t, tw_time_t e,
                        tw_time_t now)
{
    unsigned shift;
    size_t i = tw_hier_slot(h, e, now, &shift);
    struct tw_link *head = &h->s.head[(i << TW_LANE_SHIFT) + tw_lane_of(t)];
    if (TW_UNLIKELY(tw_lane_add(head, &t->tw_u.link)))
        return hier_lane_first(tw, head, e);
    return 0;
}

static int hier_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    /* Interval 0, a sum that wraps and the end of time give a deadline at
     * or below now <= start_floor: the full path sorts them out. */
    tw_time_t now = tw->now, deadline = now + interval;
    if (TW_UNLIKELY(t == NULL || deadline <= tw->start_floor))
        return hier_start_full(tw, t, interval);
    struct hier_state *h = HIER(tw);
    uint64_t w = tw_node_word(t);
    if (TW_LIKELY(w == tw_node_word_of(TW_MAGIC, 0)))
        tw->count++;
    else if (w == tw->word_mine && t->tw_expires > tw->start_floor)
        tw_list_del(&t->tw_u.link); /* an emptied lane keeps its bits (slots.h) */
    else
        return hier_start_full(tw, t, interval); /* not initialised, elsewhere, or rare */
    tw_arm_node(t, deadline, tw->word_mine);
    return hier_link(tw, h, t, deadline, now);
}

/* A node alone in its lane leaves the lane's bits set (slots.h): a timer
 * alone in a far slot, stopped and started again and again (the paper's
 * Fig. 9 test), writes no bit at all. */
static int hier_stop(struct tw *tw, struct tw_timer *t)
{
    return tw_wheel_stop(tw, t, hier_stop_full);
}

const struct tw_ops tw_hierarchical_ops = {
    .order = TW_ORDER_NONE,
    .default_slots = 64,
    .options = TW_OPT_REAL_TIME,
    .validate = hier_validate,
    .state_size = hier_state_size,
    .init = hier_init,
    .fini = hier_fini,
    .reserve = NULL, /* never fails: the start leaf relies on it and calls none */
    .insert = hier_insert,
    .remove = hier_remove,
    .collect = hier_collect,
    .next = hier_next,
    .wakeup = hier_wakeup,
    .check = hier_check,
    .start = hier_start,
    .stop = hier_stop,
    .floors = hier_floors,
};
