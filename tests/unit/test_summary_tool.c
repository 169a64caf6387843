/* fwpt flow's summaries through the tool: --profile --calls --edges with --folded, --chrome-trace, --report and
 * --coverage files, by the summary walk (-j 1, -j 2 and -j 4 with pieces from one PSB on, and the default) and by
 * the per-instruction walk (--walk insn): the same stdout, stderr, files and exit status, over generated programs
 * saved as a \fwpt\ directory, corrupted copies of their traces (FILE + --image) and the firmware traces
 * (FWPT_BENCH_FW, else $FWPT_BUILD/bench/fw when there). Then the options' errors. Needs $FWPT_BUILD/fwpt. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/common/fw_traces.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/refusal.h"
#include "tests/common/tool_run.h"

static char tool[1024], tmp[64];

/* Everything one run gave: stdout, stderr, the files, the exit status, as one blob. */
static char *run(const char *input, const char *walk, size_t *n)
{
    char cmd[8192], path[256];
    snprintf(cmd, sizeof cmd,
             "timeout 60 %s flow %s --profile --calls --edges --folded %s/folded --chrome-trace %s/chrome "
             "--report %s/report --coverage %s/cov --coverage-size 4K %s >%s/out 2>%s/err; echo $? >%s/rc",
             tool, input, tmp, tmp, tmp, tmp, walk, tmp, tmp, tmp);
    int st = system(cmd);
    CHECK(WIFEXITED(st));
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap);
    static const char *const parts[] = {"out", "err", "rc", "folded", "chrome", "report", "cov"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t m;
        snprintf(path, sizeof path, "%s/%s", tmp, parts[i]);
        char *d = slurp(path, &m);
        if (len + m + 64 > cap)
            all = realloc(all, cap = (len + m + 64) * 2);
        len += (size_t)snprintf(all + len, 64, "\n== %s (%zu)\n", parts[i], m);
        if (d)
            memcpy(all + len, d, m);
        len += m;
        free(d);
        unlink(path);
    }
    *n = len;
    return all;
}

static unsigned long n_inputs, n_diff, n_failing; /* of the case running: reset and printed by each */

static void counts_reset(void)
{
    n_inputs = n_diff = n_failing = 0;
}

static void counts_print(const char *what)
{
    printf("summary_tool: %s: %lu inputs (%lu with decode errors), each by 4 summary ways against --walk insn: "
           "%lu differ\n", what, n_inputs, n_failing, n_diff);
}

/* Every way against --walk insn. */
static void compare_ways(const char *what, const char *input)
{
    static const char *const ways[] = {"-j 1", "-j 2 --split 1", "-j 4 --split 1", ""};
    size_t rn;
    char *ref = run(input, "--walk insn", &rn);
    n_inputs++;
    if (!strstr(ref, "== rc (2)\n0\n"))
        n_failing++; /* decode errors: exit status 1 (the ways must agree on it too) */
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        size_t gn;
        char *got = run(input, ways[w], &gn);
        bool same = gn == rn && !memcmp(ref, got, rn);
        if (!same && n_diff++ < 3) {
            size_t i = 0;
            while (i < rn && i < gn && ref[i] == got[i])
                i++;
            size_t from = i > 100 ? i - 100 : 0;
            fprintf(stderr, "%s (%s): differs from --walk insn at %zu:\n  insn:    %.200s\n  summary: %.200s\n", what,
                    ways[w], i, ref + from, got + from);
        }
        CHECK(same);
        free(got);
    }
    free(ref);
}

/* Generated programs saved as a \fwpt\ directory (seeds 1..6), and three corrupted copies of each trace (FILE +
 * --image): every summary way gives what --walk insn gives. */
TEST(programs_and_corrupted_copies_all_ways_agree)
{
    counts_reset();
    char path[256], img[256], input[1024];
    uint64_t rng = 0x51ed;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct progen_cfg cfg = {.seed = seed, .nfuncs = 16, .max_insns = 20000, .features = PROGEN_F_ALL,
                                 .psb_period = 300, .no_truth = 1};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        save_program(tmp, &p);
        snprintf(img, sizeof img, "%s/img-%llx.bin", tmp, (unsigned long long)p.base);
        char what[64];
        snprintf(what, sizeof what, "program %llu", (unsigned long long)seed);
        compare_ways(what, tmp);
        uint8_t *bad = malloc(p.trace_size + 64);
        snprintf(path, sizeof path, "%s/bad.pt", tmp);
        for (int v = 0; v < 3; v++) {
            size_t blen = pkt_corrupt(&rng, p.trace, p.trace_size, bad);
            write_file(path, bad, blen);
            snprintf(input, sizeof input, "%s --image %s@%llx", path, img, (unsigned long long)p.base);
            snprintf(what, sizeof what, "program %llu corrupted %d", (unsigned long long)seed, v);
            compare_ways(what, input);
        }
        free(bad);
        unlink(path);
        unlink(img);
        progen_free(&p);
    }
    counts_print("programs");
}

/* The firmware traces (FWPT_BENCH_FW, else $FWPT_BUILD/bench/fw when there), each with its sideband.json: every
 * summary way gives what --walk insn gives. */
TEST(firmware_traces_all_ways_agree)
{
    counts_reset();
    struct fw_trace *fw;
    int n = fw_traces("summary_tool", &fw);
    CHECK(n >= 0);
    for (int i = 0; i < n; i++) {
        char what[128];
        snprintf(what, sizeof what, "firmware %s", fw[i].name);
        compare_ways(what, fw[i].dir); /* with its sideband.json: names, the processor's errata */
    }
    if (n > 0)
        free(fw);
    counts_print("firmware");
}

/* The options' errors: exit status 2 and a line that says what was expected. */
TEST(option_errors_exit_2)
{
    static const struct refusal bad[] = {
        {"-j 0", "expected 1..256 threads"},
        {"--jobs x", "expected 1..256 threads"},
        {"--coverage-size 3000", "expected a power of two"},
        {"--split 0", "expected a size in bytes"},
        {"--walk fast", "expected 'summary' or 'insn'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[2048], out[4096] = {0};
        snprintf(cmd, sizeof cmd, "%s flow /dev/null %s 2>&1", tool, bad[i].args);
        FILE *p = popen(cmd, "r");
        size_t m = fread(out, 1, sizeof out - 1, p);
        out[m] = 0;
        int st = pclose(p);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
        CHECK(strstr(out, bad[i].says) != NULL);
    }
}

/* The tool and the scratch directory every case writes its outputs to, found and made before the cases run. */
int main(int argc, char **argv)
{
    TOOL_FIND_OR_END(tool, "summary_tool");
    snprintf(tmp, sizeof tmp, "/tmp/fwpt-sumtool-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    int rc = check_run(argc, argv, "summary_tool");
    rmdir(tmp);
    return rc;
}
