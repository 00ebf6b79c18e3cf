/*
 * base.h -- what every file of the library may use: the compiler's hints,
 * the saturating add, bit operations.  Depends on twheel.h alone.
 */
#ifndef TW_BASE_H
#define TW_BASE_H

#include "twheel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__)
#  define TW_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define TW_INLINE      static inline __attribute__((always_inline))
#  define TW_NOINLINE    __attribute__((noinline))
#  define TW_UNUSED      __attribute__((unused))
#  define TW_PREFETCH(p) __builtin_prefetch(p)
#else
#  define TW_NOINLINE
#  define TW_UNUSED
#  define TW_LIKELY(x)   (x)
#  define TW_UNLIKELY(x) (x)
#  define TW_INLINE      static inline
#  define TW_PREFETCH(p) ((void)(p))
#endif

/* The largest time_t (a signed integer of any width). */
#define TW_TIME_T_MAX ((time_t)((UINT64_C(1) << (sizeof(time_t) * 8 - 1)) - 1))

/* ns as a struct timespec.  Past the largest time_t (a 32-bit one ends in
 * 2038) it is that time_t, not a time wrapped into the past. */
TW_INLINE struct timespec tw_timespec_of(uint64_t ns)
{
    struct timespec ts;
    uint64_t sec = ns / UINT64_C(1000000000);
    if (sec > (uint64_t)TW_TIME_T_MAX) {
        ts.tv_sec = TW_TIME_T_MAX;
        ts.tv_nsec = 0;
    } else {
        ts.tv_sec = (time_t)sec;
        ts.tv_nsec = (long)(ns % UINT64_C(1000000000));
    }
    return ts;
}

/* A struct timespec of a clock reading as ns: tw_timespec_of() undone. */
TW_INLINE uint64_t tw_ns_of(struct timespec ts)
{
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* a + b, saturated at the end of time (never wrapping into the past). */
TW_INLINE tw_time_t tw_sat_add(tw_time_t a, tw_time_t b)
{
    tw_time_t s = a + b;
    return s < a ? TW_TIME_MAX : s;
}

/* Trailing and leading zeros of x != 0. */
#if defined(__GNUC__)
TW_INLINE unsigned tw_ctz64(uint64_t x) { return (unsigned)__builtin_ctzll(x); }
TW_INLINE unsigned tw_clz64(uint64_t x) { return (unsigned)__builtin_clzll(x); }
#else
TW_INLINE unsigned tw_ctz64(uint64_t x)
{
    unsigned n = 0;
    for (unsigned s = 32; s > 0; s >>= 1)
        if ((x & ((UINT64_C(1) << s) - 1)) == 0) {
            x >>= s;
            n += s;
        }
    return n;
}
TW_INLINE unsigned tw_clz64(uint64_t x)
{
    unsigned n = 0;
    for (unsigned s = 32; s > 0; s >>= 1)
        if ((x >> (64u - s)) == 0) {
            x <<= s;
            n += s;
        }
    return n;
}
#endif
TW_INLINE unsigned tw_fls64(uint64_t x) { return x ? 64u - tw_clz64(x) : 0u; }

/* Rotate left by r (r in 0..63). */
TW_INLINE uint64_t tw_rotl64(uint64_t x, unsigned r)
{
    return r ? (x << r) | (x >> (64u - r)) : x;
}

TW_INLINE bool tw_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

#endif /* TW_BASE_H */
