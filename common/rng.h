/*
 * common/rng.h -- the one pseudo-random generator of twheel's tests and
 * benchmarks (never of the library, which draws nothing at random).
 *
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): a 64-bit counter stepped by the golden-ratio
 * constant and put through a finaliser.  Every seed, 0 included, gives a
 * full-period stream, and the state is one word, so a test can print it and
 * a benchmark can give every target the same operations.  Not for anything
 * that needs unpredictability.
 */
#ifndef TWHEEL_COMMON_RNG_H
#define TWHEEL_COMMON_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
    r->s = seed;
}

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The high 64 bits of the 128-bit product a * b. */
static inline uint64_t rng_mulhi(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 rng_u128;
    return (uint64_t)(((rng_u128)a * b) >> 64);
#else /* from 32-bit halves: a target with no 128-bit integer (i386) */
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* Uniform in [0, span), span > 0, by a multiply-high: no division on a
 * benchmark's hot path. */
static inline uint64_t rng_below(struct rng *r, uint64_t span)
{
    return rng_mulhi(rng_next(r), span);
}

/* Uniform in [lo, hi], lo <= hi, not the whole 64-bit range (no branch:
 * a benchmark's loops call it). */
static inline uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
    return lo + rng_below(r, hi - lo + 1);
}

/* 1 with probability pct/100. */
static inline int rng_pct(struct rng *r, unsigned pct)
{
    return rng_below(r, 100) < pct;
}

#endif
