/* A stand-alone EFI app for the QEMU test of the software backend: runs fwpt_soft_selftest (all
 * cases) with the watchdog off and prints to the console (serial under QEMU). Linked with every
 * efi/ object except efi/main.o (tests/soft_selftest.mk). */
#include <efi.h>
#include <efilib.h>
#include "efi/console.h"
#include "efi/soft_selftest.h"

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    InitializeLib(image, st);
    uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
    struct fwpt_sink o = fwpt_screen_sink();
    EFI_STATUS s = fwpt_soft_selftest(image, NULL, &o);
    fwpt_puts(&o, s == EFI_SUCCESS ? "soft-selftest: ALL PASSED\n" : "soft-selftest: FAILURES\n");
    uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
    return s;
}
