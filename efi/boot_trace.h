/* fwpt — `boot-trace status`, `install` and `remove`: the driver load options (DriverOrder and each Driver####, UEFI
 * spec "Globally Defined Variables", "Load Option Processing") as the firmware holds them, and fwpt's own: the
 * option that makes the boot manager load fwptdrv.efi at the next boot. */
#ifndef FWPT_EFI_BOOT_TRACE_H
#define FWPT_EFI_BOOT_TRACE_H

#include <efi.h>
#include "base/text.h"
#include "efi/volume.h"

/* Prints the options; EFI_SUCCESS when every one read is well formed, EFI_COMPROMISED_DATA when one is malformed
 * (each named with its field and offset), a GetVariable / GetNextVariableName failure as it came. */
EFI_STATUS fwpt_boot_trace_status(const struct fwpt_sink *o);
/* `boot-trace install`: checks that fwptdrv.efi beside the app's file (image's LoadedImage->FilePath, on vol) is a
 * PE32+ x64 EFI boot service driver, writes Driver#### (the first free number; fwpt's earlier options replaced) with
 * driver_opts as UTF-16 OptionalData, puts it first in DriverOrder, and reads both back. Says what it wrote. */
EFI_STATUS fwpt_boot_trace_install(EFI_HANDLE image, struct fwpt_volume *vol, const char *driver_opts,
                                   const struct fwpt_sink *o);
/* Deletes every fwpt option (Description FWPT_LOADOPT_DESCRIPTION) and takes it out of DriverOrder, the others kept
 * in order; a DriverOrder left empty is deleted. One line on o per option removed, *removed (may be NULL) their
 * count; nothing installed: EFI_SUCCESS and 0. Pool memory only: the driver calls it for its one-shot. */
EFI_STATUS fwpt_boot_trace_remove(const struct fwpt_sink *o, unsigned *removed);
/* `boot-trace remove`: fwpt_boot_trace_remove, then DriverOrder as it is left, or that nothing was installed. */
EFI_STATUS fwpt_boot_trace_remove_cmd(const struct fwpt_sink *o);

#endif
