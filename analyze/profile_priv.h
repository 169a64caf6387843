/* fwpt — the profile's private header: its steps (analyze/profile.c) for analyze/sumprof.c, the lookups
 * fwpt_profile_add makes at each call, so a call tree counted elsewhere lands in the same slots, in the same order,
 * with the same losses when a table is full; and its counting, a run of instructions at a time (not an interface:
 * only analyze/profile.c and analyze/sumprof.c include it). */
#ifndef FWPT_ANALYZE_PROFILE_PRIV_H
#define FWPT_ANALYZE_PROFILE_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include "analyze/profile.h"

/* The child node of parent for a call of entry, made if needed; parent itself (and p->dropped + 1) when the
 * table is full. */
uint32_t fwpt_profile_i_node(struct fwpt_profile *p, uint32_t parent, uint64_t entry);
/* The function slot of entry, made if needed; (size_t)-1 (and p->dropped + 1) when the table is full. */
size_t fwpt_profile_i_func(struct fwpt_profile *p, uint64_t entry);

/* What n calls of fwpt_profile_add would count for n instructions from ip in module mi (fwpt_image_module_find's
 * index), the last of class iclass with next IP next, the others changing no flow. */
void fwpt_profile_i_run(struct fwpt_profile *p, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next);
/* A call of entry, and the return from the innermost frame (if any), as fwpt_profile_add makes them. */
void fwpt_profile_i_enter(struct fwpt_profile *p, uint64_t entry);
void fwpt_profile_i_leave(struct fwpt_profile *p);

#endif
