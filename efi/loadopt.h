/* fwpt — EFI load options and the DriverOrder list, as bytes: encode, decode and validate an EFI_LOAD_OPTION (UEFI
 * spec, "Load Options"), the Driver#### variable names and the first free number, and insert / remove a number in a
 * DriverOrder array (UEFI spec, "Globally Defined Variables"). Pure C (no EFI headers): host-tested, built into the
 * app by efi/boot_trace.c, which reads and writes the variables. */
#ifndef FWPT_EFI_LOADOPT_H
#define FWPT_EFI_LOADOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fwpt/status.h"

/* EFI_LOAD_OPTION.Attributes (UEFI spec, "Load Options") */
#define FWPT_LOAD_OPTION_ACTIVE 0x00000001u
#define FWPT_LOAD_OPTION_FORCE_RECONNECT 0x00000002u
#define FWPT_LOAD_OPTION_HIDDEN 0x00000008u
#define FWPT_LOAD_OPTION_CATEGORY 0x00001f00u

/* Attributes (UINT32) + FilePathListLength (UINT16): Description starts here */
#define FWPT_LOADOPT_HEAD 6u
/* Device path node header: Type, Sub-Type, Length (UINT16) (UEFI spec, "Generic Device Path Structures") */
#define FWPT_DEVPATH_END_TYPE 0x7fu
#define FWPT_DEVPATH_END_ENTIRE 0xffu
#define FWPT_DEVPATH_END_INSTANCE 0x01u

/* The Description fwpt writes into its Driver#### option: how status knows its own. */
#define FWPT_LOADOPT_DESCRIPTION "fwpt boot trace"

/* A decoded option: pointers into the bytes given to fwpt_loadopt_decode (which must outlive it). */
struct fwpt_loadopt {
    uint32_t attributes;
    const uint8_t *description;    /* UCS-2, little-endian, description_chars units, without the NUL */
    size_t description_chars;
    const uint8_t *file_path_list; /* FilePathListLength bytes, checked node by node */
    size_t file_path_list_len;
    size_t file_paths;             /* device paths in the list (each ends with an End Entire node) */
    const uint8_t *optional_data;  /* the bytes after FilePathList, to the end of the option */
    size_t optional_data_len;
};

/* Why an option (or a device path) is malformed: the field, the byte offset in the option where the check
 * failed, and what is wrong (static text) with up to two numbers (value, limit) that it names. */
struct fwpt_loadopt_error {
    const char *field; /* "Attributes", "FilePathListLength", "Description", "FilePathList" */
    size_t offset;
    const char *what;
    uint64_t value, limit;
};

/* Checks every length and returns FWPT_OK with *lo filled, or FWPT_E_BAD_PACKET with *err (never reading past
 * data + size). err may be NULL. */
enum fwpt_status fwpt_loadopt_decode(const void *data, size_t size, struct fwpt_loadopt *lo,
                                     struct fwpt_loadopt_error *err);
/* Checks one FilePathList of len bytes (nodes of Length >= 4 inside len, the last one an End Entire node ending
 * at len); base is added to the offsets in *err. *paths (may be NULL): the device paths it holds. */
enum fwpt_status fwpt_devpath_check(const void *path, size_t len, size_t base, size_t *paths,
                                    struct fwpt_loadopt_error *err);
/* Writes an EFI_LOAD_OPTION to out: description is ASCII (each byte 0x20..0x7e, as UCS-2), file_path a list
 * fwpt_devpath_check accepts (at most 0xffff bytes). *len: the option's size, also when out is too small
 * (FWPT_E_NOMEM; out untouched). FWPT_E_INVAL with *err for a bad description or path (err may be NULL). */
enum fwpt_status fwpt_loadopt_encode(uint32_t attributes, const char *description, const void *file_path,
                                     size_t file_path_len, const void *optional_data, size_t optional_data_len,
                                     void *out, size_t cap, size_t *len, struct fwpt_loadopt_error *err);
/* The description as ASCII into out (cap >= 1, always terminated): units outside 0x20..0x7e as '?', cut to cap - 1
 * characters. Returns the description's length in units (more than cap - 1: it was cut). */
size_t fwpt_loadopt_description(const struct fwpt_loadopt *lo, char *out, size_t cap);
/* The option is fwpt's own (its Description is FWPT_LOADOPT_DESCRIPTION). */
bool fwpt_loadopt_is_fwpt(const struct fwpt_loadopt *lo);
/* The attributes as "0x1 (active)": the hex value, then active, force-reconnect, hidden, category 0xN (when not 0)
 * and reserved 0xN (bits the spec does not define), or "(inactive)" for 0. */
struct fwpt_sink;
void fwpt_loadopt_put_attributes(const struct fwpt_sink *o, uint32_t attributes);
/* "field at byte N: what" as one line (no '\n') into out (always terminated). */
void fwpt_loadopt_error_text(const struct fwpt_loadopt_error *e, char *out, size_t cap);

/* "Driver" + 4 upper-case hex digits (UEFI spec, "Load Option Processing": Driver####); prefix is at most 16
 * characters, out holds 21. */
void fwpt_loadopt_var_name(const char *prefix, uint16_t number, char out[21]);
/* name is exactly prefix and 4 hex digits (upper case, as the spec prints them): *number set, true. */
bool fwpt_loadopt_var_number(const char *name, const char *prefix, uint16_t *number);
/* The lowest number 0000..FFFF not in used[0..n): FWPT_OK, or FWPT_E_NOMEM when all 65536 are taken. */
enum fwpt_status fwpt_loadopt_first_free(const uint16_t *used, size_t n, uint16_t *number);

/* A DriverOrder variable's bytes (UINT16 array, little-endian) into order[0..*n): FWPT_E_BAD_PACKET for an odd
 * size, FWPT_E_NOMEM when more than cap numbers. */
enum fwpt_status fwpt_order_read(const void *bytes, size_t size, uint16_t *order, size_t cap, size_t *n);
/* Inserts number at index pos (pos >= *n: at the end), the others kept in order: FWPT_E_INVAL when it is already
 * in the list (order unchanged), FWPT_E_NOMEM when *n == cap. */
enum fwpt_status fwpt_order_insert(uint16_t *order, size_t *n, size_t cap, size_t pos, uint16_t number);
/* Removes every copy of number, the others kept in order: FWPT_E_INVAL when it is not there. */
enum fwpt_status fwpt_order_remove(uint16_t *order, size_t *n, uint16_t number);
/* The index of number in order[0..n), or n. */
size_t fwpt_order_find(const uint16_t *order, size_t n, uint16_t number);

#endif
