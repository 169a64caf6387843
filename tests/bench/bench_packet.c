/* Packet decode throughput: fwpt_pkt_next vs libipt's pt_pkt_next over the same 256 MiB stream: every
 * packet type libipt encodes, a realistic mix (TNT and compressed TIPs dominate, PSB+ every ~4 KiB), the
 * trace of a random program's execution (tests/common/progen), and the real firmware traces of
 * FWPT_BENCH_FW (tests/bench/firmware-traces.sh), each repeated to the same size. Best of
 * FWPT_BENCH_RUNS (default 3) runs each; FWPT_BENCH_MIB overrides the size. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "decode/packet.h"
#include "tests/common/fw_traces.h"
#include "tests/common/progen.h"
#include "tests/common/rng.h"

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { return xorshift64(&rs); }

static void random_packet(struct pt_packet *p, int realistic, uint64_t *since_psb)
{
    memset(p, 0, sizeof *p);
    unsigned r = (unsigned)(rnd() % 100);
    if (realistic) {
        if (*since_psb > 4096) {
            p->type = ppt_psb;
            *since_psb = 0;
            return;
        }
        if (r < 55) {
            p->type = ppt_tnt_8;
            p->payload.tnt.bit_size = (uint8_t)(1 + rnd() % 6);
            p->payload.tnt.payload = rnd() & ((1u << p->payload.tnt.bit_size) - 1);
        } else if (r < 60) {
            p->type = ppt_tnt_64;
            p->payload.tnt.bit_size = (uint8_t)(7 + rnd() % 40);
            p->payload.tnt.payload = rnd() & ((1ull << p->payload.tnt.bit_size) - 1);
        } else if (r < 85) {
            p->type = r < 80 ? ppt_tip : ppt_fup;
            p->payload.ip.ipc = r < 70 ? pt_ipc_update_16 : r < 82 ? pt_ipc_update_32 : pt_ipc_sext_48;
            p->payload.ip.ip = 0x7fff00000000ull | (rnd() & 0xffffffff);
        } else if (r < 90) {
            p->type = ppt_pad;
        } else if (r < 95) {
            p->type = ppt_mtc;
            p->payload.mtc.ctc = (uint8_t)rnd();
        } else {
            p->type = ppt_cyc;
            p->payload.cyc.value = rnd() & 0xfff;
        }
        return;
    }
    static const enum pt_packet_type all[] = {
        ppt_pad, ppt_psb, ppt_psbend, ppt_fup, ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_tnt_8, ppt_tnt_64,
        ppt_mode, ppt_pip, ppt_vmcs, ppt_cbr, ppt_tsc, ppt_tma, ppt_mtc, ppt_cyc, ppt_stop, ppt_ovf,
        ppt_mnt, ppt_exstop, ppt_mwait, ppt_pwre, ppt_pwrx, ppt_ptw,
    };
    p->type = all[rnd() % (sizeof all / sizeof all[0])];
    switch (p->type) {
    case ppt_fup: case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: {
        static const enum pt_ip_compression ipcs[] = {pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
                                                     pt_ipc_sext_48, pt_ipc_update_48, pt_ipc_full};
        p->payload.ip.ipc = ipcs[rnd() % 6];
        p->payload.ip.ip = rnd();
        break;
    }
    case ppt_tnt_8: p->payload.tnt.bit_size = (uint8_t)(1 + rnd() % 6); break;
    case ppt_tnt_64: p->payload.tnt.bit_size = (uint8_t)(1 + rnd() % 47); break;
    case ppt_mode: p->payload.mode.leaf = rnd() & 1 ? pt_mol_exec : pt_mol_tsx; break;
    case ppt_pip: p->payload.pip.cr3 = rnd() & 0xffffffffff000ull; break;
    case ppt_vmcs: p->payload.vmcs.base = rnd() & 0xffffffffff000ull; break;
    case ppt_tsc: p->payload.tsc.tsc = rnd() & 0xffffffffffffffull; break;
    case ppt_tma: p->payload.tma.ctc = (uint16_t)rnd(); p->payload.tma.fc = (uint16_t)(rnd() & 0x1ff); break;
    case ppt_cyc: p->payload.cyc.value = rnd() >> (rnd() % 61 + 3); break;
    case ppt_mnt: p->payload.mnt.payload = rnd(); break;
    case ppt_ptw: p->payload.ptw.plc = (uint8_t)(rnd() & 1); p->payload.ptw.payload = rnd() & 0xffffffff; break;
    default: break;
    }
}

/* The trace of a random program's execution (tests/common/progen: compiled-code-like biased branches,
 * calls/returns with RET compression, interrupts, PSB+), repeated to fill buf. */
static int build_program(uint8_t *buf, size_t len)
{
    struct progen_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.seed = 7;
    cfg.max_insns = 4000000;
    cfg.features = PROGEN_F_ALL;
    cfg.no_truth = 1;
    cfg.biased = 1;
    struct progen pg;
    if (progen_build(&cfg, &pg) != 0 || pg.trace_size == 0)
        return -1;
    for (size_t at = 0; at < len; at += pg.trace_size)
        memcpy(buf + at, pg.trace, len - at < pg.trace_size ? len - at : pg.trace_size);
    /* the last copy is cut anywhere: end on PADs from the last PSB of the buffer on */
    size_t last = len;
    for (size_t i = len - 16; i-- > 0;)
        if (!memcmp(buf + i, "\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82", 16)) {
            last = i;
            break;
        }
    memset(buf + last, 0, len - last);
    progen_free(&pg);
    return 0;
}

/* Encode a chunk with libipt (padded with PAD to a packet boundary), then repeat it to fill buf. */
static void build(uint8_t *buf, size_t len, int realistic)
{
    size_t chunk = 16u << 20;
    if (chunk > len)
        chunk = len;
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = buf;
    cfg.end = buf + chunk;
    struct pt_encoder *enc = pt_alloc_encoder(&cfg);
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = ppt_psb;
    pt_enc_next(enc, &p);
    uint64_t since = 0, off = 16;
    for (;;) {
        random_packet(&p, realistic, &since);
        int n = pt_enc_next(enc, &p);
        if (n < 0)
            break;
        since += (uint64_t)n;
        off += (uint64_t)n;
    }
    pt_free_encoder(enc);
    memset(buf + off, 0, chunk - off); /* PAD */
    for (size_t at = chunk; at < len; at += chunk)
        memcpy(buf + at, buf, len - at < chunk ? len - at : chunk);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the box is shared, wall time counts other jobs */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double run_fwpt(const uint8_t *buf, size_t len, uint64_t *npk, uint64_t *sum)
{
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    double t0 = now();
    fwpt_pkt_init(&dec, buf, len);
    fwpt_pkt_sync_set(&dec, 0);
    uint64_t n = 0, s = 0;
    for (;;) {
        enum fwpt_status st = fwpt_pkt_next(&dec, &pkt);
        if (st != FWPT_OK)
            break;
        n++;
        s += pkt.type;
    }
    double t = now() - t0;
    *npk = n;
    *sum = s + dec.last_ip;
    return t;
}

static double run_fwpt_batch(const uint8_t *buf, size_t len, uint64_t *npk, uint64_t *sum)
{
    static struct fwpt_packet pkts[256];
    struct fwpt_pkt_decoder dec;
    double t0 = now();
    fwpt_pkt_init(&dec, buf, len);
    fwpt_pkt_sync_set(&dec, 0);
    uint64_t n = 0, s = 0;
    enum fwpt_status st = FWPT_OK;
    while (st == FWPT_OK) {
        size_t k = fwpt_pkt_next_batch(&dec, pkts, 256, &st);
        for (size_t i = 0; i < k; i++)
            s += pkts[i].type;
        n += k;
    }
    double t = now() - t0;
    *npk = n;
    *sum = s + dec.last_ip;
    return t;
}

static double run_libipt(const uint8_t *buf, size_t len, uint64_t *npk, uint64_t *sum)
{
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)buf;
    cfg.end = (uint8_t *)buf + len;
    struct pt_packet pkt;
    double t0 = now();
    struct pt_packet_decoder *d = pt_pkt_alloc_decoder(&cfg);
    pt_pkt_sync_set(d, 0);
    uint64_t n = 0, s = 0;
    while (pt_pkt_next(d, &pkt, sizeof pkt) > 0) {
        n++;
        s += pkt.type;
    }
    pt_pkt_free_decoder(d);
    double t = now() - t0;
    *npk = n;
    *sum = s;
    return t;
}

static const char *only; /* FWPT_BENCH_ONLY, checked in main: NULL, "fwpt" or "libipt" */

/* Times fwpt (next and batch) and libipt over buf[0..len) and prints one line labelled 'name'. With
 * FWPT_BENCH_ONLY=fwpt or =libipt (to profile one decoder) only that one runs, and the line gives its
 * figures alone: a ratio against a decoder that did not run would mean nothing. */
static int measure(const char *name, const uint8_t *buf, size_t len, int runs)
{
    double bf = 1e9, bl = 1e9, bb = 1e9;
    uint64_t nf = 0, nl = 0, nb = 0, sf = 0, sl = 0, sb = 0;
    const int do_fwpt = !only || !strcmp(only, "fwpt"), do_libipt = !only || !strcmp(only, "libipt");
    /* one run's pair of ratios (next, batch): their lowest and highest show the spread of a single measurement */
    double lo[2] = {1e30, 1e30}, hi[2] = {0, 0};
    for (int r = 0; r < runs; r++) {
        double tf = 0, tb = 0, tl = 0;
        if (do_fwpt) {
            tf = run_fwpt(buf, len, &nf, &sf);
            if (tf < bf)
                bf = tf;
            tb = run_fwpt_batch(buf, len, &nb, &sb);
            if (tb < bb)
                bb = tb;
        }
        if (do_libipt) {
            tl = run_libipt(buf, len, &nl, &sl);
            if (tl < bl)
                bl = tl;
        }
        for (int k = 0; k < 2 && do_fwpt && do_libipt; k++) {
            double x = tl / (k ? tb : tf);
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    }
    int rc = 0;
    if ((do_fwpt && (nb != nf || sb != sf)) || (do_fwpt && do_libipt && nf != nl)) {
        fprintf(stderr, "bench_packet: %s: packet counts differ: fwpt %llu, fwpt batch %llu, libipt %llu\n", name,
                (unsigned long long)nf, (unsigned long long)nb, (unsigned long long)nl);
        rc = 1;
    }
    double mbf = len / bf / 1e6, mbl = len / bl / 1e6, mbb = len / bb / 1e6;
    if (!do_fwpt)
        printf("bench_packet %-13s %zu MiB, %llu packets: libipt pt_pkt_next %.0f MB/s (%.0f Mpkt/s) "
               "(FWPT_BENCH_ONLY=libipt: no ratio)\n",
               name, len >> 20, (unsigned long long)nl, mbl, nl / bl / 1e6);
    else if (!do_libipt)
        printf("bench_packet %-13s %zu MiB, %llu packets: fwpt_pkt_next %.0f MB/s (%.0f Mpkt/s); "
               "fwpt_pkt_next_batch %.0f MB/s (%.0f Mpkt/s) (FWPT_BENCH_ONLY=fwpt: no ratio)\n",
               name, len >> 20, (unsigned long long)nf, mbf, nf / bf / 1e6, mbb, nb / bb / 1e6);
    else
        printf("bench_packet %-13s %zu MiB, %llu packets (%.2f B/packet): libipt pt_pkt_next %.0f MB/s (%.0f Mpkt/s); "
               "fwpt_pkt_next %.0f MB/s (%.0f Mpkt/s), ratio %.2fx (per run %.2fx..%.2fx); fwpt_pkt_next_batch "
               "%.0f MB/s (%.0f Mpkt/s), ratio %.2fx (per run %.2fx..%.2fx)\n",
               name, len >> 20, (unsigned long long)nf, (double)len / (double)nf, mbl, nl / bl / 1e6, mbf,
               nf / bf / 1e6, mbf / mbl, lo[0], hi[0], mbb, nb / bb / 1e6, mbb / mbl, lo[1], hi[1]);
    fflush(stdout);
    return rc;
}

/* The firmware traces tests/bench/firmware-traces.sh recorded (FWPT_BENCH_FW/TARGET/fwpt/trace.pt), each
 * repeated (whole copies: each starts at its PSB) to about the synthetic inputs' size. */
static int measure_firmware(uint8_t *buf, size_t len, int runs)
{
    struct fw_trace *t;
    int n = fw_traces("bench_packet", &t), rc = n < 0;
    for (int i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/trace.pt", t[i].dir);
        FILE *f = fopen(path, "rb");
        size_t got = f ? fread(buf, 1, len, f) : 0;
        int more = f && fgetc(f) != EOF;
        if (f)
            fclose(f);
        if (got == 0 || more) {
            fprintf(stderr, "bench_packet: %s: %s\n", path, more ? "larger than the bench buffer" : "empty or unreadable");
            rc = 1;
            continue;
        }
        size_t copies = len / got;
        for (size_t k = 1; k < copies; k++)
            memcpy(buf + k * got, buf, got);
        char label[80];
        snprintf(label, sizeof label, "fw:%.63s", t[i].name);
        rc |= measure(label, buf, copies * got, runs);
    }
    free(t);
    return rc;
}

int main(void)
{
    const char *e = getenv("FWPT_BENCH_MIB");
    char *end;
    size_t mib = e && *e ? strtoul(e, &end, 0) : 256;
    if (e && *e && (*end || mib < 1 || mib > 65536)) {
        fprintf(stderr, "bench_packet: FWPT_BENCH_MIB='%s': must be a number of MiB, 1..65536\n", e);
        return 2;
    }
    e = getenv("FWPT_BENCH_RUNS");
    long runs = e && *e ? strtol(e, &end, 0) : 3;
    if (e && *e && (*end || runs < 1 || runs > 1000)) {
        fprintf(stderr, "bench_packet: FWPT_BENCH_RUNS='%s': must be 1..1000\n", e);
        return 2;
    }
    only = getenv("FWPT_BENCH_ONLY");
    if (only && !*only)
        only = NULL;
    if (only && strcmp(only, "fwpt") && strcmp(only, "libipt")) {
        fprintf(stderr, "bench_packet: FWPT_BENCH_ONLY='%s': must be 'fwpt' or 'libipt'\n", only);
        return 2;
    }
    size_t len = mib << 20;
    uint8_t *buf = malloc(len);
    if (!buf) {
        fprintf(stderr, "bench_packet: cannot allocate %zu MiB\n", mib);
        return 1;
    }
    int rc = 0;
    static const char *const mixes[] = {"all-types", "realistic", "program"};
    for (int mix = 0; mix < 3; mix++) {
        if (mix < 2)
            build(buf, len, mix);
        else if (build_program(buf, len) != 0) {
            fprintf(stderr, "bench_packet: progen failed\n");
            rc = 1;
            break;
        }
        rc |= measure(mixes[mix], buf, len, (int)runs);
    }
    rc |= measure_firmware(buf, len, (int)runs);
    free(buf);
    return rc;
}
