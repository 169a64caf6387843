/* fwpt — the boot-trace driver (fwptdrv.efi, an EFI boot service driver): loaded by the boot manager from a
 * Driver#### option, it traces the rest of Boot Device Selection up to ReadyToBoot, then writes the files. */
#include <efi.h>
#include <efilib.h>
#include "base/version.h"
#include "efi/console.h"
#include "efi/progress.h"

static EFI_GUID ready_to_boot_guid = {0x7ce88fb3, 0x4bd7, 0x4679, {0x87, 0xa8, 0xa8, 0xd8, 0xde, 0xe5, 0x0d, 0x2b}};

static void EFIAPI ready_to_boot(EFI_EVENT ev, void *ctx)
{
    (void)ctx;
    uefi_call_wrapper(BS->CloseEvent, 1, ev);
    struct fwpt_sink u = fwpt_uart_sink();
    fwpt_puts(&u, "fwptdrv: ReadyToBoot\n");
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
    InitializeLib(image, systab);
    struct fwpt_sink u = fwpt_uart_sink();
    fwpt_puts(&u, "fwptdrv " FWPT_VERSION ": loaded\n");
    EFI_EVENT ev;
    EFI_STATUS st = uefi_call_wrapper(BS->CreateEventEx, 6, EVT_NOTIFY_SIGNAL, TPL_CALLBACK, ready_to_boot, NULL,
                                      &ready_to_boot_guid, &ev);
    if (EFI_ERROR(st))
        fwpt_puts(&u, "fwptdrv: CreateEventEx failed\n");
    return EFI_SUCCESS;
}
