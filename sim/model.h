/* fwpt — a software model of the processor's Intel PT output logic and of the IA32_RTIT_* MSRs,
 * behind the CPU interface (struct fwpt_cpu). The trace sequence (arch/trace.c) and the software trace
 * backend run against it unchanged. Freestanding; no allocation.
 *
 *   struct fwpt_model m;
 *   fwpt_model_init(&m, &caps, &physmem);        caps: what CPUID answers and which MSR bits exist
 *   struct fwpt_cpu cpu = fwpt_model_cpu(&m);    program it with wrmsr like hardware
 *   fwpt_model_emit(&m, bytes, n);               packet bytes the processor produced, in order
 *   m.status, m.output_base, ... m.stats         state readers for tests
 *
 * Output follows SDM "Trace Output": single range (circular under OutputMask) and ToPA
 * (proc_trace_table_base / proc_trace_table_offset / proc_trace_output_offset, END, STOP, INT,
 * maximum table size wrap), operational errors when a bad entry is reached, restricted memory. */
#ifndef FWPT_SIM_MODEL_H
#define FWPT_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/cpu_replay.h"
#include "topa/table.h"
#include "topa/validate.h"

struct fwpt_model_stats {
    uint64_t bytes_in;          /* bytes passed to emit */
    uint64_t bytes_stored;      /* bytes written to output memory */
    uint64_t bytes_dropped;     /* TraceEn/TriggerEn clear, FabricEn, or after STOP/Error */
    uint64_t bytes_apic;        /* stores to the APIC page (dropped, no error: SDM) */
    uint64_t bytes_unmapped;    /* stores to physical addresses the physmem does not map */
    uint64_t pmis;              /* ToPA PMIs signalled (INT regions filled, PendTopaPMI on enable) */
    uint64_t regions_filled;    /* ToPA regions filled */
    uint64_t ends_followed;     /* END entries followed */
    uint64_t wraps;             /* single-range wraps and maximum-table-size wraps */
    uint64_t errors;            /* operational errors raised */
    uint64_t gp;                /* #GP raised by rdmsr/wrmsr */
    uint64_t enables;           /* TraceEn 0 -> 1 */
};

struct fwpt_model {
    struct fwpt_caps caps;                  /* copy */
    const struct fwpt_physmem *mem;
    struct fwpt_restricted restricted;      /* IA32_APIC_BASE (default FEE00900H), SMRR (off by default) */
    uint64_t table_wrap_entries;            /* entries before the maximum-table-size wrap (SDM: 0FFFFFF8H/8+1); tests may lower it */
    struct fwpt_replay replay;              /* CPUID answers: caps.raw as the recorded CPU answers */
    /* Optional CPUID override; NULL = replay. */
    enum fwpt_status (*cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out);
    void *cpuid_ctx;

    /* architectural MSR state */
    uint64_t ctl, status, output_base, output_mask_ptrs, cr3_match;
    uint64_t addr_a[FWPT_MAX_ADDR_RANGES], addr_b[FWPT_MAX_ADDR_RANGES];
    uint64_t perf_global_status;

    /* output logic (SDM names) */
    uint64_t proc_trace_table_base, proc_trace_table_offset, proc_trace_output_offset;
    bool region_valid;                      /* the current entry was reached and accepted */
    uint64_t region_base, region_size;
    bool region_stop, region_int;

    /* the last operational error: rule (validate.h names), table and entry; valid when STATUS.Error */
    enum fwpt_topa_rule error_rule;
    uint64_t error_table;
    uint32_t error_entry;

    struct fwpt_model_stats stats;
};

/* A reset processor: all RTIT MSRs 0 (OUTPUT_MASK_PTRS reads 7FH), TraceEn clear. */
void fwpt_model_init(struct fwpt_model *m, const struct fwpt_caps *caps, const struct fwpt_physmem *mem);
/* The same from raw CPUID values (fwpt_caps_parse decides which MSR bits exist). */
void fwpt_model_init_snapshot(struct fwpt_model *m, const struct fwpt_cpuid_snapshot *snap,
                              const struct fwpt_physmem *mem);
/* The CPU interface over m (name "model"). m must outlive it. */
struct fwpt_cpu fwpt_model_cpu(struct fwpt_model *m);
/* The same entry points, for wrappers (fault injection) that delegate to the model. */
enum fwpt_status fwpt_model_cpuid(void *model, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out);
enum fwpt_status fwpt_model_rdmsr(void *model, uint32_t msr, uint64_t *value);
enum fwpt_status fwpt_model_wrmsr(void *model, uint32_t msr, uint64_t value);

/* The processor produced n packet bytes: write them where the processor would. Returns the
 * number of bytes that went to output memory (including dropped stores to the APIC page);
 * bytes produced while TriggerEn is 0 (disabled, stopped, error) are dropped. */
size_t fwpt_model_emit(struct fwpt_model *m, const uint8_t *bytes, size_t n);

/* State readers. */
static inline bool fwpt_model_trace_en(const struct fwpt_model *m) { return (m->ctl & RTIT_CTL_TRACEEN) != 0; }
static inline bool fwpt_model_trigger_en(const struct fwpt_model *m) { return (m->status & RTIT_STATUS_TRIGGEREN) != 0; }

#endif
