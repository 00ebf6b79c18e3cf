/*
 * test_harness.c -- what every test runner shares: the globals of the case
 * context, failure reporting with that context, and error names.
 */
#include "test.h"

#include <stdarg.h>

struct ctx *test_ctx;
unsigned long test_failures;
unsigned long test_failures_at_case_start;
unsigned long test_diff_steps = 2500;
unsigned test_diff_seeds = 2;
int test_verbose;

/* ------------------------------------------------------------ reporting */

const char *test_rc_name(long long rc)
{
    if (rc <= TW_EINVAL && rc >= TW_ENOSYS) /* the TW_E* codes */
        return tw_err_name((int)rc);
    if (rc == 0)
        return "TW_OK";
    return "";
}

static void print_context(FILE *f)
{
    const struct ctx *c = test_ctx;
    if (c == NULL)
        return;
    fprintf(f, "    context: suite %s, case %s, scheme %s (%d), start clock %" PRIu64
               " (%#" PRIx64 ")",
            c->suite ? c->suite : "?", c->case_name ? c->case_name : "?",
            c->scheme_name ? c->scheme_name : "?", (int)c->scheme, c->start, c->start);
    if (c->variant)
        fprintf(f, ", variant %s", c->variant);
    if (c->seed)
        fprintf(f, ", seed %" PRIu64, c->seed);
    if (c->step)
        fprintf(f, ", step %" PRIu64, c->step);
    fputc('\n', f);
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    test_failures++;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_context(stderr);
    fflush(stderr);
}

void test_note(const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "note: ");
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}
