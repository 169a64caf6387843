/* fwpt — the image map (see image.h). */
#include "decode/image.h"

const struct fwpt_module *fwpt_image_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index)
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
void fwpt_image_module_put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width)
{
    char buf[96];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    const struct fwpt_module *m = fwpt_image_module_find(mods, ip, NULL);
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

const struct fwpt_module *fwpt_image_module_at(const struct fwpt_modules *m, uint64_t ip, int with_code)
{
    if (!m)
        return NULL;
    size_t lo = 0, hi = m->n; /* the first module with base > ip */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->v[mid].base <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        const struct fwpt_module *v = &m->v[k];
        if (with_code ? v->code && ip - v->base < v->code_size : ip - v->base < v->size)
            return v;
        if (k + 4 < lo)
            break; /* overlapping modules: look a few back, no further */
    }
    return NULL;
}

size_t fwpt_image_modules_read(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct fwpt_module *v = fwpt_image_module_at(ctx, ip, 1);
    if (!v)
        return 0;
    *bytes = v->code + (ip - v->base);
    return (size_t)(v->code_size - (ip - v->base));
}
