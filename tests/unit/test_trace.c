/* The IA32_RTIT_* MSR sequence (arch/trace) against a recording fake CPU for several real CPU
 * profiles: exact order and values of every access, a fault injected at every access, operational
 * error on enable, PT left running by firmware, and the CTL checks against the fake's #GP rules. */
#include <stdbool.h>
#include "arch/caps.h"
#include "arch/cpu_replay.h"
#include "arch/rtit.h"
#include "arch/trace.h"
#include "tests/check.h"
#include "tests/common/cpu_script.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/plan.h"

#define R FWPT_SCRIPT_RDMSR
#define W FWPT_SCRIPT_WRMSR
#define F FWPT_SCRIPT_FENCE

/* Values the MSRs hold before we run (restored afterwards). */
#define PRE_OUTPUT_BASE 0x0000000077700000ull
#define PRE_MASK_PTRS   0x0000123400000f7full
#define PRE_CR3         0x0000000000abc000ull
#define PRE_ADDR_A(n)   (0xffffffff80000000ull + 0x100000ull * (n))
#define PRE_ADDR_B(n)   (PRE_ADDR_A(n) + 0xfffff)

static const struct fwpt_cpu_profile *profile(const char *name)
{
    const struct fwpt_cpu_profile *p = fwpt_cpu_profile_find(name);
    if (!p) {
        fprintf(stderr, "no profile %s\n", name);
        exit(1);
    }
    return p;
}

static void preset(struct fwpt_script *s)
{
    s->output_base = PRE_OUTPUT_BASE;
    s->output_mask_ptrs = PRE_MASK_PTRS;
    if (s->caps.cr3_filtering)
        s->cr3_match = PRE_CR3;
    for (unsigned n = 0; n < s->caps.num_address_ranges && n < FWPT_MAX_ADDR_RANGES; n++) {
        s->addr_a[n] = PRE_ADDR_A(n);
        s->addr_b[n] = PRE_ADDR_B(n);
    }
}

static unsigned lowest_bit_from(uint32_t bitmap, unsigned from)
{
    for (unsigned i = from; i < 16; i++)
        if ((bitmap >> i) & 1)
            return i;
    return 0;
}

/* A rich configuration using what the profile offers. */
static void rich_config(const struct fwpt_caps *c, struct fwpt_trace_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->branch_en = cfg->os = cfg->user = cfg->tsc_en = true;
    cfg->dis_retc = true;
    if (c->mtc) {
        cfg->mtc_en = true;
        cfg->mtc_freq = lowest_bit_from(c->mtc_periods, 3);
    }
    if (c->psb_cyc) {
        cfg->cyc_en = true;
        cfg->cyc_thresh = lowest_bit_from(c->cycle_thresholds, 1);
        cfg->psb_freq = lowest_bit_from(c->psb_periods, 2);
    }
    cfg->ptw_en = cfg->fup_on_ptw = c->ptwrite;
    cfg->pwr_evt_en = c->power_event_trace;
    if (c->cr3_filtering) {
        cfg->cr3_filter = true;
        cfg->cr3_match = 0x1234000;
    }
    cfg->n_ranges = c->num_address_ranges < 2 ? c->num_address_ranges : 2;
    for (unsigned n = 0; n < cfg->n_ranges; n++) {
        cfg->range[n].cfg = n == 0 ? RTIT_ADDR_CFG_FILTER : RTIT_ADDR_CFG_TRACESTOP;
        cfg->range[n].a = 0x7e000000ull + 0x10000ull * n;
        cfg->range[n].b = cfg->range[n].a + 0x7fff;
    }
    cfg->topa = c->topa_output;
    cfg->output_base = 0x40000000ull;
    cfg->output_mask_ptrs = cfg->topa ? 0x7full : 0xffffull;
}

struct expect {
    enum fwpt_script_op op;
    uint32_t msr;
    uint64_t value;
};

#define E(o, m, v) (e[n].op = (o), e[n].msr = (m), e[n].value = (v), n++)

/* The filter MSRs in the order the session touches them: CR3_MATCH (when filtering), then ADDRn_A/B
 * of each range; op OP, values as saved before the session (pre) or as configured. */
static unsigned expect_filters(struct expect *e, unsigned n, enum fwpt_script_op op,
                               const struct fwpt_trace_config *cfg, bool pre)
{
    if (cfg->cr3_filter)
        E(op, MSR_IA32_RTIT_CR3_MATCH, pre ? PRE_CR3 : cfg->cr3_match);
    for (unsigned i = 0; i < cfg->n_ranges; i++) {
        E(op, MSR_IA32_RTIT_ADDRn_A(i), pre ? PRE_ADDR_A(i) : cfg->range[i].a);
        E(op, MSR_IA32_RTIT_ADDRn_B(i), pre ? PRE_ADDR_B(i) : cfg->range[i].b);
    }
    return n;
}

static unsigned expect_start(const struct fwpt_trace_config *cfg, uint64_t found_ctl, uint64_t ctl, struct expect *e)
{
    unsigned n = 0;
    E(R, MSR_IA32_RTIT_CTL, found_ctl);
    if (found_ctl & RTIT_CTL_TRACEEN) {
        E(W, MSR_IA32_RTIT_CTL, found_ctl & ~RTIT_CTL_TRACEEN);
        E(F, 0, 0);
    }
    E(R, MSR_IA32_RTIT_STATUS, ~0ull); /* value: whatever was there */
    E(R, MSR_IA32_RTIT_OUTPUT_BASE, PRE_OUTPUT_BASE);
    E(R, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, PRE_MASK_PTRS);
    n = expect_filters(e, n, R, cfg, true);
    E(W, MSR_IA32_RTIT_STATUS, 0);
    E(W, MSR_IA32_RTIT_OUTPUT_BASE, cfg->output_base);
    E(W, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, cfg->output_mask_ptrs);
    n = expect_filters(e, n, W, cfg, false);
    E(W, MSR_IA32_RTIT_CTL, ctl);
    E(W, MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN);
    E(R, MSR_IA32_RTIT_STATUS, RTIT_STATUS_TRIGGEREN);
    return n;
}

static unsigned expect_stop(const struct fwpt_trace_config *cfg, uint64_t found_ctl, uint64_t ctl, struct expect *e)
{
    unsigned n = 0;
    E(W, MSR_IA32_RTIT_CTL, ctl);
    E(F, 0, 0);
    E(R, MSR_IA32_RTIT_STATUS, 0);
    E(R, MSR_IA32_RTIT_OUTPUT_BASE, cfg->output_base);
    E(R, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, cfg->output_mask_ptrs | RTIT_MASK_LOWERMASK);
    E(W, MSR_IA32_RTIT_OUTPUT_BASE, PRE_OUTPUT_BASE);
    E(W, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, PRE_MASK_PTRS);
    n = expect_filters(e, n, W, cfg, true);
    E(W, MSR_IA32_RTIT_CTL, found_ctl & ~RTIT_CTL_TRACEEN);
    E(W, MSR_IA32_RTIT_STATUS, 0);
#undef E
    return n;
}

static bool log_matches(const struct fwpt_script *s, unsigned from, const struct expect *e, unsigned n)
{
    bool ok = s->n_log >= from + n;
    for (unsigned i = 0; ok && i < n; i++) {
        const struct fwpt_script_access *a = &s->log[from + i];
        if (a->op != e[i].op || a->msr != e[i].msr || a->result != FWPT_OK)
            ok = false;
        else if (e[i].op != F && e[i].value != ~0ull && a->value != e[i].value)
            ok = false;
        if (!ok)
            fprintf(stderr, "  access %u: expected %s %s %llx\n", from + i,
                    e[i].op == R ? "rd" : e[i].op == W ? "wr" : "fence", fwpt_script_msr_name(e[i].msr),
                    (unsigned long long)e[i].value);
    }
    if (!ok)
        fwpt_script_dump(s);
    return ok;
}

/* Every MSR back to its preset value, TraceEn 0, STATUS 0. */
static bool clean_and_restored(const struct fwpt_script *s, uint64_t pre_ctl, uint32_t except_msr)
{
    bool ok = !(s->ctl & RTIT_CTL_TRACEEN) && s->status == 0;
    if (except_msr != MSR_IA32_RTIT_CTL)
        ok = ok && s->ctl == (pre_ctl & ~RTIT_CTL_TRACEEN);
    if (except_msr != MSR_IA32_RTIT_OUTPUT_BASE)
        ok = ok && s->output_base == PRE_OUTPUT_BASE;
    if (except_msr != MSR_IA32_RTIT_OUTPUT_MASK_PTRS)
        ok = ok && s->output_mask_ptrs == PRE_MASK_PTRS;
    if (s->caps.cr3_filtering && except_msr != MSR_IA32_RTIT_CR3_MATCH)
        ok = ok && s->cr3_match == PRE_CR3;
    for (unsigned n = 0; n < s->caps.num_address_ranges && n < FWPT_MAX_ADDR_RANGES; n++) {
        if (except_msr != MSR_IA32_RTIT_ADDRn_A(n))
            ok = ok && s->addr_a[n] == PRE_ADDR_A(n);
        if (except_msr != MSR_IA32_RTIT_ADDRn_B(n))
            ok = ok && s->addr_b[n] == PRE_ADDR_B(n);
    }
    return ok;
}

/* A scripted CPU with the preset MSRs, a rich configuration for it, and what starting and stopping the trace
 * leave: the set-up of the sequence, was-active, fault and error-on-enable tests. */
struct script_rig {
    struct fwpt_script s;
    struct fwpt_cpu cpu;
    struct fwpt_trace_config cfg;
    struct fwpt_trace_state st;
    struct fwpt_trace_result res;
};

static void script_rig_init(struct script_rig *r, const struct fwpt_cpu_profile *p)
{
    fwpt_script_init(&r->s, p);
    preset(&r->s);
    r->cpu = fwpt_script_cpu(&r->s);
    rich_config(&r->s.caps, &r->cfg);
}

static enum fwpt_status script_rig_start(struct script_rig *r)
{
    return fwpt_trace_start(&r->cpu, &r->s.caps, &r->cfg, &r->st);
}

static enum fwpt_status script_rig_stop(struct script_rig *r) { return fwpt_trace_stop(&r->cpu, &r->st, &r->res); }

static const char *const usable_profiles[] = {"broadwell", "skylake", "skylake-sp", "goldmont", "goldmont-plus",
                                              "tremont", "tigerlake", "alderlake-p", "gracemont-e", "alderlake-n",
                                              "arrowlake-p", "arrowlake-e"};
#define N_USABLE (sizeof usable_profiles / sizeof usable_profiles[0])

/* ---- the exact sequence ---- */

/* Skylake, literal CTL value: BranchEn OS User TSCEn MTCEn MTCFreq=3 CYCEn CycThresh=1
 * PSBFreq=2 ToPA CR3Filter DisRETC ADDR0_CFG=1 ADDR1_CFG=2 */
TEST(skylake_start_exact_sequence)
{
    struct script_rig r;
    struct expect e[64];
    unsigned n;
    script_rig_init(&r, profile("skylake"));
    CHECK_EQ(fwpt_trace_check(&r.cfg, &r.s.caps, NULL), FWPT_OK);
    CHECK_EQ(fwpt_trace_ctl(&r.cfg, &r.s.caps), 0x210208ef8eull);
    CHECK_EQ(script_rig_start(&r), FWPT_OK);
    CHECK(!r.st.was_active && r.st.tracing);
    CHECK_EQ(r.st.ctl, 0x210208ef8full);
    CHECK_EQ(r.s.ctl, 0x210208ef8full);
    CHECK_EQ(r.st.status_after_enable, RTIT_STATUS_TRIGGEREN);
    n = expect_start(&r.cfg, 0, 0x210208ef8eull, e);
    CHECK_EQ(n, 20);
    CHECK(log_matches(&r.s, 0, e, n));
    CHECK_EQ(r.s.n_log, n);
    CHECK_EQ(r.s.log[9].msr, MSR_IA32_RTIT_STATUS); /* STATUS cleared before anything is programmed */
    CHECK_EQ(r.s.log[17].value, 0x210208ef8eull);   /* CTL without TraceEn, then */
    CHECK_EQ(r.s.log[18].value, 0x210208ef8full);   /* TraceEn last */
}

/* The Skylake rig of skylake_start_exact_sequence, started (that case checks the start). */
static void skylake_started(struct script_rig *r)
{
    script_rig_init(r, profile("skylake"));
    if (script_rig_start(r) != FWPT_OK)
        fprintf(stderr, "  skylake rig: the start failed (skylake_start_exact_sequence says why)\n");
}

/* the trace runs: the output pointers move, PacketByteCnt counts; the stop reads them, then restores:
 * stop order: TraceEn=0 alone, fence, reads, restore, CTL, STATUS=0 last */
TEST(skylake_stop_reads_results_then_restores)
{
    struct script_rig r;
    skylake_started(&r);
    r.s.output_mask_ptrs = 0x0000345600000080ull | RTIT_MASK_LOWERMASK;
    r.s.status |= FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 0x3456);
    unsigned before = r.s.n_log;
    CHECK_EQ(script_rig_stop(&r), FWPT_OK);
    CHECK(r.res.have_status && r.res.have_output_base && r.res.have_output_mask_ptrs);
    CHECK_EQ(r.res.status, FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 0x3456)); /* TriggerEn gone with TraceEn */
    CHECK_EQ(r.res.output_base, 0x40000000ull);
    CHECK_EQ(r.res.output_mask_ptrs, 0x00003456000000ffull);
    CHECK(!r.res.error && !r.res.stopped);
    CHECK_EQ(r.res.restore_status, FWPT_OK);
    CHECK(r.s.log[before].op == W && r.s.log[before].msr == MSR_IA32_RTIT_CTL &&
          r.s.log[before].value == 0x210208ef8eull);
    CHECK(r.s.log[before + 1].op == F);
    CHECK(r.s.log[before + 2].op == R && r.s.log[before + 2].msr == MSR_IA32_RTIT_STATUS);
    CHECK(r.s.log[r.s.n_log - 1].op == W && r.s.log[r.s.n_log - 1].msr == MSR_IA32_RTIT_STATUS &&
          r.s.log[r.s.n_log - 1].value == 0);
    CHECK(r.s.log[r.s.n_log - 2].op == W && r.s.log[r.s.n_log - 2].msr == MSR_IA32_RTIT_CTL &&
          r.s.log[r.s.n_log - 2].value == 0);
    CHECK(clean_and_restored(&r.s, 0, 0));
    CHECK_EQ(r.s.gp, 0);
    CHECK(!r.st.tracing);
}

/* a second stop does nothing */
TEST(second_stop_does_nothing)
{
    struct script_rig r;
    skylake_started(&r);
    if (script_rig_stop(&r) != FWPT_OK)
        fprintf(stderr, "  skylake rig: the stop failed (skylake_stop_reads_results_then_restores says why)\n");
    unsigned before = r.s.n_log;
    CHECK_EQ(script_rig_stop(&r), FWPT_OK);
    CHECK_EQ(r.s.n_log, before);
}

/* every usable profile: the generated expectation, start and stop */
TEST(every_usable_profile_start_stop)
{
    struct script_rig r;
    struct expect e[64];
    unsigned n, before;
    for (size_t i = 0; i < N_USABLE; i++) {
        script_rig_init(&r, profile(usable_profiles[i]));
        CHECK_EQ(fwpt_trace_check(&r.cfg, &r.s.caps, NULL), FWPT_OK);
        uint64_t ctl = fwpt_trace_ctl(&r.cfg, &r.s.caps);
        CHECK_EQ(script_rig_start(&r), FWPT_OK);
        n = expect_start(&r.cfg, 0, ctl, e);
        CHECK(log_matches(&r.s, 0, e, n));
        before = r.s.n_log;
        CHECK_EQ(script_rig_stop(&r), FWPT_OK);
        n = expect_stop(&r.cfg, 0, ctl, e);
        CHECK(log_matches(&r.s, before, e, n));
        CHECK_EQ(r.s.n_log, before + n);
        CHECK(clean_and_restored(&r.s, 0, 0));
        CHECK_EQ(r.s.gp, 0);
        CHECK_EQ(r.res.output_base, r.cfg.output_base);
    }
}

/* Broadwell: BranchEn forced on (BDM106) even when not asked; single-entry ToPA; not on Skylake */
TEST(broadwell_branch_en_forced_on)
{
    struct script_rig r;
    script_rig_init(&r, profile("broadwell"));
    memset(&r.cfg, 0, sizeof r.cfg);
    r.cfg.os = true;
    r.cfg.topa = true;
    r.cfg.output_base = 0x40000000ull;
    r.cfg.output_mask_ptrs = 0x7f;
    CHECK(fwpt_trace_branch_en_always_on(&r.s.caps));
    CHECK_EQ(fwpt_trace_ctl(&r.cfg, &r.s.caps), RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TOPA);
    CHECK_EQ(script_rig_start(&r), FWPT_OK);
    CHECK_EQ(r.s.ctl, RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    CHECK_EQ(script_rig_stop(&r), FWPT_OK);
    /* not on Skylake */
    fwpt_script_init(&r.s, profile("skylake"));
    CHECK(!fwpt_trace_branch_en_always_on(&r.s.caps));
    CHECK_EQ(fwpt_trace_ctl(&r.cfg, &r.s.caps), RTIT_CTL_OS | RTIT_CTL_TOPA);
}

/* ---- firmware left PT running ---- */

static const uint64_t fw_ctl = RTIT_CTL_TRACEEN | RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TOPA | RTIT_CTL_TSCEN;

/* Tiger Lake with PT left running by firmware: stopped first (TraceEn cleared alone), then ours */
TEST(was_active_firmware_config_restored)
{
    struct script_rig r;
    struct expect e[64];
    script_rig_init(&r, profile("tigerlake"));
    r.s.ctl = fw_ctl;
    r.s.status = RTIT_STATUS_TRIGGEREN | FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 77);
    uint64_t ctl = fwpt_trace_ctl(&r.cfg, &r.s.caps);
    CHECK_EQ(script_rig_start(&r), FWPT_OK);
    CHECK(r.st.was_active);
    CHECK_EQ(r.st.saved.ctl, fw_ctl);
    CHECK_EQ(r.st.saved.status, FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 77)); /* read after it was stopped */
    unsigned n = expect_start(&r.cfg, fw_ctl, ctl, e);
    CHECK(log_matches(&r.s, 0, e, n));
    CHECK_EQ(r.s.log[1].value, fw_ctl & ~RTIT_CTL_TRACEEN); /* TraceEn cleared alone */
    unsigned before = r.s.n_log;
    CHECK_EQ(script_rig_stop(&r), FWPT_OK);
    n = expect_stop(&r.cfg, fw_ctl, ctl, e);
    CHECK(log_matches(&r.s, before, e, n));
    /* its configuration is back, TraceEn stays 0, STATUS clean */
    CHECK_EQ(r.s.ctl, fw_ctl & ~RTIT_CTL_TRACEEN);
    CHECK(clean_and_restored(&r.s, fw_ctl, 0));
    CHECK_EQ(r.s.gp, 0);
}

/* fault on every access of that run */
TEST(was_active_fault_at_every_access)
{
    struct script_rig r;
    script_rig_init(&r, profile("tigerlake")); /* the run of was_active_firmware_config_restored: its accesses */
    r.s.ctl = fw_ctl;
    r.s.status = RTIT_STATUS_TRIGGEREN | FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 77);
    script_rig_start(&r);
    script_rig_stop(&r);
    unsigned total = r.s.n_msr;
    for (unsigned k = 0; k < total; k++) {
        script_rig_init(&r, profile("tigerlake"));
        r.s.ctl = fw_ctl;
        r.s.status = RTIT_STATUS_TRIGGEREN;
        r.s.fault_at = k;
        enum fwpt_status a = script_rig_start(&r), b = script_rig_stop(&r);
        CHECK(a != FWPT_OK || b != FWPT_OK);
        CHECK_EQ(r.s.gp, 0);
        if (k == 0) { /* CTL unreadable: nothing written at all */
            CHECK_EQ(a, FWPT_E_FAULT);
            CHECK_EQ(r.st.failed_msr, MSR_IA32_RTIT_CTL);
            CHECK_EQ(r.s.n_msr, 1);
            continue;
        }
        const struct fwpt_script_access *f = NULL;
        for (unsigned i = 0; i < r.s.n_log; i++)
            if (r.s.log[i].injected)
                f = &r.s.log[i];
        CHECK(f != NULL);
        uint32_t except = f && f->op == W && f->msr != MSR_IA32_RTIT_STATUS ? f->msr : 0;
        bool ok = clean_and_restored(&r.s, fw_ctl, except);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "  was_active fault at %u\n", k);
            fwpt_script_dump(&r.s);
        }
    }
}

/* ---- a fault at every access, every usable profile ---- */

TEST(fault_at_every_access_every_profile)
{
    unsigned runs = 0;
    for (size_t i = 0; i < N_USABLE; i++) {
        struct script_rig r;
        const struct fwpt_cpu_profile *p = profile(usable_profiles[i]);

        script_rig_init(&r, p);
        CHECK_EQ(script_rig_start(&r), FWPT_OK);
        unsigned start_n = r.s.n_msr;
        CHECK_EQ(script_rig_stop(&r), FWPT_OK);
        unsigned total = r.s.n_msr;

        for (unsigned k = 0; k < total; k++, runs++) {
            script_rig_init(&r, p);
            r.s.fault_at = k;
            enum fwpt_status a = script_rig_start(&r);
            int before = (int)check_failed;
            if (k < start_n) {
                CHECK_EQ(a, FWPT_E_FAULT);
                CHECK(!r.st.tracing);
                CHECK(r.st.failed_msr != 0);
            } else {
                CHECK_EQ(a, FWPT_OK);
            }
            enum fwpt_status b = script_rig_stop(&r);
            CHECK_EQ(b, k < start_n ? FWPT_OK : FWPT_E_FAULT);
            CHECK_EQ(r.s.gp, 0); /* no path breaks a #GP rule */
            CHECK(!(r.s.ctl & RTIT_CTL_TRACEEN));
            if (k == 0) {
                CHECK_EQ(r.s.n_msr, 1);
                continue;
            }
            CHECK_EQ(r.s.status, 0);
            const struct fwpt_script_access *f = NULL;
            for (unsigned j = 0; j < r.s.n_log; j++)
                if (r.s.log[j].injected)
                    f = &r.s.log[j];
            CHECK(f != NULL);
            /* the one MSR whose restore write faulted may differ, and that is reported */
            uint32_t except = 0;
            if (f && f->op == W && f->msr != MSR_IA32_RTIT_STATUS && k >= start_n) {
                except = f->msr;
                CHECK_EQ(r.res.failed_msr, f->msr);
                CHECK(r.res.failed_write);
            } else if (f && f->op == W && k < start_n) {
                except = f->msr == MSR_IA32_RTIT_STATUS ? 0 : f->msr;
                CHECK_EQ(r.st.failed_msr, f->msr);
                CHECK(r.st.failed_write);
            }
            if (f && f->op == R && k >= start_n) {
                /* a result register could not be read: said so */
                if (f->msr == MSR_IA32_RTIT_STATUS)
                    CHECK(!r.res.have_status);
                if (f->msr == MSR_IA32_RTIT_OUTPUT_BASE)
                    CHECK(!r.res.have_output_base);
                if (f->msr == MSR_IA32_RTIT_OUTPUT_MASK_PTRS)
                    CHECK(!r.res.have_output_mask_ptrs);
            }
            CHECK(clean_and_restored(&r.s, 0, except));
            if ((int)check_failed != before) {
                fprintf(stderr, "  profile %s fault at access %u\n", p->name, k);
                fwpt_script_dump(&r.s);
            }
        }
    }
    printf("fault injection: %u runs\n", runs);
    CHECK(runs > 200);
}

/* ---- operational error right after enabling ---- */

/* Alder Lake P: the STATUS read after TraceEn=1 shows Error: stopped and restored, nothing left to stop */
TEST(error_on_enable_stopped_and_restored)
{
    struct script_rig r;

    script_rig_init(&r, profile("alderlake-p"));
    r.s.error_on_enable = true;
    uint64_t ctl = fwpt_trace_ctl(&r.cfg, &r.s.caps);
    CHECK_EQ(script_rig_start(&r), FWPT_E_TRACE_ERROR);
    CHECK(r.st.status_after_enable & RTIT_STATUS_ERROR);
    CHECK_EQ(r.st.failed_msr, MSR_IA32_RTIT_STATUS);
    CHECK(!r.st.tracing);
    CHECK_EQ(r.st.restore_status, FWPT_OK);
    /* after the STATUS read: TraceEn=0 alone, fence, then the restore */
    unsigned i;
    for (i = 0; i < r.s.n_log; i++)
        if (r.s.log[i].op == W && r.s.log[i].msr == MSR_IA32_RTIT_CTL && r.s.log[i].value == (ctl | RTIT_CTL_TRACEEN))
            break;
    CHECK(i + 3 < r.s.n_log);
    CHECK(r.s.log[i + 1].op == R && r.s.log[i + 1].msr == MSR_IA32_RTIT_STATUS);
    CHECK(r.s.log[i + 2].op == W && r.s.log[i + 2].msr == MSR_IA32_RTIT_CTL && r.s.log[i + 2].value == ctl);
    CHECK(r.s.log[i + 3].op == F);
    CHECK(clean_and_restored(&r.s, 0, 0));
    CHECK_EQ(r.s.gp, 0);
    unsigned n = r.s.n_log;
    CHECK_EQ(script_rig_stop(&r), FWPT_OK); /* nothing to stop */
    CHECK_EQ(r.s.n_log, n);
}

/* ---- the CTL checks ---- */

static void expect_refusal(const char *prof, void (*edit)(struct fwpt_trace_config *), const char *option,
                           const char *capability)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    struct fwpt_trace_refusal r;
    struct fwpt_trace_state st;
    struct fwpt_cpu cpu;
    fwpt_script_init(&s, profile(prof));
    cpu = fwpt_script_cpu(&s);
    rich_config(&s.caps, &cfg);
    edit(&cfg);
    CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, &r), FWPT_E_CTL);
    CHECK_STR(r.option, option);
    if (capability)
        CHECK_STR(r.capability, capability);
    else
        CHECK(r.capability == NULL);
    CHECK(r.why != NULL);
    CHECK_EQ(fwpt_trace_start(&cpu, &s.caps, &cfg, &st), FWPT_E_CTL);
    CHECK_EQ(s.n_msr, 0); /* refused before anything is touched */
}

static void mtc_on(struct fwpt_trace_config *c) { c->mtc_en = true, c->mtc_freq = 3; }
static void cyc_on(struct fwpt_trace_config *c) { c->cyc_en = true; }
static void psb_1(struct fwpt_trace_config *c) { c->psb_freq = 1; }
static void one_range(struct fwpt_trace_config *c)
{
    c->n_ranges = 1;
    c->range[0].cfg = RTIT_ADDR_CFG_FILTER;
    c->range[0].a = 0x1000;
    c->range[0].b = 0x2000;
}
static void ptw_on(struct fwpt_trace_config *c) { c->ptw_en = true; }
static void single_range(struct fwpt_trace_config *c) { c->topa = false; }
static void pwr_on(struct fwpt_trace_config *c) { c->pwr_evt_en = true; }
static void mtc_freq1(struct fwpt_trace_config *c) { c->mtc_freq = 1; }
static void cyc_14(struct fwpt_trace_config *c) { c->cyc_thresh = 14; }
static void psb_6(struct fwpt_trace_config *c) { c->psb_freq = 6; }
static void three_ranges(struct fwpt_trace_config *c)
{
    c->n_ranges = 3;
    for (int i = 0; i < 3; i++) {
        c->range[i].cfg = RTIT_ADDR_CFG_FILTER;
        c->range[i].a = 0x1000;
        c->range[i].b = 0x2000;
    }
}
static void fup_no_ptw(struct fwpt_trace_config *c) { c->ptw_en = false, c->fup_on_ptw = true; }
static void event_on(struct fwpt_trace_config *c) { c->event_en = true; }
static void distnt_on(struct fwpt_trace_config *c) { c->dis_tnt = true; }
static void range_cfg3(struct fwpt_trace_config *c) { c->range[0].cfg = 3; }
static void range_backwards(struct fwpt_trace_config *c) { c->range[0].a = c->range[0].b + 1; }
static void range_noncanonical(struct fwpt_trace_config *c) { c->range[1].b = 0x0000800000000000ull; }
static void base_low_bits(struct fwpt_trace_config *c) { c->output_base |= 0x40; }
static void base_high(struct fwpt_trace_config *c) { c->output_base = 1ull << 39; }
static void cr3_low_bits(struct fwpt_trace_config *c) { c->cr3_match |= 8; }
static void nothing(struct fwpt_trace_config *c) { (void)c; }

/* Broadwell: only CR3 filtering and single-entry ToPA */
TEST(refusals_broadwell)
{
    expect_refusal("broadwell", mtc_on, "MTCEn", "mtc");
    expect_refusal("broadwell", cyc_on, "CYCEn", "psb_cyc");
    expect_refusal("broadwell", psb_1, "PSBFreq", "psb_cyc");
    expect_refusal("broadwell", one_range, "ADDR0_CFG", "num_address_ranges");
    expect_refusal("broadwell", ptw_on, "PTWEn", "ptwrite");
    expect_refusal("broadwell", single_range, "ToPA", "single_range_output");
    expect_refusal("broadwell", pwr_on, "PwrEvtEn", "power_event_trace");
    expect_refusal("broadwell", base_high, "OUTPUT_BASE", "MAXPHYADDR"); /* MAXPHYADDR 39 */
}

/* Skylake: bitmaps 0x249 / 0x3fff / 0x3f, 2 ranges, no PTWRITE */
TEST(refusals_skylake)
{
    expect_refusal("skylake", mtc_freq1, "MTCFreq", "mtc_periods");
    expect_refusal("skylake", cyc_14, "CycThresh", "cycle_thresholds");
    expect_refusal("skylake", psb_6, "PSBFreq", "psb_periods");
    expect_refusal("skylake", three_ranges, "ADDR2_CFG", "num_address_ranges");
    expect_refusal("skylake", ptw_on, "PTWEn", "ptwrite");
    expect_refusal("skylake", range_cfg3, "ADDR0_CFG", NULL);
    expect_refusal("skylake", range_backwards, "ADDR0_A", NULL);
    expect_refusal("skylake", range_noncanonical, "ADDR1_A", NULL);
    expect_refusal("skylake", base_low_bits, "OUTPUT_BASE", "MAXPHYADDR");
    expect_refusal("skylake", cr3_low_bits, "CR3_MATCH", NULL);
    expect_refusal("skylake", event_on, "EventEn", "event_trace");
}

/* Alder Lake E-core: PTWRITE yes, power events no (EBX 5FH) */
TEST(refusals_alderlake_e_core)
{
    expect_refusal("gracemont-e", fup_no_ptw, "FUPonPTW", NULL);
    expect_refusal("gracemont-e", pwr_on, "PwrEvtEn", "power_event_trace");
    expect_refusal("gracemont-e", distnt_on, "DisTNT", "tnt_disable");
}

/* Arrow Lake: TNT disable (EBX[8]) yes, event trace (EBX[7]) no */
TEST(arrowlake_tnt_disable_yes_event_trace_no)
{
    expect_refusal("arrowlake-p", event_on, "EventEn", "event_trace");
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("arrowlake-p"));
    rich_config(&s.caps, &cfg);
    cfg.dis_tnt = true;
    CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, NULL), FWPT_OK);
    CHECK(fwpt_trace_ctl(&cfg, &s.caps) & RTIT_CTL_DISTNT);
}

/* Tremont: power events and PTWRITE in the rich configuration, accepted */
TEST(tremont_power_events_and_ptwrite_accepted)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("tremont"));
    rich_config(&s.caps, &cfg);
    CHECK(cfg.pwr_evt_en && cfg.ptw_en);
    CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, NULL), FWPT_OK);
}

/* Skylake boundary values accepted */
TEST(skylake_boundary_values_accepted)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("skylake"));
    rich_config(&s.caps, &cfg);
    cfg.mtc_freq = 9;
    cfg.cyc_thresh = 13;
    cfg.psb_freq = 5;
    CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, NULL), FWPT_OK);
}

/* Not usable: E_NOPT naming TraceEn, whatever the configuration; no configuration: E_INVAL */
TEST(not_usable_refused_naming_traceen)
{
    const char *nopt[] = {"haswell", "amd-zen3", "cometlake-nopt"};
    for (size_t i = 0; i < 3; i++) {
        struct fwpt_script s;
        struct fwpt_trace_config cfg;
        struct fwpt_trace_refusal r;
        struct fwpt_trace_state st;
        struct fwpt_cpu cpu;
        fwpt_script_init(&s, profile(nopt[i]));
        cpu = fwpt_script_cpu(&s);
        rich_config(&s.caps, &cfg);
        nothing(&cfg);
        CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, &r), FWPT_E_NOPT);
        CHECK_STR(r.option, "TraceEn");
        CHECK_STR(r.why, fwpt_caps_reason_msg(s.caps.reason));
        CHECK_EQ(fwpt_trace_start(&cpu, &s.caps, &cfg, &st), FWPT_E_NOPT);
        CHECK_EQ(s.n_msr, 0);
    }
    CHECK_EQ(fwpt_trace_check(NULL, NULL, NULL), FWPT_E_INVAL);
}

/* ---- random configurations: the check against the fake's #GP rules ---- */

/* 400 random configurations per profile: what the check accepts the CPU accepts; what it refuses naming a
 * capability, the CPU would #GP on */
TEST(random_configs_against_gp_rules)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    unsigned accepted = 0, refused_gp = 0, refused_value = 0;
    for (size_t pi = 0; pi < fwpt_cpu_profile_count(); pi++) {
        const struct fwpt_cpu_profile *p = fwpt_cpu_profile_at(pi);
        for (int it = 0; it < 400; it++) {
            struct fwpt_script s;
            struct fwpt_trace_config cfg;
            struct fwpt_trace_refusal r;
            struct fwpt_trace_state st;
            struct fwpt_trace_result res;
            struct fwpt_cpu cpu;
            fwpt_script_init(&s, p);
            preset(&s);
            cpu = fwpt_script_cpu(&s);
            memset(&cfg, 0, sizeof cfg);
            uint64_t x = topa_rand(&rng);
            cfg.branch_en = x & 1, cfg.os = x & 2, cfg.user = x & 4, cfg.tsc_en = x & 8;
            cfg.mtc_en = (x >> 4) & 1, cfg.cyc_en = (x >> 5) & 1, cfg.ptw_en = (x >> 6) & 1;
            cfg.fup_on_ptw = !((x >> 7) & 7), cfg.dis_retc = (x >> 10) & 1, cfg.pwr_evt_en = !((x >> 11) & 3);
            cfg.event_en = !((x >> 13) & 7), cfg.dis_tnt = !((x >> 16) & 7), cfg.cr3_filter = (x >> 19) & 1;
            cfg.topa = (x >> 20) & 3;
            cfg.mtc_freq = (x >> 22) & 15, cfg.cyc_thresh = (x >> 26) & 15;
            cfg.psb_freq = ((x >> 30) & 3) ? 0 : (x >> 32) & 15;
            cfg.n_ranges = (x >> 36) % 5;
            cfg.cr3_match = ((x >> 40) & 1) ? 0x5000 : 0x5008;
            uint64_t y = topa_rand(&rng);
            for (unsigned n = 0; n < cfg.n_ranges; n++) {
                cfg.range[n].cfg = (y >> (4 * n)) & 3 ? ((y >> (4 * n)) & 1) + 1 : 0;
                cfg.range[n].a = 0x1000 * n;
                cfg.range[n].b = ((y >> (20 + n)) & 1) ? 0x1000 * n + 0xfff : 0;
            }
            if ((y >> 50) & 1) { /* half of them: only enumerated features (encodings stay random) */
                const struct fwpt_caps *k = &s.caps;
                cfg.mtc_en &= k->mtc, cfg.cyc_en &= k->psb_cyc, cfg.ptw_en &= k->ptwrite;
                cfg.fup_on_ptw &= cfg.ptw_en, cfg.pwr_evt_en &= k->power_event_trace;
                cfg.event_en &= k->event_trace, cfg.dis_tnt &= k->tnt_disable, cfg.cr3_filter &= k->cr3_filtering;
                cfg.topa = k->topa_output && (cfg.topa || !k->single_range_output);
                if (cfg.n_ranges > k->num_address_ranges)
                    cfg.n_ranges = k->num_address_ranges;
                if (!k->psb_cyc)
                    cfg.psb_freq = 0;
            }
            cfg.output_base = ((y >> 40) & 7) ? 0x40000000ull : 0x40000010ull;
            cfg.output_mask_ptrs = 0x7f;
            enum fwpt_status c = fwpt_trace_check(&cfg, &s.caps, &r);
            if (c == FWPT_OK) {
                accepted++;
                CHECK_EQ(fwpt_trace_start(&cpu, &s.caps, &cfg, &st), FWPT_OK);
                CHECK_EQ(fwpt_trace_stop(&cpu, &st, &res), FWPT_OK);
                CHECK_EQ(s.gp, 0); /* what the check accepts, the CPU accepts */
                CHECK(clean_and_restored(&s, 0, 0));
                continue;
            }
            CHECK(c == (s.caps.pt_supported ? FWPT_E_CTL : FWPT_E_NOPT));
            CHECK(r.option != NULL && r.why != NULL);
            if (c != FWPT_E_CTL || !r.capability) {
                refused_value++;
                continue;
            }
            /* a refusal that names a capability: the CPU would #GP on that value */
            refused_gp++;
            uint64_t v;
            if (!strcmp(r.option, "OUTPUT_BASE")) {
                CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, cfg.output_base), FWPT_E_FAULT);
            } else {
                v = fwpt_trace_ctl(&cfg, &s.caps) | RTIT_CTL_TRACEEN;
                CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, v), FWPT_E_FAULT);
            }
            CHECK_EQ(s.gp, 1);
        }
    }
    printf("random configurations: %u accepted, %u refused (#GP on hardware), %u refused (value rules / no PT)\n",
           accepted, refused_gp, refused_value);
    CHECK(accepted > 500 && refused_gp > 500);
}


/* ---- against the output model (sim/model): the real RTIT MSR + ToPA behaviour ---- */

/* Delegates to the model, with a fault injected at MSR access #k. */
struct faulty_model {
    struct fwpt_model *m;
    long fault_at;
    unsigned n;
    bool injected, injected_write;
    uint32_t injected_msr;
    bool after_stop_started;
};
static enum fwpt_status fm_cpuid(void *ctx, uint32_t l, uint32_t sl, struct fwpt_cpuid_regs *o)
{
    return fwpt_model_cpuid(((struct faulty_model *)ctx)->m, l, sl, o);
}
static bool fm_inject(struct faulty_model *f, uint32_t msr, bool write)
{
    if ((long)f->n++ != f->fault_at)
        return false;
    f->injected = true;
    f->injected_msr = msr;
    f->injected_write = write;
    return true;
}
static enum fwpt_status fm_rdmsr(void *ctx, uint32_t msr, uint64_t *v)
{
    struct faulty_model *f = ctx;
    if (fm_inject(f, msr, false)) {
        *v = 0;
        return FWPT_E_FAULT;
    }
    return fwpt_model_rdmsr(f->m, msr, v);
}
static enum fwpt_status fm_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
    struct faulty_model *f = ctx;
    if (fm_inject(f, msr, true))
        return FWPT_E_FAULT;
    return fwpt_model_wrmsr(f->m, msr, v);
}

struct model_rig {
    struct fwpt_caps caps;
    struct topa_arena arena;
    struct fwpt_plan plan;
    struct fwpt_output_regs regs;
    uint64_t region_phys[16], table_phys[4];
    struct fwpt_model m;
};

static bool model_rig_init(struct model_rig *r, const char *prof, bool single_range)
{
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_plan_options opt;
    struct fwpt_plan_error err;
    memset(r, 0, sizeof *r);
    fwpt_cpu_profile_snapshot(profile(prof), &snap);
    fwpt_caps_parse(&snap, &r->caps);
    memset(&opt, 0, sizeof opt);
    opt.total_size = 64 << 10;
    opt.region_size = single_range || !r->caps.topa_multiple_entries ? 0 : 16 << 10; /* one region */
    opt.mode = FWPT_PLAN_STOP;
    opt.single_range = single_range;
    if (fwpt_plan_make(&r->caps, &opt, &r->plan, &err) != FWPT_OK) {
        fprintf(stderr, "plan for %s: %s: %s\n", prof, err.option ? err.option : "?", err.why ? err.why : "?");
        return false;
    }
    if (r->plan.region_count > 16 || r->plan.table_count > 4)
        return false;
    topa_arena_init(&r->arena, 0x10000000ull, 1 << 20);
    for (unsigned i = 0; i < r->plan.region_count; i++)
        r->region_phys[i] = topa_arena_alloc(&r->arena, r->plan.regions.bytes, r->plan.regions.align);
    for (unsigned i = 0; i < r->plan.table_count; i++)
        r->table_phys[i] = topa_arena_alloc(&r->arena, r->plan.tables.bytes, r->plan.tables.align);
    if (fwpt_plan_apply(&r->plan, &r->arena.mem, r->region_phys, r->table_phys, &r->regs) != FWPT_OK)
        return false;
    fwpt_model_init(&r->m, &r->caps, &r->arena.mem);
    /* what the MSRs held before */
    r->m.output_base = PRE_OUTPUT_BASE;
    r->m.output_mask_ptrs = PRE_MASK_PTRS;
    if (r->caps.cr3_filtering)
        r->m.cr3_match = PRE_CR3;
    for (unsigned n = 0; n < r->caps.num_address_ranges && n < FWPT_MAX_ADDR_RANGES; n++) {
        r->m.addr_a[n] = PRE_ADDR_A(n);
        r->m.addr_b[n] = PRE_ADDR_B(n);
    }
    return true;
}

static void model_config(const struct model_rig *r, struct fwpt_trace_config *cfg)
{
    rich_config(&r->caps, cfg);
    cfg->topa = (r->regs.ctl_bits & RTIT_CTL_TOPA) != 0;
    cfg->output_base = r->regs.output_base;
    cfg->output_mask_ptrs = r->regs.output_mask_ptrs;
}

static bool model_clean(const struct fwpt_model *m, const struct fwpt_caps *c, uint32_t except)
{
    bool ok = !fwpt_model_trace_en(m) && m->status == 0 && m->stats.gp == 0;
    if (except != MSR_IA32_RTIT_CTL)
        ok = ok && m->ctl == 0;
    if (except != MSR_IA32_RTIT_OUTPUT_BASE)
        ok = ok && m->output_base == PRE_OUTPUT_BASE;
    if (except != MSR_IA32_RTIT_OUTPUT_MASK_PTRS)
        ok = ok && (m->output_mask_ptrs | RTIT_MASK_LOWERMASK) == PRE_MASK_PTRS;
    if (c->cr3_filtering && except != MSR_IA32_RTIT_CR3_MATCH)
        ok = ok && m->cr3_match == PRE_CR3;
    for (unsigned n = 0; n < c->num_address_ranges && n < FWPT_MAX_ADDR_RANGES; n++) {
        if (except != MSR_IA32_RTIT_ADDRn_A(n))
            ok = ok && m->addr_a[n] == PRE_ADDR_A(n);
        if (except != MSR_IA32_RTIT_ADDRn_B(n))
            ok = ok && m->addr_b[n] == PRE_ADDR_B(n);
    }
    return ok;
}

/* Each profile and scheme against the model: start, 300 bytes at the first region, stop; a fault at every access;
 * an operational error at enable */
TEST(model_start_stop_faults_errors)
{
    static const struct {
        const char *prof;
        bool single_range;
        enum fwpt_plan_scheme scheme;
    } runs[] = {
        {"broadwell", false, FWPT_SCHEME_TOPA_SINGLE}, {"skylake", false, FWPT_SCHEME_TOPA_MULTI},
        {"skylake", true, FWPT_SCHEME_SINGLE_RANGE},   {"goldmont", false, FWPT_SCHEME_TOPA_MULTI},
        {"tremont", false, FWPT_SCHEME_TOPA_MULTI},    {"alderlake-p", false, FWPT_SCHEME_TOPA_MULTI},
        {"gracemont-e", true, FWPT_SCHEME_SINGLE_RANGE}, {"arrowlake-p", false, FWPT_SCHEME_TOPA_MULTI},
    };
    unsigned fault_runs = 0;
    uint8_t bytes[300];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7 + 1);
    for (size_t ri = 0; ri < sizeof runs / sizeof runs[0]; ri++) {
        struct model_rig rig;
        struct fwpt_trace_config cfg;
        struct fwpt_trace_state st;
        struct fwpt_trace_result res;
        int before = (int)check_failed;
        if (!model_rig_init(&rig, runs[ri].prof, runs[ri].single_range)) {
            CHECK(!"model rig");
            continue;
        }
        CHECK_EQ(rig.plan.scheme, runs[ri].scheme);
        model_config(&rig, &cfg);
        CHECK_EQ(fwpt_trace_check(&cfg, &rig.caps, NULL), FWPT_OK);
        struct fwpt_cpu cpu = fwpt_model_cpu(&rig.m);
        CHECK_EQ(fwpt_trace_start(&cpu, &rig.caps, &cfg, &st), FWPT_OK);
        CHECK(fwpt_model_trace_en(&rig.m) && fwpt_model_trigger_en(&rig.m));
        CHECK_EQ(rig.m.ctl, fwpt_trace_ctl(&cfg, &rig.caps) | RTIT_CTL_TRACEEN);
        CHECK_EQ(rig.m.stats.enables, 1);
        /* the processor produces 300 bytes; they land at the start of the first region */
        CHECK_EQ(fwpt_model_emit(&rig.m, bytes, sizeof bytes), sizeof bytes);
        CHECK_EQ(fwpt_trace_stop(&cpu, &st, &res), FWPT_OK);
        CHECK(!res.error && !res.stopped);
        CHECK_EQ(FWPT_GET(RTIT_STATUS_PACKETBYTECNT, res.status), sizeof bytes);
        CHECK_EQ(res.output_base, cfg.output_base);
        CHECK_EQ(FWPT_GET(RTIT_MASK_OUTPUTOFFSET, res.output_mask_ptrs), sizeof bytes);
        CHECK(!memcmp(topa_arena_ptr(&rig.arena, rig.region_phys[0]), bytes, sizeof bytes));
        CHECK(model_clean(&rig.m, &rig.caps, 0));
        unsigned total = 0;
        {
            /* count the accesses of a clean run through the fault wrapper */
            struct model_rig r2;
            struct faulty_model f = {0};
            CHECK(model_rig_init(&r2, runs[ri].prof, runs[ri].single_range));
            f.m = &r2.m;
            f.fault_at = -1;
            struct fwpt_cpu fc = {"faulty-model", &f, fm_cpuid, fm_rdmsr, fm_wrmsr, NULL};
            CHECK_EQ(fwpt_trace_start(&fc, &r2.caps, &cfg, &st), FWPT_OK);
            CHECK_EQ(fwpt_trace_stop(&fc, &st, &res), FWPT_OK);
            total = f.n;
            topa_arena_free(&r2.arena);
        }
        CHECK(total > 15);
        for (unsigned k = 0; k < total; k++, fault_runs++) {
            struct model_rig r2;
            struct faulty_model f = {0};
            if (!model_rig_init(&r2, runs[ri].prof, runs[ri].single_range))
                continue;
            f.m = &r2.m;
            f.fault_at = k;
            struct fwpt_cpu fc = {"faulty-model", &f, fm_cpuid, fm_rdmsr, fm_wrmsr, NULL};
            enum fwpt_status a = fwpt_trace_start(&fc, &r2.caps, &cfg, &st);
            if (a == FWPT_OK)
                (void)fwpt_model_emit(&r2.m, bytes, 64);
            enum fwpt_status b = fwpt_trace_stop(&fc, &st, &res);
            CHECK(f.injected);
            CHECK(a != FWPT_OK || b != FWPT_OK);
            bool restore_write = f.injected_write && f.injected_msr != MSR_IA32_RTIT_STATUS;
            bool ok = k == 0 ? (f.n == 1 && !fwpt_model_trace_en(&r2.m))
                             : model_clean(&r2.m, &r2.caps, restore_write ? f.injected_msr : 0);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  model %s fault at %u (msr %x %s): ctl %llx status %llx gp %llu\n", runs[ri].prof, k,
                        f.injected_msr, f.injected_write ? "wr" : "rd", (unsigned long long)r2.m.ctl,
                        (unsigned long long)r2.m.status, (unsigned long long)r2.m.stats.gp);
            topa_arena_free(&r2.arena);
        }
        /* an operational error at enable: a reserved bit in the first ToPA entry / a bad mask */
        {
            struct model_rig r2;
            CHECK(model_rig_init(&r2, runs[ri].prof, runs[ri].single_range));
            struct fwpt_cpu mc = fwpt_model_cpu(&r2.m);
            struct fwpt_trace_config bad = cfg;
            if (bad.topa) {
                uint64_t e0;
                CHECK(fwpt_physmem_read64(&r2.arena.mem, r2.regs.output_base, &e0));
                CHECK(fwpt_physmem_write64(&r2.arena.mem, r2.regs.output_base, e0 | FWPT_BIT(1)));
            } else {
                bad.output_mask_ptrs = 0x1234ff; /* OutputMask not of the form 2^n-1 */
            }
            CHECK_EQ(fwpt_trace_start(&mc, &r2.caps, &bad, &st), FWPT_E_TRACE_ERROR);
            CHECK(st.status_after_enable & RTIT_STATUS_ERROR);
            CHECK_EQ(r2.m.stats.errors, 1);
            CHECK(model_clean(&r2.m, &r2.caps, 0));
            topa_arena_free(&r2.arena);
        }
        topa_arena_free(&rig.arena);
        if ((int)check_failed != before)
            fprintf(stderr, "  ^ model run %s%s\n", runs[ri].prof, runs[ri].single_range ? " single-range" : "");
    }
    printf("model: %zu profiles/schemes, %u fault-injection runs\n", sizeof runs / sizeof runs[0], fault_runs);
}

/* The app's `time` option: TSC, and MTC / CYC at the encodings closest to MTCFreq 9 / CycThresh 5 from below that
 * the bitmaps allow; what the user set stays; the result passes the checks every configuration passes. */
TEST(timing_small_skylake)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    struct fwpt_trace_refusal r;
    fwpt_script_init(&s, profile("skylake")); /* MTC periods 0x249, CYC thresholds 0x3fff */
    memset(&cfg, 0, sizeof cfg);
    cfg.branch_en = cfg.os = cfg.topa = true;
    fwpt_trace_timing_small(&cfg, &s.caps);
    CHECK(cfg.tsc_en && cfg.mtc_en && cfg.cyc_en);
    CHECK_EQ(cfg.mtc_freq, 9);
    CHECK_EQ(cfg.cyc_thresh, 5);
    CHECK_EQ(fwpt_trace_check(&cfg, &s.caps, &r), FWPT_OK);
}

/* mtc=3 given: kept */
TEST(timing_small_keeps_mtc_given)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("skylake"));
    memset(&cfg, 0, sizeof cfg);
    cfg.branch_en = cfg.os = cfg.topa = true;
    cfg.mtc_en = true, cfg.mtc_freq = 3;
    fwpt_trace_timing_small(&cfg, &s.caps);
    CHECK_EQ(cfg.mtc_freq, 3);
    CHECK_EQ(cfg.cyc_thresh, 5);
}

/* periods 0x9 (encodings 0 and 3), thresholds 0x7 (0..2): the closest from below */
TEST(timing_small_closest_from_below)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("skylake"));
    struct fwpt_caps c = s.caps;
    c.mtc_periods = 0x9;
    c.cycle_thresholds = 0x7;
    memset(&cfg, 0, sizeof cfg);
    fwpt_trace_timing_small(&cfg, &c);
    CHECK_EQ(cfg.mtc_freq, 3);
    CHECK_EQ(cfg.cyc_thresh, 2);
}

/* Broadwell: no MTC, no CYC: TSC alone */
TEST(timing_small_broadwell_tsc_alone)
{
    struct fwpt_script s;
    struct fwpt_trace_config cfg;
    fwpt_script_init(&s, profile("broadwell"));
    memset(&cfg, 0, sizeof cfg);
    cfg.branch_en = cfg.os = true;
    fwpt_trace_timing_small(&cfg, &s.caps);
    CHECK(cfg.tsc_en && !cfg.mtc_en && !cfg.cyc_en);
}

TEST_MAIN("test_trace")
