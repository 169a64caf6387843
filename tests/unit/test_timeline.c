/* analyze/timeline and render/timeline_print (`fwpt flow DIR --images`): a flow made by hand over three images A, B,
 * C and code in no module, with exact counts worked out by hand: the chain A -> B -> C -> A and back, twice; C
 * entered by calls from B and from A and by an interrupt in B; a jump into no module inside a call; every
 * instruction weighted by its index + 1 as ticks. Then the views' exact text and JSON lines; an overflow that
 * leaves every frame; the tool on a generated program saved as a directory whose code is cut into three images:
 * the images' self counts are --profile's per-module counts and add up to its total, each image's first
 * instruction is where the plain listing first shows its module, in trace order, and the ticks add up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/timeline.h"
#include "render/timeline_print.h"
#include "tests/check.h"
#include "tests/common/mem_sink.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/small_profile.h"
#include "tests/common/tool_run.h"

enum { IMG_A, IMG_B, IMG_C, IMG_NONE };
static const struct fwpt_module mod_v[3] = {
    {"A", 0x1000, 0x100, NULL, 0}, {"B", 0x2000, 0x100, NULL, 0}, {"C", 0x3000, 0x100, NULL, 0}};

struct fixture {
    struct fwpt_modules mods;
    struct fwpt_timeline t;
    struct fwpt_timeline_image img[4];
    struct fwpt_timeline_entry ent[64];
    struct fwpt_profile p;
    struct fwpt_profile_func funcs[64];
    struct fwpt_profile_node nodes[64];
    uint32_t hash[128];
    uint64_t modc[4];
    uint64_t n; /* instructions given so far: the next one weighs n + 1 ticks */
};

static void fx_init(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    f->mods = (struct fwpt_modules){mod_v, 3, 0};
    fwpt_timeline_init(&f->t, &f->mods, f->img, f->ent, 64);
    fwpt_profile_init(&f->p, &f->mods, f->modc, f->funcs, 64, f->nodes, 64, f->hash, 128);
}

static void give(struct fixture *f, const struct fwpt_flow_event *e)
{
    uint64_t w = e->kind == FWPT_FLOW_INSN ? ++f->n : 0;
    fwpt_timeline_add(&f->t, e, w);
    fwpt_profile_add(&f->p, e);
}

static void in(struct fixture *f, uint64_t ip, uint8_t size, uint8_t iclass)
{
    struct fwpt_flow_event e = flow_insn(ip, size, iclass);
    give(f, &e);
}

static void other(struct fixture *f, uint8_t kind, uint64_t ip, uint64_t to)
{
    struct fwpt_flow_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.ip = ip;
    e.to = to;
    give(f, &e);
}

/* B: 0x2000 other, 0x2002 call C (0x3000), 0x2007 ret; C: 0x3000 other, 0x3001 call A+0x80, 0x3006 ret;
 * A+0x80: other, ret. The instruction indexes of the first run are in the comments. */
static void chain(struct fixture *f, bool interrupt)
{
    in(f, 0x2000, 2, FWPT_IC_OTHER); /* 2 (16) */
    if (interrupt) {
        other(f, FWPT_FLOW_INTERRUPT, 0x2002, 0x3080); /* the handler in C, from B */
        in(f, 0x3080, 2, FWPT_IC_IRET);                /* 3 */
    }
    in(f, 0x2002, 5, FWPT_IC_CALL_REL); /* 4 (17) */
    in(f, 0x3000, 1, FWPT_IC_OTHER);    /* 5 (18) */
    in(f, 0x3001, 5, FWPT_IC_CALL_REL); /* 6 (19): C calls A */
    in(f, 0x1080, 1, FWPT_IC_OTHER);    /* 7 (20) */
    in(f, 0x1081, 1, FWPT_IC_RET);      /* 8 (21) */
    in(f, 0x3006, 1, FWPT_IC_RET);      /* 9 (22) */
    in(f, 0x2007, 1, FWPT_IC_RET);      /* 10 (23) */
}

/* The flow: 25 instructions (indexes 0..24). */
static void fx_flow(struct fixture *f)
{
    fx_init(f);
    in(f, 0x1000, 4, FWPT_IC_OTHER);    /* 0: the trace starts in A */
    in(f, 0x1004, 5, FWPT_IC_CALL_REL); /* 1: A calls B */
    chain(f, true);                     /* 2..10 */
    in(f, 0x1009, 5, FWPT_IC_CALL_REL); /* 11: A calls C+0x10 */
    in(f, 0x3010, 5, FWPT_IC_JMP_REL);  /* 12: which jumps into no module */
    in(f, 0x9000, 1, FWPT_IC_RET);      /* 13: and returns from there */
    in(f, 0x100e, 2, FWPT_IC_OTHER);    /* 14 */
    in(f, 0x1010, 5, FWPT_IC_CALL_REL); /* 15: A calls B again */
    chain(f, false);                    /* 16..23 */
    in(f, 0x1015, 1, FWPT_IC_OTHER);    /* 24 */
    fwpt_timeline_end(&f->t);
}

static struct fixture fx;

/* Self: A 0,1,7,8,11,14,15,20,21,24; B 2,4,10,16,17,23; C 3,5,6,9,12,18,19,22; no module 13. */
TEST(self_counts_add_up)
{
    fx_flow(&fx);
    CHECK_EQ(fx.t.insns, 25);
    CHECK_EQ(fx.img[IMG_A].self, 10);
    CHECK_EQ(fx.img[IMG_B].self, 6);
    CHECK_EQ(fx.img[IMG_C].self, 8);
    CHECK_EQ(fx.img[IMG_NONE].self, 1);
    CHECK_EQ(fx.img[IMG_A].self + fx.img[IMG_B].self + fx.img[IMG_C].self + fx.img[IMG_NONE].self, fx.t.insns);
    for (int i = 0; i < 4; i++) /* the profile's per-module counts: the same rule */
        CHECK_EQ(fx.img[i].self, fx.modc[i]);
}

/* With callees: A is on the stack from the first instruction to the last (the trace starts in it: the total);
 * B 2..10 and 16..23; C the handler 3, 5..9, 12..13 (its call into no module), 18..22, once each although A's
 * code runs inside C's frame; no module 13. */
TEST(with_callees)
{
    fx_flow(&fx);
    CHECK_EQ(fx.img[IMG_A].incl, 25);
    CHECK_EQ(fx.img[IMG_B].incl, 17);
    CHECK_EQ(fx.img[IMG_C].incl, 13);
    CHECK_EQ(fx.img[IMG_NONE].incl, 1);
    CHECK(fx.t.ended);
    fwpt_timeline_end(&fx.t); /* twice: nothing more */
    CHECK_EQ(fx.img[IMG_A].incl, 25);
    CHECK_EQ(fx.img[IMG_A].incl_ticks, 325);
}

/* Ticks (instruction i weighs i + 1): self and with callees over the same instructions. */
TEST(ticks)
{
    fx_flow(&fx);
    CHECK_EQ(fx.t.ticks, 325);
    CHECK_EQ(fx.img[IMG_A].self_ticks, 131);
    CHECK_EQ(fx.img[IMG_B].self_ticks, 78);
    CHECK_EQ(fx.img[IMG_C].self_ticks, 102);
    CHECK_EQ(fx.img[IMG_NONE].self_ticks, 14);
    CHECK_EQ(fx.img[IMG_A].incl_ticks, 325);
    CHECK_EQ(fx.img[IMG_B].incl_ticks, 63 + 164);
    CHECK_EQ(fx.img[IMG_C].incl_ticks, 4 + 40 + 27 + 105);
    CHECK_EQ(fx.img[IMG_NONE].incl_ticks, 14);
}

/* First run: A 0, B 2, C 3 (the interrupt handler), no module 13; fwpt_timeline_next in that order. */
TEST(first_run_order)
{
    fx_flow(&fx);
    CHECK_EQ(fx.img[IMG_A].first, 0);
    CHECK_EQ(fx.img[IMG_B].first, 2);
    CHECK_EQ(fx.img[IMG_C].first, 3);
    CHECK_EQ(fx.img[IMG_NONE].first, 13);
    size_t i = fwpt_timeline_next(&fx.t, fx.t.nimages);
    CHECK_EQ(i, IMG_A);
    CHECK_EQ(i = fwpt_timeline_next(&fx.t, i), IMG_B);
    CHECK_EQ(i = fwpt_timeline_next(&fx.t, i), IMG_C);
    CHECK_EQ(i = fwpt_timeline_next(&fx.t, i), IMG_NONE);
    CHECK_EQ(fwpt_timeline_next(&fx.t, i), fx.t.nimages);
    CHECK_EQ(fwpt_timeline_count(&fx.t), 4);
}

/* Entry calls, grouped by caller function and target: C from B's 0x2000 twice at 0x3000, from A's root code once
 * at 0x3010, the interrupt from B once at 0x3080; B from A twice; A from C twice (the chain back into A); none
 * into the image it came from. */
TEST(entry_calls)
{
    fx_flow(&fx);
    CHECK_EQ(fx.t.nentries, 5);
    CHECK_EQ(fx.t.dropped, 0);
    size_t n = 0, e = fwpt_timeline_next_entry(&fx.t, IMG_C, (size_t)-1, &n);
    CHECK_EQ(n, 3);
    CHECK(e != (size_t)-1);
    if (e == (size_t)-1)
        return;
    const struct fwpt_timeline_entry *v = &fx.ent[e];
    CHECK_EQ(v->target, 0x3000);
    CHECK_EQ(v->caller, 0x2000);
    CHECK_EQ(v->caller_image, IMG_B);
    CHECK_EQ(v->count, 2);
    CHECK_EQ(v->interrupt, 0);
    v = &fx.ent[e = fwpt_timeline_next_entry(&fx.t, IMG_C, e, NULL)];
    CHECK_EQ(v->target, 0x3010);
    CHECK_EQ(v->caller, FWPT_FLOW_NO_IP);
    CHECK_EQ(v->caller_image, IMG_A);
    CHECK_EQ(v->count, 1);
    v = &fx.ent[e = fwpt_timeline_next_entry(&fx.t, IMG_C, e, NULL)];
    CHECK_EQ(v->target, 0x3080);
    CHECK_EQ(v->caller, 0x2000);
    CHECK_EQ(v->interrupt, 1);
    CHECK_EQ(fwpt_timeline_next_entry(&fx.t, IMG_C, e, NULL), (size_t)-1);
    v = &fx.ent[fwpt_timeline_next_entry(&fx.t, IMG_B, (size_t)-1, &n)];
    CHECK_EQ(n, 1);
    CHECK_EQ(v->target, 0x2000);
    CHECK_EQ(v->caller_image, IMG_A);
    CHECK_EQ(v->count, 2);
    v = &fx.ent[fwpt_timeline_next_entry(&fx.t, IMG_A, (size_t)-1, &n)];
    CHECK_EQ(n, 1);
    CHECK_EQ(v->target, 0x1080);
    CHECK_EQ(v->caller, 0x3000);
    CHECK_EQ(v->caller_image, IMG_C);
    CHECK_EQ(v->count, 2);
    CHECK_EQ(fwpt_timeline_next_entry(&fx.t, IMG_NONE, (size_t)-1, &n), (size_t)-1);
    CHECK_EQ(n, 0);
}

/* The top functions of an image from the profile's table: C's 0x3000 (6 self), 0x3010 (2: its jump into no module
 * counts in its frame), 0x3080 (1); max 2 keeps the first two and counts all three. */
TEST(top_functions)
{
    fx_flow(&fx);
    size_t out[4], n = 0, k = fwpt_timeline_top_funcs(&fx.t, &fx.p, IMG_C, out, 4, &n);
    CHECK_EQ(k, 3);
    CHECK_EQ(n, 3);
    CHECK_EQ(fx.funcs[out[0]].entry, 0x3000);
    CHECK_EQ(fx.funcs[out[0]].insns, 6);
    CHECK_EQ(fx.funcs[out[1]].entry, 0x3010);
    CHECK_EQ(fx.funcs[out[1]].insns, 2);
    CHECK_EQ(fx.funcs[out[2]].entry, 0x3080);
    CHECK_EQ(fx.funcs[out[2]].insns, 1);
    k = fwpt_timeline_top_funcs(&fx.t, &fx.p, IMG_C, out, 2, &n);
    CHECK_EQ(k, 2);
    CHECK_EQ(n, 3);
    CHECK_EQ(fx.funcs[out[1]].entry, 0x3010);
    k = fwpt_timeline_top_funcs(&fx.t, &fx.p, IMG_NONE, out, 4, &n);
    CHECK_EQ(k, 0);
    CHECK_EQ(n, 0);
}

static const char want_text[] =
    "images in the order they first ran: 3 of 3 images (and code in no module), 25 instructions; time: 325 TSC ticks "
    "spread over the instructions\n"
    "    #  image        base-end                              self       %   with callees       %\n"
    "    1  A            0x1000-0x10ff            insns          10  40.00%             25 100.00%\n"
    "                                             ticks         131  40.31%            325 100.00%\n"
    "       the trace starts here\n"
    "       entered by  C!C+0x0 -> A+0x80  x2\n"
    "       top           4  A+0x80\n"
    "    2  B            0x2000-0x20ff            insns           6  24.00%             17  68.00%\n"
    "                                             ticks          78  24.00%            227  69.85%\n"
    "       entered by  A!(root) -> B+0x0  x2\n"
    "       top           6  B+0x0\n"
    "    3  C            0x3000-0x30ff            insns           8  32.00%             13  52.00%\n"
    "                                             ticks         102  31.38%            176  54.15%\n"
    "       entered by  B!B+0x0 -> C+0x0  x2\n"
    "       entered by  ... 2 more caller/target pairs (--top)\n"
    "       top           6  C+0x0\n"
    "       top  ... 2 more functions (--top)\n"
    "    4  (no module)  -                        insns           1   4.00%              1   4.00%\n"
    "                                             ticks          14   4.31%             14   4.31%\n";

/* The text view, --top 1, with time: every value above in its column. */
TEST(text_view)
{
    fx_flow(&fx);
    struct mem m = {0};
    struct fwpt_names names = {&fx.mods, NULL, 0, NULL};
    fwpt_timeline_print(&fx.t, &fx.p, &names, true, 1, &(struct fwpt_sink){mem_write, &m});
    CHECK_STR(m.p, want_text);
    free(m.p);
}

/* Without time: no tick line, and the header says there is none. */
TEST(text_view_without_time)
{
    fx_flow(&fx);
    struct mem m = {0};
    struct fwpt_names names = {&fx.mods, NULL, 0, NULL};
    fwpt_timeline_print(&fx.t, &fx.p, &names, false, 1, &(struct fwpt_sink){mem_write, &m});
    CHECK(m.p && strstr(m.p, "25 instructions; time: none in the trace (no TSC, MTC or CYC packets, or no timing "
                             "configuration for them): instructions only\n"));
    CHECK(m.p && !strstr(m.p, "ticks"));
    free(m.p);
}

/* JSON lines, --top 2: the header, image C's line, its entry calls and functions (names: the module offsets). */
TEST(jsonl_view)
{
    fx_flow(&fx);
    struct mem m = {0};
    struct fwpt_names names = {&fx.mods, NULL, 0, NULL};
    fwpt_timeline_print_jsonl(&fx.t, &fx.p, &names, true, 2, &(struct fwpt_sink){mem_write, &m});
    CHECK(m.p && !strncmp(m.p, "{\"type\":\"timeline\",\"images\":4,\"map_images\":3,\"insns\":25,\"timing\":true,"
                                "\"ticks\":325,\"entries_dropped\":0,\"functions_dropped\":0}\n", 125));
    CHECK(m.p && strstr(m.p, "{\"type\":\"image\",\"order\":3,\"module\":\"C\",\"base\":\"0x3000\",\"size\":\"0x100\","
                             "\"first_insn\":3,\"self\":8,\"with_callees\":13,\"self_ticks\":102,"
                             "\"with_callees_ticks\":176,\"entries\":3,\"functions\":3}\n"
                             "{\"type\":\"image_entry\",\"order\":3,\"module\":\"C\",\"target\":\"0x3000\","
                             "\"module_offset\":\"0x0\",\"caller_module\":\"B\",\"caller_entry\":\"0x2000\","
                             "\"caller_module_offset\":\"0x0\",\"interrupt\":false,\"count\":2}\n"
                             "{\"type\":\"image_entry\",\"order\":3,\"module\":\"C\",\"target\":\"0x3010\","
                             "\"module_offset\":\"0x10\",\"caller_module\":\"A\",\"caller_entry\":null,"
                             "\"interrupt\":false,\"count\":1}\n"
                             "{\"type\":\"image_function\",\"order\":3,\"module\":\"C\",\"entry\":\"0x3000\","
                             "\"module_offset\":\"0x0\",\"self\":6,\"calls\":2}\n"
                             "{\"type\":\"image_function\",\"order\":3,\"module\":\"C\",\"entry\":\"0x3010\","
                             "\"module_offset\":\"0x10\",\"self\":2,\"calls\":1}\n"
                             "{\"type\":\"image\",\"order\":4,\"module\":null,\"first_insn\":13,"));
    free(m.p);
}

/* A resolver of three names (the build's symbols): B's entry, C's 0x3000 (with a line) and A+0x80. */
static int table_resolve(void *ctx, uint64_t a, struct fwpt_resolved *out)
{
    (void)ctx;
    memset(out, 0, sizeof *out);
    static const struct { uint64_t a; const char *name; } t[] = {{0x2000, "BEntry"}, {0x3000, "CStart"},
                                                                    {0x1080, "AHelper"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (a == t[i].a) {
            out->function = t[i].name;
            out->function_entry = a;
            out->file = a == 0x3000 ? "/src/c.c" : NULL;
            out->line = a == 0x3000 ? 7 : 0;
            return 1;
        }
    return 0;
}

/* With the build's names (--symbols): every function by NAME through the resolver, the others Module+0xOFF; JSON
 * lines add the resolver's keys after the module offset (render/names.h), the caller's prefixed "caller_". */
TEST(names_through_the_resolver)
{
    fx_flow(&fx);
    struct mem m = {0};
    struct fwpt_resolver r = {table_resolve, NULL};
    struct fwpt_names names = {&fx.mods, NULL, 0, &r};
    fwpt_timeline_print(&fx.t, &fx.p, &names, false, 3, &(struct fwpt_sink){mem_write, &m});
    CHECK(m.p && strstr(m.p, "       entered by  C!CStart -> AHelper  x2\n"));
    CHECK(m.p && strstr(m.p, "       entered by  A!(root) -> BEntry  x2\n"));
    CHECK(m.p && strstr(m.p, "       entered by  B!BEntry -> CStart  x2\n"
                             "       entered by  A!(root) -> C+0x10  x1\n"
                             "       interrupted in  B!BEntry -> C+0x80  x1\n"
                             "       top           6  CStart\n"
                             "       top           2  C+0x10\n"
                             "       top           1  C+0x80\n"));
    free(m.p);
    m = (struct mem){0};
    fwpt_timeline_print_jsonl(&fx.t, &fx.p, &names, false, 1, &(struct fwpt_sink){mem_write, &m});
    CHECK(m.p && strstr(m.p, "{\"type\":\"image_entry\",\"order\":3,\"module\":\"C\",\"target\":\"0x3000\","
                             "\"module_offset\":\"0x0\",\"function\":\"CStart\",\"file\":\"/src/c.c\",\"line\":7,"
                             "\"caller_module\":\"B\",\"caller_entry\":\"0x2000\",\"caller_module_offset\":\"0x0\","
                             "\"caller_function\":\"BEntry\",\"interrupt\":false,\"count\":2}\n"));
    free(m.p);
}

/* An overflow leaves every frame (as the profile): A calls B, OVF, B runs on outside any frame, its return closes
 * nothing, A runs once more. A: 0..1 (till the overflow) and 4; B: 1..3. */
TEST(overflow_leaves_every_frame)
{
    fx_init(&fx);
    in(&fx, 0x1004, 5, FWPT_IC_CALL_REL); /* 0 */
    in(&fx, 0x2000, 2, FWPT_IC_OTHER);    /* 1 */
    other(&fx, FWPT_FLOW_OVERFLOW, 0x2002, 0);
    in(&fx, 0x2002, 1, FWPT_IC_OTHER); /* 2 */
    in(&fx, 0x2007, 1, FWPT_IC_RET);   /* 3 */
    in(&fx, 0x1009, 1, FWPT_IC_OTHER); /* 4 */
    fwpt_timeline_end(&fx.t);
    CHECK_EQ(fx.img[IMG_A].incl, 3);
    CHECK_EQ(fx.img[IMG_B].incl, 3);
    CHECK_EQ(fx.t.depth, 0);
    CHECK_EQ(fx.img[IMG_A].refs, 1); /* the current IP's only */
}

/* ---- the tool, on a generated program saved with its code cut into three images ---- */
static char dir[] = "/tmp/fwpt-timeline-XXXXXX";
static char tool[1024];
static char out[1 << 22];

/* DIR: the program's trace, its code as images P0, P1, P2 (a third each), and a sideband.json naming them. */
static bool save_split(const struct progen *p)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    write_file(path, p->trace, p->trace_size);
    size_t third = (p->code_size / 3 + 15) & ~(size_t)15;
    snprintf(path, sizeof path, "%s/sideband.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "{\"images\":[");
    for (int k = 0; k < 3; k++) {
        size_t from = k * third, n = k < 2 ? third : p->code_size - 2 * third;
        snprintf(path, sizeof path, "%s/part%d.bin", dir, k);
        write_file(path, p->code + from, n);
        fprintf(f, "%s{\"name\":\"P%d\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"part%d.bin\"}", k ? "," : "",
                k, (unsigned long long)(p->base + from), n, k);
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

/* the number after "key": in s (0 when it is not there) */
static unsigned long long num(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *v = s ? strstr(s, k) : NULL;
    return v ? strtoull(v + strlen(k), NULL, 10) : 0;
}

/* The module of a JSON line ('-' for null, '?' when it has none) */
static char module_of(const char *line)
{
    const char *m = strstr(line, "\"module\":");
    if (!m || m > strchr(line, '\n'))
        return '?';
    m += 9;
    return *m == 'n' ? '-' : m[2];
}

static void tool_checks(unsigned timing)
{
    struct progen p;
    struct progen_cfg cfg = {.seed = 11, .nfuncs = 12, .max_insns = 3000,
                             .features = PROGEN_F_PSB | PROGEN_F_INTERRUPT | PROGEN_F_OVERFLOW, .timing = timing};
    if (!progen_build_checked(&cfg, &p))
        return;
    CHECK(save_split(&p));
    char args[4300];
    /* the timeline */
    snprintf(args, sizeof args, "%s --images --format jsonl -q", dir);
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 0);
    char *tl = strdup(out);
    unsigned long long insns = num(tl, "insns"), self = 0, self_ticks = 0;
    CHECK(insns > 1000);
    CHECK_EQ(insns, p.ntruth);
    CHECK(strstr(tl, timing ? "\"timing\":true" : "\"timing\":false"));
    char order[8] = {0}, first_order[8] = {0};
    unsigned long long first[8] = {0};
    int n = 0;
    for (const char *l = strstr(tl, "{\"type\":\"image\""); l && n < 8; l = strstr(l + 1, "{\"type\":\"image\"")) {
        self += num(l, "self");
        self_ticks += num(l, "self_ticks");
        first[n] = num(l, "first_insn");
        order[n++] = module_of(l);
    }
    CHECK_EQ(n, 3); /* the three images ran, no IP in no module */
    if (timing) {
        CHECK(num(tl, "ticks") > 0);
        CHECK_EQ(self_ticks, num(tl, "ticks"));
    }
    /* --profile's total and per-module counts */
    snprintf(args, sizeof args, "%s --profile --format jsonl -q", dir);
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 0);
    CHECK_EQ(self, num(strstr(out, "{\"type\":\"profile\""), "total"));
    for (int k = 0; k < n; k++) {
        char key[64];
        snprintf(key, sizeof key, "{\"type\":\"module_total\",\"module\":\"P%c\"", order[k]);
        const char *l = strstr(tl, "{\"type\":\"image\"");
        for (int j = 0; j < k; j++)
            l = strstr(l + 1, "{\"type\":\"image\"");
        CHECK_EQ(num(l, "self"), num(strstr(out, key), "count"));
    }
    /* the plain listing: where each module first shows, in order */
    snprintf(args, sizeof args, "%s --format jsonl --no-disasm -q", dir);
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 0);
    unsigned long long idx = 0;
    int m = 0;
    unsigned long long seen_at[8];
    for (const char *l = strstr(out, "{\"type\":\"insn\""); l; l = strstr(l + 1, "{\"type\":\"insn\""), idx++) {
        char c = module_of(l);
        if (m < 8 && !memchr(first_order, c, (size_t)m))
            seen_at[m] = idx, first_order[m++] = c;
    }
    CHECK_EQ(idx, insns);
    CHECK_EQ(m, n);
    CHECK_STR(first_order, order);
    for (int k = 0; k < m && k < n; k++)
        CHECK_EQ(first[k], seen_at[k]);
    /* the report page's images table: ticks columns only when it counts by time and the trace has time */
    snprintf(args, sizeof args, "%s -o %s/page.html -q%s", dir, dir, timing ? " --by time" : "");
    CHECK_EQ(tool_run("report", args, out, sizeof out), 0);
    snprintf(args, sizeof args, "%s/page.html", dir);
    char *page = slurp(args, &(size_t){0});
    CHECK(page && strstr(page, "<h2>Images in the order they first ran</h2>"));
    CHECK(page && (strstr(page, "<th>ticks self</th>") != NULL) == (timing != 0));
    free(page);
    free(tl);
    progen_free(&p);
}

TEST(tool_matches_profile_and_listing)
{
    TOOL_FIND_OR_RETURN(tool);
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    tool_checks(0);
    tool_checks(PROGEN_T_TSC);
    /* the other views and -j are refused, naming both */
    char args[4300];
    snprintf(args, sizeof args, "%s --images --calls", dir);
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 2);
    CHECK(strstr(out, "fwpt flow: --images and --calls are two views: give one"));
    snprintf(args, sizeof args, "%s --images -j 2", dir);
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 2);
    CHECK(strstr(out, "fwpt flow: --images: -j/--jobs does not apply"));
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CHECK_EQ(system(args), 0);
}

TEST_MAIN("timeline")
