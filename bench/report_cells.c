/*
 * report_cells.c -- what the report says about each cell before it shows
 * it: whether it has a figure, whether its samples fall in two clusters
 * (unstable), whether its target drew narrower intervals than the others,
 * which twheel scheme and which peer are fastest at a point, the ratio of
 * two cells over the rounds, and which series and targets the summary
 * covers.
 */
#define _GNU_SOURCE

#include "report.h"

#include <twheel.h>

#include <string.h>

int cell_ok(const struct cell *c)
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
int cell_unstable(const struct cell *c)
{
    if (!cell_ok(c))
        return 0;
    return two_clusters(c->ns, c->reps) ||
           (c->rounds > 1 && c->rounds <= ROUNDS_MAX && two_clusters(c->round_med, c->rounds));
}

/* The rule in words, for the report's readers. */
const char unstable_rule[] =
    "the samples (the measured windows, and with --rounds the round medians) fall "
    "in two clusters: sorted, two neighbours lie more than 30% of the median apart, with at "
    "least two samples on each side, or with the median above the gap (windows more than 30% "
    "faster than the rest, which another process's load cannot cause). The median may then "
    "sit in either cluster, and a trend through it may be fake.";

const char narrowed_note[] =
    "drew shorter intervals than the others (the wheel, up to its MaxInterval): an easier "
    "workload, shown but not ranked";

const char late_note[] =
    "hierarchical_coarse fires late by design: by less than 1/7.75 of the interval, never early "
    "(no timer migrates between levels)";

int is_peer(int ti)
{
    return targets[ti].peer != PEER_NONE;
}

/* The twheel scheme sc itself (lawn_scan is lawn with an option). */
static int is_scheme(int ti, enum tw_scheme sc)
{
    return targets[ti].peer == PEER_NONE && targets[ti].scheme == (int)sc &&
           targets[ti].options == 0;
}

int is_default(int ti)
{
    return is_scheme(ti, TW_HIERARCHICAL);
}

int fires_late(int ti)
{
    return is_scheme(ti, TW_HIERARCHICAL_COARSE);
}

/* Does the workload fire timers (so that firing late could matter)? */
int series_fires(const struct series *s)
{
    return s->wl == WL_EXPIRE || s->wl == WL_TCP || s->wl == WL_TTL;
}

int has_target(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (s->cell[xi][ti].state != CELL_NONE)
            return 1;
    return 0;
}

int has_data(const struct series *s, int ti)
{
    for (int xi = 0; xi < s->nx; xi++)
        if (cell_ok(&s->cell[xi][ti]))
            return 1;
    return 0;
}

int default_target(void)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (is_default(ti))
            return ti;
    return -1;
}

int refwheel_target(const int *show)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (targets[ti].peer == PEER_REFWHEEL && show[ti])
            return ti;
    return -1;
}

/* The longest interval the other targets drew at point xi of s. */
uint64_t others_hi(const struct series *s, int xi, int ti)
{
    uint64_t hi = 0;
    for (int tj = 0; tj < ntargets; tj++)
        if (tj != ti && cell_ok(&s->cell[xi][tj]) && s->cell[xi][tj].hi > hi)
            hi = s->cell[xi][tj].hi;
    return hi;
}

/* Did ti draw shorter intervals than the others there (the wheel, up to
 * its MaxInterval)?  Then it ran an easier workload: shown, not ranked. */
int cell_narrowed(const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    return cell_ok(c) && c->hi > 0 && c->hi < others_hi(s, xi, ti);
}

int any_narrowed(void)
{
    for (int si = 0; si < nseries; si++)
        for (int xi = 0; xi < series[si].nx; xi++)
            for (int ti = 0; ti < ntargets; ti++)
                if (cell_narrowed(&series[si], xi, ti))
                    return 1;
    return 0;
}

/* Was a scheme that fires late measured? */
int any_late(void)
{
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++)
            if (fires_late(ti) && has_data(&series[si], ti))
                return 1;
    return 0;
}

/* The target of kind p with the lowest median at x index xi, other than
 * `except` and those that ran narrower intervals; -1 if none. */
int best_at(const struct series *s, int xi, enum pick p, int except)
{
    int best = -1;
    for (int ti = 0; ti < ntargets; ti++) {
        const struct cell *c = &s->cell[xi][ti];
        int peer = p == PICK_PEER || p == PICK_LOOP;
        if (ti == except || !cell_ok(c) || is_peer(ti) != peer ||
            (p == PICK_LOOP && !is_loop_peer(&targets[ti])) ||
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
double cell_ratio(const struct cell *a, const struct cell *b, double *lo, double *hi,
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
const char *x_name(const struct series *s, int xi, char *buf, size_t len)
{
    return fmt_n(s->by_ttls ? s->d[xi] : s->n[xi], buf, len);
}

/* A figure in ns: one decimal, none from 10^4 on. */
const char *fmt_ns(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 1e4 ? "%.0f" : v < 1 ? "%.2f" : "%.1f", v);
    return buf;
}

/* The series the summary covers: every one against n (the ttl sweep's x is
 * D, and of the peers it runs refwheel alone). */
int in_summary(const struct series *s)
{
    return !s->by_ttls;
}

/* The largest n of the summary's series, 0 if none. */
size_t largest_n(void)
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
double target_bytes(int ti, size_t *n_at)
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

/* Has point xi of s a row in the summary: a twheel or a peer figure? */
int summary_row(const struct series *s, int xi)
{
    return best_at(s, xi, PICK_TWHEEL, -1) >= 0 || best_at(s, xi, PICK_PEER, -1) >= 0;
}

/* The lowest figure at point xi of s, twheel's or a peer's (ranked as
 * best_at() ranks); -1 if none. */
int best_any(const struct series *s, int xi)
{
    int bt = best_at(s, xi, PICK_TWHEEL, -1), bp = best_at(s, xi, PICK_PEER, -1);
    if (bp >= 0 && (bt < 0 || s->cell[xi][bp].med < s->cell[xi][bt].med))
        return bp;
    return bt;
}

int in_any_summary(int ti)
{
    for (int si = 0; si < nseries; si++)
        if (in_summary(&series[si]) && has_target(&series[si], ti))
            return 1;
    return 0;
}

