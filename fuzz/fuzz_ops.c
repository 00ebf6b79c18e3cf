/*
 * fuzz_ops.c -- a libFuzzer target for twheel: the input is decoded into a
 * stream of operations (see fuzz_ops.h for the encoding) applied both to a
 * facility and to a reference model made of plain arrays; any disagreement
 * calls abort().
 *
 * The oracle, after every operation and inside callbacks:
 *   - never early: a callback runs only for a timer that was pending with
 *     deadline <= now when the advance began, and that nothing has stopped,
 *     re-armed or fired since (so: exactly once, and a stopped timer never
 *     fires, even when it was due in the advance now running);
 *   - never late: after an advance every such timer has fired, for the exact
 *     schemes; for hierarchical_coarse every one whose lateness bound has
 *     passed: it is late by less than 8 d / (S - 2) ticks for an interval d
 *     and S slots per level (its header), and an advance to TW_TIME_MAX
 *     fires everything;
 *   - tw_count(), tw_now(), tw_timer_pending() and tw_timer_deadline() of
 *     every node match the model; tw_check() is 0; tw_memory() is what the
 *     allocator handed out; an allocator failure shows as TW_ENOMEM with
 *     nothing changed, and only in the schemes that allocate after creation;
 *   - tw_next_expiry() is the earliest deadline (exact schemes), or lies
 *     between the earliest deadline and the earliest latest-allowed tick
 *     (coarse); an advance to the tick before it fires nothing, and one to
 *     it fires something; tw_next_wakeup(), asked first, is after now (or
 *     a due timer's deadline) and not after it;
 *   - the pull API: tw_collect() queues what is due, tw_get_expired() hands
 *     out only queued timers, in the order the collects queued them;
 *   - FIFO among equal deadlines for ordered, heap and wheel (and lawn
 *     within one TTL);
 *   - tw_advance/tw_collect/tw_destroy from a callback give TW_EBUSY; time
 *     going backwards gives TW_ETIME and changes nothing; at the end, an
 *     advance to TW_TIME_MAX and a drain of the pull queue leave nothing
 *     pending, and tw_destroy() returns every byte.
 *
 * Built with FZ_PERIODIC=1, the last FZ_NPERIODIC timers are periodic
 * (fuzz_ops.h), and each of their expiries is checked against a model of
 * the grid (fz_pcb()).
 *
 * Timers are heap-allocated nodes, so that a callback freeing its own node
 * (or another, stopped, one) makes any later touch by the library a
 * use-after-free that AddressSanitizer reports.
 *
 * Environment: TWFUZZ_SCHEME=name forces the scheme (for per-scheme runs);
 * TWFUZZ_TRACE=1 prints every operation to stderr (to read a crash).  At
 * exit, the number of inputs run per scheme is printed to stderr.
 */
#include "fuzz_ops.h"
#include "scheme.h" /* the schemes' traits (internal) */
#include "twheel.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 4000

/* ------------------------------------------------------------ byte reader */

/* A bounded reader over the input: past the end, every read gives 0. */
struct reader {
    const uint8_t *p;
    size_t n;
};

static uint8_t rd_u8(struct reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint64_t rd_bytes(struct reader *r, unsigned nbytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes; i++)
        v |= (uint64_t)rd_u8(r) << (8 * i);
    return v;
}

/* ------------------------------------------------------------------ model */

enum mstate { M_IDLE, M_PENDING, M_QUEUED, M_MAYBE };

/* A timer's node: a plain one uses only p.tw_timer; in the periodic build
 * (FZ_PERIODIC) the last FZ_NPERIODIC timers are the whole tw_periodic. */
struct fnode {
    struct tw_periodic p;
    int idx;
};

struct mtimer {
    struct fnode *node;     /* NULL: no node (never made, or freed) */
    enum mstate state;      /* M_MAYBE: coarse, collected or still held */
    tw_time_t deadline;
    tw_time_t armed_at;     /* the clock when it was (re)armed */
    uint64_t seq;           /* start order */
    uint64_t qseq;          /* the collect that queued it */
    int eligible;           /* may fire in the advance now running */
    enum fz_beh beh;
    int target;
    tw_time_t arg;
    /* a periodic timer's grid (the periodic build) */
    tw_time_t period;       /* 0: never started */
    uint64_t pcount;        /* the model's tw_periodic_count() */
};

struct fired_rec {
    tw_time_t deadline, ttl;
    uint64_t seq;
};

static struct fz {
    struct tw *tw;
    struct tw_config cfg;
    enum tw_scheme s;
    int exact, fifo, lawn_fifo, allocates;
    uint32_t S;             /* coarse: slots per level */
    unsigned slot_bits;     /* log2 of the table size, 0 for list/heap */
    tw_time_t now;
    size_t count;
    uint64_t seq, cseq, last_pop_qseq;
    int in_advance, quiet;
    tw_time_t adv_to;
    int64_t fired_now;
    struct fired_rec fired[4 * FZ_NTIMERS];
    int nfired;
    unsigned long op, fires, pfires; /* pfires: of periodic timers */
    int trace;
    struct mtimer m[FZ_NTIMERS];
    /* the allocator */
    long fail_after;        /* < 0: never fail */
    size_t outstanding;
} F;

static struct tw_timer *node_t(const struct mtimer *m)
{
    return &m->node->p.tw_timer;
}

/* Is timer i periodic?  The last FZ_NPERIODIC, in the periodic build. */
static int is_periodic(int i)
{
    return FZ_PERIODIC && i >= FZ_NTIMERS - FZ_NPERIODIC;
}

/* A periodic timer's missed-run policy: its index mod 3 (fuzz_ops.h). */
static enum tw_missed policy_of(int i)
{
    return (enum tw_missed)(i % 3);
}

#define FZ_ASSERT(cond, ...)                                 \
    do {                                                     \
        if (!(cond))                                         \
            fz_die(__LINE__, #cond, __VA_ARGS__);            \
    } while (0)

static void fz_die(int line, const char *cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 3, 4)))
#endif
    ;

static void fz_die(int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twfuzz: violation at fuzz_ops.c:%d (%s): ", line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  scheme %s, op %lu, now %" PRIu64 " (%#" PRIx64 "), count %zu%s\n",
            tw_scheme_name(F.s), F.op, F.now, F.now, F.count,
            F.in_advance ? ", inside a callback" : "");
    fflush(stderr);
    abort();
}

static void trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void trace(const char *fmt, ...)
{
    if (!F.trace)
        return;
    va_list ap;
    fprintf(stderr, "[%lu] ", F.op);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static tw_time_t sat_add(tw_time_t a, tw_time_t b)
{
    return a > TW_TIME_MAX - b ? TW_TIME_MAX : a + b;
}

static tw_time_t sat_sub(tw_time_t a, tw_time_t b)
{
    return a < b ? 0 : a - b;
}

/* The greatest lateness allowed for a timer armed at `armed` for `deadline`:
 * 0 for the exact schemes; for a late one, what its latest_fire trait says
 * (twheel.h's bound: for coarse the largest L with L (S-2) < 8 d). */
static tw_time_t max_lateness(tw_time_t armed, tw_time_t deadline)
{
    if (F.exact || deadline <= armed)
        return 0;
    return tw_schemes[F.s]->latest_fire(&F.cfg, armed, deadline) - deadline;
}

static tw_time_t latest(const struct mtimer *m)
{
    return sat_add(m->deadline, max_lateness(m->armed_at, m->deadline));
}

/* Must a timer pending with this deadline have fired by an advance to `to`? */
static int must_fire(const struct mtimer *m, tw_time_t to)
{
    if (m->deadline > to)
        return 0;
    return to == TW_TIME_MAX || latest(m) <= to;
}

/* ------------------------------------------------------------ allocator */

/* Counts bytes and can be told to fail; a header keeps each block's size
 * so that a free or realloc with a wrong size is caught. */
#define HDR 16u

static int alloc_may(void)
{
    if (F.fail_after < 0)
        return 1;
    if (F.fail_after == 0)
        return 0;
    F.fail_after--;
    return 1;
}

/* Has the allocator refused a request?  It refuses only at fail_after 0,
 * and stays there until FZ_ALLOC changes it: after a call that got
 * TW_ENOMEM, this must be true. */
static int failed_alloc(void)
{
    return F.fail_after == 0;
}

static void *fa_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (!alloc_may())
        return NULL;
    unsigned char *p = malloc(size + HDR);
    if (p == NULL)
        return NULL;
    memcpy(p, &size, sizeof size);
    F.outstanding += size;
    return p + HDR;
}

static void fa_free(void *ctx, void *vp, size_t size)
{
    (void)ctx;
    if (vp == NULL)
        return;
    unsigned char *p = (unsigned char *)vp - HDR;
    size_t had;
    memcpy(&had, p, sizeof had);
    FZ_ASSERT(had == size, "free of a block of %zu bytes as %zu", had, size);
    F.outstanding -= had;
    free(p);
}

static void *fa_realloc(void *ctx, void *vp, size_t old_size, size_t new_size)
{
    (void)ctx;
    if (!alloc_may())
        return NULL;
    unsigned char *p = vp ? (unsigned char *)vp - HDR : NULL;
    if (p) {
        size_t had;
        memcpy(&had, p, sizeof had);
        FZ_ASSERT(had == old_size, "realloc of a block of %zu bytes as %zu", had, old_size);
    }
    unsigned char *q = realloc(p, new_size + HDR);
    if (q == NULL)
        return NULL;
    memcpy(q, &new_size, sizeof new_size);
    F.outstanding = F.outstanding - old_size + new_size;
    return q + HDR;
}

static struct tw_allocator fz_alloc = {fa_alloc, fa_realloc, fa_free, NULL};
static struct tw_allocator fz_alloc_norealloc = {fa_alloc, NULL, fa_free, NULL};

/* -------------------------------------------------------------- checking */

static void check_all(void)
{
    char msg[512];
    int rc = tw_check(F.tw, msg, sizeof msg);
    FZ_ASSERT(rc == 0, "tw_check: %s (%s)", tw_err_name(rc), msg);
    FZ_ASSERT(tw_count(F.tw) == F.count, "tw_count %zu, model %zu", tw_count(F.tw), F.count);
    FZ_ASSERT(tw_now(F.tw) == F.now, "tw_now %" PRIu64 ", model %" PRIu64, tw_now(F.tw),
              F.now);
    FZ_ASSERT(tw_memory(F.tw) == F.outstanding, "tw_memory %zu, allocator %zu",
              tw_memory(F.tw), F.outstanding);
    for (int i = 0; i < FZ_NTIMERS; i++) {
        const struct mtimer *m = &F.m[i];
        if (m->node == NULL)
            continue;
        int pend = tw_timer_pending(node_t(m));
        FZ_ASSERT(pend == (m->state != M_IDLE), "timer %d pending %d, model state %d", i,
                  pend, (int)m->state);
        if (pend)
            FZ_ASSERT(tw_timer_deadline(node_t(m)) == m->deadline,
                      "timer %d deadline %" PRIu64 ", model %" PRIu64, i,
                      tw_timer_deadline(node_t(m)), m->deadline);
        if (!is_periodic(i))
            continue;
        const struct tw_periodic *p = &m->node->p;
        FZ_ASSERT(tw_periodic_pending(p) == pend, "periodic %d: tw_periodic_pending %d", i,
                  tw_periodic_pending(p));
        if (pend)
            FZ_ASSERT(tw_periodic_next(p) == m->deadline,
                      "periodic %d: next %" PRIu64 ", model %" PRIu64, i,
                      tw_periodic_next(p), m->deadline);
        FZ_ASSERT(tw_periodic_count(p) == m->pcount,
                  "periodic %d: count %" PRIu64 ", model %" PRIu64, i, tw_periodic_count(p),
                  m->pcount);
    }
}

/* The model's earliest deadline and earliest latest-allowed tick. */
static int model_min(tw_time_t *mn, tw_time_t *ml)
{
    int any = 0;
    for (int i = 0; i < FZ_NTIMERS; i++) {
        const struct mtimer *m = &F.m[i];
        if (m->state == M_IDLE)
            continue;
        tw_time_t l = m->state == M_QUEUED ? m->deadline : latest(m);
        if (!any || m->deadline < *mn)
            *mn = m->deadline;
        if (!any || l < *ml)
            *ml = l;
        any = 1;
    }
    return any;
}

static void check_next(tw_time_t *out)
{
    tw_time_t ne = 0, mn = 0, ml = 0, wk = 0;
    /* the wake-up first: asking tw_next_expiry() may fill a wheel's cache */
    int rw = tw_next_wakeup(F.tw, &wk);
    int rc = tw_next_expiry(F.tw, &ne);
    int any = model_min(&mn, &ml);
    FZ_ASSERT(rc == any, "tw_next_expiry returned %d, model has %d", rc, any);
    FZ_ASSERT(rw == any, "tw_next_wakeup returned %d, model has %d", rw, any);
    if (any) /* never after the next expiry; after now unless a timer is due */
        FZ_ASSERT(wk <= ne && (wk > tw_now(F.tw) || ne <= tw_now(F.tw)),
                  "tw_next_wakeup %" PRIu64 " against next expiry %" PRIu64 " at now %" PRIu64,
                  wk, ne, tw_now(F.tw));
    if (any) {
        if (F.exact)
            FZ_ASSERT(ne == mn, "tw_next_expiry %" PRIu64 ", earliest deadline %" PRIu64, ne,
                      mn);
        else
            FZ_ASSERT(ne >= mn && ne <= ml,
                      "tw_next_expiry %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", ne,
                      mn, ml);
    }
    if (out)
        *out = any ? ne : 0;
}

/* --------------------------------------------------------------- timers */

static void fz_cb(struct tw *tw, struct tw_timer *t);
static void fz_pcb(struct tw *tw, struct tw_periodic *p, uint64_t missed);

static struct fnode *node_of(struct tw_timer *t)
{
    return (struct fnode *)(void *)((char *)t - offsetof(struct fnode, p.tw_timer));
}

static void ensure_node(int i)
{
    struct mtimer *m = &F.m[i];
    if (m->node)
        return;
    m->node = malloc(sizeof *m->node);
    FZ_ASSERT(m->node != NULL, "out of memory");
    if (is_periodic(i)) {
        int rc = tw_periodic_init(&m->node->p, fz_pcb, policy_of(i));
        FZ_ASSERT(rc == 0, "tw_periodic_init returned %s", tw_err_name(rc));
    } else {
        tw_timer_init(node_t(m), fz_cb);
    }
    m->node->idx = i;
    m->state = M_IDLE;
    m->period = 0;
    m->pcount = 0;
}

static void free_node(int i)
{
    struct mtimer *m = &F.m[i];
    FZ_ASSERT(m->state == M_IDLE, "freeing pending timer %d", i);
    free(m->node);
    m->node = NULL;
}

static void expect_unchanged(int i, int was_pending, tw_time_t was_deadline)
{
    struct mtimer *m = &F.m[i];
    FZ_ASSERT(tw_timer_pending(node_t(m)) == was_pending, "failed start changed timer %d",
              i);
    if (was_pending)
        FZ_ASSERT(tw_timer_deadline(node_t(m)) == was_deadline,
                  "failed start moved timer %d", i);
}

/* Start timer i: with an interval (at == 0) or at an absolute deadline.  A
 * periodic timer takes the interval as its period (tw_periodic_start()),
 * or starts its grid at the deadline with its last period, or a short one
 * if it has none (tw_periodic_start_at()). */
static void do_start(int i, tw_time_t v, int at)
{
    ensure_node(i);
    struct mtimer *m = &F.m[i];
    tw_time_t now = tw_now(F.tw);
    FZ_ASSERT(now == F.now, "tw_now %" PRIu64 " != model %" PRIu64, now, F.now);
    tw_time_t maxi = tw_max_interval(F.tw);
    tw_time_t dl = at ? v : sat_add(now, v);
    tw_time_t period = 0;
    int erange = at ? dl > now && dl - now > maxi : v > maxi, einval = 0;
    int was_pending = tw_timer_pending(node_t(m));
    tw_time_t was_dl = tw_timer_deadline(node_t(m));
    int rc;
    if (is_periodic(i)) {
        period = at ? (m->period ? m->period : 1 + v % 64) : v;
        einval = period == 0;
        erange = !einval && (period > maxi || erange);
        rc = at ? tw_periodic_start_at(F.tw, &m->node->p, dl, period)
                : tw_periodic_start(F.tw, &m->node->p, period);
    } else {
        rc = at ? tw_start_at(F.tw, node_t(m), v) : tw_start(F.tw, node_t(m), v);
    }
    trace("%s%s %d %" PRIu64 " -> deadline %" PRIu64 ": %d", is_periodic(i) ? "periodic " : "",
          at ? "start_at" : "start", i, v, dl, rc);
    if (einval || erange) {
        FZ_ASSERT(rc == (einval ? TW_EINVAL : TW_ERANGE), "start gave %s, not %s",
                  tw_err_name(rc), einval ? "TW_EINVAL" : "TW_ERANGE");
        expect_unchanged(i, was_pending, was_dl);
        return;
    }
    if (rc == TW_ENOMEM) {
        FZ_ASSERT(failed_alloc() && F.allocates && dl > now,
                  "TW_ENOMEM from a start that may not allocate");
        expect_unchanged(i, was_pending, was_dl);
        return;
    }
    FZ_ASSERT(rc == 0, "start returned %s", tw_err_name(rc));
    if (m->state == M_IDLE)
        F.count++;
    m->state = M_PENDING;
    m->deadline = dl;
    m->armed_at = now;
    m->seq = ++F.seq;
    m->eligible = 0;
    if (is_periodic(i)) {
        m->period = period;
        m->pcount = 0;
    }
}

static void do_stop(int i)
{
    struct mtimer *m = &F.m[i];
    if (m->node == NULL)
        return;
    int rc = is_periodic(i) ? tw_periodic_stop(F.tw, &m->node->p) : tw_stop(F.tw, node_t(m));
    trace("stop %d: %d", i, rc);
    FZ_ASSERT(rc == (m->state != M_IDLE), "tw_stop returned %d for model state %d", rc,
              (int)m->state);
    if (rc == 1) {
        m->state = M_IDLE;
        F.count--;
    }
    m->eligible = 0;
}

/* -------------------------------------------------------------- callback */

static int takes_hints(void)
{
    return tw_schemes[F.s]->hint != NULL;
}

/* The checks of every callback, timer i's node n firing, and the model's
 * count of it (before a periodic timer's re-arm). */
static struct mtimer *fire_begin(struct tw *tw, struct fnode *n)
{
    int i = n->idx;
    FZ_ASSERT(i >= 0 && i < FZ_NTIMERS, "callback for an unknown node");
    struct mtimer *m = &F.m[i];
    FZ_ASSERT(F.in_advance, "callback of timer %d outside tw_advance", i);
    FZ_ASSERT(tw == F.tw, "callback with another facility");
    FZ_ASSERT(m->node == n, "callback for a freed or replaced node %d", i);
    FZ_ASSERT(m->eligible,
              "timer %d fired but was not due when the advance began or was stopped, "
              "re-armed or fired since (state %d, deadline %" PRIu64 ")",
              i, (int)m->state, m->deadline);
    FZ_ASSERT(m->state == M_PENDING || m->state == M_MAYBE, "timer %d fired in state %d", i,
              (int)m->state);
    FZ_ASSERT(m->deadline <= F.adv_to, "timer %d early: deadline %" PRIu64 " > now %" PRIu64,
              i, m->deadline, F.adv_to);
    FZ_ASSERT(tw_now(tw) == F.adv_to, "tw_now in callback %" PRIu64 ", advance to %" PRIu64,
              tw_now(tw), F.adv_to);
    trace("  fire %d (deadline %" PRIu64 ", armed at %" PRIu64 ")", i, m->deadline,
          m->armed_at);
    m->eligible = 0;
    m->state = M_IDLE;
    F.count--;
    F.fired_now++;
    F.fires++;

    /* FIFO among equal deadlines, where the scheme documents it. */
    tw_time_t ttl = m->deadline > m->armed_at ? m->deadline - m->armed_at : 0;
    if (F.fifo || (F.lawn_fifo && ttl > 0)) {
        for (int k = 0; k < F.nfired; k++) {
            const struct fired_rec *f = &F.fired[k];
            if (f->deadline != m->deadline || (F.lawn_fifo && f->ttl != ttl))
                continue;
            FZ_ASSERT(f->seq < m->seq, "timer %d (deadline %" PRIu64
                      ") fired after one started later with the same deadline", i,
                      m->deadline);
        }
        if (F.nfired < (int)(sizeof F.fired / sizeof F.fired[0])) {
            F.fired[F.nfired].deadline = m->deadline;
            F.fired[F.nfired].ttl = ttl;
            F.fired[F.nfired].seq = m->seq;
            F.nfired++;
        }
    }
    return m;
}

/* What timer i does when it fires (its behaviour), unless the run is
 * quiet; a periodic timer is pending again by now. */
static void fire_act(struct tw *tw, int i)
{
    struct mtimer *m = &F.m[i];
    if (F.quiet)
        return;
    int tg = m->target;
    switch (m->beh) {
    case FB_NONE:
    case FB_COUNT:
        break;
    case FB_REARM0:
        do_start(i, 0, 0);
        break;
    case FB_REARM:
        do_start(i, m->arg, 0);
        break;
    case FB_REARM_PAST:
        do_start(i, sat_sub(F.now, m->arg), 1);
        break;
    case FB_STOP_OTHER:
        do_stop(tg);
        break;
    case FB_FREE_SELF:
        if (is_periodic(i))
            do_stop(i); /* re-armed before its callback: stopped to be freed */
        free_node(i); /* the node is gone: nothing below may touch it */
        return;
    case FB_START_OTHER:
        do_start(tg, m->arg, 0);
        break;
    case FB_STOP_RESTART:
        if (F.m[tg].node) {
            do_stop(tg);
            do_start(tg, m->arg, 0);
        }
        break;
    case FB_STOP_FREE_OTHER:
        if (F.m[tg].node) {
            do_stop(tg);
            free_node(tg);
            if (tg == i)
                return;
        }
        break;
    case FB_STOP_ALL:
        for (int k = 0; k < FZ_NTIMERS; k++)
            if (k != i)
                do_stop(k);
        break;
    case FB_REENTER: {
        int64_t r1 = tw_advance(tw, F.adv_to);
        int64_t r2 = tw_advance(tw, sat_add(F.adv_to, 1));
        int64_t r3 = tw_collect(tw, F.adv_to);
        int r4 = tw_destroy(tw);
        FZ_ASSERT(r1 == TW_EBUSY && r2 == TW_EBUSY && r3 == TW_EBUSY && r4 == TW_EBUSY,
                  "re-entry from a callback not refused: %" PRId64 " %" PRId64 " %" PRId64
                  " %d",
                  r1, r2, r3, r4);
        break;
    }
    case FB_INSPECT:
        check_all();
        check_next(NULL);
        break;
    }
}

static void fz_cb(struct tw *tw, struct tw_timer *t)
{
    struct fnode *n = node_of(t);
    struct mtimer *m = fire_begin(tw, n);
    int i = n->idx;
    FZ_ASSERT(!tw_timer_pending(t), "timer %d pending in its callback", i);
    FZ_ASSERT(tw_timer_deadline(t) == m->deadline, "timer %d deadline changed", i);
    FZ_ASSERT(tw_count(tw) == F.count, "tw_count %zu in callback, model %zu", tw_count(tw),
              F.count);
    fire_act(tw, i);
}

/*
 * A periodic timer fires, at `now`, its grid point `due`: m = (now - due) /
 * period points after it were passed over.  BURST reports 0, counts 1 and
 * goes on at due + period (due at once when m > 0, so the next advance
 * fires it); SKIP reports and counts m + 1 and goes on at the first point
 * after now; DELAY reports and counts the same and goes on at now + period
 * when m > 0, else at due + period.  A next point past the end of time
 * leaves it idle; so does a re-arm refused for want of memory.  The
 * library has re-armed it before this runs.
 */
static void fz_pcb(struct tw *tw, struct tw_periodic *p, uint64_t missed)
{
    struct fnode *n = node_of(&p->tw_timer);
    struct mtimer *m = fire_begin(tw, n);
    int i = n->idx;
    FZ_ASSERT(is_periodic(i), "periodic callback of plain timer %d", i);
    F.pfires++;
    tw_time_t due = m->deadline, now = F.adv_to, P = m->period, base = due;
    uint64_t over = now > due ? (now - due) / P : 0, k = 1, passed = 0;
    switch (policy_of(i)) {
    case TW_MISSED_SKIP:
        k = over + 1; /* 0 when it wraps: no next point */
        passed = over;
        break;
    case TW_MISSED_DELAY:
        base = over > 0 ? now : due;
        passed = over;
        break;
    case TW_MISSED_BURST:
        break;
    }
    FZ_ASSERT(missed == passed, "periodic %d reported %" PRIu64 " missed, model %" PRIu64, i,
              missed, passed);
    m->pcount = sat_add(m->pcount, sat_add(passed, 1));
    FZ_ASSERT(tw_periodic_count(p) == m->pcount,
              "periodic %d: count %" PRIu64 " in its callback, model %" PRIu64, i,
              tw_periodic_count(p), m->pcount);
    int has_next = k != 0 && k <= (TW_TIME_MAX - base) / P;
    tw_time_t next = has_next ? base + k * P : 0;
    int pend = tw_periodic_pending(p);
    trace("  periodic %d: %" PRIu64 " passed over, next %" PRIu64 "%s", i, passed, next,
          has_next ? (pend ? "" : " refused") : " (none)");
    if (pend) {
        FZ_ASSERT(has_next, "periodic %d re-armed past the end of time", i);
        FZ_ASSERT(tw_periodic_next(p) == next,
                  "periodic %d re-armed at %" PRIu64 ", model %" PRIu64, i,
                  tw_periodic_next(p), next);
        m->state = M_PENDING;
        m->deadline = next;
        m->armed_at = now;
        m->seq = ++F.seq;
        F.count++;
    } else {
        FZ_ASSERT(!has_next || (failed_alloc() && F.allocates && next > now),
                  "periodic %d not re-armed at %" PRIu64, i, next);
        FZ_ASSERT(tw_timer_deadline(&p->tw_timer) == due, "periodic %d: refused re-arm "
                  "moved its deadline", i);
    }
    FZ_ASSERT(tw_count(tw) == F.count, "tw_count %zu in callback, model %zu", tw_count(tw),
              F.count);
    fire_act(tw, i);
}

/* ------------------------------------------------------------- advancing */

static int64_t do_advance(tw_time_t to, int collect)
{
    if (to < F.now) {
        int64_t rc = collect ? tw_collect(F.tw, to) : tw_advance(F.tw, to);
        trace("%s %" PRIu64 " (backwards): %" PRId64, collect ? "collect" : "advance", to, rc);
        FZ_ASSERT(rc == TW_ETIME, "going backwards gave %" PRId64, rc);
        return rc;
    }
    for (int i = 0; i < FZ_NTIMERS; i++) {
        struct mtimer *m = &F.m[i];
        m->eligible = (m->state == M_PENDING || m->state == M_MAYBE) && m->deadline <= to;
    }
    if (collect) {
        int nmust = 0, nmaybe = 0;
        int64_t rc = tw_collect(F.tw, to);
        trace("collect %" PRIu64 ": %" PRId64, to, rc);
        FZ_ASSERT(rc >= 0, "tw_collect returned %" PRId64, rc);
        F.now = to;
        F.cseq++;
        for (int i = 0; i < FZ_NTIMERS; i++) {
            struct mtimer *m = &F.m[i];
            if (!m->eligible)
                continue;
            m->eligible = 0;
            if (m->state == M_PENDING && must_fire(m, to)) {
                m->state = M_QUEUED;
                m->qseq = F.cseq;
                nmust++;
            } else {
                m->state = M_MAYBE;
                m->qseq = F.cseq;
                nmaybe++;
            }
        }
        FZ_ASSERT(rc >= nmust && rc <= nmust + nmaybe,
                  "tw_collect queued %" PRId64 ", model: %d due and %d that may be", rc,
                  nmust, nmaybe);
        return rc;
    }
    F.in_advance = 1;
    F.adv_to = to;
    F.fired_now = 0;
    F.nfired = 0;
    trace("advance %" PRIu64 " (+%" PRIu64 ")", to, to - F.now);
    F.now = to; /* callbacks see the new time */
    int64_t rc = tw_advance(F.tw, to);
    F.in_advance = 0;
    trace("advance %" PRIu64 ": %" PRId64, to, rc);
    FZ_ASSERT(rc == F.fired_now, "tw_advance returned %" PRId64 " but %" PRId64
              " callbacks ran", rc, F.fired_now);
    for (int i = 0; i < FZ_NTIMERS; i++) {
        struct mtimer *m = &F.m[i];
        if (!m->eligible)
            continue;
        m->eligible = 0;
        if (m->state == M_PENDING)
            FZ_ASSERT(!must_fire(m, to),
                      "timer %d not fired: deadline %" PRIu64 ", armed at %" PRIu64
                      ", latest allowed %" PRIu64 ", advanced to %" PRIu64,
                      i, m->deadline, m->armed_at, latest(m), to);
    }
    return rc;
}

static void do_get_expired(unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        struct tw_timer *t = tw_get_expired(F.tw);
        if (t == NULL) {
            for (int i = 0; i < FZ_NTIMERS; i++)
                FZ_ASSERT(F.m[i].state != M_QUEUED,
                          "timer %d queued by tw_collect but not handed out", i);
            return;
        }
        struct fnode *nd = node_of(t);
        int i = nd->idx;
        FZ_ASSERT(i >= 0 && i < FZ_NTIMERS && F.m[i].node == nd,
                  "tw_get_expired gave an unknown node");
        struct mtimer *m = &F.m[i];
        trace("get_expired: %d", i);
        FZ_ASSERT(m->state == M_QUEUED || m->state == M_MAYBE,
                  "tw_get_expired gave timer %d in state %d", i, (int)m->state);
        FZ_ASSERT(!tw_timer_pending(t), "handed-out timer %d still pending", i);
        FZ_ASSERT(m->deadline <= F.now, "handed-out timer %d not due", i);
        if (F.exact) {
            FZ_ASSERT(m->qseq >= F.last_pop_qseq,
                      "timer %d of collect %" PRIu64 " handed out after one of collect %" PRIu64,
                      i, m->qseq, F.last_pop_qseq);
            F.last_pop_qseq = m->qseq;
        }
        m->state = M_IDLE;
        F.count--;
    }
}

/* ------------------------------------------------------------ generators */

static unsigned log2u(uint64_t x)
{
    unsigned l = 0;
    while (x > 1) {
        x >>= 1;
        l++;
    }
    return l;
}

static tw_time_t gen_interval(struct reader *r)
{
    uint8_t sel = rd_u8(r) % FI_COUNT;
    switch (sel) {
    case FI_ZERO:
        return 0;
    case FI_ONE:
        return 1;
    case FI_U8:
        return rd_u8(r);
    case FI_LEVEL: {
        uint8_t b = rd_u8(r);
        unsigned l = rd_u8(r), fam = b & 3u;
        tw_time_t base;
        if (fam == 0) {                 /* 64-slot levels: 64^l */
            l %= 11;
            base = 1ull << (6 * l);
        } else if (fam == 1) {          /* this facility's tables: S^l */
            unsigned bits = F.slot_bits ? F.slot_bits : 6;
            l %= 64 / bits + 1;
            base = bits * l < 64 ? 1ull << (bits * l) : TW_TIME_MAX;
        } else if (fam == 2) {          /* coarse: (S-2) 8^l */
            uint32_t S = F.S ? F.S : 64;
            l %= 21;
            base = (tw_time_t)(S - 2u) << (3 * l);
            if ((base >> (3 * l)) != S - 2u)
                base = TW_TIME_MAX;
        } else {                        /* any power of two */
            base = 1ull << (l % 64);
        }
        unsigned delta = (b >> 2) % 3u;
        return delta == 0 ? base - 1 : delta == 1 ? base : sat_add(base, 1);
    }
    case FI_2_48: {
        unsigned v = rd_u8(r); /* 2^48 - 128 .. 2^48 + 127 */
        return (1ull << 48) - 128u + v;
    }
    case FI_NEAR_MAX:
        return TW_TIME_MAX - rd_u8(r);
    case FI_U64:
        return rd_bytes(r, 8);
    case FI_U16:
        return rd_bytes(r, 2);
    case FI_MAXI: {
        tw_time_t mx = tw_max_interval(F.tw);
        unsigned d = rd_u8(r) % 3u;
        return d == 0 ? mx - 1 : d == 1 ? mx : sat_add(mx, 1);
    }
    case FI_TO_ALIGN: {
        unsigned k = rd_u8(r) % 64u, d = rd_u8(r) % 3u;
        tw_time_t up = F.now | ((1ull << k) - 1);
        return sat_add(up, d) - F.now;
    }
    default:
        return 0;
    }
}

static tw_time_t gen_deadline(struct reader *r)
{
    uint8_t sel = rd_u8(r) % FD_COUNT;
    switch (sel) {
    case FD_PAST:
        return sat_sub(F.now, 1 + rd_bytes(r, 2));
    case FD_ZERO:
        return 0;
    case FD_NOW:
        return F.now;
    case FD_END:
        return TW_TIME_MAX;
    default:
        return sat_add(F.now, gen_interval(r));
    }
}

static tw_time_t plus_delta(tw_time_t x, unsigned d)
{
    return d == 0 ? sat_sub(x, 1) : d == 1 ? x : sat_add(x, 1);
}

static tw_time_t gen_target(struct reader *r)
{
    uint8_t sel = rd_u8(r) % FT_COUNT;
    tw_time_t mn = 0, ml = 0, to = F.now;
    switch (sel) {
    case FT_STEP:
        to = sat_add(F.now, gen_interval(r));
        break;
    case FT_2_48:
        to = sat_add(F.now, 1ull << 48);
        break;
    case FT_END:
        to = TW_TIME_MAX;
        break;
    case FT_MIN_DL: {
        unsigned d = rd_u8(r) % 3u;
        if (model_min(&mn, &ml))
            to = plus_delta(mn, d);
        break;
    }
    case FT_MIN_LATEST:
        if (model_min(&mn, &ml))
            to = ml;
        break;
    case FT_TIMER_DL: {
        int i = rd_u8(r) % FZ_NTIMERS;
        unsigned d = rd_u8(r) % 3u;
        if (F.m[i].state != M_IDLE)
            to = plus_delta(F.m[i].deadline, d);
        break;
    }
    case FT_ALIGN: {
        unsigned k = rd_u8(r) % 64u, d = rd_u8(r) % 3u;
        to = sat_add(F.now | ((1ull << k) - 1), d);
        break;
    }
    default:
        break;
    }
    return to < F.now ? F.now : to;
}

/* ------------------------------------------------------------ the driver */

static const char *const op_names[FZ_NOPS] = {
    "start", "start_at", "stop", "rearm", "adv_small", "adv_level", "adv_far",
    "collect", "get_expired", "next_expiry", "adv_to_next", "ttl_hint", "behaviour",
    "backwards", "alloc", "recreate", "start_many",
};

static unsigned long stat_execs[TW_SCHEME_COUNT], stat_ops[TW_SCHEME_COUNT],
    stat_fires[TW_SCHEME_COUNT], stat_pfires[TW_SCHEME_COUNT];
static int forced_scheme = -1;

static void print_stats(void)
{
    unsigned long total = 0;
    for (int s = 0; s < TW_SCHEME_COUNT; s++)
        total += stat_execs[s];
    if (total == 0)
        return;
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if (stat_execs[s] == 0)
            continue;
        fprintf(stderr, "twfuzz: %-20s %10lu inputs %12lu ops %12lu callbacks",
                tw_scheme_name((enum tw_scheme)s), stat_execs[s], stat_ops[s], stat_fires[s]);
        if (FZ_PERIODIC)
            fprintf(stderr, " (%lu periodic)", stat_pfires[s]);
        fputc('\n', stderr);
    }
}

static void init_once(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const char *e = getenv("TWFUZZ_SCHEME");
    if (e && *e) {
        forced_scheme = tw_scheme_from_name(e);
        if (forced_scheme < 0 || !tw_scheme_available((enum tw_scheme)forced_scheme)) {
            fprintf(stderr, "twfuzz: unknown or unavailable scheme %s\n", e);
            exit(2);
        }
    }
    e = getenv("TWFUZZ_TRACE");
    F.trace = e && *e && *e != '0';
    atexit(print_stats);
}

static enum tw_scheme pick_scheme(uint8_t b0)
{
    if (forced_scheme >= 0)
        return (enum tw_scheme)forced_scheme;
    return (enum tw_scheme)((b0 & 0x0f) % TW_SCHEME_COUNT);
}

/* Small tables per scheme, chosen by two bits. */
static uint32_t small_slots(enum tw_scheme s, unsigned sel)
{
    static const uint32_t wheel[4] = {1, 2, 16, 64};
    static const uint32_t hashed[4] = {1, 2, 16, 256};
    static const uint32_t hier[4] = {2, 4, 16, 256};
    static const uint32_t coarse[4] = {16, 32, 128, 256};
    switch (s) {
    case TW_WHEEL:
        return wheel[sel];
    case TW_HASHED:
    case TW_HASHED_SORTED:
        return hashed[sel];
    case TW_HIERARCHICAL:
    case TW_HYBRID:
        return hier[sel];
    case TW_HIERARCHICAL_COARSE:
        return coarse[sel];
    default:
        return 0;
    }
}

static void create(void)
{
    struct tw *out = NULL;
    int rc = tw_create(&out, &F.cfg);
    FZ_ASSERT(rc == 0 && out != NULL, "tw_create(%s, slots %u) returned %s",
              tw_scheme_name(F.cfg.scheme), F.cfg.slots, tw_err_name(rc));
    F.tw = out;
}

static void destroy_all(void)
{
    int rc = tw_destroy(F.tw);
    FZ_ASSERT(rc == 0, "tw_destroy returned %s", tw_err_name(rc));
    F.tw = NULL;
    FZ_ASSERT(F.outstanding == 0, "tw_destroy left %zu bytes", F.outstanding);
    for (int i = 0; i < FZ_NTIMERS; i++) {
        struct mtimer *m = &F.m[i];
        if (m->node)
            FZ_ASSERT(!tw_timer_pending(node_t(m)), "timer %d pending after destroy", i);
        m->state = M_IDLE;
        m->eligible = 0;
    }
    F.count = 0;
}

static void setup(const uint8_t b0, uint8_t b1, uint8_t b2)
{
    memset(&F, 0, sizeof F);
    F.trace = getenv("TWFUZZ_TRACE") && *getenv("TWFUZZ_TRACE") != '0';
    F.fail_after = -1;
    F.s = pick_scheme(b0);
    tw_config_init(&F.cfg, F.s);
    static const tw_time_t bases[4] = {0, 1ull << 32, 1ull << 63, 0 /* 2^64 */};
    unsigned clk = (b0 >> 4) & 3u;
    tw_time_t k = 1 + 257u * (tw_time_t)b2;
    F.cfg.start = clk == 0 ? 0 : bases[clk] - k;
    if (!(b0 & 0x40)) {
        uint32_t sl = small_slots(F.s, b1 & 3u);
        if (sl)
            F.cfg.slots = sl;
    }
    if (b0 & 0x80) {
        if (F.s == TW_ORDERED)
            F.cfg.options = TW_OPT_ORDERED_FRONT;
        else if (F.s == TW_LAWN)
            F.cfg.options = TW_OPT_LAWN_SCAN;
        else if (F.s == TW_HIERARCHICAL || F.s == TW_HYBRID)
            F.cfg.options = TW_OPT_REAL_TIME;
    }
    static const uint32_t thresholds[4] = {0, 1, 2, 255};
    if (F.s == TW_HYBRID)
        F.cfg.ttl_threshold = thresholds[(b1 >> 2) & 3u];
    F.cfg.allocator = (b1 & 0x10) ? &fz_alloc_norealloc : &fz_alloc;
    F.now = F.cfg.start;
    F.exact = tw_schemes[F.s]->latest_fire == NULL; /* a late scheme declares its bound */
    F.fifo = tw_schemes[F.s]->order == TW_ORDER_DEADLINE;
    F.lawn_fifo = F.s == TW_LAWN;
    F.allocates = tw_schemes[F.s]->reserve != NULL;
    F.S = F.cfg.slots;
    F.slot_bits = F.cfg.slots ? log2u(F.cfg.slots) : 0;
    for (int i = 0; i < FZ_NTIMERS; i++)
        F.m[i].target = (i + 1) % FZ_NTIMERS;
    create();
}

static void op_ttl_hint(struct reader *r)
{
    tw_time_t ttl = gen_interval(r);
    unsigned hint = rd_u8(r) % 4u;
    int rc = tw_ttl_hint(F.tw, ttl, (enum tw_ttl_hint)hint);
    trace("ttl_hint %" PRIu64 " %u: %d", ttl, hint, rc);
    int bad = !takes_hints() || ttl == 0 || hint > TW_TTL_WHEEL ||
              (F.s == TW_LAWN && hint == TW_TTL_WHEEL);
    if (bad)
        FZ_ASSERT(rc == TW_EINVAL, "tw_ttl_hint should be refused, returned %s",
                  tw_err_name(rc));
    else
        FZ_ASSERT(rc == 0 || (rc == TW_ENOMEM && failed_alloc()), "tw_ttl_hint returned %s",
                  tw_err_name(rc));
}

static void op_adv_to_next(void)
{
    tw_time_t ne = 0;
    check_next(&ne);
    if (F.count == 0 || ne <= F.now)
        return;
    /* ne > now: nothing is due or queued, and the earliest fires at ne */
    int64_t n = do_advance(ne - 1, 0);
    FZ_ASSERT(n == 0, "advance to next_expiry - 1 fired %" PRId64, n);
    check_all();
    n = do_advance(ne, 0);
    FZ_ASSERT(n >= 1, "advance to next_expiry %" PRIu64 " fired nothing", ne);
}

static void run_op(struct reader *r)
{
    unsigned op = rd_u8(r) % FZ_NOPS;
    trace("op %s", op_names[op]);
    switch ((enum fz_op)op) {
    case FZ_START:
    case FZ_START_AT: {
        uint8_t b = rd_u8(r);
        int i = b % FZ_NTIMERS;
        if (F.m[i].node == NULL)
            F.m[i].beh = (enum fz_beh)((b >> 5) % FB_COUNT);
        if (op == FZ_START)
            do_start(i, gen_interval(r), 0);
        else
            do_start(i, gen_deadline(r), 1);
        break;
    }
    case FZ_STOP:
        do_stop(rd_u8(r) % FZ_NTIMERS);
        break;
    case FZ_REARM: {
        int i0 = rd_u8(r) % FZ_NTIMERS, i = i0;
        for (int k = 0; k < FZ_NTIMERS; k++) {
            i = (i0 + k) % FZ_NTIMERS;
            if (F.m[i].state != M_IDLE)
                break;
        }
        do_start(i, gen_interval(r), 0);
        break;
    }
    case FZ_ADV_SMALL:
        do_advance(sat_add(F.now, rd_u8(r)), 0);
        break;
    case FZ_ADV_LEVEL: {
        /* a level's span of a 64-slot wheel (or of this one's), -1, 0, +1 */
        uint8_t b = rd_u8(r);
        unsigned l = rd_u8(r);
        unsigned bits = (b & 1) || F.slot_bits == 0 ? 6 : F.slot_bits;
        l = l % (64 / bits) + 1;
        tw_time_t span = bits * l < 64 ? 1ull << (bits * l) : TW_TIME_MAX;
        do_advance(sat_add(F.now, plus_delta(span, (b >> 1) % 3u)), 0);
        break;
    }
    case FZ_ADV_FAR:
        do_advance(gen_target(r), 0);
        break;
    case FZ_COLLECT:
        do_advance(gen_target(r), 1);
        break;
    case FZ_GET_EXPIRED:
        do_get_expired(rd_u8(r) % 8u + 1);
        break;
    case FZ_NEXT_EXPIRY:
        check_next(NULL);
        break;
    case FZ_ADV_TO_NEXT:
        op_adv_to_next();
        break;
    case FZ_TTL_HINT:
        op_ttl_hint(r);
        break;
    case FZ_BEHAVIOUR: {
        int i = rd_u8(r) % FZ_NTIMERS;
        ensure_node(i); /* so that a later start keeps this behaviour */
        F.m[i].beh = (enum fz_beh)(rd_u8(r) % FB_COUNT);
        F.m[i].target = rd_u8(r) % FZ_NTIMERS;
        F.m[i].arg = gen_interval(r);
        if (F.m[i].arg > tw_max_interval(F.tw) && (F.m[i].arg & 1))
            F.m[i].arg = tw_max_interval(F.tw); /* mostly in range */
        break;
    }
    case FZ_BACKWARDS: {
        tw_time_t back = 1 + rd_bytes(r, 2);
        if (F.now >= back) {
            do_advance(F.now - back, 0);
            do_advance(F.now - back, 1);
        }
        break;
    }
    case FZ_ALLOC: {
        uint8_t b = rd_u8(r);
        F.fail_after = b == 0 ? -1 : (long)(b & 7u);
        break;
    }
    case FZ_RECREATE: {
        destroy_all();
        F.cfg.start = F.now;
        if (F.fail_after >= 0) {
            struct tw *out = (struct tw *)(void *)&F; /* a sentinel */
            int rc = tw_create(&out, &F.cfg);
            if (rc == 0) {
                F.tw = out;
                break;
            }
            FZ_ASSERT(rc == TW_ENOMEM && out == (struct tw *)(void *)&F,
                      "failed tw_create returned %s and touched *out", tw_err_name(rc));
            FZ_ASSERT(F.outstanding == 0, "failed tw_create leaked %zu bytes",
                      F.outstanding);
            F.fail_after = -1;
        }
        create();
        break;
    }
    case FZ_START_MANY: {
        int i0 = rd_u8(r) % FZ_NTIMERS;
        unsigned n = rd_u8(r) % 8u + 2;
        tw_time_t iv = gen_interval(r);
        for (unsigned k = 0; k < n; k++)
            do_start((i0 + (int)k * 5) % FZ_NTIMERS, iv, 0);
        break;
    }
    case FZ_NOPS:
        break;
    }
    check_all();
}

static void finish(void)
{
    /* Everything pending fires at the end of time; the queue drains.  A
     * periodic timer is stopped first: BURST at the end of time would fire
     * once per advance for every grid point left. */
    F.quiet = 1;
    F.fail_after = -1;
    for (int i = 0; i < FZ_NTIMERS; i++)
        if (is_periodic(i) && F.m[i].state != M_IDLE)
            do_stop(i);
    do_advance(TW_TIME_MAX, 0);
    check_all();
    do_get_expired(FZ_NTIMERS + 1);
    check_all();
    for (int i = 0; i < FZ_NTIMERS; i++)
        FZ_ASSERT(F.m[i].state == M_IDLE, "timer %d still in state %d at the end", i,
                  (int)F.m[i].state);
    FZ_ASSERT(tw_count(F.tw) == 0, "count %zu at the end", tw_count(F.tw));
    FZ_ASSERT(tw_get_expired(F.tw) == NULL, "queue not empty at the end");
    destroy_all();
    for (int i = 0; i < FZ_NTIMERS; i++)
        if (F.m[i].node)
            free_node(i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    struct reader r = {data, size};
    uint8_t b0 = rd_u8(&r), b1 = rd_u8(&r), b2 = rd_u8(&r);
    setup(b0, b1, b2);
    stat_execs[F.s]++;
    check_all();
    while (r.n > 0 && F.op < MAX_OPS) {
        F.op++;
        run_op(&r);
    }
    stat_ops[F.s] += F.op;
    F.op++;
    finish();
    stat_fires[F.s] += F.fires;
    stat_pfires[F.s] += F.pfires;
    return 0;
}
