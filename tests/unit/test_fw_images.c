/* fwpt tests — the bench loaders' image reader (tests/common/fw_traces.c, fw_images): every img-BASE.bin of a
 * directory, however many (more than the 64 a fixed array once held), sorted by base, each whole; a directory or
 * an image that cannot be read is refused (-1), never skipped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/common/fw_traces.h"
#include "tests/common/tool_run.h"

enum { N_IMAGES = 150 };

/* image k: base 0x100000 + k * 0x1000, k + 1 bytes, each (uint8_t)(k * 7 + 1) */
static uint64_t base_of(int k) { return 0x100000 + (uint64_t)k * 0x1000; }

/* A fresh directory of N_IMAGES images, written last to first (the reader sorts), and a file that is not an
 * image; the caller removes it with remove_dir. */
static void make_image_dir(char *dir)
{
    char path[4200];
    CHECK(mkdtemp(dir) != NULL);
    static uint8_t bytes[N_IMAGES + 1];
    for (int k = N_IMAGES - 1; k >= 0; k--) {
        memset(bytes, k * 7 + 1, sizeof bytes);
        snprintf(path, sizeof path, "%s/img-%llx.bin", dir, (unsigned long long)base_of(k));
        write_file(path, bytes, (size_t)k + 1);
    }
    snprintf(path, sizeof path, "%s/trace.pt", dir); /* not an image: left out */
    write_file(path, bytes, 4);
}

static void remove_dir(const char *dir)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* every image read whole, sorted by base; the rest of an image from an address in it */
TEST(images_read_whole_sorted_by_base)
{
    char dir[] = "/tmp/fwpt-fw-images-XXXXXX", path[4200];
    make_image_dir(dir);
    struct fw_image *im = NULL;
    int n = fw_images("fw_images", dir, &im);
    CHECK_EQ(n, N_IMAGES);
    int in_order = 1, whole = 1;
    for (int k = 0; im && k < n && k < N_IMAGES; k++) {
        in_order &= im[k].base == base_of(k);
        whole &= im[k].size == (size_t)k + 1 && im[k].code[0] == (uint8_t)(k * 7 + 1) &&
                 im[k].code[k] == (uint8_t)(k * 7 + 1);
    }
    CHECK(in_order);
    CHECK(whole);
    if (im && n == N_IMAGES) {
        snprintf(path, sizeof path, "%s/img-%llx.bin", dir, (unsigned long long)base_of(N_IMAGES - 1));
        CHECK_STR(im[N_IMAGES - 1].path, path);
        /* the last image, 3 bytes into it: the rest of it */
        struct fw_image_set set = {im, n};
        const uint8_t *b = NULL;
        CHECK_EQ(fw_images_read(&set, base_of(N_IMAGES - 1) + 3, &b), N_IMAGES - 3);
        CHECK(b == im[N_IMAGES - 1].code + 3);
        CHECK_EQ(fw_images_read(&set, base_of(N_IMAGES - 1) + N_IMAGES, &b), 0); /* past its end */
    }
    for (int k = 0; im && k < n; k++)
        free(im[k].code);
    free(im);
    remove_dir(dir);
}

/* an image that cannot be read (a link to nothing): refused, not skipped */
TEST(unreadable_image_refused)
{
    char dir[] = "/tmp/fwpt-fw-images-XXXXXX", path[4200];
    make_image_dir(dir);
    snprintf(path, sizeof path, "%s/img-ffff0000.bin", dir);
    CHECK(symlink("/nonexistent/fwpt-image", path) == 0);
    int n;
    struct fw_image *im = (struct fw_image *)&n;
    CHECK_EQ(fw_images("fw_images", dir, &im), -1);
    CHECK(im == NULL);
    remove_dir(dir);
}

/* no such directory */
TEST(missing_directory_refused)
{
    struct fw_image *im = NULL;
    CHECK_EQ(fw_images("fw_images", "/nonexistent/fwpt-fw-images/none", &im), -1);
}

TEST_MAIN("fw_images")
