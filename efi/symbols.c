/* fwpt — loaded images and symbolization (see symbols.h). */
#include <efi.h>
#include <efilib.h>
#include "efi/pe.h"
#include "efi/pool.h"
#include "efi/symbols.h"

static void ascii_from16(const CHAR16 *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; s && s[n] && n + 1 < cap; n++)
        out[n] = (s[n] < 0x80) ? (char)s[n] : '?';
    out[n] = 0;
}

/* EFI_FIRMWARE_VOLUME2_PROTOCOL (PI spec Vol. 3; not in gnu-efi): only ReadSection is used. */
#define FWPT_FV2_GUID {0x220e73b6, 0x6bdb, 0x4413, {0x84, 0x05, 0xb9, 0x74, 0xb1, 0x08, 0x61, 0x9a}}
#define FWPT_SECTION_USER_INTERFACE 0x15
struct fwpt_fv2 {
    void *GetVolumeAttributes, *SetVolumeAttributes, *ReadFile;
    EFI_STATUS(EFIAPI *ReadSection)(struct fwpt_fv2 *This, EFI_GUID *NameGuid, UINT8 SectionType,
                                    UINTN SectionInstance, void **Buffer, UINTN *BufferSize, UINT32 *AuthStatus);
};

static void put_guid(char *out, size_t cap, const EFI_GUID *g)
{
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, out, cap - 1);
    fwpt_put_hex(&o, g->Data1, 8);
    fwpt_putc(&o, '-');
    fwpt_put_hex(&o, g->Data2, 4);
    fwpt_putc(&o, '-');
    fwpt_put_hex(&o, g->Data3, 4);
    fwpt_putc(&o, '-');
    for (int i = 0; i < 8; i++) {
        if (i == 2)
            fwpt_putc(&o, '-');
        fwpt_put_hex(&o, g->Data4[i], 2);
    }
    out[b.len] = 0;
}

/* Images loaded from a firmware volume have a MEDIA_PIWG_FW_FILE_DP (4/6) node naming the FFS file (its GUID into
 * gs); its UI section holds the module's name ("DxeCore"). */
static bool fv_file_name(EFI_LOADED_IMAGE *li, char *file, size_t file_cap, char *name, size_t name_cap, char gs[40])
{
    static EFI_GUID fv2_guid = FWPT_FV2_GUID;
    EFI_DEVICE_PATH *dp = li->FilePath, *last = NULL;
    for (unsigned n = 0; dp && n < 64; n++) {
        if (DevicePathType(dp) == END_DEVICE_PATH_TYPE)
            break;
        last = dp;
        dp = NextDevicePathNode(dp);
    }
    if (!last || DevicePathType(last) != MEDIA_DEVICE_PATH || DevicePathSubType(last) != 6 ||
        (UINTN)DevicePathNodeLength(last) < 4 + sizeof(EFI_GUID))
        return false;
    EFI_GUID g;
    CopyMem(&g, (UINT8 *)last + 4, sizeof g);
    put_guid(gs, 40, &g);
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, file, file_cap - 1);
    fwpt_puts(&o, "FvFile(");
    fwpt_puts(&o, gs);
    fwpt_puts(&o, ")");
    file[b.len] = 0;
    struct fwpt_fv2 *fv = NULL;
    void *buf = NULL;
    UINTN size = 0;
    UINT32 auth = 0;
    if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &fv2_guid, (void **)&fv)) || !fv ||
        EFI_ERROR(fv->ReadSection(fv, &g, FWPT_SECTION_USER_INTERFACE, 0, &buf, &size, &auth)) || !buf) {
        fwpt_memcpy(name, gs, 9 < name_cap ? 9 : name_cap); /* "d6a2cb7f-" -> first 8 digits */
        name[8 < name_cap ? 8 : name_cap - 1] = 0;
        return true;
    }
    ascii_from16(buf, name, name_cap);
    FreePool(buf);
    return true;
}

/* The CodeView RSDS GUID and age of the image's bytes (the PDB's identity), "" when it has none. */
static void debug_guid(struct fwpt_image *m, const uint8_t *bytes)
{
    uint8_t g[16];
    m->pdb_guid[0] = 0;
    if (fwpt_pe_debug_guid(bytes, m->size, g, &m->pdb_age)) {
        EFI_GUID eg;
        CopyMem(&eg, g, sizeof eg);
        put_guid(m->pdb_guid, sizeof m->pdb_guid, &eg);
    }
}

/* decode/image's map of the images, rebuilt whenever img changes. */
static EFI_STATUS build_map(struct fwpt_symbols *s)
{
    fwpt_pool_free(s->mod);
    s->mod = AllocateZeroPool((s->count + 1) * sizeof *s->mod);
    s->map = (struct fwpt_modules){s->mod, 0, 0};
    if (!s->mod)
        return EFI_OUT_OF_RESOURCES;
    for (unsigned i = 0; i < s->count; i++) {
        const struct fwpt_image *m = &s->img[i];
        s->mod[i] = (struct fwpt_module){m->name, m->base, m->size, fwpt_image_bytes(m), m->size};
    }
    s->map.n = s->count;
    return EFI_SUCCESS;
}

void fwpt_symbols_describe(EFI_LOADED_IMAGE *li, struct fwpt_image *m)
{
    fwpt_memset(m, 0, sizeof *m);
    m->base = (uint64_t)(UINTN)li->ImageBase;
    m->size = li->ImageSize;
    char fvname[64];
    bool from_fv = li->FilePath && fv_file_name(li, m->file, sizeof m->file, fvname, sizeof fvname, m->fv_guid);
    if (li->FilePath && !from_fv) {
        CHAR16 *p = DevicePathToStr(li->FilePath);
        if (p) {
            ascii_from16(p, m->file, sizeof m->file);
            FreePool(p);
        }
    }
    if (!fwpt_pe_debug_name(li->ImageBase, m->size, m->pdb, sizeof m->pdb, m->name, sizeof m->name)) {
        if (from_fv)
            fwpt_memcpy(m->name, fvname, sizeof m->name < sizeof fvname ? sizeof m->name : sizeof fvname);
        else if (m->file[0])
            fwpt_path_basename(m->file, m->name, sizeof m->name);
        else
            fwpt_memcpy(m->name, "image", 6);
    }
    debug_guid(m, li->ImageBase);
}

EFI_STATUS fwpt_symbols_load(struct fwpt_symbols *s)
{
    EFI_HANDLE *h = NULL;
    UINTN nh = 0;
    s->img = NULL;
    s->count = 0;
    s->mod = NULL;
    s->map = (struct fwpt_modules){NULL, 0, 0};
    EFI_STATUS st = uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &LoadedImageProtocol, NULL, &nh, &h);
    if (EFI_ERROR(st))
        return st;
    s->img = AllocateZeroPool(nh * sizeof *s->img);
    if (!s->img) {
        FreePool(h);
        return EFI_OUT_OF_RESOURCES;
    }
    for (UINTN i = 0; i < nh; i++) {
        EFI_LOADED_IMAGE *li;
        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h[i], &LoadedImageProtocol, (void **)&li)) ||
            !li->ImageBase || !li->ImageSize)
            continue;
        fwpt_symbols_describe(li, &s->img[s->count++]);
    }
    FreePool(h);
    /* sort by base (insertion: a few hundred images at most) */
    for (unsigned i = 1; i < s->count; i++) {
        struct fwpt_image t = s->img[i];
        unsigned j = i;
        while (j > 0 && s->img[j - 1].base > t.base) {
            s->img[j] = s->img[j - 1];
            j--;
        }
        s->img[j] = t;
    }
    return build_map(s);
}

EFI_STATUS fwpt_symbols_add_image(struct fwpt_symbols *s, const struct fwpt_image *m)
{
    struct fwpt_image *n = AllocateZeroPool((s->count + 1) * sizeof *n);
    if (!n)
        return EFI_OUT_OF_RESOURCES;
    unsigned at = 0;
    while (at < s->count && s->img[at].base < m->base)
        at++;
    if (s->count) {
        CopyMem(n, s->img, at * sizeof *n);
        CopyMem(n + at + 1, s->img + at, (s->count - at) * sizeof *n);
        FreePool(s->img);
    }
    n[at] = *m;
    s->img = n;
    s->count++;
    return build_map(s);
}

EFI_STATUS fwpt_symbols_add(struct fwpt_symbols *s, uint64_t base, uint64_t size, const char *path,
                            const uint8_t *code)
{
    struct fwpt_image m;
    fwpt_memset(&m, 0, sizeof m);
    m.base = base;
    m.size = size;
    m.code = code;
    if (!fwpt_pe_debug_name(code, size, m.pdb, sizeof m.pdb, m.name, sizeof m.name))
        fwpt_path_basename(path, m.name, sizeof m.name);
    debug_guid(&m, code);
    size_t k = 0;
    for (; path[k] && k + 1 < sizeof m.file; k++)
        m.file[k] = path[k];
    m.file[k] = 0;
    return fwpt_symbols_add_image(s, &m);
}

void fwpt_symbols_free(struct fwpt_symbols *s)
{
    s->img = fwpt_pool_free(s->img);
    s->mod = fwpt_pool_free(s->mod);
    s->count = 0;
    s->map = (struct fwpt_modules){NULL, 0, 0};
}

struct fwpt_image *fwpt_symbols_find(const struct fwpt_symbols *s, uint64_t ip)
{
    const struct fwpt_module *m = fwpt_image_module_at(&s->map, ip, 0);
    return m ? &s->img[m - s->mod] : NULL;
}

void fwpt_symbols_put(const struct fwpt_symbols *s, uint64_t ip, const struct fwpt_sink *o)
{
    const struct fwpt_image *m = fwpt_symbols_find(s, ip);
    if (!m) {
        fwpt_put_0x(o, ip);
        return;
    }
    fwpt_puts(o, m->name);
    fwpt_puts(o, "+");
    fwpt_put_0x(o, ip - m->base);
}
