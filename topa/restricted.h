/* fwpt — where the output may not go, read through the CPU interface (SDM "Restricted Memory
 * Access": the APIC page, SMRAM behind SMRR; SDM "Trace Output": avoid UC memory, the MTRRs).
 * A pure function of what the CPU answers; the rules that use it are in topa/validate. */
#ifndef FWPT_TOPA_RESTRICTED_H
#define FWPT_TOPA_RESTRICTED_H

#include <stdint.h>
#include "arch/cpu.h"
#include "base/text.h"
#include "topa/validate.h"

/* IA32_APIC_BASE, then SMRR and the MTRRs where IA32_MTRRCAP reports them. A read that faults (SMRR
 * may #GP outside SMM on some parts) leaves that part unknown (have_* false), never an error. */
void fwpt_restricted_probe(const struct fwpt_cpu *cpu, struct fwpt_restricted *r);
/* The address output memory is allocated below: the APIC page's base; 0 (anywhere) when it is unknown
 * or implausible (under 16 MiB), the validator then judging the placement. */
uint64_t fwpt_restricted_alloc_below(const struct fwpt_restricted *r);
/* One line: what the restricted-memory rules could be checked against. */
void fwpt_restricted_print(const struct fwpt_restricted *r, const struct fwpt_sink *o);

#endif
