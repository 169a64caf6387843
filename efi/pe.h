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
/* The GUID and age of the image's CodeView RSDS record (PE/COFF specification, "Debug Type": IMAGE_DEBUG_TYPE_CODEVIEW),
 * which a PDB must carry to belong to it: the GUID's 16 bytes as stored (Data1..Data3 little-endian), the age.
 * false when the record is NB10 (no GUID) or there is none. The same record fwpt_pe_debug_name reads. */
bool fwpt_pe_debug_guid(const uint8_t *image, uint64_t size, uint8_t guid[16], uint32_t *age);
/* Basename of a '/' or '\\' path without its last extension ("\\EFI\\BOOT\\BOOTX64.EFI" -> "BOOTX64"). */
void fwpt_path_basename(const char *path, char *out, size_t cap);

/* What fwpt_pe_check_file found wrong: what is a printf format (static) whose %lu / %lx take value, then limit. */
struct fwpt_pe_problem {
    const char *what;
    uint64_t value, limit;
};
/* The headers of a PE/COFF image as a file (PE/COFF specification, "MS-DOS Stub", "COFF File Header", "Optional
 * Header"): MZ, e_lfanew inside the file, "PE\0\0", Machine x64 (0x8664), Magic PE32+ (0x20b), the optional
 * header and section table inside the file and every section's raw data too. true with *subsystem set; false with
 * *why (may be NULL) when the file is not such an image. */
bool fwpt_pe_check_file(const uint8_t *file, uint64_t size, uint16_t *subsystem, struct fwpt_pe_problem *why);
/* The Subsystem value of an EFI boot service driver (PE/COFF specification, "Windows Subsystem"). */
#define FWPT_PE_SUBSYSTEM_EFI_APPLICATION 10u
#define FWPT_PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER 11u
#define FWPT_PE_SUBSYSTEM_EFI_RUNTIME_DRIVER 12u

#endif
