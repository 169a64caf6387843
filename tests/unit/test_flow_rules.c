/* Flow decoder rules on hand-made traces (encoded with libipt) that need the decoder itself rather than the tool:
 * the block cache kept warm across decodes, and the runaway guard (no option of `fwpt flow` sets its limit). The
 * transfer rules (TNT, compressed RET, TIP, FUP+TIP, TIP.PGE/PGD, OVF, PSB+, MODE.Exec, a cut trace) are text cases
 * in tests/cases, run by test_cases. */
#include <intel-pt.h>
#include <string.h>

#include "decode/flow.h"
#define FLOW_FIXTURE_CODE 0x3000
#include "tests/common/flow_fixture.h"
#include "tests/check.h"

static uint8_t trace[4096];
static struct fwpt_flow_block cache[64]; /* kept across decodes: a case may warm it for the next */

struct result {
    unsigned long insns, errors;
    uint32_t first_error;
    uint64_t err_ip, err_off, disabled_ip;
    bool cut;
};
static struct result run(uint64_t runaway)
{
    static struct fwpt_flow f;
    struct result r;
    memset(&r, 0, sizeof r);
    uint64_t len = enc_offset();
    pt_free_encoder(enc);
    CHECK_EQ(fwpt_flow_init(&f, trace, len, read_code, NULL, cache, 64), FWPT_OK);
    if (runaway)
        fwpt_flow_set_runaway_limit(&f, runaway);
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK && r.insns < 1000000) {
        if (ev.kind == FWPT_FLOW_INSN) {
            r.insns++;
        } else if (ev.kind == FWPT_FLOW_ERROR && !r.errors++) {
            r.first_error = ev.status;
            r.err_ip = ev.ip;
            r.err_off = ev.offset;
        } else if (ev.kind == FWPT_FLOW_DISABLED) {
            r.disabled_ip = ev.ip;
        }
    }
    uint64_t cut_ip;
    r.cut = fwpt_flow_cut(&f, &cut_ip);
    return r;
}

/* 'jmp *%rax' at base+0x10 goes to ~0 (also the cache's empty ip; no code there): one E_NOMAP naming it at the next
 * TIP's offset, which resumes: four nops to the FUP+TIP.PGD. */
static void tip_to_all_ones(void)
{
    memset(code, 0x90, sizeof code);
    code[0x10] = 0xff, code[0x11] = 0xe0; /* jmp *%rax */
    enc_begin(trace, sizeof trace, base);
    pk_ip(ppt_tip, ~0ull, pt_ipc_full);
    uint64_t resume = enc_offset();
    pk_ip(ppt_tip, base + 0x100, pt_ipc_full);
    pk_ip(ppt_fup, base + 0x104, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    struct result r = run(0);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_NOMAP);
    CHECK_EQ(r.err_ip, ~0ull);
    CHECK_EQ(r.err_off, resume);
    CHECK_EQ(r.insns, 0x10 + 1 + 4);
    CHECK_EQ(r.disabled_ip, base + 0x104);
}

/* A TIP to ~0 with the cache warm from the decode before: no code there is E_NOMAP, never a stale block served as
 * instructions at ~0 (found by fuzzing). */
TEST(tip_to_all_ones_warm_cache)
{
    for (int warm = 0; warm < 2; warm++)
        tip_to_all_ones();
}

/* runaway: jmp . with no packet ever needed: E_RUNAWAY after the limit, and the end came while searching after the
 * error, not inside a walk (not cut) */
TEST(runaway)
{
    memset(code, 0x90, sizeof code);
    code[0] = 0xeb, code[1] = 0xfe;
    enc_begin(trace, sizeof trace, base);
    struct result r = run(5000);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_RUNAWAY);
    CHECK(r.insns >= 5000 && r.insns < 5000 + FWPT_FLOW_BLOCK_INSNS + 2);
    CHECK(!r.cut);
}

TEST_MAIN("flow_rules")
