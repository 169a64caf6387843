/* fwpt — source files for --annotate (see source.h). */
#include "tools/source.h"

#include <stdlib.h>
#include <string.h>

#include "tools/sideband.h"

struct root {
    char *old, *new;
};

struct file {
    char *name;         /* as the symbol file names it */
    uint8_t *text;      /* NULL: could not be read */
    size_t size;
    size_t *line_start; /* line k (from 1) starts at text[line_start[k - 1]] */
    size_t nlines;
};

struct fwpt_sources {
    struct root *roots;
    size_t nroots;
    struct file *files;
    size_t nfiles;
    size_t last; /* the file asked last (the lines of one file come in a row) */
};

struct fwpt_sources *fwpt_sources_new(void) { return calloc(1, sizeof(struct fwpt_sources)); }

int fwpt_sources_add_root(struct fwpt_sources *s, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return -1;
    struct root *r = realloc(s->roots, (s->nroots + 1) * sizeof *r);
    if (!r)
        return -1;
    s->roots = r;
    r[s->nroots].old = strndup(v, (size_t)(eq - v));
    r[s->nroots].new = strdup(eq + 1);
    if (!r[s->nroots].old || !r[s->nroots].new)
        return -1;
    s->nroots++;
    return 0;
}

/* name's text: through the roots whose OLD begins it, in order, then name itself. */
static void load(const struct fwpt_sources *s, struct file *f)
{
    size_t n = strlen(f->name);
    for (size_t i = 0; i < s->nroots && !f->text; i++) {
        size_t k = strlen(s->roots[i].old);
        if (k > n || strncmp(f->name, s->roots[i].old, k))
            continue;
        char *p = malloc(strlen(s->roots[i].new) + n - k + 1);
        if (!p)
            return;
        strcpy(p, s->roots[i].new);
        strcat(p, f->name + k);
        if (fwpt_file_load(p, &f->text, &f->size) != 0)
            f->text = NULL;
        free(p);
    }
    if (!f->text && fwpt_file_load(f->name, &f->text, &f->size) != 0)
        f->text = NULL;
    if (!f->text)
        return;
    size_t cap = 64;
    f->line_start = malloc(cap * sizeof *f->line_start);
    for (size_t at = 0; f->line_start && at < f->size;) {
        if (f->nlines == cap) {
            size_t *v = realloc(f->line_start, (cap *= 2) * sizeof *v);
            if (!v) {
                free(f->line_start), f->line_start = NULL;
                break;
            }
            f->line_start = v;
        }
        f->line_start[f->nlines++] = at;
        const uint8_t *nl = memchr(f->text + at, '\n', f->size - at);
        at = nl ? (size_t)(nl - f->text) + 1 : f->size;
    }
    if (!f->line_start) { /* out of memory: as if not found */
        free(f->text);
        f->text = NULL;
        f->nlines = 0;
    }
}

static int line_of(void *ctx, const char *name, uint32_t line, const char **out, size_t *len)
{
    struct fwpt_sources *s = ctx;
    struct file *f = NULL;
    if (s->last < s->nfiles && !strcmp(s->files[s->last].name, name))
        f = &s->files[s->last];
    for (size_t i = 0; !f && i < s->nfiles; i++)
        if (!strcmp(s->files[i].name, name))
            f = &s->files[i], s->last = i;
    if (!f) {
        struct file *v = realloc(s->files, (s->nfiles + 1) * sizeof *v);
        if (!v)
            return -1;
        s->files = v;
        f = &v[s->nfiles];
        memset(f, 0, sizeof *f);
        if (!(f->name = strdup(name)))
            return -1;
        s->last = s->nfiles++;
        load(s, f);
    }
    if (!f->text)
        return -1;
    if (!line || line > f->nlines)
        return 0;
    size_t a = f->line_start[line - 1], b = line < f->nlines ? f->line_start[line] : f->size;
    while (b > a && (f->text[b - 1] == '\n' || f->text[b - 1] == '\r'))
        b--;
    *out = (const char *)f->text + a;
    *len = b - a;
    return 1;
}

struct fwpt_source fwpt_sources_provider(struct fwpt_sources *s) { return (struct fwpt_source){line_of, s}; }

void fwpt_sources_free(struct fwpt_sources *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nroots; i++)
        free(s->roots[i].old), free(s->roots[i].new);
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i].name), free(s->files[i].text), free(s->files[i].line_start);
    free(s->roots);
    free(s->files);
    free(s);
}
