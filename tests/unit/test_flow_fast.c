/* The flow decoder's fast paths against what they must give: every instruction carries the mode
 * it ran in (fill_fast stores only ip, size and iclass into entries prepared per mode), in all three
 * ways of reading (fwpt_flow_next, _batch, _run), with and without the instruction cache. */
#include <intel-pt.h>
#include <string.h>

#include "decode/flow.h"
#define FLOW_FIXTURE_CODE 0x1000
#include "tests/common/flow_fixture.h"
#include "tests/common/flow_ways.h"
#include "tests/check.h"



static uint8_t trace[4096];
static size_t trace_len;


/* One decoded item, whichever way it was read. */
struct item {
    uint8_t kind, size, iclass, mode;
    uint64_t ip;
};
#define MAXI 4096
static struct item got[MAXI];

static void put(void *ctx, const struct fwpt_flow_event *ev)
{
    size_t *n = ctx;
    if (*n < MAXI)
        got[(*n)++] = (struct item){ev->kind, ev->size, ev->iclass, ev->mode, ev->ip};
}

/* A run's instructions carry no class (FLOW_WAY_NO_ICLASS): the checks compare the rest. */
static size_t decode(enum flow_way w, bool with_cache)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    CHECK_EQ(fwpt_flow_init(&f, trace, trace_len, read_code, NULL, with_cache ? cache : NULL,
                            with_cache ? 4096 : 0), FWPT_OK);
    size_t n = 0;
    flow_way_read(&f, w, 0, put, &n);
    return n;
}

/* 64-bit code at base jumps (jmp rax) to 32-bit code at base+0x100: a loop of two 'inc eax' (0x40,
 * a REX prefix in 64-bit mode) and jnz back, taken 'loops' times; then jmp eax to 64-bit code at
 * base+0x200 (two nops, jmp rax), which goes back to base+0x100, 'rounds' times; disabled at the
 * last jmp rax. MODE.Exec precedes each TIP. From the second round every block is cached, so the
 * fast path starts in a mode other than the one of the buffer's previous fill. */
static void build(unsigned loops, unsigned rounds)
{
    memset(code, 0xcc, sizeof code);
    static const uint8_t a[] = {0x90, 0x90, 0xff, 0xe0};
    static const uint8_t b[] = {0x40, 0x40, 0x75, 0xfc, 0xff, 0xe0};
    memcpy(code, a, sizeof a);
    memcpy(code + 0x100, b, sizeof b);
    memcpy(code + 0x200, a, sizeof a);
    enc_begin(trace, sizeof trace, base);
    for (unsigned r = 0; r < rounds; r++) {
        pk_mode(32);
        pk_ip(ppt_tip, base + 0x100, pt_ipc_sext_48);
        unsigned left = loops + 1; /* 'loops' taken, then one not taken */
        while (left) {
            unsigned k = left > 40 ? 40 : left;
            uint64_t payload = 0;
            for (unsigned i = 0; i < k; i++) /* oldest bit most significant */
                payload = payload << 1 | (left - i > 1);
            pk_tnt(k, payload);
            left -= k;
        }
        pk_mode(64);
        pk_ip(ppt_tip, base + 0x200, pt_ipc_sext_48);
    }
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    uint64_t o = 0;
    pt_enc_get_offset(enc, &o);
    trace_len = (size_t)o;
    pt_free_encoder(enc);
}

static void check_modes(unsigned loops, unsigned rounds)
{
    build(loops, rounds);
    for (int w = FLOW_WAY_NEXT; w <= FLOW_WAY_RUN; w++) {
        for (int wc = 0; wc < 2; wc++) {
            size_t n = decode((enum flow_way)w, wc);
            size_t insns = 0, bad_mode = 0, bad_size = 0, modes = 0;
            for (size_t i = 0; i < n; i++) {
                if (got[i].kind == FWPT_FLOW_MODE)
                    modes++;
                if (got[i].kind != FWPT_FLOW_INSN)
                    continue;
                insns++;
                uint64_t o = got[i].ip - base;
                bool in32 = o >= 0x100 && o < 0x200;
                bad_mode += got[i].mode != (in32 ? FWPT_MODE_32 : FWPT_MODE_64);
                bad_size += got[i].size != ((o & 0xff) < 2 ? 1 : 2); /* nop/inc, then jcc/jmp */
            }
            CHECK_EQ(insns, 3 + rounds * (3 * (loops + 1) + 1 + 3));
            CHECK_EQ(bad_mode, 0);
            CHECK_EQ(bad_size, 0);
            CHECK_EQ(modes, 2 * rounds);
        }
    }
}

/* few loops: one fill of the 256-entry buffer */
TEST(modes_in_one_fill)
{
    check_modes(3, 4);
}

/* many loops: several fills of the 256-entry buffer in 32-bit mode, mode changes between fills and inside one */
TEST(modes_across_several_fills)
{
    check_modes(200, 3);
}

TEST_MAIN("flow_fast")
