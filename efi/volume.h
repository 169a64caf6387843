/* fwpt — files on the volume the app was loaded from (Simple File System protocol). ASCII paths,
 * '/' or '\' separators. */
#ifndef FWPT_EFI_VOLUME_H
#define FWPT_EFI_VOLUME_H

#include <efi.h>
#include "decode/packet.h"
#include "base/text.h"

struct fwpt_volume {
    EFI_FILE_HANDLE root; /* NULL when the boot volume has no file system */
    EFI_HANDLE device;    /* LoadedImage->DeviceHandle */
    EFI_STATUS open_status;
};

EFI_STATUS fwpt_volume_open(EFI_HANDLE image, struct fwpt_volume *v);
void fwpt_volume_close(struct fwpt_volume *v);
/* Creates every directory along path (e.g. "\fwpt\run1"). */
EFI_STATUS fwpt_volume_mkdir(struct fwpt_volume *v, const char *path);
/* Replaces the file with exactly these bytes. */
EFI_STATUS fwpt_volume_write(struct fwpt_volume *v, const char *path, const void *data, UINTN len);
/* The same for a file whose bytes lie in pieces (a trace where the processor wrote it), in order. */
EFI_STATUS fwpt_volume_write_segs(struct fwpt_volume *v, const char *path, const struct fwpt_pkt_seg *segs, UINTN n);
/* Reads a whole file into pool memory (caller frees with FreePool); at most max bytes. */
EFI_STATUS fwpt_volume_read(struct fwpt_volume *v, const char *path, UINTN max, char **data, UINTN *len);
/* ASCII path -> CHAR16 with '\' separators; returns false if it does not fit. */
BOOLEAN fwpt_path16(const char *path, CHAR16 *out, UINTN cap);

/* "EFI_UNSUPPORTED (0x8000000000000003)" */
void fwpt_put_efi_status(const struct fwpt_sink *o, EFI_STATUS st);
/* Writes DIR\NAME (creating DIR) and reports "file: wrote ..." or "file: FAILED to write ...: why". */
EFI_STATUS fwpt_save_file(struct fwpt_volume *v, const struct fwpt_sink *o, const char *dir, const char *name,
                          const void *data, UINTN len);
EFI_STATUS fwpt_save_file_segs(struct fwpt_volume *v, const struct fwpt_sink *o, const char *dir, const char *name,
                               const struct fwpt_pkt_seg *segs, UINTN n);

/* LoadOptions as a command line into out (NUL-terminated), its length; 0 unless every unit is printable text (boot
 * managers also pass binary data there: EDK2 puts a GUID in the boot options it creates) or when it does not fit. */
UINTN fwpt_load_options_text(const EFI_LOADED_IMAGE *li, char *out, UINTN cap);

#endif
