/* fwpt flow's coverage of many traces through one warm decoder (see flow_covmany.h). */
#include "tools/flow_covmany.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/coverage.h"
#include "decode/flow.h"
#include "tools/sideband.h"

#define NBLOCKS (1u << 16) /* as fwpt flow's other walks: 64 KiB of code without a collision */
#define NPATHS (1u << 14)
#define ERR_SHOWN 3        /* decode errors shown per trace (the others counted) */

/* One trace with its code. */
struct input {
    uint8_t *trace;
    size_t len;
    uint64_t recorded;          /* sideband.json's trace bytes (0: not given) */
    struct fwpt_module *mods;   /* sorted by base; names and code its own, but the --image ones (the caller's) */
    size_t n, cap;
    uint64_t filter[FWPT_FLOW_FILTERS][2];
    uint32_t n_filter;
    struct fwpt_errata errata;
    int bad;                    /* images with a bad value in sideband.json */
};

/* Is m one of the --image modules (the caller's), wherever the sort put it? */
static bool given(const struct flow_covmany *a, const struct fwpt_module *m)
{
    for (size_t j = 0; j < a->nimages; j++)
        if (m->name == a->images[j].name && m->code == a->images[j].code && m->base == a->images[j].base)
            return true;
    return false;
}

static void input_free(const struct flow_covmany *a, struct input *in)
{
    for (size_t k = 0; k < in->n; k++)
        if (!given(a, &in->mods[k])) {
            free((char *)in->mods[k].name);
            free((uint8_t *)in->mods[k].code);
        }
    free(in->mods);
    free(in->trace);
    memset(in, 0, sizeof *in);
}

static struct fwpt_module *add_mod(struct input *in)
{
    if (in->n == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 16;
        struct fwpt_module *v = realloc(in->mods, in->cap * sizeof *v);
        if (!v)
            return NULL;
        in->mods = v;
    }
    memset(&in->mods[in->n], 0, sizeof in->mods[0]);
    return &in->mods[in->n++];
}

struct sb_ctx {
    struct input *in;
    const char *sb_path;
};

static int sb_image(void *ctx, const struct fwpt_sideband_image *s)
{
    struct sb_ctx *c = ctx;
    if (s->bad_key) {
        fprintf(stderr, "fwpt flow: %s: images[%u] (\"%s\"): \"%s\": expected %s, got %s\n", c->sb_path, s->index,
                s->name, s->bad_key, s->expected, s->bad_value);
        c->in->bad++;
        return 0;
    }
    struct fwpt_module *m = add_mod(c->in);
    if (!m)
        return 1;
    m->name = strdup(s->name);
    m->base = s->base;
    m->size = s->size;
    m->code = s->code;
    m->code_size = s->code_size;
    if (s->err)
        fprintf(stderr, "fwpt flow: %s: %s (image %s without code: its instructions cannot be decoded)\n", s->path,
                strerror(s->err), s->name);
    return 0;
}

static int cmp_base(const void *a, const void *b)
{
    const struct fwpt_module *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* The trace at path (a saved directory: its trace.pt, sideband.json and images; else a raw trace) with the --image
 * code: 0, or 1 (said on stderr). */
static int input_load(const struct flow_covmany *a, const char *path, struct input *in)
{
    struct stat st;
    char p[4200];
    memset(in, 0, sizeof *in);
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fwpt flow: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (size_t k = 0; k < a->nimages; k++) {
        struct fwpt_module *m = add_mod(in);
        if (!m)
            return 1;
        *m = a->images[k];
    }
    struct fwpt_cpu_id cpu = a->cpu;
    if (!S_ISDIR(st.st_mode)) {
        if (fwpt_file_load(path, &in->trace, &in->len) != 0) {
            fprintf(stderr, "fwpt flow: %s: %s\n", path, strerror(errno));
            return 1;
        }
    } else {
        snprintf(p, sizeof p, "%s/trace.pt", path);
        if (fwpt_file_load(p, &in->trace, &in->len) != 0) {
            fprintf(stderr, "fwpt flow: %s: %s\n", p, strerror(errno));
            return 1;
        }
        snprintf(p, sizeof p, "%s/sideband.json", path);
        char *sb;
        size_t sbn;
        const int loaded = fwpt_sideband_load("fwpt flow", p, &sb, &sbn);
        if (loaded > 0)
            return 1; /* not valid JSON, said */
        if (loaded == 0) {
            struct sb_ctx c = {in, p};
            if (fwpt_sideband_images(sb, path, sb_image, &c) != 0)
                fprintf(stderr, "fwpt flow: %s: no usable \"images\" list (continuing with what was read)\n", p);
            int nf = fwpt_sideband_filters(sb, in->filter, FWPT_FLOW_FILTERS);
            in->n_filter = nf > 0 ? (uint32_t)nf : 0;
            in->recorded = fwpt_sideband_trace_bytes(sb);
            if (!a->have_cpu && fwpt_sideband_cpu(sb, &cpu) < 0)
                cpu = (struct fwpt_cpu_id){0};
            free(sb);
            if (in->bad)
                return 1;
        } else if (!a->nimages) {
            fprintf(stderr, "fwpt flow: %s: %s: no images, so no code to decode with\n", p, strerror(errno));
            return 1;
        }
    }
    if (a->n_filter) {
        in->n_filter = a->n_filter;
        memcpy(in->filter, a->filter, a->n_filter * sizeof a->filter[0]);
    }
    size_t with_code = 0;
    for (size_t k = 0; k < in->n; k++)
        with_code += in->mods[k].code != NULL;
    if (!with_code) {
        fprintf(stderr, "fwpt flow: %s: no code to decode with (a raw trace needs --image FILE@ADDR; a directory "
                        "its images)\n", path);
        return 1;
    }
    fwpt_errata_for_cpu(&cpu, &in->errata);
    qsort(in->mods, in->n, sizeof *in->mods, cmp_base);
    return 0;
}

/* Is the code of b the code of a (the same images at the same addresses, byte for byte)? */
static bool same_code(const struct input *a, const struct input *b)
{
    if (a->n != b->n)
        return false;
    for (size_t k = 0; k < a->n; k++) {
        const struct fwpt_module *x = &a->mods[k], *y = &b->mods[k];
        if (x->base != y->base || x->size != y->size || x->code_size != y->code_size || !x->code != !y->code ||
            (x->code && memcmp(x->code, y->code, x->code_size)))
            return false;
    }
    return true;
}

struct err_ctx {
    const char *path;
    unsigned long shown;
};

static void show_error(void *ctx, const struct fwpt_flow_event *ev)
{
    struct err_ctx *e = ctx;
    if (e->shown++ < ERR_SHOWN)
        fprintf(stderr, "fwpt flow: %s: decode error %s at trace offset 0x%llx (ip 0x%llx): %s\n", e->path,
                fwpt_status_name((enum fwpt_status)ev->status), (unsigned long long)ev->offset,
                (unsigned long long)ev->ip, fwpt_status_msg((enum fwpt_status)ev->status));
}

int flow_covmany_run(const struct flow_covmany *a)
{
    uint8_t *map = calloc(1, a->cov_size);
    struct fwpt_cov *c = malloc(fwpt_cov_size(NBLOCKS, NPATHS));
    FILE *out = fopen(a->cov_path, "wb");
    struct input in[2];
    memset(in, 0, sizeof in);
    if (!out) {
        fprintf(stderr, "fwpt flow: cannot write %s: %s\n", a->cov_path, strerror(errno));
        free(map), free(c);
        return 1;
    }
    if (!map || !c || fwpt_cov_init(c, NBLOCKS, NPATHS, fwpt_image_modules_read, NULL, map, a->cov_size) != FWPT_OK) {
        fprintf(stderr, "fwpt flow: out of memory\n");
        fclose(out), unlink(a->cov_path), free(map), free(c);
        return 1;
    }
    int rc = 0, incomplete = 0;
    uint64_t insns = 0, errors = 0;
    size_t forgot = 0;
    for (size_t i = 0; i < a->n; i++) {
        struct input *cur = &in[i & 1], *prev = &in[(i + 1) & 1];
        const char *path = a->paths[i];
        if (input_load(a, path, cur)) {
            fprintf(stderr, "fwpt flow: %s: input %zu of %zu cannot be decoded: stopped, %s not written\n", path,
                    i + 1, a->n, a->cov_path);
            rc = -1;
            break;
        }
        if (i && !same_code(prev, cur)) {
            fwpt_cov_forget(c); /* other code: the caches no longer hold its blocks */
            forgot++;
        }
        input_free(a, prev);
        struct fwpt_modules mods = {cur->mods, cur->n, 0};
        struct fwpt_flow *f = fwpt_cov_flow(c);
        fwpt_cov_set_reader(c, fwpt_image_modules_read, &mods);
        fwpt_flow_set_errata(f, &cur->errata);
        fwpt_flow_set_filter(f, (const uint64_t (*)[2])cur->filter, cur->n_filter);
        struct err_ctx ec = {path, 0};
        fwpt_cov_set_error_fn(c, show_error, &ec);
        if (a->each)
            memset(map, 0, a->cov_size);
        struct fwpt_cov_result r;
        const enum fwpt_status st = fwpt_cov_decode(c, cur->trace, cur->len, &r);
        uint64_t cut_ip = 0;
        const bool cut = st == FWPT_OK && fwpt_flow_cut(f, &cut_ip);
        printf("coverage: %s: %llu instructions, %llu decode error%s", path, (unsigned long long)r.insns,
               (unsigned long long)r.errors, r.errors == 1 ? "" : "s");
        if (st == FWPT_E_NOSYNC)
            printf(", no PSB: nothing decoded");
        else if (st != FWPT_OK)
            printf(", the decoder stopped: %s", fwpt_status_msg(st));
        else if (cut)
            printf(", ends with tracing on at 0x%llx (incomplete)", (unsigned long long)cut_ip);
        if (cur->recorded && cur->recorded != cur->len)
            printf(", %zu bytes but sideband.json records %llu (incomplete)", cur->len,
                   (unsigned long long)cur->recorded);
        printf("\n");
        if (ec.shown > ERR_SHOWN)
            fprintf(stderr, "fwpt flow: %s: %lu more decode errors not shown\n", path, ec.shown - ERR_SHOWN);
        if (st != FWPT_OK || r.errors || !r.insns)
            rc = 1;
        if (cut || (cur->recorded && cur->recorded != cur->len))
            incomplete = 1;
        insns += r.insns;
        errors += r.errors;
        if (a->each && fwrite(map, 1, a->cov_size, out) != a->cov_size) {
            fprintf(stderr, "fwpt flow: cannot write %s: %s\n", a->cov_path, strerror(errno));
            rc = -1;
            break;
        }
    }
    if (rc >= 0 && !a->each && fwrite(map, 1, a->cov_size, out) != a->cov_size) {
        fprintf(stderr, "fwpt flow: cannot write %s: %s\n", a->cov_path, strerror(errno));
        rc = -1;
    }
    if (fclose(out) != 0 && rc >= 0) {
        fprintf(stderr, "fwpt flow: cannot write %s: %s\n", a->cov_path, strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        unlink(a->cov_path); /* no partial file taken for a result */
    } else {
        printf("coverage: %zu traces, %llu instructions, %llu decode error%s; %s: %s (%zu bytes)%s\n", a->n,
               (unsigned long long)insns, (unsigned long long)errors, errors == 1 ? "" : "s", a->cov_path,
               a->each ? "one bitmap per trace, in the order given" : "the bitmaps summed",
               a->each ? a->n * a->cov_size : a->cov_size,
               forgot ? "; the code changed between traces, caches emptied there" : "");
    }
    input_free(a, &in[0]);
    input_free(a, &in[1]);
    free(map);
    free(c);
    return rc < 0 ? 1 : rc ? 1 : incomplete ? 3 : 0;
}
