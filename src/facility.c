/*
 * facility.c -- the part of twheel that every scheme shares.
 *
 * A facility is one struct tw followed by its scheme's fixed state.  The core
 * checks arguments, keeps the contract (docs/design.md) and dispatches to the
 * scheme through a const ops table, except for the hottest paths, which
 * need no stack frame (the hybrid's start: one saved register): tw_start
 * is itself the default scheme's start and tw_stop the stop of the default
 * scheme, Lawn and the hybrid in their common cases, and both jump to leaf
 * functions with the scheme's insert and remove in place for the rest
 * (docs/design.md, "Dispatch" and "Short paths").
 *
 * Where a pending timer lives:
 *
 *     deadline >  tw->now   held by the scheme
 *     deadline <= tw->now   on tw->due (started late or with interval 0),
 *                           on the ready list of a running tw_advance(), or
 *                           on tw->expired (pull form, until handed out)
 *
 * except in a scheme that fires late (ops->keeps_late), which may still hold
 * a timer whose deadline has passed and whose remove() accepts a node on
 * any list.
 *
 * Expiry runs in two phases, as libuv and the Linux wheel do: the scheme first
 * moves every due timer to a local ready list, the facility's time is set to
 * `now`, and only then are callbacks run, one node popped at a time.  Because
 * a ready timer is on an ordinary list, a callback can stop it (it is
 * unlinked and never fires), restart it (it goes back to the scheme or to the
 * due list, firing on a later advance), or free it; the core never touches a
 * node after passing it to its callback.
 */
#include "twheel_internal.h"
#include "schemes/coarse.h"
#include "schemes/hybrid.h" /* and hier.h, lawn.h */

#include <assert.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* arm_node() */
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* The node is the size of Linux's timer_list on LP64: keep it there. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct tw_timer) == 40,
               "struct tw_timer must stay 40 bytes on LP64");

/* ------------------------------------------------------------ version */

const char *tw_version(void)
{
#define TW_STR2_(x) #x
#define TW_STR_(x) TW_STR2_(x)
    return TW_STR_(TW_VERSION_MAJOR) "." TW_STR_(TW_VERSION_MINOR) "." TW_STR_(
        TW_VERSION_PATCH);
}

unsigned tw_version_hex(void) { return TW_VERSION_HEX; }

/* ------------------------------------------------------------- errors */

const char *tw_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define TW_ERR_MSG_(name, value, msg) \
    case TW_##name:                   \
        return msg;
        TW_ERRNO_MAP(TW_ERR_MSG_)
#undef TW_ERR_MSG_
    default:
        return "unknown error";
    }
}

const char *tw_err_name(int err)
{
    switch (err) {
    case 0:
        return "TW_OK";
#define TW_ERR_NAME_(name, value, msg) \
    case TW_##name:                    \
        return "TW_" #name;
        TW_ERRNO_MAP(TW_ERR_NAME_)
#undef TW_ERR_NAME_
    default:
        return "TW_E?";
    }
}

/* ------------------------------------------------------------ schemes */

static const struct {
    const char *name;
    const struct tw_ops *ops;
} scheme_table[TW_SCHEME_COUNT] = {
    [TW_LIST] = {"list", &tw_list_ops},
    [TW_ORDERED] = {"ordered", &tw_ordered_ops},
    [TW_HEAP] = {"heap", &tw_heap_ops},
    [TW_WHEEL] = {"wheel", &tw_wheel_ops},
    [TW_HASHED_SORTED] = {"hashed_sorted", &tw_hashed_sorted_ops},
    [TW_HASHED] = {"hashed", &tw_hashed_ops},
    [TW_HIERARCHICAL] = {"hierarchical", &tw_hier_ops},
    [TW_HIERARCHICAL_COARSE] = {"hierarchical_coarse", &tw_coarse_ops},
    [TW_LAWN] = {"lawn", &tw_lawn_ops},
    [TW_HYBRID] = {"hybrid", &tw_hybrid_ops},
};

const char *tw_scheme_name(enum tw_scheme scheme)
{
    if ((unsigned)scheme >= TW_SCHEME_COUNT)
        return NULL;
    return scheme_table[scheme].name;
}

int tw_scheme_from_name(const char *name)
{
    if (name == NULL)
        return TW_EINVAL;
    for (int i = 0; i < TW_SCHEME_COUNT; i++)
        if (strcmp(name, scheme_table[i].name) == 0)
            return i;
    return TW_EINVAL;
}

int tw_scheme_available(enum tw_scheme scheme)
{
    return (unsigned)scheme < TW_SCHEME_COUNT && scheme_table[scheme].ops != NULL;
}

/* ---------------------------------------------------------- allocator */

static void *default_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *default_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(p, new_size);
}

static void default_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

void *tw_mem_alloc(struct tw *tw, size_t size)
{
    void *p = tw->alloc.alloc_fn(tw->alloc.ctx, size);
    if (p)
        tw->memory += size;
    return p;
}

void *tw_mem_realloc(struct tw *tw, void *p, size_t old_size, size_t new_size)
{
    void *q;
    if (tw->alloc.realloc_fn) {
        q = tw->alloc.realloc_fn(tw->alloc.ctx, p, old_size, new_size);
    } else {
        q = tw->alloc.alloc_fn(tw->alloc.ctx, new_size);
        if (q && p) {
            memcpy(q, p, old_size < new_size ? old_size : new_size);
            tw->alloc.free_fn(tw->alloc.ctx, p, old_size);
        }
    }
    if (q)
        tw->memory = tw->memory - old_size + new_size;
    return q;
}

void tw_mem_free(struct tw *tw, void *p, size_t size)
{
    if (p) {
        tw->alloc.free_fn(tw->alloc.ctx, p, size);
        tw->memory -= size;
    }
}

/* ------------------------------------------------------- configuration */

int tw_config_init(struct tw_config *cfg, enum tw_scheme scheme)
{
    if (cfg == NULL || (unsigned)scheme >= TW_SCHEME_COUNT)
        return TW_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    cfg->scheme = scheme;
    switch (scheme) {
    case TW_WHEEL:
    case TW_HASHED:
    case TW_HASHED_SORTED:
        cfg->slots = 4096;
        break;
    case TW_HIERARCHICAL:
    case TW_HIERARCHICAL_COARSE:
    case TW_HYBRID:
        cfg->slots = 64;
        break;
    default:
        break;
    }
    return 0;
}

/* The floors of the leaves (struct tw) as the time and the wheels'
 * earliest-deadline caches make them now. */
TW_INLINE void floor_of(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    tw_time_t m = 0;
    *start = *stop = TW_TIME_MAX;
    switch (tw->scheme) {
    case TW_HIERARCHICAL:
        m = TW_STATE(tw, struct hier_state)->min.max;
        *start = *stop = m > tw->now ? m : tw->now;
        break;
    case TW_HYBRID:
        m = HYB(tw)->wheel.min.max;
        /* fall through */
    case TW_LAWN:
        *stop = m > tw->now ? m : tw->now;
        break;
    case TW_HIERARCHICAL_COARSE:
        /* Whatever list holds a node, a slot's lane or a core list, its
         * stop is one unlink if it is not alone there (detach(),
         * tw_slots_unlink()); the time never moves this floor. */
        *stop = 0;
        break;
    default:
        break;
    }
}

/* Keep the floors after anything that may have moved the time or a
 * wheel's cache: every path but the leaves, which move neither. */
TW_INLINE void floor_sync(struct tw *tw)
{
    floor_of(tw, &tw->start_floor, &tw->stop_floor);
}

/* Facility ids tag pending nodes so that a node pending on one facility is
 * refused by another.  32 bits: ids are reused after 2^32 creations. */
static _Atomic uint32_t next_id = 1;

/* Why tw_create() would refuse cfg, or NULL: the scheme, the allocator,
 * the options, then the scheme's own fields. */
static const char *config_why(const struct tw_config *cfg)
{
    if ((unsigned)cfg->scheme >= TW_SCHEME_COUNT)
        return "scheme: not an enum tw_scheme value";
    if (cfg->allocator && (cfg->allocator->alloc_fn == NULL ||
                           cfg->allocator->free_fn == NULL))
        return "allocator: alloc_fn and free_fn must both be set";
    const struct tw_ops *ops = scheme_table[cfg->scheme].ops;
    if (cfg->options & ~ops->options)
        return "options: a TW_OPT_ bit this scheme does not take (TW_OPT_LAWN_SCAN: "
               "lawn only; TW_OPT_ORDERED_FRONT: ordered only)";
    return ops->validate ? ops->validate(cfg) : NULL;
}

int tw_config_check(const struct tw_config *cfg, const char **why)
{
    const char *w = cfg == NULL ? NULL : config_why(cfg); /* NULL: the defaults */
    if (why)
        *why = w;
    return w ? TW_ECONFIG : 0;
}

int tw_create(struct tw **out, const struct tw_config *cfg)
{
    struct tw_config def;
    if (out == NULL)
        return TW_EINVAL;
    if (cfg == NULL) {
        tw_config_init(&def, TW_HIERARCHICAL);
        cfg = &def;
    }
    if (config_why(cfg))
        return TW_ECONFIG;
    const struct tw_ops *ops = scheme_table[cfg->scheme].ops;

    struct tw_allocator a = {default_alloc, default_realloc, default_free, NULL};
    if (cfg->allocator)
        a = *cfg->allocator;
    size_t size = sizeof(struct tw) + ops->state_size(cfg);
    struct tw *tw = a.alloc_fn(a.ctx, size);
    if (tw == NULL)
        return TW_ENOMEM;
    memset(tw, 0, size);
    /* What the fast paths assume of the schemes they compile in place
     * (detach, start_fast). */
    assert(!(cfg->scheme == TW_HIERARCHICAL || cfg->scheme == TW_LAWN ||
             cfg->scheme == TW_HYBRID) ||
           !ops->keeps_late);
    assert(cfg->scheme != TW_HIERARCHICAL || ops->reserve == NULL);
    tw->ops = ops;
    tw->now = cfg->start;
    tw->max_interval = TW_TIME_MAX;
    tw->horizon = TW_TIME_MAX;
    tw->start_floor = tw->stop_floor = TW_TIME_MAX;
    tw->scheme = cfg->scheme;
    tw->alloc = a;
    tw->memory = size;
    tw_list_init(&tw->due);
    tw_list_init(&tw->due_now);
    tw_list_init(&tw->expired);
    tw_ready_init(&tw->ready);
    do {
        tw->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    } while (tw->id == 0);
    tw->word_mine = tw_node_word_of(TW_MAGIC | TW_F_PENDING, tw->id);
    tw->word_queued =
        tw->word_mine | (cfg->scheme == TW_HYBRID ? tw_node_word_of(HYB_F_LAWN, 0) : 0);
    tw->keeps_late = ops->keeps_late;
    tw->insert = ops->insert;
    tw->remove = ops->remove;
    tw->reserve = ops->reserve;
    int rc = ops->init(tw, cfg);
    if (rc) {
        a.free_fn(a.ctx, tw, size);
        return rc;
    }
    floor_sync(tw);
    *out = tw;
    return 0;
}

/* Mark every node of a list idle; the list is left empty. */
static void idle_all(struct tw_link *h)
{
    struct tw_link *l = h->next;
    while (l != h) {
        struct tw_link *n = l->next;
        struct tw_timer *t = tw_of(l);
        t->tw_flags = TW_MAGIC;
        t->tw_owner = 0;
        l = n;
    }
    tw_list_init(h);
}

int tw_destroy(struct tw *tw)
{
    if (tw == NULL)
        return TW_EINVAL;
    if (tw->busy)
        return TW_EBUSY;
    struct tw_ready all;
    tw_ready_init(&all);
    if (tw->now != TW_TIME_MAX)
        tw->ops->collect(tw, TW_TIME_MAX, &all); /* everything, whatever the horizon */
    for (unsigned j = 0; j < TW_LANES; j++)
        idle_all(&all.lane[j]);
    idle_all(&tw->due);
    idle_all(&tw->expired);
    tw->ops->fini(tw);
    /* fini released the scheme's tables: what is left is the facility. */
    struct tw_allocator a = tw->alloc;
    a.free_fn(a.ctx, tw, tw->memory);
    return 0;
}

/* -------------------------------------------------------------- timers */

void tw_timer_init(struct tw_timer *t, tw_callback *fn)
{
    if (t == NULL)
        return;
    memset(t, 0, sizeof *t);
    t->tw_fn = fn;
    t->tw_flags = TW_MAGIC;
}

void tw_timer_set_callback(struct tw_timer *t, tw_callback *fn)
{
    if (t && tw_node_valid(t))
        t->tw_fn = fn;
}

int tw_timer_pending(const struct tw_timer *t)
{
    return t != NULL && tw_node_valid(t) && tw_node_pending(t);
}

tw_time_t tw_timer_deadline(const struct tw_timer *t)
{
    return t ? t->tw_expires : 0;
}

/* The schemes whose start and stop have fast paths with their insert and
 * remove compiled in place (tw_start(), start_leaf(), tw_stop(), and the
 * copies of start_fast() and stop_fast()), and the rest (INL_NONE: through
 * tw->insert and tw->remove).  The hierarchical wheel is the default
 * scheme; Lawn and the hybrid are the TTL schemes measured against it;
 * none of those keeps a timer late.  (The no-migration wheel has leaves of
 * its own, start_coarse_leaf() and tw_stop()'s; its rare cases take the
 * ops table.) */
enum inl { INL_NONE, INL_HIER, INL_LAWN, INL_HYBRID };

/* An out-of-line copy of an inline start or stop path, specialised by its
 * last argument (a constant): the functions tw_start() and tw_stop() jump
 * to. */
#define START_COPY(name, path, kind)                                           \
    static TW_NOINLINE int name(struct tw *tw, struct tw_timer *t, tw_time_t interval) \
    {                                                                          \
        return path(tw, t, interval, kind);                                    \
    }
#define STOP_COPY(name, path, kind)                                            \
    static TW_NOINLINE int name(struct tw *tw, struct tw_timer *t)             \
    {                                                                          \
        return path(tw, t, kind);                                              \
    }

/* Take a pending timer of this facility out of wherever it is, with the
 * wheel's remove in place (k == INL_HIER, a constant at each call) or
 * through the ops table (INL_NONE).  Lawn's and the hybrid's stop leaves
 * do their own removes and come here only for the rare cases. */
TW_INLINE void detach(struct tw *tw, struct tw_timer *t, enum inl k)
{
    if (t->tw_expires <= tw->now && (k == INL_HIER || !tw->keeps_late))
        tw_list_del(&t->tw_u.link); /* on the due, ready or expired list */
    else if (k == INL_HIER)
        tw_hier_remove(TW_STATE(tw, struct hier_state), t);
    else
        tw->remove(tw, t);
}

/* Argument checks shared by start and stop: 0 or an error. */
TW_INLINE int check_args(const struct tw *tw, const struct tw_timer *t)
{
    if (TW_UNLIKELY(tw == NULL || t == NULL))
        return TW_EINVAL;
    if (TW_UNLIKELY(!tw_node_valid(t)))
        return TW_ENOTINIT;
    if (TW_UNLIKELY(tw_node_pending(t) && t->tw_owner != tw->id))
        return TW_EOWNER;
    return 0;
}

/* A node's deadline and state word as a start leaves them. */
TW_INLINE void arm_node(struct tw_timer *t, tw_time_t deadline, uint64_t word)
{
    /* Adjacent (twheel_internal.h): one 16-byte store where the target has
     * one, a store-queue entry fewer on the hot paths (docs/design.md,
     * "Short paths"). */
    void *at = (char *)t + offsetof(struct tw_timer, tw_expires);
#if defined(__SSE2__)
    _mm_storeu_si128((__m128i *)at, _mm_set_epi64x((long long)word, (long long)deadline));
#else
    const uint64_t v[2] = {deadline, word};
    memcpy(at, v, sizeof v);
#endif
}

/* Start at an absolute deadline, the arguments already checked. */
TW_INLINE int arm(struct tw *tw, struct tw_timer *t, tw_time_t deadline)
{
    int rc;
    bool late = deadline <= tw->now;
    if (!late) {
        if (TW_UNLIKELY(deadline - tw->now > tw->max_interval))
            return TW_ERANGE;
        /* Reserve before anything moves, so that failure changes nothing. */
        if (tw->reserve) {
            rc = tw->reserve(tw, deadline);
            if (TW_UNLIKELY(rc))
                return rc;
        }
    }
    if (tw_node_pending(t))
        detach(tw, t, INL_NONE);
    else
        tw->count++;
    arm_node(t, deadline, tw->word_mine);
    if (late)
        tw_list_add_tail(&tw->due, &t->tw_u.link);
    else
        tw->insert(tw, t);
    floor_sync(tw);
    return 0;
}

/* The scheme-private flag bits, which the fast paths ignore. */
#define SCHEME_BITS (TW_F_SCHEME1 | TW_F_SCHEME2)

/* now + interval, saturated at the end of time (never wrapping into the
 * past). */
TW_INLINE tw_time_t deadline_of(const struct tw *tw, tw_time_t interval)
{
    return tw_sat_add(tw->now, interval);
}

/* Every case of start that the fast path below does not take: a NULL
 * argument, interval 0 or beyond MaxInterval, the end of time, a node not
 * initialised or pending elsewhere.  The order of the checks is the
 * documented one. */
static TW_NOINLINE int start_slow(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    int rc = check_args(tw, t); /* EINVAL, ENOTINIT, EOWNER: as tw_start_at */
    if (TW_UNLIKELY(rc))
        return rc;
    if (TW_UNLIKELY(interval > tw->max_interval))
        return TW_ERANGE; /* even where the deadline would saturate */
    return arm(tw, t, deadline_of(tw, interval));
}

/* The checks of the start fast paths: -1 for every case start_slow() must
 * take (NULL, interval 0 -- it wraps -- or beyond MaxInterval, the end of
 * time, a node not initialised or pending elsewhere), else 1 if t is
 * pending here and 0 if it is idle, from one load and compare of the
 * node's state word. */
TW_INLINE int start_state(const struct tw *tw, const struct tw_timer *t, tw_time_t interval)
{
    if (t == NULL || interval - 1 >= tw->max_interval || tw->now == TW_TIME_MAX)
        return -1;
    uint64_t w = tw_node_word(t) & ~tw_node_word_of(SCHEME_BITS, 0);
    if (w == tw->word_mine)
        return 1;
    return w == tw_node_word_of(TW_MAGIC, 0) ? 0 : -1;
}

/*
 * The fast path: a valid node, idle or pending here, an interval in
 * [1, MaxInterval], a clock before the end of time.  It does what arm()
 * does in that case, with one load and compare of the node's state word in
 * place of the separate checks.  `k` is a constant at each call: INL_HIER
 * compiles the wheel's insert and remove in place of the calls through
 * tw->insert and tw->remove (INL_NONE); the wheel has no reserve.  The schemes
 * with a leaf (start_leaf() below) come here only for the cases their leaf
 * leaves.
 */
TW_INLINE int start_fast(struct tw *tw, struct tw_timer *t, tw_time_t interval, enum inl k)
{
    int state = start_state(tw, t, interval);
    if (TW_UNLIKELY(state < 0))
        return start_slow(tw, t, interval);
    bool pending = state > 0;
    tw_time_t deadline = deadline_of(tw, interval);
    if (k == INL_NONE && tw->reserve) {
        int rc = tw->reserve(tw, deadline);
        if (TW_UNLIKELY(rc))
            return rc;
    }
    if (pending)
        detach(tw, t, k);
    else
        tw->count++;
    arm_node(t, deadline, tw->word_mine);
    if (k == INL_HIER)
        (void)tw_hier_insert(tw, TW_STATE(tw, struct hier_state), t);
    else
        tw->insert(tw, t);
    floor_sync(tw);
    return 0;
}

/* start_fast() out of line, for every case the leaves leave and for the
 * schemes without a leaf: one copy with the wheel's insert and remove in
 * place, one through the ops table, so that a jump to either tests nothing
 * more (start_full() picks one by a constant). */
START_COPY(start_full_hier, start_fast, INL_HIER)
START_COPY(start_full_ops, start_fast, INL_NONE)

TW_INLINE int start_full(struct tw *tw, struct tw_timer *t, tw_time_t interval, bool hier)
{
    return hier ? start_full_hier(tw, t, interval) : start_full_ops(tw, t, interval);
}

/* Can a pending node of the hybrid be taken out with one unlink (in a
 * queue that keeps a timer; in the wheel, beyond the earliest-deadline
 * cache, a lane it empties keeping its bits as in stop_lane_last())? */
TW_INLINE bool hybrid_unlinkable(const struct hybrid_state *H, const struct tw_timer *t)
{
    if (t->tw_flags & HYB_F_LAWN)
        return tw_lawn_unlinkable(t);
    return t->tw_expires > H->wheel.min.max;
}


/* The hybrid's part of start_leaf(), its policy as hybrid_reserve() and
 * hybrid_insert() apply it (schemes/hybrid.c), for the cases that touch
 * neither the heap of queue heads nor an allocation: a TTL with a queue
 * that has timers (the node goes to its tail), or a TTL that goes to the
 * wheel (its candidate counted, below the threshold).  false, with
 * nothing changed, for every other case. */
TW_INLINE bool start_hybrid_part(struct tw *tw, struct tw_timer *t, tw_time_t deadline,
                                 bool pending)
{
    struct hybrid_state *H = HYB(tw);
    tw_time_t ttl = deadline - tw->now;
    struct lawn_q *q = tw_lawn_lookup(&H->lawn, ttl);
    if (pending && !hybrid_unlinkable(H, t))
        return false;
    if (q != NULL && q->mode != TW_TTL_WHEEL) {
        if (tw_list_empty(&q->list))
            return false;
        if (pending)
            tw_list_del(&t->tw_u.link); /* see hybrid_unlinkable() */
        arm_node(t, deadline, tw->word_queued);
        tw_list_add_tail(&q->list, &t->tw_u.link);
        return true;
    }
    if (deadline < H->wheel.min.max)
        return false;
    if (q == NULL) {
        struct hybrid_cand *c = tw_hybrid_cand(H, ttl);
        uint32_t count = tw_hybrid_count(c, ttl);
        if (count >= H->threshold)
            return false; /* it becomes a queue */
        c->ttl = ttl;
        c->count = count;
    }
    if (pending)
        tw_list_del(&t->tw_u.link);
    arm_node(t, deadline, tw->word_mine);
    tw_time_t up;
    if (tw_hier_link(&H->wheel, t, deadline, tw->now, &up)) {
        /* A lane's first timer.  A lane that had timers has its slot's bit
         * set, whose tick is at or above both horizons already (tw_check
         * verifies it), as in the exact wheel's leaf. */
        if (up < H->wheel_horizon)
            H->wheel_horizon = up;
        tw_horizon_lower(tw, up);
    }
    return true;
}

/*
 * The start of scheme k (INL_LAWN or INL_HYBRID: a constant; the wheel's
 * is tw_start() itself) in its common case, compiled as a leaf: every call
 * in it is a tail call, so it needs no stack frame (gcc 12 -O2: Lawn's
 * copy saves no register, the hybrid's one).  At 10^6 timers the stores of a
 * start or stop to cold neighbours wait for their lines, and x86 commits
 * stores in order, so each push and pop behind them holds a store-queue
 * entry that the next operations could have used to get their own misses
 * going (docs/design.md, "Short paths").  The common case: a valid node,
 * idle or pending here in the scheme's structure, and
 *   - Lawn: a queue for the new TTL that already has timers (so the heap
 *     of heads stays as it is, and its reserve would do nothing), and a
 *     node that is not the only timer of its queue;
 *   - hybrid: one of those two, as its policy routes the TTL
 *     (start_hybrid_part()), and a deadline before the end of time.
 * Everything else goes to start_full() or start_slow() before anything
 * has changed.
 */
TW_INLINE int start_leaf(struct tw *tw, struct tw_timer *t, tw_time_t interval, enum inl k)
{
    int state = start_state(tw, t, interval);
    if (TW_UNLIKELY(state < 0))
        return start_slow(tw, t, interval);
    bool pending = state > 0;
    tw_time_t deadline = deadline_of(tw, interval);
    if (TW_UNLIKELY(pending && t->tw_expires <= tw->now))
        return start_full(tw, t, interval, false); /* on a core list */
    if (k == INL_HYBRID) {
        /* Below the end of time, interval is deadline - now: one register
         * fewer to keep across the routing (one saved register instead of
         * two). */
        if (TW_UNLIKELY(deadline == TW_TIME_MAX))
            return start_full(tw, t, interval, false);
        if (TW_UNLIKELY(!start_hybrid_part(tw, t, deadline, pending)))
            return start_full(tw, t, deadline - tw->now, false);
    } else {
        struct lawn_state *L = TW_STATE(tw, struct lawn_state);
        struct lawn_q *q = tw_lawn_lookup(L, deadline - tw->now);
        if (TW_UNLIKELY(q == NULL || tw_list_empty(&q->list) ||
                        (pending && !tw_lawn_unlinkable(t))))
            return start_full(tw, t, interval, false);
        if (pending)
            tw_list_del(&t->tw_u.link);
        arm_node(t, deadline, tw->word_mine);
        tw_list_add_tail(&q->list, &t->tw_u.link);
    }
    if (!pending)
        tw->count++;
    return 0;
}

START_COPY(start_lawn, start_leaf, INL_LAWN)
START_COPY(start_hybrid, start_leaf, INL_HYBRID)

/* The no-migration wheel's start in its common case, as a leaf: a node
 * idle or pending here, a deadline after now (interval 0 and a sum that
 * wraps go to the full path, start_full_ops(), which saturates it, as does
 * everything else; a deadline of exactly the end of time is linked here,
 * as the scheme's insert would).  A pending node leaves whatever list holds it, a
 * slot's lane or a core list, with one unlink: a lane it empties keeps its
 * bits, as in stop_lane_last().  The placement is the scheme's own
 * (tw_coarse_link()).  Its floors never move, so nothing else changes. */
static TW_NOINLINE int start_coarse_leaf(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    tw_time_t deadline = tw->now + interval;
    if (TW_UNLIKELY(t == NULL || deadline <= tw->now))
        return start_full_ops(tw, t, interval);
    struct coarse_state *h = TW_STATE(tw, struct coarse_state);
    uint64_t w = tw_node_word(t);
    if (TW_LIKELY(w == tw_node_word_of(TW_MAGIC, 0)))
        tw->count++;
    else if (w == tw->word_mine)
        tw_list_del(&t->tw_u.link); /* an emptied lane keeps its bits: stop_lane_last() */
    else
        return start_full_ops(tw, t, interval); /* not initialised, elsewhere */
    arm_node(t, deadline, tw->word_mine);
    tw_coarse_link(tw, h, t, deadline);
    return 0;
}

/* Every start the wheel's leaf in tw_start() leaves: the other schemes
 * (Lawn's and the hybrid's leaves, the ops table), and the wheel's rare
 * cases.  Tail calls only, so that it needs no frame. */
static TW_NOINLINE int start_other(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    if (TW_UNLIKELY(tw == NULL))
        return start_slow(tw, t, interval);
    if (tw->scheme == TW_HIERARCHICAL_COARSE)
        return start_coarse_leaf(tw, t, interval);
    if (tw->scheme == TW_LAWN)
        return start_lawn(tw, t, interval);
    if (tw->scheme == TW_HYBRID)
        return start_hybrid(tw, t, interval);
    if (tw->scheme == TW_HIERARCHICAL) /* its rare cases: the leaf is tw_start() */
        return start_full_hier(tw, t, interval);
    return start_full(tw, t, interval, false);
}

/*
 * The leaves.  A start of the default scheme whose deadline is above
 * tw->start_floor (max of now and the earliest-deadline cache's last entry;
 * TW_TIME_MAX for every other scheme, which therefore never takes it) is a
 * link and, for a pending node, an unlink, and nothing else: the node is in
 * the wheel, not on a core list, and neither it nor the new deadline touches
 * the cache.  A stop above tw->stop_floor (the same, Lawn's and the hybrid's
 * included) of a node that is not alone in its list is one unlink in the
 * wheel, in the hybrid's wheel and in any Lawn queue.  At 10^6 timers each
 * operation waits on a cold node and its cold list neighbours, and how many
 * operations keep their misses in flight together is bounded by the loads
 * and stores each one holds in the core's queues until it retires
 * (docs/design.md, "Short paths").  So these leaves read the facility's
 * first line and two slot-table words, and write nothing of the facility's
 * but the count and the lane's head: one compare with start_floor stands for
 * the checks of the interval, of the end of time and of the cache; one load
 * of place_of_msb for the level's shift and first slot (the mask is
 * h->mask); and the horizon is lowered only when the lane's bit was clear
 * (a lane with its bit set, timers in it or not, has its slot's tick at or
 * above the horizon already).
 */
/* A start of the wheel's leaf that found its lane empty: if the lane's bit
 * is clear, the lane's and the slot's bits, and the horizon lowered to the
 * slot's tick.  Out of line and
 * recomputed from the lane's head, so that the leaf keeps nothing live for
 * it (at 10^6 timers each instruction of a start costs about as much as an
 * overlapped cache miss: docs/design.md, "Short paths"). */
static TW_NOINLINE int hier_lane_first(struct tw *tw, struct tw_link *head, tw_time_t e)
{
    struct hier_state *h = TW_STATE(tw, struct hier_state);
    size_t k = (size_t)(head - h->s.head);
    /* Bits left by stop_lane_last() or a restart's unlink: the slot counts
     * as occupied, so the horizon is at or below its tick already. */
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

int tw_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    if (TW_UNLIKELY(tw == NULL || t == NULL))
        return start_other(tw, t, interval);
    /* Interval 0, a sum that wraps and the end of time give a deadline at
     * or below now <= start_floor: start_other() sorts them out. */
    tw_time_t now = tw->now, deadline = now + interval;
    if (TW_UNLIKELY(deadline <= tw->start_floor))
        return start_other(tw, t, interval);
    struct hier_state *h = TW_STATE(tw, struct hier_state);
    uint64_t w = tw_node_word(t);
    if (TW_LIKELY(w == tw_node_word_of(TW_MAGIC, 0)))
        tw->count++;
    else if (w == tw->word_mine && t->tw_expires > tw->start_floor)
        tw_list_del(&t->tw_u.link); /* an emptied lane keeps its bits: stop_lane_last() */
    else
        return start_other(tw, t, interval); /* not initialised, elsewhere, or rare */
    arm_node(t, deadline, tw->word_mine);
    return hier_link(tw, h, t, deadline, now);
}

int tw_start_at(struct tw *tw, struct tw_timer *t, tw_time_t deadline)
{
    int rc = check_args(tw, t);
    if (TW_UNLIKELY(rc))
        return rc;
    return arm(tw, t, deadline);
}

/* A node is no longer pending: its idle state word, one fewer pending. */
TW_INLINE int stopped(struct tw *tw, struct tw_timer *t)
{
    uint64_t idle = tw_node_word_of(TW_MAGIC, 0);
    memcpy(&t->tw_flags, &idle, sizeof idle);
    tw->count--;
    return 1;
}

static TW_NOINLINE int stop_slow(struct tw *tw, struct tw_timer *t)
{
    int rc = check_args(tw, t);
    if (TW_UNLIKELY(rc))
        return rc;
    if (!tw_node_pending(t))
        return 0;
    detach(tw, t, INL_NONE);
    floor_sync(tw);
    return stopped(tw, t);
}

/* Is t a node pending on this facility?  One load and compare of its state
 * word; the cases it tells apart from that, stop_slow() sorts out. */
TW_INLINE bool pending_here(const struct tw *tw, const struct tw_timer *t)
{
    return t != NULL && (tw_node_word(t) & ~tw_node_word_of(SCHEME_BITS, 0)) == tw->word_mine;
}

/* A node pending here, taken out with the remove of scheme `k` in place;
 * everything else, stop_slow(). */
TW_INLINE int stop_fast(struct tw *tw, struct tw_timer *t, enum inl k)
{
    if (TW_UNLIKELY(!pending_here(tw, t)))
        return stop_slow(tw, t); /* NULL too: TW_EINVAL */
    detach(tw, t, k);
    floor_sync(tw);
    return stopped(tw, t);
}

/* stop_fast() out of line, for the cases the leaf in tw_stop() leaves:
 * one copy with the wheel's remove in place, one through the ops table. */
STOP_COPY(stop_full_hier, stop_fast, INL_HIER)
STOP_COPY(stop_full_ops, stop_fast, INL_NONE)

/* Every stop the leaf in tw_stop() leaves but the wheels' last timer of a
 * list: a node alone in its list (the only timer of a Lawn queue), in a
 * wheel's cache or due, a bad argument, and every other scheme: the full
 * path, with the wheel's remove in place for the wheel. */
static TW_NOINLINE int stop_other(struct tw *tw, struct tw_timer *t)
{
    if (TW_UNLIKELY(tw == NULL))
        return TW_EINVAL;
    if (tw->scheme == TW_HIERARCHICAL)
        return stop_full_hier(tw, t);
    return stop_full_ops(tw, t);
}

/* The hierarchical wheels' stop of the last timer of a list (the hybrid's:
 * of a lane of its wheel), beyond the exact wheels' caches: a timer alone
 * in a far slot, restarted again and again, as in the paper's Fig. 9
 * test.  tw_stop() has checked everything but the scheme, and passes the
 * list's head (the no-migration wheel's may be a core list's: emptied
 * alike).  A lane is emptied and its bits, and its slot's, are left set:
 * the horizon stays a lower bound as in the leaf, and a set bit over
 * empty lanes is a slot that collect takes with nothing in it, that
 * next_expiry clears (tw_hier_next(), coarse_next()), and that a start
 * into it finds already counted (hier_lane_first(), tw_coarse_link(); the
 * hybrid's start sets the bits again, which changes nothing).  So in the
 * exact and the no-migration wheels the stop + start of a timer alone in
 * its lane writes no bit at all. */
static TW_NOINLINE int stop_lane_last(struct tw *tw, struct tw_timer *t, struct tw_link *head)
{
    tw_list_init(head); /* t was its only node */
    return stopped(tw, t);
}

int tw_stop(struct tw *tw, struct tw_timer *t)
{
    /* The leaf of the wheels, Lawn and the hybrid (see tw_start()):
     * pending here, in the scheme's lists and beyond the wheel's cache (a
     * node of the hybrid's queues: beyond now; the no-migration wheel:
     * anywhere), and not alone in its list, so that no bit, queue or heap
     * changes.  A node that would empty its list:
     * stop_lane_last() for the wheel, stop_other() for a Lawn queue. */
    if (TW_UNLIKELY(tw == NULL || t == NULL))
        return stop_other(tw, t);
    uint64_t w = tw_node_word(t);
    tw_time_t floor;
    if (TW_LIKELY(w == tw->word_mine))
        floor = tw->stop_floor;
    else if (w == tw->word_queued) /* the hybrid's queues (else word_mine) */
        floor = tw->now;
    else
        return stop_other(tw, t);
    if (TW_LIKELY(t->tw_expires > floor)) {
        struct tw_link *next = t->tw_u.link.next;
        if (TW_LIKELY(next != t->tw_u.link.prev)) {
            tw_list_del(&t->tw_u.link);
            return stopped(tw, t);
        }
        /* Alone in its list, next its head on both sides.  Only the wheels,
         * Lawn and the hybrid get here (every other scheme's stop_floor is
         * the end of time), and word_queued is word_mine but in the
         * hybrid, where it marks a queued node: so this is a node in a
         * wheel's list (the no-migration wheel's may be a core list,
         * emptied alike). */
        if (w == tw->word_mine && tw->scheme != TW_LAWN)
            return stop_lane_last(tw, t, next);
    }
    return stop_other(tw, t);
}

int tw_ttl_hint(struct tw *tw, tw_time_t ttl, enum tw_ttl_hint hint)
{
    if (tw == NULL || ttl == 0 || (unsigned)hint > TW_TTL_WHEEL || tw->ops->hint == NULL)
        return TW_EINVAL;
    return tw->ops->hint(tw, ttl, (int)hint);
}

/* -------------------------------------------------------------- expiry */

/* Gather everything due at `now` onto tw->ready and move the clock there.
 * The ready lanes live in the facility, not on the stack, so that
 * tw_check(), tw_next_expiry() and tw_count() see them from a callback. */
static int gather(struct tw *tw, tw_time_t now)
{
    if (TW_UNLIKELY(tw == NULL))
        return TW_EINVAL;
    if (TW_UNLIKELY(tw->busy))
        return TW_EBUSY;
    if (TW_UNLIKELY(now < tw->now))
        return TW_ETIME;
    tw_list_splice_tail(&tw->due_now, &tw->due);
    /* The horizon makes an advance with nothing to do cost a compare. */
    if (now >= tw->horizon)
        tw->ops->collect(tw, now, &tw->ready);
    tw->now = now;
    floor_sync(tw);
    return 0;
}

/* The next timer an advance runs or queues: the timers started already
 * due first, in start order (tw_advance's contract), then the scheme's,
 * its lanes in turn from *j; NULL when none is left. */
TW_INLINE struct tw_link *ready_next(struct tw *tw, unsigned *j)
{
    if (TW_UNLIKELY(!tw_list_empty(&tw->due_now))) {
        struct tw_link *l = tw->due_now.next;
        tw_list_del(l);
        return l;
    }
    return tw_ready_pop(&tw->ready, j);
}

int64_t tw_advance(struct tw *tw, tw_time_t now)
{
    /* Fast path: nothing due and no slot to visit before the horizon. */
    if (TW_LIKELY(tw != NULL && !tw->busy && now >= tw->now && now < tw->horizon &&
                  tw_list_empty(&tw->due))) {
        tw->now = now;
        /* The caches are as they were; the floors move only once now
         * passes them (start_floor is stop_floor or the end of time). */
        if (TW_UNLIKELY(now > tw->stop_floor) && tw->scheme != TW_HIERARCHICAL_COARSE)
            floor_sync(tw);
        return 0;
    }
    int rc = gather(tw, now);
    if (TW_UNLIKELY(rc))
        return rc;
    int64_t fired = 0;
    unsigned j = 0;
    struct tw_link *l;
    tw->busy = 1;
    while ((l = ready_next(tw, &j)) != NULL) {
        struct tw_timer *t = tw_of(l);
        t->tw_flags = TW_MAGIC;
        t->tw_owner = 0;
        tw->count--;
        fired++;
        if (t->tw_fn)
            t->tw_fn(tw, t);
    }
    tw->busy = 0;
    return fired;
}

int64_t tw_collect(struct tw *tw, tw_time_t now)
{
    int rc = gather(tw, now);
    if (TW_UNLIKELY(rc))
        return rc;
    int64_t n = 0;
    unsigned j = 0;
    struct tw_link *l;
    while ((l = ready_next(tw, &j)) != NULL) {
        tw_list_add_tail(&tw->expired, l);
        n++;
    }
    return n;
}

struct tw_timer *tw_get_expired(struct tw *tw)
{
    if (tw == NULL || tw_list_empty(&tw->expired))
        return NULL;
    struct tw_link *l = tw->expired.next;
    tw_list_del(l);
    struct tw_timer *t = tw_of(l);
    t->tw_flags = TW_MAGIC;
    t->tw_owner = 0;
    tw->count--;
    return t;
}

int tw_next_expiry(struct tw *tw, tw_time_t *deadline)
{
    if (tw == NULL || deadline == NULL)
        return TW_EINVAL;
    /* Due, ready (seen from a callback) and uncollected expired timers are
     * at or before now: the earliest of them is the answer.  Unsorted: scan. */
    tw_time_t best = TW_TIME_MAX;
    bool any = false;
    struct tw_link *lists[3 + TW_LANES] = {&tw->due, &tw->expired, &tw->due_now};
    for (unsigned j = 0; j < TW_LANES; j++)
        lists[3 + j] = &tw->ready.lane[j];
    for (unsigned i = 0; i < 3 + TW_LANES; i++)
        for (struct tw_link *l = lists[i]->next; l != lists[i]; l = l->next) {
            tw_time_t e = tw_of(l)->tw_expires;
            if (!any || e < best)
                best = e;
            any = true;
        }
    if (any) {
        *deadline = best;
        return 1;
    }
    int rc = tw->ops->next(tw, deadline);
    floor_sync(tw); /* a walk may have filled the cache */
    return rc;
}

/* ------------------------------------------------------- introspection */

size_t tw_count(const struct tw *tw) { return tw ? tw->count : 0; }
tw_time_t tw_now(const struct tw *tw) { return tw ? tw->now : 0; }
enum tw_scheme tw_get_scheme(const struct tw *tw) { return tw ? tw->scheme : TW_SCHEME_COUNT; }
size_t tw_memory(const struct tw *tw) { return tw ? tw->memory : 0; }
tw_time_t tw_max_interval(const struct tw *tw) { return tw ? tw->max_interval : 0; }

int tw_fail(struct tw_checker *c, const char *fmt, ...)
{
    if (c->msg && c->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->len, fmt, ap);
        va_end(ap);
    }
    return TW_ECORRUPT;
}

int tw_check_node(struct tw *tw, struct tw_checker *c, const struct tw_timer *t)
{
    if (!tw_node_valid(t))
        return tw_fail(c, "node %p has a bad magic %#x", (const void *)t, t->tw_flags);
    if (!tw_node_pending(t))
        return tw_fail(c, "node %p is held but not pending", (const void *)t);
    if (t->tw_owner != tw->id)
        return tw_fail(c, "node %p is owned by facility %u, not %u", (const void *)t,
                       t->tw_owner, tw->id);
    if (t->tw_expires <= tw->now && !tw->ops->keeps_late)
        return tw_fail(c, "node %p with deadline %llu is held by the scheme at now %llu",
                       (const void *)t, (unsigned long long)t->tw_expires,
                       (unsigned long long)tw->now);
    return 0;
}

/* Check a plain list (due or expired): well linked, nodes due. */
static int check_plain(struct tw *tw, struct tw_checker *c, struct tw_link *h,
                       const char *what)
{
    for (struct tw_link *l = h->next; l != h; l = l->next) {
        if (l->next->prev != l)
            return tw_fail(c, "%s list broken at %p", what, (void *)l);
        const struct tw_timer *t = tw_of(l);
        if (!tw_node_valid(t) || !tw_node_pending(t) || t->tw_owner != tw->id)
            return tw_fail(c, "%s list holds a node %p that is not pending here", what,
                           (const void *)t);
        if (t->tw_expires > tw->now)
            return tw_fail(c, "%s list holds node %p due at %llu after now %llu", what,
                           (const void *)t, (unsigned long long)t->tw_expires,
                           (unsigned long long)tw->now);
        c->seen++;
    }
    return 0;
}

int tw_check(struct tw *tw, char *msg, size_t len)
{
    if (tw == NULL)
        return TW_EINVAL;
    struct tw_checker c = {msg, len, 0};
    if (msg && len)
        msg[0] = '\0';
    int rc = check_plain(tw, &c, &tw->due, "due");
    if (rc == 0)
        rc = check_plain(tw, &c, &tw->expired, "expired");
    if (rc == 0)
        rc = check_plain(tw, &c, &tw->due_now, "due");
    for (unsigned j = 0; rc == 0 && j < TW_LANES; j++)
        rc = check_plain(tw, &c, &tw->ready.lane[j], "ready");
    if (rc == 0)
        rc = tw->ops->check(tw, &c);
    if (rc == 0 && c.seen != tw->count)
        rc = tw_fail(&c, "count is %zu but %zu timers are held", tw->count, c.seen);
    if (rc == 0) {
        tw_time_t start, stop;
        floor_of(tw, &start, &stop);
        if (start != tw->start_floor || stop != tw->stop_floor)
            rc = tw_fail(&c, "the leaves' floors are %llu and %llu, should be %llu and %llu",
                         (unsigned long long)tw->start_floor,
                         (unsigned long long)tw->stop_floor, (unsigned long long)start,
                         (unsigned long long)stop);
    }
    return rc;
}
