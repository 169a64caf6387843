/* fwpt — check ToPA tables and output MSR values before TraceEn, against every rule of the seeds'
 * "ToPA Errors", "Single-Range Output Errors" and "Restricted Memory Access". Pure. */
#ifndef FWPT_TOPA_VALIDATE_H
#define FWPT_TOPA_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/caps.h"
#include "base/status.h"
#include "topa/table.h"

/* X(name, text). The text names the SDM rule it follows. */
#define FWPT_TOPA_RULE_LIST(X)                                                                              \
    X(RESERVED_BITS, "ToPA Errors 1 (reserved bit violation): a reserved bit of a ToPA entry is set")       \
    X(TABLE_ALIGN, "ToPA Errors 2a (alignment): ToPA table base is not 4K-aligned")                       \
    X(REGION_ALIGN, "ToPA Errors 2b (alignment): output region base is not aligned to its size")          \
    X(ADDR_MAXPHYADDR, "ToPA Errors 2c: the entry's base address sets bits at or above MAXPHYADDR")        \
    X(OUTPUT_OFFSET, "ToPA Errors 3 (illegal output offset): OutputOffset >= size of the current region")  \
    X(END_STOP_INT, "ToPA Errors 4a (rule violation): END=1 with STOP or INT set")                         \
    X(END_ENTRY0, "ToPA Errors 4b (rule violation): END set in entry 0 of a ToPA table")                   \
    X(SINGLE_NOT_END, "ToPA Errors 4c-i (single output region ToPA): an entry after entry 0 has END=0")    \
    X(SINGLE_END_BASE, "ToPA Errors 4c-ii (single output region ToPA): END base is not the table base (IA32_RTIT_OUTPUT_BASE)") \
    X(SR_MASK, "Single-Range Output Errors: mask is not contiguous (a 0 below the most significant 1)")    \
    X(SR_BASE_MASK, "Single-Range Output Errors: base and mask overlap (OUTPUT_BASE & OutputMask != 0)") \
    X(SR_OFFSET, "Single-Range Output Errors: OutputOffset is greater than the mask")                      \
    X(OUTPUT_BASE_GP, "IA32_RTIT_OUTPUT_BASE: bits 6:0 or bits at/above MAXPHYADDR set (WRMSR #GP)")      \
    X(CTL_SCHEME, "IA32_RTIT_CTL: the output scheme is not enumerated (WRMSR #GP)")                       \
    X(APIC_PAGE, "Restricted Memory Access: output must not be routed to the 4K APIC page (IA32_APIC_BASE)") \
    X(SMRR, "Restricted Memory Access (Table 'Behavior on Restricted Memory Access'): overlaps SMRR")      \
    X(UC_MEMORY, "Trace Output: region is UC by MTRRs (stores lose their bypass and slow down; warning)")   \
    X(STATUS_SET, "IA32_RTIT_STATUS.Stopped or Error is set: TriggerEn stays 0 (warning)")                 \
    X(UNMAPPED, "fwpt: a ToPA table is not in mapped memory (cannot check)")                              \
    X(REGION_OVER_TABLE, "fwpt: an output region overlaps a ToPA table (the trace would overwrite the table)") \
    X(WALK_LIMIT, "fwpt: table walk limit reached (warning)")

enum fwpt_topa_rule {
#define FWPT_TOPA_RULE_ENUM(n, t) FWPT_RULE_##n,
    FWPT_TOPA_RULE_LIST(FWPT_TOPA_RULE_ENUM)
#undef FWPT_TOPA_RULE_ENUM
    FWPT_RULE_COUNT
};
const char *fwpt_topa_rule_name(enum fwpt_topa_rule r); /* "RESERVED_BITS" */
const char *fwpt_topa_rule_text(enum fwpt_topa_rule r);

#define FWPT_NO_ENTRY 0xffffffffu
struct fwpt_violation {
    enum fwpt_topa_rule rule;
    bool warning;      /* true: reported, not refused */
    uint64_t table;    /* ToPA table base (or OUTPUT_BASE for single range) */
    uint32_t entry;    /* entry index, FWPT_NO_ENTRY for MSR-level rules */
    uint64_t value;    /* the raw entry, or the MSR value concerned */
};

/* Restricted memory as the platform reports it (raw MSR values). */
#define FWPT_MAX_VAR_MTRR 16
#define FWPT_MTRR_FIXED 11
struct fwpt_restricted {
    bool have_apic;
    uint64_t apic_base_msr;                 /* IA32_APIC_BASE */
    bool have_smrr;
    uint64_t smrr_physbase, smrr_physmask;  /* IA32_SMRR_PHYSBASE / PHYSMASK */
    bool have_mtrr;
    uint64_t mtrr_def_type;                 /* IA32_MTRR_DEF_TYPE */
    unsigned n_var;
    uint64_t mtrr_physbase[FWPT_MAX_VAR_MTRR], mtrr_physmask[FWPT_MAX_VAR_MTRR];
    /* the fixed-range MTRRs (below 1 MiB), in address order: FIX64K_00000, FIX16K_80000, FIX16K_A0000,
     * FIX4K_C0000..FIX4K_F8000; one type byte per sub-range, the lowest address in the low byte */
    bool have_fixed;
    uint64_t mtrr_fixed[FWPT_MTRR_FIXED];
};
bool fwpt_restricted_apic(const struct fwpt_restricted *r, uint64_t base, uint64_t len);
bool fwpt_restricted_smrr(const struct fwpt_restricted *r, uint64_t base, uint64_t len);
bool fwpt_restricted_uc(const struct fwpt_restricted *r, uint64_t base, uint64_t len, uint32_t maxphyaddr);

struct fwpt_validate_in {
    const struct fwpt_caps *caps;        /* topa_output, topa_multiple_entries, single_range_output, maxphyaddr */
    const struct fwpt_physmem *mem;
    uint64_t ctl;                        /* only RTIT_CTL_TOPA / FABRICEN matter */
    uint64_t output_base, output_mask_ptrs, status;
    const struct fwpt_restricted *restricted; /* may be NULL */
    unsigned max_steps;                  /* entries walked at most; 0 = 1<<20 */
};

struct fwpt_validate_out {
    struct fwpt_violation *v;            /* caller's array */
    size_t cap;
    size_t count;                        /* violations found (may exceed cap; the first cap are stored) */
    size_t errors;                       /* non-warning violations */
    /* The first refused entry in processor order (where the processor raises the error). */
    bool has_first;
    struct fwpt_violation first;
};

/* Walks the tables in the order the processor reaches them from OUTPUT_BASE / MASK_PTRS
 * (following END, stopping after a STOP region or when the walk closes a loop) and reports every
 * violation. Returns FWPT_OK, or the status of the first error: FWPT_E_TOPA,
 * FWPT_E_SINGLE_RANGE, FWPT_E_RESTRICTED. Warnings alone return FWPT_OK. */
enum fwpt_status fwpt_validate(const struct fwpt_validate_in *in, struct fwpt_validate_out *out);

/* Checks one entry as the processor does when it reaches it: the first violated rule, or
 * FWPT_RULE_COUNT when the entry is accepted. table_base is proc_trace_table_base, index the
 * entry, check_offset/output_offset the OutputOffset rule (only for the entry current at enable). */
enum fwpt_topa_rule fwpt_topa_check_entry(const struct fwpt_caps *caps, uint64_t table_base, uint64_t index,
                                          uint64_t raw, bool check_offset, uint64_t output_offset);

#endif
