/* The inline fast path (fwpt_pkt_fast_one / fwpt_pkt_next) against the slow path (fwpt_pkt_next_slow), which
 * test_packet_vectors and test_packet_libipt check against the SDM and libipt: every header byte (and every
 * byte 1 after 02h and 99h) with random and structured payloads, at every buffer length near the packet's end,
 * with random Last IP; then random streams through fwpt_pkt_next, the slow path and fwpt_pkt_next_batch. */
#include "decode/packet.h"
#include "decode/packet_fast.h" /* private: fwpt_pkt_next_slow, fwpt_pkt_fast_one, dec.lean */
#include "tests/common/pkt_equal.h"
#include "tests/common/rng.h"
#include "tests/check.h"

static uint64_t rs;
/* Each case seeds the generator: with where it stood when the cases ran as one sequence, so that the data are
 * the same whether a case runs alone or after the others. */
static void seed(uint64_t s) { rs = s; }
static uint64_t rnd(void) { return xorshift64(&rs); }


static unsigned long fast_by_type[FWPT_PKT_COUNT], slow_ok_by_type[FWPT_PKT_COUNT], compared, fast_errors;
static int dumped;

static void dump(const char *what, const uint8_t *b, size_t len, size_t off)
{
    if (dumped++ >= 10)
        return;
    fprintf(stderr, "%s: len %zu off %zu bytes:", what, len, off);
    for (size_t i = off; i < len && i < off + 16; i++)
        fprintf(stderr, " %02x", b[i]);
    fprintf(stderr, "\n");
}

/* One packet at b[off..len): fwpt_pkt_next, fwpt_pkt_fast_one and the slow path, from Last IP 'lip'. */
static void one(const uint8_t *b, size_t len, size_t off, uint64_t lip)
{
    struct fwpt_pkt_decoder d1, d2;
    struct fwpt_packet a, s, f;
    fwpt_pkt_init(&d1, b, len);
    fwpt_pkt_init(&d2, b, len);
    fwpt_pkt_sync_set(&d1, off);
    fwpt_pkt_sync_set(&d2, off);
    d1.last_ip = d2.last_ip = lip; /* as an earlier IP packet would have left it */
    memset(&a, 0x5a, sizeof a);
    memset(&s, 0xa5, sizeof s);
    memset(&f, 0x3c, sizeof f);
    enum fwpt_status s1 = fwpt_pkt_next(&d1, &a), s2 = fwpt_pkt_next_slow(&d2, &s);
    int ok = s1 == s2 && d1.offset == d2.offset && d1.last_ip == d2.last_ip && a.offset == s.offset &&
             (s1 == FWPT_OK ? pkt_same_fields(&a, &s) : a.type == FWPT_PKT_NONE && a.size == 0 && s.size == 0);
    CHECK(ok);
    if (!ok)
        dump("fwpt_pkt_next and the slow path differ", b, len, off);
    /* the fast path alone: either it declines (offset and Last IP unchanged) or it agrees with the slow path */
    size_t o = off;
    uint64_t l = lip;
    bool fast = fwpt_pkt_fast_one(b, len, &o, &l, &f);
    if (fast) {
        int fok = s2 == FWPT_OK && pkt_same_fields(&f, &s) && o == d2.offset && l == d2.last_ip;
        CHECK(fok);
        if (!fok) {
            fast_errors++;
            dump("the fast path differs from the slow path", b, len, off);
        }
        if (f.type < FWPT_PKT_COUNT)
            fast_by_type[f.type]++;
    } else {
        CHECK(o == off && l == lip);
    }
    /* fwpt_pkt_next with the one-byte path on (a fresh decoder has it on trial) and off: the same packet */
    for (int lean = 0; lean < 2; lean++) {
        struct fwpt_pkt_decoder d3;
        struct fwpt_packet m;
        fwpt_pkt_init(&d3, b, len);
        fwpt_pkt_sync_set(&d3, off);
        d3.last_ip = lip;
        d3.lean = lean ? FWPT_PKT_LEAN_ON : 0;
        memset(&m, 0x69, sizeof m);
        enum fwpt_status s3 = fwpt_pkt_next(&d3, &m);
        int mok = s3 == s2 && d3.offset == d2.offset && d3.last_ip == d2.last_ip && m.offset == s.offset &&
                  (s3 == FWPT_OK ? pkt_same_fields(&m, &s) : m.type == FWPT_PKT_NONE && m.size == 0);
        CHECK(mok);
        if (!mok)
            dump(lean ? "fwpt_pkt_next with the one-byte path on differs" : "fwpt_pkt_next with it off differs",
                 b, len, off);
    }
    if (s2 == FWPT_OK && s.type < FWPT_PKT_COUNT)
        slow_ok_by_type[s.type]++;
    compared++;
}

/* The packet image p[0..24) at offset 'at' of a buffer cut at every length from 'at' to 'at' + 24. */
static void all_cuts(const uint8_t *p, size_t at)
{
    uint8_t buf[64];
    for (size_t i = 0; i < at; i++)
        buf[i] = 0; /* PAD */
    memcpy(buf + at, p, 24);
    uint64_t lip = rnd();
    for (size_t n = 0; n <= 24; n++)
        one(buf, at + n, at, lip);
}

static void random_image(uint8_t *p, unsigned hdr_len)
{
    for (unsigned i = hdr_len; i < 24; i++)
        p[i] = (uint8_t)rnd();
}

static void header(unsigned b0, int b1)
{
    uint8_t p[24];
    unsigned hl = b1 < 0 ? 1 : 2;
    p[0] = (uint8_t)b0;
    if (b1 >= 0)
        p[1] = (uint8_t)b1;
    for (int k = 0; k < 24; k++) {
        random_image(p, hl);
        /* sparse payloads too: short TNT/CYC stops, small values, zero IP bytes */
        if (k % 3 == 1)
            for (unsigned i = hl; i < 24; i++)
                p[i] &= (uint8_t)rnd();
        all_cuts(p, (size_t)(k % 4));
    }
    if (b0 == 0x02 && b1 == 0x82) {
        /* PSB: the whole pattern, and each byte of it broken */
        for (unsigned i = 0; i < 16; i++)
            p[i] = i & 1 ? 0x82 : 0x02;
        all_cuts(p, 0);
        for (unsigned i = 2; i < 16; i++) {
            p[i] ^= 0x10;
            all_cuts(p, 1);
            p[i] ^= 0x10;
        }
    }
    if (b0 == 0x02 && b1 == 0xc3) {
        p[2] = 0x88; /* MNT */
        all_cuts(p, 0);
        all_cuts(p, 3);
    }
    if (b0 == 0x02 && b1 == 0xa3) {
        /* long TNT: no stop bit, a stop bit alone, and the stop bit at every position */
        for (unsigned stop = 0; stop <= 48; stop++) {
            uint64_t v = stop ? (rnd() & ((1ull << (stop - 1)) - 1)) | 1ull << (stop - 1) : 0;
            for (unsigned i = 0; i < 6; i++)
                p[2 + i] = (uint8_t)(v >> (8 * i));
            all_cuts(p, stop % 4);
        }
    }
    if ((b0 & 3) == 3 && b1 < 0) {
        /* CYC: Exp chains of every length, up to one past the longest (reserved) */
        for (unsigned n = 0; n <= 10; n++) {
            random_image(p, 1);
            for (unsigned i = 1; i < 24; i++)
                p[i] = (uint8_t)(i < 1 + n ? p[i] | 1 : p[i] & ~1u);
            all_cuts(p, n % 4);
        }
    }
}

/* Every header byte, every byte 1 after 02h and 99h, with random and structured payloads, each buffer cut near
 * the packet's end: the fast path agrees with the slow path or declines. Then every type the fast path claims was
 * decoded by it, and agreed; BBP/BIP/EVD stay with the slow path. */
TEST(every_header_fast_agrees_with_slow)
{
    seed(0x9e3779b97f4a7c15ull);
    for (unsigned b0 = 0; b0 < 256; b0++) {
        if (b0 == 0x02 || b0 == 0x99)
            for (unsigned b1 = 0; b1 < 256; b1++)
                header(b0, (int)b1);
        else
            header(b0, -1);
    }
    CHECK_EQ(fast_errors, 0);
    static const uint8_t fast_types[] = {
        FWPT_PKT_PAD, FWPT_PKT_PSB, FWPT_PKT_PSBEND, FWPT_PKT_TNT_8, FWPT_PKT_TNT_64, FWPT_PKT_TIP,
        FWPT_PKT_TIP_PGE, FWPT_PKT_TIP_PGD, FWPT_PKT_FUP, FWPT_PKT_PIP, FWPT_PKT_MODE_EXEC, FWPT_PKT_MODE_TSX,
        FWPT_PKT_STOP, FWPT_PKT_CBR, FWPT_PKT_TSC, FWPT_PKT_MTC, FWPT_PKT_TMA, FWPT_PKT_CYC, FWPT_PKT_VMCS,
        FWPT_PKT_OVF, FWPT_PKT_MNT, FWPT_PKT_PTW, FWPT_PKT_EXSTOP, FWPT_PKT_MWAIT, FWPT_PKT_PWRE, FWPT_PKT_PWRX,
        FWPT_PKT_BEP, FWPT_PKT_CFE,
    };
    for (size_t i = 0; i < sizeof fast_types; i++) {
        CHECK(fast_by_type[fast_types[i]] > 0);
        if (!fast_by_type[fast_types[i]])
            fprintf(stderr, "the fast path never decoded %s\n", fwpt_pkt_type_name(fast_types[i]));
    }
    CHECK_EQ(fast_by_type[FWPT_PKT_BBP] + fast_by_type[FWPT_PKT_BIP] + fast_by_type[FWPT_PKT_EVD], 0);
    CHECK(slow_ok_by_type[FWPT_PKT_BBP] > 0 && slow_ok_by_type[FWPT_PKT_EVD] > 0);
    printf("single packets compared: %lu; decoded by the fast path:", compared);
    for (unsigned t = 1; t < FWPT_PKT_COUNT; t++)
        if (fast_by_type[t])
            printf(" %s %lu", fwpt_pkt_type_name(t), fast_by_type[t]);
    printf("\n");
}

/* Random streams of packets that decode: next, slow and batch (random batch sizes) agree packet by packet. */
static struct fwpt_packet ref[4096], got[4096];
/* A valid packet (not BBP: outside blocks) of random type at p, from the slow path's view: its size. */
static unsigned random_packet(uint8_t *p)
{
    for (;;) {
        p[0] = (uint8_t)rnd();
        if (rnd() % 3 == 0)
            p[0] = (uint8_t)(rnd() & 1 ? 0x02 : 0x99);
        random_image(p, 1);
        if (rnd() % 64 == 0)
            for (unsigned i = 0; i < 16; i++)
                p[i] = i & 1 ? 0x82 : 0x02;
        struct fwpt_pkt_decoder d;
        struct fwpt_packet s;
        fwpt_pkt_init(&d, p, 24);
        fwpt_pkt_sync_set(&d, 0);
        if (fwpt_pkt_next_slow(&d, &s) == FWPT_OK && s.type != FWPT_PKT_BBP)
            return s.size;
    }
}

TEST(random_streams_next_slow_batch_agree)
{
    seed(0x387f4570b564549bull);
    static uint8_t buf[16384];
    unsigned long pkts = 0;
    for (int round = 0; round < 200; round++) {
        size_t len = 0;
        while (len + 40 < sizeof buf) {
            uint8_t p[24];
            unsigned size = random_packet(p);
            memcpy(buf + len, p, size);
            len += size;
        }
        struct fwpt_pkt_decoder d1, d2, d3;
        fwpt_pkt_init(&d1, buf, len);
        fwpt_pkt_init(&d2, buf, len);
        fwpt_pkt_init(&d3, buf, len);
        fwpt_pkt_sync_set(&d1, 0);
        fwpt_pkt_sync_set(&d2, 0);
        fwpt_pkt_sync_set(&d3, 0);
        size_t n = 0;
        int ok = 1;
        for (;;) {
            struct fwpt_packet a;
            enum fwpt_status s1 = fwpt_pkt_next(&d1, &a), s2 = fwpt_pkt_next_slow(&d2, &ref[n]);
            if (s1 != s2 || !(s1 != FWPT_OK || pkt_same_fields(&a, &ref[n])) || d1.last_ip != d2.last_ip) {
                ok = 0;
                break;
            }
            if (s1 != FWPT_OK) {
                ok = s1 == FWPT_E_EOS && d1.offset == len;
                break;
            }
            if (++n == sizeof ref / sizeof ref[0])
                break;
        }
        CHECK(ok);
        size_t i = 0;
        enum fwpt_status st = FWPT_OK;
        while (ok && i < n && st == FWPT_OK) {
            size_t want = 1 + rnd() % 300;
            if (want > n - i)
                want = n - i;
            size_t k = fwpt_pkt_next_batch(&d3, got, want, &st);
            for (size_t j = 0; j < k; j++)
                ok &= pkt_same_fields(&got[j], &ref[i + j]);
            i += k;
            ok &= k == want ? st == FWPT_OK : 0;
        }
        CHECK(ok && i == n && d3.last_ip == d2.last_ip);
        pkts += n;
    }
    CHECK(pkts > 200000); /* the streams were decoded, not cut short */
}


/* Phases of a trace: loops (runs of 7 short TNT and a TIP, the pattern the one-byte path is for), random packet
 * types, loops again. fwpt_pkt_next switches the one-byte path on, off and on again (dec->lean), and in every
 * phase fwpt_pkt_next, fwpt_pkt_next_batch (random batch sizes) and the slow path agree packet by packet. */
TEST(phases_switch_one_byte_path_off_and_on)
{
    seed(0x7947376c26e00e91ull);
    static uint8_t buf[1536 << 10];
    static const size_t phase_end[] = {160 << 10, 900 << 10, sizeof buf - 32};
    size_t len = 0;
    for (unsigned ph = 0; ph < 3; ph++)
        while (len < phase_end[ph]) {
            if (ph == 1) {
                uint8_t p[24];
                unsigned n = random_packet(p);
                memcpy(buf + len, p, n);
                len += n;
                continue;
            }
            for (int i = 0; i < 7; i++)
                buf[len++] = (uint8_t)(0x80 | (rnd() & 0x7e)); /* short TNT, 6 branches */
            /* TIP, IPBytes 001b or 010b (each its own branch on the one-byte path) */
            unsigned ipb = 1 + (unsigned)(rnd() & 1);
            buf[len++] = (uint8_t)(ipb << 5 | 0x0d);
            for (unsigned i = 0; i < 2 * ipb; i++)
                buf[len++] = (uint8_t)rnd();
        }
    struct fwpt_pkt_decoder d1, d2, d3;
    fwpt_pkt_init(&d1, buf, len);
    fwpt_pkt_init(&d2, buf, len);
    fwpt_pkt_init(&d3, buf, len);
    static struct fwpt_packet got3[300];
    size_t have = 0, used = 0, pkts = 0;
    enum fwpt_status st3 = FWPT_OK;
    int ok = 1, lean_at[3] = {-1, -1, -1};
    unsigned ph = 0, switches = 0;
    uint8_t lean = d1.lean;
    for (;;) {
        if (used == have && st3 == FWPT_OK) {
            have = fwpt_pkt_next_batch(&d3, got3, 1 + rnd() % 300, &st3);
            used = 0;
        }
        if (ph < 3 && d1.offset >= phase_end[ph] - 2048)
            lean_at[ph++] = d1.lean; /* near each phase's end */
        struct fwpt_packet a, s;
        enum fwpt_status s1 = fwpt_pkt_next(&d1, &a), s2 = fwpt_pkt_next_slow(&d2, &s);
        switches += (d1.lean & FWPT_PKT_LEAN_ON) != (lean & FWPT_PKT_LEAN_ON);
        lean = d1.lean;
        if (s1 != s2 || d1.offset != d2.offset || d1.last_ip != d2.last_ip) {
            ok = 0;
            break;
        }
        if (s1 != FWPT_OK) {
            ok = s1 == FWPT_E_EOS && d1.offset == len && used == have && st3 == FWPT_E_EOS && d3.offset == len;
            break;
        }
        if (!pkt_same_fields(&a, &s) || used == have || !pkt_same_fields(&got3[used++], &s)) {
            ok = 0;
            break;
        }
        pkts++;
    }
    CHECK(ok);
    CHECK(pkts > 700000);
    /* loops: on (on trial or not); random types: off; loops again: on */
    CHECK(lean_at[0] > 0 && (lean_at[0] & FWPT_PKT_LEAN_ON));
    CHECK_EQ(lean_at[1], 0);
    CHECK(lean_at[2] > 0 && (lean_at[2] & FWPT_PKT_LEAN_ON));
    CHECK(switches >= 2);
    printf("phases: %zu packets, the one-byte path switched %u times\n", pkts, switches);
}

/* Loops whose runs of short TNT repeat in a pattern of differing lengths (the read-file firmware trace: 5 1 1 5 1
 * 1 0 6 4 2 3 ..., a TIP after each run): the CPU's branch predictor learns such a pattern, so the first trial
 * switches the one-byte path on (a rule "same length as the run before" judged it irregular). The same run
 * lengths in random order: off. Packets as the slow path's either way. */
TEST(periodic_tnt_runs_keep_one_byte_path_on)
{
    seed(0x1335f1cb825dd5cull);
    static const uint8_t pattern[] = {5, 1, 1, 5, 1, 1, 0, 6, 4, 2, 3, 5, 1, 0, 3, 4, 2};
    static uint8_t buf[16 << 10];
    for (int shuffled = 0; shuffled < 2; shuffled++) {
        size_t len = 0;
        for (unsigned k = 0; len < sizeof buf - 32; k++) {
            unsigned run = pattern[shuffled ? rnd() % sizeof pattern : k % sizeof pattern];
            for (unsigned i = 0; i < run; i++)
                buf[len++] = (uint8_t)(0x80 | (rnd() & 0x7e)); /* short TNT, 6 branches */
            unsigned ipb = 1 + (k % 3 == 0); /* TIP, IPBytes 001b or 010b */
            buf[len++] = (uint8_t)(ipb << 5 | 0x0d);
            for (unsigned i = 0; i < 2 * ipb; i++)
                buf[len++] = (uint8_t)rnd();
        }
        struct fwpt_pkt_decoder d1, d2;
        fwpt_pkt_init(&d1, buf, len);
        fwpt_pkt_init(&d2, buf, len);
        int ok = 1, lean_after_trial = -1;
        size_t pkts = 0;
        for (;;) {
            if (lean_after_trial < 0 && d1.offset >= 4096)
                lean_after_trial = d1.lean;
            struct fwpt_packet a, s;
            enum fwpt_status s1 = fwpt_pkt_next(&d1, &a), s2 = fwpt_pkt_next_slow(&d2, &s);
            if (s1 != s2 || d1.offset != d2.offset || d1.last_ip != d2.last_ip) {
                ok = 0;
                break;
            }
            if (s1 != FWPT_OK) {
                ok = s1 == FWPT_E_EOS && d1.offset == len;
                break;
            }
            if (!pkt_same_fields(&a, &s)) {
                ok = 0;
                break;
            }
            pkts++;
        }
        CHECK(ok);
        CHECK(pkts > 5000);
        CHECK_EQ(lean_after_trial, shuffled ? 0 : FWPT_PKT_LEAN_ON);
    }
}

TEST_MAIN("test_packet_fast")
