/* fwpt host tool — the per-address answer cache both symbol-file backends keep in front of their lookups
 * (tools/symbols_dw.c: libdw; tools/symbols_pdb.c: llvm-symbolizer): direct-mapped, one whole answer a slot. */
#ifndef FWPT_TOOLS_RESOLVE_CACHE_H
#define FWPT_TOOLS_RESOLVE_CACHE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/resolve.h"

struct fwpt_resolve_slot {
    uint64_t address;
    int valid, known;
    struct fwpt_resolved r;
};

struct fwpt_resolve_cache {
    struct fwpt_resolve_slot *slot; /* mask + 1 slots */
    uint64_t mask;
    unsigned shift;                 /* the slot of an address: (address ^ address >> shift) & mask */
    uint64_t cached, looked_up;     /* answers from the cache, and through the backend's lookup */
};

/* slots: a power of two. 0, or -1 when out of memory. */
static inline int fwpt_resolve_cache_init(struct fwpt_resolve_cache *c, size_t slots, unsigned shift)
{
    *c = (struct fwpt_resolve_cache){.slot = calloc(slots, sizeof *c->slot), .mask = slots - 1, .shift = shift};
    return c->slot ? 0 : -1;
}

static inline void fwpt_resolve_cache_free(struct fwpt_resolve_cache *c)
{
    free(c->slot);
    c->slot = NULL;
}

/* Forgets every answer (the counts stay). */
static inline void fwpt_resolve_cache_clear(struct fwpt_resolve_cache *c)
{
    memset(c->slot, 0, (c->mask + 1) * sizeof *c->slot);
}

/* The answer for address: the cached one, else lookup(ctx, ...)'s, kept. Returns what lookup returned for it. */
static inline int fwpt_resolve_cached(struct fwpt_resolve_cache *c, uint64_t address, struct fwpt_resolved *out,
                                      int (*lookup)(void *ctx, uint64_t address, struct fwpt_resolved *r), void *ctx)
{
    struct fwpt_resolve_slot *slot = &c->slot[(address ^ (address >> c->shift)) & c->mask];
    if (slot->valid && slot->address == address) {
        c->cached++;
        *out = slot->r;
        return slot->known;
    }
    c->looked_up++;
    slot->known = lookup(ctx, address, &slot->r);
    slot->address = address;
    slot->valid = 1;
    *out = slot->r;
    return slot->known;
}

#endif
