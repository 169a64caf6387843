/* fwpt — "soft-selftest": the software backend end to end (plan, ToPA, MSR sequence, single-stepped
 * call, readback, flow decode, verify) over built-in cases; saves \fwpt-soft\CASE\{trace.pt, gt.bin,
 * pages.bin, meta.txt} for the host-side libipt check. only: one case name, or NULL/"" for all.
 * EFI_SUCCESS when every case verified, EFI_ABORTED otherwise. */
#ifndef FWPT_EFI_SOFT_SELFTEST_H
#define FWPT_EFI_SOFT_SELFTEST_H

#include <efi.h>
#include "base/text.h"

EFI_STATUS fwpt_soft_selftest(EFI_HANDLE image, const char *only, const struct fwpt_sink *o);

#endif
