/*
 * util.c -- what every part of twbench shares and nothing else owns: the
 * real clock, dying with the cell that was running, how a count of timers
 * is written, the median of a few figures, and the words for the figures
 * (which --counts changes).  The workloads, the peers' drivers, the run,
 * the report and advise call these, and this file calls none of them.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <math.h>
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

/* ------------------------------------------------------------- counts */

const char *fig_word(void)
{
    return ropt.counts ? "instr" : "ns";
}

/* text, its leading "ns " replaced by `word` under --counts. */
static const char *counts_word(const char *text, const char *word, char *buf, size_t len)
{
    if (ropt.counts && strncmp(text, "ns ", 3) == 0)
        snprintf(buf, len, "%s %s", word, text + 3);
    else
        snprintf(buf, len, "%s", text);
    return buf;
}

/* "ns per op" -> "instr per op" under --counts. */
const char *series_unit(const struct series *s, char *buf, size_t len)
{
    return counts_word(s->unit, "instr", buf, len);
}

/* "ns per timer: ..." -> "instructions per timer: ..." under --counts. */
const char *series_figure(const struct series *s, char *buf, size_t len)
{
    return counts_word(s->figure, "instructions", buf, len);
}

/* A count per operation: two decimals below 10 (misses), one below 10^4,
 * none above. */
const char *fmt_count(double v, char *buf, size_t len)
{
    snprintf(buf, len, v < 10 ? "%.2f" : v < 1e4 ? "%.1f" : "%.0f", v);
    return buf;
}

/* The cell's count k (0 instructions, 1 cycles, 2 L1D misses) per op. */
double cell_count(const struct cell *c, int k)
{
    if (c->state != CELL_OK)
        return NAN;
    return k == 0 ? c->cnt.instr : k == 1 ? c->cnt.cycles : c->cnt.l1d;
}
