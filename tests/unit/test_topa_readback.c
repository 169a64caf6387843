/* topa: readback edge cases — operational errors (what is kept), TraceStop-style Stopped, the
 * documented residual ambiguity of wrap detection, write pointer off the tables, span overflow. */
#include "tests/check.h"
#include "tests/common/topa_fixture.h"
#include "sim/model.h"
#include "topa/readback.h"

#define PHYS 0x40000000ull
#define T0 PHYS
#define T1 (PHYS + 0x1000)
#define REG(i) (PHYS + 0x10000 + (uint64_t)(i) * 0x1000)

static struct topa_arena arena;
static struct fwpt_model M;
static struct fwpt_cpu cpu;

static void put(uint64_t table, unsigned i, uint64_t raw) { fwpt_physmem_write64(&arena.mem, table + 8ull * i, raw); }
static uint64_t region(uint64_t base)
{
    struct fwpt_topa_entry e = {base, 0, false, false, false, 0};
    return fwpt_topa_encode(&e);
}
static uint64_t end_to(uint64_t t)
{
    struct fwpt_topa_entry e = {t, 0, false, false, true, 0};
    return fwpt_topa_encode(&e);
}

static void go(uint64_t ctl, uint64_t base, uint64_t ptrs, const uint8_t *s, uint64_t len)
{
    struct fwpt_caps caps;
    topa_caps(&caps, TOPA_CAPS_MULTI, 39);
    fwpt_model_init(&M, &caps, &arena.mem);
    cpu = fwpt_model_cpu(&M);
    fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_BASE, base);
    fwpt_wrmsr(&cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, ptrs);
    fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, ctl | RTIT_CTL_TRACEEN);
    fwpt_model_emit(&M, s, (size_t)len);
    fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, ctl);
}

static struct fwpt_span spans[16];
static struct fwpt_readback rb;
static uint8_t got[1 << 16];

static void arena_free(void)
{
    topa_arena_free(&arena);
}

/* Each case's start: the arena (made on first use, freed at exit) all zero; returns the stream the cases emit,
 * 32 KiB of bytes 1..255 (none zero). */
static const uint8_t *fresh(void)
{
    static uint8_t s[1 << 15];
    static int made;
    if (!made) {
        topa_arena_init(&arena, PHYS, 1 << 20);
        atexit(arena_free);
        uint64_t seed = 5;
        for (size_t i = 0; i < sizeof s; i++)
            s[i] = (uint8_t)(1 + topa_rand(&seed) % 255);
        made = 1;
    }
    memset(arena.buf, 0, arena.size);
    return s;
}

static enum fwpt_status back(uint64_t ctl, uint64_t base, uint64_t ptrs, enum fwpt_wrap_hint hint, size_t cap)
{
    rb = (struct fwpt_readback){spans, cap, 0, 0, 0, 0, false, false, false, false, NULL, 0};
    struct fwpt_readback_in in = {&arena.mem, ctl, base, ptrs, M.output_base, M.output_mask_ptrs, M.status, hint, 0};
    enum fwpt_status st = fwpt_readback(&in, &rb);
    if (st == FWPT_OK)
        CHECK_EQ(fwpt_readback_copy(&arena.mem, &rb, got, sizeof got), rb.bytes);
    return st;
}

/* Operational error at a bad region entry (reserved bit): regions before it kept, complete = no */
TEST(operational_error_bad_region_entry)
{
    const uint8_t *s = fresh();
    put(T0, 0, region(REG(0)));
    put(T0, 1, region(REG(1)));
    put(T0, 2, region(REG(2)) | FWPT_BIT(3));
    put(T0, 3, end_to(T0));
    go(RTIT_CTL_TOPA, T0, 0x7f, s, 3 * 4096);
    CHECK(M.status & RTIT_STATUS_ERROR);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK(rb.error && !rb.complete && !rb.wrapped);
    CHECK_EQ(rb.bytes, 8192);
    CHECK(memcmp(got, s, 8192) == 0);
    CHECK_EQ(rb.regions_used, 2);
    CHECK(strstr(rb.reason, "operational error") != NULL);
    CHECK(strstr(rb.reason, "lost") != NULL);
}

/* ...at a bad END (END with STOP): the walk cannot enter it; regions before it kept */
TEST(operational_error_bad_end_entry)
{
    const uint8_t *s = fresh();
    put(T0, 0, region(REG(0)));
    put(T0, 1, region(REG(1)));
    put(T0, 2, end_to(T0) | TOPA_ENTRY_STOP);
    go(RTIT_CTL_TOPA, T0, 0x7f, s, 3 * 4096);
    CHECK(M.status & RTIT_STATUS_ERROR);
    CHECK_EQ(M.error_entry, 2);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK(rb.error);
    CHECK_EQ(rb.bytes, 8192);
    CHECK(memcmp(got, s, 8192) == 0);
}

/* ...at enable (table base misaligned): nothing written, said so */
TEST(operational_error_at_enable)
{
    const uint8_t *s = fresh();
    go(RTIT_CTL_TOPA, T0 + 0x80, 0x7f, s, 100);
    CHECK(M.status & RTIT_STATUS_ERROR);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0 + 0x80, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK_EQ(rb.bytes, 0);
    CHECK(rb.error && !rb.complete);
}

/* Stopped with the pointer inside a region (TraceStop): every byte kept */
TEST(stopped_inside_region_keeps_all)
{
    const uint8_t *s = fresh();
    put(T0, 0, region(REG(0)));
    put(T0, 1, end_to(T0));
    go(RTIT_CTL_TOPA, T0, 0x7f, s, 1000);
    M.status |= RTIT_STATUS_STOPPED;
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK(rb.stopped && rb.complete);
    CHECK_EQ(rb.bytes, 1000);
    CHECK(strstr(rb.reason, "TraceStop") != NULL);
}

/* Wrap detection's residual ambiguity: a wrapped single range whose oldest kept bytes are all
 * zero is reported as not wrapped; only those zeros (before any PSB) are left out. */
TEST(wrap_detection_residual_ambiguity)
{
    const uint8_t *s = fresh();
    static uint8_t z[4096 + 10];
    memset(z, 0, sizeof z);
    memcpy(z, s, 10);                /* overwritten by the wrap */
    memcpy(z + 4096, s + 100, 10);   /* newest bytes */
    go(0, REG(0), 0xfff, z, sizeof z);
    CHECK_EQ(M.stats.wraps, 1);
    CHECK_EQ(back(0, REG(0), 0xfff, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK(!rb.wrapped);
    CHECK_EQ(rb.bytes, 10);
    CHECK(memcmp(got, z + 4096, 10) == 0);
    CHECK_EQ(back(0, REG(0), 0xfff, FWPT_WRAP_YES, 16), FWPT_OK); /* the model knows */
    CHECK(rb.wrapped && !rb.complete);
    CHECK_EQ(rb.bytes, 4096);
    CHECK(memcmp(got, z + 10, 4096) == 0);
    CHECK_EQ(rb.count, 2);
    CHECK_EQ(spans[0].phys, REG(0) + 10);
    CHECK_EQ(spans[1].phys, REG(0));
}

/* ToPA ring wrapped: oldest byte at the write pointer; spans merge where memory is contiguous */
TEST(topa_ring_wrapped_spans_and_errors)
{
    const uint8_t *s = fresh();
    put(T0, 0, region(REG(0)));
    put(T0, 1, region(REG(1)));
    put(T0, 2, end_to(T1));
    put(T1, 0, region(REG(2)));
    put(T1, 1, end_to(T0));
    go(RTIT_CTL_TOPA, T0, 0x7f, s, 3 * 4096 + 4096 + 5);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_OK);
    CHECK(rb.wrapped);
    CHECK_EQ(rb.count, 2);                 /* [REG(1)+5, REG(3)) and [REG(0), REG(1)+5) */
    CHECK_EQ(spans[0].phys, REG(1) + 5);
    CHECK_EQ(spans[0].len, 2 * 4096 - 5);
    CHECK_EQ(spans[1].phys, REG(0));
    CHECK_EQ(spans[1].len, 4096 + 5);
    CHECK(memcmp(got, s + 4096 + 5, 3 * 4096) == 0);
    CHECK_EQ(rb.regions_used, 3);
    CHECK_EQ(rb.regions_total, 3);
    /* too few spans: E_NOMEM and how many were needed */
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 1), FWPT_E_NOMEM);
    CHECK_EQ(rb.count, 2);
    /* a write pointer that is not on the tables */
    M.output_base = T1;
    M.output_mask_ptrs = fwpt_mask_ptrs_make(5, 0);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_E_TOPA);
    /* offset beyond the region */
    M.output_base = T0;
    M.output_mask_ptrs = fwpt_mask_ptrs_make(0, 8192);
    CHECK_EQ(back(RTIT_CTL_TOPA, T0, 0x7f, FWPT_WRAP_DETECT, 16), FWPT_E_TOPA);

}

TEST_MAIN("test_topa_readback")
