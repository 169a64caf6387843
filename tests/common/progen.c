/* fwpt tests — random program + ground-truth execution + PT stream (see progen.h). */
#include "tests/common/progen.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

enum slot_kind {
    SK_PLAIN, SK_CLOBBER, SK_JCC8, SK_JCC32, SK_LOOP, SK_JRCXZ, SK_JMP8, SK_JMP32, SK_CALL,
    SK_CALLNEXT, SK_JMPIND, SK_CALLIND, SK_RET, SK_RETIMM, SK_IRET,
};

struct slot {
    uint8_t kind, size, variant, taken_pct;
    uint32_t target; /* slot index for direct branches */
    uint64_t addr;
};

/* Instructions without a change of flow, of many lengths and forms (prefixes, REX, ModRM, SIB,
 * displacements, immediates). */
static const struct { uint8_t n; uint8_t b[12]; } plain[] = {
    {1, {0x90}},                                                   /* nop */
    {2, {0x66, 0x90}},                                             /* xchg ax,ax */
    {3, {0x0f, 0x1f, 0x00}},                                       /* nopl (%rax) */
    {4, {0x0f, 0x1f, 0x40, 0x00}},                                 /* nopl 0(%rax) */
    {5, {0x0f, 0x1f, 0x44, 0x00, 0x00}},                           /* nopl 0(%rax,%rax) */
    {6, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}},
    {7, {0x0f, 0x1f, 0x80, 0, 0, 0, 0}},
    {8, {0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0}},
    {9, {0x66, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0}},
    {3, {0x48, 0x89, 0xc3}},                                       /* mov %rax,%rbx */
    {5, {0xb8, 0x78, 0x56, 0x34, 0x12}},                           /* mov $imm32,%eax */
    {10, {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}},                    /* movabs $imm64,%rax */
    {8, {0x48, 0x8d, 0x8c, 0x98, 0x78, 0x56, 0x34, 0x12}},         /* lea disp32(%rax,%rbx,4),%rcx */
    {6, {0x48, 0x05, 0x10, 0x00, 0x00, 0x00}},                     /* add $imm32,%rax */
    {4, {0x48, 0x83, 0xc0, 0x08}},                                 /* add $8,%rax */
    {4, {0x89, 0x44, 0x24, 0x10}},                                 /* mov %eax,0x10(%rsp) */
    {1, {0x50}},                                                   /* push %rax */
    {1, {0x5b}},                                                   /* pop %rbx */
    {2, {0x31, 0xc0}},                                             /* xor %eax,%eax */
    {10, {0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x2a, 0, 0, 0}},     /* movl $42,0x10(%rip) */
    {7, {0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00}},               /* mov 0x1000(%rip),%rax */
    {3, {0x4d, 0x01, 0xc8}},                                       /* add %r9,%r8 */
    {4, {0x48, 0x0f, 0xaf, 0xc1}},                                 /* imul %rcx,%rax */
    {3, {0x48, 0x39, 0xd8}},                                       /* cmp %rbx,%rax */
    {4, {0x48, 0xc1, 0xe0, 0x04}},                                 /* shl $4,%rax */
    {3, {0xf3, 0x48, 0xab}},                                       /* rep stos */
    {12, {0x48, 0xc7, 0x84, 0x24, 0x80, 0, 0, 0, 0x01, 0, 0, 0}},  /* movq $1,0x80(%rsp) */
    {4, {0xc5, 0xf8, 0x28, 0xc1}},                                 /* vmovaps %xmm1,%xmm0 */
};
static uint8_t plain_len(unsigned i) { return plain[i].n; }
#define NPLAIN (sizeof plain / sizeof plain[0])

struct gen {
    uint64_t rng;
    const struct progen_cfg *cfg;
    struct progen *p;
    struct slot *slots;
    size_t nslots, cap_slots;
    uint32_t *fn_first, *fn_last; /* slot ranges [first, last] per function; fn nfuncs = handler */
    unsigned nfuncs;
    int32_t *slot_at;             /* code offset -> slot index or -1 */
    struct pt_encoder *enc;
    size_t trace_cap;
    int fail;
    /* hardware model */
    uint64_t last_ip;
    uint64_t tnt_payload;
    unsigned tnt_count, tnt_limit;
    uint64_t retc[64]; /* RET-compression stack: youngest at retc[(retc_top-1)%64] */
    unsigned retc_top, retc_n;
    /* program state */
    uint64_t *stack;
    size_t sp, stack_cap;
    size_t truth_cap, ev_cap;
    size_t bytes_since_psb, psb_period;
    uint64_t dtargets[32]; /* targets of direct branches executed since the last packet */
    unsigned ndt;
    /* timing (cfg->timing): its own random numbers, so the program and its flow stay the same */
    uint64_t trng;
    uint64_t cyc, cyc_at_cbr, tsc_at_cbr, cyc_at_cyc, mtc_ctc;
    unsigned cbr, in_psb, after_psb;
};

static uint64_t rnd(struct gen *g)
{
    uint64_t x = g->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static unsigned rn(struct gen *g, unsigned n) { return (unsigned)(rnd(g) % n); }
static int chance(struct gen *g, unsigned per_1000) { return rn(g, 1000) < per_1000; }

static struct slot *add_slot(struct gen *g, unsigned kind)
{
    if (g->nslots == g->cap_slots) {
        g->cap_slots = g->cap_slots ? g->cap_slots * 2 : 1024;
        g->slots = realloc(g->slots, g->cap_slots * sizeof *g->slots);
        if (!g->slots) {
            g->fail = 1;
            g->cap_slots = g->nslots = 0;
            return NULL;
        }
    }
    struct slot *s = &g->slots[g->nslots++];
    memset(s, 0, sizeof *s);
    s->kind = (uint8_t)kind;
    return s;
}

static uint8_t kind_size(struct gen *g, struct slot *s)
{
    switch (s->kind) {
    case SK_PLAIN: s->variant = (uint8_t)rn(g, NPLAIN); return plain_len(s->variant);
    case SK_CLOBBER: return 4;
    case SK_JCC8: case SK_LOOP: case SK_JRCXZ: case SK_JMP8: return 2;
    case SK_JCC32: s->variant = (uint8_t)rn(g, 16); return 6;
    case SK_JMP32: case SK_CALL: case SK_CALLNEXT: return 5;
    case SK_JMPIND: case SK_CALLIND: {
        static const uint8_t sz[4] = {2, 3, 7, 6};
        s->variant = (uint8_t)rn(g, 4);
        return sz[s->variant];
    }
    case SK_RET: return 1;
    case SK_RETIMM: return 3;
    case SK_IRET: return 2;
    }
    return 1;
}

/* Generates the slots of one function (or of the interrupt handler). */
static void gen_function(struct gen *g, unsigned f, int handler)
{
    unsigned n = 4 + rn(g, handler ? 8 : g->cfg->extra_plain ? 120 : 40);
    g->fn_first[f] = (uint32_t)g->nslots;
    for (unsigned i = 0; i < n && !g->fail; i++) {
        unsigned r = rn(g, 100), k = SK_PLAIN;
        if (g->cfg->extra_plain && rn(g, 100) < g->cfg->extra_plain)
            r = 0; /* denser straight-line code (longer basic blocks) */
        if (handler) {
            k = r < 20 ? SK_JCC8 : SK_PLAIN;
        } else if (r < 40) {
            k = SK_PLAIN;
        } else if (r < 55) {
            k = SK_JCC8;
        } else if (r < 60) {
            k = SK_JCC32;
        } else if (r < 62) {
            k = SK_LOOP;
        } else if (r < 64) {
            k = SK_JRCXZ;
        } else if (r < 67) {
            k = SK_JMP8;
        } else if (r < 69) {
            k = SK_JMP32;
        } else if (r < 78) {
            k = SK_CALL;
        } else if (r < 80) {
            k = SK_CALLNEXT;
        } else if (r < 84) {
            k = SK_JMPIND;
        } else if (r < 88) {
            k = SK_CALLIND;
        } else if (r < 93) {
            k = SK_RET;
        } else if (r < 95) {
            k = SK_RETIMM;
        } else if (r < 97 && (g->cfg->features & PROGEN_F_RET_CLOBBER)) {
            k = SK_CLOBBER;
        }
        if (k == SK_CALL && f + 1 >= g->nfuncs)
            k = SK_PLAIN; /* direct calls only go to later functions: no packet-free cycles */
        struct slot *s = add_slot(g, k);
        if (!s)
            return;
        s->size = kind_size(g, s);
        if (k == SK_CLOBBER) {
            s = add_slot(g, SK_RET);
            if (s)
                s->size = 1;
        } else if (k == SK_CALLNEXT) {
            s = add_slot(g, SK_PLAIN);
            if (s) {
                s->variant = 17; /* pop %rbx: the pushed address is popped */
                s->size = 1;
            }
        }
    }
    struct slot *s = add_slot(g, handler ? SK_IRET : SK_RET);
    if (s)
        s->size = handler ? 2 : 1;
    g->fn_last[f] = (uint32_t)(g->nslots - 1);
}

static uint32_t clampu(int64_t v, uint32_t lo, uint32_t hi)
{
    return v < (int64_t)lo ? lo : v > (int64_t)hi ? hi : (uint32_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Picks direct-branch targets, lays out addresses and writes the bytes. */
static int layout(struct gen *g)
{
    for (unsigned f = 0; f <= g->nfuncs; f++) {
        uint32_t lo = g->fn_first[f], hi = g->fn_last[f];
        for (uint32_t i = lo; i <= hi; i++) {
            struct slot *s = &g->slots[i];
            switch (s->kind) {
            case SK_JCC8: case SK_LOOP: case SK_JRCXZ:
                /* +-7 slots of at most 12 bytes always fit rel8 */
                s->target = clampu((int64_t)i + (int64_t)rn(g, 15) - 7, lo, hi);
                if (f == g->nfuncs && s->target <= i)
                    s->target = i + 1 <= hi ? i + 1 : hi; /* handler: forward only */
                break;
            case SK_JCC32: s->target = lo + rn(g, hi - lo + 1); break;
            case SK_JMP8: s->target = clampu((int64_t)i + 1 + rn(g, 7), lo, hi); break;
            case SK_JMP32: s->target = i + 1 + rn(g, hi - i); break;
            case SK_CALL: s->target = g->fn_first[f + 1 + rn(g, g->nfuncs - f - 1)]; break;
            default: break;
            }
            /* biased programs: loops mostly iterate, other branches mostly go one way */
            s->taken_pct = (uint8_t)(s->target <= i ? 90 : rn(g, 2) ? 97 : 3);
        }
    }
    size_t size = 0;
    for (size_t i = 0; i < g->nslots; i++) {
        g->slots[i].addr = g->p->base + size;
        size += g->slots[i].size;
    }
    size += 16;
    g->p->code_size = size;
    g->p->code = malloc(size);
    g->slot_at = malloc(size * sizeof *g->slot_at);
    if (!g->p->code || !g->slot_at)
        return -1;
    memset(g->p->code, 0xcc, size);
    for (size_t i = 0; i < size; i++)
        g->slot_at[i] = -1;
    for (size_t i = 0; i < g->nslots; i++) {
        struct slot *s = &g->slots[i];
        size_t off = s->addr - g->p->base;
        uint8_t *b = g->p->code + off;
        g->slot_at[off] = (int32_t)i;
        int64_t rel = (int64_t)g->slots[s->target].addr - (int64_t)(s->addr + s->size);
        switch (s->kind) {
        case SK_PLAIN: memcpy(b, plain[s->variant].b, s->size); break;
        case SK_CLOBBER: memcpy(b, "\x48\x89\x04\x24", 4); break;
        case SK_JCC8: b[0] = (uint8_t)(0x70 + rn(g, 16)); b[1] = (uint8_t)rel; break;
        case SK_JCC32: b[0] = 0x0f; b[1] = (uint8_t)(0x80 + s->variant); put32(b + 2, (uint32_t)rel); break;
        case SK_LOOP: b[0] = (uint8_t)(0xe0 + rn(g, 3)); b[1] = (uint8_t)rel; break;
        case SK_JRCXZ: b[0] = 0xe3; b[1] = (uint8_t)rel; break;
        case SK_JMP8: b[0] = 0xeb; b[1] = (uint8_t)rel; break;
        case SK_JMP32: b[0] = 0xe9; put32(b + 1, (uint32_t)rel); break;
        case SK_CALL: b[0] = 0xe8; put32(b + 1, (uint32_t)rel); break;
        case SK_CALLNEXT: b[0] = 0xe8; put32(b + 1, 0); break;
        case SK_JMPIND: case SK_CALLIND: {
            int call = s->kind == SK_CALLIND;
            switch (s->variant) {
            case 0: b[0] = 0xff; b[1] = call ? 0xd0 : 0xe0; break;               /* *%rax */
            case 1: b[0] = 0x41; b[1] = 0xff; b[2] = call ? 0xd2 : 0xe3; break; /* *%r10 / *%r11 */
            case 2: b[0] = 0xff; b[1] = call ? 0x14 : 0x24; b[2] = 0xc5;         /* *tbl(,%rax,8) */
                put32(b + 3, 0x00601000u); break;
            default: b[0] = 0xff; b[1] = call ? 0x15 : 0x25; put32(b + 2, 0x2000); break; /* *x(%rip) */
            }
            break;
        }
        case SK_RET: b[0] = 0xc3; break;
        case SK_RETIMM: b[0] = 0xc2; b[1] = 0x10; b[2] = 0x00; break;
        case SK_IRET: b[0] = 0x48; b[1] = 0xcf; break;
        }
    }
    return 0;
}

/* ---- packet emission (the processor's side) ---- */

static void emit_raw(struct gen *g, const struct pt_packet *pk);

static unsigned trn(struct gen *g, unsigned n)
{
    uint64_t x = g->trng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->trng = x;
    return (unsigned)((x * 0x2545F4914F6CDD1Dull >> 11) % n);
}

static uint64_t now_tsc(const struct gen *g)
{
    return g->tsc_at_cbr + (g->cyc - g->cyc_at_cbr) * (g->cfg->nom_freq ? g->cfg->nom_freq : 16) / g->cbr;
}
static unsigned ctc_ratio(const struct gen *g) { return g->cfg->ctc_ratio ? g->cfg->ctc_ratio : 4; }

static void emit_tsc(struct gen *g)
{
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    uint64_t tsc = now_tsc(g);
    pk.type = ppt_tsc;
    pk.payload.tsc.tsc = tsc & ((1ull << 56) - 1);
    emit_raw(g, &pk);
    g->p->n_tsc++;
    if (g->cfg->timing & PROGEN_T_MTC) {
        /* TMA: CTC[15:0] at the TSC and the TSC ticks past that crystal clock edge (FastCounter) */
        uint64_t ctc = tsc / ctc_ratio(g);
        memset(&pk, 0, sizeof pk);
        pk.type = ppt_tma;
        pk.payload.tma.ctc = (uint16_t)ctc;
        pk.payload.tma.fc = (uint16_t)(tsc - ctc * ctc_ratio(g));
        emit_raw(g, &pk);
        g->mtc_ctc = ctc;
    }
}

static void emit_cbr(struct gen *g)
{
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.type = ppt_cbr;
    pk.payload.cbr.ratio = (uint8_t)g->cbr;
    emit_raw(g, &pk);
    g->p->n_cbr++;
}

/* The timing packets before a packet of this type (none inside PSB+: psb_plus writes those). */
static void emit_timing(struct gen *g, enum pt_packet_type type)
{
    const unsigned t = g->cfg->timing;
    struct pt_packet pk;
    if (!t || g->in_psb)
        return;
    g->cyc += trn(g, 3); /* time passes between packets too */
    /* a frequency change before a TNT, not right after a PSB+ (libipt gives an event between a FUP and its TIP at
     * once, before the walk reaches the FUP's IP, and one right after a PSB+ once the walk reaches the PSB+'s FUP
     * IP; fwpt gives both where the packet is: a difference of where the event stands, not of time) */
    if ((t & PROGEN_T_CBR) && (type == ppt_tnt_8 || type == ppt_tnt_64) && !g->after_psb && !trn(g, 100)) {
        g->tsc_at_cbr = now_tsc(g);
        g->cyc_at_cbr = g->cyc;
        g->cbr = 1 + trn(g, 40);
        emit_cbr(g);
    }
    if ((t & PROGEN_T_MTC)) {
        uint64_t ctc = now_tsc(g) / ctc_ratio(g);
        unsigned n = g->cfg->mtc_freq;
        if ((ctc >> n) != (g->mtc_ctc >> n)) {
            memset(&pk, 0, sizeof pk);
            pk.type = ppt_mtc;
            pk.payload.mtc.ctc = (uint8_t)(ctc >> n);
            emit_raw(g, &pk);
            g->mtc_ctc = ctc;
            g->p->n_mtc++;
        }
    }
    if ((t & PROGEN_T_TSC) && !trn(g, 200))
        emit_tsc(g);
    int eligible = type == ppt_tnt_8 || type == ppt_tnt_64 || type == ppt_tip || type == ppt_tip_pge ||
                   type == ppt_tip_pgd || type == ppt_fup;
    if ((t & PROGEN_T_CYC) && eligible && g->cyc > g->cyc_at_cyc && trn(g, 4)) {
        memset(&pk, 0, sizeof pk);
        pk.type = ppt_cyc;
        pk.payload.cyc.value = g->cyc - g->cyc_at_cyc;
        emit_raw(g, &pk);
        g->cyc_at_cyc = g->cyc;
        g->p->n_cyc++;
    }
}

static void emit(struct gen *g, const struct pt_packet *pk)
{
    emit_timing(g, pk->type);
    emit_raw(g, pk);
    if (pk->type != ppt_psbend)
        g->after_psb = 0;
}

static void emit_raw(struct gen *g, const struct pt_packet *pk)
{
    if (g->fail)
        return;
    uint64_t off = 0;
    pt_enc_get_offset(g->enc, &off);
    if (off + 64 > g->trace_cap) {
        g->fail = 1;
        return;
    }
    if (pt_enc_next(g->enc, pk) < 0)
        g->fail = 1;
    g->ndt = 0;
    uint64_t off2 = 0;
    pt_enc_get_offset(g->enc, &off2);
    g->bytes_since_psb += off2 - off;
}

static void flush_tnt(struct gen *g)
{
    if (!g->tnt_count)
        return;
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.type = g->tnt_count <= 6 && rn(g, 4) ? ppt_tnt_8 : ppt_tnt_64;
    pk.payload.tnt.bit_size = (uint8_t)g->tnt_count;
    pk.payload.tnt.payload = g->tnt_payload;
    emit(g, &pk);
    g->tnt_count = 0;
    g->tnt_payload = 0;
    g->tnt_limit = rn(g, 3) ? 6 : 1 + rn(g, 47);
}

static void add_tnt(struct gen *g, int taken)
{
    g->tnt_payload = (g->tnt_payload << 1) | (taken ? 1u : 0u); /* oldest bit is the most significant */
    g->tnt_count++;
    g->p->n_tnt_bits++;
    if (g->tnt_count >= g->tnt_limit)
        flush_tnt(g);
}

static uint64_t sext48(uint64_t ip) { return (uint64_t)((int64_t)(ip << 16) >> 16); }

/* IP compression against Last IP (SDM "IP Compression", Table "FUP/TIP IP Reconstruction"): the shortest legal IPBytes, or with
 * PROGEN_F_LOOSE_IPC sometimes a longer legal one. */
/* suppress: 0 compressed, 1 IP suppressed, 2 uncompressed */
static void emit_ip(struct gen *g, enum pt_packet_type type, uint64_t ip, int suppress)
{
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.type = type;
    if (suppress == 1) {
        pk.payload.ip.ipc = pt_ipc_suppressed;
        emit(g, &pk);
        return;
    }
    enum pt_ip_compression c[5];
    unsigned n = 0;
    if (suppress == 2) { /* uncompressed: independent of Last IP */
        pk.payload.ip.ipc = sext48(ip) == ip ? pt_ipc_sext_48 : pt_ipc_full;
        pk.payload.ip.ip = ip;
        emit(g, &pk);
        g->last_ip = ip;
        return;
    }
    if ((g->last_ip >> 16) == (ip >> 16))
        c[n++] = pt_ipc_update_16;
    if ((g->last_ip >> 32) == (ip >> 32))
        c[n++] = pt_ipc_update_32;
    if (sext48(ip) == ip)
        c[n++] = pt_ipc_sext_48;
    if ((g->last_ip >> 48) == (ip >> 48))
        c[n++] = pt_ipc_update_48;
    c[n++] = pt_ipc_full;
    unsigned pick = 0;
    if ((g->cfg->features & PROGEN_F_LOOSE_IPC) && chance(g, 150))
        pick = rn(g, n);
    pk.payload.ip.ipc = c[pick];
    pk.payload.ip.ip = ip;
    emit(g, &pk);
    g->last_ip = ip;
}

static void emit_plain(struct gen *g, enum pt_packet_type type)
{
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.type = type;
    emit(g, &pk);
}

static void emit_mode_exec(struct gen *g)
{
    struct pt_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.type = ppt_mode;
    pk.payload.mode.leaf = pt_mol_exec;
    pk.payload.mode.bits.exec.csl = 1; /* 64-bit code */
    emit(g, &pk);
}

static void retc_clear(struct gen *g) { g->retc_n = 0; }
static void retc_push(struct gen *g, uint64_t ip)
{
    g->retc[g->retc_top % 64] = ip;
    g->retc_top++;
    if (g->retc_n < 64)
        g->retc_n++; /* full: the oldest entry is overwritten */
}

static void add_event(struct gen *g, unsigned kind, int async, uint64_t ip, uint64_t to)
{
    struct progen *p = g->p;
    if (p->nevents == g->ev_cap) {
        g->ev_cap = g->ev_cap ? 2 * g->ev_cap : 256;
        p->events = realloc(p->events, g->ev_cap * sizeof *p->events);
        if (!p->events) {
            g->fail = 1;
            g->ev_cap = p->nevents = 0;
            return;
        }
    }
    struct progen_event *e = &p->events[p->nevents++];
    e->kind = kind;
    e->async = (uint32_t)async;
    e->index = p->ntruth;
    e->ip = ip;
    e->to = to;
}

static void psb_plus(struct gen *g, uint64_t ip, int enabled)
{
    flush_tnt(g);
    emit_plain(g, ppt_psb);
    g->in_psb = 1;
    g->bytes_since_psb = 0;
    g->last_ip = 0; /* SDM "IP Compression": Last IP is reset when a PSB is sent */
    retc_clear(g);  /* SDM "Indirect Transfer Compression for Returns (RET)": no RET compressed across a PSB */
    if (g->cfg->timing & PROGEN_T_TSC)
        emit_tsc(g);
    if (g->cfg->timing & (PROGEN_T_CYC | PROGEN_T_CBR))
        emit_cbr(g);
    emit_mode_exec(g);
    if (enabled)
        emit_ip(g, ppt_fup, ip, 0); /* PSB+ carries the current IP while PacketEn=1 */
    emit_plain(g, ppt_psbend);
    g->in_psb = 0;
    g->after_psb = 1;
    g->p->n_psb++;
}

static uint64_t random_boundary(struct gen *g, int fn_entry)
{
    if (fn_entry)
        return g->slots[g->fn_first[rn(g, g->nfuncs)]].addr;
    uint32_t last = g->fn_last[g->nfuncs - 1];
    return g->slots[rn(g, last + 1)].addr;
}

static int execute(struct gen *g)
{
    struct progen *p = g->p;
    const unsigned feat = g->cfg->features;
    uint64_t ip = g->slots[g->fn_first[0]].addr;
    int enabled = 1, in_handler = 0, just_packet = 0;
    uint64_t iret_to = 0, ret_override = 0;
    int have_override = 0;
    unsigned untraced = 0; /* steps until TIP.PGE when disabled */
    size_t steps = 0, max_steps = g->cfg->max_insns * 4 + 1000;

    /* Start: either PSB+ with FUP (tracing already on) or PSB+ then TIP.PGE. */
    if (rn(g, 2)) {
        psb_plus(g, ip, 1);
    } else {
        psb_plus(g, ip, 0);
        emit_mode_exec(g);
        emit_ip(g, ppt_tip_pge, ip, 0);
        add_event(g, PROGEN_EV_ENABLED, 0, ip, 0);
        p->n_enables++;
    }
    while (!g->fail && steps++ < max_steps) {
        if (enabled && p->ntruth >= g->cfg->max_insns)
            break;
        int32_t si = g->slot_at[ip - p->base];
        if (si < 0)
            return -1; /* generator bug: not an instruction boundary */
        struct slot *s = &g->slots[si];
        int clobber_pending = have_override; /* ret directly after the clobbering mov */

        if (!enabled) {
            if (untraced)
                untraced--;
            else if (!clobber_pending) {
                emit_mode_exec(g);
                emit_ip(g, ppt_tip_pge, ip, 0);
                add_event(g, PROGEN_EV_ENABLED, 0, ip, 0);
                p->n_enables++;
                enabled = 1;
                just_packet = 0;
            }
        } else if (!clobber_pending) {
            /* injected events happen between instructions */
            if ((feat & PROGEN_F_PSB) && g->bytes_since_psb > g->psb_period) {
                psb_plus(g, ip, 1);
            } else if ((feat & PROGEN_F_OVERFLOW) && just_packet && chance(g, 3)) {
                flush_tnt(g);
                /* lost execution while the internal buffer overflowed */
                unsigned lost = 1 + rn(g, 30);
                for (unsigned k = 0; k < lost; k++) {
                    struct slot *t = &g->slots[g->slot_at[ip - p->base]];
                    uint64_t next = t->addr + t->size;
                    int keep_override = 0;
                    switch (t->kind) {
                    case SK_JCC8: case SK_JCC32: case SK_LOOP: case SK_JRCXZ:
                        ip = rn(g, 2) ? g->slots[t->target].addr : next; break;
                    case SK_JMP8: case SK_JMP32: ip = g->slots[t->target].addr; break;
                    case SK_CALL:
                        if (g->sp < g->stack_cap) g->stack[g->sp++] = next;
                        ip = g->slots[t->target].addr; break;
                    case SK_CALLIND:
                        if (g->sp < g->stack_cap) g->stack[g->sp++] = next;
                        ip = random_boundary(g, 1); break;
                    case SK_JMPIND: ip = random_boundary(g, 0); break;
                    case SK_RET: case SK_RETIMM:
                        if (have_override) { ip = ret_override; if (g->sp) g->sp--; }
                        else ip = g->sp ? g->stack[--g->sp] : random_boundary(g, 1);
                        break;
                    case SK_IRET: ip = in_handler ? iret_to : random_boundary(g, 1); in_handler = 0; break;
                    case SK_CLOBBER:
                        ret_override = random_boundary(g, 0); ip = next; keep_override = 1; break;
                    default: ip = next; break;
                    }
                    have_override = keep_override;
                }
                emit_plain(g, ppt_ovf);
                retc_clear(g); /* SDM "Indirect Transfer Compression for Returns (RET)": no RET compressed across an overflow */
                emit_ip(g, ppt_fup, ip, 2); /* sent uncompressed (sext48/full) */ /* resolves while ContextEn=1: FUP (SDM "Overflow (OVF) Packet") */
                add_event(g, PROGEN_EV_OVERFLOW, 0, ip, 0);
                p->n_overflows++;
                just_packet = 0;
                continue;
            } else if ((feat & PROGEN_F_INTERRUPT) && !in_handler && chance(g, 4)) {
                flush_tnt(g);
                uint64_t h = g->slots[g->fn_first[g->nfuncs]].addr;
                emit_ip(g, ppt_fup, ip, 0);
                emit_ip(g, ppt_tip, h, 0);
                add_event(g, PROGEN_EV_INTERRUPT, 1, ip, h);
                p->n_interrupts++;
                in_handler = 1;
                iret_to = ip;
                ip = h;
                just_packet = 0;
                continue;
            } else if ((feat & PROGEN_F_DISABLE) && chance(g, 2)) {
                flush_tnt(g);
                emit_ip(g, ppt_fup, ip, 0);
                emit_ip(g, ppt_tip_pgd, ip, rn(g, 2));
                add_event(g, PROGEN_EV_DISABLED, 1, ip, 0);
                p->n_disables++;
                enabled = 0;
                retc_clear(g); /* SDM "Indirect Transfer Compression for Returns (RET)": no compression for CALLs made while PacketEn=0 */
                untraced = rn(g, 40);
                continue;
            }
        }

        if (g->cfg->timing)
            g->cyc += 1 + trn(g, 6); /* the instruction's core cycles */
        if (enabled && g->cfg->no_truth) {
            p->ntruth++;
        } else if (enabled) {
            if (p->ntruth == g->truth_cap) {
                g->truth_cap = g->truth_cap ? 2 * g->truth_cap : 4096;
                p->truth = realloc(p->truth, g->truth_cap * sizeof *p->truth);
                if (!p->truth)
                    return -1;
            }
            p->truth[p->ntruth].ip = ip;
            p->truth[p->ntruth].size = s->size;
            p->ntruth++;
        }
        just_packet = 0;
        uint64_t next = s->addr + s->size;
        switch (s->kind) {
        case SK_PLAIN:
            ip = next;
            break;
        case SK_CLOBBER:
            have_override = 1;
            ret_override = random_boundary(g, 0);
            ip = next;
            continue; /* keep have_override for the ret */
        case SK_CALLNEXT:
            if (g->ndt < 32)
                g->dtargets[g->ndt] = next;
            g->ndt++;
            p->n_zero_len_calls++;
            ip = next; /* zero-length call: the following pop takes the address; not on the RET stack */
            break;
        case SK_JCC8: case SK_JCC32: case SK_LOOP: case SK_JRCXZ: {
            uint64_t t = g->slots[s->target].addr;
            unsigned pct = g->cfg->biased ? s->taken_pct : t <= s->addr ? 70u : 50u;
            int taken = rn(g, 100) < pct;
            if (enabled) {
                add_tnt(g, taken);
                just_packet = 1;
            }
            ip = taken ? t : next;
            break;
        }
        case SK_JMP8: case SK_JMP32:
            ip = g->slots[s->target].addr;
            if (g->ndt < 32)
                g->dtargets[g->ndt] = ip;
            g->ndt++;
            break;
        case SK_CALL:
            if (g->ndt < 32)
                g->dtargets[g->ndt] = g->slots[s->target].addr;
            g->ndt++;
            if (g->sp < g->stack_cap)
                g->stack[g->sp++] = next;
            if (enabled)
                retc_push(g, next);
            ip = g->slots[s->target].addr;
            break;
        case SK_JMPIND: case SK_CALLIND: {
            uint64_t t = random_boundary(g, s->kind == SK_CALLIND);
            if (s->kind == SK_CALLIND) {
                if (g->sp < g->stack_cap)
                    g->stack[g->sp++] = next;
                if (enabled)
                    retc_push(g, next);
            }
            if (enabled) {
                /* A TIP.PGD with IP binds to the first branch to that IP (a direct branch
                 * to it would have left the range first): only when none was taken. */
                int direct_to_t = g->ndt >= 32;
                for (unsigned k = 0; k < g->ndt && k < 32; k++)
                    direct_to_t |= g->dtargets[k] == t;
                flush_tnt(g);
                if ((feat & PROGEN_F_DISABLE) && !direct_to_t && chance(g, 4)) {
                    /* leaves the traced IP range: TIP.PGD bound to this branch */
                    emit_ip(g, ppt_tip_pgd, t, 0); /* FilterEn cleared: the target IP is included (SDM "TIP.PGD Packet") */
                    add_event(g, PROGEN_EV_DISABLED, 0, 0, 0);
                    p->n_disables++;
                    enabled = 0;
                    retc_clear(g);
                    untraced = rn(g, 40);
                } else {
                    emit_ip(g, ppt_tip, t, 0);
                    p->n_tip++;
                    just_packet = 1;
                }
            }
            ip = t;
            break;
        }
        case SK_RET: case SK_RETIMM: {
            uint64_t t;
            int compressed = 0;
            if (have_override) {
                t = ret_override;
                if (g->sp)
                    g->sp--;
            } else {
                t = g->sp ? g->stack[--g->sp] : random_boundary(g, 1);
            }
            if (enabled) {
                /* SDM "Indirect Transfer Compression for Returns (RET)": compressed when the target is the youngest CALL's next IP */
                if (g->retc_n && g->retc[(g->retc_top - 1) % 64] == t) {
                    compressed = 1;
                    add_tnt(g, 1);
                    p->n_ret_compressed++;
                } else {
                    flush_tnt(g);
                    emit_ip(g, ppt_tip, t, 0);
                    p->n_ret_tip++;
                }
                just_packet = 1;
            }
            /* SDM "Indirect Transfer Compression for Returns (RET)" step 3: every near RET pops the youngest entry */
            if (enabled && !(feat & PROGEN_F_RETC_SDM_POP) && !compressed)
                retc_clear(g);
            if (g->retc_n) {
                g->retc_n--;
                g->retc_top--;
            }
            ip = t;
            break;
        }
        case SK_IRET: {
            uint64_t t = in_handler ? iret_to : random_boundary(g, 1);
            in_handler = 0;
            if (enabled) {
                flush_tnt(g);
                emit_ip(g, ppt_tip, t, 0);
                p->n_tip++;
                just_packet = 1;
            }
            ip = t;
            break;
        }
        }
        have_override = 0;
    }
    /* End: tracing is switched off between two instructions (FUP + TIP.PGD). */
    if (enabled) {
        flush_tnt(g);
        emit_ip(g, ppt_fup, ip, 0);
        emit_ip(g, ppt_tip_pgd, 0, 1);
        add_event(g, PROGEN_EV_DISABLED, 1, ip, 0);
        p->n_disables++;
    }
    return g->fail ? -1 : 0;
}

int progen_build(const struct progen_cfg *cfg, struct progen *out)
{
    struct gen g;
    memset(&g, 0, sizeof g);
    memset(out, 0, sizeof *out);
    g.cfg = cfg;
    g.p = out;
    g.rng = cfg->seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    if (!g.rng)
        g.rng = 1;
    for (int i = 0; i < 4; i++)
        rnd(&g);
    g.nfuncs = cfg->nfuncs ? cfg->nfuncs : 2 + rn(&g, 30);
    g.psb_period = cfg->psb_period ? cfg->psb_period : 64 + rn(&g, 2000);
    g.tnt_limit = 6;
    g.trng = cfg->seed * 0xD1B54A32D192ED03ull + 0x9E3779B9ull;
    if (!g.trng)
        g.trng = 1;
    g.cbr = 1 + trn(&g, 40);
    g.tsc_at_cbr = (uint64_t)trn(&g, 1u << 30) << trn(&g, 20);
    g.mtc_ctc = now_tsc(&g) / ctc_ratio(&g);
    static const uint64_t bases[] = {
        0x400000ull, 0x7f3a12340000ull, 0xffffffff80000000ull, 0x12345678fff0ull, 0xfff0ull,
        0xffff800000000000ull, 0x7ffffffe0000ull,
    };
    out->base = bases[rn(&g, sizeof bases / sizeof bases[0])] + 0x1000ull * rn(&g, 16) + 16 * rn(&g, 200);
    g.fn_first = calloc(g.nfuncs + 1, sizeof *g.fn_first);
    g.fn_last = calloc(g.nfuncs + 1, sizeof *g.fn_last);
    g.stack_cap = 1 << 16;
    g.stack = malloc(g.stack_cap * sizeof *g.stack);
    int rc = -1;
    if (!g.fn_first || !g.fn_last || !g.stack)
        goto done;
    for (unsigned f = 0; f <= g.nfuncs && !g.fail; f++)
        gen_function(&g, f, f == g.nfuncs);
    if (g.fail || layout(&g) < 0)
        goto done;
    struct pt_config pc;
    pt_config_init(&pc);
    g.trace_cap = cfg->max_insns * 6 + 65536;
    out->trace = malloc(g.trace_cap);
    if (!out->trace)
        goto done;
    pc.begin = out->trace;
    pc.end = out->trace + g.trace_cap;
    g.enc = pt_alloc_encoder(&pc);
    if (!g.enc)
        goto done;
    rc = execute(&g);
    uint64_t off = 0;
    pt_enc_get_offset(g.enc, &off);
    out->trace_size = (size_t)off;
    pt_free_encoder(g.enc);
done:
    free(g.fn_first);
    free(g.fn_last);
    free(g.stack);
    free(g.slots);
    free(g.slot_at);
    if (rc)
        progen_free(out);
    return rc;
}

void progen_free(struct progen *p)
{
    free(p->code);
    free(p->trace);
    free(p->truth);
    free(p->events);
    memset(p, 0, sizeof *p);
}
