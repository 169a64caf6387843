/* fwpt — freestanding x86 instruction length and class decoder (SDM Vol. 2 ch. 2 "Instruction
 * Format", appendix A "Opcode Map"). One table lookup per opcode byte; no calls per byte. */
#include "decode/insn.h"

/* Table entry: bits 0-3 immediate kind, 4 ModRM, 5 invalid in 64-bit, 6 undefined,
 * 7 lockable with a memory operand, 8-12 class, 16-19 special handling after ModRM. */
enum {
    IMM_NONE = 0,
    IMM_B,     /* ib */
    IMM_W,     /* iw (RET imm16) */
    IMM_Z,     /* iz: 16/32 by operand size */
    IMM_V,     /* iv: 16/32/64 (MOV r, imm with REX.W) */
    IMM_WB,    /* iw ib (ENTER) */
    IMM_D,     /* id (XOP map 0Ah) */
    IMM_PTR,   /* ptr16:16 / ptr16:32 (far JMP/CALL) */
    IMM_MOFFS, /* from here on not in imm_len[]: moffs (address size) */
    IMM_JB,    /* rel8 */
    IMM_JZ,    /* rel16/rel32 */
};
/* Immediate bytes by kind and operand size 2/4/8 (index osz >> 2). */
static const uint8_t imm_len[IMM_MOFFS][3] = {
    [IMM_NONE] = {0, 0, 0}, [IMM_B] = {1, 1, 1}, [IMM_W] = {2, 2, 2}, [IMM_Z] = {2, 4, 4},
    [IMM_V] = {2, 4, 8},    [IMM_WB] = {3, 3, 3}, [IMM_D] = {4, 4, 4}, [IMM_PTR] = {4, 6, 6},
};
#define F_IMM_MASK 0x0fu
#define F_MODRM 0x10u
#define F_I64 0x20u
#define F_UND 0x40u
#define F_LOCK 0x80u
#define F_ESC 0x2000u /* 0F, C4, C5, 62, 8F, D5: escape decided on the next byte (or the mode) */
#define F_CLASS_SHIFT 8
#define F_SPECIAL_SHIFT 16

enum {
    S_NONE = 0,
    S_GRP3,   /* F6/F7: /0 /1 TEST has an immediate */
    S_GRP5,   /* FF: class by ModRM.reg */
    S_GRP4,   /* FE: /0 /1 only */
    S_GRP11,  /* C6/C7: /0 MOV, F8 XABORT/XBEGIN */
    S_GRP1,   /* 80-83: lockable unless /7 (CMP) */
    S_0F01,   /* VMLAUNCH/VMRESUME, UIRET */
    S_0FAE,   /* F3 0F AE /4 PTWRITE */
    S_0F78,   /* VMREAD/VMWRITE, 66: EXTRQ, F2: INSERTQ */
    S_CRDR,   /* MOV CR/DR: ModRM.mod is ignored (always a register form) */
    S_POPCNT, /* 0F B8 needs F3 */
    S_MEM,    /* memory operand required */
    S_0FBA,   /* BT/BTS/BTR/BTC ib: /4-/7, lockable unless /4 */
    S_0FC7,   /* group 9: lockable /1 */
    S_GRP1A,  /* 8F: /0 POP only */
    S_SREG,   /* 8C/8E: segment register 0-5, no MOV to CS */
    S_X87,    /* D8-DF: undefined register and memory forms */
};

/* x87 (SDM Vol. 2 A.5 "Escape Opcode Instructions"): register forms (ModRM C0-FF, bit per
 * ModRM - C0h) and memory forms (bit per ModRM.reg) that are undefined, for D8..DF. Aliases the
 * SDM leaves reserved but processors execute (FSTP1/FXCH4/FFREEP...) stay accepted. */
static const uint64_t x87_reg_undefined[8] = {
    /* D9: D1-D7 E2-E3 E6-E7 EF; DA: E0-E8 EA-FF; DB: E5-E7 F8-FF; DD: F0-FF; DE: D8 DA-DF;
     * DF: E1-E7 F8-FF */
    0x0000000000000000ull, 0x000080cc00fe0000ull, 0xfffffdff00000000ull, 0xff0000e000000000ull,
    0x0000000000000000ull, 0xffff000000000000ull, 0x00000000fd000000ull, 0xff0000fe00000000ull,
};
static const uint8_t x87_mem_undefined[8] = {
    0, 1u << 1, 0, (1u << 4) | (1u << 6), 0, 1u << 5, 0, 0, /* D9 /1, DB /4 /6, DD /5 */
};

#define M F_MODRM
#define Mb (F_MODRM | IMM_B)
#define Mz (F_MODRM | IMM_Z)
#define L (F_MODRM | F_LOCK)
#define Ib IMM_B
#define Iz IMM_Z
#define Iv IMM_V
#define X64 F_I64
#define U F_UND
#define C(c) ((uint32_t)(c) << F_CLASS_SHIFT)
#define S(s) ((uint32_t)(s) << F_SPECIAL_SHIFT)
#define JCC8 (IMM_JB | C(FWPT_IC_JCC))
#define JCCZ (IMM_JZ | C(FWPT_IC_JCC))
#define FP (F_MODRM | S(S_X87))
#define P 0u /* prefix or escape: handled before the table */
#define N 0u /* no operand bytes */

/* One-byte opcode map (SDM Vol. 2 Table A-2). */
static const uint32_t map1[256] = {
    /* 00 */ L, L, M, M, Ib, Iz, X64, X64, L, L, M, M, Ib, Iz, X64, F_ESC,
    /* 10 */ L, L, M, M, Ib, Iz, X64, X64, L, L, M, M, Ib, Iz, X64, X64,
    /* 20 */ L, L, M, M, Ib, Iz, P, X64, L, L, M, M, Ib, Iz, P, X64,
    /* 30 */ L, L, M, M, Ib, Iz, P, X64, M, M, M, M, Ib, Iz, P, X64,
    /* 40 */ N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,
    /* 50 */ N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,
    /* 60 */ X64, X64, M | S(S_MEM) | F_ESC, M, P, P, P, P, Iz, Mz, Ib, Mb, N, N, N, N,
    /* 70 */ JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8,
             JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8,
    /* 80 */ Mb | F_LOCK | S(S_GRP1), Mz | F_LOCK | S(S_GRP1), Mb | F_LOCK | X64 | S(S_GRP1),
             Mb | F_LOCK | S(S_GRP1), M, M, L, L, M, M, M, M, M | S(S_SREG), M | S(S_MEM), M | S(S_SREG), M | S(S_GRP1A) | F_ESC,
    /* 90 */ N, N, N, N, N, N, N, N, N, N, IMM_PTR | X64 | C(FWPT_IC_FAR_CALL), N, N, N, N, N,
    /* A0 */ IMM_MOFFS, IMM_MOFFS, IMM_MOFFS, IMM_MOFFS, N, N, N, N, Ib, Iz, N, N, N, N, N, N,
    /* B0 */ Ib, Ib, Ib, Ib, Ib, Ib, Ib, Ib, Iv, Iv, Iv, Iv, Iv, Iv, Iv, Iv,
    /* C0 */ Mb, Mb, IMM_W | C(FWPT_IC_RET), C(FWPT_IC_RET), M | S(S_MEM) | F_ESC, M | S(S_MEM) | F_ESC,
             Mb | S(S_GRP11), Mz | S(S_GRP11), IMM_WB, N, IMM_W | C(FWPT_IC_FAR_RET),
             C(FWPT_IC_FAR_RET), C(FWPT_IC_INT), Ib | C(FWPT_IC_INT), X64 | C(FWPT_IC_INT),
             C(FWPT_IC_IRET),
    /* D0 */ M, M, M, M, Ib | X64, Ib | X64 | F_ESC, X64, N, FP, FP, FP, FP, FP, FP, FP, FP,
    /* E0 */ JCC8, JCC8, JCC8, JCC8, Ib, Ib, Ib, Ib, IMM_JZ | C(FWPT_IC_CALL_REL),
             IMM_JZ | C(FWPT_IC_JMP_REL), IMM_PTR | X64 | C(FWPT_IC_FAR_JMP),
             IMM_JB | C(FWPT_IC_JMP_REL), N, N, N, N,
    /* F0 */ P, C(FWPT_IC_INT), P, P, N, N, Mb | F_LOCK | S(S_GRP3), Mz | F_LOCK | S(S_GRP3), N, N,
             N, N, N, N, L | S(S_GRP4), L | S(S_GRP5),
};

/* Two-byte opcode map 0F (SDM Vol. 2 Table A-3). */
static const uint32_t map0f[256] = {
    /* 00 */ M, M | S(S_0F01), M, M, U, C(FWPT_IC_SYSCALL), N, C(FWPT_IC_SYSRET), N, N, U, N, U, M,
             N, P,
    /* 10 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 20 */ M | S(S_CRDR), M | S(S_CRDR), M | S(S_CRDR), M | S(S_CRDR), U, U, U, U,
             M, M, M, M, M, M, M, M,
    /* 30 */ N, N, N, N, C(FWPT_IC_SYSENTER), C(FWPT_IC_SYSEXIT), U, N, P, U, P, U, U, U, U, U,
    /* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 70 */ Mb, Mb, Mb, Mb, M, M, M, N, M | S(S_0F78), M | S(S_0F78), U, U, M, M, M, M,
    /* 80 */ JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ,
             JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ,
    /* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* A0 */ N, N, N, M, Mb, M, M, M, N, N, N, L, Mb, M, M | S(S_0FAE), M,
    /* B0 */ L, L, M | S(S_MEM), L, M | S(S_MEM), M | S(S_MEM), M, M, M | S(S_POPCNT), M,
             Mb | F_LOCK | S(S_0FBA), L, M, M, M, M,
    /* C0 */ L, L, Mb, M | S(S_MEM), Mb, Mb, Mb, L | S(S_0FC7), N, N, N, N, N, N, N, N,
    /* D0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* E0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* F0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
};

/* Three-byte map 0F 38 (Table A-4): ModRM, no immediate; rows of undefined legacy encodings. */
#define UM (F_MODRM | F_UND)
static const uint32_t map0f38[256] = {
    /* 00 */ M, M, M, M, M, M, M, M, M, M, M, M, UM, UM, UM, UM,
    /* 10 */ M, UM, UM, UM, M, M, UM, M, UM, UM, UM, UM, M, M, M, UM,
    /* 20 */ M, M, M, M, M, M, UM, UM, M, M, M, M, UM, UM, UM, UM,
    /* 30 */ M, M, M, M, M, M, UM, M, M, M, M, M, M, M, M, M,
    /* 40 */ M, M, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* 50 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* 60 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* 70 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* 80 */ M, M, M, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* 90 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* A0 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* B0 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* C0 */ UM, UM, UM, UM, UM, UM, UM, UM, M, M, M, M, M, M, UM, M,
    /* D0 */ UM, UM, UM, UM, UM, UM, UM, UM, M, M, M, M, M, M, M, M,
    /* E0 */ UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM, UM,
    /* F0 */ M, M, UM, UM, UM, M, M, UM, M, M, M, M, UM, UM, UM, UM,
};

/* Three-byte map 0F 3A (Table A-5): ModRM and ib. */
#define B (F_MODRM | IMM_B)
#define UB (F_MODRM | IMM_B | F_UND)
static const uint32_t map0f3a[256] = {
    /* 00 */ UB, UB, UB, UB, UB, UB, UB, UB, B, B, B, B, B, B, B, B,
    /* 10 */ UB, UB, UB, UB, B, B, B, B, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 20 */ B, B, B, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 30 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 40 */ B, B, B, UB, B, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 50 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 60 */ B, B, B, B, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 70 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 80 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* 90 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* A0 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* B0 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* C0 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, B, UB, B, B,
    /* D0 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, B,
    /* E0 */ UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
    /* F0 */ B, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB, UB,
};

/* Legacy prefixes (SDM Vol. 2 2.1.1): bit per group member we need to remember. */
enum { PF_SEG = 1, PF_66 = 2, PF_67 = 4, PF_F2 = 8, PF_F3 = 16, PF_LOCK = 32 };
static const uint8_t prefix_bits[256] = {
    [0x26] = PF_SEG, [0x2e] = PF_SEG, [0x36] = PF_SEG, [0x3e] = PF_SEG, [0x64] = PF_SEG,
    [0x65] = PF_SEG, [0x66] = PF_66, [0x67] = PF_67, [0xf0] = PF_LOCK, [0xf2] = PF_F2,
    [0xf3] = PF_F3,
};

/* Displacement bytes after ModRM (low nibble) and SIB present (0x10), 32/64-bit addressing
 * (SDM Vol. 2 Table 2-2); SIB.base=101b with mod=00 adds disp32 (Table 2-3). */
#define R32_0 0, 0, 0, 0, 0x10, 4, 0, 0
#define R32_1 1, 1, 1, 1, 0x11, 1, 1, 1
#define R32_2 4, 4, 4, 4, 0x14, 4, 4, 4
#define R_3 0, 0, 0, 0, 0, 0, 0, 0
#define X8(r) r, r, r, r, r, r, r, r
static const uint8_t modrm32[256] = {X8(R32_0), X8(R32_1), X8(R32_2), X8(R_3)};
/* 16-bit addressing (Table 2-1): mod=00 rm=110 is disp16. */
#define R16_0 0, 0, 0, 0, 0, 0, 2, 0
#define R16_1 1, 1, 1, 1, 1, 1, 1, 1
#define R16_2 2, 2, 2, 2, 2, 2, 2, 2
static const uint8_t modrm16[256] = {X8(R16_0), X8(R16_1), X8(R16_2), X8(R_3)};

/* VEX/EVEX map 0F opcodes with an ib (PSHUFx/shift groups 70-73, CMPPS C2, PINSRW C4,
 * PEXTRW C5, SHUFPS C6): bit per opcode. */
static const uint32_t vex0f_imm[8] = {
    [0x70 >> 5] = 0x000f0000u, /* 70-73 */
    [0xc0 >> 5] = 0x00000074u, /* C2, C4, C5, C6 */
};

/* Defined VEX/EVEX/XOP opcodes per map (SDM Vol. 2 appendix A, AMD APM Vol. 4 for XOP);
 * anything else is #UD. */
static const uint32_t vex_valid[11][8] = {
    /* vex_map1: 10-17 28-2f 41-42 44-47 4a-4b 50-77 7c-7f 90-93 98-99 ae c2 c4-c6 d0-fe */
    {0x00ff0000u, 0x0000ff00u, 0xffff0cf6u, 0xf0ffffffu, 0x030f0000u, 0x00004000u, 0xffff0074u, 0x7fffffffu},
    /* vex_map2: 00-0f 13 16-1a 1c-1e 20-25 28-2f 30-3f 40-41 45-47 49 4b 50-53 58-5a 5c 5e 78-79 8c 8e 90-93 96-9f a6-af b6-bf cf db-df f2-f3 f5-f7 */
    {0x77c8ffffu, 0xffffff3fu, 0x570f0ae3u, 0x03000000u, 0xffcf5000u, 0xffc0ffc0u, 0xf8008000u, 0x00ec0000u},
    /* vex_map3: 00-02 04-06 08-0f 14-19 1d 20-22 30-33 38-39 40-42 44 46 48-4c 5c-5f 60-63 68-6f 78-7f ce-cf df f0 */
    {0x23f0ff77u, 0x030f0007u, 0xf0001f57u, 0xff00ff0fu, 0x00000000u, 0x00000000u, 0x8000c000u, 0x00010000u},
    /* evex_map1: 10-17 28-2f 51 54-76 78-7f c2 c4-c6 d1-d6 d8-ef f1-f6 f8-fe */
    {0x00ff0000u, 0x0000ff00u, 0xfff20000u, 0xff7fffffu, 0x00000000u, 0x00000000u, 0xff7e0074u, 0x7f7effffu},
    /* evex_map2: 00 04 0b-0d 10-16 18-1f 20-2f 30-3f 40-47 4c-4f 50-55 58-5b 62-66 68 70-73 75-7f 83 88-8f 90-93 96-9f a0-a3 a6-af b4-bf c4 c6-c8 ca-cd cf dc-df */
    {0xff7f3811u, 0xffffffffu, 0x0f3ff0ffu, 0xffef017cu, 0xffcfff08u, 0xfff0ffcfu, 0xf000bdd0u, 0x00000000u},
    /* evex_map3: 00-0b 0f 14-1b 1d-1f 20-23 25-27 38-3b 3e-3f 42-44 50-51 54-57 66-67 70-73 c2 ce-cf */
    {0xeff08fffu, 0xcf0000efu, 0x00f3001cu, 0x000f00c0u, 0x00000000u, 0x00000000u, 0x0000c004u, 0x00000000u},
    /* evex_map5: 10-11 1d 2a-2f 51 58-5f 6e 78-7e */
    {0x20030000u, 0x0000fc00u, 0xff020000u, 0x7f004000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    /* evex_map6: 13 2c-2d 42-43 4c-4f 56-57 96-9f a6-af b6-bf d6-d7 */
    {0x00080000u, 0x00003000u, 0x00c0f00cu, 0x00000000u, 0xffc00000u, 0xffc0ffc0u, 0x00c00000u, 0x00000000u},
    /* xop_map8: 85-87 8e-8f 95-97 9e-9f a2-a3 a6 b6 c0-c3 cc-cf ec-ef */
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0xc0e0c0e0u, 0x0040004cu, 0x0000f00fu, 0x0000f000u},
    /* xop_map9: 01-02 12 80-83 90-9b c1-c3 c6-c7 cb d1-d3 d6-d7 db e1-e3 */
    {0x00040006u, 0x00000000u, 0x00000000u, 0x00000000u, 0x0fff000fu, 0x00000000u, 0x08ce08ceu, 0x0000000eu},
    /* xop_mapa: 10 12 */
    {0x00050000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
};

/* VEX (SDM Vol. 2 2.3.5 "VEX.pp"): rows 0-3 the VEX 0F opcodes defined with no prefix, 66, F3,
 * F2; rows 4-5 the VEX 0F38/0F3A opcodes also defined without 66 (the rest are 66-only). */
static const uint32_t vex_pp_valid[6][8] = {
    /* vex0f pp=none: 10-17 28-29 2b 2e-2f 41-42 44-47 4a-4b 50-5f 77 90-93 98-99 ae c2 c6 */
    {0x00ff0000u, 0x0000cb00u, 0xffff0cf6u, 0x00800000u, 0x030f0000u, 0x00004000u, 0x00000044u, 0x00000000u},
    /* vex0f pp=66: 10-17 28-29 2b 2e-2f 41-42 44-47 4a-4b 50-51 54-76 7c-7f 90-93 98-99 c2 c4-c6 d0-ef f1-fe */
    {0x00ff0000u, 0x0000cb00u, 0xfff30cf6u, 0xf07fffffu, 0x030f0000u, 0x00000000u, 0xffff0074u, 0x7ffeffffu},
    /* vex0f pp=F3: 10-12 16 2a 2c-2d 51-53 58-5f 6f-70 7e-7f c2 e6 */
    {0x00470000u, 0x00003400u, 0xff0e0000u, 0xc0018000u, 0x00000000u, 0x00000000u, 0x00000004u, 0x00000040u},
    /* vex0f pp=F2: 10-12 2a 2c-2d 51 58-5a 5c-5f 70 7c-7d 92-93 c2 d0 e6 f0 */
    {0x00070000u, 0x00003400u, 0xf7020000u, 0x30010000u, 0x000c0000u, 0x00000000u, 0x00010004u, 0x00010040u},
    /* vex0f38 not only 66: 49 4b 50-53 5c 5e 72 b0-b1 f2-f3 f5-f7 */
    {0x00000000u, 0x00000000u, 0x500f0a00u, 0x00040000u, 0x00000000u, 0x00030000u, 0x00000000u, 0x00ec0000u},
    /* vex0f3a not only 66: f0 */
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00010000u},
};

/* Opcodes a REX2 prefix does not extend: #UD after REX2 (Intel APX Architecture Specification,
 * "REX2 prefix": legacy map 0 rows 4, 7, A0-A3 and E, legacy map 1 rows 3 and 8; A1 with REX2.W=0
 * is JMPABS). The prefixes, escapes and other REX2 bytes of map 0 are #UD there too, as the byte
 * after the REX2 payload is always the opcode. Bit per opcode. */
static const uint32_t rex2_ud_map0[8] = {
    [0x00 >> 5] = 0x00008000u, /* 0F: the map is REX2.M0 */
    [0x20 >> 5] = 0x40404040u, /* 26 2E 36 3E */
    [0x40 >> 5] = 0x0000ffffu, /* 40-4F REX */
    [0x60 >> 5] = 0xffff00f4u, /* 62 EVEX, 64-67, 70-7F */
    [0xa0 >> 5] = 0x0000000fu, /* A0-A3 */
    [0xc0 >> 5] = 0x00200030u, /* C4 C5 VEX, D5 REX2 */
    [0xe0 >> 5] = 0x000dffffu, /* E0-EF, F0 F2 F3 */
};
static const uint32_t rex2_ud_map1[8] = {
    [0x00 >> 5] = 0x00008000u, /* 0F (3DNow! escape) */
    [0x20 >> 5] = 0xffff0000u, /* 30-3F */
    [0x80 >> 5] = 0x0000ffffu, /* 80-8F */
};

/* 3DNow! suffix opcodes (AMD APM Vol. 3, 0F 0F ModRM imm8). */
static const uint32_t amd3dnow_valid[8] = {
    [0x00 >> 5] = (1u << 0x0c) | (1u << 0x0d) | (1u << 0x1c) | (1u << 0x1d),
    [0x80 >> 5] = (1u << 0x0a) | (1u << 0x0e) | (1u << 0x10) | (1u << 0x14) | (1u << 0x16) |
                  (1u << 0x17) | (1u << 0x1a) | (1u << 0x1e),
    [0xa0 >> 5] = (1u << 0x00) | (1u << 0x04) | (1u << 0x06) | (1u << 0x07) | (1u << 0x0a) |
                  (1u << 0x0e) | (1u << 0x10) | (1u << 0x14) | (1u << 0x16) | (1u << 0x17) |
                  (1u << 0x1b) | (1u << 0x1f),
};

#define BIT(tab, x) (((tab)[(x) >> 5] >> ((x) & 31)) & 1u)

/* Need n bytes: more than avail is truncation, unless n can never fit the 15-byte limit.
 * With 'roomy' (avail >= ROOMY) no read can pass avail: the checks compile away. */
#define NEED(n)                                                                          \
    do {                                                                                 \
        if (!roomy && (size_t)(n) > d->avail)                                            \
            return (n) > 15 ? FWPT_E_BAD_INSN : FWPT_E_TRUNCATED;                        \
    } while (0)
/* Largest read offset: opcode at 14 at most (prefix bound), + 4 EVEX/escape + ModRM + SIB + disp32
 * + rel32 stays below 40. */
#define ROOMY 40

/* One instruction as its steps read it (SDM Vol. 2 2.1 "Instruction Format": prefixes, opcode, ModRM, SIB,
 * displacement, immediate). The steps are inlined into decode(): this state lives in registers. */
struct dec {
    const uint8_t *bytes;
    size_t avail;
    unsigned i;             /* bytes read */
    unsigned pfx, rep, rex; /* legacy prefixes (PF_*), the last F2/F3, the REX (or REX2 as REX) */
    unsigned is64, mode16;  /* the execution mode */
    unsigned osz, asz16;    /* operand size (2/4/8 bytes) for iz/iv and rel; 16-bit addresses for ModRM, moffs */
    unsigned map;           /* 1: one-byte map, 2: 0F, 3: 0F38, 4: 0F3A, 5: 3DNow!, 6: VEX/EVEX/XOP */
    uint32_t f;             /* the opcode's table entry */
    uint8_t op, op2;        /* the opcode byte (after prefixes), the byte after an escape */
    unsigned modrm, iclass;
    unsigned op_size;
    int32_t rel;
};
#define STEP(x)                                                                          \
    do {                                                                                 \
        enum fwpt_status step_ = (x);                                                    \
        if (step_ != FWPT_OK)                                                            \
            return step_;                                                                \
    } while (0)
#define INLINE static inline __attribute__((always_inline))

/* Prefixes: any order, repeats allowed; REX counts only right before the opcode
 * (SDM Vol. 2 2.2.1: a REX followed by a legacy prefix is ignored). Leaves op, the byte after them. */
INLINE enum fwpt_status prefixes(struct dec *d, const int roomy)
{
    for (;;) {
        NEED(d->i + 1);
        d->op = d->bytes[d->i];
        unsigned pb = prefix_bits[d->op];
        if (pb) {
            if (d->i >= 14) /* a 15th prefix leaves no room for the opcode */
                return FWPT_E_BAD_INSN;
            d->pfx |= pb;
            if (pb & (PF_F2 | PF_F3))
                d->rep = pb;
            d->rex = 0;
        } else if (d->is64 && (d->op & 0xf0) == 0x40) {
            if (d->i >= 14)
                return FWPT_E_BAD_INSN;
            d->rex = d->op;
        } else {
            break;
        }
        d->i++;
    }
    d->i++;
    /* Operand size for iz/iv and rel; address size for ModRM and moffs. */
    if (d->is64) {
        d->osz = (d->rex & 8) ? 8 : (d->pfx & PF_66) ? 2 : 4;
        d->asz16 = 0;
    } else {
        d->osz = ((d->pfx & PF_66) != 0) ^ d->mode16 ? 2 : 4;
        d->asz16 = ((d->pfx & PF_67) != 0) ^ d->mode16;
    }
    return FWPT_OK;
}

/* 0F: the two-byte map, or 0F38 / 0F3A, or 0F 0F (3DNow!, whose opcode is the ib). */
INLINE enum fwpt_status map_0f(struct dec *d, const int roomy)
{
    NEED(d->i + 1);
    d->op2 = d->bytes[d->i++];
    if (d->op2 == 0x38) {
        NEED(d->i + 1);
        d->op2 = d->bytes[d->i++];
        d->f = map0f38[d->op2];
        d->map = 3;
    } else if (d->op2 == 0x3a) {
        NEED(d->i + 1);
        d->op2 = d->bytes[d->i++];
        d->f = map0f3a[d->op2];
        d->map = 4;
    } else if (d->op2 == 0x0f) {
        d->f = F_MODRM | IMM_B; /* the ib is the 3DNow! opcode */
        d->map = 5;
    } else {
        d->f = map0f[d->op2];
        d->map = 2;
    }
    return FWPT_OK;
}

/* REX2 (64-bit mode only; else AAD ib): payload M0 R4 X4 B4 W R3 X3 B3, then the opcode in map 0 (M0=0) or
 * map 1 (0F, M0=1). It must be the last prefix: a REX before it is #UD (Intel APX Architecture Specification,
 * "REX2 prefix"). */
INLINE enum fwpt_status map_rex2(struct dec *d, const int roomy)
{
    NEED(d->i + 2);
    if (d->rex)
        return FWPT_E_BAD_INSN;
    unsigned p = d->bytes[d->i];
    d->op2 = d->bytes[d->i + 1];
    d->i += 2;
    /* W, R3 as in REX; R4 as 0x10 (MOV CR3 needs both R bits clear) */
    d->rex = 0x40u | (p & 0x0fu) | ((p & 0x40u) ? 0x10u : 0u);
    if (p & 8)
        d->osz = 8;
    if (p & 0x80) {
        if (BIT(rex2_ud_map1, d->op2))
            return FWPT_E_BAD_INSN;
        d->f = map0f[d->op2];
        d->map = 2;
    } else if (d->op2 == 0xa1 && !(p & 8)) {
        /* JMPABS imm64: 66/67/F0/F2/F3 are #UD. A direct jump, but Intel PT reports it with a TIP like an
         * indirect one (APX specification, JMPABS: its target may be patched at run time, as in a PLT), so
         * its class is JMP_IND: the flow follows the TIP, never the bytes. */
        if (d->pfx & (PF_66 | PF_67 | PF_LOCK | PF_F2 | PF_F3))
            return FWPT_E_BAD_INSN;
        d->op = d->op2;
        d->f = IMM_V | C(FWPT_IC_JMP_IND);
        d->osz = 8;
    } else {
        if (BIT(rex2_ud_map0, d->op2))
            return FWPT_E_BAD_INSN;
        d->op = d->op2;
        d->f = map1[d->op];
        if (d->op == 0x8f) /* no XOP after REX2: POP r/m */
            d->f = M | S(S_GRP1A);
    }
    return FWPT_OK;
}

/* C4/C5 (VEX), 62 (EVEX): outside 64-bit mode only when the next byte's mod is 11b (else LES/LDS/BOUND);
 * 8F is XOP when map_select >= 8 (else POP r/m). */
INLINE enum fwpt_status map_vex(struct dec *d, const int roomy)
{
    NEED(d->i + 1);
    const uint8_t *bytes = d->bytes;
    uint8_t op = d->op, p0 = bytes[d->i];
    unsigned esc;
    if (op == 0x8f)
        esc = (p0 & 0x1f) >= 8;
    else
        esc = d->is64 || p0 >= 0xc0;
    if (!esc)
        return FWPT_OK;
    /* SDM Vol. 2 2.3.2: VEX after 66/F2/F3/LOCK or REX is #UD. */
    if ((d->pfx & (PF_66 | PF_F2 | PF_F3 | PF_LOCK)) || d->rex)
        return FWPT_E_BAD_INSN;
    /* vid: row of vex_valid (VEX 0F/0F38/0F3A = 0..2, EVEX 0F/0F38/0F3A/map5/map6 = 3..7,
     * XOP map 8/9/A = 8..10). */
    unsigned vid;
    if (op == 0xc5) {
        NEED(d->i + 2);
        d->op2 = bytes[d->i + 1];
        d->i += 2;
        vid = 0;
    } else if (op == 0xc4) {
        NEED(d->i + 3);
        vid = (p0 & 0x1f) - 1u;
        d->op2 = bytes[d->i + 2];
        d->i += 3;
        if (vid > 2)
            return FWPT_E_BAD_INSN;
    } else if (op == 0x8f) {
        NEED(d->i + 3);
        vid = (p0 & 0x1f) - 8u + 8u;
        d->op2 = bytes[d->i + 2];
        d->i += 3;
        if (vid > 10)
            return FWPT_E_BAD_INSN;
    } else {
        /* EVEX P0 bit 3 is reserved 0; P0[2:0] selects map 1-3, 5, 6. */
        NEED(d->i + 4);
        static const uint8_t evex_vid[16] = {
            11, 3, 4, 5, 11, 6, 7, 11, 11, 11, 11, 11, 11, 11, 11, 11,
        };
        vid = evex_vid[p0 & 0x0f];
        /* SDM Vol. 2 2.7.1: outside 64-bit mode EVEX.V' (P2 bit 3) must be 1. */
        if (!d->is64 && !(bytes[d->i + 2] & 8))
            return FWPT_E_BAD_INSN;
        d->op2 = bytes[d->i + 3];
        d->i += 4;
        if (vid > 10)
            return FWPT_E_BAD_INSN;
    }
    uint8_t op2 = d->op2;
    if (!BIT(vex_valid[vid], op2))
        return FWPT_E_BAD_INSN;
    if (vid <= 2) {
        unsigned pp = (op == 0xc5 ? p0 : bytes[d->i - 2]) & 3;
        if (vid == 0 ? !BIT(vex_pp_valid[pp], op2) : (pp != 1 && !BIT(vex_pp_valid[3 + vid], op2)))
            return FWPT_E_BAD_INSN;
    }
    /* VEX/EVEX 0F: ib only on 70-73, C2, C4-C6; 0F3A and XOP map 8 always ib; XOP map A id;
     * VZEROUPPER/VZEROALL (VEX 0F 77) have no ModRM. */
    static const uint8_t vex_imm[11] = {
        0, IMM_NONE, IMM_B, 0, IMM_NONE, IMM_B, IMM_NONE, IMM_NONE, IMM_B, IMM_NONE, IMM_D,
    };
    if (vid == 0 || vid == 3)
        d->f = F_MODRM | (BIT(vex0f_imm, op2) ? IMM_B : IMM_NONE);
    else
        d->f = F_MODRM | vex_imm[vid];
    if (vid == 0 && op2 == 0x77)
        d->f = 0;
    d->map = 6;
    return FWPT_OK;
}

/* The opcode map: the one-byte map, else the escape (0F, REX2, VEX/EVEX/XOP) it starts (SDM Vol. 2
 * appendix A "Opcode Map"); then the table's invalid and not-in-64-bit opcodes. */
INLINE enum fwpt_status opcode(struct dec *d, const int roomy)
{
    d->map = 1;
    d->f = map1[d->op];
    if (!(d->f & F_ESC)) {
        /* common case */
    } else if (d->op == 0x0f) {
        STEP(map_0f(d, roomy));
    } else if (d->op == 0xd5) {
        if (d->is64)
            STEP(map_rex2(d, roomy));
    } else {
        STEP(map_vex(d, roomy));
    }
    if (d->f & (F_UND | F_I64)) {
        if ((d->f & F_UND) || d->is64)
            return FWPT_E_BAD_INSN;
    }
    d->iclass = (d->f >> F_CLASS_SHIFT) & 0x1f;
    return FWPT_OK;
}

/* ModRM, then SIB and displacement by the address size (SDM Vol. 2 Tables 2-1, 2-2, 2-3). */
INLINE enum fwpt_status modrm_sib_disp(struct dec *d, const int roomy)
{
    NEED(d->i + 1);
    unsigned modrm = d->modrm = d->bytes[d->i++];
    if (modrm < 0xc0 && (d->f >> F_SPECIAL_SHIFT) != S_CRDR) {
        if (d->asz16) {
            d->i += modrm16[modrm];
        } else {
            unsigned disp = modrm32[modrm];
            if (disp & 0x10) {
                NEED(d->i + 1);
                if (modrm < 0x40 && (d->bytes[d->i] & 7) == 5)
                    disp += 4;
                d->i++;
            }
            d->i += disp & 0x0f;
        }
    }
    return FWPT_OK;
}

/* What ModRM.reg (or the whole ModRM) decides for an opcode group: undefined forms, the class, the
 * immediate and LOCK (SDM Vol. 2 Table A-6 "Opcode Extensions"). */
INLINE enum fwpt_status modrm_group(struct dec *d)
{
    unsigned s = d->f >> F_SPECIAL_SHIFT, modrm = d->modrm, reg = (modrm >> 3) & 7, rep = d->rep;
    switch (s) {
    case S_GRP3:
        if (reg > 1)
            d->f &= ~F_IMM_MASK;
        if (reg != 2 && reg != 3)
            d->f &= ~F_LOCK;
        break;
    case S_GRP5:
        if (reg == 7 || ((reg == 3 || reg == 5) && modrm >= 0xc0))
            return FWPT_E_BAD_INSN;
        d->iclass = reg == 2 ? FWPT_IC_CALL_IND : reg == 3 ? FWPT_IC_FAR_CALL
                  : reg == 4 ? FWPT_IC_JMP_IND : reg == 5 ? FWPT_IC_FAR_JMP : FWPT_IC_OTHER;
        if (reg > 1)
            d->f &= ~F_LOCK;
        break;
    case S_SREG:
        if (reg > 5 || (reg == 1 && d->op == 0x8e))
            return FWPT_E_BAD_INSN;
        break;
    case S_X87:
        if (modrm >= 0xc0 ? (x87_reg_undefined[d->op & 7] >> (modrm - 0xc0)) & 1
                          : (x87_mem_undefined[d->op & 7] >> reg) & 1)
            return FWPT_E_BAD_INSN;
        break;
    case S_GRP1A:
        if (reg != 0)
            return FWPT_E_BAD_INSN;
        break;
    case S_GRP4:
        if (reg > 1)
            return FWPT_E_BAD_INSN;
        break;
    case S_GRP11:
        if (reg != 0 && modrm != 0xf8)
            return FWPT_E_BAD_INSN;
        break;
    case S_GRP1:
        if (reg == 7)
            d->f &= ~F_LOCK;
        break;
    case S_0F01:
        if ((modrm & 0xfe) == 0xc2 && !(d->pfx & (PF_66 | PF_F2 | PF_F3)))
            d->iclass = FWPT_IC_VMENTRY;
        else if (modrm == 0xec && rep == PF_F3)
            d->iclass = FWPT_IC_IRET; /* F3 0F 01 EC UIRET: returns from a user interrupt (SDM Vol. 2
                                       * "UIRET"), a far transfer that takes a TIP like IRET */
        /* F3 0F 01 CA ERETU, F2 0F 01 CA ERETS (FRED specification; 64-bit mode only): return from an
         * event like IRET, to a target Intel PT gives in a TIP; Event Trace's CFE.IRET binds to them as
         * to IRET. */
        else if (modrm == 0xca && rep && d->is64)
            d->iclass = FWPT_IC_IRET;
        break;
    case S_0FAE:
        if (reg == 4 && rep == PF_F3)
            d->iclass = FWPT_IC_PTWRITE;
        break;
    case S_CRDR:
        /* 0F 22 /3 MOV CR3, r (REX.R would select CR11; REX2.R4, kept as 0x10, CR19) */
        if (d->op2 == 0x22 && reg == 3 && !(d->rex & 0x14))
            d->iclass = FWPT_IC_MOV_CR3;
        break;
    case S_0F78:
        /* Mandatory prefix: the last F2/F3, else 66 (AMD APM: EXTRQ/INSERTQ). */
        if (rep == PF_F3)
            return FWPT_E_BAD_INSN;
        if (d->op2 == 0x78 && (rep == PF_F2 || (d->pfx & PF_66))) {
            if (rep == PF_F2 ? modrm < 0xc0 : (modrm < 0xc0 || reg != 0))
                return FWPT_E_BAD_INSN;
            d->i += 2; /* ib, ib */
        }
        break;
    case S_POPCNT:
        if (rep != PF_F3)
            return FWPT_E_BAD_INSN;
        break;
    case S_MEM:
        if (modrm >= 0xc0)
            return FWPT_E_BAD_INSN;
        break;
    case S_0FBA:
        if (reg < 4)
            return FWPT_E_BAD_INSN;
        if (reg == 4)
            d->f &= ~F_LOCK;
        break;
    case S_0FC7:
        if (reg != 1)
            d->f &= ~F_LOCK;
        break;
    default:
        break;
    }
    return FWPT_OK;
}

/* The immediate, moffs or relative displacement (rel: a near branch's, and its operand size). */
INLINE enum fwpt_status immediate(struct dec *d, const int roomy)
{
    const uint8_t *bytes = d->bytes;
    d->op_size = d->osz;
    unsigned kind = d->f & F_IMM_MASK;
    if (kind < IMM_MOFFS)
        d->i += imm_len[kind][d->osz >> 2];
    else switch (kind) {
    case IMM_MOFFS:
        d->i += d->is64 ? ((d->pfx & PF_67) ? 4 : 8) : d->asz16 ? 2 : 4;
        break;
    case IMM_JB:
        NEED(d->i + 1);
        d->rel = (int8_t)bytes[d->i];
        d->i += 1;
        if (d->is64)
            d->op_size = 8;
        break;
    case IMM_JZ:
        /* Intel: 66 is ignored on near branches in 64-bit mode (operand size 64, rel32). */
        if (d->is64)
            d->op_size = 8;
        if (d->op_size == 2) {
            NEED(d->i + 2);
            d->rel = (int16_t)(bytes[d->i] | (bytes[d->i + 1] << 8));
            d->i += 2;
        } else {
            NEED(d->i + 4);
            d->rel = (int32_t)((uint32_t)bytes[d->i] | ((uint32_t)bytes[d->i + 1] << 8) |
                               ((uint32_t)bytes[d->i + 2] << 16) | ((uint32_t)bytes[d->i + 3] << 24));
            d->i += 4;
        }
        break;
    default:
        break;
    }
    return FWPT_OK;
}

INLINE enum fwpt_status decode(const uint8_t *bytes, size_t avail, enum fwpt_exec_mode mode, struct fwpt_insn *out,
                               const int roomy)
{
    if (mode != FWPT_MODE_16 && mode != FWPT_MODE_32 && mode != FWPT_MODE_64)
        return FWPT_E_INVAL;
    struct dec dd = {.bytes = bytes, .avail = avail, .is64 = mode == FWPT_MODE_64, .mode16 = mode == FWPT_MODE_16};
    struct dec *d = &dd;
    STEP(prefixes(d, roomy));
    STEP(opcode(d, roomy));
    if (d->f & F_MODRM) {
        STEP(modrm_sib_disp(d, roomy));
        if (d->f >> F_SPECIAL_SHIFT)
            STEP(modrm_group(d));
    }
    /* SDM Vol. 2 LOCK: #UD unless the instruction is lockable with a memory destination. */
    if ((d->pfx & PF_LOCK) && (!(d->f & F_LOCK) || d->modrm >= 0xc0 || !(d->f & F_MODRM)))
        return FWPT_E_BAD_INSN;
    STEP(immediate(d, roomy));
    NEED(d->i);
    if (d->i > 15) /* SDM Vol. 2 2.1: the 15-byte limit (#GP) */
        return FWPT_E_BAD_INSN;
    if (d->map == 5 && !BIT(amd3dnow_valid, bytes[d->i - 1]))
        return FWPT_E_BAD_INSN;
    out->size = (uint8_t)d->i;
    out->iclass = (uint8_t)d->iclass;
    out->zero_len_call = d->iclass == FWPT_IC_CALL_REL && d->rel == 0;
    out->op_size = (uint8_t)d->op_size;
    out->rel = d->rel;
    return FWPT_OK;
}

enum fwpt_status fwpt_insn_decode(const uint8_t *bytes, size_t avail, enum fwpt_exec_mode mode,
                                  struct fwpt_insn *out)
{
    /* two copies of decode() on purpose: with 40 bytes readable the roomy one drops every bounds check */
    if (avail >= ROOMY)
        return decode(bytes, avail, mode, out, 1);
    return decode(bytes, avail, mode, out, 0);
}

uint64_t fwpt_insn_rel_target(const struct fwpt_insn *insn, uint64_t ip, enum fwpt_exec_mode mode)
{
    uint64_t t = ip + insn->size + (uint64_t)(int64_t)insn->rel;
    if (mode == FWPT_MODE_64)
        return t;
    /* SDM Jcc/JMP/CALL: the target is truncated to the operand size outside 64-bit mode. */
    return insn->op_size == 2 ? (t & 0xffffu) : (t & 0xffffffffu);
}

const char *fwpt_insn_class_name(enum fwpt_insn_class c)
{
    static const char *const names[FWPT_IC_COUNT] = {
        [FWPT_IC_OTHER] = "other",       [FWPT_IC_JCC] = "jcc",
        [FWPT_IC_JMP_REL] = "jmp_rel",   [FWPT_IC_CALL_REL] = "call_rel",
        [FWPT_IC_JMP_IND] = "jmp_ind",   [FWPT_IC_CALL_IND] = "call_ind",
        [FWPT_IC_RET] = "ret",           [FWPT_IC_FAR_JMP] = "far_jmp",
        [FWPT_IC_FAR_CALL] = "far_call", [FWPT_IC_FAR_RET] = "far_ret",
        [FWPT_IC_IRET] = "iret",         [FWPT_IC_INT] = "int",
        [FWPT_IC_SYSCALL] = "syscall",   [FWPT_IC_SYSRET] = "sysret",
        [FWPT_IC_SYSENTER] = "sysenter", [FWPT_IC_SYSEXIT] = "sysexit",
        [FWPT_IC_VMENTRY] = "vmentry",   [FWPT_IC_PTWRITE] = "ptwrite",
        [FWPT_IC_MOV_CR3] = "mov_cr3",
    };
    return (unsigned)c < FWPT_IC_COUNT ? names[c] : "?";
}
