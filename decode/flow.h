/* fwpt — instruction flow reconstruction: the public part (events, the calls, the rules followed) is
 * include/fwpt/flow.h; this header adds the decoder's state, the calls that take internal types (errata, time
 * configuration) and the inline fwpt_flow_next for the library's own code (the tool, the app, analyze/).
 */
#ifndef FWPT_DECODE_FLOW_H
#define FWPT_DECODE_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/errata.h"
#include "base/status.h"
#include "decode/insn.h"
#include "decode/packet.h"
#include "decode/time.h"
#include "fwpt/flow.h"

#define FWPT_FLOW_RETSTACK 64
#define FWPT_FLOW_FILTERS 4
#define FWPT_FLOW_EVQ 32
#define FWPT_FLOW_OBUF 256 /* instructions decoded ahead for fwpt_flow_next */
#define FWPT_FLOW_TMARKS (FWPT_FLOW_OBUF + FWPT_FLOW_EVQ + 8) /* time changes kept for the instructions ahead */

/* From instruction number 'at' on (counted from the decode's start), the time is tsc (ok: after a TSC). */
struct fwpt_flow_tmark {
    uint64_t at, tsc;
    uint64_t qtsc;    /* q: instruction 'at' is a branch that took a new TNT or TIP; the time at that packet */
    uint8_t ok, q, qok;
};

#ifndef FWPT_FLOW_OPAQUE /* analyze/ is built with it: the public calls only, no field of the decoder */
/* Caller-owned state; fields are private to decode/flow*.c (decode/flow_priv.h). */
struct fwpt_flow {
    struct fwpt_pkt_decoder pkt;
    struct fwpt_packet peek;   /* next control packet, when have_peek */
    fwpt_flow_read_fn read;
    void *read_ctx;
    struct fwpt_flow_block *cache;
    size_t cache_mask;
    struct fwpt_flow_block scratch;
    uint64_t ip;               /* next instruction to walk */
    uint64_t stop_ip;          /* pending FUP: the asynchronous event binds here */
    uint64_t stop_offset;
    uint64_t tnt_bits;
    uint64_t retstack[FWPT_FLOW_RETSTACK];
    uint64_t runaway_limit, since_packet;
    /* the last instruction of the current run */
    uint64_t last_ip, last_target, next_ip;
    uint8_t last_class, last_flags, run_full;
    uint32_t retstack_top, retstack_n;
    uint8_t tnt_count;
    uint8_t mode, pending_mode;
    uint8_t state;             /* private */
    uint8_t have_peek, fup_pending, resolve_pending;
    uint8_t cut;               /* the trace ended while the walk needed a packet (fwpt_flow_cut) */
    uint64_t cut_ip;
    struct fwpt_flow_event evq[FWPT_FLOW_EVQ];
    uint32_t evq_head, evq_n;
    uint8_t evq_overrun;       /* an event found the queue full: fwpt_flow_next* give FWPT_E_INTERNAL after the rest */
    struct fwpt_flow_event evq_spill; /* where that event went */
    /* fwpt_flow_next: instructions decoded ahead, served inline */
    uint32_t oidx, on;
    uint8_t obuf_mode;         /* every obuf entry has kind INSN and this mode (UNKNOWN: not so) */
    struct fwpt_flow_obuf_insn obuf[FWPT_FLOW_OBUF];
    /* events that bind later (SDM "Packet relationships"): a MODE.TSX, EXSTOP or PTW waiting for its FUP,
     * a PTW for its PTWRITE, a PIP or VMCS for the transfer (TIP) they describe */
    uint8_t intx;              /* in a TSX transaction (the last MODE.TSX said InTX) */
    uint8_t pend_tsx;          /* enum fwpt_flow_tsx waiting for its FUP */
    uint8_t pend_exstop;       /* EXSTOP with IP bit: waiting for its FUP */
    uint8_t pend_ptw;          /* PTW waiting for its PTWRITE; 2: and for its FUP (IP bit) */
    uint8_t pend_pip, pip_nr, pend_vmcs;
    uint8_t pend_mwait, pend_pwre;   /* MWAIT and PWRE wait for the EXSTOP they lead to */
    uint8_t pend_trig, trig_trbv, trig_mult; /* TRIG with IP bit: waits for its FUP */
    /* Event Trace (SDM "Event Trace"): EVD data waiting for its CFE; a CFE waiting for its FUP, transfer or
     * instruction; IF and the code size as the decoder knows them; a MODE.Exec bound to the FUP after it */
    uint8_t pend_cfe;          /* private: CFE_* */
    uint8_t evd_mask;          /* FWPT_EVD_* seen since the last CFE */
    uint8_t iflag;             /* 0: unknown, 1: IF=0, 2: IF=1 */
    uint8_t iflags_on;         /* give its changes as events (fwpt_flow_set_iflags) */
    uint8_t mode_known;        /* f->mode was given by a packet since the start or the last OVF */
    uint8_t mode_fup;          /* a MODE.Exec waits for the FUP that follows it */
    uint8_t mode_fup_mode, mode_fup_if;
    uint8_t pending_if;        /* IF of the MODE.Exec in pending_mode: 1 + IF */
    uint8_t ntrig;             /* TRIGs placed by their ICNT, waiting in trig_q (keeps the walk off fill_fast,
                                * as pend_cfe does) */
    uint64_t evd[3];
    struct fwpt_flow_event cfe_ev;
    struct {
        uint64_t at;           /* given before the instruction after n_insns reaches this */
        uint64_t offset;
        uint8_t trbv, mult;
    } trig_q[4];
    uint8_t pwre_state, pwre_sub, pwre_hw;
    uint64_t mwait_hints;
    uint8_t ptw_bytes, ptw_ip_valid;
    uint8_t end_seen;          /* FWPT_FLOW_END was given: the trace data is over */
    uint8_t look_pending;      /* lookahead stopped with the event queue nearly full: finish it first */
    uint8_t ovf_open, ovf_pushed; /* an OVF being resolved (its loop stopped likewise); OVERFLOW given */
    uint64_t ovf_offset;
    uint8_t resume_valid;      /* resume_ip: where the walk would go on after the last disable */
    uint8_t psb_resume;        /* a PSB+ read ahead while walking, no branch packet taken since: psb_ip */
    uint8_t psb_mode;          /* its MODE.Exec (0: none) */
    uint64_t psb_ip, psb_from, psb_branch_at; /* its FUP; where the walk was; the next branch packet's offset */
    uint64_t ptw_payload, ptw_ip, pip_cr3, vmcs_base, resume_ip;
    struct fwpt_errata errata;
    uint8_t err_open;          /* an error's bytes are being skipped, since err_offset */
    uint64_t err_offset, bytes_skipped;
    uint32_t n_filter;         /* IP filter ranges the trace was recorded with (0: none known) */
    uint64_t filter[FWPT_FLOW_FILTERS][2];
    /* statistics */
    uint64_t n_insns, n_errors, cache_hits, cache_misses;
    /* time (fwpt_flow_set_time): the estimate after every packet read, and where in the flow it changed */
    uint8_t time_on;
    uint8_t t_open;            /* the next event's time applies from instruction t_qp on (flow_time.c) */
    uint8_t t_given_ev;        /* what fwpt_flow_next gave last was an event (its time: t_ev_*) */
    uint8_t t_ev_ok, t_fup_ok;
    uint64_t t_ev_tsc, t_fup_tsc; /* t_fup: the time at the pending FUP (its event's time) */
    uint64_t t_qp;
    uint64_t obuf_base;        /* the instruction number of obuf[0] */
    uint32_t tmk_n;
    struct fwpt_time time;
    uint64_t evq_tsc[FWPT_FLOW_EVQ];
    uint8_t evq_tok[FWPT_FLOW_EVQ];
    struct fwpt_flow_tmark tmk[FWPT_FLOW_TMARKS];
};
#endif /* FWPT_FLOW_OPAQUE */

/* The processor's errata (arch/errata.h) the decoder works around; default: none known. */
void fwpt_flow_set_errata(struct fwpt_flow *f, const struct fwpt_errata *e);

/* Time (decode/time.h, SDM "Tracking Time"): from now on the timing packets (TSC, TMA, MTC, CYC, CBR) are
 * applied as they are read, and every instruction and event has a time estimate in TSC ticks, the one
 * libipt's instruction decoder reports (pt_insn_time after pt_insn_next for an instruction, pt_event.tsc for
 * an event): the time at the last packet that decided the flow up to there -- the TNT or TIP a branch took,
 * or the packets of the next event when nothing else comes before it. Off by default (no cost then). */
void fwpt_flow_set_time(struct fwpt_flow *f, const struct fwpt_time_config *cfg);
/* The time of what fwpt_flow_next (or fwpt_flow_next_batch's event) gave last: FWPT_OK, or FWPT_E_NO_TIME before
 * the first TSC (*tsc then holds what MTC and CYC counted from 0) or when time is off (*tsc = 0). Not for
 * fwpt_flow_next_run. */
enum fwpt_status fwpt_flow_time(const struct fwpt_flow *f, uint64_t *tsc);
/* The time of an instruction of the last fwpt_flow_next_batch run (a pointer into it), as fwpt_flow_time. */
enum fwpt_status fwpt_flow_insn_time(const struct fwpt_flow *f, const struct fwpt_flow_obuf_insn *insn, uint64_t *tsc);
/* When the branch instruction fwpt_flow_next gave last took a new TNT or TIP packet: true, with the time at
 * that packet (libipt's tick event with enable_tick_events: the time before the next event's packets). */
bool fwpt_flow_tick(const struct fwpt_flow *f, uint64_t *tsc, bool *ok);

/* What fwpt_flow_next does when nothing is buffered. */
enum fwpt_status fwpt_flow_next_slow(struct fwpt_flow *f, struct fwpt_flow_event *ev);
#ifndef FWPT_FLOW_OPAQUE
/* fwpt_flow_next inline, for the library's own code (the macro below); the public call runs the same code out of
 * line (decode/flow.c). Instructions of the current run are served inline; the rest is fwpt_flow_next_slow. */
static inline enum fwpt_status fwpt_flow_next_inline(struct fwpt_flow *f, struct fwpt_flow_event *ev)
{
    if (f->oidx < f->on) {
        const struct fwpt_flow_obuf_insn *i = &f->obuf[f->oidx++];
        __builtin_memcpy(&ev->kind, &i->kind, 4); /* kind, size, iclass, mode */
        ev->ip = i->ip;
        return FWPT_OK;
    }
    return fwpt_flow_next_slow(f, ev);
}

#define fwpt_flow_next(f, ev) fwpt_flow_next_inline(f, ev)
#endif /* FWPT_FLOW_OPAQUE */

#endif
