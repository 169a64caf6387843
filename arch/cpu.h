/* fwpt — the CPU interface: everything that executes CPUID, RDMSR, WRMSR goes through it.
 * Backends: hardware (efi/, real instructions with #GP caught), replay (recorded CPUID
 * profile), model (RTIT MSRs + output model, sim/model), soft (efi/, single-step tracer).
 * Logic above it never knows which one it has. */
#ifndef FWPT_ARCH_CPU_H
#define FWPT_ARCH_CPU_H

#include <stdint.h>
#include "base/status.h"

struct fwpt_cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

struct fwpt_cpu {
    const char *name; /* "hardware", "replay", "model", "soft" */
    void *ctx;
    /* CPUID(leaf, subleaf). A backend that cannot answer returns an error. */
    enum fwpt_status (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out);
    /* FWPT_E_FAULT when the processor would raise #GP (missing MSR, reserved bits, TraceEn rules). */
    enum fwpt_status (*rdmsr)(void *ctx, uint32_t msr, uint64_t *value);
    enum fwpt_status (*wrmsr)(void *ctx, uint32_t msr, uint64_t value);
    /* Optional: the store fence after TraceEn=0 (SFENCE/MFENCE on hardware); may be NULL. */
    void (*fence)(void *ctx);
};

static inline enum fwpt_status fwpt_cpuid(const struct fwpt_cpu *cpu, uint32_t leaf, uint32_t subleaf,
                                          struct fwpt_cpuid_regs *out)
{
    return cpu->cpuid(cpu->ctx, leaf, subleaf, out);
}
static inline enum fwpt_status fwpt_rdmsr(const struct fwpt_cpu *cpu, uint32_t msr, uint64_t *value)
{
    return cpu->rdmsr(cpu->ctx, msr, value);
}
static inline enum fwpt_status fwpt_wrmsr(const struct fwpt_cpu *cpu, uint32_t msr, uint64_t value)
{
    return cpu->wrmsr(cpu->ctx, msr, value);
}
static inline void fwpt_fence(const struct fwpt_cpu *cpu)
{
    if (cpu->fence)
        cpu->fence(cpu->ctx);
}

#endif
