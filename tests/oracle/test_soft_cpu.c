/* Oracle test of the software trace CPU (sim/soft_cpu) on the host: the same path the EFI backend
 * runs, minus the single-stepping. For several built-in CPU profiles and output settings (single-
 * entry ToPA, multi-entry stop, a ring that wraps, IP filter, TraceStop, timing packets): plan and
 * ToPA tables in memory, the MSR sequence (arch/trace) over the soft CPU, a random program's
 * execution fed instruction by instruction, TraceEn=0, readback; then libipt's instruction decoder
 * and fwpt's flow decoder must both decode the captured bytes to exactly the instructions the
 * processor would have traced (fwpt_soft_verify), and the MSRs end clean. */
#include <intel-pt.h>
#include <stdlib.h>

#include "sim/soft_cpu.h"
#include "arch/trace.h"
#include "decode/flow.h"
#include "render/report.h"
#include "tests/check.h"
#include "tests/common/ipt_insn.h"
#include "tests/common/soft_prog.h"
#include "topa/plan.h"
#include "topa/readback.h"

#define PHYS_BASE 0x40000000ull /* fake physical addresses of the output memory */
#define GT_CAP (1u << 20)

static void sink_stdout(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    fwrite(s, 1, n, stdout);
}

static size_t flow_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct soft_prog *p = ctx;
    for (unsigned i = 0; i < p->nfuncs; i++)
        if (ip >= p->funcs[i].addr && ip < p->funcs[i].addr + p->funcs[i].size) {
            *bytes = p->funcs[i].code + (ip - p->funcs[i].addr);
            return (size_t)(p->funcs[i].addr + p->funcs[i].size - ip);
        }
    return 0;
}

/* libipt's instruction IPs (up to cap); a decode error ends the list (the caller compares it). */
static size_t decode_libipt(const uint8_t *t, size_t len, const struct soft_prog *p, uint64_t *out, size_t cap)
{
    struct ipt_ip_list v = {out, 0, cap};
    struct ipt_insn_sink s = {.insn = ipt_ip_list_add, .ctx = &v};
    ipt_insn_walk(t, len, soft_prog_ipt_read, (void *)p, &s, NULL);
    return v.n;
}

static size_t decode_flow(const uint8_t *t, size_t len, const struct soft_prog *p, uint64_t *out, size_t cap,
                          unsigned *errors)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[1024];
    CHECK_EQ(fwpt_flow_init(&f, t, len, flow_read, (void *)p, cache, 1024), FWPT_OK);
    struct fwpt_flow_event ev;
    size_t n = 0;
    *errors = 0;
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        if (ev.kind == FWPT_FLOW_INSN && n < cap)
            out[n++] = ev.ip;
        else if (ev.kind == FWPT_FLOW_ERROR)
            (*errors)++;
    }
    return n;
}

enum { R_NONE, R_FILTER, R_TRACESTOP };

/* Index of the function holding the middle executed instruction. */
static size_t filter_func(const struct soft_prog *p)
{
    uint64_t ip = p->flow[p->nflow / 2].ip;
    for (size_t i = 0; i < p->nfuncs; i++)
        if (ip >= p->funcs[i].addr && ip < p->funcs[i].addr + p->funcs[i].size)
            return i;
    return p->nfuncs - 1;
}

/* An executed IP whose first execution is at least a quarter into the flow. */
static uint64_t tracestop_ip(const struct soft_prog *p)
{
    for (size_t k = p->nflow / 2; k < p->nflow; k++) {
        size_t first = 0;
        while (p->flow[first].ip != p->flow[k].ip)
            first++;
        if (first >= p->nflow / 4)
            return p->flow[k].ip;
    }
    return p->flow[p->nflow - 1].ip;
}

struct tcase {
    const char *profile;
    enum fwpt_plan_mode mode;
    uint64_t total, region;
    int range, timing;
    int small_gt; /* ring: the ground truth keeps the newest third of the flow (gt_ring), the decoded lists too */
    int cut;      /* the feed ends at two thirds of the flow (the step limit): fwpt_soft_end_at */
};

static uint64_t gt[GT_CAP], got_ipt[GT_CAP], got_flow[GT_CAP];
static struct fwpt_soft soft;

static struct fwpt_verify verdict; /* the last verify_text's */

/* fwpt_soft_verify_scope of soft against dec: the line it prints; *rc its result; the verdict into verdict. */
static const char *verify_text(const uint64_t *dec, size_t n, uint64_t n_all, int wrapped, int stopped, int *rc)
{
    static char text[512];
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, text, sizeof text - 1);
    *rc = fwpt_soft_verify_scope(&soft, dec, n, n_all, wrapped, stopped, &o, &verdict);
    text[b.len < sizeof text ? b.len : sizeof text - 1] = 0;
    return text;
}

/* The verdict's words (fwpt_verify_text: the app's console line, sideband.json's "text", the report page). */
static const char *verdict_words(void)
{
    static char text[256];
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, text, sizeof text - 1);
    fwpt_verify_text(&verdict, false, &o);
    text[b.len] = 0;
    return text;
}

static void run(const struct tcase *tc, const struct soft_prog *p, unsigned long *nverified, unsigned *nwrapped,
                unsigned *nstopped)
{
    static struct fwpt_physmem mem;
    fwpt_physmem_init(&mem, false);
    size_t gt_cap = tc->small_gt ? p->nflow / 3 : GT_CAP;
    CHECK_EQ(fwpt_soft_setup(&soft, tc->profile, &mem, gt, gt_cap), FWPT_OK);
    soft.gt_ring = tc->mode == FWPT_PLAN_RING;
    const struct fwpt_cpu *cpu = fwpt_soft_cpu(&soft);
    const struct fwpt_caps *caps = &soft.caps;
    struct fwpt_plan_options popt = {.total_size = tc->total, .region_size = tc->region, .mode = tc->mode};
    struct fwpt_plan plan;
    struct fwpt_plan_error perr;
    CHECK_EQ(fwpt_plan_make(caps, &popt, &plan, &perr), FWPT_OK);
    uint64_t region_phys[64], table_phys[8];
    void *blocks[72];
    unsigned nb = 0;
    uint64_t phys = PHYS_BASE;
    CHECK(plan.region_count <= 64 && plan.table_count <= 8);
    for (unsigned i = 0; i < plan.region_count + plan.table_count && i < 72; i++) {
        int table = i >= plan.region_count;
        uint64_t bytes = table ? plan.tables.bytes : plan.regions.bytes;
        uint64_t align = table ? plan.tables.align : plan.regions.align;
        phys = (phys + align - 1) & ~(align - 1);
        blocks[nb] = calloc(1, bytes);
        CHECK_EQ(fwpt_physmem_add(&mem, phys, bytes, blocks[nb]), FWPT_OK);
        nb++;
        if (table)
            table_phys[i - plan.region_count] = phys;
        else
            region_phys[i] = phys;
        phys += bytes;
    }
    struct fwpt_output_regs regs;
    CHECK_EQ(fwpt_plan_apply(&plan, &mem, region_phys, table_phys, &regs), FWPT_OK);
    struct fwpt_trace_config cfg = {.branch_en = true, .os = true, .topa = (regs.ctl_bits & RTIT_CTL_TOPA) != 0,
                                    .output_base = regs.output_base, .output_mask_ptrs = regs.output_mask_ptrs};
    if (tc->timing) {
        fwpt_trace_timing_lowest(&cfg, caps);
    }
    if (tc->range == R_FILTER) {
        /* the function holding the middle instruction: executed, so the filter passes something */
        size_t fi = filter_func(p);
        cfg.n_ranges = 1;
        cfg.range[0] = (struct fwpt_trace_range){.cfg = RTIT_ADDR_CFG_FILTER, .a = p->funcs[fi].addr,
                                                 .b = p->funcs[fi].addr + p->funcs[fi].size - 1};
    } else if (tc->range == R_TRACESTOP) {
        /* an IP first reached late enough that the trace holds instructions before TraceStop */
        uint64_t ip = tracestop_ip(p);
        cfg.n_ranges = 1;
        cfg.range[0] = (struct fwpt_trace_range){.cfg = RTIT_ADDR_CFG_TRACESTOP, .a = ip, .b = ip};
    }
    struct fwpt_trace_refusal ref;
    CHECK_EQ(fwpt_trace_check(&cfg, caps, &ref), FWPT_OK);
    struct fwpt_trace_state state;
    CHECK_EQ(fwpt_trace_start(cpu, caps, &cfg, &state), FWPT_OK);
    fwpt_soft_begin(&soft, p->flow[0].ip, p->flow[0].time, 0);
    /* stepped as efi/soft.c steps: a trap on the entry, then one after each instruction, until the return to the
     * caller or, cut, the step limit (the rest of the call runs untraced: the trace ends before the next one) */
    size_t nfed = tc->cut ? p->nflow * 2 / 3 : p->nflow;
    soft.stop_ip = p->caller_ret;
    if (tc->cut)
        soft.max_steps = nfed + 1; /* the entry's trap and one per instruction */
    CHECK_EQ(fwpt_soft_step_end(&soft, p->flow[0].ip, p->flow[0].time), 0);
    size_t fed = 0;
    for (int end = 0; !end && fed < p->nflow; fed++) {
        fwpt_soft_feed(&soft, &p->flow[fed]);
        end = fwpt_soft_step_end(&soft, p->flow[fed].next_ip, p->flow[fed].time);
    }
    CHECK_EQ(fed, nfed);
    CHECK_EQ(soft.stats.steps, nfed + 1);
    CHECK_EQ(soft.stats.step_limit_hit, tc->cut);
    CHECK_EQ(soft.stats.untraced_rest, 0);
    struct fwpt_trace_result res;
    CHECK_EQ(fwpt_trace_stop(cpu, &state, &res), FWPT_OK);
    CHECK_EQ(soft.stats.enc_status, FWPT_OK);
    CHECK_EQ(soft.gt_count, nfed < gt_cap ? nfed : gt_cap);
    CHECK_EQ(soft.stats.lost, nfed - soft.gt_count);
    /* The MSRs end as hardware leaves them after the sequence: TraceEn 0, STATUS clean. */
    uint64_t ctl = ~0ull, st = ~0ull;
    CHECK_EQ(fwpt_rdmsr(cpu, MSR_IA32_RTIT_CTL, &ctl), FWPT_OK);
    CHECK_EQ(fwpt_rdmsr(cpu, MSR_IA32_RTIT_STATUS, &st), FWPT_OK);
    CHECK_EQ(ctl & RTIT_CTL_TRACEEN, 0);
    CHECK_EQ(st, 0);
    /* ToPA STOP when more was produced than the buffer holds (stop mode), or TraceStop. */
    int overflow = soft.stats.bytes > plan.total_size;
    CHECK_EQ(!!res.stopped, tc->range == R_TRACESTOP || (tc->mode == FWPT_PLAN_STOP && overflow));

    static struct fwpt_span spans[256];
    struct fwpt_readback_in rin = {.mem = &mem, .ctl = state.ctl, .start_output_base = regs.output_base,
                                   .start_mask_ptrs = regs.output_mask_ptrs, .output_base = res.output_base,
                                   .output_mask_ptrs = res.output_mask_ptrs, .status = res.status,
                                   .wrap = FWPT_WRAP_DETECT};
    struct fwpt_readback rb = {.spans = spans, .cap = 256};
    CHECK_EQ(fwpt_readback(&rin, &rb), FWPT_OK);
    CHECK_EQ(rb.wrapped, tc->mode == FWPT_PLAN_RING && overflow);
    uint8_t *t = malloc(rb.bytes + 1);
    uint64_t len = fwpt_readback_copy(&mem, &rb, t, rb.bytes);
    CHECK_EQ(len, rb.bytes);
    if (!overflow)
        CHECK_EQ(len, soft.stats.bytes); /* every byte produced is there */
    else
        CHECK_EQ(len, plan.total_size);  /* wrapped or stopped: the buffer is full */

    struct fwpt_sink o = {sink_stdout, NULL};
    printf("%s %s%s%s%s: %zu stepped, %" PRIu64 " bytes produced, %" PRIu64 " kept: ", tc->profile,
           fwpt_plan_scheme_name(plan.scheme), tc->mode == FWPT_PLAN_RING ? " ring" : "",
           tc->range == R_FILTER ? " filter" : tc->range == R_TRACESTOP ? " tracestop" : "",
           tc->timing ? " timing" : "", nfed, soft.stats.bytes, len);
    size_t n_ipt = decode_libipt(t, (size_t)len, p, got_ipt, GT_CAP);
    /* small_gt: each decoded list kept in a buffer as small as the ground truth's, its newest entries (as the
     * EFI session does with `ring`) */
    size_t k_ipt = n_ipt < gt_cap ? n_ipt : gt_cap;
    const uint64_t *v_ipt = got_ipt + (n_ipt - k_ipt);
    int bad_ipt = fwpt_soft_verify(&soft, v_ipt, k_ipt, n_ipt, rb.wrapped, rb.stopped || res.stopped, &o);
    unsigned ferr = 0;
    size_t n_flow = decode_flow(t, (size_t)len, p, got_flow, GT_CAP, &ferr);
    size_t k_flow = n_flow < gt_cap ? n_flow : gt_cap;
    uint64_t *v_flow = got_flow + (n_flow - k_flow);
    printf("  fwpt flow: ");
    int bad_flow = fwpt_soft_verify(&soft, v_flow, k_flow, n_flow, rb.wrapped, rb.stopped || res.stopped, &o);
    CHECK_EQ(bad_ipt, 0);
    CHECK_EQ(bad_flow, 0);
    int rc;
    if (tc->cut && !tc->small_gt && !overflow) { /* all that was stepped, and the line says so */
        CHECK(strstr(verify_text(got_flow, n_flow, n_flow, rb.wrapped, 0, &rc),
                     "single-stepped (all that was stepped before the step limit") != NULL);
        CHECK_EQ(rc, 0);
    }
    if (tc->small_gt) {
        /* the newest part compared: a difference in it is found, at its index in the whole decoded flow */
        CHECK(strstr(verify_text(v_flow, k_flow, n_flow, rb.wrapped, 0, &rc), "(the newest part") != NULL);
        CHECK_EQ(rc, 0);
        size_t at = k_flow - 1 - k_flow / 5;
        v_flow[at] ^= 1;
        char want[96];
        snprintf(want, sizeof want, "FIRST DIFFERENCE at instruction %zu\n", n_flow - k_flow + at);
        CHECK(strstr(verify_text(v_flow, k_flow, n_flow, rb.wrapped, 0, &rc), want) != NULL);
        CHECK_EQ(rc, 1);
        v_flow[at] ^= 1;
    }
    CHECK(n_ipt > 0 && n_flow > 0); /* every case traces something: two empty flows prove nothing */
    if (!overflow)
        CHECK_EQ(ferr, 0);
    (*nwrapped) += tc->mode == FWPT_PLAN_RING && overflow;
    (*nstopped) += tc->mode == FWPT_PLAN_STOP && overflow;
    if (!bad_ipt)
        (*nverified) += n_ipt;
    free(t);
    for (unsigned i = 0; i < nb; i++)
        free(blocks[i]);
}

/* A stepping-only recording (no encoder) of n one-byte instructions from 0x1000 into g[0..cap). */
static void step_only(const struct fwpt_physmem *mem, uint64_t *g, size_t cap, unsigned n, int ring)
{
    CHECK_EQ(fwpt_soft_setup(&soft, NULL, mem, g, cap), FWPT_OK);
    soft.gt_ring = ring;
    fwpt_soft_begin(&soft, 0x1000, 0, 1);
    for (uint64_t ip = 0x1000; ip < 0x1000 + n; ip++) {
        struct fwpt_soft_insn si = {.ip = ip, .next_ip = ip + 1, .size = 1};
        fwpt_soft_feed(&soft, &si);
    }
}

/* Host memory for the soft CPU, empty again at each call. */
static const struct fwpt_physmem *fresh_mem(void)
{
    static struct fwpt_physmem mem;
    fwpt_physmem_init(&mem, false);
    return &mem;
}

/* unknown profile; stepping-only setup */
TEST(unknown_profile_and_stepping_only)
{
    const struct fwpt_physmem *mem = fresh_mem();
    CHECK_EQ(fwpt_soft_setup(&soft, "no-such-cpu", mem, gt, GT_CAP), FWPT_E_INVAL);
    CHECK_EQ(fwpt_soft_setup(&soft, NULL, mem, gt, GT_CAP), FWPT_OK);
    fwpt_soft_begin(&soft, 0x1000, 0, 1);
    struct fwpt_soft_insn i0 = {.ip = 0x1000, .next_ip = 0x1001, .size = 1};
    fwpt_soft_feed(&soft, &i0);
    CHECK_EQ(soft.gt_count, 1);
    CHECK_EQ(soft.stats.bytes, 0);
    uint64_t d0 = 0x1000, d1 = 0x1001;
    struct fwpt_bufsink bs;
    char vb[256];
    struct fwpt_sink vs = fwpt_bufsink_init(&bs, vb, sizeof vb);
    CHECK_EQ(fwpt_soft_verify(&soft, &d0, 1, 1, 0, 0, &vs), 0);
    CHECK_EQ(fwpt_soft_verify(&soft, &d1, 1, 1, 0, 0, &vs), 1); /* a difference is found */
}

/* Buffers too small for the whole flow (a 2 MiB trace of a long call): the oldest part (output stopped)
 * is compared as far as both go, and says so; the newest part (wrapped) or the whole call cannot be. */
TEST(verify_oldest_part_when_buffers_small)
{
    const struct fwpt_physmem *mem = fresh_mem();
    {
        static uint64_t small_gt[3];
        step_only(mem, small_gt, 3, 5, 0);
        CHECK_EQ(soft.gt_count, 3);
        CHECK_EQ(soft.stats.lost, 2);
        const uint64_t dec[4] = {0x1000, 0x1001, 0x1002, 0x1003}, bad[2] = {0x1000, 0x1002};
        int rc;
        CHECK_STR(verify_text(dec, 4, 5, 0, 1, &rc), /* decoded kept 4 of 5, ground truth 3 */
                  "verified: the first 3 of 5 instructions decoded = single-stepped (the oldest part (output "
                  "stopped)); the rest was not compared: the ground truth or the decoded flow did not fit its buffer\n");
        CHECK_EQ(rc, 0);
        CHECK_STR(verdict_words(), "passed for the first 3 of 5 instructions; the rest was not compared");
        CHECK_EQ(verdict.scope, FWPT_VERIFY_FIRST);
        CHECK(strstr(verify_text(dec, 2, 5, 0, 1, &rc), "verified: the first 2 of 5 instructions") != NULL);
        CHECK_EQ(rc, 0);
        verify_text(bad, 2, 5, 0, 1, &rc); /* a difference inside the part is found */
        CHECK_EQ(rc, 1);
        CHECK_STR(verdict_words(), "failed: the decoded flow differs from the single-stepped one");
        CHECK_STR(verify_text(dec, 3, 3, 1, 0, &rc), /* wrapped: the newest part is not there, nothing compared */
                  "verify: ground truth incomplete (2 instructions did not fit)\n");
        CHECK_EQ(rc, 2);
        CHECK_EQ(verdict.result, FWPT_VERIFY_NOT_RUN);
        CHECK_STR(verdict_words(), "not run (the single-stepped flow did not fit its buffer)");
        verify_text(dec, 3, 3, 0, 0, &rc); /* the whole call: not all there */
        CHECK_EQ(rc, 2);
        CHECK_STR(verdict_words(), "not run (the single-stepped flow did not fit its buffer)");
        step_only(mem, gt, GT_CAP, 5, 0);
        CHECK_STR(verify_text(dec, 4, 5, 0, 0, &rc), /* the whole call, decoded flow cut short */
                  "verify: decoded flow incomplete (4 of 5 instructions kept)\n");
        CHECK_EQ(rc, 1);
        CHECK_STR(verdict_words(), "failed: the decoded flow is incomplete");
    }
}

/* A ground truth that keeps the newest part (gt_ring, for a ring): compared with the newest part of the decoded
 * flow, aligned at the end where tracing ended, and the line says which part; the oldest part is gone. */
TEST(verify_newest_part_of_ring)
{
    const struct fwpt_physmem *mem = fresh_mem();
    {
        static uint64_t small_gt[3];
        step_only(mem, small_gt, 3, 5, 1); /* 0x1000..0x1004: 0x1002..0x1004 kept */
        CHECK_EQ(soft.gt_count, 3);
        CHECK_EQ(soft.stats.lost, 2);
        CHECK_EQ(soft.gt_start, 2);
        const uint64_t all[5] = {0x1000, 0x1001, 0x1002, 0x1003, 0x1004}, bad[3] = {0x1002, 0x1005, 0x1004};
        int rc;
        CHECK_STR(verify_text(all + 2, 3, 5, 1, 0, &rc), /* decoded kept its newest 3 of 5 */
                  "verified: the newest 3 of 5 instructions decoded = single-stepped (the newest part (ring wrapped)); "
                  "the rest was not compared: the ground truth or the decoded flow kept only the newest part of it\n");
        CHECK_EQ(rc, 0);
        CHECK_STR(verdict_words(), "passed for the newest 3 of 5 instructions; the rest was not compared");
        CHECK_EQ(verdict.scope, FWPT_VERIFY_NEWEST);
        CHECK_STR(verify_text(all + 1, 4, 5, 1, 0, &rc), /* decoded kept 4: the ground truth's 3 are compared */
                  "verified: the newest 3 of 5 instructions decoded = single-stepped (the newest part (ring wrapped)); "
                  "the rest was not compared: the ground truth or the decoded flow kept only the newest part of it\n");
        CHECK_EQ(rc, 0);
        CHECK(strstr(verify_text(all + 3, 2, 5, 0, 0, &rc), "verified: the newest 2 of 5 instructions decoded = "
                                                            "single-stepped (the newest part);") != NULL);
        CHECK_EQ(rc, 0);
        CHECK_STR(verify_text(all + 2, 3, 5, 1, 1, &rc), /* wrapped, then the output stopped: the newest too */
                  "verified: the newest 3 of 5 instructions decoded = single-stepped (the newest part (ring wrapped)); "
                  "the rest was not compared: the ground truth or the decoded flow kept only the newest part of it\n");
        CHECK_EQ(rc, 0);
        CHECK_STR(verify_text(all + 2, 3, 3, 1, 0, &rc), /* the ring held 3: all of them compared */
                  "verified: 3 instructions decoded = single-stepped (the newest part (ring wrapped))\n");
        CHECK_EQ(rc, 0);
        CHECK_STR(verdict_words(), "passed (the newest part (ring wrapped))"); /* every decoded instruction compared */
        CHECK_EQ(verdict.scope, FWPT_VERIFY_WHOLE);
        CHECK_EQ(verdict.compared, 3);
        CHECK_EQ(verdict.total, 3);
        CHECK_STR(verify_text(bad, 3, 5, 1, 0, &rc),
                  "verify: FIRST DIFFERENCE at instruction 3\n  both      #2: 0x1002\n  decoded   #3: 0x1005\n"
                  "  stepped   #3: 0x1003\n");
        CHECK_EQ(rc, 1);
        verify_text(all + 1, 3, 5, 1, 0, &rc); /* not the newest part: off by one at the end */
        CHECK_EQ(rc, 1);
        CHECK_STR(verify_text(all, 2, 5, 0, 1, &rc), /* output stopped: the oldest part, not kept */
                  "verify: ground truth incomplete (2 of the oldest instructions gave way: it keeps the newest, for a "
                  "ring, but the output stopped and the part to compare is the oldest)\n");
        CHECK_EQ(rc, 2);
        CHECK_STR(verdict_words(), "not run (the single-stepped flow did not fit its buffer)");
    }
}

/* The buffers that keep the newest entries, and their order. */
TEST(keep_newest_and_ring_order)
{
    {
        uint64_t b[4];
        size_t n = 0, start = 0;
        unsigned gave = 0;
        for (uint64_t v = 1; v <= 10; v++)
            gave += (unsigned)fwpt_soft_keep_newest(b, 4, &n, &start, v);
        CHECK_EQ(n, 4);
        CHECK_EQ(gave, 6);
        CHECK_EQ(start, 2);
        fwpt_soft_ring_order(b, n, &start);
        CHECK_EQ(start, 0);
        CHECK(b[0] == 7 && b[1] == 8 && b[2] == 9 && b[3] == 10);
        n = start = 0;
        for (uint64_t v = 1; v <= 3; v++)
            gave += (unsigned)fwpt_soft_keep_newest(b, 4, &n, &start, v);
        fwpt_soft_ring_order(b, n, &start);
        CHECK(n == 3 && gave == 6 && b[0] == 1 && b[1] == 2 && b[2] == 3);
        for (unsigned cap = 1; cap <= 7; cap++) /* every rotation */
            for (uint64_t total = 0; total <= 20; total++) {
                uint64_t r[7];
                n = start = 0;
                for (uint64_t v = 0; v < total; v++)
                    fwpt_soft_keep_newest(r, cap, &n, &start, v);
                fwpt_soft_ring_order(r, n, &start);
                int ok = n == (total < cap ? total : cap);
                for (size_t i = 0; i < n; i++)
                    ok &= r[i] == total - n + i;
                CHECK(ok);
            }
    }
}

/* The soft CPU is the profile and the model: CPUID from the recorded part, #GP where the SDM
 * says (reserved CTL bits; OUTPUT_BASE written while TraceEn=1; MSRs of a part without PT). */
TEST(cpuid_and_msr_faults_of_profile)
{
    {
        static struct fwpt_physmem m2;
        fwpt_physmem_init(&m2, false);
        CHECK_EQ(fwpt_soft_setup(&soft, "skylake", &m2, gt, GT_CAP), FWPT_OK);
        const struct fwpt_cpu *c = fwpt_soft_cpu(&soft);
        struct fwpt_cpuid_regs r;
        CHECK_EQ(fwpt_cpuid(c, 0x14, 0, &r), FWPT_OK);
        CHECK_EQ(r.ebx, soft.profile->leaf14_0.ebx);
        CHECK_EQ(r.ecx, soft.profile->leaf14_0.ecx);
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_CTL, RTIT_CTL_RESERVED_ALWAYS & FWPT_BIT(18)), FWPT_E_FAULT);
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_OUTPUT_BASE, 0x10000), FWPT_OK);
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0xfff), FWPT_OK); /* single range 4K */
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_CTL, RTIT_CTL_TRACEEN | RTIT_CTL_OS | RTIT_CTL_BRANCHEN), FWPT_OK);
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_OUTPUT_BASE, 0x20000), FWPT_E_FAULT);
        CHECK_EQ(fwpt_wrmsr(c, MSR_IA32_RTIT_CTL, RTIT_CTL_OS | RTIT_CTL_BRANCHEN), FWPT_OK);
        CHECK_EQ(fwpt_soft_setup(&soft, "haswell", &m2, gt, GT_CAP), FWPT_OK);
        uint64_t v;
        CHECK_EQ(fwpt_rdmsr(fwpt_soft_cpu(&soft), MSR_IA32_RTIT_CTL, &v), FWPT_E_FAULT);
    }
}

/* When single-stepping ends (fwpt_soft_step_end, the rule efi/soft.c's #DB handler applies after each trap):
 * one-byte instructions from 0x1000, the trap after each at the next IP. */
TEST(when_single_stepping_ends)
{
    {
        static struct fwpt_physmem m3;
        fwpt_physmem_init(&m3, false);
        struct step_case {
            const char *profile;
            uint64_t max_steps, record_limit, stop_ip;
            unsigned stopped_at; /* the output stops after this many instructions (0: never) */
            unsigned fed;        /* expected: instructions fed when stepping ends */
            int step_limit, record_limit_hit, untraced;
        } sc[] = {
            {NULL, 1000, 0, 0x1007, 0, 7, 0, 0, 0},      /* the call returns after 7 */
            {NULL, 1, 0, 0x1007, 0, 0, 1, 0, 0},         /* max_steps 1: the entry's trap ends it, nothing fed */
            {NULL, 4, 0, 0x1007, 0, 3, 1, 0, 0},         /* the entry's trap and three more */
            {NULL, 8, 0, 0x1007, 0, 7, 0, 0, 0},         /* the return on the last allowed step is a return */
            {NULL, 1000, 5, 0x1007, 0, 5, 0, 1, 0},      /* a recording ends once it holds record_limit */
            {NULL, 1000, 7, 0x1007, 0, 7, 0, 0, 0},      /* ... unless the call returned there */
            {NULL, 4, 5, 0x1007, 0, 3, 1, 0, 0},         /* the step limit comes first */
            {"skylake", 1u << 20, 0, 0x1000000, 10, 10 + FWPT_SOFT_AFTER_STOP, 0, 0, 1}, /* output stopped: 65536 more */
            {"skylake", 100, 0, 0x1000000, 10, 99, 1, 0, 0}, /* the step limit before the untraced rule */
            /* both on the same step (steps_at_stop 11, + 65536): the untraced rule, the trace not cut there */
            {"skylake", 11 + FWPT_SOFT_AFTER_STOP, 0, 0x1000000, 10, 10 + FWPT_SOFT_AFTER_STOP, 0, 0, 1},
            {NULL, 1u << 20, 0, 0x1000000, 10, (1u << 20) - 1, 1, 0, 0}, /* a recording has no output to stop */
        };
        for (unsigned c = 0; c < sizeof sc / sizeof sc[0]; c++) {
            const struct step_case *t = &sc[c];
            static uint64_t g3[1u << 20];
            CHECK_EQ(fwpt_soft_setup(&soft, t->profile, &m3, g3, sizeof g3 / sizeof g3[0]), FWPT_OK);
            soft.max_steps = t->max_steps;
            soft.record_limit = t->record_limit;
            soft.stop_ip = t->stop_ip;
            fwpt_soft_begin(&soft, 0x1000, 0, !t->profile);
            int end = fwpt_soft_step_end(&soft, 0x1000, 0);
            unsigned fed = 0;
            for (uint64_t ip = 0x1000; !end && fed < (2u << 20); ip++) {
                struct fwpt_soft_insn si = {.ip = ip, .next_ip = ip + 1, .size = 1, .time = ip};
                fwpt_soft_feed(&soft, &si);
                if (++fed == t->stopped_at)
                    soft.model.status |= RTIT_STATUS_STOPPED; /* as ToPA STOP sets it */
                end = fwpt_soft_step_end(&soft, ip + 1, ip);
            }
            CHECK_EQ(fed, t->fed);
            CHECK_EQ(soft.stats.steps, (uint64_t)t->fed + 1);
            CHECK_EQ(soft.stats.step_limit_hit, t->step_limit);
            CHECK_EQ(soft.stats.record_limit_hit, t->record_limit_hit);
            CHECK_EQ(soft.stats.untraced_rest, t->untraced);
            if (t->untraced)
                CHECK_EQ(soft.stats.steps_at_stop, (uint64_t)t->stopped_at + 1);
            CHECK_EQ(soft.gt_count, t->fed);
        }
    }
}

/* The whole soft path on the host (plan, ToPA, MSR sequence, model, readback, libipt and fwpt flow) for six
 * programs under each profile and setting: single-entry and multi-entry ToPA, rings that wrap, ToPA STOP, IP
 * filter, TraceStop, a ground truth of the newest third, stepping that ends at two thirds. */
TEST(whole_soft_path_profiles_and_settings)
{
    static const struct tcase cases[] = {
        {"broadwell", FWPT_PLAN_STOP, 1u << 20, 0, R_NONE, 0, 0, 0},         /* single-entry ToPA */
        {"broadwell", FWPT_PLAN_RING, 4096, 0, R_NONE, 1, 0, 0},            /* single-entry ring wraps */
        {"skylake", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_NONE, 0, 0, 0},
        {"skylake", FWPT_PLAN_RING, 8192, 4096, R_NONE, 1, 0, 0},           /* multi-entry ring wraps */
        {"skylake", FWPT_PLAN_STOP, 8192, 4096, R_NONE, 1, 0, 0},           /* ToPA STOP: the oldest part */
        {"skylake", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_FILTER, 0, 0, 0},
        {"tremont", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_TRACESTOP, 0, 0, 0},
        {"tremont", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_NONE, 1, 0, 0},
        {"alderlake-p", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_FILTER, 1, 0, 0},
        {"goldmont", FWPT_PLAN_RING, 16384, 4096, R_NONE, 1, 0, 0},
        {"skylake", FWPT_PLAN_RING, 8192, 4096, R_NONE, 1, 1, 0},       /* ring wraps, ground truth of the newest third */
        {"broadwell", FWPT_PLAN_RING, 1u << 20, 0, R_NONE, 0, 1, 0},  /* no wrap, ground truth of the newest third */
        {"skylake", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_NONE, 0, 0, 1}, /* stepping ends at two thirds */
        {"skylake", FWPT_PLAN_RING, 8192, 4096, R_NONE, 1, 1, 1},     /* the same, ring wraps, small ground truth */
        {"tremont", FWPT_PLAN_STOP, 1u << 20, 64u << 10, R_FILTER, 0, 0, 1}, /* the same under an IP filter */
    };
    unsigned long nverified = 0;
    unsigned nwrapped = 0, nstopped = 0;
    for (unsigned seed = 1; seed <= 6; seed++) {
        struct soft_prog_cfg pc = {.seed = 100 + seed, .base = seed & 1 ? 0x1fef0000 : 0x7ffff7a00000ull,
                                   .spread = 1u << 20, .nfuncs = 30, .budget = 20000, .ret_clobber = 1};
        struct soft_prog p;
        CHECK_EQ(soft_prog_build(&pc, &p), 0);
        for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
            run(&cases[c], &p, &nverified, &nwrapped, &nstopped);
        soft_prog_free(&p);
    }
    /* coverage: rings did wrap and ToPA STOP did stop in some runs */
    CHECK(nwrapped >= 6);
    CHECK(nstopped >= 2);
    CHECK(nverified > 100000);
    printf("soft_cpu: %lu instructions verified through model, readback, libipt and fwpt flow; %u wrapped rings, "
           "%u stopped buffers\n", nverified, nwrapped, nstopped);
}

TEST_MAIN("test_soft_cpu")
