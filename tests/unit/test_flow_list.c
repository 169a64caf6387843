/* The fast listing (render/flow_list) against the one-event-at-a-time printer (fwpt_flow_print_event), byte for
 * byte: generated programs (tests/common/progen) and corrupted copies of their traces (decode errors), text and
 * JSON lines, without and with a disassembly hook (texts that need JSON escapes, none, too long, not
 * NUL-terminated), module tables with gaps, overlaps, names that need escapes and names too long for the fast
 * path, small buffers and caches, without and with the build's names (tests/common/fake_resolver.h: escapes, a
 * name too long for the name cache, lines and functions not known, inlined code); a random stream of every event kind between runs of instructions (TSX state
 * included). Then the tool: `fwpt flow` against `fwpt flow --slow-print` (Zydis on and off) on saved directories,
 * a corrupted one, a raw FILE, and the firmware traces of FWPT_BENCH_FW (default $FWPT_BUILD/bench/fw, which
 * make bench records) when there are any. Then the progress line: on a terminal (a pty) it appears and is
 * cleared; with -q, or when stderr is not a terminal, or for a run under the second of delay, it does not. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode/flow.h"
#include "render/flow_list.h"
#include "render/flow_print.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/fake_resolver.h"
#include "tests/common/flow_listing.h"
#include "tests/common/fw_traces.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/rng.h"
#include "tests/common/mem_sink.h"
#include "tests/common/tool_run.h"

/* Where two outputs first differ, for the log. */
static int same(const struct mem *a, const struct mem *b, const char *what)
{
    if (a->n == b->n && !memcmp(a->p, b->p, a->n))
        return 1;
    size_t i = 0;
    while (i < a->n && i < b->n && a->p[i] == b->p[i])
        i++;
    size_t ls = i;
    while (ls && a->p[ls - 1] != '\n')
        ls--;
    fprintf(stderr, "flow_list: %s: the listings differ at byte %zu (fast %zu bytes, printer %zu):\n  fast:    %.*s\n"
                    "  printer: %.*s\n", what, i, a->n, b->n, (int)(a->n - ls < 200 ? a->n - ls : 200), a->p + ls,
            (int)(b->n - ls < 200 ? b->n - ls : 200), b->p + ls);
    return 0;
}

/* Texts of every shape the printer must take as they are: none, escapes, control bytes, empty, cut at the
 * buffer, no NUL at all, by mode. */
static unsigned long disasm_calls;
static size_t fake_disasm(void *ctx, uint64_t ip, uint8_t mode, char *o, size_t cap)
{
    (void)ctx;
    disasm_calls++;
    switch ((ip >> 1) % 8) {
    case 0:
        return 0;
    case 1:
        return (size_t)snprintf(o, cap, "mov \"q\", [rax\\%llx]", (unsigned long long)(ip & 0xfff));
    case 2:
        return (size_t)snprintf(o, cap, "a\tb\x01\x1f%c", 0x7f);
    case 3:
        memset(o, 'x', cap);
        o[cap - 1] = 0;
        return cap - 1;
    case 4:
        memset(o, '"', cap); /* not NUL-terminated: the printer cuts at cap - 1 */
        return cap;
    case 5:
        o[0] = 0;
        return 1;
    case 6:
        return (size_t)snprintf(o, cap, "m%u \xc3\xa9", mode);
    default:
        return (size_t)snprintf(o, cap, "nop");
    }
}

/* Short texts only, to count the hook's calls. */
static size_t short_disasm(void *ctx, uint64_t ip, uint8_t mode, char *o, size_t cap)
{
    (void)ctx, (void)mode;
    disasm_calls++;
    return (size_t)snprintf(o, cap, "op %llx", (unsigned long long)ip);
}

struct listing_cfg {
    enum fwpt_flow_format fmt;
    const struct fwpt_module *mv; /* NULL: no table */
    size_t nmods;
    fwpt_disasm_fn disasm;
    size_t nacache, bufcap;
    int names;     /* the fake resolver over the code */
    size_t nncache; /* name cache entries (0: every named line through the printer) */
};

static struct fwpt_list_name ncache_mem[1 << 13];
static struct fake_resolver fake;
static unsigned long resolves_fast; /* the resolver's calls during the last fast listing */
static int fake_short; /* no name too long for the name cache (those go to the printer, asked every time) */

static struct fwpt_list_asm acache_mem[1 << 12];
static struct fwpt_list_module pre_mem[16];

/* One listing of the trace both ways into a and b. */
static void list_both(const uint8_t *trace, size_t len, struct code_image *c, const struct listing_cfg *k, struct mem *a,
                      struct mem *b, unsigned long *calls_fast, unsigned long *errors)
{
    static struct fwpt_flow_block cache[4096];
    static struct fwpt_flow f;
    static struct fwpt_flow_lister l;
    struct fwpt_modules ma = {k->mv, k->nmods, 0}, mb = {k->mv, k->nmods, 0};
    struct fwpt_sink sa = {mem_write, a}, sb = {mem_write, b};
    char *buf = malloc(k->bufcap);
    a->n = b->n = 0;
    disasm_calls = 0;
    CHECK_EQ(fwpt_flow_init(&f, trace, len, code_image_read, c, cache, 4096), FWPT_OK);
    fwpt_flow_list_init(&l, &sa, k->fmt, k->mv ? &ma : NULL, k->mv ? pre_mem : NULL, k->disasm, NULL,
                          k->nacache ? acache_mem : NULL, k->nacache, buf, k->bufcap);
    struct fwpt_resolver res = fake_resolver_init(&fake, c->base, c->size);
    for (unsigned i = 0; fake_short && i < 64; i++)
        fake.names[i][40] = 0;
    if (k->names)
        fwpt_flow_list_names(&l, &res, k->nncache ? ncache_mem : NULL, k->nncache);
    flow_list_to_end(&f, &l, len);
    resolves_fast = fake.calls;
    if (calls_fast)
        *calls_fast = disasm_calls;

    CHECK_EQ(fwpt_flow_init(&f, trace, len, code_image_read, c, cache, 4096), FWPT_OK);
    struct fwpt_flow_printer pr = {&sb, k->fmt, k->mv ? &mb : NULL, k->disasm, NULL, 0, k->names ? &res : NULL};
    unsigned long e = flow_print_to_end(&f, &pr, len);
    if (errors)
        *errors += e;
    free(buf);
}

/* Module tables over a program at base with size bytes of code. */
static size_t modules_for(uint64_t base, size_t size, int which, struct fwpt_module *mv)
{
    static char long_text[90], long_json[70], very_long[220];
    memset(long_text, 'L', sizeof long_text - 1);   /* 89 bytes: over the text prefix's 76 */
    memset(long_json, '"', sizeof long_json - 1);   /* 69 quotes: 138 escaped, over the JSON prefix's room */
    memset(very_long, 'V', sizeof very_long - 1);
    switch (which) {
    case 0:
        mv[0] = (struct fwpt_module){"Prog", base, size, NULL, 0};
        return 1;
    case 1: /* unsorted, gaps, an empty one, escapes, long names, an overlap (the first match wins, and the last
             * one found is tried first: its history shows in the output) */
        mv[0] = (struct fwpt_module){"Mid\"q\\b\x01", base + size / 3, size / 6, NULL, 0};
        mv[1] = (struct fwpt_module){"Low_With_23_Characters_", base, size / 4, NULL, 0}; /* 27..29 with "+0x" and offset:
                                                                                    * around the text's width 28 */
        mv[2] = (struct fwpt_module){"Empty", base + 16, 0, NULL, 0};
        mv[3] = (struct fwpt_module){long_text, base + size / 2, size / 8, NULL, 0};
        mv[4] = (struct fwpt_module){long_json, base + size / 2 + size / 8, size / 8, NULL, 0};
        mv[5] = (struct fwpt_module){"Over", base + size / 2 - 64, size / 2 + 64, NULL, 0};
        mv[6] = (struct fwpt_module){very_long, base + size - size / 10, size / 10 + 1, NULL, 0};
        mv[7] = (struct fwpt_module){"", base + size / 4 + 8, 40, NULL, 0};
        return 8;
    default: /* a table with no entries */
        return 0;
    }
}

static unsigned long n_listings, n_lines, n_errors;

static void compare_trace(const uint8_t *trace, size_t len, struct code_image *c, const char *what, unsigned long *errs)
{
    struct mem a = {0}, b = {0};
    struct fwpt_module mv[8];
    for (int names = 0; names < 2; names++)
    for (int fmt = 0; fmt < 2; fmt++)
        for (int dis = 0; dis < 2; dis++)
            for (int mt = -1; mt < 3; mt++) {
                struct listing_cfg k = {fmt ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT, NULL, 0,
                                        dis ? fake_disasm : NULL, 0, 1 << 16, names, 0};
                if (mt >= 0) {
                    k.nmods = modules_for(c->base, c->size, mt, mv);
                    k.mv = mv;
                }
                /* small buffers and caches now and then: flushes mid-listing, cache entries evicted */
                k.bufcap = (mt & 1) ? 2 * FWPT_LIST_LINE_MAX : mt == 2 ? 100 : 1 << 16; /* 100: printer only */
                k.nacache = mt == 1 ? 8 : mt == 2 ? 0 : 1 << 12;
                k.nncache = mt == 1 ? 8 : mt == 0 && dis ? 0 : 1 << 10;
                unsigned long e = 0;
                list_both(trace, len, c, &k, &a, &b, NULL, &e);
                char label[200];
                snprintf(label, sizeof label, "%s, %s, %s, modules %d%s", what, fmt ? "jsonl" : "text",
                         dis ? "disasm" : "no disasm", mt, names ? ", names" : "");
                CHECK(same(&a, &b, label));
                CHECK(a.n > 0);
                if (names) /* the names are there (not a listing without them twice) */
                    CHECK(strstr(a.p, fmt ? "\"function\":\"Func_" : "Func_") != NULL);
                n_listings++;
                for (size_t i = 0; i < a.n; i++)
                    n_lines += a.p[i] == '\n';
                if (errs)
                    *errs = e;
            }
    free(a.p);
    free(b.p);
}

/* Generated programs, their traces and corrupted copies. */
TEST(generated_programs_listed_both_ways)
{
    n_listings = n_lines = n_errors = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct progen_cfg cfg = {.seed = seed, .nfuncs = 10, .max_insns = 4000, .features = PROGEN_F_ALL};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct code_image c = {p.base, p.code, p.code_size, 0};
        char what[64];
        snprintf(what, sizeof what, "program %llu", (unsigned long long)seed);
        compare_trace(p.trace, p.trace_size, &c, what, NULL);

        /* the hook is asked once per address when the cache holds them all: a program smaller than the cache
         * and inside one 8 KiB window (distinct slots) */
        if (p.code_size <= 4096 && !((p.base ^ (p.base + p.code_size - 1)) >> 13)) {
            struct mem a = {0}, b = {0};
            struct fwpt_module mv[1];
            struct listing_cfg k = {FWPT_FLOW_FMT_JSONL, mv, modules_for(c.base, c.size, 0, mv), short_disasm,
                                    1 << 12, 1 << 16, 0, 0};
            unsigned long calls;
            list_both(p.trace, p.trace_size, &c, &k, &a, &b, &calls, NULL);
            CHECK(same(&a, &b, "short disasm"));
            /* the addresses listed, counted once */
            static uint8_t seen[1 << 13];
            static struct fwpt_flow f;
            struct fwpt_flow_event ev;
            memset(seen, 0, sizeof seen);
            unsigned long distinct = 0, listed = 0;
            CHECK_EQ(fwpt_flow_init(&f, p.trace, p.trace_size, code_image_read, &c, NULL, 0), FWPT_OK);
            while (fwpt_flow_next(&f, &ev) == FWPT_OK)
                if (ev.kind == FWPT_FLOW_INSN && ev.ip - p.base < sizeof seen) {
                    listed++;
                    distinct += !seen[ev.ip - p.base];
                    seen[ev.ip - p.base] = 1;
                }
            CHECK_EQ(calls, distinct);
            CHECK(distinct * 2 < listed); /* the programs loop: a cache that did nothing would fail the line above */
            /* the same for the names: the resolver asked once per address (the fast listing's name cache) */
            k.names = 1;
            k.nncache = 1 << 13;
            fake_short = 1;
            list_both(p.trace, p.trace_size, &c, &k, &a, &b, NULL, NULL);
            fake_short = 0;
            CHECK(same(&a, &b, "names, cached"));
            CHECK_EQ(resolves_fast, distinct);
            free(a.p);
            free(b.p);
        } else {
            CHECK(!"program too large for the cache check");
        }

        uint64_t rng = 0x9e3779b97f4a7c15ull * seed;
        uint8_t *bad = malloc(p.trace_size + 64);
        unsigned long with_errors = 0;
        for (int k = 0; k < 6; k++) {
            size_t n = pkt_corrupt(&rng, p.trace, p.trace_size, bad);
            unsigned long e = 0;
            snprintf(what, sizeof what, "program %llu, corrupted copy %d", (unsigned long long)seed, k);
            compare_trace(bad, n, &c, what, &e);
            with_errors += e > 0;
            n_errors += e;
        }
        CHECK(with_errors > 0);
        free(bad);
        progen_free(&p);
    }
    printf("flow_list: %lu listings compared (%lu lines, %lu decode errors among them)\n",
           n_listings, n_lines, n_errors);
}

/* A random stream of every event kind, with random fields, between runs of instructions; TSX begin/commit/abort
 * and overflows change the "spec" marks. */
TEST(random_event_streams_listed_both_ways)
{
    struct fwpt_module mv[8];
    size_t nm = modules_for(0x10000, 0x4000, 1, mv);
    uint64_t rng = 12345;
    struct mem a = {0}, b = {0};
    static struct fwpt_flow_obuf_insn run[64];
    static struct fwpt_flow_lister l;
    static char buf[2 * FWPT_LIST_LINE_MAX];
    for (int round = 0; round < 16; round++) {
        enum fwpt_flow_format fmt = round & 1 ? FWPT_FLOW_FMT_JSONL : FWPT_FLOW_FMT_TEXT;
        fwpt_disasm_fn dis = round & 2 ? fake_disasm : NULL;
        struct fwpt_modules ma = {mv, nm, 0}, mb = {mv, nm, 0};
        struct fwpt_sink sa = {mem_write, &a}, sb = {mem_write, &b};
        a.n = b.n = 0;
        fwpt_flow_list_init(&l, &sa, fmt, &ma, pre_mem, dis, NULL, round & 4 ? acache_mem : NULL,
                              round & 4 ? 64 : 0, buf, sizeof buf);
        struct fwpt_resolver res = fake_resolver_init(&fake, 0x10000, 0x4400); /* round & 8: the build's names */
        if (round & 8)
            fwpt_flow_list_names(&l, &res, ncache_mem, round & 4 ? 16 : 1 << 10);
        struct fwpt_flow_printer pr = {&sb, fmt, &mb, dis, NULL, 0, round & 8 ? &res : NULL};
        unsigned kinds_seen = 0;
        for (int step = 0; step < 3000; step++) {
            uint64_t r = xorshift64(&rng);
            if (r % 3 == 0) {
                uint32_t n = 1 + (uint32_t)(r >> 8) % 64;
                for (uint32_t i = 0; i < n; i++) {
                    uint64_t q = xorshift64(&rng);
                    run[i] = (struct fwpt_flow_obuf_insn){
                        .ip = q & 1 ? 0x10000 + (q >> 8) % 0x4400 : q >> 3, .kind = FWPT_FLOW_INSN,
                        .size = (uint8_t)(q >> 40) % 17, .iclass = (uint8_t)(q >> 50) % 8,
                        .mode = (uint8_t[]){16, 32, 64, 0}[(q >> 60) & 3]};
                }
                fwpt_flow_list_insns(&l, run, n);
                for (uint32_t i = 0; i < n; i++) {
                    struct fwpt_flow_event e;
                    memset(&e, 0, sizeof e);
                    e.kind = FWPT_FLOW_INSN;
                    e.ip = run[i].ip;
                    e.size = run[i].size;
                    e.iclass = run[i].iclass;
                    e.mode = run[i].mode;
                    fwpt_flow_print_event(&pr, &e);
                }
                continue;
            }
            struct fwpt_flow_event e;
            memset(&e, 0, sizeof e);
            e.kind = (uint8_t)(r >> 8) % (FWPT_FLOW_KIND_COUNT + 1); /* one past the last: the printer's "?" */
            kinds_seen |= 1u << e.kind;
            uint64_t q = xorshift64(&rng), w = xorshift64(&rng);
            e.size = (uint8_t)q;
            e.iclass = (uint8_t)(q >> 8) % 8;
            e.mode = (uint8_t[]){16, 32, 64, 0}[(q >> 16) & 3];
            e.ip_valid = (q >> 18) & 1;
            e.async = (q >> 19) & 1;
            e.sync = (q >> 20) & 1;
            e.detail = (uint8_t)(q >> 21) % 17;
            e.status = (uint32_t)(q >> 30) % (FWPT_STATUS_COUNT + 2);
            e.ip = w & 1 ? 0x10000 + (w >> 8) % 0x4400 : w;
            e.to = w & 2 ? 0x10000 + (w >> 16) % 0x4400 : xorshift64(&rng);
            e.offset = xorshift64(&rng) >> (q >> 58);
            e.data = xorshift64(&rng);
            fwpt_flow_list_event(&l, &e);
            fwpt_flow_print_event(&pr, &e);
        }
        uint64_t cut = xorshift64(&rng);
        fwpt_flow_list_cut(&l, 0x10010, cut);
        fwpt_flow_print_cut(&pr, 0x10010, cut);
        fwpt_flow_list_flush(&l);
        char label[64];
        snprintf(label, sizeof label, "random events, round %d", round);
        CHECK(same(&a, &b, label));
        CHECK(!(round & 8) == !strstr(a.p, "Func_"));
        CHECK_EQ(kinds_seen, (2u << FWPT_FLOW_KIND_COUNT) - 1); /* every kind, and the one past */
    }
    free(a.p);
    free(b.p);
}

/* ---- the tool ---- */
static char tool[1024];

/* The fwpt tool's path into tool, found once; false (a failed check) when it is not there. */
static bool have_tool(void)
{
    static int found = -1;
    if (found < 0)
        found = tool_find(tool, sizeof tool);
    if (!found)
        CHECK(!"fwpt tool present");
    return found;
}

/* A new temporary directory into dir (a failed check when none can be made); remove_dir removes it. */
static bool make_dir(char *dir)
{
    if (mkdtemp(dir))
        return true;
    CHECK(!"temporary directory made");
    return false;
}

static void remove_dir(const char *dir)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        CHECK(!"cleanup");
}

/* `fwpt flow ARGS` and `fwpt flow ARGS --slow-print`: the same stdout, stderr and exit status. */
static void tool_same(const char *args, const char *what)
{
    char cmd[6000];
    int st[2];
    struct mem o[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "timeout 60 %s flow %s%s 2>&1", tool, args, k ? " --slow-print" : "");
        FILE *in = popen(cmd, "r");
        char chunk[65536];
        size_t r;
        while (in && (r = fread(chunk, 1, sizeof chunk, in)) > 0)
            mem_write(&o[k], chunk, r);
        st[k] = in ? pclose(in) : -1;
    }
    char label[6000];
    snprintf(label, sizeof label, "fwpt flow %s (%s)", args, what);
    CHECK(o[0].n > 1000 && same(&o[0], &o[1], label));
    CHECK(WIFEXITED(st[0]) && WEXITSTATUS(st[0]) <= 1 && st[0] == st[1]);
    free(o[0].p);
    free(o[1].p);
}

static void tool_all(const char *target, const char *what)
{
    static const char *const fmts[] = {"", " --no-disasm", " --format jsonl", " --format jsonl --no-disasm"};
    for (int i = 0; i < 4; i++) {
        char args[4400];
        snprintf(args, sizeof args, "%s%s", target, fmts[i]);
        tool_same(args, what);
    }
}

/* a generated program as a directory and as a raw trace with --image, and a corrupted copy: fwpt flow and
 * fwpt flow --slow-print the same */
TEST(tool_output_same_as_slow_print)
{
    char dir[] = "/tmp/fwpt-list-XXXXXX";
    if (!have_tool() || !make_dir(dir))
        return;
    struct progen_cfg cfg = {.seed = 77, .nfuncs = 12, .max_insns = 20000, .features = PROGEN_F_ALL};
    struct progen p;
    if (!progen_build_checked(&cfg, &p)) {
        remove_dir(dir);
        return;
    }
    char path[1200], target[2600];
    FILE *f = save_program_open(dir, &p);
    /* two names over one image (the second overlaps the first), one with JSON escapes */
    fprintf(f, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\"},"
               "{\"name\":\"Q\\\"uote\\\\d\",\"base\":\"0x%llx\",\"size\":\"0x%zx\"}]}\n",
            (unsigned long long)p.base, p.code_size / 2, (unsigned long long)p.base,
            (unsigned long long)(p.base + p.code_size / 3), p.code_size);
    fclose(f);
    tool_all(dir, "generated program");
    snprintf(target, sizeof target, "%s/trace.pt --image %s/img-%llx.bin@%llx", dir, dir, (unsigned long long)p.base,
             (unsigned long long)p.base);
    tool_all(target, "raw trace with --image");

    /* a corrupted copy: errors in line, the note on stderr, exit status 1 */
    uint64_t rng = 99;
    uint8_t *bad = malloc(p.trace_size + 64);
    char cmd[4096], out[4096];
    int found = 0;
    for (int k = 0; k < 20 && !found; k++) {
        size_t n = pkt_corrupt(&rng, p.trace, p.trace_size, bad);
        snprintf(path, sizeof path, "%s/trace.pt", dir);
        write_file(path, bad, n);
        snprintf(cmd, sizeof cmd, "%s flow %s --format jsonl --no-disasm 2>&1 >/dev/null", tool, dir);
        FILE *in = popen(cmd, "r");
        size_t r = fread(out, 1, sizeof out - 1, in);
        out[r] = 0;
        found = pclose(in) != 0 && strstr(out, "decode error");
    }
    CHECK(found);
    tool_all(dir, "corrupted trace");
    /* --quiet: the same exit status, no note */
    snprintf(cmd, sizeof cmd, "%s flow %s --format jsonl --no-disasm -q 2>&1 >/dev/null", tool, dir);
    FILE *in = popen(cmd, "r");
    size_t r = fread(out, 1, sizeof out - 1, in);
    CHECK_EQ(r, 0);
    int st = pclose(in);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    free(bad);
    progen_free(&p);
    remove_dir(dir);
}

/* The firmware traces make bench recorded, when there are any. */
TEST(firmware_traces_listed_both_ways)
{
    if (!have_tool())
        return;
    struct fw_trace *t;
    int n = fw_traces("flow_list", &t);
    CHECK(n >= 0); /* FWPT_BENCH_FW set but unreadable is a failure, never a silent pass */
    for (int i = 0; i < n; i++)
        tool_all(t[i].dir, t[i].name);
    if (n > 0)
        printf("flow_list: the firmware traces of %s: %d, listed both ways\n", getenv("FWPT_BENCH_FW"), n);
    free(t);
}

/* ---- progress ---- */
/* the progress line of fwpt flow on a terminal, over a clean trace (a generated program with PSBs) */
TEST(progress_line_on_terminal)
{
    static char out[1 << 16];
    char args[2048], dir[] = "/tmp/fwpt-list-XXXXXX";
    int st;
    if (!have_tool() || !make_dir(dir))
        return;
    struct progen_cfg cfg = {.seed = 5, .nfuncs = 12, .max_insns = 200000, .features = PROGEN_F_PSB};
    struct progen p;
    if (!progen_build_checked(&cfg, &p)) {
        remove_dir(dir);
        return;
    }
    save_program(dir, &p);
    /* no delay: the line shows at the first look at the clock, and is cleared at the end */
    snprintf(args, sizeof args, "flow %s --format jsonl --no-disasm", dir);
    size_t n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(n > 20 && !strncmp(out, "\rfwpt flow: ", 12));
    CHECK(strstr(out, " trace bytes (") && strstr(out, " instructions, ") && strstr(out, "/s"));
    /* cleared: "\r", as many spaces as the longest line, "\r", and nothing after */
    const char *last = n >= 2 ? out + n - 1 : out;
    CHECK(n >= 2 && *last == '\r');
    const char *sp = last;
    while (sp > out && sp[-1] == ' ')
        sp--;
    CHECK(sp > out && sp[-1] == '\r' && last - sp >= 30);
    CHECK(!strchr(out, '\n')); /* one line, never a new one */
    /* the same with --calls (a decode, no listing) */
    snprintf(args, sizeof args, "flow %s --calls", dir);
    n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK(n > 20 && !strncmp(out, "\rfwpt flow: ", 12) && out[n - 1] == '\r');
    /* --quiet and -q: nothing on the terminal */
    snprintf(args, sizeof args, "flow %s --format jsonl --no-disasm --quiet", dir);
    n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK_EQ(n, 0);
    snprintf(args, sizeof args, "flow %s -q --calls", dir);
    n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK_EQ(n, 0);
    /* through a pipe (a pager's or grep's output on the same terminal): no line */
    snprintf(args, sizeof args, "flow %s --format jsonl --no-disasm | cat >/dev/null", dir);
    n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK_EQ(n, 0);
    /* the same decode for --calls through a pipe: the line (nothing goes to stdout before the end) */
    snprintf(args, sizeof args, "flow %s --calls | cat >/dev/null", dir);
    n = run_on_pty(tool, args, 1, "0", out, sizeof out, &st);
    CHECK(n > 20 && !strncmp(out, "\rfwpt flow: ", 12));
    /* a listing to the terminal itself shows its own progress: no line */
    snprintf(args, sizeof args, "flow %s --format jsonl --no-disasm", dir);
    n = run_on_pty(tool, args, 0, "0", out, sizeof out, &st);
    CHECK(n > 1000 && !strstr(out, "fwpt flow: "));
    /* the default second of delay: a run this short shows nothing */
    n = run_on_pty(tool, args, 1, NULL, out, sizeof out, &st);
    CHECK_EQ(n, 0);
    /* stderr not a terminal: nothing, delay or not */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "FWPT_PROGRESS_DELAY_MS=0 %s flow %s --format jsonl --no-disasm 2>&1 >/dev/null", tool,
             dir);
    FILE *in = popen(cmd, "r");
    CHECK_EQ(fread(out, 1, sizeof out, in), 0);
    CHECK_EQ(pclose(in), 0);
    progen_free(&p);
    remove_dir(dir);
}

TEST_MAIN("flow_list")
