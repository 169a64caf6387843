/* fwpt — the image map (see image.h). */
#include "decode/image.h"

const struct fwpt_module *fwpt_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index)
{
    if (m && m->n) {
        size_t i = m->last < m->n ? m->last : 0;
        if (ip - m->v[i].base < m->v[i].size) {
            if (index)
                *index = i;
            return &m->v[i];
        }
        for (i = 0; i < m->n; i++)
            if (ip - m->v[i].base < m->v[i].size) {
                m->last = i;
                if (index)
                    *index = i;
                return &m->v[i];
            }
    }
    if (index)
        *index = m ? m->n : 0;
    return NULL;
}

/* "Module+0xoff", or nothing outside every module; padded to width when width > 0. */
void fwpt_module_put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width)
{
    char buf[96];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    const struct fwpt_module *m = fwpt_module_find(mods, ip, NULL);
    if (m) {
        fwpt_puts(&s, m->name);
        fwpt_putc(&s, '+');
        fwpt_put_0x(&s, ip - m->base);
    }
    buf[b.len < sizeof buf ? b.len : sizeof buf - 1] = 0;
    if (width)
        fwpt_put_padded(o, buf, width);
    else
        fwpt_puts(o, buf);
}
