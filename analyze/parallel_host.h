/* fwpt — the summary walk (analyze/summary.h) of a whole trace on several cores (host only: pthreads).
 *
 * The trace is cut at PSBs into pieces; each piece is walked by a decoder that starts fresh at its PSB, in
 * parallel. A fresh decoder does not know what the one before it knew at the PSB: its RET compression stack
 * is empty, it synchronizes at the PSB+ FUP (SDM "Decoder Synchronization (PSB+)") where the decoder going
 * on through the PSB takes PSB+ as status and keeps its stack, and any state a broken trace left behind.
 * So each piece's decoder also goes on past the next PSB, to the first place both can be compared
 * (analyze/summary.h, stop_at): the end of a block whose branch takes a TNT or TIP after that PSB. Where the
 * two are there in the same state (decode/flow_seam.c), the next piece's counts from that place on are the
 * sequential decoder's; the processor compresses no RET against a call from before a PSB, so a fresh stack
 * holding only the newest entries decodes alike unless it runs empty at a compressed RET (then the piece
 * is walked again). Where they differ, the piece is walked again from the state of the one before, in
 * order. The call tree of a piece hangs from the frames open where it starts (analyze/sumprof.h), and the
 * pieces' counts are merged in order (a piece whose tree cannot be placed is walked again under the frames
 * then open), by whichever thread finds the next piece done while the others walk: the result is that of one
 * decoder walking the whole trace. */
#ifndef FWPT_ANALYZE_PARALLEL_HOST_H
#define FWPT_ANALYZE_PARALLEL_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/errata.h"
#include "base/resize.h"
#include "analyze/summary.h"

struct fwpt_par_setup {
    const uint8_t *trace;
    size_t len;
    fwpt_flow_read_fn read;     /* called from several threads at once */
    void *read_ctx;
    const struct fwpt_errata *errata;  /* NULL: none */
    const uint64_t (*filter)[2];
    uint32_t n_filter;
    bool iflags;
    uint64_t runaway_limit;     /* fwpt_flow_set_runaway_limit; 0: the default */
    struct fwpt_modules *mods;  /* NULL: none; copied before the threads start (each keeps its own lookup cache) */
    unsigned jobs;              /* threads (1: the whole trace in the caller's) */
    size_t piece_bytes;         /* trace bytes per piece at least (0: 64 KiB); a piece starts at a PSB */
    size_t block_cache, path_cache; /* each thread's flow block and path cache entries (powers of two; 0: 64K, 16K) */
    unsigned gate;              /* 0; else at most this many threads work at once, taking turns in order: a bench
                                 * models jobs idle cores on fewer (each thread's CPU time then holds no refill of
                                 * its caches after the others ran) */
    /* what to count */
    bool profile;               /* into the fwpt_profile given to fwpt_parallel_run */
    bool edges;                 /* into out->edges */
    size_t cov_size;            /* bitmap bytes (a power of two) into out->cov; 0: none */
};

struct fwpt_parallel_out {
    struct fwpt_edges edges;
    uint8_t *cov;
    struct fwpt_flow_event *errors; /* the FWPT_FLOW_ERROR events, in order */
    size_t nerrors;
    uint64_t bytes_skipped;     /* fwpt_flow_bytes_skipped of the whole walk */
    uint64_t insns;             /* instructions walked */
    /* how it went */
    unsigned pieces;            /* pieces walked in parallel */
    unsigned seams_joined;      /* seams where the next piece's decoder agreed */
    unsigned pieces_again;      /* pieces walked again from the state of the one before: the decoders did not
                                 * agree, or the piece's call tree could not be placed under the frames open
                                 * then (FWPT_PROFILE_DEPTH, FWPT_SUMPROF_ANCHORS) */
    uint64_t path_hits, path_misses, blocks;
    /* CPU seconds (each thread's own clock: what the walk cost, whatever else runs on the machine) */
    double cpu_threads;         /* all threads' pieces */
    double cpu_longest;         /* the busiest thread's */
    double cpu_stitch;          /* joining, walking again, merging (one thread, after the others) */
    double cpu_split;           /* cutting the trace at PSBs (one thread, before the others) */
    double cpu_tables;          /* all threads' setting up of their tables (caches emptied) */
    double cpu_piece_max;       /* the costliest piece */
    double cpu_again;           /* of cpu_stitch: the pieces walked again */
    double cpu_merge;           /* of cpu_stitch: the pieces' counts added up */
    double cpu_idle;            /* on jobs idle cores: cpu_split, then the threads' tables and the pieces each
                                 * taken by the first thread free (as the threads take them), then cpu_stitch */
};

/* Walks the whole trace. prof: initialized and empty (setup->profile), its frame hook called as
 * fwpt_profile_add would. FWPT_OK; FWPT_E_INVAL: a block, path or coverage size not a power of two;
 * FWPT_E_NOMEM: out of memory (out may hold tables: fwpt_parallel_out_free). */
enum fwpt_status fwpt_parallel_run(const struct fwpt_par_setup *setup, struct fwpt_profile *prof,
                                   struct fwpt_parallel_out *out);
void fwpt_parallel_out_free(struct fwpt_parallel_out *out);

/* realloc as a struct fwpt_resize (base/resize.h), for the host's growing tables. */
extern const struct fwpt_resize fwpt_parallel_resize;

/* Cores present (at least 1). */
unsigned fwpt_parallel_cores(void);

#endif
