/* fwpt — decode/insn against Zydis 4: length, class and rel on every input Zydis decodes, over
 * (a) real code: linear sweeps of /usr/bin ELF .text and of OVMF's own PE/TE images, and
 * (b) millions of random and biased byte strings in 64-, 32- and 16-bit mode.
 * Validity agreement (both say invalid) is measured and reported; it must stay above a floor. */
#include <dirent.h>
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/check.h"
#include "tests/oracle/insn_oracle.h"

static ZydisDecoder zdec[3];
static int mode_idx(enum fwpt_exec_mode m) { return m == FWPT_MODE_64 ? 0 : m == FWPT_MODE_32 ? 1 : 2; }

struct stats {
    unsigned long compared;    /* Zydis decoded: length/class compared */
    unsigned long mismatched;  /* length/class/rel differ, or fwpt refused what Zydis decodes */
    unsigned long zy_invalid;  /* Zydis refused */
    unsigned long both_invalid;
    unsigned long knc;         /* Zydis decoded a Xeon Phi (KNC/MVEX) encoding: not compared */
    unsigned long fred;        /* FRED ERETU/ERETS, unknown to Zydis 4.0: checked on their own */
    unsigned long rex2;        /* REX2, unknown to Zydis 4.0: checked against the REX form */
    unsigned long rex2_open;   /* REX2 whose REX form Zydis refuses too: not compared */
};

static int verbose;

/* The three Zydis decoders (64-, 32-, 16-bit) and FWPT_INSN_VERBOSE, set up once on first use; false (a failed
 * check) when Zydis cannot be. */
static bool need_zydis(void)
{
    static int done, ok;
    if (!done) {
        done = 1;
        const char *v = getenv("FWPT_INSN_VERBOSE");
        verbose = v ? atoi(v) : 0;
        static const enum fwpt_exec_mode modes[3] = {FWPT_MODE_64, FWPT_MODE_32, FWPT_MODE_16};
        ok = 1;
        for (int m = 0; m < 3 && ok; m++)
            ok = zy_init(&zdec[m], modes[m], 0) == 0;
    }
    if (!ok)
        CHECK(0);
    return ok;
}

/* Seconds of processor time since t0. */
static double secs_since(clock_t t0) { return (double)(clock() - t0) / CLOCKS_PER_SEC; }

static void dump(const char *what, const uint8_t *b, size_t n, enum fwpt_exec_mode mode,
                 const ZydisDecodedInstruction *z, const struct fwpt_insn *f, enum fwpt_status st)
{
    fprintf(stderr, "%s mode %d:", what, mode);
    for (size_t k = 0; k < n && k < 16; k++)
        fprintf(stderr, " %02x", b[k]);
    if (z)
        fprintf(stderr, " | zydis len %u %s class %s", z->length, ZydisMnemonicGetString(z->mnemonic),
                fwpt_insn_class_name(zy_class(z)));
    if (f)
        fprintf(stderr, " | fwpt %s len %u class %s rel %d", fwpt_status_name(st), f->size,
                fwpt_insn_class_name(f->iclass), f->rel);
    fprintf(stderr, "\n");
}

/* The documented exceptions of insn_oracle.h (encodings Zydis 4.0 refuses): fwpt's status, length
 * and class against what the FRED and APX specifications give. Returns the length to skip (0: none). */
static unsigned check_unknown(const uint8_t *b, size_t avail, enum fwpt_exec_mode mode,
                              const struct zy_unknown_insn *u, const struct fwpt_insn *fi,
                              enum fwpt_status st, struct stats *s)
{
    enum fwpt_status want_st = FWPT_OK;
    unsigned want_len = 0;
    int want_class = FWPT_IC_OTHER;
    if (u->kind == ZY_FRED_ERET) {
        s->fred++;
        want_len = (unsigned)u->at + 3;
        want_class = FWPT_IC_IRET;
        if (u->lock)
            want_st = FWPT_E_BAD_INSN;
    } else {
        uint8_t p = b[u->at + 1], op = b[u->at + 2];
        int map1 = (p & 0x80) != 0;
        if (u->rex_before) {
            want_st = FWPT_E_BAD_INSN;
        } else if (!map1 && op == 0xa1 && !(p & 8)) {
            want_len = (unsigned)u->at + 11;
            want_class = FWPT_IC_JMP_IND;
            if (u->legacy_jmpabs_ud)
                want_st = FWPT_E_BAD_INSN;
        } else if (zy_rex2_ud(map1, op)) {
            want_st = FWPT_E_BAD_INSN;
        } else {
            uint8_t t[64];
            size_t tn = 0;
            memcpy(t, b, u->at);
            tn = u->at;
            t[tn++] = (uint8_t)(0x40 | (p & 0x0f));
            if (map1)
                t[tn++] = 0x0f;
            size_t rest = avail - u->at - 2; /* the sweeps pass the rest of a section */
            if (rest > 32)
                rest = 32;
            memcpy(t + tn, b + u->at + 2, rest);
            tn += rest;
            ZydisDecodedInstruction z;
            if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&zdec[mode_idx(mode)], NULL, t, tn, &z)) ||
                zy_is_knc(&z)) {
                s->rex2_open++;
                return 0;
            }
            want_len = z.length + !map1;
            want_class = zy_class(&z);
            if (want_class == FWPT_IC_MOV_CR3 && (p & 0x40))
                want_class = FWPT_IC_OTHER;
        }
        s->rex2++;
    }
    if (want_st == FWPT_OK && want_len > 15)
        want_st = FWPT_E_BAD_INSN;
    if (want_st == FWPT_OK && want_len > avail)
        want_st = FWPT_E_TRUNCATED;
    int ok = st == want_st && (st != FWPT_OK || (fi->size == want_len && fi->iclass == want_class));
    if (!ok) {
        s->mismatched++;
        if (s->mismatched <= 30) {
            dump(u->kind == ZY_FRED_ERET ? "MISMATCH fred" : "MISMATCH rex2", b, avail, mode, NULL, fi, st);
            fprintf(stderr, "  expected %s len %u class %s\n", fwpt_status_name(want_st), want_len,
                    fwpt_insn_class_name(want_class));
        }
    }
    CHECK(ok);
    return st == FWPT_OK ? fi->size : 0;
}

/* Compare at one position; returns Zydis' length (0 if Zydis refused). */
static unsigned compare_one(const uint8_t *b, size_t avail, enum fwpt_exec_mode mode, struct stats *s)
{
    ZydisDecodedInstruction z;
    ZyanStatus zs = ZydisDecoderDecodeInstruction(&zdec[mode_idx(mode)], NULL, b, avail, &z);
    struct fwpt_insn fi;
    memset(&fi, 0xa5, sizeof fi);
    enum fwpt_status st = fwpt_insn_decode(b, avail, mode, &fi);
    struct zy_unknown_insn u;
    if (ZYAN_FAILED(zs) && zy_unknown(b, avail, mode, &u) != ZY_KNOWN)
        return check_unknown(b, avail, mode, &u, &fi, st, s);
    if (ZYAN_FAILED(zs)) {
        s->zy_invalid++;
        if (st != FWPT_OK)
            s->both_invalid++;
        else if (verbose > 1)
            dump("valid-only-fwpt", b, avail, mode, NULL, &fi, st);
        return 0;
    }
    if (zy_is_knc(&z)) {
        s->knc++;
        return z.length;
    }
    s->compared++;
    int ok = st == FWPT_OK && fi.size == z.length && fi.iclass == zy_class(&z);
    if (ok && (fi.iclass == FWPT_IC_JCC || fi.iclass == FWPT_IC_JMP_REL || fi.iclass == FWPT_IC_CALL_REL)) {
        ok = z.raw.imm[0].is_relative && fi.rel == (int32_t)z.raw.imm[0].value.s &&
             fi.zero_len_call == (fi.iclass == FWPT_IC_CALL_REL && z.raw.imm[0].value.s == 0);
        /* Target truncation to the operand size, as Zydis computes it. */
        ZyanU64 zt;
        uint64_t ip = mode == FWPT_MODE_16 ? 0xfff0 : mode == FWPT_MODE_32 ? 0xfffffff0u
                                                                            : 0xfffffffffff0ull;
        if (ok && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&z, NULL, ip, &zt)))
            ok = fwpt_insn_rel_target(&fi, ip, mode) == zt;
    }
    if (!ok) {
        s->mismatched++;
        if (s->mismatched <= 30)
            dump("MISMATCH", b, avail, mode, &z, &fi, st);
    }
    CHECK(ok);
    return z.length;
}

/* ---- real code: linear sweep (both decoders see the same bytes; skip by Zydis' length) ---- */

static void sweep(const uint8_t *code, size_t n, enum fwpt_exec_mode mode, struct stats *s)
{
    size_t off = 0;
    while (off < n) {
        size_t avail = n - off;
        unsigned len = compare_one(code + off, avail, mode, s);
        off += len ? len : 1;
    }
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        fclose(fp);
        return NULL;
    }
    uint8_t *buf = malloc((size_t)st.st_size);
    if (buf && fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *n = (size_t)st.st_size;
    return buf;
}

/* Executable PROGBITS sections of an ELF file of the class asked for: ELFCLASS64 x86-64 (64-bit code) or
 * ELFCLASS32 i386 (32-bit code). The header fields are read from the class's own layout; returns code bytes swept. */
static size_t sweep_elf(const uint8_t *f, size_t n, unsigned char class, struct stats *s)
{
    bool is64 = class == ELFCLASS64;
    size_t ehdr_size = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    size_t shdr_size = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
    if (n < ehdr_size || memcmp(f, ELFMAG, SELFMAG) != 0 || f[EI_CLASS] != class)
        return 0;
    const Elf64_Ehdr *eh64 = (const void *)f;
    const Elf32_Ehdr *eh32 = (const void *)f;
    unsigned machine = is64 ? eh64->e_machine : eh32->e_machine;
    unsigned shentsize = is64 ? eh64->e_shentsize : eh32->e_shentsize;
    unsigned shnum = is64 ? eh64->e_shnum : eh32->e_shnum;
    uint64_t shoff = is64 ? eh64->e_shoff : eh32->e_shoff;
    if (machine != (is64 ? EM_X86_64 : EM_386) || shentsize != shdr_size || shoff + (uint64_t)shnum * shdr_size > n)
        return 0;
    size_t total = 0;
    for (unsigned k = 0; k < shnum; k++) {
        const Elf64_Shdr *sh64 = (const void *)(f + shoff + k * shdr_size);
        const Elf32_Shdr *sh32 = (const void *)(f + shoff + k * shdr_size);
        uint32_t type = is64 ? sh64->sh_type : sh32->sh_type;
        uint64_t flags = is64 ? sh64->sh_flags : sh32->sh_flags;
        uint64_t offset = is64 ? sh64->sh_offset : sh32->sh_offset;
        uint64_t size = is64 ? sh64->sh_size : sh32->sh_size;
        if (type != SHT_PROGBITS || !(flags & SHF_EXECINSTR) || offset + size > n)
            continue;
        sweep(f + offset, size, is64 ? FWPT_MODE_64 : FWPT_MODE_32, s);
        total += size;
    }
    return total;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }

/* Executable sections of a PE32/PE32+ or TE image (UEFI PI Vol. 1 "TE Image"). */
static size_t sweep_pe(const uint8_t *f, size_t n, struct stats *s, enum fwpt_exec_mode *mode_out)
{
    size_t sect, nsect, adjust = 0;
    uint16_t machine;
    if (n >= 40 && f[0] == 'V' && f[1] == 'Z') {
        machine = rd16(f + 2);
        nsect = f[4];
        sect = 40;
        adjust = (size_t)rd16(f + 6) - 40; /* StrippedSize: raw offsets are of the original PE */
    } else if (n >= 0x40 && f[0] == 'M' && f[1] == 'Z') {
        uint32_t pe = rd32(f + 0x3c);
        if ((size_t)pe + 24 > n || memcmp(f + pe, "PE\0\0", 4) != 0)
            return 0;
        machine = rd16(f + pe + 4);
        nsect = rd16(f + pe + 6);
        sect = pe + 24 + rd16(f + pe + 20);
    } else {
        return 0;
    }
    enum fwpt_exec_mode mode = machine == 0x8664 ? FWPT_MODE_64 : machine == 0x14c ? FWPT_MODE_32
                                                                                   : FWPT_MODE_UNKNOWN;
    if (mode == FWPT_MODE_UNKNOWN)
        return 0;
    *mode_out = mode;
    size_t total = 0;
    for (size_t k = 0; k < nsect && sect + 40 * (k + 1) <= n; k++) {
        const uint8_t *sh = f + sect + 40 * k;
        uint32_t vsize = rd32(sh + 8), rsize = rd32(sh + 16), roff = rd32(sh + 20), ch = rd32(sh + 36);
        if (!(ch & 0x20000000u) && !(ch & 0x20u)) /* IMAGE_SCN_MEM_EXECUTE / CNT_CODE */
            continue;
        size_t size = vsize && vsize < rsize ? vsize : rsize;
        if (roff < adjust || roff - adjust + (size_t)size > n)
            continue;
        sweep(f + roff - adjust, size, mode, s);
        total += size;
    }
    return total;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted regular file names in dir. */
static char **list_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    *count = 0;
    if (!d)
        return NULL;
    size_t cap = 256;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*count == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        names[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, *count, sizeof *names, cmp_str);
    return names;
}

/* The files of dir in name order: each that take(k, count, files, bytes) allows is read and given to sweep (the
 * code bytes it swept, 0 when the file holds no code of its kind); *files counts those with code, *bytes their
 * code. */
struct dir_sweep {
    bool (*take)(size_t k, size_t count, size_t files, size_t bytes);
    size_t (*sweep)(const uint8_t *f, size_t n, void *ctx);
    void *ctx;
    size_t files, bytes;
};
static void sweep_dir(const char *dir, struct dir_sweep *w)
{
    size_t count;
    char **names = list_dir(dir, &count);
    for (size_t k = 0; k < count; k++) {
        if (w->take(k, count, w->files, w->bytes)) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, names[k]);
            size_t n;
            uint8_t *f = read_file(path, &n);
            if (f) {
                size_t b = w->sweep(f, n, w->ctx);
                w->files += b != 0;
                w->bytes += b;
                free(f);
            }
        }
        free(names[k]);
    }
    free(names);
}

/* Every k-th file, up to 40 files and 24 MB of code: bounded time, varied compilers. */
static bool take_usr_bin(size_t k, size_t count, size_t files, size_t bytes)
{
    size_t step = count / 40 ? count / 40 : 1;
    return k % step == 0 && files < 40 && bytes < (24u << 20);
}
static size_t sweep_elf64(const uint8_t *f, size_t n, void *s) { return sweep_elf(f, n, ELFCLASS64, s); }

/* real 64-bit code: a linear sweep of /usr/bin ELF .text */
TEST(usr_bin_elf64)
{
    if (!need_zydis())
        return;
    clock_t t0 = clock();
    struct stats s = {0};
    struct dir_sweep w = {take_usr_bin, sweep_elf64, &s, 0, 0};
    sweep_dir("/usr/bin", &w);
    printf("usr/bin: %zu ELF files, %zu code bytes, %lu instructions compared, %lu mismatched, "
           "%lu positions Zydis refused (fwpt also refused %lu)\n",
           w.files, w.bytes, s.compared, s.mismatched, s.zy_invalid, s.both_invalid);
    CHECK(w.files >= 10);
    CHECK(s.compared > 1000000);
    CHECK_EQ(s.mismatched, 0);
    printf("time: usr/bin %.1fs\n", secs_since(t0));
}

static bool take_lib32(size_t k, size_t count, size_t files, size_t bytes)
{
    (void)k, (void)count, (void)files;
    return bytes < (8u << 20);
}
static size_t sweep_elf32(const uint8_t *f, size_t n, void *s) { return sweep_elf(f, n, ELFCLASS32, s); }

/* 32-bit: the i386 libraries in /usr/lib32. 16-bit: SeaBIOS' image (real-mode code mixed with
 * data; both decoders see the same bytes, so every position Zydis decodes is a fair comparison). */
TEST(lib32_elf32_and_seabios_16bit)
{
    if (!need_zydis())
        return;
    clock_t t0 = clock();
    struct stats s32 = {0}, s16 = {0};
    struct dir_sweep w = {take_lib32, sweep_elf32, &s32, 0, 0};
    sweep_dir("/usr/lib32", &w);
    printf("lib32: %zu ELF32 files, %zu code bytes, %lu instructions compared, %lu mismatched, "
           "%lu positions Zydis refused (fwpt also refused %lu)\n",
           w.files, w.bytes, s32.compared, s32.mismatched, s32.zy_invalid, s32.both_invalid);
    CHECK_EQ(s32.mismatched, 0);
    CHECK(w.files == 0 || s32.compared > 1000); /* files found but nothing compared: the sweep did not run */
    size_t n = 0;
    uint8_t *bios = read_file("/usr/share/seabios/bios-256k.bin", &n);
    if (bios) {
        size_t seg = n >= 0x10000 ? 0x10000 : n; /* the F000 segment: the real-mode BIOS */
        sweep(bios + n - seg, seg, FWPT_MODE_16, &s16);
        free(bios);
        printf("seabios: %zu bytes in 16-bit mode, %lu instructions compared, %lu mismatched, "
               "%lu positions Zydis refused (fwpt also refused %lu)\n",
               seg, s16.compared, s16.mismatched, s16.zy_invalid, s16.both_invalid);
        CHECK_EQ(s16.mismatched, 0);
        CHECK(s16.compared > 10000); /* 24119 on SeaBIOS 1.16 */
    } else {
        printf("seabios: /usr/share/seabios/bios-256k.bin not found, 16-bit real code skipped\n");
    }
    printf("time: lib32+seabios %.1fs\n", secs_since(t0));
}

static bool take_all(size_t k, size_t count, size_t files, size_t bytes)
{
    (void)k, (void)count, (void)files, (void)bytes;
    return true;
}
/* A PE/TE image's code, counted by its mode: s is struct stats[2] (64-bit, 32-bit). */
static size_t sweep_pe_by_mode(const uint8_t *f, size_t n, void *s)
{
    enum fwpt_exec_mode mode = FWPT_MODE_64;
    struct stats t = {0};
    size_t b = sweep_pe(f, n, &t, &mode);
    struct stats *d = (struct stats *)s + (mode == FWPT_MODE_64 ? 0 : 1);
    d->compared += t.compared;
    d->mismatched += t.mismatched;
    d->zy_invalid += t.zy_invalid;
    d->both_invalid += t.both_invalid;
    return b;
}

/* real firmware code: every PE/TE image in OVMF.fd, each in its own mode */
TEST(ovmf_images)
{
    if (!need_zydis())
        return;
    clock_t t0 = clock();
    const char *build = getenv("FWPT_BUILD");
    char dir[4096], cmd[8192];
    snprintf(dir, sizeof dir, "%s/ovmf-images", build && *build ? build : "build");
    snprintf(cmd, sizeof cmd, "python3 tests/oracle/ovmf_extract.py /usr/share/ovmf/OVMF.fd '%s' >/dev/null", dir);
    int rc = system(cmd);
    CHECK_EQ(rc, 0);
    struct stats s[2] = {{0}, {0}};
    struct dir_sweep w = {take_all, sweep_pe_by_mode, s, 0, 0};
    sweep_dir(dir, &w);
    printf("OVMF: %zu PE/TE images, %zu code bytes, %lu instructions compared (64-bit %lu, 32-bit %lu), "
           "%lu mismatched, %lu positions Zydis refused (fwpt also refused %lu)\n",
           w.files, w.bytes, s[0].compared + s[1].compared, s[0].compared, s[1].compared,
           s[0].mismatched + s[1].mismatched, s[0].zy_invalid + s[1].zy_invalid,
           s[0].both_invalid + s[1].both_invalid);
    CHECK(w.files >= 50);
    CHECK(s[0].compared + s[1].compared > 200000);
    CHECK_EQ(s[0].mismatched + s[1].mismatched, 0);
    printf("time: ovmf %.1fs\n", secs_since(t0));
}

/* ---- random and biased byte strings ---- */

static uint64_t rng_state;
static inline uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static const uint8_t legacy_prefixes[] = {0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x3e, 0x26, 0x64, 0x65, 0x36};

/* Random prefixes, then an opcode from one of the maps/encodings, then random ModRM/SIB/disp/imm. */
static void gen_biased(uint8_t *b, enum fwpt_exec_mode mode)
{
    for (int k = 0; k < 16; k++)
        b[k] = (uint8_t)rnd();
    uint64_t r = rnd();
    unsigned i = 0, np = r & 3;
    r >>= 2;
    if ((r & 3) == 0)
        np = 0;
    r >>= 2;
    for (unsigned k = 0; k < np; k++) {
        b[i++] = legacy_prefixes[r % sizeof legacy_prefixes];
        r >>= 4;
    }
    if (mode == FWPT_MODE_64 && (r & 1)) {
        if (((r >> 5) & 3) == 0) { /* REX2 and a random payload (map 0 or 1) and opcode */
            b[i++] = 0xd5;
            return;
        }
        b[i++] = (uint8_t)(0x40 | ((r >> 1) & 15));
    }
    r = rnd();
    switch (r % 10) {
    case 0: case 1: case 2: /* one-byte map: rest is random */
        break;
    case 3: case 4:
        b[i++] = 0x0f;
        break;
    case 5:
        b[i++] = 0x0f;
        b[i++] = 0x38;
        break;
    case 6:
        b[i++] = 0x0f;
        b[i++] = 0x3a;
        break;
    case 7: /* VEX2 / VEX3 with a valid map */
        if (r & 16) {
            b[i++] = 0xc5;
            b[i] |= mode == FWPT_MODE_64 ? 0 : 0xc0;
        } else {
            b[i++] = 0xc4;
            b[i] = (uint8_t)((b[i] & 0xe0) | (1 + (r >> 8) % 3)) | (mode == FWPT_MODE_64 ? 0 : 0xc0);
        }
        break;
    case 8: /* EVEX with the fixed bits right */
        b[i++] = 0x62;
        b[i] = (uint8_t)((b[i] & 0xf0) | ((r >> 8) & 1 ? 1 + (r >> 9) % 3 : 5 + (r >> 9) % 2));
        b[i] |= mode == FWPT_MODE_64 ? 0 : 0xc0;
        b[i + 1] |= 4;
        break;
    default: /* XOP or 3DNow! */
        if (r & 16) {
            b[i++] = 0x8f;
            b[i] = (uint8_t)((b[i] & 0xe0) | (8 + (r >> 8) % 3));
        } else {
            b[i++] = 0x0f;
            b[i++] = 0x0f;
        }
        break;
    }
}

struct vkey { unsigned long count; uint8_t bytes[16]; };

/* random and biased byte strings in 64-, 32- and 16-bit mode (FWPT_INSN_RANDOM of each per mode, 8000000) */
TEST(random_strings)
{
    if (!need_zydis())
        return;
    clock_t t0 = clock();
    const char *nr = getenv("FWPT_INSN_RANDOM");
    unsigned long per_mode_random = nr ? strtoul(nr, NULL, 0) : 8000000, per_mode_biased = per_mode_random;
    static const enum fwpt_exec_mode modes[3] = {FWPT_MODE_64, FWPT_MODE_32, FWPT_MODE_16};
    struct stats all = {0};
    for (int m = 0; m < 3; m++) {
        struct stats s = {0};
        uint8_t b[48];
        rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)modes[m];
        for (unsigned long k = 0; k < per_mode_random + per_mode_biased; k++) {
            if (k < per_mode_random) {
                uint64_t r0 = rnd(), r1 = rnd();
                memcpy(b, &r0, 8);
                memcpy(b + 8, &r1, 8);
            } else {
                gen_biased(b, modes[m]);
            }
            /* 16 bytes: the bounds-checked path; 48 (odd k, rest random): the roomy path. */
            if (k & 1)
                for (int j = 16; j < 48; j += 8) {
                    uint64_t r = rnd();
                    memcpy(b + j, &r, 8);
                }
            compare_one(b, k & 1 ? 48 : 16, modes[m], &s);
        }
        printf("random %d-bit: %lu strings, %lu decodable by Zydis compared, %lu mismatched; "
               "Zydis-invalid %lu, fwpt also invalid %lu (%.2f%%)\n",
               modes[m], per_mode_random + per_mode_biased, s.compared, s.mismatched, s.zy_invalid,
               s.both_invalid, s.zy_invalid ? 100.0 * s.both_invalid / s.zy_invalid : 100.0);
        all.compared += s.compared;
        all.mismatched += s.mismatched;
        all.zy_invalid += s.zy_invalid;
        all.both_invalid += s.both_invalid;
        all.knc += s.knc;
        all.fred += s.fred;
        all.rex2 += s.rex2;
        all.rex2_open += s.rex2_open;
    }
    printf("random: encodings Zydis 4.0 does not know, checked on their own: %lu FRED ERETU/ERETS, "
           "%lu REX2 (against the REX form; %lu more whose REX form Zydis refuses too)\n",
           all.fred, all.rex2, all.rex2_open);
    CHECK(all.rex2 > per_mode_biased / 50); /* about one in ten 64-bit biased strings */
    unsigned long total = all.compared + all.zy_invalid;
    printf("random: %lu Xeon Phi (KNC/MVEX) encodings Zydis decodes were not compared\n", all.knc);
    double validity = 100.0 * (all.compared + all.both_invalid) / (double)total;
    printf("random total: %lu strings, %lu compared, %lu mismatched; validity agreement %.2f%% "
           "(Zydis-invalid %lu, fwpt agrees on %lu)\n",
           total, all.compared, all.mismatched, validity, all.zy_invalid, all.both_invalid);
    CHECK_EQ(all.mismatched, 0);
    CHECK(all.compared > total / 3);
    /* Validity is best effort (fwpt accepts some encodings Zydis refuses); keep the measured floor. */
    CHECK(validity > 96.0);
    printf("time: random %.1fs\n", secs_since(t0));
}

/* Truncation: every prefix of a decodable instruction is FWPT_E_TRUNCATED, never OK. */
TEST(truncation)
{
    if (!need_zydis())
        return;
    static const enum fwpt_exec_mode modes[3] = {FWPT_MODE_64, FWPT_MODE_32, FWPT_MODE_16};
    unsigned long bad = 0, checked = 0;
    rng_state = 12345;
    for (int m = 0; m < 3; m++) {
        for (int k = 0; k < 100000; k++) {
            uint8_t b[16];
            struct fwpt_insn fi;
            gen_biased(b, modes[m]);
            if (fwpt_insn_decode(b, 16, modes[m], &fi) != FWPT_OK)
                continue;
            for (unsigned n = 0; n < fi.size; n++) {
                struct fwpt_insn t;
                enum fwpt_status st = fwpt_insn_decode(b, n, modes[m], &t);
                checked++;
                if (st != FWPT_E_TRUNCATED) {
                    if (++bad < 10)
                        dump("TRUNC", b, fi.size, modes[m], NULL, &t, st);
                }
            }
        }
    }
    printf("truncation: %lu short buffers checked, %lu not reported as truncated\n", checked, bad);
    CHECK(checked > 100000);
    CHECK_EQ(bad, 0);
}

/* FRED ERETU/ERETS with prefixes around them: random strings hit them about once. */
TEST(fred_encodings)
{
    if (!need_zydis())
        return;
    static const uint8_t forms[][8] = {
        {4, 0xf3, 0x0f, 0x01, 0xca},       {4, 0xf2, 0x0f, 0x01, 0xca},
        {5, 0x66, 0xf3, 0x0f, 0x01, 0xca}, {5, 0xf3, 0x48, 0x0f, 0x01, 0xca},
        {5, 0xf2, 0xf3, 0x0f, 0x01, 0xca}, {7, 0x2e, 0xf3, 0xf2, 0x41, 0x0f, 0x01, 0xca},
        {6, 0x3e, 0xf2, 0xf0, 0x0f, 0x01, 0xca}, /* LOCK: #UD */
    };
    struct stats s = {0};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
        compare_one(forms[k] + 1, forms[k][0], FWPT_MODE_64, &s);
    CHECK_EQ(s.fred, sizeof forms / sizeof forms[0]);
    CHECK_EQ(s.mismatched, 0);
}

TEST_MAIN("insn_zydis")
