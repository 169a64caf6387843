/* decode/time: the TSC estimate and the calibration after hand-made packet sequences, with values worked
 * out by hand from the SDM's "Tracking Time" rules; the fcr column's rounding ("%.3f" of fcr / 256, ties
 * to even); and fwpt dump on a saved directory: the timing configuration from sideband.json, each option
 * overriding its value, the diagnostics, and the usage errors. Needs $FWPT_BUILD/fwpt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/time.h"
#include "tests/check.h"
#include "tests/common/tool_run.h"

static struct fwpt_packet pk(uint8_t type, uint64_t v, uint64_t w)
{
    struct fwpt_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    switch (type) {
    case FWPT_PKT_TSC: p.tsc.tsc = v; break;
    case FWPT_PKT_TMA: p.tma.ctc = (uint16_t)v; p.tma.fc = (uint16_t)w; break;
    case FWPT_PKT_MTC: p.mtc.ctc = (uint8_t)v; break;
    case FWPT_PKT_CBR: p.cbr.ratio = (uint8_t)v; break;
    case FWPT_PKT_CYC: p.cyc.value = v; break;
    default: break;
    }
    return p;
}

static uint64_t apply(struct fwpt_time *tm, struct fwpt_packet p, struct fwpt_time_step *st)
{
    uint64_t tsc;
    fwpt_time_packet(tm, &p, st);
    fwpt_time_tsc(tm, &tsc, 0, 0);
    return tsc;
}

/* P = EBX/EAX = 4 TSC ticks per crystal clock, MTCFreq 4 (one MTC every 16 CTC), P1 = 4. */
static const struct fwpt_time_config cfg = {.cpuid_15_eax = 1, .cpuid_15_ebx = 4, .mtc_freq = 4, .nom_freq = 4};

/* TSC, TMA, CBR, MTC and CYC in turn: the estimate after each, worked out by hand. */
TEST(estimate_after_tsc_tma_cbr_mtc_cyc)
{
    struct fwpt_time tm;
    struct fwpt_time_step st;
    fwpt_time_init(&tm, &cfg);
    uint64_t t;
    CHECK_EQ(fwpt_time_tsc(&tm, &t, 0, 0), FWPT_E_NO_TIME);
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_TSC, 0xa0000, 0), &st), 0xa0000);
    CHECK(st.show_time && st.show_fcr && st.ndiag == 0);
    /* TMA: CTC 0x18, FastCounter 8: the TSC was 8 ticks past the edge of CTC 0x18. */
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_TMA, 0x18, 8), &st), 0xa0000);
    /* CBR 2: fcr = (4 << 8) / 2 = 2.0 TSC ticks per cycle. */
    apply(&tm, pk(FWPT_PKT_CBR, 2, 0), &st);
    CHECK(!st.show_time && st.show_fcr);
    uint64_t fcr = 0;
    CHECK_EQ(fwpt_time_fcr(&tm, &fcr), FWPT_OK);
    CHECK_EQ(fcr, 512);
    /* MTC 2 = CTC 0x20: 8 CTC after 0x18, 32 ticks after the edge, the TSC 8 past it: 0xa0000 + 24. */
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_MTC, 2, 0), &st), 0xa0018);
    /* CYC 0x100 cycles at 2.0: +0x200. */
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_CYC, 0x100, 0), &st), 0xa0218);
    /* MTC 3 = CTC 0x30: 16 CTC = 64 ticks after MTC 2; MTC wins over the CYC estimate. The calibration
     * becomes 64 ticks / 0x100 cycles = 0.25 (fcr 64). */
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_MTC, 3, 0), &st), 0xa0058);
    CHECK_EQ(fwpt_time_fcr(&tm, &fcr), FWPT_OK);
    CHECK_EQ(fcr, 64);
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_CYC, 0x100, 0), &st), 0xa0098);
    /* MTC wraps: payload 0x00 after 0x03 is CTC 0x1000 + 0 (one wrap of the 12 bits MTC covers). */
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_MTC, 0, 0), &st), 0xa0058 + (0x1000 - 0x30) * 4);
}

/* A TMA without a TSC, a second TMA: diagnostics, the time unchanged. */
TEST(tma_without_tsc_or_twice_diagnosed)
{
    struct fwpt_time tm;
    struct fwpt_time_step st;
    fwpt_time_init(&tm, &cfg);
    apply(&tm, pk(FWPT_PKT_TMA, 1, 1), &st);
    CHECK_EQ(st.ndiag, 1);
    CHECK_EQ(st.diag[0].kind, FWPT_TIME_DIAG_UPDATE);
    CHECK_EQ(st.diag[0].status, FWPT_E_TIME_CONTEXT);
    apply(&tm, pk(FWPT_PKT_TSC, 0x1000, 0), &st);
    apply(&tm, pk(FWPT_PKT_TMA, 0, 0), &st);
    CHECK_EQ(st.ndiag, 0);
    CHECK_EQ(apply(&tm, pk(FWPT_PKT_TMA, 0, 0), &st), 0x1000);
    CHECK_EQ(st.ndiag, 1);
    CHECK_EQ(st.diag[0].status, FWPT_E_TIME_CONTEXT);
}

/* CYC without calibration: two diagnostics, the CYC counted as lost; an MTC recovers it. */
TEST(cyc_without_calibration_lost)
{
    struct fwpt_time tm;
    struct fwpt_time_step st;
    uint64_t t;
    struct fwpt_time_config nocal = {.cpuid_15_eax = 1, .cpuid_15_ebx = 4, .mtc_freq = 4};
    fwpt_time_init(&tm, &nocal);
    apply(&tm, pk(FWPT_PKT_TSC, 0x1000, 0), &st);
    apply(&tm, pk(FWPT_PKT_CYC, 0x80, 0), &st);
    CHECK_EQ(st.ndiag, 2);
    CHECK_EQ(st.diag[0].kind, FWPT_TIME_DIAG_CAL_QUERY);
    CHECK_EQ(st.diag[0].status, FWPT_E_NO_TIME);
    CHECK_EQ(st.diag[1].kind, FWPT_TIME_DIAG_UPDATE);
    CHECK_EQ(st.diag[1].status, FWPT_E_NO_CALIBRATION);
    uint32_t lost_mtc = 9, lost_cyc = 9;
    fwpt_time_tsc(&tm, &t, &lost_mtc, &lost_cyc);
    CHECK_EQ(t, 0x1000);
    CHECK_EQ(lost_mtc, 0);
    CHECK_EQ(lost_cyc, 1);
}

/* CPUID 15H unknown: MTC cannot be converted. */
TEST(mtc_without_cpuid_15h_ratio)
{
    struct fwpt_time tm;
    struct fwpt_time_step st;
    struct fwpt_time_config noratio = {.mtc_freq = 0};
    fwpt_time_init(&tm, &noratio);
    apply(&tm, pk(FWPT_PKT_TSC, 0x1000, 0), &st);
    apply(&tm, pk(FWPT_PKT_TMA, 0x10, 0), &st);
    apply(&tm, pk(FWPT_PKT_MTC, 0x11, 0), &st);
    CHECK_EQ(st.ndiag, 1);
    CHECK_EQ(st.diag[0].status, FWPT_E_TIME_CONFIG);
}

/* OVF forgets the calibration (MTC-based), unless asked to keep it. */
TEST(ovf_forgets_calibration_unless_kept)
{
    struct fwpt_time tm;
    struct fwpt_time_step st;
    uint64_t fcr = 0;
    for (int keep = 0; keep < 2; keep++) {
        struct fwpt_time_config c = cfg;
        c.keep_tcal_on_ovf = keep;
        fwpt_time_init(&tm, &c);
        apply(&tm, pk(FWPT_PKT_CBR, 2, 0), &st);
        struct fwpt_packet ovf = pk(FWPT_PKT_OVF, 0, 0);
        fwpt_time_packet(&tm, &ovf, &st);
        CHECK_EQ(fwpt_time_fcr(&tm, &fcr), keep ? FWPT_OK : FWPT_E_NO_TIME);
    }
}

static void column(uint64_t fcr_value, uint64_t last, bool delta, const char *want)
{
    struct fwpt_time tm;
    struct fwpt_time_config cfg = {0};
    fwpt_time_init(&tm, &cfg);
    tm.cal.fcr = tm.cal.min_fcr = tm.cal.max_fcr = fcr_value;
    struct fwpt_time_show sh = {.tcal = true, .delta = delta, .last_fcr = last};
    struct fwpt_time_step st = {.timing = true, .show_fcr = true};
    const char *id = 0;
    char text[32];
    enum fwpt_status err;
    CHECK(fwpt_time_column(&tm, &sh, &st, &id, text, &err));
    CHECK_STR(id, "fcr");
    CHECK_STR(text, want);
    CHECK_EQ(err, FWPT_OK);
}

/* The fcr column: "%.3f" of fcr / 256, ties to even; with --time-delta, the signed change. */
TEST(fcr_column_rounding)
{
    column(256, 0, false, "1.000");
    column(64, 0, false, "0.250");
    column(16, 0, false, "0.062");    /* 0.0625: a tie, to even */
    column(48, 0, false, "0.188");    /* 0.1875: a tie, to even (8) */
    column(1, 0, false, "0.004");     /* 0.00390625 */
    column(255, 0, false, "0.996");   /* 0.99609375 */
    column(0x7ff80, 0, false, "2047.500");
    column(64, 64, true, "+0.000");
    column(64, 512, true, "-1.750");
    column(512, 64, true, "+1.750");
}

static char out[8192]; /* what the last dump printed */
/* fwpt dump with the arguments fmt, the test directory for its %s: the exit status */
static int dump(const char *dir, const char *fmt)
{
    char args[512];
    snprintf(args, sizeof args, fmt, dir);
    return tool_run("dump", args, out, sizeof out);
}

/* PSB, PSBEND, TSC 0xa0000, TMA 0x18/8, CBR 2, MTC 2, CYC 0x100, MTC 3 */
static const uint8_t trace[] = {
    0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
    0x02, 0x23, 0x19, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x02, 0x73, 0x18, 0x00, 0x00, 0x08,
    0x00, 0x02, 0x03, 0x02, 0x00, 0x59, 0x02, 0x07, 0x10, 0x59, 0x03};

/* A new directory dir (of "/tmp/fwpt-time-XXXXXX") with trace.pt and sideband.json holding sb; path is left naming
 * sideband.json. Returns 0 (checked as failed) when it cannot be made. */
static int make_dir(char *dir, char *path, size_t size, const char *sb, size_t n)
{
    if (!mkdtemp(dir)) {
        CHECK(0);
        return 0;
    }
    snprintf(path, size, "%s/trace.pt", dir);
    write_file(path, trace, sizeof trace);
    snprintf(path, size, "%s/sideband.json", dir);
    write_file(path, sb, n);
    return 1;
}

static char tool_dir_name[] = "/tmp/fwpt-time-XXXXXX";
static void tool_dir_remove(void)
{
    char args[512];
    snprintf(args, sizeof args, "rm -rf '%s'", tool_dir_name);
    if (system(args) != 0)
        fprintf(stderr, "test_time: could not remove %s\n", tool_dir_name);
}

/* The directory the dump cases read, made on first use (removed at exit): the trace above with a sideband of a
 * Skylake (family 6 model 94), CPUID 15H 4/1, P1 4, MTCFreq 4. NULL when it cannot be made. */
static const char *tool_dir(void)
{
    static int made;
    static const char sb[] = "{\"cpu\":{\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":94,\"stepping\":3},\n"
                             "\"cpuid_15h\":{\"eax\":\"0x1\",\"ebx\":\"0x4\",\"ecx\":\"0x0\"},\n"
                             "\"max_nonturbo_ratio\":4,\n"
                             "\"settings\":{\"tsc_en\":true,\"mtc_en\":true,\"mtc_freq\":4,\"cyc_en\":true}}\n";
    char path[256];
    if (!made) {
        if (!make_dir(tool_dir_name, path, sizeof path, sb, sizeof sb - 1))
            return NULL;
        made = 1;
        atexit(tool_dir_remove);
    }
    return tool_dir_name;
}

/* The sideband's values: TMA CTC 0x18, MTC 2 = CTC 0x20 -> +0x18 after the FastCounter; CYC 0x100 at
 * P1/CBR = 2 -> +0x200; MTC 3: 16 CTC * 4 after MTC 2 -> 0xa0058. */
TEST(dump_time_from_sideband)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s --time"), 0);
    CHECK(strstr(out, "0000000000000025  mtc       0x2                      tsc  00000000000a0018\n"));
    CHECK(strstr(out, "0000000000000027  cyc       0x100                    tsc  00000000000a0218\n"));
    CHECK(strstr(out, "0000000000000029  mtc       0x3                      tsc  00000000000a0058\n"));
}

/* Options override: --nom-freq 8 makes the CYC 0x400; --cpuid-0x15.ebx 8 doubles each CTC tick. */
TEST(dump_options_override_sideband)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s --time --time-delta --nom-freq 8 --cpuid-0x15.ebx 8"), 0);
    CHECK(strstr(out, "0000000000000025  mtc       0x2                      tsc  +38\n"));
    CHECK(strstr(out, "0000000000000027  cyc       0x100                    tsc  +400\n"));
}

/* --mtc-freq 0: MTC 2 is CTC 2, before TMA's 0x18 -> a wrap of the 8 bits: 0x100 - 0x18 + 2 = 0xea CTC. */
TEST(dump_mtc_freq_0_wraps)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s --time --time-delta --mtc-freq 0"), 0);
    CHECK(strstr(out, "0000000000000025  mtc       0x2                      tsc  +3a0\n"));
}

/* --tcal, JSON lines. */
TEST(dump_tcal_json_lines)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s --tcal --format jsonl"), 0);
    CHECK(strstr(out, "{\"offset\":33,\"type\":\"cbr\",\"size\":4,\"ratio\":2,\"fcr\":\"2.000\"}\n"));
    CHECK(strstr(out, "{\"offset\":41,\"type\":\"mtc\",\"size\":2,\"ctc\":3,\"fcr\":\"0.250\"}\n"));
}

/* Without a sideband: no ratio, no calibration -> the diagnostics as ptdump prints them. */
TEST(dump_without_sideband_diagnostics)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s/trace.pt --time --time-delta"), 0);
    CHECK(strstr(out, "[25: error updating time: CPUID 15H ratio unknown (TSC per crystal clock)]\n"));
    CHECK(strstr(out, "[27: calibration error: no timing information]\n[27: error updating time: no calibration]\n"));
    dump(dir, "%s/trace.pt --time --format jsonl");
    CHECK(strstr(out, "{\"offset\":39,\"time_error\":\"calibration error\",\"status\":\"E_NO_TIME\","
                      "\"message\":\"no timing information\"}\n"));
}

/* Usage errors. */
TEST(dump_time_usage_errors)
{
    const char *dir = tool_dir();
    if (!dir)
        return;
    CHECK_EQ(dump(dir, "%s --time --tcal"), 2);
    CHECK(strstr(out, "specify either --time or --tcal"));
    CHECK_EQ(dump(dir, "%s --time --mtc-freq 16"), 2);
    CHECK(strstr(out, "--mtc-freq: expected a number 0..15, got '16'"));
    CHECK_EQ(dump(dir, "%s --time --nom-freq"), 2);
}

/* A sideband cut short is not read at all (exit 1, naming the byte); a malformed value: a warning, the dump
 * goes on. In a directory of its own (the sideband rewritten), removed at the end. */
TEST(dump_bad_sideband)
{
    char dir[] = "/tmp/fwpt-time-XXXXXX", path[256], args[512];
    if (!make_dir(dir, path, sizeof path, "{\"cpuid_15h\":{\"eax\":", 20))
        return;
    CHECK_EQ(dump(dir, "%s --time"), 1);
    CHECK(strstr(out, "sideband.json: not valid JSON: it ends in the middle of a value (cut short?) at byte 20 of 20\n"));
    write_file(path, "{\"cpuid_15h\":{\"eax\":\"x\"}}", 25);
    CHECK_EQ(dump(dir, "%s --time"), 0);
    CHECK(strstr(out, "malformed cpuid_15h"));
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CHECK_EQ(system(args), 0);
}

TEST_MAIN("test_time")
