/* fwpt — the software trace backend (see soft.h): single-step the target with TF and a #DB
 * handler, classify each retired instruction, and turn the flow into PT packets. */
#include <efi.h>
#include <efilib.h>
#include <stddef.h>
#include "decode/insn.h"
#include "efi/cpu_arch.h"
#include "efi/progress.h"
#include "efi/soft.h"

static EFI_GUID cpu_arch_guid = FWPT_CPU_ARCH_PROTOCOL_GUID;
static EFI_GUID timer_arch_guid = FWPT_TIMER_ARCH_PROTOCOL_GUID;

#define EXCEPT_X64_DEBUG 1
#define RFLAGS_TF 0x100ull       /* EFLAGS.TF: single-step trap after each instruction */
#define DR6_CLEAR 0xffff0ff0ull  /* DR6 with no status bits set (BS is sticky: SDM "Debug Status Register") */
#define INSN_MAX 15u

/* The trampoline: TF set by POPFQ traps after the next instruction, the CALL, so the first #DB lands
 * on the target's entry; the trap after the target's final RET lands on fwpt_soft_trampoline_ret,
 * where the handler clears TF. System V: rdi = fn, rsi = arg. */
__asm__(".text\n"
        ".globl fwpt_soft_trampoline\n.hidden fwpt_soft_trampoline\n"
        "fwpt_soft_trampoline:\n"
        "    pushq %rbx\n"          /* keeps the stack 16-byte aligned at the call */
        "    movq %rdi, %rax\n"
        "    movq %rsi, %rdi\n"
        "    xchgw %bx, %bx\n"      /* 66 87 DB: marker for the QEMU plugin witness (a no-op) */
        "    pushfq\n"
        "    orq $0x100, (%rsp)\n"
        "    popfq\n"
        "    call *%rax\n"
        ".globl fwpt_soft_trampoline_ret\n.hidden fwpt_soft_trampoline_ret\n"
        "fwpt_soft_trampoline_ret:\n"
        "    pushfq\n"
        "    andq $~0x100, (%rsp)\n"
        "    popfq\n"
        "    xchgw %cx, %cx\n"      /* 66 87 C9: end marker for the witness */
        "    popq %rbx\n"
        "    ret\n");
void fwpt_soft_trampoline(void (*fn)(void *), void *arg);
/* fwpt_soft_open's last step: TF set by POPFQ traps after the next instruction, this RET, so the first #DB lands on
 * the instruction after the call to fwpt_soft_open: stepping goes on into whatever runs next. */
__asm__(".text\n"
        ".globl fwpt_soft_arm\n.hidden fwpt_soft_arm\n"
        "fwpt_soft_arm:\n"
        "    pushfq\n"
        "    orq $0x100, (%rsp)\n"
        "    popfq\n"
        "    ret\n");
void fwpt_soft_arm(void);
extern const char fwpt_soft_trampoline_ret[] __attribute__((visibility("hidden")));

static struct fwpt_efi_soft *g_soft;
/* a line every few seconds of stepping, on COM1 when there is one (efi/progress.h: never the firmware's console
 * from inside the handler) */
static struct fwpt_app_progress step_progress;
static bool step_uart;
static uint64_t step_progress_s;

void fwpt_soft_set_progress(uint64_t seconds) { step_progress_s = seconds; }

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

EFI_STATUS fwpt_soft_init(struct fwpt_efi_soft *s, const char *profile, const struct fwpt_physmem *mem,
                          uint64_t *gt, size_t gt_cap)
{
    s->cpu_arch = s->timer_arch = NULL;
    s->timer_period = 0;
    s->timer_stopped = 0;
    s->timer_restored = 0;
    s->handler_registered = 0;
    s->have_prev = s->stepping = s->open = 0;
    if (fwpt_soft_setup(&s->sim, profile, mem, gt, gt_cap) != FWPT_OK)
        return EFI_NOT_FOUND;
    /* TSC rate, for steps per second in the report and the profile's CPUID 15H: the smallest of three 2 ms Stalls (a
     * virtual CPU descheduled during one makes it look longer: once over 4.29 GHz, CPUID 15H ECX is 0, rate unknown) */
    s->sim.tsc_hz = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = rdtsc();
        uefi_call_wrapper(BS->Stall, 1, 2000);
        uint64_t hz = (rdtsc() - t0) * 500;
        if (!s->sim.tsc_hz || hz < s->sim.tsc_hz)
            s->sim.tsc_hz = hz;
    }
    EFI_STATUS st = uefi_call_wrapper(BS->LocateProtocol, 3, &cpu_arch_guid, NULL, &s->cpu_arch);
    if (EFI_ERROR(st) || !s->cpu_arch) {
        s->cpu_arch = NULL;
        return EFI_UNSUPPORTED;
    }
    /* optional: without it timer interrupts stay on while stepping (step_call) */
    if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &timer_arch_guid, NULL, &s->timer_arch)))
        s->timer_arch = NULL;
    return EFI_SUCCESS;
}

/* ---- single-step ---- */
static void feed(struct fwpt_soft *s, uint64_t ip, uint64_t next, const struct fwpt_insn *in, uint64_t now,
                 int leaves)
{
    struct fwpt_soft_insn si = {.ip = ip, .next_ip = next, .time = now, .size = in->size, .iclass = in->iclass,
                                .zero_len_call = in->zero_len_call, .leaves = (uint8_t)leaves};
    fwpt_soft_feed(s, &si);
}

/* The instruction at prev_ip retired and the processor is now at rip. */
static void retire(struct fwpt_efi_soft *e, uint64_t rip, uint64_t now)
{
    struct fwpt_soft *s = &e->sim;
    uint64_t ip = e->prev_ip;
    int leaves = rip == s->stop_ip;
    if (rip == ip && !leaves) {
        /* REP string instruction: a trap after every iteration, RIP unchanged; it retires once. */
        const uint8_t *b = (const uint8_t *)(uintptr_t)ip;
        struct fwpt_insn in;
        if (fwpt_insn_decode(b, INSN_MAX, FWPT_MODE_64, &in) == FWPT_OK && in.iclass == FWPT_IC_OTHER) {
            s->stats.rep_iterations++;
            return;
        }
    }
    for (unsigned n = 0;; n++) {
        struct fwpt_insn in;
        enum fwpt_status st = fwpt_insn_decode((const uint8_t *)(uintptr_t)ip, INSN_MAX, FWPT_MODE_64, &in);
        if (st != FWPT_OK) {
            fwpt_soft_note_error(s, st, ip);
            return;
        }
        uint64_t fall = ip + in.size;
        if (in.iclass == FWPT_IC_OTHER && rip != fall && n < 2) {
            /* No trap after STI/HLT/MOV SS: this one retired, and the next one too. */
            feed(s, ip, fall, &in, now, 0);
            s->stats.shadow_fixups++;
            ip = fall;
            continue;
        }
        feed(s, ip, rip, &in, now, leaves);
        return;
    }
}

static void EFIAPI db_handler(EFI_EXCEPTION_TYPE type, EFI_SYSTEM_CONTEXT ctx)
{
    EFI_SYSTEM_CONTEXT_X64 *x = ctx.SystemContextX64;
    struct fwpt_efi_soft *s = g_soft;
    uint64_t now = rdtsc();
    /* EDK2's exception stub does not restore DR6: clear BS ourselves. */
    __asm__ volatile("movq %0, %%dr6" : : "r"(DR6_CLEAR));
    x->Dr6 = DR6_CLEAR;
    if (type != EXCEPT_X64_DEBUG || !s || !s->stepping) {
        x->Rflags &= ~RFLAGS_TF;
        return;
    }
    uint64_t rip = x->Rip;
    if (!s->have_prev) {
        s->have_prev = 1; /* the first trap: on the target's entry, nothing retired yet */
        if (s->open)
            fwpt_soft_begin(&s->sim, rip, now, 0); /* fwpt_soft_open: the trace starts here */
    } else {
        retire(s, rip, now);
    }
    s->prev_ip = rip;
    if (fwpt_soft_step_end(&s->sim, rip, now)) {
        s->stepping = 0;
        x->Rflags &= ~RFLAGS_TF;
    } else {
        x->Rflags |= RFLAGS_TF;
        if (step_uart && fwpt_app_progress_due(&step_progress, now)) {
            struct fwpt_sink u = fwpt_uart_sink();
            fwpt_app_progress_line(&step_progress, &u, now, s->sim.stats.bytes, s->sim.stats.insns, s->sim.stats.steps);
        }
    }
}

static EFI_STATUS step_call(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg, int record_only);

EFI_STATUS fwpt_soft_call(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg)
{
    if (!s->sim.profile || !(s->sim.model.ctl & RTIT_CTL_TRACEEN)) {
        fn(arg);
        return EFI_SUCCESS;
    }
    return step_call(s, fn, arg, 0);
}

EFI_STATUS fwpt_soft_record(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg)
{
    return step_call(s, fn, arg, 1);
}

/* The timer's period is saved and set to 0; timer_stopped says whether that worked. */
static void timer_stop(struct fwpt_efi_soft *s)
{
    struct fwpt_timer_arch_protocol *t = s->timer_arch;
    UINT64 period = 0;
    s->timer_stopped = 0;
    s->timer_period = 0;
    if (!t || EFI_ERROR(uefi_call_wrapper(t->GetTimerPeriod, 2, t, &period)))
        return;
    s->timer_period = period;
    if (period == 0 || !EFI_ERROR(uefi_call_wrapper(t->SetTimerPeriod, 2, t, (UINT64)0)))
        s->timer_stopped = 1;
}

/* The period saved by timer_stop given back, and read back (PI spec, EFI_TIMER_ARCH_PROTOCOL.GetTimerPeriod()): it
 * is restored only when it reads as before; timer_restored says so. */
static void timer_restart(struct fwpt_efi_soft *s)
{
    struct fwpt_timer_arch_protocol *t = s->timer_arch;
    uint64_t now = 0;
    s->timer_restored = 1;
    if (!t || !s->timer_stopped)
        return;
    if (s->timer_period && EFI_ERROR(uefi_call_wrapper(t->SetTimerPeriod, 2, t, (UINT64)s->timer_period)))
        s->timer_restored = 0;
    else if (fwpt_soft_timer_period(s, &now) != 0 || now != s->timer_period)
        s->timer_restored = 0;
}

/* Our #DB handler on vector 1 (through EFI_CPU_ARCH_PROTOCOL), stepping to end at stop_ip, the progress lines
 * started ("what: N s: ..."). */
static EFI_STATUS take_db_vector(struct fwpt_efi_soft *s, uint64_t stop_ip, const char *what)
{
    struct fwpt_cpu_arch_protocol *ca = s->cpu_arch;
    s->have_prev = 0;
    s->sim.stop_ip = stop_ip;
    g_soft = s;
    EFI_STATUS st = uefi_call_wrapper(ca->RegisterInterruptHandler, 3, ca, EXCEPT_X64_DEBUG, db_handler);
    if (st == EFI_ALREADY_STARTED) {
        /* Someone (a debug agent) owns vector 1: take it for the call, as the prototype did. */
        uefi_call_wrapper(ca->RegisterInterruptHandler, 3, ca, EXCEPT_X64_DEBUG, NULL);
        st = uefi_call_wrapper(ca->RegisterInterruptHandler, 3, ca, EXCEPT_X64_DEBUG, db_handler);
    }
    if (EFI_ERROR(st))
        return st;
    s->handler_registered = 1;
    step_uart = step_progress_s && fwpt_uart_present();
    fwpt_app_progress_start(&step_progress, what, 0, s->sim.tsc_hz, step_progress_s);
    return EFI_SUCCESS;
}

static EFI_STATUS step_call(struct fwpt_efi_soft *s, void (*fn)(void *), void *arg, int record_only)
{
    struct fwpt_cpu_arch_protocol *ca = s->cpu_arch;
    if (!ca)
        return EFI_UNSUPPORTED;
    s->open = 0;
    EFI_STATUS st = take_db_vector(s, (uint64_t)(uintptr_t)fwpt_soft_trampoline_ret, record_only ? "soft record" : "soft");
    if (EFI_ERROR(st))
        return st;
    /* The call runs at the caller's TPL: the TPL is never raised around it (UEFI spec, "Event, Timer, and Task Priority
     * Services", table "TPL Restrictions": file, variable and image services only up to TPL_CALLBACK, and a service
     * that raises to TPL_CALLBACK itself must not find a higher TPL). The timer interrupt is stopped instead, so no timer event runs inside the slow stepped call and a
     * second run repeats the first (PI spec, EFI_TIMER_ARCH_PROTOCOL.SetTimerPeriod(): a period of 0 disables it). */
    timer_stop(s);
    fwpt_soft_begin(&s->sim, (uint64_t)(uintptr_t)fn, rdtsc(), record_only);
    s->stepping = 1;
    fwpt_soft_trampoline(fn, arg);
    s->stepping = 0;
    s->sim.stats.tsc_end = rdtsc();
    timer_restart(s);
    fwpt_soft_fini(s);
    return EFI_SUCCESS;
}

EFI_STATUS fwpt_soft_open(struct fwpt_efi_soft *s, uint64_t stop_ip)
{
    struct fwpt_cpu_arch_protocol *ca = s->cpu_arch;
    if (!ca || !s->sim.profile || !(s->sim.model.ctl & RTIT_CTL_TRACEEN))
        return EFI_NOT_READY;
    EFI_STATUS st = take_db_vector(s, stop_ip, "soft");
    if (EFI_ERROR(st))
        return st;
    /* the timer stays on: the boot waits for timer events (UEFI spec, "WaitForEvent"), which must run */
    s->timer_stopped = 0;
    s->timer_period = 0;
    s->open = 1;
    s->stepping = 1;
    fwpt_soft_arm();
    return EFI_SUCCESS;
}

int fwpt_soft_close(struct fwpt_efi_soft *s)
{
    int was = s->stepping;
    s->stepping = 0; /* a trap still pending clears TF and returns */
    s->sim.stats.tsc_end = fwpt_rdtsc();
    fwpt_soft_fini(s);
    return was;
}

int fwpt_soft_timer_period(const struct fwpt_efi_soft *s, uint64_t *period)
{
    struct fwpt_timer_arch_protocol *t = s->timer_arch;
    UINT64 p = 0;
    if (!t || EFI_ERROR(uefi_call_wrapper(t->GetTimerPeriod, 2, t, &p)))
        return -1;
    *period = p;
    return 0;
}

int fwpt_soft_timer_check(struct fwpt_efi_soft *s, uint64_t *now)
{
    struct fwpt_timer_arch_protocol *t = s->timer_arch;
    if (!t || !s->timer_stopped)
        return 0;
    *now = 0;
    if (fwpt_soft_timer_period(s, now) != 0)
        return -1;
    if (*now == s->timer_period)
        return 1;
    uint64_t again = 0;
    if (EFI_ERROR(uefi_call_wrapper(t->SetTimerPeriod, 2, t, (UINT64)s->timer_period)) ||
        fwpt_soft_timer_period(s, &again) != 0 || again != s->timer_period)
        return -1;
    return 2;
}

void fwpt_soft_fini(struct fwpt_efi_soft *s)
{
    struct fwpt_cpu_arch_protocol *ca = s->cpu_arch;
    if (s->handler_registered && ca)
        uefi_call_wrapper(ca->RegisterInterruptHandler, 3, ca, EXCEPT_X64_DEBUG, NULL);
    s->handler_registered = 0;
}

