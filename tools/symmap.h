/* fwpt — the symbol files of --symbols matched to the traced images, as one resolver for the whole trace
 * (render/resolve.h). Each traced image gets the symbol file the trace's own records point to (its CodeView path,
 * its FV file GUID, its name; or FILE@BASE by hand), and only when that file's code agrees with the traced bytes (a
 * PDB: when its GUID and age are those of the image's CodeView entry) (docs/symbols.md: the matching and the byte
 * check). Host only: files, directories, elfutils' libelf, LLVM's PDB tools (tools/symbols_pdb.h). */
#ifndef FWPT_TOOLS_SYMMAP_H
#define FWPT_TOOLS_SYMMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "render/resolve.h"

/* One traced image, as sideband.json records it (the strings are the caller's, read during fwpt_symmap_match). */
struct fwpt_symmap_image {
    const char *name;          /* the trace's name of it ("DxeCore") */
    uint64_t base, size;       /* load base and image size */
    const uint8_t *code;       /* its bytes from base (img-BASE.bin), code_size of them; NULL: none recorded */
    size_t code_size;
    const char *codeview;      /* the CodeView path of its debug entry, NULL or "": none */
    const char *fv_guid;       /* its FV file GUID, NULL or "": none */
};

struct fwpt_symmap;

/* A new map; its messages go to msg (one line each, beginning "CMD: "); quiet: warnings only, no notes. */
struct fwpt_symmap *fwpt_symmap_new(const char *cmd, FILE *msg, int quiet);
/* Matches the n images to the symbol files of the --symbols arguments (each an ELF file, a PDB, a directory
 * searched recursively, or FILE@BASE) and opens each match once. Whatever cannot be used is said on msg and
 * leaves those images without names; it never fails. */
void fwpt_symmap_match(struct fwpt_symmap *m, const char *const *args, size_t nargs,
                       const struct fwpt_symmap_image *im, size_t n);
/* The resolver answering for every matched image (valid until fwpt_symmap_free); "not known" elsewhere. */
struct fwpt_resolver fwpt_symmap_resolver(struct fwpt_symmap *m);
/* The symbol file used for image i of fwpt_symmap_match's list, NULL: none; *how (when not NULL) says by what it was
 * matched: "CodeView path", "FV file GUID", "name", "code bytes", "PDB GUID/age", "FILE@BASE". */
const char *fwpt_symmap_file(const struct fwpt_symmap *m, size_t i, const char **how);
/* The note of the end of a run: "names: N of M traced images matched (...)", on msg (not when quiet); before it, a
 * warning for each PDB whose llvm-symbolizer stopped answering during the run (its later lines are not known). */
void fwpt_symmap_summary(const struct fwpt_symmap *m);
void fwpt_symmap_free(struct fwpt_symmap *m);

#endif
