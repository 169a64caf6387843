/* fwpt — the host's resolver backend: one ELF file with symbols (an EDK2 *.debug, a gnu-efi .so) placed at a
 * runtime load base, read with elfutils' libdwfl/libdw; answers render/resolve.h. Address rule (docs/symbols.md):
 * runtime address = load base + the address in the ELF file (GenFw and objcopy keep section RVA = ELF address). */
#ifndef FWPT_TOOLS_SYMBOLS_DW_H
#define FWPT_TOOLS_SYMBOLS_DW_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "render/resolve.h"

struct fwpt_symbols;

/* Opens path placed at load_base. On failure *out is NULL, err (err_size bytes) holds a one-line message naming
 * the file and what is wrong with it; FWPT_E_IO: cannot be read; FWPT_E_INVAL: not a whole x86-64 ELF file. */
enum fwpt_status fwpt_symbols_open(struct fwpt_symbols **out, const char *path, uint64_t load_base, char *err,
                                   size_t err_size);
void fwpt_symbols_close(struct fwpt_symbols *s);
/* The resolver answering for s (valid until fwpt_symbols_close). */
struct fwpt_resolver fwpt_symbols_resolver(struct fwpt_symbols *s);
/* Counts of lookups answered from the caches and through libdw (for tests and measurements). */
void fwpt_symbols_stats(const struct fwpt_symbols *s, uint64_t *cached, uint64_t *looked_up);
/* Of the looked-up answers, those from a function's table (its line rows and inlined ranges, read once). */
uint64_t fwpt_symbols_tabled(const struct fwpt_symbols *s);
/* on = 0: every answer through the per-address libdw walk, as before the tables (to compare the two, and to
 * measure); 1 (the default): the tables. Either way the address cache starts empty. */
void fwpt_symbols_set_tables(struct fwpt_symbols *s, int on);

#endif
