/* fwpt — the software trace backend ("backend=soft profile=NAME"): a CPU behind the usual
 * interface whose CPUID answers from a built-in processor profile (arch/cpu_replay) and whose RTIT
 * MSRs are the output model (sim/model); while TraceEn=1 the target call is single-stepped (TF +
 * #DB through EFI_CPU_ARCH_PROTOCOL), each retired instruction is classified over live memory
 * (decode/insn) and fed to the packet encoder (sim/soft_enc), and the bytes go through the model
 * into the real allocated ToPA regions. The MSRs end as the hardware would leave them.
 *
 * How the session uses it (the only differences from the hardware path: the CPU and the call):
 *
 *     static struct fwpt_efi_soft soft;                // large: keep it static or in pool memory
 *     fwpt_physmem_init(&mem, true);                   // identity: physical == pointer in UEFI
 *     st = fwpt_soft_init(&soft, "skylake", &mem, gt_buf, gt_cap);  // EFI_NOT_FOUND: unknown profile
 *     cpu = fwpt_soft_cpu(&soft.sim);   // caps, plan, tables, MSR sequence exactly as on hardware
 *     ... wrmsr OUTPUT_BASE/MASK, ADDRn, CTL, CTL|TraceEn ...
 *     st = fwpt_soft_call(&soft, fn, arg);             // instead of fn(arg)
 *     ... wrmsr CTL without TraceEn (the encoder flushes first), rdmsr STATUS/OUTPUT_*, readback ...
 *     fwpt_soft_verify(&soft.sim, decoded_ips, n, n_all, wrapped, stopped, sink);  // "verified: N instructions"
 *     fwpt_soft_fini(&soft);
 *
 * fn is a plain (System V) C function in the app, typically a wrapper that calls the boot service.
 * fwpt_soft_call calls fn at the caller's TPL with the timer interrupt stopped (EFI_TIMER_ARCH_PROTOCOL
 * period 0, restored after: no timer event runs inside, so runs repeat exactly) and records every retired instruction's IP in gt (the ground truth): the
 * first is fn's entry, the last fn's final RET. The trace is what a processor would write had
 * TraceEn been set at fn's entry and cleared at its return (the final RET sends TIP.PGD with the
 * return address, so decoders end exactly there).
 * Limits (docs/soft-backend.md): code that runs with TF clear (interrupt/exception handlers, SMM) is not seen;
 * QEMU TCG takes no trap after STI or HLT — the instruction after them is reconstructed by decoding
 * it at the fall-through IP; the CPL is 0 and the code 64-bit. */
#ifndef FWPT_EFI_SOFT_H
#define FWPT_EFI_SOFT_H

#include <efi.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/soft_cpu.h"

/* The simulator (setup, cpu, feed, verify, report: sim/soft_cpu.h) and what single-stepping it in firmware
 * needs besides. */
struct fwpt_efi_soft {
    struct fwpt_soft sim;
    void *cpu_arch;                   /* EFI_CPU_ARCH_PROTOCOL */
    void *timer_arch;                 /* EFI_TIMER_ARCH_PROTOCOL, NULL when there is none */
    uint64_t timer_period;            /* its period before the last stepped call (100 ns units; 0: it was off) */
    int timer_stopped;                /* the timer interrupt was off during the last stepped call */
    int timer_restored;               /* after that call, SetTimerPeriod(timer_period) succeeded and reads back */
    int handler_registered;           /* the #DB handler is ours */
    uint64_t prev_ip;                 /* the instruction the last trap stopped before */
    int have_prev, stepping;
    int open;                         /* fwpt_soft_open: stepping the boot, not a call */
};

/* fwpt_soft_setup + EFI_CPU_ARCH_PROTOCOL + TSC rate. EFI_NOT_FOUND for an unknown profile,
 * EFI_UNSUPPORTED without EFI_CPU_ARCH_PROTOCOL. profile NULL: only fwpt_soft_record is used. */
EFI_STATUS fwpt_soft_init(struct fwpt_efi_soft *s, const char *profile, const struct fwpt_physmem *mem,
                          uint64_t *gt, size_t gt_cap);
/* Call fn(arg). If the model's CTL has TraceEn=1 the call is single-stepped and traced; otherwise
 * it is a plain call. EFI_SUCCESS, or an error when the #DB handler could not be registered (fn
 * was not called then). Encoder errors are in s->stats.enc_status. */
EFI_STATUS fwpt_soft_call(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg);
/* Single-step fn(arg) and record the ground truth only: no encoder, no CPU. For `verify` on a
 * machine with real PT: trace the call on hardware, decode, then call it again through this and
 * compare with fwpt_soft_verify (flows agree when the call is deterministic; no IP filter then). */
EFI_STATUS fwpt_soft_record(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg);
/* The boot trace (efi/driver.c): with TraceEn=1 in the model, single-step everything that runs after this function
 * returns to its caller, the trace starting at that return address, until a trap lands on stop_ip (the caller's
 * end-of-trace notify function: the instruction that went there is the last traced) or a limit of fwpt_soft_step_end
 * ends it; TF is then clear and the rest runs at full speed. The #DB handler stays registered until fwpt_soft_close.
 * Unlike fwpt_soft_call the timer interrupt stays on (what the boot waits for must come): interrupt handlers and the
 * timer events they run are not seen (TF is clear in them). EFI_NOT_READY without a profile or TraceEn. */
EFI_STATUS fwpt_soft_open(struct fwpt_efi_soft *s, uint64_t stop_ip);
/* Stepping over (a trap still pending clears TF), the #DB handler given back; 1 when stepping had not ended (the end
 * came from code that runs with TF clear, such as a timer event). */
int fwpt_soft_close(struct fwpt_efi_soft *s);
/* A progress line every 'seconds' of single-stepping, on COM1 (efi/progress.h); 0 (the default): none. */
void fwpt_soft_set_progress(uint64_t seconds);
/* The timer's period now (GetTimerPeriod, 100 ns units) into *period: 0 when it can be read, -1 without
 * EFI_TIMER_ARCH_PROTOCOL or when GetTimerPeriod fails. */
int fwpt_soft_timer_period(const struct fwpt_efi_soft *s, uint64_t *period);
/* On the way out of the app, after a stepped call stopped the timer: the period read back (*now) against the one
 * before the call (timer_period); when they differ it is set back. 0: no stepped call stopped the timer (nothing to
 * say); 1: the same; 2: it differed and was set back; -1: it cannot be read or set back. */
int fwpt_soft_timer_check(struct fwpt_efi_soft *s, uint64_t *now);
/* Unregister the #DB handler (safe to call twice). */
void fwpt_soft_fini(struct fwpt_efi_soft *s);

#endif
