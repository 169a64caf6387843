/* A recording fake CPU for the MSR sequence tests: every RDMSR/WRMSR/fence is logged in order, a
 * fault can be injected at MSR access #k, and the IA32_RTIT_* MSRs are simulated minimally with the
 * SDM's #GP rules (MSRs that do not exist, reserved or unsupported CTL bits, unsupported encodings,
 * writes other than TraceEn while TraceEn=1). CPUID comes from a built-in replay profile. */
#ifndef FWPT_TESTS_CPU_SCRIPT_H
#define FWPT_TESTS_CPU_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/cpu_replay.h"
#include "arch/rtit.h"

enum fwpt_script_op { FWPT_SCRIPT_RDMSR, FWPT_SCRIPT_WRMSR, FWPT_SCRIPT_FENCE };

struct fwpt_script_access {
    enum fwpt_script_op op;
    uint32_t msr;
    uint64_t value;            /* written, or read (0 when the read faulted) */
    enum fwpt_status result;
    bool injected;             /* the fault was injected (not a #GP rule) */
};

#define FWPT_SCRIPT_LOG 256
struct fwpt_script {
    struct fwpt_caps caps;
    struct fwpt_replay replay;
    uint64_t ctl, status, output_base, output_mask_ptrs, cr3_match;
    uint64_t addr_a[FWPT_MAX_ADDR_RANGES], addr_b[FWPT_MAX_ADDR_RANGES];
    long fault_at;             /* MSR access index (fences not counted) that faults; -1 none */
    bool error_on_enable;      /* TraceEn 0->1 raises an operational error (STATUS.Error) */
    unsigned n_msr;            /* MSR accesses so far */
    unsigned gp;               /* #GP raised by the rules (not injected) */
    unsigned n_log;
    struct fwpt_script_access log[FWPT_SCRIPT_LOG];
};

/* A reset processor of that profile: RTIT MSRs 0, OUTPUT_MASK_PTRS reads 7FH. */
void fwpt_script_init(struct fwpt_script *s, const struct fwpt_cpu_profile *p);
struct fwpt_cpu fwpt_script_cpu(struct fwpt_script *s);
const char *fwpt_script_msr_name(uint32_t msr);
/* The log, one access a line, to stderr (for failing tests). */
void fwpt_script_dump(const struct fwpt_script *s);

#endif
