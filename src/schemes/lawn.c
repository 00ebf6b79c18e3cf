/*
 * lawn.c -- Timer Lawn (A. Lev-Libfeld): one FIFO queue per distinct TTL.
 *
 * Timers that share a TTL (interval) expire in the order they were started,
 * because time only moves forward: if a started before b with the same TTL,
 * a's deadline is not after b's.  So a queue per TTL, appended at the tail,
 * is sorted by construction, and the due timers of a queue are a prefix of
 * it.  A hash table maps TTL to queue; a queue that empties is reclaimed.
 *
 *     TTL hash            queues (FIFO = deadline order)         heads heap
 *     30 ---------------> [t=130] [t=131] [t=131] [t=170]        130 (ttl 30)
 *     500 --------------> [t=540] [t=812]                        /      \
 *     7 ----------------> [t=172]                          172 (7)  540 (500)
 *
 * The paper's PER_TICK_BOOKKEEPING peeks at the head of every queue, which
 * costs O(distinct TTLs) whenever something is due.  Here the non-empty
 * queues sit in a binary min-heap keyed by (a lower bound of, below) their
 * head's deadline, so an advance pops only the queues whose key is due:
 * O(expired + q log k) for q queues touched among k.  (TW_OPT_LAWN_SCAN
 * keeps the paper's scan, lawn_scan.c, to measure what the heap buys:
 * docs/schemes/lawn.md.)  The heap's root is
 * the paper's "closest expiration": an advance with nothing due is one
 * compare in the facility (its horizon), amortised as below.
 *
 * A queue's key in the heap is a lower bound of its head's deadline, not
 * always the deadline itself: the stop (or restart) of a head unlinks it
 * and leaves the key as it was, the next node, due no earlier (the queue
 * being sorted), becoming the head.  A collect that pops a queue whose head
 * is not yet due, and tw_lawn_next() at the root, put the true deadline in
 * and sift the queue down.  So a head's stop is one unlink, as cheap as any
 * other stop; that matters because stops in start order, each one of a
 * head, are the common pattern of request timeouts (requests answered in
 * the order they came).  Each correction is paid for by one earlier head
 * unlink, and several of one queue between advances share it.  The keys
 * only ever rise, so the facility's horizon, set from the root after a
 * collect and lowered by inserts, stays a lower bound of every key (which
 * tw_lawn_check() audits).
 *
 *     START_TIMER            O(1)        hash lookup, append; O(log k) when
 *                                        the queue was empty (heap push)
 *     STOP_TIMER             O(1)        unlink, a head's too; O(log k) if
 *                                        the queue empties
 *     PER_TICK_BOOKKEEPING   O(1)        nothing due: the horizon compare;
 *                                        past a stale root key, a collect
 *                                        that corrects it (amortised)
 *     EXPIRY                 O(1) per timer + O(log k) per queue touched
 *                                        (or corrected: amortised over stops)
 *     next_expiry            O(1)        the heap's root; amortised
 *                                        O(log k) for corrections
 *
 * The TTL of a timer is its deadline minus the facility's time when it is
 * started, whether by tw_start() or tw_start_at(), so every start keeps its
 * queue sorted: there is no case in which FIFO order breaks and a fallback
 * structure would be needed.  What start_at with scattered deadlines does
 * produce is many distinct TTLs, one short queue each: still exact, but
 * with a heap operation per timer, Lawn's weak case (the hybrid scheme
 * sends such timers to a wheel instead).
 *
 * A node keeps no pointer to its queue and no flag of it: the stop of a
 * queue's only timer, which must take the queue out of the heap, is told
 * by its prev and next being equal (both the queue's list head), and finds
 * the queue from its prev pointer (container_of).  Every other stop, a
 * head's included, is a plain unlink.
 *
 * Memory: the 40-byte node, and per distinct TTL a 40-byte queue, a 16-byte
 * heap entry and a hash bucket; tables grow by doubling through the
 * facility's allocator (reserved before a start changes anything, so
 * TW_ENOMEM loses nothing) and shrink when a quarter full; up to 64
 * reclaimed queues are kept for reuse so that a TTL that empties and comes
 * back does not allocate.
 *
 * Multiple workers (the paper's section IV-A): queues are independent, so
 * the TTL space partitions cleanly, by hashing the TTL to a worker, each
 * with a lawn of its own and no shared state (docs/schemes/lawn.md).
 *
 * Order: within one TTL, start order (checked by the tests); across TTLs,
 * the order in which the heap yields the queues, by their keys.
 */
#include "lawn.h"

#include "../heap.h"

#include "../entry.h"

#include <assert.h>
#include <stdlib.h>

#define LAWN_NOWHERE UINT32_MAX
#define LAWN_MIN_BUCKETS 16u
#define LAWN_MIN_HEAP 16u
#define LAWN_MAX_SPARE 64u

static inline struct lawn_q *q_of(struct tw_link *l)
{
    return tw_container_of(l, struct lawn_q, list);
}

/* ------------------------------------------------------- heads heap */

#define HEAD_LESS(x, y) ((x)->e < (y)->e)
#define HEAD_MOVED(v, i) ((v).q->hidx = (i))

TW_HEAP_DEFINE(heads, struct lawn_state, struct lawn_ent, heap, hlen, 2, HEAD_LESS, HEAD_MOVED)

static void hdelete(struct lawn_state *L, uint32_t i)
{
    L->heap[i].q->hidx = LAWN_NOWHERE;
    heads_delete(L, i);
}

/* The queue's key becomes e, its head's deadline, no earlier than its old
 * key (a lower bound): restore order. */
static void hupdate(struct lawn_state *L, struct lawn_q *q, tw_time_t e)
{
    struct lawn_ent v = {e, q};
    heads_down(L, q->hidx, v);
}

/* ------------------------------------------------------- hash table */

static int rehash(struct tw *tw, struct lawn_state *L, uint32_t nb)
{
    struct lawn_q **b = tw_mem_alloc(tw, (size_t)nb * sizeof *b);
    if (b == NULL)
        return TW_ENOMEM;
    memset(b, 0, (size_t)nb * sizeof *b);
    for (uint32_t i = 0; i < L->nbucket; i++) {
        struct lawn_q *q = L->bucket[i];
        while (q) {
            struct lawn_q *n = q->hnext;
            uint32_t h = tw_lawn_hash(q->ttl, nb);
            q->hnext = b[h];
            b[h] = q;
            q = n;
        }
    }
    tw_mem_free(tw, L->bucket, (size_t)L->nbucket * sizeof *L->bucket);
    L->bucket = b;
    L->nbucket = nb;
    return 0;
}

/* Keep a queue taken out of the hash for reuse, or free it. */
void tw_lawn_release(struct tw *tw, struct lawn_state *L, struct lawn_q *q)
{
    L->nq--;
    if (L->nspare < LAWN_MAX_SPARE) {
        q->hnext = L->spare;
        L->spare = q;
        L->nspare++;
    } else {
        tw_mem_free(tw, q, sizeof *q);
    }
}

/* Shrink the tables when a quarter full; failing to is harmless. */
void tw_lawn_shrink(struct tw *tw, struct lawn_state *L)
{
    if (L->nbucket > LAWN_MIN_BUCKETS && L->nq < L->nbucket / 4)
        (void)rehash(tw, L, L->nbucket / 2);
    if (L->hcap > LAWN_MIN_HEAP && L->hlen < L->hcap / 4) {
        struct lawn_ent *h = tw_mem_realloc(tw, L->heap, (size_t)L->hcap * sizeof *h,
                                            (size_t)(L->hcap / 2) * sizeof *h);
        if (h) {
            L->heap = h;
            L->hcap /= 2;
        }
    }
}

/* Reclaim q if it is empty and nothing asked to keep it. */
static void maybe_reclaim(struct tw *tw, struct lawn_state *L, struct lawn_q *q)
{
    if (q->mode != TW_TTL_AUTO || !tw_list_empty(&q->list))
        return;
    struct lawn_q **pp = &L->bucket[tw_lawn_hash(q->ttl, L->nbucket)];
    while (*pp != q)
        pp = &(*pp)->hnext;
    *pp = q->hnext;
    tw_lawn_release(tw, L, q);
    tw_lawn_shrink(tw, L);
}

/* ------------------------------------------------------- setup */

int tw_lawn_setup(struct tw *tw, struct lawn_state *L, bool scan)
{
    memset(L, 0, sizeof *L);
    L->scan = scan;
    L->bucket = tw_mem_alloc(tw, LAWN_MIN_BUCKETS * sizeof *L->bucket);
    L->heap = tw_mem_alloc(tw, LAWN_MIN_HEAP * sizeof *L->heap);
    if (L->bucket == NULL || L->heap == NULL) {
        tw_mem_free(tw, L->bucket, LAWN_MIN_BUCKETS * sizeof *L->bucket);
        tw_mem_free(tw, L->heap, LAWN_MIN_HEAP * sizeof *L->heap);
        return TW_ENOMEM;
    }
    memset(L->bucket, 0, LAWN_MIN_BUCKETS * sizeof *L->bucket);
    L->nbucket = LAWN_MIN_BUCKETS;
    L->hcap = LAWN_MIN_HEAP;
    /* One spare queue, so that the first TTL needs no allocation. */
    L->spare = tw_mem_alloc(tw, sizeof *L->spare);
    if (L->spare == NULL) {
        tw_lawn_teardown(tw, L);
        return TW_ENOMEM;
    }
    L->spare->hnext = NULL;
    L->nspare = 1;
    return 0;
}

void tw_lawn_teardown(struct tw *tw, struct lawn_state *L)
{
    for (uint32_t i = 0; i < L->nbucket; i++) {
        struct lawn_q *q = L->bucket[i];
        while (q) {
            struct lawn_q *n = q->hnext;
            tw_mem_free(tw, q, sizeof *q);
            q = n;
        }
    }
    while (L->spare) {
        struct lawn_q *n = L->spare->hnext;
        tw_mem_free(tw, L->spare, sizeof *L->spare);
        L->spare = n;
    }
    tw_mem_free(tw, L->bucket, (size_t)L->nbucket * sizeof *L->bucket);
    tw_mem_free(tw, L->heap, (size_t)L->hcap * sizeof *L->heap);
    L->bucket = NULL;
    L->heap = NULL;
}

int tw_lawn_reserve(struct tw *tw, struct lawn_state *L, tw_time_t ttl)
{
    struct lawn_q *q = tw_lawn_lookup(L, ttl);
    /* Room in the heap for one more head, for a new or an empty queue. */
    if ((q == NULL || tw_list_empty(&q->list)) && L->hlen == L->hcap) {
        if (L->hcap >= UINT32_MAX / 2)
            return TW_ENOMEM;
        struct lawn_ent *h = tw_mem_realloc(tw, L->heap, (size_t)L->hcap * sizeof *h,
                                            (size_t)L->hcap * 2 * sizeof *h);
        if (h == NULL)
            return TW_ENOMEM;
        L->heap = h;
        L->hcap *= 2;
    }
    if (q)
        return 0;
    if (L->spare == NULL) {
        struct lawn_q *n = tw_mem_alloc(tw, sizeof *n);
        if (n == NULL)
            return TW_ENOMEM;
        n->hnext = NULL;
        L->spare = n;
        L->nspare = 1;
    }
    /* Grow at load factor 1, by doubling: amortised O(1) per new TTL. */
    if (L->nq + 1 > L->nbucket && L->nbucket < (1u << 30))
        return rehash(tw, L, L->nbucket * 2);
    return 0;
}

struct lawn_q *tw_lawn_get(struct tw *tw, struct lawn_state *L, tw_time_t ttl)
{
    (void)tw;
    struct lawn_q *q = tw_lawn_lookup(L, ttl);
    if (q)
        return q;
    q = L->spare; /* reserved */
    L->spare = q->hnext;
    L->nspare--;
    tw_list_init(&q->list);
    q->ttl = ttl;
    q->hidx = LAWN_NOWHERE;
    q->mode = TW_TTL_AUTO;
    uint32_t h = tw_lawn_hash(ttl, L->nbucket);
    q->hnext = L->bucket[h];
    L->bucket[h] = q;
    L->nq++;
    return q;
}

/* ------------------------------------------------------- operations */

void tw_lawn_insert(struct tw *tw, struct lawn_state *L, struct lawn_q *q, struct tw_timer *t)
{
    bool was_empty = tw_list_empty(&q->list);
    tw_list_add_tail(&q->list, &t->tw_u.link);
    if (was_empty) {
        if (!L->scan) {
            struct lawn_ent v = {t->tw_expires, q};
            heads_up(L, L->hlen++, v);
        }
        tw_horizon_lower(tw, t->tw_expires);
    }
}

void tw_lawn_remove_last(struct tw *tw, struct lawn_state *L, struct tw_timer *t)
{
    struct tw_link *l = &t->tw_u.link;
    /* In a queue, not on the core's due or ready lists (whose nodes the
     * callers send elsewhere by their deadline): else l->prev is no queue. */
    assert(t->tw_expires > tw->now && l->next == l->prev);
    struct lawn_q *q = q_of(l->prev);
    tw_list_del(l);
    if (!L->scan)
        hdelete(L, q->hidx);
    maybe_reclaim(tw, L, q);
}

/* Move the due prefix of q, whose head is due (both callers have read
 * it), to one ready lane (keeping FIFO within the TTL).  Returns false if q
 * emptied, else true with its new head's deadline in *e (which may be
 * TW_TIME_MAX: no sentinel value is free). */
static bool mow(struct lawn_state *L, struct lawn_q *q, tw_time_t now, struct tw_ready *out,
                tw_time_t *e)
{
    struct tw_link *lane = tw_ready_lane(out, L->lane++ & (TW_LANES - 1));
    struct tw_link *h = &q->list, *last = h->next, *l = last->next;
    /* Find the end of the due prefix, then move it in one splice: the walk
     * only reads, the splice writes the lines the walk has brought in and
     * stores to the first node not due. */
    while (l != h && tw_of(l)->tw_expires <= now) {
        last = l;
        l = l->next;
    }
    tw_list_splice_through(lane, h, last);
    if (l == h)
        return false;
    /* The walk is a chain of dependent misses, one per timer, and the next
     * collect of this queue starts it at l->next: ask for that line now,
     * from l's, which the walk has just read.  (Where an advance finds at
     * most one timer of the queue due, this takes the walk's miss off its
     * critical path.) */
    TW_PREFETCH(l->next);
    *e = tw_of(l)->tw_expires;
    return true;
}

bool tw_lawn_mow(struct lawn_state *L, struct lawn_q *q, tw_time_t now, struct tw_ready *out,
                 tw_time_t *e)
{
    return mow(L, q, now, out, e);
}

void tw_lawn_collect(struct tw *tw, struct lawn_state *L, tw_time_t now, struct tw_ready *out)
{
    if (L->scan) {
        tw_lawn_scan_collect(tw, L, now, out);
        return;
    }
    while (L->hlen > 0 && L->heap[0].e <= now) {
        struct lawn_q *q = L->heap[0].q;
        tw_time_t e = tw_of(q->list.next)->tw_expires;
        if (e > now) {
            hupdate(L, q, e); /* a stale key: its head was unlinked */
        } else if (mow(L, q, now, out, &e)) {
            hupdate(L, q, e);
        } else {
            hdelete(L, 0);
            maybe_reclaim(tw, L, q);
        }
    }
    tw->horizon = L->hlen ? L->heap[0].e : TW_TIME_MAX;
}

int tw_lawn_next(struct tw *tw, struct lawn_state *L, tw_time_t *out)
{
    (void)tw;
    if (L->scan)
        return tw_lawn_scan_next(L, out);
    /* Correct stale keys at the root until the root's is exact: then it is
     * the least deadline, every other key being a lower bound. */
    while (L->hlen > 0) {
        struct lawn_q *q = L->heap[0].q;
        tw_time_t e = tw_of(q->list.next)->tw_expires;
        if (e == L->heap[0].e)
            break;
        hupdate(L, q, e);
    }
    if (L->hlen == 0)
        return 0;
    *out = L->heap[0].e;
    return 1;
}

int tw_lawn_hint(struct tw *tw, struct lawn_state *L, tw_time_t ttl, int hint)
{
    struct lawn_q *q = tw_lawn_lookup(L, ttl);
    if (hint == TW_TTL_AUTO) {
        if (q) {
            q->mode = TW_TTL_AUTO;
            maybe_reclaim(tw, L, q);
        }
        return 0;
    }
    if (q == NULL) {
        int rc = tw_lawn_reserve(tw, L, ttl);
        if (rc)
            return rc;
        q = tw_lawn_get(tw, L, ttl);
    }
    q->mode = (uint8_t)hint;
    return 0;
}

int tw_lawn_check(struct tw *tw, struct lawn_state *L, struct tw_checker *c, uint32_t flag,
                  tw_time_t horizon)
{
    uint32_t nq = 0, nonempty = 0;
    for (uint32_t i = 0; i < L->nbucket; i++) {
        for (struct lawn_q *q = L->bucket[i]; q; q = q->hnext) {
            nq++;
            if (tw_lawn_hash(q->ttl, L->nbucket) != i)
                return tw_fail(c, "lawn: TTL %llu in bucket %u", (unsigned long long)q->ttl, i);
            if (tw_list_empty(&q->list)) {
                if (q->mode == TW_TTL_AUTO)
                    return tw_fail(c, "lawn: empty queue for TTL %llu was not reclaimed",
                                   (unsigned long long)q->ttl);
                if (!L->scan && q->hidx != LAWN_NOWHERE)
                    return tw_fail(c, "lawn: empty queue in the heads heap");
                continue;
            }
            nonempty++;
            tw_time_t last = 0;
            for (struct tw_link *l = q->list.next; l != &q->list; l = l->next) {
                const struct tw_timer *t = tw_of(l);
                if (l->next->prev != l)
                    return tw_fail(c, "lawn: broken link in queue %llu",
                                   (unsigned long long)q->ttl);
                int rc = tw_check_node(tw, c, t);
                if (rc)
                    return rc;
                if ((t->tw_flags & (TW_F_SCHEME1 | TW_F_SCHEME2)) != flag)
                    return tw_fail(c, "lawn: node's scheme flags are not the queue's");
                if (t->tw_expires < last)
                    return tw_fail(c, "lawn: queue %llu not in deadline order",
                                   (unsigned long long)q->ttl);
                last = t->tw_expires;
                c->seen++;
            }
            if (!L->scan) {
                if (q->hidx >= L->hlen || L->heap[q->hidx].q != q ||
                    L->heap[q->hidx].e > tw_of(q->list.next)->tw_expires)
                    return tw_fail(c, "lawn: queue %llu's key is not a lower bound of its head",
                                   (unsigned long long)q->ttl);
                if (L->heap[q->hidx].e < horizon)
                    return tw_fail(c, "lawn: queue %llu's key is below the horizon",
                                   (unsigned long long)q->ttl);
            } else if (tw_of(q->list.next)->tw_expires < horizon) {
                return tw_fail(c, "lawn: queue %llu's head is due before the horizon",
                               (unsigned long long)q->ttl);
            }
        }
    }
    if (nq != L->nq)
        return tw_fail(c, "lawn: %u queues hashed, count says %u", nq, L->nq);
    if (!L->scan) {
        if (L->hlen != nonempty)
            return tw_fail(c, "lawn: heap holds %u heads for %u queues", L->hlen, nonempty);
        for (uint32_t i = 1; i < L->hlen; i++)
            if (L->heap[i].e < L->heap[(i - 1) / 2].e)
                return tw_fail(c, "lawn: heads heap out of order at %u", i);
    }
    return 0;
}

/* ------------------------------------------------ the scheme on its own */

#define LAWN(tw) TW_STATE(tw, struct lawn_state)

static size_t lawn_state_size(const struct tw_config *cfg)
{
    (void)cfg;
    return sizeof(struct lawn_state);
}

static int lawn_init(struct tw *tw, const struct tw_config *cfg)
{
    return tw_lawn_setup(tw, LAWN(tw), (cfg->options & TW_OPT_LAWN_SCAN) != 0);
}

static void lawn_fini(struct tw *tw) { tw_lawn_teardown(tw, LAWN(tw)); }

static int lawn_reserve(struct tw *tw, tw_time_t deadline)
{
    return tw_lawn_reserve(tw, LAWN(tw), deadline - tw->now);
}

static void lawn_insert(struct tw *tw, struct tw_timer *t)
{
    struct lawn_state *L = LAWN(tw);
    tw_lawn_insert(tw, L, tw_lawn_get(tw, L, t->tw_expires - tw->now), t);
}

static void lawn_remove(struct tw *tw, struct tw_timer *t) { tw_lawn_remove(tw, LAWN(tw), t); }

static void lawn_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop);

static void lawn_collect(struct tw *tw, tw_time_t now, struct tw_ready *out)
{
    tw_lawn_collect(tw, LAWN(tw), now, out);
    tw->now = now; /* for floors() */
    lawn_floors(tw, &tw->start_floor, &tw->stop_floor);
}

static int lawn_next(struct tw *tw, tw_time_t *out) { return tw_lawn_next(tw, LAWN(tw), out); }

static int lawn_check(struct tw *tw, struct tw_checker *c)
{
    return tw_lawn_check(tw, LAWN(tw), c, 0, tw->horizon);
}

static int lawn_hint(struct tw *tw, tw_time_t ttl, int hint)
{
    if (hint == TW_TTL_WHEEL)
        return TW_EINVAL; /* a lawn has no wheel */
    return tw_lawn_hint(tw, LAWN(tw), ttl, hint);
}

/* ------------------------------------------------ start and stop */

/* The floors: no start floor (the start leaf below tests its own case);
 * a node pending here with its deadline after now is in a queue, and its
 * stop is one unlink when it is not its queue's only timer. */
static void lawn_floors(const struct tw *tw, tw_time_t *start, tw_time_t *stop)
{
    *start = TW_TIME_MAX;
    *stop = tw->now;
}

#define LAWN_HOOKS ((struct tw_hooks){lawn_reserve, lawn_insert, lawn_remove, lawn_floors, false})

TW_ENTRY_FULL_PATHS(lawn, LAWN_HOOKS)

/*
 * The common case of a start, compiled as a leaf (every call in it a tail
 * call, no stack frame): a valid node, idle or pending here in a queue
 * (not its queue's only timer), and a queue for the new TTL that already
 * has timers, so that the heap of queue heads stays as it is and the
 * reserve would do nothing.  At 10^6 timers the stores of a start or stop
 * to cold neighbours wait for their lines, and x86 commits stores in
 * order, so each push and pop behind them holds a store-queue entry that
 * the next operations could have used to get their own misses going
 * (docs/design.md, "Short paths").  Everything else takes the full path
 * before anything has changed.
 */
static int lawn_start(struct tw *tw, struct tw_timer *t, tw_time_t interval)
{
    int state = tw_start_state(tw, t, interval);
    if (TW_UNLIKELY(state < 0))
        return lawn_start_slow(tw, t, interval);
    bool pending = state > 0;
    tw_time_t deadline = tw_deadline_of(tw, interval);
    if (TW_UNLIKELY(pending && t->tw_expires <= tw->now))
        return lawn_start_full(tw, t, interval); /* on a core list */
    struct lawn_q *q = tw_lawn_lookup(LAWN(tw), deadline - tw->now);
    if (TW_UNLIKELY(q == NULL || tw_list_empty(&q->list) ||
                    (pending && !tw_lawn_unlinkable(t))))
        return lawn_start_full(tw, t, interval);
    if (pending)
        tw_list_del(&t->tw_u.link);
    tw_arm_node(t, deadline, tw->word_mine);
    tw_list_add_tail(&q->list, &t->tw_u.link);
    if (!pending)
        tw->count++;
    return 0;
}

/* A node pending here, in a queue and not its only timer: one unlink. */
static int lawn_stop(struct tw *tw, struct tw_timer *t)
{
    if (TW_LIKELY(t != NULL && tw_node_word(t) == tw->word_mine &&
                  t->tw_expires > tw->stop_floor && tw_lawn_unlinkable(t))) {
        tw_list_del(&t->tw_u.link);
        return tw_stopped(tw, t);
    }
    return lawn_stop_full(tw, t);
}

const struct tw_ops tw_lawn_ops = {
    .by_interval = true, /* a queue per TTL */
    .order = TW_ORDER_NONE,
    .options = TW_OPT_LAWN_SCAN,
    .state_size = lawn_state_size,
    .init = lawn_init,
    .fini = lawn_fini,
    .reserve = lawn_reserve,
    .insert = lawn_insert,
    .remove = lawn_remove,
    .collect = lawn_collect,
    .next = lawn_next,
    .check = lawn_check,
    .hint = lawn_hint,
    .start = lawn_start,
    .stop = lawn_stop,
    .floors = lawn_floors,
};
