/* fwpt — the flow decoder's general transfer rule: where the last instruction of a block goes, with the
 * TNT bit or TIP packet it takes. */
#include "decode/flow_priv.h"

/* ---- packets the walk consumes ---- */

/* One TNT bit for a conditional branch or a compressed RET. Returns 0/1, or -1 when the walk
 * stopped (error, disable, end). */
static int take_tnt(struct fwpt_flow *f, enum fwpt_status miss)
{
    bool newpkt = !f->tnt_count;
    if (!f->tnt_count) {
        if (!fetch_or_cut(f, f->last_ip))
            return -1;
        uint8_t t = f->peek.type;
        if (is_tnt(t)) {
            f->tnt_bits = f->peek.tnt.bits;
            f->tnt_count = f->peek.tnt.count;
            consume(f);
            if (!f->tnt_count) {
                fwpt_flow_i_error(f, miss, f->last_ip, f->pkt.offset);
                return -1;
            }
        } else if (t == FWPT_PKT_TIP_PGD) {
            struct fwpt_packet pgd = f->peek;
            consume(f);
            fwpt_flow_i_apply_pip_order(f, true);
            fwpt_flow_i_disabled_at(f, &pgd, false, 0);
            return -1;
        } else {
            fwpt_flow_i_error(f, miss, f->last_ip, f->peek.offset);
            return -1;
        }
    }
    int bit = (int)(f->tnt_bits & 1);
    f->tnt_bits >>= 1;
    f->tnt_count--;
    f->since_packet = 0;
    if (TIME_ON(f))
        fwpt_flow_i_time_query(f, f->n_insns - 1, newpkt);
    return bit;
}

/* The TIP of an indirect transfer. Returns true with *ip, or false when the walk stopped.
 * SDM "Deferred TIPs": the processor may hold TIPs back while the TNT fills with the branches after
 * them, then write the TNT and the TIPs after it. So TNT bits in hand may belong to branches after
 * this transfer, and with none in hand a TNT may stand before its TIP (libipt takes both the same). */
static bool take_tip(struct fwpt_flow *f, uint64_t *ip)
{
    if (!fetch_or_cut(f, f->last_ip))
        return false;
    uint8_t t = f->peek.type;
    if (is_tnt(t) && !f->tnt_count && f->peek.tnt.count) {
        /* a TNT ahead of a deferred TIP: its bits are for the branches after this transfer */
        f->tnt_bits = f->peek.tnt.bits;
        f->tnt_count = f->peek.tnt.count;
        consume(f);
        if (!fetch_or_cut(f, f->last_ip))
            return false;
        t = f->peek.type;
        if (t != FWPT_PKT_TIP) {
            fwpt_flow_i_error(f, FWPT_E_NO_TIP, f->last_ip, f->peek.offset);
            return false;
        }
    }
    if (t == FWPT_PKT_TIP && !f->peek.ip.suppressed) {
        *ip = f->peek.ip.ip;
        consume(f);
        f->since_packet = 0;
        if (TIME_ON(f))
            fwpt_flow_i_time_query(f, f->n_insns - 1, true);
        fwpt_flow_i_cfe_give(f); /* a CFE without IP (or bound to this instruction) describes this transfer */
        fwpt_flow_i_apply_pip(f);
        fwpt_flow_i_apply_mode(f);
        return true;
    }
    if (t == FWPT_PKT_TIP_PGD) {
        struct fwpt_packet pgd = f->peek;
        consume(f);
        fwpt_flow_i_apply_pip_order(f, true);
        fwpt_flow_i_disabled_at(f, &pgd, false, 0);
        return false;
    }
    fwpt_flow_i_error(f, FWPT_E_NO_TIP, f->last_ip, f->peek.offset);
    return false;
}

/* Where the last instruction of the run goes. */
void fwpt_flow_i_resolve(struct fwpt_flow *f)
{
    uint64_t next = f->next_ip, target;
    bool look = false;
    f->resolve_pending = 0;
    if (f->pend_cfe == CFE_BRANCH)
        fwpt_flow_i_cfe_give(f); /* after the returning instruction its CFE named, before the packets of its transfer */
    switch (f->last_class) {
    case FWPT_IC_JCC: {
        int bit = take_tnt(f, FWPT_E_NO_TNT);
        if (bit < 0)
            return;
        f->ip = bit ? f->last_target : next;
        look = !f->tnt_count;
        break;
    }
    case FWPT_IC_JMP_REL:
    case FWPT_IC_CALL_REL:
        if (f->last_class == FWPT_IC_CALL_REL && !(f->last_flags & FWPT_FLOW_BF_ZERO_LEN_CALL))
            push_ret(f, next); /* SDM "Indirect Transfer Compression for Returns (RET)": zero-length calls are not pushed */
        f->ip = f->last_target;
        if (f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD &&
            (f->peek.ip.suppressed ? fwpt_flow_i_filtered_out(f, f->last_target) : f->peek.ip.ip == f->last_target)) {
            /* a direct branch out of the IP filter range: TIP.PGD with its target, or without an IP when
             * the target lies outside the ranges the trace was recorded with (erratum SKL014) */
            struct fwpt_packet pgd = f->peek;
            consume(f);
            fwpt_flow_i_apply_pip_order(f, true);
            fwpt_flow_i_disabled_at(f, &pgd, false, 0);
        }
        break;
    case FWPT_IC_RET: {
        /* SDM "Indirect Transfer Compression for Returns (RET)": a TNT bit means a compressed RET (target from the stack), else a TIP */
        bool compressed = f->tnt_count != 0;
        if (!compressed) {
            if (!fetch_or_cut(f, f->last_ip))
                return;
            compressed = is_tnt(f->peek.type);
        }
        if (compressed) {
            int bit = take_tnt(f, FWPT_E_NO_TNT);
            if (bit < 0)
                return;
            if (!bit) {
                fwpt_flow_i_error(f, FWPT_E_BAD_QUERY, f->last_ip, fwpt_flow_i_cur_offset(f));
                return;
            }
            if (!pop_ret(f, &target)) {
                fwpt_flow_i_error(f, FWPT_E_RETSTACK, f->last_ip, fwpt_flow_i_cur_offset(f));
                return;
            }
            f->ip = target;
            look = !f->tnt_count;
        } else {
            if (!take_tip(f, &target))
                return;
            uint64_t dummy;
            (void)pop_ret(f, &dummy); /* SDM "Indirect Transfer Compression for Returns (RET)" step 3: every near RET pops */
            f->ip = target;
            look = true;
        }
        break;
    }
    case FWPT_IC_CALL_IND:
        push_ret(f, next);
        if (!take_tip(f, &target))
            return;
        f->ip = target;
        look = !f->tnt_count; /* a deferred TIP: the packets after it follow the bits in hand */
        break;
    case FWPT_IC_JMP_IND: case FWPT_IC_FAR_JMP: case FWPT_IC_FAR_CALL: case FWPT_IC_FAR_RET:
    case FWPT_IC_IRET: case FWPT_IC_INT: case FWPT_IC_SYSCALL: case FWPT_IC_SYSRET:
    case FWPT_IC_SYSENTER: case FWPT_IC_SYSEXIT: case FWPT_IC_VMENTRY:
        if (!take_tip(f, &target))
            return;
        f->ip = target;
        look = !f->tnt_count;
        break;
    default: /* OTHER at the block limit, PTWRITE */
        f->ip = next;
        if (f->last_class == FWPT_IC_PTWRITE && f->pend_ptw == 1) {
            fwpt_flow_i_push_ptwrite(f); /* SDM "PTW Packet": written by this PTWRITE */
            look = true;
        } else if (f->last_class == FWPT_IC_MOV_CR3) {
            /* SDM "PIP Packet": a MOV CR3 writes one; with CR3 filtering it may clear ContextEn, and its
             * TIP.PGD carries no branch target (no IP, or the next instruction's) */
            fwpt_flow_i_push_pip(f);
            if (f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD &&
                (f->peek.ip.suppressed || f->peek.ip.ip == next)) {
                struct fwpt_packet pgd = f->peek;
                consume(f);
                fwpt_flow_i_disabled_at(f, &pgd, false, 0);
                return;
            }
            look = true;
        }
        break;
    }
    if (look)
        fwpt_flow_i_lookahead(f);
}
