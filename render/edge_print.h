/* fwpt — the edges of fwpt flow --edges (analyze/edges.h) as text or JSON lines, each end named by the build's
 * symbols when a resolver knows it (render/names.h). Freestanding. */
#ifndef FWPT_RENDER_EDGE_PRINT_H
#define FWPT_RENDER_EDGE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "analyze/edges.h"
#include "decode/image.h"
#include "render/resolve.h"

/* The n edges v (sorted), dropped: the counts that did not fit.
 * text:  "edges: N distinct (from -> to: times taken)", then "END -> END: COUNT" per edge, END "0x..[ (WHERE)]",
 *        WHERE "FUNC+0xOFF[ (FILE:LINE)]" when r knows the function, else "Module+0x.." when a module holds it;
 *        "(N edge counts did not fit in memory)" when dropped
 * jsonl: {"type":"edge","from":"0x..",[from_ names],"to":"0x..",[to_ names],"count":N} (names: render/names.h with
 *        the prefixes "from_" and "to_"); {"type":"edges_dropped","count":N} when dropped */
void fwpt_edges_print(const struct fwpt_edge *v, size_t n, uint64_t dropped, bool jsonl, struct fwpt_modules *mods,
                      const struct fwpt_resolver *r, const struct fwpt_sink *out);

#endif
