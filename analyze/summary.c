/* fwpt — the summary walk (see summary.h). */
#include "analyze/summary.h"
#include "decode/flow_internal.h"

#define MIXED 0xffffffffu /* a block's instructions lie in more than one module */
#define PATH_WINDOW 256   /* path lookups between two looks at how often they missed */
#define PATH_REST 4096    /* block starts walked without paths after a window with too many misses */

static inline bool is_tnt(uint8_t t) { return t == FWPT_PKT_TNT_8 || t == FWPT_PKT_TNT_64; }

/* Classes that take a TIP (SDM "COFI"): indirect near and every far transfer. */
static inline bool takes_tip(uint8_t c)
{
    return c == FWPT_IC_JMP_IND || c == FWPT_IC_CALL_IND || (c >= FWPT_IC_FAR_JMP && c <= FWPT_IC_VMENTRY);
}

void fwpt_summary_init(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_sum_path *paths, size_t npaths,
                   struct fwpt_sum_cold *cold)
{
    fwpt_memset(s, 0, sizeof *s);
    s->f = f;
    s->counting = 1;
    s->stop_at = FWPT_SUM_NO_STOP;
    if (paths && cold && npaths && !(npaths & (npaths - 1))) {
        s->paths = paths;
        s->paths_mask = npaths - 1;
        s->cold = cold;
        for (size_t i = 0; i < npaths; i++) {
            paths[i].ip = FWPT_FLOW_NO_IP;
            paths[i].uses = 0;
        }
    }
}

void fwpt_summary_reuse(struct fwpt_sum *s, struct fwpt_flow *f, struct fwpt_sum_path *paths, size_t npaths,
                    struct fwpt_sum_cold *cold, uint32_t gen)
{
    fwpt_summary_init(s, f, NULL, 0, NULL);
    if (paths && cold && npaths && !(npaths & (npaths - 1))) {
        s->paths = paths;
        s->paths_mask = npaths - 1;
        s->cold = cold;
    }
    s->gen = gen;
}

void fwpt_summary_configure(struct fwpt_sum *s)
{
    /* a path counts all its instructions in one module: right when modules do not overlap (then the module
     * of an IP is one, whichever fwpt_image_module_find's cache holds) */
    s->paths_ok = s->paths && s->cold;
    const struct fwpt_modules *m = s->mods;
    for (size_t i = 0; m && i < m->n && s->paths_ok; i++)
        for (size_t j = i + 1; j < m->n; j++)
            if (m->v[j].base - m->v[i].base < m->v[i].size || m->v[i].base - m->v[j].base < m->v[j].size)
                s->paths_ok = 0; /* one starts inside the other (fwpt_image_module_find's test) */
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

/* The inner edges of path p (walked p->uses times since) into edges and cov. */
static void path_flush(struct fwpt_sum *s, struct fwpt_sum_path *p)
{
    if (p->uses && s->cold) {
        const struct fwpt_sum_edge *e = s->cold[p - s->paths].edges;
        for (uint32_t k = 0; k < p->nedges; k++)
            edge(s, e[k].from, e[k].to, p->uses);
    }
    p->uses = 0;
}

void fwpt_summary_flush(struct fwpt_sum *s)
{
    for (size_t i = 0; s->paths && i <= s->paths_mask; i++)
        path_flush(s, &s->paths[i]);
}

/* ---- the path cache ---- */

static inline size_t path_slot(uint64_t ip, uint32_t key)
{
    uint64_t x = (ip ^ (uint64_t)key << 40) * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 40);
}

/* The region of the block at ip (cached b) for a path, or MIXED. */
static uint32_t block_region(struct fwpt_sum *s, uint64_t ip, const struct fwpt_flow_block *b)
{
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

/* Can a path go on into the block at ip (cached, in its module)? Its region in *r. */
static bool path_can_take(struct fwpt_sum *s, uint64_t ip, uint32_t nb, uint32_t region, uint32_t *r)
{
    const struct fwpt_flow *f = s->f;
    const struct fwpt_flow_block *b = &f->cache[FWPT_FLOW_SLOT(ip) & f->cache_mask];
    if (nb == FWPT_SUM_PATH_BLOCKS || b->ip != ip || b->mode != f->mode)
        return false;
    *r = block_region(s, ip, b);
    return *r != MIXED && (!nb || *r == region);
}

/* Follows the cached blocks from ip with the k oldest of bits (see struct fwpt_sum_path) into p; false when
 * not even the first block can be taken. Only reads flow's cache: no packet, no change to the walk. */
static bool path_build(struct fwpt_sum *s, struct fwpt_sum_path *p, uint64_t ip, uint32_t k, uint64_t bits,
                       uint64_t top)
{
    const struct fwpt_flow *f = s->f;
    struct fwpt_sum_cold *cold = s->cold ? &s->cold[p - s->paths] : NULL;
    uint64_t cur = ip, from = 0, rets[FWPT_SUM_PATH_CALLS], ret_to = 0;
    uint32_t used = 0, n = 0, seg = 0, tail = 0, nb = 0, ne = 0, nops = 0, nrets = 0, region = 0;
    bool edge_wait = false;
    path_flush(s, p);
    p->ip = FWPT_FLOW_NO_IP;
    p->pending = 0;
    p->miss = 0;
    for (;;) {
        const struct fwpt_flow_block *b = &f->cache[FWPT_FLOW_SLOT(cur) & f->cache_mask];
        uint32_t r;
        if (!path_can_take(s, cur, nb, region, &r)) {
            p->miss = nb < FWPT_SUM_PATH_BLOCKS && (b->ip != cur || b->mode != f->mode);
            break;
        }
        region = r;
        if (edge_wait) {
            if (cold)
                cold->edges[ne] = (struct fwpt_sum_edge){from, cur};
            ne++;
            edge_wait = false;
        }
        nb++;
        n += b->ninsn;
        seg += b->ninsn;
        tail += b->ninsn;
        const uint64_t nx = cur + b->nbytes, last = nx - b->sizes[b->ninsn - 1];
        const uint8_t c = b->iclass;
        const bool zero_call = c == FWPT_IC_CALL_REL && (b->flags & FWPT_FLOW_BF_ZERO_LEN_CALL);
        if (c == FWPT_IC_OTHER) {
            cur = nx;
            continue;
        }
        if (c == FWPT_IC_JMP_REL || zero_call) {
            /* a zero-length call pushes nothing and enters nothing (it lands on its next IP) */
            from = last;
            edge_wait = true;
            cur = b->target;
            continue;
        }
        if (c == FWPT_IC_CALL_REL && cold && nops < FWPT_SUM_PATH_CALLS && path_can_take(s, b->target, nb, region, &r)) {
            /* a direct call whose first block the path holds: the profile enters it there */
            cold->ops[nops++] = (struct fwpt_sum_op){b->target, nx, seg, 1, FWPT_SUMPROF_NONE, 0, 0};
            seg = 0;
            rets[nrets++] = nx;
            from = last;
            edge_wait = true;
            cur = b->target;
            continue;
        }
        /* a compressed RET (its bit 1): returning from a call inside the path, to that call's next IP; or the
         * first from a call made before it, to the stack's top (0: none, or empty) */
        const bool ret = c == FWPT_IC_RET && used < k && ((bits >> used) & 1) && cold && nops < FWPT_SUM_PATH_CALLS &&
                         (nrets || (top && !ret_to));
        if ((c == FWPT_IC_JCC || ret) && used < k) {
            if (ret) {
                cold->ops[nops++] = (struct fwpt_sum_op){0, 0, seg, 0, FWPT_SUMPROF_NONE, 0, 0};
                seg = 0;
                cur = nrets ? rets[--nrets] : (ret_to = top);
            } else {
                cur = (bits >> used) & 1 ? b->target : nx;
            }
            used++;
            tail = 0;
            from = last;
            edge_wait = true;
            if (used == k)
                break; /* its last bit: the walk looks at the next packet here */
            continue;
        }
        /* its end needs what the path does not hold */
        p->pending = 1;
        p->next = nx;
        p->last_ip = last;
        s->cold[p - s->paths].target = b->target;
        s->cold[p - s->paths].block_ip = cur;
        p->cls = c;
        p->flags = b->flags;
        break;
    }
    if (!nb)
        return false;
    if (!p->pending) {
        p->next = cur;
        p->edge = edge_wait;
        p->last_ip = from;
    }
    p->ip = ip;
    p->key = (uint16_t)(1u << k | (bits & ((1u << k) - 1)));
    p->mode = f->mode;
    p->used = (uint8_t)used;
    p->ninsn = n;
    p->tail = tail;
    p->region = region;
    p->nedges = (uint8_t)ne;
    p->nops = (uint8_t)nops;
    p->ret_to = ret_to;
    p->uses = 0;
    return true;
}

/* The calls and returns inside path p, as the walk and the profile take them one by one: RET compression's
 * stack (SDM "Indirect Transfer Compression for Returns (RET)": pushed at the call, popped by its compressed
 * return), the profile's frames between the instructions. */
static void path_ops(struct fwpt_sum *s, const struct fwpt_sum_path *p, bool counting)
{
    struct fwpt_sum_op *o = s->cold[p - s->paths].ops;
    struct fwpt_sumprof *sp = counting ? s->prof : NULL;
    uint32_t counted = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        if (sp) {
            fwpt_sumprof_run(sp, p->ip, o[i].n, p->region, FWPT_IC_OTHER, 0);
            counted += o[i].n;
        }
        if (o[i].call) {
            fwpt_flow_push_ret(s->f, o[i].ret);
            if (sp && !sp->direct && sp->cur == o[i].parent && o[i].gen == s->gen) {
                fwpt_sumprof_enter_node(sp, o[i].node);
            } else if (sp) {
                o[i].parent = sp->cur;
                o[i].gen = s->gen;
                o[i].node = fwpt_sumprof_enter(sp, o[i].entry);
            }
        } else {
            uint64_t dummy;
            (void)fwpt_flow_pop_ret(s->f, &dummy);
            if (sp)
                fwpt_sumprof_leave(sp);
        }
    }
    if (sp)
        fwpt_sumprof_run(sp, p->ip, p->ninsn - counted, p->region, p->pending ? p->cls : FWPT_IC_OTHER, p->next);
}

/* ---- the walk ---- */

/* Where stop_at stops the walk (see summary.h), for the block end in f (resolve pending). */
static bool at_stop(const struct fwpt_sum *s)
{
    const struct fwpt_flow *f = s->f;
    if (s->stop_at == FWPT_SUM_NO_STOP || f->state != FWPT_FLOW_ST_WALK || !f->resolve_pending || f->tnt_count ||
        !f->have_peek || f->peek.offset < s->stop_at || f->evq_n || f->fup_pending || f->look_pending || f->ntrig ||
        f->pend_cfe)
        return false;
    if (f->last_class == FWPT_IC_JCC)
        return is_tnt(f->peek.type) && f->peek.tnt.count;
    return takes_tip(f->last_class) && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed;
}

/* Leaves the walk with the end of a block (at block_ip) waiting for resolve(), as flow's end_block. */
static void leave_pending(struct fwpt_flow *f, uint64_t block_ip, uint64_t nx, uint64_t last_ip, uint64_t target,
                          uint8_t cls, uint8_t flags)
{
    struct fwpt_flow_block b;
    b.ninsn = 1;
    b.sizes[0] = (uint8_t)(nx - last_ip);
    b.iclass = cls;
    b.target = target;
    b.flags = flags;
    f->ip = block_ip;
    fwpt_flow_i_end_block(f, &b, nx);
}

/* walk_fast's counts, kept in registers, stored back: the blocks it walked (while counting) and the paths' window. */
static inline void store_counts(struct fwpt_sum *s, bool counting, uint64_t blocks, uint32_t window, uint32_t built,
                                uint32_t rest)
{
    s->blocks += counting ? blocks : 0;
    s->path_window = window;
    s->path_built = built;
    s->path_rest = rest;
}

/* flow's fill_fast with counts for instruction stores, and paths: cached blocks whose successor needs no
 * packet fetch (a TNT bit in hand, a direct branch, a compressed RET) or the TNT or TIP lookahead left in
 * peek. Stops before anything else (a cache miss, the runaway limit, a transfer resolve() must handle,
 * stop_at), leaving the walk as fill_fast does. Returns whether it moved the walk. */
static bool walk_fast(struct fwpt_sum *s)
{
    struct fwpt_flow *f = s->f;
    const struct fwpt_flow_block *cache = f->cache;
    const size_t mask = f->cache_mask;
    const uint8_t mode = f->mode;
    const uint64_t limit = f->runaway_limit;
    const bool counting = s->counting, use_paths = s->paths_ok;
    const bool edges = counting && (s->edges || s->cov); /* the edge that waits, the paths' inner edges */
    struct fwpt_sum_path *const paths = s->paths;
    struct fwpt_sum_cold *const cold = s->cold;
    struct fwpt_sumprof *const prof = s->prof;
    const size_t paths_mask = s->paths_mask;
    const uint64_t stop_at = s->stop_at;
    bool pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    uint64_t ip = f->ip, bits = f->tnt_bits, since = f->since_packet, walked = 0, blocks = 0;
    uint32_t window = s->path_window, built = s->path_built, rest = s->path_rest;
    uint32_t cnt = f->tnt_count;
    bool moved = false;
    /* the block whose end is resolved next */
    uint64_t block_ip, nx, last_ip, target;
    uint8_t cls, flags;
    if (f->resolve_pending) {
        block_ip = f->ip;
        nx = f->next_ip;
        last_ip = f->last_ip;
        target = f->last_target;
        cls = f->last_class;
        flags = f->last_flags;
        goto resolve_end; /* f->resolve_pending stays set until it is resolved here */
    }
    for (;;) {
        if (use_paths && !pgd_peek) {
            if (rest) {
                rest--; /* paths missed too often here (branches that go either way): blocks for a while */
                goto block;
            }
            /* the bits in hand; with none, those of the TNT lookahead left in peek, which the first
             * conditional branch takes (not one stop_at stops before) */
            uint64_t pbits = bits;
            uint32_t pcnt = cnt;
            const bool from_peek = !cnt && f->have_peek && is_tnt(f->peek.type) && f->peek.offset < stop_at;
            if (from_peek) {
                pbits = f->peek.tnt.bits;
                pcnt = f->peek.tnt.count;
            }
            const uint32_t k = pcnt < FWPT_SUM_PATH_BITS ? pcnt : FWPT_SUM_PATH_BITS;
            const uint32_t key = 1u << k | (uint32_t)(pbits & ((1u << k) - 1));
            struct fwpt_sum_path *p = &paths[path_slot(ip, key) & paths_mask];
            const uint64_t top =
                f->retstack_n ? f->retstack[(f->retstack_top - 1) % FWPT_FLOW_RETSTACK] : 0; /* what a RET pops */
            const bool hit = p->ip == ip && p->key == key && p->mode == mode && (!p->ret_to || p->ret_to == top) &&
                             !(p->miss && cache[FWPT_FLOW_SLOT(p->next) & mask].ip == p->next);
            if (++window == PATH_WINDOW) {
                /* building a path costs more than walking its blocks: with more than a quarter of the
                 * lookups missing, walk block by block for a while, then look again */
                rest = built * 4 > window ? PATH_REST : 0;
                window = built = 0;
            }
            if (!hit) {
                s->path_misses++;
                built++;
                if (!path_build(s, p, ip, k, pbits, top))
                    goto block; /* its first block is not cached: the general path builds it */
            } else {
                s->path_hits++;
            }
            if (since + p->ninsn > limit)
                goto block; /* block by block to the runaway limit */
            if (from_peek && p->used) {
                f->have_peek = 0; /* take_tnt at its first conditional branch */
                bits = pbits;
                cnt = pcnt;
            }
            if (edges) {
                arrive(s, ip);
                p->uses++;
            }
            blocks++;
            if (p->nops)
                path_ops(s, p, counting);
            else if (counting && prof)
                fwpt_sumprof_run(prof, ip, p->ninsn, p->region, p->pending ? p->cls : FWPT_IC_OTHER, p->next);
            walked += p->ninsn;
            since = p->used ? p->tail : since + p->ninsn;
            bits >>= p->used;
            cnt -= p->used;
            moved = true;
            if (p->pending) {
                block_ip = cold[p - paths].block_ip;
                nx = p->next;
                last_ip = p->last_ip;
                target = cold[p - paths].target;
                cls = p->cls;
                flags = p->flags;
                if (edges && fwpt_edge_class(cls)) {
                    s->edge_pending = 1;
                    s->edge_from = last_ip;
                }
                goto resolve_end;
            }
            if (edges && p->edge) {
                s->edge_pending = 1;
                s->edge_from = p->last_ip;
            }
            ip = p->next;
            if (p->used && !cnt)
                goto packet_done; /* the packet's last bit was used */
            continue;
        }
    block: {
        const struct fwpt_flow_block *b = &cache[FWPT_FLOW_SLOT(ip) & mask];
        const uint32_t n = b->ninsn;
        if (b->ip != ip || b->mode != mode || since + n > limit)
            break; /* the general path: build the block, or report the runaway */
        if (counting)
            count_insns(s, ip, b->sizes, n, b->iclass);
        since += n;
        walked += n;
        moved = true;
        block_ip = ip;
        nx = ip + b->nbytes;
        last_ip = nx - b->sizes[n - 1];
        target = b->target;
        cls = b->iclass;
        flags = b->flags;
    }
    resolve_end:
        if (!cnt && f->have_peek && stop_at != FWPT_SUM_NO_STOP && f->peek.offset >= stop_at &&
            ((cls == FWPT_IC_JCC && is_tnt(f->peek.type) && f->peek.tnt.count) ||
             (takes_tip(cls) && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed)))
            goto pending; /* stop_at: fwpt_summary_walk stops there */
        if (!cnt && (cls == FWPT_IC_JCC || cls == FWPT_IC_RET) && f->have_peek && is_tnt(f->peek.type) &&
            f->peek.tnt.count) {
            /* take_tnt: the TNT packet lookahead left in peek */
            bits = f->peek.tnt.bits;
            cnt = f->peek.tnt.count;
            f->have_peek = 0;
        }
        /* the transfer rule (flow_internal.h's fwpt_flow_i_step, as fill_fast_walk) */
        const int r = fwpt_flow_i_step(f, cls, flags, target, nx, bits, cnt, pgd_peek, true, &ip);
        if (r == FWPT_FLOW_STEP_SLOW)
            goto pending;
        f->resolve_pending = 0;
        if (r == FWPT_FLOW_STEP_NEXT) {
            moved = true;
            continue;
        }
        if (r == FWPT_FLOW_STEP_TIP) {
            moved = true;
            if (cnt) { /* a deferred TIP: the bits in hand are for the branches after it */
                since = 0;
                continue;
            }
            goto packet_done;
        }
        /* a TNT bit was used */
        moved = true;
        bits >>= 1;
        since = 0;
        if (--cnt)
            continue;
    packet_done:
        /* a packet used up: look ahead as resolve() does, then go on if nothing happened */
        since = 0;
        f->ip = ip;
        if (fwpt_flow_i_takes_next(f, fwpt_flow_i_fetch(f))) {
            pgd_peek = false;
            continue;
        }
        store_counts(s, counting, blocks, window, built, rest);
        blocks = 0;
        const bool on = fwpt_flow_i_packet_lookahead(f, bits, walked);
        walked = 0;
        if (!on || (prof && fwpt_sumprof_spill_due(prof)))
            return true;
        pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    }
    /* at a block start */
    store_counts(s, counting, blocks, window, built, rest);
    f->ip = ip;
    fwpt_flow_i_walk_store(f, bits, cnt, since, walked);
    return moved;
pending:
    /* at a block end resolve() must handle (or where stop_at stops) */
    store_counts(s, counting, blocks, window, built, rest);
    fwpt_flow_i_walk_store(f, bits, cnt, since, walked);
    if (moved)
        leave_pending(f, block_ip, nx, last_ip, target, cls, flags);
    return moved;
}

/* A run or event from flow's general path. */
static void count_step(struct fwpt_sum *s, const struct fwpt_flow_run *run, const struct fwpt_flow_event *ev)
{
    if (!run->n) {
        count_event(s, ev);
        return;
    }
    const struct fwpt_flow *f = s->f;
    count_insns(s, run->ip, run->sizes, run->n, f->run_full ? f->last_class : FWPT_IC_OTHER);
}

enum fwpt_status fwpt_summary_walk(struct fwpt_sum *s)
{
    struct fwpt_flow *f = s->f;
    struct fwpt_flow_run run;
    struct fwpt_flow_event ev;
    s->stopped = 0;
    for (;;) {
        if (s->prof && fwpt_sumprof_spill_due(s->prof))
            (void)fwpt_sumprof_spill(s->prof); /* between two counts; a failure leaves the tree, failed set */
        if (f->resolve_pending && at_stop(s)) {
            s->stopped = 1;
            return FWPT_OK;
        }
        if (f->state == FWPT_FLOW_ST_WALK && f->cache && !f->evq_n && !f->look_pending && !f->fup_pending &&
            !f->ntrig && !f->pend_cfe && walk_fast(s))
            continue;
        enum fwpt_status st = fwpt_flow_next_run(f, &run, &ev);
        if (st != FWPT_OK)
            return st;
        if (s->counting)
            count_step(s, &run, &ev);
    }
}

void fwpt_summary_count_from_here(struct fwpt_sum *s)
{
    const struct fwpt_flow *f = s->f;
    s->counting = 1;
    s->edge_pending = f->resolve_pending && fwpt_edge_class(f->last_class);
    s->edge_from = f->last_ip;
    if (s->prof)
        fwpt_sumprof_resume(s->prof, f->resolve_pending ? f->last_class : FWPT_IC_OTHER, f->next_ip);
}
