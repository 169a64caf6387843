/* fwpt — Intel PT packet decoder (SDM Vol. 3C, "Trace Packets and Data Types": packet definitions).
 * Freestanding: no allocation, no libc; the trace is read where it lies and the caller owns the state.
 *
 * Usage:
 *     struct fwpt_pkt_decoder dec;
 *     struct fwpt_packet pkt;
 *     fwpt_pkt_init(&dec, buf, len);
 *     fwpt_pkt_sync_forward(&dec);                  // first PSB (or fwpt_pkt_sync_set(&dec, 0))
 *     for (;;) {
 *         enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
 *         if (s == FWPT_E_EOS) break;
 *         if (s != FWPT_OK) {                       // pkt.offset == dec.offset == where it failed
 *             if (fwpt_pkt_sync_forward(&dec) != FWPT_OK) break;   // next PSB after the error
 *             continue;
 *         }
 *         ... use pkt ...
 *     }
 *
 * The decoder is a plain value: copy the struct to look ahead, and copy it back (or not).
 */
#ifndef FWPT_DECODE_PACKET_H
#define FWPT_DECODE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "decode/insn.h" /* enum fwpt_exec_mode */

enum fwpt_pkt_type {
    FWPT_PKT_NONE = 0, /* no packet (set on error) */
    FWPT_PKT_PAD,
    FWPT_PKT_PSB,
    FWPT_PKT_PSBEND,
    FWPT_PKT_TNT_8,    /* short TNT */
    FWPT_PKT_TNT_64,   /* long TNT */
    FWPT_PKT_TIP,
    FWPT_PKT_TIP_PGE,
    FWPT_PKT_TIP_PGD,
    FWPT_PKT_FUP,
    FWPT_PKT_PIP,
    FWPT_PKT_MODE_EXEC,
    FWPT_PKT_MODE_TSX,
    FWPT_PKT_STOP,     /* TraceStop */
    FWPT_PKT_CBR,
    FWPT_PKT_TSC,
    FWPT_PKT_MTC,
    FWPT_PKT_TMA,
    FWPT_PKT_CYC,
    FWPT_PKT_VMCS,
    FWPT_PKT_OVF,
    FWPT_PKT_MNT,
    FWPT_PKT_PTW,
    FWPT_PKT_EXSTOP,
    FWPT_PKT_MWAIT,
    FWPT_PKT_PWRE,
    FWPT_PKT_PWRX,
    FWPT_PKT_BBP,
    FWPT_PKT_BIP,
    FWPT_PKT_BEP,
    FWPT_PKT_CFE,
    FWPT_PKT_EVD,
    FWPT_PKT_TRIG,     /* trigger tracing */
    FWPT_PKT_INVALID,  /* bytes an erratum says the processor corrupted, skipped as one unit (SKZ84) */
    FWPT_PKT_COUNT
};

/* IPBytes of FUP/TIP/TIP.PGE/TIP.PGD (SDM Table "FUP/TIP IP Reconstruction"). 101b and 111b are reserved. */
enum fwpt_ipc {
    FWPT_IPC_SUPPRESSED = 0, /* 000b: no payload, IP out of context, Last IP unchanged */
    FWPT_IPC_UPDATE_16 = 1,  /* 001b: Last IP[63:16] : payload[15:0] */
    FWPT_IPC_UPDATE_32 = 2,  /* 010b: Last IP[63:32] : payload[31:0] */
    FWPT_IPC_SEXT_48 = 3,    /* 011b: payload[47:0] sign-extended from bit 47 */
    FWPT_IPC_UPDATE_48 = 4,  /* 100b: Last IP[63:48] : payload[47:0] */
    FWPT_IPC_FULL = 6,       /* 110b: payload[63:0] */
};

/* One decoded packet. Which member of the union is valid depends on 'type' (noted per member). */
struct fwpt_packet {
    uint64_t offset; /* trace offset of the packet's first byte (also set on error) */
    uint8_t type;    /* enum fwpt_pkt_type; FWPT_PKT_NONE on error */
    uint8_t size;    /* bytes, header included: 1..255 (PSB 16; only a CYC is longer; 0 on error) */
    union {
        /* TIP, TIP_PGE, TIP_PGD, FUP */
        struct {
            uint8_t ipc;        /* IPBytes, enum fwpt_ipc */
            bool suppressed;    /* ipc == 000b: 'ip' is not valid, Last IP unchanged */
            uint64_t ip;        /* the reconstructed IP (0 when suppressed) */
            uint64_t payload;   /* the raw, zero-extended IP payload of 0/2/4/6/8 bytes */
        } ip;
        /* TNT_8, TNT_64: bit i (0 <= i < count) is the i-th branch in EXECUTION order
         * (bit 0 = oldest = B1 of the SDM); 1 = taken. count: TNT_8 1..6, TNT_64 1..47. */
        struct {
            uint8_t count;
            uint64_t bits;
        } tnt;
        /* PIP: cr3 = CR3[51:5] (bits 4:0 zero); nr = the NR (non-root) bit */
        struct {
            uint64_t cr3;
            bool nr;
        } pip;
        /* MODE_EXEC: CS.L, CS.D and (newer SDM) IF; mode derived from CS.L/CS.D
         * (CS.L=1 and CS.D=1 is reserved: mode FWPT_MODE_UNKNOWN) */
        struct {
            bool csl, csd, iflag;
            uint8_t mode; /* enum fwpt_exec_mode: 16, 32, 64 or 0 */
        } mode_exec;
        /* MODE_TSX */
        struct {
            bool intx, abrt;
        } mode_tsx;
        /* TSC: the 56-bit TSC value */
        struct {
            uint64_t tsc;
        } tsc;
        /* CBR: core:bus ratio */
        struct {
            uint8_t ratio;
        } cbr;
        /* MTC: CTC[N+7:N] (8 bits) */
        struct {
            uint8_t ctc;
        } mtc;
        /* TMA: CTC[15:0] and FastCounter[8:0] */
        struct {
            uint16_t ctc;
            uint16_t fc;
        } tma;
        /* CYC: cycle counter, the low 64 bits of its 5 + 7 * (size - 1) bits (the SDM sets no limit on
         * the Exp chain; bits beyond 63 are dropped, as Linux perf does) */
        struct {
            uint64_t value;
        } cyc;
        /* VMCS: the VMCS pointer (payload << 12) */
        struct {
            uint64_t base;
        } vmcs;
        /* MNT: the 64-bit payload */
        struct {
            uint64_t payload;
        } mnt;
        /* PTW: payload of 'bytes' (4 or 8) bytes; ip = a FUP with the PTWRITE IP follows */
        struct {
            uint64_t payload;
            uint8_t bytes;
            uint8_t plc; /* PayloadBytes field: 0 (4 bytes) or 1 (8 bytes) */
            bool ip;
        } ptw;
        /* EXSTOP: ip = a FUP follows */
        struct {
            bool ip;
        } exstop;
        /* MWAIT: 32-bit hints (EAX) and extensions (ECX) fields as in the packet */
        struct {
            uint32_t hints;
            uint32_t ext;
        } mwait;
        /* PWRE: resolved thread C-state/sub C-state (byte 3), HW = byte 2 bit 7 */
        struct {
            uint8_t state;
            uint8_t sub_state;
            bool hw;
        } pwre;
        /* PWRX: last/deepest core C-state (byte 2 [7:4]/[3:0]); wake_reason = byte 3 [3:0]
         * (bit 0 interrupt, bit 1 timer deadline, bit 2 store to monitored address, bit 3 HW wake) */
        struct {
            uint8_t last;
            uint8_t deepest;
            uint8_t wake_reason;
        } pwrx;
        /* BBP: block type and SZ bit; item_bytes = size of the following BIP payloads (SZ=1: 4, SZ=0: 8) */
        struct {
            uint8_t type;
            uint8_t sz;
            uint8_t item_bytes;
        } bbp;
        /* BIP: ID (header bits 7:3) and a 4- or 8-byte value (size from the preceding BBP) */
        struct {
            uint8_t id;
            uint8_t bytes;
            uint64_t value;
        } bip;
        /* BEP: ip = a FUP follows */
        struct {
            bool ip;
        } bep;
        /* CFE: type (byte 2 [4:0]), vector (byte 3), ip = a FUP follows (byte 2 bit 7) */
        struct {
            uint8_t type;
            uint8_t vector;
            bool ip;
        } cfe;
        /* EVD: type (byte 2 [5:0]) and the 64-bit payload */
        struct {
            uint8_t type;
            uint64_t payload;
        } evd;
        /* TRIG: TRBV (byte 2, the triggers that fired), IP (byte 1 bit 7: a FUP follows), MULT (byte 1 bit 5:
         * a trigger fired more than once), ICNTV (byte 1 bit 6: icnt = bytes 3-4 is valid, 5-byte packet) */
        struct {
            uint8_t trbv;
            bool ip, mult, icntv;
            uint16_t icnt;
        } trig;
    };
};

#define FWPT_PKT_NO_SYNC ((size_t)-1)

/* One piece of a trace that lies in several places (the readback's spans: ToPA regions, a wrapped ring),
 * oldest first. The decoder reads each where it lies. */
struct fwpt_pkt_seg {
    const uint8_t *p;
    size_t len;
};

/* A packet that straddles two pieces is read from a copy of the bytes around their boundary: STITCH bytes
 * on each side, more than the longest packet (255 bytes: a longer CYC is FWPT_E_TOO_LONG). */
enum { FWPT_PKT_STITCH = 256 };

/* Caller-owned decoder state. Treat fields as read-only; set them through the functions below.
 * Offsets are trace offsets (from the start of the whole trace, over all pieces). 'buf' + offset is the
 * byte at that offset for offsets in the current window [win_lo, len): the whole trace, a piece, or the
 * copy around a boundary ('stitch'), so buf may point outside the window's memory (never read there). */
struct fwpt_pkt_decoder {
    const uint8_t *buf;  /* the trace, read in place (biased: see above) */
    size_t len;          /* end of the window */
    size_t offset;       /* offset of the next packet; on error: of the packet that failed */
    size_t sync_offset;  /* offset of the PSB last synchronized to, or FWPT_PKT_NO_SYNC */
    uint64_t last_ip;    /* SDM "Last IP": reset to 0 at PSB, updated by IP packets with IPBytes != 000b */
    uint8_t block_item_bytes; /* inside a block (after BBP): BIP payload size 4 or 8; else 0 */
    /* Speed only (the packets are the same either way): fwpt_pkt_next's one-byte path, a branch on the header
     * byte, pays where that branch predicts well (runs of TNT in firmware loops) and costs where packet types
     * follow at random. 'lean' switches it on and off per window of the trace (fwpt_pkt_window). */
    uint8_t lean;        /* FWPT_PKT_LEAN_*; after block_item_bytes: both read as one 16-bit word */
    uint8_t lean_fails;  /* trials failed in a row: the next comes 2^lean_fails times later (up to 32) */
    uint8_t errata;      /* FWPT_PKT_ERRATUM_*: the packet-level errata of the processor (fwpt_pkt_set_errata) */
    size_t window_end;   /* offset where the window ends and 'lean' is decided again */
    size_t fast_end;     /* min(window_end, len - 15): packets before it have 16 readable bytes, same window */
    size_t run_end;      /* trial: offset after the last packet that was not one byte with an even header */
    int64_t credit;      /* trial: one-byte packets, less 4 per run whose length run_pred did not foresee */
    uint32_t run_hist;   /* trial: the lengths of the last three runs (5 bits each, capped at 31) */
    /* Trial: the run length that last followed each run_hist (hashed), a model of the CPU's branch predictor:
     * it learns a repeating pattern of run lengths (5 1 1 5 1 1 0 6 ...), not only a constant one. */
    uint8_t run_pred[256];
    /* A trace in pieces (fwpt_pkt_init_segs); segs NULL: one buffer, window = the whole trace. */
    size_t total;        /* the trace's length */
    size_t lim;          /* fast path limit of the window: packets starting before it have 16 readable
                          * bytes (and, before a boundary, all of theirs) */
    size_t win_lo;       /* start of the window */
    const struct fwpt_pkt_seg *segs;
    uint32_t nsegs, seg; /* pieces; the window's piece (the one before the boundary when stitched) */
    uint8_t stitched;    /* the window is stitch[]: [boundary - STITCH, boundary + STITCH) */
    size_t seg_lo;       /* trace offset of segs[seg] */
    uint8_t stitch[2 * FWPT_PKT_STITCH];
};

/* fwpt_pkt_next reads block_item_bytes and lean as one 16-bit word: they must stay side by side. */
_Static_assert(offsetof(struct fwpt_pkt_decoder, lean) == offsetof(struct fwpt_pkt_decoder, block_item_bytes) + 1 &&
                   sizeof(((struct fwpt_pkt_decoder *)0)->block_item_bytes) == 1 &&
                   sizeof(((struct fwpt_pkt_decoder *)0)->lean) == 1,
               "block_item_bytes and lean are read as one 16-bit word");

/* dec->lean: the one-byte path is off (0), on (ON), or on and on trial (ON | TRIAL: its statistics kept) */
enum { FWPT_PKT_LEAN_ON = 1, FWPT_PKT_LEAN_TRIAL = 2 };

/* dec->errata: the errata that change how bytes split into packets (decode/packet.c says how) */
enum { FWPT_PKT_ERRATUM_SKD007 = 1, FWPT_PKT_ERRATUM_SKZ84 = 2 };

/* SKD007's bytes at p (avail readable): a CYC header with Exp, then the OVF's 02 F3. */
static inline bool fwpt_pkt_skd007_ovf(const uint8_t *p, size_t avail)
{
    return avail >= 3 && (p[0] & 7) == 7 && p[1] == 0x02 && p[2] == 0xf3;
}

struct fwpt_errata;
/* Decode as the processor with these errata writes (arch/errata.h; NULL: none, the SDM's packets alone):
 *   SKD007: an OVF may replace the rest of a multi-byte CYC: a CYC header with Exp followed by 02 F3 is an OVF
 *           packet at the CYC's offset, 3 bytes long (the CYC's lone first byte, then the OVF);
 *   SKZ84:  a TMA with reserved bits set is corrupt and followed by a bogus byte: FWPT_PKT_INVALID, 8 bytes.
 * The fast path stays off for a decoder with errata (every packet goes through the checks). A fresh decoder
 * (fwpt_pkt_init) has none. */
void fwpt_pkt_set_errata(struct fwpt_pkt_decoder *dec, const struct fwpt_errata *errata);

/* A fresh decoder at offset 0, not synchronized, Last IP 0. */
void fwpt_pkt_init(struct fwpt_pkt_decoder *dec, const uint8_t *buf, size_t len);

/* The same over a trace in n pieces, read where they lie (segs must stay valid while the decoder is used;
 * empty pieces are skipped). Same packets, offsets and errors as over one buffer holding the pieces in
 * order. Copies of the decoder (look-ahead) are fine: each reads its own copy of a boundary. */
void fwpt_pkt_init_segs(struct fwpt_pkt_decoder *dec, const struct fwpt_pkt_seg *segs, uint32_t n);

/* Copies up to n trace bytes from offset off into dst (across pieces); returns how many (fewer at the end). */
size_t fwpt_pkt_bytes(const struct fwpt_pkt_decoder *dec, size_t off, uint8_t *dst, size_t n);

/* Move to the next PSB: the first one starting at or after dec->offset - 15 (a PSB partly swallowed by a
 * corrupt packet in front of it is found too), or at or after dec->offset + 1 when dec->offset is the sync
 * point (after fwpt_pkt_sync_forward/backward/set), so repeated calls walk the PSBs. A fresh decoder
 * searches from 0. Same rule as libipt 2.0.5's pt_pkt_sync_forward. Where 02 82 pairs run on longer than
 * one PSB, the PSB is the run's last 16 bytes (as libipt). Resets Last IP and the block state.
 * FWPT_E_NOSYNC (decoder unchanged) when there is none. (First PSB at or after N: fwpt_pkt_sync_set(N - 1)
 * then fwpt_pkt_sync_forward.) */
enum fwpt_status fwpt_pkt_sync_forward(struct fwpt_pkt_decoder *dec);

/* Move to the last PSB that starts before dec->offset, or before the end of the trace when the decoder
 * has not been synchronized yet (for wrapped buffers: the newest complete PSB). FWPT_E_NOSYNC when none. */
enum fwpt_status fwpt_pkt_sync_backward(struct fwpt_pkt_decoder *dec);

/* Decode from 'offset' on, whatever is there (no PSB check); 'offset' becomes the sync point. Resets Last IP
 * and the block state. FWPT_E_EOS if offset > len. */
enum fwpt_status fwpt_pkt_sync_set(struct fwpt_pkt_decoder *dec, size_t offset);

/* Decode the packet at dec->offset into *pkt and advance past it.
 *   FWPT_OK            pkt filled
 *   FWPT_E_EOS         dec->offset == len (clean end)
 *   FWPT_E_TRUNCATED   the packet runs past the end of the trace
 *   FWPT_E_BAD_OPCODE  unknown or reserved opcode / extended opcode
 *   FWPT_E_BAD_IPC     reserved IPBytes (101b, 111b)
 *   FWPT_E_BAD_PACKET  reserved field encodings: PTW PayloadBytes 1xb, MODE leaf other than Exec/TSX, broken
 *                      PSB pattern, long TNT without a branch bit (reserved *bits* are ignored: SDM "Packet
 *                      bits listed as RSVD are not guaranteed to be 0")
 *   FWPT_E_TOO_LONG    a CYC longer than 255 bytes (pkt->size cannot hold it; any shorter CYC is decoded)
 * On error the decoder does not move: pkt->offset == dec->offset == the failing packet's offset,
 * pkt->type == FWPT_PKT_NONE, pkt->size == 0. IP reconstruction happens here: IP packets update
 * dec->last_ip unless suppressed (a TIP.PGD with IPBytes 000b leaves Last IP unchanged). */
static inline enum fwpt_status fwpt_pkt_next(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt);

/* ---- internals of the inline fast path (decode/packet.c) ---- */
struct fwpt_pkt_fast {
    uint64_t pay_mask;  /* IP payload bits after the header (0: none) */
    uint64_t keep_mask; /* Last IP bits kept (all ones for non-IP packets and IPBytes 000b) */
    uint64_t ip_sel;    /* all ones when ip.ip is the reconstructed IP */
    uint16_t w16;       /* bytes 16-17 of the packet: ip.ipc + ip.suppressed, tnt.count, one-byte cyc.value */
    uint8_t type, size;
    uint8_t sx;         /* 16 for IPBytes 011b: IP bits 63:48 copy payload bit 47 (shift up and back) */
    uint8_t mtc_mask;   /* 0xff for MTC: byte 16 = byte 1 of the packet */
    uint8_t tnt_bits;
    uint8_t mtc_shift;  /* 4 for two-byte CYC: the mtc_mask bits move up by 4 */
};
extern const struct fwpt_pkt_fast fwpt_pkt_fast_table[256];
extern const uint8_t fwpt_pkt_fast_len[256];  /* the size column, plus 2 for CYC with Exp (two bytes when byte 1 Exp is 0) */
extern const uint8_t fwpt_pkt_fast_cycx[256]; /* 1 for CYC with Exp (bits 2:0 = 111b): longer when byte 1 has Exp */
/* The packets after 02h (extended opcodes) and 99h (MODE, whose leaf and fields are all in byte 1), by byte 1,
 * and TSC: one fill for every type. With x = the 8 bytes at p + xoff: bytes 16..23 of the packet =
 * ((((x & m_a) * mul_a) | ((x >> sh_b) & m_b)) & post) | c16, bytes 24..31 = (x & m24) | c24.
 * size 0: the slow path decodes it, and so it does when (bytes 0..7 ^ chk_val) & chk_mask != 0 or, for PSB,
 * bytes 8..15 are not the pattern (long TNT: fwpt_pkt_fast_tnt64). */
struct fwpt_pkt_ext_fast {
    uint64_t m_a, mul_a, c16, c24, chk_val;
    uint32_t m_b;
    int32_t post;     /* sign-extended: -1 keeps all */
    int32_t chk_mask; /* sign-extended */
    uint8_t type, size, xoff, sh_b;
    int8_t m24;       /* sign-extended */
    int8_t keep;      /* Last IP &= keep (sign-extended): 0 for PSB (SDM: Last IP is reset at PSB) */
    int8_t psb;       /* -1: bytes 8..15 must be the PSB pattern too */
};
extern const struct fwpt_pkt_ext_fast fwpt_pkt_ext_fast_table[514]; /* 02 xx at xx, 99 xx at 256 + xx, TSC at
                                                                      * 512, all else at 513 (size 0) */
/* By byte 0: the byte offset of its page (02h, 99h) or entry in fwpt_pkt_ext_fast_table, and the mask of
 * byte 1 * sizeof entry (0 for single entries). */
struct fwpt_pkt_ext_page {
    uint32_t off, mask;
};
extern const struct fwpt_pkt_ext_page fwpt_pkt_ext_page[256];
/* Every packet; fwpt_pkt_next calls it for whatever its fast path does not handle. */
enum fwpt_status fwpt_pkt_next_slow(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt);

/* The table-driven part of the fast path (9 readable bytes from p): fills *pkt for the packet at p (offset o)
 * from its fast_table entry and returns the new Last IP. Only meaningful when fwpt_pkt_fast_table[p[0]].size != 0
 * (the other entries are zero: harmless garbage, for callers that decode speculatively and discard it). */
static inline __attribute__((always_inline)) uint64_t fwpt_pkt_fast_entry(const uint8_t *p, size_t o, uint64_t last_ip,
                                                                         struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
    const struct fwpt_pkt_fast *f = &fwpt_pkt_fast_table[p[0]];
    uint64_t raw = *(const fwpt_u64u *)(p + 1);
    /* every table field is read before the first store into *pkt (byte stores may alias anything) */
    uint64_t payload = raw & f->pay_mask;
    /* MTC: CTC = byte 1; two-byte CYC: Cycle Counter[11:5] = byte 1 bits 7:1 (mask 0xfe, shifted up by 4) */
    uint64_t ip_sel = f->ip_sel, w16 = (uint64_t)f->w16 | (raw & f->mtc_mask) << f->mtc_shift;
    uint64_t tnt_bits = f->tnt_bits;
    uint16_t type_size; /* type and size: adjacent in both structs, one 16-bit copy */
    __builtin_memcpy(&type_size, &f->type, 2);
    /* SDM Table "FUP/TIP IP Reconstruction"; non-IP packets keep Last IP (mask all ones, no payload) */
    unsigned sx = f->sx;
    /* 011b keeps no Last IP bits (keep_mask 0): sign-extending the payload alone is the same, and keeps the
     * shifts off the Last IP chain (two operations from one packet's Last IP to the next) */
    uint64_t ip = (last_ip & f->keep_mask) | (uint64_t)((int64_t)(payload << sx) >> sx); /* branch-free */
    pkt->offset = o;
    __builtin_memcpy(&pkt->type, &type_size, 2);
    /* bytes 16..23: ipc + suppressed, TNT count, one-byte CYC value, or MTC CTC */
    pkt->cyc.value = w16;
    pkt->ip.ip = (ip & ip_sel) | tnt_bits; /* tnt.bits for short TNT */
    pkt->ip.payload = payload;
    return ip;
}

/* v with its 64 bits in the opposite order (bit 0 <-> bit 63). */
static inline uint64_t fwpt_bit_reverse64(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(v);
}

/* Long TNT (02 A3, 6-byte payload with a stop bit), 16 readable bytes: 8, or 0 when the slow path must report it. */
static inline unsigned fwpt_pkt_fast_tnt64(const uint8_t *p, size_t o, struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
    uint64_t tnt = *(const fwpt_u64u *)(p + 2) & 0xffffffffffffull;
    if (tnt <= 1)
        return 0;
    unsigned lz = (unsigned)__builtin_clzll(tnt);
    pkt->offset = o;
    pkt->type = FWPT_PKT_TNT_64;
    pkt->size = 8;
    pkt->tnt.count = (uint8_t)(63 - lz);
    /* execution order: the bit below the stop bit (B1, the oldest) becomes bit 0 */
    pkt->tnt.bits = fwpt_bit_reverse64(tnt) >> lz >> 1;
    return 8;
}

/* The extended opcodes but long TNT, MODE and TSC (p[0] 02h, 99h, 19h), table-driven: no branch on the type.
 * Size, or 0 when the slow path must decode it. */
static inline unsigned fwpt_pkt_fast_ext(const uint8_t *p, size_t o, uint64_t *last_ip, struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
    unsigned b0 = p[0], b1 = p[1];
    const struct fwpt_pkt_ext_page *pg = &fwpt_pkt_ext_page[b0];
    const struct fwpt_pkt_ext_fast *e = (const struct fwpt_pkt_ext_fast *)((const char *)fwpt_pkt_ext_fast_table +
                                                                           pg->off + ((b1 * sizeof *e) & pg->mask));
    uint64_t x = *(const fwpt_u64u *)(p + e->xoff);
    uint64_t lo = *(const fwpt_u64u *)p, hi = *(const fwpt_u64u *)(p + 8);
    /* every table field is read before the first store into *pkt (byte stores may alias anything) */
    uint64_t bad = ((lo ^ e->chk_val) & (uint64_t)(int64_t)e->chk_mask) |
                   ((hi ^ 0x8202820282028202ull) & (uint64_t)(int64_t)e->psb); /* MNT's 88h, PSB's pattern */
    uint64_t w16 = ((((x & e->m_a) * e->mul_a) | ((x >> e->sh_b) & e->m_b)) & (uint64_t)(int64_t)e->post) | e->c16;
    uint64_t w24 = (x & (uint64_t)(int64_t)e->m24) | e->c24;
    uint64_t keep = (uint64_t)(int64_t)e->keep;
    uint16_t type_size; /* type and size: adjacent in both structs, one 16-bit copy */
    __builtin_memcpy(&type_size, &e->type, 2);
    unsigned n = e->size;
    if (!n || bad)
        return 0;
    *last_ip &= keep;
    pkt->offset = o;
    __builtin_memcpy(&pkt->type, &type_size, 2);
    pkt->cyc.value = w16; /* bytes 16..23 */
    pkt->ip.ip = w24;     /* bytes 24..31 */
    return n;
}

/* The fast path's body for the packet at p (trace offset o), with at least 16 bytes readable from p: its size
 * after filling *pkt and updating *last_ip, or 0 when the slow path must decode it (nothing written then). */
static inline __attribute__((always_inline)) unsigned fwpt_pkt_fast_at16(const uint8_t *p, size_t o, uint64_t *last_ip,
                                                                        struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
    uint64_t raw = *(const fwpt_u64u *)(p + 1);
    /* extended opcodes: tested on the header byte itself, so a mispredicted branch resolves a table load
     * earlier than through the size column */
    if (__builtin_expect(p[0] == 0x02, 0))
        return p[1] == 0xa3 ? fwpt_pkt_fast_tnt64(p, o, pkt) : fwpt_pkt_fast_ext(p, o, last_ip, pkt);
    unsigned size = fwpt_pkt_fast_len[p[0]];
    /* CYC with Exp whose byte 1 has Exp set too: longer than the table's two bytes */
    unsigned cyc_more = fwpt_pkt_fast_cycx[p[0]] & (unsigned)raw;
    if (__builtin_expect(size == 0 || cyc_more, 0)) {
        if (!cyc_more)
            return fwpt_pkt_fast_ext(p, o, last_ip, pkt);
        /* CYC with Exp: up to 8 more bytes while their bit 0 (Exp) is set, 7 counter bits each above the
         * header's 5 (SDM "CYC Packet Definition"); no stop within 8 bytes: the slow path reports it */
        uint64_t stop = ~raw & 0x0101010101010101ull;
        if (!stop)
            return 0;
        uint64_t low = stop & (0 - stop);
        uint64_t mask = ((low << 7) - 1) | low << 7; /* the bytes up to and including the last one */
        uint64_t v = (raw >> 1) & 0x7f7f7f7f7f7f7f7full & mask;
        v = (v & 0x007f007f007f007full) | ((v >> 1) & 0x3f803f803f803f80ull);
        v = (v & 0x00003fff00003fffull) | ((v >> 2) & 0x0fffc0000fffc000ull);
        v = (v & 0x000000000fffffffull) | ((v >> 4) & 0x00fffffff0000000ull);
        size = 2 + (unsigned)__builtin_ctzll(stop) / 8;
        pkt->offset = o;
        pkt->type = FWPT_PKT_CYC;
        pkt->size = (uint8_t)size;
        pkt->cyc.value = (uint64_t)(p[0] >> 3) | v << 5;
        return size;
    }
    *last_ip = fwpt_pkt_fast_entry(p, o, *last_ip, pkt);
    return size;
}

/* The fast path on caller-held state: true if it decoded the packet at *off (and advanced *off). */
static inline bool fwpt_pkt_fast_one(const uint8_t *buf, size_t len, size_t *off, uint64_t *last_ip,
                                     struct fwpt_packet *pkt)
{
    size_t o = *off;
    /* 16 readable bytes: the longest packet (PSB) and every load stay inside the trace */
    if (__builtin_expect(o + 16 > len, 0)) /* also every o > len (o + 16 cannot wrap: o <= len in practice) */
        return false;
    unsigned size = fwpt_pkt_fast_at16(buf + o, o, last_ip, pkt);
    *off = o + size;
    return size != 0;
}

/* One-byte packets with an even header, PAD 00h and short TNT (not 02h, the extended opcodes; BIP is even too:
 * outside blocks only): true for them. On a predicted branch the next offset is o + 1, off the table loads. */
static inline bool fwpt_pkt_is_one_even(unsigned b0)
{
    return (b0 & 1) == 0 && b0 != 0x02;
}

/* Bytes 8..31 of the struct fwpt_packet of PAD and short TNT, by header byte: type, size, tnt.count, tnt.bits */
extern const uint64_t fwpt_pkt_one_image[256][3];

/* PAD or short TNT with header b0 at offset o: three stores, Last IP untouched. */
static inline __attribute__((always_inline)) void fwpt_pkt_fast_one_even(unsigned b0, size_t o,
                                                                        struct fwpt_packet *pkt)
{
    pkt->offset = o;
    __builtin_memcpy((unsigned char *)pkt + offsetof(struct fwpt_packet, type), fwpt_pkt_one_image[b0], 24);
}

/* Trial: a run of 'run' one-byte packets ended: credit it, less the run end's misprediction if run_pred did
 * not foresee it (decode/packet.c). */
void fwpt_pkt_trial_run(struct fwpt_pkt_decoder *dec, size_t run);

/* End of a window (dec->offset >= dec->window_end): decide dec->lean for the next one (decode/packet.c). */
void fwpt_pkt_window(struct fwpt_pkt_decoder *dec);

/* fwpt_pkt_next for what its inline paths leave: a window's end, the trace's last 15 bytes, blocks, and the
 * packets the fast path declines (decode/packet.c). */
enum fwpt_status fwpt_pkt_next_edge(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt);

/* TIP with IPBytes 001b and 010b, the IP packets of firmware loops: where the one-byte path is on, a predicted
 * branch on these header bytes gives their size as a constant, and the next offset does not wait for the
 * header load and the size table (SDM "TIP Packet Definition": header, then 2 or 4 IP bytes). */
enum { FWPT_PKT_HDR_TIP_16 = 0x2d, FWPT_PKT_HDR_TIP_32 = 0x4d };

/* The packet at p (16 readable bytes) with the one-byte path on and not one byte: its size, 0 for the slow path. */
static inline __attribute__((always_inline)) unsigned fwpt_pkt_fast_lean_other(const uint8_t *p, size_t o,
                                                                              uint64_t *last_ip,
                                                                              struct fwpt_packet *pkt)
{
    unsigned b0 = p[0];
    if (b0 == FWPT_PKT_HDR_TIP_16) {
        *last_ip = fwpt_pkt_fast_entry(p, o, *last_ip, pkt);
        return 3;
    }
    if (b0 == FWPT_PKT_HDR_TIP_32) {
        *last_ip = fwpt_pkt_fast_entry(p, o, *last_ip, pkt);
        return 5;
    }
    return fwpt_pkt_fast_at16(p, o, last_ip, pkt);
}

/* fwpt_pkt_next with the one-byte path on, for a packet it does not take. */
static inline enum fwpt_status fwpt_pkt_next_lean_miss(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt,
                                                       size_t o)
{
    if (__builtin_expect(dec->lean & FWPT_PKT_LEAN_TRIAL, 0)) {
        /* the one-byte packets since the last miss (one byte each) */
        fwpt_pkt_trial_run(dec, o - dec->run_end);
    }
    if (__builtin_expect(o < dec->fast_end, 1)) {
        unsigned size = fwpt_pkt_fast_lean_other(dec->buf + o, o, &dec->last_ip, pkt);
        if (__builtin_expect(size != 0, 1)) {
            dec->offset = dec->run_end = o + size;
            return FWPT_OK;
        }
    }
    return fwpt_pkt_next_edge(dec, pkt);
}

static inline enum fwpt_status fwpt_pkt_next(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
{
    size_t o = dec->offset;
    uint16_t block_lean; /* block_item_bytes (BIPs need the block state: slow path) and lean */
    __builtin_memcpy(&block_lean, &dec->block_item_bytes, 2);
    if (__builtin_expect(block_lean == 0, 1)) {
        /* the table-driven fast path, no branch on the packet type */
        if (__builtin_expect(o < dec->fast_end, 1)) {
            unsigned size = fwpt_pkt_fast_at16(dec->buf + o, o, &dec->last_ip, pkt);
            if (__builtin_expect(size != 0, 1)) {
                dec->offset = o + size;
                return FWPT_OK;
            }
        }
    } else if (__builtin_expect((block_lean & 0x1ff) == FWPT_PKT_LEAN_ON << 8, 1)) {
        if (__builtin_expect(o < dec->fast_end, 1)) {
            unsigned b0 = dec->buf[o];
            if (__builtin_expect(fwpt_pkt_is_one_even(b0), 1)) {
                fwpt_pkt_fast_one_even(b0, o, pkt);
                dec->offset = o + 1;
                return FWPT_OK;
            }
        }
        return fwpt_pkt_next_lean_miss(dec, pkt, o);
    }
    return fwpt_pkt_next_edge(dec, pkt);
}

/* Decode up to n packets into pkts[0..): returns how many were decoded; *status is FWPT_OK when all n were,
 * else the status of the packet that stopped it (FWPT_E_EOS at the end; errors as fwpt_pkt_next, the
 * decoder left at the failing packet). Same packets as n calls of fwpt_pkt_next, with the state kept
 * in registers: the fast way to walk a trace. */
size_t fwpt_pkt_next_batch(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkts, size_t n,
                           enum fwpt_status *status);

/* IP reconstruction alone (SDM Table "FUP/TIP IP Reconstruction"): from Last IP, IPBytes and the raw
 * payload. FWPT_E_BAD_IPC for 101b/111b. For 000b *ip = last_ip (the caller must treat it as suppressed). */
enum fwpt_status fwpt_pkt_ip_reconstruct(uint64_t last_ip, unsigned ipc, uint64_t payload, uint64_t *ip);

/* libipt's names: "psb", "tnt.8", "tip.pge", "mode.exec", ...; "none" for FWPT_PKT_NONE, "?" if out of range. */
const char *fwpt_pkt_type_name(enum fwpt_pkt_type t);

#endif
