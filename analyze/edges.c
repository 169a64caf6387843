/* fwpt — edges and the coverage bitmap (see edges.h). */
#include "analyze/edges.h"
#include "base/text.h"

enum fwpt_status fwpt_edges_init(struct fwpt_edges *e, struct fwpt_edge *v, size_t cap, const struct fwpt_resize *rs)
{
    fwpt_memset(e, 0, sizeof *e);
    if (v && (!cap || (cap & (cap - 1))))
        return FWPT_E_INVAL; /* indexed by hash bits (mask) */
    if (rs)
        e->rs = *rs;
    if (!v) {
        cap = 1024;
        v = fwpt_resize(&e->rs, NULL, cap * sizeof *v);
        if (!v)
            cap = 0;
        e->owned = v != NULL;
    }
    e->v = v;
    e->mask = cap ? cap - 1 : 0;
    if (!v)
        return FWPT_E_NOMEM;
    fwpt_memset(v, 0, cap * sizeof *v);
    return FWPT_OK;
}

void fwpt_edges_free(struct fwpt_edges *e)
{
    if (e->v && e->owned)
        fwpt_resize(&e->rs, e->v, 0);
    e->v = NULL;
    e->n = 0;
    e->mask = 0;
}

static inline size_t edge_slot(uint64_t from, uint64_t to) { return (size_t)fwpt_cov_hash(from * 0x2545f4914f6cdd1dull ^ to); }

/* Slot for (from, to): the edge's or the free one where it goes; the table is never full (at most 3/4). */
static struct fwpt_edge *edge_find(struct fwpt_edge *v, size_t mask, uint64_t from, uint64_t to)
{
    size_t i = edge_slot(from, to) & mask;
    while (v[i].count && (v[i].from != from || v[i].to != to))
        i = (i + 1) & mask;
    return &v[i];
}

/* Doubles the table through rs; false when that is not possible. */
static bool edges_grow(struct fwpt_edges *e)
{
    size_t cap = (e->mask + 1) * 2;
    struct fwpt_edge *v = fwpt_resize(&e->rs, NULL, cap * sizeof *v);
    if (!v)
        return false;
    fwpt_memset(v, 0, cap * sizeof *v);
    for (size_t i = 0; i <= e->mask; i++)
        if (e->v[i].count)
            *edge_find(v, cap - 1, e->v[i].from, e->v[i].to) = e->v[i];
    if (e->owned)
        fwpt_resize(&e->rs, e->v, 0);
    e->v = v;
    e->owned = 1;
    e->mask = cap - 1;
    return true;
}

void fwpt_edges_add(struct fwpt_edges *e, uint64_t from, uint64_t to, uint64_t count)
{
    if (!e->v || !count)
        return;
    struct fwpt_edge *s = edge_find(e->v, e->mask, from, to);
    if (s->count) {
        s->count += count;
        return;
    }
    if ((e->n + 1) * 4 > (e->mask + 1) * 3) {
        if (!edges_grow(e)) {
            e->dropped += count;
            return;
        }
        s = edge_find(e->v, e->mask, from, to);
    }
    s->from = from;
    s->to = to;
    s->count = count;
    e->n++;
}

void fwpt_edges_merge(struct fwpt_edges *e, const struct fwpt_edges *src)
{
    for (size_t i = 0; src->v && i <= src->mask; i++)
        if (src->v[i].count)
            fwpt_edges_add(e, src->v[i].from, src->v[i].to, src->v[i].count);
    e->dropped += src->dropped;
}

static bool edge_less(const struct fwpt_edge *a, const struct fwpt_edge *b)
{
    return a->from < b->from || (a->from == b->from && a->to < b->to);
}

static void sift_down(struct fwpt_edge *h, size_t i, size_t n)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && edge_less(&h[c], &h[c + 1]))
            c++;
        if (!edge_less(&h[i], &h[c]))
            return;
        struct fwpt_edge t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

void fwpt_edges_sorted(const struct fwpt_edges *e, struct fwpt_edge *out)
{
    size_t n = 0;
    for (size_t i = 0; e->v && i <= e->mask; i++)
        if (e->v[i].count)
            out[n++] = e->v[i];
    for (size_t i = n / 2; i-- > 0;)
        sift_down(out, i, n);
    for (size_t k = n; k-- > 1;) {
        struct fwpt_edge t = out[0];
        out[0] = out[k];
        out[k] = t;
        sift_down(out, 0, k);
    }
}
