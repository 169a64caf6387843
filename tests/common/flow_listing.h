/* fwpt tests — a flow decode written out both ways the tool has: the fast listing (render/flow_list) and the
 * printer, one event at a time (fwpt_flow_print_event), each to the end of the trace, for the test and the fuzzer
 * that compare the two byte for byte. Header-only (static inline): the fuzzers are built from the library sources
 * alone (Makefile rule $(B)/fuzz/%), without the tests/common objects. */
#ifndef FWPT_TESTS_FLOW_LISTING_H
#define FWPT_TESTS_FLOW_LISTING_H

#include <stddef.h>
#include <stdint.h>

#include "decode/flow.h"
#include "render/flow_list.h"
#include "render/flow_print.h"

/* Lists the flow f (fresh from fwpt_flow_init, over a trace of len bytes) through l batch by batch, then the cut
 * end when the trace ends with tracing on, then flushes l. */
static inline void flow_list_to_end(struct fwpt_flow *f, struct fwpt_flow_lister *l, size_t len)
{
    const struct fwpt_flow_obuf_insn *v;
    uint32_t n;
    struct fwpt_flow_event ev;
    uint64_t cut_ip;
    while (fwpt_flow_next_batch(f, &v, &n, &ev) == FWPT_OK)
        n ? fwpt_flow_list_insns(l, v, n) : fwpt_flow_list_event(l, &ev);
    if (fwpt_flow_cut(f, &cut_ip))
        fwpt_flow_list_cut(l, cut_ip, len);
    fwpt_flow_list_flush(l);
}

/* The same flow printed through pr event by event, then the cut end: how many of the events were errors. */
static inline unsigned long flow_print_to_end(struct fwpt_flow *f, struct fwpt_flow_printer *pr, size_t len)
{
    struct fwpt_flow_event ev;
    uint64_t cut_ip;
    unsigned long errors = 0;
    while (fwpt_flow_next(f, &ev) == FWPT_OK) {
        fwpt_flow_print_event(pr, &ev);
        errors += ev.kind == FWPT_FLOW_ERROR;
    }
    if (fwpt_flow_cut(f, &cut_ip))
        fwpt_flow_print_cut(pr, cut_ip, len);
    return errors;
}

#endif
