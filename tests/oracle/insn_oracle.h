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

#endif
