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

#endif
