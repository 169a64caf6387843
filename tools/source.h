/* fwpt — the source files `fwpt flow --annotate` and the report page show beside the counts (render/annotate.h's
 * struct fwpt_source): each file read once, on first use, with its lines indexed; --source-root OLD=NEW remaps a
 * path that begins with OLD (the build's tree) to NEW (where the sources are now), tried in the order given, then
 * the path as the symbol file names it. */
#ifndef FWPT_TOOLS_SOURCE_H
#define FWPT_TOOLS_SOURCE_H

#include "render/annotate.h"

struct fwpt_sources;

/* NULL when out of memory. */
struct fwpt_sources *fwpt_sources_new(void);
/* OLD=NEW; -1 (nothing added) when it is not of that form. */
int fwpt_sources_add_root(struct fwpt_sources *s, const char *old_eq_new);
/* The provider render/annotate reads lines through (valid until fwpt_sources_free). */
struct fwpt_source fwpt_sources_provider(struct fwpt_sources *s);
void fwpt_sources_free(struct fwpt_sources *s);

#endif
