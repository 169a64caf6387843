/* libFuzzer: the flow decoder over mutated traces and code images. Input layout:
 * u16 code length (LE), u64 load address (LE), code bytes, trace bytes (short inputs: the whole
 * input is both code at 0x1000 and trace). Seeds in this layout come from
 * `test_flow_libipt --write-corpus DIR N`. Checks: no crash, no hang, event invariants. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "decode/flow.h"
#include "tests/common/code_image.h"

static struct fwpt_flow_block cache[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct code_image im;
    const uint8_t *trace;
    size_t tlen;
    code_image_from_input(&im, &trace, &tlen, data, size, 1);
    static struct fwpt_flow f;
    if (fwpt_flow_init(&f, trace, tlen, code_image_read, &im, (size & 1) ? cache : NULL,
                       (size & 1) ? 256 : 0) == FWPT_E_INVAL)
        abort(); /* E_NOSYNC: an input without PSB, its flow at the end at once */
    fwpt_flow_set_runaway_limit(&f, 2000); /* keeps long but valid walks short under ASan */
    if (size & 2) {
        /* every workaround on (they are keyed by the processor) and a filter range from the input */
        struct fwpt_errata all = {true, true, true, true, true, true, true, true, true, true};
        fwpt_flow_set_errata(&f, &all);
        const uint64_t range[1][2] = {{im.base, im.base + (size & 0xfff)}};
        fwpt_flow_set_filter(&f, range, 1);
    }
    if (size & 4) {
        /* time on (the marks, the lookahead scans, the timing packets of the input): every item has one */
        struct fwpt_time_config tc = {.cpuid_15_eax = 1, .cpuid_15_ebx = 1 + (unsigned)(size >> 3 & 7),
                                      .mtc_freq = (uint8_t)(size >> 6 & 15), .nom_freq = (uint8_t)(size >> 10)};
        fwpt_flow_set_time(&f, &tc);
    }
    struct fwpt_flow_event ev;
    unsigned long n = 0;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        uint64_t tsc;
        enum fwpt_status ts = fwpt_flow_time(&f, &tsc);
        if (ts != FWPT_OK && ts != FWPT_E_NO_TIME)
            abort();
        if (ev.kind == FWPT_FLOW_ERROR && ev.offset > tlen)
            abort(); /* error offsets lie inside the trace */
        if (ev.kind == FWPT_FLOW_INSN && (ev.size == 0 || ev.size > 15))
            abort();
        if (ev.kind == FWPT_FLOW_INSN && (ev.ip - im.base >= im.size || ev.size > im.size - (ev.ip - im.base)))
            abort(); /* an instruction comes from the code image: the decoder read its bytes there */
        if (ev.kind >= FWPT_FLOW_KIND_COUNT)
            abort();
        /* every packet allows at most the runaway limit of instructions plus a few events: more
         * is a decoder that does not make progress */
        if (++n > (tlen + 2) * (2000ul + FWPT_FLOW_BLOCK_INSNS + 16))
            abort();
    }
    return 0;
}
