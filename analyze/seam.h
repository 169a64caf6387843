/* fwpt — where two flow decoders agree: a trace cut at its PSBs is decoded piece by piece, each piece by a
 * decoder that starts fresh at its PSB, and the pieces join where the decoder of the piece before, going on
 * past the PSB, gets to the same place in the same state (analyze/parallel_host.c). */
#ifndef FWPT_ANALYZE_SEAM_H
#define FWPT_ANALYZE_SEAM_H

#include <stdbool.h>
#include "decode/flow.h"

enum fwpt_seam {
    FWPT_SEAM_DIFFERENT = 0, /* the decoders may go on differently */
    FWPT_SEAM_SAME,          /* they decode the rest of the trace alike */
    /* alike, except that b's RET compression stack holds fewer (the newest) of a's entries: they differ only
     * where b finds its stack empty for a compressed RET (FWPT_E_RETSTACK), where a may pop an older entry */
    FWPT_SEAM_SAME_STACK_TOP,
};

/* a: the decoder that went on past the PSB; b: the one that started at it. Both stopped by the summary walk's
 * stop_at (analyze/summary.h): at the end of a block whose branch takes the packet in peek, nothing else
 * pending. Compares everything the rest of the decode depends on. */
enum fwpt_seam fwpt_seam_compare(const struct fwpt_flow *a, const struct fwpt_flow *b);

#endif
