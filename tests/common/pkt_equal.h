/* Equality of two packets, field by field: every field the packet's type defines (the union's other bytes are
 * unspecified). Header-only: the fuzzers include it without linking tests/common. */
#ifndef FWPT_TESTS_PKT_EQUAL_H
#define FWPT_TESTS_PKT_EQUAL_H

#include "decode/packet.h"

/* The payload: the fields the packet's bytes hold, what an encoder is given (same type assumed). */
static inline int pkt_same_payload(const struct fwpt_packet *a, const struct fwpt_packet *b)
{
    switch (a->type) {
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        return a->ip.ipc == b->ip.ipc && a->ip.payload == b->ip.payload;
    case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: return a->tnt.bits == b->tnt.bits && a->tnt.count == b->tnt.count;
    case FWPT_PKT_PIP: return a->pip.cr3 == b->pip.cr3 && a->pip.nr == b->pip.nr;
    case FWPT_PKT_MODE_EXEC:
        return a->mode_exec.csl == b->mode_exec.csl && a->mode_exec.csd == b->mode_exec.csd &&
               a->mode_exec.iflag == b->mode_exec.iflag;
    case FWPT_PKT_MODE_TSX: return a->mode_tsx.intx == b->mode_tsx.intx && a->mode_tsx.abrt == b->mode_tsx.abrt;
    case FWPT_PKT_TSC: return a->tsc.tsc == b->tsc.tsc;
    case FWPT_PKT_CBR: return a->cbr.ratio == b->cbr.ratio;
    case FWPT_PKT_MTC: return a->mtc.ctc == b->mtc.ctc;
    case FWPT_PKT_TMA: return a->tma.ctc == b->tma.ctc && a->tma.fc == b->tma.fc;
    case FWPT_PKT_CYC: return a->cyc.value == b->cyc.value;
    case FWPT_PKT_VMCS: return a->vmcs.base == b->vmcs.base;
    case FWPT_PKT_MNT: return a->mnt.payload == b->mnt.payload;
    case FWPT_PKT_PTW:
        return a->ptw.payload == b->ptw.payload && a->ptw.bytes == b->ptw.bytes && a->ptw.plc == b->ptw.plc &&
               a->ptw.ip == b->ptw.ip;
    case FWPT_PKT_EXSTOP: return a->exstop.ip == b->exstop.ip;
    case FWPT_PKT_MWAIT: return a->mwait.hints == b->mwait.hints && a->mwait.ext == b->mwait.ext;
    case FWPT_PKT_PWRE:
        return a->pwre.state == b->pwre.state && a->pwre.sub_state == b->pwre.sub_state && a->pwre.hw == b->pwre.hw;
    case FWPT_PKT_PWRX:
        return a->pwrx.last == b->pwrx.last && a->pwrx.deepest == b->pwrx.deepest &&
               a->pwrx.wake_reason == b->pwrx.wake_reason;
    case FWPT_PKT_BBP:
        return a->bbp.type == b->bbp.type && a->bbp.sz == b->bbp.sz && a->bbp.item_bytes == b->bbp.item_bytes;
    case FWPT_PKT_BIP: return a->bip.id == b->bip.id && a->bip.bytes == b->bip.bytes && a->bip.value == b->bip.value;
    case FWPT_PKT_BEP: return a->bep.ip == b->bep.ip;
    case FWPT_PKT_CFE: return a->cfe.type == b->cfe.type && a->cfe.vector == b->cfe.vector && a->cfe.ip == b->cfe.ip;
    case FWPT_PKT_EVD: return a->evd.type == b->evd.type && a->evd.payload == b->evd.payload;
    case FWPT_PKT_TRIG:
        return a->trig.trbv == b->trig.trbv && a->trig.ip == b->trig.ip && a->trig.mult == b->trig.mult &&
               a->trig.icntv == b->trig.icntv && a->trig.icnt == b->trig.icnt;
    default: return 1;
    }
}

/* Field-by-field equality of two decoded packets: type, offset, size, the payload and what the decoder derives
 * from it (the IP an IP packet gives, the execution mode). */
static inline int pkt_same_fields(const struct fwpt_packet *a, const struct fwpt_packet *b)
{
    if (a->type != b->type || a->size != b->size || a->offset != b->offset)
        return 0;
    switch (a->type) {
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        if (a->ip.suppressed != b->ip.suppressed || a->ip.ip != b->ip.ip)
            return 0;
        break;
    case FWPT_PKT_MODE_EXEC:
        if (a->mode_exec.mode != b->mode_exec.mode)
            return 0;
        break;
    default: break;
    }
    return pkt_same_payload(a, b);
}

#endif
