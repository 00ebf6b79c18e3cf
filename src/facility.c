/*
 * facility.c -- the part of twheel that every scheme shares.
 *
 * A facility is one struct tw followed by its scheme's fixed state.  The core
 * checks arguments, keeps the contract (docs/design.md), counts, runs the
 * callbacks, and reaches the scheme through its const ops table
 * (scheme.h).  tw_start() and tw_stop() jump to the scheme's own entry
 * points where it has them (the wheels, Lawn and the hybrid: leaves with
 * their insert and remove in place), else to the core's, built from the
 * same skeleton (entry.h) on the ops.  The core names no scheme.
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
#include "entry.h"

#include <stdatomic.h>

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
        /* what a loop driver passes on from a system call */
        return err < 0 && err >= -4095 ? "a system call failed (-errno)" : "unknown error";
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

const char *tw_scheme_name(enum tw_scheme scheme)
{
    if ((unsigned)scheme >= TW_SCHEME_COUNT)
        return NULL;
    return tw_scheme_names[scheme];
}

int tw_scheme_from_name(const char *name)
{
    if (name == NULL)
        return TW_EINVAL;
    for (int i = 0; i < TW_SCHEME_COUNT; i++)
        if (strcmp(name, tw_scheme_names[i]) == 0)
            return i;
    return TW_EINVAL;
}

int tw_scheme_available(enum tw_scheme scheme)
{
    return (unsigned)scheme < TW_SCHEME_COUNT;
}

/* ------------------------------------------------------- configuration */

int tw_config_init(struct tw_config *cfg, enum tw_scheme scheme)
{
    if (cfg == NULL || !tw_scheme_available(scheme))
        return TW_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    cfg->scheme = scheme;
    cfg->slots = tw_schemes[scheme]->default_slots;
    return 0;
}

/* The core's entry points: the skeleton (entry.h) on the facility's own
 * copies of the ops, for the schemes without entry points of their own,
 * and for tw_start_at() of a deadline already due. */
static int ops_reserve(struct tw *tw, tw_time_t deadline)
{
    return tw->reserve ? tw->reserve(tw, deadline) : 0;
}

static void ops_insert(struct tw *tw, struct tw_timer *t) { tw->insert(tw, t); }
static void ops_remove(struct tw *tw, struct tw_timer *t) { tw->remove(tw, t); }

static void ops_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    if (tw->floors)
        tw->floors(tw, start, stop);
}

/* keeps_late is read from the facility: the one hook that is no call. */
#define OPS_HOOKS(tw) \
    ((struct tw_hooks){ops_reserve, ops_insert, ops_remove, ops_floors, (tw)->keeps_late})

static TW_NOINLINE int core_start_slow(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    return tw_start_slow(tw, t, interval, OPS_HOOKS(tw));
}

static int core_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    return tw_start_full(tw, t, interval, OPS_HOOKS(tw), core_start_slow);
}

static int core_stop(struct tw *tw, struct tw_timer *t)
{
    return tw_stop_full(tw, t, OPS_HOOKS(tw));
}

/* After the time or a scheme's cache moved. */
static void floor_sync(struct tw *tw)
{
    tw_floors_sync(tw, OPS_HOOKS(tw));
}

/* Facility ids tag pending nodes so that a node pending on one facility is
 * refused by another.  32 bits: ids are reused after 2^32 creations. */
static _Atomic uint32_t next_id = 1;

/* Why tw_create() would refuse cfg, or NULL: the scheme, the allocator,
 * the options, then the scheme's own fields. */
static const char *config_why(const struct tw_config *cfg)
{
    if (!tw_scheme_available(cfg->scheme))
        return "scheme: not an enum tw_scheme value";
    if (cfg->allocator && (cfg->allocator->alloc_fn == NULL ||
                           cfg->allocator->free_fn == NULL))
        return "allocator: alloc_fn and free_fn must both be set";
    const struct tw_ops *ops = tw_schemes[cfg->scheme];
    if (cfg->options & ~ops->options)
        return "options: a TW_OPT_ bit this scheme does not take (twheel.h says which "
               "scheme takes each)";
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
        tw_config_init(&def, tw_default_scheme);
        cfg = &def;
    }
    if (config_why(cfg))
        return TW_ECONFIG;
    const struct tw_ops *ops = tw_schemes[cfg->scheme];

    struct tw_allocator a = tw_default_allocator;
    if (cfg->allocator)
        a = *cfg->allocator;
    size_t size = sizeof(struct tw) + ops->state_size(cfg);
    struct tw *tw = a.alloc_fn(a.ctx, size);
    if (tw == NULL)
        return TW_ENOMEM;
    memset(tw, 0, size);
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
    tw->word_queued = tw->word_mine; /* a scheme's init may mark it */
    tw->start = ops->start ? ops->start : core_start;
    tw->stop = ops->stop ? ops->stop : core_stop;
    tw->keeps_late = ops->keeps_late;
    tw->insert = ops->insert;
    tw->remove = ops->remove;
    tw->reserve = ops->reserve;
    tw->floors = ops->floors;
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
    if (tw->busy || tw->callouts)
        return TW_EBUSY; /* a callback runs, or a callout context would dangle */
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

/* The scheme's entry points, or the core's: an argument check and a jump. */
int tw_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    if (TW_UNLIKELY(tw == NULL))
        return TW_EINVAL;
    return tw->start(tw, t, interval);
}

/* A deadline after now is a start with its interval: the scheme's fast
 * path, as from tw_start() (the same checks in the same order, the same
 * deadline).  One at or before now goes on the due list. */
int tw_start_at(struct tw *tw, struct tw_timer *t, tw_time_t deadline)
{
    if (TW_LIKELY(tw != NULL && deadline > tw->now))
        return tw->start(tw, t, deadline - tw->now);
    int rc = tw_check_args(tw, t);
    if (TW_UNLIKELY(rc))
        return rc;
    return tw_arm(tw, t, deadline, OPS_HOOKS(tw));
}

int tw_stop(struct tw *tw, struct tw_timer *t)
{
    if (TW_UNLIKELY(tw == NULL))
        return TW_EINVAL;
    return tw->stop(tw, t);
}

int tw_ttl_hint(struct tw *tw, tw_time_t ttl, enum tw_ttl_hint hint)
{
    if (tw == NULL || ttl == 0 || (unsigned)hint > TW_TTL_WHEEL || tw->ops->hint == NULL)
        return TW_EINVAL;
    return tw->ops->hint(tw, ttl, (int)hint);
}

/* -------------------------------------------------------------- expiry */

/* An advance to now that calls no collect leaves the scheme's caches as
 * they were: a floor that now passes becomes now (scheme.h, ops->floors),
 * without asking the scheme. */
TW_INLINE void floors_pass(struct tw *tw, tw_time_t now)
{
    if (TW_UNLIKELY(now > tw->stop_floor)) {
        if (tw->start_floor == tw->stop_floor)
            tw->start_floor = now;
        tw->stop_floor = now;
    }
}

/* The errors of an advance or a collect to now: 0 or the error. */
TW_INLINE int advance_check(const struct tw *tw, tw_time_t now)
{
    if (TW_UNLIKELY(tw == NULL))
        return TW_EINVAL;
    if (TW_UNLIKELY(tw->busy))
        return TW_EBUSY;
    if (TW_UNLIKELY(now < tw->now))
        return TW_ETIME;
    return 0;
}

/* Gather everything due at `now` onto tw->ready and move the clock there,
 * the arguments checked.  The ready lanes live in the facility, not on
 * the stack, so that tw_check(), tw_next_expiry() and tw_count() see them
 * from a callback. */
TW_INLINE void gather(struct tw *tw, tw_time_t now)
{
    tw_list_splice_tail(&tw->due_now, &tw->due);
    /* The horizon makes an advance with nothing to do cost a compare.  A
     * collect sets the floors for the new time (scheme.h); without one,
     * the caches are as they were and a floor that now passes becomes
     * now. */
    if (now >= tw->horizon)
        tw->ops->collect(tw, now, &tw->ready);
    else
        floors_pass(tw, now);
    tw->now = now;
}

/* The next timer an advance runs or queues: the timers started already
 * due first, in start order (tw_advance's contract), then the scheme's,
 * the lanes of *live (tw_ready_take_live() after gather) in turn from *j; NULL
 * when none is left. */
TW_INLINE struct tw_link *ready_next(struct tw *tw, unsigned *j, unsigned *live)
{
    if (TW_UNLIKELY(!tw_list_empty(&tw->due_now))) {
        struct tw_link *l = tw->due_now.next;
        tw_list_del(l);
        return l;
    }
    return tw_ready_pop(&tw->ready, j, live);
}

/* Run a timer taken off the lists of an advance: idle, then its
 * callback. */
TW_INLINE void fire(struct tw *tw, struct tw_link *l)
{
    struct tw_timer *t = tw_of(l);
    t->tw_flags = TW_MAGIC;
    t->tw_owner = 0;
    tw->count--;
    if (t->tw_fn)
        t->tw_fn(tw, t);
}

/* An advance with work to do: gather, then run the callbacks: the timers
 * started already due first, in start order (a callback's starts go to
 * tw->due, for the next advance: due_now only shrinks while they run),
 * then the ready lanes, a single one popped straight (ready_next() with
 * its checks on every pop costs 6 more instructions per timer on
 * expire-next).  Out of line, so
 * that tw_advance()'s fast path below is a leaf that saves no register
 * (the loops here need several): an advance with nothing due, most of
 * them when time moves a tick at a time, then costs a dozen
 * instructions. */
static TW_NOINLINE int64_t advance_slow(struct tw *tw, tw_time_t now) /* checked */
{
    gather(tw, now);
    int64_t fired = 0;
    unsigned j = 0, live = tw_ready_take_live(&tw->ready);
    struct tw_link *l;
    tw->busy = 1;
    while (TW_UNLIKELY(!tw_list_empty(&tw->due_now))) {
        l = tw->due_now.next;
        tw_list_del(l);
        fired++;
        fire(tw, l);
    }
    if ((live & (live - 1)) == 0) { /* one lane, or none: no turn to take */
        /* (no lane: the bit above the lanes gives lane 0, empty) */
        _Static_assert(TW_LANES < 32, "the bit above the lanes must fit an unsigned");
        struct tw_link *h = &tw->ready.lane[tw_ctz64(live | 1u << TW_LANES) & (TW_LANES - 1)];
        while ((l = h->next) != h) {
            tw_list_del(l);
            fired++;
            fire(tw, l);
        }
    } else {
        while ((l = tw_ready_pop(&tw->ready, &j, &live)) != NULL) {
            fired++;
            fire(tw, l);
        }
    }
    tw->busy = 0;
    return fired;
}

int64_t tw_advance(struct tw *tw, tw_time_t now)
{
    int rc = advance_check(tw, now);
    if (TW_UNLIKELY(rc))
        return rc;
    /* Fast path: nothing due and no slot to visit before the horizon. */
    if (TW_LIKELY(now < tw->horizon && tw_list_empty(&tw->due))) {
        tw->now = now;
        floors_pass(tw, now);
        return 0;
    }
    return advance_slow(tw, now);
}

int64_t tw_collect(struct tw *tw, tw_time_t now)
{
    int rc = advance_check(tw, now);
    if (TW_UNLIKELY(rc))
        return rc;
    if (TW_UNLIKELY(tw->callouts))
        return TW_EBUSY; /* its callouts are run by tw_advance() only */
    gather(tw, now);
    int64_t n = 0;
    unsigned j = 0, live = tw_ready_take_live(&tw->ready);
    struct tw_link *l;
    while ((l = ready_next(tw, &j, &live)) != NULL) {
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

/* tw_next_expiry() (wake 0) and tw_next_wakeup() (wake 1). */
static int next_tick(struct tw *tw, tw_time_t *out, bool wake)
{
    if (tw == NULL || out == NULL)
        return TW_EINVAL;
    if (tw->count == 0)
        return 0; /* (a wheel may still have bits left set: slots.h) */
    /* Due, ready (seen from a callback) and uncollected expired timers are
     * at or before now: the earliest of them is the answer.  Unsorted: scan.
     * An advance's own lists (due_now, the ready lanes) hold timers only
     * while it runs its callbacks: outside one, two lists to look at. */
    tw_time_t best = TW_TIME_MAX;
    bool any = false;
    struct tw_link *lists[3 + TW_LANES] = {&tw->due, &tw->expired, &tw->due_now};
    unsigned nlists = 2;
    if (tw->busy) {
        for (unsigned j = 0; j < TW_LANES; j++)
            lists[3 + j] = &tw->ready.lane[j];
        nlists = 3 + TW_LANES;
    }
    for (unsigned i = 0; i < nlists; i++)
        for (struct tw_link *l = lists[i]->next; l != lists[i]; l = l->next) {
            tw_time_t e = tw_of(l)->tw_expires;
            if (!any || e < best)
                best = e;
            any = true;
        }
    if (any) {
        *out = best;
        return 1;
    }
    int rc = wake && tw->ops->wakeup ? tw->ops->wakeup(tw, out) : tw->ops->next(tw, out);
    floor_sync(tw); /* a walk may have filled the cache */
    return rc;
}

int tw_next_expiry(struct tw *tw, tw_time_t *deadline)
{
    return next_tick(tw, deadline, false);
}

int tw_next_wakeup(struct tw *tw, tw_time_t *tick)
{
    return next_tick(tw, tick, true);
}

/* ------------------------------------------------------- introspection */

size_t tw_count(const struct tw *tw) { return tw ? tw->count : 0; }
tw_time_t tw_now(const struct tw *tw) { return tw ? tw->now : 0; }
enum tw_scheme tw_get_scheme(const struct tw *tw) { return tw ? tw->scheme : TW_SCHEME_COUNT; }
size_t tw_memory(const struct tw *tw) { return tw ? tw->memory : 0; }
tw_time_t tw_max_interval(const struct tw *tw) { return tw ? tw->max_interval : 0; }

void tw_set_data(struct tw *tw, void *data)
{
    if (tw)
        tw->data = data;
}

void *tw_data(const struct tw *tw) { return tw ? tw->data : NULL; }

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
        tw_time_t start = TW_TIME_MAX, stop = TW_TIME_MAX;
        if (tw->floors)
            tw->floors(tw, &start, &stop);
        if (start != tw->start_floor || stop != tw->stop_floor)
            rc = tw_fail(&c, "the leaves' floors are %llu and %llu, should be %llu and %llu",
                         (unsigned long long)tw->start_floor,
                         (unsigned long long)tw->stop_floor, (unsigned long long)start,
                         (unsigned long long)stop);
    }
    return rc;
}
