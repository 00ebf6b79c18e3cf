/*
 * test_main.c -- the runner: a table of cases x schemes x start clocks.
 *
 *     twheel_tests SUITE [SCHEME|all] [CASE] [--steps N] [--seeds N] [-v]
 *
 * SUITE is cases, badinput, differential, callout, clock, api or all.  Every case of the
 * suite runs against every scheme for which tw_scheme_available() is true
 * (enum values 0..TW_SCHEME_COUNT-1, so a new scheme is picked up without
 * touching the tests), and cases marked all_clocks run once per start clock
 * (0, near 2^32, near 2^63, near 2^64).  CASE runs only the cases whose name
 * contains it.  Naming an unavailable scheme exits 77, which ctest reports
 * as skipped.  Exit status 1 when anything failed.
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SKIP_EXIT 77


/* ---------------------------------------------------------------- runner */

static const tw_time_t start_clocks[] = {
    0,
    (1ull << 32) - 1000,
    (1ull << 63) - 1000,
    UINT64_MAX - 100000,
};
#define NCLOCKS (sizeof start_clocks / sizeof start_clocks[0])

extern const struct test_case test_suite_callout[];
extern const size_t test_suite_callout_count;
extern const struct test_case test_suite_clock[];
extern const size_t test_suite_clock_count;

struct suite {
    const char *name;
    const struct test_case *cases;
    const size_t *count;
    int per_scheme;         /* 0: run once, not per scheme */
};

static const struct suite suites[] = {
    {"api", test_suite_api, &test_suite_api_count, 0},
    {"cases", test_suite_cases, &test_suite_cases_count, 1},
    {"badinput", test_suite_badinput, &test_suite_badinput_count, 1},
    {"differential", test_suite_differential, &test_suite_differential_count, 1},
    {"callout", test_suite_callout, &test_suite_callout_count, 1},
    {"clock", test_suite_clock, &test_suite_clock_count, 1},
};
#define NSUITES (sizeof suites / sizeof suites[0])

struct totals {
    unsigned long runs, failed_runs;
};

static void run_one(const struct suite *su, const struct test_case *tc,
                    enum tw_scheme s, tw_time_t start, struct totals *tot)
{
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.scheme = s;
    c.scheme_name = tw_scheme_name(s);
    c.suite = su->name;
    c.case_name = tc->name;
    c.start = start;
    if (tw_config_init(&c.cfg, s) != 0) {
        test_ctx = &c;
        test_fail(__FILE__, __LINE__, "tw_config_init(%d) failed", (int)s);
        test_ctx = NULL;
        return;
    }
    c.cfg.start = start;
    test_ctx = &c;
    test_failures_at_case_start = test_failures;
    test_log_reset();
    tc->fn(&c);
    tot->runs++;
    if (TEST_CASE_FAILED())
        tot->failed_runs++;
    test_ctx = NULL;
}

static void run_suite(const struct suite *su, int scheme_filter, const char *case_filter,
                      struct totals *tot)
{
    size_t n = *su->count;
    unsigned long before_runs = tot->runs, before_failed = tot->failed_runs;
    unsigned nschemes = 0, ncases = 0;
    for (size_t i = 0; i < n; i++) {
        const struct test_case *tc = &su->cases[i];
        if (case_filter && strstr(tc->name, case_filter) == NULL)
            continue;
        ncases++;
        size_t nclocks = tc->all_clocks ? NCLOCKS : 1;
        if (!su->per_scheme) {
            run_one(su, tc, TW_LIST, 0, tot);
            continue;
        }
        for (int s = 0; s < TW_SCHEME_COUNT; s++) {
            if (scheme_filter >= 0 && s != scheme_filter)
                continue;
            if (!tw_scheme_available((enum tw_scheme)s))
                continue;
            for (size_t k = 0; k < nclocks; k++)
                run_one(su, tc, (enum tw_scheme)s, start_clocks[k], tot);
        }
    }
    if (su->per_scheme)
        for (int s = 0; s < TW_SCHEME_COUNT; s++)
            if ((scheme_filter < 0 || s == scheme_filter) &&
                tw_scheme_available((enum tw_scheme)s))
                nschemes++;
    printf("%-12s %u cases x %u schemes: %lu runs, %lu failed\n", su->name, ncases,
           su->per_scheme ? nschemes : 1u, tot->runs - before_runs,
           tot->failed_runs - before_failed);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: twheel_tests SUITE [SCHEME|all] [CASE] [--steps N] [--seeds N] [-v]\n"
            "  SUITE: all, api, cases, badinput, differential, callout\n"
            "  SCHEME: a scheme name (exit 77 if not available), or all\n"
            "  CASE: run the cases whose name contains this\n"
            "  -v: print what each differential run exercised\n");
}

int main(int argc, char **argv)
{
    const char *suite = "all";
    int scheme_filter = -1;
    const char *case_filter = NULL;
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            test_diff_steps = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            test_diff_seeds = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "-v") == 0) {
            test_verbose = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage();
            return 0;
        } else if (pos == 0) {
            suite = argv[i];
            pos++;
        } else if (pos == 1) {
            if (strcmp(argv[i], "all") != 0) {
                scheme_filter = tw_scheme_from_name(argv[i]);
                if (scheme_filter < 0) {
                    fprintf(stderr, "unknown scheme %s\n", argv[i]);
                    return 2;
                }
                if (!tw_scheme_available((enum tw_scheme)scheme_filter)) {
                    printf("scheme %s is not available in this build: skipped\n",
                           argv[i]);
                    return SKIP_EXIT;
                }
            }
            pos++;
        } else if (pos == 2) {
            case_filter = argv[i];
            pos++;
        } else {
            usage();
            return 2;
        }
    }

    struct totals tot;
    memset(&tot, 0, sizeof tot);
    int ran = 0;
    for (size_t i = 0; i < NSUITES; i++) {
        if (strcmp(suite, "all") != 0 && strcmp(suite, suites[i].name) != 0)
            continue;
        if (!suites[i].per_scheme && scheme_filter >= 0 && strcmp(suite, "all") == 0)
            continue;
        run_suite(&suites[i], scheme_filter, case_filter, &tot);
        ran = 1;
    }
    if (!ran) {
        usage();
        return 2;
    }
    printf("total: %lu runs, %lu failed runs, %lu failed assertions\n", tot.runs,
           tot.failed_runs, test_failures);
    return test_failures ? 1 : 0;
}
