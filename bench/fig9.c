/*
 * fig9.c -- the paper's UNIX experiment (section VII, Fig. 9): see fig9.h.
 *
 * Costello's test process set many callouts far in the future, then one
 * more, and timed re-setting that one again and again for a random time
 * farther out than all the others: on the old BSD list every re-set walks
 * past all n callouts, on Scheme 6 it costs the same whatever n is.  Here
 * the three kernels are twheel facilities with a callout context on top
 * (src/callout.c), measured through the public API only.
 *
 * The n callouts are set in decreasing order of deadline, so that on the
 * front-searching list each one goes in at the head: setting up costs
 * O(n), not O(n^2), and the list ends up the same as in any other order.
 * Their memory is scattered as a kernel's free list would leave it, not laid
 * out in deadline order (which would let the list walk stream through
 * memory at the prefetcher's pace): the pool is first filled with n dummy
 * timeouts that are cancelled in a random order, so that the free list
 * hands out entries in that order; handles go to a random index of their
 * array.
 */
#define _POSIX_C_SOURCE 200809L

#include "fig9.h"

#include "../common/rng.h"

#include "twheel.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIG9_FAR_LO (UINT64_C(1) << 20)   /* the n: ticks in [2^20, 2^21] */
#define FIG9_FAR_HI (UINT64_C(1) << 21)
#define FIG9_OUT_HI (UINT64_C(1) << 22)   /* the one: (2^21, 2^22] */
#define FIG9_WHEEL_OPS (UINT64_C(1) << 16)
#define FIG9_LIST_WORK (UINT64_C(1) << 22) /* list: nodes walked per window */
#define FIG9_LIST_MIN_OPS 16u
#define FIG9_REPS_MAX 1000u

const char *fig9_variant_name(enum fig9_variant v)
{
    switch (v) {
    case FIG9_BSD_LIST:
        return "bsd_list";
    case FIG9_WHEEL_HASH:
        return "wheel_hash";
    case FIG9_WHEEL_HANDLE:
        return "wheel_handle";
    default:
        return NULL;
    }
}

static uint64_t fig9_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A re-set farther out than every one of the n. */
static inline uint64_t fig9_out_ticks(struct rng *s)
{
    return rng_range(s, FIG9_FAR_HI + 1, FIG9_OUT_HI);
}

/* Called by nothing (time never advances); its address is the func. */
static void fig9_fn(void *arg) { (void)arg; }

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x < y) - (x > y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One kernel, set up with the n callouts and the one. */
struct fig9_kernel {
    enum fig9_variant v;
    struct tw *tw;
    struct tw_callouts *co;
    struct tw_callout *handles; /* handle kernel: n + 1 */
    char *keys;                 /* n + 1 distinct args */
    size_t n;
};

static void kernel_close(struct fig9_kernel *k)
{
    if (k->co)
        tw_callouts_destroy(k->co);
    if (k->tw)
        tw_destroy(k->tw);
    free(k->handles);
    free(k->keys);
    memset(k, 0, sizeof *k);
}

static int kernel_open(struct fig9_kernel *k, enum fig9_variant v, size_t n,
                       const uint64_t *ticks, const size_t *perm, uint64_t seed)
{
    memset(k, 0, sizeof *k);
    k->v = v;
    k->n = n;
    struct tw_config cfg;
    int rc = tw_config_init(&cfg, v == FIG9_BSD_LIST ? TW_ORDERED : TW_HASHED);
    if (rc)
        return rc;
    if (v == FIG9_BSD_LIST)
        cfg.options = TW_OPT_ORDERED_FRONT;
    k->keys = malloc(n + 1);
    if (k->keys == NULL)
        return TW_ENOMEM;
    if (v == FIG9_WHEEL_HANDLE) {
        k->handles = malloc((n + 1) * sizeof *k->handles);
        if (k->handles == NULL) {
            kernel_close(k);
            return TW_ENOMEM;
        }
        for (size_t i = 0; i <= n; i++)
            tw_callout_init(&k->handles[i]);
    }
    rc = tw_create(&k->tw, &cfg);
    if (rc == 0)
        rc = tw_callouts_init(&k->co, k->tw);
    if (v != FIG9_WHEEL_HANDLE) {
        /* scatter the pool: n dummies, cancelled in a random order */
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = tw_timeout(k->co, fig9_fn, k->keys + i, ticks[i]);
        for (size_t i = 0; rc == 0 && i < n; i++)
            if (tw_untimeout(k->co, fig9_fn, k->keys + perm[i]) != 1)
                rc = TW_ECORRUPT;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = v == FIG9_WHEEL_HANDLE
                 ? tw_setcallout(k->co, &k->handles[perm[i]], fig9_fn, k->keys + i,
                                 ticks[i])
                 : tw_timeout(k->co, fig9_fn, k->keys + i, ticks[i]);
    /* the one that is re-set */
    struct rng s = {.s = seed ^ 0x0e};
    if (rc == 0)
        rc = v == FIG9_WHEEL_HANDLE
                 ? tw_setcallout(k->co, &k->handles[n], fig9_fn, k->keys + n,
                                 fig9_out_ticks(&s))
                 : tw_timeout(k->co, fig9_fn, k->keys + n, fig9_out_ticks(&s));
    if (rc) {
        kernel_close(k);
        return rc;
    }
    return 0;
}

/* After the windows: all n + 1 callouts still pending, every structure
 * sound. */
static int kernel_sound(struct fig9_kernel *k, size_t n)
{
    return tw_count(k->tw) == n + 1 && tw_check(k->tw, NULL, 0) == 0 &&
           tw_callouts_check(k->co, NULL, 0) == 0;
}

static double median_sorted(const double *v, unsigned m)
{
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* Sorts w[0..m) and fills *st from it. */
static void stat_of(struct fig9_stat *st, double *w, unsigned m, uint64_t ops)
{
    qsort(w, m, sizeof *w, cmp_double);
    st->ops = ops;
    st->min_ns = w[0];
    st->max_ns = w[m - 1];
    st->median_ns = median_sorted(w, m);
}

/* One window of `ops` cancel + re-set pairs; ns per pair, or < 0 if a
 * cancel found nothing. */
static double kernel_window(struct fig9_kernel *k, uint64_t ops, uint64_t stream)
{
    struct rng s = {.s = stream};
    struct tw_callouts *co = k->co;
    void *arg = k->keys + k->n;
    uint64_t bad = 0;
    uint64_t t0 = fig9_now_ns();
    if (k->v == FIG9_WHEEL_HANDLE) {
        struct tw_callout *c = &k->handles[k->n];
        for (uint64_t i = 0; i < ops; i++) {
            bad += tw_unsetcallout(co, c) != 1;
            bad += tw_setcallout(co, c, fig9_fn, arg, fig9_out_ticks(&s)) != 0;
        }
    } else {
        for (uint64_t i = 0; i < ops; i++) {
            bad += tw_untimeout(co, fig9_fn, arg) != 1;
            bad += tw_timeout(co, fig9_fn, arg, fig9_out_ticks(&s)) != 0;
        }
    }
    uint64_t t1 = fig9_now_ns();
    if (bad)
        return -1.0;
    return (double)(t1 - t0) / (double)ops;
}

int fig9_measure(size_t n, unsigned reps, uint64_t seed, struct fig9_measurement *out)
{
    if (n == 0 || reps == 0 || reps > FIG9_REPS_MAX || out == NULL ||
        n > SIZE_MAX / sizeof(struct tw_callout) - 1)
        return TW_EINVAL;
    uint64_t *ticks = malloc(n * sizeof *ticks);
    size_t *perm = malloc(n * sizeof *perm);
    double *w = malloc(3 * (size_t)reps * sizeof *w);
    if (ticks == NULL || perm == NULL || w == NULL) {
        free(ticks);
        free(perm);
        free(w);
        return TW_ENOMEM;
    }
    double *wc = w + reps, *pr = w + 2 * (size_t)reps;
    struct rng s = {.s = seed};
    for (size_t i = 0; i < n; i++)
        ticks[i] = rng_range(&s, FIG9_FAR_LO, FIG9_FAR_HI);
    qsort(ticks, n, sizeof *ticks, cmp_desc);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        size_t j = (size_t)rng_below(&s, i + 1);
        size_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }

    struct fig9_measurement r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.reps = reps;
    int rc = 0;

    /* (a) alone: its windows are long and it needs nothing to pair with. */
    uint64_t list_ops = FIG9_LIST_WORK / n;
    if (list_ops < FIG9_LIST_MIN_OPS)
        list_ops = FIG9_LIST_MIN_OPS;
    struct fig9_kernel k;
    rc = kernel_open(&k, FIG9_BSD_LIST, n, ticks, perm, seed);
    if (rc == 0) {
        /* window j re-sets with the same ticks in every kernel */
        if (kernel_window(&k, list_ops, seed + 0x1000) < 0)
            rc = TW_ECORRUPT; /* warm-up */
        for (unsigned j = 0; rc == 0 && j < reps; j++) {
            w[j] = kernel_window(&k, list_ops, seed + 0x1001 + j);
            if (w[j] < 0)
                rc = TW_ECORRUPT;
        }
        if (rc == 0 && !kernel_sound(&k, n))
            rc = TW_ECORRUPT;
        kernel_close(&k);
        if (rc == 0)
            stat_of(&r.v[FIG9_BSD_LIST], w, reps, list_ops);
    }

    /* (b) and (c) side by side, their windows interleaved in alternating
     * order, so that the one comparison the experiment makes between
     * them, (c) against (b), is paired: each ratio is of two windows a
     * millisecond apart, under the same noise from the rest of the
     * machine.  Measured one after the other, a shared machine's drift
     * between the two runs was as large as the difference. */
    struct fig9_kernel kb, kc;
    int open_b = 0, open_c = 0;
    if (rc == 0) {
        rc = kernel_open(&kb, FIG9_WHEEL_HASH, n, ticks, perm, seed);
        open_b = rc == 0;
    }
    if (rc == 0) {
        rc = kernel_open(&kc, FIG9_WHEEL_HANDLE, n, ticks, perm, seed);
        open_c = rc == 0;
    }
    if (rc == 0 && (kernel_window(&kb, FIG9_WHEEL_OPS, seed + 0x1000) < 0 ||
                    kernel_window(&kc, FIG9_WHEEL_OPS, seed + 0x1000) < 0))
        rc = TW_ECORRUPT; /* warm-up */
    for (unsigned j = 0; rc == 0 && j < reps; j++) {
        uint64_t stream = seed + 0x1001 + j;
        double b, c;
        if (j % 2) {
            c = kernel_window(&kc, FIG9_WHEEL_OPS, stream);
            b = kernel_window(&kb, FIG9_WHEEL_OPS, stream);
        } else {
            b = kernel_window(&kb, FIG9_WHEEL_OPS, stream);
            c = kernel_window(&kc, FIG9_WHEEL_OPS, stream);
        }
        if (b <= 0 || c <= 0) {
            rc = TW_ECORRUPT;
            break;
        }
        w[j] = b;
        wc[j] = c;
        pr[j] = c / b;
    }
    if (rc == 0 && (!kernel_sound(&kb, n) || !kernel_sound(&kc, n)))
        rc = TW_ECORRUPT;
    if (open_b)
        kernel_close(&kb);
    if (open_c)
        kernel_close(&kc);
    if (rc == 0) {
        stat_of(&r.v[FIG9_WHEEL_HASH], w, reps, FIG9_WHEEL_OPS);
        stat_of(&r.v[FIG9_WHEEL_HANDLE], wc, reps, FIG9_WHEEL_OPS);
        qsort(pr, reps, sizeof *pr, cmp_double);
        r.handle_over_hash = median_sorted(pr, reps);
    }
    free(ticks);
    free(perm);
    free(w);
    if (rc == 0)
        *out = r;
    return rc;
}
