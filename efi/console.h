/* fwpt — the EFI app's one text sink: ConOut (ASCII -> CHAR16, '\n' -> "\r\n") and, optionally,
 * a growing pool buffer that becomes a file. Nothing printed is lost silently. */
#ifndef FWPT_EFI_CONSOLE_H
#define FWPT_EFI_CONSOLE_H

#include <efi.h>
#include <stdbool.h>
#include "base/text.h"

/* A growing byte buffer in pool memory. On allocation failure 'lost' counts the bytes dropped. */
struct fwpt_membuf {
    char *data;
    UINTN len, cap, lost;
};
void fwpt_membuf_append(struct fwpt_membuf *m, const char *s, UINTN n);
void fwpt_membuf_free(struct fwpt_membuf *m);
struct fwpt_sink fwpt_membuf_sink(struct fwpt_membuf *m);

struct fwpt_console {
    bool to_screen;           /* false: only the tee (e.g. `quiet` for the packet dump) */
    struct fwpt_membuf *tee;  /* NULL: screen only */
};
struct fwpt_sink fwpt_console_sink(struct fwpt_console *c);
/* Screen only. */
struct fwpt_sink fwpt_screen_sink(void);

#endif
