/* fwpt — the packet decoder's tables, each computed at compile time from its rule in the SDM's terms (SDM
 * Vol. 3C, "Packet Definitions"): a per-index macro expanded 256 times by R256, so every rule is written once
 * and no table is typed by hand. tests/unit/test_packet_opcodes checks the slow path's two class tables
 * against the SDM's header patterns; tests/unit/test_packet_fast checks the fast path's tables, entry by
 * entry, against the slow path (every header byte, every byte after 02h and 99h). */
#include "decode/packet_defs.h"

#define R4(F, n) F(n), F((n) + 1), F((n) + 2), F((n) + 3)
#define R16(F, n) R4(F, n), R4(F, (n) + 4), R4(F, (n) + 8), R4(F, (n) + 12)
#define R64(F, n) R16(F, n), R16(F, (n) + 16), R16(F, (n) + 32), R16(F, (n) + 48)
#define R256(F) R64(F, 0), R64(F, 64), R64(F, 128), R64(F, 192)

/* n bytes of ones (n <= 8; two shifts keep n == 8 defined) */
#define BYTES_MASK(n) (((1ull << (4 * (n))) << (4 * (n))) - 1)

/* ---- the slow path's dispatch ---- */

/* Byte 0: 00h PAD; 02h the extended opcodes; any other even byte a short TNT (bit 0 = 0); bits 1:0 = 11b CYC;
 * 19h TSC, 59h MTC, 99h MODE, D9h TRIG; else bits 4:0 select TIP (0Dh), TIP.PGE (11h), TIP.PGD (01h), FUP (1Dh)
 * whatever IPBytes (bits 7:5) say; the rest is reserved. */
#define FIRST_KIND(b)                                                                                             \
    ((b) == OPC_PAD ? K_PAD : (b) == OPC_EXT ? K_EXT : ((b) & OPM_TNT8) == 0 ? K_TNT                              \
     : ((b) & OPM_CYC) == OPC_CYC ? K_CYC : (b) == OPC_TSC ? K_TSC : (b) == OPC_MTC ? K_MTC                       \
     : (b) == OPC_MODE ? K_MOD : (b) == OPC_TRIG ? K_TRIG                                                         \
     : ((b) & OPM_IP_TYPE) == OPC_TIP ? K_TIP : ((b) & OPM_IP_TYPE) == OPC_TIP_PGE ? K_PGE                        \
     : ((b) & OPM_IP_TYPE) == OPC_TIP_PGD ? K_PGD : ((b) & OPM_IP_TYPE) == OPC_FUP ? K_FUP : K_BAD)
const uint8_t fwpt_pkt_first_kind[256] = {R256(FIRST_KIND)};

/* after 02h (SDM packet tables; PTW: bits 4:0 = 12h, PayloadBytes 6:5 = 00b or 01b, IP bit 7) */
#define X_PTW12(x) (((x) & OPM_EXT_PTW) == EXT_PTW)
#define X_PTWOK(x) (X_PTW12(x) && (((x) >> PTW_PLC_SHIFT) & PTW_PLC_MASK) <= 1)
#define X_PTWN(x) (((x) >> PTW_PLC_SHIFT) & 1 ? 8 : 4)
#define X_IPBIT(x) (((x) & EXT_IP) != 0)
#define X_EXSTOP(x) (((x) & ~EXT_IP) == EXT_EXSTOP)
#define X_BEP(x) (((x) & ~EXT_IP) == EXT_BEP)

/* The byte after 02h; PTW with any PayloadBytes (the slow path reports 1xb reserved), EXSTOP and BEP with either
 * IP bit. */
#define EXT_KIND(x)                                                                                               \
    ((x) == EXT_PSB ? X_PSB : (x) == EXT_PSBEND ? X_PSBEND : (x) == EXT_OVF ? X_OVF : (x) == EXT_STOP ? X_STOP    \
     : (x) == EXT_TNT_64 ? X_TNT64 : (x) == EXT_CBR ? X_CBR : (x) == EXT_PIP ? X_PIP : (x) == EXT_VMCS ? X_VMCS   \
     : (x) == EXT_TMA ? X_TMA : (x) == EXT_EXT2 ? X_EXT2 : X_EXSTOP(x) ? X_EXSTOP : (x) == EXT_MWAIT ? X_MWAIT    \
     : (x) == EXT_PWRE ? X_PWRE : (x) == EXT_PWRX ? X_PWRX : (x) == EXT_BBP ? X_BBP : X_BEP(x) ? X_BEP            \
     : (x) == EXT_CFE ? X_CFE : (x) == EXT_EVD ? X_EVD : X_PTW12(x) ? X_PTW : X_BAD)
const uint8_t fwpt_pkt_ext_kind[256] = {R256(EXT_KIND)};

/* ---- the fast path by byte 0 (struct fwpt_pkt_fast in decode/packet_fast.h) ---- */

/* Short TNT (SDM "TNT Packet Definition": the stop bit is the highest set bit, B1 just below it): N branches */
#define TNT8_N(b) \
    ((b) >= 0x80 ? 6 : (b) >= 0x40 ? 5 : (b) >= 0x20 ? 4 : (b) >= 0x10 ? 3 : (b) >= 0x08 ? 2 : (b) >= 0x04 ? 1 : 0)
/* B(i+1), bit N - i of the header, as bit i (& 7: a shift count never negative, in the branch not taken too) */
#define TNT8_B(b, i) (TNT8_N(b) > (i) ? (uint64_t)(((b) >> ((TNT8_N(b) - (i)) & 7)) & 1) << (i) : 0)
#define TNT8_BITS(b) (TNT8_B(b, 0) | TNT8_B(b, 1) | TNT8_B(b, 2) | TNT8_B(b, 3) | TNT8_B(b, 4) | TNT8_B(b, 5))

/* What the fast path takes by byte 0 alone: PAD, short TNT, CYC (one byte, or two when byte 1 has Exp clear),
 * MTC, and FUP/TIP/TIP.PGE/TIP.PGD with IPBytes not reserved; the rest (extended opcodes, TSC, MODE, TRIG,
 * reserved) goes through fwpt_pkt_fast_ext or the slow path. */
#define F_IPC(b) ((b) >> IPBYTES_SHIFT)
#define F_IP(b)                                                                                                   \
    ((FIRST_KIND(b) == K_TIP || FIRST_KIND(b) == K_PGE || FIRST_KIND(b) == K_PGD || FIRST_KIND(b) == K_FUP) &&     \
     FWPT_PKT_IPC_BYTES(F_IPC(b)) >= 0)
#define F_CYCX(b) (FIRST_KIND(b) == K_CYC && ((b) & CYC_EXP)) /* CYC with Exp */
#define F_TYPE(b)                                                                                                 \
    (FIRST_KIND(b) == K_PAD ? FWPT_PKT_PAD : FIRST_KIND(b) == K_TNT ? FWPT_PKT_TNT_8                              \
     : FIRST_KIND(b) == K_CYC ? FWPT_PKT_CYC : FIRST_KIND(b) == K_MTC ? FWPT_PKT_MTC : !F_IP(b) ? FWPT_PKT_NONE   \
     : FIRST_KIND(b) == K_TIP ? FWPT_PKT_TIP : FIRST_KIND(b) == K_PGE ? FWPT_PKT_TIP_PGE                          \
     : FIRST_KIND(b) == K_PGD ? FWPT_PKT_TIP_PGD : FWPT_PKT_FUP)
#define F_SIZE(b)                                                                                                 \
    (F_IP(b) ? 1 + FWPT_PKT_IPC_BYTES(F_IPC(b)) : F_CYCX(b) || FIRST_KIND(b) == K_MTC ? 2                          \
     : F_TYPE(b) != FWPT_PKT_NONE ? 1 : 0)
/* bytes 16-17 of the packet: ip.ipc and ip.suppressed; tnt.count; the one-byte CYC's Cycle Counter[4:0]
 * (FUP/TIP* fields: FWPT_PKT_IP_* in decode/packet_fast.h, the rule the one-byte path's constants use too) */
#define F_W16(b)                                                                                                  \
    (F_IP(b) ? FWPT_PKT_IP_W16(F_IPC(b)) : FIRST_KIND(b) == K_TNT ? TNT8_N(b)                                     \
     : FIRST_KIND(b) == K_CYC ? (b) >> CYC_SHIFT : 0)
#define FAST(b)                                                                                                   \
    {                                                                                                             \
        .pay_mask = F_IP(b) ? FWPT_PKT_IP_PAY_MASK(F_IPC(b)) : 0,                                                 \
        .keep_mask = F_IP(b) ? FWPT_PKT_IPC_KEEP(F_IPC(b)) : F_TYPE(b) != FWPT_PKT_NONE ? ~0ull : 0,               \
        .ip_sel = F_IP(b) ? FWPT_PKT_IP_SEL(F_IPC(b)) : 0,                                                        \
        .w16 = F_W16(b),                                                                                          \
        .type = F_TYPE(b),                                                                                        \
        .size = F_SIZE(b),                                                                                        \
        .sx = F_IP(b) ? FWPT_PKT_IP_SX(F_IPC(b)) : 0,                                                             \
        .mtc_mask = FIRST_KIND(b) == K_MTC ? 0xff : F_CYCX(b) ? 0xfe : 0, /* MTC: CTC = byte 1 */                 \
        .tnt_bits = FIRST_KIND(b) == K_TNT ? TNT8_BITS(b) : 0,                                                    \
        .mtc_shift = F_CYCX(b) ? 4 : 0, /* CYC with Exp: Cycle Counter[11:5] = byte 1 bits 7:1 */                 \
    }
const struct fwpt_pkt_fast fwpt_pkt_fast_table[256] = {R256(FAST)};
_Static_assert(offsetof(struct fwpt_packet, ip.ipc) == 16, "layout: the fast path stores 8 bytes at 16");
_Static_assert(offsetof(struct fwpt_packet, ip.suppressed) == 17, "layout");
_Static_assert(offsetof(struct fwpt_packet, tnt.count) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, mtc.ctc) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, cyc.value) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, ip.ip) == 24, "layout");
_Static_assert(offsetof(struct fwpt_packet, tnt.bits) == 24, "layout");
_Static_assert(offsetof(struct fwpt_packet, ip.payload) == 32, "layout");
_Static_assert(offsetof(struct fwpt_packet, size) == offsetof(struct fwpt_packet, type) + 1,
               "layout: type and size copied as one 16-bit value");
_Static_assert(offsetof(struct fwpt_pkt_fast, size) == offsetof(struct fwpt_pkt_fast, type) + 1, "layout");
_Static_assert(sizeof(struct fwpt_pkt_fast) == 32, "entries stay aligned");

/* the size column again, a byte per entry: the inline fast path's first load (CYC with Exp: 2, valid only when
 * byte 1 has Exp clear, which fwpt_pkt_fast_cycx tells) */
const uint8_t fwpt_pkt_fast_len[256] = {R256(F_SIZE)};

const uint8_t fwpt_pkt_fast_cycx[256] = {R256(F_CYCX)};

/* PAD and short TNT: bytes 8..31 of their struct fwpt_packet (the one-byte path; the slow path's short TNT) */
#define ONE_IMAGE(b) {(b) == OPC_PAD ? FWPT_PKT_PAD | 1u << 8                                                     \
                      : FIRST_KIND(b) == K_TNT ? FWPT_PKT_TNT_8 | 1u << 8 : 0,                                   \
                      FIRST_KIND(b) == K_TNT ? TNT8_N(b) : 0,                                                     \
                      FIRST_KIND(b) == K_TNT ? TNT8_BITS(b) : 0}
const uint64_t fwpt_pkt_one_image[256][3] = {R256(ONE_IMAGE)};
/* the image's layout: type and size in bytes 8 and 9 (little-endian), tnt.count at 16, tnt.bits at 24 */
_Static_assert(offsetof(struct fwpt_packet, type) == 8 && offsetof(struct fwpt_packet, size) == 9 &&
                   offsetof(struct fwpt_packet, tnt.count) == 16 && offsetof(struct fwpt_packet, tnt.bits) == 24,
               "fwpt_pkt_one_image matches struct fwpt_packet");

/* ---- the fast path for 02 xx, 99 xx and TSC (struct fwpt_pkt_ext_fast in decode/packet_fast.h) ---- */

#define SIZE2(x) ((x) == EXT_PSB ? PSB_SIZE : (x) == EXT_PSBEND ? PSBEND_SIZE : (x) == EXT_OVF ? OVF_SIZE     \
                  : (x) == EXT_STOP ? STOP_SIZE : (x) == EXT_TNT_64 ? TNT_64_SIZE : (x) == EXT_CBR ? CBR_SIZE \
                  : (x) == EXT_PIP ? PIP_SIZE : (x) == EXT_VMCS ? VMCS_SIZE : (x) == EXT_TMA ? TMA_SIZE       \
                  : (x) == EXT_EXT2 ? MNT_SIZE : X_EXSTOP(x) ? EXSTOP_SIZE : (x) == EXT_MWAIT ? MWAIT_SIZE    \
                  : (x) == EXT_PWRE ? PWRE_SIZE : (x) == EXT_PWRX ? PWRX_SIZE : X_BEP(x) ? BEP_SIZE            \
                  : (x) == EXT_CFE ? CFE_SIZE : X_PTWOK(x) ? PTW_HDR_SIZE + X_PTWN(x) : 0)
/* x = bytes 2..9 (xoff 2) unless said: CBR ratio = byte 2; PIP CR3 = (payload & ~NR) << 4, NR at byte 24;
 * VMCS base = bytes 2..6 << 12; TMA CTC = bytes 2..3, FastCounter = bytes 5..6 [8:0] at 18; MNT = bytes 3..10;
 * MWAIT = bytes 2..9; PWRE byte 3 [7:4] -> 16, [3:0] -> 17, byte 2 bit 7 -> 18 (the multiply places two
 * copies, post keeps the wanted bits); PWRX byte 2 [7:4] -> 16, [3:0] -> 17, byte 3 [3:0] -> 18; CFE (x =
 * bytes 1..8) byte 2 [4:0] -> 16, byte 3 -> 17, byte 2 bit 7 -> 18; PTW payload, then bytes/plc/ip at 24 */
#define F2(x)                                                                                          \
    {                                                                                                  \
        .m_a = (x) == EXT_CBR ? 0xff : (x) == EXT_PIP ? BYTES_MASK(6) & ~(uint64_t)PIP_NR               \
             : (x) == EXT_VMCS ? BYTES_MASK(5) : (x) == EXT_TMA ? 0xffff : (x) == EXT_EXT2 ? ~0ull       \
             : (x) == EXT_MWAIT ? ~0ull : (x) == EXT_PWRE ? 0xf80 : (x) == EXT_PWRX ? 0xf0f             \
             : (x) == EXT_CFE ? 0x8000 : X_PTWOK(x) ? BYTES_MASK(X_PTWN(x)) : 0,                         \
        .m_b = (x) == EXT_TMA ? (uint32_t)TMA_FC_MASK << 16 : (x) == EXT_PWRE || (x) == EXT_PWRX ? NIBBLE \
             : (x) == EXT_CFE ? 0xff00u | CFE_TYPE : 0,                                                \
        .c16 = X_EXSTOP(x) || X_BEP(x) ? X_IPBIT(x) : 0,                                               \
        .c24 = X_PTWOK(x) ? X_PTWN(x) | ((x) >> PTW_PLC_SHIFT & 1) << 8 | X_IPBIT(x) << 16 : 0,         \
        .post = (x) == EXT_PWRE ? 0x10f0f : -1,                                                        \
        .mul_a = (x) == EXT_PIP ? 1 << PIP_CR3_SHIFT : (x) == EXT_VMCS ? 1 << VMCS_SHIFT                \
               : (x) == EXT_PWRE ? 1 + (1 << 9) : (x) == EXT_PWRX ? 1 << 8 : (x) == EXT_CFE ? 2 : 1,    \
        .type = (x) == EXT_PSB ? FWPT_PKT_PSB : (x) == EXT_PSBEND ? FWPT_PKT_PSBEND                    \
              : (x) == EXT_OVF ? FWPT_PKT_OVF : (x) == EXT_STOP ? FWPT_PKT_STOP                         \
              : (x) == EXT_TNT_64 ? FWPT_PKT_TNT_64 : (x) == EXT_CBR ? FWPT_PKT_CBR                     \
              : (x) == EXT_PIP ? FWPT_PKT_PIP : (x) == EXT_VMCS ? FWPT_PKT_VMCS                         \
              : (x) == EXT_TMA ? FWPT_PKT_TMA : (x) == EXT_EXT2 ? FWPT_PKT_MNT                          \
              : X_EXSTOP(x) ? FWPT_PKT_EXSTOP : (x) == EXT_MWAIT ? FWPT_PKT_MWAIT                       \
              : (x) == EXT_PWRE ? FWPT_PKT_PWRE : (x) == EXT_PWRX ? FWPT_PKT_PWRX                       \
              : X_BEP(x) ? FWPT_PKT_BEP : (x) == EXT_CFE ? FWPT_PKT_CFE : X_PTWOK(x) ? FWPT_PKT_PTW : 0, \
        .size = (x) == EXT_TNT_64 ? 0 : SIZE2(x), /* long TNT: fwpt_pkt_fast_tnt64 */                   \
        .xoff = (x) == EXT_EXT2 ? 3 : (x) == EXT_CFE ? 1 : 2,                                          \
        .sh_b = (x) == EXT_TMA ? 8 : (x) == EXT_PWRE ? 12 : (x) == EXT_PWRX ? PWRX_LAST_SHIFT          \
              : (x) == EXT_CFE ? 8 : 0,                                                                \
        .m24 = (x) == EXT_PIP ? PIP_NR : 0,                                                            \
        .chk_val = (x) == EXT_PSB ? PSB_PATTERN : (x) == EXT_EXT2 ? (uint64_t)EXT2_MNT << 16 : 0,      \
        .chk_mask = (x) == EXT_PSB ? -1 : (x) == EXT_EXT2 ? 0xff0000 : 0,                              \
        .keep = (x) == EXT_PSB ? 0 : -1, /* SDM: Last IP is reset to zero at PSB */                    \
        .psb = (x) == EXT_PSB ? -1 : 0,                                                                \
    }

/* after 99h: MODE byte 1 bits 7:5 leaf; Exec: CS.L bit 0, CS.D bit 1, IF bit 2 (CS.L=1 -> 64-bit, CS.D=1
 * too reserved, else CS.D selects 32/16); TSX: InTX bit 0, TXAbort bit 1 */
#define M_EXEC(m) (((m) & MODE_LEAF) == MODE_LEAF_EXEC)
#define M_TSX(m) (((m) & MODE_LEAF) == MODE_LEAF_TSX)
#define M_MODE(m) ((m) & MODE_EXEC_CSL ? ((m) & MODE_EXEC_CSD ? FWPT_MODE_UNKNOWN : FWPT_MODE_64) \
                   : (m) & MODE_EXEC_CSD ? FWPT_MODE_32 : FWPT_MODE_16)
#define F3(m)                                                                                          \
    {                                                                                                  \
        .c16 = M_EXEC(m) ? ((m) & MODE_EXEC_CSL) | ((m) & MODE_EXEC_CSD) >> 1 << 8                      \
                               | ((m) & MODE_EXEC_IF) >> 2 << 16 | (uint32_t)M_MODE(m) << 24            \
             : M_TSX(m) ? ((m) & MODE_TSX_INTX) | ((m) & MODE_TSX_ABRT) >> 1 << 8 : 0,                 \
        .post = -1,                                                                                    \
        .mul_a = 1,                                                                                    \
        .type = M_EXEC(m) ? FWPT_PKT_MODE_EXEC : M_TSX(m) ? FWPT_PKT_MODE_TSX : 0,                     \
        .size = M_EXEC(m) || M_TSX(m) ? MODE_SIZE : 0,                                                 \
        .xoff = 1,                                                                                     \
        .keep = -1,                                                                                    \
    }

/* TSC: bytes 1..7 */
#define F_TSC {.m_a = BYTES_MASK(TSC_SIZE - 1), .post = -1, .mul_a = 1, .type = FWPT_PKT_TSC, .size = TSC_SIZE, \
               .xoff = 1, .keep = -1}
const struct fwpt_pkt_ext_fast fwpt_pkt_ext_fast_table[514] = {R256(F2), R256(F3), F_TSC, {.xoff = 1}};
#define ESZ sizeof(struct fwpt_pkt_ext_fast)
#define PG(b) {(b) == OPC_EXT ? 0 : (b) == OPC_MODE ? 256 * ESZ : (b) == OPC_TSC ? 512 * ESZ : 513 * ESZ, \
               (b) == OPC_EXT || (b) == OPC_MODE ? 0xffff : 0}
const struct fwpt_pkt_ext_page fwpt_pkt_ext_page[256] = {R256(PG)};
_Static_assert(255 * sizeof(struct fwpt_pkt_ext_fast) <= 0xffff, "the page mask keeps byte 1 * entry size");
_Static_assert(offsetof(struct fwpt_packet, cbr.ratio) == 16 && offsetof(struct fwpt_packet, vmcs.base) == 16 &&
               offsetof(struct fwpt_packet, pip.cr3) == 16 && offsetof(struct fwpt_packet, tma.fc) == 18 &&
               offsetof(struct fwpt_packet, exstop.ip) == 16 && offsetof(struct fwpt_packet, mwait.ext) == 20 &&
               offsetof(struct fwpt_packet, pwre.hw) == 18 && offsetof(struct fwpt_packet, pwrx.wake_reason) == 18 &&
               offsetof(struct fwpt_packet, cfe.ip) == 18 && offsetof(struct fwpt_packet, bep.ip) == 16 &&
               offsetof(struct fwpt_packet, mode_exec.mode) == 19 && offsetof(struct fwpt_packet, mode_tsx.abrt) == 17 &&
               offsetof(struct fwpt_packet, ptw.payload) == 16 && offsetof(struct fwpt_packet, pip.nr) == 24 &&
               offsetof(struct fwpt_packet, ptw.bytes) == 24 && offsetof(struct fwpt_packet, ptw.plc) == 25 &&
               offsetof(struct fwpt_packet, ptw.ip) == 26,
               "layout: the extended fast fill stores bytes 16..23 and 24..31 as words");
_Static_assert(offsetof(struct fwpt_pkt_ext_fast, size) == offsetof(struct fwpt_pkt_ext_fast, type) + 1, "layout");
