/*
 * facility.h -- the layout of a facility: struct tw, which the core and
 * the schemes share, and its allocator (mem.c).
 */
#ifndef TW_FACILITY_H
#define TW_FACILITY_H

#include "list.h"
#include "node.h"

struct tw_ops;

struct tw {
    /* The first 64 bytes hold what the leaves (a scheme's own start and
     * stop, entry.h) read in their common cases: the time, the count, the
     * floors, the state words, and the entry points tw_start() and
     * tw_stop() jump to; one cache line when the allocator aligns to 64. */
    tw_time_t now;              /* the last now given to advance */
    size_t count;               /* pending timers, wherever they are */
    /* The floors of a scheme's leaves, kept by its ops->floors() (or its
     * collect) after every path that moves the time or the scheme's
     * cache (TW_TIME_MAX,
     * no leaf, unless the scheme's init or floors() says otherwise).  A
     * deadline above start_floor is one the start leaf links and nothing
     * else; a node pending here (word_mine) with its deadline above
     * stop_floor, and not alone in its list, is one unlink to stop (each
     * scheme's file says what its floors are). */
    tw_time_t start_floor;
    tw_time_t stop_floor;
    /* The hot paths' copies (set once at create): the node state word of
     * a timer pending here, and the entry points. */
    uint64_t word_mine;         /* tw_node_word() of a node pending here */
    uint64_t word_queued;       /* word_mine, or what the scheme's init
                                 * makes it (the hybrid: a node in a queue) */
    int (*start)(struct tw *tw, struct tw_timer *t, tw_time_t interval);
    int (*stop)(struct tw *tw, struct tw_timer *t);
    /* the first 64 bytes end here; the second line holds what an advance
     * with nothing to do reads besides now and stop_floor */
    tw_time_t horizon;          /* no collect needed while now < horizon */
    struct tw_link due;         /* pending, deadline <= now, not yet run */
    uint32_t busy;              /* inside advance: callbacks running */
    uint32_t id;                /* owner tag stored in pending nodes */
    void (*floors)(const struct tw *tw, tw_time_t *start, tw_time_t *stop);
    tw_time_t max_interval;     /* TW_TIME_MAX but for wheel */
    const struct tw_ops *ops;
    enum tw_scheme scheme;
    bool keeps_late;            /* ops->keeps_late */
    uint16_t callouts;          /* callout contexts on it (callout.c) */
    /* the second 64 bytes end here; copies of the ops the core's entry
     * points call */
    void (*insert)(struct tw *tw, struct tw_timer *t);
    void (*remove)(struct tw *tw, struct tw_timer *t);
    int (*reserve)(struct tw *tw, tw_time_t deadline);
    struct tw_link due_now;     /* the due list as the running advance took
                                 * it: run before the ready lanes, in order */
    struct tw_ready ready;      /* collected by the running advance */
    struct tw_link expired;     /* pull queue of tw_collect() */
    struct tw_allocator alloc;
    size_t memory;              /* bytes held through alloc */
    void *data;                 /* the caller's: tw_set_data() */
    /* Scheme state follows, aligned for any scheme. */
    _Alignas(16) unsigned char state[];
};

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(offsetof(struct tw, horizon) == 64,
               "the leaves' fields of struct tw must fill its first 64 bytes");
_Static_assert(offsetof(struct tw, insert) == 128,
               "an advance's fields of struct tw must fill its second 64 bytes");
#endif

TW_INLINE void tw_horizon_lower(struct tw *tw, tw_time_t t)
{
    if (t < tw->horizon)
        tw->horizon = t;
}

#define TW_STATE(tw, type) ((type *)(void *)(tw)->state)

/* c's cached reading brought up to a reading of the same clock that the
 * caller took without the lock that guards the cache (clock.c; the
 * service reads before it locks); returns the cached reading's tick.  The cache
 * moves forward only: a reading older than it was taken before another
 * thread's, not by a clock that went back, so it is not counted in
 * tw_clock_backwards(). */
tw_time_t tw_clock_observe(struct tw_clock *c, uint64_t ns);

/* The facility's allocator, counting bytes (mem.c); malloc, realloc and
 * free when the configuration names none. */
extern const struct tw_allocator tw_default_allocator;
void *tw_mem_alloc(struct tw *tw, size_t size);
void *tw_mem_realloc(struct tw *tw, void *p, size_t old_size, size_t new_size);
void tw_mem_free(struct tw *tw, void *p, size_t size);


#endif /* TW_FACILITY_H */
