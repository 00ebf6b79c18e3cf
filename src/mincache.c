/*
 * mincache.c -- the earliest deadlines of a table (struct tw_mincache):
 * kept sorted in a small array, refilled by a walk of the lists that hold
 * the earliest timers.
 */
#include "mincache.h"

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
