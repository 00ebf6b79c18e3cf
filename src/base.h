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

#if defined(__GNUC__)
#  define TW_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define TW_INLINE      static inline __attribute__((always_inline))
#  define TW_NOINLINE    __attribute__((noinline))
#  define TW_UNUSED      __attribute__((unused))
#else
#  define TW_NOINLINE
#  define TW_UNUSED
#  define TW_LIKELY(x)   (x)
#  define TW_UNLIKELY(x) (x)
#  define TW_INLINE      static inline
#endif

/* a + b, saturated at the end of time (never wrapping into the past). */
TW_INLINE tw_time_t tw_sat_add(tw_time_t a, tw_time_t b)
{
    tw_time_t s = a + b;
    return s < a ? TW_TIME_MAX : s;
}


TW_INLINE unsigned tw_ctz64(uint64_t x) { return (unsigned)__builtin_ctzll(x); }
TW_INLINE unsigned tw_clz64(uint64_t x) { return (unsigned)__builtin_clzll(x); }
TW_INLINE unsigned tw_fls64(uint64_t x) { return x ? 64u - tw_clz64(x) : 0u; }

/* Rotate left by r (r in 0..63). */
TW_INLINE uint64_t tw_rotl64(uint64_t x, unsigned r)
{
    return r ? (x << r) | (x >> (64u - r)) : x;
}

TW_INLINE bool tw_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

#endif /* TW_BASE_H */
