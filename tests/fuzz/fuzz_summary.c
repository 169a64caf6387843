/* libFuzzer: the summary walk (analyze/summary, sumprof, edges) and its parallel form (analyze/parallel_host)
 * against the per-instruction path on mutated traces and code (input layout of fuzz_flow: u16 code length,
 * u64 load address, code, trace; short inputs are both code at 0x1000 and trace). The profile, call tree,
 * folded stacks, errors, edges and bitmap must be the same bytes as fwpt_profile_add and the edge rule give
 * over fwpt_flow_next; no crash, no hang. Seeds: `test_flow_libipt --write-corpus DIR N` (as fuzz_flow). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/flame.h"
#include "decode/flow.h"
#include "render/flow_print.h"
#include "analyze/parallel_host.h"
#include "tests/common/code_image.h"
#include "tests/common/mem_sink.h"
#include "tests/common/prof_mem.h"

#define RUNAWAY 2000 /* keeps long but valid walks short under ASan (as fuzz_flow) */
#define COV (1u << 10)


struct tables {
    uint64_t mod_insns[3];
    struct fwpt_profile_func funcs[64];
    struct fwpt_profile_node nodes[128];
    uint32_t hash[256];
};

static void profile_text(struct fwpt_profile *p, struct fwpt_modules *mods, struct mem *m)
{
    prof_text(p, mods, 64, 300, m);
    fwpt_printf(&(struct fwpt_sink){mem_write, m}, "%lu %lu %lu %u\n", (unsigned long)p->insns,
                (unsigned long)p->events, (unsigned long)p->dropped, p->depth);
}

static void error_text(struct mem *m, const struct fwpt_flow_event *ev)
{
    fwpt_printf(&(struct fwpt_sink){mem_write, m}, "%u %lx %lu\n", ev->status, (unsigned long)ev->ip,
                (unsigned long)ev->offset);
}

static void edges_text(const struct fwpt_edges *e, struct mem *m)
{
    struct fwpt_edge *v = malloc((e->n + 1) * sizeof *v);
    fwpt_edges_sorted(e, v);
    for (size_t i = 0; i < e->n; i++)
        fwpt_printf(&(struct fwpt_sink){mem_write, m}, "%lx %lx %lu\n", (unsigned long)v[i].from,
                    (unsigned long)v[i].to, (unsigned long)v[i].count);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct code_image im;
    const uint8_t *trace;
    size_t tlen;
    code_image_from_input(&im, &trace, &tlen, data, size, 0);
    /* two modules over the code: instructions on both sides of the boundary, and none past it */
    struct fwpt_module mv[2] = {{"A", im.base, im.size / 2}, {"B", im.base + im.size / 2, im.size / 4 + 1}};
    struct fwpt_modules mods = {mv, 2, 0};
    struct fwpt_errata all = {true, true, true, true, true, true, true, true, true, true};

    /* the per-instruction path */
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[256];
    static struct tables ta, tb;
    struct fwpt_profile pa, pb;
    fwpt_profile_init(&pa, &mods, ta.mod_insns, ta.funcs, 64, ta.nodes, 128, ta.hash, 256);
    fwpt_profile_init(&pb, &mods, tb.mod_insns, tb.funcs, 64, tb.nodes, 128, tb.hash, 256);
    if (fwpt_flow_init(&f, trace, tlen, code_image_read, &im, cache, 256) == FWPT_E_INVAL)
        abort(); /* E_NOSYNC: an input without PSB, its flow at the end at once */
    fwpt_flow_set_runaway_limit(&f, RUNAWAY);
    const uint64_t range[1][2] = {{im.base, im.base + (size & 0xfff)}};
    if (size & 2) {
        /* every workaround on and a filter range from the input (as fuzz_flow) */
        fwpt_flow_set_errata(&f, &all);
        fwpt_flow_set_filter(&f, range, 1);
    }
    struct fwpt_edges ea;
    if (fwpt_edges_init(&ea, NULL, 0, &fwpt_parallel_resize) != FWPT_OK)
        abort();
    static uint8_t cov[COV];
    memset(cov, 0, sizeof cov);
    struct fwpt_edge_walk ew = {0, false};
    struct mem a = {0}, b = {0};
    struct fwpt_flow_event ev;
    unsigned long n = 0;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        fwpt_profile_add(&pa, &ev);
        uint64_t from, to;
        if (fwpt_edge_step(&ew, &ev, &from, &to)) {
            fwpt_edges_add(&ea, from, to, 1);
            cov[fwpt_cov_index(from, to, COV - 1)]++;
        }
        if (ev.kind == FWPT_FLOW_ERROR)
            error_text(&a, &ev);
        if (++n > (tlen + 2) * (RUNAWAY + FWPT_FLOW_BLOCK_INSNS + 16))
            abort(); /* no progress */
    }
    profile_text(&pa, &mods, &a);
    edges_text(&ea, &a);
    fwpt_printf(&(struct fwpt_sink){mem_write, &a}, "skipped %lu\n", (unsigned long)fwpt_flow_bytes_skipped(&f));

    /* the summary walk: one thread, or pieces from one PSB on (inputs with bit 2 set) */
    struct fwpt_par_setup s = {.trace = trace, .len = tlen, .read = code_image_read, .read_ctx = &im,
                               .errata = (size & 2) ? &all : NULL, .filter = range, .n_filter = (size & 2) ? 1 : 0,
                               .runaway_limit = RUNAWAY, .mods = &mods, .block_cache = 256, .path_cache = 64,
                               .jobs = (size & 4) ? 2 : 1, .piece_bytes = 1, .profile = true, .edges = true,
                               .cov_size = COV};
    struct fwpt_parallel_out out;
    if (fwpt_parallel_run(&s, &pb, &out) != FWPT_OK)
        abort();
    for (size_t i = 0; i < out.nerrors; i++)
        error_text(&b, &out.errors[i]);
    profile_text(&pb, &mods, &b);
    edges_text(&out.edges, &b);
    fwpt_printf(&(struct fwpt_sink){mem_write, &b}, "skipped %lu\n", (unsigned long)out.bytes_skipped);
    if (a.n != b.n || memcmp(a.p, b.p, a.n) || memcmp(cov, out.cov, COV)) {
        fprintf(stderr, "per-instruction:\n%s\nsummary:\n%s\n", a.p, b.p);
        abort();
    }
    fwpt_parallel_out_free(&out);
    fwpt_edges_free(&ea);
    free(a.p);
    free(b.p);
    return 0;
}
