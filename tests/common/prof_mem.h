/* fwpt tests — a struct fwpt_profile with its tables on the heap, and the profile's texts (profile, call
 * tree, folded stacks) into a memory sink. Header-only (static inline): the fuzzers link the library alone
 * (Makefile rule $(B)/fuzz/%), without the tests/common objects. */
#ifndef FWPT_TESTS_PROF_MEM_H
#define FWPT_TESTS_PROF_MEM_H

#include <stdint.h>
#include <stdlib.h>

#include "render/flame.h"
#include "render/flow_print.h"
#include "render/profile_print.h"
#include "analyze/profile.h"
#include "tests/common/mem_sink.h"

struct prof_mem {
    struct fwpt_profile p;
    uint64_t *mod_insns;
    struct fwpt_profile_func *funcs;
    struct fwpt_profile_node *nodes;
    uint32_t *hash;
    size_t nmods; /* mod_insns has room for nmods modules */
};

/* fwpt_profile_init over mods with nf functions, nn call-tree nodes and nh hash slots; the tables are
 * allocated on the first call (m zeroed) and kept for the next ones, with room for nmods modules (grown
 * when a later call has more). */
static inline void prof_mem_init(struct prof_mem *m, struct fwpt_modules *mods, size_t nmods, size_t nf, size_t nn,
                                 size_t nh)
{
    if (!m->mod_insns || nmods > m->nmods) {
        free(m->mod_insns);
        m->mod_insns = calloc(nmods + 1, sizeof *m->mod_insns);
        m->nmods = nmods;
    }
    if (!m->funcs) {
        m->funcs = malloc(nf * sizeof *m->funcs);
        m->nodes = malloc(nn * sizeof *m->nodes);
        m->hash = malloc(nh * sizeof *m->hash);
    }
    fwpt_profile_init(&m->p, mods, m->mod_insns, m->funcs, nf, m->nodes, nn, m->hash, nh);
}
static inline void prof_mem_free(struct prof_mem *m)
{
    free(m->mod_insns);
    free(m->funcs);
    free(m->nodes);
    free(m->hash);
}

/* The profile (top_n functions), call tree (to max_depth) and folded stacks of *p into *m. */
static inline void prof_text(struct fwpt_profile *p, struct fwpt_modules *mods, size_t top_n, uint32_t max_depth,
                             struct mem *m)
{
    struct fwpt_sink o = {mem_write, m};
    struct fwpt_names names = {mods, NULL, 0, NULL};
    fwpt_profile_print(p, NULL, &o, top_n);
    fwpt_profile_calltree_print(p, NULL, &o, max_depth);
    fwpt_flame_folded_write(p, &names, &o);
}

#endif
