/* libFuzzer: ToPA tables and output MSRs from the input. Memory: 3 table pages then 8 region
 * slots of 8K at a fake physical base; the input fills the first table entries (bases folded
 * into the mapped range most of the time) and gives OUTPUT_BASE / MASK_PTRS, the capability
 * kind and a stream length. Checks: no crash or hang in validate, model and readback; the
 * validator refuses exactly when the model raises an operational error (and at the same entry);
 * readback of an accepted, error-free, unwrapped run never reports more bytes than were stored. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "topa/readback.h"
#include "topa/validate.h"

#define PHYS 0x40000000ull
#define MEM_SIZE (3 * 0x1000 + 8 * 0x2000)

static uint8_t mem_buf[MEM_SIZE];

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void caps_of(struct fwpt_caps *c, unsigned kind)
{
    memset(c, 0, sizeof *c);
    c->raw.max_basic_leaf = 0x14;
    memcpy(c->raw.vendor, "GenuineIntel", 13);
    c->intel_pt = c->pt_supported = true;
    c->topa_output = true;
    c->topa_multiple_entries = kind & 1;
    c->single_range_output = true;
    c->maxphyaddr = 39;
    c->psb_pmi_preserve = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 24)
        return 0;
    struct fwpt_caps caps;
    caps_of(&caps, data[0]);
    bool topa = !(data[0] & 2);
    uint64_t base = rd64(data + 1), ptrs = rd64(data + 9);
    uint32_t len = (uint32_t)(data[17] | data[18] << 8 | data[19] << 16) & 0x3ffff;
    if (!(data[20] & 1)) /* mostly inside the mapped tables */
        base = PHYS + (base & 0x3fff) % 0x3000;
    data += 24;
    size -= 24;
    memset(mem_buf, 0, sizeof mem_buf);
    for (size_t i = 0; i + 8 <= size && i < 3 * 0x1000; i += 8) {
        uint64_t e = rd64(data + i);
        if (!(e & FWPT_BIT(63)))   /* fold the base into the mapped memory */
            e = (e & 0xfff & ~FWPT_BIT(11)) | (PHYS + ((e >> 12) % (MEM_SIZE >> 12) << 12));
        memcpy(mem_buf + i, &e, 8);
    }
    struct fwpt_physmem mem;
    fwpt_physmem_init(&mem, false);
    fwpt_physmem_add(&mem, PHYS, MEM_SIZE, mem_buf);

    struct fwpt_violation v[8];
    struct fwpt_validate_out vo = {v, 8, 0, 0, false, {0}};
    struct fwpt_validate_in vi = {&caps, &mem, topa ? RTIT_CTL_TOPA : 0, base, ptrs, 0, NULL, 4096};
    enum fwpt_status vst = fwpt_validate(&vi, &vo);

    static struct fwpt_model m;
    fwpt_model_init(&m, &caps, &mem);
    struct fwpt_cpu cpu = fwpt_model_cpu(&m);
    enum fwpt_status w = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, base);
    if (w == FWPT_OK)
        w = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, ptrs);
    if (w == FWPT_OK)
        w = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, (topa ? RTIT_CTL_TOPA : 0) | RTIT_CTL_TRACEEN);
    if (w != FWPT_OK) {
        if (vst == FWPT_OK)
            abort(); /* the WRMSR faulted but the validator accepted */
        return 0;
    }
    static uint8_t stream[0x40000];
    for (uint32_t i = 0; i < len; i++)
        stream[i] = (uint8_t)(i * 131 + 7) | 1;
    static uint8_t tables_before[3 * 0x1000];
    memcpy(tables_before, mem_buf, sizeof tables_before);
    size_t stored = fwpt_model_emit(&m, stream, len);
    bool tables_changed = memcmp(tables_before, mem_buf, sizeof tables_before) != 0;
    /* tables outside the first pages (END into region memory) may be overwritten too */
    bool overwrote = tables_changed || vo.count > 8;
    for (size_t i = 0; i < vo.count && i < 8; i++)
        overwrote |= v[i].rule == FWPT_RULE_REGION_OVER_TABLE;
    fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, topa ? RTIT_CTL_TOPA : 0);
    bool model_err = (m.status & RTIT_STATUS_ERROR) != 0;
    bool walk_complete = !(vo.count && v[vo.count < 8 ? vo.count - 1 : 7].rule == FWPT_RULE_WALK_LIMIT);
    /* The model only reaches what len bytes reach: an error it raised must be the validator's first. */
    /* Output that overwrote a table (REGION_OVER_TABLE, refused) makes later entries unpredictable. */
    if (model_err && m.error_rule != FWPT_RULE_UNMAPPED && !overwrote) {
        if (!vo.has_first || vo.first.rule != m.error_rule || vo.first.entry != m.error_entry)
            abort();
    }
    if (!vo.errors && model_err && walk_complete && m.error_rule != FWPT_RULE_UNMAPPED)
        abort();

    struct fwpt_span spans[64];
    struct fwpt_readback rb = {spans, 64, 0, 0, 0, 0, false, false, false, false, NULL, 0};
    struct fwpt_readback_in in = {&mem, topa ? RTIT_CTL_TOPA : 0, base, ptrs, m.output_base, m.output_mask_ptrs,
                                  m.status, FWPT_WRAP_DETECT, 256};
    /* Without a wrap, readback names at most the bytes stored (fewer when the walk loops back). */
    if (fwpt_readback(&in, &rb) == FWPT_OK && !vo.errors && !model_err && !overwrote && !rb.wrapped &&
        rb.bytes > stored)
        abort();
    static uint8_t out[MEM_SIZE];
    if (rb.count <= rb.cap)
        (void)fwpt_readback_copy(&mem, &rb, out, sizeof out);
    return 0;
}
