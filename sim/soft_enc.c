/* fwpt — software packet generation (see sim/soft_enc.h). Packet encodings: SDM Vol. 3C
 * "Packet Definitions"; IP compression: Table "FUP/TIP IP Reconstruction". */
#include "sim/soft_enc.h"
#include "base/text.h"
#include "decode/insn.h"
#include "decode/packet.h"

/* Packet opcodes (first byte, or second after the 02h extended escape). */
#define PKT_PAD 0x00u
#define PKT_TIP_PGD 0x01u
#define PKT_TIP 0x0du
#define PKT_TIP_PGE 0x11u
#define PKT_TSC 0x19u
#define PKT_FUP 0x1du
#define PKT_MTC 0x59u
#define PKT_MODE 0x99u
#define PKT_EXT 0x02u
#define PKT_EXT_PSB 0x82u
#define PKT_EXT_PSBEND 0x23u
#define PKT_EXT_TMA 0x73u
#define PKT_EXT_TRACESTOP 0x83u
#define PKT_CYC 0x03u          /* low 2 bits 11b */
#define PKT_CYC_EXP 0x04u
#define PKT_TNT_MAX_BITS 6u    /* short TNT: up to 6 branches */
#define MODE_EXEC_CSL 0x01u    /* MODE.Exec payload: CS.L (64-bit code) */
#define PSB_PAIRS 8u           /* PSB: 02 82 repeated 8 times */

static int range_cfg(const struct fwpt_soft_enc_config *cfg, unsigned n)
{
    return (int)FWPT_GET(RTIT_CTL_ADDRn_CFG(n), cfg->ctl);
}

int fwpt_soft_enc_filter_en(const struct fwpt_soft_enc_config *cfg, uint64_t ip)
{
    /* ContextEn: CPL 0 traced with OS, CPL > 0 with User. */
    if (!(cfg->ctl & (cfg->cpl == 0 ? RTIT_CTL_OS : RTIT_CTL_USER)))
        return 0;
    /* FilterEn: with no filter range configured, always 1; else IP inside one of them. */
    int any = 0;
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++) {
        if (range_cfg(cfg, n) != RTIT_ADDR_CFG_FILTER)
            continue;
        any = 1;
        if (ip >= cfg->addr_a[n] && ip <= cfg->addr_b[n])
            return 1;
    }
    return !any;
}

int fwpt_soft_enc_in_tracestop(const struct fwpt_soft_enc_config *cfg, uint64_t ip)
{
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++)
        if (range_cfg(cfg, n) == RTIT_ADDR_CFG_TRACESTOP && ip >= cfg->addr_a[n] && ip <= cfg->addr_b[n])
            return 1;
    return 0;
}

static void out(struct fwpt_soft_enc *e, const uint8_t *b, size_t n)
{
    if (e->status != FWPT_OK)
        return;
    e->status = e->emit(e->emit_ctx, b, n);
    e->counts.bytes += n;
    e->bytes_since_psb += n;
}

/* CYC before a CYC-eligible packet: core clocks since the last CYC, when at least the threshold
 * 2^(CycThresh-1) has passed (SDM "Cycle Count Packet", CycThresh). */
static void cyc(struct fwpt_soft_enc *e, uint64_t time)
{
    if (!(e->cfg.ctl & RTIT_CTL_CYCEN) || time <= e->last_cyc_time)
        return;
    uint64_t v = time - e->last_cyc_time;
    unsigned thresh = (unsigned)FWPT_GET(RTIT_CTL_CYCTHRESH, e->cfg.ctl);
    if (thresh && v < (1ull << (thresh - 1)))
        return;
    uint8_t b[12];
    size_t n = 0;
    b[n] = (uint8_t)(PKT_CYC | ((v & 0x1f) << 3));
    v >>= 5;
    if (v)
        b[n] |= PKT_CYC_EXP;
    n++;
    while (v) {
        b[n] = (uint8_t)((v & 0x7f) << 1);
        v >>= 7;
        if (v)
            b[n] |= 1; /* Exp: another byte follows */
        n++;
    }
    out(e, b, n);
    e->counts.cyc++;
    e->last_cyc_time = time;
}

static void flush_tnt(struct fwpt_soft_enc *e)
{
    if (!e->tnt_count)
        return;
    cyc(e, e->tnt_time);
    /* Short TNT: stop bit above the oldest branch, bit 0 = 0. */
    uint8_t b = (uint8_t)(((1u << e->tnt_count) | e->tnt_bits) << 1);
    out(e, &b, 1);
    e->counts.tnt++;
    e->tnt_bits = 0;
    e->tnt_count = 0;
}

static void tnt(struct fwpt_soft_enc *e, int taken, uint64_t time)
{
    if (!e->tnt_count)
        e->tnt_time = time;
    e->tnt_bits = (uint8_t)((e->tnt_bits << 1) | (taken ? 1 : 0));
    e->tnt_count++;
    e->counts.tnt_bits++;
    if (e->tnt_count == PKT_TNT_MAX_BITS)
        flush_tnt(e);
}

static uint64_t sext48(uint64_t ip)
{
    return (ip & FWPT_BIT(47)) ? (ip | FWPT_FIELD(63, 48)) : (ip & FWPT_FIELD(47, 0));
}

/* IP packet with the shortest IPBytes encoding against Last IP (SDM Table "FUP/TIP IP
 * Reconstruction"); suppressed = IPBytes 000b (Last IP unchanged). */
static void ip_packet(struct fwpt_soft_enc *e, uint8_t opcode, uint64_t ip, int suppressed, uint64_t time)
{
    flush_tnt(e);
    cyc(e, time);
    uint8_t b[9];
    unsigned ipc, len;
    if (suppressed) {
        ipc = 0, len = 0;
    } else {
        uint64_t diff = ip ^ e->last_ip;
        if (!(diff >> 16))
            ipc = 1, len = 2;
        else if (!(diff >> 32))
            ipc = 2, len = 4;
        else if (sext48(ip) == ip)
            ipc = 3, len = 6;
        else if (!(diff >> 48))
            ipc = 4, len = 6;
        else
            ipc = 6, len = 8;
        e->last_ip = ip;
    }
    b[0] = (uint8_t)(opcode | (ipc << 5));
    for (unsigned i = 0; i < len; i++)
        b[1 + i] = (uint8_t)(ip >> (8 * i));
    out(e, b, 1 + len);
}

static void mode_exec(struct fwpt_soft_enc *e)
{
    uint8_t b[2] = {PKT_MODE, MODE_EXEC_CSL};
    out(e, b, 2);
    e->counts.mode++;
}

static void tsc(struct fwpt_soft_enc *e, uint64_t time)
{
    uint8_t b[8];
    b[0] = PKT_TSC;
    for (unsigned i = 0; i < 7; i++)
        b[1 + i] = (uint8_t)(time >> (8 * i));
    out(e, b, 8);
    e->counts.tsc++;
}

static uint64_t ctc_of(const struct fwpt_soft_enc *e, uint64_t time)
{
    return time / (e->cfg.tsc_per_ctc ? e->cfg.tsc_per_ctc : 1);
}

static void tma(struct fwpt_soft_enc *e, uint64_t time)
{
    uint64_t ctc = ctc_of(e, time);
    /* TMA: CTC[15:0], reserved byte, FastCounter[7:0], FastCounter[8] (0: TSC and CTC aligned here). */
    uint8_t b[7] = {PKT_EXT, PKT_EXT_TMA, (uint8_t)ctc, (uint8_t)(ctc >> 8), 0, 0, 0};
    out(e, b, 7);
    e->counts.tma++;
}

/* MTC each time CTC crosses a 2^MTCFreq boundary; payload CTC[N+7:N] (SDM "Mini Time Counter"). */
static void mtc(struct fwpt_soft_enc *e, uint64_t time)
{
    if (!(e->cfg.ctl & RTIT_CTL_MTCEN))
        return;
    unsigned n = (unsigned)FWPT_GET(RTIT_CTL_MTCFREQ, e->cfg.ctl);
    uint64_t ctc = ctc_of(e, time);
    if ((ctc >> n) == (e->last_ctc >> n))
        return;
    e->last_ctc = ctc;
    uint8_t b[2] = {PKT_MTC, (uint8_t)(ctc >> n)};
    out(e, b, 2);
    e->counts.mtc++;
}

static void retstack_clear(struct fwpt_soft_enc *e)
{
    e->ret_top = 0;
    e->ret_count = 0;
}

static void retstack_push(struct fwpt_soft_enc *e, uint64_t ip)
{
    /* Full: the oldest entry falls off (the stack is a ring of 64). */
    e->ret_top = (e->ret_top + 1) % FWPT_SOFT_RETSTACK;
    e->retstack[e->ret_top] = ip;
    if (e->ret_count < FWPT_SOFT_RETSTACK)
        e->ret_count++;
}

/* PSB+: PSB, TSC/TMA when on, MODE.Exec and FUP(ip) when PacketEn, PSBEND. Last IP resets and no
 * RET is compressed across a PSB. */
static void psb_plus(struct fwpt_soft_enc *e, uint64_t ip, int packet_en, uint64_t time)
{
    flush_tnt(e);
    e->bytes_since_psb = 0;
    uint8_t psb[2 * PSB_PAIRS];
    for (unsigned i = 0; i < PSB_PAIRS; i++)
        psb[2 * i] = PKT_EXT, psb[2 * i + 1] = PKT_EXT_PSB;
    out(e, psb, sizeof psb);
    e->counts.psb++;
    e->last_ip = 0;
    retstack_clear(e);
    if (e->cfg.ctl & RTIT_CTL_TSCEN) {
        tsc(e, time);
        if (e->cfg.ctl & RTIT_CTL_MTCEN)
            tma(e, time);
    }
    if (packet_en) {
        mode_exec(e);
        /* FUP in PSB+ carries the IP of the next instruction; no CYC inside PSB+. */
        uint64_t saved = e->cfg.ctl;
        e->cfg.ctl &= ~RTIT_CTL_CYCEN;
        ip_packet(e, PKT_FUP, ip, 0, time);
        e->cfg.ctl = saved;
        e->counts.fup++;
    }
    uint8_t end[2] = {PKT_EXT, PKT_EXT_PSBEND};
    out(e, end, 2);
}

static void tracestop(struct fwpt_soft_enc *e)
{
    uint8_t b[2] = {PKT_EXT, PKT_EXT_TRACESTOP};
    out(e, b, 2);
    e->counts.tracestop++;
    e->trigger_en = 0;
    e->packet_en = 0;
}

void fwpt_soft_enc_init(struct fwpt_soft_enc *e, const struct fwpt_soft_enc_config *cfg,
                        fwpt_soft_emit_fn emit, void *emit_ctx)
{
    fwpt_memset(e, 0, sizeof *e);
    e->cfg = *cfg;
    e->emit = emit;
    e->emit_ctx = emit_ctx;
    e->status = FWPT_OK;
    /* PSBFreq: a PSB after every 2^(PSBFreq+11) bytes of output (SDM IA32_RTIT_CTL.PSBFreq). */
    e->psb_period = 1ull << (FWPT_GET(RTIT_CTL_PSBFREQ, cfg->ctl) + 11);
}

enum fwpt_status fwpt_soft_enc_start(struct fwpt_soft_enc *e, uint64_t ip, uint64_t time)
{
    if (e->status != FWPT_OK)
        return e->status;
    e->started = 1;
    e->trigger_en = 1;
    e->last_cyc_time = time;
    e->last_ctc = ctc_of(e, time);
    psb_plus(e, ip, 0, time);
    if (fwpt_soft_enc_in_tracestop(&e->cfg, ip)) {
        tracestop(e);
        return e->status;
    }
    e->packet_en = fwpt_soft_enc_filter_en(&e->cfg, ip);
    if (e->packet_en) {
        mode_exec(e);
        ip_packet(e, PKT_TIP_PGE, ip, 0, time);
        e->counts.tip_pge++;
    }
    return e->status;
}

/* PacketEn 1->0 with the next instruction at ip: TIP.PGD(ip), after FUP(ip) when not at a branch. */
static void disable(struct fwpt_soft_enc *e, uint64_t ip, int async, uint64_t time)
{
    if (async) {
        ip_packet(e, PKT_FUP, ip, 0, time);
        e->counts.fup++;
    }
    ip_packet(e, PKT_TIP_PGD, ip, 0, time);
    e->counts.tip_pgd++;
    retstack_clear(e);
    e->packet_en = 0;
}

enum fwpt_status fwpt_soft_enc_step(struct fwpt_soft_enc *e, const struct fwpt_soft_insn *in)
{
    if (e->status != FWPT_OK || !e->trigger_en)
        return e->status;
    int cur = fwpt_soft_enc_filter_en(&e->cfg, in->ip);
    /* PSB+ goes out at the first instruction boundary after PSBFreq bytes. */
    if (e->bytes_since_psb >= e->psb_period)
        psb_plus(e, in->ip, cur, in->time);
    mtc(e, in->time);
    int stop = !in->leaves && fwpt_soft_enc_in_tracestop(&e->cfg, in->next_ip);
    int next = !in->leaves && !stop && fwpt_soft_enc_filter_en(&e->cfg, in->next_ip);
    if (!cur) {
        /* PacketEn 0->1: MODE.Exec, TIP.PGE with the first traced IP. */
        if (next) {
            mode_exec(e);
            ip_packet(e, PKT_TIP_PGE, in->next_ip, 0, in->time);
            e->counts.tip_pge++;
        }
        e->packet_en = next;
        if (stop)
            tracestop(e);
        return e->status;
    }
    if (!next) {
        /* PacketEn 1->0 on this instruction: TIP.PGD with the target IP replaces its TNT/TIP
         * (SDM "Filtering by IP": FilterEn clear sends TIP.PGD with the target IP). */
        /* not at a branch, the disable is asynchronous: FUP(where it happens) + TIP.PGD */
        disable(e, in->next_ip, in->iclass == FWPT_IC_OTHER || in->iclass == FWPT_IC_PTWRITE, in->time);
        if (stop)
            tracestop(e);
        return e->status;
    }
    e->packet_en = 1;
    if (!(e->cfg.ctl & RTIT_CTL_BRANCHEN))
        return e->status;
    uint64_t fall = in->ip + in->size;
    switch (in->iclass) {
    case FWPT_IC_JCC:
        tnt(e, in->next_ip != fall, in->time);
        break;
    case FWPT_IC_CALL_REL:
        if (!in->zero_len_call)
            retstack_push(e, fall);
        break;
    case FWPT_IC_CALL_IND:
        retstack_push(e, fall);
        ip_packet(e, PKT_TIP, in->next_ip, 0, in->time);
        e->counts.tip++;
        break;
    case FWPT_IC_RET:
        if (!(e->cfg.ctl & RTIT_CTL_DISRETC) && e->ret_count && e->retstack[e->ret_top] == in->next_ip) {
            /* Compressed RET: a taken TNT bit, no TIP, Last IP unchanged. */
            e->ret_top = (e->ret_top + FWPT_SOFT_RETSTACK - 1) % FWPT_SOFT_RETSTACK;
            e->ret_count--;
            e->counts.ret_compressed++;
            tnt(e, 1, in->time);
        } else {
            /* Uncompressed: forget the stack so a later compressed RET only ever pops entries
             * pushed after this point (consistent with decoders that pop or keep here). */
            retstack_clear(e);
            ip_packet(e, PKT_TIP, in->next_ip, 0, in->time);
            e->counts.tip++;
        }
        break;
    case FWPT_IC_INT:
        /* Software interrupt: FUP (source) + TIP (handler). */
        ip_packet(e, PKT_FUP, in->ip, 0, in->time);
        e->counts.fup++;
        ip_packet(e, PKT_TIP, in->next_ip, 0, in->time);
        e->counts.tip++;
        break;
    case FWPT_IC_JMP_IND:
    case FWPT_IC_FAR_JMP:
    case FWPT_IC_FAR_CALL:
    case FWPT_IC_FAR_RET:
    case FWPT_IC_IRET:
    case FWPT_IC_SYSCALL:
    case FWPT_IC_SYSRET:
    case FWPT_IC_SYSENTER:
    case FWPT_IC_SYSEXIT:
    case FWPT_IC_VMENTRY:
        ip_packet(e, PKT_TIP, in->next_ip, 0, in->time);
        e->counts.tip++;
        break;
    default:
        break; /* OTHER, JMP_REL, PTWRITE: no packet */
    }
    return e->status;
}

enum fwpt_status fwpt_soft_enc_end_at(struct fwpt_soft_enc *e, uint64_t ip, uint64_t time)
{
    if (e->status == FWPT_OK && e->trigger_en && e->packet_en)
        disable(e, ip, 1, time);
    return e->status;
}

enum fwpt_status fwpt_soft_enc_stop(struct fwpt_soft_enc *e, uint64_t time)
{
    if (e->status != FWPT_OK || !e->trigger_en)
        return e->status;
    if (e->packet_en) {
        /* WRMSR clearing TraceEn: TIP.PGD without an IP. */
        ip_packet(e, PKT_TIP_PGD, 0, 1, time);
        e->counts.tip_pgd++;
    }
    flush_tnt(e);
    e->trigger_en = 0;
    e->packet_en = 0;
    return e->status;
}

int fwpt_soft_enc_triggered(const struct fwpt_soft_enc *e)
{
    return e->trigger_en;
}

/* ---- packet by packet (SDM Vol. 3C "Packet Definitions") ---- */

static void le(uint8_t *b, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* The TNT payload: B1 (the oldest, bit 0 of bits) highest, the stop bit above it (SDM "TNT Packet"). */
static uint64_t tnt_payload(uint64_t bits, unsigned count)
{
    uint64_t v = 1;
    for (unsigned i = 0; i < count; i++)
        v = (v << 1) | ((bits >> i) & 1);
    return v;
}

static const uint8_t ip_opcode[FWPT_PKT_COUNT] = {
    [FWPT_PKT_TIP] = PKT_TIP, [FWPT_PKT_TIP_PGE] = PKT_TIP_PGE, [FWPT_PKT_TIP_PGD] = PKT_TIP_PGD,
    [FWPT_PKT_FUP] = PKT_FUP,
};

enum fwpt_status fwpt_soft_enc_ip(struct fwpt_soft_enc *e, unsigned type, uint64_t ip)
{
    if (e->status != FWPT_OK)
        return e->status;
    if (type >= FWPT_PKT_COUNT || !ip_opcode[type])
        return FWPT_E_INVAL;
    ip_packet(e, ip_opcode[type], ip, 0, 0);
    return e->status;
}

enum fwpt_status fwpt_soft_enc_packet(struct fwpt_soft_enc *e, const struct fwpt_packet *p)
{
    if (e->status != FWPT_OK)
        return e->status;
    uint8_t b[16];
    size_t n = 0;
    switch (p->type) {
    case FWPT_PKT_PAD: b[n++] = PKT_PAD; break;
    case FWPT_PKT_PSB:
        for (unsigned i = 0; i < PSB_PAIRS; i++)
            b[n++] = PKT_EXT, b[n++] = PKT_EXT_PSB;
        e->last_ip = 0;
        break;
    case FWPT_PKT_PSBEND: b[n++] = PKT_EXT, b[n++] = PKT_EXT_PSBEND; break;
    case FWPT_PKT_TNT_8:
        if (p->tnt.count < 1 || p->tnt.count > PKT_TNT_MAX_BITS)
            return FWPT_E_INVAL;
        b[n++] = (uint8_t)(tnt_payload(p->tnt.bits, p->tnt.count) << 1);
        break;
    case FWPT_PKT_TNT_64:
        if (p->tnt.count < 1 || p->tnt.count > 47)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0xa3;
        le(b + n, tnt_payload(p->tnt.bits, p->tnt.count), 6), n += 6;
        break;
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP: {
        /* SDM Table "FUP/TIP IP Reconstruction": IPBytes 000b none, 001b 2, 010b 4, 011b and 100b 6, 110b 8 */
        static const int8_t bytes[8] = {0, 2, 4, 6, 6, -1, 8, -1};
        unsigned ipc = p->ip.ipc;
        if (ipc > 7 || bytes[ipc] < 0)
            return FWPT_E_INVAL;
        b[n++] = (uint8_t)(ip_opcode[p->type] | ipc << 5);
        le(b + n, p->ip.payload, (unsigned)bytes[ipc]), n += (size_t)bytes[ipc];
        uint64_t pl = p->ip.payload, l = e->last_ip;
        uint64_t ip[8] = {l, (l & ~0xffffull) | (pl & 0xffff), (l & ~0xffffffffull) | (pl & 0xffffffff),
                          sext48(pl & FWPT_FIELD(47, 0)), (l & FWPT_FIELD(63, 48)) | (pl & FWPT_FIELD(47, 0)), 0, pl, 0};
        e->last_ip = ip[ipc];
        break;
    }
    case FWPT_PKT_PIP: {
        uint64_t pl = (p->pip.cr3 >> 5 << 1) | (p->pip.nr ? 1 : 0); /* CR3[51:5] in bits 47:1, NR bit 0 */
        b[n++] = PKT_EXT, b[n++] = 0x43;
        le(b + n, pl, 6), n += 6;
        break;
    }
    case FWPT_PKT_MODE_EXEC:
        b[n++] = PKT_MODE;
        b[n++] = (uint8_t)((p->mode_exec.csl ? 1 : 0) | (p->mode_exec.csd ? 2 : 0) | (p->mode_exec.iflag ? 4 : 0));
        break;
    case FWPT_PKT_MODE_TSX:
        b[n++] = PKT_MODE;
        b[n++] = (uint8_t)(0x20 | (p->mode_tsx.intx ? 1 : 0) | (p->mode_tsx.abrt ? 2 : 0));
        break;
    case FWPT_PKT_STOP: b[n++] = PKT_EXT, b[n++] = PKT_EXT_TRACESTOP; break;
    case FWPT_PKT_CBR: b[n++] = PKT_EXT, b[n++] = 0x03, b[n++] = p->cbr.ratio, b[n++] = 0; break;
    case FWPT_PKT_TSC: b[n++] = PKT_TSC, le(b + n, p->tsc.tsc, 7), n += 7; break;
    case FWPT_PKT_MTC: b[n++] = PKT_MTC, b[n++] = p->mtc.ctc; break;
    case FWPT_PKT_TMA:
        /* CTC[15:0], a reserved byte, FastCounter[7:0], FastCounter[8] */
        b[n++] = PKT_EXT, b[n++] = PKT_EXT_TMA;
        le(b + n, p->tma.ctc, 2), n += 2;
        b[n++] = 0;
        le(b + n, p->tma.fc & 0x1ff, 2), n += 2;
        break;
    case FWPT_PKT_CYC: {
        uint64_t v = p->cyc.value;
        b[n] = (uint8_t)(PKT_CYC | ((v & 0x1f) << 3));
        v >>= 5;
        if (v)
            b[n] |= PKT_CYC_EXP;
        n++;
        for (; v; v >>= 7)
            b[n++] = (uint8_t)(((v & 0x7f) << 1) | (v >> 7 ? 1 : 0)); /* Exp: another byte follows */
        break;
    }
    case FWPT_PKT_VMCS:
        b[n++] = PKT_EXT, b[n++] = 0xc8;
        le(b + n, p->vmcs.base >> 12, 5), n += 5;
        break;
    case FWPT_PKT_OVF: b[n++] = PKT_EXT, b[n++] = 0xf3; break;
    case FWPT_PKT_MNT:
        b[n++] = PKT_EXT, b[n++] = 0xc3, b[n++] = 0x88;
        le(b + n, p->mnt.payload, 8), n += 8;
        break;
    case FWPT_PKT_PTW:
        /* SDM "PTWRITE Packet": byte 1 [7] IP, [6:5] PayloadBytes (00b 4 bytes, 01b 8 bytes), [4:0] 10010b */
        if (p->ptw.plc > 1)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = (uint8_t)(0x12 | p->ptw.plc << 5 | (p->ptw.ip ? 0x80 : 0));
        le(b + n, p->ptw.payload, p->ptw.plc ? 8 : 4), n += p->ptw.plc ? 8 : 4;
        break;
    case FWPT_PKT_EXSTOP: b[n++] = PKT_EXT, b[n++] = (uint8_t)(0x62 | (p->exstop.ip ? 0x80 : 0)); break;
    case FWPT_PKT_MWAIT:
        b[n++] = PKT_EXT, b[n++] = 0xc2;
        le(b + n, p->mwait.hints, 4), n += 4;
        le(b + n, p->mwait.ext, 4), n += 4;
        break;
    case FWPT_PKT_PWRE:
        /* byte 2 [7] HW; byte 3 [7:4] resolved thread C-state, [3:0] sub C-state */
        if (p->pwre.state > 15 || p->pwre.sub_state > 15)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0x22, b[n++] = p->pwre.hw ? 0x80 : 0;
        b[n++] = (uint8_t)(p->pwre.state << 4 | p->pwre.sub_state);
        break;
    case FWPT_PKT_PWRX:
        /* byte 2 [7:4] last core C-state, [3:0] deepest; byte 3 [3:0] wake reason; bytes 4-6 reserved */
        if (p->pwrx.last > 15 || p->pwrx.deepest > 15 || p->pwrx.wake_reason > 15)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0xa2, b[n++] = (uint8_t)(p->pwrx.last << 4 | p->pwrx.deepest);
        b[n++] = p->pwrx.wake_reason, b[n++] = 0, b[n++] = 0, b[n++] = 0;
        break;
    case FWPT_PKT_BBP:
        if (p->bbp.type > 0x1f)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0x63, b[n++] = (uint8_t)((p->bbp.sz ? 0x80 : 0) | p->bbp.type);
        break;
    case FWPT_PKT_BIP:
        /* ID in header bits 7:3, 100b below; the payload size the BBP before it set */
        if (p->bip.id > 0x1f || (p->bip.bytes != 4 && p->bip.bytes != 8))
            return FWPT_E_INVAL;
        b[n++] = (uint8_t)(p->bip.id << 3 | 0x04);
        le(b + n, p->bip.value, p->bip.bytes), n += p->bip.bytes;
        break;
    case FWPT_PKT_BEP: b[n++] = PKT_EXT, b[n++] = (uint8_t)(0x33 | (p->bep.ip ? 0x80 : 0)); break;
    case FWPT_PKT_CFE:
        /* SDM "Control Flow Event (CFE) Packet": byte 2 [7] IP, [4:0] type; byte 3 vector */
        if (p->cfe.type > 0x1f)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0x13, b[n++] = (uint8_t)((p->cfe.ip ? 0x80 : 0) | p->cfe.type);
        b[n++] = p->cfe.vector;
        break;
    case FWPT_PKT_EVD:
        /* SDM "Event Data (EVD) Packet": byte 2 [5:0] type, bytes 3-10 payload */
        if (p->evd.type > 0x3f)
            return FWPT_E_INVAL;
        b[n++] = PKT_EXT, b[n++] = 0x53, b[n++] = p->evd.type;
        le(b + n, p->evd.payload, 8), n += 8;
        break;
    case FWPT_PKT_TRIG:
        /* SDM "TRIG Packet": D9h; byte 1 [7] IP, [6] ICNTV, [5] MULT; byte 2 TRBV; bytes 3-4 ICNT when ICNTV */
        b[n++] = 0xd9;
        b[n++] = (uint8_t)((p->trig.ip ? 0x80 : 0) | (p->trig.icntv ? 0x40 : 0) | (p->trig.mult ? 0x20 : 0));
        b[n++] = p->trig.trbv;
        if (p->trig.icntv)
            le(b + n, p->trig.icnt, 2), n += 2;
        break;
    default:
        return FWPT_E_INVAL;
    }
    out(e, b, n);
    return e->status;
}
