/* fwpt — the run (see pipeline.h): its steps as functions, then the run that calls them in order. */
#include <efi.h>
#include <efilib.h>
#include "arch/rtit.h"
#include "efi/console.h"
#include "efi/pipeline.h"
#include "efi/pool.h"
#include "topa/restricted.h"
#include "topa/validate.h"

/* MSR_PLATFORM_INFO[15:8]: maximum non-turbo ratio (SDM Vol. 4, model-specific MSRs). */
#define PLATFORM_INFO_MAX_NONTURBO_RATIO FWPT_FIELD(15, 8)
#define SOFT_GT_MAX (1u << 22)     /* ground-truth IPs the software backend records (32 MiB) */

void fwpt_run_say(struct fwpt_run *s, const char *a, const char *b)
{
    fwpt_puts(&s->o, a);
    if (b)
        fwpt_puts(&s->o, b);
    fwpt_puts(&s->o, "\n");
}

void *fwpt_pool_counted(uint64_t *counter, UINTN n, bool zero)
{
    void *p = zero ? AllocateZeroPool(n) : AllocatePool(n);
    if (p && counter)
        *counter += n;
    return p;
}

const char *fwpt_run_target_name(const struct fwpt_run *s)
{
    return s->boot ? "boot" : fwpt_target_name(s->target.target);
}

const char *fwpt_run_target_path(const struct fwpt_run *s)
{
    return s->boot ? "BDS: from the boot-trace driver's start to ReadyToBoot" : s->target.path;
}

/* ---- the steps shared with soft_selftest ---- */

EFI_STATUS fwpt_step_plan(const struct fwpt_caps *caps, const struct fwpt_plan_options *po, struct fwpt_plan *plan,
                          const struct fwpt_sink *o)
{
    struct fwpt_plan_error perr = {0};
    enum fwpt_status st = fwpt_plan_make(caps, po, plan, &perr);
    if (st != FWPT_OK) {
        fwpt_puts(o, "plan: refused: ");
        if (!perr.why)
            perr.why = fwpt_status_msg(st);
        fwpt_plan_error_print(&perr, false, o); /* size=3: must be ... */
        fwpt_puts(o, "\n");
        return EFI_INVALID_PARAMETER;
    }
    fwpt_plan_print(plan, o);
    return EFI_SUCCESS;
}

/* AllocatePages with the plan's alignment, over-allocated and trimmed; zeroed (readback's wrap test needs zeros). */
static EFI_STATUS alloc_aligned(struct fwpt_outmem *m, uint64_t bytes, uint64_t align, uint64_t below, uint64_t *out)
{
    UINTN pages = EFI_SIZE_TO_PAGES(bytes);
    UINTN extra = align > EFI_PAGE_SIZE ? (UINTN)(align / EFI_PAGE_SIZE) - 1 : 0;
    EFI_PHYSICAL_ADDRESS a = below ? below - 1 : 0;
    /* Below the APIC page: output must never be routed there (SDM "Restricted Memory Access"). */
    EFI_STATUS st = uefi_call_wrapper(BS->AllocatePages, 4, below ? AllocateMaxAddress : AllocateAnyPages,
                                      EfiLoaderData, pages + extra, &a);
    if (EFI_ERROR(st))
        return st;
    EFI_PHYSICAL_ADDRESS aligned = (a + align - 1) & ~(EFI_PHYSICAL_ADDRESS)(align - 1);
    UINTN head = (UINTN)((aligned - a) / EFI_PAGE_SIZE), tail = extra - head;
    if (head)
        uefi_call_wrapper(BS->FreePages, 2, a, head);
    if (tail)
        uefi_call_wrapper(BS->FreePages, 2, aligned + pages * EFI_PAGE_SIZE, tail);
    SetMem((void *)(UINTN)aligned, pages * EFI_PAGE_SIZE, 0);
    m->allocs[m->nallocs].base = aligned;
    m->allocs[m->nallocs].pages = pages;
    m->nallocs++;
    *out = aligned;
    return EFI_SUCCESS;
}

EFI_STATUS fwpt_step_memory(const struct fwpt_plan *plan, uint64_t below, struct fwpt_outmem *m,
                            const struct fwpt_sink *o)
{
    EFI_STATUS est;
    m->cap_allocs = plan->regions.count + plan->tables.count;
    m->allocs = AllocateZeroPool(m->cap_allocs * sizeof *m->allocs);
    m->region_phys = AllocateZeroPool((plan->region_count + 1) * sizeof(uint64_t));
    m->table_phys = AllocateZeroPool((plan->table_count + 1) * sizeof(uint64_t));
    if (!m->allocs || !m->region_phys || !m->table_phys)
        return EFI_OUT_OF_RESOURCES;
    for (unsigned i = 0; i < plan->regions.count; i++) {
        est = alloc_aligned(m, plan->regions.bytes, plan->regions.align, below, &m->region_phys[i]);
        if (EFI_ERROR(est)) {
            fwpt_puts(o, "memory: AllocatePages failed for an output region\n");
            return est;
        }
    }
    for (unsigned i = 0; i < plan->tables.count; i++) {
        est = alloc_aligned(m, plan->tables.bytes, plan->tables.align, below, &m->table_phys[i]);
        if (EFI_ERROR(est)) {
            fwpt_puts(o, "memory: AllocatePages failed for a ToPA table\n");
            return est;
        }
    }
    return EFI_SUCCESS;
}

void fwpt_outmem_free(struct fwpt_outmem *m)
{
    for (unsigned i = 0; i < m->nallocs; i++)
        uefi_call_wrapper(BS->FreePages, 2, m->allocs[i].base, m->allocs[i].pages);
    fwpt_pool_free(m->allocs);
    fwpt_pool_free(m->region_phys);
    fwpt_pool_free(m->table_phys);
    fwpt_memset(m, 0, sizeof *m);
}

EFI_STATUS fwpt_step_tables(const struct fwpt_plan *plan, const struct fwpt_physmem *mem, const struct fwpt_outmem *m,
                            struct fwpt_output_regs *regs, const struct fwpt_sink *o)
{
    enum fwpt_status st = fwpt_plan_apply(plan, mem, m->region_phys, m->table_phys, regs);
    if (st != FWPT_OK) {
        fwpt_puts(o, "topa: building the tables failed: ");
        fwpt_puts(o, fwpt_status_msg(st));
        fwpt_puts(o, "\n");
        return EFI_DEVICE_ERROR;
    }
    return EFI_SUCCESS;
}

EFI_STATUS fwpt_step_check(const struct fwpt_trace_config *cfg, const struct fwpt_caps *caps, const struct fwpt_sink *o)
{
    struct fwpt_trace_refusal ref = {0};
    enum fwpt_status st = fwpt_trace_check(cfg, caps, &ref);
    if (st == FWPT_OK)
        return EFI_SUCCESS;
    fwpt_puts(o, "trace: refused: ");
    fwpt_puts(o, ref.option ? ref.option : "?");
    if (ref.capability) {
        fwpt_puts(o, " needs the capability ");
        fwpt_puts(o, ref.capability);
    }
    fwpt_puts(o, ": ");
    fwpt_puts(o, ref.why ? ref.why : fwpt_status_msg(st));
    fwpt_puts(o, "\n");
    return EFI_UNSUPPORTED;
}

EFI_STATUS fwpt_step_start(const struct fwpt_cpu *cpu, const struct fwpt_caps *caps, const struct fwpt_trace_config *cfg,
                           struct fwpt_trace_state *state, const struct fwpt_sink *o)
{
    enum fwpt_status st = fwpt_trace_start(cpu, caps, cfg, state);
    if (state->was_active)
        fwpt_puts(o, "trace: firmware had left Intel PT running (TraceEn=1): stopped it first\n");
    if (st == FWPT_OK)
        return EFI_SUCCESS;
    fwpt_puts(o, "trace: start failed: ");
    fwpt_puts(o, fwpt_status_msg(st));
    if (state->failed_msr) {
        fwpt_puts(o, state->failed_write ? " (WRMSR " : " (RDMSR ");
        fwpt_put_0x(o, state->failed_msr);
        fwpt_puts(o, ")");
    }
    if (st == FWPT_E_TRACE_ERROR) {
        fwpt_puts(o, ", IA32_RTIT_STATUS ");
        fwpt_put_0x(o, state->status_after_enable);
    }
    fwpt_puts(o, "; TraceEn is 0 and the MSRs are restored\n");
    return EFI_DEVICE_ERROR;
}

EFI_STATUS fwpt_step_call(const struct fwpt_cpu *cpu, struct fwpt_efi_soft *soft, void (*fn)(void *), void *arg,
                          struct fwpt_trace_state *state, struct fwpt_trace_result *result, enum fwpt_status *stop)
{
    EFI_STATUS est = EFI_SUCCESS;
    if (soft)
        est = fwpt_soft_call(soft, fn, arg);
    else
        fn(arg);
    *stop = fwpt_trace_stop(cpu, state, result);
    return est;
}

void fwpt_step_call_report(EFI_STATUS call, enum fwpt_status stop, const struct fwpt_trace_result *result,
                           const struct fwpt_sink *o)
{
    if (EFI_ERROR(call)) {
        fwpt_puts(o, "trace: the backend could not run the call: ");
        fwpt_put_efi_status(o, call);
        fwpt_puts(o, "\n");
    }
    if (stop != FWPT_OK) {
        fwpt_puts(o, "trace: stop: ");
        fwpt_puts(o, fwpt_status_msg(stop));
        if (result->failed_msr) {
            fwpt_puts(o, " at MSR ");
            fwpt_put_0x(o, result->failed_msr);
        }
        fwpt_puts(o, "\n");
    }
}

EFI_STATUS fwpt_step_readback(const struct fwpt_plan *plan, const struct fwpt_physmem *mem, const struct fwpt_trace_state *state,
                              const struct fwpt_output_regs *regs, const struct fwpt_trace_result *result,
                              struct fwpt_pieces *p, uint64_t *pool, const struct fwpt_sink *o)
{
    p->spans = AllocateZeroPool((plan->region_count + 4) * sizeof *p->spans);
    if (!p->spans)
        return EFI_OUT_OF_RESOURCES;
    p->rb.spans = p->spans;
    p->rb.cap = plan->region_count + 4;
    struct fwpt_readback_in rin = {
        .mem = mem, .ctl = state->ctl,
        .start_output_base = regs->output_base, .start_mask_ptrs = regs->output_mask_ptrs,
        .output_base = result->output_base, .output_mask_ptrs = result->output_mask_ptrs,
        .status = result->status, .wrap = FWPT_WRAP_DETECT,
    };
    enum fwpt_status st = fwpt_readback(&rin, &p->rb);
    if (st != FWPT_OK) {
        fwpt_puts(o, "readback: ");
        fwpt_puts(o, fwpt_status_msg(st));
        fwpt_puts(o, "\n");
        return EFI_DEVICE_ERROR;
    }
    /* the trace stays where the processor wrote it: the decoders and trace.pt read the spans in place */
    p->segs = fwpt_pool_counted(pool, (p->rb.count + 1) * sizeof *p->segs, true);
    if (!p->segs)
        return EFI_OUT_OF_RESOURCES;
    p->len = 0;
    for (size_t i = 0; i < p->rb.count; i++) {
        const void *b = fwpt_physmem_ptr(mem, p->rb.spans[i].phys, p->rb.spans[i].len);
        if (!b) {
            fwpt_printf(o, "readback: the trace's span %lu (0x%lx, %lu bytes) is not mapped: nothing to decode\n",
                        (uint64_t)i, p->rb.spans[i].phys, p->rb.spans[i].len);
            return EFI_DEVICE_ERROR;
        }
        p->segs[p->nsegs++] = (struct fwpt_pkt_seg){b, (size_t)p->rb.spans[i].len};
        p->len += p->rb.spans[i].len;
    }
    return EFI_SUCCESS;
}

void fwpt_pieces_free(struct fwpt_pieces *p)
{
    fwpt_pool_free(p->spans);
    fwpt_pool_free(p->segs);
    fwpt_memset(p, 0, sizeof *p);
}

/* ---- the run ---- */

/* the trace configuration from the options */
static void make_config(struct fwpt_run *s, const struct fwpt_image *impl)
{
    const struct fwpt_efi_options *o = s->opt;
    struct fwpt_trace_config *c = &s->cfg;
    fwpt_memset(c, 0, sizeof *c);
    c->branch_en = true;
    c->os = true;    /* firmware runs at CPL 0 */
    c->user = false;
    c->tsc_en = o->tsc;
    if (o->mtc >= 0) {
        c->mtc_en = true;
        c->mtc_freq = (unsigned)o->mtc;
    }
    if (o->cyc >= 0) {
        c->cyc_en = true;
        c->cyc_thresh = (unsigned)o->cyc;
    }
    if (o->time)
        fwpt_trace_timing_small(c, s->caps); /* what mtc= / cyc= did not set */
    if (o->psb >= 0)
        c->psb_freq = (unsigned)o->psb;
    c->ptw_en = o->ptwrite;
    c->dis_retc = o->noretcomp;
    if (o->filter == FWPT_FILTER_RANGE) {
        c->n_ranges = 1;
        c->range[0].cfg = RTIT_ADDR_CFG_FILTER;
        c->range[0].a = o->filter_a;
        c->range[0].b = o->filter_b;
    } else if (o->filter == FWPT_FILTER_TARGET && impl) {
        c->n_ranges = 1;
        c->range[0].cfg = RTIT_ADDR_CFG_FILTER;
        c->range[0].a = impl->base;
        c->range[0].b = impl->base + impl->size - 1;
    }
    c->topa = (s->plan.ctl_bits & RTIT_CTL_TOPA) != 0;
    c->output_base = s->regs.output_base;
    c->output_mask_ptrs = s->regs.output_mask_ptrs;
}

/* verify on real PT: call the target again, single-stepped (ground truth only), and compare with
 * the flow decoded from the hardware trace. Meaningful when the call is deterministic and not
 * filtered; interrupt handlers that ran during the traced call appear only in the decoded flow. */
static bool verify_hw(struct fwpt_run *s)
{
    const struct fwpt_sink *o = &s->o;
    if (s->cfg.n_ranges) {
        s->verdict = (struct fwpt_verify){.result = FWPT_VERIFY_NOT_RUN,
                                          .reason = "skipped: an IP filter was set, the single-stepped flow is unfiltered"};
        return true;
    }
    s->soft = AllocateZeroPool(sizeof *s->soft);
    s->gt = AllocatePool(SOFT_GT_MAX * sizeof *s->gt);
    if (!s->soft || !s->gt || EFI_ERROR(fwpt_soft_init(s->soft, NULL, &s->mem, s->gt, SOFT_GT_MAX))) {
        s->verdict.reason = "the single-stepper cannot start";
        return false;
    }
    struct fwpt_target_run again = {
        .target = s->target.target, .path = s->target.path, .image = s->target.image,
        .device = s->target.device, .root = s->target.root, .raise_tpl = s->target.raise_tpl,
    };
    if (EFI_ERROR(fwpt_target_prepare(&again))) {
        s->verdict.reason = "cannot prepare the target a second time";
        fwpt_target_cleanup(&again);
        return false;
    }
    /* the buffer filled: verify compares the oldest part, so the rest of the call need not be stepped (a long
     * call would also overflow the ground-truth buffer) */
    if (s->tr.rb.stopped && !s->tr.rb.wrapped)
        s->soft->sim.record_limit = s->ndecoded + FWPT_SOFT_AFTER_STOP;
    /* a ring that did not stop kept the newest part: so does the single-stepped run */
    s->soft->sim.gt_ring = s->opt->ring && !s->soft->sim.record_limit;
    EFI_STATUS st = fwpt_soft_record(s->soft, fwpt_target_call, &again);
    fwpt_target_cleanup(&again);
    if (EFI_ERROR(st)) {
        fwpt_puts(o, "verify: single-stepping failed: ");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "\n");
        s->verdict.reason = "single-stepping failed";
        return false;
    }
    /* 2: the single-stepped flow did not fit, nothing compared: not run, as with an IP filter */
    return fwpt_soft_verify_scope(&s->soft->sim, s->decoded, s->ndecoded, s->insns, s->tr.rb.wrapped, s->tr.rb.stopped, o,
                                  &s->verdict) != 1;
}

/* 1. The backend and its capabilities. auto: Intel PT when usable, else the software tracer emulating the
 * built-in profile closest to this processor, with verify (the trace checks itself). */
static EFI_STATUS run_backend(struct fwpt_run *s)
{
    const struct fwpt_efi_options *opt = s->opt;
    struct fwpt_sink *o = &s->o;
    s->cpu = s->env->cpu;
    s->caps = s->env->caps;
    s->backend = opt->backend;
    s->verify = opt->verify;
    const char *profile = opt->profile[0] ? opt->profile : FWPT_PROFILE_DEFAULT;
    if (s->backend == FWPT_BACKEND_AUTO && s->caps->pt_supported) {
        s->backend = FWPT_BACKEND_HW;
        fwpt_run_say(s, "trace: backend=auto: Intel PT is usable: hardware tracing", NULL);
    } else if (s->backend == FWPT_BACKEND_AUTO) {
        struct fwpt_cpu_id id;
        bool matched = false;
        fwpt_caps_cpu_id(s->caps, &id);
        const struct fwpt_cpu_profile *closest = fwpt_cpu_profile_closest(&id, &matched);
        if (!opt->profile[0])
            profile = closest->name;
        s->backend = FWPT_BACKEND_SOFT;
        s->verify = true;
        fwpt_printf(o, "trace: backend=auto: Intel PT is not usable here (%s): the software tracer single-steps the "
                       "call and encodes what a processor with Intel PT would write\n",
                    fwpt_caps_reason_msg(s->caps->reason));
        const struct fwpt_cpu_profile *p = fwpt_cpu_profile_find(profile);
        fwpt_printf(o, "trace: backend=auto: emulating %s (%s, family/model/stepping %s): %s\n", profile,
                    p ? p->cpu_name : "?", p ? p->fms : "?",
                    opt->profile[0] ? "the profile= given"
                    : matched ? "the built-in profile with this processor's family and model"
                              : "the default profile (no built-in profile has this processor's family and model)");
        fwpt_run_say(s, "trace: backend=auto: verify is on (the decoded flow is checked against the single-stepped one); "
                        "backend=hw refuses instead", NULL);
    }
    if (s->backend == FWPT_BACKEND_SOFT) {
        s->soft = AllocateZeroPool(sizeof *s->soft);
        s->gt = AllocatePool(SOFT_GT_MAX * sizeof *s->gt);
        if (!s->soft || !s->gt)
            return EFI_OUT_OF_RESOURCES;
        EFI_STATUS est = fwpt_soft_init(s->soft, profile, &s->mem, s->gt, SOFT_GT_MAX);
        if (EFI_ERROR(est)) {
            fwpt_run_say(s, "trace: the software backend cannot start with profile ", profile);
            return est;
        }
        s->soft->sim.gt_ring = opt->ring; /* a ring keeps the newest part of a long call: so does the ground truth */
        if (opt->steps)
            s->soft->sim.max_steps = opt->steps;
        s->cpu = fwpt_soft_cpu(&s->soft->sim);
        s->caps = &s->soft->sim.caps;
        fwpt_run_say(s, "trace: backend soft (single-step), CPU profile ", profile);
        fwpt_caps_report(s->caps, o);
    } else {
        fwpt_run_say(s, "trace: backend hw (Intel PT)", NULL);
    }
    if (!s->caps->pt_supported) {
        fwpt_puts(o, "trace: Intel PT is not usable on this processor: ");
        fwpt_puts(o, fwpt_caps_reason_msg(s->caps->reason));
        fwpt_puts(o, "; nothing traced (the report is in ");
        fwpt_puts(o, opt->out_dir);
        fwpt_puts(o, s->boot ? "\\log.txt)\n" : "\\caps.txt)\n");
        if (s->backend == FWPT_BACKEND_HW)
            fwpt_puts(o, "trace: hint: backend=soft (or the default, backend=auto) traces the same call without Intel PT, "
                         "by single-stepping (e.g. `trace locate-handle backend=soft verify`)\n");
        return EFI_UNSUPPORTED;
    }
    return EFI_SUCCESS;
}

/* 2. Side information: CPUID 15H, the max non-turbo ratio. */
static void run_side_info(struct fwpt_run *s)
{
    if (s->caps->raw.max_basic_leaf >= 0x15 && fwpt_cpuid(s->cpu, 0x15, 0, &s->cpuid15) == FWPT_OK)
        s->have_cpuid15 = true;
    uint64_t pi;
    if (fwpt_rdmsr(s->cpu, MSR_PLATFORM_INFO, &pi) == FWPT_OK) {
        s->have_ratio = true;
        s->ratio = FWPT_GET(PLATFORM_INFO_MAX_NONTURBO_RATIO, pi);
    }
}

/* 3. The target, prepared outside the trace, and the image implementing it (*impl, NULL when none). */
static EFI_STATUS run_target(struct fwpt_run *s, const struct fwpt_image **impl)
{
    const struct fwpt_efi_options *opt = s->opt;
    struct fwpt_sink *o = &s->o;
    EFI_STATUS est = fwpt_symbols_load(&s->syms);
    if (EFI_ERROR(est)) {
        fwpt_puts(o, "symbols: cannot enumerate loaded images: ");
        fwpt_put_efi_status(o, est);
        fwpt_puts(o, "\n");
    }
    s->target.target = opt->target;
    s->target.path = opt->target_path;
    s->target.image = s->env->image;
    s->target.device = s->env->volume->device;
    s->target.root = s->env->volume->root;
    s->target.raise_tpl = opt->test_raise_tpl ? TPL_NOTIFY : 0;
    est = fwpt_target_prepare(&s->target);
    if (EFI_ERROR(est)) {
        /* read-file /nope.txt: not found on the boot volume (EFI_NOT_FOUND (0x...)) */
        fwpt_puts(o, "trace: cannot prepare target ");
        fwpt_puts(o, fwpt_target_name(opt->target));
        if (s->target.why) {
            fwpt_puts(o, " ");
            fwpt_puts(o, opt->target_path);
            fwpt_puts(o, ": ");
            fwpt_puts(o, s->target.why);
            fwpt_puts(o, " (");
            fwpt_put_efi_status(o, est);
            fwpt_puts(o, ")\n");
            return est;
        }
        fwpt_puts(o, ": ");
        fwpt_put_efi_status(o, est);
        fwpt_puts(o, "\n");
        return est;
    }
    *impl = fwpt_symbols_find(&s->syms, s->target.impl_addr);
    fwpt_puts(o, "target: ");
    fwpt_puts(o, fwpt_target_name(opt->target));
    fwpt_puts(o, " -> ");
    fwpt_puts(o, s->target.impl_what);
    fwpt_puts(o, " at ");
    fwpt_symbols_put(&s->syms, s->target.impl_addr, o);
    fwpt_puts(o, "\n");
    if (opt->filter == FWPT_FILTER_TARGET && !*impl) {
        fwpt_run_say(s, "trace: filter=target: no loaded image contains the target's service", NULL);
        return EFI_NOT_FOUND;
    }
    return EFI_SUCCESS;
}

/* 4-6. The output plan; memory for it, aligned, zeroed, below the APIC page; tables and register values,
 * validated (restricted memory too) before anything is written to an MSR. */
static EFI_STATUS run_output(struct fwpt_run *s)
{
    const struct fwpt_efi_options *opt = s->opt;
    struct fwpt_sink *o = &s->o;
    struct fwpt_plan_options po = {
        .total_size = opt->buffer_size,
        .region_size = opt->region_size,
        .mode = opt->ring ? FWPT_PLAN_RING : FWPT_PLAN_STOP,
    };
    EFI_STATUS est = fwpt_step_plan(s->caps, &po, &s->plan, o);
    if (EFI_ERROR(est))
        return est;
    /* restricted memory is the hardware's, whichever backend traces */
    struct fwpt_restricted restricted;
    fwpt_restricted_probe(s->env->cpu, &restricted);
    est = fwpt_step_memory(&s->plan, fwpt_restricted_alloc_below(&restricted), &s->out, o);
    if (EFI_ERROR(est))
        return est;
    est = fwpt_step_tables(&s->plan, &s->mem, &s->out, &s->regs, o);
    if (EFI_ERROR(est))
        return est;
    struct fwpt_violation viol[8];
    struct fwpt_validate_in vin = {
        .caps = s->caps, .mem = &s->mem, .ctl = s->regs.ctl_bits, .output_base = s->regs.output_base,
        .output_mask_ptrs = s->regs.output_mask_ptrs, .status = 0, .restricted = &restricted,
    };
    struct fwpt_validate_out vout = {.v = viol, .cap = 8};
    enum fwpt_status st = fwpt_validate(&vin, &vout);
    for (size_t i = 0; i < vout.count && i < 8; i++) {
        fwpt_puts(o, viol[i].warning ? "topa: warning: " : "topa: violation: ");
        fwpt_puts(o, fwpt_topa_rule_text(viol[i].rule));
        fwpt_puts(o, "\n");
    }
    fwpt_restricted_print(&restricted, o);
    if (st != FWPT_OK) {
        fwpt_run_say(s, "topa: the tables break an SDM rule; tracing not started: ", fwpt_status_msg(st));
        return EFI_DEVICE_ERROR;
    }
    return EFI_SUCCESS;
}

/* 7. The configuration, checked against the capabilities. */
static EFI_STATUS run_configure(struct fwpt_run *s, const struct fwpt_image *impl)
{
    struct fwpt_sink *o = &s->o;
    make_config(s, impl);
    EFI_STATUS est = fwpt_step_check(&s->cfg, s->caps, o);
    if (EFI_ERROR(est))
        return est;
    fwpt_puts(o, "trace: IA32_RTIT_CTL ");
    fwpt_put_0x(o, fwpt_trace_ctl(&s->cfg, s->caps) | RTIT_CTL_TRACEEN);
    if (s->cfg.n_ranges) {
        fwpt_puts(o, ", ADDR0 filter ");
        fwpt_put_0x(o, s->cfg.range[0].a);
        fwpt_puts(o, "-");
        fwpt_put_0x(o, s->cfg.range[0].b);
    }
    fwpt_puts(o, "\n");
    return EFI_SUCCESS;
}

/* 8. TraceEn=1 around the call, nothing else in between; then the images the call loaded. */
static EFI_STATUS run_trace(struct fwpt_run *s, enum fwpt_status *stop)
{
    struct fwpt_sink *o = &s->o;
    /* The target's services are called at the TPL an application calls them at (UEFI spec, "Event, Timer, and Task
     * Priority Services", table "TPL Restrictions": file, variable and image services only up to TPL_CALLBACK). */
    fwpt_puts(o, "target: called at ");
    fwpt_put_tpl(o, fwpt_current_tpl());
    if (s->target.raise_tpl) {
        fwpt_puts(o, "; test-raise-tpl: the service runs at ");
        fwpt_put_tpl(o, s->target.raise_tpl);
        fwpt_puts(o, ", above what the UEFI spec allows for most services");
    }
    fwpt_puts(o, "\n");
    EFI_STATUS est = fwpt_step_start(s->cpu, s->caps, &s->cfg, &s->state, o);
    if (EFI_ERROR(est))
        return est;
    est = fwpt_step_call(s->cpu, s->soft, fwpt_target_call, &s->target, &s->state, &s->result, stop);
    fwpt_target_report(&s->target, o);
    fwpt_step_call_report(est, *stop, &s->result, o);
    /* Images loaded by the call (drivers stay; an application's bytes were copied before it ran). */
    fwpt_symbols_free(&s->syms);
    fwpt_symbols_load(&s->syms);
    if (s->target.copied && !fwpt_symbols_find(&s->syms, s->target.loaded_base))
        fwpt_symbols_add(&s->syms, s->target.loaded_base, s->target.loaded_size, s->target.path,
                         s->target.image_copy);
    if (!s->result.have_status || !s->result.have_output_base || !s->result.have_output_mask_ptrs) {
        fwpt_run_say(s, "trace: the output registers could not be read back; nothing to decode", NULL);
        return EFI_DEVICE_ERROR;
    }
    return EFI_SUCCESS;
}

/* 9. Readback: the bytes, oldest first, where the processor wrote them. */
static EFI_STATUS run_readback(struct fwpt_run *s)
{
    struct fwpt_sink *o = &s->o;
    s->pool_after = 0;
    EFI_STATUS est = fwpt_step_readback(&s->plan, &s->mem, &s->state, &s->regs, &s->result, &s->tr, &s->pool_after, o);
    if (EFI_ERROR(est))
        return est;
    const struct fwpt_readback *rb = &s->tr.rb;
    /* backend=soft with steps=N: the call did not return inside the trace; the software tracer ended it at the
     * step limit (FUP + TIP.PGD), so "the call returned" would be false here and in sideband.json */
    const bool step_limit = s->soft && s->soft->sim.stats.step_limit_hit && !rb->error && !rb->stopped;
    if (s->boot && !step_limit && !rb->error && !rb->stopped && !rb->wrapped)
        s->tr.rb.reason = "tracing disabled at ReadyToBoot (TraceEn=0): every byte produced is kept";
    if (step_limit && !rb->wrapped)
        s->tr.rb.reason = s->boot ? "tracing disabled at the step limit (steps=), the rest of the boot ran untraced: "
                                    "every byte produced is kept"
                                  : "tracing disabled at the step limit (steps=), the rest of the call ran untraced: "
                                    "every byte produced is kept";
    fwpt_printf(o, "trace: %lu bytes captured in %u of %u regions; IA32_RTIT_STATUS 0x%lx\ntrace: ended because: ",
                s->tr.len, rb->regions_used, rb->regions_total, s->result.status);
    fwpt_puts(o, rb->error ? "operational error (STATUS.Error)"
                 : rb->stopped ? "the output stopped (ToPA STOP / TraceStop)"
                 : step_limit ? "the step limit was reached"
                 : s->boot ? "the boot reached its end (ReadyToBoot)"
                 : "the call returned");
    if (rb->reason) {
        fwpt_puts(o, "; ");
        fwpt_puts(o, rb->reason);
    }
    fwpt_puts(o, "\n");
    return EFI_SUCCESS;
}

/* 10. Decode in place: packets, then the instruction flow over live code. */
static void run_decode(struct fwpt_run *s, struct fwpt_membuf *packets, struct fwpt_membuf *flowtxt)
{
    struct fwpt_sink *o = &s->o;
    fwpt_run_decode_packets(s, packets);
    fwpt_puts(o, "packets:");
    for (unsigned t = 1; t < FWPT_PKT_COUNT; t++) {
        if (!s->pkt_count[t])
            continue;
        fwpt_puts(o, " ");
        fwpt_puts(o, fwpt_pkt_type_name((enum fwpt_pkt_type)t));
        fwpt_puts(o, "=");
        fwpt_put_dec(o, s->pkt_count[t]);
    }
    fwpt_puts(o, " errors=");
    fwpt_put_dec(o, s->pkt_errors);
    fwpt_puts(o, "\n");
    if (s->verify) {
        s->cap_decoded = SOFT_GT_MAX;
        s->decoded = fwpt_pool_counted(&s->pool_after, s->cap_decoded * sizeof *s->decoded, false);
    }
    fwpt_run_decode_flow(s, flowtxt);
    fwpt_run_top_modules(s);
    if (s->cfg.tsc_en || s->cfg.mtc_en || s->cfg.cyc_en)
        fwpt_run_time_report(s);
    /* what decoding cost in memory: independent of the trace's size (the files' text aside) */
    fwpt_printf(o, "decode: in place, from %u pieces of trace (%lu bytes, not copied); pool memory for decoding: "
                   "%lu bytes\n", s->tr.nsegs, s->tr.len, s->pool_after);
}

/* What kept timer events out of the stepped call (efi/soft.c step_call), or that nothing did. */
static void soft_timer_report(const struct fwpt_efi_soft *soft, const struct fwpt_sink *o)
{
    if (soft->open)
        fwpt_puts(o, "soft: the timer interrupt stayed on while stepping the boot (it waits for timer events): interrupt "
                     "handlers and the timer events they signal ran untraced (TF is clear in them)\n");
    else if (!soft->timer_stopped)
        fwpt_puts(o, "soft: the timer interrupt stayed on while stepping (no EFI_TIMER_ARCH_PROTOCOL): its handlers ran "
                     "untraced (TF is clear in them), and a second run may differ\n");
    else if (!soft->timer_period)
        fwpt_puts(o, "soft: the timer interrupt was already off while stepping\n");
    else
        fwpt_printf(o, "soft: the timer interrupt was off while stepping (EFI_TIMER_ARCH_PROTOCOL period %lu us, %s); "
                       "the TPL was not raised\n", (unsigned long)(soft->timer_period / 10),
                    soft->timer_restored ? "restored after" : "NOT restored after: it does not read back as before");
}

/* On every way out of the run: the timer period as it was before the stepped call (PI spec, EFI_TIMER_ARCH_PROTOCOL
 * GetTimerPeriod()), set back when it is not; one line, none when no stepped call stopped the timer. */
static void soft_timer_check(struct fwpt_efi_soft *soft, const struct fwpt_sink *o)
{
    uint64_t now = 0;
    const unsigned long before = (unsigned long)(soft->timer_period / 10);
    switch (fwpt_soft_timer_check(soft, &now)) {
    case 1:
        fwpt_printf(o, "soft: timer after the run: EFI_TIMER_ARCH_PROTOCOL period %lu us, as before the stepped call\n",
                    before);
        break;
    case 2:
        fwpt_printf(o, "soft: timer after the run: EFI_TIMER_ARCH_PROTOCOL period %lu us, not the %lu us of before the "
                       "stepped call: set back to %lu us\n", (unsigned long)(now / 10), before, before);
        break;
    case -1:
        fwpt_printf(o, "soft: timer after the run: EFI_TIMER_ARCH_PROTOCOL period NOT as before the stepped call (%lu "
                       "us), and it cannot be read or set back: the firmware's timer events may not run\n", before);
        break;
    default:
        break;
    }
}

/* The verdict of verify: the decoded flow against the single-stepped one (soft: this call's; hw: a second call), into
 * s->verdict and said on the console in the words sideband.json and report.html use. */
static bool run_verify(struct fwpt_run *s)
{
    struct fwpt_sink *o = &s->o;
    bool verified = true;
    if (s->decoded)
        fwpt_soft_ring_order(s->decoded, s->ndecoded, &s->decoded_start); /* oldest first */
    s->verdict = (struct fwpt_verify){.result = s->verify ? FWPT_VERIFY_FAILED : FWPT_VERIFY_NOT_RUN,
                                      .reason = s->verify ? NULL : "not asked"};
    if (s->verify && !s->decoded) {
        s->verdict.reason = "not enough pool memory for the decoded flow";
        verified = false;
    }
    if (s->soft) {
        fwpt_soft_report(&s->soft->sim, o);
        soft_timer_report(s->soft, o);
        if (s->verify && s->decoded)
            verified = fwpt_soft_verify_scope(&s->soft->sim, s->decoded, s->ndecoded, s->insns, s->tr.rb.wrapped,
                                              s->tr.rb.stopped, o, &s->verdict) != 1; /* 2: not run (did not fit) */
    } else if (s->verify && s->decoded && s->boot) {
        s->verdict = (struct fwpt_verify){.result = FWPT_VERIFY_NOT_RUN,
                                          .reason = "not run: Intel PT traced the boot, which cannot be run a second time "
                                                    "single-stepped"};
    } else if (s->verify && s->decoded) {
        verified = verify_hw(s);
    }
    if (s->verify) {
        fwpt_puts(o, "verify: ");
        fwpt_verify_text(&s->verdict, false, o);
        fwpt_puts(o, "\n");
    }
    return verified;
}

/* 1-7: everything before TraceEn=1 (the app's target prepared; the boot trace has none). */
static EFI_STATUS run_prepare(struct fwpt_run *s, const struct fwpt_image **impl)
{
    EFI_STATUS est = run_backend(s);
    if (EFI_ERROR(est))
        return est;
    run_side_info(s);
    if (s->boot) {
        est = fwpt_symbols_load(&s->syms);
        if (EFI_ERROR(est)) {
            fwpt_puts(&s->o, "symbols: cannot enumerate loaded images: ");
            fwpt_put_efi_status(&s->o, est);
            fwpt_puts(&s->o, "\n");
        }
    } else if (EFI_ERROR((est = run_target(s, impl)))) {
        return est;
    }
    if (EFI_ERROR((est = run_output(s))) || EFI_ERROR((est = run_configure(s, *impl))))
        return est;
    return EFI_SUCCESS;
}

/* 9-11: readback, decode, verify, files (the trace stopped with *stop). */
static EFI_STATUS run_after(struct fwpt_run *s, enum fwpt_status stop)
{
    EFI_STATUS est = run_readback(s);
    if (EFI_ERROR(est))
        return est;
    struct fwpt_membuf packets = {0}, flowtxt = {0};
    run_decode(s, &packets, &flowtxt);
    bool verified = run_verify(s);
    /* 11. Files, and how to decode them elsewhere. */
    EFI_STATUS wst = fwpt_run_write_outputs(s, &packets, &flowtxt);
    fwpt_membuf_free(&packets);
    fwpt_membuf_free(&flowtxt);
    fwpt_run_ptxed_line(s);
    fwpt_run_names_line(s);
    if (EFI_ERROR(wst))
        fwpt_run_say(s, "file: some files could not be written (see above); the console has the summaries only. Free "
                        "space on the volume (run-qemu.sh: FWPT_IMG_MB=N), or trace less (size=, listing=)", NULL);
    if (s->tr.rb.error || stop != FWPT_OK)
        return EFI_DEVICE_ERROR;
    if (!verified) {
        fwpt_puts(&s->o, "verify: ");
        fwpt_verify_text(&s->verdict, false, &s->o);
        fwpt_puts(&s->o, " (see above)\n");
        return EFI_ABORTED;
    }
    s->write_status = wst;
    return EFI_SUCCESS;
}

static EFI_STATUS run(struct fwpt_run *s)
{
    const struct fwpt_image *impl = NULL;
    enum fwpt_status stop = FWPT_OK;
    EFI_STATUS est = run_prepare(s, &impl);
    if (EFI_ERROR(est) || EFI_ERROR((est = run_trace(s, &stop))))
        return est;
    return run_after(s, stop);
}

/* Every path out: the timer checked, memory freed (TraceEn is 0: a start that failed restored the MSRs, and the
 * call's step always stops the trace). */
static void run_free(struct fwpt_run *s)
{
    if (s->soft)
        soft_timer_check(s->soft, &s->o);
    if (s->soft) {
        fwpt_soft_fini(s->soft);
        FreePool(s->soft);
        s->soft = NULL;
    }
    s->gt = fwpt_pool_free(s->gt);
    fwpt_target_cleanup(&s->target);
    fwpt_symbols_free(&s->syms);
    fwpt_flow_summary_free(&s->fs);
    fwpt_outmem_free(&s->out);
    fwpt_pieces_free(&s->tr);
    s->decoded = fwpt_pool_free(s->decoded);
}

static void run_init(struct fwpt_run *s, const struct fwpt_run_env *env, const struct fwpt_sink *o)
{
    fwpt_memset(s, 0, sizeof *s);
    s->env = env;
    s->opt = env->opt;
    s->o = *o;
    fwpt_soft_set_progress(env->opt->quiet ? 0 : env->opt->progress);
    fwpt_physmem_init(&s->mem, true); /* UEFI: identity-mapped, physical == pointer */
}

EFI_STATUS fwpt_pipeline_boot_start(struct fwpt_run *s, const struct fwpt_run_env *env, const struct fwpt_sink *o)
{
    const struct fwpt_image *impl = NULL;
    run_init(s, env, o);
    s->boot = true;
    EFI_STATUS est = run_prepare(s, &impl);
    if (!EFI_ERROR(est))
        est = fwpt_step_start(s->cpu, s->caps, &s->cfg, &s->state, &s->o);
    if (EFI_ERROR(est))
        run_free(s);
    else
        s->started = true;
    return est;
}

enum fwpt_status fwpt_pipeline_boot_stop(struct fwpt_run *s)
{
    if (!s->started)
        return FWPT_OK;
    s->started = false;
    s->boot_stop = fwpt_trace_stop(s->cpu, &s->state, &s->result);
    if (s->soft)
        s->soft_unended = fwpt_soft_close(s->soft);
    return s->boot_stop;
}

EFI_STATUS fwpt_pipeline_boot_end(struct fwpt_run *s, const struct fwpt_image *extra, unsigned n_extra)
{
    fwpt_pipeline_boot_stop(s);
    fwpt_step_call_report(EFI_SUCCESS, s->boot_stop, &s->result, &s->o);
    if (s->soft_unended)
        fwpt_run_say(s, "soft: single-stepping had not ended when the trace was stopped: the end came from code that "
                        "runs with TF clear (an interrupt handler or a timer event), so the trace ends at the last "
                        "stepped instruction, before it", NULL);
    /* the images loaded now, and those that started since the trace began and are gone (their bytes copied when they
     * started) */
    fwpt_symbols_free(&s->syms);
    fwpt_symbols_load(&s->syms);
    unsigned gone = 0;
    for (unsigned i = 0; i < n_extra; i++) {
        const struct fwpt_image *m = fwpt_symbols_find(&s->syms, extra[i].base);
        if (m && m->base == extra[i].base && m->size == extra[i].size)
            continue; /* still loaded where it started */
        if (extra[i].code && !EFI_ERROR(fwpt_symbols_add_image(&s->syms, &extra[i])))
            gone++;
    }
    if (n_extra)
        fwpt_printf(&s->o, "images: %u started while the trace ran (their code copied as they started), %u of them no "
                           "longer loaded\n", n_extra, gone);
    EFI_STATUS est;
    if (!s->result.have_status || !s->result.have_output_base || !s->result.have_output_mask_ptrs) {
        fwpt_run_say(s, "trace: the output registers could not be read back; nothing to decode", NULL);
        est = EFI_DEVICE_ERROR;
    } else {
        est = run_after(s, s->boot_stop);
    }
    run_free(s);
    return est;
}

EFI_STATUS fwpt_pipeline_run(const struct fwpt_run_env *env)
{
    static struct fwpt_run s;
    struct fwpt_sink screen = fwpt_screen_sink();
    run_init(&s, env, &screen);
    fwpt_puts(&s.o, "trace: target ");
    fwpt_puts(&s.o, fwpt_target_name(env->opt->target));
    if (env->opt->target_path[0]) {
        fwpt_puts(&s.o, " ");
        fwpt_puts(&s.o, env->opt->target_path);
    }
    fwpt_puts(&s.o, "\n");
    EFI_STATUS st = run(&s);
    run_free(&s);
    return st;
}
