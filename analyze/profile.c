/* fwpt — the profile and the call tree (see profile.h). */
#include "analyze/profile.h"
#include "analyze/profile_priv.h"

void fwpt_profile_init(struct fwpt_profile *p, struct fwpt_modules *mods, uint64_t *mod_insns,
                       struct fwpt_profile_func *funcs, size_t nfuncs, struct fwpt_profile_node *nodes,
                       size_t nnodes, uint32_t *node_hash, size_t nhash)
{
    fwpt_memset(p, 0, sizeof *p);
    p->mods = mods;
    p->mod_insns = mod_insns;
    fwpt_memset(mod_insns, 0, ((mods ? mods->n : 0) + 1) * sizeof *mod_insns);
    p->funcs = funcs;
    p->funcs_mask = nfuncs - 1;
    for (size_t i = 0; i < nfuncs; i++) {
        funcs[i].entry = FWPT_FLOW_NO_IP;
        funcs[i].calls = funcs[i].insns = 0;
    }
    p->nodes = nodes;
    p->nodes_cap = nnodes;
    p->node_hash = node_hash;
    p->node_hash_mask = nhash - 1;
    fwpt_memset(node_hash, 0, nhash * sizeof *node_hash);
    fwpt_memset(&nodes[0], 0, sizeof nodes[0]);
    nodes[0].entry = FWPT_FLOW_NO_IP;
    p->nnodes = 1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Function slot for entry, created if needed; (size_t)-1 when the table is full. */
static size_t func_slot(struct fwpt_profile *p, uint64_t entry)
{
    size_t i = (size_t)mix(entry) & p->funcs_mask;
    for (size_t k = 0; k <= p->funcs_mask; k++, i = (i + 1) & p->funcs_mask) {
        if (p->funcs[i].entry == entry)
            return i;
        if (p->funcs[i].entry == FWPT_FLOW_NO_IP) {
            if (p->nfuncs * 4 >= (p->funcs_mask + 1) * 3)
                break; /* keep the table at most 3/4 full */
            p->funcs[i].entry = entry;
            p->nfuncs++;
            return i;
        }
    }
    p->dropped++;
    return (size_t)-1;
}

static uint32_t node_child(struct fwpt_profile *p, uint32_t parent, uint64_t entry)
{
    size_t i = (size_t)mix(entry * 31 + parent) & p->node_hash_mask;
    for (size_t k = 0; k <= p->node_hash_mask; k++, i = (i + 1) & p->node_hash_mask) {
        uint32_t n = p->node_hash[i];
        if (!n)
            break;
        if (p->nodes[n - 1].entry == entry && p->nodes[n - 1].parent == parent)
            return n - 1;
    }
    if (p->nnodes >= p->nodes_cap || p->node_hash[i] || p->nnodes * 4 >= (p->node_hash_mask + 1) * 3) {
        p->dropped++;
        return parent; /* table full: count in the caller's node */
    }
    uint32_t n = (uint32_t)p->nnodes++;
    struct fwpt_profile_node *d = &p->nodes[n];
    fwpt_memset(d, 0, sizeof *d);
    d->entry = entry;
    d->parent = parent;
    d->depth = p->nodes[parent].depth + 1;
    if (p->nodes[parent].first_child)
        p->nodes[p->nodes[parent].last_child].next_sibling = n;
    else
        p->nodes[parent].first_child = n;
    p->nodes[parent].last_child = n;
    p->node_hash[i] = n + 1;
    return n;
}

static void enter(struct fwpt_profile *p, uint64_t entry)
{
    uint32_t parent = p->depth ? p->stack_node[p->depth - 1] : 0;
    uint32_t node = node_child(p, parent, entry);
    size_t fs = func_slot(p, entry);
    p->nodes[node].calls++;
    if (fs != (size_t)-1)
        p->funcs[fs].calls++;
    if (p->depth == FWPT_PROFILE_DEPTH) {
        if (p->frame_hook)
            p->frame_hook(p->frame_ctx, p, FWPT_FRAME_DROP_OUTER, p->stack_node[0]);
        /* drop the outermost frame */
        for (uint32_t k = 1; k < FWPT_PROFILE_DEPTH; k++) {
            p->stack_node[k - 1] = p->stack_node[k];
            p->stack_func[k - 1] = p->stack_func[k];
        }
        p->depth--;
    }
    p->stack_node[p->depth] = node;
    p->stack_func[p->depth] = (uint32_t)fs;
    p->depth++;
    if (p->frame_hook)
        p->frame_hook(p->frame_ctx, p, FWPT_FRAME_PUSH, node);
}

static void leave(struct fwpt_profile *p)
{
    if (p->frame_hook)
        p->frame_hook(p->frame_ctx, p, FWPT_FRAME_POP, p->stack_node[p->depth - 1]);
    p->depth--;
}

void fwpt_profile_add(struct fwpt_profile *p, const struct fwpt_flow_event *ev) { fwpt_profile_add_weight(p, ev, 1); }

const char *fwpt_profile_unit(const struct fwpt_profile *p, bool short_name)
{
    if (p->unit == FWPT_PROFILE_UNIT_TICKS)
        return short_name ? "ticks" : "TSC ticks";
    return short_name ? "insns" : "instructions";
}

/* n instructions (or n ticks of one) from ip in module mi, the last of class iclass with next IP next: counted in
 * the module, the node and the function of the innermost frame; a call opens a frame at its target (unless it is a
 * zero-length call next), a return closes one. */
static void count_run(struct fwpt_profile *p, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next)
{
    if (fwpt_profile_call_lands(&p->call_pending, p->call_next, ip))
        enter(p, ip);
    p->insns += n;
    p->mod_insns[mi] += n;
    p->nodes[p->depth ? p->stack_node[p->depth - 1] : 0].insns += n;
    if (p->depth && p->stack_func[p->depth - 1] != (uint32_t)-1)
        p->funcs[p->stack_func[p->depth - 1]].insns += n;
    if (fwpt_profile_frame_after(&p->call_pending, &p->call_next, iclass, next) < 0 && p->depth)
        leave(p);
}

void fwpt_profile_add_weight(struct fwpt_profile *p, const struct fwpt_flow_event *ev, uint64_t w)
{
    if (ev->kind != FWPT_FLOW_INSN) {
        p->events++;
        if (ev->kind == FWPT_FLOW_INTERRUPT) {
            p->call_pending = 0;
            p->ret_pending = 0;
            enter(p, ev->to); /* the handler runs as if called */
        } else if (ev->kind == FWPT_FLOW_OVERFLOW || ev->kind == FWPT_FLOW_ERROR) {
            while (p->depth) /* the call stack is unknown from here */
                leave(p);
            p->call_pending = p->ret_pending = 0;
        } else if (ev->kind == FWPT_FLOW_DISABLED) {
            p->call_pending = p->ret_pending = 0;
        }
        return;
    }
    size_t mi = 0;
    fwpt_image_module_find(p->mods, ev->ip, &mi);
    count_run(p, ev->ip, w, mi, ev->iclass, ev->ip + ev->size);
}

size_t fwpt_profile_next_top(const struct fwpt_profile *p, size_t prev)
{
    const struct fwpt_profile_func *q = prev == (size_t)-1 ? NULL : &p->funcs[prev];
    size_t best = (size_t)-1;
    for (size_t i = 0; i <= p->funcs_mask; i++) {
        const struct fwpt_profile_func *f = &p->funcs[i];
        if (f->entry == FWPT_FLOW_NO_IP)
            continue;
        if (q && (f->insns > q->insns || (f->insns == q->insns && f->entry <= q->entry)))
            continue;
        if (best == (size_t)-1 || f->insns > p->funcs[best].insns ||
            (f->insns == p->funcs[best].insns && f->entry < p->funcs[best].entry))
            best = i;
    }
    return best;
}

uint32_t fwpt_profile_next_node(const struct fwpt_profile *p, uint32_t n, bool skip_children)
{
    if (!skip_children && p->nodes[n].first_child)
        return p->nodes[n].first_child;
    while (n && !p->nodes[n].next_sibling)
        n = p->nodes[n].parent;
    return n ? p->nodes[n].next_sibling : 0;
}

void fwpt_profile_calltree_totals(struct fwpt_profile *p)
{
    /* children are created after their parents, so a reverse pass sums subtrees */
    for (size_t i = 0; i < p->nnodes; i++)
        p->nodes[i].total = p->nodes[i].insns;
    for (size_t i = p->nnodes; i-- > 1;)
        p->nodes[p->nodes[i].parent].total += p->nodes[i].total;
}

/* ---- the tables' lookups for analyze/sumprof.c (analyze/profile_priv.h) ---- */
uint32_t fwpt_profile_i_node(struct fwpt_profile *p, uint32_t parent, uint64_t entry)
{
    return node_child(p, parent, entry);
}
size_t fwpt_profile_i_func(struct fwpt_profile *p, uint64_t entry) { return func_slot(p, entry); }

/* n instructions from ip at once, in module mi, the last of class iclass with next IP next: what n calls of
 * fwpt_profile_add would count (for analyze/sumprof.c, whose walk does not list instructions). */
void fwpt_profile_i_run(struct fwpt_profile *p, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next)
{
    count_run(p, ip, n, mi, iclass, next);
}
void fwpt_profile_i_enter(struct fwpt_profile *p, uint64_t entry) { enter(p, entry); }
void fwpt_profile_i_leave(struct fwpt_profile *p)
{
    if (p->depth)
        leave(p);
}
