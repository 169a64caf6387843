/* fwpt flow DIR|FILE [--image FILE@ADDR ...] [--format text|jsonl] [--calls] [--profile]
 * [--no-disasm] [--top N] [--depth N] [--cpu F/M[/S]|none] [--flame F] [--folded F] [--chrome-trace F]
 * [--report F] [--quiet] [--slow-print] [--edges] [--coverage F [--coverage-size N]] [-j N] [--split N]
 * [--walk summary|insn] [--time] [--ticks] [--by time|insns]: the executed instruction flow of a saved trace,
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
#include "analyze/time_spread.h"
#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/flow_summary.h"
#include "tools/sideband.h"
#include "tools/zydis.h"

static bool quiet; /* --quiet: no notes on stderr (errors still) */

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

/* The images: decode/image's map, grown here (names and code are heap copies kept to the end). */
struct images {
    struct fwpt_module *v;
    size_t n, cap;
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
    if (s->err)
        fprintf(stderr, "fwpt flow: %s: %s (image %s without code: its instructions cannot be decoded)\n", s->path,
                strerror(s->err), m->name);
    else if (s->path && s->code_size < s->size)
        fprintf(stderr, "fwpt flow: %s: %zu bytes, but %s records %llu (0x%llx) for image %s: the file is cut short "
                "(the code past byte %zu cannot be decoded)\n", s->path, s->code_size, c->sb_path,
                (unsigned long long)s->size, (unsigned long long)s->size, m->name, s->code_size);
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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fwpt flow DIR|FILE [--image FILE@ADDR ...] [--format text|jsonl] [--calls] [--profile]\n"
            "  DIR            a saved \\fwpt\\ directory: trace.pt, sideband.json, img-BASE.bin\n"
            "  FILE           a raw trace (code from --image)\n"
            "  --image F@A    code of image file F loaded at address A (hex; repeatable)\n"
            "  --format F     text (default) or jsonl: one JSON object per instruction/event (and per row of\n"
            "                 --profile, --calls, --edges)\n"
            "  --calls        call tree with counts instead of instructions\n"
            "  --profile      instructions per module and per function entry\n"
            "  --top N        functions shown by --profile (default 40)\n"
            "  --depth N      call tree depth shown by --calls (default 32)\n"
            "  --no-disasm    no Zydis disassembly in the instruction listing\n"
            "  --cpu F/M[/S]  the Intel processor that wrote the trace: family/model[/stepping], decimal or\n"
            "                 0x-hex (as ptxed --cpu); the decoder applies its errata. none: no processor.\n"
            "                 Default: the \"cpu\" of DIR's sideband.json, else none\n"
            "  --filter A-B   an IP filter range (hex, inclusive; up to 4) the trace was recorded with:\n"
            "                 binds a TIP.PGD without IP to the direct branch that left the ranges\n"
            "                 (erratum SKL014). Default: the filter ranges of DIR's sideband.json\n"
            "  --iflags       RFLAGS.IF changes as events (iflags): for traces recorded with Event Trace\n"
            "                 (EventEn=1); without it MODE.Exec's IF bit is always 0. Default: off\n"
            "  --time         the time of every instruction and event (TSC ticks, as libipt's pt_insn_time):\n"
            "                 text: a first column (\"~\" after it: no TSC yet, counted from 0); jsonl: \"tsc\"\n"
            "  --ticks        and a tick line where a branch's packet changed the time (ptxed --event:tick)\n"
            "  --by time|insns  what --profile, --calls, --flame, --folded and --report count: TSC ticks\n"
            "                 (spread over the instructions between two time changes) or instructions (default)\n"
            "  --mtc-freq N, --nom-freq N, --cpuid-0x15.eax N, --cpuid-0x15.ebx N, --keep-tcal-on-ovf\n"
            "                 the timing configuration (as fwpt dump). Default: DIR's sideband.json\n"

            "  --flame F      write the flame graph of the call tree to F (self-contained interactive SVG)\n"
            "  --folded F     write folded stacks to F (flamegraph.pl, inferno, speedscope: 'a;b;c count')\n"
            "  --chrome-trace F  write the calls to F in the Trace Event Format (Perfetto, chrome://tracing):\n"
            "                 one complete slice per call, the instruction index as the clock\n"
            "  --report F     write the report page to F (as `fwpt report DIR -o F`)\n"
            "                 With any of these four and neither --calls nor --profile, nothing goes to stdout\n"
            "  --edges        every distinct edge (a taken transfer between blocks: from the branch, or an\n"
            "                 interrupt's IP, to where the flow goes on) with how often it was taken\n"
            "  --coverage F   write an AFL-style edge bitmap to F: one 8-bit counter (wrapping) per edge at\n"
            "                 ((h(from) >> 1) ^ h(to)) mod size; RET compression kept (docs/performance.md)\n"
            "  --coverage-size N  bitmap bytes, a power of two (K/M suffixes; default 64K)\n"
            "  -j N, --jobs N threads for the summaries (default: the cores present); the trace is cut at\n"
            "                 PSBs, the output is that of one thread\n"
            "  --split N      trace bytes per piece for -j, at least (K/M suffixes; default 64K)\n"
            "  --walk W       summary (default): summaries walk blocks and paths, never single instructions;\n"
            "                 insn: from every instruction (the listing's walk; -j does not apply)\n"

            "  -q, --quiet    no progress line and no notes on stderr (errors only)\n"
            "  --slow-print   list through the one-event-at-a-time printer (the same bytes, slower; tests, bench)\n"
            "A decode or listing that runs over a second shows its progress on stderr when stderr is a terminal\n"
            "(and, for a listing, stdout a file): trace bytes and instructions decoded, the rate.\n"
            "Exit status: 0 the whole trace decoded; 1 decode errors, nothing decoded or unusable input (named on\n"
            "stderr); 2 bad usage; 3 a result without errors, but incomplete (the trace ends with tracing on, or is\n"
            "not the size sideband.json records).\n");
}

/* The options that take a value, and what the value is: the messages of a missing or refused one. */
static const struct {
    const char *name, *expect;
} value_options[] = {
    {"--format", "'text' or 'jsonl'"},
    {"--image", "FILE@ADDR"},
    {"--cpu", "FAMILY/MODEL[/STEPPING] or none"},
    {"--filter", "A-B (hex)"},
    {"--by", "'time' or 'insns'"},
    {"--mtc-freq", "a number 0..15"},
    {"--nom-freq", "a number 0..255"},
    {"--cpuid-0x15.eax", "a number"},
    {"--cpuid-0x15.ebx", "a number"},
    {"--flame", "a FILE to write"},
    {"--folded", "a FILE to write"},
    {"--chrome-trace", "a FILE to write"},
    {"--report", "a FILE to write"},
    {"--coverage", "a FILE to write"},
    {"--coverage-size", "a power of two up to 1G"},
    {"-j", "1..256 threads"},
    {"--jobs", "1..256 threads"},
    {"--split", "a size in bytes"},
    {"--walk", "'summary' or 'insn'"},
    {"--top", "a number of functions (0 or more, decimal or 0x-hex)"},
    {"--depth", "a number of call levels (0 or more, decimal or 0x-hex)"},
};

static const char *value_expected(const char *a)
{
    for (size_t k = 0; k < sizeof value_options / sizeof value_options[0]; k++)
        if (!strcmp(a, value_options[k].name))
            return value_options[k].expect;
    return NULL;
}

const char *fwpt_flow_option_value(const char *a) { return value_expected(a); }

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

int fwpt_cmd_flow(int argc, char **argv)
{
    const char *path = NULL, *format = "text";
    bool calls = false, profile = false, no_disasm = false, iflags = false, slow_print = false, show_time = false,
         ticks = false;
    int by_time = 0;
    quiet = false;
    struct fwpt_time_config tcfg = {0};
    unsigned tcfg_given = 0; /* as fwpt_sideband_time's found: bit 0 CPUID 15H (both), 1 nom, 2 MTCFreq */
    uint64_t cpuid15_ecx = 0;
    uint64_t top = 40, depth = 32;
    struct images im = {0};
    struct fwpt_cpu_id cpu = {0};
    int have_cpu = 0;
    struct fwpt_errata errata;
    uint64_t filter[FWPT_FLOW_FILTERS][2];
    uint32_t n_filter = 0;
    const char *flame_path = NULL, *folded_path = NULL, *chrome_path = NULL, *report_path = NULL;
    static struct fwpt_sideband_run sbr;
    static struct flow_summary fsum = {.cov_size = 1 << 16};
    uint64_t jobs = 0, split = 0;
    int walk_insn = 0;
    const struct fwpt_arg_flag flags[] = {
        {"--calls", &calls}, {"--profile", &profile}, {"--no-disasm", &no_disasm}, {"--slow-print", &slow_print},
        {"--quiet", &quiet}, {"-q", &quiet}, {"--iflags", &iflags}, {"--time", &show_time}, {"--ticks", &ticks},
        {"--keep-tcal-on-ovf", &tcfg.keep_tcal_on_ovf}, {"--edges", &fsum.edges},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool *on = fwpt_arg_flag(flags, sizeof flags / sizeof flags[0], a);
        const char *expect = value_expected(a);
        if (expect && !v) {
            fprintf(stderr, "fwpt flow: %s: expected %s, got nothing (it is the last argument)\n", a, expect);
            return 2;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (on) {
            *on = true;
        } else if (!strcmp(a, "--format")) {
            format = v, i++;
        } else if (!strncmp(a, "--format=", 9)) {
            format = a + 9;
        } else if (!strcmp(a, "--image")) {
            i++;
            const char *at = strrchr(v, '@');
            uint64_t base;
            if (!at || fwpt_parse_u64(at + 1, 1, &base) != 0) {
                fprintf(stderr, "fwpt flow: --image: expected FILE@ADDR, got '%s'\n", v);
                return 2;
            }
            struct fwpt_module *m = add_image(&im);
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
        } else if (!strcmp(a, "--cpu") || !strncmp(a, "--cpu=", 6)) {
            const char *cv = a[5] == '=' ? a + 6 : v;
            const char *why = "expected FAMILY/MODEL[/STEPPING] or none";
            if (a[5] != '=' && v)
                i++;
            if (!cv || fwpt_cpu_parse_why(cv, &cpu, &why) != FWPT_OK) {
                fprintf(stderr, "fwpt flow: --cpu: %s, got '%s'\n", why, cv ? cv : "(nothing)");
                return 2;
            }
            have_cpu = 1;
        } else if (!strcmp(a, "--filter")) {
            i++;
            const char *dash = strchr(v, '-');
            uint64_t fa, fb;
            char lo[32];
            if (!dash || (size_t)(dash - v) >= sizeof lo || n_filter == FWPT_FLOW_FILTERS) {
                fprintf(stderr, "fwpt flow: --filter: expected A-B (hex), at most %d, got '%s'\n", FWPT_FLOW_FILTERS, v);
                return 2;
            }
            memcpy(lo, v, (size_t)(dash - v));
            lo[dash - v] = 0;
            if (fwpt_parse_u64(lo, 1, &fa) != 0 || fwpt_parse_u64(dash + 1, 1, &fb) != 0 || fb < fa) {
                fprintf(stderr, "fwpt flow: --filter: expected A-B with hex A <= B, got '%s'\n", v);
                return 2;
            }
            filter[n_filter][0] = fa;
            filter[n_filter][1] = fb;
            n_filter++;
        } else if (!strcmp(a, "--by")) {
            if (strcmp(v, "time") && strcmp(v, "insns")) {
                fprintf(stderr, "fwpt flow: --by: expected %s, got '%s'\n", expect, v);
                return 2;
            }
            by_time = !strcmp(v, "time"), i++;
        } else if ((!strcmp(a, "--mtc-freq") || !strcmp(a, "--nom-freq") || !strcmp(a, "--cpuid-0x15.eax") ||
                    !strcmp(a, "--cpuid-0x15.ebx"))) {
            uint64_t x;
            int mtc = a[2] == 'm', nom = a[2] == 'n';
            if (fwpt_parse_u64(v, 0, &x) != 0 || x > (mtc ? 15u : nom ? 255u : UINT32_MAX)) {
                fprintf(stderr, "fwpt flow: %s: expected a number (at most %llu), got '%s'\n", a,
                        (unsigned long long)(mtc ? 15u : nom ? 255u : UINT32_MAX), v);
                return 2;
            }
            i++;
            if (mtc)
                tcfg.mtc_freq = (uint8_t)x, tcfg_given |= 4;
            else if (nom)
                tcfg.nom_freq = (uint8_t)x, tcfg_given |= 2;
            else if (a[14] == 'a')
                tcfg.cpuid_15_eax = (uint32_t)x, tcfg_given |= 8;
            else
                tcfg.cpuid_15_ebx = (uint32_t)x, tcfg_given |= 16;
        } else if (!strcmp(a, "--flame")) {
            flame_path = v, i++;
        } else if (!strcmp(a, "--folded")) {
            folded_path = v, i++;
        } else if (!strcmp(a, "--chrome-trace")) {
            chrome_path = v, i++;
        } else if (!strcmp(a, "--report")) {
            report_path = v, i++;
        } else if (!strcmp(a, "--coverage")) {
            fsum.cov_path = v, i++;
        } else if (!strcmp(a, "--coverage-size")) {
            uint64_t n;
            i++;
            if (fwpt_parse_size(v, &n) != 0 || !n || (n & (n - 1)) || n > (1ull << 30)) {
                fprintf(stderr, "fwpt flow: --coverage-size: expected a power of two up to 1G, got '%s'\n", v);
                return 2;
            }
            fsum.cov_size = (size_t)n;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            i++;
            if (fwpt_parse_u64(v, 0, &jobs) != 0 || !jobs || jobs > 256) {
                fprintf(stderr, "fwpt flow: %s: expected 1..256 threads, got '%s'\n", a, v);
                return 2;
            }
        } else if (!strcmp(a, "--split")) {
            i++;
            if (fwpt_parse_size(v, &split) != 0 || !split) {
                fprintf(stderr, "fwpt flow: --split: expected a size in bytes, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--walk")) {
            i++;
            if (strcmp(v, "summary") && strcmp(v, "insn")) {
                fprintf(stderr, "fwpt flow: --walk: expected 'summary' or 'insn', got '%s'\n", v);
                return 2;
            }
            walk_insn = !strcmp(v, "insn");
        } else if (!strcmp(a, "--top") || !strcmp(a, "--depth")) {
            i++;
            uint64_t x;
            if (fwpt_parse_u64(v, 0, &x) != 0 || x > UINT32_MAX) {
                fprintf(stderr, "fwpt flow: %s: expected %s, got '%s'\n", a, expect, v);
                return 2;
            }
            *(a[2] == 't' ? &top : &depth) = x;
        } else if (a[0] == '-' && a[1]) {
            return fwpt_arg_unknown("fwpt flow", "unknown option", a, usage);
        } else if (fwpt_arg_operand("fwpt flow", "DIR|FILE", &path, a)) {
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    enum fwpt_flow_format fmt;
    if (!strcmp(format, "text"))
        fmt = FWPT_FLOW_FMT_TEXT;
    else if (!strcmp(format, "jsonl"))
        fmt = FWPT_FLOW_FMT_JSONL;
    else {
        fprintf(stderr, "fwpt flow: --format: expected 'text' or 'jsonl', got '%s'\n", format);
        return 2;
    }

    uint8_t *trace = NULL;
    size_t trace_size = 0;
    uint64_t recorded_bytes = 0; /* sideband.json's "trace":{"bytes":N}, 0: not given */
    struct stat st;
    char trace_name[2048];       /* the trace file, as messages name it */
    snprintf(trace_name, sizeof trace_name, "%s", path);
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        char p[2048];
        snprintf(trace_name, sizeof trace_name, "%s/trace.pt", path);
        if (fwpt_file_load(trace_name, &trace, &trace_size) != 0) {
            fprintf(stderr, "fwpt flow: %s: %s\n", trace_name, strerror(errno));
            return 1;
        }
        snprintf(p, sizeof p, "%s/sideband.json", path);
        uint8_t *sb;
        size_t sbn, bad_at;
        if (fwpt_file_load(p, &sb, &sbn) == 0) {
            uint8_t *z = realloc(sb, sbn + 1); /* room for the NUL the JSON reader ends at */
            if (!z) {
                free(sb);
                fprintf(stderr, "fwpt flow: %s: out of memory\n", p);
                return 1;
            }
            sb = z;
            sb[sbn] = 0;
            if (fwpt_json_check((const char *)sb, sbn, &bad_at) != 0) {
                /* a file cut short, or not sideband.json: nothing in it can be trusted */
                fprintf(stderr, "fwpt flow: %s: not valid JSON: %s at byte %zu of %zu\n", p,
                        bad_at >= sbn ? "it ends in the middle of a value (cut short?)" : "unexpected character",
                        bad_at, sbn);
                return 1;
            }
            struct sideband_images sbi = {&im, p, 0};
            if (fwpt_sideband_images((const char *)sb, path, add_sideband_image, &sbi) != 0)
                fprintf(stderr, "fwpt flow: %s: no usable \"images\" list (continuing with what was read)\n", p);
            if (sbi.bad)
                return 1;
            if (!n_filter) {
                int nf = fwpt_sideband_filters((const char *)sb, filter, FWPT_FLOW_FILTERS);
                if (nf < 0)
                    note("fwpt flow: %s: unusable \"addr_ranges\" (decoding without the IP filter ranges)\n", p);
                else
                    n_filter = (uint32_t)nf;
            }
            fwpt_sideband_run((const char *)sb, p, &sbr, note);
            recorded_bytes = fwpt_sideband_trace_bytes((const char *)sb);
            struct fwpt_time_config from = {0};
            unsigned found = 0;
            if (fwpt_sideband_time((const char *)sb, &from, &found) < 0)
                fprintf(stderr, "fwpt flow: %s: malformed cpuid_15h, max_nonturbo_ratio or settings (ignored)\n", p);
            if ((found & 1) && !(tcfg_given & 8))
                tcfg.cpuid_15_eax = from.cpuid_15_eax;
            if ((found & 1) && !(tcfg_given & 16))
                tcfg.cpuid_15_ebx = from.cpuid_15_ebx;
            if ((found & 2) && !(tcfg_given & 2))
                tcfg.nom_freq = from.nom_freq;
            if ((found & 4) && !(tcfg_given & 4))
                tcfg.mtc_freq = from.mtc_freq;
            const char *c15 = fwpt_json_value((const char *)sb, "cpuid_15h");
            if (c15 && *c15 == '{') {
                int have_ecx = 0;
                const struct fwpt_json_field ecx[] = {{"ecx", NULL, 0, &cpuid15_ecx, &have_ecx}};
                fwpt_json_object(c15, ecx, 1);
            }
            if (!have_cpu && fwpt_sideband_cpu((const char *)sb, &cpu) < 0)
                note("fwpt flow: %s: no usable \"cpu\" object (decoding without processor errata)\n", p);
            free(sb);
        } else if (!im.n) {
            fprintf(stderr, "fwpt flow: %s: %s: no images, so no code to decode with (a saved directory holds "
                            "its sideband.json; else give --image FILE@ADDR)\n", p, strerror(errno));
            return 1;
        } else {
            note("fwpt flow: %s: %s (only the --image code)\n", p, strerror(errno));
        }
    } else if (fwpt_file_load(path, &trace, &trace_size) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* empty or without a PSB: refused, but a report page still says so (in red) when one was asked for */
    const int refused = fwpt_trace_refuse("fwpt flow", trace_name, trace, trace_size);
    if (refused && !report_path)
        return 1;
    size_t with_code = 0;
    for (size_t k = 0; k < im.n; k++)
        with_code += im.v[k].code != NULL;
    if (!with_code) {
        if (S_ISDIR(st.st_mode))
            fprintf(stderr, "fwpt flow: %s: no image with code (%zu in its sideband.json): nothing to decode with\n",
                    path, im.n);
        else
            fprintf(stderr, "fwpt flow: %s: no code to decode with: a raw trace needs --image FILE@ADDR for the code "
                            "it ran (or give the saved \\fwpt\\ directory, whose sideband.json names its images)\n",
                    path);
        return 1;
    }
    int incomplete = 0; /* a result, but not of the whole run: exit status 3 */
    if (recorded_bytes && recorded_bytes != trace_size) {
        fprintf(stderr, "fwpt flow: %s: %zu bytes, but sideband.json records %llu: %s\n", trace_name, trace_size,
                (unsigned long long)recorded_bytes,
                trace_size < recorded_bytes ? "the file is cut short; what follows is not the whole trace"
                                            : "not the trace the run recorded");
        incomplete = 1;
    }
    if (im.n)
        qsort(im.v, im.n, sizeof *im.v, cmp_base);

    struct fwpt_modules mods = {im.v, im.n, 0};

    const int pictures = flame_path || folded_path || chrome_path || report_path;
    const int listing = !calls && !profile && !pictures && !fsum.edges && !fsum.cov_path;
    fsum.jsonl = fmt == FWPT_FLOW_FMT_JSONL;
    FILE *flame_f = open_out(flame_path), *folded_f = open_out(folded_path), *chrome_f = open_out(chrome_path),
         *report_f = open_out(report_path);
    if ((flame_path && !flame_f) || (folded_path && !folded_f) || (chrome_path && !chrome_f) || (report_path && !report_f))
        return 1;
    if (!sbr.run.target) { /* a raw trace: the report names the file */
        fwpt_sideband_run("", path, &sbr, note);
        snprintf(sbr.target, sizeof sbr.target, "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
        snprintf(sbr.v_reason, sizeof sbr.v_reason, "a trace file without sideband.json");
    }
    const int have_sym = sbr.sym.name && sbr.sym.name[0];
    struct fwpt_names names = {&mods, have_sym ? &sbr.sym : NULL, have_sym ? 1u : 0u};

    struct fwpt_zydis *dz = NULL;
    if (!no_disasm && listing) {
        dz = calloc(1, sizeof *dz);
        fwpt_zydis_init(dz, fwpt_image_modules_read, &mods);
    }

    static struct fwpt_flow_block cache[1 << 16]; /* indexed by IP bits: 64 KiB of code map without a collision */
    struct fwpt_flow *f = malloc(sizeof *f);
    enum fwpt_status ist = fwpt_flow_init(f, trace, trace_size, fwpt_image_modules_read, &mods, cache,
                                          sizeof cache / sizeof cache[0]);
    if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) { /* no PSB: refused above; a report page still says so */
        fprintf(stderr, "fwpt flow: the flow decoder refused its set-up: %s\n", fwpt_status_msg(ist));
        return 1;
    }
    fwpt_errata_for_cpu(&cpu, &errata);
    fwpt_flow_set_errata(f, &errata);
    fwpt_flow_set_filter(f, (const uint64_t (*)[2])filter, n_filter);
    fwpt_flow_set_iflags(f, iflags);
    const int time_on = show_time || ticks || by_time;
    if (time_on)
        fwpt_flow_set_time(f, &tcfg);
    struct fwpt_sink out = fwpt_file_sink(stdout), err_out = fwpt_file_sink(stderr);
    struct fwpt_flow_printer pr = {&out, fmt, &mods, dz ? fwpt_zydis_disasm : NULL, dz, 0};
    /* the decode errors: in line, but only the first few of a kind (a JSON listing: every one); on stderr when
     * stdout is promised nothing (pictures and files only) */
    const int stdout_quiet = !listing && !calls && !profile && !fsum.edges;
    struct fwpt_flow_printer err_pr = {&err_out, FWPT_FLOW_FMT_TEXT, &mods, NULL, NULL, 0};
    static struct err_show es;
    es.pr = stdout_quiet ? &err_pr : &pr;
    es.all = listing && fmt == FWPT_FLOW_FMT_JSONL;

    struct fwpt_profile *prof = NULL;
    size_t nfuncs = 1 << 16, nnodes = 1 << 18, nhash = 1 << 19;
    if (calls || profile || pictures) {
        prof = malloc(sizeof *prof);
        fwpt_profile_init(prof, &mods, calloc(im.n + 1, sizeof(uint64_t)),
                          malloc(nfuncs * sizeof(struct fwpt_profile_func)), nfuncs,
                          malloc(nnodes * sizeof(struct fwpt_profile_node)), nnodes,
                          malloc(nhash * sizeof(uint32_t)), nhash);
    }
    struct fwpt_sink chrome_sink = fwpt_file_sink(chrome_f);
    static struct fwpt_chrome chrome;
    if (chrome_f)
        fwpt_flame_chrome_begin(&chrome, prof, &names, &chrome_sink);
    struct fwpt_flow_event ev;
    unsigned long errors = 0;
    uint64_t ninsns = 0, nevents = 0, lost = 0;
    /* a listing shows the line only when it goes to a file (or /dev/null) */
    struct fwpt_progress prog;
    fwpt_progress_start(&prog, "fwpt flow", "instructions", trace_size,
                        quiet || (listing && !fwpt_progress_stdout_is_file()));
    uint64_t cut_ip = 0;
    bool any_time = false; /* an instruction or event had a time (--by time has something to count) */
    enum fwpt_status fst; /* why the decode ended: FWPT_E_EOS, else a decoder bug (FWPT_E_INTERNAL) */
    static struct fwpt_time_spread spread;
    struct fwpt_flow_event *held = NULL;
    if (prof && by_time) {
        held = malloc((1u << 20) * sizeof *held);
        fwpt_time_spread_init(&spread, prof, held, 1u << 20);
    }
    if (!listing && !walk_insn && !by_time) {
        /* the summary walk: blocks and paths, never single instructions, on -j threads */
        struct fwpt_par_setup ps = {.trace = trace, .len = trace_size, .read = fwpt_image_modules_read, .read_ctx = &mods,
                                    .errata = &errata, .filter = (const uint64_t (*)[2])filter, .n_filter = n_filter,
                                    .iflags = iflags, .mods = &mods, .jobs = jobs ? (unsigned)jobs : fwpt_parallel_cores(),
                                    .piece_bytes = (size_t)split, .profile = prof != NULL};
        if (flow_summary_run(&fsum, &ps, prof, err_show_one, &es) != 0) {
            fprintf(stderr, "fwpt flow: out of memory\n");
            return 1;
        }
        errors = fsum.out.nerrors;
        lost = fsum.out.bytes_skipped;
        fst = FWPT_E_EOS;
        ninsns = fsum.out.insns;
        /* the threads report no progress of their own: the line gives what they walked when they are done */
        fwpt_progress(&prog, trace_size, fsum.out.insns, 0);
        /* where the trace ends: the walk of its last PSB's part alone (the listing's fwpt_flow_cut) */
        size_t last = last_psb(trace, trace_size);
        ist = fwpt_flow_init(f, trace + last, trace_size - last, fwpt_image_modules_read, &mods, cache,
                             sizeof cache / sizeof cache[0]);
        if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) {
            fprintf(stderr, "fwpt flow: the flow decoder refused its set-up: %s\n", fwpt_status_msg(ist));
            return 1;
        }
        fwpt_flow_set_errata(f, &errata);
        fwpt_flow_set_filter(f, (const uint64_t (*)[2])filter, n_filter);
        fwpt_flow_set_iflags(f, iflags);
        while (fwpt_flow_next(f, &ev) == FWPT_OK)
            ;
    } else if (listing && !slow_print && !show_time && !ticks) {
        static char obuf[1 << 16]; /* one fwrite per 64 KiB */
        static struct fwpt_list_asm acache[1 << 14];
        static struct fwpt_flow_lister lister;
        struct fwpt_list_module *pre = calloc(im.n + 1, sizeof *pre);
        fwpt_flow_list_init(&lister, &out, fmt, &mods, pre, dz ? fwpt_zydis_disasm : NULL, dz, acache,
                              sizeof acache / sizeof acache[0], obuf, sizeof obuf);
        const struct fwpt_flow_obuf_insn *bv;
        uint32_t bn;
        while ((fst = fwpt_flow_next_batch(f, &bv, &bn, &ev)) == FWPT_OK) {
            if (bn) {
                fwpt_flow_list_insns(&lister, bv, bn);
                ninsns += bn;
            } else {
                if (ev.kind != FWPT_FLOW_ERROR)
                    fwpt_flow_list_event(&lister, &ev);
                else if (errors++, err_visible(&es, &ev))
                    fwpt_flow_list_event(&lister, &ev);
                nevents++;
            }
            fwpt_progress(&prog, f->pkt.offset, ninsns, nevents);
        }
        if (fwpt_flow_cut(f, &cut_ip))
            fwpt_flow_list_cut(&lister, cut_ip, trace_size);
        fwpt_flow_list_flush(&lister);
        free(pre);
        err_summary(&es);
    } else {
        if (!listing && flow_summary_insn_begin(&fsum) != 0) {
            fprintf(stderr, "fwpt flow: out of memory\n");
            return 1;
        }
        uint64_t tick_last = 0; /* the time of the last event or tick shown (libipt compares a tick with it) */
        while ((fst = fwpt_flow_next(f, &ev)) == FWPT_OK) {
            uint64_t tsc = 0;
            bool tok = time_on && fwpt_flow_time(f, &tsc) == FWPT_OK;
            any_time |= tok;
            if (ev.kind == FWPT_FLOW_INSN)
                ninsns++;
            else
                nevents++;
            if (ev.kind == FWPT_FLOW_ERROR)
                errors++;
            if (!listing)
                flow_summary_insn_add(&fsum, &ev);
            if (prof) {
                if (held)
                    fwpt_time_spread_add(&spread, &ev, tsc, tok);
                else
                    fwpt_profile_add(prof, &ev);
                if (ev.kind == FWPT_FLOW_ERROR)
                    err_show_one(&es, &ev); /* errors stay visible in summaries */
            } else if (!listing) {
                if (ev.kind == FWPT_FLOW_ERROR)
                    err_show_one(&es, &ev); /* the edges and bitmap: no listing, the errors in line */
            } else if (ev.kind == FWPT_FLOW_ERROR && !err_visible(&es, &ev)) {
                /* counted: err_summary says how many */
            } else if (show_time || ticks) {
                fwpt_flow_print_event_time(&pr, &ev, tsc, tok);
                uint64_t t;
                bool ok;
                if (ticks && ev.kind == FWPT_FLOW_INSN && fwpt_flow_tick(f, &t, &ok) && t != tick_last) {
                    fwpt_flow_print_tick(&pr, ev.ip, t, ok);
                    tick_last = t;
                } else if (ev.kind != FWPT_FLOW_INSN) {
                    tick_last = tsc;
                }
            } else {
                fwpt_flow_print_event(&pr, &ev);
            }
            fwpt_progress(&prog, f->pkt.offset, ninsns, nevents);
        }
        if (!prof && fwpt_flow_cut(f, &cut_ip))
            fwpt_flow_print_cut(&pr, cut_ip, trace_size); /* where the listing ends is not where the code stopped */
        if (listing)
            err_summary(&es);
    }
    if (!listing)
        err_summary(&es);
    fwpt_progress_end(&prog);
    if (listing || walk_insn || by_time)
        lost = fwpt_flow_bytes_skipped(f);
    if (fst != FWPT_E_EOS) {
        fprintf(stderr, "fwpt flow: the decoder stopped before the end of the trace: %s\n", fwpt_status_msg(fst));
        errors++;
    }
    const bool cut = fwpt_flow_cut(f, &cut_ip);
    const bool nothing = !ninsns;
    if (nothing) {
        /* no result: no picture of nothing (the files opened are removed); a report page says so in red */
        fflush(stdout);
        FILE **const files[] = {&flame_f, &folded_f, &chrome_f};
        const char *const paths[] = {flame_path, folded_path, chrome_path};
        for (int k = 0; k < 3; k++)
            if (*files[k]) {
                fclose(*files[k]);
                *files[k] = NULL;
                unlink(paths[k]);
            }
        if (!refused)
            fprintf(stderr, "fwpt flow: %s: no instruction decoded (%lu decode error%s): no result%s\n", trace_name,
                    errors, errors == 1 ? "" : "s",
                    report_f ? "; the report page says so" : pictures || fsum.cov_path ? ", no file written" : "");
        if (!report_f)
            return 1;
    }
    if (held)
        fwpt_time_spread_end(&spread);
    if (by_time && prof && !any_time && !nothing) {
        fprintf(stderr, "fwpt flow: %s: no time in the trace (no TSC, MTC or CYC packets, or no timing configuration "
                        "for them): --by time has nothing to count; --by insns counts instructions\n", trace_name);
        return 1;
    }
    if (held && (profile || calls))
        fwpt_time_spread_duration(&spread, &tcfg, cpuid15_ecx, !strcmp(sbr.backend, "soft"),
                                  fmt == FWPT_FLOW_FMT_JSONL ? &err_out : &out);
    if (prof && !nothing) {
        if (profile && fmt == FWPT_FLOW_FMT_JSONL)
            fwpt_profile_print_jsonl(prof, &out, (size_t)top);
        else if (profile)
            fwpt_profile_print(prof, &out, (size_t)top);
        if (calls && fmt == FWPT_FLOW_FMT_JSONL)
            fwpt_profile_calltree_print_jsonl(prof, &out, (uint32_t)depth);
        else if (calls)
            fwpt_profile_calltree_print(prof, &out, (uint32_t)depth);
    }
    int report_bad = 0;
    int bad_out = !listing && !nothing && flow_summary_write(&fsum, &out, &mods) != 0;
    flow_summary_free(&fsum);
    fflush(stdout);
    if (chrome_f)
        fwpt_flame_chrome_end(&chrome, prof);
    if (folded_f) {
        struct fwpt_sink fs = fwpt_file_sink(folded_f);
        fwpt_flame_folded_write(prof, &names, &fs);
    }
    if (flame_f) {
        char title[160];
        snprintf(title, sizeof title, "fwpt flame graph: %s", sbr.target[0] ? sbr.target : "-");
        struct fwpt_sink fs = fwpt_file_sink(flame_f);
        fwpt_flame_svg(prof, &names, title, 1, &fs);
    }
    if (report_f) {
        sbr.run.decode_errors = errors;
        sbr.run.decoded_insns = ninsns; /* the instruction walk's or the summary walk's */
        report_decoded(&sbr.run, cut, trace, trace_size);
        struct fwpt_sink fs = fwpt_file_sink(report_f);
        fwpt_report_html(&sbr.run, prof, &names, &fs);
        if (fwpt_report_mismatch(&sbr.run, NULL)) { /* the page says it in red: so do stderr and the exit status */
            struct fwpt_sink es = fwpt_file_sink(stderr);
            fprintf(stderr, "fwpt flow: %s: ", path);
            fwpt_report_mismatch(&sbr.run, &es);
            fprintf(stderr, " (said in red on the report page %s)\n", report_path);
            report_bad = 1;
        }
    }
    if (close_out(flame_f, flame_path) | close_out(folded_f, folded_path) | close_out(chrome_f, chrome_path) |
        close_out(report_f, report_path) | bad_out | report_bad | nothing)
        return 1;
    if (errors) {
        note("fwpt flow: %lu decode error%s (shown %s); the decoder skipped %llu of %zu trace bytes "
                "(%.2f%%) until it had the IP again\n", errors, errors == 1 ? "" : "s",
                stdout_quiet ? "above" : "in line", (unsigned long long)lost,
                trace_size, trace_size ? 100.0 * (double)lost / (double)trace_size : 0.0);
    }
    if (cut) {
        /* why, when the run recorded it (sideband.json "trace"): else the two causes a file cannot tell apart */
        const char *why = sbr.run.stopped ? "the output stopped, as the run recorded (ToPA STOP / TraceStop): the rest "
                                            "of the call was not traced"
                          : sbr.run.error ? "an operational error stopped the output, as the run recorded"
                                          : "no TIP.PGD: the buffer filled or the file was cut";
        fprintf(stderr, "fwpt flow: %s: the trace ends with tracing on (%s): the walk stopped at 0x%llx; the result is "
                        "incomplete\n", trace_name, why, (unsigned long long)cut_ip);
        incomplete = 1;
    }
    return errors ? 1 : incomplete ? 3 : 0;
}
