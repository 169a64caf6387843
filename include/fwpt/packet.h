/* fwpt — Intel PT packet decoder (SDM Vol. 3C, "Trace Packets and Data Types": packet definitions).
 * Freestanding: no allocation, no libc; the trace is read where it lies and the caller owns the state, whose
 * layout is private: the caller allocates fwpt_pkt_decoder_size() bytes (aligned as malloc aligns).
 *
 * Usage:
 *     struct fwpt_pkt_decoder *dec = malloc(fwpt_pkt_decoder_size());
 *     struct fwpt_packet pkt;
 *     fwpt_pkt_init(dec, buf, len);
 *     fwpt_pkt_sync_forward(dec);                   // first PSB (or fwpt_pkt_sync_set(dec, 0))
 *     for (;;) {
 *         enum fwpt_status s = fwpt_pkt_next(dec, &pkt);
 *         if (s == FWPT_E_EOS) break;
 *         if (s != FWPT_OK) {                       // pkt.offset == fwpt_pkt_get_offset == where it failed
 *             if (fwpt_pkt_sync_forward(dec) != FWPT_OK) break;   // next PSB after the error
 *             continue;
 *         }
 *         ... use pkt ...
 *     }
 *
 * A decoder may be copied (memcpy of fwpt_pkt_decoder_size() bytes) to look ahead.
 */
#ifndef FWPT_PACKET_H
#define FWPT_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fwpt/export.h"
#include "fwpt/insn.h" /* enum fwpt_exec_mode */
#include "fwpt/status.h"

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

/* The decoder's state (private: its layout changes with any version). */
struct fwpt_pkt_decoder;

FWPT_BEGIN_DECLS

/* Bytes a caller allocates for one struct fwpt_pkt_decoder. Below, dec->offset is the decoder's offset
 * (fwpt_pkt_get_offset), dec->last_ip its SDM "Last IP". */
FWPT_API size_t fwpt_pkt_decoder_size(void);

/* A fresh decoder at offset 0, not synchronized, Last IP 0. */
FWPT_API void fwpt_pkt_init(struct fwpt_pkt_decoder *dec, const uint8_t *buf, size_t len);

/* The same over a trace in n pieces, read where they lie (segs must stay valid while the decoder is used;
 * empty pieces are skipped). Same packets, offsets and errors as over one buffer holding the pieces in
 * order. Copies of the decoder (look-ahead) are fine: each reads its own copy of a boundary. */
FWPT_API void fwpt_pkt_init_segs(struct fwpt_pkt_decoder *dec, const struct fwpt_pkt_seg *segs, uint32_t n);

/* Copies up to n trace bytes from offset off into dst (across pieces); returns how many (fewer at the end). */
FWPT_API size_t fwpt_pkt_bytes(const struct fwpt_pkt_decoder *dec, size_t off, uint8_t *dst, size_t n);

/* Move to the next PSB: the first one starting at or after dec->offset - 15 (a PSB partly swallowed by a
 * corrupt packet in front of it is found too), or at or after dec->offset + 1 when dec->offset is the sync
 * point (after fwpt_pkt_sync_forward/backward/set), so repeated calls walk the PSBs. A fresh decoder
 * searches from 0. Same rule as libipt 2.0.5's pt_pkt_sync_forward. Where 02 82 pairs run on longer than
 * one PSB, the PSB is the run's last 16 bytes (as libipt). Resets Last IP and the block state.
 * FWPT_E_NOSYNC (decoder unchanged) when there is none. (First PSB at or after N: fwpt_pkt_sync_set(N - 1)
 * then fwpt_pkt_sync_forward.) */
FWPT_API enum fwpt_status fwpt_pkt_sync_forward(struct fwpt_pkt_decoder *dec);

/* Move to the last PSB that starts before dec->offset, or before the end of the trace when the decoder
 * has not been synchronized yet (for wrapped buffers: the newest complete PSB). FWPT_E_NOSYNC when none. */
FWPT_API enum fwpt_status fwpt_pkt_sync_backward(struct fwpt_pkt_decoder *dec);

/* Decode from 'offset' on, whatever is there (no PSB check); 'offset' becomes the sync point. Resets Last IP
 * and the block state. FWPT_E_EOS if offset > len. */
FWPT_API enum fwpt_status fwpt_pkt_sync_set(struct fwpt_pkt_decoder *dec, size_t offset);

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
FWPT_API enum fwpt_status fwpt_pkt_next(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt);

/* Decode up to n packets into pkts[0..): returns how many were decoded; *status is FWPT_OK when all n were,
 * else the status of the packet that stopped it (FWPT_E_EOS at the end; errors as fwpt_pkt_next, the
 * decoder left at the failing packet). Same packets as n calls of fwpt_pkt_next, with the state kept
 * in registers: the fast way to walk a trace. */
FWPT_API size_t fwpt_pkt_next_batch(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkts, size_t n,
                           enum fwpt_status *status);

/* IP reconstruction alone (SDM Table "FUP/TIP IP Reconstruction"): from Last IP, IPBytes and the raw
 * payload. FWPT_E_BAD_IPC for 101b/111b. For 000b *ip = last_ip (the caller must treat it as suppressed). */
FWPT_API enum fwpt_status fwpt_pkt_ip_reconstruct(uint64_t last_ip, unsigned ipc, uint64_t payload, uint64_t *ip);

/* libipt's names: "psb", "tnt.8", "tip.pge", "mode.exec", ...; "none" for FWPT_PKT_NONE, "?" if out of range. */
FWPT_API const char *fwpt_pkt_type_name(enum fwpt_pkt_type t);

/* The offset of the next packet (on error: of the packet that failed). FWPT_E_INVAL for NULL arguments. */
FWPT_API enum fwpt_status fwpt_pkt_get_offset(const struct fwpt_pkt_decoder *dec, uint64_t *offset);
/* The offset of the PSB last synchronized to; FWPT_E_NOSYNC when not synchronized. */
FWPT_API enum fwpt_status fwpt_pkt_get_sync_offset(const struct fwpt_pkt_decoder *dec, uint64_t *offset);

FWPT_END_DECLS

#endif
