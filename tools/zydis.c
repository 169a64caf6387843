/* fwpt host tool — Zydis disassembly (see zydis.h). */
#include <string.h>
#include "tools/zydis.h"

void fwpt_zydis_init(struct fwpt_zydis *z, fwpt_flow_read_fn read, void *read_ctx)
{
    ZydisDecoderInit(&z->dec64, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ZydisDecoderInit(&z->dec32, ZYDIS_MACHINE_MODE_LONG_COMPAT_32, ZYDIS_STACK_WIDTH_32);
    ZydisDecoderInit(&z->dec16, ZYDIS_MACHINE_MODE_LONG_COMPAT_16, ZYDIS_STACK_WIDTH_16);
    ZydisFormatterInit(&z->fmt, ZYDIS_FORMATTER_STYLE_INTEL);
    z->read = read;
    z->read_ctx = read_ctx;
}

size_t fwpt_zydis_disasm(void *ctx, uint64_t ip, uint8_t mode, char *out, size_t cap)
{
    struct fwpt_zydis *z = ctx;
    const uint8_t *bytes;
    size_t n = z->read(z->read_ctx, ip, &bytes);
    if (!n)
        return 0;
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    const ZydisDecoder *dec = mode == 16 ? &z->dec16 : mode == 32 ? &z->dec32 : &z->dec64;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, bytes, n, &insn, ops)))
        return 0;
    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&z->fmt, &insn, ops, insn.operand_count_visible, out, cap, ip,
                                                      NULL)))
        return 0;
    return strlen(out);
}
