/* fwpt tests — listing the recorded firmware traces (fw_traces.h). */
#include "tests/common/fw_traces.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/tool_run.h"

/* FWPT_BENCH_FW unset: this build's bench/fw when it is there */
static void fw_traces_default(void)
{
    const char *b = getenv("FWPT_BUILD");
    char def[4200];
    snprintf(def, sizeof def, "%s/bench/fw", b && *b ? b : "build");
    if (!getenv("FWPT_BENCH_FW") && access(def, R_OK) == 0)
        setenv("FWPT_BENCH_FW", def, 1);
}

int fw_traces(const char *who, struct fw_trace **out)
{
    *out = NULL;
    fw_traces_default();
    const char *root = getenv("FWPT_BENCH_FW");
    if (!root || !*root) {
        printf("%s: no firmware traces (FWPT_BENCH_FW unset; make bench records them)\n", who);
        return 0;
    }
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "%s: FWPT_BENCH_FW=%s: cannot open it\n", who, root);
        return -1;
    }
    struct fw_trace *t = calloc((size_t)n + 1, sizeof *t);
    int found = 0, bad = !t;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/%s/fwpt/trace.pt", root, name);
        if (t && name[0] != '.' && access(probe, R_OK) == 0) { /* the logs beside the directories: skipped */
            if (strlen(name) >= sizeof t->name || strlen(root) + strlen(name) + 7 >= sizeof t->dir) {
                fprintf(stderr, "%s: %s: name too long\n", who, probe);
                bad = 1;
            } else {
                strcpy(t[found].name, name);
                snprintf(t[found].dir, sizeof t->dir, "%s/%s/fwpt", root, name);
                found++;
            }
        }
        free(names[i]);
    }
    free(names);
    if (bad || !found) {
        if (!bad)
            fprintf(stderr, "%s: FWPT_BENCH_FW=%s holds no TARGET/fwpt/trace.pt\n", who, root);
        free(t);
        return -1;
    }
    *out = t;
    return found;
}

static int cmp_base(const void *a, const void *b)
{
    const struct fw_image *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

int fw_images(const char *who, const char *dir, struct fw_image **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s: cannot open the directory\n", who, dir);
        return -1;
    }
    struct fw_image *im = NULL;
    int n = 0, cap = 0, bad = 0;
    struct dirent *de;
    while (!bad && (de = readdir(d))) {
        unsigned long long b;
        if (sscanf(de->d_name, "img-%llx.bin", &b) != 1)
            continue;
        if (n == cap) { /* grown: a trace may run code in any number of images */
            struct fw_image *g = cap < 1 << 20 ? realloc(im, (size_t)(cap ? 2 * cap : 64) * sizeof *im) : NULL;
            if (!g) {
                fprintf(stderr, "%s: %s: out of memory at image %d\n", who, dir, n + 1);
                bad = 1;
                break;
            }
            im = g;
            cap = cap ? 2 * cap : 64;
        }
        im[n].base = b;
        snprintf(im[n].path, sizeof im[n].path, "%s/%s", dir, de->d_name);
        if (!(im[n].code = (uint8_t *)slurp(im[n].path, &im[n].size))) {
            fprintf(stderr, "%s: %s: cannot read it\n", who, im[n].path);
            bad = 1;
        } else
            n++;
    }
    closedir(d);
    if (bad) {
        while (n--)
            free(im[n].code);
        free(im);
        return -1;
    }
    if (n)
        qsort(im, (size_t)n, sizeof *im, cmp_base);
    *out = im;
    return n;
}

size_t fw_images_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct fw_image_set *c = ctx;
    for (int i = 0; i < c->n; i++)
        if (ip - c->im[i].base < c->im[i].size) {
            *bytes = c->im[i].code + (ip - c->im[i].base);
            return c->im[i].size - (ip - c->im[i].base);
        }
    return 0;
}
