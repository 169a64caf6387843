/* fwpt — the profile and the call tree of analyze/profile as text and JSON lines, each function entry named by
 * the build's symbols when a resolver knows it (render/names.h; asked once per row printed, after the walk).
 * Without a resolver (NULL, or one that knows nothing) the bytes are Module+offset only. Freestanding. */
#ifndef FWPT_RENDER_PROFILE_PRINT_H
#define FWPT_RENDER_PROFILE_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "analyze/profile.h"
#include "render/resolve.h"

/* Instructions per module, then the top_n functions by instructions (self):
 * "           insns      calls  entry" rows "<insns16><calls11>  0xENTRY[  Module+0xOFF][  NAME[ (FILE:LINE)]]". */
void fwpt_profile_print(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                        size_t top_n);
/* The call tree, indented by depth (up to max_depth levels), with calls and instructions (self and total) per
 * node, each entry as in fwpt_profile_print. */
void fwpt_profile_calltree_print(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                                 uint32_t max_depth);
/* The same as JSON lines (docs/formats.md): {"type":"profile",..}, one "module_total" per module, one "function"
 * per function shown; {"type":"call_tree",..}, then one "call" per node shown (id, parent, depth); a named entry
 * adds "function", "file", "line", "inlined" (render/names.h) after "module_offset". */
void fwpt_profile_print_jsonl(struct fwpt_profile *p, const struct fwpt_resolver *r, const struct fwpt_sink *out,
                              size_t top_n);
void fwpt_profile_calltree_print_jsonl(struct fwpt_profile *p, const struct fwpt_resolver *r,
                                       const struct fwpt_sink *out, uint32_t max_depth);

#endif
