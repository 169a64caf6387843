/* fwpt — where the time went: the TSC ticks between two changes of the flow's time (fwpt_flow_time) spread
 * evenly over the instructions between them, into a profile (analyze/profile.c) that then counts ticks instead
 * of instructions (its unit "TSC ticks"): --profile, the call tree, the flame graph and the report by time.
 * The time changes only where a packet decided the flow (a TNT, a TIP, an event), so the ticks up to such a
 * point are shared by the instructions since the last one; nothing is counted across an overflow, an error or
 * a time when tracing was off. Freestanding; the held items live in a caller's buffer. */
#ifndef FWPT_ANALYZE_TIME_SPREAD_H
#define FWPT_ANALYZE_TIME_SPREAD_H

#include <stdbool.h>
#include <stdint.h>
#include "analyze/annotate.h"
#include "analyze/profile.h"

struct fwpt_time_spread {
    struct fwpt_profile *p;
    struct fwpt_flow_event *q; /* items held until the time changes */
    uint32_t cap, n, ninsn;
    uint64_t last;             /* the time of the last change point (valid: have) */
    bool have, last_ok;
    /* the duration: first and latest time seen (with a TSC), the ticks given out, instructions that got none */
    bool have_span;
    uint64_t first_tsc, last_tsc, ticks, unweighted;
    struct fwpt_addr_counts *addrs; /* each instruction's ticks at its address too (NULL: not kept; set after init) */
    /* every instruction and event with its ticks, in order, to this hook too (NULL: none; set after init) */
    void (*also)(void *ctx, const struct fwpt_flow_event *ev, uint64_t w);
    void *also_ctx;
};

/* buf: cap items held at most (a longer stretch without a time change counts 0 ticks for its instructions).
 * p may be NULL: the ticks go to the also hook only. */
void fwpt_time_spread_init(struct fwpt_time_spread *t, struct fwpt_profile *p, struct fwpt_flow_event *buf,
                           uint32_t cap);
/* Every instruction and event in order, with its time (fwpt_flow_time). */
void fwpt_time_spread_add(struct fwpt_time_spread *t, const struct fwpt_flow_event *ev, uint64_t tsc, bool tsc_ok);
/* At the end: what is still held goes to the profile (no ticks: nothing says when it ended). */
void fwpt_time_spread_end(struct fwpt_time_spread *t);
/* The traced code's duration, one line: "time: N TSC ticks from the first instruction with a time to the last
 * (X.XXX us at F MHz); M ticks spread over the instructions". The TSC rate: CPUID 15H's crystal clock
 * (crystal_hz, ECX; 0: unknown) times EBX/EAX, else the nominal ratio times 100 MHz (the TSC runs at the
 * nominal frequency). soft: a second line says the times are those of single-stepping. */
void fwpt_time_spread_duration(const struct fwpt_time_spread *t, const struct fwpt_time_config *c, uint64_t crystal_hz,
                               bool soft, const struct fwpt_sink *o);

#endif
