/* fwpt — the hardware CPU backend: real CPUID/RDMSR/WRMSR; a #GP on RDMSR/WRMSR is caught through
 * EFI_CPU_ARCH_PROTOCOL.RegisterInterruptHandler(13) and becomes FWPT_E_FAULT, never a hang. */
#ifndef FWPT_EFI_CPU_HW_H
#define FWPT_EFI_CPU_HW_H

#include <efi.h>
#include "arch/cpu.h"

struct fwpt_cpu_hw {
    void *cpu_arch;         /* EFI_CPU_ARCH_PROTOCOL, NULL when missing (MSR access refused) */
    EFI_STATUS locate_status;
    EFI_STATUS register_status; /* last RegisterInterruptHandler failure (EFI_SUCCESS if none) */
    unsigned faults;        /* #GP caught so far */
};

/* Fills *cpu with the hardware backend. Locates EFI_CPU_ARCH_PROTOCOL; CPUID works without it. */
void fwpt_cpu_hw_init(struct fwpt_cpu_hw *hw, struct fwpt_cpu *cpu);
/* The processor brand string (CPUID 80000002H..80000004H), "" when not enumerated. */
void fwpt_cpu_hw_brand(const struct fwpt_cpu *cpu, char out[49]);

#endif
