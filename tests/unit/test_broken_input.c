/* fwpt flow / dump / report on broken input: a good saved \fwpt\ directory (a generated program: trace.pt,
 * sideband.json, img-BASE.bin), then copies with one thing broken each (the trace empty, random, zeros, cut in
 * half, cut with tracing on, a directory, missing; sideband.json missing, cut, a directory, a bad image base; the
 * image file cut or missing; a raw trace without its code). Each must give the exit status and the message that
 * names the file and the reason (docs/host-tool.md, "Exit status"), never an empty success. Then refused option
 * values, the summary of repeated decode errors, where errors go when stdout is promised nothing, --by time
 * without timing packets, and the JSON lines of --profile, --calls and --edges. No QEMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/tool_run.h"

static char top[] = "/tmp/fwpt-broken-XXXXXX";
static char good[1200], img_name[64];
static struct progen prog;
static char out[1 << 22], so[1 << 22], se[1 << 22]; /* a whole listing: the tool never meets a closed pipe */

/* `fwpt flow ARGS` with stdout and stderr apart: stdout into so, stderr into se; the exit status (-1: no exit). */
static int run_split(const char *args, char *so, size_t so_cap, char *se, size_t se_cap)
{
    char tool[1024], line[4096], errf[1300];
    if (!tool_find(tool, sizeof tool))
        return -1;
    snprintf(errf, sizeof errf, "%s/stderr.txt", top);
    snprintf(line, sizeof line, "\"%s\" flow %s 2>%s", tool, args, errf);
    FILE *f = popen(line, "r");
    size_t n = fread(so, 1, so_cap - 1, f);
    so[n] = 0;
    int st = pclose(f);
    size_t en;
    char *e = slurp(errf, &en);
    en = en < se_cap - 1 ? en : se_cap - 1;
    memcpy(se, e ? e : "", e ? en : 0);
    se[e ? en : 0] = 0;
    free(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `fwpt CMD ARGS` (stdout and stderr together): exit status want, and the text want_msg in what it printed. */
static void expect(const char *what, const char *cmd, const char *args, int want, const char *want_msg)
{
    int rc = tool_run(cmd, args, out, sizeof out);
    int ok = rc == want && (!want_msg || strstr(out, want_msg));
    if (!ok)
        fprintf(stderr, "broken_input: %s: fwpt %s %s: exit %d (want %d), output:\n%.2000s\n(want '%s')\n", what, cmd,
                args, rc, want, out, want_msg ? want_msg : "");
    CHECK(ok);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *b = slurp(from, &n);
    if (b)
        write_file(to, b, n);
    free(b);
}

/* A copy of the good directory as top/name (path into dir). */
static void copy_good(const char *name, char *dir, size_t cap)
{
    char a[1400], b[1400];
    snprintf(dir, cap, "%s/%s", top, name);
    mkdir(dir, 0755);
    static const char *const files[] = {"trace.pt", "sideband.json", img_name};
    for (int k = 0; k < 3; k++) {
        snprintf(a, sizeof a, "%s/%s", good, files[k]);
        snprintf(b, sizeof b, "%s/%s", dir, files[k]);
        copy_file(a, b);
    }
}

static void put(const char *dir, const char *file, const void *data, size_t n)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    write_file(p, data, n);
}

static void replace_by_dir(const char *dir, const char *file)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    unlink(p);
    mkdir(p, 0755);
}

static void remove_file(const char *dir, const char *file)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    unlink(p);
}

/* The broken directory through fwpt flow, flow --profile and report (all want_flow and flow_msg, "%s" for DIR),
 * and dump (want_dump, dump_msg). The report page is written (page 1) when the trace could be read, even with nothing decoded (it says so in
 * red: test_report_page checks its words); not when the input is refused before decoding. */
static void four_ways(const char *what, const char *dir, int want_flow, const char *flow_msg, int page, int want_dump,
                      const char *dump_msg)
{
    char args[2000], msg[1600], page_path[1400];
    snprintf(msg, sizeof msg, flow_msg, dir);
    snprintf(args, sizeof args, "%s --no-disasm", dir);
    expect(what, "flow", args, want_flow, msg);
    snprintf(args, sizeof args, "%s --profile", dir);
    expect(what, "flow", args, want_flow, msg);
    snprintf(page_path, sizeof page_path, "%s/page.html", top);
    unlink(page_path);
    snprintf(args, sizeof args, "%s -o %s", dir, page_path);
    expect(what, "report", args, want_flow, msg);
    CHECK_EQ(access(page_path, F_OK) == 0, page);
    snprintf(msg, sizeof msg, dump_msg, dir);
    expect(what, "dump", dir, want_dump, msg);
}

/* How many lines of text hold s. */
static unsigned lines_with(const char *text, const char *s)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, s)); p++) {
        n++;
        p = strchr(p, '\n');
        if (!p)
            break;
    }
    return n;
}

/* The good saved directory, built once on first use under a new temporary directory (top/good): the program,
 * trace.pt, sideband.json and img-BASE.bin; 0 (checked as a failure) when the program could not be generated. */
static int fixture_built, fixture_ok, top_made;
static int fixture(void)
{
    if (fixture_built)
        return fixture_ok;
    fixture_built = 1;
    if (!mkdtemp(top))
        return 0;
    top_made = 1;
    struct progen_cfg cfg = {.seed = 7, .nfuncs = 8, .max_insns = 3000,
                             .features = PROGEN_F_ALL & ~(unsigned)PROGEN_F_OVERFLOW, .psb_period = 400};
    if (!progen_build_checked(&cfg, &prog))
        return 0;
    snprintf(good, sizeof good, "%s/good", top);
    mkdir(good, 0755);
    snprintf(img_name, sizeof img_name, "img-%llx.bin", (unsigned long long)prog.base);
    FILE *f = save_program_open(good, &prog);
    fprintf(f, "{\"trace\":{\"file\":\"trace.pt\",\"bytes\":%zu},\n \"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\","
               "\"size\":\"0x%zx\",\"file\":\"%s\"}]}\n",
            prog.trace_size, (unsigned long long)prog.base, prog.code_size, img_name);
    fclose(f);
    fixture_ok = 1;
    return fixture_ok;
}

/* Every case starts with it: the fixture, or a failed check and an early return. */
#define NEED_FIXTURE()                                                                                                 \
    do {                                                                                                               \
        if (!fixture()) {                                                                                              \
            CHECK(!"program generated");                                                                               \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* the good directory: a clean result, exit 0 */
TEST(good_directory_exits_0)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s --no-disasm", good);
    expect("good", "flow", args, 0, NULL);
    snprintf(args, sizeof args, "%s --profile", good);
    snprintf(msg, sizeof msg, "instructions per module (%zu in all)\n", prog.ntruth);
    expect("good --profile", "flow", args, 0, msg);
    expect("good", "dump", good, 0, NULL);
}

/* the trace: empty */
TEST(trace_empty)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("empty", dir, sizeof dir);
    put(dir, "trace.pt", "", 0);
    four_ways("trace.pt empty", dir, 1, "%s/trace.pt: empty (0 bytes): nothing to decode\n", 1, 1,
              "fwpt dump: %s/trace.pt: empty (0 bytes): nothing to decode\n");
}

/* the trace: random bytes */
TEST(trace_random)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("random", dir, sizeof dir);
    uint8_t junk[4096];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < sizeof junk; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        junk[k] = (uint8_t)(x >> 24);
    }
    put(dir, "trace.pt", junk, sizeof junk);
    four_ways("trace.pt random", dir, 1,
              "%s/trace.pt: no PSB in its 4096 bytes: not an Intel PT trace, or cut before its first PSB; nothing "
              "decoded\n", 1, 1, "fwpt dump: %s/trace.pt: no PSB in its 4096 bytes");
}

/* the trace: zeros */
TEST(trace_zeros)
{
    NEED_FIXTURE();
    char dir[1300];
    uint8_t junk[4096];
    copy_good("zeros", dir, sizeof dir);
    memset(junk, 0, sizeof junk);
    put(dir, "trace.pt", junk, sizeof junk);
    four_ways("trace.pt zeros", dir, 1, "%s/trace.pt: no PSB in its 4096 bytes", 1, 1,
              "fwpt dump: %s/trace.pt: no PSB in its 4096 bytes");
}

/* cut in half: shorter than sideband.json records; the walk stops where the bytes end */
TEST(trace_cut_in_half)
{
    NEED_FIXTURE();
    char dir[1300], args[4000], msg[2000];
    copy_good("half", dir, sizeof dir);
    put(dir, "trace.pt", prog.trace, prog.trace_size / 2);
    snprintf(msg, sizeof msg, "%%s/trace.pt: %zu bytes, but sideband.json records %zu: the file is cut short",
             prog.trace_size / 2, prog.trace_size);
    snprintf(args, sizeof args, "%s/trace.pt: %zu bytes, but sideband.json records %zu: the file is cut short",
             "%s", prog.trace_size / 2, prog.trace_size);
    /* the half trace ends in a packet or with tracing on: a decode error (1) or only incomplete (3) */
    char d2[1400];
    snprintf(d2, sizeof d2, "%s --no-disasm", dir);
    int rc = tool_run("flow", d2, out, sizeof out);
    CHECK(rc == 1 || rc == 3);
    int rc_dump = tool_run("dump", dir, out, sizeof out);
    CHECK(rc_dump == 1 || rc_dump == 3);
    four_ways("trace.pt cut in half", dir, rc, msg, 1, rc_dump, args);
    tool_run("flow", d2, out, sizeof out);
    snprintf(d2, sizeof d2, "%s/trace.pt: the trace ends with tracing on", dir);
    if (rc == 3)
        CHECK(strstr(out, d2) != NULL);
}

/* the trace: a directory in its place */
TEST(trace_a_directory)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("tracedir", dir, sizeof dir);
    replace_by_dir(dir, "trace.pt");
    four_ways("trace.pt a directory", dir, 1, "%s/trace.pt: Is a directory\n", 0, 1,
              "fwpt dump: '%s/trace.pt' is not a regular file\n");
}

/* the trace: missing */
TEST(trace_missing)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("notrace", dir, sizeof dir);
    remove_file(dir, "trace.pt");
    four_ways("trace.pt missing", dir, 1, "%s/trace.pt: No such file or directory\n", 0, 1,
              "fwpt dump: '%s' is a directory without trace.pt");
}

/* sideband.json: missing */
TEST(sideband_missing)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("nosideband", dir, sizeof dir);
    remove_file(dir, "sideband.json");
    four_ways("sideband.json missing", dir, 1,
              "%s/sideband.json: No such file or directory: no images, so no code to decode with", 0, 0, "");
}

/* sideband.json: a directory in its place */
TEST(sideband_a_directory)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("sidebanddir", dir, sizeof dir);
    replace_by_dir(dir, "sideband.json");
    four_ways("sideband.json a directory", dir, 1, "%s/sideband.json: Is a directory: no images", 0, 0, "");
}

/* sideband.json: cut after 40 bytes, then garbled at byte 12 */
TEST(sideband_cut_or_garbled)
{
    NEED_FIXTURE();
    char dir[1300];
    copy_good("sidebandcut", dir, sizeof dir);
    char p[1400];
    size_t n;
    snprintf(p, sizeof p, "%s/sideband.json", good);
    char *sb = slurp(p, &n);
    put(dir, "sideband.json", sb, 40);
    char m[200];
    snprintf(m, sizeof m, "%%s/sideband.json: not valid JSON: it ends in the middle of a value (cut short?) at byte "
             "40 of 40\n");
    four_ways("sideband.json cut", dir, 1, m, 0, 1, m);
    memcpy(sb + 10, "}}", 2);
    put(dir, "sideband.json", sb, n);
    four_ways("sideband.json garbled", dir, 1, "%s/sideband.json: not valid JSON: unexpected character at byte 12",
              0, 1, "%s/sideband.json: not valid JSON: unexpected character at byte 12");
    free(sb);
}

/* sideband.json with a NUL byte inside: refused at that offset by every command (tools/sideband.c fwpt_sideband_load),
 * never read as a file that ends there: a NUL in a string (a control character, RFC 8259), and one after the whole
 * value, followed by more bytes (read up to the NUL, the file is valid JSON) */
TEST(sideband_nul_byte_inside)
{
    NEED_FIXTURE();
    char dir[1300], p[1400], m[200];
    copy_good("sidebandnul", dir, sizeof dir);
    snprintf(p, sizeof p, "%s/sideband.json", good);
    size_t n;
    char *sb = slurp(p, &n);
    char *t = malloc(n + 8);
    memcpy(t, sb, n);
    CHECK(!memcmp(t + 17, "\"trace.pt\"", 10)); /* byte 20: inside the string "trace.pt" */
    t[20] = 0;
    put(dir, "sideband.json", t, n);
    snprintf(m, sizeof m, "%%s/sideband.json: not valid JSON: a NUL byte at byte 20 of %zu\n", n);
    four_ways("sideband.json NUL in a string", dir, 1, m, 0, 1, m);
    memcpy(t, sb, n);
    memcpy(t + n, "\0{\"x\":1}", 8); /* the good file, a NUL, then 7 bytes more */
    put(dir, "sideband.json", t, n + 8);
    snprintf(m, sizeof m, "%%s/sideband.json: not valid JSON: a NUL byte at byte %zu of %zu\n", n, n + 8);
    four_ways("sideband.json NUL after the value", dir, 1, m, 0, 1, m);
    free(t);
    free(sb);
}

/* sideband.json: an image base that is not a number */
TEST(image_base_not_a_number)
{
    NEED_FIXTURE();
    char dir[1300], msg[2000];
    copy_good("badbase", dir, sizeof dir);
    snprintf(msg, sizeof msg, "{\"images\":[{\"name\":\"Prog\",\"base\":\"zzz\",\"size\":\"0x%zx\",\"file\":\"%s\"}]}\n",
             prog.code_size, img_name);
    put(dir, "sideband.json", msg, strlen(msg));
    four_ways("image base zzz", dir, 1,
              "%s/sideband.json: images[0] (\"Prog\"): \"base\": expected a number (\"0x..\" hex or decimal), got "
              "\"zzz\"\n", 0, 0, "");
}

/* an image "file" is a name in the directory: one outside it is never read (a copy of the code lies in the
 * parent, so reading it would decode) */
TEST(image_file_outside_directory)
{
    NEED_FIXTURE();
    char dir[1300], msg[2000];
    copy_good("fileoutside", dir, sizeof dir);
    char a[1400], b[1400];
    snprintf(a, sizeof a, "%s/%s", good, img_name);
    snprintf(b, sizeof b, "%s/%s", top, img_name);
    copy_file(a, b);
    snprintf(msg, sizeof msg, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"file\":\"../%s\"}]}\n",
             (unsigned long long)prog.base, img_name);
    put(dir, "sideband.json", msg, strlen(msg));
    char m[600];
    snprintf(m, sizeof m, "%%s/sideband.json: images[0] (\"Prog\"): \"file\": expected the name of a file in the "
             "directory (no '/', not \".\" or \"..\", under 511 bytes), got \"../%s\"\n", img_name);
    four_ways("image file ../", dir, 1, m, 0, 0, "");
}

/* nor a name a \u0000 would cut short (the name before it is the code) */
TEST(image_file_name_with_nul)
{
    NEED_FIXTURE();
    char dir[1300], msg[2000];
    copy_good("filenul", dir, sizeof dir);
    snprintf(msg, sizeof msg, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"file\":\"%s\\u0000x\"}]}\n",
             (unsigned long long)prog.base, img_name);
    put(dir, "sideband.json", msg, strlen(msg));
    char m[600];
    snprintf(m, sizeof m, "%%s/%s?x: No such file or directory (image Prog without code: its instructions cannot be "
             "decoded)\nfwpt flow: %%s: no image with code (1 in its sideband.json): nothing to decode with\n",
             img_name);
    char m2[1600];
    snprintf(m2, sizeof m2, m, dir, "%s");
    four_ways("image file with \\u0000", dir, 1, m2, 0, 0, "");
}

/* the image file: cut short */
TEST(image_file_cut)
{
    NEED_FIXTURE();
    char dir[1300], args[4000], msg[2000];
    copy_good("imgcut", dir, sizeof dir);
    put(dir, img_name, prog.code, prog.code_size / 4);
    snprintf(msg, sizeof msg, "%%s/%s: %zu bytes, but %%s/sideband.json records %zu (0x%zx) for image Prog: the file is "
             "cut short", img_name, prog.code_size / 4, prog.code_size, prog.code_size);
    char m[2400];
    snprintf(m, sizeof m, msg, dir, dir);
    four_ways("image file cut", dir, 1, m, 1, 0, "");
    /* the code that is missing: errors of one kind, the first 3 in line, then their count */
    snprintf(args, sizeof args, "%s --no-disasm", dir);
    tool_run("flow", args, out, sizeof out);
    CHECK_EQ(lines_with(out, "(E_NOMAP)"), 3);
    CHECK(strstr(out, "-- error: E_NOMAP: ") != NULL);
}

/* the image file: missing */
TEST(image_file_missing)
{
    NEED_FIXTURE();
    char dir[1300], args[4000], msg[2000];
    copy_good("imgmissing", dir, sizeof dir);
    remove_file(dir, img_name);
    snprintf(msg, sizeof msg, "%%s/%s: No such file or directory (image Prog without code", img_name);
    four_ways("image file missing", dir, 1, msg, 0, 0, "");
    snprintf(args, sizeof args, "%s", dir);
    snprintf(msg, sizeof msg, "%s: no image with code (1 in its sideband.json): nothing to decode with\n", dir);
    expect("image file missing", "flow", args, 1, msg);
}

/* the image file: a directory in its place */
TEST(image_file_a_directory)
{
    NEED_FIXTURE();
    char dir[1300], msg[2000];
    copy_good("imgdir", dir, sizeof dir);
    replace_by_dir(dir, img_name);
    snprintf(msg, sizeof msg, "%%s/%s: Is a directory (image Prog without code", img_name);
    four_ways("image file a directory", dir, 1, msg, 0, 0, "");
}

/* a raw trace without its code: one line with the hint, not an error per IP */
TEST(raw_trace_without_image)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s/trace.pt", good);
    snprintf(msg, sizeof msg, "fwpt flow: %s/trace.pt: no code to decode with: a raw trace needs --image FILE@ADDR",
             good);
    expect("raw trace without --image", "flow", args, 1, msg);
    CHECK_EQ(lines_with(out, "\n") + (out[0] && !strchr(out, '\n')), 1);
}

/* the code at the wrong address: the same error again and again, summarized (text), every one (JSON lines) */
TEST(repeated_errors_summarized)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s/trace.pt --image %s/%s@0x10 --no-disasm", good, good, img_name);
    int rc = run_split(args, so, sizeof so, se, sizeof se);
    CHECK_EQ(rc, 1);
    unsigned long nerr = 0;
    const char *sum = strstr(so, "-- error: E_NOMAP: ");
    CHECK(sum && sscanf(sum, "-- error: E_NOMAP: %*u more not shown (%lu in all; the first 3 are above)", &nerr) == 1);
    CHECK(nerr > 10);
    CHECK_EQ(lines_with(so, "(E_NOMAP)"), 3);
    CHECK_EQ(lines_with(so, "E_NOMAP"), 4);
    CHECK(strstr(se, "fwpt flow: ") && strstr(se, "no instruction decoded"));
    snprintf(args, sizeof args, "%s/trace.pt --image %s/%s@0x10 --format jsonl", good, good, img_name);
    rc = run_split(args, so, sizeof so, se, sizeof se);
    CHECK_EQ(rc, 1);
    CHECK_EQ(lines_with(so, "\"status\":\"E_NOMAP\""), nerr);
    CHECK(!strstr(so, "errors_not_shown"));
    snprintf(args, sizeof args, "%s/trace.pt --image %s/%s@0x10 --profile --format jsonl", good, good, img_name);
    rc = run_split(args, so, sizeof so, se, sizeof se);
    CHECK_EQ(rc, 1);
    CHECK_EQ(lines_with(so, "{\"type\":\"error\""), 3);
    snprintf(msg, sizeof msg, "{\"type\":\"errors_not_shown\",\"status\":\"E_NOMAP\",\"count\":%lu,\"total\":%lu}\n",
             nerr - 3, nerr);
    CHECK(strstr(so, msg) != NULL);
}

/* --flame alone promises nothing on stdout: the errors go to stderr, summarized there */
TEST(flame_errors_on_stderr)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s/trace.pt --image %s/%s@0x10 --flame %s/f.svg", good, good, img_name, top);
    int rc = run_split(args, so, sizeof so, se, sizeof se);
    CHECK_EQ(rc, 1);
    CHECK_STR(so, "");
    CHECK_EQ(lines_with(se, "(E_NOMAP)"), 3);
    CHECK(strstr(se, "-- error: E_NOMAP: ") != NULL);
    /* and nothing was decoded: no picture of nothing is left behind */
    CHECK(strstr(se, "trace.pt: no instruction decoded (") && strstr(se, " decode errors): no result, no file written\n"));
    snprintf(msg, sizeof msg, "%s/f.svg", top);
    CHECK(access(msg, F_OK) != 0);
}

/* a trace that ends with tracing on (cut at a PSB: every packet whole): a result, but incomplete (exit 3) */
TEST(trace_ends_with_tracing_on)
{
    NEED_FIXTURE();
    char dir[1300], args[4000], msg[2000];
    size_t cut = prog.trace_size;
    for (size_t k = prog.trace_size / 2; k + 16 <= prog.trace_size; k++)
        if (!memcmp(prog.trace + k, "\x02\x82\x02\x82", 4)) {
            cut = k;
            break;
        }
    CHECK(cut < prog.trace_size);
    snprintf(dir, sizeof dir, "%s/cut.pt", top);
    write_file(dir, prog.trace, cut);
    snprintf(args, sizeof args, "%s --image %s/%s@0x%llx --no-disasm", dir, good, img_name,
             (unsigned long long)prog.base);
    int rc = run_split(args, so, sizeof so, se, sizeof se);
    CHECK_EQ(rc, 3);
    snprintf(msg, sizeof msg, "fwpt flow: %s: the trace ends with tracing on (no TIP.PGD: the buffer filled or the "
             "file was cut): the walk stopped at 0x", dir);
    CHECK(strstr(se, msg) != NULL);
    CHECK(strstr(so, "-- end of trace with tracing on") != NULL);
    /* the summary walk says the same */
    snprintf(args, sizeof args, "%s --image %s/%s@0x%llx --profile", dir, good, img_name,
             (unsigned long long)prog.base);
    CHECK_EQ(run_split(args, so, sizeof so, se, sizeof se), 3);
    CHECK(strstr(se, msg) != NULL);
}

/* --by time on a trace without timing packets: said, not a table of zero ticks */
TEST(by_time_without_timing_packets)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s --profile --by time", good);
    snprintf(msg, sizeof msg, "fwpt flow: %s/trace.pt: no time in the trace (no TSC, MTC or CYC packets", good);
    expect("--by time without timing", "flow", args, 1, msg);
}

/* option values: which option, which value, what it takes (exit 2); the report passes them on */
TEST(option_values_refused)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    static const struct {
        const char *args, *msg;
    } opts[] = {
        {"--top -3", "fwpt flow: --top: expected a number of functions (0 or more, decimal or 0x-hex), got '-3'\n"},
        {"--top abc", "fwpt flow: --top: expected a number of functions (0 or more, decimal or 0x-hex), got 'abc'\n"},
        {"--depth -1", "fwpt flow: --depth: expected a number of call levels (0 or more, decimal or 0x-hex), got '-1'\n"},
        {"--by cycles", "fwpt flow: --by: expected 'time' or 'insns', got 'cycles'\n"},
        {"--split 0", "fwpt flow: --split: expected a size in bytes, got '0'\n"},
        {"--top", "fwpt flow: --top: expected a number of functions (0 or more, decimal or 0x-hex), got nothing (it is "
                  "the last argument)\n"},
        {"--flame", "fwpt flow: --flame: expected a FILE to write, got nothing (it is the last argument)\n"},
        {"--format", "fwpt flow: --format: expected 'text' or 'jsonl', got nothing (it is the last argument)\n"},
        {"--bogus", "fwpt flow: unknown option '--bogus'\n"},
    };
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        snprintf(args, sizeof args, "%s %s", good, opts[k].args);
        int r = tool_run("flow", args, out, sizeof out);
        CHECK_EQ(r, 2);
        if (strncmp(out, opts[k].msg, strlen(opts[k].msg)))
            fprintf(stderr, "broken_input: fwpt flow %s: '%s'\n", args, out);
        CHECK(!strncmp(out, opts[k].msg, strlen(opts[k].msg)));
        /* a known option's message is one line, no usage after it */
        CHECK(k == sizeof opts / sizeof opts[0] - 1 || !strcmp(out, opts[k].msg));
        snprintf(args, sizeof args, "%s -o %s/p.html %s", good, top, opts[k].args);
        CHECK_EQ(tool_run("report", args, out, sizeof out), 2);
        /* a missing value: fwpt report says so itself; the others are fwpt flow's messages */
        if (strstr(opts[k].msg, "got nothing"))
            snprintf(msg, sizeof msg, "fwpt report: %s", opts[k].msg + strlen("fwpt flow: "));
        else
            snprintf(msg, sizeof msg, "%s", opts[k].msg);
        CHECK(!strncmp(out, msg, strlen(msg)));
    }
    snprintf(args, sizeof args, "%s -o %s/p.html --top 3 --by insns", good, top);
    expect("report --top 3 --by insns", "report", args, 0, "");
}

/* JSON lines of the summaries: one object per row, one meaning per key (--profile) */
TEST(jsonl_profile_rows)
{
    NEED_FIXTURE();
    char args[4000], msg[2000];
    snprintf(args, sizeof args, "%s --profile --format jsonl", good);
    CHECK_EQ(run_split(args, so, sizeof so, se, sizeof se), 0);
    snprintf(msg, sizeof msg, "{\"type\":\"profile\",\"unit\":\"insns\",\"total\":%zu,", prog.ntruth);
    CHECK(!strncmp(so, msg, strlen(msg)));
    snprintf(msg, sizeof msg, "\n{\"type\":\"module_total\",\"module\":\"Prog\",\"count\":%zu}\n", prog.ntruth);
    CHECK(strstr(so, msg) != NULL);
    CHECK(lines_with(so, "{\"type\":\"function\",\"entry\":\"0x") >= 1);
    CHECK_EQ(lines_with(so, "\n"), lines_with(so, "{\"type\":\""));
}

/* JSON lines of --calls: the call tree, its root holding every instruction */
TEST(jsonl_call_tree)
{
    NEED_FIXTURE();
    char args[4000];
    snprintf(args, sizeof args, "%s --calls --format jsonl", good);
    CHECK_EQ(run_split(args, so, sizeof so, se, sizeof se), 0);
    CHECK(!strncmp(so, "{\"type\":\"call_tree\",\"unit\":\"insns\",\"nodes\":", 42));
    unsigned long long self = 0, total = 0;
    const char *root = strstr(so, "\n{\"type\":\"call\",\"id\":0,\"parent\":null,\"depth\":0,\"calls\":0,");
    CHECK(root && sscanf(root, "\n{\"type\":\"call\",\"id\":0,\"parent\":null,\"depth\":0,\"calls\":0,\"self\":%llu,"
                               "\"total\":%llu}", &self, &total) == 2);
    CHECK_EQ(total, prog.ntruth);
    CHECK(lines_with(so, "{\"type\":\"call\",\"id\":1,\"parent\":0,\"depth\":1,\"entry\":\"0x") == 1);
    CHECK_EQ(lines_with(so, "\n"), lines_with(so, "{\"type\":\""));
}

/* JSON lines of --edges: one edge per line */
TEST(jsonl_edges)
{
    NEED_FIXTURE();
    char args[4000];
    snprintf(args, sizeof args, "%s --edges --format jsonl", good);
    CHECK_EQ(run_split(args, so, sizeof so, se, sizeof se), 0);
    CHECK(lines_with(so, "{\"type\":\"edge\",\"from\":\"0x") > 10);
    CHECK_EQ(lines_with(so, "\n"), lines_with(so, "{\"type\":\"edge\""));
}

/* an instruction's offset in its module is module_offset, as on events; offset is the trace offset */
TEST(jsonl_insn_module_offset)
{
    NEED_FIXTURE();
    char args[4000];
    snprintf(args, sizeof args, "%s --format jsonl --no-disasm", good);
    CHECK_EQ(run_split(args, so, sizeof so, se, sizeof se), 0);
    CHECK_EQ(lines_with(so, "{\"type\":\"insn\""), prog.ntruth);
    CHECK_EQ(lines_with(so, "\"module\":\"Prog\",\"module_offset\":\"0x"), lines_with(so, "\"module\":\"Prog\""));
    CHECK_EQ(lines_with(so, "\"offset\":\""), 0);
}

int main(int argc, char **argv)
{
    char tool[1024];
    TOOL_FIND_OR_END(tool, "broken_input");
    int rc = check_run(argc, argv, "broken_input");
    if (top_made) {
        char args[1300];
        snprintf(args, sizeof args, "rm -rf '%s'", top);
        if (!getenv("FWPT_TEST_KEEP") && system(args) != 0)
            fprintf(stderr, "broken_input: could not remove %s\n", top);
    }
    if (fixture_ok)
        progen_free(&prog);
    return rc;
}
