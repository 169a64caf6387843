/* fwpt — the profile's tables (decode/flow_print.c), for decode/sumprof.c's merge: the lookups
 * fwpt_profile_add makes at each call, so a call tree counted elsewhere lands in the same slots, in the
 * same order, with the same losses when a table is full. Not a public interface. */
#ifndef FWPT_DECODE_FLOW_PRINT_INTERNAL_H
#define FWPT_DECODE_FLOW_PRINT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "decode/flow_print.h"

/* The child node of parent for a call of entry, made if needed; parent itself (and p->dropped + 1) when the
 * table is full. */
uint32_t fwpt_profile_i_node(struct fwpt_profile *p, uint32_t parent, uint64_t entry);
/* The function slot of entry, made if needed; (size_t)-1 (and p->dropped + 1) when the table is full. */
size_t fwpt_profile_i_func(struct fwpt_profile *p, uint64_t entry);

#endif
