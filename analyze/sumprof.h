/* fwpt — the profile and call tree of a summary walk (analyze/summary.c): what fwpt_profile_add counts for
 * every instruction and event (analyze/profile.c), counted a run of instructions at a time, and merged into
 * a struct fwpt_profile afterwards, where it prints and draws as one built instruction by instruction.
 *
 * A walk may start where calls are open that it does not know: a piece of a trace cut at a PSB
 * (analyze/parallel_host.c). Its call tree then hangs from anchors: anchor 0 is the frame innermost where it
 * started, a return with no frame of its own open leaves to anchor 1 (the one below), and so on. The merge
 * puts anchor i on the i-th frame below the top of the profile it merges into (the root when there are not
 * that many), exactly where fwpt_profile_add would have counted. Past FWPT_SUMPROF_ANCHORS frames left, one anchor
 * stands for all the rest: it must be the root (checked by the merge). An overflow or error empties the
 * profile's stack (fwpt_profile_add): from there on the frames are known again. Or the counts go straight
 * into a struct fwpt_profile (fwpt_sumprof_init_direct: a walk that starts where that profile's instructions end).
 * Freestanding; the tables grow through the caller's allocator. */
#ifndef FWPT_ANALYZE_SUMPROF_H
#define FWPT_ANALYZE_SUMPROF_H

#include <stdbool.h>
#include <stdint.h>
#include "analyze/profile.h"
#include "base/resize.h"

#define FWPT_SUMPROF_NONE 0xffffffffu
#define FWPT_SUMPROF_ANCHORS 32 /* frames left below an unknown start that get an anchor of their own */

struct fwpt_sumprof_node {
    uint64_t entry;        /* function entry; the root and anchors: FWPT_FLOW_NO_IP */
    uint64_t calls, insns; /* calls into it; instructions while it was the innermost frame */
    uint32_t parent;       /* FWPT_SUMPROF_NONE: the root or an anchor */
    uint32_t anchor;       /* anchors: 1 + i for anchor i; else 0 */
    uint32_t last_child;   /* the child called last + 1 (0: none): a one-entry cache before the hash */
    uint32_t pad;
};

/* A frame change, for the Trace Event Format (fwpt_profile's frame hook), replayed by the merge. */
enum { FWPT_SUMPROF_PUSH = 1, FWPT_SUMPROF_POP, FWPT_SUMPROF_UPOP, FWPT_SUMPROF_CLEAR, FWPT_SUMPROF_DROP };
struct fwpt_sumprof_op {
    uint64_t insns; /* instructions counted when it happened */
    uint32_t node;  /* PUSH: the node entered */
    uint32_t op;
};

struct fwpt_sumprof {
    struct fwpt_profile *direct;    /* counts go there (fwpt_sumprof_init_direct); NULL: into the tables below */
    struct fwpt_profile *spill;     /* known from the root and nothing before it: once past spill_nodes, merged
                                     * into this one, and counting goes on straight into it (fwpt_sumprof_spill) */
    uint32_t spill_nodes;
    struct fwpt_resize rs;
    struct fwpt_modules *mods;
    uint64_t *mod_insns;            /* mods->n + 1: the last counts instructions in no module */
    size_t nmods;
    struct fwpt_sumprof_node *nodes;     /* in the order they were made: nodes[0] is the root */
    uint32_t nnodes, cap;
    uint32_t max_nodes;             /* 0: no limit; else failed past it (the profile merged into holds fewer) */
    uint32_t *hash;                 /* (parent, entry) -> node + 1; open addressing */
    uint32_t hmask;
    uint32_t stack[FWPT_PROFILE_DEPTH];
    uint32_t depth;                 /* frames entered by this walk and still open */
    uint32_t base;                  /* where depth 0 counts: the root, or the anchor of the frames left */
    uint32_t cur;                   /* where instructions count: the innermost frame's node, else base */
    uint32_t popped;                /* frames left below the start (anchors made: up to FWPT_SUMPROF_ANCHORS + 1) */
    uint8_t known;                  /* no unknown frame below (started at the root, or emptied since) */
    uint8_t call_pending;
    uint8_t deep;                   /* FWPT_PROFILE_DEPTH frames of its own while frames below were unknown */
    uint8_t failed;                 /* a table could not grow, or passed max_nodes: the result cannot be merged */
    uint8_t unknown_calls;          /* calls were made while frames below were unknown */
    uint8_t log;                    /* keep the frame changes (ops) */
    uint64_t call_next;
    int64_t max_rel;                /* at calls while !known: the largest depth - popped */
    uint32_t max_depth;             /* ... and depth */
    uint64_t insns, events;
    struct fwpt_sumprof_op *ops;
    size_t nops, ops_cap;
};

/* known: the walk starts with no call open (a whole trace); else under unknown frames (a piece).
 * log: keep the frame changes for a frame hook (the Trace Event Format). FWPT_E_NOMEM when out of memory. */
enum fwpt_status fwpt_sumprof_init(struct fwpt_sumprof *sp, struct fwpt_modules *mods, bool known, bool log,
                                   const struct fwpt_resize *rs);
/* Counts straight into p (its tables, its frame hook): the walk goes on where p's instructions and events end. */
void fwpt_sumprof_init_direct(struct fwpt_sumprof *sp, struct fwpt_profile *p);
/* A call tree that grows past spill_nodes (one that walks the call paths of random code, deeper than the
 * profile's window) costs more than counting straight into the profile: merge it into sp->spill now and go on
 * there. Call between two counts (the walk does, when sp->spill is set). */
static inline bool fwpt_sumprof_spill_due(const struct fwpt_sumprof *sp) { return sp->spill && sp->nnodes >= sp->spill_nodes; }
/* FWPT_E_INVAL: nothing to spill into (no spill profile, counting direct already, or frames below unknown);
 * else as fwpt_sumprof_merge. */
enum fwpt_status fwpt_sumprof_spill(struct fwpt_sumprof *sp);
/* Can fwpt_sumprof_merge place sp under a profile with depth frames open? */
bool fwpt_sumprof_mergeable(const struct fwpt_sumprof *sp, uint32_t depth);
/* The frames open after sp, merged under depth frames. */
uint32_t fwpt_sumprof_depth_after(const struct fwpt_sumprof *sp, uint32_t depth);
void fwpt_sumprof_free(struct fwpt_sumprof *sp);

/* Starts counting here as the profile would go on after an instruction of class iclass (enum
 * fwpt_insn_class) whose next IP is next was counted: a call waits for the instruction it lands on. */
void fwpt_sumprof_resume(struct fwpt_sumprof *sp, unsigned iclass, uint64_t next);

/* A call of entry (fwpt_profile_add's enter): returns the node entered. */
uint32_t fwpt_sumprof_enter(struct fwpt_sumprof *sp, uint64_t entry);
/* The same when the node is known: a child of sp->cur that fwpt_sumprof_enter returned before. */
void fwpt_sumprof_enter_node(struct fwpt_sumprof *sp, uint32_t node);
void fwpt_sumprof_leave(struct fwpt_sumprof *sp);

/* n instructions from ip in module mi (fwpt_image_module_find's index; mods->n: none), the last of class iclass
 * with next IP next (the others change no flow). */
void fwpt_sumprof_run_direct(struct fwpt_sumprof *sp, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next);
static inline void fwpt_sumprof_run(struct fwpt_sumprof *sp, uint64_t ip, uint64_t n, size_t mi, unsigned iclass,
                               uint64_t next)
{
    if (sp->direct) {
        fwpt_sumprof_run_direct(sp, ip, n, mi, iclass, next);
        return;
    }
    if (fwpt_profile_call_lands(&sp->call_pending, sp->call_next, ip))
        fwpt_sumprof_enter(sp, ip);
    sp->insns += n;
    sp->mod_insns[mi] += n;
    sp->nodes[sp->cur].insns += n;
    if (fwpt_profile_frame_after(&sp->call_pending, &sp->call_next, iclass, next) < 0)
        fwpt_sumprof_leave(sp);
}

/* An event (not an instruction), as fwpt_profile_add takes it. */
void fwpt_sumprof_event(struct fwpt_sumprof *sp, const struct fwpt_flow_event *ev);

/* Adds what sp counted to p, as if p had been given every instruction and event sp was given, after those it
 * already has; p's frame hook (if any) is called as fwpt_profile_add would (sp must keep its log). FWPT_OK;
 * FWPT_E_INVAL when sp cannot be placed under p's open frames (the stack would have passed FWPT_PROFILE_DEPTH,
 * whose window depends on frames sp did not see; p has a frame hook but sp kept no log; sp counted into another
 * profile); FWPT_E_NOMEM when a table could not grow. p is then unchanged. */
enum fwpt_status fwpt_sumprof_merge(struct fwpt_sumprof *sp, struct fwpt_profile *p);

#endif
