/* libFuzzer: the fast listing (render/flow_list) against the event-at-a-time printer over mutated traces and
 * code images, in fuzz_flow's input layout (u16 code length, u64 load address, code, trace). The input's size
 * picks the format, the disassembly hook, the module table and the buffer size. Checks: the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/flow.h"
#include "render/flow_list.h"
#include "render/flow_print.h"
#include "tests/common/code_image.h"
#include "tests/common/flow_listing.h"
#include "tests/common/mem_sink.h"

static size_t fake_disasm(void *ctx, uint64_t ip, uint8_t mode, char *o, size_t cap)
{
    (void)ctx;
    switch (ip % 5) {
    case 0:
        return 0;
    case 1:
        return (size_t)snprintf(o, cap, "op \"%u\" \\ \x01", mode);
    case 2:
        memset(o, 'y', cap); /* no NUL */
        return cap;
    default:
        return (size_t)snprintf(o, cap, "nop%llx", (unsigned long long)(ip & 0xff));
    }
}

static struct fwpt_flow_block cache[256];
static struct fwpt_list_asm acache[16];
static struct fwpt_list_module pre[3];
static char buf[4 * FWPT_LIST_LINE_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct code_image im;
    const uint8_t *trace;
    size_t tlen;
    code_image_from_input(&im, &trace, &tlen, data, size, 1);
    static char long_name[100];
    memset(long_name, '"', sizeof long_name - 1);
    const struct fwpt_module mv[3] = {
        {"Low\"\\", im.base, im.size / 2, NULL, 0},
        {long_name, im.base + im.size / 2, im.size - im.size / 2, NULL, 0},
        {"Over", im.base + im.size / 4, im.size / 2, NULL, 0},
    };
    const enum fwpt_flow_format fmt = size & 1 ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT;
    const fwpt_disasm_fn dis = size & 2 ? fake_disasm : NULL;
    const size_t nmods = (size >> 2) % 4; /* 0: no table */
    const size_t cap = size & 16 ? sizeof buf : 2 * FWPT_LIST_LINE_MAX;
    struct fwpt_modules ma = {mv, nmods < 3 ? nmods : 3, 0}, mb = ma;
    static struct mem a, b;
    a.n = b.n = 0;
    struct fwpt_sink sa = {mem_write, &a}, sb = {mem_write, &b};
    static struct fwpt_flow f;
    static struct fwpt_flow_lister l;

    if (fwpt_flow_init(&f, trace, tlen, code_image_read, &im, cache, 256) == FWPT_E_INVAL)
        abort(); /* E_NOSYNC: an input without PSB, its flow at the end at once */
    fwpt_flow_set_runaway_limit(&f, 2000);
    fwpt_flow_list_init(&l, &sa, fmt, nmods ? &ma : NULL, pre, dis, NULL, size & 8 ? acache : NULL,
                          size & 8 ? 16 : 0, buf, cap);
    flow_list_to_end(&f, &l, tlen);

    if (fwpt_flow_init(&f, trace, tlen, code_image_read, &im, cache, 256) == FWPT_E_INVAL)
        abort(); /* E_NOSYNC: an input without PSB, its flow at the end at once */
    fwpt_flow_set_runaway_limit(&f, 2000);
    struct fwpt_flow_printer pr = {&sb, fmt, nmods ? &mb : NULL, dis, NULL, 0, NULL};
    flow_print_to_end(&f, &pr, tlen);
    if (a.n != b.n || (a.n && memcmp(a.p, b.p, a.n)))
        abort(); /* the fast listing is not the printer's */
    return 0;
}
