/* fwpt flow's line-by-line counts (see flow_annotate.h). */
#include "tools/flow_annotate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *heap_resize(void *ctx, void *old, size_t size)
{
    (void)ctx;
    if (!size) {
        free(old);
        return NULL;
    }
    return realloc(old, size);
}
static const struct fwpt_resize heap = {heap_resize, NULL};

int flow_annotate_root(struct flow_annotate *fa, const char *v)
{
    if (!fa->src && !(fa->src = fwpt_sources_new())) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    if (fwpt_sources_add_root(fa->src, v) != 0) {
        fprintf(stderr, "fwpt flow: --source-root: expected OLD=NEW (the build's source path, where it is now), "
                        "got '%s'\n", v);
        return 2;
    }
    return 0;
}

int flow_annotate_begin(struct flow_annotate *fa, const struct fwpt_resolver *resolver, bool report)
{
    const bool have = resolver && resolver->resolve;
    if (fa->func && !have) {
        /* --annotate without --symbols is refused while the options are read: here --symbols matched nothing */
        fprintf(stderr, "fwpt flow: --annotate %s: no --symbols file matched a traced image (the messages above say "
                        "why), so no function has a name\n", fa->func);
        return 2;
    }
    if (!fa->func && !(report && have))
        return 0;
    size_t cap = 1 << 16;
    fa->counts = malloc(sizeof *fa->counts);
    struct fwpt_addr_count *v = fa->counts ? heap_resize(NULL, NULL, cap * sizeof *v) : NULL;
    if (!v) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    fwpt_addr_counts_init(fa->counts, v, cap, &heap);
    return 0;
}

int flow_annotate_end(struct flow_annotate *fa, const struct fwpt_resolver *resolver, struct fwpt_modules *mods,
                      bool ticks)
{
    if (!fa->counts)
        return 0;
    size_t n = fwpt_addr_counts_sorted(fa->counts);
    if (!fa->src && !(fa->src = fwpt_sources_new()))
        return -1;
    fa->provider = fwpt_sources_provider(fa->src);
    fa->ann = (struct fwpt_annotation){fa->counts->v, n, fa->counts->total, fa->counts->dropped, ticks, resolver,
                                       mods, &fa->provider, malloc((n + 1) * sizeof *fa->ann.fns),
                                       malloc((n + 1) * sizeof *fa->ann.rows), 0};
    if (!fa->ann.fns || !fa->ann.rows)
        return -1;
    fwpt_annotate_group(&fa->ann);
    return 0;
}

int flow_annotate_print(struct flow_annotate *fa, const struct fwpt_sink *out, bool jsonl)
{
    if (!fa->func || !fa->counts)
        return 0;
    size_t *sel = malloc((fa->ann.nfns + 1) * sizeof *sel);
    if (!sel) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        return 1;
    }
    char why[2048];
    struct fwpt_bufsink b;
    const struct fwpt_sink err = fwpt_bufsink_init(&b, why, sizeof why - 1);
    size_t k = fwpt_annotate_select(&fa->ann, fa->func, sel, &err);
    if (!k) {
        why[b.len] = 0;
        fflush(stdout);
        fprintf(stderr, "fwpt flow: --annotate %s: %s%s\n", fa->func, why, b.overflow ? "..." : "");
        free(sel);
        return 1;
    }
    for (size_t i = 0; i < k; i++) {
        if (jsonl) {
            fwpt_annotate_jsonl(&fa->ann, sel[i], out);
            continue;
        }
        if (i)
            fwpt_puts(out, "\n");
        fwpt_annotate_text(&fa->ann, sel[i], out);
    }
    free(sel);
    return 0;
}

void flow_annotate_free(struct flow_annotate *fa)
{
    if (fa->counts)
        free(fa->counts->v);
    free(fa->counts);
    free(fa->ann.fns);
    free(fa->ann.rows);
    fwpt_sources_free(fa->src);
    memset(fa, 0, sizeof *fa);
}
