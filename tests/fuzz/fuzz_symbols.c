/* libFuzzer: the symbol-file path of the host tool. The input is the bytes of a symbol file: it is written to a
 * memfd and opened by path (/proc/self/fd/N) with fwpt_symbols_open (tools/symbols_dw.c: elfutils' libelf, libdwfl
 * and libdw read it) at a load base the input picks, then a few addresses are resolved (the ELF file's own
 * section starts and middles, and addresses the input's bytes name), each twice (the second from the cache).
 * The same bytes go through the dispatcher's magic check (fwpt_symfile_kind; fwpt_symbols_open_any when they are
 * not a PDB: llvm-symbolizer is never started per input) and, as a traced image as loaded, through the CodeView
 * reader fwpt_pe_codeview. Seeds: tests/fuzz/seeds/symbols/ (a small ELF shared object with DWARF built by gcc -g
 * from a few functions with one inlined, its symbols-only copy, the PE image build/pdbdemo.efi as loaded, and a
 * PDB's first block). Checks: no crash, no hang, no leak; an answer's entry at or below its address.
 * Whole-file mutations rarely get past the ELF checks into the DWARF, so each input is also read as patches over
 * the DWARF sections of the seed tiny-dwarf.so (built into the fuzzer with .incbin): 4 bytes each (section, offset
 * low and high, value), the ELF container left whole, and every byte of its code resolved. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gelf.h>

#include "tools/symbols_pdb.h"

/* the seed tiny-dwarf.so (gcc -g -O2 -shared -nostdlib: three functions, one inlined), as bytes of this program */
__asm__(".section .rodata\n.balign 16\nseed_elf:\n.incbin \"tests/fuzz/seeds/symbols/tiny-dwarf.so\"\n"
        "seed_elf_end:\n.previous\n");
extern const uint8_t seed_elf[], seed_elf_end[];

static struct { size_t off, size; } dwarf[16]; /* the seed's .debug_* sections */
static size_t ndwarf;
static struct { uint64_t addr, size; } code[4]; /* its executable sections */
static size_t ncode;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)seed_elf, (size_t)(seed_elf_end - seed_elf));
    size_t shstr;
    if (!e || elf_getshdrstrndx(e, &shstr) != 0)
        abort();
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
        if (name && !strncmp(name, ".debug_", 7) && sh.sh_size && ndwarf < 16)
            dwarf[ndwarf].off = sh.sh_offset, dwarf[ndwarf++].size = sh.sh_size;
        if (name && (sh.sh_flags & SHF_EXECINSTR) && ncode < 4)
            code[ncode].addr = sh.sh_addr, code[ncode++].size = sh.sh_size;
    }
    elf_end(e);
    if (ndwarf < 4 || !ncode)
        abort(); /* the seed must have its DWARF and code */
    return 0;
}

static void check_answer(const struct fwpt_resolver *r, uint64_t a)
{
    struct fwpt_resolved x, y;
    int k1 = fwpt_resolve(r, a, &x), k2 = fwpt_resolve(r, a, &y);
    if (k1 != k2 || x.function != y.function || x.file != y.file || x.line != y.line || x.inlined != y.inlined)
        abort(); /* the cache gives the first answer again */
    if (k1 != (x.function != NULL || x.file != NULL) || (x.function && x.function_entry > a) || x.inlined > 1)
        abort();
    if (x.function)
        (void)strlen(x.function); /* ASan: a string the backend still owns */
    if (x.file)
        (void)strlen(x.file);
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The seed with the input's patches over its DWARF, opened and every byte of its code resolved. */
static void patched_seed(const uint8_t *data, size_t size)
{
    size_t n = (size_t)(seed_elf_end - seed_elf);
    uint8_t *elf = malloc(n);
    memcpy(elf, seed_elf, n);
    for (size_t i = 0; i + 4 <= size && i < 4 * 64; i += 4) {
        size_t k = data[i] % ndwarf;
        elf[dwarf[k].off + (size_t)(data[i + 1] | data[i + 2] << 8) % dwarf[k].size] = data[i + 3];
    }
    int fd = memfd_create("fuzz_symbols_seed", MFD_CLOEXEC);
    if (fd < 0 || write(fd, elf, n) != (ssize_t)n)
        abort();
    free(elf);
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct fwpt_symbols *s = NULL;
    const uint64_t base = 0x7e5c1000ull;
    if (fwpt_symbols_open(&s, path, base, err, sizeof err) == FWPT_OK) {
        struct fwpt_resolver r = fwpt_symbols_resolver(s);
        for (size_t c = 0; c < ncode; c++)
            for (uint64_t a = code[c].addr; a < code[c].addr + code[c].size && a < code[c].addr + 4096; a++)
                check_answer(&r, base + a);
        fwpt_symbols_close(s);
    } else if (!strstr(err, path)) {
        abort();
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    patched_seed(data, size);

    char err[512];
    struct fwpt_codeview cv;
    if (fwpt_pe_codeview(data, size, &cv, err, sizeof err) == 0) {
        if (strnlen(cv.path, sizeof cv.path) == sizeof cv.path)
            abort();
    } else if (!err[0]) {
        abort(); /* a refusal says why */
    }
    enum fwpt_symfile_kind kind = fwpt_symfile_kind(data, size);

    int fd = memfd_create("fuzz_symbols", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    uint64_t base = size >= 8 ? rd64(data + size - 8) & 0x0000fffffffff000ull : 0x7e5c1000ull;

    struct fwpt_symbols *s = NULL;
    err[0] = 0;
    enum fwpt_status st = fwpt_symbols_open(&s, path, base, err, sizeof err);
    if ((st == FWPT_OK) != (s != NULL) || (st != FWPT_OK && (!err[0] || !strstr(err, path))))
        abort(); /* a refusal names the file */
    if (s) {
        struct fwpt_resolver r = fwpt_symbols_resolver(s);
        for (uint64_t a = base; a < base + 0x4000; a += 0x3f1)
            check_answer(&r, a);
        for (size_t i = 0; i + 8 <= size && i < 256; i += 24)
            check_answer(&r, base + (rd64(data + i) & 0xfffff));
        check_answer(&r, base - 1);
        check_answer(&r, UINT64_MAX);
        fwpt_symbols_close(s);
    }
    if (kind != FWPT_SYMFILE_PDB) {
        struct fwpt_symfile f;
        st = fwpt_symbols_open_any(&f, path, data, size, base, err, sizeof err);
        if ((st == FWPT_OK) != (f.kind == FWPT_SYMFILE_ELF) || (kind == FWPT_SYMFILE_UNKNOWN && st != FWPT_E_INVAL))
            abort();
        fwpt_symfile_close(&f);
    }
    close(fd);
    return 0;
}
