/* Random packet streams and their expected decoding (see pkt_stream.h). */
#include "tests/common/pkt_stream.h"

#include <intel-pt.h>
#include <stdio.h>
#include <string.h>
#include "tests/common/rng.h"

uint64_t pkt_stream_rnd(struct pkt_stream *s) { return xorshift64(&s->rng); }
unsigned pkt_stream_rn(struct pkt_stream *s, unsigned n) { return (unsigned)(pkt_stream_rnd(s) % n); }
static uint64_t rnd(struct pkt_stream *s) { return pkt_stream_rnd(s); }
static unsigned rn(struct pkt_stream *s, unsigned n) { return pkt_stream_rn(s, n); }

/* Independent model of SDM Table "FUP/TIP IP Reconstruction". */
uint64_t pkt_stream_model_ip(uint64_t last, unsigned ipc, uint64_t pl)
{
    switch (ipc) {
    case 1: return (last & ~0xffffull) | (pl & 0xffff);
    case 2: return (last & ~0xffffffffull) | (pl & 0xffffffff);
    case 3: return (pl & 0x800000000000ull) ? (pl | 0xffff000000000000ull) : (pl & 0xffffffffffffull);
    case 4: return (last & ~0xffffffffffffull) | (pl & 0xffffffffffffull);
    case 6: return pl;
    default: return last;
    }
}

static uint64_t rbits(struct pkt_stream *s, unsigned n) { return n >= 64 ? rnd(s) : rnd(s) & ((1ull << n) - 1); }

/* Fill a libipt packet with random valid payload of 'type'; also the expected fwpt packet. */
static void gen_libipt(struct pkt_stream *s, struct pt_packet *pp, struct fwpt_packet *e, uint64_t *last_ip)
{
    static const enum pt_packet_type types[] = {
        ppt_pad, ppt_psb, ppt_psbend, ppt_fup, ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_tnt_8, ppt_tnt_64,
        ppt_mode, ppt_pip, ppt_vmcs, ppt_cbr, ppt_tsc, ppt_tma, ppt_mtc, ppt_cyc, ppt_stop, ppt_ovf,
        ppt_mnt, ppt_exstop, ppt_mwait, ppt_pwre, ppt_pwrx, ppt_ptw,
    };
    static const unsigned ipcs[] = {0, 1, 2, 3, 4, 6};
    memset(pp, 0, sizeof *pp);
    memset(e, 0, sizeof *e);
    /* realistic bias: TNT and IP packets more often */
    unsigned r = rn(s, 100);
    enum pt_packet_type t;
    if (r < 25)
        t = ppt_tnt_8;
    else if (r < 40)
        t = (enum pt_packet_type[]){ppt_tip, ppt_fup, ppt_tip_pge, ppt_tip_pgd}[rn(s, 4)];
    else
        t = types[rn(s, sizeof types / sizeof types[0])];
    pp->type = t;
    switch (t) {
    case ppt_pad: e->type = FWPT_PKT_PAD; break;
    case ppt_psb: e->type = FWPT_PKT_PSB; *last_ip = 0; break;
    case ppt_psbend: e->type = FWPT_PKT_PSBEND; break;
    case ppt_stop: e->type = FWPT_PKT_STOP; break;
    case ppt_ovf: e->type = FWPT_PKT_OVF; break;
    case ppt_fup: case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: {
        unsigned ipc = ipcs[rn(s, 6)];
        uint64_t ip = rnd(s);
        if (rn(s, 2))
            ip &= 0xffffffffffffull; /* canonical-ish */
        pp->payload.ip.ipc = (enum pt_ip_compression)ipc;
        pp->payload.ip.ip = ip;
        static const unsigned nbytes[8] = {0, 2, 4, 6, 6, 0, 8, 0};
        uint64_t pl = nbytes[ipc] == 8 ? ip : ip & ((1ull << (8 * nbytes[ipc])) - 1);
        e->type = t == ppt_fup ? FWPT_PKT_FUP : t == ppt_tip ? FWPT_PKT_TIP : t == ppt_tip_pge ? FWPT_PKT_TIP_PGE : FWPT_PKT_TIP_PGD;
        e->ip.ipc = (uint8_t)ipc;
        e->ip.payload = pl;
        e->ip.suppressed = ipc == 0;
        if (ipc) {
            *last_ip = pkt_stream_model_ip(*last_ip, ipc, pl);
            e->ip.ip = *last_ip;
        }
        break;
    }
    case ppt_tnt_8: case ppt_tnt_64: {
        unsigned n = t == ppt_tnt_8 ? 1 + rn(s, 6) : 1 + rn(s, 47);
        uint64_t pl = rbits(s, n);
        pp->payload.tnt.bit_size = (uint8_t)n;
        pp->payload.tnt.payload = pl;
        e->type = t == ppt_tnt_8 ? FWPT_PKT_TNT_8 : FWPT_PKT_TNT_64;
        e->tnt.count = (uint8_t)n;
        for (unsigned i = 0; i < n; i++) /* libipt: bit n-1 is the oldest */
            if (pl >> (n - 1 - i) & 1)
                e->tnt.bits |= 1ull << i;
        break;
    }
    case ppt_mode:
        if (rn(s, 2)) {
            pp->payload.mode.leaf = pt_mol_exec;
            pp->payload.mode.bits.exec.csl = rn(s, 2);
            pp->payload.mode.bits.exec.csd = rn(s, 2);
            e->type = FWPT_PKT_MODE_EXEC;
            e->mode_exec.csl = pp->payload.mode.bits.exec.csl;
            e->mode_exec.csd = pp->payload.mode.bits.exec.csd;
            e->mode_exec.mode = e->mode_exec.csl ? (e->mode_exec.csd ? 0 : 64) : (e->mode_exec.csd ? 32 : 16);
        } else {
            pp->payload.mode.leaf = pt_mol_tsx;
            pp->payload.mode.bits.tsx.intx = rn(s, 2);
            pp->payload.mode.bits.tsx.abrt = rn(s, 2);
            e->type = FWPT_PKT_MODE_TSX;
            e->mode_tsx.intx = pp->payload.mode.bits.tsx.intx;
            e->mode_tsx.abrt = pp->payload.mode.bits.tsx.abrt;
        }
        break;
    case ppt_pip:
        pp->payload.pip.cr3 = rbits(s, 52) & ~0x1full;
        pp->payload.pip.nr = rn(s, 2);
        e->type = FWPT_PKT_PIP;
        e->pip.cr3 = pp->payload.pip.cr3;
        e->pip.nr = pp->payload.pip.nr;
        break;
    case ppt_vmcs:
        pp->payload.vmcs.base = rbits(s, 52) & ~0xfffull;
        e->type = FWPT_PKT_VMCS;
        e->vmcs.base = pp->payload.vmcs.base;
        break;
    case ppt_cbr: pp->payload.cbr.ratio = (uint8_t)rnd(s); e->type = FWPT_PKT_CBR; e->cbr.ratio = pp->payload.cbr.ratio; break;
    case ppt_tsc: pp->payload.tsc.tsc = rbits(s, 56); e->type = FWPT_PKT_TSC; e->tsc.tsc = pp->payload.tsc.tsc; break;
    case ppt_tma:
        pp->payload.tma.ctc = (uint16_t)rnd(s);
        pp->payload.tma.fc = (uint16_t)rbits(s, 9);
        e->type = FWPT_PKT_TMA;
        e->tma.ctc = pp->payload.tma.ctc;
        e->tma.fc = pp->payload.tma.fc;
        break;
    case ppt_mtc: pp->payload.mtc.ctc = (uint8_t)rnd(s); e->type = FWPT_PKT_MTC; e->mtc.ctc = pp->payload.mtc.ctc; break;
    case ppt_cyc: pp->payload.cyc.value = rbits(s, rn(s, 62)); e->type = FWPT_PKT_CYC; e->cyc.value = pp->payload.cyc.value; break;
    case ppt_mnt: pp->payload.mnt.payload = rnd(s); e->type = FWPT_PKT_MNT; e->mnt.payload = pp->payload.mnt.payload; break;
    case ppt_exstop: pp->payload.exstop.ip = rn(s, 2); e->type = FWPT_PKT_EXSTOP; e->exstop.ip = pp->payload.exstop.ip; break;
    case ppt_mwait:
        pp->payload.mwait.hints = (uint32_t)rnd(s);
        pp->payload.mwait.ext = (uint32_t)rnd(s);
        e->type = FWPT_PKT_MWAIT;
        e->mwait.hints = pp->payload.mwait.hints;
        e->mwait.ext = pp->payload.mwait.ext;
        break;
    case ppt_pwre:
        pp->payload.pwre.state = (uint8_t)rn(s, 16);
        pp->payload.pwre.sub_state = (uint8_t)rn(s, 16);
        pp->payload.pwre.hw = rn(s, 2);
        e->type = FWPT_PKT_PWRE;
        e->pwre.state = pp->payload.pwre.state;
        e->pwre.sub_state = pp->payload.pwre.sub_state;
        e->pwre.hw = 0; /* libipt writes HW at byte 2 bit 3; the SDM puts it at bit 7 (checked by vectors) */
        break;
    case ppt_pwrx:
        pp->payload.pwrx.last = (uint8_t)rn(s, 16);
        pp->payload.pwrx.deepest = (uint8_t)rn(s, 16);
        pp->payload.pwrx.interrupt = rn(s, 2);
        pp->payload.pwrx.store = rn(s, 2);
        pp->payload.pwrx.autonomous = rn(s, 2);
        e->type = FWPT_PKT_PWRX;
        e->pwrx.last = pp->payload.pwrx.last;
        e->pwrx.deepest = pp->payload.pwrx.deepest;
        e->pwrx.wake_reason = (uint8_t)(pp->payload.pwrx.interrupt | pp->payload.pwrx.store << 2 | pp->payload.pwrx.autonomous << 3);
        break;
    case ppt_ptw:
        pp->payload.ptw.plc = (uint8_t)rn(s, 2);
        pp->payload.ptw.payload = pp->payload.ptw.plc ? rnd(s) : rbits(s, 32);
        pp->payload.ptw.ip = rn(s, 2);
        e->type = FWPT_PKT_PTW;
        e->ptw.plc = pp->payload.ptw.plc;
        e->ptw.bytes = pp->payload.ptw.plc ? 8 : 4;
        e->ptw.payload = pp->payload.ptw.payload;
        e->ptw.ip = pp->payload.ptw.ip;
        break;
    default:
        break;
    }
}

/* Hand-encode one of the packets libipt 2.0.5 lacks (SDM tables). Returns bytes written. */
static size_t gen_new(struct pkt_stream *s, uint8_t *p, struct fwpt_packet *e, uint8_t *block)
{
    memset(e, 0, sizeof *e);
    unsigned k = *block ? rn(s, 7) : rn(s, 5);
    if (k >= 5) { /* BIP inside a block */
        unsigned id = rn(s, 32), n = *block;
        uint64_t v = rbits(s, 8 * n);
        p[0] = (uint8_t)(id << 3 | 4);
        for (unsigned i = 0; i < n; i++)
            p[1 + i] = (uint8_t)(v >> (8 * i));
        e->type = FWPT_PKT_BIP;
        e->bip.id = (uint8_t)id;
        e->bip.bytes = (uint8_t)n;
        e->bip.value = v;
        return 1 + n;
    }
    switch (k) {
    case 0: { /* BBP: 02 63 [SZ:1 rsvd:2 Type:5] */
        unsigned sz = rn(s, 2), ty = rn(s, 32);
        p[0] = 0x02; p[1] = 0x63; p[2] = (uint8_t)(sz << 7 | ty);
        e->type = FWPT_PKT_BBP; e->bbp.sz = (uint8_t)sz; e->bbp.type = (uint8_t)ty; e->bbp.item_bytes = sz ? 4 : 8;
        *block = e->bbp.item_bytes;
        return 3;
    }
    case 1: { /* BEP: 02 33 / 02 B3 */
        unsigned ip = rn(s, 2);
        p[0] = 0x02; p[1] = (uint8_t)(0x33 | ip << 7);
        e->type = FWPT_PKT_BEP; e->bep.ip = ip;
        *block = 0;
        return 2;
    }
    case 2: { /* CFE: 02 13 [IP:1 rsvd:2 Type:5] Vector */
        unsigned ip = rn(s, 2), ty = rn(s, 32), vec = rn(s, 256);
        p[0] = 0x02; p[1] = 0x13; p[2] = (uint8_t)(ip << 7 | ty); p[3] = (uint8_t)vec;
        e->type = FWPT_PKT_CFE; e->cfe.ip = ip; e->cfe.type = (uint8_t)ty; e->cfe.vector = (uint8_t)vec;
        *block = 0;
        return 4;
    }
    case 4: { /* TRIG: D9 [IP:1 ICNTV:1 MULT:1 rsvd:5] TRBV [ICNT[15:0] when ICNTV] */
        unsigned ip = rn(s, 2), icntv = rn(s, 2), mult = rn(s, 2), trbv = rn(s, 256), icnt = rn(s, 65536);
        p[0] = 0xd9; p[1] = (uint8_t)(ip << 7 | icntv << 6 | mult << 5); p[2] = (uint8_t)trbv;
        e->type = FWPT_PKT_TRIG; e->trig.ip = ip; e->trig.icntv = icntv; e->trig.mult = mult;
        e->trig.trbv = (uint8_t)trbv;
        *block = 0;
        if (!icntv)
            return 3;
        p[3] = (uint8_t)icnt; p[4] = (uint8_t)(icnt >> 8);
        e->trig.icnt = (uint16_t)icnt;
        return 5;
    }
    default: { /* EVD: 02 53 [rsvd:2 Type:6] Payload[63:0] */
        unsigned ty = rn(s, 64);
        uint64_t v = rnd(s);
        p[0] = 0x02; p[1] = 0x53; p[2] = (uint8_t)ty;
        for (int i = 0; i < 8; i++)
            p[3 + i] = (uint8_t)(v >> (8 * i));
        e->type = FWPT_PKT_EVD; e->evd.type = (uint8_t)ty; e->evd.payload = v;
        *block = 0;
        return 11;
    }
    }
}

/* Packets that end a block in fwpt (and so must reset the generator's block state). */
static int ends_block(uint8_t t)
{
    switch (t) {
    case FWPT_PKT_PAD: case FWPT_PKT_TSC: case FWPT_PKT_TMA: case FWPT_PKT_MTC: case FWPT_PKT_FUP:
    case FWPT_PKT_CYC: case FWPT_PKT_CBR: case FWPT_PKT_MNT: case FWPT_PKT_EXSTOP: case FWPT_PKT_PWRE:
    case FWPT_PKT_PWRX: case FWPT_PKT_BIP: case FWPT_PKT_BBP:
        return 0;
    default:
        return 1;
    }
}

/* Build a stream: PSB first, then random packets. with_new: also BBP/BIP/BEP/CFE/EVD/TRIG. */
size_t pkt_stream_build(struct pkt_stream *s, size_t npkts, int with_new)
{
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = s->buf;
    cfg.end = s->buf + sizeof s->buf;
    struct pt_encoder *enc = pt_alloc_encoder(&cfg);
    uint64_t last_ip = 0, off = 0;
    uint8_t block = 0;
    s->nexp = 0;
    s->enc_errors = 0;
    for (size_t i = 0; i < npkts && s->nexp < PKT_STREAM_MAXPKT; i++) {
        struct pt_packet pp;
        struct fwpt_packet *e = &s->exp[s->nexp];
        if (i == 0) {
            memset(&pp, 0, sizeof pp);
            pp.type = ppt_psb;
            memset(e, 0, sizeof *e);
            e->type = FWPT_PKT_PSB;
            last_ip = 0;
        } else if (with_new && rn(s, 4) == 0) {
            size_t n = gen_new(s, s->buf + off, e, &block);
            e->offset = off;
            e->size = (uint8_t)n;
            off += n;
            pt_enc_sync_set(enc, off);
            s->nexp++;
            continue;
        } else {
            gen_libipt(s, &pp, e, &last_ip);
        }
        int n = pt_enc_next(enc, &pp);
        if (n < 0) {
            fprintf(stderr, "pt_enc_next(type %d) failed: %d\n", pp.type, n);
            s->enc_errors++;
            break;
        }
        if (block && e->type == FWPT_PKT_TNT_8 && (s->buf[off] & 7) == 4) {
            /* inside a block, xxxxx100b reads as BIP (SDM): close the block with a BEP first */
            memmove(s->buf + off + 2, s->buf + off, (size_t)n);
            s->buf[off] = 0x02;
            s->buf[off + 1] = 0x33;
            struct fwpt_packet save = *e;
            memset(e, 0, sizeof *e);
            e->type = FWPT_PKT_BEP;
            e->offset = off;
            e->size = 2;
            s->nexp++;
            off += 2;
            e = &s->exp[s->nexp];
            *e = save;
            block = 0;
            pt_enc_sync_set(enc, off + (uint64_t)n);
        }
        e->offset = off;
        e->size = (uint8_t)n;
        if (ends_block(e->type))
            block = 0;
        off += (uint64_t)n;
        s->nexp++;
    }
    pt_free_encoder(enc);
    return s->len = (size_t)off;
}
size_t pkt_corrupt(uint64_t *rng, const uint8_t *src, size_t len, uint8_t *out)
{
#define RN(n) ((unsigned)(xorshift64(rng) % (n)))
    size_t clen = len;
    memcpy(out, src, clen);
    if (!clen)
        return 0;
    unsigned kind = RN(4);
    if (kind == 0) { /* bit flips */
        for (unsigned k = 1 + RN(8); k--;)
            out[RN((unsigned)clen)] ^= (uint8_t)(1u << RN(8));
    } else if (kind == 1) { /* byte deletions */
        for (unsigned k = 1 + RN(4); k-- && clen > 1;) {
            size_t at = RN((unsigned)clen);
            memmove(out + at, out + at + 1, clen - at - 1);
            clen--;
        }
    } else if (kind == 2) { /* truncation */
        clen = 1 + RN((unsigned)clen);
    } else { /* random bytes overwritten, incl. PSB fragments */
        for (unsigned k = 1 + RN(4); k--;) {
            size_t at = RN((unsigned)clen);
            out[at] = RN(3) ? (uint8_t)xorshift64(rng) : (RN(2) ? 0x02 : 0x82);
        }
    }
    return clen;
#undef RN
}

size_t pkt_stream_corrupt(struct pkt_stream *s, uint8_t *out) { return pkt_corrupt(&s->rng, s->buf, s->len, out); }
