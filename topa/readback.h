/* fwpt — after TraceEn=0: which bytes hold the trace, oldest first (SDM "Trace Output", "ToPA
 * STOP", "Operational Errors"). Pure; reads tables and output memory through the physmem view.
 *
 * Wrap detection (ring mode): output memory must be zero-filled before tracing (the EFI side and
 * the tests do so). After tracing, if any byte from the write pointer to the end of the ring is
 * non-zero, the output wrapped. PT data can contain 0x00 bytes (PAD is 00H), so a wrapped buffer
 * whose bytes after the write pointer are ALL zero is reported as not wrapped; the bytes then left
 * out are only zeros that precede every intact PSB of the kept data (a PSB is never all zeros), so
 * a decoder, which starts at a PSB, loses nothing. A caller that knows (the model counts wraps)
 * passes FWPT_WRAP_YES / FWPT_WRAP_NO instead. */
#ifndef FWPT_TOPA_READBACK_H
#define FWPT_TOPA_READBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "topa/table.h"

struct fwpt_span {
    uint64_t phys, len;
};

enum fwpt_wrap_hint {
    FWPT_WRAP_DETECT, /* zero test (see above) */
    FWPT_WRAP_NO,
    FWPT_WRAP_YES,
};

struct fwpt_readback_in {
    const struct fwpt_physmem *mem;
    uint64_t ctl;                                   /* IA32_RTIT_CTL as programmed (ToPA bit) */
    uint64_t start_output_base, start_mask_ptrs;    /* as written before TraceEn=1 */
    uint64_t output_base, output_mask_ptrs, status; /* as read after TraceEn=0 */
    enum fwpt_wrap_hint wrap;
    unsigned max_regions;                           /* walk limit; 0 = 1<<20 */
};

struct fwpt_readback {
    struct fwpt_span *spans;   /* caller's array */
    size_t cap;
    size_t count;              /* spans written (adjacent physical ranges merged) */
    uint64_t bytes;            /* bytes captured */
    unsigned regions_used;     /* ToPA regions holding data (1 for single range) */
    unsigned regions_total;    /* regions on the walk from the start */
    bool complete;             /* every byte produced is here */
    bool wrapped, stopped, error;
    const char *reason;        /* why tracing ended and what was kept (static text) */
    uint64_t tail_end;         /* internal: end of the last span, also past cap (for merging) */
};

/* FWPT_OK; FWPT_E_TOPA when the write pointer is not on the tables reachable from the start;
 * FWPT_E_NOMEM when spans do not fit (count then says how many were needed). */
enum fwpt_status fwpt_readback(const struct fwpt_readback_in *in, struct fwpt_readback *out);

/* Copies the spans' bytes into buf (at most cap bytes); returns the bytes copied. */
uint64_t fwpt_readback_copy(const struct fwpt_physmem *mem, const struct fwpt_readback *rb, uint8_t *buf, uint64_t cap);

#endif
