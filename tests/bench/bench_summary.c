/* The summary walk (analyze/summary) against libipt's block decoder (pt_blk_next) and fwpt's per-instruction
 * walk (fwpt_flow_next): instructions per second (the instructions each walk stands for) on two generated
 * programs and the real firmware traces of FWPT_BENCH_FW (tests/bench/firmware-traces.sh), each repeated to
 * about 20M instructions; then the parallel walk (analyze/parallel_host): the generated programs with 1, 2 and 4
 * threads, the firmware traces repeated to 100M instructions with 1 to 16 threads for --profile, --calls and --edges.
 * `bench_summary jobs [N]`: the threads alone, on the firmware traces repeated to N instructions (default 100M).
 *
 * Figures: one thread's CPU time, best of 5 (the machine is shared); the thread counts in wall time and on N idle
 * cores (measure_jobs), best of 5. The summary walk counts the profile and call tree (profile), the
 * coverage bitmap (cov) or both; the per-instruction walk feeds fwpt_profile_add (profile) or only counts;
 * libipt's block decoder only counts. Each pair must agree on the instruction count.
 *
 * Names: the summary walk with the profile, then the profile (top 40) and the whole call tree printed as JSON lines
 * (to a sink that only counts), without a resolver and with one (tests/common/fake_resolver.h's costly_resolver:
 * a fresh cache each run, a miss costing MISS_NS of CPU time, what a libdwfl lookup costs; docs/performance.md):
 * every node's entry is named once, after the walk. On the traces recorded on the EDK2 DEBUG OVMF the names are real
 * (tests/bench/real_names.h: that build's full-DWARF .debug files matched as `fwpt flow --symbols DIR` matches them,
 * a fresh map each run; reading and matching the files is timed apart, once per run). */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode/flow.h"
#include "render/flow_print.h"
#include "analyze/parallel_host.h"
#include "analyze/summary.h"
#include "render/edge_print.h"
#include "render/profile_print.h"
#include "tests/common/fake_resolver.h"
#include "tests/common/fw_traces.h"
#include "tests/common/ipt_blk.h"
#include "tests/common/prof_mem.h"
#include "tests/common/progen.h"
#include "tests/common/tool_run.h"
#include "tests/bench/real_names.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct input {
    const uint8_t *trace;
    size_t len;
    struct fw_image_set code;
    struct fwpt_modules mods;
    struct fwpt_module *mv; /* one per image */
};
static struct fwpt_flow_block cache[1 << 16];
static struct fwpt_flow_chain paths[1 << 14];
static struct fwpt_flow_chain_cold cold[1 << 14];

/* mods->n modules, 2^16 functions, 2^18 call-tree nodes, 2^19 hash slots; allocated once (grown for more modules) */
static void prof_init(struct prof_mem *m, struct fwpt_modules *mods)
{
    prof_mem_init(m, mods, mods->n, 1 << 16, 1 << 18, 1 << 19);
}

enum { W_INSN, W_INSN_PROF, W_BLK, W_SUM, W_SUM_PROF, W_SUM_COV, W_SUM_BOTH, W_SUM_PRINT, W_SUM_NAMES, W_COUNT };
static const char *const wname[W_COUNT] = {"fwpt flow_next (count only)", "fwpt flow_next + profile",
                                           "libipt pt_blk_next (count only)", "summary (walk only)",
                                           "summary + profile", "summary + coverage", "summary + profile + cov",
                                           "summary + profile, printed", "summary + profile, printed, names"};

#define MISS_NS 2500.0 /* one lookup through libdwfl (tools/symbols_dw.c) on build/fwpt.so: docs/performance.md */
static struct costly_resolver costly;
static const struct real_images *real_cur; /* the DEBUG OVMF trace's images: real names (else the made-up ones) */
static const char *real_symdir;
static struct fwpt_resolver real_res;
static double real_open; /* CPU time of the last reading and matching of the symbol files */
static double print_again, print_again_best = 1e30; /* the printing once more with the same map (libdw's reading done) */
static uint64_t printed_bytes, names_misses, names_hits;
static uint64_t jobs_insns; /* bench_summary jobs [N]: the threads alone, on the firmware traces repeated to N */
static double print_time; /* CPU time of the last printing (W_SUM_PRINT, W_SUM_NAMES) */
static void count_write(void *ctx, const char *p, size_t n)
{
    (void)p;
    *(uint64_t *)ctx += n;
}

/* One walk of the whole trace: instructions it stood for. */
static uint64_t walk(int w, struct input *in, struct prof_mem *pm, struct pt_image_section_cache *isc, int *isid)
{
    static struct fwpt_flow f;
    struct fwpt_flow_event ev;
    uint64_t n = 0;
    in->mods.last = 0;
    if (w == W_INSN || w == W_INSN_PROF) {
        if (fwpt_flow_init(&f, in->trace, in->len, fw_images_read, &in->code, cache,
                           sizeof cache / sizeof cache[0]) != FWPT_OK)
            abort(); /* the bench traces start with a PSB */
        if (w == W_INSN_PROF)
            prof_init(pm, &in->mods);
        while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
            n += ev.kind == FWPT_FLOW_INSN;
            if (w == W_INSN_PROF)
                fwpt_profile_add(&pm->p, &ev);
        }
        return w == W_INSN_PROF ? pm->p.insns : n;
    }
    if (w == W_BLK) {
        struct pt_config c;
        pt_config_init(&c);
        c.begin = (uint8_t *)in->trace;
        c.end = (uint8_t *)in->trace + in->len;
        struct pt_block_decoder *bd = pt_blk_alloc_decoder(&c);
        for (int i = 0; i < in->code.n; i++)
            pt_image_add_cached(pt_blk_get_image(bd), isc, isid[i], NULL);
        n += ipt_blk_count(bd);
        pt_blk_free_decoder(bd);
        return n;
    }
    if (w != W_SUM) {
        /* what fwpt flow -j 1 does: fwpt_parallel_run in this thread */
        bool prof = w == W_SUM_PROF || w == W_SUM_BOTH || w >= W_SUM_PRINT, cv = w == W_SUM_COV || w == W_SUM_BOTH;
        if (prof)
            prof_init(pm, &in->mods);
        struct fwpt_par_setup ps = {.trace = in->trace, .len = in->len, .read = fw_images_read, .read_ctx = &in->code,
                                    .mods = &in->mods, .jobs = 1, .profile = prof, .cov_size = cv ? 1 << 16 : 0};
        struct fwpt_parallel_out po;
        if (fwpt_parallel_run(&ps, &pm->p, &po) != FWPT_OK)
            return 0;
        n = po.insns;
        if (prof && pm->p.insns != n)
            n = 0; /* the profile must count them all */
        fwpt_parallel_out_free(&po);
        if (w >= W_SUM_PRINT) { /* the profile and the whole call tree, named after the walk (W_SUM_NAMES) */
            struct fwpt_resolver res = costly_resolver_init(&costly, &in->mods, MISS_NS);
            const struct fwpt_resolver *r = w != W_SUM_NAMES ? NULL : real_cur ? &real_res : &res;
            struct fwpt_sink o = {count_write, &printed_bytes};
            printed_bytes = 0;
            print_time = cpu_now();
            fwpt_profile_print_jsonl(&pm->p, r, &o, 40);
            fwpt_profile_calltree_print_jsonl(&pm->p, r, &o, UINT32_MAX); /* every node */
            print_time = cpu_now() - print_time;
            if (r == &real_res) { /* again, the files' units read: what the names cost besides libdw's first reading */
                uint64_t keep = printed_bytes;
                print_again = cpu_now();
                fwpt_profile_print_jsonl(&pm->p, r, &o, 40);
                fwpt_profile_calltree_print_jsonl(&pm->p, r, &o, UINT32_MAX);
                print_again = cpu_now() - print_again;
                printed_bytes = keep;
            }
            names_misses = costly.misses;
            names_hits = costly.hits;
        }
        return n;
    }
    /* the walk alone, no counts */
    if (fwpt_flow_init(&f, in->trace, in->len, fw_images_read, &in->code, cache,
                       sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    struct fwpt_sum s;
    fwpt_summary_init(&s, &f, paths, sizeof paths / sizeof paths[0], cold);
    fwpt_summary_configure(&s);
    while (fwpt_summary_walk(&s) == FWPT_OK)
        ;
    return f.n_insns;
}

static int measure(struct input *in)
{
    struct pt_image_section_cache *isc = pt_iscache_alloc("bench");
    int *isid = malloc(((size_t)in->code.n + 1) * sizeof *isid);
    if (!isid) {
        fprintf(stderr, "bench_summary: out of memory\n");
        return 1;
    }
    for (int i = 0; i < in->code.n; i++)
        isid[i] = pt_iscache_add_file(isc, in->code.im[i].path, 0, in->code.im[i].size, in->code.im[i].base);
    static struct prof_mem pm;
    double best[W_COUNT];
    uint64_t cnt[W_COUNT];
    double print_best[2] = {1e30, 1e30};
    print_again_best = 1e30;
    for (int w = 0; w < W_COUNT; w++)
        best[w] = 1e30;
    for (int w = 0; w < W_COUNT; w++) {
        /* without and with names: taken in turns, best of 15 each (the difference is small, the machine shared) */
        const int pair = w == W_SUM_PRINT, reps = pair ? 30 : w == W_SUM_NAMES ? 0 : 5;
        for (int rep = 0; rep < reps; rep++) {
            const int v = pair && (rep & 1) ? W_SUM_NAMES : w;
            struct fwpt_symmap *map = NULL;
            if (v == W_SUM_NAMES && real_cur) { /* a fresh map: its caches empty, its files read apart */
                size_t matched;
                double o = cpu_now();
                map = real_names_open(real_cur, real_symdir, &real_res, &matched);
                real_open = cpu_now() - o;
                if (!map)
                    abort();
            }
            double t = cpu_now();
            cnt[v] = walk(v, in, &pm, isc, isid);
            t = cpu_now() - t;
            fwpt_symmap_free(map);
            best[v] = t < best[v] ? t : best[v];
            if (pair && print_time < print_best[v == W_SUM_NAMES]) {
                print_best[v == W_SUM_NAMES] = print_time;
                if (v == W_SUM_NAMES && real_cur)
                    print_again_best = print_again;
            }
        }
        printf("  %-32s %8.1f M insn/s (%.4f s, %llu instructions)\n", wname[w], (double)cnt[w] / best[w] / 1e6,
               best[w], (unsigned long long)cnt[w]);
    }
    pt_iscache_free(isc);
    free(isid);
    int ok = 1;
    for (int w = 0; w < W_COUNT; w++)
        ok &= cnt[w] == cnt[W_INSN];
    printf("  ratio summary + profile / libipt pt_blk:    %6.1fx (target >= 10 on the firmware traces)\n",
           best[W_BLK] / best[W_SUM_PROF]);
    printf("  ratio summary + coverage / libipt pt_blk:   %6.1fx\n", best[W_BLK] / best[W_SUM_COV]);
    printf("  ratio summary (walk only) / libipt pt_blk:  %6.1fx\n", best[W_BLK] / best[W_SUM]);
    printf("  ratio summary + profile / flow_next + profile: %6.1fx\n", best[W_INSN_PROF] / best[W_SUM_PROF]);
    printf("  ratio summary (walk only) / flow_next (count only): %6.1fx\n", best[W_INSN] / best[W_SUM]);
    printf("  %s names: %.4f s with, %.4f s without: %+.2f%% (target within 3%%); the printing alone %.3f ms with, "
           "%.3f ms without: names add %.2f%% to the walk; %llu nodes, %llu functions, ",
           real_cur ? "real" : "made-up (the views' own cost, not the symbol files': see the DEBUG OVMF traces)",
           best[W_SUM_NAMES], best[W_SUM_PRINT],
           100.0 * (best[W_SUM_NAMES] - best[W_SUM_PRINT]) / best[W_SUM_PRINT], print_best[1] * 1e3,
           print_best[0] * 1e3, 100.0 * (print_best[1] - print_best[0]) / best[W_SUM_PRINT],
           (unsigned long long)pm.p.nnodes, (unsigned long long)pm.p.nfuncs);
    if (real_cur)
        printf("symbol files read and matched in %.2f ms (once per run, apart), the printing with names once more (libdw's "
               "first reading of the units done) %.3f ms, ", real_open * 1e3, print_again_best * 1e3);
    else
        printf("resolver asked %llu times (%llu misses at %.0f ns), ", (unsigned long long)(names_misses + names_hits),
               (unsigned long long)names_misses, MISS_NS);
    printf("%llu bytes printed\n", (unsigned long long)printed_bytes);
    if (!ok)
        printf("MISMATCH between walks\n");
    return ok ? 0 : 1;
}

/* Threads: the whole walk of a trace of n instructions as fwpt flow -j N runs it for one view, then that view
 * printed (to a sink that only counts): J_PROFILE --profile, J_CALLS --calls, J_EDGES --edges, J_BOTH --profile
 * --coverage F, J_COV --coverage F. Wall time, and the time on N idle cores from each thread's CPU time
 * (fwpt_parallel_out's cpu_idle: the cutting, the threads' tables and pieces scheduled as the threads take them,
 * the stitching; plus the printing), each the best of 5; against -j 1, and against the CPU time all threads of the
 * same run took together (this machine's load moves -j 1 by +-20% from run to run). With FWPT_BENCH_GATE=1 (the
 * default) no more threads work at once than there are cores, taking turns in order (fwpt_par_setup's gate): N
 * threads on 2 cores would otherwise each refill its caches after the others ran, which N cores do not. */
static int gate = 1;
enum { J_PROFILE, J_CALLS, J_EDGES, J_BOTH, J_COV };
static const char *const jname[] = {"--profile", "--calls", "--edges", "--profile --coverage", "--coverage"};
static int measure_jobs(struct input *in, uint64_t n, int mode, unsigned max_jobs)
{
    static struct prof_mem pm;
    enum { MAXJ = 8, REPS = 5 };
    int ok = 1;
    const bool profile = mode == J_PROFILE || mode == J_CALLS || mode == J_BOTH;
    double bt[MAXJ], bc[MAXJ], sum[MAXJ], out_t[MAXJ];
    struct fwpt_parallel_out bo[MAXJ];
    unsigned nj = 0, pieces[MAXJ], joined[MAXJ], again[MAXJ];
    for (unsigned jobs = 1; jobs <= max_jobs && nj < MAXJ; jobs *= 2, nj++)
        bt[nj] = bc[nj] = 1e30;
    printf("  threads, %s (%s):\n", jname[mode], gate ? "at most as many at work at once as there are cores" : "all at once");
    /* the thread counts in turns, so that each meets the machine's load of the moment as the others do */
    for (int rep = 0; rep < REPS; rep++)
        for (unsigned i = 0; i < nj; i++) {
            unsigned jobs = 1u << i;
            struct fwpt_parallel_out po;
            prof_init(&pm, &in->mods);
            struct fwpt_par_setup s = {.trace = in->trace, .len = in->len, .read = fw_images_read, .read_ctx = &in->code,
                                       .mods = &in->mods, .jobs = jobs, .profile = profile, .edges = mode == J_EDGES,
                                       .cov_size = mode == J_BOTH || mode == J_COV ? 1 << 16 : 0,
                                       .gate = gate ? fwpt_parallel_cores() : 0};
            double t = wall_now();
            if (fwpt_parallel_run(&s, &pm.p, &po) != FWPT_OK) {
                printf("  fwpt_parallel_run failed\n");
                return 1;
            }
            double tp = cpu_now();
            struct fwpt_sink o = {count_write, &printed_bytes};
            if (mode == J_PROFILE)
                fwpt_profile_print(&pm.p, NULL, &o, 40);
            else if (mode == J_CALLS)
                fwpt_profile_calltree_print(&pm.p, NULL, &o, 32);
            else if (mode == J_EDGES) {
                struct fwpt_edge *v = malloc((po.edges.n + 1) * sizeof *v);
                if (!v)
                    abort();
                fwpt_edges_sorted(&po.edges, v);
                fwpt_edges_print(v, po.edges.n, po.edges.dropped, false, &in->mods, NULL, &o);
                free(v);
            }
            tp = cpu_now() - tp;
            t = wall_now() - t;
            bt[i] = t < bt[i] ? t : bt[i];
            double c = po.cpu_idle + tp;
            if (c < bc[i]) {
                bc[i] = c;
                sum[i] = po.cpu_threads + po.cpu_stitch + po.cpu_split + tp;
                out_t[i] = tp;
                bo[i] = po;
            }
            ok &= po.insns == n && (!profile || pm.p.insns == n);
            pieces[i] = po.pieces;
            joined[i] = po.seams_joined;
            again[i] = po.pieces_again;
            fwpt_parallel_out_free(&po);
        }
    for (unsigned i = 0; i < nj; i++) {
        unsigned jobs = 1u << i;
        printf("  -j %2u: wall %.4f s (%.2fx); on %2u idle cores %.4f s -> %5.2fx; all threads %.4f s (%.0f%% of -j 1), "
               "%5.2fx their own sum; %u pieces, %u joined, %u walked again\n",
               jobs, bt[i], bt[0] / bt[i], jobs, bc[i], bc[0] / bc[i], sum[i], 100.0 * sum[i] / bc[0], sum[i] / bc[i],
               pieces[i], joined[i], again[i]);
        printf("         of it: cutting %.2f ms, tables %.2f ms a thread, costliest piece %.2f ms, stitching %.2f ms "
               "(walked again %.2f, merging %.2f), printing %.2f ms\n",
               bo[i].cpu_split * 1e3, bo[i].cpu_tables / jobs * 1e3, bo[i].cpu_piece_max * 1e3, bo[i].cpu_stitch * 1e3,
               bo[i].cpu_again * 1e3, bo[i].cpu_merge * 1e3, out_t[i] * 1e3);
    }
    if (!ok)
        printf("MISMATCH between thread counts\n");
    return ok ? 0 : 1;
}

/* The same trace n times over (each copy from its PSB), about target instructions. */
static uint8_t *repeat(const uint8_t *one, size_t len, uint64_t insns, uint64_t target, size_t *out)
{
    size_t copies = insns ? (size_t)(target / insns) + 1 : 1;
    uint8_t *t = malloc(len * copies);
    for (size_t k = 0; t && k < copies; k++)
        memcpy(t + k * len, one, len);
    *out = len * copies;
    return t;
}

static uint64_t count_insns(struct input *in)
{
    static struct fwpt_flow f;
    struct fwpt_flow_event ev;
    uint64_t n = 0;
    if (fwpt_flow_init(&f, in->trace, in->len, fw_images_read, &in->code, cache,
                       sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    while (fwpt_flow_next(&f, &ev) == FWPT_OK)
        n += ev.kind == FWPT_FLOW_INSN;
    return n;
}

static int bench_program(size_t n, unsigned extra_plain, int biased)
{
    struct progen_cfg cfg = {.seed = 42, .nfuncs = 400, .max_insns = n, .no_truth = 1,
                             .features = PROGEN_F_PSB | PROGEN_F_RET_CLOBBER | PROGEN_F_LOOSE_IPC | PROGEN_F_INTERRUPT,
                             .psb_period = 4096, .extra_plain = extra_plain, .biased = biased};
    struct progen p;
    if (progen_build(&cfg, &p))
        return 1;
    struct fw_image im = {p.base, p.code, p.code_size, "/tmp/fwpt-bench-sum-XXXXXX"};
    int fd = mkstemp(im.path);
    if (fd < 0 || write(fd, p.code, p.code_size) != (ssize_t)p.code_size)
        return 1;
    close(fd);
    struct fwpt_module mv = {"Prog", p.base, p.code_size, NULL, 0};
    struct input in = {p.trace, p.trace_size, {&im, 1}, {&mv, 1, 0}, &mv};
    printf("program: %zu bytes of code, trace %zu bytes, %zu instructions\n", p.code_size, p.trace_size, p.ntruth);
    int rc = measure(&in);
    rc |= measure_jobs(&in, p.ntruth, J_BOTH, 4);
    rc |= measure_jobs(&in, p.ntruth, J_COV, 4);
    unlink(im.path);
    progen_free(&p);
    return rc;
}

static int bench_firmware_dir(const char *dir, const char *symdir)
{
    static struct real_images real;
    if (symdir && real_images_read(dir, &real) != 0)
        return 1;
    struct fw_image *im;
    int nim = fw_images("bench_summary", dir, &im), rc = 1;
    if (nim < 0) {
        if (symdir)
            real_images_free(&real);
        return 1;
    }
    real_cur = symdir ? &real : NULL;
    real_symdir = symdir;
    static struct input in;
    char path[4200], (*names)[24] = malloc(((size_t)nim + 1) * sizeof *names);
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    size_t len;
    uint8_t *one = (uint8_t *)slurp(path, &len), *all = NULL;
    in = (struct input){one, len, {im, nim}, {0}, malloc(((size_t)nim + 1) * sizeof *in.mv)};
    for (int i = 0; names && in.mv && i < nim; i++) {
        snprintf(names[i], sizeof names[i], "img%d", i);
        for (size_t k = 0; real_cur && k < real.n; k++) /* the trace's own names: printed where no symbol names */
            if (real.v[k].base == im[i].base)
                snprintf(names[i], sizeof names[i], "%s", real.v[k].name);
        in.mv[i] = (struct fwpt_module){names[i], im[i].base, im[i].size, NULL, 0};
    }
    in.mods = (struct fwpt_modules){in.mv, (size_t)nim, 0};
    if (!names || !in.mv)
        fprintf(stderr, "bench_summary: %s: out of memory for %d images\n", dir, nim);
    else if (!one || !len)
        fprintf(stderr, "bench_summary: %s: cannot read it or it is empty\n", path);
    else if (!nim)
        fprintf(stderr, "bench_summary: %s: no img-BASE.bin images\n", dir);
    else {
        uint64_t n1 = count_insns(&in);
        rc = 0;
        if (!jobs_insns) {
            all = repeat(one, len, n1, 20000000, &in.len);
            in.trace = all;
            printf("firmware trace %s: %d images, %zu bytes x %zu copies, %llu instructions each\n", dir, nim, len,
                   in.len / len, (unsigned long long)n1);
            rc = all ? measure(&in) : 1;
            free(all);
        }
        all = repeat(one, len, n1, jobs_insns ? jobs_insns : 100000000, &in.len); /* longer for the threads */
        in.trace = all;
        printf("  threads, %zu copies (%llu instructions, %zu bytes):\n", in.len / len,
               (unsigned long long)(in.len / len * n1), in.len);
        for (int m = J_PROFILE; m <= J_EDGES && !real_cur; m++)
            rc |= all ? measure_jobs(&in, in.len / len * n1, m, 16) : 1;
    }
    free(one);
    free(all);
    while (nim--)
        free(im[nim].code);
    free(im);
    free(names);
    free(in.mv);
    if (real_cur)
        real_images_free(&real);
    real_cur = NULL;
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc > 1 && !strcmp(argv[1], "jobs")) {
        jobs_insns = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000000;
        if (!jobs_insns) {
            fprintf(stderr, "bench_summary: jobs N: N instructions, at least 1\n");
            return 2;
        }
    }
    gate = !getenv("FWPT_BENCH_GATE") || strcmp(getenv("FWPT_BENCH_GATE"), "0");
    if (argc > 1 && (!strcmp(argv[1], "fw") || jobs_insns))
        goto fw;
    printf("--- random outcomes, short blocks (20M instructions)\n");
    rc |= bench_program(20000000, 0, 0);
    printf("--- compiled-code-like: longer blocks, biased branches (20M instructions)\n");
    rc |= bench_program(20000000, 50, 1);
fw:;
    struct fw_trace *t;
    int n = fw_traces("bench_summary", &t);
    rc |= n < 0;
    for (int i = 0; i < n; i++) {
        printf("--- firmware: %s\n", t[i].name);
        rc |= bench_firmware_dir(t[i].dir, NULL);
    }
    if (n > 0)
        free(t);
    const char *dbg, *symdir; /* the DEBUG OVMF's traces, named by its symbol files */
    if (!jobs_insns && real_names_dirs(&dbg, &symdir) == 0) {
        setenv("FWPT_BENCH_FW", dbg, 1);
        n = fw_traces("bench_summary", &t);
        rc |= n <= 0;
        for (int i = 0; i < n; i++) {
            printf("--- firmware, DEBUG OVMF, real names: %s\n", t[i].name);
            rc |= bench_firmware_dir(t[i].dir, symdir);
        }
        if (n > 0)
            free(t);
    }
    return rc;
}
