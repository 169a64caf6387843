/* The flow decoder at packet boundaries: what follows a used-up TNT or a TIP (PADs, another TNT, a
 * FUP, a TIP.PGD, a corrupt byte, the end of the trace) must give the same events, IPs and error
 * offsets whichever path takes the packet: fill_fast (fwpt_flow_next / _batch with a warm cache),
 * run_resolve (fwpt_flow_next_run) and the general path (no cache). Each case also checks its
 * exact outcome. */
#include <intel-pt.h>
#include <string.h>

#include "decode/flow.h"
#define FLOW_FIXTURE_CODE 0x100
#include "tests/common/flow_fixture.h"
#include "tests/common/flow_ways.h"
#include "tests/common/rng.h"
#include "tests/check.h"



/* +0 nop; +1 jz +4; +3 nop; +4 jmp +0: one TNT bit per round, 3 instructions taken, 4 not.
 * +0x40 nop; +0x41 jmp rax: one TIP per round. */
#define LOOP 0x00
#define IND 0x40
/* +0x80 jmp rax; +0x84 jz +0; +0x86 jz +0; +0x88 jmp +0x80: a TIP and two TNT bits per round. */
#define DEF 0x80
static void build_code(void)
{
    static const uint8_t loop[] = {0x90, 0x74, 0x01, 0x90, 0xeb, 0xfa};
    static const uint8_t ind[] = {0x90, 0xff, 0xe0};
    static const uint8_t def[] = {0xff, 0xe0, 0xcc, 0xcc, 0x74, 0x00, 0x74, 0x00, 0xeb, 0xf6};
    memset(code, 0xcc, sizeof code);
    memcpy(code + LOOP, loop, sizeof loop);
    memcpy(code + IND, ind, sizeof ind);
    memcpy(code + DEF, def, sizeof def);
}

static uint8_t trace[1 << 16];
static size_t trace_len;


/* The expected walk: instructions of the loop for each bit, in order. */
static uint64_t want_ip[1 << 16];
static size_t want_n;
static void want(uint64_t off) { want_ip[want_n++] = base + off; }
static int last_bit; /* of the last TNT packet */
static void want_bit(int taken)
{
    last_bit = taken;
    want(LOOP + 0);
    want(LOOP + 1);
    if (!taken)
        want(LOOP + 3);
    want(LOOP + 4);
}

/* A TNT packet of k bits (1..6 short, else long) from the bits of v, the oldest first; want_walk:
 * the loop's instructions for them are expected. */
static void pk_tnt_w(unsigned k, uint64_t v, bool want_walk)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = k <= 6 ? ppt_tnt_8 : ppt_tnt_64;
    p.payload.tnt.bit_size = (uint8_t)k;
    for (unsigned i = 0; i < k; i++) { /* oldest bit most significant */
        int bit = (int)(v >> i & 1);
        p.payload.tnt.payload = p.payload.tnt.payload << 1 | (uint64_t)bit;
        if (want_walk)
            want_bit(bit);
    }
    emit(&p);
}
static void pk_tnt_walk(unsigned k, uint64_t v) { pk_tnt_w(k, v, true); }

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return xorshift64(&rng); }

static void begin_at(uint64_t start)
{
    enc_begin(trace, sizeof trace, base + start);
    want_n = 0;
}
static void begin(void) { begin_at(LOOP); }
static void end(void)
{
    trace_len = (size_t)enc_offset();
    pt_free_encoder(enc);
}

/* Random TNT packets, short and long, with 0..3 PADs after each; 'rounds' packets. */
static void tnt_run(unsigned rounds)
{
    for (unsigned r = 0; r < rounds; r++) {
        unsigned k = rnd() % 4 ? 1 + (unsigned)(rnd() % 6) : 7 + (unsigned)(rnd() % 41);
        pk_tnt_walk(k, rnd());
        for (unsigned pads = (unsigned)(rnd() % 4 == 0 ? rnd() % 4 : 0); pads; pads--)
            pk_plain(ppt_pad);
    }
}

/* One decoded item, whichever way it was read. */
struct item {
    uint8_t kind, async;
    uint32_t status;
    uint64_t ip, to, offset;
};
static struct item got[4][1 << 16];
static size_t got_n[4];

enum way { W_NEXT, W_BATCH, W_RUN, W_NOCACHE };

/* An instruction as its IP alone; an event as its kind, async, status, IPs and offset. ctx: the way. */
static void put(void *ctx, const struct fwpt_flow_event *ev)
{
    enum way w = *(const enum way *)ctx;
    if (got_n[w] >= sizeof got[0] / sizeof got[0][0])
        return;
    if (ev->kind == FWPT_FLOW_INSN)
        got[w][got_n[w]++] = (struct item){FWPT_FLOW_INSN, 0, 0, ev->ip, 0, 0};
    else
        got[w][got_n[w]++] = (struct item){ev->kind, ev->async, ev->status, ev->ip, ev->to, ev->offset};
}

static void decode(enum way w)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[1024];
    static const enum flow_way how[] = {[W_NEXT] = FLOW_WAY_NEXT, [W_BATCH] = FLOW_WAY_BATCH,
                                        [W_RUN] = FLOW_WAY_RUN, [W_NOCACHE] = FLOW_WAY_NEXT};
    bool with_cache = w != W_NOCACHE;
    CHECK_EQ(fwpt_flow_init(&f, trace, trace_len, read_code, NULL, with_cache ? cache : NULL,
                            with_cache ? 1024 : 0), FWPT_OK);
    got_n[w] = 0;
    flow_way_read(&f, how[w], 0, put, &w);
}

/* Decodes every way; all must agree item by item. Returns the number of items. */
static size_t decode_all(void)
{
    for (int w = W_NEXT; w <= W_NOCACHE; w++)
        decode((enum way)w);
    for (int w = W_BATCH; w <= W_NOCACHE; w++) {
        CHECK_EQ(got_n[w], got_n[W_NEXT]);
        size_t diff = 0, first = got_n[W_NEXT];
        for (size_t i = 0; i < got_n[w] && i < got_n[W_NEXT]; i++) {
            if (memcmp(&got[w][i], &got[W_NEXT][i], sizeof got[0][0])) {
                if (!diff)
                    first = i;
                diff++;
            }
        }
        CHECK_EQ(diff, 0);
        if (diff)
            fprintf(stderr, "  way %d differs first at item %zu\n", w, first);
    }
    return got_n[W_NEXT];
}

/* The instructions before the first event at or after item *i equal want_ip[*wi..]: advances both. */
static void check_insns(size_t *i, size_t *wi, size_t upto)
{
    size_t bad = 0;
    while (*i < got_n[W_NEXT] && got[W_NEXT][*i].kind == FWPT_FLOW_INSN && *wi < upto) {
        bad += got[W_NEXT][*i].ip != want_ip[*wi];
        ++*i;
        ++*wi;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(*wi, upto);
}

static const struct item *expect_event(size_t *i, unsigned kind)
{
    CHECK(*i < got_n[W_NEXT]);
    if (*i >= got_n[W_NEXT])
        return &got[W_NEXT][0];
    const struct item *e = &got[W_NEXT][(*i)++];
    CHECK_EQ(e->kind, kind);
    return e;
}

/* Ends the trace with TIP.PGD (IP suppressed), decodes it every way and expects the walk's first
 * ENABLED: returns the TIP.PGD's offset, with *i at the item after ENABLED. */
static uint64_t end_with_pgd(size_t *i)
{
    uint64_t pgd = enc_offset();
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    end();
    decode_all();
    *i = 0;
    expect_event(i, FWPT_FLOW_ENABLED);
    return pgd;
}

/* The TIP.PGD's DISABLED, the last item. */
static const struct item *expect_disabled_last(size_t *i, uint64_t pgd)
{
    const struct item *e = expect_event(i, FWPT_FLOW_DISABLED);
    CHECK_EQ(e->offset, pgd);
    CHECK_EQ(*i, got_n[W_NEXT]);
    return e;
}

static void expect_error(size_t *i, enum fwpt_status status, uint64_t offset, uint64_t ip)
{
    const struct item *e = expect_event(i, FWPT_FLOW_ERROR);
    CHECK_EQ(e->status, status);
    CHECK_EQ(e->offset, offset);
    CHECK_EQ(e->ip, ip);
}

/* Ends the trace with TIP.PGD, decodes it every way and expects: the walk's instructions up to w_err, the error
 * (status, at the trace offset, the walk at ip), the ENABLED of the PSB+ at offset psb where decoding resumes (0: it
 * resumes without one), the instructions up to w_end, and the TIP.PGD's DISABLED, the last item. */
static void expect_error_walk(size_t w_err, enum fwpt_status status, uint64_t offset, uint64_t ip, uint64_t psb,
                              size_t w_end)
{
    size_t i, wi = 0;
    uint64_t pgd = end_with_pgd(&i);
    check_insns(&i, &wi, w_err);
    expect_error(&i, status, offset, ip);
    if (psb)
        CHECK_EQ(expect_event(&i, FWPT_FLOW_ENABLED)->offset, psb);
    check_insns(&i, &wi, w_end);
    expect_disabled_last(&i, pgd);
}

/* Each case: the code built, then four rounds, each with its own random packets. A round starts the generator
 * where it stood when the cases ran interleaved, four rounds of all six: the data of before, alone or not. */
static void four_rounds(void (*round)(void), const uint64_t seed[4])
{
    build_code();
    for (int r = 0; r < 4; r++) {
        rng = seed[r];
        round();
    }
}

/* PADs between TNTs, short and long, then TIP.PGD (IP suppressed): disabled at the next jz. */
static void case_pads(void)
{
    begin();
    tnt_run(400);
    size_t w_end = want_n;
    size_t i, wi = 0;
    uint64_t pgd = end_with_pgd(&i);
    want(LOOP + 0); /* the walk reaches the next jz, which the TIP.PGD binds to */
    want(LOOP + 1);
    check_insns(&i, &wi, w_end + 2);
    CHECK_EQ(expect_disabled_last(&i, pgd)->async, 0);
}

TEST(pads_between_tnts)
{
    static const uint64_t seed[4] = {0x9e3779b97f4a7c15ull, 0xecd07a5af1c00b22ull,
                                     0x423e57911761e8c1ull, 0xe238f02581563185ull};
    four_rounds(case_pads, seed);
}

/* A TNT right before FUP + TIP.PGD: the walk stops where the FUP binds (the nop a not-taken jz
 * falls through to); and before FUP + TIP: an interrupt there, the loop going on at its target. */
static void case_fup(void)
{
    begin();
    tnt_run(50);
    pk_tnt_walk(1, 0); /* not taken: the walk goes to +3 */
    want_n -= 2;  /* the FUP binds at +3: nop and jmp do not run */
    size_t w_int = want_n;
    uint64_t fup = enc_offset();
    pk_ip(ppt_fup, base + LOOP + 3, pt_ipc_update_16);
    pk_ip(ppt_tip, base + LOOP, pt_ipc_update_16);
    tnt_run(50);
    pk_tnt_walk(1, 0);
    want_n -= 2;
    size_t w_end = want_n;
    pk_ip(ppt_fup, base + LOOP + 3, pt_ipc_update_32);
    size_t i, wi = 0;
    uint64_t pgd = end_with_pgd(&i);
    check_insns(&i, &wi, w_int);
    const struct item *e = expect_event(&i, FWPT_FLOW_INTERRUPT);
    CHECK_EQ(e->ip, base + LOOP + 3);
    CHECK_EQ(e->to, base + LOOP);
    CHECK_EQ(e->offset, fup);
    check_insns(&i, &wi, w_end);
    e = expect_disabled_last(&i, pgd);
    CHECK_EQ(e->async, 1);
    CHECK_EQ(e->ip, base + LOOP + 3);
}

TEST(tnt_before_fup_tip_pgd_or_tip)
{
    static const uint64_t seed[4] = {0x77104f5c9cd13f7aull, 0xf36250923350601dull,
                                     0x916273802c3eb3b6ull, 0x7dd14b5adbc4ae2bull};
    four_rounds(case_fup, seed);
}

/* The trace ends right after a TNT (no PAD, no PSB after it): every bit is used (END marks where),
 * the walk runs on to the next jz and the decode ends there without an error. */
static void case_end(void)
{
    for (unsigned last = 1; last <= 47; last += 23) {
        begin();
        tnt_run(100);
        pk_tnt_walk(last, rnd());
        want(LOOP + 0);
        want(LOOP + 1);
        size_t w_end = want_n;
        end();
        decode_all();
        size_t i = 0, wi = 0;
        expect_event(&i, FWPT_FLOW_ENABLED);
        /* END after the jz that took the last bit: its +3 (not taken) and +4 and the next +0, +1 follow */
        check_insns(&i, &wi, w_end - 2 - (last_bit ? 1 : 2));
        CHECK_EQ(expect_event(&i, FWPT_FLOW_END)->offset, trace_len);
        check_insns(&i, &wi, w_end);
        CHECK_EQ(i, got_n[W_NEXT]);
    }
}

TEST(trace_ends_after_tnt)
{
    static const uint64_t seed[4] = {0x33e69d5b1999f306ull, 0x06bbd79f925bb24eull,
                                     0xf65be23b99a6e397ull, 0x47e6aacbce51d802ull};
    four_rounds(case_end, seed);
}

/* A corrupt byte right after a TNT (and after PADs after a TNT): the packet error names that
 * byte's offset; decoding resumes at the next PSB. */
static void case_corrupt(void)
{
    static const uint8_t bad_bytes[] = {0x05, 0x15, 0x25}; /* reserved opcodes (bits 4:0 = 00101b) */
    for (unsigned pads = 0; pads < 3; pads++) {
        for (size_t bb = 0; bb < sizeof bad_bytes; bb++) {
            begin();
            tnt_run(60);
            pk_tnt_walk(1 + (unsigned)bb, rnd());
            for (unsigned k = 0; k < pads; k++)
                pk_plain(ppt_pad);
            /* the lookahead after the last TNT meets the byte: the walk stops at the jz's successor */
            size_t w_err = want_n - (last_bit ? 1 : 2);
            uint64_t err_ip = base + LOOP + (last_bit ? 4 : 3);
            want_n = w_err; /* after the error the rounds start again at the PSB+ FUP */
            uint64_t bad = enc_offset();
            trace[bad] = bad_bytes[bb];
            pt_enc_sync_set(enc, bad + 1);
            uint64_t psb = enc_offset();
            pk_plain(ppt_psb);
            pk_ip(ppt_fup, base + LOOP, pt_ipc_sext_48);
            pk_plain(ppt_psbend);
            tnt_run(20);
            want(LOOP + 0);
            want(LOOP + 1);
            expect_error_walk(w_err, FWPT_E_BAD_OPCODE, bad, err_ip, psb, want_n);
        }
    }
}

TEST(corrupt_byte_after_tnt)
{
    static const uint64_t seed[4] = {0xd4f546e4f2475b14ull, 0x0ad16c97a3d54132ull,
                                     0xef136ff87560ed76ull, 0x6b0b69e2ce85cc8aull};
    four_rounds(case_corrupt, seed);
}

/* TIPs of every IP compression (PADs between some) drive 'jmp rax' back to itself; then two TNTs
 * where the TIP must be: the first may stand before a deferred TIP (SDM "Deferred TIPs"), the second
 * cannot: the error names its offset, and the next TIP resumes. */
static void case_tip(void)
{
    static const enum pt_ip_compression ipc[] = {pt_ipc_update_16, pt_ipc_update_32, pt_ipc_sext_48,
                                                 pt_ipc_update_48, pt_ipc_full};
    begin_at(IND);
    want(IND + 0);
    want(IND + 1);
    for (unsigned r = 0; r < 300; r++) {
        pk_ip(ppt_tip, base + IND, ipc[rnd() % 5]);
        if (rnd() % 5 == 0)
            pk_plain(ppt_pad);
        want(IND + 0);
        want(IND + 1);
    }
    size_t w_err = want_n;
    pk_tnt_w(1 + (unsigned)(rnd() % 47), rnd(), false);
    uint64_t tnt = enc_offset();
    pk_tnt_w(1 + (unsigned)(rnd() % 47), rnd(), false);
    for (unsigned r = 0; r < 51; r++) { /* the first resumes the walk */
        pk_ip(ppt_tip, base + IND, ipc[rnd() % 5]);
        want(IND + 0);
        want(IND + 1);
    }
    expect_error_walk(w_err, FWPT_E_NO_TIP, tnt, base + IND + 1, 0, want_n);
}

TEST(tips_of_every_ip_compression)
{
    static const uint64_t seed[4] = {0x73eda14bc49e3dcdull, 0xbd0b5b1b6da79027ull,
                                     0x8e5565af82db8256ull, 0xf9f8d1d1798bd5dbull};
    four_rounds(case_tip, seed);
}

/* SDM "Deferred TIPs": the processor may hold TIPs back while the TNT fills with the branches after
 * them; the TNT goes out first, then the TIPs. Rounds of 'jmp rax' (TIP to DEF+4), 'jz +0' twice (two
 * bits), 'jmp DEF', in groups of g rounds: g = 0 not deferred (TIP, TNT of 2 bits); else the TNT of
 * the group's 2g bits, then its g TIPs: the first TIP with no bits in hand and a TNT before it, the
 * others with bits in hand. The TIP.PGD at the end binds to the last 'jmp rax'. */
static void case_deferred(void)
{
    static const enum pt_ip_compression ipc[] = {pt_ipc_update_16, pt_ipc_update_32, pt_ipc_sext_48};
    begin_at(DEF);
    for (unsigned r = 0; r < 300;) {
        unsigned g = (unsigned)(rnd() % 4);
        if (g)
            pk_tnt_w(2 * g, rnd(), false);
        for (unsigned k = 0; k < (g ? g : 1); k++) {
            pk_ip(ppt_tip, base + DEF + 4, ipc[rnd() % 3]);
            want(DEF + 0);
            want(DEF + 4);
            want(DEF + 6);
            want(DEF + 8);
        }
        if (!g)
            pk_tnt_w(2, rnd(), false);
        r += g ? g : 1;
    }
    want(DEF + 0);
    size_t w_end = want_n;
    size_t i, wi = 0;
    uint64_t pgd = end_with_pgd(&i);
    check_insns(&i, &wi, w_end);
    CHECK_EQ(expect_disabled_last(&i, pgd)->ip, 0);
}

TEST(deferred_tips)
{
    static const uint64_t seed[4] = {0xcb74d687cb5c7f5aull, 0xe78178911359e6ddull,
                                     0xa4cef845718939d2ull, 0x0b107908bca30e6cull};
    four_rounds(case_deferred, seed);
}

TEST_MAIN("flow_lookahead")
