/* fwpt — ToPA table entries and the physical-memory view shared by table build, validation,
 * readback and the output model (SDM "Table of Physical Addresses (ToPA)", Table "ToPA Table Entry
 * Fields"). Freestanding. */
#ifndef FWPT_TOPA_TABLE_H
#define FWPT_TOPA_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/rtit.h"
#include "base/status.h"

/* ---- physical memory ----
 * The output logic writes physical addresses. In firmware memory is identity-mapped
 * (identity = true); host tests map fake physical ranges onto ordinary buffers. */
struct fwpt_physmem_range {
    uint64_t phys, len;
    void *ptr;
};
#define FWPT_PHYSMEM_MAX 64
struct fwpt_physmem {
    bool identity;                  /* phys == pointer (EFI) */
    unsigned count;
    struct fwpt_physmem_range ranges[FWPT_PHYSMEM_MAX];
};
void fwpt_physmem_init(struct fwpt_physmem *m, bool identity);
/* FWPT_E_NOMEM when the map is full, FWPT_E_INVAL on overlap with an existing range. */
enum fwpt_status fwpt_physmem_add(struct fwpt_physmem *m, uint64_t phys, uint64_t len, void *ptr);
/* Pointer to [phys, phys+len) when it lies inside one mapped range, else NULL. */
void *fwpt_physmem_ptr(const struct fwpt_physmem *m, uint64_t phys, uint64_t len);
bool fwpt_physmem_read64(const struct fwpt_physmem *m, uint64_t phys, uint64_t *v);
bool fwpt_physmem_write64(const struct fwpt_physmem *m, uint64_t phys, uint64_t v);

/* ---- one ToPA entry ---- */
struct fwpt_topa_entry {
    uint64_t base;     /* output region base (END=0) or next table base (END=1): bits 12 and up */
    unsigned size_enc; /* 0 = 4K ... 15 = 128M; ignored when END=1 */
    bool stop, intr, end;
    uint64_t reserved; /* reserved bits found set when decoded (low bits only; high bits depend on MAXPHYADDR) */
};
/* Size encoding -> bytes (4K << enc). */
static inline uint64_t fwpt_topa_size_bytes(unsigned size_enc) { return TOPA_REGION_MIN << size_enc; }
/* Bytes -> encoding; -1 if not one of the 16 encodable sizes. */
int fwpt_topa_size_enc(uint64_t bytes);
uint64_t fwpt_topa_encode(const struct fwpt_topa_entry *e);
void fwpt_topa_decode(uint64_t raw, struct fwpt_topa_entry *e);

/* ---- building the tables ----
 * A layout: the ordered list of output regions and how many entries each table may hold.
 * Tables hold up to entries_per_table entries: region entries, then one END entry (to the next
 * table, or back to the first table to close the ring). */
struct fwpt_topa_layout {
    unsigned region_count;
    const uint64_t *region_phys;   /* region_count physical bases, naturally aligned */
    unsigned region_size_enc;      /* all regions the same size */
    unsigned table_count;
    const uint64_t *table_phys;    /* table_count 4K-aligned physical bases */
    unsigned entries_per_table;    /* 2..512 */
    bool stop_on_last;             /* STOP on the last region (stop mode) */
    bool int_on_last;              /* INT on the last region */
    bool single_entry;             /* first-generation form: entry 0 region, entry 1 END -> own base */
};
/* Tables needed for n regions with e entries per table (each table keeps one slot for END). */
unsigned fwpt_topa_tables_needed(unsigned regions, unsigned entries_per_table);
/* Zeroes every table page (4K) and fills the entries. FWPT_E_INVAL when the layout does not fit,
 * FWPT_E_NOMEM when a table is not mapped. */
enum fwpt_status fwpt_topa_build(const struct fwpt_physmem *mem, const struct fwpt_topa_layout *l);

/* Physical address of entry i of the table at table_base. */
static inline uint64_t fwpt_topa_entry_addr(uint64_t table_base, uint64_t index)
{
    return table_base + index * TOPA_ENTRY_SIZE_BYTES;
}
/* MaskOrTableOffset <-> entry index (proc_trace_table_offset[27:3] = MASK_PTRS[31:7]). */
static inline uint64_t fwpt_mask_ptrs_index(uint64_t mask_ptrs) { return FWPT_GET(RTIT_MASK_MASKORTABLEOFFSET, mask_ptrs); }
static inline uint64_t fwpt_mask_ptrs_offset(uint64_t mask_ptrs) { return FWPT_GET(RTIT_MASK_OUTPUTOFFSET, mask_ptrs); }
static inline uint64_t fwpt_mask_ptrs_make(uint64_t index, uint64_t output_offset)
{
    return FWPT_PUT(RTIT_MASK_OUTPUTOFFSET, output_offset) | FWPT_PUT(RTIT_MASK_MASKORTABLEOFFSET, index) |
           RTIT_MASK_LOWERMASK;
}

#endif
