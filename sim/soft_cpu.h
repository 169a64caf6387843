/* fwpt — the software trace CPU (backend=soft), the part that needs no firmware: CPUID answers
 * from a built-in processor profile (arch/cpu_replay), the RTIT MSRs and output are the model
 * (sim/model), and the retired instructions it is fed become packets (sim/soft_enc) written
 * through the model into the ToPA regions. It records the instructions fed (the ground truth) and
 * compares a decoded flow with them. efi/soft.c single-steps the target and feeds it; host tests
 * feed it generated programs. Freestanding. */
#ifndef FWPT_SIM_SOFT_CPU_H
#define FWPT_SIM_SOFT_CPU_H

#include <stddef.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/cpu_replay.h"
#include "sim/soft_enc.h"
#include "base/text.h"
#include "sim/model.h"
#include "sim/verify.h"

struct fwpt_soft_stats {
    uint64_t steps;          /* #DB traps taken while single-stepping */
    uint64_t insns;          /* retired instructions fed to the encoder (= ground-truth entries) */
    uint64_t shadow_fixups;  /* instructions that retired without a trap of their own (STI/HLT shadow) */
    uint64_t rep_iterations; /* traps inside a REP string instruction (it retires once) */
    uint64_t lost;           /* ground-truth entries that did not fit in gt */
    uint64_t bytes;          /* packet bytes handed to the model */
    uint64_t tsc_start, tsc_end;
    int step_limit_hit;      /* stepping abandoned after max_steps (FWPT_SOFT_MAX_STEPS) */
    uint64_t steps_at_stop;  /* steps when the output stopped (ToPA STOP, operational error, TraceStop); 0: never */
    int untraced_rest;       /* stepping ended FWPT_SOFT_AFTER_STOP steps after that: the rest ran at full speed */
    int record_limit_hit;    /* fwpt_soft_record stopped at record_limit: the rest ran at full speed */
    enum fwpt_status enc_status; /* first encoder/classifier error, FWPT_OK if none */
    uint64_t enc_error_ip;       /* IP at which it happened */
};

#define FWPT_SOFT_MAX_STEPS 50000000ull
/* Steps taken after the output stopped before stepping ends: no packet is written any more (as on hardware,
 * the rest of the call need not be slowed down), but the decoder walks on from the last packet's IP through code
 * that needs no packet, and the ground truth must reach as far (verify compares the oldest part). */
#define FWPT_SOFT_AFTER_STOP 65536ull

struct fwpt_soft {
    struct fwpt_cpu cpu;              /* what fwpt_soft_cpu returns */
    const struct fwpt_cpu_profile *profile;
    struct fwpt_replay replay;        /* CPUID answers */
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_caps caps;            /* the profile's capabilities (the model's MSR rules) */
    struct fwpt_model model;          /* RTIT MSRs and output */
    struct fwpt_soft_enc enc;
    int enc_running;                  /* encoder started by fwpt_soft_call, not yet stopped */
    uint64_t *gt;                     /* ground truth: IPs of retired instructions, in order */
    size_t gt_cap, gt_count;          /* gt_count: entries held (at most gt_cap) */
    size_t gt_start;                  /* gt_ring: index of the oldest entry held (0 until gt is full) */
    int gt_ring;                      /* set by the caller: a full gt keeps the newest entries (stats.lost counts the
                                       * oldest that gave way), for a trace that may wrap; else it keeps the oldest */
    size_t traced_end;                /* instructions recorded (held or not) up to the last one traced before
                                       * TraceStop cleared TriggerEn */
    struct fwpt_soft_stats stats;
    uint64_t last_time;               /* time of the last instruction fed (TraceEn 1->0 stamp) */
    /* where stepping ends (the firmware's single-stepper in efi/soft.h keeps the rest of its state) */
    uint64_t stop_ip;                 /* the return address of the traced call: stepping ends there */
    int record_only;                  /* fwpt_soft_record: stepping without the encoder */
    uint64_t max_steps;               /* stepping ends after this many steps (fwpt_soft_setup: FWPT_SOFT_MAX_STEPS) */
    size_t record_limit;              /* fwpt_soft_record: stepping ends once gt holds this many (0: the whole call) */
    uint64_t tsc_hz;                  /* the clock of insn times, for steps/s in the report; 0: unknown */
};

/* Profile by name (fwpt_cpu_profile_find; NULL: stepping only, fwpt_soft_begin(record_only=1)).
 * mem: the physical memory the model writes. gt/gt_cap: caller-owned ground-truth buffer (8 bytes
 * per instruction). FWPT_E_INVAL for an unknown profile. */
enum fwpt_status fwpt_soft_setup(struct fwpt_soft *s, const char *profile, const struct fwpt_physmem *mem,
                                 uint64_t *gt, size_t gt_cap);
/* The CPU to program: CPUID from the profile; MSRs are the model's, with the TraceEn 1->0 write
 * first flushing the encoder (TNT, TIP.PGD) as the processor does. */
const struct fwpt_cpu *fwpt_soft_cpu(struct fwpt_soft *s);
/* The traced call starts at entry_ip: the encoder takes the model's CTL and ADDRn (programmed
 * before, TraceEn=1) and sends PSB+, TIP.PGE. record_only: no encoder, ground truth only. */
void fwpt_soft_begin(struct fwpt_soft *s, uint64_t entry_ip, uint64_t time, int record_only);
/* One retired instruction: recorded, then encoded (TraceStop sets STATUS.Stopped in the model). */
void fwpt_soft_feed(struct fwpt_soft *s, const struct fwpt_soft_insn *insn);
/* Stepping ended before the call did, with the next instruction at ip (max_steps): the trace ends
 * there (fwpt_soft_enc_end_at), so it holds exactly the instructions fed, as the ground truth does. */
void fwpt_soft_end_at(struct fwpt_soft *s, uint64_t ip, uint64_t time);
/* Single-stepping (efi/soft.c): after the trap at rip, once the instructions that retired before it were fed,
 * counts the step (the first trap, on the entry, is one too) and returns 1 when stepping ends there, else 0.
 * It ends when the call returned (rip == stop_ip); FWPT_SOFT_AFTER_STOP steps after the output stopped
 * (stats.untraced_rest); when a recording holds record_limit instructions (stats.record_limit_hit); after
 * max_steps steps (stats.step_limit_hit), the trace then ending at rip (fwpt_soft_end_at). In that order: a
 * return on the last allowed step is a return. */
int fwpt_soft_step_end(struct fwpt_soft *s, uint64_t rip, uint64_t now);
/* The first error, kept in stats (enc_status, enc_error_ip). */
void fwpt_soft_note_error(struct fwpt_soft *s, enum fwpt_status st, uint64_t ip);
/* Compare the decoded flow (IPs in order) with the ground truth: all of it; or, when the trace
 * wrapped, its newest part (decoded is a suffix); or, when the output stopped, its oldest part (a
 * prefix) — of the instructions PacketEn covered (IP filter, before TraceStop). Prints "verified:
 * N instructions ..." or the first difference (index and both IPs). Returns 0 when equal, 1 when not.
 * n_all: instructions decoded in all. decoded holds the first n of them; with gt_ring, the newest n
 * (the caller keeps its buffer as a ring too: fwpt_soft_keep_newest). When the output stopped, a ground
 * truth or a decoded flow cut short by its buffer is compared as far as both go, and the line says so
 * ("verified: the first N of M ..."); with gt_ring, unless the output stopped before it wrapped, both end
 * where tracing ended and their newest parts are compared ("verified: the newest N of M ..."); otherwise a
 * part missing from the decoded flow is a failure. A ground truth that lacks the part to compare (it did not fit its
 * buffer) compares nothing: returns 2 (not run), and says "verify: ground truth incomplete (...)". */
int fwpt_soft_verify(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, uint64_t n_all, int wrapped, int stopped,
                     const struct fwpt_sink *out);
/* The same, and the verdict into *v (NULL: none) as the console, sideband.json and the report page say it
 * (render/report.h): passed with its scope (the whole decoded flow, or the first/newest N of M) and the part of the
 * call compared; failed and why (returns 1); or not run because the ground truth did not fit (returns 2). */
int fwpt_soft_verify_scope(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, uint64_t n_all, int wrapped,
                           int stopped, const struct fwpt_sink *out, struct fwpt_verify *v);
/* Append v to the buffer buf[0..cap) that keeps the newest entries: *n entries held, the oldest at *start
 * once full (then v takes its place). Returns 1 when an entry gave way. */
int fwpt_soft_keep_newest(uint64_t *buf, size_t cap, size_t *n, size_t *start, uint64_t v);
/* Put such a buffer in order (oldest first) in place: afterwards *start is 0. */
void fwpt_soft_ring_order(uint64_t *buf, size_t n, size_t *start);
/* One line: steps, instructions, steps/s (when tsc_hz is known), bytes, packet counts. */
void fwpt_soft_report(const struct fwpt_soft *s, const struct fwpt_sink *out);

#endif
