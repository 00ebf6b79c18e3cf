/*
 * check.h -- how tw_check() reports a violation (check.c).
 */
#ifndef TW_CHECK_H
#define TW_CHECK_H

#include "base.h"

/* Invariant checking: schemes report through tw_fail(). */
struct tw_checker {
    char *msg;
    size_t len;
    size_t seen;                /* timers counted by the scheme */
};

/* Record a violation (printf-style) and return TW_ECORRUPT. */
int tw_fail(struct tw_checker *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* TW_CHECK_H */
