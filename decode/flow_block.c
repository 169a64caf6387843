/* fwpt — the flow decoder's view of the code: blocks of instructions up to a branch (the block cache's
 * entries; its lookup is get_block in flow_priv.h) and walks over them that need no packet. */
#include "decode/flow_priv.h"

/* ---- code and the instruction cache ---- */

enum fwpt_status fwpt_flow_i_build_block(struct fwpt_flow *f, uint64_t ip, struct fwpt_flow_block *b,
                                    uint64_t *fail_ip)
{
    uint64_t cur = ip;
    unsigned n = 0;
    enum fwpt_status err = FWPT_OK;
    struct fwpt_insn in;
    in.iclass = FWPT_IC_OTHER;
    b->iclass = FWPT_IC_OTHER;
    b->flags = 0;
    b->target = 0;
    while (n < FWPT_FLOW_BLOCK_INSNS) {
        const uint8_t *bytes = NULL;
        uint8_t tmp[16];
        size_t avail = f->read(f->read_ctx, cur, &bytes);
        if (!avail || !bytes) {
            err = FWPT_E_NOMAP;
            break;
        }
        if (avail < 15) {
            /* the instruction may continue in the next mapped piece */
            size_t have = avail;
            fwpt_memcpy(tmp, bytes, avail);
            while (have < 15) {
                const uint8_t *more = NULL;
                size_t m = f->read(f->read_ctx, cur + have, &more);
                if (!m || !more)
                    break;
                if (m > 15 - have)
                    m = 15 - have;
                fwpt_memcpy(tmp + have, more, m);
                have += m;
            }
            bytes = tmp;
            avail = have;
        }
        err = fwpt_insn_decode(bytes, avail, (enum fwpt_exec_mode)f->mode, &in);
        if (err != FWPT_OK) {
            if (err == FWPT_E_TRUNCATED)
                err = FWPT_E_NOMAP; /* the rest of the instruction is not mapped */
            break;
        }
        b->sizes[n++] = in.size;
        if (in.iclass != FWPT_IC_OTHER) {
            b->iclass = in.iclass;
            if (in.iclass == FWPT_IC_JCC || in.iclass == FWPT_IC_JMP_REL || in.iclass == FWPT_IC_CALL_REL)
                b->target = fwpt_insn_rel_target(&in, cur, (enum fwpt_exec_mode)f->mode);
            if (in.iclass == FWPT_IC_CALL_REL && in.zero_len_call)
                b->flags |= FWPT_FLOW_BF_ZERO_LEN_CALL;
            cur += in.size;
            break;
        }
        cur += in.size;
    }
    if (!n) {
        *fail_ip = cur;
        b->ip = FWPT_FLOW_NO_IP;
        b->mode = FWPT_MODE_UNKNOWN; /* empty, as in fwpt_flow_cache_reset */
        return err;
    }
    b->ninsn = (uint8_t)n;
    b->nbytes = (uint16_t)(cur - ip);
    b->mode = f->mode;
    b->ip = ip;
    return FWPT_OK;
}

/* The class of the instruction at ip (FWPT_IC_COUNT when it cannot be read). */
int fwpt_flow_i_insn_class_at(struct fwpt_flow *f, uint64_t ip)
{
    struct fwpt_flow_block b;
    uint64_t fail;
    if (fwpt_flow_i_build_block(f, ip, &b, &fail) != FWPT_OK)
        return FWPT_IC_COUNT;
    return b.ninsn == 1 ? b.iclass : FWPT_IC_OTHER;
}

/* How many instructions the code from 'from' runs before it meets 'to' (within 64 blocks), along fall-through only
 * (jumps: false), or also along direct jumps and calls (jumps: true, what the walk does without a packet); -1
 * where the code ends or a packet would be needed first. */
static int64_t walk_to(struct fwpt_flow *f, uint64_t from, uint64_t to, bool jumps)
{
    struct fwpt_flow_block b;
    uint64_t fail;
    int64_t n = 0;
    for (unsigned k = 0; k < 64; k++) {
        if (fwpt_flow_i_build_block(f, from, &b, &fail) != FWPT_OK)
            return -1;
        uint64_t a = from;
        for (unsigned i = 0; i < b.ninsn; i++, n++) {
            if (a == to)
                return n;
            a += b.sizes[i];
        }
        if (jumps && (b.iclass == FWPT_IC_JMP_REL || b.iclass == FWPT_IC_CALL_REL))
            from = b.target;
        else if (b.iclass == FWPT_IC_OTHER)
            from = a;
        else
            return -1;
    }
    return -1;
}

/* Does the code run from 'from' to 'to' without a branch (libipt's test for BDM64)? */
bool fwpt_flow_i_reachable(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, false) >= 0; }

/* Does the walk from 'from' meet 'to' without a packet? */
bool fwpt_flow_i_passed_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, true) >= 0; }

/* How many instructions the walk runs from 'from' before it reaches 'to' without a packet; -1: it needs one first. */
int64_t fwpt_flow_i_insns_on_the_way(struct fwpt_flow *f, uint64_t from, uint64_t to) { return walk_to(f, from, to, true); }
