#include "tests/common/topa_fixture.h"
#include "tests/common/rng.h"
#include <stdlib.h>
#include <string.h>

void topa_caps(struct fwpt_caps *c, enum topa_caps_kind kind, uint32_t maxphyaddr)
{
    memset(c, 0, sizeof *c);
    struct fwpt_cpuid_snapshot *s = &c->raw;
    s->max_basic_leaf = 0x20;
    memcpy(s->vendor, "GenuineIntel", 13);
    s->leaf1_eax = 0x000506e3;
    s->leaf7_ebx = (uint32_t)CPUID7_0_EBX_INTEL_PT;
    s->has_leaf14_0 = s->has_leaf14_1 = true;
    s->leaf14_0.eax = 1;
    s->leaf14_0.ebx = (uint32_t)(CPUID14_0_EBX_CR3_FILTERING | CPUID14_0_EBX_PSB_CYC | CPUID14_0_EBX_IP_FILTERING |
                                 CPUID14_0_EBX_MTC | CPUID14_0_EBX_PTWRITE | CPUID14_0_EBX_POWER_EVENT_TRACE |
                                 CPUID14_0_EBX_PSB_PMI_PRESERVE);
    uint32_t ecx = 0;
    if (kind == TOPA_CAPS_MULTI)
        ecx = (uint32_t)(CPUID14_0_ECX_TOPA_OUTPUT | CPUID14_0_ECX_TOPA_MULTIPLE | CPUID14_0_ECX_SINGLE_RANGE);
    else if (kind == TOPA_CAPS_SINGLE_ENTRY)
        ecx = (uint32_t)CPUID14_0_ECX_TOPA_OUTPUT;
    else if (kind == TOPA_CAPS_SINGLE_RANGE)
        ecx = (uint32_t)CPUID14_0_ECX_SINGLE_RANGE;
    s->leaf14_0.ecx = ecx;
    s->leaf14_1.eax = 2 | (0x249u << 16);
    s->leaf14_1.ebx = 0x3fff | (0x3fu << 16);
    s->maxphyaddr = maxphyaddr;
    s->max_ext_leaf = 0x80000008u;
    c->family = 6;
    c->model = 0x5e;
    c->intel_pt = true;
    c->max_subleaf = 1;
    c->cr3_filtering = c->psb_cyc = c->ip_filtering = c->mtc = c->ptwrite = c->power_event_trace = true;
    c->psb_pmi_preserve = true;
    c->topa_output = ecx & CPUID14_0_ECX_TOPA_OUTPUT;
    c->topa_multiple_entries = ecx & CPUID14_0_ECX_TOPA_MULTIPLE;
    c->single_range_output = ecx & CPUID14_0_ECX_SINGLE_RANGE;
    c->num_address_ranges = 2;
    c->mtc_periods = 0x249;
    c->cycle_thresholds = 0x3fff;
    c->psb_periods = 0x3f;
    c->maxphyaddr = maxphyaddr ? maxphyaddr : 36;
    c->pt_supported = kind != TOPA_CAPS_NONE;
    c->reason = kind != TOPA_CAPS_NONE ? FWPT_CAPS_USABLE : FWPT_CAPS_NO_OUTPUT_SCHEME;
}

void topa_arena_init(struct topa_arena *a, uint64_t phys, uint64_t size)
{
    a->buf = calloc(1, size);
    a->phys = phys;
    a->size = size;
    a->used = 0;
    fwpt_physmem_init(&a->mem, false);
    fwpt_physmem_add(&a->mem, phys, size, a->buf);
}

void topa_arena_free(struct topa_arena *a)
{
    free(a->buf);
    a->buf = NULL;
}

uint64_t topa_arena_alloc(struct topa_arena *a, uint64_t bytes, uint64_t align)
{
    uint64_t p = (a->phys + a->used + align - 1) & ~(align - 1);
    if (p + bytes > a->phys + a->size)
        return 0;
    a->used = p + bytes - a->phys;
    return p;
}

void *topa_arena_ptr(struct topa_arena *a, uint64_t phys) { return a->buf + (phys - a->phys); }

uint64_t topa_rand(uint64_t *s) { return xorshift64(s); }
