/* fwpt — EFI_LOAD_OPTION and DriverOrder as bytes (pure: no EFI headers, host-tested). Layout (UEFI spec, "Load
 * Options"): UINT32 Attributes, UINT16 FilePathListLength, CHAR16 Description[] (NUL-terminated),
 * EFI_DEVICE_PATH_PROTOCOL FilePathList[] (FilePathListLength bytes), UINT8 OptionalData[] (the rest). */
#include "efi/loadopt.h"
#include "base/text.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

static enum fwpt_status refuse(struct fwpt_loadopt_error *err, const char *field, size_t offset, const char *what,
                               uint64_t value, uint64_t limit)
{
    if (err)
        *err = (struct fwpt_loadopt_error){field, offset, what, value, limit};
    return FWPT_E_BAD_PACKET;
}

enum fwpt_status fwpt_devpath_check(const void *path, size_t len, size_t base, size_t *paths,
                                    struct fwpt_loadopt_error *err)
{
    const uint8_t *p = path;
    size_t at = 0, n = 0;
    bool ended = false; /* the last node seen was an End Entire node */
    if (len == 0)
        return refuse(err, "FilePathList", base, "is empty (a device path needs at least its End node)", 0, 0);
    while (at < len) {
        /* UEFI spec, "Generic Device Path Structures": Type, Sub-Type, Length (UINT16, the whole node) */
        if (len - at < 4)
            return refuse(err, "FilePathList", base + at, "node header cut by FilePathListLength: bytes left, needed",
                          len - at, 4);
        uint16_t nlen = rd16(p + at + 2);
        if (nlen < 4)
            return refuse(err, "FilePathList", base + at, "node Length below the 4-byte header: Length, minimum",
                          nlen, 4);
        if (nlen > len - at)
            return refuse(err, "FilePathList", base + at, "node Length runs past FilePathListLength: Length, bytes left",
                          nlen, len - at);
        ended = p[at] == FWPT_DEVPATH_END_TYPE && p[at + 1] == FWPT_DEVPATH_END_ENTIRE;
        n += ended;
        at += nlen;
    }
    if (!ended)
        return refuse(err, "FilePathList", base + len,
                      "does not end with an End Entire Device Path node (type 0x7f, sub-type 0xff) at "
                      "FilePathListLength: FilePathListLength",
                      len, 0);
    if (paths)
        *paths = n;
    return FWPT_OK;
}

enum fwpt_status fwpt_loadopt_decode(const void *data, size_t size, struct fwpt_loadopt *lo,
                                     struct fwpt_loadopt_error *err)
{
    const uint8_t *d = data;
    fwpt_memset(lo, 0, sizeof *lo);
    if (size < 4)
        return refuse(err, "Attributes", 0, "cut by the end of the option: option bytes, needed", size, 4);
    if (size < FWPT_LOADOPT_HEAD)
        return refuse(err, "FilePathListLength", 4, "cut by the end of the option: option bytes, needed", size,
                      FWPT_LOADOPT_HEAD);
    lo->attributes = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
    size_t fpl = rd16(d + 4);
    if (fpl < 4)
        return refuse(err, "FilePathListLength", 4, "too small for the End node: FilePathListLength, minimum", fpl,
                      4);
    size_t at = FWPT_LOADOPT_HEAD;
    while (size - at >= 2 && rd16(d + at) != 0)
        at += 2;
    if (size - at < 2)
        return refuse(err, "Description", FWPT_LOADOPT_HEAD,
                      "has no NUL terminator (CHAR16 0) before the end of the option: option bytes", size, 0);
    lo->description = d + FWPT_LOADOPT_HEAD;
    lo->description_chars = (at - FWPT_LOADOPT_HEAD) / 2;
    at += 2;
    if (fpl > size - at)
        return refuse(err, "FilePathList", at, "runs past the end of the option: FilePathListLength, bytes left", fpl,
                      size - at);
    enum fwpt_status st = fwpt_devpath_check(d + at, fpl, at, &lo->file_paths, err);
    if (st != FWPT_OK)
        return st;
    lo->file_path_list = d + at;
    lo->file_path_list_len = fpl;
    lo->optional_data = d + at + fpl;
    lo->optional_data_len = size - at - fpl;
    return FWPT_OK;
}

enum fwpt_status fwpt_loadopt_encode(uint32_t attributes, const char *description, const void *file_path,
                                     size_t file_path_len, const void *optional_data, size_t optional_data_len,
                                     void *out, size_t cap, size_t *len, struct fwpt_loadopt_error *err)
{
    size_t chars = fwpt_strlen(description);
    for (size_t i = 0; i < chars; i++)
        if ((unsigned char)description[i] < 0x20 || (unsigned char)description[i] > 0x7e) {
            if (err)
                *err = (struct fwpt_loadopt_error){"Description", FWPT_LOADOPT_HEAD + 2 * i,
                                                   "holds a byte outside printable ASCII: byte", (unsigned char)description[i], 0};
            return FWPT_E_INVAL;
        }
    size_t fp_at = FWPT_LOADOPT_HEAD + 2 * chars + 2;
    if (file_path_len > 0xffff) {
        if (err)
            *err = (struct fwpt_loadopt_error){"FilePathListLength", 4, "does not fit in a UINT16: bytes",
                                               file_path_len, 0xffff};
        return FWPT_E_INVAL;
    }
    if (fwpt_devpath_check(file_path, file_path_len, fp_at, NULL, err) != FWPT_OK)
        return FWPT_E_INVAL;
    *len = fp_at + file_path_len + optional_data_len;
    if (*len > cap)
        return FWPT_E_NOMEM;
    uint8_t *o = out;
    for (int i = 0; i < 4; i++)
        o[i] = (uint8_t)(attributes >> 8 * i);
    wr16(o + 4, (uint16_t)file_path_len);
    for (size_t i = 0; i <= chars; i++)
        wr16(o + FWPT_LOADOPT_HEAD + 2 * i, i < chars ? (uint8_t)description[i] : 0);
    if (file_path_len)
        fwpt_memcpy(o + fp_at, file_path, file_path_len);
    if (optional_data_len)
        fwpt_memcpy(o + fp_at + file_path_len, optional_data, optional_data_len);
    return FWPT_OK;
}

size_t fwpt_loadopt_description(const struct fwpt_loadopt *lo, char *out, size_t cap)
{
    size_t n = 0;
    for (; n < lo->description_chars && n + 1 < cap; n++) {
        uint16_t c = rd16(lo->description + 2 * n);
        out[n] = c >= 0x20 && c <= 0x7e ? (char)c : '?';
    }
    if (cap)
        out[n] = 0;
    return lo->description_chars;
}

bool fwpt_loadopt_is_fwpt(const struct fwpt_loadopt *lo)
{
    static const char want[] = FWPT_LOADOPT_DESCRIPTION;
    if (lo->description_chars != sizeof want - 1)
        return false;
    for (size_t i = 0; i < sizeof want - 1; i++)
        if (rd16(lo->description + 2 * i) != (unsigned char)want[i])
            return false;
    return true;
}

void fwpt_loadopt_put_attributes(const struct fwpt_sink *o, uint32_t a)
{
    const uint32_t known = FWPT_LOAD_OPTION_ACTIVE | FWPT_LOAD_OPTION_FORCE_RECONNECT | FWPT_LOAD_OPTION_HIDDEN |
                           FWPT_LOAD_OPTION_CATEGORY;
    const char *sep = " (";
    fwpt_put_0x(o, a);
    if (!(a & FWPT_LOAD_OPTION_ACTIVE)) {
        fwpt_puts(o, " (inactive");
        sep = ", ";
    }
    if (a & FWPT_LOAD_OPTION_ACTIVE)
        fwpt_puts(o, sep), fwpt_puts(o, "active"), sep = ", ";
    if (a & FWPT_LOAD_OPTION_FORCE_RECONNECT)
        fwpt_puts(o, sep), fwpt_puts(o, "force-reconnect"), sep = ", ";
    if (a & FWPT_LOAD_OPTION_HIDDEN)
        fwpt_puts(o, sep), fwpt_puts(o, "hidden"), sep = ", ";
    if (a & FWPT_LOAD_OPTION_CATEGORY)
        fwpt_puts(o, sep), fwpt_puts(o, "category "), fwpt_put_0x(o, (a & FWPT_LOAD_OPTION_CATEGORY) >> 8), sep = ", ";
    if (a & ~known)
        fwpt_puts(o, sep), fwpt_puts(o, "reserved "), fwpt_put_0x(o, a & ~known);
    fwpt_puts(o, ")");
}

void fwpt_loadopt_error_text(const struct fwpt_loadopt_error *e, char *out, size_t cap)
{
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, out, cap ? cap - 1 : 0);
    fwpt_printf(&s, "%s at byte %lu: ", e->field, (unsigned long)e->offset);
    /* "what: name, name" with the numbers after the colon: "what (name V, name L)" */
    const char *colon = e->what;
    while (*colon && *colon != ':')
        colon++;
    fwpt_putn(&s, e->what, (size_t)(colon - e->what));
    if (*colon) {
        const char *a = colon + 2, *comma = a;
        while (*comma && *comma != ',')
            comma++;
        fwpt_puts(&s, " (");
        fwpt_putn(&s, a, (size_t)(comma - a));
        fwpt_printf(&s, " %llu", (unsigned long long)e->value);
        if (*comma) {
            fwpt_puts(&s, ",");
            fwpt_puts(&s, comma + 1);
            fwpt_printf(&s, " %llu", (unsigned long long)e->limit);
        }
        fwpt_puts(&s, ")");
    }
    if (cap)
        out[bs.len < cap ? bs.len : cap - 1] = 0;
}

void fwpt_loadopt_var_name(const char *prefix, uint16_t number, char out[21])
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (; prefix[n] && n < 16; n++)
        out[n] = prefix[n];
    for (int i = 3; i >= 0; i--)
        out[n++] = hex[number >> (4 * i) & 0xf];
    out[n] = 0;
}

bool fwpt_loadopt_var_number(const char *name, const char *prefix, uint16_t *number)
{
    size_t p = fwpt_strlen(prefix);
    if (fwpt_strncmp(name, prefix, p) != 0 || fwpt_strlen(name + p) != 4)
        return false;
    uint16_t v = 0;
    for (size_t i = p; i < p + 4; i++) {
        char c = name[i];
        if (c >= '0' && c <= '9')
            v = (uint16_t)(v << 4 | (c - '0'));
        else if (c >= 'A' && c <= 'F')
            v = (uint16_t)(v << 4 | (c - 'A' + 10));
        else
            return false;
    }
    *number = v;
    return true;
}

enum fwpt_status fwpt_loadopt_first_free(const uint16_t *used, size_t n, uint16_t *number)
{
    uint64_t taken[65536 / 64];
    fwpt_memset(taken, 0, sizeof taken);
    for (size_t i = 0; i < n; i++)
        taken[used[i] >> 6] |= 1ull << (used[i] & 63);
    for (size_t w = 0; w < sizeof taken / sizeof taken[0]; w++)
        if (taken[w] != ~0ull)
            for (unsigned b = 0; b < 64; b++)
                if (!(taken[w] >> b & 1)) {
                    *number = (uint16_t)(w * 64 + b);
                    return FWPT_OK;
                }
    return FWPT_E_NOMEM;
}

enum fwpt_status fwpt_order_read(const void *bytes, size_t size, uint16_t *order, size_t cap, size_t *n)
{
    *n = 0;
    if (size % 2)
        return FWPT_E_BAD_PACKET;
    if (size / 2 > cap)
        return FWPT_E_NOMEM;
    for (size_t i = 0; i < size / 2; i++)
        order[i] = rd16((const uint8_t *)bytes + 2 * i);
    *n = size / 2;
    return FWPT_OK;
}

size_t fwpt_order_find(const uint16_t *order, size_t n, uint16_t number)
{
    size_t i = 0;
    while (i < n && order[i] != number)
        i++;
    return i;
}

enum fwpt_status fwpt_order_insert(uint16_t *order, size_t *n, size_t cap, size_t pos, uint16_t number)
{
    if (fwpt_order_find(order, *n, number) < *n)
        return FWPT_E_INVAL;
    if (*n >= cap)
        return FWPT_E_NOMEM;
    if (pos > *n)
        pos = *n;
    for (size_t i = *n; i > pos; i--)
        order[i] = order[i - 1];
    order[pos] = number;
    (*n)++;
    return FWPT_OK;
}

enum fwpt_status fwpt_order_remove(uint16_t *order, size_t *n, uint16_t number)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (order[i] != number)
            order[k++] = order[i];
    if (k == *n)
        return FWPT_E_INVAL;
    *n = k;
    return FWPT_OK;
}
