/*
 * test.h -- the test harness of twheel: assertion macros, the case context,
 * a small PRNG and the helpers the suites share.
 *
 * Every case is a function `void case_xxx(struct ctx *)` run once per
 * available scheme (and per start clock); see test_main.c.  An ASSERT_*
 * macro that fails prints both operands, the file and line and the case
 * context (case, scheme, start clock, seed, step), counts the failure and
 * returns from the enclosing function, which must therefore return void.
 * Helpers that want to stop their caller as well use RETURN_IF_FAILED().
 */
#ifndef TWHEEL_TEST_H
#define TWHEEL_TEST_H

#include "twheel.h"

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ context */

struct ctx {
    enum tw_scheme scheme;
    const char *scheme_name;
    const char *suite;
    const char *case_name;
    tw_time_t start;        /* the facility's time at creation */
    uint64_t seed;          /* differential: the seed of the run */
    uint64_t step;          /* differential: the operation being checked */
    const char *variant;    /* differential: "default" or "small" tables */
    struct tw_config cfg;   /* tw_config_init(scheme) defaults, start set */
};

/* The context printed with every failure (set by the runner). */
extern struct ctx *test_ctx;
/* Failures so far in the whole run, and when the current case began. */
extern unsigned long test_failures;
extern unsigned long test_failures_at_case_start;

void test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Print a note that is not a failure (e.g. a skipped sub-check). */
void test_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#define TEST_CASE_FAILED() (test_failures != test_failures_at_case_start)
#define RETURN_IF_FAILED()       \
    do {                         \
        if (TEST_CASE_FAILED()) \
            return;              \
    } while (0)

/* ----------------------------------------------------------- assertions */

#define ASSERT_TRUE(c)                                                 \
    do {                                                               \
        if (!(c)) {                                                    \
            test_fail(__FILE__, __LINE__, "ASSERT_TRUE(%s) is false", #c); \
            return;                                                    \
        }                                                              \
    } while (0)

#define ASSERT_FALSE(c)                                                \
    do {                                                               \
        if (c) {                                                       \
            test_fail(__FILE__, __LINE__, "ASSERT_FALSE(%s) is true", #c); \
            return;                                                    \
        }                                                              \
    } while (0)

#define TEST_CMP_U64_(a, op, b)                                                   \
    do {                                                                          \
        uint64_t tst_a_ = (uint64_t)(a), tst_b_ = (uint64_t)(b);                  \
        if (!(tst_a_ op tst_b_)) {                                                \
            test_fail(__FILE__, __LINE__,                                         \
                      "%s %s %s: left %" PRIu64 " (%#" PRIx64 "), right %" PRIu64 \
                      " (%#" PRIx64 ")",                                          \
                      #a, #op, #b, tst_a_, tst_a_, tst_b_, tst_b_);               \
            return;                                                               \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_U64(a, b) TEST_CMP_U64_(a, ==, b)
#define ASSERT_NE_U64(a, b) TEST_CMP_U64_(a, !=, b)
#define ASSERT_LE_U64(a, b) TEST_CMP_U64_(a, <=, b)
#define ASSERT_LT_U64(a, b) TEST_CMP_U64_(a, <, b)
#define ASSERT_GE_U64(a, b) TEST_CMP_U64_(a, >=, b)
#define ASSERT_GT_U64(a, b) TEST_CMP_U64_(a, >, b)

#define TEST_CMP_INT_(a, op, b)                                                   \
    do {                                                                          \
        long long tst_a_ = (long long)(a), tst_b_ = (long long)(b);               \
        if (!(tst_a_ op tst_b_)) {                                                \
            test_fail(__FILE__, __LINE__, "%s %s %s: left %lld, right %lld", #a,  \
                      #op, #b, tst_a_, tst_b_);                                   \
            return;                                                               \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_INT(a, b) TEST_CMP_INT_(a, ==, b)
#define ASSERT_NE_INT(a, b) TEST_CMP_INT_(a, !=, b)
#define ASSERT_LE_INT(a, b) TEST_CMP_INT_(a, <=, b)
#define ASSERT_LT_INT(a, b) TEST_CMP_INT_(a, <, b)
#define ASSERT_GE_INT(a, b) TEST_CMP_INT_(a, >=, b)
#define ASSERT_GT_INT(a, b) TEST_CMP_INT_(a, >, b)

/* A return code compared with an expected one, both printed by name. */
#define ASSERT_EQ_RC(a, b)                                                        \
    do {                                                                          \
        long long tst_a_ = (long long)(a), tst_b_ = (long long)(b);               \
        if (tst_a_ != tst_b_) {                                                   \
            test_fail(__FILE__, __LINE__, "%s == %s: left %lld (%s), right %lld (%s)", \
                      #a, #b, tst_a_, test_rc_name(tst_a_), tst_b_,              \
                      test_rc_name(tst_b_));                                      \
            return;                                                               \
        }                                                                         \
    } while (0)

/* An expression that must return 0 (TW_OK). */
#define ASSERT_OK(expr)                                                           \
    do {                                                                          \
        long long tst_rc_ = (long long)(expr);                                    \
        if (tst_rc_ != 0) {                                                       \
            test_fail(__FILE__, __LINE__, "%s returned %lld (%s: %s), expected 0", \
                      #expr, tst_rc_, test_rc_name(tst_rc_),                     \
                      tst_rc_ >= INT_MIN && tst_rc_ < 0 ? tw_strerror((int)tst_rc_) \
                                                         : "?");                  \
            return;                                                               \
        }                                                                         \
    } while (0)

/* tw_check() must pass; its own message is printed when it does not. */
#define ASSERT_CHECK(tw)                                                          \
    do {                                                                          \
        char tst_msg_[512];                                                       \
        int tst_rc_ = tw_check((tw), tst_msg_, sizeof tst_msg_);                  \
        if (tst_rc_ != 0) {                                                       \
            test_fail(__FILE__, __LINE__, "tw_check(%s) returned %d (%s): %s", #tw, \
                      tst_rc_, tw_err_name(tst_rc_), tst_msg_);                  \
            return;                                                               \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_PTR(a, b)                                                       \
    do {                                                                          \
        const void *tst_a_ = (const void *)(a), *tst_b_ = (const void *)(b);      \
        if (tst_a_ != tst_b_) {                                                   \
            test_fail(__FILE__, __LINE__, "%s == %s: left %p, right %p", #a, #b,  \
                      tst_a_, tst_b_);                                            \
            return;                                                               \
        }                                                                         \
    } while (0)

#define ASSERT_NULL(a) ASSERT_EQ_PTR(a, NULL)
#define ASSERT_NOT_NULL(a)                                                        \
    do {                                                                          \
        if ((a) == NULL) {                                                        \
            test_fail(__FILE__, __LINE__, "%s is NULL", #a);                     \
            return;                                                               \
        }                                                                         \
    } while (0)

#define ASSERT_EQ_STR(a, b)                                                       \
    do {                                                                          \
        const char *tst_a_ = (a), *tst_b_ = (b);                                  \
        if (tst_a_ == NULL || tst_b_ == NULL || strcmp(tst_a_, tst_b_) != 0) {    \
            test_fail(__FILE__, __LINE__, "%s == %s: left \"%s\", right \"%s\"",  \
                      #a, #b, tst_a_ ? tst_a_ : "(null)", tst_b_ ? tst_b_ : "(null)"); \
            return;                                                               \
        }                                                                         \
    } while (0)

/* tw_err_name() for codes in the error range, "" otherwise. */
const char *test_rc_name(long long rc);

/* ---------------------------------------------------------------- PRNG */

#include "../common/rng.h"

/* ------------------------------------------------------------- helpers */

static inline tw_time_t sat_add(tw_time_t a, tw_time_t b)
{
    return a > TW_TIME_MAX - b ? TW_TIME_MAX : a + b;
}

static inline tw_time_t sat_sub(tw_time_t a, tw_time_t b)
{
    return a < b ? 0 : a - b;
}

static inline tw_time_t min_u64(tw_time_t a, tw_time_t b) { return a < b ? a : b; }
static inline tw_time_t max_u64(tw_time_t a, tw_time_t b) { return a > b ? a : b; }

/* What each scheme promises, read from its traits (src/scheme.h), so that
 * a new scheme is tested by what it declares, with no line here. */

/* 1 for schemes that fire at exactly the deadline's tick; 0 for those that
 * may fire late (never early), as hierarchical_coarse. */
int scheme_exact(enum tw_scheme s);

/* What order a scheme promises among the timers of one advance (twheel.h,
 * tw_advance): 2, deadline order and start order among equal deadlines;
 * 1, start order among equal deadlines only; 0, none. */
int scheme_fifo(enum tw_scheme s);

/* 1 for schemes whose tw_start() may ask the allocator for memory. */
int scheme_allocates(enum tw_scheme s);

/* 1 for schemes that take tw_ttl_hint(). */
int scheme_takes_hints(enum tw_scheme s);

/* The TW_OPT_ bits the scheme takes. */
uint32_t scheme_options(enum tw_scheme s);

/* The last tick by which a timer started at `start_now` with absolute
 * `deadline` must have fired (the deadline itself for exact schemes), for
 * the scheme's default configuration... */
tw_time_t latest_fire(enum tw_scheme s, tw_time_t start_now, tw_time_t deadline);
/* ...and for a facility with `slots` slots per level. */
tw_time_t latest_fire_slots(enum tw_scheme s, uint32_t slots, tw_time_t start_now,
                            tw_time_t deadline);

/* Create a facility from the case's default configuration (ASSERTs). */
struct tw *test_create(struct ctx *c);

/* min(interval, tw_max_interval(tw)): long intervals capped for `wheel`. */
tw_time_t cap_interval(const struct tw *tw, tw_time_t interval);

/* ----------------------------------------------------------- allocators */

/* A counting allocator that can be told to fail: it checks that every free
 * gives back the size that was handed out, and counts outstanding bytes. */
#define TEST_ALLOC_MAX_BLOCKS 8192

struct test_alloc {
    struct tw_allocator a;      /* points back at this struct through ctx */
    size_t outstanding;         /* bytes handed out and not freed */
    size_t peak;
    unsigned long calls;        /* alloc + realloc calls */
    unsigned long frees;
    long fail_after;            /* calls that succeed before all fail; <0 never */
    unsigned long size_errors;  /* frees/reallocs with a wrong old size */
    unsigned long unknown_ptrs; /* frees/reallocs of a pointer never handed out */
    struct {
        void *p;
        size_t size;
    } blocks[TEST_ALLOC_MAX_BLOCKS];
    size_t nblocks;
};

/* with_realloc: provide realloc_fn (else NULL: the library copies). */
void test_alloc_init(struct test_alloc *ta, int with_realloc);

/* ------------------------------------------------------ recording timer */

/* What tt_cb() does after recording that it ran. */
enum tt_action {
    ACT_NONE,
    ACT_STOP_SELF,          /* rc = tw_stop(self) */
    ACT_STOP_OTHER,         /* rc = tw_stop(other) */
    ACT_RESTART_SELF,       /* rc = tw_start(self, arg) */
    ACT_RESTART_SELF_AT,    /* rc = tw_start_at(self, arg) */
    ACT_RESTART_OTHER,      /* rc = tw_start(other, arg) */
    ACT_FREE_SELF,          /* free(self): the node was malloc'd */
    ACT_REENTER,            /* the calls refused from a callback, and tw2 */
    ACT_INSPECT             /* tw_check, tw_next_expiry, tw_count from inside */
};

struct ttimer {
    struct tw_timer node;
    int id;
    int fired;              /* callbacks run */
    tw_time_t fired_at;     /* tw_now() in the last callback */
    enum tt_action action;
    int budget;             /* actions left (then ACT_NONE); < 0: unlimited */
    struct ttimer *other;
    tw_time_t arg;
    struct tw *tw2;         /* ACT_REENTER: another facility to advance */
    tw_time_t tw2_now;
    /* Results of the last action. */
    int rc;
    int64_t rc_advance, rc_advance_later, rc_collect, rc_destroy, rc_tw2;
    int rc_check;
    char check_msg[256];
    int rc_next;
    tw_time_t next;
    size_t count_in_cb;
    int pending_in_cb, other_pending_in_cb;
    tw_time_t deadline_in_cb;
};

/* Every tt_cb() call in order (ids and tw_now()). */
#define TEST_LOG_MAX 1024
struct fire_log {
    int n;
    int ids[TEST_LOG_MAX];
    tw_time_t at[TEST_LOG_MAX];
};
extern struct fire_log test_log;

static inline struct ttimer *tt_of(struct tw_timer *t)
{
    return tw_container_of(t, struct ttimer, node);
}

/* Zero `x`, tw_timer_init() its node with tt_cb, set its id. */
void tt_init(struct ttimer *x, int id);
void tt_cb(struct tw *tw, struct tw_timer *t);
void test_log_reset(void);
/* Whichever of a and b ran first since the last reset, or NULL. */
struct ttimer *test_log_first(struct ttimer *a, struct ttimer *b);

/* ---------------------------------------------------------------- suites */

typedef void test_fn(struct ctx *c);

struct test_case {
    const char *name;
    test_fn *fn;
    int all_clocks;         /* 1: run at every start clock; 0: at 0 only */
};

/* The suites: cases of the contract (test_cases.c), bad input
 * (test_badinput.c), the differential test (test_differential.c), and the
 * scheme-independent API checks (test_badinput.c, run once). */
extern const struct test_case test_suite_cases[];
extern const size_t test_suite_cases_count;
extern const struct test_case test_suite_badinput[];
extern const size_t test_suite_badinput_count;
extern const struct test_case test_suite_differential[];
extern const size_t test_suite_differential_count;
extern const struct test_case test_suite_api[];
extern const size_t test_suite_api_count;

/* Differential knobs (command line --steps, --seeds), and -v. */
extern unsigned long test_diff_steps;
extern unsigned test_diff_seeds;
extern int test_verbose;

#endif /* TWHEEL_TEST_H */
