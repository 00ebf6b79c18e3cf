/*
 * fuzz_ops.h -- the byte encoding of the twheel operation fuzzer, shared by
 * the target (fuzz_ops.c) and the seed corpus generator (gen_corpus.c).
 *
 * An input is a header of three bytes and then operations, each an opcode
 * byte (taken modulo FZ_NOPS) followed by its operands.  A read past the end
 * of the input gives zeros, so every byte string is a valid input.
 *
 *   byte 0   bits 0-3  scheme, modulo TW_SCHEME_COUNT (so a scheme added
 *                      to the map moves some stored inputs to another
 *                      scheme; a 17th would need a fifth bit)
 *            bits 4-5  start clock: 0, 2^32 - k, 2^63 - k, 2^64 - k
 *            bit 6     the scheme's default tables; clear: small ones
 *                      (small_slots() in fuzz_ops.c), which wrap often
 *                      and keep tw_check() after every operation cheap
 *            bit 7     the scheme's option (TW_OPT_ORDERED_FRONT for
 *                      ordered, TW_OPT_LAWN_SCAN for lawn)
 *   byte 1   bits 0-1  which small table size (bit 6 of byte 0 clear)
 *            bits 2-3  hybrid ttl_threshold: 0 (default), 1, 2, 255
 *            bit 4     allocator without realloc_fn
 *   byte 2   k = 1 + 257 * byte (the start clock's offset below a power
 *            of two)
 *
 * Operands: IDX is one byte (timer index = byte % FZ_NTIMERS; the top three
 * bits give a new node's callback behaviour), IV an interval spec, DL a
 * deadline spec, TO an advance-target spec (see gen_* in fuzz_ops.c).
 */
#ifndef TWHEEL_FUZZ_OPS_H
#define TWHEEL_FUZZ_OPS_H

enum fz_op {
    FZ_START = 0,       /* IDX IV */
    FZ_START_AT,        /* IDX DL */
    FZ_STOP,            /* IDX */
    FZ_REARM,           /* IDX IV: the first pending timer from IDX on */
    FZ_ADV_SMALL,       /* u8: advance by 0..255 */
    FZ_ADV_LEVEL,       /* u8 u8: advance by a level's span -1, 0, +1 */
    FZ_ADV_FAR,         /* TO */
    FZ_COLLECT,         /* TO: tw_collect() */
    FZ_GET_EXPIRED,     /* u8: pop up to that many */
    FZ_NEXT_EXPIRY,     /* check tw_next_expiry() against the model */
    FZ_ADV_TO_NEXT,     /* advance to next_expiry - 1 (nothing), then to it */
    FZ_TTL_HINT,        /* IV u8 */
    FZ_BEHAVIOUR,       /* IDX u8(behaviour) u8(target) IV(argument) */
    FZ_BACKWARDS,       /* u16: advance/collect before now: TW_ETIME */
    FZ_ALLOC,           /* u8: 0 allocator works; else fails after (b&7) */
    FZ_RECREATE,        /* destroy with timers pending, create again */
    FZ_START_MANY,      /* IDX u8(count) IV: equal deadlines */
    FZ_NOPS
};

/* Callback behaviours (what a timer does when it fires). */
enum fz_beh {
    FB_NONE = 0,
    FB_REARM0,          /* tw_start(self, 0): fires at the next advance */
    FB_STOP_OTHER,      /* tw_stop(target), maybe due in this very advance */
    FB_FREE_SELF,       /* free(self) */
    FB_START_OTHER,     /* start target (a new node if it has none), arg */
    FB_REARM,           /* tw_start(self, arg) */
    FB_STOP_RESTART,    /* tw_stop(target) then tw_start(target, arg) */
    FB_REENTER,         /* advance/collect/destroy: TW_EBUSY */
    FB_STOP_FREE_OTHER, /* tw_stop(target), free(target) */
    FB_INSPECT,         /* tw_check, tw_next_expiry, tw_count from inside */
    FB_REARM_PAST,      /* tw_start_at(self, now - arg): due, next advance */
    FB_STOP_ALL,        /* stop every other pending timer */
    FB_COUNT
};

/* Interval spec selectors (first byte % FZ_IV_COUNT). */
enum fz_iv {
    FI_ZERO = 0,        /* 0 */
    FI_ONE,             /* 1 */
    FI_U8,              /* u8 */
    FI_LEVEL,           /* u8 family/delta, u8 level: a level span +-1 */
    FI_2_48,            /* 2^48 + s8 */
    FI_NEAR_MAX,        /* TW_TIME_MAX - u8 (saturates) */
    FI_U64,             /* u64 */
    FI_U16,             /* u16 */
    FI_MAXI,            /* tw_max_interval() - 1, +0, +1 (u8 % 3) */
    FI_TO_ALIGN,        /* u8 k, u8 d: to the next multiple of 2^k, +d%3 */
    FI_COUNT
};

/* Deadline spec selectors (first byte % FZ_DL_COUNT). */
enum fz_dl {
    FD_PAST = 0,        /* now - 1 - u16 (saturating at 0) */
    FD_ZERO,            /* 0 */
    FD_NOW,             /* now */
    FD_END,             /* TW_TIME_MAX */
    FD_IV,              /* now + IV, saturating */
    FD_COUNT
};

/* Advance target selectors (first byte % FT_COUNT). */
enum fz_to {
    FT_STEP = 0,        /* now + IV */
    FT_2_48,            /* now + 2^48 */
    FT_END,             /* TW_TIME_MAX */
    FT_MIN_DL,          /* the model's earliest deadline + (u8 % 3) - 1 */
    FT_MIN_LATEST,      /* the model's earliest latest-allowed tick */
    FT_TIMER_DL,        /* IDX's deadline + (u8 % 3) - 1 */
    FT_ALIGN,           /* u8 k, u8 d: next multiple of 2^k + d % 3 */
    FT_COUNT
};

#define FZ_NTIMERS 32

/* The periodic build (twheel_fuzz_periodic: FZ_PERIODIC=1) makes the last
 * FZ_NPERIODIC timers periodic, policy = index % 3 (enum tw_missed).  On
 * them every start with an interval (FZ_START, FZ_REARM, FZ_START_MANY, a
 * callback's) takes the interval as the period (tw_periodic_start()); a
 * start at a deadline (FZ_START_AT, FB_REARM_PAST) starts the grid there
 * with the timer's last period, or 1 + deadline % 64 if it has none
 * (tw_periodic_start_at()); every stop is tw_periodic_stop().  The
 * ordinary build reads every input as before. */
#ifndef FZ_PERIODIC
#define FZ_PERIODIC 0
#endif
#define FZ_NPERIODIC 8

#endif /* TWHEEL_FUZZ_OPS_H */
