/* Host test of efi/loadopt.c (pure C: compiled in here): EFI_LOAD_OPTION bytes written out from the UEFI spec's
 * layout ("Load Options"), decoded and encoded; every truncation refused with its field; malformed device paths;
 * the Driver#### names, the first free number and the DriverOrder insert / remove. */
#include "tests/check.h"
#include "efi/loadopt.c"

/* Attributes LOAD_OPTION_ACTIVE; Description "fwpt"; FilePathList: a Media File Path node (type 4, sub-type 4,
 * Length 18, PathName "\a.efi") and the End Entire node (7f ff 04 00), FilePathListLength 22; OptionalData "ab". */
static const uint8_t option[] = {
    0x01, 0x00, 0x00, 0x00,                                     /*  0 Attributes */
    0x16, 0x00,                                                 /*  4 FilePathListLength = 22 */
    'f', 0, 'w', 0, 'p', 0, 't', 0, 0, 0,                       /*  6 Description, NUL */
    0x04, 0x04, 0x12, 0x00,                                     /* 16 Media, File Path, Length 18 */
    '\\', 0, 'a', 0, '.', 0, 'e', 0, 'f', 0, 'i', 0, 0, 0,      /* 20 PathName */
    0x7f, 0xff, 0x04, 0x00,                                     /* 34 End Entire Device Path */
    'a', 'b',                                                   /* 38 OptionalData */
};
#define PATH_AT 16
#define PATH_LEN 22

/* The error text of decoding size bytes of p (from an exact-size copy: ASan sees any read past it). */
static enum fwpt_status decode_copy(const uint8_t *p, size_t size, struct fwpt_loadopt *lo, struct fwpt_loadopt_error *e)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, p, size);
    enum fwpt_status st = fwpt_loadopt_decode(copy, size, lo, e);
    /* the pointers must point into the copy: rebase them to p before it goes */
    if (st == FWPT_OK) {
        lo->description = p + (lo->description - copy);
        lo->file_path_list = p + (lo->file_path_list - copy);
        lo->optional_data = p + (lo->optional_data - copy);
    }
    free(copy);
    return st;
}

static const char *err_text(const struct fwpt_loadopt_error *e)
{
    static char buf[200];
    fwpt_loadopt_error_text(e, buf, sizeof buf);
    return buf;
}

TEST(decode_hand_built)
{
    struct fwpt_loadopt lo;
    struct fwpt_loadopt_error e;
    CHECK_EQ(decode_copy(option, sizeof option, &lo, &e), FWPT_OK);
    CHECK_EQ(lo.attributes, FWPT_LOAD_OPTION_ACTIVE);
    CHECK_EQ(lo.description - option, 6);
    CHECK_EQ(lo.description_chars, 4);
    CHECK_EQ(lo.file_path_list - option, PATH_AT);
    CHECK_EQ(lo.file_path_list_len, PATH_LEN);
    CHECK_EQ(lo.file_paths, 1);
    CHECK_EQ(lo.optional_data - option, 38);
    CHECK_EQ(lo.optional_data_len, 2);
    char d[8];
    CHECK_EQ(fwpt_loadopt_description(&lo, d, sizeof d), 4);
    CHECK_STR(d, "fwpt");
    CHECK_EQ(fwpt_loadopt_description(&lo, d, 3), 4); /* cut, said by the length */
    CHECK_STR(d, "fw");
    CHECK(!fwpt_loadopt_is_fwpt(&lo));
}

TEST(encode_gives_the_hand_built_bytes)
{
    uint8_t out[64];
    size_t len = 0;
    CHECK_EQ(fwpt_loadopt_encode(FWPT_LOAD_OPTION_ACTIVE, "fwpt", option + PATH_AT, PATH_LEN, "ab", 2, out, sizeof out,
                                 &len, NULL),
             FWPT_OK);
    CHECK_EQ(len, sizeof option);
    CHECK(memcmp(out, option, sizeof option) == 0);
    /* too small: the size needed, nothing written */
    memset(out, 0xcc, sizeof out);
    CHECK_EQ(fwpt_loadopt_encode(FWPT_LOAD_OPTION_ACTIVE, "fwpt", option + PATH_AT, PATH_LEN, "ab", 2, out,
                                 sizeof option - 1, &len, NULL),
             FWPT_E_NOMEM);
    CHECK_EQ(len, sizeof option);
    CHECK_EQ(out[0], 0xcc);
}

TEST(round_trips)
{
    static const char *const descs[] = {"", "x", FWPT_LOADOPT_DESCRIPTION, "a description of 40 characters ........"};
    static const uint32_t attrs[] = {0, FWPT_LOAD_OPTION_ACTIVE, 0x0000010bu, 0xffffffffu};
    uint8_t two_paths[PATH_LEN + 4 + 4], opt[300], out[512];
    /* two device paths: the file path, then a bare End Instance + End Entire */
    memcpy(two_paths, option + PATH_AT, PATH_LEN);
    memcpy(two_paths + PATH_LEN, (const uint8_t[]){0x7f, 0x01, 0x04, 0x00, 0x7f, 0xff, 0x04, 0x00}, 8);
    for (size_t i = 0; i < sizeof opt; i++)
        opt[i] = (uint8_t)(i * 7 + 3);
    for (size_t d = 0; d < 4; d++)
        for (size_t a = 0; a < 4; a++)
            for (size_t p = 0; p < 2; p++)
                for (size_t n = 0; n < sizeof opt; n += 37) {
                    size_t len;
                    const uint8_t *path = p ? two_paths : option + PATH_AT;
                    size_t plen = p ? sizeof two_paths : PATH_LEN;
                    CHECK_EQ(fwpt_loadopt_encode(attrs[a], descs[d], path, plen, opt, n, out, sizeof out, &len, NULL),
                             FWPT_OK);
                    CHECK_EQ(len, 6 + 2 * strlen(descs[d]) + 2 + plen + n);
                    struct fwpt_loadopt lo;
                    CHECK_EQ(decode_copy(out, len, &lo, NULL), FWPT_OK);
                    CHECK_EQ(lo.attributes, attrs[a]);
                    char text[64];
                    CHECK_EQ(fwpt_loadopt_description(&lo, text, sizeof text), strlen(descs[d]));
                    CHECK_STR(text, descs[d]);
                    CHECK_EQ(lo.file_path_list_len, plen);
                    CHECK(memcmp(lo.file_path_list, path, plen) == 0);
                    CHECK_EQ(lo.file_paths, 2 - !p); /* an End Instance ends no path: two End Entire nodes */
                    CHECK_EQ(lo.optional_data_len, n);
                    CHECK(n == 0 || memcmp(lo.optional_data, opt, n) == 0);
                    CHECK_EQ(fwpt_loadopt_is_fwpt(&lo), d == 2);
                }
}

/* Every cut of the hand-built option: refused with the field the cut falls in, or (inside OptionalData, which runs
 * to the end by definition) decoded with the shorter OptionalData. */
TEST(every_truncation)
{
    for (size_t s = 0; s < sizeof option; s++) {
        struct fwpt_loadopt lo;
        struct fwpt_loadopt_error e = {0};
        enum fwpt_status st = decode_copy(option, s, &lo, &e);
        const char *field = s < 4 ? "Attributes" : s < 6 ? "FilePathListLength" : s < 16 ? "Description"
                          : s < 38 ? "FilePathList" : NULL;
        size_t at = s < 4 ? 0 : s < 6 ? 4 : s < 16 ? 6 : 16;
        if (field) {
            CHECK_EQ(st, FWPT_E_BAD_PACKET);
            CHECK_STR(e.field, field);
            CHECK_EQ(e.offset, at);
        } else {
            CHECK_EQ(st, FWPT_OK);
            CHECK_EQ(lo.optional_data_len, s - 38);
        }
    }
    struct fwpt_loadopt lo;
    struct fwpt_loadopt_error e;
    CHECK_EQ(decode_copy(option, 2, &lo, &e), FWPT_E_BAD_PACKET);
    CHECK_STR(err_text(&e), "Attributes at byte 0: cut by the end of the option (option bytes 2, needed 4)");
    CHECK_EQ(decode_copy(option, 5, &lo, &e), FWPT_E_BAD_PACKET);
    CHECK_STR(err_text(&e), "FilePathListLength at byte 4: cut by the end of the option (option bytes 5, needed 6)");
    CHECK_EQ(decode_copy(option, 15, &lo, &e), FWPT_E_BAD_PACKET);
    CHECK_STR(err_text(&e),
              "Description at byte 6: has no NUL terminator (CHAR16 0) before the end of the option (option bytes 15)");
    CHECK_EQ(decode_copy(option, 37, &lo, &e), FWPT_E_BAD_PACKET);
    CHECK_STR(err_text(&e),
              "FilePathList at byte 16: runs past the end of the option (FilePathListLength 22, bytes left 21)");
}

/* one byte of the hand-built option changed: the refusal, word for word */
static void refused_with(size_t at, uint8_t v, const char *text)
{
    uint8_t b[sizeof option];
    memcpy(b, option, sizeof b);
    b[at] = v;
    struct fwpt_loadopt lo;
    struct fwpt_loadopt_error e;
    CHECK_EQ(decode_copy(b, sizeof b, &lo, &e), FWPT_E_BAD_PACKET);
    CHECK_STR(err_text(&e), text);
}

TEST(malformed_device_paths)
{
    refused_with(4, 0, "FilePathListLength at byte 4: too small for the End node (FilePathListLength 0, minimum 4)");
    refused_with(4, 3, "FilePathListLength at byte 4: too small for the End node (FilePathListLength 3, minimum 4)");
    refused_with(18, 2, "FilePathList at byte 16: node Length below the 4-byte header (Length 2, minimum 4)");
    refused_with(18, 23,
                 "FilePathList at byte 16: node Length runs past FilePathListLength (Length 23, bytes left 22)");
    refused_with(35, 0x01, "FilePathList at byte 38: does not end with an End Entire Device Path node (type 0x7f, "
                           "sub-type 0xff) at FilePathListLength (FilePathListLength 22)");
    refused_with(34, 0x04, "FilePathList at byte 38: does not end with an End Entire Device Path node (type 0x7f, "
                           "sub-type 0xff) at FilePathListLength (FilePathListLength 22)");
    /* FilePathListLength 20: the End node's header is cut by it, 2 bytes left */
    refused_with(4, 20, "FilePathList at byte 34: node header cut by FilePathListLength (bytes left 2, needed 4)");
    /* FilePathListLength 24: the End node is not last (2 bytes of OptionalData read as a cut node) */
    refused_with(4, 24, "FilePathList at byte 38: node header cut by FilePathListLength (bytes left 2, needed 4)");
    /* the encoder refuses the same paths, and a description it cannot write */
    uint8_t out[64];
    size_t len;
    struct fwpt_loadopt_error e;
    CHECK_EQ(fwpt_loadopt_encode(1, "x", option + PATH_AT, PATH_LEN - 4, NULL, 0, out, sizeof out, &len, &e),
             FWPT_E_INVAL);
    CHECK_STR(err_text(&e), "FilePathList at byte 28: does not end with an End Entire Device Path node (type 0x7f, "
                            "sub-type 0xff) at FilePathListLength (FilePathListLength 18)");
    CHECK_EQ(fwpt_loadopt_encode(1, "x", option + PATH_AT, 0, NULL, 0, out, sizeof out, &len, &e), FWPT_E_INVAL);
    CHECK_STR(err_text(&e), "FilePathList at byte 10: is empty (a device path needs at least its End node)");
    CHECK_EQ(fwpt_loadopt_encode(1, "caf\xc3\xa9", option + PATH_AT, PATH_LEN, NULL, 0, out, sizeof out, &len, &e),
             FWPT_E_INVAL);
    CHECK_STR(err_text(&e), "Description at byte 12: holds a byte outside printable ASCII (byte 195)");
}

TEST(description_with_other_units)
{
    /* "é" (U+00E9) and a control unit print as '?' */
    uint8_t b[] = {1, 0, 0, 0, 4, 0, 'a', 0, 0xe9, 0, 0x07, 0, 0, 0, 0x7f, 0xff, 4, 0};
    struct fwpt_loadopt lo;
    CHECK_EQ(decode_copy(b, sizeof b, &lo, NULL), FWPT_OK);
    char d[8];
    CHECK_EQ(fwpt_loadopt_description(&lo, d, sizeof d), 3);
    CHECK_STR(d, "a??");
    CHECK_EQ(lo.optional_data_len, 0);
}

static const char *attrs_text(uint32_t a)
{
    static char buf[120];
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    fwpt_loadopt_put_attributes(&s, a);
    buf[bs.len] = 0;
    return buf;
}

TEST(attributes_text)
{
    CHECK_STR(attrs_text(0), "0x0 (inactive)");
    CHECK_STR(attrs_text(1), "0x1 (active)");
    CHECK_STR(attrs_text(0x10b), "0x10b (active, force-reconnect, hidden, category 0x1)");
    CHECK_STR(attrs_text(0x80000004), "0x80000004 (inactive, reserved 0x80000004)");
}

TEST(variable_names)
{
    char n[21];
    fwpt_loadopt_var_name("Driver", 0, n);
    CHECK_STR(n, "Driver0000");
    fwpt_loadopt_var_name("Driver", 0xab1f, n);
    CHECK_STR(n, "DriverAB1F");
    fwpt_loadopt_var_name("", 0x10, n);
    CHECK_STR(n, "0010");
    uint16_t v = 7;
    CHECK(fwpt_loadopt_var_number("DriverAB1F", "Driver", &v));
    CHECK_EQ(v, 0xab1f);
    CHECK(fwpt_loadopt_var_number("Driver0000", "Driver", &v));
    CHECK_EQ(v, 0);
    CHECK(!fwpt_loadopt_var_number("Driverab1f", "Driver", &v)); /* the spec prints upper case */
    CHECK(!fwpt_loadopt_var_number("Driver001", "Driver", &v));
    CHECK(!fwpt_loadopt_var_number("Driver00010", "Driver", &v));
    CHECK(!fwpt_loadopt_var_number("DriverOrder", "Driver", &v));
    CHECK(!fwpt_loadopt_var_number("Boot0001", "Driver", &v));
    CHECK_EQ(v, 0);
}

TEST(first_free)
{
    uint16_t n;
    CHECK_EQ(fwpt_loadopt_first_free(NULL, 0, &n), FWPT_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(fwpt_loadopt_first_free((const uint16_t[]){1, 0, 3}, 3, &n), FWPT_OK);
    CHECK_EQ(n, 2);
    CHECK_EQ(fwpt_loadopt_first_free((const uint16_t[]){0, 0, 1, 1}, 4, &n), FWPT_OK);
    CHECK_EQ(n, 2);
    static uint16_t all[65536];
    for (unsigned i = 0; i < 65536; i++)
        all[i] = (uint16_t)(65535 - i);
    CHECK_EQ(fwpt_loadopt_first_free(all, 65536, &n), FWPT_E_NOMEM);
    CHECK_EQ(fwpt_loadopt_first_free(all, 65535, &n), FWPT_OK); /* 0 is the last one left out */
    CHECK_EQ(n, 0);
    all[100] = 0; /* 65435 gone: it is the free one */
    CHECK_EQ(fwpt_loadopt_first_free(all, 65536, &n), FWPT_OK);
    CHECK_EQ(n, 65435);
}

static int order_is(const uint16_t *o, size_t n, const uint16_t *want, size_t wn)
{
    return n == wn && (n == 0 || memcmp(o, want, n * 2) == 0);
}
#define ORDER_IS(o, n, ...) \
    CHECK(order_is(o, n, (const uint16_t[]){__VA_ARGS__}, sizeof((const uint16_t[]){__VA_ARGS__}) / 2))

TEST(order_insert_remove)
{
    uint16_t o[4];
    size_t n = 0;
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 0, 5), FWPT_OK);
    ORDER_IS(o, n, 5);
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 9, 7), FWPT_OK); /* past the end: appended */
    ORDER_IS(o, n, 5, 7);
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 0, 0x1000), FWPT_OK); /* first: loaded first */
    ORDER_IS(o, n, 0x1000, 5, 7);
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 1, 5), FWPT_E_INVAL); /* already there: unchanged */
    ORDER_IS(o, n, 0x1000, 5, 7);
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 2, 9), FWPT_OK);
    ORDER_IS(o, n, 0x1000, 5, 9, 7);
    CHECK_EQ(fwpt_order_insert(o, &n, 4, 0, 1), FWPT_E_NOMEM); /* full */
    ORDER_IS(o, n, 0x1000, 5, 9, 7);
    CHECK_EQ(fwpt_order_remove(o, &n, 5), FWPT_OK);
    ORDER_IS(o, n, 0x1000, 9, 7);
    CHECK_EQ(fwpt_order_remove(o, &n, 5), FWPT_E_INVAL);
    ORDER_IS(o, n, 0x1000, 9, 7);
    CHECK_EQ(fwpt_order_remove(o, &n, 0x1000), FWPT_OK);
    CHECK_EQ(fwpt_order_remove(o, &n, 7), FWPT_OK);
    ORDER_IS(o, n, 9);
    CHECK_EQ(fwpt_order_remove(o, &n, 9), FWPT_OK);
    CHECK_EQ(n, 0);
    /* a number listed twice (a firmware's doing) goes whole */
    uint16_t d[] = {3, 1, 3, 2};
    n = 4;
    CHECK_EQ(fwpt_order_remove(d, &n, 3), FWPT_OK);
    ORDER_IS(d, n, 1, 2);
    CHECK_EQ(fwpt_order_find(d, n, 2), 1);
    CHECK_EQ(fwpt_order_find(d, n, 3), 2);
}

TEST(order_read)
{
    uint16_t o[3];
    size_t n = 9;
    CHECK_EQ(fwpt_order_read((const uint8_t[]){0x01, 0x00, 0x34, 0x12}, 4, o, 3, &n), FWPT_OK);
    ORDER_IS(o, n, 1, 0x1234);
    CHECK_EQ(fwpt_order_read((const uint8_t[]){0x01, 0x00, 0x34}, 3, o, 3, &n), FWPT_E_BAD_PACKET);
    CHECK_EQ(n, 0);
    CHECK_EQ(fwpt_order_read((const uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0}, 8, o, 3, &n), FWPT_E_NOMEM);
    CHECK_EQ(fwpt_order_read(NULL, 0, o, 3, &n), FWPT_OK);
    CHECK_EQ(n, 0);
}

TEST_MAIN("loadopt")
