/*
 * fig9.h -- the paper's UNIX experiment (Varghese & Lauck, section VII,
 * Fig. 9) as a function twbench calls.
 *
 * n callouts are set for random times far in the future (ticks in
 * [2^20, 2^21]); one more is then repeatedly cancelled and set again for a
 * random time farther out than all of them (ticks in [2^21 + 1, 2^22]).
 * Time never advances, so all n + 1 stay pending.  The figure is the cost
 * of one cancel + re-set, in three kernels:
 *
 *   FIG9_BSD_LIST     the old BSD callout list: twheel's `ordered` scheme
 *                     with TW_OPT_ORDERED_FRONT (insertion searches from the
 *                     head, as 4.3BSD's timeout() did), driven through
 *                     tw_untimeout() + tw_timeout(): O(n)
 *   FIG9_WHEEL_HASH   Scheme 6 (`hashed`, default 4096 slots) with the same
 *                     interface, cancelling through the (func, arg) hash
 *                     table: O(1)
 *   FIG9_WHEEL_HANDLE Scheme 6 with handles, tw_unsetcallout() +
 *                     tw_setcallout(): O(1), no hashing
 *
 * Deterministic: the callouts, their ticks, their places in memory (as
 * far as the allocator repeats itself) and the re-set ticks depend on
 * `seed` only, and the number of operations per window on `n` only; only
 * the times vary from run to run.  The (a) kernel's time grows faster than
 * n on a machine with caches (its work, n nodes walked per re-set, is
 * exactly linear; the cost of a node rises from ~2 ns in L1 to ~200 ns
 * from DRAM): docs/callout.md has measured figures.
 */
#ifndef TWBENCH_FIG9_H
#define TWBENCH_FIG9_H

#include <stddef.h>
#include <stdint.h>

enum fig9_variant {
    FIG9_BSD_LIST = 0,
    FIG9_WHEEL_HASH,
    FIG9_WHEEL_HANDLE,
    FIG9_VARIANTS
};

/* One kernel's figure: ns per (cancel + re-set), over `reps` windows. */
struct fig9_stat {
    double median_ns;      /* median of the windows (mean of the middle two
                            * for an even count) */
    double min_ns;
    double max_ns;
    uint64_t ops;          /* cancel + re-set pairs timed per window */
};

/* (Not struct fig9_result: bench/harness.h has one, the series twbench
 * aggregates from these.) */
struct fig9_measurement {
    size_t n;              /* outstanding callouts besides the one re-set */
    unsigned reps;         /* measured windows (after one warm-up window) */
    struct fig9_stat v[FIG9_VARIANTS]; /* indexed by enum fig9_variant */
    double handle_over_hash; /* median over the windows of (c)/(b), each
                              * pair timed back to back (see fig9.c) */
};

/* A short name for a column or a JSON key: "bsd_list", "wheel_hash",
 * "wheel_handle"; NULL if out of range. */
const char *fig9_variant_name(enum fig9_variant v);

/* Run the experiment (set up, one warm-up window, `reps` timed windows,
 * torn down): (a) alone, then (b) and (c) side by side with their windows
 * interleaved, and fill *out (untouched on error).
 * Returns 0, TW_EINVAL (n == 0, reps == 0 or reps > 1000, out NULL),
 * TW_ENOMEM, or TW_ECORRUPT if a cancel found nothing to cancel or a
 * structure failed its check afterwards (a bug).  Prints nothing.
 * Memory: about 240 n bytes, (b) and (c) at once.  Time per window: the
 * wheel kernels time 2^16 operations (1-2 ms); the list kernel times
 * 2^22 / n operations (at least 16), each walking the n callouts, which lie
 * scattered in memory as a kernel's would (see fig9.c): ~10 ms per window
 * while the list fits in the caches, ~1 s at n = 10^5 and several seconds
 * at 10^6, where every node is a miss to DRAM.  Setup is O(n). */
int fig9_measure(size_t n, unsigned reps, uint64_t seed, struct fig9_measurement *out);

#endif /* TWBENCH_FIG9_H */
