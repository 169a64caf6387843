/* topa: the RTIT MSR model (#GP rules, TraceEn/TriggerEn, STATUS) and the output logic details
 * (PMI, PMI preservation, maximum table size wrap, single-range wrap, restricted memory). */
#include "tests/check.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/table.h"
#include "arch/cpu_replay.h"

#define PHYS 0x40000000ull
#define T0 PHYS
#define REG(i) (PHYS + 0x10000 + (uint64_t)(i) * 0x1000)

static struct topa_arena arena;
static struct fwpt_model M;
static struct fwpt_cpu cpu;

static void put(uint64_t table, unsigned i, uint64_t raw) { fwpt_physmem_write64(&arena.mem, table + 8ull * i, raw); }
static uint64_t region(uint64_t base, bool stop, bool intr)
{
    struct fwpt_topa_entry e = {base, 0, stop, intr, false, 0};
    return fwpt_topa_encode(&e);
}
static uint64_t end_to(uint64_t t)
{
    struct fwpt_topa_entry e = {t, 0, false, false, true, 0};
    return fwpt_topa_encode(&e);
}
static void arena_free(void)
{
    topa_arena_free(&arena);
}
/* The arena, made on first use (freed at exit). */
static struct topa_arena *arena_get(void)
{
    static int made;
    if (!made) {
        topa_arena_init(&arena, PHYS, 1u << 20);
        atexit(arena_free);
        made = 1;
    }
    return &arena;
}
/* Each case's start: the arena all zero, a model of caps reset. */
static void fresh(const struct fwpt_caps *caps)
{
    memset(arena_get()->buf, 0, arena.size);
    fwpt_model_init(&M, caps, &arena.mem);
    cpu = fwpt_model_cpu(&M);
}
static size_t emit_n(uint64_t n, uint8_t b)
{
    static uint8_t buf[4096];
    size_t s = 0;
    memset(buf, b, sizeof buf);
    while (n) {
        size_t c = n < sizeof buf ? (size_t)n : sizeof buf;
        s += fwpt_model_emit(&M, buf, c);
        n -= c;
    }
    return s;
}
static enum fwpt_status wr(uint32_t msr, uint64_t v) { return fwpt_wrmsr(&cpu, msr, v); }
static uint64_t rd(uint32_t msr)
{
    uint64_t v = 0xdead;
    CHECK_EQ(fwpt_rdmsr(&cpu, msr, &v), FWPT_OK);
    return v;
}
static uint8_t at(uint64_t phys) { return *(uint8_t *)topa_arena_ptr(&arena, phys); }

/* no PT: every RTIT MSR #GPs */
TEST(no_pt_every_rtit_msr_gps)
{
    struct fwpt_caps nopt;
    topa_caps(&nopt, TOPA_CAPS_MULTI, 39);
    nopt.intel_pt = false;
    nopt.pt_supported = false;
    fresh(&nopt);
    uint64_t v;
    CHECK_EQ(fwpt_rdmsr(&cpu, MSR_IA32_RTIT_CTL, &v), FWPT_E_FAULT);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_STATUS, 0), FWPT_E_FAULT);
    CHECK_EQ(fwpt_rdmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, &v), FWPT_E_FAULT);
    CHECK_EQ(M.stats.gp, 3);
}

/* CPUID answers from the snapshot */
TEST(cpuid_from_snapshot)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    struct fwpt_cpuid_regs r;
    CHECK_EQ(fwpt_cpuid(&cpu, 0x14, 0, &r), FWPT_OK);
    CHECK_EQ(r.ecx, caps.raw.leaf14_0.ecx);
    CHECK_EQ(r.ebx, caps.raw.leaf14_0.ebx);
    CHECK_EQ(fwpt_cpuid(&cpu, 0x14, 1, &r), FWPT_OK);
    CHECK_EQ(r.eax, caps.raw.leaf14_1.eax);
    CHECK_EQ(fwpt_cpuid(&cpu, 7, 0, &r), FWPT_OK);
    CHECK_EQ(r.ebx, CPUID7_0_EBX_INTEL_PT);
    CHECK_EQ(fwpt_cpuid(&cpu, 0x80000008u, 0, &r), FWPT_OK);
    CHECK_EQ(r.eax & 0xff, 39);
    CHECK_STR(cpu.name, "model");
}

/* from a real profile's snapshot: Broadwell has single-entry ToPA and no PTWRITE */
TEST(broadwell_profile_single_entry_no_ptwrite)
{
    struct fwpt_cpuid_regs r;
    struct fwpt_cpuid_snapshot snap;
    const struct fwpt_cpu_profile *p = fwpt_cpu_profile_find("broadwell");
    CHECK(p != NULL);
    if (p) {
        static struct fwpt_model b;
        fwpt_cpu_profile_snapshot(p, &snap);
        fwpt_model_init_snapshot(&b, &snap, &arena_get()->mem);
        struct fwpt_cpu bc = fwpt_model_cpu(&b);
        CHECK(b.caps.topa_output && !b.caps.topa_multiple_entries);
        CHECK_EQ(fwpt_cpuid(&bc, 0x14, 0, &r), FWPT_OK);
        CHECK_EQ(r.ecx, p->leaf14_0.ecx);
        CHECK_EQ(fwpt_wrmsr(&bc, MSR_IA32_RTIT_CTL, RTIT_CTL_PTWEN), FWPT_E_FAULT);
        CHECK_EQ(fwpt_wrmsr(&bc, MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_BRANCHEN), FWPT_OK);
    }
}

/* reset values; LowerMask reads as 7FH */
TEST(reset_values_lowermask_7fh)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    CHECK_EQ(rd(MSR_IA32_RTIT_CTL), 0);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0), FWPT_OK);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
}

/* IA32_RTIT_CTL reserved bits and capability-dependent bits */
TEST(ctl_reserved_and_capability_bits)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    struct fwpt_caps single, noext;
    topa_caps(&single, TOPA_CAPS_SINGLE_ENTRY, 39);
    fresh(&caps);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_BIT(18)), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_BIT(60)), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_FABRICEN), FWPT_E_FAULT);      /* output_subsys = 0 */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_EVENTEN), FWPT_E_FAULT);       /* event_trace = 0 */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_DISTNT), FWPT_E_FAULT);        /* tnt_disable = 0 */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_ADDRn_CFG(2), 1)), FWPT_E_FAULT); /* 2 ranges */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_ADDRn_CFG(0), 3)), FWPT_E_FAULT); /* reserved encoding */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_ADDRn_CFG(1), 2)), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_MTCFREQ, 1)), FWPT_E_FAULT); /* bitmap 249H */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_MTCEN | FWPT_PUT(RTIT_CTL_MTCFREQ, 3)), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_PSBFREQ, 6)), FWPT_E_FAULT);  /* bitmap 3FH */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_CYCEN | FWPT_PUT(RTIT_CTL_CYCTHRESH, 13)), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_INJECTPSBPMI), FWPT_OK);
    caps.psb_cyc = false;
    caps.psb_pmi_preserve = false;
    fresh(&caps);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_CYCEN), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, FWPT_PUT(RTIT_CTL_CYCTHRESH, 1)), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_INJECTPSBPMI), FWPT_E_FAULT);
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    /* single-range selected without single-range support */
    fresh(&single);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TRACEEN), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, 0), FWPT_OK);
    topa_caps(&noext, TOPA_CAPS_SINGLE_RANGE, 39);
    fresh(&noext);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA), FWPT_E_FAULT);
}

/* other MSRs */
TEST(other_rtit_msrs)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    uint64_t v;
    fresh(&caps);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_BASE, 0x1040), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_BASE, FWPT_BIT(39)), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_BASE, FWPT_BIT(38) | 0x80), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_CR3_MATCH, 0x1001), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CR3_MATCH, 0x1000), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_ADDRn_A(0), 0x0000800000000000ull), FWPT_E_FAULT); /* non-canonical */
    CHECK_EQ(wr(MSR_IA32_RTIT_ADDRn_B(1), 0xffff800000000000ull), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_ADDRn_A(2), 0), FWPT_E_FAULT);                    /* beyond num ranges */
    CHECK_EQ(rd(MSR_IA32_RTIT_ADDRn_B(1)), 0xffff800000000000ull);
    CHECK_EQ(wr(MSR_IA32_RTIT_STATUS, FWPT_BIT(3)), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_STATUS, RTIT_STATUS_TRIGGEREN | RTIT_STATUS_CONTEXTEN | FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 77)), FWPT_OK);
    CHECK_EQ(rd(MSR_IA32_RTIT_STATUS), FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, 77)); /* TriggerEn/ContextEn: writes ignored */
    CHECK_EQ(wr(MSR_IA32_PERF_GLOBAL_STATUS, 0), FWPT_E_FAULT);
    CHECK_EQ(rd(MSR_IA32_APIC_BASE), 0xfee00900ull);
    CHECK_EQ(fwpt_rdmsr(&cpu, MSR_IA32_SMRR_PHYSBASE, &v), FWPT_E_FAULT);
    CHECK_EQ(fwpt_rdmsr(&cpu, 0x12345, &v), FWPT_E_FAULT);
}

/* TraceEn rules */
TEST(traceen_rules)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    put(T0, 0, region(REG(0), false, false));
    put(T0, 1, end_to(T0));
    CHECK_EQ(wr(MSR_IA32_RTIT_STATUS, 0), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_BASE, T0), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f), FWPT_OK);
    uint64_t ctl = RTIT_CTL_TOPA | RTIT_CTL_BRANCHEN | RTIT_CTL_OS;
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl), FWPT_OK);
    CHECK_EQ(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_TRIGGEREN, 0);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN), FWPT_OK);
    CHECK(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_TRIGGEREN);
    CHECK_EQ(M.stats.enables, 1);
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_BASE, T0), FWPT_E_FAULT);       /* other RTIT MSRs while TraceEn=1 */
    CHECK_EQ(wr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_STATUS, 0), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CR3_MATCH, 0), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_ADDRn_A(0), 0), FWPT_E_FAULT);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN), FWPT_OK);      /* no change: no #GP */
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN | RTIT_CTL_TSCEN), FWPT_E_FAULT);
    CHECK_EQ(emit_n(100, 0x11), 100);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TSCEN), FWPT_OK);        /* clears TraceEn: may change others */
    CHECK_EQ(rd(MSR_IA32_RTIT_STATUS) & (RTIT_STATUS_TRIGGEREN | RTIT_STATUS_CONTEXTEN), 0);
    CHECK_EQ(emit_n(5, 0x22), 0);                                          /* disabled: dropped */
    CHECK_EQ(M.stats.bytes_dropped, 5);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), fwpt_mask_ptrs_make(0, 100));
    CHECK_EQ(FWPT_GET(RTIT_STATUS_PACKETBYTECNT, rd(MSR_IA32_RTIT_STATUS)), 100);
    /* Stopped already set: TriggerEn stays 0 */
    CHECK_EQ(wr(MSR_IA32_RTIT_STATUS, RTIT_STATUS_STOPPED), FWPT_OK);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN), FWPT_OK);
    CHECK_EQ(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_TRIGGEREN, 0);
    CHECK_EQ(emit_n(5, 0x22), 0);
    CHECK_EQ(wr(MSR_IA32_RTIT_CTL, ctl), FWPT_OK);
}

/* PMI: INT regions signal one PMI each, bit 55 set, cleared through IA32_PERF_GLOBAL_STATUS_RESET */
TEST(pmi_int_regions_and_global_status)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    put(T0, 0, region(REG(0), false, true));
    put(T0, 1, region(REG(1), false, false));
    put(T0, 2, region(REG(2), false, true));
    put(T0, 3, end_to(T0));
    wr(MSR_IA32_RTIT_OUTPUT_BASE, T0);
    wr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    emit_n(4095, 1);
    CHECK_EQ(M.stats.pmis, 0);
    CHECK_EQ(rd(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    emit_n(1, 1);
    CHECK_EQ(M.stats.pmis, 1);
    CHECK_EQ(rd(MSR_IA32_PERF_GLOBAL_STATUS), PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
    CHECK_EQ(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_PENDTOPAPMI, 0); /* InjectPsbPmiOnEnable = 0 */
    CHECK_EQ(wr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, PERF_GLOBAL_STATUS_TRACE_TOPA_PMI), FWPT_OK);
    CHECK_EQ(rd(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    emit_n(3 * 4096 * 2, 2); /* two laps: INT regions 0 and 2 fill twice more... */
    CHECK_EQ(M.stats.pmis, 1 + 4);
    CHECK_EQ(M.stats.ends_followed, 2);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA);
}

/* PMI preservation: PendTopaPMI recorded, and the PMI pended again when TraceEn goes 0 -> 1 */
TEST(pmi_preservation_pendtopapmi)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    put(T0, 0, region(REG(0), false, true));
    put(T0, 1, end_to(T0));
    wr(MSR_IA32_RTIT_OUTPUT_BASE, T0);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_INJECTPSBPMI | RTIT_CTL_TRACEEN);
    emit_n(4096, 3);
    CHECK_EQ(M.stats.pmis, 1);
    CHECK(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_PENDTOPAPMI);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_INJECTPSBPMI);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_INJECTPSBPMI | RTIT_CTL_TRACEEN);
    CHECK_EQ(M.stats.pmis, 2);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_INJECTPSBPMI);
}

/* STOP and INT together: Stopped, then the PMI; STOP regions after: nothing more stored */
TEST(stop_and_int_then_operational_error)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    put(T0, 0, region(REG(0), true, true));
    put(T0, 1, end_to(T0));
    wr(MSR_IA32_RTIT_OUTPUT_BASE, T0);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    CHECK_EQ(emit_n(5000, 4), 4096);
    CHECK_EQ(M.stats.pmis, 1);
    uint64_t st = rd(MSR_IA32_RTIT_STATUS);
    CHECK(st & RTIT_STATUS_STOPPED);
    CHECK_EQ(st & RTIT_STATUS_TRIGGEREN, 0);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), fwpt_mask_ptrs_make(0, 4096));
    /* re-enabling with Stopped cleared but the pointer left one past the region: operational error */
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA);
    wr(MSR_IA32_RTIT_STATUS, 0);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    CHECK(rd(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_ERROR);
    CHECK_EQ(M.error_rule, FWPT_RULE_OUTPUT_OFFSET);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA);
}

/* Maximum table size: no END, no STOP -> back to entry 0 (table size lowered for the test) */
TEST(maximum_table_size_wraps_to_entry_0)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    M.table_wrap_entries = 3;
    for (unsigned i = 0; i < 3; i++)
        put(T0, i, region(REG(i), false, false));
    put(T0, 3, region(REG(3), false, false)); /* never reached */
    wr(MSR_IA32_RTIT_OUTPUT_BASE, T0);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    emit_n(3 * 4096, 5);
    CHECK_EQ(M.stats.wraps, 1);
    emit_n(10, 6);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_BASE), T0);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), fwpt_mask_ptrs_make(0, 10));
    CHECK_EQ(at(REG(0) + 9), 6);
    CHECK_EQ(at(REG(0) + 10), 5);
    CHECK_EQ(at(REG(3)), 0);
    CHECK_EQ(M.table_wrap_entries, 3);
    {
        struct fwpt_model d;
        fwpt_model_init(&d, &caps, &arena.mem);
        CHECK_EQ(d.table_wrap_entries, 0x2000000); /* 0FFFFFF8H / 8 + 1 */
    }
}

/* Single range: circular under the mask, OutputOffset wraps to 0 */
TEST(single_range_circular_under_mask)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    wr(MSR_IA32_RTIT_OUTPUT_BASE, REG(0));
    wr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0xfff | (0xff0ull << 32));
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TRACEEN);
    CHECK_EQ(emit_n(0x20, 7), 0x20);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), 0xfff | (0x10ull << 32));
    CHECK_EQ(M.stats.wraps, 1);
    CHECK_EQ(at(REG(0) + 0xf), 7);
    CHECK_EQ(at(REG(0) + 0x10), 0);
    CHECK_EQ(at(REG(0) + 0xff0), 7);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_BASE), REG(0));
    wr(MSR_IA32_RTIT_CTL, 0);
}

/* Restricted memory: APIC page stores dropped without error; SMRR reached -> error */
TEST(restricted_memory_apic_dropped_smrr_error)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fresh(&caps);
    M.restricted.apic_base_msr = REG(1) | 0x900;
    M.restricted.have_smrr = true;
    M.restricted.smrr_physbase = REG(3) | 6;
    M.restricted.smrr_physmask = 0xfffff000ull | SMRR_PHYSMASK_VALID;
    CHECK_EQ(rd(MSR_IA32_SMRR_PHYSBASE), REG(3) | 6);
    for (unsigned i = 0; i < 4; i++)
        put(T0, i, region(REG(i), false, false));
    put(T0, 4, end_to(T0));
    wr(MSR_IA32_RTIT_OUTPUT_BASE, T0);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN);
    CHECK_EQ(emit_n(5 * 4096, 8), 3 * 4096);
    CHECK_EQ(M.stats.bytes_apic, 4096);
    CHECK_EQ(M.stats.bytes_stored, 2 * 4096);
    CHECK_EQ(at(REG(1)), 0);
    uint64_t st = rd(MSR_IA32_RTIT_STATUS);
    CHECK(st & RTIT_STATUS_ERROR);
    CHECK_EQ(st & RTIT_STATUS_TRIGGEREN, 0);
    CHECK_EQ(M.error_rule, FWPT_RULE_SMRR);
    CHECK_EQ(M.error_entry, 3);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA);
    CHECK_EQ(rd(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), fwpt_mask_ptrs_make(3, 0));
}

/* FabricEn (trace transport): not modelled, bytes dropped */
TEST(fabricen_not_modelled_bytes_dropped)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    caps.output_subsys = true;
    fresh(&caps);
    wr(MSR_IA32_RTIT_CTL, RTIT_CTL_FABRICEN | RTIT_CTL_TRACEEN);
    CHECK_EQ(emit_n(10, 9), 0);
    CHECK_EQ(M.stats.bytes_dropped, 10);
}

TEST_MAIN("test_topa_model")
