/* fwpt — the verdict of verify: the decoded flow compared with the one the software backend single-stepped
 * (sim/soft_cpu). Written by the run, read back from sideband.json, shown by the console and the report page. */
#ifndef FWPT_SIM_VERIFY_H
#define FWPT_SIM_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include "base/text.h"

/* The verdict of verify as the run recorded it (efi/pipeline; sideband.json "verify"): the decoded flow against
 * the single-stepped one. The console, sideband.json and the page say it in the same words (fwpt_verify_text). */
enum fwpt_verify_result { FWPT_VERIFY_NOT_RUN = 0, FWPT_VERIFY_PASSED, FWPT_VERIFY_FAILED };
enum fwpt_verify_scope {
    FWPT_VERIFY_WHOLE = 0, /* every instruction decoded was compared */
    FWPT_VERIFY_FIRST,     /* the first `compared` of `total` (a buffer filled) */
    FWPT_VERIFY_NEWEST,    /* the newest `compared` of `total` (a ring kept the newest) */
    FWPT_VERIFY_UNKNOWN,   /* not recorded (a sideband.json whose "verify" is the old string "passed") */
};
struct fwpt_verify {
    enum fwpt_verify_result result;
    enum fwpt_verify_scope scope; /* passed: which instructions were compared */
    uint64_t compared, total;     /* passed: instructions compared; decoded in all */
    const char *part;             /* passed: what of the call the trace holds ("the whole call", "the oldest part
                                   * (output stopped)", ...); NULL or "": not said */
    const char *reason;           /* not run or failed: why ("not asked", ...); NULL or "": not said */
};
/* Why verify did not run when the single-stepped flow (the ground truth) did not fit its buffer: nothing was compared,
 * so the decoder was found neither right nor wrong. */
#define FWPT_VERIFY_GT_DID_NOT_FIT "the single-stepped flow did not fit its buffer"
/* The reason fwpt wrote for that case before, with the result "failed" (sideband.json of an earlier run). */
#define FWPT_VERIFY_GT_INCOMPLETE_OLD "the single-stepped flow is incomplete"
/* A verdict read back from an earlier run's sideband.json: a "failed" whose reason is FWPT_VERIFY_GT_INCOMPLETE_OLD
 * compared nothing and becomes "not run" (FWPT_VERIFY_GT_DID_NOT_FIT). Returns 1 when it changed v, else 0. */
int fwpt_verify_upgrade(struct fwpt_verify *v);
/* The verdict in words: "passed (the whole call)", "passed for the first N of M instructions; the rest was not
 * compared", "failed: REASON", "not run (REASON)"; xml: escaped for HTML. */
void fwpt_verify_text(const struct fwpt_verify *v, bool xml, const struct fwpt_sink *o);
/* sideband.json's names: "passed", "failed", "not run"; "whole", "first", "newest", "unknown". */
const char *fwpt_verify_result_name(enum fwpt_verify_result r);
const char *fwpt_verify_scope_name(enum fwpt_verify_scope s);
/* The enum value of a name above, or -1. */
int fwpt_verify_result_parse(const char *name);
int fwpt_verify_scope_parse(const char *name);

#endif
