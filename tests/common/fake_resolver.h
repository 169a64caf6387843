/* fwpt tests — a resolver (render/resolve.h) made up from the address alone, for listings of generated code and
 * the bench: over [base, base + size) a "function" every 64 bytes, with answers of every shape a symbol file
 * gives: plain names, names with bytes JSON, HTML and SVG escape ("we\"ird\\<&>'"), a name too long for the fast
 * listing's cache, functions not known (a line alone, or nothing), lines not known, Windows paths (a PDB's), code
 * inlined. Each answer is a pure function of the address; calls are counted. Header-only (static inline): the
 * fuzzers and benches link the library alone. */
#ifndef FWPT_TESTS_FAKE_RESOLVER_H
#define FWPT_TESTS_FAKE_RESOLVER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "decode/image.h"
#include "render/resolve.h"

struct fake_resolver {
    uint64_t base, size;
    unsigned long calls;
    char names[64][300]; /* the answers' strings: valid while the resolver is */
    char files[3][64];
};

/* The function number n's name (n % 64 picks its string). */
static inline int fake_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    struct fake_resolver *f = ctx;
    f->calls++;
    memset(out, 0, sizeof *out);
    if (a - f->base >= f->size)
        return 0;
    const uint64_t off = a - f->base, n = off / 64;
    if (n % 5 == 4) { /* no function: now and then a line alone */
        if (n % 2)
            return 0;
        out->file = f->files[n % 3];
        out->line = (uint32_t)(100 + off / 4);
        return 1;
    }
    out->function = f->names[n % 64];
    out->function_entry = f->base + n * 64;
    if (n % 6 != 1) { /* else no line */
        out->file = f->files[n % 3];
        out->line = (uint32_t)(10 + (off % 64) / 4);
    }
    out->inlined = (off / 8) % 4 == 1;
    return 1;
}

static inline struct fwpt_resolver fake_resolver_init(struct fake_resolver *f, uint64_t base, uint64_t size)
{
    memset(f, 0, sizeof *f);
    f->base = base;
    f->size = size;
    for (unsigned k = 0; k < 64; k++) {
        if (k % 7 == 3)
            snprintf(f->names[k], sizeof f->names[k], "we\"ird\\<&>'%u", k);
        else if (k % 11 == 5)
            memset(f->names[k], 'N', 250); /* too long for struct fwpt_list_name: the printer writes it */
        else
            snprintf(f->names[k], sizeof f->names[k], "Func_%u", k);
    }
    snprintf(f->files[0], sizeof f->files[0], "/build/MdeModulePkg/Core/Dxe/Mem/Pool.c");
    snprintf(f->files[1], sizeof f->files[1], "C:\\edk2\\MdePkg\\Library\\Base\\Str\"ing.c");
    snprintf(f->files[2], sizeof f->files[2], "relative/File.c");
    return (struct fwpt_resolver){fake_resolve, f};
}

/* The benches' resolver: fake_resolve over each module of mods (a function every 64 bytes from the module's
 * base), behind a direct-mapped cache of 4096 addresses as tools/symbols_dw.c's, a miss costing miss_ns of busy
 * CPU time (what one lookup through libdwfl costs: docs/performance.md). */
struct costly_resolver {
    struct fake_resolver f;
    struct fwpt_modules *mods;
    double miss_ns;
    unsigned long misses, hits;
    struct costly_slot {
        uint64_t a;
        int valid, known;
        struct fwpt_resolved r;
    } slot[4096];
};

static inline double costly_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int costly_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    struct costly_resolver *c = ctx;
    struct costly_slot *s = &c->slot[(a ^ (a >> 12)) & 4095];
    if (s->valid && s->a == a) {
        c->hits++;
        *out = s->r;
        return s->known;
    }
    c->misses++;
    const double until = costly_cpu_ns() + c->miss_ns;
    while (costly_cpu_ns() < until)
        ;
    const struct fwpt_module *m = fwpt_image_module_find(c->mods, a, NULL);
    s->known = 0;
    memset(&s->r, 0, sizeof s->r);
    if (m) {
        c->f.base = m->base;
        c->f.size = m->size;
        s->known = fake_resolve(&c->f, a, &s->r);
    }
    s->a = a;
    s->valid = 1;
    *out = s->r;
    return s->known;
}

/* A fresh resolver (empty cache) over mods. */
static inline struct fwpt_resolver costly_resolver_init(struct costly_resolver *c, struct fwpt_modules *mods,
                                                        double miss_ns)
{
    fake_resolver_init(&c->f, 0, 0);
    for (unsigned k = 0; k < 64; k++) /* plain names: the benches measure the common case */
        snprintf(c->f.names[k], sizeof c->f.names[k], "CoreFunction_%u", k);
    c->mods = mods;
    c->miss_ns = miss_ns;
    c->misses = c->hits = 0;
    memset(c->slot, 0, sizeof c->slot);
    return (struct fwpt_resolver){costly_resolve, c};
}

#endif
