/* fwpt — trace targets (see targets.h). */
#include <efi.h>
#include <efilib.h>
#include "efi/targets.h"
#include "efi/pool.h"
#include "efi/volume.h"

#define ALLOC_PAGES_COUNT 16

/* The service a target calls, by address (for the symbol lookup) and by name as written here. */
#define TARGET_IMPL(t, service) ((t)->impl_addr = (uint64_t)(UINTN)(service), (t)->impl_what = #service)

/* EFI_FILE_PROTOCOL.Open's failure in words (UEFI spec, "EFI_FILE_PROTOCOL.Open": its status codes). */
static const char *open_why(EFI_STATUS st)
{
    switch (st) {
    case EFI_NOT_FOUND: return "not found on the boot volume";
    case EFI_ACCESS_DENIED: return "access denied";
    case EFI_NO_MEDIA: return "no medium in the boot device";
    case EFI_MEDIA_CHANGED: return "the medium changed";
    case EFI_VOLUME_CORRUPTED: return "the file system is corrupted";
    default: return "cannot be opened";
    }
}

EFI_STATUS fwpt_target_prepare(struct fwpt_target_run *t)
{
    t->why = NULL;
    EFI_STATUS st = EFI_SUCCESS;
    switch (t->target) {
    case FWPT_TARGET_LOCATE_HANDLE:
        TARGET_IMPL(t, BS->LocateHandleBuffer);
        break;
    case FWPT_TARGET_MEMORY_MAP:
        TARGET_IMPL(t, BS->GetMemoryMap);
        break;
    case FWPT_TARGET_ALLOCATE_PAGES:
        TARGET_IMPL(t, BS->AllocatePages);
        break;
    case FWPT_TARGET_GET_VARIABLE:
        TARGET_IMPL(t, RT->GetVariable);
        t->buf_size = 4096;
        t->buf = AllocatePool(t->buf_size);
        if (!t->buf)
            st = EFI_OUT_OF_RESOURCES;
        break;
    case FWPT_TARGET_CONNECT_ALL:
        TARGET_IMPL(t, BS->ConnectController);
        st = uefi_call_wrapper(BS->LocateHandleBuffer, 5, AllHandles, NULL, NULL, &t->nhandles, &t->handles);
        break;
    case FWPT_TARGET_READ_FILE: {
        EFI_FILE_HANDLE f;
        if (!t->root) {
            t->why = "the boot volume has no file system";
            return EFI_NOT_READY;
        }
        if (!fwpt_path16(t->path, t->path16, 260)) {
            t->why = "the path is longer than 259 characters";
            return EFI_BUFFER_TOO_SMALL;
        }
        t->impl_addr = (uint64_t)(UINTN)t->root->Open;
        t->impl_what = "EFI_FILE_PROTOCOL.Open (the file system driver)";
        /* the size, outside the trace, so the traced call is Open + Read + Close only */
        st = uefi_call_wrapper(t->root->Open, 5, t->root, &f, t->path16, EFI_FILE_MODE_READ, 0);
        if (EFI_ERROR(st)) {
            t->why = open_why(st);
            return st;
        }
        EFI_FILE_INFO *info = LibFileInfo(f);
        uefi_call_wrapper(f->Close, 1, f);
        if (!info) {
            t->why = "its size cannot be read (EFI_FILE_INFO)";
            return EFI_DEVICE_ERROR;
        }
        t->buf_size = (UINTN)info->FileSize;
        FreePool(info);
        t->buf = AllocatePool(t->buf_size ? t->buf_size : 1);
        if (!t->buf)
            st = EFI_OUT_OF_RESOURCES;
        break;
    }
    case FWPT_TARGET_LOAD_IMAGE:
        if (!fwpt_path16(t->path, t->path16, 260)) {
            t->why = "the path is longer than 259 characters";
            return EFI_BUFFER_TOO_SMALL;
        }
        TARGET_IMPL(t, BS->LoadImage);
        t->dp = FileDevicePath(t->device, t->path16);
        if (!t->dp)
            return EFI_OUT_OF_RESOURCES;
        /* SizeOfImage from the PE header (optional header +56), for the copy buffer; a file that cannot be opened
         * is refused here, before anything is traced */
        if (t->root) {
            EFI_FILE_HANDLE f;
            UINT8 hdr[1024];
            UINTN n = sizeof hdr;
            st = uefi_call_wrapper(t->root->Open, 5, t->root, &f, t->path16, EFI_FILE_MODE_READ, 0);
            if (EFI_ERROR(st)) {
                t->why = open_why(st);
                return st;
            }
            if (EFI_ERROR(uefi_call_wrapper(f->Read, 3, f, &n, hdr)))
                n = 0;
            uefi_call_wrapper(f->Close, 1, f);
            UINT32 pe = n >= 0x40 ? *(UINT32 *)(hdr + 0x3c) : 0;
            if (hdr[0] == 'M' && hdr[1] == 'Z' && pe && pe + 24 + 60 <= n && *(UINT32 *)(hdr + pe) == 0x00004550u) {
                t->image_copy_cap = *(UINT32 *)(hdr + pe + 24 + 56) + EFI_PAGE_SIZE;
                t->image_copy = AllocatePool(t->image_copy_cap);
            }
        }
        break;
    default:
        st = EFI_INVALID_PARAMETER;
    }
    return st;
}

EFI_TPL fwpt_current_tpl(void)
{
    EFI_TPL tpl = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_HIGH_LEVEL);
    uefi_call_wrapper(BS->RestoreTPL, 1, tpl);
    return tpl;
}

void fwpt_put_tpl(const struct fwpt_sink *o, EFI_TPL tpl)
{
    fwpt_puts(o, tpl == TPL_APPLICATION ? "TPL_APPLICATION" : tpl == TPL_CALLBACK ? "TPL_CALLBACK"
                 : tpl == TPL_NOTIFY    ? "TPL_NOTIFY"      : tpl == TPL_HIGH_LEVEL ? "TPL_HIGH_LEVEL" : "TPL");
    fwpt_printf(o, " (%lu)", (unsigned long)tpl);
}

void fwpt_target_call(void *arg)
{
    struct fwpt_target_run *t = arg;
    EFI_TPL old = 0;
    if (t->raise_tpl)
        old = BS->RaiseTPL(t->raise_tpl);
    switch (t->target) {
    case FWPT_TARGET_LOCATE_HANDLE:
        t->status = BS->LocateHandleBuffer(AllHandles, NULL, NULL, &t->count, (EFI_HANDLE **)&t->buf);
        break;
    case FWPT_TARGET_MEMORY_MAP: {
        UINTN key, dsize;
        UINT32 dver;
        t->size = 0;
        t->status = BS->GetMemoryMap(&t->size, NULL, &key, &dsize, &dver);
        if (t->status == EFI_BUFFER_TOO_SMALL) {
            t->buf_size = t->size + 4 * dsize; /* the pool allocation may add entries */
            t->status2 = BS->AllocatePool(EfiLoaderData, t->buf_size, &t->buf);
            if (!EFI_ERROR(t->status2)) {
                t->size = t->buf_size;
                t->status = BS->GetMemoryMap(&t->size, t->buf, &key, &dsize, &dver);
                t->count = dsize ? t->size / dsize : 0;
            }
        }
        break;
    }
    case FWPT_TARGET_ALLOCATE_PAGES:
        t->status = BS->AllocatePages(AllocateAnyPages, EfiLoaderData, ALLOC_PAGES_COUNT, &t->addr);
        if (!EFI_ERROR(t->status))
            t->status2 = BS->FreePages(t->addr, ALLOC_PAGES_COUNT);
        break;
    case FWPT_TARGET_GET_VARIABLE: {
        UINT32 attr = 0;
        t->size = t->buf_size;
        t->status = RT->GetVariable(L"BootOrder", &EfiGlobalVariable, &attr, &t->size, t->buf);
        break;
    }
    case FWPT_TARGET_CONNECT_ALL:
        for (UINTN i = 0; i < t->nhandles; i++)
            if (!EFI_ERROR(BS->ConnectController(t->handles[i], NULL, NULL, TRUE)))
                t->connected++;
        t->status = EFI_SUCCESS;
        break;
    case FWPT_TARGET_READ_FILE: {
        EFI_FILE_HANDLE f;
        t->status = t->root->Open(t->root, &f, t->path16, EFI_FILE_MODE_READ, 0);
        if (!EFI_ERROR(t->status)) {
            t->size = t->buf_size;
            t->status = f->Read(f, &t->size, t->buf);
            t->status2 = f->Close(f);
        }
        break;
    }
    case FWPT_TARGET_LOAD_IMAGE:
        t->status = BS->LoadImage(FALSE, t->image, t->dp, NULL, 0, &t->loaded);
        if (!EFI_ERROR(t->status)) {
            EFI_LOADED_IMAGE *li;
            if (!EFI_ERROR(BS->HandleProtocol(t->loaded, &LoadedImageProtocol, (void **)&li))) {
                t->loaded_base = (uint64_t)(UINTN)li->ImageBase;
                t->loaded_size = li->ImageSize;
                if (t->image_copy && li->ImageSize <= t->image_copy_cap) {
                    void *d = t->image_copy, *src = li->ImageBase;
                    UINTN n = li->ImageSize;
                    __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
                    t->copied = TRUE;
                }
            }
            t->status2 = BS->StartImage(t->loaded, NULL, NULL);
        }
        break;
    default:
        t->status = EFI_INVALID_PARAMETER;
    }
    if (t->raise_tpl)
        BS->RestoreTPL(old);
}

void fwpt_target_report(const struct fwpt_target_run *t, const struct fwpt_sink *o)
{
    fwpt_printf(o, "target: %s returned ", fwpt_target_name(t->target));
    fwpt_put_efi_status(o, t->status);
    switch (t->target) {
    case FWPT_TARGET_LOCATE_HANDLE:
        fwpt_printf(o, ", %lu handles", t->count);
        break;
    case FWPT_TARGET_MEMORY_MAP:
        fwpt_printf(o, ", %lu descriptors", t->count);
        break;
    case FWPT_TARGET_ALLOCATE_PAGES:
        fwpt_printf(o, ", 16 pages at 0x%lx, FreePages ", t->addr);
        fwpt_put_efi_status(o, t->status2);
        break;
    case FWPT_TARGET_GET_VARIABLE:
        fwpt_printf(o, ", BootOrder is %lu bytes", t->size);
        break;
    case FWPT_TARGET_CONNECT_ALL:
        fwpt_printf(o, ", %lu of %lu handles connected", t->connected, t->nhandles);
        break;
    case FWPT_TARGET_READ_FILE:
        fwpt_printf(o, ", read %lu bytes of %s", t->size, t->path);
        break;
    case FWPT_TARGET_LOAD_IMAGE:
        fwpt_puts(o, ", StartImage ");
        fwpt_put_efi_status(o, t->status2);
        if (t->loaded_base)
            fwpt_printf(o, ", image at 0x%lx size 0x%lx", t->loaded_base, t->loaded_size);
        break;
    default:
        break;
    }
    fwpt_puts(o, "\n");
}

void fwpt_target_cleanup(struct fwpt_target_run *t)
{
    t->buf = fwpt_pool_free(t->buf);
    t->handles = fwpt_pool_free(t->handles);
    t->dp = fwpt_pool_free(t->dp);
    t->image_copy = fwpt_pool_free(t->image_copy);
}
