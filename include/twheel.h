/*
 * twheel.h -- the whole public API of twheel, a timer facility for C.
 *
 * twheel implements the timer schemes of Varghese & Lauck, "Hashed and
 * Hierarchical Timing Wheels", and Lev-Libfeld's Timer Lawn behind one API.
 * Timers are intrusive nodes (struct tw_timer) that the caller embeds in its
 * own structures; starting, stopping and expiring a timer never allocates in
 * the list and wheel schemes.
 *
 * Time.  The facility never reads a clock: time is an unsigned 64-bit count
 * of ticks of the caller's choosing, passed to tw_advance() (the optional
 * clock layer, struct tw_clock below, reads a system clock for you).  Intervals count
 * from the facility's current time, tw_now(): the last `now` it was given,
 * or struct tw_config.start before the first advance.  tw_create(&tw, NULL)
 * starts at tick 0.  With a real clock, start the facility at the clock's
 * current value (cfg.start = your clock's reading, or tw_clock_create(),
 * which does it: the README's example): a facility left at
 * 0 and then advanced to a monotonic clock's reading fires every timer
 * started before that first advance at once, since their deadlines were
 * counted from 0.
 *
 * Threads.  A facility is not thread-safe: its functions, its timers'
 * functions and a callout context on it must be called by one thread at a
 * time (a lock around the facility, or one facility per thread).
 * Different facilities share nothing: threads may use their own
 * facilities concurrently without locking, and tw_create() and
 * tw_destroy() may run in any thread.  The functions that take no
 * facility (tw_version*, tw_strerror, tw_err_name, tw_scheme_*,
 * tw_config_init, tw_config_check) are thread-safe.  Callbacks run in the
 * thread that called tw_advance().  A custom allocator is called from
 * whichever thread calls into its facility.
 *
 * Conventions: functions that can fail return a negative TW_E* code (see
 * tw_strerror()); a function that returns an error has changed nothing: no
 * timer, count, time or callback.  (After TW_ENOMEM, room that was already
 * reserved for later growth may stay: tw_memory() can be larger.)  No
 * function that takes a callback and fails ever calls that callback.
 *
 * Each scheme's costs, callback order and limits are in docs/schemes/.
 *
 * Sections: version, errors, types, configuration, facility, timers,
 * expiry, introspection, the clock layer, periodic timers, the BSD
 * callout interface, and the timer service (many threads).
 */
#ifndef TWHEEL_H
#define TWHEEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define TW_EXTERN
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define TW_EXTERN __attribute__((visibility("default")))
#else
#  define TW_EXTERN
#endif

/* ------------------------------------------------------------------ version */

#define TW_VERSION_MAJOR 0
#define TW_VERSION_MINOR 2
#define TW_VERSION_PATCH 0
#define TW_VERSION_HEX \
    ((TW_VERSION_MAJOR << 16) | (TW_VERSION_MINOR << 8) | TW_VERSION_PATCH)

/* The library's version as "MAJOR.MINOR.PATCH"; never NULL. */
TW_EXTERN const char *tw_version(void);
/* The library's version as TW_VERSION_HEX of the built library. */
TW_EXTERN unsigned tw_version_hex(void);

/* ------------------------------------------------------------------- errors */

/* X(name, value, message): the one list behind the enum and tw_strerror().
 * The values lie below -4095, clear of every -errno (which the loop
 * drivers return for a failed system call) and of libuv's codes, so that
 * one negative return never means two things: TW_EBUSY is not -EINTR. */
#define TW_ERRNO_MAP(X)                                                                  \
    X(EINVAL,   -5001, "invalid argument (NULL, or a value out of its range)")           \
    X(ENOMEM,   -5002, "out of memory")                                                  \
    X(ERANGE,   -5003, "interval beyond the range of this scheme")                       \
    X(EBUSY,    -5004, "not allowed in its callback or with a callout context on it")    \
    X(EOWNER,   -5005, "timer is pending on another facility")                           \
    X(ENOTINIT, -5006, "timer was never initialised with tw_timer_init()")               \
    X(ETIME,    -5007, "time would go backwards")                                        \
    X(ECONFIG,  -5008, "invalid configuration")                                          \
    X(ECORRUPT, -5009, "internal invariant violated")                                    \
    X(ESHUTDOWN, -5010, "the timer service is shut down")                                \
    X(EDEADLK,  -5011, "would wait for the calling callback itself")                     \
    X(EAGAIN,   -5012, "a thread could not be created")                              \
    X(ENOSYS,   -5013, "the system refuses the futex calls the timer service needs")

enum tw_error {
#define TW_ERR_ENUM_(name, value, msg) TW_##name = (value),
    TW_ERRNO_MAP(TW_ERR_ENUM_)
#undef TW_ERR_ENUM_
    TW_OK = 0
};

/* A static message for an error code ("success" for 0, "a system call
 * failed (-errno)" from -1 to -4095, "unknown error" for anything else);
 * never NULL. */
TW_EXTERN const char *tw_strerror(int err);
/* The symbolic name of an error code, e.g. "TW_EINVAL"; never NULL. */
TW_EXTERN const char *tw_err_name(int err);

/* -------------------------------------------------------------------- types */

/* Time, in ticks of the caller's choosing.  The whole range is usable. */
typedef uint64_t tw_time_t;
#define TW_TIME_MAX UINT64_MAX

struct tw;        /* a facility: opaque */
struct tw_timer;  /* a timer node: embedded by the caller */

/* Expiry callback.  Runs from tw_advance() with the facility's time already
 * set to the advance's `now`.  May start, stop or free any timer (itself
 * included), but may not call tw_advance(), tw_collect() or tw_destroy() on
 * `tw` (they return TW_EBUSY). */
typedef void tw_callback(struct tw *tw, struct tw_timer *timer);

/* Doubly linked list links: a pending timer's, the library's (see
 * struct tw_timer for an idle one's). */
struct tw_link {
    struct tw_link *next;
    struct tw_link *prev;
};

/*
 * The timer node, 40 bytes on LP64 (the size of Linux's timer_list).  Embed
 * it in your own struct, initialise it once with tw_timer_init(), and get back
 * to your struct in the callback with tw_container_of().  Every field is
 * private (read the deadline with tw_timer_deadline()) but one: while the
 * timer is idle -- never started, stopped, fired (in its callback too) or
 * handed out by tw_get_expired() -- the library neither reads nor writes
 * tw_u.link, so you may keep the timer on a list of your own through it
 * (saving a link in your struct) until you start it again or call
 * tw_timer_init() on it, which overwrite it.
 */
struct tw_timer {
    union {
        struct tw_link link;        /* lists and wheels; must be first */
        struct {
            uint64_t seq;           /* heap: FIFO among equal deadlines */
            uint32_t index;         /* heap: position in the array */
        } heap;
    } tw_u;
    /* Start and stop read and write the first 32 bytes only: the links,
     * the deadline and the state word (one 16-byte store each for the
     * links and for deadline + state, a node that spans two cache lines
     * less often). */
    tw_time_t tw_expires;           /* absolute deadline while pending */
    uint32_t tw_flags;              /* magic and state */
    uint32_t tw_owner;              /* id of the facility it is pending on */
    tw_callback *tw_fn;             /* expiry callback */
};

/* Pointer to the struct of type `type` whose member `member` is at `ptr`. */
#ifdef __cplusplus /* C++'s casts: clean under -Wold-style-cast */
#define tw_container_of(ptr, type, member) \
    (reinterpret_cast<type *>(reinterpret_cast<char *>(ptr) - offsetof(type, member)))
#else
#define tw_container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------ configuration */

/* The schemes, one X(ENUM, name) each: the one list that enum tw_scheme,
 * the names tw_scheme_name() gives and the library's table of schemes
 * (src/schemes.c) are made from, the way libuv makes uv_handle_type.  Table
 * II of the paper lists their costs; docs/schemes/ has a page on each.  The
 * order is the paper's order and is part of the ABI: a new scheme goes at
 * the end. */
#define TW_SCHEME_MAP(X)                                                                 \
    X(LIST, list)                   /* Scheme 1: unordered list, O(n) per tick */        \
    X(ORDERED, ordered)             /* Scheme 2: sorted list, O(n) start */              \
    X(HEAP, heap)                   /* Scheme 3: 4-ary heap, O(log n) start/stop */      \
    X(WHEEL, wheel)                 /* Scheme 4: MaxInterval slots, range-limited */     \
    X(HASHED_SORTED, hashed_sorted) /* Scheme 5: hashed wheel, sorted slot lists */      \
    X(HASHED, hashed)               /* Scheme 6: hashed wheel, unsorted lists */         \
    X(HIERARCHICAL, hierarchical)   /* Scheme 7: levels of wheels, exact */              \
    X(HIERARCHICAL_COARSE, hierarchical_coarse) /* Scheme 7, no migration (Nichols) */   \
    X(LAWN, lawn)                   /* Lev-Libfeld's Timer Lawn: a FIFO per TTL */       \
    X(HYBRID, hybrid)               /* Lawn queues for frequent TTLs, Scheme 7 else */   \
    TW_SCHEME_MAP_EXTRA(X)

/* Schemes a private build of the library adds of its own, in the same form;
 * empty unless defined before this header (the test suite builds a copy of
 * the library with a test-only scheme: docs/adding-a-scheme.md).  It
 * changes TW_SCHEME_COUNT, so it must be the same for the library and for
 * every file that includes this header, and is never for use with an
 * installed libtwheel; the values it adds are no part of the ABI. */
#ifndef TW_SCHEME_MAP_EXTRA
#define TW_SCHEME_MAP_EXTRA(X)
#endif

enum tw_scheme {
#define TW_SCHEME_ENUM_(ENUM, name) TW_##ENUM,
    TW_SCHEME_MAP(TW_SCHEME_ENUM_)
#undef TW_SCHEME_ENUM_
    TW_SCHEME_COUNT
};

/* The scheme's name ("list", "heap", ...), or NULL if out of range. */
TW_EXTERN const char *tw_scheme_name(enum tw_scheme scheme);
/* The scheme with that name, or a negative TW_EINVAL if there is none. */
TW_EXTERN int tw_scheme_from_name(const char *name);
/* 1 if this build of the library implements `scheme`, else 0. */
TW_EXTERN int tw_scheme_available(enum tw_scheme scheme);

/* The facility's own memory (tables, heap arrays).  Never used for timers,
 * which belong to the caller.  realloc_fn may be NULL: then alloc+copy+free. */
struct tw_allocator {
    void *(*alloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free_fn)(void *ctx, void *ptr, size_t size);
    void *ctx;
};

struct tw_config {
    enum tw_scheme scheme;
    /* Slots.  wheel: MaxInterval, the longest interval accepted (power of
     * two from 1 to 2^28, default 4096).  hashed, hashed_sorted: table size
     * (power of two from 1 to 2^28, default 4096).  hierarchical: slots
     * per level (power of two from 2 to 256, default 64).
     * hierarchical_coarse: slots per level (power of two from 16 to 256,
     * default 64; its lateness bound is 8/(slots-2) of the interval).
     * hybrid: as hierarchical, for its wheel.  Ignored by list, ordered,
     * heap and lawn. */
    uint32_t slots;
    /* hierarchical*, hybrid: number of levels; 0 means just enough to cover all
     * 64 bits of time, the only other value accepted (anything else is
     * TW_ECONFIG: fewer cannot hold every deadline, more are never used). */
    uint32_t levels;
    /* The facility's time at creation (0 by default).  With a real clock,
     * set it to the clock's current reading in ticks. */
    tw_time_t start;
    /* hybrid: a TTL gets its own FIFO queue once this many timers of it
     * have been started in a row of its hash slot (0: default 8; 1: every
     * TTL gets a queue, which is lawn). */
    uint32_t ttl_threshold;
    /* TW_OPT_* flags; 0 for the defaults. */
    uint32_t options;
    /* NULL means malloc/realloc/free. */
    const struct tw_allocator *allocator;
};

/* lawn: find due queues by scanning every TTL queue at each advance, as
 * the paper's PER_TICK_BOOKKEEPING does, instead of a heap of queue heads
 * (for measurement; the heap is the default). */
#define TW_OPT_LAWN_SCAN 0x1u
/* ordered: search for a new timer's place from the head, as the old BSD
 * callout list did (the paper's Fig. 9 baseline), instead of the rear. */
#define TW_OPT_ORDERED_FRONT 0x2u
/* hierarchical, hybrid: the facility runs on a real clock in a program
 * that does other work between its advances, as the timer service's
 * shards do (they set it).  A slot that comes up then holds timers whose
 * nodes have left the caches, however few the timers, and its lanes are
 * walked interleaved, several misses in flight, instead of only from
 * 2^14 pending timers (docs/design.md, "Ready lanes"). */
#define TW_OPT_REAL_TIME 0x4u

/* Fill `cfg` with the defaults for `scheme`.  Returns 0 or TW_EINVAL.
 * tw_create() applies no defaults of its own: start from this, not from a
 * zeroed struct (slots 0 is TW_ECONFIG for the schemes that use it). */
TW_EXTERN int tw_config_init(struct tw_config *cfg, enum tw_scheme scheme);

/* Check `cfg` as tw_create() does, without allocating anything.  Returns 0
 * if tw_create() would accept it (a NULL cfg: the defaults), TW_ECONFIG if
 * not.  When `why` is not NULL it is set to NULL on success, else to a
 * static sentence naming the field and the rule it breaks, e.g. "slots: a
 * power of two from 2 to 256".  The checks: scheme; allocator (alloc_fn
 * and free_fn both set); options (known TW_OPT_ bits only, each for its
 * own scheme); slots and levels as documented in struct tw_config. */
TW_EXTERN int tw_config_check(const struct tw_config *cfg, const char **why);

/* ----------------------------------------------------------------- facility */

/* Create a facility.  `cfg` NULL means tw_config_init(TW_HIERARCHICAL),
 * which starts the facility's time at tick 0: on a real clock, pass a
 * configuration whose `start` is the clock's current reading ("Time" at
 * the top of this file).  On success stores it in *out and returns 0;
 * otherwise returns TW_EINVAL, TW_ECONFIG or TW_ENOMEM and leaves *out
 * untouched. */
TW_EXTERN int tw_create(struct tw **out, const struct tw_config *cfg);

/* Destroy a facility.  Timers still pending become idle (not fired) and may
 * be started again elsewhere: destroy writes to each of them, so their
 * memory must still be valid (free the structs that hold pending timers
 * after tw_destroy(), or stop those timers first).  Returns 0, TW_EINVAL
 * for NULL, or TW_EBUSY when called from one of this facility's callbacks
 * or while a callout context (tw_callouts_init()) is on it (then nothing
 * happens). */
TW_EXTERN int tw_destroy(struct tw *tw);

/* ------------------------------------------------------------------- timers */

/* Initialise a node, idle, with its callback (which may be NULL for timers
 * only ever drained with tw_get_expired()).  Never call it on a pending
 * node.  Does not allocate. */
TW_EXTERN void tw_timer_init(struct tw_timer *timer, tw_callback *fn);

/* Change the callback of an idle or pending node. */
TW_EXTERN void tw_timer_set_callback(struct tw_timer *timer, tw_callback *fn);

/* Start `timer` to expire `interval` ticks after the facility's current time
 * (saturating at TW_TIME_MAX, never wrapping).  A pending timer is re-armed.
 * Interval 0 (or a deadline not after now) fires at the next tw_advance();
 * started from a callback, at the advance after the one running, never in
 * it.  Returns 0, or the first that
 * applies of TW_EINVAL (NULL), TW_ENOTINIT, TW_EOWNER (pending on another
 * facility), TW_ERANGE (wheel: interval above MaxInterval) and TW_ENOMEM
 * (heap, lawn, hybrid: growth); on error the timer and the facility are as
 * they were (after TW_ENOMEM a table that did grow before the allocation
 * that failed stays grown, as room for the next start: tw_memory() may be
 * larger, nothing else differs). */
TW_EXTERN int tw_start(struct tw *tw, struct tw_timer *timer, tw_time_t interval);

/* As tw_start(), with an absolute deadline.  A deadline at or before the
 * current time fires at the next tw_advance(). */
TW_EXTERN int tw_start_at(struct tw *tw, struct tw_timer *timer, tw_time_t deadline);

/* Stop `timer`.  Returns 1 if it was pending (it will not fire, even if it
 * was due in the advance now running), 0 if it was idle, or TW_EINVAL,
 * TW_ENOTINIT, TW_EOWNER (pending on another facility). */
TW_EXTERN int tw_stop(struct tw *tw, struct tw_timer *timer);

/* 1 if the node is pending (started, neither fired nor stopped), else 0. */
TW_EXTERN int tw_timer_pending(const struct tw_timer *timer);

/* The node's absolute deadline; meaningful while pending and, after it
 * fired, the deadline it fired for.  0 for NULL. */
TW_EXTERN tw_time_t tw_timer_deadline(const struct tw_timer *timer);

/* How the lawn and hybrid schemes treat one TTL (interval). */
enum tw_ttl_hint {
    TW_TTL_AUTO = 0,   /* the scheme's policy (lawn: a queue while pending) */
    TW_TTL_QUEUE = 1,  /* a FIFO queue, kept even while empty */
    TW_TTL_WHEEL = 2   /* hybrid only: never a queue, always the wheel */
};

/* Tell a lawn or hybrid facility how to treat timers whose interval is
 * `ttl` (deadline - now when started).  Affects timers started afterwards.
 * Returns 0, TW_EINVAL (NULL, an unknown hint, ttl 0, TW_TTL_WHEEL on lawn,
 * or a scheme without TTL queues) or TW_ENOMEM. */
TW_EXTERN int tw_ttl_hint(struct tw *tw, tw_time_t ttl, enum tw_ttl_hint hint);

/* ------------------------------------------------------------------- expiry */

/* Advance the facility's time to `now` and run the callback of every timer
 * that is due: each timer whose deadline is at or before `now` fires exactly
 * once (hierarchical_coarse fires at its deadline rounded up: never early,
 * late by less than 8/(slots-2) of the interval).  All due timers are taken
 * out before the first callback runs, so a callback may stop, restart or
 * free any timer; a timer a callback starts already due fires in the next
 * advance.  Timers queued by tw_collect() and not yet taken stay queued:
 * an advance neither fires nor moves them.  Returns the number of callbacks
 * run (>= 0), or TW_ETIME if `now` is before tw_now() (nothing done),
 * TW_EBUSY from a callback of this facility, TW_EINVAL for NULL.
 *
 * Cost: O(1) when nothing is due, else about O(timers fired + occupied
 * slots visited), not O(now - tw_now()), for the wheels; docs/schemes/ has
 * each scheme's.  Order within one advance: timers started already due
 * fire first, in start order; then ordered, heap and wheel fire in deadline
 * order (equal deadlines in start order), the other schemes in an order of
 * their own (docs/schemes/<scheme>.md, "In the API"). */
TW_EXTERN int64_t tw_advance(struct tw *tw, tw_time_t now);

/* The event-flag form: as tw_advance(), but instead of running callbacks it
 * appends the due timers to the facility's expired queue, after any it
 * queued before.  Queued timers stay pending and counted by tw_count() until
 * tw_get_expired() hands them out: tw_stop() removes one (returns 1),
 * tw_start() re-arms it, tw_destroy() makes them idle, tw_next_expiry()
 * reports the earliest of them; a later tw_advance() or tw_collect() leaves
 * them where they are.  Returns how many were queued, or an error as
 * tw_advance(), or TW_EBUSY while a callout context is on the facility
 * (its callouts run from tw_advance() only; nothing is done). */
TW_EXTERN int64_t tw_collect(struct tw *tw, tw_time_t now);

/* Pop the next timer of the expired queue, now idle, or NULL when empty.
 * Timers come out in the order tw_collect() queued them. */
TW_EXTERN struct tw_timer *tw_get_expired(struct tw *tw);

/* When the next timer will fire: how long an event loop may sleep.
 * Returns 1 and stores a tick in *deadline, 0 if nothing is pending, or
 * TW_EINVAL.  The tick is the earliest pending deadline; a timer already
 * due (or queued by tw_collect()) gives its deadline, at or before
 * tw_now(), so the loop should not sleep.  hierarchical_coarse gives the
 * tick at which tw_advance() will fire its earliest timer: the deadline
 * rounded up, never before it.  O(1) for most schemes most of the time
 * (list O(n); the wheels scan occupancy bitmaps or refill a small cache of
 * the earliest deadlines); docs/schemes/ has each scheme's cost. */
TW_EXTERN int tw_next_expiry(struct tw *tw, tw_time_t *deadline);

/* When an event loop must wake next: the earliest tick at which
 * tw_advance() has work, a timer to fire or, in the hierarchical wheels
 * (hierarchical and the hybrid's wheel), a slot of timers to move down a
 * level on their way to their deadlines.  Returns as tw_next_expiry(),
 * with a tick at or before its answer and, unless a timer is already due,
 * after tw_now(); an advance to it fires the timers due then or moves the
 * slot, so the next answer is later.  Where tw_next_expiry() would walk a
 * slot to find the exact deadline, this answers from the occupancy
 * bitmaps instead (O(levels)): a loop that sleeps until it wakes at most
 * once more per level a timer passes, and never walks.  The other schemes
 * give tw_next_expiry()'s answer.  The clock layer's timeouts use it. */
TW_EXTERN int tw_next_wakeup(struct tw *tw, tw_time_t *tick);

/* ------------------------------------------------------------ introspection */

/* Number of pending timers (including due ones not yet fired). */
TW_EXTERN size_t tw_count(const struct tw *tw);
/* The facility's current time: the last `now` given to tw_advance() or
 * tw_collect(), or the configuration's start before either. */
TW_EXTERN tw_time_t tw_now(const struct tw *tw);
/* The facility's scheme; TW_SCHEME_COUNT (no scheme) for NULL. */
TW_EXTERN enum tw_scheme tw_get_scheme(const struct tw *tw);
/* Bytes the facility holds through its allocator (tables, heap arrays),
 * excluding the caller's timer nodes. */
TW_EXTERN size_t tw_memory(const struct tw *tw);
/* The longest interval tw_start() accepts (TW_TIME_MAX for all but wheel). */
TW_EXTERN tw_time_t tw_max_interval(const struct tw *tw);
/* A pointer of the caller's, kept with the facility and never read by the
 * library: how a callback, which gets the facility, reaches the program's
 * state without a global.  tw_set_data() stores it (a NULL tw: nothing);
 * tw_data() returns it: NULL until the first tw_set_data(), and for a NULL
 * tw. */
TW_EXTERN void tw_set_data(struct tw *tw, void *data);
TW_EXTERN void *tw_data(const struct tw *tw);

/* Verify every invariant of the facility and its scheme (O(n)).  Returns 0,
 * or TW_ECORRUPT and writes a description of the first violation found to
 * msg (if msg is not NULL and len > 0), or TW_EINVAL for NULL tw. */
TW_EXTERN int tw_check(struct tw *tw, char *msg, size_t len);

/* -------------------------------------------------------------- clock layer */

/*
 * A clock for a facility: it reads a system clock (or one of yours) in
 * nanoseconds, keeps that reading as the loop's "now" until the next
 * tw_clock_update() (libuv's uv_now(), libev's ev_now()), and converts
 * between nanoseconds and ticks of tick_ns nanoseconds, 1 us to 1 s.
 *
 * Rounding, so that no timer fires early in real time: the current time
 * becomes ticks rounded down (tick = reading / tick_ns), a deadline
 * rounded up (tw_clock_after(): the first tick at or after reading + ns),
 * and a poll timeout rounded up.  "Early" is measured from the clock's
 * cached reading, which is at or before the moment the timer is started:
 * as in every event loop that caches its time, update the clock after a
 * long callback.  Do not compute a deadline as tw_clock_now() plus
 * tw_clock_ticks(): the reading's part of a tick is lost that way, and the
 * timer can fire up to one tick early (the early-fire of libuv's ms
 * timers); tw_clock_start() and tw_clock_after() keep it.
 *
 * The loop, with any scheme:
 *
 *     tw_clock_init(&clk, TW_CLOCK_MONOTONIC, 1000000);      1 tick = 1 ms
 *     tw_clock_create(&tw, NULL, &clk);                        starts at now
 *     tw_clock_start(&clk, tw, &conn->idle, TW_SEC(30));
 *     for (;;) {
 *         tw_clock_update(&clk);                     the wait counts from now
 *         int n = epoll_wait(ep, evs, 64, tw_clock_timeout_ms(&clk, tw));
 *         tw_clock_update(&clk);
 *         ... handle the n events ...
 *         tw_advance(tw, tw_clock_now(&clk));
 *     }
 *
 * Every field is private.  A clock is as thread-safe as the facility it
 * serves (one thread at a time); it allocates nothing.
 */

/* The clocks.  MONOTONIC stops while the machine sleeps (suspend): a
 * 30-second timer started before a one-hour suspend fires 30 s of awake
 * time later.  BOOTTIME (Linux) counts time asleep too: the same timer is
 * due at once on resume.  USER: tw_clock_init_user()'s function. */
enum tw_clock_source {
    TW_CLOCK_MONOTONIC = 0,
    TW_CLOCK_BOOTTIME = 1,
    TW_CLOCK_USER = 2
};

/* A clock of your own: nanoseconds from any origin (the whole 64-bit range
 * is usable).  It should not go backwards; if it does, tw_clock_update()
 * keeps the last reading and counts the event (tw_clock_backwards()). */
typedef uint64_t tw_clock_read_fn(void *ctx);

/* Nanoseconds, for tw_clock_start(), tw_clock_after(), tw_clock_ticks(). */
#ifdef __cplusplus
#define TW_NS_CAST_(n) static_cast<uint64_t>(n)
#else
#define TW_NS_CAST_(n) ((uint64_t)(n))
#endif
#define TW_NSEC(n) TW_NS_CAST_(n)
#define TW_USEC(n) (TW_NS_CAST_(n) * UINT64_C(1000))
#define TW_MSEC(n) (TW_NS_CAST_(n) * UINT64_C(1000000))
#define TW_SEC(n) (TW_NS_CAST_(n) * UINT64_C(1000000000))

#define TW_TICK_NS_MIN UINT64_C(1000)        /* 1 us */
#define TW_TICK_NS_MAX UINT64_C(1000000000)  /* 1 s */

struct tw_clock {
    tw_clock_read_fn *tw_read;  /* USER: the function; else NULL */
    void *tw_ctx;
    uint64_t tw_tick_ns;        /* nanoseconds per tick */
    uint64_t tw_ns;             /* the cached reading */
    uint64_t tw_slack_ns;       /* tw_clock_set_slack() */
    uint64_t tw_backwards;      /* readings that went backwards */
    uint32_t tw_source;         /* enum tw_clock_source */
    uint32_t tw_magic;          /* set by the init functions */
};

/* Bind `c` to a system clock with ticks of tick_ns nanoseconds (from
 * TW_TICK_NS_MIN to TW_TICK_NS_MAX) and read it once.  Returns 0, or
 * TW_EINVAL (NULL c, a tick out of range, an unknown source, USER: use
 * tw_clock_init_user(), or a clock this system does not have), leaving
 * `c` as it was. */
TW_EXTERN int tw_clock_init(struct tw_clock *c, enum tw_clock_source source, uint64_t tick_ns);

/* As tw_clock_init() with your own clock `read` (called with ctx). */
TW_EXTERN int tw_clock_init_user(struct tw_clock *c, tw_clock_read_fn *read, void *ctx,
                                 uint64_t tick_ns);

/* Read the clock once and cache the reading; returns the new current time
 * in ticks (rounded down).  A reading below the cached one is not taken:
 * the time stays, tw_clock_backwards() counts it.  0 for NULL. */
TW_EXTERN tw_time_t tw_clock_update(struct tw_clock *c);

/* The cached current time in ticks, rounded down; 0 for NULL. */
TW_EXTERN tw_time_t tw_clock_now(const struct tw_clock *c);

/* The cached reading in nanoseconds; 0 for NULL. */
TW_EXTERN uint64_t tw_clock_now_ns(const struct tw_clock *c);

/* The deadline, in ticks, that is `ns` nanoseconds after the cached reading,
 * rounded up (saturating at TW_TIME_MAX): a timer with it never fires
 * before reading + ns.  0 for NULL. */
TW_EXTERN tw_time_t tw_clock_after(const struct tw_clock *c, uint64_t ns);

/* A duration in ticks, rounded up (saturating): for periods and for
 * scheme settings, not for deadlines (see above).  0 for NULL. */
TW_EXTERN tw_time_t tw_clock_ticks(const struct tw_clock *c, uint64_t ns);

/* How many readings went backwards (and were not taken). */
TW_EXTERN uint64_t tw_clock_backwards(const struct tw_clock *c);

/* Wake-up coalescing: the poll timeouts below may wake up to `slack_ns`
 * later than the earliest deadline (never earlier), at a multiple of the
 * slack on the clock, so that deadlines within one slack window share one
 * wake-up (as Linux's timer slack does).  0, the default, is none.
 * Returns 0, or TW_EINVAL for NULL. */
TW_EXTERN int tw_clock_set_slack(struct tw_clock *c, uint64_t slack_ns);

/* Create a facility (as tw_create(); cfg NULL: the defaults) whose time
 * starts at the clock's current time, after a tw_clock_update().  On an
 * error the clock is as it was. */
TW_EXTERN int tw_clock_create(struct tw **out, const struct tw_config *cfg, struct tw_clock *c);

/* Start `timer` to fire `ns` nanoseconds after the clock's cached reading:
 * tw_start_at(tw, timer, tw_clock_after(c, ns)), with its return codes
 * (TW_EINVAL for a NULL clock). */
TW_EXTERN int tw_clock_start(struct tw_clock *c, struct tw *tw, struct tw_timer *timer,
                             uint64_t ns);

/* The timeout for poll() and epoll_wait(), in milliseconds, from the
 * cached reading to the next wake-up (tw_next_wakeup(): the earliest
 * deadline, or the tick before it at which a hierarchical wheel moves a
 * slot down), rounded up so that the wait never ends before it, plus the
 * slack: -1 when nothing is pending (block; also when the next wake-up
 * lies past the last nanosecond a clock of yours can read), 0 when a timer
 * is already due, at most INT_MAX.  A NULL or uninitialised argument gives 0, not
 * an error code: poll() would read any negative value as "block
 * forever", so a mistake shows as a loop that spins. */
TW_EXTERN int tw_clock_timeout_ms(const struct tw_clock *c, struct tw *tw);

/* The same wait as a struct timespec, in nanoseconds, rounded up: for
 * ppoll(), epoll_pwait2(), timerfd_settime() and clock_nanosleep().
 * `abs` 0: relative to the cached reading ({0, 0} when already due).
 * `abs` 1: the absolute time on the clock (TFD_TIMER_ABSTIME,
 * TIMER_ABSTIME), never {0, 0}, which would disarm a timerfd.
 * Returns 1 and fills *ts, 0 when nothing is pending or can come due on
 * this clock (*ts untouched: block forever, or disarm), or TW_EINVAL (NULL
 * c, tw or ts).  `ts` points to a struct timespec; it is declared void *
 * so that this header needs no POSIX feature macros (on a 32-bit system,
 * build the library and the caller with the same time_t).  A wait beyond
 * a 32-bit time_t (2038) is clamped to its largest value. */
TW_EXTERN int tw_clock_timeout_ts(const struct tw_clock *c, struct tw *tw, int abs, void *ts);

/* ---------------------------------------------------------- periodic timers */

/*
 * A timer that fires every `period` ticks on a fixed grid: started at t0
 * with period P, its k-th expiry is due at t0 + k*P, whatever the lateness
 * of the ones before (no drift, unlike re-arming from "now" in the
 * callback).  It wraps a plain timer node; the node itself stays 40 bytes.
 *
 * When the program stalls past several periods, the policy decides:
 *   TW_MISSED_BURST  fire each missed period, one per tw_advance() (the
 *                    next one is due at once), staying on the grid;
 *   TW_MISSED_SKIP   fire once, pass the number of periods skipped to the
 *                    callback (as a timerfd read() reports overruns), and
 *                    go on with the first grid point after now;
 *   TW_MISSED_DELAY  fire once, pass the periods skipped, and re-base the
 *                    grid on now: the next one is due at now + P.
 * A late expiry that missed no grid point passes 0 and stays on the grid in
 * every policy.  The callback may stop, restart or free the periodic timer
 * (after stopping it).  The grid ends at the end of time: the timer stops
 * after the expiry of its last grid point at or before TW_TIME_MAX (it is
 * idle in that callback).  In hierarchical_coarse, which fires late by
 * design (a fraction of the interval), an expiry far from its start may
 * come after later grid points: SKIP and DELAY count them as missed.
 *
 * The timer is re-armed before its callback runs, so the callback finds it
 * pending.  In a scheme that allocates on start (heap, lawn, hybrid) that
 * re-arm can fail for want of memory: the callback then finds it idle
 * (tw_periodic_pending() is 0) and may start it again.  The re-arm is done
 * by the callback tw_advance() runs: a periodic timer handed back by
 * tw_collect() and tw_get_expired() instead is idle, and the caller
 * re-arms it (tw_periodic_start_at() with the next grid point).
 *
 * With the clock layer, start it with tw_clock_periodic_start(), not with
 * tw_periodic_start() and tw_clock_ticks(): the first deadline must keep
 * the reading's part of a tick (see the clock layer above).
 */
enum tw_missed {
    TW_MISSED_BURST = 0,
    TW_MISSED_SKIP = 1,
    TW_MISSED_DELAY = 2
};

struct tw_periodic;
/* `missed`: the grid points passed over (SKIP, DELAY); 0 for BURST. */
typedef void tw_periodic_fn(struct tw *tw, struct tw_periodic *p, uint64_t missed);

/* Embedded by the caller, 72 bytes on LP64.  Every field is private: read
 * it with the functions below. */
struct tw_periodic {
    struct tw_timer tw_timer;   /* the node on the facility */
    tw_periodic_fn *tw_fn;
    tw_time_t tw_period;
    uint64_t tw_count;          /* expiries so far, counting each skipped one */
    uint32_t tw_policy;         /* enum tw_missed */
    uint32_t tw_magic;
};

/* Initialise, idle, with its callback (not NULL) and policy.  Returns 0 or
 * TW_EINVAL (NULL p or fn, unknown policy).  Never on a pending one. */
TW_EXTERN int tw_periodic_init(struct tw_periodic *p, tw_periodic_fn *fn, enum tw_missed policy);

/* Start (or restart) `p` with period `period` ticks (>= 1): due at
 * first, first + period, first + 2 period, ... tw_periodic_start() takes
 * first = tw_now(tw) + period (with the clock layer:
 * tw_clock_periodic_start()).  Returns 0, TW_EINVAL (NULL, period 0),
 * TW_ENOTINIT (p never initialised), or tw_start_at()'s errors (TW_ERANGE:
 * wheel, a period beyond MaxInterval); on error `p` is as it was. */
TW_EXTERN int tw_periodic_start(struct tw *tw, struct tw_periodic *p, tw_time_t period);
TW_EXTERN int tw_periodic_start_at(struct tw *tw, struct tw_periodic *p, tw_time_t first,
                                   tw_time_t period);

/* Start `p` on the clock: its first expiry `ns` nanoseconds after the
 * clock's cached reading, then one every `ns` rounded up to whole ticks
 * (tw_periodic_start_at(tw, p, tw_clock_after(c, ns), tw_clock_ticks(c,
 * ns))), so that no expiry comes before reading + k * ns.  A period that
 * is not a whole number of ticks runs slow by the rounding: pick a tick
 * that divides it.  Returns tw_periodic_start_at()'s codes, and TW_EINVAL
 * for a NULL or uninitialised clock. */
TW_EXTERN int tw_clock_periodic_start(struct tw_clock *c, struct tw *tw, struct tw_periodic *p,
                                      uint64_t ns);

/* Stop `p`: 1 if it was pending, 0 if not, TW_EINVAL (NULL), TW_ENOTINIT
 * (never initialised), or tw_stop()'s errors. */
TW_EXTERN int tw_periodic_stop(struct tw *tw, struct tw_periodic *p);

/* 1 if `p` is pending (started and neither stopped nor past its last run,
 * at the end of time), else 0 (NULL and never initialised included). */
TW_EXTERN int tw_periodic_pending(const struct tw_periodic *p);

/* The deadline of the next expiry (meaningful while pending). */
TW_EXTERN tw_time_t tw_periodic_next(const struct tw_periodic *p);

/* Expiries so far since the last start, each skipped period counted:
 * after the k-th grid point, k. */
TW_EXTERN uint64_t tw_periodic_count(const struct tw_periodic *p);

/* ------------------------------------------------------------------ callout */

/*
 * The BSD callout interface of the paper's section VII, on any facility:
 * timeout(func, arg, ticks) / untimeout(func, arg), which cancel without a
 * handle through a hash table keyed on (func, arg), and setcallout() /
 * unsetcallout(), which take a handle the caller embeds.  A context (struct
 * tw_callouts) sits on a facility the caller created with any scheme; the
 * facility's tw_advance() runs the callouts: each due callout is taken out
 * of the context (and a tw_timeout() callout's storage is returned to the
 * pool) before func(arg) runs, so func may call any tw_*callout*() or
 * tw_*timeout() function, on any callout, itself included (but
 * tw_callout_init() on a pending one).  While a context is on a facility,
 * tw_collect() and tw_destroy() of the facility return TW_EBUSY.
 *
 * Costs on top of the facility's tw_start()/tw_stop() (docs/callout.md):
 * tw_setcallout(), tw_unsetcallout() and expiry O(1) and never allocate;
 * tw_timeout() O(1) amortised (a growing pool and hash table);
 * tw_untimeout() O(1) on average (a chain of the hash table; pending
 * duplicates of the same (func, arg) share one chain).
 * Memory comes from the facility's allocator (struct tw_config.allocator)
 * and is not counted in tw_memory(): see tw_callouts_memory().  Like the
 * facility, a context is not thread-safe.
 */

/* What a callout calls when it expires. */
typedef void tw_callout_fn(void *arg);

struct tw_callouts;  /* a callout context: opaque */

/*
 * A callout for tw_setcallout(), embedded by the caller: 72 bytes on LP64
 * (the 40-byte timer node, func, arg and the links of the context's list
 * of pending callouts, which tw_callouts_destroy() cancels).  Initialise
 * it once with tw_callout_init().  Every field is private.
 */
struct tw_callout {
    struct tw_timer timer;
    tw_callout_fn *func;
    void *arg;
    struct tw_callout *next;
    struct tw_callout **pprev;
};

/* Create a callout context on facility `tw` (which must outlive it).
 * Stores it in *out and returns 0, or returns TW_EINVAL (NULL out or tw)
 * or TW_ENOMEM (out of memory, or 65,535 contexts on `tw` already),
 * leaving *out untouched. */
TW_EXTERN int tw_callouts_init(struct tw_callouts **out, struct tw *tw);

/* Cancel every callout pending through the context (none of them runs;
 * tw_setcallout() callouts become idle and may be set again; a handle set
 * last through another context is that one's), free the pool and the
 * context.  NULL is a no-op.  Call it before tw_destroy() of
 * the facility.  It may be called from a callout's func. */
TW_EXTERN void tw_callouts_destroy(struct tw_callouts *co);

/* Initialise a callout, idle.  Never call it on a pending callout.  Does
 * not allocate. */
TW_EXTERN void tw_callout_init(struct tw_callout *c);

/* The paper's setcallout(): call func(arg) `ticks` ticks after the
 * facility's current time (tw_start() semantics: 0 fires at the next
 * tw_advance(), deadlines saturate).  A pending callout is re-armed with the
 * new func, arg and deadline.  Returns 0, or TW_EINVAL (NULL co, c or func),
 * TW_ENOTINIT (c never initialised), TW_EOWNER (pending on another
 * facility), TW_ERANGE (wheel: ticks above MaxInterval) or TW_ENOMEM
 * (growth in the facility: heap, lawn, hybrid); on error nothing changed.
 * Allocates nothing itself.  Cancel it with tw_unsetcallout(), not
 * tw_stop(). */
TW_EXTERN int tw_setcallout(struct tw_callouts *co, struct tw_callout *c,
                            tw_callout_fn *func, void *arg, tw_time_t ticks);

/* The paper's unsetcallout(): cancel `c`.  Returns 1 if it was pending (it
 * will not run, even if due in the advance now running), 0 if it was idle
 * (fired, cancelled, or running now), or TW_EINVAL (NULL), TW_ENOTINIT,
 * TW_EOWNER.  O(1); allocates nothing. */
TW_EXTERN int tw_unsetcallout(struct tw_callouts *co, struct tw_callout *c);

/* 1 if `c` is pending (set, neither fired nor cancelled), else 0. */
TW_EXTERN int tw_callout_pending(const struct tw_callout *c);

/* BSD timeout(): call func(arg) `ticks` ticks after the facility's current
 * time, from storage the context's pool provides.  Several pending timeouts
 * with the same (func, arg) are allowed.  Returns 0, or TW_EINVAL (NULL co
 * or func), TW_ERANGE (wheel: ticks above MaxInterval) or TW_ENOMEM (the
 * pool, or the facility's heap, Lawn or hybrid tables, could not grow); on
 * error no callout changed (a pool chunk already allocated stays). */
TW_EXTERN int tw_timeout(struct tw_callouts *co, tw_callout_fn *func, void *arg,
                         tw_time_t ticks);

/* BSD untimeout(): cancel one pending tw_timeout() callout with this
 * (func, arg): of several, the one set most recently.  Returns 1 if one was
 * cancelled, 0 if none is pending (a callout set with tw_setcallout() is
 * never cancelled here; one whose func is running is no longer pending),
 * or TW_EINVAL (NULL co or func). */
TW_EXTERN int tw_untimeout(struct tw_callouts *co, tw_callout_fn *func, void *arg);

/* Number of tw_timeout() callouts pending in the context. */
TW_EXTERN size_t tw_callouts_count(const struct tw_callouts *co);

/* Bytes the context holds through the facility's allocator: itself, its
 * hash table and its pool (which grows to the peak number of pending
 * timeouts and never shrinks). */
TW_EXTERN size_t tw_callouts_memory(const struct tw_callouts *co);

/* Verify the context's invariants (hash chains, the list of pending
 * tw_setcallout() callouts, the pool's accounting), O(n).  Returns 0, or
 * TW_ECORRUPT and a description in msg (if msg is not NULL and len > 0),
 * or TW_EINVAL for NULL co.  Does not check the facility: tw_check(). */
TW_EXTERN int tw_callouts_check(struct tw_callouts *co, char *msg, size_t len);

/* ------------------------------------------------------------ timer service */

/*
 * A timer service: timers that any thread may start, restart and stop, run
 * in real time by the service's own threads.  The facilities above are
 * single-threaded; a service owns `shards` of them (default 1), each with
 * a worker thread that sleeps until its next deadline and runs the
 * callbacks that come due, one at a time.  A timer is on one shard at a
 * time, chosen by the service's placement (by the timer's address, by the
 * calling thread, or by the interval); every operation on it takes that
 * shard's lock for O(1) work (a start or stop of the scheme), never a lock
 * of the whole service (but with the default of one shard, that shard is
 * the whole service: give threads that start timers shards of their own).  A start whose deadline is before the time the shard sleeps
 * until wakes the shard; nothing else does, and an idle service makes no
 * periodic wake-ups (docs/service.md).
 *
 *     struct conn { struct tw_stimer idle; ... };
 *     static void on_idle(struct tw_service *s, struct tw_stimer *t)
 *     {
 *         struct conn *c = tw_container_of(t, struct conn, idle);
 *         ... runs in a worker thread ...
 *     }
 *
 *     tw_service_config_init(&cfg);
 *     cfg.shards = 2;
 *     tw_service_create(&svc, &cfg);
 *     tw_stimer_init(&c->idle, on_idle);
 *     tw_service_start(svc, &c->idle, TW_SEC(30), NULL);     any thread
 *     tw_service_stop_sync(svc, &c->idle, 0);                 then free c
 *     tw_service_shutdown(svc, TW_SHUTDOWN_CANCEL);
 *     tw_service_destroy(svc);
 *
 * Stop semantics.  tw_service_stop() returns 1 when it prevented a
 * callback (the timer was pending), 0 when it did not: the timer was not
 * pending (idle, or fired; its callback may be running now).  A timer
 * restarted while its callback runs is pending and running at once: a
 * stop then returns 1 and the running callback finishes.
 * tw_service_stop_sync() does the same and then waits until the callback
 * of the timer under way, if any, has returned (the kernel's
 * del_timer_sync()).  Given gen 0 it also stops an arming made while that
 * callback ran (by the callback or any thread), as the callback returns,
 * so that a timer that re-arms itself for a time already due cannot keep
 * it waiting, and it waits for a run another thread's start began
 * meanwhile; it returns 1 if it stopped an arming (of several calls
 * waiting for one run, one gets that stop).  When it returns (given
 * gen 0) the timer is idle and its callback is not running, so its
 * memory may be freed, unless another thread started it again meanwhile.
 * The worker does not touch a timer after its callback returns unless a
 * stop_sync with gen 0 waits for that run (whose caller keeps the timer
 * valid), so a callback may free its own timer, if no other code stops
 * it.  Called from the timer's own callback
 * it would wait for itself: it returns TW_EDEADLK and changes nothing.
 * Like del_timer_sync(), it must not be called while holding a lock that
 * the timer's callback takes, and two callbacks on different shards must
 * not stop_sync each other.
 *
 * Generations.  Every successful start gives the timer a new generation
 * (*gen, never 0; they increase, and tw_stimer_init() starts them over).
 * A stop given a generation acts only if the timer's is still that one: a
 * stop carrying the generation of an earlier start, from a thread that
 * has not seen a later one, returns 0 and cancels nothing.  stop_sync
 * given the generation whose callback runs waits for that callback and
 * leaves a re-arm it made pending (wait for your arming's callback without
 * cancelling a newer one); given one neither current nor running, it
 * returns 0 at once, without waiting (free a timer only after a stop_sync
 * with gen 0).  0 stops whatever generation is current.
 *
 * Callbacks run in the shard's worker thread with no lock held.  They may
 * start and stop any timer, their own included (a start from the
 * callback arms the timer again: it is pending and the callback is
 * running, both at once; tw_service_restart() re-arms a pending timer
 * only, so from its own callback it does nothing unless the timer was
 * re-armed meanwhile), and use
 * tw_service_stop_sync() on any timer but
 * their own (a timer of the same shard cannot be running then).  A
 * callback that blocks delays every timer of its shard.
 *
 * A timer belongs to one service at a time: one pending on a service is
 * refused by another (TW_EOWNER), but a start on another service while
 * its callback runs, or two services starting it at once, is not caught.
 *
 * Lifetime.  Every call but tw_service_destroy() may be made from any
 * thread at any time until tw_service_destroy(), which no other thread
 * may be inside or call after.  After tw_service_shutdown(), start fails
 * (TW_ESHUTDOWN), and stop, stop_sync, count and stats still answer
 * (every timer is idle).
 */

struct tw_service;   /* opaque */
struct tw_stimer;

/* A service timer's callback, run in a worker thread. */
typedef void tw_stimer_fn(struct tw_service *svc, struct tw_stimer *timer);

/* A service timer, 64 bytes on LP64: embed it, initialise it once with
 * tw_stimer_init().  Every field is private and changes under the lock of
 * its shard (a move to another shard holds the old one's). */
struct tw_stimer {
    struct tw_timer tw_node;    /* in its shard's facility */
    tw_stimer_fn *tw_sfn;
    uint64_t tw_gen;            /* the generation of the last start */
    uint16_t tw_smagic;         /* set by tw_stimer_init() */
    uint16_t tw_sshard;         /* its shard + 1 since its first start, else 0 */
    uint32_t tw_sowner;         /* the service's id while pending */
};

#define TW_SERVICE_MAX_SHARDS 64

/* Which shard a timer goes to when it is started while idle (a restart
 * of a pending timer, or a start while its callback runs, leaves it on
 * its shard).  A move takes effect, like every call, under one lock: a
 * stop that comes while a start moves the timer finds it idle (0), as it
 * would just before that start. */
enum tw_placement {
    TW_PLACE_TIMER = 0,  /* by the timer's address: a timer keeps one shard */
    TW_PLACE_THREAD = 1, /* the calling thread's (threads are dealt shards in
                          * turn; a callback's is its worker's): with no
                          * more producers than shards, no two share a lock
                          * unless they share timers */
    TW_PLACE_TTL = 2     /* by the interval in ticks, hashed (Lawn's split
                          * of TTLs between workers): timers of one TTL share
                          * a shard, and different TTLs may */
};

struct tw_service_config {
    /* Each shard's facility, as tw_create() takes it (tw_config_init()'s
     * defaults: the hierarchical wheel); its `start` is ignored, the
     * service sets it from the clock.  Every shard uses its `allocator`,
     * each under its own lock, so with more than one shard the allocator
     * is called from several threads at once: it must be thread-safe. */
    struct tw_config facility;
    uint64_t tick_ns;           /* real time per tick, TW_TICK_NS_MIN..MAX */
    uint32_t shards;            /* worker threads, 1..TW_SERVICE_MAX_SHARDS */
    uint32_t placement;         /* enum tw_placement */
};

/* The defaults: the hierarchical wheel, 1 ms ticks, one shard, placement
 * by thread.  Start from this, not from a zeroed struct (0 shards and a 0
 * tick are TW_ECONFIG, and placement 0 is by address).  Returns 0 or
 * TW_EINVAL (NULL). */
TW_EXTERN int tw_service_config_init(struct tw_service_config *cfg);

/* Create a service and start its threads (CLOCK_MONOTONIC).  Returns 0 and
 * stores it in *out, or TW_EINVAL (NULL out), TW_ECONFIG (a facility
 * configuration tw_config_check() refuses, a tick, shard count or
 * placement out of range; cfg NULL is the defaults), TW_ENOMEM, TW_EAGAIN (a thread
 * could not be created), or TW_ENOSYS (the kernel refuses futex calls, as
 * a seccomp filter may: the service's waits would spin); on error nothing
 * is left behind. */
TW_EXTERN int tw_service_create(struct tw_service **out, const struct tw_service_config *cfg);

/* How tw_service_shutdown() ends the pending timers. */
enum tw_shutdown {
    TW_SHUTDOWN_CANCEL = 0, /* every pending timer is stopped, none runs */
    TW_SHUTDOWN_DRAIN = 1   /* every pending timer fires at its deadline */
};

/* Stop the service: from now on every start fails with TW_ESHUTDOWN
 * (starts from callbacks too: a timer that re-arms itself fires once
 * more, then stops).  CANCEL stops every pending timer (each becomes idle,
 * as after tw_service_stop()); DRAIN waits until every pending timer has
 * fired at its deadline, however far (there is no timeout: stop the far
 * ones first).  Then it joins the threads:
 * when it returns, no callback is running and none will run, and every
 * timer of the service is idle (CANCEL writes to each pending timer: its
 * memory must still be valid).  Returns 0, TW_EINVAL (NULL, or `how`
 * neither of the two), TW_ESHUTDOWN (already shut down: it returns when
 * the first call has, which for a DRAIN is when the last timer has fired;
 * a later CANCEL does not cut that short), or TW_EDEADLK when called from
 * one of the service's callbacks (nothing changes). */
TW_EXTERN int tw_service_shutdown(struct tw_service *svc, enum tw_shutdown how);

/* Shut the service down if it is not (CANCEL), and free it.  Returns 0,
 * TW_EINVAL (NULL), or TW_EDEADLK from one of its callbacks (nothing
 * changes). */
TW_EXTERN int tw_service_destroy(struct tw_service *svc);

/* Initialise a service timer, idle, with its callback (a start of a
 * timer whose callback is NULL is TW_EINVAL).  Never on a timer that is
 * pending or running. */
TW_EXTERN void tw_stimer_init(struct tw_stimer *t, tw_stimer_fn *fn);

/* Start `t` to fire `ns` nanoseconds from now (rounded up to the next
 * tick: never early), from any thread; a pending timer is re-armed.  Now
 * is a reading of CLOCK_MONOTONIC the call takes as it begins, before it
 * waits for any lock, or a later one another thread gave the shard.  The
 * new generation goes to *gen (gen may be NULL).  Returns 0, or TW_EINVAL
 * (NULL svc or t), TW_ENOTINIT (t never initialised), TW_EOWNER (t is
 * pending on another service; one whose callback runs on another is not
 * caught: see "A timer belongs to one service" above), TW_ERANGE (beyond
 * the scheme's range), TW_ENOMEM (a scheme that grows), TW_ESHUTDOWN; on
 * error t is as it was. */
TW_EXTERN int tw_service_start(struct tw_service *svc, struct tw_stimer *t, uint64_t ns,
                               uint64_t *gen);

/* Start `t` to fire at `at_ns`, a time on CLOCK_MONOTONIC in nanoseconds
 * (tv_sec * 10^9 + tv_nsec of clock_gettime(CLOCK_MONOTONIC)), rounded up
 * to the next tick: never before it.  A time whose tick (so rounded) has
 * begun is due: it fires on the worker's next pass, at once or, if the
 * worker has already collected the next tick (docs/service.md), when that
 * tick begins; a time less than a tick past may round up to the tick to
 * come, and waits for it.
 * Otherwise as tw_service_start(), with its return codes, but as a rule
 * without reading the clock: a thread that
 * starts many timers from one reading (an event loop's cached time, as
 * libuv's uv_now() and nginx's cached msec) skips one clock read per
 * start.  The clock is read when the interval matters: with placement by
 * TTL (at_ns less the clock's reading picks an idle timer's shard), on
 * schemes that place a timer by its interval (lawn, hybrid,
 * hierarchical_coarse), and on a scheme with a range (wheel) when the
 * shard's time, left behind by a sleeping worker, puts at_ns beyond it. */
TW_EXTERN int tw_service_start_at(struct tw_service *svc, struct tw_stimer *t, uint64_t at_ns,
                                  uint64_t *gen);

/* Re-arm `t` to fire `ns` nanoseconds from now (as tw_service_start()
 * takes it: the clock is read as the call begins, whether or not it then
 * re-arms) only if it is pending, and, for a `gen` other than 0, still of
 * that generation (the kernel's mod_timer_pending(): push back a timeout
 * without reviving one another thread has stopped).  Returns 1 when it
 * re-armed (the new generation goes to *newgen, which may be NULL), 0
 * when it changed nothing (idle, fired, running and not re-armed, or a
 * stale gen), or tw_service_start()'s errors (t as it was). */
TW_EXTERN int tw_service_restart(struct tw_service *svc, struct tw_stimer *t, uint64_t ns,
                                 uint64_t gen, uint64_t *newgen);

/* tw_service_restart() at a time on the clock: `at_ns` as
 * tw_service_start_at() takes it (the kernel's mod_timer_pending() with
 * its absolute expiry).  No clock read: a producer that takes one reading
 * per batch re-arms each timer under one lock and nothing else.  Returns
 * tw_service_restart()'s codes and tw_service_start_at()'s errors. */
TW_EXTERN int tw_service_restart_at(struct tw_service *svc, struct tw_stimer *t, uint64_t at_ns,
                                    uint64_t gen, uint64_t *newgen);

/* Stop `t`, from any thread: 1 if it was pending (its callback will not
 * run for that start), 0 if not (idle, fired, running now, or gen is not
 * 0 and not its current generation), or TW_EINVAL, TW_ENOTINIT or
 * TW_EOWNER.  After tw_service_shutdown() every timer is idle: 0. */
TW_EXTERN int tw_service_stop(struct tw_service *svc, struct tw_stimer *t, uint64_t gen);

/* tw_service_stop(), then wait for the callback of `t` under way (see
 * "Stop semantics" above).  With gen 0 an arming made while it ran is
 * stopped too, and a run begun meanwhile waited for; with a gen (the
 * current one, whose arming is stopped, or the one whose callback runs),
 * only the run under way is waited for and a re-arm (a later generation)
 * is left pending; a gen neither
 * current nor running returns 0 at once, without waiting.  Returns 1 if it
 * stopped an arming, 0 if not, TW_EINVAL, TW_ENOTINIT, TW_EOWNER, or
 * TW_EDEADLK from t's own callback (nothing changes).  t must stay valid
 * until it returns: a callback that frees its own timer must be the only
 * code that stops it. */
TW_EXTERN int tw_service_stop_sync(struct tw_service *svc, struct tw_stimer *t, uint64_t gen);

/* What tw_service_timer_state() returns, OR-ed. */
enum tw_stimer_state {
    TW_STIMER_PENDING = 1, /* armed: its callback will run unless stopped */
    TW_STIMER_RUNNING = 2  /* its callback runs now (a re-arm from it: both) */
};

/* What `t` does on `svc`: TW_STIMER_PENDING and TW_STIMER_RUNNING OR-ed,
 * 0 for idle, or TW_EINVAL (NULL svc or t), TW_ENOTINIT, TW_EOWNER
 * (pending on another service).  While pending, *at_ns (if at_ns is not
 * NULL) gets its deadline: the start of its tick on CLOCK_MONOTONIC, in
 * nanoseconds, at or after the time it was started for; else *at_ns is
 * untouched.  A snapshot under t's shard lock: another thread may change
 * it as soon as this returns (as with the kernel's timer_pending()), so
 * act on it only where no other thread starts or stops t. */
TW_EXTERN int tw_service_timer_state(struct tw_service *svc, struct tw_stimer *t,
                                     uint64_t *at_ns);

/* Timers pending on the service, all shards (a sum over locked shards: a
 * snapshot, exact when no thread starts or stops). */
TW_EXTERN size_t tw_service_count(struct tw_service *svc);

/* The service's figures since creation. */
struct tw_service_stats {
    uint64_t wakeups;           /* a worker woke up (deadline, start, shutdown) */
    uint64_t fired;             /* callbacks run */
    uint64_t wakes_sent;        /* starts that woke a sleeping worker */
    uint64_t ahead;             /* ticks collected before they began (docs/service.md) */
};
/* Fill *st (summed over the shards).  Returns 0 or TW_EINVAL. */
TW_EXTERN int tw_service_stats(struct tw_service *svc, struct tw_service_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* TWHEEL_H */
