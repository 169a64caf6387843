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

static bool pe_problem(struct fwpt_pe_problem *why, const char *what, uint64_t value, uint64_t limit)
{
    if (why) {
        why->what = what;
        why->value = value;
        why->limit = limit;
    }
    return false;
}

/* COFF File Header (20 bytes) after "PE\0\0": Machine +0, NumberOfSections +2, SizeOfOptionalHeader +16; the
 * optional header's Subsystem at +68 (PE32 and PE32+ alike); section headers of 40 bytes, SizeOfRawData at +16,
 * PointerToRawData at +20. */
bool fwpt_pe_check_file(const uint8_t *f, uint64_t size, uint16_t *subsystem, struct fwpt_pe_problem *why)
{
    if (size < 0x40)
        return pe_problem(why, "shorter than an MS-DOS header (%lu bytes, 64 needed)", size, 0x40);
    if (f[0] != 'M' || f[1] != 'Z')
        return pe_problem(why, "no MZ signature at offset 0", 0, 0);
    uint64_t pe = rd32(f + 0x3c);
    if (pe > size || size - pe < 24)
        return pe_problem(why, "e_lfanew 0x%lx leaves no room for the PE signature and COFF header (%lu bytes)", pe,
                          size);
    if (f[pe] != 'P' || f[pe + 1] != 'E' || f[pe + 2] || f[pe + 3])
        return pe_problem(why, "no PE signature at offset 0x%lx (e_lfanew)", pe, 0);
    uint16_t machine = rd16(f + pe + 4), sections = rd16(f + pe + 6), opt_size = rd16(f + pe + 20);
    if (machine != 0x8664)
        return pe_problem(why, "Machine 0x%lx is not x64 (0x8664)", machine, 0);
    uint64_t opt = pe + 24;
    if (opt_size < 70 || opt + opt_size > size)
        return pe_problem(why, "the optional header (%lu bytes) does not fit in the file (%lu bytes)", opt_size, size);
    uint16_t magic = rd16(f + opt);
    if (magic != 0x20b)
        return pe_problem(why, "optional header Magic 0x%lx is not PE32+ (0x20b)", magic, 0);
    uint64_t sec = opt + opt_size;
    if (sec + 40ull * sections > size)
        return pe_problem(why, "the section table (%lu sections) runs past the end of the file (%lu bytes)", sections,
                          size);
    for (unsigned i = 0; i < sections; i++) {
        const uint8_t *s = f + sec + 40ull * i;
        uint64_t raw = rd32(s + 16), at = rd32(s + 20);
        if (raw && at + raw > size)
            return pe_problem(why, "a section's raw data ends at byte %lu, past the end of the file (%lu bytes)",
                              at + raw, size);
    }
    *subsystem = rd16(f + opt + 68);
    return true;
}
