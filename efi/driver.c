/* fwpt — the boot-trace driver (fwptdrv.efi, an EFI boot service driver). The boot manager loads it from fwpt's
 * Driver#### option (UEFI spec, "Load Option Processing": driver options load before the consoles connect); it
 * removes that option first (one-shot, unless keep), starts the trace as `trace` does, and returns: the rest of Boot
 * Device Selection runs traced (Intel PT, or backend=soft single-stepping it). The trace ends at ReadyToBoot, when
 * the buffer fills, or at the step limit; at ReadyToBoot the trace is stopped, decoded and written to \fwpt\boot\
 * (out=) on the volume the driver was loaded from, with log.txt, and the boot goes on. Nothing here ever stops a
 * boot: a failure is logged and the entry still returns EFI_SUCCESS (the image stays, to write the log). */
#include <efi.h>
#include <efilib.h>
#include "arch/caps.h"
#include "base/version.h"
#include "efi/boot_trace.h"
#include "efi/console.h"
#include "efi/cpu_hw.h"
#include "efi/options.h"
#include "efi/pipeline.h"
#include "efi/pool.h"
#include "efi/progress.h"
#include "efi/volume.h"


/* EFI_EVENT_GROUP_READY_TO_BOOT (UEFI spec, "CreateEventEx": the boot manager signals it just before it starts a
 * boot option). */
static EFI_GUID ready_to_boot_guid = {0x7ce88fb3, 0x4bd7, 0x4679, {0x87, 0xa8, 0xa8, 0xd8, 0xde, 0xe5, 0x0d, 0x2b}};

/* backend=soft without steps=: the boot from BDS to ReadyToBoot is hundreds of millions of instructions, hours of
 * single-stepping; this many steps take well under a minute under QEMU/TCG (docs/boot-trace.md). */
#define DRIVER_SOFT_STEPS 2000000ull
/* images whose start is recorded (their bytes copied: an application or a driver may be gone by ReadyToBoot) */
#define MAX_STARTED 128

/* ---- what the driver prints: COM1 while the consoles are not connected yet, the console at the end; all of it
 * into log.txt ---- */
static struct {
    bool uart, screen;
    struct fwpt_membuf log;
} out_state;

static void out_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    if (out_state.uart) {
        struct fwpt_sink u = fwpt_uart_sink();
        u.write(u.ctx, s, n);
    }
    if (out_state.screen) {
        struct fwpt_sink c = fwpt_screen_sink();
        c.write(c.ctx, s, n);
    }
    fwpt_membuf_append(&out_state.log, s, n);
}
static const struct fwpt_sink out = {out_write, NULL};

/* ---- the state that lives from the entry to ReadyToBoot ---- */
static EFI_HANDLE self;
static struct fwpt_efi_options opt;
static struct fwpt_cpu_hw hw;
static struct fwpt_cpu cpu;
static struct fwpt_caps caps;
static struct fwpt_volume vol;
static struct fwpt_run_env env;
static struct fwpt_run run;
static bool tracing;                    /* fwpt_pipeline_boot_start succeeded */
static const char *failed;              /* why nothing is traced (the log says more), NULL when tracing */
static EFI_EVENT ev_ready, ev_exit;
static int ended;
static int exit_tag;                    /* the ExitBootServices event's context */
static EFI_IMAGE_START start_image_orig;
static struct fwpt_image started[MAX_STARTED];
static unsigned n_started, n_started_lost;

/* The end-of-trace notify function: its first instruction is where single-stepping ends (fwpt_soft_open's stop_ip);
 * it clears TF (the trap that landed here already ended stepping) and goes on in C. MS ABI arguments untouched. */
void fwpt_driver_notify(EFI_EVENT ev, void *ctx) __attribute__((ms_abi, visibility("hidden")));
__asm__(".text\n"
        ".globl fwpt_driver_notify_stub\n.hidden fwpt_driver_notify_stub\n"
        "fwpt_driver_notify_stub:\n"
        "    pushfq\n"
        "    andq $~0x100, (%rsp)\n"
        "    popfq\n"
        "    jmp fwpt_driver_notify\n");
void fwpt_driver_notify_stub(EFI_EVENT ev, void *ctx) __attribute__((ms_abi));

static void set_start_image(EFI_IMAGE_START fn)
{
    EFI_TPL old = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_HIGH_LEVEL);
    UINT32 crc = 0;
    BS->StartImage = fn;
    BS->Hdr.CRC32 = 0;
    uefi_call_wrapper(BS->CalculateCrc32, 3, BS, BS->Hdr.HeaderSize, &crc);
    BS->Hdr.CRC32 = crc;
    uefi_call_wrapper(BS->RestoreTPL, 1, old);
}

/* An image about to start while the trace runs: where it is, its file, a copy of its bytes (an application is
 * unloaded when it returns, a driver may unload itself: the code that ran must still be in the files). */
static void record_start(EFI_HANDLE h)
{
    EFI_LOADED_IMAGE *li;
    if (!tracing || ended || (run.soft && !run.soft->stepping))
        return; /* the trace has ended: what runs now is not in it */
    if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h, &LoadedImageProtocol, (void **)&li)) || !li->ImageBase ||
        !li->ImageSize)
        return;
    if (n_started == MAX_STARTED) {
        n_started_lost++;
        return;
    }
    struct fwpt_image *b = &started[n_started++];
    fwpt_symbols_describe(li, b);
    uint8_t *copy = AllocatePool(li->ImageSize);
    if (copy)
        CopyMem(copy, li->ImageBase, li->ImageSize);
    b->code = copy;
}

static EFI_STATUS EFIAPI start_image_hook(EFI_HANDLE h, UINTN *exit_size, CHAR16 **exit_data)
{
    record_start(h);
    return uefi_call_wrapper(start_image_orig, 3, h, exit_size, exit_data);
}

static void save_log(void)
{
    if (!vol.root)
        return;
    EFI_STATUS st = fwpt_save_file(&vol, &out, opt.out_dir, "log.txt", out_state.log.data, out_state.log.len);
    if (EFI_ERROR(st))
        fwpt_puts(&out, "fwptdrv: log.txt could not be written (see above): the console above is all there is\n");
}

/* The volume the driver was loaded from, connected if it is not yet (UEFI spec, "ConnectController"). */
static void open_volume(void)
{
    EFI_STATUS st = fwpt_volume_open(self, &vol);
    if (EFI_ERROR(st) && vol.device) {
        uefi_call_wrapper(BS->ConnectController, 4, vol.device, NULL, NULL, TRUE);
        st = fwpt_volume_open(self, &vol);
    }
    if (EFI_ERROR(st)) {
        fwpt_puts(&out, "fwptdrv: the volume it was loaded from has no file system now (");
        fwpt_put_efi_status(&out, st);
        fwpt_puts(&out, "): no files are written; the console has it all\n");
    }
}

__attribute__((ms_abi)) void fwpt_driver_notify(EFI_EVENT ev, void *ctx)
{
    (void)ev;
    if (ended)
        return;
    ended = 1;
    if (ctx == &exit_tag) {
        /* ExitBootServices with no ReadyToBoot before it: TraceEn=0 and the MSRs restored (the OS owns the memory
         * now); no memory or file service may be called here (UEFI spec, "ExitBootServices") */
        if (tracing)
            fwpt_pipeline_boot_stop(&run);
        out_state.screen = false;
        fwpt_puts(&out, "fwptdrv: ExitBootServices came before ReadyToBoot: the trace is stopped and the MSRs restored; "
                        "no files are written\n");
        return;
    }
    if (tracing)
        fwpt_pipeline_boot_stop(&run); /* first: TraceEn=0 */
    uefi_call_wrapper(BS->CloseEvent, 1, ev_ready);
    if (ev_exit)
        uefi_call_wrapper(BS->CloseEvent, 1, ev_exit);
    if (start_image_orig && BS->StartImage == start_image_hook)
        set_start_image(start_image_orig);
    /* the consoles are connected now */
    bool replay = !out_state.uart;
    out_state.uart = false;
    out_state.screen = true;
    if (replay && out_state.log.len) {
        struct fwpt_sink c = fwpt_screen_sink();
        fwpt_puts(&c, "fwptdrv: what it said at its start:\n");
        fwpt_putn(&c, out_state.log.data, out_state.log.len);
    }
    fwpt_puts(&out, "fwptdrv: ReadyToBoot: the end of the boot trace\n");
    open_volume();
    EFI_STATUS st = EFI_NOT_STARTED;
    if (tracing) {
        if (n_started_lost)
            fwpt_printf(&out, "images: %u more started than the %u whose code was copied: their code is missing\n",
                        n_started_lost, MAX_STARTED);
        run.o = out;
        st = fwpt_pipeline_boot_end(&run, started, n_started);
        tracing = false;
    }
    for (unsigned i = 0; i < n_started; i++)
        started[i].code = fwpt_pool_free((void *)started[i].code);
    fwpt_puts(&out, "fwptdrv: ");
    if (failed) {
        fwpt_puts(&out, "nothing traced: ");
        fwpt_puts(&out, failed);
    } else {
        fwpt_puts(&out, "boot trace status ");
        fwpt_put_efi_status(&out, st);
        if (!EFI_ERROR(run.write_status) && vol.root) {
            fwpt_puts(&out, "; files in ");
            fwpt_puts(&out, opt.out_dir);
        } else {
            fwpt_puts(&out, "; the files were NOT all written");
        }
    }
    fwpt_puts(&out, "; the boot goes on\n");
    save_log();
    fwpt_volume_close(&vol);
    fwpt_membuf_free(&out_state.log);
    return;
}

/* The events that end the trace: ReadyToBoot, and ExitBootServices in case a boot path never signals it. */
static EFI_STATUS make_events(void)
{
    EFI_STATUS st = uefi_call_wrapper(BS->CreateEventEx, 6, EVT_NOTIFY_SIGNAL, TPL_CALLBACK,
                                      (EFI_EVENT_NOTIFY)fwpt_driver_notify_stub, NULL, &ready_to_boot_guid, &ev_ready);
    if (EFI_ERROR(st))
        return st;
    st = uefi_call_wrapper(BS->CreateEvent, 5, EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_NOTIFY,
                           (EFI_EVENT_NOTIFY)fwpt_driver_notify_stub, &exit_tag, &ev_exit);
    if (EFI_ERROR(st)) {
        uefi_call_wrapper(BS->CloseEvent, 1, ev_ready);
        ev_ready = NULL;
    }
    return st;
}

/* Options, one-shot, capabilities, the trace started; false with `failed` set when nothing is traced. */
static bool begin(void)
{
    static char line[FWPT_DRIVER_OPTS_MAX + 64];
    char err[160];
    EFI_LOADED_IMAGE *li = NULL;
    UINTN n = 0;
    if (!EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, self, &LoadedImageProtocol, (void **)&li)))
        n = fwpt_load_options_text(li, line, sizeof line);
    fwpt_printf(&out, "fwptdrv: options (LoadOptions): %s\n", n ? line : "(none)");
    int perr = fwpt_options_parse_driver(line, n, &opt, err, sizeof err);
    /* one-shot: the option goes before anything is traced, so a trace that goes wrong cannot come back every boot
     * (a refused line cannot say keep) */
    if (perr || !opt.keep) {
        unsigned removed = 0;
        EFI_STATUS rs = fwpt_boot_trace_remove(&out, &removed);
        if (EFI_ERROR(rs)) {
            fwpt_puts(&out, "fwptdrv: removing its Driver#### option failed (");
            fwpt_put_efi_status(&out, rs);
            fwpt_puts(&out, "): run `boot-trace remove` from the app\n");
        } else {
            fwpt_printf(&out, "fwptdrv: one-shot: %u Driver#### option%s removed (install with keep to trace every "
                              "boot)\n", removed, removed == 1 ? "" : "s");
        }
    } else {
        fwpt_puts(&out, "fwptdrv: keep: its Driver#### option stays (`boot-trace remove` ends it)\n");
    }
    if (perr) {
        fwpt_printf(&out, "fwptdrv: error: %s\n", err);
        failed = "its options were refused (see log.txt)";
        return false;
    }
    if (opt.backend != FWPT_BACKEND_HW && !opt.steps) {
        opt.steps = DRIVER_SOFT_STEPS;
        fwpt_printf(&out, "fwptdrv: steps=%lu (the driver's default for the software tracer: steps=N for more)\n",
                    (unsigned long)opt.steps);
    }
    fwpt_cpu_hw_init(&hw, &cpu);
    struct fwpt_cpuid_snapshot snap;
    if (fwpt_caps_read(&cpu, &snap) != FWPT_OK)
        fwpt_puts(&out, "caps: reading CPUID failed\n");
    fwpt_caps_parse(&snap, &caps);
    fwpt_caps_report(&caps, &out);
    env = (struct fwpt_run_env){.image = self, .volume = &vol, .cpu = &cpu, .hw = &hw, .caps = &caps, .opt = &opt};
    EFI_STATUS st = make_events();
    if (EFI_ERROR(st)) {
        fwpt_puts(&out, "fwptdrv: cannot create the ReadyToBoot event (");
        fwpt_put_efi_status(&out, st);
        fwpt_puts(&out, "): nothing traced\n");
        failed = "no ReadyToBoot event";
        return false;
    }
    fwpt_puts(&out, "trace: target boot (BDS from here to ReadyToBoot)\n");
    st = fwpt_pipeline_boot_start(&run, &env, &out);
    if (EFI_ERROR(st)) {
        failed = "the trace could not start (see log.txt)";
        return false;
    }
    tracing = true;
    start_image_orig = BS->StartImage;
    set_start_image(start_image_hook);
    fwpt_puts(&out, "fwptdrv: tracing the boot to ReadyToBoot\n");
    return true;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
    InitializeLib(image, systab);
    self = image;
    out_state.uart = fwpt_uart_present();
    fwpt_options_default(&opt);
    fwpt_puts(&out, "fwptdrv " FWPT_VERSION " - the boot trace of fwpt\n");
    if (!begin()) {
        fwpt_puts(&out, "fwptdrv: the boot goes on untraced\n");
        if (!ev_ready)
            make_events(); /* to write log.txt at ReadyToBoot; without it the lines above are all there is */
        return EFI_SUCCESS;
    }
    /* the last step: with backend=soft, single-stepping starts at the return from fwpt_soft_open */
    if (run.soft) {
        EFI_STATUS st = fwpt_soft_open(run.soft, (uint64_t)(uintptr_t)fwpt_driver_notify_stub);
        if (EFI_ERROR(st)) {
            fwpt_puts(&out, "fwptdrv: single-stepping cannot start (");
            fwpt_put_efi_status(&out, st);
            fwpt_puts(&out, "): the trace ends at once\n");
        }
    }
    return EFI_SUCCESS;
}
