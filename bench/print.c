/*
 * print.c -- twbench's text on stdout: a table per series (the median of
 * every target at every n, why a cell is empty, the best twheel scheme
 * over the best peer, the --ratio lines), the peers' setup, bytes per
 * timer, the slopes against their claims, fig9 and the lawn crossover;
 * under each table the counts per operation when the run has them
 * (counters.h).  Under --counts every figure is instructions per operation.
 * The report's files (report*.c) show the same figures in HTML, Markdown
 * and JSON.
 */
#define _GNU_SOURCE

#include "twbench.h"
#include "refwheel.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *missing_text(int ti)
{
    const char *m = targets[ti].missing;
    return m && strlen(m) <= 40 ? m : "unusable";
}

static int col_width(int ti)
{
    int w = (int)strlen(targets[ti].name);
    if (targets[ti].missing)
        w = (int)strlen(missing_text(ti));
    return w < 9 ? 9 : w;
}

static void print_value(double v, int w)
{
    if (v >= 10000)
        printf("  %*.0f", w, v);
    else
        printf("  %*.1f", w, v);
}

static int series_has_target(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (s->cell[xi][ti].state != CELL_NONE)
            return 1;
    return 0;
}

/* "a / b 0.93x", with the rounds' range when paired; 0 if either has no
 * figure (nothing printed). */
static int print_ratio(const struct series *s, int xi, int a, int b, const char *pre)
{
    int paired = 0;
    double lo = 0, hi = 0;
    double r = a >= 0 && b >= 0 ? cell_ratio(&s->cell[xi][a], &s->cell[xi][b], &lo, &hi,
                                               &paired)
                                : 0;
    if (r <= 0)
        return 0;
    printf("%s%s%s / %s %.2fx", pre, targets[a].name, fires_late(a) ? " (fires late)" : "",
           targets[b].name, r);
    if (paired)
        printf(" (%d rounds %.2f-%.2f)", s->cell[xi][a].rounds, lo, hi);
    return 1;
}

/* The --ratio lines under a table. */
static void print_ratios(const struct series *s)
{
    char nb[32];
    for (int k = 0; k < opt.nratio; k++) {
        int a = target_index(opt.ratio[k][0]), b = target_index(opt.ratio[k][1]);
        if (a < 0 || b < 0 || !series_has_target(s, a) || !series_has_target(s, b))
            continue;
        printf("   %s / %s:", targets[a].name, targets[b].name);
        for (int xi = 0; xi < s->nx; xi++) {
            int paired;
            double lo, hi, r = cell_ratio(&s->cell[xi][a], &s->cell[xi][b], &lo, &hi, &paired);
            if (r <= 0)
                continue;
            printf(" %s %.2fx", fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb), r);
            if (paired)
                printf(" (%.2f-%.2f)", lo, hi);
        }
        printf("\n");
    }
}

/* The counts per operation of every target at every point: one row per
 * point and count, and the default's count over refwheel's. */
static void print_counts(const struct series *s)
{
    char nb[32], b[32];
    int kinds = counts_kinds(), any = 0;
    for (int xi = 0; xi < s->nx; xi++)
        for (int ti = 0; ti < ntargets; ti++)
            any |= isfinite(cell_count(&s->cell[xi][ti], 0));
    if (!kinds || !any)
        return;
    int def = target_index("hierarchical"), ref = target_index("refwheel");
    int ratio = def >= 0 && ref >= 0 && series_has_target(s, def) && series_has_target(s, ref);
    printf("   counts per op (%s, the harness's loop included):\n%8s  %-15s",
           counters_source_name(), s->by_ttls ? "D" : "n", "count");
    for (int ti = 0; ti < ntargets; ti++)
        if (series_has_target(s, ti))
            printf("  %*s", col_width(ti), targets[ti].name);
    if (ratio)
        printf("  hierarchical / refwheel");
    printf("\n");
    for (int xi = 0; xi < s->nx; xi++)
        for (int k = 0; k < 3; k++) {
            if (!(kinds & 1 << k))
                continue;
            printf("%8s  %-15s", fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb),
                   counts_kind_name(k));
            for (int ti = 0; ti < ntargets; ti++) {
                if (!series_has_target(s, ti))
                    continue;
                double v = cell_count(&s->cell[xi][ti], k);
                printf("  %*s", col_width(ti), isfinite(v) ? fmt_count(v, b, sizeof b) : "-");
            }
            double a = cell_count(&s->cell[xi][def < 0 ? 0 : def], k);
            double r = cell_count(&s->cell[xi][ref < 0 ? 0 : ref], k);
            if (ratio && isfinite(a) && isfinite(r) && r >= 0.01) /* not against a 0.00 */
                printf("  %.2fx", a / r);
            printf("\n");
        }
}

void print_series(const struct series *s)
{
    static int legend;
    if (!legend++)
        printf("\nHow to read the tables: each figure is the median cost per operation, lower "
               "is better.  The last column is the best twheel scheme over the best peer: "
               "below 1x twheel is faster.  A scheme that ran an easier workload (shorter "
               "intervals, the notes say) is not ranked; one that fires late by design is "
               "named so, and the best exact scheme follows it.\n");
    char nb[32], fb[256];
    int reps_lo = 99, reps_hi = 0;
    for (int xi = 0; xi < s->nx; xi++)
        for (int ti = 0; ti < ntargets; ti++)
            if (s->cell[xi][ti].state == CELL_OK) {
                int r = s->cell[xi][ti].reps;
                reps_lo = r < reps_lo ? r : reps_lo;
                reps_hi = r > reps_hi ? r : reps_hi;
            }
    printf("\n== %s: %s", s->name, series_figure(s, fb, sizeof fb));
    if (s->by_ttls)
        printf(", n = %s", fmt_n(s->n[0], nb, sizeof nb));
    if (reps_hi && opt.rounds > 1 && reps_lo == reps_hi)
        printf(" (median of %d rounds, each the median of %d) ==\n", opt.rounds, reps_hi);
    else if (reps_hi && opt.rounds > 1)
        printf(" (median of %d rounds, each the median of %d-%d) ==\n", opt.rounds, reps_lo,
               reps_hi);
    else if (reps_hi && reps_lo == reps_hi)
        printf(" (median of %d) ==\n", reps_hi);
    else if (reps_hi)
        printf(" (median of %d-%d) ==\n", reps_lo, reps_hi);
    else
        printf(" ==\n");
    int any_peer = 0;
    for (int ti = 0; ti < ntargets; ti++)
        if (targets[ti].peer != PEER_NONE && series_has_target(s, ti))
            any_peer = 1;
    printf("%8s", s->by_ttls ? "D" : "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (series_has_target(s, ti))
            printf("  %*s", col_width(ti), targets[ti].name);
    if (any_peer)
        printf("  best twheel / best peer");
    printf("\n");
    for (int xi = 0; xi < s->nx; xi++) {
        printf("%8s", fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb));
        for (int ti = 0; ti < ntargets; ti++) {
            if (!series_has_target(s, ti))
                continue;
            const struct cell *c = &s->cell[xi][ti];
            int w = col_width(ti);
            switch (c->state) {
            case CELL_OK:
                print_value(c->med, w);
                break;
            case CELL_SKIP:
                printf("  %*s", w, "skipped");
                break;
            case CELL_NA:
                printf("  %*s", w, "n/a");
                break;
            case CELL_MISSING:
                printf("  %*s", w, missing_text(ti));
                break;
            case CELL_NONE:
                printf("  %*s", w, "-");
                break;
            }
        }
        if (any_peer) {
            /* Ranked as the report ranks: a narrowed cell is not; a best
             * that fires late is named so, and the best exact one follows. */
            int best = best_at(s, xi, PICK_TWHEEL, -1), bestp = best_at(s, xi, PICK_PEER, -1);
            int ex = best >= 0 && series_fires(s) && fires_late(best)
                         ? best_at(s, xi, PICK_EXACT, -1)
                         : -1;
            if (!print_ratio(s, xi, best, bestp, "  "))
                printf("  -");
            else if (ex >= 0)
                print_ratio(s, xi, ex, bestp, "; exact: ");
        }
        printf("\n");
    }
    print_counts(s);
    /* Notes: why cells are empty, and what was changed for a target. */
    for (int ti = 0; ti < ntargets; ti++) {
        if (!series_has_target(s, ti))
            continue;
        const char *why = NULL;
        size_t from = 0;
        int folded = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            const struct cell *c = &s->cell[xi][ti];
            if (c->state == CELL_SKIP || c->state == CELL_NA || c->state == CELL_MISSING) {
                if (!why)
                    from = s->by_ttls ? s->d[xi] : s->n[xi];
                why = c->why;
            }
            if (c->state == CELL_OK && c->hi < (1u << 16))
                folded = 1;
        }
        if (why && targets[ti].missing) {
            if (strcmp(missing_text(ti), why) != 0)
                printf("   %s: %s\n", targets[ti].name, why);
        } else if (why && from == (s->by_ttls ? s->d[0] : s->n[0]))
            printf("   %s: %s\n", targets[ti].name, why);
        else if (why)
            printf("   %s: %s >= %s %s\n", targets[ti].name, s->by_ttls ? "D" : "n",
                   fmt_n(from, nb, sizeof nb), why);
        if (folded && !strcmp(s->name, "idle"))
            printf("   %s: idle timeout %llu (its MaxInterval) instead of 2^16: not ranked\n",
                   targets[ti].name, (unsigned long long)targets[ti].max_interval);
        else if (folded)
            printf("   %s: intervals drawn in [1, %llu] (its MaxInterval) instead of [1, %s]: "
                   "an easier workload, not ranked\n",
                   targets[ti].name, (unsigned long long)targets[ti].max_interval,
                   !strcmp(s->name, "expire-jump") ? "2^40" : "2^16");
        if (targets[ti].late && !targets[ti].missing &&
            (s->wl == WL_EXPIRE || s->wl == WL_TTL || s->wl == WL_TCP))
            printf("   %s fires a timer one tick after its deadline (deadline < now)\n",
                   targets[ti].name);
    }
    if (s->wl == WL_TCP) {
        double lo = 101, hi = -1;
        for (int xi = 0; xi < s->nx; xi++)
            for (int ti = 0; ti < ntargets; ti++) {
                const struct cell *c = &s->cell[xi][ti];
                if (c->state != CELL_OK || c->last.ops == 0)
                    continue;
                double p = 100.0 * (double)c->last.stops / (double)c->last.ops;
                lo = p < lo ? p : lo;
                hi = p > hi ? p : hi;
            }
        if (hi >= 0)
            printf("   share of operations that restarted a timer before expiry: %.1f%% .. %.1f%%\n",
                   lo, hi);
    }
    if (s->by_ttls) {
        printf("   D / n:");
        for (int xi = 0; xi < s->nx; xi++)
            printf(" %.2g", (double)s->d[xi] / (double)s->n[xi]);
        printf("   (distinct TTLs per live timer; TTLs with a live timer ~ D (1 - e^(-n/D)))\n");
    }
    print_ratios(s);
}

void print_peer_notes(void)
{
    int any = 0;
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        if (t->peer != PEER_REFWHEEL)
            continue;
        if (t->missing)
            printf("Peer refwheel: %s\n", t->info.error);
        else
            printf("Peer refwheel: the lean wheel of bench/refwheel.c, written here from the "
                   "paper's Scheme 7 as the yardstick of an embedded wheel (6-bit digits, %d "
                   "levels, %zu-byte node); called directly, 1 tick = 1 tick, no clock or poll; "
                   "fires at deadline <= now.\n",
                   RW_LEVELS, sizeof(struct rw_timer));
    }
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        if (!is_loop_peer(t))
            continue;
        if (!any)
            printf("Event-loop peers, in virtual time (twbench interposes clock_gettime, "
                   "gettimeofday, epoll_wait):\n");
        any = 1;
        if (t->missing) {
            printf("  %-8s %s\n", t->name, t->info.error);
            continue;
        }
        const char *how = t->peer == PEER_LIBEV ? "ev_timer_set+ev_timer_start / ev_timer_stop / "
                                                  "ev_run(EVRUN_NOWAIT)"
                          : t->peer == PEER_LIBUV
                              ? "uv_timer_start / uv_timer_stop / uv_run(UV_RUN_NOWAIT)"
                              : "event_add(timeval) / event_del / "
                                "event_base_loop(NONBLOCK|ONCE)";
        printf("  %-8s %s (%s): %s; 1 tick = %s; per advance %.0f poll(s) and %.0f clock "
               "read(s), per start %.0f read(s)\n",
               t->name, t->info.version, t->info.backend, how, t->tick,
               t->info.polls_per_advance, t->info.reads_per_advance, t->info.reads_per_start);
    }
    if (!any)
        return;
    if (ropt.counts) /* times under valgrind mean nothing */
        printf("  Counted (--counts): their code in user space, on the virtual clock, with "
               "the %s poll (callgrind counts no kernel work).\n",
               ropt.real_poll ? "real" : "stubbed");
    else if (ropt.real_poll)
        printf("  Measured (--real-poll): the real epoll_wait(0), %.0f ns each here.  Not "
               "measured: the real clock_gettime, %.0f ns each here.\n",
               machine.poll_ns, machine.clock_read_ns);
    else
        printf("  Not measured: the real epoll_wait(0) (stubbed: no fd is watched, it returns 0; "
               "%.0f ns each here) and the real clock_gettime (%.0f ns each here).\n",
               machine.poll_ns, machine.clock_read_ns);
    printf("  libev fires a timer only when its deadline is strictly before now (one tick late); "
           "libuv counts whole milliseconds (1 tick = 1 ms, exact in virtual time, up to 1 ms "
           "late in real use); libevent fires at deadline <= now.\n");
}

void print_memory(void)
{
    char nb[32];
    const struct series *s = NULL;
    for (int si = 0; si < nseries && !s; si++)
        if (!strcmp(series[si].name, "startstop") || !strcmp(series[si].name, "expire") ||
            !strcmp(series[si].name, "tcp"))
            s = &series[si];
    if (!s)
        return;
    printf("\n== bytes per timer: node + own memory / n, n pending (%s) ==\n", s->name);
    printf("%8s", "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (series_has_target(s, ti))
            printf("  %*s", col_width(ti), targets[ti].name);
    printf("\n");
    for (int xi = 0; xi < s->nx; xi++) {
        printf("%8s", fmt_n(s->n[xi], nb, sizeof nb));
        for (int ti = 0; ti < ntargets; ti++) {
            if (!series_has_target(s, ti))
                continue;
            const struct cell *c = &s->cell[xi][ti];
            if (c->state == CELL_OK)
                printf("  %*.1f", col_width(ti), c->bytes_per_timer);
            else
                printf("  %*s", col_width(ti), "-");
        }
        printf("\n");
    }
}

void print_slopes(void)
{
    int any = 0;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++)
            if (series[si].slope[ti].points >= 2)
                any = 1;
    if (!any)
        return;
    printf("\n== complexity: slope of log(ns/op) against log(n), claimed in brackets "
           "(0: O(1), log: O(log n), 1: O(n)); ! contradicts the claim ==\n");
    printf("%-15s", "figure");
    for (int ti = 0; ti < ntargets; ti++)
        if (!targets[ti].missing)
            printf("  %*s", col_width(ti), targets[ti].name);
    printf("\n");
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        if (s->by_ttls)
            continue;
        printf("%-15s", s->name);
        for (int ti = 0; ti < ntargets; ti++) {
            if (targets[ti].missing)
                continue;
            const struct slope *sl = &s->slope[ti];
            char buf[32];
            if (sl->points >= 2)
                snprintf(buf, sizeof buf, "%s%.2f [%s]", sl->flag ? "!" : "", sl->s,
                         claim_name(sl->claim));
            else
                snprintf(buf, sizeof buf, "-");
            printf("  %*s", col_width(ti), buf);
        }
        printf("\n");
    }
    printf("   A claim of O(1) or O(log n) is contradicted by a slope above %.1f, a claim of O(n)"
           " by one below %.1f,\n   when the slopes of the medians, minima and maxima all "
           "agree, over three values of n or more\n   (fewer: shown, not judged). Between 1e5 "
           "and 1e6 every scheme slows with cache misses\n   (slope up to ~0.35 for O(1)), "
           "which no finer test survives.\n",
           SLOPE_SUBLINEAR_MAX, SLOPE_LINEAR_MIN);
    int flags = 0;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++) {
            const struct slope *sl = &series[si].slope[ti];
            if (sl->points < 2 || !sl->flag)
                continue;
            if (!flags)
                printf("   Contradictions:\n");
            flags++;
            printf("   ! %s on %s: slope %.2f over %d points (x%.1f), claimed %s (%s)\n",
                   targets[ti].name, series[si].name, sl->s, sl->points, sl->ratio,
                   claim_name(sl->claim), sl->why ? sl->why : "");
        }
    if (!flags)
        printf("   No contradiction.\n");
}

void print_fig9(void)
{
    char nb[32];
    if (!fig9.have) {
        printf("\n== fig9: %s ==\n", fig9.why ? fig9.why : "not run");
        return;
    }
    printf("\n== fig9: the paper's section VII experiment (ns per cancel + re-set of one "
           "callout beyond n) ==\n");
    printf("%8s  %14s  %16s  %16s  %8s\n", "n", "(a) BSD list", "(b) S6 + hash", "(c) S6 + handle",
           "(c)/(b)");
    for (int i = 0; i < fig9.npts; i++)
        printf("%8s  %14.1f  %16.1f  %16.1f  %8.2f\n", fmt_n(fig9.n[i], nb, sizeof nb),
               fig9.ns[0][i], fig9.ns[1][i], fig9.ns[2][i],
               fig9.ns[1][i] > 0 ? fig9.ns[2][i] / fig9.ns[1][i] : 0.0);
    printf("   slopes: (a) %.2f, (b) %.2f, (c) %.2f\n", fig9.slope[0], fig9.slope[1],
           fig9.slope[2]);
    printf("   checks: (a) grows linearly (slope > 0.7): %s; (b), (c) flat (slope < 0.3): %s; "
           "(c) < (b) (median ratio %.2f): %s\n",
           fig9.linear_ok ? "yes" : "NO", fig9.flat_ok ? "yes" : "NO", fig9.order_ratio,
           fig9.order_ok ? "yes" : "NO");
}

void print_service(void)
{
    char nb[32];
    if (!svcres.have) {
        printf("\n== service: %s ==\n", svcres.why ? svcres.why : "not run");
        return;
    }
    printf("\n== service: million stop + start per second of a random own timer, all pending "
           "an hour out, from T producer threads on %d cores (p50 / p99 ns; %u ms per cell) ==\n",
           machine.cpus, svcres.ms);
    printf("%-10s %3s", "target", "T");
    for (int i = 0; i < svcres.npts; i++)
        printf("  %22s", fmt_n(svcres.n[i], nb, sizeof nb));
    printf("\n");
    for (int t = 0; t < svcres.ntargets; t++)
        for (int h = 0; h < SVC_THREADS; h++) {
            if (!svc_row_run(t, h))
                continue;
            printf("%-10s %3u", svcres.target[t], svcres.threads[h]);
            for (int i = 0; i < svcres.npts; i++) {
                char cell[64];
                if (svcres.status[t][h][i] == 1)
                    snprintf(cell, sizeof cell, "limit");
                else if (svcres.status[t][h][i] == 2)
                    snprintf(cell, sizeof cell, "-");
                else
                    snprintf(cell, sizeof cell, "%.2f (%.0f / %.0f)", svcres.mops[t][h][i],
                             svcres.p50[t][h][i], svcres.p99[t][h][i]);
                printf("  %22s", cell);
            }
            printf("\n");
        }
    for (int t = 0; t < svcres.ntargets; t++)
        printf("   %s: %s\n", svcres.target[t], svcres.what[t]);
    printf("   \"limit\": beyond this system's limit on POSIX timers or open files.\n");
}

void print_redis(void)
{
    if (!redisres.have)
        return;
    printf("\n== redis: the module against the sorted-set delay queue (%s; medians) ==\n",
           redisres.path);
    printf("%-9s %-34s", "n", "implementation");
    for (int k = 0; k < REDIS_FIELDS; k++)
        printf(" %11s", redis_field[k].short_head);
    putchar('\n');
    for (int r = 0; r < redisres.nrows; r++) {
        const struct redis_row *w = &redisres.row[r];
        printf("%-9zu %-34s", w->n, w->name);
        for (int k = 0; k < REDIS_FIELDS; k++) {
            char v[32];
            printf(" %11s", redis_cell(v, sizeof v, k, w->v[k]));
        }
        putchar('\n');
    }
}

void print_crossover(void)
{
    if (!cross.have)
        return;
    printf("\n== lawn crossover (ttl-sweep, n = %zu) ==\n", cross.n);
    for (int i = 0; i < cross.ntext; i++)
        printf("   %s\n", cross.text[i]);
}
