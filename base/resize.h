/* fwpt — an allocator the caller lends to tables that grow (analyze/edges, analyze/sumprof): the host tool
 * passes realloc, firmware passes none and the tables stay at the size they were given. */
#ifndef FWPT_BASE_RESIZE_H
#define FWPT_BASE_RESIZE_H

#include <stddef.h>

struct fwpt_resize {
    /* realloc's contract: old NULL allocates, size 0 frees (returns NULL); NULL when out of memory */
    void *(*fn)(void *ctx, void *old, size_t size);
    void *ctx;
};

static inline void *fwpt_resize(const struct fwpt_resize *r, void *old, size_t size)
{
    return r && r->fn ? r->fn(r->ctx, old, size) : NULL;
}

#endif
