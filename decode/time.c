/* fwpt — time from timing packets. SDM Vol. 3C, Intel Processor Trace, "Tracking Time": the TSC
 * packet gives TSC[55:0]; TMA gives CTC[15:0] and the FastCounter (TSC ticks past that crystal clock
 * edge) at the TSC; MTC gives CTC[MTCFreq+7:MTCFreq] at each crystal clock edge it reports; one CTC
 * tick is CPUID.15H:EBX / CPUID.15H:EAX TSC ticks; CYC counts core cycles since the last CYC, which
 * become TSC ticks by P1/CBR ("multiplying the accumulated cycle count value by P1/CBR"), or better by
 * the ratio measured between two MTCs (or two TSCs). */
#include "decode/time.h"
#include "base/text.h"

enum {
    MTC_CTC_BITS = 8,  /* SDM Table "MTC Packet Definition": CTC[7:0] payload */
    TMA_CTC_BITS = 16, /* SDM Table "TMA Packet Definition": CTC[15:0] */
    TSC_BITS = 56,     /* SDM Table "TSC Packet Definition": TSC[55:0] */
};
#define TMA_CTC_MASK 0xffffu
#define MTC_MASK 0xffu

void fwpt_time_init(struct fwpt_time *tm, const struct fwpt_time_config *cfg)
{
    fwpt_memset(tm, 0, sizeof *tm);
    tm->cfg = *cfg;
    if (tm->cfg.mtc_freq > 15)
        tm->cfg.mtc_freq = 15; /* MTCFreq is a 4-bit field (SDM "IA32_RTIT_CTL MSR") */
    tm->cal.min_fcr = UINT64_MAX;
}

void fwpt_time_reset(struct fwpt_time *tm)
{
    struct fwpt_time_config cfg = tm->cfg;
    fwpt_time_init(tm, &cfg);
}

static void cal_init(struct fwpt_time_cal *cal)
{
    fwpt_memset(cal, 0, sizeof *cal);
    cal->min_fcr = UINT64_MAX;
}

static bool cal_have_fcr(const struct fwpt_time_cal *cal)
{
    return cal->min_fcr <= cal->max_fcr;
}

static void cal_set_fcr(struct fwpt_time_cal *cal, uint64_t fcr)
{
    cal->fcr = fcr;
    if (fcr < cal->min_fcr)
        cal->min_fcr = fcr;
    if (fcr > cal->max_fcr)
        cal->max_fcr = fcr;
}

/* CTC ticks from last to now, allowing one wrap of the bits MTC carries ("the decoder can infer ... by
 * checking the 8-bit payload of the next MTC packet"). */
static enum fwpt_status ctc_delta(const struct fwpt_time *tm, uint32_t now, uint32_t last, uint32_t *delta)
{
    if (now < last) {
        now += 1u << (tm->cfg.mtc_freq + MTC_CTC_BITS);
        if (now < last)
            return FWPT_E_CTC_GAP;
    }
    *delta = now - last;
    return FWPT_OK;
}

/* CTC ticks -> TSC ticks: P = CPUID.15H:EBX / CPUID.15H:EAX ("Tracking Time"). */
static enum fwpt_status ctc_to_tsc(const struct fwpt_time *tm, uint64_t ctc, uint64_t *ticks)
{
    if (!tm->cfg.cpuid_15_eax || !tm->cfg.cpuid_15_ebx)
        return FWPT_E_TIME_CONFIG;
    *ticks = ctc * tm->cfg.cpuid_15_ebx / tm->cfg.cpuid_15_eax;
    return FWPT_OK;
}

/* ---- the time ---- */

static void time_tsc(struct fwpt_time *tm, uint64_t tsc)
{
    struct fwpt_time_tsc *t = &tm->t;
    t->have_tsc = true;
    t->have_tma = false;
    t->have_mtc = false;
    t->tsc = t->base = tsc;
    t->ctc = 0;
    t->fc = 0;
    t->lost_mtc = t->lost_cyc = 0; /* the full time again */
}

static enum fwpt_status time_cbr(struct fwpt_time *tm, uint8_t ratio)
{
    if (!ratio)
        return FWPT_E_BAD_CBR;
    tm->t.have_cbr = true;
    tm->t.cbr = ratio;
    return FWPT_OK;
}

/* SDM "TMA Packet Definition": always right after a TSC; its FastCounter is the part of the TSC past
 * the crystal clock edge whose CTC[15:0] it carries. */
static enum fwpt_status time_tma(struct fwpt_time *tm, uint16_t ctc, uint16_t fc)
{
    struct fwpt_time_tsc *t = &tm->t;
    if (!t->have_tsc || t->have_tma)
        return FWPT_E_TIME_CONTEXT;
    unsigned mtc_hi = tm->cfg.mtc_freq + MTC_CTC_BITS;
    t->have_tma = true;
    t->base -= fc;
    t->fc += fc;
    /* When TMA's 16 bits hold every CTC bit MTC carries, the TMA stands for an MTC; otherwise the next
     * MTC supplies the upper bits. */
    if (mtc_hi <= TMA_CTC_BITS)
        t->have_mtc = true;
    t->ctc = t->ctc_cyc = ctc & ((1u << mtc_hi) - 1u);
    return FWPT_OK;
}

static enum fwpt_status time_mtc(struct fwpt_time *tm, uint8_t payload)
{
    struct fwpt_time_tsc *t = &tm->t;
    bool have_tma = t->have_tma, have_mtc = t->have_mtc;
    /* Between TSC and TMA an MTC would look like a CTC jump: TMA's CTC covers it. */
    if (t->have_tsc && !have_tma)
        return FWPT_OK;
    uint64_t base = t->base;
    uint32_t last = t->ctc;
    uint32_t ctc = (uint32_t)payload << tm->cfg.mtc_freq; /* CTC[N-1:0] are 0 at the MTC (SDM) */
    if (t->fc || t->lost_cyc || !have_mtc)
        t->ctc_cyc = ctc;
    t->have_mtc = true;
    t->fc = 0;
    t->ctc = ctc;
    t->lost_cyc = 0;
    if (!have_mtc) {
        /* The first MTC: without a TMA, nothing says how far into this MTC period tracing began. */
        if (!have_tma)
            return FWPT_OK;
        /* TMA gave CTC[15:0] only: take the upper bits from this MTC, one period back if the low bits
         * wrapped in between. */
        uint32_t lo = ctc & TMA_CTC_MASK, hi = ctc & ~TMA_CTC_MASK;
        if (lo < last) {
            hi -= 1u << TMA_CTC_BITS;
            hi &= MTC_MASK << tm->cfg.mtc_freq;
        }
        last |= hi;
    }
    uint32_t delta;
    enum fwpt_status s = ctc_delta(tm, ctc, last, &delta);
    if (s != FWPT_OK) {
        t->lost_mtc++;
        return s;
    }
    uint64_t ticks;
    s = ctc_to_tsc(tm, delta, &ticks);
    if (s != FWPT_OK)
        return s;
    t->tsc = t->base = base + ticks;
    return FWPT_OK;
}

/* A CYC that spans earlier MTC periods: take off what the calibration says those periods held, so that
 * only the current period's part is added to the MTC's time. */
static enum fwpt_status cyc_this_period(const struct fwpt_time *tm, uint64_t fcr, uint64_t *cyc)
{
    const struct fwpt_time_tsc *t = &tm->t;
    if (t->ctc == t->ctc_cyc)
        return FWPT_OK;
    uint32_t delta;
    uint64_t ticks;
    enum fwpt_status s = ctc_delta(tm, t->ctc, t->ctc_cyc, &delta);
    if (s == FWPT_OK)
        s = ctc_to_tsc(tm, delta, &ticks);
    if (s != FWPT_OK)
        return s;
    uint64_t before = (ticks << FWPT_TIME_FCR_SHIFT) / fcr;
    *cyc = *cyc < before ? 0 : *cyc - before; /* rather too slow than too fast */
    return FWPT_OK;
}

static enum fwpt_status time_cyc(struct fwpt_time *tm, uint64_t cyc, uint64_t fcr)
{
    struct fwpt_time_tsc *t = &tm->t;
    if (!fcr) {
        t->lost_cyc++;
        return FWPT_E_NO_CALIBRATION;
    }
    uint64_t fc = t->fc;
    if (!fc) {
        enum fwpt_status s = cyc_this_period(tm, fcr, &cyc);
        if (s != FWPT_OK)
            return s;
    }
    fc += (cyc * fcr) >> FWPT_TIME_FCR_SHIFT;
    t->fc = fc;
    t->tsc = t->base + fc;
    return FWPT_OK;
}

/* ---- the calibration ---- */

/* A TSC outside PSB+ may follow lost time: remembered, not used to calibrate. */
static void cal_tsc(struct fwpt_time *tm, uint64_t tsc)
{
    tm->cal.tsc = tsc;
    tm->cal.cyc_tsc = 0;
}

/* A TSC in PSB+: the cycles since the last TSC against the ticks between them (MTC preferred). */
static enum fwpt_status cal_psb_tsc(struct fwpt_time *tm, uint64_t tsc)
{
    struct fwpt_time_cal *c = &tm->cal;
    uint64_t last = c->tsc, cyc = c->cyc_tsc;
    c->tsc = tsc;
    c->cyc_tsc = 0;
    if (!last || !cyc || c->have_mtc)
        return FWPT_OK;
    if (tsc < last) {
        tsc += 1ull << TSC_BITS;
        if (tsc < last)
            return FWPT_E_CTC_GAP;
    }
    uint64_t delta = tsc - last;
    if (delta & ~(~0ull >> FWPT_TIME_FCR_SHIFT))
        return FWPT_E_TIME_RANGE;
    cal_set_fcr(c, (delta << FWPT_TIME_FCR_SHIFT) / cyc);
    return FWPT_OK;
}

/* P1/CBR core cycles per TSC tick ("Tracking Time"); a CBR outside PSB+ is a frequency change, so the
 * calibration starts again from it. */
static enum fwpt_status cal_cbr(struct fwpt_time *tm, uint8_t ratio, bool in_psb)
{
    if (!in_psb)
        cal_init(&tm->cal);
    if (!tm->cfg.nom_freq)
        return FWPT_OK;
    if (!ratio)
        return FWPT_E_BAD_CBR;
    cal_set_fcr(&tm->cal, ((uint64_t)tm->cfg.nom_freq << FWPT_TIME_FCR_SHIFT) / ratio);
    return FWPT_OK;
}

static enum fwpt_status cal_mtc(struct fwpt_time *tm, uint8_t payload)
{
    struct fwpt_time_cal *c = &tm->cal;
    uint32_t last = c->ctc;
    uint64_t cyc = c->cyc_mtc;
    bool check_skl168 = c->check_skl168;
    c->check_skl168 = false; /* only the first MTC after a PSB */
    uint32_t ctc = (uint32_t)payload << tm->cfg.mtc_freq;
    if (!c->have_mtc) {
        c->cyc_mtc = 0;
        c->ctc = ctc;
        c->have_mtc = true;
        return FWPT_OK;
    }
    if (!cyc)
        return FWPT_OK; /* spread the cycles over this and the next period */
    c->cyc_mtc = 0;
    c->ctc = ctc;
    c->lost_mtc++; /* until the ratio is set below */
    uint32_t delta;
    uint64_t fc;
    enum fwpt_status s = ctc_delta(tm, ctc, last, &delta);
    if (s == FWPT_OK)
        s = ctc_to_tsc(tm, delta, &fc);
    if (s != FWPT_OK)
        return s;
    if (fc & ~(~0ull >> FWPT_TIME_FCR_SHIFT))
        return FWPT_E_TIME_RANGE;
    uint64_t fcr = (fc << FWPT_TIME_FCR_SHIFT) / cyc;
    /* Erratum SKL168: the CYC (and MTC) right before a PSB may be dropped; skip the first MTC period
     * after the PSB when an MTC was lost or a wrap CYC (every 4096 cycles) seems missing. */
    if (check_skl168) {
        if ((1u << tm->cfg.mtc_freq) < delta)
            return FWPT_OK;
        if (tm->cfg.mtc_freq < 10 && cal_have_fcr(c) && ((c->fcr * (cyc + 0xf00)) >> FWPT_TIME_FCR_SHIFT) < fc)
            return FWPT_OK;
    }
    cal_set_fcr(c, fcr);
    c->lost_mtc = 0;
    return FWPT_OK;
}

/* ---- one packet ---- */

static void diag(struct fwpt_time_step *st, enum fwpt_time_diag_kind kind, enum fwpt_status s)
{
    if (s == FWPT_OK || st->ndiag >= sizeof st->diag / sizeof st->diag[0])
        return;
    st->diag[st->ndiag].kind = (uint8_t)kind;
    st->diag[st->ndiag].status = s;
    st->ndiag++;
}

void fwpt_time_packet(struct fwpt_time *tm, const struct fwpt_packet *p, struct fwpt_time_step *st)
{
    bool tcal = !tm->cfg.no_tcal;
    st->timing = st->show_time = st->show_fcr = false;
    st->ndiag = 0;
    switch (p->type) {
    case FWPT_PKT_PSB:
        tm->in_psb = true;
        if (tm->cfg.skl168)
            tm->cal.check_skl168 = true;
        break;
    case FWPT_PKT_PSBEND:
        tm->in_psb = false;
        break;
    case FWPT_PKT_OVF:
        /* Cycles counted across the overflow are unknown: calibrate again (or keep the ratio). */
        if (tm->cfg.keep_tcal_on_ovf) {
            tm->cal.tsc = tm->cal.cyc_tsc = tm->cal.cyc_mtc = 0;
            tm->cal.ctc = 0;
            tm->cal.have_mtc = false;
        } else {
            cal_init(&tm->cal);
        }
        break;
    case FWPT_PKT_TSC:
        st->timing = st->show_time = st->show_fcr = true;
        if (tcal) {
            if (tm->in_psb)
                diag(st, FWPT_TIME_DIAG_CALIBRATE, cal_psb_tsc(tm, p->tsc.tsc));
            else
                cal_tsc(tm, p->tsc.tsc);
        }
        time_tsc(tm, p->tsc.tsc);
        break;
    case FWPT_PKT_CBR:
        st->timing = st->show_fcr = true;
        if (tcal)
            diag(st, FWPT_TIME_DIAG_CALIBRATE, cal_cbr(tm, p->cbr.ratio, tm->in_psb));
        diag(st, FWPT_TIME_DIAG_UPDATE, time_cbr(tm, p->cbr.ratio));
        break;
    case FWPT_PKT_TMA:
        st->timing = st->show_time = true;
        diag(st, FWPT_TIME_DIAG_UPDATE, time_tma(tm, p->tma.ctc, p->tma.fc));
        break;
    case FWPT_PKT_MTC:
        st->timing = st->show_time = st->show_fcr = true;
        if (tcal)
            diag(st, FWPT_TIME_DIAG_CALIBRATE, cal_mtc(tm, p->mtc.ctc));
        diag(st, FWPT_TIME_DIAG_UPDATE, time_mtc(tm, p->mtc.ctc));
        break;
    case FWPT_PKT_CYC: {
        st->timing = st->show_time = true;
        uint64_t fcr = 0;
        if (tcal) {
            diag(st, FWPT_TIME_DIAG_CAL_QUERY, fwpt_time_fcr(tm, &fcr));
            tm->cal.cyc_mtc += p->cyc.value;
            tm->cal.cyc_tsc += p->cyc.value;
        }
        diag(st, FWPT_TIME_DIAG_UPDATE, time_cyc(tm, p->cyc.value, fcr));
        break;
    }
    default:
        break;
    }
}

enum fwpt_status fwpt_time_tsc(const struct fwpt_time *tm, uint64_t *tsc, uint32_t *lost_mtc, uint32_t *lost_cyc)
{
    *tsc = tm->t.tsc;
    if (lost_mtc)
        *lost_mtc = tm->t.lost_mtc;
    if (lost_cyc)
        *lost_cyc = tm->t.lost_cyc;
    return tm->t.have_tsc ? FWPT_OK : FWPT_E_NO_TIME;
}

enum fwpt_status fwpt_time_fcr(const struct fwpt_time *tm, uint64_t *fcr)
{
    if (!cal_have_fcr(&tm->cal))
        return FWPT_E_NO_TIME;
    *fcr = tm->cal.fcr;
    return FWPT_OK;
}

/* ---- showing ---- */

const char *fwpt_time_diag_what(unsigned kind)
{
    switch (kind) {
    case FWPT_TIME_DIAG_CAL_QUERY: return "calibration error";
    case FWPT_TIME_DIAG_CALIBRATE: return "error calibrating time";
    case FWPT_TIME_DIAG_UPDATE: return "error updating time";
    default: return "error printing time";
    }
}

/* v / 2^8 with three decimals, rounded to nearest, ties to even (as C's "%.3f" of the exact value). */
static void put_fcr(const struct fwpt_sink *o, uint64_t v)
{
    uint64_t whole = v >> FWPT_TIME_FCR_SHIFT;
    uint64_t num = (v & ((1u << FWPT_TIME_FCR_SHIFT) - 1)) * 1000;
    uint64_t milli = num >> FWPT_TIME_FCR_SHIFT, rest = num & ((1u << FWPT_TIME_FCR_SHIFT) - 1);
    uint64_t half = 1u << (FWPT_TIME_FCR_SHIFT - 1);
    if (rest > half || (rest == half && (milli & 1)))
        milli++;
    if (milli == 1000) {
        whole++;
        milli = 0;
    }
    fwpt_put_dec(o, whole);
    fwpt_putc(o, '.');
    fwpt_putc(o, (char)('0' + milli / 100));
    fwpt_putc(o, (char)('0' + milli / 10 % 10));
    fwpt_putc(o, (char)('0' + milli % 10));
}

bool fwpt_time_column(const struct fwpt_time *tm, struct fwpt_time_show *sh, const struct fwpt_time_step *st,
                      const char **id, char *text, enum fwpt_status *err)
{
    struct fwpt_bufsink bs;
    struct fwpt_sink o = fwpt_bufsink_init(&bs, text, 31);
    *err = FWPT_OK;
    if (sh->tcal && st->show_fcr) {
        uint64_t fcr;
        *id = "fcr";
        *err = fwpt_time_fcr(tm, &fcr);
        if (*err != FWPT_OK) {
            fwpt_puts(&o, "<unavailable>");
        } else if (sh->delta) {
            fwpt_putc(&o, sh->last_fcr <= fcr ? '+' : '-');
            put_fcr(&o, sh->last_fcr <= fcr ? fcr - sh->last_fcr : sh->last_fcr - fcr);
            sh->last_fcr = fcr;
        } else {
            put_fcr(&o, fcr);
        }
    } else if (sh->time && st->show_time) {
        uint64_t tsc;
        *id = "tsc";
        *err = fwpt_time_tsc(tm, &tsc, 0, 0);
        if (*err == FWPT_E_NO_TIME && sh->no_wall_clock)
            *err = FWPT_OK;
        if (*err != FWPT_OK) {
            fwpt_puts(&o, "<unavailable>");
        } else if (sh->delta) {
            fwpt_putc(&o, sh->last_tsc <= tsc ? '+' : '-');
            fwpt_put_hex(&o, sh->last_tsc <= tsc ? tsc - sh->last_tsc : sh->last_tsc - tsc, 0);
            sh->last_tsc = tsc;
        } else {
            fwpt_put_hex(&o, tsc, 16);
        }
    } else {
        text[0] = 0;
        return false;
    }
    text[bs.len] = 0;
    return true;
}
