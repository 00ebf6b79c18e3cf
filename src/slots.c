/*
 * slots.c -- a table of list heads with an occupancy bitmap, shared by the
 * single-level wheels (Schemes 4, 5 and 6).
 *
 * Each slot is a circular doubly linked list head (16 bytes); bit i of the
 * bitmap is set exactly while slot i is not empty (in these tables; the
 * hierarchical wheels may keep a bit over an emptied lane: struct
 * tw_slots).  A node that is unlinked
 * can tell that it emptied its slot without knowing which slot it was in:
 * both of its old neighbours are then the head, and the head's address gives
 * the index (tw_slots_unlink).  That is why a node needs no slot field.
 */
#include "facility.h"
#include "slots.h"

/* The one-level tables (wheel, hashed, hashed_sorted): a power of two of
 * at most 2^28 slots. */
const char *tw_slots_validate(const struct tw_config *cfg)
{
    if (!tw_is_pow2(cfg->slots) || cfg->slots > (1u << 28))
        return "slots: a power of two from 1 to 2^28";
    return NULL;
}

static size_t words_for(uint32_t n) { return ((size_t)n + 63) / 64; }

int tw_slots_init(struct tw *tw, struct tw_slots *s, uint32_t n, unsigned lshift)
{
    s->n = n;
    s->mask = n - 1;
    s->lshift = lshift;
    s->head = tw_mem_alloc(tw, ((size_t)n << lshift) * sizeof *s->head);
    s->bm = tw_mem_alloc(tw, words_for(n) * sizeof *s->bm);
    s->lanes = lshift ? tw_mem_alloc(tw, n) : NULL;
    if (s->head == NULL || s->bm == NULL || (lshift && s->lanes == NULL)) {
        tw_slots_fini(tw, s);
        return TW_ENOMEM;
    }
    for (size_t i = 0; i < ((size_t)n << lshift); i++)
        tw_list_init(&s->head[i]);
    memset(s->bm, 0, words_for(n) * sizeof *s->bm);
    if (lshift)
        memset(s->lanes, 0, n);
    return 0;
}

void tw_slots_fini(struct tw *tw, struct tw_slots *s)
{
    tw_mem_free(tw, s->head, ((size_t)s->n << s->lshift) * sizeof *s->head);
    tw_mem_free(tw, s->bm, words_for(s->n) * sizeof *s->bm);
    if (s->lshift)
        tw_mem_free(tw, s->lanes, s->n);
    s->head = NULL;
    s->bm = NULL;
    s->lanes = NULL;
}

int tw_slots_check_bits(const struct tw_slots *s, struct tw_checker *c, const char *who,
                        bool stale_ok)
{
    for (uint32_t i = 0; i < s->n; i++) {
        bool empty = tw_slots_empty(s, i), bit = tw_bm_test(s->bm, i);
        if (empty == bit && (bit == 0 || !stale_ok))
            return tw_fail(c, "%s: slot %u has bit %d but %s list", who, i, (int)bit,
                           empty ? "an empty" : "a full");
        if (s->lshift && (s->lanes[i] != 0) != bit)
            return tw_fail(c, "%s: slot %u has bit %d but lane bits %#x", who, i, (int)bit,
                           (unsigned)s->lanes[i]);
        for (unsigned j = 0; s->lshift && j < (1u << s->lshift); j++) {
            bool lempty = tw_list_empty(&s->head[(i << s->lshift) + j]);
            bool lbit = tw_slots_lane_marked(s, (i << s->lshift) + j, s->lshift);
            if (lempty == lbit && (lbit == 0 || !stale_ok))
                return tw_fail(c, "%s: slot %u lane %u bit disagrees with its list", who, i, j);
        }
    }
    return 0;
}
