/* fwpt — the packets the flow decoder meets between branches: side packets, PSB+, OVF, the lookahead
 * after each branch packet, TIP.PGD, and the FUPs the walk reaches. */
#include "decode/flow_priv.h"

/* Outside every IP filter range (SDM "IP Filtering": FilterEn is 1 only inside a range). */
bool fwpt_flow_i_filtered_out(const struct fwpt_flow *f, uint64_t ip)
{
    if (!f->n_filter)
        return false;
    for (uint32_t i = 0; i < f->n_filter; i++)
        if (ip >= f->filter[i][0] && ip <= f->filter[i][1])
            return false;
    return true;
}

/* A packet in f->peek that moves no IP by itself, met while walking (walking) or while tracing is off
 * or the decoder looks for an IP (!walking): MODE.TSX, EXSTOP and PTW may wait for their FUP (SDM
 * "Packet relationships"), PIP and VMCS for their transfer; TraceStop is an event; timing packets,
 * PAD, MNT and the rest are status. Consumes the packet unless it must wait behind an earlier one
 * (returns false: stop looking ahead until that one has bound). */
bool fwpt_flow_i_side_packet(struct fwpt_flow *f, bool walking)
{
    const struct fwpt_packet *p = &f->peek;
    struct fwpt_flow_event *e;
    switch (p->type) {
    case FWPT_PKT_MODE_EXEC:
        if (p->mode_exec.mode && fwpt_flow_i_fup_follows(f)) {
            f->mode_fup = 1; /* RFLAGS.IF changed at the FUP's IP (Event Trace) */
            f->mode_fup_mode = p->mode_exec.mode;
            f->mode_fup_if = (uint8_t)(1 + p->mode_exec.iflag);
        } else if (p->mode_exec.mode) {
            f->pending_mode = p->mode_exec.mode;
            f->pending_if = (uint8_t)(1 + p->mode_exec.iflag);
        }
        break;
    case FWPT_PKT_EVD:
        if (!fwpt_flow_i_evd_packet(f, p))
            return true;
        break;
    case FWPT_PKT_CFE:
        if (!fwpt_flow_i_cfe_packet(f, p, walking))
            return true;
        break;
    case FWPT_PKT_MODE_TSX:
        if (walking)
            f->pend_tsx = fwpt_flow_i_tsx_what(p); /* binds at the FUP that follows */
        else
            fwpt_flow_i_push_tsx(f, fwpt_flow_i_tsx_what(p), false, 0, p->offset);
        break;
    case FWPT_PKT_EXSTOP:
        if (p->exstop.ip)
            f->pend_exstop = 1; /* its FUP follows */
        else
            fwpt_flow_i_push_exstop(f, false, 0, p->offset);
        break;
    case FWPT_PKT_MWAIT:
        f->pend_mwait = 1;
        f->mwait_hints = p->mwait.hints | (uint64_t)p->mwait.ext << 32;
        break;
    case FWPT_PKT_PWRE:
        f->pwre_state = p->pwre.state;
        f->pwre_sub = p->pwre.sub_state;
        f->pwre_hw = p->pwre.hw;
        f->pend_pwre = 1;
        if (!walking && !f->pend_mwait)
            fwpt_flow_i_push_pwre(f, p->offset);
        break;
    case FWPT_PKT_PWRX:
        if (!f->pend_exstop)
            fwpt_flow_i_push_pwre(f, p->offset); /* the PWRE of a C-state entered without EXSTOP */
        e = fwpt_flow_i_evq_push(f, FWPT_FLOW_PWRX);
        e->detail = p->pwrx.last;
        e->size = p->pwrx.deepest;
        e->status = p->pwrx.wake_reason;
        e->offset = p->offset;
        break;
    case FWPT_PKT_TRIG:
        /* SDM "TRIG Packet": with IP, the FUP that follows gives the IP it binds to; with ICNT, that many
         * instructions after the packet before it; else it binds where the walk is */
        if (walking && !p->trig.ip && p->trig.icntv) {
            fwpt_flow_i_trig_place(f, p);
            break;
        }
        f->trig_trbv = p->trig.trbv;
        f->trig_mult = p->trig.mult;
        f->pend_trig = 1;
        if (!p->trig.ip)
            fwpt_flow_i_push_trig(f, false, 0, p->offset);
        break;
    case FWPT_PKT_CBR:
        e = fwpt_flow_i_evq_push(f, FWPT_FLOW_CBR);
        e->detail = p->cbr.ratio;
        e->offset = p->offset;
        break;
    case FWPT_PKT_MNT:
        e = fwpt_flow_i_evq_push(f, FWPT_FLOW_MNT);
        e->to = p->mnt.payload;
        e->offset = p->offset;
        break;
    case FWPT_PKT_PTW:
        if (f->pend_ptw) {
            if (walking)
                return false;
            fwpt_flow_i_push_ptwrite(f); /* the FUP it announced did not come */
        }
        f->pend_ptw = p->ptw.ip ? 2 : 1;
        f->ptw_payload = p->ptw.payload;
        f->ptw_bytes = p->ptw.bytes;
        f->ptw_ip_valid = 0;
        if (!walking && !p->ptw.ip) {
            consume(f);
            fwpt_flow_i_push_ptwrite(f);
            return true;
        }
        break;
    case FWPT_PKT_PIP:
        if (walking && f->pend_pip)
            return false; /* the MOV CR3 or transfer the earlier one describes comes first */
        f->pip_cr3 = p->pip.cr3;
        f->pip_nr = p->pip.nr;
        f->pend_pip = 1;
        if (!walking)
            fwpt_flow_i_apply_pip(f);
        break;
    case FWPT_PKT_VMCS:
        f->vmcs_base = p->vmcs.base;
        f->pend_vmcs = 1;
        if (!walking)
            fwpt_flow_i_apply_pip(f);
        break;
    case FWPT_PKT_STOP:
        e = fwpt_flow_i_evq_push(f, FWPT_FLOW_STOPPED);
        e->offset = p->offset;
        break;
    default:
        break;
    }
    consume(f);
    return true;
}

/* A FUP that belongs to an EXSTOP or PTW with the IP bit (not an asynchronous transfer): true when it
 * was taken here (consumed). !walking: the event is given at once. */
bool fwpt_flow_i_fup_of_status(struct fwpt_flow *f, bool walking)
{
    const struct fwpt_packet *p = &f->peek;
    if (!walking && !p->ip.suppressed && (f->mode_fup || f->pend_cfe == CFE_FUP)) {
        if (f->mode_fup)
            fwpt_flow_i_mode_fup_apply(f, p->ip.ip, p->offset);
        if (f->pend_cfe == CFE_FUP)
            fwpt_flow_i_cfe_fup(f, false, p->ip.ip);
        consume(f);
        return true;
    }
    if (f->pend_trig && !walking) {
        fwpt_flow_i_push_trig(f, !p->ip.suppressed, p->ip.ip, p->offset);
        consume(f);
        return true;
    }
    if (f->pend_ptw == 2) {
        f->ptw_ip = p->ip.ip;
        f->ptw_ip_valid = !p->ip.suppressed;
        f->pend_ptw = 1;
        consume(f);
        if (!walking)
            fwpt_flow_i_push_ptwrite(f);
        return true;
    }
    if (f->pend_exstop && !walking) {
        fwpt_flow_i_push_exstop(f, !p->ip.suppressed, p->ip.ip, p->offset);
        consume(f);
        return true;
    }
    return false;
}



/* PSB+ (SDM "Decoder Synchronization (PSB+)"): status up to PSBEND. The PSB itself is consumed. */
/* After a PSB+ with a FUP while tracing was off: is the next packet that is not status or timing a
 * TIP.PGE? Then the FUP did not mean "tracing is on at this IP" (a TIP.PGE can only follow a time when
 * PacketEn was 0), the processor wrote it anyway: erratum BDM70 (PSB+ may contain FUP and MODE.Exec
 * ahead of a TIP.PGE). Decided from the packets, so the workaround needs no CPU model. */
/* The type of the next packet that is not status or timing (PSB and PSBEND included: a PSB+ without
 * FUP is status), looking past f->peek when skip_peek; FWPT_PKT_NONE at the end or on an error. */
uint8_t fwpt_flow_i_next_control(const struct fwpt_flow *f, bool skip_peek)
{
    struct fwpt_pkt_decoder d = f->pkt;
    struct fwpt_packet p;
    bool first = f->have_peek && !skip_peek;
    for (unsigned i = 0; i < 256; i++) {
        if (first)
            p = f->peek;
        else if (fwpt_pkt_next(&d, &p) != FWPT_OK)
            return FWPT_PKT_NONE;
        first = false;
        switch (p.type) {
        case FWPT_PKT_PAD: case FWPT_PKT_TSC: case FWPT_PKT_MTC: case FWPT_PKT_CYC: case FWPT_PKT_CBR:
        case FWPT_PKT_TMA: case FWPT_PKT_MNT: case FWPT_PKT_PIP: case FWPT_PKT_VMCS:
        case FWPT_PKT_MODE_EXEC: case FWPT_PKT_MODE_TSX: case FWPT_PKT_PSB: case FWPT_PKT_PSBEND:
            continue;
        default:
            return p.type;
        }
    }
    return FWPT_PKT_NONE;
}

static bool pge_follows(const struct fwpt_flow *f) { return fwpt_flow_i_next_control(f, false) == FWPT_PKT_TIP_PGE; }

/* SKD007: an OVF written over the second byte of a multi-byte CYC reads as a 2-byte CYC whose second
 * byte is the OVF's 02h, followed by the OVF's F3h as a 1-byte CYC. With f->peek at the first CYC: true
 * (both CYCs consumed, f->peek made the OVF at its offset) when the bytes are that. */
static bool skd007_ovf(struct fwpt_flow *f)
{
    uint8_t b[3];
    if (f->peek.size != 2 || !fwpt_pkt_skd007_ovf(b, fwpt_pkt_bytes(&f->pkt, f->peek.offset, b, sizeof b)))
        return false;
    struct fwpt_packet cyc2;
    if (fwpt_pkt_next(&f->pkt, &cyc2) != FWPT_OK)
        return false;
    f->peek.type = FWPT_PKT_OVF;
    f->peek.offset += 1;
    f->peek.size = 2;
    return true;
}

void fwpt_flow_i_psb_plus(struct fwpt_flow *f)
{
    uint64_t psb_off = f->peek.offset;
    bool have_fup = false;
    uint64_t fup_ip = 0;
    uint8_t mode = 0, ifl = 0;
    int intx = -1;
    consume(f);
    for (;;) {
        enum fwpt_status s = fetch(f);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK)
            return;
        uint8_t t = f->peek.type;
        if (t == FWPT_PKT_PSBEND) {
            consume(f);
            break;
        }
        if (evq_tight(f))
            break; /* its MNTs filled the queue: the rest of the PSB+ is read as status after it */
        if (t == FWPT_PKT_FUP && have_fup) {
            break; /* PSB+ holds one FUP: a second one is past a PSB+ that has no PSBEND */
        } else if (t == FWPT_PKT_FUP && !f->peek.ip.suppressed) {
            have_fup = true;
            fup_ip = f->peek.ip.ip;
        } else if (t == FWPT_PKT_MODE_EXEC && f->peek.mode_exec.mode) {
            mode = f->peek.mode_exec.mode;
            ifl = (uint8_t)(1 + f->peek.mode_exec.iflag);
        } else if (t == FWPT_PKT_MODE_TSX) {
            intx = f->peek.mode_tsx.intx;
        } else if (t == FWPT_PKT_MNT) {
            fwpt_flow_i_side_packet(f, false); /* MNT is an event wherever it stands */
            continue;
        } else if (t == FWPT_PKT_CYC && f->errata.skd007 && skd007_ovf(f)) {
            break; /* an OVF ends the PSB+: the caller takes it */
        } else if (t == FWPT_PKT_PSB || is_tnt(t) ||
                   t == FWPT_PKT_TIP || t == FWPT_PKT_TIP_PGE || t == FWPT_PKT_TIP_PGD ||
                   t == FWPT_PKT_OVF) {
            break; /* PSB+ without PSBEND: leave the packet for the caller */
        }
        consume(f);
    }
    if (f->state == ST_WALK && have_fup && mode && mode != f->mode && mode != f->pending_mode) {
        /* PSB+ gives the execution mode as it is at the PSB (SDM "Decoder Synchronization (PSB+)"); the
         * walk decoded in another one, so a MODE.Exec was lost or the code is not what ran. The PSB+'s
         * FUP cannot be bound to the walk either: resume at the next IP packet or PSB+ */
        f->psb_resume = 0;
        fwpt_flow_i_error(f, FWPT_E_BAD_STATUS, fup_ip, psb_off);
        f->mode = mode;
        return;
    }
    /* status (SDM "Decoder Synchronization (PSB+)"): the state as it is, no event of its own */
    if (mode) {
        f->mode = mode;
        f->mode_known = 1;
        f->iflag = ifl; /* status: IF as it is (SDM "Event Trace"), no event */
    }
    if (intx >= 0 && (uint8_t)intx != f->intx)
        fwpt_flow_i_push_tsx(f, intx ? FWPT_TSX_BEGIN : FWPT_TSX_COMMIT, false, 0, psb_off)->sync = 1;
    if (f->state == ST_WALK) {
        if (TIME_ON(f) && mode)
            fwpt_flow_i_time_psb(f, have_fup, fup_ip);
        /* in sync: PSB+ is status only. Its FUP is where the walk will be at the PSB: should an error
         * come before the walk takes its next branch packet, the walk resumes there (fwpt_flow_i_error) */
        if (have_fup && !f->tnt_count && !f->fup_pending) {
            f->psb_resume = 1;
            f->psb_ip = fup_ip;
            f->psb_mode = mode;
            f->psb_from = f->ip;
            f->psb_branch_at = ~(uint64_t)0;
        }
        return;
    }
    if (have_fup && pge_follows(f))
        have_fup = false; /* BDM70: tracing is off, the TIP.PGE turns it on */
    if (have_fup) {
        f->resume_valid = 0;
        /* PacketEn=1 at the PSB: synchronized at the FUP IP */
        fwpt_flow_i_retstack_clear(f);
        fwpt_flow_i_enter_walk(f, fup_ip);
        struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_ENABLED);
        e->ip = fup_ip;
        e->ip_valid = 1;
        e->sync = 1;
        e->offset = psb_off;
        fwpt_flow_i_lookahead(f);
    } else if (f->state == ST_UNSYNCED) {
        f->state = ST_DISABLED;
    }
}

/* The OVERFLOW event of the OVF being resolved, once: NULL when it was given in an earlier call (its IP
 * can then no longer be added). */
static struct fwpt_flow_event *ovf_event(struct fwpt_flow *f, struct fwpt_flow_event *e)
{
    if (e || f->ovf_pushed)
        return e;
    f->ovf_pushed = 1;
    e = fwpt_flow_i_evq_push(f, FWPT_FLOW_OVERFLOW);
    e->offset = f->ovf_offset;
    fwpt_flow_i_time_at_fup(f, e); /* the time at the OVF (fwpt_flow_i_overflow() keeps it as a FUP's) */
    return e;
}

/* The packets after an OVF up to the one that says where execution goes on (SDM "Overflow (OVF) Packet": OVF,
 * then PSB+ or none, then FUP or TIP.PGE). Stops while the event queue is nearly full (ovf_open stays
 * set: search_step calls it again). e: the OVERFLOW event when fwpt_flow_i_overflow() gave it just now. */
void fwpt_flow_i_overflow_resolve(struct fwpt_flow *f, struct fwpt_flow_event *e)
{
    for (;;) {
        if (evq_tight(f))
            return;
        if (fetch(f) != FWPT_OK)
            break;
        uint8_t t = f->peek.type;
        if (t == FWPT_PKT_MODE_TSX) {
            f->pend_tsx = fwpt_flow_i_tsx_what(&f->peek); /* given after the OVERFLOW */
            consume(f);
            continue;
        }
        if (t == FWPT_PKT_PSB || t == FWPT_PKT_FUP || t == FWPT_PKT_TIP || t == FWPT_PKT_TIP_PGE ||
            t == FWPT_PKT_TIP_PGD || t == FWPT_PKT_OVF || is_tnt(t))
            e = ovf_event(f, e);
        if (t == FWPT_PKT_PSB) {
            fwpt_flow_i_psb_plus(f);
            if (f->state == ST_WALK) {
                f->ovf_open = 0;
                return;
            }
            continue;
        }
        bool fup = t == FWPT_PKT_FUP;
        if ((fup || t == FWPT_PKT_TIP) && !f->peek.ip.suppressed) {
            uint64_t ip = f->peek.ip.ip, at = f->peek.offset;
            consume(f);
            if (fup && pge_follows(f))
                continue; /* APL12: a FUP although FilterEn is clear; the TIP.PGE says where tracing starts */
            /* a FUP: resolved while ContextEn=1, tracing goes on at its IP. A TIP: SKD010, the FUP after
             * OVF was dropped and the TIP's target is where execution goes on (a TIP cannot follow OVF
             * otherwise, so this needs no CPU model) */
            if (e) {
                e->ip = ip;
                e->ip_valid = 1;
            }
            if (f->pend_tsx && fup) {
                fwpt_flow_i_push_tsx(f, f->pend_tsx, true, ip, at);
                f->pend_tsx = 0;
            }
            f->ovf_open = 0;
            fwpt_flow_i_walk_from(f, NULL, ip);
            return;
        }
        if (t == FWPT_PKT_TIP_PGE || is_tnt(t) || t == FWPT_PKT_TIP || t == FWPT_PKT_TIP_PGD ||
            t == FWPT_PKT_OVF || t == FWPT_PKT_FUP)
            break; /* no resume IP here: the disabled state waits for one (a TIP.PGE: handled there) */
        fwpt_flow_i_side_packet(f, false);
    }
    ovf_event(f, e);
    f->ovf_open = 0;
    if (f->pend_tsx) {
        fwpt_flow_i_push_tsx(f, f->pend_tsx, false, 0, f->ovf_offset);
        f->pend_tsx = 0;
    }
}

void fwpt_flow_i_overflow(struct fwpt_flow *f)
{
    uint64_t off = f->peek.offset;
    consume(f);
    fwpt_flow_i_flush_power(f, off);
    fwpt_flow_i_cfe_give(f);
    fwpt_flow_i_trig_due(f, true);
    f->mode_known = 0; /* a MODE.Exec after the overflow is news even when it repeats the last one */
    f->iflag = 0;
    f->evd_mask = 0;
    f->mode_fup = 0;
    fwpt_flow_i_reset_walk(f);
    f->resume_valid = 0;
    f->pend_tsx = 0;
    fwpt_flow_i_retstack_clear(f); /* SDM "Indirect Transfer Compression for Returns (RET)": no RET compressed across an overflow */
    f->state = ST_DISABLED; /* PSB+ in between must not synchronize by itself */
    f->ovf_open = 1;
    f->ovf_pushed = 0;
    f->ovf_offset = off;
    if (TIME_ON(f))
        fwpt_flow_i_time_fup(f);
    /* The OVERFLOW event: at once, or (as libipt orders it) after what the packets up to the FUP that
     * resolves the overflow report, when a FUP is what resolves it. */
    struct fwpt_flow_event *e = fwpt_flow_i_next_control(f, false) != FWPT_PKT_FUP ? ovf_event(f, NULL) : NULL;
    fwpt_flow_i_overflow_resolve(f, e);
}

/* After a packet was consumed by the walk: handle what the processor emitted before the next
 * branch packet (asynchronous FUP, OVF, PSB+, MODE, timing). Stops at TNT/TIP/TIP.PGE/TIP.PGD. */
void fwpt_flow_i_lookahead(struct fwpt_flow *f)
{
    f->look_pending = 0;
    while (f->state == ST_WALK && !f->fup_pending) {
        if (evq_tight(f)) {
            f->look_pending = 1; /* the walk waits until the rest is looked at */
            return;
        }
        enum fwpt_status s = fetch(f);
        if (s != FWPT_OK) {
            if (s == FWPT_E_EOS && !f->end_seen && !f->tnt_count && !f->pend_pip && f->state == ST_WALK) {
                /* every packet is used: what follows comes from the code alone. Not while a PIP waits
                 * for its MOV CR3 (SDM "PIP Packet"): the walk looks for it, and code that runs out
                 * first is an error (E_NOMAP), not the end of what the trace says */
                f->end_seen = 1;
                fwpt_flow_i_evq_push(f, FWPT_FLOW_END)->offset = f->pkt.offset;
            }
            return;
        }
        switch (f->peek.type) {
        case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE:
        case FWPT_PKT_TIP_PGD:
            if (f->psb_resume && f->psb_branch_at == ~(uint64_t)0)
                f->psb_branch_at = f->peek.offset;
            if (TIME_ON(f) && f->t_open && f->peek.type == FWPT_PKT_TIP_PGD) {
                fwpt_flow_i_time_mark(f, f->t_qp, false); /* the disable is the next event: its time applies from here */
                f->t_open = 0;
            }
            return;
        case FWPT_PKT_FUP:
            if (fwpt_flow_i_fup_of_status(f, true))
                continue;
            if (f->errata.skd022 && !f->peek.ip.suppressed && !f->pend_tsx &&
                fwpt_flow_i_next_control(f, true) == FWPT_PKT_TIP_PGD && fwpt_flow_i_insn_class_at(f, f->peek.ip.ip) == FWPT_IC_VMENTRY) {
                /* SKD022: a VM entry that clears TraceEn wrote a FUP before its TIP.PGD: the VMLAUNCH or
                 * VMRESUME at the FUP's IP executes, and its TIP.PGD disables tracing */
                consume(f);
                continue;
            }
            if (f->errata.bdm64 && f->pend_tsx == FWPT_TSX_ABORT && !f->peek.ip.suppressed &&
                f->last_class != FWPT_IC_OTHER && !fwpt_flow_i_reachable(f, f->ip, f->peek.ip.ip)) {
                /* BDM64: the branch just taken logged a wrong target before the abort; the abort's FUP
                 * cannot be reached from there, so the branch went to the FUP's IP */
                f->ip = f->peek.ip.ip;
            }
            if (!f->peek.ip.suppressed) {
                f->fup_pending = 1; /* SDM Table "FUP Cases and IP Payload": FUP..TIP compound event, bound to this IP */
                f->stop_ip = f->peek.ip.ip;
                f->stop_offset = f->peek.offset;
                if (TIME_ON(f))
                    fwpt_flow_i_time_fup(f);
            }
            consume(f);
            return;
        case FWPT_PKT_OVF:
            fwpt_flow_i_overflow(f);
            continue;
        case FWPT_PKT_PSB:
            fwpt_flow_i_psb_plus(f);
            continue;
        case FWPT_PKT_CYC:
            if (f->errata.skd007 && skd007_ovf(f)) {
                fwpt_flow_i_overflow(f);
                continue;
            }
            consume(f);
            continue;
        default:
            if (!fwpt_flow_i_side_packet(f, true))
                return;
            continue;
        }
    }
}

void fwpt_flow_i_disabled_at(struct fwpt_flow *f, const struct fwpt_packet *pgd, bool async, uint64_t at)
{
    fwpt_flow_i_cfe_give(f);       /* a CFE describes the transfer that disabled tracing */
    fwpt_flow_i_trig_due(f, true); /* their instructions ran before it */
    struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_DISABLED);
    e->offset = pgd->offset;
    e->async = async;
    if (async) {
        fwpt_flow_i_time_at_fup(f, e);
        e->ip = at;
        e->ip_valid = 1;
        if (!pgd->ip.suppressed) {
            e->to = pgd->ip.ip; /* where the transfer that disabled tracing went */
            e->detail = 1;
        }
    } else if (!pgd->ip.suppressed) {
        e->ip = pgd->ip.ip;
        e->ip_valid = 1;
    }
    /* where the walk would have gone on: a TIP.PGE there resumes (the FUP's IP, the TIP.PGD's target,
     * a direct branch's target, or the next instruction after a transfer whose target is not given) */
    f->resume_valid = 1;
    f->resume_ip = e->ip_valid ? e->ip
                   : (f->last_class == FWPT_IC_JMP_REL || f->last_class == FWPT_IC_CALL_REL) ? f->last_target
                                                                                              : f->next_ip;
    fwpt_flow_i_reset_walk(f);
    f->state = ST_DISABLED;
}

/* The trace ended where the walk needed a packet, with tracing on (no TIP.PGD came): the buffer filled or the
 * trace was cut. ip: the instruction whose successor needed it (listed), or a pending FUP's IP (not listed). */
void fwpt_flow_i_walk_cut(struct fwpt_flow *f, uint64_t ip)
{
    f->cut = 1;
    f->cut_ip = ip;
    f->state = ST_END;
}

bool fwpt_flow_cut(const struct fwpt_flow *f, uint64_t *ip)
{
    if (f->state != ST_END || !f->cut)
        return false;
    *ip = f->cut_ip;
    return true;
}

/* Reached the IP of a pending FUP: what follows it says which event this is. */
void fwpt_flow_i_fup_reached(struct fwpt_flow *f)
{
    f->fup_pending = 0;
    f->psb_resume = 0; /* what follows the FUP is taken now */
    /* the FUP of an EXSTOP or TRIG with IP bit, or of a transaction's begin or commit (XBEGIN, XEND: no
     * transfer), is theirs alone (SDM "Packet relationships"): it pairs with no TIP or TIP.PGD after it.
     * An abort's FUP pairs with the TIP (or TIP.PGD) to the abort handler */
    bool status_fup = f->pend_exstop || f->pend_trig || (f->pend_tsx && f->pend_tsx != FWPT_TSX_ABORT);
    if (f->pend_tsx) {
        fwpt_flow_i_push_tsx(f, f->pend_tsx, true, f->stop_ip, f->stop_offset);
        f->pend_tsx = 0;
    }
    if (f->mode_fup) {
        fwpt_flow_i_mode_fup_apply(f, f->stop_ip, f->stop_offset);
        status_fup = true;
    }
    if (f->pend_cfe == CFE_FUP)
        status_fup |= fwpt_flow_i_cfe_fup(f, true, f->stop_ip);
    else if (f->pend_cfe == CFE_NEXT)
        fwpt_flow_i_cfe_give(f); /* the transfer this FUP starts is the one it describes */
    if (f->pend_exstop)
        fwpt_flow_i_push_exstop(f, true, f->stop_ip, f->stop_offset);
    if (f->pend_trig)
        fwpt_flow_i_push_trig(f, true, f->stop_ip, f->stop_offset);
    if (status_fup) {
        fwpt_flow_i_lookahead(f);
        return;
    }
    for (;;) {
        if (evq_tight(f)) {
            f->fup_pending = 1; /* reached again after the queue drained (what was given above is not) */
            return;
        }
        if (!fetch_or_cut(f, f->ip))
            return;
        uint8_t t = f->peek.type;
        if (t == FWPT_PKT_TIP && !f->peek.ip.suppressed) {
            struct fwpt_flow_event *e = fwpt_flow_i_evq_push(f, FWPT_FLOW_INTERRUPT);
            fwpt_flow_i_time_at_fup(f, e);
            e->ip = f->stop_ip;
            e->ip_valid = 1;
            e->to = f->peek.ip.ip;
            e->offset = f->stop_offset;
            consume(f);
            fwpt_flow_i_apply_pip(f);
            fwpt_flow_i_walk_from(f, e, e->to);
            return;
        }
        if (t == FWPT_PKT_TIP_PGD) {
            struct fwpt_packet pgd = f->peek;
            consume(f);
            fwpt_flow_i_disabled_at(f, &pgd, true, f->stop_ip);
            fwpt_flow_i_apply_pip(f); /* libipt gives a PIP or VMCS bound to a TIP.PGD after the disable */
            return;
        }
        if (t == FWPT_PKT_MODE_EXEC || t == FWPT_PKT_PIP || t == FWPT_PKT_VMCS || t == FWPT_PKT_PAD ||
            t == FWPT_PKT_TSC || t == FWPT_PKT_MTC || t == FWPT_PKT_CYC || t == FWPT_PKT_CBR ||
            t == FWPT_PKT_TMA) {
            /* SDM "Packet relationships": PIP, VMCS, MODE.Exec may sit between FUP and TIP. A second PIP
             * before the TIP (no MOV CR3 can come between): the first is given now, or this would wait forever */
            if (!fwpt_flow_i_side_packet(f, true))
                fwpt_flow_i_push_pip(f);
            continue;
        }
        /* a FUP not coupled with a TIP (e.g. PTWRITE, EXSTOP): nothing changes the flow */
        fwpt_flow_i_lookahead(f);
        return;
    }
}
