/* fwpt — what `trace TARGET` calls. Each target is prepared outside the trace, called by one
 * plain (System V) function while TraceEn=1 (so the software backend can single-step it the same
 * way), then reported and cleaned up. */
#ifndef FWPT_EFI_TARGETS_H
#define FWPT_EFI_TARGETS_H

#include <efi.h>
#include "base/text.h"
#include "efi/options.h"

struct fwpt_target_run {
    enum fwpt_target target;
    const char *path;             /* READ_FILE / LOAD_IMAGE (ASCII, '\' or '/') */
    EFI_HANDLE image;             /* this application (parent for LoadImage) */
    EFI_HANDLE device;            /* the boot volume's device */
    EFI_FILE_HANDLE root;         /* the boot volume's root directory */
    EFI_TPL raise_tpl;            /* test-raise-tpl: the call raises the TPL to this around the service; 0: never */
    /* the service the target exercises: its address finds the implementing image (filter=target) */
    uint64_t impl_addr;
    const char *impl_what;        /* "BS->LocateHandleBuffer" */
    const char *why;              /* set when fwpt_target_prepare fails on the PATH: what is wrong with it, in words */
    /* prepared */
    CHAR16 path16[260];
    EFI_DEVICE_PATH *dp;
    EFI_HANDLE *handles;
    UINTN nhandles;
    void *buf;
    UINTN buf_size;
    /* results (written by the traced call) */
    EFI_STATUS status, status2;
    UINTN count, size;
    EFI_PHYSICAL_ADDRESS addr;
    EFI_HANDLE loaded;
    UINTN connected;
    /* LOAD_IMAGE: an application is unloaded when StartImage returns, so its bytes are copied
     * (one REP MOVSB, inside the traced call) between LoadImage and StartImage for the decoder. */
    uint8_t *image_copy;
    UINTN image_copy_cap;
    uint64_t loaded_base, loaded_size;
    BOOLEAN copied;
};

/* Fills impl_addr/impl_what and prepares buffers/handles. EFI error: the target cannot run (why says what is
 * wrong with the PATH of read-file and load-image, NULL otherwise). */
EFI_STATUS fwpt_target_prepare(struct fwpt_target_run *t);
/* The traced call: arg is the struct fwpt_target_run. */
void fwpt_target_call(void *arg);
/* The current TPL (RaiseTPL to TPL_HIGH_LEVEL returns it; restored at once). */
EFI_TPL fwpt_current_tpl(void);
/* "TPL_APPLICATION (4)" */
void fwpt_put_tpl(const struct fwpt_sink *o, EFI_TPL tpl);
/* One line: what the call returned. */
void fwpt_target_report(const struct fwpt_target_run *t, const struct fwpt_sink *o);
void fwpt_target_cleanup(struct fwpt_target_run *t);

#endif
