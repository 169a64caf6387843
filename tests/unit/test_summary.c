/* The summary walk (analyze/summary, sumprof, edges) and its parallel form (analyze/parallel_host) against the
 * per-instruction path: over generated programs (every feature of tests/common/progen, PSBs every few hundred
 * bytes), corrupted copies of their traces and the firmware traces make bench records (FWPT_BENCH_FW, else
 * $FWPT_BUILD/bench/fw when it is there), the profile, the call tree, the folded stacks and the Trace Event
 * Format must be byte-identical to those fwpt_profile_add builds from fwpt_flow_next's instructions and events;
 * the edges must be those its instructions imply (computed here from them), the bitmap the one computed here
 * from those edges, the errors the same events; with 1, 2 and 4 threads and pieces as small as one PSB
 * interval; fwpt_flow_seam_compare against copies of a stopped decoder with one field changed. Tiny profile
 * tables check the losses (dropped) match too; a recursion deeper than the profile's
 * window checks that such pieces are walked again under the frames really open. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/flame.h"
#include "decode/flow.h"
#include "render/flow_print.h"
#include "analyze/parallel_host.h"
#include "tests/check.h"
#include "tests/common/fw_traces.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/prof_mem.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/mem_sink.h"
#include "tests/common/tool_run.h"

/* ---- what both paths print ---- */
struct tables {
    size_t nfuncs, nnodes, nhash;
};
struct output {
    struct mem text;      /* profile, call tree, folded stacks, Trace Event Format, errors */
    struct fwpt_edge *edges;
    size_t nedges;
    uint8_t *cov;
};
static const size_t cov_size = 1 << 12; /* small: counters wrap and edges share slots */

static void prof_init(struct prof_mem *m, struct fwpt_modules *mods, const struct tables *t)
{
    *m = (struct prof_mem){0};
    prof_mem_init(m, mods, mods ? mods->n : 0, t->nfuncs, t->nnodes, t->nhash);
}

static void print_all(struct fwpt_profile *p, struct fwpt_modules *mods, struct mem *m)
{
    prof_text(p, mods, 1000, 1000, m);
    fwpt_printf(&(struct fwpt_sink){mem_write, m}, "insns %lu events %lu dropped %lu nodes %lu funcs %lu depth %u\n",
                (unsigned long)p->insns, (unsigned long)p->events, (unsigned long)p->dropped,
                (unsigned long)p->nnodes, (unsigned long)p->nfuncs, p->depth);
}

static void print_error(struct mem *m, const struct fwpt_flow_event *ev)
{
    struct fwpt_sink o = {mem_write, m};
    fwpt_printf(&o, "error %s ip %lx offset %lu\n", fwpt_status_name((enum fwpt_status)ev->status),
                (unsigned long)ev->ip, (unsigned long)ev->offset);
}

static int cmp_edge(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

struct trace {
    const uint8_t *bytes;
    size_t len;
    struct fw_image_set *code;
    struct fwpt_modules *mods;
};

/* What both paths write beside the walk: the profile, the Chrome trace of its calls and the errors. */
struct run {
    struct prof_mem pm;
    struct mem chrome, errs;
    struct fwpt_sink cs;
    struct fwpt_names names;
    struct fwpt_chrome ch;
};
static void run_begin(struct run *r, const struct trace *t, const struct tables *tb)
{
    prof_init(&r->pm, t->mods, tb);
    r->chrome = r->errs = (struct mem){0};
    r->cs = (struct fwpt_sink){mem_write, &r->chrome};
    r->names = (struct fwpt_names){t->mods, NULL, 0, NULL};
    fwpt_flame_chrome_begin(&r->ch, &r->pm.p, &r->names, &r->cs);
}
/* *o (cleared) gets the text both paths print: errors, profile texts, the Chrome trace, bytes skipped; *r
 * is freed. */
static void run_end(struct run *r, const struct trace *t, uint64_t skipped, struct output *o)
{
    fwpt_flame_chrome_end(&r->ch, &r->pm.p);
    memset(o, 0, sizeof *o);
    if (r->errs.n)
        mem_write(&o->text, r->errs.p, r->errs.n);
    print_all(&r->pm.p, t->mods, &o->text);
    mem_write(&o->text, r->chrome.p ? r->chrome.p : "", r->chrome.n);
    fwpt_printf(&(struct fwpt_sink){mem_write, &o->text}, "skipped %lu\n", (unsigned long)skipped);
    free(r->chrome.p);
    free(r->errs.p);
    prof_mem_free(&r->pm);
}

/* The reference: every instruction and event of fwpt_flow_next into fwpt_profile_add, and the edges they
 * imply (edges.h): from each control transfer, or an interrupt, to where the walk got next. */
static void reference(const struct trace *t, const struct tables *tb, uint64_t runaway, struct output *o)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    static struct run r;
    run_begin(&r, t, tb);
    CHECK_EQ(fwpt_flow_init(&f, t->bytes, t->len, fw_images_read, t->code, cache, 4096), FWPT_OK);
    if (runaway)
        fwpt_flow_set_runaway_limit(&f, runaway);
    size_t cap = 1024, n = 0;
    uint64_t (*e)[2] = malloc(cap * sizeof *e), from = 0;
    int pending = 0;
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        fwpt_profile_add(&r.pm.p, &ev);
        uint64_t to = ev.ip;
        int arrive = 0;
        if (ev.kind == FWPT_FLOW_INSN || ev.kind == FWPT_FLOW_INTERRUPT)
            arrive = pending;
        if (arrive) {
            if (n == cap)
                e = realloc(e, (cap *= 2) * sizeof *e);
            e[n][0] = from;
            e[n][1] = to;
            n++;
        }
        if (ev.kind == FWPT_FLOW_INSN) {
            pending = ev.iclass >= FWPT_IC_JCC && ev.iclass <= FWPT_IC_VMENTRY;
            from = ev.ip;
        } else if (ev.kind == FWPT_FLOW_INTERRUPT) {
            pending = 1;
            from = ev.ip;
        } else if (ev.kind == FWPT_FLOW_ENABLED || ev.kind == FWPT_FLOW_DISABLED || ev.kind == FWPT_FLOW_OVERFLOW ||
                   ev.kind == FWPT_FLOW_ERROR) {
            pending = 0;
        }
        if (ev.kind == FWPT_FLOW_ERROR)
            print_error(&r.errs, &ev);
    }
    run_end(&r, t, fwpt_flow_bytes_skipped(&f), o);
    /* the edge list and the bitmap from the occurrences */
    o->cov = calloc(1, cov_size);
    for (size_t i = 0; i < n; i++)
        o->cov[((fwpt_cov_hash(e[i][0]) >> 1) ^ fwpt_cov_hash(e[i][1])) & (cov_size - 1)]++;
    qsort(e, n, sizeof *e, cmp_edge);
    o->edges = malloc((n + 1) * sizeof *o->edges);
    for (size_t i = 0; i < n; i++) {
        if (o->nedges && o->edges[o->nedges - 1].from == e[i][0] && o->edges[o->nedges - 1].to == e[i][1]) {
            o->edges[o->nedges - 1].count++;
            continue;
        }
        o->edges[o->nedges++] = (struct fwpt_edge){e[i][0], e[i][1], 1};
    }
    free(e);
}

static unsigned long pieces_total, joined_total, again_total;
static unsigned last_pieces; /* of the last summary() */

/* The summary path, jobs threads, pieces of at least piece_bytes. */
static unsigned long valid_seams, valid_joined;
static bool counting_valid;

static int summary(const struct trace *t, const struct tables *tb, unsigned jobs, size_t piece_bytes, unsigned gate,
                   uint64_t runaway, struct output *o)
{
    static struct run r;
    run_begin(&r, t, tb);
    struct fwpt_par_setup s = {.trace = t->bytes, .len = t->len, .read = fw_images_read, .read_ctx = t->code,
                               .mods = t->mods, .jobs = jobs, .piece_bytes = piece_bytes, .profile = true,
                               .edges = true, .cov_size = cov_size, .runaway_limit = runaway, .gate = gate};
    struct fwpt_parallel_out po;
    if (fwpt_parallel_run(&s, &r.pm.p, &po) != FWPT_OK)
        return -1;
    for (size_t i = 0; i < po.nerrors; i++)
        print_error(&r.errs, &po.errors[i]);
    run_end(&r, t, po.bytes_skipped, o);
    o->edges = malloc((po.edges.n + 1) * sizeof *o->edges);
    fwpt_edges_sorted(&po.edges, o->edges);
    o->nedges = po.edges.n;
    o->cov = po.cov;
    po.cov = NULL;
    pieces_total += po.pieces;
    last_pieces = po.pieces;
    joined_total += po.seams_joined;
    again_total += po.pieces_again;
    if (counting_valid) {
        valid_seams += po.pieces ? po.pieces - 1 : 0;
        valid_joined += po.seams_joined;
    }
    fwpt_parallel_out_free(&po);
    return 0;
}

static void output_free(struct output *o)
{
    free(o->text.p);
    free(o->edges);
    free(o->cov);
}

static unsigned long n_compared, n_text_diff, n_edge_diff, n_cov_diff;

/* Where two texts first differ, for the log. */
static void show_diff(const char *what, const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    size_t from = i > 80 ? i - 80 : 0;
    fprintf(stderr, "%s: first difference at %zu:\n  per-instruction: %.160s\n  summary:         %.160s\n", what, i,
            a + from, b + from);
}

static bool compare(const char *what, const struct output *ref, const struct output *got)
{
    bool text = ref->text.n == got->text.n && !memcmp(ref->text.p, got->text.p, ref->text.n);
    bool edges = ref->nedges == got->nedges && !memcmp(ref->edges, got->edges, ref->nedges * sizeof *ref->edges);
    bool cov = !memcmp(ref->cov, got->cov, cov_size);
    n_compared++;
    n_text_diff += !text;
    n_edge_diff += !edges;
    n_cov_diff += !cov;
    if (!text && n_text_diff <= 3)
        show_diff(what, ref->text.p, got->text.p);
    if (!edges && n_edge_diff <= 3)
        fprintf(stderr, "%s: edges differ (%zu per instruction, %zu summary)\n", what, ref->nedges, got->nedges);
    CHECK(text);
    CHECK(edges);
    CHECK(cov);
    return text && edges && cov;
}

struct way {
    unsigned jobs;
    size_t piece;
    unsigned gate; /* threads at work at once (0: all) */
};

/* The trace through the ways given: threads and pieces of at least so many bytes. */
static void check_trace_ways(const char *what, const struct trace *t, const struct tables *tb, uint64_t runaway,
                             const struct way *ways, size_t nways)
{
    struct output ref, got;
    reference(t, tb, runaway, &ref);
    for (size_t w = 0; w < nways; w++) {
        char name[256];
        snprintf(name, sizeof name, "%s -j %u piece %zu gate %u", what, ways[w].jobs, ways[w].piece, ways[w].gate);
        if (summary(t, tb, ways[w].jobs, ways[w].piece, ways[w].gate, runaway, &got) != 0) {
            CHECK(!"fwpt_parallel_run");
            continue;
        }
        compare(name, &ref, &got);
        output_free(&got);
    }
    output_free(&ref);
}

/* One thread, 2 and 4 threads with pieces from one PSB on. */
static void check_trace(const char *what, const struct trace *t, const struct tables *tb, uint64_t runaway)
{
    static const struct way ways[] = {{1, 0, 0}, {2, 1, 0}, {4, 1, 0}, {4, 256, 0}};
    check_trace_ways(what, t, tb, runaway, ways, sizeof ways / sizeof ways[0]);
}

static const struct tables big = {1 << 12, 1 << 14, 1 << 15}, tiny = {16, 24, 64};

/* The counts of the case that ran (the log's line), then zero for the next. */
static void stats(const char *what)
{
    printf("summary: %s: %lu comparisons (%lu text, %lu edge, %lu bitmap differences); %lu pieces, %lu seams joined, "
           "%lu pieces walked again; valid programs: %lu seams, %lu joined\n",
           what, n_compared, n_text_diff, n_edge_diff, n_cov_diff, pieces_total, joined_total, again_total,
           valid_seams, valid_joined);
    n_compared = n_text_diff = n_edge_diff = n_cov_diff = 0;
    pieces_total = joined_total = again_total = valid_seams = valid_joined = 0;
}

/* Modules over the program: three of its parts, a gap between two, and nothing past them. */
static void program_modules(const struct progen *p, struct fwpt_module *mv, struct fwpt_modules *mods)
{
    uint64_t q = p->code_size / 4;
    mv[0] = (struct fwpt_module){"A", p->base, q, NULL, 0};
    mv[1] = (struct fwpt_module){"B", p->base + q, q > 64 ? q - 64 : q / 2, NULL, 0};
    mv[2] = (struct fwpt_module){"C", p->base + 2 * q, q, NULL, 0};
    *mods = (struct fwpt_modules){mv, 3, 0};
}

/* 40 generated programs (every feature; PSBs every 128 to 827 bytes; every fifth with tiny profile tables) and 3
 * corrupted copies of each trace; every seam of a valid trace joins */
TEST(programs_and_corrupted_copies_every_way)
{
    static uint8_t bad[PKT_STREAM_BYTES * 4];
    uint64_t rng = 0x5eed;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct progen_cfg cfg = {.seed = seed, .max_insns = 20000 + seed * 500,
                                 .features = PROGEN_F_ALL | (seed & 1 ? PROGEN_F_RETC_SDM_POP : 0),
                                 .psb_period = 128 + (unsigned)(seed * 37 % 700), .extra_plain = seed % 3 ? 0 : 40,
                                 .biased = (int)(seed & 2), .no_truth = 1};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct fw_image im = {p.base, p.code, p.code_size, ""};
        struct fw_image_set code = {&im, 1};
        struct fwpt_module mv[3];
        struct fwpt_modules mods;
        program_modules(&p, mv, &mods);
        struct trace t = {p.trace, p.trace_size, &code, &mods};
        char what[64];
        snprintf(what, sizeof what, "program %llu", (unsigned long long)seed);
        counting_valid = true;
        check_trace(what, &t, seed % 5 ? &big : &tiny, 0);
        counting_valid = false;
        /* corrupted copies */
        for (int k = 0; k < 3 && p.trace_size <= sizeof bad / 2; k++) {
            size_t n = pkt_corrupt(&rng, p.trace, p.trace_size, bad);
            struct trace tb = {bad, n, &code, &mods};
            snprintf(what, sizeof what, "program %llu corrupted %d", (unsigned long long)seed, k);
            check_trace(what, &tb, &big, 0);
        }
        progen_free(&p);
    }
    CHECK_EQ(valid_joined, valid_seams); /* every seam of a valid trace joins */
    stats("programs");
}

/* A recursion deeper than the profile's window (FWPT_PROFILE_DEPTH), across PSBs: f: call g; g: jz f (taken).
 * One walk drops the outermost frames as fwpt_profile_add does; pieces cannot know how deep they start, so
 * they are walked again under the frames open by then. */
TEST(deep_recursion_pieces_walked_again)
{
    static uint8_t code[64], trace[16384];
    const uint64_t base = 0x40000;
    static const uint8_t prog[] = {0xe8, 0x03, 0x00, 0x00, 0x00, 0x90, 0x90, 0x90, /* call base+8 */
                                   0x74, 0xf6};                                    /* jz base */
    memcpy(code, prog, sizeof prog);
    struct pt_config c;
    pt_config_init(&c);
    c.begin = trace;
    c.end = trace + sizeof trace;
    struct pt_encoder *enc = pt_alloc_encoder(&c);
    struct pt_packet pk;
    for (int k = 0; k < 10; k++) {
        memset(&pk, 0, sizeof pk);
        pk.type = ppt_psb;
        pt_enc_next(enc, &pk);
        pk.type = ppt_mode;
        pk.payload.mode.leaf = pt_mol_exec;
        pk.payload.mode.bits.exec.csl = 1;
        pt_enc_next(enc, &pk);
        if (k == 0) {
            memset(&pk, 0, sizeof pk);
            pk.type = ppt_fup;
            pk.payload.ip.ipc = pt_ipc_sext_48;
            pk.payload.ip.ip = base;
            pt_enc_next(enc, &pk);
        }
        memset(&pk, 0, sizeof pk);
        pk.type = ppt_psbend;
        pt_enc_next(enc, &pk);
        for (int i = 0; i < 60; i++) {
            memset(&pk, 0, sizeof pk);
            pk.type = ppt_tnt_8;
            pk.payload.tnt.bit_size = 6;
            pk.payload.tnt.payload = 0x3f;
            pt_enc_next(enc, &pk);
        }
    }
    uint64_t len = 0;
    pt_enc_get_offset(enc, &len);
    pt_free_encoder(enc);
    struct fw_image im = {base, code, sizeof code, ""};
    struct fw_image_set cd = {&im, 1};
    struct trace t = {trace, len, &cd, NULL};
    unsigned long again = again_total;
    check_trace("deep recursion", &t, &big, 0);
    CHECK(again_total > again); /* pieces whose frames went past the window were walked again */
    stats("deep recursion");
}

/* The merge stressed: programs of 3000 functions (large call trees in every piece), PSBs every 128 to 200
 * bytes, cut into as many pieces as 16, 64 and 256 threads ask (4 a thread, from one PSB on) and into pieces of a
 * few KiB; the pieces are stitched in order while the other threads still walk theirs. The last program has profile
 * tables too small for a piece's tree: its pieces are walked again, in order, by the thread stitching. */
TEST(merge_stress_many_pieces)
{
    static const struct way ways[] = {{1, 0, 0}, {16, 1, 0}, {64, 1, 0}, {256, 1, 0}, {7, 4096, 0}, {16, 1, 2}};
    for (uint64_t seed = 101; seed <= 103; seed++) {
        struct progen_cfg cfg = {.seed = seed, .nfuncs = 3000, .max_insns = 400000,
                                 .features = PROGEN_F_ALL | (seed & 1 ? PROGEN_F_RETC_SDM_POP : 0),
                                 .psb_period = 128 + (unsigned)(seed % 3) * 36, .no_truth = 1};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct fw_image im = {p.base, p.code, p.code_size, ""};
        struct fw_image_set code = {&im, 1};
        struct fwpt_module mv[3];
        struct fwpt_modules mods;
        program_modules(&p, mv, &mods);
        struct trace t = {p.trace, p.trace_size, &code, &mods};
        char what[64];
        snprintf(what, sizeof what, "program %llu, 3000 functions", (unsigned long long)seed);
        counting_valid = true;
        const struct tables *tb = seed == 103 ? &tiny : &big;
        unsigned long again = again_total;
        check_trace_ways(what, &t, tb, 0, ways, 4); /* the last way: 256 threads */
        CHECK_EQ(last_pieces, 1024);                 /* 4 a thread: the trace holds more PSBs than that */
        check_trace_ways(what, &t, tb, 0, ways + 4, 2); /* 4 KiB pieces; 16 threads, 2 at work at once */
        CHECK(seed != 103 || again_total > again + 500); /* most of the 1 + 16 + 64 + 256 + 1024 pieces */
        counting_valid = false;
        progen_free(&p);
    }
    CHECK_EQ(valid_joined, valid_seams);
    CHECK(pieces_total >= 3 * (1 + 64 + 256 + 1024));
    stats("merge stress");
}

/* fwpt_flow_seam_compare itself: a decoder stopped by stop_at against copies of itself with one thing changed. */
TEST(seam_compare_one_field_changed)
{
    struct progen_cfg cfg = {.seed = 7, .max_insns = 20000, .features = PROGEN_F_ALL, .psb_period = 300,
                             .no_truth = 1};
    struct progen p;
    if (!progen_build_checked(&cfg, &p))
        return;
    struct fw_image im = {p.base, p.code, p.code_size, ""};
    struct fw_image_set code = {&im, 1};
    static struct fwpt_flow f, g;
    static struct fwpt_flow_block cache[4096];
    static struct fwpt_flow_chain paths[256];
    static struct fwpt_flow_chain_cold cold[256];
    unsigned stops = 0, with_stack = 0;
    for (uint64_t at = 100; at < p.trace_size; at += p.trace_size / 16) {
        CHECK_EQ(fwpt_flow_init(&f, p.trace, p.trace_size, fw_images_read, &code, cache, 4096), FWPT_OK);
        struct fwpt_sum s;
        fwpt_summary_init(&s, &f, paths, 256, cold);
        s.stop_at = at;
        fwpt_summary_configure(&s);
        if (fwpt_summary_walk(&s) != FWPT_OK)
            continue;
        stops++;
        CHECK(f.resolve_pending && f.have_peek && f.peek.offset >= at && !f.tnt_count);
        g = f;
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_SAME);
        g.mode = g.mode == FWPT_MODE_64 ? FWPT_MODE_32 : FWPT_MODE_64;
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_DIFFERENT);
        g = f;
        g.last_target++;
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_DIFFERENT);
        g = f;
        g.pkt.last_ip ^= 1;
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_DIFFERENT);
        g = f;
        g.pend_pip = 1;
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_DIFFERENT);
        g = f;
        g.ip ^= 1; /* the pending block's start: left out */
        CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_SAME);
        if (f.retstack_n) {
            with_stack++;
            g = f;
            g.retstack_n--; /* the fresh decoder holds fewer, the newest */
            CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_SAME_STACK_TOP);
            CHECK_EQ(fwpt_flow_seam_compare(&g, &f), FWPT_FLOW_SEAM_DIFFERENT); /* more than the other: no */
            g = f;
            g.retstack[(g.retstack_top - 1) % FWPT_FLOW_RETSTACK]++;
            CHECK_EQ(fwpt_flow_seam_compare(&f, &g), FWPT_FLOW_SEAM_DIFFERENT);
        }
    }
    CHECK(stops >= 8);
    CHECK(with_stack >= 1);
    progen_free(&p);
}

/* A walk that counts nothing but records (no profile, no edges, no bitmap) takes the same records and errors as
 * one that counts the bitmap: the records it adds to blocks without looking at them are those the other counts. */
TEST(walk_only_counts_the_same_records)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    static struct fwpt_flow_chain paths[256];
    static struct fwpt_flow_chain_cold cold[256];
    static uint8_t cov[1 << 12];
    for (uint64_t seed = 3; seed <= 6; seed++) {
        struct progen_cfg cfg = {.seed = seed, .max_insns = 20000, .features = PROGEN_F_ALL, .psb_period = 300,
                                 .no_truth = 1};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct fw_image im = {p.base, p.code, p.code_size, ""};
        struct fw_image_set code = {&im, 1};
        uint64_t blocks[2], errors[2], lookups[2];
        for (int counted = 0; counted < 2; counted++) {
            CHECK_EQ(fwpt_flow_init(&f, p.trace, p.trace_size, fw_images_read, &code, cache, 4096), FWPT_OK);
            struct fwpt_sum s;
            fwpt_summary_init(&s, &f, paths, 256, cold);
            if (counted) {
                s.cov = cov;
                s.cov_mask = sizeof cov - 1;
            }
            fwpt_summary_configure(&s);
            CHECK_EQ(fwpt_summary_walk(&s), FWPT_E_EOS);
            fwpt_summary_flush(&s);
            blocks[counted] = s.blocks;
            errors[counted] = s.errors;
            lookups[counted] = s.path_hits + s.path_misses;
        }
        CHECK(blocks[0] > 100 && lookups[0] > 0);
        CHECK_EQ(blocks[0], blocks[1]);
        CHECK_EQ(errors[0], errors[1]);
        CHECK_EQ(lookups[0], lookups[1]);
        progen_free(&p);
    }
}

/* The firmware traces: each image a module, the trace as it is and repeated (PSBs in the middle of calls). */
TEST(firmware_traces_three_copies)
{
    struct fw_trace *fw;
    int n = fw_traces("summary", &fw);
    CHECK(n >= 0);
    for (int i = 0; i < n; i++) {
        struct fw_image *im;
        size_t len = 0;
        int nim = fw_images("summary", fw[i].dir, &im);
        CHECK(nim > 0);
        if (nim <= 0)
            continue;
        struct fwpt_module *mv = malloc((size_t)nim * sizeof *mv);
        char (*names)[32] = malloc((size_t)nim * sizeof *names);
        CHECK(mv && names);
        for (int k = 0; mv && names && k < nim; k++) {
            snprintf(names[k], sizeof names[k], "M%d", k);
            mv[k] = (struct fwpt_module){names[k], im[k].base, im[k].size, NULL, 0};
        }
        struct fwpt_modules mods = {mv, (size_t)nim, 0};
        struct fw_image_set code = {im, nim};
        char path[4200];
        snprintf(path, sizeof path, "%s/trace.pt", fw[i].dir);
        uint8_t *one = (uint8_t *)slurp(path, &len);
        CHECK(one && len);
        if (one && len && mv && names) {
            uint8_t *rep = malloc(len * 3);
            for (int k = 0; k < 3; k++)
                memcpy(rep + k * len, one, len);
            struct trace t = {rep, len * 3, &code, &mods};
            char what[128];
            snprintf(what, sizeof what, "firmware %s (3 copies)", fw[i].name);
            check_trace(what, &t, &big, 0);
            free(rep);
        }
        free(one);
        for (int k = 0; k < nim; k++)
            free(im[k].code);
        free(im);
        free(mv);
        free(names);
    }
    free(fw);
    stats("firmware");
}

TEST_MAIN("summary")
