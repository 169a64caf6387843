/* fwpt — a tiny freestanding text sink and formatter, shared by every printer so that what
 * firmware prints is byte-for-byte what the host tool prints. No libc. */
#ifndef FWPT_BASE_TEXT_H
#define FWPT_BASE_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct fwpt_sink {
    void (*write)(void *ctx, const char *s, size_t n); /* ASCII/UTF-8; '\n' line ends */
    void *ctx;
};

void fwpt_puts(const struct fwpt_sink *o, const char *s);
void fwpt_putc(const struct fwpt_sink *o, char c);
void fwpt_putn(const struct fwpt_sink *o, const char *s, size_t n);
void fwpt_put_dec(const struct fwpt_sink *o, uint64_t v);
void fwpt_put_sdec(const struct fwpt_sink *o, int64_t v);
/* Lower-case hex, no prefix; min_digits pads with zeros (0 = as few as needed). */
void fwpt_put_hex(const struct fwpt_sink *o, uint64_t v, unsigned min_digits);
/* "0x" + hex */
void fwpt_put_0x(const struct fwpt_sink *o, uint64_t v);
/* v in decimal, right-aligned in width (spaces before it). */
void fwpt_put_dec_w(const struct fwpt_sink *o, uint64_t v, unsigned width);
/* Pads s with spaces on the right to width. */
void fwpt_put_padded(const struct fwpt_sink *o, const char *s, unsigned width);
/* Text with & < > " ' as XML entities (SVG, HTML); other control characters dropped. */
void fwpt_put_xml(const struct fwpt_sink *o, const char *s);
/* A printf subset, byte-for-byte what the fwpt_put_* calls print: %s %c %d %u %x with the length
 * modifiers l and ll (%lu, %llx, %ld ...), %0Nx (at least N hex digits, N <= 16) and %%. Nothing
 * else: no other flags, widths or precisions (an unknown conversion is printed as it stands). */
void fwpt_printf(const struct fwpt_sink *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fixed buffer sink: writes beyond cap are counted in 'overflow', never lost silently. */
struct fwpt_bufsink {
    char *buf;
    size_t cap, len, overflow;
};
struct fwpt_sink fwpt_bufsink_init(struct fwpt_bufsink *b, char *buf, size_t cap);

/* Freestanding string helpers (no libc in firmware code). */
size_t fwpt_strlen(const char *s);
int fwpt_strcmp(const char *a, const char *b);
int fwpt_strncmp(const char *a, const char *b, size_t n);
void *fwpt_memset(void *d, int c, size_t n);
void *fwpt_memcpy(void *d, const void *s, size_t n);
int fwpt_memcmp(const void *a, const void *b, size_t n);
/* Parse unsigned: decimal, 0x-hex, or (hex_default) bare hex; suffixes K/M/G when sizes. Returns 0 ok, -1 bad. */
int fwpt_parse_u64(const char *s, int hex_default, uint64_t *out);
int fwpt_parse_size(const char *s, uint64_t *out); /* 4096, 64K, 2M, 1G, 0x1000 */

#endif
