/* fwpt — the flow decoder's steps, for walks that follow its blocks without listing their instructions
 * (decode/summary.c) and for decoders started at a PSB of their own (decode/parallel_host.c). Not a public
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
/* What the processor wrote before the next branch packet, after the walk consumed one (flow_packets.c's flow_lookahead). */
void fwpt_flow_i_lookahead(struct fwpt_flow *f);
/* The RET compression stack (seed 002; SDM "Indirect Transfer Compression for Returns (RET)"): 64 entries,
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
/* The walk reached the end of block b starting at f->ip (next_ip: its fall-through): its last instruction
 * waits for flow_resolve() (flow_priv.h's end_block). */
void fwpt_flow_i_end_block(struct fwpt_flow *f, const struct fwpt_flow_block *b, uint64_t next_ip);
/* Decode from the PSB at 'offset' on, as a decoder that found it first (not synchronized before). */
enum fwpt_status fwpt_flow_i_start_at(struct fwpt_flow *f, uint64_t offset);

#endif
