/*
 * check.c -- how tw_check() reports what it finds, and the checks every
 * scheme makes of each node it holds.
 */
#include "scheme.h"

#include <stdarg.h>
#include <stdio.h>

int tw_fail(struct tw_checker *c, const char *fmt, ...)
{
    if (c->msg && c->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->len, fmt, ap);
        va_end(ap);
    }
    return TW_ECORRUPT;
}

int tw_check_node(struct tw *tw, struct tw_checker *c, const struct tw_timer *t)
{
    if (!tw_node_valid(t))
        return tw_fail(c, "node %p has a bad magic %#x", (const void *)t, t->tw_flags);
    if (!tw_node_pending(t))
        return tw_fail(c, "node %p is held but not pending", (const void *)t);
    if (t->tw_owner != tw->id)
        return tw_fail(c, "node %p is owned by facility %u, not %u", (const void *)t,
                       t->tw_owner, tw->id);
    if (t->tw_expires <= tw->now && !tw->ops->keeps_late)
        return tw_fail(c, "node %p with deadline %llu is held by the scheme at now %llu",
                       (const void *)t, (unsigned long long)t->tw_expires,
                       (unsigned long long)tw->now);
    return 0;
}
