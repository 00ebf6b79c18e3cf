/*
 * hierarchical_coarse.c -- Scheme 7 without migration (Varghese & Lauck,
 * section VI-B, after W. Nichols): levels of wheels in which a timer is put
 * once and never moves, so it may fire late, never early.
 *
 * Level l has S slots (default 64) of granularity g_l = 8^l ticks.  A timer
 * of interval d = deadline - now goes to the lowest level whose S-2 slots
 * ahead reach it, d < (S-2) * g_l, into the slot of its deadline rounded up
 * to that granularity; the slot is expired whole when the clock reaches that
 * rounded tick.  Rounding up is why it is never early; the rounding is
 * at most g_l - 1 ticks, and a timer is only at level l >= 1 when it did not
 * fit level l-1, d >= (S-2) * g_l / 8, so
 *
 *     lateness <= g_l - 1 < 8 d / (S - 2)        (< d / 7.75 for S = 64)
 *
 * and timers below S-2 ticks (level 0) are exact.  This is the trade the
 * Linux kernel's wheel makes since 2016 (it clamps far timers instead;
 * here 21 levels cover all 64 bits, so nothing is ever clamped).
 *
 *     level  granularity   intervals held (S = 64)      worst lateness
 *       0      1           1 .. 61                      0
 *       1      8           62 .. 495                    7
 *       2      64          496 .. 3967                  63
 *       l      8^l         62*8^(l-1) .. 62*8^l - 1     8^l - 1
 *      20      2^60        62*2^57 .. 2^64 - 1          2^60 - 1
 *
 *     START_TIMER            O(1)      msb of d picks the level (one table
 *                                       load and one compare: tw_coarse_level())
 *     STOP_TIMER             O(1)      unlink; clear the bit if emptied
 *     PER_TICK_BOOKKEEPING   O(1) avg  1 + 1/8 + 1/64 + ... bitmap tests
 *     EXPIRY                 O(1) per slot: spliced whole, no timer read
 *     next_expiry            O(levels) bitmap scans, no timer read
 *
 * No timer is read or written between its start and its expiry: expiry
 * splices whole slots onto the ready list.  That makes this the cheapest
 * scheme when lateness is acceptable (idle and retransmission timeouts).
 *
 * next_expiry returns the tick at which the earliest slot expires, which is
 * when tw_advance() will fire its timers: at or after their deadlines, by at
 * most the lateness above.  (A lower bound of the deadlines would wake an
 * event loop that then finds nothing due, again and again, until the slot's
 * tick.)  An advance to TW_TIME_MAX expires everything, including slots
 * whose rounded tick would lie past the end of time.
 *
 * Order: none within one advance, not even among equal deadlines: every
 * slot's timers are spread over 8 lanes by their nodes' addresses
 * (tw_lane_of()), and the lanes of all the slots taken are popped in turn.
 *
 * The start and stop of a timer are leaves (coarse_start(), coarse_stop()
 * below): a start is the state word's check, the count, the unlink and the
 * link of tw_coarse_link(), and nothing else (no cache; the unlink of a
 * pending node leaves an emptied lane's bits set too); a stop of a node
 * due after now is an unlink (of a node alone in its lane too, which
 * leaves the lane's bits set: next_expiry below clears such slots); their
 * rare other cases, a timer kept past its deadline among them, take the
 * full path (entry.h).
 *
 * Memory: per slot 8 lane heads of 16 bytes, a byte of lane bits and a
 * bit: 169 KiB for 64 x 21.
 */
#include "../entry.h"
#include "../slots.h"

#define COARSE_GSHIFT 3u        /* each level 8 times coarser */

struct coarse_state {
    struct tw_slots s;          /* levels * S slots of TW_LANES lanes */
    unsigned bits;              /* log2 S */
    unsigned levels;
    uint32_t S, mask;
    /* The level of an interval d: level_of_msb[msb(d)], one higher when
     * d > hold[that level].  Level l holds d up to hold[l] = (S-2) * 8^l - 1
     * (the top level: everything), and the levels grow by 8 while an msb
     * spans a factor of 2, so one step is enough. */
    uint8_t level_of_msb[64];
    tw_time_t hold[32];
};

TW_INLINE unsigned tw_coarse_level(const struct coarse_state *h, tw_time_t d)
{
    unsigned l = h->level_of_msb[63u - (unsigned)tw_clz64(d | 1u)];
    return l + (d > h->hold[l]);
}

/* Link t, deadline e (interval e - now, e > now), into its lane: the slot of
 * e rounded up to its level's granularity, the lane from the node's address
 * (tw_lane_of()).  A lane whose bit is set (it has timers, or had them
 * until the stop leaf emptied it) leaves the bits and the horizon as they
 * are: every timer of a slot expires at the same tick (it holds rounded
 * deadlines 1 to S granules ahead, one residue mod S), and the horizon is
 * at or below the tick of every slot whose bit is set already. */
TW_INLINE void tw_coarse_link(struct tw *tw, struct coarse_state *h, struct tw_timer *t,
                              tw_time_t e)
{
    unsigned l = tw_coarse_level(h, e - tw->now), sh = l * COARSE_GSHIFT;
    tw_time_t up = ((e - 1) >> sh) + 1; /* ceil(e / 2^sh), e > now >= 0 */
    size_t i = ((size_t)l << h->bits) + (size_t)(up & h->mask);
    size_t k = (i << TW_LANE_SHIFT) + tw_lane_of(t);
    if (!tw_lane_add(&h->s.head[k], &t->tw_u.link))
        return;
    /* Bits left set (slots.h): the slot counts as occupied, the horizon is
     * at or below its tick. */
    if (tw_slots_lane_marked(&h->s, k, TW_LANE_SHIFT))
        return;
    tw_slots_mark(&h->s, k, TW_LANE_SHIFT);
    tw_horizon_lower(tw, up > (TW_TIME_MAX >> sh) ? TW_TIME_MAX : up << sh);
}

static unsigned coarse_levels(uint32_t S)
{
    /* The top level must hold any d < 2^64: (S-2) << (l*3) > 2^64 - 1. */
    unsigned l = 0;
    while ((l + 1) * COARSE_GSHIFT < 64 &&
           ((TW_TIME_MAX >> (l * COARSE_GSHIFT)) >= (tw_time_t)(S - 2)))
        l++;
    return l + 1;
}

static const char *coarse_validate(const struct tw_config *cfg)
{
    if (!tw_is_pow2(cfg->slots) || cfg->slots < 16 || cfg->slots > 256)
        return "slots: a power of two from 16 to 256";
    if (cfg->levels != 0 && cfg->levels != coarse_levels(cfg->slots))
        return "levels: 0, or exactly the levels that cover 64 bits (each 8 times "
               "coarser than the one below: see hierarchical_coarse.c)";
    return NULL;
}

static size_t coarse_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct coarse_state);
}

static int coarse_init(struct tw *tw, const struct tw_config *cfg)
{
    struct coarse_state *h = TW_STATE(tw, struct coarse_state);
    h->bits = (unsigned)tw_ctz64(cfg->slots);
    h->S = cfg->slots;
    h->mask = cfg->slots - 1;
    h->levels = coarse_levels(cfg->slots);
    for (unsigned l = 0; l < h->levels; l++) {
        unsigned sh = l * COARSE_GSHIFT;
        tw_time_t g = (tw_time_t)1 << sh;
        h->hold[l] = (l + 1 < h->levels && TW_TIME_MAX / g >= (tw_time_t)(h->S - 2))
                         ? (tw_time_t)(h->S - 2) * g - 1
                         : TW_TIME_MAX;
    }
    /* The lowest level that holds 2^m; larger d of the same msb are held
     * by it or the next (tw_coarse_level()). */
    for (unsigned m = 0, l = 0; m < 64; m++) {
        while (((tw_time_t)1 << m) > h->hold[l])
            l++;
        h->level_of_msb[m] = (uint8_t)l;
    }
    return tw_slots_init(tw, &h->s, h->S * h->levels, TW_LANE_SHIFT);
}

static void coarse_fini(struct tw *tw)
{
    tw_slots_fini(tw, &TW_STATE(tw, struct coarse_state)->s);
}

static void coarse_insert(struct tw *tw, struct tw_timer *t)
{
    tw_coarse_link(tw, TW_STATE(tw, struct coarse_state), t, t->tw_expires);
}

static void coarse_remove(struct tw *tw, struct tw_timer *t)
{
    tw_slots_unlink(&TW_STATE(tw, struct coarse_state)->s, &t->tw_u.link, TW_LANE_SHIFT);
}

static tw_time_t first_slot_tick(const struct coarse_state *h, tw_time_t c, bool *any);

static void coarse_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop);

static void coarse_collect(struct tw *tw, tw_time_t now, struct tw_ready *out)
{
    struct coarse_state *h = TW_STATE(tw, struct coarse_state);
    tw_time_t c = tw->now;
    for (unsigned l = 0; l < h->levels; l++) {
        unsigned sh = l * COARSE_GSHIFT;
        tw_time_t cl = c >> sh, nl = now >> sh;
        if (cl == nl && now != TW_TIME_MAX)
            break;
        tw_time_t diff = nl - cl;
        size_t span = (diff >= h->S || now == TW_TIME_MAX) ? h->S : (size_t)diff;
        size_t from = (size_t)((cl + 1) & h->mask);
        size_t base = (size_t)l << h->bits;
        size_t done = 0, i;
        while ((i = tw_window_next(h->s.bm, base, h->S, from, span, &done)) != SIZE_MAX)
            tw_slots_take(&h->s, base + i, out, TW_LANE_SHIFT);
    }
    bool any;
    tw->horizon = first_slot_tick(h, now, &any);
    tw->now = now; /* for floors() */
    coarse_floors(tw, &tw->start_floor, &tw->stop_floor);
}

/* The tick at which the first occupied slot expires, against time c, or
 * TW_TIME_MAX if none (a slot past the end of time expires at TW_TIME_MAX,
 * when an advance to TW_TIME_MAX empties everything). */
static tw_time_t first_slot_tick(const struct coarse_state *h, tw_time_t c, bool *any)
{
    tw_time_t best = TW_TIME_MAX;
    *any = false;
    for (unsigned l = 0; l < h->levels; l++) {
        unsigned sh = l * COARSE_GSHIFT;
        size_t base = (size_t)l << h->bits;
        tw_time_t cl = c >> sh;
        size_t d = tw_bm_find_circular(h->s.bm, base, h->S, (size_t)((cl + 1) & h->mask));
        if (d == h->S)
            continue;
        *any = true;
        tw_time_t slot = cl + 1 + d; /* in units of 2^sh */
        tw_time_t when = slot > (TW_TIME_MAX >> sh) ? TW_TIME_MAX : slot << sh;
        if (when < best)
            best = when;
    }
    return best;
}

static int coarse_next(struct tw *tw, tw_time_t *out)
{
    struct coarse_state *h = TW_STATE(tw, struct coarse_state);
    /* A slot whose lanes the leaves emptied keeps its bits (slots.h, "Bits
     * left set"): clear each level's such slots ahead
     * of its first occupied one, so that the scan below gives the tick at
     * which a timer fires.  Each bit left set is cleared once. */
    for (unsigned l = 0; l < h->levels; l++) {
        size_t base = (size_t)l << h->bits, d;
        size_t from = (size_t)(((tw->now >> (l * COARSE_GSHIFT)) + 1) & h->mask);
        while ((d = tw_bm_find_circular(h->s.bm, base, h->S, from)) != h->S &&
               tw_slots_empty(&h->s, base + ((from + d) & h->mask)))
            tw_slots_clear(&h->s, base + ((from + d) & h->mask));
    }
    bool any;
    tw_time_t t = first_slot_tick(h, tw->now, &any);
    if (any)
        *out = t;
    return any;
}

static int coarse_check(struct tw *tw, struct tw_checker *c)
{
    struct coarse_state *h = TW_STATE(tw, struct coarse_state);
    int rc = tw_slots_check_bits(&h->s, c, "hierarchical_coarse", true);
    for (uint32_t q = 0; rc == 0 && q < (h->s.n << TW_LANE_SHIFT); q++) {
        struct tw_link *head = &h->s.head[q];
        uint32_t i = q >> TW_LANE_SHIFT;
        unsigned l = i >> h->bits;
        unsigned sh = l * COARSE_GSHIFT;
        for (struct tw_link *k = head->next; rc == 0 && k != head; k = k->next) {
            const struct tw_timer *t = tw_of(k);
            if (k->next->prev != k)
                return tw_fail(c, "hierarchical_coarse: broken link in slot %u", i);
            rc = tw_check_node(tw, c, t);
            if (rc)
                break;
            tw_time_t e = t->tw_expires;
            tw_time_t up = (e >> sh) + ((e & (((tw_time_t)1 << sh) - 1)) != 0);
            tw_time_t ahead = up - (tw->now >> sh);
            if ((up & h->mask) != (i & h->mask) || ahead == 0 || ahead > h->S)
                rc = tw_fail(c, "hierarchical_coarse: deadline %llu misplaced at level %u "
                             "slot %u (now %llu)", (unsigned long long)e, l, i & h->mask,
                             (unsigned long long)tw->now);
            c->seen++;
        }
    }
    /* The horizon is at or below the tick of every occupied slot, the
     * earliest one's: tw_coarse_link() lowers it only for a lane's first
     * timer, since every timer of a slot comes up at the same tick. */
    bool any;
    tw_time_t first = first_slot_tick(h, tw->now, &any);
    if (rc == 0 && any && first < tw->horizon)
        rc = tw_fail(c, "hierarchical_coarse: a slot comes up at %llu, before the horizon %llu",
                     (unsigned long long)first, (unsigned long long)tw->horizon);
    return rc;
}

/* The bound above, for the tests (ops->latest_fire): late by at most the
 * largest whole number of ticks below 8 d / (S-2), floor((8 d - 1) /
 * (S-2)), computed without forming 8 d (d = q m + r), and saturated. */
static tw_time_t coarse_latest_fire(const struct tw_config *cfg, tw_time_t start_now,
                                    tw_time_t deadline)
{
    if (deadline <= start_now || cfg->slots <= 2)
        return deadline;
    tw_time_t d = deadline - start_now, m = cfg->slots - 2u, q = d / m, r = d % m;
    tw_time_t slack = r == 0 ? q * 8u - 1u : q * 8u + (r * 8u - 1u) / m;
    return tw_sat_add(deadline, slack);
}

/* ------------------------------------------------ start and stop */

/* The scheme keeps a timer past its deadline (it fires at its slot's
 * tick), so its remove takes a node from wherever it is. */
#define COARSE_KEEPS_LATE true

/* The floors: no start floor (the start leaf below tests its own case); a
 * node pending here with its deadline after now is in a slot's lane, and
 * its stop is one unlink (a lane it empties keeps its bits: slots.h). */
static void coarse_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    *start = TW_TIME_MAX;
    *stop = tw->now;
}

#define COARSE_HOOKS \
    ((struct tw_hooks){NULL, coarse_insert, coarse_remove, coarse_floors, COARSE_KEEPS_LATE})

TW_ENTRY_FULL_PATHS(coarse, COARSE_HOOKS)

/* The common case of a start, as a leaf: a node idle or pending here, a
 * deadline after now (interval 0 and a sum that wraps take the full path,
 * which saturates it, as does everything else; a deadline of exactly the
 * end of time is linked here, as insert would).  A pending node leaves
 * whatever list holds it with one unlink. */
static int coarse_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    tw_time_t deadline = tw->now + interval;
    if (TW_UNLIKELY(t == NULL || deadline <= tw->now))
        return coarse_start_full(tw, t, interval);
    uint64_t w = tw_node_word(t);
    if (TW_LIKELY(w == tw_node_word_of(TW_MAGIC, 0)))
        tw->count++;
    else if (w == tw->word_mine)
        tw_list_del(&t->tw_u.link); /* an emptied lane keeps its bits (slots.h) */
    else
        return coarse_start_full(tw, t, interval); /* not initialised, elsewhere */
    tw_arm_node(t, deadline, tw->word_mine);
    tw_coarse_link(tw, TW_STATE(tw, struct coarse_state), t, deadline);
    return 0;
}

static int coarse_stop(struct tw *tw, struct tw_timer *t)
{
    return tw_wheel_stop(tw, t, coarse_stop_full);
}

const struct tw_ops tw_hierarchical_coarse_ops = {
    .order = TW_ORDER_NONE,
    .default_slots = 64,
    .keeps_late = COARSE_KEEPS_LATE,
    .by_interval = true, /* the level, and so the rounding, by interval */
    .latest_fire = coarse_latest_fire,
    .validate = coarse_validate,
    .state_size = coarse_state_size,
    .init = coarse_init,
    .fini = coarse_fini,
    .reserve = NULL,
    .insert = coarse_insert,
    .remove = coarse_remove,
    .collect = coarse_collect,
    .next = coarse_next,
    .check = coarse_check,
    .start = coarse_start,
    .stop = coarse_stop,
    .floors = coarse_floors,
};
