/* fwpt — trace readback: tables + final output MSRs -> ordered spans. */
#include "topa/readback.h"
#include "base/text.h"

#define TABLE_PAGE_MASK 0xfffull

static const char R_DISABLED[] = "tracing disabled by software (TraceEn=0): every byte produced is kept";
static const char R_WRAPPED[] = "ring wrapped: the oldest bytes were overwritten; the newest fill the whole buffer";
static const char R_TOPA_STOP[] = "ToPA stop: the STOP region filled (Stopped, OutputOffset = region size); later trace was not stored";
static const char R_STOPPED[] = "Stopped set with the write pointer inside a region (TraceStop): every byte produced is kept";
static const char R_ERROR[] =
    "operational error (Error set): bytes up to the write pointer are kept; packets buffered in the processor "
    "when the error was raised are lost, and nothing after it was traced";

struct walk {
    const struct fwpt_readback_in *in;
    uint64_t table, index;
    uint64_t start_table, start_index;
    unsigned n;      /* regions returned */
    unsigned n_entered;
    uint64_t entered[64]; /* tables entered through END: entering one twice is a loop */
    bool done;       /* after a STOP region, a closed loop, or a bad entry */
    bool closed;     /* came back to the start: a ring */
};

struct wregion {
    uint64_t table, index, base, size;
};

/* Next region entry in processor order (END entries are followed). 1 = region, 0 = no more. */
static int walk_next(struct walk *w, struct wregion *r)
{
    for (unsigned hops = 0; !w->done && hops < 4; hops++) {
        if (w->n && w->table == w->start_table && w->index == w->start_index) {
            w->closed = true;
            w->done = true;
            return 0;
        }
        uint64_t raw;
        if (!fwpt_physmem_read64(w->in->mem, fwpt_topa_entry_addr(w->table, w->index), &raw)) {
            w->done = true;
            return 0;
        }
        struct fwpt_topa_entry e;
        fwpt_topa_decode(raw, &e);
        if (e.end) {
            if (w->index == 0 || e.stop || e.intr || e.reserved) {
                w->done = true; /* the processor raised an error here */
                return 0;
            }
            if (!(e.base == w->start_table && w->start_index == 0)) {
                for (unsigned i = 0; i < w->n_entered; i++)
                    if (w->entered[i] == e.base) {
                        w->done = true; /* a loop that does not pass the start: stop at its end */
                        return 0;
                    }
                if (w->n_entered < sizeof w->entered / sizeof w->entered[0])
                    w->entered[w->n_entered++] = e.base;
            }
            w->table = e.base;
            w->index = 0;
            continue;
        }
        r->table = w->table;
        r->index = w->index;
        r->base = e.base;
        r->size = fwpt_topa_size_bytes(e.size_enc);
        w->n++;
        if (e.stop)
            w->done = true;
        w->index++;
        if (w->index * TOPA_ENTRY_SIZE_BYTES > RTIT_TABLE_OFFSET_MAX)
            w->index = 0;
        return 1;
    }
    w->done = true;
    return 0;
}

static void walk_init(struct walk *w, const struct fwpt_readback_in *in)
{
    fwpt_memset(w, 0, sizeof *w);
    w->in = in;
    w->table = w->start_table = in->start_output_base;
    w->index = w->start_index = fwpt_mask_ptrs_index(in->start_mask_ptrs);
}

static void add_span(struct fwpt_readback *out, uint64_t phys, uint64_t len)
{
    if (!len)
        return;
    out->bytes += len;
    bool merge = out->count && out->tail_end == phys;
    out->tail_end = phys + len;
    if (merge) {
        if (out->count <= out->cap)
            out->spans[out->count - 1].len += len;
        return;
    }
    if (out->count < out->cap) {
        out->spans[out->count].phys = phys;
        out->spans[out->count].len = len;
    }
    out->count++;
}

/* True when [phys, phys+len) holds a non-zero byte. */
static bool nonzero(const struct fwpt_physmem *mem, uint64_t phys, uint64_t len)
{
    while (len) {
        uint64_t chunk = 0x1000 - (phys & 0xfff);
        if (chunk > len)
            chunk = len;
        const uint8_t *p = fwpt_physmem_ptr(mem, phys, chunk);
        if (!p)
            return false;
        for (uint64_t i = 0; i < chunk; i++)
            if (p[i])
                return true;
        phys += chunk;
        len -= chunk;
    }
    return false;
}

static enum fwpt_status finish(struct fwpt_readback *out)
{
    return out->count > out->cap ? FWPT_E_NOMEM : FWPT_OK;
}

static enum fwpt_status readback_single_range(const struct fwpt_readback_in *in, struct fwpt_readback *out)
{
    /* trace_store_phys_addr := (OutputBase & ~OutputMask) + (OutputOffset & OutputMask) */
    uint64_t mask = (in->output_mask_ptrs & RTIT_MASK_PTRS_MASK) | RTIT_MASK_LOWERMASK;
    uint64_t base = in->output_base & ~mask;
    uint64_t size = mask + 1;
    uint64_t off = fwpt_mask_ptrs_offset(in->output_mask_ptrs) & mask;
    uint64_t start = fwpt_mask_ptrs_offset(in->start_mask_ptrs) & mask;
    out->regions_total = 1;
    if (in->wrap == FWPT_WRAP_DETECT)
        out->wrapped = off < start || nonzero(in->mem, base + off, size - off);
    else
        out->wrapped = in->wrap == FWPT_WRAP_YES;
    if (out->wrapped) {
        add_span(out, base + off, size - off);
        add_span(out, base, off);
    } else {
        add_span(out, base + start, off >= start ? off - start : 0);
    }
    out->regions_used = out->bytes ? 1 : 0;
    return finish(out);
}

/* The write pointer on the walk from the start (SDM "ToPA": OutputBase is the current table,
 * MaskOrTableOffset the entry, OutputOffset the byte in its region). */
struct wpos {
    uint64_t table, index, off; /* the pointer after TraceEn=0 */
    uint64_t start_off;         /* OutputOffset before TraceEn=1: holds only for a region entry at the start */
    unsigned limit;             /* regions walked at most */
    unsigned n;                 /* regions on the walk from the start */
    bool ring;                  /* the walk came back to the start */
    bool found;                 /* the pointer is on region k of the walk (from 0) */
    unsigned k;
    uint64_t k_base, k_size;
};

static void wpos_at(struct wpos *p, unsigned k, const struct wregion *r)
{
    p->found = true;
    p->k = k;
    p->k_size = r->size;
    p->k_base = r->base;
}

/* Pass 1: the region of the write pointer on the walk, and the ring's length. */
static void find_pointer(const struct fwpt_readback_in *in, struct wpos *p)
{
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    while (w.n < p->limit && walk_next(&w, &r)) {
        if (w.n == 1) {
            /* The start offset holds only for a region entry at the start; through END it is 0. */
            if (r.table != w.start_table || r.index != w.start_index)
                p->start_off = 0;
            else if (p->start_off > r.size)
                p->start_off = r.size;
        }
        if (!p->found && r.table == p->table && r.index == p->index)
            wpos_at(p, w.n - 1, &r);
    }
    p->n = w.n;
    p->ring = w.closed;
}

/* Not on a region: the pointer may sit on an END entry (with OutputOffset 0 the data ends where the END
 * leads, at offset 0 of that table's entry 0), or on the bad entry that raised the error. false: the entry
 * cannot be read. */
static bool find_pointer_on_end(const struct fwpt_readback_in *in, struct wpos *p, bool error)
{
    uint64_t raw;
    if (!fwpt_physmem_read64(in->mem, fwpt_topa_entry_addr(p->table, p->index), &raw))
        return false;
    struct fwpt_topa_entry e;
    fwpt_topa_decode(raw, &e);
    if (!e.end || p->off != 0 || error)
        return true;
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    while (w.n < p->limit && walk_next(&w, &r))
        if (r.table == e.base && r.index == 0) {
            wpos_at(p, w.n - 1, &r);
            break;
        }
    return true;
}

/* IA32_RTIT_STATUS.Error on an entry the walk cannot enter (e.g. a bad END): every region before it is kept. */
static enum fwpt_status keep_before_error(const struct fwpt_readback_in *in, struct fwpt_readback *out,
                                          const struct wpos *p)
{
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    unsigned j = 0;
    bool at = p->table == w.table && p->index == w.index;
    while (!at && w.n < p->limit && walk_next(&w, &r)) {
        add_span(out, r.base + (j == 0 ? p->start_off : 0), r.size - (j == 0 ? p->start_off : 0));
        j++;
        at = w.table == p->table && w.index == p->index;
    }
    if (!at)
        return FWPT_E_TOPA;
    out->regions_used = j;
    return finish(out);
}

/* Wrapped: the caller's hint, else (a ring) a non-zero byte after the pointer (readback.h). */
static bool detect_wrap(const struct fwpt_readback_in *in, const struct wpos *p)
{
    if (in->wrap != FWPT_WRAP_DETECT)
        return in->wrap == FWPT_WRAP_YES;
    if (!p->ring)
        return false;
    bool wrapped = nonzero(in->mem, p->k_base + p->off, p->k_size - p->off);
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    while (!wrapped && w.n < p->limit && walk_next(&w, &r))
        if (w.n - 1 > p->k)
            wrapped = nonzero(in->mem, r.base, r.size);
    return wrapped;
}

/* A wrapped ring, oldest first: the rest of region k, the regions after k, around to the regions before k,
 * then k up to the pointer. */
static void spans_wrapped(const struct fwpt_readback_in *in, struct fwpt_readback *out, const struct wpos *p)
{
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    while (w.n < p->limit && walk_next(&w, &r)) {
        unsigned j = w.n - 1;
        if (j == p->k)
            add_span(out, r.base + p->off, r.size - p->off);
        else if (j > p->k)
            add_span(out, r.base, r.size);
    }
    walk_init(&w, in);
    while (w.n < p->limit && walk_next(&w, &r)) {
        unsigned j = w.n - 1;
        if (j < p->k)
            add_span(out, r.base, r.size);
        else {
            add_span(out, r.base, p->off);
            break;
        }
    }
    out->regions_used = p->n;
}

/* Not wrapped: from the start offset to the pointer. */
static void spans_linear(const struct fwpt_readback_in *in, struct fwpt_readback *out, const struct wpos *p)
{
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    while (w.n < p->limit && walk_next(&w, &r)) {
        unsigned j = w.n - 1;
        uint64_t from = j == 0 ? p->start_off : 0;
        if (j < p->k)
            add_span(out, r.base + from, r.size - from);
        else {
            add_span(out, r.base + from, p->off > from ? p->off - from : 0);
            break;
        }
    }
    out->regions_used = p->k + (p->off ? 1 : 0);
}

/* Why tracing ended: IA32_RTIT_STATUS.Error, the ToPA STOP region filled (Stopped, OutputOffset = its size),
 * TraceStop (Stopped inside a region), a wrap, or TraceEn=0; and whether every byte produced is kept. */
static void set_reason(struct fwpt_readback *out, const struct wpos *p)
{
    if (out->error) {
        out->reason = R_ERROR;
    } else if (out->stopped && p->off == p->k_size) {
        out->reason = R_TOPA_STOP;
    } else if (out->stopped) {
        out->reason = R_STOPPED;
        out->complete = !out->wrapped;
    } else {
        out->reason = out->wrapped ? R_WRAPPED : R_DISABLED;
        out->complete = !out->wrapped;
    }
}

enum fwpt_status fwpt_readback(const struct fwpt_readback_in *in, struct fwpt_readback *out)
{
    out->count = 0;
    out->bytes = 0;
    out->regions_used = out->regions_total = 0;
    out->wrapped = false;
    out->stopped = (in->status & RTIT_STATUS_STOPPED) != 0;
    out->error = (in->status & RTIT_STATUS_ERROR) != 0;
    out->complete = false;
    out->reason = out->error ? R_ERROR : R_DISABLED;
    if (!(in->ctl & RTIT_CTL_TOPA)) {
        enum fwpt_status st = readback_single_range(in, out);
        if (!out->error)
            out->reason = out->wrapped ? R_WRAPPED : R_DISABLED;
        out->complete = !out->error && !out->wrapped;
        return st;
    }
    if ((in->start_output_base & TABLE_PAGE_MASK) || (in->output_base & TABLE_PAGE_MASK)) {
        out->reason = R_ERROR;
        return out->error ? FWPT_OK : FWPT_E_TOPA; /* TABLE_ALIGN: nothing was written */
    }
    struct wpos p = {.table = in->output_base,
                     .index = fwpt_mask_ptrs_index(in->output_mask_ptrs),
                     .off = fwpt_mask_ptrs_offset(in->output_mask_ptrs),
                     .start_off = fwpt_mask_ptrs_offset(in->start_mask_ptrs),
                     .limit = in->max_regions ? in->max_regions : (1u << 20)};
    find_pointer(in, &p);
    out->regions_total = p.n;
    if (!p.found) {
        if (!find_pointer_on_end(in, &p, out->error))
            return FWPT_E_TOPA;
        if (!p.found && out->error)
            return keep_before_error(in, out, &p);
        if (!p.found)
            return FWPT_E_TOPA;
    }
    if (p.off > p.k_size)
        return FWPT_E_TOPA;
    out->wrapped = detect_wrap(in, &p);
    if (out->wrapped)
        spans_wrapped(in, out, &p);
    else
        spans_linear(in, out, &p);
    set_reason(out, &p);
    return finish(out);
}

uint64_t fwpt_readback_copy(const struct fwpt_physmem *mem, const struct fwpt_readback *rb, uint8_t *buf, uint64_t cap)
{
    uint64_t done = 0;
    size_t n = rb->count < rb->cap ? rb->count : rb->cap;
    for (size_t i = 0; i < n && done < cap; i++) {
        uint64_t phys = rb->spans[i].phys, len = rb->spans[i].len;
        while (len && done < cap) {
            /* page by page: merged spans may cross separately mapped ranges */
            uint64_t chunk = 0x1000 - (phys & 0xfff);
            if (chunk > len)
                chunk = len;
            if (chunk > cap - done)
                chunk = cap - done;
            const void *p = fwpt_physmem_ptr(mem, phys, chunk);
            if (!p)
                return done;
            fwpt_memcpy(buf + done, p, chunk);
            done += chunk;
            phys += chunk;
            len -= chunk;
        }
    }
    return done;
}
