/* fwpt — boot volume file access. */
#include <efi.h>
#include <efilib.h>
#include "efi/volume.h"
#include "efi/pool.h"

static const char *efi_status_name(EFI_STATUS st)
{
    switch (st) {
    case EFI_SUCCESS: return "EFI_SUCCESS";
    case EFI_UNSUPPORTED: return "EFI_UNSUPPORTED";
    case EFI_INVALID_PARAMETER: return "EFI_INVALID_PARAMETER";
    case EFI_OUT_OF_RESOURCES: return "EFI_OUT_OF_RESOURCES";
    case EFI_DEVICE_ERROR: return "EFI_DEVICE_ERROR";
    case EFI_NOT_FOUND: return "EFI_NOT_FOUND";
    case EFI_ABORTED: return "EFI_ABORTED";
    case EFI_ACCESS_DENIED: return "EFI_ACCESS_DENIED";
    case EFI_WRITE_PROTECTED: return "EFI_WRITE_PROTECTED";
    case EFI_VOLUME_FULL: return "EFI_VOLUME_FULL";
    case EFI_ALREADY_STARTED: return "EFI_ALREADY_STARTED";
    case EFI_NOT_READY: return "EFI_NOT_READY";
    case EFI_LOAD_ERROR: return "EFI_LOAD_ERROR";
    case EFI_SECURITY_VIOLATION: return "EFI_SECURITY_VIOLATION";
    case EFI_COMPROMISED_DATA: return "EFI_COMPROMISED_DATA";
    default: return "EFI status";
    }
}

void fwpt_put_efi_status(const struct fwpt_sink *o, EFI_STATUS st)
{
    fwpt_puts(o, efi_status_name(st));
    fwpt_puts(o, " (");
    fwpt_put_0x(o, (uint64_t)st);
    fwpt_puts(o, ")");
}

/* Writes one file of the run, reporting success or failure on the console. */
EFI_STATUS fwpt_save_file_segs(struct fwpt_volume *v, const struct fwpt_sink *o, const char *dir, const char *name,
                               const struct fwpt_pkt_seg *segs, UINTN n)
{
    UINTN len = 0;
    for (UINTN i = 0; i < n; i++)
        len += segs[i].len;
    char path[300];
    struct fwpt_bufsink bs;
    struct fwpt_sink ps = fwpt_bufsink_init(&bs, path, sizeof path - 1);
    fwpt_puts(&ps, dir);
    fwpt_puts(&ps, "\\");
    fwpt_puts(&ps, name);
    path[bs.len] = 0;
    EFI_STATUS st = bs.overflow ? EFI_BUFFER_TOO_SMALL : fwpt_volume_mkdir(v, dir);
    if (!EFI_ERROR(st))
        st = fwpt_volume_write_segs(v, path, segs, n);
    fwpt_puts(o, EFI_ERROR(st) ? "file: FAILED to write " : "file: wrote ");
    fwpt_puts(o, path);
    fwpt_puts(o, " (");
    fwpt_put_dec(o, len);
    fwpt_puts(o, " bytes)");
    if (EFI_ERROR(st)) {
        fwpt_puts(o, ": ");
        fwpt_put_efi_status(o, st);
        if (st == EFI_VOLUME_FULL)
            fwpt_puts(o, ": the boot volume is full");
    }
    fwpt_puts(o, "\n");
    return st;
}

EFI_STATUS fwpt_save_file(struct fwpt_volume *v, const struct fwpt_sink *o, const char *dir, const char *name,
                          const void *data, UINTN len)
{
    struct fwpt_pkt_seg one = {data, len};
    return fwpt_save_file_segs(v, o, dir, name, &one, 1);
}

BOOLEAN fwpt_path16(const char *path, CHAR16 *out, UINTN cap)
{
    UINTN i = 0;
    for (; path[i]; i++) {
        if (i + 1 >= cap)
            return FALSE;
        out[i] = path[i] == '/' ? L'\\' : (CHAR16)(unsigned char)path[i];
    }
    out[i] = 0;
    return TRUE;
}

EFI_STATUS fwpt_volume_open(EFI_HANDLE image, struct fwpt_volume *v)
{
    EFI_LOADED_IMAGE *li = NULL;
    EFI_FILE_IO_INTERFACE *fs = NULL;
    v->root = NULL;
    v->device = NULL;
    EFI_STATUS st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li);
    if (!EFI_ERROR(st)) {
        v->device = li->DeviceHandle;
        st = uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &FileSystemProtocol, (void **)&fs);
    }
    if (!EFI_ERROR(st))
        st = uefi_call_wrapper(fs->OpenVolume, 2, fs, &v->root);
    if (EFI_ERROR(st))
        v->root = NULL;
    v->open_status = st;
    return st;
}

void fwpt_volume_close(struct fwpt_volume *v)
{
    if (v->root)
        uefi_call_wrapper(v->root->Close, 1, v->root);
    v->root = NULL;
}

#define VOLUME_PATH_MAX 260

/* The common start of the file operations: the volume is open (else why not) and PATH fits. */
static EFI_STATUS volume_path(const struct fwpt_volume *v, const char *path, CHAR16 *p)
{
    if (!v->root)
        return v->open_status ? v->open_status : EFI_NOT_READY;
    if (!fwpt_path16(path, p, VOLUME_PATH_MAX))
        return EFI_BUFFER_TOO_SMALL;
    return EFI_SUCCESS;
}

EFI_STATUS fwpt_volume_mkdir(struct fwpt_volume *v, const char *path)
{
    CHAR16 p[VOLUME_PATH_MAX];
    EFI_STATUS st = volume_path(v, path, p);
    if (EFI_ERROR(st))
        return st;
    for (UINTN i = 1;; i++) {
        CHAR16 c = p[i];
        if (c == L'\\' || c == 0) {
            p[i] = 0;
            EFI_FILE_HANDLE d;
            st = uefi_call_wrapper(v->root->Open, 5, v->root, &d, p,
                                   EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
                                   EFI_FILE_DIRECTORY);
            if (EFI_ERROR(st))
                return st;
            uefi_call_wrapper(d->Close, 1, d);
            p[i] = c;
            if (c == 0)
                break;
        }
    }
    return st;
}

EFI_STATUS fwpt_volume_write_segs(struct fwpt_volume *v, const char *path, const struct fwpt_pkt_seg *segs, UINTN n)
{
    CHAR16 p[VOLUME_PATH_MAX];
    EFI_FILE_HANDLE f;
    EFI_STATUS st = volume_path(v, path, p);
    if (EFI_ERROR(st))
        return st;
    /* Delete an older file first: Open(CREATE) keeps the old length. */
    if (!EFI_ERROR(uefi_call_wrapper(v->root->Open, 5, v->root, &f, p,
                                     EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0)))
        uefi_call_wrapper(f->Delete, 1, f);
    st = uefi_call_wrapper(v->root->Open, 5, v->root, &f, p,
                           EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0);
    if (EFI_ERROR(st))
        return st;
    for (UINTN i = 0; i < n && !EFI_ERROR(st); i++) {
        const char *d = (const char *)segs[i].p;
        UINTN len = segs[i].len, done = 0;
        while (!EFI_ERROR(st) && done < len) {
            UINTN k = len - done > (1u << 20) ? (1u << 20) : len - done;
            UINTN wrote = k;
            st = uefi_call_wrapper(f->Write, 3, f, &wrote, (void *)(d + done));
            if (!EFI_ERROR(st) && wrote != k)
                st = EFI_VOLUME_FULL;
            done += wrote;
        }
    }
    EFI_STATUS st2 = uefi_call_wrapper(f->Close, 1, f); /* Close flushes */
    return EFI_ERROR(st) ? st : st2;
}

EFI_STATUS fwpt_volume_write(struct fwpt_volume *v, const char *path, const void *data, UINTN len)
{
    struct fwpt_pkt_seg one = {data, len};
    return fwpt_volume_write_segs(v, path, &one, 1);
}

EFI_STATUS fwpt_volume_read(struct fwpt_volume *v, const char *path, UINTN max, char **data, UINTN *len)
{
    CHAR16 p[VOLUME_PATH_MAX];
    EFI_FILE_HANDLE f;
    *data = NULL;
    *len = 0;
    EFI_STATUS st = volume_path(v, path, p);
    if (EFI_ERROR(st))
        return st;
    st = uefi_call_wrapper(v->root->Open, 5, v->root, &f, p, EFI_FILE_MODE_READ, 0);
    if (EFI_ERROR(st))
        return st;
    EFI_FILE_INFO *info = LibFileInfo(f);
    UINTN size = info ? (UINTN)info->FileSize : max;
    fwpt_pool_free(info);
    if (size > max)
        size = max;
    char *buf = AllocatePool(size + 1);
    if (!buf) {
        uefi_call_wrapper(f->Close, 1, f);
        return EFI_OUT_OF_RESOURCES;
    }
    UINTN n = size;
    st = uefi_call_wrapper(f->Read, 3, f, &n, buf);
    uefi_call_wrapper(f->Close, 1, f);
    if (EFI_ERROR(st)) {
        FreePool(buf);
        return st;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return EFI_SUCCESS;
}

UINTN fwpt_load_options_text(const EFI_LOADED_IMAGE *li, char *out, UINTN cap)
{
    const CHAR16 *w = li->LoadOptions;
    UINTN units = li->LoadOptionsSize / sizeof(CHAR16), n = 0;
    if (!w || li->LoadOptionsSize % sizeof(CHAR16) || !cap)
        return 0;
    for (UINTN i = 0; i < units && w[i]; i++) {
        CHAR16 c = w[i];
        if (!((c >= 0x20 && c < 0x7f) || c == L'\t' || c == L'\r' || c == L'\n'))
            return 0;
        if (n + 1 >= cap)
            return 0;
        out[n++] = (char)c;
    }
    out[n] = 0;
    return n;
}
