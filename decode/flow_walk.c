/* fwpt — the flow decoder's walk: fwpt_flow_next_run, the output buffer of fwpt_flow_next and _batch,
 * and their fast paths over cached blocks (fast_resolve, run_resolve, fill_fast). */
#include "decode/flow_priv.h"

/* Resolutions that need no lookahead and create no event: the hot cases (fwpt_flow_i_step with the bits in
 * hand but a packet's last, whose lookahead fwpt_flow_i_resolve() does, and no TIP). */
static inline bool fast_resolve(struct fwpt_flow *f)
{
    const uint32_t cnt = f->tnt_count > 1 ? f->tnt_count : 0;
    const bool pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    switch (fwpt_flow_i_step(f, f->last_class, f->last_flags, f->last_target, f->next_ip, f->tnt_bits, cnt, pgd_peek,
                             false, &f->ip)) {
    case FWPT_FLOW_STEP_NEXT:
        f->resolve_pending = 0;
        return true;
    case FWPT_FLOW_STEP_TNT:
        f->tnt_bits >>= 1;
        f->tnt_count--;
        f->since_packet = 0;
        f->resolve_pending = 0;
        return true;
    default:
        return false;
    }
}

/* How many of b's instructions run before a pending FUP's stop_ip binds inside b: all of them
 * (*full = true) unless stop_ip is the address of one of them. */
static inline uint32_t fup_cut(const struct fwpt_flow *f, const struct fwpt_flow_block *b, bool *full)
{
    uint32_t n = b->ninsn;
    *full = true;
    if (f->fup_pending && f->stop_ip - f->ip < b->nbytes) {
        uint64_t a = f->ip;
        uint32_t k = 0;
        while (k < n && a != f->stop_ip)
            a += b->sizes[k++];
        if (k < n) {
            *full = false;
            return k;
        }
    }
    return n;
}

/* fast_resolve for next_run's hot case, also across TNT packets as fill_fast does: takes the TNT
 * lookahead left in peek, and after a packet's last bit fetches the next one, looking ahead
 * (which may queue events or stop the walk: the caller checks) unless it is a TNT or TIP. */
static inline bool run_resolve(struct fwpt_flow *f)
{
    const uint8_t c = f->last_class;
    if (c != FWPT_IC_JCC && c != FWPT_IC_RET)
        return fast_resolve(f);
    bool took = false;
    if (!f->tnt_count && f->have_peek && is_tnt(f->peek.type) && f->peek.tnt.count) {
        /* take_tnt: the TNT packet lookahead left in peek */
        f->tnt_bits = f->peek.tnt.bits;
        f->tnt_count = f->peek.tnt.count;
        f->have_peek = 0;
        took = true;
    }
    if (!f->tnt_count ||
        fwpt_flow_i_step(f, c, f->last_flags, f->last_target, f->next_ip, f->tnt_bits, f->tnt_count, false, false,
                         &f->ip) != FWPT_FLOW_STEP_TNT)
        return false; /* fwpt_flow_i_resolve() reports it */
    f->tnt_bits >>= 1;
    f->since_packet = 0;
    f->resolve_pending = 0;
    f->tnt_count--;
    if (TIME_ON(f))
        fwpt_flow_i_time_query(f, f->n_insns - 1, took);
    if (f->tnt_count)
        return true;
    /* the packet is used up: look ahead as fwpt_flow_i_resolve() does */
    if (fetch(f) == FWPT_OK &&
        (is_tnt(f->peek.type) || f->peek.type == FWPT_PKT_TIP))
        return true; /* lookahead would stop at once */
    fwpt_flow_i_lookahead(f);
    return true;
}

/* The walk's work before its next block, in order: the rest of a lookahead, the resolution of the last block
 * (the fast rules, else the general one), a TRIG whose instruction count is reached. True when it did one
 * (the caller looks at its loop conditions again). Shared by fwpt_flow_next_run and fill. */
static inline __attribute__((always_inline)) bool walk_pending(struct fwpt_flow *f)
{
    if (f->look_pending) {
        fwpt_flow_i_lookahead(f);
        return true;
    }
    if (f->resolve_pending && !fast_resolve(f)) {
        fwpt_flow_i_resolve(f);
        return true;
    }
    if (f->ntrig && f->trig_q[0].at <= f->n_insns) {
        fwpt_flow_i_trig_due(f, false);
        return true;
    }
    return false;
}

/* The walk's general path at f->ip: the block there (built if it is not cached) and how many of its instructions
 * run now (*n; *full: all of them, else a pending FUP or a TRIG binds before the next one), counted against the
 * runaway limit. NULL when it did something else instead (a pending FUP reached, a block that could not be built,
 * the runaway reported): the caller looks at its loop conditions again. Shared by fwpt_flow_next_run and fill. */
static inline __attribute__((always_inline)) const struct fwpt_flow_block *walk_block(struct fwpt_flow *f, uint32_t *n,
                                                                                     bool *full)
{
    if (f->fup_pending && f->ip == f->stop_ip) {
        fwpt_flow_i_fup_reached(f);
        return NULL;
    }
    enum fwpt_status st;
    const struct fwpt_flow_block *b = get_block(f, f->ip, &st);
    if (!b)
        return NULL;
    /* the asynchronous event (or a TRIG) may bind inside this run: stop before that instruction */
    uint32_t k = fup_cut(f, b, full), nt = trig_cut(f, k);
    if (nt < k) {
        k = nt;
        *full = false;
    }
    f->since_packet += k;
    if (f->since_packet > f->runaway_limit) {
        fwpt_flow_i_error(f, FWPT_E_RUNAWAY, f->ip, fwpt_flow_i_cur_offset(f));
        return NULL;
    }
    *n = k;
    return b;
}

enum fwpt_status fwpt_flow_next_run(struct fwpt_flow *f, struct fwpt_flow_run *run,
                                    struct fwpt_flow_event *ev)
{
    if (f->resolve_pending && !f->evq_n && !f->evq_overrun && !f->fup_pending && !f->look_pending && f->cache && f->state == ST_WALK &&
        run_resolve(f) && !f->evq_n && !f->fup_pending && !f->ntrig && f->state == ST_WALK) {
        /* the hot case first: a cached block after a transfer resolved without packets */
        const struct fwpt_flow_block *b = &f->cache[FLOW_SLOT(f->ip) & f->cache_mask];
        const uint32_t n = b->ninsn;
        if (b->ip == f->ip && b->mode == f->mode && f->since_packet + n <= f->runaway_limit) {
            f->cache_hits++;
            f->since_packet += n;
            f->n_insns += n;
            run->ip = f->ip;
            run->sizes = b->sizes;
            run->n = n;
            run->mode = f->mode;
            f->run_full = 1;
            end_block(f, b, f->ip + b->nbytes);
            ev->kind = FWPT_FLOW_INSN;
            return FWPT_OK;
        }
        /* else the general path below builds the block or reports the runaway */
    }
    run->n = 0;
    for (;;) {
        if (f->evq_n)
            return evq_pop(f, ev);
        if (__builtin_expect(f->evq_overrun, 0))
            return FWPT_E_INTERNAL; /* after every event queued before it */
        if (f->state != ST_WALK) {
            if (f->state == ST_END)
                return FWPT_E_EOS;
            if (f->state == ST_UNSYNCED) {
                if (!fetch_or_end(f))
                    continue;
                if (f->peek.type == FWPT_PKT_PSB)
                    fwpt_flow_i_psb_plus(f);
                else
                    f->state = ST_SEARCH;
                if (f->state == ST_WALK)
                    fwpt_flow_i_lookahead(f);
                continue;
            }
            fwpt_flow_i_search_step(f);
            continue;
        }
        if (walk_pending(f))
            continue;
        uint32_t n;
        bool full;
        const struct fwpt_flow_block *b = walk_block(f, &n, &full);
        if (!b)
            continue;
        f->run_full = full;
        run->ip = f->ip;
        run->sizes = b->sizes;
        run->n = n;
        run->mode = f->mode;
        if (f->run_full) {
            end_block(f, b, f->ip + b->nbytes);
            if (f->cache) {
                /* the next block is one of these: load its entry while the caller reads this run */
                __builtin_prefetch(&f->cache[FLOW_SLOT(b->target) & f->cache_mask]);
                __builtin_prefetch(&f->cache[FLOW_SLOT(f->next_ip) & f->cache_mask]);
            }
        } else {
            for (uint32_t k = 0; k < n; k++)
                f->ip += b->sizes[k]; /* the pending FUP's IP, or where a TRIG binds */
        }
        f->n_insns += n;
        ev->kind = FWPT_FLOW_INSN;
        return FWPT_OK;
    }
}

/* kind (FWPT_FLOW_INSN), size, iclass (FWPT_IC_OTHER; the last of a block is set after), mode as
 * the four bytes of one store, in memory order. */
static inline uint32_t head_word(uint8_t size, uint8_t mode)
{
    return (uint32_t)FWPT_FLOW_INSN | (uint32_t)size << 8 | (uint32_t)FWPT_IC_OTHER << 16 |
           (uint32_t)mode << 24;
}

static inline void put_head(struct fwpt_flow_obuf_insn *d, uint8_t size, uint32_t mw)
{
    uint32_t w = mw | (uint32_t)size << 8;
    __builtin_memcpy(&d->kind, &w, 4);
}

/* The hot loop of fill: cached blocks whose successor needs no packet fetch (a TNT bit in hand,
 * a direct branch, a compressed RET), with the walk state in registers (f->obuf aliases f).
 * Stops before anything else: a cache miss, the runaway limit, a full buffer (f->ip is then the
 * next block, nothing pending), or a transfer fwpt_flow_i_resolve() must handle (resolve_pending set). */
/* The n instructions of a run at ip with these sizes, into d (all iclass OTHER); returns the
 * address after them. fill_fast writes its own unrolled copy of this. */
static inline uint64_t put_run(struct fwpt_flow_obuf_insn *d, uint64_t ip, const uint8_t *sizes, uint32_t n,
                               uint8_t mode)
{
    for (uint32_t k = 0; k < n; k++) {
        d[k].ip = ip;
        put_head(&d[k], sizes[k], head_word(0, mode));
        ip += sizes[k];
    }
    return ip;
}

/* Sets kind (INSN) and mode in every obuf entry, so fill_fast stores only ip, size and iclass. */
static void obuf_prepare(struct fwpt_flow *f, uint8_t mode)
{
    for (uint32_t k = 0; k < FWPT_FLOW_OBUF; k++) {
        f->obuf[k].kind = FWPT_FLOW_INSN;
        f->obuf[k].mode = mode;
    }
    f->obuf_mode = mode;
}

/* size and iclass OTHER as one 16-bit store (kind and mode are already there: obuf_prepare) */
static inline void put_size(struct fwpt_flow_obuf_insn *d, uint8_t size)
{
    const uint16_t w = (uint16_t)(size | FWPT_IC_OTHER << 8);
    __builtin_memcpy(&d->size, &w, 2);
}

/* The walk over cached blocks, bound by mispredicted class branches on random outcomes and by the instruction
 * count, less by the IP -> entry -> next IP load chain. Its cost and the designs tried in its place (path cache,
 * jump table, prefetching, chaining, ...): docs/performance.md, "Flow walk". */
static inline __attribute__((always_inline)) uint32_t fill_fast_walk(struct fwpt_flow *f, uint32_t on, const bool timed)
{
    struct fwpt_flow_obuf_insn *o0 = &f->obuf[on]; /* the first not yet counted in n_insns */
    /* the next free entry as a pointer (an index costs a shift and an add per block) */
    struct fwpt_flow_obuf_insn *d = o0, *const dend = &f->obuf[FWPT_FLOW_OBUF - FWPT_FLOW_BLOCK_INSNS];
    const struct fwpt_flow_block *cache = f->cache;
    const size_t mask = f->cache_mask;
    const uint8_t mode = f->mode;
    const uint64_t limit = f->runaway_limit;
    bool pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    /* few values in registers (the rest stays in *f): the walk's chain must not spill */
    uint64_t ip = f->ip, bits = f->tnt_bits, since = f->since_packet;
    uint32_t cnt = f->tnt_count;
    if (f->obuf_mode != mode)
        obuf_prepare(f, mode);
    while (d <= dend) {
        const struct fwpt_flow_block *b = &cache[FLOW_SLOT(ip) & mask];
        const uint64_t target = b->target, nx = ip + b->nbytes;
        const uint32_t n = b->ninsn;
        const uint8_t cls = b->iclass, flags = b->flags;
        const uint8_t s0 = b->sizes[0], s1 = b->sizes[1], s2 = b->sizes[2], s3 = b->sizes[3];
        if (b->ip != ip || b->mode != mode || since + n > limit)
            break; /* fill's general path: build the block, or report the runaway */
        f->cache_hits++;
        /* (no prefetch of the successors' entries here: the load follows at once)
         * four slots written unconditionally (the buffer has room for a whole block): most blocks
         * end there, and a fixed count costs no mispredicted loop exit (eight was slower) */
        d[0].ip = ip;
        put_size(&d[0], s0);
        d[1].ip = ip + s0;
        put_size(&d[1], s1);
        d[2].ip = ip + s0 + s1;
        put_size(&d[2], s2);
        d[3].ip = ip + s0 + s1 + s2;
        put_size(&d[3], s3);
        if (n > 4) {
            uint64_t a = d[3].ip + s3;
            for (uint32_t k = 4; k < n; k++) {
                uint8_t sk = b->sizes[k];
                d[k].ip = a;
                put_size(&d[k], sk);
                a += sk;
            }
        }
        d += n;
        d[-1].iclass = cls;
        since += n;
        if (!cnt && (cls == FWPT_IC_JCC || cls == FWPT_IC_RET) && f->have_peek &&
            is_tnt(f->peek.type) && f->peek.tnt.count) {
            /* take_tnt: the TNT packet lookahead left in peek (bits in hand, the usual case, tested first) */
            bits = f->peek.tnt.bits;
            cnt = f->peek.tnt.count;
            f->have_peek = 0;
            if (timed)
                fwpt_flow_i_time_fast(f, (uint64_t)(d - o0), false);
        }
        /* the transfer rule (fwpt_flow_i_step: its order of tests was measured here) */
        const int r = fwpt_flow_i_step(f, cls, flags, target, nx, bits, cnt, pgd_peek, true, &ip);
        if (r == FWPT_FLOW_STEP_NEXT)
            continue;
        if (r == FWPT_FLOW_STEP_TIP) {
            if (timed)
                fwpt_flow_i_time_fast(f, (uint64_t)(d - o0), false);
            if (cnt) { /* a deferred TIP (take_tip): the bits in hand are for the branches after it */
                since = 0;
                continue;
            }
            goto packet_done;
        }
        if (r == FWPT_FLOW_STEP_SLOW) {
            end_block(f, b, nx);
            break;
        }
        /* a TNT bit was used */
        bits >>= 1;
        since = 0;
        if (--cnt)
            continue;
    packet_done:
        /* a packet used up: look ahead as fwpt_flow_i_resolve() does, then go on if nothing happened */
        since = 0;
        f->ip = ip;
        if (timed)
            fwpt_flow_i_time_fast(f, (uint64_t)(d - o0), true);
        if (fwpt_flow_i_takes_next(f, fetch_walk(f, timed))) {
            pgd_peek = false; /* a packet the walk consumes next */
            continue;
        }
        const bool on = fwpt_flow_i_packet_lookahead(f, bits, (uint64_t)(d - o0));
        o0 = d;
        if (!on)
            return (uint32_t)(d - f->obuf);
        pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    }
    f->ip = ip;
    fwpt_flow_i_walk_store(f, bits, cnt, since, (uint64_t)(d - o0));
    return (uint32_t)(d - f->obuf);
}

/* fill_fast_walk twice: the time hooks cost the walk nothing when time is off. */
static __attribute__((noinline)) uint32_t fill_fast(struct fwpt_flow *f, uint32_t on) { return fill_fast_walk(f, on, false); }
static __attribute__((noinline)) uint32_t fill_fast_timed(struct fwpt_flow *f, uint32_t on)
{
    return fill_fast_walk(f, on, true);
}

/* With time, the last instruction buffered has its time only once its successor is known (the packet it
 * takes decides it): resolve it now, as libipt's pt_insn_next does before it gives the instruction. */
static void time_resolve_last(struct fwpt_flow *f)
{
    if (f->resolve_pending && f->state == ST_WALK && !f->evq_n && !f->look_pending && !fast_resolve(f))
        fwpt_flow_i_resolve(f);
}

/* Decodes instructions ahead into f->obuf until an event is queued, the walk stops or the
 * buffer is full. Events are queued only after the instructions before them are buffered. */
static void fill(struct fwpt_flow *f)
{
    struct fwpt_flow_obuf_insn *o = f->obuf;
    uint32_t on = 0;
    if (TIME_ON(f))
        fwpt_flow_i_time_refill(f, f->n_insns);
    while (f->state == ST_WALK && !f->evq_n && on + FWPT_FLOW_BLOCK_INSNS <= FWPT_FLOW_OBUF) {
        if (walk_pending(f))
            continue;
        if (!f->fup_pending && !(f->ntrig | f->pend_cfe) && f->cache) {
            uint32_t before = on;
            on = TIME_ON(f) ? fill_fast_timed(f, on) : fill_fast(f, on);
            if (on != before || f->resolve_pending)
                continue; /* it walked: the loop conditions again */
        }
        uint32_t n;
        bool full;
        const struct fwpt_flow_block *b = walk_block(f, &n, &full);
        if (!b)
            continue;
        if (f->cache) {
            /* the next block is one of these: start loading its entry now */
            uint64_t nx = f->ip + b->nbytes;
            __builtin_prefetch(&f->cache[FLOW_SLOT(b->target) & f->cache_mask]);
            __builtin_prefetch(&f->cache[FLOW_SLOT(nx) & f->cache_mask]);
        }
        uint64_t ip = put_run(&o[on], f->ip, b->sizes, n, f->mode);
        if (f->mode != f->obuf_mode)
            f->obuf_mode = FWPT_MODE_UNKNOWN; /* obuf_prepare again before fill_fast */
        on += n;
        f->n_insns += n;
        if (full) {
            o[on - 1].iclass = b->iclass;
            end_block(f, b, ip);
        } else {
            f->ip = ip; /* the pending FUP's IP, or where a TRIG binds */
        }
    }
    if (TIME_ON(f))
        time_resolve_last(f);
    f->oidx = 0;
    f->on = on;
}

enum fwpt_status fwpt_flow_next_slow(struct fwpt_flow *f, struct fwpt_flow_event *ev)
{
    for (;;) {
        if (f->oidx < f->on)
            return fwpt_flow_next(f, ev); /* serves the buffer inline (its own check is the same) */
        if (f->evq_n)
            return evq_pop(f, ev);
        if (__builtin_expect(f->evq_overrun, 0))
            return FWPT_E_INTERNAL;
        if (f->state == ST_WALK) {
            fill(f);
            continue;
        }
        struct fwpt_flow_run run;
        enum fwpt_status s = fwpt_flow_next_run(f, &run, ev); /* states without an IP */
        if (s != FWPT_OK || !run.n)
            return s;
        /* next_run gave a run (it entered the walk): serve it through the buffer */
        if (TIME_ON(f))
            fwpt_flow_i_time_refill(f, f->n_insns - run.n);
        put_run(f->obuf, run.ip, run.sizes, run.n, run.mode);
        if (run.mode != f->obuf_mode)
            f->obuf_mode = FWPT_MODE_UNKNOWN;
        if (f->run_full)
            f->obuf[run.n - 1].iclass = f->last_class;
        if (TIME_ON(f))
            time_resolve_last(f);
        f->oidx = 0;
        f->on = run.n;
    }
}

enum fwpt_status fwpt_flow_next_batch(struct fwpt_flow *f, const struct fwpt_flow_obuf_insn **insns,
                                      uint32_t *n, struct fwpt_flow_event *ev)
{
    *n = 0;
    if (f->oidx >= f->on) {
        /* refill through the one-by-one path: it serves the first instruction or an event */
        enum fwpt_status s = fwpt_flow_next_slow(f, ev);
        if (s != FWPT_OK || ev->kind != FWPT_FLOW_INSN)
            return s;
        f->oidx--; /* give that instruction back to the batch */
    }
    *insns = &f->obuf[f->oidx];
    *n = f->on - f->oidx;
    f->oidx = f->on;
    return FWPT_OK;
}

/* ---- the block step (flow.h, "public: block step, sync") ---- */

void fwpt_flow_chains_init(struct fwpt_flow_chains *c, struct fwpt_flow_chain *v, struct fwpt_flow_chain_cold *cold,
                           size_t n)
{
    fwpt_memset(c, 0, sizeof *c);
    c->v = v;
    c->cold = cold;
    c->mask = n ? n - 1 : 0;
    for (size_t i = 0; v && i < n; i++) {
        v[i].ip = FWPT_FLOW_NO_IP;
        v[i].uses = 0;
    }
}

bool fwpt_flow_block_end(const struct fwpt_flow *f, uint8_t *iclass, uint64_t *last_ip, uint64_t *next_ip)
{
    *iclass = f->last_class;
    *last_ip = f->last_ip;
    *next_ip = f->next_ip;
    return f->resolve_pending;
}

#define CHAIN_WINDOW 256 /* chain lookups between two looks at how often they missed */
#define CHAIN_REST 4096  /* block starts walked without chains after a window with too many misses */

/* Classes that take a TIP (SDM "COFI"): indirect near and every far transfer. */
static inline bool takes_tip(uint8_t c)
{
    return c == FWPT_IC_JMP_IND || c == FWPT_IC_CALL_IND || (c >= FWPT_IC_FAR_JMP && c <= FWPT_IC_VMENTRY);
}

static inline size_t chain_slot(uint64_t ip, uint32_t key)
{
    uint64_t x = (ip ^ (uint64_t)key << 40) * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 40);
}

/* Can a chain go on into the block at ip (cached, in its region)? Its region in *r. */
static bool chain_can_take(const struct fwpt_flow *f, struct fwpt_flow_chains *ch, uint64_t ip, uint32_t nb,
                           uint32_t region, uint32_t *r)
{
    const struct fwpt_flow_block *b = &f->cache[FLOW_SLOT(ip) & f->cache_mask];
    if (nb == FWPT_FLOW_CHAIN_BLOCKS || b->ip != ip || b->mode != f->mode)
        return false;
    *r = ch->region ? ch->region(ch->ctx, ip, b) : 0;
    return *r != FWPT_FLOW_REGION_MIXED && (!nb || *r == region);
}

/* Follows the cached blocks from ip with the k oldest of bits (see struct fwpt_flow_chain) into p; false when not
 * even the first block can be taken. Only reads the block cache: no packet, no change to the walk. */
static bool chain_build(const struct fwpt_flow *f, struct fwpt_flow_chains *ch, struct fwpt_flow_chain *p, uint64_t ip,
                        uint32_t k, uint64_t bits, uint64_t top)
{
    struct fwpt_flow_chain_cold *cold = &ch->cold[p - ch->v];
    uint64_t cur = ip, from = 0, rets[FWPT_FLOW_CHAIN_CALLS], ret_to = 0;
    uint32_t used = 0, n = 0, seg = 0, tail = 0, nb = 0, ne = 0, nops = 0, nrets = 0, region = 0;
    bool edge_wait = false;
    if (ch->evict)
        ch->evict(ch->ctx, p, cold);
    p->ip = FWPT_FLOW_NO_IP;
    p->pending = 0;
    p->miss = 0;
    for (;;) {
        const struct fwpt_flow_block *b = &f->cache[FLOW_SLOT(cur) & f->cache_mask];
        uint32_t r;
        if (!chain_can_take(f, ch, cur, nb, region, &r)) {
            p->miss = nb < FWPT_FLOW_CHAIN_BLOCKS && (b->ip != cur || b->mode != f->mode);
            break;
        }
        region = r;
        if (edge_wait) {
            cold->edges[ne++] = (struct fwpt_flow_chain_edge){from, cur};
            edge_wait = false;
        }
        nb++;
        n += b->ninsn;
        seg += b->ninsn;
        tail += b->ninsn;
        const uint64_t nx = cur + b->nbytes, last = nx - b->sizes[b->ninsn - 1];
        const uint8_t c = b->iclass;
        const bool zero_call = c == FWPT_IC_CALL_REL && (b->flags & FWPT_FLOW_BF_ZERO_LEN_CALL);
        if (c == FWPT_IC_OTHER) {
            cur = nx;
            continue;
        }
        if (c == FWPT_IC_JMP_REL || zero_call) {
            /* a zero-length call pushes nothing and enters nothing (it lands on its next IP) */
            from = last;
            edge_wait = true;
            cur = b->target;
            continue;
        }
        if (c == FWPT_IC_CALL_REL && nops < FWPT_FLOW_CHAIN_CALLS && chain_can_take(f, ch, b->target, nb, region, &r)) {
            /* a direct call whose first block the chain holds: it enters it there */
            cold->ops[nops++] = (struct fwpt_flow_chain_op){b->target, nx, seg, 1, {0, 0, 0}};
            seg = 0;
            rets[nrets++] = nx;
            from = last;
            edge_wait = true;
            cur = b->target;
            continue;
        }
        /* a compressed RET (its bit 1): returning from a call inside the chain, to that call's next IP; or the
         * first from a call made before it, to the stack's top (0: none, or empty) */
        const bool ret = c == FWPT_IC_RET && used < k && ((bits >> used) & 1) && nops < FWPT_FLOW_CHAIN_CALLS &&
                         (nrets || (top && !ret_to));
        if ((c == FWPT_IC_JCC || ret) && used < k) {
            if (ret) {
                cold->ops[nops++] = (struct fwpt_flow_chain_op){0, 0, seg, 0, {0, 0, 0}};
                seg = 0;
                cur = nrets ? rets[--nrets] : (ret_to = top);
            } else {
                cur = (bits >> used) & 1 ? b->target : nx;
            }
            used++;
            tail = 0;
            from = last;
            edge_wait = true;
            if (used == k)
                break; /* its last bit: the walk looks at the next packet here */
            continue;
        }
        /* its end needs what the chain does not hold */
        p->pending = 1;
        p->next = nx;
        p->last_ip = last;
        cold->target = b->target;
        cold->block_ip = cur;
        p->cls = c;
        p->flags = b->flags;
        break;
    }
    if (!nb)
        return false;
    if (!p->pending) {
        p->next = cur;
        p->edge = edge_wait;
        p->last_ip = from;
    }
    p->ip = ip;
    p->key = (uint16_t)(1u << k | (bits & ((1u << k) - 1)));
    p->mode = f->mode;
    p->used = (uint8_t)used;
    p->ninsn = n;
    p->tail = tail;
    p->region = region;
    p->nedges = (uint8_t)ne;
    p->nops = (uint8_t)nops;
    p->ret_to = ret_to;
    p->uses = 0;
    return true;
}

/* Where stop_at stops the walk, for the block end waiting in f (resolve pending). */
static bool at_stop(const struct fwpt_flow *f, uint64_t stop_at)
{
    if (stop_at == FWPT_FLOW_NO_STOP || f->state != ST_WALK || !f->resolve_pending || f->tnt_count ||
        !f->have_peek || f->peek.offset < stop_at || f->evq_n || f->fup_pending || f->look_pending || f->ntrig ||
        f->pend_cfe)
        return false;
    if (f->last_class == FWPT_IC_JCC)
        return is_tnt(f->peek.type) && f->peek.tnt.count;
    return takes_tip(f->last_class) && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed;
}

/* Leaves the walk with the end of a block (at block_ip) waiting for fwpt_flow_i_resolve(), as end_block. */
static void leave_pending(struct fwpt_flow *f, uint64_t block_ip, uint64_t nx, uint64_t last_ip, uint64_t target,
                          uint8_t cls, uint8_t flags)
{
    struct fwpt_flow_block b;
    b.ninsn = 1;
    b.sizes[0] = (uint8_t)(nx - last_ip);
    b.iclass = cls;
    b.target = target;
    b.flags = flags;
    f->ip = block_ip;
    end_block(f, &b, nx);
}

/* The block step's fast path: fill_fast's walk over cached blocks whose successor needs no packet fetch (a TNT bit
 * in hand, a direct branch, a compressed RET) or the TNT or TIP lookahead left in peek, one record per block, and
 * the chains. Stops before anything else (a cache miss, the runaway limit, a transfer fwpt_flow_i_resolve() must
 * handle, stop_at, a full buffer, a lookahead that found more than a branch packet), leaving the walk as
 * fill_fast does. Returns whether it moved the walk; q->n records. */
static bool walk_blocks(struct fwpt_flow *f, struct fwpt_flow_blocks *q)
{
    const struct fwpt_flow_block *cache = f->cache;
    const size_t mask = f->cache_mask;
    const uint8_t mode = f->mode;
    const uint64_t limit = f->runaway_limit;
    struct fwpt_flow_chains *const ch = q->chains;
    const bool use_chains = ch != NULL;
    struct fwpt_flow_chain *const chains = use_chains ? ch->v : NULL;
    struct fwpt_flow_chain_cold *const cold = use_chains ? ch->cold : NULL;
    const size_t chains_mask = use_chains ? ch->mask : 0;
    const uint64_t stop_at = q->stop_at;
    struct fwpt_flow_blk *const v = q->v;
    const uint32_t cap = q->cap;
    uint32_t nrec = 0;
    bool pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    uint64_t ip = f->ip, bits = f->tnt_bits, since = f->since_packet, walked = 0;
    uint32_t window = use_chains ? ch->window : 0, built = use_chains ? ch->built : 0, rest = use_chains ? ch->rest : 0;
    uint32_t cnt = f->tnt_count;
    bool moved = false;
    /* the block whose end is resolved next */
    uint64_t block_ip, nx, last_ip, target;
    uint8_t cls, flags;
    if (f->resolve_pending) {
        block_ip = f->ip;
        nx = f->next_ip;
        last_ip = f->last_ip;
        target = f->last_target;
        cls = f->last_class;
        flags = f->last_flags;
        goto resolve_end; /* f->resolve_pending stays set until it is resolved here */
    }
    for (;;) {
        if (nrec == cap)
            break;
        if (use_chains && !pgd_peek) {
            if (rest) {
                rest--; /* chains missed too often here (branches that go either way): blocks for a while */
                goto block;
            }
            /* the bits in hand; with none, those of the TNT lookahead left in peek, which the first
             * conditional branch takes (not one stop_at stops before) */
            uint64_t pbits = bits;
            uint32_t pcnt = cnt;
            const bool from_peek = !cnt && f->have_peek && is_tnt(f->peek.type) && f->peek.offset < stop_at;
            if (from_peek) {
                pbits = f->peek.tnt.bits;
                pcnt = f->peek.tnt.count;
            }
            const uint32_t k = pcnt < FWPT_FLOW_CHAIN_BITS ? pcnt : FWPT_FLOW_CHAIN_BITS;
            const uint32_t key = 1u << k | (uint32_t)(pbits & ((1u << k) - 1));
            struct fwpt_flow_chain *p = &chains[chain_slot(ip, key) & chains_mask];
            const uint64_t top =
                f->retstack_n ? f->retstack[(f->retstack_top - 1) % FWPT_FLOW_RETSTACK] : 0; /* what a RET pops */
            const bool hit = p->ip == ip && p->key == key && p->mode == mode && (!p->ret_to || p->ret_to == top) &&
                             !(p->miss && cache[FLOW_SLOT(p->next) & mask].ip == p->next);
            if (!hit && nrec)
                break; /* building may overwrite an entry a record in the buffer names: the caller reads them first */
            if (++window == CHAIN_WINDOW) {
                /* building a chain costs more than walking its blocks: with more than a quarter of the
                 * lookups missing, walk block by block for a while, then look again */
                rest = built * 4 > window ? CHAIN_REST : 0;
                window = built = 0;
            }
            if (!hit) {
                ch->misses++;
                built++;
                if (!chain_build(f, ch, p, ip, k, pbits, top))
                    goto block; /* its first block is not cached: the general path builds it */
            } else {
                ch->hits++;
            }
            if (since + p->ninsn > limit)
                goto block; /* block by block to the runaway limit */
            if (from_peek && p->used) {
                f->have_peek = 0; /* take_tnt at its first conditional branch */
                bits = pbits;
                cnt = pcnt;
            }
            v[nrec++] = (struct fwpt_flow_blk){ip, NULL, p, p->ninsn, p->pending ? p->cls : FWPT_IC_OTHER};
            /* its calls and returns on RET compression's stack (pushed at the call, popped by its return) */
            for (uint32_t i = 0; i < p->nops; i++) {
                const struct fwpt_flow_chain_op *o = &cold[p - chains].ops[i];
                if (o->call) {
                    push_ret(f, o->ret);
                } else {
                    uint64_t dummy;
                    (void)pop_ret(f, &dummy);
                }
            }
            walked += p->ninsn;
            since = p->used ? p->tail : since + p->ninsn;
            bits >>= p->used;
            cnt -= p->used;
            moved = true;
            if (p->pending) {
                block_ip = cold[p - chains].block_ip;
                nx = p->next;
                last_ip = p->last_ip;
                target = cold[p - chains].target;
                cls = p->cls;
                flags = p->flags;
                goto resolve_end;
            }
            ip = p->next;
            if (p->used && !cnt)
                goto packet_done; /* the packet's last bit was used */
            continue;
        }
    block: {
        const struct fwpt_flow_block *b = &cache[FLOW_SLOT(ip) & mask];
        const uint32_t n = b->ninsn;
        if (b->ip != ip || b->mode != mode || since + n > limit)
            break; /* the general path: build the block, or report the runaway */
        v[nrec++] = (struct fwpt_flow_blk){ip, b->sizes, NULL, n, b->iclass};
        since += n;
        walked += n;
        moved = true;
        block_ip = ip;
        nx = ip + b->nbytes;
        last_ip = nx - b->sizes[n - 1];
        target = b->target;
        cls = b->iclass;
        flags = b->flags;
    }
    resolve_end:
        if (!cnt && f->have_peek && stop_at != FWPT_FLOW_NO_STOP && f->peek.offset >= stop_at &&
            ((cls == FWPT_IC_JCC && is_tnt(f->peek.type) && f->peek.tnt.count) ||
             (takes_tip(cls) && f->peek.type == FWPT_PKT_TIP && !f->peek.ip.suppressed)))
            goto pending; /* stop_at: the next call stops there */
        if (!cnt && (cls == FWPT_IC_JCC || cls == FWPT_IC_RET) && f->have_peek && is_tnt(f->peek.type) &&
            f->peek.tnt.count) {
            /* take_tnt: the TNT packet lookahead left in peek */
            bits = f->peek.tnt.bits;
            cnt = f->peek.tnt.count;
            f->have_peek = 0;
        }
        /* the transfer rule (fwpt_flow_i_step, as fill_fast_walk) */
        const int r = fwpt_flow_i_step(f, cls, flags, target, nx, bits, cnt, pgd_peek, true, &ip);
        if (r == FWPT_FLOW_STEP_SLOW)
            goto pending;
        f->resolve_pending = 0;
        moved = true;
        if (r == FWPT_FLOW_STEP_NEXT)
            continue;
        if (r == FWPT_FLOW_STEP_TIP) {
            if (cnt) { /* a deferred TIP: the bits in hand are for the branches after it */
                since = 0;
                continue;
            }
            goto packet_done;
        }
        /* a TNT bit was used */
        bits >>= 1;
        since = 0;
        if (--cnt)
            continue;
    packet_done:
        /* a packet used up: look ahead as fwpt_flow_i_resolve() does, then go on if nothing happened */
        since = 0;
        f->ip = ip;
        if (fwpt_flow_i_takes_next(f, fetch(f))) {
            pgd_peek = false;
            continue;
        }
        const bool on = fwpt_flow_i_packet_lookahead(f, bits, walked);
        walked = 0;
        if (!on)
            goto out;
        pgd_peek = f->have_peek && f->peek.type == FWPT_PKT_TIP_PGD;
    }
    /* at a block start */
    f->ip = ip;
    fwpt_flow_i_walk_store(f, bits, cnt, since, walked);
    goto out;
pending:
    /* at a block end fwpt_flow_i_resolve() must handle (or where stop_at stops) */
    fwpt_flow_i_walk_store(f, bits, cnt, since, walked);
    if (moved)
        leave_pending(f, block_ip, nx, last_ip, target, cls, flags);
out:
    if (use_chains) {
        ch->window = window;
        ch->built = built;
        ch->rest = rest;
    }
    q->n = nrec;
    return moved;
}

enum fwpt_status fwpt_flow_next_blocks(struct fwpt_flow *f, struct fwpt_flow_blocks *q, struct fwpt_flow_event *ev)
{
    q->n = 0;
    q->stopped = 0;
    for (;;) {
        if (f->resolve_pending && at_stop(f, q->stop_at)) {
            q->stopped = 1;
            return FWPT_OK;
        }
        if (f->state == ST_WALK && f->cache && !f->evq_n && !f->look_pending && !f->fup_pending && !f->ntrig &&
            !f->pend_cfe && walk_blocks(f, q)) {
            if (q->n)
                return FWPT_OK;
            continue; /* it resolved a block end only: the conditions again */
        }
        struct fwpt_flow_run run;
        const enum fwpt_status st = fwpt_flow_next_run(f, &run, ev);
        if (st != FWPT_OK || !run.n)
            return st;
        q->v[0] = (struct fwpt_flow_blk){run.ip, run.sizes, NULL, run.n, f->run_full ? f->last_class : FWPT_IC_OTHER};
        q->n = 1;
        return FWPT_OK;
    }
}
