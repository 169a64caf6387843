/* libFuzzer: the code CRC-32 of a PE/COFF image (decode/image.c, fwpt_image_code_crc32), which fwpt flow computes over
 * every img-BASE.bin it reads: the input is the image as loaded. Checks: no crash, no hang (at most each byte of the
 * image hashed once, however many sections the table claims), the same answer twice, and none for an image that is
 * not PE/COFF. Seeds: tests/fuzz/seeds/pe_code/ (two-section PE32+ images). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "decode/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t n = 0, n2 = 0;
    uint32_t crc = fwpt_image_code_crc32(data, size, &n);
    if (n > size || (!n && crc) || fwpt_image_code_crc32(data, size, &n2) != crc || n2 != n)
        abort();
    if ((size < 2 || data[0] != 'M' || data[1] != 'Z') && n)
        abort();
    return 0;
}
