/* topa: the SDM ToPA PMI handler algorithm (grow / new table / circular) run against the model:
 * trace continues through the PMI, and consumed regions + readback give back exactly the stream. */
#include "tests/check.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/pmi.h"
#include "topa/readback.h"

#define PHYS 0x40000000ull
#define T0 PHYS
#define T1 (PHYS + 0x1000)
#define REG(i) (PHYS + 0x10000 + (uint64_t)(i) * 0x1000)
#define POOL(i) (PHYS + 0x80000 + (uint64_t)(i) * 0x1000)

static struct topa_arena arena;
static struct fwpt_model M;
static struct fwpt_cpu cpu;
static const uint64_t CTL = RTIT_CTL_TOPA | RTIT_CTL_BRANCHEN | RTIT_CTL_OS;

static void put(uint64_t table, unsigned i, uint64_t raw) { fwpt_physmem_write64(&arena.mem, table + 8ull * i, raw); }
static uint64_t region(uint64_t base, bool intr)
{
    struct fwpt_topa_entry e = {base, 0, false, intr, false, 0};
    return fwpt_topa_encode(&e);
}
static uint64_t end_to(uint64_t t)
{
    struct fwpt_topa_entry e = {t, 0, false, false, true, 0};
    return fwpt_topa_encode(&e);
}

static void start(void)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    memset(arena.buf, 0, arena.size);
    fwpt_model_init(&M, &caps, &arena.mem);
    cpu = fwpt_model_cpu(&M);
    /* T0: R0, R1 (INT), R2, END -> T0 */
    put(T0, 0, region(REG(0), false));
    put(T0, 1, region(REG(1), true));
    put(T0, 2, region(REG(2), false));
    put(T0, 3, end_to(T0));
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, T0), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f), FWPT_OK);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, CTL | RTIT_CTL_TRACEEN), FWPT_OK);
}

/* Emit s[*pos..len) in chunks; stop after the chunk in which the first PMI fired (skid). */
static void emit_until_pmi(const uint8_t *s, uint64_t len, uint64_t *pos, uint64_t skid)
{
    while (*pos < len && !M.stats.pmis) {
        fwpt_model_emit(&M, s + *pos, 1);
        (*pos)++;
    }
    uint64_t n = skid < len - *pos ? skid : len - *pos;
    fwpt_model_emit(&M, s + *pos, (size_t)n);
    *pos += n;
}

static void finish_and_check(const uint8_t *s, uint64_t len, const uint8_t *consumed, uint64_t nconsumed,
                             uint64_t start_base, uint64_t start_ptrs)
{
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, CTL), FWPT_OK);
    uint64_t base, ptrs, status;
    fwpt_rdmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, &base);
    fwpt_rdmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, &ptrs);
    fwpt_rdmsr(&cpu, MSR_IA32_RTIT_STATUS, &status);
    CHECK_EQ(status & (RTIT_STATUS_ERROR | RTIT_STATUS_STOPPED), 0);
    struct fwpt_span spans[64];
    struct fwpt_readback rb = {spans, 64, 0, 0, 0, 0, false, false, false, false, NULL, 0};
    struct fwpt_readback_in in = {&arena.mem, CTL, start_base, start_ptrs, base, ptrs, status, FWPT_WRAP_DETECT, 64};
    CHECK_EQ(fwpt_readback(&in, &rb), FWPT_OK);
    CHECK_EQ(nconsumed + rb.bytes, len);
    CHECK(!rb.wrapped);
    uint8_t *got = malloc(len);
    memcpy(got, consumed, nconsumed);
    CHECK_EQ(fwpt_readback_copy(&arena.mem, &rb, got + nconsumed, len - nconsumed), len - nconsumed);
    CHECK(memcmp(got, s, len) == 0);
    free(got);
}

static void arena_free(void)
{
    topa_arena_free(&arena);
}

/* The arena (made on first use, freed at exit) and the stream every case emits: 40000 bytes of 1..255. */
static const uint8_t *stream(void)
{
    static uint8_t s[40000];
    static int made;
    if (!made) {
        topa_arena_init(&arena, PHYS, 1 << 20);
        atexit(arena_free);
        uint64_t seed = 77;
        for (size_t i = 0; i < sizeof s; i++)
            s[i] = (uint8_t)(1 + topa_rand(&seed) % 255);
        made = 1;
    }
    return s;
}

/* The pool of 8 free regions the handler takes from. */
static const uint64_t pool_phys[8] = {POOL(0), POOL(1), POOL(2), POOL(3), POOL(4), POOL(5), POOL(6), POOL(7)};

/* The PMI skids each action is run with: the handler sees the PMI 0, 150 and 300 bytes late. */
static const uint64_t skids[] = {0, 150, 300};
#define NSKIDS (sizeof skids / sizeof skids[0])

/* not a ToPA PMI: nothing touched */
TEST(not_a_topa_pmi_untouched)
{
    stream();
    struct fwpt_pmi_result res;
    start();
    struct fwpt_pmi_pool pool = {pool_phys, 8, 0, 0, false};
    struct fwpt_pmi_request rq = {&arena.mem, 0, 0, 16, 4, &pool, 0};
    CHECK_EQ(fwpt_pmi_handle(&cpu, &rq, &res), FWPT_OK);
    CHECK_EQ(res.action, FWPT_PMI_NONE);
    CHECK_EQ(pool.next, 0);
}

/* GROW: the table has room (capacity 16): 4 entries added after R2, END moves to 7 */
TEST(grow_table_with_room)
{
    const uint8_t *s = stream();
    struct fwpt_pmi_result res;
    for (size_t k = 0; k < NSKIDS; k++) {
        uint64_t skid = skids[k];
        start();
        uint64_t pos = 0, len = 28000;
        emit_until_pmi(s, len, &pos, skid);
        CHECK_EQ(pos, 2 * 4096 + skid);
        struct fwpt_pmi_pool pool = {pool_phys, 8, 0, 0, false};
        struct fwpt_pmi_request rq = {&arena.mem, 0, 0, 16, 4, &pool, 0};
        CHECK_EQ(fwpt_pmi_handle(&cpu, &rq, &res), FWPT_OK);
        CHECK_EQ(res.action, FWPT_PMI_GROW);
        CHECK_EQ(res.end_index, 7);
        CHECK_EQ(res.entries_added, 4);
        CHECK_EQ(rq.current_index, 2);
        CHECK_EQ(M.perf_global_status, 0);   /* Trace_ToPA_PMI cleared */
        CHECK(M.ctl & RTIT_CTL_TRACEEN);     /* saved CTL restored */
        CHECK_EQ(M.stats.gp, 0);
        CHECK_EQ(M.stats.enables, 2);
        fwpt_model_emit(&M, s + pos, (size_t)(len - pos));
        finish_and_check(s, len, NULL, 0, T0, 0x7f);
    }
}

/* CIRCULAR: no room (capacity 4): END stays at 3 -> T0, filled R0, R1 -> fresh regions */
TEST(circular_replaces_filled_regions)
{
    const uint8_t *s = stream();
    struct fwpt_pmi_result res;
    for (size_t k = 0; k < NSKIDS; k++) {
        uint64_t skid = skids[k];
        start();
        uint64_t pos = 0, len = 18000;
        emit_until_pmi(s, len, &pos, skid);
        struct fwpt_pmi_pool pool = {pool_phys, 8, 0, 0, false};
        struct fwpt_pmi_request rq = {&arena.mem, 0, 0, 4, 4, &pool, 0};
        CHECK_EQ(fwpt_pmi_handle(&cpu, &rq, &res), FWPT_OK);
        CHECK_EQ(res.action, FWPT_PMI_CIRCULAR);
        CHECK_EQ(res.regions_replaced, 2);
        CHECK_EQ(res.replaced_phys[0], REG(0));
        CHECK_EQ(res.replaced_phys[1], REG(1));
        uint8_t consumed[8192];
        memcpy(consumed, topa_arena_ptr(&arena, REG(0)), 4096); /* the consumer takes the filled regions */
        memcpy(consumed + 4096, topa_arena_ptr(&arena, REG(1)), 4096);
        uint64_t raw;
        fwpt_physmem_read64(&arena.mem, T0, &raw);
        CHECK_EQ(raw, region(POOL(0), false));
        fwpt_physmem_read64(&arena.mem, T0 + 8, &raw);
        CHECK_EQ(raw, region(POOL(1), true));
        fwpt_model_emit(&M, s + pos, (size_t)(len - pos));
        finish_and_check(s, len, consumed, 8192, T0, fwpt_mask_ptrs_make(2, 0));
    }
}

/* NEW_TABLE: no room, output moves on to T1 filled from the pool */
TEST(new_table_from_pool)
{
    const uint8_t *s = stream();
    struct fwpt_pmi_result res;
    for (size_t k = 0; k < NSKIDS; k++) {
        uint64_t skid = skids[k];
        start();
        uint64_t pos = 0, len = 6 * 4096 - 100;
        emit_until_pmi(s, len, &pos, skid);
        struct fwpt_pmi_pool pool = {pool_phys, 8, 0, 0, false};
        struct fwpt_pmi_request rq = {&arena.mem, 0, 0, 4, 4, &pool, T1};
        CHECK_EQ(fwpt_pmi_handle(&cpu, &rq, &res), FWPT_OK);
        CHECK_EQ(res.action, FWPT_PMI_NEW_TABLE);
        CHECK_EQ(res.entries_added, 3);
        uint64_t raw;
        fwpt_physmem_read64(&arena.mem, T0 + 24, &raw);
        CHECK_EQ(raw, end_to(T1));
        fwpt_physmem_read64(&arena.mem, T1 + 24, &raw);
        CHECK_EQ(raw, end_to(T1));
        fwpt_model_emit(&M, s + pos, (size_t)(len - pos));
        CHECK_EQ(M.output_base, T1);
        finish_and_check(s, len, NULL, 0, T0, 0x7f);
    }
}

/* refusals: pool too small; no upcoming entry can become END */
TEST(refusals_pool_too_small_no_end)
{
    const uint8_t *s = stream();
    struct fwpt_pmi_result res;
    start();
    uint64_t pos = 0;
    emit_until_pmi(s, 20000, &pos, 0);
    struct fwpt_pmi_pool pool = {pool_phys, 1, 0, 0, false};
    struct fwpt_pmi_request rq = {&arena.mem, 0, 0, 4, 4, &pool, 0};
    CHECK_EQ(fwpt_pmi_handle(&cpu, &rq, &res), FWPT_E_NOMEM);
    CHECK(M.ctl & RTIT_CTL_TRACEEN); /* CTL restored on the error path too */
    rq = (struct fwpt_pmi_request){&arena.mem, T0, 3, 4, 1, &pool, 0};
    CHECK_EQ(fwpt_pmi_update_tables(&rq, &res), FWPT_E_INVAL);
}

TEST_MAIN("test_topa_pmi")
