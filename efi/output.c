/* fwpt — the run's files and what the console says of them (see pipeline.h): trace.pt piece by piece,
 * packets.txt, flow.txt, sideband.json, flame.svg, report.html, the images the trace touches, and the
 * ptxed command line that decodes them on a host. */
#include <efi.h>
#include <efilib.h>
#include "arch/rtit.h"
#include "base/json.h"
#include "base/version.h"
#include "render/flame.h"
#include "render/report.h"
#include "efi/pipeline.h"

/* a string member; a missing string is written "" (the host reader takes both) */
static void kv_str(struct fwpt_json *j, const char *k, const char *v)
{
    fwpt_json_str(j, k, v ? v : "");
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

const char *fwpt_run_profile_name(const struct fwpt_run *s)
{
    return s->backend == FWPT_BACKEND_SOFT && s->soft && s->soft->sim.profile ? s->soft->sim.profile->name : s->opt->profile;
}

/* The array key of loaded images: only those the trace touched (IMG_TOUCHED), each with base, size and the members
 * asked for, in this order: name, base, size, file, pdb, path; with IMG_IDS also what the host matches symbol files
 * and checks img-BASE.bin by: pdb_guid and pdb_age after pdb, fv_guid after path, then code_crc32 and code_bytes
 * (docs/formats.md); each image on a line of its own when newline. */
enum { IMG_TOUCHED = 1, IMG_NAME = 2, IMG_FILE = 4, IMG_PDB = 8, IMG_PATH = 16, IMG_IDS = 32 };

/* a string member, null when empty */
static void kv_str_or_null(struct fwpt_json *j, const char *k, const char *v)
{
    if (v[0])
        fwpt_json_str(j, k, v);
    else
        fwpt_json_null(j, k);
}
static void json_images(struct fwpt_json *j, const struct fwpt_run *s, const char *key, unsigned what, bool newline)
{
    char fn[40];
    fwpt_json_nl(j, 0);
    fwpt_json_open(j, key, '[');
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if ((what & IMG_TOUCHED) && !m->touched)
            continue;
        if (newline)
            fwpt_json_nl(j, 1);
        fwpt_json_open(j, NULL, '{');
        if (what & IMG_NAME)
            kv_str(j, "name", m->name);
        fwpt_json_hex(j, "base", m->base);
        fwpt_json_hex(j, "size", m->size);
        if (what & IMG_FILE) {
            img_file_name(m, fn, sizeof fn);
            kv_str(j, "file", fn);
        }
        if (what & IMG_PDB)
            kv_str(j, "pdb", m->pdb);
        if (what & IMG_IDS) {
            kv_str_or_null(j, "pdb_guid", m->pdb_guid);
            if (m->pdb_guid[0])
                fwpt_json_dec(j, "pdb_age", m->pdb_age);
            else
                fwpt_json_null(j, "pdb_age");
        }
        if (what & IMG_PATH)
            kv_str(j, "path", m->file);
        if (what & IMG_IDS) {
            kv_str_or_null(j, "fv_guid", m->fv_guid);
            /* the code sections only: a section that is written (.data) changes while the files are written */
            uint64_t hashed;
            uint32_t crc = fwpt_image_code_crc32(fwpt_image_bytes(m), m->size, &hashed);
            if (hashed)
                fwpt_json_hex(j, "code_crc32", crc);
            else
                fwpt_json_null(j, "code_crc32");
            fwpt_json_dec(j, "code_bytes", hashed);
        }
        fwpt_json_close(j, '}');
    }
    fwpt_json_close(j, ']');
}

/* verify's verdict: result, scope, compared, total, part, reason, and the words the console and the page say */
static void json_verify(struct fwpt_json *j, const struct fwpt_verify *v)
{
    char text[256];
    struct fwpt_bufsink b;
    struct fwpt_sink t = fwpt_bufsink_init(&b, text, sizeof text - 1);
    fwpt_verify_text(v, false, &t);
    text[b.len] = 0;
    fwpt_json_open(j, "verify", '{');
    kv_str(j, "result", fwpt_verify_result_name(v->result));
    kv_str(j, "scope", v->result == FWPT_VERIFY_PASSED ? fwpt_verify_scope_name(v->scope) : "");
    fwpt_json_dec(j, "compared", v->compared);
    fwpt_json_dec(j, "total", v->total);
    kv_str(j, "part", v->part);
    kv_str(j, "reason", v->reason);
    kv_str(j, "text", text);
    fwpt_json_close(j, '}');
}

static void sideband(struct fwpt_run *s, const struct fwpt_sink *o)
{
    const struct fwpt_caps *c = s->caps;
    const struct fwpt_trace_config *g = &s->cfg;
    struct fwpt_json jw, *j = &jw;
    fwpt_json_init(j, o);
    fwpt_json_open(j, NULL, '{');
    fwpt_json_nl(j, 0);
    kv_str(j, "fwpt", FWPT_VERSION);
    kv_str(j, "backend", s->backend == FWPT_BACKEND_SOFT ? "soft" : "hw");
    /* the profile actually emulated (the default one when none was named) */
    kv_str(j, "profile", fwpt_run_profile_name(s));
    fwpt_json_nl(j, 0);
    json_verify(j, &s->verdict);
    fwpt_json_nl(j, 0);
    fwpt_json_open(j, "cpu", '{');
    kv_str(j, "vendor", c->raw.vendor);
    fwpt_json_dec(j, "family", c->family);
    fwpt_json_dec(j, "model", c->model);
    fwpt_json_dec(j, "stepping", c->stepping);
    fwpt_json_hex(j, "signature", c->raw.leaf1_eax);
    fwpt_json_close(j, '}');
    fwpt_json_nl(j, 0);
    fwpt_json_key(j, "caps");
    fwpt_caps_json(c, o);
    if (s->have_cpuid15) {
        fwpt_json_open(j, "cpuid_15h", '{');
        fwpt_json_hex(j, "eax", s->cpuid15.eax);
        fwpt_json_hex(j, "ebx", s->cpuid15.ebx);
        fwpt_json_hex(j, "ecx", s->cpuid15.ecx);
        fwpt_json_close(j, '}');
    } else {
        fwpt_json_null(j, "cpuid_15h");
    }
    fwpt_json_nl(j, 0);
    if (s->have_ratio)
        fwpt_json_dec(j, "max_nonturbo_ratio", s->ratio);
    else
        fwpt_json_null(j, "max_nonturbo_ratio");
    fwpt_json_nl(j, 0);
    fwpt_json_hex(j, "ctl", s->state.ctl);
    fwpt_json_nl(j, 0);
    fwpt_json_open(j, "settings", '{');
    fwpt_json_bool(j, "branch_en", g->branch_en);
    fwpt_json_bool(j, "os", g->os);
    fwpt_json_bool(j, "user", g->user);
    fwpt_json_bool(j, "tsc_en", g->tsc_en);
    fwpt_json_bool(j, "mtc_en", g->mtc_en);
    fwpt_json_dec(j, "mtc_freq", g->mtc_freq);
    fwpt_json_bool(j, "cyc_en", g->cyc_en);
    fwpt_json_dec(j, "cyc_thresh", g->cyc_thresh);
    fwpt_json_dec(j, "psb_freq", g->psb_freq);
    fwpt_json_bool(j, "ptw_en", g->ptw_en);
    fwpt_json_bool(j, "dis_retc", g->dis_retc);
    fwpt_json_bool(j, "topa", g->topa);
    fwpt_json_hex(j, "output_base", g->output_base);
    fwpt_json_hex(j, "output_mask_ptrs", g->output_mask_ptrs);
    kv_str(j, "scheme", fwpt_plan_scheme_name(s->plan.scheme));
    kv_str(j, "mode", fwpt_plan_mode_name(s->plan.mode));
    fwpt_json_dec(j, "total_size", s->plan.total_size);
    fwpt_json_dec(j, "region_size", s->plan.region_size);
    fwpt_json_open(j, "addr_ranges", '[');
    for (unsigned i = 0; i < g->n_ranges; i++) {
        fwpt_json_open(j, NULL, '{');
        kv_str(j, "cfg", g->range[i].cfg == RTIT_ADDR_CFG_FILTER ? "filter" : "tracestop");
        fwpt_json_hex(j, "a", g->range[i].a);
        fwpt_json_hex(j, "b", g->range[i].b);
        fwpt_json_close(j, '}');
    }
    fwpt_json_close(j, ']');
    fwpt_json_close(j, '}');
    fwpt_json_nl(j, 0);
    fwpt_json_open(j, "target", '{');
    kv_str(j, "name", fwpt_run_target_name(s));
    kv_str(j, "path", fwpt_run_target_path(s));
    kv_str(j, "impl", s->target.impl_what);
    fwpt_json_hex(j, "impl_addr", s->target.impl_addr);
    fwpt_json_hex(j, "status", s->target.status);
    fwpt_json_close(j, '}');
    fwpt_json_nl(j, 0);
    fwpt_json_open(j, "trace", '{');
    kv_str(j, "file", "trace.pt");
    fwpt_json_dec(j, "bytes", s->tr.len);
    fwpt_json_dec(j, "pieces", s->tr.nsegs);
    fwpt_json_dec(j, "decode_pool_bytes", s->pool_after);
    fwpt_json_hex(j, "status_msr", s->result.status);
    fwpt_json_bool(j, "wrapped", s->tr.rb.wrapped);
    fwpt_json_bool(j, "stopped", s->tr.rb.stopped);
    fwpt_json_bool(j, "error", s->tr.rb.error);
    kv_str(j, "reason", s->tr.rb.reason);
    fwpt_json_close(j, '}');
    /* images the trace touches, each dumped: what the host decoder loads */
    json_images(j, s, "images", IMG_TOUCHED | IMG_NAME | IMG_FILE | IMG_PDB | IMG_PATH | IMG_IDS, 1);
    /* the memory ranges dumped (the same images, as ranges) */
    json_images(j, s, "memory", IMG_TOUCHED | IMG_FILE, 0);
    /* every loaded image, dumped or not */
    json_images(j, s, "loaded_images", IMG_NAME | IMG_PATH, 1);
    fwpt_json_nl(j, 0);
    fwpt_json_close(j, '}');
    fwpt_putc(o, '\n');
}

void fwpt_run_ptxed_line(struct fwpt_run *s)
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

/* The directory all of the traced images' CodeView paths are in (up to and without the last '/' or '\\' they share)
 * into dir, "" when they share none but the root or no image has one; returns how many have one. */
static unsigned codeview_dir(const struct fwpt_run *s, char *dir, size_t cap)
{
    unsigned n = 0;
    size_t len = 0;
    const char *first = NULL;
    for (unsigned i = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched || !m->pdb[0])
            continue;
        if (!n++) {
            first = m->pdb;
            len = fwpt_strlen(first);
        }
        size_t k = 0;
        while (k < len && m->pdb[k] == first[k])
            k++;
        len = k;
    }
    while (len > 0 && first[len - 1] != '/' && first[len - 1] != '\\')
        len--;
    if (len > 0)
        len--; /* the separator */
    if (len >= cap)
        len = 0;
    fwpt_memcpy(dir, first ? first : "", len);
    dir[len] = 0;
    return n;
}

void fwpt_run_names_line(struct fwpt_run *s)
{
    const struct fwpt_sink *o = &s->o;
    char dir[160];
    unsigned n = codeview_dir(s, dir, sizeof dir);
    fwpt_printf(o, "names: build/fwpt report <the copied %s directory> --symbols %s", s->opt->out_dir,
                dir[0] ? dir : "<your build's Build/ directory, or its .debug/.so/.pdb files>");
    if (!n) {
        fwpt_puts(o, " (no traced image has a CodeView path naming its symbol file)\n");
        return;
    }
    fwpt_puts(o, " (CodeView paths: ");
    for (unsigned i = 0, k = 0; i < s->syms.count; i++) {
        const struct fwpt_image *m = &s->syms.img[i];
        if (!m->touched || !m->pdb[0])
            continue;
        const char *b = m->pdb;
        for (const char *p = m->pdb; *p; p++)
            if (*p == '/' || *p == '\\')
                b = p + 1;
        fwpt_printf(o, "%s%s: %s%s", k++ ? ", " : "", m->name, b == m->pdb ? "" : ".../", b);
    }
    fwpt_puts(o, ")\n");
}

EFI_STATUS fwpt_run_write_outputs(struct fwpt_run *s, struct fwpt_membuf *packets, struct fwpt_membuf *flowtxt)
{
    struct fwpt_volume *v = s->env->volume;
    const char *dir = s->opt->out_dir;
    EFI_STATUS worst = EFI_SUCCESS, st;
    char fn[40];
    st = fwpt_save_file_segs(v, &s->o, dir, "trace.pt", s->tr.segs, s->tr.nsegs); /* piece by piece, no copy */
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
        struct fwpt_names names = {&s->fs.mods, &sym, s->target.impl_what ? 1 : 0, NULL};
        const struct fwpt_caps *c = s->caps;
        struct fwpt_report_run run = {
            .vendor = c->raw.vendor, .family = c->family, .model = c->model, .stepping = c->stepping,
            .signature = c->raw.leaf1_eax, .backend = s->backend == FWPT_BACKEND_SOFT ? "soft" : "hw",
            .profile = fwpt_run_profile_name(s), .target = fwpt_run_target_name(s), .target_path = fwpt_run_target_path(s),
            .impl = s->target.impl_what, .impl_addr = s->target.impl_addr, .target_status = s->target.status,
            .recorded = true, .trace_bytes = s->tr.len, .trace_reason = s->tr.rb.reason, .wrapped = s->tr.rb.wrapped,
            .stopped = s->tr.rb.stopped, .error = s->tr.rb.error, .verify = s->verdict,
            /* what this decode found: `fwpt report` finds the same in the saved trace.pt */
            .decoded_bytes = s->tr.len, .decoded_insns = s->insns, .no_psb = s->no_psb, .cut = s->flow_cut,
            .decode_errors = s->flow_errors, .timeline = &s->fs.tl,
        };
        struct fwpt_membuf pic = {0};
        struct fwpt_sink ps = fwpt_membuf_sink(&pic);
        char title[160];
        struct fwpt_bufsink tb;
        struct fwpt_sink ts = fwpt_bufsink_init(&tb, title, sizeof title - 1);
        fwpt_puts(&ts, "fwpt flame graph: ");
        fwpt_puts(&ts, fwpt_run_target_name(s));
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
            fwpt_run_say(s, "file: flame.svg or report.html did not fit in pool memory: not written", NULL);
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
        fwpt_run_say(s, "file: WARNING: out of pool memory while building a file; it is incomplete", NULL);
    return worst;
}
