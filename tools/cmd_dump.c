/* fwpt dump FILE|DIR [--format text|jsonl] [--offset N] [--sync] [--cpu F/M[/S]|none] [--errata LIST]
 * [--time|--tcal] [--time-delta] [timing configuration] [--quiet]: one packet per line, with the time after each
 * timing packet as libipt's ptdump shows it. On a decode error the error is printed as a line and
 * decoding resumes at the next PSB (the time starts again there). A dump to a file that runs over a second shows
 * its progress on stderr when that is a terminal (tools/progress). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/errata.h"
#include "decode/packet.h"
#include "render/pkt_print.h"
#include "decode/time.h"
#include "base/fields.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"
#include "tools/sideband.h"
#include "tools/symmap.h"

/* What fwpt dump was asked: filled by fwpt_opt_parse from the option table below. */
struct dump_opts {
    const char *file;
    bool jsonl, sync, quiet, no_cyc, have_cpu, eax_given, ebx_given;
    uint64_t start;
    struct fwpt_cpu_id cpu;
    struct fwpt_errata errata; /* --errata's (dump_open adds --cpu's) */
    struct fwpt_time_config tcfg;
    struct fwpt_time_show show;
    unsigned tcfg_given; /* bit 1: --nom-freq, bit 2: --mtc-freq (as fwpt_sideband_time's found) */
    struct fwpt_opt_list symbols; /* --symbols, as given */
};

/* --symbols: the saved directory's images (sideband.json) matched to the symbol files; the text dump names the IP
 * of TIP, TIP.PGE, TIP.PGD and FUP packets with them. */
static struct dump_names {
    struct fwpt_symmap_image *v;
    size_t n;
    struct fwpt_symmap *map;
    struct fwpt_resolver r;
} names;

/* The names --errata accepts: the fields of struct fwpt_errata (arch/errata.h's list). */
static const struct {
    const char *name;
    size_t off;
} errata_names[] = {
#define FWPT_ERRATUM_NAME(field, name, aliases, what) {#field, FWPT_BOOL_FIELD(struct fwpt_errata, field)},
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_NAME)
#undef FWPT_ERRATUM_NAME
};

/* "skd007,skz84" -> *e; the first unknown name, or NULL. */
static const char *parse_errata(const char *list, struct fwpt_errata *e, char *bad, size_t badlen)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        for (; i < sizeof errata_names / sizeof errata_names[0]; i++)
            if (strlen(errata_names[i].name) == n && !strncmp(errata_names[i].name, p, n))
                break;
        if (i == sizeof errata_names / sizeof errata_names[0]) {
            snprintf(bad, badlen, "%.*s", (int)n, p);
            return bad;
        }
        *fwpt_bool_at(e, errata_names[i].off) = true;
        p += n;
        if (*p == ',')
            p++;
    }
    return NULL;
}

/* --format, --offset, --cpu, --errata: a missing value is said as "(nothing)". */
static int set_format(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    (void)o, (void)a;
    if (v && !strcmp(v, "text"))
        d->jsonl = false;
    else if (v && !strcmp(v, "jsonl"))
        d->jsonl = true;
    else {
        fprintf(stderr, "fwpt dump: --format: expected 'text' or 'jsonl', got '%s'\n", v ? v : "(nothing)");
        return 2;
    }
    return 0;
}

static int set_offset(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    (void)o, (void)a;
    if (!v || fwpt_parse_u64(v, 0, &d->start) != 0) {
        fprintf(stderr, "fwpt dump: --offset: expected a number, got '%s'\n", v ? v : "(nothing)");
        return 2;
    }
    return 0;
}

static int set_cpu(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    (void)o, (void)a;
    const char *why = "expected FAMILY/MODEL[/STEPPING] or none";
    if (!v || fwpt_cpu_parse_why(v, &d->cpu, &why) != FWPT_OK) {
        fprintf(stderr, "fwpt dump: --cpu: %s, got '%s'\n", why, v ? v : "(nothing)");
        return 2;
    }
    d->have_cpu = true;
    return 0;
}

static int set_errata(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    (void)o, (void)a;
    char bad[32];
    const char *unknown = v ? parse_errata(v, &d->errata, bad, sizeof bad) : "(nothing)";
    if (unknown) {
        fprintf(stderr, "fwpt dump: --errata: unknown erratum '%s'\n", unknown);
        return 2;
    }
    return 0;
}

/* --time or --tcal: one column, not both. */
static int set_column(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    (void)a, (void)v;
    const bool time = !strcmp(o->name, "--time");
    if (time ? d->show.tcal : d->show.time) {
        fprintf(stderr, "fwpt dump: specify either --time or --tcal\n");
        return 2;
    }
    *(time ? &d->show.time : &d->show.tcal) = true;
    return 0;
}

/* --mtc-freq, --nom-freq, --cpuid-0x15.eax, --cpuid-0x15.ebx: the timing configuration, remembered as given. */
static int set_timing(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    struct dump_opts *d = dst;
    uint64_t x;
    const char which = o->name[2] == 'm' ? 'm' : o->name[2] == 'n' ? 'n' : o->name[14];
    uint64_t max = which == 'm' ? 15 : which == 'n' ? 255 : UINT32_MAX;
    if (!v || fwpt_parse_u64(v, 0, &x) != 0 || x > max) {
        fprintf(stderr, "fwpt dump: %s: expected a number 0..%llu, got '%s'\n", a, (unsigned long long)max,
                v ? v : "(nothing)");
        return 2;
    }
    if (which == 'm') {
        d->tcfg.mtc_freq = (uint8_t)x;
        d->tcfg_given |= 4;
    } else if (which == 'n') {
        d->tcfg.nom_freq = (uint8_t)x;
        d->tcfg_given |= 2;
    } else if (which == 'a') {
        d->tcfg.cpuid_15_eax = (uint32_t)x;
        d->eax_given = true;
    } else {
        d->tcfg.cpuid_15_ebx = (uint32_t)x;
        d->ebx_given = true;
    }
    return 0;
}

/* --symbols P: P appended; --symbols given last (the table's parser leaves a missing value to dump's setters) is
 * refused as the other options refuse it. */
static int set_symbols(void *dst, const struct fwpt_opt *o, const char *a, const char *v)
{
    if (!v) {
        fprintf(stderr, "fwpt dump: --symbols: expected %s, got '(nothing)'\n", o->value);
        return 2;
    }
    return fwpt_opt_add_str(dst, o, a, v);
}

static int keep_image(void *ctx, const struct fwpt_sideband_image *s)
{
    (void)ctx;
    struct fwpt_symmap_image *v = realloc(names.v, (names.n + 1) * sizeof *v);
    if (!v)
        return 1;
    names.v = v;
    if (!s->bad_key) /* bad values are fwpt flow's to say: the dump decodes no code */
        v[names.n++] = (struct fwpt_symmap_image){strdup(s->name), s->base, s->size, s->code, s->code_size,
                                                  strdup(s->pdb), strdup(s->fv_guid)};
    else
        free(s->code);
    return 0;
}

/* The images of sideband.json (sb, of directory dir; NULL: a raw trace, none) matched to --symbols. */
static void dump_symbols(const struct dump_opts *d, const char *sb, const char *dir)
{
    if (!d->symbols.n || names.map)
        return;
    if (sb && fwpt_sideband_images(sb, dir, keep_image, NULL) != 0)
        fprintf(stderr, "fwpt dump: %s/sideband.json: no usable \"images\" list (names for the images read)\n", dir);
    if (!sb)
        fprintf(stderr, "fwpt dump: --symbols: %s holds no images to match symbol files to (a saved \\fwpt\\ "
                        "directory's sideband.json lists them)\n", dir ? dir : d->file);
    names.map = fwpt_symmap_new("fwpt dump", stderr, 0);
    if (!names.map)
        return;
    fwpt_symmap_match(names.map, d->symbols.v, d->symbols.n, names.v, names.n);
    names.r = fwpt_symmap_resolver(names.map);
}

/* A text line of an IP packet with the IP's function: "  FUNC[+0xOFF] (FILE:LINE)" before its newline. */
static void print_named(const struct fwpt_sink *out, const struct fwpt_packet *pkt, const char *col_id,
                        const char *col)
{
    struct fwpt_resolved r;
    const int ip_pkt = pkt->type == FWPT_PKT_TIP || pkt->type == FWPT_PKT_TIP_PGE || pkt->type == FWPT_PKT_TIP_PGD ||
                       pkt->type == FWPT_PKT_FUP;
    if (!ip_pkt || pkt->ip.suppressed || !fwpt_resolve(&names.r, pkt->ip.ip, &r) || !r.function) {
        fwpt_pkt_print_text_col(out, pkt, col_id, col);
        return;
    }
    char line[512];
    struct fwpt_bufsink b;
    struct fwpt_sink t = fwpt_bufsink_init(&b, line, sizeof line - 1);
    fwpt_pkt_print_text_col(&t, pkt, col_id, col);
    line[b.len && line[b.len - 1] == '\n' ? b.len - 1 : b.len] = 0;
    char name[600];
    int k = snprintf(name, sizeof name, "  %s", r.function);
    if (pkt->ip.ip != r.function_entry && k > 0 && (size_t)k < sizeof name)
        k += snprintf(name + k, sizeof name - (size_t)k, "+0x%llx",
                      (unsigned long long)(pkt->ip.ip - r.function_entry));
    if (r.file && r.line && k > 0 && (size_t)k < sizeof name) {
        const char *slash = strrchr(r.file, '/');
        snprintf(name + k, sizeof name - (size_t)k, " (%s:%u)", slash ? slash + 1 : r.file, (unsigned)r.line);
    }
    fwpt_puts(out, line);
    fwpt_puts(out, name);
    fwpt_puts(out, "\n");
}

#define FLAG(name, alias, field, help) {name, alias, NULL, false, offsetof(struct dump_opts, field), NULL, help}
#define VALUE(name, value, eq, set, help) {name, NULL, value, eq, 0, set, help}

/* fwpt dump's options, in the order --help lists them. */
static const struct fwpt_opt dump_options[] = {
    VALUE("--format", "'text' or 'jsonl'", true, set_format,
          "  --format F   text (ptdump style, default) or jsonl (one JSON object per line)\n"),
    VALUE("--offset", "a number", true, set_offset, "  --offset N   start decoding at byte N (decimal or 0x-hex)\n"),
    FLAG("--sync", NULL, sync,
         "  --sync       start at the first PSB at or after the start offset (of PSBs back to back,\n"
         "               the last, as libipt)\n"),
    VALUE("--cpu", "FAMILY/MODEL[/STEPPING] or none", true, set_cpu,
          "  --cpu F/M[/S] the Intel processor that wrote the trace: family/model[/stepping], decimal or\n"
          "               0x-hex (as ptxed --cpu); decodes with its errata. none: no processor (the default)\n"),
    VALUE("--errata", "a list of errata", true, set_errata,
          "  --errata L   and these errata too (comma-separated names of arch/errata.h, e.g.\n"
          "               skd007,skz84; only skd007 and skz84 change packets)\n"),
    {"--time", NULL, NULL, false, 0, set_column,
     "  --time       after TSC, TMA, MTC and CYC: the estimated TSC (\"tsc\" column)\n"},
    {"--tcal", NULL, NULL, false, 0, set_column,
     "  --tcal       after TSC, MTC and CBR: the calibration, TSC ticks per core cycle (\"fcr\" column)\n"},
    FLAG("--time-delta", NULL, show.delta,
         "  --time-delta the change since the last value shown instead of the value\n"),
    FLAG("--no-tcal", NULL, tcfg.no_tcal,
         "  --no-tcal    do not calibrate (CYC gives no time); --no-cyc: hide CYC, no time from it\n"),
    FLAG("--no-cyc", NULL, no_cyc, NULL),
    FLAG("--no-wall-clock", NULL, show.no_wall_clock,
         "  --no-wall-clock  before the first TSC, show the time MTC/CYC accumulated (from 0)\n"),
    FLAG("--keep-tcal-on-ovf", NULL, tcfg.keep_tcal_on_ovf,
         "  --keep-tcal-on-ovf  keep the calibration across an OVF\n"),
    VALUE("--mtc-freq", "a number 0..15", false, set_timing,
          "  --mtc-freq N IA32_RTIT_CTL.MTCFreq (0..15)       --nom-freq N  the max non-turbo ratio (P1/100 MHz)\n"),
    VALUE("--nom-freq", "a number 0..255", false, set_timing, NULL),
    VALUE("--cpuid-0x15.eax", "a number", false, set_timing,
          "  --cpuid-0x15.eax N, --cpuid-0x15.ebx N  the TSC / core crystal clock ratio (EBX/EAX)\n"),
    VALUE("--cpuid-0x15.ebx", "a number", false, set_timing, NULL),
    {"--symbols", NULL, "a symbol file, a directory or FILE@BASE", false, offsetof(struct dump_opts, symbols),
     set_symbols,
     "  --symbols P  text: TIP, TIP.PGE, TIP.PGD and FUP lines end with the IP's function and source line\n"
     "               from the build's symbol files (as fwpt flow --symbols; repeatable)\n"},
    FLAG("--quiet", "-q", quiet, "  -q, --quiet  no progress line on stderr\n"),
};

static void dump_usage(FILE *f);
static const struct fwpt_opt_cmd dump_cmd = {"fwpt dump", "FILE", dump_options,
                                             sizeof dump_options / sizeof dump_options[0], false, dump_usage, false, 0};

static void dump_usage(FILE *f)
{
    fputs("usage: fwpt dump FILE|DIR [--format text|jsonl] [--offset N] [--sync] [--cpu F/M[/S]|none] [--errata LIST]\n"
          "                 [--time|--tcal] [--time-delta] [--no-tcal] [--no-wall-clock] [--no-cyc] [--keep-tcal-on-ovf]\n"
          "                 [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N] [--cpuid-0x15.ebx N] [--quiet]\n"
          "                 [--symbols P ...]\n"
          "  DIR          a saved \\fwpt\\ directory: its trace.pt; the processor and the timing configuration\n"
          "               come from its sideband.json (the options below override them)\n", f);
    fwpt_opt_help(&dump_cmd, f);
    fputs("On a decode error the error is printed and decoding resumes at the next PSB. A dump to a file that\n"
          "runs over a second shows its progress on stderr when stderr is a terminal.\n", f);
}

/* A saved directory (dir): its trace.pt into path, and from its sideband.json what the options did not give (the
 * processor, the timing configuration) and the trace's recorded size. */
static int dump_sideband(struct dump_opts *d, const char *dir, char *path, size_t cap, uint64_t *recorded_bytes)
{
    snprintf(path, cap, "%s/sideband.json", dir);
    char *sb = NULL;
    size_t sbn;
    const int loaded = fwpt_sideband_load("fwpt dump", path, &sb, &sbn);
    if (loaded > 0)
        return 1; /* not valid JSON (a NUL inside too), said: nothing in it can be trusted */
    if (loaded == 0) {
        *recorded_bytes = fwpt_sideband_trace_bytes(sb);
        struct fwpt_time_config from = {0};
        unsigned found = 0;
        struct fwpt_cpu_id sb_cpu;
        if (fwpt_sideband_time(sb, &from, &found) < 0)
            fprintf(stderr, "fwpt dump: %s: malformed cpuid_15h, max_nonturbo_ratio or settings (ignored)\n", path);
        if ((found & 1) && !d->eax_given)
            d->tcfg.cpuid_15_eax = from.cpuid_15_eax;
        if ((found & 1) && !d->ebx_given)
            d->tcfg.cpuid_15_ebx = from.cpuid_15_ebx;
        if ((found & ~d->tcfg_given) & 2)
            d->tcfg.nom_freq = from.nom_freq;
        if ((found & ~d->tcfg_given) & 4)
            d->tcfg.mtc_freq = from.mtc_freq;
        if (!d->have_cpu) {
            if (fwpt_sideband_cpu(sb, &sb_cpu) < 0)
                fprintf(stderr, "fwpt dump: %s: malformed \"cpu\" (ignored)\n", path);
            else
                d->cpu = sb_cpu;
        }
        dump_symbols(d, sb, dir);
        free(sb);
    } else if (errno != ENOENT) {
        fprintf(stderr, "fwpt dump: cannot read '%s': %s\n", path, strerror(errno));
    }
    snprintf(path, cap, "%s/trace.pt", dir);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "fwpt dump: '%s' is a directory without trace.pt (a saved \\fwpt\\ directory holds one)\n",
                dir);
        return 1;
    }
    return FWPT_OPT_RUN;
}

/* The trace of one dump: mapped where it lies. */
struct dump_trace {
    const char *file;
    const uint8_t *buf;
    size_t len;
    uint64_t recorded_bytes; /* sideband.json's "trace":{"bytes":N}, 0: not given */
    int refused;             /* no PSB: the packets as they come, and exit status 1 */
    char path[4096];         /* a saved directory's trace.pt */
};

/* The trace file mapped, the errata of --cpu added to --errata's; what is wrong with the file is said. */
static int dump_open(struct dump_opts *d, struct dump_trace *t)
{
    struct stat st;
    t->file = d->file;
    if (stat(t->file, &st) == 0 && S_ISDIR(st.st_mode)) {
        int rc = dump_sideband(d, d->file, t->path, sizeof t->path, &t->recorded_bytes);
        if (rc != FWPT_OPT_RUN)
            return rc;
        t->file = t->path;
    }
    struct fwpt_errata of_cpu;
    fwpt_errata_for_cpu(&d->cpu, &of_cpu);
#define FWPT_ERRATUM_OR(field, name, aliases, what) d->errata.field |= of_cpu.field;
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_OR)
#undef FWPT_ERRATUM_OR
    d->tcfg.skl168 = d->errata.skl168;
    int fd = open(t->file, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "fwpt dump: cannot open '%s': %s\n", t->file, strerror(errno));
        return 1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "fwpt dump: '%s' is not a regular file\n", t->file);
        close(fd);
        return 1;
    }
    t->len = (size_t)st.st_size;
    if (t->len) {
        void *m = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "fwpt dump: cannot map '%s': %s\n", t->file, strerror(errno));
            close(fd);
            return 1;
        }
        t->buf = m;
    }
    close(fd);
    /* empty: not a packet to show; no PSB: the packets as they come (a dump needs no sync), and exit status 1 */
    t->refused = fwpt_trace_refuse("fwpt dump", t->file, t->buf, t->len);
    if (t->refused && !t->len)
        return 1;
    if (t->recorded_bytes && t->recorded_bytes != t->len)
        fprintf(stderr, "fwpt dump: %s: %zu bytes, but sideband.json records %llu: %s\n", t->file, t->len,
                (unsigned long long)t->recorded_bytes,
                t->len < t->recorded_bytes ? "the file is cut short; what follows is not the whole trace"
                                           : "not the trace the run recorded");
    if (d->start > t->len) {
        fprintf(stderr, "fwpt dump: --offset %llu is beyond the end of '%s' (%zu bytes)\n",
                (unsigned long long)d->start, t->file, t->len);
        return 2;
    }
    return FWPT_OPT_RUN;
}

/* The time after pkt (--time, --tcal): its column into col (*col_id NULL: none), the step's diagnostics and the
 * column's printed before the packet. */
static void dump_time(struct dump_opts *d, struct fwpt_time *tm, const struct fwpt_sink *out,
                      const struct fwpt_packet *pkt, const char **col_id, char col[32])
{
    struct fwpt_time_step st;
    enum fwpt_status err;
    fwpt_time_packet(tm, pkt, &st);
    if (!fwpt_time_column(tm, &d->show, &st, col_id, col, &err))
        *col_id = 0;
    for (unsigned k = 0; k <= st.ndiag; k++) { /* the step's diagnostics, then the column's */
        unsigned kind = k < st.ndiag ? st.diag[k].kind : FWPT_TIME_DIAG_PRINT;
        enum fwpt_status ds = k < st.ndiag ? st.diag[k].status : err;
        if (ds == FWPT_OK)
            continue;
        if (d->jsonl)
            fwpt_pkt_print_time_diag_json(out, pkt->offset, fwpt_time_diag_what(kind), ds);
        else
            fwpt_pkt_print_time_diag_text(out, pkt->offset, fwpt_time_diag_what(kind), ds);
    }
}

/* stdout's buffer: stdio keeps it until the process ends, so it outlives the dump. */
static char stdout_buf[1 << 16];

/* The packets of t, one a line, from --offset (or the first PSB after it, --sync); an error is printed as a line
 * and the decode resumes at the next PSB. 0, 1 no PSB to start at; *packets, *errors counted. */
static int dump_packets(struct dump_opts *d, const struct dump_trace *t, unsigned long long *packets,
                        unsigned long long *errors)
{
    setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    struct fwpt_sink out = fwpt_file_sink(stdout);
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    fwpt_pkt_init(&dec, t->buf, t->len);
    fwpt_pkt_set_errata(&dec, &d->errata);
    int rc = 0;
    /* the dump is its own progress on the terminal, and a pager's or grep's through a pipe: a line only to a file */
    struct fwpt_progress prog;
    fwpt_progress_start(&prog, "fwpt dump", "packets", t->len, d->quiet || !fwpt_progress_stdout_is_file());
    if (d->sync && d->start)
        fwpt_pkt_sync_set(&dec, (size_t)d->start - 1); /* sync_forward then finds the first PSB >= start */
    else if (!d->sync)
        fwpt_pkt_sync_set(&dec, (size_t)d->start);
    if (d->sync && fwpt_pkt_sync_forward(&dec) != FWPT_OK) {
        fprintf(stderr, "fwpt dump: no PSB at or after offset %llu\n", (unsigned long long)d->start);
        rc = 1;
        goto done;
    }
    struct fwpt_time tm;
    fwpt_time_init(&tm, &d->tcfg);
    const bool track = d->show.time || d->show.tcal;
    for (;;) {
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK) {
            ++*errors;
            fwpt_time_reset(&tm); /* as after a PSB: nothing is known of the time before it */
            d->show.last_tsc = d->show.last_fcr = 0;
            if (d->jsonl)
                fwpt_pkt_print_error_json(&out, pkt.offset, s);
            else
                fwpt_pkt_print_error_text(&out, pkt.offset, s);
            if (fwpt_pkt_sync_forward(&dec) != FWPT_OK)
                break; /* no PSB after the error: nothing more can be decoded */
            continue;
        }
        ++*packets;
        fwpt_progress(&prog, pkt.offset, *packets, *errors);
        if (d->no_cyc && pkt.type == FWPT_PKT_CYC)
            continue; /* hidden, and no time from it */
        const char *col_id = 0;
        char col[32];
        if (track)
            dump_time(d, &tm, &out, &pkt, &col_id, col);
        if (d->jsonl)
            fwpt_pkt_print_json_col(&out, &pkt, col_id, col);
        else if (names.r.resolve)
            print_named(&out, &pkt, col_id, col);
        else
            fwpt_pkt_print_text_col(&out, &pkt, col_id, col);
    }
done:
    fwpt_progress_end(&prog);
    fflush(stdout);
    return rc;
}

int fwpt_cmd_dump(int argc, char **argv)
{
    struct dump_opts d = {0};
    struct dump_trace t = {0};
    int rc = fwpt_opt_parse(&dump_cmd, argc, argv, &d, &d.file);
    if (rc != FWPT_OPT_RUN)
        return rc;
    if (!d.file) {
        fprintf(stderr, "fwpt dump: no FILE given\n");
        dump_usage(stderr);
        return 2;
    }
    if ((rc = dump_open(&d, &t)) != FWPT_OPT_RUN)
        return rc;
    dump_symbols(&d, NULL, NULL);
    unsigned long long packets = 0, errors = 0;
    rc = dump_packets(&d, &t, &packets, &errors);
    if (errors)
        fprintf(stderr, "fwpt dump: %llu packets, %llu errors (resynchronized at the next PSB after each)\n",
                packets, errors);
    if (t.len)
        munmap((void *)t.buf, t.len);
    if (names.map) {
        fwpt_symmap_summary(names.map);
        fwpt_symmap_free(names.map);
    }
    return rc || t.refused || errors ? (rc ? rc : 1) : t.recorded_bytes && t.recorded_bytes != t.len ? 3 : 0;
}
