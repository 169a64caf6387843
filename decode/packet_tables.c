/* fwpt — the packet decoder's tables (SDM Vol. 3C, "Packet Definitions"): the slow path's classes by byte 0
 * and by the byte after 02h, and the inline fast path's tables (decode/packet_fast.h). */
#include "decode/packet_defs.h"

/* Generated: the byte after 02h (SDM packet tables; PTW: bits 4:0 = 12h). */
const uint8_t fwpt_pkt_ext_kind[256] = {
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
const uint8_t fwpt_pkt_first_kind[256] = {
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

/* Short TNT (decode/packet_defs.h) */
const uint16_t fwpt_pkt_tnt8[128] = {
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

/* Fast path (fwpt_pkt_next in packet_fast.h): one 8-byte entry per first byte for PAD, short TNT, one-byte CYC,
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

/* The fast path's table for 02 xx and 99 xx (struct fwpt_pkt_ext_fast in packet_fast.h), built from the same packet
 * rules as the slow path (decode/packet.c); tests/unit/test_packet_fast checks every entry against fwpt_pkt_next_slow. */
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
