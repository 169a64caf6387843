/* Flow decoder, three ways: the generator's ground truth (executed instructions), libipt's
 * instruction decoder (pt_insn_next) and fwpt_flow_next must agree instruction by instruction
 * and on enable/disable/interrupt/overflow events, over thousands of random programs; then
 * corrupted traces and images: no crash, no hang, errors with offsets inside the trace. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/flow_sync.h"
#include "tests/common/ipt_insn.h"
#include "tests/common/progen.h"

enum { IT_INSN, IT_ENABLED, IT_DISABLED, IT_INTERRUPT, IT_OVERFLOW, IT_ERROR };
struct item {
    uint8_t kind;
    uint64_t a, b;
};
struct list {
    struct item *v;
    size_t n, cap;
};
static void add(struct list *l, uint8_t kind, uint64_t a, uint64_t b)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n].kind = kind;
    l->v[l->n].a = a;
    l->v[l->n].b = b;
    l->n++;
}

static const char *kname[] = {"insn", "enabled", "disabled", "interrupt", "overflow", "error"};

/* ---- the three sequences ---- */
static void truth_list(const struct progen *p, struct list *l)
{
    size_t e = 0;
    for (size_t i = 0; i <= p->ntruth; i++) {
        for (; e < p->nevents && p->events[e].index == i; e++) {
            const struct progen_event *ev = &p->events[e];
            switch (ev->kind) {
            case PROGEN_EV_ENABLED: add(l, IT_ENABLED, ev->ip, 0); break;
            case PROGEN_EV_DISABLED: add(l, IT_DISABLED, ev->async ? ev->ip : 0, 0); break;
            case PROGEN_EV_INTERRUPT: add(l, IT_INTERRUPT, ev->ip, ev->to); break;
            case PROGEN_EV_OVERFLOW: add(l, IT_OVERFLOW, ev->ip, 0); break;
            }
        }
        if (i < p->ntruth)
            add(l, IT_INSN, p->truth[i].ip, p->truth[i].size);
    }
}

static void ipt_event(void *ctx, const struct pt_event *ev)
{
    struct list *l = ctx;
    switch (ev->type) {
    case ptev_enabled: add(l, IT_ENABLED, ev->variant.enabled.ip, 0); break;
    case ptev_disabled: add(l, IT_DISABLED, 0, 0); break;
    case ptev_async_disabled: add(l, IT_DISABLED, ev->variant.async_disabled.at, 0); break;
    case ptev_async_branch: add(l, IT_INTERRUPT, ev->variant.async_branch.from, ev->variant.async_branch.to); break;
    case ptev_overflow: add(l, IT_OVERFLOW, ev->variant.overflow.ip, 0); break;
    default: break;
    }
}
static void ipt_insn(void *ctx, const struct pt_insn *insn) { add(ctx, IT_INSN, insn->ip, insn->size); }
static void ipt_error(void *ctx, int status, uint64_t offset) { add(ctx, IT_ERROR, (uint64_t)-status, offset); }

static int libipt_list(const struct progen *p, struct code_image *im, struct list *l)
{
    struct ipt_insn_sink s = {.event = ipt_event, .insn = ipt_insn, .error = ipt_error, .ctx = l};
    return ipt_insn_walk(p->trace, p->trace_size, code_image_ipt_read, im, &s, NULL) == -pte_nomem ? -1 : 0;
}

static struct fwpt_flow_block cache[4096];

static void fwpt_list(const struct progen *p, struct code_image *im, struct list *l, int use_cache,
                      unsigned long *nerr_out)
{
    static struct fwpt_flow f;
    CHECK_EQ(fwpt_flow_init(&f, p->trace, p->trace_size, code_image_read, im, use_cache ? cache : NULL,
                            use_cache ? 4096 : 0),
             flow_sync_expected(p->trace, p->trace_size)); /* a corrupted variant may have lost its PSB */
    struct fwpt_flow_event ev;
    unsigned long guard = 0, nerr = 0;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        if (++guard > 50000000ul) {
            add(l, IT_ERROR, 9999, 0); /* hang */
            break;
        }
        switch (ev.kind) {
        case FWPT_FLOW_INSN: add(l, IT_INSN, ev.ip, ev.size); break;
        case FWPT_FLOW_ENABLED:
            if (!ev.sync)
                add(l, IT_ENABLED, ev.ip, 0);
            break;
        case FWPT_FLOW_DISABLED: add(l, IT_DISABLED, ev.async ? ev.ip : 0, 0); break;
        case FWPT_FLOW_INTERRUPT: add(l, IT_INTERRUPT, ev.ip, ev.to); break;
        case FWPT_FLOW_OVERFLOW: add(l, IT_OVERFLOW, ev.ip_valid ? ev.ip : 0, 0); break;
        case FWPT_FLOW_ERROR:
            nerr++;
            add(l, IT_ERROR, ev.status, ev.offset);
            break;
        default: break;
        }
    }
    if (nerr_out)
        *nerr_out = nerr;
}

static int first_diff(const struct list *x, const struct list *y, size_t *at)
{
    size_t n = x->n < y->n ? x->n : y->n;
    for (size_t i = 0; i < n; i++)
        if (x->v[i].kind != y->v[i].kind || x->v[i].a != y->v[i].a || x->v[i].b != y->v[i].b) {
            *at = i;
            return 1;
        }
    *at = n;
    return x->n != y->n;
}

static void show_diff(const char *what, uint64_t seed, const struct list *x, const struct list *y, size_t at)
{
    fprintf(stderr, "seed %llu: %s differ at item %zu (of %zu / %zu)\n", (unsigned long long)seed, what,
            at, x->n, y->n);
    for (size_t i = at >= 3 ? at - 3 : 0; i < at + 3; i++) {
        if (i < x->n)
            fprintf(stderr, "   A[%zu] %s %llx %llx\n", i, kname[x->v[i].kind], (unsigned long long)x->v[i].a,
                    (unsigned long long)x->v[i].b);
        if (i < y->n)
            fprintf(stderr, "   B[%zu] %s %llx %llx\n", i, kname[y->v[i].kind], (unsigned long long)y->v[i].a,
                    (unsigned long long)y->v[i].b);
    }
}

/* Seeds for tests/fuzz/fuzz_flow.c: u16 code length, u64 base, code, trace. */
static int write_corpus(const char *dir, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        struct progen_cfg cfg = {.seed = 1000 + k, .nfuncs = 2 + k % 6, .max_insns = 50 + k * 13 % 400,
                                 .features = PROGEN_F_ALL};
        struct progen p;
        if (progen_build(&cfg, &p) || p.code_size > 65535) {
            if (p.code)
                progen_free(&p);
            continue;
        }
        char path[512];
        snprintf(path, sizeof path, "%s/progen-%u", dir, k);
        FILE *fp = fopen(path, "wb");
        if (!fp)
            return 1;
        uint8_t hdr[10] = {(uint8_t)p.code_size, (uint8_t)(p.code_size >> 8)};
        for (int i = 0; i < 8; i++)
            hdr[2 + i] = (uint8_t)(p.base >> (8 * i));
        fwrite(hdr, 1, 10, fp);
        fwrite(p.code, 1, p.code_size, fp);
        fwrite(p.trace, 1, p.trace_size, fp);
        fclose(fp);
        progen_free(&p);
    }
    return 0;
}

/* The programs: nseeds of them from seed0 (the command line's leading numbers: `test_flow_libipt [N [SEED0]]
 * [case...]`). */
static unsigned nseeds = 8000;
static uint64_t seed0 = 1;

/* The k-th program's settings: every feature, deep call chains every tenth (more than 64 pending returns), long
 * stretches of RET compression every seventh (no overflows or disables). */
static struct progen_cfg seed_cfg(unsigned k)
{
    uint64_t seed = seed0 + k;
    struct progen_cfg cfg = {.seed = seed, .max_insns = 200 + (seed * 7919) % 6000, .features = PROGEN_F_ALL};
    if (k % 10 == 3)
        cfg.nfuncs = 120; /* deep call chains: more than 64 pending returns */
    if (k % 7 == 1)
        cfg.features &= ~(PROGEN_F_OVERFLOW | PROGEN_F_DISABLE); /* long stretches of RET compression */
    return cfg;
}

/* The generator's ground truth, libipt and fwpt_flow_next (and every 50th without a cache) agree item by item;
 * the generator exercised every rule. */
TEST(truth_libipt_fwpt_agree)
{
    unsigned long shown = 0, libipt_disagree = 0;
    unsigned long tot_insns = 0, tot_tnt = 0, tot_retc = 0, tot_rettip = 0, tot_psb = 0, tot_int = 0,
                  tot_dis = 0, tot_en = 0, tot_ovf = 0, tot_zlc = 0;
    clock_t t0 = clock();
    struct list lt = {0}, li = {0}, lf = {0}, lf2 = {0};

    for (unsigned k = 0; k < nseeds; k++) {
        uint64_t seed = seed0 + k;
        struct progen_cfg cfg = seed_cfg(k);
        struct progen p;
        if (progen_build(&cfg, &p)) {
            CHECK(!"progen_build");
            continue;
        }
        struct code_image im = {p.base, p.code, p.code_size, 0};
        lt.n = li.n = lf.n = lf2.n = 0;
        truth_list(&p, &lt);
        libipt_list(&p, &im, &li);
        fwpt_list(&p, &im, &lf, 1, NULL);
        size_t at;
        int d1 = first_diff(&lt, &lf, &at);
        CHECK(!d1);
        if (d1 && shown++ < 3)
            show_diff("truth(A) vs fwpt(B)", seed, &lt, &lf, at);
        int d2 = first_diff(&lt, &li, &at);
        if (d2) {
            libipt_disagree++;
            if (shown++ < 3)
                show_diff("truth(A) vs libipt(B)", seed, &lt, &li, at);
        }
        CHECK(!d2);
        if (k % 50 == 0) { /* the same without a cache */
            fwpt_list(&p, &im, &lf2, 0, NULL);
            CHECK(!first_diff(&lf, &lf2, &at));
        }
        tot_insns += p.ntruth;
        tot_tnt += p.n_tnt_bits, tot_retc += p.n_ret_compressed, tot_rettip += p.n_ret_tip;
        tot_psb += p.n_psb, tot_int += p.n_interrupts, tot_dis += p.n_disables, tot_en += p.n_enables;
        tot_ovf += p.n_overflows, tot_zlc += p.n_zero_len_calls;
        progen_free(&p);
    }
    /* the generator must have exercised every rule */
    CHECK(tot_retc > 1000);
    CHECK(tot_rettip > 1000);
    CHECK(tot_psb > 100);
    CHECK(tot_int > 100);
    CHECK(tot_dis > 100);
    CHECK(tot_en > 100);
    CHECK(tot_ovf > 50);
    CHECK(tot_zlc > 100);
    printf("flow_libipt: %u seeds, %lu instructions, %lu TNT bits, %lu compressed RETs, %lu RET TIPs, "
           "%lu PSB+, %lu interrupts, %lu disables, %lu enables, %lu overflows, %lu zero-length calls, "
           "libipt disagreed on %lu, %.1f s\n",
           nseeds, tot_insns, tot_tnt, tot_retc, tot_rettip, tot_psb, tot_int, tot_dis, tot_en, tot_ovf,
           tot_zlc, libipt_disagree, (double)(clock() - t0) / CLOCKS_PER_SEC);
    free(lt.v), free(li.v), free(lf.v), free(lf2.v);
}

/* the SDM's RET-compression model (pop on every RET): fwpt against the ground truth, on the same programs */
TEST(sdm_ret_compression_model)
{
    unsigned long shown = 0, tot_retc = 0, tot_sdm_retc = 0;
    struct list lt = {0}, lf2 = {0};
    for (unsigned k = 0; k < nseeds; k++) {
        uint64_t seed = seed0 + k;
        struct progen_cfg cfg = seed_cfg(k);
        struct progen p;
        if (progen_build(&cfg, &p)) {
            CHECK(!"progen_build");
            continue;
        }
        tot_retc += p.n_ret_compressed;
        progen_free(&p);
        struct progen_cfg c2 = cfg;
        c2.features |= PROGEN_F_RETC_SDM_POP;
        struct progen p2;
        if (progen_build(&c2, &p2) == 0) {
            struct code_image im2 = {p2.base, p2.code, p2.code_size, 0};
            size_t at;
            lt.n = lf2.n = 0;
            truth_list(&p2, &lt);
            fwpt_list(&p2, &im2, &lf2, 1, NULL);
            int d3 = first_diff(&lt, &lf2, &at);
            CHECK(!d3);
            if (d3 && shown++ < 3)
                show_diff("SDM model: truth(A) vs fwpt(B)", seed, &lt, &lf2, at);
            tot_sdm_retc += p2.n_ret_compressed;
            progen_free(&p2);
        } else {
            CHECK(!"progen_build");
        }
    }
    CHECK(tot_sdm_retc > tot_retc); /* the SDM model compresses more RETs */
    printf("flow_libipt: SDM model: %lu compressed RETs (%lu in the default model)\n", tot_sdm_retc, tot_retc);
    free(lt.v), free(lf2.v);
}

/* corrupted variants of every third program: flipped trace bytes, truncated trace, flipped code bytes: no crash,
 * no hang, errors with offsets inside the trace */
TEST(corrupted_traces_and_code)
{
    unsigned long tot_corrupt_items = 0, tot_corrupt_err = 0; /* the corrupted variants' checks ran on something */
    struct list lf2 = {0};
    for (unsigned k = 0; k < nseeds; k += 3) {
        uint64_t seed = seed0 + k;
        struct progen_cfg cfg = seed_cfg(k);
        struct progen p;
        if (progen_build(&cfg, &p)) {
            CHECK(!"progen_build");
            continue;
        }
        struct code_image im = {p.base, p.code, p.code_size, 0};
        uint64_t r = seed * 0x9E3779B97F4A7C15ull;
        for (int v = 0; v < 3; v++) {
            uint8_t *saved_t = malloc(p.trace_size + 1), *saved_c = malloc(p.code_size);
            memcpy(saved_t, p.trace, p.trace_size);
            memcpy(saved_c, p.code, p.code_size);
            size_t tsize = p.trace_size;
            for (int j = 0; j < 4; j++) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                if (v == 0 && p.trace_size)
                    p.trace[(r >> 20) % p.trace_size] ^= (uint8_t)(1u << ((r >> 8) & 7));
                if (v == 2)
                    p.code[(r >> 20) % p.code_size] = (uint8_t)(r >> 40);
            }
            if (v == 1)
                p.trace_size = p.trace_size * ((r >> 33) % 100) / 100;
            lf2.n = 0;
            unsigned long nerr = 0;
            fwpt_list(&p, &im, &lf2, 1, &nerr);
            int bad_offset = 0, hang = 0;
            for (size_t i = 0; i < lf2.n; i++)
                if (lf2.v[i].kind == IT_ERROR) {
                    if (lf2.v[i].a == 9999)
                        hang = 1;
                    else if (lf2.v[i].b > p.trace_size)
                        bad_offset = 1;
                }
            CHECK(!hang);
            CHECK(!bad_offset);
            tot_corrupt_items += lf2.n;
            tot_corrupt_err += nerr;
            p.trace_size = tsize;
            memcpy(p.trace, saved_t, tsize);
            memcpy(p.code, saved_c, p.code_size);
            free(saved_t);
            free(saved_c);
        }
        progen_free(&p);
    }
    /* the hang/offset checks on corrupted traces are vacuous unless those decodes produced items and errors */
    CHECK(tot_corrupt_items > 1000);
    CHECK(tot_corrupt_err > 1000);
    printf("flow_libipt: corrupted variants %lu items / %lu errors\n", tot_corrupt_items, tot_corrupt_err);
    free(lf2.v);
}

/* `test_flow_libipt --write-corpus DIR N`; else `test_flow_libipt [N [SEED0]] [case...]`: the leading numbers
 * are the count of programs and the first seed, the rest names cases (all without). */
int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[1], "--write-corpus"))
        return write_corpus(argv[2], (unsigned)strtoul(argv[3], NULL, 0));
    int a = 1;
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9')
        nseeds = (unsigned)strtoul(argv[a++], NULL, 0);
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9')
        seed0 = strtoull(argv[a++], NULL, 0);
    argv[a - 1] = argv[0];
    return check_run(argc - (a - 1), argv + (a - 1), "flow_libipt");
}
