/* fwpt — comparing two flow decoders' states (fwpt_flow_seam_compare, include/fwpt/flow.h). Each field of
 * struct fwpt_flow is either compared or left out for the reason given; a new field must be placed in one or the
 * other (the size check at the end fails until then). */
#include "base/text.h"
#include "decode/flow_priv.h"

/* The packet each holds next: the same bytes at the same offset, read with the same Last IP. */
static bool same_packet(const struct fwpt_packet *a, const struct fwpt_packet *b)
{
    if (a->offset != b->offset || a->type != b->type || a->size != b->size)
        return false;
    switch (a->type) {
    case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64:
        return a->tnt.count == b->tnt.count && a->tnt.bits == b->tnt.bits;
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        return a->ip.ipc == b->ip.ipc && a->ip.suppressed == b->ip.suppressed && a->ip.ip == b->ip.ip &&
               a->ip.payload == b->ip.payload;
    default:
        return false; /* the summary walk stops with a TNT or TIP there */
    }
}

#define SAME(x) (a->x == b->x)

enum fwpt_flow_seam fwpt_flow_seam_compare(const struct fwpt_flow *a, const struct fwpt_flow *b)
{
    /* the packet decoder: at the same offset with the same Last IP (SDM "Last IP": reset at PSB, then set by
     * the IP packets after it, which both read). Its fast path state (lean, windows, trials) is speed only;
     * sync_offset matters only to a search that starts at it, so neither may be there. */
    if (!SAME(pkt.buf) || !SAME(pkt.len) || !SAME(pkt.total) || !SAME(pkt.segs) || !SAME(pkt.offset) ||
        !SAME(pkt.last_ip) || !SAME(pkt.block_item_bytes) || !SAME(pkt.errata) ||
        a->pkt.offset == a->pkt.sync_offset || b->pkt.offset == b->pkt.sync_offset)
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (!SAME(have_peek) || (a->have_peek && !same_packet(&a->peek, &b->peek)))
        return FWPT_FLOW_SEAM_DIFFERENT;
    /* what the decoders were set up with (read, read_ctx: the caller's code; cache, scratch: speed only) */
    if (!SAME(runaway_limit) || !SAME(iflags_on) || !SAME(n_filter) ||
        fwpt_memcmp(&a->errata, &b->errata, sizeof a->errata) ||
        fwpt_memcmp(a->filter, b->filter, a->n_filter * sizeof a->filter[0]))
        return FWPT_FLOW_SEAM_DIFFERENT;
    /* the walk: the block end it resolves next. since_packet is left out: the branch there takes the packet in
     * peek and sets it to 0. n_insns counts only for TRIGs placed by ICNT: none waits (ntrig). ip, the start of
     * that block, is left out: the resolution sets it before anything reads it (its packet is in peek, so no
     * packet error reports it), and a walk that synchronized at a PSB+ FUP inside the block starts there */
    if (!SAME(state) || !SAME(resolve_pending) || !a->resolve_pending || !SAME(last_ip) || !SAME(last_target) ||
        !SAME(next_ip) || !SAME(last_class) || !SAME(last_flags) || !SAME(tnt_count) || !SAME(mode) ||
        !SAME(mode_known) || !SAME(pending_mode) || (a->pending_mode && !SAME(pending_if)) || !SAME(iflag) ||
        !SAME(intx) || !SAME(cut) || !SAME(end_seen) || !SAME(look_pending) || !SAME(ovf_open) || !SAME(err_open))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (a->tnt_count && !SAME(tnt_bits))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (!SAME(fup_pending) || (a->fup_pending && (!SAME(stop_ip) || !SAME(stop_offset))))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (a->ovf_open && (!SAME(ovf_pushed) || !SAME(ovf_offset)))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (a->err_open && !SAME(err_offset))
        return FWPT_FLOW_SEAM_DIFFERENT;
    /* events waiting to be given (the queue, and the packets that bind later) */
    if (a->evq_n || b->evq_n || !SAME(ntrig) || a->ntrig || !SAME(pend_cfe) || a->pend_cfe)
        return FWPT_FLOW_SEAM_DIFFERENT;
    /* a decoder that lost an event stops (FWPT_E_INTERNAL); the pieces are walked without time (the walk with
     * time is one thread: fwpt flow --by time) */
    if (a->evq_overrun || b->evq_overrun || a->time_on || b->time_on)
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (!SAME(pend_tsx) || !SAME(pend_exstop) || !SAME(pend_ptw) || !SAME(pend_pip) || !SAME(pend_vmcs) ||
        !SAME(pend_mwait) || !SAME(pend_pwre) || !SAME(pend_trig) || !SAME(evd_mask) || !SAME(mode_fup))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if (a->pend_ptw && (!SAME(ptw_payload) || !SAME(ptw_bytes) || !SAME(ptw_ip_valid) || !SAME(ptw_ip)))
        return FWPT_FLOW_SEAM_DIFFERENT;
    if ((a->pend_pip && (!SAME(pip_cr3) || !SAME(pip_nr))) || (a->pend_vmcs && !SAME(vmcs_base)) ||
        (a->pend_mwait && !SAME(mwait_hints)) ||
        (a->pend_pwre && (!SAME(pwre_state) || !SAME(pwre_sub) || !SAME(pwre_hw))) ||
        (a->pend_trig && (!SAME(trig_trbv) || !SAME(trig_mult))) ||
        (a->mode_fup && (!SAME(mode_fup_mode) || !SAME(mode_fup_if))))
        return FWPT_FLOW_SEAM_DIFFERENT;
    for (unsigned i = 0; i < 3; i++)
        if ((a->evd_mask & (1u << i)) && !SAME(evd[i]))
            return FWPT_FLOW_SEAM_DIFFERENT;
    /* Left out: cut_ip (with cut, both 0 here: walking); evq contents, cfe_ev, trig_q (nothing waits there);
     * resume_valid, resume_ip (a disable sets them before any use); psb_resume and its psb_* (a flow error
     * resumes there only before the next branch packet is taken: the one in peek, which the branch here takes);
     * run_full, oidx, on, obuf_mode, obuf (fwpt_flow_next's buffer, the summary walk does not use it);
     * bytes_skipped, n_errors, cache_hits, cache_misses, n_insns (counts); evq_spill (with evq_overrun only); the time
 * state t_*, time, tmk, tmk_n, evq_tsc, evq_tok and obuf_base (time is off in both, checked above). */
    /* RET compression (SDM "Indirect Transfer Compression for Returns (RET)"): a keeps the calls from before
     * the PSB, which the processor does not compress RETs against; b's entries must be a's newest */
    if (b->retstack_n > a->retstack_n)
        return FWPT_FLOW_SEAM_DIFFERENT;
    for (uint32_t i = 0; i < b->retstack_n; i++)
        if (a->retstack[(a->retstack_top - 1 - i) % FWPT_FLOW_RETSTACK] !=
            b->retstack[(b->retstack_top - 1 - i) % FWPT_FLOW_RETSTACK])
            return FWPT_FLOW_SEAM_DIFFERENT;
    return a->retstack_n == b->retstack_n ? FWPT_FLOW_SEAM_SAME : FWPT_FLOW_SEAM_SAME_STACK_TOP;
}

_Static_assert(sizeof(struct fwpt_flow) == 17720, "struct fwpt_flow changed: decide how fwpt_flow_seam_compare treats the "
                                                 "new field, then update this size");
_Static_assert(sizeof(struct fwpt_pkt_decoder) == 912, "struct fwpt_pkt_decoder changed: see fwpt_flow_seam_compare");
