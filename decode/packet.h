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
 * The public part (packet types, the calls) is include/fwpt/packet.h; this header adds the decoder's layout and
 * the inline fwpt_pkt_next for the library's own code (the tool, the app, analyze/).
 */
#ifndef FWPT_DECODE_PACKET_H
#define FWPT_DECODE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "fwpt/packet.h"

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
    uint8_t lean;        /* FWPT_PKT_LEAN_* (packet_fast.h); after block_item_bytes: both read as one 16-bit word */
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

/* The inline fast path behind fwpt_pkt_next: private (its tables and internals may change with any commit);
 * only decode/packet*.c and the packet tests use what it declares. */
#include "decode/packet_fast.h"

#endif
