/* fwpt — pictures of the call tree (struct fwpt_profile of analyze/profile.h): folded stacks
 * (flamegraph.pl, inferno, speedscope), a self-contained interactive flame graph (SVG, inline
 * script: click to zoom, search, hover for counts) and the Trace Event Format (Perfetto,
 * chrome://tracing: one complete slice per call, the instruction index as the clock).
 * Freestanding, through struct fwpt_sink: the EFI app and the host tool write the same bytes. */
#ifndef FWPT_RENDER_FLAME_H
#define FWPT_RENDER_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "analyze/profile.h"
#include "render/resolve.h"

/* A function entry known by name (e.g. the service a target calls: sideband "impl" at "impl_addr"). */
struct fwpt_symbol {
    uint64_t addr;
    const char *name; /* cut at the first space */
};

/* How frames are named: the build's name (resolver: "FUNC", or "FUNC+0xOFF" for an entry inside one), else the
 * symbol at the entry, else Module+0xOFFSET, else 0xADDRESS. */
struct fwpt_names {
    struct fwpt_modules *mods;      /* may be NULL */
    const struct fwpt_symbol *syms; /* may be NULL */
    size_t nsyms;
    const struct fwpt_resolver *resolver; /* the build's symbols (render/resolve.h), NULL: none */
};

#define FWPT_FRAME_NAME_MAX 96
/* The name of the function entered at entry (FWPT_FLOW_NO_IP: "(root)"), NUL-terminated in out (a longer name
 * is cut at FWPT_FRAME_NAME_MAX - 1 bytes). */
void fwpt_flame_frame_name(const struct fwpt_names *n, uint64_t entry, char out[FWPT_FRAME_NAME_MAX]);


/* Folded stacks, one line per call-tree node with instructions of its own:
 * "(root);DxeCore+0x1bac;DxeCore+0xb47 3585" (frames root first; count = the node's self instructions). */
void fwpt_flame_folded_write(struct fwpt_profile *p, const struct fwpt_names *n, const struct fwpt_sink *out);

/* The flame graph: one frame per call-tree node (the root at the bottom), width by instructions with
 * callees. standalone: an SVG document (XML declaration); else an <svg> element to put into HTML. */
#define FWPT_FLAME_WIDTH 1200
#define FWPT_FLAME_MAX_DEPTH 256 /* deeper frames are left out, and the graph says how many */
void fwpt_flame_svg(struct fwpt_profile *p, const struct fwpt_names *n, const char *title, int standalone,
                    const struct fwpt_sink *out);

/* The Trace Event Format, written while the flow is decoded: fwpt_flame_chrome_begin, then every event into
 * fwpt_profile_add (the writer follows the profile's calls through its frame hook), then fwpt_flame_chrome_end.
 * Each call is one "X" event: ts = the index of its first instruction, dur = its instructions with callees. */
struct fwpt_chrome {
    const struct fwpt_sink *out;
    const struct fwpt_names *names;
    uint64_t start[FWPT_PROFILE_DEPTH];
    uint32_t node[FWPT_PROFILE_DEPTH];
    uint32_t depth;
    uint64_t slices;
};
void fwpt_flame_chrome_begin(struct fwpt_chrome *c, struct fwpt_profile *p, const struct fwpt_names *n,
                       const struct fwpt_sink *out);
/* Closes the calls still open at the end of the trace (at the last instruction) and the JSON document. */
void fwpt_flame_chrome_end(struct fwpt_chrome *c, struct fwpt_profile *p);

/* v/total as a percentage with two decimals ("12.34"), integer arithmetic (total 0: "0.00"). */
void fwpt_flame_put_percent(const struct fwpt_sink *o, uint64_t v, uint64_t total);

#endif
