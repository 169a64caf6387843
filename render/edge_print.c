/* fwpt — the edges' printer (see edge_print.h). */
#include "render/edge_print.h"
#include "render/names.h"

/* "0x..[ (WHERE)]" */
static void put_end(const struct fwpt_sink *o, struct fwpt_modules *mods, const struct fwpt_resolver *r, uint64_t ip)
{
    fwpt_put_0x(o, ip);
    struct fwpt_resolved rs;
    if (fwpt_resolve(r, ip, &rs) && rs.function) {
        fwpt_puts(o, " (");
        fwpt_name_put_text(o, &rs, ip);
        fwpt_putc(o, ')');
        return;
    }
    const struct fwpt_module *m = fwpt_image_module_find(mods, ip, NULL);
    if (m)
        fwpt_printf(o, " (%s+0x%llx)", m->name, (unsigned long long)(ip - m->base));
}

/* ,"KEY":"0x..", then the names r knows with the prefix KEY_ */
static void json_end(const struct fwpt_sink *o, const struct fwpt_resolver *r, const char *key, const char *prefix,
                     uint64_t ip)
{
    fwpt_printf(o, ",\"%s\":\"0x%llx\"", key, (unsigned long long)ip);
    struct fwpt_resolved rs;
    if (fwpt_resolve(r, ip, &rs))
        fwpt_name_put_json(o, &rs, ip, prefix, false);
}

void fwpt_edges_print(const struct fwpt_edge *v, size_t n, uint64_t dropped, bool jsonl, struct fwpt_modules *mods,
                      const struct fwpt_resolver *r, const struct fwpt_sink *out)
{
    if (!jsonl)
        fwpt_printf(out, "edges: %llu distinct (from -> to: times taken)\n", (unsigned long long)n);
    for (size_t i = 0; i < n; i++) {
        if (jsonl) {
            fwpt_puts(out, "{\"type\":\"edge\"");
            json_end(out, r, "from", "from_", v[i].from);
            json_end(out, r, "to", "to_", v[i].to);
            fwpt_printf(out, ",\"count\":%llu}\n", (unsigned long long)v[i].count);
            continue;
        }
        put_end(out, mods, r, v[i].from);
        fwpt_puts(out, " -> ");
        put_end(out, mods, r, v[i].to);
        fwpt_printf(out, ": %llu\n", (unsigned long long)v[i].count);
    }
    if (dropped && jsonl)
        fwpt_printf(out, "{\"type\":\"edges_dropped\",\"count\":%llu}\n", (unsigned long long)dropped);
    else if (dropped)
        fwpt_printf(out, "(%llu edge counts did not fit in memory)\n", (unsigned long long)dropped);
}
