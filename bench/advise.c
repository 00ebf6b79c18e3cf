/*
 * advise.c -- `twbench advise`: which scheme for my workload?
 *
 * The user describes a workload: how many timers are pending (n), their
 * intervals (a list of TTLs, or a uniform range), the fraction stopped
 * before they expire, and the tick (the clock's granularity, which turns
 * intervals into ticks).  advise builds a synthetic replica of it, measures
 * the candidate schemes on it, recommends the fastest, and shows the
 * paper's cost model (section VI, Scheme 6 against Scheme 7) with its two
 * constants measured on this machine.
 *
 * The replica, exactly: timers start at the constant rate n / E[life] per
 * tick (E[life] the mean time from start to stop or expiry), each with an
 * interval drawn from the description; every pending timer is stopped with
 * the same probability h per tick (a memoryless hazard), h chosen so that
 * the fraction of timers stopped before expiry, 1 - E[exp(-h d)] over the
 * interval distribution, is the one asked for; so n are pending in the
 * steady state.  The clock advances to the next tick at which a start is
 * due (a tickless loop; every timer due by then fires).  Warm-up: until the
 * longest interval has passed twice and n timers were started; then three
 * windows of max(2^15, n/8) starts each, timed as a whole; the median is
 * shown.  Figures: ns per timer (its start, its stop or expiry, its share
 * of the advances), ns per tick of the clock, and that as a share of one
 * CPU at the given tick rate.
 *
 * The cost model (Varghese & Lauck, section VI): per unit time, Scheme 6
 * spends n c6 / M on its per-tick bookkeeping, Scheme 7 spends n c7 m / T,
 * where M is Scheme 6's table size, m the number of levels a timer
 * migrates through, T the average timer interval (from start to stop or
 * expiry).  c6 is the cost of one visit of a timer in a slot, c7 the cost
 * of one migration.  Both are measured on a calibration replica (n as
 * described, intervals uniform in [2^18, 2^19) ticks, none stopped):
 *     c6 = (cost per timer with M = 1024 - with M = 4096) / (T/1024 - T/4096)
 *     c7 = (cost per timer with 16 slots per level - with 256) / (4 - 2)
 * (a 2^18-tick timer migrates through 4 levels of 16 slots, 2 of 256).
 */
#define _GNU_SOURCE

#include "harness.h"

#include <twheel.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TTLS_MAX 4096

struct dist {
    int uniform;           /* 1: [lo, hi]; 0: the list */
    uint64_t lo, hi;
    uint64_t ttl[TTLS_MAX];
    int nttl;
};

static struct {
    size_t n;
    double tick_s;         /* seconds per tick */
    double stopped;        /* fraction stopped before expiry */
    struct dist dist;
    int have_dist;
    char text[512];        /* the description as given */
} adv;

static void adv_usage(FILE *f)
{
    fprintf(f,
            "usage: twbench advise [options]\n"
            "  Measures the candidate schemes on a synthetic replica of a workload and\n"
            "  recommends one, with the paper's Scheme 6 / Scheme 7 cost model.  It\n"
            "  measures each candidate in turn: about 2 minutes at --timers 1e6 on 2 idle\n"
            "  cores, up to 4 on a busy machine.\n"
            "  --timers N            timers pending at once (default 1e5)\n"
            "  --ttls LIST           the intervals used, e.g. 30s,60s,300s (a bare number\n"
            "                        is ticks; units ns us ms s m h)\n"
            "  --intervals LO:HI     or: intervals uniform in [LO, HI], e.g. 1ms:2s\n"
            "  --stopped F           fraction stopped before expiry, 0..0.999 (default 0)\n"
            "  --tick T              the clock's tick, e.g. 1ms (default), or\n"
            "  --tick-rate HZ        ticks per second\n"
            "  --help                this text\n"
            "example: twbench advise --timers 1e6 --ttls 30s,60s --stopped 0.9 --tick 1ms\n");
}

static void adv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void adv_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "twbench advise: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* "30s" -> seconds (unit given) or ticks (bare number, *is_ticks = 1). */
static double parse_time(const char *opt, const char *s, int *is_ticks)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0) || !isfinite(v))
        adv_error("bad %s '%s': want a time, e.g. 30s or 250ms (a bare number is ticks)", opt, s);
    *is_ticks = 0;
    if (*end == '\0') {
        *is_ticks = 1;
        return v;
    }
    static const struct {
        const char *u;
        double f;
    } units[] = {{.u = "ns", .f = 1e-9}, {.u = "us", .f = 1e-6}, {.u = "ms", .f = 1e-3},
                 {.u = "s", .f = 1},     {.u = "m", .f = 60},    {.u = "min", .f = 60},
                 {.u = "h", .f = 3600}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].u) == 0)
            return v * units[i].f;
    adv_error("bad %s '%s': unknown unit (want ns, us, ms, s, m, min, h, or none for ticks)", opt,
              s);
}

static uint64_t to_ticks(const char *opt, const char *s)
{
    int is_ticks;
    double v = parse_time(opt, s, &is_ticks);
    double t = is_ticks ? v : v / adv.tick_s;
    if (t < 1 || t > 1e15)
        adv_error("bad %s '%s': %.3g ticks, want 1 to 1e15 ticks", opt, s, t);
    return (uint64_t)llround(t);
}

static void parse_adv(int argc, char **argv)
{
    const char *ttls = NULL, *range = NULL;
    int tick_given = 0;
    adv.n = 100000;
    adv.tick_s = 1e-3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            adv_usage(stdout);
            exit(0);
        }
        int known = !strcmp(a, "--timers") || !strcmp(a, "--ttls") || !strcmp(a, "--intervals") ||
                    !strcmp(a, "--stopped") || !strcmp(a, "--tick") || !strcmp(a, "--tick-rate");
        if (!known)
            adv_error("unknown option '%s' (known: --timers, --ttls, --intervals, --stopped, "
                      "--tick, --tick-rate, --help)", a);
        if (i + 1 >= argc)
            adv_error("option %s needs a value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--timers")) {
            char *end;
            double n = strtod(v, &end);
            if (end == v || *end || !(n >= 1) || n > 1e8 || n != floor(n))
                adv_error("bad --timers '%s': want 1 to 1e8", v);
            adv.n = (size_t)n;
        } else if (!strcmp(a, "--ttls"))
            ttls = v;
        else if (!strcmp(a, "--intervals"))
            range = v;
        else if (!strcmp(a, "--stopped")) {
            char *end;
            adv.stopped = strtod(v, &end);
            if (end == v || *end || !(adv.stopped >= 0) || adv.stopped > 0.999)
                adv_error("bad --stopped '%s': want a fraction from 0 to 0.999", v);
        } else if (!strcmp(a, "--tick")) {
            if (tick_given++)
                adv_error("give --tick or --tick-rate, once");
            int is_ticks;
            adv.tick_s = parse_time(a, v, &is_ticks);
            if (is_ticks || !(adv.tick_s > 0))
                adv_error("bad --tick '%s': want a time with its unit, e.g. 1ms", v);
        } else if (!strcmp(a, "--tick-rate")) {
            if (tick_given++)
                adv_error("give --tick or --tick-rate, once");
            char *end;
            double hz = strtod(v, &end);
            if (end == v || *end || !(hz > 0) || hz > 1e9)
                adv_error("bad --tick-rate '%s': want ticks per second, above 0, at most 1e9", v);
            adv.tick_s = 1 / hz;
        }
    }
    if (ttls && range)
        adv_error("give --ttls or --intervals, not both");
    if (!ttls && !range)
        ttls = "1s"; /* a plain default: one TTL */
    if (ttls) {
        char buf[4096];
        if (strlen(ttls) >= sizeof buf)
            adv_error("bad --ttls: a list of more than %zu characters", sizeof buf - 1);
        snprintf(buf, sizeof buf, "%s", ttls);
        char *save = NULL;
        for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            if (adv.dist.nttl == TTLS_MAX)
                adv_error("at most %d TTLs (use --intervals for a range)", TTLS_MAX);
            adv.dist.ttl[adv.dist.nttl++] = to_ticks("--ttls", p);
        }
        if (adv.dist.nttl == 0)
            adv_error("bad --ttls '%s': want TIME[,TIME...], e.g. 30s,60s", ttls);
        snprintf(adv.text, sizeof adv.text, "TTLs {%s}", ttls);
    } else {
        char buf[256];
        if (strlen(range) >= sizeof buf)
            adv_error("bad --intervals: more than %zu characters, want LO:HI", sizeof buf - 1);
        snprintf(buf, sizeof buf, "%s", range);
        char *colon = strchr(buf, ':');
        if (colon == NULL)
            adv_error("bad --intervals '%s': want LO:HI", range);
        *colon = '\0';
        adv.dist.uniform = 1;
        adv.dist.lo = to_ticks("--intervals", buf);
        adv.dist.hi = to_ticks("--intervals", colon + 1);
        if (adv.dist.hi < adv.dist.lo)
            adv_error("bad --intervals '%s': HI below LO", range);
        snprintf(adv.text, sizeof adv.text, "intervals uniform in [%s]", range);
    }
}

/* ------------------------------------------------------------ the replica */

static inline uint64_t draw(const struct dist *d, struct rng *r)
{
    if (d->uniform)
        return rng_range(r, d->lo, d->hi);
    return d->ttl[rng_below(r, (uint64_t)d->nttl)];
}

static uint64_t dist_max(const struct dist *d)
{
    if (d->uniform)
        return d->hi;
    uint64_t m = 0;
    for (int i = 0; i < d->nttl; i++)
        m = d->ttl[i] > m ? d->ttl[i] : m;
    return m;
}

static int dist_distinct(const struct dist *d)
{
    if (d->uniform)
        return d->hi - d->lo + 1 > 1000000000u ? 1000000000 : (int)(d->hi - d->lo + 1);
    int k = 0;
    for (int i = 0; i < d->nttl; i++) {
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = d->ttl[j] == d->ttl[i];
        k += !dup;
    }
    return k;
}

/* E[f(d)] over the interval distribution (a 1001-point rule for a range). */
static double expect(const struct dist *d, double (*f)(double d, double h), double h)
{
    double s = 0;
    if (!d->uniform) {
        for (int i = 0; i < d->nttl; i++)
            s += f((double)d->ttl[i], h);
        return s / d->nttl;
    }
    const int k = 1001;
    for (int i = 0; i < k; i++)
        s += f((double)d->lo + (double)(d->hi - d->lo) * i / (k - 1), h);
    return s / k;
}

static double f_survive(double d, double h) { return exp(-h * d); }
static double f_life(double d, double h) { return h > 0 ? -expm1(-h * d) / h : d; }

/* The hazard h giving the asked share of stops: 1 - E[e^(-h d)] = p. */
static double hazard_for(const struct dist *d, double p)
{
    if (p <= 0)
        return 0;
    double lo = 0, hi = 1;
    while (1 - expect(d, f_survive, hi) < p && hi < 1e6)
        hi *= 2;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (1 - expect(d, f_survive, mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

struct cand {
    const char *label;
    enum tw_scheme scheme;
    uint32_t slots;
    uint32_t options;
    const char *note;
    double ns_timer, ns_tick, bytes;
    int ran;
    const char *skip;
};

/* The candidates advise_main() lists, and one for each scheme it does not
 * know. */
#define CANDS_MAX (8 + TW_SCHEME_COUNT)

/* The schemes this file knows: each is either a candidate of
 * advise_main() with its own configuration, or never one (list and
 * ordered: O(n) per tick or per start; hashed_sorted: O(n/M) per start;
 * minutes at the n advise is for).  Any other scheme, one added to the
 * library later, is a candidate in its default configuration. */
static int scheme_known(enum tw_scheme s)
{
    switch (s) {
    case TW_LIST:
    case TW_ORDERED:
    case TW_HASHED_SORTED:
    case TW_HEAP:
    case TW_WHEEL:
    case TW_HASHED:
    case TW_HIERARCHICAL:
    case TW_HIERARCHICAL_COARSE:
    case TW_LAWN:
    case TW_HYBRID:
        return 1;
    default:
        return 0;
    }
}

static void cand_config(const struct cand *cd, struct tw_config *cfg)
{
    tw_config_init(cfg, cd->scheme);
    if (cd->slots)
        cfg->slots = cd->slots;
    cfg->options = cd->options;
}

/* The longest interval the candidate takes (UINT64_MAX if it cannot be
 * created: run_replica() says so). */
static uint64_t cand_max_interval(const struct cand *cd)
{
    struct tw_config cfg;
    struct tw *tw;
    cand_config(cd, &cfg);
    if (tw_create(&tw, &cfg) != 0)
        return UINT64_MAX;
    uint64_t max = tw_max_interval(tw);
    tw_destroy(tw);
    return max;
}

/* The scheme's enum constant without its TW_, from its name: "HEAP". */
static const char *enum_name(enum tw_scheme s, char *buf, size_t len)
{
    const char *name = tw_scheme_name(s);
    size_t i = 0;
    for (; name && name[i] && i + 1 < len; i++)
        buf[i] = (char)toupper((unsigned char)name[i]);
    buf[i] = '\0';
    return buf;
}

struct anode {
    struct tw_timer t;
    struct rctx *ctx;
};

struct rctx {
    struct anode *nodes;
    uint32_t *pool, *live, *pos;
    size_t npool, nlive;
};

static void live_remove(struct rctx *c, uint32_t i)
{
    uint32_t p = c->pos[i], last = c->live[--c->nlive];
    c->live[p] = last;
    c->pos[last] = p;
    c->pool[c->npool++] = i;
}

static void a_fired(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    struct anode *a = tw_container_of(t, struct anode, t);
    struct rctx *c = a->ctx;
    live_remove(c, (uint32_t)(a - c->nodes));
}

struct replica {
    const struct dist *d;
    size_t n;
    double h;              /* stop hazard per timer per tick */
    double life;           /* E[life] in ticks */
};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run the replica on one configuration; 0, or -1 if it cannot be created. */
static int run_replica(const struct replica *rp, struct cand *cd, uint64_t seed)
{
    struct tw_config cfg;
    struct tw *tw;
    cand_config(cd, &cfg);
    if (tw_create(&tw, &cfg) != 0)
        return -1;
    size_t nodes = rp->n + rp->n / 4 + 1024;
    struct rctx c = {0};
    c.nodes = calloc(nodes, sizeof *c.nodes);
    c.pool = malloc(nodes * sizeof *c.pool);
    c.live = malloc(nodes * sizeof *c.live);
    c.pos = malloc(nodes * sizeof *c.pos);
    if (!c.nodes || !c.pool || !c.live || !c.pos)
        bench_die("out of memory for %zu timers", nodes);
    for (size_t i = 0; i < nodes; i++) {
        tw_timer_init(&c.nodes[i].t, a_fired);
        c.nodes[i].ctx = &c;
        c.pool[i] = (uint32_t)(nodes - 1 - i);
    }
    c.npool = nodes;
    struct rng r = {.s = seed};
    const double lambda = (double)rp->n / rp->life; /* starts per tick */
    const uint64_t start_fp = (uint64_t)(lambda * 4294967296.0) + 1;
    const uint64_t horizon = 2 * dist_max(rp->d);
    const uint64_t window = rp->n / 8 > 32768 ? rp->n / 8 : 32768;
    uint64_t now = 0, acc = 0, sacc = 0;
    double ns[4], tick_ns[4];
    size_t bytes = 0;
    for (int w = -1; w < 4; w++) {
        uint64_t started = 0, t0 = bench_now_ns(), now0 = now;
        while (w < 0 ? (now < horizon || started < rp->n) : started < window) {
            uint64_t k = ((UINT64_C(1) << 32) - acc + start_fp - 1) / start_fp;
            now += k;
            acc += k * start_fp;
            int64_t rc = tw_advance(tw, now);
            if (rc < 0)
                bench_die("advise: tw_advance: %s", tw_strerror((int)rc));
            /* stops: h per pending timer per tick, over the k ticks */
            sacc += (uint64_t)(rp->h * (double)c.nlive * (double)k * 4294967296.0);
            for (uint64_t m = sacc >> 32; m && c.nlive; m--) {
                uint32_t i = c.live[rng_below(&r, c.nlive)];
                if (tw_stop(tw, &c.nodes[i].t) != 1)
                    bench_die("advise: tw_stop of a pending timer failed");
                live_remove(&c, i);
            }
            sacc &= 0xffffffffu;
            for (uint64_t m = acc >> 32; m; m--) {
                if (c.npool == 0)
                    bench_die("advise: more timers pending than planned");
                size_t j = (size_t)rng_below(&r, c.npool);
                uint32_t i = c.pool[j];
                c.pool[j] = c.pool[--c.npool];
                int rc2 = tw_start(tw, &c.nodes[i].t, draw(rp->d, &r));
                if (rc2)
                    bench_die("advise: tw_start: %s", tw_strerror(rc2));
                c.pos[i] = (uint32_t)c.nlive;
                c.live[c.nlive++] = i;
                started++;
            }
            acc &= 0xffffffffu;
        }
        uint64_t t1 = bench_now_ns();
        if (w < 0) {
            bytes = tw_memory(tw);
            continue;
        }
        ns[w] = (double)(t1 - t0) / (double)started;
        tick_ns[w] = (double)(t1 - t0) / (double)(now - now0);
    }
    qsort(ns, 4, sizeof ns[0], cmp_d);
    qsort(tick_ns, 4, sizeof tick_ns[0], cmp_d);
    cd->ns_timer = (ns[1] + ns[2]) / 2;
    cd->ns_tick = (tick_ns[1] + tick_ns[2]) / 2;
    cd->bytes = (double)sizeof(struct tw_timer) + (double)bytes / (double)rp->n;
    cd->ran = 1;
    tw_destroy(tw);
    free(c.nodes);
    free(c.pool);
    free(c.live);
    free(c.pos);
    return 0;
}

/* Levels a timer of t ticks migrates through with s slots per level. */
static int levels_for(double t, unsigned s)
{
    int m = 0;
    for (double span = s; span <= t && m < 64; span *= s)
        m++;
    return m;
}

static const char *fmt_time(double ticks, char *buf, size_t len)
{
    double s = ticks * adv.tick_s;
    if (s >= 3600)
        snprintf(buf, len, "%.3g h", s / 3600);
    else if (s >= 60)
        snprintf(buf, len, "%.3g min", s / 60);
    else if (s >= 1)
        snprintf(buf, len, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g us", s * 1e6);
    return buf;
}

int advise_main(int argc, char **argv)
{
    parse_adv(argc, argv);
    vclock_init();
    char nb[32], tb[32], tb2[32];
    struct replica rp = {.d = &adv.dist, .n = adv.n};
    rp.h = hazard_for(&adv.dist, adv.stopped);
    rp.life = expect(&adv.dist, f_life, rp.h);
    uint64_t dmax = dist_max(&adv.dist);
    int distinct = dist_distinct(&adv.dist);
    double rate = 1 / adv.tick_s;

    printf("twbench advise: %s timers pending, %s (%d distinct, longest %llu ticks), %.0f%% "
           "stopped before expiry, tick %s (%.6g Hz)\n",
           fmt_n(adv.n, nb, sizeof nb), adv.text, distinct, (unsigned long long)dmax,
           adv.stopped * 100, fmt_time(1, tb, sizeof tb), rate);
    printf("replica: starts at %.4g per tick (n / mean life of %.0f ticks = %s), each pending "
           "timer stopped with probability %.3g per tick\n\n",
           (double)adv.n / rp.life, rp.life, fmt_time(rp.life, tb2, sizeof tb2), rp.h);
    fflush(stdout);

    /* The candidates. */
    struct cand cands[CANDS_MAX];
    int nc = 0;
    cands[nc++] = (struct cand){.label = "heap", .scheme = TW_HEAP, .note = "Scheme 3, 4-ary heap"};
    uint32_t mbig = 4096;
    while (mbig < adv.n && mbig < (1u << 20))
        mbig <<= 1;
    cands[nc++] = (struct cand){.label = "hashed", .scheme = TW_HASHED, .slots = 4096,
                                .note = "Scheme 6, M = 4096"};
    static char hashed_big[40];
    if (mbig > 4096) {
        snprintf(hashed_big, sizeof hashed_big, "hashed M=%u", mbig);
        cands[nc++] = (struct cand){.label = hashed_big, .scheme = TW_HASHED, .slots = mbig,
                                    .note = "Scheme 6, M ~ n"};
    }
    cands[nc++] = (struct cand){.label = "hierarchical", .scheme = TW_HIERARCHICAL,
                                .note = "Scheme 7, 64 slots x 11 levels"};
    cands[nc++] = (struct cand){.label = "hierarchical_coarse",
                                .scheme = TW_HIERARCHICAL_COARSE,
                                .note = "Scheme 7 without migration: fires late by less than "
                                        "1/7.75 of the interval"};
    cands[nc++] = (struct cand){.label = "lawn", .scheme = TW_LAWN, .note = "a FIFO queue per TTL"};
    cands[nc++] = (struct cand){.label = "hybrid", .scheme = TW_HYBRID,
                                .note = "Lawn queues + Scheme 7"};
    if (dmax <= (1u << 20)) {
        uint32_t s = 256;
        while (s < dmax)
            s <<= 1;
        static char wheel_l[40];
        snprintf(wheel_l, sizeof wheel_l, "wheel M=%u", s);
        cands[nc++] = (struct cand){.label = wheel_l, .scheme = TW_WHEEL, .slots = s,
                                    .note = "Scheme 4, MaxInterval slots"};
    }
    for (int sc = 0; sc < TW_SCHEME_COUNT && nc < CANDS_MAX; sc++)
        if (!scheme_known((enum tw_scheme)sc))
            cands[nc++] = (struct cand){.label = tw_scheme_name((enum tw_scheme)sc),
                                        .scheme = (enum tw_scheme)sc,
                                        .note = "its default configuration"};
    /* What would take too long: Scheme 6 visits each timer T/M times. */
    for (int i = 0; i < nc; i++) {
        struct cand *cd = &cands[i];
        if (!tw_scheme_available(cd->scheme))
            cd->skip = "not in this build";
        else if (cd->scheme == TW_HASHED && rp.life / cd->slots > 20000)
            cd->skip = "skipped: visits each timer T/M > 20000 times";
        else if (cd->scheme == TW_LAWN && distinct > 200000 && adv.n > 200000)
            cd->skip = "skipped: Lawn's weak case (a queue per timer), slower than hybrid";
        else if (cand_max_interval(cd) < dmax)
            cd->skip = "skipped: intervals beyond its MaxInterval";
    }
    printf("%-22s %12s %12s %14s %12s  %s\n", "candidate", "ns/timer", "ns/tick", "CPU at tick",
           "bytes/timer", "");
    int best = -1;
    for (int i = 0; i < nc; i++) {
        struct cand *cd = &cands[i];
        if (cd->skip) {
            printf("%-22s %12s  %s\n", cd->label, "-", cd->skip);
            continue;
        }
        fprintf(stderr, "twbench advise: measuring %s ...\n", cd->label);
        if (run_replica(&rp, cd, 0x616476697365ull) != 0) {
            printf("%-22s %12s  (cannot be created with this configuration)\n", cd->label, "-");
            continue;
        }
        double cpu = cd->ns_tick * rate / 1e9 * 100;
        printf("%-22s %12.1f %12.1f %13.3g%% %12.1f  %s\n", cd->label, cd->ns_timer, cd->ns_tick,
               cpu, cd->bytes, cd->note);
        fflush(stdout);
        if (cd->scheme != TW_HIERARCHICAL_COARSE &&
            (best < 0 || cd->ns_timer < cands[best].ns_timer))
            best = i;
    }

    /* The paper's model, its constants measured here. */
    fprintf(stderr, "twbench advise: measuring c6 and c7 ...\n");
    struct dist cal = {.uniform = 1, .lo = 1u << 18, .hi = (1u << 19) - 1};
    size_t ncal = adv.n < 100000 ? adv.n : 100000;
    if (ncal < 10000)
        ncal = 10000;
    struct replica rc = {.d = &cal, .n = ncal};
    rc.life = expect(&cal, f_life, 0);
    struct cand h256 = {.label = "", .scheme = TW_HASHED, .slots = 1024, .note = ""};
    struct cand h4096 = {.label = "", .scheme = TW_HASHED, .slots = 4096, .note = ""};
    struct cand s16 = {.label = "", .scheme = TW_HIERARCHICAL, .slots = 16, .note = ""};
    struct cand s256 = {.label = "", .scheme = TW_HIERARCHICAL, .slots = 256, .note = ""};
    run_replica(&rc, &h256, 1);
    run_replica(&rc, &h4096, 1);
    run_replica(&rc, &s16, 1);
    run_replica(&rc, &s256, 1);
    double T = rc.life;
    double c6 = (h256.ns_timer - h4096.ns_timer) / (T / 1024 - T / 4096);
    int m16 = levels_for(T, 16), m256 = levels_for(T, 256);
    double c7 = (s16.ns_timer - s256.ns_timer) / (double)(m16 - m256);
    if (c6 < 0.1)
        c6 = 0.1; /* noise floor */
    if (c7 < 0.1)
        c7 = 0.1;

    double Tu = rp.life; /* the user's average interval, start to stop or expiry */
    int m = levels_for(Tu, 64);
    double n = (double)adv.n;
    double cost6 = n * c6 / 4096, cost7 = n * c7 * m / Tu;
    printf("\ncost model (Varghese & Lauck, section VI): per-tick bookkeeping, per unit time\n"
           "  Scheme 6: n c6 / M      Scheme 7: n c7 m / T\n"
           "  measured here (calibration: %s timers, intervals in [2^18, 2^19) ticks, none "
           "stopped):\n"
           "    c6 = %.2f ns per visit of a timer in a slot  (hashed: %.1f ns/timer with M = 1024, "
           "%.1f with M = 4096)\n"
           "    c7 = %.2f ns per migration  (hierarchical: %.1f ns/timer with 16 slots per level, "
           "%d migrations; %.1f with 256, %d)\n",
           fmt_n(ncal, nb, sizeof nb), c6, h256.ns_timer, h4096.ns_timer, c7, s16.ns_timer, m16,
           s256.ns_timer, m256);
    printf("  for this workload: n = %s, T = %.0f ticks (mean life), M = 4096, m = %d (64 slots "
           "per level)\n"
           "    Scheme 6: %.0f x %.2f / 4096        = %.1f ns per tick\n"
           "    Scheme 7: %.0f x %.2f x %d / %.0f = %.1f ns per tick\n"
           "    the model prefers Scheme %d",
           fmt_n(adv.n, nb, sizeof nb), Tu, m, n, c6, cost6, n, c7, m, Tu, cost7,
           cost6 <= cost7 ? 6 : 7);
    const struct cand *h6 = NULL, *h7 = NULL;
    for (int i = 0; i < nc; i++) {
        if (!cands[i].ran)
            continue;
        if (!strcmp(cands[i].label, "hashed"))
            h6 = &cands[i];
        if (!strcmp(cands[i].label, "hierarchical"))
            h7 = &cands[i];
    }
    if (h6 && h7) {
        double lo = h6->ns_tick < h7->ns_tick ? h6->ns_tick : h7->ns_tick;
        double hi = h6->ns_tick < h7->ns_tick ? h7->ns_tick : h6->ns_tick;
        const char *verdict = hi < lo * 1.1 ? "within 10% of each other: too close to call"
                              : (h6->ns_tick <= h7->ns_tick) == (cost6 <= cost7)
                                  ? "agrees in which is cheaper (the model counts bookkeeping "
                                    "only, so not in how much)"
                                  : "disagrees (the model counts bookkeeping only, not starts, "
                                    "stops and cache misses)";
        printf("; measured on the replica: Scheme 6 %.1f, Scheme 7 %.1f ns per tick: %s\n",
               h6->ns_tick, h7->ns_tick, verdict);
    }
    else
        printf("\n");
    if (best >= 0) {
        const struct cand *b = &cands[best];
        printf("\nrecommendation: %s (%s): %.1f ns per timer, %.3g%% of one CPU at %.6g Hz",
               b->label, b->note, b->ns_timer, b->ns_tick * rate / 1e9 * 100, rate);
        for (int i = 0; i < nc; i++)
            if (i != best && cands[i].ran && cands[i].scheme != TW_HIERARCHICAL_COARSE &&
                cands[i].ns_timer < b->ns_timer * 1.1)
                printf("; %s within 10%%", cands[i].label);
        printf("\n");
        for (int i = 0; i < nc; i++)
            if (cands[i].ran && cands[i].scheme == TW_HIERARCHICAL_COARSE &&
                cands[i].ns_timer < b->ns_timer)
                printf("  (hierarchical_coarse is faster still, %.1f ns, if timers may fire late "
                       "by less than 1/7.75 of their interval)\n",
                       cands[i].ns_timer);
        char ename[48];
        printf("  create it with tw_config_init(&cfg, TW_%s)", enum_name(b->scheme, ename,
                                                                      sizeof ename));
        if (b->slots && b->slots != 4096)
            printf(" and cfg.slots = %u", b->slots);
        printf("\n");
        if (b->scheme == TW_WHEEL)
            printf("  (the wheel refuses a start beyond %u ticks with TW_ERANGE: it suits "
                   "intervals that never exceed that)\n",
                   b->slots ? b->slots : 4096u);
        printf("  one measurement per candidate: a lead under 10%% may not hold on another "
               "run\n");
    }
    return 0;
}
