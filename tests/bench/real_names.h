/* fwpt benches — real names for the firmware traces recorded on the EDK2 DEBUG OVMF (make bench: build/bench/fw-debug,
 * tests/bench/firmware-traces.sh with ../shared/ovmf-debug/OVMF.fd), from that build's full-DWARF .debug files
 * (unpacked from debug-full.tar.xz into build/bench/ovmf-debug-full), matched to the traced images as `fwpt flow
 * --symbols DIR` matches them (tools/symmap). Host only; links tools/symmap, symbols_dw, symbols_pdb, sideband. */
#ifndef FWPT_TESTS_BENCH_REAL_NAMES_H
#define FWPT_TESTS_BENCH_REAL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "render/resolve.h"
#include "tools/symmap.h"

/* The traces' directory (FWPT_BENCH_FW_DEBUG, else $FWPT_BUILD/bench/fw-debug) and the symbol files' (FWPT_BENCH_SYMBOLS,
 * else $FWPT_BUILD/bench/ovmf-debug-full): NULL, said on stdout as NOT RUN, when either is not there. */
int real_names_dirs(const char **traces, const char **symbols);

/* A trace's images as sideband.json lists them (name, base, size, bytes, CodeView path, FV file GUID). */
struct real_images {
    struct fwpt_symmap_image *v;
    size_t n;
};
/* Reads DIR/sideband.json and its images: 0, else -1 said on stderr. */
int real_images_read(const char *dir, struct real_images *out);
void real_images_free(struct real_images *im);

/* The symbol files of symdir matched to the images, quietly (warnings still on stderr): the resolver in *r, the map to
 * free with fwpt_symmap_free; *matched images got a file. NULL: out of memory. */
struct fwpt_symmap *real_names_open(const struct real_images *im, const char *symdir, struct fwpt_resolver *r,
                                    size_t *matched);

#endif
