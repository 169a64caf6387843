/* Fixture of the flow decoder's unit tests: a code image of FLOW_FIXTURE_CODE bytes at 'base' (define the
 * size before including), its read callback, and the libipt encoder ('enc') that writes the test's trace,
 * with one helper per packet shape. Header-only (static): include it once per test program. */
#ifndef FWPT_TESTS_FLOW_FIXTURE_H
#define FWPT_TESTS_FLOW_FIXTURE_H

#include <intel-pt.h>
#include <string.h>
#include "tests/check.h"

#ifndef FLOW_FIXTURE_CODE
#define FLOW_FIXTURE_CODE 0x1000
#endif
static uint8_t code[FLOW_FIXTURE_CODE];
static const uint64_t base = 0x10000;
static struct pt_encoder *enc;

static inline size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    (void)ctx;
    if (ip < base || ip - base >= sizeof code)
        return 0;
    *bytes = code + (ip - base);
    return sizeof code - (ip - base);
}

/* the encoder's offset: where the next packet goes */
static inline uint64_t enc_offset(void)
{
    uint64_t o = 0;
    pt_enc_get_offset(enc, &o);
    return o;
}
static inline void emit(struct pt_packet *p) { CHECK(pt_enc_next(enc, p) > 0); }
/* Each helper writes one packet, all its other fields zero. */
static inline void pk_plain(enum pt_packet_type t) { emit(&(struct pt_packet){.type = t}); }
static inline void pk_ip(enum pt_packet_type t, uint64_t ip, enum pt_ip_compression c)
{
    emit(&(struct pt_packet){.type = t, .payload.ip = {.ipc = c, .ip = ip}});
}
/* MODE.Exec for 16-, 32- or 64-bit code */
static inline void pk_mode(int bits)
{
    emit(&(struct pt_packet){.type = ppt_mode,
                             .payload.mode = {.leaf = pt_mol_exec,
                                              .bits.exec = {.csl = bits == 64, .csd = bits == 32}}});
}
/* MODE.TSX with its InTX and TXAbort bits */
static inline void pk_tsx(int intx, int abrt)
{
    emit(&(struct pt_packet){.type = ppt_mode,
                             .payload.mode = {.leaf = pt_mol_tsx,
                                              .bits.tsx = {.intx = (uint32_t)intx, .abrt = (uint32_t)abrt}}});
}
/* A TNT of 'bits' branches (1..6 short, else long) with libipt's payload (the oldest bit most significant). */
static inline void pk_tnt(unsigned bits, uint64_t payload)
{
    emit(&(struct pt_packet){.type = bits <= 6 ? ppt_tnt_8 : ppt_tnt_64,
                             .payload.tnt = {.bit_size = (uint8_t)bits, .payload = payload}});
}
static inline void pk_pip(uint64_t cr3) { emit(&(struct pt_packet){.type = ppt_pip, .payload.pip.cr3 = cr3}); }
static inline void pk_vmcs(uint64_t base_addr)
{
    emit(&(struct pt_packet){.type = ppt_vmcs, .payload.vmcs.base = base_addr});
}
static inline void pk_mnt(uint64_t payload) { emit(&(struct pt_packet){.type = ppt_mnt, .payload.mnt.payload = payload}); }
static inline void pk_cbr(uint8_t ratio) { emit(&(struct pt_packet){.type = ppt_cbr, .payload.cbr.ratio = ratio}); }

/* A new encoder over trace[0..size) that starts with PSB+ (MODE.Exec 64-bit, FUP ip): the decoder
 * synchronizes there and walks from ip. */
static inline void enc_begin(uint8_t *trace, size_t size, uint64_t ip)
{
    struct pt_config c;
    pt_config_init(&c);
    c.begin = trace;
    c.end = trace + size;
    enc = pt_alloc_encoder(&c);
    pk_plain(ppt_psb);
    pk_mode(64);
    pk_ip(ppt_fup, ip, pt_ipc_sext_48);
    pk_plain(ppt_psbend);
}

#endif
