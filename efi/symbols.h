/* fwpt — the loaded images (EFI_LOADED_IMAGE_PROTOCOL on every handle): base, size, a name (the
 * PE/COFF debug directory's PDB path basename, else the image's file path), and IP -> Module+0xOFF
 * through decode/image's map, which the printers, the profile and the flow decoder's reads use too. */
#ifndef FWPT_EFI_SYMBOLS_H
#define FWPT_EFI_SYMBOLS_H

#include <efi.h>
#include <stdbool.h>
#include <stdint.h>
#include "base/text.h"
#include "decode/image.h"

struct fwpt_image {
    uint64_t base, size;
    char name[64];   /* "PciBusDxe", "fwpt" */
    char file[160];  /* device path of the file, "" when unknown */
    char pdb[160];   /* PDB path from the debug directory, "" when none */
    char pdb_guid[40]; /* its CodeView RSDS GUID ("" when none: no record, or NB10) and age: a PDB's identity */
    uint32_t pdb_age;
    char fv_guid[40]; /* the FV file's GUID (MEDIA_PIWG_FW_FILE_DP), "" when not loaded from a firmware volume */
    bool touched;    /* the trace has an IP inside */
    uint64_t insns;  /* instructions decoded inside (flow decoder) */
    const uint8_t *code; /* a copy of the image's bytes (an image unloaded since), NULL: live memory */
};

struct fwpt_symbols {
    struct fwpt_image *img; /* pool memory, sorted by base */
    unsigned count;
    struct fwpt_module *mod;  /* decode/image's map of img (mod[i] is img[i]): names, bases, sizes, bytes */
    struct fwpt_modules map;
};

EFI_STATUS fwpt_symbols_load(struct fwpt_symbols *s);
/* The image behind li, from live memory: base, size, file, name, CodeView path and identity, FV file GUID (code
 * NULL). */
void fwpt_symbols_describe(EFI_LOADED_IMAGE *li, struct fwpt_image *m);
/* Adds a described image (one no longer loaded: m->code holds its copy), kept sorted. */
EFI_STATUS fwpt_symbols_add_image(struct fwpt_symbols *s, const struct fwpt_image *m);
void fwpt_symbols_free(struct fwpt_symbols *s);
/* Adds an image that is no longer loaded (its bytes copied at code), kept sorted. */
EFI_STATUS fwpt_symbols_add(struct fwpt_symbols *s, uint64_t base, uint64_t size, const char *path,
                            const uint8_t *code);
/* The bytes of image m: its copy, or live memory. */
static inline const uint8_t *fwpt_image_bytes(const struct fwpt_image *m)
{
    return m->code ? m->code : (const uint8_t *)(uintptr_t)m->base;
}
/* The image containing ip, or NULL (fwpt_image_module_at over the map). */
struct fwpt_image *fwpt_symbols_find(const struct fwpt_symbols *s, uint64_t ip);
/* "PciBusDxe+0x1a2b", or "0xADDRESS" outside every image. */
void fwpt_symbols_put(const struct fwpt_symbols *s, uint64_t ip, const struct fwpt_sink *o);
#endif
