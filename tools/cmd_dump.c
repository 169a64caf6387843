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
#include "tools/progress.h"
#include "tools/sideband.h"

static void dump_usage(FILE *f)
{
    fprintf(f, "usage: fwpt dump FILE|DIR [--format text|jsonl] [--offset N] [--sync] [--cpu F/M[/S]|none] [--errata LIST]\n"
               "                 [--time|--tcal] [--time-delta] [--no-tcal] [--no-wall-clock] [--no-cyc] [--keep-tcal-on-ovf]\n"
               "                 [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N] [--cpuid-0x15.ebx N] [--quiet]\n"
               "  DIR          a saved \\fwpt\\ directory: its trace.pt; the processor and the timing configuration\n"
               "               come from its sideband.json (the options below override them)\n"
               "  --format F   text (ptdump style, default) or jsonl (one JSON object per line)\n"
               "  --offset N   start decoding at byte N (decimal or 0x-hex)\n"
               "  --sync       start at the first PSB at or after the start offset (of PSBs back to back,\n"
               "               the last, as libipt)\n"
               "  --cpu F/M[/S] the Intel processor that wrote the trace: family/model[/stepping], decimal or\n"
               "               0x-hex (as ptxed --cpu); decodes with its errata. none: no processor (the default)\n"
               "  --errata L   and these errata too (comma-separated names of arch/errata.h, e.g.\n"
               "               skd007,skz84; only skd007 and skz84 change packets)\n"
               "  --time       after TSC, TMA, MTC and CYC: the estimated TSC (\"tsc\" column)\n"
               "  --tcal       after TSC, MTC and CBR: the calibration, TSC ticks per core cycle (\"fcr\" column)\n"
               "  --time-delta the change since the last value shown instead of the value\n"
               "  --no-tcal    do not calibrate (CYC gives no time); --no-cyc: hide CYC, no time from it\n"
               "  --no-wall-clock  before the first TSC, show the time MTC/CYC accumulated (from 0)\n"
               "  --keep-tcal-on-ovf  keep the calibration across an OVF\n"
               "  --mtc-freq N IA32_RTIT_CTL.MTCFreq (0..15)       --nom-freq N  the max non-turbo ratio (P1/100 MHz)\n"
               "  --cpuid-0x15.eax N, --cpuid-0x15.ebx N  the TSC / core crystal clock ratio (EBX/EAX)\n"
               "  -q, --quiet  no progress line on stderr\n"
               "On a decode error the error is printed and decoding resumes at the next PSB. A dump to a file that\n"
               "runs over a second shows its progress on stderr when stderr is a terminal.\n");
}

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

/* The whole file as a NUL-terminated string (malloc), or NULL with errno set. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *n = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!n) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = n;
        }
        size_t r = fread(buf + len, 1, cap - len - 1, f);
        len += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

int fwpt_cmd_dump(int argc, char **argv)
{
    const char *file = NULL;
    int jsonl = 0;
    bool sync = false, quiet = false;
    uint64_t start = 0;
    struct fwpt_cpu_id cpu = {0};
    struct fwpt_errata errata = {0}, of_cpu; /* --errata's, and --cpu's */
    bool have_cpu = false;
    struct fwpt_time_config tcfg = {0};
    struct fwpt_time_show show = {0};
    bool no_cyc = false;
    unsigned tcfg_given = 0; /* bit 1: --nom-freq, bit 2: --mtc-freq (as fwpt_sideband_time's found) */
    bool eax_given = false, ebx_given = false;
    const struct fwpt_arg_flag flags[] = {
        {"--sync", &sync}, {"--time-delta", &show.delta}, {"--no-wall-clock", &show.no_wall_clock},
        {"--no-tcal", &tcfg.no_tcal}, {"--no-cyc", &no_cyc}, {"--keep-tcal-on-ovf", &tcfg.keep_tcal_on_ovf},
        {"--quiet", &quiet}, {"-q", &quiet},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool *on = fwpt_arg_flag(flags, sizeof flags / sizeof flags[0], a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            dump_usage(stdout);
            return 0;
        } else if (on) {
            *on = true;
        } else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (v && !strcmp(v, "text"))
                jsonl = 0;
            else if (v && !strcmp(v, "jsonl"))
                jsonl = 1;
            else {
                fprintf(stderr, "fwpt dump: --format: expected 'text' or 'jsonl', got '%s'\n", v ? v : "(nothing)");
                return 2;
            }
        } else if (!strcmp(a, "--offset") || !strncmp(a, "--offset=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || fwpt_parse_u64(v, 0, &start) != 0) {
                fprintf(stderr, "fwpt dump: --offset: expected a number, got '%s'\n", v ? v : "(nothing)");
                return 2;
            }
        } else if (!strcmp(a, "--cpu") || !strncmp(a, "--cpu=", 6)) {
            const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            const char *why = "expected FAMILY/MODEL[/STEPPING] or none";
            if (!v || fwpt_cpu_parse_why(v, &cpu, &why) != FWPT_OK) {
                fprintf(stderr, "fwpt dump: --cpu: %s, got '%s'\n", why, v ? v : "(nothing)");
                return 2;
            }
            have_cpu = true;
        } else if (!strcmp(a, "--time") || !strcmp(a, "--tcal")) {
            if (a[2] == 't' && a[3] == 'i' ? show.tcal : show.time) {
                fprintf(stderr, "fwpt dump: specify either --time or --tcal\n");
                return 2;
            }
            if (a[3] == 'i')
                show.time = true;
            else
                show.tcal = true;
        } else if (!strcmp(a, "--mtc-freq") || !strcmp(a, "--nom-freq") || !strcmp(a, "--cpuid-0x15.eax") ||
                   !strcmp(a, "--cpuid-0x15.ebx")) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            uint64_t x;
            uint64_t max = a[2] == 'm' ? 15 : a[2] == 'n' ? 255 : UINT32_MAX;
            if (!v || fwpt_parse_u64(v, 0, &x) != 0 || x > max) {
                fprintf(stderr, "fwpt dump: %s: expected a number 0..%llu, got '%s'\n", a, (unsigned long long)max,
                        v ? v : "(nothing)");
                return 2;
            }
            if (a[2] == 'm') {
                tcfg.mtc_freq = (uint8_t)x;
                tcfg_given |= 4;
            } else if (a[2] == 'n') {
                tcfg.nom_freq = (uint8_t)x;
                tcfg_given |= 2;
            } else if (a[14] == 'a') {
                tcfg.cpuid_15_eax = (uint32_t)x;
                eax_given = true;
            } else {
                tcfg.cpuid_15_ebx = (uint32_t)x;
                ebx_given = true;
            }
        } else if (!strcmp(a, "--errata") || !strncmp(a, "--errata=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            char bad[32];
            const char *unknown = v ? parse_errata(v, &errata, bad, sizeof bad) : "(nothing)";
            if (unknown) {
                fprintf(stderr, "fwpt dump: --errata: unknown erratum '%s'\n", unknown);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            return fwpt_arg_unknown("fwpt dump", "unknown option", a, dump_usage);
        } else if (fwpt_arg_operand("fwpt dump", "FILE", &file, a)) {
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "fwpt dump: no FILE given\n");
        dump_usage(stderr);
        return 2;
    }
    char trace_path[4096];
    struct stat dst;
    uint64_t recorded_bytes = 0; /* sideband.json's "trace":{"bytes":N}, 0: not given */
    if (stat(file, &dst) == 0 && S_ISDIR(dst.st_mode)) {
        /* A saved directory: its trace, and from its sideband what the options did not give. */
        snprintf(trace_path, sizeof trace_path, "%s/sideband.json", file);
        char *sb = read_text(trace_path);
        size_t bad_at;
        if (sb && fwpt_json_check(sb, strlen(sb), &bad_at) != 0) {
            /* a file cut short, or not sideband.json: nothing in it can be trusted */
            fprintf(stderr, "fwpt dump: %s: not valid JSON: %s at byte %zu of %zu\n", trace_path,
                    bad_at >= strlen(sb) ? "it ends in the middle of a value (cut short?)" : "unexpected character",
                    bad_at, strlen(sb));
            free(sb);
            return 1;
        }
        if (sb) {
            recorded_bytes = fwpt_sideband_trace_bytes(sb);
            struct fwpt_time_config from = {0};
            unsigned found = 0;
            struct fwpt_cpu_id sb_cpu;
            if (fwpt_sideband_time(sb, &from, &found) < 0)
                fprintf(stderr, "fwpt dump: %s: malformed cpuid_15h, max_nonturbo_ratio or settings (ignored)\n",
                        trace_path);
            if ((found & 1) && !eax_given)
                tcfg.cpuid_15_eax = from.cpuid_15_eax;
            if ((found & 1) && !ebx_given)
                tcfg.cpuid_15_ebx = from.cpuid_15_ebx;
            if ((found & ~tcfg_given) & 2)
                tcfg.nom_freq = from.nom_freq;
            if ((found & ~tcfg_given) & 4)
                tcfg.mtc_freq = from.mtc_freq;
            if (!have_cpu) {
                if (fwpt_sideband_cpu(sb, &sb_cpu) < 0)
                    fprintf(stderr, "fwpt dump: %s: malformed \"cpu\" (ignored)\n", trace_path);
                else
                    cpu = sb_cpu;
            }
            free(sb);
        } else if (errno != ENOENT) {
            fprintf(stderr, "fwpt dump: cannot read '%s': %s\n", trace_path, strerror(errno));
        }
        snprintf(trace_path, sizeof trace_path, "%s/trace.pt", file);
        if (access(trace_path, F_OK) != 0) {
            fprintf(stderr, "fwpt dump: '%s' is a directory without trace.pt (a saved \\fwpt\\ directory holds one)\n",
                    file);
            return 1;
        }
        file = trace_path;
    }
    fwpt_errata_for_cpu(&cpu, &of_cpu);
#define FWPT_ERRATUM_OR(field, name, aliases, what) errata.field |= of_cpu.field;
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_OR)
#undef FWPT_ERRATUM_OR
    tcfg.skl168 = errata.skl168;
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "fwpt dump: cannot open '%s': %s\n", file, strerror(errno));
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "fwpt dump: '%s' is not a regular file\n", file);
        close(fd);
        return 1;
    }
    size_t len = (size_t)st.st_size;
    const uint8_t *buf = NULL;
    if (len) {
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "fwpt dump: cannot map '%s': %s\n", file, strerror(errno));
            close(fd);
            return 1;
        }
        buf = m;
    }
    close(fd);
    /* empty: not a packet to show; no PSB: the packets as they come (a dump needs no sync), and exit status 1 */
    const int refused = fwpt_trace_refuse("fwpt dump", file, buf, len);
    if (refused && !len)
        return 1;
    if (recorded_bytes && recorded_bytes != len)
        fprintf(stderr, "fwpt dump: %s: %zu bytes, but sideband.json records %llu: %s\n", file, len,
                (unsigned long long)recorded_bytes,
                len < recorded_bytes ? "the file is cut short; what follows is not the whole trace"
                                     : "not the trace the run recorded");
    if (start > len) {
        fprintf(stderr, "fwpt dump: --offset %llu is beyond the end of '%s' (%zu bytes)\n",
                (unsigned long long)start, file, len);
        return 2;
    }

    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    struct fwpt_sink out = fwpt_file_sink(stdout);
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    unsigned long long packets = 0, errors = 0;
    fwpt_pkt_init(&dec, buf, len);
    fwpt_pkt_set_errata(&dec, &errata);
    int rc = 0;
    /* the dump is its own progress on the terminal, and a pager's or grep's through a pipe: a line only to a file */
    struct fwpt_progress prog;
    fwpt_progress_start(&prog, "fwpt dump", "packets", len, quiet || !fwpt_progress_stdout_is_file());
    if (sync && start)
        fwpt_pkt_sync_set(&dec, (size_t)start - 1); /* sync_forward then finds the first PSB >= start */
    else if (!sync)
        fwpt_pkt_sync_set(&dec, (size_t)start);
    if (sync && fwpt_pkt_sync_forward(&dec) != FWPT_OK) {
        fprintf(stderr, "fwpt dump: no PSB at or after offset %llu\n", (unsigned long long)start);
        rc = 1;
        goto done;
    }
    struct fwpt_time tm;
    fwpt_time_init(&tm, &tcfg);
    bool track = show.time || show.tcal;
    for (;;) {
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK) {
            errors++;
            fwpt_time_reset(&tm); /* as after a PSB: nothing is known of the time before it */
            show.last_tsc = show.last_fcr = 0;
            if (jsonl)
                fwpt_pkt_print_error_json(&out, pkt.offset, s);
            else
                fwpt_pkt_print_error_text(&out, pkt.offset, s);
            if (fwpt_pkt_sync_forward(&dec) != FWPT_OK)
                break; /* no PSB after the error: nothing more can be decoded */
            continue;
        }
        packets++;
        fwpt_progress(&prog, pkt.offset, packets, errors);
        if (no_cyc && pkt.type == FWPT_PKT_CYC)
            continue; /* hidden, and no time from it */
        const char *col_id = 0;
        char col[32];
        if (track) {
            struct fwpt_time_step st;
            enum fwpt_status err;
            fwpt_time_packet(&tm, &pkt, &st);
            if (!fwpt_time_column(&tm, &show, &st, &col_id, col, &err))
                col_id = 0;
            for (unsigned d = 0; d <= st.ndiag; d++) { /* the step's diagnostics, then the column's */
                unsigned kind = d < st.ndiag ? st.diag[d].kind : FWPT_TIME_DIAG_PRINT;
                enum fwpt_status ds = d < st.ndiag ? st.diag[d].status : err;
                if (ds == FWPT_OK)
                    continue;
                if (jsonl)
                    fwpt_pkt_print_time_diag_json(&out, pkt.offset, fwpt_time_diag_what(kind), ds);
                else
                    fwpt_pkt_print_time_diag_text(&out, pkt.offset, fwpt_time_diag_what(kind), ds);
            }
        }
        if (jsonl)
            fwpt_pkt_print_json_col(&out, &pkt, col_id, col);
        else
            fwpt_pkt_print_text_col(&out, &pkt, col_id, col);
    }
done:
    fwpt_progress_end(&prog);
    fflush(stdout);
    if (errors)
        fprintf(stderr, "fwpt dump: %llu packets, %llu errors (resynchronized at the next PSB after each)\n",
                packets, errors);
    if (len)
        munmap((void *)buf, len);
    return rc || refused || errors ? (rc ? rc : 1) : recorded_bytes && recorded_bytes != len ? 3 : 0;
}
