/* fwpt host tool — reading sideband.json (written by efi/session.c): a minimal, tolerant JSON object
 * reader, and the values several commands take from it (the images, the processor, the timing configuration). */
#ifndef FWPT_TOOLS_SIDEBAND_H
#define FWPT_TOOLS_SIDEBAND_H

#include <stddef.h>
#include <stdint.h>
#include "arch/errata.h"
#include "render/flame.h"
#include "render/report.h"
#include "decode/time.h"

/* One key of a JSON object to read: into str (a string, cap bytes) or num (a number, given as a JSON
 * string "0x1000"/"4096" or bare); *have = 1 when it was there (numbers: and valid). */
struct fwpt_json_field {
    const char *key;
    char *str;
    size_t cap;
    uint64_t *num;
    int *have;
};

/* Whether text (len bytes) is one well-formed JSON value (RFC 8259), only white space after it: 0, or -1 with
 * *at the byte offset of the first byte that is not (len when the text ends too early). */
int fwpt_json_check(const char *text, size_t len, size_t *at);
/* The JSON value at p as written (a string with its quotes), into out (cap bytes, cut to fit with "..."). */
void fwpt_json_raw(const char *p, char *out, size_t cap);

/* Reads the JSON object at p ('{') into the fields named (other keys skipped); returns the end or NULL. */
const char *fwpt_json_object(const char *p, const struct fwpt_json_field *f, size_t n);
/* The JSON string at p ('"') into out (cap bytes, NUL-terminated, cut to fit); returns the end or NULL. */
const char *fwpt_json_string(const char *p, char *out, size_t cap);
/* Where the value of the first "key" in text starts (after the colon), or NULL. */
const char *fwpt_json_value(const char *text, const char *key);
/* The array of objects at p ('['): each read with fwpt_json_object into f, then handed to each(ctx) (return
 * nonzero to stop with -1). 0 at the end of the array, -1 when malformed. */
int fwpt_json_array(const char *p, const struct fwpt_json_field *f, size_t n, int (*each)(void *ctx), void *ctx);

/* A whole file into malloc'd memory (*data, *size bytes): 0, or -1 with errno set (EISDIR for a directory). */
int fwpt_file_load(const char *path, uint8_t **data, size_t *size);
/* sideband.json at path, whole, for the command cmd ("fwpt flow", "fwpt dump": its messages start with it): 0 with
 * *text (malloc'd; a NUL after its *len bytes, where the JSON readers stop); -1 with errno set when it cannot be read
 * (nothing said: the caller knows what that means for it); 1 when its *len bytes are not one JSON value, said on stderr
 * as "CMD: PATH: not valid JSON: WHY at byte N of M" (nothing kept). Every byte is checked: a NUL inside is refused at
 * its offset, never taken for the end of the file. */
int fwpt_sideband_load(const char *cmd, const char *path, char **text, size_t *len);

/* One image of sideband.json's "images" list: name ("?" when it has none), base, size (the size of its code when
 * it gives none), and the code of its file (DIR/file) when it names one. */
struct fwpt_sideband_image {
    const char *name;
    uint64_t base, size;
    uint8_t *code;    /* malloc'd, the callee's to keep or free; NULL: no file, or it could not be read */
    size_t code_size;
    const char *path; /* DIR/file, or NULL when the image names no file */
    int err;          /* why path could not be read (errno), else 0 */
    unsigned index;   /* its place in the list, from 0 */
    const char *bad_key; /* a key whose value is not what it should be ("base", "size", "name", "file"), else NULL */
    const char *expected; /* what that value should be, as a message says it */
    char bad_value[64];  /* that value as written */
    const char *pdb;     /* "pdb": the CodeView path of its debug entry, "" when it has none */
    const char *device_path; /* "path": where it was loaded from (FvFile(GUID), \\EFI\\BOOT\\BOOTX64.EFI), or "" */
    const char *fv_guid; /* its FV file GUID: "fv_guid", else the GUID of a device path FvFile(GUID), else "" */
    /* the app's CRC-32 of the image's code ("code_crc32", "code_bytes": fwpt_image_code_crc32) against the file's:
     * 0 not recorded (or no file), 1 the same, -1 they differ (a file from another run, changed or cut short) */
    int code_check;
    uint32_t crc_recorded, crc_file;
    uint64_t bytes_recorded, bytes_file;
};
/* Each image of the "images" list that has a base or a bad value (im->bad_key), handed to each(ctx, im) (name and path live during the call;
 * return nonzero to stop with -1). A "file" is a name in dir: one with a '/', "." or "..", or cut to fit, is a bad
 * value (a file outside dir is never opened). 0 at the end of the list, -1 when there is none or it is malformed. */
int fwpt_sideband_images(const char *text, const char *dir,
                         int (*each)(void *ctx, const struct fwpt_sideband_image *im), void *ctx);

/* The "cpu" object: vendor, family, model, stepping (a signature of 0 means the processor was not
 * identified). 0: *id filled (known only when family and model were found); 1: no "cpu" object (*id:
 * none); -1: a malformed one. */
int fwpt_sideband_cpu(const char *text, struct fwpt_cpu_id *id);

/* The timing configuration: cpuid_15h's eax/ebx, max_nonturbo_ratio (the nominal frequency ratio),
 * settings' mtc_freq (when mtc_en). Only the values present (not null) are set in *cfg; *found says
 * which: bit 0 CPUID 15H, bit 1 the ratio, bit 2 MTCFreq. -1 when one of them is malformed. */
int fwpt_sideband_time(const char *text, struct fwpt_time_config *cfg, unsigned *found);

/* sideband.json's "trace":{"bytes":N}: the size of the trace the run recorded, 0 when not given. */
uint64_t fwpt_sideband_trace_bytes(const char *text);

/* The IP filter ranges of sideband.json's settings ("addr_ranges":[{"cfg":"filter","a":"0x..","b":"0x.."},..]):
 * how many were read into r (at most max; TraceStop ranges are skipped), -1 when malformed. */
int fwpt_sideband_filters(const char *text, uint64_t (*r)[2], int max);

/* A note on stderr (what the tool did about something odd, going on): the caller's, which may say nothing. */
typedef void (*fwpt_note_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What the report page and the frame names need from sideband.json (as the app wrote it). */
struct fwpt_sideband_run {
    struct fwpt_report_run run;
    char vendor[16], backend[16], profile[64], target[64], path[512], impl[128], reason[256];
    char v_result[16], v_scope[16], v_part[96], v_reason[160];
    struct fwpt_symbol sym;
};
/* Reads cpu, target, trace, backend, profile and verify of text (sideband.json, at path: messages name it) into *r
 * (its strings point into r). "verify" is the object the app writes ({"result","scope","compared","total","part",
 * "reason","text"}: docs/formats.md), or the string of fwpt 0.2 before it; what is not known is said with note and
 * never shown as passed. */
void fwpt_sideband_run(const char *text, const char *path, struct fwpt_sideband_run *r, fwpt_note_fn note);

/* A trace that holds nothing to decode: empty, or no PSB in it. Says so on stderr ("CMD: NAME: why") and returns 1;
 * 0 when it has a PSB. */
int fwpt_trace_refuse(const char *cmd, const char *name, const uint8_t *trace, size_t n);

#endif
