/* libFuzzer: the coverage decoder kept warm (include/fwpt/coverage.h) on mutated traces and code (input layout of
 * fuzz_flow: u16 code length, u64 load address, code, trace; short inputs are both code at 0x1000 and trace). The
 * trace is cut in two at a place the input's last byte picks: A, then B, then A again through one decoder (small
 * caches: paths evicted and rebuilt across traces) must give, each, what a fresh decoder gives for it -- the bitmap,
 * every edge and its count, the instructions, the errors and the bytes they skipped. No crash, no hang. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/coverage.h"
#include "analyze/parallel_host.h"
#include "decode/flow.h"
#include "tests/common/code_image.h"

#define RUNAWAY 2000 /* keeps long but valid walks short under ASan (as fuzz_flow) */
#define COV (1u << 10)
#define NBLOCKS 256
#define NPATHS 64

struct out {
    enum fwpt_status st;
    struct fwpt_cov_result r;
    uint8_t map[COV];
    uint64_t errs; /* the errors' status, ip, offset mixed in order */
    struct fwpt_edge *edges;
    size_t nedges;
};

static void on_error(void *ctx, const struct fwpt_flow_event *ev)
{
    uint64_t *h = ctx;
    *h = (*h * 0x100000001b3ull) ^ ev->status ^ ev->ip * 3 ^ ev->offset * 7;
}

static void decode(struct fwpt_cov *c, uint8_t *map, const uint8_t *t, size_t n, struct out *o)
{
    memset(o, 0, sizeof *o);
    memset(map, 0, COV);
    struct fwpt_edges e;
    if (fwpt_edges_init(&e, NULL, 0, &fwpt_parallel_resize) != FWPT_OK)
        abort();
    fwpt_cov_set_edges(c, &e);
    fwpt_cov_set_error_fn(c, on_error, &o->errs);
    o->st = fwpt_cov_decode(c, t, n, &o->r);
    if (o->st != FWPT_OK && o->st != FWPT_E_NOSYNC)
        abort(); /* a decoder bug */
    memcpy(o->map, map, COV);
    o->edges = malloc((e.n + 1) * sizeof *o->edges);
    fwpt_edges_sorted(&e, o->edges);
    o->nedges = e.n;
    fwpt_edges_free(&e);
}

static struct fwpt_cov *new_cov(struct code_image *im, uint8_t *map, int setup)
{
    static const struct fwpt_errata all = {true, true, true, true, true, true, true, true, true, true};
    struct fwpt_cov *c = malloc(fwpt_cov_size(NBLOCKS, NPATHS));
    if (!c || fwpt_cov_init(c, NBLOCKS, NPATHS, code_image_read, im, map, COV) != FWPT_OK)
        abort();
    fwpt_flow_set_runaway_limit(fwpt_cov_flow(c), RUNAWAY);
    if (setup & 2) {
        /* every workaround on and a filter range from the input (as fuzz_flow), kept for every trace */
        const uint64_t range[1][2] = {{im->base, im->base + (uint64_t)(setup & 0xfff)}};
        fwpt_flow_set_errata(fwpt_cov_flow(c), &all);
        fwpt_flow_set_filter(fwpt_cov_flow(c), range, 1);
    }
    return c;
}

static void same(const struct out *a, const struct out *b, const char *what)
{
    if (a->st != b->st || a->r.insns != b->r.insns || a->r.errors != b->r.errors ||
        a->r.bytes_skipped != b->r.bytes_skipped || a->errs != b->errs || memcmp(a->map, b->map, COV) ||
        a->nedges != b->nedges || (a->nedges && memcmp(a->edges, b->edges, a->nedges * sizeof *a->edges))) {
        fprintf(stderr, "%s: warm %llu insns %llu errors %zu edges, fresh %llu insns %llu errors %zu edges\n", what,
                (unsigned long long)a->r.insns, (unsigned long long)a->r.errors, a->nedges,
                (unsigned long long)b->r.insns, (unsigned long long)b->r.errors, b->nedges);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct code_image im;
    const uint8_t *trace;
    size_t tlen;
    code_image_from_input(&im, &trace, &tlen, data, size, 0);
    const size_t cut = size ? tlen * data[size - 1] / 256 : 0;
    const uint8_t *part[3] = {trace, trace + cut, trace};
    const size_t len[3] = {cut, tlen - cut, cut};
    static uint8_t wmap[COV], fmap[COV];
    struct fwpt_cov *warm = new_cov(&im, wmap, (int)size);
    for (int k = 0; k < 3; k++) {
        struct out w, f;
        decode(warm, wmap, part[k], len[k], &w);
        struct fwpt_cov *fresh = new_cov(&im, fmap, (int)size);
        decode(fresh, fmap, part[k], len[k], &f);
        same(&w, &f, k == 1 ? "B after A" : k ? "A after B" : "A");
        free(w.edges);
        free(f.edges);
        free(fresh);
    }
    free(warm);
    return 0;
}
