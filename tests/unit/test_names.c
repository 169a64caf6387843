/* Every view with the build's names (render/names.h), exact bytes, through a resolver made of a table here: the
 * profile and call tree (text and JSON lines), folded stacks, flame graph frames, Trace Event Format, report page,
 * --edges (text and JSON lines) and the listing (the printer and the fast listing: the same bytes). The table has
 * a name at its function's entry, an entry inside a function (FUNC+0xOFF), inlined code, a line not known, a
 * Windows path, addresses it does not know (Module+0xOFF kept) and a name with bytes JSON, HTML, SVG and folded
 * stacks must escape. A resolver that knows nothing gives every view's bytes without one. */
#include <string.h>

#include "analyze/profile.h"
#include "render/edge_print.h"
#include "render/flame.h"
#include "render/flow_list.h"
#include "render/flow_print.h"
#include "render/names.h"
#include "render/profile_print.h"
#include "render/report.h"
#include "tests/check.h"
#include "tests/common/mem_sink.h"
#include "tests/common/small_profile.h"

/* ---- the symbol table ---- */
struct row {
    uint64_t start, end;  /* the function's range; a row with name NULL: only a line */
    const char *name;
    const char *file;
    uint32_t line;        /* of the whole range, except line_at */
    uint64_t line_at;     /* this address has line + 1 */
    uint64_t inlined_at;  /* this address is inlined code (0: none) */
};
#define WEIRD "Esc\"<&>;x y"
static const struct row table[] = {
    {0x1000, 0x1040, "DxeMain", NULL, 0, 0, 0},                                      /* no line */
    {0x1040, 0x1080, "CoreAllocatePool", "/build/MdeModulePkg/Core/Dxe/Mem/Pool.c", 100, 0x1044, 0},
    {0x1ff8, 0x2040, WEIRD, "C:\\edk2\\Bds\\Bds.c", 7, 0, 0x2000},                  /* 0x2000: FUNC+0x8, inlined */
    {0x2090, 0x20a0, NULL, "/build/Bds/Asm.nasm", 40, 0, 0},                        /* a line, no function */
};
static unsigned long asked;

static int table_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    (void)ctx;
    asked++;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const struct row *r = &table[i];
        if (a < r->start || a >= r->end)
            continue;
        out->function = r->name;
        out->function_entry = r->name ? r->start : 0;
        out->file = r->file;
        out->line = r->file ? r->line + (a == r->line_at) : 0;
        out->inlined = a == r->inlined_at;
        return 1;
    }
    return 0;
}
static int nothing_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    (void)ctx, (void)a;
    memset(out, 0, sizeof *out);
    return 0;
}
static const struct fwpt_resolver names_res = {table_resolve, NULL}, none_res = {nothing_resolve, NULL};

/* ---- a profile with known counts (tests/common/small_profile.h): calls of A (twice), B and an interrupt H ---- */
static const struct fwpt_module mv[] = {{"DxeCore", 0x1000, 0x1000, NULL, 0}, {"Bds", 0x2000, 0x100, NULL, 0}};
static struct fwpt_modules mods = {mv, 2, 0};

/* The sequence of tests/common/small_profile.h into s->p; with a Trace Event writer c (names n) when c is not
 * NULL. */
static void profile_run(struct small_profile *s, struct fwpt_chrome *c, const struct fwpt_names *n, struct mem *cm)
{
    static struct fwpt_sink cs;
    small_profile_init(s, &mods);
    if (c) {
        cs = (struct fwpt_sink){mem_write, cm};
        fwpt_flame_chrome_begin(c, &s->p, n, &cs);
    }
    small_profile_add(s);
    if (c)
        fwpt_flame_chrome_end(c, &s->p);
}

/* What one view writes, into m (cleared first). */
enum view { V_PROFILE, V_CALLS, V_PROFILE_JSON, V_CALLS_JSON, V_FOLDED, V_SVG, V_CHROME, V_REPORT, V_EDGES,
            V_EDGES_JSON, V_COUNT };
static void view(enum view v, const struct fwpt_resolver *r, struct mem *m)
{
    static struct small_profile pr;
    static struct fwpt_chrome ch;
    m->n = 0;
    mem_write(m, "", 0);
    struct fwpt_sink o = {mem_write, m};
    struct fwpt_names n = {&mods, NULL, 0, r};
    profile_run(&pr, v == V_CHROME ? &ch : NULL, &n, m);
    static const struct fwpt_edge edges[] = {{0x1004, 0x1040, 2}, {0x1046, 0x2000, 1}, {0x2000, 0x104b, 1},
                                             {0x2090, 0x9000, 3}};
    static const struct fwpt_report_run run = {.target = "Test", .decoded_insns = 12};
    switch (v) {
    case V_PROFILE: fwpt_profile_print(&pr.p, r, &o, 10); break;
    case V_CALLS: fwpt_profile_calltree_print(&pr.p, r, &o, 8); break;
    case V_PROFILE_JSON: fwpt_profile_print_jsonl(&pr.p, r, &o, 10); break;
    case V_CALLS_JSON: fwpt_profile_calltree_print_jsonl(&pr.p, r, &o, 8); break;
    case V_FOLDED: fwpt_flame_folded_write(&pr.p, &n, &o); break;
    case V_SVG: fwpt_flame_svg(&pr.p, &n, "t", 1, &o); break;
    case V_CHROME: break;
    case V_REPORT: fwpt_report_html(&run, &pr.p, &n, &o); break;
    case V_EDGES: fwpt_edges_print(edges, 4, 0, false, &mods, r, &o); break;
    case V_EDGES_JSON: fwpt_edges_print(edges, 4, 0, true, &mods, r, &o); break;
    default: break;
    }
}

/* ---- the views ---- */

TEST(profile_text_names_after_module_columns)
{
    struct mem m = {0};
    view(V_PROFILE, &names_res, &m);
    CHECK_STR(m.p, "instructions per module (12 in all)\n"
                   "             9  DxeCore\n"
                   "             2  Bds\n"
                   "             1  (no module)\n"
                   "instructions per function entry (self; top 3 of 3)\n"
                   "           insns      calls  entry\n"
                   "               5          2  0x1040  DxeCore+0x40  CoreAllocatePool (Pool.c:100)\n"
                   "               1          1  0x2000  Bds+0x0  " WEIRD "+0x8 (Bds.c:7)\n"
                   "               1          1  0x2080  Bds+0x80\n");
    view(V_CALLS, &names_res, &m);
    CHECK_STR(m.p, "call tree: calls, instructions (self / with callees), entry\n"
                   "      calls        self       total  function\n"
                   "          0           5          12  (root)\n"
                   "          2           5           7  0x1040  DxeCore+0x40  CoreAllocatePool (Pool.c:100)\n"
                   "          1           1           1    0x2000  Bds+0x0  " WEIRD "+0x8 (Bds.c:7)\n"
                   "          1           1           1    0x2080  Bds+0x80\n");
    free(m.p);
}

TEST(profile_jsonl_function_file_line_inlined)
{
    struct mem m = {0};
    view(V_PROFILE_JSON, &names_res, &m);
    CHECK_STR(m.p, "{\"type\":\"profile\",\"unit\":\"insns\",\"total\":12,\"functions\":3,\"shown\":3,\"dropped\":0}\n"
                   "{\"type\":\"module_total\",\"module\":\"DxeCore\",\"count\":9}\n"
                   "{\"type\":\"module_total\",\"module\":\"Bds\",\"count\":2}\n"
                   "{\"type\":\"module_total\",\"module\":null,\"count\":1}\n"
                   "{\"type\":\"function\",\"entry\":\"0x1040\",\"module\":\"DxeCore\",\"module_offset\":\"0x40\","
                   "\"function\":\"CoreAllocatePool\",\"file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\","
                   "\"line\":100,\"self\":5,\"calls\":2}\n"
                   "{\"type\":\"function\",\"entry\":\"0x2000\",\"module\":\"Bds\",\"module_offset\":\"0x0\","
                   "\"function\":\"Esc\\\"<&>;x y+0x8\",\"file\":\"C:\\\\edk2\\\\Bds\\\\Bds.c\",\"line\":7,"
                   "\"inlined\":true,\"self\":1,\"calls\":1}\n"
                   "{\"type\":\"function\",\"entry\":\"0x2080\",\"module\":\"Bds\",\"module_offset\":\"0x80\","
                   "\"self\":1,\"calls\":1}\n");
    view(V_CALLS_JSON, &names_res, &m);
    CHECK_STR(m.p, "{\"type\":\"call_tree\",\"unit\":\"insns\",\"nodes\":4,\"max_depth\":8}\n"
                   "{\"type\":\"call\",\"id\":0,\"parent\":null,\"depth\":0,\"calls\":0,\"self\":5,\"total\":12}\n"
                   "{\"type\":\"call\",\"id\":1,\"parent\":0,\"depth\":1,\"entry\":\"0x1040\",\"module\":\"DxeCore\","
                   "\"module_offset\":\"0x40\",\"function\":\"CoreAllocatePool\","
                   "\"file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\",\"line\":100,\"calls\":2,\"self\":5,"
                   "\"total\":7}\n"
                   "{\"type\":\"call\",\"id\":2,\"parent\":1,\"depth\":2,\"entry\":\"0x2000\",\"module\":\"Bds\","
                   "\"module_offset\":\"0x0\",\"function\":\"Esc\\\"<&>;x y+0x8\","
                   "\"file\":\"C:\\\\edk2\\\\Bds\\\\Bds.c\",\"line\":7,\"inlined\":true,\"calls\":1,\"self\":1,"
                   "\"total\":1}\n"
                   "{\"type\":\"call\",\"id\":3,\"parent\":1,\"depth\":2,\"entry\":\"0x2080\",\"module\":\"Bds\","
                   "\"module_offset\":\"0x80\",\"calls\":1,\"self\":1,\"total\":1}\n");
    free(m.p);
}

TEST(pictures_frames_named)
{
    struct mem m = {0};
    view(V_FOLDED, &names_res, &m);
    CHECK_STR(m.p, "(root) 5\n"
                   "(root);CoreAllocatePool 5\n"
                   "(root);CoreAllocatePool;Esc\"<&>:x_y+0x8 1\n" /* ';' and ' ' would split the line */
                   "(root);CoreAllocatePool;Bds+0x80 1\n");
    view(V_SVG, &names_res, &m);
    CHECK(strstr(m.p, "<title>CoreAllocatePool: 7 instructions (58.33%), 5 self, 2 calls</title>") != NULL);
    CHECK(strstr(m.p, "<title>Esc&quot;&lt;&amp;&gt;;x y+0x8: 1 instructions (8.33%), 1 self, 1 call</title>") != NULL);
    CHECK(strstr(m.p, "\">Esc&quot;&lt;&amp;&gt;;x y+0x8</text></g>\n") != NULL);
    CHECK(strstr(m.p, "\">Bds+0x80</text></g>\n") != NULL);
    CHECK(strstr(m.p, "DxeCore+0x40") == NULL);
    view(V_CHROME, &names_res, &m);
    CHECK(strstr(m.p, "{\"name\":\"Esc\\\"<&>;x y+0x8\",\"cat\":\"call\",\"ph\":\"X\",\"ts\":5,\"dur\":1,"
                      "\"pid\":1,\"tid\":1,\"args\":{\"entry\":\"0x2000\",\"depth\":2}}") != NULL);
    CHECK(strstr(m.p, "{\"name\":\"CoreAllocatePool\",\"cat\":\"call\",\"ph\":\"X\",\"ts\":2,\"dur\":6,") != NULL);
    CHECK(strstr(m.p, "{\"name\":\"Bds+0x80\",") != NULL);
    CHECK(strstr(m.p, "DxeCore+0x40") == NULL);
    free(m.p);
}

TEST(report_page_function_table_and_tree)
{
    struct mem m = {0};
    view(V_REPORT, &names_res, &m);
    CHECK(strstr(m.p, "<td class=\"n\">2</td><td>CoreAllocatePool</td><td class=\"a\">0x1040 DxeCore+0x40 (Pool.c:100)</td>") !=
          NULL);
    CHECK(strstr(m.p, "<td>Esc&quot;&lt;&amp;&gt;;x y+0x8</td><td class=\"a\">0x2000 Bds+0x0 (Bds.c:7)</td>") != NULL);
    CHECK(strstr(m.p, "<td>Bds+0x80</td><td class=\"a\">0x2080</td>") != NULL);
    CHECK(strstr(m.p, "%</span> CoreAllocatePool <span class=\"a\">0x1040 (Pool.c:100)</span>") != NULL);
    CHECK(strstr(m.p, "%</span> Esc&quot;&lt;&amp;&gt;;x y+0x8 <span class=\"a\">0x2000 (Bds.c:7)</span>") != NULL);
    CHECK(strstr(m.p, "<title>CoreAllocatePool: 7 instructions") != NULL); /* its flame graph */
    free(m.p);
}

TEST(edges_both_ends_named)
{
    struct mem m = {0};
    view(V_EDGES, &names_res, &m);
    CHECK_STR(m.p, "edges: 4 distinct (from -> to: times taken)\n"
                   "0x1004 (DxeMain+0x4) -> 0x1040 (CoreAllocatePool (Pool.c:100)): 2\n"
                   "0x1046 (CoreAllocatePool+0x6 (Pool.c:100)) -> 0x2000 (" WEIRD "+0x8 (Bds.c:7)): 1\n"
                   "0x2000 (" WEIRD "+0x8 (Bds.c:7)) -> 0x104b (CoreAllocatePool+0xb (Pool.c:100)): 1\n"
                   "0x2090 (Bds+0x90) -> 0x9000: 3\n");
    view(V_EDGES_JSON, &names_res, &m);
    CHECK_STR(m.p, "{\"type\":\"edge\",\"from\":\"0x1004\",\"from_function\":\"DxeMain+0x4\",\"to\":\"0x1040\","
                   "\"to_function\":\"CoreAllocatePool\",\"to_file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\","
                   "\"to_line\":100,\"count\":2}\n"
                   "{\"type\":\"edge\",\"from\":\"0x1046\",\"from_function\":\"CoreAllocatePool+0x6\","
                   "\"from_file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\",\"from_line\":100,\"to\":\"0x2000\","
                   "\"to_function\":\"Esc\\\"<&>;x y+0x8\",\"to_file\":\"C:\\\\edk2\\\\Bds\\\\Bds.c\",\"to_line\":7,"
                   "\"to_inlined\":true,\"count\":1}\n"
                   "{\"type\":\"edge\",\"from\":\"0x2000\",\"from_function\":\"Esc\\\"<&>;x y+0x8\","
                   "\"from_file\":\"C:\\\\edk2\\\\Bds\\\\Bds.c\",\"from_line\":7,\"from_inlined\":true,"
                   "\"to\":\"0x104b\",\"to_function\":\"CoreAllocatePool+0xb\","
                   "\"to_file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\",\"to_line\":100,\"count\":1}\n"
                   "{\"type\":\"edge\",\"from\":\"0x2090\",\"from_file\":\"/build/Bds/Asm.nasm\",\"from_line\":40,"
                   "\"to\":\"0x9000\",\"count\":3}\n");
    free(m.p);
}

/* Without a resolver, and with one that knows nothing: the same bytes, and the names nowhere. */
TEST(views_without_names_unchanged)
{
    struct mem a = {0}, b = {0}, c = {0};
    for (int v = 0; v < V_COUNT; v++) {
        view((enum view)v, NULL, &a);
        view((enum view)v, &none_res, &b);
        view((enum view)v, &names_res, &c);
        CHECK(a.n > 0);
        CHECK(a.n == b.n && !memcmp(a.p, b.p, a.n));
        CHECK(strstr(a.p, "CoreAllocatePool") == NULL);
        CHECK(strstr(c.p, "CoreAllocatePool") != NULL); /* the views above do name */
    }
    free(a.p);
    free(b.p);
    free(c.p);
}

/* ---- the listing ---- */

static const struct fwpt_flow_obuf_insn listed[] = {
    {0x1040, FWPT_FLOW_INSN, 5, FWPT_IC_OTHER, 64, 0}, /* CoreAllocatePool's entry */
    {0x1044, FWPT_FLOW_INSN, 1, FWPT_IC_OTHER, 64, 0}, /* +0x4, another line */
    {0x2000, FWPT_FLOW_INSN, 12, FWPT_IC_OTHER, 64, 0}, /* inside WEIRD, inlined */
    {0x1010, FWPT_FLOW_INSN, 2, FWPT_IC_OTHER, 64, 0}, /* DxeMain+0x10: no line */
    {0x2090, FWPT_FLOW_INSN, 1, FWPT_IC_OTHER, 64, 0}, /* a line, no function */
    {0x2080, FWPT_FLOW_INSN, 1, FWPT_IC_OTHER, 64, 0}, /* nothing known */
    {0x9000, FWPT_FLOW_INSN, 1, FWPT_IC_OTHER, 64, 0}, /* no module, nothing known */
};
#define NLISTED (sizeof listed / sizeof listed[0])

/* The listing of `listed` by the printer into a, and by the fast listing into b (each cleared). */
static void listing(enum fwpt_flow_format fmt, const struct fwpt_resolver *r, struct mem *a, struct mem *b)
{
    static char buf[4 * FWPT_LIST_LINE_MAX];
    static struct fwpt_list_module pre[2];
    static struct fwpt_list_name ncache[1 << 13]; /* the addresses listed in distinct slots */
    static struct fwpt_flow_lister l;
    struct fwpt_modules ma = {mv, 2, 0}, mb = {mv, 2, 0};
    struct fwpt_sink sa = {mem_write, a}, sb = {mem_write, b};
    a->n = b->n = 0;
    mem_write(a, "", 0);
    mem_write(b, "", 0);
    struct fwpt_flow_printer pr = {&sa, fmt, &ma, NULL, NULL, 0, r};
    for (size_t i = 0; i < NLISTED; i++) {
        struct fwpt_flow_event e = flow_insn(listed[i].ip, listed[i].size, listed[i].iclass);
        fwpt_flow_print_event(&pr, &e);
    }
    fwpt_flow_list_init(&l, &sb, fmt, &mb, pre, NULL, NULL, NULL, 0, buf, sizeof buf);
    fwpt_flow_list_names(&l, r, ncache, 1 << 13);
    fwpt_flow_list_insns(&l, listed, NLISTED);
    fwpt_flow_list_insns(&l, listed, NLISTED); /* again: from the cache */
    fwpt_flow_list_flush(&l);
    b->n /= 2; /* the first pass */
    b->p[b->n] = 0;
}

TEST(listing_text_function_column)
{
    struct mem a = {0}, b = {0};
    listing(FWPT_FLOW_FMT_TEXT, &names_res, &a, &b);
    CHECK_STR(a.p, "0x0000000000001040  CoreAllocatePool (Pool.c:100)  5\n"
                   "0x0000000000001044  CoreAllocatePool+0x4 (Pool.c:101)  1\n"
                   "0x0000000000002000  " WEIRD "+0x8 (Bds.c:7)    12\n"
                   "0x0000000000001010  DxeMain+0x10                  2\n"
                   "0x0000000000002090  Bds+0x90                      1\n"
                   "0x0000000000002080  Bds+0x80                      1\n"
                   "0x0000000000009000                                1\n");
    CHECK_STR(b.p, a.p);
    free(a.p);
    free(b.p);
}

TEST(listing_jsonl_function_keys)
{
    struct mem a = {0}, b = {0};
    listing(FWPT_FLOW_FMT_JSONL, &names_res, &a, &b);
    CHECK_STR(a.p,
              "{\"type\":\"insn\",\"ip\":\"0x1040\",\"size\":5,\"module\":\"DxeCore\",\"module_offset\":\"0x40\","
              "\"function\":\"CoreAllocatePool\",\"function_offset\":\"0x0\","
              "\"file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\",\"line\":100}\n"
              "{\"type\":\"insn\",\"ip\":\"0x1044\",\"size\":1,\"module\":\"DxeCore\",\"module_offset\":\"0x44\","
              "\"function\":\"CoreAllocatePool\",\"function_offset\":\"0x4\","
              "\"file\":\"/build/MdeModulePkg/Core/Dxe/Mem/Pool.c\",\"line\":101}\n"
              "{\"type\":\"insn\",\"ip\":\"0x2000\",\"size\":12,\"module\":\"Bds\",\"module_offset\":\"0x0\","
              "\"function\":\"Esc\\\"<&>;x y\",\"function_offset\":\"0x8\",\"file\":\"C:\\\\edk2\\\\Bds\\\\Bds.c\","
              "\"line\":7,\"inlined\":true}\n"
              "{\"type\":\"insn\",\"ip\":\"0x1010\",\"size\":2,\"module\":\"DxeCore\",\"module_offset\":\"0x10\","
              "\"function\":\"DxeMain\",\"function_offset\":\"0x10\"}\n"
              "{\"type\":\"insn\",\"ip\":\"0x2090\",\"size\":1,\"module\":\"Bds\",\"module_offset\":\"0x90\","
              "\"file\":\"/build/Bds/Asm.nasm\",\"line\":40}\n"
              "{\"type\":\"insn\",\"ip\":\"0x2080\",\"size\":1,\"module\":\"Bds\",\"module_offset\":\"0x80\"}\n"
              "{\"type\":\"insn\",\"ip\":\"0x9000\",\"size\":1}\n");
    CHECK_STR(b.p, a.p);
    free(a.p);
    free(b.p);
}

/* The fast listing asks the resolver once per address; without one (or one that knows nothing) the bytes are
 * the listing's without names. */
TEST(listing_resolved_once_per_address)
{
    struct mem a = {0}, b = {0}, c = {0}, d = {0};
    for (int fmt = 0; fmt < 2; fmt++) {
        const enum fwpt_flow_format f = fmt ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT;
        asked = 0;
        listing(f, &names_res, &a, &b);
        CHECK_EQ(asked, 2 * NLISTED); /* the printer's NLISTED, the fast listing's NLISTED for two passes */
        listing(f, NULL, &a, &b);
        listing(f, &none_res, &c, &d);
        CHECK_STR(b.p, a.p);
        CHECK_STR(c.p, a.p);
        CHECK_STR(d.p, a.p);
        CHECK(strstr(a.p, "0x0000000000001040  DxeCore+0x40") || strstr(a.p, "\"module_offset\":\"0x40\"}"));
    }
    free(a.p);
    free(b.p);
    free(c.p);
    free(d.p);
}

TEST(name_rule)
{
    char buf[128];
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    struct fwpt_resolved r = {"F", 0x1000, "a/b\\c/d.c", 12, 0};
    fwpt_name_put(&s, &r, 0x1000);
    fwpt_putc(&s, '|');
    fwpt_name_put(&s, &r, 0x10ab);
    fwpt_putc(&s, '|');
    CHECK_EQ(fwpt_name_put_text(&s, &r, 0x1001), 1);
    r.function = NULL;
    CHECK_EQ(fwpt_name_put_text(&s, &r, 0x1001), 0); /* nothing written */
    buf[bs.len] = 0;
    CHECK_STR(buf, "F|F+0xab|F+0x1 (d.c:12)");
    CHECK_STR(fwpt_name_basename("C:\\x\\y.c"), "y.c");
    CHECK_STR(fwpt_name_basename("plain.c"), "plain.c");
    CHECK_STR(fwpt_name_basename("dir/"), "");
}

TEST_MAIN("names")
