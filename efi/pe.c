/* fwpt — PE/COFF image names (pure: no EFI headers, host-tested). */
#include "efi/pe.h"
#include "base/text.h"

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* basename without the extension ("/b/DEBUG/PciBusDxe.dll" -> "PciBusDxe") */
void fwpt_path_basename(const char *path, char *out, size_t cap)
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            b = p + 1;
    size_t n = 0;
    while (b[n] && n + 1 < cap)
        n++;
    for (size_t i = n; i > 0; i--)
        if (b[i - 1] == '.') {
            n = i - 1;
            break;
        }
    if (n == 0) /* ".efi" alone: keep it */
        while (b[n] && n + 1 < cap)
            n++;
    fwpt_memcpy(out, b, n);
    out[n] = 0;
}

/* PE/COFF: DOS e_lfanew at 0x3c -> "PE\0\0", COFF header (20), optional header; PE32+ (0x20b)
 * data directories at +112, PE32 (0x10b) at +96; directory 6 = debug; debug entries are 28 bytes:
 * Type at +12 (2 = CodeView), AddressOfRawData at +20, SizeOfData at +16. The CodeView record: "RSDS", the
 * GUID (16 bytes), the age (4), the path; or "NB10", offset, time stamp, age, the path. Each call below takes the
 * first CodeView record whose path is not empty: *skip the path's offset in it, *len its size. */
static const uint8_t *codeview(const uint8_t *img, uint64_t size, uint32_t *skip, uint32_t *len)
{
    if (size < 0x40 || img[0] != 'M' || img[1] != 'Z')
        return NULL;
    uint32_t pe = rd32(img + 0x3c);
    if ((uint64_t)pe + 24 + 2 > size || rd32(img + pe) != 0x00004550u)
        return NULL;
    const uint8_t *opt = img + pe + 24;
    uint16_t magic = rd16(opt);
    uint32_t dd = magic == 0x20b ? 112 : magic == 0x10b ? 96 : 0;
    if (!dd || (uint64_t)pe + 24 + dd + 8 * 7 > size)
        return NULL;
    uint32_t ndirs = rd32(opt + dd - 4);
    if (ndirs < 7)
        return NULL;
    uint32_t drva = rd32(opt + dd + 8 * 6), dsize = rd32(opt + dd + 8 * 6 + 4);
    if (!drva || (uint64_t)drva + dsize > size)
        return NULL;
    for (uint32_t off = 0; off + 28 <= dsize; off += 28) {
        const uint8_t *e = img + drva + off;
        uint32_t type = rd32(e + 12), n = rd32(e + 16), rva = rd32(e + 20);
        if (type != 2 || !rva || (uint64_t)rva + n > size || n < 8)
            continue;
        const uint8_t *cv = img + rva;
        uint32_t k = rd32(cv) == 0x53445352u ? 24 : rd32(cv) == 0x3031424eu ? 16 : 0; /* RSDS, NB10 */
        if (!k || n <= k || !cv[k])
            continue;
        *skip = k;
        *len = n;
        return cv;
    }
    return NULL;
}

bool fwpt_pe_debug_name(const uint8_t *img, uint64_t size, char *pdb, size_t pdb_cap, char *name, size_t name_cap)
{
    uint32_t skip, len;
    const uint8_t *cv = codeview(img, size, &skip, &len);
    if (!cv)
        return false;
    size_t n = 0;
    while (skip + n < len && cv[skip + n] && n + 1 < pdb_cap) {
        pdb[n] = (char)cv[skip + n];
        n++;
    }
    pdb[n] = 0;
    fwpt_path_basename(pdb, name, name_cap);
    return true;
}

bool fwpt_pe_debug_guid(const uint8_t *img, uint64_t size, uint8_t guid[16], uint32_t *age)
{
    uint32_t skip, len;
    const uint8_t *cv = codeview(img, size, &skip, &len);
    if (!cv || skip != 24)
        return false;
    fwpt_memcpy(guid, cv + 4, 16);
    *age = rd32(cv + 20);
    return true;
}
