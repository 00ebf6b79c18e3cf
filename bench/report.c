/*
 * report.c -- twbench's files: the JSON with every figure and the machine,
 * one SVG plot per figure (ns/op against n on log axes, one line per
 * target; the ttl sweep against D; fig9), and report.html linking them.
 *
 * The plots are drawn here, with no library: a plot is a few dozen lines of
 * SVG.  Every file is written under a temporary name in the output folder
 * and renamed once all of them are complete, so a failure (a full disk, a
 * folder that is not writable) leaves no partial report behind.
 */
#define _GNU_SOURCE

#include "harness.h"

#include <twheel.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* A number JSON can hold: NaN and infinities become null. */
static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

/* [v0, v1, ...] */
static void json_nums(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_num(f, v[i]);
    }
    fputc(']', f);
}

static const char *state_name(enum cell_state s)
{
    static const char *st[] = {"none", "ok", "skipped", "n/a", "missing"};
    return st[s];
}

static void json_cell(FILE *f, int *first, const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    if (c->state == CELL_NONE)
        return;
    fprintf(f, "%s\n    {\"workload\": ", *first ? "" : ",");
    *first = 0;
    json_str(f, s->name);
    fprintf(f, ", \"target\": ");
    json_str(f, targets[ti].name);
    fprintf(f, ", \"n\": %zu", s->n[xi]);
    if (s->d[xi])
        fprintf(f, ", \"ttls\": %u", s->d[xi]);
    fprintf(f, ", \"status\": ");
    json_str(f, state_name(c->state));
    if (c->state != CELL_OK) {
        fprintf(f, ", \"reason\": ");
        json_str(f, c->why ? c->why : "");
        fputc('}', f);
        return;
    }
    const struct wl_result *r = &c->last;
    int second = s->second;
    fprintf(f, ", \"unit\": ");
    json_str(f, s->unit);
    fprintf(f, ", \"reps\": %d, \"median\": ", c->reps);
    json_num(f, c->med);
    fprintf(f, ", \"min\": ");
    json_num(f, c->min);
    fprintf(f, ", \"max\": ");
    json_num(f, c->max);
    fprintf(f, ", \"samples\": ");
    json_nums(f, c->ns, c->reps);
    if (c->rounds > 1) {
        /* samples: the windows of the first round; median, min and max:
         * over every round */
        fprintf(f, ", \"rounds\": %d, \"round_medians\": ", c->rounds);
        json_nums(f, c->round_med, c->rounds);
    }
    fprintf(f, ", \"ops_per_window\": %llu",
            (unsigned long long)(second ? r->ops2 : r->ops));
    fprintf(f, ", \"interval_lo\": %llu, \"interval_hi\": %llu", (unsigned long long)c->lo,
            (unsigned long long)c->hi);
    fprintf(f, ", \"node_bytes\": %zu, \"facility_bytes\": %zu, \"bytes_per_timer\": ",
            r->node_bytes, r->facility_bytes);
    json_num(f, c->bytes_per_timer);
    fprintf(f, ", \"seconds\": ");
    json_num(f, c->seconds);
    if (!strcmp(s->name, "expire") && r->ops)
        fprintf(f, ", \"start_ns_per_timer\": %.3f, \"advance_ns_per_timer\": %.3f",
                (double)r->phase1_ns / (double)r->ops, (double)r->phase2_ns / (double)r->ops);
    if (s->wl == WL_TCP)
        fprintf(f, ", \"restarts\": %llu, \"expiries\": %llu, \"stopped_share\": %.4f",
                (unsigned long long)r->stops, (unsigned long long)r->fired,
                r->ops ? (double)r->stops / (double)r->ops : 0.0);
    if (!strncmp(s->name, "ttl-", 4) && !second)
        fprintf(f, ", \"started\": %llu, \"expired\": %llu, \"advances\": %llu, \"live\": %zu",
                (unsigned long long)r->ops, (unsigned long long)r->fired,
                (unsigned long long)r->advances, r->live);
    fputc('}', f);
}

void json_write(FILE *f)
{
    fprintf(f, "{\n  \"tool\": \"twbench\",\n  \"twheel_version\": ");
    json_str(f, tw_version());
    fprintf(f, ",\n  \"command\": ");
    json_str(f, ropt.cmdline);
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, machine.cpu);
    fprintf(f, ", \"cpus\": %d, \"compiler\": ", machine.cpus);
    json_str(f, machine.compiler);
    fprintf(f, ", \"flags\": ");
    json_str(f, machine.flags);
    fprintf(f, ", \"kernel\": ");
    json_str(f, machine.kernel);
    fprintf(f, ", \"date\": ");
    json_str(f, machine.date);
    fprintf(f, ", \"load_start\": ");
    json_num(f, machine.load_start[0]);
    fprintf(f, ", \"load_end\": ");
    json_num(f, machine.load_end[0]);
    fprintf(f, ", \"clock_gettime_ns\": ");
    json_num(f, machine.clock_read_ns);
    fprintf(f, ", \"epoll_wait_zero_ns\": ");
    json_num(f, machine.poll_ns);
    fprintf(f, "},\n  \"quick\": %s, \"seed\": %llu, \"warmup_windows\": 1, \"statistic\": "
               "\"median\", \"clock\": \"CLOCK_MONOTONIC\", \"real_poll\": %s, \"seconds\": ",
            ropt.quick ? "true" : "false", (unsigned long long)ropt.seed,
            ropt.real_poll ? "true" : "false");
    json_num(f, ropt.seconds);
    fprintf(f, ",\n  \"targets\": [");
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        fprintf(f, "%s\n    {\"name\": ", ti ? "," : "");
        json_str(f, t->name);
        fprintf(f, ", \"kind\": ");
        json_str(f, t->peer == PEER_NONE ? "twheel" : "peer");
        fprintf(f, ", \"status\": ");
        json_str(f, t->missing ? t->missing : "ok");
        if (t->peer == PEER_NONE) {
            fprintf(f, ", \"scheme\": ");
            json_str(f, tw_scheme_name((enum tw_scheme)t->scheme));
            fprintf(f, ", \"options\": %u, \"fires\": \"deadline <= now\"", t->options);
        } else if (!t->missing) {
            fprintf(f, ", \"version\": ");
            json_str(f, t->info.version);
            fprintf(f, ", \"backend\": ");
            json_str(f, t->info.backend);
            fprintf(f, ", \"tick\": ");
            json_str(f, t->tick);
            fprintf(f, ", \"clock\": \"virtual (interposed clock_gettime)\", \"poll\": ");
            json_str(f, t->info.real_poll ? "real epoll_wait" : "stubbed, 0 events");
            fprintf(f, ", \"polls_per_advance\": ");
            json_num(f, t->info.polls_per_advance);
            fprintf(f, ", \"clock_reads_per_advance\": ");
            json_num(f, t->info.reads_per_advance);
            fprintf(f, ", \"clock_reads_per_start\": ");
            json_num(f, t->info.reads_per_start);
            fprintf(f, ", \"fires\": ");
            json_str(f, t->late ? "deadline < now (one tick late)" : "deadline <= now");
        }
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"workloads\": [");
    for (int si = 0; si < nseries; si++) {
        fprintf(f, "%s\n    {\"name\": ", si ? "," : "");
        json_str(f, series[si].name);
        fprintf(f, ", \"figure\": ");
        json_str(f, series[si].figure);
        fprintf(f, ", \"x\": ");
        json_str(f, series[si].by_ttls ? "distinct TTLs" : "n");
        fprintf(f, ", \"plot\": ");
        char file[64];
        snprintf(file, sizeof file, "%.40s.svg", series[si].name);
        json_str(f, file);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"results\": [");
    int first = 1;
    for (int si = 0; si < nseries; si++)
        for (int xi = 0; xi < series[si].nx; xi++)
            for (int ti = 0; ti < ntargets; ti++)
                json_cell(f, &first, &series[si], xi, ti);
    fprintf(f, "\n  ],\n  \"slopes\": [");
    first = 1;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++) {
            const struct slope *sl = &series[si].slope[ti];
            if (sl->points < 2)
                continue;
            fprintf(f, "%s\n    {\"workload\": ", first ? "" : ",");
            first = 0;
            json_str(f, series[si].name);
            fprintf(f, ", \"target\": ");
            json_str(f, targets[ti].name);
            fprintf(f, ", \"slope\": ");
            json_num(f, sl->s);
            fprintf(f, ", \"points\": %d, \"ratio_last_first\": ", sl->points);
            json_num(f, sl->ratio);
            fprintf(f, ", \"claim\": ");
            json_str(f, claim_name(sl->claim));
            fprintf(f, ", \"claim_source\": ");
            json_str(f, sl->why ? sl->why : "");
            fprintf(f, ", \"contradiction\": %s}", sl->flag ? "true" : "false");
        }
    fprintf(f, "\n  ],\n  \"crossover\": ");
    if (!cross.have)
        fprintf(f, "null");
    else {
        fprintf(f, "{\"n\": %zu, \"d_cross\": ", cross.n);
        if (cross.d_cross > 0)
            json_num(f, cross.d_cross);
        else
            fprintf(f, "null");
        fprintf(f, ", \"ratio\": ");
        if (cross.d_cross > 0)
            json_num(f, cross.d_cross / (double)cross.n);
        else
            fprintf(f, "null");
        fprintf(f, ", \"findings\": [");
        for (int i = 0; i < cross.ntext; i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_str(f, cross.text[i]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, ",\n  \"fig9\": ");
    if (!fig9.have) {
        fprintf(f, "{\"status\": ");
        json_str(f, fig9.why ? fig9.why : "not selected");
        fputc('}', f);
    } else {
        static const char *names[3] = {"a_bsd_list", "b_scheme6_hash", "c_scheme6_handle"};
        fprintf(f, "{\"status\": \"ok\", \"unit\": \"ns per cancel + re-set\", \"n\": [");
        for (int i = 0; i < fig9.npts; i++)
            fprintf(f, "%s%zu", i ? ", " : "", fig9.n[i]);
        fprintf(f, "]");
        for (int k = 0; k < 3; k++) {
            fprintf(f, ", \"%s\": ", names[k]);
            json_nums(f, fig9.ns[k], fig9.npts);
            fprintf(f, ", \"%s_slope\": ", names[k]);
            json_num(f, fig9.slope[k]);
        }
        fprintf(f, ", \"c_over_b\": ");
        json_num(f, fig9.order_ratio);
        fprintf(f, ", \"checks\": {\"a_linear\": %s, \"b_c_flat\": %s, \"c_below_b\": %s}}",
                fig9.linear_ok ? "true" : "false", fig9.flat_ok ? "true" : "false",
                fig9.order_ok ? "true" : "false");
    }
    fprintf(f, "\n}\n");
}

/* ------------------------------------------------------------- SVG */

#define SVG_W 790
#define SVG_H 460
#define PL 70  /* plot area: left, right, top, bottom margins */
#define PR 200
#define PT 46
#define PB 56

/* Colours that stay apart from each other on white, in target order. */
static const char *palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
                                "#000000", "#393b79", "#ad494a", "#637939", "#843c39",
                                "#3182bd"};

struct axes {
    double x0, x1, y0, y1; /* decades: log10 of the ends */
};

static double sx(const struct axes *a, double x)
{
    return PL + (log10(x) - a->x0) / (a->x1 - a->x0) * (SVG_W - PL - PR);
}

static double sy(const struct axes *a, double y)
{
    return SVG_H - PB - (log10(y) - a->y0) / (a->y1 - a->y0) * (SVG_H - PT - PB);
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

static void fmt_tick(double v, char *buf, size_t len)
{
    if (v >= 1e3 || v < 0.01) {
        int e = (int)lround(log10(v));
        double m = v / pow(10, e);
        if (fabs(m - 1) < 1e-9)
            snprintf(buf, len, "1e%d", e);
        else
            snprintf(buf, len, "%ge%d", m, e);
    } else
        snprintf(buf, len, "%g", v);
}

static void svg_axes(FILE *f, const struct axes *a, const char *title, const char *subtitle,
                     const char *xlabel, const char *ylabel)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
               "font-size=\"12\">\n",
            SVG_W, SVG_H, SVG_W, SVG_H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", PL);
    xml_text(f, title);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"36\" font-size=\"11\" fill=\"#444\">", PL);
    xml_text(f, subtitle);
    fprintf(f, "</text>\n");
    /* grid: decades, and 2 and 5 within them when the range is short */
    for (int e = (int)floor(a->x0); e <= (int)ceil(a->x1); e++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, e);
            if (log10(v) < a->x0 - 1e-9 || log10(v) > a->x1 + 1e-9)
                continue;
            double x = sx(a, v);
            int major = m == 1;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x,
                    PT, x, SVG_H - PB, major ? "#ccc" : "#eee");
            if (major || (a->x1 - a->x0 < 1.5 && (m == 2 || m == 5))) {
                char b[32];
                fmt_tick(v, b, sizeof b);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                        SVG_H - PB + 16, b);
            }
        }
    int yspan_short = a->y1 - a->y0 < 2.5;
    for (int e = (int)floor(a->y0); e <= (int)ceil(a->y1); e++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, e);
            if (log10(v) < a->y0 - 1e-9 || log10(v) > a->y1 + 1e-9)
                continue;
            double y = sy(a, v);
            int major = m == 1;
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n", PL,
                    y, SVG_W - PR, y, major ? "#ccc" : "#eee");
            if (major || (yspan_short && (m == 2 || m == 5))) {
                char b[32];
                fmt_tick(v, b, sizeof b);
                fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL - 6,
                        y + 4, b);
            }
        }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#333\"/>\n",
            PL, PT, SVG_W - PL - PR, SVG_H - PT - PB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (PL + SVG_W - PR) / 2,
            SVG_H - 16);
    xml_text(f, xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(16 %d) rotate(-90)\" "
               "text-anchor=\"middle\">",
            (PT + SVG_H - PB) / 2);
    xml_text(f, ylabel);
    fprintf(f, "</text>\n");
}

/* One line: points (x[i], y[i]) with y > 0, and optional whiskers. */
static void svg_line(FILE *f, const struct axes *a, const double *x, const double *y,
                     const double *ylo, const double *yhi, int k, const char *colour, int dashed,
                     int li, const char *label)
{
    int pts = 0;
    for (int i = 0; i < k; i++)
        pts += y[i] > 0;
    if (pts == 0)
        return;
    fprintf(f, "<g stroke=\"%s\" fill=\"%s\">\n", colour, colour);
    fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\"%s points=\"",
            dashed ? " stroke-dasharray=\"6 3\"" : "");
    for (int i = 0; i < k; i++)
        if (y[i] > 0)
            fprintf(f, "%.1f,%.1f ", sx(a, x[i]), sy(a, y[i]));
    fprintf(f, "\"/>\n");
    for (int i = 0; i < k; i++) {
        if (!(y[i] > 0))
            continue;
        double px = sx(a, x[i]), py = sy(a, y[i]);
        if (ylo && yhi && ylo[i] > 0 && yhi[i] > ylo[i] * 1.02)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke-width=\"1\"/>\n",
                    px, sy(a, ylo[i]), px, sy(a, yhi[i]));
        if (li % 3 == 0)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", px, py);
        else if (li % 3 == 1)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"/>\n", px - 3.5,
                    py - 3.5);
        else
            fprintf(f, "<path d=\"M%.1f %.1f l4 7 h-8 z\"/>\n", px, py - 4.5);
    }
    fprintf(f, "</g>\n");
    /* legend entry */
    double ly = PT + 8 + li * 18;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"2\"%s/>\n",
            SVG_W - PR + 12, ly, SVG_W - PR + 38, ly, colour,
            dashed ? " stroke-dasharray=\"6 3\"" : "");
    fprintf(f, "<text x=\"%d\" y=\"%.1f\">", SVG_W - PR + 44, ly + 4);
    xml_text(f, label);
    fprintf(f, "</text>\n");
}

static void axes_fit(struct axes *a, double xmin, double xmax, double ymin, double ymax)
{
    if (!(xmin > 0))
        xmin = 1;
    if (!(xmax > xmin))
        xmax = xmin * 10;
    if (!(ymin > 0))
        ymin = 1;
    if (!(ymax > ymin))
        ymax = ymin * 10;
    a->x0 = log10(xmin) - 0.08;
    a->x1 = log10(xmax) + 0.08;
    a->y0 = floor(log10(ymin) * 4 - 0.2) / 4;
    a->y1 = ceil(log10(ymax) * 4 + 0.2) / 4;
}

static void svg_series(FILE *f, const struct series *s)
{
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
    for (int xi = 0; xi < s->nx; xi++)
        for (int ti = 0; ti < ntargets; ti++) {
            const struct cell *c = &s->cell[xi][ti];
            if (c->state != CELL_OK || !(c->med > 0))
                continue;
            double x = s->x[xi];
            xmin = xmin == 0 || x < xmin ? x : xmin;
            xmax = x > xmax ? x : xmax;
            double lo = c->min > 0 ? c->min : c->med, hi = c->max > c->med ? c->max : c->med;
            ymin = ymin == 0 || lo < ymin ? lo : ymin;
            ymax = hi > ymax ? hi : ymax;
        }
    struct axes a;
    axes_fit(&a, xmin, xmax, ymin, ymax);
    char title[96], sub[200];
    snprintf(title, sizeof title, "twbench: %s", s->name);
    char nb[32];
    if (s->by_ttls)
        snprintf(sub, sizeof sub, "%s, n = %s; median, bars min..max; %s", s->figure,
                 fmt_n(s->n[0], nb, sizeof nb), machine.cpu);
    else
        snprintf(sub, sizeof sub, "%s; median, bars min..max; %s", s->figure, machine.cpu);
    char yname[64];
    snprintf(yname, sizeof yname, "%s (log)", s->unit);
    svg_axes(f, &a, title, sub,
             s->by_ttls ? "distinct TTLs D (log)" : "n, timers pending (log)", yname);
    int li = 0;
    for (int ti = 0; ti < ntargets; ti++) {
        double x[X_MAX], y[X_MAX], lo[X_MAX], hi[X_MAX];
        int any = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            const struct cell *c = &s->cell[xi][ti];
            x[xi] = s->x[xi];
            y[xi] = c->state == CELL_OK ? c->med : 0;
            lo[xi] = c->state == CELL_OK ? c->min : 0;
            hi[xi] = c->state == CELL_OK ? c->max : 0;
            any |= y[xi] > 0;
        }
        if (!any)
            continue;
        svg_line(f, &a, x, y, lo, hi, s->nx, palette[ti % 16], targets[ti].peer != PEER_NONE, li,
                 targets[ti].name);
        li++;
    }
    fprintf(f, "</svg>\n");
}

static void svg_fig9(FILE *f)
{
    double ymin = 0, ymax = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < fig9.npts; i++) {
            double v = fig9.ns[k][i];
            if (v > 0) {
                ymin = ymin == 0 || v < ymin ? v : ymin;
                ymax = v > ymax ? v : ymax;
            }
        }
    struct axes a;
    axes_fit(&a, (double)fig9.n[0], (double)fig9.n[fig9.npts - 1], ymin, ymax);
    svg_axes(f, &a, "twbench: fig9 (Varghese & Lauck, Fig. 9)",
             "ns per cancel + re-set of one callout beyond n outstanding callouts",
             "n, outstanding callouts (log)", "ns per cancel + set (log)");
    static const char *labels[3] = {"(a) BSD sorted list", "(b) Scheme 6, hash", "(c) Scheme 6, handle"};
    static const char *colours[3] = {"#d62728", "#1f77b4", "#2ca02c"};
    double x[FIG9_MAX];
    for (int i = 0; i < fig9.npts; i++)
        x[i] = (double)fig9.n[i];
    for (int k = 0; k < 3; k++)
        svg_line(f, &a, x, fig9.ns[k], NULL, NULL, fig9.npts, colours[k], 0, k, labels[k]);
    fprintf(f, "</svg>\n");
}

/* ------------------------------------------------------------- HTML */

static void html_cell_value(FILE *f, const struct cell *c)
{
    switch (c->state) {
    case CELL_OK:
        fprintf(f, "<td class=\"v\" title=\"min %.1f, max %.1f, %d windows x %d round(s)\">%.1f</td>",
                c->min, c->max, c->reps, c->rounds > 1 ? c->rounds : 1, c->med);
        break;
    case CELL_NONE:
        fprintf(f, "<td></td>");
        break;
    default:
        fprintf(f, "<td class=\"s\" title=\"");
        xml_text(f, c->why ? c->why : "");
        fprintf(f, "\">%s</td>", state_name(c->state));
        break;
    }
}

static void html_write(FILE *f)
{
    char nb[32];
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>twbench report"
               "</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto;"
               "padding:0 1em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid "
               "#ccc;padding:2px 6px}td.v{text-align:right}td.s{color:#888}th{background:#f3f3f3}"
               "img{max-width:100%%;border:1px solid #ddd}code{background:#f5f5f5}.flag{color:"
               "#b00}</style></head><body>\n");
    fprintf(f, "<h1>twbench report</h1>\n<p>twheel %s, %s. Command: <code>", tw_version(),
            machine.date);
    xml_text(f, ropt.cmdline);
    fprintf(f, "</code> (%.0f s).</p>\n<table>", ropt.seconds);
    fprintf(f, "<tr><th>CPU</th><td>");
    xml_text(f, machine.cpu);
    fprintf(f, " (%d online)</td></tr><tr><th>compiler</th><td>", machine.cpus);
    xml_text(f, machine.compiler);
    fprintf(f, "</td></tr><tr><th>flags</th><td><code>");
    xml_text(f, machine.flags);
    fprintf(f, "</code></td></tr><tr><th>kernel</th><td>");
    xml_text(f, machine.kernel);
    fprintf(f, "</td></tr><tr><th>load average</th><td>%.2f at start, %.2f at the end</td></tr>"
               "</table>\n",
            machine.load_start[0], machine.load_end[0]);
    fprintf(f, "<p>Each figure is the median of the measured windows (hover a cell for min and "
               "max) after one warm-up window; lower is better. Plots: ns/op against n on log "
               "axes, one line per target (peers dashed), bars from min to max. A line that "
               "stays level is O(1) in n; a line that climbs one decade per decade is O(n). "
               "docs/benchmarks.md explains every workload.</p>\n<p>Figures:");
    for (int si = 0; si < nseries; si++)
        fprintf(f, " <a href=\"#%s\">%s</a>", series[si].name, series[si].name);
    fprintf(f, "%s, <a href=\"#complexity\">complexity</a>.</p>\n<h2>Targets</h2>\n<ul>\n",
            fig9.have ? ", <a href=\"#fig9\">fig9</a>" : "");
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        fprintf(f, "<li><b>%s</b>: ", t->name);
        if (t->peer == PEER_NONE)
            fprintf(f, "twheel scheme %s%s", tw_scheme_name((enum tw_scheme)t->scheme),
                    t->options ? " with TW_OPT_LAWN_SCAN (the paper's per-tick scan)" : "");
        else if (t->missing)
            xml_text(f, t->info.error);
        else
            fprintf(f, "%s %s in virtual time, 1 tick = %s, %s poll, %.0f poll(s) and %.0f clock "
                       "read(s) per advance, %.0f per start; fires at %s",
                    t->name, t->info.version, t->tick, t->info.real_poll ? "real" : "stubbed",
                    t->info.polls_per_advance, t->info.reads_per_advance,
                    t->info.reads_per_start,
                    t->late ? "deadline &lt; now (one tick late)" : "deadline &le; now");
        fprintf(f, "</li>\n");
    }
    fprintf(f, "</ul><p>%s the real epoll_wait(0) (%.0f ns here); not measured: the real "
               "clock_gettime (%.0f ns here).</p>\n",
            ropt.real_poll ? "Measured for the peers (--real-poll):"
                           : "Not measured for the peers (stubbed, no fd is watched):",
            machine.poll_ns, machine.clock_read_ns);
    for (int si = 0; si < nseries; si++) {
        const struct series *s = &series[si];
        fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>", s->name, s->name);
        xml_text(f, s->figure);
        if (s->by_ttls)
            fprintf(f, ", n = %s", fmt_n(s->n[0], nb, sizeof nb));
        fprintf(f, "</p>\n<img src=\"%s.svg\" alt=\"%s\">\n<table><tr><th>%s</th>", s->name,
                s->name, s->by_ttls ? "D" : "n");
        int show[TARGETS_MAX];
        for (int ti = 0; ti < ntargets; ti++) {
            show[ti] = 0;
            for (int xi = 0; xi < s->nx; xi++)
                show[ti] |= s->cell[xi][ti].state != CELL_NONE;
            if (show[ti])
                fprintf(f, "<th>%s</th>", targets[ti].name);
        }
        fprintf(f, "</tr>\n");
        for (int xi = 0; xi < s->nx; xi++) {
            fprintf(f, "<tr><th>%s</th>",
                    fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], nb, sizeof nb));
            for (int ti = 0; ti < ntargets; ti++)
                if (show[ti])
                    html_cell_value(f, &s->cell[xi][ti]);
            fprintf(f, "</tr>\n");
        }
        if (!s->by_ttls) {
            fprintf(f, "<tr><th>slope</th>");
            for (int ti = 0; ti < ntargets; ti++) {
                if (!show[ti])
                    continue;
                const struct slope *sl = &s->slope[ti];
                if (sl->points >= 2)
                    fprintf(f, "<td class=\"v%s\" title=\"claimed %s: ", sl->flag ? " flag" : "",
                            claim_name(sl->claim));
                else
                    fprintf(f, "<td>");
                if (sl->points >= 2) {
                    xml_text(f, sl->why ? sl->why : "");
                    fprintf(f, "\">%s%.2f [%s]</td>", sl->flag ? "! " : "", sl->s,
                            claim_name(sl->claim));
                } else
                    fprintf(f, "</td>");
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table>\n");
    }
    fprintf(f, "<h2 id=\"complexity\">Complexity</h2>\n<p>The <i>slope</i> row under each "
               "table: the slope of log(ns/op) against log(n), and in brackets the claim (0: "
               "O(1), log: O(log n), 1: O(n); hover for its source). A claim of O(1) or O(log n) "
               "is contradicted by a slope above 0.6, a claim of O(n) by one below 0.5, when the "
               "medians, minima and maxima all agree; contradictions are marked !.</p>\n");
    if (cross.have) {
        fprintf(f, "<h2>Lawn crossover</h2>\n<ul>");
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
                   "<img src=\"fig9.svg\" alt=\"fig9\">\n<table><tr><th>n</th><th>(a) BSD "
                   "list</th><th>(b) Scheme 6, hash</th><th>(c) Scheme 6, handle</th></tr>\n");
        for (int i = 0; i < fig9.npts; i++)
            fprintf(f, "<tr><th>%s</th><td class=\"v\">%.1f</td><td class=\"v\">%.1f</td>"
                       "<td class=\"v\">%.1f</td></tr>\n",
                    fmt_n(fig9.n[i], nb, sizeof nb), fig9.ns[0][i], fig9.ns[1][i],
                    fig9.ns[2][i]);
        fprintf(f, "</table>\n<p>Slopes (a) %.2f, (b) %.2f, (c) %.2f. Checks: (a) linear: %s; "
                   "(b), (c) flat: %s; (c) &lt; (b) (median ratio %.2f): %s.</p>\n",
                fig9.slope[0], fig9.slope[1], fig9.slope[2], fig9.linear_ok ? "yes" : "NO",
                fig9.flat_ok ? "yes" : "NO", fig9.order_ratio, fig9.order_ok ? "yes" : "NO");
    } else {
        fprintf(f, "<p>");
        xml_text(f, fig9.why ? fig9.why : "not run");
        fprintf(f, "</p>\n");
    }
    fprintf(f, "<p>Every figure, with min, max and samples: <a href=\"twbench.json\">"
               "twbench.json</a>.</p>\n</body></html>\n");
}

/* ------------------------------------------------------------- files */

int report_probe(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "output folder %s exists and is not a folder", dir);
            return -1;
        }
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.twbench-probe-%ld", dir, (long)getpid());
        FILE *f = fopen(probe, "w");
        if (f == NULL) {
            snprintf(err, errlen, "cannot write into the output folder %s: %s", dir,
                     strerror(errno));
            return -1;
        }
        fclose(f);
        remove(probe);
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "cannot use the output folder %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Missing: its parent must let us create it (done when writing). */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    size_t len = strlen(parent);
    while (len > 1 && parent[len - 1] == '/')
        parent[--len] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash == NULL)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    if (access(parent, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot create the output folder %s: %s: %s", dir, parent,
                 strerror(errno));
        return -1;
    }
    /* Try it (some file systems refuse what access() allows); created for
     * good only when the report is written. */
    if (mkdir(dir, 0777) != 0) {
        snprintf(err, errlen, "cannot create the output folder %s: %s", dir, strerror(errno));
        return -1;
    }
    rmdir(dir);
    return 0;
}

#define FILES_MAX (SERIES_MAX + 4)

int report_write(const char *dir, char *err, size_t errlen)
{
    char tmp[FILES_MAX][4200], fin[FILES_MAX][4200];
    int nfiles = 0, created = 0;
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, errlen, "cannot create the output folder %s: %s", dir, strerror(errno));
            return -1;
        }
        created = 1;
    }
    int failed = 0;
    for (int k = -2; k < nseries + 1 && !failed; k++) {
        const char *name;
        char nbuf[64];
        if (k == -2)
            name = "twbench.json";
        else if (k == -1)
            name = "report.html";
        else if (k == nseries) {
            if (!fig9.have)
                continue;
            name = "fig9.svg";
        } else {
            snprintf(nbuf, sizeof nbuf, "%.40s.svg", series[k].name);
            name = nbuf;
        }
        snprintf(fin[nfiles], sizeof fin[0], "%s/%s", dir, name);
        snprintf(tmp[nfiles], sizeof tmp[0], "%s/.%s.tmp-%ld", dir, name, (long)getpid());
        FILE *f = fopen(tmp[nfiles], "w");
        if (f == NULL) {
            snprintf(err, errlen, "cannot write %s: %s", tmp[nfiles], strerror(errno));
            failed = 1;
            break;
        }
        nfiles++;
        if (k == -2)
            json_write(f);
        else if (k == -1)
            html_write(f);
        else if (k == nseries)
            svg_fig9(f);
        else
            svg_series(f, &series[k]);
        if (ferror(f) | (fclose(f) != 0)) {
            snprintf(err, errlen, "cannot write %s: %s", tmp[nfiles - 1], strerror(errno));
            failed = 1;
        }
    }
    if (!failed)
        for (int i = 0; i < nfiles; i++)
            if (rename(tmp[i], fin[i]) != 0) {
                snprintf(err, errlen, "cannot rename %s to %s: %s", tmp[i], fin[i],
                         strerror(errno));
                failed = 1;
                for (int j = 0; j < i; j++)
                    remove(fin[j]);
                break;
            }
    if (failed) {
        for (int i = 0; i < nfiles; i++)
            remove(tmp[i]);
        if (created)
            rmdir(dir);
        return -1;
    }
    return 0;
}
