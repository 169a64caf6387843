/* The packet decoder's opcode map against the SDM's header patterns (SDM Vol. 3C, "Packet Definitions": each
 * packet's table draws its header bits). The patterns are written here as the SDM draws them, bit 7 first, x for
 * a bit that does not select the packet: an independent statement of the rules decode/packet_tables.c's tables
 * follow. Every byte 0, every byte 1 after 02h and every byte 1 after 99h goes through the slow path
 * (the class tables fwpt_pkt_first_kind and fwpt_pkt_ext_kind) and through fwpt_pkt_next (the fast path's
 * tables); both must give the type and size, or the error, the patterns give. */
#include "decode/packet.h"
#include "decode/packet_fast.h" /* private: fwpt_pkt_next_slow */
#include "tests/check.h"

struct pattern {
    const char *bits; /* bit 7 .. bit 0: '0', '1' or 'x' */
    uint8_t type;     /* FWPT_PKT_*; FWPT_PKT_NONE: 'err' */
    uint8_t size;     /* 0 for FUP/TIP*: the size follows IPBytes */
    enum fwpt_status err;
};

/* first match wins; a byte no pattern matches is reserved (FWPT_E_BAD_OPCODE) */
static const struct pattern byte0[] = {
    {"00000000", FWPT_PKT_PAD, 1, FWPT_OK},
    {"xxxxxxx0", FWPT_PKT_TNT_8, 1, FWPT_OK},       /* but 00000010b, the extended opcodes (byte1 below) */
    {"xxxxx011", FWPT_PKT_CYC, 1, FWPT_OK},         /* Exp (bit 2) clear */
    {"xxxxx111", FWPT_PKT_CYC, 2, FWPT_OK},         /* Exp set, byte 1 with Exp clear */
    {"xxx01101", FWPT_PKT_TIP, 0, FWPT_OK},         /* bits 7:5 IPBytes */
    {"xxx10001", FWPT_PKT_TIP_PGE, 0, FWPT_OK},
    {"xxx00001", FWPT_PKT_TIP_PGD, 0, FWPT_OK},
    {"xxx11101", FWPT_PKT_FUP, 0, FWPT_OK},
    {"00011001", FWPT_PKT_TSC, 8, FWPT_OK},
    {"01011001", FWPT_PKT_MTC, 2, FWPT_OK},
    {"10011001", FWPT_PKT_MODE_EXEC, 2, FWPT_OK},   /* byte 1 is 0 here: leaf Exec (byte1_mode below) */
    {"11011001", FWPT_PKT_TRIG, 3, FWPT_OK},        /* byte 1 is 0 here: ICNTV clear */
};

/* after 02h, byte 1 */
static const struct pattern byte1_ext[] = {
    {"10000010", FWPT_PKT_PSB, 16, FWPT_OK},        /* with the rest of the pattern, 02 82 x 8 */
    {"00100011", FWPT_PKT_PSBEND, 2, FWPT_OK},
    {"11110011", FWPT_PKT_OVF, 2, FWPT_OK},
    {"00000011", FWPT_PKT_CBR, 4, FWPT_OK},
    {"01000011", FWPT_PKT_PIP, 8, FWPT_OK},
    {"10100011", FWPT_PKT_TNT_64, 8, FWPT_OK},
    {"10000011", FWPT_PKT_STOP, 2, FWPT_OK},
    {"11001000", FWPT_PKT_VMCS, 7, FWPT_OK},
    {"01110011", FWPT_PKT_TMA, 7, FWPT_OK},
    {"11000011", FWPT_PKT_MNT, 11, FWPT_OK},        /* byte 2 is 88h */
    {"x1100010", FWPT_PKT_EXSTOP, 2, FWPT_OK},      /* bit 7 IP */
    {"11000010", FWPT_PKT_MWAIT, 10, FWPT_OK},
    {"00100010", FWPT_PKT_PWRE, 4, FWPT_OK},
    {"10100010", FWPT_PKT_PWRX, 7, FWPT_OK},
    {"x0010010", FWPT_PKT_PTW, 6, FWPT_OK},         /* PayloadBytes (bits 6:5) 00b: 4 bytes */
    {"x0110010", FWPT_PKT_PTW, 10, FWPT_OK},        /* 01b: 8 bytes */
    {"x1x10010", FWPT_PKT_NONE, 0, FWPT_E_BAD_PACKET}, /* 1xb reserved */
    {"01100011", FWPT_PKT_BBP, 3, FWPT_OK},
    {"x0110011", FWPT_PKT_BEP, 2, FWPT_OK},         /* bit 7 IP */
    {"00010011", FWPT_PKT_CFE, 4, FWPT_OK},
    {"01010011", FWPT_PKT_EVD, 11, FWPT_OK},
};

/* after 99h (MODE), byte 1: bits 7:5 the leaf */
static const struct pattern byte1_mode[] = {
    {"000xxxxx", FWPT_PKT_MODE_EXEC, 2, FWPT_OK},
    {"001xxxxx", FWPT_PKT_MODE_TSX, 2, FWPT_OK},
    {"xxxxxxxx", FWPT_PKT_NONE, 0, FWPT_E_BAD_PACKET},
};

/* SDM Table "FUP/TIP IP Reconstruction": the packet's size by IPBytes; 0 where IPBytes is reserved */
static const uint8_t ip_size[8] = {1, 3, 5, 7, 7, 0, 9, 0};

static bool matches(const char *bits, unsigned b)
{
    for (int i = 0; i < 8; i++) {
        char c = bits[i];
        unsigned bit = (b >> (7 - i)) & 1;
        if (c != 'x' && (unsigned)(c - '0') != bit)
            return false;
    }
    return true;
}

static const struct pattern *lookup(const struct pattern *list, size_t n, unsigned b)
{
    for (size_t i = 0; i < n; i++)
        if (matches(list[i].bits, b))
            return &list[i];
    return NULL;
}

/* The packet at buf[0] (of n bytes) by the slow path (path 0) or fwpt_pkt_next (path 1). */
static enum fwpt_status decode_one(int path, const uint8_t *buf, size_t n, struct fwpt_packet *pkt)
{
    struct fwpt_pkt_decoder dec;
    fwpt_pkt_init(&dec, buf, n);
    fwpt_pkt_sync_set(&dec, 0);
    return path ? fwpt_pkt_next(&dec, pkt) : fwpt_pkt_next_slow(&dec, pkt);
}

static unsigned long failed;

/* The packet whose first bytes are hdr[0..hl) (then 88h, then zeros; 02 82: the whole PSB) decodes as *want. */
static void expect(const uint8_t *hdr, unsigned hl, const struct pattern *want)
{
    uint8_t buf[32] = {0};
    memcpy(buf, hdr, hl);
    buf[hl] = 0x88; /* MNT's byte 2; as a long TNT payload: 7 branches and the stop bit */
    if (hl == 2 && hdr[0] == 0x02 && hdr[1] == 0x82)
        for (unsigned i = 0; i < 16; i++)
            buf[i] = i & 1 ? 0x82 : 0x02;
    uint8_t type = want ? want->type : FWPT_PKT_NONE;
    enum fwpt_status err = want ? want->err : FWPT_E_BAD_OPCODE;
    unsigned size = want ? want->size : 0;
    if (want && want->err == FWPT_OK && size == 0) {
        size = ip_size[hdr[0] >> 5];
        if (!size) {
            type = FWPT_PKT_NONE;
            err = FWPT_E_BAD_IPC;
        }
    }
    for (int path = 0; path < 2; path++) {
        struct fwpt_packet pkt;
        enum fwpt_status s = decode_one(path, buf, sizeof buf, &pkt);
        bool ok = s == err && pkt.type == type && pkt.size == (err == FWPT_OK ? size : 0) && pkt.offset == 0;
        if (ok && s == FWPT_OK && (type == FWPT_PKT_TIP || type == FWPT_PKT_TIP_PGE || type == FWPT_PKT_TIP_PGD ||
                                   type == FWPT_PKT_FUP))
            ok = pkt.ip.ipc == hdr[0] >> 5;
        CHECK(ok);
        if (!ok && failed++ < 10)
            fprintf(stderr, "%s: %02x %02x: status %d type %u size %u, expected status %d type %u size %u\n",
                    path ? "fwpt_pkt_next" : "slow path", hdr[0], hl > 1 ? hdr[1] : 0, s, pkt.type, pkt.size, err,
                    type, err == FWPT_OK ? size : 0);
    }
}

#define N(list) (sizeof list / sizeof list[0])

/* every byte 0 but 02h and 99h, alone (then 88h) */
TEST(byte0_by_pattern)
{
    for (unsigned b = 0; b < 256; b++) {
        uint8_t h[2] = {(uint8_t)b, 0};
        if (b != 0x02 && b != 0x99)
            expect(h, 1, lookup(byte0, N(byte0), b));
    }
}

/* every byte 1 after 02h, the extended opcodes */
TEST(byte1_after_02h_by_pattern)
{
    for (unsigned x = 0; x < 256; x++) {
        uint8_t h[2] = {0x02, (uint8_t)x};
        expect(h, 2, lookup(byte1_ext, N(byte1_ext), x));
    }
}

/* every byte 1 after 99h, the MODE leaves */
TEST(byte1_after_99h_by_pattern)
{
    for (unsigned x = 0; x < 256; x++) {
        uint8_t h[2] = {0x99, (uint8_t)x};
        expect(h, 2, lookup(byte1_mode, N(byte1_mode), x));
    }
}

/* MODE.Exec: CS.L (bit 0) and CS.D (bit 1) give the mode; CS.L = CS.D = 1 is reserved */
TEST(mode_exec_cs_bits)
{
    static const uint8_t mode[4] = {FWPT_MODE_16, FWPT_MODE_64, FWPT_MODE_32, FWPT_MODE_UNKNOWN};
    for (unsigned m = 0; m < 8; m++) {
        uint8_t buf[32] = {0x99, (uint8_t)m};
        for (int path = 0; path < 2; path++) {
            struct fwpt_packet pkt;
            enum fwpt_status s = decode_one(path, buf, sizeof buf, &pkt);
            CHECK(s == FWPT_OK && pkt.type == FWPT_PKT_MODE_EXEC && pkt.mode_exec.mode == mode[m & 3] &&
                  pkt.mode_exec.csl == (m & 1) && pkt.mode_exec.csd == ((m >> 1) & 1) &&
                  pkt.mode_exec.iflag == (m >> 2));
        }
    }
}

/* reserved: bytes 0 with bits 1:0 = 01b (64) but the 32 FUP/TIP* and TSC, MTC, MODE, TRIG: 28; bytes 1 after
 * 02h but the 28 the patterns name (EXSTOP and BEP twice, PTW 8 times): 228; none after 99h */
TEST(reserved_encodings_counted)
{
    unsigned long reserved = 0, matched = 0;
    for (unsigned b = 0; b < 256; b++) {
        if (b == 0x02 || b == 0x99) {
            for (unsigned x = 0; x < 256; x++) {
                const struct pattern *p =
                    b == 0x02 ? lookup(byte1_ext, N(byte1_ext), x) : lookup(byte1_mode, N(byte1_mode), x);
                p ? matched++ : reserved++;
            }
        } else {
            lookup(byte0, N(byte0), b) ? matched++ : reserved++;
        }
    }
    printf("opcode map: %lu encodings matched a pattern, %lu reserved\n", matched, reserved);
    CHECK_EQ(reserved, 28 + 228);
    CHECK_EQ(matched + reserved, 254 + 256 + 256);
}

TEST_MAIN("test_packet_opcodes")
