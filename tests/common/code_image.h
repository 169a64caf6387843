/* fwpt tests — one flat code image at a load address, read through the flow decoder's code
 * callback (fwpt_flow_init's read). Header-only (static inline): the fuzzers are built from the
 * library sources alone (Makefile rule $(B)/fuzz/%), without the tests/common objects. */
#ifndef FWPT_TESTS_CODE_IMAGE_H
#define FWPT_TESTS_CODE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct code_image {
    uint64_t base;
    const uint8_t *code;
    size_t size;
    int split; /* hand out at most 7 bytes at IPs = 1 mod 4: instructions split across pieces */
};

static inline size_t code_image_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct code_image *im = ctx;
    if (ip < im->base || ip - im->base >= im->size)
        return 0;
    *bytes = im->code + (ip - im->base);
    size_t n = im->size - (ip - im->base);
    return im->split && (ip & 3) == 1 && n > 7 ? 7 : n;
}

#endif
