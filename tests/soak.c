/*
 * soak.c -- start/stop cycles with far deadlines, per scheme: the pending
 * count and the memory stay flat (no lazy cancellation, no leak).
 *
 *     twheel_soak [N] [SCHEME|all]      N cycles per scheme (default 10^8)
 *     twheel_soak --long [SCHEME|all]   10^8, only when TW_SOAK=1 is set
 *                                       (else exit 77: ctest shows it
 *                                       skipped); `TW_SOAK=1 ctest -L soak`
 *
 * Each scheme's facility holds BASE timers pending far away for the whole
 * run; a pool of POOL other nodes goes round: start with a far interval
 * (distinct TTLs, so that lawn and hybrid create and drop TTL queues;
 * some re-armed while pending), then stop.  The clock moves a tick every
 * 256 cycles so the wheels turn (for the wheel, whose far is MaxInterval,
 * the base is re-armed every 2^16 cycles).  Every 2^16 cycles and at the end:
 * tw_count() == BASE.  At the end: tw_memory() no more than at the warm-up
 * point plus SLACK_MEM, the resident set (from /proc/self/statm) no more
 * than at the warm-up point plus SLACK_RSS, tw_check() clean.  Prints the
 * figures per scheme; exit 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include "twheel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BASE 1024
#define POOL 64
#define SLACK_MEM (64u * 1024u)
#define SLACK_RSS (2u * 1024u * 1024u)

/* Resident bytes, or 0 when /proc is not there. */
static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    unsigned long size = 0, resident = 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    if (n != 2)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    return (size_t)resident * (size_t)(page > 0 ? page : 4096);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void never(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    (void)t;
    fprintf(stderr, "soak: a far timer fired\n");
    abort();
}

static int fail(const char *scheme, const char *what)
{
    fprintf(stderr, "soak: %s: %s\n", scheme, what);
    return 1;
}

/* A far interval, distinct for a long while, above every base deadline. */
static tw_time_t churn_interval(const struct tw *tw, uint64_t i)
{
    tw_time_t maxi = tw_max_interval(tw);
    if (maxi != TW_TIME_MAX)
        return maxi - (i % 64); /* wheel: as far as it goes */
    return (1ull << 42) + ((i * 2654435761u) & ((1ull << 32) - 1));
}

static int soak_scheme(enum tw_scheme s, uint64_t n)
{
    const char *name = tw_scheme_name(s);
    struct tw_config cfg;
    struct tw *tw = NULL;
    tw_config_init(&cfg, s);
    cfg.start = 1000;
    if (tw_create(&tw, &cfg) != 0)
        return fail(name, "tw_create failed");
    struct tw_timer *base = malloc(BASE * sizeof *base);
    struct tw_timer *pool = malloc(POOL * sizeof *pool);
    if (base == NULL || pool == NULL)
        return fail(name, "out of memory");
    for (int i = 0; i < BASE; i++) {
        tw_timer_init(&base[i], never);
        tw_time_t iv = tw_max_interval(tw) == TW_TIME_MAX ? (1ull << 40) + (tw_time_t)i * 977
                                                         : tw_max_interval(tw) - 64 -
                                                               (tw_time_t)(i % 64);
        if (tw_start(tw, &base[i], iv) != 0)
            return fail(name, "base start failed");
    }
    for (int i = 0; i < POOL; i++)
        tw_timer_init(&pool[i], never);

    uint64_t warm = n / 100 < 100000 ? (n < 100000 ? n / 2 : 100000) : n / 100;
    size_t rss0 = 0, mem0 = 0;
    double t0 = seconds(), tw0 = t0;
    int rc = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i == warm) {
            rss0 = rss_bytes();
            mem0 = tw_memory(tw);
            tw0 = seconds();
        }
        struct tw_timer *x = &pool[i % POOL];
        if (tw_start(tw, x, churn_interval(tw, i)) != 0) {
            rc = fail(name, "start failed");
            break;
        }
        if ((i & 7) == 3 && tw_start(tw, x, churn_interval(tw, i + 1)) != 0) {
            rc = fail(name, "re-arm failed");
            break;
        }
        if (tw_stop(tw, x) != 1) {
            rc = fail(name, "stop did not find the timer pending");
            break;
        }
        if ((i & 255) == 255 && tw_advance(tw, tw_now(tw) + 1) != 0) {
            rc = fail(name, "an advance fired something");
            break;
        }
        if ((i & 0xffff) == 0 && tw_count(tw) != BASE) {
            rc = fail(name, "tw_count drifted");
            break;
        }
        /* wheel: far is MaxInterval, 4096 ticks; keep the base away as the
         * clock moves (a tick per 256 cycles, 256 ticks per 2^16) */
        if ((i & 0xffff) == 0xffff && tw_max_interval(tw) != TW_TIME_MAX)
            for (int k = 0; k < BASE; k++)
                if (tw_start(tw, &base[k], tw_max_interval(tw) - 64 - (tw_time_t)(k % 64)) != 0)
                    rc = fail(name, "base re-arm failed");
    }
    double t1 = seconds();
    size_t rss1 = rss_bytes(), mem1 = tw_memory(tw), count = tw_count(tw);
    char msg[256];
    if (rc == 0 && count != BASE)
        rc = fail(name, "tw_count is not BASE at the end");
    if (rc == 0 && tw_check(tw, msg, sizeof msg) != 0)
        rc = fail(name, msg);
    if (rc == 0 && mem1 > mem0 + SLACK_MEM)
        rc = fail(name, "tw_memory grew");
    if (rc == 0 && rss0 && rss1 > rss0 + SLACK_RSS)
        rc = fail(name, "the resident set grew");
    uint64_t measured = n > warm ? n - warm : 0;
    printf("%-20s %12" PRIu64 " cycles %7.2f s %6.1f ns/cycle  count %zu  "
           "tw_memory %zu -> %zu B  RSS %zu -> %zu KiB%s\n",
           name, n, t1 - t0, measured ? (t1 - tw0) * 1e9 / (double)measured : 0.0, count,
           mem0, mem1, rss0 / 1024, rss1 / 1024, rc ? "  FAILED" : "");
    fflush(stdout);
    if (tw_destroy(tw) != 0)
        rc = fail(name, "tw_destroy failed");
    free(base);
    free(pool);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t n = 100000000ull;
    int scheme = -1, pos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--long") == 0) {
            const char *e = getenv("TW_SOAK");
            if (e == NULL || *e == '\0' || *e == '0') {
                printf("soak: the long soak runs only with TW_SOAK=1: skipped\n");
                return 77;
            }
        } else if (pos == 0 && argv[i][0] >= '0' && argv[i][0] <= '9') {
            n = strtoull(argv[i], NULL, 10);
            pos = 1;
        } else if (strcmp(argv[i], "all") != 0) {
            scheme = tw_scheme_from_name(argv[i]);
            if (scheme < 0) {
                fprintf(stderr, "usage: twheel_soak [N] [SCHEME|all] [--long]\n");
                return 2;
            }
        }
    }
    int rc = 0;
    for (int s = 0; s < TW_SCHEME_COUNT; s++) {
        if ((scheme >= 0 && s != scheme) || !tw_scheme_available((enum tw_scheme)s))
            continue;
        rc |= soak_scheme((enum tw_scheme)s, n);
    }
    return rc;
}
