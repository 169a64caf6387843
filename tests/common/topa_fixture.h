/* fwpt tests — fixtures for the topa tests: capabilities written as struct fwpt_caps (with the
 * raw CPUID values they come from, so the model's CPUID agrees), and a fake physical memory. */
#ifndef FWPT_TESTS_TOPA_FIXTURE_H
#define FWPT_TESTS_TOPA_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/caps.h"
#include "topa/table.h"

enum topa_caps_kind {
    TOPA_CAPS_MULTI,        /* ToPA, multiple entries, single range (Skylake-like) */
    TOPA_CAPS_SINGLE_ENTRY, /* ToPA without MENTRY (Broadwell-like) */
    TOPA_CAPS_SINGLE_RANGE, /* single range only */
    TOPA_CAPS_NONE,         /* PT without any output scheme */
};
void topa_caps(struct fwpt_caps *c, enum topa_caps_kind kind, uint32_t maxphyaddr);

/* One calloc'd block mapped at a fake physical base; bump allocation with natural alignment. */
struct topa_arena {
    struct fwpt_physmem mem;
    uint8_t *buf;
    uint64_t phys, size, used;
};
void topa_arena_init(struct topa_arena *a, uint64_t phys, uint64_t size);
void topa_arena_free(struct topa_arena *a);
uint64_t topa_arena_alloc(struct topa_arena *a, uint64_t bytes, uint64_t align); /* 0 when full */
void *topa_arena_ptr(struct topa_arena *a, uint64_t phys);

/* Deterministic PRNG. */
uint64_t topa_rand(uint64_t *state);
#endif
