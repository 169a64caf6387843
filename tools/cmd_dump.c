/* fwpt dump FILE [--format text|jsonl] [--offset N] [--sync] [--cpu F/M[/S]|none] [--errata LIST]: one packet per line. On a decode error
 * the error is printed as a line and decoding resumes at the next PSB. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/errata.h"
#include "decode/packet.h"
#include "decode/pkt_print.h"
#include "tools/commands.h"

static void dump_usage(FILE *f)
{
    fprintf(f, "usage: fwpt dump FILE [--format text|jsonl] [--offset N] [--sync] [--cpu F/M[/S]|none] [--errata LIST]\n"
               "  --format F   text (ptdump style, default) or jsonl (one JSON object per line)\n"
               "  --offset N   start decoding at byte N (decimal or 0x-hex)\n"
               "  --sync       start at the first PSB at or after the start offset (of PSBs back to back,\n"
               "               the last, as libipt)\n"
               "  --cpu F/M[/S] the Intel processor that wrote the trace: family/model[/stepping], decimal or\n"
               "               0x-hex (as ptxed --cpu); decodes with its errata. none: no processor (the default)\n"
               "  --errata L   and these errata too (comma-separated names of arch/errata.h, e.g.\n"
               "               skd007,skz84; only skd007 and skz84 change packets)\n"
               "On a decode error the error is printed and decoding resumes at the next PSB.\n");
}

/* The names --errata accepts: the fields of struct fwpt_errata (arch/errata.h's list). */
static const struct {
    const char *name;
    size_t off;
} errata_names[] = {
#define FWPT_ERRATUM_NAME(field, name, aliases, what) {#field, offsetof(struct fwpt_errata, field)},
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
        *(bool *)((char *)e + errata_names[i].off) = true;
        p += n;
        if (*p == ',')
            p++;
    }
    return NULL;
}

int fwpt_cmd_dump(int argc, char **argv)
{
    const char *file = NULL;
    int jsonl = 0, sync = 0;
    uint64_t start = 0;
    struct fwpt_cpu_id cpu = {0};
    struct fwpt_errata errata = {0}, of_cpu; /* --errata's, and --cpu's */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            dump_usage(stdout);
            return 0;
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
        } else if (!strcmp(a, "--sync")) {
            sync = 1;
        } else if (!strcmp(a, "--errata") || !strncmp(a, "--errata=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            char bad[32];
            const char *unknown = v ? parse_errata(v, &errata, bad, sizeof bad) : "(nothing)";
            if (unknown) {
                fprintf(stderr, "fwpt dump: --errata: unknown erratum '%s'\n", unknown);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "fwpt dump: unknown option '%s'\n", a);
            dump_usage(stderr);
            return 2;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "fwpt dump: more than one FILE ('%s', '%s')\n", file, a);
            return 2;
        }
    }
    fwpt_errata_for_cpu(&cpu, &of_cpu);
#define FWPT_ERRATUM_OR(field, name, aliases, what) errata.field |= of_cpu.field;
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_OR)
#undef FWPT_ERRATUM_OR
    if (!file) {
        fprintf(stderr, "fwpt dump: no FILE given\n");
        dump_usage(stderr);
        return 2;
    }
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
    if (sync && start)
        fwpt_pkt_sync_set(&dec, (size_t)start - 1); /* sync_forward then finds the first PSB >= start */
    else if (!sync)
        fwpt_pkt_sync_set(&dec, (size_t)start);
    if (sync && fwpt_pkt_sync_forward(&dec) != FWPT_OK) {
        fprintf(stderr, "fwpt dump: no PSB at or after offset %llu\n", (unsigned long long)start);
        rc = 1;
        goto done;
    }
    for (;;) {
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK) {
            errors++;
            if (jsonl)
                fwpt_pkt_print_error_json(&out, pkt.offset, s);
            else
                fwpt_pkt_print_error_text(&out, pkt.offset, s);
            if (fwpt_pkt_sync_forward(&dec) != FWPT_OK)
                break; /* no PSB after the error: nothing more can be decoded */
            continue;
        }
        packets++;
        if (jsonl)
            fwpt_pkt_print_json(&out, &pkt);
        else
            fwpt_pkt_print_text(&out, &pkt);
    }
done:
    fflush(stdout);
    if (errors)
        fprintf(stderr, "fwpt dump: %llu packets, %llu errors (resynchronized at the next PSB after each)\n",
                packets, errors);
    if (len)
        munmap((void *)buf, len);
    return rc ? rc : (errors ? 1 : 0);
}
