/* fwpt — decode/insn hand vectors: every control-flow class and the tricky length cases
 * (SDM Vol. 2 ch. 2 and the opcode maps of appendix A). */
#include <stdint.h>
#include <string.h>

#include "decode/insn.h"
#include "tests/check.h"

#define OK FWPT_OK
#define BAD FWPT_E_BAD_INSN
#define TRUNC FWPT_E_TRUNCATED

struct vec {
    int mode;
    enum fwpt_status st;
    unsigned size;
    enum fwpt_insn_class iclass;
    int32_t rel;
    unsigned n;
    uint8_t b[16];
};

#define V(mode, st, size, cls, rel, ...)                                                       \
    { mode, st, size, cls, rel, sizeof((uint8_t[]){__VA_ARGS__}), {__VA_ARGS__} }

static const struct vec vecs[] = {
    /* conditional branches */
    V(64, OK, 2, FWPT_IC_JCC, -2, 0x74, 0xfe),                         /* jz $ */
    V(64, OK, 6, FWPT_IC_JCC, 0x100, 0x0f, 0x85, 0x00, 0x01, 0x00, 0x00), /* jnz rel32 */
    V(64, OK, 7, FWPT_IC_JCC, 0x10, 0x66, 0x0f, 0x84, 0x10, 0, 0, 0),  /* 66 ignored (Intel) */
    V(32, OK, 6, FWPT_IC_JCC, 0x10, 0x0f, 0x84, 0x10, 0x00, 0x00, 0x00), /* jz rel32 */
    V(32, OK, 5, FWPT_IC_JCC, -1, 0x66, 0x0f, 0x8c, 0xff, 0xff),        /* jl rel16 */
    V(16, OK, 4, FWPT_IC_JCC, 0x1234, 0x0f, 0x8f, 0x34, 0x12),          /* jg rel16 */
    V(16, OK, 7, FWPT_IC_JCC, 0x12345678, 0x66, 0x0f, 0x8f, 0x78, 0x56, 0x34, 0x12),
    V(64, OK, 2, FWPT_IC_JCC, 5, 0xe3, 0x05),                           /* jrcxz */
    V(64, OK, 3, FWPT_IC_JCC, 5, 0x67, 0xe3, 0x05),                     /* jecxz */
    V(32, OK, 2, FWPT_IC_JCC, -128, 0xe2, 0x80),                        /* loop */
    V(32, OK, 2, FWPT_IC_JCC, 0, 0xe1, 0x00),                           /* loope */
    V(16, OK, 2, FWPT_IC_JCC, 127, 0xe0, 0x7f),                         /* loopne */
    V(64, OK, 3, FWPT_IC_JCC, 2, 0x3e, 0x75, 0x02),                     /* branch hint */
    V(64, OK, 3, FWPT_IC_JCC, 2, 0xf2, 0x75, 0x02),                     /* bnd jnz */
    /* near direct */
    V(64, OK, 5, FWPT_IC_JMP_REL, -5, 0xe9, 0xfb, 0xff, 0xff, 0xff),
    V(64, OK, 2, FWPT_IC_JMP_REL, 0, 0xeb, 0x00),
    V(64, OK, 6, FWPT_IC_JMP_REL, 1, 0x66, 0xe9, 1, 0, 0, 0),           /* 66 ignored in 64-bit */
    V(32, OK, 4, FWPT_IC_JMP_REL, 1, 0x66, 0xe9, 1, 0),                 /* jmp rel16 */
    V(16, OK, 3, FWPT_IC_JMP_REL, 0x200, 0xe9, 0x00, 0x02),
    V(64, OK, 5, FWPT_IC_CALL_REL, 0x1000, 0xe8, 0x00, 0x10, 0x00, 0x00),
    V(64, OK, 5, FWPT_IC_CALL_REL, 0, 0xe8, 0x00, 0x00, 0x00, 0x00),    /* call next: zero-length */
    V(16, OK, 3, FWPT_IC_CALL_REL, 0, 0xe8, 0x00, 0x00),
    V(16, OK, 6, FWPT_IC_CALL_REL, -6, 0x66, 0xe8, 0xfa, 0xff, 0xff, 0xff),
    /* near indirect */
    V(64, OK, 2, FWPT_IC_CALL_IND, 0, 0xff, 0xd0),                      /* call rax */
    V(64, OK, 3, FWPT_IC_CALL_IND, 0, 0x41, 0xff, 0xd3),                /* call r11 */
    V(64, OK, 6, FWPT_IC_CALL_IND, 0, 0xff, 0x15, 0x10, 0x20, 0x00, 0x00), /* call [rip+disp32] */
    V(64, OK, 7, FWPT_IC_JMP_IND, 0, 0xff, 0x24, 0xc5, 0, 0, 0, 0),     /* jmp [rax*8+disp32] */
    V(64, OK, 3, FWPT_IC_JMP_IND, 0, 0x3e, 0xff, 0xe0),                 /* notrack jmp rax */
    V(64, OK, 4, FWPT_IC_CALL_IND, 0, 0xf2, 0x3e, 0xff, 0xd1),          /* bnd notrack call rcx */
    V(32, OK, 3, FWPT_IC_JMP_IND, 0, 0xff, 0x60, 0x08),                 /* jmp [eax+8] */
    V(16, OK, 4, FWPT_IC_CALL_IND, 0, 0xff, 0x16, 0x34, 0x12),          /* call [0x1234] */
    V(64, OK, 4, FWPT_IC_JMP_IND, 0, 0xff, 0x64, 0x24, 0x08),           /* jmp [rsp+8]: SIB+disp8 */
    /* returns */
    V(64, OK, 1, FWPT_IC_RET, 0, 0xc3),
    V(64, OK, 2, FWPT_IC_RET, 0, 0xf3, 0xc3),                            /* rep ret */
    V(64, OK, 3, FWPT_IC_RET, 0, 0xc2, 0x08, 0x00),
    V(16, OK, 4, FWPT_IC_RET, 0, 0x66, 0xc2, 0x08, 0x00),                /* imm16 regardless of 66 */
    V(64, OK, 1, FWPT_IC_FAR_RET, 0, 0xcb),
    V(64, OK, 2, FWPT_IC_FAR_RET, 0, 0x48, 0xcb),
    V(32, OK, 3, FWPT_IC_FAR_RET, 0, 0xca, 0x04, 0x00),
    /* far */
    V(32, OK, 7, FWPT_IC_FAR_JMP, 0, 0xea, 0x78, 0x56, 0x34, 0x12, 0x08, 0x00),
    V(32, OK, 6, FWPT_IC_FAR_JMP, 0, 0x66, 0xea, 0x34, 0x12, 0x08, 0x00),
    V(16, OK, 5, FWPT_IC_FAR_CALL, 0, 0x9a, 0x34, 0x12, 0x00, 0xf0),
    V(16, OK, 8, FWPT_IC_FAR_CALL, 0, 0x66, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0xf0),
    V(64, BAD, 0, 0, 0, 0xea, 0x78, 0x56, 0x34, 0x12, 0x08, 0x00),
    V(64, BAD, 0, 0, 0, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x08, 0x00),
    V(64, OK, 2, FWPT_IC_FAR_JMP, 0, 0xff, 0x28),                       /* jmp far [rax] */
    V(64, OK, 3, FWPT_IC_FAR_JMP, 0, 0x48, 0xff, 0x2b),                 /* jmp far m16:64 */
    V(32, OK, 6, FWPT_IC_FAR_CALL, 0, 0xff, 0x1d, 0, 0, 0, 0),          /* call far [disp32] */
    V(64, BAD, 0, 0, 0, 0xff, 0xe8),                                     /* jmp far needs memory */
    V(64, BAD, 0, 0, 0, 0xff, 0xd8),                                     /* call far needs memory */
    V(64, BAD, 0, 0, 0, 0xff, 0xf8),                                     /* FF /7 */
    /* iret, interrupts */
    V(64, OK, 1, FWPT_IC_IRET, 0, 0xcf),
    V(64, OK, 2, FWPT_IC_IRET, 0, 0x48, 0xcf),                           /* iretq */
    V(32, OK, 2, FWPT_IC_IRET, 0, 0x66, 0xcf),                           /* iret (16) */
    V(64, OK, 1, FWPT_IC_INT, 0, 0xcc),
    V(64, OK, 2, FWPT_IC_INT, 0, 0xcd, 0x80),
    V(64, OK, 1, FWPT_IC_INT, 0, 0xf1),
    V(32, OK, 1, FWPT_IC_INT, 0, 0xce),
    V(64, BAD, 0, 0, 0, 0xce),                                           /* into: invalid in 64 */
    /* system */
    V(64, OK, 2, FWPT_IC_SYSCALL, 0, 0x0f, 0x05),
    V(64, OK, 3, FWPT_IC_SYSRET, 0, 0x48, 0x0f, 0x07),
    V(32, OK, 2, FWPT_IC_SYSENTER, 0, 0x0f, 0x34),
    V(64, OK, 3, FWPT_IC_SYSEXIT, 0, 0x48, 0x0f, 0x35),
    V(64, OK, 3, FWPT_IC_VMENTRY, 0, 0x0f, 0x01, 0xc2),                 /* vmlaunch */
    V(32, OK, 3, FWPT_IC_VMENTRY, 0, 0x0f, 0x01, 0xc3),                 /* vmresume */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x01, 0xc1),                   /* vmcall */
    V(64, OK, 4, FWPT_IC_PTWRITE, 0, 0xf3, 0x0f, 0xae, 0xe0),           /* ptwrite eax */
    V(64, OK, 5, FWPT_IC_PTWRITE, 0, 0xf3, 0x48, 0x0f, 0xae, 0xe0),     /* ptwrite rax */
    V(64, OK, 9, FWPT_IC_PTWRITE, 0, 0xf3, 0x0f, 0xae, 0xa4, 0x24, 0x10, 0, 0, 0), /* [rsp+disp32] */
    V(64, OK, 3, FWPT_IC_MOV_CR3, 0, 0x0f, 0x22, 0xd8),                /* mov cr3, rax */
    V(32, OK, 3, FWPT_IC_MOV_CR3, 0, 0x0f, 0x22, 0x18),                /* mov cr3, eax (mod ignored) */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x22, 0xc0),                  /* mov cr0, rax */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x20, 0xd8),                  /* mov rax, cr3: a read */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0x44, 0x0f, 0x22, 0xd8),            /* REX.R: cr11, not cr3 */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0xae, 0x20),                   /* xsave [rax]: no F3 */
    /* lengths: prefixes, REX, 15-byte limit */
    V(64, OK, 10, FWPT_IC_OTHER, 0, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8), /* mov rax, imm64 */
    V(64, OK, 5, FWPT_IC_OTHER, 0, 0x48, 0x66, 0xb8, 1, 2),              /* REX ignored: 66 -> imm16 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0x66, 0xb8, 1, 2),
    V(64, OK, 9, FWPT_IC_OTHER, 0, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8),        /* mov eax, moffs64 */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0x67, 0xa1, 1, 2, 3, 4),              /* moffs32 */
    V(32, OK, 5, FWPT_IC_OTHER, 0, 0xa0, 1, 2, 3, 4),
    V(32, OK, 4, FWPT_IC_OTHER, 0, 0x67, 0xa3, 1, 2),                    /* moffs16 */
    V(16, OK, 3, FWPT_IC_OTHER, 0, 0xa2, 1, 2),
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xc8, 0x10, 0x00, 0x01),              /* enter iw, ib */
    V(64, OK, 7, FWPT_IC_OTHER, 0, 0xf6, 0x05, 0, 0, 0, 0, 0x01),        /* test [rip], 1 */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0xf6, 0xc0, 0x01),                    /* test al, 1 */
    V(64, OK, 2, FWPT_IC_OTHER, 0, 0xf6, 0xd0),                          /* not al: no imm */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0xf7, 0xc0, 1, 2, 3, 4),              /* test eax, imm32 */
    V(64, OK, 5, FWPT_IC_OTHER, 0, 0x66, 0xf7, 0xc0, 1, 2),              /* test ax, imm16 */
    V(64, OK, 7, FWPT_IC_OTHER, 0, 0x48, 0xf7, 0xc0, 1, 2, 3, 4),        /* test rax, imm32 */
    V(64, OK, 2, FWPT_IC_OTHER, 0, 0xf7, 0xd8),                          /* neg eax */
    V(16, OK, 4, FWPT_IC_OTHER, 0, 0x8b, 0x87, 0x34, 0x12),              /* mov ax, [bx+disp16] */
    V(16, OK, 4, FWPT_IC_OTHER, 0, 0x8b, 0x06, 0x34, 0x12),              /* mov ax, [disp16] */
    V(16, OK, 8, FWPT_IC_OTHER, 0, 0x67, 0x8b, 0x04, 0x25, 1, 2, 3, 4),  /* 32-bit addressing */
    V(32, OK, 4, FWPT_IC_OTHER, 0, 0x67, 0x8b, 0x46, 0x10),              /* [bp+disp8] */
    V(64, OK, 7, FWPT_IC_OTHER, 0, 0x8b, 0x04, 0x25, 1, 2, 3, 4),        /* [disp32] via SIB */
    V(64, OK, 7, FWPT_IC_OTHER, 0, 0x8b, 0x04, 0x85, 1, 2, 3, 4),        /* [rax*4+disp32] */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0x8b, 0x44, 0x85, 0x10),              /* [rbp+rax*4+disp8] */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x20, 0x00),                    /* mov rax, cr0: mod ignored */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x22, 0x85),                    /* mod=10 still no disp */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0x0f, 0x0f, 0xc1, 0xb4),              /* 3DNow! pfmul */
    V(64, BAD, 0, 0, 0, 0x0f, 0x0f, 0xc1, 0x00),                         /* unknown 3DNow! suffix */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0x66, 0x0f, 0x78, 0xc0, 0x04, 0x08),  /* extrq xmm0, 4, 8 */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0xf2, 0x0f, 0x78, 0xc1, 0x04, 0x08),  /* insertq */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x78, 0xc1),                    /* vmread */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0x66, 0x0f, 0x79, 0xc1),              /* extrq xmm0, xmm1 */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08),  /* palignr */
    V(64, OK, 5, FWPT_IC_OTHER, 0, 0x66, 0x0f, 0x38, 0x00, 0xc1),        /* pshufb */
    V(64, OK, 15, FWPT_IC_OTHER, 0, 0x66, 0x66, 0x2e, 0x48, 0xc7, 0x84, 0x80, 1, 2, 3, 4, 5, 6, 7, 8),
    V(64, BAD, 0, 0, 0, 0x66, 0x66, 0x66, 0x2e, 0x48, 0xc7, 0x84, 0x80, 1, 2, 3, 4, 5, 6, 7, 8),
    V(64, BAD, 0, 0, 0, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
      0x66, 0x66, 0x66, 0x90),                                            /* 16 with prefixes */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0xc5, 0xf8, 0x77),                    /* vzeroupper */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xc5, 0xf9, 0x6f, 0xc1),              /* vmovdqa xmm0, xmm1 */
    V(64, OK, 5, FWPT_IC_OTHER, 0, 0xc5, 0xf1, 0x73, 0xd0, 0x04),        /* vpsrlq imm */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0xc4, 0xe3, 0x79, 0x0f, 0xc1, 0x04),  /* vpalignr: map 3 ib */
    V(32, OK, 6, FWPT_IC_OTHER, 0, 0xc4, 0xe2, 0x79, 0x18, 0x45, 0x08),  /* vbroadcastss [ebp+8] */
    V(32, OK, 3, FWPT_IC_OTHER, 0, 0xc4, 0x45, 0x08),                    /* les eax, [ebp+8] */
    V(32, OK, 2, FWPT_IC_OTHER, 0, 0xc5, 0x06),                          /* lds eax, [esi] */
    V(16, OK, 4, FWPT_IC_OTHER, 0, 0xc5, 0x06, 0x34, 0x12),              /* lds ax, [disp16] */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0x62, 0xf1, 0x7c, 0x48, 0x28, 0xc1),  /* vmovaps zmm0, zmm1 */
    V(64, OK, 8, FWPT_IC_OTHER, 0, 0x62, 0xf3, 0x7d, 0x48, 0x03, 0x40, 0x01, 0x02), /* valignd disp8 */
    V(32, OK, 3, FWPT_IC_OTHER, 0, 0x62, 0x45, 0x08),                    /* bound eax, [ebp+8] */
    V(64, OK, 5, FWPT_IC_OTHER, 0, 0x8f, 0xe9, 0x78, 0x81, 0xc1),        /* XOP vfrczps */
    V(64, OK, 2, FWPT_IC_OTHER, 0, 0x8f, 0xc0),                          /* pop rax */
    V(64, OK, 9, FWPT_IC_OTHER, 0, 0x8f, 0xea, 0x78, 0x10, 0xc1, 1, 2, 3, 4), /* bextr id */
    V(64, BAD, 0, 0, 0, 0x66, 0xc5, 0xf8, 0x77),                         /* VEX after 66 */
    V(64, BAD, 0, 0, 0, 0x40, 0xc5, 0xf8, 0x77),                         /* VEX after REX */
    /* opcode validity: EVEX.V' outside 64-bit mode, VEX.pp, x87 holes, segment registers */
    V(32, OK, 6, FWPT_IC_OTHER, 0, 0x62, 0xf1, 0x7c, 0x48, 0x58, 0xc1),  /* vaddps zmm0, zmm0, zmm1 */
    V(32, BAD, 0, 0, 0, 0x62, 0xf1, 0x7c, 0x40, 0x58, 0xc1),             /* V'=0: zmm16 */
    V(64, OK, 6, FWPT_IC_OTHER, 0, 0x62, 0xf1, 0x7c, 0x40, 0x58, 0xc1),  /* vaddps zmm0, zmm16, zmm1 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xc5, 0xf9, 0xf1, 0xc1),              /* vpsllw (66) */
    V(64, BAD, 0, 0, 0, 0xc5, 0xf8, 0xf1, 0xc1),                         /* no VEX form without 66 */
    V(64, BAD, 0, 0, 0, 0xc4, 0xe4, 0x79, 0x00, 0xc1),                   /* VEX map 4 */
    V(64, OK, 2, FWPT_IC_OTHER, 0, 0xd9, 0xd0),                          /* fnop */
    V(64, BAD, 0, 0, 0, 0xd9, 0xd1),
    V(64, BAD, 0, 0, 0, 0xdd, 0x28),                                     /* DD /5 memory */
    V(64, OK, 2, FWPT_IC_OTHER, 0, 0x8c, 0xd8),                          /* mov eax, ds */
    V(64, BAD, 0, 0, 0, 0x8e, 0xc8),                                     /* mov cs, eax */
    V(64, BAD, 0, 0, 0, 0x8c, 0xf0),                                     /* sreg 6 */
    /* invalid in 64-bit mode */
    V(64, BAD, 0, 0, 0, 0x06), V(64, BAD, 0, 0, 0, 0x07), V(64, BAD, 0, 0, 0, 0x0e),
    V(64, BAD, 0, 0, 0, 0x16), V(64, BAD, 0, 0, 0, 0x17), V(64, BAD, 0, 0, 0, 0x1e),
    V(64, BAD, 0, 0, 0, 0x1f), V(64, BAD, 0, 0, 0, 0x27), V(64, BAD, 0, 0, 0, 0x2f),
    V(64, BAD, 0, 0, 0, 0x37), V(64, BAD, 0, 0, 0, 0x3f), V(64, BAD, 0, 0, 0, 0x60),
    V(64, BAD, 0, 0, 0, 0x61), V(64, BAD, 0, 0, 0, 0x82, 0xc0, 0x01),
    V(64, BAD, 0, 0, 0, 0xd4, 0x0a), V(64, BAD, 0, 0, 0, 0xd6),
    V(32, OK, 1, FWPT_IC_OTHER, 0, 0x06), V(32, OK, 2, FWPT_IC_OTHER, 0, 0xd4, 0x0a),
    V(32, OK, 3, FWPT_IC_OTHER, 0, 0x82, 0xc0, 0x01),
    /* REX2 (APX): D5, payload M0 R4 X4 B4 W R3 X3 B3, opcode of map 0 or 1; AAD ib outside 64-bit */
    V(32, OK, 2, FWPT_IC_OTHER, 0, 0xd5, 0x0a),                          /* aad */
    V(32, OK, 2, FWPT_IC_OTHER, 0, 0xd5, 0x00, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8),
    V(64, TRUNC, 0, 0, 0, 0xd5, 0x0a),
    V(64, OK, 11, FWPT_IC_JMP_IND, 0, 0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0), /* jmpabs */
    V(64, OK, 12, FWPT_IC_JMP_IND, 0, 0x2e, 0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0),
    V(64, BAD, 0, 0, 0, 0xd5, 0x08, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0),  /* REX2.W=1 A1: #UD */
    V(64, BAD, 0, 0, 0, 0x66, 0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0),
    V(64, BAD, 0, 0, 0, 0xf3, 0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0, 0),
    V(64, TRUNC, 0, 0, 0, 0xd5, 0x00, 0xa1, 0x0d, 0x10, 0, 0, 0, 0, 0),
    V(64, OK, 4, FWPT_IC_CALL_IND, 0, 0xd5, 0x10, 0xff, 0xd0),           /* call r16 */
    V(64, OK, 4, FWPT_IC_JMP_IND, 0, 0xd5, 0x10, 0xff, 0x20),            /* jmp [r16] */
    V(64, OK, 9, FWPT_IC_JMP_IND, 0, 0xd5, 0x30, 0xff, 0xa4, 0xc0, 0, 1, 0, 0), /* SIB, disp32 */
    V(64, OK, 3, FWPT_IC_RET, 0, 0xd5, 0x00, 0xc3),
    V(64, OK, 11, FWPT_IC_OTHER, 0, 0xd5, 0x18, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8), /* mov r16, imm64 */
    V(64, OK, 7, FWPT_IC_OTHER, 0, 0xd5, 0x10, 0xb8, 1, 2, 3, 4),       /* mov r16d, imm32 */
    V(64, OK, 8, FWPT_IC_OTHER, 0, 0xd5, 0x10, 0xf7, 0xc0, 1, 2, 3, 4), /* test r16d, imm32 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xd5, 0x00, 0x8f, 0xc0),              /* pop rax: no XOP */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xd5, 0x88, 0xaf, 0xc0),              /* imul (map 1) */
    V(64, OK, 5, FWPT_IC_PTWRITE, 0, 0xf3, 0xd5, 0x90, 0xae, 0xe0),      /* ptwrite r16d */
    V(64, OK, 4, FWPT_IC_MOV_CR3, 0, 0xd5, 0x81, 0x22, 0xd8),            /* mov cr3, r8 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xd5, 0x84, 0x22, 0xd8),              /* R3: cr11 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xd5, 0xc0, 0x22, 0xd8),              /* R4: cr19 */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xd5, 0x88, 0x01, 0xca),              /* clac: no F3 */
    V(64, OK, 5, FWPT_IC_IRET, 0, 0xf3, 0xd5, 0x88, 0x01, 0xca),         /* eretu */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0x74, 0x00),                         /* Jcc rel8 */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xe8, 0, 0, 0, 0),                   /* call rel32 */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xe9, 0, 0, 0, 0),
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xeb, 0x00),
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xe2, 0x00),                         /* loop */
    V(64, BAD, 0, 0, 0, 0xd5, 0x80, 0x84, 0, 0, 0, 0),                   /* jz rel32 */
    V(64, BAD, 0, 0, 0, 0xd5, 0x80, 0x34),                               /* sysenter */
    V(64, BAD, 0, 0, 0, 0xd5, 0x80, 0x38, 0x00, 0xc0),                   /* no 0F 38 map */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0x0f, 0x05),                         /* map by M0, not 0F */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0x66, 0x90),                         /* prefix after REX2 */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0x48, 0x90),
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xd5, 0x00, 0x90),
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xc4, 0xe2, 0x79, 0x00, 0xc0),       /* no VEX after REX2 */
    V(64, BAD, 0, 0, 0, 0x48, 0xd5, 0x00, 0x90),                         /* REX before REX2 */
    V(64, BAD, 0, 0, 0, 0xd5, 0x00, 0xa0, 1, 2, 3, 4, 5, 6, 7, 8),       /* mov al, moffs */
    /* FRED: ERETU F3 0F 01 CA, ERETS F2 0F 01 CA (64-bit mode only); 0F 01 CA is CLAC */
    V(64, OK, 4, FWPT_IC_IRET, 0, 0xf3, 0x0f, 0x01, 0xca),
    V(64, OK, 4, FWPT_IC_IRET, 0, 0xf2, 0x0f, 0x01, 0xca),
    V(64, OK, 5, FWPT_IC_IRET, 0, 0x66, 0xf3, 0x0f, 0x01, 0xca),
    V(64, BAD, 0, 0, 0, 0xf0, 0xf3, 0x0f, 0x01, 0xca),                   /* LOCK */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0x0f, 0x01, 0xca),                    /* clac */
    V(64, OK, 4, FWPT_IC_OTHER, 0, 0xf3, 0x0f, 0x01, 0xcb),              /* (stac) */
    V(32, OK, 4, FWPT_IC_OTHER, 0, 0xf3, 0x0f, 0x01, 0xca),
    /* LOCK */
    V(64, OK, 3, FWPT_IC_OTHER, 0, 0xf0, 0x01, 0x08),                    /* lock add [rax], ecx */
    V(64, BAD, 0, 0, 0, 0xf0, 0x01, 0xc8),                               /* register destination */
    V(64, BAD, 0, 0, 0, 0xf0, 0x90),
    /* truncation */
    V(64, TRUNC, 0, 0, 0, 0xe8, 0x00, 0x00, 0x00),
    V(64, TRUNC, 0, 0, 0, 0x66),
    V(64, TRUNC, 0, 0, 0, 0x0f),
    V(64, TRUNC, 0, 0, 0, 0x8b, 0x04),
    V(64, TRUNC, 0, 0, 0, 0x62, 0xf1, 0x7c, 0x48),
};

/* every vector of the table: status, size, class, the relative target and whether it is a zero-length call */
TEST(vectors_status_size_class)
{
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) {
        const struct vec *v = &vecs[k];
        struct fwpt_insn in;
        memset(&in, 0xee, sizeof in);
        enum fwpt_status st = fwpt_insn_decode(v->b, v->n, (enum fwpt_exec_mode)v->mode, &in);
        if (st != v->st || (st == OK && (in.size != v->size || in.iclass != v->iclass)))
            fprintf(stderr, "vector %zu (mode %d, first byte %02x): status %s size %u class %s\n", k,
                    v->mode, v->b[0], fwpt_status_name(st), st == OK ? in.size : 0,
                    st == OK ? fwpt_insn_class_name(in.iclass) : "-");
        CHECK_EQ(st, v->st);
        if (st != OK || v->st != OK)
            continue;
        CHECK_EQ(in.size, v->size);
        CHECK_EQ(in.iclass, v->iclass);
        if (v->iclass == FWPT_IC_JCC || v->iclass == FWPT_IC_JMP_REL || v->iclass == FWPT_IC_CALL_REL)
            CHECK_EQ(in.rel, v->rel);
        CHECK_EQ(in.zero_len_call, v->iclass == FWPT_IC_CALL_REL && v->rel == 0);
    }
}

/* Branch targets: truncated to the operand size outside 64-bit mode. */
TEST(branch_targets_truncated_to_operand_size)
{
    struct fwpt_insn in;
    static const uint8_t jmp16[] = {0xe9, 0x10, 0x00};
    CHECK_EQ(fwpt_insn_decode(jmp16, sizeof jmp16, FWPT_MODE_16, &in), OK);
    CHECK_EQ(fwpt_insn_rel_target(&in, 0xfff0, FWPT_MODE_16), 0x0003);
    static const uint8_t jmp16_66[] = {0x66, 0xe9, 0x10, 0x00, 0x00, 0x00};
    CHECK_EQ(fwpt_insn_decode(jmp16_66, sizeof jmp16_66, FWPT_MODE_16, &in), OK);
    CHECK_EQ(fwpt_insn_rel_target(&in, 0xfff0, FWPT_MODE_16), 0x10006);
    static const uint8_t jb32[] = {0x66, 0xeb, 0x10};
    CHECK_EQ(fwpt_insn_decode(jb32, sizeof jb32, FWPT_MODE_32, &in), OK);
    CHECK_EQ(fwpt_insn_rel_target(&in, 0x1fff0, FWPT_MODE_32), 0x0003);
    static const uint8_t jmp32[] = {0xe9, 0x00, 0x00, 0x00, 0x80};
    CHECK_EQ(fwpt_insn_decode(jmp32, sizeof jmp32, FWPT_MODE_32, &in), OK);
    CHECK_EQ(fwpt_insn_rel_target(&in, 0x7ffffffbu, FWPT_MODE_32), 0);
    static const uint8_t call64[] = {0xe8, 0xfb, 0xff, 0xff, 0xff};
    CHECK_EQ(fwpt_insn_decode(call64, sizeof call64, FWPT_MODE_64, &in), OK);
    CHECK_EQ(fwpt_insn_rel_target(&in, 0xffffffff80001000ull, FWPT_MODE_64), 0xffffffff80001000ull);
    CHECK_EQ(in.op_size, 8);
}

/* an unknown mode is refused; the class names, and "?" past them */
TEST(unknown_mode_refused_class_names)
{
    static const uint8_t call64[] = {0xe8, 0xfb, 0xff, 0xff, 0xff};
    struct fwpt_insn in;
    CHECK_EQ(fwpt_insn_decode(call64, sizeof call64, FWPT_MODE_UNKNOWN, &in), FWPT_E_INVAL);
    CHECK_STR(fwpt_insn_class_name(FWPT_IC_CALL_REL), "call_rel");
    CHECK_STR(fwpt_insn_class_name(FWPT_IC_PTWRITE), "ptwrite");
    CHECK_STR(fwpt_insn_class_name(FWPT_IC_MOV_CR3), "mov_cr3");
    CHECK_STR(fwpt_insn_class_name(FWPT_IC_COUNT), "?");
}

TEST_MAIN("insn")
