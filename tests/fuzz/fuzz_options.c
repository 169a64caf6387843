/* libFuzzer: a command line (efi/options.c, compiled in here) from the input, copied to a buffer of exactly its size
 * so ASan sees any read past the end: the app's line (fwpt.cfg, LoadOptions) and the boot-trace driver's line (its
 * Driver#### optional data, which anyone who can write a variable can set). Checks: neither parser crashes or reads
 * out of bounds; a refusal is one line of text (no newline, NUL-terminated inside the buffer); an accepted install
 * line's driver options are accepted by the driver's parser (unless test-unchecked), and the driver's parser gives
 * the same result twice. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "efi/options.c"

static void check_err(const char *err, size_t cap)
{
    size_t n = strnlen(err, cap);
    if (n == cap || memchr(err, '\n', n))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *p = malloc(size ? size : 1);
    memcpy(p, data, size);
    struct fwpt_efi_options o, d, d2;
    char err[160];
    fwpt_options_default(&o);
    if (fwpt_options_parse(p, size, size & 1, &o, err, sizeof err) != 0) {
        check_err(err, sizeof err);
    } else if (o.boot_trace_install && !o.test_unchecked) {
        if (fwpt_options_parse_driver(o.driver_opts, strlen(o.driver_opts), &d, err, sizeof err) != 0)
            abort(); /* install checked them as the driver reads them */
    }
    int r1 = fwpt_options_parse_driver(p, size, &d, err, sizeof err);
    if (r1 != 0)
        check_err(err, sizeof err);
    int r2 = fwpt_options_parse_driver(p, size, &d2, err, sizeof err);
    if (r1 != r2 || (r1 == 0 && memcmp(&d, &d2, sizeof d) != 0))
        abort();
    free(p);
    return 0;
}
