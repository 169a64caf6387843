/* fwpt — the boot timeline of analyze/timeline as text and JSON lines (`fwpt flow DIR --images`): one block per
 * image in the order it first ran, with its instructions (and ticks) self and with callees, the calls that
 * entered it, and its top functions (the profile's per-function table). Functions are named as in every view
 * (render/flame's frame names: the build's NAME through the resolver, else Module+0xOFF). Freestanding. */
#ifndef FWPT_RENDER_TIMELINE_PRINT_H
#define FWPT_RENDER_TIMELINE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include "analyze/timeline.h"
#include "render/flame.h"

/* timing: the trace had time (t's ticks mean something); else one header clause says there is none and no tick
 * is printed. p: the profile of the same flow (top functions: up to top per image, and as many entry lines).
 * fwpt_timeline_end must have been called. Text:
 *   images in the order they first ran: N of M images, I instructions; TIME
 *      #  image  base-end  insns self % with callees %
 *      1  NAME   0xB-0xE   ...
 *         ticks  ...                                   (with timing)
 *         entered by  CALLER_IMAGE!FUNC -> TARGET  xN  (interrupt: "interrupted in")
 *         top  COUNT  FUNC                                                                   */
void fwpt_timeline_print(const struct fwpt_timeline *t, const struct fwpt_profile *p, const struct fwpt_names *n,
                         bool timing, size_t top, const struct fwpt_sink *o);
/* The same as JSON lines (docs/formats.md): {"type":"timeline",..}, then per image {"type":"image",..}, its
 * {"type":"image_entry",..} and {"type":"image_function",..} lines. */
void fwpt_timeline_print_jsonl(const struct fwpt_timeline *t, const struct fwpt_profile *p,
                               const struct fwpt_names *n, bool timing, size_t top, const struct fwpt_sink *o);

#endif
