/* fwpt — the flow's summaries: instructions (or ticks) per module and per function entry, and the
 * call tree with counts, from the instructions and events in order. Freestanding: tables are
 * caller-provided; render/profile_print.h prints them (text and JSON lines, with the build's names). */
#ifndef FWPT_ANALYZE_PROFILE_H
#define FWPT_ANALYZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "decode/flow.h"
#include "decode/image.h"
#include "fwpt/summary.h"

/* How an instruction of class iclass changes the profile's frames: +1 a call opens one at its target (near and
 * far calls), -1 a return closes the innermost (near and far returns, IRET), 0 none. fwpt_profile_add and the
 * summary walk's profile (analyze/sumprof.h) both count by it. */
static inline int fwpt_profile_frame_step(unsigned iclass)
{
    switch (iclass) {
    case FWPT_IC_CALL_REL: case FWPT_IC_CALL_IND: case FWPT_IC_FAR_CALL: return 1;
    case FWPT_IC_RET: case FWPT_IC_FAR_RET: case FWPT_IC_IRET: return -1;
    default: return 0;
    }
}

/* The call that waits for the instruction it lands on (*pending, call_next: the call's next IP), before a run at
 * ip: true when it opens a frame there, false when none waits or it is a zero-length call (call next), which is no
 * call; it waits no longer. fwpt_profile_add and the summary walk's profile both count by it. */
static inline bool fwpt_profile_call_lands(uint8_t *pending, uint64_t call_next, uint64_t ip)
{
    if (!*pending)
        return false;
    *pending = 0;
    return ip != call_next;
}

/* After a run whose last instruction is of class iclass, with next IP next: fwpt_profile_frame_step, a call left
 * waiting for the instruction it lands on (*pending, *call_next). */
static inline int fwpt_profile_frame_after(uint8_t *pending, uint64_t *call_next, unsigned iclass, uint64_t next)
{
    const int step = fwpt_profile_frame_step(iclass);
    if (step > 0) {
        *pending = 1;
        *call_next = next;
    }
    return step;
}

#define FWPT_PROFILE_DEPTH 256

/* Optional per-call hook (render/flame: one Trace Event slice per call): PUSH after a frame was entered (p->insns:
 * the index of its first instruction), POP before one is left (p->insns: one past its last instruction; an
 * overflow or error pops every frame), DROP_OUTER before the outermost frame is dropped at FWPT_PROFILE_DEPTH. */
enum fwpt_frame_op { FWPT_FRAME_PUSH, FWPT_FRAME_POP, FWPT_FRAME_DROP_OUTER };
struct fwpt_profile;
typedef void (*fwpt_frame_fn)(void *ctx, const struct fwpt_profile *p, enum fwpt_frame_op op, uint32_t node);

struct fwpt_profile {
    struct fwpt_modules *mods;
    fwpt_frame_fn frame_hook;      /* NULL after fwpt_profile_init; set it to follow every call */
    void *frame_ctx;
    uint64_t *mod_insns;           /* mods->n + 1 counters: the last one counts IPs in no module */
    struct fwpt_profile_func *funcs;
    size_t funcs_mask;             /* table size - 1 (power of two) */
    size_t nfuncs;
    struct fwpt_profile_node *nodes; /* nodes[0] is the root (code outside any traced call) */
    size_t nodes_cap, nnodes;
    uint32_t *node_hash;           /* open addressing: node index + 1, 0 free */
    size_t node_hash_mask;
    uint32_t stack_node[FWPT_PROFILE_DEPTH];
    uint32_t stack_func[FWPT_PROFILE_DEPTH];
    uint32_t depth;                /* stack_*[depth-1] is the innermost frame; 0: root */
    uint8_t call_pending, ret_pending;
    uint64_t call_next;            /* next IP of the pending call: a zero-length call lands there */
    uint64_t insns, events, dropped; /* dropped: functions/nodes that did not fit the tables */
    uint8_t unit;                  /* what insns counts: FWPT_PROFILE_UNIT_* (analyze/time_spread: ticks) */
};
enum { FWPT_PROFILE_UNIT_INSNS = 0, FWPT_PROFILE_UNIT_TICKS };
/* "instructions" / "TSC ticks"; short: "insns" / "ticks" */
const char *fwpt_profile_unit(const struct fwpt_profile *p, bool short_name);

/* The same, an instruction counting w (analyze/time_spread: its TSC ticks) instead of 1. */
void fwpt_profile_add_weight(struct fwpt_profile *p, const struct fwpt_flow_event *ev, uint64_t w);
/* Each node's total (instructions with its callees) from the nodes' own counts: what the call tree, the flame
 * graph and the report page show. Their printers: render/profile_print.h. */
void fwpt_profile_calltree_totals(struct fwpt_profile *p);
/* The call tree walked depth first, without recursion: the node after n (children first, then the next sibling of
 * n or of its nearest ancestor that has one; 0 when none is left), n's children skipped when skip_children. */
uint32_t fwpt_profile_next_node(const struct fwpt_profile *p, uint32_t n, bool skip_children);

#endif
