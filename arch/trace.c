/* fwpt — the IA32_RTIT_* MSR sequence (SDM Vol. 3C "Enabling and Configuration MSRs"). Freestanding. */
#include "arch/trace.h"
#include "base/fields.h"
#include "base/text.h"

#define OUTPUT_BASE_RESERVED_LOW FWPT_FIELD(6, 0) /* IA32_RTIT_OUTPUT_BASE[6:0] reserved */
#define CR3_MATCH_RESERVED_LOW   FWPT_FIELD(4, 0) /* IA32_RTIT_CR3_MATCH[4:0] reserved */
#define CTL_FIELD_MAX 15u                         /* MTCFreq, CycThresh, PSBFreq are 4 bits */

static const char *const addr_cfg_names[FWPT_MAX_ADDR_RANGES] = {"ADDR0_CFG", "ADDR1_CFG", "ADDR2_CFG",
                                                                 "ADDR3_CFG"};
static const char *const addr_a_names[FWPT_MAX_ADDR_RANGES] = {"ADDR0_A", "ADDR1_A", "ADDR2_A", "ADDR3_A"};

static enum fwpt_status refuse(struct fwpt_trace_refusal *r, const char *option, const char *capability,
                               const char *why)
{
    if (r) {
        r->option = option;
        r->capability = capability;
        r->why = why;
    }
    return FWPT_E_CTL;
}

/* 48-bit canonical: bits 63:47 all equal (firmware runs with 4-level paging). */
static bool canonical(uint64_t a)
{
    uint64_t top = a >> 47;
    return top == 0 || top == 0x1ffff;
}

bool fwpt_trace_branch_en_always_on(const struct fwpt_caps *caps)
{
    struct fwpt_cpu_id id; /* erratum BDM106: the models are in the errata table */
    fwpt_caps_cpu_id(caps, &id);
    return fwpt_erratum_applies(FWPT_ERRATUM_BDM106, &id);
}

enum fwpt_status fwpt_trace_check(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps,
                                  struct fwpt_trace_refusal *r)
{
    if (r)
        r->option = r->capability = r->why = NULL;
    if (!cfg || !caps)
        return FWPT_E_INVAL;
    if (!caps->pt_supported) {
        if (r) {
            r->option = "TraceEn";
            r->capability = "intel_pt";
            r->why = fwpt_caps_reason_msg(caps->reason);
        }
        return FWPT_E_NOPT;
    }
    /* ToPA: #GP when CPUID.(14H,0):ECX[0] = 0; ToPA=0 means single-range, which needs ECX[2]. */
    if (cfg->topa && !caps->topa_output)
        return refuse(r, "ToPA", "topa_output", "ToPA output is not enumerated");
    if (!cfg->topa && !caps->single_range_output)
        return refuse(r, "ToPA", "single_range_output", "ToPA=0 selects single-range output, not enumerated");
    if ((cfg->output_base & OUTPUT_BASE_RESERVED_LOW) ||
        (caps->maxphyaddr < 64 && (cfg->output_base >> caps->maxphyaddr)))
        return refuse(r, "OUTPUT_BASE", "MAXPHYADDR",
                      "bits 6:0 are reserved and the base must be below 2^MAXPHYADDR");
    if (cfg->cyc_en) {
        if (!caps->psb_cyc)
            return refuse(r, "CYCEn", "psb_cyc", "CYC packets are not enumerated");
        if (cfg->cyc_thresh > CTL_FIELD_MAX || !((caps->cycle_thresholds >> cfg->cyc_thresh) & 1))
            return refuse(r, "CycThresh", "cycle_thresholds", "the encoding's bit is clear in CPUID.(14H,1):EBX[15:0]");
    }
    if (cfg->mtc_en) {
        if (!caps->mtc)
            return refuse(r, "MTCEn", "mtc", "MTC packets are not enumerated");
        if (cfg->mtc_freq > CTL_FIELD_MAX || !((caps->mtc_periods >> cfg->mtc_freq) & 1))
            return refuse(r, "MTCFreq", "mtc_periods", "the encoding's bit is clear in CPUID.(14H,1):EAX[31:16]");
    }
    if (cfg->psb_freq > CTL_FIELD_MAX)
        return refuse(r, "PSBFreq", "psb_periods", "PSBFreq is a 4-bit encoding");
    if (cfg->psb_freq && !caps->psb_cyc)
        return refuse(r, "PSBFreq", "psb_cyc", "a non-default PSB frequency needs psb_cyc");
    if (caps->psb_cyc && !((caps->psb_periods >> cfg->psb_freq) & 1))
        return refuse(r, "PSBFreq", "psb_periods", "the encoding's bit is clear in CPUID.(14H,1):EBX[31:16]");
    if (cfg->ptw_en && !caps->ptwrite)
        return refuse(r, "PTWEn", "ptwrite", "PTWRITE is not enumerated");
    if (cfg->fup_on_ptw && !caps->ptwrite)
        return refuse(r, "FUPonPTW", "ptwrite", "PTWRITE is not enumerated");
    if (cfg->fup_on_ptw && !cfg->ptw_en)
        return refuse(r, "FUPonPTW", NULL, "FUPonPTW needs PTWEn");
    if (cfg->pwr_evt_en && !caps->power_event_trace)
        return refuse(r, "PwrEvtEn", "power_event_trace", "power event trace is not enumerated");
    if (cfg->event_en && !caps->event_trace)
        return refuse(r, "EventEn", "event_trace", "event trace is not enumerated");
    if (cfg->dis_tnt && !caps->tnt_disable)
        return refuse(r, "DisTNT", "tnt_disable", "TNT disable is not enumerated");
    if (cfg->cr3_filter) {
        if (!caps->cr3_filtering)
            return refuse(r, "CR3Filter", "cr3_filtering", "CR3 filtering is not enumerated");
        if (cfg->cr3_match & CR3_MATCH_RESERVED_LOW)
            return refuse(r, "CR3_MATCH", NULL, "bits 4:0 are reserved");
    }
    if (cfg->n_ranges > FWPT_MAX_ADDR_RANGES)
        return refuse(r, "ADDRn_CFG", "num_address_ranges", "at most 4 address ranges exist in IA32_RTIT_CTL");
    for (unsigned n = 0; n < cfg->n_ranges; n++) {
        const struct fwpt_trace_range *a = &cfg->range[n];
        if (a->cfg != RTIT_ADDR_CFG_FILTER && a->cfg != RTIT_ADDR_CFG_TRACESTOP)
            return refuse(r, addr_cfg_names[n], NULL, "ADDRn_CFG must be 1 (filter) or 2 (TraceStop)");
        if (n >= caps->num_address_ranges || !caps->ip_filtering)
            return refuse(r, addr_cfg_names[n], "num_address_ranges", "more ranges than CPUID.(14H,1):EAX[2:0]");
        if (!canonical(a->a) || !canonical(a->b) || a->a > a->b)
            return refuse(r, addr_a_names[n], NULL, "ADDRn_A/B must be canonical with A <= B");
    }
    return FWPT_OK;
}

static unsigned lowest_bit(uint32_t bitmap, unsigned from)
{
    for (unsigned i = from; i < 32; i++)
        if (bitmap & (1u << i))
            return i;
    return 0;
}

void fwpt_trace_timing_lowest(struct fwpt_trace_config *cfg, const struct fwpt_caps *caps)
{
    cfg->tsc_en = true;
    cfg->mtc_en = caps->mtc;
    cfg->mtc_freq = lowest_bit(caps->mtc_periods, 0);
    cfg->cyc_en = caps->psb_cyc;
    cfg->cyc_thresh = lowest_bit(caps->cycle_thresholds, 1);
    cfg->psb_freq = caps->psb_cyc ? lowest_bit(caps->psb_periods, 0) : 0;
}

/* The highest bit of bitmap at or below `at` (-1: none). */
static int highest_bit_upto(uint32_t bitmap, unsigned at)
{
    for (int i = (int)at; i >= 0; i--)
        if (bitmap & (1u << i))
            return i;
    return -1;
}

void fwpt_trace_timing_small(struct fwpt_trace_config *cfg, const struct fwpt_caps *caps)
{
    cfg->tsc_en = true;
    int m = highest_bit_upto(caps->mtc_periods, FWPT_TIME_MTC_FREQ);
    if (!cfg->mtc_en && caps->mtc && m >= 0) {
        cfg->mtc_en = true;
        cfg->mtc_freq = (unsigned)m;
    }
    int c = highest_bit_upto(caps->cycle_thresholds, FWPT_TIME_CYC_THRESH);
    if (!cfg->cyc_en && caps->psb_cyc && c >= 0) {
        cfg->cyc_en = true;
        cfg->cyc_thresh = (unsigned)c;
    }
}

/* The IA32_RTIT_CTL bits that are one flag of the configuration each (SDM Vol. 3C "IA32_RTIT_CTL MSR"): the
 * flag's offset in struct fwpt_trace_config and the bit. */
#define CTL_FLAG(field, bit) {FWPT_BOOL_FIELD(struct fwpt_trace_config, field), bit}
static const struct {
    size_t field;
    uint64_t bit;
} ctl_flags[] = {
    CTL_FLAG(os, RTIT_CTL_OS), CTL_FLAG(user, RTIT_CTL_USER), CTL_FLAG(tsc_en, RTIT_CTL_TSCEN),
    CTL_FLAG(ptw_en, RTIT_CTL_PTWEN), CTL_FLAG(fup_on_ptw, RTIT_CTL_FUPONPTW), CTL_FLAG(dis_retc, RTIT_CTL_DISRETC),
    CTL_FLAG(pwr_evt_en, RTIT_CTL_PWREVTEN), CTL_FLAG(event_en, RTIT_CTL_EVENTEN), CTL_FLAG(dis_tnt, RTIT_CTL_DISTNT),
    CTL_FLAG(cr3_filter, RTIT_CTL_CR3FILTER), CTL_FLAG(topa, RTIT_CTL_TOPA),
};
#undef CTL_FLAG

uint64_t fwpt_trace_ctl(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps)
{
    uint64_t ctl = 0;
    if (cfg->branch_en || fwpt_trace_branch_en_always_on(caps))
        ctl |= RTIT_CTL_BRANCHEN;
    for (size_t i = 0; i < sizeof ctl_flags / sizeof ctl_flags[0]; i++)
        if (*fwpt_bool_at((void *)cfg, ctl_flags[i].field))
            ctl |= ctl_flags[i].bit;
    if (cfg->mtc_en) /* a field is written only with its enable */
        ctl |= RTIT_CTL_MTCEN | FWPT_PUT(RTIT_CTL_MTCFREQ, cfg->mtc_freq);
    if (cfg->cyc_en)
        ctl |= RTIT_CTL_CYCEN | FWPT_PUT(RTIT_CTL_CYCTHRESH, cfg->cyc_thresh);
    ctl |= FWPT_PUT(RTIT_CTL_PSBFREQ, cfg->psb_freq);
    for (unsigned n = 0; n < cfg->n_ranges && n < FWPT_MAX_ADDR_RANGES; n++)
        ctl |= FWPT_PUT(RTIT_CTL_ADDRn_CFG(n), cfg->range[n].cfg);
    return ctl;
}

/* ---- the sequence ---- */

struct seq {
    const struct fwpt_cpu *cpu;
    uint32_t failed_msr;
    bool failed_write;
    enum fwpt_status first;
};

/* st of an access to msr, kept when it is the sequence's first failure. */
static enum fwpt_status keep_first(struct seq *q, enum fwpt_status st, uint32_t msr, bool write)
{
    if (st != FWPT_OK && q->first == FWPT_OK) {
        q->first = st;
        q->failed_msr = msr;
        q->failed_write = write;
    }
    return st;
}

static enum fwpt_status rd(struct seq *q, uint32_t msr, uint64_t *v)
{
    return keep_first(q, fwpt_rdmsr(q->cpu, msr, v), msr, false);
}

static enum fwpt_status wr(struct seq *q, uint32_t msr, uint64_t v)
{
    return keep_first(q, fwpt_wrmsr(q->cpu, msr, v), msr, true);
}

/* TraceEn=0 changing nothing else; if even that is refused, CTL=0 (always a legal value). */
static void clear_trace_en(struct seq *q, uint64_t ctl)
{
    if (wr(q, MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN) != FWPT_OK)
        (void)wr(q, MSR_IA32_RTIT_CTL, 0);
}

/* Put back what was saved (TraceEn is 0 here), CTL without TraceEn, then STATUS=0 last. */
static void restore(struct seq *q, const struct fwpt_trace_saved *s)
{
    if (s->have_output_base)
        (void)wr(q, MSR_IA32_RTIT_OUTPUT_BASE, s->output_base);
    if (s->have_output_mask_ptrs)
        (void)wr(q, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, s->output_mask_ptrs);
    if (s->have_cr3_match)
        (void)wr(q, MSR_IA32_RTIT_CR3_MATCH, s->cr3_match);
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++)
        if (s->have_addr[n]) {
            (void)wr(q, MSR_IA32_RTIT_ADDRn_A(n), s->addr_a[n]);
            (void)wr(q, MSR_IA32_RTIT_ADDRn_B(n), s->addr_b[n]);
        }
    if (s->have_ctl)
        (void)wr(q, MSR_IA32_RTIT_CTL, s->ctl & ~RTIT_CTL_TRACEEN);
    /* STATUS must end clean: one retry (the failure is still reported). */
    if (wr(q, MSR_IA32_RTIT_STATUS, 0) != FWPT_OK)
        (void)wr(q, MSR_IA32_RTIT_STATUS, 0);
}

/* Abort from start: stop if we may be tracing, restore, and keep the first failure's identity. */
static enum fwpt_status abort_start(struct seq *q, struct fwpt_trace_state *st, enum fwpt_status why)
{
    struct seq r = {q->cpu, 0, false, FWPT_OK};
    if (st->tracing) {
        clear_trace_en(&r, st->live_ctl);
        fwpt_fence(q->cpu);
        st->tracing = false;
    }
    restore(&r, &st->saved);
    st->restore_status = r.first;
    st->failed_msr = q->failed_msr;
    st->failed_write = q->failed_write;
    return why;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        enum fwpt_status try_st_ = (call);                                                         \
        if (try_st_ != FWPT_OK)                                                                    \
            return abort_start(&q, state, try_st_);                                                \
    } while (0)

enum fwpt_status fwpt_trace_start(const struct fwpt_cpu *cpu, const struct fwpt_caps *caps,
                                  const struct fwpt_trace_config *cfg, struct fwpt_trace_state *state)
{
    struct seq q = {cpu, 0, false, FWPT_OK};
    struct fwpt_trace_saved *s;
    enum fwpt_status st;
    uint64_t ctl;

    if (!cpu || !caps || !cfg || !state)
        return FWPT_E_INVAL;
    fwpt_memset(state, 0, sizeof *state);
    s = &state->saved;
    if ((st = fwpt_trace_check(cfg, caps, NULL)) != FWPT_OK)
        return st; /* nothing touched */
    ctl = fwpt_trace_ctl(cfg, caps);
    state->ctl = ctl | RTIT_CTL_TRACEEN;

    /* 1. CTL as found. A fault here means no RTIT MSRs: nothing was written, nothing to undo. */
    if ((st = rd(&q, MSR_IA32_RTIT_CTL, &s->ctl)) != FWPT_OK) {
        state->failed_msr = q.failed_msr;
        return st;
    }
    s->have_ctl = true;
    /* 2. Firmware left PT running: clear TraceEn only (other bits are locked while it is set). */
    if (s->ctl & RTIT_CTL_TRACEEN) {
        state->was_active = true;
        state->tracing = true; /* until the clear is known to have worked */
        state->live_ctl = s->ctl;
        if (wr(&q, MSR_IA32_RTIT_CTL, s->ctl & ~RTIT_CTL_TRACEEN) != FWPT_OK)
            return abort_start(&q, state, FWPT_E_FAULT); /* abort retries, then writes CTL=0 */
        state->tracing = false;
        fwpt_fence(cpu);
    }
    /* 3. Save every RTIT MSR this run writes. */
    TRY(rd(&q, MSR_IA32_RTIT_STATUS, &s->status));
    s->have_status = true;
    TRY(rd(&q, MSR_IA32_RTIT_OUTPUT_BASE, &s->output_base));
    s->have_output_base = true;
    TRY(rd(&q, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, &s->output_mask_ptrs));
    s->have_output_mask_ptrs = true;
    if (cfg->cr3_filter) {
        TRY(rd(&q, MSR_IA32_RTIT_CR3_MATCH, &s->cr3_match));
        s->have_cr3_match = true;
    }
    for (unsigned n = 0; n < cfg->n_ranges; n++) {
        TRY(rd(&q, MSR_IA32_RTIT_ADDRn_A(n), &s->addr_a[n]));
        TRY(rd(&q, MSR_IA32_RTIT_ADDRn_B(n), &s->addr_b[n]));
        s->have_addr[n] = true;
    }
    /* 4. Clear STATUS (PacketByteCnt, Stopped, Error) while TraceEn=0, as the SDM requires. */
    TRY(wr(&q, MSR_IA32_RTIT_STATUS, 0));
    /* 5. Output, filters, then CTL without TraceEn, then TraceEn last. */
    TRY(wr(&q, MSR_IA32_RTIT_OUTPUT_BASE, cfg->output_base));
    TRY(wr(&q, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, cfg->output_mask_ptrs));
    if (cfg->cr3_filter)
        TRY(wr(&q, MSR_IA32_RTIT_CR3_MATCH, cfg->cr3_match));
    for (unsigned n = 0; n < cfg->n_ranges; n++) {
        TRY(wr(&q, MSR_IA32_RTIT_ADDRn_A(n), cfg->range[n].a));
        TRY(wr(&q, MSR_IA32_RTIT_ADDRn_B(n), cfg->range[n].b));
    }
    TRY(wr(&q, MSR_IA32_RTIT_CTL, ctl));
    state->tracing = true; /* from here on an abort clears TraceEn first */
    state->live_ctl = ctl | RTIT_CTL_TRACEEN;
    TRY(wr(&q, MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN));
    /* 6. An operational error right after enabling (bad table, restricted memory) shows at once. */
    TRY(rd(&q, MSR_IA32_RTIT_STATUS, &state->status_after_enable));
    if (state->status_after_enable & RTIT_STATUS_ERROR) {
        q.failed_msr = MSR_IA32_RTIT_STATUS;
        q.failed_write = false;
        return abort_start(&q, state, FWPT_E_TRACE_ERROR);
    }
    return FWPT_OK;
}

enum fwpt_status fwpt_trace_stop(const struct fwpt_cpu *cpu, struct fwpt_trace_state *state,
                                 struct fwpt_trace_result *res)
{
    struct seq q = {cpu, 0, false, FWPT_OK};
    struct seq r = {cpu, 0, false, FWPT_OK};

    if (!cpu || !state || !res)
        return FWPT_E_INVAL;
    fwpt_memset(res, 0, sizeof *res);
    if (!state->tracing)
        return FWPT_OK;
    /* TraceEn=0, then a store fence so every output byte is globally visible before we read. */
    clear_trace_en(&q, state->live_ctl);
    state->tracing = false;
    fwpt_fence(cpu);
    res->have_status = rd(&q, MSR_IA32_RTIT_STATUS, &res->status) == FWPT_OK;
    res->have_output_base = rd(&q, MSR_IA32_RTIT_OUTPUT_BASE, &res->output_base) == FWPT_OK;
    res->have_output_mask_ptrs = rd(&q, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, &res->output_mask_ptrs) == FWPT_OK;
    res->error = res->have_status && (res->status & RTIT_STATUS_ERROR);
    res->stopped = res->have_status && (res->status & RTIT_STATUS_STOPPED);
    restore(&r, &state->saved);
    res->restore_status = r.first;
    res->failed_msr = q.first != FWPT_OK ? q.failed_msr : r.failed_msr;
    res->failed_write = q.first != FWPT_OK ? q.failed_write : r.failed_write;
    return q.first != FWPT_OK ? q.first : r.first;
}
