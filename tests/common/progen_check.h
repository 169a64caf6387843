/* fwpt tests — progen_build in a test: a program that cannot be built is a failed check. Header-only
 * (static inline): tests/check.h's counters are the test program's own. */
#ifndef FWPT_TESTS_PROGEN_CHECK_H
#define FWPT_TESTS_PROGEN_CHECK_H

#include <stdbool.h>

#include "tests/check.h"
#include "tests/common/progen.h"

/* progen_build(cfg, p): true when *p was built, else a failed CHECK and false */
static inline bool progen_build_checked(const struct progen_cfg *cfg, struct progen *p)
{
    if (progen_build(cfg, p) == 0)
        return true;
    CHECK(!"progen");
    return false;
}

#endif
