/* An EFI application that raises #UD at once: the firmware prints "!!!! X64 Exception Type" and
 * hangs; run-qemu.sh must notice, stop QEMU and exit 125. */
#include <efi.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    (void)image;
    (void)st;
    __asm__ volatile("ud2");
    return EFI_SUCCESS;
}
