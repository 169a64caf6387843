/* fwpt — the summary walk: the flow of a trace at the speed of its branches, for what needs no single
 * instruction: the profile and call tree (analyze/sumprof, then analyze/profile, render/flame,
 * render/report), the edges and the coverage bitmap (analyze/edges).
 *
 * It walks decode/flow's blocks (the instruction count and end of each are known once, in flow's cache) and
 * never lists an instruction. Chains of blocks joined by conditional branches, direct jumps, plain
 * fall-through, direct calls and compressed returns are followed up to a TNT byte at a time from a path cache
 * keyed by the first block and the TNT bits in hand: one entry gives their instruction count, where they end,
 * the calls and returns inside and the edges inside. Calls, returns
 * (RET compression, every near RET pops) and every event are taken as decode/flow takes them: the walk is
 * flow's fast path (fill_fast) with its instruction stores replaced by counts, and flow's general path
 * (fwpt_flow_next_run) for everything else, so the counts are those of the instructions fwpt_flow_next gives.
 *
 *     struct fwpt_sum s;
 *     fwpt_summary_init(&s, &flow, paths, npaths, cold);      // after fwpt_flow_init; paths optional
 *     s.prof = &sumprof;  s.mods = mods;  s.edges = &edges;  s.cov = map;  s.cov_mask = size - 1;  // what to count
 *     fwpt_summary_configure(&s);
 *     while (fwpt_summary_walk(&s) == FWPT_OK) ;               // FWPT_E_EOS at the end
 *     fwpt_summary_flush(&s);                                  // the path cache's edges into edges/cov
 *
 * A walk can stop at a place two decoders can agree on (analyze/parallel_host.c): see stop_at.
 * Freestanding; the caller owns every table. */
#ifndef FWPT_ANALYZE_SUMMARY_H
#define FWPT_ANALYZE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include "analyze/edges.h"
#include "decode/flow.h"
#include "analyze/sumprof.h"

#define FWPT_SUM_PATH_BLOCKS 16 /* blocks one path entry follows at most */
#define FWPT_SUM_PATH_BITS 8    /* TNT bits it consumes at most */
#define FWPT_SUM_PATH_CALLS 8   /* calls and returns inside it at most */
#define FWPT_SUM_NO_STOP (~(uint64_t)0)

/* One path cache entry: the blocks from ip walked with the TNT bits of key. It follows conditional branches,
 * direct jumps, direct calls whose first block it holds, the compressed returns (a TNT bit 1) of those calls
 * (their target is the call's next IP: SDM "Indirect Transfer Compression for Returns (RET)") and one
 * compressed return from a call made before it (to the stack's top then: part of its key, ret_to). It ends
 * right after its last bit, or before a block it cannot follow (not cached, another module, too many), or
 * with a block whose end needs more than it holds (pending: a return from a call before it, an indirect
 * branch, a conditional branch with no bit in hand...). */
struct fwpt_sum_path {
    uint64_t ip;         /* first block; FWPT_FLOW_NO_IP: empty */
    uint64_t next;       /* not pending: where the walk goes on; pending: the last block's fall-through */
    uint64_t last_ip;    /* pending: its last instruction; else the branch whose edge leads to next (edge) */
    uint64_t uses;       /* walks of it whose inner edges are not counted yet */
    uint64_t ret_to;     /* it returns from a call made before it, to this (the RET compression stack's top
                          * when it starts must be this); 0: it does not */
    uint32_t ninsn;      /* instructions */
    uint32_t tail;       /* of them after the last TNT bit it used */
    uint32_t region;     /* module (index as fwpt_image_module_find gives; mods->n: none) of every instruction */
    uint16_t key;        /* the TNT bits it was made for: (1 << k) | the k oldest bits in hand */
    uint8_t mode, used, pending, cls, flags, edge;
    uint8_t nedges;      /* edges between its blocks (in its struct fwpt_sum_cold) */
    uint8_t miss;        /* it ended before a block that was not cached yet */
    uint8_t nops;        /* calls and returns inside it (in its struct fwpt_sum_cold) */
} __attribute__((aligned(64))); /* one cache line: the walk's chain of loads goes through these */
_Static_assert(sizeof(struct fwpt_sum_path) == 64, "a path cache entry is one cache line");

struct fwpt_sum_edge {
    uint64_t from, to;
};

/* A call or return inside a path, after n instructions since the one before (or the path's start). */
struct fwpt_sum_op {
    uint64_t entry;      /* call: the function entered (the call's target) */
    uint64_t ret;        /* call: its next IP (pushed for RET compression); return: 0 */
    uint32_t n;
    uint32_t call;
    uint32_t parent, node; /* call: the profile node it entered last, and from which (a hint) */
    uint32_t gen;          /* ... for the walk (struct fwpt_sum gen) that made the hint */
};

/* What a path holds that its walk needs less often: its edges and its calls and returns. */
struct fwpt_sum_cold {
    uint64_t target;     /* pending: the last block's branch target */
    uint64_t block_ip;   /* pending: the last block's start */
    struct fwpt_sum_edge edges[FWPT_SUM_PATH_BLOCKS - 1];
    struct fwpt_sum_op ops[FWPT_SUM_PATH_CALLS];
};

struct fwpt_sum {
    struct fwpt_flow *f;
    /* what to count (NULL: not that) */
    struct fwpt_sumprof *prof;
    struct fwpt_edges *edges;
    uint8_t *cov;
    size_t cov_mask;              /* bitmap size - 1 (a power of two) */
    struct fwpt_modules *mods;    /* module of each instruction (prof): prof's */
    /* each event as it comes (the tool prints errors in summaries); NULL: none */
    void (*on_event)(void *ctx, const struct fwpt_flow_event *ev);
    void *ev_ctx;
    /* Stop before the walk takes a branch packet at or after this trace offset (FWPT_SUM_NO_STOP: never):
     * at the end of a block whose branch takes it, with no TNT bit in hand, nothing else pending, the
     * packet in f->peek -- a TNT for a conditional branch, a TIP for an indirect one. Two decoders that
     * are there in the same state decode the rest alike (analyze/parallel_host.c). */
    uint64_t stop_at;
    uint8_t counting;             /* 0: walk without counting (to the first stop) */
    uint32_t gen;                 /* tells this walk's profile hints from an earlier walk's (fwpt_summary_reuse) */
    uint8_t stopped;              /* fwpt_summary_walk returned at stop_at */
    /* private */
    uint8_t edge_pending;
    uint8_t paths_ok;             /* modules do not overlap: a path's module is one for all its blocks */
    uint64_t edge_from;
    uint32_t path_window, path_built; /* lookups in the current window of 256, and misses among them */
    uint32_t path_rest;           /* block starts to walk without looking at paths (they missed too often) */
    struct fwpt_sum_path *paths;
    size_t paths_mask;
    struct fwpt_sum_cold *cold;   /* paths_mask + 1 */
    /* statistics */
    uint64_t errors, path_hits, path_misses, blocks;
};

/* paths, cold: npaths entries each (a power of two; NULL or 0: blocks only). f: initialized (fwpt_flow_init),
 * with a block cache (without one every step takes flow's general path). Counting on, no stop. */
void fwpt_summary_init(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_sum_path *paths, size_t npaths,
                   struct fwpt_sum_cold *cold);

/* The same with the paths an earlier walk over the same code left (flushed: fwpt_summary_flush); gen differs from
 * that walk's. */
void fwpt_summary_reuse(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_sum_path *paths, size_t npaths,
                    struct fwpt_sum_cold *cold, uint32_t gen);

/* Set prof, edges, cov, mods after init, then this (it checks whether paths can serve the modules). */
void fwpt_summary_configure(struct fwpt_sum *s);

/* Walks to the end (FWPT_E_EOS) or to stop_at (FWPT_OK, stopped set). */
enum fwpt_status fwpt_summary_walk(struct fwpt_sum *s);

/* Starts counting where the walk is (stopped at stop_at): the profile and the edge that wait on the
 * branch there are what they were for a walk that counted all along. */
void fwpt_summary_count_from_here(struct fwpt_sum *s);

/* Counts the edges inside the paths walked so far (into edges and cov) and empties the path cache's counts. */
void fwpt_summary_flush(struct fwpt_sum *s);

#endif
