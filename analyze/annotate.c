/* fwpt — instructions per address (see annotate.h). */
#include "analyze/annotate.h"
#include "base/text.h"

void fwpt_addr_counts_init(struct fwpt_addr_counts *c, struct fwpt_addr_count *v, size_t cap,
                           const struct fwpt_resize *rs)
{
    fwpt_memset(c, 0, sizeof *c);
    c->v = v;
    c->mask = cap - 1;
    c->rs = rs;
    for (size_t i = 0; i < cap; i++)
        v[i].addr = FWPT_ADDR_FREE, v[i].count = 0;
}

static void put(struct fwpt_addr_count *v, size_t mask, uint64_t addr, uint64_t w)
{
    size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 17) & mask;
    while (v[i].addr != FWPT_ADDR_FREE && v[i].addr != addr)
        i = (i + 1) & mask;
    v[i].addr = addr;
    v[i].count += w;
}

/* Twice the size through c->rs, every entry rehashed; 0 when there is no allocator or it failed. */
static int grow(struct fwpt_addr_counts *c)
{
    size_t cap = c->mask + 1, ncap = cap * 2;
    if (!c->rs || ncap < cap || ncap > (size_t)-1 / sizeof *c->v)
        return 0;
    struct fwpt_addr_count *nv = fwpt_resize(c->rs, NULL, ncap * sizeof *nv);
    if (!nv)
        return 0;
    for (size_t i = 0; i < ncap; i++)
        nv[i].addr = FWPT_ADDR_FREE, nv[i].count = 0;
    for (size_t i = 0; i < cap; i++)
        if (c->v[i].addr != FWPT_ADDR_FREE)
            put(nv, ncap - 1, c->v[i].addr, c->v[i].count);
    fwpt_resize(c->rs, c->v, 0);
    c->v = nv;
    c->mask = ncap - 1;
    return 1;
}

void fwpt_addr_counts_insert(struct fwpt_addr_counts *c, uint64_t addr, uint64_t w)
{
    if (addr == FWPT_ADDR_FREE || c->sorted)
        return;
    c->total += w;
    /* at most 3/4 full: a probe stays short, and one slot is always free (the lookup ends) */
    if ((c->n + 1) * 4 > (c->mask + 1) * 3 && !grow(c)) {
        c->dropped += w;
        return;
    }
    put(c->v, c->mask, addr, w);
    c->n++;
}

static void sift(struct fwpt_addr_count *v, size_t i, size_t n)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && v[l].addr > v[m].addr)
            m = l;
        if (l + 1 < n && v[l + 1].addr > v[m].addr)
            m = l + 1;
        if (m == i)
            return;
        struct fwpt_addr_count t = v[i];
        v[i] = v[m];
        v[m] = t;
        i = m;
    }
}

size_t fwpt_addr_counts_sorted(struct fwpt_addr_counts *c)
{
    if (c->sorted)
        return c->n;
    size_t n = 0;
    for (size_t i = 0; i <= c->mask; i++)
        if (c->v[i].addr != FWPT_ADDR_FREE)
            c->v[n++] = c->v[i];
    for (size_t i = n / 2; i-- > 0;)
        sift(c->v, i, n);
    for (size_t k = n; k > 1; k--) {
        struct fwpt_addr_count t = c->v[0];
        c->v[0] = c->v[k - 1];
        c->v[k - 1] = t;
        sift(c->v, 0, k - 1);
    }
    c->sorted = 1;
    return n;
}
