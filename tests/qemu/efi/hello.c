/* A tiny EFI application for `trace load-image` tests: it does nothing but return 0x1234, so the
 * exit status StartImage hands back proves it ran (and the trace stays short). */
#include <efi.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    (void)image;
    (void)st;
    return (EFI_STATUS)0x1234;
}
