/* topa: plan choice, refusals naming the option, entry encoding, exact table contents. */
#include "tests/check.h"
#include "tests/common/tool_run.h"
#include "tests/common/topa_fixture.h"
#include "topa/plan.h"
#include "topa/table.h"

#define PHYS 0x40000000ull

static struct fwpt_plan P;
static struct fwpt_plan_error E;

static enum fwpt_status mk(enum topa_caps_kind kind, uint64_t total, uint64_t region, enum fwpt_plan_mode mode,
                           bool sr, unsigned epr)
{
    struct fwpt_caps c;
    topa_caps(&c, kind, 39);
    struct fwpt_plan_options o = {total, region, mode, sr, false, epr};
    return fwpt_plan_make(&c, &o, &P, &E);
}

/* multi-entry ToPA, 1M in 64K regions, stop: the plan's every field */
TEST(multi_entry_1m_in_64k_regions)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 1 << 20, 64 << 10, FWPT_PLAN_STOP, false, 0), FWPT_OK);
    CHECK_EQ(P.scheme, FWPT_SCHEME_TOPA_MULTI);
    CHECK_EQ(P.region_count, 16);
    CHECK_EQ(P.region_size_enc, 4);
    CHECK_EQ(P.table_count, 1);
    CHECK_EQ(P.entries_per_table, 512);
    CHECK(P.stop_on_last);
    CHECK_EQ(P.ctl_bits, RTIT_CTL_TOPA);
    CHECK_EQ(P.regions.count, 16);
    CHECK_EQ(P.regions.bytes, 64 << 10);
    CHECK_EQ(P.regions.align, 64 << 10);
    CHECK_EQ(P.tables.count, 1);
    CHECK_EQ(P.tables.bytes, 4096);
    CHECK_EQ(P.tables.align, 4096);
    CHECK_EQ(P.n_warnings, 0);
}

/* defaults: 2M in 64K regions */
TEST(defaults_2m_in_64k_regions)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 0, 0, FWPT_PLAN_RING, false, 0), FWPT_OK);
    CHECK_EQ(P.total_size, 2 << 20);
    CHECK_EQ(P.region_count, 32);
    CHECK(!P.stop_on_last);
}

/* chaining: 4 entries per table = 3 regions + END */
TEST(chaining_4_entries_per_table)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 10 * 4096, 4096, FWPT_PLAN_STOP, false, 4), FWPT_OK);
    CHECK_EQ(P.table_count, 4);
}

/* 600 regions in 4K tables: 511 per table */
TEST(regions_600_in_4k_tables_511_each)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 600 * 4096ull, 4096, FWPT_PLAN_RING, false, 0), FWPT_OK);
    CHECK_EQ(P.table_count, 2);
}

/* first generation: one region */
TEST(first_generation_one_region)
{
    CHECK_EQ(mk(TOPA_CAPS_SINGLE_ENTRY, 1 << 20, 0, FWPT_PLAN_STOP, false, 0), FWPT_OK);
    CHECK_EQ(P.scheme, FWPT_SCHEME_TOPA_SINGLE);
    CHECK_EQ(P.region_count, 1);
    CHECK_EQ(P.region_size_enc, 8);
    CHECK_EQ(P.entries_per_table, 2);
}

/* single range: only scheme, or asked for; always a ring; errata warning above 4K */
TEST(single_range_only_or_asked_always_ring)
{
    CHECK_EQ(mk(TOPA_CAPS_SINGLE_RANGE, 4096, 0, FWPT_PLAN_RING, false, 0), FWPT_OK);
    CHECK_EQ(P.scheme, FWPT_SCHEME_SINGLE_RANGE);
    CHECK_EQ(P.n_warnings, 0);
    CHECK_EQ(P.ctl_bits, 0);
    CHECK_EQ(P.tables.count, 0);
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 1 << 16, 0, FWPT_PLAN_STOP, true, 0), FWPT_OK);
    CHECK_EQ(P.scheme, FWPT_SCHEME_SINGLE_RANGE);
    CHECK_EQ(P.mode, FWPT_PLAN_RING);
    CHECK_EQ(P.n_warnings, 2);
    CHECK(strstr(P.warnings[0], "no STOP") != NULL);
    CHECK(strstr(P.warnings[1], "TGL052/ADL037/RPL017") != NULL);
}

/* The refusal as the app prints it (host_options: as fwpt plan does). */
static const char *said(bool host_options)
{
    static char buf[300];
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    fwpt_plan_error_print(&E, host_options, &s);
    buf[bs.len] = 0;
    return buf;
}

/* each names the setting the user gave, with its value, and the rule (option NULL: no setting is at fault) */
TEST(refusals_name_setting_value_rule)
{
    struct {
        enum topa_caps_kind kind;
        uint64_t total, region;
        bool sr;
        unsigned epr;
        const char *option, *says;
    } bad[] = {
        {TOPA_CAPS_NONE, 0, 0, false, 0, NULL, "Intel PT is not usable on this processor"},
        {TOPA_CAPS_MULTI, 1 << 20, 3000, false, 0, "region",
         "region=3000: must be a power of two from 4K to 128M (ToPA Size encodings 0..15)"},
        {TOPA_CAPS_MULTI, 1 << 20, 256u << 20, false, 0, "region",
         "region=256M: must be a power of two from 4K to 128M (ToPA Size encodings 0..15)"},
        {TOPA_CAPS_MULTI, 5000, 4096, false, 0, "size", "size=5000: must be a non-zero multiple of the region size"},
        {TOPA_CAPS_MULTI, 4096, 8192, false, 0, "size", "size=4K: must be a non-zero multiple of the region size"},
        {TOPA_CAPS_MULTI, 1ull << 30, 4096, false, 0, "size",
         "size=1024M: more than 65536 regions: use a larger region size"},
        /* no region= given: the region size derived from the total is not blamed, the total is */
        {TOPA_CAPS_MULTI, 3, 0, false, 0, "size",
         "size=3: must be a power of two from 4K to 32K, or a multiple of 64K (the default region size)"},
        {TOPA_CAPS_MULTI, 6 << 10, 0, false, 0, "size",
         "size=6K: must be a power of two from 4K to 32K, or a multiple of 64K (the default region size)"},
        {TOPA_CAPS_MULTI, 100 << 10, 0, false, 0, "size", "size=100K: must be a multiple of 64K (the default region size)"},
        /* no size= given: the region must divide the default total */
        {TOPA_CAPS_MULTI, 0, 4u << 20, false, 0, "region", "region=4M: must divide the total size (2M by default)"},
        {TOPA_CAPS_MULTI, 1 << 20, 4096, false, 1, "entries-per-table",
         "entries-per-table=1: must be 2..512 (one END entry and at least one region in a 4K table)"},
        {TOPA_CAPS_MULTI, 1 << 20, 4096, false, 513, "entries-per-table",
         "entries-per-table=513: must be 2..512 (one END entry and at least one region in a 4K table)"},
        {TOPA_CAPS_SINGLE_ENTRY, 3 << 20, 0, false, 0, "size",
         "size=3M: single-entry ToPA (CPUID.(14H,0):ECX[1]=0) has one region: a power of two from 4K to 128M"},
        {TOPA_CAPS_SINGLE_ENTRY, 1 << 20, 4096, false, 0, "region",
         "region=4K: single-entry ToPA has exactly one region: it must equal the total size"},
        {TOPA_CAPS_SINGLE_ENTRY, 1 << 20, 0, true, 0, "single-range",
         "single-range: CPUID.(14H,0):ECX[2] (single-range output) is clear"},
        {TOPA_CAPS_SINGLE_RANGE, 3 << 12, 0, false, 0, "size",
         "size=12K: single-range output needs a power of two from 4K to 2G (OutputMask is contiguous low ones)"},
        {TOPA_CAPS_SINGLE_RANGE, 2048, 0, false, 0, "size",
         "size=2K: single-range output needs a power of two from 4K to 2G (OutputMask is contiguous low ones)"},
        {TOPA_CAPS_SINGLE_RANGE, 8192, 4096, false, 0, "region",
         "region=4K: single-range output is one range: the region must equal the total size"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(mk(bad[i].kind, bad[i].total, bad[i].region, FWPT_PLAN_STOP, bad[i].sr, bad[i].epr), FWPT_E_PLAN);
        if (bad[i].option)
            CHECK_STR(E.option, bad[i].option);
        else
            CHECK(E.option == NULL);
        CHECK_STR(said(false), bad[i].says);
    }
}

/* the host tool's spelling of the same */
TEST(refusals_host_tool_spelling)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 6 << 10, 0, FWPT_PLAN_STOP, false, 0), FWPT_E_PLAN);
    CHECK_STR(said(true), "--size 6K: must be a power of two from 4K to 32K, or a multiple of 64K (the default region size)");
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 1 << 20, 4096, FWPT_PLAN_STOP, false, 1), FWPT_E_PLAN);
    CHECK_STR(said(true), "--entries-per-table 1: must be 2..512 (one END entry and at least one region in a 4K table)");
    CHECK_EQ(mk(TOPA_CAPS_NONE, 0, 0, FWPT_PLAN_STOP, false, 0), FWPT_E_PLAN);
    CHECK_STR(said(true), "Intel PT is not usable on this processor");
}

/* the sizes that fit are planned */
TEST(sizes_that_fit_planned)
{
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 16 << 10, 0, FWPT_PLAN_STOP, false, 0), FWPT_OK);
    CHECK_EQ(P.region_count, 1);
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 192 << 10, 0, FWPT_PLAN_STOP, false, 0), FWPT_OK);
    CHECK_EQ(P.region_count, 3);
}

/* --pmi with single-range output (no INT entry), and PT with no output scheme at all */
TEST(pmi_on_single_range_and_no_scheme_refused)
{
    struct fwpt_caps c;
    topa_caps(&c, TOPA_CAPS_SINGLE_RANGE, 39);
    struct fwpt_plan_options o = {8192, 0, FWPT_PLAN_RING, false, true, 0};
    CHECK_EQ(fwpt_plan_make(&c, &o, &P, &E), FWPT_E_PLAN);
    CHECK_STR(E.option, "pmi");
    CHECK_STR(said(true), "--pmi: single-range output has no INT entry");
    topa_caps(&c, TOPA_CAPS_NONE, 39);
    c.pt_supported = true; /* PT but no output scheme at all (trace transport is never used) */
    c.output_subsys = true;
    CHECK_EQ(fwpt_plan_make(&c, &o, &P, &E), FWPT_E_PLAN);
    CHECK(E.option == NULL);
    CHECK_STR(said(false), "neither ToPA nor single-range output is enumerated (trace transport is not used)");
}

/* the ToPA Size encodings 0..15: 4K << e, and sizes that have none */
TEST(topa_size_encodings)
{
    for (unsigned e = 0; e <= 15; e++) {
        CHECK_EQ(fwpt_topa_size_bytes(e), 4096ull << e);
        CHECK_EQ(fwpt_topa_size_enc(4096ull << e), e);
    }
    CHECK_EQ(fwpt_topa_size_enc(2048), -1);
    CHECK_EQ(fwpt_topa_size_enc(256ull << 20), -1);
    CHECK_EQ(fwpt_topa_size_enc(12288), -1);
}

/* a ToPA entry encoded and decoded (reserved bits kept) */
TEST(topa_entry_encode_decode)
{
    struct fwpt_topa_entry e = {0x123456000ull, 9, true, true, false, 0}, d;
    /* SDM Figure "Layout of ToPA Table Entry": END 0, INT 2, STOP 4, Size 9:6, base 12+ */
    CHECK_EQ(fwpt_topa_encode(&e), 0x123456000ull | (9u << 6) | 0x10 | 0x4);
    fwpt_topa_decode(0x123456000ull | (9u << 6) | 0x10 | 0x4 | 0x2 | 0x800, &d);
    CHECK_EQ(d.base, 0x123456000ull);
    CHECK_EQ(d.size_enc, 9);
    CHECK(d.stop && d.intr && !d.end);
    CHECK_EQ(d.reserved, 0x802);
    fwpt_topa_decode(0x5000 | 1, &d);
    CHECK(d.end && !d.stop && !d.intr);
    CHECK_EQ(d.base, 0x5000);
}

/* IA32_RTIT_OUTPUT_MASK_PTRS: table index and output offset in and out */
TEST(mask_ptrs_index_and_offset)
{
    CHECK_EQ(fwpt_mask_ptrs_make(3, 0x20), (0x20ull << 32) | (3u << 7) | 0x7f);
    CHECK_EQ(fwpt_mask_ptrs_index((0x20ull << 32) | (3u << 7) | 0x7f), 3);
    CHECK_EQ(fwpt_mask_ptrs_offset((0x20ull << 32) | (3u << 7) | 0x7f), 0x20);
}

/* how many tables n regions need with k entries per table (one is the END) */
TEST(tables_needed)
{
    CHECK_EQ(fwpt_topa_tables_needed(1, 2), 1);
    CHECK_EQ(fwpt_topa_tables_needed(3, 2), 3);
    CHECK_EQ(fwpt_topa_tables_needed(511, 512), 1);
    CHECK_EQ(fwpt_topa_tables_needed(512, 512), 2);
}

static uint64_t ent(struct topa_arena *ar, uint64_t tab, unsigned i)
{
    uint64_t v = 0;
    fwpt_physmem_read64(&ar->mem, tab + 8ull * i, &v);
    return v;
}

static struct topa_arena a;
static void arena_free(void)
{
    topa_arena_free(&a);
}

/* The arena the table cases build in (made on first use, freed at exit), the three table pages t and five 8K
 * regions r of the tables cases. */
static const uint64_t t[3] = {PHYS, PHYS + 0x1000, PHYS + 0x2000};
static void tables_setup(uint64_t r[5])
{
    static int made;
    if (!made) {
        topa_arena_init(&a, PHYS, 1 << 20);
        atexit(arena_free);
        made = 1;
    }
    for (unsigned i = 0; i < 5; i++)
        r[i] = PHYS + 0x10000 + i * 0x2000ull;
}

/* 5 regions, 3 entries per table: tables of 2 regions + END; STOP on the last */
TEST(tables_chained_exact_contents)
{
    uint64_t r[5];
    tables_setup(r);
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 5 * 8192, 8192, FWPT_PLAN_STOP, false, 3), FWPT_OK);
    CHECK_EQ(P.table_count, 3);
    memset(a.buf, 0xff, 0x3000); /* garbage: the build zeroes every table page first */
    struct fwpt_output_regs regs;
    CHECK_EQ(fwpt_plan_apply(&P, &a.mem, r, t, &regs), FWPT_OK);
    CHECK_EQ(regs.output_base, PHYS);
    CHECK_EQ(regs.output_mask_ptrs, 0x7f);
    CHECK_EQ(regs.ctl_bits, RTIT_CTL_TOPA);
    uint64_t sz = 1u << 6;
    CHECK_EQ(ent(&a, t[0], 0), r[0] | sz);
    CHECK_EQ(ent(&a, t[0], 1), r[1] | sz);
    CHECK_EQ(ent(&a, t[0], 2), t[1] | TOPA_ENTRY_END);
    CHECK_EQ(ent(&a, t[1], 0), r[2] | sz);
    CHECK_EQ(ent(&a, t[1], 1), r[3] | sz);
    CHECK_EQ(ent(&a, t[1], 2), t[2] | TOPA_ENTRY_END);
    CHECK_EQ(ent(&a, t[2], 0), r[4] | sz | TOPA_ENTRY_STOP);
    CHECK_EQ(ent(&a, t[2], 1), t[0] | TOPA_ENTRY_END);
    CHECK_EQ(ent(&a, t[2], 2), 0);
    CHECK_EQ(ent(&a, t[0], 3), 0);
    CHECK_EQ(ent(&a, t[2], 511), 0);
}

/* misaligned region refused */
TEST(misaligned_region_refused)
{
    uint64_t r[5];
    struct fwpt_output_regs regs;
    tables_setup(r);
    if (mk(TOPA_CAPS_MULTI, 5 * 8192, 8192, FWPT_PLAN_STOP, false, 3) != FWPT_OK) { /* checked in the case above */
        CHECK(!"the plan of tables_chained_exact_contents");
        return;
    }
    r[2] += 0x1000;
    CHECK_EQ(fwpt_plan_apply(&P, &a.mem, r, t, &regs), FWPT_E_INVAL);
}

/* single entry: region, END -> own base */
TEST(single_entry_table_end_to_own_base)
{
    uint64_t r[5];
    struct fwpt_output_regs regs;
    tables_setup(r);
    CHECK_EQ(mk(TOPA_CAPS_SINGLE_ENTRY, 64 << 10, 0, FWPT_PLAN_RING, false, 0), FWPT_OK);
    uint64_t r1 = PHYS + 0x10000;
    CHECK_EQ(fwpt_plan_apply(&P, &a.mem, &r1, t, &regs), FWPT_OK);
    CHECK_EQ(ent(&a, t[0], 0), r1 | (4u << 6));
    CHECK_EQ(ent(&a, t[0], 1), t[0] | TOPA_ENTRY_END);
}

/* single range: OUTPUT_BASE = region, mask = size - 1 */
TEST(single_range_base_and_mask)
{
    uint64_t r[5];
    struct fwpt_output_regs regs;
    tables_setup(r);
    uint64_t r1 = PHYS + 0x10000;
    CHECK_EQ(mk(TOPA_CAPS_SINGLE_RANGE, 64 << 10, 0, FWPT_PLAN_RING, false, 0), FWPT_OK);
    CHECK_EQ(fwpt_plan_apply(&P, &a.mem, &r1, NULL, &regs), FWPT_OK);
    CHECK_EQ(regs.output_base, r1);
    CHECK_EQ(regs.output_mask_ptrs, 0xffff);
    CHECK_EQ(regs.ctl_bits, 0);
}

/* the printers say what the plan is */
TEST(printers_say_the_plan)
{
    uint64_t r[5];
    struct fwpt_output_regs regs;
    tables_setup(r);
    char buf[4096];
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    CHECK_EQ(mk(TOPA_CAPS_MULTI, 5 * 8192, 8192, FWPT_PLAN_STOP, false, 3), FWPT_OK);
    fwpt_plan_print(&P, &s);
    buf[bs.len] = 0;
    CHECK(strstr(buf, "scheme:      ToPA (multiple entries)\n") != NULL);
    CHECK(strstr(buf, "regions:     5 x 8K (Size encoding 1), STOP on the last\n") != NULL);
    CHECK(strstr(buf, "allocate:    5 x 8K aligned to 8K (output region), 3 x 4K aligned to 4K (ToPA table)\n") != NULL);
    CHECK_EQ(fwpt_plan_apply(&P, &a.mem, r, t, &regs), FWPT_OK);
    s = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    fwpt_topa_print_tables(&a.mem, PHYS, 64, &s);
    buf[bs.len] = 0;
    CHECK(strstr(buf, "  table 0x40002000 [0] 0000000040018050  region 0x40018000 size 8K STOP\n") != NULL);
    CHECK(strstr(buf, "  table 0x40002000 [1] 0000000040000001  END -> 0x40000000\n") != NULL);
}

/* `fwpt plan` (the host tool from this build: $FWPT_BUILD/fwpt). */
static int run_tool(const char *args, char *out, size_t cap) { return tool_run("plan", args, out, cap); }

static char out[16384]; /* what the last run printed */

/* a plan shown with its tables and the validation: a profile, CPUID registers, single-range */
TEST(plan_tool_tables_and_validation)
{
    CHECK_EQ(run_tool("--profile broadwell --size 64K --mode ring", out, sizeof out), 0);
    CHECK(strstr(out, "scheme:      ToPA (single output region)\n") != NULL);
    CHECK(strstr(out, "  table 0x100000000 [0] 0000000100010100  region 0x100010000 size 64K\n") != NULL);
    CHECK(strstr(out, "  table 0x100000000 [1] 0000000100000001  END -> 0x100000000\n") != NULL);
    CHECK(strstr(out, "validation: accepted (0 violations)\n") != NULL);
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --leaf14-0 1,0,7,0 --maxphyaddr 39 --size 16K --region 4K "
                      "--entries-per-table 2",
                      out, sizeof out), 0);
    CHECK(strstr(out, "regions:     4 x 4K (Size encoding 0), STOP on the last\n") != NULL);
    CHECK(strstr(out, "  table 0x100003000 [0] 0000000100007010  region 0x100007000 size 4K STOP\n") != NULL);
    CHECK(strstr(out, "  table 0x100003000 [1] 0000000100000001  END -> 0x100000000\n") != NULL);
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --leaf14-0 1,0,7,0 --single-range --size 8K", out, sizeof out), 0);
    CHECK(strstr(out, "IA32_RTIT_OUTPUT_MASK_PTRS: 0x0000000000001fff\n") != NULL);
    CHECK(strstr(out, "TGL052/ADL037/RPL017") != NULL);
}

/* refused plans: exit 1, the option as the user spelt it, the rule */
TEST(plan_tool_refusals)
{
    CHECK_EQ(run_tool("--profile broadwell --size 3M", out, sizeof out), 1);
    CHECK_STR(out, "plan refused: --size 3M: single-entry ToPA (CPUID.(14H,0):ECX[1]=0) has one region: a power of two "
                   "from 4K to 128M\n");
    /* the user's setting, not the region size derived from it */
    CHECK_EQ(run_tool("--profile skylake --size 6K", out, sizeof out), 1);
    CHECK_STR(out, "plan refused: --size 6K: must be a power of two from 4K to 32K, or a multiple of 64K (the default "
                   "region size)\n");
    /* no Intel PT: what is missing, not an option */
    CHECK_EQ(run_tool("--leaf7-ebx 0 --leaf14-0 1,0,7,0", out, sizeof out), 1);
    CHECK_STR(out, "plan refused: Intel PT is not usable on this processor: CPUID.(EAX=07H,ECX=0):EBX[25] (Intel PT) "
                   "is clear (the processor described); describe another with --profile NAME or its CPUID registers "
                   "(fwpt plan --help)\n");
    CHECK_EQ(run_tool("--mode sideways", out, sizeof out), 2);
}

/* the CPU is described with fwpt caps's register options and rules (tools/cpuid_args.c) */
TEST(plan_tool_cpuid_register_options)
{
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --leaf14-0 1,0,7,0 --max-leaf d", out, sizeof out), 2);
    CHECK_STR(out, "fwpt plan: --leaf14-0: given but --max-leaf is below 14H (leaf 14H would not be read)\n");
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --leaf14-0 n/a", out, sizeof out), 1);
    CHECK_STR(out, "plan refused: Intel PT is not usable on this processor: the highest basic CPUID leaf is below 14H "
                   "(the processor described); describe another with --profile NAME or its CPUID registers "
                   "(fwpt plan --help)\n");
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --leaf14-0 1,0,7,0 --leaf14-1 absent --family-model-stepping 6/140/1 "
                      "--leaf1a-eax n/a --size 8K",
                      out, sizeof out), 0);
    CHECK(strstr(out, "validation: accepted (0 violations)\n") != NULL);
    CHECK_EQ(run_tool("--leaf7-ebx 0x02000000 --family-model-stepping 6/94", out, sizeof out), 2);
    CHECK_STR(out, "fwpt plan: --family-model-stepping: expected FAMILY/MODEL/STEPPING in decimal, e.g. 6/94/3 "
                   "('6/94')\n");
}

TEST_MAIN("test_topa_plan")
