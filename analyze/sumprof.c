/* fwpt — the profile of a summary walk and its merge (see sumprof.h). */
#include "analyze/sumprof.h"
#include "analyze/profile_priv.h"


static uint64_t sp_mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}
static inline size_t sp_slot(uint32_t parent, uint64_t entry) { return (size_t)sp_mix(entry * 31 + parent); }

/* A new node (children of parent: entry; anchors: parent FWPT_SUMPROF_NONE); FWPT_SUMPROF_NONE when out of memory. */
static uint32_t sp_new(struct fwpt_sumprof *sp, uint64_t entry, uint32_t parent, uint32_t anchor)
{
    if (sp->max_nodes && sp->nnodes >= sp->max_nodes) {
        sp->failed = 1; /* more than the profile holds: a walk straight into it counts what it keeps */
        return FWPT_SUMPROF_NONE;
    }
    if (sp->nnodes == sp->cap) {
        uint32_t cap = sp->cap * 2;
        struct fwpt_sumprof_node *v = fwpt_resize(&sp->rs, sp->nodes, (size_t)cap * sizeof *v);
        if (!v) {
            sp->failed = 1;
            return FWPT_SUMPROF_NONE;
        }
        sp->nodes = v;
        sp->cap = cap;
    }
    struct fwpt_sumprof_node *n = &sp->nodes[sp->nnodes];
    fwpt_memset(n, 0, sizeof *n);
    n->entry = entry;
    n->parent = parent;
    n->anchor = anchor;
    return sp->nnodes++;
}

static bool sp_rehash(struct fwpt_sumprof *sp, uint32_t size)
{
    uint32_t *h = fwpt_resize(&sp->rs, NULL, (size_t)size * sizeof *h);
    if (!h)
        return false;
    fwpt_memset(h, 0, (size_t)size * sizeof *h);
    for (uint32_t k = 0; k < sp->nnodes; k++) {
        const struct fwpt_sumprof_node *n = &sp->nodes[k];
        if (n->parent == FWPT_SUMPROF_NONE)
            continue;
        size_t i = sp_slot(n->parent, n->entry) & (size - 1);
        while (h[i])
            i = (i + 1) & (size - 1);
        h[i] = k + 1;
    }
    fwpt_resize(&sp->rs, sp->hash, 0);
    sp->hash = h;
    sp->hmask = size - 1;
    return true;
}

enum fwpt_status fwpt_sumprof_init(struct fwpt_sumprof *sp, struct fwpt_modules *mods, bool known, bool log,
                                   const struct fwpt_resize *rs)
{
    fwpt_memset(sp, 0, sizeof *sp);
    sp->rs = *rs;
    sp->mods = mods;
    sp->nmods = mods ? mods->n : 0;
    sp->mod_insns = fwpt_resize(&sp->rs, NULL, (sp->nmods + 1) * sizeof *sp->mod_insns);
    sp->cap = 256;
    sp->nodes = fwpt_resize(&sp->rs, NULL, sp->cap * sizeof *sp->nodes);
    if (!sp->mod_insns || !sp->nodes || !sp_rehash(sp, 1024)) {
        fwpt_sumprof_free(sp);
        return FWPT_E_NOMEM;
    }
    fwpt_memset(sp->mod_insns, 0, (sp->nmods + 1) * sizeof *sp->mod_insns);
    sp_new(sp, FWPT_FLOW_NO_IP, FWPT_SUMPROF_NONE, 0); /* the root */
    sp->known = known;
    sp->base = sp->cur = known ? 0 : sp_new(sp, FWPT_FLOW_NO_IP, FWPT_SUMPROF_NONE, 1); /* anchor 0 */
    sp->log = log;
    sp->max_rel = -((int64_t)1 << 40);
    return FWPT_OK;
}

void fwpt_sumprof_init_direct(struct fwpt_sumprof *sp, struct fwpt_profile *p)
{
    fwpt_memset(sp, 0, sizeof *sp);
    sp->direct = p;
    sp->known = 1;
}

void fwpt_sumprof_run_direct(struct fwpt_sumprof *sp, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next)
{
    fwpt_profile_i_run(sp->direct, ip, n, mi, iclass, next);
}

void fwpt_sumprof_free(struct fwpt_sumprof *sp)
{
    if (sp->direct)
        return;
    fwpt_resize(&sp->rs, sp->mod_insns, 0);
    fwpt_resize(&sp->rs, sp->nodes, 0);
    fwpt_resize(&sp->rs, sp->hash, 0);
    fwpt_resize(&sp->rs, sp->ops, 0);
    sp->mod_insns = NULL;
    sp->nodes = NULL;
    sp->hash = NULL;
    sp->ops = NULL;
}

void fwpt_sumprof_resume(struct fwpt_sumprof *sp, unsigned iclass, uint64_t next)
{
    if (sp->direct)
        return; /* the profile it counts into is where the walk starts */
    sp->call_pending = fwpt_profile_frame_step(iclass) > 0;
    sp->call_next = next;
}

static void sp_log(struct fwpt_sumprof *sp, uint32_t op, uint32_t node)
{
    if (!sp->log)
        return;
    if (sp->nops == sp->ops_cap) {
        size_t cap = sp->ops_cap ? sp->ops_cap * 2 : 1024;
        struct fwpt_sumprof_op *v = fwpt_resize(&sp->rs, sp->ops, cap * sizeof *v);
        if (!v) {
            sp->failed = 1;
            return;
        }
        sp->ops = v;
        sp->ops_cap = cap;
    }
    sp->ops[sp->nops++] = (struct fwpt_sumprof_op){sp->insns, node, op};
}

/* The child of parent entered at entry, made if needed (the one-entry cache first, then the hash). */
static uint32_t sp_child(struct fwpt_sumprof *sp, uint32_t parent, uint64_t entry)
{
    uint32_t c = sp->nodes[parent].last_child;
    if (c && sp->nodes[c - 1].entry == entry)
        return c - 1;
    size_t i = sp_slot(parent, entry) & sp->hmask;
    for (uint32_t h; (h = sp->hash[i]); i = (i + 1) & sp->hmask) {
        const struct fwpt_sumprof_node *n = &sp->nodes[h - 1];
        if (n->entry == entry && n->parent == parent) {
            sp->nodes[parent].last_child = h;
            return h - 1;
        }
    }
    uint32_t k = sp_new(sp, entry, parent, 0);
    if (k == FWPT_SUMPROF_NONE)
        return parent; /* out of memory: failed is set, the result is not used */
    sp->hash[i] = k + 1;
    sp->nodes[parent].last_child = k + 1;
    if ((sp->nnodes + 1) * 4 > (sp->hmask + 1) * 3 && !sp_rehash(sp, (sp->hmask + 1) * 2))
        sp->failed = 1;
    return k;
}

uint32_t fwpt_sumprof_enter(struct fwpt_sumprof *sp, uint64_t entry)
{
    if (sp->direct) {
        fwpt_profile_i_enter(sp->direct, entry);
        return FWPT_SUMPROF_NONE;
    }
    uint32_t node = sp_child(sp, sp->cur, entry);
    fwpt_sumprof_enter_node(sp, node);
    return node;
}

void fwpt_sumprof_enter_node(struct fwpt_sumprof *sp, uint32_t node)
{
    sp->nodes[node].calls++;
    if (!sp->known) {
        sp->unknown_calls = 1;
        if ((int64_t)sp->depth - (int64_t)sp->popped > sp->max_rel)
            sp->max_rel = (int64_t)sp->depth - (int64_t)sp->popped;
        if (sp->depth > sp->max_depth)
            sp->max_depth = sp->depth;
    }
    if (sp->depth == FWPT_PROFILE_DEPTH) {
        /* fwpt_profile_add drops the outermost frame; under unknown frames that one is not ours to drop */
        if (!sp->known)
            sp->deep = 1;
        sp_log(sp, FWPT_SUMPROF_DROP, 0);
        for (uint32_t k = 1; k < FWPT_PROFILE_DEPTH; k++)
            sp->stack[k - 1] = sp->stack[k];
        sp->depth--;
    }
    sp->stack[sp->depth++] = node;
    sp->cur = node;
    sp_log(sp, FWPT_SUMPROF_PUSH, node);
}

void fwpt_sumprof_leave(struct fwpt_sumprof *sp)
{
    if (sp->direct) {
        fwpt_profile_i_leave(sp->direct);
        return;
    }
    if (sp->depth) {
        sp_log(sp, FWPT_SUMPROF_POP, 0);
        sp->depth--;
        sp->cur = sp->depth ? sp->stack[sp->depth - 1] : sp->base;
    } else if (!sp->known) {
        /* a frame below the start is left (if the profile has one there) */
        sp_log(sp, FWPT_SUMPROF_UPOP, 0);
        if (sp->popped <= FWPT_SUMPROF_ANCHORS) {
            sp->popped++;
            uint32_t a = sp_new(sp, FWPT_FLOW_NO_IP, FWPT_SUMPROF_NONE, sp->popped + 1);
            if (a != FWPT_SUMPROF_NONE)
                sp->base = sp->cur = a;
        } /* else the last anchor stands for every frame further down: the root (fwpt_sumprof_mergeable) */
    }
}

void fwpt_sumprof_event(struct fwpt_sumprof *sp, const struct fwpt_flow_event *ev)
{
    if (sp->direct) {
        fwpt_profile_add(sp->direct, ev);
        return;
    }
    sp->events++;
    if (ev->kind == FWPT_FLOW_INTERRUPT) {
        sp->call_pending = 0;
        fwpt_sumprof_enter(sp, ev->to); /* the handler runs as if called */
    } else if (ev->kind == FWPT_FLOW_OVERFLOW || ev->kind == FWPT_FLOW_ERROR) {
        /* fwpt_profile_add leaves every frame: the call stack is unknown from here, and empty */
        sp_log(sp, FWPT_SUMPROF_CLEAR, 0);
        sp->depth = 0;
        sp->known = 1;
        sp->base = sp->cur = 0;
        sp->call_pending = 0;
    } else if (ev->kind == FWPT_FLOW_DISABLED) {
        sp->call_pending = 0;
    }
}

/* The frame hook as fwpt_profile_add calls it, for the logged frame changes (the replay keeps its own copy
 * of p's stack: p's is set at the end). */
static void sp_replay(const struct fwpt_sumprof *sp, struct fwpt_profile *p, const uint32_t *map, uint64_t base)
{
    uint32_t st[FWPT_PROFILE_DEPTH], d = p->depth;
    for (uint32_t k = 0; k < d; k++)
        st[k] = p->stack_node[k];
    for (size_t i = 0; i < sp->nops; i++) {
        const struct fwpt_sumprof_op *o = &sp->ops[i];
        p->insns = base + o->insns;
        switch (o->op) {
        case FWPT_SUMPROF_PUSH:
            if (d < FWPT_PROFILE_DEPTH)
                st[d++] = map[o->node];
            p->frame_hook(p->frame_ctx, p, FWPT_FRAME_PUSH, map[o->node]);
            break;
        case FWPT_SUMPROF_CLEAR:
            while (d)
                p->frame_hook(p->frame_ctx, p, FWPT_FRAME_POP, st[--d]);
            break;
        case FWPT_SUMPROF_DROP:
            if (d) {
                p->frame_hook(p->frame_ctx, p, FWPT_FRAME_DROP_OUTER, st[0]);
                for (uint32_t k = 1; k < d; k++)
                    st[k - 1] = st[k];
                d--;
            }
            break;
        default: /* POP, UPOP: a frame is left if there is one */
            if (d)
                p->frame_hook(p->frame_ctx, p, FWPT_FRAME_POP, st[--d]);
            break;
        }
    }
}

bool fwpt_sumprof_mergeable(const struct fwpt_sumprof *sp, uint32_t d)
{
    if (sp->direct)
        return true;
    if (sp->failed || sp->deep)
        return false;
    /* every call made above unknown frames must have found fewer than FWPT_PROFILE_DEPTH frames open */
    if (sp->unknown_calls && ((int64_t)d + sp->max_rel >= FWPT_PROFILE_DEPTH || sp->max_depth >= FWPT_PROFILE_DEPTH))
        return false;
    /* the last anchor stands for the root only when the frames below ran out by then */
    return sp->popped <= FWPT_SUMPROF_ANCHORS || d <= FWPT_SUMPROF_ANCHORS;
}

uint32_t fwpt_sumprof_depth_after(const struct fwpt_sumprof *sp, uint32_t d)
{
    uint32_t keep = sp->known ? 0 : d > sp->popped ? d - sp->popped : 0;
    return keep + sp->depth;
}

enum fwpt_status fwpt_sumprof_merge(struct fwpt_sumprof *sp, struct fwpt_profile *p)
{
    if (sp->direct)
        return sp->direct == p ? FWPT_OK : FWPT_E_INVAL; /* counted there already */
    const uint32_t d = p->depth;
    if (!fwpt_sumprof_mergeable(sp, d) || (p->frame_hook && !sp->log))
        return FWPT_E_INVAL;
    uint32_t *map = fwpt_resize(&sp->rs, NULL, (size_t)sp->nnodes * 2 * sizeof *map);
    if (!map)
        return FWPT_E_NOMEM;
    uint32_t *fs = map + sp->nnodes;
    /* in the order the nodes were made, which is the order their first calls came: p's new nodes and
     * functions are made in the order fwpt_profile_add would have made them */
    for (uint32_t k = 0; k < sp->nnodes; k++) {
        const struct fwpt_sumprof_node *n = &sp->nodes[k];
        uint32_t g;
        size_t f = (size_t)-1;
        if (n->parent == FWPT_SUMPROF_NONE && n->anchor) {
            int64_t at = (int64_t)d - (int64_t)n->anchor; /* anchor i: the frame i below the top */
            g = at >= 0 ? p->stack_node[at] : 0;
            if (at >= 0 && p->stack_func[at] != (uint32_t)-1)
                f = p->stack_func[at];
        } else if (n->parent == FWPT_SUMPROF_NONE) {
            g = 0; /* the root */
        } else {
            uint32_t gp = map[n->parent];
            g = fwpt_profile_i_node(p, gp, n->entry);
            if (g == gp)
                p->dropped += n->calls - 1; /* one per call, as each call looks again */
            f = fwpt_profile_i_func(p, n->entry);
            if (f == (size_t)-1)
                p->dropped += n->calls - 1;
            p->nodes[g].calls += n->calls;
            if (f != (size_t)-1)
                p->funcs[f].calls += n->calls;
        }
        p->nodes[g].insns += n->insns;
        if (f != (size_t)-1)
            p->funcs[f].insns += n->insns;
        map[k] = g;
        fs[k] = (uint32_t)f;
    }
    uint64_t base = p->insns;
    if (p->frame_hook)
        sp_replay(sp, p, map, base);
    p->insns = base + sp->insns;
    p->events += sp->events;
    for (size_t i = 0; i <= sp->nmods; i++)
        p->mod_insns[i] += sp->mod_insns[i];
    /* the stack as fwpt_profile_add leaves it: the frames below that were not left, then ours */
    uint32_t keep = sp->known ? 0 : d > sp->popped ? d - sp->popped : 0;
    for (uint32_t k = 0; k < sp->depth; k++) {
        p->stack_node[keep + k] = map[sp->stack[k]];
        p->stack_func[keep + k] = fs[sp->stack[k]];
    }
    p->depth = keep + sp->depth;
    p->call_pending = sp->call_pending;
    p->call_next = sp->call_next;
    fwpt_resize(&sp->rs, map, 0);
    return FWPT_OK;
}

enum fwpt_status fwpt_sumprof_spill(struct fwpt_sumprof *sp)
{
    struct fwpt_profile *p = sp->spill;
    if (!p || sp->direct || !sp->known)
        return FWPT_E_INVAL;
    enum fwpt_status st = fwpt_sumprof_merge(sp, p);
    if (st != FWPT_OK)
        return st;
    fwpt_sumprof_free(sp);
    fwpt_sumprof_init_direct(sp, p);
    return FWPT_OK;
}
