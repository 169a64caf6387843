/* A program that links the fwpt decoder through its public API only (docs/api.md): decodes a raw Intel PT trace
 * whose code is one image file loaded at one address, and prints how many instructions ran, the decode errors,
 * and the instructions per function entry (self: while the function was the innermost frame) with its calls.
 *
 *     cc profile.c $(pkg-config --cflags --libs fwpt) -o profile
 *     ./profile trace.pt code.bin@100000
 *
 * Output (the same counts as `fwpt flow TRACE --image FILE@ADDR --cpu none` lists, and its --profile shows):
 *     instructions 3
 *     errors 0
 *     function 0x100008 self 1 calls 1
 * Exit status: 0 the whole trace decoded; 1 decode errors, or unusable input; 2 bad usage; 3 the trace ends with
 * tracing on (the result is incomplete). */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fwpt/fwpt.h>

struct image {
    const uint8_t *bytes;
    size_t size;
    uint64_t base;
};

/* fwpt_flow_read_fn: the code bytes at ip, read in place */
static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct image *im = ctx;
    if (ip < im->base || ip - im->base >= im->size)
        return 0;
    *bytes = im->bytes + (ip - im->base);
    return im->size - (size_t)(ip - im->base);
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return NULL;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!nb) {
                fprintf(stderr, "%s: out of memory\n", path);
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

enum { NCACHE = 4096, NFUNCS = 1 << 16, NNODES = 1 << 16, NHASH = 1 << 17 };

int main(int argc, char **argv)
{
    const char *at = argc == 3 ? strrchr(argv[2], '@') : NULL;
    char *end = NULL;
    uint64_t base = at ? strtoull(at + 1, &end, 16) : 0;
    if (!at || at == argv[2] || !at[1] || *end) {
        fprintf(stderr, "usage: %s TRACE IMAGE@ADDR   (ADDR: hex load address of IMAGE; fwpt %s)\n", argv[0],
                fwpt_version());
        return 2;
    }
    char *image_path = strndup(argv[2], (size_t)(at - argv[2]));
    struct image im = {.base = base};
    size_t len = 0;
    uint8_t *trace = read_file(argv[1], &len);
    uint8_t *code = image_path ? read_file(image_path, &im.size) : NULL;
    im.bytes = code;
    struct fwpt_flow *f = malloc(fwpt_flow_size());
    struct fwpt_flow_block *cache = malloc(NCACHE * sizeof *cache);
    struct fwpt_profile *p = malloc(fwpt_profile_size());
    uint64_t mod_insns[1];
    struct fwpt_profile_func *funcs = malloc(NFUNCS * sizeof *funcs);
    struct fwpt_profile_node *nodes = malloc(NNODES * sizeof *nodes);
    uint32_t *hash = malloc(NHASH * sizeof *hash);
    int rc = 1;
    if (!trace || !code || !f || !cache || !p || !funcs || !nodes || !hash) {
        if (trace && code)
            fprintf(stderr, "out of memory\n");
        goto out;
    }

    /* Every instruction and event, one at a time: the instruction count, and the errors named. A trace without a
     * PSB has nothing to decode (FWPT_E_NOSYNC); any other refusal is a bad set-up. */
    enum fwpt_status s = fwpt_flow_init(f, trace, len, read_code, &im, cache, NCACHE);
    if (s != FWPT_OK) {
        fprintf(stderr, "%s: %s (%s)%s\n", argv[1], fwpt_status_msg(s), fwpt_status_name(s),
                s == FWPT_E_NOSYNC ? ": not an Intel PT trace, or cut before its first PSB" : "");
        goto out;
    }
    struct fwpt_flow_event ev;
    uint64_t insns = 0, errors = 0;
    while ((s = fwpt_flow_next(f, &ev)) == FWPT_OK) {
        if (ev.kind == FWPT_FLOW_INSN)
            insns++;
        else if (ev.kind == FWPT_FLOW_ERROR) {
            errors++;
            fprintf(stderr, "%s: decode error at trace offset 0x%" PRIx64 ", ip 0x%" PRIx64 ": %s\n", argv[1],
                    ev.offset, ev.ip, fwpt_status_msg((enum fwpt_status)ev.status));
        }
    }
    if (s != FWPT_E_EOS) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], fwpt_status_msg(s), fwpt_status_name(s));
        goto out;
    }
    uint64_t cut_ip = 0;
    bool cut = fwpt_flow_cut(f, &cut_ip);

    /* The profile, from the summary walk over a fresh decode of the same trace. */
    if ((s = fwpt_flow_init(f, trace, len, read_code, &im, cache, NCACHE)) != FWPT_OK)
        goto out; /* as the first time */
    fwpt_profile_init(p, NULL, mod_insns, funcs, NFUNCS, nodes, NNODES, hash, NHASH);
    uint64_t sum_errors = 0, dropped = 0;
    s = fwpt_summary_profile(f, p, &sum_errors);
    if (s != FWPT_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], fwpt_status_msg(s), fwpt_status_name(s));
        goto out;
    }
    uint64_t prof_insns = fwpt_profile_insns(p, &dropped);
    if (prof_insns != insns || sum_errors != errors) {
        fprintf(stderr, "%s: the summary walk counted %" PRIu64 " instructions and %" PRIu64 " errors, the flow %" PRIu64
                " and %" PRIu64 "\n", argv[1], prof_insns, sum_errors, insns, errors);
        goto out;
    }
    printf("instructions %" PRIu64 "\nerrors %" PRIu64 "\n", insns, errors);
    /* no instruction: no profile (an interrupt alone would show as a call into a function that never ran) */
    for (size_t i = insns ? fwpt_profile_next_top(p, (size_t)-1) : (size_t)-1; i != (size_t)-1;
         i = fwpt_profile_next_top(p, i)) {
        const struct fwpt_profile_func *fn = fwpt_profile_func_at(p, i);
        printf("function 0x%" PRIx64 " self %" PRIu64 " calls %" PRIu64 "\n", fn->entry, fn->insns, fn->calls);
    }
    if (dropped) {
        fprintf(stderr, "%s: %" PRIu64 " functions or call tree nodes did not fit the tables: incomplete\n", argv[1],
                dropped);
        rc = 1;
    } else if (errors || !insns) {
        fprintf(stderr, "%s: %s\n", argv[1], insns ? "decode errors" : "no instruction decoded: no result");
        rc = 1;
    } else if (cut) {
        fprintf(stderr, "%s: the trace ends with tracing on, after 0x%" PRIx64 ": incomplete\n", argv[1], cut_ip);
        rc = 3;
    } else {
        rc = 0;
    }
out:
    free(hash);
    free(nodes);
    free(funcs);
    free(p);
    free(cache);
    free(f);
    free(code);
    free(trace);
    free(image_path);
    return rc;
}
