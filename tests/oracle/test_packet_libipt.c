/* Differential test of decode/packet against libipt (Debian libipt-dev 2.0.5).
 *  1. Random valid streams of every packet type libipt can encode (pt_enc_next): fwpt_pkt_next and
 *     pt_pkt_next must agree packet by packet (offset, type, size, payload) and fwpt must reproduce
 *     exactly what the generator encoded (incl. the reconstructed IP from an independent model).
 *  2. Streams that also hold BBP/BIP/BEP/CFE/EVD/TRIG (libipt 2.0.5 cannot encode or decode them):
 *     hand-encoded from the SDM tables, checked against the generator's record only.
 *  3. Corrupted variants (bit flips, byte deletions, truncations): both decoders in lockstep; errors
 *     at the same offset with the same class, resync (pt_pkt_sync_forward) at the same PSB, bounded
 *     iterations; forward and backward PSB walks agree.
 * FWPT_PKT_SEEDS overrides the seed count. */
#include <intel-pt.h>
#include "decode/packet.h"
#include "decode/packet_fast.h" /* private: fwpt_pkt_next_slow */
#include "tests/common/pkt_equal.h"
#include "tests/common/pkt_stream.h"
#include "tests/check.h"

static struct pkt_stream st; /* the seed's stream: st.buf, st.len, st.exp (tests/common/pkt_stream.h) */
static unsigned rn(unsigned n) { return pkt_stream_rn(&st, n); }

static unsigned long cmp_fail_dumped;

/* fwpt packet vs libipt packet: type, size and payload in libipt's terms. */
static int same_as_libipt(const struct fwpt_packet *f, const struct pt_packet *l, const uint8_t *raw)
{
    if (f->size != l->size)
        return 0;
    switch (l->type) {
    case ppt_pad: return f->type == FWPT_PKT_PAD;
    case ppt_psb: return f->type == FWPT_PKT_PSB;
    case ppt_psbend: return f->type == FWPT_PKT_PSBEND;
    case ppt_stop: return f->type == FWPT_PKT_STOP;
    case ppt_ovf: return f->type == FWPT_PKT_OVF;
    case ppt_fup: case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: {
        enum fwpt_pkt_type t = l->type == ppt_fup ? FWPT_PKT_FUP : l->type == ppt_tip ? FWPT_PKT_TIP
                             : l->type == ppt_tip_pge ? FWPT_PKT_TIP_PGE : FWPT_PKT_TIP_PGD;
        return f->type == t && f->ip.ipc == (unsigned)l->payload.ip.ipc && f->ip.payload == l->payload.ip.ip &&
               f->ip.suppressed == (l->payload.ip.ipc == pt_ipc_suppressed);
    }
    case ppt_tnt_8: case ppt_tnt_64: {
        if (f->type != (l->type == ppt_tnt_8 ? FWPT_PKT_TNT_8 : FWPT_PKT_TNT_64) || f->tnt.count != l->payload.tnt.bit_size)
            return 0;
        unsigned n = l->payload.tnt.bit_size;
        for (unsigned i = 0; i < n; i++)
            if (((f->tnt.bits >> i) & 1) != ((l->payload.tnt.payload >> (n - 1 - i)) & 1))
                return 0;
        return 1;
    }
    case ppt_mode:
        if (l->payload.mode.leaf == pt_mol_exec)
            return f->type == FWPT_PKT_MODE_EXEC && f->mode_exec.csl == l->payload.mode.bits.exec.csl &&
                   f->mode_exec.csd == l->payload.mode.bits.exec.csd &&
                   f->mode_exec.iflag == ((raw[1] & 4) != 0);
        return f->type == FWPT_PKT_MODE_TSX && f->mode_tsx.intx == l->payload.mode.bits.tsx.intx &&
               f->mode_tsx.abrt == l->payload.mode.bits.tsx.abrt;
    case ppt_pip: return f->type == FWPT_PKT_PIP && f->pip.cr3 == l->payload.pip.cr3 && f->pip.nr == l->payload.pip.nr;
    case ppt_vmcs: return f->type == FWPT_PKT_VMCS && f->vmcs.base == l->payload.vmcs.base;
    case ppt_cbr: return f->type == FWPT_PKT_CBR && f->cbr.ratio == l->payload.cbr.ratio;
    case ppt_tsc: return f->type == FWPT_PKT_TSC && f->tsc.tsc == l->payload.tsc.tsc;
    case ppt_tma: return f->type == FWPT_PKT_TMA && f->tma.ctc == l->payload.tma.ctc && f->tma.fc == l->payload.tma.fc;
    case ppt_mtc: return f->type == FWPT_PKT_MTC && f->mtc.ctc == l->payload.mtc.ctc;
    case ppt_cyc: return f->type == FWPT_PKT_CYC && f->cyc.value == l->payload.cyc.value;
    case ppt_mnt: return f->type == FWPT_PKT_MNT && f->mnt.payload == l->payload.mnt.payload;
    case ppt_exstop: return f->type == FWPT_PKT_EXSTOP && f->exstop.ip == l->payload.exstop.ip;
    case ppt_mwait: return f->type == FWPT_PKT_MWAIT && f->mwait.hints == l->payload.mwait.hints && f->mwait.ext == l->payload.mwait.ext;
    case ppt_pwre:
        return f->type == FWPT_PKT_PWRE && f->pwre.state == l->payload.pwre.state &&
               f->pwre.sub_state == l->payload.pwre.sub_state && f->pwre.hw == ((raw[2] & 0x80) != 0);
    case ppt_pwrx:
        return f->type == FWPT_PKT_PWRX && f->pwrx.last == l->payload.pwrx.last &&
               f->pwrx.deepest == l->payload.pwrx.deepest &&
               (f->pwrx.wake_reason & 1) == l->payload.pwrx.interrupt &&
               ((f->pwrx.wake_reason >> 2) & 1) == l->payload.pwrx.store &&
               ((f->pwrx.wake_reason >> 3) & 1) == l->payload.pwrx.autonomous;
    case ppt_ptw:
        return f->type == FWPT_PKT_PTW && f->ptw.payload == l->payload.ptw.payload && f->ptw.plc == l->payload.ptw.plc &&
               f->ptw.ip == l->payload.ptw.ip;
    default: return 0;
    }
}


static enum fwpt_status map_libipt_err(int err, int at_end)
{
    switch (-err) {
    case pte_eos: return at_end ? FWPT_E_EOS : FWPT_E_TRUNCATED;
    case pte_bad_opc: return FWPT_E_BAD_OPCODE;
    case pte_bad_packet: return FWPT_E_BAD_PACKET;
    default: return FWPT_STATUS_COUNT;
    }
}

static unsigned long n_paths_pkts, n_tma_rsvd, n_cyc_long, n_libipt_stuck, n_valid_pkts, n_new_pkts, n_corrupt, n_err_agree, n_resync_agree, n_unchecked_new,
    n_back_agree;

static int is_new_type(uint8_t t)
{
    return t == FWPT_PKT_BBP || t == FWPT_PKT_BIP || t == FWPT_PKT_BEP || t == FWPT_PKT_CFE || t == FWPT_PKT_EVD ||
           t == FWPT_PKT_TRIG;
}

/* A CYC whose Exp chain runs past 9 bytes (more than 61 counter bits), with bytes left after the 9th: libipt 2.0.5
 * rejects it (bad packet); the SDM sets no limit, and fwpt decodes it (the low 64 bits). */
static int cyc_past_9_bytes(const uint8_t *p, size_t avail)
{
    if ((p[0] & 7) != 7 || avail <= 9)
        return 0;
    for (unsigned i = 1; i <= 8; i++)
        if (!(p[i] & 1))
            return 0;
    return 1;
}

/* Check fwpt alone against the generator's record. */
static void check_against_record(const uint8_t *b, size_t len, const char *what, uint64_t seed)
{
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    fwpt_pkt_init(&dec, b, len);
    CHECK_EQ(fwpt_pkt_sync_set(&dec, 0), FWPT_OK);
    size_t i = 0;
    for (;;) {
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK || i >= st.nexp) {
            check_failed++;
            fprintf(stderr, "%s seed %llu: fwpt status %s at %llu (packet %zu of %zu)\n", what,
                    (unsigned long long)seed, fwpt_status_name(s), (unsigned long long)pkt.offset, i, st.nexp);
            return;
        }
        const struct fwpt_packet *e = &st.exp[i];
        int ok = pkt.offset == e->offset && pkt.size == e->size && pkt_same_fields(&pkt, e);
        if (!ok) {
            check_failed++;
            if (cmp_fail_dumped++ < 10)
                fprintf(stderr, "%s seed %llu: packet %zu at %llu: fwpt %s size %u, expected %s size %u at %llu\n",
                        what, (unsigned long long)seed, i, (unsigned long long)pkt.offset,
                        fwpt_pkt_type_name(pkt.type), pkt.size, fwpt_pkt_type_name(e->type), e->size,
                        (unsigned long long)e->offset);
            return;
        }
        check_passed++;
        if (is_new_type(pkt.type))
            n_new_pkts++;
        i++;
    }
    CHECK_EQ(i, st.nexp);
}

/* The inline fast path, the slow path alone and the batch call must produce identical packets and errors,
 * valid or corrupt input alike (resync at the next PSB after errors). */
static struct fwpt_packet ref_pkts[PKT_STREAM_MAXPKT * 2], batch_pkts[64];
static void check_paths_agree(const uint8_t *b, size_t len, uint64_t seed)
{
    struct fwpt_pkt_decoder d1, d2, d3;
    fwpt_pkt_init(&d1, b, len);
    fwpt_pkt_init(&d2, b, len);
    fwpt_pkt_init(&d3, b, len);
    size_t n = 0, guard = 0;
    int ok = 1;
    for (; ok && n < PKT_STREAM_MAXPKT * 2 && guard++ < 2 * len + 8;) {
        struct fwpt_packet a, c;
        memset(&a, 0, sizeof a);
        memset(&c, 0, sizeof c);
        enum fwpt_status s1 = fwpt_pkt_next(&d1, &a);
        enum fwpt_status s2 = fwpt_pkt_next_slow(&d2, &c);
        if (s1 != s2 || a.offset != c.offset || a.size != c.size || !pkt_same_fields(&a, &c) ||
            d1.offset != d2.offset || d1.last_ip != d2.last_ip || d1.block_item_bytes != d2.block_item_bytes) {
            fprintf(stderr, "seed %llu: fast/slow paths differ at %llu: %s/%s %s/%s\n", (unsigned long long)seed,
                    (unsigned long long)a.offset, fwpt_status_name(s1), fwpt_status_name(s2),
                    fwpt_pkt_type_name(a.type), fwpt_pkt_type_name(c.type));
            ok = 0;
            break;
        }
        if (s1 == FWPT_E_EOS)
            break;
        if (s1 != FWPT_OK) {
            a.type = FWPT_PKT_NONE;
            a.size = 0;
            ref_pkts[n++] = a; /* errors recorded with size 0 */
            enum fwpt_status r1 = fwpt_pkt_sync_forward(&d1), r2 = fwpt_pkt_sync_forward(&d2);
            if (r1 != r2 || d1.offset != d2.offset) {
                ok = 0;
                break;
            }
            if (r1 != FWPT_OK)
                break;
            continue;
        }
        ref_pkts[n++] = a;
    }
    CHECK(ok);
    /* batch with random sizes */
    size_t i = 0;
    for (; ok && i < n;) {
        enum fwpt_status st;
        size_t want = 1 + rn(64);
        size_t k = fwpt_pkt_next_batch(&d3, batch_pkts, want, &st);
        for (size_t j = 0; j < k; j++, i++) {
            const struct fwpt_packet *r = &ref_pkts[i];
            if (i >= n || r->type != batch_pkts[j].type || r->offset != batch_pkts[j].offset ||
                r->size != batch_pkts[j].size || !pkt_same_fields(r, &batch_pkts[j])) {
                fprintf(stderr, "seed %llu: batch differs at packet %zu\n", (unsigned long long)seed, i);
                ok = 0;
                break;
            }
        }
        if (!ok)
            break;
        if (st == FWPT_E_EOS)
            break;
        if (st != FWPT_OK) {
            if (i >= n || ref_pkts[i].type != FWPT_PKT_NONE || ref_pkts[i].offset != d3.offset) {
                fprintf(stderr, "seed %llu: batch error differs at packet %zu\n", (unsigned long long)seed, i);
                ok = 0;
                break;
            }
            i++;
            if (fwpt_pkt_sync_forward(&d3) != FWPT_OK)
                break;
        } else if (k != want) {
            ok = 0;
        }
    }
    CHECK(ok && i == n);
    n_paths_pkts += n;
}

/* Lockstep fwpt vs libipt over b[0..len). Returns 0 on the first disagreement. */
static int lockstep(const uint8_t *b, size_t len, uint64_t seed, int count_valid)
{
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)b;
    cfg.end = (uint8_t *)b + len;
    struct pt_packet_decoder *ld = pt_pkt_alloc_decoder(&cfg);
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    struct pt_packet lp;
    fwpt_pkt_init(&dec, b, len);
    int ok = 1;
    int lr = pt_pkt_sync_forward(ld);
    enum fwpt_status fr = fwpt_pkt_sync_forward(&dec);
    size_t guard = 0;
    for (;;) {
        if (++guard > len + 64) {
            fprintf(stderr, "seed %llu: lockstep did not terminate\n", (unsigned long long)seed);
            ok = 0;
            break;
        }
        /* after a (re)sync: same PSB or both without one */
        if ((lr < 0) != (fr != FWPT_OK)) {
            fprintf(stderr, "seed %llu: sync disagrees: libipt %d, fwpt %s\n", (unsigned long long)seed, lr,
                    fwpt_status_name(fr));
            ok = 0;
            break;
        }
        if (lr < 0)
            break;
        uint64_t loff = 0;
        pt_pkt_get_offset(ld, &loff);
        if (loff != dec.offset) {
            fprintf(stderr, "seed %llu: sync offsets differ: libipt %llu, fwpt %zu\n", (unsigned long long)seed,
                    (unsigned long long)loff, dec.offset);
            ok = 0;
            break;
        }
        n_resync_agree++;
        /* decode until an error */
        for (;;) {
            uint64_t at = 0;
            pt_pkt_get_offset(ld, &at);
            lr = pt_pkt_next(ld, &lp, sizeof lp);
            fr = fwpt_pkt_next(&dec, &pkt);
            if (lr >= 0 && fr == FWPT_OK) {
                if (!same_as_libipt(&pkt, &lp, b + at) || pkt.offset != at) {
                    if (cmp_fail_dumped++ < 10)
                        fprintf(stderr, "seed %llu: packet at %llu differs: libipt type %d size %u, fwpt %s size %u\n",
                                (unsigned long long)seed, (unsigned long long)at, lp.type, lp.size,
                                fwpt_pkt_type_name(pkt.type), pkt.size);
                    ok = 0;
                    goto out;
                }
                if (count_valid)
                    n_valid_pkts++;
                if (++guard > len + 64)
                    break;
                continue;
            }
            if (lr == -pte_eos && fr == FWPT_E_EOS && at == len)
                goto out;
            if (lr == -pte_bad_packet && fr == FWPT_OK && pkt.type == FWPT_PKT_TMA && pkt.offset == at &&
                (b[at + 4] != 0 || (b[at + 6] & 0xfe) != 0)) {
                /* libipt 2.0.5 rejects TMA with reserved bits set; the SDM says RSVD bits are not
                 * guaranteed to be 0, so fwpt decodes it. Resync both after it. */
                n_tma_rsvd++;
                dec.offset = pkt.offset;
            } else if (lr == -pte_bad_packet && cyc_past_9_bytes(b + at, len - at) &&
                       ((fr == FWPT_OK && pkt.type == FWPT_PKT_CYC && pkt.offset == at) || fr == FWPT_E_TRUNCATED ||
                        fr == FWPT_E_TOO_LONG)) {
                /* libipt 2.0.5 stops CYC at 64 bits; fwpt reads the whole chain: resync both from the CYC */
                n_cyc_long++;
                dec.offset = at;
            } else if (lr < 0 && fr == FWPT_OK && lr == -pte_bad_opc && is_new_type(pkt.type)) {
                /* a packet libipt 2.0.5 does not know: resync both after it */
                n_unchecked_new++;
                dec.offset = pkt.offset; /* restart the search where libipt stopped */
            } else if (lr == -pte_bad_opc && fr == FWPT_E_TRUNCATED &&
                       (b[at] == 0xd9 || (at + 1 < len && b[at] == 0x02 &&
                        (b[at + 1] == 0x63 || (b[at + 1] & 0x7f) == 0x33 || b[at + 1] == 0x13 || b[at + 1] == 0x53)))) {
                /* a truncated BBP/BEP/CFE/EVD/TRIG: an opcode libipt 2.0.5 does not know */
                n_unchecked_new++;
            } else if (lr < 0 && fr != FWPT_OK) {
                enum fwpt_status want = map_libipt_err(lr, at == len);
                enum fwpt_status got = fr == FWPT_E_BAD_IPC ? FWPT_E_BAD_PACKET : fr;
                if (want != got || pkt.offset != at || dec.offset != at) {
                    fprintf(stderr, "seed %llu: error at %llu: libipt %d, fwpt %s at %llu\n", (unsigned long long)seed,
                            (unsigned long long)at, lr, fwpt_status_name(fr), (unsigned long long)pkt.offset);
                    ok = 0;
                    goto out;
                }
                n_err_agree++;
            } else {
                fprintf(stderr, "seed %llu: at %llu libipt %d (type %d), fwpt %s (%s)\n", (unsigned long long)seed,
                        (unsigned long long)at, lr, lr >= 0 ? (int)lp.type : -1, fwpt_status_name(fr),
                        fwpt_pkt_type_name(pkt.type));
                ok = 0;
                goto out;
            }
            if (getenv("FWPT_PKT_TRACE"))
                fprintf(stderr, "resync from libipt %llu fwpt %zu (sync %zu)\n", (unsigned long long)at, dec.offset,
                        dec.sync_offset);
            lr = pt_pkt_sync_forward(ld);
            fr = fwpt_pkt_sync_forward(&dec);
            break;
        }
    }
out:
    pt_pkt_free_decoder(ld);
    return ok;
}

/* PSB walks: forward from the start and backward from the end, both decoders. */
static int psb_walks(const uint8_t *b, size_t len, uint64_t seed)
{
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)b;
    cfg.end = (uint8_t *)b + len;
    int ok = 1;
    for (int dir = 0; dir < 2 && ok; dir++) {
        struct pt_packet_decoder *ld = pt_pkt_alloc_decoder(&cfg);
        struct fwpt_pkt_decoder dec;
        fwpt_pkt_init(&dec, b, len);
        uint64_t lprev = UINT64_MAX;
        for (size_t guard = 0; guard <= len; guard++) {
            int lr = dir ? pt_pkt_sync_backward(ld) : pt_pkt_sync_forward(ld);
            enum fwpt_status fr = dir ? fwpt_pkt_sync_backward(&dec) : fwpt_pkt_sync_forward(&dec);
            uint64_t loff = 0;
            if (lr >= 0)
                pt_pkt_get_offset(ld, &loff);
            if (dir && lr >= 0 && loff == lprev) {
                /* libipt's backward search can find the PSB it stands on again when the 02 82 run in
                 * front of it is longer than one PSB: it does not move. fwpt moves strictly before. */
                n_libipt_stuck++;
                break;
            }
            lprev = loff;
            if ((lr < 0) != (fr != FWPT_OK) || (lr >= 0 && loff != dec.offset)) {
                fprintf(stderr, "seed %llu: %s PSB walk: libipt %d @%llu, fwpt %s @%zu\n", (unsigned long long)seed,
                        dir ? "backward" : "forward", lr, (unsigned long long)loff, fwpt_status_name(fr), dec.offset);
                ok = 0;
                break;
            }
            if (lr < 0)
                break;
            n_back_agree++;
        }
        pt_pkt_free_decoder(ld);
    }
    return ok;
}

static uint8_t cbuf[PKT_STREAM_BYTES];

/* The seed count: FWPT_PKT_SEEDS overrides. */
static unsigned n_seeds(void)
{
    const char *env = getenv("FWPT_PKT_SEEDS");
    return env ? (unsigned)atoi(env) : 10000;
}

/* Seed s: its stream (every third with the new packet types) checked as a valid stream, then four corrupted
 * variants of it (the generator's random numbers run on through both: a seed is checked whole). */
static void check_seed(unsigned s)
{
    st.rng = 0x9e3779b97f4a7c15ull * s + 12345;
    size_t npk = 20 + rn(s % 10 == 0 ? 3000 : 300);
    int with_new = (s % 3) == 0;
    size_t len = pkt_stream_build(&st, npk, with_new);
    CHECK_EQ(st.enc_errors, 0);
    /* 1./2. valid streams */
    check_against_record(st.buf, len, with_new ? "new-packets" : "valid", s);
    check_paths_agree(st.buf, len, s);
    if (!with_new)
        CHECK(lockstep(st.buf, len, s, 1));
    /* 3. corrupted variants; FWPT_PKT_DUMP=S*100+V writes variant V of seed S to /tmp/fwpt-pkt-dump.bin */
    for (int v = 0; v < 4; v++) {
        size_t clen = pkt_stream_corrupt(&st, cbuf);
        n_corrupt++;
        if (getenv("FWPT_PKT_DUMP") && strtoull(getenv("FWPT_PKT_DUMP"), 0, 0) == s * 100 + (unsigned)v) {
            FILE *f = fopen("/tmp/fwpt-pkt-dump.bin", "wb");
            fwrite(cbuf, 1, clen, f);
            fclose(f);
        }
        CHECK(lockstep(cbuf, clen, s * 100 + (unsigned)v, 0));
        check_paths_agree(cbuf, clen, s * 100 + (unsigned)v);
        CHECK(psb_walks(cbuf, clen, s * 100 + (unsigned)v));
    }
}

/* The seeds of one kind (with_new: every third, with the new packet types; else the others), their totals. */
static void check_seeds(int with_new)
{
    unsigned seeds = n_seeds();
    n_paths_pkts = n_tma_rsvd = n_cyc_long = n_libipt_stuck = n_valid_pkts = n_new_pkts = n_corrupt = 0;
    n_err_agree = n_resync_agree = n_unchecked_new = n_back_agree = 0;
    for (unsigned s = 1; s <= seeds; s++)
        if (((s % 3) == 0) == with_new)
            check_seed(s);
    printf("packets decoded identically by the fast path, the slow path and the batch call: %lu\n", n_paths_pkts);
    printf("packets compared with libipt: %lu; new-type packets checked against the generator: %lu\n", n_valid_pkts,
           n_new_pkts);
    printf("corrupted streams: %lu; errors agreeing (offset+class): %lu; resyncs agreeing: %lu; "
           "PSB walk steps agreeing: %lu; packets libipt cannot decode: %lu; libipt backward walks stuck: %lu; "
           "TMA with reserved bits (libipt rejects): %lu; CYC past 9 bytes (libipt rejects): %lu\n",
           n_corrupt, n_err_agree, n_resync_agree, n_back_agree, n_unchecked_new, n_libipt_stuck, n_tma_rsvd, n_cyc_long);
}

/* 1. random valid streams of every packet type libipt can encode: fwpt and libipt agree packet by packet, fwpt
 * gives what the generator encoded, the fast path, the slow path and the batch call agree; 3. then their
 * corrupted variants in lockstep (errors at the same offset and class, resync at the same PSB, PSB walks) */
TEST(libipt_types_streams_and_corruptions)
{
    check_seeds(0);
}

/* 2. streams that also hold BBP/BIP/BEP/CFE/EVD/TRIG (libipt cannot encode or decode them): checked against the
 * generator's record only; 3. then their corrupted variants, as above */
TEST(new_types_streams_and_corruptions)
{
    check_seeds(1);
}

TEST_MAIN("test_packet_libipt")
