/* fwpt — the coverage decoder (include/fwpt/coverage.h): what the host tool and the tests set besides the public
 * calls. Freestanding. */
#ifndef FWPT_ANALYZE_COVERAGE_H
#define FWPT_ANALYZE_COVERAGE_H

#include "fwpt/coverage.h"
#include "analyze/edges.h"
#include "analyze/summary.h"

/* Every distinct edge with its count into e as well (NULL: the bitmap only); kept for every decode. */
void fwpt_cov_set_edges(struct fwpt_cov *c, struct fwpt_edges *e);
/* The summary walk of the last decode (its path hits and misses, blocks). */
const struct fwpt_sum *fwpt_cov_walk(const struct fwpt_cov *c);

#endif
