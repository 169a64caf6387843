/* fwpt — the coverage decoder: an AFL-style edge bitmap from trace after trace of the same code, its caches kept
 * warm between traces (the way a fuzzer runs one target millions of times). Each decode starts the flow afresh
 * (walk, RET compression stack, TNT bits, events, statistics) and keeps what depends on the code alone: the
 * block cache, the path cache (the summary walk's chains) and the bitmap slots of their inner edges. The bitmap
 * of a trace is the one a fresh decoder gives for it, byte for byte: one 8-bit counter per edge taken at
 * ((h(from) >> 1) ^ h(to)) & (size - 1), adding 1 and wrapping at 256 (docs/performance.md, "Edges and the
 * coverage bitmap"); RET compression is followed (SDM "Indirect Transfer Compression for Returns (RET)").
 * Freestanding, no allocation: the caller owns the state with its caches (fwpt_cov_size bytes) and the bitmap.
 *
 *     size_t n = fwpt_cov_size(1 << 16, 1 << 14);               // block and path cache entries
 *     struct fwpt_cov *c = malloc(n);
 *     fwpt_cov_init(c, 1 << 16, 1 << 14, read_code, ctx, map, 1 << 16);
 *     for (;;) {                                                 // each run of the target
 *         memset(map, 0, 1 << 16);                               // one bitmap per trace (or keep adding)
 *         struct fwpt_cov_result r;
 *         fwpt_cov_decode(c, trace, len, &r);                    // r.insns, r.errors
 *     }
 *     fwpt_cov_forget(c);                                        // only when the code changed
 */
#ifndef FWPT_COVERAGE_H
#define FWPT_COVERAGE_H

#include <stddef.h>
#include <stdint.h>
#include "fwpt/export.h"
#include "fwpt/flow.h"
#include "fwpt/status.h"

/* The coverage decoder's state and caches (private: its layout changes with any version). */
struct fwpt_cov;

/* What one decode found. */
struct fwpt_cov_result {
    uint64_t insns;         /* instructions walked */
    uint64_t errors;        /* decode errors met (FWPT_FLOW_ERROR events; the walk goes on after each) */
    uint64_t bytes_skipped; /* trace bytes those errors cost (fwpt_flow_bytes_skipped) */
};

FWPT_BEGIN_DECLS

/* Bytes a caller allocates for one decoder with nblocks block cache entries and npaths path cache entries (powers
 * of two; npaths 0: no path cache, block by block), aligned as malloc aligns; 0 when a size is not a power of two
 * (or nblocks is 0). */
FWPT_API size_t fwpt_cov_size(size_t nblocks, size_t npaths);

/* c: fwpt_cov_size(nblocks, npaths) bytes. read, read_ctx: the code (fwpt_flow_read_fn), the same bytes at the same
 * addresses for every trace decoded (else fwpt_cov_forget). map: map_size bytes (a power of two), the bitmap each
 * decode adds to (the caller clears it when it wants one per trace). FWPT_E_INVAL: a size that is not a power of
 * two, no map. */
FWPT_API enum fwpt_status fwpt_cov_init(struct fwpt_cov *c, size_t nblocks, size_t npaths, fwpt_flow_read_fn read,
                                        void *read_ctx, uint8_t *map, size_t map_size);

/* The flow decoder inside: set its filter ranges (fwpt_flow_set_filter), runaway limit, IF events once, they are
 * kept for every trace; after a decode, fwpt_flow_cut tells whether that trace ended with tracing on. */
FWPT_API struct fwpt_flow *fwpt_cov_flow(struct fwpt_cov *c);

/* Another reader of the same code (e.g. the same image loaded again at another host address). */
FWPT_API void fwpt_cov_set_reader(struct fwpt_cov *c, fwpt_flow_read_fn read, void *read_ctx);

/* Each decode error as it is met (ev->kind FWPT_FLOW_ERROR: status, ip, offset); NULL: none. */
FWPT_API void fwpt_cov_set_error_fn(struct fwpt_cov *c, void (*fn)(void *ctx, const struct fwpt_flow_event *ev),
                                    void *ctx);

/* Decodes one trace (read in place, from its first PSB to its end) and adds its edges to the bitmap. *r (may be
 * NULL): what it found. FWPT_OK; FWPT_E_NOSYNC: the trace has no PSB (nothing decoded, the bitmap unchanged);
 * FWPT_E_INTERNAL: a decoder bug (fwpt_flow_next): the bitmap holds the edges up to there. */
FWPT_API enum fwpt_status fwpt_cov_decode(struct fwpt_cov *c, const uint8_t *trace, size_t len,
                                          struct fwpt_cov_result *r);

/* Empties the caches: the code changed. */
FWPT_API void fwpt_cov_forget(struct fwpt_cov *c);

FWPT_END_DECLS

#endif
