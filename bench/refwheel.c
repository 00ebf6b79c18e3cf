/*
 * refwheel.c -- a lean hierarchical timing wheel (G. Varghese and A. Lauck,
 * "Hashed and Hierarchical Timing Wheels", Scheme 7), written for twbench
 * from the paper's algorithm as the yardstick of an embedded wheel: what a
 * wheel with nothing beyond the algorithm costs, so that twheel's schemes
 * are measured against it as well as against the event loops' heaps.
 *
 * Geometry.  Time is read as 11 digits of 6 bits; level l has 64 slots, one
 * per value of digit l:
 *
 *     level   digit (bits)   a slot spans     the level reaches
 *       0        0-5          1 tick           64 ticks
 *       1        6-11         64               2^12
 *       l        6l..6l+5     2^(6l)           2^(6l+6)
 *      10       60-63         2^60             2^64 (16 slots used)
 *
 * Placement.  A timer with deadline d sits at the level of the highest
 * digit in which d differs from now, in the slot of its own digit there
 * (a deadline at or before now is placed as now + 1, and fires at the next
 * advance).  So every timer of level l shares now's digits above l and has
 * a larger digit l: a level's occupied slots all lie after now's digit,
 * everything at a lower level is due before anything at a higher one, and
 * a level-0 slot holds the timers of one tick.  occ[l] has a bit per slot that may
 * hold timers: start sets it; stop leaves it (a stop is a bare unlink), and
 * the advance that passes the slot, or rw_next_deadline(), clears it.
 *
 * Advance from now to t.  Let h be the highest digit in which t differs
 * from now.  Levels below h: every timer there is due (its deadline has
 * now's digits from h up, and t's digit h is larger), so each occupied
 * slot, found from occ[], is spliced whole onto the due list.  Level h: the
 * slots strictly between now's digit and t's are due, spliced whole; the
 * slot of t's digit has come up, and its timers migrate down, each placed
 * again against t (or made due if its deadline is not after t).  Levels
 * above h are untouched.  Then the due list fires, a timer at a time,
 * unlinked before its callback, so a callback may start or stop anything.
 * A timer fires in the first advance that reaches its deadline, never
 * before.
 *
 * Costs: start O(1) (a count of leading zeros, a division by 6, a link, a
 * bit); stop O(1) (an unlink); an advance O(h + occupied slots passed +
 * timers migrated or fired), whatever the jump: ticks with nothing due are
 * never visited, and an advance that passes no occupied slot (most often a
 * step within level 0's revolution) reads the bitmaps, stores the time and
 * returns, saving no register.  A timer migrates at most once per level it
 * passes down (the paper's c7 * m), and not at all if a jump makes it due
 * at once.
 * Memory: the 32-byte node, and a wheel of 22,656 bytes (704 slot sentinels
 * of 32 bytes, the due list, 11 bitmaps, the time).  No allocation, no
 * argument checking.
 */
#include "refwheel.h"

static inline unsigned level_of(uint64_t at, uint64_t now)
{
    return (unsigned)(63 - __builtin_clzll(at ^ now)) / RW_BITS;
}

static inline unsigned digit(uint64_t t, unsigned level)
{
    return (unsigned)(t >> (level * RW_BITS)) & (RW_SLOTS - 1);
}

/* The bits of level l's slots that a move from now to t passes over: from
 * the one after now's digit to t's (now and t agree above l). */
static inline uint64_t passed(uint64_t now, uint64_t t, unsigned l)
{
    return ((UINT64_C(2) << digit(t, l)) - 1) & ~((UINT64_C(2) << digit(now, l)) - 1);
}

/* Link t at the tail of list head. */
static inline void link_tail(struct rw_timer *head, struct rw_timer *t)
{
    struct rw_timer *last = head->prev;
    t->next = head;
    t->prev = last;
    last->next = t;
    head->prev = t;
}

/* Put t in its slot for tick `at` (> now). */
static inline void place(struct rw_wheel *w, struct rw_timer *t, uint64_t at, uint64_t now)
{
    unsigned l = level_of(at, now), s = digit(at, l);
    link_tail(&w->slot[l][s], t);
    w->occ[l] |= UINT64_C(1) << s;
}

/* Move every timer of list head to the tail of the due list. */
static inline void splice(struct rw_timer *head, struct rw_timer *due)
{
    struct rw_timer *first = head->next, *last = head->prev;
    if (first == head)
        return; /* a bit left set by stops */
    first->prev = due->prev;
    due->prev->next = first;
    last->next = due;
    due->prev = last;
    head->next = head->prev = head;
}

void rw_init(struct rw_wheel *w, uint64_t now)
{
    w->now = now;
    w->due.next = w->due.prev = &w->due;
    for (unsigned l = 0; l < RW_LEVELS; l++) {
        w->occ[l] = 0;
        for (unsigned s = 0; s < RW_SLOTS; s++)
            w->slot[l][s].next = w->slot[l][s].prev = &w->slot[l][s];
    }
}

void rw_start(struct rw_wheel *w, struct rw_timer *t, uint64_t deadline)
{
    uint64_t now = w->now;
    t->deadline = deadline;
    place(w, t, deadline > now ? deadline : now + 1, now);
}

void rw_stop(struct rw_timer *t)
{
    t->prev->next = t->next;
    t->next->prev = t->prev;
    t->next = NULL;
}

/* An advance with timers to take: out of line, so that one with nothing to
 * take saves no registers.  take: passed(now, t, h). */
static __attribute__((noinline)) uint64_t advance_slow(struct rw_wheel *w, uint64_t t,
                                                       unsigned h, uint64_t take)
{
    struct rw_timer *due = &w->due;
    uint64_t fired = 0;
    for (unsigned l = 0; l < h; l++) {
        uint64_t m = w->occ[l];
        w->occ[l] = 0;
        for (; m; m &= m - 1)
            splice(&w->slot[l][__builtin_ctzll(m)], due);
    }
    unsigned b = digit(t, h);
    uint64_t m = w->occ[h] & take, bit = UINT64_C(1) << b;
    w->occ[h] &= ~take;
    for (uint64_t k = m & ~bit; k; k &= k - 1)
        splice(&w->slot[h][__builtin_ctzll(k)], due);
    w->now = t;
    if (m & bit) {
        struct rw_timer *head = &w->slot[h][b];
        if (h == 0) {
            splice(head, due); /* a level-0 slot's timers are due at its tick */
        } else {
            for (struct rw_timer *x = head->next, *next; x != head; x = next) {
                next = x->next;
                if (x->deadline <= t)
                    link_tail(due, x);
                else
                    place(w, x, x->deadline, t);
            }
            head->next = head->prev = head;
        }
    }
    while (due->next != due) {
        struct rw_timer *x = due->next;
        due->next = x->next;
        x->next->prev = due;
        x->next = NULL;
        x->cb(w, x);
        fired++;
    }
    return fired;
}

uint64_t rw_advance(struct rw_wheel *w, uint64_t t)
{
    uint64_t now = w->now, lower = 0;
    if (t <= now)
        return 0;
    if ((t ^ now) < RW_SLOTS) { /* the common step: within level 0's revolution */
        uint64_t take = passed(now, t, 0);
        if (w->occ[0] & take)
            return advance_slow(w, t, 0, take);
        w->now = t;
        return 0;
    }
    unsigned h = level_of(t, now);
    uint64_t take = passed(now, t, h);
    for (unsigned l = 0; l < h; l++)
        lower |= w->occ[l];
    if ((lower | (w->occ[h] & take)) == 0) {
        w->now = t;
        return 0;
    }
    return advance_slow(w, t, h, take);
}

int rw_next_deadline(struct rw_wheel *w, uint64_t *deadline)
{
    for (unsigned l = 0; l < RW_LEVELS; l++)
        for (uint64_t m = w->occ[l]; m; m &= m - 1) {
            struct rw_timer *head = &w->slot[l][__builtin_ctzll(m)], *x = head->next;
            if (x == head) { /* emptied by stops: clear its bit */
                w->occ[l] &= ~(m & -m);
                continue;
            }
            uint64_t d = x->deadline;
            for (x = x->next; x != head; x = x->next)
                d = x->deadline < d ? x->deadline : d;
            *deadline = d;
            return 1;
        }
    return 0;
}
