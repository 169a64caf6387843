/* fwpt — instructions (or TSC ticks) per instruction address: what `fwpt flow --annotate` and the report page's
 * per-line section group by source line (render/annotate.h). One open-addressing hash of (address, count); it
 * is filled only when one of those is asked, so a walk that does not ask pays nothing.
 *
 *     struct fwpt_addr_counts c;
 *     fwpt_addr_counts_init(&c, table, cap, &rs);   // cap a power of two; rs NULL: the table never grows
 *     fwpt_addr_counts_add(&c, ev.ip, 1);           // each instruction (analyze/time_spread: its ticks)
 *     n = fwpt_addr_counts_sorted(&c);              // the entries in address order, in c.v[0..n)
 *
 * Freestanding; the caller owns the table (and the allocator it may grow through). */
#ifndef FWPT_ANALYZE_ANNOTATE_H
#define FWPT_ANALYZE_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include "base/resize.h"

#define FWPT_ADDR_FREE UINT64_MAX /* a free slot's address (no instruction is there) */

struct fwpt_addr_count {
    uint64_t addr;  /* FWPT_ADDR_FREE: free slot */
    uint64_t count; /* instructions executed at addr, or their TSC ticks */
};

struct fwpt_addr_counts {
    struct fwpt_addr_count *v;
    size_t mask;                /* table size - 1 */
    size_t n;                   /* addresses held */
    const struct fwpt_resize *rs; /* grows the table at 3/4 full; NULL or failing: new addresses are dropped */
    uint64_t total;             /* everything added, dropped or not */
    uint64_t dropped;           /* the counts of addresses that found no room (said by whoever prints) */
    int sorted;                 /* fwpt_addr_counts_sorted ran: the hash is gone, add no more */
};

/* v: cap entries (a power of two, at least 2), owned by the caller (by rs when it grows: rs must have allocated
 * it then). */
void fwpt_addr_counts_init(struct fwpt_addr_counts *c, struct fwpt_addr_count *v, size_t cap,
                           const struct fwpt_resize *rs);

/* The slow path of fwpt_addr_counts_add: a new address (grows the table when it is 3/4 full). */
void fwpt_addr_counts_insert(struct fwpt_addr_counts *c, uint64_t addr, uint64_t w);

/* w more at addr (an instruction's address; FWPT_ADDR_FREE is not one and is ignored). */
static inline void fwpt_addr_counts_add(struct fwpt_addr_counts *c, uint64_t addr, uint64_t w)
{
    if (addr == FWPT_ADDR_FREE)
        return;
    size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 17) & c->mask;
    for (;;) {
        struct fwpt_addr_count *e = &c->v[i];
        if (e->addr == addr) {
            e->count += w;
            c->total += w;
            return;
        }
        if (e->addr == FWPT_ADDR_FREE)
            break;
        i = (i + 1) & c->mask;
    }
    fwpt_addr_counts_insert(c, addr, w);
}

/* Packs the entries into c->v[0..n) in address order (an in-place heap sort) and returns n. The table is no
 * longer a hash: add nothing after. */
size_t fwpt_addr_counts_sorted(struct fwpt_addr_counts *c);

#endif
