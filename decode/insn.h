/* fwpt — freestanding x86 instruction length and class decoder (what the flow decoder needs:
 * how long an instruction is and whether/how it changes control flow). */
#ifndef FWPT_DECODE_INSN_H
#define FWPT_DECODE_INSN_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "fwpt/insn.h" /* enum fwpt_exec_mode, enum fwpt_insn_class, fwpt_insn_class_name */

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


#endif
