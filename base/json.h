/* fwpt — the one JSON writer: quoted strings with escapes, and the members of objects and arrays
 * one after another, the separators kept by the writer. Every JSON producer uses it (the caps
 * report, packet lines, flow lines, the Trace Event Format, sideband.json). No spaces are added;
 * a caller that wants a line break before a member asks for it (fwpt_json_nl). */
#ifndef FWPT_BASE_JSON_H
#define FWPT_BASE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include "base/text.h"

/* s as a JSON string: quotes, '"' and '\' escaped, control characters as \u00XX. */
void fwpt_put_json_str(const struct fwpt_sink *o, const char *s);
/* The same without the quotes (a string written in parts). */
void fwpt_put_json_chars(const struct fwpt_sink *o, const char *s);

#define FWPT_JSON_DEPTH 16

struct fwpt_json {
    const struct fwpt_sink *o;
    unsigned depth;                /* open objects and arrays */
    uint32_t has_member;           /* bit d: the container at depth d has a member already */
    unsigned newline;              /* the next member starts a line: "\n" and newline - 1 spaces after its separator */
};

void fwpt_json_init(struct fwpt_json *j, const struct fwpt_sink *o);
/* The separator of the next member (',' unless it is the first), then "key": (key NULL: an array
 * element, or the top value: the separator only). */
void fwpt_json_key(struct fwpt_json *j, const char *key);
/* The next member (or the closing bracket) begins a new line, indented by indent spaces. */
void fwpt_json_nl(struct fwpt_json *j, unsigned indent);
/* Opens an object ('{') or array ('[') as the member key; fwpt_json_close ends it. */
void fwpt_json_open(struct fwpt_json *j, const char *key, char bracket);
void fwpt_json_close(struct fwpt_json *j, char bracket);

void fwpt_json_dec(struct fwpt_json *j, const char *key, uint64_t v);          /* 12 */
void fwpt_json_hex(struct fwpt_json *j, const char *key, uint64_t v);          /* "0xc" */
void fwpt_json_reg(struct fwpt_json *j, const char *key, uint32_t v);          /* "0000000c" */
void fwpt_json_bool(struct fwpt_json *j, const char *key, bool v);             /* true */
void fwpt_json_null(struct fwpt_json *j, const char *key);                     /* null */
void fwpt_json_str(struct fwpt_json *j, const char *key, const char *s);        /* "s", or null when s is NULL */
/* "s" for n characters of s taken as they are (the caller knows they need no escape) */
void fwpt_json_strn(struct fwpt_json *j, const char *key, const char *s, size_t n);

#endif
