/* fwpt — Zydis as the oracle for decode/insn: decoder setup in Intel mode and the mapping of
 * Zydis' mnemonic/branch type to fwpt's control-flow classes. Shared by the oracle test and the bench. */
#ifndef FWPT_TESTS_INSN_ORACLE_H
#define FWPT_TESTS_INSN_ORACLE_H

#include <Zydis/Zydis.h>
#include "decode/insn.h"

/* Intel behaviour: AMD branch mode off (66 ignored on near branches in 64-bit), KNC off. */
static inline int zy_init(ZydisDecoder *d, enum fwpt_exec_mode mode, int minimal)
{
    ZydisMachineMode mm = mode == FWPT_MODE_64 ? ZYDIS_MACHINE_MODE_LONG_64
                        : mode == FWPT_MODE_32 ? ZYDIS_MACHINE_MODE_LEGACY_32
                                               : ZYDIS_MACHINE_MODE_LEGACY_16;
    ZydisStackWidth sw = mode == FWPT_MODE_64 ? ZYDIS_STACK_WIDTH_64
                       : mode == FWPT_MODE_32 ? ZYDIS_STACK_WIDTH_32
                                              : ZYDIS_STACK_WIDTH_16;
    if (ZYAN_FAILED(ZydisDecoderInit(d, mm, sw)))
        return -1;
    if (ZYAN_FAILED(ZydisDecoderEnableMode(d, ZYDIS_DECODER_MODE_AMD_BRANCHES, ZYAN_FALSE)) ||
        ZYAN_FAILED(ZydisDecoderEnableMode(d, ZYDIS_DECODER_MODE_KNC, ZYAN_FALSE)) ||
        ZYAN_FAILED(ZydisDecoderEnableMode(d, ZYDIS_DECODER_MODE_MINIMAL, minimal ? ZYAN_TRUE : ZYAN_FALSE)))
        return -1;
    return 0;
}

/* Zydis 4.0 decodes Knights Corner (Xeon Phi) encodings (MVEX, KNC mask branches like JKZD)
 * even with ZYDIS_DECODER_MODE_KNC off; those #UD on every processor with Intel PT. */
static inline int zy_is_knc(const ZydisDecodedInstruction *z)
{
    return z->encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX || z->meta.isa_ext == ZYDIS_ISA_EXT_KNC ||
           z->meta.isa_ext == ZYDIS_ISA_EXT_KNCE || z->meta.isa_ext == ZYDIS_ISA_EXT_KNCV;
}

static inline enum fwpt_insn_class zy_class(const ZydisDecodedInstruction *z)
{
    int rel = z->raw.imm[0].is_relative;
    int far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
    switch (z->mnemonic) {
    case ZYDIS_MNEMONIC_JMP:
        return far ? FWPT_IC_FAR_JMP : rel ? FWPT_IC_JMP_REL : FWPT_IC_JMP_IND;
    case ZYDIS_MNEMONIC_CALL:
        return far ? FWPT_IC_FAR_CALL : rel ? FWPT_IC_CALL_REL : FWPT_IC_CALL_IND;
    case ZYDIS_MNEMONIC_RET:
        return far ? FWPT_IC_FAR_RET : FWPT_IC_RET;
    case ZYDIS_MNEMONIC_IRET:
    case ZYDIS_MNEMONIC_IRETD:
    case ZYDIS_MNEMONIC_IRETQ:
    case ZYDIS_MNEMONIC_UIRET:
        return FWPT_IC_IRET;
    case ZYDIS_MNEMONIC_INT:
    case ZYDIS_MNEMONIC_INT1:
    case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_INTO:
        return FWPT_IC_INT;
    case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL:
    case ZYDIS_MNEMONIC_JLE: case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE:
    case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_JNO:
    case ZYDIS_MNEMONIC_JNP: case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ:
    case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS:
    case ZYDIS_MNEMONIC_JZ: case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ:
    case ZYDIS_MNEMONIC_JRCXZ: case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE:
    case ZYDIS_MNEMONIC_LOOPNE:
        return FWPT_IC_JCC;
    case ZYDIS_MNEMONIC_SYSCALL:
        return FWPT_IC_SYSCALL;
    case ZYDIS_MNEMONIC_SYSRET:
        return FWPT_IC_SYSRET;
    case ZYDIS_MNEMONIC_SYSENTER:
        return FWPT_IC_SYSENTER;
    case ZYDIS_MNEMONIC_SYSEXIT:
        return FWPT_IC_SYSEXIT;
    case ZYDIS_MNEMONIC_VMLAUNCH:
    case ZYDIS_MNEMONIC_VMRESUME:
        return FWPT_IC_VMENTRY;
    case ZYDIS_MNEMONIC_PTWRITE:
        return FWPT_IC_PTWRITE;
    case ZYDIS_MNEMONIC_MOV:
        return z->operand_count_visible && z->raw.modrm.reg == 3 && z->opcode == 0x22 &&
                       z->opcode_map == ZYDIS_OPCODE_MAP_0F && !z->raw.rex.R
                   ? FWPT_IC_MOV_CR3
                   : FWPT_IC_OTHER;
    default:
        return FWPT_IC_OTHER;
    }
}

/* ---- Encodings Zydis 4.0 does not know (it refuses them). The oracle test checks exactly these
 * another way, never skips them silently:
 *  - FRED ERETU (F3 0F 01 CA) and ERETS (F2 0F 01 CA) in 64-bit mode (FRED specification): class
 *    IRET (a return from an event, its target in a TIP), length = prefixes + 3 (#UD with LOCK).
 *  - APX REX2 (D5, payload M0 R4 X4 B4 W R3 X3 B3, opcode; Intel APX Architecture Specification)
 *    in 64-bit mode: the same instruction with a REX of the payload's W R3 X3 B3 (and 0F for
 *    map 1) in its place is one Zydis knows: same class, length one less in map 0 (R4 X4 B4 change
 *    no length; R4 makes MOV CR3 a move to CR19). JMPABS (map 0 A1, W=0) is imm64, class JMP_IND
 *    (Intel PT reports it with a TIP); rows REX2 does not extend are #UD. */
enum zy_unknown_kind { ZY_KNOWN = 0, ZY_FRED_ERET, ZY_REX2 };

struct zy_unknown_insn {
    enum zy_unknown_kind kind;
    size_t at;        /* offset of the first byte after the legacy/REX prefixes */
    unsigned rep;     /* last of F2/F3, 0 if none */
    int legacy_jmpabs_ud; /* a 66/67/F0/F2/F3 prefix (#UD with JMPABS) */
    int rex_before;   /* a REX right before it (#UD before REX2) */
    int lock;         /* an F0 prefix (#UD on ERETU/ERETS: SDM Vol. 2 "LOCK") */
};

static inline enum zy_unknown_kind zy_unknown(const uint8_t *b, size_t n, enum fwpt_exec_mode mode,
                                              struct zy_unknown_insn *u)
{
    size_t j = 0;
    u->kind = ZY_KNOWN;
    u->rep = 0;
    u->legacy_jmpabs_ud = 0;
    u->rex_before = 0;
    u->lock = 0;
    if (mode != FWPT_MODE_64)
        return ZY_KNOWN;
    for (; j < n; j++) {
        uint8_t c = b[j];
        if (c == 0x66 || c == 0x67 || c == 0xf0 || c == 0xf2 || c == 0xf3) {
            u->legacy_jmpabs_ud = 1;
            if (c == 0xf2 || c == 0xf3)
                u->rep = c;
            u->lock |= c == 0xf0;
            u->rex_before = 0;
        } else if (c == 0x26 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x64 || c == 0x65) {
            u->rex_before = 0;
        } else if ((c & 0xf0) == 0x40) {
            u->rex_before = 1;
        } else {
            break;
        }
    }
    u->at = j;
    if (j + 3 <= n && b[j] == 0x0f && b[j + 1] == 0x01 && b[j + 2] == 0xca && u->rep)
        u->kind = ZY_FRED_ERET;
    else if (j + 3 <= n && b[j] == 0xd5)
        u->kind = ZY_REX2;
    return u->kind;
}

/* Opcodes REX2 does not extend (#UD): map 0 40-4F 70-7F A0-A3 E0-EF (A1 with W=0 is JMPABS) and
 * the prefix/escape bytes, map 1 30-3F 80-8F and 0F; restated from the APX specification. */
static inline int zy_rex2_ud(int map1, uint8_t op)
{
    if (map1)
        return op == 0x0f || (op >= 0x30 && op <= 0x3f) || (op >= 0x80 && op <= 0x8f);
    return op == 0x0f || (op >= 0x40 && op <= 0x4f) || (op >= 0x70 && op <= 0x7f) ||
           (op >= 0xa0 && op <= 0xa3) || (op >= 0xe0 && op <= 0xef) || op == 0x26 || op == 0x2e ||
           op == 0x36 || op == 0x3e || (op >= 0x64 && op <= 0x67) || op == 0x62 || op == 0xc4 ||
           op == 0xc5 || op == 0xd5 || op == 0xf0 || op == 0xf2 || op == 0xf3;
}

#endif
