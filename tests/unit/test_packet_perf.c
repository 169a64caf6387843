/* Linux perf's packet decoder test vectors, typed in as test data: the byte arrays of the table in Linux's
 * tools/perf/arch/x86/tests/intel-pt-test.c (test__intel_pt_pkt_decoder), each with the packet context it is
 * decoded in, the length perf expects, and the payload perf expects restated in fwpt's terms (struct
 * fwpt_packet's fields). perf keeps some payloads raw where fwpt splits them into fields: the comments say
 * how each one maps.
 *
 * perf's "packet context" (none, or inside a block of 4- or 8-byte BIPs) is fwpt's dec.block_item_bytes
 * (0, 4, 8). A vector decoded inside a block is preceded here by the BBP that opens one (SDM "Block Begin
 * Packet": SZ=1 4-byte items, SZ=0 8-byte items). Every vector is decoded twice: from a buffer of exactly its
 * length (the slow path's edge of the trace) and followed by PADs (the table-driven fast path), and through
 * the batch call. */
#include "decode/packet.h"
#include "tests/check.h"
#include "tests/common/pkt_equal.h"

struct perf_vec {
    unsigned len;          /* perf's expected packet length (the bytes after 'bytes' are zero) */
    uint8_t bytes[16];
    uint8_t ctx;           /* block item bytes before: 0 (perf INTEL_PT_NO_CTX), 4 (BLK_4_CTX), 8 (BLK_8_CTX) */
    struct fwpt_packet want; /* type and fields in fwpt's terms; offset and size are filled in */
    uint8_t new_ctx;       /* block item bytes after */
    bool ctx_unchanged;    /* perf: the packet leaves any context as it was (decoded here in all three) */
};

#define T(t) .type = FWPT_PKT_##t
#define IPV(t, c, v) {T(t), .ip = {.ipc = c, .suppressed = (c) == 0, .ip = v, .payload = v}}
/* IPBytes 000b: no payload, Last IP (0 in a fresh decoder) unchanged */
#define IP_PACKETS(t, h0)                                                                                \
    {1, {h0}, 0, IPV(t, 0, 0), 0, 0},                                                                    \
    {3, {h0 | 0x20, 1, 2}, 0, IPV(t, 1, 0x201), 0, 0},                                                   \
    {5, {h0 | 0x40, 1, 2, 3, 4}, 0, IPV(t, 2, 0x4030201), 0, 0},                                         \
    /* 011b: bit 47 of 0x060504030201 is 0, the sign extension adds nothing */                           \
    {7, {h0 | 0x60, 1, 2, 3, 4, 5, 6}, 0, IPV(t, 3, 0x60504030201), 0, 0},                               \
    {7, {h0 | 0x80, 1, 2, 3, 4, 5, 6}, 0, IPV(t, 4, 0x60504030201), 0, 0},                               \
    {9, {h0 | 0xc0, 1, 2, 3, 4, 5, 6, 7, 8}, 0, IPV(t, 6, 0x807060504030201), 0, 0}
#define PSB16 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82

static const struct perf_vec vecs[] = {
    /* Padding Packet */
    {1, {0}, 0, {T(PAD)}, 0, 1},
    /* Short TNT: perf's payload holds the bits from bit 63 down (B1 first); fwpt's bit i is B(i+1) */
    {1, {4}, 0, {T(TNT_8), .tnt = {.count = 1, .bits = 0}}, 0, 0},
    {1, {6}, 0, {T(TNT_8), .tnt = {.count = 1, .bits = 1}}, 0, 0},
    {1, {0x80}, 0, {T(TNT_8), .tnt = {.count = 6, .bits = 0}}, 0, 0},
    {1, {0xfe}, 0, {T(TNT_8), .tnt = {.count = 6, .bits = 0x3f}}, 0, 0},
    /* Long TNT: perf's payload is the raw packet shifted; here the stop bit is the highest set bit of bytes 2..7 */
    {8, {0x02, 0xa3, 2}, 0, {T(TNT_64), .tnt = {.count = 1, .bits = 0}}, 0, 0},
    {8, {0x02, 0xa3, 3}, 0, {T(TNT_64), .tnt = {.count = 1, .bits = 1}}, 0, 0},
    {8, {0x02, 0xa3, 0, 0, 0, 0, 0, 0x80}, 0, {T(TNT_64), .tnt = {.count = 47, .bits = 0}}, 0, 0},
    {8, {0x02, 0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0,
     {T(TNT_64), .tnt = {.count = 47, .bits = (1ull << 47) - 1}}, 0, 0},
    /* TIP, TIP.PGE, TIP.PGD, FUP: perf's count is IPBytes, its payload the raw IP bytes (fwpt: ip.payload) */
    IP_PACKETS(TIP, 0x0d),
    IP_PACKETS(TIP_PGE, 0x11),
    IP_PACKETS(TIP_PGD, 0x01),
    IP_PACKETS(FUP, 0x1d),
    /* PIP: perf's payload is the raw 48 bits; SDM: bit 0 NR, bits 47:1 CR3[51:5] */
    {8, {0x02, 0x43, 2, 4, 6, 8, 10, 12}, 0, {T(PIP), .pip = {.cr3 = 0xC0A08060402ull << 4, .nr = 0}}, 0, 0},
    {8, {0x02, 0x43, 3, 4, 6, 8, 10, 12}, 0, {T(PIP), .pip = {.cr3 = 0xC0A08060402ull << 4, .nr = 1}}, 0, 0},
    /* MODE.Exec: perf's count is byte 1 (CS.L bit 0, CS.D bit 1, IF bit 2), its payload the mode */
    {2, {0x99, 0x00}, 0, {T(MODE_EXEC), .mode_exec = {.mode = 16}}, 0, 0},
    {2, {0x99, 0x01}, 0, {T(MODE_EXEC), .mode_exec = {.csl = 1, .mode = 64}}, 0, 0},
    {2, {0x99, 0x02}, 0, {T(MODE_EXEC), .mode_exec = {.csd = 1, .mode = 32}}, 0, 0},
    {2, {0x99, 0x04}, 0, {T(MODE_EXEC), .mode_exec = {.iflag = 1, .mode = 16}}, 0, 0},
    {2, {0x99, 0x05}, 0, {T(MODE_EXEC), .mode_exec = {.csl = 1, .iflag = 1, .mode = 64}}, 0, 0},
    {2, {0x99, 0x06}, 0, {T(MODE_EXEC), .mode_exec = {.csd = 1, .iflag = 1, .mode = 32}}, 0, 0},
    /* MODE.TSX: perf's payload is byte 1's InTX (bit 0) and TXAbort (bit 1) */
    {2, {0x99, 0x20}, 0, {T(MODE_TSX), .mode_tsx = {.intx = 0, .abrt = 0}}, 0, 0},
    {2, {0x99, 0x21}, 0, {T(MODE_TSX), .mode_tsx = {.intx = 1, .abrt = 0}}, 0, 0},
    {2, {0x99, 0x22}, 0, {T(MODE_TSX), .mode_tsx = {.intx = 0, .abrt = 1}}, 0, 0},
    /* TraceStop */
    {2, {0x02, 0x83}, 0, {T(STOP)}, 0, 0},
    /* CBR */
    {4, {0x02, 0x03, 0x12, 0}, 0, {T(CBR), .cbr = {.ratio = 0x12}}, 0, 1},
    /* TSC */
    {8, {0x19, 1, 2, 3, 4, 5, 6, 7}, 0, {T(TSC), .tsc = {.tsc = 0x7060504030201}}, 0, 1},
    /* MTC */
    {2, {0x59, 0x12}, 0, {T(MTC), .mtc = {.ctc = 0x12}}, 0, 1},
    /* TMA: perf's count is FastCounter, its payload CTC */
    {7, {0x02, 0x73}, 0, {T(TMA), .tma = {.ctc = 0, .fc = 0}}, 0, 1},
    {7, {0x02, 0x73, 1, 2}, 0, {T(TMA), .tma = {.ctc = 0x201, .fc = 0}}, 0, 1},
    {7, {0x02, 0x73, 0, 0, 0, 0xff, 1}, 0, {T(TMA), .tma = {.ctc = 0, .fc = 0x1ff}}, 0, 1},
    {7, {0x02, 0x73, 0x80, 0xc0, 0, 0xff, 1}, 0, {T(TMA), .tma = {.ctc = 0xc080, .fc = 0x1ff}}, 0, 1},
    /* CYC, 1 to 10 bytes: the 10-byte ones carry 68 counter bits, of which perf (and fwpt) keep the low 64 */
    {1, {0x03}, 0, {T(CYC), .cyc = {.value = 0}}, 0, 1},
    {1, {0x0b}, 0, {T(CYC), .cyc = {.value = 1}}, 0, 1},
    {1, {0xfb}, 0, {T(CYC), .cyc = {.value = 0x1f}}, 0, 1},
    {2, {0x07, 2}, 0, {T(CYC), .cyc = {.value = 0x20}}, 0, 1},
    {2, {0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0xfff}}, 0, 1},
    {3, {0x07, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x1000}}, 0, 1},
    {3, {0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x7ffff}}, 0, 1},
    {4, {0x07, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x80000}}, 0, 1},
    {4, {0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x3ffffff}}, 0, 1},
    {5, {0x07, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x4000000}}, 0, 1},
    {5, {0xff, 0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x1ffffffff}}, 0, 1},
    {6, {0x07, 1, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x200000000}}, 0, 1},
    {6, {0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0xffffffffff}}, 0, 1},
    {7, {0x07, 1, 1, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x10000000000}}, 0, 1},
    {7, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x7fffffffffff}}, 0, 1},
    {8, {0x07, 1, 1, 1, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x800000000000}}, 0, 1},
    {8, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x3fffffffffffff}}, 0, 1},
    {9, {0x07, 1, 1, 1, 1, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x40000000000000}}, 0, 1},
    {9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0, {T(CYC), .cyc = {.value = 0x1fffffffffffffff}}, 0, 1},
    {10, {0x07, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0, {T(CYC), .cyc = {.value = 0x2000000000000000}}, 0, 1},
    {10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe}, 0, {T(CYC), .cyc = {.value = ~0ull}}, 0, 1},
    /* VMCS: perf's payload is the raw 5 bytes; fwpt's base is the VMCS pointer, the payload shifted by 12 */
    {7, {0x02, 0xc8, 1, 2, 3, 4, 5}, 0, {T(VMCS), .vmcs = {.base = 0x504030201ull << 12}}, 0, 0},
    /* OVF and PSB end a block (perf: context back to none) */
    {2, {0x02, 0xf3}, 0, {T(OVF)}, 0, 0},
    {2, {0x02, 0xf3}, 4, {T(OVF)}, 0, 0},
    {2, {0x02, 0xf3}, 8, {T(OVF)}, 0, 0},
    {16, {PSB16}, 0, {T(PSB)}, 0, 0},
    {16, {PSB16}, 4, {T(PSB)}, 0, 0},
    {16, {PSB16}, 8, {T(PSB)}, 0, 0},
    /* PSBEND */
    {2, {0x02, 0x23}, 0, {T(PSBEND)}, 0, 0},
    /* MNT */
    {11, {0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7}, 0, {T(MNT), .mnt = {.payload = 0x7060504030201}}, 0, 1},
    /* PTWRITE: perf's count is PayloadBytes (0: 4 bytes, 1: 8), its type PTWRITE_IP when the IP bit is set */
    {6, {0x02, 0x12, 1, 2, 3, 4}, 0, {T(PTW), .ptw = {.payload = 0x4030201, .bytes = 4, .plc = 0, .ip = 0}}, 0, 0},
    {10, {0x02, 0x32, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
     {T(PTW), .ptw = {.payload = 0x807060504030201, .bytes = 8, .plc = 1, .ip = 0}}, 0, 0},
    {6, {0x02, 0x92, 1, 2, 3, 4}, 0, {T(PTW), .ptw = {.payload = 0x4030201, .bytes = 4, .plc = 0, .ip = 1}}, 0, 0},
    {10, {0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
     {T(PTW), .ptw = {.payload = 0x807060504030201, .bytes = 8, .plc = 1, .ip = 1}}, 0, 0},
    /* EXSTOP (perf: EXSTOP_IP when the IP bit is set) */
    {2, {0x02, 0x62}, 0, {T(EXSTOP), .exstop = {.ip = 0}}, 0, 1},
    {2, {0x02, 0xe2}, 0, {T(EXSTOP), .exstop = {.ip = 1}}, 0, 1},
    /* MWAIT: perf's payload is bytes 2..9; fwpt's hints are bytes 2..5, ext bytes 6..9 */
    {10, {0x02, 0xc2}, 0, {T(MWAIT), .mwait = {.hints = 0, .ext = 0}}, 0, 0},
    {10, {0x02, 0xc2, 1, 2, 3, 4, 5, 6, 7, 8}, 0, {T(MWAIT), .mwait = {.hints = 0x4030201, .ext = 0x8070605}}, 0, 0},
    {10, {0x02, 0xc2, 0xff, 2, 3, 4, 7, 6, 7, 8}, 0,
     {T(MWAIT), .mwait = {.hints = 0x40302ff, .ext = 0x8070607}}, 0, 0},
    /* PWRE: perf's payload is bytes 2..3; SDM: byte 2 bit 7 HW, byte 3 C-state 7:4, sub C-state 3:0 (byte 2's
     * other bits are reserved: the 1 of the second vector is not HW) */
    {4, {0x02, 0x22}, 0, {T(PWRE), .pwre = {.state = 0, .sub_state = 0, .hw = 0}}, 0, 1},
    {4, {0x02, 0x22, 1, 2}, 0, {T(PWRE), .pwre = {.state = 0, .sub_state = 2, .hw = 0}}, 0, 1},
    {4, {0x02, 0x22, 0x80, 0x34}, 0, {T(PWRE), .pwre = {.state = 3, .sub_state = 4, .hw = 1}}, 0, 1},
    {4, {0x02, 0x22, 0x00, 0x56}, 0, {T(PWRE), .pwre = {.state = 5, .sub_state = 6, .hw = 0}}, 0, 1},
    /* PWRX: perf's payload is bytes 2..6; SDM: byte 2 last 7:4 / deepest 3:0 core C-state, byte 3 bits 3:0 the
     * wake reason; bytes 4..6 are reserved (fwpt keeps no field for them) */
    {7, {0x02, 0xa2}, 0, {T(PWRX), .pwrx = {.last = 0, .deepest = 0, .wake_reason = 0}}, 0, 1},
    {7, {0x02, 0xa2, 1, 2, 3, 4, 5}, 0, {T(PWRX), .pwrx = {.last = 0, .deepest = 1, .wake_reason = 2}}, 0, 1},
    {7, {0x02, 0xa2, 0xff, 0xff, 0xff, 0xff, 0xff}, 0,
     {T(PWRX), .pwrx = {.last = 0xf, .deepest = 0xf, .wake_reason = 0xf}}, 0, 1},
    /* BBP: perf's count is SZ, its payload the type; the block context follows SZ */
    {3, {0x02, 0x63, 0x00}, 0, {T(BBP), .bbp = {.type = 0, .sz = 0, .item_bytes = 8}}, 8, 0},
    {3, {0x02, 0x63, 0x80}, 0, {T(BBP), .bbp = {.type = 0, .sz = 1, .item_bytes = 4}}, 4, 0},
    {3, {0x02, 0x63, 0x1f}, 0, {T(BBP), .bbp = {.type = 0x1f, .sz = 0, .item_bytes = 8}}, 8, 0},
    {3, {0x02, 0x63, 0x9f}, 0, {T(BBP), .bbp = {.type = 0x1f, .sz = 1, .item_bytes = 4}}, 4, 0},
    /* BIP, 4-byte items: perf's count is the ID (header bits 7:3) */
    {5, {0x04}, 4, {T(BIP), .bip = {.id = 0, .bytes = 4, .value = 0}}, 4, 0},
    {5, {0xfc}, 4, {T(BIP), .bip = {.id = 0x1f, .bytes = 4, .value = 0}}, 4, 0},
    {5, {0x04, 1, 2, 3, 4}, 4, {T(BIP), .bip = {.id = 0, .bytes = 4, .value = 0x04030201}}, 4, 0},
    {5, {0xfc, 1, 2, 3, 4}, 4, {T(BIP), .bip = {.id = 0x1f, .bytes = 4, .value = 0x04030201}}, 4, 0},
    /* BIP, 8-byte items */
    {9, {0x04}, 8, {T(BIP), .bip = {.id = 0, .bytes = 8, .value = 0}}, 8, 0},
    {9, {0xfc}, 8, {T(BIP), .bip = {.id = 0x1f, .bytes = 8, .value = 0}}, 8, 0},
    {9, {0x04, 1, 2, 3, 4, 5, 6, 7, 8}, 8, {T(BIP), .bip = {.id = 0, .bytes = 8, .value = 0x0807060504030201}}, 8, 0},
    {9, {0xfc, 1, 2, 3, 4, 5, 6, 7, 8}, 8, {T(BIP), .bip = {.id = 0x1f, .bytes = 8, .value = 0x0807060504030201}}, 8, 0},
    /* BEP ends the block (perf: BEP_IP when the IP bit is set) */
    {2, {0x02, 0x33}, 4, {T(BEP), .bep = {.ip = 0}}, 0, 0},
    {2, {0x02, 0xb3}, 4, {T(BEP), .bep = {.ip = 1}}, 0, 0},
    {2, {0x02, 0x33}, 8, {T(BEP), .bep = {.ip = 0}}, 0, 0},
    {2, {0x02, 0xb3}, 8, {T(BEP), .bep = {.ip = 1}}, 0, 0},
    /* CFE: perf's count is the type, its payload the vector (CFE_IP when the IP bit is set) */
    {4, {0x02, 0x13, 0x01, 0x03}, 0, {T(CFE), .cfe = {.type = 1, .vector = 3, .ip = 0}}, 0, 0},
    {4, {0x02, 0x13, 0x81, 0x03}, 0, {T(CFE), .cfe = {.type = 1, .vector = 3, .ip = 1}}, 0, 0},
    {4, {0x02, 0x13, 0x1f, 0x00}, 0, {T(CFE), .cfe = {.type = 0x1f, .vector = 0, .ip = 0}}, 0, 0},
    {4, {0x02, 0x13, 0x9f, 0xff}, 0, {T(CFE), .cfe = {.type = 0x1f, .vector = 0xff, .ip = 1}}, 0, 0},
    /* EVD: perf's count is the type, its payload bytes 3..10 */
    {11, {0x02, 0x53, 0x09, 1, 2, 3, 4, 5, 6, 7}, 0, {T(EVD), .evd = {.type = 0x09, .payload = 0x7060504030201}}, 0, 0},
    {11, {0x02, 0x53, 0x3f, 2, 3, 4, 5, 6, 7, 8}, 0, {T(EVD), .evd = {.type = 0x3f, .payload = 0x8070605040302}}, 0, 0},
};

/* BBP opening a block of 'ctx'-byte items (SDM "Block Begin Packet": byte 2 bit 7 SZ, 1 = 4-byte items) */
static size_t open_block(uint8_t *buf, unsigned ctx)
{
    if (!ctx)
        return 0;
    buf[0] = 0x02;
    buf[1] = 0x63;
    buf[2] = ctx == 4 ? 0x80 : 0x00;
    return 3;
}

/* Decode v in context ctx from a buffer of exactly its length plus the BBP (padded = 0), or followed by 32
 * PADs (padded = 1, the fast path); check type, length, fields and the block context after it. */
static void check_one(const struct perf_vec *v, unsigned ctx, int padded, size_t idx)
{
    uint8_t buf[3 + 16 + 32] = {0};
    size_t pre = open_block(buf, ctx);
    __builtin_memcpy(buf + pre, v->bytes, v->len);
    size_t len = pre + v->len + (padded ? 32 : 0);
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    fwpt_pkt_init(&dec, buf, len);
    if (pre) {
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_OK);
        CHECK_EQ(pkt.type, FWPT_PKT_BBP);
        CHECK_EQ(dec.block_item_bytes, ctx);
    }
    struct fwpt_packet want = v->want;
    want.offset = pre;
    want.size = (uint8_t)v->len;
    enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
    CHECK_EQ(s, FWPT_OK);
    CHECK_EQ(pkt.type, want.type);
    CHECK_EQ(pkt.size, v->len);
    int same = pkt_same_fields(&pkt, &want);
    CHECK(same);
    if (!same && check_failed <= 50)
        fprintf(stderr, "vector %zu (%s, context %u, %s): fields differ\n", idx, fwpt_pkt_type_name(want.type), ctx,
                padded ? "padded" : "exact");
    CHECK_EQ(dec.offset, pre + v->len);
    CHECK_EQ(dec.block_item_bytes, v->ctx_unchanged ? ctx : v->new_ctx);
    if (!padded)
        CHECK_EQ(fwpt_pkt_next(&dec, &pkt), FWPT_E_EOS);

    /* the batch call: the same packets */
    struct fwpt_packet batch[4];
    struct fwpt_pkt_decoder bd;
    fwpt_pkt_init(&bd, buf, len);
    size_t n = fwpt_pkt_next_batch(&bd, batch, pre ? 2 : 1, &s);
    CHECK_EQ(n, pre ? 2u : 1u);
    CHECK_EQ(s, FWPT_OK);
    CHECK(pkt_same_fields(&batch[n - 1], &want));
}

#define NVEC (sizeof vecs / sizeof vecs[0])

TEST(table_holds_perfs_120_rows)
{
    CHECK_EQ(NVEC, 120); /* the rows of perf's table, its terminator not counted */
}

/* Every vector, in each block context it leaves unchanged (none, 4- and 8-byte items) or in the one it
 * needs, from a buffer of exactly its length or followed by 32 PADs. */
static void check_all(int padded)
{
    for (size_t i = 0; i < NVEC; i++) {
        const struct perf_vec *v = &vecs[i];
        if (v->ctx_unchanged) {
            for (unsigned ctx = 0; ctx <= 8; ctx += 4)
                check_one(v, ctx, padded, i);
        } else {
            check_one(v, v->ctx, padded, i);
        }
    }
}

/* each vector from a buffer of exactly its length (and the BBP its context needs) */
TEST(vectors_from_exact_buffers)
{
    check_all(0);
}

/* each vector followed by 32 PADs: the fast path */
TEST(vectors_from_padded_buffers)
{
    check_all(1);
}

TEST_MAIN("test_packet_perf")
