/* A tiny EFI boot service driver for the boot-trace test (tests/qemu/test_boot_trace.sh): its entry sums a table in
 * a named function and returns EFI_UNSUPPORTED, so DxeCore unloads it at once (UEFI spec, "StartImage": a driver
 * whose entry point returns an error is unloaded). It is gone by ReadyToBoot; its code is in the boot trace only
 * because the driver copied it as it started. */
#include <efi.h>

/* read at run time, so the compiler cannot fold the loop into a constant */
static volatile UINT64 gonedrv_rounds = 64;

/* noipa: a real call with its own entry, so the profile has a function of this image */
__attribute__((noipa)) static UINT64 gonedrv_checksum(UINT64 n)
{
    UINT64 acc = 0x676f6e65; /* "gone" */
    for (UINT64 i = 0; i < n; i++)
        acc = (acc ^ i) * 0x9e3779b97f4a7c15ull;
    return acc;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    (void)image;
    (void)st;
    volatile UINT64 sum = gonedrv_checksum(gonedrv_rounds);
    (void)sum;
    return EFI_UNSUPPORTED;
}
