/* Recording fake CPU (see cpu_script.h). */
#include <stdio.h>
#include <string.h>
#include "tests/common/cpu_script.h"

void fwpt_script_init(struct fwpt_script *s, const struct fwpt_cpu_profile *p)
{
    struct fwpt_cpuid_snapshot snap;
    memset(s, 0, sizeof *s);
    fwpt_cpu_profile_snapshot(p, &snap);
    fwpt_caps_parse(&snap, &s->caps);
    fwpt_replay_init_profile(&s->replay, p);
    s->output_mask_ptrs = RTIT_MASK_LOWERMASK;
    s->fault_at = -1;
}

const char *fwpt_script_msr_name(uint32_t msr)
{
    static const char *const addr[] = {"ADDR0_A", "ADDR0_B", "ADDR1_A", "ADDR1_B",
                                       "ADDR2_A", "ADDR2_B", "ADDR3_A", "ADDR3_B"};
    switch (msr) {
    case MSR_IA32_RTIT_CTL: return "CTL";
    case MSR_IA32_RTIT_STATUS: return "STATUS";
    case MSR_IA32_RTIT_OUTPUT_BASE: return "OUTPUT_BASE";
    case MSR_IA32_RTIT_OUTPUT_MASK_PTRS: return "OUTPUT_MASK_PTRS";
    case MSR_IA32_RTIT_CR3_MATCH: return "CR3_MATCH";
    default:
        if (msr >= MSR_IA32_RTIT_ADDR0_A && msr < MSR_IA32_RTIT_ADDR0_A + 8)
            return addr[msr - MSR_IA32_RTIT_ADDR0_A];
        return "?";
    }
}

void fwpt_script_dump(const struct fwpt_script *s)
{
    for (unsigned i = 0; i < s->n_log && i < FWPT_SCRIPT_LOG; i++) {
        const struct fwpt_script_access *a = &s->log[i];
        if (a->op == FWPT_SCRIPT_FENCE)
            fprintf(stderr, "  %3u fence\n", i);
        else
            fprintf(stderr, "  %3u %s %-16s %016llx %s%s\n", i, a->op == FWPT_SCRIPT_RDMSR ? "rd" : "wr",
                    fwpt_script_msr_name(a->msr), (unsigned long long)a->value, fwpt_status_name(a->result),
                    a->injected ? " (injected)" : "");
    }
}

static void log_access(struct fwpt_script *s, enum fwpt_script_op op, uint32_t msr, uint64_t v,
                       enum fwpt_status r, bool injected)
{
    if (s->n_log < FWPT_SCRIPT_LOG) {
        struct fwpt_script_access *a = &s->log[s->n_log];
        a->op = op;
        a->msr = msr;
        a->value = v;
        a->result = r;
        a->injected = injected;
    }
    s->n_log++;
}

static uint64_t *msr_slot(struct fwpt_script *s, uint32_t msr)
{
    const struct fwpt_caps *c = &s->caps;
    if (!c->pt_supported)
        return NULL; /* no RTIT MSRs at all */
    switch (msr) {
    case MSR_IA32_RTIT_CTL: return &s->ctl;
    case MSR_IA32_RTIT_STATUS: return &s->status;
    case MSR_IA32_RTIT_OUTPUT_BASE: return &s->output_base;
    case MSR_IA32_RTIT_OUTPUT_MASK_PTRS: return &s->output_mask_ptrs;
    case MSR_IA32_RTIT_CR3_MATCH: return c->cr3_filtering ? &s->cr3_match : NULL;
    default:
        for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES && n < c->num_address_ranges; n++) {
            if (msr == MSR_IA32_RTIT_ADDRn_A(n))
                return &s->addr_a[n];
            if (msr == MSR_IA32_RTIT_ADDRn_B(n))
                return &s->addr_b[n];
        }
        return NULL;
    }
}

static bool inject(struct fwpt_script *s)
{
    return s->fault_at >= 0 && (long)s->n_msr == s->fault_at;
}

static enum fwpt_status script_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct fwpt_script *s = ctx;
    uint64_t *slot = msr_slot(s, msr);
    bool inj = inject(s);
    s->n_msr++;
    *value = 0;
    if (inj || !slot) {
        s->gp += !inj;
        log_access(s, FWPT_SCRIPT_RDMSR, msr, 0, FWPT_E_FAULT, inj);
        return FWPT_E_FAULT;
    }
    *value = *slot;
    log_access(s, FWPT_SCRIPT_RDMSR, msr, *value, FWPT_OK, false);
    return FWPT_OK;
}

static bool field_ok(uint64_t v, uint64_t mask, uint32_t bitmap, bool supported)
{
    uint64_t enc = FWPT_GET(mask, v);
    if (!supported)
        return enc == 0;
    return (bitmap >> enc) & 1;
}

/* SDM IA32_RTIT_CTL: #GP on reserved bits and on bits/encodings the CPU does not enumerate. */
static bool ctl_allowed(const struct fwpt_script *s, uint64_t v)
{
    const struct fwpt_caps *c = &s->caps;
    if (v & RTIT_CTL_RESERVED_ALWAYS)
        return false;
    if (((v & RTIT_CTL_CYCEN) && !c->psb_cyc) || ((v & RTIT_CTL_MTCEN) && !c->mtc) ||
        ((v & (RTIT_CTL_PTWEN | RTIT_CTL_FUPONPTW)) && !c->ptwrite) ||
        ((v & RTIT_CTL_PWREVTEN) && !c->power_event_trace) || ((v & RTIT_CTL_CR3FILTER) && !c->cr3_filtering) ||
        ((v & RTIT_CTL_TOPA) && !c->topa_output) || ((v & RTIT_CTL_FABRICEN) && !c->output_subsys) ||
        ((v & RTIT_CTL_EVENTEN) && !c->event_trace) || ((v & RTIT_CTL_DISTNT) && !c->tnt_disable) ||
        ((v & RTIT_CTL_INJECTPSBPMI) && !c->psb_pmi_preserve))
        return false;
    if (!field_ok(v, RTIT_CTL_MTCFREQ, c->mtc_periods, c->mtc) ||
        !field_ok(v, RTIT_CTL_CYCTHRESH, c->cycle_thresholds, c->psb_cyc) ||
        !field_ok(v, RTIT_CTL_PSBFREQ, c->psb_periods, c->psb_cyc))
        return false;
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++) {
        uint64_t cfg = FWPT_GET(RTIT_CTL_ADDRn_CFG(n), v);
        if (cfg > RTIT_ADDR_CFG_TRACESTOP || (cfg && n >= c->num_address_ranges))
            return false;
    }
    /* TraceEn with ToPA=0 selects single-range output */
    if ((v & RTIT_CTL_TRACEEN) && !(v & RTIT_CTL_TOPA) && !c->single_range_output)
        return false;
    return true;
}

static enum fwpt_status script_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    struct fwpt_script *s = ctx;
    uint64_t *slot = msr_slot(s, msr);
    bool inj = inject(s), ok = slot != NULL;
    bool tracing = (s->ctl & RTIT_CTL_TRACEEN) != 0;
    s->n_msr++;
    if (ok && !inj) {
        if (msr == MSR_IA32_RTIT_CTL) {
            ok = ctl_allowed(s, value);
            /* while TraceEn=1 only TraceEn may change */
            if (tracing && (value & RTIT_CTL_TRACEEN) && (value ^ s->ctl))
                ok = false;
        } else {
            ok = !tracing; /* other RTIT MSRs are locked while tracing */
            if (msr == MSR_IA32_RTIT_STATUS && (value & RTIT_STATUS_RESERVED))
                ok = false;
            if (msr == MSR_IA32_RTIT_OUTPUT_BASE &&
                ((value & FWPT_FIELD(6, 0)) || (value >> s->caps.maxphyaddr)))
                ok = false;
            if (msr == MSR_IA32_RTIT_CR3_MATCH && (value & FWPT_FIELD(4, 0)))
                ok = false;
        }
    }
    if (inj || !ok) {
        s->gp += !inj;
        log_access(s, FWPT_SCRIPT_WRMSR, msr, value, FWPT_E_FAULT, inj);
        return FWPT_E_FAULT;
    }
    log_access(s, FWPT_SCRIPT_WRMSR, msr, value, FWPT_OK, false);
    if (msr == MSR_IA32_RTIT_CTL) {
        bool on = (value & RTIT_CTL_TRACEEN) != 0;
        if (on && !tracing) {
            if (s->error_on_enable)
                s->status |= RTIT_STATUS_ERROR; /* operational error at the first output */
            else
                s->status |= RTIT_STATUS_TRIGGEREN;
        }
        if (!on)
            s->status &= ~RTIT_STATUS_TRIGGEREN;
        s->ctl = value;
    } else if (msr == MSR_IA32_RTIT_OUTPUT_MASK_PTRS) {
        *slot = value | RTIT_MASK_LOWERMASK; /* LowerMask reads as 1s */
    } else {
        *slot = value;
    }
    return FWPT_OK;
}

static enum fwpt_status script_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    return fwpt_replay_cpuid(&((struct fwpt_script *)ctx)->replay, leaf, subleaf, out);
}

static void script_fence(void *ctx)
{
    log_access(ctx, FWPT_SCRIPT_FENCE, 0, 0, FWPT_OK, false);
}

struct fwpt_cpu fwpt_script_cpu(struct fwpt_script *s)
{
    struct fwpt_cpu c = {"script", s, script_cpuid, script_rdmsr, script_wrmsr, script_fence};
    return c;
}
