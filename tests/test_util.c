/*
 * test_util.c -- helpers the suites share: what each scheme promises
 * (exactness, FIFO, the latest firing time), facility creation, a counting
 * and failing allocator, and the recording timer of the edge cases.
 */
#include "test.h"

#include "scheme.h" /* the schemes' traits: internal */

#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- schemes */

int scheme_exact(enum tw_scheme s) { return !tw_schemes[s]->keeps_late; }

int scheme_fifo(enum tw_scheme s)
{
    switch (tw_schemes[s]->order) {
    case TW_ORDER_DEADLINE:
        return 2;
    case TW_ORDER_EQUAL_FIFO:
        return 1;
    default:
        return 0;
    }
}

int scheme_allocates(enum tw_scheme s) { return tw_schemes[s]->reserve != NULL; }

int scheme_takes_hints(enum tw_scheme s) { return tw_schemes[s]->hint != NULL; }

uint32_t scheme_options(enum tw_scheme s) { return tw_schemes[s]->options; }

tw_time_t latest_fire_slots(enum tw_scheme s, uint32_t slots, tw_time_t start_now,
                            tw_time_t deadline)
{
    const struct tw_ops *ops = tw_schemes[s];
    if (!ops->keeps_late || ops->latest_fire == NULL)
        return deadline;
    struct tw_config cfg;
    tw_config_init(&cfg, s);
    cfg.slots = slots;
    return ops->latest_fire(&cfg, start_now, deadline);
}

tw_time_t latest_fire(enum tw_scheme s, tw_time_t start_now, tw_time_t deadline)
{
    struct tw_config def;
    if (tw_config_init(&def, s) != 0)
        return deadline;
    return latest_fire_slots(s, def.slots, start_now, deadline);
}

struct tw *test_create(struct ctx *c)
{
    struct tw *tw = NULL;
    int rc = tw_create(&tw, &c->cfg);
    if (rc != 0 || tw == NULL) {
        test_fail(__FILE__, __LINE__, "tw_create(%s) returned %d (%s)", c->scheme_name,
                  rc, tw_err_name(rc));
        return NULL;
    }
    return tw;
}

tw_time_t cap_interval(const struct tw *tw, tw_time_t interval)
{
    return min_u64(interval, tw_max_interval(tw));
}

/* ----------------------------------------------------------- allocators */

static void *ta_track(struct test_alloc *ta, void *p, size_t size)
{
    if (p == NULL)
        return NULL;
    if (ta->nblocks < TEST_ALLOC_MAX_BLOCKS) {
        ta->blocks[ta->nblocks].p = p;
        ta->blocks[ta->nblocks].size = size;
        ta->nblocks++;
    }
    ta->outstanding += size;
    if (ta->outstanding > ta->peak)
        ta->peak = ta->outstanding;
    return p;
}

/* Forget `p`, checking the size the library says it has; returns the size
 * it was handed out with (or `size` for an unknown pointer). */
static size_t ta_untrack(struct test_alloc *ta, void *p, size_t size)
{
    for (size_t i = 0; i < ta->nblocks; i++) {
        if (ta->blocks[i].p == p) {
            size_t had = ta->blocks[i].size;
            if (had != size)
                ta->size_errors++;
            ta->outstanding -= had;
            ta->blocks[i] = ta->blocks[--ta->nblocks];
            return had;
        }
    }
    ta->unknown_ptrs++;
    return size;
}

static int ta_may(struct test_alloc *ta)
{
    ta->calls++;
    if (ta->fail_after < 0)
        return 1;
    if (ta->fail_after == 0)
        return 0;
    ta->fail_after--;
    return 1;
}

static void *ta_alloc(void *vctx, size_t size)
{
    struct test_alloc *ta = vctx;
    if (!ta_may(ta))
        return NULL;
    return ta_track(ta, malloc(size), size);
}

static void *ta_realloc(void *vctx, void *p, size_t old_size, size_t new_size)
{
    struct test_alloc *ta = vctx;
    if (!ta_may(ta))
        return NULL;
    size_t had = p ? ta_untrack(ta, p, old_size) : 0;
    void *q = realloc(p, new_size);
    if (q == NULL) {
        ta_track(ta, p, had); /* p is still the caller's */
        return NULL;
    }
    return ta_track(ta, q, new_size);
}

static void ta_free(void *vctx, void *p, size_t size)
{
    struct test_alloc *ta = vctx;
    if (p == NULL)
        return;
    ta->frees++;
    ta_untrack(ta, p, size);
    free(p);
}

void test_alloc_init(struct test_alloc *ta, int with_realloc)
{
    memset(ta, 0, sizeof *ta);
    ta->a.alloc_fn = ta_alloc;
    ta->a.realloc_fn = with_realloc ? ta_realloc : NULL;
    ta->a.free_fn = ta_free;
    ta->a.ctx = ta;
    ta->fail_after = -1;
}

/* ------------------------------------------------------ recording timer */

struct fire_log test_log;

void test_log_reset(void)
{
    test_log.n = 0;
}

struct ttimer *test_log_first(struct ttimer *a, struct ttimer *b)
{
    for (int i = 0; i < test_log.n; i++) {
        if (test_log.ids[i] == a->id)
            return a;
        if (test_log.ids[i] == b->id)
            return b;
    }
    return NULL;
}

void tt_init(struct ttimer *x, int id)
{
    memset(x, 0, sizeof *x);
    tw_timer_init(&x->node, tt_cb);
    x->id = id;
    x->budget = -1;
}

void tt_cb(struct tw *tw, struct tw_timer *t)
{
    struct ttimer *x = tt_of(t);
    x->fired++;
    x->fired_at = tw_now(tw);
    if (test_log.n < TEST_LOG_MAX) {
        test_log.ids[test_log.n] = x->id;
        test_log.at[test_log.n] = x->fired_at;
        test_log.n++;
    }
    if (x->budget == 0)
        return;
    if (x->budget > 0)
        x->budget--;
    switch (x->action) {
    case ACT_NONE:
        break;
    case ACT_STOP_SELF:
        x->rc = tw_stop(tw, t);
        break;
    case ACT_STOP_OTHER:
        x->rc = tw_stop(tw, &x->other->node);
        break;
    case ACT_RESTART_SELF:
        x->rc = tw_start(tw, t, x->arg);
        break;
    case ACT_RESTART_SELF_AT:
        x->rc = tw_start_at(tw, t, x->arg);
        break;
    case ACT_RESTART_OTHER:
        x->rc = tw_start(tw, &x->other->node, x->arg);
        break;
    case ACT_FREE_SELF:
        free(x); /* the library must not touch it again */
        break;
    case ACT_REENTER:
        x->rc_advance = tw_advance(tw, tw_now(tw));
        x->rc_advance_later = tw_advance(tw, sat_add(tw_now(tw), 1));
        x->rc_collect = tw_collect(tw, tw_now(tw));
        x->rc_destroy = tw_destroy(tw);
        x->rc_tw2 = x->tw2 ? tw_advance(x->tw2, x->tw2_now) : 0;
        break;
    case ACT_INSPECT:
        x->rc_check = tw_check(tw, x->check_msg, sizeof x->check_msg);
        x->rc_next = tw_next_expiry(tw, &x->next);
        x->count_in_cb = tw_count(tw);
        x->pending_in_cb = tw_timer_pending(t);
        x->deadline_in_cb = tw_timer_deadline(t);
        x->other_pending_in_cb = x->other ? tw_timer_pending(&x->other->node) : -1;
        break;
    }
}
