/* Listing rate: instructions per second `fwpt flow` lists to /dev/null, text and JSON lines, with and without
 * disassembly, through today's listing (render/flow_list over fwpt_flow_next_batch, one fwrite per 64 KiB) and
 * through the listing before it (fwpt_flow_next + fwpt_flow_print_event into a stdio sink, one fwrite per piece:
 * what `fwpt flow --slow-print` still runs), on the real firmware traces of FWPT_BENCH_FW (make bench records
 * them) and on a generated program. Each listing is a whole fresh one (disassembly cache empty), repeated for a
 * third of a second, the best kept; both must write the same bytes (checked once per input, the bench fails
 * otherwise). Prints each rate, the ratio, and the totals over the firmware traces. With names: the same through
 * a resolver (tests/common/fake_resolver.h's costly_resolver: a function every 64 bytes of each image, lines that
 * change every 4 bytes, a fresh cache each listing, a miss costing MISS_NS of CPU time as a libdwfl lookup does;
 * docs/performance.md) and the listing's name cache (render/flow_list.h).
 * Real names: the same listings of the traces recorded on the EDK2 DEBUG OVMF (tests/bench/real_names.h), named
 * from that build's full-DWARF .debug files as `fwpt flow --symbols DIR` names them (tools/symmap, a fresh map each
 * listing: reading and matching the files is timed apart, once per run); the distinct addresses and functions of
 * each trace; and the cost of one resolver miss, through the functions' tables and through the per-address libdw
 * walk (tools/symbols_dw.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/errata.h"
#include "decode/flow.h"
#include "render/flow_list.h"
#include "render/flow_print.h"
#include "tests/common/fake_resolver.h"
#include "tests/common/fw_traces.h"
#include "tests/common/progen.h"
#include "tests/common/tool_run.h"
#include "tools/sideband.h"
#include "tools/zydis.h"
#include "tests/common/mem_sink.h"
#include "tests/bench/real_names.h"
#include "tools/symbols_dw.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time (the writes' system time too): the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct image {
    char name[256];
    uint64_t base, size;
    uint8_t *code;
    size_t code_size;
};

struct input {
    const char *name;
    const uint8_t *trace;
    size_t trace_size;
    struct image *im; /* nim of them, room for cap (grown by add_image) */
    size_t nim, cap;
    struct fwpt_module *mv; /* one per image */
    struct fwpt_errata errata;
    const struct real_images *real; /* names from the DEBUG build's symbol files (else the made-up resolver) */
    const char *symdir;
};

static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct input *in = ctx;
    for (size_t i = 0; i < in->nim; i++) {
        const struct image *m = &in->im[i];
        if (m->code && ip - m->base < m->code_size) {
            *bytes = m->code + (ip - m->base);
            return m->code_size - (ip - m->base);
        }
    }
    return 0;
}

/* ---- sinks: /dev/null through stdio (as tools/fwpt.c's file sink), and memory for the comparison ---- */
static void file_write(void *ctx, const char *s, size_t n) { fwrite(s, 1, n, (FILE *)ctx); }


static struct fwpt_flow_block cache[1 << 16];
static struct fwpt_list_asm acache[1 << 14];
static char obuf[1 << 16];
static struct fwpt_list_name ncache[1 << 14]; /* as tools/cmd_flow.c's */
#define MISS_NS 2500.0
static struct costly_resolver costly;
static struct fwpt_resolver names_res;
static struct fwpt_modules names_mods;
static struct fwpt_symmap *names_map;
static double open_time; /* CPU time of the last names_begin with real names (reading and matching the files) */

/* A fresh resolver for one listing of in: the DEBUG build's symbol files (a new map: empty caches), or the made-up
 * one. */
static void names_begin(struct input *in)
{
    if (in->real) {
        size_t matched;
        double t = now();
        names_map = real_names_open(in->real, in->symdir, &names_res, &matched);
        open_time = now() - t;
        if (!names_map)
            abort();
        return;
    }
    names_mods = (struct fwpt_modules){in->mv, in->nim, 0};
    const char *mns = getenv("FWPT_BENCH_MISS_NS"); /* another miss cost (ns), to see the listing's own share */
    names_res = costly_resolver_init(&costly, &names_mods, mns ? atof(mns) : MISS_NS);
}

static void names_end(void)
{
    fwpt_symmap_free(names_map);
    names_map = NULL;
}

/* One whole listing of in as `fwpt flow` makes it (fast: render/flow_list; else the event printer); with names,
 * through names_res (names_begin before). */
static uint64_t list_once(struct input *in, const struct fwpt_sink *out, enum fwpt_flow_format fmt, int disasm,
                          int fast, int names)
{
    static struct fwpt_flow f;
    static struct fwpt_zydis z;
    static struct fwpt_flow_lister l;
    static struct fwpt_list_module pre[128];
    struct fwpt_modules mods = {in->mv, in->nim, 0};
    const struct fwpt_resolver res = names_res;
    fwpt_zydis_init(&z, read_code, in);
    if (fwpt_flow_init(&f, in->trace, in->trace_size, read_code, in, cache, sizeof cache / sizeof cache[0]) != FWPT_OK)
        abort(); /* the bench traces start with a PSB */
    fwpt_flow_set_errata(&f, &in->errata);
    struct fwpt_flow_event ev;
    uint64_t n = 0, cut_ip;
    if (fast) {
        fwpt_flow_list_init(&l, out, fmt, &mods, pre, disasm ? fwpt_zydis_disasm : NULL, &z, acache,
                              sizeof acache / sizeof acache[0], obuf, sizeof obuf);
        if (names)
            fwpt_flow_list_names(&l, &res, ncache, sizeof ncache / sizeof ncache[0]);
        const struct fwpt_flow_obuf_insn *v;
        uint32_t k;
        while (fwpt_flow_next_batch(&f, &v, &k, &ev) == FWPT_OK) {
            if (k)
                fwpt_flow_list_insns(&l, v, k);
            else
                fwpt_flow_list_event(&l, &ev);
            n += k;
        }
        if (fwpt_flow_cut(&f, &cut_ip))
            fwpt_flow_list_cut(&l, cut_ip, in->trace_size);
        fwpt_flow_list_flush(&l);
    } else {
        struct fwpt_flow_printer pr = {out, fmt, &mods, disasm ? fwpt_zydis_disasm : NULL, &z, 0, names ? &res : NULL};
        while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
            fwpt_flow_print_event(&pr, &ev);
            n += ev.kind == FWPT_FLOW_INSN;
        }
        if (fwpt_flow_cut(&f, &cut_ip))
            fwpt_flow_print_cut(&pr, cut_ip, in->trace_size);
    }
    return n;
}

/* Best seconds of one listing to /dev/null, over repetitions for about 1/3 s (at least 2). */
static double best_time(struct input *in, FILE *null, enum fwpt_flow_format fmt, int disasm, int fast, int names,
                        uint64_t *n)
{
    struct fwpt_sink s = {file_write, null};
    double best = 1e30, spent = 0;
    for (int r = 0; r < 2 || spent < 0.33; r++) {
        if (names)
            names_begin(in);
        double t = now();
        *n = list_once(in, &s, fmt, disasm, fast, names);
        fflush(null);
        t = now() - t;
        if (names)
            names_end();
        spent += t;
        best = t < best ? t : best;
    }
    return best;
}

#define NCONF 8
static const char *const conf_name[NCONF] = {"text --no-disasm", "jsonl --no-disasm", "text", "jsonl",
                                             "text --no-disasm, names", "jsonl --no-disasm, names", "text, names",
                                             "jsonl, names"};
static double tot_insns[2][NCONF], tot_new[2][NCONF], tot_old[2][NCONF]; /* [real names] */

static int measure(struct input *in, int add_to_total)
{
    FILE *null = fopen("/dev/null", "wb");
    if (!null)
        return 1;
    int rc = 0;
    for (int c = 0; c < NCONF; c++) {
        enum fwpt_flow_format fmt = c & 1 ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT;
        int disasm = c & 2, names = c >= 4;
        struct mem a = {0}, b = {0};
        struct fwpt_sink sa = {mem_write, &a}, sb = {mem_write, &b};
        if (names)
            names_begin(in);
        list_once(in, &sa, fmt, disasm, 1, names);
        if (names)
            names_end(), names_begin(in);
        list_once(in, &sb, fmt, disasm, 0, names);
        if (names)
            names_end();
        int same = a.n == b.n && !memcmp(a.p, b.p, a.n);
        uint64_t n_new, n_old;
        double t_new = best_time(in, null, fmt, disasm, 1, names, &n_new);
        const unsigned long misses = costly.misses;
        double t_old = best_time(in, null, fmt, disasm, 0, names, &n_old);
        if (names && !in->real)
            printf("(names: the made-up resolver missed %lu addresses per listing, %.0f ns each)\n", misses,
                   costly.miss_ns);
        if (names && in->real && c == 4)
            printf("(names: reading and matching the symbol files %.1f ms, once per run, not in the rates)\n",
                   open_time * 1e3);
        printf("%-26s %9.1f M insn/s (%7.4f s), before %6.1f M insn/s (%7.4f s): %5.1fx; %zu bytes, %s\n",
               conf_name[c], n_new / t_new / 1e6, t_new, n_old / t_old / 1e6, t_old, t_old / t_new, a.n,
               same ? "the same bytes" : "BYTES DIFFER");
        if (!same || n_new != n_old)
            rc = 1;
        if (add_to_total) {
            const int k = in->real != NULL;
            tot_insns[k][c] += (double)n_new;
            tot_new[k][c] += t_new;
            tot_old[k][c] += t_old;
        }
        free(a.p);
        free(b.p);
    }
    fclose(null);
    return rc;
}

/* The steady rate with names: the trace repeated to about 10M instructions (each copy from its PSB, as
 * bench_summary repeats them), listed by the fast path without and with names: the resolver's misses (once per
 * address) spread over a trace of the size a hardware run records. */
static double rep_insns[2][4], rep_time[2][4]; /* [real names] */
static int measure_repeated(struct input *in)
{
    FILE *null = fopen("/dev/null", "wb");
    struct fwpt_sink s = {file_write, null};
    const uint8_t *one = in->trace;
    const size_t len = in->trace_size;
    uint64_t n1 = list_once(in, &s, FWPT_FLOW_FMT_TEXT, 0, 1, 0);
    size_t copies = n1 ? (size_t)(10000000 / n1) + 1 : 1;
    uint8_t *all = malloc(len * copies);
    if (!null || !all) {
        free(all);
        return 1;
    }
    for (size_t k = 0; k < copies; k++)
        memcpy(all + k * len, one, len);
    in->trace = all;
    in->trace_size = len * copies;
    printf("%zu copies (%llu instructions):", copies, (unsigned long long)(n1 * copies));
    for (int c = 0; c < 4; c++) {
        uint64_t n;
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            if (c >= 2)
                names_begin(in);
            double t = now();
            n = list_once(in, &s, c & 1 ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT, 0, 1, c >= 2);
            fflush(null);
            t = now() - t;
            if (c >= 2)
                names_end();
            best = t < best ? t : best;
        }
        printf(" %s%s %.1f M insn/s;", c & 1 ? "jsonl" : "text", c >= 2 ? " names" : "", n / best / 1e6);
        rep_insns[in->real != NULL][c] += (double)n;
        rep_time[in->real != NULL][c] += best;
    }
    printf("\n");
    in->trace = one;
    in->trace_size = len;
    free(all);
    fclose(null);
    return 0;
}

/* sideband.json's images, read as fwpt flow reads them (tools/sideband) */
static int add_image(void *ctx, const struct fwpt_sideband_image *s)
{
    struct input *in = ctx;
    if (in->nim == in->cap) { /* grown: a trace may run code in any number of images */
        size_t cap = in->cap ? 2 * in->cap : 64;
        struct image *im = realloc(in->im, cap * sizeof *im);
        if (im)
            in->im = im;
        struct fwpt_module *mv = im ? realloc(in->mv, cap * sizeof *mv) : NULL;
        if (!mv) {
            fprintf(stderr, "bench_list: %s: out of memory at image %zu\n", in->name, in->nim + 1);
            free(s->code);
            return 1;
        }
        in->mv = mv;
        in->cap = cap;
    }
    struct image *m = &in->im[in->nim++];
    snprintf(m->name, sizeof m->name, "%s", s->name);
    m->base = s->base;
    m->size = s->size;
    m->code = s->code;
    m->code_size = s->code_size;
    return 0;
}

static int cmp_base(const void *a, const void *b)
{
    const struct image *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Real names: the trace's distinct instruction addresses, the functions they lie in (named by the symbol files),
 * and what one resolver miss costs over those addresses (each address once, fresh caches, files already open):
 * through the functions' tables (tools/symbols_dw.c) and through the per-address libdw walk. */
static int real_stats(struct input *in)
{
    static struct fwpt_flow f;
    struct fwpt_flow_event ev;
    size_t cap = 1 << 12, n = 0;
    uint64_t *ip = malloc(cap * sizeof *ip), cut;
    if (!ip || fwpt_flow_init(&f, in->trace, in->trace_size, read_code, in, cache,
                              sizeof cache / sizeof cache[0]) != FWPT_OK)
        return 1;
    fwpt_flow_set_errata(&f, &in->errata);
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        if (ev.kind != FWPT_FLOW_INSN)
            continue;
        if (n == cap && !(ip = realloc(ip, (cap *= 2) * sizeof *ip)))
            return 1;
        ip[n++] = ev.ip;
    }
    (void)fwpt_flow_cut(&f, &cut);
    qsort(ip, n, sizeof *ip, cmp_u64);
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (!d || ip[d - 1] != ip[i])
            ip[d++] = ip[i];
    names_begin(in);
    uint64_t *entry = malloc((d + 1) * sizeof *entry);
    size_t named = 0, funcs = 0, lines = 0, inl = 0;
    for (size_t i = 0; entry && i < d; i++) {
        struct fwpt_resolved r;
        fwpt_resolve(&names_res, ip[i], &r);
        if (r.function)
            entry[named++] = r.function_entry;
        lines += r.file != NULL;
        inl += r.inlined;
    }
    qsort(entry, named, sizeof *entry, cmp_u64);
    for (size_t i = 0; i < named; i++)
        funcs += !i || entry[i] != entry[i - 1];
    free(entry);
    printf("(names: %zu distinct instruction addresses, %zu of them in %zu functions the symbol files name, %zu with a "
           "source line, %zu inlined)\n", d, named, funcs, lines, inl);
    /* one miss, image by image: the matched file opened at its base twice (tables; the per-address walk), each
     * address asked twice: cold (libdw reads what it needs the first time: each unit's line table, its DIEs) and
     * warm (the address cache emptied, libdw's and the tables' memory kept) */
    double t_res[2][2] = {{0}}; /* [walk][warm] */
    size_t asked = 0, tabled = 0;
    for (size_t k = 0; k < in->real->n; k++) {
        const struct fwpt_symmap_image *m = &in->real->v[k];
        const char *file = fwpt_symmap_file(names_map, k, NULL);
        if (!file)
            continue;
        size_t lo = 0;
        while (lo < d && ip[lo] < m->base)
            lo++;
        size_t hi = lo;
        while (hi < d && ip[hi] - m->base < m->size)
            hi++;
        for (int walk = 0; walk < 2 && hi > lo; walk++) {
            struct fwpt_symbols *sy;
            char err[512];
            if (fwpt_symbols_open(&sy, file, m->base, err, sizeof err) != FWPT_OK) {
                fprintf(stderr, "bench_list: %s\n", err);
                break;
            }
            struct fwpt_resolver r = fwpt_symbols_resolver(sy);
            for (int warm = 0; warm < 2; warm++) {
                fwpt_symbols_set_tables(sy, !walk); /* empties the address cache */
                double t = now();
                for (size_t i = lo; i < hi; i++) {
                    struct fwpt_resolved a;
                    fwpt_resolve(&r, ip[i], &a);
                }
                t_res[walk][warm] += now() - t;
            }
            if (!walk) {
                asked += hi - lo;
                tabled += fwpt_symbols_tabled(sy);
            }
            fwpt_symbols_close(sy);
        }
    }
    if (asked)
        printf("(names: one resolver miss, cold / warm: %.0f / %.0f ns through the functions' tables (%zu of %zu addresses "
               "from them), %.0f / %.0f ns through the per-address libdw walk; libdw's first reading %.2f ms)\n",
               t_res[0][0] / (double)asked * 1e9, t_res[0][1] / (double)asked * 1e9, tabled / 2, asked,
               t_res[1][0] / (double)asked * 1e9, t_res[1][1] / (double)asked * 1e9,
               (t_res[1][0] - t_res[1][1]) * 1e3);
    names_end();
    free(ip);
    return 0;
}

static int bench_dir(const char *name, const char *dir, const char *symdir)
{
    static struct input in;
    memset(&in, 0, sizeof in);
    in.name = name;
    char path[4200];
    size_t n, sbn;
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    uint8_t *trace = (uint8_t *)slurp(path, &n);
    snprintf(path, sizeof path, "%s/sideband.json", dir);
    char *sb = slurp(path, &sbn); /* slurp leaves room for the NUL */
    if (!trace || !sb) {
        fprintf(stderr, "bench_list: %s: cannot read %s\n", dir, trace ? "sideband.json" : "trace.pt");
        return 1;
    }
    sb[sbn] = 0;
    int rc = 1;
    if (fwpt_sideband_images(sb, dir, add_image, &in) != 0 || !in.nim) {
        fprintf(stderr, "bench_list: %s/sideband.json: %s\n", dir,
                in.nim ? "its image list is malformed, or an image could not be kept" : "no images, or the list is malformed");
        goto out;
    }
    qsort(in.im, in.nim, sizeof in.im[0], cmp_base);
    for (size_t i = 0; i < in.nim; i++)
        in.mv[i] = (struct fwpt_module){in.im[i].name, in.im[i].base, in.im[i].size, NULL, 0};
    struct fwpt_cpu_id cpu = {0};
    fwpt_sideband_cpu(sb, &cpu);
    fwpt_errata_for_cpu(&cpu, &in.errata);
    in.trace = trace;
    in.trace_size = n;
    static struct real_images real;
    if (symdir) {
        if (real_images_read(dir, &real) != 0)
            goto out;
        in.real = &real;
        in.symdir = symdir;
        size_t matched;
        struct fwpt_resolver r;
        struct fwpt_symmap *m = real_names_open(&real, symdir, &r, &matched);
        printf("--- firmware, DEBUG OVMF, real names: %s (%zu trace bytes, %zu images, %zu of them matched to %s)\n",
               name, n, in.nim, matched, symdir);
        fwpt_symmap_free(m);
        rc = real_stats(&in);
    } else {
        printf("--- firmware: %s (%zu trace bytes, %zu images)\n", name, n, in.nim);
        rc = 0;
    }
    rc |= measure(&in, 1);
    rc |= measure_repeated(&in);
out:
    if (symdir)
        real_images_free(&real);
    for (size_t i = 0; i < in.nim; i++)
        free(in.im[i].code);
    free(in.im);
    free(in.mv);
    free(trace);
    free(sb);
    return rc;
}

/* A generated program (tests/common/progen) in one module "Prog". */
static int bench_generated(void)
{
    struct progen_cfg cfg = {.seed = 7, .nfuncs = 300, .max_insns = 1000000, .no_truth = 1,
                             .features = PROGEN_F_ALL, .extra_plain = 50, .biased = 1};
    struct progen p;
    if (progen_build(&cfg, &p)) {
        fprintf(stderr, "bench_list: progen failed\n");
        return 1;
    }
    static struct input in;
    memset(&in, 0, sizeof in);
    in.name = "generated";
    in.trace = p.trace;
    in.trace_size = p.trace_size;
    struct image im = {"Prog", p.base, p.code_size, p.code, p.code_size};
    struct fwpt_module mv = {"Prog", p.base, p.code_size, NULL, 0};
    in.nim = in.cap = 1;
    in.im = &im;
    in.mv = &mv;
    printf("--- generated program: %zu instructions, %zu trace bytes\n", p.ntruth, p.trace_size);
    int rc = measure(&in, 0);
    progen_free(&p);
    return rc;
}

static void totals(int k, int n)
{
    printf("--- listing rate over the %d firmware traces%s (fwpt flow to /dev/null; target: 10x before; with names: at "
           "least 30 M insn/s)\n", n, k ? " of the DEBUG OVMF, real names" : ", made-up names");
    for (int c = 0; c < NCONF; c++)
        printf("listing %-26s %7.1f M insn/s, before %6.1f M insn/s: ratio %.1fx\n", conf_name[c],
               tot_insns[k][c] / tot_new[k][c] / 1e6, tot_insns[k][c] / tot_old[k][c] / 1e6,
               tot_old[k][c] / tot_new[k][c]);
    printf("--- the steady rate, each firmware trace%s repeated to about 10M instructions, --no-disasm:\n",
           k ? " of the DEBUG OVMF" : "");
    for (int c = 0; c < 4; c++)
        printf("listing %-5s%-6s %7.1f M insn/s\n", c & 1 ? "jsonl" : "text", c >= 2 ? " names" : "",
               rep_insns[k][c] / rep_time[k][c] / 1e6);
}

int main(void)
{
    int rc = bench_generated();
    struct fw_trace *t;
    int n = fw_traces("bench_list", &t);
    if (n < 0)
        return 1;
    for (int i = 0; i < n; i++)
        rc |= bench_dir(t[i].name, t[i].dir, NULL);
    free(t);
    /* the DEBUG OVMF's traces, named by its symbol files */
    const char *dbg, *symdir;
    int nd = 0;
    if (real_names_dirs(&dbg, &symdir) == 0) {
        setenv("FWPT_BENCH_FW", dbg, 1);
        nd = fw_traces("bench_list", &t);
        for (int i = 0; i < nd; i++)
            rc |= bench_dir(t[i].name, t[i].dir, symdir);
        if (nd > 0)
            free(t);
        rc |= nd <= 0;
    }
    if (n > 0)
        totals(0, n);
    if (nd > 0)
        totals(1, nd);
    if (rc)
        printf("bench_list: MISMATCH between the listings\n");
    return rc;
}
