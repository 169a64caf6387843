/* fwpt — the app's time report (efi/timing.c). */
#ifndef FWPT_EFI_TIMING_H
#define FWPT_EFI_TIMING_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/flow.h"
#include "decode/image.h"

/* f: a flow decoder set up over the trace (errata, filter ranges), not yet read. Decodes it with time (tcfg) and
 * prints the duration in TSC ticks and microseconds (crystal_hz: CPUID.15H:ECX, 0 unknown; else the nominal
 * ratio), the note under the software backend, then the top modules and functions by TSC ticks. */
/* Its pool allocations are counted in *pool (the pool memory decoding takes). */
void fwpt_efi_time_report(struct fwpt_flow *f, const struct fwpt_time_config *tcfg, uint64_t crystal_hz,
                          struct fwpt_modules *mods, bool soft, unsigned top, const struct fwpt_sink *out,
                          uint64_t *pool);

#endif
