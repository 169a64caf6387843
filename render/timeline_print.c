/* fwpt — the boot timeline printers (see timeline_print.h). */
#include "render/timeline_print.h"
#include "base/json.h"
#include "render/names.h"

#define NAME_W_MAX 28 /* the image column: as wide as the longest name that ran, up to this */

static const char *image_name(const struct fwpt_timeline *t, size_t i)
{
    return i + 1 < t->nimages ? t->mods->v[i].name : "(no module)";
}

/* "  12.34%" (8 wide) */
static void put_pct(const struct fwpt_sink *o, uint64_t v, uint64_t total)
{
    char buf[16];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    fwpt_flame_put_percent(&s, v, total);
    buf[b.len] = 0;
    for (size_t k = b.len; k < 7; k++)
        fwpt_putc(o, ' ');
    fwpt_puts(o, buf);
    fwpt_putc(o, '%');
}

/* "0xBASE-0xEND" (END inclusive), or "-" for no module */
static void put_range(const struct fwpt_timeline *t, size_t i, const struct fwpt_sink *o)
{
    if (i + 1 >= t->nimages) {
        fwpt_putc(o, '-');
        return;
    }
    const struct fwpt_module *m = &t->mods->v[i];
    fwpt_put_0x(o, m->base);
    fwpt_putc(o, '-');
    fwpt_put_0x(o, m->base + (m->size ? m->size - 1 : 0));
}

static void put_padded_range(const struct fwpt_timeline *t, size_t i, const struct fwpt_sink *o)
{
    char buf[48];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    put_range(t, i, &s);
    buf[b.len] = 0;
    fwpt_put_padded(o, buf, 23);
}

static void put_name(const struct fwpt_sink *o, const struct fwpt_names *n, uint64_t entry)
{
    char name[FWPT_FRAME_NAME_MAX];
    fwpt_flame_frame_name(n, entry, name);
    fwpt_puts(o, name);
}

static void put_time_clause(const struct fwpt_timeline *t, bool timing, const struct fwpt_sink *o)
{
    if (timing)
        fwpt_printf(o, "; time: %lu TSC ticks spread over the instructions\n", t->ticks);
    else
        fwpt_puts(o, "; time: none in the trace (no TSC, MTC or CYC packets, or no timing configuration for them): "
                     "instructions only\n");
}

void fwpt_timeline_print(const struct fwpt_timeline *t, const struct fwpt_profile *p, const struct fwpt_names *n,
                         bool timing, size_t top, const struct fwpt_sink *o)
{
    const size_t ran = fwpt_timeline_count(t);
    unsigned w = 5; /* "image" */
    for (size_t i = fwpt_timeline_next(t, t->nimages); i < t->nimages; i = fwpt_timeline_next(t, i)) {
        size_t len = fwpt_strlen(image_name(t, i));
        if (len > w)
            w = len < NAME_W_MAX ? (unsigned)len : NAME_W_MAX;
    }
    const bool none_ran = t->img[t->nimages - 1].first != FWPT_TIMELINE_NEVER;
    fwpt_printf(o, "images in the order they first ran: %lu of %lu images%s, %lu instructions",
                (uint64_t)(ran - none_ran), (uint64_t)(t->nimages - 1), none_ran ? " (and code in no module)" : "",
                t->insns);
    put_time_clause(t, timing, o);
    fwpt_puts(o, "    #  ");
    fwpt_put_padded(o, "image", w);
    fwpt_puts(o, "  ");
    fwpt_put_padded(o, "base-end", 23);
    fwpt_puts(o, "               self       %   with callees       %\n");
    size_t order = 0, fv[64];
    const size_t cap = top < sizeof fv / sizeof fv[0] ? top : sizeof fv / sizeof fv[0];
    for (size_t i = fwpt_timeline_next(t, t->nimages); i < t->nimages; i = fwpt_timeline_next(t, i)) {
        const struct fwpt_timeline_image *m = &t->img[i];
        fwpt_put_dec_w(o, ++order, 5);
        fwpt_puts(o, "  ");
        fwpt_put_padded(o, image_name(t, i), w);
        fwpt_puts(o, "  ");
        put_padded_range(t, i, o);
        fwpt_puts(o, "  insns");
        fwpt_put_dec_w(o, m->self, 12);
        put_pct(o, m->self, t->insns);
        fwpt_put_dec_w(o, m->incl, 15);
        put_pct(o, m->incl, t->insns);
        fwpt_putc(o, '\n');
        if (timing) {
            fwpt_puts(o, "       ");
            fwpt_put_padded(o, "", w);
            fwpt_puts(o, "  ");
            fwpt_put_padded(o, "", 23);
            fwpt_puts(o, "  ticks");
            fwpt_put_dec_w(o, m->self_ticks, 12);
            put_pct(o, m->self_ticks, t->ticks);
            fwpt_put_dec_w(o, m->incl_ticks, 15);
            put_pct(o, m->incl_ticks, t->ticks);
            fwpt_putc(o, '\n');
        }
        if (order == 1)
            fwpt_puts(o, "       the trace starts here\n");
        size_t ne = 0, shown = 0;
        for (size_t e = fwpt_timeline_next_entry(t, i, (size_t)-1, &ne); e != (size_t)-1 && shown < top;
             e = fwpt_timeline_next_entry(t, i, e, NULL), shown++) {
            const struct fwpt_timeline_entry *en = &t->entries[e];
            fwpt_puts(o, en->interrupt ? "       interrupted in  " : "       entered by  ");
            fwpt_puts(o, image_name(t, en->caller_image));
            fwpt_putc(o, '!');
            put_name(o, n, en->caller);
            fwpt_puts(o, " -> ");
            put_name(o, n, en->target);
            fwpt_printf(o, "  x%lu\n", en->count);
        }
        if (ne > shown)
            fwpt_printf(o, "       entered by  ... %lu more caller/target pairs (--top)\n", (uint64_t)(ne - shown));
        size_t nf = 0, k = fwpt_timeline_top_funcs(t, p, i, fv, cap, &nf);
        for (size_t j = 0; j < k; j++) {
            fwpt_puts(o, "       top");
            fwpt_put_dec_w(o, p->funcs[fv[j]].insns, 12);
            fwpt_puts(o, "  ");
            put_name(o, n, p->funcs[fv[j]].entry);
            fwpt_putc(o, '\n');
        }
        if (nf > k)
            fwpt_printf(o, "       top  ... %lu more function%s (--top)\n", (uint64_t)(nf - k), nf - k == 1 ? "" : "s");
    }
    if (t->dropped)
        fwpt_printf(o, "(%lu entry calls did not fit the table: the \"entered by\" lines are incomplete)\n", t->dropped);
    if (p->dropped)
        fwpt_printf(o, "(%lu function/call-tree entries did not fit the profile's tables: the top functions are "
                       "incomplete)\n", p->dropped);
}

static void json_num(const struct fwpt_sink *o, const char *key, uint64_t v)
{
    fwpt_printf(o, ",\"%s\":%lu", key, v);
}

static void json_image(const struct fwpt_timeline *t, size_t i, const struct fwpt_sink *o)
{
    fwpt_puts(o, ",\"module\":");
    if (i + 1 < t->nimages)
        fwpt_put_json_str(o, t->mods->v[i].name);
    else
        fwpt_puts(o, "null");
}

/* ,"PREFIXaddress":"0x..", then the module and offset, then what the resolver knows (render/names.h) */
static void json_addr(const struct fwpt_sink *o, const struct fwpt_names *n, const char *prefix, const char *key,
                      uint64_t a)
{
    fwpt_printf(o, ",\"%s%s\":", prefix, key);
    if (a == FWPT_FLOW_NO_IP) { /* code outside any traced call */
        fwpt_puts(o, "null");
        return;
    }
    fwpt_putc(o, '"');
    fwpt_put_0x(o, a);
    fwpt_putc(o, '"');
    const struct fwpt_module *m = n && n->mods ? fwpt_image_module_find(n->mods, a, NULL) : NULL;
    if (m)
        fwpt_printf(o, ",\"%smodule_offset\":\"0x%lx\"", prefix, a - m->base);
    struct fwpt_resolved rs;
    if (n && fwpt_resolve(n->resolver, a, &rs))
        fwpt_name_put_json(o, &rs, a, prefix, false);
}

void fwpt_timeline_print_jsonl(const struct fwpt_timeline *t, const struct fwpt_profile *p,
                               const struct fwpt_names *n, bool timing, size_t top, const struct fwpt_sink *o)
{
    fwpt_puts(o, "{\"type\":\"timeline\"");
    json_num(o, "images", fwpt_timeline_count(t));
    json_num(o, "map_images", t->nimages - 1);
    json_num(o, "insns", t->insns);
    fwpt_printf(o, ",\"timing\":%s", timing ? "true" : "false");
    if (timing)
        json_num(o, "ticks", t->ticks);
    json_num(o, "entries_dropped", t->dropped);
    json_num(o, "functions_dropped", p->dropped);
    fwpt_puts(o, "}\n");
    size_t order = 0, fv[64];
    const size_t cap = top < sizeof fv / sizeof fv[0] ? top : sizeof fv / sizeof fv[0];
    for (size_t i = fwpt_timeline_next(t, t->nimages); i < t->nimages; i = fwpt_timeline_next(t, i)) {
        const struct fwpt_timeline_image *m = &t->img[i];
        size_t ne = 0, nf = 0, k = fwpt_timeline_top_funcs(t, p, i, fv, cap, &nf);
        fwpt_timeline_next_entry(t, i, (size_t)-1, &ne);
        order++;
        fwpt_puts(o, "{\"type\":\"image\"");
        json_num(o, "order", order);
        json_image(t, i, o);
        if (i + 1 < t->nimages)
            fwpt_printf(o, ",\"base\":\"0x%lx\",\"size\":\"0x%lx\"", t->mods->v[i].base, t->mods->v[i].size);
        json_num(o, "first_insn", m->first);
        json_num(o, "self", m->self);
        json_num(o, "with_callees", m->incl);
        if (timing) {
            json_num(o, "self_ticks", m->self_ticks);
            json_num(o, "with_callees_ticks", m->incl_ticks);
        }
        json_num(o, "entries", ne);
        json_num(o, "functions", nf);
        fwpt_puts(o, "}\n");
        size_t shown = 0;
        for (size_t e = fwpt_timeline_next_entry(t, i, (size_t)-1, NULL); e != (size_t)-1 && shown < top;
             e = fwpt_timeline_next_entry(t, i, e, NULL), shown++) {
            const struct fwpt_timeline_entry *en = &t->entries[e];
            fwpt_puts(o, "{\"type\":\"image_entry\"");
            json_num(o, "order", order);
            json_image(t, i, o);
            json_addr(o, n, "", "target", en->target);
            fwpt_puts(o, ",\"caller_module\":");
            if (en->caller_image + 1 < t->nimages)
                fwpt_put_json_str(o, t->mods->v[en->caller_image].name);
            else
                fwpt_puts(o, "null");
            json_addr(o, n, "caller_", "entry", en->caller);
            fwpt_printf(o, ",\"interrupt\":%s", en->interrupt ? "true" : "false");
            json_num(o, "count", en->count);
            fwpt_puts(o, "}\n");
        }
        for (size_t j = 0; j < k; j++) {
            fwpt_puts(o, "{\"type\":\"image_function\"");
            json_num(o, "order", order);
            json_image(t, i, o);
            json_addr(o, n, "", "entry", p->funcs[fv[j]].entry);
            json_num(o, "self", p->funcs[fv[j]].insns);
            json_num(o, "calls", p->funcs[fv[j]].calls);
            fwpt_puts(o, "}\n");
        }
    }
}
