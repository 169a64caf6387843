/* test_symbols: the host resolver (tools/symbols_dw.c) answers as binutils do. For EDK2 modules of the DEBUG OVMF
 * build in ../shared/ovmf-debug (DxeCore and Fat, full DWARF from debug-full.tar.xz; DxeCore symbols-only from
 * debug/) and for build/fwpt.so, placed at a load base that is not 0: every function symbol's start, middle and
 * last byte resolve to a name `nm -S` gives for that address, with that symbol's start as the entry; file:line
 * equals `addr2line -e FILE ADDR` and "inlined" equals addr2line -i printing more than one frame. Without
 * ../shared the EDK2 cases fail, naming what is missing. Bad input: missing, truncated, not ELF, 32-bit,
 * another machine, each refused with a message naming the file. The functions' tables (a function's line rows and
 * inlined ranges, read once) answer exactly as the per-address libdw walk on every byte from the first function
 * symbol's start to the last one's end of DxeCore, Fat (full DWARF) and build/fwpt.so. */
#include "tests/check.h"
#include "tests/common/scratch.h"
#include "tools/symbols_dw.h"

#include <elf.h>
#include <stdint.h>
#include <unistd.h>

#define EDK2_BASE 0x7e5c1000ull /* a DXE load address: page aligned, not 0 */
#define FWPT_BASE 0x6d2a3000ull

struct nm_sym {
    uint64_t start, size;
    char name[128];
};

struct probe {
    uint64_t elf_addr;
    char where[512]; /* addr2line's first frame, discriminator cut: "file:line" or "??:..." */
    int frames;      /* addr2line -i: frames printed for this address */
};

static const char *scratch(void)
{
    return scratch_dir("fwpt-symbols");
}

/* ../shared/ovmf-debug (tests/common/scratch.h), or NULL said loudly. */
static const char *edk2_dir(void)
{
    const char *dir = ovmf_debug_dir();
    char probe[600];
    snprintf(probe, sizeof probe, "%s/debug/DxeCore.debug", dir);
    if (access(probe, R_OK) != 0) {
        fprintf(stderr, "test_symbols: NOT RUN: the EDK2 half: no %s (set FWPT_OVMF_DEBUG to ovmf-debug/OVMF.fd)\n",
                probe);
        return NULL;
    }
    return dir;
}

/* DWARF-full copy of one module's .debug file, unpacked once from debug-full.tar.xz into the scratch folder. */
static const char *full_debug(const char *module)
{
    static char path[8][600];
    static int n;
    const char *dir = edk2_dir();
    if (!dir)
        return NULL;
    for (int i = 0; i < n; i++)
        if (strstr(path[i], module) && access(path[i], R_OK) == 0)
            return path[i];
    if (n == 8)
        return NULL;
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "tar -xJf '%s/debug-full.tar.xz' -C '%s' './%s.debug'", dir, scratch(), module);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_symbols: could not unpack %s.debug from %s/debug-full.tar.xz\n", module, dir);
        return NULL;
    }
    snprintf(path[n], sizeof path[n], "%s/%s.debug", scratch(), module);
    return path[n++];
}

/* The function symbols (STT_FUNC with a size, as `readelf -sW` lists them: nm names the same symbols but cannot
 * tell a function from the read-only data EDK2 links into .text). */
static size_t nm_funcs(const char *file, struct nm_sym **out)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "readelf -sW '%s'", file);
    FILE *p = popen(cmd, "r");
    size_t n = 0, cap = 256;
    struct nm_sym *v = malloc(cap * sizeof *v);
    char line[600], size[32], type[32], bind[32], vis[32], ndx[32];
    unsigned num;
    unsigned long long a;
    while (p && v && fgets(line, sizeof line, p)) {
        struct nm_sym s;
        if (sscanf(line, " %u: %llx %31s %31s %31s %31s %31s %127s", &num, &a, size, type, bind, vis, ndx,
                   s.name) != 8 || strcmp(type, "FUNC") || !strcmp(ndx, "UND"))
            continue;
        s.start = a;
        s.size = strtoull(size, NULL, 0);
        if (!s.size)
            continue;
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = s;
    }
    if (p)
        pclose(p);
    *out = v;
    return n;
}

/* addr2line -a -i -e FILE for every probe, in one run: the first frame's "file:line" and the number of frames. */
static int addr2line_all(const char *file, struct probe *pr, size_t n)
{
    char in[400], cmd[1400], line[400];
    snprintf(in, sizeof in, "%s/addresses", scratch());
    FILE *f = fopen(in, "w");
    for (size_t i = 0; f && i < n; i++)
        fprintf(f, "0x%llx\n", (unsigned long long)pr[i].elf_addr);
    if (!f || fclose(f) != 0)
        return 0;
    snprintf(cmd, sizeof cmd, "addr2line -a -i -e '%s' < '%s'", file, in);
    FILE *p = popen(cmd, "r");
    long cur = -1;
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "0x", 2)) {
            if (++cur >= (long)n)
                break;
            pr[cur].frames = 0;
            continue;
        }
        if (cur < 0)
            continue;
        if (pr[cur].frames++ == 0) {
            char *d = strstr(line, " (discriminator");
            if (d)
                *d = 0;
            snprintf(pr[cur].where, sizeof pr[cur].where, "%s", line);
        }
    }
    return p && pclose(p) == 0 && cur == (long)n - 1;
}

struct row {
    uint64_t addr;
    unsigned line; /* 0: the end of a sequence */
    char file[64];
};
static struct row *rows;
static size_t nrows;
static char rows_of[600];

/* 1 when the line table's row for e (of the rows at the greatest address <= e, the last one printed) names the
 * file (by the name objdump prints) and line: objdump --dwarf=decodedline, read once per ELF file. */
static int row_says(const char *elf, uint64_t e, const char *file, unsigned line)
{
    if (strcmp(rows_of, elf)) {
        char cmd[700], l[600], name[64], num[32], addr[32];
        snprintf(cmd, sizeof cmd, "objdump --dwarf=decodedline '%s'", elf);
        FILE *p = popen(cmd, "r");
        size_t cap = 0;
        nrows = 0;
        while (p && fgets(l, sizeof l, p)) {
            if (sscanf(l, "%63s %31s %31s", name, num, addr) != 3 || strncmp(addr, "0x", 2))
                continue;
            if (nrows == cap)
                rows = realloc(rows, (cap = cap ? 2 * cap : 4096) * sizeof *rows);
            rows[nrows].addr = strtoull(addr, NULL, 16);
            rows[nrows].line = (unsigned)strtoul(num, NULL, 10);
            snprintf(rows[nrows++].file, sizeof rows->file, "%s", name);
        }
        if (p)
            pclose(p);
        snprintf(rows_of, sizeof rows_of, "%s", elf);
    }
    const struct row *best = NULL;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].addr <= e && (!best || rows[i].addr >= best->addr))
            best = &rows[i];
    /* objdump prints a name's last 35 characters when it is longer: the path must end with what it prints */
    size_t n = strlen(file), k = best ? strlen(best->file) : 0;
    return best && best->line == line && k && k <= n && !strcmp(file + n - k, best->file) &&
           (k >= 35 || file[n - k - 1] == '/');
}

/* The whole comparison for one ELF file at base; returns the number of function symbols compared. */
static size_t compare_with_binutils(const char *file, uint64_t base, int expect_lines /* 0 none, 1 some, 2 all */)
{
    struct nm_sym *syms;
    size_t nsyms = nm_funcs(file, &syms);
    CHECK(nsyms > 20);
    struct probe *pr = calloc(3 * nsyms + 1, sizeof *pr);
    size_t np = 0;
    for (size_t i = 0; i < nsyms; i++) {
        pr[np++].elf_addr = syms[i].start;
        if (syms[i].size > 2)
            pr[np++].elf_addr = syms[i].start + syms[i].size / 2;
        if (syms[i].size > 1)
            pr[np++].elf_addr = syms[i].start + syms[i].size - 1;
    }
    CHECK(addr2line_all(file, pr, np));

    struct fwpt_symbols *s = NULL;
    char err[512];
    CHECK_EQ(fwpt_symbols_open(&s, file, base, err, sizeof err), FWPT_OK);
    if (!s) {
        fprintf(stderr, "test_symbols: %s\n", err);
        free(pr), free(syms);
        return 0;
    }
    struct fwpt_resolver r = fwpt_symbols_resolver(s);
    size_t bad_name = 0, bad_line = 0, bad_inline = 0, lines = 0, inlined = 0, other_file = 0;
    for (size_t i = 0; i < np; i++) {
        struct fwpt_resolved a;
        uint64_t e = pr[i].elf_addr;
        CHECK_EQ(fwpt_resolve(&r, base + e, &a), 1);
        /* the name must be one nm gives for a symbol holding e, and the entry that symbol's start */
        int ok = 0;
        for (size_t k = 0; a.function && k < nsyms; k++)
            if (syms[k].start <= e && e < syms[k].start + syms[k].size && !strcmp(syms[k].name, a.function) &&
                a.function_entry == base + syms[k].start)
                ok = 1;
        if (!ok && bad_name++ < 5)
            fprintf(stderr, "  %s +0x%llx: resolver says %s at 0x%llx\n", file, (unsigned long long)e,
                    a.function ? a.function : "(none)", (unsigned long long)a.function_entry);
        CHECK(ok);
        char mine[600];
        if (a.file)
            snprintf(mine, sizeof mine, "%s:%u", a.file, a.line);
        const char *colon = strrchr(pr[i].where, ':'); /* addr2line: "??:0", "??:?" or ":?" when not known */
        int a2l_known = colon && strcmp(colon, ":?") && strcmp(colon, ":0");
        int same = a.file ? a2l_known && !strcmp(mine, pr[i].where) : !a2l_known;
        /* binutils 2.40 names some rows of DWARF 5 line tables by another file of the unit (the unit's own file,
         * or "<comp dir>/<artificial>" in GCC's LTO units) than the row's file: there the referee is the row
         * itself, as `objdump --dwarf=decodedline` prints it (file name and line) */
        if (!same && a.file && a2l_known && !strcmp(strrchr(mine, ':'), colon) && row_says(file, e, a.file, a.line)) {
            same = 1;
            other_file++;
        }
        if (!same && bad_line++ < 5)
            fprintf(stderr, "  %s +0x%llx: resolver %s, addr2line %s\n", file, (unsigned long long)e,
                    a.file ? mine : "(not known)", pr[i].where);
        CHECK(same);
        if ((int)a.inlined != (pr[i].frames > 1) && bad_inline++ < 5)
            fprintf(stderr, "  %s +0x%llx: resolver inlined=%u, addr2line %d frames\n", file,
                    (unsigned long long)e, a.inlined, pr[i].frames);
        CHECK_EQ(a.inlined, pr[i].frames > 1);
        lines += a.file != NULL;
        inlined += a.inlined;
    }
    /* asked again: the same answer, from the per-address cache (the last address asked: an earlier one may have
     * given its slot to a later one) */
    uint64_t cached0, looked0, cached1, looked1;
    fwpt_symbols_stats(s, &cached0, &looked0);
    struct fwpt_resolved a1, a2;
    CHECK_EQ(fwpt_resolve(&r, base + pr[np - 1].elf_addr, &a1), 1);
    fwpt_symbols_stats(s, &cached1, &looked1);
    CHECK(looked1 == looked0 || cached1 == cached0 + 1);
    CHECK_EQ(fwpt_resolve(&r, base + pr[np - 1].elf_addr, &a2), 1);
    CHECK(a1.function == a2.function && a1.file == a2.file && a1.line == a2.line);
    if (expect_lines == 1) {
        CHECK(lines > np / 2); /* fwpt's code has lines, gnu-efi's library not */
        CHECK(inlined > 0);
    } else if (expect_lines == 2) {
        CHECK_EQ(lines, np); /* full DWARF: every function byte has a line */
        CHECK(inlined > 0);
    } else {
        CHECK_EQ(lines, 0);
    }
    printf("symbols: %s at 0x%llx: %zu functions, %zu addresses: names as nm, %zu lines as addr2line (%zu of them"
           " by the line table, addr2line naming another file), %zu inlined\n", file, (unsigned long long)base, nsyms,
           np, lines, other_file, inlined);
    fwpt_symbols_close(s);
    free(pr);
    free(syms);
    return nsyms;
}

TEST(dxecore_full_dwarf)
{
    const char *f = full_debug("DxeCore");
    CHECK(f != NULL);
    if (f)
        CHECK(compare_with_binutils(f, EDK2_BASE, 2) == 383);
}

TEST(fat_full_dwarf)
{
    const char *f = full_debug("Fat");
    CHECK(f != NULL);
    if (f)
        CHECK(compare_with_binutils(f, EDK2_BASE + 0x200000, 2) == 137);
}

/* The same answer: both not known, or the same strings (each file's own copies), entry, line and inlined. */
static int same_answer(int ka, const struct fwpt_resolved *a, int kb, const struct fwpt_resolved *b)
{
    return ka == kb && !a->function == !b->function && (!a->function || !strcmp(a->function, b->function)) &&
           a->function_entry == b->function_entry && !a->file == !b->file && (!a->file || !strcmp(a->file, b->file)) &&
           a->line == b->line && a->inlined == b->inlined;
}

/* Every byte from the first function's start to the last one's end (functions, padding and data between them)
 * answered by the tables and by the per-address walk (fwpt_symbols_set_tables(s, 0)): the number of bytes, and of
 * those the tables answered in *tabled. */
static uint64_t tables_against_walk(const char *file, uint64_t base, uint64_t *tabled, uint64_t *lines)
{
    struct nm_sym *syms;
    size_t nsyms = nm_funcs(file, &syms);
    CHECK(nsyms > 20);
    uint64_t lo = ~0ull, hi = 0;
    for (size_t i = 0; i < nsyms; i++) {
        lo = syms[i].start < lo ? syms[i].start : lo;
        hi = syms[i].start + syms[i].size > hi ? syms[i].start + syms[i].size : hi;
    }
    free(syms);
    struct fwpt_symbols *fast = NULL, *walk = NULL;
    char err[512];
    CHECK_EQ(fwpt_symbols_open(&fast, file, base, err, sizeof err), FWPT_OK);
    CHECK_EQ(fwpt_symbols_open(&walk, file, base, err, sizeof err), FWPT_OK);
    if (!fast || !walk) {
        fwpt_symbols_close(fast);
        fwpt_symbols_close(walk);
        return 0;
    }
    fwpt_symbols_set_tables(walk, 0);
    struct fwpt_resolver rf = fwpt_symbols_resolver(fast), rw = fwpt_symbols_resolver(walk);
    uint64_t differ = 0;
    *lines = 0;
    /* every other 4 KiB stretch backwards: a function's table is read first from its end as well as its start */
    for (uint64_t e = lo; e < hi; e++) {
        uint64_t bs = lo + (e - lo) / 4096 * 4096, be = bs + 4096 < hi ? bs + 4096 : hi;
        uint64_t a = ((e - lo) / 4096) & 1 ? be - 1 - (e - bs) : e;
        struct fwpt_resolved x, y;
        int kx = fwpt_resolve(&rf, base + a, &x), ky = fwpt_resolve(&rw, base + a, &y);
        if (!same_answer(kx, &x, ky, &y) && differ++ < 5)
            fprintf(stderr, "  %s +0x%llx: tables %s+0x%llx %s:%u%s, walk %s+0x%llx %s:%u%s\n", file,
                    (unsigned long long)a, x.function ? x.function : "?",
                    (unsigned long long)(base + a - x.function_entry), x.file ? x.file : "?", x.line,
                    x.inlined ? " inlined" : "", y.function ? y.function : "?",
                    (unsigned long long)(base + a - y.function_entry), y.file ? y.file : "?", y.line,
                    y.inlined ? " inlined" : "");
        *lines += y.file != NULL;
    }
    CHECK_EQ(differ, 0);
    *tabled = fwpt_symbols_tabled(fast);
    CHECK_EQ(fwpt_symbols_tabled(walk), 0);
    printf("symbols: %s: %llu bytes (0x%llx-0x%llx): the tables answer as the walk (%llu from tables, %llu with a "
           "line)\n", file, (unsigned long long)(hi - lo), (unsigned long long)lo, (unsigned long long)hi,
           (unsigned long long)*tabled, (unsigned long long)*lines);
    fwpt_symbols_close(fast);
    fwpt_symbols_close(walk);
    return hi - lo;
}

TEST(tables_every_byte)
{
    const char *files[3] = {full_debug("DxeCore"), full_debug("Fat"), NULL};
    char so[600];
    snprintf(so, sizeof so, "%s/fwpt.so", getenv("FWPT_BUILD") ? getenv("FWPT_BUILD") : "build");
    files[2] = so;
    for (int i = 0; i < 3; i++) {
        CHECK(files[i] != NULL);
        if (!files[i])
            continue;
        uint64_t tabled = 0, lines = 0, n = tables_against_walk(files[i], EDK2_BASE + 0x400000 * (uint64_t)i,
                                                                &tabled, &lines);
        CHECK(n > 20000);
        CHECK(tabled > n / 2); /* the tables answer for most bytes (the rest: padding, functions left to the walk) */
        if (i < 2)
            CHECK(lines > n / 2);
    }
}

TEST(dxecore_symbols_only)
{
    const char *dir = edk2_dir();
    CHECK(dir != NULL);
    if (!dir)
        return;
    char f[600];
    snprintf(f, sizeof f, "%s/debug/DxeCore.debug", dir);
    CHECK(compare_with_binutils(f, EDK2_BASE, 0) == 383);
}

/* The README's check: DxeCore + 0x3aa6 is CoreLocateHandleBuffer, Hand/Locate.c line 674. */
TEST(dxecore_known_address)
{
    const char *f = full_debug("DxeCore");
    CHECK(f != NULL);
    struct fwpt_symbols *s = NULL;
    char err[512];
    if (!f || fwpt_symbols_open(&s, f, EDK2_BASE, err, sizeof err) != FWPT_OK)
        return;
    struct fwpt_resolver r = fwpt_symbols_resolver(s);
    struct fwpt_resolved a;
    CHECK_EQ(fwpt_resolve(&r, EDK2_BASE + 0x3aa6, &a), 1);
    CHECK_STR(a.function, "CoreLocateHandleBuffer");
    CHECK_STR(a.file, "/build/edk2/MdeModulePkg/Core/Dxe/Hand/Locate.c");
    CHECK_EQ(a.line, 674);
    /* below the image and inside the headers: not known, an answer, all fields empty */
    CHECK_EQ(fwpt_resolve(&r, EDK2_BASE - 0x10, &a), 0);
    CHECK(a.function == NULL && a.file == NULL && a.line == 0 && a.function_entry == 0);
    CHECK_EQ(fwpt_resolve(&r, EDK2_BASE + 0x10, &a), 0);
    fwpt_symbols_close(s);
}

TEST(fwpt_so)
{
    char f[600];
    snprintf(f, sizeof f, "%s/fwpt.so", build_dir());
    CHECK(access(f, R_OK) == 0);
    CHECK(compare_with_binutils(f, FWPT_BASE, 1) > 500);
}

TEST(no_resolver_is_not_known)
{
    struct fwpt_resolved a = {.function = "x", .line = 3};
    CHECK_EQ(fwpt_resolve(NULL, 0x1000, &a), 0);
    CHECK(a.function == NULL && a.line == 0);
    struct fwpt_resolver none = {0};
    CHECK_EQ(fwpt_resolve(&none, 0x1000, &a), 0);
}

/* Opens path expecting status st and a message naming the file and containing what. */
static void refused(const char *path, enum fwpt_status st, const char *what)
{
    struct fwpt_symbols *s = (struct fwpt_symbols *)&s;
    char err[512];
    CHECK_EQ(fwpt_symbols_open(&s, path, EDK2_BASE, err, sizeof err), st);
    CHECK(s == NULL);
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, what) != NULL);
    printf("symbols: refused: %s\n", err);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n);
    if (f)
        fclose(f);
}

TEST(missing_file)
{
    char f[400];
    snprintf(f, sizeof f, "%s/no-such.debug", scratch());
    refused(f, FWPT_E_IO, "No such file");
}

TEST(truncated_file)
{
    char src[600], f[400];
    snprintf(src, sizeof src, "%s/fwpt.so", build_dir());
    FILE *in = fopen(src, "rb");
    CHECK(in != NULL);
    if (!in)
        return;
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    CHECK(n > 65536);
    snprintf(f, sizeof f, "%s/truncated.so", scratch());
    write_file(f, buf, n / 2);
    refused(f, FWPT_E_INVAL, "truncated");
    write_file(f, buf, 40); /* shorter than the ELF header */
    refused(f, FWPT_E_INVAL, "not an ELF file");
}

TEST(not_elf)
{
    char f[400];
    snprintf(f, sizeof f, "%s/notes.txt", scratch());
    static const char text[] = "MZ this is a PE image, not the ELF file it was made from\n";
    write_file(f, text, sizeof text - 1);
    refused(f, FWPT_E_INVAL, "not an ELF file");
    refused(scratch(), FWPT_E_INVAL, "not a regular file");
}

TEST(elf_32_bit)
{
    char f[400];
    snprintf(f, sizeof f, "%s/i386.so", scratch());
    Elf32_Ehdr h = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB, EV_CURRENT},
                    .e_type = ET_DYN, .e_machine = EM_386, .e_version = EV_CURRENT, .e_ehsize = sizeof h};
    write_file(f, &h, sizeof h);
    refused(f, FWPT_E_INVAL, "32 bits, machine 3");
}

TEST(other_machine)
{
    char f[400];
    snprintf(f, sizeof f, "%s/aarch64.so", scratch());
    Elf64_Ehdr h = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
                    .e_type = ET_DYN, .e_machine = EM_AARCH64, .e_version = EV_CURRENT, .e_ehsize = sizeof h};
    write_file(f, &h, sizeof h);
    refused(f, FWPT_E_INVAL, "64 bits, machine 183");
}

int main(int argc, char **argv)
{
    int rc = check_run(argc, argv, "symbols");
    scratch_remove("test_symbols");
    return rc;
}
