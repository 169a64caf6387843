/* fwpt — Intel PT packets in the SDM's words (SDM Vol. 3C, "Packet Definitions"): header bytes, fields and
 * sizes, the classes the slow path dispatches on, and what the decode/packet*.c files share.
 * Private to decode/packet*.c: nothing else includes it. */
#ifndef FWPT_DECODE_PACKET_DEFS_H
#define FWPT_DECODE_PACKET_DEFS_H

#include "decode/packet.h"

/* Header bytes and fields, in the SDM's words (the packet tables of SDM Vol. 3C, "Packet Definitions"). */
enum {
    OPC_PAD = 0x00,
    OPC_EXT = 0x02,            /* extended opcodes: the second byte selects the packet */
    OPM_IP_TYPE = 0x1f,        /* FUP/TIP*: bits 4:0 are the opcode ... */
    IPBYTES_SHIFT = 5,         /* ... bits 7:5 are IPBytes */
    OPC_TIP = 0x0d,
    OPC_TIP_PGE = 0x11,
    OPC_TIP_PGD = 0x01,
    OPC_FUP = 0x1d,
    OPC_TSC = 0x19,
    OPC_MTC = 0x59,
    OPC_MODE = 0x99,
    OPC_TRIG = 0xd9,
    TRIG_IP = 0x80,            /* TRIG byte 1: IP bit 7, ICNTV bit 6, MULT bit 5; byte 2 TRBV; bytes 3-4 ICNT */
    TRIG_ICNTV = 0x40,
    TRIG_MULT = 0x20,
    OPM_TNT8 = 0x01,           /* short TNT: bit 0 is 0 (00h is PAD, 02h the extended opcodes), ... */
    TNT8_SHIFT = 1,            /* ... bits 7:1 hold B1..BN and the stop bit */
    OPM_CYC = 0x03,            /* CYC: bits 1:0 = 11b */
    OPC_CYC = 0x03,
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

/* First-byte classes, then second-byte classes of the extended opcodes: one switch dispatches all
 * (decode/packet_tables.c builds the two tables from the header bits). */
enum {
    K_BAD, K_PAD, K_TNT, K_EXT, K_TIP, K_PGE, K_PGD, K_FUP, K_CYC, K_TSC, K_MTC, K_MOD, K_TRIG,
    X_PSB, X_PSBEND, X_OVF, X_STOP, X_TNT64, X_CBR, X_PIP, X_VMCS, X_TMA, X_EXT2,
    X_EXSTOP, X_MWAIT, X_PWRE, X_PWRX, X_BBP, X_BEP, X_CFE, X_EVD, X_PTW, X_BAD, X_SHORT
};
extern const uint8_t fwpt_pkt_first_kind[256]; /* by byte 0: K_* */
extern const uint8_t fwpt_pkt_ext_kind[256];   /* by the byte after 02h: X_* */

typedef uint64_t u64_unaligned __attribute__((aligned(1), may_alias));

/* ---- shared by decode/packet.c (slow path, API, the one-byte path's trials) and decode/packet_sync.c ---- */

/* dec->fast_end from window_end, lim and errata (decode/packet.c). */
void fwpt_pkt_set_fast_end(struct fwpt_pkt_decoder *dec);

/* Start a trial of the one-byte path at dec->offset (decode/packet.c). */
void fwpt_pkt_lean_trial(struct fwpt_pkt_decoder *dec);

/* A trace in pieces: point the window at dec->offset (decode/packet_sync.c). */
void fwpt_pkt_seg_window(struct fwpt_pkt_decoder *dec);

#endif
