/* fwpt — Intel PT packet decoder: fwpt_pkt_next_batch, the fast way to walk a trace (the inline fast path of
 * decode/packet_fast.h in loops that keep the decoder's state in registers). */
#include "decode/packet.h"

/* Designs measured on bench_packet and not faster than the loops below: docs/performance.md. */

/* fwpt_pkt_next_batch's runs between window ends, state in locals: packets from *pp into q..qe while they start
 * before pe (16 readable bytes) and the fast path takes them; each loop its own function, its own registers. */
#define BATCH_RUN(name, lean)                                                                                     \
    static __attribute__((noinline)) struct fwpt_packet *name(const uint8_t *buf, const uint8_t **pp,              \
                                                              const uint8_t *pe, uint64_t *lip,                    \
                                                              struct fwpt_packet *q, struct fwpt_packet *qe)       \
    {                                                                                                             \
        const uint8_t *p = *pp;                                                                                   \
        uint64_t last_ip = *lip;                                                                                  \
        while (q < qe && p < pe) {                                                                                \
            /* a packet is at most 16 bytes (PSB): the next k start before pe, no check inside */                 \
            size_t k = (size_t)(pe - 1 - p) / 16 + 1;                                                            \
            struct fwpt_packet *qk = (size_t)(qe - q) < k ? qe : q + k;                                          \
            do {                                                                                                  \
                unsigned size;                                                                                    \
                if ((lean) && __builtin_expect(fwpt_pkt_is_one_even(*p), 1)) {                                  \
                    fwpt_pkt_fast_one_even(*p, (size_t)(p - buf), q);                                             \
                    size = 1;                                                                                     \
                } else {                                                                                          \
                    size = (lean) ? fwpt_pkt_fast_lean_other(p, (size_t)(p - buf), &last_ip, q)                 \
                                  : fwpt_pkt_fast_at16(p, (size_t)(p - buf), &last_ip, q);                        \
                    if (__builtin_expect(size == 0, 0))                                                           \
                        goto out; /* the slow path's */                                                           \
                }                                                                                                 \
                p += size;                                                                                        \
                q++;                                                                                              \
            } while (q < qk);                                                                                     \
        }                                                                                                         \
    out:                                                                                                          \
        *pp = p;                                                                                                  \
        *lip = last_ip;                                                                                           \
        return q;                                                                                                 \
    }
BATCH_RUN(batch_run_full, 0)
BATCH_RUN(batch_run_lean, 1)

size_t fwpt_pkt_next_batch(struct fwpt_pkt_decoder *dec, struct fwpt_packet *pkts, size_t n,
                           enum fwpt_status *status)
{
    struct fwpt_packet *q = pkts, *qe = pkts + n;
    while (q < qe) {
        const uint8_t *buf = dec->buf; /* a trace in pieces: fwpt_pkt_next below may move the window */
        uint8_t lean = dec->lean;
        /* errata: fast_end is 0, no run to try */
        if (__builtin_expect(!dec->block_item_bytes && !(lean & FWPT_PKT_LEAN_TRIAL) && !dec->errata, 1)) {
            /* a pointer, not an offset: the header load needs no buf + off add on the offset chain */
            const uint8_t *p = buf + dec->offset;
            q = (lean ? batch_run_lean : batch_run_full)(buf, &p, buf + dec->fast_end, &dec->last_ip, q, qe);
            dec->offset = dec->run_end = (size_t)(p - buf);
            if (q == qe)
                break;
        }
        /* one packet the way fwpt_pkt_next goes: window ends, trials, the trace's end, blocks, the slow path */
        enum fwpt_status s = fwpt_pkt_next(dec, q);
        if (s != FWPT_OK) {
            *status = s; /* the decoder stays at the failing packet */
            return (size_t)(q - pkts);
        }
        q++;
    }
    *status = FWPT_OK;
    return (size_t)(q - pkts);
}
