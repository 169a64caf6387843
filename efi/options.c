/* fwpt — option parsing for the EFI application (pure: no EFI headers, host-tested). */
#include "efi/options.h"
#include "base/fields.h"
#include "base/text.h"

static const char *const target_names[] = {
#define FWPT_TARGET_NAME(n, name, arg, doc) name,
    FWPT_TARGET_LIST(FWPT_TARGET_NAME)
#undef FWPT_TARGET_NAME
};
static const int target_has_arg[] = {
#define FWPT_TARGET_ARG(n, name, arg, doc) arg,
    FWPT_TARGET_LIST(FWPT_TARGET_ARG)
#undef FWPT_TARGET_ARG
};

const char *fwpt_target_name(enum fwpt_target t)
{
    return (unsigned)t < FWPT_TARGET_COUNT ? target_names[t] : "?";
}

static const char usage[] =
    "usage: fwpt.efi [OPTION...]           (options: LoadOptions, else \\fwpt\\fwpt.cfg)\n"
    "  help              this text\n"
    "  shutdown          power off when done (ResetSystem)\n"
    "  wait              wait for a key before returning to the firmware (read the screen)\n"
    "  quiet             no packet dump and no progress lines on the console (files are still written)\n"
    "  progress=N        a progress line every N seconds of single-stepping or decoding (default 5; 0: none)\n"
    "  out=DIR           output directory on the boot volume (default \\fwpt)\n"
    "  rdmsr=MSR         read one MSR through the hardware backend (#GP is caught and reported)\n"
    "  wrmsr=MSR:VALUE   write one MSR (diagnostics; #GP is caught and reported)\n"
    "  boot-trace status the driver load options: DriverOrder and each Driver#### (which one is fwpt's)\n"
    "  boot-trace install [OPTIONS]  trace the next boot: fwptdrv.efi (next to this app) as a Driver#### option\n"
    "                    with OPTIONS (the trace settings below, and keep: stay installed after one trace);\n"
    "                    the driver writes its files to \\fwpt\\boot at ReadyToBoot (docs/boot-trace.md)\n"
    "  boot-trace remove delete fwpt's Driver#### option and take it out of DriverOrder\n"
    "  trace TARGET      trace one firmware call with Intel PT; TARGET is one of:\n"
    "    locate-handle     LocateHandleBuffer(AllHandles): every handle in the database\n"
    "    memory-map        GetMemoryMap: the size query, then the map into a pool buffer\n"
    "    allocate-pages    AllocatePages(AnyPages, LoaderData, 16 pages), then FreePages\n"
    "    get-variable      runtime GetVariable(BootOrder, EFI_GLOBAL_VARIABLE)\n"
    "    connect-all       ConnectController(handle, NULL, NULL, TRUE) on every handle\n"
    "    read-file PATH    open PATH on the boot volume (Simple File System) and read it all\n"
    "    load-image PATH   LoadImage + StartImage of the EFI image PATH on the boot volume\n"
    "  trace settings:\n"
    "    size=N            total output buffer (4K..; K/M/G suffixes; default 2M)\n"
    "    region=N          bytes per output region (power of two; default 64K)\n"
    "    stop | ring       stop when the buffer is full (default) or wrap around\n"
    "    filter=target     ADDR0 = code range of the image implementing the target\n"
    "    filter=A-B        ADDR0 = [A, B] (hex)\n"
    "    tsc               TSC packets (TSCEn)\n"
    "    time              timing: TSC, and MTC / CYC where supported at settings that keep the trace small\n"
    "                      (MTCFreq <= 9, CycThresh <= 5; mtc=/cyc= override); prints the call's duration\n"
    "    mtc=N             MTC packets, MTCFreq = N (checked against CPUID.(14H,1):EAX)\n"
    "    cyc=N             CYC packets, CycThresh = N (checked against CPUID.(14H,1):EBX[15:0])\n"
    "    psb=N             PSBFreq = N (checked against CPUID.(14H,1):EBX[31:16])\n"
    "    ptwrite           PTWRITE packets (PTWEn)\n"
    "    noretcomp         no RET compression (DisRETC)\n"
    "    backend=auto|hw|soft  auto (default): Intel PT when usable, else the software tracer (with verify)\n"
    "                      emulating the built-in profile closest to this processor; hw: Intel PT only;\n"
    "                      soft: the single-step software tracer\n"
    "    profile=NAME      CPU profile the software tracer emulates\n"
    "    verify            software tracer: check the trace against the single-stepped path\n"
    "    listing=N|all     instructions listed in flow.txt (default 1000000; profile and call tree count all)\n"
    "    steps=N           software tracer: the trace ends after N single-steps (default 50000000)\n"
    "    test-raise-tpl    tests only: call the target at TPL_NOTIFY, which the UEFI spec forbids (a DEBUG\n"
    "                      firmware ASSERTs), to show that a test catches it\n";

const char *fwpt_options_usage(void) { return usage; }

void fwpt_options_default(struct fwpt_efi_options *o)
{
    fwpt_memset(o, 0, sizeof *o);
    o->target = FWPT_TARGET_NONE;
    o->filter = FWPT_FILTER_NONE;
    o->mtc = o->cyc = o->psb = -1;
    fwpt_memcpy(o->out_dir, "\\fwpt", 6);
    o->backend = FWPT_BACKEND_AUTO;
    o->listing = FWPT_LISTING_DEFAULT;
    o->progress = FWPT_PROGRESS_DEFAULT;
}

struct words {
    const char *p, *end;
    char buf[FWPT_OPT_PATH_MAX];
    bool too_long;
};

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0'; }

/* Next word into w->buf; false at the end. '#' starts a comment that runs to the end of the line. */
static bool next_word(struct words *w)
{
    for (;;) {
        while (w->p < w->end && is_space(*w->p))
            w->p++;
        if (w->p < w->end && *w->p == '#') {
            while (w->p < w->end && *w->p != '\n')
                w->p++;
            continue;
        }
        break;
    }
    if (w->p >= w->end)
        return false;
    size_t n = 0;
    w->too_long = false;
    while (w->p < w->end && !is_space(*w->p)) {
        if (n + 1 < sizeof w->buf)
            w->buf[n++] = *w->p;
        else
            w->too_long = true;
        w->p++;
    }
    w->buf[n] = 0;
    return true;
}

/* The refusal message, of several pieces: FAIL(err, cap, "a", b, "c", ...) */
static int fail_parts(char *err, size_t cap, const char *const *parts)
{
    struct fwpt_bufsink bs;
    struct fwpt_sink s = fwpt_bufsink_init(&bs, err, cap ? cap - 1 : 0);
    for (; *parts; parts++)
        fwpt_puts(&s, *parts);
    if (cap)
        err[bs.len < cap ? bs.len : cap - 1] = 0;
    return -1;
}
#define FAIL(err, cap, ...) fail_parts(err, cap, (const char *const[]){__VA_ARGS__, NULL})

static int fail(char *err, size_t cap, const char *a, const char *b, const char *c) { return FAIL(err, cap, a, b, c); }

/* The words that only set a flag: its offset in struct fwpt_efi_options and the value (stop and ring set one flag
 * both ways). */
#define FLAG_WORD(word, field, value) {word, FWPT_BOOL_FIELD(struct fwpt_efi_options, field), value}
static const struct {
    const char *word;
    size_t field;
    bool value;
} flag_words[] = {
    FLAG_WORD("help", help, true), FLAG_WORD("-h", help, true), FLAG_WORD("--help", help, true),
    FLAG_WORD("shutdown", shutdown, true), FLAG_WORD("wait", wait, true), FLAG_WORD("quiet", quiet, true),
    FLAG_WORD("stop", ring, false), FLAG_WORD("ring", ring, true), FLAG_WORD("tsc", tsc, true),
    FLAG_WORD("time", time, true), FLAG_WORD("ptwrite", ptwrite, true), FLAG_WORD("noretcomp", noretcomp, true),
    FLAG_WORD("verify", verify, true), FLAG_WORD("test-raise-tpl", test_raise_tpl, true),
};
#undef FLAG_WORD

/* Sets the flag a names; false when a is not a flag word. */
static bool set_flag_word(struct fwpt_efi_options *o, const char *a)
{
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (!fwpt_strcmp(a, flag_words[i].word)) {
            *fwpt_bool_at(o, flag_words[i].field) = flag_words[i].value;
            return true;
        }
    return false;
}

static bool has_prefix(const char *s, const char *p) { return fwpt_strncmp(s, p, fwpt_strlen(p)) == 0; }

/* The words of the form NAME=VALUE: one row each, the kind of value, where it goes in struct fwpt_efi_options
 * (a member whose type the kind reads: anything else does not compile), its range, and the refusal's text
 * around the word ("bad size in 'size=x' (e.g. size=4M)"). */
enum value_kind {
    V_SIZE,    /* a size with K/M/G, not 0 (uint64_t) */
    V_FIELD4,  /* a 4-bit field encoding 0..15 (int) */
    V_COUNT,   /* a number in [min, max] (uint64_t) */
    V_LISTING, /* a number, or all: UINT64_MAX (uint64_t) */
    V_FILTER,  /* target, or A-B in hex with A <= B (filter, filter_a, filter_b) */
    V_DIR,     /* a directory on the boot volume, '\' first, '/' as '\', no '\' last (char array) */
    V_BACKEND, /* auto, hw or soft (enum fwpt_backend) */
    V_NAME,    /* a non-empty name shorter than the member (char array) */
    V_MSR,     /* a 32-bit MSR number (uint32_t; its have_ flag set) */
    V_MSR_WRITE, /* MSR:VALUE (uint32_t, then wrmsr_value; its have_ flag set) */
};
#define OPTS struct fwpt_efi_options
#define TYPED(f, T) (offsetof(OPTS, f) + 0 * sizeof(_Generic(((OPTS *)0)->f, T: 0)))
#define U64(f) TYPED(f, uint64_t), sizeof ((OPTS *)0)->f
#define INT(f) TYPED(f, int), sizeof ((OPTS *)0)->f
#define STR(f) TYPED(f, char *), sizeof ((OPTS *)0)->f
#define U32(f) TYPED(f, uint32_t), sizeof ((OPTS *)0)->f
#define ANY(f) offsetof(OPTS, f), sizeof ((OPTS *)0)->f
static const struct value_option {
    const char *name;
    enum value_kind kind;
    size_t field, size;
    uint64_t min, max;
    const char *bad, *hint;
} value_options[] = {
    {"size=", V_SIZE, U64(buffer_size), 0, 0, "bad size in '", "' (e.g. size=4M)"},
    {"region=", V_SIZE, U64(region_size), 0, 0, "bad size in '", "' (e.g. region=64K)"},
    {"filter=", V_FILTER, ANY(filter), 0, 0, "bad filter '", "' (filter=target or filter=A-B, hex, A <= B)"},
    {"mtc=", V_FIELD4, INT(mtc), 0, 15, "bad value in '", "' (MTCFreq 0..15)"},
    {"cyc=", V_FIELD4, INT(cyc), 0, 15, "bad value in '", "' (CycThresh 0..15)"},
    {"psb=", V_FIELD4, INT(psb), 0, 15, "bad value in '", "' (PSBFreq 0..15)"},
    {"out=", V_DIR, STR(out_dir), 0, 0, "empty directory in '", "' (out=DIR on the boot volume, e.g. out=\\run1)"},
    {"backend=", V_BACKEND, ANY(backend), 0, 0, "unknown backend in '", "' (auto, hw or soft)"},
    {"listing=", V_LISTING, U64(listing), 0, UINT64_MAX, "bad count in '", "' (listing=N or listing=all)"},
    {"progress=", V_COUNT, U64(progress), 0, 3600, "bad count in '", "' (progress=SECONDS, 0..3600)"},
    {"steps=", V_COUNT, U64(steps), 1, UINT64_MAX, "bad count in '", "' (steps=N, at least 1)"},
    {"profile=", V_NAME, STR(profile), 0, 0, "bad profile name in '", "' (profile=NAME, e.g. profile=skylake)"},
    {"rdmsr=", V_MSR, U32(rdmsr_probe), 0, 0xffffffffu, "bad MSR number in '",
     "' (rdmsr=MSR, a 32-bit number such as 0x570)"},
    {"wrmsr=", V_MSR_WRITE, U32(wrmsr_probe), 0, 0xffffffffu, "bad MSR write in '", "' (wrmsr=MSR:VALUE)"},
};
#undef OPTS
#undef TYPED
#undef U64
#undef INT
#undef STR
#undef U32
#undef ANY
#define N_VALUE_OPTIONS (sizeof value_options / sizeof value_options[0])

static const struct value_option *value_option_of(const char *a)
{
    for (size_t i = 0; i < N_VALUE_OPTIONS; i++)
        if (has_prefix(a, value_options[i].name))
            return &value_options[i];
    return NULL;
}

/* A word this parser reads as an option (a flag, `trace`, or NAME=VALUE): never taken as a target's PATH. */
static bool is_option_word(const char *a)
{
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (!fwpt_strcmp(a, flag_words[i].word))
            return true;
    return value_option_of(a) != NULL || !fwpt_strcmp(a, "trace") || !fwpt_strcmp(a, "boot-trace");
}

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

/* Case-insensitive equality with a lower-case word. */
static bool eq_lower(const char *s, const char *lc)
{
    for (; *s && *lc; s++, lc++)
        if (lower(*s) != *lc)
            return false;
    return !*s && !*lc;
}

bool fwpt_options_is_image_name(const char *s)
{
    size_t n = fwpt_strlen(s);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\\')
            return true;
    /* The shell runs "fwpt" (or "bootx64") for fwpt.efi: neither is an option word. */
    if (eq_lower(s, "fwpt") || eq_lower(s, "bootx64"))
        return true;
    return n >= 4 && s[n - 4] == '.' && lower(s[n - 3]) == 'e' && lower(s[n - 2]) == 'f' &&
           lower(s[n - 1]) == 'i';
}

static void copy_str(char *d, size_t cap, const char *s)
{
    size_t n = fwpt_strlen(s);
    if (n >= cap)
        n = cap - 1;
    fwpt_memcpy(d, s, n);
    d[n] = 0;
}

/* A small field encoding (MTCFreq, CycThresh, PSBFreq are 4 bits wide). */
static int parse_field4(const char *v, int *out)
{
    uint64_t x;
    if (fwpt_parse_u64(v, 0, &x) != 0 || x > 15)
        return -1;
    *out = (int)x;
    return 0;
}

/* What `trace` expects (the unit test checks it names every target). */
#define TARGET_WORDS                                                                                                   \
    "one of locate-handle, memory-map, allocate-pages, get-variable, connect-all, read-file PATH, load-image PATH"

/* `trace TARGET [PATH]`, after the word trace. */
static int read_trace(struct words *w, struct fwpt_efi_options *o, char *err, size_t err_cap)
{
    if (o->trace)
        return fail(err, err_cap, "'trace' given twice", "", "");
    if (!next_word(w))
        return fail(err, err_cap, "'trace' needs a target (", TARGET_WORDS, ")");
    enum fwpt_target t = FWPT_TARGET_NONE;
    for (unsigned i = 1; i < FWPT_TARGET_COUNT; i++)
        if (!fwpt_strcmp(w->buf, target_names[i]))
            t = (enum fwpt_target)i;
    if (t == FWPT_TARGET_NONE)
        return FAIL(err, err_cap, "unknown trace target '", w->buf, "' (", TARGET_WORDS, ")");
    o->trace = true;
    o->target = t;
    if (!target_has_arg[t])
        return 0;
    const char *before = w->p;
    if (!next_word(w))
        return FAIL(err, err_cap, "'trace ", target_names[t], "' needs a PATH on the boot volume: nothing follows it");
    if (is_option_word(w->buf)) {
        w->p = before; /* the option is still read (shutdown is honoured) */
        return FAIL(err, err_cap, "'trace ", target_names[t], "' needs a PATH on the boot volume: '", w->buf,
                    "' is an option, not a path (a file of that name: \\", w->buf, ")");
    }
    if (w->too_long)
        return FAIL(err, err_cap, "'trace ", target_names[t], "': PATH longer than 255 characters: '", w->buf,
                    "...'");
    copy_str(o->target_path, sizeof o->target_path, w->buf);
    return 0;
}

/* The words of `boot-trace install` that stay with the app: everything else on the line is the driver's. */
static bool install_app_word(struct fwpt_efi_options *o, const char *a)
{
    if (!fwpt_strcmp(a, "shutdown"))
        o->shutdown = true;
    else if (!fwpt_strcmp(a, "wait"))
        o->wait = true;
    else if (!fwpt_strcmp(a, "test-unchecked"))
        o->test_unchecked = true;
    else
        return false;
    return true;
}

/* `boot-trace install [OPTIONS]`, after the word install: the rest of the line, less the app's words, is the driver's
 * options, checked as the driver reads them (unless test-unchecked). */
static int read_install(struct words *w, struct fwpt_efi_options *o, char *err, size_t err_cap)
{
    size_t n = 0;
    o->boot_trace_install = true;
    while (next_word(w)) {
        if (install_app_word(o, w->buf))
            continue;
        size_t k = fwpt_strlen(w->buf);
        if (w->too_long || n + (n ? 1 : 0) + k + 1 > sizeof o->driver_opts)
            return fail(err, err_cap, "'boot-trace install': the driver's options are longer than 511 characters at '",
                        w->buf, "'");
        if (n)
            o->driver_opts[n++] = ' ';
        fwpt_memcpy(o->driver_opts + n, w->buf, k);
        n += k;
        o->driver_opts[n] = 0;
    }
    if (o->test_unchecked)
        return 0;
    struct fwpt_efi_options d;
    char why[160];
    if (fwpt_options_parse_driver(o->driver_opts, n, &d, why, sizeof why) != 0)
        return fail(err, err_cap, "'boot-trace install': the driver would refuse its options: ", why, "");
    return 0;
}

/* `boot-trace COMMAND`, after the word boot-trace: status, install [OPTIONS] or remove. */
static int read_boot_trace(struct words *w, struct fwpt_efi_options *o, char *err, size_t err_cap)
{
    if (o->boot_trace_status || o->boot_trace_install || o->boot_trace_remove)
        return fail(err, err_cap, "'boot-trace' given twice", "", "");
    if (!next_word(w))
        return fail(err, err_cap, "'boot-trace' needs a command (status, install or remove)", "", "");
    if (!fwpt_strcmp(w->buf, "status"))
        o->boot_trace_status = true;
    else if (!fwpt_strcmp(w->buf, "remove"))
        o->boot_trace_remove = true;
    else if (!fwpt_strcmp(w->buf, "install"))
        return read_install(w, o, err, err_cap);
    else
        return fail(err, err_cap, "unknown boot-trace command '", w->buf, "' (status, install or remove)");
    return 0;
}

/* filter=target or filter=A-B (hex, A <= B). */
static bool read_filter(struct fwpt_efi_options *o, const char *v)
{
    if (!fwpt_strcmp(v, "target")) {
        o->filter = FWPT_FILTER_TARGET;
        return true;
    }
    char lo[32];
    size_t i = 0;
    while (v[i] && v[i] != '-' && i + 1 < sizeof lo) {
        lo[i] = v[i];
        i++;
    }
    lo[i] = 0;
    if (v[i] != '-' || fwpt_parse_u64(lo, 1, &o->filter_a) != 0 || fwpt_parse_u64(v + i + 1, 1, &o->filter_b) != 0 ||
        o->filter_b < o->filter_a)
        return false;
    o->filter = FWPT_FILTER_RANGE;
    return true;
}

/* A directory on the boot volume: '\' first, '/' read as '\', no '\' at the end. */
static bool read_dir(char *d, size_t cap, const char *v)
{
    if (!*v)
        return false;
    size_t n = 0;
    if (*v != '\\' && *v != '/')
        d[n++] = '\\';
    for (; *v && n + 1 < cap; v++)
        d[n++] = (*v == '/') ? '\\' : *v;
    while (n > 1 && d[n - 1] == '\\')
        n--;
    d[n] = 0;
    return true;
}

static bool read_backend(enum fwpt_backend *b, const char *v)
{
    static const struct {
        const char *name;
        enum fwpt_backend backend;
    } names[] = {{"hw", FWPT_BACKEND_HW}, {"soft", FWPT_BACKEND_SOFT}, {"auto", FWPT_BACKEND_AUTO}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!fwpt_strcmp(v, names[i].name)) {
            *b = names[i].backend;
            return true;
        }
    return false;
}

/* wrmsr=MSR:VALUE */
static bool read_msr_write(struct fwpt_efi_options *o, const char *v, uint64_t max)
{
    char num[24];
    size_t i = 0;
    uint64_t m;
    while (v[i] && v[i] != ':' && i + 1 < sizeof num) {
        num[i] = v[i];
        i++;
    }
    num[i] = 0;
    if (v[i] != ':' || fwpt_parse_u64(num, 0, &m) != 0 || m > max || fwpt_parse_u64(v + i + 1, 0, &o->wrmsr_value) != 0)
        return false;
    o->have_wrmsr_probe = true;
    o->wrmsr_probe = (uint32_t)m;
    return true;
}

/* The value v of the option row r into o; false: refused. */
static bool read_value(struct fwpt_efi_options *o, const struct value_option *r, const char *v)
{
    void *at = (char *)o + r->field;
    uint64_t *u = at, m;
    switch (r->kind) {
    case V_SIZE:
        return fwpt_parse_size(v, u) == 0 && *u != 0;
    case V_FIELD4:
        return parse_field4(v, at) == 0;
    case V_COUNT:
        return fwpt_parse_u64(v, 0, u) == 0 && *u >= r->min && *u <= r->max;
    case V_LISTING:
        if (!fwpt_strcmp(v, "all")) {
            *u = UINT64_MAX;
            return true;
        }
        return fwpt_parse_u64(v, 0, u) == 0;
    case V_FILTER:
        return read_filter(o, v);
    case V_DIR:
        return read_dir(at, r->size, v);
    case V_BACKEND:
        return read_backend(at, v);
    case V_NAME:
        if (!*v || fwpt_strlen(v) >= r->size)
            return false;
        copy_str(at, r->size, v);
        return true;
    case V_MSR:
        if (fwpt_parse_u64(v, 0, &m) != 0 || m > r->max)
            return false;
        o->have_rdmsr_probe = true;
        *(uint32_t *)at = (uint32_t)m;
        return true;
    case V_MSR_WRITE:
        return read_msr_write(o, v, r->max);
    }
    return false;
}

/* The app's own words, refused on the driver's line: what they would do means nothing there. */
static bool app_only_word(const char *a)
{
    static const char *const words[] = {"help", "-h", "--help", "shutdown", "wait", "trace", "boot-trace",
                                        "test-raise-tpl", "test-unchecked"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!fwpt_strcmp(a, words[i]))
            return true;
    return has_prefix(a, "rdmsr=") || has_prefix(a, "wrmsr=");
}

static int parse_words(struct words *w, bool skip_image_name, bool driver, struct fwpt_efi_options *o, char *err,
                       size_t err_cap)
{
    bool first = true;
    while (next_word(w)) {
        const char *a = w->buf;
        if (w->too_long)
            return fail(err, err_cap, "option longer than 255 characters: '", a, "...'");
        if (first && skip_image_name && fwpt_options_is_image_name(a)) {
            first = false;
            continue;
        }
        first = false;
        if (driver && app_only_word(a))
            return fail(err, err_cap, "'", a, "' is an option of the app, not of the boot-trace driver (see 'help')");
        if (!fwpt_strcmp(a, "keep")) {
            if (!driver)
                return fail(err, err_cap, "'keep' is an option of the boot-trace driver (boot-trace install keep)", "",
                            "");
            o->keep = true;
            continue;
        }
        if (set_flag_word(o, a))
            continue;
        if (!fwpt_strcmp(a, "trace")) {
            if (read_trace(w, o, err, err_cap) != 0)
                return -1;
            continue;
        }
        if (!fwpt_strcmp(a, "boot-trace")) {
            if (read_boot_trace(w, o, err, err_cap) != 0)
                return -1;
            continue;
        }
        const struct value_option *r = value_option_of(a);
        if (!r)
            return fail(err, err_cap, "unknown option '", a, "' (see 'help')");
        if (!read_value(o, r, a + fwpt_strlen(r->name)))
            return fail(err, err_cap, r->bad, a, r->hint);
    }
    /* the software tracer's own settings mean nothing to Intel PT: said, not ignored (auto may pick either) */
    if (o->backend == FWPT_BACKEND_HW && (o->steps || o->profile[0]))
        return fail(err, err_cap, "'", o->steps ? "steps=" : "profile=",
                    "' applies to the software tracer only (backend=soft or auto)");
    if (!driver && o->trace && (o->boot_trace_install || o->boot_trace_remove))
        return fail(err, err_cap, "'boot-trace ", o->boot_trace_install ? "install" : "remove",
                    "' changes the driver options and cannot run with 'trace': give them in two boots");
    if (driver && o->filter == FWPT_FILTER_TARGET)
        return fail(err, err_cap, "'filter=target' needs a target: the boot-trace driver traces the boot (filter=A-B "
                                  "limits it to an address range)", "", "");
    return 0;
}

int fwpt_options_parse(const char *line, size_t len, bool skip_image_name, struct fwpt_efi_options *o,
                       char *err, size_t err_cap)
{
    struct words w = {.p = line, .end = line + len};
    if (err_cap)
        err[0] = 0;
    if (parse_words(&w, skip_image_name, false, o, err, err_cap) == 0)
        return 0;
    /* A refused line still ends as asked: shutdown and wait after the refused word are honoured too (the rest of the
     * line is not used). */
    while (next_word(&w))
        if (!fwpt_strcmp(w.buf, "shutdown"))
            o->shutdown = true;
        else if (!fwpt_strcmp(w.buf, "wait"))
            o->wait = true;
    return -1;
}

int fwpt_options_parse_driver(const char *line, size_t len, struct fwpt_efi_options *o, char *err, size_t err_cap)
{
    struct words w = {.p = line, .end = line + len};
    fwpt_options_default(o);
    copy_str(o->out_dir, sizeof o->out_dir, FWPT_DRIVER_OUT_DIR);
    if (err_cap)
        err[0] = 0;
    return parse_words(&w, false, true, o, err, err_cap);
}
