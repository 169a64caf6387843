/* test_symmap: --symbols matched to the traced images (tools/symmap.c). The 94 PE32 images of the EDK2 DEBUG OVMF
 * build in ../shared/ovmf-debug, loaded as a PE loader does at bases that are not 0 with their DIR64 relocations
 * applied (tests/oracle/ovmf_load.py: img-BASE.bin and sideband.json's images with their CodeView paths and FV
 * file GUIDs, read back through tools/sideband.c), against its debug/ folder: every image matched by its CodeView
 * path; the two modules named CpuDxe each to its own file (by FV file GUID and by the bytes); a stale copy (one
 * byte of .text changed) refused with the exact warning; truncated, non-ELF, 32-bit ELF, PDB and missing files
 * refused naming file and module; FILE@BASE; a file that only the bytes tie to an image; a directory without a
 * match; the map answering exactly as fwpt_symbols on the one file. Without ../shared these cases fail saying NOT
 * RUN. Last, `fwpt flow DIR --symbols X` on a generated program: warnings on stderr, stdout and exit status as
 * without --symbols. */
#include "tests/check.h"
#include "tests/common/pdbutil.h"
#include "tests/common/progen.h"
#include "tests/common/pe_load.h"
#include "tests/common/progen_check.h"
#include "tests/common/scratch.h"
#include "tests/common/tool_run.h"
#include "tools/sideband.h"
#include "tools/symbols_dw.h"
#include "tools/symbols_pdb.h"
#include "tools/symmap.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOAD_BASE 0x7e000000ull /* the first image's base; the others follow, 64 KiB aligned */
#define MAX_IMAGES 128

static char debug_dir[700]; /* ../shared/ovmf-debug/debug */
static struct fwpt_symmap_image img[MAX_IMAGES];
static size_t nimg;

static const char *scratch(void)
{
    return scratch_dir("fwpt-symmap");
}

static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    if (system(cmd) != 0)
        fprintf(stderr, "test_symmap: failed: %s\n", cmd);
}

static int keep_image(void *ctx, const struct fwpt_sideband_image *s)
{
    (void)ctx;
    if (s->bad_key || !s->code || nimg == MAX_IMAGES)
        return 1;
    img[nimg++] = (struct fwpt_symmap_image){strdup(s->name), s->base, s->size, s->code, s->code_size,
                                             strdup(s->pdb), strdup(s->fv_guid)};
    return 0;
}

/* The loaded OVMF images, made once; 0 (said: NOT RUN) without ../shared/ovmf-debug. */
static int edk2(void)
{
    static int done, ok;
    if (done)
        return ok;
    done = 1;
    const char *fd = ovmf_debug_fd();
    char dir[600], cmd[1600];
    snprintf(debug_dir, sizeof debug_dir, "%s/debug", ovmf_debug_dir());
    snprintf(cmd, sizeof cmd, "%s/DxeCore.debug", debug_dir);
    if (access(fd, R_OK) != 0 || access(cmd, R_OK) != 0) {
        fprintf(stderr, "test_symmap: NOT RUN: the EDK2 cases: no %s or %s (set FWPT_OVMF_DEBUG to "
                "ovmf-debug/OVMF.fd)\n", fd, cmd);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "python3 tests/oracle/ovmf_load.py '%s' '%s/ovmf' 0x%llx >/dev/null", fd, scratch(),
             LOAD_BASE);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_symmap: NOT RUN: %s failed\n", cmd);
        return 0;
    }
    snprintf(dir, sizeof dir, "%s/ovmf", scratch());
    snprintf(cmd, sizeof cmd, "%s/sideband.json", dir);
    size_t n;
    char *text = slurp(cmd, &n);
    ok = text && fwpt_sideband_images(text, dir, keep_image, NULL) == 0 && nimg == 94;
    if (!ok)
        fprintf(stderr, "test_symmap: NOT RUN: %s: %zu images read, 94 expected\n", cmd, nimg);
    free(text);
    return ok;
}

#define NEED_EDK2()                                                                                                    \
    do {                                                                                                               \
        if (!edk2()) {                                                                                                 \
            CHECK(!"NOT RUN: ../shared/ovmf-debug (the EDK2 DEBUG build) is missing");                              \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* The index of the image named name (the nth of that name, from 0), or nimg. */
static size_t image(const char *name, int nth)
{
    for (size_t i = 0; i < nimg; i++)
        if (!strcmp(img[i].name, name) && nth-- == 0)
            return i;
    return nimg;
}

/* The images matched to args; what it said into msgs (cap bytes). */
static char msgs[1 << 16];
static struct fwpt_symmap *match(const char *const *args, size_t nargs, const struct fwpt_symmap_image *v, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct fwpt_symmap *m = fwpt_symmap_new("fwpt flow", f, 0);
    fwpt_symmap_match(m, args, nargs, v, n);
    fwpt_symmap_summary(m);
    fclose(f);
    snprintf(msgs, sizeof msgs, "%s", buf ? buf : "");
    free(buf);
    return m;
}

/* A copy of one file of debug/ in a new folder of the scratch directory: its path into out. */
static void copy_debug(const char *file, const char *folder, const char *as, char *out, size_t cap)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", scratch(), folder);
    mkdir(dir, 0755);
    snprintf(out, cap, "%s/%s", dir, as);
    char from[800];
    snprintf(from, sizeof from, "%s/%s", debug_dir, file);
    size_t n;
    char *b = slurp(from, &n);
    if (b)
        write_file(out, b, n);
    free(b);
}

/* slurp, NUL-terminated */
static char *slurp_text(const char *path, size_t *n)
{
    char *b = slurp(path, n), *t = b ? realloc(b, *n + 1) : NULL;
    if (t)
        t[*n] = 0;
    else
        free(b);
    return t;
}

static const char *file_of(const struct fwpt_symmap *m, size_t i, const char **how)
{
    const char *f = i < nimg ? fwpt_symmap_file(m, i, how) : NULL;
    if (!f && how)
        *how = "(none)";
    return f ? f : "(none)";
}

/* sideband.json's image keys for matching: pdb, path, fv_guid (else the GUID of path's FvFile(GUID)) */
static char got[4][3][128];
static int ngot;
static int keep_ids(void *ctx, const struct fwpt_sideband_image *s)
{
    (void)ctx;
    if (ngot < 4) {
        snprintf(got[ngot][0], sizeof got[0][0], "%s", s->pdb);
        snprintf(got[ngot][1], sizeof got[0][1], "%s", s->device_path);
        snprintf(got[ngot][2], sizeof got[0][2], "%s", s->fv_guid);
        ngot++;
    }
    return 0;
}

TEST(sideband_image_ids)
{
    const char *text =
        "{\"images\":[{\"name\":\"DxeCore\",\"base\":\"0x1000\",\"size\":\"0x100\",\"pdb\":\"/b/DxeCore.dll\","
        "\"path\":\"FvFile(D6A2CB7F-6A18-4E2F-B43B-9920A733700A)\"},"
        "{\"name\":\"A\",\"base\":\"0x2000\",\"size\":\"0x100\",\"pdb\":\"\",\"path\":\"FvFile(d6a2cb7f-6a18-4e2f-b43b-"
        "9920a733700a)\",\"fv_guid\":\"11111111-2222-3333-4444-555555555555\"},"
        "{\"name\":\"B\",\"base\":\"0x3000\",\"size\":\"0x100\",\"path\":\"\\\\EFI\\\\BOOT\\\\BOOTX64.EFI\","
        "\"fv_guid\":null},"
        "{\"name\":\"C\",\"base\":\"0x4000\",\"size\":\"0x100\",\"path\":\"FvFile(not-a-guid)\"}]}";
    ngot = 0;
    CHECK_EQ(fwpt_sideband_images(text, ".", keep_ids, NULL), 0);
    CHECK_EQ(ngot, 4);
    CHECK_STR(got[0][0], "/b/DxeCore.dll");
    CHECK_STR(got[0][1], "FvFile(D6A2CB7F-6A18-4E2F-B43B-9920A733700A)");
    CHECK_STR(got[0][2], "D6A2CB7F-6A18-4E2F-B43B-9920A733700A");
    CHECK_STR(got[1][0], "");
    CHECK_STR(got[1][2], "11111111-2222-3333-4444-555555555555");
    CHECK_STR(got[2][1], "\\EFI\\BOOT\\BOOTX64.EFI");
    CHECK_STR(got[2][2], "");
    CHECK_STR(got[3][2], "");
}

/* The small shared object of fuzz_symmap (tests/fuzz/seeds/symbols/tiny-dwarf.so, linked at 0: its first bytes are
 * the image as loaded at any base) as tiny.debug in a folder of the scratch directory (path into out), and an image
 * "tiny" of 0x2000 bytes: its first 8 KB (code, NULL: none recorded). */
static uint8_t tiny_code[0x2000];
static struct fwpt_symmap_image tiny_image(const char *folder, uint64_t base, int code, char *out, size_t cap)
{
    size_t n = 0;
    char *b = slurp("tests/fuzz/seeds/symbols/tiny-dwarf.so", &n);
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", scratch(), folder);
    mkdir(dir, 0755);
    snprintf(out, cap, "%s/tiny.debug", dir);
    memset(tiny_code, 0, sizeof tiny_code);
    if (b) {
        write_file(out, b, n);
        memcpy(tiny_code, b, n < sizeof tiny_code ? n : sizeof tiny_code);
    }
    CHECK(b != NULL);
    free(b);
    return (struct fwpt_symmap_image){"tiny", base, sizeof tiny_code, code ? tiny_code : NULL,
                                      code ? sizeof tiny_code : 0, "", ""};
}

/* fuzz_symmap: an image sideband.json records past the end of the address space (base 2^64 - 0x1000, size 0x2000)
 * was matched ("1 by name") but its end wrapped below its base: nothing ever answered for it. It answers up to the
 * end. */
TEST(image_past_the_address_space)
{
    char path[800];
    struct fwpt_symmap_image v = tiny_image("wrap", 0xfffffffffffff000ull, 1, path, sizeof path);
    const char *args[] = {path};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, &v, 1);
    CHECK_STR(fwpt_symmap_file(m, 0, &how) ? fwpt_symmap_file(m, 0, &how) : "(none)", path);
    CHECK_STR(how, "name");
    CHECK_STR(msgs, "names: 1 of 1 traced images matched (1 by name; 0 without a symbol file)\n");
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    struct fwpt_resolved x = {0};
    CHECK_EQ(r.resolve ? r.resolve(r.ctx, 0xfffffffffffff230ull, &x) : -1, 1); /* in its .text (0x220..0x27e) */
    CHECK(x.function != NULL && x.function_entry <= 0xfffffffffffff230ull && x.function_entry >= 0xfffffffffffff220ull);
    CHECK_EQ(r.resolve ? r.resolve(r.ctx, 0xffffffffffffefffull, &x) : -1, 0); /* below its base */
    fwpt_symmap_free(m);
}

/* fuzz_symmap (UBSan): an image without recorded bytes (code NULL) had its check start at NULL + 0; it is said as
 * nothing to compare, word for word. */
TEST(image_without_bytes)
{
    char path[800], want[1200];
    struct fwpt_symmap_image v = tiny_image("nobytes", 0x10000, 0, path, sizeof path);
    const char *args[] = {path};
    struct fwpt_symmap *m = match(args, 1, &v, 1);
    CHECK(fwpt_symmap_file(m, 0, NULL) == NULL);
    snprintf(want, sizeof want, "fwpt flow: symbols for tiny do not match the traced image: nothing to compare: the "
             "trace recorded 0x0 bytes of the image, none of its code: %s\nnames: 0 of 1 traced images matched (1 "
             "without a symbol file)\n", path);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
}

/* A Guid.xref or as-built INF line longer than a line buffer: its tail is not a line of its own. Here a 511-byte
 * comment ends in "GUID tiny" (and an INF comment in "FILE_GUID = GUID"): an image of that FV file GUID named
 * "Other" is not given tiny.debug by FV file GUID. */
TEST(long_lines_are_one_line)
{
    char path[800], q[900], line[700];
    struct fwpt_symmap_image v = tiny_image("longxref", 0x10000, 1, path, sizeof path);
    v.name = "Other";
    v.fv_guid = "961578fe-b6b7-44c3-af35-6bc705cd2b1f";
    memset(line, 'x', 511);
    line[0] = '#';
    snprintf(line + 511, sizeof line - 511, "961578FE-B6B7-44C3-AF35-6BC705CD2B1F tiny\n");
    snprintf(q, sizeof q, "%s/longxref/Guid.xref", scratch());
    write_file(q, line, strlen(line));
    snprintf(q, sizeof q, "%s/longxref", scratch());
    const char *args[] = {q};
    struct fwpt_symmap *m = match(args, 1, &v, 1);
    CHECK(fwpt_symmap_file(m, 0, NULL) == NULL);
    CHECK(strstr(msgs, "names: 0 of 1 traced images matched (1 without a symbol file)\n") != NULL);
    fwpt_symmap_free(m);
    /* the same GUID on a line of its own is taken: the check above tests the length, not the GUID */
    snprintf(q, sizeof q, "%s/longxref/Guid.xref", scratch());
    write_file(q, line + 511, strlen(line + 511));
    snprintf(q, sizeof q, "%s/longxref", scratch());
    m = match(args, 1, &v, 1);
    const char *how = "(none)";
    CHECK_STR(fwpt_symmap_file(m, 0, &how) ? fwpt_symmap_file(m, 0, &how) : "(none)", path);
    CHECK_STR(how, "FV file GUID");
    fwpt_symmap_free(m);
    /* an as-built INF: OUTPUT/tiny.inf beside DEBUG/tiny.debug, its FILE_GUID only in a long comment's tail */
    char mod[800], dbg[900];
    snprintf(mod, sizeof mod, "%s/longinf", scratch());
    sh("mkdir -p '%s/OUTPUT' '%s/DEBUG'", mod, mod);
    snprintf(dbg, sizeof dbg, "%s/DEBUG/tiny.debug", mod);
    sh("cp '%s' '%s'", path, dbg);
    memset(line, 'x', 511);
    line[0] = '#';
    snprintf(line + 511, sizeof line - 511, "FILE_GUID = 11111111-2222-3333-4444-555555555555\n");
    snprintf(q, sizeof q, "%s/OUTPUT/tiny.inf", mod);
    write_file(q, line, strlen(line));
    v.name = "tiny"; /* by name it would match: a GUID the INF gave (another FV file's) would refuse it */
    const char *args2[] = {mod};
    m = match(args2, 1, &v, 1);
    how = "(none)";
    CHECK_STR(fwpt_symmap_file(m, 0, &how) ? fwpt_symmap_file(m, 0, &how) : "(none)", dbg);
    CHECK_STR(how, "name");
    fwpt_symmap_free(m);
}

TEST(all_images_by_codeview_path)
{
    NEED_EDK2();
    const char *args[] = {debug_dir};
    struct fwpt_symmap *m = match(args, 1, img, nimg);
    CHECK_STR(msgs, "names: 94 of 94 traced images matched (94 by CodeView path; 0 without a symbol file)\n");
    const char *how = NULL;
    char want[800];
    snprintf(want, sizeof want, "%s/DxeCore.debug", debug_dir);
    CHECK_STR(file_of(m, image("DxeCore", 0), &how), want);
    CHECK_STR(how, "CodeView path");
    snprintf(want, sizeof want, "%s/Fat.debug", debug_dir);
    CHECK_STR(file_of(m, image("Fat", 0), &how), want);
    fwpt_symmap_free(m);
}

/* Two modules named CpuDxe: UefiCpuPkg's CpuDxe.debug and the one EDK2 copied as CpuDxe_<FILE_GUID>.debug. */
TEST(cpudxe_two_modules)
{
    NEED_EDK2();
    size_t a = image("CpuDxe", 0), b = image("CpuDxe", 1);
    CHECK(a < nimg && b < nimg);
    if (a == nimg || b == nimg)
        return;
    if (strcmp(img[a].fv_guid, "6490f1c5-ebcc-4665-8892-0075b9bb49b7")) {
        size_t t = a;
        a = b, b = t;
    }
    CHECK_STR(img[a].fv_guid, "6490f1c5-ebcc-4665-8892-0075b9bb49b7");
    CHECK_STR(img[b].fv_guid, "1a1e4886-9517-440e-9fde-3be44cee2136");
    char fa[800], fb[800];
    snprintf(fa, sizeof fa, "%s/CpuDxe_6490f1c5-ebcc-4665-8892-0075b9bb49b7.debug", debug_dir);
    snprintf(fb, sizeof fb, "%s/CpuDxe.debug", debug_dir);
    const char *args[] = {debug_dir};
    const char *how;
    struct fwpt_symmap_image two[2] = {img[a], img[b]};
    struct fwpt_symmap *m = match(args, 1, two, 2);
    CHECK_STR(file_of(m, 0, &how), fa);
    CHECK_STR(file_of(m, 1, NULL), fb);
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (2 by CodeView path; 0 without a symbol file)\n");
    fwpt_symmap_free(m);
    /* no CodeView path: the FV file GUID in the file's name picks one, the name the other */
    two[0].codeview = two[1].codeview = "";
    m = match(args, 1, two, 2);
    CHECK_STR(file_of(m, 0, &how), fa);
    CHECK_STR(how, "FV file GUID");
    CHECK_STR(file_of(m, 1, &how), fb);
    CHECK_STR(how, "name");
    fwpt_symmap_free(m);
    /* neither GUID nor CodeView path, the files renamed alike: only the bytes tell them apart */
    char ca[800], cb[800];
    copy_debug("CpuDxe_6490f1c5-ebcc-4665-8892-0075b9bb49b7.debug", "cpu1", "CpuDxe.debug", ca, sizeof ca);
    copy_debug("CpuDxe.debug", "cpu2", "CpuDxe.debug", cb, sizeof cb);
    two[0].fv_guid = two[1].fv_guid = "";
    const char *both[] = {ca, cb};
    m = match(both, 2, two, 2);
    CHECK_STR(file_of(m, 0, &how), ca);
    CHECK_STR(file_of(m, 1, &how), cb);
    CHECK_STR(how, "name");
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (2 by name; 0 without a symbol file)\n");
    fwpt_symmap_free(m);
    /* named as --image names an image, after its file: CpuDxe.efi is CpuDxe, CpuDxe.x.efi is not (the file tried
     * for CpuDxe.efi by its name is tried for it by the bytes) */
    two[0].name = "CpuDxe.efi", two[1].name = "CpuDxe.x.efi";
    m = match(both, 2, two, 2);
    CHECK_STR(file_of(m, 0, &how), ca);
    CHECK_STR(how, "name");
    CHECK_STR(file_of(m, 1, &how), cb);
    CHECK_STR(how, "code bytes");
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (1 by name, 1 by code bytes; 0 without a symbol file)\n");
    fwpt_symmap_free(m);
}

/* One byte of DxeCore's .text changed (at CoreLocateHandleBuffer's entry, +0x3aa6; .text's file offset is its
 * address): refused with the warning, DxeCore without names. */
TEST(stale_file_refused)
{
    NEED_EDK2();
    char stale[800];
    copy_debug("DxeCore.debug", "stale", "DxeCore.debug", stale, sizeof stale);
    FILE *f = fopen(stale, "r+b");
    int c = EOF;
    if (f && fseek(f, 0x3aa6, SEEK_SET) == 0 && (c = fgetc(f)) != EOF && fseek(f, 0x3aa6, SEEK_SET) == 0)
        fputc(c ^ 0x40, f);
    if (f)
        fclose(f);
    CHECK(c != EOF);
    size_t d = image("DxeCore", 0);
    char dir[600], want[2000];
    snprintf(dir, sizeof dir, "%s/stale", scratch());
    const char *args[] = {dir};
    struct fwpt_symmap *m = match(args, 1, &img[d], 1);
    snprintf(want, sizeof want,
             "fwpt flow: symbols for DxeCore do not match the traced image: .text differs at +0x3aa6 (stale build?): "
             "%s\nnames: 0 of 1 traced images matched (1 without a symbol file)\n", stale);
    CHECK_STR(msgs, want);
    CHECK(fwpt_symmap_file(m, 0, NULL) == NULL);
    CHECK(fwpt_symmap_resolver(m).resolve == NULL);
    fwpt_symmap_free(m);
    /* the same file given by itself */
    const char *files[] = {stale};
    m = match(files, 1, &img[d], 1);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
    /* the image's own bytes changed instead (a relocated pointer that is not the file's value + the delta) */
    uint8_t *copy = malloc(img[d].code_size);
    memcpy(copy, img[d].code, img[d].code_size);
    copy[0x3aa6] ^= 0x40;
    struct fwpt_symmap_image one = img[d];
    one.code = copy;
    const char *good[] = {debug_dir};
    m = match(good, 1, &one, 1);
    snprintf(want, sizeof want,
             "fwpt flow: symbols for DxeCore do not match the traced image: .text differs at +0x3aa6 (stale build?): "
             "%s/DxeCore.debug\n", debug_dir);
    CHECK(!strncmp(msgs, want, strlen(want)));
    fwpt_symmap_free(m);
    free(copy);
}

/* A file that is not what it should be: fwpt_symbols_open's message, with the module. */
static void refused(const char *what, const char *path, const void *data, size_t n)
{
    write_file(path, data, n);
    char err[600], want[1600];
    struct fwpt_symbols *s;
    CHECK(fwpt_symbols_open(&s, path, 0, err, sizeof err) != FWPT_OK);
    snprintf(want, sizeof want, "fwpt flow: symbols for DxeCore: %s\nnames: 0 of 1 traced images matched "
             "(1 without a symbol file)\n", err);
    const char *args[] = {path};
    struct fwpt_symmap *m = match(args, 1, &img[image("DxeCore", 0)], 1);
    if (strcmp(msgs, want))
        fprintf(stderr, "refused %s: got:\n%s", what, msgs);
    CHECK_STR(msgs, want);
    CHECK(strstr(msgs, path) != NULL);
    fwpt_symmap_free(m);
}

TEST(bad_files_refused)
{
    NEED_EDK2();
    char path[800], dir[600];
    snprintf(dir, sizeof dir, "%s/bad", scratch());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/DxeCore.debug", dir);
    /* truncated: the first 4 KiB of the real file */
    char from[800];
    snprintf(from, sizeof from, "%s/DxeCore.debug", debug_dir);
    size_t n;
    char *b = slurp(from, &n);
    CHECK(b && n > 4096);
    if (b)
        refused("truncated", path, b, 4096);
    free(b);
    refused("not ELF", path, "this is not an ELF file\n", 24);
    /* a 32-bit ELF header (ELF spec "ELF Header": ELFCLASS32, EM_386, ET_DYN) */
    uint8_t e32[52] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
    e32[16] = 3, e32[18] = 3, e32[20] = 1, e32[40] = 52, e32[42] = 32, e32[46] = 40;
    refused("32-bit", path, e32, sizeof e32);
    /* a PDB: said, not read */
    snprintf(path, sizeof path, "%s/DxeCore.pdb", dir);
    write_file(path, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0", 32);
    const char *args[] = {path};
    char want[1600];
    struct fwpt_symmap *m = match(args, 1, &img[image("DxeCore", 0)], 1);
    snprintf(want, sizeof want, "fwpt flow: symbols for DxeCore: %s: ", path); /* then llvm-pdbutil, as found */
    CHECK(!strncmp(msgs, want, strlen(want)));
    CHECK(strstr(msgs, "llvm-pdbutil dump failed (exit 1): llvm-pdbutil: The PDB file is corrupt. MSF superblock is "
                       "missing\nnames: 0 of 1 traced images matched (1 without a symbol file)\n") != NULL);
    if (strncmp(msgs, want, strlen(want)))
        fprintf(stderr, "got:\n%s", msgs);
    fwpt_symmap_free(m);
    /* missing */
    snprintf(path, sizeof path, "%s/none.debug", dir);
    const char *missing[] = {path};
    m = match(missing, 1, &img[image("DxeCore", 0)], 1);
    snprintf(want, sizeof want, "fwpt flow: --symbols %s: No such file or directory (no names from it)\n"
             "names: 0 of 1 traced images matched (1 without a symbol file)\n", path);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
}

TEST(file_at_base)
{
    NEED_EDK2();
    size_t d = image("DxeCore", 0);
    char arg[900], want[2000];
    snprintf(arg, sizeof arg, "%s/DxeCore.debug@0x%llx", debug_dir, (unsigned long long)img[d].base);
    const char *args[] = {arg};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, img, nimg);
    CHECK(!strncmp(file_of(m, d, &how), debug_dir, strlen(debug_dir)));
    CHECK_STR(how, "FILE@BASE");
    CHECK_STR(msgs, "names: 1 of 94 traced images matched (1 by FILE@BASE; 93 without a symbol file)\n");
    fwpt_symmap_free(m);
    /* one page off: its .text compared a page further on (the offset is the image's) */
    snprintf(arg, sizeof arg, "%s/DxeCore.debug@0x%llx", debug_dir, (unsigned long long)img[d].base + 0x1000);
    m = match(args, 1, img, nimg);
    snprintf(want, sizeof want, "fwpt flow: symbols for DxeCore do not match the traced image: .text differs at "
             "+0x2000 (stale build?): %s/DxeCore.debug\nnames: 0 of 94 traced images matched (94 without a symbol "
             "file)\n", debug_dir);
    if (strncmp(msgs, want, strlen(want)))
        fprintf(stderr, "got:\n%s", msgs);
    CHECK(!strncmp(msgs, want, strlen(want)));
    CHECK(fwpt_symmap_file(m, d, NULL) == NULL);
    fwpt_symmap_free(m);
    /* 0x10000 below the end: .text ends past the image */
    snprintf(arg, sizeof arg, "%s/DxeCore.debug@0x%llx", debug_dir,
             (unsigned long long)(img[d].base + img[d].size - 0x10000));
    m = match(args, 1, img, nimg);
    snprintf(want, sizeof want, "fwpt flow: symbols for DxeCore do not match the traced image: .text (0x25fff bytes "
             "at +0x%llx) does not fit in the traced image's 0x%llx bytes: %s/DxeCore.debug\n",
             (unsigned long long)(img[d].size - 0x10000 + 0x1000), (unsigned long long)img[d].size, debug_dir);
    CHECK(!strncmp(msgs, want, strlen(want)));
    fwpt_symmap_free(m);
    /* no image there */
    snprintf(arg, sizeof arg, "%s/DxeCore.debug@0x1000", debug_dir);
    m = match(args, 1, img, nimg);
    snprintf(want, sizeof want, "fwpt flow: --symbols %s/DxeCore.debug@0x1000: no traced image holds 0x1000 (no "
             "names from it)\n", debug_dir);
    CHECK(!strncmp(msgs, want, strlen(want)));
    fwpt_symmap_free(m);
}

/* A file whose name ties it to no image (a gnu-efi .so for BOOTX64): the bytes find its image; a stale one is
 * named for the image it comes closest to. */
TEST(file_matched_by_bytes)
{
    NEED_EDK2();
    char path[800], want[2000];
    copy_debug("Fat.debug", "bytes", "fatdriver.elf", path, sizeof path);
    const char *args[] = {path};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, img, nimg);
    CHECK_STR(file_of(m, image("Fat", 0), &how), path);
    CHECK_STR(how, "code bytes");
    CHECK_STR(msgs, "names: 1 of 94 traced images matched (1 by code bytes; 93 without a symbol file)\n");
    fwpt_symmap_free(m);
    FILE *f = fopen(path, "r+b");
    if (f && fseek(f, 0x2000, SEEK_SET) == 0)
        fputc(0xcc, f);
    if (f)
        fclose(f);
    m = match(args, 1, img, nimg);
    snprintf(want, sizeof want, "fwpt flow: symbols for Fat do not match the traced image: .text differs at "
             "+0x2000 (stale build?): %s\nnames: 0 of 94", path);
    if (strncmp(msgs, want, strlen(want)))
        fprintf(stderr, "got:\n%s", msgs);
    CHECK(!strncmp(msgs, want, strlen(want)));
    fwpt_symmap_free(m);
}

TEST(directory_without_matches)
{
    NEED_EDK2();
    char path[800], dir[600], want[2000];
    copy_debug("Fat.debug", "nomatch", "Other.debug", path, sizeof path);
    snprintf(dir, sizeof dir, "%s/nomatch", scratch());
    size_t d = image("DxeCore", 0), f = image("Fat", 0);
    struct fwpt_symmap_image two[2] = {img[d], img[f]};
    const char *args[] = {dir};
    struct fwpt_symmap *m = match(args, 1, two, 2);
    snprintf(want, sizeof want, "fwpt flow: --symbols %s: no symbol file there for any traced image (1 file searched "
             "for NAME.debug, NAME.so, NAME.pdb, NAME_GUID.debug, Guid.xref and OUTPUT/NAME.inf by CodeView path, FV "
             "file GUID and name, for: DxeCore, Fat)\nnames: 0 of 2 traced images matched (2 without a symbol "
             "file)\n", dir);
    CHECK_STR(msgs, want);
    CHECK(fwpt_symmap_resolver(m).resolve == NULL);
    fwpt_symmap_free(m);
}

/* An EDK2 Build/ tree: the CodeView path's folders pick DEBUG/NAME.debug over the copy in X64/; Guid.xref and the
 * as-built INF give FV file GUIDs. */
TEST(build_tree)
{
    NEED_EDK2();
    char top[600], p[900], q[900];
    snprintf(top, sizeof top, "%s/Build/OvmfX64/DEBUG_GCC", scratch());
    sh("mkdir -p '%s/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG' '%s/FV'", top, top);
    sh("mkdir -p '%s/X64/FatPkg/EnhancedFatDxe/Fat/DEBUG' '%s/X64/FatPkg/EnhancedFatDxe/Fat/OUTPUT'", top, top);
    snprintf(p, sizeof p, "%s/DxeCore.debug", debug_dir);
    snprintf(q, sizeof q, "%s/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.debug", top);
    sh("cp '%s' '%s'", p, q);
    snprintf(q, sizeof q, "%s/X64/DxeCore.debug", top);
    sh("cp '%s' '%s'", p, q);
    snprintf(p, sizeof p, "%s/Fat.debug", debug_dir);
    snprintf(q, sizeof q, "%s/X64/FatPkg/EnhancedFatDxe/Fat/DEBUG/Fat.debug", top);
    sh("cp '%s' '%s'", p, q);
    snprintf(q, sizeof q, "%s/X64/FatPkg/EnhancedFatDxe/Fat/OUTPUT/Fat.inf", top);
    const char *inf = "[Defines]\n  BASE_NAME = Fat\n  FILE_GUID = 961578FE-B6B7-44C3-AF35-6BC705CD2B1F\n";
    write_file(q, inf, strlen(inf));
    snprintf(q, sizeof q, "%s/FV/Guid.xref", top);
    const char *xref = "D6A2CB7F-6A18-4E2F-B43B-9920A733700A DxeCore\n";
    write_file(q, xref, strlen(xref));
    size_t d = image("DxeCore", 0), f = image("Fat", 0);
    struct fwpt_symmap_image two[2] = {img[d], img[f]};
    const char *args[] = {top};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, two, 2);
    snprintf(q, sizeof q, "%s/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.debug", top);
    CHECK_STR(file_of(m, 0, &how), q);
    CHECK_STR(how, "CodeView path");
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (2 by CodeView path; 0 without a symbol file)\n");
    fwpt_symmap_free(m);
    /* without CodeView paths: Guid.xref names DxeCore's GUID (both copies of DxeCore.debug rank alike: both
     * agree, the first is used and the choice said), the INF gives Fat's */
    two[0].codeview = two[1].codeview = "";
    m = match(args, 1, two, 2);
    snprintf(q, sizeof q, "%s/X64/DxeCore.debug", top);
    CHECK_STR(file_of(m, 0, &how), q);
    CHECK_STR(how, "FV file GUID");
    snprintf(q, sizeof q, "%s/X64/FatPkg/EnhancedFatDxe/Fat/DEBUG/Fat.debug", top);
    CHECK_STR(file_of(m, 1, &how), q);
    CHECK_STR(how, "FV file GUID");
    char want[3000];
    snprintf(want, sizeof want, "fwpt flow: symbols for DxeCore: two symbol files agree with the traced image: "
             "%s/X64/DxeCore.debug, %s/X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.debug; using "
             "%s/X64/DxeCore.debug\nnames: 2 of 2 traced images matched (2 by FV file GUID; 0 without a symbol "
             "file)\n", top, top, top);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
}

/* Through the map, every 16th byte of DxeCore and Fat and the bytes around them answer as fwpt_symbols on the one
 * file at that base; outside the matched images nothing is known. */
TEST(map_resolves_as_the_file)
{
    NEED_EDK2();
    const char *args[] = {debug_dir};
    struct fwpt_symmap *m = match(args, 1, img, nimg);
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    const char *mods[] = {"DxeCore", "Fat"};
    unsigned long same = 0, known = 0;
    for (int k = 0; k < 2; k++) {
        size_t i = image(mods[k], 0);
        char path[800], err[600];
        snprintf(path, sizeof path, "%s/%s.debug", debug_dir, mods[k]);
        struct fwpt_symbols *s;
        CHECK(fwpt_symbols_open(&s, path, img[i].base, err, sizeof err) == FWPT_OK);
        struct fwpt_resolver one = fwpt_symbols_resolver(s);
        for (uint64_t a = img[i].base; a < img[i].base + img[i].size; a += 16) {
            struct fwpt_resolved x, y;
            int kx = fwpt_resolve(&r, a, &x), ky = fwpt_resolve(&one, a, &y);
            int eq = kx == ky && x.function_entry == y.function_entry && x.line == y.line && x.inlined == y.inlined &&
                     !x.function == !y.function && (!x.function || !strcmp(x.function, y.function)) &&
                     !x.file == !y.file && (!x.file || !strcmp(x.file, y.file));
            same += eq;
            known += kx;
            if (!eq)
                CHECK(!"the map answers as the file");
        }
        fwpt_symbols_close(s);
    }
    CHECK(known > 5000); /* most of both images is code with a function */
    CHECK(same > 10000);
    /* DxeCore + 0x3aa6 is CoreLocateHandleBuffer (docs/symbols.md) */
    struct fwpt_resolved x;
    CHECK(fwpt_resolve(&r, img[image("DxeCore", 0)].base + 0x3aa6, &x) == 1);
    CHECK_STR(x.function ? x.function : "", "CoreLocateHandleBuffer");
    CHECK_EQ(x.function_entry, img[image("DxeCore", 0)].base + 0x3aa6);
    CHECK_EQ(fwpt_resolve(&r, 0x1000, &x), 0);
    CHECK(x.function == NULL && x.line == 0);
    CHECK_EQ(fwpt_resolve(&r, 0xfffffffffffff000ull, &x), 0);
    fwpt_symmap_free(m);
}

/* fwpt flow DIR --symbols X on a generated program: the warnings on stderr, stdout and exit status unchanged. */
TEST(flow_cli_without_matches)
{
    char tool[1024];
    TOOL_FIND_OR_RETURN(tool);
    struct progen prog;
    struct progen_cfg cfg = {.seed = 11, .nfuncs = 6, .max_insns = 2000, .psb_period = 400};
    CHECK(progen_build_checked(&cfg, &prog));
    char dir[600], empty[600], junk[700], line[4000];
    snprintf(dir, sizeof dir, "%s/prog", scratch());
    mkdir(dir, 0755);
    FILE *f = save_program_open(dir, &prog);
    fprintf(f, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\","
               "\"pdb\":\"/b/X64/Prog/DEBUG/Prog.dll\",\"path\":\"FvFile(11111111-2222-3333-4444-555555555555)\"}]}\n",
            (unsigned long long)prog.base, prog.code_size, (unsigned long long)prog.base);
    fclose(f);
    snprintf(empty, sizeof empty, "%s/nosyms", scratch());
    mkdir(empty, 0755);
    snprintf(junk, sizeof junk, "%s/Other.debug", empty);
    write_file(junk, "not ELF\n", 8);
    const char *modes[] = {"--profile", "--calls --format jsonl", "--no-disasm"};
    for (int k = 0; k < 3; k++) {
        char a[1200], b[1200], *o1, *o2;
        size_t n1, n2;
        snprintf(line, sizeof line, "'%s' flow %s %s >%s/o1 2>%s/e1; echo $? >%s/rc1", tool, dir, modes[k], scratch(),
                 scratch(), scratch());
        CHECK(system(line) == 0);
        snprintf(line, sizeof line, "'%s' flow %s %s --symbols %s --symbols %s/none >%s/o2 2>%s/e2; echo $? >%s/rc2",
                 tool, dir, modes[k], empty, scratch(), scratch(), scratch(), scratch());
        CHECK(system(line) == 0);
        snprintf(a, sizeof a, "%s/o1", scratch());
        snprintf(b, sizeof b, "%s/o2", scratch());
        o1 = slurp_text(a, &n1), o2 = slurp_text(b, &n2);
        CHECK(o1 && o2 && n1 > 100 && n1 == n2 && !memcmp(o1, o2, n1));
        free(o1), free(o2);
        snprintf(a, sizeof a, "%s/rc1", scratch());
        snprintf(b, sizeof b, "%s/rc2", scratch());
        o1 = slurp_text(a, &n1), o2 = slurp_text(b, &n2);
        CHECK(o1 && o2 && !strcmp(o1, "0\n") && !strcmp(o2, "0\n"));
        free(o1), free(o2);
        snprintf(b, sizeof b, "%s/e2", scratch());
        o2 = slurp_text(b, &n2);
        char want[3000];
        snprintf(want, sizeof want, "fwpt flow: --symbols %s/none: No such file or directory (no names from it)\n"
                 "fwpt flow: --symbols %s: no symbol file there for any traced image "
                 "(1 file searched for NAME.debug, NAME.so, NAME.pdb, NAME_GUID.debug, Guid.xref and OUTPUT/NAME.inf "
                 "by CodeView path, FV file GUID and name, for: Prog)\nnames: 0 of 1 traced images matched (1 without "
                 "a symbol file)\n", scratch(), empty);
        CHECK_STR(o2 ? o2 : "", want);
        free(o2);
    }
    /* fwpt report passes it on */
    snprintf(line, sizeof line, "'%s' report %s -o %s/page.html --symbols %s/none >/dev/null 2>%s/e3", tool, dir,
             scratch(), scratch(), scratch());
    CHECK(WEXITSTATUS(system(line)) == 0);
    snprintf(line, sizeof line, "%s/e3", scratch());
    size_t n;
    char *e = slurp_text(line, &n);
    CHECK(e && strstr(e, "names: 0 of 1 traced images matched (1 without a symbol file)\n"));
    free(e);
    progen_free(&prog);
}

/* `fwpt CMD ARGS`: stdout and stderr into malloc'd strings (*so, *se), the exit status. */
static int run2(const char *tool, const char *cmd, const char *args, char **so, char **se)
{
    char line[4000], a[600], b[600];
    size_t n;
    snprintf(a, sizeof a, "%s/run.out", scratch());
    snprintf(b, sizeof b, "%s/run.err", scratch());
    snprintf(line, sizeof line, "'%s' %s %s >%s 2>%s", tool, cmd, args, a, b);
    int st = system(line);
    *so = slurp_text(a, &n);
    *se = slurp_text(b, &n);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A generated program with an ELF file of two functions over its code (assembled with .incbin, linked at 0 as
 * gnu-efi links): fwpt dump names the IPs of TIP and FUP lines; fwpt flow matches it by its CodeView path; a stale
 * copy (one byte of .text changed) is refused and the dump is as without --symbols. */
TEST(dump_names_ips)
{
    char tool[1024];
    TOOL_FIND_OR_RETURN(tool);
    struct progen prog;
    struct progen_cfg cfg = {.seed = 5, .nfuncs = 6, .max_insns = 2000, .psb_period = 400};
    CHECK(progen_build_checked(&cfg, &prog));
    char dir[600], syms[600], path[900], args[2000];
    snprintf(dir, sizeof dir, "%s/named", scratch());
    snprintf(syms, sizeof syms, "%s/named-syms", scratch());
    mkdir(dir, 0755);
    mkdir(syms, 0755);
    FILE *f = save_program_open(dir, &prog);
    fprintf(f, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\","
               "\"pdb\":\"/b/X64/Prog/DEBUG/Prog.dll\",\"path\":\"\\\\EFI\\\\Prog.efi\"}]}\n",
            (unsigned long long)prog.base, prog.code_size, (unsigned long long)prog.base);
    fclose(f);
    const size_t half = prog.code_size / 2;
    snprintf(path, sizeof path, "%s/p.s", syms);
    f = fopen(path, "w");
    fprintf(f, ".text\n.globl lower\n.type lower,@function\nlower: .incbin \"%s/img-%llx.bin\", 0, %zu\n.size lower, "
               "%zu\n.globl upper\n.type upper,@function\nupper: .incbin \"%s/img-%llx.bin\", %zu, %zu\n"
               ".size upper, %zu\n",
            dir, (unsigned long long)prog.base, half, half, dir, (unsigned long long)prog.base, half,
            prog.code_size - half, prog.code_size - half);
    fclose(f);
    snprintf(path, sizeof path, "%s/l.ld", syms);
    write_file(path, "SECTIONS { . = 0; .text : { *(.text) } }\n", 41);
    snprintf(args, sizeof args, "cd '%s' && as -o p.o p.s && ld -shared -T l.ld -o Prog.so p.o 2>/dev/null && rm p.o "
             "p.s l.ld", syms);
    CHECK(system(args) == 0);
    char *o1, *e1, *o2, *e2;
    CHECK_EQ(run2(tool, "dump", dir, &o1, &e1), 0);
    snprintf(args, sizeof args, "%s --symbols %s", dir, syms);
    CHECK_EQ(run2(tool, "dump", args, &o2, &e2), 0);
    CHECK_STR(e2 ? e2 : "", "names: 1 of 1 traced images matched (1 by CodeView path; 0 without a symbol file)\n");
    /* line by line: an IP line in the image ends with its function (+ offset), every other line unchanged */
    unsigned named = 0, lines = 0;
    char *p = o1, *q = o2;
    while (p && q && *p && *q) {
        char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
        if (!pe || !qe)
            break;
        size_t pn = (size_t)(pe - p);
        char want[700];
        unsigned long long ip = 0;
        const char *at = strstr(p, "  ip 0x");
        snprintf(want, sizeof want, "%.*s", (int)pn, p);
        if (at && at < pe && sscanf(at, "  ip 0x%llx", &ip) == 1 && ip >= prog.base &&
            ip < prog.base + prog.code_size) {
            uint64_t off = ip - prog.base, entry = off < half ? 0 : half;
            size_t k = strlen(want);
            snprintf(want + k, sizeof want - k, "  %s", off < half ? "lower" : "upper");
            if (off != entry)
                snprintf(want + strlen(want), sizeof want - strlen(want), "+0x%llx", (unsigned long long)(off - entry));
            named++;
        }
        CHECK(strlen(want) == (size_t)(qe - q) && !strncmp(want, q, (size_t)(qe - q)));
        lines++;
        p = pe + 1, q = qe + 1;
    }
    CHECK(p && q && !*p && !*q);
    CHECK(named > 20 && lines > named);
    free(o2), free(e2);
    /* fwpt flow: matched by the CodeView path; exit 0 */
    snprintf(args, sizeof args, "%s --profile --symbols %s/Prog.so", dir, syms);
    CHECK_EQ(run2(tool, "flow", args, &o2, &e2), 0);
    CHECK_STR(e2 ? e2 : "", "names: 1 of 1 traced images matched (1 by CodeView path; 0 without a symbol file)\n");
    free(o2), free(e2);
    /* stale: one byte of .text changed (the file offset of .text from readelf) */
    snprintf(path, sizeof path, "%s/Prog.so", syms);
    snprintf(args, sizeof args, "readelf -SW '%s' | sed -n 's/.* .text *PROGBITS *[0-9a-f]* \\([0-9a-f]*\\) .*/\\1/p'",
             path);
    FILE *r = popen(args, "r");
    unsigned long text_off = 0;
    CHECK(r && fscanf(r, "%lx", &text_off) == 1 && text_off > 0);
    if (r)
        pclose(r);
    f = fopen(path, "r+b");
    int c = f && fseek(f, (long)text_off + 0x10, SEEK_SET) == 0 ? fgetc(f) : EOF;
    if (c != EOF && fseek(f, (long)text_off + 0x10, SEEK_SET) == 0)
        fputc(c ^ 1, f);
    if (f)
        fclose(f);
    snprintf(args, sizeof args, "%s --symbols %s", dir, path);
    CHECK_EQ(run2(tool, "dump", args, &o2, &e2), 0);
    char want[2000];
    snprintf(want, sizeof want, "fwpt dump: symbols for Prog do not match the traced image: .text differs at +0x10 "
             "(stale build?): %s\nnames: 0 of 1 traced images matched (1 without a symbol file)\n", path);
    CHECK_STR(e2 ? e2 : "", want);
    CHECK(o1 && o2 && !strcmp(o1, o2));
    free(o1), free(e1), free(o2), free(e2);
    progen_free(&prog);
}

/* ---- PDB-built images: build/pdbdemo.efi + .pdb and the build with one function changed (tests/pdb.mk), each
 * laid out as a loader lays it out at PDB_BASE (not 0, not the PE's ImageBase) ---- */
#define PDB_BASE 0x7d440000ull
static struct pe demo_pe, changed_pe;
static char demo_pdb[600], changed_pdb[600];

static int pdb_ready(void)
{
    static int done, ok;
    if (done)
        return ok;
    done = 1;
    const char *b = build_dir();
    char efi[600], efi2[600];
    snprintf(efi, sizeof efi, "%s/pdbdemo.efi", b);
    snprintf(efi2, sizeof efi2, "%s/pdbdemo-changed.efi", b);
    snprintf(demo_pdb, sizeof demo_pdb, "%s/pdbdemo.pdb", b);
    snprintf(changed_pdb, sizeof changed_pdb, "%s/pdbdemo-changed.pdb", b);
    ok = load_pe(efi, &demo_pe) && load_pe(efi2, &changed_pe) && access(demo_pdb, R_OK) == 0 &&
         access(changed_pdb, R_OK) == 0;
    if (!ok)
        fprintf(stderr, "test_symmap: NOT RUN: the PDB cases: no %s, %s or their PDBs (make %s %s)\n", efi, efi2, efi,
                efi2);
    return ok;
}

#define NEED_PDB()                                                                                                     \
    do {                                                                                                               \
        if (!pdb_ready()) {                                                                                            \
            CHECK(!"NOT RUN: build/pdbdemo.efi and its PDBs are missing");                                            \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

static struct fwpt_symmap_image pdb_image(const struct pe *pe, const char *name, const char *codeview)
{
    return (struct fwpt_symmap_image){name, PDB_BASE, pe->size, pe->image, pe->size, codeview, ""};
}

/* The referee, llvm-pdbutil: a PDB's "GUID: {...}" and "Age: N" (dump --summary), its procedures (dump --symbols:
 * S_GPROC32/S_LPROC32, segment:offset in decimal, code size) placed by the PE's section table. */
static void pdb_summary(const char *pdb, char *sig, size_t cap)
{
    char guid[64];
    unsigned age;
    pdbutil_summary(pdb, guid, sizeof guid, &age);
    snprintf(sig, cap, "%s/%u", guid, age); /* as the warning writes it */
}

struct pproc {
    char name[64];
    uint32_t rva, size;
};

static size_t pdb_procs(const char *pdb, const struct pe *pe, struct pproc *out, size_t cap)
{
    char args[800], line[512], name[64] = "";
    size_t n = 0;
    snprintf(args, sizeof args, "dump --symbols '%s'", pdb);
    FILE *p = pdbutil_popen(args);
    while (p && fgets(line, sizeof line, p)) {
        const char *q = strchr(line, '`');
        unsigned seg, off, size;
        const char *a = strstr(line, "addr = ");
        if ((strstr(line, "| S_GPROC32 ") || strstr(line, "| S_LPROC32 ")) && q)
            sscanf(q + 1, "%63[^`]", name);
        else if (name[0] && a && sscanf(a, "addr = %u:%u, code size = %u", &seg, &off, &size) == 3 && seg >= 1 &&
                 seg <= pe->nsec && n < cap) {
            snprintf(out[n].name, sizeof out[n].name, "%s", name);
            out[n].rva = pe->sec[seg - 1].rva + off;
            out[n++].size = size;
            name[0] = 0;
        }
    }
    if (p)
        pclose(p);
    return n;
}

/* Two answers alike in every field. */
static int same_answer(int ka, const struct fwpt_resolved *a, int kb, const struct fwpt_resolved *b)
{
    return ka == kb && a->function_entry == b->function_entry && a->line == b->line && a->inlined == b->inlined &&
           !a->function == !b->function && (!a->function || !strcmp(a->function, b->function)) && !a->file == !b->file &&
           (!a->file || !strcmp(a->file, b->file));
}

/* The image's CodeView path names pdbdemo.pdb: the PDB matched by it (the image's own name ties it to nothing);
 * every procedure llvm-pdbutil lists is named at its entry and its last byte, and every byte of the code section
 * answers as the PDB opened alone at that base; outside the image nothing is known. */
TEST(pdb_by_codeview_path)
{
    NEED_PDB();
    struct fwpt_symmap_image one = pdb_image(&demo_pe, "app", "C:\\work\\Build\\pdbdemo.pdb");
    const char *args[] = {demo_pdb};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, &one, 1);
    CHECK_STR(msgs, "names: 1 of 1 traced images matched (1 by CodeView path; 0 without a symbol file)\n");
    CHECK_STR(fwpt_symmap_file(m, 0, &how) ? fwpt_symmap_file(m, 0, &how) : "(none)", demo_pdb);
    CHECK_STR(how, "CodeView path");
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    struct pproc procs[16];
    size_t np = pdb_procs(demo_pdb, &demo_pe, procs, 16);
    CHECK_EQ(np, 5);
    for (size_t k = 0; k < np; k++) {
        struct fwpt_resolved x;
        uint64_t at[2] = {PDB_BASE + procs[k].rva, PDB_BASE + procs[k].rva + procs[k].size - 1};
        for (int e = 0; e < 2; e++) {
            CHECK_EQ(fwpt_resolve(&r, at[e], &x), 1);
            CHECK_STR(x.function ? x.function : "(none)", procs[k].name);
            CHECK_EQ(x.function_entry, PDB_BASE + procs[k].rva);
        }
    }
    struct fwpt_symbols_pdb *alone = NULL;
    char err[600];
    CHECK(fwpt_symbols_open_pdb(&alone, demo_pdb, demo_pe.image, demo_pe.size, PDB_BASE, err, sizeof err) == FWPT_OK);
    unsigned compared = 0, same = 0;
    for (unsigned i = 0; alone && i < demo_pe.nsec; i++) {
        if (!(demo_pe.sec[i].flags & 0x20000000u)) /* IMAGE_SCN_MEM_EXECUTE */
            continue;
        struct fwpt_resolver r1 = fwpt_symbols_pdb_resolver(alone);
        for (uint64_t a = PDB_BASE + demo_pe.sec[i].rva; a < PDB_BASE + demo_pe.sec[i].rva + demo_pe.sec[i].vsize; a++) {
            struct fwpt_resolved x, y;
            int kx = fwpt_resolve(&r, a, &x), ky = fwpt_resolve(&r1, a, &y);
            compared++;
            same += same_answer(kx, &x, ky, &y);
        }
    }
    fwpt_symbols_pdb_close(alone);
    CHECK(compared > 250);
    CHECK_EQ(same, compared);
    struct fwpt_resolved x;
    CHECK_EQ(fwpt_resolve(&r, PDB_BASE - 1, &x), 0);
    CHECK_EQ(fwpt_resolve(&r, PDB_BASE + demo_pe.size, &x), 0);
    CHECK_EQ(fwpt_resolve(&r, PDB_BASE, &x), 0); /* the headers: no code */
    fwpt_symmap_free(m);
}

/* A directory holding both builds' PDBs and a file pdbdemo.debug that is not ELF: each image gets the PDB its
 * CodeView path names; the path's .pdb ranks pdbdemo.pdb above pdbdemo.debug, which is never tried (said if it
 * were). */
TEST(pdb_in_directory)
{
    NEED_PDB();
    char dir[600], path[900], path2[900], junk[900];
    snprintf(dir, sizeof dir, "%s/pdbs", scratch());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/pdbdemo.pdb", dir);
    snprintf(path2, sizeof path2, "%s/pdbdemo-changed.pdb", dir);
    snprintf(junk, sizeof junk, "%s/pdbdemo.debug", dir);
    sh("cp '%s' '%s'", demo_pdb, path);
    sh("cp '%s' '%s'", changed_pdb, path2);
    write_file(junk, "not ELF\n", 8);
    struct fwpt_symmap_image two[2] = {pdb_image(&demo_pe, "pdbdemo", "pdbdemo.pdb"),
                                       pdb_image(&changed_pe, "pdbdemo-changed", "pdbdemo-changed.pdb")};
    two[1].base = PDB_BASE + 0x10000;
    const char *args[] = {dir};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, two, 2);
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (2 by CodeView path; 0 without a symbol file)\n");
    CHECK_STR(file_of(m, 0, &how), path);
    CHECK_STR(how, "CodeView path");
    CHECK_STR(file_of(m, 1, &how), path2);
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    struct fwpt_resolved x;
    struct pproc procs[16];
    size_t np = pdb_procs(changed_pdb, &changed_pe, procs, 16);
    CHECK(np >= 5);
    for (size_t k = 0; k < np; k++) {
        CHECK_EQ(fwpt_resolve(&r, two[1].base + procs[k].rva, &x), 1);
        CHECK_STR(x.function ? x.function : "(none)", procs[k].name);
    }
    fwpt_symmap_free(m);
}

/* FILE@BASE places the PDB by hand (no name ties it); a base without the image's headers there is said. Given by
 * itself with no name tying it, the PDB finds the image whose CodeView entry has its GUID/age. */
TEST(pdb_file_at_base_and_by_signature)
{
    NEED_PDB();
    struct fwpt_symmap_image one = pdb_image(&demo_pe, "app", "");
    char arg[900], want[2000];
    snprintf(arg, sizeof arg, "%s@0x%llx", demo_pdb, PDB_BASE);
    const char *args[] = {arg};
    const char *how;
    struct fwpt_symmap *m = match(args, 1, &one, 1);
    CHECK_STR(msgs, "names: 1 of 1 traced images matched (1 by FILE@BASE; 0 without a symbol file)\n");
    CHECK_STR(file_of(m, 0, &how), demo_pdb);
    CHECK_STR(how, "FILE@BASE");
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    struct fwpt_resolved x;
    struct pproc procs[16];
    size_t np = pdb_procs(demo_pdb, &demo_pe, procs, 16);
    CHECK(np == 5 && fwpt_resolve(&r, PDB_BASE + procs[np - 1].rva + 1, &x) == 1);
    CHECK_STR(x.function ? x.function : "(none)", procs[np - 1].name);
    fwpt_symmap_free(m);
    snprintf(arg, sizeof arg, "%s@0x%llx", demo_pdb, PDB_BASE + 0x1000);
    m = match(args, 1, &one, 1);
    snprintf(want, sizeof want, "fwpt flow: symbols for app do not match the traced image: the traced image names no "
             "PDB: no PE/COFF image at the load base (no MZ header): %s\nnames: 0 of 1 traced images matched (1 "
             "without a symbol file)\n", demo_pdb);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
    /* no name, no CodeView path recorded: each of the two PDBs finds its image by the GUID/age in its bytes */
    struct fwpt_symmap_image two[2] = {pdb_image(&changed_pe, "app1", NULL), pdb_image(&demo_pe, "app2", NULL)};
    two[1].base = PDB_BASE + 0x10000;
    const char *both[] = {demo_pdb, changed_pdb};
    m = match(both, 2, two, 2);
    CHECK_STR(msgs, "names: 2 of 2 traced images matched (2 by PDB GUID/age; 0 without a symbol file)\n");
    CHECK_STR(file_of(m, 0, &how), changed_pdb);
    CHECK_STR(how, "PDB GUID/age");
    CHECK_STR(file_of(m, 1, NULL), demo_pdb);
    fwpt_symmap_free(m);
}

/* The changed build's PDB under the name the image's CodeView path gives: refused with the contract's warning, both
 * signatures as llvm-pdbutil prints them; given by itself (no name tie) it is said to fit no image. */
TEST(pdb_other_build_refused)
{
    NEED_PDB();
    char dir[600], path[900], want[2000], have_sig[128], pdb_sig[128];
    snprintf(dir, sizeof dir, "%s/stale-pdb", scratch());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/pdbdemo.pdb", dir);
    sh("cp '%s' '%s'", changed_pdb, path);
    pdb_summary(demo_pdb, have_sig, sizeof have_sig); /* the image's own PDB has the image's GUID/age */
    pdb_summary(changed_pdb, pdb_sig, sizeof pdb_sig);
    CHECK(strcmp(have_sig, pdb_sig) != 0 && have_sig[0] == '{' && pdb_sig[0] == '{');
    struct fwpt_symmap_image one = pdb_image(&demo_pe, "pdbdemo", "pdbdemo.pdb");
    const char *args[] = {dir};
    struct fwpt_symmap *m = match(args, 1, &one, 1);
    snprintf(want, sizeof want, "fwpt flow: symbols for pdbdemo do not match the traced image: the PDB's GUID/age %s "
             "differs from the image's %s (stale build?): %s\nnames: 0 of 1 traced images matched (1 without a "
             "symbol file)\n", pdb_sig, have_sig, path);
    CHECK_STR(msgs, want);
    CHECK(fwpt_symmap_file(m, 0, NULL) == NULL);
    CHECK(fwpt_symmap_resolver(m).resolve == NULL);
    fwpt_symmap_free(m);
    const char *files[] = {changed_pdb};
    m = match(files, 1, &one, 1);
    snprintf(want, sizeof want, "fwpt flow: --symbols %s: the CodeView entry of none of the 1 traced images names this "
             "PDB's GUID/age %s (no names from it)\nnames: 0 of 1 traced images matched (1 without a symbol file)\n",
             changed_pdb, pdb_sig);
    CHECK_STR(msgs, want);
    fwpt_symmap_free(m);
}

/* Without llvm-pdbutil or llvm-symbolizer: one line naming the tool and its package, however many PDBs and images;
 * an ELF file given beside them still matches. */
TEST(pdb_missing_tool)
{
    NEED_PDB();
    char dir[600], path[900], want[2000];
    snprintf(dir, sizeof dir, "%s/pdbs2", scratch());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/pdbdemo.pdb", dir);
    sh("cp '%s' '%s'", demo_pdb, path);
    snprintf(path, sizeof path, "%s/pdbdemo-changed.pdb", dir);
    sh("cp '%s' '%s'", changed_pdb, path);
    struct fwpt_symmap_image two[2] = {pdb_image(&demo_pe, "pdbdemo", "pdbdemo.pdb"),
                                       pdb_image(&changed_pe, "pdbdemo-changed", "pdbdemo-changed.pdb")};
    two[1].base = PDB_BASE + 0x10000;
    const char *args[] = {dir};
    const char *tools[][2] = {{"FWPT_LLVM_PDBUTIL", "llvm-pdbutil"}, {"FWPT_LLVM_SYMBOLIZER", "llvm-symbolizer"}};
    for (int t = 0; t < 2; t++) {
        char none[300];
        snprintf(none, sizeof none, "%s/no/%s", scratch(), tools[t][1]);
        setenv(tools[t][0], none, 1);
        struct fwpt_symmap *m = match(args, 1, two, 2);
        snprintf(want, sizeof want, "fwpt flow: symbols for pdbdemo: %s/pdbdemo.pdb: reading a PDB needs %s (Debian "
                 "package llvm-14 or llvm), not found (no names from PDBs)\nnames: 0 of 2 traced images matched (2 "
                 "without a symbol file)\n", dir, none);
        CHECK_STR(msgs, want);
        fwpt_symmap_free(m);
        unsetenv(tools[t][0]);
    }
}

/* The PDB's llvm-symbolizer stops answering after its first answer (a wrapper passing one line on): the next
 * lookup keeps the function only, and the end of the run says so, naming the module and the PDB. */
TEST(pdb_helper_stops)
{
    NEED_PDB();
    char script[600], want[2000];
    snprintf(script, sizeof script, "%s/one-answer.sh", scratch());
    const char *body = "#!/bin/sh\nhead -n 1 | { llvm-symbolizer \"$@\" 2>/dev/null || llvm-symbolizer-14 \"$@\"; }\n";
    write_file(script, body, strlen(body));
    chmod(script, 0755);
    setenv("FWPT_LLVM_SYMBOLIZER", script, 1);
    struct fwpt_symmap_image one = pdb_image(&demo_pe, "pdbdemo", "pdbdemo.pdb");
    const char *args[] = {demo_pdb};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct fwpt_symmap *m = fwpt_symmap_new("fwpt flow", f, 0);
    fwpt_symmap_match(m, args, 1, &one, 1);
    unsetenv("FWPT_LLVM_SYMBOLIZER");
    struct fwpt_resolver r = fwpt_symmap_resolver(m);
    struct fwpt_resolved x = {0};
    struct pproc procs[16];
    size_t np = pdb_procs(demo_pdb, &demo_pe, procs, 16);
    CHECK(np == 5 && fwpt_resolve(&r, PDB_BASE + procs[2].rva + 2, &x) == 1);
    CHECK_STR(x.function ? x.function : "(none)", np == 5 ? procs[2].name : "?");
    CHECK(x.file == NULL && x.line == 0);
    fwpt_symmap_summary(m);
    fwpt_symmap_free(m);
    fclose(f);
    /* why: "it exited" or the write's error, as the timing falls */
    snprintf(want, sizeof want, "fwpt flow: symbols for pdbdemo: %s: llvm-symbolizer stopped answering (", demo_pdb);
    CHECK(buf && !strncmp(buf, want, strlen(want)));
    CHECK(buf && strstr(buf, "): file and line not known after this\nnames: 1 of 1 traced images matched (1 by "
                             "CodeView path; 0 without a symbol file)\n"));
    if (!buf || strncmp(buf, want, strlen(want)))
        fprintf(stderr, "got:\n%s", buf ? buf : "");
    free(buf);
}

/* fwpt flow DIR --symbols build/pdbdemo.pdb --profile --format jsonl on a trace through pdbdemo's code section: a
 * generated program whose code replaces the section's bytes in the loaded image (the headers and the CodeView entry
 * kept). Each function record inside the code section carries the keys of the PDB's answer for its entry
 * ("function", "file", "line", "inlined"), the others none; stderr is the names line; exit status 0. */
TEST(flow_profile_names_through_pdb)
{
    NEED_PDB();
    char tool[1024];
    TOOL_FIND_OR_RETURN(tool);
    unsigned text = demo_pe.nsec;
    for (unsigned i = 0; i < demo_pe.nsec && text == demo_pe.nsec; i++)
        if (demo_pe.sec[i].flags & 0x20000000u)
            text = i;
    CHECK(text < demo_pe.nsec);
    if (text == demo_pe.nsec)
        return;
    struct progen prog;
    struct progen_cfg cfg = {.seed = 3, .nfuncs = 4, .max_insns = 600, .psb_period = 400};
    CHECK(progen_build_checked(&cfg, &prog));
    const uint32_t rva = demo_pe.sec[text].rva, room = demo_pe.sec[text + 1].rva - rva;
    CHECK(prog.code_size <= room); /* the next section (the CodeView entry's) stays */
    const uint64_t base = prog.base - rva;
    uint8_t *image = malloc(demo_pe.size);
    memcpy(image, demo_pe.image, demo_pe.size);
    memcpy(image + rva, prog.code, prog.code_size < room ? prog.code_size : room);
    char dir[600], path[900], args[2000];
    snprintf(dir, sizeof dir, "%s/pdbtrace", scratch());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    write_file(path, prog.trace, prog.trace_size);
    snprintf(path, sizeof path, "%s/img-%llx.bin", dir, (unsigned long long)base);
    write_file(path, image, demo_pe.size);
    snprintf(path, sizeof path, "%s/sideband.json", dir);
    char sb[600];
    int n = snprintf(sb, sizeof sb, "{\"images\":[{\"name\":\"pdbdemo\",\"base\":\"0x%llx\",\"size\":\"0x%zx\","
                     "\"file\":\"img-%llx.bin\",\"pdb\":\"pdbdemo.pdb\",\"path\":\"\\\\fwpt\\\\pdbdemo.efi\"}]}\n",
                     (unsigned long long)base, demo_pe.size, (unsigned long long)base);
    write_file(path, sb, (size_t)n);
    snprintf(args, sizeof args, "%s --profile --format jsonl --symbols %s", dir, demo_pdb);
    char *so = NULL, *se = NULL;
    CHECK_EQ(run2(tool, "flow", args, &so, &se), 0);
    CHECK_STR(se ? se : "", "names: 1 of 1 traced images matched (1 by CodeView path; 0 without a symbol file)\n");
    struct fwpt_symbols_pdb *alone = NULL;
    char err[600];
    CHECK(fwpt_symbols_open_pdb(&alone, demo_pdb, image, demo_pe.size, base, err, sizeof err) == FWPT_OK);
    struct fwpt_resolver r1 = alone ? fwpt_symbols_pdb_resolver(alone) : (struct fwpt_resolver){0};
    unsigned records = 0, named = 0, right = 0;
    for (char *line = so; line && *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            break;
        *end = 0;
        unsigned long long entry;
        const char *e = strstr(line, "\"entry\":\"0x");
        if (!strncmp(line, "{\"type\":\"function\"", 18) && e && sscanf(e, "\"entry\":\"0x%llx", &entry) == 1) {
            struct fwpt_resolved x;
            int known = fwpt_resolve(&r1, entry, &x);
            char frag[1200];
            int k = snprintf(frag, sizeof frag, "\"module\":\"pdbdemo\",\"module_offset\":\"0x%llx\"",
                             (unsigned long long)(entry - base));
            if (known && x.function) /* the contract's name: FUNC at the entry, else FUNC+0xOFF */
                k += snprintf(frag + k, sizeof frag - (size_t)k, ",\"function\":\"%s", x.function);
            if (known && x.function && entry != x.function_entry)
                k += snprintf(frag + k, sizeof frag - (size_t)k, "+0x%llx",
                              (unsigned long long)(entry - x.function_entry));
            if (known && x.function)
                k += snprintf(frag + k, sizeof frag - (size_t)k, "\"");
            if (known && x.file)
                k += snprintf(frag + k, sizeof frag - (size_t)k, ",\"file\":\"%s\",\"line\":%u", x.file, x.line);
            if (known && x.inlined)
                k += snprintf(frag + k, sizeof frag - (size_t)k, ",\"inlined\":true");
            snprintf(frag + k, sizeof frag - (size_t)k, ",\"self\":");
            records++;
            named += known && x.function;
            right += strstr(line, frag) != NULL;
            if (!strstr(line, frag))
                fprintf(stderr, "flow_profile_names_through_pdb: %s\n  lacks %s\n", line, frag);
        }
        line = end + 1;
    }
    fwpt_symbols_pdb_close(alone);
    CHECK(records >= 3);
    CHECK(named >= 1);
    CHECK_EQ(right, records);
    printf("flow_profile_names_through_pdb: %u function records, %u named through the PDB\n", records, named);
    free(so), free(se), free(image);
    progen_free(&prog);
}

int main(int argc, char **argv)
{
    int rc = check_run(argc, argv, "test_symmap");
    scratch_remove("test_symmap");
    return rc;
}
