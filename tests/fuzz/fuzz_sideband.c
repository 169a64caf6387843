/* libFuzzer: the host tool's sideband.json readers (tools/sideband.c) over mutated text. The input is the text of a
 * sideband.json, without a NUL: the strict JSON check reads it in a buffer of exactly its size (and a prefix the
 * input picks, as a file cut short), then every reader the tool uses reads it NUL-terminated, whole and cut. Image
 * files are looked for in an empty scratch directory, so every named file is missing (never opened elsewhere).
 * Seeds: tests/fuzz/seeds/sideband/ (smoke.sh and `make fuzz` pass it). Checks: no crash, no hang, no leak, the
 * check's offset inside the text, each image handed over as the header says. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/sideband.h"

static char scratch[64]; /* an empty directory: image files are never found */

static void remove_scratch(void)
{
    rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(scratch, sizeof scratch, "/tmp/fuzz_sideband.XXXXXX");
    if (!mkdtemp(scratch))
        abort();
    atexit(remove_scratch);
    return 0;
}

struct seen {
    unsigned n;
};

static int each_image(void *ctx, const struct fwpt_sideband_image *im)
{
    struct seen *s = ctx;
    if (!im->name || im->index < s->n) /* in the list's order (images without a base are skipped) */
        abort();
    s->n = im->index + 1;
    if (im->bad_key) {
        if (im->path || im->code || strlen(im->bad_value) >= sizeof im->bad_value)
            abort();
        return 0;
    }
    if (im->path) {
        /* named in DIR only, and missing there: nothing read */
        size_t k = strlen(scratch);
        if (strncmp(im->path, scratch, k) || im->path[k] != '/' || strchr(im->path + k + 1, '/'))
            abort();
        if (im->code || im->code_size || !im->err)
            abort();
    } else if (im->code || im->err) {
        abort();
    }
    free(im->code);
    return 0;
}

/* the tool's notes, formatted as it prints them (their arguments are read) */
__attribute__((format(printf, 1, 2))) static void note(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
}

static void readers(const char *text)
{
    struct seen s = {0};
    fwpt_sideband_images(text, scratch, each_image, &s);

    struct fwpt_cpu_id id;
    int rc = fwpt_sideband_cpu(text, &id);
    if (rc < -1 || rc > 1 || (rc != 0 && id.known))
        abort();

    struct fwpt_time_config cfg = {0};
    unsigned found = 0;
    rc = fwpt_sideband_time(text, &cfg, &found);
    if (rc < -1 || rc > 0 || found > 7)
        abort();

    (void)fwpt_sideband_trace_bytes(text);

    uint64_t r[4][2];
    rc = fwpt_sideband_filters(text, r, 4);
    if (rc < -1 || rc > 4)
        abort();
    for (int k = 0; k < rc; k++)
        if (r[k][0] > r[k][1])
            abort();

    /* the report page's run: a verify shown as passed with a scope has counts that fit it */
    static struct fwpt_sideband_run run;
    memset(&run, 0, sizeof run); /* as fwpt flow's (static) */
    fwpt_sideband_run(text, "sideband.json", &run, note);
    const struct fwpt_verify *v = &run.run.verify;
    if (v->result == FWPT_VERIFY_PASSED && v->scope != FWPT_VERIFY_UNKNOWN &&
        (v->compared > v->total || (v->scope == FWPT_VERIFY_WHOLE && v->compared != v->total)))
        abort();
#define TERMINATED(a) (strnlen(a, sizeof a) < sizeof a)
    if (!TERMINATED(run.vendor) || !TERMINATED(run.backend) || !TERMINATED(run.profile) || !TERMINATED(run.target) ||
        !TERMINATED(run.path) || !TERMINATED(run.impl) || !TERMINATED(run.reason) || !TERMINATED(run.v_result) ||
        !TERMINATED(run.v_scope) || !TERMINATED(run.v_part) || !TERMINATED(run.v_reason))
        abort();

    /* the values read one by one: strings, the raw value of a bad one */
    static const char *const keys[] = {"backend", "profile", "verify", "target", "trace", "cpu", "cpuid_15h"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *p = fwpt_json_value(text, keys[k]);
        if (!p)
            continue;
        char str[16], raw[64];
        fwpt_json_string(p, str, sizeof str);
        fwpt_json_raw(p, raw, sizeof raw);
        if (strlen(raw) >= sizeof raw)
            abort();
        uint64_t bytes, ecx;
        int have_bytes, have_ecx;
        char reason[8];
        const struct fwpt_json_field o[] = {{"bytes", NULL, 0, &bytes, &have_bytes},
                                            {"reason", reason, sizeof reason, NULL, NULL},
                                            {"ecx", NULL, 0, &ecx, &have_ecx}};
        fwpt_json_object(p, o, 3);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the strict check, in a buffer of exactly the text (ASan: a read past its end is caught) */
    char *exact = malloc(size ? size : 1);
    memcpy(exact, data, size);
    size_t at = (size_t)-1;
    if (fwpt_json_check(exact, size, &at) != 0 && at > size)
        abort();
    /* a cut the input picks (a file cut short): its check ends inside the cut */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    size_t cut = size ? h % (size + 1) : 0;
    at = (size_t)-1;
    if (fwpt_json_check(exact, cut, &at) != 0 && at > cut)
        abort();
    free(exact);

    /* the readers, on the text NUL-terminated: whole, and cut */
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    readers(text);
    text[cut] = 0;
    readers(text);
    free(text);
    return 0;
}
