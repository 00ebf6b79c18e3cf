/*
 * test_badinput.c -- bad input gets its error code and changes nothing
 * (the contract's item 8, docs/design.md), allocator failures and accounting, and the
 * scheme-independent API checks (suite "api").
 *
 * "Changes nothing" is checked against a background of timers in every
 * state a facility can hold them (due, near, far) started before the bad
 * call: after it, tw_check() passes, and the clock, the count, each
 * background timer's pending flag and deadline, the next expiry and the
 * facility's memory are what they were.
 */
#include "test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CREATE(name)                  \
    struct tw *name = test_create(c); \
    if (name == NULL)                 \
        return

/* A pointer value tw_create() must leave alone on failure. */
static char sentinel_byte;
#define SENTINEL ((struct tw *)(void *)&sentinel_byte)

/* ------------------------------------------------------------ background */

#define NBG 5

struct bg {
    struct ttimer t[NBG];
    tw_time_t dl[NBG];
    tw_time_t now;
    size_t count;
    int rc_next;
    tw_time_t next;
    size_t memory;
};

static void bg_setup(struct tw *tw, struct bg *b)
{
    const tw_time_t ivs[NBG] = {0, 1, 10, cap_interval(tw, 1000),
                                cap_interval(tw, 1ull << 40)};
    memset(b, 0, sizeof *b);
    for (int i = 0; i < NBG; i++) {
        tt_init(&b->t[i], 200 + i);
        ASSERT_OK(tw_start(tw, &b->t[i].node, ivs[i]));
        b->dl[i] = tw_timer_deadline(&b->t[i].node);
    }
    ASSERT_CHECK(tw);
    b->now = tw_now(tw);
    b->count = tw_count(tw);
    ASSERT_EQ_U64(b->count, NBG);
    b->rc_next = tw_next_expiry(tw, &b->next);
    ASSERT_EQ_INT(b->rc_next, 1);
    b->memory = tw_memory(tw);
}

static void bg_verify(struct tw *tw, const struct bg *b)
{
    ASSERT_CHECK(tw);
    ASSERT_EQ_U64(tw_now(tw), b->now);
    ASSERT_EQ_U64(tw_count(tw), b->count);
    for (int i = 0; i < NBG; i++) {
        ASSERT_EQ_INT(tw_timer_pending(&b->t[i].node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&b->t[i].node), b->dl[i]);
        ASSERT_EQ_INT(b->t[i].fired, 0);
    }
    tw_time_t ne = 0;
    ASSERT_EQ_INT(tw_next_expiry(tw, &ne), b->rc_next);
    ASSERT_EQ_U64(ne, b->next);
    ASSERT_EQ_U64(tw_memory(tw), b->memory);
    ASSERT_NULL(tw_get_expired(tw));
}

/* The background fires as it should once the bad calls are over. */
static void bg_finish(struct ctx *c, struct tw *tw, struct bg *b)
{
    tw_time_t to = b->now;
    for (int i = 0; i < NBG; i++)
        to = max_u64(to, latest_fire(c->scheme, b->now, b->dl[i]));
    ASSERT_EQ_INT(tw_advance(tw, to), NBG);
    ASSERT_CHECK(tw);
    for (int i = 0; i < NBG; i++)
        ASSERT_EQ_INT(b->t[i].fired, 1);
}

/* A bad call: its code, and nothing changed. */
#define BAD(expr, code)          \
    do {                         \
        ASSERT_EQ_RC(expr, code); \
        bg_verify(tw, &b);       \
        RETURN_IF_FAILED();      \
    } while (0)

/* ------------------------------------------------------------ NULL input */

static void case_null_args(struct ctx *c)
{
    CREATE(tw);
    struct bg b;
    bg_setup(tw, &b);
    RETURN_IF_FAILED();
    struct ttimer x;
    tt_init(&x, 1);
    tw_time_t d = 0;
    char msg[64];
    struct tw_timer *pend = &b.t[2].node;

    BAD(tw_start(NULL, &x.node, 1), TW_EINVAL);
    BAD(tw_start(tw, NULL, 1), TW_EINVAL);
    BAD(tw_start(tw, NULL, TW_TIME_MAX), TW_EINVAL); /* NULL first, even beyond MaxInterval */
    BAD(tw_start(tw, NULL, 0), TW_EINVAL);
    BAD(tw_start(NULL, NULL, 1), TW_EINVAL);
    BAD(tw_start(NULL, pend, 100), TW_EINVAL);
    BAD(tw_start_at(NULL, &x.node, 1), TW_EINVAL);
    BAD(tw_start_at(tw, NULL, 1), TW_EINVAL);
    BAD(tw_start_at(NULL, pend, 100), TW_EINVAL);
    BAD(tw_stop(NULL, &x.node), TW_EINVAL);
    BAD(tw_stop(tw, NULL), TW_EINVAL);
    BAD(tw_stop(NULL, pend), TW_EINVAL);
    BAD(tw_advance(NULL, tw_now(tw) + 1), TW_EINVAL);
    BAD(tw_collect(NULL, tw_now(tw) + 1), TW_EINVAL);
    BAD(tw_next_expiry(NULL, &d), TW_EINVAL);
    BAD(tw_next_expiry(tw, NULL), TW_EINVAL);
    BAD(tw_next_wakeup(NULL, &d), TW_EINVAL);
    BAD(tw_next_wakeup(tw, NULL), TW_EINVAL);
    BAD(tw_check(NULL, msg, sizeof msg), TW_EINVAL);
    BAD(tw_check(NULL, NULL, 0), TW_EINVAL);
    BAD(tw_destroy(NULL), TW_EINVAL);
    BAD(tw_create(NULL, &c->cfg), TW_EINVAL);
    BAD(tw_config_init(NULL, c->scheme), TW_EINVAL);
    ASSERT_NULL(tw_get_expired(NULL));
    ASSERT_EQ_U64(tw_count(NULL), 0);
    ASSERT_EQ_U64(tw_now(NULL), 0);
    ASSERT_EQ_U64(tw_memory(NULL), 0);
    ASSERT_EQ_U64(tw_max_interval(NULL), 0);
    ASSERT_EQ_INT(tw_timer_pending(NULL), 0);
    tw_timer_init(NULL, tt_cb);          /* no crash */
    tw_timer_set_callback(NULL, tt_cb);  /* no crash */
    ASSERT_EQ_U64(tw_timer_deadline(NULL), 0);
    ASSERT_EQ_INT((int)tw_get_scheme(NULL), (int)TW_SCHEME_COUNT);
    ASSERT_EQ_INT((int)tw_get_scheme(tw), (int)c->scheme);
    {
        /* a node never initialised: set_callback leaves it alone */
        struct tw_timer junk, copy;
        memset(&junk, 0x5a, sizeof junk);
        copy = junk;
        tw_timer_set_callback(&junk, tt_cb);
        ASSERT_EQ_INT(memcmp(&junk, &copy, sizeof junk), 0);
    }
    /* tw_ttl_hint: bad arguments, and schemes without TTL queues */
    BAD(tw_ttl_hint(NULL, 5, TW_TTL_QUEUE), TW_EINVAL);
    BAD(tw_ttl_hint(tw, 0, TW_TTL_QUEUE), TW_EINVAL);
    BAD(tw_ttl_hint(tw, 5, (enum tw_ttl_hint)7), TW_EINVAL);
    BAD(tw_ttl_hint(tw, 5, (enum tw_ttl_hint)(TW_TTL_WHEEL + 1)), TW_EINVAL); /* the first past the last */
    if (!scheme_takes_hints(c->scheme))
        BAD(tw_ttl_hint(tw, 5, TW_TTL_QUEUE), TW_EINVAL);
    bg_verify(tw, &b);
    RETURN_IF_FAILED();
    /* tw_check() with no room for a message */
    ASSERT_EQ_INT(tw_check(tw, NULL, 0), 0);
    ASSERT_EQ_INT(tw_check(tw, msg, 0), 0);
    ASSERT_EQ_INT(tw_timer_pending(&x.node), 0);
    ASSERT_EQ_INT(x.fired, 0);
    bg_finish(c, tw, &b);
    RETURN_IF_FAILED();
    ASSERT_EQ_INT(x.fired, 0);
    ASSERT_OK(tw_destroy(tw));
}

/* ----------------------------------------------------- never initialised */

static void case_not_initialised(struct ctx *c)
{
    static const unsigned char fills[] = {0x00, 0xa5, 0x5a, 0xff, 0x01};
    CREATE(tw);
    struct bg b;
    bg_setup(tw, &b);
    RETURN_IF_FAILED();
    for (size_t i = 0; i < sizeof fills; i++) {
        struct tw_timer n, copy;
        memset(&n, fills[i], sizeof n);
        memcpy(&copy, &n, sizeof n);
        BAD(tw_start(tw, &n, 1), TW_ENOTINIT);
        BAD(tw_start(tw, &n, 0), TW_ENOTINIT);
        BAD(tw_start_at(tw, &n, tw_now(tw)), TW_ENOTINIT);
        BAD(tw_stop(tw, &n), TW_ENOTINIT);
        ASSERT_EQ_INT(tw_timer_pending(&n), 0);
        if (memcmp(&n, &copy, sizeof n) != 0) {
            test_fail(__FILE__, __LINE__,
                      "a refused uninitialised node (fill %#x) was written to", fills[i]);
            return;
        }
        /* still refused after an advance (nothing of it was linked in) */
        ASSERT_EQ_INT(tw_advance(tw, tw_now(tw)), 1); /* the background's due one */
        b.t[0].fired = 0;
        ASSERT_OK(tw_start(tw, &b.t[0].node, 0));
        bg_verify(tw, &b);
        RETURN_IF_FAILED();
    }
    bg_finish(c, tw, &b);
    RETURN_IF_FAILED();
    ASSERT_OK(tw_destroy(tw));
}

/* ---------------------------------------------------- two facilities */

/* A node pending on A is refused by B (start, start_at, stop: TW_EOWNER),
 * wherever it is on A: in the scheme, due, or in the expired queue. */
static void case_owner(struct ctx *c)
{
    CREATE(a);
    struct tw *bfac = test_create(c);
    ASSERT_NOT_NULL(bfac);
    struct ttimer x, y;
    tt_init(&x, 1);
    tt_init(&y, 2);
    ASSERT_OK(tw_start(bfac, &y.node, 4)); /* B is not empty either */
    tw_time_t bdl = tw_timer_deadline(&y.node);
    for (int where = 0; where < 3; where++) {
        tw_time_t now = tw_now(a);
        if (where == 0)
            ASSERT_OK(tw_start(a, &x.node, 10));
        else if (where == 1)
            ASSERT_OK(tw_start(a, &x.node, 0));
        else {
            ASSERT_OK(tw_start(a, &x.node, 0));
            ASSERT_EQ_INT(tw_collect(a, now), 1);
        }
        tw_time_t dl = tw_timer_deadline(&x.node);
        ASSERT_EQ_RC(tw_start(bfac, &x.node, 5), TW_EOWNER);
        ASSERT_EQ_RC(tw_start(bfac, &x.node, 0), TW_EOWNER);
        ASSERT_EQ_RC(tw_start_at(bfac, &x.node, tw_now(bfac)), TW_EOWNER);
        ASSERT_EQ_RC(tw_stop(bfac, &x.node), TW_EOWNER);
        ASSERT_CHECK(a);
        ASSERT_CHECK(bfac);
        ASSERT_EQ_U64(tw_count(a), 1);
        ASSERT_EQ_U64(tw_count(bfac), 1);
        ASSERT_EQ_INT(tw_timer_pending(&x.node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&x.node), dl);
        ASSERT_EQ_INT(tw_timer_pending(&y.node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&y.node), bdl);
        ASSERT_EQ_U64(tw_now(a), now);
        /* still A's: it expires on A */
        if (where == 2) {
            ASSERT_EQ_PTR(tw_get_expired(a), &x.node);
        } else {
            ASSERT_EQ_INT(tw_advance(a, latest_fire(c->scheme, now, dl)), 1);
            ASSERT_EQ_INT(x.fired, where + 1);
        }
        ASSERT_EQ_INT(tw_timer_pending(&x.node), 0);
        ASSERT_CHECK(a);
    }
    /* once idle, B may take it; then A refuses it */
    ASSERT_OK(tw_start(bfac, &x.node, 2));
    ASSERT_EQ_RC(tw_stop(a, &x.node), TW_EOWNER);
    ASSERT_EQ_RC(tw_start(a, &x.node, 2), TW_EOWNER);
    ASSERT_EQ_INT(tw_stop(bfac, &x.node), 1);
    ASSERT_EQ_INT(tw_stop(bfac, &y.node), 1);
    ASSERT_CHECK(a);
    ASSERT_CHECK(bfac);
    ASSERT_OK(tw_destroy(a));
    ASSERT_OK(tw_destroy(bfac));
}

/* ------------------------------------------------------- configuration */

/* tw_create() refuses cfg with TW_ECONFIG and leaves *out alone, and
 * tw_config_check() says so with a reason that names `field` first. */
static void expect_config_refused(struct ctx *c, const struct tw_config *cfg,
                                  const char *what, const char *field)
{
    const char *why = NULL;
    ASSERT_EQ_INT(tw_config_check(cfg, &why), TW_ECONFIG);
    size_t fl = strlen(field);
    if (why == NULL || strncmp(why, field, fl) != 0 || why[fl] != ':')
        test_fail(__FILE__, __LINE__, "tw_config_check(%s, slots %u, levels %u): why \"%s\", "
                  "expected \"%s: ...\"", what, cfg->slots, cfg->levels, why ? why : "(null)",
                  field);
    ASSERT_EQ_INT(tw_config_check(cfg, NULL), TW_ECONFIG);
    struct tw *out = SENTINEL;
    int rc = tw_create(&out, cfg);
    if (rc != TW_ECONFIG) {
        test_fail(__FILE__, __LINE__,
                  "tw_create(%s, slots %u, levels %u) returned %d (%s), expected TW_ECONFIG",
                  what, cfg->slots, cfg->levels, rc, tw_err_name(rc));
        if (rc == 0 && out != SENTINEL && out != NULL)
            tw_destroy(out);
        return;
    }
    ASSERT_EQ_PTR(out, SENTINEL);
    (void)c;
}

static void expect_config_ok(struct ctx *c, const struct tw_config *cfg, const char *what)
{
    const char *why = "unset";
    ASSERT_EQ_INT(tw_config_check(cfg, &why), 0);
    ASSERT_EQ_PTR(why, NULL);
    struct tw *out = NULL;
    int rc = tw_create(&out, cfg);
    if (rc != 0) {
        test_fail(__FILE__, __LINE__,
                  "tw_create(%s, slots %u, levels %u) returned %d (%s), expected 0", what,
                  cfg->slots, cfg->levels, rc, tw_err_name(rc));
        return;
    }
    ASSERT_NOT_NULL(out);
    ASSERT_EQ_INT(tw_get_scheme(out), c->scheme);
    ASSERT_EQ_U64(tw_now(out), cfg->start);
    ASSERT_CHECK(out);
    ASSERT_OK(tw_destroy(out));
}

/* Bits of time one level of `slots` (a power of two) covers. */
static unsigned log2u(uint32_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

/* Every mismatch is reported (no early return), so one run lists them all. */
static void case_config(struct ctx *c)
{
    struct tw_config cfg;
    switch (c->scheme) {
    case TW_WHEEL:
    case TW_HASHED:
    case TW_HASHED_SORTED: {
        /* twheel.h: a power of two, at most 2^28 */
        static const uint32_t bad[] = {0,    3,          6,          100,         4095,
                                       4097, 1u << 29,   1u << 31,   0x80000001u, UINT32_MAX};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            cfg = c->cfg;
            cfg.slots = bad[i];
            expect_config_refused(c, &cfg, c->scheme_name, "slots");
        }
        static const uint32_t good[] = {1, 16, 64, 4096};
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
            cfg = c->cfg;
            cfg.slots = good[i];
            expect_config_ok(c, &cfg, c->scheme_name);
        }
        /* the cap itself, checked without allocating its 4 GiB of heads */
        cfg = c->cfg;
        cfg.slots = 1u << 28;
        ASSERT_EQ_INT(tw_config_check(&cfg, NULL), 0);
        break;
    }
    case TW_HIERARCHICAL:
    case TW_HIERARCHICAL_COARSE:
    case TW_HYBRID: {
        /* twheel.h: a power of two from 2 (coarse: 16) to 256 */
        static const uint32_t bad[] = {0, 1, 3, 100, 512, 1024, 0x80000000u, UINT32_MAX};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            cfg = c->cfg;
            cfg.slots = bad[i];
            expect_config_refused(c, &cfg, c->scheme_name, "slots");
        }
        static const uint32_t coarse_bad[] = {2, 4, 8};
        for (size_t i = 0; c->scheme == TW_HIERARCHICAL_COARSE && i < 3; i++) {
            cfg = c->cfg;
            cfg.slots = coarse_bad[i];
            expect_config_refused(c, &cfg, c->scheme_name, "slots");
        }
        static const uint32_t good[] = {2, 4, 8, 16, 64, 256};
        for (size_t i = c->scheme == TW_HIERARCHICAL_COARSE ? 3 : 0;
             i < sizeof good / sizeof good[0]; i++) {
            cfg = c->cfg;
            cfg.slots = good[i];
            cfg.levels = 0;
            expect_config_ok(c, &cfg, c->scheme_name);
            cfg.levels = 1; /* one level never covers 64 bits */
            expect_config_refused(c, &cfg, c->scheme_name, "levels");
            if (c->scheme == TW_HIERARCHICAL_COARSE) {
                /* levels each 8 times coarser than the one below
                 * (hierarchical_coarse.c): exactly one count of levels is
                 * accepted besides 0, and one fewer is refused */
                uint32_t need = 0;
                for (uint32_t l = 1; l <= 70; l++) {
                    cfg.levels = l;
                    if (tw_config_check(&cfg, NULL) == 0) {
                        ASSERT_EQ_INT(need, 0);
                        need = l;
                    }
                }
                ASSERT_TRUE(need > 1);
                cfg.levels = need;
                expect_config_ok(c, &cfg, c->scheme_name);
                cfg.levels = need - 1;
                expect_config_refused(c, &cfg, c->scheme_name, "levels");
            } else {
                /* levels of S-slot wheels, each S times coarser: 64 bits
                 * need ceil(64 / log2 S) levels, and one fewer is refused */
                unsigned bits = log2u(good[i]);
                uint32_t need = (64 + bits - 1) / bits;
                cfg.levels = need;
                expect_config_ok(c, &cfg, c->scheme_name);
                cfg.levels = need - 1;
                expect_config_refused(c, &cfg, c->scheme_name, "levels");
            }
        }
        /* Absurd level counts: the header says levels is 0 or exactly what
         * covers 64 bits. */
        static const uint32_t absurd[] = {1000, 0x10000, UINT32_MAX};
        for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
            cfg = c->cfg;
            cfg.levels = absurd[i];
            expect_config_refused(c, &cfg, c->scheme_name, "levels");
        }
        break;
    }
    default: {
        /* a scheme without a table (tw_config_init() gives it no slots:
         * list, ordered, heap, lawn) ignores slots; one with a table of
         * its own rules has its own case above */
        if (c->cfg.slots != 0)
            break;
        static const uint32_t any[] = {0, 3, UINT32_MAX};
        for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) {
            cfg = c->cfg;
            cfg.slots = any[i];
            expect_config_ok(c, &cfg, c->scheme_name);
        }
        break;
    }
    }
    /* an allocator missing a function is not a configuration to accept */
    struct tw_allocator broken = {NULL, NULL, NULL, NULL};
    cfg = c->cfg;
    cfg.allocator = &broken;
    expect_config_refused(c, &cfg, c->scheme_name, "allocator");
    /* options: known bits only, each for its own scheme */
    cfg = c->cfg;
    cfg.options = 0x80u;
    expect_config_refused(c, &cfg, c->scheme_name, "options");
    static const uint32_t opts[] = {TW_OPT_LAWN_SCAN, TW_OPT_ORDERED_FRONT, TW_OPT_REAL_TIME};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        cfg.options = opts[i];
        if (scheme_options(c->scheme) & opts[i])
            expect_config_ok(c, &cfg, c->scheme_name);
        else
            expect_config_refused(c, &cfg, c->scheme_name, "options");
    }
    ASSERT_EQ_INT(scheme_options(TW_LAWN), TW_OPT_LAWN_SCAN);
    ASSERT_EQ_INT(scheme_options(TW_ORDERED), TW_OPT_ORDERED_FRONT);
    ASSERT_EQ_INT(scheme_options(TW_HIERARCHICAL), TW_OPT_REAL_TIME);
    ASSERT_EQ_INT(scheme_options(TW_HYBRID), TW_OPT_REAL_TIME);
    /* a scheme out of the enum; a NULL configuration */
    cfg = c->cfg;
    cfg.scheme = (enum tw_scheme)TW_SCHEME_COUNT;
    expect_config_refused(c, &cfg, c->scheme_name, "scheme");
    const char *why = "unset"; /* NULL: the defaults, as tw_create() */
    ASSERT_EQ_INT(tw_config_check(NULL, &why), 0);
    ASSERT_EQ_PTR(why, NULL);
}

/* ------------------------------------------------------------ wheel range */

static void case_range(struct ctx *c)
{
    CREATE(tw);
    tw_time_t maxi = tw_max_interval(tw);
    struct ttimer x, y;
    tt_init(&x, 1);
    tt_init(&y, 2);
    if (c->scheme != TW_WHEEL) {
        ASSERT_EQ_U64(maxi, TW_TIME_MAX);
        ASSERT_OK(tw_start(tw, &x.node, TW_TIME_MAX));
        ASSERT_EQ_U64(tw_timer_deadline(&x.node), TW_TIME_MAX);
        ASSERT_OK(tw_start_at(tw, &y.node, TW_TIME_MAX));
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(tw_stop(tw, &x.node), 1);
        ASSERT_EQ_INT(tw_stop(tw, &y.node), 1);
        ASSERT_OK(tw_destroy(tw));
        return;
    }
    ASSERT_EQ_U64(maxi, c->cfg.slots);
    struct bg b;
    bg_setup(tw, &b);
    RETURN_IF_FAILED();
    tw_time_t now = tw_now(tw);

    /* refused: nothing started */
    BAD(tw_start(tw, &x.node, maxi + 1), TW_ERANGE);
    BAD(tw_start(tw, &x.node, 1ull << 40), TW_ERANGE);
    BAD(tw_start_at(tw, &x.node, now + maxi + 1), TW_ERANGE);
    BAD(tw_start_at(tw, &x.node, sat_add(now, 1ull << 40)), TW_ERANGE);
    BAD(tw_start_at(tw, &x.node, TW_TIME_MAX), TW_ERANGE);
    ASSERT_EQ_INT(tw_timer_pending(&x.node), 0);
    {
        /* the node's errors come before the range's, for start as for
         * start_at */
        struct tw_timer junk;
        memset(&junk, 0x5a, sizeof junk);
        BAD(tw_start(tw, &junk, maxi + 1), TW_ENOTINIT);
        BAD(tw_start_at(tw, &junk, now + maxi + 1), TW_ENOTINIT);
        struct tw *other = NULL;
        ASSERT_OK(tw_create(&other, &c->cfg));
        ASSERT_OK(tw_start(other, &y.node, 1));
        BAD(tw_start(tw, &y.node, maxi + 1), TW_EOWNER);
        BAD(tw_start_at(tw, &y.node, now + maxi + 1), TW_EOWNER);
        ASSERT_EQ_INT(tw_stop(other, &y.node), 1);
        ASSERT_OK(tw_destroy(other));
    }
    {
        /* near the end of time the deadline would saturate into range:
         * the interval itself is still refused */
        struct tw_config hc = c->cfg;
        hc.start = TW_TIME_MAX - 10;
        struct tw *hi = NULL;
        ASSERT_OK(tw_create(&hi, &hc));
        ASSERT_EQ_INT(tw_start(hi, &x.node, maxi + 1), TW_ERANGE);
        ASSERT_EQ_INT(tw_timer_pending(&x.node), 0);
        ASSERT_EQ_INT(tw_count(hi), 0);
        ASSERT_OK(tw_destroy(hi));
    }

    /* re-arm refused: the timer stays pending with its old deadline, whether
     * it was in the wheel or due */
    for (int v = 0; v < 2; v++) {
        ASSERT_OK(tw_start(tw, &y.node, v ? 0 : 5));
        tw_time_t dy = tw_timer_deadline(&y.node);
        b.count++;
        b.rc_next = tw_next_expiry(tw, &b.next);
        BAD(tw_start(tw, &y.node, maxi + 1), TW_ERANGE);
        BAD(tw_start_at(tw, &y.node, now + maxi + 7), TW_ERANGE);
        ASSERT_EQ_INT(tw_timer_pending(&y.node), 1);
        ASSERT_EQ_U64(tw_timer_deadline(&y.node), dy);
        ASSERT_EQ_INT(tw_stop(tw, &y.node), 1);
        b.count--;
        b.rc_next = tw_next_expiry(tw, &b.next);
    }
    bg_verify(tw, &b);
    RETURN_IF_FAILED();

    /* the limit itself is accepted and fires on time */
    ASSERT_OK(tw_start(tw, &x.node, maxi));
    ASSERT_EQ_U64(tw_timer_deadline(&x.node), now + maxi);
    ASSERT_OK(tw_start_at(tw, &y.node, now + maxi));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_advance(tw, now + maxi - 1), NBG - 1); /* the background */
    ASSERT_EQ_INT(x.fired + y.fired, 0);
    ASSERT_EQ_INT(b.t[NBG - 1].fired, 0); /* its interval is maxi too */
    ASSERT_EQ_INT(tw_advance(tw, now + maxi), 3);
    ASSERT_EQ_INT(x.fired, 1);
    ASSERT_EQ_INT(y.fired, 1);
    /* the range moves with the clock */
    now = tw_now(tw);
    ASSERT_OK(tw_start(tw, &x.node, maxi));
    ASSERT_EQ_RC(tw_start_at(tw, &y.node, now + maxi + 1), TW_ERANGE);
    ASSERT_EQ_INT(tw_advance(tw, now + 1), 0);
    ASSERT_OK(tw_start_at(tw, &y.node, now + maxi + 1));
    ASSERT_CHECK(tw);
    ASSERT_EQ_INT(tw_advance(tw, now + maxi + 1), 2);
    ASSERT_OK(tw_destroy(tw));

    /* a small wheel */
    struct tw_config cfg = c->cfg;
    cfg.slots = 16;
    struct tw *w = NULL;
    ASSERT_OK(tw_create(&w, &cfg));
    ASSERT_EQ_U64(tw_max_interval(w), 16);
    ASSERT_OK(tw_start(w, &x.node, 16));
    ASSERT_EQ_RC(tw_start(w, &y.node, 17), TW_ERANGE);
    ASSERT_EQ_INT(tw_timer_pending(&y.node), 0);
    ASSERT_CHECK(w);
    ASSERT_OK(tw_destroy(w));
}

/* ------------------------------------------------------------ allocators */

static void check_alloc_clean(const struct test_alloc *ta)
{
    ASSERT_EQ_U64(ta->outstanding, 0);
    ASSERT_EQ_U64(ta->nblocks, 0);
    ASSERT_EQ_U64(ta->size_errors, 0);
    ASSERT_EQ_U64(ta->unknown_ptrs, 0);
}

/* tw_create() with an allocator that fails after k calls: TW_ENOMEM, *out
 * untouched, nothing leaked; from some k on, success. */
static void case_alloc_fail_create(struct ctx *c)
{
    for (int with_realloc = 0; with_realloc < 2; with_realloc++) {
        int ok_at = -1;
        for (long k = 0; k < 16 && ok_at < 0; k++) {
            struct test_alloc ta;
            test_alloc_init(&ta, with_realloc);
            ta.fail_after = k;
            struct tw_config cfg = c->cfg;
            cfg.allocator = &ta.a;
            struct tw *out = SENTINEL;
            int rc = tw_create(&out, &cfg);
            if (rc == 0) {
                ASSERT_NE_U64((uintptr_t)out, (uintptr_t)SENTINEL);
                ASSERT_NOT_NULL(out);
                ASSERT_EQ_U64(tw_memory(out), ta.outstanding);
                ASSERT_OK(tw_destroy(out));
                ok_at = (int)k;
            } else {
                ASSERT_EQ_RC(rc, TW_ENOMEM);
                ASSERT_EQ_PTR(out, SENTINEL);
            }
            check_alloc_clean(&ta);
            RETURN_IF_FAILED();
        }
        ASSERT_GT_INT(ok_at, 0); /* k = 0 fails, and some k succeeds */
    }
}

/* The schemes whose start may allocate (ops->reserve: heap, lawn, a queue
 * per distinct TTL): tw_start() of many timers with an allocator that has
 * stopped working eventually returns TW_ENOMEM with everything intact, and
 * works again once the allocator does.  Every other scheme never asks its
 * allocator for anything after tw_create() (hybrid neither here: these
 * TTLs are all distinct, so all go to its wheel). */
static void case_alloc_fail_start(struct ctx *c)
{
    enum { N = 3000 };
    for (int with_realloc = 0; with_realloc < 2; with_realloc++) {
        struct test_alloc ta;
        test_alloc_init(&ta, with_realloc);
        struct tw_config cfg = c->cfg;
        cfg.allocator = &ta.a;
        struct tw *tw = NULL;
        ASSERT_OK(tw_create(&tw, &cfg));
        struct ttimer *t = malloc(N * sizeof *t);
        ASSERT_NOT_NULL(t);
        for (int i = 0; i < N; i++)
            tt_init(&t[i], i);
        ta.fail_after = 0;
        unsigned long calls0 = ta.calls;
        tw_time_t now = tw_now(tw);
        int started = 0, refused = -1;
        for (int i = 0; i < N; i++) {
            tw_time_t iv = cap_interval(tw, 1 + (tw_time_t)(i * 7919) % 100000);
            int rc = tw_start(tw, &t[i].node, iv);
            if (rc == TW_ENOMEM) {
                refused = i;
                break;
            }
            ASSERT_OK(rc);
            started++;
        }
        ASSERT_CHECK(tw);
        int allocates = scheme_allocates(c->scheme) && c->scheme != TW_HYBRID;
        if (!allocates) {
            ASSERT_EQ_INT(started, N);
            ASSERT_EQ_U64(ta.calls, calls0); /* never asked */
        } else {
            ASSERT_GE_INT(refused, 0);
            struct ttimer *f = &t[refused];
            ASSERT_EQ_INT(tw_timer_pending(&f->node), 0);
            ASSERT_EQ_U64(tw_count(tw), (uint64_t)started);
            ASSERT_EQ_RC(tw_start_at(tw, &f->node, now + 5), TW_ENOMEM);
            ASSERT_EQ_INT(tw_timer_pending(&f->node), 0);
            ASSERT_EQ_U64(tw_count(tw), (uint64_t)started);
            ASSERT_CHECK(tw);
            for (int i = 0; i < started; i++) {
                ASSERT_EQ_INT(tw_timer_pending(&t[i].node), 1);
                ASSERT_EQ_U64(tw_timer_deadline(&t[i].node),
                              sat_add(now, cap_interval(tw, 1 + (tw_time_t)(i * 7919) % 100000)));
            }
            /* re-arming a pending timer either works or changes nothing
             * (lawn may refuse the very first start: it needs a queue) */
            if (started > 0) {
                tw_time_t d0 = tw_timer_deadline(&t[0].node);
                int rc = tw_start(tw, &t[0].node, 3);
                if (rc == TW_ENOMEM)
                    ASSERT_EQ_U64(tw_timer_deadline(&t[0].node), d0);
                else
                    ASSERT_OK(rc);
                ASSERT_EQ_INT(tw_timer_pending(&t[0].node), 1);
            }
            ASSERT_EQ_U64(tw_count(tw), (uint64_t)started);
            ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
            ASSERT_CHECK(tw);
            /* the allocator works again */
            ta.fail_after = -1;
            ASSERT_OK(tw_start(tw, &f->node, 5));
            ASSERT_EQ_U64(tw_count(tw), (uint64_t)started + 1);
            for (int i = refused + 1; i < N; i++)
                ASSERT_OK(tw_start(tw, &t[i].node, cap_interval(tw, 1 + (tw_time_t)i)));
            started = N;
            ASSERT_CHECK(tw);
            ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
            ta.fail_after = 0; /* shrinking may fail: harmless */
        }
        /* stop half, fire the rest, with the allocator failing */
        for (int i = 0; i < started; i += 2)
            ASSERT_EQ_INT(tw_stop(tw, &t[i].node), 1);
        ASSERT_CHECK(tw);
        ASSERT_EQ_INT(tw_advance(tw, TW_TIME_MAX), started / 2);
        ASSERT_CHECK(tw);
        ASSERT_EQ_U64(tw_count(tw), 0);
        ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        if (!allocates)
            ASSERT_EQ_U64(ta.calls, calls0);
        ASSERT_OK(tw_destroy(tw));
        check_alloc_clean(&ta);
        free(t);
    }
}

/* A counting allocator: tw_memory() is what the allocator has handed out,
 * through growth and shrinking, and everything is freed at tw_destroy()
 * with the size it was allocated with, pending timers or not. */
static void case_alloc_counting(struct ctx *c)
{
    enum { N = 3000 };
    struct ttimer *t = malloc(N * sizeof *t);
    ASSERT_NOT_NULL(t);
    for (int with_realloc = 0; with_realloc < 2; with_realloc++) {
        struct test_alloc ta;
        test_alloc_init(&ta, with_realloc);
        struct tw_config cfg = c->cfg;
        cfg.allocator = &ta.a;
        struct tw *tw = NULL;
        ASSERT_OK(tw_create(&tw, &cfg));
        ASSERT_GT_U64(ta.outstanding, 0);
        ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        for (int i = 0; i < N; i++) {
            tt_init(&t[i], i);
            ASSERT_OK(tw_start(tw, &t[i].node, cap_interval(tw, (tw_time_t)i * 13 + 1)));
            if (i % 97 == 0)
                ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        }
        ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        ASSERT_CHECK(tw);
        for (int i = 0; i < N; i += 3) {
            ASSERT_EQ_INT(tw_stop(tw, &t[i].node), 1);
            if (i % 97 == 0)
                ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        }
        ASSERT_GE_INT(tw_advance(tw, sat_add(tw_now(tw), 5000)), 0);
        ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        ASSERT_CHECK(tw);
        if (with_realloc) {
            /* the rest fire */
            ASSERT_GE_INT(tw_advance(tw, TW_TIME_MAX), 0);
            ASSERT_EQ_U64(tw_count(tw), 0);
            ASSERT_EQ_U64(tw_memory(tw), ta.outstanding);
        }
        /* (without realloc some are still pending at destroy) */
        ASSERT_OK(tw_destroy(tw));
        check_alloc_clean(&ta);
        ASSERT_GE_U64(ta.frees, 1);
        RETURN_IF_FAILED();
    }
    free(t);
}

/* ------------------------------------------------------------------ api */

static void case_errors(struct ctx *c)
{
    static const struct {
        int code;
        const char *name;
        const char *msg;
    } errs[] = {
#define E_(name, value, msg) {TW_##name, "TW_" #name, msg},
        TW_ERRNO_MAP(E_)
#undef E_
    };
    (void)c;
    size_t n = sizeof errs / sizeof errs[0];
    ASSERT_EQ_U64(n, 13);
    for (size_t i = 0; i < n; i++) {
        ASSERT_LT_INT(errs[i].code, 0);
        ASSERT_EQ_STR(tw_err_name(errs[i].code), errs[i].name);
        ASSERT_EQ_STR(tw_strerror(errs[i].code), errs[i].msg);
        ASSERT_GT_U64(strlen(errs[i].msg), 0);
        for (size_t j = 0; j < i; j++) {
            ASSERT_NE_INT(errs[i].code, errs[j].code);
            ASSERT_TRUE(strcmp(errs[i].msg, errs[j].msg) != 0);
        }
    }
    ASSERT_EQ_STR(tw_strerror(0), "success");
    ASSERT_EQ_STR(tw_err_name(0), "TW_OK");
    ASSERT_EQ_STR(tw_err_name(TW_OK), "TW_OK");
    /* clear of every -errno, which the loop drivers pass on */
    for (size_t i = 0; i < n; i++)
        ASSERT_LT_INT(errs[i].code, -4095);
    static const int sys[] = {-1, -4 /* -EINTR */, -11, -4095};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        ASSERT_EQ_STR(tw_strerror(sys[i]), "a system call failed (-errno)");
    static const int unknown[] = {1, 2, 100, -4096, -5000, -5014, -100000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        ASSERT_EQ_STR(tw_strerror(unknown[i]), "unknown error");
        const char *nm = tw_err_name(unknown[i]);
        ASSERT_NOT_NULL(nm);
        for (size_t j = 0; j < n; j++)
            ASSERT_TRUE(strcmp(nm, errs[j].name) != 0);
        ASSERT_TRUE(strcmp(nm, "TW_OK") != 0);
    }
}

static void case_scheme_names(struct ctx *c)
{
    /* the ABI: the paper's order, the names twheel.h gives */
    static const char *const names[] = {
        "list", "ordered", "heap", "wheel", "hashed_sorted", "hashed", "hierarchical",
        "hierarchical_coarse", "lawn", "hybrid",
    };
    enum { KNOWN = sizeof names / sizeof names[0] };
    (void)c;
    ASSERT_EQ_INT(TW_HYBRID + 1, KNOWN);
    ASSERT_GE_INT(TW_SCHEME_COUNT, KNOWN);
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        const char *name = tw_scheme_name((enum tw_scheme)s);
        ASSERT_NOT_NULL(name);
        if (s < KNOWN)
            ASSERT_EQ_STR(name, names[s]);
        ASSERT_EQ_INT(tw_scheme_from_name(name), s);
        ASSERT_EQ_INT(tw_scheme_available((enum tw_scheme)s), 1);
    }
    ASSERT_NULL(tw_scheme_name(TW_SCHEME_COUNT));
    ASSERT_NULL(tw_scheme_name((enum tw_scheme)100));
    ASSERT_NULL(tw_scheme_name((enum tw_scheme)-1));
    ASSERT_EQ_RC(tw_scheme_from_name(NULL), TW_EINVAL);
    ASSERT_EQ_RC(tw_scheme_from_name(""), TW_EINVAL);
    ASSERT_EQ_RC(tw_scheme_from_name("no such scheme"), TW_EINVAL);
    ASSERT_EQ_RC(tw_scheme_from_name("hierarchical_coarse_"), TW_EINVAL);
    ASSERT_EQ_INT(tw_scheme_available(TW_SCHEME_COUNT), 0);
    ASSERT_EQ_INT(tw_scheme_available((enum tw_scheme)-1), 0);
}

static void case_version(struct ctx *c)
{
    char buf[64];
    (void)c;
    snprintf(buf, sizeof buf, "%d.%d.%d", TW_VERSION_MAJOR, TW_VERSION_MINOR,
             TW_VERSION_PATCH);
    ASSERT_EQ_STR(tw_version(), buf);
    ASSERT_EQ_U64(tw_version_hex(), TW_VERSION_HEX);
}

static void case_config_global(struct ctx *c)
{
    struct tw_config cfg;
    (void)c;
    ASSERT_EQ_RC(tw_config_init(NULL, TW_LIST), TW_EINVAL);
    ASSERT_EQ_RC(tw_config_init(&cfg, TW_SCHEME_COUNT), TW_EINVAL);
    ASSERT_EQ_RC(tw_config_init(&cfg, (enum tw_scheme)-1), TW_EINVAL);
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        memset(&cfg, 0xee, sizeof cfg);
        ASSERT_OK(tw_config_init(&cfg, (enum tw_scheme)s));
        ASSERT_EQ_INT(cfg.scheme, s);
        ASSERT_EQ_U64(cfg.start, 0);
        ASSERT_NULL(cfg.allocator);
        ASSERT_EQ_U64(cfg.levels, 0);
        switch (s) {
        case TW_WHEEL:
        case TW_HASHED:
        case TW_HASHED_SORTED:
            ASSERT_EQ_U64(cfg.slots, 4096);
            break;
        case TW_HIERARCHICAL:
        case TW_HIERARCHICAL_COARSE:
            ASSERT_EQ_U64(cfg.slots, 64);
            break;
        default:
            break;
        }
        struct tw *out = SENTINEL;
        int rc = tw_create(&out, &cfg);
        if (tw_scheme_available((enum tw_scheme)s)) {
            ASSERT_OK(rc);
            ASSERT_EQ_INT(tw_get_scheme(out), s);
            ASSERT_EQ_U64(tw_count(out), 0);
            ASSERT_EQ_U64(tw_now(out), 0);
            ASSERT_GT_U64(tw_memory(out), 0);
            ASSERT_CHECK(out);
            ASSERT_OK(tw_destroy(out));
        } else {
            /* a scheme this build does not have is refused */
            ASSERT_EQ_RC(rc, TW_ECONFIG);
            ASSERT_EQ_PTR(out, SENTINEL);
        }
    }
    /* unknown scheme numbers */
    static const int bad[] = {TW_SCHEME_COUNT, TW_SCHEME_COUNT + 1, 99, -1, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ASSERT_OK(tw_config_init(&cfg, TW_LIST));
        cfg.scheme = (enum tw_scheme)bad[i];
        struct tw *out = SENTINEL;
        ASSERT_EQ_RC(tw_create(&out, &cfg), TW_ECONFIG);
        ASSERT_EQ_PTR(out, SENTINEL);
    }
    /* NULL configuration: the hierarchical defaults */
    struct tw *out = SENTINEL;
    int rc = tw_create(&out, NULL);
    if (tw_scheme_available(TW_HIERARCHICAL)) {
        ASSERT_OK(rc);
        ASSERT_EQ_INT(tw_get_scheme(out), TW_HIERARCHICAL);
        ASSERT_OK(tw_destroy(out));
    } else {
        ASSERT_LT_INT(rc, 0);
        ASSERT_EQ_PTR(out, SENTINEL);
    }
    ASSERT_EQ_RC(tw_create(NULL, NULL), TW_EINVAL);
}

const struct test_case test_suite_badinput[] = {
    {"null_args", case_null_args, 1},
    {"not_initialised", case_not_initialised, 1},
    {"owner", case_owner, 1},
    {"config", case_config, 0},
    {"range", case_range, 1},
    {"alloc_fail_create", case_alloc_fail_create, 0},
    {"alloc_fail_start", case_alloc_fail_start, 1},
    {"alloc_counting", case_alloc_counting, 0},
};
const size_t test_suite_badinput_count =
    sizeof test_suite_badinput / sizeof test_suite_badinput[0];

/* The footprints docs/design.md ("Memory") gives for the default
 * configurations, as tw_memory() reports them on x86-64: a change of
 * layout must change the table too.  (A scheme it does not list: none.) */
static void case_footprint(struct ctx *c)
{
    (void)c;
#if defined(__x86_64__) && UINTPTR_MAX == UINT64_MAX
    static const size_t want[TW_SCHEME_COUNT] = {
        [TW_LIST] = 384,         [TW_ORDERED] = 392,
        [TW_HEAP] = 1416,        [TW_WHEEL] = 66456,
        [TW_HASHED_SORTED] = 66456, [TW_HASHED] = 66984,
        [TW_HIERARCHICAL] = 92368, [TW_HIERARCHICAL_COARSE] = 174288,
        [TW_LAWN] = 848,         [TW_HYBRID] = 158408,
    };
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        struct tw_config cfg;
        struct tw *tw;
        if (want[s] == 0)
            continue;
        ASSERT_OK(tw_config_init(&cfg, (enum tw_scheme)s));
        ASSERT_OK(tw_create(&tw, &cfg));
        if (tw_memory(tw) != want[s])
            test_fail(__FILE__, __LINE__, "%s: tw_memory() %zu, docs/design.md says %zu",
                      tw_scheme_name((enum tw_scheme)s), tw_memory(tw), want[s]);
        ASSERT_OK(tw_destroy(tw));
    }
    struct tw_config cfg;
    struct tw *tw;
    ASSERT_OK(tw_config_init(&cfg, TW_HIERARCHICAL));
    cfg.slots = 256;
    ASSERT_OK(tw_create(&tw, &cfg));
    ASSERT_EQ_U64(tw_memory(tw), 265912);
    ASSERT_OK(tw_destroy(tw));
#endif
}

/* The late schemes' bounds as the tests read them (the scheme's
 * latest_fire trait) are what twheel.h documents: hierarchical_coarse late
 * by less than 8/(S-2) of the interval d, i.e. by the largest L with
 * L (S-2) < 8 d, counted here by brute force; and every other scheme fires
 * at the deadline. */
static void case_late_bounds(struct ctx *c)
{
    (void)c;
    static const uint32_t slots[] = {16, 64, 256};
    static const tw_time_t starts[] = {0, 1000, TW_TIME_MAX - 5000};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        tw_time_t m = slots[i] - 2u;
        for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
            for (tw_time_t d = 1; d <= 4000; d += 1 + d / 16) {
                tw_time_t now = starts[k], dl = sat_add(now, d);
                tw_time_t late = 0;
                while ((late + 1) * m < 8 * (dl - now))
                    late++;
                ASSERT_EQ_U64(latest_fire_slots(TW_HIERARCHICAL_COARSE, slots[i], now, dl),
                              sat_add(dl, late));
            }
        }
    }
    for (int s = 0; s < TW_SCHEME_COUNT; s++)
        if (scheme_exact((enum tw_scheme)s))
            ASSERT_EQ_U64(latest_fire((enum tw_scheme)s, 7, 1007), 1007);
    ASSERT_TRUE(!scheme_exact(TW_HIERARCHICAL_COARSE));
}

const struct test_case test_suite_api[] = {
    {"errors", case_errors, 0},
    {"scheme_names", case_scheme_names, 0},
    {"version", case_version, 0},
    {"config_global", case_config_global, 0},
    {"footprint", case_footprint, 0},
    {"late_bounds", case_late_bounds, 0},
};
const size_t test_suite_api_count = sizeof test_suite_api / sizeof test_suite_api[0];
