/* fwpt — the trace session (see session.h): caps -> plan -> memory -> ToPA -> validate -> start ->
 * target -> stop -> readback -> packets (+ flow) -> console summary and files. */
#include <efi.h>
#include <efilib.h>
#include "arch/rtit.h"
#include "arch/trace.h"
#include "decode/flame.h"
#include "decode/flow.h"
#include "decode/flow_print.h"
#include "decode/packet.h"
#include "decode/pkt_print.h"
#include "decode/report.h"
#include "efi/console.h"
#include "efi/session.h"
#include "efi/symbols.h"
#include "efi/targets.h"
#include "topa/plan.h"
#include "topa/readback.h"
#include "topa/validate.h"

#include "arch/cpu_replay.h"
#include "efi/soft.h"
#include "efi/timing.h"

#define FWPT_VERSION_SIDEBAND "0.2"
/* MSR_PLATFORM_INFO[15:8]: maximum non-turbo ratio (SDM Vol. 4, model-specific MSRs). */
#define PLATFORM_INFO_MAX_NONTURBO_RATIO FWPT_FIELD(15, 8)
#define CONSOLE_PACKETS 24         /* packet lines echoed on the console (all go to packets.txt) */
#define FLOW_CACHE 65536          /* flow decoder block cache entries (2 MiB, from pool) */
#define FLOW_CACHE_STATIC 4096    /* the fallback when the pool has no 2 MiB */
#define SOFT_GT_MAX (1u << 22)     /* ground-truth IPs the software backend records (32 MiB) */

struct alloc_rec {
    EFI_PHYSICAL_ADDRESS base;
    UINTN pages;
};

/* Summary tables of the profile and call tree (pool memory; the host tool uses larger ones). */
#define PROFILE_FUNCS (1u << 12)
#define PROFILE_NODES (1u << 14)
#define PROFILE_HASH (1u << 15)
#define CONSOLE_TOP_FUNCS 10

struct flow_summary {
    struct fwpt_module *mv;
    struct fwpt_modules mods;
    struct fwpt_profile prof;
    uint64_t *mod_insns;
    struct fwpt_profile_func *funcs;
    struct fwpt_profile_node *nodes;
    uint32_t *hash;
};

struct session {
    const struct fwpt_session_env *env;
    const struct fwpt_efi_options *opt;
    struct fwpt_sink o;            /* console */
    const struct fwpt_cpu *cpu;    /* the active backend: hardware or soft */
    const struct fwpt_caps *caps;  /* its capabilities */
    struct fwpt_symbols syms;
    struct fwpt_plan plan;
    struct fwpt_physmem mem;
    struct alloc_rec *allocs;
    unsigned nallocs, cap_allocs;
    uint64_t *region_phys, *table_phys;
    struct fwpt_output_regs regs;
    struct fwpt_trace_config cfg;
    struct fwpt_trace_state state;
    struct fwpt_trace_result result;
    bool started;
    struct fwpt_target_run target;
    struct fwpt_pkt_seg *segs;     /* the trace where the processor wrote it: the readback's spans, oldest first */
    uint32_t nsegs;
    uint64_t trace_len;
    uint64_t pool_after;           /* pool bytes allocated after readback (the decode's own memory) */
    struct fwpt_readback rb;
    struct fwpt_span *spans;
    uint64_t pkt_count[FWPT_PKT_COUNT];
    uint64_t pkt_errors;
    uint64_t insns, flow_errors;
    uint64_t *decoded;             /* flow IPs for verify: the first cap_decoded, or with `ring` the newest */
    size_t ndecoded, cap_decoded, decoded_start;
    bool have_cpuid15;
    struct fwpt_cpuid_regs cpuid15;
    bool have_ratio;
    uint64_t ratio;
    struct fwpt_soft *soft;
    uint64_t *gt;
    struct flow_summary fs;        /* profile and call tree (flow.txt, flame.svg, report.html) */
    bool summary;                  /* fs is usable */
    const char *verify_text;       /* "passed", "FAILED", "skipped" or "not asked": sideband.json, report.html */
    enum fwpt_backend backend;     /* the one used: opt->backend with auto resolved */
    bool verify;                   /* verify, asked for or implied by backend=auto choosing soft */
};

static void say(struct session *s, const char *a, const char *b)
{
    fwpt_puts(&s->o, a);
    if (b)
        fwpt_puts(&s->o, b);
    fwpt_puts(&s->o, "\n");
}

/* ---- memory: AllocatePages with the plan's alignment, over-allocated and trimmed ---- */

static EFI_STATUS alloc_aligned(struct session *s, uint64_t bytes, uint64_t align, uint64_t below, uint64_t *out)
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
    SetMem((void *)(UINTN)aligned, pages * EFI_PAGE_SIZE, 0); /* readback's wrap test needs zeros */
    s->allocs[s->nallocs].base = aligned;
    s->allocs[s->nallocs].pages = pages;
    s->nallocs++;
    *out = aligned;
    return EFI_SUCCESS;
}

static void free_all(struct session *s)
{
    for (unsigned i = 0; i < s->nallocs; i++)
        uefi_call_wrapper(BS->FreePages, 2, s->allocs[i].base, s->allocs[i].pages);
    s->nallocs = 0;
    if (s->allocs)
        FreePool(s->allocs);
    if (s->region_phys)
        FreePool(s->region_phys);
    if (s->table_phys)
        FreePool(s->table_phys);
    if (s->spans)
        FreePool(s->spans);
    if (s->segs)
        FreePool(s->segs);
    if (s->decoded)
        FreePool(s->decoded);
    s->allocs = NULL;
    s->region_phys = s->table_phys = NULL;
    s->spans = NULL;
    s->segs = NULL;
    s->decoded = NULL;
}

/* ---- the trace configuration from the options ---- */

static void make_config(struct session *s, const struct fwpt_image *impl)
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

/* ---- decoding ---- */

static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    struct session *s = ctx;
    const struct fwpt_image *m = fwpt_symbols_find(&s->syms, ip);
    if (!m)
        return 0; /* only inside loaded images: never touch unmapped memory */
    *bytes = fwpt_image_bytes(m) + (ip - m->base);
    return (size_t)(m->base + m->size - ip);
}

static void touch(struct session *s, uint64_t ip)
{
    struct fwpt_image *m = fwpt_symbols_find(&s->syms, ip);
    if (m)
        m->touched = true;
}

static void decode_packets(struct session *s, struct fwpt_membuf *txt)
{
    struct fwpt_sink file = fwpt_membuf_sink(txt);
    struct fwpt_pkt_decoder d;
    struct fwpt_packet p;
    uint64_t shown = 0;
    fwpt_pkt_init_segs(&d, s->segs, s->nsegs);
    enum fwpt_status st = fwpt_pkt_sync_forward(&d);
    if (st != FWPT_OK) {
        fwpt_pkt_print_error_text(&file, 0, st);
        say(s, "packets: no PSB in the trace: ", fwpt_status_msg(st));
        s->pkt_errors++;
        return;
    }
    for (;;) {
        st = fwpt_pkt_next(&d, &p);
        if (st == FWPT_E_EOS)
            break;
        if (st != FWPT_OK) {
            s->pkt_errors++;
            fwpt_pkt_print_error_text(&file, d.offset, st);
            if (!s->opt->quiet && shown++ < CONSOLE_PACKETS)
                fwpt_pkt_print_error_text(&s->o, d.offset, st);
            if (fwpt_pkt_sync_forward(&d) != FWPT_OK)
                break;
            continue;
        }
        s->pkt_count[p.type]++;
        fwpt_pkt_print_text(&file, &p);
        if (!s->opt->quiet && shown++ < CONSOLE_PACKETS)
            fwpt_pkt_print_text(&s->o, &p);
        if ((p.type == FWPT_PKT_TIP || p.type == FWPT_PKT_TIP_PGE || p.type == FWPT_PKT_TIP_PGD ||
             p.type == FWPT_PKT_FUP) && !p.ip.suppressed)
            touch(s, p.ip.ip);
    }
    if (!s->opt->quiet && shown > CONSOLE_PACKETS) {
        fwpt_puts(&s->o, "... (");
        fwpt_put_dec(&s->o, shown - CONSOLE_PACKETS);
        fwpt_puts(&s->o, " more in packets.txt)\n");
    }
}

static void flow_summary_free(struct flow_summary *fs)
{
    void *p[] = {fs->mv, fs->mod_insns, fs->funcs, fs->nodes, fs->hash};
    for (unsigned i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i])
            FreePool(p[i]);
    fwpt_memset(fs, 0, sizeof *fs);
}

/* Pool memory after readback, counted: what decoding needs besides the trace, which it reads in place. */
static void *pool(struct session *s, UINTN n, bool zero)
{
    void *p = zero ? AllocateZeroPool(n) : AllocatePool(n);
    if (p)
        s->pool_after += n;
    return p;
}

/* Modules (for Module+offset) and the profile tables; false when the pool is too small. */
static bool flow_summary_init(struct session *s, struct flow_summary *fs)
{
    unsigned n = s->syms.count;
    fwpt_memset(fs, 0, sizeof *fs);
    fs->mv = pool(s, (n + 1) * sizeof *fs->mv, true);
    fs->mod_insns = pool(s, (n + 1) * sizeof *fs->mod_insns, true);
    fs->funcs = pool(s, PROFILE_FUNCS * sizeof *fs->funcs, false);
    fs->nodes = pool(s, PROFILE_NODES * sizeof *fs->nodes, false);
    fs->hash = pool(s, PROFILE_HASH * sizeof *fs->hash, false);
    if (!fs->mv || !fs->mod_insns || !fs->funcs || !fs->nodes || !fs->hash) {
        flow_summary_free(fs);
        return false;
    }
    for (unsigned i = 0; i < n; i++) { /* module i is image i: mod_insns[i] counts syms.img[i] */
        fs->mv[i].name = s->syms.img[i].name;
        fs->mv[i].base = s->syms.img[i].base;
        fs->mv[i].size = s->syms.img[i].size;
    }
    fs->mods.v = fs->mv;
    fs->mods.n = n;
    fwpt_profile_init(&fs->prof, &fs->mods, fs->mod_insns, fs->funcs, PROFILE_FUNCS, fs->nodes, PROFILE_NODES,
                      fs->hash, PROFILE_HASH);
    return true;
}

/* Decodes the flow in place. flow.txt gets the profile, the call tree, then every instruction and
 * event in order (the same printers as `fwpt flow --profile`, `--calls` and plain `fwpt flow`). */
/* The processor's errata (from CPUID: the hardware's, or the soft backend's profile) and the IP filter
 * ranges the trace was recorded with: what the decoder needs to read this processor's packets. */
static void flow_setup(const struct session *s, struct fwpt_flow *f)
{
    struct fwpt_cpu_id id;
    struct fwpt_errata errata;
    fwpt_caps_cpu_id(s->caps, &id);
    fwpt_errata_for_cpu(&id, &errata);
    fwpt_flow_set_errata(f, &errata);
    uint64_t ranges[FWPT_FLOW_FILTERS][2];
    uint32_t n = 0;
    for (unsigned i = 0; i < s->cfg.n_ranges && n < FWPT_FLOW_FILTERS; i++) {
        if (s->cfg.range[i].cfg == RTIT_ADDR_CFG_FILTER) {
            ranges[n][0] = s->cfg.range[i].a;
            ranges[n][1] = s->cfg.range[i].b;
            n++;
        }
    }
    fwpt_flow_set_filter(f, (const uint64_t (*)[2])ranges, n);
}

static void decode_flow(struct session *s, struct fwpt_membuf *txt)
{
    static struct fwpt_flow_block static_cache[FLOW_CACHE_STATIC];
    static struct fwpt_flow f;
    /* the cache is indexed by IP bits: a large one keeps hot code of different images apart */
    struct fwpt_flow_block *cache = pool(s, FLOW_CACHE * sizeof *cache, false);
    size_t ncache = cache ? FLOW_CACHE : FLOW_CACHE_STATIC;
    struct fwpt_flow_event ev;
    struct fwpt_membuf listing = {0};
    struct fwpt_sink lsink = fwpt_membuf_sink(&listing), tsink = fwpt_membuf_sink(txt);
    bool summary = s->summary = flow_summary_init(s, &s->fs);
    if (!summary)
        say(s, "flow: not enough pool memory for the profile and call tree; flow.txt lists instructions only", NULL);
    struct fwpt_flow_printer pr = {&lsink, FWPT_FLOW_FMT_TEXT, summary ? &s->fs.mods : NULL, NULL, NULL, 0};
    fwpt_flow_init_segs(&f, s->segs, s->nsegs, read_code, s, cache ? cache : static_cache, ncache);
    flow_setup(s, &f);
    struct fwpt_image *last = NULL;
    const uint64_t cap = s->opt->listing; /* listing=: instructions listed; the events among them too */
    bool listing_on = cap != 0;
    /* verify's copy of a ring keeps its newest part, unless the output stopped before it wrapped (then the oldest
     * part is the one to compare, as the ground truth's) */
    const bool newest = s->opt->ring && (s->rb.wrapped || !s->rb.stopped);
    while (fwpt_flow_next(&f, &ev) == FWPT_OK) {
        if (listing_on && ev.kind == FWPT_FLOW_INSN && s->insns >= cap)
            listing_on = false;
        if (listing_on)
            fwpt_flow_print_event(&pr, &ev);
        if (summary)
            fwpt_profile_add(&s->fs.prof, &ev);
        if (ev.kind == FWPT_FLOW_INSN) {
            s->insns++;
            if (!last || ev.ip < last->base || ev.ip >= last->base + last->size)
                last = fwpt_symbols_find(&s->syms, ev.ip);
            if (last) {
                last->insns++;
                last->touched = true;
            }
            /* the first cap_decoded; a ring's newest, which verify compares */
            if (s->decoded && (newest || s->ndecoded < s->cap_decoded))
                fwpt_soft_keep_newest(s->decoded, s->cap_decoded, &s->ndecoded, &s->decoded_start, ev.ip);
        } else if (ev.kind == FWPT_FLOW_ERROR) {
            if (s->flow_errors++ < 4) {
                fwpt_puts(&s->o, "flow: error at trace offset ");
                fwpt_put_0x(&s->o, ev.offset);
                fwpt_puts(&s->o, ", ip ");
                fwpt_symbols_put(&s->syms, ev.ip, &s->o);
                fwpt_puts(&s->o, ": ");
                fwpt_puts(&s->o, fwpt_status_msg((enum fwpt_status)ev.status));
                fwpt_puts(&s->o, "\n");
            }
        }
    }
    if (summary) {
        fwpt_profile_print(&s->fs.prof, &tsink, CONSOLE_TOP_FUNCS * 5);
        fwpt_puts(&tsink, "\n");
        fwpt_calltree_print(&s->fs.prof, &tsink, 64);
        fwpt_puts(&tsink, "\n");
        if (!s->opt->quiet)
            fwpt_profile_print(&s->fs.prof, &s->o, CONSOLE_TOP_FUNCS);
    }
    fwpt_printf(&tsink, "instructions and events in order (%lu instructions, %lu decode errors):\n", s->insns,
                s->flow_errors);
    uint64_t cut_ip;
    if (listing_on && fwpt_flow_cut(&f, &cut_ip))
        fwpt_flow_print_cut(&pr, cut_ip, s->trace_len); /* as the host tool ends its listing */
    if (s->insns > cap) {
        /* never a silent cut: the file and the console say where the listing stopped and where to get the rest */
        fwpt_printf(&lsink, "-- listing stopped after %lu of %lu instructions (listing=%lu): the profile and call "
                            "tree above count all of them; the host tool lists every one (build/fwpt flow DIR)\n",
                    cap, s->insns, cap);
        fwpt_printf(&s->o, "flow: flow.txt lists the first %lu of %lu instructions (listing=N or listing=all for "
                           "more; build/fwpt flow on the saved directory lists them all)\n", cap, s->insns);
    }
    fwpt_membuf_append(txt, listing.data, listing.len);
    if (listing.lost || txt->lost)
        fwpt_printf(&s->o, "flow: %lu bytes of flow.txt did not fit in pool memory: the file is incomplete\n",
                    listing.lost + txt->lost);
    fwpt_membuf_free(&listing);
    if (cache)
        FreePool(cache);
}

/* The trace has timing packets: the call's duration and where the time went (efi/timing.c), from a second pass
 * over the trace with time, configured as sideband.json records it. */
static void time_report(struct session *s)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[FLOW_CACHE_STATIC];
    fwpt_flow_init_segs(&f, s->segs, s->nsegs, read_code, s, cache, FLOW_CACHE_STATIC);
    flow_setup(s, &f);
    struct fwpt_time_config tc = {0};
    if (s->have_cpuid15) {
        tc.cpuid_15_eax = s->cpuid15.eax;
        tc.cpuid_15_ebx = s->cpuid15.ebx;
    }
    if (s->have_ratio)
        tc.nom_freq = (uint8_t)s->ratio;
    if (s->cfg.mtc_en)
        tc.mtc_freq = (uint8_t)s->cfg.mtc_freq;
    fwpt_efi_time_report(&f, &tc, s->have_cpuid15 ? s->cpuid15.ecx : 0, s->summary ? &s->fs.mods : NULL,
                         s->backend == FWPT_BACKEND_SOFT, CONSOLE_TOP_FUNCS, &s->o);
}

static void print_top_modules(struct session *s)
{
    unsigned shown[8], nshown = 0;
    fwpt_puts(&s->o, "flow: ");
    fwpt_put_dec(&s->o, s->insns);
    fwpt_puts(&s->o, " instructions, ");
    fwpt_put_dec(&s->o, s->flow_errors);
    fwpt_puts(&s->o, " decode errors; top modules:\n");
    while (nshown < 8) {
        int best = -1;
        for (unsigned i = 0; i < s->syms.count; i++) {
            bool done = false;
            for (unsigned k = 0; k < nshown; k++)
                done |= shown[k] == i;
            if (!done && s->syms.img[i].insns && (best < 0 || s->syms.img[i].insns > s->syms.img[best].insns))
                best = (int)i;
        }
        if (best < 0)
            break;
        shown[nshown++] = (unsigned)best;
        fwpt_puts(&s->o, "  ");
        fwpt_put_padded(&s->o, s->syms.img[best].name, 28);
        fwpt_put_dec(&s->o, s->syms.img[best].insns);
        fwpt_puts(&s->o, "\n");
    }
}

/* ---- outputs ---- */

static void put_kv_hex(const struct fwpt_sink *o, const char *k, uint64_t v, bool comma)
{
    fwpt_puts(o, "\"");
    fwpt_puts(o, k);
    fwpt_puts(o, "\":\"");
    fwpt_put_0x(o, v);
    fwpt_puts(o, comma ? "\"," : "\"");
}
static void put_kv_dec(const struct fwpt_sink *o, const char *k, uint64_t v, bool comma)
{
    fwpt_puts(o, "\"");
    fwpt_puts(o, k);
    fwpt_puts(o, "\":");
    fwpt_put_dec(o, v);
    if (comma)
        fwpt_puts(o, ",");
}
static void put_kv_bool(const struct fwpt_sink *o, const char *k, bool v, bool comma)
{
    fwpt_puts(o, "\"");
    fwpt_puts(o, k);
    fwpt_puts(o, v ? "\":true" : "\":false");
    if (comma)
        fwpt_puts(o, ",");
}
static void put_kv_str(const struct fwpt_sink *o, const char *k, const char *v, bool comma)
{
    fwpt_puts(o, "\"");
    fwpt_puts(o, k);
    fwpt_puts(o, "\":");
    fwpt_put_json_str(o, v ? v : "");
    if (comma)
        fwpt_puts(o, ",");
}

static void img_file_name(const struct fwpt_image *m, char *out, size_t cap)
{
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, out, cap - 1);
    fwpt_puts(&o, "img-");
    fwpt_put_hex(&o, m->base, 0);
    fwpt_puts(&o, ".bin");
    out[b.len] = 0;
}

/* the profile actually emulated (the default one when none was named) */
static const char *profile_name(const struct session *s)
{
    return s->backend == FWPT_BACKEND_SOFT && s->soft && s->soft->profile ? s->soft->profile->name : s->opt->profile;
}

static void sideband(struct session *s, const struct fwpt_sink *o)
{
    const struct fwpt_caps *c = s->caps;
    const struct fwpt_trace_config *g = &s->cfg;
    char fn[40];
    fwpt_puts(o, "{\n");
    put_kv_str(o, "fwpt", FWPT_VERSION_SIDEBAND, true);
    put_kv_str(o, "backend", s->backend == FWPT_BACKEND_SOFT ? "soft" : "hw", true);
    /* the profile actually emulated (the default one when none was named) */
    put_kv_str(o, "profile", profile_name(s), true);
    put_kv_str(o, "verify", s->verify_text, true);
    fwpt_puts(o, "\n\"cpu\":{");
    put_kv_str(o, "vendor", c->raw.vendor, true);
    put_kv_dec(o, "family", c->family, true);
    put_kv_dec(o, "model", c->model, true);
    put_kv_dec(o, "stepping", c->stepping, true);
    put_kv_hex(o, "signature", c->raw.leaf1_eax, false);
    fwpt_puts(o, "},\n\"caps\":");
    fwpt_caps_json(c, o);
    fwpt_puts(o, ",\"cpuid_15h\":");
    if (s->have_cpuid15) {
        fwpt_puts(o, "{");
        put_kv_hex(o, "eax", s->cpuid15.eax, true);
        put_kv_hex(o, "ebx", s->cpuid15.ebx, true);
        put_kv_hex(o, "ecx", s->cpuid15.ecx, false);
        fwpt_puts(o, "}");
    } else {
        fwpt_puts(o, "null");
    }
    fwpt_puts(o, ",\n\"max_nonturbo_ratio\":");
    if (s->have_ratio)
        fwpt_put_dec(o, s->ratio);
    else
        fwpt_puts(o, "null");
    fwpt_puts(o, ",\n\"ctl\":\"");
    fwpt_put_0x(o, s->state.ctl);
    fwpt_puts(o, "\",\n\"settings\":{");
    put_kv_bool(o, "branch_en", g->branch_en, true);
    put_kv_bool(o, "os", g->os, true);
    put_kv_bool(o, "user", g->user, true);
    put_kv_bool(o, "tsc_en", g->tsc_en, true);
    put_kv_bool(o, "mtc_en", g->mtc_en, true);
    put_kv_dec(o, "mtc_freq", g->mtc_freq, true);
    put_kv_bool(o, "cyc_en", g->cyc_en, true);
    put_kv_dec(o, "cyc_thresh", g->cyc_thresh, true);
    put_kv_dec(o, "psb_freq", g->psb_freq, true);
    put_kv_bool(o, "ptw_en", g->ptw_en, true);
    put_kv_bool(o, "dis_retc", g->dis_retc, true);
    put_kv_bool(o, "topa", g->topa, true);
    put_kv_hex(o, "output_base", g->output_base, true);
    put_kv_hex(o, "output_mask_ptrs", g->output_mask_ptrs, true);
    put_kv_str(o, "scheme", fwpt_plan_scheme_name(s->plan.scheme), true);
    put_kv_str(o, "mode", fwpt_plan_mode_name(s->plan.mode), true);
    put_kv_dec(o, "total_size", s->plan.total_size, true);
    put_kv_dec(o, "region_size", s->plan.region_size, true);
    fwpt_puts(o, "\"addr_ranges\":[");
    for (unsigned i = 0; i < g->n_ranges; i++) {
        fwpt_puts(o, i ? ",{" : "{");
        put_kv_str(o, "cfg", g->range[i].cfg == RTIT_ADDR_CFG_FILTER ? "filter" : "tracestop", true);
        put_kv_hex(o, "a", g->range[i].a, true);
        put_kv_hex(o, "b", g->range[i].b, false);
        fwpt_puts(o, "}");
    }
    fwpt_puts(o, "]},\n\"target\":{");
    put_kv_str(o, "name", fwpt_target_name(s->target.target), true);
    put_kv_str(o, "path", s->target.path, true);
    put_kv_str(o, "impl", s->target.impl_what, true);
    put_kv_hex(o, "impl_addr", s->target.impl_addr, true);
    put_kv_hex(o, "status", s->target.status, false);
    fwpt_puts(o, "},\n\"trace\":{");
    put_kv_str(o, "file", "trace.pt", true);
    put_kv_dec(o, "bytes", s->trace_len, true);
    put_kv_dec(o, "pieces", s->nsegs, true);
    put_kv_dec(o, "decode_pool_bytes", s->pool_after, true);
    put_kv_hex(o, "status_msr", s->result.status, true);
    put_kv_bool(o, "wrapped", s->rb.wrapped, true);
    put_kv_bool(o, "stopped", s->rb.stopped, true);
    put_kv_bool(o, "error", s->rb.error, true);
    put_kv_str(o, "reason", s->rb.reason, false);
    /* images the trace touches, each dumped: what the host decoder loads */
    fwpt_puts(o, "},\n\"images\":[");
    bool first = true;
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched)
            continue;
        img_file_name(m, fn, sizeof fn);
        fwpt_puts(o, first ? "\n {" : ",\n {");
        first = false;
        put_kv_str(o, "name", m->name, true);
        put_kv_hex(o, "base", m->base, true);
        put_kv_hex(o, "size", m->size, true);
        put_kv_str(o, "file", fn, true);
        put_kv_str(o, "pdb", m->pdb, true);
        put_kv_str(o, "path", m->file, false);
        fwpt_puts(o, "}");
    }
    /* the memory ranges dumped (the same images, as ranges) */
    fwpt_puts(o, "],\n\"memory\":[");
    first = true;
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched)
            continue;
        img_file_name(m, fn, sizeof fn);
        fwpt_puts(o, first ? "{" : ",{");
        first = false;
        put_kv_hex(o, "base", m->base, true);
        put_kv_hex(o, "size", m->size, true);
        put_kv_str(o, "file", fn, false);
        fwpt_puts(o, "}");
    }
    /* every loaded image, dumped or not */
    fwpt_puts(o, "],\n\"loaded_images\":[");
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        fwpt_puts(o, i ? ",\n {" : "\n {");
        put_kv_str(o, "name", m->name, true);
        put_kv_hex(o, "base", m->base, true);
        put_kv_hex(o, "size", m->size, true);
        put_kv_str(o, "path", m->file, false);
        fwpt_puts(o, "}");
    }
    fwpt_puts(o, "]\n}\n");
}

static void ptxed_line(struct session *s)
{
    const struct fwpt_caps *c = s->caps;
    const struct fwpt_sink *o = &s->o;
    char fn[40];
    fwpt_printf(o, "decode on a host (in the copied %s directory):\n  ptxed --cpu %u/%u/%u", s->opt->out_dir,
                c->family, c->model, c->stepping);
    if (s->have_ratio)
        fwpt_printf(o, " --nom-freq %lu", s->ratio);
    if (s->cfg.mtc_en)
        fwpt_printf(o, " --mtc-freq %u", s->cfg.mtc_freq);
    if (s->have_cpuid15 && s->cpuid15.eax && s->cpuid15.ebx)
        fwpt_printf(o, " --cpuid-0x15.eax %u --cpuid-0x15.ebx %u", s->cpuid15.eax, s->cpuid15.ebx);
    fwpt_puts(o, " --pt trace.pt");
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched)
            continue;
        img_file_name(m, fn, sizeof fn);
        fwpt_printf(o, " --raw %s:0x%lx", fn, m->base);
    }
    fwpt_puts(o, "\n");
}

static EFI_STATUS write_outputs(struct session *s, struct fwpt_membuf *packets, struct fwpt_membuf *flowtxt)
{
    struct fwpt_volume *v = s->env->volume;
    const char *dir = s->opt->out_dir;
    EFI_STATUS worst = EFI_SUCCESS, st;
    char fn[40];
    st = fwpt_save_file_segs(v, &s->o, dir, "trace.pt", s->segs, s->nsegs); /* piece by piece, no copy */
    if (EFI_ERROR(st))
        worst = st;
    st = fwpt_save_file(v, &s->o, dir, "packets.txt", packets->data, packets->len);
    if (EFI_ERROR(st))
        worst = st;
    st = fwpt_save_file(v, &s->o, dir, "flow.txt", flowtxt->data, flowtxt->len);
    if (EFI_ERROR(st))
        worst = st;
    struct fwpt_membuf sb = {0};
    struct fwpt_sink so = fwpt_membuf_sink(&sb);
    sideband(s, &so);
    st = fwpt_save_file(v, &s->o, dir, "sideband.json", sb.data, sb.len);
    if (EFI_ERROR(st)) {
        worst = st;
        fwpt_puts(&s->o, "sideband.json follows on the console:\n");
        fwpt_putn(&s->o, sb.data, sb.len);
    }
    fwpt_membuf_free(&sb);
    if (s->summary) {
        /* the pictures: the same bytes as `fwpt flow DIR --flame` and `fwpt report DIR` on the saved directory */
        struct fwpt_symbol sym = {s->target.impl_addr, s->target.impl_what};
        struct fwpt_names names = {&s->fs.mods, &sym, s->target.impl_what ? 1 : 0};
        const struct fwpt_caps *c = s->caps;
        struct fwpt_report_run run = {
            .vendor = c->raw.vendor, .family = c->family, .model = c->model, .stepping = c->stepping,
            .signature = c->raw.leaf1_eax, .backend = s->backend == FWPT_BACKEND_SOFT ? "soft" : "hw",
            .profile = profile_name(s), .target = fwpt_target_name(s->target.target), .target_path = s->target.path,
            .impl = s->target.impl_what, .impl_addr = s->target.impl_addr, .target_status = s->target.status,
            .trace_bytes = s->trace_len, .trace_reason = s->rb.reason, .wrapped = s->rb.wrapped,
            .stopped = s->rb.stopped, .error = s->rb.error, .verify = s->verify_text, .decode_errors = s->flow_errors,
        };
        struct fwpt_membuf pic = {0};
        struct fwpt_sink ps = fwpt_membuf_sink(&pic);
        char title[160];
        struct fwpt_bufsink tb;
        struct fwpt_sink ts = fwpt_bufsink_init(&tb, title, sizeof title - 1);
        fwpt_puts(&ts, "fwpt flame graph: ");
        fwpt_puts(&ts, fwpt_target_name(s->target.target));
        title[tb.len] = 0;
        fwpt_flame_svg(&s->fs.prof, &names, title, 1, &ps);
        st = pic.lost ? EFI_OUT_OF_RESOURCES : fwpt_save_file(v, &s->o, dir, "flame.svg", pic.data, pic.len);
        if (EFI_ERROR(st))
            worst = st;
        fwpt_membuf_free(&pic);
        ps = fwpt_membuf_sink(&pic);
        fwpt_report_html(&run, &s->fs.prof, &names, &ps);
        st = pic.lost ? EFI_OUT_OF_RESOURCES : fwpt_save_file(v, &s->o, dir, "report.html", pic.data, pic.len);
        if (EFI_ERROR(st))
            worst = st;
        if (pic.lost)
            say(s, "file: flame.svg or report.html did not fit in pool memory: not written", NULL);
        fwpt_membuf_free(&pic);
    }
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched)
            continue;
        img_file_name(m, fn, sizeof fn);
        st = fwpt_save_file(v, &s->o, dir, fn, fwpt_image_bytes(m), (UINTN)m->size);
        if (EFI_ERROR(st))
            worst = st;
    }
    if (packets->lost || sb.lost)
        say(s, "file: WARNING: out of pool memory while building a file; it is incomplete", NULL);
    return worst;
}

/* verify on real PT: call the target again, single-stepped (ground truth only), and compare with
 * the flow decoded from the hardware trace. Meaningful when the call is deterministic and not
 * filtered; interrupt handlers that ran during the traced call appear only in the decoded flow. */
static bool verify_hw(struct session *s)
{
    const struct fwpt_sink *o = &s->o;
    if (s->cfg.n_ranges) {
        say(s, "verify: skipped: an IP filter was set (the single-stepped flow is unfiltered)", NULL);
        return true;
    }
    s->soft = AllocateZeroPool(sizeof *s->soft);
    s->gt = AllocatePool(SOFT_GT_MAX * sizeof *s->gt);
    if (!s->soft || !s->gt || EFI_ERROR(fwpt_soft_init(s->soft, NULL, &s->mem, s->gt, SOFT_GT_MAX))) {
        say(s, "verify: the single-stepper cannot start", NULL);
        return false;
    }
    struct fwpt_target_run again = {
        .target = s->target.target, .path = s->target.path, .image = s->target.image,
        .device = s->target.device, .root = s->target.root,
    };
    if (EFI_ERROR(fwpt_target_prepare(&again))) {
        say(s, "verify: cannot prepare the target a second time", NULL);
        fwpt_target_cleanup(&again);
        return false;
    }
    /* the buffer filled: verify compares the oldest part, so the rest of the call need not be stepped (a long
     * call would also overflow the ground-truth buffer) */
    if (s->rb.stopped && !s->rb.wrapped)
        s->soft->record_limit = s->ndecoded + FWPT_SOFT_AFTER_STOP;
    /* a ring that did not stop kept the newest part: so does the single-stepped run */
    s->soft->gt_ring = s->opt->ring && !s->soft->record_limit;
    EFI_STATUS st = fwpt_soft_record(s->soft, fwpt_target_call, &again);
    fwpt_target_cleanup(&again);
    if (EFI_ERROR(st)) {
        fwpt_puts(o, "verify: single-stepping failed: ");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "\n");
        return false;
    }
    return fwpt_soft_verify(s->soft, s->decoded, s->ndecoded, s->insns, s->rb.wrapped, s->rb.stopped, o) == 0;
}

/* ---- the run ---- */

static EFI_STATUS run(struct session *s)
{
    const struct fwpt_efi_options *opt = s->opt;
    struct fwpt_sink *o = &s->o;
    EFI_STATUS est;
    enum fwpt_status st;

    /* 1. The backend and its capabilities. auto: Intel PT when usable, else the software tracer emulating the
     * built-in profile closest to this processor, with verify (the trace checks itself). */
    s->cpu = s->env->cpu;
    s->caps = s->env->caps;
    s->backend = opt->backend;
    s->verify = opt->verify;
    const char *profile = opt->profile[0] ? opt->profile : FWPT_PROFILE_DEFAULT;
    if (s->backend == FWPT_BACKEND_AUTO && s->caps->pt_supported) {
        s->backend = FWPT_BACKEND_HW;
        say(s, "trace: backend=auto: Intel PT is usable: hardware tracing", NULL);
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
        say(s, "trace: backend=auto: verify is on (the decoded flow is checked against the single-stepped one); "
               "backend=hw refuses instead", NULL);
    }
    if (s->backend == FWPT_BACKEND_SOFT) {
        s->soft = AllocateZeroPool(sizeof *s->soft);
        s->gt = AllocatePool(SOFT_GT_MAX * sizeof *s->gt);
        if (!s->soft || !s->gt)
            return EFI_OUT_OF_RESOURCES;
        est = fwpt_soft_init(s->soft, profile, &s->mem, s->gt, SOFT_GT_MAX);
        if (EFI_ERROR(est)) {
            say(s, "trace: the software backend cannot start with profile ", profile);
            return est;
        }
        s->soft->gt_ring = opt->ring; /* a ring keeps the newest part of a long call: so does the ground truth */
        if (opt->steps)
            s->soft->max_steps = opt->steps;
        s->cpu = fwpt_soft_cpu(s->soft);
        s->caps = &s->soft->caps;
        say(s, "trace: backend soft (single-step), CPU profile ", profile);
        fwpt_caps_report(s->caps, o);
    } else {
        say(s, "trace: backend hw (Intel PT)", NULL);
    }
    if (!s->caps->pt_supported) {
        fwpt_puts(o, "trace: Intel PT is not usable on this processor: ");
        fwpt_puts(o, fwpt_caps_reason_msg(s->caps->reason));
        fwpt_puts(o, "; nothing traced (the report is in ");
        fwpt_puts(o, opt->out_dir);
        fwpt_puts(o, "\\caps.txt)\n");
        if (s->backend == FWPT_BACKEND_HW)
            fwpt_puts(o, "trace: hint: backend=soft (or the default, backend=auto) traces the same call without Intel PT, "
                         "by single-stepping (e.g. `trace locate-handle backend=soft verify`)\n");
        return EFI_UNSUPPORTED;
    }

    /* 2. Side information: CPUID 15H, the max non-turbo ratio. */
    if (s->caps->raw.max_basic_leaf >= 0x15 && fwpt_cpuid(s->cpu, 0x15, 0, &s->cpuid15) == FWPT_OK)
        s->have_cpuid15 = true;
    uint64_t pi;
    if (fwpt_rdmsr(s->cpu, MSR_PLATFORM_INFO, &pi) == FWPT_OK) {
        s->have_ratio = true;
        s->ratio = FWPT_GET(PLATFORM_INFO_MAX_NONTURBO_RATIO, pi);
    }

    /* 3. The target, prepared outside the trace, and the image implementing it. */
    est = fwpt_symbols_load(&s->syms);
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
    est = fwpt_target_prepare(&s->target);
    if (EFI_ERROR(est)) {
        fwpt_puts(o, "trace: cannot prepare target ");
        fwpt_puts(o, fwpt_target_name(opt->target));
        fwpt_puts(o, ": ");
        fwpt_put_efi_status(o, est);
        fwpt_puts(o, "\n");
        return est;
    }
    const struct fwpt_image *impl = fwpt_symbols_find(&s->syms, s->target.impl_addr);
    fwpt_puts(o, "target: ");
    fwpt_puts(o, fwpt_target_name(opt->target));
    fwpt_puts(o, " -> ");
    fwpt_puts(o, s->target.impl_what);
    fwpt_puts(o, " at ");
    fwpt_symbols_put(&s->syms, s->target.impl_addr, o);
    fwpt_puts(o, "\n");
    if (opt->filter == FWPT_FILTER_TARGET && !impl) {
        say(s, "trace: filter=target: no loaded image contains the target's service", NULL);
        return EFI_NOT_FOUND;
    }

    /* 4. The output plan. */
    struct fwpt_plan_options po = {
        .total_size = opt->buffer_size,
        .region_size = opt->region_size,
        .mode = opt->ring ? FWPT_PLAN_RING : FWPT_PLAN_STOP,
    };
    struct fwpt_plan_error perr = {0};
    st = fwpt_plan_make(s->caps, &po, &s->plan, &perr);
    if (st != FWPT_OK) {
        fwpt_puts(o, "plan: refused: ");
        fwpt_puts(o, perr.option ? perr.option : "?");
        fwpt_puts(o, ": ");
        fwpt_puts(o, perr.why ? perr.why : fwpt_status_msg(st));
        fwpt_puts(o, "\n");
        return EFI_INVALID_PARAMETER;
    }
    fwpt_plan_print(&s->plan, o);

    /* 5. Memory: regions and tables, aligned, zeroed, below the APIC page. */
    uint64_t apic = 0, below = 0;
    if (fwpt_rdmsr(s->env->cpu, MSR_IA32_APIC_BASE, &apic) == FWPT_OK)
        below = apic & ~0xfffull & ((1ull << 52) - 1);
    if (below && below < (16ull << 20))
        below = 0; /* implausible: leave placement to the validator */
    s->cap_allocs = s->plan.regions.count + s->plan.tables.count;
    s->allocs = AllocateZeroPool(s->cap_allocs * sizeof *s->allocs);
    s->region_phys = AllocateZeroPool((s->plan.region_count + 1) * sizeof(uint64_t));
    s->table_phys = AllocateZeroPool((s->plan.table_count + 1) * sizeof(uint64_t));
    if (!s->allocs || !s->region_phys || !s->table_phys)
        return EFI_OUT_OF_RESOURCES;
    for (unsigned i = 0; i < s->plan.regions.count; i++) {
        est = alloc_aligned(s, s->plan.regions.bytes, s->plan.regions.align, below, &s->region_phys[i]);
        if (EFI_ERROR(est)) {
            say(s, "memory: AllocatePages failed for an output region", NULL);
            return est;
        }
    }
    for (unsigned i = 0; i < s->plan.tables.count; i++) {
        est = alloc_aligned(s, s->plan.tables.bytes, s->plan.tables.align, below, &s->table_phys[i]);
        if (EFI_ERROR(est)) {
            say(s, "memory: AllocatePages failed for a ToPA table", NULL);
            return est;
        }
    }

    /* 6. Tables and register values; validated before anything is written to an MSR. */
    st = fwpt_plan_apply(&s->plan, &s->mem, s->region_phys, s->table_phys, &s->regs);
    if (st != FWPT_OK) {
        say(s, "topa: building the tables failed: ", fwpt_status_msg(st));
        return EFI_DEVICE_ERROR;
    }
    struct fwpt_restricted restricted = {0};
    restricted.have_apic = apic != 0;
    restricted.apic_base_msr = apic;
    /* SMRR: output into SMRAM is dropped (SDM "Restricted Memory Access"). The MSRs may #GP
     * outside SMM on some parts: then the range is simply unknown. */
    uint64_t mtrrcap = 0;
    if (fwpt_rdmsr(s->env->cpu, MSR_IA32_MTRRCAP, &mtrrcap) == FWPT_OK && (mtrrcap & MTRRCAP_SMRR) &&
        fwpt_rdmsr(s->env->cpu, MSR_IA32_SMRR_PHYSBASE, &restricted.smrr_physbase) == FWPT_OK &&
        fwpt_rdmsr(s->env->cpu, MSR_IA32_SMRR_PHYSMASK, &restricted.smrr_physmask) == FWPT_OK)
        restricted.have_smrr = true;
    /* MTRRs: output regions the MTRRs make UC get a warning (SDM "Trace Output": avoid UC for the
     * output). Variable ranges, and the fixed ranges below 1 MiB where MTRRCAP reports them. */
    unsigned vcnt = (unsigned)FWPT_GET(MTRRCAP_VCNT, mtrrcap);
    if (vcnt > FWPT_MAX_VAR_MTRR)
        vcnt = FWPT_MAX_VAR_MTRR;
    if (mtrrcap && fwpt_rdmsr(s->env->cpu, MSR_IA32_MTRR_DEF_TYPE, &restricted.mtrr_def_type) == FWPT_OK) {
        restricted.have_mtrr = true;
        for (unsigned i = 0; i < vcnt && restricted.have_mtrr; i++)
            restricted.have_mtrr =
                fwpt_rdmsr(s->env->cpu, MSR_IA32_MTRR_PHYSBASE(i), &restricted.mtrr_physbase[i]) == FWPT_OK &&
                fwpt_rdmsr(s->env->cpu, MSR_IA32_MTRR_PHYSMASK(i), &restricted.mtrr_physmask[i]) == FWPT_OK;
        restricted.n_var = vcnt;
        if (mtrrcap & MTRRCAP_FIX) {
            static const uint32_t fixed[FWPT_MTRR_FIXED] = {
                MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000,
                MSR_IA32_MTRR_FIX4K(0), MSR_IA32_MTRR_FIX4K(1), MSR_IA32_MTRR_FIX4K(2), MSR_IA32_MTRR_FIX4K(3),
                MSR_IA32_MTRR_FIX4K(4), MSR_IA32_MTRR_FIX4K(5), MSR_IA32_MTRR_FIX4K(6), MSR_IA32_MTRR_FIX4K(7),
            };
            restricted.have_fixed = true;
            for (unsigned i = 0; i < FWPT_MTRR_FIXED && restricted.have_fixed; i++)
                restricted.have_fixed = fwpt_rdmsr(s->env->cpu, fixed[i], &restricted.mtrr_fixed[i]) == FWPT_OK;
        }
    }
    struct fwpt_violation viol[8];
    struct fwpt_validate_in vin = {
        .caps = s->caps, .mem = &s->mem, .ctl = s->regs.ctl_bits, .output_base = s->regs.output_base,
        .output_mask_ptrs = s->regs.output_mask_ptrs, .status = 0, .restricted = &restricted,
    };
    struct fwpt_validate_out vout = {.v = viol, .cap = 8};
    st = fwpt_validate(&vin, &vout);
    for (size_t i = 0; i < vout.count && i < 8; i++) {
        fwpt_puts(o, viol[i].warning ? "topa: warning: " : "topa: violation: ");
        fwpt_puts(o, fwpt_topa_rule_text(viol[i].rule));
        fwpt_puts(o, "\n");
    }
    /* what the restricted-memory rules could be checked against */
    fwpt_printf(o, "topa: restricted memory checked: APIC page %s, SMRR %s, MTRRs %s (%u variable%s)\n",
                restricted.have_apic ? "yes" : "unknown", restricted.have_smrr ? "yes" : "not reported",
                restricted.have_mtrr ? "yes" : "not readable", restricted.have_mtrr ? restricted.n_var : 0u,
                !restricted.have_mtrr ? "" : restricted.have_fixed ? ", fixed" : ", no fixed");
    if (st != FWPT_OK) {
        say(s, "topa: the tables break an SDM rule; tracing not started: ", fwpt_status_msg(st));
        return EFI_DEVICE_ERROR;
    }

    /* 7. The configuration, checked against the capabilities. */
    make_config(s, impl);
    struct fwpt_trace_refusal ref = {0};
    st = fwpt_trace_check(&s->cfg, s->caps, &ref);
    if (st != FWPT_OK) {
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
    fwpt_puts(o, "trace: IA32_RTIT_CTL ");
    fwpt_put_0x(o, fwpt_trace_ctl(&s->cfg, s->caps) | RTIT_CTL_TRACEEN);
    if (s->cfg.n_ranges) {
        fwpt_puts(o, ", ADDR0 filter ");
        fwpt_put_0x(o, s->cfg.range[0].a);
        fwpt_puts(o, "-");
        fwpt_put_0x(o, s->cfg.range[0].b);
    }
    fwpt_puts(o, "\n");

    /* 8. TraceEn=1 around the call, nothing else in between. */
    st = fwpt_trace_start(s->cpu, s->caps, &s->cfg, &s->state);
    if (s->state.was_active)
        say(s, "trace: firmware had left Intel PT running (TraceEn=1): stopped it first", NULL);
    if (st != FWPT_OK) {
        fwpt_puts(o, "trace: start failed: ");
        fwpt_puts(o, fwpt_status_msg(st));
        if (s->state.failed_msr) {
            fwpt_puts(o, s->state.failed_write ? " (WRMSR " : " (RDMSR ");
            fwpt_put_0x(o, s->state.failed_msr);
            fwpt_puts(o, ")");
        }
        if (st == FWPT_E_TRACE_ERROR) {
            fwpt_puts(o, ", IA32_RTIT_STATUS ");
            fwpt_put_0x(o, s->state.status_after_enable);
        }
        fwpt_puts(o, "; TraceEn is 0 and the MSRs are restored\n");
        return EFI_DEVICE_ERROR;
    }
    s->started = true;
    if (s->soft)
        est = fwpt_soft_call(s->soft, fwpt_target_call, &s->target);
    else
    {
        fwpt_target_call(&s->target);
        est = EFI_SUCCESS;
    }
    enum fwpt_status stop = fwpt_trace_stop(s->cpu, &s->state, &s->result);
    s->started = false;
    fwpt_target_report(&s->target, o);
    if (EFI_ERROR(est)) {
        fwpt_puts(o, "trace: the backend could not run the call: ");
        fwpt_put_efi_status(o, est);
        fwpt_puts(o, "\n");
    }
    if (stop != FWPT_OK) {
        fwpt_puts(o, "trace: stop: ");
        fwpt_puts(o, fwpt_status_msg(stop));
        if (s->result.failed_msr) {
            fwpt_puts(o, " at MSR ");
            fwpt_put_0x(o, s->result.failed_msr);
        }
        fwpt_puts(o, "\n");
    }
    /* Images loaded by the call (drivers stay; an application's bytes were copied before it ran). */
    fwpt_symbols_free(&s->syms);
    fwpt_symbols_load(&s->syms);
    if (s->target.copied && !fwpt_symbols_find(&s->syms, s->target.loaded_base))
        fwpt_symbols_add(&s->syms, s->target.loaded_base, s->target.loaded_size, s->target.path,
                         s->target.image_copy);
    if (!s->result.have_status || !s->result.have_output_base || !s->result.have_output_mask_ptrs) {
        say(s, "trace: the output registers could not be read back; nothing to decode", NULL);
        return EFI_DEVICE_ERROR;
    }

    /* 9. Readback: the bytes, oldest first. */
    s->spans = AllocateZeroPool((s->plan.region_count + 4) * sizeof *s->spans);
    if (!s->spans)
        return EFI_OUT_OF_RESOURCES;
    s->rb.spans = s->spans;
    s->rb.cap = s->plan.region_count + 4;
    struct fwpt_readback_in rin = {
        .mem = &s->mem, .ctl = s->state.ctl,
        .start_output_base = s->regs.output_base, .start_mask_ptrs = s->regs.output_mask_ptrs,
        .output_base = s->result.output_base, .output_mask_ptrs = s->result.output_mask_ptrs,
        .status = s->result.status, .wrap = FWPT_WRAP_DETECT,
    };
    st = fwpt_readback(&rin, &s->rb);
    if (st != FWPT_OK) {
        say(s, "readback: ", fwpt_status_msg(st));
        return EFI_DEVICE_ERROR;
    }
    /* the trace stays where the processor wrote it: the decoders and trace.pt read the spans in place */
    s->pool_after = 0;
    s->segs = pool(s, (s->rb.count + 1) * sizeof *s->segs, true);
    if (!s->segs)
        return EFI_OUT_OF_RESOURCES;
    s->trace_len = 0;
    for (size_t i = 0; i < s->rb.count; i++) {
        const void *p = fwpt_physmem_ptr(&s->mem, s->rb.spans[i].phys, s->rb.spans[i].len);
        if (!p) {
            fwpt_printf(o, "readback: the trace's span %lu (0x%lx, %lu bytes) is not mapped: nothing to decode\n",
                        (uint64_t)i, s->rb.spans[i].phys, s->rb.spans[i].len);
            return EFI_DEVICE_ERROR;
        }
        s->segs[s->nsegs++] = (struct fwpt_pkt_seg){p, (size_t)s->rb.spans[i].len};
        s->trace_len += s->rb.spans[i].len;
    }
    fwpt_printf(o, "trace: %lu bytes captured in %u of %u regions; IA32_RTIT_STATUS 0x%lx\ntrace: ended because: ",
                s->trace_len, s->rb.regions_used, s->rb.regions_total, s->result.status);
    fwpt_puts(o, s->rb.error ? "operational error (STATUS.Error)"
                 : s->rb.stopped ? "the output stopped (ToPA STOP / TraceStop)"
                 : "the call returned");
    if (s->rb.reason) {
        fwpt_puts(o, "; ");
        fwpt_puts(o, s->rb.reason);
    }
    fwpt_puts(o, "\n");

    /* 10. Decode in place: packets, then the instruction flow over live code. */
    struct fwpt_membuf packets = {0};
    decode_packets(s, &packets);
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
        s->decoded = pool(s, s->cap_decoded * sizeof *s->decoded, false);
    }
    struct fwpt_membuf flowtxt = {0};
    decode_flow(s, &flowtxt);
    print_top_modules(s);
    if (s->cfg.tsc_en || s->cfg.mtc_en || s->cfg.cyc_en)
        time_report(s);
    /* what decoding cost in memory: independent of the trace's size (the files' text aside) */
    fwpt_printf(o, "decode: in place, from %u pieces of trace (%lu bytes, not copied); pool memory for decoding: "
                   "%lu bytes\n", s->nsegs, s->trace_len, s->pool_after);
    bool verified = true;
    if (s->decoded)
        fwpt_soft_ring_order(s->decoded, s->ndecoded, &s->decoded_start); /* oldest first */
    if (s->verify && !s->decoded) {
        say(s, "verify: not enough pool memory for the decoded flow", NULL);
        verified = false;
    }
    if (s->soft) {
        fwpt_soft_report(s->soft, o);
        if (s->verify && s->decoded)
            verified = fwpt_soft_verify(s->soft, s->decoded, s->ndecoded, s->insns, s->rb.wrapped, s->rb.stopped, o) == 0;
    } else if (s->verify && s->decoded) {
        verified = verify_hw(s);
    }

    s->verify_text = !s->verify ? "not asked"
                     : !s->soft && s->cfg.n_ranges ? "skipped (an IP filter was set)"
                     : verified ? "passed" : "FAILED";
    /* 11. Files, and how to decode them elsewhere. */
    EFI_STATUS wst = write_outputs(s, &packets, &flowtxt);
    fwpt_membuf_free(&packets);
    fwpt_membuf_free(&flowtxt);
    ptxed_line(s);
    if (EFI_ERROR(wst))
        say(s, "file: some files could not be written (see above); the console has the summaries only. Free space on "
               "the volume (run-qemu.sh: FWPT_IMG_MB=N), or trace less (size=, listing=)", NULL);
    if (s->rb.error || stop != FWPT_OK)
        return EFI_DEVICE_ERROR;
    if (!verified) {
        say(s, "verify: FAILED: the decoded flow is not the single-stepped one (see above)", NULL);
        return EFI_ABORTED;
    }
    return EFI_SUCCESS;
}

EFI_STATUS fwpt_session_run(const struct fwpt_session_env *env)
{
    static struct session s;
    fwpt_memset(&s, 0, sizeof s);
    s.env = env;
    s.opt = env->opt;
    s.o = fwpt_screen_sink();
    fwpt_physmem_init(&s.mem, true); /* UEFI: identity-mapped, physical == pointer */
    fwpt_puts(&s.o, "trace: target ");
    fwpt_puts(&s.o, fwpt_target_name(env->opt->target));
    if (env->opt->target_path[0]) {
        fwpt_puts(&s.o, " ");
        fwpt_puts(&s.o, env->opt->target_path);
    }
    fwpt_puts(&s.o, "\n");
    EFI_STATUS st = run(&s);
    /* Every path out: TraceEn=0 (stop is harmless when start failed), memory freed. */
    if (s.started)
        fwpt_trace_stop(s.cpu, &s.state, &s.result);
    if (s.soft) {
        fwpt_soft_fini(s.soft);
        FreePool(s.soft);
    }
    if (s.gt)
        FreePool(s.gt);
    fwpt_target_cleanup(&s.target);
    fwpt_symbols_free(&s.syms);
    flow_summary_free(&s.fs);
    free_all(&s);
    return st;
}
