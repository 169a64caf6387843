/* fwpt flow DIR|FILE [--image FILE@ADDR ...] [--format text|jsonl] [--calls] [--profile]
 * [--no-disasm] [--top N] [--depth N] [--cpu F/M[/S]|none] [--flame F] [--folded F] [--chrome-trace F]
 * [--report F] [--quiet] [--slow-print] [--edges] [--coverage F [--coverage-size N]] [-j N] [--split N]
 * [--walk summary|insn] [--time] [--ticks] [--by time|insns] [--images]: the executed instruction flow of a saved
 * trace, the images in the order they first ran (analyze/timeline),
 * its summaries and pictures (render/flame, report), edges and coverage bitmap; the summaries by the summary
 * walk on -j threads (tools/flow_summary.c). The listing is render/flow_list's; --slow-print lists through
 * fwpt_flow_print_event one event at a time instead (the same bytes, for tests and make bench). A progress
 * line (tools/progress) goes to stderr when it is a terminal.
 *
 * DIR is a saved \fwpt\ directory: trace.pt, sideband.json and img-BASE.bin files. The only
 * sideband keys read (everything else is ignored):
 *   {"images":[{"name":"DxeCore","base":"0x7e9a1000","size":"0x2c000","file":"img-7e9a1000.bin"},...]}
 *   {"cpu":{"vendor":"GenuineIntel","family":6,"model":94,"stepping":3}} (the processor, for its
 *   errata, unless --cpu is given)
 *   {"trace":{"bytes":N}} (the size of trace.pt the run wrote: a shorter file is said, exit status 3)
 * The whole file must be valid JSON (else nothing in it is trusted: exit 1, the byte named).
 * base/size: JSON strings ("0x..." hex or decimal) or numbers; file: optional, relative to DIR (an
 * image without file names addresses only). FILE is a raw trace; --image FILE@ADDR adds code. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/errata.h"
#include "decode/flow.h"
#include "render/flame.h"
#include "render/flow_list.h"
#include "render/flow_print.h"
#include "analyze/profile.h"
#include "render/report.h"
#include "render/profile_print.h"
#include "render/timeline_print.h"
#include "analyze/time_spread.h"
#include "analyze/timeline.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/flow_annotate.h"
#include "tools/flow_summary.h"
#include "tools/flow_covmany.h"
#include "tools/options.h"
#include "tools/sideband.h"
#include "tools/symmap.h"
#include "tools/zydis.h"

static bool quiet; /* --quiet: no notes on stderr (errors still); read by note, a fwpt_note_fn without context */

/* A note on stderr: what the tool did about something missing or odd, decoding on. */
__attribute__((format(printf, 1, 2))) static void note(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* The images: decode/image's map, grown here (names and code are heap copies kept to the end); and what
 * sideband.json records for matching symbol files to them (by base: the map is sorted later). */
struct images {
    struct fwpt_module *v;
    size_t n, cap;
    struct image_ids {
        uint64_t base;
        char *pdb, *fv_guid;
    } *ids;
    size_t nids;
};

static struct fwpt_module *add_image(struct images *im)
{
    if (im->n == im->cap) {
        im->cap = im->cap ? im->cap * 2 : 16;
        im->v = realloc(im->v, im->cap * sizeof *im->v);
        if (!im->v) {
            fprintf(stderr, "fwpt flow: out of memory\n");
            exit(1);
        }
    }
    struct fwpt_module *m = &im->v[im->n++];
    memset(m, 0, sizeof *m);
    return m;
}

/* sideband.json's images into the map: a bad value is an error (the run stops after the list); an image whose file
 * cannot be read, or is shorter than the image, is kept with what there is, and said. */
struct sideband_images {
    struct images *im;
    const char *sb_path;
    int bad; /* images with a value that is not what it should be */
};

static int add_sideband_image(void *ctx, const struct fwpt_sideband_image *s)
{
    struct sideband_images *c = ctx;
    if (s->bad_key) {
        fprintf(stderr, "fwpt flow: %s: images[%u] (\"%s\"): \"%s\": expected %s, got %s\n", c->sb_path, s->index,
                s->name, s->bad_key, s->expected, s->bad_value);
        c->bad++;
        return 0;
    }
    struct fwpt_module *m = add_image(c->im);
    m->name = strdup(s->name);
    m->base = s->base;
    m->size = s->size;
    m->code = s->code;
    m->code_size = s->code_size;
    struct image_ids *ids = realloc(c->im->ids, (c->im->nids + 1) * sizeof *ids);
    if (ids) {
        c->im->ids = ids;
        ids[c->im->nids++] = (struct image_ids){s->base, strdup(s->pdb), strdup(s->fv_guid)};
    }
    if (s->err)
        fprintf(stderr, "fwpt flow: %s: %s (image %s without code: its instructions cannot be decoded)\n", s->path,
                strerror(s->err), m->name);
    else if (s->path && s->code_size < s->size)
        fprintf(stderr, "fwpt flow: %s: %zu bytes, but %s records %llu (0x%llx) for image %s: the file is cut short "
                "(the code past byte %zu cannot be decoded)\n", s->path, s->code_size, c->sb_path,
                (unsigned long long)s->size, (unsigned long long)s->size, m->name, s->code_size);
    if (s->code_check < 0)
        fprintf(stderr, "fwpt flow: %s: the code of image %s is not what the app recorded (CRC-32 of its executable "
                "sections 0x%08x over %llu bytes; %s: 0x%08x over %llu): a file from another run, or changed? Its "
                "instructions are decoded from these bytes\n", s->path, m->name, s->crc_file,
                (unsigned long long)s->bytes_file, c->sb_path, s->crc_recorded, (unsigned long long)s->bytes_recorded);
    return 0;
}

/* What the report page says the host's decode found in the trace (n bytes): no PSB; the end with tracing on
 * (cut: fwpt_flow_cut of the walk that reached the trace's end). */
static void report_decoded(struct fwpt_report_run *run, bool cut, const uint8_t *trace, size_t n)
{
    struct fwpt_pkt_decoder d;
    run->decoded_bytes = n;
    fwpt_pkt_init(&d, trace, n);
    run->no_psb = fwpt_pkt_sync_forward(&d) != FWPT_OK;
    run->cut = !run->no_psb && cut;
}

/* An output file of --flame, --folded, --chrome-trace or --report: opened before decoding, so a bad path
 * fails at once. */
static FILE *open_out(const char *path)
{
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (path && !f)
        fprintf(stderr, "fwpt flow: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    if (!f)
        return 0;
    if (fclose(f) != 0) {
        fprintf(stderr, "fwpt flow: writing %s failed: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* What fwpt flow was asked: filled by flow_parse from the option table below. */
struct flow_opts {
    const char *path, *format;
    enum fwpt_flow_format fmt;
    bool calls, profile, images, no_disasm, iflags, slow_print, show_time, ticks, quiet, by_time, walk_insn, have_cpu;
    struct fwpt_time_config tcfg;
    unsigned tcfg_given; /* as fwpt_sideband_time's found: bit 1 nom, 2 MTCFreq, 3 CPUID 15H EAX, 4 EBX */
    uint64_t top, depth, jobs, split;
    struct images im;
    struct fwpt_cpu_id cpu;
    uint64_t filter[FWPT_FLOW_FILTERS][2];
    uint32_t n_filter;
    const char *flame_path, *folded_path, *chrome_path, *report_path;
    struct flow_annotate ann; /* --annotate, --source-root; the report page's source lines */
    struct flow_summary fsum; /* --edges, --coverage, --coverage-size */
    struct fwpt_opt_list symbols; /* --symbols, as given */
    struct fwpt_opt_list more;    /* the traces after the first (--coverage of many traces: tools/flow_covmany) */
    bool cov_each;                /* --coverage-each */
};

static int set_image(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    (void)o, (void)a;
    const char *at = strrchr(v, '@');
    uint64_t base;
    if (!at || fwpt_parse_u64(at + 1, 1, &base) != 0) {
        fprintf(stderr, "fwpt flow: --image: expected FILE@ADDR, got '%s'\n", v);
        return 2;
    }
    struct fwpt_module *m = add_image(&fo->im);
    char *name = strndup(v, (size_t)(at - v));
    uint8_t *code;
    size_t code_size;
    m->base = base;
    if (fwpt_file_load(name, &code, &code_size) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", name, strerror(errno));
        return 1;
    }
    m->code = code;
    m->size = m->code_size = code_size;
    const char *slash = strrchr(name, '/');
    if (slash)
        memmove(name, slash + 1, strlen(slash + 1) + 1);
    m->name = name;
    return 0;
}

static int set_cpu(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    (void)o, (void)a;
    const char *why = "expected FAMILY/MODEL[/STEPPING] or none";
    if (!v || fwpt_cpu_parse_why(v, &fo->cpu, &why) != FWPT_OK) {
        fprintf(stderr, "fwpt flow: --cpu: %s, got '%s'\n", why, v ? v : "(nothing)");
        return 2;
    }
    fo->have_cpu = true;
    return 0;
}

static int set_filter(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    (void)o, (void)a;
    const char *dash = strchr(v, '-');
    uint64_t fa, fb;
    char lo[32];
    if (!dash || (size_t)(dash - v) >= sizeof lo || fo->n_filter == FWPT_FLOW_FILTERS) {
        fprintf(stderr, "fwpt flow: --filter: expected A-B (hex), at most %d, got '%s'\n", FWPT_FLOW_FILTERS, v);
        return 2;
    }
    memcpy(lo, v, (size_t)(dash - v));
    lo[dash - v] = 0;
    if (fwpt_parse_u64(lo, 1, &fa) != 0 || fwpt_parse_u64(dash + 1, 1, &fb) != 0 || fb < fa) {
        fprintf(stderr, "fwpt flow: --filter: expected A-B with hex A <= B, got '%s'\n", v);
        return 2;
    }
    fo->filter[fo->n_filter][0] = fa;
    fo->filter[fo->n_filter][1] = fb;
    fo->n_filter++;
    return 0;
}

/* A value that is one of two words: the bool at o->off says whether it is the first. */
static int set_choice(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    bool *first = (bool *)((char *)dst + o->off);
    const bool by = !strcmp(o->name, "--by");
    const char *w0 = by ? "time" : "insn", *w1 = by ? "insns" : "summary";
    if (strcmp(v, w0) && strcmp(v, w1)) {
        fprintf(stderr, "fwpt flow: %s: expected %s, got '%s'\n", a, o->value, v);
        return 2;
    }
    *first = !strcmp(v, w0);
    return 0;
}

/* --mtc-freq, --nom-freq, --cpuid-0x15.eax, --cpuid-0x15.ebx: the timing configuration, remembered as given. */
static int set_timing(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    uint64_t x;
    int mtc = o->name[2] == 'm', nom = o->name[2] == 'n';
    if (fwpt_parse_u64(v, 0, &x) != 0 || x > (mtc ? 15u : nom ? 255u : UINT32_MAX)) {
        fprintf(stderr, "fwpt flow: %s: expected a number (at most %llu), got '%s'\n", a,
                (unsigned long long)(mtc ? 15u : nom ? 255u : UINT32_MAX), v);
        return 2;
    }
    if (mtc)
        fo->tcfg.mtc_freq = (uint8_t)x, fo->tcfg_given |= 4;
    else if (nom)
        fo->tcfg.nom_freq = (uint8_t)x, fo->tcfg_given |= 2;
    else if (o->name[14] == 'a')
        fo->tcfg.cpuid_15_eax = (uint32_t)x, fo->tcfg_given |= 8;
    else
        fo->tcfg.cpuid_15_ebx = (uint32_t)x, fo->tcfg_given |= 16;
    return 0;
}

static int set_cov_size(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    uint64_t n;
    (void)o, (void)a;
    if (fwpt_parse_size(v, &n) != 0 || !n || (n & (n - 1)) || n > (1ull << 30)) {
        fprintf(stderr, "fwpt flow: --coverage-size: expected a power of two up to 1G, got '%s'\n", v);
        return 2;
    }
    fo->fsum.cov_size = (size_t)n;
    return 0;
}

static int set_jobs(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    (void)o;
    if (fwpt_parse_u64(v, 0, &fo->jobs) != 0 || !fo->jobs || fo->jobs > 256) {
        fprintf(stderr, "fwpt flow: %s: expected 1..256 threads, got '%s'\n", a, v);
        return 2;
    }
    return 0;
}

static int set_split(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct flow_opts *fo = dst;
    (void)o, (void)a;
    if (fwpt_parse_size(v, &fo->split) != 0 || !fo->split) {
        fprintf(stderr, "fwpt flow: --split: expected a size in bytes, got '%s'\n", v);
        return 2;
    }
    return 0;
}

static int set_source_root(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    (void)o, (void)a;
    return flow_annotate_root(&((struct flow_opts *)dst)->ann, v);
}

/* --top, --depth: the uint64_t at o->off. */
static int set_count(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    uint64_t x;
    if (fwpt_parse_u64(v, 0, &x) != 0 || x > UINT32_MAX) {
        fprintf(stderr, "fwpt flow: %s: expected %s, got '%s'\n", a, o->value, v);
        return 2;
    }
    *(uint64_t *)((char *)dst + o->off) = x;
    return 0;
}

#define FLAG(name, alias, field, help) {name, alias, NULL, false, offsetof(struct flow_opts, field), NULL, help}
#define VALUE(name, alias, value, eq, field, set, help) \
    {name, alias, value, eq, offsetof(struct flow_opts, field), set, help}
#define FILE_OUT(name, field, help) VALUE(name, NULL, "a FILE to write", false, field, fwpt_opt_set_str, help)

/* fwpt flow's options, in the order --help lists them. */
static const struct fwpt_opt flow_options[] = {
    VALUE("--image", NULL, "FILE@ADDR", false, im, set_image,
          "  --image F@A    code of image file F loaded at address A (hex; repeatable)\n"),
    VALUE("--symbols", NULL, "a symbol file, a directory or FILE@BASE", false, symbols, fwpt_opt_add_str,
          "  --symbols P    names and source lines from the build's symbol files (repeatable): P an ELF file\n"
          "                 (EDK2 .debug, gnu-efi .so), a PDB, a directory searched (an EDK2 Build/ tree), or\n"
          "                 FILE@BASE; each traced image gets the file its CodeView path, FV file GUID or name\n"
          "                 points to, only when that file's code agrees with the traced bytes (a PDB: its\n"
          "                 GUID/age are the image's) (docs/symbols.md)\n"),
    VALUE("--format", NULL, "'text' or 'jsonl'", true, format, fwpt_opt_set_str,
          "  --format F     text (default) or jsonl: one JSON object per instruction/event (and per row of\n"
          "                 --profile, --calls, --edges)\n"),
    FLAG("--calls", NULL, calls, "  --calls        call tree with counts instead of instructions\n"),
    FLAG("--profile", NULL, profile, "  --profile      instructions per module and per function entry\n"),
    FLAG("--images", NULL, images,
         "  --images       the images in the order they first ran: instructions (and TSC ticks when the trace\n"
         "                 has time) self and with callees, the calls that entered each, its top functions\n"
         "                 (--top); not with --calls, --profile, --edges, --coverage, --annotate, --time,\n"
         "                 --ticks, --by time, -j, --split\n"),
    VALUE("--top", NULL, "a number of functions (0 or more, decimal or 0x-hex)", false, top, set_count,
          "  --top N        functions shown by --profile (default 40); --images: per image (at most 64)\n"),
    VALUE("--depth", NULL, "a number of call levels (0 or more, decimal or 0x-hex)", false, depth, set_count,
          "  --depth N      call tree depth shown by --calls (default 32)\n"),
    FLAG("--no-disasm", NULL, no_disasm, "  --no-disasm    no Zydis disassembly in the instruction listing\n"),
    VALUE("--cpu", NULL, "FAMILY/MODEL[/STEPPING] or none", true, cpu, set_cpu,
          "  --cpu F/M[/S]  the Intel processor that wrote the trace: family/model[/stepping], decimal or\n"
          "                 0x-hex (as ptxed --cpu); the decoder applies its errata. none: no processor.\n"
          "                 Default: the \"cpu\" of DIR's sideband.json, else none\n"),
    VALUE("--filter", NULL, "A-B (hex)", false, filter, set_filter,
          "  --filter A-B   an IP filter range (hex, inclusive; up to 4) the trace was recorded with:\n"
          "                 binds a TIP.PGD without IP to the direct branch that left the ranges\n"
          "                 (erratum SKL014). Default: the filter ranges of DIR's sideband.json\n"),
    FLAG("--iflags", NULL, iflags,
         "  --iflags       RFLAGS.IF changes as events (iflags): for traces recorded with Event Trace\n"
         "                 (EventEn=1); without it MODE.Exec's IF bit is always 0. Default: off\n"),
    FLAG("--time", NULL, show_time,
         "  --time         the time of every instruction and event (TSC ticks, as libipt's pt_insn_time):\n"
         "                 text: a first column (\"~\" after it: no TSC yet, counted from 0); jsonl: \"tsc\"\n"),
    FLAG("--ticks", NULL, ticks,
         "  --ticks        and a tick line where a branch's packet changed the time (ptxed --event:tick)\n"),
    VALUE("--by", NULL, "'time' or 'insns'", false, by_time, set_choice,
          "  --by time|insns  what --profile, --calls, --flame, --folded and --report count: TSC ticks\n"
          "                 (spread over the instructions between two time changes) or instructions (default)\n"),
    VALUE("--mtc-freq", NULL, "a number 0..15", false, tcfg, set_timing,
          "  --mtc-freq N, --nom-freq N, --cpuid-0x15.eax N, --cpuid-0x15.ebx N, --keep-tcal-on-ovf\n"
          "                 the timing configuration (as fwpt dump). Default: DIR's sideband.json\n"),
    VALUE("--nom-freq", NULL, "a number 0..255", false, tcfg, set_timing, NULL),
    VALUE("--cpuid-0x15.eax", NULL, "a number", false, tcfg, set_timing, NULL),
    VALUE("--cpuid-0x15.ebx", NULL, "a number", false, tcfg, set_timing, NULL),
    FLAG("--keep-tcal-on-ovf", NULL, tcfg.keep_tcal_on_ovf, NULL),
    FILE_OUT("--flame", flame_path,
             "  --flame F      write the flame graph of the call tree to F (self-contained interactive SVG)\n"),
    FILE_OUT("--folded", folded_path,
             "  --folded F     write folded stacks to F (flamegraph.pl, inferno, speedscope: 'a;b;c count')\n"),
    FILE_OUT("--chrome-trace", chrome_path,
             "  --chrome-trace F  write the calls to F in the Trace Event Format (Perfetto, chrome://tracing):\n"
             "                 one complete slice per call, the instruction index as the clock\n"),
    FILE_OUT("--report", report_path,
             "  --report F     write the report page to F (as `fwpt report DIR -o F`)\n"
             "                 With any of these four and neither --calls nor --profile, nothing goes to stdout\n"),
    FLAG("--edges", NULL, fsum.edges,
         "  --edges        every distinct edge (a taken transfer between blocks: from the branch, or an\n"
         "                 interrupt's IP, to where the flow goes on) with how often it was taken\n"),
    FILE_OUT("--coverage", fsum.cov_path,
             "  --coverage F   write an AFL-style edge bitmap to F: one 8-bit counter (wrapping) per edge at\n"
             "                 ((h(from) >> 1) ^ h(to)) mod size; RET compression kept (docs/performance.md)\n"),
    VALUE("--coverage-size", NULL, "a power of two up to 1G", false, fsum.cov_size, set_cov_size,
          "  --coverage-size N  bitmap bytes, a power of two (K/M suffixes; default 64K)\n"),
    FLAG("--coverage-each", NULL, cov_each,
         "  --coverage-each  with several traces (DIR|FILE ...): F holds one bitmap per trace, in the order\n"
         "                 given (N x size bytes); without it, their sum. The traces are decoded one after the\n"
         "                 other by one decoder whose caches stay warm while the code is the same\n"),
    VALUE("--annotate", NULL, "a function: NAME, Module!NAME or Module+0xOFF", false, ann.func, fwpt_opt_set_str,
          "  --annotate FUNC  FUNC's source lines with the instructions (--by time: ticks) each took, from the\n"
          "                 --symbols files: NAME (every function of that name), Module!NAME or Module+0xOFF\n"),
    VALUE("--source-root", NULL, "OLD=NEW", false, ann, set_source_root,
          "  --source-root OLD=NEW  read a source file whose path begins with OLD under NEW (repeatable)\n"),
    VALUE("--jobs", "-j", "1..256 threads", false, jobs, set_jobs,
          "  -j N, --jobs N threads for the summaries (default: the cores present); the trace is cut at\n"
          "                 PSBs, the output is that of one thread\n"),
    VALUE("--split", NULL, "a size in bytes", false, split, set_split,
          "  --split N      trace bytes per piece for -j, at least (K/M suffixes; default 64K)\n"),
    VALUE("--walk", NULL, "'summary' or 'insn'", false, walk_insn, set_choice,
          "  --walk W       summary (default): summaries walk blocks and paths, never single instructions;\n"
          "                 insn: from every instruction (the listing's walk; -j does not apply)\n"),
    FLAG("--quiet", "-q", quiet, "  -q, --quiet    no progress line and no notes on stderr (errors only)\n"),
    FLAG("--slow-print", NULL, slow_print,
         "  --slow-print   list through the one-event-at-a-time printer (the same bytes, slower; tests, bench)\n"),
};

static void usage(FILE *f);
static const struct fwpt_opt_cmd flow_cmd = {"fwpt flow", "DIR|FILE", flow_options,
                                             sizeof flow_options / sizeof flow_options[0], true, usage,
                                             true, offsetof(struct flow_opts, more)};

static void usage(FILE *f)
{
    fputs("usage: fwpt flow DIR|FILE [--image FILE@ADDR ...] [--format text|jsonl] [--calls] [--profile]\n"
          "  DIR            a saved \\fwpt\\ directory: trace.pt, sideband.json, img-BASE.bin\n"
          "  FILE           a raw trace (code from --image)\n"
          "  DIR|FILE ...   several traces of the same code: with --coverage only (the bitmap of each, or\n"
          "                 their sum), one decoder kept warm from one to the next, one line per trace\n", f);
    fwpt_opt_help(&flow_cmd, f);
    fputs("A decode or listing that runs over a second shows its progress on stderr when stderr is a terminal\n"
          "(and, for a listing, stdout a file): trace bytes and instructions decoded, the rate.\n"
          "Exit status: 0 the whole trace decoded; 1 decode errors, nothing decoded or unusable input (named on\n"
          "stderr); 2 bad usage; 3 a result without errors, but incomplete (the trace ends with tracing on, or is\n"
          "not the size sideband.json records).\n", f);
}

const char *fwpt_flow_option_value(const char *a)
{
    const struct fwpt_opt *o = fwpt_opt_find(&flow_cmd, a);
    return o ? o->value : NULL;
}

/* The options of argv into fo: FWPT_OPT_RUN, or the exit status (--help, bad usage). */
static int flow_parse(struct flow_opts *fo, int argc, char **argv)
{
    fo->format = "text";
    fo->top = 40;
    fo->depth = 32;
    fo->fsum.cov_size = 1 << 16;
    int rc = fwpt_opt_parse(&flow_cmd, argc, argv, fo, &fo->path);
    if (rc != FWPT_OPT_RUN)
        return rc;
    if (!fo->path) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(fo->format, "text"))
        fo->fmt = FWPT_FLOW_FMT_TEXT;
    else if (!strcmp(fo->format, "jsonl"))
        fo->fmt = FWPT_FLOW_FMT_JSONL;
    else {
        fprintf(stderr, "fwpt flow: --format: expected 'text' or 'jsonl', got '%s'\n", fo->format);
        return 2;
    }
    if (fo->images) { /* the timeline walks every instruction, with the time: one view at a time */
        const char *other = fo->calls ? "--calls" : fo->profile ? "--profile" : fo->fsum.edges ? "--edges"
                            : fo->fsum.cov_path ? "--coverage" : fo->ann.func ? "--annotate" : fo->show_time ? "--time"
                            : fo->ticks ? "--ticks" : fo->by_time ? "--by time" : NULL;
        if (other) {
            fprintf(stderr, "fwpt flow: --images and %s are two views: give one (--images counts instructions, and "
                            "TSC ticks when the trace has time)\n", other);
            return 2;
        }
        if (fo->jobs || fo->split) {
            fprintf(stderr, "fwpt flow: --images: %s does not apply: the timeline follows every instruction in "
                            "order on one thread (the summary walk's pieces do not keep the images' call stack)\n",
                    fo->jobs ? "-j/--jobs" : "--split");
            return 2;
        }
    }
    if (fo->cov_each && !fo->fsum.cov_path) {
        fprintf(stderr, "fwpt flow: --coverage-each: needs --coverage F (the file that holds the bitmaps)\n");
        return 2;
    }
    if (fo->more.n) { /* several traces: their coverage, one decoder kept warm (tools/flow_covmany) */
        const char *other = fo->calls ? "--calls" : fo->profile ? "--profile" : fo->images ? "--images"
                            : fo->fsum.edges ? "--edges" : fo->flame_path ? "--flame" : fo->folded_path ? "--folded"
                            : fo->chrome_path ? "--chrome-trace" : fo->report_path ? "--report"
                            : fo->ann.func ? "--annotate" : fo->symbols.n ? "--symbols" : fo->show_time ? "--time"
                            : fo->ticks ? "--ticks" : fo->by_time ? "--by time" : fo->walk_insn ? "--walk insn"
                            : fo->jobs ? "-j/--jobs" : fo->split ? "--split" : fo->slow_print ? "--slow-print"
                            : fo->iflags ? "--iflags" : fo->no_disasm ? "--no-disasm"
                            : fo->fmt != FWPT_FLOW_FMT_TEXT ? "--format jsonl" : NULL;
        if (!fo->fsum.cov_path || other) {
            fprintf(stderr, "fwpt flow: %zu traces given ('%s', '%s'%s): several traces are decoded only for "
                            "--coverage F (with --coverage-size, --coverage-each, --image, --cpu, --filter, --quiet)%s%s"
                            "\n", fo->more.n + 1, fo->path, fo->more.v[0], fo->more.n > 1 ? ", ..." : "",
                    other ? "; not with " : "", other ? other : "");
            return 2;
        }
    }
    if (fo->ann.func && !fo->symbols.n) { /* said before any output file is opened */
        fprintf(stderr, "fwpt flow: --annotate %s: needs --symbols (the build's symbol files name the functions and "
                        "their source lines)\n", fo->ann.func);
        return 2;
    }
    return FWPT_OPT_RUN;
}


/* Decode errors as they are shown: the first ERR_SHOWN of each status in line, the others counted and summarized
 * in one line (a trace without its code repeats one error hundreds of times). */
#define ERR_SHOWN 3
struct err_show {
    struct fwpt_flow_printer *pr; /* where they go */
    bool all;                     /* a JSON lines listing: every one (a program reads it) */
    unsigned long count[FWPT_STATUS_COUNT + 1];
};

static bool err_visible(struct err_show *e, const struct fwpt_flow_event *ev)
{
    unsigned st = ev->status < FWPT_STATUS_COUNT ? ev->status : FWPT_STATUS_COUNT;
    return ++e->count[st] <= ERR_SHOWN || e->all;
}

static void err_show_one(void *ctx, const struct fwpt_flow_event *ev)
{
    struct err_show *e = ctx;
    if (err_visible(e, ev))
        fwpt_flow_print_event(e->pr, ev);
}

/* One line per status with errors not shown: text "-- error: E_X: N more not shown (M in all; ..)", JSON lines
 * {"type":"errors_not_shown","status":"E_X","count":N,"total":M}. */
static void err_summary(struct err_show *e)
{
    const struct fwpt_sink *o = e->pr->out;
    for (unsigned st = 0; st <= FWPT_STATUS_COUNT && !e->all; st++) {
        if (e->count[st] <= ERR_SHOWN)
            continue;
        const char *name = st < FWPT_STATUS_COUNT ? fwpt_status_name((enum fwpt_status)st) : "?";
        if (e->pr->format == FWPT_FLOW_FMT_JSONL)
            fwpt_printf(o, "{\"type\":\"errors_not_shown\",\"status\":\"%s\",\"count\":%lu,\"total\":%lu}\n", name,
                        e->count[st] - ERR_SHOWN, e->count[st]);
        else
            fwpt_printf(o, "-- error: %s: %lu more not shown (%lu in all; the first %d are above)\n", name,
                        e->count[st] - ERR_SHOWN, e->count[st], ERR_SHOWN);
    }
}

/* The offset of the trace's last PSB (0 when it has none). */
static size_t last_psb(const uint8_t *trace, size_t n)
{
    struct fwpt_pkt_decoder dec;
    fwpt_pkt_init(&dec, trace, n);
    return fwpt_pkt_sync_backward(&dec) == FWPT_OK ? dec.offset : 0;
}

static int cmp_base(const void *a, const void *b)
{
    const struct fwpt_module *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* One run of fwpt flow, from its inputs to its exit status (flow_steps): flow_inputs, flow_setup, flow_decode (one
 * of three walks), flow_summaries, flow_pictures, flow_status. Heap-allocated (the block cache alone is large). */
struct flow_run {
    /* the inputs (flow_inputs) */
    uint8_t *trace;
    size_t trace_size;
    uint64_t recorded_bytes; /* sideband.json's "trace":{"bytes":N}, 0: not given */
    char trace_name[2048];   /* the trace file, as messages name it */
    bool is_dir;
    struct fwpt_sideband_run sbr;
    uint64_t cpuid15_ecx;
    int refused;    /* empty or without a PSB: only a report page is written, saying so */
    int incomplete; /* a result, but not of the whole run: exit status 3 */
    /* what the decode writes to and with (flow_setup) */
    struct fwpt_modules mods;
    struct fwpt_names names;
    struct fwpt_resolver resolver; /* the symbol files of --symbols (resolve == NULL: none) */
    struct fwpt_symmap *symmap;    /* what resolver answers from */
    struct fwpt_errata errata;
    int listing, pictures, stdout_quiet, time_on;
    FILE *flame_f, *folded_f, *chrome_f, *report_f;
    struct fwpt_zydis *dz;
    struct fwpt_flow flow;
    struct fwpt_flow_block cache[1 << 16]; /* indexed by IP bits: 64 KiB of code map without a collision */
    struct fwpt_sink out, err_out, chrome_sink;
    struct fwpt_flow_printer pr, err_pr;
    struct err_show es;
    struct fwpt_profile *prof;
    struct fwpt_chrome chrome;
    struct fwpt_time_spread spread;
    struct fwpt_flow_event *held; /* --by time: the events spread waits with */
    struct fwpt_timeline *tl;     /* --images, --report: the images in the order they ran (NULL: not asked) */
    struct fwpt_time_spread tl_spread; /* --images: the timeline's ticks (its events wait in tl_held) */
    struct fwpt_flow_event *tl_held;
    struct fwpt_progress prog;
    /* what the walk found (flow_decode) */
    unsigned long errors;
    uint64_t ninsns, nevents, lost, cut_ip;
    bool any_time; /* an instruction or event had a time (--by time has something to count) */
    enum fwpt_status fst; /* why the decode ended: FWPT_E_EOS, else a decoder bug (FWPT_E_INTERNAL) */
    bool cut, nothing;
};

/* sideband.json of a saved directory (at p, loaded): images, filter ranges, the run, the trace's size, the timing
 * configuration and the processor, where the options did not give them. */
static int flow_sideband(struct flow_opts *o, struct flow_run *r, const char *p)
{
    char *sb;
    size_t sbn;
    const int loaded = fwpt_sideband_load("fwpt flow", p, &sb, &sbn);
    if (loaded > 0)
        return 1; /* not valid JSON, said */
    if (loaded < 0) {
        if (!o->im.n) {
            fprintf(stderr, "fwpt flow: %s: %s: no images, so no code to decode with (a saved directory holds "
                            "its sideband.json; else give --image FILE@ADDR)\n", p, strerror(errno));
            return 1;
        }
        note("fwpt flow: %s: %s (only the --image code)\n", p, strerror(errno));
        return FWPT_OPT_RUN;
    }
    const char *text = sb;
    struct sideband_images sbi = {&o->im, p, 0};
    if (fwpt_sideband_images(text, o->path, add_sideband_image, &sbi) != 0)
        fprintf(stderr, "fwpt flow: %s: no usable \"images\" list (continuing with what was read)\n", p);
    if (sbi.bad)
        return 1;
    if (!o->n_filter) {
        int nf = fwpt_sideband_filters(text, o->filter, FWPT_FLOW_FILTERS);
        if (nf < 0)
            note("fwpt flow: %s: unusable \"addr_ranges\" (decoding without the IP filter ranges)\n", p);
        else
            o->n_filter = (uint32_t)nf;
    }
    fwpt_sideband_run(text, p, &r->sbr, note);
    r->recorded_bytes = fwpt_sideband_trace_bytes(text);
    struct fwpt_time_config from = {0};
    unsigned found = 0;
    if (fwpt_sideband_time(text, &from, &found) < 0)
        fprintf(stderr, "fwpt flow: %s: malformed cpuid_15h, max_nonturbo_ratio or settings (ignored)\n", p);
    if ((found & 1) && !(o->tcfg_given & 8))
        o->tcfg.cpuid_15_eax = from.cpuid_15_eax;
    if ((found & 1) && !(o->tcfg_given & 16))
        o->tcfg.cpuid_15_ebx = from.cpuid_15_ebx;
    if ((found & 2) && !(o->tcfg_given & 2))
        o->tcfg.nom_freq = from.nom_freq;
    if ((found & 4) && !(o->tcfg_given & 4))
        o->tcfg.mtc_freq = from.mtc_freq;
    const char *c15 = fwpt_json_value(text, "cpuid_15h");
    if (c15 && *c15 == '{') {
        int have_ecx = 0;
        const struct fwpt_json_field ecx[] = {{"ecx", NULL, 0, &r->cpuid15_ecx, &have_ecx}};
        fwpt_json_object(c15, ecx, 1);
    }
    if (!o->have_cpu && fwpt_sideband_cpu(text, &o->cpu) < 0)
        note("fwpt flow: %s: no usable \"cpu\" object (decoding without processor errata)\n", p);
    free(sb);
    return FWPT_OPT_RUN;
}

/* The trace (a file, or a saved directory's trace.pt and sideband.json) and the code to decode it with. */
static int flow_inputs(struct flow_opts *o, struct flow_run *r)
{
    struct stat st;
    snprintf(r->trace_name, sizeof r->trace_name, "%s", o->path);
    if (stat(o->path, &st) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", o->path, strerror(errno));
        return 1;
    }
    r->is_dir = S_ISDIR(st.st_mode);
    if (r->is_dir) {
        char p[2048];
        snprintf(r->trace_name, sizeof r->trace_name, "%s/trace.pt", o->path);
        if (fwpt_file_load(r->trace_name, &r->trace, &r->trace_size) != 0) {
            fprintf(stderr, "fwpt flow: %s: %s\n", r->trace_name, strerror(errno));
            return 1;
        }
        snprintf(p, sizeof p, "%s/sideband.json", o->path);
        int rc = flow_sideband(o, r, p);
        if (rc != FWPT_OPT_RUN)
            return rc;
    } else if (fwpt_file_load(o->path, &r->trace, &r->trace_size) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", o->path, strerror(errno));
        return 1;
    }
    /* empty or without a PSB: refused, but a report page still says so (in red) when one was asked for */
    r->refused = fwpt_trace_refuse("fwpt flow", r->trace_name, r->trace, r->trace_size);
    if (r->refused && !o->report_path)
        return 1;
    size_t with_code = 0;
    for (size_t k = 0; k < o->im.n; k++)
        with_code += o->im.v[k].code != NULL;
    if (!with_code) {
        if (r->is_dir)
            fprintf(stderr, "fwpt flow: %s: no image with code (%zu in its sideband.json): nothing to decode with\n",
                    o->path, o->im.n);
        else
            fprintf(stderr, "fwpt flow: %s: no code to decode with: a raw trace needs --image FILE@ADDR for the code "
                            "it ran (or give the saved \\fwpt\\ directory, whose sideband.json names its images)\n",
                    o->path);
        return 1;
    }
    if (r->recorded_bytes && r->recorded_bytes != r->trace_size) {
        fprintf(stderr, "fwpt flow: %s: %zu bytes, but sideband.json records %llu: %s\n", r->trace_name,
                r->trace_size, (unsigned long long)r->recorded_bytes,
                r->trace_size < r->recorded_bytes ? "the file is cut short; what follows is not the whole trace"
                                                  : "not the trace the run recorded");
        r->incomplete = 1;
    }
    if (o->im.n)
        qsort(o->im.v, o->im.n, sizeof *o->im.v, cmp_base);
    return FWPT_OPT_RUN;
}

/* The decoder at trace[from..) with the run's code, errata, filter ranges and IF events; 1 (said on stderr) when
 * it refuses its set-up. No PSB is not refused: the tool says that itself, and a report page still says so. */
static int flow_decoder(const struct flow_opts *o, struct flow_run *r, size_t from)
{
    enum fwpt_status ist = fwpt_flow_init(&r->flow, r->trace + from, r->trace_size - from, fwpt_image_modules_read,
                                          &r->mods, r->cache, sizeof r->cache / sizeof r->cache[0]);
    if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) {
        fprintf(stderr, "fwpt flow: the flow decoder refused its set-up: %s\n", fwpt_status_msg(ist));
        return 1;
    }
    fwpt_flow_set_errata(&r->flow, &r->errata);
    fwpt_flow_set_filter(&r->flow, (const uint64_t (*)[2])o->filter, o->n_filter);
    fwpt_flow_set_iflags(&r->flow, o->iflags);
    return 0;
}

/* --symbols: the symbol files matched to the images (tools/symmap) into r->resolver. What cannot be used is said
 * on stderr and changes nothing else: those images keep Module+0xOFF. */
static void flow_symbols(struct flow_opts *o, struct flow_run *r)
{
    if (!o->symbols.n)
        return;
    struct fwpt_symmap_image *v = calloc(o->im.n + 1, sizeof *v);
    r->symmap = fwpt_symmap_new("fwpt flow", stderr, o->quiet);
    if (!v || !r->symmap) {
        fprintf(stderr, "fwpt flow: out of memory (no names)\n");
        free(v);
        return;
    }
    for (size_t k = 0; k < o->im.n; k++) {
        const struct fwpt_module *m = &o->im.v[k];
        v[k] = (struct fwpt_symmap_image){m->name, m->base, m->size, m->code, (size_t)m->code_size, NULL, NULL};
        for (size_t j = 0; j < o->im.nids; j++)
            if (o->im.ids[j].base == m->base)
                v[k].codeview = o->im.ids[j].pdb, v[k].fv_guid = o->im.ids[j].fv_guid;
    }
    fwpt_symmap_match(r->symmap, o->symbols.v, o->symbols.n, v, o->im.n);
    r->resolver = fwpt_symmap_resolver(r->symmap);
    free(v);
}

/* Has the trace a timing packet (TSC, MTC, CYC)? Without one no instruction has a time: --images then walks without
 * the time (a third of its cost) and says there is none. A packet error: the next PSB. */
static bool trace_has_time(const uint8_t *trace, size_t n)
{
    struct fwpt_pkt_decoder d;
    struct fwpt_packet p;
    fwpt_pkt_init(&d, trace, n);
    if (fwpt_pkt_sync_forward(&d) != FWPT_OK)
        return false;
    for (;;) {
        enum fwpt_status st = fwpt_pkt_next(&d, &p);
        if (st == FWPT_E_EOS)
            return false;
        if (st != FWPT_OK) {
            if (fwpt_pkt_sync_forward(&d) != FWPT_OK)
                return false;
            continue;
        }
        if (p.type == FWPT_PKT_TSC || p.type == FWPT_PKT_MTC || p.type == FWPT_PKT_CYC)
            return true;
    }
}

/* The timeline of --images and of the report page: with --images its ticks through a spread of its own (the
 * profile keeps counting instructions: its top functions are by instructions); a report by time (--by time) feeds
 * it from the profile's spread. */
static int flow_timeline_setup(struct flow_opts *o, struct flow_run *r)
{
    r->tl = malloc(sizeof *r->tl);
    struct fwpt_timeline_image *img = calloc(o->im.n + 1, sizeof *img);
    struct fwpt_timeline_entry *ent = malloc(FWPT_TIMELINE_ENTRIES * sizeof *ent);
    if (!r->tl || !img || !ent) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    fwpt_timeline_init(r->tl, &r->mods, img, ent, FWPT_TIMELINE_ENTRIES);
    if (r->held) {
        r->spread.also = fwpt_timeline_add_hook, r->spread.also_ctx = r->tl;
    } else if (o->images && r->time_on) {
        r->tl_held = malloc((1u << 20) * sizeof *r->tl_held);
        if (!r->tl_held) {
            fprintf(stderr, "fwpt flow: out of memory\n");
            return 1;
        }
        fwpt_time_spread_init(&r->tl_spread, NULL, r->tl_held, 1u << 20);
        r->tl_spread.also = fwpt_timeline_add_hook, r->tl_spread.also_ctx = r->tl;
    }
    return FWPT_OPT_RUN;
}

/* What the decode writes to (the output files opened first, so a bad path fails at once) and decodes with. */
static int flow_setup(struct flow_opts *o, struct flow_run *r)
{
    r->mods = (struct fwpt_modules){o->im.v, o->im.n, 0};
    r->pictures = o->flame_path || o->folded_path || o->chrome_path || o->report_path;
    r->listing = !o->calls && !o->profile && !r->pictures && !o->fsum.edges && !o->fsum.cov_path && !o->ann.func &&
                 !o->images;
    o->fsum.jsonl = o->fmt == FWPT_FLOW_FMT_JSONL;
    r->flame_f = open_out(o->flame_path), r->folded_f = open_out(o->folded_path);
    r->chrome_f = open_out(o->chrome_path), r->report_f = open_out(o->report_path);
    if ((o->flame_path && !r->flame_f) || (o->folded_path && !r->folded_f) || (o->chrome_path && !r->chrome_f) ||
        (o->report_path && !r->report_f))
        return 1;
    if (!r->sbr.run.target) { /* a raw trace: the report names the file */
        fwpt_sideband_run("", o->path, &r->sbr, note);
        const char *slash = strrchr(o->path, '/');
        snprintf(r->sbr.target, sizeof r->sbr.target, "%s", slash ? slash + 1 : o->path);
        snprintf(r->sbr.v_reason, sizeof r->sbr.v_reason, "a trace file without sideband.json");
    }
    const int have_sym = r->sbr.sym.name && r->sbr.sym.name[0];
    /* the views ask r->resolver (filled from --symbols; resolve == NULL: none, and every name is Module+0xOFF) */
    r->names = (struct fwpt_names){&r->mods, have_sym ? &r->sbr.sym : NULL, have_sym ? 1u : 0u, &r->resolver};
    if (!o->no_disasm && r->listing) {
        r->dz = calloc(1, sizeof *r->dz);
        fwpt_zydis_init(r->dz, fwpt_image_modules_read, &r->mods);
    }
    fwpt_errata_for_cpu(&o->cpu, &r->errata);
    if (flow_decoder(o, r, 0))
        return 1;
    r->time_on = o->show_time || o->ticks || o->by_time || (o->images && trace_has_time(r->trace, r->trace_size));
    if (r->time_on)
        fwpt_flow_set_time(&r->flow, &o->tcfg);
    r->out = fwpt_file_sink(stdout), r->err_out = fwpt_file_sink(stderr);
    r->pr = (struct fwpt_flow_printer){&r->out, o->fmt, &r->mods, r->dz ? fwpt_zydis_disasm : NULL, r->dz, 0,
                                       &r->resolver};
    /* the decode errors: in line, but only the first few of a kind (a JSON listing: every one); on stderr when
     * stdout is promised nothing (pictures and files only) */
    r->stdout_quiet = !r->listing && !o->calls && !o->profile && !o->fsum.edges && !o->images;
    r->err_pr = (struct fwpt_flow_printer){&r->err_out, FWPT_FLOW_FMT_TEXT, &r->mods, NULL, NULL, 0, &r->resolver};
    r->es.pr = r->stdout_quiet ? &r->err_pr : &r->pr;
    r->es.all = r->listing && o->fmt == FWPT_FLOW_FMT_JSONL;
    if (o->calls || o->profile || r->pictures || (o->ann.func && o->by_time) || o->images) {
        size_t nfuncs = 1 << 16, nnodes = 1 << 18, nhash = 1 << 19;
        r->prof = malloc(sizeof *r->prof);
        fwpt_profile_init(r->prof, &r->mods, calloc(o->im.n + 1, sizeof(uint64_t)),
                          malloc(nfuncs * sizeof(struct fwpt_profile_func)), nfuncs,
                          malloc(nnodes * sizeof(struct fwpt_profile_node)), nnodes,
                          malloc(nhash * sizeof(uint32_t)), nhash);
    }
    r->chrome_sink = fwpt_file_sink(r->chrome_f);
    if (r->chrome_f)
        fwpt_flame_chrome_begin(&r->chrome, r->prof, &r->names, &r->chrome_sink);
    /* a listing shows the line only when it goes to a file (or /dev/null) */
    fwpt_progress_start(&r->prog, "fwpt flow", "instructions", r->trace_size,
                        o->quiet || (r->listing && !fwpt_progress_stdout_is_file()));
    if (r->prof && o->by_time) {
        r->held = malloc((1u << 20) * sizeof *r->held);
        fwpt_time_spread_init(&r->spread, r->prof, r->held, 1u << 20);
    }
    if (o->images || o->report_path)
        return flow_timeline_setup(o, r);
    return FWPT_OPT_RUN;
}

/* The counts per address of --annotate and of a report page with symbols (after the resolver is set up). */
static int flow_annotate_setup(struct flow_opts *o, struct flow_run *r)
{
    int rc = flow_annotate_begin(&o->ann, &r->resolver, o->report_path != NULL);
    if (rc)
        return rc;
    r->spread.addrs = o->ann.counts; /* --by time: each instruction's ticks */
    return FWPT_OPT_RUN;
}

/* The summary walk: blocks and paths, never single instructions, on -j threads. */
static int walk_summary(struct flow_opts *o, struct flow_run *r)
{
    struct fwpt_par_setup ps = {.trace = r->trace, .len = r->trace_size, .read = fwpt_image_modules_read,
                                .read_ctx = &r->mods, .errata = &r->errata,
                                .filter = (const uint64_t (*)[2])o->filter, .n_filter = o->n_filter,
                                .iflags = o->iflags, .mods = &r->mods,
                                .jobs = o->jobs ? (unsigned)o->jobs : fwpt_parallel_cores(),
                                .piece_bytes = (size_t)o->split, .profile = r->prof != NULL};
    if (flow_summary_run(&o->fsum, &ps, r->prof, err_show_one, &r->es) != 0) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    r->errors = o->fsum.out.nerrors;
    r->lost = o->fsum.out.bytes_skipped;
    r->fst = FWPT_E_EOS;
    r->ninsns = o->fsum.out.insns;
    /* the threads report no progress of their own: the line gives what they walked when they are done */
    fwpt_progress(&r->prog, r->trace_size, o->fsum.out.insns, 0);
    /* where the trace ends: the walk of its last PSB's part alone (the listing's fwpt_flow_cut) */
    if (flow_decoder(o, r, last_psb(r->trace, r->trace_size)))
        return 1;
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(&r->flow, &ev) == FWPT_OK)
        ;
    return FWPT_OPT_RUN;
}

/* The fast listing (render/flow_list over fwpt_flow_next_batch): the same bytes as the event printer. */
struct fast_list {
    char obuf[1 << 16]; /* one fwrite per 64 KiB */
    struct fwpt_list_asm acache[1 << 14];
    struct fwpt_list_name ncache[1 << 14]; /* 4 MiB: the names of 16K addresses (docs/performance.md) */
    struct fwpt_flow_lister lister;
};

static int list_fast(struct flow_opts *o, struct flow_run *r)
{
    struct fast_list *fl = malloc(sizeof *fl);
    struct fwpt_list_module *pre = calloc(o->im.n + 1, sizeof *pre);
    if (!fl || !pre) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    fwpt_flow_list_init(&fl->lister, &r->out, o->fmt, &r->mods, pre, r->dz ? fwpt_zydis_disasm : NULL, r->dz,
                        fl->acache, sizeof fl->acache / sizeof fl->acache[0], fl->obuf, sizeof fl->obuf);
    fwpt_flow_list_names(&fl->lister, &r->resolver, fl->ncache, sizeof fl->ncache / sizeof fl->ncache[0]);
    const struct fwpt_flow_obuf_insn *bv;
    uint32_t bn;
    struct fwpt_flow_event ev;
    while ((r->fst = fwpt_flow_next_batch(&r->flow, &bv, &bn, &ev)) == FWPT_OK) {
        if (bn) {
            fwpt_flow_list_insns(&fl->lister, bv, bn);
            r->ninsns += bn;
        } else {
            if (ev.kind != FWPT_FLOW_ERROR)
                fwpt_flow_list_event(&fl->lister, &ev);
            else if (r->errors++, err_visible(&r->es, &ev))
                fwpt_flow_list_event(&fl->lister, &ev);
            r->nevents++;
        }
        fwpt_progress(&r->prog, r->flow.pkt.offset, r->ninsns, r->nevents);
    }
    if (fwpt_flow_cut(&r->flow, &r->cut_ip))
        fwpt_flow_list_cut(&fl->lister, r->cut_ip, r->trace_size);
    fwpt_flow_list_flush(&fl->lister);
    free(pre);
    free(fl);
    err_summary(&r->es);
    return FWPT_OPT_RUN;
}

/* One event of the instruction walk into the listing (with its time, --time, --ticks). tick_last: the time of the
 * last event or tick shown (libipt compares a tick with it). */
static void list_event(const struct flow_opts *o, struct flow_run *r, const struct fwpt_flow_event *ev, uint64_t tsc,
                       bool tok, uint64_t *tick_last)
{
    if (ev->kind == FWPT_FLOW_ERROR && !err_visible(&r->es, ev))
        return; /* counted: err_summary says how many */
    if (!o->show_time && !o->ticks) {
        fwpt_flow_print_event(&r->pr, ev);
        return;
    }
    fwpt_flow_print_event_time(&r->pr, ev, tsc, tok);
    uint64_t t;
    bool ok;
    if (o->ticks && ev->kind == FWPT_FLOW_INSN && fwpt_flow_tick(&r->flow, &t, &ok) && t != *tick_last) {
        fwpt_flow_print_tick(&r->pr, ev->ip, t, ok);
        *tick_last = t;
    } else if (ev->kind != FWPT_FLOW_INSN) {
        *tick_last = tsc;
    }
}

/* The instruction walk (fwpt_flow_next): the listing through the event printer, or the summaries of --walk insn
 * and --by time. */
static int walk_events(struct flow_opts *o, struct flow_run *r)
{
    if (!r->listing && flow_summary_insn_begin(&o->fsum) != 0) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    uint64_t tick_last = 0;
    struct fwpt_flow_event ev;
    while ((r->fst = fwpt_flow_next(&r->flow, &ev)) == FWPT_OK) {
        uint64_t tsc = 0;
        bool tok = r->time_on && fwpt_flow_time(&r->flow, &tsc) == FWPT_OK;
        r->any_time |= tok;
        if (ev.kind == FWPT_FLOW_INSN) {
            r->ninsns++;
            if (o->ann.counts && !r->held)
                fwpt_addr_counts_add(o->ann.counts, ev.ip, 1);
        } else {
            r->nevents++;
        }
        if (ev.kind == FWPT_FLOW_ERROR)
            r->errors++;
        if (!r->listing)
            flow_summary_insn_add(&o->fsum, &ev);
        if (r->tl_held)
            fwpt_time_spread_add(&r->tl_spread, &ev, tsc, tok);
        else if (r->tl && !r->held) /* with r->held: the profile's spread gives it each instruction's ticks */
            fwpt_timeline_add(r->tl, &ev, 0);
        if (r->prof) {
            if (r->held)
                fwpt_time_spread_add(&r->spread, &ev, tsc, tok);
            else
                fwpt_profile_add(r->prof, &ev);
            if (ev.kind == FWPT_FLOW_ERROR)
                err_show_one(&r->es, &ev); /* errors stay visible in summaries */
        } else if (!r->listing) {
            if (ev.kind == FWPT_FLOW_ERROR)
                err_show_one(&r->es, &ev); /* the edges and bitmap: no listing, the errors in line */
        } else {
            list_event(o, r, &ev, tsc, tok, &tick_last);
        }
        fwpt_progress(&r->prog, r->flow.pkt.offset, r->ninsns, r->nevents);
    }
    if (!r->prof && fwpt_flow_cut(&r->flow, &r->cut_ip))
        fwpt_flow_print_cut(&r->pr, r->cut_ip, r->trace_size); /* the listing's end is not where the code stopped */
    if (r->listing)
        err_summary(&r->es);
    return FWPT_OPT_RUN;
}

/* The decode by the walk the options ask for, then how it ended: errors, bytes skipped, a cut, nothing. */
static int flow_decode(struct flow_opts *o, struct flow_run *r)
{
    int rc = flow_annotate_setup(o, r);
    if (rc != FWPT_OPT_RUN)
        return rc;
    if (!r->listing && !o->walk_insn && !o->by_time && !o->ann.counts && !r->tl)
        rc = walk_summary(o, r);
    else if (r->listing && !o->slow_print && !o->show_time && !o->ticks)
        rc = list_fast(o, r);
    else
        rc = walk_events(o, r);
    if (rc != FWPT_OPT_RUN)
        return rc;
    if (!r->listing)
        err_summary(&r->es);
    fwpt_progress_end(&r->prog);
    if (r->listing || o->walk_insn || o->by_time || o->ann.counts || r->tl)
        r->lost = fwpt_flow_bytes_skipped(&r->flow);
    if (r->fst != FWPT_E_EOS) {
        fprintf(stderr, "fwpt flow: the decoder stopped before the end of the trace: %s\n", fwpt_status_msg(r->fst));
        r->errors++;
    }
    r->cut = fwpt_flow_cut(&r->flow, &r->cut_ip);
    r->nothing = !r->ninsns;
    if (r->nothing) {
        /* no result: no picture of nothing (the files opened are removed); a report page says so in red */
        fflush(stdout);
        FILE **const files[] = {&r->flame_f, &r->folded_f, &r->chrome_f};
        const char *const paths[] = {o->flame_path, o->folded_path, o->chrome_path};
        for (int k = 0; k < 3; k++)
            if (*files[k]) {
                fclose(*files[k]);
                *files[k] = NULL;
                unlink(paths[k]);
            }
        if (!r->refused)
            fprintf(stderr, "fwpt flow: %s: no instruction decoded (%lu decode error%s): no result%s\n",
                    r->trace_name, r->errors, r->errors == 1 ? "" : "s",
                    r->report_f ? "; the report page says so"
                    : r->pictures || o->fsum.cov_path ? ", no file written" : "");
        if (!r->report_f)
            return 1;
    }
    return FWPT_OPT_RUN;
}

/* The profile and call tree on stdout (--profile, --calls), with --by time's duration. */
static int flow_summaries(struct flow_opts *o, struct flow_run *r)
{
    if (r->held)
        fwpt_time_spread_end(&r->spread);
    if (r->tl_held)
        fwpt_time_spread_end(&r->tl_spread);
    if (r->tl)
        fwpt_timeline_end(r->tl);
    if (o->by_time && r->prof && !r->any_time && !r->nothing) {
        fprintf(stderr, "fwpt flow: %s: no time in the trace (no TSC, MTC or CYC packets, or no timing configuration "
                        "for them): --by time has nothing to count; --by insns counts instructions\n", r->trace_name);
        return 1;
    }
    const bool jsonl = o->fmt == FWPT_FLOW_FMT_JSONL;
    if (r->held && (o->profile || o->calls))
        fwpt_time_spread_duration(&r->spread, &o->tcfg, r->cpuid15_ecx, !strcmp(r->sbr.backend, "soft"),
                                  jsonl ? &r->err_out : &r->out);
    if (r->prof && !r->nothing) {
        if (o->profile && jsonl)
            fwpt_profile_print_jsonl(r->prof, r->names.resolver, &r->out, (size_t)o->top);
        else if (o->profile)
            fwpt_profile_print(r->prof, r->names.resolver, &r->out, (size_t)o->top);
        if (o->calls && jsonl)
            fwpt_profile_calltree_print_jsonl(r->prof, r->names.resolver, &r->out, (uint32_t)o->depth);
        else if (o->calls)
            fwpt_profile_calltree_print(r->prof, r->names.resolver, &r->out, (uint32_t)o->depth);
        if (o->images && jsonl)
            fwpt_timeline_print_jsonl(r->tl, r->prof, &r->names, r->any_time, (size_t)o->top, &r->out);
        else if (o->images)
            fwpt_timeline_print(r->tl, r->prof, &r->names, r->any_time, (size_t)o->top, &r->out);
    }
    return FWPT_OPT_RUN;
}

/* The files: Trace Event Format, folded stacks, flame graph, report page. 1 when the report page says something
 * in red (said on stderr too). */
static int flow_pictures(const struct flow_opts *o, struct flow_run *r)
{
    if (r->chrome_f)
        fwpt_flame_chrome_end(&r->chrome, r->prof);
    if (r->folded_f) {
        struct fwpt_sink fs = fwpt_file_sink(r->folded_f);
        fwpt_flame_folded_write(r->prof, &r->names, &fs);
    }
    if (r->flame_f) {
        char title[160];
        snprintf(title, sizeof title, "fwpt flame graph: %s", r->sbr.target[0] ? r->sbr.target : "-");
        struct fwpt_sink fs = fwpt_file_sink(r->flame_f);
        fwpt_flame_svg(r->prof, &r->names, title, 1, &fs);
    }
    if (!r->report_f)
        return 0;
    r->sbr.run.decode_errors = r->errors;
    r->sbr.run.decoded_insns = r->ninsns; /* the instruction walk's or the summary walk's */
    r->sbr.run.timeline = r->tl;
    r->sbr.run.timeline_ticks = r->held && r->any_time;
    report_decoded(&r->sbr.run, r->cut, r->trace, r->trace_size);
    struct fwpt_sink fs = fwpt_file_sink(r->report_f);
    fwpt_report_html(&r->sbr.run, r->prof, &r->names, &fs);
    if (!fwpt_report_mismatch(&r->sbr.run, NULL))
        return 0;
    /* the page says it in red: so do stderr and the exit status */
    struct fwpt_sink es = fwpt_file_sink(stderr);
    fprintf(stderr, "fwpt flow: %s: ", o->path);
    fwpt_report_mismatch(&r->sbr.run, &es);
    fprintf(stderr, " (said in red on the report page %s)\n", o->report_path);
    return 1;
}

/* The exit status, with what stderr says of the errors and of a trace that ends with tracing on. */
static int flow_status(struct flow_run *r)
{
    if (r->errors) {
        note("fwpt flow: %lu decode error%s (shown %s); the decoder skipped %llu of %zu trace bytes "
             "(%.2f%%) until it had the IP again\n", r->errors, r->errors == 1 ? "" : "s",
             r->stdout_quiet ? "above" : "in line", (unsigned long long)r->lost, r->trace_size,
             r->trace_size ? 100.0 * (double)r->lost / (double)r->trace_size : 0.0);
    }
    if (r->cut) {
        /* why, when the run recorded it (sideband.json "trace"): else the two causes a file cannot tell apart */
        const char *why = r->sbr.run.stopped ? "the output stopped, as the run recorded (ToPA STOP / TraceStop): the "
                                               "rest of the call was not traced"
                          : r->sbr.run.error ? "an operational error stopped the output, as the run recorded"
                                             : "no TIP.PGD: the buffer filled or the file was cut";
        fprintf(stderr, "fwpt flow: %s: the trace ends with tracing on (%s): the walk stopped at 0x%llx; the result is "
                        "incomplete\n", r->trace_name, why, (unsigned long long)r->cut_ip);
        r->incomplete = 1;
    }
    return r->errors ? 1 : r->incomplete ? 3 : 0;
}

static int flow_steps(struct flow_opts *o, struct flow_run *r)
{
    int rc;
    quiet = o->quiet;
    if ((rc = flow_inputs(o, r)) != FWPT_OPT_RUN || (flow_symbols(o, r), (rc = flow_setup(o, r)) != FWPT_OPT_RUN) ||
        (rc = flow_decode(o, r)) != FWPT_OPT_RUN || (rc = flow_summaries(o, r)) != FWPT_OPT_RUN)
        return rc;
    int bad_out = !r->listing && !r->nothing && flow_summary_write(&o->fsum, &r->out, &r->mods, r->names.resolver) != 0;
    flow_summary_free(&o->fsum);
    if (flow_annotate_end(&o->ann, &r->resolver, &r->mods, o->by_time) != 0) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    r->sbr.run.lines = o->ann.counts ? &o->ann.ann : NULL; /* the report page's source lines of the top functions */
    int bad_func = !r->nothing && flow_annotate_print(&o->ann, &r->out, o->fmt == FWPT_FLOW_FMT_JSONL);
    fflush(stdout);
    int report_bad = flow_pictures(o, r);
    if (close_out(r->flame_f, o->flame_path) | close_out(r->folded_f, o->folded_path) |
        close_out(r->chrome_f, o->chrome_path) | close_out(r->report_f, o->report_path) | bad_out | report_bad |
        r->nothing | bad_func)
        return 1;
    return flow_status(r);
}

/* Several traces: the coverage of each through one warm decoder (tools/flow_covmany). */
static int flow_many(struct flow_opts *o)
{
    const char **paths = malloc((o->more.n + 1) * sizeof *paths);
    if (!paths) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    paths[0] = o->path;
    memcpy(paths + 1, o->more.v, o->more.n * sizeof *paths);
    const struct flow_covmany a = {paths, o->more.n + 1, o->fsum.cov_path, o->fsum.cov_size, o->cov_each,
                                   o->im.v, o->im.n, (const uint64_t (*)[2])o->filter, o->n_filter, o->have_cpu,
                                   o->cpu, o->quiet};
    const int rc = flow_covmany_run(&a);
    free(paths);
    return rc;
}

int fwpt_cmd_flow(int argc, char **argv)
{
    struct flow_opts *o = calloc(1, sizeof *o);
    struct flow_run *r = calloc(1, sizeof *r);
    if (!o || !r) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    int rc = flow_parse(o, argc, argv);
    if (rc == FWPT_OPT_RUN && o->more.n)
        rc = flow_many(o);
    else if (rc == FWPT_OPT_RUN)
        rc = flow_steps(o, r);
    if (r->symmap) {
        fwpt_symmap_summary(r->symmap);
        fwpt_symmap_free(r->symmap);
    }
    free(r);
    flow_annotate_free(&o->ann);
    free(o->more.v);
    free(o);
    return rc;
}
