/* The coverage decoder kept warm (include/fwpt/coverage.h, analyze/coverage.c): trace after trace of the same code
 * through one decoder, its block and path caches kept, each decode must give exactly what a fresh decoder gives for
 * that trace -- the bitmap bytes, every edge with its count, the instruction count, the errors and the bytes they
 * skipped -- and what the per-instruction walk (fwpt_flow_next and the edge rule of analyze/edges.h) gives. Over the
 * generated programs (every feature of tests/common/progen), each decoded as a whole, from a PSB in its middle and in
 * corrupted copies, in turns; and the firmware traces make bench records (FWPT_BENCH_FW, as test_summary), each after
 * itself, its part from a PSB in the middle, a corrupted copy and the others whose code agrees with its own where
 * they overlap (none, when each recording's images hold data that changed). Big caches and tiny ones (paths evicted
 * and rebuilt across traces). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/coverage.h"
#include "analyze/parallel_host.h"
#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/fw_traces.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/tool_run.h"

#define MAP (1u << 12) /* small: counters wrap and edges share slots */

struct trace {
    const uint8_t *bytes;
    size_t len;
    struct fw_image_set *code;
};

/* What a decode gives. */
struct output {
    uint64_t insns, errors, skipped;
    uint8_t map[MAP];
    struct fwpt_edge *edges;
    size_t nedges;
    uint64_t err_sum; /* the errors' status, ip and offset, mixed in order */
};

static void output_free(struct output *o)
{
    free(o->edges);
    o->edges = NULL;
}

static void on_error(void *ctx, const struct fwpt_flow_event *ev)
{
    uint64_t *h = ctx;
    *h = (*h * 0x100000001b3ull) ^ ev->status ^ ev->ip * 3 ^ ev->offset * 7;
}

/* The per-instruction walk: every instruction and event of fwpt_flow_next, the edge rule over them. */
static void reference(const struct trace *t, struct output *o)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    memset(o, 0, sizeof *o);
    struct fwpt_edges e;
    CHECK_EQ(fwpt_edges_init(&e, NULL, 0, &fwpt_parallel_resize), FWPT_OK);
    (void)fwpt_flow_init(&f, t->bytes, t->len, fw_images_read, t->code, cache, 4096);
    struct fwpt_edge_walk w = {0, false};
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        uint64_t from, to;
        if (fwpt_edge_step(&w, &ev, &from, &to)) {
            o->map[fwpt_cov_index(from, to, MAP - 1)]++;
            fwpt_edges_add(&e, from, to, 1);
        }
        o->insns += ev.kind == FWPT_FLOW_INSN;
        if (ev.kind == FWPT_FLOW_ERROR) {
            o->errors++;
            on_error(&o->err_sum, &ev);
        }
    }
    o->skipped = fwpt_flow_bytes_skipped(&f);
    o->edges = malloc((e.n + 1) * sizeof *o->edges);
    fwpt_edges_sorted(&e, o->edges);
    o->nedges = e.n;
    fwpt_edges_free(&e);
}

/* One decode by c (its map cleared first) into *o; with_edges: the edge table too (the summary walk's general
 * counts), else the bitmap alone (its own loop) and o->edges copied from like. */
static enum fwpt_status decode(struct fwpt_cov *c, uint8_t *map, const struct trace *t, struct output *o,
                               bool with_edges, const struct output *like)
{
    memset(o, 0, sizeof *o);
    memset(map, 0, MAP);
    struct fwpt_edges e;
    CHECK_EQ(fwpt_edges_init(&e, NULL, 0, &fwpt_parallel_resize), FWPT_OK);
    fwpt_cov_set_edges(c, with_edges ? &e : NULL);
    fwpt_cov_set_reader(c, fw_images_read, t->code);
    fwpt_cov_set_error_fn(c, on_error, &o->err_sum);
    struct fwpt_cov_result r;
    const enum fwpt_status st = fwpt_cov_decode(c, t->bytes, t->len, &r);
    fwpt_cov_set_edges(c, NULL);
    memcpy(o->map, map, MAP);
    o->insns = r.insns;
    o->errors = r.errors;
    o->skipped = r.bytes_skipped;
    if (!with_edges) { /* nothing went into e */
        CHECK_EQ(e.n, 0);
        e.n = like->nedges;
        o->edges = malloc((e.n + 1) * sizeof *o->edges);
        memcpy(o->edges, like->edges, e.n * sizeof *o->edges);
        o->nedges = e.n;
        fwpt_edges_free(&e);
        return st;
    }
    o->edges = malloc((e.n + 1) * sizeof *o->edges);
    fwpt_edges_sorted(&e, o->edges);
    o->nedges = e.n;
    fwpt_edges_free(&e);
    return st;
}

struct warm {
    struct fwpt_cov *c;
    uint8_t map[MAP];
    size_t nblocks, npaths;
};

static void warm_new(struct warm *w, size_t nblocks, size_t npaths, struct fw_image_set *code)
{
    w->nblocks = nblocks;
    w->npaths = npaths;
    w->c = malloc(fwpt_cov_size(nblocks, npaths));
    CHECK_EQ(fwpt_cov_init(w->c, nblocks, npaths, fw_images_read, code, w->map, MAP), FWPT_OK);
}

static unsigned long n_decodes, n_diff;

static bool same(const char *what, const char *which, const struct output *a, const struct output *b)
{
    bool eq = a->insns == b->insns && a->errors == b->errors && a->skipped == b->skipped &&
              a->err_sum == b->err_sum && !memcmp(a->map, b->map, MAP) && a->nedges == b->nedges &&
              (!a->nedges || !memcmp(a->edges, b->edges, a->nedges * sizeof *a->edges));
    if (!eq && n_diff++ < 10)
        fprintf(stderr, "%s: %s differs: insns %llu/%llu errors %llu/%llu skipped %llu/%llu edges %zu/%zu map %s\n",
                what, which, (unsigned long long)a->insns, (unsigned long long)b->insns,
                (unsigned long long)a->errors, (unsigned long long)b->errors, (unsigned long long)a->skipped,
                (unsigned long long)b->skipped, a->nedges, b->nedges, memcmp(a->map, b->map, MAP) ? "differs" : "same");
    return eq;
}

/* Trace t through the warm decoder w (after whatever it decoded before), the bitmap alone and then with the edge
 * table: the same as a fresh decoder with w's cache sizes, and as the per-instruction walk. */
static void check_warm(const char *what, struct warm *w, const struct trace *t)
{
    struct output warm, warm_map, fresh, ref;
    struct warm f;
    warm_new(&f, w->nblocks, w->npaths, t->code);
    reference(t, &ref);
    const enum fwpt_status ms = decode(w->c, w->map, t, &warm_map, false, &ref);
    const enum fwpt_status ws = decode(w->c, w->map, t, &warm, true, NULL), fs = decode(f.c, f.map, t, &fresh, true, NULL);
    CHECK_EQ(ws, fs);
    CHECK_EQ(ms, fs);
    CHECK(ws == FWPT_OK || ws == FWPT_E_NOSYNC);
    CHECK(same(what, "warm vs fresh", &warm, &fresh));
    CHECK(same(what, "warm vs fwpt_flow_next", &warm, &ref));
    CHECK(same(what, "warm, the bitmap alone, vs fwpt_flow_next", &warm_map, &ref));
    n_decodes++;
    output_free(&warm), output_free(&warm_map), output_free(&fresh), output_free(&ref);
    free(f.c);
}

/* The offset of a PSB near the middle of the trace (0 when it has only one). */
static size_t middle_psb(const uint8_t *trace, size_t len)
{
    struct fwpt_pkt_decoder d;
    fwpt_pkt_init(&d, trace, len);
    size_t best = 0;
    while (fwpt_pkt_sync_forward(&d) == FWPT_OK) {
        if (d.offset > len / 2)
            return best ? best : d.offset;
        best = d.offset;
    }
    return best;
}

/* Generated programs: each one's trace, its part from a middle PSB and corrupted copies, in turns through one warm
 * decoder (big caches for even seeds, tiny ones for odd: paths evicted and rebuilt across traces). */
TEST(programs_warm_equals_fresh)
{
    static uint8_t bad[2][PKT_STREAM_BYTES * 4];
    uint64_t rng = 0xc0ffee;
    n_decodes = n_diff = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct progen_cfg cfg = {.seed = seed, .max_insns = 15000 + seed * 400,
                                 .features = PROGEN_F_ALL | (seed & 1 ? PROGEN_F_RETC_SDM_POP : 0),
                                 .psb_period = 200 + (unsigned)(seed * 53 % 600), .extra_plain = seed % 3 ? 0 : 40,
                                 .biased = (int)(seed & 2), .no_truth = 1};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct fw_image im = {p.base, p.code, p.code_size, ""};
        struct fw_image_set code = {&im, 1};
        const size_t mid = middle_psb(p.trace, p.trace_size);
        struct trace whole = {p.trace, p.trace_size, &code}, half = {p.trace + mid, p.trace_size - mid, &code};
        struct trace c[2] = {{bad[0], 0, &code}, {bad[1], 0, &code}};
        for (int k = 0; k < 2 && p.trace_size <= sizeof bad[0] / 2; k++)
            c[k].len = pkt_corrupt(&rng, p.trace, p.trace_size, bad[k]);
        struct warm w;
        warm_new(&w, seed & 1 ? 64 : 4096, seed & 1 ? 16 : 1024, &code);
        const struct trace *order[] = {&whole, &half, &c[0], &whole, &c[1], &half, &whole};
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            if (!order[i]->len)
                continue;
            char what[96];
            snprintf(what, sizeof what, "program %llu, decode %zu", (unsigned long long)seed, i);
            check_warm(what, &w, order[i]);
        }
        free(w.c);
        progen_free(&p);
    }
    CHECK(n_decodes >= 150); /* the programs were there to compare */
    CHECK_EQ(n_diff, 0);
}

/* Do the images of a and b hold the same bytes wherever they overlap? */
static bool code_agrees(const struct fw_image_set *a, const struct fw_image_set *b)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            const struct fw_image *x = &a->im[i], *y = &b->im[j];
            uint64_t lo = x->base > y->base ? x->base : y->base;
            uint64_t hi = x->base + x->size < y->base + y->size ? x->base + x->size : y->base + y->size;
            if (lo < hi && memcmp(x->code + (lo - x->base), y->code + (lo - y->base), hi - lo))
                return false;
        }
    return true;
}

/* The firmware traces: each one warm after itself, after a corrupted copy of itself and after every other whose
 * code agrees with its own where they overlap (one boot's images). */
TEST(firmware_warm_equals_fresh)
{
    struct fw_trace *fw;
    int n = fw_traces("cov_warm", &fw);
    CHECK(n >= 0);
    if (n <= 0)
        return; /* fw_traces said why (no FWPT_BENCH_FW: make bench records them), as test_summary_tool does */
    struct fw_image *im[16];
    struct fw_image_set code[16];
    uint8_t *bytes[16];
    size_t len[16];
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++) {
        int nim = fw_images("cov_warm", fw[i].dir, &im[i]);
        CHECK(nim > 0);
        code[i] = (struct fw_image_set){im[i], nim > 0 ? nim : 0};
        char path[4200];
        snprintf(path, sizeof path, "%s/trace.pt", fw[i].dir);
        bytes[i] = (uint8_t *)slurp(path, &len[i]);
        CHECK(bytes[i] && len[i]);
    }
    n_decodes = n_diff = 0;
    unsigned long pairs = 0;
    uint64_t rng = 0xf1f0;
    static uint8_t bad[1 << 20];
    for (int i = 0; i < n; i++) {
        struct trace ti = {bytes[i], len[i], &code[i]};
        for (int big = 0; big < 2; big++) {
            struct warm w;
            warm_new(&w, big ? 1 << 16 : 512, big ? 1 << 14 : 64, &code[i]);
            char what[160];
            snprintf(what, sizeof what, "firmware %s (%s caches)", fw[i].name, big ? "big" : "tiny");
            check_warm(what, &w, &ti);
            check_warm(what, &w, &ti); /* after itself */
            const size_t mid = middle_psb(bytes[i], len[i]);
            struct trace th = {bytes[i] + mid, len[i] - mid, &code[i]};
            if (mid) {
                check_warm(what, &w, &th); /* its part from a PSB in the middle: the same code, another start */
                check_warm(what, &w, &ti);
            }
            if (len[i] <= sizeof bad / 2) {
                struct trace tc = {bad, pkt_corrupt(&rng, bytes[i], len[i], bad), &code[i]};
                check_warm(what, &w, &tc);
                check_warm(what, &w, &ti); /* after its corrupted copy */
            }
            for (int j = 0; j < n; j++) {
                if (j == i || !code_agrees(&code[i], &code[j]))
                    continue;
                struct trace tj = {bytes[j], len[j], &code[j]};
                snprintf(what, sizeof what, "firmware %s after %s (%s caches)", fw[j].name, fw[i].name,
                         big ? "big" : "tiny");
                check_warm(what, &w, &tj);
                check_warm(what, &w, &ti);
                pairs++;
            }
            free(w.c);
        }
    }
    printf("test_cov_warm: %lu firmware decodes compared, %lu of them after another trace's\n", n_decodes, pairs);
    CHECK_EQ(n_diff, 0);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < code[i].n; k++)
            free(im[i][k].code);
        if (code[i].n)
            free(im[i]);
        free(bytes[i]);
    }
    free(fw);
}

/* The calls' edges: sizes refused, a trace without PSB, forget. */
TEST(api_sizes_nosync_forget)
{
    static const uint8_t code[] = {0x90, 0xc3};
    struct fw_image im = {0x1000, (uint8_t *)code, sizeof code, ""};
    struct fw_image_set cs = {&im, 1};
    uint8_t map[MAP];
    CHECK_EQ(fwpt_cov_size(0, 16), 0);
    CHECK_EQ(fwpt_cov_size(3, 16), 0);
    CHECK_EQ(fwpt_cov_size(64, 3), 0);
    CHECK(fwpt_cov_size(64, 0) > 0);
    CHECK(fwpt_cov_size(64, 16) > fwpt_cov_size(64, 0));
    struct fwpt_cov *c = malloc(fwpt_cov_size(64, 16));
    CHECK_EQ(fwpt_cov_init(c, 64, 16, fw_images_read, &cs, map, 3), FWPT_E_INVAL);
    CHECK_EQ(fwpt_cov_init(c, 64, 16, fw_images_read, &cs, NULL, MAP), FWPT_E_INVAL);
    CHECK_EQ(fwpt_cov_init(c, 64, 16, fw_images_read, &cs, map, MAP), FWPT_OK);
    memset(map, 0x5a, MAP);
    static const uint8_t no_psb[] = {0x00, 0x00, 0x00, 0x00};
    struct fwpt_cov_result r = {1, 1, 1};
    CHECK_EQ(fwpt_cov_decode(c, no_psb, sizeof no_psb, &r), FWPT_E_NOSYNC);
    CHECK_EQ(r.insns, 0);
    CHECK_EQ(r.errors, 0);
    size_t changed = 0;
    for (size_t i = 0; i < MAP; i++)
        changed += map[i] != 0x5a;
    CHECK_EQ(changed, 0); /* nothing decoded, nothing added */
    CHECK(fwpt_cov_flow(c) != NULL);
    free(c);

    /* forget: a program's trace, then another program's (other code) after fwpt_cov_forget, as fresh */
    struct progen p[2];
    struct fw_image pim[2];
    struct fw_image_set pcs[2];
    for (int k = 0; k < 2; k++) {
        struct progen_cfg cfg = {.seed = 101 + (uint64_t)k, .max_insns = 8000, .features = PROGEN_F_ALL,
                                 .psb_period = 400, .no_truth = 1};
        CHECK(progen_build_checked(&cfg, &p[k]));
        pim[k] = (struct fw_image){p[k].base, p[k].code, p[k].code_size, ""};
        pcs[k] = (struct fw_image_set){&pim[k], 1};
    }
    struct warm w;
    warm_new(&w, 4096, 1024, &pcs[0]);
    struct trace t0 = {p[0].trace, p[0].trace_size, &pcs[0]}, t1 = {p[1].trace, p[1].trace_size, &pcs[1]};
    check_warm("program 101", &w, &t0);
    fwpt_cov_forget(w.c);
    check_warm("program 102 after forget", &w, &t1);
    CHECK_EQ(n_diff, 0);
    free(w.c);
    progen_free(&p[0]);
    progen_free(&p[1]);
}

/* fwpt flow A B C --coverage F: each trace's bitmap (--coverage-each) is the bitmap fwpt flow writes for it alone;
 * without --coverage-each F is their sum; the options it refuses, and an input that cannot be read. */
static char tool[4096];

static int run(const char *args, char *out, size_t cap)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s flow %s 2>&1", tool, args);
    FILE *p = popen(cmd, "r");
    size_t m = p ? fread(out, 1, cap - 1, p) : 0;
    out[m] = 0;
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(tool_many_traces)
{
    TOOL_FIND_OR_RETURN(tool);
    char tmp[] = "/tmp/fwpt-covwarm-XXXXXX", dir[3][256], args[4096], out[8192], path[512];
    CHECK(mkdtemp(tmp) != NULL);
    struct progen p[2];
    for (int k = 0; k < 2; k++) {
        struct progen_cfg cfg = {.seed = 200 + (uint64_t)k, .max_insns = 12000, .features = PROGEN_F_ALL,
                                 .psb_period = 300, .no_truth = 1};
        CHECK(progen_build_checked(&cfg, &p[k]));
        snprintf(dir[k], sizeof dir[k], "%s/t%d", tmp, k);
        CHECK_EQ(mkdir(dir[k], 0700), 0);
        save_program(dir[k], &p[k]);
    }
    /* the same code as t0 with the trace from a PSB in its middle */
    snprintf(dir[2], sizeof dir[2], "%s/t2", tmp);
    CHECK_EQ(mkdir(dir[2], 0700), 0);
    struct progen half = p[0];
    const size_t mid = middle_psb(p[0].trace, p[0].trace_size);
    half.trace = p[0].trace + mid;
    half.trace_size = p[0].trace_size - mid;
    save_program(dir[2], &half);
    uint8_t *one[3];
    size_t n1[3];
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "%s --coverage %s/one%d.bin --coverage-size 4K", dir[k], tmp, k);
        CHECK_EQ(run(args, out, sizeof out), 0);
        snprintf(path, sizeof path, "%s/one%d.bin", tmp, k);
        one[k] = (uint8_t *)slurp(path, &n1[k]);
        CHECK(one[k] && n1[k] == 4096);
    }
    /* t0, t2 (same code, warm), t1 (other code: caches emptied), t0 */
    snprintf(args, sizeof args, "%s %s %s %s --coverage %s/each.bin --coverage-size 4K --coverage-each", dir[0], dir[2],
             dir[1], dir[0], tmp);
    CHECK_EQ(run(args, out, sizeof out), 0);
    CHECK(strstr(out, "coverage: 4 traces,") != NULL);
    CHECK(strstr(out, "one bitmap per trace, in the order given (16384 bytes); the code changed between traces") != NULL);
    size_t ne = 0;
    snprintf(path, sizeof path, "%s/each.bin", tmp);
    uint8_t *each = (uint8_t *)slurp(path, &ne);
    CHECK_EQ(ne, 4 * 4096);
    const int order[4] = {0, 2, 1, 0};
    for (int i = 0; each && ne == 4 * 4096 && i < 4; i++)
        CHECK(one[order[i]] && !memcmp(each + i * 4096, one[order[i]], 4096));
    /* summed */
    snprintf(args, sizeof args, "%s %s %s --coverage %s/sum.bin --coverage-size 4K -q", dir[0], dir[2], dir[1], tmp);
    CHECK_EQ(run(args, out, sizeof out), 0);
    CHECK(strstr(out, "the bitmaps summed (4096 bytes)") != NULL);
    size_t ns = 0;
    snprintf(path, sizeof path, "%s/sum.bin", tmp);
    uint8_t *sum = (uint8_t *)slurp(path, &ns);
    CHECK_EQ(ns, 4096);
    size_t diff = 0;
    for (size_t i = 0; sum && ns == 4096 && one[0] && one[1] && one[2] && i < 4096; i++)
        diff += sum[i] != (uint8_t)(one[0][i] + one[2][i] + one[1][i]);
    CHECK_EQ(diff, 0);
    /* refused: another view with several traces, --coverage-each alone; an input missing: no file */
    snprintf(args, sizeof args, "%s %s --coverage %s/x.bin --profile", dir[0], dir[1], tmp);
    CHECK_EQ(run(args, out, sizeof out), 2);
    CHECK(strstr(out, "several traces are decoded only for --coverage F") && strstr(out, "not with --profile"));
    snprintf(args, sizeof args, "%s %s", dir[0], dir[1]);
    CHECK_EQ(run(args, out, sizeof out), 2);
    snprintf(args, sizeof args, "%s --coverage-each", dir[0]);
    CHECK_EQ(run(args, out, sizeof out), 2);
    CHECK(strstr(out, "--coverage-each: needs --coverage F") != NULL);
    snprintf(args, sizeof args, "%s %s/none --coverage %s/x.bin", dir[0], tmp, tmp);
    CHECK_EQ(run(args, out, sizeof out), 1);
    CHECK(strstr(out, "input 2 of 2 cannot be decoded: stopped") != NULL);
    snprintf(path, sizeof path, "%s/x.bin", tmp);
    CHECK(access(path, F_OK) != 0);
    free(each), free(sum);
    for (int k = 0; k < 3; k++)
        free(one[k]);
    progen_free(&p[0]);
    progen_free(&p[1]);
    snprintf(args, sizeof args, "rm -rf %s", tmp);
    CHECK_EQ(system(args), 0);
}

TEST_MAIN("cov_warm")
