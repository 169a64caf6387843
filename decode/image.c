/* fwpt — the image map (see image.h). */
#include "decode/image.h"

const struct fwpt_module *fwpt_image_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index)
{
    if (m && m->n) {
        size_t i = m->last < m->n ? m->last : 0;
        if (ip - m->v[i].base < m->v[i].size) {
            if (index)
                *index = i;
            return &m->v[i];
        }
        for (i = 0; i < m->n; i++)
            if (ip - m->v[i].base < m->v[i].size) {
                m->last = i;
                if (index)
                    *index = i;
                return &m->v[i];
            }
    }
    if (index)
        *index = m ? m->n : 0;
    return NULL;
}

/* "Module+0xoff", or nothing outside every module; padded to width when width > 0. */
void fwpt_image_module_put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width)
{
    char buf[96];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    const struct fwpt_module *m = fwpt_image_module_find(mods, ip, NULL);
    if (m) {
        fwpt_puts(&s, m->name);
        fwpt_putc(&s, '+');
        fwpt_put_0x(&s, ip - m->base);
    }
    buf[b.len < sizeof buf ? b.len : sizeof buf - 1] = 0;
    if (width)
        fwpt_put_padded(o, buf, width);
    else
        fwpt_puts(o, buf);
}

const struct fwpt_module *fwpt_image_module_at(const struct fwpt_modules *m, uint64_t ip, int with_code)
{
    if (!m)
        return NULL;
    size_t lo = 0, hi = m->n; /* the first module with base > ip */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->v[mid].base <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        const struct fwpt_module *v = &m->v[k];
        if (with_code ? v->code && ip - v->base < v->code_size : ip - v->base < v->size)
            return v;
        if (k + 4 < lo)
            break; /* overlapping modules: look a few back, no further */
    }
    return NULL;
}

size_t fwpt_image_modules_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct fwpt_module *v = fwpt_image_module_at(ctx, ip, 1);
    if (!v)
        return 0;
    *bytes = v->code + (ip - v->base);
    return (size_t)(v->code_size - (ip - v->base));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32 of ISO-HDLC (reflected polynomial 0xedb88320, initial and final XOR 0xffffffff, as zlib's crc32), four
 * bits at a time: the firmware hashes every traced image's code with it. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, uint64_t n)
{
    static const uint32_t nibble[16] = {
        0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
        0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
    };
    for (uint64_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble[crc & 15];
        crc = (crc >> 4) ^ nibble[crc & 15];
    }
    return crc;
}

/* PE/COFF specification: e_lfanew at 0x3c -> "PE\0\0", the COFF file header (NumberOfSections at +6,
 * SizeOfOptionalHeader at +20), then the section table after the optional header: 40-byte entries, VirtualSize at
 * +8, VirtualAddress at +12, SizeOfRawData at +16, Characteristics at +36 (IMAGE_SCN_MEM_EXECUTE 0x20000000). */
uint32_t fwpt_image_code_crc32(const uint8_t *image, uint64_t size, uint64_t *bytes)
{
    *bytes = 0;
    if (size < 0x40 || image[0] != 'M' || image[1] != 'Z')
        return 0;
    uint32_t pe = le32(image + 0x3c);
    if ((uint64_t)pe + 24 > size || le32(image + pe) != 0x00004550u)
        return 0;
    unsigned nsec = (unsigned)image[pe + 6] | (unsigned)image[pe + 7] << 8;
    uint64_t sec = (uint64_t)pe + 24 + ((unsigned)image[pe + 20] | (unsigned)image[pe + 21] << 8);
    uint32_t crc = 0xffffffffu;
    uint64_t next = 0; /* sections ascend and do not overlap (PE/COFF: "in ascending order"): each byte once at most */
    for (unsigned i = 0; i < nsec && sec + 40 * (uint64_t)(i + 1) <= size; i++) {
        const uint8_t *s = image + sec + 40 * (uint64_t)i;
        uint32_t vsize = le32(s + 8), rva = le32(s + 12);
        if (!vsize)
            vsize = le32(s + 16);
        if (rva >= size || rva < next)
            continue;
        uint64_t n = (uint64_t)rva + vsize > size ? size - rva : vsize;
        next = rva + n;
        if (!(le32(s + 36) & 0x20000000u))
            continue;
        crc = crc32_update(crc, image + rva, n);
        *bytes += n;
    }
    return *bytes ? ~crc : 0;
}
