/* fwpt — the host's resolver backend for PDB files (Microsoft's program database: MSVC and lld-link /debug builds),
 * read through LLVM's tools since nothing else on Debian reads PDB: llvm-pdbutil (the signature, the section
 * headers and the procedure symbols, once at open) and one llvm-symbolizer process per PDB kept over a socket
 * (file, line and inlined frames, asked once per address and cached). Answers render/resolve.h like
 * tools/symbols_dw.h. The PDB is only used when its GUID and age equal those of the traced image's CodeView
 * (RSDS) debug entry: the image's own statement of which PDB describes its code. */
#ifndef FWPT_TOOLS_SYMBOLS_PDB_H
#define FWPT_TOOLS_SYMBOLS_PDB_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "render/resolve.h"
#include "tools/symbols_dw.h"

/* The first bytes of every PDB (an MSF 7.00 container). */
#define FWPT_PDB_MAGIC "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0"
#define FWPT_PDB_MAGIC_SIZE 32

/* What a symbol file is, by its first bytes. */
enum fwpt_symfile_kind {
    FWPT_SYMFILE_UNKNOWN,
    FWPT_SYMFILE_ELF, /* \x7f E L F */
    FWPT_SYMFILE_PDB, /* FWPT_PDB_MAGIC */
};
enum fwpt_symfile_kind fwpt_symfile_kind(const void *head, size_t n);

/* An image's CodeView debug entry (PE/COFF specification, "Debug Directory (Image Only)",
 * IMAGE_DEBUG_TYPE_CODEVIEW with an RSDS record). */
struct fwpt_codeview {
    uint8_t guid[16]; /* as stored: Data1..Data3 little-endian, then 8 bytes */
    uint32_t age;
    char path[512]; /* the PDB path the linker wrote (cut to fit) */
};
/* Reads the RSDS entry of image (the PE/COFF image as loaded: RVA == offset, size bytes from its load base).
 * 0, or -1 with why (a sentence without the image's name) in err: not a PE32+ image, no debug directory, no RSDS
 * entry, an entry past size. Every offset is checked against size. */
int fwpt_pe_codeview(const uint8_t *image, size_t size, struct fwpt_codeview *cv, char *err, size_t err_size);
/* The GUID as llvm-pdbutil and debuggers print it: "{5A7BD5C1-842B-0A9B-4C4C-44205044422E}" (39 bytes). */
void fwpt_guid_text(const uint8_t guid[16], char out[40]);

struct fwpt_symbols_pdb;

/* Opens the PDB at path for the traced image (image, size bytes as loaded from load_base; its CodeView entry must
 * name this PDB's GUID and age). On failure *out is NULL and err holds one line naming the file and what is wrong:
 * FWPT_E_IO: the file cannot be read, llvm-pdbutil or llvm-symbolizer is missing or failed ($FWPT_LLVM_PDBUTIL,
 * $FWPT_LLVM_SYMBOLIZER name others); FWPT_E_INVAL: not a PDB, an image without a CodeView RSDS entry, a PDB of
 * another build (GUID or age differ), no procedure symbols. */
enum fwpt_status fwpt_symbols_open_pdb(struct fwpt_symbols_pdb **out, const char *path, const uint8_t *image,
                                       size_t size, uint64_t load_base, char *err, size_t err_size);
void fwpt_symbols_pdb_close(struct fwpt_symbols_pdb *s);
/* The PDB's own signature (`llvm-pdbutil dump --summary`), without opening it for lookups: its GUID as
 * fwpt_guid_text prints it and its age; the statuses and messages of fwpt_symbols_open_pdb. */
enum fwpt_status fwpt_pdb_signature(const char *path, char guid[40], uint32_t *age, char *err, size_t err_size);
/* 1 when llvm-pdbutil and llvm-symbolizer are both found; else 0, err naming the missing one and its package. */
int fwpt_pdb_tools(char *err, size_t err_size);
/* The resolver answering for s (valid until fwpt_symbols_pdb_close). Function and entry: the S_GPROC32/S_LPROC32
 * symbol holding the address; file and line: the function's line table (llvm-symbolizer's outermost frame, as
 * `llvm-pdbutil dump --l` lists it); inlined: llvm-symbolizer names inlined frames at the address. */
struct fwpt_resolver fwpt_symbols_pdb_resolver(struct fwpt_symbols_pdb *s);
/* Counts of lookups answered from the cache and by llvm-symbolizer, and the number of functions read. */
void fwpt_symbols_pdb_stats(const struct fwpt_symbols_pdb *s, uint64_t *cached, uint64_t *looked_up,
                            size_t *functions);
/* NULL while llvm-symbolizer answers; after it failed (died, hung, answered nonsense): why, one line naming the
 * PDB. Its later answers are "not known": a caller that printed names checks this before calling the result done. */
const char *fwpt_symbols_pdb_failure(const struct fwpt_symbols_pdb *s);

/* One symbol file of either kind, chosen by its first bytes. */
struct fwpt_symfile {
    enum fwpt_symfile_kind kind;
    struct fwpt_symbols *elf;
    struct fwpt_symbols_pdb *pdb;
};
/* Opens path as an ELF file (fwpt_symbols_open) or a PDB (fwpt_symbols_open_pdb: image and size are needed, the
 * traced image as loaded); anything else is refused with FWPT_E_INVAL, a message naming the file. */
enum fwpt_status fwpt_symbols_open_any(struct fwpt_symfile *out, const char *path, const uint8_t *image, size_t size,
                                       uint64_t load_base, char *err, size_t err_size);
struct fwpt_resolver fwpt_symfile_resolver(struct fwpt_symfile *f);
void fwpt_symfile_close(struct fwpt_symfile *f);

#endif
