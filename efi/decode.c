/* fwpt — the run's decode loops (see pipeline.h): packets and the instruction flow, in place over the
 * readback's pieces and the live code of the loaded images. */
#include <efi.h>
#include <efilib.h>
#include "arch/rtit.h"
#include "decode/flow.h"
#include "render/flow_print.h"
#include "analyze/profile.h"
#include "render/pkt_print.h"
#include "render/profile_print.h"
#include "efi/pipeline.h"
#include "efi/pool.h"
#include "efi/progress.h"
#include "efi/timing.h"

#define CONSOLE_PACKETS 24         /* packet lines echoed on the console (all go to packets.txt) */
#define FLOW_CACHE 65536          /* flow decoder block cache entries (2 MiB, from pool) */
#define FLOW_CACHE_STATIC 4096    /* the fallback when the pool has no 2 MiB */

static void touch(struct fwpt_run *s, uint64_t ip)
{
    struct fwpt_image *m = fwpt_symbols_find(&s->syms, ip);
    if (m)
        m->touched = true;
}

void fwpt_run_decode_packets(struct fwpt_run *s, struct fwpt_membuf *txt)
{
    struct fwpt_sink file = fwpt_membuf_sink(txt);
    struct fwpt_pkt_decoder d;
    struct fwpt_packet p;
    uint64_t shown = 0, n = 0;
    struct fwpt_app_progress prog; /* a line every few seconds of a long dump */
    fwpt_app_progress_start(&prog, "packets", s->tr.len, 0, s->opt->quiet ? 0 : s->opt->progress);
    fwpt_pkt_init_segs(&d, s->tr.segs, s->tr.nsegs);
    enum fwpt_status st = fwpt_pkt_sync_forward(&d);
    if (st != FWPT_OK) {
        fwpt_pkt_print_error_text(&file, 0, st);
        fwpt_run_say(s, "packets: no PSB in the trace: ", fwpt_status_msg(st));
        s->no_psb = true;
        s->pkt_errors++;
        return;
    }
    for (;;) {
        if (!(++n & 0xfff) && fwpt_app_progress_due(&prog, fwpt_rdtsc()))
            fwpt_app_progress_line(&prog, &s->o, fwpt_rdtsc(), d.offset, 0, 0);
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

void fwpt_flow_summary_free(struct fwpt_flow_summary *fs)
{
    void *p[] = {fs->mod_insns, fs->funcs, fs->nodes, fs->hash, fs->tl_img, fs->tl_entries};
    for (unsigned i = 0; i < sizeof p / sizeof p[0]; i++)
        fwpt_pool_free(p[i]);
    fwpt_memset(fs, 0, sizeof *fs);
}

/* Pool memory after readback, counted: what decoding needs besides the trace, which it reads in place. */
static void *pool(struct fwpt_run *s, UINTN n, bool zero)
{
    return fwpt_pool_counted(&s->pool_after, n, zero);
}

/* Modules (for Module+offset) and the profile tables; false when the pool is too small. */
static bool flow_summary_init(struct fwpt_run *s, struct fwpt_flow_summary *fs)
{
    unsigned n = s->syms.count;
    fwpt_memset(fs, 0, sizeof *fs);
    fs->mod_insns = pool(s, (n + 1) * sizeof *fs->mod_insns, true);
    fs->funcs = pool(s, FWPT_RUN_PROFILE_FUNCS * sizeof *fs->funcs, false);
    fs->nodes = pool(s, FWPT_RUN_PROFILE_NODES * sizeof *fs->nodes, false);
    fs->hash = pool(s, FWPT_RUN_PROFILE_HASH * sizeof *fs->hash, false);
    fs->tl_img = pool(s, (n + 1) * sizeof *fs->tl_img, false);
    fs->tl_entries = pool(s, FWPT_TIMELINE_ENTRIES * sizeof *fs->tl_entries, false);
    if (!fs->mod_insns || !fs->funcs || !fs->nodes || !fs->hash || !fs->tl_img || !fs->tl_entries) {
        fwpt_flow_summary_free(fs);
        return false;
    }
    fs->mods = s->syms.map; /* module i is image i: mod_insns[i] counts syms.img[i] */
    fwpt_profile_init(&fs->prof, &fs->mods, fs->mod_insns, fs->funcs, FWPT_RUN_PROFILE_FUNCS, fs->nodes, FWPT_RUN_PROFILE_NODES,
                      fs->hash, FWPT_RUN_PROFILE_HASH);
    fwpt_timeline_init(&fs->tl, &fs->mods, fs->tl_img, fs->tl_entries, FWPT_TIMELINE_ENTRIES);
    return true;
}

/* Decodes the flow in place. flow.txt gets the profile, the call tree, then every instruction and
 * event in order (the same printers as `fwpt flow --profile`, `--calls` and plain `fwpt flow`). */
/* The processor's errata (from CPUID: the hardware's, or the soft backend's profile) and the IP filter
 * ranges the trace was recorded with: what the decoder needs to read this processor's packets. */
static void flow_setup(const struct fwpt_run *s, struct fwpt_flow *f)
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

void fwpt_run_decode_flow(struct fwpt_run *s, struct fwpt_membuf *txt)
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
        fwpt_run_say(s, "flow: not enough pool memory for the profile and call tree; flow.txt lists instructions only", NULL);
    struct fwpt_flow_printer pr = {&lsink, FWPT_FLOW_FMT_TEXT, summary ? &s->fs.mods : NULL, NULL, NULL, 0, NULL};
    /* code only inside loaded images: never unmapped memory */
    enum fwpt_status ist = fwpt_flow_init_segs(&f, s->tr.segs, s->tr.nsegs, fwpt_image_modules_read, &s->syms.map,
                                               cache ? cache : static_cache, ncache);
    if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) { /* no PSB: the packets said so (s->no_psb); the flow is empty */
        fwpt_run_say(s, "flow: the flow decoder refused its set-up: ", fwpt_status_msg(ist));
        return;
    }
    flow_setup(s, &f);
    struct fwpt_image *last = NULL;
    const uint64_t cap = s->opt->listing; /* listing=: instructions listed; the events among them too */
    bool listing_on = cap != 0;
    /* verify's copy of a ring keeps its newest part, unless the output stopped before it wrapped (then the oldest
     * part is the one to compare, as the ground truth's) */
    const bool newest = s->opt->ring && (s->tr.rb.wrapped || !s->tr.rb.stopped);
    struct fwpt_app_progress prog; /* a line every few seconds of a long decode */
    fwpt_app_progress_start(&prog, "flow", s->tr.len, 0, s->opt->quiet ? 0 : s->opt->progress);
    uint64_t work = 0;
    enum fwpt_status fst;
    while ((fst = fwpt_flow_next(&f, &ev)) == FWPT_OK) {
        if (!(++work & 0xffff) && fwpt_app_progress_due(&prog, fwpt_rdtsc()))
            fwpt_app_progress_line(&prog, &s->o, fwpt_rdtsc(), f.pkt.offset, s->insns, 0);
        if (listing_on && ev.kind == FWPT_FLOW_INSN && s->insns >= cap)
            listing_on = false;
        if (listing_on)
            fwpt_flow_print_event(&pr, &ev);
        if (summary) {
            fwpt_profile_add(&s->fs.prof, &ev);
            fwpt_timeline_add(&s->fs.tl, &ev, 0); /* no ticks: the page shows instructions, as `fwpt report` */
        }
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
    if (fst != FWPT_E_EOS) { /* a decoder bug (FWPT_E_INTERNAL), never silent */
        fwpt_printf(&s->o, "flow: the decoder stopped before the end of the trace: %s\n", fwpt_status_msg(fst));
        s->flow_errors++;
    }
    if (summary) {
        fwpt_timeline_end(&s->fs.tl);
        fwpt_profile_print(&s->fs.prof, NULL, &tsink, FWPT_RUN_CONSOLE_TOP_FUNCS * 5);
        fwpt_puts(&tsink, "\n");
        fwpt_profile_calltree_print(&s->fs.prof, NULL, &tsink, 64);
        fwpt_puts(&tsink, "\n");
        if (!s->opt->quiet)
            fwpt_profile_print(&s->fs.prof, NULL, &s->o, FWPT_RUN_CONSOLE_TOP_FUNCS);
    }
    fwpt_printf(&tsink, "instructions and events in order (%lu instructions, %lu decode errors):\n", s->insns,
                s->flow_errors);
    uint64_t cut_ip;
    s->flow_cut = fwpt_flow_cut(&f, &cut_ip);
    if (listing_on && s->flow_cut)
        fwpt_flow_print_cut(&pr, cut_ip, s->tr.len); /* as the host tool ends its listing */
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
    fwpt_pool_free(cache);
}

void fwpt_run_top_modules(struct fwpt_run *s)
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

void fwpt_run_time_report(struct fwpt_run *s)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[FLOW_CACHE_STATIC];
    enum fwpt_status ist = fwpt_flow_init_segs(&f, s->tr.segs, s->tr.nsegs, fwpt_image_modules_read, &s->syms.map,
                                               cache, FLOW_CACHE_STATIC);
    if (ist != FWPT_OK && ist != FWPT_E_NOSYNC) {
        fwpt_run_say(s, "time: the flow decoder refused its set-up: ", fwpt_status_msg(ist));
        return;
    }
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
                         s->backend == FWPT_BACKEND_SOFT, FWPT_RUN_CONSOLE_TOP_FUNCS, &s->o, &s->pool_after);
}
