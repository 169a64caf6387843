/* fwpt — `boot-trace status`: the driver load options (DriverOrder and each Driver####, UEFI spec "Globally
 * Defined Variables") as the firmware holds them, and which one is fwpt's. Reads variables only. */
#ifndef FWPT_EFI_BOOT_TRACE_H
#define FWPT_EFI_BOOT_TRACE_H

#include <efi.h>
#include "base/text.h"

/* Prints the options; EFI_SUCCESS when every one read is well formed, EFI_COMPROMISED_DATA when one is malformed
 * (each named with its field and offset), a GetVariable / GetNextVariableName failure as it came. */
EFI_STATUS fwpt_boot_trace_status(const struct fwpt_sink *o);

#endif
