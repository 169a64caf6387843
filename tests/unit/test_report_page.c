/* fwpt report: the page tells the truth about the trace it read. A generated program saved as a \fwpt\ directory
 * (tests/common save_program_open) with a sideband.json as the app writes it, then copies with one thing changed:
 * trace.pt empty, random, cut in half at a packet boundary; "verify" passed for the whole call, for the first N of M,
 * failed, not run, the string of fwpt 0.2, values that are not a verdict; a raw trace with --report. For each:
 * the exit status, the stderr line, and the exact text and colour class of the page's Trace, Decode, Verify and
 * Decode errors rows. The verify words are fwpt_verify_text's, the ones the app prints on the console. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/flow.h"
#include "decode/packet.h"
#include "render/report.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/rng.h"
#include "tests/common/tool_run.h"

static char tool[1024], dir[] = "/tmp/fwpt-report-XXXXXX";
static struct progen prog;

/* DIR: trace.pt (n bytes of t), the image, and sideband.json with verify (a JSON value, NULL: no key) and the
 * recorded trace of the program */
static bool boot_target; /* sideband.json's target is the boot-trace driver's "boot" (efi/driver.c) */
static void save_dir(const uint8_t *t, size_t n, const char *verify)
{
    FILE *f = save_program_open(dir, &prog);
    fprintf(f, "{\"fwpt\":\"0.2\",\"backend\":\"soft\",\"profile\":\"skylake\",\n");
    if (verify)
        fprintf(f, "\"verify\":%s,\n", verify);
    fprintf(f, "\"cpu\":{\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":94,\"stepping\":3,\"signature\":\"0x0\"},\n"
               "\"target\":{\"name\":\"%s\",\"path\":\"%s\",\"impl\":\"Prog\",\"impl_addr\":\"0x%llx\",\"status\":\"0x0\"},\n"
               "\"trace\":{\"file\":\"trace.pt\",\"bytes\":%zu,\"pieces\":1,\"wrapped\":false,\"stopped\":false,"
               "\"error\":false,\"reason\":\"%s\"},\n"
               "\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\"}]}\n",
            boot_target ? "boot" : "prog", boot_target ? "BDS: from the boot-trace driver's start to ReadyToBoot" : "",
            (unsigned long long)prog.base, prog.trace_size,
            boot_target ? "tracing disabled at ReadyToBoot (TraceEn=0): every byte produced is kept"
                        : "every byte produced is kept",
            (unsigned long long)prog.base, prog.code_size, (unsigned long long)prog.base);
    fclose(f);
    char path[1100];
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    write_file(path, t, n);
}

/* The class and text of the element with id="ID" (<span id="ID" class="C">TEXT<) into cls and text; 0 if absent. */
static int element(const char *html, const char *id, char *cls, char *text, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *p = html ? strstr(html, key) : NULL;
    cls[0] = text[0] = 0;
    if (!p)
        return 0;
    p += strlen(key);
    if (!strncmp(p, " class=\"", 8)) {
        const char *e = strchr(p + 8, '"');
        snprintf(cls, cap, "%.*s", (int)(e - p - 8), p + 8);
        p = e + 1;
    }
    if (*p != '>')
        return 0;
    const char *e = strchr(++p, '<');
    snprintf(text, cap, "%.*s", e ? (int)(e - p) : 0, p);
    return 1;
}

/* The row element ID: present with class want_cls and text want_text, or absent (want_text NULL). */
static void row(const char *html, const char *id, const char *want_cls, const char *want_text)
{
    char cls[512], text[512];
    int found = element(html, id, cls, text, sizeof text);
    CHECK_EQ(found, want_text != NULL);
    if (found && want_text) {
        CHECK_STR(cls, want_cls);
        CHECK_STR(text, want_text);
    }
}

struct want {
    int exit;
    const char *stderr_line;  /* a line of stderr (NULL: none of the tool's lines names the page) */
    const char *recorded;     /* #fwpt-trace-recorded (class bad), NULL: absent */
    const char *decode_cls, *decode;
    const char *verify_cls, *verify;
    const char *note;         /* #fwpt-verify-note (class bad), NULL: absent */
    const char *errors_cls, *errors;
    uint64_t bytes;           /* #fwpt-trace-bytes */
};

static char out[1 << 16];

/* `fwpt report DIR -o DIR/page.html` (or `fwpt flow ARGS`), and the page against w */
static void check_page(const char *name, const char *flow_args, const struct want *w)
{
    char args[2400], page[1100], cls[256], text[512];
    snprintf(page, sizeof page, "%s/page.html", dir);
    unlink(page);
    int rc;
    if (flow_args) {
        snprintf(args, sizeof args, "%s --report %s", flow_args, page);
        rc = tool_run("flow", args, out, sizeof out);
    } else {
        snprintf(args, sizeof args, "%s -o %s", dir, page);
        rc = tool_run("report", args, out, sizeof out);
    }
    size_t n;
    char *html = slurp(page, &n);
    int bad = check_failed;
    CHECK_EQ(rc, w->exit);
    if (w->stderr_line) {
        char line[1200];
        snprintf(line, sizeof line, "%s\n", w->stderr_line);
        CHECK(strstr(out, line) != NULL);
    } else {
        CHECK(strstr(out, "said in red on the report page") == NULL);
    }
    CHECK(element(html, "fwpt-trace-bytes", cls, text, sizeof text));
    CHECK_EQ(strtoull(text, NULL, 10), w->bytes);
    row(html, "fwpt-trace-recorded", "bad", w->recorded);
    row(html, "fwpt-decode", w->decode_cls, w->decode);
    row(html, "fwpt-verify", w->verify_cls, w->verify);
    row(html, "fwpt-verify-note", "bad", w->note);
    row(html, "fwpt-errors", w->errors_cls, w->errors);
    if ((int)check_failed != bad)
        fprintf(stderr, "report_page: case %s (exit %d):\n%s\n", name, rc, out);
    free(html);
}

/* fwpt_verify_text of v (what the console says): the page's words are checked against it */
static const char *words(const struct fwpt_verify *v)
{
    static char buf[4][256];
    static int k;
    char *b = buf[k++ & 3];
    struct fwpt_bufsink bs;
    struct fwpt_sink o = fwpt_bufsink_init(&bs, b, sizeof buf[0] - 1);
    fwpt_verify_text(v, false, &o);
    b[bs.len] = 0;
    return b;
}

/* A packet boundary near the middle of the trace, after the first PSB: a trace cut there has no broken packet. */
static size_t half_at_packet(const uint8_t *t, size_t n)
{
    struct fwpt_pkt_decoder d;
    struct fwpt_packet p;
    fwpt_pkt_init(&d, t, n);
    if (fwpt_pkt_sync_forward(&d) != FWPT_OK)
        return 0;
    while (d.offset < n / 2 && fwpt_pkt_next(&d, &p) == FWPT_OK)
        ;
    return d.offset;
}

/* Instructions decode/flow gives for the first n bytes of the program's trace; *cut: it ends with tracing on. */
static uint64_t flow_insns(size_t n, bool *cut)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    struct code_image c = {prog.base, prog.code, prog.code_size, 0};
    struct fwpt_flow_event ev;
    uint64_t k = 0, ip;
    CHECK_EQ(fwpt_flow_init(&f, prog.trace, n, code_image_read, &c, cache, sizeof cache / sizeof cache[0]), FWPT_OK);
    while (fwpt_flow_next(&f, &ev) == FWPT_OK)
        k += ev.kind == FWPT_FLOW_INSN;
    *cut = fwpt_flow_cut(&f, &ip);
    return k;
}

/* What the cases share, made by main before they run: the program's trace length, its instruction count as text,
 * the verify values of sideband.json (whole call, the first 100, the newest 3, a whole call of another flow) and the
 * words the page gives them. */
static size_t len;
static char nt[32], whole[256], first[256], newest[256], first_text[128], newest_text[128], other[256],
    other_note[256];
static struct fwpt_verify v_whole;

static void texts(void)
{
    len = prog.trace_size;
    snprintf(nt, sizeof nt, "%zu", prog.ntruth);
    snprintf(whole, sizeof whole, "{\"result\":\"passed\",\"scope\":\"whole\",\"compared\":%zu,\"total\":%zu,"
                                  "\"part\":\"the whole call\",\"reason\":\"\",\"text\":\"passed (the whole call)\"}",
             prog.ntruth, prog.ntruth);
    v_whole = (struct fwpt_verify){FWPT_VERIFY_PASSED, FWPT_VERIFY_WHOLE, prog.ntruth, prog.ntruth, "the whole call",
                                   NULL};
    snprintf(first, sizeof first, "{\"result\":\"passed\",\"scope\":\"first\",\"compared\":100,\"total\":%zu,"
                                  "\"part\":\"the oldest part (output stopped)\",\"reason\":\"\"}", prog.ntruth);
    snprintf(first_text, sizeof first_text, "passed for the first 100 of %zu instructions; the rest was not compared",
             prog.ntruth);
    snprintf(newest, sizeof newest, "{\"result\":\"passed\",\"scope\":\"newest\",\"compared\":3,\"total\":%zu,"
                                    "\"part\":\"the newest part\"}", prog.ntruth);
    snprintf(newest_text, sizeof newest_text, "passed for the newest 3 of %zu instructions; the rest was not compared",
             prog.ntruth);
    /* a whole-call verify of another flow than the one decoded */
    snprintf(other, sizeof other, "{\"result\":\"passed\",\"scope\":\"whole\",\"compared\":%zu,\"total\":%zu,"
                                  "\"part\":\"the whole call\"}", prog.ntruth + 1, prog.ntruth + 1);
    snprintf(other_note, sizeof other_note, "but the trace decoded here is not what the run verified: the run verified "
                                            "a flow of %zu instructions, %zu were decoded", prog.ntruth + 1, prog.ntruth);
}

/* The red note beside the trace bytes when trace.pt is not the trace the run recorded */
static const char *recorded_note(void)
{
    static char s_recorded[128];
    snprintf(s_recorded, sizeof s_recorded, "(the run recorded %zu bytes: this is not the trace it wrote)", len);
    return s_recorded;
}

/* The program: decode/flow gives its every instruction, tracing off at the end; the console's words for a whole
 * call */
TEST(program_decodes_whole_flow)
{
    bool cut_all;
    CHECK_EQ(flow_insns(len, &cut_all), prog.ntruth);
    CHECK(!cut_all);
    CHECK_STR(words(&v_whole), "passed (the whole call)");
}

/* 1. The good directory: every row green */
TEST(good_directory_every_row_green)
{
    save_dir(prog.trace, len, whole);
    check_page("good", NULL, &(struct want){0, NULL, NULL, "ok", "the whole trace: tracing ended inside it", "ok",
                                            words(&v_whole), NULL, "ok", "0", len});

}

/* 1b. The good directory's "Images in the order they first ran": its one image ran every instruction, self and
 * with callees, from the first instruction on; no other image entered it; its top functions (5, then how many more) */
TEST(good_directory_images_section)
{
    save_dir(prog.trace, len, whole);
    check_page("images", NULL, &(struct want){0, NULL, NULL, "ok", "the whole trace: tracing ended inside it", "ok",
                                              words(&v_whole), NULL, "ok", "0", len});
    char page[1100], want[512];
    snprintf(page, sizeof page, "%s/page.html", dir);
    char *html = slurp(page, &(size_t){0});
    snprintf(want, sizeof want, "<h2>Images in the order they first ran</h2>\n<p>1 images ran, %zu instructions.",
             prog.ntruth);
    CHECK(html && strstr(html, want));
    snprintf(want, sizeof want, "<tr data-first=\"0\"><td class=\"n\">1</td><td>Prog</td><td class=\"a\">0x%llx-0x%llx"
             "</td><td class=\"n\">%zu</td><td class=\"n\">100.00</td><td class=\"n\">%zu</td><td class=\"n\">100.00"
             "</td><td>(the trace starts here)</td><td>", (unsigned long long)prog.base,
             (unsigned long long)(prog.base + prog.code_size - 1), prog.ntruth, prog.ntruth);
    CHECK(html && strstr(html, want));
    /* one row, before the functions */
    const char *sec = html ? strstr(html, "id=\"fwpt-images\"") : NULL;
    const char *row0 = sec ? strstr(sec, "<tr data-first=\"0\">") : NULL;
    CHECK(row0 && !strstr(row0 + 1, "<tr data-first="));
    CHECK(sec && strstr(sec, "Instructions per function"));
    free(html);
}

/* 1c. A boot trace (the boot-trace driver's sideband.json): the target row is the span, with no service and no
 * "Status of the call" (there is no call); it ended when tracing was switched off, at ReadyToBoot */
TEST(boot_trace_target_rows)
{
    boot_target = true;
    save_dir(prog.trace, len, whole);
    boot_target = false;
    check_page("boot", NULL, &(struct want){0, NULL, NULL, "ok", "the whole trace: tracing ended inside it", "ok",
                                            words(&v_whole), NULL, "ok", "0", len});
    char page[1100];
    snprintf(page, sizeof page, "%s/page.html", dir);
    char *html = slurp(page, &(size_t){0});
    CHECK(html && strstr(html, "<th>Target</th><td>boot: BDS: from the boot-trace driver&#39;s start to ReadyToBoot</td>"));
    CHECK(html && !strstr(html, "Status of the call"));
    CHECK(html && strstr(html, "; ended because: tracing was switched off (TraceEn=0); tracing disabled at ReadyToBoot "
                               "(TraceEn=0): every byte produced is kept</td>"));
    CHECK(html && !strstr(html, "the call returned"));
    free(html);
    save_dir(prog.trace, len, whole); /* the other cases' directory */
}

/* 2. trace.pt empty: 0 bytes in red beside the recorded size; the run's "passed" not green, with the red note */
TEST(empty_trace_not_green)
{
    const char *s_recorded = recorded_note();
    char s_note[512], s_line[1200];
    save_dir(prog.trace, 0, whole);
    snprintf(s_note, sizeof s_note, "but the trace decoded here is not what the run verified: the run recorded %zu "
                                    "trace bytes, 0 were decoded; no instruction decoded", len);
    snprintf(s_line, sizeof s_line, "fwpt flow: %s: the run recorded %zu trace bytes, 0 were decoded; no instruction "
                                    "decoded (said in red on the report page %s/page.html)", dir, len, dir);
    check_page("empty", NULL, &(struct want){1, s_line, s_recorded, "bad", "the trace is empty: nothing decoded", "",
                                             "passed (the whole call)", s_note, "", "0", 0});

}

/* 3. 4 KiB of random bytes: no PSB */
TEST(random_bytes_no_psb)
{
    const char *s_recorded = recorded_note();
    char s_note[512], s_line[1200];
    uint8_t rnd[4096];
    uint64_t r = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < sizeof rnd; i++)
        rnd[i] = (uint8_t)xorshift64(&r);
    save_dir(rnd, sizeof rnd, whole);
    snprintf(s_note, sizeof s_note, "but the trace decoded here is not what the run verified: the run recorded %zu "
                                    "trace bytes, 4096 were decoded; no PSB; no instruction decoded", len);
    snprintf(s_line, sizeof s_line, "fwpt flow: %s: the run recorded %zu trace bytes, 4096 were decoded; no PSB; no "
                                    "instruction decoded (said in red on the report page %s/page.html)", dir, len, dir);
    check_page("random", NULL, &(struct want){1, s_line, s_recorded, "bad", "no PSB in the trace: nothing could be "
                                              "decoded", "", "passed (the whole call)", s_note, "", "0", 4096});

}

/* 4. cut in half at a packet boundary: no decode error, but the trace ends with tracing on */
TEST(cut_in_half_at_packet_boundary)
{
    const char *s_recorded = recorded_note();
    char s_note[512], s_line[1200];
    size_t half = half_at_packet(prog.trace, len);
    CHECK(half > 0 && half < len);
    save_dir(prog.trace, half, whole);
    bool cut;
    const uint64_t n_half = flow_insns(half, &cut);
    CHECK(cut && n_half > 0 && n_half < prog.ntruth);
    snprintf(s_note, sizeof s_note, "but the trace decoded here is not what the run verified: the run recorded %zu "
                                    "trace bytes, %zu were decoded; the run verified a flow of %zu instructions, %llu "
                                    "were decoded; the trace ends with tracing on (cut)", len, half, prog.ntruth,
             (unsigned long long)n_half);
    snprintf(s_line, sizeof s_line, "fwpt flow: %s: %s (said in red on the report page %s/page.html)", dir,
             s_note + strlen("but the trace decoded here is not what the run verified: "), dir);
    check_page("half", NULL, &(struct want){1, s_line, s_recorded, "bad", "the trace ends with tracing on: it was cut, "
                                            "the rest of the call is missing", "", "passed (the whole call)", s_note, "",
                                            "0", half});

}

/* 5. the verdicts as the run recorded them, on the good trace: a partial verify is not green */
TEST(recorded_verdicts_partial_not_green)
{
    char s_cmp[256] = "";
    const struct {
        const char *name, *json, *cls;
        struct fwpt_verify v;
        const char *text, *err; /* the page's words (also fwpt_verify_text's); a note on stderr */
    } verdicts[] = {
        {"first", first, "part", {FWPT_VERIFY_PASSED, FWPT_VERIFY_FIRST, 100, prog.ntruth, "the oldest part", NULL},
         first_text, NULL},
        {"newest", newest, "part", {FWPT_VERIFY_PASSED, FWPT_VERIFY_NEWEST, 3, prog.ntruth, "the newest part", NULL},
         newest_text, NULL},
        {"failed", "{\"result\":\"failed\",\"scope\":\"\",\"compared\":0,\"total\":0,\"part\":\"\",\"reason\":\"the "
                   "decoded flow differs from the single-stepped one\"}", "bad",
         {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, "the decoded flow differs from the single-stepped one"},
         "failed: the decoded flow differs from the single-stepped one", NULL},
        {"not asked", "{\"result\":\"not run\",\"scope\":\"\",\"compared\":0,\"total\":0,\"part\":\"\",\"reason\":\"not "
                      "asked\"}", "", {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not asked"}, "not run (not asked)", NULL},
        {"skipped", "{\"result\":\"not run\",\"reason\":\"skipped: an IP filter was set, the single-stepped flow is "
                    "unfiltered\"}", "",
         {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "skipped: an IP filter was set, the single-stepped flow is unfiltered"},
         "not run (skipped: an IP filter was set, the single-stepped flow is unfiltered)", NULL},
        {"did not fit", "{\"result\":\"not run\",\"scope\":\"\",\"compared\":0,\"total\":0,\"part\":\"\",\"reason\":\"the "
                        "single-stepped flow did not fit its buffer\"}", "",
         {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "the single-stepped flow did not fit its buffer"},
         "not run (the single-stepped flow did not fit its buffer)", NULL},
        /* an earlier run's "failed" for a ground truth that did not fit: nothing was compared, not run */
        {"old did not fit", "{\"result\":\"failed\",\"scope\":\"\",\"compared\":0,\"total\":0,\"part\":\"\",\"reason\":"
                            "\"the single-stepped flow is incomplete\",\"text\":\"failed: the single-stepped flow is "
                            "incomplete\"}", "",
         {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "the single-stepped flow did not fit its buffer"},
         "not run (the single-stepped flow did not fit its buffer)", NULL},
        /* fwpt 0.2's strings */
        {"old passed", "\"passed\"", "part", {FWPT_VERIFY_PASSED, FWPT_VERIFY_UNKNOWN, 0, 0, NULL, NULL},
         "passed (what was compared was not recorded)", NULL},
        {"old FAILED", "\"FAILED\"", "bad", {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, NULL}, "failed", NULL},
        {"old not asked", "\"not asked\"", "", {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not asked"}, "not run (not asked)",
         NULL},
        {"old skipped", "\"skipped (an IP filter was set)\"", "",
         {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "skipped: an IP filter was set"},
         "not run (skipped: an IP filter was set)", NULL},
        /* not a verdict: named on stderr, never green */
        {"no key", NULL, "", {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not recorded in sideband.json"},
         "not run (not recorded in sideband.json)", NULL},
        {"bogus result", "{\"result\":\"bogus\",\"scope\":\"whole\",\"compared\":1,\"total\":1}", "",
         {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not recorded in sideband.json"}, "not run (not recorded in sideband.json)",
         "\"verify\": unknown result \"bogus\" (expected passed, failed or not run; the page says not recorded)"},
        {"whole, compared < total", "{\"result\":\"passed\",\"scope\":\"whole\",\"compared\":10,\"total\":20,"
                                    "\"part\":\"the whole call\"}", "part",
         {FWPT_VERIFY_PASSED, FWPT_VERIFY_UNKNOWN, 10, 20, NULL, NULL}, "passed (what was compared was not recorded)",
         "\"verify\": scope \"whole\", compared 10 of 20: not a scope (expected whole with compared = total, or "
         "first/newest with compared <= total; the page says the scope is not recorded)"},
        {"old unknown", "\"maybe\"", "", {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not recorded in sideband.json"},
         "not run (not recorded in sideband.json)", "\"verify\": unknown value \"maybe\" (the page says not recorded)"},
        {"a number", "7", "", {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not recorded in sideband.json"},
         "not run (not recorded in sideband.json)",
         "\"verify\" is neither an object nor a string (the page says not recorded)"},
    };
    for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++) {
        CHECK_STR(words(&verdicts[i].v), verdicts[i].text);
        save_dir(prog.trace, len, verdicts[i].json);
        if (verdicts[i].err)
            snprintf(s_cmp, sizeof s_cmp, "fwpt flow: %s/sideband.json: ", dir);
        char line[1200];
        snprintf(line, sizeof line, "%s%s", s_cmp, verdicts[i].err ? verdicts[i].err : "");
        check_page(verdicts[i].name, NULL, &(struct want){0, verdicts[i].err ? line : NULL, NULL, "ok",
                                                          "the whole trace: tracing ended inside it", verdicts[i].cls,
                                                          verdicts[i].text, NULL, "ok", "0", len});
    }

}

/* fwpt_verify_upgrade: only a "failed" whose reason is the earlier words for a ground truth that did not fit becomes
 * not run; every other verdict stays as recorded */
TEST(verify_upgrade_only_ground_truth_that_did_not_fit)
{
    struct fwpt_verify v = {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, "the single-stepped flow is incomplete"};
    CHECK_EQ(fwpt_verify_upgrade(&v), 1);
    CHECK_EQ(v.result, FWPT_VERIFY_NOT_RUN);
    CHECK_STR(words(&v), "not run (the single-stepped flow did not fit its buffer)");
    CHECK_EQ(fwpt_verify_upgrade(&v), 0); /* once */
    CHECK_EQ(v.result, FWPT_VERIFY_NOT_RUN);
    const struct fwpt_verify keep[] = {
        {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, "the decoded flow differs from the single-stepped one"},
        {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, "the decoded flow is incomplete"},
        {FWPT_VERIFY_FAILED, 0, 0, 0, NULL, NULL},
        {FWPT_VERIFY_NOT_RUN, 0, 0, 0, NULL, "not asked"},
        {FWPT_VERIFY_PASSED, FWPT_VERIFY_WHOLE, 5, 5, "the whole call", NULL},
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        struct fwpt_verify u = keep[i];
        CHECK_EQ(fwpt_verify_upgrade(&u), 0);
        CHECK_STR(words(&u), words(&keep[i]));
    }
}

/* a passed verify of another flow: the run's words, not green, and the red note */
TEST(passed_verify_of_another_flow)
{
    char s_line[1200];
    save_dir(prog.trace, len, other);
    snprintf(s_line, sizeof s_line, "fwpt flow: %s: the run verified a flow of %zu instructions, %zu were decoded (said "
                                    "in red on the report page %s/page.html)", dir, prog.ntruth + 1, prog.ntruth, dir);
    check_page("other flow", NULL, &(struct want){1, s_line, NULL, "ok", "the whole trace: tracing ended inside it", "",
                                                  "passed (the whole call)", other_note, "ok", "0", len});

}

/* 6. a raw trace (no sideband.json): what the run recorded is not known, verify not run */
TEST(raw_trace_without_sideband)
{
    save_dir(prog.trace, len, whole);
    char args[2400];
    snprintf(args, sizeof args, "%s/trace.pt --image %s/img-%llx.bin@%llx", dir, dir, (unsigned long long)prog.base,
             (unsigned long long)prog.base);
    check_page("raw trace", args, &(struct want){0, NULL, NULL, "ok", "the whole trace: tracing ended inside it", "",
                                                 "not run (a trace file without sideband.json)", NULL, "ok", "0", len});
    char page[1100], cls[64], text[512];
    snprintf(page, sizeof page, "%s/page.html", dir);
    char *html = slurp(page, &(size_t){0});
    CHECK(html && strstr(html, "<span id=\"fwpt-trace-bytes\">") &&
          strstr(html, "</span> bytes decoded (what the run recorded is not known: no sideband.json \"trace\")</td>"));
    CHECK(element(html, "fwpt-insns", cls, text, sizeof text));
    CHECK_STR(text, nt);
    free(html);

}

/* The tool, the directory and the program every case reads; removed after the cases ran. */
int main(int argc, char **argv)
{
    TOOL_FIND_OR_END(tool, "report_page");
    if (!mkdtemp(dir))
        return 1;
    /* PSB+ now and then, interrupts; no overflow or disable in the middle: the trace ends with its one TIP.PGD */
    struct progen_cfg cfg = {.seed = 3, .nfuncs = 6, .max_insns = 2000, .features = PROGEN_F_PSB | PROGEN_F_INTERRUPT};
    if (!progen_build_checked(&cfg, &prog))
        return check_summary("report_page");
    texts();
    int rc = check_run(argc, argv, "report_page");
    char page[1100];
    static const char *const files[] = {"trace.pt", "sideband.json", "page.html"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(page, sizeof page, "%s/%s", dir, files[i]);
        unlink(page);
    }
    snprintf(page, sizeof page, "%s/img-%llx.bin", dir, (unsigned long long)prog.base);
    unlink(page);
    rmdir(dir);
    progen_free(&prog);
    return rc;
}
