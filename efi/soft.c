/* fwpt — the software trace backend (see soft.h): single-step the target with TF and a #DB
 * handler, classify each retired instruction, and turn the flow into PT packets. */
#include <efi.h>
#include <efilib.h>
#include <stddef.h>
#include "decode/insn.h"
#include "efi/soft.h"

/* EFI_CPU_ARCH_PROTOCOL (PI spec Vol. 2; not in gnu-efi's headers). */
static EFI_GUID cpu_arch_guid = {0x26baccb1, 0x6f42, 0x11d4, {0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81}};
typedef void(EFIAPI *soft_interrupt_handler)(EFI_EXCEPTION_TYPE type, EFI_SYSTEM_CONTEXT ctx);
struct soft_cpu_arch {
    EFI_STATUS(EFIAPI *FlushDataCache)(struct soft_cpu_arch *, EFI_PHYSICAL_ADDRESS, UINT64, UINT32);
    EFI_STATUS(EFIAPI *EnableInterrupt)(struct soft_cpu_arch *);
    EFI_STATUS(EFIAPI *DisableInterrupt)(struct soft_cpu_arch *);
    EFI_STATUS(EFIAPI *GetInterruptState)(struct soft_cpu_arch *, BOOLEAN *);
    EFI_STATUS(EFIAPI *Init)(struct soft_cpu_arch *, UINT32);
    EFI_STATUS(EFIAPI *RegisterInterruptHandler)(struct soft_cpu_arch *, EFI_EXCEPTION_TYPE, soft_interrupt_handler);
    EFI_STATUS(EFIAPI *GetTimerValue)(struct soft_cpu_arch *, UINT32, UINT64 *, UINT64 *);
    EFI_STATUS(EFIAPI *SetMemoryAttributes)(struct soft_cpu_arch *, EFI_PHYSICAL_ADDRESS, UINT64, UINT64);
    UINT32 NumberOfTimers;
    UINT32 DmaBufferAlignment;
};

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
extern const char fwpt_soft_trampoline_ret[] __attribute__((visibility("hidden")));

static struct fwpt_soft *g_soft;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* ---- the CPU: CPUID from the profile (through the model), MSRs the model's ---- */
static enum fwpt_status replay_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    return fwpt_replay_cpuid(ctx, leaf, subleaf, out);
}

static enum fwpt_status soft_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    struct fwpt_soft *s = ctx;
    return fwpt_model_cpuid(&s->model, leaf, subleaf, out);
}

static enum fwpt_status soft_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct fwpt_soft *s = ctx;
    return fwpt_model_rdmsr(&s->model, msr, value);
}

static enum fwpt_status soft_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    struct fwpt_soft *s = ctx;
    if (msr == MSR_IA32_RTIT_CTL && s->enc_running && (s->model.ctl & RTIT_CTL_TRACEEN) &&
        !(value & RTIT_CTL_TRACEEN)) {
        /* TraceEn 1->0: what the processor still holds goes out before the bit clears. */
        enum fwpt_status st = fwpt_soft_enc_stop(&s->enc, rdtsc());
        if (st != FWPT_OK && s->stats.enc_status == FWPT_OK)
            s->stats.enc_status = st;
        s->enc_running = 0;
    }
    return fwpt_model_wrmsr(&s->model, msr, value);
}

static enum fwpt_status soft_emit(void *ctx, const uint8_t *b, size_t n)
{
    struct fwpt_soft *s = ctx;
    s->stats.bytes += n;
    fwpt_model_emit(&s->model, b, n);
    return FWPT_OK; /* STOP, errors, drops: the model's business, visible in its MSRs */
}

EFI_STATUS fwpt_soft_init(struct fwpt_soft *s, const char *profile, const struct fwpt_physmem *mem,
                          uint64_t *gt, size_t gt_cap)
{
    fwpt_memset(s, 0, sizeof *s);
    s->profile = profile ? fwpt_cpu_profile_find(profile) : NULL;
    if (profile && !s->profile)
        return EFI_NOT_FOUND;
    if (!s->profile) {
        /* Stepping only (fwpt_soft_record): no CPU to program. */
        s->gt = gt;
        s->gt_cap = gt_cap;
        goto locate;
    }
    fwpt_replay_init_profile(&s->replay, s->profile);
    fwpt_cpu_profile_snapshot(s->profile, &s->snap);
    fwpt_caps_parse(&s->snap, &s->caps);
    fwpt_model_init(&s->model, &s->caps, mem);
    s->model.cpuid_fn = replay_cpuid;
    s->model.cpuid_ctx = &s->replay;
    s->cpu = (struct fwpt_cpu){.name = "soft", .ctx = s, .cpuid = soft_cpuid, .rdmsr = soft_rdmsr,
                               .wrmsr = soft_wrmsr, .fence = NULL};
    s->gt = gt;
    s->gt_cap = gt_cap;
locate:;
    /* TSC rate, for steps per second in the report. */
    uint64_t t0 = rdtsc();
    uefi_call_wrapper(BS->Stall, 1, 2000);
    s->tsc_hz = (rdtsc() - t0) * 500;
    EFI_STATUS st = uefi_call_wrapper(BS->LocateProtocol, 3, &cpu_arch_guid, NULL, &s->cpu_arch);
    if (EFI_ERROR(st) || !s->cpu_arch) {
        s->cpu_arch = NULL;
        return EFI_UNSUPPORTED;
    }
    return EFI_SUCCESS;
}

const struct fwpt_cpu *fwpt_soft_cpu(struct fwpt_soft *s)
{
    return &s->cpu;
}

/* ---- single-step ---- */
static void note_error(struct fwpt_soft *s, enum fwpt_status st, uint64_t ip)
{
    if (st != FWPT_OK && s->stats.enc_status == FWPT_OK) {
        s->stats.enc_status = st;
        s->stats.enc_error_ip = ip;
    }
}

static void feed(struct fwpt_soft *s, uint64_t ip, uint64_t next, const struct fwpt_insn *in, uint64_t now,
                 int leaves)
{
    if (s->gt_count < s->gt_cap) {
        s->gt[s->gt_count++] = ip;
        if (s->record_only || fwpt_soft_enc_triggered(&s->enc))
            s->traced_end = s->gt_count;
    } else {
        s->stats.lost++;
    }
    s->stats.insns++;
    if (s->record_only)
        return;
    struct fwpt_soft_insn si = {.ip = ip, .next_ip = next, .time = now, .size = in->size, .iclass = in->iclass,
                                .zero_len_call = in->zero_len_call, .leaves = (uint8_t)leaves};
    int stopped_before = !fwpt_soft_enc_triggered(&s->enc);
    note_error(s, fwpt_soft_enc_step(&s->enc, &si), ip);
    if (!stopped_before && !fwpt_soft_enc_triggered(&s->enc)) {
        /* TraceStop: IA32_RTIT_STATUS.Stopped set, TriggerEn clear (SDM "TraceStop"). */
        s->model.status = (s->model.status | RTIT_STATUS_STOPPED) & ~RTIT_STATUS_TRIGGEREN;
        s->traced_end = s->gt_count;
    }
}

/* The instruction at prev_ip retired and the processor is now at rip. */
static void retire(struct fwpt_soft *s, uint64_t rip, uint64_t now)
{
    uint64_t ip = s->prev_ip;
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
            note_error(s, st, ip);
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
    struct fwpt_soft *s = g_soft;
    uint64_t now = rdtsc();
    /* EDK2's exception stub does not restore DR6: clear BS ourselves. */
    __asm__ volatile("movq %0, %%dr6" : : "r"(DR6_CLEAR));
    x->Dr6 = DR6_CLEAR;
    if (type != EXCEPT_X64_DEBUG || !s || !s->stepping) {
        x->Rflags &= ~RFLAGS_TF;
        return;
    }
    uint64_t rip = x->Rip;
    s->stats.steps++;
    if (!s->have_prev) {
        s->have_prev = 1; /* the first trap: on the target's entry, nothing retired yet */
    } else {
        retire(s, rip, now);
    }
    s->prev_ip = rip;
    if (rip == s->stop_ip || s->stats.steps >= FWPT_SOFT_MAX_STEPS) {
        s->stats.step_limit_hit = rip != s->stop_ip;
        s->stepping = 0;
        x->Rflags &= ~RFLAGS_TF;
    } else {
        x->Rflags |= RFLAGS_TF;
    }
}

static EFI_STATUS step_call(struct fwpt_soft *s, void (*fn)(void *), void *arg, int record_only);

EFI_STATUS fwpt_soft_call(struct fwpt_soft *s, void (*fn)(void *), void *arg)
{
    if (!s->profile || !(s->model.ctl & RTIT_CTL_TRACEEN)) {
        fn(arg);
        return EFI_SUCCESS;
    }
    return step_call(s, fn, arg, 0);
}

EFI_STATUS fwpt_soft_record(struct fwpt_soft *s, void (*fn)(void *), void *arg)
{
    return step_call(s, fn, arg, 1);
}

static EFI_STATUS step_call(struct fwpt_soft *s, void (*fn)(void *), void *arg, int record_only)
{
    struct soft_cpu_arch *ca = s->cpu_arch;
    if (!ca)
        return EFI_UNSUPPORTED;
    s->record_only = record_only;
    struct fwpt_soft_enc_config cfg = {.ctl = s->model.ctl, .cpl = 0, .tsc_per_ctc = 1};
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++)
        cfg.addr_a[n] = s->model.addr_a[n], cfg.addr_b[n] = s->model.addr_b[n];
    fwpt_soft_enc_init(&s->enc, &cfg, soft_emit, s);
    s->gt_count = 0;
    s->traced_end = 0;
    fwpt_memset(&s->stats, 0, sizeof s->stats);
    s->have_prev = 0;
    s->stop_ip = (uint64_t)(uintptr_t)fwpt_soft_trampoline_ret;
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
    EFI_TPL old = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_NOTIFY);
    s->stats.tsc_start = rdtsc();
    if (!record_only) {
        s->enc_running = 1;
        note_error(s, fwpt_soft_enc_start(&s->enc, (uint64_t)(uintptr_t)fn, s->stats.tsc_start),
                   (uint64_t)(uintptr_t)fn);
        if (!fwpt_soft_enc_triggered(&s->enc))
            s->model.status = (s->model.status | RTIT_STATUS_STOPPED) & ~RTIT_STATUS_TRIGGEREN;
    }
    s->stepping = 1;
    fwpt_soft_trampoline(fn, arg);
    s->stepping = 0;
    s->stats.tsc_end = rdtsc();
    uefi_call_wrapper(BS->RestoreTPL, 1, old);
    fwpt_soft_fini(s);
    return EFI_SUCCESS;
}

void fwpt_soft_fini(struct fwpt_soft *s)
{
    struct soft_cpu_arch *ca = s->cpu_arch;
    if (s->handler_registered && ca)
        uefi_call_wrapper(ca->RegisterInterruptHandler, 3, ca, EXCEPT_X64_DEBUG, NULL);
    s->handler_registered = 0;
}

/* ---- verify and report ---- */
static void put_ip_line(const struct fwpt_sink *o, const char *what, size_t i, uint64_t ip)
{
    fwpt_puts(o, what);
    fwpt_put_dec(o, i);
    fwpt_puts(o, ": ");
    fwpt_put_0x(o, ip);
    fwpt_putc(o, '\n');
}

/* PacketEn at ip under the traced configuration (every stepped instruction when only recording:
 * the hardware run's own filter is not modelled then). */
static int traced(const struct fwpt_soft *s, uint64_t ip)
{
    return s->record_only || fwpt_soft_enc_filter_en(&s->enc.cfg, ip);
}

int fwpt_soft_verify(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, int wrapped, int stopped,
                     const struct fwpt_sink *o)
{
    if (s->stats.lost) {
        fwpt_puts(o, "verify: ground truth incomplete (");
        fwpt_put_dec(o, s->stats.lost);
        fwpt_puts(o, " instructions did not fit)\n");
        return 1;
    }
    /* What the processor traces: instructions where PacketEn held (IP filter), before a TraceStop. */
    size_t end = s->traced_end, total = 0;
    for (size_t i = 0; i < end; i++)
        total += traced(s, s->gt[i]);
    size_t skip = 0, want = total;
    const char *how = "the whole call";
    if (wrapped && n <= total) {
        skip = total - n; /* the ring kept the newest part */
        want = n;
        how = "the newest part (ring wrapped)";
    } else if (stopped && n <= total) {
        want = n; /* the buffer filled: the oldest part */
        how = "the oldest part (output stopped)";
    }
    size_t j = 0, k = 0;
    for (size_t i = 0; i < end && j < want; i++) {
        if (!traced(s, s->gt[i]))
            continue;
        if (k++ < skip)
            continue;
        if (j >= n || decoded[j] != s->gt[i]) {
            fwpt_puts(o, "verify: FIRST DIFFERENCE at instruction ");
            fwpt_put_dec(o, j);
            fwpt_putc(o, '\n');
            if (j)
                put_ip_line(o, "  both      #", j - 1, decoded[j - 1]);
            if (j < n)
                put_ip_line(o, "  decoded   #", j, decoded[j]);
            else
                fwpt_puts(o, "  decoded   (end of trace)\n");
            put_ip_line(o, "  stepped   #", i, s->gt[i]);
            return 1;
        }
        j++;
    }
    if (j != want || n != want) {
        fwpt_puts(o, "verify: FIRST DIFFERENCE at instruction ");
        fwpt_put_dec(o, j);
        fwpt_puts(o, ": decoded ");
        fwpt_put_dec(o, n);
        fwpt_puts(o, " instructions, single-stepped and traced ");
        fwpt_put_dec(o, want);
        fwpt_putc(o, '\n');
        return 1;
    }
    fwpt_puts(o, "verified: ");
    fwpt_put_dec(o, n);
    fwpt_puts(o, " instructions decoded = single-stepped (");
    fwpt_puts(o, how);
    if (total != s->gt_count) {
        fwpt_puts(o, "; ");
        fwpt_put_dec(o, s->gt_count - total);
        fwpt_puts(o, " stepped instructions outside the filter or after TraceStop");
    }
    fwpt_puts(o, ")\n");
    return 0;
}

void fwpt_soft_report(const struct fwpt_soft *s, const struct fwpt_sink *o)
{
    const struct fwpt_soft_enc_counts *c = &s->enc.counts;
    fwpt_puts(o, "soft: profile ");
    fwpt_puts(o, s->profile ? s->profile->name : "?");
    fwpt_puts(o, ", ");
    fwpt_put_dec(o, s->stats.steps);
    fwpt_puts(o, " steps, ");
    fwpt_put_dec(o, s->stats.insns);
    fwpt_puts(o, " instructions (");
    fwpt_put_dec(o, s->stats.shadow_fixups);
    fwpt_puts(o, " without a trap), ");
    fwpt_put_dec(o, s->stats.steps ? (s->stats.tsc_end - s->stats.tsc_start) / s->stats.steps : 0);
    fwpt_puts(o, " TSC ticks/step (");
    uint64_t dt = s->stats.tsc_end - s->stats.tsc_start;
    fwpt_put_dec(o, dt && s->tsc_hz ? s->stats.steps * s->tsc_hz / dt : 0);
    fwpt_puts(o, " steps/s), ");
    fwpt_put_dec(o, s->stats.rep_iterations);
    fwpt_puts(o, " REP iterations, ");
    fwpt_put_dec(o, s->stats.bytes);
    fwpt_puts(o, " packet bytes: PSB ");
    fwpt_put_dec(o, c->psb);
    fwpt_puts(o, " TNT ");
    fwpt_put_dec(o, c->tnt);
    fwpt_puts(o, " TIP ");
    fwpt_put_dec(o, c->tip);
    fwpt_puts(o, " PGE ");
    fwpt_put_dec(o, c->tip_pge);
    fwpt_puts(o, " PGD ");
    fwpt_put_dec(o, c->tip_pgd);
    fwpt_puts(o, " RETcomp ");
    fwpt_put_dec(o, c->ret_compressed);
    if (s->stats.enc_status != FWPT_OK) {
        fwpt_puts(o, "; ERROR ");
        fwpt_puts(o, fwpt_status_name(s->stats.enc_status));
        fwpt_puts(o, " at ");
        fwpt_put_0x(o, s->stats.enc_error_ip);
    }
    if (s->stats.step_limit_hit)
        fwpt_puts(o, "; step limit reached");
    fwpt_putc(o, '\n');
}
