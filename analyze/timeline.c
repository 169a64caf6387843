/* fwpt — the boot timeline (see timeline.h). */
#include "analyze/timeline.h"

void fwpt_timeline_init(struct fwpt_timeline *t, struct fwpt_modules *mods, struct fwpt_timeline_image *img,
                        struct fwpt_timeline_entry *entries, size_t nentries)
{
    fwpt_memset(t, 0, sizeof *t);
    t->mods = mods;
    t->nimages = (mods ? mods->n : 0) + 1;
    t->img = img;
    fwpt_memset(img, 0, t->nimages * sizeof *img);
    for (size_t i = 0; i < t->nimages; i++)
        img[i].first = FWPT_TIMELINE_NEVER;
    t->entries = entries;
    t->entries_mask = nentries - 1;
    for (size_t i = 0; i < nentries; i++) {
        fwpt_memset(&entries[i], 0, sizeof entries[i]);
        entries[i].target = FWPT_FLOW_NO_IP;
    }
    t->cur = (uint32_t)t->nimages;
}

static uint32_t image_of(const struct fwpt_timeline *t, uint64_t ip)
{
    size_t mi = 0;
    fwpt_image_module_find(t->mods, ip, &mi);
    return (uint32_t)mi;
}

/* Image i comes on the stack once more, or goes off once: its interval starts at the first, ends at the last. */
static void hold(struct fwpt_timeline *t, uint32_t i)
{
    struct fwpt_timeline_image *m = &t->img[i];
    if (!m->refs++) {
        m->since = t->insns;
        m->since_ticks = t->ticks;
    }
}

static void release(struct fwpt_timeline *t, uint32_t i)
{
    struct fwpt_timeline_image *m = &t->img[i];
    if (!--m->refs) {
        m->incl += t->insns - m->since;
        m->incl_ticks += t->ticks - m->since_ticks;
    }
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

/* One more call from caller (in caller_image) to target (in image). */
static void count_entry(struct fwpt_timeline *t, uint64_t target, uint32_t image, uint64_t caller,
                        uint32_t caller_image, bool interrupt)
{
    size_t i = (size_t)mix(target * 31 + caller * 7 + caller_image) & t->entries_mask;
    for (size_t k = 0; k <= t->entries_mask; k++, i = (i + 1) & t->entries_mask) {
        struct fwpt_timeline_entry *e = &t->entries[i];
        if (e->target == target && e->caller == caller && e->caller_image == caller_image && e->interrupt == interrupt) {
            e->count++;
            return;
        }
        if (e->target == FWPT_FLOW_NO_IP) {
            if (t->nentries * 4 >= (t->entries_mask + 1) * 3)
                break; /* keep the table at most 3/4 full */
            *e = (struct fwpt_timeline_entry){target, caller, 1, image, caller_image, interrupt, {0}};
            t->nentries++;
            return;
        }
    }
    t->dropped++;
}

/* A frame opens at entry, called from caller_image (the profile's enter: at FWPT_PROFILE_DEPTH the outermost goes). */
static void enter(struct fwpt_timeline *t, uint64_t entry, uint32_t caller_image, bool interrupt)
{
    const uint32_t ei = image_of(t, entry);
    if (ei != caller_image)
        count_entry(t, entry, ei, t->depth ? t->stack[t->depth - 1].entry : FWPT_FLOW_NO_IP, caller_image, interrupt);
    if (t->depth == FWPT_PROFILE_DEPTH) {
        release(t, t->stack[0].call_image);
        release(t, t->stack[0].entry_image);
        for (uint32_t k = 1; k < FWPT_PROFILE_DEPTH; k++)
            t->stack[k - 1] = t->stack[k];
        t->depth--;
    }
    t->stack[t->depth++] = (struct fwpt_timeline_frame){entry, caller_image, ei};
    hold(t, caller_image);
    hold(t, ei);
}

static void leave(struct fwpt_timeline *t)
{
    const struct fwpt_timeline_frame *f = &t->stack[--t->depth];
    release(t, f->call_image);
    release(t, f->entry_image);
}

void fwpt_timeline_add(struct fwpt_timeline *t, const struct fwpt_flow_event *ev, uint64_t w)
{
    if (ev->kind != FWPT_FLOW_INSN) {
        t->events++;
        if (ev->kind == FWPT_FLOW_INTERRUPT) {
            t->call_pending = 0;
            enter(t, ev->to, image_of(t, ev->ip), true); /* the handler runs as if called from where it came */
        } else if (ev->kind == FWPT_FLOW_OVERFLOW || ev->kind == FWPT_FLOW_ERROR) {
            while (t->depth) /* the call stack is unknown from here (as the profile) */
                leave(t);
            t->call_pending = 0;
        } else if (ev->kind == FWPT_FLOW_DISABLED) {
            t->call_pending = 0;
        }
        return;
    }
    if (fwpt_profile_call_lands(&t->call_pending, t->call_next, ev->ip))
        enter(t, ev->ip, t->call_image, false);
    const uint32_t mi = image_of(t, ev->ip);
    if (mi != t->cur) {
        hold(t, mi);
        if (t->cur != t->nimages)
            release(t, t->cur);
        t->cur = mi;
    }
    struct fwpt_timeline_image *m = &t->img[mi];
    if (m->first == FWPT_TIMELINE_NEVER)
        m->first = t->insns;
    m->self++;
    m->self_ticks += w;
    t->insns++;
    t->ticks += w;
    const int step = fwpt_profile_frame_after(&t->call_pending, &t->call_next, ev->iclass, ev->ip + ev->size);
    if (step > 0)
        t->call_image = mi;
    else if (step < 0 && t->depth)
        leave(t);
}

void fwpt_timeline_add_hook(void *ctx, const struct fwpt_flow_event *ev, uint64_t w)
{
    fwpt_timeline_add(ctx, ev, w);
}

void fwpt_timeline_end(struct fwpt_timeline *t)
{
    for (size_t i = 0; i < t->nimages; i++) {
        struct fwpt_timeline_image *m = &t->img[i];
        if (m->refs) { /* on the stack to the end: its last interval, and a new one from here (none follows) */
            m->incl += t->insns - m->since;
            m->incl_ticks += t->ticks - m->since_ticks;
            m->since = t->insns;
            m->since_ticks = t->ticks;
        }
    }
    t->ended = true;
}

size_t fwpt_timeline_next(const struct fwpt_timeline *t, size_t prev)
{
    const uint64_t after = prev < t->nimages ? t->img[prev].first : 0;
    size_t best = t->nimages;
    for (size_t i = 0; i < t->nimages; i++) {
        const uint64_t f = t->img[i].first;
        if (f == FWPT_TIMELINE_NEVER || (prev < t->nimages && f <= after))
            continue;
        if (best == t->nimages || f < t->img[best].first)
            best = i;
    }
    return best;
}

size_t fwpt_timeline_count(const struct fwpt_timeline *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nimages; i++)
        n += t->img[i].first != FWPT_TIMELINE_NEVER;
    return n;
}

/* The base of image i (no module: after every image): an order that does not depend on the map's order. */
static uint64_t image_base(const struct fwpt_timeline *t, uint32_t i)
{
    return i + 1 < t->nimages ? t->mods->v[i].base : ~(uint64_t)0;
}

/* a before b in the order of fwpt_timeline_next_entry */
static bool entry_before(const struct fwpt_timeline *t, const struct fwpt_timeline_entry *a,
                         const struct fwpt_timeline_entry *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    if (a->target != b->target)
        return a->target < b->target;
    if (a->caller != b->caller)
        return a->caller < b->caller;
    if (a->caller_image != b->caller_image)
        return image_base(t, a->caller_image) < image_base(t, b->caller_image);
    return a->interrupt < b->interrupt;
}

size_t fwpt_timeline_next_entry(const struct fwpt_timeline *t, size_t image, size_t prev, size_t *n)
{
    const struct fwpt_timeline_entry *q = prev == (size_t)-1 ? NULL : &t->entries[prev];
    size_t best = (size_t)-1, count = 0;
    for (size_t i = 0; i <= t->entries_mask; i++) {
        const struct fwpt_timeline_entry *e = &t->entries[i];
        if (e->target == FWPT_FLOW_NO_IP || e->image != image)
            continue;
        count++;
        if (q && !entry_before(t, q, e))
            continue;
        if (best == (size_t)-1 || entry_before(t, e, &t->entries[best]))
            best = i;
    }
    if (n)
        *n = count;
    return best;
}

size_t fwpt_timeline_top_funcs(const struct fwpt_timeline *t, const struct fwpt_profile *p, size_t image,
                               size_t *out, size_t max, size_t *n)
{
    size_t have = 0, count = 0;
    for (size_t i = 0; i <= p->funcs_mask; i++) {
        const struct fwpt_profile_func *f = &p->funcs[i];
        if (f->entry == FWPT_FLOW_NO_IP || image_of(t, f->entry) != image)
            continue;
        count++;
        /* insertion into the sorted top max: self descending, then entry ascending */
        size_t k = have;
        while (k && (p->funcs[out[k - 1]].insns < f->insns ||
                     (p->funcs[out[k - 1]].insns == f->insns && p->funcs[out[k - 1]].entry > f->entry)))
            k--;
        if (k >= max)
            continue;
        for (size_t j = have < max ? have : max - 1; j > k; j--)
            out[j] = out[j - 1];
        out[k] = i;
        if (have < max)
            have++;
    }
    if (n)
        *n = count;
    return have;
}
