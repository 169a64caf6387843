/* Oracle test of the software packet encoder (sim/soft_enc): random programs are executed
 * (tests/common/soft_prog), the encoder turns the execution into a PT stream, and libipt's
 * instruction decoder (pt_insn_* over the program's code) must decode that stream to exactly the
 * instructions that ran — all of them, or under IP filtering / TraceStop exactly the ones the SDM
 * says are traced. Packet counts are cross-checked with libipt's packet decoder. */
#include <intel-pt.h>

#include "sim/soft_enc.h"
#include "decode/insn.h"
#include "tests/check.h"
#include "tests/common/ipt_insn.h"
#include "tests/common/soft_prog.h"

struct buf {
    uint8_t *p;
    size_t n, cap;
    size_t limit; /* emit fails with E_NOMEM beyond this (0: none) */
};

static enum fwpt_status buf_emit(void *ctx, const uint8_t *b, size_t n)
{
    struct buf *o = ctx;
    if (o->limit && o->n + n > o->limit)
        return FWPT_E_NOMEM;
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 4096;
        o->p = realloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
    return FWPT_OK;
}

struct decoded {
    uint64_t *ip;
    size_t n, cap;
    unsigned enabled, disabled, stops;
    int err;         /* libipt error (negative) other than the end of the trace, 0 if none */
    uint64_t err_offset;
};

static void on_event(void *ctx, const struct pt_event *ev)
{
    struct decoded *d = ctx;
    if (ev->type == ptev_enabled)
        d->enabled++;
    else if (ev->type == ptev_disabled || ev->type == ptev_async_disabled)
        d->disabled++;
    else if (ev->type == ptev_stop)
        d->stops++;
}
static void on_insn(void *ctx, const struct pt_insn *insn)
{
    struct decoded *d = ctx;
    if (d->n == d->cap) {
        d->cap = d->cap * 2 + 1024;
        d->ip = realloc(d->ip, d->cap * sizeof *d->ip);
    }
    d->ip[d->n++] = insn->ip;
}

static void decode_libipt(const struct buf *t, const struct soft_prog *p, struct decoded *d)
{
    memset(d, 0, sizeof *d);
    struct ipt_insn_sink s = {.event = on_event, .insn = on_insn, .ctx = d};
    d->err = ipt_insn_walk(t->p, t->n, soft_prog_ipt_read, (void *)p, &s, &d->err_offset);
}

/* libipt packet decoder: every packet decodes; PSB count; sum of CYC payloads; last MTC payload;
 * last TSC value. */
struct pkt_stats {
    unsigned long psb, mtc;
    uint64_t cyc_sum, last_mtc, last_tsc;
};
static int packet_stats(const struct buf *t, struct pkt_stats *ps)
{
    struct pt_config config;
    pt_config_init(&config);
    config.begin = t->p;
    config.end = t->p + t->n;
    struct pt_packet_decoder *dec = pt_pkt_alloc_decoder(&config);
    int status = pt_pkt_sync_set(dec, 0);
    memset(ps, 0, sizeof *ps);
    while (status >= 0) {
        struct pt_packet pkt;
        status = pt_pkt_next(dec, &pkt, sizeof pkt);
        if (status < 0)
            break;
        if (pkt.type == ppt_psb)
            ps->psb++;
        else if (pkt.type == ppt_cyc)
            ps->cyc_sum += pkt.payload.cyc.value;
        else if (pkt.type == ppt_mtc)
            ps->mtc++, ps->last_mtc = pkt.payload.mtc.ctc;
        else if (pkt.type == ppt_tsc)
            ps->last_tsc = pkt.payload.tsc.tsc;
    }
    pt_pkt_free_decoder(dec);
    return status == -pte_eos ? 0 : status;
}

struct totals {
    unsigned long runs, insns, ret_compressed, tip, tnt_bits, psb, pge, pgd, cyc, mtc, tsc, stops, ipc_kinds;
};

/* Encode prog's flow under cfg; expected = the instructions PacketEn covers (up to a TraceStop). */
static void run_one(const char *what, const struct soft_prog *p, const struct fwpt_soft_enc_config *cfg,
                    struct totals *tot)
{
    struct buf t = {0};
    struct fwpt_soft_enc e;
    fwpt_soft_enc_init(&e, cfg, buf_emit, &t);
    CHECK_EQ(fwpt_soft_enc_start(&e, p->flow[0].ip, p->flow[0].time), FWPT_OK);
    uint64_t *want = malloc(p->nflow * sizeof *want);
    size_t nwant = 0;
    int stopped = fwpt_soft_enc_in_tracestop(cfg, p->flow[0].ip);
    for (size_t i = 0; i < p->nflow && !stopped; i++) {
        if (fwpt_soft_enc_filter_en(cfg, p->flow[i].ip))
            want[nwant++] = p->flow[i].ip;
        CHECK_EQ(fwpt_soft_enc_step(&e, &p->flow[i]), FWPT_OK);
        if (!p->flow[i].leaves && fwpt_soft_enc_in_tracestop(cfg, p->flow[i].next_ip))
            stopped = 1;
    }
    CHECK_EQ(fwpt_soft_enc_triggered(&e), !stopped);
    CHECK_EQ(fwpt_soft_enc_stop(&e, p->flow[p->nflow - 1].time + 1), FWPT_OK);
    CHECK_EQ(e.counts.bytes, t.n);

    struct decoded d;
    decode_libipt(&t, p, &d);
    int same = d.err == 0 && d.n == nwant && memcmp(d.ip, want, nwant * sizeof *want) == 0;
    CHECK(same);
    if (!same) {
        size_t i = 0;
        while (i < d.n && i < nwant && d.ip[i] == want[i])
            i++;
        fprintf(stderr, "%s: libipt err %d (%s) at trace offset 0x%" PRIx64 "; decoded %zu, expected %zu; "
                "first difference at %zu: decoded 0x%" PRIx64 ", expected 0x%" PRIx64 "\n", what, d.err,
                d.err ? pt_errstr(pt_errcode(d.err)) : "-", d.err_offset, d.n, nwant, i,
                i < d.n ? d.ip[i] : 0, i < nwant ? want[i] : 0);
    }
    /* Every TIP.PGE/PGD the encoder sent is an enable/disable event in libipt. */
    CHECK_EQ(d.enabled, e.counts.tip_pge);
    CHECK_EQ(d.disabled, e.counts.tip_pgd);
    CHECK_EQ(d.stops, e.counts.tracestop);
    struct pkt_stats ps;
    CHECK_EQ(packet_stats(&t, &ps), 0);
    CHECK_EQ(ps.psb, e.counts.psb);
    /* Timing payloads as libipt reads them: CYC deltas add up to the last CYC time, the last MTC
     * carries CTC[N+7:N] of the last crossing, TSC the time of the last PSB+. */
    if (cfg->ctl & RTIT_CTL_CYCEN)
        CHECK_EQ(ps.cyc_sum, e.last_cyc_time - p->flow[0].time);
    if (cfg->ctl & RTIT_CTL_MTCEN) {
        CHECK_EQ(ps.mtc, e.counts.mtc);
        if (ps.mtc)
            CHECK_EQ(ps.last_mtc, (e.last_ctc >> FWPT_GET(RTIT_CTL_MTCFREQ, cfg->ctl)) & 0xff);
    }
    if (cfg->ctl & RTIT_CTL_TSCEN)
        CHECK(ps.last_tsc >= p->flow[0].time && ps.last_tsc <= p->flow[p->nflow - 1].time);
    /* PSB+ spacing: roughly every 2^(PSBFreq+11) bytes (never more than that + one instruction's packets). */
    uint64_t period = 1ull << (FWPT_GET(RTIT_CTL_PSBFREQ, cfg->ctl) + 11);
    CHECK(e.counts.psb >= t.n / (period + 64));
    CHECK(e.counts.psb <= t.n / period + 1);
    CHECK_EQ(e.counts.tsc, (cfg->ctl & RTIT_CTL_TSCEN) ? e.counts.psb : 0);
    CHECK_EQ(e.counts.tma, (cfg->ctl & RTIT_CTL_TSCEN) && (cfg->ctl & RTIT_CTL_MTCEN) ? e.counts.psb : 0);

    tot->runs++;
    tot->insns += d.n;
    tot->ret_compressed += e.counts.ret_compressed;
    tot->tip += e.counts.tip;
    tot->tnt_bits += e.counts.tnt_bits;
    tot->psb += e.counts.psb;
    tot->pge += e.counts.tip_pge;
    tot->pgd += e.counts.tip_pgd;
    tot->cyc += e.counts.cyc;
    tot->mtc += e.counts.mtc;
    tot->tsc += e.counts.tsc;
    tot->stops += e.counts.tracestop;
    free(d.ip);
    free(want);
    free(t.p);
}

/* Hand-checked bytes for a tiny flow: exact packet encoding (not only what libipt accepts). */
TEST(exact_bytes_tiny_flow)
{
    struct buf t = {0};
    struct fwpt_soft_enc_config cfg = {.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS};
    struct fwpt_soft_enc e;
    fwpt_soft_enc_init(&e, &cfg, buf_emit, &t);
    CHECK_EQ(fwpt_soft_enc_start(&e, 0x401000, 0), FWPT_OK);
    struct fwpt_soft_insn f[] = {
        {.ip = 0x401000, .next_ip = 0x401010, .size = 2, .iclass = FWPT_IC_JCC},   /* taken */
        {.ip = 0x401010, .next_ip = 0x401016, .size = 6, .iclass = FWPT_IC_JCC},   /* not taken */
        {.ip = 0x401016, .next_ip = 0x402000, .size = 5, .iclass = FWPT_IC_CALL_REL},
        {.ip = 0x402000, .next_ip = 0x40201b, .size = 1, .iclass = FWPT_IC_RET},   /* compressed */
        {.ip = 0x40201b, .next_ip = 0x12345678, .size = 2, .iclass = FWPT_IC_JMP_IND},
        {.ip = 0x12345678, .next_ip = 0x7fff00001000, .size = 1, .iclass = FWPT_IC_RET, .leaves = 1},
    };
    f[3].next_ip = 0x40101b;
    f[4].ip = 0x40101b;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        CHECK_EQ(fwpt_soft_enc_step(&e, &f[i]), FWPT_OK);
    CHECK_EQ(fwpt_soft_enc_stop(&e, 0), FWPT_OK);
    static const uint8_t want[] = {
        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
        0x02, 0x23,                                   /* PSBEND */
        0x99, 0x01,                                   /* MODE.Exec 64-bit */
        0x51, 0x00, 0x10, 0x40, 0x00,                 /* TIP.PGE IPBytes=010b 0x401000 */
        0x1a,                                         /* TNT 1,0,1 (stop bit, T N T, 0) */
        0x4d, 0x78, 0x56, 0x34, 0x12,                 /* TIP IPBytes=010b 0x12345678 */
        0x61, 0x00, 0x10, 0x00, 0x00, 0xff, 0x7f,     /* TIP.PGD IPBytes=011b 0x7fff00001000 */
    };
    CHECK_EQ(t.n, sizeof want);
    CHECK(t.n == sizeof want && memcmp(t.p, want, sizeof want) == 0);
    CHECK_EQ(e.counts.ret_compressed, 1);
    free(t.p);
}

/* An emit error stops the encoder and is reported by every later call. */
TEST(emit_error_sticks)
{
    struct buf t = {.limit = 20};
    struct fwpt_soft_enc_config cfg = {.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS};
    struct fwpt_soft_enc e;
    fwpt_soft_enc_init(&e, &cfg, buf_emit, &t);
    CHECK_EQ(fwpt_soft_enc_start(&e, 0x401000, 0), FWPT_E_NOMEM);
    struct fwpt_soft_insn i = {.ip = 0x401000, .next_ip = 0x401002, .size = 2, .iclass = FWPT_IC_JCC};
    CHECK_EQ(fwpt_soft_enc_step(&e, &i), FWPT_E_NOMEM);
    CHECK_EQ(fwpt_soft_enc_stop(&e, 0), FWPT_E_NOMEM);
    CHECK_EQ(t.n, 20);
    free(t.p);
}

/* OS=0 at CPL 0: ContextEn is 0, nothing but PSB+ goes out and nothing decodes. */
TEST(context_and_filter_ranges)
{
    struct fwpt_soft_enc_config cfg = {.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_USER};
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x1000), 0);
    cfg.cpl = 3;
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x1000), 1);
    cfg.ctl |= FWPT_PUT(RTIT_CTL_ADDRn_CFG(1), RTIT_ADDR_CFG_FILTER);
    cfg.addr_a[1] = 0x2000, cfg.addr_b[1] = 0x2fff;
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x1fff), 0);
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x2000), 1);
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x2fff), 1);
    CHECK_EQ(fwpt_soft_enc_filter_en(&cfg, 0x3000), 0);
    cfg.ctl |= FWPT_PUT(RTIT_CTL_ADDRn_CFG(2), RTIT_ADDR_CFG_TRACESTOP);
    cfg.addr_a[2] = 0x2800, cfg.addr_b[2] = 0x2800;
    CHECK_EQ(fwpt_soft_enc_in_tracestop(&cfg, 0x2800), 1);
    CHECK_EQ(fwpt_soft_enc_in_tracestop(&cfg, 0x2801), 0);
}

/* The random programs every setting below encodes: 100 seeds (bases, spreads, sizes, RET chains deeper than the
 * 64-entry RET stack), built once on first use. */
#define NSEEDS 100
static struct soft_prog progs[NSEEDS + 1];

static const struct soft_prog *prog_of(unsigned seed)
{
    static int built;
    if (!built) {
        built = 1;
        static const uint64_t bases[] = {0x401000, 0x7ffff7a00000ull, 0xffffffff81000000ull, 0xfff00000ull,
                                         0x00007f0000001000ull};
        for (unsigned sd = 1; sd <= NSEEDS; sd++) {
            struct soft_prog_cfg pc = {
                .seed = sd,
                .base = bases[sd % 5],
                .spread = (sd % 3 == 0) ? (1ull << 30) : (sd % 3 == 1) ? (1ull << 16) : (1ull << 24),
                .nfuncs = 8 + sd % 40,
                .budget = 3000 + 500 * (sd % 8),
                .chain = sd % 7 == 0,
                .ret_clobber = sd % 2,
            };
            if (pc.chain)
                pc.nfuncs = 70 + sd % 20; /* deeper than the 64-entry RET stack */
            CHECK_EQ(soft_prog_build(&pc, &progs[sd]), 0);
        }
    }
    return progs[seed].nflow ? &progs[seed] : NULL;
}

enum setting { PLAIN, DISRETC, TIMING, FILTER, FILTER2, TRACESTOP };
static const char *const setting_name[] = {"plain", "disretc", "timing", "filter", "filter2", "tracestop"};

/* Every seed's program encoded under one setting; the totals of the runs. */
static struct totals run_setting(enum setting which)
{
    struct totals tot = {0};
    for (unsigned seed = 1; seed <= NSEEDS; seed++) {
        const struct soft_prog *p = prog_of(seed);
        if (!p)
            continue;
        char what[64];
        uint64_t lo = p->funcs[p->nfuncs / 3].addr, hi = p->funcs[p->nfuncs - 1].addr + p->funcs[p->nfuncs - 1].size - 1;
        struct fwpt_soft_enc_config c = {.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TOPA};
        switch (which) {
        case PLAIN:
            break;
        case DISRETC:
            c.ctl |= RTIT_CTL_DISRETC;
            break;
        case TIMING:
            c.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TSCEN | RTIT_CTL_MTCEN | RTIT_CTL_CYCEN |
                    FWPT_PUT(RTIT_CTL_MTCFREQ, seed % 10) | FWPT_PUT(RTIT_CTL_CYCTHRESH, seed % 6) |
                    FWPT_PUT(RTIT_CTL_PSBFREQ, seed % 3);
            c.tsc_per_ctc = 1 + seed % 4;
            break;
        case FILTER:
        case FILTER2:
            c = (struct fwpt_soft_enc_config){.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS |
                                                     FWPT_PUT(RTIT_CTL_ADDRn_CFG(0), RTIT_ADDR_CFG_FILTER)};
            c.addr_a[0] = lo, c.addr_b[0] = hi;
            if (which == FILTER2) {
                c.ctl |= FWPT_PUT(RTIT_CTL_ADDRn_CFG(1), RTIT_ADDR_CFG_FILTER);
                c.addr_a[1] = p->funcs[0].addr, c.addr_b[1] = p->funcs[0].addr + p->funcs[0].size - 1;
                c.addr_a[0] = p->funcs[p->nfuncs / 2].addr;
            }
            break;
        case TRACESTOP:
            c = (struct fwpt_soft_enc_config){.ctl = RTIT_CTL_BRANCHEN | RTIT_CTL_OS |
                                                     FWPT_PUT(RTIT_CTL_ADDRn_CFG(1), RTIT_ADDR_CFG_TRACESTOP)};
            c.addr_a[1] = c.addr_b[1] = p->flow[p->nflow / 2].ip;
            break;
        }
        snprintf(what, sizeof what, "seed %u %s", seed, setting_name[which]);
        run_one(what, p, &c, &tot);
    }
    printf("soft_enc %s: %lu runs, %lu instructions decoded by libipt, %lu TNT bits, %lu TIP, %lu compressed RET, "
           "%lu PSB, %lu TIP.PGE, %lu TIP.PGD, %lu CYC, %lu MTC, %lu TraceStop\n", setting_name[which],
           tot.runs, tot.insns, tot.tnt_bits, tot.tip, tot.ret_compressed, tot.psb, tot.pge, tot.pgd, tot.cyc,
           tot.mtc, tot.stops);
    return tot;
}

/* Plain branch tracing: every instruction that ran decodes; coverage: RETs were compressed. */
TEST(plain_decodes_every_insn)
{
    struct totals tot = run_setting(PLAIN);
    CHECK(tot.ret_compressed > 1000);
}

/* DisRETC: every RET is a TIP. */
TEST(disretc_decodes_every_insn)
{
    run_setting(DISRETC);
}

/* TSC, MTC and CYC with every MTCFreq, CYCThresh and PSBFreq: coverage: PSB+, CYC, MTC and TSC were written. */
TEST(timing_packets_decode)
{
    struct totals tot = run_setting(TIMING);
    CHECK(tot.psb > 100);
    CHECK(tot.cyc > 100 && tot.mtc > 100 && tot.tsc >= NSEEDS);
}

/* IP filter over the upper two thirds of the functions (the entry is outside); coverage: enables and disables. */
TEST(ip_filter_one_range)
{
    struct totals tot = run_setting(FILTER);
    CHECK(tot.pge > 100 && tot.pgd > 100);
}

/* Two filter ranges, one of them the entry function. */
TEST(ip_filter_two_ranges)
{
    run_setting(FILTER2);
}

/* TraceStop at an instruction that runs about half way through: every run stops once. */
TEST(tracestop_half_way)
{
    struct totals tot = run_setting(TRACESTOP);
    CHECK_EQ(tot.stops, NSEEDS);
}

int main(int argc, char **argv)
{
    int rc = check_run(argc, argv, "test_soft_enc");
    for (unsigned seed = 1; seed <= NSEEDS; seed++)
        soft_prog_free(&progs[seed]);
    return rc;
}
