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

/* The fuzzers' input layout: u16 code length (LE), u64 load address (LE), code bytes, trace bytes. Inputs
 * shorter than that, or whose code length runs past the end, are both the code (at 0x1000) and the trace. */
static inline void code_image_from_input(struct code_image *im, const uint8_t **trace, size_t *tlen,
                                         const uint8_t *data, size_t size, int split)
{
    *im = (struct code_image){0x1000, data, size, split};
    *trace = data;
    *tlen = size;
    if (size < 10)
        return;
    size_t clen = (size_t)data[0] | (size_t)data[1] << 8;
    uint64_t base = 0;
    for (int i = 0; i < 8; i++)
        base |= (uint64_t)data[2 + i] << (8 * i);
    if (clen <= size - 10) {
        im->base = base;
        im->code = data + 10;
        im->size = clen;
        *trace = data + 10 + clen;
        *tlen = size - 10 - clen;
    }
}

#endif
