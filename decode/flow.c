/* fwpt — instruction flow reconstruction (see flow.h for the rules). */
#include "decode/flow.h"
#include "decode/flow_internal.h"
#include "base/text.h"

enum flow_state {
    ST_UNSYNCED = 0, /* at a PSB found by the packet decoder: PSB+ synchronizes */
    ST_SEARCH,       /* after a flow error: the next IP packet resumes */
    ST_DISABLED,     /* after TIP.PGD: TIP.PGE (or PSB+ with FUP) resumes */
    ST_WALK,         /* enabled, f->ip is the next instruction */
    ST_END,
};

#define FLOW_DEFAULT_RUNAWAY (1u << 20)

/* Cache index of a block start (before the mask): the IP itself. Code in any window of the cache's
 * size maps without a collision, and the walk's dependency chain (IP -> entry -> next IP) carries no
 * hash: the fold ip ^ (ip >> 11) measured 6-9% slower with the same misses on bench_flow. Denser
 * indexes ((ip >> 1), (ip >> 2)) were measured: more collisions between block starts a byte or two
 * apart, and no faster. */
#define FLOW_SLOT(ip) FWPT_FLOW_SLOT(ip)

void fwpt_flow_cache_reset(struct fwpt_flow *f)
{
    /* Empty: mode UNKNOWN, which f->mode never is, so no IP hits it -- not even ~0, which a TIP
     * can carry (matching on ip alone served a stale block there). */
    for (size_t i = 0; f->cache && i <= f->cache_mask; i++) {
        f->cache[i].ip = FWPT_FLOW_NO_IP;
        f->cache[i].mode = FWPT_MODE_UNKNOWN;
        f->cache[i].ninsn = 0;
    }
    f->scratch.ip = FWPT_FLOW_NO_IP;
}

static void flow_init(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx, struct fwpt_flow_block *cache,
                      size_t ncache);

void fwpt_flow_init(struct fwpt_flow *f, const uint8_t *trace, size_t len, fwpt_flow_read_fn read,
                    void *read_ctx, struct fwpt_flow_block *cache, size_t ncache)
{
    fwpt_memset(f, 0, sizeof *f);
    fwpt_pkt_init(&f->pkt, trace, len);
    flow_init(f, read, read_ctx, cache, ncache);
}

void fwpt_flow_init_segs(struct fwpt_flow *f, const struct fwpt_pkt_seg *segs, uint32_t nsegs, fwpt_flow_read_fn read,
                         void *read_ctx, struct fwpt_flow_block *cache, size_t ncache)
{
    fwpt_memset(f, 0, sizeof *f);
    fwpt_pkt_init_segs(&f->pkt, segs, nsegs);
    flow_init(f, read, read_ctx, cache, ncache);
}

static void flow_init(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx, struct fwpt_flow_block *cache,
                      size_t ncache)
{
    f->read = read;
    f->read_ctx = read_ctx;
    /* a power of two, else only the largest power of two below it is used */
    size_t n = 1;
    while (ncache && n * 2 <= ncache)
        n *= 2;
    f->cache = ncache ? cache : NULL;
    f->cache_mask = ncache ? n - 1 : 0;
    fwpt_flow_cache_reset(f);
    f->mode = FWPT_MODE_64;
    f->runaway_limit = FLOW_DEFAULT_RUNAWAY;
    f->state = ST_UNSYNCED;
    if (fwpt_pkt_sync_forward(&f->pkt) != FWPT_OK)
        f->state = ST_END;
}

void fwpt_flow_set_runaway_limit(struct fwpt_flow *f, uint64_t n) { f->runaway_limit = n ? n : 1; }

/* SKZ84 changes how bytes split into packets everywhere: the packet decoder applies it. SKD007 only
 * where a CYC stands: the walk checks there (skd007_ovf), so the packet decoder's fast path stays on. */
void fwpt_flow_set_errata(struct fwpt_flow *f, const struct fwpt_errata *e)
{
    f->errata = *e;
    struct fwpt_errata pkt = {0};
    pkt.skz84 = e->skz84;
    fwpt_pkt_set_errata(&f->pkt, &pkt);
}

void fwpt_flow_set_iflags(struct fwpt_flow *f, bool on) { f->iflags_on = on; }

void fwpt_flow_set_filter(struct fwpt_flow *f, const uint64_t (*ranges)[2], uint32_t n)
{
    f->n_filter = n < FWPT_FLOW_FILTERS ? n : FWPT_FLOW_FILTERS;
    for (uint32_t i = 0; i < f->n_filter; i++) {
        f->filter[i][0] = ranges[i][0];
        f->filter[i][1] = ranges[i][1];
    }
}

/* Outside every IP filter range (SDM "IP Filtering": FilterEn is 1 only inside a range). */
static bool filtered_out(const struct fwpt_flow *f, uint64_t ip)
{
    if (!f->n_filter)
        return false;
    for (uint32_t i = 0; i < f->n_filter; i++)
        if (ip >= f->filter[i][0] && ip <= f->filter[i][1])
            return false;
    return true;
}

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

/* ---- Time (fwpt_flow_set_time) ----
 * libipt's instruction decoder reports after each instruction the time at the last packet its query decoder
 * consumed: the TNT or TIP a branch took, or an event's packets, which it fetches as soon as a query left no
 * TNT bit in hand and the next packet that matters is an event's (it then holds the event until it binds).
 * The walk reads the same packets in the same order, applying the timing ones as they are read (fetch), so:
 *  - a branch (instruction number x) that takes a new TNT or TIP: that packet's time from x on (a mark, q);
 *  - after a query that leaves no TNT bit in hand (a TNT's last bit or a TIP used at x, an event given), the
 *    next event's time applies from there on (t_qp, t_open), not from the event on.
 * The instructions are buffered ahead (obuf), so the marks are kept by instruction number; the reader looks
 * up the last one at or before an instruction (time_at). */

static __attribute__((noinline, cold)) void time_packet(struct fwpt_flow *f)
{
    struct fwpt_time_step st;
    fwpt_time_packet(&f->time, &f->peek, &st);
}

static void time_mark(struct fwpt_flow *f, uint64_t at, bool q)
{
    uint64_t tsc = f->time.t.tsc;
    uint8_t ok = f->time.t.have_tsc;
    uint32_t n = f->tmk_n;
    struct fwpt_flow_tmark *m;
    if (n && f->tmk[n - 1].at >= at) {
        m = &f->tmk[n - 1]; /* a later packet for the same instruction (or one already given: its successors) */
        m->tsc = tsc;
        m->ok = ok;
        if (q && m->at == at) {
            m->q = 1;
            m->qtsc = tsc;
            m->qok = ok;
        }
        return;
    }
    if (!q && n && f->tmk[n - 1].tsc == tsc && f->tmk[n - 1].ok == ok)
        return;
    if (n == FWPT_FLOW_TMARKS) {
        /* cannot happen while the reader keeps up (fill starts afresh): the oldest goes */
        for (uint32_t i = 1; i < n; i++)
            f->tmk[i - 1] = f->tmk[i];
        n--;
    }
    m = &f->tmk[n];
    f->tmk_n = n + 1;
    m->at = at;
    m->tsc = m->qtsc = tsc;
    m->ok = m->qok = ok;
    m->q = q;
}

/* fill_fast's hooks, out of its loop: the k-th instruction it wrote (counted from n_insns) took a new TNT or TIP
 * (bits may be left in hand), or (used_up) used its packet's last bit or a TIP. */
static __attribute__((noinline, cold)) void time_fast(struct fwpt_flow *f, uint64_t k, bool used_up)
{
    uint64_t x = f->n_insns + k - 1;
    if (used_up) {
        f->t_qp = x;
        f->t_open = 1;
    } else {
        time_mark(f, x, true);
        f->t_open = 0;
    }
}

/* Instruction x took the last bit of its TNT or a TIP (newpkt: a new packet, read just now). */
static void time_query(struct fwpt_flow *f, uint64_t x, bool newpkt)
{
    if (newpkt)
        time_mark(f, x, true);
    f->t_qp = x;
    f->t_open = !f->tnt_count;
}

/* An event queued in evq slot k: its time, and the time from the last query point on when it is the one libipt
 * would have fetched there; once it is given, the next event's time applies from there on. */
static void time_status(struct fwpt_flow *f)
{
    if (f->t_open)
        time_mark(f, f->t_qp, false);
    f->t_qp = f->n_insns;
    f->t_open = !f->tnt_count;
}

static void time_event(struct fwpt_flow *f, uint32_t k)
{
    f->evq_tsc[k] = f->time.t.tsc;
    f->evq_tok[k] = f->time.t.have_tsc;
    time_status(f);
}

/* An event that began at a FUP read earlier has the time at that FUP (libipt stamps it there). */
static void time_at_fup(struct fwpt_flow *f, const struct fwpt_flow_event *e)
{
    if (!f->time_on || e == &f->evq_spill)
        return;
    uint32_t k = (uint32_t)(e - f->evq);
    f->evq_tsc[k] = f->t_fup_tsc;
    f->evq_tok[k] = f->t_fup_ok;
}

/* A FUP just read (f->peek): its time for the event that begins there. When that event is the next one after
 * the last query, libipt takes it at once, up to its TIP or TIP.PGD: the time there applies from the query on,
 * before the walk reaches the FUP's IP (which may be after the instructions buffered now). */
static void time_fup(struct fwpt_flow *f)
{
    f->t_fup_tsc = f->time.t.tsc;
    f->t_fup_ok = f->time.t.have_tsc;
    if (!f->t_open)
        return;
    struct fwpt_pkt_decoder d = f->pkt;
    struct fwpt_time tm = f->time;
    struct fwpt_packet p;
    struct fwpt_time_step st;
    for (unsigned i = 0; i < 64 && fwpt_pkt_next(&d, &p) == FWPT_OK; i++) {
        if (p.type != FWPT_PKT_PAD && p.type != FWPT_PKT_TSC && p.type != FWPT_PKT_MTC && p.type != FWPT_PKT_CYC &&
            p.type != FWPT_PKT_TMA && p.type != FWPT_PKT_MODE_EXEC && p.type != FWPT_PKT_PIP &&
            p.type != FWPT_PKT_VMCS)
            break; /* what fup_reached passes over on its way to the TIP */
        fwpt_time_packet(&tm, &p, &st);
    }
    uint64_t tsc = f->time.t.tsc;
    uint8_t ok = f->time.t.have_tsc;
    f->time.t.tsc = tm.t.tsc; /* time_mark takes the time from f->time */
    f->time.t.have_tsc = tm.t.have_tsc;
    time_mark(f, f->t_qp, false);
    f->time.t.tsc = tsc;
    f->time.t.have_tsc = ok;
    f->t_open = 0;
}

/* The buffer starts again at instruction number base: the marks before it but the last are not needed. */
static void time_refill(struct fwpt_flow *f, uint64_t base)
{
    uint32_t k = 0;
    while (k + 1 < f->tmk_n && f->tmk[k + 1].at <= base)
        k++;
    if (k) {
        f->tmk_n -= k;
        for (uint32_t i = 0; i < f->tmk_n; i++)
            f->tmk[i] = f->tmk[i + k];
    }
    f->obuf_base = base;
    f->t_given_ev = 0;
}

void fwpt_flow_set_time(struct fwpt_flow *f, const struct fwpt_time_config *cfg)
{
    f->time_on = 1;
    fwpt_time_init(&f->time, cfg);
    f->tmk_n = 0;
    f->t_open = 1; /* the first event (the synchronization) gives the time from the start */
    f->t_qp = f->n_insns;
}

static const struct fwpt_flow_tmark *time_at(const struct fwpt_flow *f, uint64_t a)
{
    uint32_t lo = 0, hi = f->tmk_n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (f->tmk[mid].at <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &f->tmk[lo - 1] : NULL;
}

static enum fwpt_status time_of(const struct fwpt_flow *f, uint64_t a, uint64_t *tsc)
{
    const struct fwpt_flow_tmark *m = f->time_on ? time_at(f, a) : NULL;
    *tsc = m ? m->tsc : 0;
    return m && m->ok ? FWPT_OK : FWPT_E_NO_TIME;
}

enum fwpt_status fwpt_flow_time(const struct fwpt_flow *f, uint64_t *tsc)
{
    if (TIME_ON(f) && f->t_given_ev) {
        *tsc = f->t_ev_tsc;
        return f->t_ev_ok ? FWPT_OK : FWPT_E_NO_TIME;
    }
    return time_of(f, f->obuf_base + f->oidx - 1, tsc);
}

enum fwpt_status fwpt_flow_insn_time(const struct fwpt_flow *f, const struct fwpt_flow_obuf_insn *insn, uint64_t *tsc)
{
    return time_of(f, f->obuf_base + (uint64_t)(insn - f->obuf), tsc);
}

bool fwpt_flow_tick(const struct fwpt_flow *f, uint64_t *tsc, bool *ok)
{
    if (!f->time_on || f->t_given_ev || !f->oidx)
        return false;
    const struct fwpt_flow_tmark *m = time_at(f, f->obuf_base + f->oidx - 1);
    if (!m || !m->q || m->at != f->obuf_base + f->oidx - 1)
        return false;
    *tsc = m->qtsc;
    *ok = m->qok;
    return true;
}

static struct fwpt_flow_event *evq_push(struct fwpt_flow *f, unsigned kind)
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
        time_event(f, k);
    fwpt_memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->mode = f->mode;
    return e;
}

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

static void retstack_clear(struct fwpt_flow *f) { f->retstack_n = 0; }

static inline void push_ret(struct fwpt_flow *f, uint64_t ip) { fwpt_flow_push_ret(f, ip); }
static inline bool pop_ret(struct fwpt_flow *f, uint64_t *ip) { return fwpt_flow_pop_ret(f, ip); }

static uint64_t cur_offset(const struct fwpt_flow *f)
{
    return f->have_peek ? f->peek.offset : f->pkt.offset;
}

static void reset_walk(struct fwpt_flow *f)
{
    f->tnt_count = 0;
    f->fup_pending = 0;
    f->resolve_pending = 0;
    f->since_packet = 0;
}

/* A flow error: report it, then resume at the next IP packet. */
/* After an error the trace is read without a walk until an IP packet or PSB+ gives the IP again:
 * those bytes are what the error cost (fwpt_flow_bytes_skipped). */
static void lost_step(struct fwpt_flow *f, uint64_t offset)
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

static void drop_pending(struct fwpt_flow *f)
{
    f->pend_tsx = f->pend_exstop = f->pend_ptw = f->pend_pip = f->pend_vmcs = f->pend_mwait = f->pend_pwre = f->pend_trig = 0;
    f->pend_cfe = f->evd_mask = f->mode_fup = f->ntrig = 0;
    f->resume_valid = f->look_pending = f->ovf_open = 0;
}

static bool passed_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to);

static void enter_walk(struct fwpt_flow *f, uint64_t ip)
{
    regained_step(f, f->pkt.offset);
    f->ip = ip;
    f->state = ST_WALK;
    reset_walk(f);
    f->psb_resume = 0;
}

/* A flow error: report it, then resume where the state is known again. That is the first of what the
 * walk had already read ahead: a PSB+ with FUP whose IP the walk has not reached (SDM "Decoder
 * Synchronization (PSB+)": the FUP is the IP at the PSB), then a FUP not yet reached (with the TSX
 * change bound to it). Otherwise the next IP packet or PSB+ (search_step). */
static void flow_error(struct fwpt_flow *f, enum fwpt_status s, uint64_t ip, uint64_t offset)
{
    bool fup = f->fup_pending;
    uint64_t fup_ip = f->stop_ip, fup_off = f->stop_offset;
    uint8_t tsx = f->pend_tsx, mode_fup = f->mode_fup;
    bool psb = f->psb_resume && cur_offset(f) <= f->psb_branch_at && !passed_on_the_way(f, f->psb_from, f->psb_ip);
    uint64_t psb_ip = f->psb_ip;
    uint8_t psb_mode = f->psb_mode;
    drop_pending(f);
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_ERROR);
    e->status = s;
    e->ip = ip;
    e->ip_valid = 1;
    e->offset = offset;
    f->n_errors++;
    lost_step(f, offset);
    reset_walk(f);
    retstack_clear(f);
    f->state = ST_SEARCH;
    f->psb_resume = 0;
    if (psb) {
        if (psb_mode)
            f->mode = psb_mode;
        enter_walk(f, psb_ip);
    } else if (fup) {
        enter_walk(f, fup_ip);
    }
    if (fup) {
        f->fup_pending = 1; /* reached when the walk gets there, as before the error */
        f->stop_ip = fup_ip;
        f->stop_offset = fup_off;
        f->pend_tsx = tsx;
        f->mode_fup = mode_fup; /* with its mode_fup_mode and mode_fup_if, which drop_pending leaves */
    }
}

/* A packet-level error: report it, then resume at the next PSB. */
static void packet_error(struct fwpt_flow *f, enum fwpt_status s)
{
    drop_pending(f);
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_ERROR);
    e->status = s;
    e->ip = f->ip;
    e->ip_valid = f->state == ST_WALK;
    e->offset = f->pkt.offset;
    f->n_errors++;
    lost_step(f, f->pkt.offset);
    reset_walk(f);
    retstack_clear(f);
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

/* The next packet, left in f->peek (not consumed). FWPT_E_EOS at the end; other errors are
 * reported (and the decoder resynchronized) here. */
static inline __attribute__((always_inline)) enum fwpt_status fetch(struct fwpt_flow *f)
{
    if (f->have_peek)
        return FWPT_OK;
    enum fwpt_status s = fwpt_pkt_next(&f->pkt, &f->peek);
    if (s == FWPT_OK) {
        f->have_peek = 1;
        if (TIME_ON(f))
            time_packet(f);
        return FWPT_OK;
    }
    if (s == FWPT_E_EOS)
        return s;
    packet_error(f, s);
    return s;
}

/* fetch for fill_fast_walk: whether time is on is known there (timed), not read from f at every packet. */
static inline __attribute__((always_inline)) enum fwpt_status fetch_walk(struct fwpt_flow *f, const bool timed)
{
    if (f->have_peek)
        return FWPT_OK;
    enum fwpt_status s = fwpt_pkt_next(&f->pkt, &f->peek);
    if (s == FWPT_OK) {
        f->have_peek = 1;
        if (timed)
            time_packet(f);
        return FWPT_OK;
    }
    if (s != FWPT_E_EOS)
        packet_error(f, s);
    return s;
}

static void consume(struct fwpt_flow *f) { f->have_peek = 0; }

/* A MODE.Exec bound to the TIP/TIP.PGE/FUP+TIP just consumed (SDM "MODE.Exec Packet": it precedes the
 * packet of the transfer that changes the mode, and every TIP.PGE): an event when the code size changed
 * or was not known (at the start, after an OVF), and an IFLAGS event when its IF bit (SDM "Event Trace")
 * changed. A MODE.Exec inside PSB+ is status and set silently (psb_plus). */
static void set_iflag(struct fwpt_flow *f, uint8_t ifl, bool ip_valid, uint64_t ip, uint64_t offset);

static void apply_mode(struct fwpt_flow *f)
{
    if (f->pending_mode) {
        bool changed = !f->mode_known || f->pending_mode != f->mode;
        f->mode = f->pending_mode;
        f->mode_known = 1;
        if (changed) {
            struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_MODE);
            e->offset = cur_offset(f);
        }
        set_iflag(f, f->pending_if, false, 0, cur_offset(f));
    }
    f->pending_mode = 0;
}

/* The events a PIP or VMCS describe, at the transfer they bind to (SDM "PIP Packet": it precedes the TIP
 * of the far transfer or VM entry/exit that loaded CR3; "VMCS Packet" likewise). */
static void push_pip(struct fwpt_flow *f)
{
    if (!f->pend_pip)
        return;
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_PAGING);
    e->to = f->pip_cr3;
    e->detail = f->pip_nr;
    e->offset = cur_offset(f);
    f->pend_pip = 0;
}

/* pip_first: the order libipt gives at a TIP.PGD of the transfer itself (PIP, VMCS, then the disable);
 * elsewhere VMCS comes first. */
static void apply_pip_order(struct fwpt_flow *f, bool pip_first)
{
    if (pip_first)
        push_pip(f);
    if (f->pend_vmcs) {
        struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_VMCS);
        e->to = f->vmcs_base;
        e->offset = cur_offset(f);
        f->pend_vmcs = 0;
    }
    push_pip(f);
}

static void apply_pip(struct fwpt_flow *f) { apply_pip_order(f, false); }

static struct fwpt_flow_event *push_tsx(struct fwpt_flow *f, uint8_t what, bool ip_valid, uint64_t ip,
                                         uint64_t offset)
{
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_TSX);
    e->detail = what;
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
    f->intx = what == FWPT_TSX_BEGIN;
    return e;
}

static void push_ptwrite(struct fwpt_flow *f)
{
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_PTWRITE);
    e->to = f->ptw_payload;
    e->size = f->ptw_bytes;
    e->ip = f->ptw_ip;
    e->ip_valid = f->ptw_ip_valid;
    e->offset = cur_offset(f);
    f->pend_ptw = 0;
    f->ptw_ip_valid = 0;
}

/* The PWRE, MWAIT or TRIG held back until now (the flag says whether there is one). */
static void push_pwre(struct fwpt_flow *f, uint64_t offset)
{
    if (!f->pend_pwre)
        return;
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_PWRE);
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
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_MWAIT);
    e->to = f->mwait_hints;
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
    f->pend_mwait = 0;
}

static void push_trig(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset)
{
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_TRIG);
    e->detail = f->trig_trbv;
    e->async = f->trig_mult;
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
    f->pend_trig = 0;
}

/* An EXSTOP, with the MWAIT that led to it first and the PWRE after it (the order libipt gives: SDM
 * "Power Event Tracing": MWAIT, PWRE, EXSTOP are written together when a C-state is entered). */
static void push_exstop(struct fwpt_flow *f, bool ip_valid, uint64_t ip, uint64_t offset)
{
    push_mwait(f, ip_valid, ip, offset);
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_EXSTOP);
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
    f->pend_exstop = 0;
    push_pwre(f, offset);
}

/* MWAIT and PWRE whose EXSTOP did not come (an OVF, the trace's end): given as they are. */
static void flush_power(struct fwpt_flow *f, uint64_t offset)
{
    if (f->pend_exstop) {
        /* EXSTOP with IP bit whose FUP did not come: libipt gives PWRE, MWAIT, EXSTOP */
        push_pwre(f, offset);
        push_exstop(f, false, 0, offset);
        return;
    }
    push_mwait(f, false, 0, offset);
    push_pwre(f, offset);
}

/* ---- Event Trace (SDM "Event Trace": CFE, EVD, MODE.Exec IF) and TRIG's ICNT ---- */

/* pend_cfe: a CFE without IP waits for the transfer it describes (the next FUP reached, TIP or TIP.PGD);
 * one with IP for its FUP; a return-like one whose FUP named the returning instruction for that
 * instruction's transfer (it is given after the instruction, before the packets of its TIP). */
enum { CFE_NONE = 0, CFE_NEXT, CFE_FUP, CFE_BRANCH };

/* RFLAGS.IF as a MODE.Exec gave it (ifl: 1 + IF): an event when it changed or was not known. */
static void set_iflag(struct fwpt_flow *f, uint8_t ifl, bool ip_valid, uint64_t ip, uint64_t offset)
{
    if (!ifl || ifl == f->iflag)
        return;
    f->iflag = ifl;
    if (!f->iflags_on)
        return;
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_IFLAGS);
    e->detail = ifl == 2;
    e->ip = ip;
    e->ip_valid = ip_valid;
    e->offset = offset;
}

/* A MODE.Exec followed by a FUP (SDM "Event Trace": an instruction that changed RFLAGS.IF writes MODE.Exec
 * and a FUP with the IP it binds to): binds there, not to a transfer. */
static void mode_fup_apply(struct fwpt_flow *f, uint64_t ip, uint64_t offset)
{
    f->mode_fup = 0;
    if (!f->mode_known || f->mode != f->mode_fup_mode) {
        f->mode = f->mode_fup_mode;
        struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_MODE);
        e->ip = ip;
        e->ip_valid = 1;
        e->offset = offset;
    }
    f->mode_known = 1;
    set_iflag(f, f->mode_fup_if, true, ip, offset);
}

/* The packet after f->peek when it is a FUP, past PAD and timing packets (MODE.Exec bound to a FUP). */
static bool fup_follows(const struct fwpt_flow *f)
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
    drop_pending(f);
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_ERROR);
    e->status = FWPT_E_BAD_CONTEXT;
    e->offset = offset;
    f->n_errors++;
    lost_step(f, offset);
    reset_walk(f);
    retstack_clear(f);
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
static bool evd_packet(struct fwpt_flow *f, const struct fwpt_packet *p)
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
static void cfe_give(struct fwpt_flow *f)
{
    if (!f->pend_cfe)
        return;
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_CFE);
    *e = f->cfe_ev;
    e->mode = f->mode;
    f->pend_cfe = CFE_NONE;
}

/* CFE (SDM "CFE Packet"): the EVDs before it are its data (CR2 for INTR; exit qualification and reason for
 * VMEXIT and VMEXIT_INTR); IP bit: a FUP follows with the IP it binds to. false: a context error. */
static bool cfe_packet(struct fwpt_flow *f, const struct fwpt_packet *p, bool walking)
{
    uint8_t allowed = p->cfe.type == FWPT_CFE_INTR ? FWPT_EVD_CR2
                      : (p->cfe.type == FWPT_CFE_VMEXIT || p->cfe.type == FWPT_CFE_VMEXIT_INTR)
                          ? FWPT_EVD_VMXQ | FWPT_EVD_VMXR : 0;
    if (f->evd_mask & ~allowed) {
        context_error(f, p->offset);
        return false;
    }
    cfe_give(f); /* an earlier one whose FUP or transfer did not come */
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
        cfe_give(f); /* tracing is off: nothing to bind to */
    return true;
}

/* The CFE's FUP was reached (walking) or read (!walking) at ip. Returns true when that FUP is the CFE's
 * alone: an IRET, RSM, VM entry or UIRET names the instruction that returns, which executes; the event
 * follows it, before its transfer. Others (an interrupt, VM exit) share the FUP with the transfer. */
static bool cfe_fup(struct fwpt_flow *f, bool walking, uint64_t ip)
{
    uint8_t t = f->cfe_ev.detail;
    f->cfe_ev.ip = ip;
    f->cfe_ev.ip_valid = 1;
    if (walking && (t == FWPT_CFE_IRET || t == FWPT_CFE_RSM || t == FWPT_CFE_VMENTRY || t == FWPT_CFE_UIRET)) {
        f->pend_cfe = CFE_BRANCH;
        return true;
    }
    cfe_give(f);
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
static void trig_place(struct fwpt_flow *f, const struct fwpt_packet *p)
{
    if (f->ntrig == sizeof f->trig_q / sizeof f->trig_q[0]) {
        /* cannot happen in a consistent trace: give the oldest where the walk is */
        f->trig_trbv = f->trig_q[0].trbv;
        f->trig_mult = f->trig_q[0].mult;
        push_trig(f, true, f->ip, f->trig_q[0].offset);
        trig_drop(f, 1);
    }
    uint64_t base = f->ntrig ? f->trig_q[f->ntrig - 1].at : f->n_insns;
    if (!f->ntrig && !p->trig.icnt) {
        f->trig_trbv = p->trig.trbv;
        f->trig_mult = p->trig.mult;
        push_trig(f, true, f->ip, p->offset);
        return;
    }
    f->trig_q[f->ntrig].at = base + p->trig.icnt;
    f->trig_q[f->ntrig].offset = p->offset;
    f->trig_q[f->ntrig].trbv = p->trig.trbv;
    f->trig_q[f->ntrig].mult = p->trig.mult;
    f->ntrig++;
}

/* The TRIGs whose instructions have retired (all: flush), before the instruction at f->ip. */
static void trig_due(struct fwpt_flow *f, bool flush)
{
    uint32_t k = 0;
    while (k < f->ntrig && (flush || f->trig_q[k].at <= f->n_insns)) {
        f->trig_trbv = f->trig_q[k].trbv;
        f->trig_mult = f->trig_q[k].mult;
        push_trig(f, !flush, f->ip, f->trig_q[k].offset);
        k++;
    }
    trig_drop(f, k);
}

/* How many of the n instructions from f->ip run before the next TRIG is due. */
static inline uint32_t trig_cut(const struct fwpt_flow *f, uint32_t n)
{
    if (f->ntrig && f->trig_q[0].at - f->n_insns < n)
        return (uint32_t)(f->trig_q[0].at - f->n_insns);
    return n;
}

static uint8_t tsx_what(const struct fwpt_packet *p)
{
    return p->mode_tsx.abrt ? FWPT_TSX_ABORT : p->mode_tsx.intx ? FWPT_TSX_BEGIN : FWPT_TSX_COMMIT;
}

/* A packet in f->peek that moves no IP by itself, met while walking (walking) or while tracing is off
 * or the decoder looks for an IP (!walking): MODE.TSX, EXSTOP and PTW may wait for their FUP (SDM
 * "Packet relationships"), PIP and VMCS for their transfer; TraceStop is an event; timing packets,
 * PAD, MNT and the rest are status. Consumes the packet unless it must wait behind an earlier one
 * (returns false: stop looking ahead until that one has bound). */
static bool side_packet(struct fwpt_flow *f, bool walking)
{
    const struct fwpt_packet *p = &f->peek;
    struct fwpt_flow_event *e;
    switch (p->type) {
    case FWPT_PKT_MODE_EXEC:
        if (p->mode_exec.mode && fup_follows(f)) {
            f->mode_fup = 1; /* RFLAGS.IF changed at the FUP's IP (Event Trace) */
            f->mode_fup_mode = p->mode_exec.mode;
            f->mode_fup_if = (uint8_t)(1 + p->mode_exec.iflag);
        } else if (p->mode_exec.mode) {
            f->pending_mode = p->mode_exec.mode;
            f->pending_if = (uint8_t)(1 + p->mode_exec.iflag);
        }
        break;
    case FWPT_PKT_EVD:
        if (!evd_packet(f, p))
            return true;
        break;
    case FWPT_PKT_CFE:
        if (!cfe_packet(f, p, walking))
            return true;
        break;
    case FWPT_PKT_MODE_TSX:
        if (walking)
            f->pend_tsx = tsx_what(p); /* binds at the FUP that follows */
        else
            push_tsx(f, tsx_what(p), false, 0, p->offset);
        break;
    case FWPT_PKT_EXSTOP:
        if (p->exstop.ip)
            f->pend_exstop = 1; /* its FUP follows */
        else
            push_exstop(f, false, 0, p->offset);
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
            push_pwre(f, p->offset);
        break;
    case FWPT_PKT_PWRX:
        if (!f->pend_exstop)
            push_pwre(f, p->offset); /* the PWRE of a C-state entered without EXSTOP */
        e = evq_push(f, FWPT_FLOW_PWRX);
        e->detail = p->pwrx.last;
        e->size = p->pwrx.deepest;
        e->status = p->pwrx.wake_reason;
        e->offset = p->offset;
        break;
    case FWPT_PKT_TRIG:
        /* SDM "TRIG Packet": with IP, the FUP that follows gives the IP it binds to; with ICNT, that many
         * instructions after the packet before it; else it binds where the walk is */
        if (walking && !p->trig.ip && p->trig.icntv) {
            trig_place(f, p);
            break;
        }
        f->trig_trbv = p->trig.trbv;
        f->trig_mult = p->trig.mult;
        f->pend_trig = 1;
        if (!p->trig.ip)
            push_trig(f, false, 0, p->offset);
        break;
    case FWPT_PKT_CBR:
        e = evq_push(f, FWPT_FLOW_CBR);
        e->detail = p->cbr.ratio;
        e->offset = p->offset;
        break;
    case FWPT_PKT_MNT:
        e = evq_push(f, FWPT_FLOW_MNT);
        e->to = p->mnt.payload;
        e->offset = p->offset;
        break;
    case FWPT_PKT_PTW:
        if (f->pend_ptw) {
            if (walking)
                return false;
            push_ptwrite(f); /* the FUP it announced did not come */
        }
        f->pend_ptw = p->ptw.ip ? 2 : 1;
        f->ptw_payload = p->ptw.payload;
        f->ptw_bytes = p->ptw.bytes;
        f->ptw_ip_valid = 0;
        if (!walking && !p->ptw.ip) {
            consume(f);
            push_ptwrite(f);
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
            apply_pip(f);
        break;
    case FWPT_PKT_VMCS:
        f->vmcs_base = p->vmcs.base;
        f->pend_vmcs = 1;
        if (!walking)
            apply_pip(f);
        break;
    case FWPT_PKT_STOP:
        e = evq_push(f, FWPT_FLOW_STOPPED);
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
static bool fup_of_status(struct fwpt_flow *f, bool walking)
{
    const struct fwpt_packet *p = &f->peek;
    if (!walking && !p->ip.suppressed && (f->mode_fup || f->pend_cfe == CFE_FUP)) {
        if (f->mode_fup)
            mode_fup_apply(f, p->ip.ip, p->offset);
        if (f->pend_cfe == CFE_FUP)
            cfe_fup(f, false, p->ip.ip);
        consume(f);
        return true;
    }
    if (f->pend_trig && !walking) {
        push_trig(f, !p->ip.suppressed, p->ip.ip, p->offset);
        consume(f);
        return true;
    }
    if (f->pend_ptw == 2) {
        f->ptw_ip = p->ip.ip;
        f->ptw_ip_valid = !p->ip.suppressed;
        f->pend_ptw = 1;
        consume(f);
        if (!walking)
            push_ptwrite(f);
        return true;
    }
    if (f->pend_exstop && !walking) {
        push_exstop(f, !p->ip.suppressed, p->ip.ip, p->offset);
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
static uint8_t next_control(const struct fwpt_flow *f, bool skip_peek)
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

static bool pge_follows(const struct fwpt_flow *f) { return next_control(f, false) == FWPT_PKT_TIP_PGE; }

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

static void lookahead(struct fwpt_flow *f);
static int64_t insns_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to);

/* A PSB+ read while in sync: libipt gives its status (MODE.Exec) as events at PSBEND, so it carries the time
 * like an event; they bind to the PSB+'s FUP IP, where the walk is at the PSB, so the next event's time
 * applies from the instruction there on. */
static void time_psb(struct fwpt_flow *f, bool have_fup, uint64_t fup_ip)
{
    time_status(f);
    if (have_fup && fup_ip != f->ip) {
        int64_t k = insns_on_the_way(f, f->ip, fup_ip);
        if (k < 0)
            f->t_open = 0;
        else
            f->t_qp += (uint64_t)k;
    }
}

static void psb_plus(struct fwpt_flow *f)
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
            side_packet(f, false); /* MNT is an event wherever it stands */
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
        flow_error(f, FWPT_E_BAD_STATUS, fup_ip, psb_off);
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
        push_tsx(f, intx ? FWPT_TSX_BEGIN : FWPT_TSX_COMMIT, false, 0, psb_off)->sync = 1;
    if (f->state == ST_WALK) {
        if (TIME_ON(f) && mode)
            time_psb(f, have_fup, fup_ip);
        /* in sync: PSB+ is status only. Its FUP is where the walk will be at the PSB: should an error
         * come before the walk takes its next branch packet, the walk resumes there (flow_error) */
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
        retstack_clear(f);
        enter_walk(f, fup_ip);
        struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_ENABLED);
        e->ip = fup_ip;
        e->ip_valid = 1;
        e->sync = 1;
        e->offset = psb_off;
        lookahead(f);
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
    e = evq_push(f, FWPT_FLOW_OVERFLOW);
    e->offset = f->ovf_offset;
    time_at_fup(f, e); /* the time at the OVF (overflow() keeps it as a FUP's) */
    return e;
}

/* The packets after an OVF up to the one that says where execution goes on (SDM "Overflow (OVF) Packet": OVF,
 * then PSB+ or none, then FUP or TIP.PGE). Stops while the event queue is nearly full (ovf_open stays
 * set: search_step calls it again). e: the OVERFLOW event when overflow() gave it just now. */
static void overflow_resolve(struct fwpt_flow *f, struct fwpt_flow_event *e)
{
    for (;;) {
        if (evq_tight(f))
            return;
        if (fetch(f) != FWPT_OK)
            break;
        uint8_t t = f->peek.type;
        if (t == FWPT_PKT_MODE_TSX) {
            f->pend_tsx = tsx_what(&f->peek); /* given after the OVERFLOW */
            consume(f);
            continue;
        }
        if (t == FWPT_PKT_PSB || t == FWPT_PKT_FUP || t == FWPT_PKT_TIP || t == FWPT_PKT_TIP_PGE ||
            t == FWPT_PKT_TIP_PGD || t == FWPT_PKT_OVF || is_tnt(t))
            e = ovf_event(f, e);
        if (t == FWPT_PKT_PSB) {
            psb_plus(f);
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
                push_tsx(f, f->pend_tsx, true, ip, at);
                f->pend_tsx = 0;
            }
            f->ovf_open = 0;
            apply_mode(f);
            enter_walk(f, ip);
            lookahead(f);
            return;
        }
        if (t == FWPT_PKT_TIP_PGE || is_tnt(t) || t == FWPT_PKT_TIP || t == FWPT_PKT_TIP_PGD ||
            t == FWPT_PKT_OVF || t == FWPT_PKT_FUP)
            break; /* no resume IP here: the disabled state waits for one (a TIP.PGE: handled there) */
        side_packet(f, false);
    }
    ovf_event(f, e);
    f->ovf_open = 0;
    if (f->pend_tsx) {
        push_tsx(f, f->pend_tsx, false, 0, f->ovf_offset);
        f->pend_tsx = 0;
    }
}

static void overflow(struct fwpt_flow *f)
{
    uint64_t off = f->peek.offset;
    consume(f);
    flush_power(f, off);
    cfe_give(f);
    trig_due(f, true);
    f->mode_known = 0; /* a MODE.Exec after the overflow is news even when it repeats the last one */
    f->iflag = 0;
    f->evd_mask = 0;
    f->mode_fup = 0;
    reset_walk(f);
    f->resume_valid = 0;
    f->pend_tsx = 0;
    retstack_clear(f); /* SDM "Indirect Transfer Compression for Returns (RET)": no RET compressed across an overflow */
    f->state = ST_DISABLED; /* PSB+ in between must not synchronize by itself */
    f->ovf_open = 1;
    f->ovf_pushed = 0;
    f->ovf_offset = off;
    if (TIME_ON(f))
        time_fup(f);
    /* The OVERFLOW event: at once, or (as libipt orders it) after what the packets up to the FUP that
     * resolves the overflow report, when a FUP is what resolves it. */
    struct fwpt_flow_event *e = next_control(f, false) != FWPT_PKT_FUP ? ovf_event(f, NULL) : NULL;
    overflow_resolve(f, e);
}

static int insn_class_at(struct fwpt_flow *f, uint64_t ip);
static bool reachable(struct fwpt_flow *f, uint64_t from, uint64_t to);

/* After a packet was consumed by the walk: handle what the processor emitted before the next
 * branch packet (asynchronous FUP, OVF, PSB+, MODE, timing). Stops at TNT/TIP/TIP.PGE/TIP.PGD. */
static void lookahead(struct fwpt_flow *f)
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
                evq_push(f, FWPT_FLOW_END)->offset = f->pkt.offset;
            }
            return;
        }
        switch (f->peek.type) {
        case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE:
        case FWPT_PKT_TIP_PGD:
            if (f->psb_resume && f->psb_branch_at == ~(uint64_t)0)
                f->psb_branch_at = f->peek.offset;
            if (TIME_ON(f) && f->t_open && f->peek.type == FWPT_PKT_TIP_PGD) {
                time_mark(f, f->t_qp, false); /* the disable is the next event: its time applies from here */
                f->t_open = 0;
            }
            return;
        case FWPT_PKT_FUP:
            if (fup_of_status(f, true))
                continue;
            if (f->errata.skd022 && !f->peek.ip.suppressed && !f->pend_tsx &&
                next_control(f, true) == FWPT_PKT_TIP_PGD && insn_class_at(f, f->peek.ip.ip) == FWPT_IC_VMENTRY) {
                /* SKD022: a VM entry that clears TraceEn wrote a FUP before its TIP.PGD: the VMLAUNCH or
                 * VMRESUME at the FUP's IP executes, and its TIP.PGD disables tracing */
                consume(f);
                continue;
            }
            if (f->errata.bdm64 && f->pend_tsx == FWPT_TSX_ABORT && !f->peek.ip.suppressed &&
                f->last_class != FWPT_IC_OTHER && !reachable(f, f->ip, f->peek.ip.ip)) {
                /* BDM64: the branch just taken logged a wrong target before the abort; the abort's FUP
                 * cannot be reached from there, so the branch went to the FUP's IP */
                f->ip = f->peek.ip.ip;
            }
            if (!f->peek.ip.suppressed) {
                f->fup_pending = 1; /* SDM Table "FUP Cases and IP Payload": FUP..TIP compound event, bound to this IP */
                f->stop_ip = f->peek.ip.ip;
                f->stop_offset = f->peek.offset;
                if (TIME_ON(f))
                    time_fup(f);
            }
            consume(f);
            return;
        case FWPT_PKT_OVF:
            overflow(f);
            continue;
        case FWPT_PKT_PSB:
            psb_plus(f);
            continue;
        case FWPT_PKT_CYC:
            if (f->errata.skd007 && skd007_ovf(f)) {
                overflow(f);
                continue;
            }
            consume(f);
            continue;
        default:
            if (!side_packet(f, true))
                return;
            continue;
        }
    }
}

static void disabled_at(struct fwpt_flow *f, const struct fwpt_packet *pgd, bool async, uint64_t at)
{
    cfe_give(f);       /* a CFE describes the transfer that disabled tracing */
    trig_due(f, true); /* their instructions ran before it */
    struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_DISABLED);
    e->offset = pgd->offset;
    e->async = async;
    if (async) {
        time_at_fup(f, e);
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
    reset_walk(f);
    f->state = ST_DISABLED;
}

/* The trace ended where the walk needed a packet, with tracing on (no TIP.PGD came): the buffer filled or the
 * trace was cut. ip: the instruction whose successor needed it (listed), or a pending FUP's IP (not listed). */
static void walk_cut(struct fwpt_flow *f, uint64_t ip)
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
static void fup_reached(struct fwpt_flow *f)
{
    f->fup_pending = 0;
    f->psb_resume = 0; /* what follows the FUP is taken now */
    /* the FUP of an EXSTOP or TRIG with IP bit, or of a transaction's begin or commit (XBEGIN, XEND: no
     * transfer), is theirs alone (SDM "Packet relationships"): it pairs with no TIP or TIP.PGD after it.
     * An abort's FUP pairs with the TIP (or TIP.PGD) to the abort handler */
    bool status_fup = f->pend_exstop || f->pend_trig || (f->pend_tsx && f->pend_tsx != FWPT_TSX_ABORT);
    if (f->pend_tsx) {
        push_tsx(f, f->pend_tsx, true, f->stop_ip, f->stop_offset);
        f->pend_tsx = 0;
    }
    if (f->mode_fup) {
        mode_fup_apply(f, f->stop_ip, f->stop_offset);
        status_fup = true;
    }
    if (f->pend_cfe == CFE_FUP)
        status_fup |= cfe_fup(f, true, f->stop_ip);
    else if (f->pend_cfe == CFE_NEXT)
        cfe_give(f); /* the transfer this FUP starts is the one it describes */
    if (f->pend_exstop)
        push_exstop(f, true, f->stop_ip, f->stop_offset);
    if (f->pend_trig)
        push_trig(f, true, f->stop_ip, f->stop_offset);
    if (status_fup) {
        lookahead(f);
        return;
    }
    for (;;) {
        if (evq_tight(f)) {
            f->fup_pending = 1; /* reached again after the queue drained (what was given above is not) */
            return;
        }
        enum fwpt_status s = fetch(f);
        if (s == FWPT_E_EOS) {
            walk_cut(f, f->ip);
            return;
        }
        if (s != FWPT_OK)
            return;
        uint8_t t = f->peek.type;
        if (t == FWPT_PKT_TIP && !f->peek.ip.suppressed) {
            struct fwpt_flow_event *e = evq_push(f, FWPT_FLOW_INTERRUPT);
            time_at_fup(f, e);
            e->ip = f->stop_ip;
            e->ip_valid = 1;
            e->to = f->peek.ip.ip;
            e->offset = f->stop_offset;
            consume(f);
            apply_pip(f);
            apply_mode(f);
            e->mode = f->mode;
            enter_walk(f, e->to);
            lookahead(f);
            return;
        }
        if (t == FWPT_PKT_TIP_PGD) {
            struct fwpt_packet pgd = f->peek;
            consume(f);
            disabled_at(f, &pgd, true, f->stop_ip);
            apply_pip(f); /* libipt gives a PIP or VMCS bound to a TIP.PGD after the disable */
            return;
        }
        if (t == FWPT_PKT_MODE_EXEC || t == FWPT_PKT_PIP || t == FWPT_PKT_VMCS || t == FWPT_PKT_PAD ||
            t == FWPT_PKT_TSC || t == FWPT_PKT_MTC || t == FWPT_PKT_CYC || t == FWPT_PKT_CBR ||
            t == FWPT_PKT_TMA) {
            /* SDM "Packet relationships": PIP, VMCS, MODE.Exec may sit between FUP and TIP. A second PIP
             * before the TIP (no MOV CR3 can come between): the first is given now, or this would wait forever */
            if (!side_packet(f, true))
                push_pip(f);
            continue;
        }
        /* a FUP not coupled with a TIP (e.g. PTWRITE, EXSTOP): nothing changes the flow */
        lookahead(f);
        return;
    }
}

/* ---- code and the instruction cache ---- */

static enum fwpt_status build_block(struct fwpt_flow *f, uint64_t ip, struct fwpt_flow_block *b,
                                    uint64_t *fail_ip)
{
    uint64_t cur = ip;
    unsigned n = 0;
    enum fwpt_status err = FWPT_OK;
    struct fwpt_insn in;
    in.iclass = FWPT_IC_OTHER;
    b->iclass = FWPT_IC_OTHER;
    b->flags = 0;
    b->target = 0;
    while (n < FWPT_FLOW_BLOCK_INSNS) {
        const uint8_t *bytes = NULL;
        uint8_t tmp[16];
        size_t avail = f->read(f->read_ctx, cur, &bytes);
        if (!avail || !bytes) {
            err = FWPT_E_NOMAP;
            break;
        }
        if (avail < 15) {
            /* the instruction may continue in the next mapped piece */
            size_t have = avail;
            fwpt_memcpy(tmp, bytes, avail);
            while (have < 15) {
                const uint8_t *more = NULL;
                size_t m = f->read(f->read_ctx, cur + have, &more);
                if (!m || !more)
                    break;
                if (m > 15 - have)
                    m = 15 - have;
                fwpt_memcpy(tmp + have, more, m);
                have += m;
            }
            bytes = tmp;
            avail = have;
        }
        err = fwpt_insn_decode(bytes, avail, (enum fwpt_exec_mode)f->mode, &in);
        if (err != FWPT_OK) {
            if (err == FWPT_E_TRUNCATED)
                err = FWPT_E_NOMAP; /* the rest of the instruction is not mapped */
            break;
        }
        b->sizes[n++] = in.size;
        if (in.iclass != FWPT_IC_OTHER) {
            b->iclass = in.iclass;
            if (in.iclass == FWPT_IC_JCC || in.iclass == FWPT_IC_JMP_REL || in.iclass == FWPT_IC_CALL_REL)
                b->target = fwpt_insn_rel_target(&in, cur, (enum fwpt_exec_mode)f->mode);
            if (in.iclass == FWPT_IC_CALL_REL && in.zero_len_call)
                b->flags |= FWPT_FLOW_BF_ZERO_LEN_CALL;
            cur += in.size;
            break;
        }
        cur += in.size;
    }
    if (!n) {
        *fail_ip = cur;
        b->ip = FWPT_FLOW_NO_IP;
        b->mode = FWPT_MODE_UNKNOWN; /* empty, as in fwpt_flow_cache_reset */
        return err;
    }
    b->ninsn = (uint8_t)n;
    b->nbytes = (uint16_t)(cur - ip);
    b->mode = f->mode;
    b->ip = ip;
    return FWPT_OK;
}

/* The class of the instruction at ip (FWPT_IC_COUNT when it cannot be read). */
static int insn_class_at(struct fwpt_flow *f, uint64_t ip)
{
    struct fwpt_flow_block b;
    uint64_t fail;
    if (build_block(f, ip, &b, &fail) != FWPT_OK)
        return FWPT_IC_COUNT;
    return b.ninsn == 1 ? b.iclass : FWPT_IC_OTHER;
}

/* How many instructions the code from 'from' runs before it meets 'to' (within 64 blocks), along fall-through only
 * (jumps: false), or also along direct jumps and calls (jumps: true, what the walk does without a packet); -1
 * where the code ends or a packet would be needed first. */
static int64_t walk_to(struct fwpt_flow *f, uint64_t from, uint64_t to, bool jumps)
{
    struct fwpt_flow_block b;
    uint64_t fail;
    int64_t n = 0;
    for (unsigned k = 0; k < 64; k++) {
        if (build_block(f, from, &b, &fail) != FWPT_OK)
            return -1;
        uint64_t a = from;
        for (unsigned i = 0; i < b.ninsn; i++, n++) {
            if (a == to)
                return n;
            a += b.sizes[i];
        }
        if (jumps && (b.iclass == FWPT_IC_JMP_REL || b.iclass == FWPT_IC_CALL_REL))
            from = b.target;
        else if (b.iclass == FWPT_IC_OTHER)
            from = a;
        else
            return -1;
    }
    return -1;
}

/* Does the code run from 'from' to 'to' without a branch (libipt's test for BDM64)? */
static bool reachable(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, false) >= 0; }

/* Does the walk from 'from' meet 'to' without a packet? */
static bool passed_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, true) >= 0; }

/* How many instructions the walk runs from 'from' before it reaches 'to' without a packet; -1: it needs one first. */
static int64_t insns_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, true); }

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
    *st = build_block(f, ip, b, &fail_ip);
    if (*st != FWPT_OK) {
        if (f->end_seen)
            walk_cut(f, fail_ip); /* past the trace's end the code ran out: no packet says more */
        else
            flow_error(f, *st, fail_ip, cur_offset(f));
        return NULL;
    }
    return b;
}

/* ---- packets the walk consumes ---- */

/* One TNT bit for a conditional branch or a compressed RET. Returns 0/1, or -1 when the walk
 * stopped (error, disable, end). */
static int take_tnt(struct fwpt_flow *f, enum fwpt_status miss)
{
    bool newpkt = !f->tnt_count;
    if (!f->tnt_count) {
        enum fwpt_status s = fetch(f);
        if (s == FWPT_E_EOS) {
            walk_cut(f, f->last_ip);
            return -1;
        }
        if (s != FWPT_OK)
            return -1;
        uint8_t t = f->peek.type;
        if (is_tnt(t)) {
            f->tnt_bits = f->peek.tnt.bits;
            f->tnt_count = f->peek.tnt.count;
            consume(f);
            if (!f->tnt_count) {
                flow_error(f, miss, f->last_ip, f->pkt.offset);
                return -1;
            }
        } else if (t == FWPT_PKT_TIP_PGD) {
            struct fwpt_packet pgd = f->peek;
            consume(f);
            apply_pip_order(f, true);
            disabled_at(f, &pgd, false, 0);
            return -1;
        } else {
            flow_error(f, miss, f->last_ip, f->peek.offset);
            return -1;
        }
    }
    int bit = (int)(f->tnt_bits & 1);
    f->tnt_bits >>= 1;
    f->tnt_count--;
    f->since_packet = 0;
    if (TIME_ON(f))
        time_query(f, f->n_insns - 1, newpkt);
    return bit;
}

/* The TIP of an indirect transfer. Returns true with *ip, or false when the walk stopped.
 * SDM "Deferred TIPs": the processor may hold TIPs back while the TNT fills with the branches after
 * them, then write the TNT and the TIPs after it. So TNT bits in hand may belong to branches after
 * this transfer, and with none in hand a TNT may stand before its TIP (libipt takes both the same). */
static bool take_tip(struct fwpt_flow *f, uint64_t *ip)
{
    enum fwpt_status s = fetch(f);
    if (s == FWPT_E_EOS) {
        walk_cut(f, f->last_ip);
        return false;
    }
    if (s != FWPT_OK)
        return false;
    uint8_t t = f->peek.type;
    if (is_tnt(t) && !f->tnt_count && f->peek.tnt.count) {
        /* a TNT ahead of a deferred TIP: its bits are for the branches after this transfer */
        f->tnt_bits = f->peek.tnt.bits;
        f->tnt_count = f->peek.tnt.count;
        consume(f);
        s = fetch(f);
        if (s == FWPT_E_EOS) {
            walk_cut(f, f->last_ip);
            return false;
        }
        if (s != FWPT_OK)
            return false;
        t = f->peek.type;
        if (t != FWPT_PKT_TIP) {
            flow_error(f, FWPT_E_NO_TIP, f->last_ip, f->peek.offset);
            return false;
        }
    }
    if (t == FWPT_PKT_TIP && !f->peek.ip.suppressed) {
        *ip = f->peek.ip.ip;
        consume(f);
        f->since_packet = 0;
        if (TIME_ON(f))
            time_query(f, f->n_insns - 1, true);
        cfe_give(f); /* a CFE without IP (or bound to this instruction) describes this transfer */
        apply_pip(f);
        apply_mode(f);
        return true;
    }
    if (t == FWPT_PKT_TIP_PGD) {
        struct fwpt_packet pgd = f->peek;
        consume(f);
        apply_pip_order(f, true);
        disabled_at(f, &pgd, false, 0);
        return false;
    }
    flow_error(f, FWPT_E_NO_TIP, f->last_ip, f->peek.offset);
    return false;
}

/* Where the last instruction of the run goes. */
static void resolve(struct fwpt_flow *f)
{
    uint64_t next = f->next_ip, target;
    bool look = false;
    f->resolve_pending = 0;
    if (f->pend_cfe == CFE_BRANCH)
        cfe_give(f); /* after the returning instruction its CFE named, before the packets of its transfer */
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
            (f->peek.ip.suppressed ? filtered_out(f, f->last_target) : f->peek.ip.ip == f->last_target)) {
            /* a direct branch out of the IP filter range: TIP.PGD with its target, or without an IP when
             * the target lies outside the ranges the trace was recorded with (erratum SKL014) */
            struct fwpt_packet pgd = f->peek;
            consume(f);
            apply_pip_order(f, true);
            disabled_at(f, &pgd, false, 0);
        }
        break;
    case FWPT_IC_RET: {
        /* SDM "Indirect Transfer Compression for Returns (RET)": a TNT bit means a compressed RET (target from the stack), else a TIP */
        bool compressed = f->tnt_count != 0;
        if (!compressed) {
            enum fwpt_status s = fetch(f);
            if (s == FWPT_E_EOS) {
                walk_cut(f, f->last_ip);
                return;
            }
            if (s != FWPT_OK)
                return;
            compressed = is_tnt(f->peek.type);
        }
        if (compressed) {
            int bit = take_tnt(f, FWPT_E_NO_TNT);
            if (bit < 0)
                return;
            if (!bit) {
                flow_error(f, FWPT_E_BAD_QUERY, f->last_ip, cur_offset(f));
                return;
            }
            if (!pop_ret(f, &target)) {
                flow_error(f, FWPT_E_RETSTACK, f->last_ip, cur_offset(f));
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
            push_ptwrite(f); /* SDM "PTW Packet": written by this PTWRITE */
            look = true;
        } else if (f->last_class == FWPT_IC_MOV_CR3) {
            /* SDM "PIP Packet": a MOV CR3 writes one; with CR3 filtering it may clear ContextEn, and its
             * TIP.PGD carries no branch target (no IP, or the next instruction's) */
            push_pip(f);
            if (f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD &&
                (f->peek.ip.suppressed || f->peek.ip.ip == next)) {
                struct fwpt_packet pgd = f->peek;
                consume(f);
                disabled_at(f, &pgd, false, 0);
                return;
            }
            look = true;
        }
        break;
    }
    if (look)
        lookahead(f);
}

/* ---- states without an IP ---- */

static void search_step(struct fwpt_flow *f)
{
    if (f->ovf_open) {
        overflow_resolve(f, NULL); /* it stopped to let the event queue drain */
        return;
    }
    enum fwpt_status s = fetch(f);
    if (s == FWPT_E_EOS) {
        f->state = ST_END;
        return;
    }
    if (s != FWPT_OK)
        return;
    struct fwpt_packet *p = &f->peek;
    struct fwpt_flow_event *e;
    switch (p->type) {
    case FWPT_PKT_PSB:
        psb_plus(f);
        break;
    case FWPT_PKT_OVF:
        overflow(f);
        break;
    case FWPT_PKT_TIP_PGE:
        if (p->ip.suppressed) {
            consume(f);
            break;
        }
        if (f->state != ST_DISABLED)
            retstack_clear(f);
        if (f->state == ST_SEARCH) {
            /* lost after an error: a TIP.PGE says tracing had been disabled somewhere in what was lost
             * (SDM "TIP.PGE Packet": generated when PacketEn goes from 0 to 1) */
            e = evq_push(f, FWPT_FLOW_DISABLED);
            e->offset = p->offset;
        }
        e = evq_push(f, FWPT_FLOW_ENABLED);
        e->ip = p->ip.ip;
        e->ip_valid = 1;
        e->offset = p->offset;
        e->detail = f->state == ST_DISABLED && f->resume_valid && f->resume_ip == p->ip.ip; /* resumed */
        f->resume_valid = 0;
        consume(f);
        apply_mode(f);
        e->mode = f->mode;
        enter_walk(f, e->ip);
        lookahead(f);
        break;
    case FWPT_PKT_TIP:
        if (f->state == ST_SEARCH && !p->ip.suppressed) {
            /* after an error: the target of some transfer is a place to resume */
            uint64_t ip = p->ip.ip;
            consume(f);
            apply_mode(f);
            enter_walk(f, ip);
            lookahead(f);
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
            disabled_at(f, &pgd, false, 0);
            f->resume_valid = !pgd.ip.suppressed;
            apply_pip(f);
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
                fup_of_status(f, true); /* the PTWRITE at ip: its event after that instruction */
                enter_walk(f, ip);
            } else {
                enter_walk(f, ip);
                f->fup_pending = 1;
                f->stop_ip = ip;
                f->stop_offset = p->offset;
                if (TIME_ON(f))
                    time_fup(f);
                consume(f);
            }
            if (!f->fup_pending)
                lookahead(f);
            break;
        }
        if (!fup_of_status(f, false))
            consume(f);
        break;
    case FWPT_PKT_MODE_TSX:
        if (f->state == ST_SEARCH && next_control(f, true) == FWPT_PKT_FUP) {
            f->pend_tsx = tsx_what(p); /* binds at its FUP, where the walk resumes */
            consume(f);
            break;
        }
        side_packet(f, false);
        break;
    default:
        side_packet(f, false);
        break;
    }
}

/* Resolutions that need no lookahead and create no event: the hot cases. */
static inline bool fast_resolve(struct fwpt_flow *f)
{
    switch (f->last_class) {
    case FWPT_IC_JCC:
        if (f->tnt_count <= 1)
            return false;
        {
            /* branch-free: the outcome is data, not a prediction */
            uint64_t m = -(f->tnt_bits & 1);
            f->ip = f->next_ip ^ ((f->next_ip ^ f->last_target) & m);
        }
        break;
    case FWPT_IC_RET:
        /* compressed RET with bits left in hand (SDM "Indirect Transfer Compression for Returns (RET)") */
        if (f->tnt_count <= 1 || !(f->tnt_bits & 1) || !pop_ret(f, &f->ip))
            return false;
        break;
    case FWPT_IC_JMP_REL: case FWPT_IC_CALL_REL:
        if (f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD)
            return false; /* may leave the IP filter range here */
        if (f->last_class == FWPT_IC_CALL_REL && !(f->last_flags & FWPT_FLOW_BF_ZERO_LEN_CALL))
            push_ret(f, f->next_ip);
        f->ip = f->last_target;
        f->resolve_pending = 0;
        return true;
    case FWPT_IC_OTHER:
        f->ip = f->next_ip;
        f->resolve_pending = 0;
        return true;
    default:
        return false;
    }
    f->tnt_bits >>= 1;
    f->tnt_count--;
    f->since_packet = 0;
    f->resolve_pending = 0;
    return true;
}

/* The walk reached the end of block b (next_ip = its fall-through): record its last instruction
 * for resolve(). One copy for every path; inlined, so it costs the hot loops nothing. */
static inline void end_block(struct fwpt_flow *f, const struct fwpt_flow_block *b, uint64_t next_ip)
{
    f->next_ip = next_ip;
    f->last_ip = next_ip - b->sizes[b->ninsn - 1];
    f->last_class = b->iclass;
    f->last_target = b->target;
    f->last_flags = b->flags;
    f->resolve_pending = 1;
}

/* How many of b's instructions run before a pending FUP's stop_ip binds inside b: all of them
 * (*full = true) unless stop_ip is the address of one of them. */
static inline uint32_t fup_cut(const struct fwpt_flow *f, const struct fwpt_flow_block *b, bool *full)
{
    uint32_t n = b->ninsn;
    *full = true;
    if (f->fup_pending && f->stop_ip - f->ip < b->nbytes) {
        uint64_t a = f->ip;
        uint32_t k = 0;
        while (k < n && a != f->stop_ip)
            a += b->sizes[k++];
        if (k < n) {
            *full = false;
            return k;
        }
    }
    return n;
}

/* fast_resolve for next_run's hot case, also across TNT packets as fill_fast does: takes the TNT
 * lookahead left in peek, and after a packet's last bit fetches the next one, looking ahead
 * (which may queue events or stop the walk: the caller checks) unless it is a TNT or TIP. */
static inline bool run_resolve(struct fwpt_flow *f)
{
    const uint8_t c = f->last_class;
    if (c != FWPT_IC_JCC && c != FWPT_IC_RET)
        return fast_resolve(f);
    bool took = false;
    if (!f->tnt_count && f->have_peek && is_tnt(f->peek.type) && f->peek.tnt.count) {
        /* take_tnt: the TNT packet lookahead left in peek */
        f->tnt_bits = f->peek.tnt.bits;
        f->tnt_count = f->peek.tnt.count;
        f->have_peek = 0;
        took = true;
    }
    if (!f->tnt_count)
        return false;
    if (c == FWPT_IC_JCC) {
        uint64_t m = -(f->tnt_bits & 1); /* branch-free, as in fast_resolve */
        f->ip = f->next_ip ^ ((f->next_ip ^ f->last_target) & m);
    } else if (!(f->tnt_bits & 1) || !pop_ret(f, &f->ip)) {
        return false; /* resolve() reports it */
    }
    f->tnt_bits >>= 1;
    f->since_packet = 0;
    f->resolve_pending = 0;
    f->tnt_count--;
    if (TIME_ON(f))
        time_query(f, f->n_insns - 1, took);
    if (f->tnt_count)
        return true;
    /* the packet is used up: look ahead as resolve() does */
    if (fetch(f) == FWPT_OK &&
        (is_tnt(f->peek.type) || f->peek.type == FWPT_PKT_TIP))
        return true; /* lookahead would stop at once */
    lookahead(f);
    return true;
}

enum fwpt_status fwpt_flow_next_run(struct fwpt_flow *f, struct fwpt_flow_run *run,
                                    struct fwpt_flow_event *ev)
{
    if (f->resolve_pending && !f->evq_n && !f->evq_overrun && !f->fup_pending && !f->look_pending && f->cache && f->state == ST_WALK &&
        run_resolve(f) && !f->evq_n && !f->fup_pending && !f->ntrig && f->state == ST_WALK) {
        /* the hot case first: a cached block after a transfer resolved without packets */
        const struct fwpt_flow_block *b = &f->cache[FLOW_SLOT(f->ip) & f->cache_mask];
        const uint32_t n = b->ninsn;
        if (b->ip == f->ip && b->mode == f->mode && f->since_packet + n <= f->runaway_limit) {
            f->cache_hits++;
            f->since_packet += n;
            f->n_insns += n;
            run->ip = f->ip;
            run->sizes = b->sizes;
            run->n = n;
            run->mode = f->mode;
            f->run_full = 1;
            end_block(f, b, f->ip + b->nbytes);
            ev->kind = FWPT_FLOW_INSN;
            return FWPT_OK;
        }
        /* else the general path below builds the block or reports the runaway */
    }
    run->n = 0;
    for (;;) {
        if (f->evq_n)
            return evq_pop(f, ev);
        if (__builtin_expect(f->evq_overrun, 0))
            return FWPT_E_INTERNAL; /* after every event queued before it */
        if (f->state != ST_WALK) {
            if (f->state == ST_END)
                return FWPT_E_EOS;
            if (f->state == ST_UNSYNCED) {
                enum fwpt_status s = fetch(f);
                if (s == FWPT_E_EOS) {
                    f->state = ST_END;
                    continue;
                }
                if (s != FWPT_OK)
                    continue;
                if (f->peek.type == FWPT_PKT_PSB)
                    psb_plus(f);
                else
                    f->state = ST_SEARCH;
                if (f->state == ST_WALK)
                    lookahead(f);
                continue;
            }
            search_step(f);
            continue;
        }
        if (f->look_pending) {
            lookahead(f);
            continue;
        }
        if (f->resolve_pending && !fast_resolve(f)) {
            resolve(f);
            continue;
        }
        if (f->ntrig && f->trig_q[0].at <= f->n_insns) {
            trig_due(f, false);
            continue;
        }
        if (f->fup_pending && f->ip == f->stop_ip) {
            fup_reached(f);
            continue;
        }
        enum fwpt_status st;
        const struct fwpt_flow_block *b = get_block(f, f->ip, &st);
        if (!b)
            continue;
        /* the asynchronous event (or a TRIG) may bind inside this run: stop before that instruction */
        bool full;
        uint32_t n = fup_cut(f, b, &full), nt = trig_cut(f, n);
        if (nt < n) {
            n = nt;
            full = false;
        }
        f->run_full = full;
        f->since_packet += n;
        if (f->since_packet > f->runaway_limit) {
            flow_error(f, FWPT_E_RUNAWAY, f->ip, cur_offset(f));
            continue;
        }
        run->ip = f->ip;
        run->sizes = b->sizes;
        run->n = n;
        run->mode = f->mode;
        if (f->run_full) {
            end_block(f, b, f->ip + b->nbytes);
            if (f->cache) {
                /* the next block is one of these: load its entry while the caller reads this run */
                __builtin_prefetch(&f->cache[FLOW_SLOT(b->target) & f->cache_mask]);
                __builtin_prefetch(&f->cache[FLOW_SLOT(f->next_ip) & f->cache_mask]);
            }
        } else {
            for (uint32_t k = 0; k < n; k++)
                f->ip += b->sizes[k]; /* the pending FUP's IP, or where a TRIG binds */
        }
        f->n_insns += n;
        ev->kind = FWPT_FLOW_INSN;
        return FWPT_OK;
    }
}

/* kind (FWPT_FLOW_INSN), size, iclass (FWPT_IC_OTHER; the last of a block is set after), mode as
 * the four bytes of one store, in memory order. */
static inline uint32_t head_word(uint8_t size, uint8_t mode)
{
    return (uint32_t)FWPT_FLOW_INSN | (uint32_t)size << 8 | (uint32_t)FWPT_IC_OTHER << 16 |
           (uint32_t)mode << 24;
}

static inline void put_head(struct fwpt_flow_obuf_insn *d, uint8_t size, uint32_t mw)
{
    uint32_t w = mw | (uint32_t)size << 8;
    __builtin_memcpy(&d->kind, &w, 4);
}

/* The hot loop of fill: cached blocks whose successor needs no packet fetch (a TNT bit in hand,
 * a direct branch, a compressed RET), with the walk state in registers (f->obuf aliases f).
 * Stops before anything else: a cache miss, the runaway limit, a full buffer (f->ip is then the
 * next block, nothing pending), or a transfer resolve() must handle (resolve_pending set). */
/* The n instructions of a run at ip with these sizes, into d (all iclass OTHER); returns the
 * address after them. fill_fast writes its own unrolled copy of this. */
static inline uint64_t put_run(struct fwpt_flow_obuf_insn *d, uint64_t ip, const uint8_t *sizes, uint32_t n,
                               uint8_t mode)
{
    for (uint32_t k = 0; k < n; k++) {
        d[k].ip = ip;
        put_head(&d[k], sizes[k], head_word(0, mode));
        ip += sizes[k];
    }
    return ip;
}

/* Sets kind (INSN) and mode in every obuf entry, so fill_fast stores only ip, size and iclass. */
static void obuf_prepare(struct fwpt_flow *f, uint8_t mode)
{
    for (uint32_t k = 0; k < FWPT_FLOW_OBUF; k++) {
        f->obuf[k].kind = FWPT_FLOW_INSN;
        f->obuf[k].mode = mode;
    }
    f->obuf_mode = mode;
}

/* size and iclass OTHER as one 16-bit store (kind and mode are already there: obuf_prepare) */
static inline void put_size(struct fwpt_flow_obuf_insn *d, uint8_t size)
{
    const uint16_t w = (uint16_t)(size | FWPT_IC_OTHER << 8);
    __builtin_memcpy(&d->size, &w, 2);
}

/* The walk over cached blocks: about 21 cycles and 76 instructions a block, bound by mispredicted class
 * branches on random outcomes and by the instruction count, less by the IP -> entry -> next IP load chain.
 * Measured on bench_flow and NOT faster (each 0 to -17%): a path cache keyed by TNT bits, a branch-free
 * next IP over every class, a class jump table, SSE/precomputed instruction records, block chaining,
 * prefetching successors (even correctly predicted grandchildren), 64-byte entries carrying successor
 * summaries, longer blocks, taking TNT/TIP bytes straight from the trace, and a two-pass walk-then-write. */
static inline __attribute__((always_inline)) uint32_t fill_fast_walk(struct fwpt_flow *f, uint32_t on, const bool timed)
{
    struct fwpt_flow_obuf_insn *o0 = &f->obuf[on]; /* the first not yet counted in n_insns */
    /* the next free entry as a pointer (an index costs a shift and an add per block) */
    struct fwpt_flow_obuf_insn *d = o0, *const dend = &f->obuf[FWPT_FLOW_OBUF - FWPT_FLOW_BLOCK_INSNS];
    const struct fwpt_flow_block *cache = f->cache;
    const size_t mask = f->cache_mask;
    const uint8_t mode = f->mode;
    const uint64_t limit = f->runaway_limit;
    bool pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    /* few values in registers (the rest stays in *f): the walk's chain must not spill */
    uint64_t ip = f->ip, bits = f->tnt_bits, since = f->since_packet;
    uint32_t cnt = f->tnt_count;
    if (f->obuf_mode != mode)
        obuf_prepare(f, mode);
    while (d <= dend) {
        const struct fwpt_flow_block *b = &cache[FLOW_SLOT(ip) & mask];
        const uint64_t target = b->target, nx = ip + b->nbytes;
        const uint32_t n = b->ninsn;
        const uint8_t cls = b->iclass, flags = b->flags;
        const uint8_t s0 = b->sizes[0], s1 = b->sizes[1], s2 = b->sizes[2], s3 = b->sizes[3];
        if (b->ip != ip || b->mode != mode || since + n > limit)
            break; /* fill's general path: build the block, or report the runaway */
        f->cache_hits++;
        /* (no prefetch of the successors' entries here: measured no gain, the load follows at once)
         * four slots written unconditionally (the buffer has room for a whole block): most blocks
         * end there, and a fixed count costs no mispredicted loop exit (eight: ~15% slower) */
        d[0].ip = ip;
        put_size(&d[0], s0);
        d[1].ip = ip + s0;
        put_size(&d[1], s1);
        d[2].ip = ip + s0 + s1;
        put_size(&d[2], s2);
        d[3].ip = ip + s0 + s1 + s2;
        put_size(&d[3], s3);
        if (n > 4) {
            uint64_t a = d[3].ip + s3;
            for (uint32_t k = 4; k < n; k++) {
                uint8_t sk = b->sizes[k];
                d[k].ip = a;
                put_size(&d[k], sk);
                a += sk;
            }
        }
        d += n;
        d[-1].iclass = cls;
        since += n;
        if (!cnt && (cls == FWPT_IC_JCC || cls == FWPT_IC_RET) && f->have_peek &&
            is_tnt(f->peek.type) && f->peek.tnt.count) {
            /* take_tnt: the TNT packet lookahead left in peek (bits in hand, the usual case, tested first) */
            bits = f->peek.tnt.bits;
            cnt = f->peek.tnt.count;
            f->have_peek = 0;
            if (timed)
                time_fast(f, (uint64_t)(d - o0), false);
        }
        /* a branch per class: predicted, it keeps the class off the dependency chain (one branch-free
         * select over OTHER/JCC/JMP_REL/CALL_REL measured ~12% slower) */
        if (cls == FWPT_IC_JCC && cnt) {
            /* branch-free: the outcome is data, not a prediction (a branch measured ~10% slower on
             * random outcomes, ~2% faster on biased ones) */
            uint64_t m = -(bits & 1);
            ip = nx ^ ((nx ^ target) & m);
        } else if (cls == FWPT_IC_OTHER) {
            ip = nx;
            continue;
        } else if ((cls == FWPT_IC_JMP_REL || cls == FWPT_IC_CALL_REL) && !pgd_peek) {
            if (cls == FWPT_IC_CALL_REL && !(flags & FWPT_FLOW_BF_ZERO_LEN_CALL)) {
                /* push_ret (SDM "Indirect Transfer Compression for Returns (RET)": zero-length calls are not pushed) */
                push_ret(f, nx);
            }
            ip = target;
            continue;
        } else if (cls == FWPT_IC_RET && cnt && (bits & 1) && f->retstack_n) {
            /* compressed RET (SDM "Indirect Transfer Compression for Returns (RET)") */
            (void)pop_ret(f, &ip);
        } else if (f->have_peek && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed &&
                   !f->pending_mode && !f->pend_pip && !f->pend_vmcs &&
                   (cls == FWPT_IC_JMP_IND || cls == FWPT_IC_CALL_IND || (cls == FWPT_IC_RET && !cnt) ||
                    (cls >= FWPT_IC_FAR_JMP && cls <= FWPT_IC_VMENTRY))) {
            /* take_tip with the TIP lookahead left in peek (no MODE.Exec to apply) */
            if (cls == FWPT_IC_CALL_IND) {
                push_ret(f, nx);
            } else if (cls == FWPT_IC_RET) {
                uint64_t dummy;
                (void)pop_ret(f, &dummy); /* SDM "Indirect Transfer Compression for Returns (RET)" step 3: every near RET pops */
            }
            ip = f->peek.ip.ip;
            f->have_peek = 0;
            if (timed)
                time_fast(f, (uint64_t)(d - o0), false);
            if (cnt) { /* a deferred TIP (take_tip): the bits in hand are for the branches after it */
                since = 0;
                continue;
            }
            goto packet_done;
        } else {
            end_block(f, b, nx);
            break;
        }
        /* a TNT bit was used */
        bits >>= 1;
        since = 0;
        if (--cnt)
            continue;
    packet_done:
        /* a packet used up: look ahead as resolve() does, then go on if nothing happened */
        since = 0;
        f->ip = ip;
        if (timed)
            time_fast(f, (uint64_t)(d - o0), true);
        if (fetch_walk(f, timed) == FWPT_OK) {
            uint8_t t = f->peek.type;
            if (is_tnt(t) || t == FWPT_PKT_TIP) {
                /* lookahead would stop at once: a packet the walk consumes next */
                pgd_peek = false;
                continue;
            }
        }
        f->tnt_bits = bits;
        f->tnt_count = 0;
        f->since_packet = 0;
        f->n_insns += (uint64_t)(d - o0); /* a TRIG's ICNT counts from here */
        o0 = d;
        lookahead(f);
        if (f->state != ST_WALK || f->fup_pending || f->evq_n || f->ntrig || f->pend_cfe) {
            f->n_insns += (uint64_t)(d - o0);
            return (uint32_t)(d - f->obuf);
        }
        pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    }
    f->ip = ip;
    f->tnt_bits = bits;
    f->tnt_count = (uint8_t)cnt;
    f->since_packet = since;
    f->n_insns += (uint64_t)(d - o0);
    return (uint32_t)(d - f->obuf);
}

/* fill_fast_walk twice: the time hooks cost the walk nothing when time is off. */
static __attribute__((noinline)) uint32_t fill_fast(struct fwpt_flow *f, uint32_t on) { return fill_fast_walk(f, on, false); }
static __attribute__((noinline)) uint32_t fill_fast_timed(struct fwpt_flow *f, uint32_t on)
{
    return fill_fast_walk(f, on, true);
}

/* With time, the last instruction buffered has its time only once its successor is known (the packet it
 * takes decides it): resolve it now, as libipt's pt_insn_next does before it gives the instruction. */
static void time_resolve_last(struct fwpt_flow *f)
{
    if (f->resolve_pending && f->state == ST_WALK && !f->evq_n && !f->look_pending && !fast_resolve(f))
        resolve(f);
}

/* Decodes instructions ahead into f->obuf until an event is queued, the walk stops or the
 * buffer is full. Events are queued only after the instructions before them are buffered. */
static void fill(struct fwpt_flow *f)
{
    struct fwpt_flow_obuf_insn *o = f->obuf;
    uint32_t on = 0;
    if (TIME_ON(f))
        time_refill(f, f->n_insns);
    while (f->state == ST_WALK && !f->evq_n && on + FWPT_FLOW_BLOCK_INSNS <= FWPT_FLOW_OBUF) {
        if (f->look_pending) {
            lookahead(f);
            continue;
        }
        if (f->resolve_pending && !fast_resolve(f)) {
            resolve(f);
            continue;
        }
        if (f->ntrig && f->trig_q[0].at <= f->n_insns) {
            trig_due(f, false);
            continue;
        }
        if (!f->fup_pending && !(f->ntrig | f->pend_cfe) && f->cache) {
            uint32_t before = on;
            on = TIME_ON(f) ? fill_fast_timed(f, on) : fill_fast(f, on);
            if (on != before || f->resolve_pending)
                continue; /* it walked: the loop conditions again */
        }
        if (f->fup_pending && f->ip == f->stop_ip) {
            fup_reached(f);
            continue;
        }
        enum fwpt_status st;
        const struct fwpt_flow_block *b = get_block(f, f->ip, &st);
        if (!b)
            continue;
        if (f->cache) {
            /* the next block is one of these: start loading its entry now */
            uint64_t nx = f->ip + b->nbytes;
            __builtin_prefetch(&f->cache[FLOW_SLOT(b->target) & f->cache_mask]);
            __builtin_prefetch(&f->cache[FLOW_SLOT(nx) & f->cache_mask]);
        }
        bool full;
        uint32_t n = fup_cut(f, b, &full), nt = trig_cut(f, n);
        if (nt < n) {
            n = nt; /* a TRIG binds before the next instruction */
            full = false;
        }
        f->since_packet += n;
        if (f->since_packet > f->runaway_limit) {
            flow_error(f, FWPT_E_RUNAWAY, f->ip, cur_offset(f));
            continue;
        }
        uint64_t ip = put_run(&o[on], f->ip, b->sizes, n, f->mode);
        if (f->mode != f->obuf_mode)
            f->obuf_mode = FWPT_MODE_UNKNOWN; /* obuf_prepare again before fill_fast */
        on += n;
        f->n_insns += n;
        if (full) {
            o[on - 1].iclass = b->iclass;
            end_block(f, b, ip);
        } else {
            f->ip = ip; /* the pending FUP's IP, or where a TRIG binds */
        }
    }
    if (TIME_ON(f))
        time_resolve_last(f);
    f->oidx = 0;
    f->on = on;
}

enum fwpt_status fwpt_flow_next_slow(struct fwpt_flow *f, struct fwpt_flow_event *ev)
{
    for (;;) {
        if (f->oidx < f->on)
            return fwpt_flow_next(f, ev); /* serves the buffer inline (its own check is the same) */
        if (f->evq_n)
            return evq_pop(f, ev);
        if (__builtin_expect(f->evq_overrun, 0))
            return FWPT_E_INTERNAL;
        if (f->state == ST_WALK) {
            fill(f);
            continue;
        }
        struct fwpt_flow_run run;
        enum fwpt_status s = fwpt_flow_next_run(f, &run, ev); /* states without an IP */
        if (s != FWPT_OK || !run.n)
            return s;
        /* next_run gave a run (it entered the walk): serve it through the buffer */
        if (TIME_ON(f))
            time_refill(f, f->n_insns - run.n);
        put_run(f->obuf, run.ip, run.sizes, run.n, run.mode);
        if (run.mode != f->obuf_mode)
            f->obuf_mode = FWPT_MODE_UNKNOWN;
        if (f->run_full)
            f->obuf[run.n - 1].iclass = f->last_class;
        if (TIME_ON(f))
            time_resolve_last(f);
        f->oidx = 0;
        f->on = run.n;
    }
}

enum fwpt_status fwpt_flow_next_batch(struct fwpt_flow *f, const struct fwpt_flow_obuf_insn **insns,
                                      uint32_t *n, struct fwpt_flow_event *ev)
{
    *n = 0;
    if (f->oidx >= f->on) {
        /* refill through the one-by-one path: it serves the first instruction or an event */
        enum fwpt_status s = fwpt_flow_next_slow(f, ev);
        if (s != FWPT_OK || ev->kind != FWPT_FLOW_INSN)
            return s;
        f->oidx--; /* give that instruction back to the batch */
    }
    *insns = &f->obuf[f->oidx];
    *n = f->on - f->oidx;
    f->oidx = f->on;
    return FWPT_OK;
}

const char *fwpt_flow_kind_name(enum fwpt_flow_kind k)
{
    static const char *const names[FWPT_FLOW_KIND_COUNT] = {
        "insn", "enabled", "disabled", "interrupt", "overflow", "mode", "error",
        "tsx", "stopped", "paging", "vmcs", "ptwrite", "exstop", "cbr", "mnt", "mwait", "pwre", "pwrx", "trig",
        "end", "cfe", "iflags",
    };
    return (unsigned)k < FWPT_FLOW_KIND_COUNT ? names[k] : "?";
}

_Static_assert(sizeof(struct fwpt_flow_block) == 32, "cache entries are 32 bytes");
_Static_assert(offsetof(struct fwpt_flow_event, kind) == 0 && offsetof(struct fwpt_flow_event, size) == 1 &&
                   offsetof(struct fwpt_flow_event, iclass) == 2 && offsetof(struct fwpt_flow_event, mode) == 3 &&
                   offsetof(struct fwpt_flow_obuf_insn, size) == offsetof(struct fwpt_flow_obuf_insn, kind) + 1 &&
                   offsetof(struct fwpt_flow_obuf_insn, iclass) == offsetof(struct fwpt_flow_obuf_insn, kind) + 2 &&
                   offsetof(struct fwpt_flow_obuf_insn, mode) == offsetof(struct fwpt_flow_obuf_insn, kind) + 3,
               "fwpt_flow_next copies kind..mode as four bytes");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "head_word builds the four bytes little-endian"
#endif

/* ---- the walk's steps for decode/summary.c and decode/parallel_host.c (decode/flow_internal.h) ---- */
_Static_assert(ST_WALK == FWPT_FLOW_ST_WALK, "flow_internal.h names the walking state");
enum fwpt_status fwpt_flow_i_fetch(struct fwpt_flow *f) { return fetch(f); }
void fwpt_flow_i_lookahead(struct fwpt_flow *f) { lookahead(f); }
void fwpt_flow_i_end_block(struct fwpt_flow *f, const struct fwpt_flow_block *b, uint64_t next_ip)
{
    end_block(f, b, next_ip);
}
enum fwpt_status fwpt_flow_i_start_at(struct fwpt_flow *f, uint64_t offset)
{
    f->have_peek = 0;
    enum fwpt_status s = fwpt_pkt_sync_set(&f->pkt, (size_t)offset);
    f->state = s == FWPT_OK ? ST_UNSYNCED : ST_END;
    return s;
}
