/* Instructions per second: fwpt's flow decoder against libipt's instruction decoder (pt_insn_next)
 * and block decoder (pt_blk_next) on the same trace and code, in one run: two generated programs, and
 * the real firmware traces of FWPT_BENCH_FW (tests/bench/firmware-traces.sh: OVMF services traced with
 * backend=soft). Every decoder produces every instruction (fwpt's run mode computes each IP). */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "decode/flow.h"
#include "tests/common/fw_traces.h"
#include "tests/common/ipt_blk.h"
#include "tests/common/ipt_insn.h"
#include "tests/common/progen.h"
#include "tests/common/tool_run.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct image {
    uint64_t base;
    const uint8_t *code;
    size_t size;
    char path[4096]; /* the same bytes in a file, for libipt's section cache */
};
/* One bench input: a trace and the code it ran, in one or more images. */
struct input {
    const uint8_t *trace;
    size_t trace_size;
    const struct image *im;
    int nim;
    size_t ntruth; /* instructions executed (ground truth), 0 when unknown */
};
static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct input *in = ctx;
    for (int i = 0; i < in->nim; i++) { /* on block-cache misses only */
        const struct image *im = &in->im[i];
        if (ip >= im->base && ip - im->base < im->size) {
            *bytes = im->code + (ip - im->base);
            return im->size - (ip - im->base);
        }
    }
    return 0;
}

static struct fwpt_flow_block cache[65536];

/* A consumer's loop over fwpt_flow_next, in a function of its own so that its counters live in registers
 * (inside measure() the compiler kept them in memory: a store-to-load chain per instruction that is the
 * harness's cost, not the decoder's) */
static __attribute__((noinline)) void walk_next(struct fwpt_flow *f, uint64_t *n, uint64_t *sum, uint64_t *err)
{
    uint64_t fi = 0, fsum = 0, ferr = 0;
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(f, &ev) == FWPT_OK) {
        if (ev.kind == FWPT_FLOW_INSN) {
            fi++;
            fsum += ev.ip;
        } else if (ev.kind == FWPT_FLOW_ERROR) {
            ferr++;
        }
    }
    *n = fi;
    *sum = fsum;
    *err = ferr;
}

/* Times every decoder over *in (best of 5 each) and prints the rates and ratios; 1 if they disagree. */
/* libipt's instructions: how many and the sum of their IPs */
struct ipt_count {
    uint64_t n, sum;
};
static void ipt_count_insn(void *ctx, const struct pt_insn *insn)
{
    struct ipt_count *c = ctx;
    c->n++;
    c->sum += insn->ip;
}
static void ipt_go_on(void *ctx, int status, uint64_t offset)
{
    (void)ctx, (void)status, (void)offset; /* on from the next PSB */
}

/* A timed round ends: its time since start is kept as this run's and as the best when it is the lowest yet. */
static void round_end(double start, double *run_time, double *best)
{
    double t = now() - start;
    *run_time = t;
    if (t < *best)
        *best = t;
}

static int measure(const struct input *in, int only_fwpt)
{
    /* libipt: the images from files through its section cache (its fast path) */
    struct pt_image_section_cache *isc = pt_iscache_alloc("bench");
    int *isid = malloc(((size_t)in->nim + 1) * sizeof *isid);
    if (!isid) {
        fprintf(stderr, "bench_flow: out of memory for %d images\n", in->nim);
        return 1;
    }
    for (int i = 0; i < in->nim; i++)
        isid[i] = pt_iscache_add_file(isc, in->im[i].path, 0, in->im[i].size, in->im[i].base);
    struct pt_config c;
    pt_config_init(&c);
    c.begin = (uint8_t *)in->trace;
    c.end = (uint8_t *)in->trace + in->trace_size;
    enum { reps = 5 }; /* best of 5 */
    double tr[5][reps]; /* each run's time: flow_next, batch, run, pt_insn, pt_blk */
    struct fwpt_flow *f = malloc(sizeof *f);
    double t0, t_fwpt = 1e9, t_run = 1e9, t_insn = 1e9, t_blk = 1e9, t_batch = 1e9;
    uint64_t fi = 0, fsum = 0, ferr = 0, ri = 0, rsum = 0, li = 0, lsum = 0, bi = 0, bti = 0, btsum = 0;
    for (int rep = 0; rep < reps; rep++) {
    /* fwpt, one instruction per call */
    fi = fsum = ferr = ri = rsum = li = lsum = bi = 0;
    t0 = now();
    if (fwpt_flow_init(f, in->trace, in->trace_size, read_code, (void *)in, cache,
                       sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    struct fwpt_flow_event ev;
    walk_next(f, &fi, &fsum, &ferr);
    round_end(t0, &tr[0][rep], &t_fwpt);

    /* fwpt, batches of decoded instructions */
    t0 = now();
    if (fwpt_flow_init(f, in->trace, in->trace_size, read_code, (void *)in, cache,
                       sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    {
        const struct fwpt_flow_obuf_insn *bv;
        uint32_t bn;
        bti = btsum = 0;
        while (fwpt_flow_next_batch(f, &bv, &bn, &ev) == FWPT_OK) {
            for (uint32_t k = 0; k < bn; k++)
                btsum += bv[k].ip;
            bti += bn;
        }
    }
    round_end(t0, &tr[1][rep], &t_batch);

    /* fwpt, runs (every instruction's IP computed from the sizes) */
    t0 = now();
    if (fwpt_flow_init(f, in->trace, in->trace_size, read_code, (void *)in, cache,
                       sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    struct fwpt_flow_run run;
    while (fwpt_flow_next_run(f, &run, &ev) == FWPT_OK) {
        uint64_t ip = run.ip;
        for (uint32_t k = 0; k < run.n; k++) {
            rsum += ip;
            ip += run.sizes[k];
        }
        ri += run.n;
    }
    round_end(t0, &tr[2][rep], &t_run);

    if (only_fwpt)
        continue;
    /* libipt instruction decoder */
    t0 = now();
    struct pt_insn_decoder *d = pt_insn_alloc_decoder(&c);
    for (int i = 0; i < in->nim; i++)
        pt_image_add_cached(pt_insn_get_image(d), isc, isid[i], NULL);
    struct ipt_count lc = {0, 0};
    ipt_insn_walk_decoder(d, &(struct ipt_insn_sink){.insn = ipt_count_insn, .error = ipt_go_on, .ctx = &lc});
    li += lc.n;
    lsum += lc.sum;
    pt_insn_free_decoder(d);
    round_end(t0, &tr[3][rep], &t_insn);

    /* libipt block decoder */
    t0 = now();
    struct pt_block_decoder *bd = pt_blk_alloc_decoder(&c);
    for (int i = 0; i < in->nim; i++)
        pt_image_add_cached(pt_blk_get_image(bd), isc, isid[i], NULL);
    bi += ipt_blk_count(bd);
    pt_blk_free_decoder(bd);
    round_end(t0, &tr[4][rep], &t_blk);
    }
    pt_iscache_free(isc);
    free(isid);

    if (in->ntruth)
        printf("instructions: truth %zu, fwpt %llu (errors %llu), fwpt runs %llu, libipt insn %llu, libipt block %llu\n",
               in->ntruth, (unsigned long long)fi, (unsigned long long)ferr, (unsigned long long)ri,
               (unsigned long long)li, (unsigned long long)bi);
    else
        printf("instructions: fwpt %llu (errors %llu), fwpt runs %llu, libipt insn %llu, libipt block %llu\n",
               (unsigned long long)fi, (unsigned long long)ferr, (unsigned long long)ri, (unsigned long long)li,
               (unsigned long long)bi);
    printf("checksum of IPs: fwpt %s libipt, runs %s, batches %s\n", fsum == lsum ? "==" : "!=",
           rsum == fsum ? "==" : "!=", btsum == fsum ? "==" : "!=");
    printf("fwpt flow_next:     %8.1f M insn/s (%.3f s)\n", fi / t_fwpt / 1e6, t_fwpt);
    printf("fwpt flow_next_batch:%7.1f M insn/s (%.3f s)\n", bti / t_batch / 1e6, t_batch);
    printf("fwpt flow_next_run: %8.1f M insn/s (%.3f s)\n", ri / t_run / 1e6, t_run);
    if (!only_fwpt) { /* with "fwpt" libipt does not run: no figures for it */
        printf("libipt pt_insn:     %8.1f M insn/s (%.3f s)\n", li / t_insn / 1e6, t_insn);
        printf("libipt pt_blk:      %8.1f M insn/s (%.3f s)\n", bi / t_blk / 1e6, t_blk);
        /* best time against best time; then the lowest and highest ratio of one run's pair (the spread the
         * machine's noise gives a single measurement) */
        static const char *const names[] = {"flow_next / pt_insn:    ", "flow_next / pt_blk:     ",
                                            "flow_next_batch / pt_insn:", "flow_next_batch / pt_blk: ",
                                            "flow_next_run / pt_insn:", "flow_next_run / pt_blk: "};
        static const char *const targets[] = {" (target >= 10)", " (target >= 3)", "", "", "", ""};
        const double best[3] = {t_fwpt, t_batch, t_run}, cnt[3] = {(double)fi, (double)bti, (double)ri};
        for (int k = 0; k < 6; k++) {
            int w = k / 2, lib = 3 + k % 2;
            double lib_n = (double)(lib == 3 ? (li ? li : 1) : (bi ? bi : 1)), lo = 1e30, hi = 0;
            for (int r = 0; r < reps; r++) {
                double x = tr[lib][r] / tr[w][r] * cnt[w] / lib_n;
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            printf("ratio %s %.1fx%s (per run %.1fx..%.1fx)\n", names[k],
                   (lib == 3 ? t_insn : t_blk) / best[w] * cnt[w] / lib_n, targets[k], lo, hi);
        }
    }
    printf("cache: %llu hits, %llu misses\n", (unsigned long long)f->cache_hits, (unsigned long long)f->cache_misses);
    int ok = (!in->ntruth || fi == in->ntruth) && ri == fi && bti == fi && rsum == fsum && btsum == fsum && !ferr &&
             (only_fwpt || (li == fi && bi == fi && fsum == lsum));
    free(f);
    if (!ok)
        printf("MISMATCH between decoders\n");
    return ok ? 0 : 1;
}

/* A generated program (tests/common/progen) of n executed instructions. */
static int bench_one(size_t n, unsigned extra_plain, int biased, int only_fwpt)
{
    struct progen_cfg cfg = {.seed = 42, .nfuncs = 400, .max_insns = n, .no_truth = 1,
                             .features = PROGEN_F_PSB | PROGEN_F_RET_CLOBBER | PROGEN_F_LOOSE_IPC |
                                         PROGEN_F_INTERRUPT, .psb_period = 4096,
                             .extra_plain = extra_plain, .biased = biased};
    struct progen p;
    if (progen_build(&cfg, &p)) {
        fprintf(stderr, "progen failed\n");
        return 1;
    }
    printf("program: %zu bytes of code at 0x%llx, trace %zu bytes, %zu instructions executed\n", p.code_size,
           (unsigned long long)p.base, p.trace_size, p.ntruth);
    struct image im = {p.base, p.code, p.code_size, "/tmp/fwpt-bench-XXXXXX"};
    int fd = mkstemp(im.path);
    if (fd < 0 || write(fd, p.code, p.code_size) != (ssize_t)p.code_size) {
        fprintf(stderr, "bench_flow: cannot write %s\n", im.path);
        return 1;
    }
    close(fd);
    struct input in = {p.trace, p.trace_size, &im, 1, p.ntruth};
    int rc = measure(&in, only_fwpt);
    unlink(im.path);
    progen_free(&p);
    return rc;
}

/* the whole file, NULL if it cannot be read or is empty */
static uint8_t *load_file(const char *path, size_t *size)
{
    uint8_t *d = (uint8_t *)slurp(path, size);
    if (d && !*size) {
        free(d);
        d = NULL;
    }
    return d;
}

/* One firmware trace saved by fwpt (DIR/trace.pt and the images DIR/img-BASE.bin), repeated (whole
 * copies, each from its PSB) until it holds about 10M instructions. */
static int bench_firmware_dir(const char *dir)
{
    struct image *im = NULL;
    int nim = 0, cap = 0, rc = 1;
    uint8_t *one = NULL, *trace = NULL;
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d) {
        fprintf(stderr, "bench_flow: %s: cannot open the directory\n", dir);
        return 1;
    }
    while ((de = readdir(d))) {
        unsigned long long base;
        char tail[8];
        if (sscanf(de->d_name, "img-%llx.%4s", &base, tail) != 2 || strcmp(tail, "bin"))
            continue;
        if (nim == cap) { /* grown: a trace may run code in any number of images */
            struct image *g = realloc(im, (size_t)(cap ? 2 * cap : 64) * sizeof *im);
            if (!g) {
                fprintf(stderr, "bench_flow: %s: out of memory at image %d\n", dir, nim + 1);
                goto out;
            }
            im = g;
            cap = cap ? 2 * cap : 64;
        }
        im[nim].base = base;
        snprintf(im[nim].path, sizeof im[nim].path, "%s/%s", dir, de->d_name);
        if (!(im[nim].code = load_file(im[nim].path, &im[nim].size))) {
            fprintf(stderr, "bench_flow: cannot read %s\n", im[nim].path);
            goto out;
        }
        nim++;
    }
    closedir(d);
    d = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    size_t one_size;
    if (!nim || !(one = load_file(path, &one_size))) {
        fprintf(stderr, "bench_flow: %s: no %s\n", dir, nim ? "trace.pt" : "img-BASE.bin images");
        goto out;
    }
    /* instructions in one copy: how many copies make about 10M */
    struct input in = {one, one_size, im, nim, 0};
    struct fwpt_flow *f = malloc(sizeof *f);
    struct fwpt_flow_event ev;
    size_t n = 0;
    if (fwpt_flow_init(f, one, one_size, read_code, &in, cache, sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    while (fwpt_flow_next(f, &ev) == FWPT_OK)
        n += ev.kind == FWPT_FLOW_INSN;
    free(f);
    size_t copies = n ? 10000000 / n + 1 : 0;
    if (!n || !(trace = malloc(one_size * copies))) {
        fprintf(stderr, "bench_flow: %s: %s\n", path, n ? "out of memory" : "no instructions decoded");
        goto out;
    }
    for (size_t k = 0; k < copies; k++)
        memcpy(trace + k * one_size, one, one_size);
    printf("firmware trace %s: %d images, trace %zu bytes x %zu copies, %zu instructions each\n", dir, nim,
           one_size, copies, n);
    in = (struct input){trace, one_size * copies, im, nim, 0}; /* no ground truth: libipt must agree */
    rc = measure(&in, 0);
out:
    if (d)
        closedir(d);
    while (nim--)
        free((void *)im[nim].code);
    free(im);
    free(one);
    free(trace);
    return rc;
}

/* Every recorded firmware trace (tests/common/fw_traces.h), in name order. */
static int bench_firmware(void)
{
    struct fw_trace *t;
    int n = fw_traces("bench_flow", &t), rc = n < 0;
    for (int i = 0; i < n; i++) {
        printf("--- firmware: %s\n", t[i].name);
        rc |= bench_firmware_dir(t[i].dir);
    }
    free(t);
    return rc;
}

/* bench_flow [N [EXTRA_PLAIN [BIASED [fwpt]]]]; without arguments two programs of 10M executed
 * instructions: random branch outcomes and short blocks (a worst case for every decoder), and
 * compiled-code-like (longer blocks, each branch mostly one way). */
int main(int argc, char **argv)
{
    if (argc > 1) {
        size_t n = strtoull(argv[1], NULL, 0);
        unsigned extra_plain = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
        int biased = argc > 3 ? atoi(argv[3]) : 0;
        return bench_one(n, extra_plain, biased, argc > 4 && !strcmp(argv[4], "fwpt"));
    }
    printf("--- random outcomes, short blocks\n");
    int rc = bench_one(10000000, 0, 0, 0);
    printf("--- compiled-code-like: longer blocks, biased branches\n");
    rc |= bench_one(10000000, 50, 1, 0);
    rc |= bench_firmware();
    return rc;
}
