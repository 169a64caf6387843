/* fwpt EFI — EFI_CPU_ARCH_PROTOCOL and EFI_TIMER_ARCH_PROTOCOL (PI spec Vol. 2, DXE Architectural
 * Protocols; not in gnu-efi's headers), used by the hardware MSR backend (#GP handler, efi/cpu_hw.c) and
 * the software backend (#DB, and the timer stopped while it single-steps: efi/soft.c). */
#ifndef FWPT_EFI_CPU_ARCH_H
#define FWPT_EFI_CPU_ARCH_H

#include <efi.h>

#define FWPT_CPU_ARCH_PROTOCOL_GUID \
    {0x26baccb1, 0x6f42, 0x11d4, {0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81}}
typedef void(EFIAPI *fwpt_interrupt_handler)(EFI_EXCEPTION_TYPE type, EFI_SYSTEM_CONTEXT ctx);
struct fwpt_cpu_arch_protocol {
    EFI_STATUS(EFIAPI *FlushDataCache)(struct fwpt_cpu_arch_protocol *, EFI_PHYSICAL_ADDRESS, UINT64, UINT32);
    EFI_STATUS(EFIAPI *EnableInterrupt)(struct fwpt_cpu_arch_protocol *);
    EFI_STATUS(EFIAPI *DisableInterrupt)(struct fwpt_cpu_arch_protocol *);
    EFI_STATUS(EFIAPI *GetInterruptState)(struct fwpt_cpu_arch_protocol *, BOOLEAN *);
    EFI_STATUS(EFIAPI *Init)(struct fwpt_cpu_arch_protocol *, UINT32);
    EFI_STATUS(EFIAPI *RegisterInterruptHandler)(struct fwpt_cpu_arch_protocol *, EFI_EXCEPTION_TYPE,
                                                 fwpt_interrupt_handler);
    EFI_STATUS(EFIAPI *GetTimerValue)(struct fwpt_cpu_arch_protocol *, UINT32, UINT64 *, UINT64 *);
    EFI_STATUS(EFIAPI *SetMemoryAttributes)(struct fwpt_cpu_arch_protocol *, EFI_PHYSICAL_ADDRESS, UINT64, UINT64);
    UINT32 NumberOfTimers;
    UINT32 DmaBufferAlignment;
};

#define FWPT_TIMER_ARCH_PROTOCOL_GUID \
    {0x26baccb3, 0x6f42, 0x11d4, {0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81}}
/* TimerPeriod in 100 ns units; SetTimerPeriod(0) disables the timer interrupt (PI spec, SetTimerPeriod()). */
struct fwpt_timer_arch_protocol {
    EFI_STATUS(EFIAPI *RegisterHandler)(struct fwpt_timer_arch_protocol *, void *);
    EFI_STATUS(EFIAPI *SetTimerPeriod)(struct fwpt_timer_arch_protocol *, UINT64);
    EFI_STATUS(EFIAPI *GetTimerPeriod)(struct fwpt_timer_arch_protocol *, UINT64 *);
    EFI_STATUS(EFIAPI *GenerateSoftInterrupt)(struct fwpt_timer_arch_protocol *);
};

#endif
