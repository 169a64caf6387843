/* fwpt — the summary walk: the flow of a trace at the speed of its branches, for what needs no single
 * instruction: the profile and call tree (analyze/sumprof, then analyze/profile, render/flame,
 * render/report), the edges and the coverage bitmap (analyze/edges).
 *
 * It walks decode/flow's block step (fwpt_flow_next_blocks: blocks and chains, never an instruction) and counts
 * what it gives. The chains -- blocks joined by conditional branches, direct jumps, plain fall-through, direct
 * calls and compressed returns, up to a TNT byte at a time, from a cache keyed by the first block and the TNT
 * bits in hand -- are the path cache: one entry gives their instruction count, where they end, the calls and
 * returns inside and the edges inside; the summary keeps its counts in the entries' caller words (uses: walks
 * whose inner edges are not counted yet; the calls' profile hints) and its modules as the chains' regions.
 * Calls, returns (RET compression, every near RET pops) and every event are taken by decode/flow, so the counts
 * are those of the instructions fwpt_flow_next gives.
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

#define FWPT_SUM_NO_STOP FWPT_FLOW_NO_STOP

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
    uint8_t paths_ok;             /* modules do not overlap: a chain's module is one for all its blocks */
    uint64_t edge_from;
    struct fwpt_flow_chains chains; /* the path cache: decode/flow's chains (v NULL: none) */
    /* The paths whose uses wait for fwpt_summary_flush, by index (set after init: dirty_cap entries, e.g. the
     * path cache's size; NULL: the flush goes over every path, which costs a trace of a few thousand
     * instructions more than its walk) */
    uint32_t *dirty;
    size_t ndirty, dirty_cap;
    /* statistics */
    uint64_t errors, path_hits, path_misses, blocks;
};

/* paths, cold: npaths entries each (a power of two; NULL or 0: blocks only). f: initialized (fwpt_flow_init),
 * with a block cache (without one every step takes flow's general path). Counting on, no stop. */
void fwpt_summary_init(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_flow_chain *paths, size_t npaths,
                       struct fwpt_flow_chain_cold *cold);

/* The same with the paths an earlier walk over the same code left (flushed: fwpt_summary_flush); gen differs from
 * that walk's. */
void fwpt_summary_reuse(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_flow_chain *paths, size_t npaths,
                        struct fwpt_flow_chain_cold *cold, uint32_t gen);

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
