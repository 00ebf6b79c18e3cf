/*
 * report_html.c -- report.html: the machine and the command, the summary
 * (the best twheel scheme, the default and the best peer at each n), every
 * target at the largest n, the targets, how to read the plots, then per
 * series its plots, notes, table and counts per operation (when the run
 * has them), and the complexity, the lawn crossover and fig9.  Under
 * --counts every figure is instructions per operation, and the words say
 * so ("fewest instructions", not "fastest").
 */
#define _GNU_SOURCE

#include "report.h"

#include <twheel.h>

#include <math.h>
#include <string.h>

static const char unstable_short[] =
    "unstable: the samples fall in two clusters, the median may sit in either";
static const char narrowed_short[] =
    "shorter intervals than the others (up to its MaxInterval): an easier workload, not ranked";

static void html_head(FILE *f)
{
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>twbench report</title>\n<style>\n"
            "body{font-family:\"DejaVu Sans\",Helvetica,Arial,sans-serif;font-size:15px;"
            "line-height:1.45;color:#111;max-width:1440px;margin:0 auto;padding:0 16px 2em}\n"
            "h1{font-size:1.7em;margin:.6em 0 .2em}h2{margin-top:1.8em;padding-bottom:.15em;"
            "border-bottom:1px solid #ddd}p,li{max-width:60em}\n"
            ".scroll{overflow-x:auto;max-width:100%%;margin:.5em 0}\n"
            "table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;"
            "padding:2px 6px;white-space:nowrap;vertical-align:top}th{background:#f3f3f3;"
            "text-align:left;font-weight:600}thead th{vertical-align:bottom;white-space:normal}\n"
            "td.v{text-align:right;font-variant-numeric:tabular-nums}td.s{color:#777}"
            ".scroll tr>th:first-child{position:sticky;left:0;z-index:1}"
            "td.b{font-weight:bold}td.w{white-space:normal;min-width:8em}\n"
            ".def{background:#e9f1fb}th.def{background:#d5e5f7}tr.def td,tr.def th{"
            "background:#e9f1fb}\n"
            ".fast{background:#d7efe6}.slow{background:#fbe3c8}\n"
            "tbody.wl{border-top:2px solid #888}small,.ex{font-size:12px;color:#444}"
            ".ex{display:block}\n"
            ".u{color:#a14d00;font-weight:bold;cursor:help}.flag{color:#b00}\n"
            ".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%%,520px),"
            "1fr));gap:10px 14px;margin:.6em 0}\n"
            ".plots figure{margin:0}.plots img{width:100%%;height:auto;border:1px solid #ddd}\n"
            ".note{font-size:14px;color:#333}\n"
            "code{background:#f3f3f3;padding:0 3px;border-radius:3px}\n"
            ".banner{background:#fff4d6;border:1px solid #e0c36a;padding:6px 10px}\n"
            "table.cnt td.k{color:#444}tbody.pt{border-top:2px solid #bbb}\n"
            "pre{background:#f3f3f3;padding:6px 10px;overflow-x:auto}\n"
            "svg.sw{vertical-align:middle;margin-right:4px}nav a{margin-right:.5em}\n"
            "@media (max-width:720px){body{padding:0 8px;font-size:14px}table{font-size:13px}}\n"
            "</style></head><body>\n");
}

static void html_machine(FILE *f)
{
    fprintf(f, "<h1>twbench report</h1>\n<p>twheel %s, run %s", tw_version(), machine.date);
    if (machine.rev[0]) {
        fprintf(f, " on source <code>");
        xml_text(f, machine.rev);
        fprintf(f, "</code>");
    }
    fprintf(f, ", %.0f s:</p>\n<pre>", ropt.seconds);
    xml_text(f, ropt.cmdline);
    fprintf(f, "</pre>\n<div class=\"scroll\"><table>");
    fprintf(f, "<tr><th>CPU</th><td>");
    xml_text(f, machine.cpu);
    fprintf(f, " (%d online)</td></tr><tr><th>compiler</th><td>", machine.cpus);
    xml_text(f, machine.compiler);
    fprintf(f, " <code>");
    xml_text(f, machine.flags);
    fprintf(f, "</code></td></tr><tr><th>kernel</th><td>");
    xml_text(f, machine.kernel);
    fprintf(f, "</td></tr><tr><th>load average</th><td>%.2f at start, %.2f at the end</td></tr>",
            machine.load_start[0], machine.load_end[0]);
    char cl[400];
    fprintf(f, "<tr><th>counts</th><td class=\"w\">");
    xml_text(f, counts_line(cl, sizeof cl) + strlen("counts: "));
    fprintf(f, "</td></tr></table></div>\n");
    if (ropt.counts)
        fprintf(f, "<p class=\"banner\"><b>--counts:</b> every figure in this report is "
                   "<b>instructions per operation</b>, counted by callgrind over the phases "
                   "each window times (the harness's loop included); lower is fewer. There are "
                   "no times: under valgrind they run ~50&times; slower and would mean nothing. "
                   "A ratio compares instructions, not speed.</p>\n");
}

/* The word for the best figure: the fastest, or under --counts the
 * leanest (the fewest instructions). */
static const char *best_word(void)
{
    return ropt.counts ? "leanest" : "fastest";
}

/* A target's name in a table, which may break after an underscore, the
 * late one daggered; mark_default: the default in bold and said so. */
static void html_target(FILE *f, int ti, int mark_default)
{
    int def = mark_default && is_default(ti);
    fprintf(f, "%s", def ? "<b>" : "");
    for (const char *p = targets[ti].name; *p; p++)
        fprintf(f, *p == '_' ? "_<wbr>" : "%c", *p);
    fprintf(f, "%s%s", def ? "</b> <small>(default)</small>" : "",
            fires_late(ti) ? "<sup>&dagger;</sup>" : "");
}

static void html_name(FILE *f, int ti)
{
    html_target(f, ti, 1);
}

/* The median of target ti at point xi, with the unstable mark in front
 * and the narrower-intervals mark behind (titles: why). */
static void html_value(FILE *f, const struct series *s, int xi, int ti)
{
    char b[32];
    const struct cell *c = &s->cell[xi][ti];
    if (cell_unstable(c))
        fprintf(f, "<span class=\"u\" title=\"%s\">&asymp;</span>", unstable_short);
    fprintf(f, "%s", fmt_ns(c->med, b, sizeof b));
    if (cell_narrowed(s, xi, ti))
        fprintf(f, "<sup class=\"u\" title=\"%s\">&Dagger;</sup>", narrowed_short);
}

/* The table cell of target ti at point xi: its median (bold: the best
 * twheel scheme or peer there), or why there is none. */
static void html_cell(FILE *f, const struct series *s, int xi, int ti, int bold)
{
    const struct cell *c = &s->cell[xi][ti];
    switch (c->state) {
    case CELL_OK:
        fprintf(f, "<td class=\"v%s%s\" title=\"min %.1f, max %.1f, %d windows x %d round(s)\">",
                bold ? " b" : "", is_default(ti) ? " def" : "", c->min, c->max, c->reps,
                c->rounds > 1 ? c->rounds : 1);
        html_value(f, s, xi, ti);
        fprintf(f, "</td>");
        break;
    case CELL_NONE:
        fprintf(f, "<td></td>");
        break;
    default:
        fprintf(f, "<td class=\"s\" title=\"");
        xml_text(f, c->why ? c->why : "");
        fprintf(f, "\">%s</td>", c->state == CELL_SKIP ? "skipped"
                                 : c->state == CELL_NA ? "n/a" : "missing");
        break;
    }
}

/* A table cell with a / b, shaded by which is faster; empty if either is
 * missing. */
static void html_ratio(FILE *f, const struct cell *a, const struct cell *b, const char *an,
                       const char *bn, const char *cls)
{
    int paired;
    double lo, hi, r = cell_ratio(a, b, &lo, &hi, &paired);
    if (r <= 0) {
        fprintf(f, "<td class=\"%s\"></td>", cls);
        return;
    }
    fprintf(f, "<td class=\"v %s %s\" title=\"%s / %s", cls, r < 1 ? "fast" : "slow", an, bn);
    if (paired)
        fprintf(f, ": the median of %d rounds' ratios, %.2f..%.2f", a->rounds, lo, hi);
    fprintf(f, "\">%.2f&times;</td>", r);
}

/* The summary's best twheel scheme at point xi of s: name (and, where a
 * late scheme wins in a workload that fires timers, the best exact one),
 * figure and ratio to the best peer. */
static void html_summary_best(FILE *f, const struct series *s, int xi, int bt, int bp)
{
    char b[32];
    if (bt < 0) {
        fprintf(f, "<td class=\"s\">none ranked</td><td></td><td></td>");
        return;
    }
    const struct cell *cp = bp >= 0 ? &s->cell[xi][bp] : NULL;
    fprintf(f, "<td class=\"w\">");
    html_name(f, bt);
    int ex = series_fires(s) && fires_late(bt) ? best_at(s, xi, PICK_EXACT, -1) : -1;
    if (ex >= 0) {
        const struct cell *ce = &s->cell[xi][ex];
        int paired;
        double lo, hi, r = cp ? cell_ratio(ce, cp, &lo, &hi, &paired) : 0;
        fprintf(f, "<span class=\"ex\">%s exact: %s %s", ropt.counts ? "leanest" : "best",
                targets[ex].name,
                fmt_ns(ce->med, b, sizeof b));
        if (r > 0)
            fprintf(f, ", %.2f&times;", r);
        fprintf(f, "</span>");
    }
    fprintf(f, "</td><td class=\"v\">");
    html_value(f, s, xi, bt);
    fprintf(f, "</td>");
    if (cp)
        html_ratio(f, &s->cell[xi][bt], cp, targets[bt].name, targets[bp].name, "");
    else
        fprintf(f, "<td></td>");
}

/* The summary's rows for one series, one per n. */
static void html_summary_series(FILE *f, const struct series *s)
{
    char nb[32];
    int def = default_target(), rows = 0, first = 1;
    for (int xi = 0; xi < s->nx; xi++)
        rows += summary_row(s, xi);
    if (rows == 0)
        return;
    fprintf(f, "<tbody class=\"wl\">\n");
    for (int xi = 0; xi < s->nx; xi++) {
        if (!summary_row(s, xi))
            continue;
        int bt = best_at(s, xi, PICK_TWHEEL, -1), bp = best_at(s, xi, PICK_PEER, -1);
        const struct cell *cp = bp >= 0 ? &s->cell[xi][bp] : NULL;
        const struct cell *cd = def >= 0 && cell_ok(&s->cell[xi][def]) ? &s->cell[xi][def] : NULL;
        fprintf(f, "<tr>");
        if (first) {
            char fb[256], ub[64];
            fprintf(f, "<th rowspan=\"%d\" title=\"", rows);
            xml_text(f, series_figure(s, fb, sizeof fb));
            fprintf(f, "\"><a href=\"#%s\">%s</a><br><small>%s</small></th>", s->name, s->name,
                    series_unit(s, ub, sizeof ub));
            first = 0;
        }
        fprintf(f, "<td class=\"v\">%s</td>", x_name(s, xi, nb, sizeof nb));
        html_summary_best(f, s, xi, bt, bp);
        if (cd) {
            fprintf(f, "<td class=\"v def\">");
            html_value(f, s, xi, def);
            fprintf(f, "</td>");
        } else
            fprintf(f, "<td class=\"def\"></td>");
        if (cd && cp)
            html_ratio(f, cd, cp, "hierarchical", targets[bp].name, "def");
        else
            fprintf(f, "<td class=\"def\"></td>");
        if (cp) {
            fprintf(f, "<td>%s</td><td class=\"v\">", targets[bp].name);
            html_value(f, s, xi, bp);
            fprintf(f, "</td>");
        } else
            fprintf(f, "<td class=\"s\">none run</td><td></td>");
        int bl = best_at(s, xi, PICK_LOOP, -1);
        if (cd && bl >= 0)
            html_ratio(f, cd, &s->cell[xi][bl], "hierarchical", targets[bl].name, "def");
        else
            fprintf(f, "<td class=\"def\"></td>");
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</tbody>\n");
}

static void html_summary(FILE *f)
{
    const char *w = fig_word(), *bw = best_word();
    fprintf(f, "<h2 id=\"summary\">Summary: which scheme</h2>\n<p>For each workload and n: the "
               "%s twheel scheme%s, the default <b>hierarchical</b>, and the %s of the "
               "peers (refwheel, a lean hierarchical wheel written here from the paper as the "
               "yardstick of an embedded wheel, and the event loops libev, libuv, libevent), "
               "each figure the median of its windows%s, lower is better. <i>vs peer</i> is the "
               "twheel figure over the best peer's: below 1 (shaded green) twheel %s, "
               "above 1 (shaded orange) %s. The last column is the default over the best "
               "of the event loops alone (the timers most programs use now).</p>\n",
            bw, ropt.counts ? " (the fewest instructions)" : "", bw,
            ropt.counts ? " in instructions per operation" : "",
            ropt.counts ? "executes fewer instructions" : "is faster",
            ropt.counts ? "more" : "slower");
    fprintf(f, "<div class=\"scroll\"><table>\n<thead><tr><th>workload</th><th>n</th>"
               "<th>best twheel scheme</th><th>%s</th><th>vs peer</th>"
               "<th class=\"def\">hierarchical<br>(default), %s</th><th class=\"def\">vs peer</th>"
               "<th>best peer</th><th>%s</th><th class=\"def\">default vs best event "
               "loop</th></tr></thead>\n",
            w, w, w);
    for (int si = 0; si < nseries; si++)
        if (in_summary(&series[si]))
            html_summary_series(f, &series[si]);
    fprintf(f, "</table></div>\n<p class=\"note\">");
    if (any_late())
        fprintf(f, "<sup>&dagger;</sup> %s; in the workloads that fire timers, <i>%s "
                   "exact</i> names the %s scheme that fires them on time, and its figure "
                   "against the best peer. ",
                late_note, ropt.counts ? "leanest" : "best", best_word());
    fprintf(f, "<span class=\"u\">&asymp;</span> unstable: ");
    xml_text(f, unstable_rule);
    if (any_narrowed())
        fprintf(f, " <span class=\"u\">&Dagger;</span> %s.", narrowed_note);
    for (int si = 0; si < nseries; si++)
        if (!in_summary(&series[si])) {
            fprintf(f, " Not in the table: the ttl sweep (x: distinct TTLs).");
            break;
        }
    fprintf(f, "</p>\n");
    fprintf(f, "<p><b>Which scheme for your program?</b> The default, <code>hierarchical</code>, "
               "fires exactly on time and takes any 64-bit interval; its column shows what "
               "that costs against the %s scheme of each row. To choose for a given "
               "workload, <code>twbench advise</code> "
               "measures the candidate schemes on a replica of it and recommends one, e.g.</p>\n"
               "<pre>./scripts/bench.sh advise --timers 1e6 --ttls 30s,60s --stopped 0.9 "
               "--tick 1ms</pre>\n<p>(timers pending at once, the intervals used, the share "
               "stopped before they fire, the clock's tick). docs/benchmarks.md defines every "
               "workload, the method and the peers' setup, and discusses these results.</p>\n",
            ropt.counts ? "leanest" : "fastest");
}

/* Every target at the largest n: one row per series, one column per
 * target as in the workloads' own tables (summary.md has it the other way
 * round, as the README did), bytes per timer in the last row; the lowest
 * figure of a row in bold. */
static void html_largest(FILE *f)
{
    char nb[32];
    size_t nmax = largest_n();
    if (nmax == 0)
        return;
    fprintf(f, "<h2 id=\"largest\">Every target at n = %s</h2>\n<p>Each workload's figure "
               "at its largest n (%s per operation unless the workload says otherwise), the "
               "lowest of each row in bold; hover a figure for min and max, a grey word for "
               "why it was not run.</p>\n<div class=\"scroll\"><table>\n<thead><tr>"
               "<th>workload</th>",
            fmt_n(nmax, nb, sizeof nb), ropt.counts ? "instructions" : "ns");
    for (int ti = 0; ti < ntargets; ti++)
        if (in_any_summary(ti)) {
            fprintf(f, "<th%s>", is_default(ti) ? " class=\"def\"" : "");
            html_name(f, ti);
            fprintf(f, "</th>");
        }
    fprintf(f, "</tr></thead>\n");
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        if (!in_summary(s) || s->nx == 0)
            continue;
        int xi = s->nx - 1, best = best_any(s, xi);
        fprintf(f, "<tr><th><a href=\"#%s\">%s</a>", s->name, s->name);
        if (s->n[xi] != nmax)
            fprintf(f, " <small>n = %s</small>", fmt_n(s->n[xi], nb, sizeof nb));
        fprintf(f, "</th>");
        for (int ti = 0; ti < ntargets; ti++)
            if (in_any_summary(ti))
                html_cell(f, s, xi, ti, ti == best);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "<tr><th>bytes per timer</th>");
    for (int ti = 0; ti < ntargets; ti++) {
        if (!in_any_summary(ti))
            continue;
        size_t at;
        double bytes = target_bytes(ti, &at);
        fprintf(f, "<td class=\"v%s\">", is_default(ti) ? " def" : "");
        if (bytes > 0)
            fprintf(f, "%.1f", bytes);
        if (bytes > 0 && at != nmax)
            fprintf(f, "<br><small>n = %s</small>", fmt_n(at, nb, sizeof nb));
        fprintf(f, "</td>");
    }
    fprintf(f, "</tr>\n</table></div>\n<p class=\"note\">Bytes per timer: the node plus the "
               "target's own memory with n timers pending, over n, in startstop (or the first "
               "workload the target ran), at the largest n it ran.</p>\n");
}

/* What a scheme is, in one line (its page in docs/schemes/ says more). */
static const char *scheme_what(enum tw_scheme sc)
{
    switch (sc) {
    case TW_LIST: return "Scheme 1, one unsorted list: start and stop O(1), O(n) per expiry";
    case TW_ORDERED: return "Scheme 2, one list sorted by deadline: O(n) start";
    case TW_HEAP: return "Scheme 3, a 4-ary heap: O(log n) start and stop";
    case TW_WHEEL: return "Scheme 4, one slot per tick up to MaxInterval (cfg.slots): "
                          "O(1), longer intervals refused";
    case TW_HASHED_SORTED: return "Scheme 5, a hashed wheel whose slots are sorted lists";
    case TW_HASHED: return "Scheme 6, a hashed wheel of unsorted lists";
    case TW_HIERARCHICAL: return "Scheme 7, levels of wheels, exact (timers move down the "
                                 "levels as their time comes)";
    case TW_HIERARCHICAL_COARSE: return "Scheme 7 without moving timers: each fires at its "
                                        "level's granularity";
    case TW_LAWN: return "Lev-Libfeld's Timer Lawn: a FIFO queue per distinct TTL";
    case TW_HYBRID: return "Lawn's queues for frequent TTLs, a hierarchical wheel for the rest";
    default: return "";
    }
}

static void html_targets(FILE *f)
{
    fprintf(f, "<h2 id=\"targets\">Targets</h2>\n<ul>\n");
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        struct style st = style_of(ti);
        fprintf(f, "<li><svg class=\"sw\" width=\"36\" height=\"14\" viewBox=\"0 0 36 14\">");
        svg_sample(f, &st, 3, 7, 0);
        fprintf(f, "</svg><b>%s</b>: ", t->name);
        if (t->peer == PEER_NONE) {
            fprintf(f, "%s%s", scheme_what((enum tw_scheme)t->scheme),
                    t->options ? ", with TW_OPT_LAWN_SCAN (the paper's per-tick scan)" : "");
            if (is_default(ti))
                fprintf(f, ", <b>the default</b> (tw_create() with no configuration)");
            if (fires_late(ti))
                fprintf(f, "; fires late by design, by less than 1/7.75 of the interval");
        } else if (t->missing)
            xml_text(f, t->info.error);
        else if (t->peer == PEER_REFWHEEL)
            fprintf(f, "the lean hierarchical wheel of bench/refwheel.c, written here from the "
                       "paper's Scheme 7 as the yardstick of an embedded wheel: 6-bit digits, "
                       "11 levels, a 32-byte node, a bitmap per level; called directly, 1 tick "
                       "= 1 tick, no clock or poll; fires at deadline &le; now");
        else
            fprintf(f, "%s %s in virtual time, 1 tick = %s, %s poll, %.0f poll(s) and %.0f clock "
                       "read(s) per advance, %.0f per start; fires at %s",
                    t->name, t->info.version, t->tick, t->info.real_poll ? "real" : "stubbed",
                    t->info.polls_per_advance, t->info.reads_per_advance,
                    t->info.reads_per_start,
                    t->late ? "deadline &lt; now (one tick late)" : "deadline &le; now");
        fprintf(f, "</li>\n");
    }
    if (ropt.counts)
        fprintf(f, "</ul><p>Counted for the event-loop peers: their code in user space, on the "
                   "virtual clock, with the %s poll (callgrind counts no kernel work).</p>\n",
                ropt.real_poll ? "real" : "stubbed");
    else
        fprintf(f, "</ul><p>%s the real epoll_wait(0) (%.0f ns here); not measured: the real "
                   "clock_gettime (%.0f ns here).</p>\n",
                ropt.real_poll ? "Measured for the event-loop peers (--real-poll):"
                               : "Not measured for the event-loop peers (stubbed, no fd is "
                                 "watched):",
                machine.poll_ns, machine.clock_read_ns);
}

static void html_reading(FILE *f)
{
    fprintf(f, "<h2 id=\"reading\">Reading the plots and tables</h2>\n<p>Each figure is the "
               "median of the measured windows after one warm-up window; lower is better (but "
               "in the service's rates, below). A "
               "plot shows %s per operation against n on log axes, at most six lines: "
               "<i>twheel vs peers</i> (the default hierarchical, the best other twheel scheme "
               "at the largest n, refwheel, libev, libuv, libevent), then the other twheel "
               "schemes, in one plot when they fit (<i>twheel schemes</i>), else per family: "
               "<i>wheels</i> (Schemes 4-7), <i>lists and heap</i> (Schemes 1-3), <i>Lawn and "
               "hybrid</i>; a workload with six targets or fewer gets one plot. The default is "
               "in every plot as the reference, and refwheel, the lean wheel written here from "
               "the paper, as the yardstick. A target keeps its colour and marker in every "
               "plot (the list above); twheel's lines are solid, the peers' dashed. The points "
               "of one n are shifted sideways a few pixels, each with its bar from min to max. "
               "A line that stays level is O(1) in n; one that climbs a decade per decade is "
               "O(n).</p>\n<p>Hollow marker, dotted segments, <span class=\"u\">&asymp;</span> "
               "in the tables: an unstable cell, where ",
            ropt.counts ? "instructions" : "ns");
    xml_text(f, unstable_rule);
    fprintf(f, " A segment to or from such a point is faint dots in the line's colour instead "
               "of its own stroke (solid or dashed): it carries no trend, so the colour and the "
               "marker tell the lines apart there.</p>\n");
}

/* Which cells of s are unstable, as a sentence; nothing if none. */
static void html_unstable_note(FILE *f, const struct series *s)
{
    char nb[32];
    int any = 0;
    for (int ti = 0; ti < ntargets; ti++) {
        int k = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            if (!cell_unstable(&s->cell[xi][ti]))
                continue;
            if (!any)
                fprintf(f, "<p class=\"note\"><span class=\"u\" title=\"%s\">&asymp;</span> "
                           "Unstable (hollow markers, no trend through them): ",
                        unstable_short);
            if (k)
                fprintf(f, ", %s", x_name(s, xi, nb, sizeof nb));
            else
                fprintf(f, "%s%s at %s %s", any ? "; " : "", targets[ti].name,
                        s->by_ttls ? "D =" : "n =", x_name(s, xi, nb, sizeof nb));
            any = 1;
            k++;
        }
    }
    if (any)
        fprintf(f, ". Their samples are in twbench.json.</p>\n");
}

/* Which targets drew shorter intervals than the others, and how much. */
static void html_narrowed_note(FILE *f, const struct series *s)
{
    for (int ti = 0; ti < ntargets; ti++)
        for (int xi = 0; xi < s->nx; xi++)
            if (cell_narrowed(s, xi, ti)) {
                fprintf(f, "<p class=\"note\"><span class=\"u\">&Dagger;</span> %s drew "
                           "intervals up to %llu (its MaxInterval) where the others drew up to "
                           "%llu: an easier workload, shown but not ranked.</p>\n",
                        targets[ti].name, (unsigned long long)s->cell[xi][ti].hi,
                        (unsigned long long)others_hi(s, xi, ti));
                break;
            }
}

static void html_series_table(FILE *f, const struct series *s)
{
    char nb[32];
    int show[TARGETS_MAX], any_peer = 0;
    fprintf(f, "<div class=\"scroll\"><table>\n<thead><tr><th>%s</th>", s->by_ttls ? "D" : "n");
    for (int ti = 0; ti < ntargets; ti++) {
        show[ti] = has_target(s, ti);
        any_peer |= show[ti] && is_peer(ti);
        if (show[ti]) {
            fprintf(f, "<th%s>", is_default(ti) ? " class=\"def\"" : "");
            html_name(f, ti);
            fprintf(f, "</th>");
        }
    }
    if (any_peer)
        fprintf(f, "<th>best twheel / best peer</th>");
    fprintf(f, "</tr></thead>\n");
    for (int xi = 0; xi < s->nx; xi++) {
        int bt = best_at(s, xi, PICK_TWHEEL, -1), bp = best_at(s, xi, PICK_PEER, -1);
        fprintf(f, "<tr><th>%s</th>", x_name(s, xi, nb, sizeof nb));
        for (int ti = 0; ti < ntargets; ti++)
            if (show[ti])
                html_cell(f, s, xi, ti, ti == bt || ti == bp);
        if (any_peer && bt >= 0 && bp >= 0) {
            int paired;
            double lo, hi, r = cell_ratio(&s->cell[xi][bt], &s->cell[xi][bp], &lo, &hi, &paired);
            fprintf(f, "<td class=\"w %s\"><b>%.2f&times;</b>", r < 1 ? "fast" : "slow", r);
            if (paired)
                fprintf(f, " <small>(%d rounds %.2f..%.2f)</small>", s->cell[xi][bt].rounds, lo,
                        hi);
            fprintf(f, "<br><small>");
            html_target(f, bt, 0);
            fprintf(f, " / %s</small></td>", targets[bp].name);
        } else if (any_peer)
            fprintf(f, "<td></td>");
        fprintf(f, "</tr>\n");
    }
    if (!s->by_ttls && !ropt.counts) { /* no slopes are fitted to counts */
        fprintf(f, "<tr><th>slope</th>");
        for (int ti = 0; ti < ntargets; ti++) {
            if (!show[ti])
                continue;
            const struct slope *sl = &s->slope[ti];
            if (sl->points < 2) {
                fprintf(f, "<td></td>");
                continue;
            }
            fprintf(f, "<td class=\"v%s\" title=\"claimed %s: ", sl->flag ? " flag" : "",
                    claim_name(sl->claim));
            xml_text(f, sl->why ? sl->why : "");
            fprintf(f, "\">%s%.2f [%s]</td>", sl->flag ? "! " : "", sl->s, claim_name(sl->claim));
        }
        if (any_peer)
            fprintf(f, "<td></td>");
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table></div>\n");
}

/* The counts per operation of every target at every point of s, one row
 * per count, and the default's over refwheel's: nothing if none. */
static void html_counts_table(FILE *f, const struct series *s)
{
    char nb[32], b[32];
    int kinds = counts_kinds(), nk = 0, show[TARGETS_MAX], any = 0;
    for (int k = 0; k < 3; k++)
        nk += (kinds >> k) & 1;
    for (int ti = 0; ti < ntargets; ti++) {
        show[ti] = has_target(s, ti);
        for (int xi = 0; xi < s->nx; xi++)
            any |= show[ti] && isfinite(cell_count(&s->cell[xi][ti], 0));
    }
    if (!kinds || !any)
        return;
    int def = default_target(), ref = refwheel_target(show);
    int ratio = def >= 0 && ref >= 0 && show[def];
    fprintf(f, "<p class=\"note\"><b>Counts per operation</b> (%s; the harness's loop "
               "included: compare targets within a row)%s.</p>\n",
            counters_source() == COUNTS_PERF ? "perf_event, the CPU's counters in user space"
                                             : "callgrind, D1 misses simulated",
            ratio ? "; the last column is the default's count over refwheel's, the lean wheel's"
                  : "");
    fprintf(f, "<div class=\"scroll\"><table class=\"cnt\">\n<thead><tr><th>%s</th>"
               "<th>per op</th>",
            s->by_ttls ? "D" : "n");
    for (int ti = 0; ti < ntargets; ti++)
        if (show[ti]) {
            fprintf(f, "<th%s>", is_default(ti) ? " class=\"def\"" : "");
            html_name(f, ti);
            fprintf(f, "</th>");
        }
    if (ratio)
        fprintf(f, "<th>hierarchical / refwheel</th>");
    fprintf(f, "</tr></thead>\n");
    for (int xi = 0; xi < s->nx; xi++) {
        fprintf(f, "<tbody class=\"pt\">");
        int first = 1;
        for (int k = 0; k < 3; k++) {
            if (!(kinds & 1 << k))
                continue;
            fprintf(f, "<tr>");
            if (first)
                fprintf(f, "<th rowspan=\"%d\">%s</th>", nk, x_name(s, xi, nb, sizeof nb));
            first = 0;
            fprintf(f, "<td class=\"k\">%s</td>", counts_kind_name(k));
            for (int ti = 0; ti < ntargets; ti++) {
                if (!show[ti])
                    continue;
                double v = cell_count(&s->cell[xi][ti], k);
                fprintf(f, "<td class=\"v%s\">", is_default(ti) ? " def" : "");
                if (isfinite(v))
                    fprintf(f, "%s", fmt_count(v, b, sizeof b));
                fprintf(f, "</td>");
            }
            if (ratio) {
                double a = cell_count(&s->cell[xi][def], k), r = cell_count(&s->cell[xi][ref], k);
                if (isfinite(a) && isfinite(r) && r > 0)
                    fprintf(f, "<td class=\"v %s\">%.2f&times;</td>", a / r < 1 ? "fast" : "slow",
                            a / r);
                else
                    fprintf(f, "<td></td>");
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</tbody>\n");
    }
    fprintf(f, "</table></div>\n");
}

static void html_series(FILE *f, const struct series *s)
{
    char nb[32], file[64], fb[256];
    fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>", s->name, s->name);
    xml_text(f, series_figure(s, fb, sizeof fb));
    if (s->by_ttls)
        fprintf(f, ", n = %s", fmt_n(s->n[0], nb, sizeof nb));
    fprintf(f, ".</p>\n<div class=\"plots\">\n");
    for (int g = 0; g < GR_COUNT; g++) {
        if (!group_drawn(s, (enum group)g))
            continue;
        plot_file(s, (enum group)g, file, sizeof file);
        fprintf(f, "<figure><img src=\"%s\" width=\"%d\" height=\"%d\" alt=\"%s: %s\">"
                   "</figure>\n",
                file, SVG_W, SVG_H, s->name, group_name(s, (enum group)g));
    }
    fprintf(f, "</div>\n");
    html_unstable_note(f, s);
    html_narrowed_note(f, s);
    html_series_table(f, s);
    html_counts_table(f, s);
}

/* A section that did not run: why, as a paragraph (NULL: "not run"). */
static void html_not_run(FILE *f, const char *why)
{
    fprintf(f, "<p>");
    xml_text(f, why ? why : "not run");
    fprintf(f, "</p>\n");
}

static void html_tail(FILE *f)
{
    char nb[32];
    if (ropt.counts)
        fprintf(f, "<h2 id=\"complexity\">Complexity</h2>\n<p>Not judged under --counts: the "
                   "slopes and their thresholds are set for times.</p>\n");
    else
        fprintf(f, "<h2 id=\"complexity\">Complexity</h2>\n<p>The <i>slope</i> row under each "
                   "table: the slope of log(ns/op) against log(n), and in brackets the claim (0: "
                   "O(1), log: O(log n), 1: O(n); hover for its source). A claim of O(1) or "
                   "O(log n) is contradicted by a slope above 0.6, a claim of O(n) by one below "
                   "0.5, when the medians, minima and maxima all agree, over three values of n "
                   "or more (with fewer a slope is shown, not judged); contradictions are "
                   "marked !.</p>\n");
    if (cross.have) {
        fprintf(f, "<h2 id=\"crossover\">Lawn crossover</h2>\n<ul>");
        for (int i = 0; i < cross.ntext; i++) {
            fprintf(f, "<li>");
            xml_text(f, cross.text[i]);
            fprintf(f, "</li>\n");
        }
        fprintf(f, "</ul>\n");
    }
    fprintf(f, "<h2 id=\"fig9\">fig9</h2>\n");
    if (fig9.have) {
        fprintf(f, "<p>The paper's section VII experiment: n callouts far in the future, one "
                   "more cancelled and re-set farther out, ns per cancel + set.</p>\n"
                   "<div class=\"plots\"><figure><img src=\"fig9.svg\" width=\"%d\" "
                   "height=\"%d\" alt=\"fig9\"></figure></div>\n<div class=\"scroll\"><table>"
                   "<tr><th>n</th><th>(a) BSD list</th><th>(b) Scheme 6, hash</th><th>(c) "
                   "Scheme 6, handle</th></tr>\n",
                SVG_W, SVG_H);
        for (int i = 0; i < fig9.npts; i++)
            fprintf(f, "<tr><th>%s</th><td class=\"v\">%.1f</td><td class=\"v\">%.1f</td>"
                       "<td class=\"v\">%.1f</td></tr>\n",
                    fmt_n(fig9.n[i], nb, sizeof nb), fig9.ns[0][i], fig9.ns[1][i],
                    fig9.ns[2][i]);
        fprintf(f, "</table></div>\n<p>Slopes (a) %.2f, (b) %.2f, (c) %.2f. Checks: (a) linear: "
                   "%s; (b), (c) flat: %s; (c) &lt; (b) (median ratio %.2f): %s.</p>\n",
                fig9.slope[0], fig9.slope[1], fig9.slope[2], fig9.linear_ok ? "yes" : "NO",
                fig9.flat_ok ? "yes" : "NO", fig9.order_ratio, fig9.order_ok ? "yes" : "NO");
    } else {
        html_not_run(f, fig9.why);
    }
    fprintf(f, "<h2 id=\"service\">service</h2>\n");
    if (svcres.have) {
        fprintf(f, "<p>The timer service against the timers of multi-threaded programs: "
                   "million stop + start per second of a random own timer (higher is better: a "
                   "rate, unlike the other tables), all pending an hour out, from T producer "
                   "threads on %d cores (p50 / p99 latency in ns; %u ms per cell; a machine "
                   "busier than its cores moves these cells most).",
                machine.cpus, svcres.ms);
        for (int t = 0; t < svcres.ntargets; t++)
            fprintf(f, " %s: %s%s", svcres.target[t], svcres.what[t],
                    t + 1 < svcres.ntargets ? ";" : ".");
        fprintf(f, "</p>\n<div class=\"scroll\"><table><tr><th>target</th><th>T</th>");
        for (int i = 0; i < svcres.npts; i++)
            fprintf(f, "<th>n = %s</th>", fmt_n(svcres.n[i], nb, sizeof nb));
        fprintf(f, "</tr>\n");
        for (int t = 0; t < svcres.ntargets; t++)
            for (int h = 0; h < SVC_THREADS; h++) {
                if (!svc_row_run(t, h))
                    continue;
                fprintf(f, "<tr><th>%s</th><td>%u</td>", svcres.target[t], svcres.threads[h]);
                for (int i = 0; i < svcres.npts; i++) {
                    if (svcres.status[t][h][i] == 1)
                        fprintf(f, "<td>limit</td>");
                    else if (svcres.status[t][h][i] == 2)
                        fprintf(f, "<td>—</td>");
                    else
                        fprintf(f, "<td class=\"v\">%.2f <small>(%.0f / %.0f)</small></td>",
                                svcres.mops[t][h][i], svcres.p50[t][h][i], svcres.p99[t][h][i]);
                }
                fprintf(f, "</tr>\n");
            }
        fprintf(f, "</table></div>\n");
    } else {
        html_not_run(f, svcres.why);
    }
    fprintf(f, "<h2 id=\"redis\">redis</h2>\n");
    if (redisres.have) {
        fprintf(f, "<p>The Redis module (contrib/redis, docs/redis.md) against the sorted-set "
                   "delay queue on one redis-server, client and server on this machine "
                   "(medians of the rounds in ");
        xml_text(f, redisres.path);
        fprintf(f, ", from scripts/redis-bench.sh): adds per second of TW.ADD or ZADD, "
                   "pipelined 1,000 at a time and one by one; pops per second of due timers, "
                   "one per request (TW.POP, or the Lua pop with LIMIT 1 by EVALSHA), the same "
                   "two ways; used_memory per pending timer; "
                   "delivery lateness of 2,000 timers due over 2 s, from the deadline to the "
                   "client having it, by a blocking TW.POP or by a Lua ZRANGEBYSCORE + ZREM "
                   "pop polled at the interval shown.</p>\n<div class=\"scroll\"><table>"
                   "<tr><th>n</th><th>implementation</th>");
        for (int k = 0; k < REDIS_FIELDS; k++)
            fprintf(f, "<th>%s</th>", redis_field[k].head);
        fprintf(f, "</tr>\n");
        for (int r = 0; r < redisres.nrows; r++) {
            const struct redis_row *w = &redisres.row[r];
            fprintf(f, "<tr><td>%s</td><th>", fmt_n(w->n, nb, sizeof nb));
            xml_text(f, w->name);
            fprintf(f, "</th>");
            for (int k = 0; k < REDIS_FIELDS; k++) {
                char v[32];
                fprintf(f, "<td class=\"v\">%s</td>", redis_cell(v, sizeof v, k, w->v[k]));
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table></div>\n");
    } else {
        html_not_run(f, "not run: scripts/bench.sh runs scripts/redis-bench.sh when "
                        "redis-server and libhiredis-dev are installed (twbench --redis FILE "
                        "reads its rounds)");
    }
    fprintf(f, "<p>Every figure, with min, max and samples: <a href=\"twbench.json\">"
               "twbench.json</a>; the summary in Markdown: <a href=\"summary.md\">summary.md</a>."
               "</p>\n</body></html>\n");
}

void html_write(FILE *f)
{
    html_head(f);
    html_machine(f);
    fprintf(f, "<nav><p>Contents: <a href=\"#summary\">summary</a> <a href=\"#largest\">every "
               "target</a> <a href=\"#targets\">targets</a> <a href=\"#reading\">reading the "
               "plots</a> | workloads:");
    for (int si = 0; si < nseries; si++)
        fprintf(f, " <a href=\"#%s\">%s</a>", series[si].name, series[si].name);
    fprintf(f, " | <a href=\"#complexity\">complexity</a>%s%s</p></nav>\n",
            cross.have ? " <a href=\"#crossover\">Lawn crossover</a>" : "",
            " <a href=\"#fig9\">fig9</a> <a href=\"#service\">service</a> "
            "<a href=\"#redis\">redis</a>");
    html_summary(f);
    html_largest(f);
    html_targets(f);
    html_reading(f);
    for (int si = 0; si < nseries; si++)
        html_series(f, &series[si]);
    html_tail(f);
}
