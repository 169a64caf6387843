/* The flow decoder's synchronization calls (decode/flow.h, "public: block step, sync"): fwpt_flow_sync_forward
 * visits the PSBs fwpt_pkt_sync_forward visits; a decoder synchronized at a PSB with fwpt_flow_sync_set gives
 * exactly the instructions the whole decode gives from there (SDM "Decoder Synchronization (PSB+)": the
 * generated programs' processor compresses no RET across a PSB); bad offsets give a status and leave the decoder
 * as it was; the offsets advance with the decode. The block step (fwpt_flow_next_blocks) gives the instructions
 * and events fwpt_flow_next gives, block by block, and with chains the same counts and events. */
#include <stdlib.h>
#include <string.h>

#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"

#define MAXPSB 4096

static struct fwpt_flow_block cache[4096];

/* A generated program with a PSB+ every ~period bytes; its PSB offsets as the packet decoder finds them. */
struct prog {
    struct progen p;
    struct code_image code;
    uint64_t psb[MAXPSB];
    size_t npsb;
};

static bool prog_build(struct prog *g, uint64_t seed, unsigned features, unsigned period)
{
    struct progen_cfg cfg = {.seed = seed, .nfuncs = 10, .max_insns = 20000, .features = features,
                             .psb_period = period};
    if (!progen_build_checked(&cfg, &g->p))
        return false;
    g->code = (struct code_image){g->p.base, g->p.code, g->p.code_size, 0};
    struct fwpt_pkt_decoder d;
    fwpt_pkt_init(&d, g->p.trace, g->p.trace_size);
    g->npsb = 0;
    while (g->npsb < MAXPSB && fwpt_pkt_sync_forward(&d) == FWPT_OK)
        g->psb[g->npsb++] = d.sync_offset;
    return true;
}

static void flow_at_start(struct fwpt_flow *f, struct prog *g)
{
    fwpt_flow_init(f, g->p.trace, g->p.trace_size, code_image_read, &g->code, cache, 4096);
}

/* The instructions f gives to the end (ip, size), at most cap; how many there were (all counted). */
static size_t insns(struct fwpt_flow *f, uint64_t *ip, uint8_t *size, size_t cap)
{
    struct fwpt_flow_event ev;
    size_t n = 0;
    while (fwpt_flow_next(f, &ev) == FWPT_OK) {
        if (ev.kind != FWPT_FLOW_INSN)
            continue;
        if (n < cap) {
            ip[n] = ev.ip;
            size[n] = ev.size;
        }
        n++;
    }
    return n;
}

#define CAP 200000
static uint64_t w_ip[CAP], s_ip[CAP];
static uint8_t w_size[CAP], s_size[CAP];

static const unsigned configs[][2] = {{PROGEN_F_PSB, 300}, {PROGEN_F_ALL, 500}, {PROGEN_F_PSB | PROGEN_F_INTERRUPT, 200}};

TEST(sync_forward_visits_every_psb)
{
    static struct prog g;
    static struct fwpt_flow f;
    for (unsigned c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        if (!prog_build(&g, 11 + c, configs[c][0], configs[c][1]))
            continue;
        CHECK(g.npsb >= 5); /* a trace with several PSBs */
        flow_at_start(&f, &g);
        uint64_t off = 1, at = 1;
        CHECK_EQ(fwpt_flow_get_sync_offset(&f, &off), FWPT_OK); /* fwpt_flow_init: the first PSB */
        CHECK_EQ(off, g.psb[0]);
        for (size_t i = 1; i < g.npsb; i++) {
            CHECK_EQ(fwpt_flow_sync_forward(&f), FWPT_OK);
            CHECK_EQ(fwpt_flow_get_sync_offset(&f, &off), FWPT_OK);
            CHECK_EQ(off, g.psb[i]);
            CHECK_EQ(fwpt_flow_get_offset(&f, &at), FWPT_OK); /* nothing read since */
            CHECK_EQ(at, g.psb[i]);
        }
        /* past the last: none, the decoder where it was */
        CHECK_EQ(fwpt_flow_sync_forward(&f), FWPT_E_NOSYNC);
        CHECK_EQ(fwpt_flow_get_sync_offset(&f, &off), FWPT_OK);
        CHECK_EQ(off, g.psb[g.npsb - 1]);
        progen_free(&g.p);
    }
}

TEST(sync_set_decodes_as_the_whole_decode)
{
    static struct prog g;
    static struct fwpt_flow f;
    for (unsigned c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        if (!prog_build(&g, 21 + c, configs[c][0], configs[c][1]))
            continue;
        flow_at_start(&f, &g);
        const size_t nw = insns(&f, w_ip, w_size, CAP);
        CHECK(nw > 0 && nw <= CAP);
        size_t prev = nw + 1;
        for (size_t i = 0; i < g.npsb && nw <= CAP; i++) {
            /* a decoder used before (half way through the trace), then set at the PSB */
            flow_at_start(&f, &g);
            struct fwpt_flow_event ev;
            for (size_t k = 0; k < nw / 2 && fwpt_flow_next(&f, &ev) == FWPT_OK; k++)
                ;
            CHECK_EQ(fwpt_flow_sync_set(&f, g.psb[i]), FWPT_OK);
            const size_t ns = insns(&f, s_ip, s_size, CAP);
            /* the whole decode's last ns instructions, fewer from each PSB than from the one before */
            CHECK(ns < prev);
            CHECK(ns <= nw);
            if (i == 0)
                CHECK_EQ(ns, nw);
            bool same = ns <= nw;
            for (size_t k = 0; same && k < ns; k++)
                same = s_ip[k] == w_ip[nw - ns + k] && s_size[k] == w_size[nw - ns + k];
            CHECK(same);
            prev = ns;
            /* sync_forward from the PSB before reaches the same place */
            if (i > 0) {
                flow_at_start(&f, &g);
                CHECK_EQ(fwpt_flow_sync_set(&f, g.psb[i - 1]), FWPT_OK);
                CHECK_EQ(fwpt_flow_sync_forward(&f), FWPT_OK);
                CHECK_EQ(insns(&f, s_ip, s_size, 0), ns);
            }
        }
        CHECK(prev > 0 && prev < nw); /* the last PSB is inside the traced flow */
        progen_free(&g.p);
    }
}

TEST(bad_offsets_give_a_status)
{
    static struct prog g;
    static struct fwpt_flow f;
    if (!prog_build(&g, 31, PROGEN_F_PSB, 300))
        return;
    const uint64_t len = g.p.trace_size;
    flow_at_start(&f, &g);
    struct fwpt_flow_event ev;
    for (int k = 0; k < 100; k++)
        CHECK_EQ(fwpt_flow_next(&f, &ev), FWPT_OK);
    uint64_t at0, sync0, at, sync;
    CHECK_EQ(fwpt_flow_get_offset(&f, &at0), FWPT_OK);
    CHECK_EQ(fwpt_flow_get_sync_offset(&f, &sync0), FWPT_OK);
    const uint64_t bad[] = {len, len + 1, len + 100000, ~(uint64_t)0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(fwpt_flow_sync_set(&f, bad[i]), FWPT_E_EOS);
    /* inside the trace, but no PSB starts there: one byte into a PSB, one before, a packet after PSB+ */
    const uint64_t nopsb[] = {g.psb[1] + 1, g.psb[1] - 1, g.psb[1] + 2, g.psb[2] + 16};
    for (size_t i = 0; i < sizeof nopsb / sizeof nopsb[0]; i++)
        CHECK_EQ(fwpt_flow_sync_set(&f, nopsb[i]), FWPT_E_NOSYNC);
    /* the decoder unchanged: same offsets, and it goes on as one never disturbed */
    CHECK_EQ(fwpt_flow_get_offset(&f, &at), FWPT_OK);
    CHECK_EQ(fwpt_flow_get_sync_offset(&f, &sync), FWPT_OK);
    CHECK_EQ(at, at0);
    CHECK_EQ(sync, sync0);
    static struct fwpt_flow ref;
    flow_at_start(&ref, &g);
    for (int k = 0; k < 100; k++)
        CHECK_EQ(fwpt_flow_next(&ref, &ev), FWPT_OK);
    CHECK_EQ(insns(&f, s_ip, s_size, 0), insns(&ref, w_ip, w_size, 0));
    /* no argument */
    CHECK_EQ(fwpt_flow_get_offset(&f, NULL), FWPT_E_INVAL);
    CHECK_EQ(fwpt_flow_get_sync_offset(&f, NULL), FWPT_E_INVAL);
    CHECK_EQ(fwpt_flow_sync_set(NULL, g.psb[0]), FWPT_E_INVAL);
    CHECK_EQ(fwpt_flow_sync_forward(NULL), FWPT_E_INVAL);
    /* a trace with no PSB: nothing to synchronize at */
    static const uint8_t nopsb_trace[64] = {0};
    fwpt_flow_init(&f, nopsb_trace, sizeof nopsb_trace, code_image_read, &g.code, cache, 4096);
    CHECK_EQ(fwpt_flow_get_sync_offset(&f, &sync), FWPT_E_NOSYNC);
    CHECK_EQ(fwpt_flow_sync_forward(&f), FWPT_E_NOSYNC);
    CHECK_EQ(fwpt_flow_sync_set(&f, 0), FWPT_E_NOSYNC);
    CHECK_EQ(fwpt_flow_next(&f, &ev), FWPT_E_EOS);
    progen_free(&g.p);
}

TEST(offsets_advance)
{
    static struct prog g;
    static struct fwpt_flow f;
    if (!prog_build(&g, 41, PROGEN_F_ALL, 400))
        return;
    flow_at_start(&f, &g);
    uint64_t at, last = 0, sync, last_sync = 0;
    CHECK_EQ(fwpt_flow_get_offset(&f, &at), FWPT_OK);
    CHECK_EQ(at, g.psb[0]);
    struct fwpt_flow_event ev;
    size_t steps = 0, moved = 0, back = 0, sync_back = 0;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        CHECK_EQ(fwpt_flow_get_offset(&f, &at), FWPT_OK);
        CHECK_EQ(fwpt_flow_get_sync_offset(&f, &sync), FWPT_OK);
        back += at < last;
        sync_back += sync < last_sync;
        moved += at > last;
        last = at;
        last_sync = sync;
        steps++;
    }
    CHECK_EQ(back, 0);
    CHECK_EQ(sync_back, 0);
    CHECK(moved > g.npsb); /* it advanced packet by packet, not once */
    CHECK(steps > moved);
    CHECK_EQ(fwpt_flow_get_offset(&f, &at), FWPT_OK);
    CHECK_EQ(at, g.p.trace_size); /* the end: every packet read */
    /* fwpt_flow_sync_forward after the end: no PSB left */
    CHECK_EQ(fwpt_flow_sync_forward(&f), FWPT_E_NOSYNC);
    progen_free(&g.p);
}

/* An event as both ways give it. */
struct evrec {
    uint8_t kind;
    uint64_t ip, offset;
    size_t before; /* instructions before it */
};
#define MAXEV 20000
static struct evrec ev_a[MAXEV], ev_b[MAXEV];

/* fwpt_flow_next: instructions into w_ip/w_size, events into ev_a; *nev events. */
static size_t by_insn(struct fwpt_flow *f, size_t *nev)
{
    struct fwpt_flow_event ev;
    size_t n = 0, ne = 0;
    while (fwpt_flow_next(f, &ev) == FWPT_OK) {
        if (ev.kind == FWPT_FLOW_INSN) {
            if (n < CAP) {
                w_ip[n] = ev.ip;
                w_size[n] = ev.size;
            }
            n++;
        } else if (ne < MAXEV) {
            ev_a[ne++] = (struct evrec){ev.kind, ev.ip, ev.offset, n};
        }
    }
    *nev = ne;
    return n;
}

/* fwpt_flow_next_blocks: block records expanded into s_ip/s_size (chains counted), events into ev_b. */
static size_t by_block(struct fwpt_flow *f, struct fwpt_flow_chains *ch, size_t *nev, size_t *nchains)
{
    struct fwpt_flow_blk v[7]; /* a small buffer: records cross calls often */
    struct fwpt_flow_blocks q = {v, 7, 0, ch, FWPT_FLOW_NO_STOP, 0};
    struct fwpt_flow_event ev;
    size_t n = 0, ne = 0;
    *nchains = 0;
    while (fwpt_flow_next_blocks(f, &q, &ev) == FWPT_OK) {
        CHECK(!q.stopped && q.n <= 7);
        if (!q.n) {
            if (ne < MAXEV)
                ev_b[ne++] = (struct evrec){ev.kind, ev.ip, ev.offset, n};
            continue;
        }
        for (uint32_t i = 0; i < q.n; i++) {
            CHECK(v[i].ninsn > 0);
            if (v[i].chain) {
                CHECK_EQ(v[i].chain->ip, v[i].ip);
                CHECK_EQ(v[i].chain->ninsn, v[i].ninsn);
                n += v[i].ninsn;
                ++*nchains;
                continue;
            }
            uint64_t ip = v[i].ip;
            for (uint32_t k = 0; k < v[i].ninsn; k++, n++) {
                if (n < CAP) {
                    s_ip[n] = ip;
                    s_size[n] = v[i].sizes[k];
                }
                ip += v[i].sizes[k];
            }
        }
    }
    *nev = ne;
    return n;
}

TEST(block_step_gives_what_fwpt_flow_next_gives)
{
    static struct prog g;
    static struct fwpt_flow f;
    static struct fwpt_flow_chain chains[256];
    static struct fwpt_flow_chain_cold cold[256];
    for (unsigned c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        if (!prog_build(&g, 51 + c, configs[c][0], configs[c][1]))
            continue;
        flow_at_start(&f, &g);
        size_t na, nb, nch;
        const size_t n = by_insn(&f, &na);
        CHECK(n > 1000 && n <= CAP && na > 0 && na < MAXEV);
        /* blocks only: the same instructions, one by one, and the same events between the same instructions */
        flow_at_start(&f, &g);
        CHECK_EQ(by_block(&f, NULL, &nb, &nch), n);
        CHECK_EQ(nch, 0);
        bool same = true;
        for (size_t k = 0; k < n; k++)
            same &= s_ip[k] == w_ip[k] && s_size[k] == w_size[k];
        CHECK(same);
        CHECK_EQ(nb, na);
        same = nb == na;
        for (size_t k = 0; same && k < na; k++)
            same = ev_a[k].kind == ev_b[k].kind && ev_a[k].ip == ev_b[k].ip && ev_a[k].offset == ev_b[k].offset &&
                   ev_a[k].before == ev_b[k].before;
        CHECK(same);
        /* with chains: the same count and the same events at the same instruction counts */
        struct fwpt_flow_chains ch;
        fwpt_flow_chains_init(&ch, chains, cold, 256);
        flow_at_start(&f, &g);
        CHECK_EQ(by_block(&f, &ch, &nb, &nch), n);
        CHECK(nch > 0 && ch.hits > 0);
        CHECK_EQ(nb, na);
        same = nb == na;
        for (size_t k = 0; same && k < na; k++)
            same = ev_a[k].kind == ev_b[k].kind && ev_a[k].ip == ev_b[k].ip && ev_a[k].before == ev_b[k].before;
        CHECK(same);
        CHECK_EQ(fwpt_flow_insns(&f), n);
        progen_free(&g.p);
    }
}

TEST_MAIN("flow_sync")
