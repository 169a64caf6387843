/* Time in the flow against libipt: random programs (tests/common/progen) traced with every combination of
 * TSC, MTC and CYC (and CBR changes), decoded by libipt's instruction decoder (pt_insn_next, pt_insn_time,
 * each event's tsc) and by fwpt_flow_next with fwpt_flow_set_time under the same CPUID 15H ratio, MTC
 * frequency and nominal ratio: the same instructions and events with the same time, item by item. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/ipt_insn.h"
#include "tests/common/progen.h"

enum { IT_INSN, IT_ENABLED, IT_DISABLED, IT_INTERRUPT, IT_OVERFLOW, IT_CBR, IT_ERROR };
static const char *kname[] = {"insn", "enabled", "disabled", "interrupt", "overflow", "cbr", "error"};
struct item {
    uint8_t kind, ok;
    uint64_t a, tsc;
};
struct list {
    struct item *v;
    size_t n, cap;
};
static void add(struct list *l, uint8_t kind, uint64_t a, uint64_t tsc, int ok)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n++] = (struct item){kind, (uint8_t)(ok != 0), a, tsc};
}

struct tcfg {
    uint32_t ratio;
    uint8_t mtc_freq, nom_freq;
};

static void ipt_event(void *ctx, const struct pt_event *ev)
{
    struct list *l = ctx;
    switch (ev->type) {
    case ptev_enabled: add(l, IT_ENABLED, ev->variant.enabled.ip, ev->tsc, ev->has_tsc); break;
    case ptev_disabled: add(l, IT_DISABLED, 0, ev->tsc, ev->has_tsc); break;
    case ptev_async_disabled: add(l, IT_DISABLED, ev->variant.async_disabled.at, ev->tsc, ev->has_tsc); break;
    case ptev_async_branch: add(l, IT_INTERRUPT, ev->variant.async_branch.from, ev->tsc, ev->has_tsc); break;
    case ptev_overflow: add(l, IT_OVERFLOW, ev->variant.overflow.ip, ev->tsc, ev->has_tsc); break;
    case ptev_cbr:
        if (ev->status_update)
            break; /* the CBR in a PSB+: status, no event in fwpt */
        add(l, IT_CBR, ev->variant.cbr.ratio, ev->tsc, ev->has_tsc); break;
    default: break;
    }
}
static void ipt_insn(void *ctx, struct pt_insn_decoder *dec, const struct pt_insn *insn)
{
    uint64_t tsc = 0;
    int ts = pt_insn_time(dec, &tsc, NULL, NULL);
    add(ctx, IT_INSN, insn->ip, tsc, ts >= 0);
}
static void ipt_error(void *ctx, int status, uint64_t offset)
{
    add(ctx, IT_ERROR, (uint64_t)-status, offset, 0);
}

static void libipt_list(const struct progen *p, struct code_image *im, const struct tcfg *tc, struct list *l)
{
    struct pt_config config;
    pt_config_init(&config);
    config.begin = p->trace;
    config.end = p->trace + p->trace_size;
    config.cpuid_0x15_eax = 1;
    config.cpuid_0x15_ebx = tc->ratio;
    config.mtc_freq = tc->mtc_freq;
    config.nom_freq = tc->nom_freq;
    struct ipt_insn_sink s = {.event = ipt_event, .insn_at = ipt_insn, .error = ipt_error, .ctx = l};
    if (ipt_insn_walk_config(&config, code_image_ipt_read, im, &s, NULL) == -pte_nomem)
        abort();
}

static struct fwpt_flow_block cache[4096];

/* mode 0: fwpt_flow_next; 1: fwpt_flow_next_batch with fwpt_flow_insn_time; 2: no cache */
static void fwpt_list(const struct progen *p, struct code_image *im, const struct tcfg *tc, int mode, struct list *l)
{
    static struct fwpt_flow f;
    CHECK_EQ(fwpt_flow_init(&f, p->trace, p->trace_size, code_image_read, im, mode == 2 ? NULL : cache,
                            mode == 2 ? 0 : 4096), FWPT_OK);
    struct fwpt_time_config cfg = {.cpuid_15_eax = 1, .cpuid_15_ebx = tc->ratio, .mtc_freq = tc->mtc_freq,
                                   .nom_freq = tc->nom_freq};
    fwpt_flow_set_time(&f, &cfg);
    struct fwpt_flow_event ev;
    for (unsigned long guard = 0; guard < 50000000ul; guard++) {
        uint64_t tsc;
        int ok;
        if (mode == 1) {
            const struct fwpt_flow_obuf_insn *v;
            uint32_t n;
            if (fwpt_flow_next_batch(&f, &v, &n, &ev) != FWPT_OK)
                break;
            for (uint32_t k = 0; k < n; k++) {
                ok = fwpt_flow_insn_time(&f, &v[k], &tsc) == FWPT_OK;
                add(l, IT_INSN, v[k].ip, tsc, ok);
            }
            if (n)
                continue;
        } else if (fwpt_flow_next(&f, &ev) != FWPT_OK) {
            break;
        }
        ok = fwpt_flow_time(&f, &tsc) == FWPT_OK;
        switch (ev.kind) {
        case FWPT_FLOW_INSN: add(l, IT_INSN, ev.ip, tsc, ok); break;
        case FWPT_FLOW_ENABLED:
            if (!ev.sync)
                add(l, IT_ENABLED, ev.ip, tsc, ok);
            break;
        case FWPT_FLOW_DISABLED: add(l, IT_DISABLED, ev.async ? ev.ip : 0, tsc, ok); break;
        case FWPT_FLOW_INTERRUPT: add(l, IT_INTERRUPT, ev.ip, tsc, ok); break;
        case FWPT_FLOW_OVERFLOW: add(l, IT_OVERFLOW, ev.ip_valid ? ev.ip : 0, tsc, ok); break;
        case FWPT_FLOW_CBR: add(l, IT_CBR, ev.detail, tsc, ok); break;
        case FWPT_FLOW_ERROR: add(l, IT_ERROR, ev.status, ev.offset, 0); break;
        default: break;
        }
    }
}

static int first_diff(const struct list *x, const struct list *y, size_t *at)
{
    size_t n = x->n < y->n ? x->n : y->n;
    for (size_t i = 0; i < n; i++)
        if (x->v[i].kind != y->v[i].kind || x->v[i].a != y->v[i].a || x->v[i].tsc != y->v[i].tsc ||
            x->v[i].ok != y->v[i].ok) {
            *at = i;
            return 1;
        }
    *at = n;
    return x->n != y->n;
}

static void show_diff(const char *what, uint64_t seed, unsigned timing, const struct list *x, const struct list *y,
                      size_t at)
{
    fprintf(stderr, "seed %llu timing %x: %s differ at item %zu (of %zu / %zu)\n", (unsigned long long)seed, timing,
            what, at, x->n, y->n);
    for (size_t i = at >= 6 ? at - 6 : 0; i < at + 3; i++) {
        if (i < x->n)
            fprintf(stderr, "   A[%zu] %-9s %llx %s%llx\n", i, kname[x->v[i].kind], (unsigned long long)x->v[i].a,
                    x->v[i].ok ? "" : "(no tsc) ", (unsigned long long)x->v[i].tsc);
        if (i < y->n)
            fprintf(stderr, "   B[%zu] %-9s %llx %s%llx\n", i, kname[y->v[i].kind], (unsigned long long)y->v[i].a,
                    y->v[i].ok ? "" : "(no tsc) ", (unsigned long long)y->v[i].tsc);
    }
}

/* The traces: nseeds programs from seed0, each with one combination of timing packets (only: that one, for
 * debugging); the command line's leading numbers: `test_flow_time [N [SEED0 [TIMING]]] [case...]`. */
static unsigned nseeds = 6000, only;
static uint64_t seed0 = 1;

/* The k-th program (its timing combination in *timing, its time settings in *tc); 0 (a failed check) when it could
 * not be generated. */
static int build(unsigned k, struct progen *p, struct progen_cfg *cfg, unsigned *timing, struct tcfg *tc)
{
    uint64_t seed = seed0 + k;
    *timing = only ? only : 1 + k % 15; /* every combination of TSC, MTC, CYC and CBR changes */
    *cfg = (struct progen_cfg){.seed = seed, .max_insns = 100 + (seed * 7919) % 3000, .features = PROGEN_F_ALL,
                               .timing = *timing, .mtc_freq = (unsigned)(seed % 10), .ctc_ratio = 1 + seed % 7,
                               .nom_freq = 1 + (unsigned)(seed % 37)};
    if (seed % 5 == 3)
        cfg->extra_plain = 60; /* long stretches without a packet */
    if (progen_build(cfg, p)) {
        CHECK(!"progen_build");
        return 0;
    }
    *tc = (struct tcfg){cfg->ctc_ratio, (uint8_t)cfg->mtc_freq, (uint8_t)cfg->nom_freq};
    return 1;
}

/* libipt and fwpt_flow_next (FLOW_TIME_MODE: another reader) give the same items with the same time; the
 * comparison saw time. FLOW_TIME_DUMP=FILE writes the first trace that differs (and FILE.code). */
TEST(time_matches_libipt)
{
    unsigned long shown = 0, items = 0, timed = 0, changes = 0, tsc = 0, mtc = 0, cyc = 0, cbr = 0, diffs = 0;
    unsigned long per_combo[16] = {0};
    clock_t t0 = clock();
    struct list li = {0}, lf = {0};
    for (unsigned k = 0; k < nseeds; k++) {
        uint64_t seed = seed0 + k;
        struct progen p;
        struct progen_cfg cfg;
        struct tcfg tc;
        unsigned timing;
        if (!build(k, &p, &cfg, &timing, &tc))
            continue;
        struct code_image im = {p.base, p.code, p.code_size, 0};
        li.n = lf.n = 0;
        libipt_list(&p, &im, &tc, &li);
        fwpt_list(&p, &im, &tc, getenv("FLOW_TIME_MODE") ? atoi(getenv("FLOW_TIME_MODE")) : 0, &lf);
        size_t at;
        int d = first_diff(&li, &lf, &at);
        CHECK(!d);
        if (d) {
            diffs++;
            per_combo[timing]++;
            if (shown++ < 4)
                show_diff("libipt(A) vs fwpt(B)", seed, timing, &li, &lf, at);
            if (getenv("FLOW_TIME_DUMP") && shown == 1) { /* the first one that differs, for fwpt dump/flow */
                FILE *fp = fopen(getenv("FLOW_TIME_DUMP"), "wb");
                if (fp) {
                    fwrite(p.trace, 1, p.trace_size, fp);
                    fclose(fp);
                }
                char cpath[4096];
                snprintf(cpath, sizeof cpath, "%s.code", getenv("FLOW_TIME_DUMP"));
                fp = fopen(cpath, "wb");
                if (fp) {
                    fwrite(p.code, 1, p.code_size, fp);
                    fclose(fp);
                }
                fprintf(stderr, "   trace written; code at %llx (%zu bytes), --mtc-freq %u --cpuid-0x15.ebx %u --nom-freq %u\n",
                        (unsigned long long)p.base, p.code_size, cfg.mtc_freq, cfg.ctc_ratio, cfg.nom_freq);
            }
        }
        for (size_t i = 0; i < li.n; i++) {
            items++;
            timed += li.v[i].ok;
            changes += i && li.v[i].tsc != li.v[i - 1].tsc;
        }
        tsc += p.n_tsc, mtc += p.n_mtc, cyc += p.n_cyc, cbr += p.n_cbr;
        progen_free(&p);
    }
    /* the comparison saw time: wall-clock time on most items, and it changed often */
    CHECK(timed > items / 2);
    CHECK(changes > items / 20);
    CHECK(tsc > 1000 && mtc > 1000 && cyc > 1000 && cbr > 100);
    printf("flow_time: %u traces, %lu items (%lu with a TSC time, %lu time changes), %lu TSC, %lu MTC, %lu CYC, "
           "%lu CBR packets, %lu traces differ, %.1f s\n",
           nseeds, items, timed, changes, tsc, mtc, cyc, cbr, diffs, (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (diffs)
        for (unsigned c = 1; c < 16; c++)
            printf("  timing %x: %lu traces differ\n", c, per_combo[c]);
    free(li.v), free(lf.v);
}

/* the batch reader and the walk without a cache give the same times as fwpt_flow_next (every fourth trace, the
 * two in turn) */
TEST(batch_and_no_cache_match_next)
{
    unsigned long shown = 0;
    struct list lf = {0}, lf2 = {0};
    for (unsigned k = 1; k < nseeds; k += 4) {
        uint64_t seed = seed0 + k;
        struct progen p;
        struct progen_cfg cfg;
        struct tcfg tc;
        unsigned timing;
        if (!build(k, &p, &cfg, &timing, &tc))
            continue;
        struct code_image im = {p.base, p.code, p.code_size, 0};
        size_t at;
        lf.n = lf2.n = 0;
        fwpt_list(&p, &im, &tc, 0, &lf);
        fwpt_list(&p, &im, &tc, 1 + k / 4 % 2, &lf2);
        int d2 = first_diff(&lf, &lf2, &at);
        CHECK(!d2);
        if (d2 && shown++ < 4)
            show_diff(k / 4 % 2 ? "next(A) vs no cache(B)" : "next(A) vs batch(B)", seed, timing, &lf, &lf2, at);
        progen_free(&p);
    }
    free(lf.v), free(lf2.v);
}

/* `test_flow_time [N [SEED0 [TIMING]]] [case...]`: the leading numbers are the count of traces, the first seed and
 * one timing combination (debug); the rest names cases (all without). */
int main(int argc, char **argv)
{
    int a = 1;
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9')
        nseeds = (unsigned)strtoul(argv[a++], NULL, 0);
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9')
        seed0 = strtoull(argv[a++], NULL, 0);
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9')
        only = (unsigned)strtoul(argv[a++], NULL, 0);
    argv[a - 1] = argv[0];
    return check_run(argc - (a - 1), argv + (a - 1), "flow_time");
}
