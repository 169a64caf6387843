/* fwpt — hardware CPU backend (see cpu_hw.h). */
#include <efi.h>
#include <efilib.h>
#include <stddef.h>
#include "efi/cpu_arch.h"
#include "efi/cpu_hw.h"

/* EDK2 MdePkg DebugSupport.h layout: ExceptionData, FXSAVE (512), Dr0-3, Dr6, Dr7, Cr0-4, Cr8,
 * Rflags, Ldtr, Tr, Gdtr[2], Idtr[2], Rip. */
_Static_assert(offsetof(EFI_SYSTEM_CONTEXT_X64, Rip) == 8 + 512 + 6 * 8 + 6 * 8 + 8 + 16 + 32 + 0,
               "EFI_SYSTEM_CONTEXT_X64.Rip offset differs from EDK2");

#define EXCEPT_X64_GP 13

/* The MSR instructions live at known addresses so the #GP handler only ever resumes after them.
 * System V ABI (our own code calls these): edi = MSR, rsi = value / pointer. */
__asm__(".text\n"
        ".globl fwpt_hw_rdmsr_raw\n.hidden fwpt_hw_rdmsr_raw\n"
        "fwpt_hw_rdmsr_raw:\n"
        "    movl %edi, %ecx\n"
        "    xorl %eax, %eax\n"
        "    xorl %edx, %edx\n"
        ".globl fwpt_hw_rdmsr_insn\n.hidden fwpt_hw_rdmsr_insn\n"
        "fwpt_hw_rdmsr_insn:\n"
        "    rdmsr\n" /* 0F 32: two bytes, the handler skips them on #GP */
        "    shlq $32, %rdx\n"
        "    orq %rdx, %rax\n"
        "    movq %rax, (%rsi)\n"
        "    ret\n"
        ".globl fwpt_hw_wrmsr_raw\n.hidden fwpt_hw_wrmsr_raw\n"
        "fwpt_hw_wrmsr_raw:\n"
        "    movl %edi, %ecx\n"
        "    movl %esi, %eax\n"
        "    movq %rsi, %rdx\n"
        "    shrq $32, %rdx\n"
        ".globl fwpt_hw_wrmsr_insn\n.hidden fwpt_hw_wrmsr_insn\n"
        "fwpt_hw_wrmsr_insn:\n"
        "    wrmsr\n" /* 0F 30 */
        "    ret\n");
void fwpt_hw_rdmsr_raw(uint32_t msr, uint64_t *value);
void fwpt_hw_wrmsr_raw(uint32_t msr, uint64_t value);
extern const char fwpt_hw_rdmsr_insn[] __attribute__((visibility("hidden")));
extern const char fwpt_hw_wrmsr_insn[] __attribute__((visibility("hidden")));

static volatile unsigned gp_fault;
static volatile UINT64 gp_stray_rip;

static void EFIAPI gp_handler(EFI_EXCEPTION_TYPE type, EFI_SYSTEM_CONTEXT ctx)
{
    EFI_SYSTEM_CONTEXT_X64 *x = ctx.SystemContextX64;
    if (type == EXCEPT_X64_GP &&
        (x->Rip == (UINT64)(UINTN)fwpt_hw_rdmsr_insn || x->Rip == (UINT64)(UINTN)fwpt_hw_wrmsr_insn)) {
        gp_fault = 1;
        x->Rip += 2; /* RDMSR/WRMSR are 2 bytes */
        return;
    }
    /* A #GP anywhere else while armed cannot be resumed: say so in the firmware's words and stop. */
    gp_stray_rip = x->Rip;
    Print(L"\n!!!! X64 Exception Type - 0D (fwpt: #GP outside an MSR access, RIP=%lx) !!!!\n", x->Rip);
    for (;;)
        __asm__ volatile("cli; hlt");
}

static enum fwpt_status hw_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *r)
{
    (void)ctx;
    __asm__ volatile("cpuid" : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx) : "a"(leaf), "c"(subleaf));
    return FWPT_OK;
}

/* Arms the #GP handler, runs one access, disarms it on every path. */
static enum fwpt_status msr_access(struct fwpt_cpu_hw *hw, int write, uint32_t msr, uint64_t *value)
{
    struct fwpt_cpu_arch_protocol *ca = hw->cpu_arch;
    if (!ca)
        return FWPT_E_FIRMWARE; /* without the protocol a #GP would hang the machine: refuse */
    EFI_STATUS st = ca->RegisterInterruptHandler(ca, EXCEPT_X64_GP, gp_handler);
    if (EFI_ERROR(st)) {
        hw->register_status = st; /* e.g. EFI_ALREADY_STARTED: someone else owns vector 13 */
        return FWPT_E_FIRMWARE;
    }
    gp_fault = 0;
    __asm__ volatile("" ::: "memory");
    if (write)
        fwpt_hw_wrmsr_raw(msr, *value);
    else
        fwpt_hw_rdmsr_raw(msr, value);
    __asm__ volatile("" ::: "memory");
    unsigned faulted = gp_fault;
    ca->RegisterInterruptHandler(ca, EXCEPT_X64_GP, NULL);
    if (faulted) {
        hw->faults++;
        if (!write)
            *value = 0;
        return FWPT_E_FAULT;
    }
    return FWPT_OK;
}

static enum fwpt_status hw_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    return msr_access(ctx, 0, msr, value);
}

static enum fwpt_status hw_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    return msr_access(ctx, 1, msr, &value);
}

static void hw_fence(void *ctx)
{
    (void)ctx;
    __asm__ volatile("sfence" ::: "memory"); /* SDM: stores of trace output are weakly ordered */
}

void fwpt_cpu_hw_init(struct fwpt_cpu_hw *hw, struct fwpt_cpu *cpu)
{
    static EFI_GUID guid = FWPT_CPU_ARCH_PROTOCOL_GUID;
    hw->cpu_arch = NULL;
    hw->register_status = EFI_SUCCESS;
    hw->faults = 0;
    hw->locate_status = uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, &hw->cpu_arch);
    if (EFI_ERROR(hw->locate_status))
        hw->cpu_arch = NULL;
    cpu->name = "hardware";
    cpu->ctx = hw;
    cpu->cpuid = hw_cpuid;
    cpu->rdmsr = hw_rdmsr;
    cpu->wrmsr = hw_wrmsr;
    cpu->fence = hw_fence;
}

void fwpt_cpu_hw_brand(const struct fwpt_cpu *cpu, char out[49])
{
    struct fwpt_cpuid_regs r;
    out[0] = 0;
    if (fwpt_cpuid(cpu, 0x80000000u, 0, &r) != FWPT_OK || r.eax < 0x80000004u)
        return;
    for (uint32_t i = 0; i < 3; i++) {
        fwpt_cpuid(cpu, 0x80000002u + i, 0, &r);
        uint32_t w[4] = {r.eax, r.ebx, r.ecx, r.edx};
        CopyMem(out + 16 * i, w, 16);
    }
    out[48] = 0;
    /* leading spaces are padding on many parts */
    char *s = out;
    while (*s == ' ')
        s++;
    if (s != out) {
        char *d = out;
        while ((*d++ = *s++))
            ;
    }
}
