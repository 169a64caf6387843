/* fwpt host tool — Zydis disassembly for the instruction listings (a fwpt_disasm_fn): Intel syntax, the
 * decoder chosen by the instruction's mode (16, 32, 64), the code bytes through the flow decoder's read
 * callback. */
#ifndef FWPT_TOOLS_ZYDIS_H
#define FWPT_TOOLS_ZYDIS_H

#include <stddef.h>
#include <stdint.h>
#include <Zydis/Zydis.h>
#include "decode/flow.h"

struct fwpt_zydis {
    ZydisDecoder dec64, dec32, dec16;
    ZydisFormatter fmt;
    fwpt_flow_read_fn read;
    void *read_ctx;
};

void fwpt_zydis_init(struct fwpt_zydis *z, fwpt_flow_read_fn read, void *read_ctx);
/* fwpt_disasm_fn with ctx = struct fwpt_zydis: the NUL-terminated text in out, its length; 0 when the bytes
 * are not there or do not decode. */
size_t fwpt_zydis_disasm(void *ctx, uint64_t ip, uint8_t mode, char *out, size_t cap);

#endif
