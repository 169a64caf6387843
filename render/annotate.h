/* fwpt — where a function's instructions (or TSC ticks) went, source line by source line, as `perf annotate` shows
 * it: the counts per address (analyze/annotate.h) grouped by the resolver's file and line (render/resolve.h),
 * beside the lines of the source file when the host can read it (struct fwpt_source). Text for `fwpt flow
 * --annotate FUNC`, HTML for the report page's section of the top functions. An instruction counts at the line
 * the resolver gives its address: code the compiler inlined counts at the inlined function's own line (in its
 * own file, maybe a header), as DWARF's line table says.
 * Freestanding: the caller lends the work space (struct fwpt_annotation's fns and rows). */
#ifndef FWPT_RENDER_ANNOTATE_H
#define FWPT_RENDER_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analyze/annotate.h"
#include "base/text.h"
#include "decode/image.h"
#include "render/resolve.h"

/* The source files, read by the host (tools/source.h). */
struct fwpt_source {
    /* Line `line` (from 1) of file (as the resolver names it): 1 with its text in *s, *len (no newline); 0 when
     * the file has no such line; -1 when the file cannot be read. */
    int (*line)(void *ctx, const char *file, uint32_t line, const char **s, size_t *len);
    void *ctx;
};

/* One function (as the resolver names it) that ran: its addresses are addrs[first .. first + n). */
struct fwpt_annotate_fn {
    const char *name;
    uint64_t entry;
    uint64_t count; /* its instructions (ticks), self: the sum over its addresses */
    size_t first, n;
};

/* One source line of a function: the count of its addresses that the resolver puts there. */
struct fwpt_annotate_row {
    const char *file; /* NULL: the resolver knows no line for these addresses */
    uint32_t line;
    uint8_t inlined;  /* some of its addresses are inlined code */
    uint64_t count;
};

struct fwpt_annotation {
    const struct fwpt_addr_count *addrs; /* in address order (fwpt_addr_counts_sorted) */
    size_t n;
    uint64_t total, dropped;             /* of the whole trace (fwpt_addr_counts) */
    bool ticks;                          /* the counts are TSC ticks (--by time), else instructions */
    const struct fwpt_resolver *resolver;
    struct fwpt_modules *mods;
    const struct fwpt_source *source;    /* NULL: no source text */
    /* the caller's work space: n entries each */
    struct fwpt_annotate_fn *fns;
    struct fwpt_annotate_row *rows;
    size_t nfns;                         /* filled by fwpt_annotate_group */
};

/* The functions that ran, in address order, into a->fns (a->nfns); addresses no function symbol covers are in
 * none. Returns a->nfns. */
size_t fwpt_annotate_group(struct fwpt_annotation *a);

/* The functions FUNC names (after fwpt_annotate_group): "Module+0xOFF" (the function holding that address),
 * "Module!NAME" (NAME in that module), or "NAME" (every function of that name: static functions of several
 * modules). Their indexes in a->fns go to sel (a->nfns entries) in address order; returns how many. 0: why, in
 * one line without a newline, to err (for a name: the near names among the functions that ran). */
size_t fwpt_annotate_select(const struct fwpt_annotation *a, const char *func, size_t *sel, const struct fwpt_sink *err);

/* The text of function a->fns[fn]: a header (name, Module+0xOFF, entry, count and share, source file, how
 * inlined code counts), then its source lines with counts and share of the function (lines without counts
 * between them and CONTEXT lines around; long runs without counts shown as "..."), lines of other files (inlined
 * code from headers) after. Without the source file: the lines with counts alone, and one line naming the file
 * not found. */
void fwpt_annotate_text(struct fwpt_annotation *a, size_t fn, const struct fwpt_sink *o);

/* The same as JSON lines (docs/formats.md): {"type":"annotate",..} (the function: name, entry, module and offset,
 * unit, count, the trace's total, its file and entry line), then one {"type":"annotate_line",..} per line with
 * counts, in the text's order (file and line when known, "inlined":true when inlined code is among its addresses);
 * no source text (a program reads the file itself). */
void fwpt_annotate_jsonl(struct fwpt_annotation *a, size_t fn, const struct fwpt_sink *o);

/* The report page's section: the top functions by count, each as fwpt_annotate_text in an HTML table (nothing
 * when no function is known). */
#define FWPT_ANNOTATE_TOP 5
void fwpt_annotate_html(struct fwpt_annotation *a, unsigned top, const struct fwpt_sink *o);

#endif
