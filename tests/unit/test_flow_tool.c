/* fwpt flow end to end: a generated program saved as a \fwpt\ directory (trace.pt,
 * sideband.json, img-BASE.bin) and as FILE + --image; the tool's JSON lines must list exactly the
 * executed instructions (ground truth) with module offsets, the events in place, and --profile
 * must count every instruction. Then corrupted copies of each trace (tests/common/pkt_stream's damage):
 * no crash and no hang, the instructions and events decode/flow gives for the same bytes, in the same
 * order, errors with their status and trace offset, exit status 1 exactly when there were errors or no
 * instruction, 3 when the trace ends with tracing on.
 * Needs $FWPT_BUILD/fwpt (exported by the Makefile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/flow_sync.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/tool_run.h"

/* Checks the JSON lines of the tool against the ground truth; returns instructions matched. */
static size_t check_jsonl(FILE *in, const struct progen *p, int with_module, unsigned long *interrupts)
{
    char line[1024];
    size_t k = 0, bad = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned long long ip, off;
        unsigned size;
        if (!strncmp(line, "{\"type\":\"insn\"", 14)) {
            if (sscanf(line, "{\"type\":\"insn\",\"ip\":\"0x%llx\",\"size\":%u", &ip, &size) != 2) {
                bad++;
                continue;
            }
            if (k < p->ntruth && (ip != p->truth[k].ip || size != p->truth[k].size))
                bad++;
            if (with_module) {
                static const char key[] = "\"module\":\"Prog\",\"module_offset\":\"0x";
                char *m = strstr(line, key);
                if (!m || sscanf(m + strlen(key), "%llx", &off) != 1 || off != ip - p->base)
                    bad++;
            }
            k++;
        } else if (!strncmp(line, "{\"type\":\"interrupt\"", 19)) {
            (*interrupts)++;
        } else if (!strncmp(line, "{\"type\":\"error\"", 15)) {
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    return k;
}

static unsigned long n_bad_traces, n_bad_lines, n_bad_errors;

/* One corrupted trace in path, decoded by the tool (JSON lines) and by decode/flow in this process: the
 * same instructions and events, line by line. */
static void check_corrupted(const char *tool, const char *path, const char *img, const struct progen *p,
                            const uint8_t *trace, size_t len)
{
    static struct fwpt_flow_block cache[4096];
    static struct fwpt_flow f;
    /* docs/formats.md's type names, written out here rather than taken from fwpt_flow_kind_name: the printer is
     * what is under test */
    static const char *const names[FWPT_FLOW_KIND_COUNT] = {"insn", "enabled", "disabled", "interrupt",
                                                            "overflow", "mode", "error", "tsx", "stopped",
                                                            "paging", "vmcs", "ptwrite", "exstop", "cbr", "mnt",
                                                            "mwait", "pwre", "pwrx", "trig", "end", "cfe",
                                                            "iflags"};
    struct code_image c = {p->base, p->code, p->code_size, 0};
    char cmd[4096], line[1024];
    snprintf(cmd, sizeof cmd, "timeout 30 %s flow %s --image %s@%llx --format jsonl --no-disasm 2>/dev/null", tool,
             path, img, (unsigned long long)p->base);
    FILE *in = popen(cmd, "r");
    CHECK_EQ(fwpt_flow_init(&f, trace, len, code_image_read, &c, cache, sizeof cache / sizeof cache[0]),
             flow_sync_expected(trace, len)); /* a corrupted trace may have lost its PSB */
    struct fwpt_flow_event ev;
    unsigned long errors = 0, k = 0, insns = 0;
    int ok = 1;
    while (ok && fwpt_flow_next(&f, &ev) == FWPT_OK) {
        char want[160];
        int w = snprintf(want, sizeof want, "{\"type\":\"%s\"", names[ev.kind]);
        if (!fgets(line, sizeof line, in) || strncmp(line, want, (size_t)w)) {
            ok = 0;
            break;
        }
        if (ev.kind == FWPT_FLOW_INSN) {
            insns++;
            snprintf(want, sizeof want, "\"ip\":\"0x%llx\",\"size\":%u,", (unsigned long long)ev.ip, ev.size);
            ok = strstr(line, want) != NULL;
        } else {
            /* every event names the trace offset of its packet; an error its status too */
            snprintf(want, sizeof want, "\"offset\":%llu}", (unsigned long long)ev.offset);
            ok = strstr(line, want) != NULL;
            if (ev.kind == FWPT_FLOW_ERROR) {
                errors++;
                snprintf(want, sizeof want, "\"status\":\"%s\"", fwpt_status_name((enum fwpt_status)ev.status));
                ok &= strstr(line, want) != NULL;
            }
        }
        k++;
    }
    uint64_t cut_ip;
    const bool cut = fwpt_flow_cut(&f, &cut_ip);
    if (ok && cut) {
        char want[160];
        snprintf(want, sizeof want, "{\"type\":\"cut\",\"ip\":\"0x%llx\"", (unsigned long long)cut_ip);
        ok = fgets(line, sizeof line, in) && !strncmp(line, want, strlen(want));
    }
    if (ok && fgets(line, sizeof line, in))
        ok = 0; /* the tool printed more */
    if (!ok)
        fprintf(stderr, "flow_tool: corrupted trace (%zu bytes): line %lu differs: %s", len, k, line);
    CHECK(ok);
    while (fgets(line, sizeof line, in))
        ;
    int st = pclose(in);
    /* not a signal, not the time limit (124): 1 for errors or nothing decoded, 3 for a result cut short */
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == (errors || !insns ? 1 : cut ? 3 : 0));
    n_bad_traces++;
    n_bad_lines += k;
    n_bad_errors += errors;
}

/* The fwpt tool's path, found once; NULL (a failed check) when it is not there. */
static const char *find_tool(void)
{
    static char tool[1024];
    static int found = -1;
    if (found < 0)
        found = tool_find(tool, sizeof tool);
    if (!found) {
        CHECK(!"fwpt tool present");
        return NULL;
    }
    return tool;
}

/* The six generated programs (seeds 1 to 6), each saved once, on first use, as a \fwpt\ directory of its own
 * (trace.pt, sideband.json with a second module without code, img-BASE.bin) under one temporary directory,
 * removed at exit. */
enum { N_SEEDS = 6 };
static struct saved {
    struct progen p;
    char dir[64];
    bool ok;
} saved[N_SEEDS];
static char top[] = "/tmp/fwpt-flow-XXXXXX";

static void remove_saved(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", top);
    if (system(cmd) != 0)
        fprintf(stderr, "flow_tool: could not remove %s\n", top);
    for (int k = 0; k < N_SEEDS; k++)
        if (saved[k].ok)
            progen_free(&saved[k].p);
}

static const struct saved *programs(void)
{
    static int made = -1;
    if (made >= 0)
        return made ? saved : NULL;
    made = 0;
    if (!mkdtemp(top)) {
        CHECK(!"temporary directory made");
        return NULL;
    }
    atexit(remove_saved);
    for (int k = 0; k < N_SEEDS; k++) {
        uint64_t seed = (uint64_t)k + 1;
        struct saved *s = &saved[k];
        struct progen_cfg cfg = {.seed = seed, .nfuncs = 8, .max_insns = 3000, .features = PROGEN_F_ALL};
        snprintf(s->dir, sizeof s->dir, "%s/seed%d", top, k + 1);
        if (mkdir(s->dir, 0700) != 0) {
            CHECK(!"seed directory made");
            return NULL;
        }
        if (!progen_build_checked(&cfg, &s->p))
            continue;
        s->ok = true;
        FILE *f = save_program_open(s->dir, &s->p);
        fprintf(f, "{\"version\":1,\n \"images\": [ {\"name\":\"Prog\", \"base\":\"0x%llx\", \"size\":\"0x%zx\", "
                   "\"file\":\"img-%llx.bin\", \"guid\":\"x\", \"more\":{\"a\":[1,{\"b\":\"]\"}]}},\n"
                   "   {\"name\":\"NoCode\",\"base\":4096,\"size\":256} ]}\n",
                (unsigned long long)s->p.base, s->p.code_size, (unsigned long long)s->p.base);
        fclose(f);
    }
    made = 1;
    return saved;
}

/* the directory: JSON lines list exactly the executed instructions with module offsets, and every interrupt */
TEST(dir_jsonl_is_ground_truth)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    for (int k = 0; tool && sv && k < N_SEEDS; k++) {
        const struct progen *p = &sv[k].p;
        if (!sv[k].ok)
            continue;
        char cmd[4096];
        unsigned long ints_truth = 0, ints = 0;
        for (size_t e = 0; e < p->nevents; e++)
            ints_truth += p->events[e].kind == PROGEN_EV_INTERRUPT;
        snprintf(cmd, sizeof cmd, "%s flow %s --format jsonl --no-disasm", tool, sv[k].dir);
        FILE *in = popen(cmd, "r");
        size_t n = check_jsonl(in, p, 1, &ints);
        CHECK_EQ(pclose(in), 0);
        CHECK_EQ(n, p->ntruth);
        CHECK_EQ(ints, ints_truth);
    }
}

/* the raw trace with --image, disassembly on (text mode must work too) */
TEST(raw_trace_with_image_is_ground_truth)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    for (int k = 0; tool && sv && k < N_SEEDS; k++) {
        const struct progen *p = &sv[k].p;
        if (!sv[k].ok)
            continue;
        char cmd[4096];
        unsigned long ints = 0;
        snprintf(cmd, sizeof cmd, "%s flow %s/trace.pt --image %s/img-%llx.bin@%llx --format jsonl", tool,
                 sv[k].dir, sv[k].dir, (unsigned long long)p->base, (unsigned long long)p->base);
        FILE *in = popen(cmd, "r");
        size_t n = check_jsonl(in, p, 0, &ints);
        CHECK_EQ(pclose(in), 0);
        CHECK_EQ(n, p->ntruth);
    }
}

/* --profile counts every instruction */
TEST(profile_counts_every_instruction)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    for (int k = 0; tool && sv && k < N_SEEDS; k++) {
        if (!sv[k].ok)
            continue;
        char cmd[4096], line[512], want[128];
        snprintf(cmd, sizeof cmd, "%s flow %s --profile", tool, sv[k].dir);
        FILE *in = popen(cmd, "r");
        snprintf(want, sizeof want, "instructions per module (%zu in all)\n", sv[k].p.ntruth);
        CHECK(fgets(line, sizeof line, in) != NULL);
        CHECK_STR(line, want);
        CHECK_EQ(pclose(in), 0);
    }
}

/* --calls: the root's total is every instruction */
TEST(calls_root_total_is_every_instruction)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    for (int k = 0; tool && sv && k < N_SEEDS; k++) {
        if (!sv[k].ok)
            continue;
        char cmd[4096], line[512];
        snprintf(cmd, sizeof cmd, "%s flow %s --calls", tool, sv[k].dir);
        FILE *in = popen(cmd, "r");
        int root_ok = 0;
        while (fgets(line, sizeof line, in)) {
            unsigned long long c, self, total;
            if (strstr(line, "(root)") && sscanf(line, "%llu %llu %llu", &c, &self, &total) == 3)
                root_ok = total == sv[k].p.ntruth;
        }
        CHECK(root_ok);
        CHECK_EQ(pclose(in), 0);
    }
}

/* corrupted copies of each trace, the code as it was: 8 per program */
TEST(corrupted_traces_as_decode_flow_gives)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    n_bad_traces = n_bad_lines = n_bad_errors = 0;
    for (int k = 0; tool && sv && k < N_SEEDS; k++) {
        const struct progen *p = &sv[k].p;
        if (!sv[k].ok)
            continue;
        uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
        uint8_t *bad = malloc(p->trace_size + 1);
        char img[1200], path[1200];
        snprintf(img, sizeof img, "%s/img-%llx.bin", sv[k].dir, (unsigned long long)p->base);
        snprintf(path, sizeof path, "%s/bad.pt", sv[k].dir);
        for (int v = 0; v < 8; v++) {
            size_t blen = pkt_corrupt(&rng, p->trace, p->trace_size, bad);
            write_file(path, bad, blen);
            check_corrupted(tool, path, img, p, bad, blen);
        }
        unlink(path);
        free(bad);
    }
    printf("flow_tool: %lu corrupted traces, %lu instructions and events compared, %lu errors among them\n",
           n_bad_traces, n_bad_lines, n_bad_errors);
}

/* a file that cannot be read to its end is an error naming it, never a short trace decoded in silence
 * (/proc/self/mem reads EIO at offset 0) */
TEST(unreadable_trace_is_an_error)
{
    static char out[4096];
    CHECK_EQ(tool_run("flow", "/proc/self/mem", out, sizeof out), 1);
    CHECK_STR(out, "fwpt flow: /proc/self/mem: Input/output error\n");
}

/* sideband.json's code_crc32 (the app's CRC-32 of an image's executable sections) against img-BASE.bin: when they
 * differ (here a recorded hash for a file that is not PE/COFF: none computed over it) one warning names the file and
 * the image, and the decode is the same as without it; null: not checked, not a word */
TEST(code_crc32_differs_is_named)
{
    const char *tool = find_tool();
    const struct saved *sv = programs();
    if (!tool || !sv || !sv[0].ok)
        return;
    const struct progen *p = &sv[0].p;
    static char plain[1 << 15], out[1 << 16], want[1 << 16];
    char dir[128], args[256];
    snprintf(args, sizeof args, "%s --profile", sv[0].dir);
    CHECK_EQ(tool_run("flow", args, plain, sizeof plain), 0);
    for (int k = 0; k < 2; k++) {
        snprintf(dir, sizeof dir, "%s/crc%d", top, k);
        CHECK_EQ(mkdir(dir, 0700), 0);
        FILE *f = save_program_open(dir, p);
        fprintf(f, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\","
                   "\"code_crc32\":%s,\"code_bytes\":%s}]}\n", (unsigned long long)p->base, p->code_size,
                (unsigned long long)p->base, k ? "null" : "\"0x12345678\"", k ? "0" : "100");
        fclose(f);
        snprintf(args, sizeof args, "%s --profile", dir);
        CHECK_EQ(tool_run("flow", args, out, sizeof out), 0);
        if (k)
            snprintf(want, sizeof want, "%s", plain);
        else
            snprintf(want, sizeof want, "fwpt flow: %s/img-%llx.bin: the code of image Prog is not what the app recorded "
                     "(CRC-32 of its executable sections 0x00000000 over 0 bytes; %s/sideband.json: 0x12345678 over "
                     "100): a file from another run, or changed? Its instructions are decoded from these bytes\n%s",
                     dir, (unsigned long long)p->base, dir, plain);
        CHECK_STR(out, want);
    }
}

TEST_MAIN("flow_tool")
