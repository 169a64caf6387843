/* fwpt — the EFI application's options: one command line (LoadOptions or \fwpt\fwpt.cfg) parsed
 * into one struct. Pure C (no EFI headers), so the parser is unit-tested on the host. */
#ifndef FWPT_EFI_OPTIONS_H
#define FWPT_EFI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FWPT_OPT_PATH_MAX 256
#define FWPT_DRIVER_OPTS_MAX 512
/* The boot-trace driver's files (fwptdrv.efi: efi/driver.c) go here unless out= says otherwise. */
#define FWPT_DRIVER_OUT_DIR "\\fwpt\\boot"

/* What `trace TARGET` calls between TraceEn=1 and TraceEn=0. */
#define FWPT_TARGET_LIST(X)                                                                          \
    X(NONE, "none", 0, "")                                                                           \
    X(LOCATE_HANDLE, "locate-handle", 0, "LocateHandleBuffer(AllHandles): every handle in the database") \
    X(MEMORY_MAP, "memory-map", 0, "GetMemoryMap: the size query, then the map into a pool buffer")  \
    X(ALLOCATE_PAGES, "allocate-pages", 0, "AllocatePages(AnyPages, LoaderData, 16 pages), then FreePages") \
    X(GET_VARIABLE, "get-variable", 0, "runtime GetVariable(BootOrder, EFI_GLOBAL_VARIABLE)")        \
    X(CONNECT_ALL, "connect-all", 0, "ConnectController(handle, NULL, NULL, TRUE) on every handle")  \
    X(READ_FILE, "read-file", 1, "open PATH on the boot volume (Simple File System) and read it all") \
    X(LOAD_IMAGE, "load-image", 1, "LoadImage + StartImage of the EFI image PATH on the boot volume")

enum fwpt_target {
#define FWPT_TARGET_ENUM(n, name, arg, doc) FWPT_TARGET_##n,
    FWPT_TARGET_LIST(FWPT_TARGET_ENUM)
#undef FWPT_TARGET_ENUM
    FWPT_TARGET_COUNT
};

enum fwpt_filter_kind {
    FWPT_FILTER_NONE,   /* trace every IP */
    FWPT_FILTER_TARGET, /* ADDR0 = code range of the image implementing the target */
    FWPT_FILTER_RANGE,  /* ADDR0 = [filter_a, filter_b] */
};

enum fwpt_backend {
    FWPT_BACKEND_AUTO, /* hw when Intel PT is usable, else soft with the closest profile (and verify) */
    FWPT_BACKEND_HW,   /* Intel PT through the hardware CPU backend */
    FWPT_BACKEND_SOFT, /* the single-step software trace backend (efi/soft*) */
};

/* -1 in an int field = not given (the plan/trace code chooses). */
struct fwpt_efi_options {
    bool help, shutdown, quiet, wait;
    bool trace;
    bool boot_trace_status;              /* boot-trace status: DriverOrder and each Driver#### (efi/boot_trace) */
    bool boot_trace_install;             /* boot-trace install [OPTIONS]: write fwpt's Driver#### (efi/boot_trace) */
    bool boot_trace_remove;              /* boot-trace remove: delete it and take it out of DriverOrder */
    char driver_opts[FWPT_DRIVER_OPTS_MAX]; /* install: the driver's options, the words joined by one space */
    bool test_unchecked;                 /* install: driver_opts written unchecked (tests of the driver's refusal) */
    bool keep;                           /* the driver: stay installed after the trace (not one-shot) */
    enum fwpt_target target;
    char target_path[FWPT_OPT_PATH_MAX]; /* READ_FILE / LOAD_IMAGE, as given ('/' or '\') */
    uint64_t buffer_size;                /* total output bytes; 0 = default */
    uint64_t region_size;                /* bytes per output region; 0 = default */
    bool ring;                           /* true: wrap (ring); false: ToPA STOP at the end */
    enum fwpt_filter_kind filter;
    uint64_t filter_a, filter_b;         /* FWPT_FILTER_RANGE, inclusive */
    bool tsc, ptwrite, noretcomp;
    bool time;                           /* TSC, MTC, CYC as the processor offers them (arch/trace timing_small) */
    int mtc, cyc, psb;                   /* MTCFreq / CycThresh / PSBFreq encodings, -1 = off/default */
    char out_dir[FWPT_OPT_PATH_MAX];     /* "\fwpt" unless out= */
    /* for the software backend (efi/soft*) */
    enum fwpt_backend backend;
    char profile[64];                    /* CPU profile name for backend=soft|auto; "" = the closest */
    bool verify;
    uint64_t listing;                    /* instructions listed in flow.txt (listing=N; all: UINT64_MAX) */
    uint64_t steps;                      /* backend=soft: single-steps before the trace ends (steps=N); 0: default */
    bool test_raise_tpl;                 /* test-raise-tpl: the target runs at TPL_NOTIFY, against the UEFI rules (tests
                                          * of the DEBUG-firmware check only) */
    uint64_t progress;                   /* seconds between progress lines while stepping and decoding (progress=N);
                                          * 0: none (also with quiet) */
    /* diagnostics of the hardware backend */
    bool have_rdmsr_probe, have_wrmsr_probe;
    uint32_t rdmsr_probe;                /* rdmsr=N: read one MSR and print the value or the #GP */
    uint32_t wrmsr_probe;                /* wrmsr=N:V: write one MSR, print done or the #GP */
    uint64_t wrmsr_value;
};

/* flow.txt lists the first million instructions by default: a full 2 MiB trace can hold tens of millions, whose
 * listing (gigabytes) would take minutes to format in firmware; the host tool lists every one. */
#define FWPT_LISTING_DEFAULT 1000000ull
#define FWPT_PROGRESS_DEFAULT 5ull

void fwpt_options_default(struct fwpt_efi_options *o);
/* Parses a command line (whitespace-separated words; '#' starts a comment to the end of the line;
 * newlines are whitespace). When skip_image_name is set and the first word looks like an image
 * path (ends in ".efi" or contains '\'), it is skipped. A target's PATH is never an option word
 * (`trace read-file shutdown` is refused). On error returns -1 and writes a one-line message naming
 * the offending word into err; shutdown and wait are still set when they appear anywhere on the line. */
int fwpt_options_parse(const char *line, size_t len, bool skip_image_name, struct fwpt_efi_options *o,
                       char *err, size_t err_cap);
const char *fwpt_target_name(enum fwpt_target t);
/* The boot-trace driver's options (its Driver#### optional data, UTF-16 text): the trace settings, quiet, progress=,
 * out= (default FWPT_DRIVER_OUT_DIR) and keep. The app's own words (help, shutdown, wait, trace, boot-trace, rdmsr=,
 * wrmsr=, test-*) and filter=target (the boot has no target) are refused by name. -1 and err as fwpt_options_parse. */
int fwpt_options_parse_driver(const char *line, size_t len, struct fwpt_efi_options *o, char *err, size_t err_cap);
/* A word that names an image (ends in ".efi", any case, or contains '\'): the shell's argv[0]. */
bool fwpt_options_is_image_name(const char *word);
/* The usage text (every option and target), '\n' line ends. */
const char *fwpt_options_usage(void);

#endif
