/* Host test of the PE/COFF name lookup the EFI app uses for loaded images (efi/pe.c is pure C). */
#include "tests/check.h"
#include "efi/pe.c"

static uint8_t img[0x400];

static void put32(uint32_t off, uint32_t v) { memcpy(img + off, &v, 4); }
static void put16(uint32_t off, uint16_t v) { memcpy(img + off, &v, 2); }

/* MZ at 0, PE at 0x80, optional header at 0x98 (magic), debug directory entry at 0x200, CodeView
 * record at 0x240. */
static void build(uint16_t magic, const char *sig, const char *path)
{
    memset(img, 0, sizeof img);
    img[0] = 'M';
    img[1] = 'Z';
    put32(0x3c, 0x80);
    memcpy(img + 0x80, "PE\0\0", 4);
    uint32_t opt = 0x98, dd = magic == 0x20b ? 112 : 96;
    put16(opt, magic);
    put32(opt + dd - 4, 16);           /* NumberOfRvaAndSizes */
    put32(opt + dd + 8 * 6, 0x200);    /* debug directory RVA */
    put32(opt + dd + 8 * 6 + 4, 28);   /* one entry */
    uint32_t skip = !strcmp(sig, "RSDS") ? 24 : 16;
    uint32_t len = skip + (uint32_t)strlen(path) + 1;
    put32(0x200 + 12, 2);              /* IMAGE_DEBUG_TYPE_CODEVIEW */
    put32(0x200 + 16, len);
    put32(0x200 + 20, 0x240);
    memcpy(img + 0x240, sig, 4);
    memcpy(img + 0x240 + skip, path, strlen(path) + 1);
}

static char pdb[160], name[64];

/* RSDS in a PE32+ image: the module name and the whole PDB path */
TEST(rsds_pe32plus_name_and_pdb_path)
{
    build(0x20b, "RSDS", "/build/OvmfX64/RELEASE_GCC5/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.dll");
    CHECK(fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    CHECK_STR(name, "DxeCore");
    CHECK_STR(pdb, "/build/OvmfX64/RELEASE_GCC5/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.dll");
}

/* NB10 in a PE32 image, a Windows path */
TEST(nb10_pe32_name)
{
    build(0x10b, "NB10", "c:\\build\\IA32\\PciBusDxe.pdb");
    CHECK(fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    CHECK_STR(name, "PciBusDxe");
}

/* small name buffer: truncated, still terminated */
TEST(small_name_buffer_truncated_terminated)
{
    build(0x20b, "RSDS", "/x/VariableRuntimeDxe.dll");
    CHECK(fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, 9));
    CHECK_STR(name, "Variable");
}

/* no debug directory, wrong type, bad signature, truncated image, not MZ, not PE */
TEST(malformed_images_refused)
{
    build(0x20b, "RSDS", "/x/A.dll");
    put32(0x98 + 112 + 48, 0);
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "RSDS", "/x/A.dll");
    put32(0x200 + 12, 4);
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "XXXX", "/x/A.dll");
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "RSDS", "/x/A.dll");
    CHECK(!fwpt_pe_debug_name(img, 0x250, pdb, sizeof pdb, name, sizeof name)); /* record past the end */
    CHECK(!fwpt_pe_debug_name(img, 0x90, pdb, sizeof pdb, name, sizeof name));  /* headers past the end */
    img[0] = 'X';
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "RSDS", "/x/A.dll");
    img[0x81] = 'X';
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "RSDS", "/x/A.dll");
    put32(0x3c, 0xfffffff0u); /* e_lfanew far outside */
    CHECK(!fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
}

/* basenames of file paths */
TEST(path_basename)
{
    fwpt_path_basename("\\EFI\\BOOT\\BOOTX64.EFI", name, sizeof name);
    CHECK_STR(name, "BOOTX64");
    fwpt_path_basename("fwpt/hello.efi", name, sizeof name);
    CHECK_STR(name, "hello");
    fwpt_path_basename("noext", name, sizeof name);
    CHECK_STR(name, "noext");
    fwpt_path_basename("\\dir\\.efi", name, sizeof name);
    CHECK_STR(name, ".efi");
    fwpt_path_basename("a.b.c", name, sizeof name);
    CHECK_STR(name, "a.b");
}

TEST_MAIN("efi-pe")
