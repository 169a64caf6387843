/* topa: every output scheme, many layouts and stream lengths — write through the model (behind
 * the CPU interface), read back, get exactly the stream (or, wrapped, exactly its newest part). */
#include "tests/check.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/plan.h"
#include "topa/readback.h"
#include "topa/validate.h"

#define ARENA_PHYS 0x40000000ull
#define ARENA_SIZE (8ull << 20)

struct run {
    struct topa_arena arena;
    struct fwpt_caps caps;
    struct fwpt_plan plan;
    struct fwpt_output_regs regs;
    struct fwpt_model model;
    struct fwpt_cpu cpu;
    uint64_t regions[4096], tables[512];
};

static int setup(struct run *r, enum topa_caps_kind kind, const struct fwpt_plan_options *opt)
{
    topa_caps(&r->caps, kind, 39);
    topa_arena_init(&r->arena, ARENA_PHYS, ARENA_SIZE);
    struct fwpt_plan_error err;
    if (fwpt_plan_make(&r->caps, opt, &r->plan, &err) != FWPT_OK) {
        fprintf(stderr, "plan refused: %s: %s\n", err.option, err.why);
        return -1;
    }
    /* tables first, then regions, each at the plan's alignment */
    for (unsigned i = 0; i < r->plan.tables.count; i++)
        r->tables[i] = topa_arena_alloc(&r->arena, r->plan.tables.bytes, r->plan.tables.align);
    for (unsigned i = 0; i < r->plan.regions.count; i++)
        r->regions[i] = topa_arena_alloc(&r->arena, r->plan.regions.bytes, r->plan.regions.align);
    if (r->plan.region_count && !r->regions[r->plan.region_count - 1])
        return -1;
    if (fwpt_plan_apply(&r->plan, &r->arena.mem, r->regions, r->tables, &r->regs) != FWPT_OK)
        return -1;
    fwpt_model_init(&r->model, &r->caps, &r->arena.mem);
    r->cpu = fwpt_model_cpu(&r->model);
    return 0;
}

static void teardown(struct run *r) { topa_arena_free(&r->arena); }

static enum fwpt_status program(struct run *r)
{
    enum fwpt_status st;
    if ((st = fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_STATUS, 0)) ||
        (st = fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_OUTPUT_BASE, r->regs.output_base)) ||
        (st = fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, r->regs.output_mask_ptrs)) ||
        (st = fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_CTL, r->regs.ctl_bits | RTIT_CTL_BRANCHEN | RTIT_CTL_OS)))
        return st;
    return fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_CTL, r->regs.ctl_bits | RTIT_CTL_BRANCHEN | RTIT_CTL_OS | RTIT_CTL_TRACEEN);
}

static uint8_t *make_stream(uint64_t len, uint64_t seed, bool no_zero)
{
    uint8_t *s = malloc(len + 1);
    for (uint64_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)topa_rand(&seed);
        s[i] = no_zero && !b ? 0x55 : b;
    }
    return s;
}

static unsigned cases;

/* One run: scheme, options, stream length. */
static void one(enum topa_caps_kind kind, const struct fwpt_plan_options *opt, uint64_t len, uint64_t seed)
{
    struct run *r = calloc(1, sizeof *r);
    if (setup(r, kind, opt)) {
        CHECK(!"setup");
        free(r);
        return;
    }
    cases++;
    uint64_t total = r->plan.total_size;
    bool ring = r->plan.mode == FWPT_PLAN_RING;

    struct fwpt_violation v[8];
    struct fwpt_validate_out vo = {v, 8, 0, 0, false, {0}};
    struct fwpt_validate_in vi = {&r->caps, &r->arena.mem, r->regs.ctl_bits, r->regs.output_base,
                                  r->regs.output_mask_ptrs, 0, NULL, 0};
    CHECK_EQ(fwpt_validate(&vi, &vo), FWPT_OK);
    CHECK_EQ(vo.errors, 0);

    CHECK_EQ(program(r), FWPT_OK);
    CHECK(fwpt_model_trigger_en(&r->model));
    uint8_t *s = make_stream(len, seed, true);
    uint64_t done = 0, stored = 0;
    while (done < len) {
        uint64_t chunk = 1 + topa_rand(&seed) % 3000;
        if (chunk > len - done)
            chunk = len - done;
        stored += fwpt_model_emit(&r->model, s + done, (size_t)chunk);
        done += chunk;
    }
    uint64_t ctl;
    CHECK_EQ(fwpt_rdmsr(&r->cpu, MSR_IA32_RTIT_CTL, &ctl), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&r->cpu, MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN), FWPT_OK);
    uint64_t base, ptrs, status;
    CHECK_EQ(fwpt_rdmsr(&r->cpu, MSR_IA32_RTIT_OUTPUT_BASE, &base), FWPT_OK);
    CHECK_EQ(fwpt_rdmsr(&r->cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, &ptrs), FWPT_OK);
    CHECK_EQ(fwpt_rdmsr(&r->cpu, MSR_IA32_RTIT_STATUS, &status), FWPT_OK);
    CHECK_EQ(status & RTIT_STATUS_ERROR, 0);
    CHECK_EQ(FWPT_GET(RTIT_STATUS_PACKETBYTECNT, status), stored < 0x1ffff ? stored : 0x1ffff);

    uint64_t expect_len = len < total ? len : total;
    const uint8_t *expect = ring ? s + (len - expect_len) : s;
    bool expect_stop = !ring && len >= total;
    CHECK_EQ(stored, ring ? len : expect_len);
    CHECK_EQ((status & RTIT_STATUS_STOPPED) != 0, expect_stop);
    /* INT on the last region: one PMI each time it fills */
    CHECK_EQ(r->model.stats.pmis, r->plan.int_on_last ? (ring ? len / total : len >= total) : 0);
    CHECK_EQ((r->model.perf_global_status & PERF_GLOBAL_STATUS_TRACE_TOPA_PMI) != 0,
             r->plan.int_on_last && len >= total);
    if (expect_stop) {
        /* "ToPA STOP": OUTPUT_BASE = table of the STOP entry, index of that entry, OutputOffset = region size */
        unsigned last = r->plan.region_count - 1;
        unsigned per = r->plan.scheme == FWPT_SCHEME_TOPA_SINGLE ? 1 : r->plan.entries_per_table - 1;
        CHECK_EQ(base, r->tables[last / per]);
        CHECK_EQ(fwpt_mask_ptrs_index(ptrs), last % per);
        CHECK_EQ(fwpt_mask_ptrs_offset(ptrs), r->plan.region_size);
        CHECK_EQ(status & RTIT_STATUS_TRIGGEREN, 0);
    }
    /* three ways to know about the wrap: detect (zero test), and the two hints */
    for (int hint = 0; hint < 2; hint++) {
        struct fwpt_span spans[4200];
        struct fwpt_readback rb = {spans, 4200, 0, 0, 0, 0, false, false, false, false, NULL, 0};
        struct fwpt_readback_in in = {&r->arena.mem, r->regs.ctl_bits, r->regs.output_base, r->regs.output_mask_ptrs,
                                      base, ptrs, status,
                                      hint == 0 ? FWPT_WRAP_DETECT : (ring && len >= total ? FWPT_WRAP_YES : FWPT_WRAP_NO), 0};
        CHECK_EQ(fwpt_readback(&in, &rb), FWPT_OK);
        CHECK_EQ(rb.bytes, expect_len);
        CHECK_EQ(rb.wrapped, ring && len >= total);
        CHECK_EQ(rb.stopped, expect_stop);
        CHECK_EQ(rb.complete, len <= total && !expect_stop && !(ring && len == total));
        uint8_t *got = malloc(expect_len + 1);
        CHECK_EQ(fwpt_readback_copy(&r->arena.mem, &rb, got, expect_len), expect_len);
        int same = memcmp(got, expect, expect_len) == 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "  mismatch: scheme %d total %llu region %llu len %llu epr %u\n", (int)r->plan.scheme,
                    (unsigned long long)total, (unsigned long long)r->plan.region_size, (unsigned long long)len,
                    r->plan.entries_per_table);
        if (r->plan.scheme != FWPT_SCHEME_SINGLE_RANGE) {
            uint64_t full = r->plan.region_size;
            unsigned used = ring && len >= total ? r->plan.region_count : (unsigned)((expect_len + full - 1) / full);
            CHECK_EQ(rb.regions_used, used);
        }
        free(got);
    }
    free(s);
    teardown(r);
    free(r);
}

static void lengths(enum topa_caps_kind kind, struct fwpt_plan_options *opt, uint64_t seed)
{
    struct run *r = calloc(1, sizeof *r);
    struct fwpt_plan p;
    topa_caps(&r->caps, kind, 39);
    if (fwpt_plan_make(&r->caps, opt, &p, NULL) != FWPT_OK) {
        CHECK(!"plan");
        free(r);
        return;
    }
    free(r);
    uint64_t R = p.region_size, T = p.total_size;
    uint64_t L[] = {0, 1, 2, R - 1, R, R + 1, 2 * R - 1, 2 * R, 2 * R + 1, T - 1, T, T + 1, T + R / 2,
                    2 * T - 1, 2 * T, 3 * T + 7, 5 * T + R + 3};
    for (unsigned i = 0; i < sizeof L / sizeof L[0]; i++)
        one(kind, opt, L[i], seed + i);
}

/* The seed of the k-th layout (0..19) run in mode (0: stop, 1: ring): the layouts of both modes take seeds 101
 * apart from one start, in the order the cases below list them. */
static uint64_t seed_at(int mode, unsigned k)
{
    return 0x9e3779b97f4a7c15ull + 101ull * (20u * (unsigned)mode + k + 1);
}

static struct fwpt_plan_options mode_options(int mode)
{
    struct fwpt_plan_options o = {0};
    o.mode = mode ? FWPT_PLAN_RING : FWPT_PLAN_STOP;
    return o;
}

/* How many runs the case made: printed at its end. */
static void cases_print(const char *what)
{
    printf("stream cases: %u (%s)\n", cases, what);
    cases = 0;
}

/* multi-entry ToPA: region counts and table sizes, incl. chained tables (few entries per table); stop and ring */
TEST(multi_entry_layouts)
{
    static const struct {
        uint64_t total, region;
        unsigned epr;
    } multi[] = {
        {4096, 4096, 0},   {8192, 4096, 0},     {12288, 4096, 2},  {8192, 4096, 2},  {16384, 4096, 3},
        {28672, 4096, 4},  {32768, 8192, 3},    {65536, 4096, 512}, {65536, 4096, 5}, {49152, 16384, 2},
        {1 << 20, 65536, 0}, {40960, 4096, 7},
    };
    for (int mode = 0; mode < 2; mode++) {
        struct fwpt_plan_options o = mode_options(mode);
        for (unsigned i = 0; i < sizeof multi / sizeof multi[0]; i++) {
            o.total_size = multi[i].total;
            o.region_size = multi[i].region;
            o.entries_per_table = multi[i].epr;
            o.pmi = i & 1;
            lengths(TOPA_CAPS_MULTI, &o, seed_at(mode, i));
        }
    }
    cases_print("multi-entry");
}

/* single-entry ToPA (first generation): one region + END -> own table; stop and ring */
TEST(single_entry_layouts)
{
    for (int mode = 0; mode < 2; mode++) {
        struct fwpt_plan_options o = mode_options(mode);
        unsigned k = 12;
        for (uint64_t t = 4096; t <= 65536; t *= 4) {
            o.total_size = t;
            o.pmi = t == 16384;
            lengths(TOPA_CAPS_SINGLE_ENTRY, &o, seed_at(mode, k++));
        }
    }
    cases_print("single-entry");
}

/* single-range output (always a ring), asked for in either mode */
TEST(single_range_layouts)
{
    for (int mode = 0; mode < 2; mode++) {
        struct fwpt_plan_options o = mode_options(mode);
        unsigned k = 15;
        for (uint64_t t = 4096; t <= 32768; t *= 2) {
            o.total_size = t;
            lengths(TOPA_CAPS_SINGLE_RANGE, &o, seed_at(mode, k++));
        }
    }
    cases_print("single-range");
}

/* single-range output asked for on a CPU that also has multi-entry ToPA */
TEST(single_range_on_multi_entry_cpu)
{
    for (int mode = 0; mode < 2; mode++) {
        struct fwpt_plan_options o = mode_options(mode);
        o.single_range = true;
        o.total_size = 8192;
        lengths(TOPA_CAPS_MULTI, &o, seed_at(mode, 19));
    }
    cases_print("single-range on multi-entry");
}

TEST_MAIN("test_topa_stream")
