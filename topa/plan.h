/* fwpt — the output plan: capabilities + options -> output scheme, regions, tables, and the
 * initial IA32_RTIT_OUTPUT_BASE / OUTPUT_MASK_PTRS / CTL.ToPA (SDM "Trace Output"). Pure. */
#ifndef FWPT_TOPA_PLAN_H
#define FWPT_TOPA_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/caps.h"
#include "base/status.h"
#include "base/text.h"
#include "topa/table.h"

enum fwpt_plan_mode {
    FWPT_PLAN_STOP, /* STOP on the last region: tracing ends when the buffer is full */
    FWPT_PLAN_RING, /* the buffer wraps; the newest bytes are kept */
};

enum fwpt_plan_scheme {
    FWPT_SCHEME_TOPA_MULTI,   /* CPUID.(14H,0):ECX[1] (MENTRY) */
    FWPT_SCHEME_TOPA_SINGLE,  /* TOPAOUT without MENTRY: one region + END -> own table */
    FWPT_SCHEME_SINGLE_RANGE, /* no ToPA, or asked for */
};

#define FWPT_PLAN_DEFAULT_TOTAL  (2ull << 20)
#define FWPT_PLAN_DEFAULT_REGION (64ull << 10)
#define FWPT_PLAN_ENTRIES_PER_PAGE 512u  /* one 4K table page */
#define FWPT_PLAN_MAX_REGIONS 65536u
#define FWPT_SINGLE_RANGE_MAX (1ull << 31) /* OutputMask is 32 bits; largest power of two below 4G */
#define FWPT_SINGLE_RANGE_ERRATA_LIMIT 0x1000ull

struct fwpt_plan_options {
    uint64_t total_size;        /* 0 = FWPT_PLAN_DEFAULT_TOTAL */
    uint64_t region_size;       /* 0 = min(total, FWPT_PLAN_DEFAULT_REGION); multi-entry ToPA only */
    enum fwpt_plan_mode mode;
    bool single_range;          /* ask for single-range output even when ToPA exists */
    bool pmi;                   /* INT on the last region */
    unsigned entries_per_table; /* 0 = 512; 2..512 (smaller values chain tables, for tests) */
};

/* One kind of memory the plan needs: count blocks of bytes each, aligned to align. */
struct fwpt_plan_alloc {
    const char *what; /* "output region", "ToPA table" */
    unsigned count;
    uint64_t bytes, align;
};

#define FWPT_PLAN_MAX_WARNINGS 4
struct fwpt_plan {
    enum fwpt_plan_scheme scheme;
    enum fwpt_plan_mode mode;   /* single-range is always a ring */
    uint64_t total_size;
    uint64_t region_size;
    unsigned region_size_enc;   /* ToPA size encoding (ToPA schemes) */
    unsigned region_count;
    unsigned table_count;
    unsigned entries_per_table;
    bool stop_on_last, int_on_last;
    struct fwpt_plan_alloc regions, tables;
    uint64_t ctl_bits;          /* RTIT_CTL_TOPA or 0; FabricEn never */
    unsigned n_warnings;
    const char *warnings[FWPT_PLAN_MAX_WARNINGS];
};

/* Why a plan was refused: which setting ("size", "region", "entries-per-table", "single-range", "pmi"; NULL when
 * the processor refuses whatever the settings) with the value it had, and why (static strings). */
struct fwpt_plan_error {
    const char *option;
    const char *why;
    uint64_t value;  /* the setting's value (given or its default) when has_value */
    bool has_value;
};

enum fwpt_status fwpt_plan_make(const struct fwpt_caps *caps, const struct fwpt_plan_options *opt,
                                struct fwpt_plan *plan, struct fwpt_plan_error *err);

/* The refusal as the user wrote the setting: "size=3: why" (the app's words) or "--size 3: why" (the host tool's
 * options; sizes as 4K/2M when whole), or only why when no setting is at fault. */
void fwpt_plan_error_print(const struct fwpt_plan_error *e, bool host_options, const struct fwpt_sink *o);

/* Register values once the memory is allocated. */
struct fwpt_output_regs {
    uint64_t output_base, output_mask_ptrs, ctl_bits;
};
/* Writes the ToPA tables (ToPA schemes) into mem and returns the initial register values.
 * region_phys: plan->region_count bases; table_phys: plan->table_count bases (unused for single
 * range). FWPT_E_INVAL when an address is misaligned for the plan. */
enum fwpt_status fwpt_plan_apply(const struct fwpt_plan *plan, const struct fwpt_physmem *mem,
                                 const uint64_t *region_phys, const uint64_t *table_phys,
                                 struct fwpt_output_regs *regs);

const char *fwpt_plan_scheme_name(enum fwpt_plan_scheme s);
const char *fwpt_plan_mode_name(enum fwpt_plan_mode m);
/* Human description of the plan (scheme, sizes, allocations, warnings). */
void fwpt_plan_print(const struct fwpt_plan *plan, const struct fwpt_sink *o);
/* Every entry of every table reachable from output_base, one line each. */
void fwpt_topa_print_tables(const struct fwpt_physmem *mem, uint64_t output_base, unsigned max_entries,
                            const struct fwpt_sink *o);

#endif
