/* Host test of the PE/COFF name lookup the EFI app uses for loaded images (efi/pe.c is pure C), the CodeView GUID
 * and age it records for PDB matching, and the CRC-32 of an image's code it records (decode/image.c), against
 * zlib's crc32 values of the same bytes. */
#include "tests/check.h"
#include "tests/common/pe_image.h"
#include "tests/common/pe_load.h"
#include "decode/image.h"
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

/* RSDS: the GUID's 16 bytes as stored and the age; NB10 has no GUID; no CodeView record: none */
TEST(rsds_guid_and_age)
{
    uint8_t guid[16], want[16];
    uint32_t age = 0;
    build(0x20b, "RSDS", "/b/pdbdemo.pdb");
    for (int i = 0; i < 16; i++)
        img[0x240 + 4 + i] = want[i] = (uint8_t)(0xa0 + i);
    put32(0x240 + 20, 7);
    CHECK(fwpt_pe_debug_guid(img, sizeof img, guid, &age));
    CHECK(!memcmp(guid, want, 16));
    CHECK_EQ(age, 7);
    CHECK(fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    CHECK_STR(pdb, "/b/pdbdemo.pdb");
    build(0x20b, "NB10", "/b/DxeCore.dll"); /* what EDK2's GenFw writes */
    CHECK(!fwpt_pe_debug_guid(img, sizeof img, guid, &age));
    CHECK(fwpt_pe_debug_name(img, sizeof img, pdb, sizeof pdb, name, sizeof name));
    build(0x20b, "RSDS", "");                /* an empty path: not a record to use */
    CHECK(!fwpt_pe_debug_guid(img, sizeof img, guid, &age));
    build(0x20b, "RSDS", "/b/x.pdb");
    put32(0x200 + 12, 4);                    /* not CodeView */
    CHECK(!fwpt_pe_debug_guid(img, sizeof img, guid, &age));
}

/* build/pdbdemo.efi (tests/pdb.mk: lld-link /debug) as loaded: its RSDS GUID, read as an EFI_GUID (Data1..Data3
 * little-endian, as sideband.json's "pdb_guid" writes it), and its age are those llvm-pdbutil says of its PDB */
TEST(rsds_guid_of_pdbdemo_is_its_pdbs)
{
    char efi[600], cmd[1400], line[600], want[64] = "", got[64];
    unsigned want_age = 0;
    const char *b = getenv("FWPT_BUILD") ? getenv("FWPT_BUILD") : "build";
    struct pe demo;
    snprintf(efi, sizeof efi, "%s/pdbdemo.efi", b);
    CHECK(load_pe(efi, &demo));
    if (!demo.image) {
        fprintf(stderr, "efi-pe: no %s (make %s)\n", efi, efi);
        return;
    }
    snprintf(cmd, sizeof cmd, "llvm-pdbutil dump --summary '%s/pdbdemo.pdb'", b);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
        sscanf(line, " GUID: {%63[^}]}", want);
        sscanf(line, " Age: %u", &want_age);
    }
    if (p)
        pclose(p);
    uint8_t g[16];
    uint32_t age = 0;
    CHECK(fwpt_pe_debug_guid(demo.image, demo.size, g, &age));
    snprintf(got, sizeof got, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X",
             (unsigned)(g[0] | g[1] << 8 | g[2] << 16 | (uint32_t)g[3] << 24), (unsigned)(g[4] | g[5] << 8),
             (unsigned)(g[6] | g[7] << 8), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
    CHECK_STR(got, want);
    CHECK(want_age > 0);
    CHECK_EQ(age, want_age);
    free(demo.image);
}

static uint8_t pe[0x800];

/* the check value of CRC-32/ISO-HDLC: "123456789" -> 0xcbf43926 */
TEST(code_crc32_check_value)
{
    uint64_t n = 99;
    const struct pe_image_section s[] = {{0x200, 9, PE_IMAGE_SCN_CODE, 0}};
    pe_image_build(pe, sizeof pe, s, 1);
    memcpy(pe + 0x200, "123456789", 9);
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0xcbf43926u);
    CHECK_EQ(n, 9);
    pe[0x204] ^= 1;
    CHECK(fwpt_image_code_crc32(pe, sizeof pe, &n) != 0xcbf43926u);
}

/* the executable sections only, in table order (zlib.crc32(b"\x90" * 0x100 + b"\xc3" * 0x80)); one cut at the
 * image's end counts up to it (zlib.crc32(b"\x90" * 0x80)) */
TEST(code_crc32_executable_sections_only)
{
    uint64_t n = 0;
    const struct pe_image_section s[] = {
        {0x200, 0x100, PE_IMAGE_SCN_CODE, 0x90}, {0x300, 0x80, PE_IMAGE_SCN_DATA, 0x11}, {0x400, 0x80, PE_IMAGE_SCN_CODE, 0xc3}};
    pe_image_build(pe, sizeof pe, s, 3);
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0xb5767c81u);
    CHECK_EQ(n, 0x180);
    pe[0x300] = 0x22; /* data: not hashed */
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0xb5767c81u);
    CHECK_EQ(fwpt_image_code_crc32(pe, 0x280, &n), 0xda1dd97eu);
    CHECK_EQ(n, 0x80);
}

/* a section starting inside the one before it is not hashed again: at most each byte of the image once, however
 * many entries the table has (65535 entries of the whole image would hash it 65535 times) */
TEST(code_crc32_overlapping_sections_once)
{
    uint64_t n = 0;
    const struct pe_image_section s[] = {
        {0x400, 0x100, PE_IMAGE_SCN_CODE, 0x90}, {0x480, 0x100, PE_IMAGE_SCN_CODE, 0xc3}, {0x400, 0x100, PE_IMAGE_SCN_CODE, 0x90},
        {0x600, 0x80, PE_IMAGE_SCN_CODE, 0xc3}};
    pe_image_build(pe, sizeof pe, s, 4); /* the second fills 0x480.. with 0xc3 over the first's second half */
    memset(pe + 0x400, 0x90, 0x100);
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0xb5767c81u); /* 0x90 * 0x100, then 0xc3 * 0x80 at 0x600 */
    CHECK_EQ(n, 0x180);
}

/* nothing to hash: not PE/COFF, no executable section, the section table past the end */
TEST(code_crc32_nothing_to_hash)
{
    uint64_t n = 5;
    const struct pe_image_section s[] = {{0x300, 0x80, PE_IMAGE_SCN_DATA, 0x11}};
    pe_image_build(pe, sizeof pe, s, 1);
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0);
    CHECK_EQ(n, 0);
    const struct pe_image_section t[] = {{0x200, 0x100, PE_IMAGE_SCN_CODE, 0x90}};
    pe_image_build(pe, sizeof pe, t, 1);
    CHECK_EQ(fwpt_image_code_crc32(pe, 0x1a0, &n), 0); /* the table's entry ends at 0x1b0 */
    CHECK_EQ(n, 0);
    pe[1] = 'X';
    CHECK_EQ(fwpt_image_code_crc32(pe, sizeof pe, &n), 0);
    CHECK_EQ(n, 0);
}

/* A PE32+ x64 file for fwpt_pe_check_file: the optional header (240 bytes) at 0x98, one section header at 0x188 whose
 * raw data is 0x200..0x400. */
static void build_file(uint16_t subsystem)
{
    build(0x20b, "RSDS", "/x/fwptdrv.dll");
    put16(0x84, 0x8664);        /* Machine */
    put16(0x86, 1);             /* NumberOfSections */
    put16(0x94, 240);           /* SizeOfOptionalHeader */
    put16(0x98 + 68, subsystem);
    put32(0x188 + 16, 0x200);   /* SizeOfRawData */
    put32(0x188 + 20, 0x200);   /* PointerToRawData */
}

static char problem[200];
static const char *pe_problem_text(uint64_t size)
{
    uint16_t sub = 0xffff;
    struct fwpt_pe_problem why = {0};
    if (fwpt_pe_check_file(img, size, &sub, &why)) {
        snprintf(problem, sizeof problem, "ok, subsystem %u", sub);
    } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(problem, sizeof problem, why.what, (unsigned long)why.value, (unsigned long)why.limit);
#pragma GCC diagnostic pop
    }
    return problem;
}

/* The file check of `boot-trace install`: each refusal word for word, the subsystem of a good file */
TEST(check_file_refusals)
{
    build_file(11);
    CHECK_STR(pe_problem_text(sizeof img), "ok, subsystem 11");
    build_file(10);
    CHECK_STR(pe_problem_text(sizeof img), "ok, subsystem 10");
    CHECK_STR(pe_problem_text(0x3f), "shorter than an MS-DOS header (63 bytes, 64 needed)");
    CHECK_STR(pe_problem_text(0x90), "e_lfanew 0x80 leaves no room for the PE signature and COFF header (144 bytes)");
    CHECK_STR(pe_problem_text(0x100), "the optional header (240 bytes) does not fit in the file (256 bytes)");
    CHECK_STR(pe_problem_text(0x1a0), "the section table (1 sections) runs past the end of the file (416 bytes)");
    CHECK_STR(pe_problem_text(0x3ff), "a section's raw data ends at byte 1024, past the end of the file (1023 bytes)");
    build_file(11);
    img[1] = 'X';
    CHECK_STR(pe_problem_text(sizeof img), "no MZ signature at offset 0");
    build_file(11);
    img[0x83] = 1;
    CHECK_STR(pe_problem_text(sizeof img), "no PE signature at offset 0x80 (e_lfanew)");
    build_file(11);
    put16(0x84, 0x14c);
    CHECK_STR(pe_problem_text(sizeof img), "Machine 0x14c is not x64 (0x8664)");
    build_file(11);
    put16(0x98, 0x10b);
    CHECK_STR(pe_problem_text(sizeof img), "optional header Magic 0x10b is not PE32+ (0x20b)");
    build_file(11);
    put16(0x94, 60);
    CHECK_STR(pe_problem_text(sizeof img), "the optional header (60 bytes) does not fit in the file (1024 bytes)");
    build_file(11);
    put32(0x3c, 0xfffffff0u);
    CHECK_STR(pe_problem_text(sizeof img),
              "e_lfanew 0xfffffff0 leaves no room for the PE signature and COFF header (1024 bytes)");
    build_file(11);
    put32(0x188 + 20, 0xfffffff0u); /* raw data offset near 4G: the sum must not wrap */
    CHECK_STR(pe_problem_text(sizeof img),
              "a section's raw data ends at byte 4294967792, past the end of the file (1024 bytes)");
    build_file(11);
    put32(0x188 + 16, 0); /* no raw data (.bss): nothing to check */
    put32(0x188 + 20, 0xfffffff0u);
    CHECK_STR(pe_problem_text(sizeof img), "ok, subsystem 11");
}

/* The build's own files, against the subsystem objdump -p prints for them: the app 10, the driver 11 */
TEST(check_file_of_the_build)
{
    const char *b = getenv("FWPT_BUILD") ? getenv("FWPT_BUILD") : "build";
    const char *names[] = {"fwpt.efi", "fwptdrv.efi"};
    for (int i = 0; i < 2; i++) {
        char path[512], cmd[600];
        snprintf(path, sizeof path, "%s/%s", b, names[i]);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL);
        if (!f)
            continue;
        static uint8_t buf[8 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        uint16_t sub = 0;
        CHECK(fwpt_pe_check_file(buf, n, &sub, NULL));
        snprintf(cmd, sizeof cmd, "objdump -p '%s' | awk '/^Subsystem/ {print $2}'", path);
        FILE *p = popen(cmd, "r");
        unsigned want = 0;
        CHECK(p && fscanf(p, "%x", &want) == 1);
        if (p)
            pclose(p);
        CHECK_EQ(sub, want);
        CHECK_EQ(sub, i ? 11 : 10);
        CHECK(!fwpt_pe_check_file(buf, 4096, &sub, NULL)); /* the headers only: the sections past the end */
    }
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
