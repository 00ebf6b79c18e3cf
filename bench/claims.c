/*
 * claims.c -- what the figures say about complexity: the claim each target
 * makes for each workload (claim_rules[], the paper's Table II and Lawn's
 * Table IV), the slopes of log(ns/op) against log(n) fitted and judged
 * against those claims, and where lawn stops beating the hierarchical
 * wheel in the ttl sweep.  Reads the series; calls no other part of the
 * run.
 */
#define _GNU_SOURCE

#include "twbench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- slopes */

/*
 * The complexity each target claims for each workload, as data: the first
 * rule that matches a (workload, target) pair gives the claim the fitted
 * slope is judged against and its source.  A rule matches on the
 * workload's base name (churn-any, restart and restart-any count as churn;
 * idle as tcp), NULL for any; on the target (a scheme, ANY_SCHEME for every
 * twheel scheme, PEERS for the event loops libev, libuv and libevent,
 * REFWHEEL for the lean wheel of refwheel.c); and on all the conditions in
 * `when`.
 */
enum { ANY_SCHEME = -1, PEERS = -2, REFWHEEL = -3 };
enum {
    W_STOP = 1 << 0,    /* a ttl-*-stop workload */
    W_NOSTOP = 1 << 1,  /* not one */
    W_TTL = 1 << 2,     /* a ttl-* workload */
    W_IDLE = 1 << 3,    /* idle itself (its base is tcp) */
    W_SCAN = 1 << 4,    /* Lawn with TW_OPT_LAWN_SCAN */
    W_NOSCAN = 1 << 5,
};

struct claim_rule {
    const char *workload;
    int target;
    unsigned when;
    enum claim claim;
    const char *why;
};

static const struct claim_rule claim_rules[] = {
    {.target = REFWHEEL, .claim = CLAIM_FLAT,
     .why = "refwheel, Scheme 7 (Table II): start, stop O(1); an advance O(levels + "
            "occupied slots passed + timers moved or fired)"},
    {.workload = "tick", .target = PEERS, .claim = CLAIM_FLAT,
     .why = "a loop iteration with nothing due: O(1)"},
    {.workload = "tick-jump", .target = PEERS, .claim = CLAIM_FLAT,
     .why = "a loop iteration with nothing due: O(1)"},
    {.target = PEERS, .claim = CLAIM_LOG, .why = "binary/4-ary heap: O(log n)"},
    {.workload = "tick", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "twheel: nothing due costs one compare (the horizon)"},
    {.workload = "tick-jump", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "twheel: nothing due costs one compare (the horizon)"},
    {.workload = "expire-jump", .target = TW_HEAP, .claim = CLAIM_LOG,
     .why = "Table II: O(log n) per expiry"},
    {.workload = "expire-jump", .target = TW_HASHED_SORTED, .claim = CLAIM_NONE,
     .why = "start O(n/M): not judged"},
    {.workload = "expire-jump", .target = TW_LAWN, .when = W_SCAN, .claim = CLAIM_NONE,
     .why = "the queues scanned per advance, about n TTLs here: not judged"},
    {.workload = "expire-jump", .target = TW_LAWN, .claim = CLAIM_LOG,
     .why = "about n distinct TTLs: O(log TTLs) per queue head"},
    {.workload = "expire-jump", .target = ANY_SCHEME, .claim = CLAIM_FLAT,
     .why = "one advance over any gap: O(expired + occupied slots visited); list, "
            "ordered: one O(n) walk"},
    {.workload = "startstop", .target = TW_LIST, .claim = CLAIM_FLAT,
     .why = "Table II: start, stop O(1)"},
    {.workload = "churn", .target = TW_LIST, .claim = CLAIM_FLAT,
     .why = "Table II: start, stop O(1)"},
    {.target = TW_LIST, .when = W_STOP, .claim = CLAIM_FLAT, .why = "Table II: start, stop O(1)"},
    {.target = TW_LIST, .when = W_IDLE, .claim = CLAIM_FLAT,
     .why = "an O(n) walk when now reaches the earliest deadline, about once per "
            "I/2..2I/3 ticks at the n it runs (20n/I resets per tick): O(1) per reset"},
    {.target = TW_LIST, .claim = CLAIM_LINEAR, .why = "Table II: O(n) per tick"},
    {.target = TW_ORDERED, .when = W_IDLE, .claim = CLAIM_FLAT,
     .why = "rear search: a reset to now + I goes at the tail, O(1)"},
    {.workload = "ttl-1", .target = TW_ORDERED, .claim = CLAIM_FLAT,
     .why = "rear search: with one TTL every start goes at the tail, O(1)"},
    {.workload = "churn", .target = TW_ORDERED, .claim = CLAIM_FLAT,
     .why = "rear search: a start beyond all others is O(1) (front search: fig9)"},
    {.target = TW_ORDERED, .when = W_STOP, .claim = CLAIM_FLAT, .why = "Table II: stop O(1)"},
    {.target = TW_ORDERED, .claim = CLAIM_LINEAR, .why = "Table II: start O(n)"},
    {.target = TW_HEAP, .claim = CLAIM_LOG, .why = "Table II: O(log n)"},
    {.workload = "churn", .target = TW_HASHED_SORTED, .claim = CLAIM_FLAT,
     .why = "Table II: stop O(1); a start beyond all others appends"},
    {.target = TW_HASHED_SORTED, .when = W_STOP, .claim = CLAIM_FLAT,
     .why = "Table II: stop O(1); a start beyond all others appends"},
    {.target = TW_HASHED_SORTED, .claim = CLAIM_NONE,
     .why = "Table II: start O(n/M): flat below M = 4096, linear far above; not judged"},
    {.workload = "tcp", .target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_NONE,
     .why = "O(TTLs) per tick shared by 20n/2^16 operations per tick: not judged"},
    {.workload = "expire", .target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_LINEAR,
     .why = "Lawn Table IV: O(distinct TTLs) per tick; here ~min(n, 2^16) TTLs"},
    {.target = TW_LAWN, .when = W_SCAN | W_NOSTOP, .claim = CLAIM_FLAT,
     .why = "Lawn Table IV: O(1) start/stop, O(TTLs) per tick, TTLs fixed"},
    {.target = TW_LAWN, .when = W_TTL | W_STOP, .claim = CLAIM_FLAT,
     .why = "Lawn Table IV: O(1); heap of heads O(log TTLs)"},
    {.target = TW_LAWN, .when = W_TTL, .claim = CLAIM_LOG,
     .why = "Lawn Table IV: O(1); heap of heads O(log TTLs)"},
    {.target = TW_LAWN, .claim = CLAIM_LOG,
     .why = "distinct TTLs grow with n: O(log TTLs) heap of heads"},
    {.target = TW_HYBRID, .claim = CLAIM_FLAT, .why = "Lawn queues + Scheme 7: O(1)"},
    {.target = TW_WHEEL, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HASHED, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HIERARCHICAL, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = TW_HIERARCHICAL_COARSE, .claim = CLAIM_FLAT, .why = "Table II: O(1)"},
    {.target = ANY_SCHEME, .claim = CLAIM_FLAT, .why = "O(1)"},
};

static enum claim claim_for(const char *sname, const struct target *t, const char **why)
{
    int churn = !strcmp(sname, "churn-any") || !strncmp(sname, "restart", 7);
    const char *base = churn ? "churn" : !strcmp(sname, "idle") ? "tcp" : sname;
    int stop = strstr(base, "-stop") != NULL;
    unsigned have = (stop ? W_STOP : W_NOSTOP) | (strncmp(base, "ttl-", 4) == 0 ? W_TTL : 0u) |
                    (!strcmp(sname, "idle") ? W_IDLE : 0u) |
                    (t->options & TW_OPT_LAWN_SCAN ? W_SCAN : W_NOSCAN);
    int target = t->peer == PEER_REFWHEEL ? REFWHEEL : t->peer != PEER_NONE ? PEERS : t->scheme;
    for (size_t i = 0; i < sizeof claim_rules / sizeof claim_rules[0]; i++) {
        const struct claim_rule *r = &claim_rules[i];
        if ((r->workload == NULL || !strcmp(r->workload, base)) &&
            (r->target == target || (r->target == ANY_SCHEME && target >= 0)) &&
            (r->when & have) == r->when) {
            *why = r->why;
            return r->claim;
        }
    }
    *why = NULL;
    return CLAIM_NONE;
}

const char *claim_name(enum claim c)
{
    switch (c) {
    case CLAIM_FLAT:
        return "0";
    case CLAIM_LOG:
        return "log";
    case CLAIM_LINEAR:
        return "1";
    case CLAIM_NONE:
        break;
    }
    return "-";
}

/*
 * The verdict.  A slope s of log(ns/op) against log(n) over n = 1e3..1e6 is
 * 1 for O(n), 0 for O(1), and ~0.1-0.2 for O(log n); but from n ~ 1e5 on the
 * nodes no longer fit in the caches and every scheme's ns/op grows with the
 * cost of a memory access (~x5-10 from 1e3 to 1e6 on this kind of machine,
 * a slope of up to ~0.35 for an O(1) scheme).  So the test separates only
 * what the noise and the caches cannot blur: a claim of O(1) or O(log n)
 * is contradicted by a slope above 0.6, a claim of O(n) by one below 0.5
 * (SLOPE_SUBLINEAR_MAX and SLOPE_LINEAR_MIN, twbench.h).
 */

/* Least-squares slope of log(v) against log(n) over the cells that ran;
 * which = 0 median, 1 min, 2 max.  Returns the number of points. */
static int fit(const struct series *s, int ti, int which, double *slope, double *ratio)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, first = 0, last = 0;
    int k = 0;
    for (int xi = 0; xi < s->nx; xi++) {
        const struct cell *c = &s->cell[xi][ti];
        double v = which == 0 ? c->med : which == 1 ? c->min : c->max;
        if (c->state != CELL_OK || !(v > 0))
            continue;
        double x = log((double)s->n[xi]), y = log(v);
        if (k == 0)
            first = v;
        last = v;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k++;
    }
    if (k < 2 || k * sxx - sx * sx <= 0)
        return 0;
    *slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    *ratio = last / first;
    return k;
}

static int contradicts(enum claim c, double slope)
{
    if (c == CLAIM_LINEAR)
        return slope < SLOPE_LINEAR_MIN;
    if (c == CLAIM_FLAT || c == CLAIM_LOG)
        return slope > SLOPE_SUBLINEAR_MAX;
    return 0;
}

/* A contradiction is flagged only when the slopes of the medians, of the
 * minima and of the maxima all contradict the claim, over at least three
 * values of n: one noisy window cannot raise a flag, nor can a line
 * through two points (--quick), which any two noisy cells draw. */
void fit_slopes(void)
{
    for (int si = 0; si < nseries; si++) {
        struct series *s = &series[si];
        if (s->by_ttls)
            continue;
        for (int ti = 0; ti < ntargets; ti++) {
            struct slope *sl = &s->slope[ti];
            sl->claim = claim_for(s->name, &targets[ti], &sl->why);
            double smin = 0, smax = 0, r;
            sl->points = fit(s, ti, 0, &sl->s, &sl->ratio);
            if (sl->points < 2)
                continue;
            fit(s, ti, 1, &smin, &r);
            fit(s, ti, 2, &smax, &r);
            sl->flag = sl->points >= 3 && contradicts(sl->claim, sl->s) &&
                       contradicts(sl->claim, smin) && contradicts(sl->claim, smax);
        }
    }
}

/* ------------------------------------------------------------- crossover */

static double cell_med(const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    return c->state == CELL_OK ? c->med : -1;
}

int target_index(const char *name)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (!strcmp(targets[ti].name, name))
            return ti;
    return -1;
}

/* Where does a (lawn) stop beating b (hierarchical)?  After the last D at
 * which a's figure is at most b's, when a loses at every D after it; the
 * crossing is interpolated on log D between those two points.  Returns 1
 * with the crossing, 0 if a wins at the last D, -1 if a never wins, -2 if
 * nothing was measured. */
static int crossing(const struct series *s, int a, int b, double *d_cross, double *d_lo,
                    double *d_hi)
{
    int last_win = -1, next = -1, any = 0;
    for (int xi = 0; xi < s->nx; xi++) {
        double va = cell_med(s, xi, a), vb = cell_med(s, xi, b);
        if (va <= 0 || vb <= 0)
            continue;
        any = 1;
        if (va <= vb) {
            last_win = xi;
            next = -1;
        } else if (next < 0)
            next = xi;
    }
    if (!any)
        return -2;
    if (last_win < 0)
        return -1;
    if (next < 0)
        return 0;
    double pa = cell_med(s, last_win, a), pb = cell_med(s, last_win, b);
    double va = cell_med(s, next, a), vb = cell_med(s, next, b);
    double r0 = log(pa / pb), r1 = log(va / vb);
    double l0 = log(s->x[last_win]), l1 = log(s->x[next]);
    double f = r0 == r1 ? 0.5 : r0 / (r0 - r1);
    *d_cross = exp(l0 + f * (l1 - l0));
    *d_lo = s->x[last_win];
    *d_hi = s->x[next];
    return 1;
}

static void add_cross(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add_cross(const char *fmt, ...)
{
    if (cross.ntext == 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cross.text[cross.ntext++], sizeof cross.text[0], fmt, ap);
    va_end(ap);
}

void find_crossover(void)
{
    const struct series *s = NULL, *s2 = NULL;
    for (int si = 0; si < nseries; si++)
        if (series[si].by_ttls && !strstr(series[si].name, "-stop"))
            s = &series[si];
        else if (series[si].by_ttls)
            s2 = &series[si];
    int lawn = target_index("lawn"), hier = target_index("hierarchical");
    int scan = target_index("lawn_scan"), hyb = target_index("hybrid");
    if (!s || lawn < 0 || hier < 0 || s->nx == 0)
        return;
    cross.have = 1;
    cross.n = s->n[0];
    char nb[32];
    fmt_n(cross.n, nb, sizeof nb);
    double dc, lo, hi;
    int r = crossing(s, lawn, hier, &dc, &lo, &hi);
    if (r == 1) {
        cross.d_cross = dc;
        add_cross("start+expire: lawn stops beating hierarchical between D = %.0f and %.0f "
                  "distinct TTLs (interpolated D ~ %.0f) with n = %s pending: distinct TTLs / "
                  "live timers ~ %.2g",
                  lo, hi, dc, nb, dc / (double)cross.n);
    } else if (r == 0) {
        add_cross("start+expire: lawn beats hierarchical at every D measured (up to %.0f "
                  "distinct TTLs, %.2g per live timer, n = %s): no crossover in the sweep",
                  s->x[s->nx - 1], s->x[s->nx - 1] / (double)cross.n, nb);
    } else if (r == -1) {
        add_cross("start+expire: lawn is slower than hierarchical at every D measured (n = %s)",
                  nb);
    }
    int rs = s2 ? crossing(s2, lawn, hier, &dc, &lo, &hi) : -2;
    if (rs == 1)
        add_cross("stop: lawn's stop costs more than hierarchical's from D ~ %.0f on (between "
                  "%.0f and %.0f; %.2g per live timer)",
                  dc, lo, hi, dc / (double)cross.n);
    else if (rs == 0)
        add_cross("stop: lawn's stop costs no more than hierarchical's at every D measured");
    else if (rs == -1) {
        double rmin = 0, rmax = 0;
        for (int xi = 0; xi < s2->nx; xi++) {
            double a = cell_med(s2, xi, lawn), b = cell_med(s2, xi, hier);
            if (a > 0 && b > 0) {
                rmin = rmin == 0 || a / b < rmin ? a / b : rmin;
                rmax = a / b > rmax ? a / b : rmax;
            }
        }
        add_cross("stop: lawn's stop costs more than hierarchical's at every D measured "
                  "(%.2fx to %.2fx)",
                  rmin, rmax);
    }
    if (scan >= 0) {
        int r2 = crossing(s, scan, lawn, &dc, &lo, &hi);
        if (r2 == 1)
            add_cross("heap of queue heads: lawn_scan (the paper's scan) is as fast as lawn up to "
                      "D ~ %.0f (between %.0f and %.0f), then slower: the heap pays from there",
                      dc, lo, hi);
        else if (r2 == -1)
            add_cross("heap of queue heads: lawn_scan is slower than lawn at every D measured: "
                      "the heap pays everywhere");
        else if (r2 == 0)
            add_cross("heap of queue heads: lawn_scan never slower than lawn where measured");
    }
    if (hyb >= 0) {
        double worst = 0, wd = 0;
        for (int xi = 0; xi < s->nx; xi++) {
            double a = cell_med(s, xi, hyb), b = cell_med(s, xi, hier), c = cell_med(s, xi, lawn);
            double best = b > 0 && c > 0 ? (b < c ? b : c) : b > 0 ? b : c;
            if (a > 0 && best > 0 && a / best > worst) {
                worst = a / best;
                wd = s->x[xi];
            }
        }
        if (worst > 0)
            add_cross("hybrid: at most %.2fx the better of lawn and hierarchical (worst at D = "
                      "%.0f)",
                      worst, wd);
    }
}
