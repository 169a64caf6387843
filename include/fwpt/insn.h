/* fwpt — what the flow's instructions carry: the execution mode (code size, SDM "MODE.Exec Packet") and the
 * control-flow class of an instruction (struct fwpt_flow_event's mode and iclass). */
#ifndef FWPT_INSN_H
#define FWPT_INSN_H

#include "fwpt/export.h"

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

FWPT_BEGIN_DECLS

/* "other", "jcc", "call.rel", ...; "?" if out of range. */
FWPT_API const char *fwpt_insn_class_name(enum fwpt_insn_class c);

FWPT_END_DECLS

#endif
