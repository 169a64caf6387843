/* fwpt host tool — reading sideband.json: see tools/sideband.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/sideband.h"
#include "base/text.h"

/* ---- a minimal, tolerant JSON reader for sideband.json ---- */
static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Parses a JSON string at p (at '"') into out (cap bytes, truncated); returns the end or NULL. */
const char *fwpt_json_string(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
            if (*p == 'u') { /* \uXXXX: keep ASCII, else '?' */
                unsigned v = 0;
                int k;
                for (k = 1; k <= 4 && p[k]; k++)
                    v = v * 16 + (unsigned)(p[k] <= '9' ? p[k] - '0' : (p[k] | 32) - 'a' + 10);
                p += k - 1;
                c = v < 128 ? (char)v : '?';
            }
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    if (cap)
        out[n] = 0;
    return *p == '"' ? p + 1 : NULL;
}

/* Skips any JSON value; returns the end or NULL. */
static const char *jskip(const char *p, int depth)
{
    p = ws(p);
    if (depth > 64)
        return NULL;
    if (*p == '"') {
        char tmp[1];
        return fwpt_json_string(p, tmp, 0);
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                char tmp[1];
                p = fwpt_json_string(ws(p), tmp, 0);
                if (!p)
                    return NULL;
                p = ws(p);
                if (*p != ':')
                    return NULL;
                p++;
            }
            p = jskip(p, depth + 1);
            if (!p)
                return NULL;
            p = ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
        p++;
    return p;
}

/* A number given as a JSON string ("0x1000", "4096") or a bare number. */
static const char *jnumber(const char *p, uint64_t *v, int *ok)
{
    char buf[64];
    p = ws(p);
    if (*p == '"') {
        p = fwpt_json_string(p, buf, sizeof buf);
    } else {
        size_t n = 0;
        while (*p && ((*p >= '0' && *p <= '9') || (*p | 32) == 'x' || ((*p | 32) >= 'a' && (*p | 32) <= 'f')) &&
               n + 1 < sizeof buf)
            buf[n++] = *p++;
        buf[n] = 0;
    }
    *ok = p && fwpt_parse_u64(buf, 0, v) == 0;
    return p;
}


/* Reads the JSON object at p ('{') into the fields named (other keys skipped); returns the end or NULL. */
const char *fwpt_json_object(const char *p, const struct fwpt_json_field *f, size_t n)
{
    p = ws(p);
    if (*p != '{')
        return NULL;
    p = ws(p + 1);
    while (*p == '"') {
        char key[64];
        p = fwpt_json_string(p, key, sizeof key);
        if (!p)
            return NULL;
        p = ws(p);
        if (*p != ':')
            return NULL;
        p = ws(p + 1);
        size_t i = 0;
        while (i < n && strcmp(key, f[i].key))
            i++;
        int ok = 1;
        if (i < n && f[i].str && *p == '"')
            p = fwpt_json_string(p, f[i].str, f[i].cap);
        else if (i < n && f[i].num)
            p = jnumber(p, f[i].num, &ok);
        else
            p = jskip(p, 0), ok = 0;
        if (!p)
            return NULL;
        if (i < n && f[i].have)
            *f[i].have = ok;
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
    return *p == '}' ? p + 1 : NULL;
}

/* Where the value of the first "key" in text starts (after the colon), or NULL. */
const char *fwpt_json_value(const char *text, const char *key)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *p = strstr(text, quoted);
    if (!p)
        return NULL;
    p = ws(p + strlen(quoted));
    return *p == ':' ? ws(p + 1) : NULL;
}

/* The array of objects at p ('['): each read with fwpt_json_object into f, then handed to each(ctx) (return
 * nonzero to stop with -1). 0 at the end of the array, -1 when malformed. */
int fwpt_json_array(const char *p, const struct fwpt_json_field *f, size_t n, int (*each)(void *ctx), void *ctx)
{
    if (!p || *p != '[')
        return -1;
    p = ws(p + 1);
    while (*p == '{') {
        for (size_t i = 0; i < n; i++) {
            if (f[i].str && f[i].cap)
                f[i].str[0] = 0;
            if (f[i].have)
                *f[i].have = 0;
        }
        p = fwpt_json_object(p, f, n);
        if (!p || each(ctx))
            return -1;
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
    return *p == ']' ? 0 : -1;
}

int fwpt_file_load(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (;;) {
        if (!b) {
            fclose(f);
            errno = ENOMEM;
            return -1;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        uint8_t *nb = realloc(b, cap *= 2);
        if (!nb)
            free(b);
        b = nb;
    }
    /* a read error is never a short file: the caller says so instead of decoding part of it */
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        errno = EIO;
        return -1;
    }
    *data = b;
    *size = n;
    return 0;
}

struct image_fields {
    char name[256], file[512];
    uint64_t base, size;
    int have_base, have_size;
    const char *dir;
    int (*each)(void *ctx, const struct fwpt_sideband_image *im);
    void *ctx;
};

static int read_image(void *ctx)
{
    struct image_fields *v = ctx;
    if (!v->have_base)
        return 0;
    struct fwpt_sideband_image im = {v->name[0] ? v->name : "?", v->base, 0, NULL, 0, NULL, 0};
    char path[2048];
    if (v->file[0]) {
        snprintf(path, sizeof path, "%s/%s", v->dir, v->file);
        im.path = path;
        if (fwpt_file_load(path, &im.code, &im.code_size) != 0) {
            im.err = errno;
            im.code = NULL;
            im.code_size = 0;
        }
    }
    im.size = v->have_size ? v->size : im.code_size;
    return v->each(v->ctx, &im);
}

int fwpt_sideband_images(const char *text, const char *dir,
                         int (*each)(void *ctx, const struct fwpt_sideband_image *im), void *ctx)
{
    struct image_fields v = {.dir = dir, .each = each, .ctx = ctx};
    const struct fwpt_json_field f[] = {
        {"name", v.name, sizeof v.name, NULL, NULL},
        {"file", v.file, sizeof v.file, NULL, NULL},
        {"base", NULL, 0, &v.base, &v.have_base},
        {"size", NULL, 0, &v.size, &v.have_size},
    };
    return fwpt_json_array(fwpt_json_value(text, "images"), f, sizeof f / sizeof f[0], read_image, &v);
}

/* The "cpu" object of sideband.json: vendor, family, model, stepping (a signature of 0 means the
 * processor was not identified). 0: *id filled (known only when family and model were found);
 * 1: no "cpu" object (*id: none); -1: a malformed one. */
int fwpt_sideband_cpu(const char *text, struct fwpt_cpu_id *id)
{
    char vendor[16] = "";
    uint64_t family = 0, model = 0, stepping = 0, signature = 1;
    int have_family = 0, have_model = 0, have_stepping = 0, have_signature = 0;
    const struct fwpt_json_field f[] = {
        {"vendor", vendor, sizeof vendor, NULL, NULL},
        {"family", NULL, 0, &family, &have_family},
        {"model", NULL, 0, &model, &have_model},
        {"stepping", NULL, 0, &stepping, &have_stepping},
        {"signature", NULL, 0, &signature, &have_signature},
    };
    memset(id, 0, sizeof *id);
    if (!strstr(text, "\"cpu\""))
        return 1;
    const char *p = fwpt_json_value(text, "cpu");
    if (!p || !fwpt_json_object(p, f, sizeof f / sizeof f[0]))
        return -1;
    if (!have_signature)
        signature = 1;
    if (!have_family || !have_model || signature == 0 || family > 270 || model > 255)
        return 0; /* the processor was not identified: no errata */
    id->known = true;
    id->intel = !strcmp(vendor, "GenuineIntel");
    id->family = (uint32_t)family;
    id->model = (uint32_t)model;
    id->stepping_known = have_stepping && stepping <= 15;
    id->stepping = id->stepping_known ? (uint32_t)stepping : 0;
    return 0;
}

int fwpt_sideband_time(const char *text, struct fwpt_time_config *cfg, unsigned *found)
{
    *found = 0;
    const char *p = fwpt_json_value(text, "cpuid_15h");
    if (p && *p == '{') {
        uint64_t eax = 0, ebx = 0;
        int have_eax = 0, have_ebx = 0;
        const struct fwpt_json_field f[] = {{"eax", NULL, 0, &eax, &have_eax}, {"ebx", NULL, 0, &ebx, &have_ebx}};
        if (!fwpt_json_object(p, f, 2) || !have_eax || !have_ebx || eax > UINT32_MAX || ebx > UINT32_MAX)
            return -1;
        if (eax && ebx) { /* SDM CPUID leaf 15H: "If EBX[31:0] is 0, the TSC/core crystal clock ratio is not enumerated" */
            cfg->cpuid_15_eax = (uint32_t)eax;
            cfg->cpuid_15_ebx = (uint32_t)ebx;
            *found |= 1;
        }
    }
    p = fwpt_json_value(text, "max_nonturbo_ratio");
    if (p && *p != 'n') {
        uint64_t v;
        int ok;
        jnumber(p, &v, &ok);
        if (!ok || v > 255)
            return -1;
        if (v) {
            cfg->nom_freq = (uint8_t)v;
            *found |= 2;
        }
    }
    p = fwpt_json_value(text, "settings");
    if (p && *p == '{') {
        uint64_t freq = 0;
        int have_freq = 0;
        char en[8] = "";
        const struct fwpt_json_field f[] = {{"mtc_freq", NULL, 0, &freq, &have_freq}};
        if (!fwpt_json_object(p, f, 1))
            return -1;
        const char *e = fwpt_json_value(p, "mtc_en");
        if (e)
            snprintf(en, sizeof en, "%.4s", e);
        if (have_freq && freq <= 15 && !strcmp(en, "true")) {
            cfg->mtc_freq = (uint8_t)freq;
            *found |= 4;
        }
    }
    return 0;
}
