/* fwpt — `boot-trace status` (see boot_trace.h): RT->GetVariable and RT->GetNextVariableName under
 * EFI_GLOBAL_VARIABLE; the bytes are read by efi/loadopt. */
#include <efi.h>
#include <efilib.h>
#include "efi/boot_trace.h"
#include "efi/loadopt.h"
#include "efi/pool.h"
#include "efi/volume.h"

#define NAME_MAX_CHARS 64
/* A firmware whose GetNextVariableName never ends (a bug) must not hang the app. */
#define SCAN_LIMIT 100000

static void to_char16(CHAR16 *d, const char *s)
{
    while ((*d++ = (unsigned char)*s++) != 0)
        ;
}

/* The global variable `name` into a pool buffer (*data, *size); a second try if it grew between the calls. */
static EFI_STATUS read_var(const char *name, void **data, UINTN *size)
{
    CHAR16 wname[NAME_MAX_CHARS];
    to_char16(wname, name);
    *data = NULL;
    *size = 0;
    for (int tries = 0; tries < 3; tries++) {
        UINT32 attr;
        UINTN need = 0;
        EFI_STATUS st = RT->GetVariable(wname, &EfiGlobalVariable, &attr, &need, NULL);
        if (st != EFI_BUFFER_TOO_SMALL)
            return st == EFI_SUCCESS ? EFI_SUCCESS : st; /* EFI_SUCCESS: an empty variable */
        void *buf = AllocatePool(need ? need : 1);
        if (!buf)
            return EFI_OUT_OF_RESOURCES;
        st = RT->GetVariable(wname, &EfiGlobalVariable, &attr, &need, buf);
        if (st == EFI_SUCCESS) {
            *data = buf;
            *size = need;
            return EFI_SUCCESS;
        }
        FreePool(buf);
        if (st != EFI_BUFFER_TOO_SMALL)
            return st;
    }
    return EFI_BUFFER_TOO_SMALL;
}

/* Every Driver#### of EFI_GLOBAL_VARIABLE into used[0..*n) (UEFI spec, "GetNextVariableName": start from an empty
 * name, grow the buffer on EFI_BUFFER_TOO_SMALL, EFI_NOT_FOUND at the end). */
static EFI_STATUS scan_driver_vars(uint16_t *used, size_t cap, size_t *n)
{
    UINTN cap_bytes = 256;
    CHAR16 *name = AllocateZeroPool(cap_bytes);
    EFI_STATUS st = EFI_OUT_OF_RESOURCES;
    *n = 0;
    if (!name)
        return st;
    for (unsigned i = 0; i < SCAN_LIMIT; i++) {
        EFI_GUID guid;
        UINTN size = cap_bytes;
        st = RT->GetNextVariableName(&size, name, &guid);
        if (st == EFI_BUFFER_TOO_SMALL) {
            CHAR16 *bigger = AllocateZeroPool(size);
            if (!bigger) {
                st = EFI_OUT_OF_RESOURCES;
                break;
            }
            CopyMem(bigger, name, cap_bytes);
            FreePool(name);
            name = bigger;
            cap_bytes = size;
            i--;
            continue;
        }
        if (st == EFI_NOT_FOUND) {
            st = EFI_SUCCESS;
            break;
        }
        if (EFI_ERROR(st))
            break;
        if (CompareGuid(&guid, &EfiGlobalVariable) != 0)
            continue;
        char ascii[NAME_MAX_CHARS];
        UINTN k = 0;
        while (k + 1 < sizeof ascii && name[k] && name[k] < 0x80) {
            ascii[k] = (char)name[k];
            k++;
        }
        ascii[k] = 0;
        uint16_t num;
        if (!name[k] && fwpt_loadopt_var_number(ascii, "Driver", &num) && *n < cap &&
            fwpt_order_find(used, *n, num) == *n)
            used[(*n)++] = num;
        if (i + 1 == SCAN_LIMIT)
            st = EFI_ABORTED;
    }
    FreePool(name);
    return st;
}

/* Zeros after the copy of a FilePathList: DevicePathToStr reads a node's fields by its type, not its Length (a File
 * Path node's PathName up to its NUL, a Hard Drive node's 42 bytes), so a node shorter than its type reads zeros
 * here, never past the buffer. */
#define PATH_PAD 128

/* "FilePathList" as text: the first device path through gnu-efi's DevicePathToStr (only after fwpt_loadopt_decode
 * checked every node's Length). */
static void put_file_path(const struct fwpt_sink *o, const struct fwpt_loadopt *lo)
{
    void *copy = AllocateZeroPool(lo->file_path_list_len + PATH_PAD); /* aligned, as the device path readers expect */
    CHAR16 *text = NULL;
    if (copy) {
        CopyMem(copy, (void *)lo->file_path_list, lo->file_path_list_len);
        text = DevicePathToStr(copy);
    }
    if (!text) {
        fwpt_puts(o, "(no text: out of memory)");
    } else {
        for (CHAR16 *c = text; *c; c++)
            fwpt_putc(o, *c >= 0x20 && *c < 0x7f ? (char)*c : '?');
        FreePool(text);
    }
    fwpt_pool_free(copy);
    if (lo->file_paths > 1) {
        fwpt_printf(o, " (+%lu more device path%s)", (unsigned long)(lo->file_paths - 1),
                    lo->file_paths > 2 ? "s" : "");
    }
}

/* One Driver#### line: EFI_COMPROMISED_DATA when it is malformed. *fwpt_own: set when it is fwpt's. */
static EFI_STATUS show_option(const struct fwpt_sink *o, uint16_t num, bool in_order, bool *fwpt_own)
{
    char var[21];
    fwpt_loadopt_var_name("Driver", num, var);
    void *data;
    UINTN size;
    EFI_STATUS st = read_var(var, &data, &size);
    fwpt_printf(o, "boot-trace: %s: ", var);
    if (st == EFI_NOT_FOUND) {
        fwpt_puts(o, "in DriverOrder, but there is no such variable (the boot manager skips it)\n");
        return EFI_SUCCESS;
    }
    if (EFI_ERROR(st)) {
        fwpt_puts(o, "GetVariable failed: ");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "\n");
        return st;
    }
    struct fwpt_loadopt lo;
    struct fwpt_loadopt_error err;
    if (fwpt_loadopt_decode(data, size, &lo, &err) != FWPT_OK) {
        char why[200];
        fwpt_loadopt_error_text(&err, why, sizeof why);
        fwpt_printf(o, "malformed EFI_LOAD_OPTION (%lu bytes): %s%s\n", (unsigned long)size, why,
                    in_order ? "" : " (not in DriverOrder)");
        FreePool(data);
        return EFI_COMPROMISED_DATA;
    }
    char desc[80];
    size_t chars = fwpt_loadopt_description(&lo, desc, sizeof desc);
    fwpt_puts(o, "attributes ");
    fwpt_loadopt_put_attributes(o, lo.attributes);
    fwpt_printf(o, ", description \"%s%s\", file path ", desc, chars + 1 > sizeof desc ? "..." : "");
    put_file_path(o, &lo);
    fwpt_printf(o, ", optional data %lu bytes", (unsigned long)lo.optional_data_len);
    if (!in_order)
        fwpt_puts(o, " (not in DriverOrder: not loaded)");
    if (fwpt_loadopt_is_fwpt(&lo)) {
        fwpt_puts(o, " (fwpt's)");
        *fwpt_own = true;
    }
    fwpt_puts(o, "\n");
    FreePool(data);
    return EFI_SUCCESS;
}

static uint16_t order[32768], used[65536];

EFI_STATUS fwpt_boot_trace_status(const struct fwpt_sink *o)
{
    EFI_STATUS result = EFI_SUCCESS;
    size_t n_order = 0, n_used = 0;
    void *data;
    UINTN size;
    EFI_STATUS st = read_var("DriverOrder", &data, &size);
    if (st == EFI_NOT_FOUND) {
        fwpt_puts(o, "boot-trace: DriverOrder: not set (no driver options in the order)\n");
    } else if (EFI_ERROR(st)) {
        fwpt_puts(o, "boot-trace: DriverOrder: GetVariable failed: ");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "\n");
        result = st;
    } else {
        enum fwpt_status os = fwpt_order_read(data, size, order, sizeof order / sizeof order[0], &n_order);
        if (os != FWPT_OK) {
            fwpt_printf(o, "boot-trace: DriverOrder: malformed: %lu bytes, %s\n", (unsigned long)size,
                        os == FWPT_E_BAD_PACKET ? "an odd size for a UINT16 array" : "more than 32768 entries");
            result = EFI_COMPROMISED_DATA;
        } else if (n_order == 0) {
            fwpt_puts(o, "boot-trace: DriverOrder: empty (no driver options in the order)\n");
        } else {
            fwpt_printf(o, "boot-trace: DriverOrder: %lu entr%s:", (unsigned long)n_order, n_order > 1 ? "ies" : "y");
            for (size_t i = 0; i < n_order; i++) {
                char var[21];
                fwpt_loadopt_var_name("", order[i], var);
                fwpt_printf(o, " %s", var);
            }
            fwpt_puts(o, "\n");
        }
        fwpt_pool_free(data);
    }
    st = scan_driver_vars(used, sizeof used / sizeof used[0], &n_used);
    if (EFI_ERROR(st)) {
        fwpt_puts(o, "boot-trace: listing the variables (GetNextVariableName) failed: ");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, st == EFI_ABORTED ? ": more than 100000 variables\n" : "\n");
        if (!EFI_ERROR(result))
            result = st;
    }
    size_t n_vars = n_used; /* the Driver#### variables; then the numbers only DriverOrder names */
    /* a number DriverOrder names without a variable is not free either: a new option there would be loaded at
     * that place in the order */
    for (size_t i = 0; i < n_order && n_used < sizeof used / sizeof used[0]; i++)
        if (fwpt_order_find(used, n_used, order[i]) == n_used)
            used[n_used++] = order[i];
    bool fwpt_own = false;
    size_t shown = 0;
    for (size_t i = 0; i < n_order; i++) {
        if (fwpt_order_find(order, i, order[i]) < i)
            continue; /* a number listed twice is shown once */
        st = show_option(o, order[i], true, &fwpt_own);
        shown++;
        if (EFI_ERROR(st) && !EFI_ERROR(result))
            result = st;
    }
    for (size_t i = 0; i < n_vars; i++)
        if (fwpt_order_find(order, n_order, used[i]) == n_order) {
            st = show_option(o, used[i], false, &fwpt_own);
            shown++;
            if (EFI_ERROR(st) && !EFI_ERROR(result))
                result = st;
        }
    if (!shown)
        fwpt_puts(o, "boot-trace: no driver options (no Driver#### variable)\n");
    fwpt_printf(o, "boot-trace: fwpt's driver option: %s\n", fwpt_own ? "installed" : "none");
    uint16_t next;
    if (fwpt_loadopt_first_free(used, n_used, &next) == FWPT_OK) {
        char var[21];
        fwpt_loadopt_var_name("Driver", next, var);
        fwpt_printf(o, "boot-trace: the first free number: %s\n", var);
    } else {
        fwpt_puts(o, "boot-trace: every Driver#### number is taken\n");
    }
    return result;
}
