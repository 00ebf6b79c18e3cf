/*
 * twheel_internal.h -- what the facility core and the schemes share.
 *
 * The core (facility.c) owns the contract: argument checks, the due list of
 * timers whose deadline is not after the facility's time, the ready list that
 * makes callbacks safe, the pull queue, counting and re-entrancy.  A scheme
 * only keeps timers whose deadline is strictly after tw->now, and is reached
 * through one const struct tw_ops.  That split gives every scheme the same
 * answer to "where is this pending timer?":
 *
 *     deadline >  tw->now   in the scheme        -> ops->remove()
 *     deadline <= tw->now   on a plain list       -> unlink
 *                           (due, ready or expired queue)
 *
 * so the node needs no state beyond "pending", and stop is O(1) wherever the
 * timer is.  (A scheme that fires late, ops->keeps_late, may still hold a
 * timer whose deadline has passed; its remove() accepts any node.)
 */
#ifndef TWHEEL_INTERNAL_H
#define TWHEEL_INTERNAL_H

#include "twheel.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#if defined(__GNUC__)
#  define TW_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define TW_INLINE      static inline __attribute__((always_inline))
#  define TW_NOINLINE    __attribute__((noinline))
#else
#  define TW_NOINLINE
#  define TW_LIKELY(x)   (x)
#  define TW_UNLIKELY(x) (x)
#  define TW_INLINE      static inline
#endif

/* tw_flags: a magic in the high half catches nodes never initialised. */
#define TW_MAGIC        0x7e1d0000u
#define TW_MAGIC_MASK   0xffff0000u
#define TW_F_PENDING    0x1u
#define TW_F_SCHEME1    0x2u    /* free for a scheme's own use */
#define TW_F_SCHEME2    0x4u    /* free for a scheme's own use */

/* a + b, saturated at the end of time (never wrapping into the past). */
TW_INLINE tw_time_t tw_sat_add(tw_time_t a, tw_time_t b)
{
    tw_time_t s = a + b;
    return s < a ? TW_TIME_MAX : s;
}

TW_INLINE bool tw_node_valid(const struct tw_timer *t)
{
    return (t->tw_flags & TW_MAGIC_MASK) == TW_MAGIC;
}

TW_INLINE bool tw_node_pending(const struct tw_timer *t)
{
    return (t->tw_flags & TW_F_PENDING) != 0;
}

/* flags and owner read as one word, for the start and stop fast paths:
 * one load and one compare tell a valid node that is idle, or pending on
 * this facility, from every other case.  (memcpy: the two fields are
 * adjacent, checked below; the word's layout follows the machine's byte
 * order, and every word compared with it is built by tw_node_word_of.) */
TW_INLINE uint64_t tw_node_word(const struct tw_timer *t)
{
    uint64_t w;
    memcpy(&w, &t->tw_flags, sizeof w);
    return w;
}

TW_INLINE uint64_t tw_node_word_of(uint32_t flags, uint32_t owner)
{
    struct tw_timer t;
    t.tw_flags = flags;
    t.tw_owner = owner;
    return tw_node_word(&t);
}

_Static_assert(offsetof(struct tw_timer, tw_owner) == offsetof(struct tw_timer, tw_flags) + 4,
               "flags and owner must make one 64-bit word");
_Static_assert(offsetof(struct tw_timer, tw_flags) == offsetof(struct tw_timer, tw_expires) + 8,
               "the deadline and the state word must be adjacent (arm_node())");

/* ---------------------------------------------------- circular lists */

TW_INLINE void tw_list_init(struct tw_link *h) { h->next = h->prev = h; }
TW_INLINE bool tw_list_empty(const struct tw_link *h) { return h->next == h; }

TW_INLINE void tw_list_add_tail(struct tw_link *h, struct tw_link *n)
{
    struct tw_link *p = h->prev;
    n->next = h;
    n->prev = p;
    p->next = n;
    h->prev = n;
}

TW_INLINE void tw_list_add_after(struct tw_link *pos, struct tw_link *n)
{
    struct tw_link *nx = pos->next;
    n->prev = pos;
    n->next = nx;
    nx->prev = n;
    pos->next = n;
}

TW_INLINE void tw_list_del(struct tw_link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
}

/* Move the nodes of `from`, its first through `last` (one of its nodes),
 * to the tail of `to`, in their order.  It reads `from`, `last` and `to`
 * but not the node after `last`, which it only writes: at large n that
 * node is usually cold, and a load of it would stall where a store
 * does not. */
TW_INLINE void tw_list_splice_through(struct tw_link *to, struct tw_link *from,
                                      struct tw_link *last)
{
    struct tw_link *first = from->next, *next = last->next, *tail = to->prev;
    tail->next = first;
    first->prev = tail;
    last->next = to;
    to->prev = last;
    from->next = next;
    next->prev = from;
}

/* Move every node of `from` to the tail of `to`; `from` ends empty. */
TW_INLINE void tw_list_splice_tail(struct tw_link *to, struct tw_link *from)
{
    if (!tw_list_empty(from))
        tw_list_splice_through(to, from, from->prev);
}

TW_INLINE struct tw_timer *tw_of(struct tw_link *l)
{
    return (struct tw_timer *)(void *)l; /* link is the first member */
}

/* ---------------------------------------------------- bit helpers */

TW_INLINE unsigned tw_ctz64(uint64_t x) { return (unsigned)__builtin_ctzll(x); }
TW_INLINE unsigned tw_clz64(uint64_t x) { return (unsigned)__builtin_clzll(x); }
TW_INLINE unsigned tw_fls64(uint64_t x) { return x ? 64u - tw_clz64(x) : 0u; }

/* Rotate left by r (r in 0..63). */
TW_INLINE uint64_t tw_rotl64(uint64_t x, unsigned r)
{
    return r ? (x << r) | (x >> (64u - r)) : x;
}

/* ---------------------------------------------------- occupancy bitmaps */

/* The software form of the paper's Appendix A: one bit per slot, set while
 * the slot's list is not empty, so that per-tick work skips empty slots and
 * a jump over many ticks costs O(occupied slots), not O(ticks). */

TW_INLINE bool tw_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

TW_INLINE void tw_bm_set(uint64_t *bm, size_t i) { bm[i >> 6] |= 1ull << (i & 63); }
TW_INLINE void tw_bm_clear(uint64_t *bm, size_t i) { bm[i >> 6] &= ~(1ull << (i & 63)); }
TW_INLINE bool tw_bm_test(const uint64_t *bm, size_t i)
{
    return (bm[i >> 6] >> (i & 63)) & 1u;
}

/* First set bit in [from, to), or `to` if none. */
TW_INLINE size_t tw_bm_find(const uint64_t *bm, size_t from, size_t to)
{
    if (from >= to)
        return to;
    size_t w = from >> 6;
    uint64_t x = bm[w] & (~0ull << (from & 63));
    for (;;) {
        if (x) {
            size_t i = (w << 6) + tw_ctz64(x);
            return i < to ? i : to;
        }
        if (++w << 6 >= to)
            return to;
        x = bm[w];
    }
}

/* First set bit at or after `from` going round the m bits base .. base+m-1
 * (m a power of two, from < m), as a distance 0..m-1 from `from`; m if none
 * is set. */
TW_INLINE size_t tw_bm_find_circular(const uint64_t *bm, size_t base, size_t m, size_t from)
{
    size_t i = tw_bm_find(bm, base + from, base + m);
    if (i < base + m)
        return i - base - from;
    i = tw_bm_find(bm, base, base + from);
    return i < base + from ? m - from + (i - base) : m;
}

/* Walk the occupied slots of a circular window: the `span` slots starting
 * at `from` among the m slots at bit `base`.  Returns the next occupied
 * slot (0..m-1) in window order, or SIZE_MAX at the end; *done counts the
 * slots consumed so far (start it at 0), so the slot returned is window
 * position *done - 1. */
TW_INLINE size_t tw_window_next(const uint64_t *bm, size_t base, size_t m, size_t from,
                                size_t span, size_t *done)
{
    while (*done < span) {
        /* The rest of the window from here, up to the end of the table. */
        size_t pos = (from + *done) & (m - 1);
        size_t lim = pos + (span - *done);
        if (lim > m)
            lim = m;
        size_t i = tw_bm_find(bm, base + pos, base + lim);
        if (i < base + lim) {
            *done += i - base - pos + 1;
            return i - base;
        }
        *done += lim - pos;
    }
    return SIZE_MAX;
}

/* ---------------------------------------------------- ready lanes */

/* Expired timers are handed from the scheme to the core on TW_LANES lists.
 * Walking one linked list costs a full memory latency per node, because
 * each node's address is in the node before it; the core pops the lanes in
 * turn, so TW_LANES chains of cache misses are in flight at once instead of
 * one.  A scheme that promises an order puts everything on lane 0. */
#define TW_LANE_SHIFT 3u /* 8 lanes: one byte of lane bits per slot */
#define TW_LANES (1u << TW_LANE_SHIFT)

struct tw_ready {
    struct tw_link lane[TW_LANES];
};

TW_INLINE void tw_ready_init(struct tw_ready *r)
{
    for (unsigned j = 0; j < TW_LANES; j++)
        tw_list_init(&r->lane[j]);
}

/* Pop the next node, taking lanes in turn from *j; NULL when all are empty. */
TW_INLINE struct tw_link *tw_ready_pop(struct tw_ready *r, unsigned *j)
{
    for (unsigned k = 0; k < TW_LANES; k++) {
        struct tw_link *h = &r->lane[*j];
        *j = (*j + 1) & (TW_LANES - 1);
        if (!tw_list_empty(h)) {
            struct tw_link *l = h->next;
            tw_list_del(l);
            __builtin_prefetch(h->next);
            return l;
        }
    }
    return NULL;
}

/* A lane for a node from its address alone (Fibonacci hashing of the
 * address: the top bits of its product with 2^64 / phi): no state to load
 * and store per start, as a counter dealing lanes in turn would need.
 * Nodes at any stride spread evenly over the lanes.  The address of the
 * node or of its link (the node's first member) gives the same lane. */
TW_INLINE unsigned tw_lane_of(const void *node)
{
    return (unsigned)(((uint64_t)(uintptr_t)node * UINT64_C(0x9e3779b97f4a7c15)) >>
                      (64u - TW_LANE_SHIFT));
}

/* ---------------------------------------------------- slot tables (slots.c) */

struct tw_checker;

/* n logical slots, each of 1 << lshift lanes (physical list heads).  Bit i
 * of the bitmap is set iff some lane bit of slot i is, and a lane's bit is
 * set iff the lane is not empty -- or, in the hierarchical wheels (the
 * hybrid's too), also over a lane the leaves emptied (stop_lane_last()
 * and the unlink of a restart in facility.c: there a set bit means "may
 * have timers").  Timers are
 * spread over the lanes of a slot by their addresses (tw_lane_of()), so
 * that a slot taken whole comes out as several independent chains (see
 * struct tw_ready). */
struct tw_slots {
    struct tw_link *head;       /* n << lshift list heads */
    uint64_t *bm;
    uint8_t *lanes;             /* lshift > 0: bit j set iff lane j not empty
                                 * (but see above) */
    uint32_t n, mask;           /* n a power of two */
    unsigned lshift;            /* 0 (one list per slot) or TW_LANE_SHIFT */
};

const char *tw_slots_validate(const struct tw_config *cfg);
int tw_slots_init(struct tw *tw, struct tw_slots *s, uint32_t n, unsigned lshift);
void tw_slots_fini(struct tw *tw, struct tw_slots *s);
/* Every slot's and lane's bit against its lists: set iff not empty, or
 * with stale_ok, set if not empty (the hierarchical wheels' leaves
 * leave an emptied lane's bits set: see struct tw_slots). */
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

/* Set the bits of lane k of the table (slot k >> lshift): its slot's bit
 * and, with lanes, the lane's bit in the slot's byte. */
TW_INLINE void tw_slots_mark(struct tw_slots *s, size_t k, unsigned lshift)
{
    size_t i = k >> lshift;
    tw_bm_set(s->bm, i);
    if (lshift)
        s->lanes[i] |= (uint8_t)(1u << (k & ((1u << lshift) - 1)));
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
    size_t k = (i << lshift) + lane;
    if (!tw_lane_add(&s->head[k], l))
        return false;
    tw_slots_mark(s, k, lshift);
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
 * table's heads (tw_slots_unlink() checks; stop_lane_last() knows it). */
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
 * clear its bit. */
TW_INLINE void tw_slots_take(struct tw_slots *s, size_t i, struct tw_ready *out)
{
    struct tw_link *h = &s->head[i << s->lshift];
    for (unsigned j = 0; j < (1u << s->lshift); j++)
        tw_list_splice_tail(&out->lane[j], &h[j]);
    tw_bm_clear(s->bm, i);
    if (s->lshift)
        s->lanes[i] = 0;
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

/* The earliest deadlines of a table, for the schemes whose next_expiry
 * must look inside a slot (hashed, hierarchical).  v[0..m) ascending are
 * the m smallest deadlines the table holds (counted with repeats), and
 * every deadline it holds besides them is >= v[m-1]; m == 0: nothing
 * known.  next_expiry fills it with one walk and answers v[0] from then on;
 * start and stop keep it exact with one compare against `max` (= v[m-1],
 * or 0 when m == 0: the tables hold only deadlines > now >= 0); expiry
 * drops what fired.  It empties only after its m timers have left, so a
 * caller that stops the earliest timer again and again (an event loop
 * whose connections close before their timeouts) pays one walk per m of
 * them, not one per stop. */
#define TW_MINCACHE_CAP 64u

struct tw_mincache {
    tw_time_t max;              /* v[m-1], or 0 */
    uint32_t m;
    tw_time_t v[TW_MINCACHE_CAP];
};

TW_INLINE bool tw_mincache_known(const struct tw_mincache *c) { return c->m != 0; }

/* Out of line, for the rare cases: a deadline among the cached ones. */
void tw_mincache_put(struct tw_mincache *c, tw_time_t e);
void tw_mincache_del(struct tw_mincache *c, tw_time_t e);

TW_INLINE void tw_mincache_insert(struct tw_mincache *c, tw_time_t e)
{
    if (TW_UNLIKELY(e < c->max))
        tw_mincache_put(c, e);
}

TW_INLINE void tw_mincache_remove(struct tw_mincache *c, tw_time_t e)
{
    if (TW_UNLIKELY(e <= c->max))
        tw_mincache_del(c, e);
}

/* A walk offers every deadline it sees to an empty cache. */
TW_INLINE void tw_mincache_offer(struct tw_mincache *c, tw_time_t e)
{
    if (c->m < TW_MINCACHE_CAP || e < c->max)
        tw_mincache_put(c, e);
}

/* Drop the deadlines <= now (their timers fired); keep only those <= t
 * (a walk that stopped where the unvisited timers are >= t). */
void tw_mincache_drop(struct tw_mincache *c, tw_time_t now);
TW_INLINE void tw_mincache_expire(struct tw_mincache *c, tw_time_t now)
{
    if (c->m != 0 && c->v[0] <= now) /* else nothing cached has fired */
        tw_mincache_drop(c, now);
}
void tw_mincache_clip(struct tw_mincache *c, tw_time_t t);

/* Offer every deadline on the k <= TW_LANES lists heads[0..k) to c, the
 * lists walked in turn, a node of each, so that their misses overlap: a
 * walk of one list is one dependent miss per node. */
void tw_lists_offer(struct tw_link *const *heads, unsigned k, struct tw_mincache *c);

/* tw_check(): call see() with every deadline the table holds, then end(),
 * which reports any disagreement through tw_fail(). */
struct tw_mincache_audit {
    uint64_t matched;           /* bit i: v[i] met a timer */
    tw_time_t missing;          /* a deadline below max the cache lacks */
    bool bad;
};
void tw_mincache_see(const struct tw_mincache *c, struct tw_mincache_audit *a, tw_time_t e);
int tw_mincache_end(const struct tw_mincache *c, const struct tw_mincache_audit *a,
                    struct tw_checker *k, const char *who);

/* ---------------------------------------------------- the scheme interface */

struct tw_ops {
    /* True when the scheme may keep a timer past its deadline (it fires
     * late, never early): then remove() is called for every pending timer,
     * wherever it is, and must cope with one on a core list. */
    bool keeps_late;
    /* NULL for a configuration the scheme accepts, else why not: a static
     * sentence naming the field and the rule, which tw_config_check()
     * hands out with TW_ECONFIG (as given: tw_create applies no defaults;
     * tw_config_init does).  NULL when there is nothing to check. */
    const char *(*validate)(const struct tw_config *cfg);
    /* The TW_OPT_ bits the scheme takes; any other is TW_ECONFIG. */
    uint32_t options;
    /* Bytes of scheme state that follow struct tw (fixed part). */
    size_t (*state_size)(const struct tw_config *cfg);
    /* Initialise the state; may allocate (then TW_ENOMEM). */
    int (*init)(struct tw *tw, const struct tw_config *cfg);
    /* Release what init and growth allocated.  The scheme is empty. */
    void (*fini)(struct tw *tw);
    /* Make room so that inserting a timer with this deadline (> tw->now)
     * cannot fail (NULL: insert never fails).  Called before the timer, if
     * pending, is taken out, so room for one more is what it must make. */
    int (*reserve)(struct tw *tw, tw_time_t deadline);
    /* Insert a timer with t->tw_expires > tw->now.  Never fails after a
     * successful reserve. */
    void (*insert)(struct tw *tw, struct tw_timer *t);
    /* Remove a timer this scheme holds.  The core rewrites the node's
     * flags and owner afterwards, so the scheme's flag bits need no
     * clearing here. */
    void (*remove)(struct tw *tw, struct tw_timer *t);
    /* Move every timer with deadline <= now (now > tw->now) to the tails of
     * out's lanes, linked through tw_u.link, and make the scheme ready for
     * tw->now == now.  Touches no timer it does not have to.  Sets
     * tw->horizon: the core skips collect while now < horizon, so it must
     * be no later than the first tick at which collect would find work
     * (a timer due, or a slot to migrate); insert lowers it likewise. */
    void (*collect)(struct tw *tw, tw_time_t now, struct tw_ready *out);
    /* Earliest deadline held: 1 and *out, or 0 when empty.  May update
     * caches, never moves timers. */
    int (*next)(struct tw *tw, tw_time_t *out);
    /* Verify placement of every held timer, counting them into c. */
    int (*check)(struct tw *tw, struct tw_checker *c);
    /* tw_ttl_hint(), for the schemes that group timers by TTL (NULL:
     * TW_EINVAL). */
    int (*hint)(struct tw *tw, tw_time_t ttl, int hint);
};

/* Per-scheme ops tables, defined in each scheme's file. */
extern const struct tw_ops tw_list_ops;
extern const struct tw_ops tw_ordered_ops;
extern const struct tw_ops tw_heap_ops;
extern const struct tw_ops tw_wheel_ops;
extern const struct tw_ops tw_hashed_sorted_ops;
extern const struct tw_ops tw_hashed_ops;
extern const struct tw_ops tw_hier_ops;
extern const struct tw_ops tw_coarse_ops;
extern const struct tw_ops tw_lawn_ops;
extern const struct tw_ops tw_hybrid_ops;

struct tw {
    /* The first 64 bytes hold what the exact wheel's leaves in tw_start()
     * and tw_stop() read in their common cases (facility.c, "The leaves"),
     * and the state words of every stop leaf; one cache line when the
     * allocator aligns to 64.  The other leaves, reached through
     * start_other() or stop_lane_last(), read `scheme` too (and Lawn's and
     * the hybrid's start, max_interval). */
    tw_time_t now;              /* the last now given to advance */
    size_t count;               /* pending timers, wherever they are */
    /* The floors of the leaves in tw_start() and tw_stop(), kept by
     * floor_sync() (facility.c).  start_floor: hierarchical, max(now, the
     * earliest-deadline cache's last entry); every other scheme
     * TW_TIME_MAX.  stop_floor, for a node whose word is word_mine: the
     * same for hierarchical, and for the hybrid's wheel with its cache;
     * lawn: now; hierarchical_coarse: 0; every other scheme TW_TIME_MAX.
     * A deadline above the floor is in the scheme's lists and out of the
     * cache (hierarchical_coarse: on any list, each of which takes a plain
     * unlink), so its stop is one unlink when the node is not alone in its
     * list (and, in the wheel, its start one link). */
    tw_time_t start_floor;
    tw_time_t stop_floor;
    tw_time_t horizon;          /* no collect needed while now < horizon */
    /* The hot paths' copies (set once at create): the node state word of
     * a timer pending here, and what start and stop call. */
    uint64_t word_mine;         /* tw_node_word() of a node pending here */
    uint64_t word_queued;       /* ... and in a Lawn queue (lawn: word_mine;
                                 * hybrid: with HYB_F_LAWN) */
    uint32_t id;                /* owner tag stored in pending nodes */
    uint32_t busy;              /* inside advance: callbacks running */
    /* the first 64 bytes end here */
    tw_time_t max_interval;     /* TW_TIME_MAX but for wheel */
    enum tw_scheme scheme;
    const struct tw_ops *ops;
    bool keeps_late;            /* ops->keeps_late */
    void (*insert)(struct tw *tw, struct tw_timer *t);
    void (*remove)(struct tw *tw, struct tw_timer *t);
    int (*reserve)(struct tw *tw, tw_time_t deadline);
    struct tw_link due;         /* pending, deadline <= now, not yet run */
    struct tw_link due_now;     /* the due list as the running advance took
                                 * it: run before the ready lanes, in order */
    struct tw_ready ready;      /* collected by the running advance */
    struct tw_link expired;     /* pull queue of tw_collect() */
    struct tw_allocator alloc;
    size_t memory;              /* bytes held through alloc */
    /* Scheme state follows, aligned for any scheme. */
    _Alignas(16) unsigned char state[];
};

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(offsetof(struct tw, max_interval) == 64,
               "the leaves' fields of struct tw must fill its first 64 bytes");
#endif

TW_INLINE void tw_horizon_lower(struct tw *tw, tw_time_t t)
{
    if (t < tw->horizon)
        tw->horizon = t;
}

#define TW_STATE(tw, type) ((type *)(void *)(tw)->state)

/* The facility's allocator, counting bytes. */
void *tw_mem_alloc(struct tw *tw, size_t size);
void *tw_mem_realloc(struct tw *tw, void *p, size_t old_size, size_t new_size);
void tw_mem_free(struct tw *tw, void *p, size_t size);

/* Invariant checking: schemes report through tw_fail(). */
struct tw_checker {
    char *msg;
    size_t len;
    size_t seen;                /* timers counted by the scheme */
};

/* Record a violation (printf-style) and return TW_ECORRUPT. */
int tw_fail(struct tw_checker *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Common checks on a node the scheme holds: valid, pending, owned, after now
 * (unless the scheme keeps late timers). */
int tw_check_node(struct tw *tw, struct tw_checker *c, const struct tw_timer *t);

#endif /* TWHEEL_INTERNAL_H */
