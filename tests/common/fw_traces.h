/* fwpt tests — the real firmware traces make bench records (tests/bench/firmware-traces.sh): every
 * FWPT_BENCH_FW/TARGET/fwpt/ directory holding a trace.pt (and the img-BASE.bin images beside it). */
#ifndef FWPT_TESTS_FW_TRACES_H
#define FWPT_TESTS_FW_TRACES_H

#include <stddef.h>
#include <stdint.h>

struct fw_trace {
    char name[64];   /* TARGET, e.g. "read-file" */
    char dir[4096];  /* FWPT_BENCH_FW/TARGET/fwpt */
};

/* The traces in name order into *out (malloc'd, the caller frees it): how many; 0 when FWPT_BENCH_FW is
 * unset (a line on stdout says so); -1 when it is set but unreadable or holds none (said on stderr,
 * prefixed with 'who'). FWPT_BENCH_FW unset: it is first set to $FWPT_BUILD/bench/fw (else build/bench/fw)
 * when that is there, so that the traces make bench recorded in this build are found. */
int fw_traces(const char *who, struct fw_trace **out);

/* One code image of a trace: its load address, its bytes (malloc'd by fw_images) and its file. */
struct fw_image {
    uint64_t base;
    uint8_t *code;
    size_t size;
    char path[4200];
};
/* Every img-BASE.bin image in dir, sorted by base, each read whole, into *out (malloc'd, grown to hold them
 * all; the caller frees it and each code): how many. -1 when dir or an image cannot be read (said on stderr,
 * prefixed with 'who', naming the file), with nothing to free. */
int fw_images(const char *who, const char *dir, struct fw_image **out);
/* fwpt_flow_init's read over the n images at im (ctx: a struct fw_image_set) */
struct fw_image_set {
    const struct fw_image *im;
    int n;
};
size_t fw_images_read(void *ctx, uint64_t ip, const uint8_t **bytes);

#endif
