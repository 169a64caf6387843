/* fwpt tests — random programs and one execution of them (see soft_prog.h). */
#include "tests/common/soft_prog.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "decode/insn.h"

enum kind { K_OTHER, K_JCC8, K_JCC32, K_LOOP, K_JMP8, K_JMP32, K_CALL, K_CALL0, K_CALLIND, K_JMPIND,
            K_RET, K_RETIMM, K_NKINDS };

#define FIXED 9     /* variant of the chain call and the guard jcc: target set at shape time */
#define LOOPBACK 10 /* function 0's outer loop: jcc back to the top, taken until the budget is spent */

struct ins {
    uint8_t kind, size, variant;
    uint32_t off;
    int target; /* instruction index (jumps) or function index (direct call) */
};

struct fn {
    struct ins *ins;
    unsigned n;
    uint32_t size;
};

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned rnd(uint64_t *s, unsigned n)
{
    return n ? (unsigned)(rng_next(s) % n) : 0;
}

static const uint8_t other_sizes[4] = {1, 5, 3, 7};

static uint8_t kind_size(unsigned k, unsigned variant)
{
    static const uint8_t sz[K_NKINDS] = {0, 2, 6, 2, 2, 5, 5, 5, 2, 2, 1, 3};
    return k == K_OTHER ? other_sizes[variant] : sz[k];
}

static uint8_t kind_class(unsigned k)
{
    switch (k) {
    case K_JCC8: case K_JCC32: case K_LOOP: return FWPT_IC_JCC;
    case K_JMP8: case K_JMP32: return FWPT_IC_JMP_REL;
    case K_CALL: case K_CALL0: return FWPT_IC_CALL_REL;
    case K_CALLIND: return FWPT_IC_CALL_IND;
    case K_JMPIND: return FWPT_IC_JMP_IND;
    case K_RET: case K_RETIMM: return FWPT_IC_RET;
    default: return FWPT_IC_OTHER;
    }
}

static unsigned pick_kind(uint64_t *s, int can_call)
{
    static const uint8_t weight[K_NKINDS] = {40, 12, 5, 3, 4, 2, 5, 1, 3, 3, 2, 1};
    for (;;) {
        unsigned total = 0;
        for (unsigned k = 0; k < K_NKINDS; k++)
            total += weight[k];
        unsigned r = rnd(s, total), k = 0;
        while (r >= weight[k])
            r -= weight[k++];
        if (!can_call && (k == K_CALL || k == K_CALLIND))
            continue;
        return k;
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int in_rel8(int64_t d)
{
    return d >= -128 && d <= 127;
}

static int build_once(const struct soft_prog_cfg *cfg, uint64_t seed, struct soft_prog *p)
{
    uint64_t s = seed;
    unsigned nf = cfg->nfuncs < 2 ? 2 : cfg->nfuncs;
    struct fn *F = calloc(nf, sizeof *F);
    p->funcs = calloc(nf, sizeof *p->funcs);
    p->nfuncs = nf;
    if (!F || !p->funcs)
        return -1;
    /* 1. shapes: [call next (chain)], guard "jcc -> final ret", body, ret */
    for (unsigned i = 0; i < nf; i++) {
        int can_call = i + 1 < nf;
        unsigned n = 4 + rnd(&s, 36);
        F[i].n = n;
        F[i].ins = calloc(n, sizeof *F[i].ins);
        if (!F[i].ins)
            return -1;
        unsigned k = 0;
        if (cfg->chain && can_call)
            F[i].ins[k++] = (struct ins){.kind = K_CALL, .variant = FIXED, .target = (int)i + 1};
        if (i) /* the guard; function 0 ends through its outer loop instead */
            F[i].ins[k++] = (struct ins){.kind = K_JCC32, .variant = FIXED, .target = (int)n - 1};
        for (; k < n - 1; k++) {
            struct ins *in = &F[i].ins[k];
            in->kind = (uint8_t)pick_kind(&s, can_call);
            if (i == 0 && (in->kind == K_RET || in->kind == K_RETIMM))
                in->kind = K_OTHER; /* function 0 returns only at its end */
            in->variant = (uint8_t)rnd(&s, 4);
        }
        F[i].ins[n - 1] = (struct ins){.kind = (uint8_t)(rnd(&s, 4) ? K_RET : K_RETIMM)};
        if (i == 0) /* n >= 4: the loop sits after the guard (and the chain call) */
            F[0].ins[n - 2] = (struct ins){.kind = K_JCC32, .variant = LOOPBACK, .target = cfg->chain ? 1 : 0};
        uint32_t off = 0;
        for (k = 0; k < n; k++) {
            F[i].ins[k].off = off;
            F[i].ins[k].size = kind_size(F[i].ins[k].kind, F[i].ins[k].variant);
            off += F[i].ins[k].size;
        }
        F[i].size = off;
    }
    /* 2. placement: sparse, increasing, 16-byte aligned */
    uint64_t addr = cfg->base, gapmax = cfg->spread / nf;
    for (unsigned i = 0; i < nf; i++) {
        p->funcs[i].addr = addr;
        p->funcs[i].size = F[i].size;
        p->funcs[i].code = malloc(F[i].size);
        if (!p->funcs[i].code)
            return -1;
        addr += F[i].size + 16 + (gapmax ? rng_next(&s) % gapmax : 0);
        addr &= ~15ull;
    }
    p->caller_ret = cfg->base - 0x1000 + 5;
    /* 3. targets and bytes */
    for (unsigned i = 0; i < nf; i++) {
        struct fn *f = &F[i];
        uint8_t *c = p->funcs[i].code;
        unsigned lim = i == 0 ? f->n - 1 : f->n; /* jumps in function 0 stay inside its outer loop */
        for (unsigned k = 0; k < f->n; k++) {
            struct ins *in = &f->ins[k];
            uint8_t *b = c + in->off;
            int64_t from = (int64_t)(in->off + in->size);
            switch (in->kind) {
            case K_OTHER:
                if (in->variant == 0) {
                    b[0] = 0x90;
                } else if (in->variant == 1) {
                    b[0] = 0xb8, put32(b + 1, (uint32_t)rng_next(&s));
                } else if (in->variant == 2) {
                    b[0] = 0x48, b[1] = 0x01, b[2] = 0xd8;
                } else {
                    b[0] = 0x48, b[1] = 0x8d, b[2] = 0x05, put32(b + 3, (uint32_t)rng_next(&s));
                }
                break;
            case K_JCC8:
            case K_LOOP:
            case K_JMP8: {
                unsigned cand[64], nc = 0;
                for (unsigned j = (in->kind == K_JMP8 ? k + 1 : 0); j < lim && nc < 64; j++)
                    if (in_rel8((int64_t)f->ins[j].off - from))
                        cand[nc++] = j;
                in->target = nc ? (int)cand[rnd(&s, nc)] : (int)k + 1;
                int64_t d = (int64_t)f->ins[in->target].off - from;
                b[0] = in->kind == K_JCC8 ? (uint8_t)(0x70 + rnd(&s, 16))
                     : in->kind == K_LOOP ? (uint8_t)(0xe0 + rnd(&s, 4)) : 0xeb;
                b[1] = (uint8_t)(int8_t)d;
                break;
            }
            case K_JCC32:
            case K_JMP32:
                if (in->variant != FIXED && in->variant != LOOPBACK)
                    in->target = in->kind == K_JMP32 ? (int)(k + 1 + rnd(&s, lim - k - 1)) : (int)rnd(&s, lim);
                if (in->kind == K_JCC32)
                    b[0] = 0x0f, b[1] = (uint8_t)(0x80 + rnd(&s, 16)), put32(b + 2, (uint32_t)((int64_t)f->ins[in->target].off - from));
                else
                    b[0] = 0xe9, put32(b + 1, (uint32_t)((int64_t)f->ins[in->target].off - from));
                break;
            case K_CALL: {
                if (in->variant != FIXED)
                    in->target = (int)(i + 1 + rnd(&s, nf - i - 1));
                int64_t d = (int64_t)(p->funcs[in->target].addr - (p->funcs[i].addr + (uint64_t)from));
                b[0] = 0xe8, put32(b + 1, (uint32_t)d);
                break;
            }
            case K_CALL0:
                b[0] = 0xe8, put32(b + 1, 0);
                break;
            case K_CALLIND:
                b[0] = 0xff, b[1] = (uint8_t)(rnd(&s, 2) ? 0xd0 : 0xd3);
                break;
            case K_JMPIND:
                b[0] = 0xff, b[1] = 0xe0;
                break;
            case K_RET:
                b[0] = 0xc3;
                break;
            case K_RETIMM:
                b[0] = 0xc2, b[1] = 0x08, b[2] = 0x00;
                break;
            }
        }
    }
    /* 4. the walk */
    size_t cap = cfg->budget * 4 + 100000, n = 0;
    p->flow = malloc(cap * sizeof *p->flow);
    struct { unsigned f, k; } *stack = malloc((nf + 2) * sizeof *stack);
    if (!p->flow || !stack)
        return -1;
    unsigned depth = 0, fi = 0, k = 0;
    uint64_t time = 1000 + rnd(&s, 1000);
    for (;;) {
        if (n == cap) {
            free(stack);
            return 1; /* too long: caller retries with another seed */
        }
        struct fn *f = &F[fi];
        struct ins *in = &f->ins[k];
        struct fwpt_soft_insn *r = &p->flow[n++];
        memset(r, 0, sizeof *r);
        r->ip = p->funcs[fi].addr + in->off;
        r->size = in->size;
        r->iclass = kind_class(in->kind);
        r->time = time;
        time += 1 + rnd(&s, 40);
        int late = n >= cfg->budget;
        unsigned nfi = fi, nk = k + 1;
        switch (in->kind) {
        case K_JCC8: case K_JCC32: case K_LOOP: {
            /* Before the budget: loops go round (3 in 4) and the guard rarely returns early
             * (1 in 16), so executions are long; after it, everything runs forward to a RET. */
            int backward = in->target <= (int)k;
            int taken = in->variant == LOOPBACK ? !late
                      : backward ? (!late && rnd(&s, 4) != 0)
                      : in->variant == FIXED ? (late || rnd(&s, 16) == 0)
                      : (late ? 1 : (int)rnd(&s, 2));
            if (taken)
                nk = (unsigned)in->target;
            break;
        }
        case K_JMP8: case K_JMP32:
            nk = (unsigned)in->target;
            break;
        case K_CALL: case K_CALLIND:
            stack[depth].f = fi, stack[depth].k = k + 1;
            depth++;
            nfi = in->kind == K_CALL ? (unsigned)in->target : fi + 1 + rnd(&s, nf - fi - 1);
            nk = 0;
            break;
        case K_CALL0:
            r->zero_len_call = 1;
            break;
        case K_JMPIND:
            nk = k + 1 + rnd(&s, (fi == 0 ? f->n - 1 : f->n) - k - 1);
            break;
        case K_RET: case K_RETIMM:
            if (!depth) {
                r->next_ip = p->caller_ret;
                r->leaves = 1;
                p->nflow = n;
                free(stack);
                for (unsigned i = 0; i < nf; i++)
                    free(F[i].ins);
                free(F);
                return 0;
            }
            depth--;
            nfi = stack[depth].f, nk = stack[depth].k;
            if (cfg->ret_clobber && rnd(&s, 8) == 0)
                nk += rnd(&s, F[nfi].n - nk);
            break;
        default:
            break;
        }
        fi = nfi, k = nk;
        r->next_ip = p->funcs[fi].addr + F[fi].ins[k].off;
    }
}

void soft_prog_free(struct soft_prog *p)
{
    if (p->funcs)
        for (unsigned i = 0; i < p->nfuncs; i++)
            free(p->funcs[i].code);
    free(p->funcs);
    free(p->flow);
    memset(p, 0, sizeof *p);
}

int soft_prog_build(const struct soft_prog_cfg *cfg, struct soft_prog *p)
{
    for (uint64_t attempt = 0; attempt < 16; attempt++) {
        memset(p, 0, sizeof *p);
        int r = build_once(cfg, cfg->seed * 1000003u + attempt, p);
        if (r == 0)
            return 0;
        soft_prog_free(p);
        if (r < 0)
            return -1;
    }
    return -1;
}

size_t soft_prog_read(const struct soft_prog *p, uint64_t ip, uint8_t *buf, size_t n)
{
    for (unsigned i = 0; i < p->nfuncs; i++) {
        const struct soft_prog_func *f = &p->funcs[i];
        if (ip >= f->addr && ip < f->addr + f->size) {
            size_t avail = (size_t)(f->addr + f->size - ip);
            if (n > avail)
                n = avail;
            memcpy(buf, f->code + (ip - f->addr), n);
            return n;
        }
    }
    return 0;
}

int soft_prog_ipt_read(uint8_t *buf, size_t n, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
    (void)asid;
    size_t got = soft_prog_read(ctx, ip, buf, n);
    return got ? (int)got : -pte_nomap;
}
