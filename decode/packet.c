/* fwpt — Intel PT packet decoder (SDM Vol. 3C, "Packet Definitions"): the slow path, which decodes every packet
 * (the reference the fast path is tested against), and the decoder's state: init, errata, the edge of the inline
 * fast path (decode/packet_fast.h) and the one-byte path's trials. Freestanding: no libc, no allocation; the
 * trace is read in place. PSB sync and traces in pieces: decode/packet_sync.c; tables: decode/packet_tables.c;
 * batches: decode/packet_batch.c. */
#include "decode/packet_defs.h"
#include "arch/errata.h"
#include "base/text.h"

/* IPBytes -> payload bytes and Last IP bits kept (SDM Table "FUP/TIP IP Reconstruction": decode/packet_fast.h) */
#define IPC8(F) {F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7)}
static const int8_t ip_payload_bytes[8] = IPC8(FWPT_PKT_IPC_BYTES);
static const uint64_t ip_keep_mask[8] = IPC8(FWPT_PKT_IPC_KEEP);

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

void fwpt_pkt_set_fast_end(struct fwpt_pkt_decoder *dec)
{
    dec->fast_end = dec->window_end < dec->lim ? dec->window_end : dec->lim;
    if (dec->errata)
        dec->fast_end = 0; /* every packet through fwpt_pkt_next_edge and its errata checks */
}

static void set_window(struct fwpt_pkt_decoder *dec, size_t bytes)
{
    dec->window_end = dec->offset + bytes;
    fwpt_pkt_set_fast_end(dec);
}

void fwpt_pkt_lean_trial(struct fwpt_pkt_decoder *dec)
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
        fwpt_pkt_lean_trial(dec);
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
    if ((dec->errata & FWPT_PKT_ERRATUM_SKZ84) && avail >= TMA_SIZE + 1 && p[0] == OPC_EXT && p[1] == EXT_TMA &&
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
        fwpt_pkt_seg_window(dec);
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
    fwpt_pkt_lean_trial(dec);
}

size_t fwpt_pkt_decoder_size(void)
{
    return sizeof(struct fwpt_pkt_decoder);
}

/* The public call, out of line (the parentheses keep the macro of decode/packet_fast.h off the name). */
enum fwpt_status(fwpt_pkt_next)(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
{
    return fwpt_pkt_next_inline(dec, pkt);
}

enum fwpt_status fwpt_pkt_get_offset(const struct fwpt_pkt_decoder *dec, uint64_t *offset)
{
    if (!dec || !offset)
        return FWPT_E_INVAL;
    *offset = dec->offset;
    return FWPT_OK;
}

enum fwpt_status fwpt_pkt_get_sync_offset(const struct fwpt_pkt_decoder *dec, uint64_t *offset)
{
    if (!dec || !offset)
        return FWPT_E_INVAL;
    if (dec->sync_offset == FWPT_PKT_NO_SYNC)
        return FWPT_E_NOSYNC;
    *offset = dec->sync_offset;
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

/* Fills a packet that was decoded completely (n bytes at pkt->offset): advances past it. */
static inline enum fwpt_status done(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, enum fwpt_pkt_type t,
                                    size_t n)
{
    pkt->type = (uint8_t)t;
    pkt->size = (uint8_t)n;
    dec->offset = pkt->offset + n;
    return FWPT_OK;
}

/* Packets that end a block (everything but BIP and timing/power packets; as Linux perf's decoder). */
static inline void end_block(struct fwpt_pkt_decoder *dec) { dec->block_item_bytes = 0; }

/* One reader per packet kind: p at the packet's first byte, avail bytes readable from there (at least 1; at
 * least 2 for an extended opcode, 02h and its second byte). */

/* SDM "Block Item Packet": inside a block, xxxxx100b is a BIP, not a short TNT. */
static enum fwpt_status read_bip(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    unsigned n = dec->block_item_bytes;
    if (avail < 1 + n)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->bip.id = (uint8_t)(p[0] >> BIP_ID_SHIFT);
    pkt->bip.bytes = (uint8_t)n;
    pkt->bip.value = read_le(p + 1, avail - 1, n);
    return done(dec, pkt, FWPT_PKT_BIP, 1 + n);
}

static enum fwpt_status read_tnt8(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p)
{
    pkt->tnt.count = (uint8_t)fwpt_pkt_one_image[p[0]][1]; /* B1..BN below the stop bit, B1 the oldest */
    pkt->tnt.bits = fwpt_pkt_one_image[p[0]][2];
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_TNT_8, 1);
}

/* TIP, TIP.PGE, TIP.PGD, FUP: IPBytes, then the IP's payload (SDM "IP Compression") */
static enum fwpt_status read_ip(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail,
                                enum fwpt_pkt_type type)
{
    unsigned ipc = p[0] >> IPBYTES_SHIFT;
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
    return done(dec, pkt, type, 1 + (size_t)n);
}

/* SDM "CYC Packet Definition": each byte with Exp set adds one more; no limit on their number */
static enum fwpt_status read_cyc(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    unsigned b = p[0];
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
    return done(dec, pkt, FWPT_PKT_CYC, n);
}

static enum fwpt_status read_psb(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < PSB_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    if (*(const u64_unaligned *)p != PSB_PATTERN || *(const u64_unaligned *)(p + 8) != PSB_PATTERN)
        return fail(pkt, FWPT_E_BAD_PACKET);
    dec->last_ip = 0; /* SDM: Last IP is reset to zero at PSB */
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_PSB, PSB_SIZE);
}

/* PSBEND, OVF, STOP: the opcode alone, ending a block */
static enum fwpt_status read_bare(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, enum fwpt_pkt_type type,
                                  size_t n)
{
    end_block(dec);
    return done(dec, pkt, type, n);
}

static enum fwpt_status read_tnt64(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p,
                                   size_t avail)
{
    if (avail < TNT_64_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    uint64_t payload = read_le(p + 2, avail - 2, 6);
    if (payload <= 1)
        return fail(pkt, FWPT_E_BAD_PACKET); /* no stop bit, or no TNT bit before it (as libipt) */
    unsigned count = 63u - (unsigned)__builtin_clzll(payload);
    pkt->tnt.count = (uint8_t)count;
    pkt->tnt.bits = fwpt_bit_reverse64(payload) >> (64 - count);
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_TNT_64, TNT_64_SIZE);
}

static enum fwpt_status read_cbr(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < CBR_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->cbr.ratio = p[2];
    return done(dec, pkt, FWPT_PKT_CBR, CBR_SIZE);
}

static enum fwpt_status read_pip(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < PIP_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    uint64_t payload = read_le(p + 2, avail - 2, 6);
    pkt->pip.nr = (payload & PIP_NR) != 0;
    pkt->pip.cr3 = (payload & ~(uint64_t)PIP_NR) << PIP_CR3_SHIFT;
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_PIP, PIP_SIZE);
}

static enum fwpt_status read_vmcs(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < VMCS_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->vmcs.base = read_le(p + 2, avail - 2, 5) << VMCS_SHIFT;
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_VMCS, VMCS_SIZE);
}

static enum fwpt_status read_tma(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < TMA_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    /* SDM TMA: byte 2-3 CTC[15:0], byte 4 reserved, byte 5-6 FastCounter[8:0] (reserved bits ignored:
     * "Packet bits listed as RSVD are not guaranteed to be 0") */
    pkt->tma.ctc = (uint16_t)(p[2] | p[3] << 8);
    pkt->tma.fc = (uint16_t)((p[5] | p[6] << 8) & TMA_FC_MASK);
    return done(dec, pkt, FWPT_PKT_TMA, TMA_SIZE);
}

/* 02h C3h: a third opcode byte; 88h is MNT */
static enum fwpt_status read_ext2(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < 3)
        return fail(pkt, FWPT_E_TRUNCATED);
    if (p[2] != EXT2_MNT)
        return fail(pkt, FWPT_E_BAD_OPCODE);
    if (avail < MNT_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->mnt.payload = read_le(p + 3, avail - 3, 8);
    return done(dec, pkt, FWPT_PKT_MNT, MNT_SIZE);
}

static enum fwpt_status read_mwait(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p,
                                   size_t avail)
{
    if (avail < MWAIT_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->mwait.hints = (uint32_t)read_le(p + 2, avail - 2, 4);
    pkt->mwait.ext = (uint32_t)read_le(p + 6, avail - 6, 4);
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_MWAIT, MWAIT_SIZE);
}

static enum fwpt_status read_pwre(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < PWRE_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->pwre.hw = (p[2] & PWRE_HW) != 0;
    pkt->pwre.state = (uint8_t)(p[3] >> 4);
    pkt->pwre.sub_state = (uint8_t)(p[3] & NIBBLE);
    return done(dec, pkt, FWPT_PKT_PWRE, PWRE_SIZE);
}

static enum fwpt_status read_pwrx(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < PWRX_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->pwrx.last = (uint8_t)(p[2] >> PWRX_LAST_SHIFT);
    pkt->pwrx.deepest = (uint8_t)(p[2] & NIBBLE);
    pkt->pwrx.wake_reason = (uint8_t)(p[3] & NIBBLE);
    return done(dec, pkt, FWPT_PKT_PWRX, PWRX_SIZE);
}

static enum fwpt_status read_bbp(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < BBP_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    unsigned sz = (p[2] & BBP_SZ) != 0;
    pkt->bbp.sz = (uint8_t)sz;
    pkt->bbp.type = (uint8_t)(p[2] & BBP_TYPE);
    pkt->bbp.item_bytes = sz ? 4 : 8; /* SDM BBP: SZ=1 4-byte, SZ=0 8-byte block items */
    dec->block_item_bytes = pkt->bbp.item_bytes;
    return done(dec, pkt, FWPT_PKT_BBP, BBP_SIZE);
}

static enum fwpt_status read_cfe(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < CFE_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->cfe.ip = (p[2] & CFE_IP) != 0;
    pkt->cfe.type = (uint8_t)(p[2] & CFE_TYPE);
    pkt->cfe.vector = p[3];
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_CFE, CFE_SIZE);
}

static enum fwpt_status read_evd(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < EVD_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->evd.type = (uint8_t)(p[2] & EVD_TYPE);
    pkt->evd.payload = read_le(p + 3, avail - 3, 8);
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_EVD, EVD_SIZE);
}

static enum fwpt_status read_ptw(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    unsigned ext = p[1];
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
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_PTW, PTW_HDR_SIZE + n);
}

static enum fwpt_status read_tsc(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < TSC_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->tsc.tsc = read_le(p + 1, avail - 1, TSC_SIZE - 1);
    return done(dec, pkt, FWPT_PKT_TSC, TSC_SIZE);
}

static enum fwpt_status read_mtc(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < MTC_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    pkt->mtc.ctc = p[1];
    return done(dec, pkt, FWPT_PKT_MTC, MTC_SIZE);
}

static enum fwpt_status read_mode(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
    if (avail < MODE_SIZE)
        return fail(pkt, FWPT_E_TRUNCATED);
    unsigned m = p[1];
    end_block(dec);
    if ((m & MODE_LEAF) == MODE_LEAF_EXEC) {
        bool csl = m & MODE_EXEC_CSL, csd = m & MODE_EXEC_CSD;
        pkt->mode_exec.csl = csl;
        pkt->mode_exec.csd = csd;
        pkt->mode_exec.iflag = (m & MODE_EXEC_IF) != 0;
        /* SDM MODE.Exec: CS.L=1 -> 64-bit (CS.D must be 0), else CS.D selects 32/16 */
        pkt->mode_exec.mode = csl ? (csd ? FWPT_MODE_UNKNOWN : FWPT_MODE_64) : (csd ? FWPT_MODE_32 : FWPT_MODE_16);
        return done(dec, pkt, FWPT_PKT_MODE_EXEC, MODE_SIZE);
    }
    if ((m & MODE_LEAF) == MODE_LEAF_TSX) {
        pkt->mode_tsx.intx = (m & MODE_TSX_INTX) != 0;
        pkt->mode_tsx.abrt = (m & MODE_TSX_ABRT) != 0;
        return done(dec, pkt, FWPT_PKT_MODE_TSX, MODE_SIZE);
    }
    return fail(pkt, FWPT_E_BAD_PACKET);
}

/* SDM "TRIG Packet Definition": D9h, flags, TRBV, and ICNT[15:0] when ICNTV is set */
static enum fwpt_status read_trig(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt, const uint8_t *p, size_t avail)
{
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
    end_block(dec);
    return done(dec, pkt, FWPT_PKT_TRIG, n);
}

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
    if (__builtin_expect(dec->block_item_bytes != 0, 0) && (b & OPM_BIP) == OPC_BIP)
        return read_bip(dec, pkt, p, avail);

    /* one dispatch for every opcode: extended ones by their second byte (02h alone: truncated) */
    unsigned ext = p[avail > 1];
    unsigned kind = fwpt_pkt_first_kind[b], xkind = avail > 1 ? fwpt_pkt_ext_kind[ext] : X_SHORT;
    kind = kind == K_EXT ? xkind : kind;
    switch (kind) {
    case K_TNT: return read_tnt8(dec, pkt, p);
    case K_PAD: return done(dec, pkt, FWPT_PKT_PAD, 1);
    case K_TIP:
    case K_PGE:
    case K_PGD:
        end_block(dec);
        /* fall through */
    case K_FUP: /* one call: read_ip is inlined */
        return read_ip(dec, pkt, p, avail,
                       kind == K_FUP   ? FWPT_PKT_FUP
                       : kind == K_TIP ? FWPT_PKT_TIP
                       : kind == K_PGE ? FWPT_PKT_TIP_PGE
                                       : FWPT_PKT_TIP_PGD);
    case K_CYC: return read_cyc(dec, pkt, p, avail);
    case K_TSC: return read_tsc(dec, pkt, p, avail);
    case K_MTC: return read_mtc(dec, pkt, p, avail);
    case K_MOD: return read_mode(dec, pkt, p, avail);
    case K_TRIG: return read_trig(dec, pkt, p, avail);
    case X_PSB: return read_psb(dec, pkt, p, avail);
    case X_PSBEND: return read_bare(dec, pkt, FWPT_PKT_PSBEND, PSBEND_SIZE);
    case X_OVF: return read_bare(dec, pkt, FWPT_PKT_OVF, OVF_SIZE);
    case X_STOP: return read_bare(dec, pkt, FWPT_PKT_STOP, STOP_SIZE);
    case X_TNT64: return read_tnt64(dec, pkt, p, avail);
    case X_CBR: return read_cbr(dec, pkt, p, avail);
    case X_PIP: return read_pip(dec, pkt, p, avail);
    case X_VMCS: return read_vmcs(dec, pkt, p, avail);
    case X_TMA: return read_tma(dec, pkt, p, avail);
    case X_EXT2: return read_ext2(dec, pkt, p, avail);
    case X_EXSTOP:
        pkt->exstop.ip = (ext & EXT_IP) != 0;
        return done(dec, pkt, FWPT_PKT_EXSTOP, EXSTOP_SIZE);
    case X_MWAIT: return read_mwait(dec, pkt, p, avail);
    case X_PWRE: return read_pwre(dec, pkt, p, avail);
    case X_PWRX: return read_pwrx(dec, pkt, p, avail);
    case X_BBP: return read_bbp(dec, pkt, p, avail);
    case X_BEP:
        pkt->bep.ip = (ext & EXT_IP) != 0;
        return read_bare(dec, pkt, FWPT_PKT_BEP, BEP_SIZE);
    case X_CFE: return read_cfe(dec, pkt, p, avail);
    case X_EVD: return read_evd(dec, pkt, p, avail);
    case X_PTW: return read_ptw(dec, pkt, p, avail);
    case X_SHORT: return fail(pkt, FWPT_E_TRUNCATED);
    default: return fail(pkt, FWPT_E_BAD_OPCODE);
    }
}
