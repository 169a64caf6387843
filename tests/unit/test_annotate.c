/* test_annotate: the counts per address (analyze/annotate) and their lines (render/annotate) against a fake resolver
 * and fake source files whose answers the cases set, with the exact text and HTML expected: the hash (growth,
 * no room, order), the functions that ran, FUNC as a name, Module!NAME and Module+0xOFF (and the near names when
 * unknown), the text with the source, without it, inlined code from another file, the JSON lines, the report
 * page's section, and
 * --by time's ticks through analyze/time_spread. */
#include "tests/check.h"
#include "tests/common/mem_sink.h"

#include "analyze/annotate.h"
#include "analyze/time_spread.h"
#include "render/annotate.h"

/* ---- the fake build: two modules, four functions, a line table ---- */

static const struct fwpt_module mod_v[] = {{"Mod", 0x1000, 0x1000, NULL, 0}, {"Other", 0x3000, 0x1000, NULL, 0}};

struct fake_fn {
    const char *name;
    uint64_t lo, hi; /* [lo, hi) */
};
static const struct fake_fn fake_fns[] = {
    {"alpha", 0x1100, 0x1140}, {"beta", 0x1200, 0x1230}, {"twin", 0x1300, 0x1310}, {"twin", 0x3300, 0x3310},
};

struct fake_line {
    uint64_t addr;
    const char *file;
    uint32_t line, inlined;
};
static const struct fake_line fake_lines[] = {
    {0x1100, "/src/a.c", 10, 0}, {0x1104, "/src/a.c", 11, 0}, {0x1108, "/src/a.c", 11, 0},
    {0x110c, "/src/a.c", 20, 0}, {0x1110, "/src/inc.h", 5, 1}, /* 0x1114: no line */
    {0x1200, "/src/b.c", 3, 0},  {0x1300, "/src/a.c", 40, 0}, {0x3300, "/src/o.c", 2, 0},
};

static unsigned resolves; /* answers given */

static int fake_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    (void)ctx;
    resolves++;
    *out = (struct fwpt_resolved){0};
    for (size_t i = 0; i < sizeof fake_fns / sizeof fake_fns[0]; i++)
        if (a >= fake_fns[i].lo && a < fake_fns[i].hi)
            out->function = fake_fns[i].name, out->function_entry = fake_fns[i].lo;
    for (size_t i = 0; i < sizeof fake_lines / sizeof fake_lines[0]; i++)
        if (fake_lines[i].addr == a)
            out->file = fake_lines[i].file, out->line = fake_lines[i].line, out->inlined = fake_lines[i].inlined;
    return out->function || out->line;
}

/* /src/a.c: 30 lines "a N"; /src/inc.h: 9 lines "i N" when with_inc; every other file cannot be read. */
static int with_inc;
static char src_buf[32];
static int fake_line_text(void *ctx, const char *file, uint32_t line, const char **s, size_t *len)
{
    (void)ctx;
    uint32_t nlines = !strcmp(file, "/src/a.c") ? 30 : !strcmp(file, "/src/inc.h") && with_inc ? 9 : 0;
    if (!nlines)
        return -1;
    if (!line || line > nlines)
        return 0;
    *len = (size_t)snprintf(src_buf, sizeof src_buf, "%c %u", file[5], line);
    *s = src_buf;
    return 1;
}

/* What the trace counted: alpha 16, beta 100, twin 7 and 9, 50 at an address no function covers: 182 in all. */
static const struct fwpt_addr_count counted[] = {
    {0x1100, 5}, {0x1104, 3}, {0x1108, 2}, {0x110c, 1}, {0x1110, 4}, {0x1114, 1},
    {0x1200, 100}, {0x1300, 7}, {0x2000, 50}, {0x3300, 9},
};
#define NCOUNTED (sizeof counted / sizeof counted[0])

struct fixture {
    struct fwpt_addr_counts c;
    struct fwpt_addr_count table[64];
    struct fwpt_resolver res;
    struct fwpt_modules mods;
    struct fwpt_source src;
    struct fwpt_annotation a;
    struct fwpt_annotate_fn fns[NCOUNTED];
    struct fwpt_annotate_row rows[NCOUNTED];
    struct mem out;
    struct fwpt_sink sink;
};

/* The counts added in an order that is not the address order, grouped. */
static void setup(struct fixture *f, int source)
{
    memset(f, 0, sizeof *f);
    fwpt_addr_counts_init(&f->c, f->table, 64, NULL);
    for (size_t i = NCOUNTED; i-- > 0;)
        fwpt_addr_counts_add(&f->c, counted[i].addr, counted[i].count);
    size_t n = fwpt_addr_counts_sorted(&f->c);
    f->res = (struct fwpt_resolver){fake_resolve, NULL};
    f->mods = (struct fwpt_modules){mod_v, 2, 0};
    f->src = (struct fwpt_source){fake_line_text, NULL};
    f->a = (struct fwpt_annotation){f->c.v, n, f->c.total, f->c.dropped, false, &f->res, &f->mods,
                                    source ? &f->src : NULL, f->fns, f->rows, 0};
    f->sink = (struct fwpt_sink){mem_write, &f->out};
    fwpt_annotate_group(&f->a);
    with_inc = 0;
}

static void *test_resize(void *ctx, void *old, size_t size)
{
    (*(unsigned *)ctx)++;
    if (!size) {
        free(old);
        return NULL;
    }
    return realloc(old, size);
}

TEST(counts_grow_and_sort)
{
    unsigned calls = 0;
    const struct fwpt_resize rs = {test_resize, &calls};
    struct fwpt_addr_counts c;
    fwpt_addr_counts_init(&c, malloc(4 * sizeof(struct fwpt_addr_count)), 4, &rs);
    for (uint64_t i = 0; i < 1000; i++)
        fwpt_addr_counts_add(&c, 0xfff000 - i * 3, i + 1);
    fwpt_addr_counts_add(&c, 0xfff000, 10);
    fwpt_addr_counts_add(&c, FWPT_ADDR_FREE, 7); /* not an address: not counted */
    CHECK_EQ(c.n, 1000);
    CHECK_EQ(c.dropped, 0);
    CHECK_EQ(c.total, 1000 * 1001 / 2 + 10);
    CHECK_EQ(c.mask + 1, 2048); /* 4 -> 2048: 3/4 full at most */
    CHECK_EQ(calls, 2 * 9);     /* nine times a new table and the old one freed */
    size_t n = fwpt_addr_counts_sorted(&c);
    CHECK_EQ(n, 1000);
    int order = 1, sums = 1;
    for (size_t i = 0; i < n; i++) {
        order &= c.v[i].addr == 0xfff000 - (999 - i) * 3;
        sums &= c.v[i].count == (999 - i) + 1 + (i == 999 ? 10 : 0);
    }
    CHECK(order);
    CHECK(sums);
    free(c.v);
}

TEST(counts_without_room_drop_and_say)
{
    struct fwpt_addr_count t[4];
    struct fwpt_addr_counts c;
    fwpt_addr_counts_init(&c, t, 4, NULL);
    for (uint64_t a = 1; a <= 5; a++)
        fwpt_addr_counts_add(&c, a * 16, 10 * a);
    fwpt_addr_counts_add(&c, 16, 1); /* one held: counted */
    fwpt_addr_counts_add(&c, 80, 1); /* one without room: dropped again */
    CHECK_EQ(c.n, 3);
    CHECK_EQ(c.total, 150 + 2);
    CHECK_EQ(c.dropped, 40 + 50 + 1);
    CHECK_EQ(fwpt_addr_counts_sorted(&c), 3);
    CHECK_EQ(t[0].addr, 16);
    CHECK_EQ(t[0].count, 11);
    CHECK_EQ(t[2].addr, 48);
    CHECK_EQ(t[2].count, 30);
}

TEST(functions_that_ran)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    CHECK_EQ(f->a.n, NCOUNTED);
    CHECK_EQ(f->a.total, 182);
    CHECK_EQ(f->a.nfns, 4);
    CHECK_STR(f->fns[0].name, "alpha");
    CHECK_EQ(f->fns[0].entry, 0x1100);
    CHECK_EQ(f->fns[0].count, 16);
    CHECK_EQ(f->fns[0].first, 0);
    CHECK_EQ(f->fns[0].n, 6);
    CHECK_STR(f->fns[1].name, "beta");
    CHECK_EQ(f->fns[1].count, 100);
    CHECK_EQ(f->fns[2].entry, 0x1300);
    CHECK_EQ(f->fns[3].entry, 0x3300); /* after 0x2000, which no function covers */
    CHECK_EQ(f->fns[3].first, 9);
    CHECK_EQ(f->fns[3].count, 9);
    free(f);
}

/* fwpt_annotate_select's indexes (k of them) as "i,j,..", or its message */
static const char *selected(struct fixture *f, const char *func)
{
    static char s[512];
    size_t sel[8];
    f->out.n = 0;
    if (f->out.p)
        f->out.p[0] = 0;
    size_t k = fwpt_annotate_select(&f->a, func, sel, &f->sink);
    if (!k)
        return f->out.p ? f->out.p : "";
    s[0] = 0;
    for (size_t i = 0; i < k; i++)
        snprintf(s + strlen(s), sizeof s - strlen(s), "%s%zu", i ? "," : "", sel[i]);
    return s;
}

TEST(select_by_name_module_and_offset)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    CHECK_STR(selected(f, "alpha"), "0");
    CHECK_STR(selected(f, "twin"), "2,3");       /* the same name in two modules: both */
    CHECK_STR(selected(f, "Other!twin"), "3");   /* or the one of a module */
    CHECK_STR(selected(f, "Mod!twin"), "2");
    CHECK_STR(selected(f, "Mod+0x100"), "0");    /* the entry */
    CHECK_STR(selected(f, "Mod+0x10c"), "0");    /* inside */
    CHECK_STR(selected(f, "Other+0x300"), "3");
    CHECK_STR(selected(f, "Mod+0x130"), "0");    /* inside alpha, an address that did not run */
    CHECK_STR(selected(f, "Mod+0x500"), "no function symbol covers 0x1500 (no symbol file for the module, or not in a "
                                        "function)");
    CHECK_STR(selected(f, "Mod+0x1000"), "the offset is past the end of the module");
    CHECK_STR(selected(f, "Nope+0x10"), "no traced module by that name");
    CHECK_STR(selected(f, "Nope!alpha"), "no traced module by that name");
    CHECK_STR(selected(f, "Other!alpha"), "no function by that name ran in the trace (of those the symbol files "
                                          "name); near names: alpha (Mod+0x100)");
    CHECK_STR(selected(f, "Alpah"), "no function by that name ran in the trace (of those the symbol files name); near "
                                    "names: alpha (Mod+0x100)");
    CHECK_STR(selected(f, "tw"), "no function by that name ran in the trace (of those the symbol files name); near "
                                 "names: twin (Other+0x300), twin (Mod+0x300)");
    CHECK_STR(selected(f, "zzzzzzzzzz"), "no function by that name ran in the trace (of those the symbol files name); "
                                         "none is near; the functions that ran most: beta (Mod+0x200), alpha (Mod+0x100), "
                                         "twin (Other+0x300), twin (Mod+0x300)");
    free(f->out.p);
    free(f);
}

static const char alpha_head[] =
    "alpha  Mod+0x100  0x1100: 16 instructions (8.79% of 182 in the trace)\n"
    "source: /src/a.c (the entry at line 10)\n"
    "each instruction counts at the line of its address; code inlined from another function counts at that "
    "function's line\n"
    "     insns       %   line  source\n";

TEST(text_with_source)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    with_inc = 1;
    unsigned before = resolves;
    fwpt_annotate_text(&f->a, 0, &f->sink);
    const char *want_rows =
        "                        8  a 8\n"
        "                        9  a 9\n"
        "         5   31.25     10  a 10\n"
        "         5   31.25     11  a 11\n"
        "                       12  a 12\n"
        "                       13  a 13\n"
        "         ...\n"
        "                       18  a 18\n"
        "                       19  a 19\n"
        "         1    6.25     20  a 20\n"
        "                       21  a 21\n"
        "                       22  a 22\n"
        "in other files (code inlined from them):\n"
        "         4   25.00  inc.h:5  i 5\n"
        "         1    6.25 no line\n";
    char want[2048];
    snprintf(want, sizeof want, "%s%s", alpha_head, want_rows);
    CHECK_STR(f->out.p, want);
    CHECK_EQ(resolves - before, 1 + 6); /* the entry, then each address once */
    free(f->out.p);
    free(f);
}

TEST(text_without_source)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 0);
    fwpt_annotate_text(&f->a, 0, &f->sink);
    const char *want_rows =
        "source file not found (the counts per line alone): /src/a.c\n"
        "         5   31.25     10\n"
        "         5   31.25     11\n"
        "         1    6.25     20\n"
        "in other files (code inlined from them):\n"
        "source file not found: /src/inc.h\n"
        "         4   25.00  inc.h:5\n"
        "         1    6.25 no line\n";
    char want[2048];
    snprintf(want, sizeof want, "%s%s", alpha_head, want_rows);
    CHECK_STR(f->out.p, want);
    free(f->out.p);
    free(f);
}

TEST(text_file_not_readable_other_present)
{
    /* beta's file cannot be read; the source provider is there */
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    fwpt_annotate_text(&f->a, 1, &f->sink);
    CHECK_STR(f->out.p, "beta  Mod+0x200  0x1200: 100 instructions (54.95% of 182 in the trace)\n"
                        "source: /src/b.c (the entry at line 3)\n"
                        "each instruction counts at the line of its address; code inlined from another function "
                        "counts at that function's line\n"
                        "     insns       %   line  source\n"
                        "source file not found (the counts per line alone): /src/b.c\n"
                        "       100  100.00      3\n");
    free(f->out.p);
    free(f);
}

TEST(jsonl_of_a_function)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    fwpt_annotate_jsonl(&f->a, 0, &f->sink);
    CHECK_STR(f->out.p,
              "{\"type\":\"annotate\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"module\":\"Mod\",\"module_offset\":\"0x100\","
              "\"unit\":\"insns\",\"count\":16,\"total\":182,\"file\":\"/src/a.c\",\"line\":10}\n"
              "{\"type\":\"annotate_line\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"file\":\"/src/a.c\",\"line\":10,\"count\":5}\n"
              "{\"type\":\"annotate_line\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"file\":\"/src/a.c\",\"line\":11,\"count\":5}\n"
              "{\"type\":\"annotate_line\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"file\":\"/src/a.c\",\"line\":20,\"count\":1}\n"
              "{\"type\":\"annotate_line\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"file\":\"/src/inc.h\",\"line\":5,"
              "\"inlined\":true,\"count\":4}\n"
              "{\"type\":\"annotate_line\",\"function\":\"alpha\",\"entry\":\"0x1100\",\"count\":1}\n");
    free(f->out.p);
    free(f);
}

TEST(report_section_top_functions)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    fwpt_annotate_html(&f->a, 2, &f->sink);
    const char *p = f->out.p;
    const char *head = "<h2>Source lines of the top functions</h2>\n<p>The 2 functions with the most instructions "
                       "(self), line by line.</p>\n<div id=\"fwpt-lines\">\n"
                       "<style>#fwpt-lines td.src { white-space: pre; font-family: monospace; }</style>\n"
                       "<h3>beta</h3>\n";
    CHECK(p && !strncmp(p, head, strlen(head)));
    const char *alpha = p ? strstr(p, "<h3>alpha</h3>") : NULL;
    CHECK(alpha != NULL);
    CHECK(p && !strstr(p, "<h3>twin</h3>")); /* top 2 only */
    CHECK(alpha && strstr(alpha, "<tr><td class=\"n\">5</td><td class=\"n\">31.25</td><td class=\"n\">10</td>"
                                 "<td class=\"src\">a 10</td></tr>\n"));
    CHECK(alpha && strstr(alpha, "<tr><td class=\"n\"></td><td class=\"n\"></td><td class=\"n\">12</td>"
                                 "<td class=\"src\">a 12</td></tr>\n"));
    CHECK(alpha && strstr(alpha, "<tr><td class=\"n\">4</td><td class=\"n\">25.00</td><td class=\"n\">inc.h:5</td>"
                                 "<td class=\"src\"></td></tr>\n"));
    CHECK(p && strstr(p, "<tr><td colspan=\"4\" class=\"a\">source file not found (the counts per line alone): "
                         "/src/b.c</td></tr>\n"));
    CHECK(p && strlen(p) > 7 && !strcmp(p + strlen(p) - 7, "</div>\n"));
    free(f->out.p);
    free(f);
}

TEST(report_section_without_functions_is_empty)
{
    struct fixture *f = malloc(sizeof *f);
    setup(f, 1);
    f->res.resolve = NULL; /* no resolver: no function known */
    fwpt_annotate_html(&f->a, 5, &f->sink);
    CHECK(f->out.p == NULL);
    CHECK_EQ(f->a.nfns, 0);
    free(f);
}

/* --by time: the ticks an instruction gets in the profile go to its address too. */
TEST(time_spread_counts_ticks_per_address)
{
    struct fwpt_profile p;
    static struct fwpt_profile_func funcs[64];
    static struct fwpt_profile_node nodes[64];
    static uint32_t hash[128];
    static uint64_t mod_insns[3];
    static struct fwpt_flow_event held[16];
    struct fwpt_modules mods = {mod_v, 2, 0};
    fwpt_profile_init(&p, &mods, mod_insns, funcs, 64, nodes, 64, hash, 128);
    struct fwpt_time_spread t;
    fwpt_time_spread_init(&t, &p, held, 16);
    struct fwpt_addr_count tab[16];
    struct fwpt_addr_counts c;
    fwpt_addr_counts_init(&c, tab, 16, NULL);
    t.addrs = &c;
    struct fwpt_flow_event ev = {.kind = FWPT_FLOW_INSN, .size = 1, .iclass = FWPT_IC_OTHER};
    const uint64_t ip[] = {0x1100, 0x1101, 0x1102, 0x1100, 0x1101};
    const uint64_t tsc[] = {100, 100, 107, 107, 110};
    for (int i = 0; i < 5; i++) {
        ev.ip = ip[i];
        fwpt_time_spread_add(&t, &ev, tsc[i], true);
    }
    fwpt_time_spread_end(&t);
    /* 0x1100 at 100: the first change point (0 ticks); 0x1101, 0x1102 share 7 (4, 3); 0x1100, 0x1101 share 3 (2, 1) */
    CHECK_EQ(c.total, 10);
    CHECK_EQ(p.insns, c.total);
    CHECK_EQ(fwpt_addr_counts_sorted(&c), 3);
    CHECK_EQ(tab[0].count, 0 + 2);
    CHECK_EQ(tab[1].count, 4 + 1);
    CHECK_EQ(tab[2].count, 3);
}

TEST_MAIN("test_annotate")
