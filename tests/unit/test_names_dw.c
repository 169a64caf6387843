/* The views' names through the real backend (tools/symbols_dw.c, libdwfl) on fwpt's own build/fwpt.so, placed at
 * a load base as the app's image would be: for a few of its functions, the listing (text and JSON lines) and the
 * profile print what `nm` and `addr2line` (binutils) say for the same ELF addresses, in the names contract
 * (render/names.h): "FUNC" at the entry, "FUNC+0xOFF" inside, "(FILE:LINE)" with addr2line's file, its basename
 * in text. Without build/fwpt.so (make all) the test fails saying NOT RUN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile.h"
#include "render/flow_print.h"
#include "render/profile_print.h"
#include "tests/check.h"
#include "tests/common/mem_sink.h"
#include "tests/common/small_profile.h"
#include "tools/symbols_dw.h"

#define BASE 0x7e000000ull

static char so[1024];

/* nm's address and size of the function name (0: not found). */
static unsigned long long nm_addr(const char *name, unsigned long long *size)
{
    char cmd[1200], line[512], type[8], sym[256];
    unsigned long long a = 0, s = 0, ra, rs;
    snprintf(cmd, sizeof cmd, "nm -S --defined-only '%s'", so);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "%llx %llx %7s %255s", &ra, &rs, type, sym) == 4 && (type[0] == 'T' || type[0] == 't') &&
            !strcmp(sym, name)) {
            a = ra;
            s = rs;
        }
    if (p)
        pclose(p);
    *size = s;
    return a;
}

/* addr2line's "file:line" for the ELF address a, the discriminator cut; 0 when it knows no line. */
static int addr2line(unsigned long long a, char *file, size_t cap, unsigned *line)
{
    char cmd[1200], out[1024] = "";
    snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%llx", so, a);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(out, sizeof out, p))
        out[0] = 0;
    if (p)
        pclose(p);
    char *d = strstr(out, " (discriminator");
    if (d)
        *d = 0;
    out[strcspn(out, "\n")] = 0;
    char *colon = strrchr(out, ':');
    if (!colon || out[0] == '?' || !(*line = (unsigned)strtoul(colon + 1, NULL, 10)))
        return 0;
    *colon = 0;
    snprintf(file, cap, "%s", out);
    return 1;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

TEST(listing_and_profile_as_nm_and_addr2line)
{
    const char *b = getenv("FWPT_BUILD");
    snprintf(so, sizeof so, "%s/fwpt.so", b ? b : "build");
    struct fwpt_symbols *sy = NULL;
    char err[512];
    if (fwpt_symbols_open(&sy, so, BASE, err, sizeof err) != FWPT_OK) {
        fprintf(stderr, "names_dw: NOT RUN: %s (make all builds it)\n", err);
        CHECK(!"NOT RUN: no build/fwpt.so");
        return;
    }
    struct fwpt_resolver r = fwpt_symbols_resolver(sy);
    static const struct fwpt_module mv[] = {{"BOOTX64", BASE, 0x100000, NULL, 0}};
    struct fwpt_modules mods = {mv, 1, 0};
    static const char *const funcs[] = {"fwpt_flame_svg", "fwpt_profile_add_weight", "fwpt_flow_print_event",
                                        "fwpt_report_html"};
    unsigned lines_seen = 0;
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
        unsigned long long size, a = nm_addr(funcs[i], &size);
        CHECK(a != 0 && size > 8);
        if (!a)
            continue;
        const unsigned long long offs[] = {0, size / 2};
        for (int k = 0; k < 2; k++) {
            const unsigned long long ea = a + offs[k];
            char file[900], want_col[1300], want_text[1400], want_json[2400], fn[300];
            unsigned line = 0;
            const int have_line = addr2line(ea, file, sizeof file, &line);
            lines_seen += have_line;
            if (offs[k])
                snprintf(fn, sizeof fn, "%s+0x%llx", funcs[i], offs[k]);
            else
                snprintf(fn, sizeof fn, "%s", funcs[i]);
            if (have_line)
                snprintf(want_col, sizeof want_col, "%s (%s:%u)", fn, base_name(file), line);
            else
                snprintf(want_col, sizeof want_col, "%s", fn);
            snprintf(want_text, sizeof want_text, "0x%016llx  %-28s  1\n", BASE + ea, want_col);
            struct mem m = {0};
            struct fwpt_sink o = {mem_write, &m};
            struct fwpt_flow_event ev = flow_insn(BASE + ea, 1, FWPT_IC_OTHER);
            struct fwpt_flow_printer pr = {&o, FWPT_FLOW_FMT_TEXT, &mods, NULL, NULL, 0, &r};
            fwpt_flow_print_event(&pr, &ev);
            CHECK_STR(m.p, want_text);
            /* JSON lines: the function alone, its offset, addr2line's file (escaped: none of these paths needs it) */
            int n = snprintf(want_json, sizeof want_json, "{\"type\":\"insn\",\"ip\":\"0x%llx\",\"size\":1,"
                             "\"module\":\"BOOTX64\",\"module_offset\":\"0x%llx\",\"function\":\"%s\","
                             "\"function_offset\":\"0x%llx\"", BASE + ea, ea, funcs[i], offs[k]);
            if (have_line)
                snprintf(want_json + n, sizeof want_json - (size_t)n, ",\"file\":\"%s\",\"line\":%u", file, line);
            m.n = 0;
            pr.format = FWPT_FLOW_FMT_JSONL;
            fwpt_flow_print_event(&pr, &ev);
            CHECK(!strncmp(m.p, want_json, strlen(want_json)));
            if (strncmp(m.p, want_json, strlen(want_json)))
                fprintf(stderr, "  got  %s  want %s...\n", m.p, want_json);
            free(m.p);
        }
        /* the profile: one call of the function, named after its entry */
        static struct small_profile prof;
        small_profile_init(&prof, &mods);
        struct fwpt_flow_event call = flow_insn(0x1000, 5, FWPT_IC_CALL_REL);
        struct fwpt_flow_event in = flow_insn(BASE + a, 1, FWPT_IC_OTHER);
        fwpt_profile_add(&prof.p, &call);
        fwpt_profile_add(&prof.p, &in);
        char file[900], want[1400];
        unsigned line = 0;
        if (addr2line(a, file, sizeof file, &line))
            snprintf(want, sizeof want, "               1          1  0x%llx  BOOTX64+0x%llx  %s (%s:%u)\n", BASE + a, a,
                     funcs[i], base_name(file), line);
        else
            snprintf(want, sizeof want, "               1          1  0x%llx  BOOTX64+0x%llx  %s\n", BASE + a, a,
                     funcs[i]);
        struct mem m = {0};
        struct fwpt_sink o = {mem_write, &m};
        fwpt_profile_print(&prof.p, &r, &o, 5);
        CHECK(strstr(m.p, want) != NULL);
        if (!strstr(m.p, want))
            fprintf(stderr, "  profile:\n%s  want %s", m.p, want);
        free(m.p);
    }
    CHECK(lines_seen >= 6); /* fwpt.so keeps DWARF (-g): most of these have lines */
    printf("names_dw: %s at 0x%llx: 4 functions, 8 addresses, %u with a line, as nm and addr2line\n", so, BASE,
           lines_seen);
    fwpt_symbols_close(sy);
}

TEST_MAIN("names_dw")
