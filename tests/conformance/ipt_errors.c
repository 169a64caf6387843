/* libipt's instruction decoder (Debian's libipt, configured with no processor: no errata) over one
 * conformance case: prints "errors N insns N", the decode errors it meets (going on at the next
 * PSB after each, as ptxed does) and the instructions it gives. The conformance runner holds fwpt
 * flow --cpu none to it: where libipt without a processor decodes a trace with no error, so must fwpt.
 * Usage: ipt_errors TRACE CODE ORG(hex) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/code_image.h"
#include "tests/common/ipt_insn.h"


static unsigned long n_err, n_insn;
static void on_insn(void *ctx, const struct pt_insn *insn) { (void)ctx, (void)insn, n_insn++; }
static void on_error(void *ctx, int status, uint64_t offset) { (void)ctx, (void)status, (void)offset, n_err++; }

static uint8_t *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static uint8_t buf[2][1 << 20];
    static int k;
    uint8_t *b = buf[k++ & 1];
    *size = fread(b, 1, sizeof buf[0], f);
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    size_t tlen, clen;
    uint8_t *trace, *code;
    if (argc != 4 || !(trace = load(argv[1], &tlen)) || !(code = load(argv[2], &clen))) {
        fprintf(stderr, "usage: ipt_errors TRACE CODE ORG (files readable)\n");
        return 2;
    }
    struct code_image im = {strtoull(argv[3], NULL, 16), code, clen, 0};
    struct ipt_insn_sink s = {.event = NULL, .insn = on_insn, .error = on_error, .ctx = NULL};
    ipt_insn_walk(trace, tlen, code_image_ipt_read, &im, &s, NULL);
    printf("errors %lu insns %lu\n", n_err, n_insn);
    return 0;
}
