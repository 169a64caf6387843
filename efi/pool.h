/* fwpt — pool memory of the EFI application: a pool pointer freed at most once. */
#ifndef FWPT_EFI_POOL_H
#define FWPT_EFI_POOL_H

#include <efi.h>
#include <efilib.h>

/* FreePool(p) when p is set; returns NULL, so that `x = fwpt_pool_free(x)` frees x and clears it. */
static inline void *fwpt_pool_free(void *p)
{
    if (p)
        FreePool(p);
    return NULL;
}

#endif
