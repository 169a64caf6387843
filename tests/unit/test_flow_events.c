/* The flow decoder on Event Trace (SDM "Event Trace": CFE, EVD, MODE.Exec's IF bit) and on TRIG's ICNT
 * (SDM "TRIG Packet"): exact events and where they stand among the instructions, through each of the
 * three ways to read the flow (fwpt_flow_next, fwpt_flow_next_run, fwpt_flow_next_batch). libipt's
 * encoder writes none of these packets (nor the IF bit): the traces are written byte by byte here, in
 * the SDM's packet formats. */
#include <stdio.h>
#include <string.h>

#include "decode/flow.h"
#include "tests/check.h"
#include "tests/common/flow_ways.h"

static uint8_t code[0x100];
static const uint64_t base = 0x10000;
static uint8_t trace[512];
static size_t tlen;

static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    (void)ctx;
    if (ip < base || ip - base >= sizeof code)
        return 0;
    *bytes = code + (ip - base);
    return sizeof code - (ip - base);
}

/* ---- packets (SDM "Packet Definitions") ---- */
static void b(unsigned v) { trace[tlen++] = (uint8_t)v; }
static void psb(void)
{
    for (int i = 0; i < 8; i++) {
        b(0x02);
        b(0x82);
    }
}
static void psbend(void) { b(0x02); b(0x23); }
/* FUP 1Dh, TIP 0Dh, TIP.PGD 01h; IPBytes 011b (6 bytes, sign-extended) or 000b (none) */
static void ip6(unsigned op, uint64_t ip)
{
    b(0x60 | op);
    for (int i = 0; i < 6; i++)
        b((unsigned)(ip >> (8 * i)) & 0xff);
}
static void fup(uint64_t ip) { ip6(0x1d, ip); }
static void tip(uint64_t ip) { ip6(0x0d, ip); }
static void tip_pgd_noip(void) { b(0x01); }
/* MODE.Exec 99h: byte 1 [2] IF, [1] CS.D, [0] CS.L */
static void mode_exec(int bits, int iflag) { b(0x99); b((iflag ? 4u : 0u) | (bits == 32 ? 2u : 0u) | (bits == 64 ? 1u : 0u)); }
/* short TNT with one bit */
static void tnt1(int taken) { b(taken ? 0x06 : 0x04); }
/* PIP 02 43, CR3[51:5] in bits 63:1 of the 6-byte payload */
static void pip(uint64_t cr3)
{
    uint64_t pl = (cr3 >> 5) << 1;
    b(0x02);
    b(0x43);
    for (int i = 0; i < 6; i++)
        b((unsigned)(pl >> (8 * i)) & 0xff);
}
/* CFE 02 13, [7] IP [4:0] type, vector */
static void cfe(unsigned type, unsigned vector, int ip) { b(0x02); b(0x13); b((ip ? 0x80u : 0u) | type); b(vector); }
/* EVD 02 53, [5:0] type, 8-byte payload */
static void evd(unsigned type, uint64_t payload)
{
    b(0x02);
    b(0x53);
    b(type);
    for (int i = 0; i < 8; i++)
        b((unsigned)(payload >> (8 * i)) & 0xff);
}
/* TRIG D9h, [7] IP [6] ICNTV [5] MULT, TRBV, ICNT[15:0] */
static void trig_icnt(unsigned trbv, unsigned icnt)
{
    b(0xd9);
    b(0x40);
    b(trbv);
    b(icnt & 0xff);
    b(icnt >> 8);
}

/* ---- decoding: one string per decode ---- */
static void item(char *out, size_t cap, size_t *n, const struct fwpt_flow_event *ev)
{
    char s[96] = "", at[24] = "";
    if (ev->ip_valid)
        snprintf(at, sizeof at, "@%llx", (unsigned long long)ev->ip);
    switch (ev->kind) {
    case FWPT_FLOW_INSN: snprintf(s, sizeof s, "I%llx", (unsigned long long)ev->ip); break;
    case FWPT_FLOW_ENABLED: snprintf(s, sizeof s, "%s%llx", ev->sync ? "S" : "E", (unsigned long long)ev->ip); break;
    case FWPT_FLOW_DISABLED: snprintf(s, sizeof s, "D"); break;
    case FWPT_FLOW_INTERRUPT: snprintf(s, sizeof s, "Q%llx", (unsigned long long)ev->to); break;
    case FWPT_FLOW_MODE: snprintf(s, sizeof s, "M%u%s", ev->mode, at); break;
    case FWPT_FLOW_IFLAGS: snprintf(s, sizeof s, "F%u%s", ev->detail, at); break;
    case FWPT_FLOW_PAGING: snprintf(s, sizeof s, "P%llx", (unsigned long long)ev->to); break;
    case FWPT_FLOW_TRIG: snprintf(s, sizeof s, "G%x%s", ev->detail, at); break;
    case FWPT_FLOW_ERROR:
        snprintf(s, sizeof s, "X%s/%llx%s", fwpt_status_name((enum fwpt_status)ev->status),
                 (unsigned long long)ev->offset, at);
        break;
    case FWPT_FLOW_CFE: {
        int k = snprintf(s, sizeof s, "C%u/%u", ev->detail, ev->size);
        if (ev->status & FWPT_EVD_CR2)
            k += snprintf(s + k, sizeof s - (size_t)k, "c%llx", (unsigned long long)ev->to);
        if (ev->status & FWPT_EVD_VMXQ)
            k += snprintf(s + k, sizeof s - (size_t)k, "q%llx", (unsigned long long)ev->to);
        if (ev->status & FWPT_EVD_VMXR)
            k += snprintf(s + k, sizeof s - (size_t)k, "r%llx", (unsigned long long)ev->data);
        snprintf(s + k, sizeof s - (size_t)k, "%s", at);
        break;
    }
    default: snprintf(s, sizeof s, "?%u", ev->kind); break;
    }
    if (*n + strlen(s) + 2 < cap)
        *n += (size_t)snprintf(out + *n, cap - *n, "%s%s", *n ? " " : "", s);
}

enum api { API_NEXT, API_RUN, API_BATCH, API_NOCACHE };
static const char *const api_name[] = {"next", "next_run", "next_batch", "next without cache"};

struct text {
    char *out;
    size_t cap, n;
};
static void put(void *ctx, const struct fwpt_flow_event *ev)
{
    struct text *t = ctx;
    item(t->out, t->cap, &t->n, ev);
}

static void decode(enum api a, char *out, size_t cap)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[64];
    static const enum flow_way how[] = {[API_NEXT] = FLOW_WAY_NEXT, [API_RUN] = FLOW_WAY_RUN,
                                        [API_BATCH] = FLOW_WAY_BATCH, [API_NOCACHE] = FLOW_WAY_NEXT};
    CHECK_EQ(fwpt_flow_init(&f, trace, tlen, read_code, NULL, a == API_NOCACHE ? NULL : cache,
                            a == API_NOCACHE ? 0 : 64), FWPT_OK);
    fwpt_flow_set_iflags(&f, true); /* these traces are written with Event Trace */
    struct text t = {out, cap, 0};
    out[0] = 0;
    flow_way_read(&f, how[a], 1000, put, &t);
}

static void expect(const char *what, const char *want)
{
    for (int a = API_NEXT; a <= API_NOCACHE; a++) {
        char got[2048];
        decode((enum api)a, got, sizeof got);
        if (strcmp(got, want))
            fprintf(stderr, "%s (%s):\n  want %s\n  got  %s\n", what, api_name[a], want, got);
        CHECK(!strcmp(got, want));
    }
}

static void begin(uint64_t ip)
{
    tlen = 0;
    psb();
    mode_exec(64, 1);
    fup(ip);
    psbend();
}

static void set_code(const uint8_t *bytes, size_t n)
{
    memset(code, 0xf4, sizeof code); /* hlt */
    memcpy(code, bytes, n);
}

int main(void)
{
    /* 10000 nop, 10001 nop, 10002 nop, 10003 hlt; 10010 iretq; 10020 vmresume */
    static const uint8_t prog[] = {0x90, 0x90, 0x90, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4,
                                   0xf4, 0xf4, 0xf4, 0x48, 0xcf, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4,
                                   0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0x0f, 0x01, 0xc3};
    set_code(prog, sizeof prog);

    /* A page fault: EVD CR2, CFE INTR 14 without IP, then the FUP+TIP of the transfer. The CFE is given
     * where the walk reaches the FUP, before the interrupt. The handler's IRETQ: CFE IRET with IP names
     * the IRETQ, which executes; the event follows it, before its TIP. */
    begin(0x10000);
    evd(0, 0xdead000);
    cfe(1, 14, 0);
    fup(0x10001);
    tip(0x10010);
    cfe(2, 0, 1);
    fup(0x10010);
    tip(0x10001);
    fup(0x10002);
    tip_pgd_noip();
    expect("INTR with CR2, IRET with IP", "S10000 I10000 C1/14cdead000 Q10010 I10010 C2/0@10010 I10001 D");

    /* the same with the IRET's CFE without IP: given at the TIP it describes */
    begin(0x10000);
    cfe(14, 0x80, 0);
    fup(0x10001);
    tip(0x10010);
    cfe(2, 0, 0);
    tip(0x10001);
    fup(0x10002);
    tip_pgd_noip();
    expect("SWINTR and IRET without IP", "S10000 I10000 C14/128 Q10010 I10010 C2/0 I10001 D");

    /* A VM exit (EVD exit qualification and reason, CFE VMEXIT_INTR with IP: the FUP is shared with the
     * transfer), the PIP of the transfer after it; the VM entry names the VMRESUME, given after it and
     * before the PIP its TIP carries. */
    begin(0x10000);
    evd(1, 0x55);
    evd(2, 0x1);
    cfe(9, 32, 1);
    fup(0x10001);
    pip(0xf000);
    tip(0x10020);
    cfe(7, 0, 1);
    fup(0x10020);
    pip(0xb000);
    tip(0x10001);
    fup(0x10002);
    tip_pgd_noip();
    expect("VMEXIT_INTR and VMENTRY", "S10000 I10000 C9/32q55r1@10001 Q10020 Pf000 I10020 C7/0@10020 Pb000 I10001 D");

    /* Tracing off (PSB+ without FUP): CFEs and MODE.Exec+FUP are given at once, with the FUP's IP when
     * they have one; a reserved CFE type is given as it is; a reserved EVD type is skipped. */
    tlen = 0;
    psb();
    mode_exec(64, 1);
    psbend();
    mode_exec(32, 0);
    fup(0x10000);
    cfe(3, 0, 1);
    fup(0x10001);
    cfe(4, 0, 0);
    evd(31, 0);
    cfe(5, 0xce, 0);
    cfe(31, 0, 1);
    fup(0x10002);
    expect("tracing off", "M32@10000 F0@10000 C3/0@10001 C4/0 C5/206 C31/0@10002");

    /* IF changes: MODE.Exec + FUP binds to the FUP's IP (after the STI/CLI before it), not to a transfer;
     * a MODE.Exec that repeats code size and IF gives nothing. 10000 sti, 10001 nop, 10002 cli, 10003 nop */
    static const uint8_t ifprog[] = {0xfb, 0x90, 0xfa, 0x90, 0xf4};
    set_code(ifprog, sizeof ifprog);
    tlen = 0;
    psb();
    mode_exec(64, 0);
    fup(0x10000);
    psbend();
    mode_exec(64, 1);
    fup(0x10001);
    mode_exec(64, 1);
    fup(0x10002);
    mode_exec(64, 0);
    fup(0x10003);
    fup(0x10004);
    tip_pgd_noip();
    expect("IF", "S10000 I10000 F1@10001 I10001 I10002 F0@10003 I10003 D");

    /* EVD that its CFE does not take (CR2 for an IRET), and EVD CR2 with VMX data: E_BAD_CONTEXT at the
     * packet, no IP; the decoder resumes at the next PSB+. */
    set_code(prog, sizeof prog);
    begin(0x10000);
    evd(0, 0xf00);
    size_t at = tlen;
    cfe(2, 0, 0);
    fup(0x10001);
    tip(0x10010);
    psb();
    mode_exec(64, 1);
    fup(0x10001);
    psbend();
    fup(0x10002);
    tip_pgd_noip();
    char want[128];
    snprintf(want, sizeof want, "S10000 XE_BAD_CONTEXT/%zx S10001 I10001 D", at);
    expect("EVD CR2 + CFE IRET", want);
    begin(0x10000);
    evd(0, 0xf00);
    at = tlen;
    evd(1, 0);
    cfe(8, 0, 0);
    snprintf(want, sizeof want, "S10000 XE_BAD_CONTEXT/%zx", at);
    expect("EVD CR2 + EVD VMXQ", want);
    begin(0x10000);
    evd(2, 0);
    at = tlen;
    evd(2, 1);
    snprintf(want, sizeof want, "S10000 XE_BAD_CONTEXT/%zx", at);
    expect("two EVD VMXR", want);

    /* TRIG with ICNT: given before the instruction ICNT instructions after the packet before it (a TRIG
     * after a TRIG counts from there), with that instruction's IP. 10000..10009 nop, 1000a hlt */
    static const uint8_t nops[] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
    set_code(nops, sizeof nops);
    begin(0x10000);
    trig_icnt(0xa1, 3);
    trig_icnt(0xa2, 0);
    trig_icnt(0xa3, 2);
    fup(0x10008);
    tip_pgd_noip();
    expect("TRIG ICNT after PSB+",
           "S10000 I10000 I10001 I10002 Ga1@10003 Ga2@10003 I10003 I10004 Ga3@10005 I10005 I10006 I10007 D");

    /* after a TNT: counted from the branch that took its last bit; the TIP.PGD's FUP comes after the TRIG.
     * 10000 jz 10004 (74 02), 10002 nop, 10003 nop, 10004..10007 nop, 10008 hlt */
    static const uint8_t jz[] = {0x74, 0x02, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
    set_code(jz, sizeof jz);
    begin(0x10000);
    tnt1(1);
    trig_icnt(0x1b, 2);
    fup(0x10007);
    tip_pgd_noip();
    expect("TRIG ICNT after TNT", "S10000 I10000 I10004 I10005 G1b@10006 I10006 D");

    /* the same where the walk's fast loop (cached blocks) takes the TNT's last bit: 10000 jz 10004 runs twice
     * (10002 jmp 10000), the second time from the cache */
    static const uint8_t loop[] = {0x74, 0x02, 0xeb, 0xfc, 0x90, 0x90, 0x90, 0x90, 0x90};
    set_code(loop, sizeof loop);
    begin(0x10000);
    b(0x0a); /* short TNT: not taken, then taken (stop bit at bit 3) */
    trig_icnt(0x1d, 2);
    fup(0x10008);
    tip_pgd_noip();
    expect("TRIG ICNT after TNT, cached", "S10000 I10000 I10002 I10000 I10004 I10005 G1d@10006 I10006 I10007 D");

    /* a TRIG whose ICNT runs to a disable is given before it */
    set_code(jz, sizeof jz);
    begin(0x10000);
    tnt1(0);
    trig_icnt(0x1c, 9);
    fup(0x10003);
    tip_pgd_noip();
    expect("TRIG ICNT past the disable", "S10000 I10000 I10002 G1c D");

    return check_summary("flow_events");
}
