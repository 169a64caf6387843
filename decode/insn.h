/* fwpt — freestanding x86 instruction length and class decoder (what the flow decoder needs:
 * how long an instruction is and whether/how it changes control flow). */
#ifndef FWPT_DECODE_INSN_H
#define FWPT_DECODE_INSN_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"

enum fwpt_exec_mode {
    FWPT_MODE_UNKNOWN = 0,
    FWPT_MODE_16 = 16,
    FWPT_MODE_32 = 32,
    FWPT_MODE_64 = 64,
};

/* Control-flow classes (SDM "COFI" types plus what RET compression and PTWRITE need). */
enum fwpt_insn_class {
    FWPT_IC_OTHER = 0,     /* no change of flow */
    FWPT_IC_JCC,           /* conditional: Jcc, JrCXZ, LOOP/LOOPE/LOOPNE -> one TNT bit */
    FWPT_IC_JMP_REL,       /* near jmp rel8/rel16/rel32 (direct, no packet) */
    FWPT_IC_CALL_REL,      /* near call rel16/rel32 (direct, pushes return; zero_len_call if rel==0) */
    FWPT_IC_JMP_IND,       /* near jmp r/m -> TIP */
    FWPT_IC_CALL_IND,      /* near call r/m -> TIP */
    FWPT_IC_RET,           /* near ret, ret imm16 -> TNT (compressed) or TIP */
    FWPT_IC_FAR_JMP,       /* jmp far ptr / m16:xx -> TIP (+ maybe MODE) */
    FWPT_IC_FAR_CALL,      /* call far -> TIP */
    FWPT_IC_FAR_RET,       /* retf, retf imm16 -> TIP */
    FWPT_IC_IRET,          /* iret/iretd/iretq -> TIP */
    FWPT_IC_INT,           /* int n, int1, int3, into -> FUP+TIP */
    FWPT_IC_SYSCALL,
    FWPT_IC_SYSRET,
    FWPT_IC_SYSENTER,
    FWPT_IC_SYSEXIT,
    FWPT_IC_VMENTRY,       /* vmlaunch, vmresume */
    FWPT_IC_PTWRITE,       /* ptwrite r/m32/64 */
    FWPT_IC_MOV_CR3,       /* mov cr3, r: a PIP binds to it; with CR3 filtering it may enable or disable */
    FWPT_IC_COUNT
};

struct fwpt_insn {
    uint8_t size;          /* 1..15 */
    uint8_t iclass;        /* enum fwpt_insn_class */
    uint8_t zero_len_call; /* CALL_REL with displacement 0 ("call next"): not pushed for RET compression */
    uint8_t op_size;       /* effective operand size in bytes (2, 4, 8): the width a rel target is
                              truncated to outside 64-bit mode */
    int32_t rel;           /* displacement of JCC/JMP_REL/CALL_REL (target = ip + size + rel, truncated
                              to the operand size in 16/32-bit code) */
};

/* Decode one instruction from bytes[0..avail). FWPT_E_BAD_INSN for invalid/undefined encodings
 * (where the processor would raise #UD on the length alone), FWPT_E_TRUNCATED when avail is too
 * short to hold the whole instruction. */
enum fwpt_status fwpt_insn_decode(const uint8_t *bytes, size_t avail, enum fwpt_exec_mode mode,
                                  struct fwpt_insn *out);

/* Branch target of a relative branch decoded at ip, masked to the operand size in 16/32-bit modes. */
uint64_t fwpt_insn_rel_target(const struct fwpt_insn *insn, uint64_t ip, enum fwpt_exec_mode mode);

const char *fwpt_insn_class_name(enum fwpt_insn_class c);

#endif
