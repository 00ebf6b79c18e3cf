/*
 * bitmap.h -- occupancy bitmaps: the software form of the paper's
 * Appendix A.
 */
#ifndef TW_BITMAP_H
#define TW_BITMAP_H

#include "base.h"


/* The software form of the paper's Appendix A: one bit per slot, set while
 * the slot's list is not empty, so that per-tick work skips empty slots and
 * a jump over many ticks costs O(occupied slots), not O(ticks). */

TW_INLINE void tw_bm_set(uint64_t *bm, size_t i) { bm[i >> 6] |= 1ull << (i & 63); }
TW_INLINE void tw_bm_clear(uint64_t *bm, size_t i) { bm[i >> 6] &= ~(1ull << (i & 63)); }
TW_INLINE bool tw_bm_test(const uint64_t *bm, size_t i)
{
    return (bm[i >> 6] >> (i & 63)) & 1u;
}

/* First set bit in [from, to), or `to` if none. */
TW_INLINE size_t tw_bm_find(const uint64_t *bm, size_t from, size_t to)
{
    if (from >= to)
        return to;
    size_t w = from >> 6;
    uint64_t x = bm[w] & (~0ull << (from & 63));
    for (;;) {
        if (x) {
            size_t i = (w << 6) + tw_ctz64(x);
            return i < to ? i : to;
        }
        if (++w << 6 >= to)
            return to;
        x = bm[w];
    }
}

/* First set bit at or after `from` going round the m bits base .. base+m-1
 * (m a power of two, from < m), as a distance 0..m-1 from `from`; m if none
 * is set. */
TW_INLINE size_t tw_bm_find_circular(const uint64_t *bm, size_t base, size_t m, size_t from)
{
    size_t i = tw_bm_find(bm, base + from, base + m);
    if (i < base + m)
        return i - base - from;
    i = tw_bm_find(bm, base, base + from);
    return i < base + from ? m - from + (i - base) : m;
}

/* Walk the occupied slots of a circular window: the `span` slots starting
 * at `from` among the m slots at bit `base`.  Returns the next occupied
 * slot (0..m-1) in window order, or SIZE_MAX at the end; *done counts the
 * slots consumed so far (start it at 0), so the slot returned is window
 * position *done - 1. */
TW_INLINE size_t tw_window_next(const uint64_t *bm, size_t base, size_t m, size_t from,
                                size_t span, size_t *done)
{
    while (*done < span) {
        /* The rest of the window from here, up to the end of the table. */
        size_t pos = (from + *done) & (m - 1);
        size_t lim = pos + (span - *done);
        if (lim > m)
            lim = m;
        size_t i = tw_bm_find(bm, base + pos, base + lim);
        if (i < base + lim) {
            *done += i - base - pos + 1;
            return i - base;
        }
        *done += lim - pos;
    }
    return SIZE_MAX;
}

#endif /* TW_BITMAP_H */
