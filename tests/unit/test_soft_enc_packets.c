/* sim/soft_enc's packet-by-packet encoder (fwpt_soft_enc_packet, fwpt_soft_enc_ip), which writes the traces of
 * tests/cases: every packet type the SDM defines ("Packet Definitions") decoded back by decode/packet with its type,
 * size and fields; the bytes of libipt's encoder for the packets libipt knows; the refusals; IP compression. */
#include <intel-pt.h>
#include <string.h>

#include "decode/packet.h"
#include "sim/soft_enc.h"
#include "tests/check.h"
#include "tests/common/mem_sink.h"
#include "tests/common/pkt_equal.h"

struct trace {
    struct fwpt_soft_enc enc;
    struct mem bytes;
};

static enum fwpt_status trace_emit(void *ctx, const uint8_t *b, size_t n)
{
    mem_write(&((struct trace *)ctx)->bytes, (const char *)b, n);
    return FWPT_OK;
}

static void trace_init(struct trace *t)
{
    memset(t, 0, sizeof *t);
    fwpt_soft_enc_init(&t->enc, &(struct fwpt_soft_enc_config){0}, trace_emit, t);
}

/* Each packet alone: the bytes it encodes to. */
static size_t encode(const struct fwpt_packet *p, uint8_t *out)
{
    struct trace t;
    trace_init(&t);
    CHECK_EQ(fwpt_soft_enc_packet(&t.enc, p), FWPT_OK);
    CHECK(t.bytes.n > 0 && t.bytes.n <= 32);
    size_t n = t.bytes.n <= 32 ? t.bytes.n : 0;
    memcpy(out, t.bytes.p, n);
    free(t.bytes.p);
    return n;
}

/* One of each packet type the SDM defines, with payloads that fill their fields. */
static const struct fwpt_packet all_packets[] = {
    {.type = FWPT_PKT_PAD}, {.type = FWPT_PKT_PSB}, {.type = FWPT_PKT_PSBEND},
    {.type = FWPT_PKT_TNT_8, .tnt = {.count = 1, .bits = 1}},
    {.type = FWPT_PKT_TNT_8, .tnt = {.count = 6, .bits = 0x2d}},
    {.type = FWPT_PKT_TNT_64, .tnt = {.count = 47, .bits = 0x5a5a5a5a5a5aull & ((1ull << 47) - 1)}},
    {.type = FWPT_PKT_TNT_64, .tnt = {.count = 7, .bits = 0x41}},
    {.type = FWPT_PKT_TIP, .ip = {.ipc = 1, .payload = 0x1234}},
    {.type = FWPT_PKT_TIP_PGE, .ip = {.ipc = 2, .payload = 0x12345678}},
    {.type = FWPT_PKT_TIP_PGD, .ip = {.ipc = 0}},
    {.type = FWPT_PKT_FUP, .ip = {.ipc = 3, .payload = 0x800012345678ull}},
    {.type = FWPT_PKT_FUP, .ip = {.ipc = 4, .payload = 0x123456789abcull}},
    {.type = FWPT_PKT_TIP, .ip = {.ipc = 6, .payload = 0xffffffff12345678ull}},
    {.type = FWPT_PKT_PIP, .pip = {.cr3 = 0xfffffffffe0ull & ((1ull << 52) - 1), .nr = true}},
    {.type = FWPT_PKT_PIP, .pip = {.cr3 = 0x1000}},
    {.type = FWPT_PKT_MODE_EXEC, .mode_exec = {.csl = true}},
    {.type = FWPT_PKT_MODE_EXEC, .mode_exec = {.csd = true}},
    {.type = FWPT_PKT_MODE_EXEC, .mode_exec = {.csl = true, .iflag = true}},
    {.type = FWPT_PKT_MODE_TSX, .mode_tsx = {.intx = true}},
    {.type = FWPT_PKT_MODE_TSX, .mode_tsx = {.abrt = true}},
    {.type = FWPT_PKT_STOP}, {.type = FWPT_PKT_CBR, .cbr = {.ratio = 0x2a}},
    {.type = FWPT_PKT_TSC, .tsc = {.tsc = 0xfedcba98765432ull}}, {.type = FWPT_PKT_MTC, .mtc = {.ctc = 0xc3}},
    {.type = FWPT_PKT_TMA, .tma = {.ctc = 0xbeef, .fc = 0x1ff}},
    {.type = FWPT_PKT_CYC, .cyc = {.value = 0x1f}}, {.type = FWPT_PKT_CYC, .cyc = {.value = 0x20}},
    {.type = FWPT_PKT_CYC, .cyc = {.value = 0x123456789abull}},
    {.type = FWPT_PKT_VMCS, .vmcs = {.base = 0xabcdef12345000ull & ((1ull << 52) - 1)}}, {.type = FWPT_PKT_OVF},
    {.type = FWPT_PKT_MNT, .mnt = {.payload = 0x0123456789abcdefull}},
    {.type = FWPT_PKT_PTW, .ptw = {.payload = 0xdeadbeef, .bytes = 4, .plc = 0}},
    {.type = FWPT_PKT_PTW, .ptw = {.payload = 0x0123456789abcdefull, .bytes = 8, .plc = 1, .ip = true}},
    {.type = FWPT_PKT_EXSTOP}, {.type = FWPT_PKT_EXSTOP, .exstop = {.ip = true}},
    {.type = FWPT_PKT_MWAIT, .mwait = {.hints = 0x12345678, .ext = 0x9abcdef0}},
    {.type = FWPT_PKT_PWRE, .pwre = {.state = 6, .sub_state = 2, .hw = true}},
    {.type = FWPT_PKT_PWRE, .pwre = {.state = 1}},
    {.type = FWPT_PKT_PWRX, .pwrx = {.last = 6, .deepest = 7, .wake_reason = 1}},
    {.type = FWPT_PKT_PWRX, .pwrx = {.last = 1, .deepest = 2, .wake_reason = 0xc}},
    {.type = FWPT_PKT_PWRX, .pwrx = {.last = 3, .deepest = 3, .wake_reason = 2}},
    {.type = FWPT_PKT_BBP, .bbp = {.type = 0x11, .sz = 1, .item_bytes = 4}},
    {.type = FWPT_PKT_BIP, .bip = {.id = 0x1f, .bytes = 4, .value = 0x89abcdef}},
    {.type = FWPT_PKT_BBP, .bbp = {.type = 2, .sz = 0, .item_bytes = 8}},
    {.type = FWPT_PKT_BIP, .bip = {.id = 3, .bytes = 8, .value = 0x0123456789abcdefull}},
    {.type = FWPT_PKT_BEP, .bep = {.ip = true}},
    {.type = FWPT_PKT_CFE, .cfe = {.type = 14, .vector = 0x80}},
    {.type = FWPT_PKT_CFE, .cfe = {.type = 0x1f, .vector = 0xff, .ip = true}},
    {.type = FWPT_PKT_EVD, .evd = {.type = 0x3f, .payload = 0xfedcba9876543210ull}},
    {.type = FWPT_PKT_TRIG, .trig = {.trbv = 0xa5, .ip = true, .mult = true}},
    {.type = FWPT_PKT_TRIG, .trig = {.trbv = 0x1, .icntv = true, .icnt = 0xfffe}},
};

/* All the packets in one stream, decoded by decode/packet: each comes back with its type, size and fields. */
TEST(soft_enc_packets_decode)
{
    struct trace t;
    trace_init(&t);
    size_t n = sizeof all_packets / sizeof all_packets[0], at[sizeof all_packets / sizeof all_packets[0] + 1];
    for (size_t i = 0; i < n; i++) {
        at[i] = t.bytes.n;
        CHECK_EQ(fwpt_soft_enc_packet(&t.enc, &all_packets[i]), FWPT_OK);
    }
    at[n] = t.bytes.n;
    struct fwpt_pkt_decoder dec;
    fwpt_pkt_init(&dec, (const uint8_t *)t.bytes.p, t.bytes.n);
    CHECK_EQ(fwpt_pkt_sync_set(&dec, 0), FWPT_OK);
    for (size_t i = 0; i < n; i++) {
        struct fwpt_packet p;
        CHECK_EQ(fwpt_pkt_next(&dec, &p), FWPT_OK);
        CHECK_EQ(p.type, all_packets[i].type);
        CHECK_EQ(p.offset, at[i]);
        CHECK_EQ(p.size, at[i + 1] - at[i]);
        if (!pkt_same_payload(&all_packets[i], &p))
            fprintf(stderr, "packet %zu (%s): fields differ after decoding\n", i, fwpt_pkt_type_name(p.type));
        CHECK(pkt_same_payload(&all_packets[i], &p));
    }
    struct fwpt_packet end;
    CHECK_EQ(fwpt_pkt_next(&dec, &end), FWPT_E_EOS);
    free(t.bytes.p);
}

/* The packets libipt knows, in the bytes libipt's encoder writes (libipt has no MODE.Exec IF bit, no PWRX timer
 * wake, BBP/BIP/BEP, CFE, EVD or TRIG; its PWRE HW bit is not where the SDM has it). */
TEST(soft_enc_packets_libipt)
{
    unsigned compared = 0;
    for (size_t i = 0; i < sizeof all_packets / sizeof all_packets[0]; i++) {
        const struct fwpt_packet *a = &all_packets[i];
        struct pt_packet q;
        memset(&q, 0, sizeof q);
        switch (a->type) {
        case FWPT_PKT_PAD: q.type = ppt_pad; break;
        case FWPT_PKT_PSB: q.type = ppt_psb; break;
        case FWPT_PKT_PSBEND: q.type = ppt_psbend; break;
        case FWPT_PKT_STOP: q.type = ppt_stop; break;
        case FWPT_PKT_OVF: q.type = ppt_ovf; break;
        case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: {
            q.type = a->type == FWPT_PKT_TNT_8 ? ppt_tnt_8 : ppt_tnt_64;
            q.payload.tnt.bit_size = a->tnt.count;
            for (unsigned b = 0; b < a->tnt.count; b++) /* libipt: the oldest bit most significant */
                q.payload.tnt.payload = q.payload.tnt.payload << 1 | ((a->tnt.bits >> b) & 1);
            break;
        }
        case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
            q.type = a->type == FWPT_PKT_TIP ? ppt_tip : a->type == FWPT_PKT_TIP_PGE ? ppt_tip_pge
                     : a->type == FWPT_PKT_TIP_PGD ? ppt_tip_pgd : ppt_fup;
            q.payload.ip.ipc = (enum pt_ip_compression)a->ip.ipc;
            q.payload.ip.ip = a->ip.payload;
            break;
        case FWPT_PKT_PIP: q.type = ppt_pip, q.payload.pip.cr3 = a->pip.cr3, q.payload.pip.nr = a->pip.nr; break;
        case FWPT_PKT_MODE_EXEC:
            if (a->mode_exec.iflag)
                continue;
            q.type = ppt_mode, q.payload.mode.leaf = pt_mol_exec;
            q.payload.mode.bits.exec.csl = a->mode_exec.csl, q.payload.mode.bits.exec.csd = a->mode_exec.csd;
            break;
        case FWPT_PKT_MODE_TSX:
            q.type = ppt_mode, q.payload.mode.leaf = pt_mol_tsx;
            q.payload.mode.bits.tsx.intx = a->mode_tsx.intx, q.payload.mode.bits.tsx.abrt = a->mode_tsx.abrt;
            break;
        case FWPT_PKT_CBR: q.type = ppt_cbr, q.payload.cbr.ratio = a->cbr.ratio; break;
        case FWPT_PKT_TSC: q.type = ppt_tsc, q.payload.tsc.tsc = a->tsc.tsc; break;
        case FWPT_PKT_MTC: q.type = ppt_mtc, q.payload.mtc.ctc = a->mtc.ctc; break;
        case FWPT_PKT_TMA: q.type = ppt_tma, q.payload.tma.ctc = a->tma.ctc, q.payload.tma.fc = a->tma.fc; break;
        case FWPT_PKT_CYC: q.type = ppt_cyc, q.payload.cyc.value = a->cyc.value; break;
        case FWPT_PKT_VMCS: q.type = ppt_vmcs, q.payload.vmcs.base = a->vmcs.base; break;
        case FWPT_PKT_MNT: q.type = ppt_mnt, q.payload.mnt.payload = a->mnt.payload; break;
        case FWPT_PKT_PTW:
            q.type = ppt_ptw, q.payload.ptw.payload = a->ptw.payload, q.payload.ptw.plc = a->ptw.plc;
            q.payload.ptw.ip = a->ptw.ip;
            break;
        case FWPT_PKT_EXSTOP: q.type = ppt_exstop, q.payload.exstop.ip = a->exstop.ip; break;
        case FWPT_PKT_MWAIT: q.type = ppt_mwait, q.payload.mwait.hints = a->mwait.hints, q.payload.mwait.ext = a->mwait.ext; break;
        case FWPT_PKT_PWRE:
            if (a->pwre.hw)
                continue; /* libipt puts HW in byte 3; the SDM (Table "PWRE Packet Definition") in byte 2 bit 7 */
            q.type = ppt_pwre, q.payload.pwre.state = a->pwre.state, q.payload.pwre.sub_state = a->pwre.sub_state;
            q.payload.pwre.hw = a->pwre.hw;
            break;
        case FWPT_PKT_PWRX:
            if (a->pwrx.wake_reason & 2)
                continue;
            q.type = ppt_pwrx, q.payload.pwrx.last = a->pwrx.last, q.payload.pwrx.deepest = a->pwrx.deepest;
            q.payload.pwrx.interrupt = a->pwrx.wake_reason & 1, q.payload.pwrx.store = (a->pwrx.wake_reason >> 2) & 1;
            q.payload.pwrx.autonomous = (a->pwrx.wake_reason >> 3) & 1;
            break;
        default:
            continue;
        }
        uint8_t want[64], got[32];
        struct pt_config c;
        pt_config_init(&c);
        c.begin = want;
        c.end = want + sizeof want;
        struct pt_encoder *e = pt_alloc_encoder(&c);
        int k = pt_enc_next(e, &q);
        pt_free_encoder(e);
        size_t n = encode(a, got);
        if (k < 0 || (size_t)k != n || memcmp(want, got, n))
            fprintf(stderr, "packet %zu (%s): not the bytes libipt writes\n", i, fwpt_pkt_type_name(a->type));
        CHECK(k > 0 && (size_t)k == n && !memcmp(want, got, n));
        compared++;
    }
    CHECK_EQ(compared, 38);
}

/* What the SDM has no encoding for is refused, nothing written. */
TEST(soft_enc_packets_refused)
{
    static const struct fwpt_packet bad[] = {
        {.type = FWPT_PKT_NONE}, {.type = FWPT_PKT_INVALID}, {.type = FWPT_PKT_TNT_8, .tnt = {.count = 7}},
        {.type = FWPT_PKT_TNT_64, .tnt = {.count = 48}}, {.type = FWPT_PKT_TIP, .ip = {.ipc = 5}},
        {.type = FWPT_PKT_FUP, .ip = {.ipc = 7}}, {.type = FWPT_PKT_PTW, .ptw = {.plc = 2}},
        {.type = FWPT_PKT_PWRE, .pwre = {.state = 16}}, {.type = FWPT_PKT_CFE, .cfe = {.type = 0x20}},
        {.type = FWPT_PKT_EVD, .evd = {.type = 0x40}}, {.type = FWPT_PKT_BIP, .bip = {.bytes = 5}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct trace t;
        trace_init(&t);
        CHECK_EQ(fwpt_soft_enc_packet(&t.enc, &bad[i]), FWPT_E_INVAL);
        CHECK_EQ(t.bytes.n, 0);
        CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_PSB, 0x1000), FWPT_E_INVAL);
    }
}

/* fwpt_soft_enc_ip: the shortest IPBytes against Last IP, which a PSB resets and IP packets set. */
TEST(soft_enc_ip_compression)
{
    struct trace t;
    trace_init(&t);
    CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_FUP, 0x10000), FWPT_OK);         /* 2: 4 bytes against 0 */
    CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_TIP, 0x10010), FWPT_OK);         /* 1: 2 bytes */
    CHECK_EQ(fwpt_soft_enc_packet(&t.enc, &(struct fwpt_packet){.type = FWPT_PKT_TIP, .ip = {.ipc = 1, .payload = 0x20}}),
             FWPT_OK);                                                          /* Last IP 0x10020 */
    CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_TIP_PGD, 0x10030), FWPT_OK);     /* 1: against 0x10020 */
    CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_TIP_PGE, 0xffff800000001000ull), FWPT_OK); /* 3: sign-extended */
    CHECK_EQ(fwpt_soft_enc_packet(&t.enc, &(struct fwpt_packet){.type = FWPT_PKT_PSB}), FWPT_OK);
    CHECK_EQ(fwpt_soft_enc_ip(&t.enc, FWPT_PKT_FUP, 0x1234), FWPT_OK);          /* 1: against 0 after the PSB */
    static const uint8_t want[] = {0x5d, 0x00, 0x00, 0x01, 0x00, 0x2d, 0x10, 0x00, 0x2d, 0x20, 0x00,
                                   0x21, 0x30, 0x00, 0x71, 0x00, 0x10, 0x00, 0x00, 0x00, 0x80,
                                   0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                   0x02, 0x82, 0x02, 0x82, 0x3d, 0x34, 0x12};
    CHECK_EQ(t.bytes.n, sizeof want);
    CHECK(t.bytes.n == sizeof want && !memcmp(t.bytes.p, want, sizeof want));
    free(t.bytes.p);
}

TEST_MAIN("soft_enc_packets")
