/* fwpt — control-flow edges for fuzzers: every distinct edge with its count, and an AFL-style bitmap.
 *
 * An edge is a transfer of control between blocks, taken by the walk: from the IP of an instruction that
 * transfers control (a conditional branch either way -- not taken, it goes to its fall-through, which starts
 * a block of its own --, a jump, call or return, near or far, an interrupt-like instruction, a VM entry) to
 * the IP where the walk goes on; and, for an asynchronous event (FUP+TIP: interrupt, exception), from the IP
 * where it was taken (the instruction not executed) to the handler. An edge counts when the walk gets to its
 * destination: the instruction there executes, or an asynchronous event is taken there. None counts into
 * tracing turned off (TIP.PGD), a decode error or an overflow. Nothing else is an edge: not the end of a run
 * of 10 plain instructions the decoder cuts, not a PTWRITE or MOV CR3, not tracing turned on (TIP.PGE) or a
 * PSB. RET targets come from RET compression as the decoder's (SDM "Indirect Transfer Compression for
 * Returns (RET)"), so compressed returns count too.
 *
 * The bitmap: one 8-bit counter per (hashed) edge, map[((h(from) >> 1) ^ h(to)) & (size - 1)] += 1 and
 * wrapping at 256, as AFL's shared memory map (prev >> 1 ^ cur, prev and cur: the blocks' IDs; here the
 * hashed addresses, h below) and libxdc's. Freestanding. */
#ifndef FWPT_ANALYZE_EDGES_H
#define FWPT_ANALYZE_EDGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "decode/flow.h"
#include "base/resize.h"

/* Does an instruction of this class (enum fwpt_insn_class) transfer control (begin an edge)? */
static inline bool fwpt_edge_class(unsigned iclass) { return iclass >= FWPT_IC_JCC && iclass <= FWPT_IC_VMENTRY; }

/* The rule above over fwpt_flow_next's instructions and events, in order (analyze/summary.c counts the same
 * a block or path at a time): true with *from, *to when ev completes an edge. */
struct fwpt_edge_walk {
    uint64_t from;
    bool pending;
};
static inline bool fwpt_edge_step(struct fwpt_edge_walk *w, const struct fwpt_flow_event *ev, uint64_t *from,
                                  uint64_t *to)
{
    bool edge = false;
    if (ev->kind == FWPT_FLOW_INSN || ev->kind == FWPT_FLOW_INTERRUPT) {
        edge = w->pending;
        *from = w->from;
        *to = ev->ip;
        w->pending = ev->kind == FWPT_FLOW_INTERRUPT || fwpt_edge_class(ev->iclass);
        w->from = ev->ip;
    } else if (ev->kind == FWPT_FLOW_ENABLED || ev->kind == FWPT_FLOW_DISABLED || ev->kind == FWPT_FLOW_OVERFLOW ||
               ev->kind == FWPT_FLOW_ERROR) {
        w->pending = false;
    }
    return edge;
}

/* An address as the bitmap's block ID: a multiply-xorshift mix of all 64 bits. */
static inline uint64_t fwpt_cov_hash(uint64_t a)
{
    a ^= a >> 31;
    a *= 0x9e3779b97f4a7c15ull;
    return a ^ (a >> 29);
}
static inline size_t fwpt_cov_index(uint64_t from, uint64_t to, size_t mask)
{
    return (size_t)(((fwpt_cov_hash(from) >> 1) ^ fwpt_cov_hash(to)) & mask);
}

struct fwpt_edge {
    uint64_t from, to, count; /* count 0: a free slot */
};

/* Every distinct edge and its count: an open-addressing table that grows through rs (without one it keeps
 * the size it was given and counts what did not fit in 'dropped'). */
struct fwpt_edges {
    struct fwpt_edge *v;
    size_t mask, n;
    uint64_t dropped;
    struct fwpt_resize rs;
    int owned; /* v came from rs */
};

/* v: NULL (the table is allocated through rs) or cap entries (a power of two, else FWPT_E_INVAL) the caller owns.
 * FWPT_E_NOMEM: rs gave no table (e->v stays NULL). */
enum fwpt_status fwpt_edges_init(struct fwpt_edges *e, struct fwpt_edge *v, size_t cap, const struct fwpt_resize *rs);
void fwpt_edges_free(struct fwpt_edges *e);
void fwpt_edges_add(struct fwpt_edges *e, uint64_t from, uint64_t to, uint64_t count);
/* Adds every edge of src (tables of parts of one trace). */
void fwpt_edges_merge(struct fwpt_edges *e, const struct fwpt_edges *src);
/* The edges in (from, to) order into out (e->n entries), by an in-place heap sort. */
void fwpt_edges_sorted(const struct fwpt_edges *e, struct fwpt_edge *out);

#endif
