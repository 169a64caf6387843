/* fwpt host tool — the CPU interface over the Linux host: CPUID executes for real (<cpuid.h>);
 * RDMSR/WRMSR are not available to a user process and answer FWPT_E_FAULT. */
#ifndef FWPT_TOOLS_CPU_HOST_H
#define FWPT_TOOLS_CPU_HOST_H

#include "arch/cpu.h"

struct fwpt_cpu fwpt_host_cpu(void);

#endif
