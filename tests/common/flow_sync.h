/* fwpt tests — what fwpt_flow_init returns for a trace that may be corrupt: FWPT_OK when the packet decoder
 * finds a PSB in it, else FWPT_E_NOSYNC (the flow is then at its end at once). Header-only (static inline). */
#ifndef FWPT_TESTS_FLOW_SYNC_H
#define FWPT_TESTS_FLOW_SYNC_H

#include "decode/packet.h"

static inline enum fwpt_status flow_sync_expected(const uint8_t *trace, size_t len)
{
    struct fwpt_pkt_decoder d;
    fwpt_pkt_init(&d, trace, len);
    return fwpt_pkt_sync_forward(&d);
}

#endif
