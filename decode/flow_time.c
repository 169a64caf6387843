/* fwpt — the flow decoder's time hooks (fwpt_flow_set_time): time marks by instruction number. */
#include "decode/flow_priv.h"

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

__attribute__((noinline, cold)) void fwpt_flow_i_time_packet(struct fwpt_flow *f)
{
    struct fwpt_time_step st;
    fwpt_time_packet(&f->time, &f->peek, &st);
}

void fwpt_flow_i_time_mark(struct fwpt_flow *f, uint64_t at, bool q)
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
__attribute__((noinline, cold)) void fwpt_flow_i_time_fast(struct fwpt_flow *f, uint64_t k, bool used_up)
{
    uint64_t x = f->n_insns + k - 1;
    if (used_up) {
        f->t_qp = x;
        f->t_open = 1;
    } else {
        fwpt_flow_i_time_mark(f, x, true);
        f->t_open = 0;
    }
}

/* Instruction x took the last bit of its TNT or a TIP (newpkt: a new packet, read just now). */
void fwpt_flow_i_time_query(struct fwpt_flow *f, uint64_t x, bool newpkt)
{
    if (newpkt)
        fwpt_flow_i_time_mark(f, x, true);
    f->t_qp = x;
    f->t_open = !f->tnt_count;
}

/* An event queued in evq slot k: its time, and the time from the last query point on when it is the one libipt
 * would have fetched there; once it is given, the next event's time applies from there on. */
static void time_status(struct fwpt_flow *f)
{
    if (f->t_open)
        fwpt_flow_i_time_mark(f, f->t_qp, false);
    f->t_qp = f->n_insns;
    f->t_open = !f->tnt_count;
}

void fwpt_flow_i_time_event(struct fwpt_flow *f, uint32_t k)
{
    f->evq_tsc[k] = f->time.t.tsc;
    f->evq_tok[k] = f->time.t.have_tsc;
    time_status(f);
}

/* An event that began at a FUP read earlier has the time at that FUP (libipt stamps it there). */
void fwpt_flow_i_time_at_fup(struct fwpt_flow *f, const struct fwpt_flow_event *e)
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
void fwpt_flow_i_time_fup(struct fwpt_flow *f)
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
    fwpt_flow_i_time_mark(f, f->t_qp, false);
    f->time.t.tsc = tsc;
    f->time.t.have_tsc = ok;
    f->t_open = 0;
}

/* The buffer starts again at instruction number base: the marks before it but the last are not needed. */
void fwpt_flow_i_time_refill(struct fwpt_flow *f, uint64_t base)
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

/* A PSB+ read while in sync: libipt gives its status (MODE.Exec) as events at PSBEND, so it carries the time
 * like an event; they bind to the PSB+'s FUP IP, where the walk is at the PSB, so the next event's time
 * applies from the instruction there on. */
void fwpt_flow_i_time_psb(struct fwpt_flow *f, bool have_fup, uint64_t fup_ip)
{
    time_status(f);
    if (have_fup && fup_ip != f->ip) {
        int64_t k = fwpt_flow_i_insns_on_the_way(f, f->ip, fup_ip);
        if (k < 0)
            f->t_open = 0;
        else
            f->t_qp += (uint64_t)k;
    }
}
