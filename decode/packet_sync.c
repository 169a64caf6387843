/* fwpt — Intel PT packet decoder: PSB synchronization (SDM Vol. 3C, "PSB Packet Definition") and
 * a trace in pieces (fwpt_pkt_init_segs): the window over the piece that holds the next packet, or over a copy
 * of the bytes around a boundary, and the PSB searches over pieces. */
#include "decode/packet_defs.h"
#include "base/text.h"

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
void fwpt_pkt_seg_window(struct fwpt_pkt_decoder *dec)
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
    fwpt_pkt_set_fast_end(dec);
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
    fwpt_pkt_seg_window(dec);
    fwpt_pkt_lean_trial(dec);
}

enum fwpt_status fwpt_pkt_sync_set(struct fwpt_pkt_decoder *dec, size_t offset)
{
    if (offset > dec->total)
        return FWPT_E_EOS;
    dec->offset = offset;
    if (dec->segs)
        fwpt_pkt_seg_window(dec);
    dec->sync_offset = offset;
    dec->last_ip = 0;
    dec->block_item_bytes = 0;
    fwpt_pkt_lean_trial(dec);
    return FWPT_OK;
}

static void synced_at(struct fwpt_pkt_decoder *dec, size_t psb)
{
    dec->offset = psb;
    if (dec->segs)
        fwpt_pkt_seg_window(dec);
    dec->sync_offset = psb;
    dec->last_ip = 0; /* SDM: Last IP is reset to zero at PSB */
    dec->block_item_bytes = 0;
    fwpt_pkt_lean_trial(dec);
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
