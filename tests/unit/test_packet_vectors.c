/* Hand-written byte vectors from the SDM packet tables (Vol. 3C "Packet Definitions"): bytes -> fields,
 * IP reconstruction per IPBytes (Table "FUP/TIP IP Reconstruction"), reserved encodings, TNT bit order,
 * CYC lengths, block packets, PSB sync forward/backward, and the printers' exact output. */
#include "arch/errata.h"
#include "decode/packet.h"
#include "render/pkt_print.h"
#include "tests/check.h"

static struct fwpt_pkt_decoder dec;
static struct fwpt_packet pkt;

#define PSB16 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82

/* Decode exactly one packet from bytes; expect status and size. */
static enum fwpt_status one(const uint8_t *b, size_t n)
{
    fwpt_pkt_init(&dec, b, n);
    return fwpt_pkt_next(&dec, &pkt);
}
#define ONE(...)                                                                                     \
    do {                                                                                             \
        static const uint8_t b_[] = {__VA_ARGS__};                                                   \
        st = one(b_, sizeof b_);                                                                     \
    } while (0)

static char out[512];
static const char *text_of(const struct fwpt_packet *p, int json)
{
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, out, sizeof out - 1);
    if (json)
        fwpt_pkt_print_json(&s, p);
    else
        fwpt_pkt_print_text(&s, p);
    out[bs.len] = 0;
    return out;
}

static enum fwpt_status st;

/* simple packets */
TEST(simple_packets)
{
    ONE(0x00);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PAD); CHECK_EQ(pkt.size, 1);
    ONE(PSB16);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PSB); CHECK_EQ(pkt.size, 16);
    ONE(0x02, 0x23);
    CHECK_EQ(pkt.type, FWPT_PKT_PSBEND); CHECK_EQ(pkt.size, 2);
    ONE(0x02, 0xf3);
    CHECK_EQ(pkt.type, FWPT_PKT_OVF); CHECK_EQ(pkt.size, 2);
    ONE(0x02, 0x83);
    CHECK_EQ(pkt.type, FWPT_PKT_STOP); CHECK_EQ(pkt.size, 2);
}

/* short TNT: 1 B1..BN stop-bit-first; B1 is the oldest (SDM) */
TEST(short_tnt_bit_order)
{
    ONE(0x0a); /* 0000101 0: stop at bit 2 of the payload, B1=0, B2=1 */
    CHECK_EQ(pkt.type, FWPT_PKT_TNT_8); CHECK_EQ(pkt.tnt.count, 2); CHECK_EQ(pkt.tnt.bits, 0x2);
    ONE(0x04); /* one bit, not taken */
    CHECK_EQ(pkt.tnt.count, 1); CHECK_EQ(pkt.tnt.bits, 0);
    ONE(0x06); /* one bit, taken */
    CHECK_EQ(pkt.tnt.count, 1); CHECK_EQ(pkt.tnt.bits, 1);
    ONE(0xfe); /* six taken */
    CHECK_EQ(pkt.tnt.count, 6); CHECK_EQ(pkt.tnt.bits, 0x3f);
    ONE(0x82); /* 1 00000 1 0: B1..B5 not taken, B6 taken */
    CHECK_EQ(pkt.tnt.count, 6); CHECK_EQ(pkt.tnt.bits, 0x20);
    ONE(0xc0); /* 1 1 00000 0: B1 taken, B2..B6 not */
    CHECK_EQ(pkt.tnt.count, 6); CHECK_EQ(pkt.tnt.bits, 0x01);
}

/* long TNT */
TEST(long_tnt)
{
    ONE(0x02, 0xa3, 0x05, 0, 0, 0, 0, 0); /* stop at bit 2: B1=0, B2=1 */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TNT_64); CHECK_EQ(pkt.size, 8);
    CHECK_EQ(pkt.tnt.count, 2); CHECK_EQ(pkt.tnt.bits, 0x2);
    ONE(0x02, 0xa3, 0x01, 0, 0, 0, 0, 0x80); /* stop at bit 47: 47 bits, B1 = bit 46 = 0, B47 = bit 0 = 1 */
    CHECK_EQ(pkt.tnt.count, 47); CHECK_EQ(pkt.tnt.bits, 1ull << 46);
    ONE(0x02, 0xa3, 0, 0, 0, 0, 0, 0x40); /* 46 bits: B1 (bit 45) = 0 ... all not taken */
    CHECK_EQ(pkt.tnt.count, 46); CHECK_EQ(pkt.tnt.bits, 0);
    ONE(0x02, 0xa3, 0, 0, 0, 0, 0, 0);
    CHECK_EQ(st, FWPT_E_BAD_PACKET); CHECK_EQ(pkt.type, FWPT_PKT_NONE); CHECK_EQ(dec.offset, 0);
    ONE(0x02, 0xa3, 1, 0, 0, 0, 0, 0); /* only a stop bit: no branch (libipt: bad packet) */
    CHECK_EQ(st, FWPT_E_BAD_PACKET);
    ONE(0x02, 0xa3, 1, 0, 0);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
}

/* IP reconstruction: every IPBytes value, in one stream after a PSB (Last IP = 0) */
TEST(ip_reconstruction_every_ipbytes)
{
    {
        static const uint8_t b[] = {
            PSB16,
            0x2d, 0x34, 0x12,                                           /* TIP 001b: 0x1234 */
            0xcd, 0x67, 0x45, 0x23, 0x81, 0xff, 0xff, 0xff, 0xff,       /* TIP 110b full */
            0x2d, 0xef, 0xbe,                                           /* TIP 001b */
            0x4d, 0x44, 0x33, 0x22, 0x11,                               /* TIP 010b */
            0x9d, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12,                   /* FUP 100b */
            0x71, 0x00, 0x10, 0x00, 0x00, 0x00, 0x80,                   /* TIP.PGE 011b negative */
            0x01,                                                       /* TIP.PGD 000b suppressed */
            0x3d, 0x22, 0x11,                                           /* FUP 001b: against unchanged Last IP */
            0x6d, 0x00, 0x00, 0xff, 0xff, 0xff, 0x7f,                   /* TIP 011b positive */
            0x0d,                                                       /* TIP 000b */
            0x21, 0x99, 0x88,                                           /* TIP.PGD 001b */
            PSB16,
            0x2d, 0x01, 0x00,                                           /* after PSB: against 0 */
            0xad, 0xed,                                                 /* reserved 101b, 111b */
        };
        static const struct { uint8_t type, ipc; uint64_t ip; } want[] = {
            {FWPT_PKT_PSB, 0, 0},
            {FWPT_PKT_TIP, 1, 0x1234},
            {FWPT_PKT_TIP, 6, 0xffffffff81234567ull},
            {FWPT_PKT_TIP, 1, 0xffffffff8123beefull},
            {FWPT_PKT_TIP, 2, 0xffffffff11223344ull},
            {FWPT_PKT_FUP, 4, 0xffff123456789abcull},
            {FWPT_PKT_TIP_PGE, 3, 0xffff800000001000ull},
            {FWPT_PKT_TIP_PGD, 0, 0},
            {FWPT_PKT_FUP, 1, 0xffff800000001122ull},
            {FWPT_PKT_TIP, 3, 0x00007fffffff0000ull},
            {FWPT_PKT_TIP, 0, 0},
            {FWPT_PKT_TIP_PGD, 1, 0x00007fffffff8899ull},
            {FWPT_PKT_PSB, 0, 0},
            {FWPT_PKT_TIP, 1, 0x1},
        };
        fwpt_pkt_init(&dec, b, sizeof b);
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            st = fwpt_pkt_next(&dec, &pkt);
            CHECK_EQ(st, FWPT_OK);
            CHECK_EQ(pkt.type, want[i].type);
            if (want[i].type != FWPT_PKT_PSB) {
                CHECK_EQ(pkt.ip.ipc, want[i].ipc);
                CHECK_EQ(pkt.ip.suppressed, want[i].ipc == 0);
                CHECK_EQ(pkt.ip.ip, want[i].ip);
                static const unsigned sz[8] = {1, 3, 5, 7, 7, 0, 9, 0};
                CHECK_EQ(pkt.size, sz[want[i].ipc]);
            }
            if (i == 7) /* suppressed TIP.PGD: Last IP unchanged */
                CHECK_EQ(dec.last_ip, 0xffff800000001000ull);
            if (i == 12)
                CHECK_EQ(dec.last_ip, 0); /* Last IP reset at PSB */
        }
        size_t at = dec.offset;
        st = fwpt_pkt_next(&dec, &pkt);
        CHECK_EQ(st, FWPT_E_BAD_IPC); CHECK_EQ(pkt.offset, at); CHECK_EQ(dec.offset, at);
        fwpt_pkt_sync_set(&dec, at + 1);
        st = fwpt_pkt_next(&dec, &pkt);
        CHECK_EQ(st, FWPT_E_BAD_IPC); CHECK_EQ(pkt.offset, at + 1);
    }
    ONE(0xcd, 1, 2, 3, 4, 5, 6, 7); /* full IP, one byte short */
    CHECK_EQ(st, FWPT_E_TRUNCATED); CHECK_EQ(pkt.offset, 0);
    ONE(0x5d, 1, 2, 3, 4, 5, 6); /* FUP 010b */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_FUP); CHECK_EQ(pkt.size, 5); CHECK_EQ(pkt.ip.payload, 0x04030201);
    {
        uint64_t ip = 0;
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 1, 0xabcd, &ip), FWPT_OK);
        CHECK_EQ(ip, 0x112233445566abcdull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 2, 0xabcdef01, &ip), FWPT_OK);
        CHECK_EQ(ip, 0x11223344abcdef01ull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 4, 0x123456789abcull, &ip), FWPT_OK);
        CHECK_EQ(ip, 0x1122123456789abcull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 3, 0x923456789abcull, &ip), FWPT_OK);
        CHECK_EQ(ip, 0xffff923456789abcull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 6, 0x8877665544332211ull, &ip), FWPT_OK);
        CHECK_EQ(ip, 0x8877665544332211ull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0x1122334455667788ull, 0, 0, &ip), FWPT_OK);
        CHECK_EQ(ip, 0x1122334455667788ull);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0, 5, 0, &ip), FWPT_E_BAD_IPC);
        CHECK_EQ(fwpt_pkt_ip_reconstruct(0, 7, 0, &ip), FWPT_E_BAD_IPC);
    }
}

/* PIP: payload bit 0 NR, bits 47:1 = CR3[51:5] */
TEST(pip_cr3)
{
    ONE(0x02, 0x43, 0x01, 0x45, 0x23, 0x01, 0x00, 0x00);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PIP); CHECK_EQ(pkt.size, 8);
    CHECK_EQ(pkt.pip.cr3, 0x12345000); CHECK_EQ(pkt.pip.nr, 1);
    ONE(0x02, 0x43, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff);
    CHECK_EQ(pkt.pip.cr3, 0x000fffffffffffe0ull); CHECK_EQ(pkt.pip.nr, 0);
}

/* MODE */
TEST(mode_exec_and_tsx)
{
    ONE(0x99, 0x00);
    CHECK_EQ(pkt.type, FWPT_PKT_MODE_EXEC); CHECK_EQ(pkt.mode_exec.mode, 16); CHECK_EQ(pkt.mode_exec.csl, 0);
    ONE(0x99, 0x01);
    CHECK_EQ(pkt.mode_exec.mode, 64); CHECK_EQ(pkt.mode_exec.csl, 1); CHECK_EQ(pkt.mode_exec.iflag, 0);
    ONE(0x99, 0x02);
    CHECK_EQ(pkt.mode_exec.mode, 32); CHECK_EQ(pkt.mode_exec.csd, 1);
    ONE(0x99, 0x03);
    CHECK_EQ(pkt.mode_exec.mode, 0);
    ONE(0x99, 0x05);
    CHECK_EQ(pkt.mode_exec.mode, 64); CHECK_EQ(pkt.mode_exec.iflag, 1);
    ONE(0x99, 0x21);
    CHECK_EQ(pkt.type, FWPT_PKT_MODE_TSX); CHECK_EQ(pkt.mode_tsx.intx, 1); CHECK_EQ(pkt.mode_tsx.abrt, 0);
    ONE(0x99, 0x22);
    CHECK_EQ(pkt.mode_tsx.intx, 0); CHECK_EQ(pkt.mode_tsx.abrt, 1);
    ONE(0x99, 0x40);
    CHECK_EQ(st, FWPT_E_BAD_PACKET);
    ONE(0x99);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
}

/* timing */
TEST(timing_packets)
{
    ONE(0x02, 0x03, 0x2a, 0x00);
    CHECK_EQ(pkt.type, FWPT_PKT_CBR); CHECK_EQ(pkt.cbr.ratio, 42); CHECK_EQ(pkt.size, 4);
    ONE(0x19, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12);
    CHECK_EQ(pkt.type, FWPT_PKT_TSC); CHECK_EQ(pkt.tsc.tsc, 0x123456789abcdeull); CHECK_EQ(pkt.size, 8);
    ONE(0x19, 0xde, 0xbc);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
    ONE(0x59, 0xab);
    CHECK_EQ(pkt.type, FWPT_PKT_MTC); CHECK_EQ(pkt.mtc.ctc, 0xab); CHECK_EQ(pkt.size, 2);
    ONE(0x02, 0x73, 0x34, 0x12, 0x00, 0xff, 0x01);
    CHECK_EQ(pkt.type, FWPT_PKT_TMA); CHECK_EQ(pkt.tma.ctc, 0x1234); CHECK_EQ(pkt.tma.fc, 0x1ff); CHECK_EQ(pkt.size, 7);
    ONE(0x02, 0x73, 0x34, 0x12, 0x77, 0x0f, 0xfe); /* reserved bits set: ignored (SDM) */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.tma.fc, 0x0f);
}

/* CYC: Exp bits, any length (SDM Table "Cycle Count Packet Definition"; no limit on the chain) */
TEST(cyc_exp_bits_any_length)
{
    ONE(0x2b);
    CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.cyc.value, 5); CHECK_EQ(pkt.size, 1);
    ONE(0xfb);
    CHECK_EQ(pkt.cyc.value, 31); CHECK_EQ(pkt.size, 1);
    ONE(0x07, 0x02);
    CHECK_EQ(pkt.cyc.value, 32); CHECK_EQ(pkt.size, 2);
    ONE(0xff, 0xfe);
    CHECK_EQ(pkt.cyc.value, 4095); CHECK_EQ(pkt.size, 2);
    ONE(0x07, 0x01, 0x02);
    CHECK_EQ(pkt.cyc.value, 4096); CHECK_EQ(pkt.size, 3);
    ONE(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.cyc.value, (1ull << 61) - 1); CHECK_EQ(pkt.size, 9);
    /* 10 bytes: 5 + 9 * 7 = 68 counter bits, the low 64 kept (bits 64..67 of the last byte drop out) */
    ONE(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.size, 10);
    CHECK_EQ(pkt.cyc.value, (1ull << 61) - 1);
    ONE(0x07, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x12); /* byte 9 bits 7:1 = 0x09: counter bit 61 and 64 */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.size, 10); CHECK_EQ(pkt.cyc.value, 1ull << 61);
    ONE(0x07, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x0f, 0xfe); /* 11 bytes: bits 61..63 = 111b */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.size, 11); CHECK_EQ(pkt.cyc.value, 7ull << 61);
    {
        /* the longest CYC fwpt_packet.size holds (255 bytes), one past it (E_TOO_LONG at the CYC), and a long
         * one cut by the end of the trace (E_TRUNCATED) */
        static uint8_t b[300];
        for (unsigned i = 0; i < sizeof b; i++)
            b[i] = 0xff;
        b[254] = 0x02; /* Exp clear: the 255th byte ends it */
        st = one(b, sizeof b);
        CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.size, 255); CHECK_EQ(pkt.cyc.value, ~0ull);
        CHECK_EQ(dec.offset, 255);
        b[254] = 0xff;
        b[255] = 0x02;
        st = one(b, sizeof b);
        CHECK_EQ(st, FWPT_E_TOO_LONG); CHECK_EQ(pkt.type, FWPT_PKT_NONE); CHECK_EQ(pkt.size, 0);
        CHECK_EQ(pkt.offset, 0); CHECK_EQ(dec.offset, 0);
        st = one(b, 200);
        CHECK_EQ(st, FWPT_E_TRUNCATED); CHECK_EQ(dec.offset, 0);
        /* after a packet: the error names the CYC's own offset */
        b[0] = 0x00;
        b[255] = 0xff;
        b[256] = 0x02; /* the CYC at 1: bytes 1..256, 256 bytes */
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PAD);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_E_TOO_LONG); CHECK_EQ(pkt.offset, 1); CHECK_EQ(dec.offset, 1);
    }
    ONE(0x07);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
    ONE(0x07, 0x01);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
}

/* VMCS, MNT */
TEST(vmcs_mnt)
{
    ONE(0x02, 0xc8, 0x45, 0x23, 0x01, 0x00, 0x00);
    CHECK_EQ(pkt.type, FWPT_PKT_VMCS); CHECK_EQ(pkt.vmcs.base, 0x12345000); CHECK_EQ(pkt.size, 7);
    ONE(0x02, 0xc3, 0x88, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11);
    CHECK_EQ(pkt.type, FWPT_PKT_MNT); CHECK_EQ(pkt.mnt.payload, 0x1122334455667788ull); CHECK_EQ(pkt.size, 11);
    ONE(0x02, 0xc3, 0x89, 0, 0, 0, 0, 0, 0, 0, 0);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE);
    ONE(0x02, 0xc3);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
}

/* PTW: PayloadBytes 00 = 4, 01 = 8, 1x reserved; IP bit 7 */
TEST(ptw_payload_bytes)
{
    ONE(0x02, 0x12, 0x78, 0x56, 0x34, 0x12);
    CHECK_EQ(pkt.type, FWPT_PKT_PTW); CHECK_EQ(pkt.ptw.payload, 0x12345678); CHECK_EQ(pkt.ptw.bytes, 4);
    CHECK_EQ(pkt.ptw.ip, 0); CHECK_EQ(pkt.size, 6);
    ONE(0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8);
    CHECK_EQ(pkt.ptw.payload, 0x0807060504030201ull); CHECK_EQ(pkt.ptw.bytes, 8); CHECK_EQ(pkt.ptw.plc, 1);
    CHECK_EQ(pkt.ptw.ip, 1); CHECK_EQ(pkt.size, 10);
    ONE(0x02, 0x52, 1, 2, 3, 4, 5, 6, 7, 8);
    CHECK_EQ(st, FWPT_E_BAD_PACKET);
    ONE(0x02, 0x72, 1, 2, 3, 4, 5, 6, 7, 8);
    CHECK_EQ(st, FWPT_E_BAD_PACKET);
    ONE(0x02, 0x32, 1, 2, 3, 4, 5, 6, 7);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
}

/* power: EXSTOP, MWAIT, PWRE, PWRX */
TEST(power_packets)
{
    ONE(0x02, 0x62);
    CHECK_EQ(pkt.type, FWPT_PKT_EXSTOP); CHECK_EQ(pkt.exstop.ip, 0);
    ONE(0x02, 0xe2);
    CHECK_EQ(pkt.type, FWPT_PKT_EXSTOP); CHECK_EQ(pkt.exstop.ip, 1);
    ONE(0x02, 0xc2, 0x21, 0, 0, 0, 0x01, 0, 0, 0);
    CHECK_EQ(pkt.type, FWPT_PKT_MWAIT); CHECK_EQ(pkt.mwait.hints, 0x21); CHECK_EQ(pkt.mwait.ext, 1); CHECK_EQ(pkt.size, 10);
    ONE(0x02, 0x22, 0x80, 0x21);
    CHECK_EQ(pkt.type, FWPT_PKT_PWRE); CHECK_EQ(pkt.pwre.hw, 1); CHECK_EQ(pkt.pwre.state, 2); CHECK_EQ(pkt.pwre.sub_state, 1);
    ONE(0x02, 0x22, 0x08, 0x10); /* byte 2 bit 3 is reserved (libipt reads HW there; the SDM says bit 7) */
    CHECK_EQ(pkt.pwre.hw, 0); CHECK_EQ(pkt.pwre.state, 1); CHECK_EQ(pkt.pwre.sub_state, 0);
    ONE(0x02, 0xa2, 0x62, 0x05, 0, 0, 0);
    CHECK_EQ(pkt.type, FWPT_PKT_PWRX); CHECK_EQ(pkt.pwrx.last, 6); CHECK_EQ(pkt.pwrx.deepest, 2);
    CHECK_EQ(pkt.pwrx.wake_reason, 5); CHECK_EQ(pkt.size, 7);
}

/* block packets: BBP sets the BIP size; BEP ends the block */
TEST(block_packets_bbp_bep)
{
    {
        static const uint8_t b[] = {
            0x02, 0x63, 0x85,                   /* BBP SZ=1 (4-byte items), type 5 */
            0x0c, 0x44, 0x33, 0x22, 0x11,       /* BIP ID 1 */
            0x00,                               /* PAD: block continues */
            0xfc, 0xdd, 0xcc, 0xbb, 0xaa,       /* BIP ID 31 */
            0x02, 0xb3,                         /* BEP IP=1 */
            0x0c,                               /* short TNT again */
            0x02, 0x63, 0x02,                   /* BBP SZ=0 (8-byte items), type 2 */
            0x14, 1, 2, 3, 4, 5, 6, 7, 8,       /* BIP ID 2 */
            0x06,                               /* 110b: a TNT, ends the block */
            0x14,                               /* so this is a TNT too */
            0x02, 0x63, 0x80, 0x04, 0x01,       /* BBP then a BIP truncated */
        };
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BBP); CHECK_EQ(pkt.bbp.sz, 1); CHECK_EQ(pkt.bbp.type, 5); CHECK_EQ(pkt.bbp.item_bytes, 4);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BIP); CHECK_EQ(pkt.bip.id, 1); CHECK_EQ(pkt.bip.value, 0x11223344); CHECK_EQ(pkt.size, 5);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_PAD);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BIP); CHECK_EQ(pkt.bip.id, 31); CHECK_EQ(pkt.bip.value, 0xaabbccdd);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BEP); CHECK_EQ(pkt.bep.ip, 1);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_TNT_8);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BBP); CHECK_EQ(pkt.bbp.item_bytes, 8);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BIP); CHECK_EQ(pkt.bip.value, 0x0807060504030201ull); CHECK_EQ(pkt.size, 9);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_TNT_8);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_TNT_8);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BBP);
        size_t at = dec.offset;
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_E_TRUNCATED);
        CHECK_EQ(pkt.offset, at);
    }
    ONE(0x02, 0x33);
    CHECK_EQ(pkt.type, FWPT_PKT_BEP); CHECK_EQ(pkt.bep.ip, 0);
    ONE(0x02, 0x13, 0x81, 0x0e);
    CHECK_EQ(pkt.type, FWPT_PKT_CFE); CHECK_EQ(pkt.cfe.ip, 1); CHECK_EQ(pkt.cfe.type, 1); CHECK_EQ(pkt.cfe.vector, 0x0e);
    CHECK_EQ(pkt.size, 4);
    ONE(0x02, 0x53, 0x3f, 8, 7, 6, 5, 4, 3, 2, 1);
    CHECK_EQ(pkt.type, FWPT_PKT_EVD); CHECK_EQ(pkt.evd.type, 63); CHECK_EQ(pkt.evd.payload, 0x0102030405060708ull);
    CHECK_EQ(pkt.size, 11);
}

/* TRIG (SDM "TRIG Packet Definition"): D9h, [IP ICNTV MULT rsvd:5], TRBV, ICNT[15:0] if ICNTV */
TEST(trig_packet)
{
    ONE(0xd9, 0x00, 0x01);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TRIG); CHECK_EQ(pkt.size, 3); CHECK_EQ(pkt.trig.trbv, 1);
    CHECK_EQ(pkt.trig.ip, 0); CHECK_EQ(pkt.trig.mult, 0); CHECK_EQ(pkt.trig.icntv, 0); CHECK_EQ(pkt.trig.icnt, 0);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"trig\",\"size\":3,\"trbv\":1,\"ip\":false,\"mult\":false}\n");
    ONE(0xd9, 0xe0, 0xa1, 0x17, 0x01);
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.size, 5); CHECK_EQ(pkt.trig.trbv, 0xa1); CHECK_EQ(pkt.trig.ip, 1);
    CHECK_EQ(pkt.trig.mult, 1); CHECK_EQ(pkt.trig.icntv, 1); CHECK_EQ(pkt.trig.icnt, 0x117);
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  trig      trbv 0xa1, ip, mult, icnt 279\n");
    CHECK_STR(text_of(&pkt, 1),
              "{\"offset\":0,\"type\":\"trig\",\"size\":5,\"trbv\":161,\"ip\":true,\"mult\":true,\"icnt\":279}\n");
    ONE(0xd9, 0x1f, 0x02); /* reserved bits 4:0 ignored */
    CHECK_EQ(st, FWPT_OK); CHECK_EQ(pkt.size, 3); CHECK_EQ(pkt.trig.trbv, 2); CHECK_EQ(pkt.trig.icntv, 0);
    ONE(0xd9, 0x40, 0x01, 0x00);
    CHECK_EQ(st, FWPT_E_TRUNCATED); CHECK_EQ(pkt.type, FWPT_PKT_NONE);
    ONE(0xd9, 0x00);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
    {
        /* TRIG ends a block, as every packet but BIP and the timing/power ones */
        static const uint8_t b[] = {0x02, 0x63, 0x80, 0xd9, 0x00, 0x01, 0x04};
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(dec.block_item_bytes, 4);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TRIG);
        CHECK_EQ(dec.block_item_bytes, 0);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TNT_8); /* 04h: not a BIP */
    }
}

/* errata that change packets (fwpt_pkt_set_errata) */
TEST(errata_change_packets)
{
    {
        static const struct fwpt_errata skd007 = {.skd007 = true}, skz84 = {.skz84 = true}, other = {
            .bdm70 = true, .bdm64 = true, .skd022 = true, .skd010 = true, .skl014 = true, .apl12 = true,
            .apl11 = true, .skl168 = true};
        /* SKD007: a CYC header with Exp, then OVF (02 F3) in place of the CYC's other bytes */
        static const uint8_t cyc_ovf[] = {0xf7, 0x02, 0xf3, 0x00};
        fwpt_pkt_init(&dec, cyc_ovf, sizeof cyc_ovf); /* the SDM's packets: CYC (2 bytes), CYC (F3), PAD */
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.size, 2);
        CHECK_EQ(pkt.cyc.value, 0x3e);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.size, 1);
        for (int with = 0; with < 3; with++) {
            /* with: 0 SKD007 alone, 1 every erratum but SKD007 (no change), 2 SKD007 inside a block */
            uint8_t b[3 + sizeof cyc_ovf] = {0x02, 0x63, 0x80};
            size_t pre = with == 2 ? 3 : 0;
            __builtin_memcpy(b + pre, cyc_ovf, sizeof cyc_ovf);
            fwpt_pkt_init(&dec, b, pre + sizeof cyc_ovf);
            fwpt_pkt_set_errata(&dec, with == 1 ? &other : &skd007);
            CHECK_EQ(dec.errata, with == 1 ? 0 : FWPT_PKT_ERRATUM_SKD007);
            if (pre) {
                CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(dec.block_item_bytes, 4);
            }
            CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
            CHECK_EQ(pkt.type, with == 1 ? FWPT_PKT_CYC : FWPT_PKT_OVF); CHECK_EQ(pkt.offset, pre);
            CHECK_EQ(pkt.size, with == 1 ? 2 : 3);
            CHECK_EQ(dec.block_item_bytes, 0);
            if (with != 1) {
                CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PAD);
                CHECK_EQ(pkt.offset, pre + 3);
            }
        }
        static const uint8_t cyc_no_ovf[] = {0xf7, 0x02, 0xf2}, cyc1_ovf[] = {0xf3, 0x02, 0xf3};
        fwpt_pkt_init(&dec, cyc_no_ovf, sizeof cyc_no_ovf); /* not an OVF after it: the CYC stands */
        fwpt_pkt_set_errata(&dec, &skd007);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.size, 2);
        fwpt_pkt_init(&dec, cyc1_ovf, sizeof cyc1_ovf); /* a CYC without Exp: a CYC, then the OVF */
        fwpt_pkt_set_errata(&dec, &skd007);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_CYC); CHECK_EQ(pkt.size, 1);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_OVF); CHECK_EQ(pkt.size, 2);

        /* SKZ84: a TMA with reserved bits set, and the bogus byte after it, are one invalid packet */
        static const uint8_t tma_bad[] = {0x02, 0x73, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00};
        fwpt_pkt_init(&dec, tma_bad, sizeof tma_bad);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TMA); CHECK_EQ(pkt.size, 7);
        fwpt_pkt_init(&dec, tma_bad, sizeof tma_bad);
        fwpt_pkt_set_errata(&dec, &skz84);
        CHECK_EQ(dec.errata, FWPT_PKT_ERRATUM_SKZ84);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_INVALID); CHECK_EQ(pkt.size, 8);
        CHECK_STR(text_of(&pkt, 0), "0000000000000000  invalid\n");
        CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"invalid\",\"size\":8}\n");
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PAD); CHECK_EQ(pkt.offset, 8);
        static const uint8_t tma_fc[] = {0x02, 0x73, 0x01, 0x01, 0x00, 0x01, 0x02, 0x00}; /* byte 6 bit 1 */
        fwpt_pkt_init(&dec, tma_fc, sizeof tma_fc);
        fwpt_pkt_set_errata(&dec, &skz84);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_INVALID);
        static const uint8_t tma_ok[] = {0x02, 0x73, 0x01, 0x01, 0x00, 0xff, 0x01, 0x00}; /* no reserved bit set */
        fwpt_pkt_init(&dec, tma_ok, sizeof tma_ok);
        fwpt_pkt_set_errata(&dec, &skz84);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TMA); CHECK_EQ(pkt.tma.fc, 0x1ff);
        fwpt_pkt_init(&dec, tma_bad, 7); /* no bogus byte left: the TMA as the SDM reads it */
        fwpt_pkt_set_errata(&dec, &skz84);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TMA);
        fwpt_pkt_set_errata(&dec, NULL);
        CHECK_EQ(dec.errata, 0);

        /* far from the trace's end (where the fast path would run): the same, next and batch alike */
        static uint8_t big[256];
        __builtin_memset(big, 0, sizeof big);
        __builtin_memcpy(big + 40, cyc_ovf, 3);
        __builtin_memcpy(big + 100, tma_bad, 8);
        static struct fwpt_packet pk[256];
        for (int batch = 0; batch < 2; batch++) {
            struct fwpt_errata both = {.skd007 = true, .skz84 = true};
            fwpt_pkt_init(&dec, big, sizeof big);
            fwpt_pkt_set_errata(&dec, &both);
            size_t n = 0;
            if (batch) {
                n = fwpt_pkt_next_batch(&dec, pk, 256, &st);
                CHECK_EQ(st, FWPT_E_EOS);
            } else {
                while ((st = fwpt_pkt_next(&dec, &pk[n])) == FWPT_OK)
                    n++;
                CHECK_EQ(st, FWPT_E_EOS);
            }
            CHECK_EQ(n, 256 - 2 - 7); /* 256 bytes: OVF takes 3, INVALID 8, the rest are PADs */
            CHECK_EQ(pk[40].type, FWPT_PKT_OVF); CHECK_EQ(pk[40].offset, 40); CHECK_EQ(pk[40].size, 3);
            CHECK_EQ(pk[41].offset, 43); CHECK_EQ(pk[41].type, FWPT_PKT_PAD);
            CHECK_EQ(pk[98].type, FWPT_PKT_INVALID); CHECK_EQ(pk[98].offset, 100); CHECK_EQ(pk[99].offset, 108);
        }
    }
}

/* reserved opcodes and truncation */
TEST(reserved_opcodes_and_truncation)
{
    ONE(0x05);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE); CHECK_EQ(pkt.size, 0);
    ONE(0x09);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE);
    ONE(0x15);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE);
    ONE(0x39, 0);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE);
    ONE(0x02, 0x04);
    CHECK_EQ(st, FWPT_E_BAD_OPCODE);
    ONE(0x02);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
    ONE(0x02, 0x82, 0x02, 0x82);
    CHECK_EQ(st, FWPT_E_TRUNCATED);
    ONE(0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x83);
    CHECK_EQ(st, FWPT_E_BAD_PACKET);
    fwpt_pkt_init(&dec, (const uint8_t *)"", 0);
    CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_E_EOS);
}

/* sync forward / backward */
TEST(psb_sync_forward_backward)
{
    {
        static const uint8_t b[] = {0, 0, 0, PSB16, 0, PSB16, 0x02, 0x23};
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 3);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 20);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_E_NOSYNC); CHECK_EQ(dec.offset, 20);
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_sync_backward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 20);
        CHECK_EQ(fwpt_pkt_sync_backward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 3);
        CHECK_EQ(fwpt_pkt_sync_backward(&dec), FWPT_E_NOSYNC); CHECK_EQ(dec.offset, 3);
        /* first PSB at or after N: sync_set(N - 1) + sync_forward */
        fwpt_pkt_init(&dec, b, sizeof b);
        fwpt_pkt_sync_set(&dec, 2);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 3);
        fwpt_pkt_sync_set(&dec, 3);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 20);
        /* Last IP reset on sync */
        dec.last_ip = 5;
        fwpt_pkt_sync_set(&dec, 0);
        CHECK_EQ(dec.last_ip, 0);
        CHECK_EQ(fwpt_pkt_sync_set(&dec, sizeof b + 1), FWPT_E_EOS);
    }
    {
        /* a 02 82 run longer than a PSB: the PSB is its last 16 bytes */
        static const uint8_t b[] = {0, 0x02, 0x82, 0x02, 0x82, PSB16, 0x02, 0x23};
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 5);
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_sync_backward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 5);
    }
    {
        /* a PSB partly swallowed by a corrupt full-IP TIP in front of it is still found */
        static const uint8_t b[] = {0x00, 0x2d, 0x11, PSB16, 0, 0, 0, 0, 0, 0};
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PAD);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TIP); CHECK_EQ(pkt.size, 3);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_TNT_8); /* the 82 at 4 */
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_E_BAD_PACKET); CHECK_EQ(pkt.offset, 5); /* 02 82 x 7, then 0 */
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_OK); CHECK_EQ(dec.offset, 3);
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK); CHECK_EQ(pkt.type, FWPT_PKT_PSB);
    }
    {
        static const uint8_t b[] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02};
        fwpt_pkt_init(&dec, b, sizeof b);
        CHECK_EQ(fwpt_pkt_sync_forward(&dec), FWPT_E_NOSYNC);
        CHECK_EQ(fwpt_pkt_sync_backward(&dec), FWPT_E_NOSYNC);
    }
}

/* names */
TEST(packet_names)
{
    {
        static const char *const names[] = {"none", "pad", "psb", "psbend", "tnt.8", "tnt.64", "tip", "tip.pge",
            "tip.pgd", "fup", "pip", "mode.exec", "mode.tsx", "stop", "cbr", "tsc", "mtc", "tma", "cyc", "vmcs",
            "ovf", "mnt", "ptw", "exstop", "mwait", "pwre", "pwrx", "bbp", "bip", "bep", "cfe", "evd", "trig", "invalid"};
        _Static_assert(sizeof names / sizeof names[0] == FWPT_PKT_COUNT, "one expected name per packet type");
        for (int t = 0; t < FWPT_PKT_COUNT; t++)
            CHECK_STR(fwpt_pkt_type_name((enum fwpt_pkt_type)t), names[t]);
        CHECK_STR(fwpt_pkt_type_name(FWPT_PKT_COUNT), "?");
    }
}

/* printers */
TEST(printers_text_and_json)
{
    ONE(PSB16);
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  psb\n");
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"psb\",\"size\":16}\n");
    ONE(0x6d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x80);
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  tip       3: 0x800000001000  ip 0xffff800000001000\n");
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"tip\",\"size\":7,\"ipc\":3,\"payload\":\"0x800000001000\","
                                "\"ip\":\"0xffff800000001000\"}\n");
    ONE(0x01);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"tip.pgd\",\"size\":1,\"ipc\":0}\n");
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  tip.pgd   0: suppressed\n");
    ONE(0x02, 0x33);
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  bep\n"); /* no payload: no padding */
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"bep\",\"size\":2,\"ip\":false}\n");
    ONE(0x02, 0xe2);
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  exstop    ip\n");
    ONE(0x82);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"tnt.8\",\"size\":1,\"bits\":\"NNNNNT\"}\n");
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  tnt.8     .....!\n");
    ONE(0x99, 0x05);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"mode.exec\",\"size\":2,\"csl\":true,\"csd\":false,\"if\":true,\"mode\":64}\n");
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  mode.exec cs.l if  64-bit\n");
    ONE(0x02, 0x43, 0x01, 0x45, 0x23, 0x01, 0x00, 0x00);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"pip\",\"size\":8,\"cr3\":\"0x12345000\",\"nr\":true}\n");
    ONE(0x02, 0x73, 0x34, 0x12, 0x00, 0xff, 0x01);
    CHECK_STR(text_of(&pkt, 1), "{\"offset\":0,\"type\":\"tma\",\"size\":7,\"ctc\":4660,\"fc\":511}\n");
    CHECK_STR(text_of(&pkt, 0), "0000000000000000  tma       CTC 0x1234, FC 0x1ff\n");
    {
        struct fwpt_bufsink bs;
        struct fwpt_sink s = fwpt_bufsink_init(&bs, out, sizeof out - 1);
        fwpt_pkt_print_error_json(&s, 291, FWPT_E_TRUNCATED);
        out[bs.len] = 0;
        CHECK_STR(out, "{\"offset\":291,\"error\":\"truncated\"}\n");
        s = fwpt_bufsink_init(&bs, out, sizeof out - 1);
        fwpt_pkt_print_error_text(&s, 291, FWPT_E_BAD_OPCODE);
        out[bs.len] = 0;
        CHECK_STR(out, "0000000000000123  error: bad_opcode (unknown or reserved packet encoding)\n");
    }
}

TEST_MAIN("test_packet_vectors")
