/* fwpt — the IA32_RTIT_* MSR sequence around a traced call (SDM Vol. 3C "Enabling and Configuration
 * MSRs", IA32_RTIT_CTL #GP rules), over the CPU interface, so it runs against hardware, the model
 * (sim/model) or a recording fake alike.
 *
 *   fwpt_trace_check(&cfg, caps, &refusal)    every CTL field against the capabilities, nothing written
 *   fwpt_trace_start(cpu, caps, &cfg, &state)  save, clear STATUS, program, TraceEn last, re-read STATUS
 *   ... the traced call ...
 *   fwpt_trace_stop(cpu, &state, &result)      TraceEn=0, fence, read STATUS/OUTPUT_*, restore
 *
 * Hardware etiquette: on every path out of start (error, fault) and out of stop, TraceEn is 0 and
 * IA32_RTIT_STATUS is 0. If firmware had left PT running (TraceEn=1 on entry), start stops it
 * (clears TraceEn only), says so in state.was_active, and the restore at the end puts back its
 * configuration (CTL with TraceEn=0, OUTPUT_BASE, OUTPUT_MASK_PTRS, ADDRn, CR3_MATCH) but does not
 * re-enable it: a trace nobody is reading would overwrite memory that an OS booted later may own,
 * and STATUS must end clean. Saved STATUS is reported, never written back. */
#ifndef FWPT_ARCH_TRACE_H
#define FWPT_ARCH_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/rtit.h"

struct fwpt_trace_range {
    unsigned cfg;   /* RTIT_ADDR_CFG_FILTER or RTIT_ADDR_CFG_TRACESTOP (OFF: unused) */
    uint64_t a, b;  /* IA32_RTIT_ADDRn_A / _B: first and last byte of the range (linear) */
};

/* The CTL fields, in the SDM's words. Encodings (mtc_freq, cyc_thresh, psb_freq) are the raw CTL
 * field values whose bit must be set in the subleaf 1 bitmaps. */
struct fwpt_trace_config {
    bool branch_en;            /* BranchEn (forced on where the part requires it: Broadwell, BDM106) */
    bool os, user;             /* OS (CPL 0), User (CPL > 0) */
    bool tsc_en;               /* TSCEn */
    bool mtc_en;               /* MTCEn (mtc) */
    unsigned mtc_freq;         /* MTCFreq, with mtc_en (mtc_periods) */
    bool cyc_en;               /* CYCEn (psb_cyc) */
    unsigned cyc_thresh;       /* CycThresh, with cyc_en (cycle_thresholds) */
    unsigned psb_freq;         /* PSBFreq; non-zero needs psb_cyc and psb_periods */
    bool ptw_en, fup_on_ptw;   /* PTWEn, FUPonPTW (ptwrite; FUPonPTW only with PTWEn) */
    bool dis_retc;             /* DisRETC */
    bool pwr_evt_en;           /* PwrEvtEn (power_event_trace) */
    bool event_en;             /* EventEn (event_trace) */
    bool dis_tnt;              /* DisTNT (tnt_disable) */
    bool cr3_filter;           /* CR3Filter (cr3_filtering), with cr3_match */
    uint64_t cr3_match;
    unsigned n_ranges;         /* ADDRn for n < n_ranges (num_address_ranges) */
    struct fwpt_trace_range range[FWPT_MAX_ADDR_RANGES];
    bool topa;                 /* ToPA (topa_output); false = single-range (single_range_output) */
    uint64_t output_base, output_mask_ptrs; /* from the output plan (fwpt_plan_apply) */
};

/* Why a configuration was refused: the CTL field / MSR and the capability it needs (or NULL when
 * a value rule failed), and one line why. Static strings. */
struct fwpt_trace_refusal {
    const char *option;     /* "MTCFreq", "ADDR2_CFG", "PTWEn", ... */
    const char *capability; /* "mtc_periods", "num_address_ranges", "ptwrite", ... or NULL */
    const char *why;
};

/* FWPT_OK, FWPT_E_NOPT (caps say PT is not usable), FWPT_E_CTL (refusal filled). Pure. */
enum fwpt_status fwpt_trace_check(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps,
                                  struct fwpt_trace_refusal *refusal);
/* Erratum BDM106 (Broadwell: family 6, models 3DH, 47H, 4FH, 56H): BranchEn must be 1. */
bool fwpt_trace_branch_en_always_on(const struct fwpt_caps *caps);
/* The IA32_RTIT_CTL value the configuration programs, without TraceEn (pure; cfg must pass check). */
uint64_t fwpt_trace_ctl(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps);
/* Timing packets on: TSCEn, and MTCEn / CYCEn with PSBFreq where the caps offer them, each at the
 * lowest encoding its bitmap allows (CycThresh from 1: 0 means a CYC on every cycle). Pure. */
void fwpt_trace_timing_lowest(struct fwpt_trace_config *cfg, const struct fwpt_caps *caps);
/* The app's `time` option: TSCEn, and MTCEn / CYCEn where the caps offer them and cfg does not have them on
 * already, at settings that keep the trace small (SDM "Tracking Time"): the MTC period closest to 2^9 crystal
 * clocks from below (about every 20 us at 24 MHz; an MTC is 2 bytes), the CycThresh closest to 5 from below
 * (a CYC after 16 cycles or more, not before every branch packet). Each is an encoding the caps' bitmap
 * allows, so the configuration passes fwpt_trace_config_check as one given by hand. Pure. */
#define FWPT_TIME_MTC_FREQ 9
#define FWPT_TIME_CYC_THRESH 5
void fwpt_trace_timing_small(struct fwpt_trace_config *cfg, const struct fwpt_caps *caps);

/* What start saved and did; stop needs it. */
struct fwpt_trace_saved {
    uint64_t ctl, status, output_base, output_mask_ptrs, cr3_match;
    uint64_t addr_a[FWPT_MAX_ADDR_RANGES], addr_b[FWPT_MAX_ADDR_RANGES];
    bool have_ctl, have_status, have_output_base, have_output_mask_ptrs, have_cr3_match;
    bool have_addr[FWPT_MAX_ADDR_RANGES];
};

struct fwpt_trace_state {
    struct fwpt_trace_saved saved; /* as found (CTL may have had TraceEn set: see was_active) */
    bool was_active;               /* TraceEn was set on entry; start cleared it */
    uint64_t ctl;                  /* the value written with TraceEn */
    bool tracing;                  /* TraceEn is (or may be) set */
    uint64_t live_ctl;             /* the CTL value believed in the MSR while tracing (TraceEn is
                                    * cleared from it alone: other bits are locked while it is set) */
    uint64_t status_after_enable;  /* IA32_RTIT_STATUS read right after TraceEn=1 */
    uint32_t failed_msr;           /* the MSR whose access failed (start), 0 if none */
    bool failed_write;             /* ... and whether it was a write */
    enum fwpt_status restore_status; /* first failure while restoring after an abort, FWPT_OK if none */
};

struct fwpt_trace_result {
    uint64_t status, output_base, output_mask_ptrs; /* read after TraceEn=0 and the fence */
    bool have_status, have_output_base, have_output_mask_ptrs;
    bool error;    /* STATUS.Error: an operational error stopped tracing */
    bool stopped;  /* STATUS.Stopped: a ToPA STOP entry or TraceStop stopped tracing */
    uint32_t failed_msr;           /* first MSR access that failed during stop/restore, 0 if none */
    bool failed_write;
    enum fwpt_status restore_status; /* first restore failure, FWPT_OK when all saved MSRs are back */
};

/* FWPT_OK: tracing (TraceEn=1). Otherwise nothing is tracing, STATUS is 0 and what was saved is
 * restored (state.restore_status tells if that failed): FWPT_E_NOPT / FWPT_E_CTL from the check,
 * FWPT_E_FAULT (state.failed_msr names the MSR), FWPT_E_TRACE_ERROR (STATUS.Error right after
 * enabling; state.status_after_enable has it). */
enum fwpt_status fwpt_trace_start(const struct fwpt_cpu *cpu, const struct fwpt_caps *caps,
                                  const struct fwpt_trace_config *cfg, struct fwpt_trace_state *state);
/* TraceEn=0, fence, read STATUS, OUTPUT_BASE, OUTPUT_MASK_PTRS into result, restore the saved MSRs
 * (CTL with TraceEn=0, then STATUS=0 last). FWPT_OK, or the first failure (FWPT_E_FAULT); even
 * then every remaining step is tried. Calling it when start failed is harmless (FWPT_OK, no access). */
enum fwpt_status fwpt_trace_stop(const struct fwpt_cpu *cpu, struct fwpt_trace_state *state,
                                 struct fwpt_trace_result *result);

#endif
