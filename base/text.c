#include "base/text.h"

#include <stdarg.h> /* a freestanding header (C11 4p6): va_list is the compiler's, no libc */

void fwpt_putn(const struct fwpt_sink *o, const char *s, size_t n)
{
    if (n)
        o->write(o->ctx, s, n);
}

void fwpt_puts(const struct fwpt_sink *o, const char *s) { fwpt_putn(o, s, fwpt_strlen(s)); }

void fwpt_putc(const struct fwpt_sink *o, char c) { o->write(o->ctx, &c, 1); }

void fwpt_put_dec(const struct fwpt_sink *o, uint64_t v)
{
    char b[20];
    int i = 20;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwpt_putn(o, b + i, (size_t)(20 - i));
}

void fwpt_put_sdec(const struct fwpt_sink *o, int64_t v)
{
    if (v < 0) {
        fwpt_putc(o, '-');
        fwpt_put_dec(o, 0 - (uint64_t)v);
    } else {
        fwpt_put_dec(o, (uint64_t)v);
    }
}

void fwpt_put_hex(const struct fwpt_sink *o, uint64_t v, unsigned min_digits)
{
    static const char digits[] = "0123456789abcdef";
    char b[16];
    int i = 16;
    do {
        b[--i] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (16 - i < (int)min_digits && i > 0)
        b[--i] = '0';
    fwpt_putn(o, b + i, (size_t)(16 - i));
}

void fwpt_put_0x(const struct fwpt_sink *o, uint64_t v)
{
    fwpt_putn(o, "0x", 2);
    fwpt_put_hex(o, v, 0);
}

void fwpt_printf(const struct fwpt_sink *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *lit = fmt; /* start of the literal text not yet written */
    const char *p = fmt;
    while (*p) {
        if (*p != '%') {
            p++;
            continue;
        }
        fwpt_putn(o, lit, (size_t)(p - lit));
        const char *spec = p++;
        unsigned width = 0;
        if (*p == '0')
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (unsigned)(*p++ - '0');
        unsigned lng = 0;
        while (*p == 'l' && lng < 2)
            lng++, p++;
        switch (*p) {
        case 's': fwpt_puts(o, va_arg(ap, const char *)); break;
        case 'c': fwpt_putc(o, (char)va_arg(ap, int)); break;
        case 'd':
            fwpt_put_sdec(o, lng == 0 ? (int64_t)va_arg(ap, int)
                             : lng == 1 ? (int64_t)va_arg(ap, long) : (int64_t)va_arg(ap, long long));
            break;
        case 'u':
        case 'x': {
            uint64_t v = lng == 0 ? va_arg(ap, unsigned)
                         : lng == 1 ? (uint64_t)va_arg(ap, unsigned long) : (uint64_t)va_arg(ap, unsigned long long);
            if (*p == 'u')
                fwpt_put_dec(o, v);
            else
                fwpt_put_hex(o, v, width);
            break;
        }
        case '%': fwpt_putc(o, '%'); break;
        default: /* not in the subset: printed as it stands */
            if (!*p)
                p--;
            fwpt_putn(o, spec, (size_t)(p + 1 - spec));
            break;
        }
        lit = ++p;
    }
    fwpt_putn(o, lit, (size_t)(p - lit));
    va_end(ap);
}

void fwpt_put_padded(const struct fwpt_sink *o, const char *s, unsigned width)
{
    size_t n = fwpt_strlen(s);
    fwpt_putn(o, s, n);
    while (n++ < width)
        fwpt_putc(o, ' ');
}

void fwpt_put_xml(const struct fwpt_sink *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fwpt_puts(o, "&amp;"); break;
        case '<': fwpt_puts(o, "&lt;"); break;
        case '>': fwpt_puts(o, "&gt;"); break;
        case '"': fwpt_puts(o, "&quot;"); break;
        case '\'': fwpt_puts(o, "&#39;"); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fwpt_putc(o, *s);
            break;
        }
    }
}

static void bufsink_write(void *ctx, const char *s, size_t n)
{
    struct fwpt_bufsink *b = ctx;
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    size_t k = n < room ? n : room;
    fwpt_memcpy(b->buf + b->len, s, k);
    b->len += k;
    b->overflow += n - k;
}

struct fwpt_sink fwpt_bufsink_init(struct fwpt_bufsink *b, char *buf, size_t cap)
{
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    b->overflow = 0;
    struct fwpt_sink s = {bufsink_write, b};
    return s;
}

size_t fwpt_strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int fwpt_strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int fwpt_strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

void *fwpt_memset(void *d, int c, size_t n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *fwpt_memcpy(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

int fwpt_memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;
    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

int fwpt_parse_u64(const char *s, int hex_default, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = hex_default ? 16 : 10;
    if (!s || !*s)
        return -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s)
            return -1;
    }
    for (; *s; s++) {
        unsigned d;
        char c = *s;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        if (d >= base)
            return -1;
        if (v > (~0ull - d) / base)
            return -1; /* overflow */
        v = v * base + d;
    }
    *out = v;
    return 0;
}

int fwpt_parse_size(const char *s, uint64_t *out)
{
    char num[32];
    size_t n = s ? fwpt_strlen(s) : 0;
    uint64_t mul = 1, v;
    if (n == 0 || n >= sizeof num)
        return -1;
    fwpt_memcpy(num, s, n + 1);
    char last = num[n - 1];
    if (!(num[0] == '0' && (num[1] == 'x' || num[1] == 'X'))) {
        if (last == 'K' || last == 'k')
            mul = 1ull << 10;
        else if (last == 'M' || last == 'm')
            mul = 1ull << 20;
        else if (last == 'G' || last == 'g')
            mul = 1ull << 30;
        if (mul != 1)
            num[--n] = 0;
    }
    if (fwpt_parse_u64(num, 0, &v))
        return -1;
    if (v > ~0ull / mul)
        return -1;
    *out = v * mul;
    return 0;
}

void fwpt_put_dec_w(const struct fwpt_sink *o, uint64_t v, unsigned width)
{
    char buf[24];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    fwpt_put_dec(&s, v);
    buf[b.len] = 0;
    for (size_t k = b.len; k < width; k++)
        fwpt_putc(o, ' ');
    fwpt_puts(o, buf);
}
