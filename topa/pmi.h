/* fwpt — the ToPA PMI handler algorithm of the SDM (Table "Intel PT ToPA PMI and XSAVES/XRSTORS
 * Management"): grow the current table, or end it with END=1 pointing at a new table, or make it
 * circular and point the filled regions at fresh ones. The table update is a pure function of
 * the table memory; fwpt_pmi_handle runs the whole handler over the CPU interface. */
#ifndef FWPT_TOPA_PMI_H
#define FWPT_TOPA_PMI_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/cpu.h"
#include "base/status.h"
#include "topa/table.h"

/* Fresh output regions the handler may hand out (all the same size). */
struct fwpt_pmi_pool {
    const uint64_t *region_phys;
    unsigned count, next; /* next = first unused */
    unsigned size_enc;
    bool int_on_new;      /* INT on the regions handed out (so the next fill raises a PMI again) */
};

enum fwpt_pmi_action {
    FWPT_PMI_NONE,      /* not a ToPA PMI (IA32_PERF_GLOBAL_STATUS bit 55 clear) */
    FWPT_PMI_GROW,      /* entries added after the last entry; END moved after them */
    FWPT_PMI_NEW_TABLE, /* an upcoming entry made END=1 -> a new table (filled from the pool) */
    FWPT_PMI_CIRCULAR,  /* END=1 -> this table; filled regions (0..MaskOrTableOffset-1) replaced */
};

struct fwpt_pmi_request {
    const struct fwpt_physmem *mem;
    uint64_t table_base;        /* current table (IA32_RTIT_OUTPUT_BASE after TraceEn=0) */
    unsigned current_index;     /* IA32_RTIT_OUTPUT_MASK_PTRS.MaskOrTableOffset */
    unsigned capacity;          /* entries each table's memory holds (512 for a 4K page) */
    unsigned grow_by;           /* entries to add when the table has room; 0 = 1 */
    struct fwpt_pmi_pool *pool;
    uint64_t new_table;         /* 0: no new table, make the current one circular */
};

struct fwpt_pmi_result {
    enum fwpt_pmi_action action;
    unsigned end_index;         /* where the current table's END entry now is */
    unsigned entries_added;     /* GROW: region entries added; NEW_TABLE: regions in the new table */
    unsigned regions_replaced;  /* CIRCULAR: filled regions pointed at fresh ones */
    uint64_t replaced_phys[8];  /* CIRCULAR: the first replaced (filled) regions, for the consumer */
};

/* The "IF there is space ... ELSE ..." part of the algorithm on the table memory (TraceEn must
 * be 0). FWPT_E_NOMEM when the pool is too small, FWPT_E_INVAL when no upcoming entry can become
 * END (the processor is at the table's last entry) or the table cannot be read. */
enum fwpt_status fwpt_pmi_update_tables(const struct fwpt_pmi_request *rq, struct fwpt_pmi_result *res);

/* The whole handler: IF IA32_PERF_GLOBAL_STATUS.Trace_ToPA_PMI { save CTL; clear TraceEn; update
 * the tables; clear the PMI (IA32_PERF_GLOBAL_STATUS_RESET bit 55) and STATUS.PendTopaPMI; restore
 * CTL }. rq->table_base and rq->current_index are read from the MSRs. */
enum fwpt_status fwpt_pmi_handle(const struct fwpt_cpu *cpu, struct fwpt_pmi_request *rq, struct fwpt_pmi_result *res);

#endif
