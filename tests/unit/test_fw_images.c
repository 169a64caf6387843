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

int main(void)
{
    char dir[] = "/tmp/fwpt-fw-images-XXXXXX", path[4200], cmd[4300];
    CHECK(mkdtemp(dir) != NULL);
    static uint8_t bytes[N_IMAGES + 1];
    for (int k = N_IMAGES - 1; k >= 0; k--) { /* written last to first: the reader sorts */
        memset(bytes, k * 7 + 1, sizeof bytes);
        snprintf(path, sizeof path, "%s/img-%llx.bin", dir, (unsigned long long)base_of(k));
        write_file(path, bytes, (size_t)k + 1);
    }
    snprintf(path, sizeof path, "%s/trace.pt", dir); /* not an image: left out */
    write_file(path, bytes, 4);

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

    /* an image that cannot be read (a link to nothing): refused, not skipped */
    snprintf(path, sizeof path, "%s/img-ffff0000.bin", dir);
    CHECK(symlink("/nonexistent/fwpt-image", path) == 0);
    im = (struct fw_image *)&n;
    CHECK_EQ(fw_images("fw_images", dir, &im), -1);
    CHECK(im == NULL);
    /* no such directory */
    snprintf(path, sizeof path, "%s/none", dir);
    CHECK_EQ(fw_images("fw_images", path, &im), -1);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return check_summary("fw_images");
}
