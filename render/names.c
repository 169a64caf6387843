/* fwpt — names and source positions in the views (see names.h). */
#include "render/names.h"
#include "base/json.h"

const char *fwpt_name_basename(const char *path)
{
    const char *b = path;
    for (const char *c = path; *c; c++)
        if (*c == '/' || *c == '\\')
            b = c + 1;
    return b;
}

void fwpt_name_put(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address)
{
    if (!r->function)
        return;
    fwpt_puts(o, r->function);
    if (address != r->function_entry) {
        fwpt_putc(o, '+');
        fwpt_put_0x(o, address - r->function_entry);
    }
}

int fwpt_name_put_text(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address)
{
    if (!r->function)
        return 0;
    fwpt_name_put(o, r, address);
    if (r->file && r->line) {
        fwpt_puts(o, " (");
        fwpt_puts(o, fwpt_name_basename(r->file));
        fwpt_putc(o, ':');
        fwpt_put_dec(o, r->line);
        fwpt_putc(o, ')');
    }
    return 1;
}

static void key(const struct fwpt_sink *o, const char *prefix, const char *name)
{
    fwpt_puts(o, ",\"");
    fwpt_puts(o, prefix);
    fwpt_puts(o, name);
    fwpt_puts(o, "\":");
}

void fwpt_name_put_json(const struct fwpt_sink *o, const struct fwpt_resolved *r, uint64_t address,
                        const char *prefix, bool listing)
{
    if (r->function) {
        key(o, prefix, "function");
        fwpt_putc(o, '"');
        fwpt_put_json_chars(o, r->function);
        if (!listing && address != r->function_entry) { /* the name: "FUNC+0xOFF" */
            fwpt_putc(o, '+');
            fwpt_put_0x(o, address - r->function_entry);
        }
        fwpt_putc(o, '"');
        if (listing) {
            key(o, prefix, "function_offset");
            fwpt_putc(o, '"');
            fwpt_put_0x(o, address - r->function_entry);
            fwpt_putc(o, '"');
        }
    }
    if (r->file) {
        key(o, prefix, "file");
        fwpt_put_json_str(o, r->file);
    }
    if (r->line) {
        key(o, prefix, "line");
        fwpt_put_dec(o, r->line);
    }
    if (r->inlined) {
        key(o, prefix, "inlined");
        fwpt_puts(o, "true");
    }
}
