/* libFuzzer target for decode/packet (+ printers): decode the input with resync at the next PSB after
 * every error, and check the decoder's invariants. Built with ASan+UBSan by `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arch/errata.h"
#include "decode/packet.h"
#include "decode/packet_fast.h" /* private: fwpt_pkt_next_slow */
#include "render/pkt_print.h"
#include "tests/common/pkt_equal.h"

static void null_write(void *ctx, const char *s, size_t n)
{
    size_t *count = ctx;
    for (size_t i = 0; i < n; i++)
        *count += (unsigned char)s[i] == 0; /* read every byte: ASan sees overruns */
}

#define ASSERT(c)                                                                                   \
    do {                                                                                            \
        if (!(c))                                                                                   \
            __builtin_trap();                                                                       \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Copy into an exact-size heap block so reads past the end are caught. */
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    size_t zeros = 0;
    struct fwpt_sink sink = {null_write, &zeros};
    struct fwpt_pkt_decoder dec, slow;
    struct fwpt_packet pkt, spkt;
    int print = size <= 1024; /* printing every packet of large inputs costs most of the time */
    fwpt_pkt_init(&dec, buf, size);
    fwpt_pkt_init(&slow, buf, size);
    size_t expect = 0, last_sync = 0;
    int synced = 0;
    size_t steps = 0;
    for (;;) {
        ASSERT(++steps <= 2 * size + 4); /* bounded: every step consumes bytes or moves the sync point on */
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        /* the inline fast path and the slow path decode the same packet the same way */
        enum fwpt_status s2 = fwpt_pkt_next_slow(&slow, &spkt);
        ASSERT(s == s2 && pkt.offset == spkt.offset && pkt.type == spkt.type && pkt.size == spkt.size);
        ASSERT(dec.offset == slow.offset && dec.last_ip == slow.last_ip && dec.block_item_bytes == slow.block_item_bytes);
        ASSERT(s != FWPT_OK || pkt_same_fields(&pkt, &spkt)); /* every field of every type */
        ASSERT(pkt.offset == expect);
        if (s == FWPT_E_EOS) {
            ASSERT(expect == size);
            break;
        }
        if (s != FWPT_OK) {
            ASSERT(s == FWPT_E_TRUNCATED || s == FWPT_E_BAD_OPCODE || s == FWPT_E_BAD_IPC || s == FWPT_E_BAD_PACKET ||
                   s == FWPT_E_TOO_LONG);
            ASSERT(dec.offset == pkt.offset && pkt.size == 0 && pkt.type == FWPT_PKT_NONE);
            if (print) {
                fwpt_pkt_print_error_text(&sink, pkt.offset, s);
                fwpt_pkt_print_error_json(&sink, pkt.offset, s);
            }
            enum fwpt_status r = fwpt_pkt_sync_forward(&dec);
            ASSERT(fwpt_pkt_sync_forward(&slow) == r && slow.offset == dec.offset);
            if (r != FWPT_OK)
                break;
            /* the new sync point is a PSB past the previous one */
            ASSERT(!synced || dec.offset > last_sync);
            ASSERT(dec.offset + 16 <= size && dec.buf[dec.offset] == 0x02 && dec.buf[dec.offset + 1] == 0x82);
            synced = 1;
            last_sync = dec.offset;
            expect = dec.offset;
            ASSERT(dec.last_ip == 0);
            continue;
        }
        /* only a CYC is longer than a PSB (its Exp chain has no limit; 255 bytes at most) */
        ASSERT(pkt.size >= 1 && (pkt.size <= 16 || pkt.type == FWPT_PKT_CYC) && pkt.offset + pkt.size <= size);
        ASSERT(pkt.type > FWPT_PKT_NONE && pkt.type < FWPT_PKT_COUNT);
        ASSERT(dec.offset == pkt.offset + pkt.size);
        switch (pkt.type) {
        case FWPT_PKT_TNT_8: ASSERT(pkt.tnt.count >= 1 && pkt.tnt.count <= 6 && pkt.tnt.bits >> pkt.tnt.count == 0); break;
        case FWPT_PKT_TNT_64: ASSERT(pkt.tnt.count >= 1 && pkt.tnt.count <= 47 && pkt.tnt.bits >> pkt.tnt.count == 0); break;
        case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
            ASSERT(pkt.ip.suppressed == (pkt.ip.ipc == 0));
            ASSERT(pkt.ip.suppressed || pkt.ip.ip == dec.last_ip);
            break;
        case FWPT_PKT_PSB:
            ASSERT(pkt.size == 16 && dec.last_ip == 0);
            break;
        default:
            break;
        }
        if (print) {
            fwpt_pkt_print_text(&sink, &pkt);
            fwpt_pkt_print_json(&sink, &pkt);
        }
        expect = dec.offset;
    }
    /* backward PSB walk terminates and moves strictly backward */
    fwpt_pkt_init(&dec, buf, size);
    size_t prev = size + 1;
    while (fwpt_pkt_sync_backward(&dec) == FWPT_OK) {
        ASSERT(dec.offset < prev && dec.offset + 16 <= size);
        prev = dec.offset;
    }
    /* fwpt_pkt_next_batch: the same packets as fwpt_pkt_next, in batches of 7, up to the same stop */
    struct fwpt_pkt_decoder bd;
    struct fwpt_packet bp[7];
    fwpt_pkt_init(&bd, buf, size);
    fwpt_pkt_init(&dec, buf, size);
    enum fwpt_status bs = FWPT_OK;
    while (bs == FWPT_OK) {
        size_t k = fwpt_pkt_next_batch(&bd, bp, 7, &bs);
        ASSERT(k <= 7 && (k == 7 || bs != FWPT_OK));
        for (size_t i = 0; i < k; i++)
            ASSERT(fwpt_pkt_next(&dec, &pkt) == FWPT_OK && pkt_same_fields(&pkt, &bp[i]));
    }
    ASSERT(fwpt_pkt_next(&dec, &pkt) == bs && dec.offset == bd.offset && dec.last_ip == bd.last_ip);
    /* with the packet-level errata (SKD007, SKZ84): packets back to back, next and batch alike, to the same stop */
    static const struct fwpt_errata errata = {.skd007 = true, .skz84 = true};
    fwpt_pkt_init(&bd, buf, size);
    fwpt_pkt_init(&dec, buf, size);
    fwpt_pkt_set_errata(&bd, &errata);
    fwpt_pkt_set_errata(&dec, &errata);
    bs = FWPT_OK;
    expect = 0;
    while (bs == FWPT_OK) {
        size_t k = fwpt_pkt_next_batch(&bd, bp, 7, &bs);
        ASSERT(k <= 7 && (k == 7 || bs != FWPT_OK));
        for (size_t i = 0; i < k; i++) {
            ASSERT(fwpt_pkt_next(&dec, &pkt) == FWPT_OK && pkt_same_fields(&pkt, &bp[i]) && pkt.offset == expect);
            ASSERT(pkt.type != FWPT_PKT_INVALID || pkt.size == 8);
            ASSERT(pkt.type != FWPT_PKT_OVF || pkt.size == 2 || pkt.size == 3);
            expect = dec.offset;
        }
    }
    ASSERT(fwpt_pkt_next(&dec, &pkt) == bs && dec.offset == bd.offset && dec.last_ip == bd.last_ip);
    free(buf);
    return 0;
}
