/*
 * node.h -- the state of a struct tw_timer as the library keeps it: a
 * magic, the pending bit, two bits free for a scheme, and the owner, read
 * as one word by the hot paths.
 */
#ifndef TW_NODE_H
#define TW_NODE_H

#include "base.h"

/* tw_flags: a magic in the high half catches nodes never initialised. */
#define TW_MAGIC        0x7e1d0000u
#define TW_MAGIC_MASK   0xffff0000u
#define TW_F_PENDING    0x1u
#define TW_F_SCHEME1    0x2u    /* free for a scheme's own use */
#define TW_F_SCHEME2    0x4u    /* free for a scheme's own use */

TW_INLINE bool tw_node_valid(const struct tw_timer *t)
{
    return (t->tw_flags & TW_MAGIC_MASK) == TW_MAGIC;
}

TW_INLINE bool tw_node_pending(const struct tw_timer *t)
{
    return (t->tw_flags & TW_F_PENDING) != 0;
}

/* flags and owner read as one word, for the start and stop fast paths:
 * one load and one compare tell a valid node that is idle, or pending on
 * this facility, from every other case.  (memcpy: the two fields are
 * adjacent, checked below; the word's layout follows the machine's byte
 * order, and every word compared with it is built by tw_node_word_of.) */
TW_INLINE uint64_t tw_node_word(const struct tw_timer *t)
{
    uint64_t w;
    memcpy(&w, &t->tw_flags, sizeof w);
    return w;
}

TW_INLINE uint64_t tw_node_word_of(uint32_t flags, uint32_t owner)
{
    struct tw_timer t;
    t.tw_flags = flags;
    t.tw_owner = owner;
    return tw_node_word(&t);
}

_Static_assert(offsetof(struct tw_timer, tw_owner) == offsetof(struct tw_timer, tw_flags) + 4,
               "flags and owner must make one 64-bit word");
_Static_assert(offsetof(struct tw_timer, tw_flags) == offsetof(struct tw_timer, tw_expires) + 8,
               "the deadline and the state word must be adjacent (arm_node())");

#endif /* TW_NODE_H */
