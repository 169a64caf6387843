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
    uint64_t cur_table = in->output_base, cur_index = fwpt_mask_ptrs_index(in->output_mask_ptrs);
    uint64_t off = fwpt_mask_ptrs_offset(in->output_mask_ptrs);
    uint64_t start_off = fwpt_mask_ptrs_offset(in->start_mask_ptrs);
    unsigned limit = in->max_regions ? in->max_regions : (1u << 20);

    /* Pass 1: the position of the write pointer on the walk, and the ring length. */
    struct walk w;
    struct wregion r;
    walk_init(&w, in);
    bool found = false;
    unsigned k = 0;
    uint64_t k_size = 0, k_base = 0;
    while (w.n < limit && walk_next(&w, &r)) {
        if (w.n == 1) {
            /* The start offset holds only for a region entry at the start; through END it is 0. */
            if (r.table != w.start_table || r.index != w.start_index)
                start_off = 0;
            else if (start_off > r.size)
                start_off = r.size;
        }
        if (!found && r.table == cur_table && r.index == cur_index) {
            found = true;
            k = w.n - 1;
            k_size = r.size;
            k_base = r.base;
        }
    }
    unsigned n = w.n;
    bool ring = w.closed;
    out->regions_total = n;
    if (!found) {
        /* The pointer may sit on an END entry, or on the bad entry that raised the error. */
        uint64_t raw;
        if (!fwpt_physmem_read64(in->mem, fwpt_topa_entry_addr(cur_table, cur_index), &raw))
            return FWPT_E_TOPA;
        struct fwpt_topa_entry e;
        fwpt_topa_decode(raw, &e);
        if (e.end && off == 0 && !out->error) {
            /* On END: the data ends where the END leads, at offset 0 of that table's entry 0. */
            walk_init(&w, in);
            while (w.n < limit && walk_next(&w, &r))
                if (r.table == e.base && r.index == 0) {
                    found = true;
                    k = w.n - 1;
                    k_size = r.size;
                    k_base = r.base;
                    break;
                }
        }
        if (!found && out->error) {
            /* Error on an entry the walk cannot enter (e.g. a bad END): keep every region before it. */
            walk_init(&w, in);
            unsigned j = 0;
            bool at = cur_table == w.table && cur_index == w.index;
            while (!at && w.n < limit && walk_next(&w, &r)) {
                add_span(out, r.base + (j == 0 ? start_off : 0), r.size - (j == 0 ? start_off : 0));
                j++;
                at = w.table == cur_table && w.index == cur_index;
            }
            if (!at)
                return FWPT_E_TOPA;
            out->regions_used = j;
            return finish(out);
        }
        if (!found)
            return FWPT_E_TOPA;
    }
    if (off > k_size)
        return FWPT_E_TOPA;

    bool wrapped = false;
    if (in->wrap == FWPT_WRAP_YES)
        wrapped = true;
    else if (in->wrap == FWPT_WRAP_DETECT && ring) {
        wrapped = nonzero(in->mem, k_base + off, k_size - off);
        walk_init(&w, in);
        while (!wrapped && w.n < limit && walk_next(&w, &r))
            if (w.n - 1 > k)
                wrapped = nonzero(in->mem, r.base, r.size);
    }
    out->wrapped = wrapped;

    walk_init(&w, in);
    if (wrapped) {
        /* Oldest first: rest of region k, regions after k, around to regions before k, then k up to the pointer. */
        while (w.n < limit && walk_next(&w, &r)) {
            unsigned j = w.n - 1;
            if (j == k)
                add_span(out, r.base + off, r.size - off);
            else if (j > k)
                add_span(out, r.base, r.size);
        }
        walk_init(&w, in);
        while (w.n < limit && walk_next(&w, &r)) {
            unsigned j = w.n - 1;
            if (j < k)
                add_span(out, r.base, r.size);
            else {
                add_span(out, r.base, off);
                break;
            }
        }
        out->regions_used = n;
    } else {
        while (w.n < limit && walk_next(&w, &r)) {
            unsigned j = w.n - 1;
            uint64_t from = j == 0 ? start_off : 0;
            if (j < k)
                add_span(out, r.base + from, r.size - from);
            else {
                add_span(out, r.base + from, off > from ? off - from : 0);
                break;
            }
        }
        out->regions_used = k + (off ? 1 : 0);
    }
    if (out->error) {
        out->reason = R_ERROR;
    } else if (out->stopped && off == k_size) {
        out->reason = R_TOPA_STOP;
    } else if (out->stopped) {
        out->reason = R_STOPPED;
        out->complete = !wrapped;
    } else {
        out->reason = wrapped ? R_WRAPPED : R_DISABLED;
        out->complete = !wrapped;
    }
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
