/* fwpt — the report page (see report.h). */
#include "render/report.h"
#include "render/names.h"

static const char *or_dash(const char *s) { return s && s[0] ? s : "-"; }

/* The entry's address, then " (FILE:LINE)" when the build's symbols know its line (the source position). With
 * module: also " Module+0xOFF" when the symbols name the function, so a name two modules share (a static library
 * function linked into each) still says whose it is. */
static void put_entry_at(const struct fwpt_sink *o, const struct fwpt_names *names, uint64_t entry, bool module)
{
    fwpt_put_0x(o, entry);
    struct fwpt_resolved r;
    int known = names && fwpt_resolve(names->resolver, entry, &r);
    const struct fwpt_module *m = known && module && r.function ? fwpt_image_module_find(names->mods, entry, NULL)
                                                                 : NULL;
    if (m) {
        fwpt_putc(o, ' ');
        fwpt_put_xml(o, m->name);
        fwpt_putc(o, '+');
        fwpt_put_0x(o, entry - m->base);
    }
    if (known && r.file && r.line) {
        fwpt_puts(o, " (");
        fwpt_put_xml(o, fwpt_name_basename(r.file));
        fwpt_printf(o, ":%u)", r.line);
    }
}


unsigned fwpt_report_mismatch(const struct fwpt_report_run *r, const struct fwpt_sink *o)
{
    unsigned n = 0;
#define SAY(...)                                                                                                       \
    do {                                                                                                               \
        if (o)                                                                                                         \
            fwpt_printf(o, "%s", n ? "; " : ""), fwpt_printf(o, __VA_ARGS__);                                          \
        n++;                                                                                                           \
    } while (0)
    if (r->recorded && r->decoded_bytes != r->trace_bytes)
        SAY("the run recorded %lu trace bytes, %lu were decoded", r->trace_bytes, r->decoded_bytes);
    if (r->decoded_bytes && r->no_psb)
        SAY("no PSB");
    if (!r->decoded_insns)
        SAY("no instruction decoded");
    else if (r->verify.result == FWPT_VERIFY_PASSED && r->verify.scope != FWPT_VERIFY_UNKNOWN &&
             r->verify.total != r->decoded_insns)
        SAY("the run verified a flow of %lu instructions, %lu were decoded", r->verify.total, r->decoded_insns);
    if (r->decode_errors)
        SAY("%lu decode error%s", r->decode_errors, r->decode_errors == 1 ? "" : "s");
    if (r->cut && !(r->recorded && (r->stopped || r->error)))
        SAY("the trace ends with tracing on (cut)");
#undef SAY
    return n;
}

static void row_begin(const struct fwpt_sink *o, const char *key)
{
    fwpt_puts(o, "<tr><th>");
    fwpt_put_xml(o, key);
    fwpt_puts(o, "</th><td>");
}

static void put_run(const struct fwpt_sink *o, const struct fwpt_report_run *r, const struct fwpt_profile *p)
{
    fwpt_puts(o, "<h2>The run</h2>\n<table class=\"run\">\n");
    row_begin(o, "CPU");
    fwpt_put_xml(o, or_dash(r->vendor));
    fwpt_printf(o, ", family %u model %u stepping %u (CPUID.1:EAX ", r->family, r->model, r->stepping);
    fwpt_put_0x(o, r->signature);
    fwpt_puts(o, ")</td></tr>\n");
    row_begin(o, "Backend");
    if (r->backend && !fwpt_strcmp(r->backend, "soft")) {
        fwpt_puts(o, "soft: the software tracer (single-step), emulating profile ");
        fwpt_put_xml(o, or_dash(r->profile));
    } else {
        fwpt_put_xml(o, or_dash(r->backend));
        fwpt_puts(o, ": Intel PT");
    }
    fwpt_puts(o, "</td></tr>\n");
    /* the boot trace (the boot-trace driver) calls no target: its span instead of a service and a status */
    const bool boot = r->target && !fwpt_strcmp(r->target, "boot");
    row_begin(o, "Target");
    fwpt_put_xml(o, or_dash(r->target));
    if (r->target_path && r->target_path[0]) {
        fwpt_puts(o, boot ? ": " : " ");
        fwpt_put_xml(o, r->target_path);
    }
    if (!boot) {
        fwpt_puts(o, ": ");
        fwpt_put_xml(o, or_dash(r->impl));
        fwpt_puts(o, " at ");
        fwpt_put_0x(o, r->impl_addr);
    }
    fwpt_puts(o, "</td></tr>\n");
    if (!boot) {
        row_begin(o, "Status of the call");
        fwpt_put_0x(o, r->target_status);
        fwpt_puts(o, r->target_status ? " (an error)" : " (EFI_SUCCESS)");
        fwpt_puts(o, "</td></tr>\n");
    }
    row_begin(o, "Trace");
    fwpt_printf(o, "<span id=\"fwpt-trace-bytes\">%lu</span> bytes decoded", r->decoded_bytes);
    if (!r->recorded) {
        fwpt_puts(o, " (what the run recorded is not known: no sideband.json \"trace\")");
    } else {
        const bool other = r->decoded_bytes != r->trace_bytes;
        if (other)
            fwpt_printf(o, " <span id=\"fwpt-trace-recorded\" class=\"bad\">(the run recorded %lu bytes: this is not "
                           "the trace it wrote)</span>", r->trace_bytes);
        fwpt_puts(o, other ? "; the run's trace ended because: " : "; ended because: ");
        fwpt_put_xml(o, r->error ? "operational error (STATUS.Error)"
                        : r->stopped ? "the output stopped (ToPA STOP / TraceStop)"
                        : boot ? "tracing was switched off (TraceEn=0)" : "the call returned");
        if (r->trace_reason && r->trace_reason[0]) {
            fwpt_puts(o, "; ");
            fwpt_put_xml(o, r->trace_reason);
        }
        fwpt_puts(o, r->wrapped ? " (the buffer wrapped: the oldest part is lost)" : "");
    }
    fwpt_puts(o, "</td></tr>\n");
    row_begin(o, "Decode");
    const bool run_cut = r->recorded && (r->stopped || r->error); /* the run says the trace ends with tracing on */
    const char *dv = "the whole trace: tracing ended inside it", *dclass = "ok";
    if (!r->decoded_bytes)
        dv = "the trace is empty: nothing decoded", dclass = "bad";
    else if (r->no_psb)
        dv = "no PSB in the trace: nothing could be decoded", dclass = "bad";
    else if (!r->decoded_insns)
        dv = "no instruction decoded", dclass = "bad";
    else if (r->cut && !run_cut)
        dv = "the trace ends with tracing on: it was cut, the rest of the call is missing", dclass = "bad";
    else if (r->cut)
        dv = "the trace ends with tracing on, where the output stopped", dclass = "";
    fwpt_printf(o, "<span id=\"fwpt-decode\" class=\"%s\">", dclass);
    fwpt_put_xml(o, dv);
    fwpt_puts(o, "</span></td></tr>\n");
    row_begin(o, p->unit == FWPT_PROFILE_UNIT_TICKS ? "TSC ticks" : "Instructions");
    fwpt_printf(o, "<span id=\"fwpt-insns\">%lu</span></td></tr>\n", p->insns);
    row_begin(o, "Verify");
    const struct fwpt_verify *v = &r->verify;
    const unsigned mismatch = v->result == FWPT_VERIFY_PASSED ? fwpt_report_mismatch(r, NULL) : 0;
    fwpt_printf(o, "<span id=\"fwpt-verify\" class=\"%s\">", v->result == FWPT_VERIFY_FAILED ? "bad"
                                                           : v->result != FWPT_VERIFY_PASSED || mismatch ? ""
                                                           : v->scope == FWPT_VERIFY_WHOLE ? "ok" : "part");
    fwpt_verify_text(v, true, o);
    fwpt_puts(o, "</span>");
    if (mismatch) {
        fwpt_puts(o, " <span id=\"fwpt-verify-note\" class=\"bad\">but the trace decoded here is not what the run "
                     "verified: ");
        fwpt_report_mismatch(r, o);
        fwpt_puts(o, "</span>");
    }
    fwpt_puts(o, "</td></tr>\n");
    row_begin(o, "Decode errors"); /* no green 0 for a trace not decoded whole */
    fwpt_printf(o, "<span id=\"fwpt-errors\" class=\"%s\">%lu</span></td></tr>\n",
                r->decode_errors ? "bad" : !fwpt_strcmp(dclass, "ok") ? "ok" : "", r->decode_errors);
    fwpt_puts(o, "</table>\n");
}

static void put_modules(const struct fwpt_sink *o, const struct fwpt_profile *p)
{
    size_t nm = p->mods ? p->mods->n : 0;
    const char *u = fwpt_profile_unit(p, false);
    fwpt_printf(o, "<h2>%s per module</h2>\n<table class=\"prof\" id=\"fwpt-modules\">\n"
                   "<tr><th>%s</th><th>%%</th><th>module</th></tr>\n", p->unit ? "TSC ticks" : "Instructions", u);
    /* by instructions, descending, then by name: the same order whatever order the modules were given in */
    const char *prev_name = NULL;
    uint64_t prev = ~(uint64_t)0;
    for (;;) {
        size_t best = (size_t)-1;
        for (size_t i = 0; i <= nm; i++) {
            uint64_t v = p->mod_insns[i];
            const char *name = i < nm ? p->mods->v[i].name : "(no module)";
            if (!v)
                continue;
            if (prev_name && (v > prev || (v == prev && fwpt_strcmp(name, prev_name) <= 0)))
                continue;
            const char *bn = best == (size_t)-1 ? NULL : best < nm ? p->mods->v[best].name : "(no module)";
            if (!bn || v > p->mod_insns[best] || (v == p->mod_insns[best] && fwpt_strcmp(name, bn) < 0))
                best = i;
        }
        if (best == (size_t)-1)
            break;
        prev = p->mod_insns[best];
        prev_name = best < nm ? p->mods->v[best].name : "(no module)";
        fwpt_printf(o, "<tr><td class=\"n\">%lu</td><td class=\"n\">", prev);
        fwpt_flame_put_percent(o, prev, p->insns);
        fwpt_puts(o, "</td><td>");
        fwpt_put_xml(o, prev_name);
        fwpt_puts(o, "</td></tr>\n");
    }
    fwpt_puts(o, "</table>\n");
}

/* The images in the order they first ran (analyze/timeline): instructions (and ticks) self and with callees, the
 * calls that entered each from another image, its top functions; FWPT_REPORT_IMAGE_TOP of each, then how many more. */
static void put_images(const struct fwpt_sink *o, const struct fwpt_report_run *run, const struct fwpt_profile *p,
                       const struct fwpt_names *names)
{
    const struct fwpt_timeline *t = run->timeline;
    if (!t)
        return;
    char name[FWPT_FRAME_NAME_MAX];
    const bool ticks = run->timeline_ticks;
    fwpt_printf(o, "<h2>Images in the order they first ran</h2>\n<p>%lu images ran, %lu instructions. Self: in the "
                   "image's code; with callees: while the image was on the call stack (its code, or code it called), "
                   "once each. Entered by: calls from another image.</p>\n<table class=\"prof\" id=\"fwpt-images\">\n"
                   "<tr><th>#</th><th>image</th><th>base-end</th><th>insns self</th><th>%%</th><th>with callees</th>"
                   "<th>%%</th>%s<th>entered by</th><th>top functions (%s, self)</th></tr>\n",
                (uint64_t)fwpt_timeline_count(t), t->insns,
                ticks ? "<th>ticks self</th><th>%</th><th>with callees</th><th>%</th>" : "", fwpt_profile_unit(p, false));
    size_t order = 0, fv[FWPT_REPORT_IMAGE_TOP];
    for (size_t i = fwpt_timeline_next(t, t->nimages); i < t->nimages; i = fwpt_timeline_next(t, i)) {
        const struct fwpt_timeline_image *m = &t->img[i];
        const bool mod = i + 1 < t->nimages;
        fwpt_printf(o, "<tr data-first=\"%lu\"><td class=\"n\">%lu</td><td>", m->first, (uint64_t)++order);
        fwpt_put_xml(o, mod ? t->mods->v[i].name : "(no module)");
        fwpt_puts(o, "</td><td class=\"a\">");
        if (mod) {
            fwpt_put_0x(o, t->mods->v[i].base);
            fwpt_putc(o, '-');
            fwpt_put_0x(o, t->mods->v[i].base + (t->mods->v[i].size ? t->mods->v[i].size - 1 : 0));
        } else {
            fwpt_putc(o, '-');
        }
        const uint64_t v[4] = {m->self, m->incl, m->self_ticks, m->incl_ticks}, all[2] = {t->insns, t->ticks};
        for (unsigned k = 0; k < (ticks ? 4u : 2u); k++) {
            fwpt_printf(o, "</td><td class=\"n\">%lu</td><td class=\"n\">", v[k]);
            fwpt_flame_put_percent(o, v[k], all[k / 2]);
        }
        fwpt_puts(o, "</td><td>");
        size_t ne = 0, shown = 0;
        if (order == 1)
            fwpt_puts(o, "(the trace starts here)");
        for (size_t e = fwpt_timeline_next_entry(t, i, (size_t)-1, &ne); e != (size_t)-1 && shown < FWPT_REPORT_IMAGE_TOP;
             e = fwpt_timeline_next_entry(t, i, e, NULL), shown++) {
            const struct fwpt_timeline_entry *en = &t->entries[e];
            if (shown || order == 1)
                fwpt_puts(o, "<br>");
            fwpt_puts(o, en->interrupt ? "interrupted in " : "");
            fwpt_put_xml(o, en->caller_image + 1 < t->nimages ? t->mods->v[en->caller_image].name : "(no module)");
            fwpt_putc(o, '!');
            fwpt_flame_frame_name(names, en->caller, name);
            fwpt_put_xml(o, name);
            fwpt_puts(o, " &rarr; ");
            fwpt_flame_frame_name(names, en->target, name);
            fwpt_put_xml(o, name);
            fwpt_printf(o, " &times;%lu", en->count);
        }
        if (ne > shown)
            fwpt_printf(o, "<br>... %lu more", (uint64_t)(ne - shown));
        fwpt_puts(o, "</td><td>");
        size_t nf = 0, k = fwpt_timeline_top_funcs(t, p, i, fv, FWPT_REPORT_IMAGE_TOP, &nf);
        for (size_t j = 0; j < k; j++) {
            fwpt_flame_frame_name(names, p->funcs[fv[j]].entry, name);
            fwpt_puts(o, j ? "<br>" : "");
            fwpt_put_xml(o, name);
            fwpt_printf(o, " (%lu)", p->funcs[fv[j]].insns);
        }
        if (nf > k)
            fwpt_printf(o, "<br>... %lu more", (uint64_t)(nf - k));
        fwpt_puts(o, "</td></tr>\n");
    }
    fwpt_puts(o, "</table>\n");
    if (t->dropped)
        fwpt_printf(o, "<p class=\"bad\">%lu entry calls did not fit the table: the entered-by column is "
                       "incomplete.</p>\n", t->dropped);
}

static void put_functions(const struct fwpt_sink *o, const struct fwpt_profile *p, const struct fwpt_names *names)
{
    char name[FWPT_FRAME_NAME_MAX];
    fwpt_printf(o, "<h2>%s per function (self; top %u of %lu)</h2>\n<table class=\"prof\" id=\"fwpt-functions\">\n"
                   "<tr><th>%s</th><th>%%</th><th>calls</th><th>function</th><th>entry</th></tr>\n",
                p->unit ? "TSC ticks" : "Instructions",
                (unsigned)(p->nfuncs < FWPT_REPORT_TOP_FUNCS ? p->nfuncs : FWPT_REPORT_TOP_FUNCS), (uint64_t)p->nfuncs,
                fwpt_profile_unit(p, false));
    /* by self instructions descending, then entry ascending (as fwpt_profile_print) */
    size_t best = (size_t)-1;
    for (unsigned shown = 0; shown < FWPT_REPORT_TOP_FUNCS && (best = fwpt_profile_next_top(p, best)) != (size_t)-1;
         shown++) {
        const struct fwpt_profile_func *f = &p->funcs[best];
        fwpt_flame_frame_name(names, f->entry, name);
        fwpt_printf(o, "<tr><td class=\"n\">%lu</td><td class=\"n\">", f->insns);
        fwpt_flame_put_percent(o, f->insns, p->insns);
        fwpt_printf(o, "</td><td class=\"n\">%lu</td><td>", f->calls);
        fwpt_put_xml(o, name);
        fwpt_puts(o, "</td><td class=\"a\">");
        put_entry_at(o, names, f->entry, true);
        fwpt_puts(o, "</td></tr>\n");
    }
    fwpt_puts(o, "</table>\n");
}

static void put_tree_row(const struct fwpt_sink *o, const struct fwpt_profile *p, const struct fwpt_names *names,
                         uint32_t n)
{
    const struct fwpt_profile_node *d = &p->nodes[n];
    char name[FWPT_FRAME_NAME_MAX];
    fwpt_flame_frame_name(names, d->entry, name);
    fwpt_printf(o, "<span class=\"n\">%lu</span><span class=\"n\">%lu</span><span class=\"n\">%lu</span>"
                   "<span class=\"n\">",
                d->calls, d->insns, d->total);
    fwpt_flame_put_percent(o, d->total, p->nodes[0].total);
    fwpt_puts(o, "%</span> ");
    fwpt_put_xml(o, name);
    if (n) {
        fwpt_puts(o, " <span class=\"a\">");
        put_entry_at(o, names, d->entry, false);
        fwpt_puts(o, "</span>");
    }
}

static void put_node_attrs(const struct fwpt_sink *o, const struct fwpt_profile_node *d, uint32_t n)
{
    fwpt_printf(o, " data-calls=\"%lu\" data-self=\"%lu\" data-total=\"%lu\" data-depth=\"%u\" data-entry=\"", d->calls,
                d->insns, d->total, d->depth);
    if (n)
        fwpt_put_0x(o, d->entry);
    else
        fwpt_puts(o, "root");
    fwpt_puts(o, "\"");
}

static void put_tree(const struct fwpt_sink *o, struct fwpt_profile *p, const struct fwpt_names *names)
{
    fwpt_printf(o, "<h2>Call tree</h2>\n<p>calls, %s (self, with callees, %% of all), function. "
                   "<button type=\"button\" onclick=\"fwptTree(true)\">expand all</button> "
                   "<button type=\"button\" onclick=\"fwptTree(false)\">collapse all</button></p>\n"
                   "<div class=\"tree\" id=\"fwpt-tree\">\n", fwpt_profile_unit(p, false));
    uint32_t n = 0;
    for (;;) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        int children = d->first_child && d->depth < FWPT_FLAME_MAX_DEPTH;
        if (children) {
            fwpt_printf(o, "<details%s><summary", d->depth < 2 ? " open" : "");
            put_node_attrs(o, d, n);
            fwpt_puts(o, ">");
            put_tree_row(o, p, names, n);
            fwpt_puts(o, "</summary>\n");
            n = d->first_child;
            continue;
        }
        fwpt_puts(o, "<div class=\"leaf\"");
        put_node_attrs(o, d, n);
        fwpt_puts(o, ">");
        put_tree_row(o, p, names, n);
        fwpt_puts(o, "</div>\n");
        /* up to the next sibling, closing each <details> left */
        while (n && !p->nodes[n].next_sibling) {
            n = p->nodes[n].parent;
            fwpt_puts(o, "</details>\n");
        }
        if (!n)
            break;
        n = p->nodes[n].next_sibling;
    }
    fwpt_puts(o, "</div>\n");
}

/* With the build's symbols: the source lines of the top functions. */
static void put_lines(const struct fwpt_sink *o, const struct fwpt_report_run *run)
{
    if (run->lines)
        fwpt_annotate_html(run->lines, FWPT_ANNOTATE_TOP, o);
}

void fwpt_report_html(const struct fwpt_report_run *run, struct fwpt_profile *p, const struct fwpt_names *names,
                      const struct fwpt_sink *o)
{
    fwpt_profile_calltree_totals(p);
    fwpt_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fwpt report: ");
    fwpt_put_xml(o, or_dash(run->target));
    fwpt_puts(o, "</title>\n<style>\n"
                 "body { font-family: sans-serif; margin: 1em 2em; color: #111; }\n"
                 "table { border-collapse: collapse; margin-bottom: 1em; }\n"
                 "th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }\n"
                 "td.n { text-align: right; font-family: monospace; }\n"
                 ".a { font-family: monospace; color: #666; }\n"
                 ".ok { color: #070; font-weight: bold; }\n.bad { color: #b00; font-weight: bold; }\n"
                 ".part { color: #a60; font-weight: bold; }\n"
                 ".tree { font-family: monospace; white-space: pre; }\n"
                 ".tree details, .tree .leaf { margin-left: 1.5em; }\n"
                 ".tree .leaf { padding-left: 1em; }\n"
                 ".tree span.n { display: inline-block; width: 7em; text-align: right; margin-right: 0.5em; }\n"
                 ".flame { overflow-x: auto; }\n"
                 "</style>\n</head>\n<body>\n<h1>fwpt report: ");
    fwpt_put_xml(o, or_dash(run->target));
    fwpt_puts(o, "</h1>\n");
    put_run(o, run, p);
    put_modules(o, p);
    put_images(o, run, p, names);
    put_functions(o, p, names);
    fwpt_puts(o, "<h2>Flame graph</h2>\n<div class=\"flame\">\n");
    char title[160];
    struct fwpt_bufsink b;
    struct fwpt_sink ts = fwpt_bufsink_init(&b, title, sizeof title - 1);
    fwpt_puts(&ts, "fwpt flame graph: ");
    fwpt_puts(&ts, or_dash(run->target));
    title[b.len] = 0;
    fwpt_flame_svg(p, names, title, 0, o);
    fwpt_puts(o, "</div>\n");
    put_tree(o, p, names);
    put_lines(o, run);
    fwpt_puts(o, "<script>\nfunction fwptTree(open) {\n"
                 "  document.querySelectorAll('#fwpt-tree details').forEach(function (d) { d.open = open; });\n"
                 "}\n</script>\n</body>\n</html>\n");
}
