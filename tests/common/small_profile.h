/* fwpt tests — flow events made by hand, and a small profile with known counts for the views' tests: over modules
 * with code at 0x1000 (A at 0x1040) and 0x2000 (B at 0x2000, H at 0x2080), the root runs 2 instructions and calls A
 * twice; A calls B once; an interrupt enters the handler H from A; a zero-length call is no call; one instruction
 * is in no module. Header-only (static inline). */
#ifndef FWPT_TESTS_SMALL_PROFILE_H
#define FWPT_TESTS_SMALL_PROFILE_H

#include <stdint.h>
#include <string.h>

#include "analyze/profile.h"
#include "decode/flow.h"

/* An instruction event of 64-bit code. */
static inline struct fwpt_flow_event flow_insn(uint64_t ip, uint8_t size, uint8_t iclass)
{
    struct fwpt_flow_event e;
    memset(&e, 0, sizeof e);
    e.kind = FWPT_FLOW_INSN;
    e.ip = ip;
    e.size = size;
    e.iclass = iclass;
    e.mode = 64;
    return e;
}

/* A profile and its tables: 16 functions, 16 call-tree nodes, 32 hash slots, two modules. */
struct small_profile {
    struct fwpt_profile p;
    struct fwpt_profile_func funcs[16];
    struct fwpt_profile_node nodes[16];
    uint32_t hash[32];
    uint64_t modc[3];
};

static inline void small_profile_init(struct small_profile *s, struct fwpt_modules *mods)
{
    fwpt_profile_init(&s->p, mods, s->modc, s->funcs, 16, s->nodes, 16, s->hash, 32);
}

/* The sequence (above) added to s->p. */
static inline void small_profile_add(struct small_profile *s)
{
    struct fwpt_flow_event seq[16];
    size_t n = 0;
    seq[n++] = flow_insn(0x1000, 4, FWPT_IC_OTHER);
    seq[n++] = flow_insn(0x1004, 5, FWPT_IC_CALL_REL); /* call A */
    seq[n++] = flow_insn(0x1040, 5, FWPT_IC_CALL_REL); /* A: call next (zero-length) */
    seq[n++] = flow_insn(0x1045, 1, FWPT_IC_OTHER);    /* A: pop */
    seq[n++] = flow_insn(0x1046, 5, FWPT_IC_CALL_REL); /* A: call B */
    seq[n++] = flow_insn(0x2000, 1, FWPT_IC_RET);      /* B: ret */
    memset(&seq[n], 0, sizeof seq[n]);
    seq[n].kind = FWPT_FLOW_INTERRUPT;
    seq[n].ip = 0x104b;
    seq[n++].to = 0x2080;
    seq[n++] = flow_insn(0x2080, 2, FWPT_IC_IRET);     /* H: iretq */
    seq[n++] = flow_insn(0x104b, 1, FWPT_IC_RET);      /* A: ret */
    seq[n++] = flow_insn(0x1009, 5, FWPT_IC_CALL_REL); /* call A again */
    seq[n++] = flow_insn(0x1040, 1, FWPT_IC_RET);      /* A: ret (via a jump) */
    seq[n++] = flow_insn(0x100e, 1, FWPT_IC_OTHER);
    seq[n++] = flow_insn(0x9000, 1, FWPT_IC_OTHER);    /* no module */
    for (size_t i = 0; i < n; i++)
        fwpt_profile_add(&s->p, &seq[i]);
}

#endif
