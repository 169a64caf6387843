/* fwpt — the report page: one self-contained HTML file (no outside assets) with the run, the module and
 * function profiles, the flame graph and a collapsible call tree. The EFI app fills struct fwpt_report_run
 * from its session (and writes the same values into sideband.json); the host tool fills it from
 * sideband.json: both then write the same bytes for the same trace. */
#ifndef FWPT_DECODE_REPORT_H
#define FWPT_DECODE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/flame.h"

/* What the page says about the run; strings may be NULL or "" (then "-"). */
struct fwpt_report_run {
    const char *vendor;
    uint32_t family, model, stepping, signature;
    const char *backend;      /* "hw" or "soft" */
    const char *profile;      /* soft: the profile emulated */
    const char *target, *target_path, *impl;
    uint64_t impl_addr;
    uint64_t target_status;   /* the EFI_STATUS the traced call returned */
    uint64_t trace_bytes;
    const char *trace_reason; /* why the trace ended (readback) */
    bool wrapped, stopped, error;
    const char *verify;       /* "passed", "FAILED" or "not asked" */
    uint64_t decode_errors;   /* flow decode errors (instructions: the profile's count) */
};

/* The page's top functions (by instructions, self). */
#define FWPT_REPORT_TOP_FUNCS 40

void fwpt_report_html(const struct fwpt_report_run *run, struct fwpt_profile *p, const struct fwpt_names *names,
                      const struct fwpt_sink *out);

#endif
