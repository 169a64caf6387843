/* fwpt — instruction flow reconstruction (see flow.h for the rules): set-up, configuration and names.
 * The decoder's rooms: flow_walk.c (next, batch, run and the output buffer), flow_resolve.c (the
 * general transfer rule), flow_block.c (the code), flow_packets.c, flow_events.c, flow_resync.c, flow_time.c. */
#include "decode/flow_priv.h"

#define FLOW_DEFAULT_RUNAWAY (1u << 20)

size_t fwpt_flow_size(void)
{
    return sizeof(struct fwpt_flow);
}

/* a byte copy by base/text (a struct assignment this size is a call to memcpy, which firmware has not) */
void fwpt_flow_copy(struct fwpt_flow *dst, const struct fwpt_flow *src) { fwpt_memcpy(dst, src, sizeof *dst); }

/* The public call, out of line (the parentheses keep the macro of decode/flow.h off the name). */
enum fwpt_status(fwpt_flow_next)(struct fwpt_flow *f, struct fwpt_flow_event *ev)
{
    return fwpt_flow_next_inline(f, ev);
}

void fwpt_flow_cache_reset(struct fwpt_flow *f)
{
    /* Empty: mode UNKNOWN, which f->mode never is, so no IP hits it -- not even ~0, which a TIP
     * can carry (matching on ip alone served a stale block there). */
    for (size_t i = 0; f->cache && i <= f->cache_mask; i++) {
        f->cache[i].ip = FWPT_FLOW_NO_IP;
        f->cache[i].mode = FWPT_MODE_UNKNOWN;
        f->cache[i].ninsn = 0;
    }
    f->scratch.ip = FWPT_FLOW_NO_IP;
}

static enum fwpt_status flow_init(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx,
                                  struct fwpt_flow_block *cache, size_t ncache);

/* FWPT_E_INVAL: a cache size that is not a power of two (or a cache without a size, a size without a cache);
 * FWPT_E_NOSYNC: the trace has no PSB. Either way f is usable: its reads give the end (FWPT_E_EOS). */
enum fwpt_status fwpt_flow_init(struct fwpt_flow *f, const uint8_t *trace, size_t len, fwpt_flow_read_fn read,
                                void *read_ctx, struct fwpt_flow_block *cache, size_t ncache)
{
    fwpt_memset(f, 0, sizeof *f);
    fwpt_pkt_init(&f->pkt, trace, len);
    return flow_init(f, read, read_ctx, cache, ncache);
}

enum fwpt_status fwpt_flow_init_segs(struct fwpt_flow *f, const struct fwpt_pkt_seg *segs, uint32_t nsegs,
                                     fwpt_flow_read_fn read, void *read_ctx, struct fwpt_flow_block *cache,
                                     size_t ncache)
{
    fwpt_memset(f, 0, sizeof *f);
    fwpt_pkt_init_segs(&f->pkt, segs, nsegs);
    return flow_init(f, read, read_ctx, cache, ncache);
}

static enum fwpt_status flow_init(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx,
                                  struct fwpt_flow_block *cache, size_t ncache)
{
    f->read = read;
    f->read_ctx = read_ctx;
    f->mode = FWPT_MODE_64;
    f->runaway_limit = FLOW_DEFAULT_RUNAWAY;
    f->scratch.ip = FWPT_FLOW_NO_IP;
    if (fwpt_flow_use_cache(f, cache, ncache) != FWPT_OK) {
        f->state = ST_END; /* refused: reads give the end, nothing is decoded */
        return FWPT_E_INVAL;
    }
    fwpt_flow_cache_reset(f);
    f->state = ST_UNSYNCED;
    /* SDM "Packet Stream Boundary (PSB) Packet": decoding starts at a PSB; without one the flow is at its end */
    enum fwpt_status s = fwpt_pkt_sync_forward(&f->pkt);
    if (s != FWPT_OK)
        f->state = ST_END;
    return s;
}

enum fwpt_status fwpt_flow_use_cache(struct fwpt_flow *f, struct fwpt_flow_block *cache, size_t ncache)
{
    /* the cache is indexed by IP bits (cache_mask): a power of two entries, or none (NULL, 0) */
    if ((cache == NULL) != (ncache == 0) || (ncache & (ncache - 1)))
        return FWPT_E_INVAL;
    f->cache = cache;
    f->cache_mask = ncache ? ncache - 1 : 0;
    return FWPT_OK;
}

uint64_t fwpt_flow_insns(const struct fwpt_flow *f) { return f->n_insns; }

void fwpt_flow_set_reader(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx)
{
    f->read = read;
    f->read_ctx = read_ctx;
}

void fwpt_flow_set_runaway_limit(struct fwpt_flow *f, uint64_t n) { f->runaway_limit = n ? n : 1; }

/* SKZ84 changes how bytes split into packets everywhere: the packet decoder applies it. SKD007 only
 * where a CYC stands: the walk checks there (skd007_ovf), so the packet decoder's fast path stays on. */
void fwpt_flow_set_errata(struct fwpt_flow *f, const struct fwpt_errata *e)
{
    f->errata = *e;
    struct fwpt_errata pkt = {0};
    pkt.skz84 = e->skz84;
    fwpt_pkt_set_errata(&f->pkt, &pkt);
}

void fwpt_flow_set_iflags(struct fwpt_flow *f, bool on) { f->iflags_on = on; }

void fwpt_flow_set_filter(struct fwpt_flow *f, const uint64_t (*ranges)[2], uint32_t n)
{
    f->n_filter = n < FWPT_FLOW_FILTERS ? n : FWPT_FLOW_FILTERS;
    for (uint32_t i = 0; i < f->n_filter; i++) {
        f->filter[i][0] = ranges[i][0];
        f->filter[i][1] = ranges[i][1];
    }
}

const char *fwpt_flow_kind_name(enum fwpt_flow_kind k)
{
    static const char *const names[FWPT_FLOW_KIND_COUNT] = {
        "insn", "enabled", "disabled", "interrupt", "overflow", "mode", "error",
        "tsx", "stopped", "paging", "vmcs", "ptwrite", "exstop", "cbr", "mnt", "mwait", "pwre", "pwrx", "trig",
        "end", "cfe", "iflags",
    };
    return (unsigned)k < FWPT_FLOW_KIND_COUNT ? names[k] : "?";
}

_Static_assert(sizeof(struct fwpt_flow_block) == 32, "cache entries are 32 bytes");
_Static_assert(offsetof(struct fwpt_flow_event, kind) == 0 && offsetof(struct fwpt_flow_event, size) == 1 &&
                   offsetof(struct fwpt_flow_event, iclass) == 2 && offsetof(struct fwpt_flow_event, mode) == 3 &&
                   offsetof(struct fwpt_flow_obuf_insn, size) == offsetof(struct fwpt_flow_obuf_insn, kind) + 1 &&
                   offsetof(struct fwpt_flow_obuf_insn, iclass) == offsetof(struct fwpt_flow_obuf_insn, kind) + 2 &&
                   offsetof(struct fwpt_flow_obuf_insn, mode) == offsetof(struct fwpt_flow_obuf_insn, kind) + 3,
               "fwpt_flow_next copies kind..mode as four bytes");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "head_word builds the four bytes little-endian"
#endif

/* ---- the walks' step after a packet (flow_priv.h) ---- */
bool fwpt_flow_i_packet_lookahead(struct fwpt_flow *f, uint64_t bits, uint64_t walked)
{
    fwpt_flow_i_walk_store(f, bits, 0, 0, walked);
    fwpt_flow_i_lookahead(f);
    return f->state == ST_WALK && !f->fup_pending && !f->evq_n && !f->ntrig && !f->pend_cfe;
}

/* ---- synchronization (flow.h, "public: block step, sync") ---- */

/* The decoder as fwpt_flow_init leaves it, at the PSB d is synchronized at: what it was set up with (code,
 * block cache, errata, filter, IF events, runaway limit, time on or off), and its statistics, are kept. */
static void restart_at(struct fwpt_flow *f, const struct fwpt_pkt_decoder *d)
{
    const fwpt_flow_read_fn read = f->read;
    void *const read_ctx = f->read_ctx;
    struct fwpt_flow_block *const cache = f->cache;
    const size_t cache_mask = f->cache_mask;
    const uint64_t runaway = f->runaway_limit, n_insns = f->n_insns, n_errors = f->n_errors;
    const uint64_t hits = f->cache_hits, misses = f->cache_misses;
    /* an error's skipped bytes end where the decode starts again */
    const uint64_t skipped =
        f->bytes_skipped + (f->err_open && d->offset > f->err_offset ? d->offset - f->err_offset : 0);
    const struct fwpt_errata errata = f->errata;
    uint64_t filter[FWPT_FLOW_FILTERS][2];
    const uint32_t n_filter = f->n_filter;
    fwpt_memcpy(filter, f->filter, sizeof filter);
    const uint8_t iflags_on = f->iflags_on, time_on = f->time_on;
    const struct fwpt_time_config tcfg = f->time.cfg;
    fwpt_memset(f, 0, sizeof *f);
    f->pkt = *d;
    f->read = read;
    f->read_ctx = read_ctx;
    f->cache = cache;
    f->cache_mask = cache_mask;
    f->scratch.ip = FWPT_FLOW_NO_IP;
    f->mode = FWPT_MODE_64;
    f->runaway_limit = runaway;
    f->errata = errata;
    f->n_filter = n_filter;
    fwpt_memcpy(f->filter, filter, sizeof filter);
    f->iflags_on = iflags_on;
    f->n_insns = n_insns;
    f->n_errors = n_errors;
    f->cache_hits = hits;
    f->cache_misses = misses;
    f->bytes_skipped = skipped;
    if (time_on)
        fwpt_flow_set_time(f, &tcfg);
    f->state = ST_UNSYNCED;
}

enum fwpt_status fwpt_flow_reset_trace(struct fwpt_flow *f, const uint8_t *trace, size_t len)
{
    struct fwpt_pkt_decoder d;
    fwpt_pkt_init(&d, trace, len);
    restart_at(f, &d);
    f->n_insns = f->n_errors = f->bytes_skipped = f->cache_hits = f->cache_misses = 0;
    fwpt_flow_set_errata(f, &f->errata); /* the packet decoder's share (SKZ84), as fwpt_flow_set_errata gave it */
    if (fwpt_pkt_sync_forward(&f->pkt) != FWPT_OK) {
        f->state = ST_END; /* SDM "Packet Stream Boundary (PSB) Packet": no PSB, nothing to decode */
        return FWPT_E_NOSYNC;
    }
    return FWPT_OK;
}

/* d at offset: FWPT_OK when a PSB starts there (d left there, synchronized). */
static enum fwpt_status psb_at(struct fwpt_pkt_decoder *d, uint64_t offset)
{
    if (offset >= d->total || fwpt_pkt_sync_set(d, (size_t)offset) != FWPT_OK)
        return FWPT_E_EOS;
    struct fwpt_packet p;
    if (fwpt_pkt_next(d, &p) != FWPT_OK || p.type != FWPT_PKT_PSB)
        return FWPT_E_NOSYNC;
    return fwpt_pkt_sync_set(d, (size_t)offset);
}

enum fwpt_status fwpt_flow_sync_set(struct fwpt_flow *f, uint64_t offset)
{
    if (!f)
        return FWPT_E_INVAL;
    struct fwpt_pkt_decoder d = f->pkt;
    enum fwpt_status s = psb_at(&d, offset);
    if (s == FWPT_OK)
        restart_at(f, &d);
    return s;
}

enum fwpt_status fwpt_flow_sync_forward(struct fwpt_flow *f)
{
    if (!f)
        return FWPT_E_INVAL;
    struct fwpt_pkt_decoder d = f->pkt;
    const uint64_t at = fwpt_flow_i_cur_offset(f);
    enum fwpt_status s;
    if (at == d.sync_offset) {
        /* nothing read since the PSB it synchronized at: the next one (the packet decoder's rule) */
        s = fwpt_pkt_sync_forward(&d);
    } else {
        /* the next packet not read is a PSB, or the first PSB after it */
        s = psb_at(&d, at);
        if (s == FWPT_E_NOSYNC && fwpt_pkt_sync_set(&d, (size_t)at) == FWPT_OK)
            s = fwpt_pkt_sync_forward(&d); /* d synchronized at 'at': it searches from at + 1 */
    }
    if (s != FWPT_OK)
        return FWPT_E_NOSYNC;
    restart_at(f, &d);
    return FWPT_OK;
}

enum fwpt_status fwpt_flow_get_offset(const struct fwpt_flow *f, uint64_t *offset)
{
    if (!f || !offset)
        return FWPT_E_INVAL;
    *offset = fwpt_flow_i_cur_offset(f);
    return FWPT_OK;
}

enum fwpt_status fwpt_flow_get_sync_offset(const struct fwpt_flow *f, uint64_t *offset)
{
    if (!f || !offset)
        return FWPT_E_INVAL;
    if (f->pkt.sync_offset == FWPT_PKT_NO_SYNC)
        return FWPT_E_NOSYNC;
    *offset = f->pkt.sync_offset;
    return FWPT_OK;
}
