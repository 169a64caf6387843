/* fwpt tests — a growing text sink in memory (struct fwpt_sink's write), kept NUL-terminated; out of memory
 * aborts. Header-only (static inline): the fuzzers are built from the library sources alone (Makefile rule
 * $(B)/fuzz/%), without the tests/common objects. */
#ifndef FWPT_TESTS_MEM_SINK_H
#define FWPT_TESTS_MEM_SINK_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct mem {
    char *p;
    size_t n, cap;
};

static inline void mem_write(void *ctx, const char *s, size_t n)
{
    struct mem *m = ctx;
    if (m->n + n + 1 > m->cap) {
        m->cap = (m->n + n + 1) * 2 + 4096;
        m->p = realloc(m->p, m->cap);
        if (!m->p)
            abort();
    }
    memcpy(m->p + m->n, s, n);
    m->n += n;
    m->p[m->n] = 0;
}

#endif
