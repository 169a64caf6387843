/* fwpt — the resolver render/ asks for names: address -> function (name and entry, for name+offset), source
 * file and line, inlined or not. A backend fills struct fwpt_resolver (on the host: tools/symbols_dw.h, reading
 * the build's ELF/DWARF; in firmware: none, and names stay module+offset). "Not known" is an ordinary answer.
 * Freestanding: no libc, no allocation; the strings an answer points to are the backend's, valid until it closes. */
#ifndef FWPT_RENDER_RESOLVE_H
#define FWPT_RENDER_RESOLVE_H

#include <stdint.h>

/* What the symbol file says about one runtime address; a field not known is NULL or 0. */
struct fwpt_resolved {
    const char *function;    /* the function symbol containing the address (as `nm` names it), NULL: not known */
    uint64_t function_entry; /* its runtime start address: the offset printed is address - function_entry */
    const char *file;        /* source file of the address's line-table row (as `addr2line` prints it), NULL: not known */
    uint32_t line;           /* its line, 0: not known */
    uint32_t inlined;        /* 1: the address lies in code the compiler inlined into function (DWARF says so) */
};

/* Each answer fills *out entirely and returns 1 when the function or the line is known, 0 when neither is. */
typedef int (*fwpt_resolve_fn)(void *ctx, uint64_t address, struct fwpt_resolved *out);

struct fwpt_resolver {
    fwpt_resolve_fn resolve; /* NULL: no resolver (every address "not known") */
    void *ctx;
};

/* Asks r about address; without a resolver the answer is "not known" (all fields 0). */
static inline int fwpt_resolve(const struct fwpt_resolver *r, uint64_t address, struct fwpt_resolved *out)
{
    if (!r || !r->resolve) {
        *out = (struct fwpt_resolved){0};
        return 0;
    }
    return r->resolve(r->ctx, address, out);
}

#endif
