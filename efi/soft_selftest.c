/* fwpt — "soft-selftest": the whole run on the software backend, without the session: for a few
 * profiles, output schemes and targets, plan + ToPA tables in allocated pages, the MSR sequence
 * (arch/trace) over the soft CPU, the single-stepped call, readback, the flow decoder over live
 * memory, and verify against the ground truth. The steps are the app's own (efi/pipeline.h), the targets
 * its own (efi/targets.h) but for `internal`, code of this file. Saves each case's trace.pt, the ground
 * truth and the code pages under \fwpt-soft\CASE\ so the host can decode them with libipt. */
#include <efi.h>
#include <efilib.h>
#include "arch/trace.h"
#include "decode/flow.h"
#include "efi/pipeline.h"
#include "efi/soft.h"
#include "efi/soft_selftest.h"
#include "efi/targets.h"
#include "efi/volume.h"

#define GT_CAP (1u << 20)          /* ground-truth IPs per run (8 MiB) */
#define FLOW_CACHE 4096u           /* flow decoder block cache entries (power of two) */
#define PAGE 4096ull
#define PAGESET 8192u              /* distinct code pages saved per case */
#define CODE_READ 256u             /* bytes the flow decoder may read at an IP (identity-mapped code) */

/* ---- targets ---- */
static int st_fib(int n);
static int st_tri(int n);
static int st_sum(int n);
static int (*volatile st_ops[3])(int) = {st_fib, st_tri, st_sum};

static __attribute__((noinline)) int st_fib(int n)
{
    return n < 2 ? n : st_fib(n - 1) + st_fib(n - 2);
}
static __attribute__((noinline)) int st_tri(int n)
{
    volatile int t = 0;
    for (int i = 0; i <= n; i++)
        t += i;
    return t;
}
static __attribute__((noinline)) int st_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += (i & 1) ? st_ops[1](i & 3) : i;
    return s;
}
/* Internal: recursion, loops, indirect calls through a table (deterministic). */
static void t_internal(void *arg)
{
    volatile int acc = 0;
    for (int i = 0; i < 60; i++)
        acc += st_ops[i % 3](i & 7);
    *(volatile int *)arg = acc;
}
/* ---- cases ---- */
enum { RANGE_NONE, RANGE_FILTER_CORE, RANGE_TRACESTOP_SUM };
struct st_case {
    const char *name, *profile, *target;
    enum fwpt_plan_mode mode;
    uint64_t total, region;
    int range;   /* RANGE_* */
    int timing;  /* TSC, MTC, CYC, PSBFreq: the lowest encodings the profile enumerates */
};
static const struct st_case cases[] = {
    {"bdw-internal", "broadwell", "internal", FWPT_PLAN_STOP, 1ull << 20, 0, RANGE_NONE, 0},
    {"bdw-locate", "broadwell", "locate-handle", FWPT_PLAN_STOP, 1ull << 20, 0, RANGE_NONE, 0},
    {"skl-ring-memmap", "skylake", "memory-map", FWPT_PLAN_RING, 8ull << 10, 4ull << 10, RANGE_NONE, 1},
    {"skl-filter-locate", "skylake", "locate-handle", FWPT_PLAN_STOP, 1ull << 20, 64ull << 10, RANGE_FILTER_CORE, 0},
    {"tremont-timing-alloc", "tremont", "allocate-pages", FWPT_PLAN_STOP, 1ull << 20, 64ull << 10, RANGE_NONE, 1},
    {"adl-tracestop-internal", "alderlake-p", "internal", FWPT_PLAN_STOP, 1ull << 20, 64ull << 10, RANGE_TRACESTOP_SUM, 0},
};

static struct fwpt_efi_soft soft;
static struct fwpt_flow flow;

static size_t live_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    (void)ctx;
    *bytes = (const uint8_t *)(uintptr_t)ip;
    return CODE_READ;
}

/* The loaded image whose code holds addr (the DXE core for boot services). */
static int image_range(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    UINTN n = 0;
    EFI_HANDLE *h = NULL;
    if (EFI_ERROR(uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &LoadedImageProtocol, NULL, &n, &h)))
        return 0;
    int found = 0;
    for (UINTN i = 0; i < n && !found; i++) {
        EFI_LOADED_IMAGE *li = NULL;
        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h[i], &LoadedImageProtocol, (void **)&li)) || !li)
            continue;
        uint64_t b = (uint64_t)(uintptr_t)li->ImageBase;
        if (addr >= b && addr < b + li->ImageSize) {
            *lo = b, *hi = b + li->ImageSize - 1;
            found = 1;
        }
    }
    uefi_call_wrapper(BS->FreePool, 1, h);
    return found;
}

static void save_pages(struct fwpt_volume *v, const struct fwpt_sink *o, const char *dir, const uint64_t *gt, size_t n)
{
    static uint64_t set[PAGESET];
    unsigned count = 0;
    fwpt_memset(set, 0, sizeof set);
    for (size_t i = 0; i < n; i++) {
        for (uint64_t pg = gt[i] / PAGE; pg <= (gt[i] + 15) / PAGE; pg++) {
            unsigned h = (unsigned)((pg * 0x9e3779b97f4a7c15ull) >> 51) % PAGESET;
            while (set[h] && set[h] != pg + 1)
                h = (h + 1) % PAGESET;
            if (!set[h] && count + 1 < PAGESET) {
                set[h] = pg + 1;
                count++;
            }
        }
    }
    UINTN len = (UINTN)count * (8 + PAGE);
    uint8_t *buf = NULL;
    if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, len, (void **)&buf)))
        return;
    uint8_t *p = buf;
    for (unsigned h = 0; h < PAGESET; h++) {
        if (!set[h])
            continue;
        uint64_t addr = (set[h] - 1) * PAGE;
        fwpt_memcpy(p, &addr, 8);
        fwpt_memcpy(p + 8, (const void *)(uintptr_t)addr, PAGE);
        p += 8 + PAGE;
    }
    fwpt_save_file(v, o, dir, "pages.bin", buf, len);
    uefi_call_wrapper(BS->FreePool, 1, buf);
}

/* The case's target: `internal` (code of this file), else the app's target of that name. */
static bool case_target(const struct st_case *c, struct fwpt_target_run *t, void (**fn)(void *), void **arg)
{
    static int result;
    if (!fwpt_strcmp(c->target, "internal")) {
        *fn = t_internal, *arg = &result;
        return true;
    }
    for (unsigned k = 0; k < FWPT_TARGET_COUNT; k++)
        if (!fwpt_strcmp(c->target, fwpt_target_name((enum fwpt_target)k)))
            t->target = (enum fwpt_target)k;
    *fn = fwpt_target_call, *arg = t;
    return t->target != FWPT_TARGET_NONE && !EFI_ERROR(fwpt_target_prepare(t));
}

static int run_case(const struct st_case *c, struct fwpt_volume *vol, const struct fwpt_sink *o, uint64_t *gt,
                    uint64_t *decoded, struct fwpt_flow_block *cache)
{
    static struct fwpt_target_run target;
    struct fwpt_outmem out = {0};
    struct fwpt_pieces tr = {0};
    int fail = 1;
    fwpt_printf(o, "=== soft-selftest %s: profile %s, target %s\n", c->name, c->profile, c->target);
    fwpt_memset(&target, 0, sizeof target);

    static struct fwpt_physmem mem;
    fwpt_physmem_init(&mem, true);
    EFI_STATUS est = fwpt_soft_init(&soft, c->profile, &mem, gt, GT_CAP);
    if (EFI_ERROR(est)) {
        fwpt_puts(o, "soft: init failed: ");
        fwpt_put_efi_status(o, est);
        fwpt_putc(o, '\n');
        return 1;
    }
    const struct fwpt_cpu *cpu = fwpt_soft_cpu(&soft.sim);
    const struct fwpt_caps *caps = &soft.sim.caps;

    struct fwpt_plan_options popt = {.total_size = c->total, .region_size = c->region, .mode = c->mode};
    struct fwpt_plan plan;
    struct fwpt_output_regs regs;
    if (EFI_ERROR(fwpt_step_plan(caps, &popt, &plan, o)) || EFI_ERROR(fwpt_step_memory(&plan, 0, &out, o)) ||
        EFI_ERROR(fwpt_step_tables(&plan, &mem, &out, &regs, o)))
        goto out;

    struct fwpt_trace_config tc = {.branch_en = true, .os = true, .topa = (regs.ctl_bits & RTIT_CTL_TOPA) != 0,
                                   .output_base = regs.output_base, .output_mask_ptrs = regs.output_mask_ptrs};
    if (c->timing) {
        fwpt_trace_timing_lowest(&tc, caps);
    }
    if (c->range == RANGE_FILTER_CORE) {
        uint64_t lo, hi;
        if (!image_range((uint64_t)(uintptr_t)BS->LocateHandleBuffer, &lo, &hi)) {
            fwpt_puts(o, "no loaded image holds LocateHandleBuffer\n");
            goto out;
        }
        tc.n_ranges = 1;
        tc.range[0] = (struct fwpt_trace_range){.cfg = RTIT_ADDR_CFG_FILTER, .a = lo, .b = hi};
        fwpt_puts(o, "filter: ADDR0 ");
        fwpt_put_0x(o, lo);
        fwpt_putc(o, '-');
        fwpt_put_0x(o, hi);
        fwpt_puts(o, " (the image of LocateHandleBuffer)\n");
    } else if (c->range == RANGE_TRACESTOP_SUM) {
        /* TraceStop at st_sum's entry: the trace ends the first time it runs. */
        tc.n_ranges = 1;
        tc.range[0] = (struct fwpt_trace_range){.cfg = RTIT_ADDR_CFG_TRACESTOP,
                                                .a = (uint64_t)(uintptr_t)st_sum, .b = (uint64_t)(uintptr_t)st_sum};
    }
    void (*fn)(void *);
    void *arg;
    if (!case_target(c, &target, &fn, &arg)) {
        fwpt_puts(o, "cannot prepare the target\n");
        goto out;
    }
    struct fwpt_trace_state state;
    struct fwpt_trace_result res;
    enum fwpt_status stop;
    if (EFI_ERROR(fwpt_step_check(&tc, caps, o)) || EFI_ERROR(fwpt_step_start(cpu, caps, &tc, &state, o)))
        goto out;
    est = fwpt_step_call(cpu, &soft, fn, arg, &state, &res, &stop);
    if (fn == fwpt_target_call)
        fwpt_target_report(&target, o);
    fwpt_step_call_report(est, stop, &res, o);
    if (EFI_ERROR(est) || stop != FWPT_OK)
        goto out;
    fwpt_soft_report(&soft.sim, o);

    if (EFI_ERROR(fwpt_step_readback(&plan, &mem, &state, &regs, &res, &tr, NULL, o)))
        goto out;
    const struct fwpt_readback *rb = &tr.rb;
    fwpt_puts(o, "readback: ");
    fwpt_put_dec(o, rb->bytes);
    fwpt_puts(o, " bytes in ");
    fwpt_put_dec(o, rb->regions_used);
    fwpt_puts(o, " regions; ");
    fwpt_puts(o, rb->reason ? rb->reason : "");
    fwpt_puts(o, rb->wrapped ? " [wrapped]" : "");
    fwpt_puts(o, rb->stopped ? " [stopped]" : "");
    fwpt_putc(o, '\n');

    /* decoded in place, from the pieces the processor wrote */
    enum fwpt_status ist = fwpt_flow_init_segs(&flow, tr.segs, tr.nsegs, live_read, NULL, cache, FLOW_CACHE);
    if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) { /* no PSB: nothing decoded, which the comparison below reports */
        fwpt_puts(o, "flow: the flow decoder refused its set-up: ");
        fwpt_puts(o, fwpt_status_msg(ist));
        fwpt_putc(o, '\n');
        goto out;
    }
    size_t n = 0, errors = 0;
    struct fwpt_flow_event ev;
    while (fwpt_flow_next(&flow, &ev) == FWPT_OK) {
        if (ev.kind == FWPT_FLOW_INSN) {
            if (n < GT_CAP)
                decoded[n++] = ev.ip;
        } else if (ev.kind == FWPT_FLOW_ERROR) {
            if (errors++ < 3) {
                fwpt_puts(o, "flow: error ");
                fwpt_puts(o, fwpt_status_msg((enum fwpt_status)ev.status));
                fwpt_puts(o, " at trace offset ");
                fwpt_put_0x(o, ev.offset);
                fwpt_puts(o, ", ip ");
                fwpt_put_0x(o, ev.ip);
                fwpt_putc(o, '\n');
            }
        }
    }
    /* A stopped trace ends mid-flow; the wrapped one starts at the first PSB: a decoder error
     * at the cut is not a difference. verify decides. */
    fail = fwpt_soft_verify(&soft.sim, decoded, n, n, rb->wrapped, rb->stopped || res.stopped, o);
    if (soft.sim.stats.enc_status != FWPT_OK)
        fail = 1;

    char dir[64] = "\\fwpt-soft\\";
    fwpt_memcpy(dir + 11, c->name, fwpt_strlen(c->name) + 1);
    fwpt_save_file_segs(vol, o, dir, "trace.pt", tr.segs, tr.nsegs);
    fwpt_save_file(vol, o, dir, "gt.bin", gt, soft.sim.gt_count * sizeof *gt);
    save_pages(vol, o, dir, gt, soft.sim.gt_count);
    {
        static char meta[512];
        struct fwpt_bufsink mb;
        struct fwpt_sink ms = fwpt_bufsink_init(&mb, meta, sizeof meta);
        fwpt_puts(&ms, "wrapped=");
        fwpt_put_dec(&ms, rb->wrapped);
        fwpt_puts(&ms, "\nstopped=");
        fwpt_put_dec(&ms, rb->stopped || res.stopped);
        fwpt_puts(&ms, "\nfilter_a=");
        fwpt_put_0x(&ms, tc.range[0].cfg == RTIT_ADDR_CFG_FILTER ? tc.range[0].a : 0);
        fwpt_puts(&ms, "\nfilter_b=");
        fwpt_put_0x(&ms, tc.range[0].cfg == RTIT_ADDR_CFG_FILTER ? tc.range[0].b : ~0ull);
        fwpt_puts(&ms, "\ntraced_end=");
        fwpt_put_dec(&ms, soft.sim.traced_end);
        fwpt_puts(&ms, "\ndecoded=");
        fwpt_put_dec(&ms, n);
        fwpt_puts(&ms, "\n");
        fwpt_save_file(vol, o, dir, "meta.txt", meta, mb.len);
    }
out:
    fwpt_soft_fini(&soft);
    fwpt_target_cleanup(&target);
    fwpt_pieces_free(&tr);
    fwpt_outmem_free(&out);
    fwpt_puts(o, "soft-selftest ");
    fwpt_puts(o, c->name);
    fwpt_puts(o, fail ? ": FAIL\n" : ": PASS\n");
    return fail;
}

EFI_STATUS fwpt_soft_selftest(EFI_HANDLE image, const char *only, const struct fwpt_sink *o)
{
    struct fwpt_volume vol;
    fwpt_volume_open(image, &vol);
    uint64_t *gt = NULL, *decoded = NULL;
    struct fwpt_flow_block *cache = NULL;
    if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, GT_CAP * 8, (void **)&gt)) ||
        EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, GT_CAP * 8, (void **)&decoded)) ||
        EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, FLOW_CACHE * sizeof *cache, (void **)&cache)))
        return EFI_OUT_OF_RESOURCES;
    unsigned pass = 0, failed = 0;
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && only[0] && fwpt_strcmp(only, cases[i].name))
            continue;
        if (run_case(&cases[i], &vol, o, gt, decoded, cache))
            failed++;
        else
            pass++;
    }
    if (!only || !only[0] || !fwpt_strcmp(only, "record-twice")) {
        /* The hardware-verify path: step-only recording, twice; a deterministic call repeats. */
        static struct fwpt_physmem mem;
        fwpt_physmem_init(&mem, true);
        int f = 1, res = 0;
        fwpt_puts(o, "=== soft-selftest record-twice: fwpt_soft_record of target internal, twice (locate-handle between), "
                     "then with record_limit = half\n");
        static struct fwpt_target_run locate;
        fwpt_memset(&locate, 0, sizeof locate);
        locate.target = FWPT_TARGET_LOCATE_HANDLE;
        if (!EFI_ERROR(fwpt_target_prepare(&locate)) && !EFI_ERROR(fwpt_soft_init(&soft, NULL, &mem, decoded, GT_CAP)) &&
            !EFI_ERROR(fwpt_soft_record(&soft, t_internal, &res))) {
            size_t n = soft.sim.gt_count;
            if (!EFI_ERROR(fwpt_soft_init(&soft, NULL, &mem, gt, GT_CAP)) &&
                !EFI_ERROR(fwpt_soft_record(&soft, fwpt_target_call, &locate)) &&
                !EFI_ERROR(fwpt_soft_record(&soft, t_internal, &res))) {
                fwpt_soft_report(&soft.sim, o);
                f = n == 0 || fwpt_soft_verify(&soft.sim, decoded, n, n, 0, 0, o);
                /* a record_limit (hardware verify after the buffer filled): stepping ends once gt holds that many,
                 * and those are the oldest part of the same flow */
                soft.sim.record_limit = n / 2;
                if (!f && n >= 4 && !EFI_ERROR(fwpt_soft_record(&soft, t_internal, &res))) {
                    fwpt_soft_report(&soft.sim, o);
                    f = soft.sim.gt_count != n / 2 || !soft.sim.stats.record_limit_hit || soft.sim.stats.step_limit_hit ||
                        fwpt_soft_verify(&soft.sim, decoded, n / 2, n / 2, 0, 1, o);
                } else {
                    f = 1;
                }
                soft.sim.record_limit = 0;
            }
        }
        fwpt_target_cleanup(&locate);
        fwpt_puts(o, f ? "soft-selftest record-twice: FAIL\n" : "soft-selftest record-twice: PASS\n");
        if (f)
            failed++;
        else
            pass++;
    }
    fwpt_puts(o, "soft-selftest: ");
    fwpt_put_dec(o, pass);
    fwpt_puts(o, " passed, ");
    fwpt_put_dec(o, failed);
    fwpt_puts(o, " failed\n");
    uefi_call_wrapper(BS->FreePool, 1, gt);
    uefi_call_wrapper(BS->FreePool, 1, decoded);
    uefi_call_wrapper(BS->FreePool, 1, cache);
    fwpt_volume_close(&vol);
    return failed ? EFI_ABORTED : EFI_SUCCESS;
}
