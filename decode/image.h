/* fwpt — the image map: address -> module (name, base, size) and offset. One map for the printers'
 * Module+offset, the profile's modules and the firmware's loaded images. Freestanding. */
#ifndef FWPT_DECODE_IMAGE_H
#define FWPT_DECODE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "base/text.h"

/* A loaded image: instructions inside [base, base+size) print as "name+0xoffset". */
struct fwpt_module {
    const char *name;
    uint64_t base, size;
};

struct fwpt_modules {
    const struct fwpt_module *v;
    size_t n;
    size_t last; /* lookup cache */
};

/* The module holding ip, or NULL. Index in *index (n when none) if index is not NULL. */
const struct fwpt_module *fwpt_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index);
/* "Module+0xoff", or nothing outside every module; padded to width when width > 0. */
void fwpt_module_put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width);

#endif
