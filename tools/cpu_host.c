/* fwpt host tool — CPU interface backend for the machine the tool runs on. */
#include <cpuid.h>
#include <stddef.h>
#include "tools/cpu_host.h"

static enum fwpt_status host_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    unsigned a, b, c, d;
    (void)ctx;
    __cpuid_count(leaf, subleaf, a, b, c, d);
    out->eax = a;
    out->ebx = b;
    out->ecx = c;
    out->edx = d;
    return FWPT_OK;
}

static enum fwpt_status host_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)ctx;
    (void)msr;
    *value = 0;
    return FWPT_E_FAULT; /* RDMSR is privileged: a user process gets no MSRs */
}

static enum fwpt_status host_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx;
    (void)msr;
    (void)value;
    return FWPT_E_FAULT;
}

struct fwpt_cpu fwpt_host_cpu(void)
{
    struct fwpt_cpu c = {"host", NULL, host_cpuid, host_rdmsr, host_wrmsr, NULL};
    return c;
}
