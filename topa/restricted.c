/* fwpt — the restricted-memory probe (see restricted.h). */
#include "topa/restricted.h"
#include "arch/rtit.h"

void fwpt_restricted_probe(const struct fwpt_cpu *cpu, struct fwpt_restricted *r)
{
    fwpt_memset(r, 0, sizeof *r);
    uint64_t apic = 0;
    if (fwpt_rdmsr(cpu, MSR_IA32_APIC_BASE, &apic) != FWPT_OK)
        apic = 0;
    r->have_apic = apic != 0;
    r->apic_base_msr = apic;
    /* SMRR: output into SMRAM is dropped (SDM "Restricted Memory Access"). */
    uint64_t mtrrcap = 0;
    if (fwpt_rdmsr(cpu, MSR_IA32_MTRRCAP, &mtrrcap) != FWPT_OK)
        mtrrcap = 0;
    if ((mtrrcap & MTRRCAP_SMRR) && fwpt_rdmsr(cpu, MSR_IA32_SMRR_PHYSBASE, &r->smrr_physbase) == FWPT_OK &&
        fwpt_rdmsr(cpu, MSR_IA32_SMRR_PHYSMASK, &r->smrr_physmask) == FWPT_OK)
        r->have_smrr = true;
    /* MTRRs: output regions they make UC get a warning (SDM "Trace Output": avoid UC for the output).
     * Variable ranges, and the fixed ranges below 1 MiB where MTRRCAP reports them. */
    unsigned vcnt = (unsigned)FWPT_GET(MTRRCAP_VCNT, mtrrcap);
    if (vcnt > FWPT_MAX_VAR_MTRR)
        vcnt = FWPT_MAX_VAR_MTRR;
    if (!mtrrcap || fwpt_rdmsr(cpu, MSR_IA32_MTRR_DEF_TYPE, &r->mtrr_def_type) != FWPT_OK)
        return;
    r->have_mtrr = true;
    for (unsigned i = 0; i < vcnt && r->have_mtrr; i++)
        r->have_mtrr = fwpt_rdmsr(cpu, MSR_IA32_MTRR_PHYSBASE(i), &r->mtrr_physbase[i]) == FWPT_OK &&
                       fwpt_rdmsr(cpu, MSR_IA32_MTRR_PHYSMASK(i), &r->mtrr_physmask[i]) == FWPT_OK;
    r->n_var = vcnt;
    if (mtrrcap & MTRRCAP_FIX) {
        static const uint32_t fixed[FWPT_MTRR_FIXED] = {
            MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000,
            MSR_IA32_MTRR_FIX4K(0), MSR_IA32_MTRR_FIX4K(1), MSR_IA32_MTRR_FIX4K(2), MSR_IA32_MTRR_FIX4K(3),
            MSR_IA32_MTRR_FIX4K(4), MSR_IA32_MTRR_FIX4K(5), MSR_IA32_MTRR_FIX4K(6), MSR_IA32_MTRR_FIX4K(7),
        };
        r->have_fixed = true;
        for (unsigned i = 0; i < FWPT_MTRR_FIXED && r->have_fixed; i++)
            r->have_fixed = fwpt_rdmsr(cpu, fixed[i], &r->mtrr_fixed[i]) == FWPT_OK;
    }
}

uint64_t fwpt_restricted_alloc_below(const struct fwpt_restricted *r)
{
    uint64_t below = r->have_apic ? FWPT_GET(APIC_BASE_ADDR, r->apic_base_msr) << 12 : 0;
    return below < (16ull << 20) ? 0 : below; /* under 16 MiB is implausible: leave it to the validator */
}

void fwpt_restricted_print(const struct fwpt_restricted *r, const struct fwpt_sink *o)
{
    fwpt_printf(o, "topa: restricted memory checked: APIC page %s, SMRR %s, MTRRs %s (%u variable%s)\n",
                r->have_apic ? "yes" : "unknown", r->have_smrr ? "yes" : "not reported",
                r->have_mtrr ? "yes" : "not readable", r->have_mtrr ? r->n_var : 0u,
                !r->have_mtrr ? "" : r->have_fixed ? ", fixed" : ", no fixed");
}
