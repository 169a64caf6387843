/* fwpt — libFuzzer target for decode/insn: decode at every offset in every mode; on success the
 * size is 1..15 and within the bytes given, the class is known, and a decode of exactly those
 * bytes gives the same answer (the decoder never reads past the instruction). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum fwpt_exec_mode modes[3] = {FWPT_MODE_64, FWPT_MODE_32, FWPT_MODE_16};
    for (int m = 0; m < 3; m++) {
        for (size_t off = 0; off < size; off++) {
            struct fwpt_insn in, again;
            enum fwpt_status st = fwpt_insn_decode(data + off, size - off, modes[m], &in);
            if (st != FWPT_OK) {
                if (st != FWPT_E_BAD_INSN && st != FWPT_E_TRUNCATED)
                    abort();
                continue;
            }
            if (in.size < 1 || in.size > 15 || in.size > size - off || in.iclass >= FWPT_IC_COUNT)
                abort();
            /* Exact-size buffer (heap copy so ASan sees any over-read). */
            uint8_t *copy = malloc(in.size);
            memcpy(copy, data + off, in.size);
            st = fwpt_insn_decode(copy, in.size, modes[m], &again);
            free(copy);
            if (st != FWPT_OK || again.size != in.size || again.iclass != in.iclass || again.rel != in.rel)
                abort();
            if (in.zero_len_call && (in.iclass != FWPT_IC_CALL_REL || in.rel != 0))
                abort();
        }
    }
    return 0;
}
