/* fwpt — the flow decoder's errors and how it finds its way again: flow and packet errors, the search
 * for an IP after one, and the bytes the errors cost. */
#include "decode/flow_priv.h"

void fwpt_flow_i_retstack_clear(struct fwpt_flow *f) { f->retstack_n = 0; }

uint64_t fwpt_flow_i_cur_offset(const struct fwpt_flow *f)
{
    return f->have_peek ? f->peek.offset : f->pkt.offset;
}

void fwpt_flow_i_reset_walk(struct fwpt_flow *f)
{
    f->tnt_count = 0;
    f->fup_pending = 0;
    f->resolve_pending = 0;
    f->since_packet = 0;
}

/* A flow error: report it, then resume at the next IP packet. */
/* After an error the trace is read without a walk until an IP packet or PSB+ gives the IP again:
 * those bytes are what the error cost (fwpt_flow_bytes_skipped). */
void fwpt_flow_i_lost_step(struct fwpt_flow *f, uint64_t offset)
{
    if (!f->err_open) {
        f->err_open = 1;
        f->err_offset = offset;
    }
}

static void regained_step(struct fwpt_flow *f, uint64_t offset)
{
    if (f->err_open) {
        f->err_open = 0;
        f->bytes_skipped += offset > f->err_offset ? offset - f->err_offset : 0;
    }
}

uint64_t fwpt_flow_bytes_skipped(const struct fwpt_flow *f)
{
    return f->bytes_skipped + (f->err_open && f->pkt.total > f->err_offset ? f->pkt.total - f->err_offset : 0);
}

void fwpt_flow_i_drop_pending(struct fwpt_flow *f, bool keep_fup)
{
    if (!keep_fup || f->pend_cfe != CFE_FUP)
        f->pend_cfe = f->evd_mask = 0;
    if (!keep_fup) /* what binds to the pending FUP (SDM "Packet relationships"): given when the walk reaches it */
        f->pend_tsx = f->pend_exstop = f->pend_trig = f->mode_fup = 0;
    f->pend_ptw = f->pend_pip = f->pend_vmcs = f->pend_mwait = f->pend_pwre = 0;
    f->ntrig = 0;
    f->resume_valid = f->look_pending = f->ovf_open = 0;
}

void fwpt_flow_i_enter_walk(struct fwpt_flow *f, uint64_t ip)
{
    regained_step(f, f->pkt.offset);
    f->ip = ip;
    f->state = ST_WALK;
    fwpt_flow_i_reset_walk(f);
    f->psb_resume = 0;
}

/* The walk goes on at ip, where a packet (consumed) sets it going (TIP.PGE, a TIP, an overflow's end): the
 * MODE.Exec that waited for it applies (e, the event the packet gives, if any, takes that mode), then the lookahead. */
void fwpt_flow_i_walk_from(struct fwpt_flow *f, struct fwpt_flow_event *e, uint64_t ip)
{
    fwpt_flow_i_apply_mode(f);
    if (e)
        e->mode = f->mode;
    fwpt_flow_i_enter_walk(f, ip);
    fwpt_flow_i_lookahead(f);
}

/* A flow error: report it, then resume where the state is known again. That is the first of what the
 * walk had already read ahead: a PSB+ with FUP whose IP the walk has not reached (SDM "Decoder
 * Synchronization (PSB+)": the FUP is the IP at the PSB), then a FUP not yet reached (with the TSX
 * change bound to it). Otherwise the next IP packet or PSB+ (search_step). */
void fwpt_flow_i_error(struct fwpt_flow *f, enum fwpt_status s, uint64_t ip, uint64_t offset)
{
    bool fup = f->fup_pending;
    uint64_t fup_ip = f->stop_ip, fup_off = f->stop_offset;
    bool psb = f->psb_resume && fwpt_flow_i_cur_offset(f) <= f->psb_branch_at && !fwpt_flow_i_passed_on_the_way(f, f->psb_from, f->psb_ip);
    uint64_t psb_ip = f->psb_ip;
    uint8_t psb_mode = f->psb_mode;
    fwpt_flow_i_drop_pending(f, fup);
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_ERROR);
    e->status = s;
    e->ip = ip;
    e->ip_valid = 1;
    e->offset = offset;
    f->n_errors++;
    fwpt_flow_i_lost_step(f, offset);
    fwpt_flow_i_reset_walk(f);
    fwpt_flow_i_retstack_clear(f);
    f->state = ST_SEARCH;
    f->psb_resume = 0;
    if (psb) {
        if (psb_mode)
            f->mode = psb_mode;
        fwpt_flow_i_enter_walk(f, psb_ip);
    } else if (fup) {
        fwpt_flow_i_enter_walk(f, fup_ip);
    }
    if (fup) {
        f->fup_pending = 1; /* reached when the walk gets there, with what binds to it, as before the error */
        f->stop_ip = fup_ip;
        f->stop_offset = fup_off;
    }
}

/* A packet-level error: report it, then resume at the next PSB. */
void fwpt_flow_i_packet_error(struct fwpt_flow *f, enum fwpt_status s)
{
    fwpt_flow_i_drop_pending(f, false);
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_ERROR);
    e->status = s;
    e->ip = f->ip;
    e->ip_valid = f->state == ST_WALK;
    e->offset = f->pkt.offset;
    f->n_errors++;
    fwpt_flow_i_lost_step(f, f->pkt.offset);
    fwpt_flow_i_reset_walk(f);
    fwpt_flow_i_retstack_clear(f);
    f->have_peek = 0;
    if (TIME_ON(f))
        fwpt_time_reset(&f->time); /* the decode starts again at a PSB, as libipt's does */
    size_t at = f->pkt.offset;
    /* the first PSB at or after at + 1 (packet.h: sync_set(N - 1), then sync_forward): one right
     * after a one-byte corrupt packet counts */
    if (fwpt_pkt_sync_set(&f->pkt, at) != FWPT_OK || fwpt_pkt_sync_forward(&f->pkt) != FWPT_OK)
        f->state = ST_END;
    else
        f->state = ST_UNSYNCED;
}

/* ---- states without an IP ---- */

void fwpt_flow_i_search_step(struct fwpt_flow *f)
{
    if (f->ovf_open) {
        fwpt_flow_i_overflow_resolve(f, NULL); /* it stopped to let the event queue drain */
        return;
    }
    if (!fetch_or_end(f))
        return;
    struct fwpt_packet *p = &f->peek;
    struct fwpt_flow_event *e;
    switch (p->type) {
    case FWPT_PKT_PSB:
        fwpt_flow_i_psb_plus(f);
        break;
    case FWPT_PKT_OVF:
        fwpt_flow_i_overflow(f);
        break;
    case FWPT_PKT_TIP_PGE:
        if (p->ip.suppressed) {
            consume(f);
            break;
        }
        if (f->state != ST_DISABLED)
            fwpt_flow_i_retstack_clear(f);
        if (f->state == ST_SEARCH) {
            /* lost after an error: a TIP.PGE says tracing had been disabled somewhere in what was lost
             * (SDM "TIP.PGE Packet": generated when PacketEn goes from 0 to 1) */
            e = fwpt_flow_i_evq_push(f, FWPT_FLOW_DISABLED);
            e->offset = p->offset;
        }
        e = fwpt_flow_i_evq_push(f, FWPT_FLOW_ENABLED);
        e->ip = p->ip.ip;
        e->ip_valid = 1;
        e->offset = p->offset;
        e->detail = f->state == ST_DISABLED && f->resume_valid && f->resume_ip == p->ip.ip; /* resumed */
        f->resume_valid = 0;
        consume(f);
        fwpt_flow_i_walk_from(f, e, e->ip);
        break;
    case FWPT_PKT_TIP:
        if (f->state == ST_SEARCH && !p->ip.suppressed) {
            /* after an error: the target of some transfer is a place to resume */
            uint64_t ip = p->ip.ip;
            consume(f);
            fwpt_flow_i_walk_from(f, NULL, ip);
            break;
        }
        consume(f);
        break;
    case FWPT_PKT_TIP_PGD:
        if (f->state == ST_SEARCH) {
            /* lost after an error: tracing turned off here; the state is known again (disabled) */
            struct fwpt_packet pgd = *p;
            consume(f);
            regained_step(f, pgd.offset);
            fwpt_flow_i_disabled_at(f, &pgd, false, 0);
            f->resume_valid = !pgd.ip.suppressed;
            fwpt_flow_i_apply_pip(f);
            break;
        }
        consume(f);
        break;
    case FWPT_PKT_FUP:
        if (f->state == ST_SEARCH && !p->ip.suppressed && !f->pend_trig && !f->pend_exstop) {
            /* lost after an error: a FUP gives the IP where the processor was (SDM "FUP Packet"), so the
             * walk resumes there with the FUP pending, as if it had just reached it: an asynchronous
             * transfer (FUP+TIP), a disable (FUP+TIP.PGD), a TSX change or a PTWRITE bound to it is then
             * taken as when walking */
            uint64_t ip = p->ip.ip;
            if (f->pend_ptw == 2) {
                fwpt_flow_i_fup_of_status(f, true); /* the PTWRITE at ip: its event after that instruction */
                fwpt_flow_i_enter_walk(f, ip);
            } else {
                fwpt_flow_i_enter_walk(f, ip);
                f->fup_pending = 1;
                f->stop_ip = ip;
                f->stop_offset = p->offset;
                if (TIME_ON(f))
                    fwpt_flow_i_time_fup(f);
                consume(f);
            }
            if (!f->fup_pending)
                fwpt_flow_i_lookahead(f);
            break;
        }
        if (!fwpt_flow_i_fup_of_status(f, false))
            consume(f);
        break;
    case FWPT_PKT_MODE_TSX:
        if (f->state == ST_SEARCH && fwpt_flow_i_next_control(f, true) == FWPT_PKT_FUP) {
            f->pend_tsx = fwpt_flow_i_tsx_what(p); /* binds at its FUP, where the walk resumes */
            consume(f);
            break;
        }
        fwpt_flow_i_side_packet(f, false);
        break;
    default:
        fwpt_flow_i_side_packet(f, false);
        break;
    }
}
