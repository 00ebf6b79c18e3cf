/*
 * test_callout.c -- the BSD callout layer (tw_timeout/tw_untimeout,
 * tw_setcallout/tw_unsetcallout) on every scheme.
 *
 * Deterministic cases check each promise of twheel.h's callout section
 * (exactly once at the right advance, untimeout of the most recent
 * duplicate, cancel and re-timeout from inside func, bad input, allocation
 * failure, destroy with pending callouts); `model` runs random sequences of
 * all four operations and advances, from fixed seeds, against a reference
 * model that every func(arg) call is checked against as it happens, with
 * tw_check() and tw_callouts_check() after every step.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

extern const struct test_case test_suite_callout[];
extern const size_t test_suite_callout_count;

static char sentinel_byte;
#define CO_SENTINEL ((struct tw_callouts *)(void *)&sentinel_byte)

/* tw_callouts_check() must pass. */
#define ASSERT_CO_CHECK(co)                                                         \
    do {                                                                            \
        char tst_msg_[512];                                                         \
        int tst_rc_ = tw_callouts_check((co), tst_msg_, sizeof tst_msg_);           \
        if (tst_rc_ != 0) {                                                         \
            test_fail(__FILE__, __LINE__, "tw_callouts_check(%s) returned %d (%s): %s", \
                      #co, tst_rc_, tw_err_name(tst_rc_), tst_msg_);               \
            return;                                                                 \
        }                                                                           \
    } while (0)

static struct tw *create_with(struct ctx *c, struct test_alloc *ta)
{
    struct tw_config cfg = c->cfg;
    cfg.allocator = ta ? &ta->a : NULL;
    struct tw *tw = NULL;
    int rc = tw_create(&tw, &cfg);
    if (rc != 0 || tw == NULL) {
        test_fail(__FILE__, __LINE__, "tw_create returned %d (%s)", rc, tw_err_name(rc));
        return NULL;
    }
    return tw;
}

static struct tw_callouts *co_create(struct tw *tw)
{
    struct tw_callouts *co = NULL;
    int rc = tw_callouts_init(&co, tw);
    if (rc != 0 || co == NULL) {
        test_fail(__FILE__, __LINE__, "tw_callouts_init returned %d (%s)", rc,
                  tw_err_name(rc));
        return NULL;
    }
    return co;
}

static void check_alloc_clean(const struct test_alloc *ta)
{
    ASSERT_EQ_U64(ta->outstanding, 0);
    ASSERT_EQ_U64(ta->nblocks, 0);
    ASSERT_EQ_U64(ta->size_errors, 0);
    ASSERT_EQ_U64(ta->unknown_ptrs, 0);
}

/* ---------------------------------------------- a recording func(arg) */

enum hit_action {
    H_NONE,
    H_UNTIMEOUT,        /* rc = tw_untimeout(co, other_fn, other) */
    H_UNSET,            /* rc = tw_unsetcallout(co, handle) */
    H_TIMEOUT,          /* rc = tw_timeout(co, other_fn, other, ticks) */
    H_SET,              /* rc = tw_setcallout(co, handle, other_fn, other, ticks) */
    H_DESTROY,          /* tw_callouts_destroy(co) */
    H_FREE_HANDLE       /* free(handle): the handle was malloc'd */
};

struct hit {
    int calls;          /* through hit_fn */
    int calls2;         /* through hit_fn2 */
    tw_time_t at;       /* tw_now() at the last call */
    struct tw *tw;
    struct tw_callouts *co;
    enum hit_action action;
    int budget;         /* actions left; < 0 unlimited */
    tw_callout_fn *other_fn;
    struct hit *other;
    struct tw_callout *handle;
    tw_time_t ticks;
    int rc;
    size_t count_in_fn; /* tw_callouts_count() inside func */
    int check_in_fn;    /* tw_callouts_check() inside func */
};

static int hit_total; /* calls of either func since the case began */

static void hit_do(struct hit *h)
{
    h->at = tw_now(h->tw);
    hit_total++;
    if (h->co) {
        h->count_in_fn = tw_callouts_count(h->co);
        h->check_in_fn = tw_callouts_check(h->co, NULL, 0);
    }
    if (h->budget == 0)
        return;
    if (h->budget > 0)
        h->budget--;
    switch (h->action) {
    case H_NONE:
        break;
    case H_UNTIMEOUT:
        h->rc = tw_untimeout(h->co, h->other_fn, h->other);
        break;
    case H_UNSET:
        h->rc = tw_unsetcallout(h->co, h->handle);
        break;
    case H_TIMEOUT:
        h->rc = tw_timeout(h->co, h->other_fn, h->other, h->ticks);
        break;
    case H_SET:
        h->rc = tw_setcallout(h->co, h->handle, h->other_fn, h->other, h->ticks);
        break;
    case H_DESTROY:
        tw_callouts_destroy(h->co);
        h->co = NULL;
        break;
    case H_FREE_HANDLE:
        free(h->handle);
        h->handle = NULL;
        break;
    }
}

static void hit_fn(void *arg)
{
    struct hit *h = arg;
    h->calls++;
    hit_do(h);
}

static void hit_fn2(void *arg)
{
    struct hit *h = arg;
    h->calls2++;
    hit_do(h);
}

static void hit_init(struct hit *h, struct tw *tw, struct tw_callouts *co)
{
    memset(h, 0, sizeof *h);
    h->tw = tw;
    h->co = co;
    h->budget = -1;
}

/* The tick by which a callout set at `now` for `ticks` must have run. */
static tw_time_t due_by(const struct ctx *c, tw_time_t now, tw_time_t ticks)
{
    return latest_fire(c->scheme, now, sat_add(now, ticks));
}

/* ------------------------------------------------------ the basic cases */

static void case_basic(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    ASSERT_GT_U64(tw_callouts_memory(co), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_CO_CHECK(co);
    tw_time_t t0 = tw_now(tw);

    struct hit a, b, h;
    hit_init(&a, tw, co);
    hit_init(&b, tw, co);
    hit_init(&h, tw, co);
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 10));
    ASSERT_OK(tw_timeout(co, hit_fn, &b, 20));
    ASSERT_EQ_U64(tw_callouts_count(co), 2);
    struct tw_callout hc;
    tw_callout_init(&hc);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &h, 15));
    ASSERT_EQ_INT(tw_callout_pending(&hc), 1);
    ASSERT_EQ_U64(tw_callouts_count(co), 2); /* handles are not counted */
    ASSERT_EQ_U64(tw_count(tw), 3);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);

    /* tick by tick: each runs once, never early, by its latest tick */
    tw_time_t end = due_by(c, t0, 20);
    for (tw_time_t t = t0 + 1; t <= end; t++) {
        ASSERT_GE_INT(tw_advance(tw, t), 0);
        ASSERT_CHECK(tw);
        ASSERT_CO_CHECK(co);
        if (t < t0 + 10)
            ASSERT_EQ_INT(a.calls, 0);
        if (t < t0 + 15)
            ASSERT_EQ_INT(h.calls, 0);
        if (t < t0 + 20)
            ASSERT_EQ_INT(b.calls, 0);
        if (t >= due_by(c, t0, 10))
            ASSERT_EQ_INT(a.calls, 1);
    }
    ASSERT_EQ_INT(a.calls, 1);
    ASSERT_EQ_INT(b.calls, 1);
    ASSERT_EQ_INT(h.calls, 1);
    if (scheme_exact(c->scheme)) {
        ASSERT_EQ_U64(a.at, t0 + 10);
        ASSERT_EQ_U64(h.at, t0 + 15);
        ASSERT_EQ_U64(b.at, t0 + 20);
    }
    /* inside func the callout was already gone: one left, then none */
    ASSERT_EQ_U64(a.count_in_fn, 1);
    ASSERT_EQ_U64(b.count_in_fn, 0);
    ASSERT_EQ_INT(a.check_in_fn, 0);
    ASSERT_EQ_INT(b.check_in_fn, 0);
    ASSERT_EQ_INT(h.check_in_fn, 0);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);

    /* nothing pending: 0 */
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &a), 0);
    ASSERT_EQ_INT(tw_unsetcallout(co, &hc), 0);

    /* untimeout matches func and arg both */
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 5));
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn2, &a), 0);
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &b), 0);
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, NULL), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 1);
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &a), 1);
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &a), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    /* a NULL arg is a key like any other */
    ASSERT_OK(tw_timeout(co, hit_fn2, NULL, 0));
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn2, NULL), 1);

    /* set, unset, never runs */
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &h, 3));
    ASSERT_EQ_INT(tw_unsetcallout(co, &hc), 1);
    ASSERT_EQ_INT(tw_unsetcallout(co, &hc), 0);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_CO_CHECK(co);
    ASSERT_EQ_INT(tw_advance(tw, sat_add(now, 1000)), 0);
    ASSERT_EQ_INT(a.calls, 1);
    ASSERT_EQ_INT(h.calls, 1);

    /* interval 0 runs at the next advance, even one to the same time */
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 0));
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &h, 0));
    ASSERT_EQ_INT(tw_advance(tw, tw_now(tw)), 2);
    ASSERT_EQ_INT(a.calls, 2);
    ASSERT_EQ_INT(h.calls, 2);
    ASSERT_EQ_INT(hit_total, 5);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));
}

/* Many pending timeouts of one (func, arg): untimeout cancels the most
 * recently set, across table growth; the rest run once each. */
static void case_duplicates(struct ctx *c)
{
    enum { NDUP = 300, NSAME = 100, NCANCEL = 50, NKEYS = 2000 };
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    tw_time_t t0 = tw_now(tw);
    struct hit d;
    hit_init(&d, tw, NULL);
    /* ticks 1000 + i in the order set, and NSAME more all at 500 */
    for (int i = 0; i < NDUP; i++) {
        ASSERT_OK(tw_timeout(co, hit_fn, &d, 1000u + (tw_time_t)i));
        if (i < NSAME)
            ASSERT_OK(tw_timeout(co, hit_fn, &d, 500));
        if (i % 50 == 0)
            ASSERT_CO_CHECK(co);
    }
    /* the NSAME at 500 were set interleaved: take them out of the LIFO
     * question by firing them first */
    ASSERT_EQ_U64(tw_callouts_count(co), NDUP + NSAME);
    ASSERT_CO_CHECK(co);
    ASSERT_EQ_INT(tw_advance(tw, t0 + 999), NSAME);
    ASSERT_EQ_INT(d.calls, NSAME);
    ASSERT_CO_CHECK(co);
    /* now the most recent are 1000+299, 1000+298, ... */
    for (int i = 0; i < NCANCEL; i++)
        ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &d), 1);
    ASSERT_EQ_U64(tw_callouts_count(co), NDUP - NCANCEL);
    ASSERT_CO_CHECK(co);
    ASSERT_CHECK(tw);
    tw_time_t last = t0 + 1000 + (NDUP - NCANCEL - 1);
    if (scheme_exact(c->scheme)) {
        for (tw_time_t t = t0 + 1000; t <= last; t++) {
            ASSERT_EQ_INT(tw_advance(tw, t), 1);
            ASSERT_EQ_U64(d.at, t);
        }
    } else {
        ASSERT_EQ_INT(tw_advance(tw, latest_fire(c->scheme, t0, last)),
                      NDUP - NCANCEL);
    }
    ASSERT_EQ_INT(d.calls, NSAME + NDUP - NCANCEL);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &d), 0);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0); /* the cancelled never run */
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));

    /* Many keys, each set twice (early, then late) while the table grows:
     * one untimeout per key cancels the late one; the early ones run. */
    tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    co = co_create(tw);
    ASSERT_NOT_NULL(co);
    t0 = tw_now(tw);
    struct hit *k = malloc(NKEYS * sizeof *k);
    ASSERT_NOT_NULL(k);
    for (int i = 0; i < NKEYS; i++) {
        hit_init(&k[i], tw, NULL);
        ASSERT_OK(tw_timeout(co, hit_fn, &k[i], 10 + (tw_time_t)(i % 97)));
    }
    size_t mem_before = tw_callouts_memory(co);
    for (int i = 0; i < NKEYS; i++)
        ASSERT_OK(tw_timeout(co, hit_fn, &k[i], cap_interval(tw, 5000 + (tw_time_t)i)));
    ASSERT_GT_U64(tw_callouts_memory(co), mem_before);
    ASSERT_CO_CHECK(co);
    for (int i = NKEYS - 1; i >= 0; i -= 2)
        ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[i]), 1);
    for (int i = 0; i < NKEYS; i += 2)
        ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[i]), 1);
    ASSERT_EQ_U64(tw_callouts_count(co), NKEYS);
    ASSERT_CO_CHECK(co);
    if (scheme_exact(c->scheme)) {
        int64_t n = 0;
        for (tw_time_t t = t0 + 1; t <= t0 + 10 + 96; t++)
            n += tw_advance(tw, t);
        ASSERT_EQ_INT(n, NKEYS);
    } else {
        ASSERT_EQ_INT(tw_advance(tw, latest_fire(c->scheme, t0, t0 + 10 + 96)), NKEYS);
    }
    for (int i = 0; i < NKEYS; i++) {
        ASSERT_EQ_INT(k[i].calls, 1);
        if (scheme_exact(c->scheme))
            ASSERT_EQ_U64(k[i].at, t0 + 10 + (tw_time_t)(i % 97));
    }
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_CO_CHECK(co);
    /* the pool keeps its peak and is reused: no growth for as many again */
    size_t mem_peak = tw_callouts_memory(co);
    for (int i = 0; i < 2 * NKEYS; i++)
        ASSERT_OK(tw_timeout(co, hit_fn, &k[i / 2], (tw_time_t)i));
    ASSERT_EQ_U64(tw_callouts_memory(co), mem_peak);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 2 * NKEYS);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));
    free(k);
}

/* func cancels other callouts due in the same advance, and itself. */
static void case_cancel_in_func(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    tw_time_t t0 = tw_now(tw);

    /* a timeout and a handle due together cancel each other: one runs */
    struct hit x, y;
    hit_init(&x, tw, co);
    hit_init(&y, tw, co);
    struct tw_callout hc;
    tw_callout_init(&hc);
    x.action = H_UNSET;
    x.handle = &hc;
    y.action = H_UNTIMEOUT;
    y.other_fn = hit_fn;
    y.other = &x;
    ASSERT_OK(tw_timeout(co, hit_fn, &x, 10));
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &y, 10));
    ASSERT_EQ_INT(tw_advance(tw, t0 + 100), 1);
    ASSERT_EQ_INT(x.calls + y.calls, 1);
    ASSERT_EQ_INT(x.calls ? x.rc : y.rc, 1);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);

    /* two timeouts of one key due together; the first to run untimeouts
     * its key: cancels the other, which never runs */
    struct hit d;
    hit_init(&d, tw, co);
    d.action = H_UNTIMEOUT;
    d.other_fn = hit_fn;
    d.other = &d;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_timeout(co, hit_fn, &d, 7));
    ASSERT_OK(tw_timeout(co, hit_fn, &d, 7));
    ASSERT_EQ_INT(tw_advance(tw, now + 50), 1);
    ASSERT_EQ_INT(d.calls, 1);
    ASSERT_EQ_INT(d.rc, 1);
    ASSERT_EQ_U64(d.count_in_fn, 1); /* the other, still pending then */
    /* alone, its own untimeout finds nothing: it is no longer pending */
    ASSERT_OK(tw_timeout(co, hit_fn, &d, 3));
    ASSERT_EQ_INT(tw_advance(tw, now + 100), 1);
    ASSERT_EQ_INT(d.calls, 2);
    ASSERT_EQ_INT(d.rc, 0);
    /* its own untimeout cancels a later duplicate */
    now = tw_now(tw);
    ASSERT_OK(tw_timeout(co, hit_fn, &d, 500));
    ASSERT_OK(tw_timeout(co, hit_fn, &d, 5));
    ASSERT_EQ_INT(tw_advance(tw, now + 100), 1);
    ASSERT_EQ_INT(d.rc, 1);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_INT(d.calls, 3);

    /* a handle unsets itself from its func: 0 (it is running, not pending) */
    struct hit s;
    hit_init(&s, tw, co);
    s.action = H_UNSET;
    s.handle = &hc;
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &s, 0));
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 1);
    ASSERT_EQ_INT(s.rc, 0);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));
}

/* func sets callouts again: interval 0 runs at the next advance, never
 * loops inside this one. */
static void case_retimeout_in_func(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    tw_time_t t0 = tw_now(tw);

    struct hit a;
    hit_init(&a, tw, co);
    a.action = H_TIMEOUT;
    a.other_fn = hit_fn;
    a.other = &a;
    a.ticks = 0;
    a.budget = 5;
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 3));
    ASSERT_EQ_INT(tw_advance(tw, t0 + 3), 1);
    for (int i = 2; i <= 6; i++) {
        ASSERT_EQ_INT(tw_advance(tw, t0 + 3), 1);
        ASSERT_EQ_INT(a.calls, i);
        ASSERT_OK(a.rc);
        ASSERT_CO_CHECK(co);
    }
    ASSERT_EQ_INT(tw_advance(tw, t0 + 3), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);

    /* every 7 ticks (exact for short intervals on every scheme) */
    a.ticks = 7;
    a.budget = 3;
    a.calls = 0;
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 7));
    for (tw_time_t t = now + 1; t <= now + 40; t++) {
        ASSERT_GE_INT(tw_advance(tw, t), 0);
        if (scheme_exact(c->scheme) && a.calls > 0)
            ASSERT_EQ_U64((a.at - now) % 7, 0);
    }
    ASSERT_EQ_INT(a.calls, 4);

    /* a handle re-sets itself with interval 0, and with another func */
    struct hit h;
    hit_init(&h, tw, co);
    struct tw_callout hc;
    tw_callout_init(&hc);
    h.action = H_SET;
    h.handle = &hc;
    h.other_fn = hit_fn2;
    h.other = &h;
    h.ticks = 0;
    h.budget = 3;
    now = tw_now(tw);
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &h, 2));
    ASSERT_EQ_INT(tw_advance(tw, now + 2), 1);
    ASSERT_EQ_INT(h.calls, 1);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 1);
    ASSERT_CO_CHECK(co);
    for (int i = 1; i <= 3; i++) {
        ASSERT_EQ_INT(tw_advance(tw, now + 2), 1);
        ASSERT_EQ_INT(h.calls2, i);
    }
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_INT(h.calls, 1);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));
}

/* Handles: re-arming, reuse, free inside func, and untimeout never
 * touching them. */
static void case_handles(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    tw_time_t t0 = tw_now(tw);
    struct hit a, b;
    hit_init(&a, tw, co);
    hit_init(&b, tw, co);
    struct tw_callout hc;
    tw_callout_init(&hc);
    ASSERT_EQ_U64(sizeof(void *) == 8 ? sizeof hc : 72, 72);

    /* re-arm a pending handle with a new func, arg and deadline */
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &a, 10));
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn2, &b, 20));
    ASSERT_EQ_U64(tw_count(tw), 1);
    ASSERT_CO_CHECK(co);
    /* a timeout and the handle with the same (func, arg) */
    ASSERT_OK(tw_timeout(co, hit_fn2, &b, 30));
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn2, &b), 1); /* the timeout */
    ASSERT_EQ_INT(tw_untimeout(co, hit_fn2, &b), 0); /* not the handle */
    ASSERT_EQ_INT(tw_callout_pending(&hc), 1);
    ASSERT_EQ_INT(tw_advance(tw, due_by(c, t0, 20)), 1);
    ASSERT_EQ_INT(a.calls + a.calls2, 0);
    ASSERT_EQ_INT(b.calls, 0);
    ASSERT_EQ_INT(b.calls2, 1);
    if (scheme_exact(c->scheme))
        ASSERT_EQ_U64(b.at, t0 + 20);
    /* reuse after it ran */
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &a, 1));
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 1);
    ASSERT_EQ_INT(a.calls, 1);

    /* a malloc'd handle freed by its own func, among others */
    struct tw_callouts *co2 = co_create(tw);
    ASSERT_NOT_NULL(co2);
    tw_time_t now = tw_now(tw);
    struct tw_callout *m[8];
    struct hit f[8];
    for (int i = 0; i < 8; i++) {
        m[i] = malloc(sizeof *m[i]);
        ASSERT_NOT_NULL(m[i]);
        tw_callout_init(m[i]);
        hit_init(&f[i], tw, co2);
        f[i].action = H_FREE_HANDLE;
        f[i].handle = m[i];
        ASSERT_OK(tw_setcallout(co2, m[i], hit_fn, &f[i], 0));
    }
    ASSERT_CO_CHECK(co2);
    ASSERT_EQ_INT(tw_advance(tw, now), 8);
    ASSERT_CO_CHECK(co2);
    for (int i = 0; i < 8; i++)
        ASSERT_NULL(f[i].handle);
    tw_callouts_destroy(co2);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw));
}

/* Two contexts on one facility are independent. */
static void case_two_contexts(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *c1 = co_create(tw), *c2 = co_create(tw);
    ASSERT_NOT_NULL(c1);
    ASSERT_NOT_NULL(c2);
    struct hit a;
    hit_init(&a, tw, NULL);
    ASSERT_OK(tw_timeout(c1, hit_fn, &a, 5));
    ASSERT_OK(tw_timeout(c2, hit_fn, &a, 6));
    ASSERT_EQ_INT(tw_untimeout(c1, hit_fn, &a), 1);
    ASSERT_EQ_INT(tw_untimeout(c1, hit_fn, &a), 0);
    ASSERT_EQ_U64(tw_callouts_count(c2), 1);
    ASSERT_OK(tw_timeout(c1, hit_fn, &a, 7));
    tw_callouts_destroy(c1);
    ASSERT_EQ_U64(tw_count(tw), 1);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 1);
    ASSERT_EQ_INT(a.calls, 1);
    ASSERT_CO_CHECK(c2);
    tw_callouts_destroy(c2);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
}


/* A handle set through one context and then another is the second one's:
 * destroying the first leaves it pending, destroying the second cancels
 * it, and it can be freed then. */
static void case_handle_moves(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *c1 = co_create(tw), *c2 = co_create(tw);
    ASSERT_NOT_NULL(c1);
    ASSERT_NOT_NULL(c2);
    struct hit a;
    hit_init(&a, tw, NULL);
    struct tw_callout *h = malloc(sizeof *h), *k = malloc(sizeof *k);
    ASSERT_NOT_NULL(h);
    ASSERT_NOT_NULL(k);
    tw_callout_init(h);
    tw_callout_init(k);
    ASSERT_OK(tw_setcallout(c1, h, hit_fn, &a, 10));
    ASSERT_OK(tw_setcallout(c2, h, hit_fn, &a, 20)); /* re-armed through c2: c2's now */
    ASSERT_OK(tw_setcallout(c2, k, hit_fn, &a, 30));
    ASSERT_OK(tw_setcallout(c1, k, hit_fn, &a, 40)); /* and k is c1's */
    ASSERT_CO_CHECK(c1);
    ASSERT_CO_CHECK(c2);
    tw_callouts_destroy(c2);
    ASSERT_EQ_INT(tw_callout_pending(h), 0);
    ASSERT_EQ_INT(tw_callout_pending(k), 1);
    ASSERT_EQ_U64(tw_count(tw), 1);
    free(h); /* idle: nothing refers to it */
    ASSERT_CO_CHECK(c1);
    ASSERT_CHECK(tw);
    tw_callouts_destroy(c1);
    ASSERT_EQ_INT(tw_callout_pending(k), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_INT(a.calls, 0);
    free(k);
    ASSERT_OK(tw_destroy(tw));
}

/* The pull form and the facility's destroy are refused (TW_EBUSY, nothing
 * done) while a context is on the facility: its callouts run from
 * tw_advance() only, and a destroyed facility would leave it dangling. */
static void case_facility_busy(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    struct hit a;
    hit_init(&a, tw, co);
    struct tw_callout h;
    tw_callout_init(&h);
    struct ttimer x;
    tt_init(&x, 1);
    tw_time_t now = tw_now(tw);
    ASSERT_OK(tw_timeout(co, hit_fn, &a, 0));
    ASSERT_OK(tw_setcallout(co, &h, hit_fn, &a, 0));
    ASSERT_OK(tw_start(tw, &x.node, 0));
    ASSERT_EQ_INT(tw_collect(tw, now), TW_EBUSY);
    ASSERT_NULL(tw_get_expired(tw));
    ASSERT_EQ_U64(tw_now(tw), now);
    ASSERT_EQ_U64(tw_count(tw), 3);
    ASSERT_EQ_INT(tw_callout_pending(&h), 1);
    ASSERT_EQ_INT(tw_destroy(tw), TW_EBUSY);
    ASSERT_EQ_U64(tw_count(tw), 3);
    ASSERT_CO_CHECK(co);
    ASSERT_CHECK(tw);
    /* the advance runs them all */
    ASSERT_EQ_INT(tw_advance(tw, now), 3);
    ASSERT_EQ_INT(a.calls, 2);
    ASSERT_EQ_INT(x.fired, 1);
    /* without a context, the pull form works again */
    tw_callouts_destroy(co);
    ASSERT_OK(tw_start(tw, &x.node, 0));
    ASSERT_EQ_INT(tw_collect(tw, now), 1);
    ASSERT_TRUE(tw_get_expired(tw) == &x.node);
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------------------ bad input */

static void case_bad_input(struct ctx *c)
{
    hit_total = 0;
    struct tw *tw = test_create(c);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *out = CO_SENTINEL;
    ASSERT_EQ_RC(tw_callouts_init(NULL, tw), TW_EINVAL);
    ASSERT_EQ_RC(tw_callouts_init(&out, NULL), TW_EINVAL);
    ASSERT_EQ_PTR(out, CO_SENTINEL);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    struct hit a;
    hit_init(&a, tw, co);
    struct tw_callout hc;
    tw_callout_init(&hc);

    ASSERT_EQ_RC(tw_timeout(NULL, hit_fn, &a, 1), TW_EINVAL);
    ASSERT_EQ_RC(tw_timeout(co, NULL, &a, 1), TW_EINVAL);
    ASSERT_EQ_RC(tw_untimeout(NULL, hit_fn, &a), TW_EINVAL);
    ASSERT_EQ_RC(tw_untimeout(co, NULL, &a), TW_EINVAL);
    ASSERT_EQ_RC(tw_setcallout(NULL, &hc, hit_fn, &a, 1), TW_EINVAL);
    ASSERT_EQ_RC(tw_setcallout(co, NULL, hit_fn, &a, 1), TW_EINVAL);
    ASSERT_EQ_RC(tw_setcallout(co, &hc, NULL, &a, 1), TW_EINVAL);
    ASSERT_EQ_RC(tw_unsetcallout(NULL, &hc), TW_EINVAL);
    ASSERT_EQ_RC(tw_unsetcallout(co, NULL), TW_EINVAL);
    ASSERT_EQ_RC(tw_callouts_check(NULL, NULL, 0), TW_EINVAL);
    ASSERT_EQ_U64(tw_callouts_count(NULL), 0);
    ASSERT_EQ_U64(tw_callouts_memory(NULL), 0);
    ASSERT_EQ_INT(tw_callout_pending(NULL), 0);
    tw_callouts_destroy(NULL);
    tw_callout_init(NULL);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 0);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_U64(tw_callouts_count(co), 0);

    /* a callout never initialised */
    struct tw_callout junk;
    memset(&junk, 0xa5, sizeof junk);
    ASSERT_EQ_RC(tw_setcallout(co, &junk, hit_fn, &a, 1), TW_ENOTINIT);
    ASSERT_EQ_RC(tw_unsetcallout(co, &junk), TW_ENOTINIT);
    memset(&junk, 0, sizeof junk);
    ASSERT_EQ_RC(tw_setcallout(co, &junk, hit_fn, &a, 1), TW_ENOTINIT);
    ASSERT_EQ_U64(tw_count(tw), 0);

    /* pending through a context on another facility */
    struct tw *tw2 = test_create(c);
    ASSERT_NOT_NULL(tw2);
    struct tw_callouts *co2 = co_create(tw2);
    ASSERT_NOT_NULL(co2);
    ASSERT_OK(tw_setcallout(co, &hc, hit_fn, &a, 9));
    tw_time_t d = tw_timer_deadline(&hc.timer);
    ASSERT_EQ_RC(tw_setcallout(co2, &hc, hit_fn2, &a, 3), TW_EOWNER);
    ASSERT_EQ_RC(tw_unsetcallout(co2, &hc), TW_EOWNER);
    ASSERT_EQ_INT(tw_callout_pending(&hc), 1);
    ASSERT_EQ_U64(tw_timer_deadline(&hc.timer), d);
    ASSERT_EQ_U64(tw_count(tw2), 0);
    ASSERT_CO_CHECK(co);
    ASSERT_CO_CHECK(co2);

    /* out of range (wheel) changes nothing; elsewhere it saturates */
    size_t mem = tw_callouts_memory(co);
    tw_time_t maxi = tw_max_interval(tw);
    if (maxi != TW_TIME_MAX) {
        ASSERT_EQ_RC(tw_timeout(co, hit_fn, &a, maxi + 1), TW_ERANGE);
        ASSERT_EQ_RC(tw_setcallout(co, &hc, hit_fn2, &a, maxi + 1), TW_ERANGE);
        ASSERT_EQ_U64(tw_timer_deadline(&hc.timer), d);
        ASSERT_EQ_U64(tw_callouts_count(co), 0);
        ASSERT_EQ_U64(tw_callouts_memory(co), mem);
        ASSERT_OK(tw_timeout(co, hit_fn, &a, maxi));
    } else {
        ASSERT_OK(tw_timeout(co, hit_fn, &a, TW_TIME_MAX));
    }
    ASSERT_EQ_U64(tw_callouts_count(co), 1);
    ASSERT_EQ_U64(tw_count(tw), 2);
    ASSERT_CHECK(tw);
    ASSERT_CO_CHECK(co);
    /* it all still works */
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 2);
    ASSERT_EQ_INT(a.calls, 2);
    ASSERT_EQ_INT(a.calls2, 0);
    tw_callouts_destroy(co2);
    tw_callouts_destroy(co);
    ASSERT_OK(tw_destroy(tw2));
    ASSERT_OK(tw_destroy(tw));
}

/* ------------------------------------------------------ allocation */

static void case_alloc_fail(struct ctx *c)
{
    enum { NH = 4, NK = 200 };
    for (int with_realloc = 0; with_realloc < 2; with_realloc++) {
        /* init: ENOMEM and *out untouched until enough calls succeed */
        int ok_at = -1;
        for (long k = 0; k < 8 && ok_at < 0; k++) {
            struct test_alloc ta;
            test_alloc_init(&ta, with_realloc);
            struct tw *tw = create_with(c, &ta);
            ASSERT_NOT_NULL(tw);
            ta.fail_after = k;
            struct tw_callouts *out = CO_SENTINEL;
            int rc = tw_callouts_init(&out, tw);
            ta.fail_after = -1;
            if (rc == 0) {
                ASSERT_EQ_U64(tw_callouts_memory(out), ta.outstanding - tw_memory(tw));
                ASSERT_CO_CHECK(out);
                tw_callouts_destroy(out);
                ok_at = (int)k;
            } else {
                ASSERT_EQ_RC(rc, TW_ENOMEM);
                ASSERT_EQ_PTR(out, CO_SENTINEL);
            }
            ASSERT_OK(tw_destroy(tw));
            check_alloc_clean(&ta);
            RETURN_IF_FAILED();
        }
        ASSERT_GT_INT(ok_at, 0);

        /* timeouts: the pool runs dry; nothing changes; then it works */
        struct test_alloc ta;
        test_alloc_init(&ta, with_realloc);
        struct tw *tw = create_with(c, &ta);
        ASSERT_NOT_NULL(tw);
        struct tw_callouts *co = co_create(tw);
        ASSERT_NOT_NULL(co);
        struct hit *k = malloc(NK * sizeof *k);
        ASSERT_NOT_NULL(k);
        for (int i = 0; i < NK; i++)
            hit_init(&k[i], tw, NULL);
        for (int i = 0; i < 40; i++)
            ASSERT_OK(tw_timeout(co, hit_fn, &k[i], 100 + (tw_time_t)i * 7));
        for (int i = 0; i < 40; i++)
            ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[i]), 1);
        ASSERT_EQ_U64(ta.outstanding, tw_memory(tw) + tw_callouts_memory(co));
        size_t mem = tw_callouts_memory(co);
        ta.fail_after = 0;
        int refused = -1;
        for (int i = 0; i < NK; i++) {
            size_t n0 = tw_callouts_count(co), p0 = tw_count(tw);
            size_t m0 = tw_callouts_memory(co), o0 = ta.outstanding;
            int rc = tw_timeout(co, hit_fn, &k[i], 100 + (tw_time_t)i * 7);
            if (rc == TW_ENOMEM) {
                refused = i;
                ASSERT_EQ_U64(tw_callouts_count(co), n0);
                ASSERT_EQ_U64(tw_count(tw), p0);
                ASSERT_EQ_U64(tw_callouts_memory(co), m0);
                ASSERT_EQ_U64(ta.outstanding, o0);
                ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[i]), 0);
                ASSERT_CHECK(tw);
                ASSERT_CO_CHECK(co);
                break;
            }
            ASSERT_OK(rc);
        }
        ASSERT_GE_INT(refused, 0);
        if (!scheme_allocates(c->scheme)) {
            /* the pool held 64 (16 + 16 + 32); table growth failed quietly */
            ASSERT_EQ_INT(refused, 64);
            ASSERT_EQ_U64(tw_callouts_memory(co), mem);
        }
        /* handles never allocate here; untimeout frees an entry to reuse */
        struct tw_callout hc[NH];
        struct hit hh[NH];
        unsigned long calls1 = ta.calls;
        for (int i = 0; i < NH; i++) {
            tw_callout_init(&hc[i]);
            hit_init(&hh[i], tw, NULL);
            int rc = tw_setcallout(co, &hc[i], hit_fn, &hh[i], 50 + (tw_time_t)i);
            if (rc == TW_ENOMEM && scheme_allocates(c->scheme))
                ASSERT_EQ_INT(tw_callout_pending(&hc[i]), 0);
            else
                ASSERT_OK(rc);
        }
        if (!scheme_allocates(c->scheme))
            ASSERT_EQ_U64(ta.calls, calls1);
        int was = tw_callout_pending(&hc[0]);
        ASSERT_EQ_INT(tw_unsetcallout(co, &hc[0]), was);
        ASSERT_CO_CHECK(co);
        if (refused > 0) {
            ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[0]), 1);
            int rc = tw_timeout(co, hit_fn, &k[refused], 5);
            if (!scheme_allocates(c->scheme))
                ASSERT_OK(rc);
            else if (rc != 0)
                ASSERT_EQ_RC(rc, TW_ENOMEM);
        }
        ASSERT_CHECK(tw);
        ASSERT_CO_CHECK(co);
        /* the allocator works again: everything else can be set */
        ta.fail_after = -1;
        for (int i = refused + 1; i < NK; i++)
            ASSERT_OK(tw_timeout(co, hit_fn, &k[i], 100 + (tw_time_t)i * 7));
        ASSERT_EQ_U64(ta.outstanding, tw_memory(tw) + tw_callouts_memory(co));
        ASSERT_CHECK(tw);
        ASSERT_CO_CHECK(co);
        /* run half of it with the allocator failing again */
        ta.fail_after = 0;
        ASSERT_GE_INT(tw_advance(tw, tw_now(tw) + 100 + NK * 7 / 2), 1);
        ASSERT_CHECK(tw);
        ASSERT_CO_CHECK(co);
        for (int i = 0; i < NK; i++)
            ASSERT_LE_INT(k[i].calls, 1);
        ta.fail_after = -1;
        /* destroyed with callouts pending: all memory back */
        tw_callouts_destroy(co);
        ASSERT_EQ_U64(ta.outstanding, tw_memory(tw));
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
        ASSERT_OK(tw_destroy(tw));
        check_alloc_clean(&ta);
        free(k);
        RETURN_IF_FAILED();
    }
}

/* ------------------------------------------------------ destroy */

static void case_destroy_pending(struct ctx *c)
{
    enum { N = 500, NH = 20 };
    hit_total = 0;
    struct test_alloc ta;
    test_alloc_init(&ta, 1);
    struct tw *tw = create_with(c, &ta);
    ASSERT_NOT_NULL(tw);
    struct tw_callouts *co = co_create(tw);
    ASSERT_NOT_NULL(co);
    tw_time_t t0 = tw_now(tw);
    struct hit *k = malloc(N * sizeof *k);
    ASSERT_NOT_NULL(k);
    struct tw_callout hc[NH];
    struct hit hh[NH];
    for (int i = 0; i < N; i++) {
        hit_init(&k[i], tw, NULL);
        ASSERT_OK(tw_timeout(co, i % 2 ? hit_fn : hit_fn2, &k[i / 4],
                             cap_interval(tw, (tw_time_t)i * 31)));
    }
    for (int i = 0; i < NH; i++) {
        tw_callout_init(&hc[i]);
        hit_init(&hh[i], tw, NULL);
        ASSERT_OK(tw_setcallout(co, &hc[i], hit_fn, &hh[i], cap_interval(tw, (tw_time_t)i * 500)));
    }
    ASSERT_GE_INT(tw_advance(tw, t0 + 3000), 1);
    int ran = hit_total;
    ASSERT_GT_INT(tw_count(tw), 0);
    ASSERT_CO_CHECK(co);
    tw_callouts_destroy(co);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_U64(ta.outstanding, tw_memory(tw));
    for (int i = 0; i < NH; i++)
        ASSERT_EQ_INT(tw_callout_pending(&hc[i]), 0);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_EQ_INT(hit_total, ran);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
    check_alloc_clean(&ta);

    /* the handles are idle and work on another context */
    tw = create_with(c, &ta);
    ASSERT_NOT_NULL(tw);
    co = co_create(tw);
    ASSERT_NOT_NULL(co);
    for (int i = 0; i < NH; i++) {
        hh[i].calls = 0;
        hh[i].tw = tw;
        ASSERT_OK(tw_setcallout(co, &hc[i], hit_fn, &hh[i], (tw_time_t)i));
    }
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), NH);
    for (int i = 0; i < NH; i++)
        ASSERT_EQ_INT(hh[i].calls, 1);

    /* destroyed from inside a func, with more due in the same advance */
    t0 = tw_now(tw);
    hit_total = 0;
    struct hit boom;
    hit_init(&boom, tw, co);
    boom.action = H_DESTROY;
    for (int i = 0; i < N; i++) {
        hit_init(&k[i], tw, NULL);
        ASSERT_OK(tw_timeout(co, hit_fn, &k[i], 0));
    }
    for (int i = 0; i < NH; i++) {
        hh[i].calls = 0;
        ASSERT_OK(tw_setcallout(co, &hc[i], hit_fn, &hh[i], 0));
    }
    ASSERT_OK(tw_timeout(co, hit_fn, &boom, 0));
    for (int i = 0; i < N / 2; i++)
        ASSERT_EQ_INT(tw_untimeout(co, hit_fn, &k[i]), 1);
    int64_t fired = tw_advance(tw, t0);
    ASSERT_EQ_INT(boom.calls, 1);
    ASSERT_EQ_INT(fired, hit_total);
    ASSERT_LE_INT(hit_total, 1 + N / 2 + NH);
    ASSERT_EQ_U64(tw_count(tw), 0);
    ASSERT_EQ_U64(ta.outstanding, tw_memory(tw));
    for (int i = 0; i < N / 2; i++)
        ASSERT_EQ_INT(k[i].calls, 0);
    ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), 0);
    ASSERT_CHECK(tw);
    ASSERT_OK(tw_destroy(tw));
    check_alloc_clean(&ta);
    free(k);
}

/* ------------------------------------------------------ the model */

/*
 * The reference model.  Keys are (f[i], &args[j]) (j == NA: NULL) for
 * timeouts; each handle h calls handle_fn(&handles[h]).  Every pending
 * callout is an item; a call of func(arg) must match a live item of its key
 * that is due (deadline <= now) and was not set from a callback of this very
 * advance.  For duplicates of one key due in one advance the model may pick
 * a different one than the library ran first; that is harmless unless the
 * key is untimeout'ed later in the same advance (the library then cancels
 * the most recent duplicate still pending, which depends on which ran), so
 * from the first call of such a key on, callbacks of that advance leave the
 * key alone; once the advance is over every due duplicate has run and the
 * model is exact again.  hierarchical_coarse runs late, so there the model
 * keeps at most one pending timeout per key (no ambiguity at all).
 */
enum { NF = 3, NA = 31, NKEY = NF * (NA + 1), NHANDLE = 24, MAXITEMS = 1024 };

struct item {
    int live;
    int handle;             /* -1: a timeout of `key` */
    int key;
    tw_time_t deadline, latest;
    uint64_t seq;
    uint64_t epoch;         /* the advance during which it was set, if in_cb */
    int in_cb;
};

struct model {
    struct ctx *c;
    struct tw *tw;
    struct tw_callouts *co;
    struct rng rng;
    struct item it[MAXITEMS];
    int handle_item[NHANDLE];
    struct tw_callout handles[NHANDLE];
    int live_timeouts, live_handles;
    uint64_t seq;
    uint64_t advances;      /* advances begun */
    int in_advance;
    int64_t calls;          /* calls in the running advance */
    int unique;             /* at most one pending timeout per key */
    int dead;               /* context destroyed: no call may happen */
    uint64_t ambiguous[NKEY]; /* advance in which the key had >1 candidate */
    unsigned long n_fired, n_cancel, n_dup, n_cb_actions, pending_sum, pending_max;
};

static struct model *M;
static char args[NA];

static void key_fn(int fi, void *arg);
static void kf0(void *arg) { key_fn(0, arg); }
static void kf1(void *arg) { key_fn(1, arg); }
static void kf2(void *arg) { key_fn(2, arg); }
static tw_callout_fn *const kfs[NF] = {kf0, kf1, kf2};

static void *key_arg(int key)
{
    int a = key % (NA + 1);
    return a < NA ? &args[a] : NULL;
}

static tw_callout_fn *key_func(int key) { return kfs[key / (NA + 1)]; }

static int new_item(void)
{
    for (int i = 0; i < MAXITEMS; i++)
        if (!M->it[i].live)
            return i;
    return -1;
}

static tw_time_t rand_ticks(struct rng *r)
{
    unsigned p = (unsigned)rng_below(r, 100);
    tw_time_t t;
    if (p < 10)
        t = 0;
    else if (p < 40)
        t = 1 + rng_below(r, 64);
    else if (p < 70)
        t = 1 + rng_below(r, 5000);
    else if (p < 90)
        t = 1 + rng_below(r, 1u << 20);
    else
        t = rng_next(r) >> rng_below(r, 64);
    return cap_interval(M->tw, t);
}

static void add_item(int i, int handle, int key, tw_time_t ticks)
{
    struct item *x = &M->it[i];
    tw_time_t now = tw_now(M->tw);
    x->live = 1;
    x->handle = handle;
    x->key = key;
    x->deadline = sat_add(now, ticks);
    x->latest = latest_fire(M->c->scheme, now, x->deadline);
    x->seq = ++M->seq;
    x->in_cb = M->in_advance;
    x->epoch = M->advances;
}

static int live_timeout_of(int key)
{
    int best = -1;
    for (int i = 0; i < MAXITEMS; i++) {
        const struct item *x = &M->it[i];
        if (x->live && x->handle < 0 && x->key == key &&
            (best < 0 || x->seq > M->it[best].seq))
            best = i;
    }
    return best;
}

static void m_timeout(int key, tw_time_t ticks)
{
    int i = new_item();
    if (i < 0)
        return;
    int dup = live_timeout_of(key);
    if (dup >= 0 && M->unique)
        return;
    ASSERT_OK(tw_timeout(M->co, key_func(key), key_arg(key), ticks));
    add_item(i, -1, key, ticks);
    M->live_timeouts++;
    if (dup >= 0)
        M->n_dup++;
}

static void m_untimeout(int key)
{
    if (M->in_advance && M->ambiguous[key] == M->advances)
        return; /* which duplicate is cancelled depends on which ran */
    int i = live_timeout_of(key);
    ASSERT_EQ_INT(tw_untimeout(M->co, key_func(key), key_arg(key)), i >= 0);
    if (i >= 0) {
        M->it[i].live = 0;
        M->live_timeouts--;
        M->n_cancel++;
    }
}

static void handle_fn(void *arg);

static void m_set(int h, tw_time_t ticks)
{
    int old = M->handle_item[h];
    int i = new_item();
    if (i < 0)
        return;
    ASSERT_OK(tw_setcallout(M->co, &M->handles[h], handle_fn, &M->handles[h], ticks));
    if (old >= 0)
        M->it[old].live = 0;
    else
        M->live_handles++;
    add_item(i, h, h, ticks);
    M->handle_item[h] = i;
}

static void m_unset(int h)
{
    int i = M->handle_item[h];
    ASSERT_EQ_INT(tw_unsetcallout(M->co, &M->handles[h]), i >= 0);
    if (i >= 0) {
        M->it[i].live = 0;
        M->handle_item[h] = -1;
        M->live_handles--;
        M->n_cancel++;
    }
}

static void m_counts(void)
{
    ASSERT_EQ_U64(tw_callouts_count(M->co), (uint64_t)M->live_timeouts);
    ASSERT_EQ_U64(tw_count(M->tw), (uint64_t)(M->live_timeouts + M->live_handles));
    for (int h = 0; h < NHANDLE; h++)
        ASSERT_EQ_INT(tw_callout_pending(&M->handles[h]), M->handle_item[h] >= 0);
}

/* An item may run now: live, due, and not set from this advance's callbacks. */
static int may_run(const struct item *x, tw_time_t now)
{
    return x->deadline <= now && !(x->in_cb && x->epoch == M->advances);
}

/* What a func does after its call has been checked. */
static void m_action(int self_key, int self_handle)
{
    struct rng *r = &M->rng;
    unsigned p = (unsigned)rng_below(r, 100);
    if (p < 10 && self_key >= 0)
        m_timeout(self_key, rng_below(r, 40));
    else if (p < 10 && self_handle >= 0)
        m_set(self_handle, rng_below(r, 40));
    else if (p < 16)
        m_untimeout((int)rng_below(r, NKEY));
    else if (p < 21)
        m_timeout((int)rng_below(r, NKEY), rand_ticks(r));
    else if (p < 25)
        m_set((int)rng_below(r, NHANDLE), rng_below(r, 100));
    else if (p < 29)
        m_unset((int)rng_below(r, NHANDLE));
    else if (p < 31) {
        ASSERT_CHECK(M->tw);
        ASSERT_CO_CHECK(M->co);
    } else
        return;
    M->n_cb_actions++;
    m_counts();
}

static void key_fn(int fi, void *arg)
{
    ASSERT_FALSE(M->dead);
    ASSERT_TRUE(M->in_advance);
    int a = arg == NULL ? NA : (int)((char *)arg - args);
    ASSERT_TRUE(a >= 0 && a <= NA);
    int key = fi * (NA + 1) + a;
    tw_time_t now = tw_now(M->tw);
    /* the due item of this key that must run soonest (EDF matching) */
    int best = -1, candidates = 0;
    for (int i = 0; i < MAXITEMS; i++) {
        const struct item *x = &M->it[i];
        if (x->live && x->handle < 0 && x->key == key && may_run(x, now)) {
            candidates++;
            if (best < 0 || x->latest < M->it[best].latest)
                best = i;
        }
    }
    if (candidates > 1)
        M->ambiguous[key] = M->advances;
    if (best < 0) {
        test_fail(__FILE__, __LINE__, "unexpected call of key %d at %" PRIu64, key, now);
        return;
    }
    ASSERT_LE_U64(M->it[best].deadline, now);
    M->it[best].live = 0;
    M->live_timeouts--;
    M->calls++;
    M->n_fired++;
    m_counts(); /* removed before func ran */
    RETURN_IF_FAILED();
    m_action(key, -1);
}

static void handle_fn(void *arg)
{
    ASSERT_FALSE(M->dead);
    ASSERT_TRUE(M->in_advance);
    int h = (int)((struct tw_callout *)arg - M->handles);
    ASSERT_TRUE(h >= 0 && h < NHANDLE);
    tw_time_t now = tw_now(M->tw);
    int i = M->handle_item[h];
    if (i < 0) {
        test_fail(__FILE__, __LINE__, "unexpected call of handle %d at %" PRIu64, h, now);
        return;
    }
    ASSERT_TRUE(may_run(&M->it[i], now));
    M->it[i].live = 0;
    M->handle_item[h] = -1;
    M->live_handles--;
    M->calls++;
    M->n_fired++;
    m_counts();
    RETURN_IF_FAILED();
    m_action(-1, h);
}

static void m_advance(tw_time_t to)
{
    M->advances++;
    M->in_advance = 1;
    M->calls = 0;
    int64_t rc = tw_advance(M->tw, to);
    M->in_advance = 0;
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(rc, M->calls);
    /* nothing that had to run by now is still pending */
    for (int i = 0; i < MAXITEMS; i++) {
        const struct item *x = &M->it[i];
        if (x->live && !(x->in_cb && x->epoch == M->advances) && x->latest <= to) {
            test_fail(__FILE__, __LINE__,
                      "%s %d due at %" PRIu64 " (by %" PRIu64 ") has not run at %" PRIu64,
                      x->handle < 0 ? "timeout of key" : "handle",
                      x->handle < 0 ? x->key : x->handle, x->deadline, x->latest, to);
            return;
        }
    }
}

static void model_run(struct ctx *c, uint64_t seed, unsigned long steps)
{
    struct model *m = calloc(1, sizeof *m);
    ASSERT_NOT_NULL(m);
    M = m;
    m->c = c;
    c->seed = seed;
    rng_seed(&m->rng, seed);
    m->unique = !scheme_exact(c->scheme);
    m->tw = test_create(c);
    ASSERT_NOT_NULL(m->tw);
    m->co = co_create(m->tw);
    ASSERT_NOT_NULL(m->co);
    for (int h = 0; h < NHANDLE; h++) {
        tw_callout_init(&m->handles[h]);
        m->handle_item[h] = -1;
    }
    struct rng *r = &m->rng;
    for (unsigned long s = 1; s <= steps; s++) {
        c->step = s;
        unsigned p = (unsigned)rng_below(r, 100);
        int crowded = m->live_timeouts + m->live_handles > MAXITEMS / 2;
        if (p < 38 && !crowded) {
            m_timeout((int)rng_below(r, NKEY), rand_ticks(r));
        } else if (p < 55) {
            m_untimeout((int)rng_below(r, NKEY));
        } else if (p < 65) {
            m_set((int)rng_below(r, NHANDLE), rand_ticks(r));
        } else if (p < 72) {
            m_unset((int)rng_below(r, NHANDLE));
        } else {
            unsigned q = (unsigned)rng_below(r, 1000);
            tw_time_t step = q < 250   ? 0
                             : q < 700 ? 1 + rng_below(r, 16)
                             : q < 950 ? 1 + rng_below(r, 256)
                             : q < 998 ? 1 + rng_below(r, 1u << 16)
                                       : 1 + rng_below(r, 1ull << 40);
            /* once, late in the run: the end of time */
            if (s == steps - steps / 10)
                step = TW_TIME_MAX;
            m_advance(sat_add(tw_now(m->tw), step));
        }
        RETURN_IF_FAILED();
        ASSERT_CHECK(m->tw);
        ASSERT_CO_CHECK(m->co);
        m_counts();
        RETURN_IF_FAILED();
        unsigned long pending = (unsigned long)(m->live_timeouts + m->live_handles);
        m->pending_sum += pending;
        if (pending > m->pending_max)
            m->pending_max = pending;
    }
    c->step = 0;
    if (test_verbose)
        test_note("callout model %s seed %" PRIu64 ": %lu run, %lu cancelled, %lu "
                  "duplicates, %lu actions in func, pending %lu on average, %lu at most, "
                  "%lu at the end",
                  c->scheme_name, seed, m->n_fired, m->n_cancel, m->n_dup,
                  m->n_cb_actions, m->pending_sum / (steps ? steps : 1), m->pending_max,
                  (unsigned long)(m->live_timeouts + m->live_handles));
    /* destroyed with callouts pending: none of them ever runs */
    tw_callouts_destroy(m->co);
    m->dead = 1;
    ASSERT_EQ_U64(tw_count(m->tw), 0);
    for (int h = 0; h < NHANDLE; h++)
        ASSERT_EQ_INT(tw_callout_pending(&m->handles[h]), 0);
    m->in_advance = 1;
    ASSERT_EQ_INT(tw_advance(m->tw, TW_TIME_MAX), 0);
    ASSERT_CHECK(m->tw);
    ASSERT_OK(tw_destroy(m->tw));
    M = NULL;
    free(m);
}

static void case_model(struct ctx *c)
{
    unsigned seeds = test_diff_seeds ? test_diff_seeds : 1;
    for (unsigned i = 0; i < seeds; i++) {
        model_run(c, 0xca11ull * 1000 + i, test_diff_steps);
        RETURN_IF_FAILED();
    }
}

/* ---------------------------------------------------------------- suite */

const struct test_case test_suite_callout[] = {
    {"basic", case_basic, 1},
    {"duplicates", case_duplicates, 1},
    {"cancel_in_func", case_cancel_in_func, 1},
    {"retimeout_in_func", case_retimeout_in_func, 1},
    {"handles", case_handles, 1},
    {"two_contexts", case_two_contexts, 0},
    {"handle_moves", case_handle_moves, 0},
    {"facility_busy", case_facility_busy, 0},
    {"bad_input", case_bad_input, 0},
    {"alloc_fail", case_alloc_fail, 0},
    {"destroy_pending", case_destroy_pending, 1},
    {"model", case_model, 1},
};
const size_t test_suite_callout_count = sizeof test_suite_callout / sizeof test_suite_callout[0];
