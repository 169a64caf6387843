/* topa: every validation rule has a table or MSR value that trips it, named with its table and
 * entry; and on random/mutated tables the validator and the model agree on what the processor
 * refuses (validator: bad <=> model: operational error or #GP, at the same table and entry). */
#include "tests/check.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/validate.h"

#define PHYS 0x40000000ull
#define T0 (PHYS + 0x0000)
#define T1 (PHYS + 0x1000)
#define T2 (PHYS + 0x2000)
#define REG(i) (PHYS + 0x10000 + (uint64_t)(i) * 0x2000) /* 8K-aligned slots */

static struct topa_arena arena;

static void put(uint64_t table, unsigned i, uint64_t raw) { fwpt_physmem_write64(&arena.mem, table + 8ull * i, raw); }
static uint64_t region(uint64_t base, unsigned enc, bool stop, bool intr)
{
    struct fwpt_topa_entry e = {base, enc, stop, intr, false, 0};
    return fwpt_topa_encode(&e);
}
static uint64_t end_to(uint64_t table)
{
    struct fwpt_topa_entry e = {table, 0, false, false, true, 0};
    return fwpt_topa_encode(&e);
}
static void clear_tables(void) { memset(arena.buf, 0, 0x3000); }

struct vres {
    enum fwpt_status st;
    struct fwpt_violation v[32];
    struct fwpt_validate_out out;
};

static void run_validate(struct vres *r, const struct fwpt_caps *caps, uint64_t ctl, uint64_t base, uint64_t ptrs,
                         uint64_t status, const struct fwpt_restricted *rs, unsigned max_steps)
{
    r->out = (struct fwpt_validate_out){r->v, 32, 0, 0, false, {0}};
    struct fwpt_validate_in in = {caps, &arena.mem, ctl, base, ptrs, status, rs, max_steps};
    r->st = fwpt_validate(&in, &r->out);
}

static const struct fwpt_violation *find(const struct vres *r, enum fwpt_topa_rule rule)
{
    for (size_t i = 0; i < r->out.count && i < 32; i++)
        if (r->v[i].rule == rule)
            return &r->v[i];
    return NULL;
}

/* Program the model like the trace sequence does and emit up to n bytes. */
struct mres {
    enum fwpt_status wr;
    struct fwpt_model m;
};
static void run_model(struct mres *r, const struct fwpt_caps *caps, uint64_t ctl, uint64_t base, uint64_t ptrs,
                      const struct fwpt_restricted *rs, uint64_t n)
{
    fwpt_model_init(&r->m, caps, &arena.mem);
    if (rs)
        r->m.restricted = *rs;
    struct fwpt_cpu cpu = fwpt_model_cpu(&r->m);
    r->wr = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, base);
    if (!r->wr)
        r->wr = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, ptrs);
    if (!r->wr)
        r->wr = fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN);
    static uint8_t buf[4096];
    memset(buf, 0xa5, sizeof buf);
    while (!r->wr && n && fwpt_model_trigger_en(&r->m)) {
        size_t c = n < sizeof buf ? (size_t)n : sizeof buf;
        fwpt_model_emit(&r->m, buf, c);
        n -= c;
    }
}

static unsigned rules_tripped[FWPT_RULE_COUNT];

/* A rule trips: the validator names it (table, entry) and refuses with status st; the model
 * raises the same operational error at the same place (model_too). */
static void expect_rule(const struct fwpt_caps *caps, uint64_t ctl, uint64_t base, uint64_t ptrs, uint64_t status,
                        const struct fwpt_restricted *rs, enum fwpt_topa_rule rule, uint64_t table, uint32_t entry,
                        enum fwpt_status st, bool model_too)
{
    struct vres v;
    run_validate(&v, caps, ctl, base, ptrs, status, rs, 0);
    const struct fwpt_violation *x = find(&v, rule);
    CHECK(x != NULL);
    if (!x) {
        fprintf(stderr, "  rule %s not reported\n", fwpt_topa_rule_name(rule));
        return;
    }
    rules_tripped[rule]++;
    CHECK_EQ(x->table, table);
    CHECK_EQ(x->entry, entry);
    CHECK_EQ(v.st, st);
    CHECK_EQ(x->warning, st == FWPT_OK);
    CHECK(fwpt_topa_rule_text(rule)[0] != 0);
    if (model_too) {
        struct mres *m = calloc(1, sizeof *m);
        run_model(m, caps, ctl, base, ptrs, rs, 1 << 16);
        CHECK_EQ(m->wr, FWPT_OK);
        CHECK(m->m.status & RTIT_STATUS_ERROR);
        CHECK_EQ(m->m.error_rule, rule);
        CHECK_EQ(m->m.error_table, table);
        CHECK_EQ(m->m.error_entry, entry);
        CHECK(v.out.has_first);
        CHECK_EQ(v.out.first.rule, rule);
        free(m);
    }
}

static struct fwpt_caps multi, single, sr; /* multi-entry ToPA, single-entry ToPA, single-range output */
static uint64_t P0;                        /* OUTPUT_MASK_PTRS at table entry 0, offset 0 */

static void arena_free(void)
{
    topa_arena_free(&arena);
}

/* What every case starts from: the arena (made on first use, freed at exit), the three processors, P0. */
static void setup(void)
{
    static int made;
    if (made)
        return;
    topa_arena_init(&arena, PHYS, 4u << 20);
    atexit(arena_free);
    topa_caps(&multi, TOPA_CAPS_MULTI, 39);
    topa_caps(&single, TOPA_CAPS_SINGLE_ENTRY, 39);
    topa_caps(&sr, TOPA_CAPS_SINGLE_RANGE, 39);
    P0 = fwpt_mask_ptrs_make(0, 0);
    made = 1;
}

/* T0: a 4K region, an 8K region (STOP and INT when stop_int), END -> T0; the tables the rule cases change. */
static void two_regions(bool stop_int)
{
    setup();
    clear_tables();
    put(T0, 0, region(REG(0), 0, false, false));
    put(T0, 1, region(REG(1), 1, stop_int, stop_int));
    put(T0, 2, end_to(T0));
}

/* a good table first: no violations */
TEST(good_table_no_violations)
{
    two_regions(true);
    struct vres v;
    run_validate(&v, &multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, 0);
    CHECK_EQ(v.st, FWPT_OK);
    CHECK_EQ(v.out.count, 0);
}

/* ToPA Errors 1: reserved bit */
TEST(rule_reserved_bits)
{
    two_regions(true);
    put(T0, 1, region(REG(1), 1, false, false) | FWPT_BIT(1));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_RESERVED_BITS, T0, 1, FWPT_E_TOPA, true);
    put(T0, 1, region(REG(1), 1, false, false) | FWPT_BIT(10));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_RESERVED_BITS, T0, 1, FWPT_E_TOPA, true);
}

/* 2a: table base not 4K-aligned (from OUTPUT_BASE) */
TEST(rule_table_align)
{
    two_regions(false);
    expect_rule(&multi, RTIT_CTL_TOPA, T0 + 0x80, P0, 0, NULL, FWPT_RULE_TABLE_ALIGN, T0 + 0x80, FWPT_NO_ENTRY, FWPT_E_TOPA, true);
}

/* 2b: 8K region at a 4K-only-aligned base */
TEST(rule_region_align)
{
    two_regions(false);
    put(T0, 1, region(REG(1) + 0x1000, 1, false, false));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_REGION_ALIGN, T0, 1, FWPT_E_TOPA, true);
}

/* 2c: base above MAXPHYADDR (39) */
TEST(rule_addr_maxphyaddr)
{
    two_regions(false);
    put(T0, 1, region(REG(1) | FWPT_BIT(40), 0, false, false));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_ADDR_MAXPHYADDR, T0, 1, FWPT_E_TOPA, true);
    put(T0, 1, end_to(T1 | FWPT_BIT(45)));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_ADDR_MAXPHYADDR, T0, 1, FWPT_E_TOPA, true);
}

/* 3: OutputOffset >= region size (4K region, offset 4096) */
TEST(rule_output_offset)
{
    two_regions(false);
    expect_rule(&multi, RTIT_CTL_TOPA, T0, fwpt_mask_ptrs_make(0, 4096), 0, NULL, FWPT_RULE_OUTPUT_OFFSET, T0, 0, FWPT_E_TOPA, true);
}

/* ...and the ToPA-stop position (offset = size) with Stopped still set is not an error */
TEST(stop_position_with_stopped_not_an_error)
{
    two_regions(false);
    struct mres *mr = calloc(1, sizeof *mr);
    fwpt_model_init(&mr->m, &multi, &arena.mem);
    struct fwpt_cpu cpu = fwpt_model_cpu(&mr->m);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_STATUS, RTIT_STATUS_STOPPED), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, T0), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, fwpt_mask_ptrs_make(0, 4096)), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, RTIT_CTL_TOPA | RTIT_CTL_TRACEEN), FWPT_OK);
    CHECK_EQ(mr->m.status & (RTIT_STATUS_ERROR | RTIT_STATUS_TRIGGEREN), 0);
    free(mr);
    expect_rule(&multi, RTIT_CTL_TOPA, T0, fwpt_mask_ptrs_make(0, 4096), RTIT_STATUS_STOPPED, NULL,
                FWPT_RULE_STATUS_SET, T0, FWPT_NO_ENTRY, FWPT_OK, false);
}

/* 4a: END with STOP, END with INT */
TEST(rule_end_stop_int)
{
    two_regions(false);
    put(T0, 1, end_to(T0) | TOPA_ENTRY_STOP);
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_END_STOP_INT, T0, 1, FWPT_E_TOPA, true);
    put(T0, 1, end_to(T0) | TOPA_ENTRY_INT);
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_END_STOP_INT, T0, 1, FWPT_E_TOPA, true);
}

/* 4b: END in entry 0 (of a table reached through END) */
TEST(rule_end_entry0)
{
    two_regions(false);
    put(T0, 1, end_to(T1));
    put(T1, 0, end_to(T0));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_END_ENTRY0, T1, 0, FWPT_E_TOPA, true);
}

/* T0 of a single-entry part: a 4K region, then entry 1 as the case puts it. */
static void single_entry_table(void)
{
    setup();
    clear_tables();
    put(T0, 0, region(REG(0), 0, false, false));
}

/* 4c-i: single-output-region part, entry 1 not END */
TEST(rule_single_not_end)
{
    single_entry_table();
    put(T0, 1, region(REG(1), 0, false, false));
    expect_rule(&single, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_SINGLE_NOT_END, T0, 1, FWPT_E_TOPA, true);
}

/* 4c-ii: END base not the table base */
TEST(rule_single_end_base)
{
    single_entry_table();
    struct vres v;
    put(T0, 1, end_to(T1));
    put(T1, 0, region(REG(2), 0, false, false));
    expect_rule(&single, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_SINGLE_END_BASE, T0, 1, FWPT_E_TOPA, true);
    /* ...the same tables are fine on a multi-entry part */
    put(T1, 1, end_to(T0));
    run_validate(&v, &multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, 0);
    CHECK_EQ(v.st, FWPT_OK);
    CHECK_EQ(v.out.count, 0);

}

/* Single-range output errors */
TEST(rule_single_range_mask_base_offset)
{
    setup();
    struct vres v;
    uint64_t b = REG(0);
    expect_rule(&sr, 0, b, 0x1f7f, 0, NULL, FWPT_RULE_SR_MASK, b, FWPT_NO_ENTRY, FWPT_E_SINGLE_RANGE, true);
    expect_rule(&sr, 0, b + 0x1000, 0x1fff, 0, NULL, FWPT_RULE_SR_BASE_MASK, b + 0x1000, FWPT_NO_ENTRY, FWPT_E_SINGLE_RANGE, true);
    expect_rule(&sr, 0, b, 0x1fff | (0x2000ull << 32), 0, NULL, FWPT_RULE_SR_OFFSET, b, FWPT_NO_ENTRY, FWPT_E_SINGLE_RANGE, true);
    run_validate(&v, &sr, 0, b, 0x1fff | (0x1fffull << 32), 0, NULL, 0); /* offset == mask is fine */
    CHECK_EQ(v.st, FWPT_OK);

}

/* MSR-level: OUTPUT_BASE reserved bits (#GP), scheme not enumerated (#GP) */
TEST(rule_msr_level_gp)
{
    setup();
    uint64_t b = REG(0);
    expect_rule(&multi, RTIT_CTL_TOPA, T0 | 0x40, P0, 0, NULL, FWPT_RULE_OUTPUT_BASE_GP, T0 | 0x40, FWPT_NO_ENTRY, FWPT_E_TOPA, false);
    expect_rule(&multi, RTIT_CTL_TOPA, T0 | FWPT_BIT(39), P0, 0, NULL, FWPT_RULE_OUTPUT_BASE_GP, T0 | FWPT_BIT(39), FWPT_NO_ENTRY, FWPT_E_TOPA, false);
    expect_rule(&sr, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_CTL_SCHEME, T0, FWPT_NO_ENTRY, FWPT_E_TOPA, false);
    expect_rule(&single, 0, b, 0x1fff, 0, NULL, FWPT_RULE_CTL_SCHEME, b, FWPT_NO_ENTRY, FWPT_E_TOPA, false);
    {
        struct mres *m = calloc(1, sizeof *m);
        run_model(m, &multi, RTIT_CTL_TOPA, T0 | 0x40, P0, NULL, 0);
        CHECK_EQ(m->wr, FWPT_E_FAULT);
        run_model(m, &sr, RTIT_CTL_TOPA, T0, P0, NULL, 0);
        CHECK_EQ(m->wr, FWPT_E_FAULT);
        run_model(m, &single, 0, b, 0x1fff, NULL, 0);
        CHECK_EQ(m->wr, FWPT_E_FAULT);
        free(m);
    }

}

/* Restricted memory: APIC page, SMRR (refused), UC by MTRR (warned) */
TEST(rule_apic_page)
{
    two_regions(false);
    struct fwpt_restricted rs = {0};
    rs.have_apic = true;
    rs.apic_base_msr = REG(1) + 0x1000 + 0x900;
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, &rs, FWPT_RULE_APIC_PAGE, T0, 1, FWPT_E_RESTRICTED, false);
    rs.apic_base_msr = T0 | 0x900; /* the table itself in the APIC page */
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, &rs, FWPT_RULE_APIC_PAGE, T0, 0, FWPT_E_RESTRICTED, false);
}

/* SMRR over a region: refused (the model agrees); an SMRR mask without Valid is ignored */
TEST(rule_smrr)
{
    two_regions(false);
    struct vres v;
    struct fwpt_restricted rs = {0};
    rs.have_smrr = true;
    rs.smrr_physbase = REG(0) | 6;
    rs.smrr_physmask = 0xfffff000ull | SMRR_PHYSMASK_VALID; /* 4K at REG(0) */
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, &rs, FWPT_RULE_SMRR, T0, 0, FWPT_E_RESTRICTED, true);
    rs.smrr_physmask = 0xfffff000ull; /* not valid: ignored */
    run_validate(&v, &multi, RTIT_CTL_TOPA, T0, P0, 0, &rs, 0);
    CHECK_EQ(v.st, FWPT_OK);
}

/* UC memory by the MTRRs (a warning): variable ranges, the default type, MTRRs disabled, the fixed ranges */
TEST(rule_uc_memory_mtrrs)
{
    two_regions(false);
    struct fwpt_restricted rs = {0};
    rs.have_mtrr = true;
    rs.mtrr_def_type = MTRR_DEF_TYPE_E | MTRR_TYPE_WB;
    rs.n_var = 2;
    rs.mtrr_physbase[0] = 0 | MTRR_TYPE_WB;
    rs.mtrr_physmask[0] = FWPT_FIELD(38, 31) | MTRR_PHYSMASK_VALID; /* 0..2G WB */
    rs.mtrr_physbase[1] = REG(1) | MTRR_TYPE_UC;
    rs.mtrr_physmask[1] = FWPT_FIELD(38, 13) | MTRR_PHYSMASK_VALID; /* 8K UC at REG(1) */
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, &rs, FWPT_RULE_UC_MEMORY, T0, 1, FWPT_OK, false);
    CHECK(!fwpt_restricted_uc(&rs, REG(0), 0x1000, 39));
    rs.mtrr_def_type = MTRR_DEF_TYPE_E | MTRR_TYPE_UC;
    CHECK(fwpt_restricted_uc(&rs, 0x90000000ull, 0x1000, 39)); /* above the WB range: default UC */
    CHECK(!fwpt_restricted_uc(&rs, 0x10000000ull, 0x1000, 39));
    /* MTRRs disabled (E clear): all memory is UC (SDM "IA32_MTRR_DEF_TYPE MSR") */
    rs.mtrr_def_type = MTRR_TYPE_WB;
    CHECK(fwpt_restricted_uc(&rs, 0x10000000ull, 0x1000, 39));
    CHECK(!fwpt_restricted_uc(&rs, 0x10000000ull, 0, 39)); /* nothing to write */
    /* fixed ranges below 1 MiB (SDM "Fixed Range MTRRs"): all WB, then one UC sub-range at a time */
    rs.mtrr_def_type = MTRR_DEF_TYPE_E | MTRR_DEF_TYPE_FE | MTRR_TYPE_UC;
    rs.have_fixed = true;
    for (int i = 0; i < FWPT_MTRR_FIXED; i++)
        rs.mtrr_fixed[i] = 0x0606060606060606ull;
    rs.mtrr_physbase[1] = 0 | MTRR_TYPE_UC; /* a variable UC range over 0..8K: the fixed ranges win there */
    CHECK(!fwpt_restricted_uc(&rs, 0, 0x1000, 39));
    CHECK(!fwpt_restricted_uc(&rs, 0x10000, 0xf0000, 39));
    static const struct {
        int reg, byte;        /* the sub-range made UC: register index (address order), type byte */
        uint64_t in, out;     /* a 4K page in it; the page just below it (not in it) */
    } fx[] = {
        {0, 1, 0x10000, 0x0f000},  /* FIX64K_00000: 64K sub-ranges */
        {0, 7, 0x7f000, 0x6f000},
        {1, 0, 0x80000, 0x7f000},  /* FIX16K_80000 */
        {1, 7, 0x9c000, 0x9b000},
        {2, 0, 0xa0000, 0x9f000},  /* FIX16K_A0000: the legacy VGA window */
        {3, 0, 0xc0000, 0xbf000},  /* FIX4K_C0000 */
        {9, 7, 0xf7000, 0xf6000},  /* FIX4K_F0000 */
        {10, 7, 0xff000, 0xfe000}, /* FIX4K_F8000 */
    };
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        rs.mtrr_fixed[fx[i].reg] = 0x0606060606060606ull & ~(0xffull << (8 * fx[i].byte));
        CHECK(fwpt_restricted_uc(&rs, fx[i].in, 0x1000, 39));
        CHECK(!fwpt_restricted_uc(&rs, fx[i].out, 0x1000, 39));
        CHECK(fwpt_restricted_uc(&rs, fx[i].out, 0x2000, 39)); /* into it */
        rs.mtrr_def_type &= ~MTRR_DEF_TYPE_FE; /* fixed ranges off: the variable ranges decide */
        CHECK(!fwpt_restricted_uc(&rs, fx[i].in, 0x1000, 39) == (fx[i].in >= 0x2000));
        rs.mtrr_def_type |= MTRR_DEF_TYPE_FE;
        rs.mtrr_fixed[fx[i].reg] = 0x0606060606060606ull;
    }
    /* across 1 MiB: WB below by the fixed ranges; above, the variable WB range 0..2G, or the default UC */
    CHECK(!fwpt_restricted_uc(&rs, 0xff000, 0x2000, 39));
    rs.mtrr_physmask[0] &= ~MTRR_PHYSMASK_VALID;
    CHECK(fwpt_restricted_uc(&rs, 0xff000, 0x2000, 39));
    CHECK(!fwpt_restricted_uc(&rs, 0xff000, 0x1000, 39));
    rs.have_fixed = false; /* not readable: the variable ranges alone (UC over 0..8K, default UC) */
    CHECK(fwpt_restricted_uc(&rs, 0x10000, 0x1000, 39));
}

/* single range in the APIC page */
TEST(rule_apic_page_single_range)
{
    setup();
    uint64_t b = REG(0);
    struct fwpt_restricted rs = {0};
    rs.have_apic = true;
    rs.apic_base_msr = b + 0x1000;
    expect_rule(&sr, 0, b, 0x1fff, 0, &rs, FWPT_RULE_APIC_PAGE, b, FWPT_NO_ENTRY, FWPT_E_RESTRICTED, false);

}

/* fwpt: a region over a table (the table the walk reaches later, through END) */
TEST(rule_region_over_table)
{
    setup();
    clear_tables();
    put(T0, 0, region(REG(0), 0, false, false));
    put(T0, 1, region(T1, 0, false, false));
    put(T0, 2, end_to(T1));
    put(T1, 0, region(REG(2), 0, false, false));
    put(T1, 1, end_to(T0));
    expect_rule(&multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, FWPT_RULE_REGION_OVER_TABLE, T0, 1, FWPT_E_TOPA, false);

}

/* Not mapped; walk limit */
TEST(rule_unmapped_and_walk_limit)
{
    two_regions(true);
    struct vres v;
    expect_rule(&multi, RTIT_CTL_TOPA, 0x7000000000ull, P0, 0, NULL, FWPT_RULE_UNMAPPED, 0x7000000000ull, 0, FWPT_E_TOPA, true);
    run_validate(&v, &multi, RTIT_CTL_TOPA, T0, P0, 0, NULL, 1);
    CHECK(find(&v, FWPT_RULE_WALK_LIMIT) != NULL);
    CHECK_EQ(v.st, FWPT_OK);

}

/* Every rule but the walk limit is tripped by a case above. Run alone (or with some of them), this case runs the
 * rule cases itself first, their checks not counted again (check.h has no quiet run: the counts are restored). */
TEST(every_rule_has_a_test)
{
    static void (*const rule_cases[])(void) = {
        check_case_rule_reserved_bits,
        check_case_rule_table_align,
        check_case_rule_region_align,
        check_case_rule_addr_maxphyaddr,
        check_case_rule_output_offset,
        check_case_stop_position_with_stopped_not_an_error,
        check_case_rule_end_stop_int,
        check_case_rule_end_entry0,
        check_case_rule_single_not_end,
        check_case_rule_single_end_base,
        check_case_rule_single_range_mask_base_offset,
        check_case_rule_msr_level_gp,
        check_case_rule_apic_page,
        check_case_rule_smrr,
        check_case_rule_uc_memory_mtrrs,
        check_case_rule_apic_page_single_range,
        check_case_rule_region_over_table,
        check_case_rule_unmapped_and_walk_limit,
    };
    bool all = true;
    for (int r = 0; r < FWPT_RULE_COUNT; r++)
        all &= r == FWPT_RULE_WALK_LIMIT || rules_tripped[r] > 0;
    if (!all) {
        unsigned long passed = check_passed, failed = check_failed;
        for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++)
            rule_cases[i]();
        check_passed = passed;
        check_failed = failed;
    }
    for (int r = 0; r < FWPT_RULE_COUNT; r++) {
        if (r == FWPT_RULE_WALK_LIMIT)
            continue;
        CHECK(rules_tripped[r] > 0);
        if (!rules_tripped[r])
            fprintf(stderr, "  rule %s has no test\n", fwpt_topa_rule_name((enum fwpt_topa_rule)r));
    }
}

/* Random tables with random defects: the validator's verdict and first error equal the model's. */
TEST(random_tables_validator_agrees_with_model)
{
    setup();
    uint64_t seed = 0x1234567887654321ull;
    unsigned bad = 0, good = 0, cases = 2500, smrr_cases = 0, smrr_refused = 0;
    for (unsigned c = 0; c < cases; c++) {
        struct fwpt_caps caps;
        topa_caps(&caps, (topa_rand(&seed) & 3) == 0 ? TOPA_CAPS_SINGLE_ENTRY : TOPA_CAPS_MULTI, 39);
        clear_tables();
        uint64_t tables[3] = {T0, T1, T2};
        unsigned nt = 1 + (unsigned)(topa_rand(&seed) % 3);
        unsigned slot = 0;
        uint64_t total = 0;
        for (unsigned t = 0; t < nt; t++) {
            unsigned ne = 2 + (unsigned)(topa_rand(&seed) % 4);
            for (unsigned i = 0; i + 1 < ne; i++) {
                unsigned enc = (unsigned)(topa_rand(&seed) & 1);
                bool stop = (topa_rand(&seed) % 10) == 0, intr = (topa_rand(&seed) % 4) == 0;
                put(tables[t], i, region(REG(slot++), enc, stop, intr));
                total += 0x1000ull << enc;
            }
            put(tables[t], ne - 1, end_to(tables[topa_rand(&seed) % nt]));
            /* one defect, sometimes */
            if (topa_rand(&seed) % 3 == 0) {
                unsigned i = (unsigned)(topa_rand(&seed) % ne);
                uint64_t raw;
                fwpt_physmem_read64(&arena.mem, tables[t] + 8ull * i, &raw);
                switch (topa_rand(&seed) % 7) {
                case 0: raw |= FWPT_BIT(1 + 2 * (topa_rand(&seed) % 3)); break;  /* bit 1, 3 or 5 */
                case 1: raw |= FWPT_BIT(10 + topa_rand(&seed) % 2); break;       /* bit 10 or 11 */
                case 2: raw |= TOPA_ENTRY_STOP; break;
                case 3: raw |= TOPA_ENTRY_INT; break;
                case 4: raw |= FWPT_BIT(39 + topa_rand(&seed) % 24); break;      /* above MAXPHYADDR */
                case 5: raw = end_to(tables[topa_rand(&seed) % nt]); break;       /* END anywhere, even entry 0 */
                case 6: if (!(raw & TOPA_ENTRY_END)) raw |= FWPT_PUT(TOPA_ENTRY_SIZE, 2); break; /* 16K: misaligned */
                }
                put(tables[t], i, raw);
            }
        }
        /* bytes enough to reach every reachable entry: one lap over every region as finally encoded */
        total = 0;
        for (unsigned t = 0; t < nt; t++)
            for (unsigned i = 0; i < 6; i++) {
                struct fwpt_topa_entry e;
                uint64_t raw;
                fwpt_physmem_read64(&arena.mem, tables[t] + 8ull * i, &raw);
                fwpt_topa_decode(raw, &e);
                if (!e.end)
                    total += fwpt_topa_size_bytes(e.size_enc);
            }
        unsigned start_t = (unsigned)(topa_rand(&seed) % nt);
        unsigned start_i = (unsigned)(topa_rand(&seed) % 2);
        uint64_t off = topa_rand(&seed) % 5 == 0 ? 0x1000 + (topa_rand(&seed) % 0x1800) : topa_rand(&seed) % 0x1000;
        uint64_t ptrs = fwpt_mask_ptrs_make(start_i, off);

        /* sometimes SMRR over one region slot or one table page (restricted memory) */
        struct fwpt_restricted rs = {0}, *rsp = NULL;
        if (topa_rand(&seed) % 6 == 0) {
            rsp = &rs;
            rs.have_smrr = true;
            rs.smrr_physbase = (topa_rand(&seed) & 1 ? REG(topa_rand(&seed) % (slot + 1)) : tables[topa_rand(&seed) % nt]) | 6;
            rs.smrr_physmask = 0xfffff000ull | SMRR_PHYSMASK_VALID;
            smrr_cases++;
        }
        struct vres v;
        run_validate(&v, &caps, RTIT_CTL_TOPA, tables[start_t], ptrs, 0, rsp, 0);
        struct mres *m = calloc(1, sizeof *m);
        run_model(m, &caps, RTIT_CTL_TOPA, tables[start_t], ptrs, rsp, total + 1);
        bool model_err = (m->m.status & RTIT_STATUS_ERROR) != 0;
        bool val_err = v.out.errors > 0;
        CHECK_EQ(m->wr, FWPT_OK);
        CHECK_EQ(model_err, val_err);
        CHECK_EQ(v.out.has_first, val_err);
        if (model_err && v.out.has_first) {
            CHECK_EQ(m->m.error_rule, v.out.first.rule);
            CHECK_EQ(m->m.error_table, v.out.first.table);
            CHECK_EQ(m->m.error_entry, v.out.first.entry);
            if (m->m.error_rule != v.out.first.rule || m->m.error_entry != v.out.first.entry)
                fprintf(stderr, "  case %u: model %s @%llx[%u], validator %s @%llx[%u]\n", c,
                        fwpt_topa_rule_name(m->m.error_rule), (unsigned long long)m->m.error_table, m->m.error_entry,
                        fwpt_topa_rule_name(v.out.first.rule), (unsigned long long)v.out.first.table, v.out.first.entry);
        }
        CHECK_EQ(m->m.stats.bytes_unmapped, 0);
        if (model_err != val_err) {
            fprintf(stderr, "  case %u: model error %d, validator errors %zu (first %s @%llx[%u])\n", c, model_err,
                    v.out.errors, v.out.has_first ? fwpt_topa_rule_name(v.out.first.rule) : "-",
                    (unsigned long long)v.out.first.table, v.out.first.entry);
            if (getenv("TOPA_DEBUG")) {
                fprintf(stderr, "  start %llx ptrs %llx smrr %llx stopped %d stored %llu in %llu\n",
                        (unsigned long long)tables[start_t], (unsigned long long)ptrs,
                        (unsigned long long)rs.smrr_physbase, !!(m->m.status & RTIT_STATUS_STOPPED),
                        (unsigned long long)m->m.stats.bytes_stored, (unsigned long long)m->m.stats.bytes_in);
                for (unsigned t = 0; t < nt; t++)
                    for (unsigned i = 0; i < 6; i++) {
                        uint64_t raw;
                        fwpt_physmem_read64(&arena.mem, tables[t] + 8ull * i, &raw);
                        fprintf(stderr, "    T%u[%u] %016llx\n", t, i, (unsigned long long)raw);
                    }
            }
        }
        bad += val_err;
        smrr_refused += v.out.has_first && v.out.first.rule == FWPT_RULE_SMRR;
        good += !val_err;
        free(m);
    }
    printf("agreement: %u tables, %u refused, %u accepted; %u with SMRR, %u refused for SMRR\n", cases, bad, good,
           smrr_cases, smrr_refused);
    CHECK(smrr_refused > 20);
    CHECK(bad > cases / 5 && good > cases / 5); /* both verdicts well represented */
}

/* Random single-range MSR values: the validator refuses exactly what the model refuses at enable. */
TEST(random_single_range_validator_agrees_with_model)
{
    setup();
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_SINGLE_RANGE, 39);
    uint64_t seed = 0xfeedface12345ull;
    unsigned refused = 0, cases = 3000;
    for (unsigned c = 0; c < cases; c++) {
        unsigned bits = 12 + (unsigned)(topa_rand(&seed) % 5);   /* 4K .. 64K */
        uint64_t mask = (1ull << bits) - 1;
        uint64_t r = topa_rand(&seed);
        if (r % 4 == 0)
            mask ^= 1ull << (7 + topa_rand(&seed) % (bits - 7));      /* a hole: not contiguous */
        uint64_t base = PHYS + 0x100000;
        if (r % 5 == 1)
            base += 0x80ull << (topa_rand(&seed) % 10);               /* overlaps the mask */
        uint64_t off = topa_rand(&seed) % (mask + 1);
        if (r % 6 == 2)
            off = mask + 1 + topa_rand(&seed) % 100;                  /* above the mask */
        uint64_t ptrs = mask | (off << 32);
        struct vres v;
        run_validate(&v, &caps, 0, base, ptrs, 0, NULL, 0);
        struct mres *m = calloc(1, sizeof *m);
        run_model(m, &caps, 0, base, ptrs, NULL, 10);
        bool model_err = (m->m.status & RTIT_STATUS_ERROR) != 0;
        CHECK_EQ(m->wr, FWPT_OK);
        CHECK_EQ(model_err, v.out.errors > 0);
        if (model_err && v.out.has_first)
            CHECK_EQ(m->m.error_rule, v.out.first.rule);
        if (!model_err)
            CHECK_EQ(m->m.stats.bytes_stored, 10);
        refused += model_err;
        free(m);
    }
    printf("single-range agreement: %u settings, %u refused\n", cases, refused);
    CHECK(refused > cases / 5 && refused < cases * 4 / 5);
}

TEST_MAIN("test_topa_validate")
