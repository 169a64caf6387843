/* fwpt — `boot-trace status` (see boot_trace.h): RT->GetVariable and RT->GetNextVariableName under
 * EFI_GLOBAL_VARIABLE; the bytes are read by efi/loadopt. */
#include <efi.h>
#include <efilib.h>
#include "efi/boot_trace.h"
#include "efi/loadopt.h"
#include "efi/options.h"
#include "efi/pe.h"
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

/* The global variable `name` into a pool buffer (*data, *size), its attributes into *attr_out (may be NULL); a
 * second try if it grew between the calls. */
static EFI_STATUS read_var_attr(const char *name, void **data, UINTN *size, UINT32 *attr_out)
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
            if (attr_out)
                *attr_out = attr;
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

static EFI_STATUS read_var(const char *name, void **data, UINTN *size)
{
    return read_var_attr(name, data, size, NULL);
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

/* DriverOrder holds at most 32768 numbers (a variable of 64K bytes); a number is one of 65536. Pool memory, not static
 * arrays: the driver links this file too (fwpt_boot_trace_remove) and loads with these pages only while it runs. */
#define ORDER_CAP 32768
#define USED_CAP 65536

EFI_STATUS fwpt_boot_trace_status(const struct fwpt_sink *o)
{
    EFI_STATUS result = EFI_SUCCESS;
    size_t n_order = 0, n_used = 0;
    uint16_t *order = AllocatePool(ORDER_CAP * sizeof(uint16_t)), *used = AllocatePool(USED_CAP * sizeof(uint16_t));
    if (!order || !used) {
        fwpt_puts(o, "boot-trace: out of memory (192K bytes for the numbers)\n");
        fwpt_pool_free(order);
        fwpt_pool_free(used);
        return EFI_OUT_OF_RESOURCES;
    }
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
        enum fwpt_status os = fwpt_order_read(data, size, order, ORDER_CAP, &n_order);
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
    st = scan_driver_vars(used, USED_CAP, &n_used);
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
    for (size_t i = 0; i < n_order && n_used < USED_CAP; i++)
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
    fwpt_pool_free(order);
    fwpt_pool_free(used);
    return result;
}

/* ---- install and remove ---- */

/* Driver#### and DriverOrder as the boot manager expects them (UEFI spec, "Globally Defined Variables"). */
#define VAR_ATTRS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define DRIVER_FILE "fwptdrv.efi"
/* fwptdrv.efi is about as large as the app; a file past this is not it */
#define DRIVER_MAX_BYTES (64u << 20)

/* Writes the global variable (NV+BS+RT); size 0 deletes it (UEFI spec, "SetVariable"). */
static EFI_STATUS set_var(const char *name, const void *data, UINTN size)
{
    CHAR16 wname[NAME_MAX_CHARS];
    to_char16(wname, name);
    return RT->SetVariable(wname, &EfiGlobalVariable, size ? VAR_ATTRS : 0, size, (void *)data);
}

/* The variables as found: DriverOrder (absent: order_set false), every Driver####, and which of those are fwpt's. */
struct bt_state {
    uint16_t *order, *vars, *fwpt, *after; /* after: DriverOrder once remove is done */
    size_t n_order, n_vars, n_fwpt, n_after;
    bool order_set;
};

static void state_free(struct bt_state *s)
{
    s->after = fwpt_pool_free(s->after);
    s->order = fwpt_pool_free(s->order);
    s->vars = fwpt_pool_free(s->vars);
    s->fwpt = fwpt_pool_free(s->fwpt);
}

static void put_order(const struct fwpt_sink *o, const uint16_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char var[21];
        fwpt_loadopt_var_name("", order[i], var);
        fwpt_printf(o, "%s%s", i ? " " : "", var);
    }
}

/* Reads DriverOrder and every Driver####, each decoded: a malformed option is named and left alone (it is not
 * fwpt's as far as anyone can tell). who: "boot-trace install" etc., the start of each line. */
static EFI_STATUS state_load(const struct fwpt_sink *o, const char *who, struct bt_state *s)
{
    *s = (struct bt_state){0};
    s->order = AllocatePool(ORDER_CAP * sizeof(uint16_t));
    s->vars = AllocatePool(USED_CAP * sizeof(uint16_t));
    if (!s->order || !s->vars) {
        fwpt_printf(o, "%s: out of memory (192K bytes for the numbers): nothing changed\n", who);
        state_free(s);
        return EFI_OUT_OF_RESOURCES;
    }
    void *data;
    UINTN size;
    EFI_STATUS st = read_var("DriverOrder", &data, &size);
    if (st == EFI_SUCCESS) {
        s->order_set = true;
        enum fwpt_status os = fwpt_order_read(data, size, s->order, ORDER_CAP, &s->n_order);
        fwpt_pool_free(data);
        if (os != FWPT_OK) {
            fwpt_printf(o, "%s: DriverOrder is malformed (%lu bytes, %s): nothing changed\n", who, (unsigned long)size,
                        os == FWPT_E_BAD_PACKET ? "an odd size for a UINT16 array" : "more than 32768 entries");
            state_free(s);
            return EFI_COMPROMISED_DATA;
        }
    } else if (st != EFI_NOT_FOUND) {
        fwpt_printf(o, "%s: reading DriverOrder failed: ", who);
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, ": nothing changed\n");
        state_free(s);
        return st;
    }
    st = scan_driver_vars(s->vars, USED_CAP, &s->n_vars);
    if (!EFI_ERROR(st)) {
        s->fwpt = AllocatePool((s->n_vars + 1) * sizeof(uint16_t));
        if (!s->fwpt)
            st = EFI_OUT_OF_RESOURCES;
    }
    if (EFI_ERROR(st)) {
        fwpt_printf(o, "%s: listing the Driver#### variables failed: ", who);
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, ": nothing changed\n");
        state_free(s);
        return st;
    }
    for (size_t i = 0; i < s->n_vars; i++) {
        char var[21];
        fwpt_loadopt_var_name("Driver", s->vars[i], var);
        st = read_var(var, &data, &size);
        if (st == EFI_NOT_FOUND)
            continue; /* deleted since the scan */
        if (EFI_ERROR(st)) {
            fwpt_printf(o, "%s: reading %s failed: ", who, var);
            fwpt_put_efi_status(o, st);
            fwpt_puts(o, ": nothing changed\n");
            state_free(s);
            return st;
        }
        struct fwpt_loadopt lo;
        struct fwpt_loadopt_error err;
        if (fwpt_loadopt_decode(data, size, &lo, &err) != FWPT_OK) {
            char why[200];
            fwpt_loadopt_error_text(&err, why, sizeof why);
            fwpt_printf(o, "%s: %s is a malformed EFI_LOAD_OPTION (%s): not fwpt's, left alone\n", who, var, why);
        } else if (fwpt_loadopt_is_fwpt(&lo)) {
            s->fwpt[s->n_fwpt++] = s->vars[i];
        }
        fwpt_pool_free(data);
    }
    return EFI_SUCCESS;
}

/* s->order less fwpt's numbers into out[0..*n]: the order the boot manager keeps once they are gone. */
static void order_without_fwpt(const struct bt_state *s, uint16_t *out, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < s->n_order; i++)
        if (fwpt_order_find(s->fwpt, s->n_fwpt, s->order[i]) == s->n_fwpt)
            out[(*n)++] = s->order[i];
}

/* The variable reads back as exactly these bytes with NV+BS+RT (size 0: it is absent). */
static bool var_is(const char *name, const void *bytes, UINTN size)
{
    void *data;
    UINTN got;
    UINT32 attr = 0;
    EFI_STATUS st = read_var_attr(name, &data, &got, &attr);
    if (!size)
        return st == EFI_NOT_FOUND;
    bool same = st == EFI_SUCCESS && got == size && attr == VAR_ATTRS && CompareMem(data, (void *)bytes, size) == 0;
    if (st == EFI_SUCCESS)
        fwpt_pool_free(data);
    return same;
}

/* Writes DriverOrder = order[0..n) (n 0: deletes it, when it is there), then checks it reads back so. */
static EFI_STATUS write_order(const struct fwpt_sink *o, const char *who, const uint16_t *order, size_t n,
                              bool order_set)
{
    EFI_STATUS st = EFI_SUCCESS;
    if (n || order_set)
        st = set_var("DriverOrder", order, n * sizeof(uint16_t));
    if (st == EFI_NOT_FOUND && !n)
        st = EFI_SUCCESS; /* deleted meanwhile: absent as wanted */
    if (EFI_ERROR(st)) {
        fwpt_printf(o, "%s: %s DriverOrder failed: ", who, n ? "writing" : "deleting");
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "\n");
        return st;
    }
    if (!var_is("DriverOrder", order, n * sizeof(uint16_t))) {
        fwpt_printf(o, "%s: DriverOrder does not read back as written (%s)\n", who,
                    n ? "other bytes or attributes" : "it is still there");
        return EFI_DEVICE_ERROR;
    }
    return EFI_SUCCESS;
}

/* Deletes fwpt's options (but keep, when it is one) after DriverOrder lost them; one line each on o. */
static EFI_STATUS delete_fwpt_vars(const struct fwpt_sink *o, const char *who, const struct bt_state *s,
                                   int keep, unsigned *removed)
{
    EFI_STATUS result = EFI_SUCCESS;
    for (size_t i = 0; i < s->n_fwpt; i++) {
        if ((int)s->fwpt[i] == keep)
            continue;
        char var[21];
        fwpt_loadopt_var_name("Driver", s->fwpt[i], var);
        bool was_in_order = fwpt_order_find(s->order, s->n_order, s->fwpt[i]) < s->n_order;
        EFI_STATUS st = set_var(var, NULL, 0);
        if (st == EFI_NOT_FOUND)
            st = EFI_SUCCESS;
        if (!EFI_ERROR(st) && !var_is(var, NULL, 0))
            st = EFI_DEVICE_ERROR;
        if (EFI_ERROR(st)) {
            fwpt_printf(o, "%s: deleting %s (fwpt's) failed: ", who, var);
            fwpt_put_efi_status(o, st);
            fwpt_printf(o, "%s\n", st == EFI_DEVICE_ERROR ? ": it is still there" : "");
            if (!EFI_ERROR(result))
                result = st;
            continue;
        }
        fwpt_printf(o, "%s: removed %s (fwpt's option): deleted%s\n", who, var,
                    was_in_order ? ", and taken out of DriverOrder" : " (it was not in DriverOrder)");
        if (removed)
            (*removed)++;
    }
    return result;
}

/* remove: DriverOrder without fwpt's numbers (deleted when that leaves it empty), then the options themselves. */
static EFI_STATUS remove_all(const struct fwpt_sink *o, const char *who, unsigned *removed, struct bt_state *s)
{
    *removed = 0;
    EFI_STATUS st = state_load(o, who, s);
    if (EFI_ERROR(st))
        return st;
    s->after = AllocatePool((s->n_order + 1) * sizeof(uint16_t));
    if (!s->after) {
        fwpt_printf(o, "%s: out of memory: nothing changed\n", who);
        return EFI_OUT_OF_RESOURCES;
    }
    order_without_fwpt(s, s->after, &s->n_after);
    if (s->n_after != s->n_order) {
        st = write_order(o, who, s->after, s->n_after, s->order_set);
        if (EFI_ERROR(st)) {
            fwpt_printf(o, "%s: fwpt's options are kept (a DriverOrder that names a deleted option would be "
                           "skipped, but it is not changed either)\n", who);
            return st;
        }
    }
    return delete_fwpt_vars(o, who, s, -1, removed);
}

EFI_STATUS fwpt_boot_trace_remove(const struct fwpt_sink *o, unsigned *removed)
{
    struct bt_state s;
    unsigned count = 0;
    EFI_STATUS st = remove_all(o, "boot-trace", &count, &s);
    state_free(&s);
    if (removed)
        *removed = count;
    return st;
}

EFI_STATUS fwpt_boot_trace_remove_cmd(const struct fwpt_sink *o)
{
    struct bt_state s;
    unsigned count = 0;
    const char *who = "boot-trace remove";
    EFI_STATUS st = remove_all(o, who, &count, &s);
    if (!EFI_ERROR(st) && !count) {
        fwpt_printf(o, "%s: nothing to remove: no fwpt driver option is installed\n", who);
    } else if (!EFI_ERROR(st)) {
        if (s.n_after) {
            fwpt_printf(o, "%s: DriverOrder now: ", who);
            put_order(o, s.after, s.n_after);
            fwpt_puts(o, "\n");
        } else if (s.n_order) {
            fwpt_printf(o, "%s: DriverOrder deleted: it named only fwpt's option (empty and absent are the same to "
                           "the boot manager)\n", who);
        } else {
            fwpt_printf(o, "%s: DriverOrder: %s (unchanged)\n", who, s.order_set ? "empty" : "not set");
        }
        fwpt_printf(o, "%s: the next boot loads no fwpt driver\n", who);
    }
    state_free(&s);
    return st;
}

/* The directory of the running app's file: the File Path nodes of LoadedImage->FilePath joined (UEFI spec, "File
 * Path Media Device Path"; a path may come as several nodes), up to the last '\'. false when there is no such node
 * or the name is not ASCII or too long. */
static bool app_directory(const EFI_LOADED_IMAGE *li, char *dir, UINTN cap)
{
    UINTN n = 0;
    bool any = false;
    for (EFI_DEVICE_PATH *dp = li->FilePath; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
        if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_FILEPATH_DP)
            continue;
        UINTN len = DevicePathNodeLength(dp);
        if (len < 4)
            return false;
        const CHAR16 *name = ((FILEPATH_DEVICE_PATH *)dp)->PathName;
        UINTN units = (len - 4) / sizeof(CHAR16);
        if (n && dir[n - 1] != '\\' && units && name[0] && name[0] != '\\') {
            if (n + 1 >= cap)
                return false;
            dir[n++] = '\\';
        }
        for (UINTN i = 0; i < units && name[i]; i++) {
            if (name[i] >= 0x7f || name[i] < 0x20 || n + 1 >= cap)
                return false;
            dir[n++] = name[i] == '/' ? '\\' : (char)name[i];
        }
        any = true;
    }
    if (!any)
        return false;
    while (n && dir[n - 1] != '\\')
        n--; /* the file name off; the separator stays */
    if (!n)
        dir[n++] = '\\';
    dir[n] = 0;
    return true;
}

static const char *subsystem_name(uint16_t s)
{
    switch (s) {
    case FWPT_PE_SUBSYSTEM_EFI_APPLICATION: return "an EFI application";
    case FWPT_PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER: return "an EFI boot service driver";
    case FWPT_PE_SUBSYSTEM_EFI_RUNTIME_DRIVER: return "an EFI runtime driver";
    case 13: return "an EFI ROM image";
    default: return "not an EFI subsystem";
    }
}

/* Reads DIR\fwptdrv.efi and checks it is a PE32+ x64 EFI boot service driver. */
static EFI_STATUS check_driver_file(const struct fwpt_sink *o, const char *who, struct fwpt_volume *vol,
                                    const char *path)
{
    char *data = NULL;
    UINTN len = 0;
    EFI_STATUS st = fwpt_volume_read(vol, path, DRIVER_MAX_BYTES, &data, &len);
    if (st == EFI_NOT_FOUND) {
        fwpt_printf(o, "%s: no %s on the app's volume: copy build/fwptdrv.efi next to the app; nothing written\n",
                    who, path);
        return st;
    }
    if (EFI_ERROR(st)) {
        fwpt_printf(o, "%s: reading %s failed: ", who, path);
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "; nothing written\n");
        return st;
    }
    uint16_t subsystem = 0;
    struct fwpt_pe_problem why;
    if (len >= DRIVER_MAX_BYTES) {
        fwpt_printf(o, "%s: %s is not the fwpt driver: %lu bytes or more; nothing written\n", who, path,
                    (unsigned long)DRIVER_MAX_BYTES);
        st = EFI_LOAD_ERROR;
    } else if (!fwpt_pe_check_file((const uint8_t *)data, len, &subsystem, &why)) {
        fwpt_printf(o, "%s: %s (%lu bytes) is not a PE32+ x64 image: ", who, path, (unsigned long)len);
        fwpt_printf(o, why.what, (unsigned long)why.value, (unsigned long)why.limit);
        fwpt_puts(o, "; nothing written\n");
        st = EFI_LOAD_ERROR;
    } else if (subsystem != FWPT_PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER) {
        fwpt_printf(o, "%s: %s is %s (PE subsystem %u), not an EFI boot service driver (11): copy build/fwptdrv.efi "
                       "there; nothing written\n", who, path, subsystem_name(subsystem), subsystem);
        st = EFI_LOAD_ERROR;
    } else {
        fwpt_printf(o, "%s: the driver: %s, %lu bytes, PE32+ x64, subsystem 11 (an EFI boot service driver)\n", who,
                    path, (unsigned long)len);
    }
    fwpt_pool_free(data);
    return st;
}

/* A USB Device Path node in the option's path: the path then names the port the stick is in (UEFI spec, "USB Device
 * Path": ParentPortNumber). The boot manager connects the path node by node (EDK2: EfiBootManagerProcessLoadOption ->
 * EfiBootManagerConnectDevicePath), so the stick is found in that port only. */
static bool path_has_usb(EFI_DEVICE_PATH *dp)
{
    for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp))
        if (DevicePathType(dp) == MESSAGING_DEVICE_PATH && DevicePathSubType(dp) == MSG_USB_DP)
            return true;
    return false;
}

EFI_STATUS fwpt_boot_trace_install(EFI_HANDLE image, struct fwpt_volume *vol, const char *driver_opts,
                                   const struct fwpt_sink *o)
{
    const char *who = "boot-trace install";
    EFI_LOADED_IMAGE *li = NULL;
    EFI_STATUS st = BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li);
    if (EFI_ERROR(st) || !li) {
        fwpt_printf(o, "%s: the app's EFI_LOADED_IMAGE_PROTOCOL: ", who);
        fwpt_put_efi_status(o, EFI_ERROR(st) ? st : EFI_NOT_FOUND);
        fwpt_puts(o, "; nothing written\n");
        return EFI_ERROR(st) ? st : EFI_NOT_FOUND;
    }
    char path[260];
    if (!app_directory(li, path, sizeof path - sizeof DRIVER_FILE)) {
        fwpt_printf(o, "%s: the app's LoadedImage->FilePath has no ASCII file path node (of fewer than 248 "
                       "characters): the driver's directory is unknown; nothing written\n", who);
        return EFI_UNSUPPORTED;
    }
    UINTN pn = fwpt_strlen(path);
    fwpt_memcpy(path + pn, DRIVER_FILE, sizeof DRIVER_FILE);
    st = check_driver_file(o, who, vol, path);
    if (EFI_ERROR(st))
        return st;

    /* FilePathList: the volume's device path + the driver's File Path node (gnu-efi FileDevicePath). */
    CHAR16 wpath[260];
    to_char16(wpath, path);
    EFI_DEVICE_PATH *dp = li->DeviceHandle ? FileDevicePath(li->DeviceHandle, wpath) : NULL;
    if (!dp || !DevicePathFromHandle(li->DeviceHandle)) {
        fwpt_printf(o, "%s: the app's volume has no device path (LoadedImage->DeviceHandle): the boot manager could "
                       "not find the driver; nothing written\n", who);
        fwpt_pool_free(dp);
        return EFI_UNSUPPORTED;
    }
    UINTN dp_len = DevicePathSize(dp);
    /* OptionalData: the driver's options as UTF-16 text with its NUL (the driver reads LoadOptions as text) */
    UINTN opt_units = fwpt_strlen(driver_opts) + 1;
    CHAR16 *wopts = AllocatePool(opt_units * sizeof(CHAR16));
    struct bt_state s = {0};
    void *option = NULL;
    uint16_t *order = NULL;
    if (!wopts) {
        st = EFI_OUT_OF_RESOURCES;
        goto out;
    }
    to_char16(wopts, driver_opts);

    st = state_load(o, who, &s);
    if (EFI_ERROR(st))
        goto out_quiet;
    /* the number: the first one neither a Driver#### (but fwpt's, which this one replaces) nor in DriverOrder */
    uint16_t *taken = s.vars; /* in place: fwpt's numbers dropped, the order's added */
    size_t n_taken = 0;
    for (size_t i = 0; i < s.n_vars; i++)
        if (fwpt_order_find(s.fwpt, s.n_fwpt, s.vars[i]) == s.n_fwpt)
            taken[n_taken++] = s.vars[i];
    for (size_t i = 0; i < s.n_order && n_taken < USED_CAP; i++)
        if (fwpt_order_find(s.fwpt, s.n_fwpt, s.order[i]) == s.n_fwpt &&
            fwpt_order_find(taken, n_taken, s.order[i]) == n_taken)
            taken[n_taken++] = s.order[i];
    s.n_vars = 0; /* vars no longer holds the variables */
    uint16_t num;
    if (fwpt_loadopt_first_free(taken, n_taken, &num) != FWPT_OK) {
        fwpt_printf(o, "%s: every Driver#### number is taken; nothing written\n", who);
        st = EFI_OUT_OF_RESOURCES;
        goto out_quiet;
    }
    size_t len = 0;
    struct fwpt_loadopt_error err;
    fwpt_loadopt_encode(FWPT_LOAD_OPTION_ACTIVE, FWPT_LOADOPT_DESCRIPTION, dp, dp_len, wopts,
                        opt_units * sizeof(CHAR16), NULL, 0, &len, &err);
    option = AllocatePool(len ? len : 1);
    order = AllocatePool((ORDER_CAP + 1) * sizeof(uint16_t));
    if (!option || !order) {
        st = EFI_OUT_OF_RESOURCES;
        goto out;
    }
    if (fwpt_loadopt_encode(FWPT_LOAD_OPTION_ACTIVE, FWPT_LOADOPT_DESCRIPTION, dp, dp_len, wopts,
                            opt_units * sizeof(CHAR16), option, len, &len, &err) != FWPT_OK) {
        char why[200];
        fwpt_loadopt_error_text(&err, why, sizeof why);
        fwpt_printf(o, "%s: the option cannot be encoded: %s; nothing written\n", who, why);
        st = EFI_INVALID_PARAMETER;
        goto out_quiet;
    }
    /* DriverOrder: the new number first (its Driver#### loads before the others, which it then traces) */
    size_t n_order = 0;
    order_without_fwpt(&s, order + 1, &n_order);
    if (n_order >= ORDER_CAP) {
        fwpt_printf(o, "%s: DriverOrder is full (32768 entries); nothing written\n", who);
        st = EFI_OUT_OF_RESOURCES;
        goto out_quiet;
    }
    order[0] = num;
    n_order++;

    char var[21];
    fwpt_loadopt_var_name("Driver", num, var);
    for (size_t i = 0; i < s.n_fwpt; i++) {
        char old[21];
        fwpt_loadopt_var_name("Driver", s.fwpt[i], old);
        fwpt_printf(o, "%s: replaces fwpt's earlier option %s (%s)\n", who, old,
                    s.fwpt[i] == num ? "written over" : "deleted");
    }
    bool replaced_same = fwpt_order_find(s.fwpt, s.n_fwpt, num) < s.n_fwpt;
    st = set_var(var, option, len);
    if (EFI_ERROR(st)) {
        fwpt_printf(o, "%s: writing %s failed: ", who, var);
        fwpt_put_efi_status(o, st);
        fwpt_puts(o, "; nothing changed\n");
        goto out_quiet;
    }
    st = write_order(o, who, order, n_order, true);
    if (EFI_ERROR(st)) {
        if (!replaced_same && !EFI_ERROR(set_var(var, NULL, 0)))
            fwpt_printf(o, "%s: %s deleted again: nothing changed\n", who, var);
        else
            fwpt_printf(o, "%s: %s is written but DriverOrder is not: run boot-trace status\n", who, var);
        goto out_quiet;
    }
    st = delete_fwpt_vars(o, who, &s, num, NULL);
    if (EFI_ERROR(st))
        goto out_quiet;
    if (!var_is(var, option, len)) {
        fwpt_printf(o, "%s: %s does not read back as written (other bytes or attributes)\n", who, var);
        st = EFI_DEVICE_ERROR;
        goto out_quiet;
    }
    struct fwpt_loadopt lo;
    fwpt_loadopt_decode(option, len, &lo, NULL);
    fwpt_printf(o, "%s: wrote %s: attributes ", who, var);
    fwpt_loadopt_put_attributes(o, lo.attributes);
    fwpt_printf(o, ", description \"%s\", file path ", FWPT_LOADOPT_DESCRIPTION);
    put_file_path(o, &lo);
    fwpt_printf(o, ", optional data \"%s\" (%lu bytes: UTF-16 with a NUL); NV+BS+RT\n", driver_opts,
                (unsigned long)lo.optional_data_len);
    fwpt_printf(o, "%s: wrote DriverOrder: ", who);
    put_order(o, order, n_order);
    fwpt_puts(o, " (was: ");
    if (!s.order_set)
        fwpt_puts(o, "not set");
    else if (!s.n_order)
        fwpt_puts(o, "empty");
    else
        put_order(o, s.order, s.n_order);
    fwpt_puts(o, ")\n");
    fwpt_printf(o, "%s: read back %s and DriverOrder: as written\n", who, var);
    if (path_has_usb(dp))
        fwpt_printf(o, "%s: the file path names the USB port the stick is in: reboot with the stick in the same "
                       "port (in another port the boot manager does not find the driver: no trace, and %s stays until "
                       "boot-trace remove)\n", who, var);
    {
        struct fwpt_efi_options d; /* the driver's reading of its options: where it writes */
        char why[160];
        if (fwpt_options_parse_driver(driver_opts, fwpt_strlen(driver_opts), &d, why, sizeof why) == 0)
            fwpt_printf(o, "%s: next: reboot: the driver traces the boot to ReadyToBoot and writes %s\\ on this "
                           "volume (boot-trace remove undoes this)\n", who, d.out_dir);
        else
            fwpt_printf(o, "%s: next: reboot: the driver will refuse these options (test-unchecked): %s\n", who, why);
    }
    goto out_quiet;
out:
    fwpt_printf(o, "%s: out of memory; nothing written\n", who);
out_quiet:
    state_free(&s);
    fwpt_pool_free(option);
    fwpt_pool_free(order);
    fwpt_pool_free(wopts);
    fwpt_pool_free(dp);
    return st;
}
