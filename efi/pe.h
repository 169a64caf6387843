/* fwpt — names of PE/COFF images as loaded in memory. Pure C (no EFI headers), host-tested. */
#ifndef FWPT_EFI_PE_H
#define FWPT_EFI_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The name an image gives itself in its CodeView debug entry: the RSDS/NB10 PDB path into pdb and
 * its basename without extension into name ("/b/DEBUG/PciBusDxe.dll" -> "PciBusDxe"). image is
 * the image as loaded (RVA == offset), size its SizeOfImage; every offset is bounds-checked.
 * false when there is none. */
bool fwpt_pe_debug_name(const uint8_t *image, uint64_t size, char *pdb, size_t pdb_cap, char *name, size_t name_cap);
/* Basename of a '/' or '\\' path without its last extension ("\\EFI\\BOOT\\BOOTX64.EFI" -> "BOOTX64"). */
void fwpt_path_basename(const char *path, char *out, size_t cap);

#endif
