/* libFuzzer target for decode/packet (+ printers): decode the input with resync at the next PSB after
 * every error, and check the decoder's invariants. Built with ASan+UBSan by `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode/packet.h"
#include "decode/pkt_print.h"

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
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet pkt;
    fwpt_pkt_init(&dec, buf, size);
    size_t expect = 0, last_sync = 0;
    int synced = 0;
    size_t steps = 0;
    for (;;) {
        ASSERT(++steps <= 2 * size + 4); /* bounded: every step consumes bytes or moves the sync point on */
        enum fwpt_status s = fwpt_pkt_next(&dec, &pkt);
        ASSERT(pkt.offset == expect);
        if (s == FWPT_E_EOS) {
            ASSERT(expect == size);
            break;
        }
        if (s != FWPT_OK) {
            ASSERT(s == FWPT_E_TRUNCATED || s == FWPT_E_BAD_OPCODE || s == FWPT_E_BAD_IPC || s == FWPT_E_BAD_PACKET);
            ASSERT(dec.offset == pkt.offset && pkt.size == 0 && pkt.type == FWPT_PKT_NONE);
            fwpt_pkt_print_error_text(&sink, pkt.offset, s);
            fwpt_pkt_print_error_json(&sink, pkt.offset, s);
            if (fwpt_pkt_sync_forward(&dec) != FWPT_OK)
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
        ASSERT(pkt.size >= 1 && pkt.size <= 16 && pkt.offset + pkt.size <= size);
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
        fwpt_pkt_print_text(&sink, &pkt);
        fwpt_pkt_print_json(&sink, &pkt);
        expect = dec.offset;
    }
    /* backward PSB walk terminates and moves strictly backward */
    fwpt_pkt_init(&dec, buf, size);
    size_t prev = size + 1;
    while (fwpt_pkt_sync_backward(&dec) == FWPT_OK) {
        ASSERT(dec.offset < prev && dec.offset + 16 <= size);
        prev = dec.offset;
    }
    free(buf);
    return 0;
}
