/*
 * scheme_sorted_array.c -- a test-only scheme: the timers in one array of
 * pointers sorted by deadline, start order among equal deadlines.
 *
 * It is not in the library.  The test suite compiles it into a build of the
 * library of its own (tests/CMakeLists.txt), adding it the way any scheme is
 * added (docs/adding-a-scheme.md): this file, which defines
 * tw_sorted_array_ops, and one X(SORTED_ARRAY, sorted_array) in the scheme
 * map, there through TW_SCHEME_MAP_EXTRA.  Every cross-scheme suite then
 * runs on it with no other line written, which is what it is here to show.
 * It also takes the optional paths a minimal scheme would not: memory that
 * grows in reserve() (so tw_start() can fail with TW_ENOMEM), and the
 * deadline order of Scheme 2.
 *
 *        lo                         hi         cap
 *     a: [t1 | t2 | t3 | ... | tn ] [ free ... ]     sorted by (deadline, seq)
 *
 *     START_TIMER            O(n)   binary search, then move the later ones up
 *     STOP_TIMER             O(n)   binary search, then move the later ones down
 *     PER_TICK_BOOKKEEPING   O(1)   compare a[lo] with now (the horizon)
 *     EXPIRY_PROCESSING      O(1)   per expired timer: lo moves on
 *
 * The node's heap fields hold the sequence number that breaks ties; the
 * array holds pointers only, so each comparison reads a node.
 */
#include "scheme.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

struct sa_state {
    struct tw_timer **a;
    uint32_t lo, hi, cap; /* the timers are a[lo .. hi-1] */
    uint64_t seq;
};

#define SA_MIN_CAP 16u

/* x before y: earlier deadline, or equal deadline and started earlier. */
static int sa_before(const struct tw_timer *x, const struct tw_timer *y)
{
    return x->tw_expires < y->tw_expires ||
           (x->tw_expires == y->tw_expires && x->tw_u.heap.seq < y->tw_u.heap.seq);
}

/* The first index in [lo, hi) whose timer is not before t. */
static uint32_t sa_search(const struct sa_state *s, const struct tw_timer *t)
{
    uint32_t lo = s->lo, hi = s->hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sa_before(s->a[mid], t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t sa_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct sa_state);
}

static int sa_init(struct tw *tw, const struct tw_config *cfg)
{
    (void)cfg;
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    s->a = tw_mem_alloc(tw, SA_MIN_CAP * sizeof *s->a);
    if (s->a == NULL)
        return TW_ENOMEM;
    s->cap = SA_MIN_CAP;
    return 0;
}

static void sa_fini(struct tw *tw)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    tw_mem_free(tw, s->a, (size_t)s->cap * sizeof *s->a);
    s->a = NULL;
}

/* Room for one more timer than the array holds; a failure changes
 * nothing. */
static int sa_reserve(struct tw *tw, tw_time_t deadline)
{
    (void)deadline;
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    if (s->hi - s->lo < s->cap)
        return 0;
    if (s->cap >= UINT32_MAX / 2 || (size_t)s->cap * 2 > SIZE_MAX / sizeof *s->a)
        return TW_ENOMEM;
    struct tw_timer **a = tw_mem_realloc(tw, s->a, (size_t)s->cap * sizeof *a,
                                         (size_t)s->cap * 2 * sizeof *a);
    if (a == NULL)
        return TW_ENOMEM;
    s->a = a;
    s->cap *= 2;
    return 0;
}

static void sa_insert(struct tw *tw, struct tw_timer *t)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    if (s->hi == s->cap) { /* reserve made room: it is below lo */
        memmove(s->a, s->a + s->lo, (size_t)(s->hi - s->lo) * sizeof *s->a);
        s->hi -= s->lo;
        s->lo = 0;
    }
    t->tw_u.heap.seq = s->seq++;
    uint32_t i = sa_search(s, t);
    memmove(s->a + i + 1, s->a + i, (size_t)(s->hi - i) * sizeof *s->a);
    s->a[i] = t;
    s->hi++;
    tw_horizon_lower(tw, t->tw_expires);
}

static void sa_remove(struct tw *tw, struct tw_timer *t)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    uint32_t i = sa_search(s, t); /* t itself: no other timer has its seq */
    assert(i < s->hi && s->a[i] == t);
    memmove(s->a + i, s->a + i + 1, (size_t)(s->hi - i - 1) * sizeof *s->a);
    s->hi--;
}

static void sa_collect(struct tw *tw, tw_time_t now, struct tw_ready *out)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    while (s->lo < s->hi && s->a[s->lo]->tw_expires <= now)
        tw_list_add_tail(tw_ready_lane(out, 0), &s->a[s->lo++]->tw_u.link);
    if (s->lo == s->hi)
        s->lo = s->hi = 0;
    tw->horizon = s->lo < s->hi ? s->a[s->lo]->tw_expires : TW_TIME_MAX;
}

static int sa_next(struct tw *tw, tw_time_t *out)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    if (s->lo == s->hi)
        return 0;
    *out = s->a[s->lo]->tw_expires;
    return 1;
}

static int sa_check(struct tw *tw, struct tw_checker *c)
{
    struct sa_state *s = TW_STATE(tw, struct sa_state);
    if (s->lo > s->hi || s->hi > s->cap)
        return tw_fail(c, "sorted_array: bounds lo %" PRIu32 " hi %" PRIu32 " cap %" PRIu32, s->lo, s->hi, s->cap);
    for (uint32_t i = s->lo; i < s->hi; i++) {
        int rc = tw_check_node(tw, c, s->a[i]);
        if (rc)
            return rc;
        if (i > s->lo && !sa_before(s->a[i - 1], s->a[i]))
            return tw_fail(c, "sorted_array: a[%" PRIu32 "] is not after a[%" PRIu32 "]", i, i - 1);
        c->seen++;
    }
    return 0;
}

const struct tw_ops tw_sorted_array_ops = {
    .order = TW_ORDER_DEADLINE,
    .state_size = sa_state_size,
    .init = sa_init,
    .fini = sa_fini,
    .reserve = sa_reserve,
    .insert = sa_insert,
    .remove = sa_remove,
    .collect = sa_collect,
    .next = sa_next,
    .check = sa_check,
};
