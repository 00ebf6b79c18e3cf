/*
 * report_svg.c -- the report's plots, drawn here with no library: a plot
 * is a few dozen lines of SVG.  ns/op (under --counts, instructions per
 * op) against n (or D) on log axes, each target's median as a marker with
 * its min..max bar, the points of one x dodged sideways, trends solid
 * between stable points and dotted to an unstable one, and a legend; the
 * same frame draws fig9.
 */
#define _GNU_SOURCE

#include "report.h"

#include <math.h>
#include <string.h>

/* The plot's size is SVG_W x SVG_H (report.h). */
#define PL 64  /* plot area: left, right, top, bottom margins */
#define PR 200
#define PT 62
#define PB 50
#define DODGE 6.0       /* px between the points of two lines at one x */
#define DODGE_ROOM 26.0 /* px from the frame to the outermost x */

#define PTS_MAX (X_MAX > FIG9_MAX ? X_MAX : FIG9_MAX)

/* One line of a plot: its points (y 0: none), whiskers and look. */
struct plotline {
    const char *label;
    const char *label2;    /* a second, smaller legend line, or NULL */
    char note[48];         /* room for label2 */
    struct style st;
    int k;
    double x[PTS_MAX], y[PTS_MAX], lo[PTS_MAX], hi[PTS_MAX]; /* lo, hi 0: no whisker */
    int unstable[PTS_MAX];
    double dx;             /* its dodge, px */
};

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

/* Text for SVG and HTML, in element content and in attribute values. */
void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

/* A tick label, one format on both axes: 0.5, 1, 2, 50, 100, 1k, 20k, 1M. */
static void fmt_tick(double v, char *buf, size_t len)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    int k = 0;
    while (v >= 999.5 && k < 4) {
        v /= 1000;
        k++;
    }
    snprintf(buf, len, "%.3g%s", v, suffix[k]);
}

/* Which mantissas of a decade get a label on an axis spanning `span`
 * decades: every decade on a long axis, 1-2-5 on a shorter one, more on
 * one shorter than a decade, so that each axis carries a few labels. */
static int tick_labelled(int m, double span)
{
    if (m == 1)
        return 1;
    if (span < 1.05)
        return m == 2 || m == 3 || m == 5 || m == 7;
    return span < 2.6 && (m == 2 || m == 5);
}

static void svg_grid_x(FILE *f, const struct axes *a)
{
    for (int e = (int)floor(a->x0); e <= (int)ceil(a->x1); e++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, e);
            if (log10(v) < a->x0 - 1e-9 || log10(v) > a->x1 + 1e-9)
                continue;
            double x = sx(a, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x,
                    PT, x, SVG_H - PB, m == 1 ? "#ccc" : "#eee");
            if (tick_labelled(m, a->x1 - a->x0)) {
                char b[32];
                fmt_tick(v, b, sizeof b);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                        SVG_H - PB + 16, b);
            }
        }
}

static void svg_grid_y(FILE *f, const struct axes *a)
{
    for (int e = (int)floor(a->y0); e <= (int)ceil(a->y1); e++)
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10, e);
            if (log10(v) < a->y0 - 1e-9 || log10(v) > a->y1 + 1e-9)
                continue;
            double y = sy(a, v);
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n", PL,
                    y, SVG_W - PR, y, m == 1 ? "#ccc" : "#eee");
            if (tick_labelled(m, a->y1 - a->y0)) {
                char b[32];
                fmt_tick(v, b, sizeof b);
                fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL - 6,
                        y + 4, b);
            }
        }
}

/* The frame: title, two lines under it, grid, tick labels, axis names. */
static void svg_axes(FILE *f, const struct axes *a, const char *title, const char *sub1,
                     const char *sub2, const char *xlabel, const char *ylabel)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
               "font-size=\"12\">\n",
            SVG_W, SVG_H, SVG_W, SVG_H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", 12);
    xml_text(f, title);
    fprintf(f, "</text>\n<text x=\"12\" y=\"37\" font-size=\"11\" fill=\"#333\">");
    xml_text(f, sub1);
    fprintf(f, "</text>\n<text x=\"12\" y=\"51\" font-size=\"11\" fill=\"#666\">");
    xml_text(f, sub2);
    fprintf(f, "</text>\n");
    svg_grid_x(f, a);
    svg_grid_y(f, a);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#333\"/>\n",
            PL, PT, SVG_W - PL - PR, SVG_H - PT - PB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (PL + SVG_W - PR) / 2,
            SVG_H - 12);
    xml_text(f, xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(16 %d) rotate(-90)\" "
               "text-anchor=\"middle\">",
            (PT + SVG_H - PB) / 2);
    xml_text(f, ylabel);
    fprintf(f, "</text>\n");
}

/* One marker's shape centred on (x, y), its paint set by the caller. */
static void svg_shape(FILE *f, enum marker mk, double x, double y)
{
    switch (mk) {
    case MK_CIRCLE:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.4\"/>", x, y);
        break;
    case MK_SQUARE:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\"/>", x - 4, y - 4);
        break;
    case MK_DIAMOND:
        fprintf(f, "<path d=\"M%.1f %.1fl5.5 5.5l-5.5 5.5l-5.5 -5.5z\"/>", x, y - 5.5);
        break;
    case MK_TRI_UP:
        fprintf(f, "<path d=\"M%.1f %.1fl5.2 9.2h-10.4z\"/>", x, y - 5.6);
        break;
    case MK_TRI_DOWN:
        fprintf(f, "<path d=\"M%.1f %.1fl5.2 -9.2h-10.4z\"/>", x, y + 5.6);
        break;
    case MK_PLUS:
    case MK_CROSS:
        fprintf(f, "<path d=\"M%.1f %.1fh3.6v-3.6h3.6v3.6h3.6v3.6h-3.6v3.6h-3.6v-3.6h-3.6z\"%s",
                x - 5.4, y - 1.8, mk == MK_CROSS ? "" : "/>");
        if (mk == MK_CROSS)
            fprintf(f, " transform=\"rotate(45 %.1f %.1f)\"/>", x, y);
        break;
    case MK_STAR:
        fprintf(f, "<path d=\"M");
        for (int i = 0; i < 10; i++) {
            double r = i % 2 ? 2.6 : 6.0, t = M_PI / 5 * i;
            fprintf(f, "%s%.1f %.1f", i ? "L" : "", x + r * sin(t), y - r * cos(t));
        }
        fprintf(f, "z\"/>");
        break;
    case MK_HEXAGON:
        fprintf(f, "<path d=\"M");
        for (int i = 0; i < 6; i++) {
            double t = M_PI / 3 * i;
            fprintf(f, "%s%.1f %.1f", i ? "L" : "", x + 5.0 * sin(t), y - 5.0 * cos(t));
        }
        fprintf(f, "z\"/>");
        break;
    }
}

/* One marker centred on (x, y); hollow: white inside (an unstable cell).
 * An outlined colour (yellow) gets a ring of it between dark edges. */
static void svg_marker(FILE *f, const struct style *st, double x, double y, int hollow)
{
    if (hollow && st->edge) {
        fprintf(f, "<g fill=\"white\" stroke=\"%s\" stroke-width=\"3.6\">", st->edge);
        svg_shape(f, st->marker, x, y);
        fprintf(f, "</g><g fill=\"white\" stroke=\"%s\" stroke-width=\"1.8\">", st->colour);
    } else if (hollow)
        fprintf(f, "<g fill=\"white\" stroke=\"%s\" stroke-width=\"1.8\">", st->colour);
    else
        fprintf(f, "<g fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\">", st->colour,
                st->edge ? st->edge : "white", st->edge ? "1" : "0.7");
    svg_shape(f, st->marker, x, y);
    fprintf(f, "</g>\n");
}

static double line_px(const struct axes *a, const struct plotline *l, int i)
{
    return sx(a, l->x[i]) + l->dx;
}

/* The min..max bar of every point, with small caps. */
static void svg_whiskers(FILE *f, const struct axes *a, const struct plotline *l)
{
    const char *colour = l->st.edge ? l->st.edge : l->st.colour;
    for (int i = 0; i < l->k; i++) {
        if (!(l->y[i] > 0 && l->lo[i] > 0 && l->hi[i] > l->lo[i] * 1.02))
            continue;
        double px = line_px(a, l, i), y0 = sy(a, l->lo[i]), y1 = sy(a, l->hi[i]);
        fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh5M%.1f %.1fh5\" stroke=\"%s\" "
                   "stroke-width=\"1.2\" fill=\"none\" opacity=\"0.75\"/>\n",
                px, y0, y1, px - 2.5, y0, px - 2.5, y1, colour);
    }
}

/* Does segment (prev, i) touch an unstable point? */
static int segment_unstable(const struct plotline *l, int prev, int i)
{
    return l->unstable[prev] || l->unstable[i];
}

/* The segments between successive points of l that touch an unstable
 * point (which = 1) or do not (which = 0): how many, and with f, their
 * path data. */
static int trend_d(FILE *f, const struct axes *a, const struct plotline *l, int which)
{
    int open = 0, prev = -1, count = 0;
    for (int i = 0; i < l->k; i++) {
        if (!(l->y[i] > 0))
            continue;
        if (prev >= 0 && segment_unstable(l, prev, i) == which) {
            if (f && !open)
                fprintf(f, "M%.1f %.1f", line_px(a, l, prev), sy(a, l->y[prev]));
            if (f)
                fprintf(f, "L%.1f %.1f", line_px(a, l, i), sy(a, l->y[i]));
            open = 1;
            count++;
        } else
            open = 0;
        prev = i;
    }
    return count;
}

/* The trend: solid (or the line's dash) between stable points; a faint
 * dotted segment to or from an unstable one, which carries no trend. */
static void svg_trend(FILE *f, const struct axes *a, const struct plotline *l)
{
    const struct style *st = &l->st;
    if (trend_d(NULL, a, l, 0)) {
        if (st->edge) {
            fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"4\" d=\"", st->edge);
            trend_d(f, a, l, 0);
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", st->colour,
                st->edge ? "2.2" : "2");
        if (st->dash)
            fprintf(f, " stroke-dasharray=\"%s\"", st->dash);
        fprintf(f, " d=\"");
        trend_d(f, a, l, 0);
        fprintf(f, "\"/>\n");
    }
    /* dots of the colour (outlined ones: on a larger dark dot) */
    for (int k = st->edge ? 0 : 1; k < 2 && trend_d(NULL, a, l, 1); k++) {
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
                   "stroke-linecap=\"round\" stroke-dasharray=\"0.5 4.5\" d=\"",
                k ? st->colour : st->edge, k ? "1.7" : "3.3");
        trend_d(f, a, l, 1);
        fprintf(f, "\"/>\n");
    }
}

/* A legend's line sample: the line's dash (or casing) and its marker. */
void svg_sample(FILE *f, const struct style *st, double x, double y, int hollow)
{
    if (st->edge)
        fprintf(f, "<path d=\"M%.1f %.1fh30\" stroke=\"%s\" stroke-width=\"4\"/>", x, y,
                st->edge);
    fprintf(f, "<path d=\"M%.1f %.1fh30\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s/>\n", x, y,
            st->colour, st->edge ? "2.2" : "2", st->dash ? " stroke-dasharray=\"" : "",
            st->dash ? st->dash : "", st->dash ? "\"" : "");
    svg_marker(f, st, x + 15, y, hollow);
}

static void svg_legend(FILE *f, const struct plotline *lines, int m, int any_unstable,
                       int any_bar)
{
    double x = SVG_W - PR + 12, y = PT + 8;
    for (int i = 0; i < m; i++) {
        svg_sample(f, &lines[i].st, x, y, 0);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">", x + 38, y + 4);
        xml_text(f, lines[i].label);
        fprintf(f, "</text>\n");
        if (lines[i].label2) {
            y += 13;
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">", x + 38,
                    y + 4);
            xml_text(f, lines[i].label2);
            fprintf(f, "</text>\n");
        }
        y += 20;
    }
    y += 6;
    if (any_bar) {
        fprintf(f, "<path d=\"M%.1f %.1fv14M%.1f %.1fh5M%.1f %.1fh5\" stroke=\"#555\" "
                   "stroke-width=\"1.2\"/>\n",
                x + 15, y - 7, x + 12.5, y - 7, x + 12.5, y + 7);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">min..max</text>\n", x + 38,
                y + 4);
        y += 22;
    }
    if (any_unstable) {
        struct style grey = style_make("#555555", MK_CIRCLE, NULL);
        fprintf(f, "<path d=\"M%.1f %.1fh30\" stroke=\"#555\" stroke-width=\"1.6\" "
                   "stroke-linecap=\"round\" stroke-dasharray=\"0.5 4.5\"/>\n",
                x, y);
        svg_marker(f, &grey, x + 15, y, 1);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">unstable:</text>\n", x + 38,
                y);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">two clusters</text>\n",
                x + 38, y + 13);
    }
}

static void axes_fit(struct axes *a, const struct plotline *lines, int m)
{
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < lines[j].k; i++) {
            const struct plotline *l = &lines[j];
            if (!(l->y[i] > 0))
                continue;
            double lo = l->lo[i] > 0 && l->lo[i] < l->y[i] ? l->lo[i] : l->y[i];
            double hi = l->hi[i] > l->y[i] ? l->hi[i] : l->y[i];
            xmin = xmin == 0 || l->x[i] < xmin ? l->x[i] : xmin;
            xmax = l->x[i] > xmax ? l->x[i] : xmax;
            ymin = ymin == 0 || lo < ymin ? lo : ymin;
            ymax = hi > ymax ? hi : ymax;
        }
    if (!(xmin > 0))
        xmin = 1;
    if (!(xmax > xmin))
        xmax = xmin * 10;
    if (!(ymin > 0))
        ymin = 1;
    if (!(ymax > ymin))
        ymax = ymin * 10;
    /* room on either side for the dodged markers: DODGE_ROOM px */
    double span = log10(xmax) - log10(xmin), w = SVG_W - PL - PR;
    double pad = DODGE_ROOM * span / (w - 2 * DODGE_ROOM);
    pad = pad > 0.06 ? pad : 0.06;
    a->x0 = log10(xmin) - pad;
    a->x1 = log10(xmax) + pad;
    a->y0 = floor(log10(ymin) * 4 - 0.2) / 4;
    a->y1 = ceil(log10(ymax) * 4 + 0.2) / 4;
}

/* A whole plot: the lines dodged around each x, bars under the trends,
 * markers on top, the first line (the reference) drawn last. */
static void svg_plot(FILE *f, struct plotline *lines, int m, const char *title,
                     const char *sub1, const char *sub2, const char *xlabel,
                     const char *ylabel)
{
    struct axes a;
    axes_fit(&a, lines, m);
    svg_axes(f, &a, title, sub1, sub2, xlabel, ylabel);
    int any_unstable = 0, any_bar = 0;
    for (int j = 0; j < m; j++) {
        lines[j].dx = (j - (m - 1) / 2.0) * DODGE;
        for (int i = 0; i < lines[j].k; i++) {
            any_unstable |= lines[j].y[i] > 0 && lines[j].unstable[i];
            any_bar |= lines[j].y[i] > 0 && lines[j].lo[i] > 0 &&
                       lines[j].hi[i] > lines[j].lo[i] * 1.02;
        }
    }
    for (int j = m - 1; j >= 0; j--)
        svg_whiskers(f, &a, &lines[j]);
    for (int j = m - 1; j >= 0; j--)
        svg_trend(f, &a, &lines[j]);
    for (int j = m - 1; j >= 0; j--)
        for (int i = 0; i < lines[j].k; i++)
            if (lines[j].y[i] > 0)
                svg_marker(f, &lines[j].st, line_px(&a, &lines[j], i), sy(&a, lines[j].y[i]),
                           lines[j].unstable[i]);
    svg_legend(f, lines, m, any_unstable, any_bar);
    fprintf(f, "</svg>\n");
}

static void target_line(struct plotline *l, const struct series *s, int ti)
{
    memset(l, 0, sizeof *l);
    l->label = targets[ti].name;
    if (is_default(ti))
        l->label = "hierarchical (default)";
    if (fires_late(ti))
        l->label2 = "fires late by design";
    l->st = style_of(ti);
    l->k = s->nx;
    for (int xi = 0; xi < s->nx; xi++) {
        const struct cell *c = &s->cell[xi][ti];
        l->x[xi] = s->x[xi];
        if (!cell_ok(c))
            continue;
        l->y[xi] = c->med;
        l->lo[xi] = c->min;
        l->hi[xi] = c->max;
        l->unstable[xi] = cell_unstable(c);
        if (cell_narrowed(s, xi, ti)) {
            snprintf(l->note, sizeof l->note, "intervals only up to %llu",
                     (unsigned long long)c->hi);
            l->label2 = l->note;
        }
    }
}

void svg_series(FILE *f, const struct series *s, enum group g)
{
    int mem[GROUP_MAX], m = group_members(s, g, mem);
    struct plotline lines[GROUP_MAX];
    for (int j = 0; j < m; j++)
        target_line(&lines[j], s, mem[j]);
    char title[128], sub1[300], sub2[400], nb[32], fb[256], ub[64];
    snprintf(title, sizeof title, "%s: %s", s->name, group_name(s, g));
    series_figure(s, fb, sizeof fb);
    if (s->by_ttls)
        snprintf(sub1, sizeof sub1, "%s, n = %s", fb, fmt_n(s->n[0], nb, sizeof nb));
    else
        snprintf(sub1, sizeof sub1, "%s", fb);
    snprintf(sub2, sizeof sub2, "%s, bar min..max; lower is better; %s (%d CPUs)",
             ropt.counts ? "instructions counted by callgrind (--counts), median of the windows"
                         : "median of the windows",
             machine.cpu, machine.cpus);
    char yname[80];
    snprintf(yname, sizeof yname, "%s (log)", series_unit(s, ub, sizeof ub));
    svg_plot(f, lines, m, title, sub1, sub2,
             s->by_ttls ? "distinct TTLs D (log)" : "n, timers pending (log)", yname);
}

void svg_fig9(FILE *f)
{
    static const char *const labels[3] = {"(a) BSD sorted list", "(b) Scheme 6, hash",
                                          "(c) Scheme 6, handle"};
    struct plotline lines[3];
    for (int k = 0; k < 3; k++) {
        memset(&lines[k], 0, sizeof lines[k]);
        lines[k].label = labels[k];
        lines[k].k = fig9.npts;
        for (int i = 0; i < fig9.npts; i++) {
            lines[k].x[i] = (double)fig9.n[i];
            lines[k].y[i] = fig9.ns[k][i];
        }
    }
    lines[0].st = style_make(OI_VERMILION, MK_SQUARE, NULL);
    lines[1].st = style_make(OI_BLUE, MK_DIAMOND, NULL);
    lines[2].st = style_make(OI_GREEN, MK_TRI_UP, NULL);
    svg_plot(f, lines, 3, "fig9 (Varghese & Lauck, Fig. 9)",
             "ns per cancel + re-set of one callout beyond n outstanding callouts", machine.cpu,
             "n, outstanding callouts (log)", "ns per cancel + set (log)");
}
