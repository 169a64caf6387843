/* fwpt tests — the three ways to read the flow decoder (fwpt_flow_next, fwpt_flow_next_batch and
 * fwpt_flow_next_run) behind one loop, for the tests that decode a trace each way and compare what they
 * read: every instruction and event is handed out as a struct fwpt_flow_event, in order. Header-only
 * (static inline). */
#ifndef FWPT_TESTS_FLOW_WAYS_H
#define FWPT_TESTS_FLOW_WAYS_H

#include <stdint.h>

#include "decode/flow.h"

enum flow_way { FLOW_WAY_NEXT, FLOW_WAY_BATCH, FLOW_WAY_RUN };

/* The class of a run's instructions (struct fwpt_flow_run holds their sizes and mode only). */
#define FLOW_WAY_NO_ICLASS 0xff

/* Reads the flow f (fresh from fwpt_flow_init) the way w until a read gives other than FWPT_OK, or after
 * max_reads reads (0: no limit), handing put each instruction (kind, ip, size, iclass and mode set, the rest
 * 0) and each event as read. */
static inline void flow_way_read(struct fwpt_flow *f, enum flow_way w, unsigned max_reads,
                                 void (*put)(void *ctx, const struct fwpt_flow_event *ev), void *ctx)
{
    struct fwpt_flow_event ev;
    for (unsigned reads = 0; !max_reads || reads < max_reads; reads++) {
        if (w == FLOW_WAY_BATCH) {
            const struct fwpt_flow_obuf_insn *v;
            uint32_t n;
            if (fwpt_flow_next_batch(f, &v, &n, &ev) != FWPT_OK)
                return;
            for (uint32_t i = 0; i < n; i++)
                put(ctx, &(struct fwpt_flow_event){.kind = v[i].kind, .ip = v[i].ip, .size = v[i].size,
                                                   .iclass = v[i].iclass, .mode = v[i].mode});
            if (n)
                continue;
        } else if (w == FLOW_WAY_RUN) {
            struct fwpt_flow_run r;
            if (fwpt_flow_next_run(f, &r, &ev) != FWPT_OK)
                return;
            uint64_t ip = r.ip;
            for (uint32_t i = 0; i < r.n; i++) {
                put(ctx, &(struct fwpt_flow_event){.kind = FWPT_FLOW_INSN, .ip = ip, .size = r.sizes[i],
                                                   .iclass = FLOW_WAY_NO_ICLASS, .mode = r.mode});
                ip += r.sizes[i];
            }
            if (r.n)
                continue;
        } else if (fwpt_flow_next(f, &ev) != FWPT_OK) {
            return;
        }
        put(ctx, &ev);
    }
}

#endif
