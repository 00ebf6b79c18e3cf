/*
 * report_md.c -- summary.md, the report's summary in Markdown for the
 * docs: per workload and n the best twheel scheme, the default and the
 * best peer with their ratios, the counts per operation of every cell (when
 * the run has them), then every target at the largest n with its bytes per
 * timer; marked as report.html marks them.  Under --counts every figure is
 * instructions per operation.  scripts/update-figures.sh --table pastes the
 * first line and everything from "Every target at n" on: the counts come
 * before it.
 */
#define _GNU_SOURCE

#include "report.h"

#include <math.h>
#include <string.h>

/* Text in a Markdown table cell: a | would end the cell. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

static void md_name(FILE *f, int ti)
{
    fprintf(f, "`%s`%s", targets[ti].name, fires_late(ti) ? "†" : "");
}

/* The median of ti at xi, marked as in the HTML. */
static void md_value(FILE *f, const struct series *s, int xi, int ti)
{
    char b[32];
    const struct cell *c = &s->cell[xi][ti];
    fprintf(f, "%s%s%s", cell_unstable(c) ? "≈" : "", fmt_ns(c->med, b, sizeof b),
            cell_narrowed(s, xi, ti) ? "‡" : "");
}

/* a / b, or a dash when either is missing. */
static void md_ratio(FILE *f, const struct cell *a, const struct cell *b)
{
    int paired;
    double lo, hi, r = a && b ? cell_ratio(a, b, &lo, &hi, &paired) : 0;
    if (r > 0)
        fprintf(f, "%.2f×", r);
    else
        fprintf(f, "—");
}

/* A target and its figure at xi, or a dash. */
static void md_entry(FILE *f, const struct series *s, int xi, int ti, int named)
{
    if (ti < 0) {
        fprintf(f, "—");
        return;
    }
    if (named) {
        md_name(f, ti);
        fprintf(f, " ");
    }
    md_value(f, s, xi, ti);
}

static void md_summary_row(FILE *f, const struct series *s, int xi, int first, int def)
{
    char nb[32];
    int bt = best_at(s, xi, PICK_TWHEEL, -1), bp = best_at(s, xi, PICK_PEER, -1);
    int ex = bt >= 0 && series_fires(s) && fires_late(bt) ? best_at(s, xi, PICK_EXACT, -1) : -1;
    if (def >= 0 && !cell_ok(&s->cell[xi][def]))
        def = -1;
    const struct cell *ct = bt >= 0 ? &s->cell[xi][bt] : NULL;
    const struct cell *cp = bp >= 0 ? &s->cell[xi][bp] : NULL;
    fprintf(f, "| %s | %s | ", first ? s->name : "", x_name(s, xi, nb, sizeof nb));
    md_entry(f, s, xi, bt, 1);
    if (ex >= 0) {
        fprintf(f, "; exact: ");
        md_entry(f, s, xi, ex, 1);
    }
    fprintf(f, " | ");
    md_entry(f, s, xi, def, 0);
    fprintf(f, " | ");
    md_entry(f, s, xi, bp, 1);
    fprintf(f, " | ");
    md_ratio(f, ct, cp);
    if (ex >= 0 && cp) {
        fprintf(f, " (exact ");
        md_ratio(f, &s->cell[xi][ex], cp);
        fprintf(f, ")");
    }
    fprintf(f, " | ");
    md_ratio(f, def >= 0 ? &s->cell[xi][def] : NULL, cp);
    int bl = best_at(s, xi, PICK_LOOP, -1);
    fprintf(f, " | ");
    if (bl >= 0 && def >= 0 && cell_ok(&s->cell[xi][def])) {
        md_ratio(f, &s->cell[xi][def], &s->cell[xi][bl]);
        fprintf(f, " (%s)", targets[bl].name);
    }
    fprintf(f, " |\n");
}

static void md_largest(FILE *f)
{
    char nb[32];
    size_t nmax = largest_n();
    if (nmax == 0)
        return;
    fprintf(f, "\nEvery target at n = %s, %s per operation (bold: the lowest of the column; "
               "\"—\": not run):\n\n| target |",
            fmt_n(nmax, nb, sizeof nb), ropt.counts ? "instructions" : "ns");
    int cols = 0;
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        if (!in_summary(s) || s->nx == 0)
            continue;
        fprintf(f, " %s", s->name);
        if (s->n[s->nx - 1] != nmax)
            fprintf(f, " (%s)", fmt_n(s->n[s->nx - 1], nb, sizeof nb));
        fprintf(f, " |");
        cols++;
    }
    fprintf(f, " bytes/timer |\n|---|");
    for (int i = 0; i <= cols; i++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (int ti = 0; ti < ntargets; ti++) {
        if (!in_any_summary(ti))
            continue;
        fprintf(f, "| ");
        md_name(f, ti);
        fprintf(f, "%s |", is_default(ti) ? " (default)" : "");
        for (int si = 0; si < nseries; si++) {
            const struct series *s = &series[si];
            if (!in_summary(s) || s->nx == 0)
                continue;
            int xi = s->nx - 1, best = best_any(s, xi);
            const struct cell *c = &s->cell[xi][ti];
            fprintf(f, " ");
            if (cell_ok(c)) {
                fprintf(f, "%s", best == ti ? "**" : "");
                md_value(f, s, xi, ti);
                fprintf(f, "%s", best == ti ? "**" : "");
            } else
                fprintf(f, "%s", c->state == CELL_NA ? "n/a" : "—");
            fprintf(f, " |");
        }
        size_t at;
        double bytes = target_bytes(ti, &at);
        if (bytes > 0 && at != nmax)
            fprintf(f, " %.1f (n = %s) |\n", bytes, fmt_n(at, nb, sizeof nb));
        else if (bytes > 0)
            fprintf(f, " %.1f |\n", bytes);
        else
            fprintf(f, " — |\n");
    }
}

/* Every cell's counts per operation: a row per workload, n and count, a
 * column per target, and the default's count over refwheel's. */
static void md_counts(FILE *f)
{
    char nb[32], b[32];
    int kinds = counts_kinds(), show[TARGETS_MAX], any = 0;
    for (int ti = 0; ti < ntargets; ti++) {
        show[ti] = 0;
        for (int si = 0; si < nseries; si++)
            for (int xi = 0; xi < series[si].nx; xi++)
                show[ti] |= isfinite(cell_count(&series[si].cell[xi][ti], 0));
        any |= show[ti];
    }
    if (!kinds || !any)
        return;
    int def = default_target(), ref = refwheel_target(show);
    int ratio = def >= 0 && ref >= 0 && show[def];
    fprintf(f, "\nCounts per operation (%s; the harness's loop included, so compare targets "
               "within a row)%s:\n\n| workload | %s | per op |",
            counters_source() == COUNTS_PERF ? "perf_event, user space" : "callgrind",
            ratio ? "; the last column is the default's over refwheel's" : "", "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (show[ti]) {
            fprintf(f, " ");
            md_name(f, ti);
            fprintf(f, " |");
        }
    fprintf(f, "%s\n|---|---:|---|", ratio ? " hierarchical / refwheel |" : "");
    for (int ti = 0; ti < ntargets; ti++)
        if (show[ti])
            fprintf(f, "---:|");
    fprintf(f, "%s\n", ratio ? "---:|" : "");
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        int first = 1;
        for (int xi = 0; xi < s->nx; xi++) {
            int row = 0;
            for (int ti = 0; ti < ntargets; ti++)
                row |= isfinite(cell_count(&s->cell[xi][ti], 0));
            if (!row)
                continue;
            for (int k = 0; k < 3; k++) {
                if (!(kinds & 1 << k))
                    continue;
                fprintf(f, "| %s | %s%s | %s |", first ? s->name : "",
                        s->by_ttls ? "D = " : "", x_name(s, xi, nb, sizeof nb),
                        counts_kind_name(k));
                first = 0;
                for (int ti = 0; ti < ntargets; ti++) {
                    if (!show[ti])
                        continue;
                    double v = cell_count(&s->cell[xi][ti], k);
                    fprintf(f, " %s |", isfinite(v) ? fmt_count(v, b, sizeof b) : "—");
                }
                if (ratio) {
                    double a = cell_count(&s->cell[xi][def], k);
                    double r = cell_count(&s->cell[xi][ref], k);
                    if (isfinite(a) && isfinite(r) && r > 0)
                        fprintf(f, " %.2f× |", a / r);
                    else
                        fprintf(f, " — |");
                }
                fprintf(f, "\n");
            }
        }
    }
}

void md_write(FILE *f)
{
    int def = default_target();
    const char *w = fig_word();
    char cl[400];
    fprintf(f, "twbench on %s (%d CPUs), %s, %s", machine.cpu, machine.cpus, machine.compiler,
            machine.date);
    if (machine.rev[0])
        fprintf(f, ", source %s", machine.rev);
    fprintf(f, ": `");
    md_text(f, ropt.cmdline);
    fprintf(f, "`\n\n");
    counts_line(cl, sizeof cl);
    cl[0] = 'C';
    md_text(f, cl);
    fprintf(f, ".%s\n", ropt.counts ? " **Every figure below is instructions per operation "
                                       "(--counts), not a time.**"
                                     : "");
    fprintf(f, "\n| workload | n | best twheel (%s) | default `hierarchical` (%s) | "
               "best peer (%s) | best / peer | default / peer | default / best event loop |\n"
               "|---|---:|---|---:|---|---:|---:|---:|\n",
            w, w, w);
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        if (!in_summary(s))
            continue;
        int first = 1;
        for (int xi = 0; xi < s->nx; xi++)
            if (summary_row(s, xi)) {
                md_summary_row(f, s, xi, first, def);
                first = 0;
            }
    }
    fprintf(f, "\nMedians of the measured windows, lower is better; ratios are twheel over "
               "the best peer (refwheel, the lean wheel written here from the paper as the "
               "yardstick of an embedded wheel; libev, libuv, libevent), below 1 twheel %s; "
               "the last column is the default over the best event loop alone.",
            ropt.counts ? "executes fewer instructions" : "is faster");
    if (any_late())
        fprintf(f, " † %s; where timers fire, \"exact\" is the %s scheme that fires them "
                   "on time.",
                late_note, ropt.counts ? "leanest" : "fastest");
    fprintf(f, " ≈ unstable: ");
    md_text(f, unstable_rule);
    if (any_narrowed())
        fprintf(f, " ‡ %s.", narrowed_note);
    fprintf(f, "\n");
    md_counts(f);
    md_largest(f);
    fprintf(f, "\nBytes per timer: the node plus the target's own memory with n timers "
               "pending, over n, in startstop, at the largest n the target ran.\n");
    if (redisres.have) {
        fprintf(f, "\nThe Redis module against the sorted-set delay queue (medians of ");
        md_text(f, redisres.path);
        fprintf(f, "; docs/redis.md says what each column measures):\n\n| n | "
                   "implementation |");
        for (int k = 0; k < REDIS_FIELDS; k++)
            fprintf(f, " %s |", redis_field[k].head);
        fprintf(f, "\n|---:|---|");
        for (int k = 0; k < REDIS_FIELDS; k++)
            fprintf(f, "---:|");
        fputc('\n', f);
        for (int r = 0; r < redisres.nrows; r++) {
            const struct redis_row *row = &redisres.row[r];
            fprintf(f, "| %zu | ", row->n);
            md_text(f, row->name);
            fprintf(f, " |");
            for (int k = 0; k < REDIS_FIELDS; k++) {
                char v[32];
                fprintf(f, " %s |", redis_cell(v, sizeof v, k, row->v[k]));
            }
            fputc('\n', f);
        }
    }
}
