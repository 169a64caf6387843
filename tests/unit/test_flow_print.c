/* Flow printers (text and JSON lines, exact bytes) and the profile / call-tree summaries over a
 * hand-made event sequence with known counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/flow_print.h"
#include "analyze/profile.h"
#include "render/profile_print.h"
#include "tests/check.h"
#include "tests/common/small_profile.h"

static char buf[8192];
static struct fwpt_bufsink bs;
static struct fwpt_sink sink;

static const char *out(void)
{
    buf[bs.len < sizeof buf ? bs.len : sizeof buf - 1] = 0;
    return buf;
}
static void reset(void) { sink = fwpt_bufsink_init(&bs, buf, sizeof buf - 1); }

/* The printer gives exactly want for the event. */
static void expect_print(struct fwpt_flow_printer *pr, const struct fwpt_flow_event *e, const char *want)
{
    reset();
    fwpt_flow_print_event(pr, e);
    CHECK_STR(out(), want);
}

static size_t fake_disasm(void *ctx, uint64_t ip, uint8_t mode, char *o, size_t cap)
{
    (void)ctx, (void)mode;
    if (ip == 0x1000)
        return (size_t)snprintf(o, cap, "nop \"x\"");
    return 0;
}

/* decode/image over a sorted map with overlapping modules: lookup (first in order, or the cached one), and
 * at/read (the greatest base holding ip; read: only bytes that are there). */
TEST(image_map_overlapping_modules)
{
    static const uint8_t outer[0x100] = {[0x10] = 0x90, [0x80] = 0xc3}, inner[0x20] = {[0x4] = 0xcc};
    static const struct fwpt_module mv[] = {
        {"Outer", 0x1000, 0x200, outer, sizeof outer}, /* bytes for the first 0x100 of 0x200 */
        {"Inner", 0x1040, 0x20, inner, sizeof inner},
        {"NoCode", 0x3000, 0x10, NULL, 0},
    };
    struct fwpt_modules m = {mv, 3, 0};
    const uint8_t *b = NULL;
    CHECK(fwpt_image_module_find(&m, 0x1044, NULL) == &mv[0]); /* lookup: the first in order */
    CHECK(fwpt_image_module_at(&m, 0x1044, 0) == &mv[1]);      /* at: the greatest base */
    CHECK_EQ(fwpt_image_modules_read(&m, 0x1044, &b), 0x1c);
    CHECK(b == inner + 4 && *b == 0xcc);
    CHECK_EQ(fwpt_image_modules_read(&m, 0x1080, &b), 0x80); /* past Inner: Outer's bytes */
    CHECK(b == outer + 0x80);
    CHECK(fwpt_image_module_at(&m, 0x1180, 0) == &mv[0]);
    CHECK_EQ(fwpt_image_modules_read(&m, 0x1180, &b), 0); /* inside Outer, beyond its saved bytes */
    CHECK(fwpt_image_module_at(&m, 0x3008, 0) == &mv[2]);
    CHECK(fwpt_image_module_at(&m, 0x3008, 1) == NULL);
    CHECK_EQ(fwpt_image_modules_read(&m, 0x3008, &b), 0);
    CHECK(fwpt_image_module_at(&m, 0x0fff, 0) == NULL && fwpt_image_module_at(&m, 0x3010, 0) == NULL);
    m.last = 1; /* the cached module wins while it holds ip, as the listing relies on */
    CHECK(fwpt_image_module_find(&m, 0x1044, NULL) == &mv[1]);
    char buf[64];
    struct fwpt_bufsink bs;
    struct fwpt_sink o = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    fwpt_image_module_put_where(&m, &o, 0x1050, 0);
    buf[bs.len] = 0;
    CHECK_STR(buf, "Inner+0x10");
}

/* two modules, DxeCore at 0x1000 and Bds at 0x2000, 0x100 bytes each, no code */
static const struct fwpt_module mv[] = {{"DxeCore", 0x1000, 0x100, NULL, 0}, {"Bds", 0x2000, 0x100, NULL, 0}};
static struct fwpt_modules mods = {mv, 2, 0};

/* a printer in format fmt over mods, with the fake disassembler */
static struct fwpt_flow_printer printer(int fmt)
{
    return (struct fwpt_flow_printer){&sink, fmt, &mods, fake_disasm, NULL, 0, NULL};
}

/* lookup by address: the module holding it and its index; past every module: none, and the count */
TEST(module_find_by_address)
{
    size_t idx;
    CHECK(fwpt_image_module_find(&mods, 0x2010, &idx) == &mv[1]);
    CHECK_EQ(idx, 1);
    CHECK(fwpt_image_module_find(&mods, 0x1100, &idx) == NULL);
    CHECK_EQ(idx, 2);
    CHECK(fwpt_image_module_find(&mods, 0x10ff, NULL) == &mv[0]);
}

/* instructions in JSON lines: with module, offset and disassembly; outside every module without them */
TEST(jsonl_insn_with_and_without_module)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_JSONL);
    struct fwpt_flow_event e = flow_insn(0x1000, 1, FWPT_IC_OTHER);
    expect_print(&pr, &e, "{\"type\":\"insn\",\"ip\":\"0x1000\",\"size\":1,\"module\":\"DxeCore\",\"module_offset\":\"0x0\","
                          "\"asm\":\"nop \\\"x\\\"\"}\n");
    e = flow_insn(0x3000, 12, FWPT_IC_OTHER);
    expect_print(&pr, &e, "{\"type\":\"insn\",\"ip\":\"0x3000\",\"size\":12}\n");
}

/* an interrupt, both ends named by module, in JSON lines and text */
TEST(interrupt_jsonl_and_text)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_JSONL);
    struct fwpt_flow_event e = (struct fwpt_flow_event){.kind = FWPT_FLOW_INTERRUPT, .ip = 0x1010, .to = 0x2020, .offset = 77};
    expect_print(&pr, &e, "{\"type\":\"interrupt\",\"from\":\"0x1010\",\"from_module\":\"DxeCore\","
                          "\"from_offset\":\"0x10\",\"to\":\"0x2020\",\"to_module\":\"Bds\",\"to_offset\":\"0x20\","
                          "\"offset\":77}\n");
    pr.format = FWPT_FLOW_FMT_TEXT;
    expect_print(&pr, &e, "-- interrupt from 0x1010 (DxeCore+0x10) to 0x2020 (Bds+0x20) [trace offset 0x4d]\n");
}

/* an error event: its status name and message, text and JSON lines */
TEST(error_text_and_jsonl)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_TEXT);
    struct fwpt_flow_event e = (struct fwpt_flow_event){.kind = FWPT_FLOW_ERROR, .status = FWPT_E_NO_TNT, .ip = 0x5000, .ip_valid = 1,
                                 .offset = 0x40};
    char want[256];
    snprintf(want, sizeof want, "-- error: %s (%s) at 0x5000 [trace offset 0x40]\n", fwpt_status_msg(FWPT_E_NO_TNT),
             fwpt_status_name(FWPT_E_NO_TNT));
    expect_print(&pr, &e, want);
    pr.format = FWPT_FLOW_FMT_JSONL;
    snprintf(want, sizeof want, "{\"type\":\"error\",\"status\":\"%s\",\"message\":\"%s\",\"ip\":\"0x5000\",\"offset\":64}\n",
             fwpt_status_name(FWPT_E_NO_TNT), fwpt_status_msg(FWPT_E_NO_TNT));
    expect_print(&pr, &e, want);
}

/* an asynchronous disable with its ip, and an overflow without one */
TEST(disabled_and_overflow_jsonl)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_JSONL);
    struct fwpt_flow_event e = (struct fwpt_flow_event){.kind = FWPT_FLOW_DISABLED, .async = 1, .ip_valid = 1, .ip = 0x2004, .offset = 9};
    expect_print(&pr, &e, "{\"type\":\"disabled\",\"ip\":\"0x2004\",\"module\":\"Bds\",\"module_offset\":\"0x4\","
                          "\"async\":true,\"offset\":9}\n");
    e.kind = FWPT_FLOW_OVERFLOW;
    e.ip_valid = 0;
    expect_print(&pr, &e, "{\"type\":\"overflow\",\"offset\":9}\n");
}

/* the end of a cut trace (fwpt_flow_cut): where the walk stopped, and the trace's length */
TEST(cut_trace_end_jsonl_and_text)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_JSONL);
    reset();
    fwpt_flow_print_cut(&pr, 0x2006, 0x4000);
    CHECK_STR(out(), "{\"type\":\"cut\",\"ip\":\"0x2006\",\"module\":\"Bds\",\"module_offset\":\"0x6\",\"offset\":16384}\n");
    pr.format = FWPT_FLOW_FMT_TEXT;
    reset();
    fwpt_flow_print_cut(&pr, 0x2006, 0x4000);
    CHECK_STR(out(), "-- end of trace with tracing on: the walk stopped at 0x2006 (Bds+0x6), which needs a packet the "
                     "trace does not hold (buffer full or file cut); the instructions after the last packet follow "
                     "from the code [trace offset 0x4000]\n");
}

/* an instruction in text without a disassembler: address, module and offset, size */
TEST(text_insn_without_disasm)
{
    struct fwpt_flow_printer pr = printer(FWPT_FLOW_FMT_TEXT);
    pr.disasm = NULL;
    struct fwpt_flow_event e = flow_insn(0x1004, 5, FWPT_IC_CALL_REL);
    expect_print(&pr, &e, "0x0000000000001004  DxeCore+0x4                   5\n");
}

/* profile: root runs 2 insns, calls A (0x1040) twice; A calls B (0x2000) once; an interrupt
 * enters handler H (0x2080) from A; a zero-length call is no call. */
TEST(profile_and_call_tree)
{
    static struct small_profile sp;
    small_profile_init(&sp, &mods);
    small_profile_add(&sp);
    struct fwpt_profile *prof = &sp.p;
    uint64_t *modc = sp.modc;
    CHECK_EQ(prof->insns, 12);
    CHECK_EQ(modc[0], 9);
    CHECK_EQ(modc[1], 2);
    CHECK_EQ(modc[2], 1);
    CHECK_EQ(prof->nfuncs, 3);
    CHECK_EQ(prof->nnodes, 4); /* root, A, A>B, A>H */
    reset();
    fwpt_profile_print(prof, NULL, &sink, 10);
    CHECK_STR(out(), "instructions per module (12 in all)\n"
                     "             9  DxeCore\n"
                     "             2  Bds\n"
                     "             1  (no module)\n"
                     "instructions per function entry (self; top 3 of 3)\n"
                     "           insns      calls  entry\n"
                     "               5          2  0x1040  DxeCore+0x40\n"
                     "               1          1  0x2000  Bds+0x0\n"
                     "               1          1  0x2080  Bds+0x80\n");
    reset();
    fwpt_profile_calltree_print(prof, NULL, &sink, 8);
    CHECK_STR(out(), "call tree: calls, instructions (self / with callees), entry\n"
                     "      calls        self       total  function\n"
                     "          0           5          12  (root)\n"
                     "          2           5           7  0x1040  DxeCore+0x40\n"
                     "          1           1           1    0x2000  Bds+0x0\n"
                     "          1           1           1    0x2080  Bds+0x80\n");
}

/* The call tree no deeper than max_depth: A's callees (depth 2) left out below 2, everything but the root below 1,
 * in the text and in JSON lines. */
TEST(call_tree_depth_cut)
{
    static struct small_profile sp;
    small_profile_init(&sp, &mods);
    small_profile_add(&sp);
    reset();
    fwpt_profile_calltree_print(&sp.p, NULL, &sink, 1);
    CHECK_STR(out(), "call tree: calls, instructions (self / with callees), entry\n"
                     "      calls        self       total  function\n"
                     "          0           5          12  (root)\n"
                     "          2           5           7  0x1040  DxeCore+0x40\n");
    reset();
    fwpt_profile_calltree_print(&sp.p, NULL, &sink, 0);
    CHECK_STR(out(), "call tree: calls, instructions (self / with callees), entry\n"
                     "      calls        self       total  function\n"
                     "          0           5          12  (root)\n");
    reset();
    fwpt_profile_calltree_print_jsonl(&sp.p, NULL, &sink, 1);
    CHECK_STR(out(), "{\"type\":\"call_tree\",\"unit\":\"insns\",\"nodes\":4,\"max_depth\":1}\n"
                     "{\"type\":\"call\",\"id\":0,\"parent\":null,\"depth\":0,\"calls\":0,\"self\":5,\"total\":12}\n"
                     "{\"type\":\"call\",\"id\":1,\"parent\":0,\"depth\":1,\"entry\":\"0x1040\",\"module\":\"DxeCore\","
                     "\"module_offset\":\"0x40\",\"calls\":2,\"self\":5,\"total\":7}\n");
}

/* The top functions as fwpt_profile_next_top orders them (instructions descending, then entry ascending), whether
 * the printer keeps them in one scan (top 1 to 64) or scans once per function (more): 300 functions spread over a
 * table of 1024 slots, many with equal counts, against a sort of the same functions. */
static int top_cmp(const void *a, const void *b)
{
    const struct fwpt_profile_func *x = a, *y = b;
    if (x->insns != y->insns)
        return x->insns > y->insns ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

TEST(profile_top_one_scan_and_scans)
{
    enum { NF = 300, SLOTS = 1024 };
    static struct fwpt_profile p;
    static struct fwpt_profile_func funcs[SLOTS], sorted[NF];
    static struct fwpt_profile_node nodes[4];
    static uint32_t hash[8];
    static uint64_t modc[3];
    static char want[NF * 64], got[NF * 64 + 512];
    fwpt_profile_init(&p, &mods, modc, funcs, SLOTS, nodes, 4, hash, 8);
    for (unsigned i = 0; i < NF; i++) {
        struct fwpt_profile_func f = {0x900000 + (uint64_t)((i * 37) % NF) * 16, i % 5 + 1, (i * 7) % 50};
        funcs[(i * 3 + 11) % SLOTS] = f;
        sorted[i] = f;
    }
    p.nfuncs = NF;
    qsort(sorted, NF, sizeof *sorted, top_cmp);
    static const size_t tops[] = {1, 2, 40, 63, 64, 65, 299, 300, 1000};
    for (size_t t = 0; t < sizeof tops / sizeof tops[0]; t++) {
        size_t n = tops[t] < NF ? tops[t] : NF, w = 0;
        for (size_t i = 0; i < n; i++)
            w += (size_t)snprintf(want + w, sizeof want - w, "%16llu%11llu  0x%llx\n", (unsigned long long)sorted[i].insns,
                                  (unsigned long long)sorted[i].calls, (unsigned long long)sorted[i].entry);
        struct fwpt_bufsink b;
        struct fwpt_sink o = fwpt_bufsink_init(&b, got, sizeof got - 1);
        fwpt_profile_print(&p, NULL, &o, tops[t]);
        got[b.len] = 0;
        const char *rows = strstr(got, "calls  entry\n");
        CHECK(rows != NULL);
        if (rows)
            CHECK_STR(rows + strlen("calls  entry\n"), want);
    }
}

TEST_MAIN("flow_print")
