/* fwpt tests — a small PE32+ image as loaded (RVA = offset), built in the caller's buffer: MZ, e_lfanew 0x80, the
 * COFF file header, a PE32+ optional header (SizeOfOptionalHeader 0xf0) and a section table at 0x188, each section's
 * bytes its fill byte from its VirtualAddress for its VirtualSize (PE/COFF specification, "Section Table"). */
#ifndef FWPT_TESTS_PE_IMAGE_H
#define FWPT_TESTS_PE_IMAGE_H

#include <stdint.h>
#include <string.h>

#define PE_IMAGE_SCN_CODE 0x60000020u /* IMAGE_SCN_CNT_CODE | MEM_EXECUTE | MEM_READ */
#define PE_IMAGE_SCN_DATA 0xc0000040u /* IMAGE_SCN_CNT_INITIALIZED_DATA | MEM_READ | MEM_WRITE */

struct pe_image_section {
    uint32_t rva, vsize, flags;
    uint8_t fill;
};

static inline void pe_image_put32(uint8_t *img, uint32_t off, uint32_t v) { memcpy(img + off, &v, 4); }

/* size bytes of image: the headers and the n sections (each inside size, after the table's end at 0x188 + 40 n) */
static inline void pe_image_build(uint8_t *img, uint32_t size, const struct pe_image_section *s, unsigned n)
{
    memset(img, 0, size);
    img[0] = 'M';
    img[1] = 'Z';
    pe_image_put32(img, 0x3c, 0x80);
    memcpy(img + 0x80, "PE\0\0", 4);
    img[0x86] = (uint8_t)n;           /* NumberOfSections */
    img[0x94] = 0xf0;                 /* SizeOfOptionalHeader */
    img[0x98] = 0x0b, img[0x99] = 2;  /* PE32+ */
    for (unsigned i = 0; i < n; i++) {
        uint32_t e = 0x188 + 40 * i;
        memcpy(img + e, i ? ".data" : ".text", 5);
        pe_image_put32(img, e + 8, s[i].vsize);
        pe_image_put32(img, e + 12, s[i].rva);
        pe_image_put32(img, e + 16, s[i].vsize);
        pe_image_put32(img, e + 36, s[i].flags);
        memset(img + s[i].rva, s[i].fill, s[i].vsize);
    }
}

#endif
