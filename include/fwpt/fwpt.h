/* fwpt — the public API of the Intel PT decoder, one include for all of it (docs/api.md):
 *   fwpt/status.h   status codes, their names and messages (values are stable, new ones only appended)
 *   fwpt/version.h  FWPT_VERSION, FWPT_VERSION_MAJOR/MINOR, fwpt_version()
 *   fwpt/insn.h     execution modes and instruction classes
 *   fwpt/packet.h   the packet decoder: trace bytes -> packets
 *   fwpt/flow.h     the flow decoder: packets + code bytes -> instructions and events
 *   fwpt/summary.h  instructions per function and the call tree, from a flow
 *   fwpt/coverage.h an AFL-style edge bitmap from trace after trace, its caches kept warm
 * Link: pkg-config --cflags --libs fwpt (libfwpt-decode.a: freestanding, needs nothing from libc). */
#ifndef FWPT_FWPT_H
#define FWPT_FWPT_H

#include "fwpt/export.h"
#include "fwpt/status.h"
#include "fwpt/version.h"
#include "fwpt/insn.h"
#include "fwpt/packet.h"
#include "fwpt/flow.h"
#include "fwpt/summary.h"
#include "fwpt/coverage.h"

#endif
