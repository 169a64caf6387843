/* fwpt flow A B C ... --coverage F: the coverage bitmap of many traces of the same code in one process, through one
 * coverage decoder whose caches stay warm from one trace to the next (include/fwpt/coverage.h), as a fuzzing harness
 * calls a decoder for each run of its target. The bitmaps are summed into F (the counters wrap), or with
 * --coverage-each F holds one bitmap per trace, in the order given. */
#ifndef FWPT_TOOLS_FLOW_COVMANY_H
#define FWPT_TOOLS_FLOW_COVMANY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/errata.h"
#include "decode/image.h"

struct flow_covmany {
    const char *const *paths;   /* the traces: saved directories or raw trace files */
    size_t n;
    const char *cov_path;
    size_t cov_size;
    bool each;                  /* --coverage-each: one bitmap per trace */
    const struct fwpt_module *images; /* --image (sorted or not), added to each trace's own */
    size_t nimages;
    const uint64_t (*filter)[2]; /* --filter; n_filter 0: each directory's sideband.json */
    uint32_t n_filter;
    bool have_cpu;              /* --cpu given (else each directory's sideband.json) */
    struct fwpt_cpu_id cpu;
    bool quiet;
};

/* Decodes every trace in order and writes the bitmap(s); one line per trace on stdout and a total. The exit status:
 * 0; 1 decode errors in a trace, one with nothing decoded, or input that cannot be read (said on stderr; an input that
 * cannot be read stops the run and no file is written); 3 a trace incomplete (it ends with tracing on, or is not
 * the size its sideband.json records). */
int flow_covmany_run(const struct flow_covmany *a);

#endif
