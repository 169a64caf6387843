/* fwpt — the flow decoder's steps, for walks that follow its blocks without listing their instructions
 * (analyze/summary.c) and for decoders started at a PSB of their own (analyze/parallel_host.c). Not a public
 * interface: these read and write the private fields of struct fwpt_flow the way decode/flow*.c do, and change
 * with them. Each function is the flow decoder's own step (flow.c wraps it), so a rule stays written once. */
#ifndef FWPT_DECODE_FLOW_INTERNAL_H
#define FWPT_DECODE_FLOW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/flow.h"

/* Cache index of a block start (before the mask): flow_priv.h's FLOW_SLOT. */
#define FWPT_FLOW_SLOT(ip) (ip)

/* f->state while the walk has an IP (flow_priv.h's ST_WALK; flow.c asserts the value). */
#define FWPT_FLOW_ST_WALK 3

/* The next packet into f->peek, not consumed (flow_priv.h's fetch: a packet-level error is reported and the
 * decoder resynchronized there). FWPT_E_EOS at the end. */
enum fwpt_status fwpt_flow_i_fetch(struct fwpt_flow *f);
/* The RET compression stack (SDM "Indirect Transfer Compression for Returns (RET)"): 64 entries,
 * the oldest dropped when full; every near RET pops. flow_priv.h's push_ret and pop_ret. */
static inline void fwpt_flow_push_ret(struct fwpt_flow *f, uint64_t ip)
{
    f->retstack[f->retstack_top % FWPT_FLOW_RETSTACK] = ip;
    f->retstack_top++;
    if (f->retstack_n < FWPT_FLOW_RETSTACK)
        f->retstack_n++; /* when full the oldest entry is dropped */
}
static inline bool fwpt_flow_pop_ret(struct fwpt_flow *f, uint64_t *ip)
{
    if (!f->retstack_n)
        return false;
    f->retstack_n--;
    f->retstack_top--;
    *ip = f->retstack[f->retstack_top % FWPT_FLOW_RETSTACK];
    return true;
}
/* What fwpt_flow_i_step did with a block's last instruction. */
enum { FWPT_FLOW_STEP_NEXT = 0, /* *ip decided without a packet (OTHER, direct JMP/CALL) */
       FWPT_FLOW_STEP_TNT,      /* *ip decided by the TNT bit bits & 1 (the caller shifts it out) */
       FWPT_FLOW_STEP_TIP,      /* *ip is the TIP lookahead left in peek, consumed (have_peek cleared) */
       FWPT_FLOW_STEP_SLOW };   /* anything else: fwpt_flow_i_resolve()'s general rule, nothing changed */

/* The transfer rule of a block's last instruction, for every walk over cached blocks (flow_walk.c's
 * fast_resolve, run_resolve and fill_fast_walk, summary.c's block walk); fwpt_flow_i_resolve() is the general
 * rule, with errors and events, for everything this returns as SLOW. cls/flags/target/nx: the block's
 * class, flags, direct target and fall-through; bits/cnt: the TNT bits in hand (cnt 0: none usable);
 * pgd_peek: a TIP.PGD waits in peek (a direct branch may leave the IP filter range); tip: the caller takes
 * a TIP left in peek. The order of the tests was measured on bench_flow (fill_fast_walk): a branch per
 * class, predicted, keeps the class off the walk's dependency chain (one branch-free select over
 * OTHER/JCC/JMP_REL/CALL_REL was slower: docs/performance.md, "Flow walk"). */
static inline __attribute__((always_inline)) int fwpt_flow_i_step(struct fwpt_flow *f, uint8_t cls, uint8_t flags,
                                                                  uint64_t target, uint64_t nx, uint64_t bits,
                                                                  uint32_t cnt, bool pgd_peek, const bool tip,
                                                                  uint64_t *ip)
{
    if (cls == FWPT_IC_JCC && cnt) {
        /* branch-free: the outcome is data, not a prediction (a branch loses more on random outcomes
         * than it wins on biased ones: docs/performance.md, "Flow walk") */
        uint64_t m = -(bits & 1);
        *ip = nx ^ ((nx ^ target) & m);
        return FWPT_FLOW_STEP_TNT;
    }
    if (cls == FWPT_IC_OTHER) {
        *ip = nx;
        return FWPT_FLOW_STEP_NEXT;
    }
    if ((cls == FWPT_IC_JMP_REL || cls == FWPT_IC_CALL_REL) && !pgd_peek) {
        /* SDM "Indirect Transfer Compression for Returns (RET)": zero-length calls are not pushed */
        if (cls == FWPT_IC_CALL_REL && !(flags & FWPT_FLOW_BF_ZERO_LEN_CALL))
            fwpt_flow_push_ret(f, nx);
        *ip = target;
        return FWPT_FLOW_STEP_NEXT;
    }
    if (cls == FWPT_IC_RET && cnt && (bits & 1) && f->retstack_n) {
        /* compressed RET (SDM "Indirect Transfer Compression for Returns (RET)") */
        (void)fwpt_flow_pop_ret(f, ip);
        return FWPT_FLOW_STEP_TNT;
    }
    if (tip && f->have_peek && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed && !f->pending_mode &&
        !f->pend_pip && !f->pend_vmcs &&
        (cls == FWPT_IC_JMP_IND || cls == FWPT_IC_CALL_IND || (cls == FWPT_IC_RET && !cnt) ||
         (cls >= FWPT_IC_FAR_JMP && cls <= FWPT_IC_VMENTRY))) {
        /* take_tip with the TIP lookahead left in peek (no MODE.Exec, PIP or VMCS to apply) */
        if (cls == FWPT_IC_CALL_IND) {
            fwpt_flow_push_ret(f, nx);
        } else if (cls == FWPT_IC_RET) {
            uint64_t dummy;
            (void)fwpt_flow_pop_ret(f, &dummy); /* SDM "Indirect Transfer Compression for Returns (RET)" step 3: every near RET pops */
        }
        *ip = f->peek.ip.ip;
        f->have_peek = 0;
        return FWPT_FLOW_STEP_TIP;
    }
    return FWPT_FLOW_STEP_SLOW;
}
/* A walk over cached blocks keeps the decoder's TNT state in registers: stores it back (bits, cnt: the TNT bits
 * in hand; since: the instructions since the last packet; walked: those it ran and has not counted in n_insns).
 * fill_fast_walk and summary.c's block walk, at each place they stop or look ahead. */
static inline void fwpt_flow_i_walk_store(struct fwpt_flow *f, uint64_t bits, uint32_t cnt, uint64_t since,
                                          uint64_t walked)
{
    f->tnt_bits = bits;
    f->tnt_count = (uint8_t)cnt;
    f->since_packet = since;
    f->n_insns += walked;
}
/* A walk over cached blocks used up the packet that decided its last transfer (a TNT's last bit, or a TIP), at
 * f->ip: it looks ahead as fwpt_flow_i_resolve() does, in two steps (fill_fast_walk and summary.c's block walk).
 * First, with the next packet fetched (fetched: the caller's fetch, fill_fast_walk's knows whether time is on):
 * true when it is a TNT or TIP, which the walk takes itself (the lookahead would stop at once). */
static inline bool fwpt_flow_i_takes_next(const struct fwpt_flow *f, enum fwpt_status fetched)
{
    return fetched == FWPT_OK &&
           (f->peek.type == FWPT_PKT_TNT_8 || f->peek.type == FWPT_PKT_TNT_64 || f->peek.type == FWPT_PKT_TIP);
}
/* Else the TNT state is stored (bits left, walked instructions not yet counted: a TRIG's ICNT counts from here)
 * and the lookahead (flow_packets.c's fwpt_flow_i_lookahead) done: true when the walk goes on (it walks, and no FUP,
 * event, TRIG or CFE waits). Out of line in flow.c, as the lookahead itself is: inlined into both walks' loops it
 * slowed the summary walk, out of them it costs about what the copies it replaced did (docs/performance.md,
 * "Flow walk"). */
bool fwpt_flow_i_packet_lookahead(struct fwpt_flow *f, uint64_t bits, uint64_t walked);
/* The walk reached the end of block b starting at f->ip (next_ip: its fall-through): its last instruction
 * waits for fwpt_flow_i_resolve() (flow_priv.h's end_block). */
void fwpt_flow_i_end_block(struct fwpt_flow *f, const struct fwpt_flow_block *b, uint64_t next_ip);
/* Decode from the PSB at 'offset' on, as a decoder that found it first (not synchronized before). */
enum fwpt_status fwpt_flow_i_start_at(struct fwpt_flow *f, uint64_t offset);

#endif
