/* fwpt — the summaries a caller can compute from a decoded flow: instructions per function entry (self) and the
 * call tree with counts. Two ways to count: give every instruction and event to fwpt_profile_add (from
 * fwpt_flow_next), or let fwpt_summary_profile walk the flow at the speed of its branches (the same counts,
 * without listing a single instruction). Freestanding, no allocation: the caller owns the profile
 * (fwpt_profile_size() bytes, layout private) and its tables.
 *
 *     struct fwpt_profile *p = malloc(fwpt_profile_size());
 *     fwpt_profile_init(p, NULL, mod_insns, funcs, 4096, nodes, 4096, hash, 8192);   // mod_insns[1]
 *     fwpt_summary_profile(f, p, &errors);                       // f: fwpt_flow_init'ed, with a block cache
 *     for (size_t i = fwpt_profile_next_top(p, (size_t)-1); i != (size_t)-1; i = fwpt_profile_next_top(p, i))
 *         ... fwpt_profile_func_at(p, i)->entry, ->insns, ->calls ...
 */
#ifndef FWPT_SUMMARY_H
#define FWPT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "fwpt/export.h"
#include "fwpt/flow.h"
#include "fwpt/status.h"

struct fwpt_profile_func {
    uint64_t entry;  /* FWPT_FLOW_NO_IP: free slot */
    uint64_t calls;
    uint64_t insns;  /* executed while this function was the innermost one (self) */
};

struct fwpt_profile_node { /* call tree: one node per (caller node, callee entry) */
    uint64_t entry;
    uint64_t calls, insns, total; /* total: insns of the node and everything below it */
    uint32_t parent, first_child, last_child, next_sibling, depth;
};

/* The profile's state (private: its layout changes with any version). */
struct fwpt_profile;
/* The code's modules (not public: a caller passes NULL, and every instruction counts in no module). */
struct fwpt_modules;

FWPT_BEGIN_DECLS

/* Bytes a caller allocates for one struct fwpt_profile. */
FWPT_API size_t fwpt_profile_size(void);

/* Table sizes: nfuncs and nhash powers of two; nodes >= 1. mod_insns has mods->n + 1 entries
 * (mods may be NULL, as it is for a caller of this API: then 1). */
FWPT_API void fwpt_profile_init(struct fwpt_profile *p, struct fwpt_modules *mods, uint64_t *mod_insns,
                                struct fwpt_profile_func *funcs, size_t nfuncs, struct fwpt_profile_node *nodes,
                                size_t nnodes, uint32_t *node_hash, size_t nhash);
/* Feed every instruction and event in order. */
FWPT_API void fwpt_profile_add(struct fwpt_profile *p, const struct fwpt_flow_event *ev);
/* The function after prev ((size_t)-1: the first) by self count descending, then entry ascending: an index into
 * p->funcs, or (size_t)-1 after the last. Repeated scans, no sorting memory. */
FWPT_API size_t fwpt_profile_next_top(const struct fwpt_profile *p, size_t prev);
/* funcs[i] of the table given to fwpt_profile_init (an index fwpt_profile_next_top gave), or NULL for a free slot or
 * an index out of the table. */
FWPT_API const struct fwpt_profile_func *fwpt_profile_func_at(const struct fwpt_profile *p, size_t i);
/* Instructions counted; functions and call tree nodes that did not fit the tables (a result with *dropped != 0 is
 * incomplete). */
FWPT_API uint64_t fwpt_profile_insns(const struct fwpt_profile *p, uint64_t *dropped);

/* Walks the flow f (initialized, with a block cache: without one every step takes the decoder's general path) to
 * the end of its trace and counts into p as fwpt_profile_add would count every instruction and event fwpt_flow_next
 * gives: FWPT_OK at the end of the trace, or FWPT_E_INTERNAL (a decoder bug, fwpt_flow_next). *errors (may be
 * NULL): the decode errors met (FWPT_FLOW_ERROR events; the walk goes on after each, as fwpt_flow_next). */
FWPT_API enum fwpt_status fwpt_summary_profile(struct fwpt_flow *f, struct fwpt_profile *p, uint64_t *errors);

FWPT_END_DECLS

#endif
