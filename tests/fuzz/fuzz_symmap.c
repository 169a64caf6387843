/* libFuzzer: the symbol matching of --symbols (tools/symmap.c) and its own readers of untrusted text: EDK2's
 * Guid.xref ("GUID NAME" lines), an as-built INF ("FILE_GUID = ..."), a NAME_GUID.debug file name, sideband.json's
 * image keys (pdb: the CodeView path and its suffix comparison; path: FvFile(GUID); fv_guid; pdb_guid/pdb_age;
 * code_crc32) and the byte check (the ELF file's executable sections against the traced image, the relocated-pointer
 * rule). The input is split at each "\n==\n" into parts, written into a scratch tree of fixed names:
 *   0 SYM/Build/FV/Guid.xref
 *   1 SYM/Build/X64/FatPkg/EnhancedFatDxe/Fat/OUTPUT/Fat.inf
 *   2 RUN/sideband.json (its images' "file" is read from RUN; the traced image's bytes are RUN/img.bin)
 *   3 a file name: SYM/Build/X64/FatPkg/EnhancedFatDxe/Fat/DEBUG/PART3.debug ('/' and NUL read as '_')
 *   4 the BASE of a second argument SYM/.../DEBUG/Fat.debug@BASE (none when empty)
 *   5 patches over RUN/img.bin, 3 bytes each (offset low and high, value)
 * The candidates (Fat.debug and PART3.debug) are the seed tiny-dwarf.so of fuzz_symbols (built in with .incbin);
 * RUN/img.bin is its first 8 KB (a shared object linked at 0: its file offsets are its addresses), so the byte check
 * agrees unless part 5 changes its code. Then, as `fwpt flow --symbols SYM` does (tools/cmd_flow.c): the images of
 * sideband.json (none with a bad value, else the run stops), fwpt_symmap_match, the resolver over every matched
 * image, fwpt_symmap_file, fwpt_symmap_summary, fwpt_symmap_free. Seeds: tests/fuzz/seeds/symmap/ (a real Guid.xref
 * line, the as-built INF EDK2 writes, a real OVMF CodeView path and image record), words in symmap.dict.
 * Checks: no crash, no hang, no leak; the messages lines beginning "fuzz: " (the summary "names: "); a match's
 * file is one of the candidates and its "how" one of the six; the resolver's answers the same twice, an entry never
 * above its address, nothing known outside the matched images. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/sideband.h"
#include "tools/symmap.h"

__asm__(".section .rodata\n.balign 16\nseed_elf:\n.incbin \"tests/fuzz/seeds/symbols/tiny-dwarf.so\"\n"
        "seed_elf_end:\n.previous\n");
extern const uint8_t seed_elf[], seed_elf_end[];

#define IMG_SIZE 0x2000

static char root[64], sym[128], run[128], mod[256], xref_path[256], inf_path[256], debug_path[256],
    sb_path[256], img_path[256];

static void sh_rm(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_symmap: could not remove %s\n", root);
}

static void put(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(root, sizeof root, "/tmp/fuzz_symmap.XXXXXX");
    if (!mkdtemp(root))
        abort();
    atexit(sh_rm);
    snprintf(sym, sizeof sym, "%s/sym", root);
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(mod, sizeof mod, "%s/Build/X64/FatPkg/EnhancedFatDxe/Fat", sym);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/OUTPUT' '%s/DEBUG' '%s/Build/FV' '%s'", mod, mod, sym, run);
    if (system(cmd) != 0)
        abort();
    snprintf(xref_path, sizeof xref_path, "%s/Build/FV/Guid.xref", sym);
    snprintf(inf_path, sizeof inf_path, "%s/OUTPUT/Fat.inf", mod);
    snprintf(debug_path, sizeof debug_path, "%s/DEBUG/Fat.debug", mod);
    snprintf(sb_path, sizeof sb_path, "%s/sideband.json", run);
    snprintf(img_path, sizeof img_path, "%s/img.bin", run);
    put(debug_path, seed_elf, (size_t)(seed_elf_end - seed_elf));
    return 0;
}

struct images {
    struct fwpt_symmap_image v[16];
    char *pdb[16], *fv[16], *name[16];
    uint8_t *code[16];
    size_t n;
    int bad;
};

static int each_image(void *ctx, const struct fwpt_sideband_image *s)
{
    struct images *im = ctx;
    if (s->bad_key) {
        im->bad++;
        return 0;
    }
    if (im->n == 16) { /* enough: the rest are more of the same */
        free(s->code);
        return 0;
    }
    size_t k = im->n++;
    im->name[k] = strdup(s->name);
    im->pdb[k] = strdup(s->pdb);
    im->fv[k] = strdup(s->fv_guid);
    im->code[k] = s->code;
    im->v[k] = (struct fwpt_symmap_image){im->name[k], s->base, s->size, s->code, s->code_size, im->pdb[k], im->fv[k]};
    return 0;
}

static void check_answer(const struct fwpt_resolver *r, uint64_t a, int known)
{
    struct fwpt_resolved x, y;
    int k1 = r->resolve ? r->resolve(r->ctx, a, &x) : 0, k2 = r->resolve ? r->resolve(r->ctx, a, &y) : 0;
    if (!r->resolve)
        return;
    if (k1 != k2 || x.function != y.function || x.file != y.file || x.line != y.line || x.inlined != y.inlined)
        abort(); /* the second answer is the first */
    if (!known && k1)
        abort(); /* outside every matched image nothing is known */
    if (k1 && x.function && x.function_entry > a)
        abort();
    if (x.function)
        (void)strlen(x.function);
    if (x.file)
        (void)strlen(x.file);
}

static const char *next_part(const char **p, const char *end, size_t *n)
{
    const char *s = *p;
    if (!s)
        return *n = 0, "";
    const char *e = memmem(s, (size_t)(end - s), "\n==\n", 4);
    if (e) {
        *n = (size_t)(e - s);
        *p = e + 4;
    } else {
        *n = (size_t)(end - s);
        *p = NULL;
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size, *part[6];
    size_t len[6];
    for (int i = 0; i < 6; i++)
        part[i] = next_part(&p, end, &len[i]);

    put(xref_path, part[0], len[0]);
    put(inf_path, part[1], len[1]);
    char *sb = malloc(len[2] + 1);
    memcpy(sb, part[2], len[2]);
    sb[len[2]] = 0;
    put(sb_path, sb, len[2]);
    char named[512] = "";
    if (len[3]) {
        size_t n = len[3] < 200 ? len[3] : 200, o = (size_t)snprintf(named, sizeof named, "%s/DEBUG/", mod);
        for (size_t i = 0; i < n; i++)
            named[o + i] = part[3][i] == '/' || !part[3][i] ? '_' : part[3][i];
        memcpy(named + o + n, ".debug", 7);
        put(named, seed_elf, (size_t)(seed_elf_end - seed_elf));
    }
    char at[300] = "";
    if (len[4])
        snprintf(at, sizeof at, "%s@%.*s", debug_path, (int)(len[4] < 64 ? len[4] : 64), part[4]);
    if (strlen(at) != strlen(debug_path) + 1 + (len[4] < 64 ? len[4] : 64))
        at[0] = 0; /* a NUL in the base: the argument would be another text */
    uint8_t img[IMG_SIZE] = {0};
    size_t seed_n = (size_t)(seed_elf_end - seed_elf);
    memcpy(img, seed_elf, seed_n < IMG_SIZE ? seed_n : IMG_SIZE);
    for (size_t i = 0; i + 3 <= len[5] && i < 3 * 64; i += 3)
        img[((uint8_t)part[5][i] | (uint8_t)part[5][i + 1] << 8) % IMG_SIZE] = (uint8_t)part[5][i + 2];
    put(img_path, img, sizeof img);

    struct images im = {0};
    int rc = fwpt_sideband_images(sb, run, each_image, &im);
    if (getenv("FUZZ_SYMMAP_SHOW"))
        fprintf(stderr, "images: %d, %zu, %d bad\n", rc, im.n, im.bad);
    if (rc == 0 && !im.bad) { /* fwpt flow stops on a bad value before the names */
        char *msgs = NULL;
        size_t msgs_len = 0;
        FILE *msg = open_memstream(&msgs, &msgs_len);
        if (!msg)
            abort();
        struct fwpt_symmap *m = fwpt_symmap_new("fuzz", msg, 0);
        const char *args[2] = {sym, at};
        fwpt_symmap_match(m, args, at[0] ? 2 : 1, im.v, im.n);
        struct fwpt_resolver r = fwpt_symmap_resolver(m);
        static const char *const hows[] = {"CodeView path", "FV file GUID", "name", "code bytes", "PDB GUID/age",
                                           "FILE@BASE"};
        uint64_t lowest = UINT64_MAX;
        for (size_t i = 0; i < im.n; i++) {
            const char *how = NULL, *file = fwpt_symmap_file(m, i, &how);
            if (!file)
                continue;
            if (strcmp(file, debug_path) && strcmp(file, named))
                abort(); /* one of the candidates */
            size_t h = 0;
            while (h < 6 && strcmp(how, hows[h]))
                h++;
            if (h == 6)
                abort();
            const struct fwpt_symmap_image *v = &im.v[i];
            if (v->base < lowest)
                lowest = v->base;
            for (uint64_t a = v->base; a - v->base < v->size && a - v->base < 0x400; a += 3)
                check_answer(&r, a, 1);
            /* matched by what the trace recorded, alone at its addresses: the seed's .text (0x220..0x27e) answers */
            int alone = 1;
            for (size_t j = 0; j < im.n; j++)
                alone &= j == i || im.v[j].base >= v->base + v->size || v->base >= im.v[j].base + im.v[j].size;
            struct fwpt_resolved x;
            if (h != 5 && alone && v->size > 0x27e && v->base + v->size > v->base &&
                !(r.resolve && r.resolve(r.ctx, v->base + 0x230, &x)))
                abort();
            if (h != 5 && v->size > 0x27e && v->base + 0x230 < v->base)
                abort(); /* matched, but its addresses pass 2^64: what could answer? */
        }
        if (lowest != UINT64_MAX && lowest) {
            int inside = 0; /* images may overlap: base - 1 may be inside another one */
            for (size_t i = 0; i < im.n; i++)
                inside |= im.v[i].base <= lowest - 1 && lowest - 1 - im.v[i].base < im.v[i].size;
            if (!inside)
                check_answer(&r, lowest - 1, 0);
        }
        fwpt_symmap_summary(m);
        fwpt_symmap_free(m);
        if (fclose(msg) != 0)
            abort();
        if (msgs_len && ((strncmp(msgs, "fuzz: ", 6) && strncmp(msgs, "names: ", 7)) || msgs[msgs_len - 1] != '\n'))
            abort(); /* messages are lines of the command's (names and paths may hold a newline themselves) */
        if (getenv("FUZZ_SYMMAP_SHOW")) /* what the run said, to look at a seed */
            fputs(msgs ? msgs : "", stderr);
        free(msgs);
    }
    for (size_t i = 0; i < im.n; i++)
        free(im.name[i]), free(im.pdb[i]), free(im.fv[i]), free(im.code[i]);
    free(sb);
    if (named[0])
        unlink(named);
    return 0;
}
