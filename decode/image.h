/* fwpt — the image map: address -> module (name, base, size), offset and code bytes. One map for the
 * printers' Module+offset, the profile's modules, the firmware's loaded images (efi/symbols) and the code
 * the flow decoder reads (in firmware and in the host tool). Freestanding. */
#ifndef FWPT_DECODE_IMAGE_H
#define FWPT_DECODE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "base/text.h"

/* A loaded image: instructions inside [base, base+size) print as "name+0xoffset"; its code bytes, when
 * known, are code[0 .. code_size) from base on (live memory in firmware, a saved copy on the host). */
struct fwpt_module {
    const char *name;
    uint64_t base, size;
    const uint8_t *code; /* NULL: no bytes (addresses only) */
    uint64_t code_size;
};

struct fwpt_modules {
    const struct fwpt_module *v; /* sorted by base for fwpt_image_module_at and fwpt_image_modules_read */
    size_t n;
    size_t last; /* lookup cache */
};

/* The module holding ip, or NULL. Index in *index (n when none) if index is not NULL. Any order: the last
 * module found when it holds ip, else the first in order that does (overlapping modules: the earlier one). */
const struct fwpt_module *fwpt_image_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index);

/* Sorted by base: the module holding ip with the greatest base <= ip (overlapping modules: the later one,
 * looking back a few), or NULL; with code: only a module whose bytes hold ip. Binary search, no cache. */
const struct fwpt_module *fwpt_image_module_at(const struct fwpt_modules *m, uint64_t ip, int with_code);

/* The flow decoder's read callback (fwpt_flow_read_fn) over a sorted map (ctx: const struct fwpt_modules *):
 * the bytes from ip to the end of its module's code, or 0 outside every module with bytes. */
size_t fwpt_image_modules_read(void *ctx, uint64_t ip, const uint8_t **bytes);

/* "Module+0xoff", or nothing outside every module; padded to width when width > 0. */
void fwpt_image_module_put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width);

/* The CRC-32 (ISO-HDLC, as zlib's crc32) of a PE/COFF image's code, the image as loaded (an RVA is an offset into
 * image; size bytes): the bytes of every section marked IMAGE_SCN_MEM_EXECUTE, in section-table order, each from its
 * VirtualAddress for its VirtualSize (SizeOfRawData when that is 0), cut at size; a section that starts inside
 * the one before it is skipped (the table ascends: each byte is hashed once at most). *bytes: how many were hashed; 0
 * (and 0 returned) when image is not PE/COFF or has no such section. The app records it per traced image
 * (sideband.json "code_crc32"); the host checks img-BASE.bin against it. */
uint32_t fwpt_image_code_crc32(const uint8_t *image, uint64_t size, uint64_t *bytes);

#endif
