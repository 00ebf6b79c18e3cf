/*
 * test_mincache.c -- the earliest-deadline cache (struct tw_mincache,
 * src/slots.c) on its own, against a reference multiset of deadlines.
 *
 * The hashed and hierarchical wheels keep one; the suites test it through
 * tw_next_expiry() and tw_check(), but a consistent facility never makes
 * its audit fail, so the audit's reports are tested here, on caches
 * corrupted by hand.  Internal: it includes src/mincache.h.
 *
 *   twheel_mincache [steps]    exit 0, or 1 with the first failure
 *                              (steps of the random test, default 200000)
 */
#include "mincache.h"

#include "../common/rng.h"

#include <stdio.h>
#include <stdlib.h>

#define NMAX 400

static int failures;

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
            return;                                                         \
        }                                                                   \
    } while (0)

/* The table: a multiset of deadlines, as a plain array. */
struct model {
    tw_time_t e[NMAX];
    int n;
};

static struct rng rng = {0x9e3779b97f4a7c15u};

static int audit(const struct tw_mincache *c, const struct model *m, char *msg, size_t len)
{
    struct tw_mincache_audit a = {0, 0, false};
    struct tw_checker k = {msg, len, 0};
    for (int i = 0; i < m->n; i++)
        tw_mincache_see(c, &a, m->e[i]);
    return tw_mincache_end(c, &a, &k, "test");
}

/* Fill an empty cache as a walk does: every deadline offered. */
static void fill(struct tw_mincache *c, const struct model *m)
{
    for (int i = 0; i < m->n; i++)
        tw_mincache_offer(c, m->e[i]);
}

static int cmp_u64(const void *a, const void *b)
{
    tw_time_t x = *(const tw_time_t *)a, y = *(const tw_time_t *)b;
    return (x > y) - (x < y);
}

/* Random starts, stops, expiries and clips against the model; the cache
 * must pass its audit after every step and, when known, hold the model's
 * smallest deadlines. */
static void test_random(int steps)
{
    struct tw_mincache c;
    struct model m = {{0}, 0};
    memset(&c, 0, sizeof c);
    char msg[200];
    tw_time_t now = 0;
    for (int step = 0; step < steps; step++) {
        uint64_t r = rng_next(&rng);
        int op = (int)(r % 16);
        if (op < 7 && m.n < NMAX) { /* start: few distinct values, many repeats */
            tw_time_t e = now + 1 + rng_below(&rng, 300);
            m.e[m.n++] = e;
            tw_mincache_insert(&c, e);
        } else if (op < 12 && m.n > 0) { /* stop, often the earliest */
            int i = (int)rng_below(&rng, (uint64_t)m.n);
            if (op < 9) {
                for (int j = 0; j < m.n; j++)
                    if (m.e[j] < m.e[i])
                        i = j;
            }
            tw_mincache_remove(&c, m.e[i]);
            m.e[i] = m.e[--m.n];
        } else if (op < 14) { /* expire everything <= now + d */
            now += rng_below(&rng, 40);
            int k = 0;
            for (int j = 0; j < m.n; j++)
                if (m.e[j] > now)
                    m.e[k++] = m.e[j];
            m.n = k;
            tw_mincache_expire(&c, now);
        } else if (!tw_mincache_known(&c)) { /* a walk: all, or clipped */
            if (op == 14) {
                fill(&c, &m);
            } else { /* a partial walk: the deadlines below t, then clip */
                tw_time_t t = now + 1 + rng_below(&rng, 300);
                for (int j = 0; j < m.n; j++)
                    if (m.e[j] < t)
                        tw_mincache_offer(&c, m.e[j]);
                tw_mincache_clip(&c, t);
            }
        }
        int rc = audit(&c, &m, msg, sizeof msg);
        EXPECT(rc == 0, "step %d: audit: %s", step, msg);
        if (tw_mincache_known(&c)) {
            tw_time_t sorted[NMAX];
            memcpy(sorted, m.e, (size_t)m.n * sizeof sorted[0]);
            qsort(sorted, (size_t)m.n, sizeof sorted[0], cmp_u64);
            EXPECT(c.m <= (uint32_t)m.n, "step %d: cache holds %u of %d", step, c.m, m.n);
            for (uint32_t i = 0; i < c.m; i++)
                EXPECT(c.v[i] == sorted[i], "step %d: v[%u] = %llu, want %llu", step, i,
                       (unsigned long long)c.v[i], (unsigned long long)sorted[i]);
        }
    }
}

/* Every corruption the audit must report, on a cache filled from a model
 * of 100 deadlines 10, 20, ..., with 30 twice. */
static void test_audit_reports(void)
{
    struct model m = {{0}, 0};
    for (int i = 1; i <= 100; i++)
        m.e[m.n++] = (tw_time_t)(10 * i);
    m.e[m.n++] = 30;
    struct tw_mincache c, bad;
    memset(&c, 0, sizeof c);
    fill(&c, &m);
    char msg[200];
    EXPECT(c.m == TW_MINCACHE_CAP && c.v[0] == 10 && c.v[2] == 30 && c.v[3] == 30,
           "filled wrong: m %u v %llu %llu %llu", c.m, (unsigned long long)c.v[0],
           (unsigned long long)c.v[2], (unsigned long long)c.v[3]);
    EXPECT(audit(&c, &m, msg, sizeof msg) == 0, "a sound cache: %s", msg);

    bad = c; /* out of order */
    bad.v[5] = bad.v[6] + 1;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == TW_ECORRUPT, "order not reported");
    bad = c; /* max disagrees with the last */
    bad.max++;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == TW_ECORRUPT, "max not reported");
    bad = c; /* a deadline below max missing (one of the two 30s) */
    tw_mincache_del(&bad, 30);
    bad.m = TW_MINCACHE_CAP - 1; /* keep max: a hole, not a shorter prefix */
    bad.v[bad.m - 1] = bad.max;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == TW_ECORRUPT, "missing deadline not reported");
    bad = c; /* a deadline no timer has */
    bad.v[1] = 21;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == TW_ECORRUPT, "stray deadline not reported");
    bad = c; /* a count beyond the array */
    bad.m = TW_MINCACHE_CAP + 1;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == TW_ECORRUPT, "count not reported");

    /* Legal states the audit must accept: unknown, a shorter prefix, one
     * copy of a repeated last deadline dropped. */
    bad = c;
    bad.m = 0;
    bad.max = 0;
    EXPECT(audit(&bad, &m, msg, sizeof msg) == 0, "unknown refused: %s", msg);
    tw_mincache_clip(&bad, 0);
    EXPECT(bad.m == 0 && bad.max == 0, "clip of an unknown cache");
    bad = c;
    tw_mincache_clip(&bad, 30);
    EXPECT(bad.m == 4 && bad.max == 30, "clip to 30: m %u", bad.m);
    EXPECT(audit(&bad, &m, msg, sizeof msg) == 0, "prefix refused: %s", msg);
    tw_mincache_del(&bad, 30);
    EXPECT(bad.m == 3 && bad.max == 30, "one 30 dropped: m %u", bad.m);
    EXPECT(audit(&bad, &m, msg, sizeof msg) == 0, "dropped copy of max refused: %s", msg);
    tw_mincache_del(&bad, 25); /* not there: nothing changes */
    EXPECT(bad.m == 3, "del of an absent deadline changed the cache");
    tw_mincache_expire(&bad, TW_TIME_MAX);
    EXPECT(bad.m == 0 && bad.max == 0, "expire at the end of time");
    bad = c;
    tw_mincache_clip(&bad, TW_TIME_MAX);
    EXPECT(bad.m == c.m, "clip at the end of time");
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 200000;
    test_random(steps > 0 ? steps : 200000);
    test_audit_reports();
    if (failures) {
        fprintf(stderr, "mincache: %d failure(s)\n", failures);
        return 1;
    }
    printf("mincache: ok\n");
    return 0;
}
