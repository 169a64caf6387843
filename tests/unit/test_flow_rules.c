/* Flow decoder rules on hand-made traces (encoded with libipt): the 64-entry RET-compression
 * stack (oldest entry dropped), an error with its offset and IP and the resume at the next TIP,
 * the runaway guard, a disable bound to a direct branch by its target, and where a cut trace
 * (no TIP.PGD at its end) leaves the walk (fwpt_flow_cut). */
#include <intel-pt.h>
#include <string.h>

#include "decode/flow.h"
#define FLOW_FIXTURE_CODE 0x3000
#include "tests/common/flow_fixture.h"
#include "tests/check.h"



static uint8_t trace[4096];
static void start(uint64_t ip)
{
    enc_begin(trace, sizeof trace, ip);
}

struct result {
    unsigned long insns, errors, disabled, paging, ended, interrupts;
    uint64_t paging_cr3, int_ip, int_to;
    uint32_t first_error;
    uint64_t err_ip, err_off, last_ip, disabled_ip;
    bool cut;        /* fwpt_flow_cut after the end */
    uint64_t cut_ip;
};
static struct result run(uint64_t runaway)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[64];
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
            r.last_ip = ev.ip;
        } else if (ev.kind == FWPT_FLOW_ERROR) {
            if (!r.errors++) {
                r.first_error = ev.status;
                r.err_ip = ev.ip;
                r.err_off = ev.offset;
            }
        } else if (ev.kind == FWPT_FLOW_DISABLED) {
            r.disabled++;
            r.disabled_ip = ev.ip;
        } else if (ev.kind == FWPT_FLOW_PAGING) {
            r.paging++;
            r.paging_cr3 = ev.to;
        } else if (ev.kind == FWPT_FLOW_END) {
            r.ended++;
        } else if (ev.kind == FWPT_FLOW_INTERRUPT) {
            r.interrupts++;
            r.int_ip = ev.ip;
            r.int_to = ev.to;
        }
    }
    r.cut = fwpt_flow_cut(&f, &r.cut_ip);
    return r;
}

/* 'jmp *%rax' at base+0x10 goes to 'nowhere' (no code there): one E_NOMAP naming it at that TIP's
 * offset; the next TIP (base+0x100) resumes, four nops to the FUP+TIP.PGD. */
static void nomap_resumes(uint64_t nowhere, enum pt_ip_compression ipc)
{
    memset(code, 0x90, sizeof code);
    code[0x10] = 0xff, code[0x11] = 0xe0; /* jmp *%rax */
    start(base);
    pk_ip(ppt_tip, nowhere, ipc);
    uint64_t resume = enc_offset();
    pk_ip(ppt_tip, base + 0x100, ipc);
    pk_ip(ppt_fup, base + 0x104, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    struct result r = run(0);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_NOMAP);
    CHECK_EQ(r.err_ip, nowhere);
    CHECK_EQ(r.err_off, resume);
    CHECK_EQ(r.insns, 0x10 + 1 + 4);
    CHECK_EQ(r.disabled_ip, base + 0x104);
}

/* f_i at base + 6*i: call f_(i+1); ret. f_70: ret. A caller-less f_0 returns to 0x12000. */
static void chain(int levels)
{
    memset(code, 0x90, sizeof code);
    for (int i = 0; i < levels; i++) {
        uint8_t *p = code + 6 * i;
        p[0] = 0xe8;
        uint32_t rel = 1; /* to base + 6*(i+1) from base + 6*i + 5 */
        memcpy(p + 1, &rel, 4);
        p[5] = 0xc3;
    }
    code[6 * levels] = 0xc3;
}

/* The trace ends with two PIPs after the FUP at 'mov cr3, rax' (base+0x2ff8; nops to the end of the
 * code at base+0x3000). The first binds to it; the second waits for a MOV CR3 (SDM "PIP Packet"), so
 * the trace data is not all used (no END): the walk looks for it, and code that runs out first is
 * E_NOMAP there, at the trace's end. With a second MOV CR3 in the code both bind, END follows, and
 * code running out past the end is only where the walk stops (cut). */
static void pip_past_the_end(void)
{
    static const uint8_t mov_cr3[] = {0x0f, 0x22, 0xd8};
    memset(code, 0x90, sizeof code);
    memcpy(code + 0x2ff8, mov_cr3, sizeof mov_cr3);
    start(base + 0x2ff8);
    pk_pip(0xa000);
    pk_pip(0xb000);
    uint64_t len = enc_offset();
    struct result r = run(0);
    CHECK_EQ(r.insns, 1 + 5);
    CHECK_EQ(r.paging, 1);
    CHECK_EQ(r.paging_cr3, 0xa000);
    CHECK_EQ(r.ended, 0);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_NOMAP);
    CHECK_EQ(r.err_ip, base + 0x3000);
    CHECK_EQ(r.err_off, len);
    CHECK(!r.cut);

    memcpy(code + 0x2ffc, mov_cr3, sizeof mov_cr3);
    start(base + 0x2ff8);
    pk_pip(0xa000);
    pk_pip(0xb000);
    r = run(0);
    CHECK_EQ(r.insns, 4); /* mov cr3, nop, mov cr3, nop */
    CHECK_EQ(r.paging, 2);
    CHECK_EQ(r.paging_cr3, 0xb000);
    CHECK_EQ(r.ended, 1);
    CHECK_EQ(r.errors, 0);
    CHECK(r.cut);
    CHECK_EQ(r.cut_ip, base + 0x3000);
}

/* JMPABS (APX: D5 00 A1 imm64) goes where its TIP says, not to its immediate (Intel PT reports it
 * like an indirect jump); its TIP.PGD carries the target as for an indirect jump. */
static void jmpabs(void)
{
    static const uint8_t ja[] = {0xd5, 0x00, 0xa1, 0x00, 0x20, 0x01, 0, 0, 0, 0, 0}; /* jmpabs 0x12000 */
    memset(code, 0x90, sizeof code);
    memcpy(code + 0x10, ja, sizeof ja);
    start(base + 0x10);
    pk_ip(ppt_tip, base + 0x100, pt_ipc_update_16);
    pk_ip(ppt_fup, base + 0x102, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    struct result r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.insns, 1 + 2); /* jmpabs, two nops at the TIP's target */
    CHECK_EQ(r.last_ip, base + 0x101);
    CHECK_EQ(r.disabled_ip, base + 0x102);

    start(base + 0x10);
    pk_ip(ppt_tip_pgd, base + 0x200, pt_ipc_update_16);
    r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.insns, 1);
    CHECK_EQ(r.disabled, 1);
    CHECK_EQ(r.disabled_ip, base + 0x200);
}

/* FRED: an interrupt (FUP + TIP) into a handler that ends with ERETU (F3 0F 01 CA) or ERETS
 * (F2 0F 01 CA): the return takes its TIP like IRET. */
static void fred_eret(uint8_t rep)
{
    static const uint8_t handler[] = {0x90, 0xf3, 0x0f, 0x01, 0xca};
    memset(code, 0x90, sizeof code);
    memcpy(code + 0x400, handler, sizeof handler);
    code[0x401] = rep;
    start(base);
    pk_ip(ppt_fup, base + 2, pt_ipc_update_16);
    pk_ip(ppt_tip, base + 0x400, pt_ipc_update_16);
    pk_ip(ppt_tip, base + 2, pt_ipc_update_16);
    pk_ip(ppt_fup, base + 4, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    struct result r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.interrupts, 1);
    CHECK_EQ(r.int_ip, base + 2);
    CHECK_EQ(r.int_to, base + 0x400);
    CHECK_EQ(r.insns, 2 + 2 + 2); /* two nops, nop + eret, two nops */
    CHECK_EQ(r.last_ip, base + 3);
    CHECK_EQ(r.disabled_ip, base + 4);
}

int main(void)
{
    pip_past_the_end();
    jmpabs();
    fred_eret(0xf3);
    fred_eret(0xf2);

    /* 70 nested calls: the youngest 64 returns are compressed, the older 6 and f_0's are TIPs */
    chain(70);
    start(base);
    uint64_t ones = ~0ull;
    pk_tnt(47, ones >> (64 - 47));
    pk_tnt(17, ones >> (64 - 17));
    for (int i = 5; i >= 0; i--) /* f_6 .. f_1 return into f_5 .. f_0 */
        pk_ip(ppt_tip, base + 6 * i + 5, pt_ipc_update_16);
    pk_ip(ppt_tip, base + 0x2000, pt_ipc_update_16); /* f_0 returns to its caller */
    pk_ip(ppt_fup, base + 0x2000, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    struct result r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.insns, 70 + 71);
    CHECK_EQ(r.last_ip, base + 5); /* f_0's ret */
    CHECK_EQ(r.disabled, 1);
    CHECK_EQ(r.disabled_ip, base + 0x2000);
    CHECK(!r.cut); /* ended by TIP.PGD */

    /* the 65th return meets a TNT bit: the entry was dropped (SDM "Indirect Transfer Compression for Returns (RET)": 64 entries) */
    chain(70);
    start(base);
    pk_tnt(47, ones >> (64 - 47));
    pk_tnt(18, ones >> (64 - 18));
    uint64_t tip_off = enc_offset();
    pk_ip(ppt_tip, base + 0x2000, pt_ipc_update_16);
    pk_ip(ppt_fup, base + 0x2001, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    r = run(0);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_RETSTACK);
    CHECK_EQ(r.err_ip, base + 6 * 6 + 5); /* f_6 returns into f_5, whose call was the dropped oldest entry */
    CHECK_EQ(r.err_off, tip_off);
    /* resumed at the next TIP: one nop at base+0x2000, then disabled at base+0x2001 */
    CHECK_EQ(r.last_ip, base + 0x2000);
    CHECK_EQ(r.disabled_ip, base + 0x2001);

    /* no code: E_NOMAP names the IP; the next TIP resumes */
    nomap_resumes(0x500000, pt_ipc_update_32);

    /* A TIP to ~0 (also the cache's empty ip) with the cache warm from the runs above: no code there
     * is E_NOMAP, never a stale block served as instructions at ~0 (found by fuzzing). */
    for (int warm = 0; warm < 2; warm++)
        nomap_resumes(~0ull, pt_ipc_full);

    /* runaway: jmp . with no packet ever needed */
    memset(code, 0x90, sizeof code);
    code[0] = 0xeb, code[1] = 0xfe;
    start(base);
    r = run(5000);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.first_error, FWPT_E_RUNAWAY);
    CHECK(r.insns >= 5000 && r.insns < 5000 + FWPT_FLOW_BLOCK_INSNS + 2);
    CHECK(!r.cut); /* the end came while searching after the error, not inside a walk */

    /* TIP.PGD with the IP of a direct jmp's target binds to that jmp (leaves the filter range) */
    memset(code, 0x90, sizeof code);
    code[4] = 0xe9;
    uint32_t rel = 0x1000 - 9;
    memcpy(code + 5, &rel, 4); /* jmp base+0x1000 */
    start(base);
    pk_ip(ppt_tip_pgd, base + 0x1000, pt_ipc_update_16);
    r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.insns, 5);
    CHECK_EQ(r.last_ip, base + 4);
    CHECK_EQ(r.disabled_ip, base + 0x1000);

    /* a conditional branch that meets a TIP instead of a TNT bit */
    memset(code, 0x90, sizeof code);
    code[2] = 0x74, code[3] = 0x10; /* je */
    start(base);
    uint64_t tip3 = enc_offset();
    pk_ip(ppt_tip, base + 0x40, pt_ipc_update_16);
    pk_ip(ppt_fup, base + 0x41, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    r = run(0);
    CHECK_EQ(r.first_error, FWPT_E_NO_TNT);
    CHECK_EQ(r.err_ip, base + 2);
    CHECK_EQ(r.err_off, tip3);
    CHECK_EQ(r.last_ip, base + 0x40); /* resumed at that TIP */

    /* the trace ends where the walk needs a TNT bit (the buffer filled): je at base+2 takes the only bit to
     * base+0x14, the walk goes on to the je at base+0x20 and stops there, listed, with fwpt_flow_cut naming it */
    memset(code, 0x90, sizeof code);
    code[2] = 0x74, code[3] = 0x10;       /* je base+0x14 */
    code[0x20] = 0x74, code[0x21] = 0x10; /* je base+0x32 */
    start(base);
    pk_tnt(1, 1);
    r = run(0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.insns, 3 + 13);
    CHECK_EQ(r.last_ip, base + 0x20);
    CHECK(r.cut);
    CHECK_EQ(r.cut_ip, base + 0x20);

    /* ... where an indirect jump needs its TIP */
    memset(code, 0x90, sizeof code);
    code[6] = 0xff, code[7] = 0xe0; /* jmp *%rax */
    start(base);
    r = run(0);
    CHECK_EQ(r.insns, 7);
    CHECK(r.cut);
    CHECK_EQ(r.cut_ip, base + 6);

    /* ... after a FUP whose TIP (or TIP.PGD) is missing: stopped at the FUP's IP, not listed */
    memset(code, 0x90, sizeof code);
    start(base);
    pk_ip(ppt_fup, base + 8, pt_ipc_update_16);
    r = run(0);
    CHECK_EQ(r.insns, 8);
    CHECK_EQ(r.last_ip, base + 7);
    CHECK(r.cut);
    CHECK_EQ(r.cut_ip, base + 8);

    /* the same walk ended by FUP + TIP.PGD: not cut */
    start(base);
    pk_ip(ppt_fup, base + 8, pt_ipc_update_16);
    pk_ip(ppt_tip_pgd, 0, pt_ipc_suppressed);
    r = run(0);
    CHECK_EQ(r.insns, 8);
    CHECK_EQ(r.disabled, 1);
    CHECK(!r.cut);
    return check_summary("flow_rules");
}
