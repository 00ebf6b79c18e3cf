/*
 * lawn_scan.c -- Timer Lawn's bookkeeping as the paper gives it
 * (TW_OPT_LAWN_SCAN): no heap of queue heads; a collect peeks at the head
 * of every queue, and next_expiry takes the least of them.
 *
 *     PER_TICK_BOOKKEEPING   O(1)   nothing due: the horizon compare
 *                            O(k)   when something is due, for k queues
 *     next_expiry            O(k)
 *
 * It is here to measure what lawn.c's heap buys (docs/schemes/lawn.md,
 * twbench's lawn_scan target): with a few TTLs the scan is as cheap, with
 * thousands it is not.  Insert and remove in this mode are lawn.c's,
 * without the heap; the queues, the hash and their reclaiming are shared.
 */
#include "lawn.h"

void tw_lawn_scan_collect(struct tw *tw, struct lawn_state *L, tw_time_t now,
                          struct tw_ready *out)
{
    tw_time_t closest = TW_TIME_MAX;
    for (uint32_t i = 0; i < L->nbucket; i++) {
        for (struct lawn_q *q = L->bucket[i]; q; q = q->hnext) {
            if (tw_list_empty(&q->list))
                continue;
            tw_time_t e = tw_of(q->list.next)->tw_expires;
            if ((e > now || tw_lawn_mow(L, q, now, out, &e)) && e < closest)
                closest = e;
        }
    }
    /* Reclaim the emptied queues, then shrink once. */
    for (uint32_t i = 0; i < L->nbucket; i++) {
        struct lawn_q **pp = &L->bucket[i];
        while (*pp) {
            struct lawn_q *q = *pp;
            if (q->mode == TW_TTL_AUTO && tw_list_empty(&q->list)) {
                *pp = q->hnext;
                tw_lawn_release(tw, L, q);
            } else {
                pp = &q->hnext;
            }
        }
    }
    tw_lawn_shrink(tw, L);
    tw->horizon = closest;
}

int tw_lawn_scan_next(const struct lawn_state *L, tw_time_t *out)
{
    bool any = false;
    tw_time_t best = TW_TIME_MAX;
    for (uint32_t i = 0; i < L->nbucket; i++) {
        for (const struct lawn_q *q = L->bucket[i]; q; q = q->hnext) {
            if (tw_list_empty(&q->list))
                continue;
            any = true;
            if (tw_of(q->list.next)->tw_expires < best)
                best = tw_of(q->list.next)->tw_expires;
        }
    }
    if (any)
        *out = best;
    return any;
}
