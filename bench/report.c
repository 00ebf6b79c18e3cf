/*
 * report.c -- twbench's files: the JSON with every figure and the machine;
 * per figure up to four SVG plots of at most six lines each (ns/op against
 * n on log axes; the ttl sweep against D; fig9); summary.md, the summary
 * table in Markdown for the docs; and report.html, which opens with that
 * summary (the best twheel scheme, the default and the best peer at each
 * n) and shows every plot and table.
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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- cells */

static int cell_ok(const struct cell *c)
{
    return c->state == CELL_OK && c->med > 0;
}

/* w = v sorted, ascending (k is a handful: insertion sort). */
static void sort_copy(double *w, const double *v, int k)
{
    for (int i = 0; i < k; i++) {
        int j = i;
        for (; j > 0 && w[j - 1] > v[i]; j--)
            w[j] = w[j - 1];
        w[j] = v[i];
    }
}

static double median_sorted(const double *w, int k)
{
    return k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
}

/* A gap between two neighbouring samples wider than this share of their
 * median splits them in two clusters. */
#define GAP_SHARE 0.3

/* Do v[0..k-1] fall in two clusters?  Sorted, two neighbours are more than
 * GAP_SHARE of the median apart, and either both sides hold at least two
 * samples, or the median lies above the gap.  A lone sample above a gap is
 * what another process's load does to one window, and is left alone; a
 * sample far below the rest is not: load only slows a window down, so the
 * faster windows show a second mode, and the median could as well have
 * fallen in it. */
static int two_clusters(const double *v, int k)
{
    if (k < 3 || k > WINDOWS_MAX)
        return 0;
    double w[WINDOWS_MAX];
    sort_copy(w, v, k);
    double med = median_sorted(w, k);
    for (int i = 0; i + 1 < k; i++) {
        if (!(w[i + 1] - w[i] > GAP_SHARE * med))
            continue;
        int below = i + 1, above = k - below;
        if ((below >= 2 && above >= 2) || w[i + 1] <= med)
            return 1;
    }
    return 0;
}

/* Unstable: the windows, or the round medians, fall in two clusters, so the
 * median may sit in either and a trend through it may be fake. */
static int cell_unstable(const struct cell *c)
{
    if (!cell_ok(c))
        return 0;
    return two_clusters(c->ns, c->reps) ||
           (c->rounds > 1 && c->rounds <= ROUNDS_MAX && two_clusters(c->round_med, c->rounds));
}

/* The rule in words, for the report's readers. */
static const char unstable_rule[] =
    "the samples (the measured windows, and with --rounds the round medians) fall "
    "in two clusters: sorted, two neighbours lie more than 30% of the median apart, with at "
    "least two samples on each side, or with the median above the gap (windows more than 30% "
    "faster than the rest, which another process's load cannot cause). The median may then "
    "sit in either cluster, and a trend through it may be fake.";

static const char narrowed_note[] =
    "drew shorter intervals than the others (the wheel, up to its MaxInterval): an easier "
    "workload, shown but not ranked";

static const char late_note[] =
    "hierarchical_coarse fires late by design: by less than 1/7.75 of the interval, never early "
    "(no timer migrates between levels)";

static int is_peer(int ti)
{
    return targets[ti].peer != PEER_NONE;
}

/* The twheel scheme sc itself (lawn_scan is lawn with an option). */
static int is_scheme(int ti, enum tw_scheme sc)
{
    return targets[ti].peer == PEER_NONE && targets[ti].scheme == (int)sc &&
           targets[ti].options == 0;
}

static int is_default(int ti)
{
    return is_scheme(ti, TW_HIERARCHICAL);
}

static int fires_late(int ti)
{
    return is_scheme(ti, TW_HIERARCHICAL_COARSE);
}

/* Does the workload fire timers (so that firing late could matter)? */
static int series_fires(const struct series *s)
{
    return s->wl == WL_EXPIRE || s->wl == WL_TCP || s->wl == WL_TTL;
}

static int has_target(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (s->cell[xi][ti].state != CELL_NONE)
            return 1;
    return 0;
}

static int has_data(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (cell_ok(&s->cell[xi][ti]))
            return 1;
    return 0;
}

static int default_target(void)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (is_default(ti))
            return ti;
    return -1;
}

/* The longest interval the other targets drew at point xi of s. */
static uint64_t others_hi(const struct series *s, int xi, int ti)
{
    uint64_t hi = 0;
    for (int tj = 0; tj < ntargets; tj++)
        if (tj != ti && cell_ok(&s->cell[xi][tj]) && s->cell[xi][tj].hi > hi)
            hi = s->cell[xi][tj].hi;
    return hi;
}

/* Did ti draw shorter intervals than the others there (the wheel, up to
 * its MaxInterval)?  Then it ran an easier workload: shown, not ranked. */
static int cell_narrowed(const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    return cell_ok(c) && c->hi > 0 && c->hi < others_hi(s, xi, ti);
}

static int any_narrowed(void)
{
    for (int si = 0; si < nseries; si++)
        for (int xi = 0; xi < series[si].nx; xi++)
            for (int ti = 0; ti < ntargets; ti++)
                if (cell_narrowed(&series[si], xi, ti))
                    return 1;
    return 0;
}

/* Was a scheme that fires late measured? */
static int any_late(void)
{
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++)
            if (fires_late(ti) && has_data(&series[si], ti))
                return 1;
    return 0;
}

enum pick { PICK_TWHEEL, PICK_EXACT, PICK_PEER };

/* The target of kind p with the lowest median at x index xi, other than
 * `except` and those that ran narrower intervals; -1 if none. */
static int best_at(const struct series *s, int xi, enum pick p, int except)
{
    int best = -1;
    for (int ti = 0; ti < ntargets; ti++) {
        const struct cell *c = &s->cell[xi][ti];
        if (ti == except || !cell_ok(c) || is_peer(ti) != (p == PICK_PEER) ||
            (p == PICK_EXACT && fires_late(ti)) || cell_narrowed(s, xi, ti))
            continue;
        if (best < 0 || c->med < s->cell[xi][best].med)
            best = ti;
    }
    return best;
}

/* a / b at one point, as twbench prints it: with rounds run side by side
 * (neither copied from another series, or both), the median of the ratios
 * within a round and their range, *paired = 1; else the ratio of the
 * medians.  0 when either is missing. */
static double cell_ratio(const struct cell *a, const struct cell *b, double *lo, double *hi,
                         int *paired)
{
    *paired = 0;
    *lo = *hi = 0;
    if (!cell_ok(a) || !cell_ok(b))
        return 0;
    if (a->rounds > 1 && a->rounds == b->rounds && a->copied == b->copied &&
        a->rounds <= ROUNDS_MAX) {
        double q[ROUNDS_MAX], w[ROUNDS_MAX];
        for (int r = 0; r < a->rounds; r++)
            q[r] = b->round_med[r] > 0 ? a->round_med[r] / b->round_med[r] : 0;
        sort_copy(w, q, a->rounds);
        if (w[0] > 0) {
            *paired = 1;
            *lo = w[0];
            *hi = w[a->rounds - 1];
            return median_sorted(w, a->rounds);
        }
    }
    *lo = *hi = a->med / b->med;
    return *lo;
}

/* The x of a point as the tables write it: n, or D in the ttl sweep. */
static const char *x_name(const struct series *s, int xi, char *buf, size_t len)
{
    return fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], buf, len);
}

/* A figure in ns: one decimal, none from 10^4 on. */
static const char *fmt_ns(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 1e4 ? "%.0f" : v < 1 ? "%.2f" : "%.1f", v);
    return buf;
}

/* The series the summary covers: every one against n (the ttl sweep has no
 * peers and its x is D). */
static int in_summary(const struct series *s)
{
    return !s->by_ttls;
}

/* The largest n of the summary's series, 0 if none. */
static size_t largest_n(void)
{
    size_t n = 0;
    for (int si = 0; si < nseries; si++)
        if (in_summary(&series[si]) && series[si].nx > 0 && series[si].n[series[si].nx - 1] > n)
            n = series[si].n[series[si].nx - 1];
    return n;
}

/* Bytes per timer of target ti: in startstop if it ran, else in the first
 * series that has it, at the largest n it ran there; 0 if none.  *n_at: that
 * n. */
static double target_bytes(int ti, size_t *n_at)
{
    *n_at = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int si = 0; si < nseries; si++) {
            const struct series *s = &series[si];
            if (!in_summary(s) || (pass == 0 && strcmp(s->name, "startstop") != 0))
                continue;
            for (int xi = s->nx - 1; xi >= 0; xi--) {
                const struct cell *c = &s->cell[xi][ti];
                if (cell_ok(c) && c->bytes_per_timer > 0) {
                    *n_at = s->n[xi];
                    return c->bytes_per_timer;
                }
            }
        }
    return 0;
}

/* ------------------------------------------------------------- plots */

/* Okabe and Ito's colour-blind-safe palette.  The peers take the warm
 * colours and are dashed, twheel the others and solid, the default black.
 * Ten schemes share four colours, each pair with another marker: no two of
 * a family share either, nor heap, hierarchical_coarse and hybrid (the
 * default run's), and plots that mix families check (look_apart()). */
#define OI_BLACK "#000000"
#define OI_ORANGE "#E69F00"
#define OI_SKY "#56B4E9"
#define OI_GREEN "#009E73"
#define OI_YELLOW "#F0E442"
#define OI_BLUE "#0072B2"
#define OI_VERMILION "#D55E00"
#define OI_PURPLE "#CC79A7"
#define EDGE_DARK "#555555" /* yellow's outline: yellow alone fades on white */

enum marker { MK_CIRCLE, MK_SQUARE, MK_DIAMOND, MK_TRI_UP, MK_TRI_DOWN, MK_PLUS, MK_CROSS, MK_STAR };

struct style {
    const char *colour;
    enum marker marker;
    const char *dash; /* stroke-dasharray, NULL: solid */
    const char *edge; /* outline of the line and markers, NULL: none */
};

static struct style style_make(const char *colour, enum marker mk, const char *dash)
{
    struct style st = {colour, mk, dash, strcmp(colour, OI_YELLOW) ? NULL : EDGE_DARK};
    return st;
}

static struct style style_of(int ti)
{
    switch (targets[ti].peer) {
    case PEER_LIBEV:
        return style_make(OI_VERMILION, MK_PLUS, "9 4");
    case PEER_LIBUV:
        return style_make(OI_ORANGE, MK_CROSS, "14 4 3 4");
    case PEER_LIBEVENT:
        return style_make(OI_PURPLE, MK_STAR, "4 3");
    case PEER_NONE:
        break;
    }
    switch (targets[ti].scheme) {
    case TW_LIST:
        return style_make(OI_SKY, MK_TRI_DOWN, NULL);
    case TW_ORDERED:
        return style_make(OI_YELLOW, MK_TRI_UP, NULL);
    case TW_HEAP:
        return style_make(OI_BLUE, MK_SQUARE, NULL);
    case TW_WHEEL:
        return style_make(OI_BLUE, MK_TRI_UP, NULL);
    case TW_HASHED_SORTED:
        return style_make(OI_YELLOW, MK_TRI_DOWN, NULL);
    case TW_HASHED:
        return style_make(OI_GREEN, MK_SQUARE, NULL);
    case TW_HIERARCHICAL:
        return style_make(OI_BLACK, MK_CIRCLE, NULL);
    case TW_HIERARCHICAL_COARSE:
        return style_make(OI_SKY, MK_DIAMOND, NULL);
    case TW_LAWN:
        return targets[ti].options ? style_make(OI_YELLOW, MK_DIAMOND, NULL)
                                   : style_make(OI_SKY, MK_SQUARE, NULL);
    case TW_HYBRID:
        return style_make(OI_GREEN, MK_TRI_DOWN, NULL);
    default:
        return style_make("#777777", MK_CIRCLE, "2 2");
    }
}

/* A figure's plots, at most six lines each, the default in every one of
 * them as the reference:
 *   - every target in one plot, when they are few enough and look apart;
 *   - else "main": the default, the best other twheel scheme at the largest
 *     n and the three peers; and "schemes": the other twheel schemes, when
 *     they fit in one plot and look apart (the default run's do);
 *   - else, for those, one plot per family: the wheels (the paper's Schemes
 *     4-7), the lists and the heap (Schemes 1-3), the Lawn family.
 * Every measured target is in some plot. */
enum group { GR_MAIN, GR_SCHEMES, GR_WHEELS, GR_LISTS, GR_LAWN, GR_COUNT };

#define GROUP_MAX 6

static const char *const group_suffix[GR_COUNT] = {"", "-schemes", "-wheels", "-lists",
                                                   "-lawn"};
static const char *const group_title[GR_COUNT] = {
    "twheel vs peers", "twheel schemes", "wheels: Schemes 4-7", "lists and heap: Schemes 1-3",
    "Lawn and hybrid"};

static enum group family_of(int ti)
{
    switch (targets[ti].scheme) {
    case TW_WHEEL:
    case TW_HASHED_SORTED:
    case TW_HASHED:
    case TW_HIERARCHICAL:
    case TW_HIERARCHICAL_COARSE:
        return GR_WHEELS;
    case TW_LAWN:
    case TW_HYBRID:
        return GR_LAWN;
    default:
        return GR_LISTS;
    }
}

/* No two of t[0..m-1] share a colour or a marker. */
static int look_apart(const int *t, int m)
{
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++) {
            struct style a = style_of(t[i]), b = style_of(t[j]);
            if (!strcmp(a.colour, b.colour) || a.marker == b.marker)
                return 0;
        }
    return 1;
}

/* The targets measured in s, the default first; with twheel_only, the
 * twheel schemes other than the default.  How many. */
static int measured(const struct series *s, int *out, int twheel_only)
{
    int m = 0, def = default_target();
    if (!twheel_only && def >= 0 && has_data(s, def))
        out[m++] = def;
    for (int ti = 0; ti < ntargets; ti++)
        if (ti != def && has_data(s, ti) && !(twheel_only && is_peer(ti)))
            out[m++] = ti;
    return m;
}

/* Is every target of s in its one plot? */
static int single_plot(const struct series *s)
{
    int all[TARGETS_MAX], m = measured(s, all, 0);
    return m <= GROUP_MAX && look_apart(all, m);
}

/* Do the twheel schemes but the default fit in one plot? */
static int schemes_plot(const struct series *s)
{
    int rest[TARGETS_MAX], m = measured(s, rest, 1);
    return m <= GROUP_MAX - 1 && look_apart(rest, m);
}

/* The targets of plot g of s, in drawing order (the default first); how
 * many: 0 if s has no such plot, but for the main one, which is always
 * drawn (its file name is the one in the JSON since the first report). */
static int group_members(const struct series *s, enum group g, int *out)
{
    int m = 0, def = default_target(), rest[TARGETS_MAX], nrest = measured(s, rest, 1);
    if (single_plot(s))
        return g == GR_MAIN ? measured(s, out, 0) : 0;
    if (g != GR_MAIN && (g == GR_SCHEMES) != schemes_plot(s))
        return 0;
    if (def >= 0 && has_data(s, def))
        out[m++] = def;
    if (g == GR_MAIN) {
        /* the best other twheel scheme at the largest x that has one */
        for (int xi = s->nx - 1; xi >= 0; xi--) {
            int b = best_at(s, xi, PICK_TWHEEL, def);
            if (b >= 0) {
                out[m++] = b;
                break;
            }
        }
        for (int ti = 0; ti < ntargets && m < GROUP_MAX; ti++)
            if (is_peer(ti) && has_data(s, ti))
                out[m++] = ti;
        return m;
    }
    int base = m;
    for (int i = 0; i < nrest && m < GROUP_MAX; i++)
        if (g == GR_SCHEMES || family_of(rest[i]) == g)
            out[m++] = rest[i];
    return m > base ? m : 0;
}

static int group_drawn(const struct series *s, enum group g)
{
    int mem[GROUP_MAX];
    return g == GR_MAIN || group_members(s, g, mem) > 0;
}

static const char *plot_file(const struct series *s, enum group g, char *buf, size_t len)
{
    snprintf(buf, len, "%.40s%s.svg", s->name, group_suffix[g]);
    return buf;
}

static const char *group_name(const struct series *s, enum group g)
{
    if (g != GR_MAIN)
        return group_title[g];
    if (single_plot(s))
        return "every target";
    int mem[GROUP_MAX], m = group_members(s, g, mem);
    for (int i = 0; i < m; i++)
        if (is_peer(mem[i]))
            return group_title[g];
    return "the default and the best other scheme";
}

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
    fprintf(f, ", \"unstable\": %s", cell_unstable(c) ? "true" : "false");
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
    fprintf(f, ", \"rev\": ");
    json_str(f, machine.rev);
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
        plot_file(&series[si], GR_MAIN, file, sizeof file);
        json_str(f, file);
        fprintf(f, ", \"plots\": [");
        for (int g = 0, k = 0; g < GR_COUNT; g++)
            if (group_drawn(&series[si], (enum group)g)) {
                fprintf(f, "%s{\"file\": ", k++ ? ", " : "");
                json_str(f, plot_file(&series[si], (enum group)g, file, sizeof file));
                fprintf(f, ", \"shows\": ");
                json_str(f, group_name(&series[si], (enum group)g));
                fputc('}', f);
            }
        fprintf(f, "]}");
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

#define SVG_W 690
#define SVG_H 430
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
static void xml_text(FILE *f, const char *s)
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
static void svg_sample(FILE *f, const struct style *st, double x, double y, int hollow)
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

static void svg_series(FILE *f, const struct series *s, enum group g)
{
    int mem[GROUP_MAX], m = group_members(s, g, mem);
    struct plotline lines[GROUP_MAX];
    for (int j = 0; j < m; j++)
        target_line(&lines[j], s, mem[j]);
    char title[128], sub1[200], sub2[200], nb[32];
    snprintf(title, sizeof title, "%s: %s", s->name, group_name(s, g));
    if (s->by_ttls)
        snprintf(sub1, sizeof sub1, "%s, n = %s", s->figure, fmt_n(s->n[0], nb, sizeof nb));
    else
        snprintf(sub1, sizeof sub1, "%s", s->figure);
    snprintf(sub2, sizeof sub2, "median of the windows, bar min..max; lower is better; %s (%d CPUs)",
             machine.cpu, machine.cpus);
    char yname[64];
    snprintf(yname, sizeof yname, "%s (log)", s->unit);
    svg_plot(f, lines, m, title, sub1, sub2,
             s->by_ttls ? "distinct TTLs D (log)" : "n, timers pending (log)", yname);
}

static void svg_fig9(FILE *f)
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

/* ------------------------------------------------------------- HTML */

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
    fprintf(f, "</td></tr><tr><th>load average</th><td>%.2f at start, %.2f at the end</td></tr>"
               "</table></div>\n",
            machine.load_start[0], machine.load_end[0]);
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

/* Has point xi of s a row in the summary: a twheel or a peer figure? */
static int summary_row(const struct series *s, int xi)
{
    return best_at(s, xi, PICK_TWHEEL, -1) >= 0 || best_at(s, xi, PICK_PEER, -1) >= 0;
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
        fprintf(f, "<span class=\"ex\">best exact: %s %s", targets[ex].name,
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
            fprintf(f, "<th rowspan=\"%d\" title=\"", rows);
            xml_text(f, s->figure);
            fprintf(f, "\"><a href=\"#%s\">%s</a><br><small>%s</small></th>", s->name, s->name,
                    s->unit);
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
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</tbody>\n");
}

static void html_summary(FILE *f)
{
    fprintf(f, "<h2 id=\"summary\">Summary: which scheme</h2>\n<p>For each workload and n: the "
               "fastest twheel scheme, the default <b>hierarchical</b>, and the fastest of the "
               "peers (libev, libuv, libevent), each figure the median of its windows, lower is "
               "better. <i>vs peer</i> is the twheel figure over the best peer's: below 1 "
               "(shaded green) twheel is faster, above 1 (shaded orange) slower.</p>\n");
    fprintf(f, "<div class=\"scroll\"><table>\n<thead><tr><th>workload</th><th>n</th>"
               "<th>best twheel scheme</th><th>ns</th><th>vs peer</th>"
               "<th class=\"def\">hierarchical<br>(default), ns</th><th class=\"def\">vs peer</th>"
               "<th>best peer</th><th>ns</th></tr></thead>\n");
    for (int si = 0; si < nseries; si++)
        if (in_summary(&series[si]))
            html_summary_series(f, &series[si]);
    fprintf(f, "</table></div>\n<p class=\"note\">");
    if (any_late())
        fprintf(f, "<sup>&dagger;</sup> %s; in the workloads that fire timers, <i>best "
                   "exact</i> names the fastest scheme that fires them on time, and its figure "
                   "against the best peer. ",
                late_note);
    fprintf(f, "<span class=\"u\">&asymp;</span> unstable: ");
    xml_text(f, unstable_rule);
    if (any_narrowed())
        fprintf(f, " <span class=\"u\">&Dagger;</span> %s.", narrowed_note);
    for (int si = 0; si < nseries; si++)
        if (!in_summary(&series[si])) {
            fprintf(f, " Not in the table: the ttl sweep (x: distinct TTLs, no peers).");
            break;
        }
    fprintf(f, "</p>\n");
    fprintf(f, "<p><b>Which scheme for your program?</b> The default, <code>hierarchical</code>, "
               "fires exactly on time and takes any 64-bit interval; its column shows what "
               "that costs against the fastest scheme of each row. To choose for a given "
               "workload, <code>twbench advise</code> "
               "measures the candidate schemes on a replica of it and recommends one, e.g.</p>\n"
               "<pre>./scripts/bench.sh advise --timers 1e6 --ttls 30s,60s --stopped 0.9 "
               "--tick 1ms</pre>\n<p>(timers pending at once, the intervals used, the share "
               "stopped before they fire, the clock's tick). docs/benchmarks.md defines every "
               "workload, the method and the peers' setup, and discusses these results.</p>\n");
}

/* The lowest figure at point xi of s, twheel's or a peer's (ranked as
 * best_at() ranks); -1 if none. */
static int best_any(const struct series *s, int xi)
{
    int bt = best_at(s, xi, PICK_TWHEEL, -1), bp = best_at(s, xi, PICK_PEER, -1);
    if (bp >= 0 && (bt < 0 || s->cell[xi][bp].med < s->cell[xi][bt].med))
        return bp;
    return bt;
}

static int in_any_summary(int ti)
{
    for (int si = 0; si < nseries; si++)
        if (in_summary(&series[si]) && has_target(&series[si], ti))
            return 1;
    return 0;
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
               "at its largest n (ns per operation unless the workload says otherwise), the "
               "lowest of each row in bold; hover a figure for min and max, a grey word for "
               "why it was not run.</p>\n<div class=\"scroll\"><table>\n<thead><tr>"
               "<th>workload</th>",
            fmt_n(nmax, nb, sizeof nb));
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
            fprintf(f, "twheel scheme %s%s", tw_scheme_name((enum tw_scheme)t->scheme),
                    t->options ? " with TW_OPT_LAWN_SCAN (the paper's per-tick scan)" : "");
            if (is_default(ti))
                fprintf(f, ", <b>the default</b> (tw_create() with no configuration)");
            if (fires_late(ti))
                fprintf(f, "; fires late by design, by less than 1/7.75 of the interval");
        } else if (t->missing)
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
}

static void html_reading(FILE *f)
{
    fprintf(f, "<h2 id=\"reading\">Reading the plots and tables</h2>\n<p>Each figure is the "
               "median of the measured windows after one warm-up window; lower is better. A "
               "plot shows ns per operation against n on log axes, at most six lines: "
               "<i>twheel vs peers</i> (the default hierarchical, the best other twheel scheme "
               "at the largest n, libev, libuv, libevent), then the other twheel schemes, in "
               "one plot when they fit (<i>twheel schemes</i>), else per family: "
               "<i>wheels</i> (Schemes 4-7), <i>lists and heap</i> (Schemes 1-3), <i>Lawn and "
               "hybrid</i>; a workload with six targets or fewer gets one plot. The default is "
               "in every plot as the reference. A target keeps its colour and marker in every "
               "plot (the list above); twheel's lines are solid, the peers' dashed. The points "
               "of one n are shifted sideways a few pixels, each with its bar from min to max. "
               "A line that stays level is O(1) in n; one that climbs a decade per decade is "
               "O(n).</p>\n<p>Hollow marker, dotted segments, <span class=\"u\">&asymp;</span> "
               "in the tables: an unstable cell, where ");
    xml_text(f, unstable_rule);
    fprintf(f, " No trend line is drawn through such a point.</p>\n");
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
    if (!s->by_ttls) {
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

static void html_series(FILE *f, const struct series *s)
{
    char nb[32], file[64];
    fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>", s->name, s->name);
    xml_text(f, s->figure);
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
}

static void html_tail(FILE *f)
{
    char nb[32];
    fprintf(f, "<h2 id=\"complexity\">Complexity</h2>\n<p>The <i>slope</i> row under each "
               "table: the slope of log(ns/op) against log(n), and in brackets the claim (0: "
               "O(1), log: O(log n), 1: O(n); hover for its source). A claim of O(1) or O(log n) "
               "is contradicted by a slope above 0.6, a claim of O(n) by one below 0.5, when the "
               "medians, minima and maxima all agree; contradictions are marked !.</p>\n");
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
        fprintf(f, "<p>");
        xml_text(f, fig9.why ? fig9.why : "not run");
        fprintf(f, "</p>\n");
    }
    fprintf(f, "<p>Every figure, with min, max and samples: <a href=\"twbench.json\">"
               "twbench.json</a>; the summary in Markdown: <a href=\"summary.md\">summary.md</a>."
               "</p>\n</body></html>\n");
}

static void html_write(FILE *f)
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
            " <a href=\"#fig9\">fig9</a>");
    html_summary(f);
    html_largest(f);
    html_targets(f);
    html_reading(f);
    for (int si = 0; si < nseries; si++)
        html_series(f, &series[si]);
    html_tail(f);
}

/* ------------------------------------------------------------- Markdown */

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
    fprintf(f, " |\n");
}

static void md_largest(FILE *f)
{
    char nb[32];
    size_t nmax = largest_n();
    if (nmax == 0)
        return;
    fprintf(f, "\nEvery target at n = %s, ns per operation (bold: the lowest of the column; "
               "\"—\": not run):\n\n| target |",
            fmt_n(nmax, nb, sizeof nb));
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

static void md_write(FILE *f)
{
    int def = default_target();
    fprintf(f, "twbench on %s (%d CPUs), %s, %s", machine.cpu, machine.cpus, machine.compiler,
            machine.date);
    if (machine.rev[0])
        fprintf(f, ", source %s", machine.rev);
    fprintf(f, ": `");
    md_text(f, ropt.cmdline);
    fprintf(f, "`\n\n| workload | n | best twheel (ns) | default `hierarchical` (ns) | "
               "best peer (ns) | best / peer | default / peer |\n"
               "|---|---:|---|---:|---|---:|---:|\n");
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
               "the best peer (libev, libuv, libevent), below 1 twheel is faster.");
    if (any_late())
        fprintf(f, " † %s; where timers fire, \"exact\" is the fastest scheme that fires them "
                   "on time.",
                late_note);
    fprintf(f, " ≈ unstable: ");
    md_text(f, unstable_rule);
    if (any_narrowed())
        fprintf(f, " ‡ %s.", narrowed_note);
    fprintf(f, "\n");
    md_largest(f);
    fprintf(f, "\nBytes per timer: the node plus the target's own memory with n timers "
               "pending, over n, in startstop, at the largest n the target ran.\n");
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


/* Every file of a report: at most the JSON, the page, the summary, four
 * plots per series and fig9. */
#define FILES_MAX (SERIES_MAX * GR_COUNT + 4)

enum file_kind { F_JSON, F_HTML, F_MD, F_PLOT, F_FIG9 };

struct outfile {
    char name[64];
    enum file_kind kind;
    int si;                /* F_PLOT: its series and group */
    enum group g;
};

static int list_files(struct outfile *out)
{
    static const char *const fixed[3] = {"twbench.json", "report.html", "summary.md"};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        snprintf(out[k].name, sizeof out[k].name, "%s", fixed[i]);
        out[k++].kind = (enum file_kind)i;
    }
    for (int si = 0; si < nseries; si++)
        for (int g = 0; g < GR_COUNT; g++)
            if (group_drawn(&series[si], (enum group)g)) {
                plot_file(&series[si], (enum group)g, out[k].name, sizeof out[k].name);
                out[k].kind = F_PLOT;
                out[k].si = si;
                out[k++].g = (enum group)g;
            }
    if (fig9.have) {
        snprintf(out[k].name, sizeof out[k].name, "fig9.svg");
        out[k++].kind = F_FIG9;
    }
    return k;
}

/* The file's path in dir: its final name, or the temporary one; 0, or -1
 * if it does not fit in buf. */
static int file_path(char *buf, size_t len, const char *dir, const struct outfile *o, int tmp)
{
    int k = tmp ? snprintf(buf, len, "%s/.%.63s.tmp-%ld", dir, o->name, (long)getpid())
                : snprintf(buf, len, "%s/%.63s", dir, o->name);
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

static void file_write(FILE *f, const struct outfile *o)
{
    switch (o->kind) {
    case F_JSON:
        json_write(f);
        break;
    case F_HTML:
        html_write(f);
        break;
    case F_MD:
        md_write(f);
        break;
    case F_PLOT:
        svg_series(f, &series[o->si], o->g);
        break;
    case F_FIG9:
        svg_fig9(f);
        break;
    }
}

int report_write(const char *dir, char *err, size_t errlen)
{
    static struct outfile files[FILES_MAX];
    char tmp[4200], fin[4200];
    int nfiles = list_files(files), written = 0, created = 0;
    if (file_path(tmp, sizeof tmp, dir, &files[0], 1) != 0) {
        snprintf(err, errlen, "output folder name too long: %.200s...", dir);
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, errlen, "cannot create the output folder %s: %s", dir, strerror(errno));
            return -1;
        }
        created = 1;
    }
    int failed = 0;
    for (; written < nfiles && !failed; written++) {
        file_path(tmp, sizeof tmp, dir, &files[written], 1);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            failed = 1;
            break;
        }
        file_write(f, &files[written]);
        if (ferror(f) | (fclose(f) != 0)) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            failed = 1;
        }
    }
    for (int i = 0; i < nfiles && !failed; i++) {
        file_path(tmp, sizeof tmp, dir, &files[i], 1);
        file_path(fin, sizeof fin, dir, &files[i], 0);
        if (rename(tmp, fin) != 0) {
            snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, fin, strerror(errno));
            failed = 1;
            for (int j = 0; j < i; j++) {
                file_path(fin, sizeof fin, dir, &files[j], 0);
                remove(fin);
            }
        }
    }
    if (failed) {
        for (int i = 0; i < written; i++) {
            file_path(tmp, sizeof tmp, dir, &files[i], 1);
            remove(tmp);
        }
        if (created)
            rmdir(dir);
        return -1;
    }
    return 0;
}
