/* fwpt tests — one walk of libipt's instruction decoder (pt_insn_*) over a trace, with the code
 * from a libipt read callback: sync to each PSB, drain pending events, take instructions until the
 * end of the trace. Header-only (static inline) so that tools built outside the test link
 * (tests/qemu/soft/soft_ptxed.c, tests/soft_selftest.mk) share it with the oracle tests. Hosted C, -lipt. */
#ifndef FWPT_TESTS_IPT_INSN_H
#define FWPT_TESTS_IPT_INSN_H

#include <intel-pt.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tests/common/code_image.h"

/* libipt's read callback over a struct code_image (ctx). */
static inline int code_image_ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
    (void)asid;
    const struct code_image *im = ctx;
    if (ip < im->base || ip - im->base >= im->size)
        return -pte_nomap;
    size_t n = im->size - (ip - im->base);
    if (n > size)
        n = size;
    memcpy(buf, im->code + (ip - im->base), n);
    return (int)n;
}

struct ipt_insn_sink {
    void (*event)(void *ctx, const struct pt_event *ev); /* NULL: events are dropped */
    void (*insn)(void *ctx, const struct pt_insn *insn); /* NULL: instructions are dropped */
    /* NULL, else called after insn with the decoder, which stands just after the instruction
     * (as for pt_insn_time) */
    void (*insn_at)(void *ctx, struct pt_insn_decoder *dec, const struct pt_insn *insn);
    /* NULL: the walk stops at the first decode error; else it is told the error and the trace
     * offset, and the walk goes on from the next PSB (as ptxed does) */
    void (*error)(void *ctx, int status, uint64_t offset);
    void *ctx;
};

/* Walks *dec from where it is to the end of its trace and hands every event and instruction to *s
 * in order. Returns 0 at the end of the trace, else the first libipt error (negative) where the
 * walk stopped. */
static inline int ipt_insn_walk_decoder(struct pt_insn_decoder *dec, const struct ipt_insn_sink *s)
{
    for (;;) {
        int status = pt_insn_sync_forward(dec);
        if (status < 0)
            return status == -pte_eos ? 0 : status;
        struct pt_event ev;
        struct pt_insn insn;
        while (status >= 0) {
            if (status & pts_event_pending) {
                status = pt_insn_event(dec, &ev, sizeof ev);
                if (status >= 0 && s->event)
                    s->event(s->ctx, &ev);
            } else if (status & pts_eos) {
                status = -pte_eos;
            } else if ((status = pt_insn_next(dec, &insn, sizeof insn)) >= 0) {
                if (s->insn)
                    s->insn(s->ctx, &insn);
                if (s->insn_at)
                    s->insn_at(s->ctx, dec, &insn);
            }
        }
        if (status != -pte_eos) {
            if (!s->error)
                return status;
            uint64_t off = 0;
            pt_insn_get_offset(dec, &off);
            s->error(s->ctx, status, off);
        }
    }
}

/* ipt_insn_walk_decoder on a new decoder from *config with the code from read. Returns as it
 * does, or -pte_nomem; *offset (may be NULL): the trace offset the decoder reached. */
static inline int ipt_insn_walk_config(const struct pt_config *config, read_memory_callback_t *read, void *read_ctx,
                                       const struct ipt_insn_sink *s, uint64_t *offset)
{
    struct pt_insn_decoder *dec = pt_insn_alloc_decoder(config);
    if (!dec)
        return -pte_nomem;
    pt_image_set_callback(pt_insn_get_image(dec), read, read_ctx);
    int err = ipt_insn_walk_decoder(dec, s);
    if (offset) {
        *offset = 0;
        pt_insn_get_offset(dec, offset);
    }
    pt_insn_free_decoder(dec);
    return err;
}

/* Decodes trace[0..len) as ipt_insn_walk_config with libipt's default configuration. */
static inline int ipt_insn_walk(const uint8_t *trace, size_t len, read_memory_callback_t *read, void *read_ctx,
                                const struct ipt_insn_sink *s, uint64_t *offset)
{
    struct pt_config config;
    pt_config_init(&config);
    config.begin = (uint8_t *)trace;
    config.end = (uint8_t *)trace + len;
    return ipt_insn_walk_config(&config, read, read_ctx, s, offset);
}

/* The instruction IPs in order, as many as fit (an ipt_insn_sink.insn with ctx = the list). */
struct ipt_ip_list {
    uint64_t *ip;
    size_t n, cap;
};
static inline void ipt_ip_list_add(void *ctx, const struct pt_insn *insn)
{
    struct ipt_ip_list *l = ctx;
    if (l->n < l->cap)
        l->ip[l->n++] = insn->ip;
}

#endif
