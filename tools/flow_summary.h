/* fwpt flow's summaries without single instructions (analyze/summary, analyze/parallel_host): the profile, call
 * tree and pictures, the edges and the coverage bitmap, on -j threads; and the edges and bitmap of the
 * per-instruction walk (--walk insn), for comparison. */
#ifndef FWPT_TOOLS_FLOW_SUMMARY_H
#define FWPT_TOOLS_FLOW_SUMMARY_H

#include <stdio.h>
#include "analyze/edges.h"
#include "render/flow_print.h"
#include "analyze/parallel_host.h"

struct flow_summary {
    /* what fwpt flow asked */
    const char *cov_path;    /* --coverage FILE (NULL: none) */
    size_t cov_size;         /* --coverage-size */
    bool edges;              /* --edges */
    bool jsonl;              /* --format jsonl */
    /* what the walk gave */
    struct fwpt_parallel_out out;
};

/* Walks the trace of setup with the summary walk: the profile into prof (setup->profile), each error handed to
 * show(show_ctx, ev) in order. 0, or -1 when out of memory. */
int flow_summary_run(struct flow_summary *fs, struct fwpt_par_setup *setup, struct fwpt_profile *prof,
                     void (*show)(void *ctx, const struct fwpt_flow_event *ev), void *show_ctx);

/* The per-instruction walk's share: each instruction and event of fwpt_flow_next, in order, into the edges and
 * bitmap of fs (allocated by flow_summary_insn_begin). */
int flow_summary_insn_begin(struct flow_summary *fs);
void flow_summary_insn_add(struct flow_summary *fs, const struct fwpt_flow_event *ev);

/* Prints the edges (--edges) to out, each end named by r (render/edge_print.h; NULL: none), and writes the bitmap
 * (--coverage); 0, or -1 when the file could not be written (said on stderr). */
int flow_summary_write(struct flow_summary *fs, const struct fwpt_sink *out, struct fwpt_modules *mods,
                       const struct fwpt_resolver *r);
void flow_summary_free(struct flow_summary *fs);

#endif
