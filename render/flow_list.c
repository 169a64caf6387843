/* fwpt — fast instruction listings (see flow_list.h). Every instruction line is the one print_text or
 * print_jsonl (flow_print.c) writes for a FWPT_FLOW_INSN event; test_flow_list compares the two. */
#include "render/flow_list.h"
#include "render/names.h"

#define COPY(d, s, n) __builtin_memcpy((d), (s), (n)) /* constant n: inlined, also in firmware */

/* Copies n bytes in 16-byte pieces: s must be readable and d writable up to n rounded up to 16. */
static inline void copy16(char *d, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k += 16)
        COPY(d + k, s + k, 16);
}

/* The eight hex digits of v (lower case), most significant first in memory order: each nibble spread to a
 * byte, then '0' or 'a' - 10 added to all eight at once. */
static inline uint64_t hex8(uint32_t v)
{
    uint64_t x = v;
    x = (x | x << 16) & 0x0000ffff0000ffffull;
    x = (x | x << 8) & 0x00ff00ff00ff00ffull;
    x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
    uint64_t letter = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull; /* 1 in each byte > 9 */
    x += 0x3030303030303030ull + letter * ('a' - '0' - 10);
    return __builtin_bswap64(x);
}

/* 16 hex digits (fwpt_put_hex(v, 16)). */
static inline char *put_hex16(char *d, uint64_t v)
{
    uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);
    COPY(d, &hi, 8);
    COPY(d + 8, &lo, 8);
    return d + 16;
}

/* As few hex digits as needed (fwpt_put_hex(v, 0)); writes up to 16 bytes from d. */
static inline char *put_hex(char *d, uint64_t v)
{
    unsigned nd = v ? (67u - (unsigned)__builtin_clzll(v)) >> 2 : 1u;
    if (nd <= 8) {
        uint64_t w = hex8((uint32_t)v) >> (8 * (8 - nd)); /* drops the leading zero digits */
        COPY(d, &w, 8);
    } else {
        uint64_t hi = hex8((uint32_t)(v >> 32)) >> (8 * (16 - nd)), lo = hex8((uint32_t)v);
        COPY(d, &hi, 8);
        COPY(d + nd - 8, &lo, 8);
    }
    return d + nd;
}

static inline char *put_u8(char *d, unsigned v)
{
    if (v >= 100) {
        *d++ = (char)('0' + v / 100);
        v %= 100;
        *d++ = (char)('0' + v / 10);
    } else if (v >= 10) {
        *d++ = (char)('0' + v / 10);
    }
    *d++ = (char)('0' + v % 10);
    return d;
}

/* fwpt_put_json_str without the quotes. */
static char *put_json_chars(char *d, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *d++ = '\\';
            *d++ = (char)c;
        } else if (c < 0x20) {
            COPY(d, "\\u00", 4);
            d[4] = "0123456789abcdef"[c >> 4];
            d[5] = "0123456789abcdef"[c & 15];
            d += 6;
        } else {
            *d++ = (char)c;
        }
    }
    return d;
}

static void list_write(void *ctx, const char *s, size_t n)
{
    struct fwpt_flow_lister *l = ctx;
    if (n > l->cap - l->len) {
        fwpt_flow_list_flush(l);
        if (n > l->cap) {
            l->out->write(l->out->ctx, s, n);
            return;
        }
    }
    fwpt_memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void prefixes(struct fwpt_list_module *pm, const char *name)
{
    size_t n = fwpt_strlen(name);
    fwpt_memset(pm, 0, sizeof *pm);
    if (n <= 76) { /* "Name+0x" + 16 digits stays under put_where's 95-byte cut */
        fwpt_memcpy(pm->text, name, n);
        COPY(pm->text + n, "+0x", 3);
        pm->text_len = (uint8_t)(n + 3);
    }
    if (n <= 103) { /* escaped, it may still be too long: measured */
        char tmp[11 + 6 * 103 + 21];
        char *d = tmp;
        COPY(d, ",\"module\":\"", 11);
        d = put_json_chars(d + 11, name);
        COPY(d, "\",\"module_offset\":\"0x", 21);
        d += 21;
        if ((size_t)(d - tmp) < sizeof pm->json) {
            fwpt_memcpy(pm->json, tmp, (size_t)(d - tmp));
            pm->json_len = (uint8_t)(d - tmp);
        }
    }
}

void fwpt_flow_list_init(struct fwpt_flow_lister *l, const struct fwpt_sink *out, enum fwpt_flow_format fmt,
                           struct fwpt_modules *mods, struct fwpt_list_module *pre, fwpt_disasm_fn disasm,
                           void *disasm_ctx, struct fwpt_list_asm *acache, size_t nacache, char *buf, size_t cap)
{
    fwpt_memset(l, 0, sizeof *l);
    l->bsink.write = list_write;
    l->bsink.ctx = l;
    l->pr.out = &l->bsink;
    l->pr.format = fmt;
    l->pr.mods = mods;
    l->pr.disasm = disasm;
    l->pr.disasm_ctx = disasm_ctx;
    l->out = out;
    l->buf = buf;
    l->cap = cap;
    l->pre = pre;
    if (pre && mods)
        for (size_t i = 0; i < mods->n; i++)
            prefixes(&pre[i], mods->v[i].name);
    if (disasm && acache && nacache) {
        l->acache = acache;
        l->amask = nacache - 1;
        fwpt_memset(acache, 0, nacache * sizeof *acache);
    }
}

void fwpt_flow_list_flush(struct fwpt_flow_lister *l)
{
    if (l->len)
        l->out->write(l->out->ctx, l->buf, l->len);
    l->len = 0;
}

/* fwpt_image_module_find, done when the last module and the last gap between modules do not answer: the same result
 * and the same mods->last. mods->n > 0. */
static const struct fwpt_module *find_slow(struct fwpt_flow_lister *l, uint64_t ip, size_t *idx)
{
    struct fwpt_modules *m = l->pr.mods;
    const struct fwpt_module *r = fwpt_image_module_find(m, ip, idx);
    if (r)
        return r;
    uint64_t lo = 0, hi = ~(uint64_t)0;
    for (size_t i = 0; i < m->n; i++) {
        const struct fwpt_module *v = &m->v[i];
        if (!v->size)
            continue;
        if (ip < v->base) {
            if (v->base - 1 < hi)
                hi = v->base - 1;
        } else if (v->base + v->size > lo) { /* ip >= base + size here: no wrap */
            lo = v->base + v->size;
        }
    }
    l->gap_lo = lo;
    l->gap_hi = hi;
    l->gap_valid = 1;
    return NULL;
}

static inline const struct fwpt_module *find(struct fwpt_flow_lister *l, uint64_t ip, size_t *idx)
{
    struct fwpt_modules *m = l->pr.mods;
    size_t i = m->last < m->n ? m->last : 0;
    if (ip - m->v[i].base < m->v[i].size) {
        *idx = i;
        return &m->v[i];
    }
    if (l->gap_valid && ip - l->gap_lo <= l->gap_hi - l->gap_lo)
        return NULL;
    return find_slow(l, ip, idx);
}

static inline size_t asm_slot(uint64_t ip) { return (size_t)(ip ^ ip >> 13); }

void fwpt_flow_list_names(struct fwpt_flow_lister *l, const struct fwpt_resolver *r, struct fwpt_list_name *cache,
                          size_t ncache)
{
    l->pr.resolver = r;
    l->ncache = r && r->resolve && ncache ? cache : NULL;
    l->nmask = ncache - 1;
    if (l->ncache)
        fwpt_memset(cache, 0, ncache * sizeof *cache);
}

/* What the build's symbols add for ip (struct fwpt_list_name), from the cache, or asked once and kept; NULL when
 * the printer must write the line (no cache, or too long to keep). */
static const struct fwpt_list_name *name_at(struct fwpt_flow_lister *l, uint64_t ip)
{
    if (!l->ncache)
        return NULL;
    struct fwpt_list_name *e = &l->ncache[asm_slot(ip) & l->nmask];
    if (e->used && e->ip == ip)
        return e->slow ? NULL : e;
    struct fwpt_resolved r;
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, e->text, FWPT_LIST_NAME_TEXT);
    e->ip = ip;
    e->used = 1;
    e->named = 0;
    if (fwpt_resolve(l->pr.resolver, ip, &r)) {
        if (l->pr.format == FWPT_FLOW_FMT_JSONL) {
            fwpt_name_put_json(&s, &r, ip, "", true);
        } else if (fwpt_name_put_text(&s, &r, ip)) {
            e->named = 1;
            while (b.len < 28 && !b.overflow)
                fwpt_putc(&s, ' ');
        }
    }
    e->slow = b.overflow != 0;
    e->len = (uint8_t)b.len;
    return e->slow ? NULL : e;
}

/* What the printer appends for the disassembly: "  TEXT" or ",\"asm\":\"TEXT\"" (nothing when the hook has
 * none), from the cache when it holds (ip, mode). Up to 772 bytes. */
static char *put_asm(struct fwpt_flow_lister *l, char *d, uint64_t ip, uint8_t mode)
{
    struct fwpt_list_asm *e = NULL;
    if (l->acache) {
        e = &l->acache[asm_slot(ip) & l->amask];
        if (e->used && e->ip == ip && e->mode == mode) {
            copy16(d, e->text, e->len);
            return d + e->len;
        }
    }
    char text[128], *s = d;
    if (l->pr.disasm(l->pr.disasm_ctx, ip, mode, text, sizeof text)) {
        text[sizeof text - 1] = 0;
        if (l->pr.format == FWPT_FLOW_FMT_JSONL) {
            COPY(d, ",\"asm\":\"", 8);
            d = put_json_chars(d + 8, text);
            *d++ = '"';
        } else {
            size_t n = fwpt_strlen(text);
            d[0] = ' ';
            d[1] = ' ';
            fwpt_memcpy(d + 2, text, n);
            d += 2 + n;
        }
    }
    if (e && (size_t)(d - s) <= sizeof e->text) {
        e->used = 1;
        e->ip = ip;
        e->mode = mode;
        e->len = (uint8_t)(d - s);
        fwpt_memcpy(e->text, s, (size_t)(d - s));
    }
    return d;
}

/* An instruction the fast path leaves to the printer. */
static void list_slow(struct fwpt_flow_lister *l, const struct fwpt_flow_obuf_insn *in)
{
    struct fwpt_flow_event ev;
    fwpt_memset(&ev, 0, sizeof ev);
    ev.kind = FWPT_FLOW_INSN;
    ev.size = in->size;
    ev.iclass = in->iclass;
    ev.mode = in->mode;
    ev.ip = in->ip;
    fwpt_flow_print_event(&l->pr, &ev);
}

static const char spaces[33] = "                                ";

/* The listing's lines as the printer writes them: print_text's "0x<ip16>  Module+0xoff<pad to 28>  <size>[ ?][  asm]\n",
 * or print_jsonl's {"type":"insn","ip":"0x..","size":N[,"module":"..","module_offset":"0x.."][,"asm":".."][,"spec":true]}.
 * One loop for both formats: json is a constant in list_text and list_jsonl, each a copy the compiler specialises. */
static inline __attribute__((always_inline)) void list_lines(struct fwpt_flow_lister *l,
                                                             const struct fwpt_flow_obuf_insn *v, uint32_t n,
                                                             const bool json)
{
    const int have_mods = l->pr.mods && l->pr.mods->n;
    const int names = l->pr.resolver && l->pr.resolver->resolve;
    for (uint32_t k = 0; k < n; k++) {
        const struct fwpt_flow_obuf_insn *in = &v[k];
        if (l->cap - l->len < FWPT_LIST_LINE_MAX)
            fwpt_flow_list_flush(l);
        char *d = l->buf + l->len;
        if (json) {
            COPY(d, "{\"type\":\"insn\",\"ip\":\"0x", 23);
            d = put_hex(d + 23, in->ip);
            COPY(d, "\",\"size\":", 9);
            d = put_u8(d + 9, in->size);
        } else {
            d[0] = '0';
            d[1] = 'x';
            put_hex16(d + 2, in->ip);
            d[18] = ' ';
            d[19] = ' ';
            d += 20;
        }
        const struct fwpt_list_name *nm = NULL;
        if (names) {
            nm = name_at(l, in->ip);
            if (!nm) {
                list_slow(l, in);
                continue;
            }
        }
        if (!json && nm && nm->named) {
            copy16(d, nm->text, nm->len); /* the function's column in place of the module's */
            d += nm->len;
        } else if (have_mods) {
            size_t idx;
            const struct fwpt_module *m = find(l, in->ip, &idx);
            char *w = d;
            if (m) {
                /* the module's prefix, formatted once (fwpt_list_module) */
                const struct fwpt_list_module *pm = l->pre ? &l->pre[idx] : NULL;
                const unsigned len = !pm ? 0 : json ? pm->json_len : pm->text_len;
                if (!len) {
                    list_slow(l, in);
                    continue;
                }
                copy16(d, json ? pm->json : pm->text, len);
                d = put_hex(d + len, in->ip - m->base);
                if (json)
                    *d++ = '"';
            }
            if (!json && d - w < 28) {
                COPY(d, spaces, 32);
                d = w + 28;
            }
        }
        if (json) {
            if (nm) {
                copy16(d, nm->text, nm->len);
                d += nm->len;
            }
            if (l->pr.disasm)
                d = put_asm(l, d, in->ip, in->mode);
            if (l->pr.intx) {
                COPY(d, ",\"spec\":true", 12);
                d += 12;
            }
            *d++ = '}';
        } else {
            const unsigned size = in->size;
            if (size < 10) {
                d[0] = ' ';
                d[1] = ' ';
                d[2] = (char)('0' + size);
                d += 3;
            } else {
                *d++ = ' ';
                d = put_u8(d, size);
            }
            if (l->pr.intx) {
                d[0] = ' ';
                d[1] = '?'; /* inside a TSX transaction */
                d += 2;
            }
            if (l->pr.disasm)
                d = put_asm(l, d, in->ip, in->mode);
        }
        *d++ = '\n';
        l->len = (size_t)(d - l->buf);
    }
}

static void list_text(struct fwpt_flow_lister *l, const struct fwpt_flow_obuf_insn *v, uint32_t n)
{
    list_lines(l, v, n, false);
}

static void list_jsonl(struct fwpt_flow_lister *l, const struct fwpt_flow_obuf_insn *v, uint32_t n)
{
    list_lines(l, v, n, true);
}

void fwpt_flow_list_insns(struct fwpt_flow_lister *l, const struct fwpt_flow_obuf_insn *v, uint32_t n)
{
    l->insns += n;
    if (l->cap < 2 * FWPT_LIST_LINE_MAX) { /* no room for the fast path's lines: the printer, through the buffer */
        for (uint32_t k = 0; k < n; k++)
            list_slow(l, &v[k]);
        return;
    }
    if (l->pr.format == FWPT_FLOW_FMT_JSONL)
        list_jsonl(l, v, n);
    else
        list_text(l, v, n);
}

void fwpt_flow_list_event(struct fwpt_flow_lister *l, const struct fwpt_flow_event *ev)
{
    if (ev->kind == FWPT_FLOW_INSN) {
        struct fwpt_flow_obuf_insn in = {ev->ip, FWPT_FLOW_INSN, ev->size, ev->iclass, ev->mode, 0};
        fwpt_flow_list_insns(l, &in, 1);
        return;
    }
    fwpt_flow_print_event(&l->pr, ev);
}

void fwpt_flow_list_cut(struct fwpt_flow_lister *l, uint64_t ip, uint64_t offset)
{
    fwpt_flow_print_cut(&l->pr, ip, offset);
}
