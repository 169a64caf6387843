/* topa/restricted: the restricted-memory probe over a fake CPU whose MSRs are a table (absent ones
 * #GP): which MSRs it reads, what it keeps, and the console line. */
#include "tests/check.h"
#include "arch/rtit.h"
#include "topa/restricted.h"

struct msr_table {
    uint32_t msr[64];
    uint64_t val[64];
    unsigned n, reads;
};

static void set(struct msr_table *t, uint32_t msr, uint64_t v)
{
    t->msr[t->n] = msr;
    t->val[t->n++] = v;
}

static enum fwpt_status rd(void *ctx, uint32_t msr, uint64_t *v)
{
    struct msr_table *t = ctx;
    t->reads++;
    for (unsigned i = 0; i < t->n; i++)
        if (t->msr[i] == msr) {
            *v = t->val[i];
            return FWPT_OK;
        }
    return FWPT_E_FAULT;
}
static enum fwpt_status wr(void *ctx, uint32_t msr, uint64_t v)
{
    (void)ctx, (void)msr, (void)v;
    return FWPT_E_FAULT;
}
static enum fwpt_status cpuid(void *ctx, uint32_t l, uint32_t s, struct fwpt_cpuid_regs *o)
{
    (void)ctx, (void)l, (void)s, (void)o;
    return FWPT_E_UNSUPPORTED;
}

/* A CPU whose MSRs are the table t. */
static struct fwpt_cpu table_cpu(struct msr_table *t)
{
    return (struct fwpt_cpu){"table", t, cpuid, rd, wr, NULL};
}

static const char *line(const struct fwpt_restricted *r, char *buf, size_t cap)
{
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, buf, cap - 1);
    fwpt_restricted_print(r, &o);
    buf[b.len] = 0;
    return buf;
}

/* nothing readable: everything unknown, output placed anywhere */
TEST(nothing_readable_all_unknown)
{
    char buf[256];
    struct fwpt_restricted r;
    struct msr_table none = {0};
    struct fwpt_cpu cpu = table_cpu(&none);
    fwpt_restricted_probe(&cpu, &r);
    CHECK(!r.have_apic && !r.have_smrr && !r.have_mtrr && !r.have_fixed);
    CHECK_EQ(fwpt_restricted_alloc_below(&r), 0);
    CHECK_EQ(none.reads, 2); /* APIC_BASE, MTRRCAP */
    CHECK_STR(line(&r, buf, sizeof buf),
              "topa: restricted memory checked: APIC page unknown, SMRR not reported, MTRRs not readable (0 variable)\n");
}

/* a full set: APIC at FEE00000H, SMRR, 2 variable MTRRs and the fixed ones */
TEST(full_set_apic_smrr_mtrrs_fixed)
{
    char buf[256];
    struct fwpt_restricted r;
    struct msr_table all = {0};
    set(&all, MSR_IA32_APIC_BASE, 0xfee00900);
    set(&all, MSR_IA32_MTRRCAP, MTRRCAP_SMRR | MTRRCAP_FIX | 2);
    set(&all, MSR_IA32_SMRR_PHYSBASE, 0x7f000006);
    set(&all, MSR_IA32_SMRR_PHYSMASK, 0xff000800);
    set(&all, MSR_IA32_MTRR_DEF_TYPE, MTRR_DEF_TYPE_E | MTRR_DEF_TYPE_FE | MTRR_TYPE_WB);
    for (unsigned i = 0; i < 2; i++) {
        set(&all, MSR_IA32_MTRR_PHYSBASE(i), 0x80000000ull * (i + 1));
        set(&all, MSR_IA32_MTRR_PHYSMASK(i), 0xf80000800ull);
    }
    const uint32_t fixed[] = {MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000};
    for (unsigned i = 0; i < 3; i++)
        set(&all, fixed[i], 0x0606060606060606ull + i);
    for (unsigned i = 0; i < 8; i++)
        set(&all, MSR_IA32_MTRR_FIX4K(i), 0x0505050505050505ull + i);
    struct fwpt_cpu cpu = table_cpu(&all);
    fwpt_restricted_probe(&cpu, &r);
    CHECK(r.have_apic && r.have_smrr && r.have_mtrr && r.have_fixed);
    CHECK_EQ(r.apic_base_msr, 0xfee00900);
    CHECK_EQ(fwpt_restricted_alloc_below(&r), 0xfee00000);
    CHECK_EQ(r.smrr_physbase, 0x7f000006);
    CHECK_EQ(r.smrr_physmask, 0xff000800);
    CHECK_EQ(r.n_var, 2);
    CHECK_EQ(r.mtrr_physbase[1], 0x100000000ull);
    CHECK_EQ(r.mtrr_physmask[0], 0xf80000800ull);
    CHECK_EQ(r.mtrr_fixed[0], 0x0606060606060606ull);
    CHECK_EQ(r.mtrr_fixed[FWPT_MTRR_FIXED - 1], 0x0505050505050505ull + 7);
    CHECK_EQ(all.reads, 2 + 2 + 1 + 4 + 11);
    CHECK_STR(line(&r, buf, sizeof buf),
              "topa: restricted memory checked: APIC page yes, SMRR yes, MTRRs yes (2 variable, fixed)\n");
}

/* SMRR reported but #GP (outside SMM), a variable MTRR missing, no fixed ones, an APIC base under 16 MiB */
TEST(smrr_gp_missing_mtrr_low_apic)
{
    char buf[256];
    struct fwpt_restricted r;
    struct msr_table part = {0};
    set(&part, MSR_IA32_APIC_BASE, 0x00800900);
    set(&part, MSR_IA32_MTRRCAP, MTRRCAP_SMRR | 3);
    set(&part, MSR_IA32_MTRR_DEF_TYPE, MTRR_DEF_TYPE_E);
    set(&part, MSR_IA32_MTRR_PHYSBASE(0), 6);
    set(&part, MSR_IA32_MTRR_PHYSMASK(0), 0);
    struct fwpt_cpu cpu = table_cpu(&part);
    fwpt_restricted_probe(&cpu, &r);
    CHECK(r.have_apic && !r.have_smrr && !r.have_mtrr && !r.have_fixed);
    CHECK_EQ(fwpt_restricted_alloc_below(&r), 0); /* implausible: placement left to the validator */
    CHECK_STR(line(&r, buf, sizeof buf),
              "topa: restricted memory checked: APIC page yes, SMRR not reported, MTRRs not readable (0 variable)\n");
}

/* more variable MTRRs than the struct holds: the first FWPT_MAX_VAR_MTRR */
TEST(more_variable_mtrrs_than_held)
{
    struct fwpt_restricted r;
    struct msr_table many = {0};
    set(&many, MSR_IA32_MTRRCAP, 0xff);
    set(&many, MSR_IA32_MTRR_DEF_TYPE, MTRR_DEF_TYPE_E);
    for (unsigned i = 0; i < FWPT_MAX_VAR_MTRR; i++) {
        set(&many, MSR_IA32_MTRR_PHYSBASE(i), i);
        set(&many, MSR_IA32_MTRR_PHYSMASK(i), 0);
    }
    struct fwpt_cpu cpu = table_cpu(&many);
    fwpt_restricted_probe(&cpu, &r);
    CHECK(r.have_mtrr && !r.have_apic);
    CHECK_EQ(r.n_var, FWPT_MAX_VAR_MTRR);
}

TEST_MAIN("test_topa_restricted")
