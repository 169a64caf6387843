/* A trace decoded where it lies, in pieces (decode/packet.h fwpt_pkt_init_segs, decode/flow.h
 * fwpt_flow_init_segs), against the same bytes in one buffer: the same packets (every field, offsets,
 * Last IP), the same errors and resynchronization, the same batch decode, the same PSB searches
 * forward and backward, and the same instruction flow with its events and errors. Pieces are cut at
 * random, at every offset of a stream, and one byte each (every packet straddles a boundary); empty
 * pieces among them. Each piece lies in its own pages, against an inaccessible page on one side (the end
 * or the start, alternately), so a read outside a piece faults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/errata.h"
#include "decode/flow.h"
#include "decode/packet.h"
#include "tests/check.h"
#include "tests/common/code_image.h"
#include "tests/common/pkt_equal.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/rng.h"

static inline uint64_t rng_below(uint64_t *r, unsigned n) { return n ? xorshift64(r) % n : 0; }

/* ---- pieces in guarded pages ---- */

#define MAXSEG 4096
struct pieces {
    struct fwpt_pkt_seg seg[MAXSEG];
    void *map[MAXSEG];
    size_t maplen[MAXSEG];
    uint32_t n;
};

static size_t page; /* the page size: piece_add reads it on first use */

static void pieces_free(struct pieces *ps)
{
    for (uint32_t i = 0; i < ps->n; i++)
        if (ps->map[i])
            munmap(ps->map[i], ps->maplen[i]);
    ps->n = 0;
}

/* bytes [off, off + len) of src as the next piece; against a guard page after it (at_end) or before it */
static void piece_add(struct pieces *ps, const uint8_t *src, size_t len, int at_end)
{
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    uint32_t i = ps->n++;
    size_t body = (len + page - 1) / page * page;
    if (!body)
        body = page;
    size_t total = body + 2 * page;
    uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    mprotect(m, page, PROT_NONE);
    mprotect(m + page + body, page, PROT_NONE);
    uint8_t *p = at_end ? m + page + body - len : m + page;
    memcpy(p, src, len);
    ps->map[i] = m;
    ps->maplen[i] = total;
    ps->seg[i] = (struct fwpt_pkt_seg){p, len};
}

/* cuts: the piece lengths, summing to len */
static void pieces_cut(struct pieces *ps, const uint8_t *buf, const size_t *cuts, uint32_t ncuts)
{
    size_t off = 0;
    for (uint32_t i = 0; i < ncuts; i++) {
        piece_add(ps, buf + off, cuts[i], (int)(i & 1));
        off += cuts[i];
    }
}

static uint32_t random_cuts(uint64_t *rng, size_t len, size_t *cuts, uint32_t max)
{
    uint32_t n = 0;
    size_t left = len;
    while (left && n + 1 < max) {
        size_t c;
        switch (rng_below(rng, 6)) {
        case 0: c = 0; break;                               /* an empty piece */
        case 1: c = 1 + rng_below(rng, 3); break;            /* a few bytes */
        case 2: c = 250 + rng_below(rng, 12); break;         /* about the boundary copy's size */
        default: c = 1 + rng_below(rng, 4096); break;
        }
        if (c > left)
            c = left;
        cuts[n++] = c;
        left -= c;
    }
    if (left)
        cuts[n++] = left;
    return n;
}

/* ---- packets ---- */

struct pkt_log {
    struct fwpt_packet p[PKT_STREAM_MAXPKT * 2 + 64];
    enum fwpt_status st[PKT_STREAM_MAXPKT * 2 + 64];
    uint64_t last_ip[PKT_STREAM_MAXPKT * 2 + 64];
    size_t n;
};

/* the documented loop (decode/packet.h): next, and after an error the next PSB; batch when asked */
static void pkt_walk(struct fwpt_pkt_decoder *d, struct pkt_log *l, int batch)
{
    l->n = 0;
    if (fwpt_pkt_sync_forward(d) != FWPT_OK)
        return;
    size_t cap = sizeof l->p / sizeof l->p[0];
    while (l->n < cap) {
        if (batch) {
            enum fwpt_status s = FWPT_OK;
            size_t want = cap - l->n < 7 ? cap - l->n : 7;
            size_t got = fwpt_pkt_next_batch(d, &l->p[l->n], want, &s);
            for (size_t i = 0; i < got; i++) {
                l->st[l->n] = FWPT_OK;
                l->last_ip[l->n++] = 0;
            }
            if (s == FWPT_OK)
                continue;
            if (s == FWPT_E_EOS)
                break;
            l->p[l->n].offset = d->offset;
            l->st[l->n] = s;
            l->last_ip[l->n++] = 0;
        } else {
            enum fwpt_status s = fwpt_pkt_next(d, &l->p[l->n]);
            l->st[l->n] = s;
            l->last_ip[l->n++] = d->last_ip;
            if (s == FWPT_OK)
                continue;
            if (s == FWPT_E_EOS)
                break;
        }
        if (fwpt_pkt_sync_forward(d) != FWPT_OK)
            break;
    }
}

static int logs_same(const struct pkt_log *a, const struct pkt_log *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->st[i] != b->st[i] || a->last_ip[i] != b->last_ip[i])
            return 0;
        if (a->st[i] == FWPT_OK ? !pkt_same_fields(&a->p[i], &b->p[i]) : a->p[i].offset != b->p[i].offset)
            return 0;
    }
    return 1;
}

static struct pkt_stream st;
static uint8_t bad[PKT_STREAM_BYTES];
static struct pkt_log want, got;
static struct pieces ps;

/* every PSB backward from the end, then forward from 0: the offsets */
static size_t psb_offsets(struct fwpt_pkt_decoder *d, size_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && fwpt_pkt_sync_backward(d) == FWPT_OK)
        out[n++] = d->offset;
    fwpt_pkt_sync_set(d, 0);
    d->sync_offset = FWPT_PKT_NO_SYNC;
    while (n < cap && fwpt_pkt_sync_forward(d) == FWPT_OK)
        out[n++] = d->offset;
    return n;
}

static void check_pieces(const uint8_t *buf, size_t len, const struct fwpt_errata *er, const char *what)
{
    struct fwpt_pkt_decoder one, seg;
    for (int batch = 0; batch < 2; batch++) {
        fwpt_pkt_init(&one, buf, len);
        fwpt_pkt_set_errata(&one, er);
        pkt_walk(&one, &want, batch);
        fwpt_pkt_init_segs(&seg, ps.seg, ps.n);
        fwpt_pkt_set_errata(&seg, er);
        pkt_walk(&seg, &got, batch);
        int same = logs_same(&want, &got);
        CHECK(same);
        if (!same)
            fprintf(stderr, "%s (%s, %u pieces, %zu bytes): %zu vs %zu packets\n", what, batch ? "batch" : "next", ps.n,
                    len, want.n, got.n);
    }
    static size_t a[4096], b[4096];
    fwpt_pkt_init(&one, buf, len);
    fwpt_pkt_init_segs(&seg, ps.seg, ps.n);
    size_t na = psb_offsets(&one, a, 4096), nb = psb_offsets(&seg, b, 4096);
    CHECK(na == nb && !memcmp(a, b, na * sizeof a[0]));
    /* fwpt_pkt_bytes across the pieces */
    static uint8_t copy[PKT_STREAM_BYTES];
    size_t from = len ? (size_t)rng_below(&st.rng, (unsigned)len) : 0;
    CHECK_EQ(fwpt_pkt_bytes(&seg, from, copy, len), len - from);
    CHECK(!memcmp(copy, buf + from, len - from));
}

static size_t cuts[MAXSEG];

/* 300 generated streams (every third corrupted; every fourth with the SKD007 and SKZ84 errata) cut at random,
 * and every 50th of them (up to 4000 bytes) one byte per piece: every packet straddles */
TEST(random_pieces_same_packets)
{
    struct fwpt_errata none = {0}, both = {0};
    both.skd007 = both.skz84 = 1;
    unsigned seeds = 300;
    for (unsigned seed = 1; seed <= seeds; seed++) {
        st.rng = 0x9e3779b97f4a7c15ull * seed;
        size_t len = pkt_stream_build(&st, 50 + rng_below(&st.rng, 3000), seed & 1);
        const uint8_t *buf = st.buf;
        if (seed % 3 == 0) {
            len = pkt_stream_corrupt(&st, bad);
            buf = bad;
        }
        const struct fwpt_errata *er = seed % 4 == 1 ? &both : &none;
        uint32_t n = random_cuts(&st.rng, len, cuts, 256);
        pieces_cut(&ps, buf, cuts, n);
        check_pieces(buf, len, er, "random pieces");
        pieces_free(&ps);
        if (seed % 50 == 0 && len <= 4000) {
            /* one byte per piece: every packet straddles */
            for (size_t i = 0; i < len; i++)
                cuts[i] = 1;
            pieces_cut(&ps, buf, cuts, (uint32_t)len);
            check_pieces(buf, len, er, "one byte per piece");
            pieces_free(&ps);
        }
    }
}

/* every cut point of one stream with PSBs, long packets and errors: two pieces */
TEST(every_cut_point_two_pieces)
{
    struct fwpt_errata none = {0};
    st.rng = 77;
    size_t len = pkt_stream_build(&st, 120, 1);
    len = len > 700 ? 700 : len;
    for (size_t k = 0; k <= len; k++) {
        size_t c2[2] = {k, len - k};
        pieces_cut(&ps, st.buf, c2, 2);
        check_pieces(st.buf, len, &none, "two pieces");
        pieces_free(&ps);
    }
}

/* ---- the instruction flow ---- */

struct ev_log {
    struct fwpt_flow_event *e;
    size_t n, cap;
};

static void flow_walk(struct fwpt_flow *f, struct ev_log *l)
{
    struct fwpt_flow_event ev;
    l->n = 0;
    while (fwpt_flow_next(f, &ev) == FWPT_OK) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 4096;
            l->e = realloc(l->e, l->cap * sizeof *l->e);
        }
        l->e[l->n++] = ev;
    }
}

static int ev_same(const struct fwpt_flow_event *a, const struct fwpt_flow_event *b)
{
    return a->kind == b->kind && a->size == b->size && a->iclass == b->iclass && a->mode == b->mode &&
           a->ip_valid == b->ip_valid && a->async == b->async && a->sync == b->sync && a->detail == b->detail &&
           a->status == b->status && a->ip == b->ip && a->to == b->to && (a->kind == FWPT_FLOW_INSN || a->offset == b->offset);
}

/* 60 generated programs (every third trace corrupted): the instruction flow over random pieces gives the same
 * instructions, events and errors as over one buffer */
TEST(flow_in_pieces_same_events)
{
    static struct fwpt_flow f;
    static struct fwpt_flow_block cache[4096];
    static struct ev_log want_ev, got_ev;
    static uint8_t broken[1 << 20];
    uint64_t rng = 12345;
    unsigned long events = 0, errors = 0;
    for (unsigned seed = 1; seed <= 60; seed++) {
        struct progen_cfg cfg = {.seed = seed, .max_insns = 3000 + 200 * seed, .features = PROGEN_F_ALL};
        struct progen p;
        CHECK(progen_build(&cfg, &p) == 0);
        struct code_image im = {p.base, p.code, p.code_size, 0};
        const uint8_t *trace = p.trace;
        size_t len = p.trace_size;
        if (seed % 3 == 0 && len <= sizeof broken) {
            len = pkt_corrupt(&rng, p.trace, p.trace_size, broken);
            trace = broken;
        }
        CHECK_EQ(fwpt_flow_init(&f, trace, len, code_image_read, &im, cache, 4096), FWPT_OK);
        flow_walk(&f, &want_ev);
        uint32_t n = random_cuts(&rng, len, cuts, 512);
        pieces_cut(&ps, trace, cuts, n);
        CHECK_EQ(fwpt_flow_init_segs(&f, ps.seg, ps.n, code_image_read, &im, cache, 4096), FWPT_OK);
        flow_walk(&f, &got_ev);
        int same = want_ev.n == got_ev.n;
        for (size_t i = 0; same && i < want_ev.n; i++)
            same = ev_same(&want_ev.e[i], &got_ev.e[i]);
        CHECK(same);
        if (!same)
            fprintf(stderr, "flow seed %u: %zu vs %zu items over %u pieces\n", seed, want_ev.n, got_ev.n, ps.n);
        for (size_t i = 0; i < want_ev.n; i++) {
            events += want_ev.e[i].kind != FWPT_FLOW_INSN;
            errors += want_ev.e[i].kind == FWPT_FLOW_ERROR;
        }
        pieces_free(&ps);
        progen_free(&p);
    }
    CHECK(events > 1000);
    CHECK(errors > 10); /* the corrupted traces' errors are compared too */
    printf("flow: 60 traces in pieces, %lu events (%lu errors) compared\n", events, errors);
    free(want_ev.e);
    free(got_ev.e);
}

TEST_MAIN("pkt_segs")
