/* fwpt host tool — reading sideband.json: see tools/sideband.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tools/sideband.h"
#include "base/text.h"
#include "decode/image.h"
#include "decode/packet.h"

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
            if (*p == 'u') { /* \uXXXX: keep ASCII, else '?' (and \u0000: a NUL would cut the string short) */
                unsigned v = 0;
                int k;
                for (k = 1; k <= 4 && p[k]; k++)
                    v = v * 16 + (unsigned)(p[k] <= '9' ? p[k] - '0' : (p[k] | 32) - 'a' + 10);
                p += k - 1;
                c = v && v < 128 ? (char)v : '?';
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
        else if (i < n && f[i].num && strncmp(p, "null", 4)) /* null: not given */
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

/* ---- a strict check of the whole text (RFC 8259 grammar), for the byte offset of what is wrong ---- */
struct jcheck {
    const char *t;
    size_t len, i;
};

static void cws(struct jcheck *c)
{
    while (c->i < c->len && (c->t[c->i] == ' ' || c->t[c->i] == '\t' || c->t[c->i] == '\n' || c->t[c->i] == '\r'))
        c->i++;
}

static int chex(char x) { return (x >= '0' && x <= '9') || ((x | 32) >= 'a' && (x | 32) <= 'f'); }
static int cdigit(const struct jcheck *c) { return c->i < c->len && c->t[c->i] >= '0' && c->t[c->i] <= '9'; }

static int cstring(struct jcheck *c)
{
    c->i++; /* the opening quote */
    while (c->i < c->len) {
        unsigned char x = (unsigned char)c->t[c->i];
        if (x == '"')
            return c->i++, 0;
        if (x < 0x20)
            return -1;
        if (x == '\\') {
            if (++c->i >= c->len)
                return -1;
            x = (unsigned char)c->t[c->i];
            if (x == 'u') {
                for (int k = 0; k < 4; k++)
                    if (++c->i >= c->len || !chex(c->t[c->i]))
                        return -1;
            } else if (!strchr("\"\\/bfnrt", x) || !x) {
                return -1;
            }
        }
        c->i++;
    }
    return -1;
}

static int cvalue(struct jcheck *c, int depth)
{
    cws(c);
    if (c->i >= c->len || depth > 64)
        return -1;
    char x = c->t[c->i];
    if (x == '"')
        return cstring(c);
    if (x == '{' || x == '[') {
        char close = x == '{' ? '}' : ']';
        c->i++;
        cws(c);
        if (c->i < c->len && c->t[c->i] == close)
            return c->i++, 0;
        for (;;) {
            if (close == '}') {
                cws(c);
                if (c->i >= c->len || c->t[c->i] != '"' || cstring(c))
                    return -1;
                cws(c);
                if (c->i >= c->len || c->t[c->i] != ':')
                    return -1;
                c->i++;
            }
            if (cvalue(c, depth + 1))
                return -1;
            cws(c);
            if (c->i >= c->len)
                return -1;
            if (c->t[c->i] == ',') {
                c->i++;
                continue;
            }
            if (c->t[c->i] != close)
                return -1;
            return c->i++, 0;
        }
    }
    static const char *const words[] = {"true", "false", "null"};
    for (size_t w = 0; w < 3; w++) {
        size_t n = strlen(words[w]);
        if (x == words[w][0]) {
            for (size_t k = 0; k < n; k++, c->i++)
                if (c->i >= c->len || c->t[c->i] != words[w][k])
                    return -1;
            return 0;
        }
    }
    if (x == '-')
        c->i++;
    if (!cdigit(c))
        return -1;
    if (c->t[c->i] == '0')
        c->i++;
    else
        while (cdigit(c))
            c->i++;
    if (c->i < c->len && c->t[c->i] == '.') {
        c->i++;
        if (!cdigit(c))
            return -1;
        while (cdigit(c))
            c->i++;
    }
    if (c->i < c->len && (c->t[c->i] | 32) == 'e') {
        c->i++;
        if (c->i < c->len && (c->t[c->i] == '+' || c->t[c->i] == '-'))
            c->i++;
        if (!cdigit(c))
            return -1;
        while (cdigit(c))
            c->i++;
    }
    return 0;
}

int fwpt_json_check(const char *text, size_t len, size_t *at)
{
    struct jcheck c = {text, len, 0};
    if (cvalue(&c, 0) == 0) {
        cws(&c);
        if (c.i == len)
            return 0;
    }
    *at = c.i < len ? c.i : len;
    return -1;
}

void fwpt_json_raw(const char *p, char *out, size_t cap)
{
    const char *e = jskip(p, 0);
    size_t n = e && e > p ? (size_t)(e - p) : strcspn(p, ",}]\n");
    if (n >= cap)
        snprintf(out, cap, "%.*s...", (int)(cap > 4 ? cap - 4 : 0), p);
    else
        snprintf(out, cap, "%.*s", (int)n, p);
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
/* fwpt_json_array's walk, each handed the object it read too */
static int json_array_objects(const char *p, const struct fwpt_json_field *f, size_t n,
                              int (*each)(void *ctx, const char *obj), void *ctx)
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
        const char *obj = p;
        p = fwpt_json_object(p, f, n);
        if (!p || each(ctx, obj))
            return -1;
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
    return *p == ']' ? 0 : -1;
}

struct each_plain {
    int (*each)(void *ctx);
    void *ctx;
};

static int each_plain(void *ctx, const char *obj)
{
    (void)obj;
    struct each_plain *e = ctx;
    return e->each(e->ctx);
}

int fwpt_json_array(const char *p, const struct fwpt_json_field *f, size_t n, int (*each)(void *ctx), void *ctx)
{
    struct each_plain e = {each, ctx};
    return json_array_objects(p, f, n, each_plain, &e);
}

/* Where the value of the member key of the object at obj ('{') starts, or NULL when it has none. */
static const char *member(const char *obj, const char *key)
{
    const char *p = ws(obj + 1);
    while (*p == '"') {
        char k[64];
        p = fwpt_json_string(p, k, sizeof k);
        if (!p || *(p = ws(p)) != ':')
            return NULL;
        p = ws(p + 1);
        if (!strcmp(k, key))
            return p;
        if (!(p = jskip(p, 0)))
            return NULL;
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
    return NULL;
}

int fwpt_file_load(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return -1;
    }
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

int fwpt_sideband_load(const char *cmd, const char *path, char **text, size_t *len)
{
    uint8_t *b;
    size_t n, bad_at;
    if (fwpt_file_load(path, &b, &n) != 0)
        return -1;
    uint8_t *z = realloc(b, n + 1); /* room for the NUL the JSON readers end at */
    if (!z) {
        free(b);
        errno = ENOMEM;
        return -1;
    }
    z[n] = 0;
    if (fwpt_json_check((const char *)z, n, &bad_at) != 0) {
        /* a file cut short, or not sideband.json: nothing in it can be trusted */
        fprintf(stderr, "%s: %s: not valid JSON: %s at byte %zu of %zu\n", cmd, path,
                bad_at >= n   ? "it ends in the middle of a value (cut short?)"
                : z[bad_at] ? "unexpected character"
                            : "a NUL byte",
                bad_at, n);
        free(z);
        return 1;
    }
    *text = (char *)z;
    *len = n;
    return 0;
}

struct image_fields {
    char name[256], file[512], pdb[1024], dpath[1024], fv_guid[64];
    uint64_t base, size, crc, crc_bytes;
    int have_base, have_size, have_crc, have_crc_bytes;
    unsigned index;
    const char *dir;
    int (*each)(void *ctx, const struct fwpt_sideband_image *im);
    void *ctx;
};

static int read_image(void *ctx, const char *obj)
{
    struct image_fields *v = ctx;
    unsigned index = v->index++;
    struct fwpt_sideband_image im = {.name = v->name[0] ? v->name : "?", .base = v->base, .index = index,
                                     .pdb = v->pdb, .device_path = v->dpath, .fv_guid = v->fv_guid};
    /* the FV file GUID: its own key, else the device path's last node FvFile(GUID) (as efi/symbols.c writes it) */
    const char *fv = strstr(v->dpath, "FvFile(");
    if (!v->fv_guid[0] && fv && strlen(fv) >= 7 + 36 + 1 && fv[7 + 36] == ')')
        snprintf(v->fv_guid, sizeof v->fv_guid, "%.36s", fv + 7);
    /* a member there but not read: a value of the wrong kind (null stands for "not given") */
    static const char *const keys[4] = {"base", "size", "name", "file"};
    const int read[4] = {v->have_base, v->have_size, v->name[0] != 0, v->file[0] != 0};
    for (int k = 0; k < 4 && !im.bad_key; k++) {
        const char *at = read[k] ? NULL : member(obj, keys[k]);
        if (at && strncmp(at, "null", 4) && (k < 2 || *at != '"')) {
            im.bad_key = keys[k];
            im.expected = k < 2 ? "a number (\"0x..\" hex or decimal)" : "a string";
            fwpt_json_raw(at, im.bad_value, sizeof im.bad_value);
        }
    }
    /* the file is DIR/file (the app writes img-BASE.bin): a path elsewhere, or a name cut to fit, is never opened */
    if (!im.bad_key && v->file[0] &&
        (strchr(v->file, '/') || !strcmp(v->file, ".") || !strcmp(v->file, "..") ||
         strlen(v->file) + 1 >= sizeof v->file)) {
        im.bad_key = "file";
        im.expected = "the name of a file in the directory (no '/', not \".\" or \"..\", under 511 bytes)";
        const char *at = member(obj, "file"); /* NULL: a text the strict check refuses, read another way here */
        if (at)
            fwpt_json_raw(at, im.bad_value, sizeof im.bad_value);
        else
            snprintf(im.bad_value, sizeof im.bad_value, "\"%.*s\"", (int)sizeof im.bad_value - 6, v->file);
    }
    if (im.bad_key)
        return v->each(v->ctx, &im);
    if (!v->have_base)
        return 0;
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
    if (v->have_crc && im.code) {
        im.crc_recorded = (uint32_t)v->crc;
        im.bytes_recorded = v->have_crc_bytes ? v->crc_bytes : 0;
        im.crc_file = fwpt_image_code_crc32(im.code, im.code_size, &im.bytes_file);
        im.code_check = v->crc <= UINT32_MAX && im.crc_file == im.crc_recorded && im.bytes_file &&
                        (!v->have_crc_bytes || im.bytes_file == v->crc_bytes) ? 1 : -1;
    }
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
        {"pdb", v.pdb, sizeof v.pdb, NULL, NULL},
        {"path", v.dpath, sizeof v.dpath, NULL, NULL},
        {"fv_guid", v.fv_guid, sizeof v.fv_guid, NULL, NULL},
        {"code_crc32", NULL, 0, &v.crc, &v.have_crc},
        {"code_bytes", NULL, 0, &v.crc_bytes, &v.have_crc_bytes},
    };
    return json_array_objects(fwpt_json_value(text, "images"), f, sizeof f / sizeof f[0], read_image, &v);
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

uint64_t fwpt_sideband_trace_bytes(const char *text)
{
    uint64_t bytes = 0;
    int have = 0;
    const struct fwpt_json_field f[] = {{"bytes", NULL, 0, &bytes, &have}};
    const char *p = fwpt_json_value(text, "trace");
    if (!p || *p != '{' || !fwpt_json_object(p, f, 1) || !have)
        return 0;
    return bytes;
}

/* ---- what fwpt flow reads for the IP filter and the report page ---- */
struct filter_fields {
    char cfg[16];
    uint64_t a, b;
    int have_a, have_b;
    uint64_t (*r)[2];
    int n, max;
};

static int add_sideband_filter(void *ctx)
{
    struct filter_fields *v = ctx;
    if (!strcmp(v->cfg, "filter") && v->have_a && v->have_b && v->a <= v->b && v->n < v->max) {
        v->r[v->n][0] = v->a;
        v->r[v->n][1] = v->b;
        v->n++;
    }
    return 0;
}

int fwpt_sideband_filters(const char *text, uint64_t (*r)[2], int max)
{
    struct filter_fields v = {.r = r, .max = max};
    const struct fwpt_json_field f[] = {
        {"cfg", v.cfg, sizeof v.cfg, NULL, NULL},
        {"a", NULL, 0, &v.a, &v.have_a},
        {"b", NULL, 0, &v.b, &v.have_b},
    };
    const char *p = fwpt_json_value(text, "addr_ranges");
    if (!p)
        return strstr(text, "\"addr_ranges\"") ? -1 : 0;
    return fwpt_json_array(p, f, sizeof f / sizeof f[0], add_sideband_filter, &v) ? -1 : v.n;
}

static bool jtrue(const char *obj, const char *key)
{
    const char *v = obj ? fwpt_json_value(obj, key) : NULL;
    return v && !strncmp(v, "true", 4);
}

/* sideband.json's "verify" into r->run.verify: the object the app writes ({"result","scope","compared","total","part",
 * "reason","text"}: docs/formats.md), or the string of fwpt 0.2 before it ("passed", "FAILED", "skipped (...)",
 * "not asked"); what is not known is said on stderr (path: the file) and never shown as passed. */
static void sideband_verify(const char *v, const char *path, struct fwpt_sideband_run *r, fwpt_note_fn note)
{
    struct fwpt_verify *u = &r->run.verify;
    *u = (struct fwpt_verify){.result = FWPT_VERIFY_NOT_RUN, .reason = r->v_reason};
    snprintf(r->v_reason, sizeof r->v_reason, "not recorded in sideband.json");
    if (!v)
        return;
    if (*v == '"') { /* the old string: no scope recorded */
        char old[64] = "";
        fwpt_json_string(v, old, sizeof old);
        if (!strcmp(old, "passed")) {
            u->result = FWPT_VERIFY_PASSED, u->scope = FWPT_VERIFY_UNKNOWN;
        } else if (!strcmp(old, "FAILED")) {
            u->result = FWPT_VERIFY_FAILED, u->reason = NULL;
        } else if (!strncmp(old, "skipped (", 9) && old[strlen(old) - 1] == ')') {
            snprintf(r->v_reason, sizeof r->v_reason, "skipped: %.*s", (int)strlen(old) - 10, old + 9);
        } else if (!strcmp(old, "not asked")) {
            snprintf(r->v_reason, sizeof r->v_reason, "%s", old);
        } else {
            note("fwpt flow: %s: \"verify\": unknown value \"%s\" (the page says not recorded)\n", path, old);
        }
        return;
    }
    uint64_t compared = 0, total = 0;
    int have_c = 0, have_t = 0;
    char reason[sizeof r->v_reason] = "";
    const struct fwpt_json_field f[] = {
        {"result", r->v_result, sizeof r->v_result, NULL, NULL}, {"scope", r->v_scope, sizeof r->v_scope, NULL, NULL},
        {"compared", NULL, 0, &compared, &have_c}, {"total", NULL, 0, &total, &have_t},
        {"part", r->v_part, sizeof r->v_part, NULL, NULL}, {"reason", reason, sizeof reason, NULL, NULL},
    };
    if (*v != '{' || !fwpt_json_object(v, f, sizeof f / sizeof f[0])) {
        note("fwpt flow: %s: \"verify\" is neither an object nor a string (the page says not recorded)\n", path);
        return;
    }
    int res = fwpt_verify_result_parse(r->v_result);
    if (res < 0) {
        note("fwpt flow: %s: \"verify\": unknown result \"%s\" (expected passed, failed or not run; the page says not "
             "recorded)\n", path, r->v_result);
        return;
    }
    snprintf(r->v_reason, sizeof r->v_reason, "%s", reason);
    u->result = (enum fwpt_verify_result)res;
    u->part = r->v_part;
    u->compared = compared;
    u->total = total;
    if (u->result == FWPT_VERIFY_PASSED) {
        int sc = fwpt_verify_scope_parse(r->v_scope);
        if (sc < 0 || sc == FWPT_VERIFY_UNKNOWN || !have_c || !have_t || compared > total ||
            (sc == FWPT_VERIFY_WHOLE && compared != total)) {
            note("fwpt flow: %s: \"verify\": scope \"%s\", compared %llu of %llu: not a scope (expected whole with "
                 "compared = total, or first/newest with compared <= total; the page says the scope is not recorded)\n",
                 path, r->v_scope, (unsigned long long)compared, (unsigned long long)total);
            sc = FWPT_VERIFY_UNKNOWN;
        }
        u->scope = (enum fwpt_verify_scope)sc;
    }
    fwpt_verify_upgrade(u); /* an earlier run's "failed" for a ground truth that did not fit: not run */
}

void fwpt_sideband_run(const char *text, const char *path, struct fwpt_sideband_run *r, fwpt_note_fn note)
{
    uint64_t family = 0, model = 0, stepping = 0, signature = 0, impl_addr = 0, status = 0, bytes = 0;
    int have[8] = {0};
    const struct fwpt_json_field cpu[] = {
        {"vendor", r->vendor, sizeof r->vendor, NULL, NULL}, {"family", NULL, 0, &family, &have[0]},
        {"model", NULL, 0, &model, &have[1]}, {"stepping", NULL, 0, &stepping, &have[2]},
        {"signature", NULL, 0, &signature, &have[3]},
    };
    const struct fwpt_json_field target[] = {
        {"name", r->target, sizeof r->target, NULL, NULL}, {"path", r->path, sizeof r->path, NULL, NULL},
        {"impl", r->impl, sizeof r->impl, NULL, NULL}, {"impl_addr", NULL, 0, &impl_addr, &have[4]},
        {"status", NULL, 0, &status, &have[5]},
    };
    const struct fwpt_json_field trace[] = {
        {"bytes", NULL, 0, &bytes, &have[6]}, {"reason", r->reason, sizeof r->reason, NULL, NULL},
    };
    const char *p;
    if ((p = fwpt_json_value(text, "cpu")))
        fwpt_json_object(p, cpu, sizeof cpu / sizeof cpu[0]);
    if ((p = fwpt_json_value(text, "target")))
        fwpt_json_object(p, target, sizeof target / sizeof target[0]);
    const char *tr = fwpt_json_value(text, "trace");
    if (tr && !fwpt_json_object(tr, trace, sizeof trace / sizeof trace[0]))
        have[6] = 0;
    if ((p = fwpt_json_value(text, "backend")))
        fwpt_json_string(p, r->backend, sizeof r->backend);
    if ((p = fwpt_json_value(text, "profile")))
        fwpt_json_string(p, r->profile, sizeof r->profile);
    sideband_verify(fwpt_json_value(text, "verify"), path, r, note);
    struct fwpt_report_run *u = &r->run;
    u->vendor = r->vendor;
    u->family = (uint32_t)family;
    u->model = (uint32_t)model;
    u->stepping = (uint32_t)stepping;
    u->signature = (uint32_t)signature;
    u->backend = r->backend;
    u->profile = r->profile;
    u->target = r->target;
    u->target_path = r->path;
    u->impl = r->impl;
    u->impl_addr = impl_addr;
    u->target_status = status;
    u->recorded = have[6] != 0;
    if (tr && !have[6])
        note("fwpt flow: %s: \"trace\" without a usable \"bytes\" (the page says what the run recorded is not known)\n",
             path);
    u->trace_bytes = bytes;
    u->trace_reason = r->reason;
    u->wrapped = jtrue(tr, "wrapped");
    u->stopped = jtrue(tr, "stopped");
    u->error = jtrue(tr, "error");
    r->sym.addr = impl_addr;
    r->sym.name = r->impl;
}

int fwpt_trace_refuse(const char *cmd, const char *name, const uint8_t *trace, size_t n)
{
    if (!n) {
        fprintf(stderr, "%s: %s: empty (0 bytes): nothing to decode\n", cmd, name);
        return 1;
    }
    struct fwpt_pkt_decoder dec;
    fwpt_pkt_init(&dec, trace, n);
    if (fwpt_pkt_sync_forward(&dec) != FWPT_OK) {
        /* SDM "Packet Stream Boundary (PSB) Packet": a decoder starts at a PSB; a trace without one has no start */
        fprintf(stderr, "%s: %s: no PSB in its %zu bytes: not an Intel PT trace, or cut before its first PSB; nothing "
                "decoded\n", cmd, name, n);
        return 1;
    }
    return 0;
}
