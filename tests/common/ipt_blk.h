/* fwpt tests — one walk of libipt's block decoder (pt_blk_*) that counts instructions: sync to each
 * PSB, drain pending events, take blocks until the end of the trace; a decode error goes on at the
 * next PSB. Header-only (static inline); hosted C, -lipt. */
#ifndef FWPT_TESTS_IPT_BLK_H
#define FWPT_TESTS_IPT_BLK_H

#include <intel-pt.h>
#include <stdint.h>

/* The instructions in all blocks *bd gives from where it is to the end of its trace. */
static inline uint64_t ipt_blk_count(struct pt_block_decoder *bd)
{
    uint64_t n = 0;
    int st;
    while ((st = pt_blk_sync_forward(bd)) >= 0) {
        struct pt_event e;
        struct pt_block b;
        do {
            while (st >= 0 && (st & pts_event_pending))
                st = pt_blk_event(bd, &e, sizeof e);
            if (st >= 0 && (st = pt_blk_next(bd, &b, sizeof b)) >= 0)
                n += b.ninsn;
        } while (st >= 0);
        if (st == -pte_eos)
            break;
    }
    return n;
}

#endif
