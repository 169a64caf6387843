/* fwpt flow's line-by-line counts: --annotate FUNC (text on stdout) and the report page's section of the top
 * functions, when symbols are given. The counts per instruction address (analyze/annotate.h) are kept only then:
 * the walk that fills them is the instruction walk, with every instruction's address (--by time: its ticks, from
 * analyze/time_spread). */
#ifndef FWPT_TOOLS_FLOW_ANNOTATE_H
#define FWPT_TOOLS_FLOW_ANNOTATE_H

#include <stdbool.h>
#include "analyze/annotate.h"
#include "render/annotate.h"
#include "tools/source.h"

struct flow_annotate {
    /* what fwpt flow asked */
    const char *func;           /* --annotate FUNC (NULL: none) */
    struct fwpt_sources *src;   /* --source-root OLD=NEW (made on first use) */
    /* the counts (flow_annotate_begin) and what they are shown with (flow_annotate_end) */
    struct fwpt_addr_counts *counts; /* NULL: not counting */
    struct fwpt_source provider;
    struct fwpt_annotation ann;
};

/* --source-root OLD=NEW: 0, else the exit status (said on stderr). */
int flow_annotate_root(struct flow_annotate *fa, const char *v);

/* Starts counting when --annotate was given or report (a report page with symbols) is true: 0, else the exit
 * status (said on stderr: --annotate without a resolver, out of memory). */
int flow_annotate_begin(struct flow_annotate *fa, const struct fwpt_resolver *resolver, bool report);

/* After the walk: the counts grouped by function (for the report page too). ticks: the counts are TSC ticks. */
int flow_annotate_end(struct flow_annotate *fa, const struct fwpt_resolver *resolver, struct fwpt_modules *mods,
                      bool ticks);

/* --annotate's text (jsonl: JSON lines) on out: 0, or 1 when FUNC names no function that ran (said on stderr). */
int flow_annotate_print(struct flow_annotate *fa, const struct fwpt_sink *out, bool jsonl);

void flow_annotate_free(struct flow_annotate *fa);

#endif
