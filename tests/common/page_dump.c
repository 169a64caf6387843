/* fwpt tests — code saved as a page dump (page_dump.h). */
#include "tests/common/page_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tool_run.h"

struct page_at {
    uint64_t addr;
    size_t index; /* in the dump */
};

static int by_addr(const void *a, const void *b)
{
    const struct page_at *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* the first copy first */
}

int page_dump_load(const char *who, const char *addr_path, const char *dump_path, struct page_dump *d)
{
    memset(d, 0, sizeof *d);
    size_t alen = 0, dlen = 0;
    char *a = slurp(addr_path, &alen), *dump = NULL;
    struct page_at *pg = NULL;
    int rc = -1;
    if (!a) {
        fprintf(stderr, "%s: %s: cannot read it\n", who, addr_path);
        goto out;
    }
    if (alen % 8) {
        fprintf(stderr, "%s: %s: %zu bytes, not a whole number of 8-byte page addresses\n", who, addr_path, alen);
        goto out;
    }
    if (!(dump = slurp(dump_path, &dlen))) {
        fprintf(stderr, "%s: %s: cannot read it\n", who, dump_path);
        goto out;
    }
    const size_t words = alen / 8;
    if (dlen / PAGE_DUMP_PAGE < words) {
        fprintf(stderr, "%s: %s: %zu bytes hold %zu whole pages, %s lists %zu\n", who, dump_path, dlen,
                dlen / PAGE_DUMP_PAGE, addr_path, words);
        goto out;
    }
    pg = malloc((words + 1) * sizeof *pg);
    d->page_addr = malloc((words + 1) * sizeof *d->page_addr);
    if (!pg || !d->page_addr) {
        fprintf(stderr, "%s: %s: out of memory for %zu pages\n", who, addr_path, words);
        goto out;
    }
    d->npages_file = words;
    size_t np = 0;
    for (size_t i = 0; i < words; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | (uint8_t)a[i * 8 + (size_t)k];
        d->page_addr[i] = UINT64_MAX;
        if (v & (PAGE_DUMP_PAGE - 1))
            d->unmapped++;
        else
            pg[np++] = (struct page_at){v, i};
    }
    qsort(pg, np, sizeof *pg, by_addr);
    size_t kept = 0;
    for (size_t i = 0; i < np; i++) {
        if (kept && pg[kept - 1].addr == pg[i].addr) {
            d->duplicates++;
            continue;
        }
        pg[kept++] = pg[i];
    }
    if (!kept) {
        fprintf(stderr, "%s: %s: no mapped page among its %zu words\n", who, addr_path, words);
        goto out;
    }
    d->runs = calloc(kept, sizeof *d->runs);
    if (!d->runs) {
        fprintf(stderr, "%s: %s: out of memory for %zu pages\n", who, addr_path, kept);
        goto out;
    }
    for (size_t i = 0; i < kept;) {
        size_t j = i + 1;
        while (j < kept && pg[j].addr == pg[j - 1].addr + PAGE_DUMP_PAGE)
            j++;
        struct page_run *r = &d->runs[d->n++];
        r->base = pg[i].addr;
        r->size = (j - i) * PAGE_DUMP_PAGE;
        if (!(r->code = malloc(r->size))) {
            fprintf(stderr, "%s: %s: out of memory for %zu bytes of code\n", who, dump_path, r->size);
            goto out;
        }
        for (size_t k = i; k < j; k++) {
            memcpy(r->code + (k - i) * PAGE_DUMP_PAGE, dump + pg[k].index * PAGE_DUMP_PAGE, PAGE_DUMP_PAGE);
            d->page_addr[pg[k].index] = pg[k].addr;
        }
        i = j;
    }
    d->pages = kept;
    rc = 0;
out:
    free(a);
    free(dump);
    free(pg);
    if (rc)
        page_dump_free(d);
    return rc;
}

void page_dump_free(struct page_dump *d)
{
    for (size_t i = 0; d->runs && i < d->n; i++)
        free(d->runs[i].code);
    free(d->runs);
    free(d->page_addr);
    memset(d, 0, sizeof *d);
}

size_t page_dump_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct page_dump *d = ctx;
    size_t lo = 0, hi = d->n;
    while (lo < hi) { /* the last run starting at or below ip */
        size_t mid = lo + (hi - lo) / 2;
        if (d->runs[mid].base <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || ip - d->runs[lo - 1].base >= d->runs[lo - 1].size)
        return 0;
    const struct page_run *r = &d->runs[lo - 1];
    *bytes = r->code + (ip - r->base);
    return r->size - (ip - r->base);
}
