/* Random packet streams for the packet tests (test_packet_libipt, test_dump_tool): every packet type libipt
 * encodes (pt_enc_next), optionally with BBP/BIP/BEP/CFE/EVD/TRIG hand-encoded from the SDM tables (libipt 2.0.5
 * lacks them), and the packets the generator put there as fwpt should decode them, the reconstructed IPs
 * from a model of its own (SDM Table "FUP/TIP IP Reconstruction"). Then corrupted copies. */
#ifndef FWPT_TESTS_PKT_STREAM_H
#define FWPT_TESTS_PKT_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "decode/packet.h"

#define PKT_STREAM_MAXPKT 4096
#define PKT_STREAM_BYTES (PKT_STREAM_MAXPKT * 16 + 64)

struct pkt_stream {
    uint64_t rng;                              /* xorshift64 state (tests/common/rng.h): set it to seed */
    size_t len;                                /* bytes in buf */
    size_t nexp;                               /* packets in exp */
    unsigned long enc_errors;                  /* pt_enc_next refusals (the stream then ends there) */
    uint8_t buf[PKT_STREAM_BYTES];
    struct fwpt_packet exp[PKT_STREAM_MAXPKT]; /* what the generator encoded, in order, with offsets */
};

/* The stream's random numbers: the caller may draw from the same sequence between calls. */
uint64_t pkt_stream_rnd(struct pkt_stream *s);
unsigned pkt_stream_rn(struct pkt_stream *s, unsigned n);

/* Last IP after an IP packet with IPBytes ipc and payload pl (ipc 0: unchanged). */
uint64_t pkt_stream_model_ip(uint64_t last, unsigned ipc, uint64_t pl);

/* A PSB, then npkts - 1 random packets; with_new: also BBP/BIP/BEP/CFE/EVD/TRIG. Returns s->len. */
size_t pkt_stream_build(struct pkt_stream *s, size_t npkts, int with_new);

/* A copy of src[0..len) in out (len bytes) with one random kind of damage, drawn from *rng: bit flips,
 * deleted bytes, a truncation, or overwritten bytes (PSB fragments among them). Returns the copy's length. */
size_t pkt_corrupt(uint64_t *rng, const uint8_t *src, size_t len, uint8_t *out);
/* pkt_corrupt of s->buf with s->rng; out holds PKT_STREAM_BYTES. */
size_t pkt_stream_corrupt(struct pkt_stream *s, uint8_t *out);

#endif
