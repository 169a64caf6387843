/* fwpt — the JSON writer (see json.h). */
#include "base/json.h"

void fwpt_put_json_str(const struct fwpt_sink *o, const char *s)
{
    fwpt_putc(o, '"');
    fwpt_put_json_chars(o, s);
    fwpt_putc(o, '"');
}

void fwpt_put_json_chars(const struct fwpt_sink *o, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fwpt_putc(o, '\\');
            fwpt_putc(o, (char)c);
        } else if (c < 0x20) {
            fwpt_putn(o, "\\u00", 4);
            fwpt_put_hex(o, c, 2);
        } else {
            fwpt_putc(o, (char)c);
        }
    }
}

void fwpt_json_init(struct fwpt_json *j, const struct fwpt_sink *o)
{
    j->o = o;
    j->depth = 0;
    j->has_member = 0;
    j->newline = 0;
}

static void line_break(struct fwpt_json *j)
{
    if (!j->newline)
        return;
    fwpt_putc(j->o, '\n');
    while (--j->newline)
        fwpt_putc(j->o, ' ');
}

void fwpt_json_key(struct fwpt_json *j, const char *key)
{
    uint32_t bit = 1u << j->depth;
    if (j->has_member & bit)
        fwpt_putc(j->o, ',');
    j->has_member |= bit;
    line_break(j);
    if (key) {
        fwpt_put_json_str(j->o, key);
        fwpt_putc(j->o, ':');
    }
}

void fwpt_json_nl(struct fwpt_json *j, unsigned indent)
{
    j->newline = 1 + indent;
}

void fwpt_json_open(struct fwpt_json *j, const char *key, char bracket)
{
    fwpt_json_key(j, key);
    fwpt_putc(j->o, bracket);
    if (j->depth + 1 < FWPT_JSON_DEPTH)
        j->depth++;
    j->has_member &= ~(1u << j->depth);
}

void fwpt_json_close(struct fwpt_json *j, char bracket)
{
    line_break(j);
    fwpt_putc(j->o, bracket);
    if (j->depth)
        j->depth--;
}

void fwpt_json_dec(struct fwpt_json *j, const char *key, uint64_t v)
{
    fwpt_json_key(j, key);
    fwpt_put_dec(j->o, v);
}

void fwpt_json_hex(struct fwpt_json *j, const char *key, uint64_t v)
{
    fwpt_json_key(j, key);
    fwpt_putc(j->o, '"');
    fwpt_put_0x(j->o, v);
    fwpt_putc(j->o, '"');
}

void fwpt_json_reg(struct fwpt_json *j, const char *key, uint32_t v)
{
    fwpt_json_key(j, key);
    fwpt_putc(j->o, '"');
    fwpt_put_hex(j->o, v, 8);
    fwpt_putc(j->o, '"');
}

void fwpt_json_bool(struct fwpt_json *j, const char *key, bool v)
{
    fwpt_json_key(j, key);
    fwpt_puts(j->o, v ? "true" : "false");
}

void fwpt_json_null(struct fwpt_json *j, const char *key)
{
    fwpt_json_key(j, key);
    fwpt_puts(j->o, "null");
}

void fwpt_json_str(struct fwpt_json *j, const char *key, const char *s)
{
    fwpt_json_key(j, key);
    if (s)
        fwpt_put_json_str(j->o, s);
    else
        fwpt_puts(j->o, "null");
}

void fwpt_json_strn(struct fwpt_json *j, const char *key, const char *s, size_t n)
{
    fwpt_json_key(j, key);
    fwpt_putc(j->o, '"');
    fwpt_putn(j->o, s, n);
    fwpt_putc(j->o, '"');
}
