/* fwpt — the report page: one self-contained HTML file (no outside assets) with the run, the module and
 * function profiles, the flame graph and a collapsible call tree. The EFI app fills struct fwpt_report_run
 * from its session (and writes the same values into sideband.json); the host tool fills it from
 * sideband.json: both then write the same bytes for the same trace. */
#ifndef FWPT_RENDER_REPORT_H
#define FWPT_RENDER_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include "analyze/timeline.h"
#include "render/annotate.h"
#include "render/flame.h"
#include "sim/verify.h"

/* What the page says about the run; strings may be NULL or "" (then "-"). */
struct fwpt_report_run {
    const char *vendor;
    uint32_t family, model, stepping, signature;
    const char *backend;      /* "hw" or "soft" */
    const char *profile;      /* soft: the profile emulated */
    const char *target, *target_path, *impl;
    uint64_t impl_addr;
    uint64_t target_status;   /* the EFI_STATUS the traced call returned */
    bool recorded;            /* the run recorded its trace (trace_bytes, trace_reason, wrapped, ...): false for a
                               * raw trace file, or a sideband.json without "trace" */
    uint64_t trace_bytes;     /* what the run recorded */
    const char *trace_reason; /* why the trace ended (readback) */
    bool wrapped, stopped, error;
    struct fwpt_verify verify;
    /* what the decode of this page found in the trace it read (the app: its own; the host: trace.pt's) */
    uint64_t decoded_bytes;   /* the trace's bytes decoded */
    uint64_t decoded_insns;   /* instructions decoded */
    bool no_psb;              /* no PSB in the trace: nothing could be decoded */
    bool cut;                 /* the trace ends with tracing on (no TIP.PGD after the last instruction) */
    uint64_t decode_errors;   /* flow decode errors */
    struct fwpt_annotation *lines; /* the host with symbols: counts per source line (render/annotate.h); NULL: none */
    const struct fwpt_timeline *timeline; /* the images in the order they first ran (fwpt_timeline_end called);
                                           * NULL: no such section */
    bool timeline_ticks;      /* the timeline's ticks mean something (the page counts by time and the trace has it) */
};

/* Where the trace decoded differs from what the run recorded and verified (the size, no PSB, nothing decoded, the
 * instructions of a passed verify, decode errors, cut without the run saying the output stopped): 0 when it does not, else the number of
 * differences, each said in words to o (NULL: only counted), separated by "; ". */
unsigned fwpt_report_mismatch(const struct fwpt_report_run *run, const struct fwpt_sink *o);

/* The entry calls and top functions shown per image in "Images in the order they first ran". */
#define FWPT_REPORT_IMAGE_TOP 5
/* The page's top functions (by instructions, self). */
#define FWPT_REPORT_TOP_FUNCS 40

void fwpt_report_html(const struct fwpt_report_run *run, struct fwpt_profile *p, const struct fwpt_names *names,
                      const struct fwpt_sink *out);

#endif
