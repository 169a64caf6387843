/* fwpt against its peers, side by side in one process: fwpt's summary walk with an AFL-style coverage bitmap
 * (what `fwpt flow -j 1 --coverage F` runs: fwpt_parallel_run, one thread), fresh each run, and fwpt's coverage
 * decoder kept warm across runs (fwpt/coverage.h: what `fwpt flow A B ... --coverage F` runs), libxdc's fuzzing mode (the bitmap,
 * github nyx-fuzz/libxdc) with a fresh decoder per run and with one decoder kept warm across runs (as a fuzzer
 * keeps it), and libipt's block decoder (pt_blk_next, counting instructions), on the same trace bytes and code.
 *
 * Inputs: libxdc's own test traces (LIBXDC_DATA=DIR: the test_data/ directory of nyx-fuzz/libxdc_experiments;
 * user-space programs recorded with KVM-PT, their code as page dumps: tests/common/page_dump.h) and the firmware
 * traces make bench records (FWPT_BENCH_FW, default build/bench/fw). Each trace is repeated to at least 10 M
 * instructions (every copy starts at its PSB). Figures: CPU time of the decode loop (this thread's clock), best of
 * FWPT_PEERS_RUNS (default 7); instructions per second from the instructions fwpt and libipt count (libxdc counts
 * none: its rate is the same instructions over its time). Ratios are fwpt's speed over the peer's (above 1: fwpt
 * faster). "one copy" is the trace as recorded, decoded once by a fresh decoder.
 *
 * Checks (exit status 1, with a line saying which): fwpt and libipt count the same instructions on the repeated
 * trace (copies x one copy's); every libxdc decode returns success and the same bitmap hash, fresh or warm, and on
 * one copy of a libxdc test trace the hash libxdc_experiments' run_regression_tests.sh expects; fwpt's bitmap is
 * the same every run. A firmware trace recorded with RET compression is not one libxdc decodes: its failure is
 * printed in place of its figures, not counted as the bench's. libxdc is linked only when built with FWPT_PEERS_LIBXDC (tests/bench_peers.mk, from
 * LIBXDC_SRC); without it, or without LIBXDC_DATA, the bench says NOT RUN for what is missing and runs the rest. */
#include <intel-pt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/coverage.h"
#include "analyze/parallel_host.h"
#include "analyze/profile.h"
#include "tests/common/fw_traces.h"
#include "tests/common/ipt_blk.h"
#include "tests/common/page_dump.h"
#include "tests/common/tool_run.h"

#ifdef FWPT_PEERS_LIBXDC
#include <libxdc.h>
#endif

#define TARGET_INSNS 10000000ull
#define COV_SIZE 0x10000u /* AFL's map, the size libxdc's tests use */

static int runs = 7;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One libipt image section: a file's bytes at an address. */
struct section {
    const char *path;
    uint64_t offset, size, vaddr;
};

struct peer_input {
    char name[80];
    uint8_t *one;        /* one copy as recorded */
    size_t one_len;
    struct page_dump code; /* page-aligned runs: fwpt's reads and libxdc's page fetches */
    struct section *sect;
    size_t nsect;
    uint64_t filter[4][2]; /* libxdc's IP ranges (the recording's filter) */
    bool retc;             /* recorded with RET compression, which libxdc does not decode: its failure is reported */
    uint64_t xdc_hash;     /* the bitmap hash libxdc must give for one copy (0: none known) */
};

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    return h;
}

/* ---- fwpt: the summary walk with the bitmap, one thread ---- */
static int fwpt_cov(const struct peer_input *in, const uint8_t *trace, size_t len, uint64_t *insns, uint64_t *hash,
                    uint64_t *errors)
{
    static struct fwpt_profile unused;
    struct fwpt_par_setup s = {.trace = trace, .len = len, .read = page_dump_read, .read_ctx = (void *)&in->code,
                               .jobs = 1, .cov_size = COV_SIZE};
    struct fwpt_parallel_out po;
    if (fwpt_parallel_run(&s, &unused, &po) != FWPT_OK) {
        fwpt_parallel_out_free(&po);
        return -1;
    }
    *insns = po.insns;
    *hash = fnv(po.cov, COV_SIZE);
    *errors = po.nerrors;
    fwpt_parallel_out_free(&po);
    return 0;
}

/* ---- fwpt: the summary walk with the profile and the call tree (every call and return), one thread: what
 * `fwpt flow --profile` and `--calls` count (the tables as large as the tool's) ---- */
#define PROF_FUNCS (1u << 16)
#define PROF_NODES (1u << 18)
#define PROF_HASH (1u << 19)
static int fwpt_prof(const struct peer_input *in, const uint8_t *trace, size_t len, uint64_t *insns, uint64_t *nodes)
{
    static struct fwpt_profile_func funcs[PROF_FUNCS];
    static struct fwpt_profile_node tree[PROF_NODES];
    static uint32_t hash[PROF_HASH];
    static uint64_t mod_insns[1];
    static struct fwpt_profile *p;
    if (!p && !(p = malloc(fwpt_profile_size())))
        return -1;
    fwpt_profile_init(p, NULL, mod_insns, funcs, PROF_FUNCS, tree, PROF_NODES, hash, PROF_HASH);
    struct fwpt_par_setup s = {.trace = trace, .len = len, .read = page_dump_read, .read_ctx = (void *)&in->code,
                               .jobs = 1, .profile = true};
    struct fwpt_parallel_out po;
    enum fwpt_status st = fwpt_parallel_run(&s, p, &po);
    uint64_t dropped = 0;
    *insns = po.insns;
    fwpt_profile_insns(p, &dropped);
    *nodes = p->nnodes;
    fwpt_parallel_out_free(&po);
    return st != FWPT_OK || dropped ? -1 : 0;
}

/* ---- fwpt warm: one coverage decoder (fwpt/coverage.h) kept across runs after one untimed run, the bitmap reset
 * per run (in the time, as libxdc's warm runs reset theirs); the same caches as fwpt_parallel_run's ---- */
static int fwpt_warm(const struct peer_input *in, const uint8_t *trace, size_t len, double *best, uint64_t *insns,
                     uint64_t *hash)
{
    static uint8_t map[COV_SIZE];
    struct fwpt_cov *c = malloc(fwpt_cov_size(1 << 16, 1 << 14));
    struct fwpt_cov_result r;
    if (!c || fwpt_cov_init(c, 1 << 16, 1 << 14, page_dump_read, (void *)&in->code, map, COV_SIZE) != FWPT_OK ||
        fwpt_cov_decode(c, trace, len, &r) != FWPT_OK) {
        free(c);
        return -1;
    }
    *best = 1e30;
    for (int k = 0; k < runs; k++) {
        double t = cpu_now();
        memset(map, 0, COV_SIZE);
        enum fwpt_status st = fwpt_cov_decode(c, trace, len, &r);
        t = cpu_now() - t;
        *best = t < *best ? t : *best;
        if (st != FWPT_OK) {
            free(c);
            return -1;
        }
        const uint64_t h = fnv(map, COV_SIZE);
        if ((k && h != *hash) || (k && r.insns != *insns)) {
            free(c);
            return -2;
        }
        *hash = h;
        *insns = r.insns;
    }
    free(c);
    return 0;
}

/* ---- libipt: pt_blk_next over the same sections ---- */
static uint64_t ipt_count(const struct peer_input *in, const uint8_t *trace, size_t len,
                          struct pt_image_section_cache *isc, const int *isid)
{
    struct pt_config c;
    pt_config_init(&c);
    c.begin = (uint8_t *)trace;
    c.end = (uint8_t *)trace + len;
    struct pt_block_decoder *bd = pt_blk_alloc_decoder(&c);
    if (!bd)
        return UINT64_MAX;
    for (size_t i = 0; i < in->nsect; i++)
        pt_image_add_cached(pt_blk_get_image(bd), isc, isid[i], NULL);
    uint64_t n = ipt_blk_count(bd);
    pt_blk_free_decoder(bd);
    return n;
}

#ifdef FWPT_PEERS_LIBXDC
/* libxdc's page fetch: the page's bytes from the same runs fwpt reads. */
static void *xdc_fetch(void *ctx, uint64_t page, bool *success)
{
    const uint8_t *b;
    size_t n = page_dump_read(ctx, page & ~(uint64_t)(PAGE_DUMP_PAGE - 1), &b);
    *success = n >= PAGE_DUMP_PAGE;
    return *success ? (void *)b : NULL;
}
#endif

struct result {
    int xdc_failed;        /* libxdc's decoder result on a trace with compressed returns (0: it decoded it) */
    uint64_t insns;
    double fwpt, fwpt_warm, xdc_fresh, xdc_warm, ipt; /* best CPU seconds (0: not run) */
    double fwpt_prof;      /* the profile and call tree (best CPU seconds) */
    double one_fwpt, one_xdc;              /* one copy, fresh */
    double one_fwpt_warm, one_xdc_warm;    /* one copy, warm (a fuzzer's run) */
    uint64_t one_xdc_hash;                 /* libxdc_bitmap_get_hash after one copy */
};

/* Every figure for one trace of 'copies' copies (trace: the copies, with 16 bytes of slack after len). */
static int measure(struct peer_input *in, uint8_t *trace, size_t len, struct result *r, bool one)
{
    int bad = 0;
    uint64_t ins = 0, hash = 0, errs = 0, hash0 = 0;
    double best = 1e30;
    for (int k = 0; k < (one ? 1 : runs); k++) {
        double t = cpu_now();
        if (fwpt_cov(in, trace, len, &ins, &hash, &errs)) {
            printf("  %s: fwpt_parallel_run failed\n", in->name);
            return 1;
        }
        t = cpu_now() - t;
        best = t < best ? t : best;
        if (k == 0)
            hash0 = hash;
        else if (hash != hash0) {
            printf("  MISMATCH %s: fwpt's bitmap differs between runs\n", in->name);
            bad = 1;
        }
    }
    if (one)
        r->one_fwpt = best;
    else {
        r->fwpt = best;
        r->insns = ins;
    }
    if (errs)
        printf("  %s: fwpt reported %llu decode errors%s\n", in->name, (unsigned long long)errs,
               one ? " (one copy)" : "");
    {
        uint64_t wins = 0, whash = 0;
        double wbest = 0;
        const int w = fwpt_warm(in, trace, len, &wbest, &wins, &whash);
        if (w) {
            printf("  %s: fwpt warm %s\n", in->name, w == -2 ? "differs between runs" : "failed");
            return 1;
        }
        if (wins != ins || whash != hash0) {
            printf("  MISMATCH %s: fwpt warm gives %llu instructions, bitmap 0x%016llx; fresh %llu, 0x%016llx\n",
                   in->name, (unsigned long long)wins, (unsigned long long)whash, (unsigned long long)ins,
                   (unsigned long long)hash0);
            bad = 1;
        }
        if (one)
            r->one_fwpt_warm = wbest;
        else
            r->fwpt_warm = wbest;
    }
    if (!one) {
        double pbest = 1e30;
        for (int k = 0; k < runs; k++) {
            uint64_t pins = 0, pnodes = 0;
            double t = cpu_now();
            if (fwpt_prof(in, trace, len, &pins, &pnodes)) {
                printf("  %s: fwpt's profile walk failed, or its tables were too small\n", in->name);
                return 1;
            }
            t = cpu_now() - t;
            pbest = t < pbest ? t : pbest;
            if (pins != ins) {
                printf("  MISMATCH %s: the profile walk counts %llu instructions, the coverage walk %llu\n", in->name,
                       (unsigned long long)pins, (unsigned long long)ins);
                bad = 1;
                break;
            }
        }
        r->fwpt_prof = pbest;
    }
    if (!one) {
        struct pt_image_section_cache *isc = pt_iscache_alloc("peers");
        int *isid = malloc((in->nsect + 1) * sizeof *isid);
        if (!isc || !isid) {
            printf("  %s: out of memory for libipt's image\n", in->name);
            return 1;
        }
        for (size_t i = 0; i < in->nsect; i++)
            if ((isid[i] = pt_iscache_add_file(isc, in->sect[i].path, in->sect[i].offset, in->sect[i].size,
                                               in->sect[i].vaddr)) < 0) {
                printf("  %s: libipt cannot map %s at offset 0x%llx: %s\n", in->name, in->sect[i].path,
                       (unsigned long long)in->sect[i].offset, pt_errstr(pt_errcode(isid[i])));
                return 1;
            }
        best = 1e30;
        for (int k = 0; k < runs; k++) {
            double t = cpu_now();
            uint64_t n = ipt_count(in, trace, len, isc, isid);
            t = cpu_now() - t;
            best = t < best ? t : best;
            if (n != ins) {
                printf("  MISMATCH %s: libipt pt_blk counts %llu instructions, fwpt %llu\n", in->name,
                       (unsigned long long)n, (unsigned long long)ins);
                bad = 1;
                break;
            }
        }
        r->ipt = best;
        pt_iscache_free(isc);
        free(isid);
    }
#ifdef FWPT_PEERS_LIBXDC
    static uint8_t bitmap[COV_SIZE];
    uint64_t xhash = 0;
    bool have = false;
    if (r->xdc_failed) /* said once, on the copy as recorded */
        return bad;
    memset(trace + len, PT_TRACE_END, 16); /* libxdc_decode asserts data[len] is its end marker */
    best = 1e30;
    for (int k = 0; k < (one ? 1 : runs); k++) { /* fresh: a new decoder each run, its caches empty */
        double t = cpu_now();
        libxdc_t *x = libxdc_init(in->filter, xdc_fetch, &in->code, bitmap, sizeof bitmap);
        decoder_result_t st = x ? libxdc_decode(x, trace, len) : decoder_error;
        uint64_t h = x ? libxdc_bitmap_get_hash(x) : 0;
        if (x)
            libxdc_free(x);
        t = cpu_now() - t;
        best = t < best ? t : best;
        if (st != decoder_success && st != decoder_success_pt_overflow) {
            if (in->retc && x) { /* expected: a compressed return is a TNT bit where libxdc wants a TIP */
                printf("  %s: libxdc cannot decode it: decoder result %d (recorded with RET compression; libxdc "
                       "needs DisRETC: see the noretcomp recording)\n", in->name, (int)st);
                r->xdc_failed = (int)st;
                return bad;
            }
            printf("  %s: libxdc (fresh) failed: decoder result %d%s\n", in->name, (int)st, x ? "" : " (init)");
            return 1;
        }
        if (have && h != xhash) {
            printf("  MISMATCH %s: libxdc's bitmap hash differs between fresh runs\n", in->name);
            bad = 1;
        }
        xhash = h;
        have = true;
    }
    if (one) {
        r->one_xdc = best;
        r->one_xdc_hash = xhash;
        if (in->xdc_hash && xhash != in->xdc_hash) { /* libxdc fed wrongly (the trace, its end marker, the pages) */
            printf("  MISMATCH %s: libxdc's bitmap hash 0x%016llx, its own regression test expects 0x%016llx\n",
                   in->name, (unsigned long long)xhash, (unsigned long long)in->xdc_hash);
            bad = 1;
        }
    }
    if (!r->xdc_failed) {
        if (!one)
            r->xdc_fresh = best;
        libxdc_t *x = libxdc_init(in->filter, xdc_fetch, &in->code, bitmap, sizeof bitmap);
        if (!x || libxdc_decode(x, trace, len) > decoder_success_pt_overflow) { /* the warm-up run, not timed */
            printf("  %s: libxdc (warm-up) failed\n", in->name);
            return 1;
        }
        best = 1e30;
        for (int k = 0; k < runs; k++) { /* warm: one decoder, its trace cache kept; the bitmap reset per run */
            double t = cpu_now();
            libxdc_bitmap_reset(x);
            decoder_result_t st = libxdc_decode(x, trace, len);
            t = cpu_now() - t;
            best = t < best ? t : best;
            if (st != decoder_success && st != decoder_success_pt_overflow) {
                printf("  %s: libxdc (warm) failed: decoder result %d\n", in->name, (int)st);
                libxdc_free(x);
                return 1;
            }
            if (libxdc_bitmap_get_hash(x) != xhash) {
                printf("  MISMATCH %s: libxdc's bitmap hash warm differs from fresh\n", in->name);
                bad = 1;
            }
        }
        if (one)
            r->one_xdc_warm = best;
        else
            r->xdc_warm = best;
        libxdc_free(x);
    }
#endif
    return bad;
}

/* The trace repeated to TARGET_INSNS instructions or more (n1: one copy's), 16 bytes of slack after it. */
static uint8_t *repeat(const struct peer_input *in, uint64_t n1, size_t *len, size_t *copies)
{
    *copies = n1 ? (size_t)(TARGET_INSNS / n1) + 1 : 1;
    *len = in->one_len * *copies;
    uint8_t *t = malloc(*len + 16);
    for (size_t k = 0; t && k < *copies; k++)
        memcpy(t + k * in->one_len, in->one, in->one_len);
    return t;
}

static double rate(uint64_t n, double t)
{
    return t > 0 ? (double)n / t / 1e6 : 0;
}

struct row {
    bool failed;
    char name[80];
    struct result r;
    size_t copies;
    uint64_t n1;
};
static struct row rows[64];
static size_t nrows;

static int bench_one(struct peer_input *in)
{
    size_t one_cap = in->one_len;
    uint8_t *one = malloc(one_cap + 16);
    if (!one) {
        printf("  %s: out of memory\n", in->name);
        return 1;
    }
    memcpy(one, in->one, in->one_len);
    struct row *w = &rows[nrows];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", in->name);
    int bad = measure(in, one, in->one_len, &w->r, true); /* one copy: fwpt, libxdc fresh (and the counts) */
    uint64_t n1 = 0, h, e;
    if (!bad && fwpt_cov(in, one, in->one_len, &n1, &h, &e) == 0 && n1) {
        size_t len, copies;
        uint8_t *all = repeat(in, n1, &len, &copies);
        if (!all) {
            printf("  %s: out of memory for %zu copies\n", in->name, copies);
            bad = 1;
        } else {
            printf("  %s: %zu bytes, %llu instructions a copy, %zu copies", in->name, in->one_len,
                   (unsigned long long)n1, copies);
#ifdef FWPT_PEERS_LIBXDC
            if (!w->r.xdc_failed) /* libxdc_experiments' run_regression_tests.sh gives the hash each test trace must give */
                printf("; libxdc's bitmap hash of one copy 0x%016llx", (unsigned long long)w->r.one_xdc_hash);
#endif
            printf("\n");
            bad |= measure(in, all, len, &w->r, false);
            if (!bad && w->r.insns != n1 * copies) {
                printf("  MISMATCH %s: %llu instructions in %zu copies of %llu\n", in->name,
                       (unsigned long long)w->r.insns, copies, (unsigned long long)n1);
                bad = 1;
            }
            w->copies = copies;
            free(all);
        }
    } else if (!bad) {
        printf("  %s: fwpt decodes no instruction in it\n", in->name);
        bad = 1;
    }
    w->n1 = n1;
    w->failed = bad;
    free(one);
    if (nrows + 1 < sizeof rows / sizeof rows[0])
        nrows++;
    return bad;
}

/* ---- the inputs ---- */

/* libxdc_experiments' test_data: NAME/TRACE with its pages NAME/ADDR + NAME/DUMP, recorded with one IP filter range
 * (the ranges libxdc_experiments' run_regression_tests.sh gives each). */
static const struct {
    const char *name, *trace, *addr, *dump;
    uint64_t lo, hi, hash; /* hash: libxdc_bitmap_get_hash after one copy, as that script checks it */
} xdc_traces[] = {
    {"Unzip", "trace", "data.addr", "data", 0x400000, 0x427000, 0x15b89190dfa291b2},
    {"foo", "trace", "data.addr", "data", 0x7ffff7819000, 0x7ffff79ca000, 0xa76b8b44c4d3fe97},
    {"mruby", "trace", "data.addr", "data", 0x400000, 0x4b6000, 0x988aae1ab68920a4},
    {"qemu", "trace1", "page_cache.addr", "page_cache.dump", 0x555555554000, 0x555555d60000, 0x22b4b12103609fd2},
};

static int bench_xdc_data(const char *dir)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof xdc_traces / sizeof xdc_traces[0]; i++) {
        static struct peer_input in;
        memset(&in, 0, sizeof in);
        char tp[4200], ap[4200], dp[4200];
        snprintf(in.name, sizeof in.name, "%s", xdc_traces[i].name);
        snprintf(tp, sizeof tp, "%s/%s/%s", dir, xdc_traces[i].name, xdc_traces[i].trace);
        snprintf(ap, sizeof ap, "%s/%s/%s", dir, xdc_traces[i].name, xdc_traces[i].addr);
        snprintf(dp, sizeof dp, "%s/%s/%s", dir, xdc_traces[i].name, xdc_traces[i].dump);
        if (!(in.one = (uint8_t *)slurp(tp, &in.one_len)) || !in.one_len) {
            printf("peers: %s: cannot read it or it is empty\n", tp);
            free(in.one);
            bad = 1;
            continue;
        }
        if (page_dump_load("peers", ap, dp, &in.code)) {
            free(in.one);
            bad = 1;
            continue;
        }
        /* libipt reads the dump file itself: one section per run of pages consecutive in the file and in memory */
        in.sect = calloc(in.code.npages_file + 1, sizeof *in.sect);
        for (size_t p = 0; in.sect && p < in.code.npages_file; p++) {
            uint64_t a = in.code.page_addr[p];
            if (a == UINT64_MAX)
                continue;
            struct section *last = in.nsect ? &in.sect[in.nsect - 1] : NULL;
            if (last && last->offset + last->size == p * PAGE_DUMP_PAGE && last->vaddr + last->size == a)
                last->size += PAGE_DUMP_PAGE;
            else
                in.sect[in.nsect++] = (struct section){dp, p * PAGE_DUMP_PAGE, PAGE_DUMP_PAGE, a};
        }
        in.filter[0][0] = xdc_traces[i].lo;
        in.filter[0][1] = xdc_traces[i].hi;
        in.xdc_hash = xdc_traces[i].hash;
        printf("--- libxdc test trace %s: %zu pages of code in %zu runs\n", in.name, in.code.pages, in.code.n);
        bad |= in.sect ? bench_one(&in) : 1;
        free(in.sect);
        free(in.one);
        page_dump_free(&in.code);
    }
    return bad;
}

/* A firmware trace's images as page-aligned runs (zeros around an image that does not fill its pages). */
static int fw_input(const char *who, const struct fw_image *im, int n, struct peer_input *in)
{
    struct page_dump *d = &in->code;
    memset(d, 0, sizeof *d);
    d->runs = calloc((size_t)n + 1, sizeof *d->runs);
    in->sect = calloc((size_t)n + 1, sizeof *in->sect);
    if (!d->runs || !in->sect)
        return -1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < n; i++) { /* fw_images sorts them by base */
        uint64_t b = im[i].base & ~(uint64_t)(PAGE_DUMP_PAGE - 1);
        uint64_t e = (im[i].base + im[i].size + PAGE_DUMP_PAGE - 1) & ~(uint64_t)(PAGE_DUMP_PAGE - 1);
        if (d->n && d->runs[d->n - 1].base + d->runs[d->n - 1].size > b) {
            fprintf(stderr, "%s: %s shares a page with the image before it\n", who, im[i].path);
            return -1;
        }
        struct page_run *r = &d->runs[d->n++];
        r->base = b;
        r->size = (size_t)(e - b);
        if (!(r->code = calloc(1, r->size)))
            return -1;
        memcpy(r->code + (im[i].base - b), im[i].code, im[i].size);
        d->pages += r->size / PAGE_DUMP_PAGE;
        in->sect[in->nsect++] = (struct section){im[i].path, 0, im[i].size, im[i].base};
        lo = b < lo ? b : lo;
        hi = e > hi ? e : hi;
    }
    in->filter[0][0] = lo; /* the firmware traces are not filtered: libxdc's one range covers every image */
    in->filter[0][1] = hi;
    return 0;
}

/* The firmware traces of FWPT_BENCH_FW (as make bench records them: RET compression on) and of
 * FWPT_BENCH_FW_NORETC (the same calls recorded with noretcomp, which libxdc decodes). */
static int bench_fw(bool retc)
{
    struct fw_trace *t;
    int n = fw_traces("peers", &t), bad = n < 0;
    for (int i = 0; i < n; i++) {
        static struct peer_input in;
        memset(&in, 0, sizeof in);
        struct fw_image *im;
        int nim = fw_images("peers", t[i].dir, &im);
        if (nim <= 0) {
            if (!nim)
                printf("peers: %s: no img-BASE.bin images\n", t[i].dir);
            bad = 1;
            continue;
        }
        char tp[4200];
        snprintf(tp, sizeof tp, "%s/trace.pt", t[i].dir);
        snprintf(in.name, sizeof in.name, "fw:%s%s", t[i].name, retc ? "" : " noretcomp");
        in.retc = retc;
        if (!(in.one = (uint8_t *)slurp(tp, &in.one_len)) || !in.one_len) {
            printf("peers: %s: cannot read it or it is empty\n", tp);
            bad = 1;
        } else if (fw_input("peers", im, nim, &in)) {
            printf("peers: %s: cannot lay its images out in pages\n", t[i].dir);
            bad = 1;
        } else {
            printf("--- firmware trace %s: %d images, %zu pages\n", in.name, nim, in.code.pages);
            bad |= bench_one(&in);
        }
        free(in.one);
        free(in.sect);
        page_dump_free(&in.code);
        while (nim--)
            free(im[nim].code);
        free(im);
    }
    if (n > 0)
        free(t);
    return bad;
}

static void ratio(double peer, double fwpt)
{
    if (peer > 0 && fwpt > 0)
        printf(" %.2fx |", peer / fwpt);
    else
        printf(" not run |");
}

int main(void)
{
    const char *r = getenv("FWPT_PEERS_RUNS");
    if (r && (runs = atoi(r)) < 1) {
        fprintf(stderr, "peers: FWPT_PEERS_RUNS=%s: want a count of at least 1\n", r);
        return 2;
    }
    bool xdc = false;
#ifdef FWPT_PEERS_LIBXDC
    xdc = true;
    printf("libxdc: release %u, linked from LIBXDC_SRC\n", (unsigned)libxdc_get_release_version());
#else
    printf("NOT RUN: libxdc: this bench was built without it (LIBXDC_SRC=DIR make bench-peers builds it from "
           "github nyx-fuzz/libxdc's source in DIR); fwpt and libipt only\n");
#endif
    int bad = 0;
    const char *data = getenv("LIBXDC_DATA");
    if (data && *data)
        bad |= bench_xdc_data(data);
    else
        printf("NOT RUN: libxdc's test traces: LIBXDC_DATA is unset (the test_data/ directory of github "
               "nyx-fuzz/libxdc_experiments: Unzip, foo, mruby, qemu)\n");
    bad |= bench_fw(true);
    const char *noretc = getenv("FWPT_BENCH_FW_NORETC");
    if (noretc && *noretc) {
        setenv("FWPT_BENCH_FW", noretc, 1);
        bad |= bench_fw(false);
    } else
        printf("NOT RUN: the firmware traces recorded with noretcomp (the ones libxdc decodes): FWPT_BENCH_FW_NORETC is "
               "unset (make bench-peers records them)\n");

    printf("\nCPU time of the decode loop, best of %d; each trace repeated to %llu M+ instructions; ratios: fwpt's "
           "speed over the other's\n\n", runs, TARGET_INSNS / 1000000);
    printf("| trace | fwpt fresh | fwpt warm | fresh vs libxdc fresh | warm vs libxdc warm | fresh vs libipt pt_blk "
           "|\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < nrows; i++) {
        const struct result *x = &rows[i].r;
        if (rows[i].failed) {
            printf("| %s | failed (above) | | | | | |\n", rows[i].name);
            continue;
        }
        printf("| %s | %.0f M insn/s | %.0f M insn/s |", rows[i].name, rate(x->insns, x->fwpt),
               rate(x->insns, x->fwpt_warm));
        if (x->xdc_failed)
            printf(" libxdc fails (result %d) | libxdc fails |", x->xdc_failed);
        else {
            ratio(x->xdc_fresh, x->fwpt);
            ratio(x->xdc_warm, x->fwpt_warm);
        }
        ratio(x->ipt, x->fwpt);
        printf("\n");
    }
    printf("\nThe profile and the call tree (every call and return; what --profile and --calls count), one thread, "
           "against libxdc's fresh coverage mode\n\n| trace | fwpt profile + call tree | vs libxdc fresh | vs fwpt "
           "coverage fresh |\n|---|---|---|---|\n");
    for (size_t i = 0; i < nrows; i++) {
        const struct result *x = &rows[i].r;
        if (rows[i].failed) {
            printf("| %s | failed (above) | | |\n", rows[i].name);
            continue;
        }
        printf("| %s | %.0f M insn/s |", rows[i].name, rate(x->insns, x->fwpt_prof));
        if (x->xdc_failed)
            printf(" libxdc fails |");
        else
            ratio(x->xdc_fresh, x->fwpt_prof);
        ratio(x->fwpt, x->fwpt_prof);
        printf("\n");
    }
    printf("\n| trace | instructions (copies) | libxdc fresh | libxdc warm | libipt pt_blk | one copy fresh: fwpt, "
           "libxdc | one copy warm: fwpt, libxdc |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < nrows; i++) {
        const struct result *x = &rows[i].r;
        if (rows[i].failed) {
            printf("| %s | failed (above) | | | | |\n", rows[i].name);
            continue;
        }
        printf("| %s | %llu (%zu) |", rows[i].name, (unsigned long long)x->insns, rows[i].copies);
        if (x->xdc_failed)
            printf(" fails | fails |");
        else if (xdc)
            printf(" %.0f M insn/s | %.0f M insn/s |", rate(x->insns, x->xdc_fresh), rate(x->insns, x->xdc_warm));
        else
            printf(" not run | not run |");
        printf(" %.0f M insn/s |", rate(x->insns, x->ipt));
        if (xdc && !x->xdc_failed)
            printf(" %.1f us, %.1f us (%.2fx) | %.1f us, %.1f us (%.2fx) |\n", x->one_fwpt * 1e6, x->one_xdc * 1e6,
                   x->one_xdc / x->one_fwpt, x->one_fwpt_warm * 1e6, x->one_xdc_warm * 1e6,
                   x->one_xdc_warm / x->one_fwpt_warm);
        else if (x->xdc_failed)
            printf(" %.1f us, libxdc fails | %.1f us, libxdc fails |\n", x->one_fwpt * 1e6, x->one_fwpt_warm * 1e6);
        else
            printf(" %.1f us, not run | %.1f us, not run |\n", x->one_fwpt * 1e6, x->one_fwpt_warm * 1e6);
    }
    if (bad)
        printf("\npeers: FAILED (see the lines above)\n");
    return bad;
}
