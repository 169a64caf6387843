/* fwpt flow's summary walk, edges and coverage bitmap (see flow_summary.h). */
#include "tools/flow_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int flow_summary_run(struct flow_summary *fs, struct fwpt_par_setup *setup, struct fwpt_profile *prof,
                     void (*show)(void *ctx, const struct fwpt_flow_event *ev), void *show_ctx)
{
    setup->edges = fs->edges;
    setup->cov_size = fs->cov_path ? fs->cov_size : 0;
    if (fwpt_parallel_run(setup, prof, &fs->out) != FWPT_OK)
        return -1;
    for (size_t i = 0; i < fs->out.nerrors; i++)
        show(show_ctx, &fs->out.errors[i]); /* errors stay visible in summaries */
    return 0;
}

static struct fwpt_edge_walk insn_walk;

int flow_summary_insn_begin(struct flow_summary *fs)
{
    memset(&fs->out, 0, sizeof fs->out);
    memset(&insn_walk, 0, sizeof insn_walk);
    if (fs->edges && fwpt_edges_init(&fs->out.edges, NULL, 0, &fwpt_parallel_resize) != FWPT_OK)
        return -1;
    if (fs->cov_path && !(fs->out.cov = calloc(1, fs->cov_size)))
        return -1;
    return 0;
}

void flow_summary_insn_add(struct flow_summary *fs, const struct fwpt_flow_event *ev)
{
    uint64_t from, to;
    if (!fwpt_edge_step(&insn_walk, ev, &from, &to))
        return;
    if (fs->edges)
        fwpt_edges_add(&fs->out.edges, from, to, 1);
    if (fs->out.cov)
        fs->out.cov[fwpt_cov_index(from, to, fs->cov_size - 1)]++;
}

/* "0x.. (Module+0x..)" or "0x.." */
static void put_ip(const struct fwpt_sink *o, struct fwpt_modules *mods, uint64_t ip)
{
    fwpt_put_0x(o, ip);
    const struct fwpt_module *m = fwpt_image_module_find(mods, ip, NULL);
    if (m)
        fwpt_printf(o, " (%s+0x%llx)", m->name, (unsigned long long)(ip - m->base));
}

int flow_summary_write(struct flow_summary *fs, const struct fwpt_sink *out, struct fwpt_modules *mods)
{
    if (fs->edges) {
        const struct fwpt_edges *e = &fs->out.edges;
        struct fwpt_edge *v = malloc((e->n + 1) * sizeof *v);
        if (!v)
            return -1;
        fwpt_edges_sorted(e, v);
        if (!fs->jsonl)
            fwpt_printf(out, "edges: %llu distinct (from -> to: times taken)\n", (unsigned long long)e->n);
        for (size_t i = 0; i < e->n; i++) {
            if (fs->jsonl) {
                fwpt_printf(out, "{\"type\":\"edge\",\"from\":\"0x%llx\",\"to\":\"0x%llx\",\"count\":%llu}\n",
                            (unsigned long long)v[i].from, (unsigned long long)v[i].to, (unsigned long long)v[i].count);
                continue;
            }
            put_ip(out, mods, v[i].from);
            fwpt_puts(out, " -> ");
            put_ip(out, mods, v[i].to);
            fwpt_printf(out, ": %llu\n", (unsigned long long)v[i].count);
        }
        if (e->dropped && fs->jsonl)
            fwpt_printf(out, "{\"type\":\"edges_dropped\",\"count\":%llu}\n", (unsigned long long)e->dropped);
        else if (e->dropped)
            fwpt_printf(out, "(%llu edge counts did not fit in memory)\n", (unsigned long long)e->dropped);
        free(v);
    }
    if (fs->cov_path) {
        FILE *f = fopen(fs->cov_path, "wb");
        if (!f || fwrite(fs->out.cov, 1, fs->cov_size, f) != fs->cov_size || fclose(f) != 0) {
            fprintf(stderr, "fwpt flow: cannot write %s: %s\n", fs->cov_path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

void flow_summary_free(struct flow_summary *fs) { fwpt_parallel_out_free(&fs->out); }
