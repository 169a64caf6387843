/* fwpt — the inline fast path of the Intel PT packet decoder: fwpt_pkt_next and what it uses (tables built
 * in decode/packet_tables.c, the rest in decode/packet.c). PRIVATE: included at the end of decode/packet.h,
 * never on its own; only decode/packet*.c and the packet decoder's tests may use its names. */
#ifndef FWPT_DECODE_PACKET_FAST_H
#define FWPT_DECODE_PACKET_FAST_H

#ifndef FWPT_DECODE_PACKET_H
#error "decode/packet_fast.h is private: include decode/packet.h"
#endif

/* dec->lean: the one-byte path is off (0), on (ON), or on and on trial (ON | TRIAL: its statistics kept) */
enum { FWPT_PKT_LEAN_ON = 1, FWPT_PKT_LEAN_TRIAL = 2 };

/* ---- the tables (decode/packet_tables.c, each built from its rule) ---- */

/* By byte 0: PAD, short TNT, CYC, MTC and FUP/TIP/TIP.PGE/TIP.PGD (type 0, size 0: not these). */
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
/* SDM Table "FUP/TIP IP Reconstruction", by IPBytes c: the payload bytes (-1: 101b and 111b are reserved) and
 * the Last IP bits kept (001b [63:16], 010b [63:32], 100b [63:48]; 000b all: no update; 011b, 110b none). */
#define FWPT_PKT_IPC_BYTES(c) \
    ((c) == 0 ? 0 : (c) == 1 ? 2 : (c) == 2 ? 4 : (c) == 3 || (c) == 4 ? 6 : (c) == 6 ? 8 : -1)
#define FWPT_PKT_IPC_KEEP(c)                                                                                      \
    ((c) == 0 ? ~0ull : (c) == 1 ? 0xffffffffffff0000ull : (c) == 2 ? 0xffffffff00000000ull                      \
     : (c) == 4 ? 0xffff000000000000ull : 0ull)
/* The entry of FUP/TIP/TIP.PGE/TIP.PGD of type t with IPBytes c (not reserved), field by field: the rule
 * decode/packet_tables.c builds those rows from, and the constant entries of fwpt_pkt_fast_lean_other. */
#define FWPT_PKT_IP_PAY_MASK(c) (((1ull << (4 * FWPT_PKT_IPC_BYTES(c))) << (4 * FWPT_PKT_IPC_BYTES(c))) - 1)
#define FWPT_PKT_IP_SEL(c) ((c) != FWPT_IPC_SUPPRESSED ? ~0ull : 0)
#define FWPT_PKT_IP_W16(c) ((c) | ((c) == FWPT_IPC_SUPPRESSED) << 8) /* ip.ipc, ip.suppressed */
#define FWPT_PKT_IP_SX(c) ((c) == FWPT_IPC_SEXT_48 ? 16 : 0)     /* IP bits 63:48 copy payload bit 47 */
#define FWPT_PKT_FAST_IP(t, c)                                                                                    \
    {                                                                                                             \
        .pay_mask = FWPT_PKT_IP_PAY_MASK(c), .keep_mask = FWPT_PKT_IPC_KEEP(c), .ip_sel = FWPT_PKT_IP_SEL(c),     \
        .w16 = FWPT_PKT_IP_W16(c), .type = (t), .size = 1 + FWPT_PKT_IPC_BYTES(c), .sx = FWPT_PKT_IP_SX(c),       \
    }
extern const uint8_t fwpt_pkt_fast_len[256];  /* the size column (CYC with Exp: 2, when byte 1 has Exp clear) */
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

/* ---- the inline paths ---- */

/* Every packet (decode/packet.c); fwpt_pkt_next calls it for whatever its fast path does not handle. */
enum fwpt_status fwpt_pkt_next_slow(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt);

/* The table-driven part of the fast path (9 readable bytes from p): fills *pkt for the packet at p (offset o)
 * from its entry f and returns the new Last IP. Only meaningful when f->size != 0 (the other entries are zero:
 * harmless garbage, for callers that decode speculatively and discard it). */
static inline __attribute__((always_inline)) uint64_t fwpt_pkt_fast_fill(const struct fwpt_pkt_fast *f, const uint8_t *p,
                                                                        size_t o, uint64_t last_ip,
                                                                        struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
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

/* The same from the packet's row of fwpt_pkt_fast_table. */
static inline __attribute__((always_inline)) uint64_t fwpt_pkt_fast_entry(const uint8_t *p, size_t o, uint64_t last_ip,
                                                                         struct fwpt_packet *pkt)
{
    return fwpt_pkt_fast_fill(&fwpt_pkt_fast_table[p[0]], p, o, last_ip, pkt);
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

/* The extended opcodes but long TNT, MODE and TSC (p[0] 02h, 99h, 19h), table-driven from their entry e: no
 * branch on the type. Size, or 0 when the slow path must decode it. */
static inline unsigned fwpt_pkt_fast_ext_fill(const struct fwpt_pkt_ext_fast *e, const uint8_t *p, size_t o,
                                              uint64_t *last_ip, struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
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

/* The same for any header byte, its entry found through fwpt_pkt_ext_page. */
static inline unsigned fwpt_pkt_fast_ext(const uint8_t *p, size_t o, uint64_t *last_ip, struct fwpt_packet *pkt)
{
    unsigned b0 = p[0], b1 = p[1];
    const struct fwpt_pkt_ext_page *pg = &fwpt_pkt_ext_page[b0];
    const struct fwpt_pkt_ext_fast *e = (const struct fwpt_pkt_ext_fast *)((const char *)fwpt_pkt_ext_fast_table +
                                                                           pg->off + ((b1 * sizeof *e) & pg->mask));
    return fwpt_pkt_fast_ext_fill(e, p, o, last_ip, pkt);
}

/* The fast path's body for the packet at p (trace offset o), with at least 16 bytes readable from p: its size
 * after filling *pkt and updating *last_ip, or 0 when the slow path must decode it (nothing written then). */
static inline __attribute__((always_inline)) unsigned fwpt_pkt_fast_at16(const uint8_t *p, size_t o, uint64_t *last_ip,
                                                                        struct fwpt_packet *pkt)
{
    typedef uint64_t fwpt_u64u __attribute__((aligned(1), may_alias));
    uint64_t raw = *(const fwpt_u64u *)(p + 1);
    /* extended opcodes: tested on the header byte itself, so a mispredicted branch resolves a table load
     * earlier than through the size column; their entries are the table's first page, by byte 1 */
    if (__builtin_expect(p[0] == 0x02, 0))
        return p[1] == 0xa3 ? fwpt_pkt_fast_tnt64(p, o, pkt)
                            : fwpt_pkt_fast_ext_fill(&fwpt_pkt_ext_fast_table[p[1]], p, o, last_ip, pkt);
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
enum { FWPT_PKT_HDR_TIP_16 = 0x0d | FWPT_IPC_UPDATE_16 << 5, FWPT_PKT_HDR_TIP_32 = 0x0d | FWPT_IPC_UPDATE_32 << 5 };

/* The packet at p (16 readable bytes) with the one-byte path on and not one byte: its size, 0 for the slow path. */
static inline __attribute__((always_inline)) unsigned fwpt_pkt_fast_lean_other(const uint8_t *p, size_t o,
                                                                              uint64_t *last_ip,
                                                                              struct fwpt_packet *pkt)
{
    /* their entries as constants, from the rule of the table's rows: the fill folds to a few operations */
    static const struct fwpt_pkt_fast tip16 = FWPT_PKT_FAST_IP(FWPT_PKT_TIP, FWPT_IPC_UPDATE_16),
                                      tip32 = FWPT_PKT_FAST_IP(FWPT_PKT_TIP, FWPT_IPC_UPDATE_32);
    unsigned b0 = p[0];
    if (b0 == FWPT_PKT_HDR_TIP_16) {
        *last_ip = fwpt_pkt_fast_fill(&tip16, p, o, *last_ip, pkt);
        return tip16.size;
    }
    if (b0 == FWPT_PKT_HDR_TIP_32) {
        *last_ip = fwpt_pkt_fast_fill(&tip32, p, o, *last_ip, pkt);
        return tip32.size;
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

/* fwpt_pkt_next inline, for the library's own code (the macro below); callers of the public API call the same
 * code out of line (decode/packet.c). */
static inline enum fwpt_status fwpt_pkt_next_inline(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkt)
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

#define fwpt_pkt_next(dec, pkt) fwpt_pkt_next_inline(dec, pkt)

#endif
