/* fwpt tests — a PE/COFF image file laid out as a loader lays it out (tests/common/pe_load.h). Offsets from the
 * PE/COFF specification: e_lfanew at 0x3c, the COFF file header (NumberOfSections at +6, SizeOfOptionalHeader at
 * +20), the optional header (SizeOfImage at 56, SizeOfHeaders at 60), 40-byte section headers. */
#include "tests/common/pe_load.h"

#include <stdlib.h>
#include <string.h>

#include "tests/common/tool_run.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int load_pe(const char *path, struct pe *pe)
{
    size_t n = 0;
    uint8_t *f = (uint8_t *)slurp(path, &n);
    memset(pe, 0, sizeof *pe);
    if (!f || n < 0x200 || f[0] != 'M' || f[1] != 'Z' || (uint64_t)le32(f + 0x3c) + 24 + 64 > n) {
        free(f);
        return 0;
    }
    const uint8_t *nt = f + le32(f + 0x3c), *opt = nt + 24;
    unsigned nsec = nt[6] | nt[7] << 8, optsize = nt[20] | nt[21] << 8;
    uint32_t headers = le32(opt + 60);
    pe->size = le32(opt + 56);
    if ((size_t)(opt - f) + optsize + 40u * nsec > n || headers > n || headers > pe->size ||
        !(pe->image = calloc(1, pe->size))) {
        free(f);
        memset(pe, 0, sizeof *pe);
        return 0;
    }
    memcpy(pe->image, f, headers);
    const uint8_t *sh = opt + optsize;
    for (unsigned i = 0; i < nsec && i < 16; i++, sh += 40) {
        uint32_t vsize = le32(sh + 8), rva = le32(sh + 12), raw = le32(sh + 16), at = le32(sh + 20);
        uint32_t k = raw < vsize ? raw : vsize;
        memcpy(pe->sec[i].name, sh, 8);
        pe->sec[i].rva = rva;
        pe->sec[i].vsize = vsize;
        pe->sec[i].flags = le32(sh + 36);
        if (k && (uint64_t)rva + k <= pe->size && (uint64_t)at + k <= n)
            memcpy(pe->image + rva, f + at, k);
    }
    pe->nsec = nsec < 16 ? nsec : 16;
    free(f);
    return 1;
}
