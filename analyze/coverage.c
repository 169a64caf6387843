/* fwpt — the coverage decoder (include/fwpt/coverage.h): the summary walk (analyze/summary.h) counting into a
 * bitmap only, over caches kept from one trace to the next. One block of the caller's memory holds the state, the
 * flow decoder, the block cache and the path cache. */
#include "analyze/coverage.h"
#include "base/text.h"

struct fwpt_cov {
    struct fwpt_flow *f;
    struct fwpt_flow_block *blocks;
    struct fwpt_flow_chain *paths;
    struct fwpt_flow_chain_cold *cold;
    uint32_t *dirty; /* the paths used by a decode (fwpt_sum's dirty) */
    size_t nblocks, npaths;
    uint8_t *map;
    size_t map_mask;
    struct fwpt_edges *edges;
    void (*on_error)(void *ctx, const struct fwpt_flow_event *ev);
    void *err_ctx;
    uint32_t gen;
    struct fwpt_sum sum;
};

#define ALIGN 64 /* a path cache entry is one cache line */
static size_t up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }
static bool pow2(size_t n) { return n && !(n & (n - 1)); }

size_t fwpt_cov_size(size_t nblocks, size_t npaths)
{
    if (!pow2(nblocks) || (npaths && !pow2(npaths)))
        return 0;
    return ALIGN + up(sizeof(struct fwpt_cov)) + up(fwpt_flow_size()) + up(nblocks * sizeof(struct fwpt_flow_block)) +
           npaths * (sizeof(struct fwpt_flow_chain) + sizeof(struct fwpt_flow_chain_cold) + sizeof(uint32_t));
}

enum fwpt_status fwpt_cov_init(struct fwpt_cov *c, size_t nblocks, size_t npaths, fwpt_flow_read_fn read,
                               void *read_ctx, uint8_t *map, size_t map_size)
{
    if (!c || !fwpt_cov_size(nblocks, npaths) || !map || !pow2(map_size))
        return FWPT_E_INVAL;
    /* the tables after the state, each on a cache line of its own (c as malloc aligns it) */
    uint8_t *p = (uint8_t *)(((uintptr_t)c + sizeof *c + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    fwpt_memset(c, 0, sizeof *c);
    c->f = (struct fwpt_flow *)p;
    p += up(fwpt_flow_size());
    c->blocks = (struct fwpt_flow_block *)p;
    p += up(nblocks * sizeof(struct fwpt_flow_block));
    c->paths = npaths ? (struct fwpt_flow_chain *)p : NULL;
    p += npaths * sizeof(struct fwpt_flow_chain);
    c->cold = npaths ? (struct fwpt_flow_chain_cold *)p : NULL;
    p += npaths * sizeof(struct fwpt_flow_chain_cold);
    c->dirty = npaths ? (uint32_t *)p : NULL;
    c->nblocks = nblocks;
    c->npaths = npaths;
    c->map = map;
    c->map_mask = map_size - 1;
    /* the decoder over no trace yet (its reads give the end) with the caches emptied */
    (void)fwpt_flow_init(c->f, NULL, 0, read, read_ctx, c->blocks, nblocks);
    fwpt_cov_forget(c);
    return FWPT_OK;
}

struct fwpt_flow *fwpt_cov_flow(struct fwpt_cov *c) { return c->f; }

void fwpt_cov_set_reader(struct fwpt_cov *c, fwpt_flow_read_fn read, void *read_ctx)
{
    /* fwpt_flow_reset_trace keeps the reader: set it on a decoder over no trace, caches and settings kept */
    fwpt_flow_set_reader(c->f, read, read_ctx);
}

void fwpt_cov_set_error_fn(struct fwpt_cov *c, void (*fn)(void *ctx, const struct fwpt_flow_event *ev), void *ctx)
{
    c->on_error = fn;
    c->err_ctx = ctx;
}

void fwpt_cov_set_edges(struct fwpt_cov *c, struct fwpt_edges *e) { c->edges = e; }

const struct fwpt_sum *fwpt_cov_walk(const struct fwpt_cov *c) { return &c->sum; }

void fwpt_cov_forget(struct fwpt_cov *c)
{
    fwpt_flow_cache_reset(c->f);
    if (c->paths)
        fwpt_flow_chains_init(&c->sum.chains, c->paths, c->cold, c->npaths);
    c->gen = 0;
}

static void on_event(void *ctx, const struct fwpt_flow_event *ev)
{
    struct fwpt_cov *c = ctx;
    if (ev->kind == FWPT_FLOW_ERROR && c->on_error)
        c->on_error(c->err_ctx, ev);
}

enum fwpt_status fwpt_cov_decode(struct fwpt_cov *c, const uint8_t *trace, size_t len, struct fwpt_cov_result *r)
{
    if (r)
        fwpt_memset(r, 0, sizeof *r);
    const enum fwpt_status sync = fwpt_flow_reset_trace(c->f, trace, len);
    if (sync != FWPT_OK)
        return sync;
    /* the per-trace state anew (the edge waiting, statistics), the paths as the last decode flushed them */
    struct fwpt_sum *s = &c->sum;
    fwpt_summary_reuse(s, c->f, c->paths, c->npaths, c->cold, ++c->gen);
    s->cov = c->map;
    s->cov_mask = c->map_mask;
    s->edges = c->edges;
    s->on_event = on_event;
    s->ev_ctx = c;
    s->dirty = c->dirty; /* the flush goes over the paths this decode used, not the whole cache */
    s->dirty_cap = c->npaths;
    fwpt_summary_configure(s);
    enum fwpt_status st;
    while ((st = fwpt_summary_walk(s)) == FWPT_OK)
        ;
    fwpt_summary_flush(s); /* the paths' inner edges into the bitmap: the next trace starts with none waiting */
    if (r) {
        r->insns = fwpt_flow_insns(c->f);
        r->errors = s->errors;
        r->bytes_skipped = fwpt_flow_bytes_skipped(c->f);
    }
    return st == FWPT_E_EOS ? FWPT_OK : st;
}
