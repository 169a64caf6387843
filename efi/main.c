/* fwpt — the EFI application: options, CPU identity, capability report, then (trace TARGET) the
 * session. Everything printed goes through one sink (console + report file). */
#include <efi.h>
#include <efilib.h>
#include "arch/caps.h"
#include "base/version.h"
#include "efi/boot_trace.h"
#include "efi/console.h"
#include "efi/cpu_hw.h"
#include "efi/options.h"
#include "efi/pipeline.h"
#include "efi/volume.h"

#define FWPT_CFG_PATH "\\fwpt\\fwpt.cfg"

/* No words, or just the image name the shell passes first: no options (then fwpt.cfg is read). */
static bool only_image_name(const char *s, UINTN n)
{
    char first[FWPT_OPT_PATH_MAX];
    UINTN words = 0, k = 0;
    bool in = false;
    for (UINTN i = 0; i < n; i++) {
        bool sp = s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n';
        if (!sp && !in)
            words++;
        if (!sp && words == 1 && k + 1 < sizeof first)
            first[k++] = s[i];
        in = !sp;
    }
    first[k] = 0;
    return words == 0 || (words == 1 && fwpt_options_is_image_name(first));
}

/* One line per diagnostic MSR access: the value, or the #GP that was caught, or why it was refused. */
static void msr_probe(const struct fwpt_sink *o, const struct fwpt_cpu_hw *hw, const char *what, uint32_t msr,
                      enum fwpt_status ms, uint64_t v)
{
    fwpt_puts(o, what);
    fwpt_put_0x(o, msr);
    if (ms == FWPT_OK) {
        fwpt_puts(o, what[0] == 'r' ? " = " : " <- ");
        fwpt_put_0x(o, v);
    } else if (ms == FWPT_E_FAULT) {
        fwpt_puts(o, ": #GP caught (");
        fwpt_puts(o, fwpt_status_msg(ms));
        fwpt_puts(o, ")");
    } else {
        fwpt_puts(o, ": refused: ");
        fwpt_puts(o, fwpt_status_msg(ms));
        if (hw->register_status != EFI_SUCCESS) {
            fwpt_puts(o, ": RegisterInterruptHandler(13) returned ");
            fwpt_put_efi_status(o, hw->register_status);
        }
        if (!hw->cpu_arch)
            fwpt_puts(o, ": EFI_CPU_ARCH_PROTOCOL is missing");
    }
    fwpt_puts(o, "\n");
}

static EFI_STATUS finish(const struct fwpt_sink *o, EFI_STATUS st, bool shutdown, bool wait)
{
    /* run-qemu.sh and the tests read this line: keep its shape. */
    fwpt_puts(o, "fwpt: exit status ");
    fwpt_put_efi_status(o, st);
    fwpt_puts(o, "\n");
    if (wait) {
        UINTN idx;
        EFI_INPUT_KEY key;
        fwpt_puts(o, "fwpt: press a key to continue\n");
        uefi_call_wrapper(ST->ConIn->Reset, 2, ST->ConIn, FALSE);
        uefi_call_wrapper(BS->WaitForEvent, 3, 1, &ST->ConIn->WaitForKey, &idx);
        uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, &key);
    }
    if (shutdown) {
        fwpt_puts(o, "fwpt: shutdown\n");
        uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
    }
    return st;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
    InitializeLib(image, systab);
    /* The firmware watchdog would reset a long trace + file write after 5 minutes. */
    uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);

    struct fwpt_membuf report = {0};
    struct fwpt_console con = {.to_screen = true, .tee = &report};
    struct fwpt_sink out = fwpt_console_sink(&con);
    struct fwpt_sink screen = fwpt_screen_sink();

    fwpt_puts(&out, "fwpt " FWPT_VERSION " - Intel Processor Trace for UEFI firmware\n");

    struct fwpt_volume vol;
    EFI_STATUS vst = fwpt_volume_open(image, &vol);
    if (EFI_ERROR(vst)) {
        fwpt_puts(&screen, "volume: the boot device has no file system (");
        fwpt_put_efi_status(&screen, vst);
        fwpt_puts(&screen, "): no files will be written\n");
    }

    /* Options: LoadOptions, else \fwpt\fwpt.cfg. */
    static char cmdline[4096];
    const char *source = "LoadOptions";
    EFI_LOADED_IMAGE *li = NULL;
    UINTN n = 0;
    if (!EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li)))
        n = fwpt_load_options_text(li, cmdline, sizeof cmdline);
    if (only_image_name(cmdline, n)) {
        char *cfg = NULL;
        UINTN cfg_len = 0;
        n = 0;
        source = "none";
        if (!EFI_ERROR(fwpt_volume_read(&vol, FWPT_CFG_PATH, sizeof cmdline - 1, &cfg, &cfg_len))) {
            CopyMem(cmdline, cfg, cfg_len);
            n = cfg_len;
            cmdline[n] = 0;
            FreePool(cfg);
            source = FWPT_CFG_PATH;
        }
    }
    struct fwpt_efi_options opt;
    char err[160];
    fwpt_options_default(&opt);
    int perr = fwpt_options_parse(cmdline, n, source[0] == 'L', &opt, err, sizeof err);
    fwpt_puts(&out, "options (");
    fwpt_puts(&out, source);
    fwpt_puts(&out, "):");
    {
        /* echo the words, comments dropped, runs of white space as one space */
        bool in_comment = false, space = false, any = false;
        for (UINTN i = 0; i < n; i++) {
            char c = cmdline[i];
            if (c == '#')
                in_comment = true;
            if (c == '\n')
                in_comment = false;
            if (in_comment)
                continue;
            if (c == ' ' || c == '\r' || c == '\n' || c == '\t') {
                space = true;
                continue;
            }
            if (space || !any)
                fwpt_putc(&out, ' ');
            space = false;
            any = true;
            fwpt_putc(&out, c);
        }
        fwpt_puts(&out, "\n");
    }
    if (perr) {
        fwpt_puts(&screen, "fwpt: error: ");
        fwpt_puts(&screen, err);
        fwpt_puts(&screen, "\n");
        fwpt_volume_close(&vol);
        fwpt_membuf_free(&report);
        /* shutdown and wait are honoured even on a refused line (fwpt_options_parse sets them) */
        return finish(&screen, EFI_INVALID_PARAMETER, opt.shutdown, opt.wait);
    }
    if (opt.help) {
        fwpt_puts(&screen, fwpt_options_usage());
        fwpt_volume_close(&vol);
        fwpt_membuf_free(&report);
        return finish(&screen, EFI_SUCCESS, opt.shutdown, opt.wait);
    }

    /* CPU identity and the capability report. */
    struct fwpt_cpu_hw hw;
    struct fwpt_cpu cpu;
    char brand[49];
    fwpt_cpu_hw_init(&hw, &cpu);
    fwpt_cpu_hw_brand(&cpu, brand);
    fwpt_puts(&out, "cpu: ");
    fwpt_puts(&out, brand[0] ? brand : "(no brand string)");
    fwpt_puts(&out, "\n");
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_caps caps;
    enum fwpt_status cs = fwpt_caps_read(&cpu, &snap);
    if (cs != FWPT_OK) {
        fwpt_puts(&out, "caps: reading CPUID failed: ");
        fwpt_puts(&out, fwpt_status_msg(cs));
        fwpt_puts(&out, "\n");
    }
    fwpt_caps_parse(&snap, &caps);
    fwpt_caps_report(&caps, &out);
    if (!hw.cpu_arch) {
        fwpt_puts(&out, "msr: EFI_CPU_ARCH_PROTOCOL not found (");
        fwpt_put_efi_status(&out, hw.locate_status);
        fwpt_puts(&out, "): #GP cannot be caught, MSR access refused\n");
    }
    con.tee = NULL;
    fwpt_save_file(&vol, &screen, opt.out_dir, "caps.txt", report.data, report.len);
    fwpt_membuf_free(&report);

    if (opt.have_rdmsr_probe) {
        uint64_t v = 0;
        enum fwpt_status ms = fwpt_rdmsr(&cpu, opt.rdmsr_probe, &v); /* before v is read */
        msr_probe(&screen, &hw, "rdmsr ", opt.rdmsr_probe, ms, v);
    }
    if (opt.have_wrmsr_probe)
        msr_probe(&screen, &hw, "wrmsr ", opt.wrmsr_probe, fwpt_wrmsr(&cpu, opt.wrmsr_probe, opt.wrmsr_value),
                  opt.wrmsr_value);

    EFI_STATUS result = caps.pt_supported ? EFI_SUCCESS : EFI_UNSUPPORTED;
    /* boot-trace status alone ends with its own status (a machine without PT reads its options too); with a trace,
     * the first failure of the two */
    if (opt.boot_trace_status)
        result = fwpt_boot_trace_status(&screen);
    /* install and remove end with their own status (a machine without PT installs too); never beside a trace */
    if (opt.boot_trace_install)
        result = fwpt_boot_trace_install(image, &vol, opt.driver_opts, &screen);
    if (opt.boot_trace_remove)
        result = fwpt_boot_trace_remove_cmd(&screen);
    if (opt.trace) {
        EFI_STATUS bt = result;
        struct fwpt_run_env env = {
            .image = image, .volume = &vol, .cpu = &cpu, .hw = &hw, .caps = &caps, .opt = &opt,
        };
        result = fwpt_pipeline_run(&env);
        if (opt.boot_trace_status && EFI_ERROR(bt) && !EFI_ERROR(result))
            result = bt;
    }
    fwpt_volume_close(&vol);
    return finish(&screen, result, opt.shutdown, opt.wait);
}
