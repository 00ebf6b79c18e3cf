/*
 * peer_refwheel.c -- refwheel (refwheel.c), the lean hierarchical wheel
 * written here from the paper, as a twbench target: the yardstick of what
 * an embedded wheel costs, beside the event loops' heaps.
 *
 * refwheel is called directly, as a program that embeds a wheel calls it:
 * no event loop, no clock and no poll.  Its ticks are the workload's ticks
 * (one tick is one tick), and a start of interval d is rw_start() with the
 * deadline now + d.  It fires a timer in the first advance that reaches the
 * deadline, as twheel does (not one tick late, as libev does).  A restart
 * of a pending timer (restart, idle) is rw_stop() + rw_start(): refwheel
 * has no call of its own for it, as a lean wheel would not.
 *
 * Memory: nodes are sizeof(struct rw_timer), 32 bytes; the facility is the
 * wheel, sizeof(struct rw_wheel), allocated once by the driver; refwheel
 * itself allocates nothing.  Always built: it needs no library.
 */
#define _GNU_SOURCE

#include "bench.h"
#include "refwheel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ driver */

/* The user's struct: the node and one pointer of user data, as for the
 * other targets. */
struct rnode {
    struct rw_timer t;
    void *user;
};

struct drv {
    struct rw_wheel *w;
    struct rnode *nodes;
    size_t count;
};

static void rnode_fired(struct rw_wheel *w, struct rw_timer *t)
{
    struct rnode *b = (struct rnode *)(void *)((char *)t - offsetof(struct rnode, t));
    struct wl_ctx *c = b->user;
    wl_fired(c, (size_t)(b - (const struct rnode *)c->nodes));
    if (c->rearm)
        rw_start(w, t, w->now + rng_range(&c->rng, c->lo, c->hi));
}

static int drv_open(struct drv *d, const struct wl_spec *s, size_t nodes, struct wl_ctx *c)
{
    (void)s;
    d->w = malloc(sizeof *d->w);
    d->count = nodes;
    d->nodes = calloc(nodes ? nodes : 1, sizeof *d->nodes);
    if (d->w == NULL || d->nodes == NULL)
        bench_die("out of memory for %zu nodes", nodes);
    rw_init(d->w, 0);
    for (size_t i = 0; i < nodes; i++) {
        rw_timer_init(&d->nodes[i].t, rnode_fired);
        d->nodes[i].user = c;
    }
    c->nodes = d->nodes;
    return 0;
}

static void drv_close(struct drv *d)
{
    free(d->w);
    free(d->nodes);
}

static inline void drv_start(struct drv *d, size_t i, uint64_t interval)
{
    rw_start(d->w, &d->nodes[i].t, d->w->now + interval);
}

static inline void drv_stop(struct drv *d, size_t i)
{
    struct rw_timer *t = &d->nodes[i].t;
    if (__builtin_expect(!rw_pending(t), 0))
        bench_die("refwheel: stopping a timer that is not pending");
    rw_stop(t);
}

static inline void drv_restart(struct drv *d, size_t i, uint64_t interval)
{
    drv_stop(d, i);
    drv_start(d, i, interval);
}

static inline void drv_advance(struct drv *d, uint64_t now)
{
    rw_advance(d->w, now);
}

static size_t drv_node_bytes(void) { return sizeof(struct rw_timer); }

static size_t drv_facility_bytes(struct drv *d)
{
    (void)d;
    return sizeof(struct rw_wheel);
}

/* The whole structure, against the placement rule of refwheel.c: every
 * list well linked; every timer pending, of the user's array, in the slot
 * its deadline gives against now (a deadline not after now counts as
 * now + 1), each once; a bit set for every slot that holds timers; the
 * due list empty; rw_next_deadline() the earliest deadline. */
static void drv_check(struct drv *d, const char *when)
{
    struct rw_wheel *w = d->w;
    const uint64_t now = w->now;
    uint64_t min = UINT64_MAX;
    size_t count = 0;
    if (w->due.next != &w->due || w->due.prev != &w->due)
        bench_die("refwheel %s: the due list is not empty between advances", when);
    for (unsigned l = 0; l < RW_LEVELS; l++)
        for (unsigned s = 0; s < RW_SLOTS; s++) {
            const struct rw_timer *head = &w->slot[l][s];
            if (head->next != head && !(w->occ[l] >> s & 1))
                bench_die("refwheel %s: slot %u of level %u holds timers, its bit is clear",
                          when, s, l);
            const struct rw_timer *p = head;
            for (const struct rw_timer *t = head->next;; p = t, t = t->next) {
                if (t == NULL || t->prev != p)
                    bench_die("refwheel %s: slot %u of level %u is badly linked", when, s, l);
                if (t == head)
                    break;
                const struct rnode *b = (const struct rnode *)(const void *)t;
                if (b < d->nodes || b >= d->nodes + d->count || ++count > d->count)
                    bench_die("refwheel %s: slot %u of level %u holds a stranger", when, s, l);
                uint64_t at = t->deadline > now ? t->deadline : now + 1;
                unsigned lv = (unsigned)(63 - __builtin_clzll(at ^ now)) / RW_BITS;
                if (lv != l || ((at >> (lv * RW_BITS)) & (RW_SLOTS - 1)) != s)
                    bench_die("refwheel %s: deadline %llu (now %llu) in slot %u of level %u",
                              when, (unsigned long long)t->deadline, (unsigned long long)now, s,
                              l);
                min = t->deadline < min ? t->deadline : min;
            }
        }
    size_t pending = 0;
    for (size_t i = 0; i < d->count; i++)
        pending += rw_pending(&d->nodes[i].t) != 0;
    if (pending != count)
        bench_die("refwheel %s: %zu timers pending, %zu in the slots", when, pending, count);
    uint64_t next;
    int have = rw_next_deadline(w, &next);
    if (have != (count > 0) || (have && next != min))
        bench_die("refwheel %s: next deadline %s%llu, the earliest is %llu", when,
                  have ? "" : "none, ", (unsigned long long)(have ? next : 0),
                  (unsigned long long)min);
}

#define WL_RUN refwheel_target_run
#include "workloads.h"

/* ------------------------------------------------------------ set-up */

static int fired_count;

static void count_fire(struct rw_wheel *w, struct rw_timer *t)
{
    (void)w;
    (void)t;
    fired_count++;
}

/* Does refwheel fire on time?  A timer of 3 ticks fires at tick 3, not 2;
 * one due after a jump that crosses levels fires in it; one two ticks
 * beyond that jump migrates down and fires two ticks later. */
static const char *self_test(void)
{
    static struct rw_wheel w;
    struct rw_timer a, b;
    rw_init(&w, 0);
    rw_timer_init(&a, count_fire);
    rw_timer_init(&b, count_fire);
    fired_count = 0;
    rw_start(&w, &a, 3);
    rw_advance(&w, 2);
    if (fired_count)
        return "refwheel fired a timer before its deadline";
    rw_advance(&w, 3);
    if (fired_count != 1 || rw_pending(&a))
        return "refwheel did not fire a timer at its deadline";
    rw_start(&w, &a, 100000);
    rw_start(&w, &b, 100002);
    rw_advance(&w, 100001);
    if (fired_count != 2 || !rw_pending(&b))
        return "refwheel did not fire exactly the timers a jump reached";
    rw_advance(&w, 100002);
    if (fired_count != 3)
        return "refwheel did not fire a timer that migrated down";
    return NULL;
}

int refwheel_target_init(struct peer_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->version, sizeof info->version, "bench/refwheel.c");
    snprintf(info->backend, sizeof info->backend, "none");
    const char *err = self_test();
    if (err) {
        snprintf(info->error, sizeof info->error, "%s", err);
        return -1;
    }
    return 0;
}
