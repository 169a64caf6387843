/* fwpt flow's summary walk, edges and coverage bitmap (see flow_summary.h). */
#include "tools/flow_summary.h"
#include "render/edge_print.h"

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

int flow_summary_write(struct flow_summary *fs, const struct fwpt_sink *out, struct fwpt_modules *mods,
                       const struct fwpt_resolver *r)
{
    if (fs->edges) {
        const struct fwpt_edges *e = &fs->out.edges;
        struct fwpt_edge *v = malloc((e->n + 1) * sizeof *v);
        if (!v)
            return -1;
        fwpt_edges_sorted(e, v);
        fwpt_edges_print(v, e->n, e->dropped, fs->jsonl, mods, r, out);
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
