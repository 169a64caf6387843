#include <efi.h>
#include <efilib.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    InitializeLib(image, st);
    Print(L"fwpt\n");
    return EFI_SUCCESS;
}
