/* libFuzzer: EFI_LOAD_OPTION bytes (efi/loadopt.c, compiled in here) from the input, copied to a buffer of exactly
 * their size so ASan sees any read past the end. Checks: decode never crashes or reads out of bounds; an accepted
 * option's parts tile it (header, Description and its NUL, FilePathList, OptionalData, nothing left); a refusal names
 * a field and an offset inside the option (or its end); an accepted option with a printable description encodes back
 * to the same bytes. The first input byte also drives DriverOrder insert / remove over the rest as UINT16s. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "efi/loadopt.c"

static void order_ops(const uint8_t *data, size_t size)
{
    uint16_t order[64];
    size_t n = 0;
    for (size_t i = 0; i + 2 < size; i += 3) {
        uint16_t v = (uint16_t)(data[i + 1] | data[i + 2] << 8) & 0x1f;
        size_t before = n, had = fwpt_order_find(order, n, v);
        if (data[i] & 1) {
            enum fwpt_status st = fwpt_order_insert(order, &n, 64, data[i] >> 1, v);
            if ((st == FWPT_OK) != (had == before && before < 64) || (st == FWPT_OK && n != before + 1))
                abort();
        } else {
            enum fwpt_status st = fwpt_order_remove(order, &n, v);
            if ((st == FWPT_OK) != (had < before) || fwpt_order_find(order, n, v) != n)
                abort();
        }
    }
    uint16_t free_n;
    if (fwpt_loadopt_first_free(order, n, &free_n) != FWPT_OK || fwpt_order_find(order, n, free_n) != n)
        abort();
    for (uint16_t k = 0; k < free_n; k++)
        if (fwpt_order_find(order, n, k) == n)
            abort(); /* a lower number was free */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    memcpy(p, data, size);
    struct fwpt_loadopt lo;
    struct fwpt_loadopt_error e;
    if (fwpt_loadopt_decode(p, size, &lo, &e) == FWPT_OK) {
        size_t desc_bytes = 2 * lo.description_chars + 2;
        if (lo.description != p + FWPT_LOADOPT_HEAD || lo.file_path_list != lo.description + desc_bytes ||
            lo.optional_data != lo.file_path_list + lo.file_path_list_len ||
            FWPT_LOADOPT_HEAD + desc_bytes + lo.file_path_list_len + lo.optional_data_len != size ||
            lo.file_paths == 0)
            abort();
        char desc[512];
        size_t chars = fwpt_loadopt_description(&lo, desc, sizeof desc);
        bool printable = chars < sizeof desc;
        for (size_t i = 0; printable && i < chars; i++)
            printable = lo.description[2 * i + 1] == 0 && lo.description[2 * i] >= 0x20 && lo.description[2 * i] <= 0x7e;
        if (printable) {
            uint8_t *out = malloc(size);
            size_t len = 0;
            if (fwpt_loadopt_encode(lo.attributes, desc, lo.file_path_list, lo.file_path_list_len, lo.optional_data,
                                    lo.optional_data_len, out, size, &len, NULL) != FWPT_OK ||
                len != size || memcmp(out, p, size) != 0)
                abort();
            free(out);
        }
    } else {
        char text[256];
        if (!e.field || !e.what || e.offset > size)
            abort();
        fwpt_loadopt_error_text(&e, text, sizeof text);
    }
    free(p);
    if (size)
        order_ops(data + 1, size - 1);
    return 0;
}
