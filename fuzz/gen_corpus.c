/*
 * gen_corpus.c -- writes the seed corpus of fuzz_ops.c: for every scheme
 * and every start clock (0, 2^32 - k, 2^63 - k, 2^64 - k), a few short
 * operation streams that start timers and advance the clock at the
 * boundary values (0, 1, slot - 1, slot, slot + 1 at every level of a
 * 64-slot wheel and of the facility's own tables, the coarse wheel's level
 * limits, 2^48, 2^64 - 1), exercise the pull API, every callback
 * behaviour, allocation failure and destroy with timers pending.
 *
 *     twheel_fuzz_gen_corpus DIR
 *
 * The encoding is fuzz_ops.h's.  Deterministic: the same files each run.
 */
#include "fuzz_ops.h"
#include "twheel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLEN 2048

struct buf {
    uint8_t b[MAXLEN];
    size_t n;
};

static void put(struct buf *b, unsigned v)
{
    if (b->n < MAXLEN)
        b->b[b->n++] = (uint8_t)v;
}

static void put64(struct buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        put(b, (unsigned)(v >> (8 * i)) & 0xffu);
}

/* Interval specs. */
static void iv_level(struct buf *b, unsigned family, unsigned delta, unsigned level)
{
    put(b, FI_LEVEL);
    put(b, (family & 3u) | (delta << 2));
    put(b, level);
}

static void iv_small(struct buf *b, unsigned v)
{
    put(b, FI_U8);
    put(b, v);
}

static void op_start_level(struct buf *b, unsigned idx, unsigned family, unsigned delta,
                           unsigned level)
{
    put(b, FZ_START);
    put(b, idx);
    iv_level(b, family, delta, level);
}

static void header(struct buf *b, unsigned scheme, unsigned clock, unsigned flags,
                   unsigned b1)
{
    b->n = 0;
    put(b, (scheme & 0x0fu) | (clock << 4) | flags);
    put(b, b1);
    put(b, clock == 0 ? 0 : 3 + clock * 17); /* k */
}

static int write_file(const char *dir, const char *name, unsigned scheme, unsigned clock,
                      const struct buf *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%s-c%u-%s", dir,
             tw_scheme_name((enum tw_scheme)scheme), clock, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t w = fwrite(b->b, 1, b->n, f);
    if (fclose(f) != 0 || w != b->n) {
        perror(path);
        return -1;
    }
    return 0;
}

/* Timers at every level's span -1, 0, +1 (family: 64-slot levels, the
 * facility's tables, coarse limits), then fire them one by one. */
static void gen_levels(struct buf *b, unsigned family, unsigned nlevels)
{
    unsigned idx = 0;
    for (unsigned l = 0; l < nlevels; l++)
        for (unsigned d = 0; d < 3; d++)
            op_start_level(b, idx++ % FZ_NTIMERS, family, d, l);
    for (unsigned k = 0; k < 36; k++)
        put(b, FZ_ADV_TO_NEXT);
    put(b, FZ_ADV_FAR);
    put(b, FT_END);
}

/* Advances by level spans and to aligned boundaries, with timers placed
 * just around them. */
static void gen_steps(struct buf *b)
{
    static const unsigned ivs[] = {1, 2, 62, 63, 64, 65, 127, 128, 129, 255};
    for (unsigned i = 0; i < sizeof ivs / sizeof ivs[0]; i++) {
        put(b, FZ_START);
        put(b, i);
        iv_small(b, ivs[i]);
    }
    for (unsigned l = 0; l < 4; l++)
        for (unsigned d = 0; d < 3; d++) {
            op_start_level(b, 10 + 3 * l + d, 0, d, l + 2);
            put(b, FZ_ADV_LEVEL);
            put(b, (d << 1) | (l & 1));
            put(b, l);
            put(b, FZ_ADV_SMALL);
            put(b, 1);
            put(b, FZ_ADV_FAR);  /* to the next multiple of 2^(6l+6), -1 .. +1 */
            put(b, FT_ALIGN);
            put(b, 6 * l + 6);
            put(b, d);
        }
    for (unsigned k = 0; k < 8; k++) {
        put(b, FZ_ADV_FAR);
        put(b, FT_MIN_DL);
        put(b, k % 3);
    }
    put(b, FZ_NEXT_EXPIRY);
    put(b, FZ_ADV_FAR);
    put(b, FT_END);
}

/* Every callback behaviour, on timers due in the same advance. */
static void gen_callbacks(struct buf *b)
{
    for (unsigned i = 0; i < FB_COUNT; i++) {
        put(b, FZ_BEHAVIOUR);
        put(b, i);
        put(b, i);                  /* behaviour */
        put(b, (i + 3) % FB_COUNT); /* target: another timer of the batch */
        iv_small(b, i % 3 == 0 ? 0 : 5 + i);
    }
    for (unsigned round = 0; round < 3; round++) {
        for (unsigned i = 0; i < FB_COUNT; i++) {
            put(b, FZ_START);
            put(b, i);
            iv_small(b, round == 1 ? 0 : 7);
        }
        put(b, FZ_ADV_SMALL);
        put(b, 7);
        put(b, FZ_ADV_SMALL);
        put(b, 0);
        put(b, FZ_ADV_TO_NEXT);
    }
    put(b, FZ_START_MANY);
    put(b, 20);
    put(b, 8);
    iv_small(b, 3);
    put(b, FZ_ADV_FAR);
    put(b, FT_MIN_LATEST);
}

/* The pull API: collect, partial drains, stop and re-arm of queued timers. */
static void gen_pull(struct buf *b)
{
    for (unsigned i = 0; i < 8; i++) {
        put(b, FZ_START);
        put(b, i);
        iv_small(b, i < 2 ? 0 : i * 3);
    }
    put(b, FZ_COLLECT);
    put(b, FT_STEP);
    iv_small(b, 10);
    put(b, FZ_GET_EXPIRED);
    put(b, 1);
    put(b, FZ_STOP);
    put(b, 3);
    put(b, FZ_REARM);
    put(b, 2);
    iv_small(b, 4);
    put(b, FZ_NEXT_EXPIRY);
    put(b, FZ_COLLECT);
    put(b, FT_END);
    put(b, FZ_GET_EXPIRED);
    put(b, 7);
    put(b, FZ_GET_EXPIRED);
    put(b, 7);
}

/* A 2^48 jump over timers spread up to it, then the end of time. */
static void gen_jump(struct buf *b)
{
    for (unsigned i = 0; i < 24; i++) {
        put(b, FZ_START);
        put(b, i);
        if (i < 8) {
            iv_small(b, i);
        } else if (i < 20) {
            iv_level(b, 3, 1, 4 * (i - 8) + 3); /* 2^3 .. 2^47 */
        } else {
            put(b, FI_2_48);
            put(b, 128 + i - 21); /* 2^48 - 1 .. 2^48 + 2 */
        }
    }
    put(b, FZ_ADV_FAR);
    put(b, FT_2_48);
    put(b, FZ_NEXT_EXPIRY);
    put(b, FZ_ADV_FAR);
    put(b, FT_2_48);
    put(b, FZ_ADV_FAR);
    put(b, FT_END);
}

/* Saturation and the end of time, TW_ERANGE, time going backwards, the
 * allocator failing, TTL hints, destroy with timers pending. */
static void gen_edges(struct buf *b)
{
    put(b, FZ_START);
    put(b, 0);
    put(b, FI_NEAR_MAX);
    put(b, 0);
    put(b, FZ_START);
    put(b, 1);
    put(b, FI_U64);
    put64(b, UINT64_MAX);
    put(b, FZ_START_AT);
    put(b, 2);
    put(b, FD_END);
    put(b, FZ_START_AT);
    put(b, 3);
    put(b, FD_PAST);
    put(b, 5);
    put(b, 0);
    put(b, FZ_START_AT);
    put(b, 4);
    put(b, FD_ZERO);
    for (unsigned d = 0; d < 3; d++) {
        put(b, FZ_START);
        put(b, 5 + d);
        put(b, FI_MAXI);
        put(b, d);
    }
    put(b, FZ_BACKWARDS);
    put(b, 1);
    put(b, 0);
    put(b, FZ_TTL_HINT);
    iv_small(b, 30);
    put(b, 1);
    put(b, FZ_ALLOC);
    put(b, 0x81);
    put(b, FZ_START_MANY);
    put(b, 8);
    put(b, 9);
    iv_small(b, 30);
    put(b, FZ_TTL_HINT);
    iv_small(b, 40);
    put(b, 1);
    put(b, FZ_RECREATE);
    put(b, FZ_ALLOC);
    put(b, 0);
    put(b, FZ_START_MANY);
    put(b, 8);
    put(b, 9);
    iv_small(b, 30);
    put(b, FZ_ADV_FAR);
    put(b, FT_ALIGN);
    put(b, 63);
    put(b, 0);
    put(b, FZ_NEXT_EXPIRY);
    put(b, FZ_ADV_FAR);
    put(b, FT_END);
    put(b, FZ_START);
    put(b, 0);
    iv_small(b, 3);
    put(b, FZ_ADV_SMALL);
    put(b, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    struct buf *b = malloc(sizeof *b);
    if (b == NULL)
        return 1;
    int rc = 0;
    unsigned files = 0;
    for (unsigned s = 0; s < TW_SCHEME_COUNT; s++) {
        for (unsigned c = 0; c < 4; c++) {
            header(b, s, c, 0x40, 0); /* default tables */
            gen_levels(b, 0, 11);
            rc |= write_file(dir, "levels64", s, c, b);
            header(b, s, c, 0, c);      /* small tables */
            gen_levels(b, 1, 12);
            rc |= write_file(dir, "levels-small", s, c, b);
            header(b, s, c, 0, 0);
            gen_levels(b, 2, 11);
            rc |= write_file(dir, "levels-coarse", s, c, b);
            header(b, s, c, 0x40, 0);
            gen_steps(b);
            rc |= write_file(dir, "steps", s, c, b);
            header(b, s, c, 0xc0, 0x10 | (c << 2)); /* option, no realloc */
            gen_callbacks(b);
            rc |= write_file(dir, "callbacks", s, c, b);
            header(b, s, c, 0, 0);
            gen_pull(b);
            rc |= write_file(dir, "pull", s, c, b);
            header(b, s, c, 0, 0);
            gen_jump(b);
            rc |= write_file(dir, "jump48", s, c, b);
            header(b, s, c, 0, 0x10 | 2);
            gen_edges(b);
            rc |= write_file(dir, "edges", s, c, b);
            files += 8;
        }
    }
    free(b);
    if (rc == 0)
        printf("wrote %u seeds to %s\n", files, dir);
    return rc ? 1 : 0;
}
