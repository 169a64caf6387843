/* fwpt — one `trace TARGET` run, step by step: the backend and its capabilities -> side information
 * -> the target -> the output plan -> memory -> ToPA tables, validated -> the configuration ->
 * TraceEn around the call -> readback -> decode in place (efi/decode.c) -> console summary and files
 * (efi/output.c). The steps that need no options (plan, memory, tables, check, start/call/stop,
 * readback) are shared with soft_selftest. */
#ifndef FWPT_EFI_PIPELINE_H
#define FWPT_EFI_PIPELINE_H

#include <efi.h>
#include "arch/caps.h"
#include "arch/trace.h"
#include "decode/flow.h"
#include "analyze/profile.h"
#include "analyze/timeline.h"
#include "render/report.h"
#include "decode/packet.h"
#include "efi/console.h"
#include "efi/cpu_hw.h"
#include "efi/options.h"
#include "efi/soft.h"
#include "efi/symbols.h"
#include "efi/targets.h"
#include "efi/volume.h"
#include "topa/plan.h"
#include "topa/readback.h"

struct fwpt_run_env {
    EFI_HANDLE image;
    struct fwpt_volume *volume;
    const struct fwpt_cpu *cpu;  /* the hardware backend */
    struct fwpt_cpu_hw *hw;
    const struct fwpt_caps *caps;
    const struct fwpt_efi_options *opt;
};

/* EFI_UNSUPPORTED when PT is not usable (after saying why), EFI_SUCCESS after a trace. */
EFI_STATUS fwpt_pipeline_run(const struct fwpt_run_env *env);

/* ---- the steps shared with soft_selftest ---- */

/* Output memory for a plan: its regions and tables, aligned, zeroed, each in its own pages. */
struct fwpt_outmem {
    struct fwpt_outmem_pages {
        EFI_PHYSICAL_ADDRESS base;
        UINTN pages;
    } *allocs;
    unsigned nallocs, cap_allocs;
    uint64_t *region_phys, *table_phys;
};

/* The plan for caps and po, printed; "plan: refused: ..." and EFI_INVALID_PARAMETER when none fits. */
EFI_STATUS fwpt_step_plan(const struct fwpt_caps *caps, const struct fwpt_plan_options *po, struct fwpt_plan *plan,
                          const struct fwpt_sink *o);
/* The plan's regions and tables, allocated below `below` (0: anywhere). */
EFI_STATUS fwpt_step_memory(const struct fwpt_plan *plan, uint64_t below, struct fwpt_outmem *m,
                            const struct fwpt_sink *o);
void fwpt_outmem_free(struct fwpt_outmem *m);
/* The ToPA tables (or single range) in that memory, and the register values that point at them. */
EFI_STATUS fwpt_step_tables(const struct fwpt_plan *plan, const struct fwpt_physmem *mem, const struct fwpt_outmem *m,
                            struct fwpt_output_regs *regs, const struct fwpt_sink *o);
/* The configuration checked against the capabilities ("trace: refused: ..." and EFI_UNSUPPORTED). */
EFI_STATUS fwpt_step_check(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps, const struct fwpt_sink *o);
/* TraceEn=1 (the MSRs saved, STATUS cleared, the configuration programmed first); on failure TraceEn is 0
 * and the MSRs are restored, and the console says why. */
EFI_STATUS fwpt_step_start(const struct fwpt_cpu *cpu, const struct fwpt_caps *caps, const struct fwpt_trace_config *cfg,
                           struct fwpt_trace_state *state, const struct fwpt_sink *o);
/* The traced call, nothing else while TraceEn=1: fn(arg), single-stepped when soft is given; then TraceEn=0
 * and the output registers read back (*stop: how the stop went). Returns how the call went. */
EFI_STATUS fwpt_step_call(const struct fwpt_cpu *cpu, struct fwpt_efi_soft *soft, void (*fn)(void *), void *arg,
                          struct fwpt_trace_state *state, struct fwpt_trace_result *result, enum fwpt_status *stop);
/* What went wrong in the call or the stop, if anything. */
void fwpt_step_call_report(EFI_STATUS call, enum fwpt_status stop, const struct fwpt_trace_result *result,
                           const struct fwpt_sink *o);

/* The trace where the processor wrote it: the readback's spans, oldest first, as decoder pieces. */
struct fwpt_pieces {
    struct fwpt_readback rb;
    struct fwpt_span *spans;
    struct fwpt_pkt_seg *segs;
    uint32_t nsegs;
    uint64_t len;
};
/* Readback from the final register values; the pieces' own memory is counted in *pool (pool memory taken
 * after readback). Nothing is copied. */
EFI_STATUS fwpt_step_readback(const struct fwpt_plan *plan, const struct fwpt_physmem *mem, const struct fwpt_trace_state *state,
                              const struct fwpt_output_regs *regs, const struct fwpt_trace_result *result,
                              struct fwpt_pieces *p, uint64_t *pool, const struct fwpt_sink *o);
void fwpt_pieces_free(struct fwpt_pieces *p);
/* Pool memory, counted in *counter when given. */
void *fwpt_pool_counted(uint64_t *counter, UINTN n, bool zero);

/* ---- the run's state, shared by pipeline.c, decode.c and output.c ---- */

/* Summary tables of the profile and call tree (pool memory; the host tool uses larger ones). */
#define FWPT_RUN_PROFILE_FUNCS (1u << 12)
#define FWPT_RUN_PROFILE_NODES (1u << 14)
#define FWPT_RUN_PROFILE_HASH (1u << 15)
#define FWPT_RUN_CONSOLE_TOP_FUNCS 10

struct fwpt_flow_summary {
    struct fwpt_modules mods;      /* the loaded images' map (syms.map), with its own lookup cache */
    struct fwpt_profile prof;
    uint64_t *mod_insns;
    struct fwpt_profile_func *funcs;
    struct fwpt_profile_node *nodes;
    uint32_t *hash;
    struct fwpt_timeline tl;       /* the images in the order they first ran (report.html) */
    struct fwpt_timeline_image *tl_img;
    struct fwpt_timeline_entry *tl_entries;
};

struct fwpt_run {
    const struct fwpt_run_env *env;
    const struct fwpt_efi_options *opt;
    struct fwpt_sink o;            /* console */
    const struct fwpt_cpu *cpu;    /* the active backend: hardware or soft */
    const struct fwpt_caps *caps;  /* its capabilities */
    struct fwpt_symbols syms;
    struct fwpt_plan plan;
    struct fwpt_physmem mem;
    struct fwpt_outmem out;
    struct fwpt_output_regs regs;
    struct fwpt_trace_config cfg;
    struct fwpt_trace_state state;
    struct fwpt_trace_result result;
    struct fwpt_target_run target;
    struct fwpt_pieces tr;         /* the trace where the processor wrote it */
    uint64_t pool_after;           /* pool bytes allocated after readback (the decode's own memory) */
    uint64_t pkt_count[FWPT_PKT_COUNT];
    uint64_t pkt_errors;
    uint64_t insns, flow_errors;
    bool no_psb, flow_cut;         /* the packet decode found no PSB; the flow ended with tracing on (fwpt_flow_cut) */
    uint64_t *decoded;             /* flow IPs for verify: the first cap_decoded, or with `ring` the newest */
    size_t ndecoded, cap_decoded, decoded_start;
    bool have_cpuid15;
    struct fwpt_cpuid_regs cpuid15;
    bool have_ratio;
    uint64_t ratio;
    struct fwpt_efi_soft *soft;
    uint64_t *gt;
    struct fwpt_flow_summary fs;   /* profile and call tree (flow.txt, flame.svg, report.html) */
    bool summary;                  /* fs is usable */
    struct fwpt_verify verdict;    /* verify's: the console, sideband.json, report.html (render/report.h) */
    enum fwpt_backend backend;     /* the one used: opt->backend with auto resolved */
    bool verify;                   /* verify, asked for or implied by backend=auto choosing soft */
    EFI_STATUS write_status;       /* the files: EFI_SUCCESS, or the first failure */
    /* the boot trace (efi/driver.c): no target; TraceEn=1 from fwpt_pipeline_boot_start to fwpt_pipeline_boot_stop */
    bool boot, started;
    enum fwpt_status boot_stop;    /* how TraceEn=0 went */
    int soft_unended;              /* backend=soft: stepping had not ended when the trace was stopped */
};

/* The boot trace, in three steps (efi/driver.c). start: everything up to TraceEn=1 as `trace` does (backend, caps,
 * the images loaded now, plan, memory, tables, configuration), the console o; s is the caller's and must stay (a
 * static: it is large). Every failure frees what it took and leaves TraceEn 0. With backend=soft the caller then
 * starts stepping (fwpt_soft_open on s->soft). */
EFI_STATUS fwpt_pipeline_boot_start(struct fwpt_run *s, const struct fwpt_run_env *env, const struct fwpt_sink *o);
/* stop: TraceEn=0, the output registers read back, the MSRs restored, stepping over; nothing freed (safe in an
 * ExitBootServices notify). Twice is harmless. */
enum fwpt_status fwpt_pipeline_boot_stop(struct fwpt_run *s);
/* end: stop, then the images (loaded now, and extra[] where they are gone: images described as they started, their
 * code copied), readback, decode, verify, the files in
 * env->opt->out_dir on env->volume (which the caller may have opened since start), and everything freed. The status
 * as fwpt_pipeline_run's; s->write_status says whether the files were written. */
EFI_STATUS fwpt_pipeline_boot_end(struct fwpt_run *s, const struct fwpt_image *extra, unsigned n_extra);

/* A line on the console: a, then b when given. */
void fwpt_run_say(struct fwpt_run *s, const char *a, const char *b);

/* efi/decode.c: packets into packets.txt (the first on the console), the flow into flow.txt (profile,
 * call tree, listing), the instructions per module. */
void fwpt_run_decode_packets(struct fwpt_run *s, struct fwpt_membuf *txt);
void fwpt_run_decode_flow(struct fwpt_run *s, struct fwpt_membuf *txt);
/* The trace has timing packets: the call's duration and where the time went (efi/timing.c), from a second pass
 * over the trace with time, configured as sideband.json records it. */
void fwpt_run_time_report(struct fwpt_run *s);
void fwpt_run_top_modules(struct fwpt_run *s);
void fwpt_flow_summary_free(struct fwpt_flow_summary *fs);

/* efi/output.c: the files (trace.pt piece by piece, packets.txt, flow.txt, sideband.json, flame.svg,
 * report.html, img-BASE.bin), and the ptxed command line that decodes them elsewhere. */
EFI_STATUS fwpt_run_write_outputs(struct fwpt_run *s, struct fwpt_membuf *packets, struct fwpt_membuf *flowtxt);
void fwpt_run_ptxed_line(struct fwpt_run *s);
/* "names: build/fwpt report <the copied DIR directory> --symbols BUILD (CodeView paths: ...)": the host command that
 * names functions and source lines, with the directory the traced images' CodeView paths share. */
void fwpt_run_names_line(struct fwpt_run *s);
/* "boot" for the boot trace, else the target's name; its path: the boot trace's span, else the target's PATH */
const char *fwpt_run_target_name(const struct fwpt_run *s);
const char *fwpt_run_target_path(const struct fwpt_run *s);
/* the profile actually emulated (the default one when none was named) */
const char *fwpt_run_profile_name(const struct fwpt_run *s);

#endif
