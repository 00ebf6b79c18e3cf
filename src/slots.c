/*
 * slots.c -- a table of list heads with an occupancy bitmap, shared by the
 * single-level wheels (Schemes 4, 5 and 6).
 *
 * Each slot is a circular doubly linked list head (16 bytes); bit i of the
 * bitmap is set exactly while slot i is not empty (in these tables; the
 * hierarchical wheels may keep a bit over an emptied lane: struct
 * tw_slots).  A node that is unlinked
 * can tell that it emptied its slot without knowing which slot it was in:
 * both of its old neighbours are then the head, and the head's address gives
 * the index (tw_slots_unlink).  That is why a node needs no slot field.
 */
#include "twheel_internal.h"

/* The one-level tables (wheel, hashed, hashed_sorted): a power of two of
 * at most 2^28 slots. */
const char *tw_slots_validate(const struct tw_config *cfg)
{
    if (!tw_is_pow2(cfg->slots) || cfg->slots > (1u << 28))
        return "slots: a power of two from 1 to 2^28";
    return NULL;
}

static size_t words_for(uint32_t n) { return ((size_t)n + 63) / 64; }

int tw_slots_init(struct tw *tw, struct tw_slots *s, uint32_t n, unsigned lshift)
{
    s->n = n;
    s->mask = n - 1;
    s->lshift = lshift;
    s->head = tw_mem_alloc(tw, ((size_t)n << lshift) * sizeof *s->head);
    s->bm = tw_mem_alloc(tw, words_for(n) * sizeof *s->bm);
    s->lanes = lshift ? tw_mem_alloc(tw, n) : NULL;
    if (s->head == NULL || s->bm == NULL || (lshift && s->lanes == NULL)) {
        tw_slots_fini(tw, s);
        return TW_ENOMEM;
    }
    for (size_t i = 0; i < ((size_t)n << lshift); i++)
        tw_list_init(&s->head[i]);
    memset(s->bm, 0, words_for(n) * sizeof *s->bm);
    if (lshift)
        memset(s->lanes, 0, n);
    return 0;
}

void tw_slots_fini(struct tw *tw, struct tw_slots *s)
{
    tw_mem_free(tw, s->head, ((size_t)s->n << s->lshift) * sizeof *s->head);
    tw_mem_free(tw, s->bm, words_for(s->n) * sizeof *s->bm);
    if (s->lshift)
        tw_mem_free(tw, s->lanes, s->n);
    s->head = NULL;
    s->bm = NULL;
    s->lanes = NULL;
}

int tw_slots_check_bits(const struct tw_slots *s, struct tw_checker *c, const char *who,
                        bool stale_ok)
{
    for (uint32_t i = 0; i < s->n; i++) {
        bool empty = tw_slots_empty(s, i), bit = tw_bm_test(s->bm, i);
        if (empty == bit && (bit == 0 || !stale_ok))
            return tw_fail(c, "%s: slot %u has bit %d but %s list", who, i, (int)bit,
                           empty ? "an empty" : "a full");
        if (s->lshift && (s->lanes[i] != 0) != bit)
            return tw_fail(c, "%s: slot %u has bit %d but lane bits %#x", who, i, (int)bit,
                           (unsigned)s->lanes[i]);
        for (unsigned j = 0; s->lshift && j < (1u << s->lshift); j++) {
            bool lempty = tw_list_empty(&s->head[(i << s->lshift) + j]);
            bool lbit = tw_slots_lane_marked(s, (i << s->lshift) + j, s->lshift);
            if (lempty == lbit && (lbit == 0 || !stale_ok))
                return tw_fail(c, "%s: slot %u lane %u bit disagrees with its list", who, i, j);
        }
    }
    return 0;
}

/* ------------------------------------------------ the earliest deadlines */

_Static_assert(TW_MINCACHE_CAP <= 64, "the audit keeps one bit per entry");

/* The first index whose deadline is >= e. */
static uint32_t lower_bound(const struct tw_mincache *c, tw_time_t e)
{
    uint32_t lo = 0, hi = c->m;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (c->v[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void set_max(struct tw_mincache *c) { c->max = c->m ? c->v[c->m - 1] : 0; }

void tw_mincache_put(struct tw_mincache *c, tw_time_t e)
{
    uint32_t i = lower_bound(c, e);
    /* Callers put only what goes in: below the last of a full cache (so
     * i < m), or anything into one that is not full (i <= m < CAP). */
    uint32_t keep = c->m < TW_MINCACHE_CAP ? c->m : TW_MINCACHE_CAP - 1; /* full: the last goes */
    memmove(&c->v[i + 1], &c->v[i], (keep - i) * sizeof c->v[0]);
    c->v[i] = e;
    c->m = keep + 1;
    set_max(c);
}

void tw_mincache_del(struct tw_mincache *c, tw_time_t e)
{
    uint32_t i = lower_bound(c, e);
    if (i == c->m || c->v[i] != e)
        return; /* cannot happen while the invariant holds (tw_check says) */
    memmove(&c->v[i], &c->v[i + 1], (c->m - i - 1) * sizeof c->v[0]);
    c->m--;
    set_max(c);
}

void tw_mincache_drop(struct tw_mincache *c, tw_time_t now)
{
    uint32_t i = now < TW_TIME_MAX ? lower_bound(c, now + 1) : c->m;
    memmove(&c->v[0], &c->v[i], (c->m - i) * sizeof c->v[0]);
    c->m -= i;
    set_max(c);
}

void tw_mincache_clip(struct tw_mincache *c, tw_time_t t)
{
    if (t < TW_TIME_MAX)
        c->m = lower_bound(c, t + 1);
    set_max(c);
}

void tw_lists_offer(struct tw_link *const *heads, unsigned k, struct tw_mincache *c)
{
    struct tw_link *cur[TW_LANES], *end[TW_LANES];
    unsigned live = 0;
    for (unsigned j = 0; j < k; j++) {
        if (!tw_list_empty(heads[j])) {
            cur[live] = heads[j]->next;
            end[live] = heads[j];
            live++;
        }
    }
    while (live > 0) {
        for (unsigned j = 0; j < live;) {
            struct tw_link *l = cur[j];
            tw_mincache_offer(c, tw_of(l)->tw_expires);
            l = l->next;
            if (l == end[j]) { /* this list is done: the last takes its place */
                live--;
                cur[j] = cur[live];
                end[j] = end[live];
            } else {
                cur[j] = l;
                j++;
            }
        }
    }
}

void tw_mincache_see(const struct tw_mincache *c, struct tw_mincache_audit *a, tw_time_t e)
{
    if (c->m == 0 || c->m > TW_MINCACHE_CAP || e > c->max)
        return; /* (a corrupt m is tw_mincache_end's to report) */
    for (uint32_t i = lower_bound(c, e); i < c->m && c->v[i] == e; i++) {
        if (!((a->matched >> i) & 1u)) {
            a->matched |= UINT64_C(1) << i;
            return;
        }
    }
    if (e < c->max && !a->bad) { /* == max: one more beside the cached ones */
        a->bad = true;
        a->missing = e;
    }
}

int tw_mincache_end(const struct tw_mincache *c, const struct tw_mincache_audit *a,
                    struct tw_checker *k, const char *who)
{
    if (c->m > TW_MINCACHE_CAP)
        return tw_fail(k, "%s: earliest-deadline cache holds %u > %u", who, c->m,
                       TW_MINCACHE_CAP);
    for (uint32_t i = 1; i < c->m; i++)
        if (c->v[i - 1] > c->v[i])
            return tw_fail(k, "%s: earliest-deadline cache out of order at %u", who, i);
    if (c->max != (c->m ? c->v[c->m - 1] : 0))
        return tw_fail(k, "%s: earliest-deadline cache max %llu, last %llu", who,
                       (unsigned long long)c->max,
                       (unsigned long long)(c->m ? c->v[c->m - 1] : 0));
    if (a->bad)
        return tw_fail(k, "%s: deadline %llu below the cache's last (%llu) is not in it", who,
                       (unsigned long long)a->missing, (unsigned long long)c->max);
    uint64_t all = c->m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << c->m) - 1;
    if (a->matched != all)
        return tw_fail(k, "%s: the earliest-deadline cache holds a deadline no timer has", who);
    return 0;
}
