/* fwpt — the software trace backend ("backend=soft"): a CPU behind the usual interface whose CPUID
 * answers from a recorded processor profile and whose RTIT MSRs are the output model (topa/model);
 * while TraceEn=1 the target call is single-stepped (TF + #DB through EFI_CPU_ARCH_PROTOCOL), each
 * retired instruction is classified over live memory and fed to the packet encoder (arch/soft_enc),
 * and the bytes go through the model's emit entry point into the real allocated regions.
 *
 * How the session uses it (the only difference from the hardware path is the call itself):
 *
 *     struct fwpt_soft soft;
 *     fwpt_soft_init(&soft, profile_cpu, model_cpu, model_emit, model_ctx, gt_buf, gt_cap);
 *     cpu = fwpt_soft_cpu(&soft);            // program it exactly like hardware (arch/trace)
 *     ... save MSRs, clear STATUS, write OUTPUT_BASE/MASK, ADDRn, CTL, CTL|TraceEn ...
 *     st = fwpt_soft_call(&soft, fn, arg);   // instead of fn(arg): single-stepped while TraceEn=1
 *     ... wrmsr CTL without TraceEn (the encoder flushes TNT and sends TIP.PGD first), readback ...
 *     fwpt_soft_verify(&soft, decoded_ips, n, sink)   // ground truth vs. the decoded flow
 *     fwpt_soft_fini(&soft);                 // unregister the #DB handler
 *
 * fwpt_soft_call raises the TPL to TPL_NOTIFY around the call (timer callbacks don't run inside, so
 * runs repeat exactly) and records every retired instruction's IP in gt_buf (the ground truth).
 * Limits (README): code that runs with TF clear (interrupt/exception handlers, SMM) is not seen;
 * QEMU TCG takes no trap after STI or HLT — the step after them is reconstructed by decoding the
 * skipped instruction at the previous IP. */
#ifndef FWPT_EFI_SOFT_H
#define FWPT_EFI_SOFT_H

#include <efi.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/cpu.h"
#include "arch/soft_enc.h"
#include "arch/text.h"

/* The model's emit-bytes entry point: packet bytes in trace order, written where the processor
 * would (STOP/END/INT/operational errors honoured by the model). */
typedef enum fwpt_status (*fwpt_soft_model_emit_fn)(void *model_ctx, const uint8_t *bytes, size_t n);

struct fwpt_soft_stats {
    uint64_t steps;          /* #DB traps taken while single-stepping */
    uint64_t insns;          /* retired instructions fed to the encoder (= ground truth entries) */
    uint64_t shadow_fixups;  /* steps where one instruction retired without a trap (STI/HLT shadow) */
    uint64_t lost;           /* ground-truth entries that did not fit in gt_buf */
    uint64_t bytes;          /* packet bytes handed to the model */
    uint64_t tsc_start, tsc_end;
    enum fwpt_status enc_status; /* first encoder/classifier error, FWPT_OK if none */
    uint64_t enc_error_ip;       /* IP at which it happened */
};

struct fwpt_soft {
    struct fwpt_cpu cpu;              /* what fwpt_soft_cpu returns */
    const struct fwpt_cpu *profile;   /* CPUID source (arch/cpu_replay profile) */
    const struct fwpt_cpu *model;     /* RTIT MSRs (topa/model) */
    fwpt_soft_model_emit_fn emit;
    void *emit_ctx;
    struct fwpt_soft_enc enc;
    int enc_running;                  /* encoder started (TraceEn seen 1 at the call) */
    uint64_t *gt;                     /* ground truth: IPs of retired instructions, in order */
    size_t gt_cap, gt_count;
    struct fwpt_soft_stats stats;
    /* single-step state (owned by efi/soft.c) */
    uint64_t prev_ip;                 /* IP of the instruction the current trap retired */
    uint64_t stop_lo, stop_hi;        /* return address range in the trampoline: stop stepping here */
    int stepping;
    void *cpu_arch;                   /* EFI_CPU_ARCH_PROTOCOL */
};

/* Set up the backend. profile: CPUID answers; model: RTIT MSRs + emit. gt/gt_cap: caller-owned
 * ground-truth buffer (a few MB: 8 bytes per instruction). Locates EFI_CPU_ARCH_PROTOCOL. */
EFI_STATUS fwpt_soft_init(struct fwpt_soft *s, const struct fwpt_cpu *profile, const struct fwpt_cpu *model,
                          fwpt_soft_model_emit_fn emit, void *emit_ctx, uint64_t *gt, size_t gt_cap);
/* The CPU to program: CPUID from the profile; MSRs forwarded to the model, with the TraceEn 1->0
 * write first flushing the encoder (TNT, TIP.PGD) as the processor does. */
const struct fwpt_cpu *fwpt_soft_cpu(struct fwpt_soft *s);
/* Call fn(arg). If the model's CTL has TraceEn=1, the call is single-stepped at TPL_NOTIFY and
 * traced; otherwise it is a plain call. Returns EFI_SUCCESS, or an error when the #DB handler
 * could not be registered (then fn was not called). Encoder errors are in s->stats.enc_status. */
EFI_STATUS fwpt_soft_call(struct fwpt_soft *s, void (*fn)(void *), void *arg);
/* Compare the decoded flow (IPs in order) with the ground truth. Prints "verified: N instructions"
 * or the first difference (index, both IPs, and a few around it). Returns 0 when equal. */
int fwpt_soft_verify(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, const struct fwpt_sink *out);
/* Unregister the #DB handler (safe to call twice). */
void fwpt_soft_fini(struct fwpt_soft *s);

#endif
