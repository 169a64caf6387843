/* fwpt benches — real names for the DEBUG OVMF traces (real_names.h). */
#include "tests/bench/real_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/tool_run.h"
#include "tools/sideband.h"

static const char *dir_of(const char *env, const char *sub, char *buf, size_t n)
{
    const char *e = getenv(env), *b = getenv("FWPT_BUILD");
    if (e && *e)
        snprintf(buf, n, "%s", e);
    else
        snprintf(buf, n, "%s/bench/%s", b && *b ? b : "build", sub);
    return buf;
}

int real_names_dirs(const char **traces, const char **symbols)
{
    static char t[4096], s[4096];
    *traces = dir_of("FWPT_BENCH_FW_DEBUG", "fw-debug", t, sizeof t);
    *symbols = dir_of("FWPT_BENCH_SYMBOLS", "ovmf-debug-full", s, sizeof s);
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/DxeCore.debug", s);
    if (access(t, R_OK) != 0 || access(probe, R_OK) != 0) {
        printf("NOT RUN: the benches with real names: %s missing (make bench records the DEBUG OVMF traces and unpacks "
               "its symbol files when ../shared/ovmf-debug is there)\n", access(t, R_OK) ? t : probe);
        *traces = *symbols = NULL;
        return -1;
    }
    return 0;
}

static char *copy_of(const char *s) { return strdup(s ? s : ""); }

static int add(void *ctx, const struct fwpt_sideband_image *s)
{
    struct real_images *im = ctx;
    struct fwpt_symmap_image *v = realloc(im->v, (im->n + 1) * sizeof *v);
    if (!v) {
        free(s->code);
        return 1;
    }
    im->v = v;
    v[im->n++] = (struct fwpt_symmap_image){copy_of(s->name), s->base, s->size, s->code, s->code_size, copy_of(s->pdb),
                                            copy_of(s->fv_guid)};
    return 0;
}

int real_images_read(const char *dir, struct real_images *out)
{
    char path[4200];
    size_t n;
    *out = (struct real_images){0};
    snprintf(path, sizeof path, "%s/sideband.json", dir);
    char *sb = slurp(path, &n); /* slurp leaves room for the NUL */
    if (!sb) {
        fprintf(stderr, "real_names: cannot read %s\n", path);
        return -1;
    }
    sb[n] = 0;
    int rc = fwpt_sideband_images(sb, dir, add, out);
    free(sb);
    if (rc != 0 || !out->n) {
        fprintf(stderr, "real_names: %s: no images, or the list is malformed\n", path);
        real_images_free(out);
        return -1;
    }
    return 0;
}

void real_images_free(struct real_images *im)
{
    for (size_t i = 0; i < im->n; i++) {
        free((char *)im->v[i].name);
        free((uint8_t *)im->v[i].code);
        free((char *)im->v[i].codeview);
        free((char *)im->v[i].fv_guid);
    }
    free(im->v);
    *im = (struct real_images){0};
}

struct fwpt_symmap *real_names_open(const struct real_images *im, const char *symdir, struct fwpt_resolver *r,
                                    size_t *matched)
{
    struct fwpt_symmap *m = fwpt_symmap_new("bench", stderr, 1);
    if (!m)
        return NULL;
    const char *args[1] = {symdir};
    fwpt_symmap_match(m, args, 1, im->v, im->n);
    *r = fwpt_symmap_resolver(m);
    *matched = 0;
    for (size_t i = 0; i < im->n; i++)
        *matched += fwpt_symmap_file(m, i, NULL) != NULL;
    return m;
}
