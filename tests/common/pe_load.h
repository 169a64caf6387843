/* fwpt tests — a PE/COFF image file laid out as a UEFI loader lays it out (the headers, then each section's raw data
 * at its RVA; no relocations applied), as img-BASE.bin records an image. Hosted C. */
#ifndef FWPT_TESTS_PE_LOAD_H
#define FWPT_TESTS_PE_LOAD_H

#include <stddef.h>
#include <stdint.h>

struct pe {
    uint8_t *image; /* as loaded: SizeOfImage bytes, RVA == offset (malloc'd) */
    size_t size;
    unsigned nsec;
    struct { char name[9]; uint32_t rva, vsize, flags; } sec[16];
};

/* The PE/COFF file at path into *pe: 1, or 0 (pe zeroed) when it cannot be read or is no PE image. */
int load_pe(const char *path, struct pe *pe);

#endif
