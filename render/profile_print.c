/* fwpt — the profile and call-tree printers (see profile_print.h). */
#include "render/profile_print.h"
#include "base/json.h"
#include "render/names.h"

/* The top functions in fwpt_profile_next_top's order (instructions descending, then entry ascending): up to
 * TOP_KEEP found in one scan of the table, more by its scans, one per function (the table holds 64K slots). */
#define TOP_KEEP 64
struct top_iter {
    size_t v[TOP_KEEP], n, i, prev;
    bool scan;
};

static bool top_before(const struct fwpt_profile_func *a, const struct fwpt_profile_func *b)
{
    return a->insns > b->insns || (a->insns == b->insns && a->entry < b->entry);
}

static void top_begin(struct top_iter *t, const struct fwpt_profile *p, size_t top_n)
{
    t->n = t->i = 0;
    t->prev = (size_t)-1;
    t->scan = top_n > TOP_KEEP;
    for (size_t i = 0; !t->scan && i <= p->funcs_mask; i++) {
        const struct fwpt_profile_func *f = &p->funcs[i];
        if (f->entry == FWPT_FLOW_NO_IP || (t->n == top_n && !top_before(f, &p->funcs[t->v[t->n - 1]])))
            continue;
        size_t k = t->n < top_n ? t->n++ : t->n - 1;
        for (; k && top_before(f, &p->funcs[t->v[k - 1]]); k--)
            t->v[k] = t->v[k - 1];
        t->v[k] = i;
    }
}

static size_t top_next(struct top_iter *t, const struct fwpt_profile *p)
{
    if (t->scan)
        return t->prev = fwpt_profile_next_top(p, t->prev);
    return t->i < t->n ? t->v[t->i++] : (size_t)-1;
}

/* "0xENTRY[  Module+0xOFF][  NAME[ (FILE:LINE)]]": the entry's name asked of r once, here */
static void put_entry(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *o,
                      uint64_t entry)
{
    fwpt_put_0x(o, entry);
    if (fwpt_image_module_find(p->mods, entry, NULL)) {
        fwpt_puts(o, "  ");
        fwpt_image_module_put_where(p->mods, o, entry, 0);
    }
    struct fwpt_resolved rs;
    if (fwpt_resolve(r, entry, &rs) && rs.function) {
        fwpt_puts(o, "  ");
        fwpt_name_put_text(o, &rs, entry);
    }
}

void fwpt_profile_print(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                        size_t top_n)
{
    size_t nm = p->mods ? p->mods->n : 0;
    fwpt_puts(out, fwpt_profile_unit(p, false));
    fwpt_puts(out, " per module (");
    fwpt_put_dec(out, p->insns);
    fwpt_puts(out, " in all)\n");
    for (size_t i = 0; i <= nm; i++) {
        if (!p->mod_insns[i])
            continue;
        fwpt_put_dec_w(out, p->mod_insns[i], 14);
        fwpt_puts(out, "  ");
        fwpt_puts(out, i < nm ? p->mods->v[i].name : "(no module)");
        fwpt_putc(out, '\n');
    }
    fwpt_puts(out, fwpt_profile_unit(p, false));
    fwpt_puts(out, " per function entry (self; top ");
    fwpt_put_dec(out, top_n < p->nfuncs ? top_n : p->nfuncs);
    fwpt_puts(out, " of ");
    fwpt_put_dec(out, p->nfuncs);
    fwpt_puts(out, p->unit == FWPT_PROFILE_UNIT_TICKS ? ")\n           ticks      calls  entry\n"
                                                       : ")\n           insns      calls  entry\n");
    struct top_iter top;
    top_begin(&top, p, top_n);
    size_t shown = 0, best;
    while (shown < top_n && (best = top_next(&top, p)) != (size_t)-1) {
        fwpt_put_dec_w(out, p->funcs[best].insns, 16);
        fwpt_put_dec_w(out, p->funcs[best].calls, 11);
        fwpt_puts(out, "  ");
        put_entry(p, r, out, p->funcs[best].entry);
        fwpt_putc(out, '\n');
        shown++;
    }
    if (p->dropped) {
        fwpt_puts(out, "(");
        fwpt_put_dec(out, p->dropped);
        fwpt_puts(out, " function/call-tree entries did not fit the tables)\n");
    }
}

void fwpt_profile_calltree_print(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                                 uint32_t max_depth)
{
    fwpt_profile_calltree_totals(p);
    fwpt_puts(out, "call tree: calls, ");
    fwpt_puts(out, fwpt_profile_unit(p, false));
    fwpt_puts(out, " (self / with callees), entry\n");
    fwpt_puts(out, "      calls        self       total  function\n");
    fwpt_put_dec_w(out, 0, 11);
    fwpt_put_dec_w(out, p->nodes[0].insns, 12);
    fwpt_put_dec_w(out, p->nodes[0].total, 12);
    fwpt_puts(out, "  (root)\n");
    /* depth first, no deeper than max_depth */
    uint32_t n = p->nodes[0].first_child;
    while (n) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        if (d->depth <= max_depth) {
            fwpt_put_dec_w(out, d->calls, 11);
            fwpt_put_dec_w(out, d->insns, 12);
            fwpt_put_dec_w(out, d->total, 12);
            fwpt_puts(out, "  ");
            for (uint32_t k = 1; k < d->depth; k++)
                fwpt_puts(out, "  ");
            put_entry(p, r, out, d->entry);
            fwpt_putc(out, '\n');
        }
        n = fwpt_profile_next_node(p, n, d->depth >= max_depth);
    }
}

/* ,"entry":"0x..","module":"..","module_offset":"0x.." (the last two when a module holds entry), then the names
 * r knows (render/names.h) */
static void json_entry(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *o,
                       uint64_t entry)
{
    fwpt_puts(o, ",\"entry\":\"");
    fwpt_put_0x(o, entry);
    fwpt_putc(o, '"');
    const struct fwpt_module *m = p->mods ? fwpt_image_module_find(p->mods, entry, NULL) : NULL;
    if (m) {
        fwpt_puts(o, ",\"module\":");
        fwpt_put_json_str(o, m->name);
        fwpt_puts(o, ",\"module_offset\":\"");
        fwpt_put_0x(o, entry - m->base);
        fwpt_putc(o, '"');
    }
    struct fwpt_resolved rs;
    if (fwpt_resolve(r, entry, &rs))
        fwpt_name_put_json(o, &rs, entry, "", false);
}

static void json_num(const struct fwpt_sink *o, const char *key, uint64_t v)
{
    fwpt_puts(o, ",\"");
    fwpt_puts(o, key);
    fwpt_puts(o, "\":");
    fwpt_put_dec(o, v);
}

void fwpt_profile_print_jsonl(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                              size_t top_n)
{
    size_t nm = p->mods ? p->mods->n : 0;
    fwpt_puts(out, "{\"type\":\"profile\",\"unit\":\"");
    fwpt_puts(out, fwpt_profile_unit(p, true));
    fwpt_putc(out, '"');
    json_num(out, "total", p->insns);
    json_num(out, "functions", p->nfuncs);
    json_num(out, "shown", top_n < p->nfuncs ? top_n : p->nfuncs);
    json_num(out, "dropped", p->dropped);
    fwpt_puts(out, "}\n");
    for (size_t i = 0; i <= nm; i++) {
        if (!p->mod_insns[i])
            continue;
        fwpt_puts(out, "{\"type\":\"module_total\",\"module\":");
        if (i < nm)
            fwpt_put_json_str(out, p->mods->v[i].name);
        else
            fwpt_puts(out, "null");
        json_num(out, "count", p->mod_insns[i]);
        fwpt_puts(out, "}\n");
    }
    struct top_iter top;
    top_begin(&top, p, top_n);
    size_t shown = 0, best;
    while (shown < top_n && (best = top_next(&top, p)) != (size_t)-1) {
        fwpt_puts(out, "{\"type\":\"function\"");
        json_entry(p, r, out, p->funcs[best].entry);
        json_num(out, "self", p->funcs[best].insns);
        json_num(out, "calls", p->funcs[best].calls);
        fwpt_puts(out, "}\n");
        shown++;
    }
}

void fwpt_profile_calltree_print_jsonl(struct fwpt_profile *p, const struct fwpt_resolver *r,
                                       const struct fwpt_sink *out, uint32_t max_depth)
{
    fwpt_profile_calltree_totals(p);
    fwpt_puts(out, "{\"type\":\"call_tree\",\"unit\":\"");
    fwpt_puts(out, fwpt_profile_unit(p, true));
    fwpt_putc(out, '"');
    json_num(out, "nodes", p->nnodes);
    json_num(out, "max_depth", max_depth);
    fwpt_puts(out, "}\n{\"type\":\"call\",\"id\":0,\"parent\":null,\"depth\":0,\"calls\":0");
    json_num(out, "self", p->nodes[0].insns);
    json_num(out, "total", p->nodes[0].total);
    fwpt_puts(out, "}\n");
    uint32_t n = p->nodes[0].first_child;
    while (n) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        if (d->depth <= max_depth) {
            fwpt_puts(out, "{\"type\":\"call\"");
            json_num(out, "id", n);
            json_num(out, "parent", d->parent);
            json_num(out, "depth", d->depth);
            json_entry(p, r, out, d->entry);
            json_num(out, "calls", d->calls);
            json_num(out, "self", d->insns);
            json_num(out, "total", d->total);
            fwpt_puts(out, "}\n");
        }
        n = fwpt_profile_next_node(p, n, d->depth >= max_depth);
    }
}

