/*
 * callout.c -- the BSD callout interface of the paper's section VII on top
 * of any facility.
 *
 * 4.3BSD kept its callouts on one list sorted by expiry (Scheme 2), so that
 * timeout(func, arg, ticks) and untimeout(func, arg) both searched it:
 * O(n).  Costello replaced the list with Scheme 6 and, since the old
 * interface passes no handle, found the callout to cancel through a hash
 * table keyed on (func, arg); a new pair, setcallout()/unsetcallout(), took
 * a handle instead.  Here the facility (any scheme) holds the timers and
 * this file adds the two interfaces:
 *
 *     tw_timeout()      pool entry -> tw_start() -> hash chain (head)
 *     tw_untimeout()    hash chain walk to the first (func, arg) -> tw_stop()
 *     tw_setcallout()   tw_start() -> context's handle list (head)
 *     tw_unsetcallout() tw_stop() -> unlink
 *     expiry            unlink (and return the entry to the pool), func(arg)
 *
 * Every pending callout is on exactly one singly linked chain with a back
 * pointer to the link that points at it (next/pprev), so it leaves its
 * chain in O(1) wherever it is, however many duplicates share the chain.
 * Which chain: a tw_timeout() callout on the bucket of hash(func, arg); a
 * tw_setcallout() callout on the context's handle list, which exists only
 * so that tw_callouts_destroy() can cancel it.  The two kinds differ in the
 * timer's callback (fire_pooled, fire_handle), which is how expiry knows
 * what to do.  A pooled entry carries its context (expiry gets only the
 * facility); a handle does not need it: unlinking needs only pprev.
 *
 * Duplicates: a new timeout goes to the head of its chain and untimeout()
 * cancels the first match from the head, so of several pending timeouts with
 * the same (func, arg) the one set most recently is cancelled.  Rehashing
 * keeps that order (each chain is moved from its tail).
 *
 * Storage for tw_timeout() comes from a pool: a free list of entries, else
 * the unused rest of the newest chunk, else a new chunk (16 entries, then as
 * many as the pool has, up to CO_CHUNK_MAX), so growth is amortised O(1)
 * and no entry is touched before it is used.  The hash table doubles when
 * the pending timeouts outnumber its buckets; that growth is best effort
 * (if the allocator fails, chains just get longer), so besides the
 * facility's own refusals (TW_ERANGE, and TW_ENOMEM from the schemes that
 * grow tables) only the pool can make tw_timeout() fail; either way no
 * callout has changed (a chunk the pool got stays, for the next call).
 *
 * The facility counts its contexts (tw->callouts): tw_destroy() would
 * leave them dangling, and tw_collect() would queue their timers where no
 * func runs, so both refuse with TW_EBUSY while a context exists.
 */
#include "check.h"
#include "facility.h"

#include <stdio.h>

#define CO_CHUNK_MIN 16u
#define CO_CHUNK_MAX 4096u
#define CO_TABLE_MIN_BITS 4u

/* twheel.h documents the handle's size. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct tw_callout) == 72,
               "struct tw_callout is 72 bytes on LP64");

/* Pooled storage of a tw_timeout() callout. */
struct co_entry {
    struct tw_callout c;        /* first: chains link struct tw_callout */
    struct tw_callouts *co;
};

struct co_chunk {
    struct co_chunk *next;
    size_t n;                   /* entries */
    struct co_entry e[];
};

struct tw_callouts {
    struct tw *tw;
    struct tw_allocator alloc;  /* the facility's, copied */
    struct tw_callout **table;  /* hash buckets: chains of pending timeouts */
    size_t mask;                /* buckets - 1, buckets a power of two */
    unsigned shift;             /* 64 - log2(buckets) */
    size_t hashed;              /* pending timeouts */
    struct tw_callout *handles; /* pending tw_setcallout() callouts */
    struct co_entry *free;      /* free entries, linked through c.next */
    struct co_entry *bump;      /* unused entries of the newest chunk ... */
    struct co_entry *bump_end;  /* ... up to here */
    struct co_chunk *chunks;
    size_t capacity;            /* entries in all chunks */
    size_t memory;              /* bytes held through alloc */
};

static void fire_pooled(struct tw *tw, struct tw_timer *t);
static void fire_handle(struct tw *tw, struct tw_timer *t);

/* ------------------------------------------------------------- memory */

static void *co_alloc(struct tw_callouts *co, size_t size)
{
    void *p = co->alloc.alloc_fn(co->alloc.ctx, size);
    if (p)
        co->memory += size;
    return p;
}

static void co_free(struct tw_callouts *co, void *p, size_t size)
{
    if (p) {
        co->alloc.free_fn(co->alloc.ctx, p, size);
        co->memory -= size;
    }
}

static size_t chunk_bytes(size_t n)
{
    return sizeof(struct co_chunk) + n * sizeof(struct co_entry);
}

/* ------------------------------------------------------------- chains */

TW_INLINE void chain_add(struct tw_callout **head, struct tw_callout *c)
{
    c->next = *head;
    if (c->next)
        c->next->pprev = &c->next;
    c->pprev = head;
    *head = c;
}

TW_INLINE void chain_del(struct tw_callout *c)
{
    *c->pprev = c->next;
    if (c->next)
        c->next->pprev = c->pprev;
    c->next = NULL;
    c->pprev = NULL;
}

/* ---------------------------------------------------------- hashing */

/* Multiplicative hashing of the pair: the top bits of the product, so that
 * pointers that differ only in a few middle bits (arrays of structs) still
 * spread over the table. */
TW_INLINE size_t co_bucket(const struct tw_callouts *co, tw_callout_fn *func,
                           const void *arg)
{
    uintptr_t f = 0;
    memcpy(&f, &func, sizeof f < sizeof func ? sizeof f : sizeof func);
    uint64_t x = (uint64_t)f * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 29) ^ (uint64_t)(uintptr_t)arg) * 0xbf58476d1ce4e5b9ull;
    return (size_t)(x >> co->shift);
}

/* Double the table, moving each chain from its tail so that entries with the
 * same key keep their order.  Best effort: on failure nothing changes. */
static void co_grow_table(struct tw_callouts *co)
{
    size_t oldn = co->mask + 1, n = oldn * 2;
    if (co->shift <= 1 || n > SIZE_MAX / sizeof(struct tw_callout *))
        return;
    struct tw_callout **t = co_alloc(co, n * sizeof *t);
    if (t == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        t[i] = NULL;
    struct tw_callout **old = co->table;
    co->table = t;
    co->mask = n - 1;
    co->shift--;
    for (size_t b = 0; b < oldn; b++) {
        struct tw_callout *x = old[b];
        if (x == NULL)
            continue;
        while (x->next)
            x = x->next;
        for (;;) {
            struct tw_callout **pp = x->pprev;
            chain_add(&t[co_bucket(co, x->func, x->arg)], x);
            if (pp == &old[b])
                break;
            x = tw_container_of(pp, struct tw_callout, next);
        }
    }
    co_free(co, old, oldn * sizeof *old);
}

/* ------------------------------------------------------------- the pool */

static struct co_entry *co_get(struct tw_callouts *co)
{
    struct co_entry *e = co->free;
    if (e) {
        co->free = (struct co_entry *)(void *)e->c.next;
        return e;
    }
    if (co->bump == co->bump_end) {
        size_t n = co->capacity < CO_CHUNK_MIN   ? CO_CHUNK_MIN
                   : co->capacity > CO_CHUNK_MAX ? CO_CHUNK_MAX
                                                 : co->capacity;
        struct co_chunk *k = co_alloc(co, chunk_bytes(n));
        if (k == NULL)
            return NULL;
        k->n = n;
        k->next = co->chunks;
        co->chunks = k;
        co->capacity += n;
        co->bump = k->e;
        co->bump_end = k->e + n;
    }
    e = co->bump++;
    memset(&e->c, 0, sizeof e->c);
    tw_timer_init(&e->c.timer, fire_pooled);
    e->co = co;
    return e;
}

TW_INLINE void co_put(struct tw_callouts *co, struct co_entry *e)
{
    e->c.next = (struct tw_callout *)(void *)co->free;
    co->free = e;
}

/* ------------------------------------------------------------- expiry */

static void fire_pooled(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct co_entry *e = tw_container_of(t, struct co_entry, c.timer);
    struct tw_callouts *co = e->co;
    tw_callout_fn *func = e->c.func;
    void *arg = e->c.arg;
    chain_del(&e->c);
    co->hashed--;
    co_put(co, e);
    func(arg); /* may free the context: nothing is touched after it */
}

static void fire_handle(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct tw_callout *c = tw_container_of(t, struct tw_callout, timer);
    tw_callout_fn *func = c->func;
    void *arg = c->arg;
    if (c->pprev)
        chain_del(c);
    func(arg); /* may free c */
}

/* ------------------------------------------------------------ context */

int tw_callouts_init(struct tw_callouts **out, struct tw *tw)
{
    if (out == NULL || tw == NULL)
        return TW_EINVAL;
    if (tw->callouts == UINT16_MAX)
        return TW_ENOMEM; /* the facility counts its contexts in 16 bits */
    struct tw_allocator a = tw->alloc;
    struct tw_callouts *co = a.alloc_fn(a.ctx, sizeof *co);
    if (co == NULL)
        return TW_ENOMEM;
    memset(co, 0, sizeof *co);
    co->tw = tw;
    co->alloc = a;
    co->memory = sizeof *co;
    size_t n = (size_t)1 << CO_TABLE_MIN_BITS;
    co->table = co_alloc(co, n * sizeof *co->table);
    if (co->table == NULL) {
        a.free_fn(a.ctx, co, sizeof *co);
        return TW_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        co->table[i] = NULL;
    co->mask = n - 1;
    co->shift = 64u - CO_TABLE_MIN_BITS;
    tw->callouts++;
    *out = co;
    return 0;
}

void tw_callouts_destroy(struct tw_callouts *co)
{
    if (co == NULL)
        return;
    for (size_t b = 0; b <= co->mask; b++)
        while (co->table[b]) {
            struct tw_callout *c = co->table[b];
            (void)tw_stop(co->tw, &c->timer);
            chain_del(c);
        }
    while (co->handles) {
        struct tw_callout *c = co->handles;
        (void)tw_stop(co->tw, &c->timer);
        chain_del(c);
    }
    struct co_chunk *k = co->chunks;
    while (k) {
        struct co_chunk *next = k->next;
        co_free(co, k, chunk_bytes(k->n));
        k = next;
    }
    co_free(co, co->table, (co->mask + 1) * sizeof *co->table);
    co->tw->callouts--;
    struct tw_allocator a = co->alloc;
    a.free_fn(a.ctx, co, sizeof *co);
}

/* ------------------------------------------------------------ handles */

void tw_callout_init(struct tw_callout *c)
{
    if (c == NULL)
        return;
    memset(c, 0, sizeof *c);
    tw_timer_init(&c->timer, fire_handle);
}

int tw_setcallout(struct tw_callouts *co, struct tw_callout *c, tw_callout_fn *func,
                  void *arg, tw_time_t ticks)
{
    if (TW_UNLIKELY(co == NULL || c == NULL || func == NULL))
        return TW_EINVAL;
    int rc = tw_start(co->tw, &c->timer, ticks);
    if (TW_UNLIKELY(rc))
        return rc;
    c->timer.tw_fn = fire_handle;
    c->func = func;
    c->arg = arg;
    /* On this context's list, whichever context set it before: the one
     * whose destroy cancels it is the one that set it last. */
    if (c->pprev)
        chain_del(c);
    chain_add(&co->handles, c);
    return 0;
}

int tw_unsetcallout(struct tw_callouts *co, struct tw_callout *c)
{
    if (TW_UNLIKELY(co == NULL || c == NULL))
        return TW_EINVAL;
    int rc = tw_stop(co->tw, &c->timer);
    if (TW_UNLIKELY(rc < 0))
        return rc;
    if (c->pprev)
        chain_del(c);
    return rc;
}

int tw_callout_pending(const struct tw_callout *c)
{
    return c != NULL && tw_timer_pending(&c->timer);
}

/* ------------------------------------------------------------ timeouts */

int tw_timeout(struct tw_callouts *co, tw_callout_fn *func, void *arg, tw_time_t ticks)
{
    if (TW_UNLIKELY(co == NULL || func == NULL))
        return TW_EINVAL;
    if (TW_UNLIKELY(ticks > co->tw->max_interval))
        return TW_ERANGE; /* before the pool is touched */
    struct co_entry *e = co_get(co);
    if (TW_UNLIKELY(e == NULL))
        return TW_ENOMEM;
    int rc = tw_start(co->tw, &e->c.timer, ticks);
    if (TW_UNLIKELY(rc)) {
        co_put(co, e);
        return rc;
    }
    e->c.func = func;
    e->c.arg = arg;
    if (TW_UNLIKELY(co->hashed > co->mask))
        co_grow_table(co);
    chain_add(&co->table[co_bucket(co, func, arg)], &e->c);
    co->hashed++;
    return 0;
}

int tw_untimeout(struct tw_callouts *co, tw_callout_fn *func, void *arg)
{
    if (TW_UNLIKELY(co == NULL || func == NULL))
        return TW_EINVAL;
    for (struct tw_callout *c = co->table[co_bucket(co, func, arg)]; c; c = c->next) {
        if (c->func == func && c->arg == arg) {
            (void)tw_stop(co->tw, &c->timer);
            chain_del(c);
            co->hashed--;
            co_put(co, (struct co_entry *)(void *)c);
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------- introspection */

size_t tw_callouts_count(const struct tw_callouts *co) { return co ? co->hashed : 0; }

size_t tw_callouts_memory(const struct tw_callouts *co) { return co ? co->memory : 0; }

/* Check one chain: back links (which also catch a cycle: an element
 * reached a second time has one back link, not two), and each callout
 * pending here with the callback of its kind. */
static int check_chain(struct tw_callouts *co, struct tw_checker *k,
                       struct tw_callout **head, tw_callback *fn, size_t bucket,
                       size_t *count)
{
    const char *what = fn == fire_pooled ? "timeout" : "handle";
    struct tw_callout **pp = head;
    for (struct tw_callout *c = *head; c; pp = &c->next, c = c->next) {
        if (c->pprev != pp)
            return tw_fail(k, "callout: %s %p has a bad back link", what, (void *)c);
        if (c->timer.tw_fn != fn)
            return tw_fail(k, "callout: %s %p has the wrong timer callback", what,
                           (void *)c);
        if (!tw_node_valid(&c->timer) || !tw_node_pending(&c->timer) ||
            c->timer.tw_owner != co->tw->id)
            return tw_fail(k, "callout: %s %p is listed but not pending on the facility",
                           what, (void *)c);
        if (c->func == NULL)
            return tw_fail(k, "callout: %s %p has no func", what, (void *)c);
        if (fn == fire_pooled) {
            if (((struct co_entry *)(void *)c)->co != co)
                return tw_fail(k, "callout: timeout %p belongs to another context",
                               (void *)c);
            if (co_bucket(co, c->func, c->arg) != bucket)
                return tw_fail(k, "callout: timeout %p is in bucket %zu, not %zu",
                               (void *)c, bucket, co_bucket(co, c->func, c->arg));
        }
        ++*count; /* a cycle would fail the back link check */
    }
    return 0;
}

int tw_callouts_check(struct tw_callouts *co, char *msg, size_t len)
{
    if (co == NULL)
        return TW_EINVAL;
    struct tw_checker k = {msg, len, 0};
    if (msg && len)
        msg[0] = '\0';
    if (co->table == NULL || ((co->mask + 1) & co->mask) != 0 ||
        ((size_t)1 << (64u - co->shift)) != co->mask + 1)
        return tw_fail(&k, "callout: bad table geometry (mask %zu, shift %u)", co->mask,
                       co->shift);
    size_t count = 0;
    for (size_t b = 0; b <= co->mask; b++) {
        int rc = check_chain(co, &k, &co->table[b], fire_pooled, b, &count);
        if (rc)
            return rc;
    }
    if (count != co->hashed)
        return tw_fail(&k, "callout: %zu timeouts hashed, count says %zu", count,
                       co->hashed);
    size_t handles = 0;
    int rc = check_chain(co, &k, &co->handles, fire_handle, 0, &handles);
    if (rc)
        return rc;
    /* The pool: every entry is pending, free, or not yet used. */
    size_t nfree = 0, chunks = 0, bytes = sizeof *co + (co->mask + 1) * sizeof *co->table;
    for (struct co_entry *e = co->free; e; e = (struct co_entry *)(void *)e->c.next) {
        if (++nfree > co->capacity)
            return tw_fail(&k, "callout: free list longer than the pool (a cycle?)");
        if (tw_node_pending(&e->c.timer) || e->c.timer.tw_fn != fire_pooled)
            return tw_fail(&k, "callout: free entry %p is pending or not pooled",
                           (void *)e);
    }
    bool bump_seen = co->bump == NULL && co->bump_end == NULL;
    for (struct co_chunk *c = co->chunks; c; c = c->next) {
        chunks += c->n;
        bytes += chunk_bytes(c->n);
        if (co->bump >= c->e && co->bump <= c->e + c->n && co->bump_end == c->e + c->n)
            bump_seen = true;
    }
    if (!bump_seen)
        return tw_fail(&k, "callout: the bump pointer is in no chunk");
    size_t unused = (size_t)(co->bump_end - co->bump);
    if (chunks != co->capacity || co->hashed + nfree + unused != co->capacity)
        return tw_fail(&k,
                       "callout: pool of %zu (chunks %zu) != %zu pending + %zu free + %zu "
                       "unused",
                       co->capacity, chunks, co->hashed, nfree, unused);
    if (bytes != co->memory)
        return tw_fail(&k, "callout: memory says %zu bytes, %zu held", co->memory, bytes);
    return 0;
}
