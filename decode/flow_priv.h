/* fwpt — the flow decoder's private header: its state names, the steps its files share, and the small
 * steps of the hot loops as inline functions, so that every caller inlines them (not an interface: only
 * decode/flow*.c include it; everything else uses decode/flow.h's calls). */
#ifndef FWPT_DECODE_FLOW_PRIV_H
#define FWPT_DECODE_FLOW_PRIV_H

#include "decode/flow.h"
#include "base/text.h"

enum flow_state {
    ST_UNSYNCED = 0, /* at a PSB found by the packet decoder: PSB+ synchronizes */
    ST_SEARCH,       /* after a flow error: the next IP packet resumes */
    ST_DISABLED,     /* after TIP.PGD: TIP.PGE (or PSB+ with FUP) resumes */
    ST_WALK,         /* enabled, f->ip is the next instruction */
    ST_END,
};

/* Cache index of a block start (before the mask): the IP itself. Code in any window of the cache's
 * size maps without a collision, and the walk's dependency chain (IP -> entry -> next IP) carries no
 * hash (a fold such as ip ^ (ip >> 11) had the same misses and was slower; denser indexes collide
 * between block starts a byte or two apart: docs/performance.md, "Flow walk"). */
#define FLOW_SLOT(ip) (ip)

/* TNT in either form (SDM: short TNT carries 1-6 bits, long TNT 1-47). */
static inline bool is_tnt(uint8_t t) { return t == FWPT_PKT_TNT_8 || t == FWPT_PKT_TNT_64; }

/* The loops that can give an event per packet (lookahead, OVF resolution, PSB+) stop while fewer than
 * EVQ_STEP slots are free and go on after the queue drained (look_pending, ovf_open); one step gives at
 * most EVQ_STEP events (a FUP reached: TSX, MWAIT, EXSTOP, PWRE, TRIG, INTERRUPT, VMCS, PAGING, MODE). */
#define EVQ_STEP 12
_Static_assert(FWPT_FLOW_EVQ >= 2 * EVQ_STEP, "the event queue holds a full step past the stop point");
static inline bool evq_tight(const struct fwpt_flow *f) { return f->evq_n + EVQ_STEP > FWPT_FLOW_EVQ; }

/* Time is off unless asked for: its hooks stay out of the hot paths' way. */
#define TIME_ON(f) __builtin_expect((f)->time_on, 0)

/* pend_cfe: a CFE without IP waits for the transfer it describes (the next FUP reached, TIP or TIP.PGD);
 * one with IP for its FUP; a return-like one whose FUP named the returning instruction for that
 * instruction's transfer (it is given after the instruction, before the packets of its TIP). */
enum { CFE_NONE = 0, CFE_NEXT, CFE_FUP, CFE_BRANCH };

/* The steps shared between the flow decoder's files (internal linkage in spirit: hidden). */
#pragma GCC visibility push(hidden)
/* the code: blocks of instructions and walks over them without packets (flow_block.c) */
enum fwpt_status fwpt_flow_i_build_block(struct fwpt_flow *f, uint64_t ip, struct fwpt_flow_block *b, uint64_t *fail_ip);
int fwpt_flow_i_insn_class_at(struct fwpt_flow *f, uint64_t ip);
bool fwpt_flow_i_reachable(struct fwpt_flow *f, uint64_t from, uint64_t to);
bool fwpt_flow_i_passed_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to);
int64_t fwpt_flow_i_insns_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to);

/* the general transfer rule (flow_resolve.c) */
void fwpt_flow_i_resolve(struct fwpt_flow *f);

/* the packets between branches: side packets, PSB+, OVF, lookahead, FUPs reached (flow_packets.c) */
bool fwpt_flow_i_filtered_out(const struct fwpt_flow *f, uint64_t ip);
bool fwpt_flow_i_side_packet(struct fwpt_flow *f, bool walking);
bool fwpt_flow_i_fup_of_status(struct fwpt_flow *f, bool walking);
uint8_t fwpt_flow_i_next_control(const struct fwpt_flow *f, bool skip_peek);
void fwpt_flow_i_psb_plus(struct fwpt_flow *f);
void fwpt_flow_i_overflow_resolve(struct fwpt_flow *f, struct fwpt_flow_event *e);
void fwpt_flow_i_overflow(struct fwpt_flow *f);
void fwpt_flow_i_lookahead(struct fwpt_flow *f);
void fwpt_flow_i_disabled_at(struct fwpt_flow *f, const struct fwpt_packet *pgd, bool async, uint64_t at);
void fwpt_flow_i_walk_cut(struct fwpt_flow *f, uint64_t ip);
void fwpt_flow_i_fup_reached(struct fwpt_flow *f);

/* the event queue and the events bound to FUPs and transfers, Event Trace, TRIG (flow_events.c) */
struct fwpt_flow_event *fwpt_flow_i_evq_push(struct fwpt_flow *f, unsigned kind);
void fwpt_flow_i_apply_mode(struct fwpt_flow *f);
void fwpt_flow_i_push_pip(struct fwpt_flow *f);
void fwpt_flow_i_apply_pip_order(struct fwpt_flow *f, bool pip_first);
void fwpt_flow_i_apply_pip(struct fwpt_flow *f);
struct fwpt_flow_event *fwpt_flow_i_push_tsx(struct fwpt_flow *f, uint8_t what, bool ip_valid, uint64_t ip, uint64_t offset);
void fwpt_flow_i_push_ptwrite(struct fwpt_flow *f);
void fwpt_flow_i_push_pwre(struct fwpt_flow *f, uint64_t offset);
void fwpt_flow_i_push_trig(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset);
void fwpt_flow_i_push_exstop(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset);
void fwpt_flow_i_flush_power(struct fwpt_flow *f, uint64_t offset);
void fwpt_flow_i_mode_fup_apply(struct fwpt_flow *f, uint64_t ip, uint64_t offset);
bool fwpt_flow_i_fup_follows(const struct fwpt_flow *f);
bool fwpt_flow_i_evd_packet(struct fwpt_flow *f, const struct fwpt_packet *p);
void fwpt_flow_i_cfe_give(struct fwpt_flow *f);
bool fwpt_flow_i_cfe_packet(struct fwpt_flow *f, const struct fwpt_packet *p, bool walking);
bool fwpt_flow_i_cfe_fup(struct fwpt_flow *f, bool walking, uint64_t ip);
void fwpt_flow_i_trig_place(struct fwpt_flow *f, const struct fwpt_packet *p);
void fwpt_flow_i_trig_due(struct fwpt_flow *f, bool flush);
uint8_t fwpt_flow_i_tsx_what(const struct fwpt_packet *p);

/* errors and resynchronization (flow_resync.c) */
void fwpt_flow_i_retstack_clear(struct fwpt_flow *f);
uint64_t fwpt_flow_i_cur_offset(const struct fwpt_flow *f);
void fwpt_flow_i_reset_walk(struct fwpt_flow *f);
void fwpt_flow_i_lost_step(struct fwpt_flow *f, uint64_t offset);
/* Forget the events waiting for packets (after an error); keep_fup: not those bound to the pending FUP. */
void fwpt_flow_i_drop_pending(struct fwpt_flow *f, bool keep_fup);
void fwpt_flow_i_enter_walk(struct fwpt_flow *f, uint64_t ip);
void fwpt_flow_i_walk_from(struct fwpt_flow *f, struct fwpt_flow_event *e, uint64_t ip);
void fwpt_flow_i_error(struct fwpt_flow *f, enum fwpt_status s, uint64_t ip, uint64_t offset);
void fwpt_flow_i_packet_error(struct fwpt_flow *f, enum fwpt_status s);
void fwpt_flow_i_search_step(struct fwpt_flow *f);

/* the time hooks (flow_time.c) */
__attribute__((noinline, cold)) void fwpt_flow_i_time_packet(struct fwpt_flow *f);
void fwpt_flow_i_time_mark(struct fwpt_flow *f, uint64_t at, bool q);
__attribute__((noinline, cold)) void fwpt_flow_i_time_fast(struct fwpt_flow *f, uint64_t k, bool used_up);
void fwpt_flow_i_time_query(struct fwpt_flow *f, uint64_t x, bool newpkt);
void fwpt_flow_i_time_event(struct fwpt_flow *f, uint32_t k);
void fwpt_flow_i_time_at_fup(struct fwpt_flow *f, const struct fwpt_flow_event *e);
void fwpt_flow_i_time_fup(struct fwpt_flow *f);
void fwpt_flow_i_time_refill(struct fwpt_flow *f, uint64_t base);
void fwpt_flow_i_time_psb(struct fwpt_flow *f, bool have_fup, uint64_t fup_ip);
#pragma GCC visibility pop

/* The RET compression stack (SDM "Indirect Transfer Compression for Returns (RET)"): 64 entries,
 * the oldest dropped when full; every near RET pops.  */
static inline void push_ret(struct fwpt_flow *f, uint64_t ip)
{
    f->retstack[f->retstack_top % FWPT_FLOW_RETSTACK] = ip;
    f->retstack_top++;
    if (f->retstack_n < FWPT_FLOW_RETSTACK)
        f->retstack_n++; /* when full the oldest entry is dropped */
}
static inline bool pop_ret(struct fwpt_flow *f, uint64_t *ip)
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
 * fast_resolve, run_resolve, fill_fast_walk and walk_blocks); fwpt_flow_i_resolve() is the general
 * rule, with errors and events, for everything this returns as SLOW. cls/flags/target/nx: the block's
 * class, flags, direct target and fall-through; bits/cnt: the TNT bits in hand (cnt 0: none usable);
 * pgd_peek: a TIP.PGD waits in peek (a direct branch may leave the IP filter range); tip: the caller takes
 * a TIP left in peek. One predicted branch per class keeps the class off the walk's dependency chain (the
 * order of the tests and the designs tried: docs/performance.md, "Flow walk"). */
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
            push_ret(f, nx);
        *ip = target;
        return FWPT_FLOW_STEP_NEXT;
    }
    if (cls == FWPT_IC_RET && cnt && (bits & 1) && f->retstack_n) {
        /* compressed RET (SDM "Indirect Transfer Compression for Returns (RET)") */
        (void)pop_ret(f, ip);
        return FWPT_FLOW_STEP_TNT;
    }
    if (tip && f->have_peek && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed && !f->pending_mode &&
        !f->pend_pip && !f->pend_vmcs &&
        (cls == FWPT_IC_JMP_IND || cls == FWPT_IC_CALL_IND || (cls == FWPT_IC_RET && !cnt) ||
         (cls >= FWPT_IC_FAR_JMP && cls <= FWPT_IC_VMENTRY))) {
        /* take_tip with the TIP lookahead left in peek (no MODE.Exec, PIP or VMCS to apply) */
        if (cls == FWPT_IC_CALL_IND) {
            push_ret(f, nx);
        } else if (cls == FWPT_IC_RET) {
            uint64_t dummy;
            (void)pop_ret(f, &dummy); /* SDM "Indirect Transfer Compression for Returns (RET)" step 3: every near RET pops */
        }
        *ip = f->peek.ip.ip;
        f->have_peek = 0;
        return FWPT_FLOW_STEP_TIP;
    }
    return FWPT_FLOW_STEP_SLOW;
}
/* A walk over cached blocks keeps the decoder's TNT state in registers: stores it back (bits, cnt: the TNT bits
 * in hand; since: the instructions since the last packet; walked: those it ran and has not counted in n_insns).
 * fill_fast_walk and walk_blocks, at each place they stop or look ahead. */
static inline void fwpt_flow_i_walk_store(struct fwpt_flow *f, uint64_t bits, uint32_t cnt, uint64_t since,
                                          uint64_t walked)
{
    f->tnt_bits = bits;
    f->tnt_count = (uint8_t)cnt;
    f->since_packet = since;
    f->n_insns += walked;
}
/* A walk over cached blocks used up the packet that decided its last transfer (a TNT's last bit, or a TIP), at
 * f->ip: it looks ahead as fwpt_flow_i_resolve() does, in two steps (fill_fast_walk and walk_blocks).
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
__attribute__((visibility("hidden"))) bool fwpt_flow_i_packet_lookahead(struct fwpt_flow *f, uint64_t bits, uint64_t walked);
/* The oldest queued event (the caller checked evq_n). */
static inline enum fwpt_status evq_pop(struct fwpt_flow *f, struct fwpt_flow_event *ev)
{
    *ev = f->evq[f->evq_head];
    if (TIME_ON(f)) {
        f->t_given_ev = 1;
        f->t_ev_tsc = f->evq_tsc[f->evq_head];
        f->t_ev_ok = f->evq_tok[f->evq_head];
    }
    f->evq_head = (f->evq_head + 1) % FWPT_FLOW_EVQ;
    f->evq_n--;
    return FWPT_OK;
}


/* The next packet that is not a PAD: a PAD means nothing to the flow (SDM "PAD Packet": it only pads the output),
 * and a trace written under a hypervisor can hold more PADs than anything else. After a PAD the run of 00h bytes is
 * passed in one loop where the packet decoder's fast paths would read them one by one (no block; not a lean trial,
 * which counts the packets it sees), else PAD by PAD. */
static inline __attribute__((always_inline)) enum fwpt_status next_not_pad(struct fwpt_pkt_decoder *d,
                                                                           struct fwpt_packet *p)
{
    enum fwpt_status s = fwpt_pkt_next(d, p);
    while (__builtin_expect(s == FWPT_OK && p->type == FWPT_PKT_PAD, 0)) {
        if (!d->block_item_bytes && !(d->lean & FWPT_PKT_LEAN_TRIAL)) {
            size_t o = d->offset;
            while (o < d->fast_end && !d->buf[o])
                o++;
            d->offset = o;
        }
        s = fwpt_pkt_next(d, p);
    }
    return s;
}

/* The next packet, left in f->peek (not consumed). FWPT_E_EOS at the end; other errors are
 * reported (and the decoder resynchronized) here. */
static inline __attribute__((always_inline)) enum fwpt_status fetch(struct fwpt_flow *f)
{
    if (f->have_peek)
        return FWPT_OK;
    enum fwpt_status s = next_not_pad(&f->pkt, &f->peek);
    if (s == FWPT_OK) {
        f->have_peek = 1;
        if (TIME_ON(f))
            fwpt_flow_i_time_packet(f);
        return FWPT_OK;
    }
    if (s == FWPT_E_EOS)
        return s;
    fwpt_flow_i_packet_error(f, s);
    return s;
}

/* fetch for fill_fast_walk: whether time is on is known there (timed), not read from f at every packet. */
static inline __attribute__((always_inline)) enum fwpt_status fetch_walk(struct fwpt_flow *f, const bool timed)
{
    if (f->have_peek)
        return FWPT_OK;
    enum fwpt_status s = next_not_pad(&f->pkt, &f->peek);
    if (s == FWPT_OK) {
        f->have_peek = 1;
        if (timed)
            fwpt_flow_i_time_packet(f);
        return FWPT_OK;
    }
    if (s != FWPT_E_EOS)
        fwpt_flow_i_packet_error(f, s);
    return s;
}

static inline void consume(struct fwpt_flow *f) { f->have_peek = 0; }

/* fetch where the walk needs the next packet to go on from ip: false when there is none and the walk stopped
 * (an error was reported, or the trace ends here: the walk is cut at ip, fwpt_flow_i_walk_cut). */
static inline __attribute__((always_inline)) bool fetch_or_cut(struct fwpt_flow *f, uint64_t ip)
{
    const enum fwpt_status s = fetch(f);
    if (s == FWPT_E_EOS)
        fwpt_flow_i_walk_cut(f, ip);
    return s == FWPT_OK;
}

/* fetch in a state without an IP: false when there is no packet (an error was reported, or the trace ends here:
 * the decoder ends, ST_END). */
static inline __attribute__((always_inline)) bool fetch_or_end(struct fwpt_flow *f)
{
    const enum fwpt_status s = fetch(f);
    if (s == FWPT_E_EOS)
        f->state = ST_END;
    return s == FWPT_OK;
}


/* How many of the n instructions from f->ip run before the next TRIG is due. */
static inline uint32_t trig_cut(const struct fwpt_flow *f, uint32_t n)
{
    if (f->ntrig && f->trig_q[0].at - f->n_insns < n)
        return (uint32_t)(f->trig_q[0].at - f->n_insns);
    return n;
}

static inline const struct fwpt_flow_block *get_block(struct fwpt_flow *f, uint64_t ip,
                                                      enum fwpt_status *st)
{
    struct fwpt_flow_block *b = &f->scratch;
    if (f->cache) {
        b = &f->cache[FLOW_SLOT(ip) & f->cache_mask];
        if (b->ip == ip && b->mode == f->mode) {
            f->cache_hits++;
            return b;
        }
        f->cache_misses++;
    }
    uint64_t fail_ip = ip;
    *st = fwpt_flow_i_build_block(f, ip, b, &fail_ip);
    if (*st != FWPT_OK) {
        if (f->end_seen)
            fwpt_flow_i_walk_cut(f, fail_ip); /* past the trace's end the code ran out: no packet says more */
        else
            fwpt_flow_i_error(f, *st, fail_ip, fwpt_flow_i_cur_offset(f));
        return NULL;
    }
    return b;
}

/* The walk reached the end of block b (next_ip = its fall-through): record its last instruction
 * for fwpt_flow_i_resolve(). One copy for every path; inlined, so it costs the hot loops nothing. */
static inline void end_block(struct fwpt_flow *f, const struct fwpt_flow_block *b, uint64_t next_ip)
{
    f->next_ip = next_ip;
    f->last_ip = next_ip - b->sizes[b->ninsn - 1];
    f->last_class = b->iclass;
    f->last_target = b->target;
    f->last_flags = b->flags;
    f->resolve_pending = 1;
}

#endif
