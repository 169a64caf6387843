/* fwpt — the summary walk (see summary.h), on decode/flow's block step. */
#include "analyze/summary.h"

#define MIXED FWPT_FLOW_REGION_MIXED /* a block's instructions lie in more than one module */
#define BATCH 64                     /* records per block step */

static uint32_t block_region(void *ctx, uint64_t ip, const struct fwpt_flow_block *b);
static void path_evict(void *ctx, struct fwpt_flow_chain *p, struct fwpt_flow_chain_cold *cold);

void fwpt_summary_init(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_flow_chain *paths, size_t npaths,
                       struct fwpt_flow_chain_cold *cold)
{
    fwpt_memset(s, 0, sizeof *s);
    s->f = f;
    s->counting = 1;
    s->stop_at = FWPT_SUM_NO_STOP;
    if (paths && cold && npaths && !(npaths & (npaths - 1)))
        fwpt_flow_chains_init(&s->chains, paths, cold, npaths);
}

void fwpt_summary_reuse(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_flow_chain *paths, size_t npaths,
                        struct fwpt_flow_chain_cold *cold, uint32_t gen)
{
    fwpt_summary_init(s, f, NULL, 0, NULL);
    if (paths && cold && npaths && !(npaths & (npaths - 1))) {
        s->chains.v = paths;
        s->chains.cold = cold;
        s->chains.mask = npaths - 1;
    }
    s->gen = gen;
}

void fwpt_summary_configure(struct fwpt_sum *s)
{
    /* a path counts all its instructions in one module: right when modules do not overlap (then the module
     * of an IP is one, whichever fwpt_image_module_find's cache holds) */
    s->paths_ok = s->chains.v && s->chains.cold;
    const struct fwpt_modules *m = s->mods;
    for (size_t i = 0; m && i < m->n && s->paths_ok; i++)
        for (size_t j = i + 1; j < m->n; j++)
            if (m->v[j].base - m->v[i].base < m->v[i].size || m->v[i].base - m->v[j].base < m->v[j].size)
                s->paths_ok = 0; /* one starts inside the other (fwpt_image_module_find's test) */
    s->chains.region = block_region;
    s->chains.evict = path_evict;
    s->chains.ctx = s;
}

/* ---- what is counted ---- */

static inline void edge(struct fwpt_sum *s, uint64_t from, uint64_t to, uint64_t n)
{
    if (s->edges)
        fwpt_edges_add(s->edges, from, to, n);
    if (s->cov)
        s->cov[fwpt_cov_index(from, to, s->cov_mask)] += (uint8_t)n;
}

/* The walk got to 'to': the edge waiting for its destination counts. */
static inline void arrive(struct fwpt_sum *s, uint64_t to)
{
    if (s->edge_pending) {
        s->edge_pending = 0;
        edge(s, s->edge_from, to, 1);
    }
}

static inline size_t nmods(const struct fwpt_sum *s) { return s->mods ? s->mods->n : 0; }

/* The module of the instructions from ip to last (fwpt_image_module_find's index, nmods for none), or MIXED.
 * Exact for overlapping modules too: what fwpt_image_module_find gives each of them one after the other. */
static inline uint32_t region_fast(struct fwpt_sum *s, uint64_t ip, uint64_t last)
{
    struct fwpt_modules *m = s->mods;
    if (!m || !m->n)
        return 0;
    const struct fwpt_module *v = &m->v[m->last < m->n ? m->last : 0];
    if (ip - v->base < v->size && last - v->base < v->size)
        return (uint32_t)(m->last < m->n ? m->last : 0);
    return MIXED;
}

/* n instructions from ip of the given sizes; the last of class cls. */
static void count_insns(struct fwpt_sum *s, uint64_t ip, const uint8_t *sizes, uint32_t n, uint8_t cls)
{
    uint64_t end = ip;
    for (uint32_t k = 0; k < n; k++)
        end += sizes[k];
    uint64_t last = end - sizes[n - 1];
    arrive(s, ip);
    s->blocks++;
    if (s->prof) {
        uint32_t r = region_fast(s, ip, last);
        if (r != MIXED) {
            fwpt_sumprof_run(s->prof, ip, n, r, cls, end);
        } else {
            /* a module boundary (or no module): each instruction's module, as fwpt_profile_add finds it */
            uint64_t a = ip;
            for (uint32_t k = 0; k < n; k++) {
                size_t mi;
                fwpt_image_module_find(s->mods, a, &mi);
                fwpt_sumprof_run(s->prof, a, 1, mi, k + 1 == n ? cls : FWPT_IC_OTHER, a + sizes[k]);
                a += sizes[k];
            }
        }
    }
    if (fwpt_edge_class(cls)) {
        s->edge_pending = 1;
        s->edge_from = last;
    }
}

static void count_event(struct fwpt_sum *s, const struct fwpt_flow_event *ev)
{
    if (ev->kind == FWPT_FLOW_ERROR)
        s->errors++;
    if (s->on_event)
        s->on_event(s->ev_ctx, ev);
    if (s->prof)
        fwpt_sumprof_event(s->prof, ev);
    switch (ev->kind) {
    case FWPT_FLOW_INTERRUPT:
        arrive(s, ev->ip); /* the event is taken where the walk got to */
        s->edge_pending = 1;
        s->edge_from = ev->ip;
        break;
    case FWPT_FLOW_ENABLED: case FWPT_FLOW_DISABLED: case FWPT_FLOW_OVERFLOW: case FWPT_FLOW_ERROR:
        s->edge_pending = 0; /* the walk does not go on from there */
        break;
    default:
        break;
    }
}

/* Path p has uses to flush now: noted in the list of such paths (dirty), when the caller gave one. */
static inline void mark_used(struct fwpt_sum *s, const struct fwpt_flow_chain *p)
{
    if (!s->dirty)
        return;
    if (s->ndirty < s->dirty_cap)
        s->dirty[s->ndirty] = (uint32_t)(p - s->chains.v);
    s->ndirty++; /* past dirty_cap (a path rebuilt and used again, listed twice): the flush goes over them all */
}

/* The inner edges of path p (walked p->uses times since) into edges and cov. */
static void path_flush(struct fwpt_sum *s, struct fwpt_flow_chain *p, const struct fwpt_flow_chain_cold *cold)
{
    if (p->uses) {
        const struct fwpt_flow_chain_edge *e = cold->edges;
        for (uint32_t k = 0; k < p->nedges; k++)
            edge(s, e[k].from, e[k].to, p->uses);
    }
    p->uses = 0;
}

/* decode/flow builds entry p anew: its walks not counted yet count now. */
static void path_evict(void *ctx, struct fwpt_flow_chain *p, struct fwpt_flow_chain_cold *cold)
{
    path_flush(ctx, p, cold);
}

void fwpt_summary_flush(struct fwpt_sum *s)
{
    if (s->dirty && s->ndirty <= s->dirty_cap) {
        for (size_t k = 0; k < s->ndirty; k++)
            path_flush(s, &s->chains.v[s->dirty[k]], &s->chains.cold[s->dirty[k]]);
    } else {
        for (size_t i = 0; s->chains.v && i <= s->chains.mask; i++)
            if (s->chains.v[i].uses) /* most are 0: no call for them */
                path_flush(s, &s->chains.v[i], &s->chains.cold[i]);
    }
    s->ndirty = 0;
    s->path_hits = s->chains.hits;
    s->path_misses = s->chains.misses;
}

/* ---- the path cache ---- */

/* The region (module) of the cached block b at ip for a chain, or MIXED (decode/flow's chains' region). */
static uint32_t block_region(void *ctx, uint64_t ip, const struct fwpt_flow_block *b)
{
    struct fwpt_sum *s = ctx;
    uint64_t last = ip + b->nbytes - b->sizes[b->ninsn - 1];
    uint32_t r = region_fast(s, ip, last);
    if (r != MIXED || !s->mods)
        return r;
    size_t mi, mj;
    fwpt_image_module_find(s->mods, ip, &mi);
    uint64_t a = ip;
    for (uint32_t k = 0; k < b->ninsn; a += b->sizes[k++]) {
        fwpt_image_module_find(s->mods, a, &mj);
        if (mj != mi)
            return MIXED;
    }
    return (uint32_t)mi;
}

/* The calls and returns inside path p on the profile's frames, between its instructions (decode/flow took them on
 * RET compression's stack). A call's node hint: user[0] the frame it was entered from, user[1] the node,
 * user[2] the walk (gen + 1: 0 is an entry built since). */
static void path_ops(struct fwpt_sum *s, const struct fwpt_flow_chain *p, struct fwpt_flow_chain_cold *cold)
{
    struct fwpt_flow_chain_op *o = cold->ops;
    struct fwpt_sumprof *sp = s->prof;
    uint32_t counted = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        fwpt_sumprof_run(sp, p->ip, o[i].n, p->region, FWPT_IC_OTHER, 0);
        counted += o[i].n;
        if (o[i].call) {
            if (!sp->direct && sp->cur == o[i].user[0] && o[i].user[2] == s->gen + 1) {
                fwpt_sumprof_enter_node(sp, o[i].user[1]);
            } else {
                o[i].user[0] = sp->cur;
                o[i].user[2] = s->gen + 1;
                o[i].user[1] = fwpt_sumprof_enter(sp, o[i].entry);
            }
        } else {
            fwpt_sumprof_leave(sp);
        }
    }
    fwpt_sumprof_run(sp, p->ip, p->ninsn - counted, p->region, p->pending ? p->cls : FWPT_IC_OTHER, p->next);
}

/* A path the walk took: its instructions, its calls and returns, its edges (inner ones counted lazily: uses). prof,
 * edges: the summary's, in registers. */
static inline __attribute__((always_inline)) void count_path(struct fwpt_sum *s, struct fwpt_sumprof *prof,
                                                             struct fwpt_flow_chain *p, bool edges)
{
    if (edges) {
        arrive(s, p->ip);
        if (!p->uses++)
            mark_used(s, p);
        if (p->pending ? fwpt_edge_class(p->cls) : p->edge) {
            s->edge_pending = 1;
            s->edge_from = p->last_ip;
        }
    }
    if (!prof)
        return;
    if (p->nops)
        path_ops(s, p, &s->chains.cold[p - s->chains.v]);
    else
        fwpt_sumprof_run(prof, p->ip, p->ninsn, p->region, p->pending ? p->cls : FWPT_IC_OTHER, p->next);
}

/* The records of one block step into the bitmap alone (no profile, no edge table): count_insns and count_path with
 * the bitmap, its mask and the edge that waits in registers (a store through the bitmap's uint8_t pointer may alias
 * anything, so the general counts read them from *s again after each one). */
static void count_cov(struct fwpt_sum *s, const struct fwpt_flow_blk *v, uint32_t n)
{
    uint8_t *const map = s->cov;
    const size_t mask = s->cov_mask;
    bool pending = s->edge_pending;
    uint64_t from = s->edge_from;
    for (uint32_t i = 0; i < n; i++) {
        struct fwpt_flow_chain *const p = v[i].chain;
        const uint64_t ip = v[i].ip;
        if (pending)
            map[fwpt_cov_index(from, ip, mask)]++;
        if (p) {
            if (!p->uses++) /* its inner edges: counted when it is flushed */
                mark_used(s, p);
            pending = p->pending ? fwpt_edge_class(p->cls) : p->edge;
            from = p->last_ip;
        } else {
            const uint8_t *sz = v[i].sizes;
            uint64_t last = ip;
            for (uint32_t k = 0; k + 1 < v[i].ninsn; k++)
                last += sz[k];
            pending = fwpt_edge_class(v[i].iclass);
            from = last;
        }
    }
    s->edge_pending = pending;
    s->edge_from = from;
    s->blocks += n;
}

/* ---- the walk ---- */

enum fwpt_status fwpt_summary_walk(struct fwpt_sum *s)
{
    struct fwpt_flow *f = s->f;
    struct fwpt_flow_blk v[BATCH];
    struct fwpt_flow_blocks q = {v, BATCH, 0, s->paths_ok ? &s->chains : NULL, s->stop_at, 0};
    struct fwpt_flow_event ev;
    struct fwpt_sumprof *const prof = s->prof;
    const bool edges = s->edges || s->cov; /* the edge that waits, the paths' inner edges */
    s->stopped = 0;
    for (;;) {
        if (prof && fwpt_sumprof_spill_due(prof))
            (void)fwpt_sumprof_spill(prof); /* between two counts; a failure leaves the tree, failed set */
        const enum fwpt_status st = fwpt_flow_next_blocks(f, &q, &ev);
        if (st != FWPT_OK)
            return st;
        if (q.stopped) {
            s->stopped = 1;
            return FWPT_OK;
        }
        if (!s->counting)
            continue;
        if (!q.n) {
            count_event(s, &ev);
            continue;
        }
        if (!prof && !edges) {
            s->blocks += q.n; /* nothing else to count */
            continue;
        }
        if (!prof && !s->edges) {
            count_cov(s, v, q.n);
            continue;
        }
        uint64_t paths = 0;
        for (uint32_t i = 0; i < q.n; i++) {
            if (v[i].chain) {
                count_path(s, prof, v[i].chain, edges);
                paths++;
            } else {
                count_insns(s, v[i].ip, v[i].sizes, v[i].ninsn, v[i].iclass);
            }
        }
        s->blocks += paths;
    }
}

void fwpt_summary_count_from_here(struct fwpt_sum *s)
{
    uint8_t cls;
    uint64_t last_ip, next_ip;
    const bool pending = fwpt_flow_block_end(s->f, &cls, &last_ip, &next_ip);
    s->counting = 1;
    s->edge_pending = pending && fwpt_edge_class(cls);
    s->edge_from = last_ip;
    if (s->prof)
        fwpt_sumprof_resume(s->prof, pending ? cls : FWPT_IC_OTHER, next_ip);
}
