/* fwpt — how every view writes what the resolver (render/resolve.h) says about an address: the name
 * ("FUNC" at the function's entry, else "FUNC+0xOFF"), the source position ("FILE:LINE", the file's basename in
 * text) and the JSON keys ("function", "function_offset", "file", "line", "inlined", each only when known).
 * docs/symbols.md shows them in each view. Freestanding. */
#ifndef FWPT_RENDER_NAMES_H
#define FWPT_RENDER_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include "base/text.h"
#include "render/resolve.h"

/* The file name after the last '/' or '\' of path (a PDB's paths are Windows paths). */
const char *fwpt_name_basename(const char *path);

/* "FUNC" when address is r's function entry, else "FUNC+0xOFF"; nothing when r->function is NULL. */
void fwpt_name_put(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address);

/* The text form of a known function: the name, then " (FILE:LINE)" (basename) when the line is known. 0 (nothing
 * written) when r->function is NULL. */
int fwpt_name_put_text(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address);

/* The JSON keys, each when known, prefix before every key ("" or e.g. "from_"):
 * ,"function":"NAME"  (listing: "FUNC" and ,"function_offset":"0x.."; else the name, "FUNC" or "FUNC+0xOFF")
 * ,"file":"PATH" (as the resolver gives it) ,"line":N ,"inlined":true */
void fwpt_name_put_json(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address,
                        const char *prefix, bool listing);

#endif
