/* The sideband.json readers of tools/sideband.c on texts fuzz_sideband met or could meet: each image handed over
 * with the value and message text fwpt flow prints, an image file never looked for outside DIR, a \u0000 never
 * cutting a name short. Texts the strict check refuses are read too (the readers must not crash on them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/common/pe_image.h"
#include "tools/sideband.h"

static char dir[] = "/tmp/fwpt-sideband-XXXXXX"; /* empty: every image file is missing */

struct got {
    unsigned n;
    char bad_key[16], expected[160], bad_value[64], name[64], path[256];
    int err, code_check;
    uint32_t crc_recorded, crc_file;
    uint64_t bytes_recorded, bytes_file;
};

static int each(void *ctx, const struct fwpt_sideband_image *im)
{
    struct got *g = ctx;
    g->n++;
    snprintf(g->bad_key, sizeof g->bad_key, "%s", im->bad_key ? im->bad_key : "");
    snprintf(g->expected, sizeof g->expected, "%s", im->expected ? im->expected : "");
    snprintf(g->bad_value, sizeof g->bad_value, "%s", im->bad_key ? im->bad_value : "");
    snprintf(g->name, sizeof g->name, "%s", im->name);
    snprintf(g->path, sizeof g->path, "%s", im->path ? im->path : "");
    g->err = im->err;
    g->code_check = im->code_check;
    g->crc_recorded = im->crc_recorded, g->crc_file = im->crc_file;
    g->bytes_recorded = im->bytes_recorded, g->bytes_file = im->bytes_file;
    free(im->code);
    return 0;
}

static const char want_file[] = "the name of a file in the directory (no '/', not \".\" or \"..\", under 511 bytes)";

/* The images of text: the one image handed over has bad_key "file" and bad_value value. */
static void bad_file(const char *text, const char *value)
{
    struct got g = {0};
    CHECK_EQ(fwpt_sideband_images(text, dir, each, &g), 0);
    CHECK_EQ(g.n, 1u);
    CHECK_STR(g.bad_key, "file");
    CHECK_STR(g.expected, want_file);
    CHECK_STR(g.bad_value, value);
    CHECK_STR(g.path, ""); /* not looked for */
}

/* a file outside DIR, or DIR itself, or its parent */
TEST(file_outside_dir_refused)
{
    bad_file("{\"images\":[{\"name\":\"A\",\"base\":\"0x1000\",\"file\":\"../img-1000.bin\"}]}", "\"../img-1000.bin\"");
    bad_file("{\"images\":[{\"base\":4096,\"file\":\"/etc/passwd\"}]}", "\"/etc/passwd\"");
    bad_file("{\"images\":[{\"base\":4096,\"file\":\"..\"}]}", "\"..\"");
    bad_file("{\"images\":[{\"base\":4096,\"file\":\".\"}]}", "\".\"");
    bad_file("{\"images\":[{\"base\":4096,\"file\":\"a\\/b\"}]}", "\"a\\/b\"");
}

/* a name longer than the reader keeps: never opened cut short (the value shown cut to fit, with "...") */
TEST(long_file_name_never_cut_short)
{
    char text[800], value[64];
    int n = snprintf(text, sizeof text, "{\"images\":[{\"base\":4096,\"file\":\"");
    memset(text + n, 'x', 600);
    snprintf(text + n + 600, sizeof text - (size_t)n - 600, "\"}]}");
    snprintf(value, sizeof value, "%.60s...", text + n - 1); /* fwpt_json_raw: the first 60 bytes, then "..." */
    bad_file(text, value);
}

/* fuzz_sideband: a text the strict check refuses, whose "file" the object reader reads but a member walk does
 * not find (the "base" number ends at a quote): the value read is shown (it was a NULL dereference) */
TEST(refused_text_file_value_shown)
{
    size_t at;
    const char *text = "{\"images\":[{\"base\":1\"x\":\"}\",\"file\":\"a/b\"}]}";
    CHECK_EQ(fwpt_json_check(text, strlen(text), &at), -1);
    CHECK_EQ(at, 20u);
    bad_file(text, "\"a/b\"");
}

/* \u0000 reads as '?': the name is not cut short to one that exists */
TEST(nul_escape_reads_as_question_mark)
{
    struct got g = {0};
    CHECK_EQ(fwpt_sideband_images("{\"images\":[{\"name\":\"P\\u0000Q\",\"base\":\"0x10\",\"file\":\"img\\u0000x\"}]}",
                                  dir, each, &g), 0);
    CHECK_EQ(g.n, 1u);
    CHECK_STR(g.bad_key, "");
    CHECK_STR(g.name, "P?Q");
    char want[128];
    snprintf(want, sizeof want, "%s/img?x", dir);
    CHECK_STR(g.path, want);
    CHECK_EQ(g.err, ENOENT);
    char s[8];
    CHECK(fwpt_json_string("\"a\\u0000b\"", s, sizeof s) != NULL);
    CHECK_STR(s, "a?b");
}

/* a plain name is looked for in DIR */
TEST(plain_name_looked_for_in_dir)
{
    struct got g = {0};
    CHECK_EQ(fwpt_sideband_images("{\"images\":[{\"name\":\"Q\",\"base\":\"0x10\",\"file\":\"img-10.bin\"}]}", dir,
                                  each, &g), 0);
    CHECK_EQ(g.n, 1u);
    CHECK_STR(g.bad_key, "");
    char want[128];
    snprintf(want, sizeof want, "%s/img-10.bin", dir);
    CHECK_STR(g.path, want);
    CHECK_EQ(g.err, ENOENT);
}

/* The code CRC-32 the app records ("code_crc32", "code_bytes") against img-BASE.bin's: the same, differing (one
 * byte of code changed, or the count), not recorded (null, absent), or no file to check. The file is removed again:
 * the other cases expect an empty directory. */
TEST(code_crc32_checked_against_the_file)
{
    static uint8_t pe[0x800];
    const struct pe_image_section sec[] = {{0x200, 9, PE_IMAGE_SCN_CODE, 0}, {0x300, 0x80, PE_IMAGE_SCN_DATA, 0x11}};
    pe_image_build(pe, sizeof pe, sec, 2);
    memcpy(pe + 0x200, "123456789", 9);
    char path[128];
    snprintf(path, sizeof path, "%s/img-20.bin", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(pe, 1, sizeof pe, f) == sizeof pe);
    if (f)
        fclose(f);
    static const char *const texts[] = {
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-20.bin\",\"code_crc32\":\"0xcbf43926\",\"code_bytes\":9}]}",
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-20.bin\",\"code_crc32\":\"0xcbf43927\",\"code_bytes\":9}]}",
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-20.bin\",\"code_crc32\":\"0xcbf43926\",\"code_bytes\":10}]}",
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-20.bin\",\"code_crc32\":null,\"code_bytes\":0}]}",
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-20.bin\"}]}",
        "{\"images\":[{\"name\":\"A\",\"base\":\"0x20\",\"file\":\"img-21.bin\",\"code_crc32\":\"0xcbf43926\"}]}",
    };
    static const int want[] = {1, -1, -1, 0, 0, 0};
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct got g = {0};
        CHECK_EQ(fwpt_sideband_images(texts[i], dir, each, &g), 0);
        CHECK_EQ(g.n, 1u);
        CHECK_EQ(g.code_check, want[i]);
        if (i < 3) {
            CHECK_EQ(g.crc_file, 0xcbf43926u);
            CHECK_EQ(g.bytes_file, 9);
            CHECK_EQ(g.crc_recorded, i == 1 ? 0xcbf43927u : 0xcbf43926u);
            CHECK_EQ(g.bytes_recorded, i == 2 ? 10 : 9);
        }
    }
    pe[0x208] = 'x'; /* the file changed: the first text says so */
    f = fopen(path, "wb");
    CHECK(f && fwrite(pe, 1, sizeof pe, f) == sizeof pe);
    if (f)
        fclose(f);
    struct got g = {0};
    CHECK_EQ(fwpt_sideband_images(texts[0], dir, each, &g), 0);
    CHECK_EQ(g.code_check, -1);
    CHECK(g.crc_file != 0xcbf43926u);
    CHECK_EQ(unlink(path), 0);
}

/* The empty directory every case reads against is made before the cases run and removed after. */
int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    int rc = check_run(argc, argv, "sideband");
    rmdir(dir);
    return rc;
}
