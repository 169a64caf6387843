/* fwpt — Intel PT packet decoder (SDM Vol. 3C, "Packet Definitions"). Freestanding: no libc, no
 * allocation; the trace is read in place. Hot path: one table lookup on the first byte, then a switch. */
#include "decode/packet.h"
#include "arch/errata.h"
#include "base/text.h"

/* Header bytes and fields, in the SDM's words (packet tables of SDM Vol. 3C, "Packet Definitions"). */
enum {
    OPC_PAD = 0x00,
    OPC_EXT = 0x02,            /* extended opcodes: the second byte selects the packet */
    OPM_IP_TYPE = 0x1f,        /* FUP/TIP*: bits 4:0 are the opcode ... */
    IPBYTES_SHIFT = 5,         /* ... bits 7:5 are IPBytes */
    OPC_TSC = 0x19,
    OPC_MTC = 0x59,
    OPC_MODE = 0x99,
    OPC_TRIG = 0xd9,
    TRIG_IP = 0x80,            /* TRIG byte 1: IP bit 7, ICNTV bit 6, MULT bit 5; byte 2 TRBV; bytes 3-4 ICNT */
    TRIG_ICNTV = 0x40,
    TRIG_MULT = 0x20,
    TNT8_SHIFT = 1,            /* short TNT: bit 0 is 0, bits 7:1 hold B1..BN and the stop bit */
    CYC_EXP = 0x04,            /* CYC byte 0: Exp in bit 2, Cycle Counter[4:0] in bits 7:3 */
    CYC_SHIFT = 3,
    CYCX_EXP = 0x01,           /* CYC bytes 1..: Exp in bit 0, 7 counter bits in 7:1 */
    CYCX_SHIFT = 1,
    OPM_BIP = 0x07,            /* BIP: bits 2:0 = 100b, ID in bits 7:3 */
    OPC_BIP = 0x04,
    BIP_ID_SHIFT = 3,
    MODE_LEAF = 0xe0,          /* MODE byte 1: bits 7:5 leaf */
    MODE_LEAF_EXEC = 0x00,
    MODE_LEAF_TSX = 0x20,
    MODE_EXEC_CSL = 0x01,
    MODE_EXEC_CSD = 0x02,
    MODE_EXEC_IF = 0x04,
    MODE_TSX_INTX = 0x01,
    MODE_TSX_ABRT = 0x02,
};
enum {
    EXT_PSB = 0x82,
    EXT_PSBEND = 0x23,
    EXT_OVF = 0xf3,
    EXT_CBR = 0x03,
    EXT_PIP = 0x43,
    EXT_TNT_64 = 0xa3,
    EXT_STOP = 0x83,
    EXT_VMCS = 0xc8,
    EXT_TMA = 0x73,
    EXT_EXT2 = 0xc3,           /* third byte selects: 88h MNT */
    EXT2_MNT = 0x88,
    EXT_EXSTOP = 0x62,         /* | EXT_IP */
    EXT_MWAIT = 0xc2,
    EXT_PWRE = 0x22,
    EXT_PWRX = 0xa2,
    EXT_PTW = 0x12,            /* bits 4:0; bits 6:5 PayloadBytes; bit 7 IP */
    OPM_EXT_PTW = 0x1f,
    PTW_PLC_SHIFT = 5,
    PTW_PLC_MASK = 0x03,
    EXT_BBP = 0x63,
    EXT_BEP = 0x33,            /* | EXT_IP */
    EXT_CFE = 0x13,
    EXT_EVD = 0x53,
    EXT_IP = 0x80,             /* EXSTOP, BEP, PTW: "IP" bit of byte 1 */
    BBP_SZ = 0x80,             /* BBP byte 2: SZ bit 7, Type 4:0 */
    BBP_TYPE = 0x1f,
    CFE_IP = 0x80,             /* CFE byte 2: IP bit 7, Type 4:0 */
    CFE_TYPE = 0x1f,
    EVD_TYPE = 0x3f,           /* EVD byte 2: Type 5:0 */
    PIP_NR = 0x01,             /* PIP payload bit 0: NR; bits 47:1 = CR3[51:5] */
    PIP_CR3_SHIFT = 4,         /* (payload >> 1) << 5 == (payload & ~1) << 4 */
    VMCS_SHIFT = 12,
    TMA_FC_MASK = 0x1ff,       /* FastCounter[8:0] */
    PWRE_HW = 0x80,            /* PWRE byte 2 bit 7 (SDM Table "PWRE Packet Definition") */
    PWRX_LAST_SHIFT = 4,       /* PWRX byte 2: Last Core C-State 7:4, Deepest 3:0; byte 3: Wake Reason 3:0 */
    NIBBLE = 0x0f,
};

/* Packet sizes in bytes. */
enum {
    PSB_SIZE = 16, PSBEND_SIZE = 2, OVF_SIZE = 2, CBR_SIZE = 4, PIP_SIZE = 8, TNT_64_SIZE = 8,
    STOP_SIZE = 2, VMCS_SIZE = 7, TMA_SIZE = 7, MNT_SIZE = 11, EXSTOP_SIZE = 2, MWAIT_SIZE = 10,
    PWRE_SIZE = 4, PWRX_SIZE = 7, PTW_HDR_SIZE = 2, BBP_SIZE = 3, BEP_SIZE = 2, CFE_SIZE = 4,
    EVD_SIZE = 11, TSC_SIZE = 8, MTC_SIZE = 2, MODE_SIZE = 2, TRIG_SIZE = 3, TRIG_ICNT_SIZE = 5,
    CYC_MAX_SIZE = 255,        /* the SDM sets no limit on CYC's Exp chain; struct fwpt_packet's size holds 255 */
    CYC_VALUE_BITS = 64,       /* counter bits kept: the low 64 (as Linux perf) */
};

#define PSB_PATTERN 0x8202820282028202ull /* "02 82" x 4, little-endian */

/* First-byte classes, then second-byte classes of the extended opcodes: one switch dispatches all. */
enum {
    K_BAD, K_PAD, K_TNT, K_EXT, K_TIP, K_PGE, K_PGD, K_FUP, K_CYC, K_TSC, K_MTC, K_MOD, K_TRIG,
    X_PSB, X_PSBEND, X_OVF, X_STOP, X_TNT64, X_CBR, X_PIP, X_VMCS, X_TMA, X_EXT2,
    X_EXSTOP, X_MWAIT, X_PWRE, X_PWRX, X_BBP, X_BEP, X_CFE, X_EVD, X_PTW, X_BAD, X_SHORT
};

/* Generated: the byte after 02h (SDM packet tables; PTW: bits 4:0 = 12h). */
static const uint8_t ext_kind[256] = {
    X_BAD, X_BAD, X_BAD, X_CBR, X_BAD, X_BAD, X_BAD, X_BAD, /* 00 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 08 */
    X_BAD, X_BAD, X_PTW, X_CFE, X_BAD, X_BAD, X_BAD, X_BAD, /* 10 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 18 */
    X_BAD, X_BAD, X_PWRE, X_PSBEND, X_BAD, X_BAD, X_BAD, X_BAD, /* 20 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 28 */
    X_BAD, X_BAD, X_PTW, X_BEP, X_BAD, X_BAD, X_BAD, X_BAD, /* 30 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 38 */
    X_BAD, X_BAD, X_BAD, X_PIP, X_BAD, X_BAD, X_BAD, X_BAD, /* 40 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 48 */
    X_BAD, X_BAD, X_PTW, X_EVD, X_BAD, X_BAD, X_BAD, X_BAD, /* 50 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 58 */
    X_BAD, X_BAD, X_EXSTOP, X_BBP, X_BAD, X_BAD, X_BAD, X_BAD, /* 60 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 68 */
    X_BAD, X_BAD, X_PTW, X_TMA, X_BAD, X_BAD, X_BAD, X_BAD, /* 70 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 78 */
    X_BAD, X_BAD, X_PSB, X_STOP, X_BAD, X_BAD, X_BAD, X_BAD, /* 80 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 88 */
    X_BAD, X_BAD, X_PTW, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 90 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* 98 */
    X_BAD, X_BAD, X_PWRX, X_TNT64, X_BAD, X_BAD, X_BAD, X_BAD, /* a0 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* a8 */
    X_BAD, X_BAD, X_PTW, X_BEP, X_BAD, X_BAD, X_BAD, X_BAD, /* b0 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* b8 */
    X_BAD, X_BAD, X_MWAIT, X_EXT2, X_BAD, X_BAD, X_BAD, X_BAD, /* c0 */
    X_VMCS, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* c8 */
    X_BAD, X_BAD, X_PTW, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* d0 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* d8 */
    X_BAD, X_BAD, X_EXSTOP, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* e0 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* e8 */
    X_BAD, X_BAD, X_PTW, X_OVF, X_BAD, X_BAD, X_BAD, X_BAD, /* f0 */
    X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, X_BAD, /* f8 */
};

/* Generated: bit 0 = 0 -> PAD (00), EXT (02), else short TNT; bits 1:0 = 11b -> CYC; otherwise bits 4:0
 * select TIP (0Dh), TIP.PGE (11h), TIP.PGD (01h), FUP (1Dh); 19h TSC, 59h MTC, 99h MODE, D9h TRIG; rest
 * reserved. */
static const uint8_t first_kind[256] = {
    K_PAD, K_PGD, K_EXT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* 00 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TSC, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* 10 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* 20 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* 30 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* 40 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_MTC, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* 50 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* 60 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* 70 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* 80 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_MOD, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* 90 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* a0 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* b0 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* c0 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TRIG, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* d0 */
    K_TNT, K_PGD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_TIP, K_TNT, K_CYC, /* e0 */
    K_TNT, K_PGE, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_BAD, K_TNT, K_CYC, K_TNT, K_FUP, K_TNT, K_CYC, /* f0 */
};

/* Short TNT: index = byte >> 1; value = count << 8 | bits, bits in execution order (bit 0 = B1, the oldest). */
static const uint16_t tnt8_table[128] = {
    0x000, 0x000, 0x100, 0x101, 0x200, 0x202, 0x201, 0x203,
    0x300, 0x304, 0x302, 0x306, 0x301, 0x305, 0x303, 0x307,
    0x400, 0x408, 0x404, 0x40c, 0x402, 0x40a, 0x406, 0x40e,
    0x401, 0x409, 0x405, 0x40d, 0x403, 0x40b, 0x407, 0x40f,
    0x500, 0x510, 0x508, 0x518, 0x504, 0x514, 0x50c, 0x51c,
    0x502, 0x512, 0x50a, 0x51a, 0x506, 0x516, 0x50e, 0x51e,
    0x501, 0x511, 0x509, 0x519, 0x505, 0x515, 0x50d, 0x51d,
    0x503, 0x513, 0x50b, 0x51b, 0x507, 0x517, 0x50f, 0x51f,
    0x600, 0x620, 0x610, 0x630, 0x608, 0x628, 0x618, 0x638,
    0x604, 0x624, 0x614, 0x634, 0x60c, 0x62c, 0x61c, 0x63c,
    0x602, 0x622, 0x612, 0x632, 0x60a, 0x62a, 0x61a, 0x63a,
    0x606, 0x626, 0x616, 0x636, 0x60e, 0x62e, 0x61e, 0x63e,
    0x601, 0x621, 0x611, 0x631, 0x609, 0x629, 0x619, 0x639,
    0x605, 0x625, 0x615, 0x635, 0x60d, 0x62d, 0x61d, 0x63d,
    0x603, 0x623, 0x613, 0x633, 0x60b, 0x62b, 0x61b, 0x63b,
    0x607, 0x627, 0x617, 0x637, 0x60f, 0x62f, 0x61f, 0x63f,
};

/* IPBytes -> payload bytes; -1 reserved (SDM Table "FUP/TIP IP Reconstruction"). */
static const int8_t ip_payload_bytes[8] = {0, 2, 4, 6, 6, -1, 8, -1};
/* IPBytes -> the Last IP bits kept: 001b [63:16], 010b [63:32], 100b [63:48], 000b all (no update). */
static const uint64_t ip_keep_mask[8] = {
    ~0ull, 0xffffffffffff0000ull, 0xffffffff00000000ull, 0, 0xffff000000000000ull, 0, 0, 0,
};

/* Fast path (fwpt_pkt_next in packet.h): one 8-byte entry per first byte for PAD, short TNT, one-byte CYC,
 * MTC and FUP/TIP/TIP.PGE/TIP.PGD; the inline code has no data-dependent branch. type 0: slow path. */
#define FE(paymask, keep, ipsel, w16, type, size, ipc, mtc, tnt) \
    {paymask, keep, ipsel, w16, type, size, (ipc) == FWPT_IPC_SEXT_48 ? 16 : 0, mtc, tnt, 0}
/* CYC with Exp: the two-byte form (byte 1 Exp clear): Cycle Counter[11:5] = byte 1 bits 7:1, moved up by 4.
 * Only fwpt_pkt_fast_len gives it a size. */
#define FC(hdr) {0, ~0ull, 0, hdr, FWPT_PKT_CYC, 2, 0, 0xfe, 0, 0x04}
const struct fwpt_pkt_fast fwpt_pkt_fast_table[256] = {
    FE(0, ~0ull, 0, 0x000, FWPT_PKT_PAD, 1, 0, 0x00, 0x00), /* 00 */
    FE(0, ~0ull, 0, 0x100, FWPT_PKT_TIP_PGD, 1, 0, 0x00, 0x00), /* 01 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 02 */
    FE(0, ~0ull, 0, 0x000, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 03 */
    FE(0, ~0ull, 0, 0x001, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 04 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 05 */
    FE(0, ~0ull, 0, 0x001, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* 06 */
    FC(0x000), /* 07 */
    FE(0, ~0ull, 0, 0x002, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 08 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 09 */
    FE(0, ~0ull, 0, 0x002, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x02), /* 0a */
    FE(0, ~0ull, 0, 0x001, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 0b */
    FE(0, ~0ull, 0, 0x002, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* 0c */
    FE(0, ~0ull, 0, 0x100, FWPT_PKT_TIP, 1, 0, 0x00, 0x00), /* 0d */
    FE(0, ~0ull, 0, 0x002, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x03), /* 0e */
    FC(0x001), /* 0f */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 10 */
    FE(0, ~0ull, 0, 0x100, FWPT_PKT_TIP_PGE, 1, 0, 0x00, 0x00), /* 11 */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x04), /* 12 */
    FE(0, ~0ull, 0, 0x002, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 13 */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x02), /* 14 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 15 */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x06), /* 16 */
    FC(0x002), /* 17 */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* 18 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 19 */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x05), /* 1a */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 1b */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x03), /* 1c */
    FE(0, ~0ull, 0, 0x100, FWPT_PKT_FUP, 1, 0, 0x00, 0x00), /* 1d */
    FE(0, ~0ull, 0, 0x003, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x07), /* 1e */
    FC(0x003), /* 1f */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 20 */
    FE(0xffff, 0xffffffffffff0000, ~0ull, 0x001, FWPT_PKT_TIP_PGD, 3, 1, 0x00, 0x00), /* 21 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x08), /* 22 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 23 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x04), /* 24 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 25 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0c), /* 26 */
    FC(0x004), /* 27 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x02), /* 28 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 29 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0a), /* 2a */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 2b */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x06), /* 2c */
    FE(0xffff, 0xffffffffffff0000, ~0ull, 0x001, FWPT_PKT_TIP, 3, 1, 0x00, 0x00), /* 2d */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0e), /* 2e */
    FC(0x005), /* 2f */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* 30 */
    FE(0xffff, 0xffffffffffff0000, ~0ull, 0x001, FWPT_PKT_TIP_PGE, 3, 1, 0x00, 0x00), /* 31 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x09), /* 32 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 33 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x05), /* 34 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 35 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0d), /* 36 */
    FC(0x006), /* 37 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x03), /* 38 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 39 */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0b), /* 3a */
    FE(0, ~0ull, 0, 0x007, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 3b */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x07), /* 3c */
    FE(0xffff, 0xffffffffffff0000, ~0ull, 0x001, FWPT_PKT_FUP, 3, 1, 0x00, 0x00), /* 3d */
    FE(0, ~0ull, 0, 0x004, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0f), /* 3e */
    FC(0x007), /* 3f */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 40 */
    FE(0xffffffff, 0xffffffff00000000, ~0ull, 0x002, FWPT_PKT_TIP_PGD, 5, 2, 0x00, 0x00), /* 41 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x10), /* 42 */
    FE(0, ~0ull, 0, 0x008, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 43 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x08), /* 44 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 45 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x18), /* 46 */
    FC(0x008), /* 47 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x04), /* 48 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 49 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x14), /* 4a */
    FE(0, ~0ull, 0, 0x009, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 4b */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0c), /* 4c */
    FE(0xffffffff, 0xffffffff00000000, ~0ull, 0x002, FWPT_PKT_TIP, 5, 2, 0x00, 0x00), /* 4d */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1c), /* 4e */
    FC(0x009), /* 4f */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x02), /* 50 */
    FE(0xffffffff, 0xffffffff00000000, ~0ull, 0x002, FWPT_PKT_TIP_PGE, 5, 2, 0x00, 0x00), /* 51 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x12), /* 52 */
    FE(0, ~0ull, 0, 0x00a, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 53 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0a), /* 54 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 55 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1a), /* 56 */
    FC(0x00a), /* 57 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x06), /* 58 */
    FE(0, ~0ull, 0, 0x000, FWPT_PKT_MTC, 2, 0, 0xff, 0x00), /* 59 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x16), /* 5a */
    FE(0, ~0ull, 0, 0x00b, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 5b */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0e), /* 5c */
    FE(0xffffffff, 0xffffffff00000000, ~0ull, 0x002, FWPT_PKT_FUP, 5, 2, 0x00, 0x00), /* 5d */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1e), /* 5e */
    FC(0x00b), /* 5f */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* 60 */
    FE(0xffffffffffff, 0, ~0ull, 0x003, FWPT_PKT_TIP_PGD, 7, 3, 0x00, 0x00), /* 61 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x11), /* 62 */
    FE(0, ~0ull, 0, 0x00c, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 63 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x09), /* 64 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 65 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x19), /* 66 */
    FC(0x00c), /* 67 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x05), /* 68 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 69 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x15), /* 6a */
    FE(0, ~0ull, 0, 0x00d, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 6b */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0d), /* 6c */
    FE(0xffffffffffff, 0, ~0ull, 0x003, FWPT_PKT_TIP, 7, 3, 0x00, 0x00), /* 6d */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1d), /* 6e */
    FC(0x00d), /* 6f */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x03), /* 70 */
    FE(0xffffffffffff, 0, ~0ull, 0x003, FWPT_PKT_TIP_PGE, 7, 3, 0x00, 0x00), /* 71 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x13), /* 72 */
    FE(0, ~0ull, 0, 0x00e, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 73 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0b), /* 74 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 75 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1b), /* 76 */
    FC(0x00e), /* 77 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x07), /* 78 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 79 */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x17), /* 7a */
    FE(0, ~0ull, 0, 0x00f, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 7b */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0f), /* 7c */
    FE(0xffffffffffff, 0, ~0ull, 0x003, FWPT_PKT_FUP, 7, 3, 0x00, 0x00), /* 7d */
    FE(0, ~0ull, 0, 0x005, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1f), /* 7e */
    FC(0x00f), /* 7f */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x00), /* 80 */
    FE(0xffffffffffff, 0xffff000000000000, ~0ull, 0x004, FWPT_PKT_TIP_PGD, 7, 4, 0x00, 0x00), /* 81 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x20), /* 82 */
    FE(0, ~0ull, 0, 0x010, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 83 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x10), /* 84 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 85 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x30), /* 86 */
    FC(0x010), /* 87 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x08), /* 88 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 89 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x28), /* 8a */
    FE(0, ~0ull, 0, 0x011, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 8b */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x18), /* 8c */
    FE(0xffffffffffff, 0xffff000000000000, ~0ull, 0x004, FWPT_PKT_TIP, 7, 4, 0x00, 0x00), /* 8d */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x38), /* 8e */
    FC(0x011), /* 8f */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x04), /* 90 */
    FE(0xffffffffffff, 0xffff000000000000, ~0ull, 0x004, FWPT_PKT_TIP_PGE, 7, 4, 0x00, 0x00), /* 91 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x24), /* 92 */
    FE(0, ~0ull, 0, 0x012, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 93 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x14), /* 94 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 95 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x34), /* 96 */
    FC(0x012), /* 97 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0c), /* 98 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* 99 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2c), /* 9a */
    FE(0, ~0ull, 0, 0x013, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* 9b */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1c), /* 9c */
    FE(0xffffffffffff, 0xffff000000000000, ~0ull, 0x004, FWPT_PKT_FUP, 7, 4, 0x00, 0x00), /* 9d */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3c), /* 9e */
    FC(0x013), /* 9f */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x02), /* a0 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* a1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x22), /* a2 */
    FE(0, ~0ull, 0, 0x014, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* a3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x12), /* a4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* a5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x32), /* a6 */
    FC(0x014), /* a7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0a), /* a8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* a9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2a), /* aa */
    FE(0, ~0ull, 0, 0x015, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* ab */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1a), /* ac */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* ad */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3a), /* ae */
    FC(0x015), /* af */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x06), /* b0 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* b1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x26), /* b2 */
    FE(0, ~0ull, 0, 0x016, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* b3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x16), /* b4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* b5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x36), /* b6 */
    FC(0x016), /* b7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0e), /* b8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* b9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2e), /* ba */
    FE(0, ~0ull, 0, 0x017, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* bb */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1e), /* bc */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* bd */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3e), /* be */
    FC(0x017), /* bf */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x01), /* c0 */
    FE(~0ull, 0, ~0ull, 0x006, FWPT_PKT_TIP_PGD, 9, 6, 0x00, 0x00), /* c1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x21), /* c2 */
    FE(0, ~0ull, 0, 0x018, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* c3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x11), /* c4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* c5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x31), /* c6 */
    FC(0x018), /* c7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x09), /* c8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* c9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x29), /* ca */
    FE(0, ~0ull, 0, 0x019, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* cb */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x19), /* cc */
    FE(~0ull, 0, ~0ull, 0x006, FWPT_PKT_TIP, 9, 6, 0x00, 0x00), /* cd */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x39), /* ce */
    FC(0x019), /* cf */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x05), /* d0 */
    FE(~0ull, 0, ~0ull, 0x006, FWPT_PKT_TIP_PGE, 9, 6, 0x00, 0x00), /* d1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x25), /* d2 */
    FE(0, ~0ull, 0, 0x01a, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* d3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x15), /* d4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* d5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x35), /* d6 */
    FC(0x01a), /* d7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0d), /* d8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* d9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2d), /* da */
    FE(0, ~0ull, 0, 0x01b, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* db */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1d), /* dc */
    FE(~0ull, 0, ~0ull, 0x006, FWPT_PKT_FUP, 9, 6, 0x00, 0x00), /* dd */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3d), /* de */
    FC(0x01b), /* df */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x03), /* e0 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* e1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x23), /* e2 */
    FE(0, ~0ull, 0, 0x01c, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* e3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x13), /* e4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* e5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x33), /* e6 */
    FC(0x01c), /* e7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0b), /* e8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* e9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2b), /* ea */
    FE(0, ~0ull, 0, 0x01d, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* eb */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1b), /* ec */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* ed */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3b), /* ee */
    FC(0x01d), /* ef */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x07), /* f0 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* f1 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x27), /* f2 */
    FE(0, ~0ull, 0, 0x01e, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* f3 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x17), /* f4 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* f5 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x37), /* f6 */
    FC(0x01e), /* f7 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x0f), /* f8 */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* f9 */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x2f), /* fa */
    FE(0, ~0ull, 0, 0x01f, FWPT_PKT_CYC, 1, 0, 0x00, 0x00), /* fb */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x1f), /* fc */
    FE(0, 0, 0, 0, 0, 0, 0, 0, 0), /* fd */
    FE(0, ~0ull, 0, 0x006, FWPT_PKT_TNT_8, 1, 0, 0x00, 0x3f), /* fe */
    FC(0x01f), /* ff */
};
#undef FE
#undef FC
_Static_assert(offsetof(struct fwpt_packet, ip.ipc) == 16, "layout: the fast path stores 8 bytes at 16");
_Static_assert(offsetof(struct fwpt_packet, ip.suppressed) == 17, "layout");
_Static_assert(offsetof(struct fwpt_packet, tnt.count) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, mtc.ctc) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, cyc.value) == 16, "layout");
_Static_assert(offsetof(struct fwpt_packet, ip.ip) == 24, "layout");
_Static_assert(offsetof(struct fwpt_packet, tnt.bits) == 24, "layout");
_Static_assert(offsetof(struct fwpt_packet, ip.payload) == 32, "layout");
_Static_assert(offsetof(struct fwpt_packet, size) == offsetof(struct fwpt_packet, type) + 1, "layout: type and size copied as one 16-bit value");
_Static_assert(offsetof(struct fwpt_pkt_fast, size) == offsetof(struct fwpt_pkt_fast, type) + 1, "layout");
_Static_assert(sizeof(struct fwpt_pkt_fast) == 32, "entries stay aligned");

typedef uint64_t u64_unaligned __attribute__((aligned(1), may_alias));

/* Little-endian n-byte value (n <= 8) at p, where 'avail' bytes are readable from p. */
static inline uint64_t read_le(const uint8_t *p, size_t avail, unsigned n)
{
    if (avail >= 8) {
        uint64_t v = *(const u64_unaligned *)p;
        return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline uint64_t sext48(uint64_t v) { return (uint64_t)((int64_t)(v << 16) >> 16); }

enum fwpt_status fwpt_pkt_ip_reconstruct(uint64_t last_ip, unsigned ipc, uint64_t payload, uint64_t *ip)
{
    if (ipc > 7 || ip_payload_bytes[ipc] < 0)
        return FWPT_E_BAD_IPC;
    if (ipc == FWPT_IPC_SEXT_48)
        *ip = sext48(payload & 0xffffffffffffull);
    else if (ipc == FWPT_IPC_FULL)
        *ip = payload;
    else
        *ip = (last_ip & ip_keep_mask[ipc]) | (payload & ~ip_keep_mask[ipc]);
    return FWPT_OK;
}

/* fwpt_pkt_next's one-byte path (dec->lean), decided per window of the trace: a trial of TRIAL_WINDOW bytes
 * after every LEAN_WINDOW bytes with it on, and FULL_WINDOW << lean_fails bytes after a failed trial (a trace
 * of random packet types pays for a trial less and less often). */
enum { TRIAL_WINDOW = 2048, LEAN_WINDOW = 65536, FULL_WINDOW = 131072, MAX_FAILS = 5 };

static void set_fast_end(struct fwpt_pkt_decoder *dec)
{
    dec->fast_end = dec->window_end < dec->lim ? dec->window_end : dec->lim;
    if (dec->errata)
        dec->fast_end = 0; /* every packet through fwpt_pkt_next_edge and its errata checks */
}

static void set_window(struct fwpt_pkt_decoder *dec, size_t bytes)
{
    dec->window_end = dec->offset + bytes;
    set_fast_end(dec);
}

/* ---- a trace in pieces (fwpt_pkt_init_segs) ---- */

/* buf such that buf + off is mem's byte for offset off, mem being the bytes from offset lo on */
static inline const uint8_t *biased(const uint8_t *mem, size_t lo)
{
    return (const uint8_t *)((uintptr_t)mem - (uintptr_t)lo);
}

size_t fwpt_pkt_bytes(const struct fwpt_pkt_decoder *dec, size_t off, uint8_t *dst, size_t n)
{
    if (!dec->segs) {
        if (off >= dec->total)
            return 0;
        size_t m = n < dec->total - off ? n : dec->total - off;
        fwpt_memcpy(dst, dec->buf + off, m);
        return m;
    }
    size_t done = 0, lo = 0;
    for (uint32_t k = 0; k < dec->nsegs && done < n; k++) {
        size_t len = dec->segs[k].len, hi = lo + len;
        if (off + done < hi) {
            size_t at = off + done - lo, m = len - at < n - done ? len - at : n - done;
            fwpt_memcpy(dst + done, dec->segs[k].p + at, m);
            done += m;
        }
        lo = hi;
    }
    return done;
}

/* Point the window at dec->offset: the piece that holds it when every packet starting there lies in it
 * (FWPT_PKT_STITCH bytes, or the trace's end, ahead), else the copy of the bytes around the boundary ahead.
 * A stitched window sends every packet through fwpt_pkt_next_edge (lim 0), which re-points buf at this
 * decoder's own copy: copies of the decoder never read another's. */
static void seg_window(struct fwpt_pkt_decoder *dec)
{
    size_t o = dec->offset;
    if (dec->stitched) {
        size_t b = dec->seg_lo + dec->segs[dec->seg].len;
        if (o >= dec->win_lo && o < b) {
            dec->buf = biased(dec->stitch, dec->win_lo);
            return;
        }
    } else if (o >= dec->win_lo && (o + FWPT_PKT_STITCH <= dec->len || dec->len == dec->total)) {
        return;
    }
    uint32_t k = 0;
    size_t lo = 0;
    while (k + 1 < dec->nsegs && o >= lo + dec->segs[k].len) {
        lo += dec->segs[k].len;
        k++;
    }
    size_t hi = lo + dec->segs[k].len;
    dec->seg = k;
    dec->seg_lo = lo;
    if (hi == dec->total || o + FWPT_PKT_STITCH <= hi) {
        dec->stitched = 0;
        dec->win_lo = lo;
        dec->buf = biased(dec->segs[k].p, lo);
        dec->len = hi;
        dec->lim = hi == dec->total ? (hi >= lo + 15 ? hi - 15 : lo) : hi - FWPT_PKT_STITCH;
    } else {
        size_t wlo = hi > FWPT_PKT_STITCH ? hi - FWPT_PKT_STITCH : 0;
        size_t whi = dec->total - hi > FWPT_PKT_STITCH ? hi + FWPT_PKT_STITCH : dec->total;
        fwpt_pkt_bytes(dec, wlo, dec->stitch, whi - wlo);
        dec->stitched = 1;
        dec->win_lo = wlo;
        dec->buf = biased(dec->stitch, wlo);
        dec->len = whi;
        dec->lim = 0;
    }
    set_fast_end(dec);
}

static void lean_trial(struct fwpt_pkt_decoder *dec)
{
    dec->lean = FWPT_PKT_LEAN_ON | FWPT_PKT_LEAN_TRIAL;
    set_window(dec, TRIAL_WINDOW);
    dec->run_end = dec->offset;
    dec->credit = 0;
}

/* Trial bookkeeping: run lengths capped at 5 bits, the last three in run_hist (15 bits, folded to 8 to index
 * run_pred); a run end run_pred did not foresee costs about one mispredicted branch, ~4 one-byte packets. */
enum { RUN_CAP = 31, RUN_BITS = 5, RUN_HIST_MASK = (1u << 3 * RUN_BITS) - 1 };

void fwpt_pkt_trial_run(struct fwpt_pkt_decoder *dec, size_t run)
{
    unsigned r = run < RUN_CAP ? (unsigned)run : RUN_CAP;
    uint32_t h = dec->run_hist;
    uint8_t *pred = &dec->run_pred[(h ^ h >> 7) & 0xff];
    dec->credit += (int64_t)run - (*pred != r ? 4 : 0);
    *pred = (uint8_t)r;
    dec->run_hist = (h << RUN_BITS | r) & RUN_HIST_MASK;
}

void fwpt_pkt_window(struct fwpt_pkt_decoder *dec)
{
    if (!(dec->lean & FWPT_PKT_LEAN_TRIAL)) {
        lean_trial(dec);
        return;
    }
    /* a run whose length breaks the pattern of the run before costs about one mispredicted branch, worth about
     * four one-byte packets decoded on the short path instead of the table-driven one */
    if (dec->credit > 0) {
        dec->lean = FWPT_PKT_LEAN_ON;
        dec->lean_fails = 0;
        set_window(dec, LEAN_WINDOW);
    } else {
        dec->lean = 0;
        set_window(dec, (size_t)FULL_WINDOW << dec->lean_fails);
        if (dec->lean_fails < MAX_FAILS)
            dec->lean_fails++;
    }
}

/* The packet at dec->offset under the decoder's errata, if one applies: true when it filled *pkt. */
static bool errata_packet(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
{
    size_t o = dec->offset, avail = dec->len - o;
    const uint8_t *p = dec->buf + o;
    if ((dec->errata & FWPT_PKT_ERRATUM_SKD007) && fwpt_pkt_skd007_ovf(p, avail)) {
        /* SKD007: "an OVF packet may be issued after the first byte of a multi-byte CYC" */
        pkt->offset = o;
        pkt->type = FWPT_PKT_OVF;
        pkt->size = 3;
        dec->block_item_bytes = 0; /* as any OVF */
        dec->offset = o + 3;
        return true;
    }
    if ((dec->errata & FWPT_PKT_ERRATUM_SKZ84) && avail >= 8 && p[0] == 0x02 && p[1] == 0x73 &&
        (p[4] != 0 || (p[6] & 0xfe) != 0)) {
        /* SKZ84: the corrupted TMA is followed by a bogus byte; reserved bits set are how it shows */
        pkt->offset = o;
        pkt->type = FWPT_PKT_INVALID;
        pkt->size = 8;
        dec->offset = o + 8;
        return true;
    }
    return false;
}

void fwpt_pkt_set_errata(struct fwpt_pkt_decoder *dec, const struct fwpt_errata *errata)
{
    dec->errata = (uint8_t)((errata && errata->skd007 ? FWPT_PKT_ERRATUM_SKD007 : 0) |
                            (errata && errata->skz84 ? FWPT_PKT_ERRATUM_SKZ84 : 0));
    set_window(dec, dec->window_end > dec->offset ? dec->window_end - dec->offset : 0);
}

enum fwpt_status fwpt_pkt_next_edge(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
{
    if (dec->segs)
        seg_window(dec);
    if (dec->offset >= dec->window_end)
        fwpt_pkt_window(dec);
    if (__builtin_expect(dec->errata != 0, 0) && dec->offset < dec->len && errata_packet(dec, pkt)) {
        dec->run_end = dec->offset;
        return FWPT_OK;
    }
    enum fwpt_status s = FWPT_OK;
    if (!(!dec->block_item_bytes && fwpt_pkt_fast_one(dec->buf, dec->len, &dec->offset, &dec->last_ip, pkt)))
        s = fwpt_pkt_next_slow(dec, pkt);
    dec->run_end = dec->offset;
    return s;
}

void fwpt_pkt_init(struct fwpt_pkt_decoder *dec, const uint8_t *buf, size_t len)
{
    dec->buf = buf;
    dec->len = dec->total = buf ? len : 0;
    dec->lim = dec->len >= 15 ? dec->len - 15 : 0;
    dec->win_lo = 0;
    dec->segs = NULL;
    dec->nsegs = dec->seg = 0;
    dec->stitched = 0;
    dec->seg_lo = 0;
    dec->offset = 0;
    dec->sync_offset = FWPT_PKT_NO_SYNC;
    dec->last_ip = 0;
    dec->block_item_bytes = 0;
    dec->errata = 0;
    dec->lean_fails = 0;
    dec->run_hist = 0;
    fwpt_memset(dec->run_pred, 0xff, sizeof dec->run_pred); /* no run length predicted yet */
    lean_trial(dec);
}

void fwpt_pkt_init_segs(struct fwpt_pkt_decoder *dec, const struct fwpt_pkt_seg *segs, uint32_t n)
{
    size_t total = 0;
    for (uint32_t k = 0; k < n; k++)
        total += segs[k].len;
    fwpt_pkt_init(dec, NULL, 0);
    if (!n)
        return;
    dec->segs = segs;
    dec->nsegs = n;
    dec->total = total;
    dec->len = 0; /* no window yet: seg_window picks one */
    seg_window(dec);
    lean_trial(dec);
}

enum fwpt_status fwpt_pkt_sync_set(struct fwpt_pkt_decoder *dec, size_t offset)
{
    if (offset > dec->total)
        return FWPT_E_EOS;
    dec->offset = offset;
    if (dec->segs)
        seg_window(dec);
    dec->sync_offset = offset;
    dec->last_ip = 0;
    dec->block_item_bytes = 0;
    lean_trial(dec);
    return FWPT_OK;
}

static void synced_at(struct fwpt_pkt_decoder *dec, size_t psb)
{
    dec->offset = psb;
    if (dec->segs)
        seg_window(dec);
    dec->sync_offset = psb;
    dec->last_ip = 0; /* SDM: Last IP is reset to zero at PSB */
    dec->block_item_bytes = 0;
    lean_trial(dec);
}

static inline bool is_pair(const uint8_t *b, size_t len, size_t i)
{
    return i + 1 < len && b[i] == OPC_EXT && b[i + 1] == EXT_PSB;
}

/* The maximal run of "02 82" pairs containing the pattern word at w: [*start, *end). */
static void psb_run(const uint8_t *b, size_t len, size_t w, size_t *start, size_t *end)
{
    size_t s = b[w] == OPC_EXT ? w : w + 1; /* the word is 02 82.. or 82 02.. */
    size_t e = s;
    while (is_pair(b, len, e))
        e += 2;
    while (s >= 2 && is_pair(b, len, s - 2))
        s -= 2;
    *start = s;
    *end = e;
}

static inline bool psb_word(const uint8_t *b, size_t w)
{
    uint64_t v = *(const u64_unaligned *)(b + w);
    return v == PSB_PATTERN || v == (PSB_PATTERN >> 8 | (uint64_t)OPC_EXT << 56); /* 02 82.. or 82 02.. */
}

/* Every PSB holds an 8-byte word of its pattern at any 8-aligned offset, so words are enough to find it.
 * A run of 02 82 pairs longer than a PSB is ambiguous at its start: its PSB is its last 16 bytes. */
static bool find_psb_forward(const uint8_t *b, size_t len, size_t from, size_t *psb)
{
    if (len < PSB_SIZE)
        return false;
    for (size_t w = from & ~(size_t)7; w + 8 <= len;) {
        if (!psb_word(b, w)) {
            w += 8;
            continue;
        }
        size_t s, e;
        psb_run(b, len, w, &s, &e);
        if (e - s >= PSB_SIZE && e - PSB_SIZE >= from) {
            *psb = e - PSB_SIZE;
            return true;
        }
        size_t next = e & ~(size_t)7;
        w = next > w + 8 ? next : w + 8;
    }
    return false;
}

static bool find_psb_backward(const uint8_t *b, size_t len, size_t before, size_t *psb)
{
    if (len < PSB_SIZE || before == 0)
        return false;
    /* A PSB starting below 'before' has its aligned pattern word below before + 7. */
    size_t top = before + 6 < len - 8 ? before + 6 : len - 8;
    for (size_t w = top & ~(size_t)7;;) {
        if (psb_word(b, w)) {
            size_t s, e;
            psb_run(b, len, w, &s, &e);
            if (e - s >= PSB_SIZE && e - PSB_SIZE < before) {
                *psb = e - PSB_SIZE;
                return true;
            }
            size_t below = s & ~(size_t)7;
            if (below < 8)
                return false;
            w = below - 8 < w ? below - 8 : w - 8;
            continue;
        }
        if (w < 8)
            return false;
        w -= 8;
    }
}

/* The PSB searches over a trace in pieces: the same searches over copies of SEARCH bytes (and 64 more: a PSB
 * or a run of 02 82 pairs that starts in one copy ends in it). */
enum { SEARCH = 4096 };

static bool seg_find_forward(const struct fwpt_pkt_decoder *dec, size_t from, size_t *psb)
{
    uint8_t tmp[SEARCH + 64];
    for (size_t lo = from; lo < dec->total; lo += SEARCH) {
        size_t n = fwpt_pkt_bytes(dec, lo, tmp, sizeof tmp), rel;
        if (find_psb_forward(tmp, n, 0, &rel) && rel < SEARCH) {
            *psb = lo + rel;
            return true;
        }
        if (n < sizeof tmp)
            break;
    }
    return false;
}

static bool seg_find_backward(const struct fwpt_pkt_decoder *dec, size_t before, size_t *psb)
{
    uint8_t tmp[SEARCH + 64];
    for (size_t hi = before; hi > 0;) {
        size_t lo = hi > SEARCH ? hi - SEARCH : 0, rel;
        size_t n = fwpt_pkt_bytes(dec, lo, tmp, hi - lo + 64);
        if (find_psb_backward(tmp, n, hi - lo, &rel)) {
            *psb = lo + rel;
            return true;
        }
        hi = lo;
    }
    return false;
}

enum fwpt_status fwpt_pkt_sync_forward(struct fwpt_pkt_decoder *dec)
{
    size_t from = dec->offset;
    if (from == dec->sync_offset)
        from += PSB_SIZE; /* already synchronized here: the next one */
    /* A PSB partly swallowed by a corrupt packet before it starts up to 15 bytes back (as libipt). */
    from = from > PSB_SIZE - 1 ? from - (PSB_SIZE - 1) : 0;
    size_t psb = 0;
    if (from > dec->total ||
        !(dec->segs ? seg_find_forward(dec, from, &psb) : find_psb_forward(dec->buf, dec->len, from, &psb)))
        return FWPT_E_NOSYNC;
    synced_at(dec, psb);
    return FWPT_OK;
}

enum fwpt_status fwpt_pkt_sync_backward(struct fwpt_pkt_decoder *dec)
{
    size_t before = dec->sync_offset == FWPT_PKT_NO_SYNC ? dec->total : dec->offset;
    size_t psb = 0;
    if (!(dec->segs ? seg_find_backward(dec, before, &psb) : find_psb_backward(dec->buf, dec->len, before, &psb)))
        return FWPT_E_NOSYNC;
    synced_at(dec, psb);
    return FWPT_OK;
}

static const char *const type_names[FWPT_PKT_COUNT] = {
    [FWPT_PKT_NONE] = "none",       [FWPT_PKT_PAD] = "pad",         [FWPT_PKT_PSB] = "psb",
    [FWPT_PKT_PSBEND] = "psbend",   [FWPT_PKT_TNT_8] = "tnt.8",     [FWPT_PKT_TNT_64] = "tnt.64",
    [FWPT_PKT_TIP] = "tip",         [FWPT_PKT_TIP_PGE] = "tip.pge", [FWPT_PKT_TIP_PGD] = "tip.pgd",
    [FWPT_PKT_FUP] = "fup",         [FWPT_PKT_PIP] = "pip",         [FWPT_PKT_MODE_EXEC] = "mode.exec",
    [FWPT_PKT_MODE_TSX] = "mode.tsx", [FWPT_PKT_STOP] = "stop",     [FWPT_PKT_CBR] = "cbr",
    [FWPT_PKT_TSC] = "tsc",         [FWPT_PKT_MTC] = "mtc",         [FWPT_PKT_TMA] = "tma",
    [FWPT_PKT_CYC] = "cyc",         [FWPT_PKT_VMCS] = "vmcs",       [FWPT_PKT_OVF] = "ovf",
    [FWPT_PKT_MNT] = "mnt",         [FWPT_PKT_PTW] = "ptw",         [FWPT_PKT_EXSTOP] = "exstop",
    [FWPT_PKT_MWAIT] = "mwait",     [FWPT_PKT_PWRE] = "pwre",       [FWPT_PKT_PWRX] = "pwrx",
    [FWPT_PKT_BBP] = "bbp",         [FWPT_PKT_BIP] = "bip",         [FWPT_PKT_BEP] = "bep",
    [FWPT_PKT_CFE] = "cfe",         [FWPT_PKT_EVD] = "evd",         [FWPT_PKT_TRIG] = "trig",
    [FWPT_PKT_INVALID] = "invalid",
};

const char *fwpt_pkt_type_name(enum fwpt_pkt_type t)
{
    return (unsigned)t < FWPT_PKT_COUNT ? type_names[t] : "?";
}

static inline enum fwpt_status fail(struct fwpt_packet *pkt, enum fwpt_status s)
{
    pkt->type = FWPT_PKT_NONE;
    pkt->size = 0;
    return s;
}

/* Fills a packet that was decoded completely: advances past it. */
#define DONE(t, n)                                                                                   \
    do {                                                                                             \
        pkt->type = (t);                                                                             \
        pkt->size = (uint8_t)(n);                                                                    \
        dec->offset = off + (n);                                                                     \
        return FWPT_OK;                                                                              \
    } while (0)

/* Packets that end a block (everything but BIP and timing/power packets; as Linux perf's decoder). */
#define END_BLOCK() (dec->block_item_bytes = 0)


/* Every packet, including the ones the fast path handles; called when the fast path does not apply. */
enum fwpt_status fwpt_pkt_next_slow(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
{
    size_t off = dec->offset;
    pkt->offset = off;
    if (off >= dec->len)
        return fail(pkt, FWPT_E_EOS);
    const uint8_t *p = dec->buf + off;
    size_t avail = dec->len - off;
    unsigned b = p[0];

    if (__builtin_expect(dec->block_item_bytes != 0, 0) && (b & OPM_BIP) == OPC_BIP) {
        /* SDM "Block Item Packet": inside a block, xxxxx100b is a BIP, not a short TNT. */
        unsigned n = dec->block_item_bytes;
        if (avail < 1 + n)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->bip.id = (uint8_t)(b >> BIP_ID_SHIFT);
        pkt->bip.bytes = (uint8_t)n;
        pkt->bip.value = read_le(p + 1, avail - 1, n);
        DONE(FWPT_PKT_BIP, 1 + n);
    }

    uint8_t type;
    /* one dispatch for every opcode: extended ones by their second byte (02h alone: truncated) */
    unsigned ext = p[avail > 1];
    unsigned kind = first_kind[b], xkind = avail > 1 ? ext_kind[ext] : X_SHORT;
    kind = kind == K_EXT ? xkind : kind;
    switch (kind) {
    case K_TNT: {
        unsigned t = tnt8_table[b >> TNT8_SHIFT];
        pkt->tnt.bits = t & 0xff;
        pkt->tnt.count = (uint8_t)(t >> 8);
        END_BLOCK();
        DONE(FWPT_PKT_TNT_8, 1);
    }
    case K_PAD:
        DONE(FWPT_PKT_PAD, 1);
    case K_TIP:
        type = FWPT_PKT_TIP;
        END_BLOCK();
        goto ip_packet;
    case K_PGE:
        type = FWPT_PKT_TIP_PGE;
        END_BLOCK();
        goto ip_packet;
    case K_PGD:
        type = FWPT_PKT_TIP_PGD;
        END_BLOCK();
        goto ip_packet;
    case K_FUP:
        type = FWPT_PKT_FUP;
    ip_packet: {
        unsigned ipc = b >> IPBYTES_SHIFT;
        int n = ip_payload_bytes[ipc];
        if (n < 0)
            return fail(pkt, FWPT_E_BAD_IPC);
        if (avail < (size_t)n + 1)
            return fail(pkt, FWPT_E_TRUNCATED);
        uint64_t payload = n ? read_le(p + 1, avail - 1, (unsigned)n) : 0;
        uint64_t ip;
        if (ipc == FWPT_IPC_SEXT_48)
            ip = sext48(payload);
        else
            ip = (dec->last_ip & ip_keep_mask[ipc]) | payload;
        dec->last_ip = ip; /* unchanged for 000b: keep mask is all ones and the payload is 0 */
        pkt->ip.ipc = (uint8_t)ipc;
        pkt->ip.suppressed = ipc == FWPT_IPC_SUPPRESSED;
        pkt->ip.ip = ipc == FWPT_IPC_SUPPRESSED ? 0 : ip;
        pkt->ip.payload = payload;
        DONE(type, 1 + n);
    }
    case K_CYC: {
        /* SDM "CYC Packet Definition": each byte with Exp set adds one more; no limit on their number */
        uint64_t value = b >> CYC_SHIFT;
        size_t n = 1;
        if (b & CYC_EXP) {
            unsigned shift = 8 - CYC_SHIFT;
            for (;;) {
                if (n >= avail)
                    return fail(pkt, FWPT_E_TRUNCATED);
                if (n >= CYC_MAX_SIZE)
                    return fail(pkt, FWPT_E_TOO_LONG);
                unsigned x = p[n++];
                if (shift < CYC_VALUE_BITS)
                    value |= (uint64_t)(x >> CYCX_SHIFT) << shift; /* bits past 63 drop out */
                shift += 8 - CYCX_SHIFT;
                if (!(x & CYCX_EXP))
                    break;
            }
        }
        pkt->cyc.value = value;
        DONE(FWPT_PKT_CYC, n);
    }
    case X_PSB:
        if (avail < PSB_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        if (*(const u64_unaligned *)p != PSB_PATTERN || *(const u64_unaligned *)(p + 8) != PSB_PATTERN)
            return fail(pkt, FWPT_E_BAD_PACKET);
        dec->last_ip = 0; /* SDM: Last IP is reset to zero at PSB */
        END_BLOCK();
        DONE(FWPT_PKT_PSB, PSB_SIZE);
    case X_PSBEND:
        END_BLOCK();
        DONE(FWPT_PKT_PSBEND, PSBEND_SIZE);
    case X_OVF:
        END_BLOCK();
        DONE(FWPT_PKT_OVF, OVF_SIZE);
    case X_STOP:
        END_BLOCK();
        DONE(FWPT_PKT_STOP, STOP_SIZE);
    case X_TNT64: {
        if (avail < TNT_64_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        uint64_t payload = read_le(p + 2, avail - 2, 6);
        if (payload <= 1)
            return fail(pkt, FWPT_E_BAD_PACKET); /* no stop bit, or no TNT bit before it (as libipt) */
        unsigned count = 63u - (unsigned)__builtin_clzll(payload);
        pkt->tnt.count = (uint8_t)count;
        pkt->tnt.bits = fwpt_bit_reverse64(payload) >> (64 - count);
        END_BLOCK();
        DONE(FWPT_PKT_TNT_64, TNT_64_SIZE);
    }
    case X_CBR:
        if (avail < CBR_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->cbr.ratio = p[2];
        DONE(FWPT_PKT_CBR, CBR_SIZE);
    case X_PIP: {
        if (avail < PIP_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        uint64_t payload = read_le(p + 2, avail - 2, 6);
        pkt->pip.nr = (payload & PIP_NR) != 0;
        pkt->pip.cr3 = (payload & ~(uint64_t)PIP_NR) << PIP_CR3_SHIFT;
        END_BLOCK();
        DONE(FWPT_PKT_PIP, PIP_SIZE);
    }
    case X_VMCS:
        if (avail < VMCS_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->vmcs.base = read_le(p + 2, avail - 2, 5) << VMCS_SHIFT;
        END_BLOCK();
        DONE(FWPT_PKT_VMCS, VMCS_SIZE);
    case X_TMA:
        if (avail < TMA_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        /* SDM TMA: byte 2-3 CTC[15:0], byte 4 reserved, byte 5-6 FastCounter[8:0] (reserved bits ignored:
         * "Packet bits listed as RSVD are not guaranteed to be 0") */
        pkt->tma.ctc = (uint16_t)(p[2] | p[3] << 8);
        pkt->tma.fc = (uint16_t)((p[5] | p[6] << 8) & TMA_FC_MASK);
        DONE(FWPT_PKT_TMA, TMA_SIZE);
    case X_EXT2:
        if (avail < 3)
            return fail(pkt, FWPT_E_TRUNCATED);
        if (p[2] != EXT2_MNT)
            return fail(pkt, FWPT_E_BAD_OPCODE);
        if (avail < MNT_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->mnt.payload = read_le(p + 3, avail - 3, 8);
        DONE(FWPT_PKT_MNT, MNT_SIZE);
    case X_EXSTOP:
        pkt->exstop.ip = (ext & EXT_IP) != 0;
        DONE(FWPT_PKT_EXSTOP, EXSTOP_SIZE);
    case X_MWAIT:
        if (avail < MWAIT_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->mwait.hints = (uint32_t)read_le(p + 2, avail - 2, 4);
        pkt->mwait.ext = (uint32_t)read_le(p + 6, avail - 6, 4);
        END_BLOCK();
        DONE(FWPT_PKT_MWAIT, MWAIT_SIZE);
    case X_PWRE:
        if (avail < PWRE_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->pwre.hw = (p[2] & PWRE_HW) != 0;
        pkt->pwre.state = (uint8_t)(p[3] >> 4);
        pkt->pwre.sub_state = (uint8_t)(p[3] & NIBBLE);
        DONE(FWPT_PKT_PWRE, PWRE_SIZE);
    case X_PWRX:
        if (avail < PWRX_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->pwrx.last = (uint8_t)(p[2] >> PWRX_LAST_SHIFT);
        pkt->pwrx.deepest = (uint8_t)(p[2] & NIBBLE);
        pkt->pwrx.wake_reason = (uint8_t)(p[3] & NIBBLE);
        DONE(FWPT_PKT_PWRX, PWRX_SIZE);
    case X_BBP: {
        if (avail < BBP_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        unsigned sz = (p[2] & BBP_SZ) != 0;
        pkt->bbp.sz = (uint8_t)sz;
        pkt->bbp.type = (uint8_t)(p[2] & BBP_TYPE);
        pkt->bbp.item_bytes = sz ? 4 : 8; /* SDM BBP: SZ=1 4-byte, SZ=0 8-byte block items */
        dec->block_item_bytes = pkt->bbp.item_bytes;
        DONE(FWPT_PKT_BBP, BBP_SIZE);
    }
    case X_BEP:
        pkt->bep.ip = (ext & EXT_IP) != 0;
        END_BLOCK();
        DONE(FWPT_PKT_BEP, BEP_SIZE);
    case X_CFE:
        if (avail < CFE_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->cfe.ip = (p[2] & CFE_IP) != 0;
        pkt->cfe.type = (uint8_t)(p[2] & CFE_TYPE);
        pkt->cfe.vector = p[3];
        END_BLOCK();
        DONE(FWPT_PKT_CFE, CFE_SIZE);
    case X_EVD:
        if (avail < EVD_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->evd.type = (uint8_t)(p[2] & EVD_TYPE);
        pkt->evd.payload = read_le(p + 3, avail - 3, 8);
        END_BLOCK();
        DONE(FWPT_PKT_EVD, EVD_SIZE);
    case X_PTW: {
            unsigned plc = (ext >> PTW_PLC_SHIFT) & PTW_PLC_MASK;
            if (plc > 1)
                return fail(pkt, FWPT_E_BAD_PACKET); /* SDM PTW: PayloadBytes 10b, 11b reserved */
            unsigned n = plc ? 8 : 4;
            if (avail < PTW_HDR_SIZE + n)
                return fail(pkt, FWPT_E_TRUNCATED);
            pkt->ptw.payload = read_le(p + 2, avail - 2, n);
            pkt->ptw.bytes = (uint8_t)n;
            pkt->ptw.plc = (uint8_t)plc;
            pkt->ptw.ip = (ext & EXT_IP) != 0;
            END_BLOCK();
            DONE(FWPT_PKT_PTW, PTW_HDR_SIZE + n);
        }
    case X_SHORT:
        return fail(pkt, FWPT_E_TRUNCATED);
    case K_TSC:
        if (avail < TSC_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->tsc.tsc = read_le(p + 1, avail - 1, TSC_SIZE - 1);
        DONE(FWPT_PKT_TSC, TSC_SIZE);
    case K_MTC:
        if (avail < MTC_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->mtc.ctc = p[1];
        DONE(FWPT_PKT_MTC, MTC_SIZE);
    case K_MOD: {
        if (avail < MODE_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        unsigned m = p[1];
        END_BLOCK();
        if ((m & MODE_LEAF) == MODE_LEAF_EXEC) {
            bool csl = m & MODE_EXEC_CSL, csd = m & MODE_EXEC_CSD;
            pkt->mode_exec.csl = csl;
            pkt->mode_exec.csd = csd;
            pkt->mode_exec.iflag = (m & MODE_EXEC_IF) != 0;
            /* SDM MODE.Exec: CS.L=1 -> 64-bit (CS.D must be 0), else CS.D selects 32/16 */
            pkt->mode_exec.mode = csl ? (csd ? FWPT_MODE_UNKNOWN : FWPT_MODE_64) : (csd ? FWPT_MODE_32 : FWPT_MODE_16);
            DONE(FWPT_PKT_MODE_EXEC, MODE_SIZE);
        }
        if ((m & MODE_LEAF) == MODE_LEAF_TSX) {
            pkt->mode_tsx.intx = (m & MODE_TSX_INTX) != 0;
            pkt->mode_tsx.abrt = (m & MODE_TSX_ABRT) != 0;
            DONE(FWPT_PKT_MODE_TSX, MODE_SIZE);
        }
        return fail(pkt, FWPT_E_BAD_PACKET);
    }
    case K_TRIG: {
        /* SDM "TRIG Packet Definition": D9h, flags, TRBV, and ICNT[15:0] when ICNTV is set */
        if (avail < TRIG_SIZE)
            return fail(pkt, FWPT_E_TRUNCATED);
        unsigned f = p[1], n = f & TRIG_ICNTV ? TRIG_ICNT_SIZE : TRIG_SIZE;
        if (avail < n)
            return fail(pkt, FWPT_E_TRUNCATED);
        pkt->trig.trbv = p[2];
        pkt->trig.ip = (f & TRIG_IP) != 0;
        pkt->trig.mult = (f & TRIG_MULT) != 0;
        pkt->trig.icntv = (f & TRIG_ICNTV) != 0;
        pkt->trig.icnt = (uint16_t)(f & TRIG_ICNTV ? p[3] | p[4] << 8 : 0);
        END_BLOCK();
        DONE(FWPT_PKT_TRIG, n);
    }
    default:
        return fail(pkt, FWPT_E_BAD_OPCODE);
    }
}

/* The fast path's table for 02 xx and 99 xx (struct fwpt_pkt_ext_fast in packet.h), built from the same packet
 * rules as the slow path below; tests/unit/test_packet_fast checks every entry against fwpt_pkt_next_slow. */
#define R4(F, n) F(n), F((n) + 1), F((n) + 2), F((n) + 3)
#define R16(F, n) R4(F, n), R4(F, (n) + 4), R4(F, (n) + 8), R4(F, (n) + 12)
#define R64(F, n) R16(F, n), R16(F, (n) + 16), R16(F, (n) + 32), R16(F, (n) + 48)
#define R256(F) R64(F, 0), R64(F, 64), R64(F, 128), R64(F, 192)

/* n bytes of ones (n <= 8; two shifts keep n == 8 defined) */
#define BYTES_MASK(n) (((1ull << (4 * (n))) << (4 * (n))) - 1)

/* after 02h (SDM packet tables; PTW: bits 4:0 = 12h, PayloadBytes 6:5 = 00b or 01b, IP bit 7) */
#define X_PTWOK(x) (((x) & OPM_EXT_PTW) == EXT_PTW && (((x) >> PTW_PLC_SHIFT) & PTW_PLC_MASK) <= 1)
#define X_PTWN(x) (((x) >> PTW_PLC_SHIFT) & 1 ? 8 : 4)
#define X_IPBIT(x) (((x) & EXT_IP) != 0)
#define X_EXSTOP(x) (((x) & ~EXT_IP) == EXT_EXSTOP)
#define X_BEP(x) (((x) & ~EXT_IP) == EXT_BEP)
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

/* fwpt_pkt_fast_table's size column plus the two-byte CYC with Exp (size 2, valid only when byte 1 has Exp
 * clear), indexed by the byte itself: the inline fast path's own size column. */
const uint8_t fwpt_pkt_fast_len[256] = {
    1, 1, 0, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 1, 1, 2, /* 00 */
    1, 3, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 3, 1, 2, 1, 3, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 3, 1, 2, /* 20 */
    1, 5, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 5, 1, 2, 1, 5, 1, 1, 1, 0, 1, 2, 1, 2, 1, 1, 1, 5, 1, 2, /* 40 */
    1, 7, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 7, 1, 2, 1, 7, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 7, 1, 2, /* 60 */
    1, 7, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 7, 1, 2, 1, 7, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 7, 1, 2, /* 80 */
    1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, /* a0 */
    1, 9, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 9, 1, 2, 1, 9, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 9, 1, 2, /* c0 */
    1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, /* e0 */
};

/* PAD and short TNT (SDM "TNT Packet Definition": the stop bit is the highest set bit, B1 just below it) */
#define TNT8_N(b) \
    ((b) >= 0x80 ? 6 : (b) >= 0x40 ? 5 : (b) >= 0x20 ? 4 : (b) >= 0x10 ? 3 : (b) >= 0x08 ? 2 : (b) >= 0x04 ? 1 : 0)
/* B(i+1), bit N - i of the header, as bit i (& 7: a shift count never negative, in the branch not taken too) */
#define TNT8_B(b, i) (TNT8_N(b) > (i) ? (uint64_t)(((b) >> ((TNT8_N(b) - (i)) & 7)) & 1) << (i) : 0)
#define TNT8_BITS(b) (TNT8_B(b, 0) | TNT8_B(b, 1) | TNT8_B(b, 2) | TNT8_B(b, 3) | TNT8_B(b, 4) | TNT8_B(b, 5))
#define ONE_IMAGE(b) {(b) == OPC_PAD ? FWPT_PKT_PAD | 1u << 8                                                     \
                      : ((b) & 1) == 0 && (b) != OPC_EXT ? FWPT_PKT_TNT_8 | 1u << 8 : 0,                       \
                      ((b) & 1) == 0 && (b) != OPC_EXT ? TNT8_N(b) : 0,                                         \
                      ((b) & 1) == 0 && (b) != OPC_EXT ? TNT8_BITS(b) : 0}
const uint64_t fwpt_pkt_one_image[256][3] = {R256(ONE_IMAGE)};
/* the image's layout: type and size in bytes 8 and 9 (little-endian), tnt.count at 16, tnt.bits at 24 */
_Static_assert(offsetof(struct fwpt_packet, type) == 8 && offsetof(struct fwpt_packet, size) == 9 &&
                   offsetof(struct fwpt_packet, tnt.count) == 16 && offsetof(struct fwpt_packet, tnt.bits) == 24,
               "fwpt_pkt_one_image matches struct fwpt_packet");

#define CYCX1(b) (((b) & 7) == 7)
const uint8_t fwpt_pkt_fast_cycx[256] = {R256(CYCX1)};

/* Designs measured on bench_packet and not faster than the loops below: docs/performance.md. */

/* fwpt_pkt_next_batch's runs between window ends, state in locals: packets from *pp into q..qe while they start
 * before pe (16 readable bytes) and the fast path takes them; each loop its own function, its own registers. */
#define BATCH_RUN(name, lean)                                                                                     \
    static __attribute__((noinline)) struct fwpt_packet *name(const uint8_t *buf, const uint8_t **pp,              \
                                                              const uint8_t *pe, uint64_t *lip,                    \
                                                              struct fwpt_packet *q, struct fwpt_packet *qe)       \
    {                                                                                                             \
        const uint8_t *p = *pp;                                                                                   \
        uint64_t last_ip = *lip;                                                                                  \
        while (q < qe && p < pe) {                                                                                \
            /* a packet is at most 16 bytes (PSB): the next k start before pe, no check inside */                 \
            size_t k = (size_t)(pe - 1 - p) / 16 + 1;                                                            \
            struct fwpt_packet *qk = (size_t)(qe - q) < k ? qe : q + k;                                          \
            do {                                                                                                  \
                unsigned size;                                                                                    \
                if ((lean) && __builtin_expect(fwpt_pkt_is_one_even(*p), 1)) {                                  \
                    fwpt_pkt_fast_one_even(*p, (size_t)(p - buf), q);                                             \
                    size = 1;                                                                                     \
                } else {                                                                                          \
                    size = (lean) ? fwpt_pkt_fast_lean_other(p, (size_t)(p - buf), &last_ip, q)                 \
                                  : fwpt_pkt_fast_at16(p, (size_t)(p - buf), &last_ip, q);                        \
                    if (__builtin_expect(size == 0, 0))                                                           \
                        goto out; /* the slow path's */                                                           \
                }                                                                                                 \
                p += size;                                                                                        \
                q++;                                                                                              \
            } while (q < qk);                                                                                     \
        }                                                                                                         \
    out:                                                                                                          \
        *pp = p;                                                                                                  \
        *lip = last_ip;                                                                                           \
        return q;                                                                                                 \
    }
BATCH_RUN(batch_run_full, 0)
BATCH_RUN(batch_run_lean, 1)

size_t fwpt_pkt_next_batch(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkts, size_t n,
                           enum fwpt_status *status)
{
    struct fwpt_packet *q = pkts, *qe = pkts + n;
    while (q < qe) {
        const uint8_t *buf = dec->buf; /* a trace in pieces: fwpt_pkt_next below may move the window */
        uint8_t lean = dec->lean;
        /* errata: fast_end is 0, no run to try */
        if (__builtin_expect(!dec->block_item_bytes && !(lean & FWPT_PKT_LEAN_TRIAL) && !dec->errata, 1)) {
            /* a pointer, not an offset: the header load needs no buf + off add on the offset chain */
            const uint8_t *p = buf + dec->offset;
            q = (lean ? batch_run_lean : batch_run_full)(buf, &p, buf + dec->fast_end, &dec->last_ip, q, qe);
            dec->offset = dec->run_end = (size_t)(p - buf);
            if (q == qe)
                break;
        }
        /* one packet the way fwpt_pkt_next goes: window ends, trials, the trace's end, blocks, the slow path */
        enum fwpt_status s = fwpt_pkt_next(dec, q);
        if (s != FWPT_OK) {
            *status = s; /* the decoder stays at the failing packet */
            return (size_t)(q - pkts);
        }
        q++;
    }
    *status = FWPT_OK;
    return (size_t)(q - pkts);
}
