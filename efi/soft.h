/* fwpt — the software trace backend ("backend=soft profile=NAME"): a CPU behind the usual
 * interface whose CPUID answers from a built-in processor profile (arch/cpu_replay) and whose RTIT
 * MSRs are the output model (topa/model); while TraceEn=1 the target call is single-stepped (TF +
 * #DB through EFI_CPU_ARCH_PROTOCOL), each retired instruction is classified over live memory
 * (decode/insn) and fed to the packet encoder (arch/soft_enc), and the bytes go through the model
 * into the real allocated ToPA regions. The MSRs end as the hardware would leave them.
 *
 * How the session uses it (the only differences from the hardware path: the CPU and the call):
 *
 *     static struct fwpt_soft soft;                    // large: keep it static or in pool memory
 *     fwpt_physmem_init(&mem, true);                   // identity: physical == pointer in UEFI
 *     st = fwpt_soft_init(&soft, "skylake", &mem, gt_buf, gt_cap);  // EFI_NOT_FOUND: unknown profile
 *     cpu = fwpt_soft_cpu(&soft);   // caps, plan, tables, MSR sequence exactly as on hardware
 *     ... wrmsr OUTPUT_BASE/MASK, ADDRn, CTL, CTL|TraceEn ...
 *     st = fwpt_soft_call(&soft, fn, arg);             // instead of fn(arg)
 *     ... wrmsr CTL without TraceEn (the encoder flushes first), rdmsr STATUS/OUTPUT_*, readback ...
 *     fwpt_soft_verify(&soft, decoded_ips, n, wrapped, stopped, sink);  // "verified: N instructions"
 *     fwpt_soft_fini(&soft);
 *
 * fn is a plain (System V) C function in the app, typically a wrapper that calls the boot service.
 * fwpt_soft_call raises the TPL to TPL_NOTIFY around the call (timer callbacks don't run inside, so
 * runs repeat exactly) and records every retired instruction's IP in gt (the ground truth): the
 * first is fn's entry, the last fn's final RET. The trace is what a processor would write had
 * TraceEn been set at fn's entry and cleared at its return (the final RET sends TIP.PGD with the
 * return address, so decoders end exactly there).
 * Limits (README): code that runs with TF clear (interrupt/exception handlers, SMM) is not seen;
 * QEMU TCG takes no trap after STI or HLT — the instruction after them is reconstructed by decoding
 * it at the fall-through IP; the CPL is 0 and the code 64-bit. */
#ifndef FWPT_EFI_SOFT_H
#define FWPT_EFI_SOFT_H

#include <efi.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/cpu_replay.h"
#include "arch/soft_enc.h"
#include "arch/text.h"
#include "topa/model.h"

struct fwpt_soft_stats {
    uint64_t steps;          /* #DB traps taken while single-stepping */
    uint64_t insns;          /* retired instructions fed to the encoder (= ground-truth entries) */
    uint64_t shadow_fixups;  /* instructions that retired without a trap of their own (STI/HLT shadow) */
    uint64_t rep_iterations; /* traps inside a REP string instruction (it retires once) */
    uint64_t lost;           /* ground-truth entries that did not fit in gt */
    uint64_t bytes;          /* packet bytes handed to the model */
    uint64_t tsc_start, tsc_end;
    int step_limit_hit;      /* stepping abandoned after FWPT_SOFT_MAX_STEPS */
    enum fwpt_status enc_status; /* first encoder/classifier error, FWPT_OK if none */
    uint64_t enc_error_ip;       /* IP at which it happened */
};

#define FWPT_SOFT_MAX_STEPS 50000000ull

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
    size_t gt_cap, gt_count;
    size_t traced_end;                /* gt entries before TraceStop cleared TriggerEn */
    struct fwpt_soft_stats stats;
    /* single-step state (efi/soft.c) */
    uint64_t prev_ip, stop_ip;
    int have_prev, stepping;
    int record_only;                  /* fwpt_soft_record: stepping without the encoder */
    void *cpu_arch;                   /* EFI_CPU_ARCH_PROTOCOL */
    uint64_t tsc_hz;                  /* measured over a 2 ms Stall at init */
    int handler_registered;
};

/* Profile by name (fwpt_cpu_profile_find; NULL: only fwpt_soft_record will be used); mem: the physical memory the model writes (identity in
 * UEFI). gt/gt_cap: caller-owned ground-truth buffer (8 bytes per instruction). EFI_NOT_FOUND for an
 * unknown profile, EFI_UNSUPPORTED without EFI_CPU_ARCH_PROTOCOL. */
EFI_STATUS fwpt_soft_init(struct fwpt_soft *s, const char *profile, const struct fwpt_physmem *mem,
                          uint64_t *gt, size_t gt_cap);
/* The CPU to program: CPUID from the profile; MSRs are the model's, with the TraceEn 1->0 write
 * first flushing the encoder (TNT, TIP.PGD) as the processor does. */
const struct fwpt_cpu *fwpt_soft_cpu(struct fwpt_soft *s);
/* Call fn(arg). If the model's CTL has TraceEn=1 the call is single-stepped and traced; otherwise
 * it is a plain call. EFI_SUCCESS, or an error when the #DB handler could not be registered (fn
 * was not called then). Encoder errors are in s->stats.enc_status. */
EFI_STATUS fwpt_soft_call(struct fwpt_soft *s, void (*fn)(void *), void *arg);
/* Single-step fn(arg) and record the ground truth only: no encoder, no CPU. For `verify` on a
 * machine with real PT: trace the call on hardware, decode, then call it again through this and
 * compare with fwpt_soft_verify (flows agree when the call is deterministic; no IP filter then).
 * profile may be NULL in fwpt_soft_init for this use. */
EFI_STATUS fwpt_soft_record(struct fwpt_soft *s, void (*fn)(void *), void *arg);
/* Compare the decoded flow (IPs in order) with the ground truth: all of it; or, when the trace
 * wrapped, its newest part (decoded is a suffix of gt); or, when the output stopped, its oldest
 * part (a prefix). Prints "verified: N instructions ..." or the first difference (index and both
 * IPs). Returns 0 when equal. */
int fwpt_soft_verify(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, int wrapped, int stopped,
                     const struct fwpt_sink *out);
/* One line: steps, instructions, steps/s, bytes, packet counts. */
void fwpt_soft_report(const struct fwpt_soft *s, const struct fwpt_sink *out);
/* Unregister the #DB handler (safe to call twice). */
void fwpt_soft_fini(struct fwpt_soft *s);

#endif
