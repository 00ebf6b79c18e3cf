/*
 * util.c -- what every part of twbench shares and nothing else owns: the
 * real clock, dying with the cell that was running, how a count of timers
 * is written, and the median of a few figures.  The workloads, the peers'
 * drivers, the run, the report and advise call these, and this file calls
 * none of them.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int (*bench_clock_gettime)(clockid_t, struct timespec *) = clock_gettime;

char bench_where[160] = "setup";

void bench_die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "\ntwbench: %s: ", bench_where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* "1e3" for 1000, "25000" for 25000. */
const char *fmt_n(size_t n, char *buf, size_t len)
{
    int k = 0;
    size_t m = n;
    while (m >= 10 && m % 10 == 0) {
        m /= 10;
        k++;
    }
    if (k >= 3)
        snprintf(buf, len, "%zue%d", m, k);
    else
        snprintf(buf, len, "%zu", n);
    return buf;
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats(const double *v, int k, double *med, double *mn, double *mx)
{
    double s[WINDOWS_MAX];
    memcpy(s, v, (size_t)k * sizeof *s);
    qsort(s, (size_t)k, sizeof *s, cmp_double);
    *mn = s[0];
    *mx = s[k - 1];
    *med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}
