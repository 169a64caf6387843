/* fwpt — console and memory sinks for the EFI app. */
#include <efi.h>
#include <efilib.h>
#include "efi/console.h"
#include "efi/pool.h"

static void screen_write(const char *s, size_t n)
{
    CHAR16 buf[130];
    UINTN k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            buf[k++] = L'\r';
        buf[k++] = (c >= 0x80) ? L'?' : (CHAR16)c; /* ConOut is UCS-2; the app prints ASCII */
        if (k >= 128) {
            buf[k] = 0;
            uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, buf);
            k = 0;
        }
    }
    if (k) {
        buf[k] = 0;
        uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, buf);
    }
}

void fwpt_membuf_append(struct fwpt_membuf *m, const char *s, UINTN n)
{
    if (m->len + n > m->cap) {
        UINTN cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n)
            cap *= 2;
        char *d = AllocatePool(cap);
        if (!d) {
            m->lost += n;
            return;
        }
        if (m->len)
            CopyMem(d, m->data, m->len);
        fwpt_pool_free(m->data);
        m->data = d;
        m->cap = cap;
    }
    CopyMem(m->data + m->len, (void *)s, n);
    m->len += n;
}

void fwpt_membuf_free(struct fwpt_membuf *m)
{
    m->data = fwpt_pool_free(m->data);
    m->len = m->cap = 0;
}

static void membuf_write(void *ctx, const char *s, size_t n) { fwpt_membuf_append(ctx, s, n); }

struct fwpt_sink fwpt_membuf_sink(struct fwpt_membuf *m)
{
    struct fwpt_sink s = {membuf_write, m};
    return s;
}

static void console_write(void *ctx, const char *s, size_t n)
{
    struct fwpt_console *c = ctx;
    if (c->to_screen)
        screen_write(s, n);
    if (c->tee)
        fwpt_membuf_append(c->tee, s, n);
}

struct fwpt_sink fwpt_console_sink(struct fwpt_console *c)
{
    struct fwpt_sink s = {console_write, c};
    return s;
}

static void screen_only(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    screen_write(s, n);
}

struct fwpt_sink fwpt_screen_sink(void)
{
    struct fwpt_sink s = {screen_only, NULL};
    return s;
}
