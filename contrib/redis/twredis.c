/*
 * twredis.c -- a Redis module: a timer data type backed by twheel.
 *
 * A key of this type is a set of timers, each an id and a payload with a
 * deadline in Unix milliseconds, kept on one twheel facility whose time is
 * the Unix clock in ms.  A timer is, in turn:
 *
 *   pending  on the facility, at its deadline;
 *   ready    past its deadline, on the key's ready list (FIFO), waiting for
 *            a TW.POP;
 *   leased   handed out by TW.POP ... LEASE ms: on the facility again, at
 *            the lease's end, when it becomes ready again unless TW.ACK
 *            removed it first.
 *
 * Expiry is the server's, not the clients': one module-wide Redis timer is
 * armed for the earliest next deadline over every key (a heap facility of
 * the keys, "wake" below), and re-armed only when that earliest deadline
 * moves.  When it fires, each key that is due is advanced, its due timers
 * go to its ready list, and clients blocked in TW.POP ... BLOCK on the key
 * are woken (RedisModule_SignalKeyAsReady, as BLPOP's are).
 *
 * Replication and the AOF see effects, never a time-dependent command: an
 * add is propagated with its absolute deadline (PXAT), an expiry pass as
 * TW.EXPIRE key <ms> (advance the key to that time), a pop as TW.TAKE key
 * <lease-until> <id>... naming the timers taken.  Only a primary expires;
 * a replica's keys move only by what its primary sends.  docs/redis.md has
 * the commands, the guarantees and the figures.
 */
#define _POSIX_C_SOURCE 200809L
#include "redismodule.h"
#include "twheel.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The module's entry points, which redis-server looks up by name. */
int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int RedisModule_OnUnload(RedisModuleCtx *ctx);

#define TQ_TYPE_NAME "twheeltmr" /* nine characters, as Redis requires */
#define TQ_ENCVER 2              /* the RDB encoding this file writes (reads 1 too) */
#define TQ_MAX_ID 65535          /* the longest id, bytes */

#define tq_container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

enum tq_state { TQ_PENDING = 0, TQ_READY = 1, TQ_LEASED = 2 };

/* A periodic timer's missed-run policy, as the library's tw_missed: after
 * runs were missed (the key's time passed several grid points at once),
 * SKIP delivers once and goes on at the next grid point, BURST delivers
 * once per grid point passed, DELAY delivers once and starts the grid
 * again a period after the run. */
enum tq_policy { TQ_ONCE = 0, TQ_SKIP = 1, TQ_BURST = 2, TQ_DELAY = 3 };

/* One timer: 56 bytes, then its id and payload in the same allocation.
 * A one-shot timer has one node, tm: on the key's facility while pending
 * or leased; while ready it is idle there, and its links (which the
 * library leaves to the caller while a timer is idle) hold it on the
 * key's ready list.  A periodic timer is pending and ready at once: its
 * node on the facility is a second one, in data[] after its period
 * (struct tq_periodic), and tm only lends it the ready list's link. */
struct tq_entry {
    struct tw_timer tm;
    struct tq_entry *hnext;    /* the id index's chain */
    uint32_t plen;
    uint16_t idlen;            /* 1 to TQ_MAX_ID */
    uint8_t state;             /* enum tq_state | enum tq_policy << 2 */
    uint8_t deliveries;        /* one-shot: leases handed out so far; periodic:
                                * deliveries waiting on the ready list
                                * (each at most 255) */
    char data[];               /* periodic: struct tq_periodic; then the id,
                                * then the payload */
};

struct tq_periodic {
    uint64_t period;
    struct tw_timer tm;        /* on the key's facility at its next run */
};

_Static_assert(offsetof(struct tq_entry, data) % _Alignof(struct tq_periodic) == 0,
               "a periodic timer's node follows the entry's header");

/* One key. */
struct tq {
    struct tw *tw;             /* pending and leased timers, Unix ms */
    struct tq_entry **bucket;  /* the id index: chains, nbucket a power of 2 */
    uint64_t nbucket;
    uint64_t count;            /* timers, every state */
    uint64_t nready, nleased;
    uint64_t bytes;            /* the entries' allocations */
    struct tw_link ready;      /* ready timers, oldest first (twheel's link
                                * type here and for the keys: the same
                                * shape, so one set of list functions) */
    /* module-wide bookkeeping */
    struct tw_timer wake;      /* on g.wake at this key's next deadline */
    RedisModuleString *name;   /* the key's name, or NULL if not known yet */
    int db;
    int attached;              /* on g.keys, wake usable */
    struct tw_link keys;       /* g.keys */
};

static struct {
    RedisModuleType *type;
    struct tw *wake;               /* every key's next deadline, Unix ms */
    RedisModuleTimerID timer;      /* the one Redis timer, when armed */
    int armed;
    int wake_moved;                /* a key's wake started or stopped since arm() */
    uint64_t armed_at;
    struct tw_link keys;           /* every attached key */
    enum tw_scheme scheme;         /* for new keys */
    uint64_t max_payload, max_id;
    uint64_t seed;
    RedisModuleCtx *ctx;           /* during the timer handler */
    struct tq *waking;             /* the key wake_fire() opens, NULL once freed */
} g;

/* ------------------------------------------------------------- helpers */

static void *tq_alloc(void *ctx, size_t n) { (void)ctx; return RedisModule_Alloc(n); }
static void *tq_realloc(void *ctx, void *p, size_t o, size_t n)
{
    (void)ctx;
    (void)o;
    return RedisModule_Realloc(p, n);
}
static void tq_free_fn(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    RedisModule_Free(p);
}
static const struct tw_allocator tq_allocator = {tq_alloc, tq_realloc, tq_free_fn, NULL};

static uint64_t now_ms(void)
{
    long long t = RedisModule_Milliseconds();
    return t < 0 ? 0 : (uint64_t)t;
}

static void link_init(struct tw_link *l) { l->next = l->prev = l; }
static void link_add_tail(struct tw_link *head, struct tw_link *l)
{
    l->prev = head->prev;
    l->next = head;
    head->prev->next = l;
    head->prev = l;
}
static void link_del(struct tw_link *l)
{
    l->prev->next = l->next;
    l->next->prev = l->prev;
    link_init(l);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    return x;
}

/* The id's hash, seeded per process, so that ids chosen to collide in one
 * server do not collide in another. */
static uint64_t id_hash(const char *p, size_t n)
{
    uint64_t h = g.seed ^ ((uint64_t)n * UINT64_C(0x9e3779b97f4a7c15));
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix64(h ^ w);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    return mix64(h ^ w ^ ((uint64_t)n << 56));
}

/* A periodic timer is always pending (at its next run) and is ready while
 * it has deliveries waiting; it has no lease and no state of its own. */
static unsigned e_state(const struct tq_entry *e) { return e->state & 3u; }
static void e_set_state(struct tq_entry *e, unsigned st)
{
    e->state = (uint8_t)((e->state & ~3u) | st);
}
static unsigned e_policy(const struct tq_entry *e) { return (unsigned)e->state >> 2; }
static size_t e_pre(const struct tq_entry *e)
{
    return e_policy(e) ? sizeof(struct tq_periodic) : 0;
}
static struct tq_periodic *e_periodic(struct tq_entry *e)
{
    return (struct tq_periodic *)(void *)e->data;
}
static const struct tq_periodic *e_periodic_c(const struct tq_entry *e)
{
    return (const struct tq_periodic *)(const void *)e->data;
}
static uint64_t e_period(const struct tq_entry *e)
{
    return e_policy(e) ? e_periodic_c(e)->period : 0;
}
/* The timer's node on the key's facility. */
static struct tw_timer *e_node(struct tq_entry *e)
{
    return e_policy(e) ? &e_periodic(e)->tm : &e->tm;
}
static uint64_t e_deadline(const struct tq_entry *e)
{
    return tw_timer_deadline(e_policy(e) ? &e_periodic_c(e)->tm : &e->tm);
}
/* Its link on the ready list, and the entry of a link there. */
static struct tw_link *e_ready(struct tq_entry *e) { return &e->tm.tw_u.link; }
static struct tq_entry *ready_entry(struct tw_link *l)
{
    return tq_container_of(l, struct tq_entry, tm.tw_u.link);
}
/* On the ready list?  A periodic timer while it has deliveries waiting. */
static int e_queued(const struct tq_entry *e)
{
    return e_policy(e) ? e->deliveries != 0 : e_state(e) == TQ_READY;
}

static const char *entry_id(const struct tq_entry *e) { return e->data + e_pre(e); }
static const char *entry_payload(const struct tq_entry *e) { return entry_id(e) + e->idlen; }
static size_t entry_size(const struct tq_entry *e)
{
    return sizeof *e + e_pre(e) + (size_t)e->idlen + e->plen;
}

/* ------------------------------------------------------------ the index */

/* Where the index points at id (hash h: id_hash() of it), or NULL. */
static struct tq_entry **index_slot_h(struct tq *q, const char *id, size_t n, uint64_t h)
{
    if (q->nbucket == 0)
        return NULL;
    struct tq_entry **s = &q->bucket[h & (q->nbucket - 1)];
    for (; *s; s = &(*s)->hnext)
        if ((*s)->idlen == n && memcmp(entry_id(*s), id, n) == 0)
            return s;
    return NULL;
}

static struct tq_entry **index_slot(struct tq *q, const char *id, size_t n)
{
    return index_slot_h(q, id, n, id_hash(id, n));
}

static struct tq_entry *index_find(struct tq *q, const char *id, size_t n)
{
    struct tq_entry **s = index_slot(q, id, n);
    return s ? *s : NULL;
}

static void index_resize(struct tq *q, uint64_t nb)
{
    struct tq_entry **b = RedisModule_Calloc(nb, sizeof *b);
    for (uint64_t i = 0; i < q->nbucket; i++) {
        struct tq_entry *e = q->bucket[i], *next;
        for (; e; e = next) {
            next = e->hnext;
            struct tq_entry **s = &b[id_hash(entry_id(e), e->idlen) & (nb - 1)];
            e->hnext = *s;
            *s = e;
        }
    }
    RedisModule_Free(q->bucket);
    q->bucket = b;
    q->nbucket = nb;
}

/* Put e, whose id hashes to h, in the index. */
static void index_add_h(struct tq *q, struct tq_entry *e, uint64_t h)
{
    if (q->count + 1 > q->nbucket)
        index_resize(q, q->nbucket ? q->nbucket * 2 : 16);
    struct tq_entry **s = &q->bucket[h & (q->nbucket - 1)];
    e->hnext = *s;
    *s = e;
}

static void index_add(struct tq *q, struct tq_entry *e)
{
    index_add_h(q, e, id_hash(entry_id(e), e->idlen));
}

/* ------------------------------------------------------------- the keys */

static void entry_fire(struct tw *tw, struct tw_timer *t);
static void periodic_entry_fire(struct tw *tw, struct tw_timer *t);
static void wake_fire(struct tw *tw, struct tw_timer *t);

static struct tq *tq_new(enum tw_scheme scheme, tw_time_t start)
{
    struct tw_config cfg;
    if (tw_config_init(&cfg, scheme) != 0)
        return NULL;
    cfg.start = start;
    cfg.allocator = &tq_allocator;
    struct tq *q = RedisModule_Calloc(1, sizeof *q);
    if (tw_create(&q->tw, &cfg) != 0) {
        RedisModule_Free(q);
        return NULL;
    }
    tw_set_data(q->tw, q); /* for the timers' callbacks */
    link_init(&q->ready);
    link_init(&q->keys);
    tw_timer_init(&q->wake, wake_fire);
    return q;
}

/* Off the module-wide lists: no longer expired by the server. */
static void tq_detach(struct tq *q)
{
    if (!q->attached)
        return;
    g.wake_moved |= tw_stop(g.wake, &q->wake) == 1;
    link_del(&q->keys);
    q->attached = 0;
}

/* This key's next deadline on the wake facility (g.wake_moved set when
 * that changes anything). */
static void tq_rearm(struct tq *q)
{
    if (!q->attached)
        return;
    tw_time_t d;
    if (tw_next_expiry(q->tw, &d) == 1) {
        if (!tw_timer_pending(&q->wake) || tw_timer_deadline(&q->wake) != d) {
            tw_start_at(g.wake, &q->wake, d);
            g.wake_moved = 1;
        }
    } else {
        g.wake_moved |= tw_stop(g.wake, &q->wake) == 1;
    }
}

/* Record the key's name and database (a command names its key; a key
 * loaded from an RDB file gets its name from the loader) and put it on the
 * module-wide lists, at its next deadline if it was not there. */
static void tq_attach(struct tq *q, const RedisModuleString *name, int db)
{
    if (name == NULL)
        return;
    size_t a, b;
    const char *pa = q->name ? RedisModule_StringPtrLen(q->name, &a) : NULL;
    const char *pb = RedisModule_StringPtrLen(name, &b);
    if (pa == NULL || a != b || memcmp(pa, pb, a) != 0) {
        if (q->name)
            RedisModule_FreeString(NULL, q->name);
        q->name = RedisModule_CreateStringFromString(NULL, name);
    }
    q->db = db;
    if (!q->attached) {
        link_add_tail(&g.keys, &q->keys);
        q->attached = 1;
        tq_rearm(q);
    }
}

static void entry_free(struct tq *q, struct tq_entry *e)
{
    q->bytes -= entry_size(e);
    RedisModule_Free(e);
}

static void tq_free(void *value)
{
    struct tq *q = value;
    if (q == NULL)
        return;
    if (g.waking == q)
        g.waking = NULL; /* freed by the open in wake_fire(): a lazy expiry */
    tq_detach(q);
    tw_destroy(q->tw); /* pending nodes become idle, then are freed below */
    for (uint64_t i = 0; i < q->nbucket; i++) {
        struct tq_entry *e = q->bucket[i], *next;
        for (; e; e = next) {
            next = e->hnext;
            RedisModule_Free(e);
        }
    }
    RedisModule_Free(q->bucket);
    if (q->name)
        RedisModule_FreeString(NULL, q->name);
    RedisModule_Free(q);
}

/* The largest deadline accepted: what a signed 64-bit ms value holds. */
#define TQ_MAX_DEADLINE ((uint64_t)LLONG_MAX)

/* A periodic timer's run: a delivery waiting (BURST: one per grid point
 * passed), and the timer again at its next run, first + k period (DELAY,
 * when it passed a grid point: a period from now).  Past TQ_MAX_DEADLINE
 * it runs no more: its last delivery taken, it is gone. */
static void periodic_fire(struct tq *q, struct tq_entry *e, struct tw *tw)
{
    uint64_t d = e_deadline(e), now = tw_now(tw), p = e_period(e);
    uint64_t runs = 1, next;
    if (e_policy(e) == TQ_DELAY && now - d >= p) {
        next = now <= TQ_MAX_DEADLINE - p ? now + p : UINT64_MAX;
    } else {
        uint64_t k = (now - d) / p + 1; /* grid points at or before now, from d */
        next = k <= (TQ_MAX_DEADLINE - d) / p ? d + k * p : UINT64_MAX;
        if (e_policy(e) == TQ_BURST)
            runs = k;
    }
    if (!e_queued(e)) {
        link_add_tail(&q->ready, e_ready(e));
        q->nready++;
    }
    uint64_t owed = e_policy(e) == TQ_BURST ? e->deliveries + runs : 1;
    e->deliveries = (uint8_t)(owed < UINT8_MAX ? owed : UINT8_MAX);
    if (next != UINT64_MAX)
        tw_start_at(tw, &e_periodic(e)->tm, next);
}

/* A fired timer (deadline or lease) goes to the tail of the ready list. */
static void entry_fire(struct tw *tw, struct tw_timer *t)
{
    struct tq_entry *e = tq_container_of(t, struct tq_entry, tm);
    struct tq *q = tw_data(tw);
    if (e_state(e) == TQ_LEASED)
        q->nleased--;
    e_set_state(e, TQ_READY);
    q->nready++;
    link_add_tail(&q->ready, e_ready(e)); /* t is idle: its links are free */
}

/* A periodic timer's run. */
static void periodic_entry_fire(struct tw *tw, struct tw_timer *t)
{
    struct tq_periodic *pt = tq_container_of(t, struct tq_periodic, tm);
    periodic_fire(tw_data(tw), tq_container_of((char *)pt, struct tq_entry, data), tw);
}

/* Advance the key's facility to `now` (never back): its due timers become
 * ready.  Returns how many. */
static uint64_t tq_advance(struct tq *q, uint64_t now)
{
    if (now < tw_now(q->tw))
        return 0;
    int64_t n = tw_advance(q->tw, now);
    return n > 0 ? (uint64_t)n : 0;
}

/* Take e out of wherever it is, and out of the index (slot: where the
 * index points at it). */
static void entry_unlink(struct tq *q, struct tq_entry **slot)
{
    struct tq_entry *e = *slot;
    *slot = e->hnext;
    if (e_queued(e)) {
        link_del(e_ready(e));
        q->nready--;
    }
    if (e_state(e) == TQ_LEASED)
        q->nleased--;
    tw_stop(q->tw, e_node(e)); /* 0 for a timer that fired */
    q->count--;
    if (q->nbucket > 64 && q->count < q->nbucket / 8)
        index_resize(q, q->nbucket / 4);
}

/* Add e (not in the index; its id hashes to h) with deadline `due`:
 * pending, or ready at once when due is not after the key's time. */
static void entry_insert(struct tq *q, struct tq_entry *e, uint64_t h, uint64_t due)
{
    index_add_h(q, e, h);
    q->count++;
    q->bytes += entry_size(e);
    e_set_state(e, TQ_PENDING);
    tw_start_at(q->tw, e_node(e), due);
    if (due <= tw_now(q->tw))
        tq_advance(q, tw_now(q->tw)); /* fires e (and, in hierarchical_coarse, any
                                         timer whose deadline has come but not its
                                         rounded-up tick: early for that scheme,
                                         never before its deadline) */
}

/* A new entry, one-shot (policy TQ_ONCE) or periodic with `period`. */
static struct tq_entry *entry_new(const char *id, size_t idlen, const char *p, size_t plen,
                                  unsigned policy, uint64_t period)
{
    size_t pre = policy ? sizeof(struct tq_periodic) : 0;
    struct tq_entry *e = RedisModule_Alloc(sizeof *e + pre + idlen + plen);
    memset(e, 0, sizeof *e);
    tw_timer_init(&e->tm, policy ? NULL : entry_fire); /* a periodic one's: never started */
    e->idlen = (uint16_t)idlen;
    e->plen = (uint32_t)plen;
    e->state = (uint8_t)(policy << 2);
    if (pre) {
        e_periodic(e)->period = period;
        tw_timer_init(&e_periodic(e)->tm, periodic_entry_fire);
    }
    memcpy(e->data + pre, id, idlen);
    if (plen)
        memcpy(e->data + pre + idlen, p, plen);
    return e;
}

/* Take one delivery of ready entry e: a periodic timer's, or the whole of
 * a one-shot, removed (until 0) or leased until `until`.  A periodic timer
 * has no lease: its delivery is taken as without one. */
static void entry_take(struct tq *q, struct tq_entry *e, uint64_t until)
{
    if (e_policy(e)) {
        if (e->deliveries > 1) {
            e->deliveries--;
            return;
        }
        link_del(e_ready(e));
        q->nready--;
        e->deliveries = 0;
        if (!tw_timer_pending(e_node(e))) { /* its last run */
            entry_unlink(q, index_slot(q, entry_id(e), e->idlen));
            entry_free(q, e);
        }
        return;
    }
    if (until) {
        link_del(e_ready(e));
        q->nready--;
        e_set_state(e, TQ_LEASED);
        if (e->deliveries < UINT8_MAX)
            e->deliveries++;
        q->nleased++;
        tw_start_at(q->tw, e_node(e), until);
        if (until <= tw_now(q->tw))
            tq_advance(q, tw_now(q->tw));
    } else {
        entry_unlink(q, index_slot(q, entry_id(e), e->idlen));
        entry_free(q, e);
    }
}

/* Schemes a key may use: all but wheel, whose range (MaxInterval ticks of
 * 1 ms, 4 s by default) cannot hold the deadlines of a timer queue. */
static int scheme_ok(int s)
{
    return s >= 0 && s != TW_WHEEL && tw_scheme_available((enum tw_scheme)s);
}

/* A scheme's name in any case (SCHEME HEAP, as every option word and
 * value is), or -1. */
static int scheme_named(const char *p, size_t n)
{
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        const char *name = tw_scheme_name((enum tw_scheme)s);
        if (strlen(name) == n && strncasecmp(name, p, n) == 0)
            return s;
    }
    return -1;
}

/* ------------------------------------------------------ module-wide timer */

static int is_primary(RedisModuleCtx *ctx)
{
    return (RedisModule_GetContextFlags(ctx) & REDISMODULE_CTX_FLAGS_SLAVE) == 0;
}

static void on_timer(RedisModuleCtx *ctx, void *data);
static void arm(RedisModuleCtx *ctx);

/* arm(), if a key's wake moved since it last ran: the end of a command. */
static void arm_if_moved(RedisModuleCtx *ctx)
{
    if (g.wake_moved)
        arm(ctx);
}

/* Arm the Redis timer for the earliest next deadline of every key, if it
 * is not armed for it already; on a replica, disarm it. */
static void arm(RedisModuleCtx *ctx)
{
    g.wake_moved = 0;
    tw_time_t next = 0;
    int has = is_primary(ctx) && tw_next_expiry(g.wake, &next) == 1;
    if (g.armed && (!has || next != g.armed_at)) {
        RedisModule_StopTimer(ctx, g.timer, NULL);
        g.armed = 0;
    }
    if (has && !g.armed) {
        uint64_t now = now_ms();
        uint64_t d = next > now ? next - now : 0;
        if (d > (uint64_t)LLONG_MAX / 2)
            d = (uint64_t)LLONG_MAX / 2;
        g.timer = RedisModule_CreateTimer(ctx, (mstime_t)d, on_timer, NULL);
        g.armed = 1;
        g.armed_at = next;
    }
}

/* Key `name`'s timers changed (added, removed, taken, made ready): a WATCH
 * on it fails, and the keyspace notification `event` goes out (class d,
 * "module").  Only then: the module sets
 * REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED, so that a write command
 * that changes nothing (TW.CANCEL of an unknown id, TW.ADD ... NX of one
 * there, TW.POP of an empty key) leaves a WATCH standing, as LPOP of an
 * empty list does.  The key's time moving on alone is not a change. */
static void key_changed(RedisModuleCtx *ctx, RedisModuleString *name, const char *event)
{
    RedisModule_SignalModifiedKey(ctx, name);
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, event, name);
}

/* Bring key q (in database q->db, selected) to `now` and propagate it as
 * TW.EXPIRE, waking its blocked clients if any timer became ready. */
static void tq_expire(RedisModuleCtx *ctx, struct tq *q, uint64_t now)
{
    uint64_t was = tw_now(q->tw);
    if (now < was)
        now = was; /* never back: the wall clock may step */
    uint64_t moved = tq_advance(q, now);
    if (now > was || moved)
        RedisModule_Replicate(ctx, "TW.EXPIRE", "sl", q->name, (long long)now);
    if (moved) {
        key_changed(ctx, q->name, "tw.expire");
        RedisModule_SignalKeyAsReady(ctx, q->name);
    }
    tq_rearm(q);
}

/* A key whose next deadline has come (from the wake facility's advance in
 * on_timer()). */
static void wake_fire(struct tw *tw, struct tw_timer *t)
{
    struct tq *q = tq_container_of(t, struct tq, wake);
    RedisModuleCtx *ctx = g.ctx;
    int olddb = RedisModule_GetSelectedDb(ctx);
    if (q->name == NULL || RedisModule_SelectDb(ctx, q->db) != REDISMODULE_OK) {
        tq_detach(q);
        return;
    }
    /* Opening the key may free q: a key whose Redis TTL has passed is
     * deleted by the lookup (tq_free() then clears g.waking).  The name is
     * copied, since it goes with q. */
    RedisModuleString *name = RedisModule_CreateStringFromString(NULL, q->name);
    g.waking = q;
    /* NOTOUCH: the server's own pass is not an access (LRU and LFU) */
    RedisModuleKey *key = RedisModule_OpenKey(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE |
                                                             REDISMODULE_OPEN_KEY_NOTOUCH);
    int gone = g.waking == NULL;
    g.waking = NULL;
    if (!gone) {
        if (RedisModule_ModuleTypeGetType(key) == g.type && RedisModule_ModuleTypeGetValue(key) == q) {
            tq_expire(ctx, q, tw_now(tw));
        } else {
            /* The name no longer leads to this value (renames are followed
             * by the keyspace notifications below; this guards against a
             * missed one): it waits for a command on its key. */
            RedisModule_Log(ctx, "warning", "twredis: a key of db %d is no longer where it "
                            "was; its timers wait for the next command on it", q->db);
            tq_detach(q);
        }
    }
    RedisModule_CloseKey(key);
    RedisModule_FreeString(NULL, name);
    RedisModule_SelectDb(ctx, olddb);
}

static void on_timer(RedisModuleCtx *ctx, void *data)
{
    (void)data;
    g.armed = 0;
    if (!is_primary(ctx))
        return;
    uint64_t now = now_ms();
    if (now < tw_now(g.wake))
        now = tw_now(g.wake); /* the wall clock stepped back: wait for it */
    g.ctx = ctx;
    tw_advance(g.wake, now);
    g.ctx = NULL;
    arm(ctx);
}

/* ------------------------------------------------------------- commands */

/* Open `name` for a command: *q the value, or NULL if the key is empty
 * (a key opened for reading only is then NULL too).  Returns -1 having
 * replied WRONGTYPE for a key of another type, else 0. */
static int open_key(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleKey **key,
                    struct tq **q)
{
    *key = RedisModule_OpenKey(ctx, name, mode);
    *q = NULL;
    if (RedisModule_KeyType(*key) == REDISMODULE_KEYTYPE_EMPTY)
        return 0;
    if (RedisModule_ModuleTypeGetType(*key) != g.type) {
        RedisModule_CloseKey(*key);
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return -1;
    }
    *q = RedisModule_ModuleTypeGetValue(*key);
    if (mode & REDISMODULE_WRITE) {
        tq_attach(*q, name, RedisModule_GetSelectedDb(ctx));
        arm_if_moved(ctx);
    }
    return 0;
}

/* A command from a client of this server (not the primary's stream, not
 * the AOF), on a primary: the only place time is read. */
static int from_client(RedisModuleCtx *ctx)
{
    int f = RedisModule_GetContextFlags(ctx);
    return (f & (REDISMODULE_CTX_FLAGS_REPLICATED | REDISMODULE_CTX_FLAGS_LOADING)) == 0 &&
           (f & REDISMODULE_CTX_FLAGS_SLAVE) == 0;
}

/* After a write: the change signalled (event, or NULL for none), the
 * key's wake, the Redis timer if that moved, the empty key deleted (and
 * "del" notified, as for a list popped empty). */
static void after_write(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleKey *key,
                        struct tq *q, const char *event)
{
    if (event)
        key_changed(ctx, name, event);
    if (q->count == 0) {
        RedisModule_DeleteKey(key); /* tq_free() */
        RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_GENERIC, "del", name);
    } else {
        tq_rearm(q);
    }
    arm_if_moved(ctx);
}

static int parse_u64(RedisModuleString *s, uint64_t *out)
{
    long long v;
    if (RedisModule_StringToLongLong(s, &v) != REDISMODULE_OK || v < 0)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int arg_is(RedisModuleString *s, const char *word)
{
    size_t n;
    const char *p = RedisModule_StringPtrLen(s, &n);
    return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

static const char *const policy_names[] = {"once", "skip", "burst", "delay"};

/* The arguments of a TW.ADD that makes e again, at deadline d with
 * `queued` deliveries waiting, in key `name` of q's scheme and time: key
 * id payload PXAT d [EVERY p MISSED policy [QUEUED n]] [DELIVERIES n]
 * SCHEME s TIME t (EVERY only if `periodic`: else as a one-shot timer
 * that has been delivered `delivered` times).  Returns how many are in
 * out[] (TQ_ADD_ARGS_MAX long); free them with add_args_free(). */
#define TQ_ADD_ARGS_MAX 20
static int add_args(RedisModuleString *name, const struct tq *q, const struct tq_entry *e,
                    uint64_t d, int periodic, unsigned queued, unsigned delivered,
                    RedisModuleString **out)
{
    int n = 0;
    out[n++] = RedisModule_CreateStringFromString(NULL, name);
    out[n++] = RedisModule_CreateString(NULL, entry_id(e), e->idlen);
    out[n++] = RedisModule_CreateString(NULL, entry_payload(e), e->plen);
    out[n++] = RedisModule_CreateString(NULL, "PXAT", 4);
    out[n++] = RedisModule_CreateStringFromULongLong(NULL, d);
    if (periodic && e_policy(e)) {
        out[n++] = RedisModule_CreateString(NULL, "EVERY", 5);
        out[n++] = RedisModule_CreateStringFromULongLong(NULL, e_period(e));
        out[n++] = RedisModule_CreateString(NULL, "MISSED", 6);
        out[n++] = RedisModule_CreateString(NULL, policy_names[e_policy(e)],
                                            strlen(policy_names[e_policy(e)]));
        if (queued) {
            out[n++] = RedisModule_CreateString(NULL, "QUEUED", 6);
            out[n++] = RedisModule_CreateStringFromULongLong(NULL, queued);
        }
    } else if (delivered) {
        out[n++] = RedisModule_CreateString(NULL, "DELIVERIES", 10);
        out[n++] = RedisModule_CreateStringFromULongLong(NULL, delivered);
    }
    const char *scheme = tw_scheme_name(tw_get_scheme(q->tw));
    out[n++] = RedisModule_CreateString(NULL, "SCHEME", 6);
    out[n++] = RedisModule_CreateString(NULL, scheme, strlen(scheme));
    out[n++] = RedisModule_CreateString(NULL, "TIME", 4);
    out[n++] = RedisModule_CreateStringFromULongLong(NULL, tw_now(q->tw));
    return n;
}

static void add_args_free(RedisModuleString **a, int n)
{
    for (int i = 0; i < n; i++)
        RedisModule_FreeString(NULL, a[i]);
}

/* TW.ADD key id payload PX ms|PXAT unix-ms [NX|XX]
 *        [EVERY ms [MISSED skip|burst|delay]] [SCHEME name] [TIME unix-ms]
 * 1 if the id was added, 0 if it replaced a timer or NX/XX kept it out.
 * EVERY makes it periodic: runs at the deadline, then every ms after it
 * (a run's delivery waits on the ready list; MISSED: enum tq_policy).
 * QUEUED n (what an AOF rewrite writes) starts a periodic timer with n
 * deliveries waiting.
 * SCHEME and TIME apply when the add creates the key: its facility's
 * scheme and its time (default: the server's clock; from a client, not
 * after it), which the add propagates so that a replica's key is the
 * same. */
static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 6)
        return RedisModule_WrongArity(ctx);
    uint64_t due = 0, v, start = 0, period = 0, queued = 0, delivered = 0, px = 0;
    int have_due = 0, have_start = 0, nx = 0, xx = 0, scheme = -1, relative = 0, moved = 0;
    unsigned policy = TQ_ONCE, missed = TQ_SKIP;
    int have_missed = 0;
    for (int i = 4; i < argc; i++) {
        if ((arg_is(argv[i], "PX") || arg_is(argv[i], "PXAT")) && i + 1 < argc && !have_due) {
            if (parse_u64(argv[i + 1], &v) != 0)
                return RedisModule_ReplyWithError(ctx, "ERR invalid expire time: an "
                                                  "integer of ms from 0 to 2^63 - 1");
            relative = arg_is(argv[i], "PX");
            if (relative) {
                uint64_t now = now_ms();
                if (v > TQ_MAX_DEADLINE - now)
                    return RedisModule_ReplyWithError(ctx, "ERR invalid expire time: "
                                                      "the deadline overflows");
                due = now + v;
                px = v;
            } else {
                if (v > TQ_MAX_DEADLINE)
                    return RedisModule_ReplyWithError(ctx, "ERR invalid expire time: an "
                                                      "integer of ms from 0 to 2^63 - 1");
                due = v;
            }
            have_due = 1;
            i++;
        } else if (arg_is(argv[i], "NX")) {
            nx = 1;
        } else if (arg_is(argv[i], "XX")) {
            xx = 1;
        } else if (arg_is(argv[i], "TIME") && i + 1 < argc && !have_start) {
            if (parse_u64(argv[i + 1], &start) != 0 || start > TQ_MAX_DEADLINE ||
                (from_client(ctx) && start > now_ms()))
                return RedisModule_ReplyWithError(ctx, "ERR TIME must be a time in Unix ms, "
                                                  "not after the server's clock");
            have_start = 1;
            i++;
        } else if (arg_is(argv[i], "EVERY") && i + 1 < argc && !policy) {
            if (parse_u64(argv[i + 1], &period) != 0 || period == 0 || period > TQ_MAX_DEADLINE)
                return RedisModule_ReplyWithError(ctx, "ERR EVERY must be a positive integer "
                                                  "of milliseconds");
            policy = 1;
            i++;
        } else if (arg_is(argv[i], "MISSED") && i + 1 < argc) {
            if (arg_is(argv[i + 1], "skip"))
                missed = TQ_SKIP;
            else if (arg_is(argv[i + 1], "burst"))
                missed = TQ_BURST;
            else if (arg_is(argv[i + 1], "delay"))
                missed = TQ_DELAY;
            else
                return RedisModule_ReplyWithError(ctx, "ERR MISSED is skip, burst or delay");
            have_missed = 1;
            i++;
        } else if (arg_is(argv[i], "DELIVERIES") && i + 1 < argc) {
            if (parse_u64(argv[i + 1], &delivered) != 0 || delivered > UINT8_MAX)
                return RedisModule_ReplyWithError(ctx, "ERR DELIVERIES must be from 0 to 255");
            i++;
        } else if (arg_is(argv[i], "QUEUED") && i + 1 < argc) {
            if (parse_u64(argv[i + 1], &queued) != 0 || queued == 0 || queued > UINT8_MAX)
                return RedisModule_ReplyWithError(ctx, "ERR QUEUED must be from 1 to 255");
            i++;
        } else if (arg_is(argv[i], "SCHEME") && i + 1 < argc) {
            size_t n;
            const char *name = RedisModule_StringPtrLen(argv[i + 1], &n);
            scheme = scheme_named(name, n);
            if (!scheme_ok(scheme))
                return RedisModule_ReplyWithError(ctx, "ERR unknown scheme (heap, "
                                                  "hierarchical, lawn, ...; not wheel, whose "
                                                  "range is 4 s: docs/redis.md)");
            i++;
        } else {
            return RedisModule_ReplyWithError(ctx, "ERR syntax error: TW.ADD key id payload "
                                              "PX ms|PXAT unix-ms [NX|XX] [EVERY ms [MISSED "
                                              "skip|burst|delay]] [SCHEME name] "
                                              "[TIME unix-ms]");
        }
    }
    if (policy)
        policy = missed;
    if (queued && !policy)
        return RedisModule_ReplyWithError(ctx, "ERR QUEUED is for periodic timers (EVERY)");
    if (have_missed && !policy)
        return RedisModule_ReplyWithError(ctx, "ERR MISSED is for periodic timers (EVERY)");
    if (delivered && policy)
        return RedisModule_ReplyWithError(ctx, "ERR DELIVERIES is for one-shot timers");
    if (!have_due)
        return RedisModule_ReplyWithError(ctx, "ERR a deadline is required: PX ms or PXAT unix-ms");
    if (nx && xx)
        return RedisModule_ReplyWithError(ctx, "ERR XX and NX options at the same time are "
                                          "not compatible");
    size_t idlen, plen;
    const char *id = RedisModule_StringPtrLen(argv[2], &idlen);
    const char *payload = RedisModule_StringPtrLen(argv[3], &plen);
    /* The configured limits bind clients; what a primary sends or the AOF
     * replays was accepted already, and refusing it here would lose a
     * timer on a server loaded with smaller limits.  TQ_MAX_ID binds all:
     * the length is 16 bits. */
    int client = from_client(ctx);
    if (idlen == 0 || idlen > TQ_MAX_ID || (client && idlen > g.max_id))
        return RedisModule_ReplyWithError(ctx, "ERR id length out of range (1 to max-id bytes)");
    if (client && plen > g.max_payload)
        return RedisModule_ReplyWithError(ctx, "ERR payload longer than max-payload bytes");

    struct tq *q;
    RedisModuleKey *key;
    if (open_key(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &q) != 0)
        return REDISMODULE_OK;
    uint64_t h = id_hash(id, idlen);
    struct tq_entry **slot = q ? index_slot_h(q, id, idlen, h) : NULL;
    if ((nx && slot) || (xx && !slot)) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithLongLong(ctx, 0);
    }
    int created = q == NULL;
    /* A key whose time is ahead of the server's clock (restored from a
     * server whose clock ran ahead, or a clock stepped back) holds every
     * deadline up to its time as due.  A client's add waits as the key's
     * timers do, never early: PX counts from the key's time, and a PXAT
     * after the clock but not after the key's time waits for the first ms
     * past it.  The deadline is then sent on as PXAT. */
    uint64_t kt = created ? 0 : tw_now(q->tw), now = now_ms();
    if (client && kt > now) {
        if (relative) {
            if (px > TQ_MAX_DEADLINE - kt) {
                RedisModule_CloseKey(key);
                return RedisModule_ReplyWithError(ctx, "ERR invalid expire time: "
                                                  "the deadline overflows");
            }
            due = kt + px;
        } else if (due > now && due <= kt) {
            due = kt < TQ_MAX_DEADLINE ? kt + 1 : kt;
            moved = 1;
        }
    }
    if (created) {
        if (!have_start)
            start = now_ms();
        q = tq_new(scheme >= 0 ? (enum tw_scheme)scheme : g.scheme, start);
        if (q == NULL) {
            RedisModule_CloseKey(key);
            return RedisModule_ReplyWithError(ctx, "ERR scheme not available in this build");
        }
    }
    if (created) {
        RedisModule_ModuleTypeSetValue(key, g.type, q);
        tq_attach(q, argv[1], RedisModule_GetSelectedDb(ctx));
    }
    int added = slot == NULL;
    if (slot) {
        struct tq_entry *old = *slot;
        entry_unlink(q, slot);
        entry_free(q, old);
    }
    uint64_t ready0 = q->nready;
    struct tq_entry *e = entry_new(id, idlen, payload, plen, policy, period);
    entry_insert(q, e, h, due);
    if (queued) {
        if (!e_queued(e)) {
            link_add_tail(&q->ready, e_ready(e));
            q->nready++;
        }
        e->deliveries = (uint8_t)queued;
    } else if (delivered) {
        e->deliveries = (uint8_t)delivered;
    }
    /* As it was sent when that is deterministic (PXAT into a key that
     * exists, not moved past a key's time ahead), else with the absolute
     * deadline and, for a new key, its scheme and time. */
    if (!created && !relative && !moved) {
        RedisModule_ReplicateVerbatim(ctx);
    } else {
        RedisModuleString *a[TQ_ADD_ARGS_MAX];
        int n = add_args(argv[1], q, e, due, 1, (unsigned)queued, e->deliveries, a);
        RedisModule_Replicate(ctx, "TW.ADD", "v", a, (size_t)n);
        add_args_free(a, n);
    }
    if (q->nready > ready0)
        RedisModule_SignalKeyAsReady(ctx, argv[1]);
    after_write(ctx, argv[1], key, q, "tw.add");
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithLongLong(ctx, added);
}

/* What a command does to each timer it names. */
enum ids_op {
    IDS_CANCEL, /* remove, in any state */
    IDS_ACK,    /* remove, if delivered with a lease */
    IDS_TAKE    /* take a ready one (entry_take()) */
};

/* Apply op to the timers named argv[first..] of key argv[1] (until: a
 * take's lease end); reply how many it applied to, and replicate the
 * command as it came when it changed anything. */
static int each_id(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int first,
                   enum ids_op op, uint64_t until)
{
    struct tq *q;
    RedisModuleKey *key;
    if (open_key(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &q) != 0)
        return REDISMODULE_OK;
    long long n = 0;
    for (int i = first; q && i < argc; i++) {
        size_t len;
        const char *id = RedisModule_StringPtrLen(argv[i], &len);
        struct tq_entry **slot = index_slot(q, id, len);
        if (slot == NULL)
            continue;
        struct tq_entry *e = *slot;
        if (op == IDS_TAKE) {
            if (!e_queued(e))
                continue;
            entry_take(q, e, until);
        } else {
            if (op == IDS_ACK &&
                (e_policy(e) || e->deliveries == 0 || e_state(e) == TQ_PENDING))
                continue;
            entry_unlink(q, slot);
            entry_free(q, e);
        }
        n++;
    }
    if (n) {
        static const char *const events[] = {"tw.cancel", "tw.ack", "tw.take"};
        RedisModule_ReplicateVerbatim(ctx);
        after_write(ctx, argv[1], key, q, events[op]);
    }
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithLongLong(ctx, n);
}

/* TW.CANCEL key id [id ...]: how many were removed (in any state). */
static int cmd_cancel(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return argc < 3 ? RedisModule_WrongArity(ctx) : each_id(ctx, argv, argc, 2, IDS_CANCEL, 0);
}

/* TW.ACK key id [id ...]: remove timers handed out with a lease (leased,
 * or ready again after their lease ran out); how many. */
static int cmd_ack(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return argc < 3 ? RedisModule_WrongArity(ctx) : each_id(ctx, argv, argc, 2, IDS_ACK, 0);
}

/* The start of a read-only command: arity `want`, and key argv[1] looked
 * up (closed again at once: the value stays while the command runs).
 * Returns 0 with *q (NULL: no such key), or -1 having replied. */
static int read_key(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int want,
                    struct tq **q)
{
    if (argc != want) {
        RedisModule_WrongArity(ctx);
        return -1;
    }
    RedisModuleKey *key;
    if (open_key(ctx, argv[1], REDISMODULE_READ, &key, q) != 0)
        return -1;
    RedisModule_CloseKey(key);
    return 0;
}

/* TW.DEADLINE key id: the timer's deadline in Unix ms (a leased timer's:
 * its lease's end), or -2 if there is no such timer. */
static int cmd_deadline(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    struct tq *q;
    if (read_key(ctx, argv, argc, 3, &q) != 0)
        return REDISMODULE_OK;
    size_t len;
    const char *id = RedisModule_StringPtrLen(argv[2], &len);
    struct tq_entry *e = q ? index_find(q, id, len) : NULL;
    return RedisModule_ReplyWithLongLong(ctx, e ? (long long)e_deadline(e) : -2);
}

/* TW.COUNT key: timers in the key, every state. */
static int cmd_count(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    struct tq *q;
    if (read_key(ctx, argv, argc, 2, &q) != 0)
        return REDISMODULE_OK;
    return RedisModule_ReplyWithLongLong(ctx, q ? (long long)q->count : 0);
}

/* TW.NEXT key: the earliest deadline of a pending or leased timer (Unix
 * ms), or nil. */
static int cmd_next(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    struct tq *q;
    if (read_key(ctx, argv, argc, 2, &q) != 0)
        return REDISMODULE_OK;
    tw_time_t d;
    int has = q && tw_next_expiry(q->tw, &d) == 1;
    if (has && d > TQ_MAX_DEADLINE)
        d = TQ_MAX_DEADLINE; /* hierarchical_coarse fires at a tick that may round past it */
    return has ? RedisModule_ReplyWithLongLong(ctx, (long long)d) : RedisModule_ReplyWithNull(ctx);
}

/* TW.INFO key: field-value pairs. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    struct tq *q;
    if (read_key(ctx, argv, argc, 2, &q) != 0)
        return REDISMODULE_OK;
    if (q == NULL)
        return RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithArray(ctx, 14);
    RedisModule_ReplyWithSimpleString(ctx, "scheme");
    RedisModule_ReplyWithSimpleString(ctx, tw_scheme_name(tw_get_scheme(q->tw)));
    RedisModule_ReplyWithSimpleString(ctx, "timers");
    RedisModule_ReplyWithLongLong(ctx, (long long)q->count);
    RedisModule_ReplyWithSimpleString(ctx, "pending");
    RedisModule_ReplyWithLongLong(ctx, (long long)(tw_count(q->tw) - q->nleased));
    RedisModule_ReplyWithSimpleString(ctx, "ready");
    RedisModule_ReplyWithLongLong(ctx, (long long)q->nready);
    RedisModule_ReplyWithSimpleString(ctx, "leased");
    RedisModule_ReplyWithLongLong(ctx, (long long)q->nleased);
    RedisModule_ReplyWithSimpleString(ctx, "time");
    RedisModule_ReplyWithLongLong(ctx, (long long)tw_now(q->tw));
    RedisModule_ReplyWithSimpleString(ctx, "memory");
    RedisModule_ReplyWithLongLong(ctx, (long long)(sizeof *q + tw_memory(q->tw) +
                                                   q->nbucket * sizeof *q->bucket + q->bytes));
    return REDISMODULE_OK;
}

/* Take up to `count` ready timers of q: reply [[id, payload], ...], remove
 * them or lease them until `lease_until` (0: remove), and propagate it as
 * TW.TAKE key lease-until id...  Returns how many. */
static long long take_ready(RedisModuleCtx *ctx, RedisModuleString *name, struct tq *q,
                            uint64_t count, uint64_t lease_until)
{
    /* A periodic timer may have several deliveries waiting (up to 255): the
     * reply's length is known at the end, and ids[] grows as it goes. */
    uint64_t k = 0, cap = 16;
    RedisModuleString **ids = RedisModule_Alloc(cap * sizeof *ids);
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    for (; k < count && q->nready; k++) {
        uint64_t i = k;
        if (i == cap) {
            cap *= 2;
            ids = RedisModule_Realloc(ids, cap * sizeof *ids);
        }
        struct tq_entry *e = ready_entry(q->ready.next);
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithStringBuffer(ctx, entry_id(e), e->idlen);
        RedisModule_ReplyWithStringBuffer(ctx, entry_payload(e), e->plen);
        ids[i] = RedisModule_CreateString(NULL, entry_id(e), e->idlen);
        entry_take(q, e, lease_until);
    }
    RedisModule_ReplySetArrayLength(ctx, (long)k);
    if (k)
        RedisModule_Replicate(ctx, "TW.TAKE", "slv", name, (long long)lease_until, ids, (size_t)k);
    for (uint64_t i = 0; i < k; i++)
        RedisModule_FreeString(NULL, ids[i]);
    RedisModule_Free(ids);
    return (long long)k;
}

struct pop_args {
    uint64_t count;
    uint64_t lease;   /* ms, 0: none */
};

/* The pop, once the key is open for writing: bring the key to now (on a
 * primary) if a timer of it is due by now, then take.  A key with nothing
 * due keeps its time: a pop that finds nothing writes nothing to the
 * replicas and the AOF.  Returns how many were taken, or -1 if none was
 * ready (nothing replied). */
static long long pop_key(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleKey *key,
                         struct tq *q, const struct pop_args *a)
{
    uint64_t now = now_ms();
    tw_time_t w;
    if (q && is_primary(ctx) && tw_next_wakeup(q->tw, &w) == 1 && w <= now)
        tq_expire(ctx, q, now);
    if (q == NULL || q->nready == 0)
        return -1;
    uint64_t until = 0;
    if (a->lease) {
        /* From the key's time or the clock, the later (the key's time may
         * trail the clock, or lead it in a key from another server),
         * saturated at the last time a key may hold: a lease past it
         * would make the key one its own DUMP and RDB cannot restore. */
        uint64_t from = tw_now(q->tw) > now ? tw_now(q->tw) : now;
        until = a->lease < TQ_MAX_DEADLINE - from ? from + a->lease : TQ_MAX_DEADLINE;
    }
    long long k = take_ready(ctx, name, q, a->count, until);
    after_write(ctx, name, key, q, k > 0 ? "tw.pop" : NULL);
    return k;
}

static int pop_blocked_reply(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    (void)argv;
    (void)argc;
    const struct pop_args *a = RedisModule_GetBlockedClientPrivateData(ctx);
    RedisModuleString *name = RedisModule_GetBlockedClientReadyKey(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) == REDISMODULE_KEYTYPE_EMPTY ||
        RedisModule_ModuleTypeGetType(key) != g.type) {
        RedisModule_CloseKey(key);
        return REDISMODULE_ERR; /* keep waiting */
    }
    struct tq *q = RedisModule_ModuleTypeGetValue(key);
    tq_attach(q, name, RedisModule_GetSelectedDb(ctx));
    long long k = pop_key(ctx, name, key, q, a);
    RedisModule_CloseKey(key);
    return k < 0 ? REDISMODULE_ERR : REDISMODULE_OK;
}

static int pop_blocked_timeout(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    (void)argv;
    (void)argc;
    return RedisModule_ReplyWithNullArray(ctx);
}

static void pop_blocked_free(RedisModuleCtx *ctx, void *privdata)
{
    (void)ctx;
    RedisModule_Free(privdata);
}

/* TW.POP key [COUNT n] [LEASE ms] [BLOCK ms]: up to n (default 1) ready
 * timers as [[id, payload], ...]; an empty array when none is ready, or,
 * with BLOCK, wait up to ms (0: for ever) for one, nil on timeout. */
static int cmd_pop(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 2)
        return RedisModule_WrongArity(ctx);
    struct pop_args a = {1, 0};
    uint64_t block = 0;
    int blocking = 0;
    for (int i = 2; i < argc; i += 2) { /* option-value pairs */
        uint64_t v;
        if (i + 1 >= argc)
            return RedisModule_ReplyWithError(ctx, "ERR syntax error: TW.POP key [COUNT n] "
                                              "[LEASE ms] [BLOCK ms]");
        if (arg_is(argv[i], "COUNT")) {
            if (parse_u64(argv[i + 1], &v) != 0)
                return RedisModule_ReplyWithError(ctx, "ERR COUNT must be a non-negative "
                                                  "integer");
            a.count = v;
        } else if (arg_is(argv[i], "LEASE")) {
            if (parse_u64(argv[i + 1], &v) != 0 || v == 0 || v > TQ_MAX_DEADLINE / 2)
                return RedisModule_ReplyWithError(ctx, "ERR LEASE must be a positive integer "
                                                  "of milliseconds");
            a.lease = v;
        } else if (arg_is(argv[i], "BLOCK")) {
            if (parse_u64(argv[i + 1], &v) != 0 || v > TQ_MAX_DEADLINE / 2)
                return RedisModule_ReplyWithError(ctx, "ERR timeout is not an integer or "
                                                  "out of range");
            block = v;
            blocking = 1;
        } else {
            return RedisModule_ReplyWithError(ctx, "ERR syntax error: TW.POP key [COUNT n] "
                                              "[LEASE ms] [BLOCK ms]");
        }
    }
    struct tq *q;
    RedisModuleKey *key;
    if (a.count == 0) { /* as ZPOPMIN key 0: an empty array, nothing taken or expired */
        if (blocking)
            return RedisModule_ReplyWithError(ctx, "ERR COUNT must be positive with BLOCK");
        if (open_key(ctx, argv[1], REDISMODULE_READ, &key, &q) != 0)
            return REDISMODULE_OK;
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithArray(ctx, 0);
    }
    if (open_key(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &q) != 0)
        return REDISMODULE_OK;
    long long k = pop_key(ctx, argv[1], key, q, &a);
    RedisModule_CloseKey(key);
    if (k >= 0)
        return REDISMODULE_OK;
    int f = RedisModule_GetContextFlags(ctx);
    if (!blocking || (f & (REDISMODULE_CTX_FLAGS_MULTI | REDISMODULE_CTX_FLAGS_LUA |
                           REDISMODULE_CTX_FLAGS_DENY_BLOCKING)))
        return blocking ? RedisModule_ReplyWithNullArray(ctx) : RedisModule_ReplyWithArray(ctx, 0);
    struct pop_args *pa = RedisModule_Alloc(sizeof *pa);
    *pa = a;
    RedisModule_BlockClientOnKeys(ctx, pop_blocked_reply, pop_blocked_timeout, pop_blocked_free,
                                  (long long)block, &argv[1], 1, pa);
    return REDISMODULE_OK;
}

/* TW.EXPIRE key unix-ms: advance the key to that time, its due timers made
 * ready; how many.  What a primary sends its replicas and writes to the
 * AOF; from a client, a time after the server's clock is refused (it would
 * fire timers early). */
static int cmd_expire(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 3)
        return RedisModule_WrongArity(ctx);
    uint64_t t;
    if (parse_u64(argv[2], &t) != 0 || t > TQ_MAX_DEADLINE)
        return RedisModule_ReplyWithError(ctx, "ERR invalid time");
    if (from_client(ctx) && t > now_ms())
        return RedisModule_ReplyWithError(ctx, "ERR time is after the server's clock");
    struct tq *q;
    RedisModuleKey *key;
    if (open_key(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &q) != 0)
        return REDISMODULE_OK;
    uint64_t moved = 0;
    if (q && t > tw_now(q->tw)) {
        moved = tq_advance(q, t);
        RedisModule_ReplicateVerbatim(ctx);
        if (moved)
            RedisModule_SignalKeyAsReady(ctx, argv[1]);
        after_write(ctx, argv[1], key, q, moved ? "tw.expire" : NULL);
    }
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithLongLong(ctx, (long long)moved);
}

/* TW.TAKE key lease-until id [id ...]: take the named ready timers, removed
 * (lease-until 0) or leased until that time; how many.  What a pop sends
 * replicas and the AOF. */
static int cmd_take(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 4)
        return RedisModule_WrongArity(ctx);
    uint64_t until;
    if (parse_u64(argv[2], &until) != 0 || until > TQ_MAX_DEADLINE)
        return RedisModule_ReplyWithError(ctx, "ERR invalid lease time");
    return each_id(ctx, argv, argc, 3, IDS_TAKE, until);
}

/* ------------------------------------------------------ type callbacks */

/*
 * RDB encoding 2: scheme name, the key's time, the count, then per timer,
 * the ready ones first (oldest first): id, payload, state (enum tq_state
 * | enum tq_policy << 2), deadline (a ready one-shot timer's: the one it
 * fired for; a periodic one's: its next run), deliveries; a periodic
 * timer adds its period and flags (1: pending, 2: ready).  Encoding 1 is
 * the same without periodic timers.
 */
static void tq_rdb_save_entry(RedisModuleIO *io, struct tq_entry *e)
{
    RedisModule_SaveStringBuffer(io, entry_id(e), e->idlen);
    RedisModule_SaveStringBuffer(io, entry_payload(e), e->plen);
    RedisModule_SaveUnsigned(io, e->state);
    RedisModule_SaveUnsigned(io, e_deadline(e));
    RedisModule_SaveUnsigned(io, e->deliveries);
    if (e_policy(e)) {
        RedisModule_SaveUnsigned(io, e_period(e));
        RedisModule_SaveUnsigned(io, (uint64_t)(tw_timer_pending(e_node(e)) ? 1 : 0) |
                                         (uint64_t)(e_queued(e) ? 2 : 0));
    }
}

static void tq_rdb_save(RedisModuleIO *io, void *value)
{
    struct tq *q = value;
    const char *scheme = tw_scheme_name(tw_get_scheme(q->tw));
    RedisModule_SaveStringBuffer(io, scheme, strlen(scheme));
    RedisModule_SaveUnsigned(io, tw_now(q->tw));
    RedisModule_SaveUnsigned(io, q->count);
    for (struct tw_link *l = q->ready.next; l != &q->ready; l = l->next)
        tq_rdb_save_entry(io, ready_entry(l));
    for (uint64_t i = 0; i < q->nbucket; i++)
        for (struct tq_entry *e = q->bucket[i]; e; e = e->hnext)
            if (!e_queued(e))
                tq_rdb_save_entry(io, e);
}

/* One timer of an RDB file into q, whose time is `now`: 0, or -1 if the
 * file is damaged (nothing added). */
static int tq_rdb_load_entry(RedisModuleIO *io, int encver, struct tq *q, uint64_t now)
{
    size_t idlen = 0, plen = 0;
    char *id = RedisModule_LoadStringBuffer(io, &idlen);
    char *p = RedisModule_IsIOError(io) ? NULL : RedisModule_LoadStringBuffer(io, &plen);
    uint64_t state = RedisModule_LoadUnsigned(io);
    uint64_t deadline = RedisModule_LoadUnsigned(io);
    uint64_t deliveries = RedisModule_LoadUnsigned(io);
    unsigned st = (unsigned)(state & 3), policy = encver >= 2 ? (unsigned)(state >> 2) & 3 : 0;
    uint64_t period = 0, flags = 0;
    if (policy) {
        period = RedisModule_LoadUnsigned(io);
        flags = RedisModule_LoadUnsigned(io);
    }
    int bad = RedisModule_IsIOError(io) || state > 15 || st > TQ_LEASED ||
              (encver < 2 && state > TQ_LEASED) || (policy && (st != TQ_PENDING ||
              period == 0 || flags == 0 || flags > 3 || (deliveries == 0) == ((flags & 2) != 0))) ||
              idlen == 0 || idlen > TQ_MAX_ID || plen > UINT32_MAX || deadline > TQ_MAX_DEADLINE ||
              period > TQ_MAX_DEADLINE || (st == TQ_LEASED && deliveries == 0) ||
              index_find(q, id, idlen);
    if (!bad) {
        struct tq_entry *e = entry_new(id, idlen, p, plen, policy, period);
        e->deliveries = (uint8_t)(deliveries < UINT8_MAX ? deliveries : UINT8_MAX);
        index_add(q, e);
        q->count++;
        q->bytes += entry_size(e);
        if (policy) {
            tw_start_at(q->tw, e_node(e), deadline);
            if (!(flags & 1))
                tw_stop(q->tw, e_node(e)); /* past its last run: idle, its deadline kept */
            if (flags & 2) {
                link_add_tail(&q->ready, e_ready(e));
                q->nready++;
            }
        } else if (st == TQ_READY) {
            /* Fired now, so that it joins the ready list in the file's
             * order and keeps the deadline it had. */
            tw_start_at(q->tw, e_node(e), deadline < now ? deadline : now);
            tq_advance(q, now);
        } else {
            tw_start_at(q->tw, e_node(e), deadline);
            if (st == TQ_LEASED) {
                e_set_state(e, TQ_LEASED);
                q->nleased++;
            }
        }
    }
    if (id)
        RedisModule_Free(id);
    if (p)
        RedisModule_Free(p);
    return bad ? -1 : 0;
}

static void *tq_rdb_load(RedisModuleIO *io, int encver)
{
    if (encver < 1) {
        RedisModule_LogIOError(io, "warning", "twredis: encoding %d of timers is none that "
                               "twredis writes", encver);
        return NULL;
    }
    if (encver > TQ_ENCVER) {
        RedisModule_LogIOError(io, "warning", "twredis: this RDB file holds timers in encoding "
                               "%d, written by a newer twredis; this one reads up to %d", encver,
                               TQ_ENCVER);
        return NULL;
    }
    size_t n;
    char *name = RedisModule_LoadStringBuffer(io, &n);
    if (RedisModule_IsIOError(io))
        return NULL;
    char sname[32];
    int scheme = -1;
    if (n < sizeof sname && memchr(name, '\0', n) == NULL) {
        memcpy(sname, name, n);
        sname[n] = '\0';
        scheme = tw_scheme_from_name(sname);
    }
    RedisModule_Free(name);
    uint64_t now = RedisModule_LoadUnsigned(io);
    uint64_t count = RedisModule_LoadUnsigned(io);
    if (RedisModule_IsIOError(io))
        return NULL;
    if (now > TQ_MAX_DEADLINE) { /* a time no command could have set */
        RedisModule_LogIOError(io, "warning", "twredis: a key's time is out of range");
        return NULL;
    }
    if (count == 0) { /* a key is deleted with its last timer */
        RedisModule_LogIOError(io, "warning", "twredis: a key holds no timer");
        return NULL;
    }
    struct tq *q = scheme_ok(scheme) ? tq_new((enum tw_scheme)scheme, now) : NULL;
    if (q == NULL) {
        RedisModule_LogIOError(io, "warning", "twredis: a key's scheme is unknown to this build");
        return NULL;
    }
    for (uint64_t i = 0; i < count; i++)
        if (tq_rdb_load_entry(io, encver, q, now) != 0) {
            RedisModule_LogIOError(io, "warning", "twredis: a timer of a key is damaged");
            tq_free(q);
            return NULL;
        }
    tq_attach(q, RedisModule_GetKeyNameFromIO(io), RedisModule_GetDbIdFromIO(io));
    return q;
}

/* One timer of the AOF: a periodic one at its next run with the
 * deliveries it has waiting; a one-shot one at its deadline (a leased one
 * ready now, taken again below) with its delivery count. */
static void tq_aof_entry(RedisModuleIO *aof, RedisModuleString *key, struct tq *q,
                         struct tq_entry *e)
{
    RedisModuleString *a[TQ_ADD_ARGS_MAX];
    uint64_t now = tw_now(q->tw);
    int n;
    if (e_policy(e) && tw_timer_pending(e_node(e))) {
        n = add_args(key, q, e, e_deadline(e), 1, e_queued(e) ? e->deliveries : 0,
                     0, a);
    } else if (e_policy(e)) {
        /* past its last run, its last deliveries waiting: added at that
         * run, it runs at once and finds no next run again */
        n = add_args(key, q, e, e_deadline(e), 1, e->deliveries, 0, a);
    } else if (e_state(e) == TQ_LEASED) {
        n = add_args(key, q, e, now, 0, 0, e->deliveries ? e->deliveries - 1u : 0, a);
    } else {
        n = add_args(key, q, e, e_deadline(e), 0, 0, e->deliveries, a);
    }
    RedisModule_EmitAOF(aof, "TW.ADD", "v", a, (size_t)n);
    add_args_free(a, n);
}

/* The AOF: the ready timers first, in their order (each added at or
 * before the key's time is ready at once), then the others, each with its
 * absolute deadline; the key brought to its time; the leased ones taken
 * again. */
static void tq_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value)
{
    struct tq *q = value;
    for (struct tw_link *l = q->ready.next; l != &q->ready; l = l->next)
        tq_aof_entry(aof, key, q, ready_entry(l));
    for (uint64_t i = 0; i < q->nbucket; i++)
        for (struct tq_entry *e = q->bucket[i]; e; e = e->hnext)
            if (!e_queued(e))
                tq_aof_entry(aof, key, q, e);
    RedisModule_EmitAOF(aof, "TW.EXPIRE", "sl", key, (long long)tw_now(q->tw));
    for (uint64_t i = 0; i < q->nbucket; i++)
        for (struct tq_entry *e = q->bucket[i]; e; e = e->hnext)
            if (e_state(e) == TQ_LEASED)
                RedisModule_EmitAOF(aof, "TW.TAKE", "slb", key,
                                    (long long)e_deadline(e), entry_id(e),
                                    (size_t)e->idlen);
}

static size_t tq_mem_usage(const void *value)
{
    const struct tq *q = value;
    return sizeof *q + tw_memory(q->tw) + q->nbucket * sizeof *q->bucket + q->bytes;
}

/* DEBUG DIGEST: each timer a sequence, so that the order of the index
 * does not matter. */
static void tq_digest(RedisModuleDigest *md, void *value)
{
    struct tq *q = value;
    /* the key's scheme and time, which the RDB keeps and the replicas follow */
    RedisModule_DigestAddLongLong(md, (long long)tw_get_scheme(q->tw));
    RedisModule_DigestAddLongLong(md, (long long)tw_now(q->tw));
    RedisModule_DigestEndSequence(md);
    for (uint64_t i = 0; i < q->nbucket; i++)
        for (struct tq_entry *e = q->bucket[i]; e; e = e->hnext) {
            RedisModule_DigestAddStringBuffer(md, (const char *)entry_id(e), e->idlen);
            RedisModule_DigestAddStringBuffer(md, (const char *)entry_payload(e), e->plen);
            RedisModule_DigestAddLongLong(md, e->state);
            RedisModule_DigestAddLongLong(md, e->deliveries);
            RedisModule_DigestAddLongLong(md, (long long)e_period(e));
            RedisModule_DigestAddLongLong(md, (long long)e_deadline(e));
            RedisModule_DigestEndSequence(md);
        }
}

/* ---------------------------------------------------------------- events */

/* A key renamed, moved or restored: its name (and database) for the
 * expiry, and the Redis timer armed for it. */
static int on_keyspace(RedisModuleCtx *ctx, int type, const char *event, RedisModuleString *key)
{
    (void)type;
    /* restore: a key loaded by RESTORE (MIGRATE, cluster resharding) is
     * attached by its loader, but the Redis timer must learn of it */
    if (strcmp(event, "rename_to") != 0 && strcmp(event, "move_to") != 0 &&
        strcmp(event, "restore") != 0)
        return REDISMODULE_OK;
    RedisModuleKey *k = RedisModule_OpenKey(ctx, key, REDISMODULE_READ);
    if (RedisModule_KeyType(k) == REDISMODULE_KEYTYPE_MODULE &&
        RedisModule_ModuleTypeGetType(k) == g.type) {
        struct tq *q = RedisModule_ModuleTypeGetValue(k);
        tq_attach(q, key, RedisModule_GetSelectedDb(ctx));
        arm(ctx);
    }
    RedisModule_CloseKey(k);
    return REDISMODULE_OK;
}

/* FLUSHDB / FLUSHALL: the keys leave the module-wide lists first, since an
 * asynchronous flush frees them on another thread. */
static void on_flush(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data)
{
    (void)e;
    if (sub != REDISMODULE_SUBEVENT_FLUSHDB_START)
        return;
    const RedisModuleFlushInfo *fi = data;
    struct tw_link *l = g.keys.next, *next;
    for (; l != &g.keys; l = next) {
        next = l->next;
        struct tq *q = tq_container_of(l, struct tq, keys);
        if (fi->dbnum == -1 || fi->dbnum == q->db)
            tq_detach(q);
    }
    arm(ctx);
}

static void on_swapdb(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data)
{
    (void)ctx;
    (void)e;
    (void)sub;
    const RedisModuleSwapDbInfo *si = data;
    for (struct tw_link *l = g.keys.next; l != &g.keys; l = l->next) {
        struct tq *q = tq_container_of(l, struct tq, keys);
        if (q->db == si->dbnum_first)
            q->db = si->dbnum_second;
        else if (q->db == si->dbnum_second)
            q->db = si->dbnum_first;
    }
}

/* A replica promoted, a primary demoted, a data set loaded: arm or disarm
 * the Redis timer from the keys (Redis timers are neither saved nor
 * replicated). */
static void on_role_or_load(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data)
{
    (void)e;
    (void)sub;
    (void)data;
    arm(ctx);
}

/* ---------------------------------------------------------------- onload */

static int parse_load_args(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    for (int i = 0; i + 1 < argc; i += 2) {
        size_t vlen;
        const char *v = RedisModule_StringPtrLen(argv[i + 1], &vlen);
        uint64_t n;
        if (arg_is(argv[i], "SCHEME")) {
            int s = scheme_named(v, vlen);
            if (!scheme_ok(s)) {
                RedisModule_Log(ctx, "warning", "twredis: scheme '%s' unknown or not for keys "
                                "(wheel's range is 4 s)", v);
                return -1;
            }
            g.scheme = (enum tw_scheme)s;
        } else if (arg_is(argv[i], "MAX-PAYLOAD") && parse_u64(argv[i + 1], &n) == 0 &&
                   n <= UINT32_MAX) {
            g.max_payload = n;
        } else if (arg_is(argv[i], "MAX-ID") && parse_u64(argv[i + 1], &n) == 0 && n >= 1 &&
                   n <= TQ_MAX_ID) {
            g.max_id = n;
        } else {
            RedisModule_Log(ctx, "warning", "twredis: bad argument '%s' (known: SCHEME name, "
                            "MAX-PAYLOAD bytes, MAX-ID bytes)",
                            RedisModule_StringPtrLen(argv[i], NULL));
            return -1;
        }
    }
    if (argc % 2) {
        RedisModule_Log(ctx, "warning", "twredis: arguments come in name-value pairs");
        return -1;
    }
    return 0;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (RedisModule_Init(ctx, "twheel", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    g.scheme = TW_HEAP;
    g.max_payload = 1u << 20;
    g.max_id = 1024;
    if (parse_load_args(ctx, argv, argc) != 0)
        return REDISMODULE_ERR;
    {
        uint64_t s = (uint64_t)now_ms() ^ (uint64_t)(uintptr_t)&g;
        RedisModuleString *r = RedisModule_CreateStringPrintf(ctx, "%p", (void *)ctx);
        s ^= (uint64_t)(uintptr_t)r;
        RedisModule_FreeString(ctx, r);
        g.seed = mix64(s);
    }
    link_init(&g.keys);
    struct tw_config cfg;
    tw_config_init(&cfg, TW_HEAP);
    cfg.start = now_ms();
    cfg.allocator = &tq_allocator;
    if (tw_create(&g.wake, &cfg) != 0)
        return REDISMODULE_ERR;

    RedisModuleTypeMethods tm = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = tq_rdb_load,
        .rdb_save = tq_rdb_save,
        .aof_rewrite = tq_aof_rewrite,
        .mem_usage = tq_mem_usage,
        .digest = tq_digest,
        .free = tq_free,
    };
    g.type = RedisModule_CreateDataType(ctx, TQ_TYPE_NAME, TQ_ENCVER, &tm);
    if (g.type == NULL)
        return REDISMODULE_ERR;
    /* A key is signalled modified only when its timers change (key_changed()) */
    RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS |
                                          REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED);

    /* Each command with its arity (negative: at least) and what it does to
     * its one key, the first argument: Redis 7's key specs, by which ACL
     * key permissions (%R~ read-only users may run the reads), cluster
     * routing and COMMAND GETKEYSANDFLAGS see it (INSERT, UPDATE and
     * DELETE exclude each other: an add may replace, so it is UPDATE; a
     * pop or take, which may also lease, DELETE). */
    enum {
        RO = REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS,
        RW = REDISMODULE_CMD_KEY_RW,
        TAKE = REDISMODULE_CMD_KEY_ACCESS | REDISMODULE_CMD_KEY_DELETE,
    };
    static const struct {
        const char *name;
        RedisModuleCmdFunc fn;
        const char *flags;
        int arity;
        uint64_t key;
        const char *summary;
    } cmds[] = {
        {"tw.add", cmd_add, "write deny-oom", -6, RW | REDISMODULE_CMD_KEY_UPDATE,
         "Add or replace a timer"},
        {"tw.cancel", cmd_cancel, "write fast", -3, RW | REDISMODULE_CMD_KEY_DELETE,
         "Remove timers by id, in any state"},
        {"tw.ack", cmd_ack, "write fast", -3, RW | REDISMODULE_CMD_KEY_DELETE,
         "Acknowledge leased timers"},
        {"tw.pop", cmd_pop, "write blocking", -2, RW | TAKE,
         "Take ready timers, optionally leased, optionally blocking"},
        {"tw.expire", cmd_expire, "write", 3, RW | REDISMODULE_CMD_KEY_UPDATE,
         "Advance a key to a time (what replication carries)"},
        {"tw.take", cmd_take, "write", -4, RW | TAKE,
         "Take named ready timers (what replication carries)"},
        {"tw.deadline", cmd_deadline, "readonly fast", 3, RO, "A timer's deadline"},
        {"tw.count", cmd_count, "readonly fast", 2, RO, "How many timers a key holds"},
        {"tw.next", cmd_next, "readonly fast", 2, RO, "A key's earliest deadline"},
        {"tw.info", cmd_info, "readonly", 2, RO, "A key's scheme, counts, time and memory"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (RedisModule_CreateCommand(ctx, cmds[i].name, cmds[i].fn, cmds[i].flags, 1, 1, 1) ==
            REDISMODULE_ERR)
            return REDISMODULE_ERR;
        if (RedisModule_SetCommandInfo == NULL || RedisModule_GetCommand == NULL)
            continue; /* a server before 7.0: the legacy key positions above */
        RedisModuleCommandKeySpec spec[2] = {{
            .flags = cmds[i].key,
            .begin_search_type = REDISMODULE_KSPEC_BS_INDEX,
            .bs.index.pos = 1,
            .find_keys_type = REDISMODULE_KSPEC_FK_RANGE,
            .fk.range = {0, 1, 0},
        }};
        RedisModuleCommandInfo info = {
            .version = REDISMODULE_COMMAND_INFO_VERSION,
            .summary = cmds[i].summary,
            .arity = cmds[i].arity,
            .key_specs = spec,
        };
        if (RedisModule_SetCommandInfo(RedisModule_GetCommand(ctx, cmds[i].name), &info) ==
            REDISMODULE_ERR)
            return REDISMODULE_ERR;
    }

    RedisModule_SubscribeToKeyspaceEvents(ctx, REDISMODULE_NOTIFY_GENERIC, on_keyspace);
    RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_FlushDB, on_flush);
    RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_SwapDB, on_swapdb);
    RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_ReplicationRoleChanged,
                                       on_role_or_load);
    RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_Loading, on_role_or_load);
    return REDISMODULE_OK;
}

int RedisModule_OnUnload(RedisModuleCtx *ctx)
{
    (void)ctx;
    return REDISMODULE_ERR; /* keys of this type may exist: never unloaded */
}
