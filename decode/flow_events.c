/* fwpt — the flow decoder's events: the queue, the events that wait for their FUP or transfer (MODE,
 * PIP, TSX, PTWRITE, power, TRIG, EXSTOP), and Event Trace (CFE, EVD, MODE.Exec IF). */
#include "decode/flow_priv.h"

struct fwpt_flow_event *fwpt_flow_i_evq_push(struct fwpt_flow *f, unsigned kind)
{
    struct fwpt_flow_event *e;
    if (__builtin_expect(f->evq_n == FWPT_FLOW_EVQ, 0)) {
        /* a decoder bug (the loops stop at evq_tight, a step gives at most EVQ_STEP): no queued event is
         * overwritten; this one goes to a scratch slot and the decode fails with FWPT_E_INTERNAL */
        f->evq_overrun = 1;
        fwpt_memset(&f->evq_spill, 0, sizeof f->evq_spill);
        return &f->evq_spill;
    }
    uint32_t k = (f->evq_head + f->evq_n++) % FWPT_FLOW_EVQ;
    e = &f->evq[k];
    if (TIME_ON(f))
        fwpt_flow_i_time_event(f, k);
    fwpt_memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->mode = f->mode;
    return e;
}

/* An event bound to ip (ip_valid: known) and caused by the packet at offset. */
static struct fwpt_flow_event *push_at(struct fwpt_flow *f, unsigned kind, bool ip_valid, uint64_t ip, uint64_t offset)
{
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, kind);
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
    return e;
}

/* A MODE.Exec bound to the TIP/TIP.PGE/FUP+TIP just consumed (SDM "MODE.Exec Packet": it precedes the
 * packet of the transfer that changes the mode, and every TIP.PGE): an event when the code size changed
 * or was not known (at the start, after an OVF), and an IFLAGS event when its IF bit (SDM "Event Trace")
 * changed. A MODE.Exec inside PSB+ is status and set silently (psb_plus). */
static void set_iflag(struct fwpt_flow *f, uint8_t ifl, bool ip_valid, uint64_t ip, uint64_t offset);

void fwpt_flow_i_apply_mode(struct fwpt_flow *f)
{
    if (f->pending_mode) {
        bool changed = !f->mode_known || f->pending_mode != f->mode;
        f->mode = f->pending_mode;
        f->mode_known = 1;
        if (changed) {
            struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_MODE);
            e->offset = fwpt_flow_i_cur_offset(f);
        }
        set_iflag(f, f->pending_if, false, 0, fwpt_flow_i_cur_offset(f));
    }
    f->pending_mode = 0;
}

/* The events a PIP or VMCS describe, at the transfer they bind to (SDM "PIP Packet": it precedes the TIP
 * of the far transfer or VM entry/exit that loaded CR3; "VMCS Packet" likewise). */
void fwpt_flow_i_push_pip(struct fwpt_flow *f)
{
    if (!f->pend_pip)
        return;
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_PAGING);
    e->to = f->pip_cr3;
    e->detail = f->pip_nr;
    e->offset = fwpt_flow_i_cur_offset(f);
    f->pend_pip = 0;
}

/* pip_first: the order libipt gives at a TIP.PGD of the transfer itself (PIP, VMCS, then the disable);
 * elsewhere VMCS comes first. */
void fwpt_flow_i_apply_pip_order(struct fwpt_flow *f, bool pip_first)
{
    if (pip_first)
        fwpt_flow_i_push_pip(f);
    if (f->pend_vmcs) {
        struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_VMCS);
        e->to = f->vmcs_base;
        e->offset = fwpt_flow_i_cur_offset(f);
        f->pend_vmcs = 0;
    }
    fwpt_flow_i_push_pip(f);
}

void fwpt_flow_i_apply_pip(struct fwpt_flow *f) { fwpt_flow_i_apply_pip_order(f, false); }

struct fwpt_flow_event *fwpt_flow_i_push_tsx(struct fwpt_flow *f, uint8_t what, bool ip_valid, uint64_t ip,
                                         uint64_t offset)
{
    struct fwpt_flow_event *e = push_at(f, FWPT_FLOW_TSX, ip_valid, ip, offset);
    e->detail = what;
    f->intx = what == FWPT_TSX_BEGIN;
    return e;
}

void fwpt_flow_i_push_ptwrite(struct fwpt_flow *f)
{
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_PTWRITE);
    e->to = f->ptw_payload;
    e->size = f->ptw_bytes;
    e->ip = f->ptw_ip;
    e->ip_valid = f->ptw_ip_valid;
    e->offset = fwpt_flow_i_cur_offset(f);
    f->pend_ptw = 0;
    f->ptw_ip_valid = 0;
}

/* The PWRE, MWAIT or TRIG held back until now (the flag says whether there is one). */
void fwpt_flow_i_push_pwre(struct fwpt_flow *f, uint64_t offset)
{
    if (!f->pend_pwre)
        return;
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_PWRE);
    e->detail = f->pwre_state;
    e->size = f->pwre_sub;
    e->async = f->pwre_hw;
    e->offset = offset;
    f->pend_pwre = 0;
}

static void push_mwait(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset)
{
    if (!f->pend_mwait)
        return;
    struct fwpt_flow_event *e = push_at(f, FWPT_FLOW_MWAIT, ip_valid, ip, offset);
    e->to = f->mwait_hints;
    f->pend_mwait = 0;
}

void fwpt_flow_i_push_trig(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset)
{
    struct fwpt_flow_event *e = push_at(f, FWPT_FLOW_TRIG, ip_valid, ip, offset);
    e->detail = f->trig_trbv;
    e->async = f->trig_mult;
    f->pend_trig = 0;
}

/* An EXSTOP, with the MWAIT that led to it first and the PWRE after it (the order libipt gives: SDM
 * "Power Event Tracing": MWAIT, PWRE, EXSTOP are written together when a C-state is entered). */
void fwpt_flow_i_push_exstop(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset)
{
    push_mwait(f, ip_valid, ip, offset);
    push_at(f, FWPT_FLOW_EXSTOP, ip_valid, ip, offset);
    f->pend_exstop = 0;
    fwpt_flow_i_push_pwre(f, offset);
}

/* MWAIT and PWRE whose EXSTOP did not come (an OVF, the trace's end): given as they are. */
void fwpt_flow_i_flush_power(struct fwpt_flow *f, uint64_t offset)
{
    if (f->pend_exstop) {
        /* EXSTOP with IP bit whose FUP did not come: libipt gives PWRE, MWAIT, EXSTOP */
        fwpt_flow_i_push_pwre(f, offset);
        fwpt_flow_i_push_exstop(f, false, 0, offset);
        return;
    }
    push_mwait(f, false, 0, offset);
    fwpt_flow_i_push_pwre(f, offset);
}

/* ---- Event Trace (SDM "Event Trace": CFE, EVD, MODE.Exec IF) and TRIG's ICNT ---- */

/* RFLAGS.IF as a MODE.Exec gave it (ifl: 1 + IF): an event when it changed or was not known. */
static void set_iflag(struct fwpt_flow *f, uint8_t ifl, bool ip_valid, uint64_t ip, uint64_t offset)
{
    if (!ifl || ifl == f->iflag)
        return;
    f->iflag = ifl;
    if (!f->iflags_on)
        return;
    struct fwpt_flow_event *e = push_at(f, FWPT_FLOW_IFLAGS, ip_valid, ip, offset);
    e->detail = ifl == 2;
}

/* A MODE.Exec followed by a FUP (SDM "Event Trace": an instruction that changed RFLAGS.IF writes MODE.Exec
 * and a FUP with the IP it binds to): binds there, not to a transfer. */
void fwpt_flow_i_mode_fup_apply(struct fwpt_flow *f, uint64_t ip, uint64_t offset)
{
    f->mode_fup = 0;
    if (!f->mode_known || f->mode != f->mode_fup_mode) {
        f->mode = f->mode_fup_mode;
        struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_MODE);
        e->ip = ip;
        e->ip_valid = 1;
        e->offset = offset;
    }
    f->mode_known = 1;
    set_iflag(f, f->mode_fup_if, true, ip, offset);
}

/* The packet after f->peek when it is a FUP, past PAD and timing packets (MODE.Exec bound to a FUP). */
bool fwpt_flow_i_fup_follows(const struct fwpt_flow *f)
{
    struct fwpt_pkt_decoder d = f->pkt;
    struct fwpt_packet p;
    for (unsigned i = 0; i < 64 && fwpt_pkt_next(&d, &p) == FWPT_OK; i++) {
        switch (p.type) {
        case FWPT_PKT_PAD: case FWPT_PKT_TSC: case FWPT_PKT_MTC: case FWPT_PKT_CYC: case FWPT_PKT_TMA:
            continue;
        default:
            return p.type == FWPT_PKT_FUP;
        }
    }
    return false;
}

/* Event Trace packets that do not fit together (an EVD its CFE does not take, two EVDs of one type, CR2
 * with VMX exit data): libipt's "unexpected packet context". The group cannot be trusted, nor the packets
 * up to the next PSB: the decoder resynchronizes there (as after a packet-level error). */
static void context_error(struct fwpt_flow *f, uint64_t offset)
{
    fwpt_flow_i_drop_pending(f, false);
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_ERROR);
    e->status = FWPT_E_BAD_CONTEXT;
    e->offset = offset;
    f->n_errors++;
    fwpt_flow_i_lost_step(f, offset);
    fwpt_flow_i_reset_walk(f);
    fwpt_flow_i_retstack_clear(f);
    f->have_peek = 0;
    if (TIME_ON(f))
        fwpt_time_reset(&f->time);
    if (fwpt_pkt_sync_set(&f->pkt, offset) != FWPT_OK || fwpt_pkt_sync_forward(&f->pkt) != FWPT_OK)
        f->state = ST_END;
    else
        f->state = ST_UNSYNCED;
}

/* EVD (SDM "EVD Packet"): data for the CFE that follows. Types 0 (CR2), 1 (VMX exit qualification),
 * 2 (VMX exit reason); others are skipped. false: a context error was reported. */
bool fwpt_flow_i_evd_packet(struct fwpt_flow *f, const struct fwpt_packet *p)
{
    if (p->evd.type > 2)
        return true;
    uint8_t bit = (uint8_t)(1u << p->evd.type);
    bool vmx = bit != FWPT_EVD_CR2;
    if ((f->evd_mask & bit) || (f->evd_mask & (vmx ? FWPT_EVD_CR2 : FWPT_EVD_VMXQ | FWPT_EVD_VMXR))) {
        context_error(f, p->offset);
        return false;
    }
    f->evd_mask |= bit;
    f->evd[p->evd.type] = p->evd.payload;
    return true;
}

/* The pending CFE, with the IP when one is known. */
void fwpt_flow_i_cfe_give(struct fwpt_flow *f)
{
    if (!f->pend_cfe)
        return;
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_CFE);
    *e = f->cfe_ev;
    e->mode = f->mode;
    f->pend_cfe = CFE_NONE;
}

/* CFE (SDM "CFE Packet"): the EVDs before it are its data (CR2 for INTR; exit qualification and reason for
 * VMEXIT and VMEXIT_INTR); IP bit: a FUP follows with the IP it binds to. false: a context error. */
bool fwpt_flow_i_cfe_packet(struct fwpt_flow *f, const struct fwpt_packet *p, bool walking)
{
    uint8_t allowed = p->cfe.type == FWPT_CFE_INTR ? FWPT_EVD_CR2
                      : (p->cfe.type == FWPT_CFE_VMEXIT || p->cfe.type == FWPT_CFE_VMEXIT_INTR)
                          ? FWPT_EVD_VMXQ | FWPT_EVD_VMXR : 0;
    if (f->evd_mask & ~allowed) {
        context_error(f, p->offset);
        return false;
    }
    fwpt_flow_i_cfe_give(f); /* an earlier one whose FUP or transfer did not come */
    struct fwpt_flow_event *e = &f->cfe_ev;
    fwpt_memset(e, 0, sizeof *e);
    e->kind = FWPT_FLOW_CFE;
    e->detail = p->cfe.type;
    e->size = p->cfe.vector;
    e->status = f->evd_mask;
    e->to = (f->evd_mask & FWPT_EVD_CR2) ? f->evd[0] : f->evd[1];
    e->data = f->evd[2];
    e->offset = p->offset;
    f->evd_mask = 0;
    f->pend_cfe = p->cfe.ip ? CFE_FUP : CFE_NEXT;
    if (!walking && !p->cfe.ip)
        fwpt_flow_i_cfe_give(f); /* tracing is off: nothing to bind to */
    return true;
}

/* The CFE's FUP was reached (walking) or read (!walking) at ip. Returns true when that FUP is the CFE's
 * alone: an IRET, RSM, VM entry or UIRET names the instruction that returns, which executes; the event
 * follows it, before its transfer. Others (an interrupt, VM exit) share the FUP with the transfer. */
bool fwpt_flow_i_cfe_fup(struct fwpt_flow *f, bool walking, uint64_t ip)
{
    uint8_t t = f->cfe_ev.detail;
    f->cfe_ev.ip = ip;
    f->cfe_ev.ip_valid = 1;
    if (walking && (t == FWPT_CFE_IRET || t == FWPT_CFE_RSM || t == FWPT_CFE_VMENTRY || t == FWPT_CFE_UIRET)) {
        f->pend_cfe = CFE_BRANCH;
        return true;
    }
    fwpt_flow_i_cfe_give(f);
    return !walking;
}

static void trig_drop(struct fwpt_flow *f, uint32_t k)
{
    for (uint32_t i = k; i < f->ntrig; i++)
        f->trig_q[i - k] = f->trig_q[i];
    f->ntrig = (uint8_t)(f->ntrig - k);
}

/* TRIG with ICNT and no IP (SDM "TRIG Packet": ICNT instructions retired since the packet before it): the
 * walk is where the packet before it was written (lookahead reads it there), or a TRIG still waiting is. */
void fwpt_flow_i_trig_place(struct fwpt_flow *f, const struct fwpt_packet *p)
{
    if (f->ntrig == sizeof f->trig_q / sizeof f->trig_q[0]) {
        /* cannot happen in a consistent trace: give the oldest where the walk is */
        f->trig_trbv = f->trig_q[0].trbv;
        f->trig_mult = f->trig_q[0].mult;
        fwpt_flow_i_push_trig(f, true, f->ip, f->trig_q[0].offset);
        trig_drop(f, 1);
    }
    uint64_t base = f->ntrig ? f->trig_q[f->ntrig - 1].at : f->n_insns;
    if (!f->ntrig && !p->trig.icnt) {
        f->trig_trbv = p->trig.trbv;
        f->trig_mult = p->trig.mult;
        fwpt_flow_i_push_trig(f, true, f->ip, p->offset);
        return;
    }
    f->trig_q[f->ntrig].at = base + p->trig.icnt;
    f->trig_q[f->ntrig].offset = p->offset;
    f->trig_q[f->ntrig].trbv = p->trig.trbv;
    f->trig_q[f->ntrig].mult = p->trig.mult;
    f->ntrig++;
}

/* The TRIGs whose instructions have retired (all: flush), before the instruction at f->ip. */
void fwpt_flow_i_trig_due(struct fwpt_flow *f, bool flush)
{
    uint32_t k = 0;
    while (k < f->ntrig && (flush || f->trig_q[k].at <= f->n_insns)) {
        f->trig_trbv = f->trig_q[k].trbv;
        f->trig_mult = f->trig_q[k].mult;
        fwpt_flow_i_push_trig(f, !flush, f->ip, f->trig_q[k].offset);
        k++;
    }
    trig_drop(f, k);
}

uint8_t fwpt_flow_i_tsx_what(const struct fwpt_packet *p)
{
    return p->mode_tsx.abrt ? FWPT_TSX_ABORT : p->mode_tsx.intx ? FWPT_TSX_BEGIN : FWPT_TSX_COMMIT;
}
