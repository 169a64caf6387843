/* test_symbols_pdb: the PDB resolver (tools/symbols_pdb.c) on build/pdbdemo.efi + build/pdbdemo.pdb (tests/pdb.mk:
 * clang -gcodeview, lld-link /debug), the image loaded by hand (sections at their RVAs) at a base that is not 0.
 * Referees, read here from llvm-pdbutil's dumps and the PE file itself:
 * - every byte of every procedure (S_GPROC32/S_LPROC32 of `llvm-pdbutil dump --symbols`: segment:offset, code
 *   size, with the section's RVA from the PE's section table) resolves to that procedure's name and entry;
 * - file:line is the function's line table (`llvm-pdbutil dump --l`): the row at the greatest offset at or below
 *   the address, the block's first row before it (clang writes no row of the caller over code it inlined; the
 *   first row is the call's line), any of the rows when several share that offset;
 * - inlined exactly on the code ranges of S_INLINESITE records (their binary annotations' code offsets);
 * - the image's CodeView entry against the PDB's signature (`llvm-pdbutil dump --summary`, llvm-readobj's RSDS);
 * Refusals: another build's PDB (pdbdemo-changed.pdb: one function changed), not a PDB, missing, cut short, an
 * image without CodeView entry, a missing llvm-symbolizer or llvm-pdbutil, a helper that stops answering. */
#include "tests/check.h"
#include "tests/common/pdbutil.h"
#include "tests/common/pe_load.h"
#include "tests/common/scratch.h"
#include "tests/common/tool_run.h"
#include "tools/symbols_pdb.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BASE 0x7f3a2000ull /* a load address: page aligned, not 0, not the PE's ImageBase */

static const char *scratch(void)
{
    return scratch_dir("fwpt-pdb-test");
}

static void cleanup(void)
{
    scratch_remove("test_symbols_pdb");
}

/* ---- llvm-pdbutil's dumps, read here as the referee ---- */

struct site {
    uint32_t start, end; /* RVAs of its code (first code offset .. code end) */
};

struct proc {
    char name[128];
    uint32_t rva, size;
    struct site sites[8];
    unsigned nsites;
};

struct block {
    uint32_t start, end; /* RVAs */
    char file[512];
    unsigned nrows;
    struct { uint32_t rva; unsigned line; } rows[64];
};

static struct proc procs[64];
static unsigned nprocs;
static struct block blocks[64];
static unsigned nblocks;
static struct pe demo;
static int referee_read;

/* Reads the referee once: 0 when something is missing (said loudly). */
static int referee(void)
{
    if (referee_read)
        return referee_read > 0;
    referee_read = -1;
    char efi[600], pdb[600], args[1400], line[1024];
    snprintf(efi, sizeof efi, "%s/pdbdemo.efi", build_dir());
    snprintf(pdb, sizeof pdb, "%s/pdbdemo.pdb", build_dir());
    if (!load_pe(efi, &demo) || access(pdb, R_OK) != 0) {
        fprintf(stderr, "test_symbols_pdb: NOT RUN: no %s or %s (make %s)\n", efi, pdb, efi);
        return 0;
    }
    snprintf(args, sizeof args, "dump --symbols '%s'", pdb);
    FILE *p = pdbutil_popen(args);
    struct proc *cur = NULL;
    int in_site = 0;
    while (p && fgets(line, sizeof line, p)) {
        char name[256];
        unsigned seg, off, size, code;
        const char *q;
        if (strstr(line, "| S_GPROC32 ") || strstr(line, "| S_LPROC32 ")) {
            q = strchr(line, '`');
            if (q && sscanf(q + 1, "%255[^`]", name) == 1 && nprocs < 64) {
                cur = &procs[nprocs++];
                snprintf(cur->name, sizeof cur->name, "%.127s", name);
            }
        } else if (cur && !cur->size && (q = strstr(line, "addr = ")) &&
                   sscanf(q, "addr = %u:%u, code size = %u", &seg, &off, &size) == 3) {
            cur->rva = demo.sec[seg - 1].rva + off; /* the section's RVA from the PE */
            cur->size = size;
        } else if (cur && strstr(line, "| S_INLINESITE ") && cur->nsites < 8) {
            in_site = 1;
            cur->sites[cur->nsites++] = (struct site){UINT32_MAX, 0};
        } else if (in_site && (q = strstr(line, "code end 0x"))) {
            cur->sites[cur->nsites - 1].end = cur->rva + (uint32_t)strtoul(q + 9, NULL, 16);
            in_site = 0;
        } else if (in_site && (q = strstr(line, "code 0x")) && sscanf(q, "code 0x%x", &code) == 1) {
            struct site *s = &cur->sites[cur->nsites - 1];
            if (cur->rva + code < s->start)
                s->start = cur->rva + code;
        }
    }
    if (p)
        pclose(p);
    snprintf(args, sizeof args, "dump --l '%s'", pdb);
    p = pdbutil_popen(args);
    char file[512] = "";
    struct block *b = NULL;
    uint32_t seg_rva = 0;
    while (p && fgets(line, sizeof line, p)) {
        unsigned seg, s0, s1, ln, at;
        char *md5 = strstr(line, " (MD5: ");
        if (line[0] == '/' && md5) {
            *md5 = 0;
            snprintf(file, sizeof file, "%.511s", line);
        } else if (sscanf(line, " %x:%x-%x, line/addr entries", &seg, &s0, &s1) == 3 && nblocks < 64) {
            b = &blocks[nblocks++];
            seg_rva = demo.sec[seg - 1].rva;
            b->start = demo.sec[seg - 1].rva + s0;
            b->end = demo.sec[seg - 1].rva + s1;
            snprintf(b->file, sizeof b->file, "%s", file);
        } else if (b) {
            char *t = line;
            int used;
            while (sscanf(t, " %u %x !%n", &ln, &at, &used) == 2 && b->nrows < 64) {
                b->rows[b->nrows].rva = seg_rva + at; /* offsets in the section */
                b->rows[b->nrows++].line = ln;
                t += used;
            }
        }
    }
    if (p)
        pclose(p);
    if (nprocs < 5 || nblocks < 5) {
        fprintf(stderr, "test_symbols_pdb: NOT RUN: llvm-pdbutil listed %u procedures and %u line blocks of %s\n",
                nprocs, nblocks, pdb);
        return 0;
    }
    referee_read = 1;
    return 1;
}

/* A case that needs the referee: one check that it was read, else the case ends there. */
#define NEED_REFEREE()                                                                                                 \
    do {                                                                                                               \
        CHECK(referee());                                                                                              \
        if (!referee())                                                                                                \
            return;                                                                                                    \
    } while (0)

/* The line-table answer for rva: 0 when no block holds it; *nlines candidates into lines[]. */
static unsigned table_lines(uint32_t rva, const char **file, unsigned lines[8])
{
    for (unsigned i = 0; i < nblocks; i++) {
        struct block *b = &blocks[i];
        if (rva < b->start || rva >= b->end || !b->nrows)
            continue;
        *file = b->file;
        uint32_t best = 0;
        int found = 0;
        for (unsigned k = 0; k < b->nrows; k++)
            if (b->rows[k].rva <= rva && (!found || b->rows[k].rva >= best))
                best = b->rows[k].rva, found = 1;
        unsigned n = 0;
        if (!found) {
            lines[n++] = b->rows[0].line; /* before the first row: the call's line */
            return n;
        }
        for (unsigned k = 0; k < b->nrows && n < 8; k++)
            if (b->rows[k].rva == best)
                lines[n++] = b->rows[k].line;
        return n;
    }
    return 0;
}

static struct fwpt_symbols_pdb *open_demo(const char *pdb_name, uint64_t base)
{
    char pdb[600], err[600];
    snprintf(pdb, sizeof pdb, "%s/%s", build_dir(), pdb_name);
    struct fwpt_symbols_pdb *s = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    enum fwpt_status st = fwpt_symbols_open_pdb(&s, pdb, demo.image, demo.size, base, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("symbols_pdb: opened %s in %.1f ms\n", pdb,
           (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    CHECK_EQ(st, FWPT_OK);
    if (st != FWPT_OK)
        fprintf(stderr, "test_symbols_pdb: %s\n", err);
    return s;
}

TEST(every_byte_as_pdbutil)
{
    CHECK(referee());
    struct fwpt_symbols_pdb *s = referee() ? open_demo("pdbdemo.pdb", BASE) : NULL;
    if (!s)
        return;
    struct fwpt_resolver r = fwpt_symbols_pdb_resolver(s);
    unsigned bytes = 0, inl = 0, several = 0, bad = 0, sites = 0;
    uint64_t ns = 0;
    for (unsigned i = 0; i < nprocs; i++) {
        struct proc *p = &procs[i];
        sites += p->nsites;
        for (uint32_t rva = p->rva; rva < p->rva + p->size; rva++) {
            struct fwpt_resolved a;
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int known = fwpt_resolve(&r, BASE + rva, &a);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
            CHECK_EQ(known, 1);
            CHECK_STR(a.function, p->name);
            CHECK_EQ(a.function_entry, BASE + p->rva);
            int in_site = 0;
            for (unsigned k = 0; k < p->nsites; k++)
                in_site |= p->sites[k].start <= rva && rva < p->sites[k].end;
            CHECK_EQ(a.inlined, in_site);
            const char *file = NULL;
            unsigned lines[8], n = table_lines(rva, &file, lines), ok = 0;
            CHECK(n > 0);
            for (unsigned k = 0; k < n; k++)
                ok |= a.line == lines[k];
            CHECK(ok);
            CHECK_STR(a.file, file);
            if ((!ok || !a.file || strcmp(a.file, file)) && bad++ < 5)
                fprintf(stderr, "  rva 0x%x (%s): resolver %s:%u, line table %s:%u%s\n", rva, p->name,
                        a.file ? a.file : "(none)", a.line, file ? file : "(none)", n ? lines[0] : 0,
                        n > 1 ? " or another" : "");
            bytes++;
            inl += a.inlined;
            several += n > 1;
        }
    }
    CHECK_EQ(nprocs, 5); /* pdbdemo_leaf, pdbdemo_walk, sum_leaves, efi_main, countdown */
    CHECK_EQ(sites, 2);  /* scramble in pdbdemo_leaf and in pdbdemo_walk */
    CHECK(inl > 40);
    /* asked again: from the cache, the same strings */
    uint64_t cached0, looked0, cached1, looked1;
    size_t funcs;
    fwpt_symbols_pdb_stats(s, &cached0, &looked0, &funcs);
    CHECK_EQ(funcs, nprocs);
    struct fwpt_resolved a1, a2;
    CHECK_EQ(fwpt_resolve(&r, BASE + procs[0].rva, &a1), 1);
    CHECK_EQ(fwpt_resolve(&r, BASE + procs[0].rva, &a2), 1);
    fwpt_symbols_pdb_stats(s, &cached1, &looked1, &funcs);
    CHECK_EQ(looked1, looked0);
    CHECK_EQ(cached1, cached0 + 2);
    CHECK(a1.function == a2.function && a1.file == a2.file && a1.line == a2.line);
    CHECK(fwpt_symbols_pdb_failure(s) == NULL);
    printf("symbols_pdb: %u procedures, %u bytes at 0x%llx: names and entries as llvm-pdbutil --symbols, lines as "
           "--l (%u at an offset with several rows), %u inlined (%u S_INLINESITE); %llu asked of llvm-symbolizer, "
           "%.1f us each\n", nprocs, bytes, (unsigned long long)BASE, several, inl, sites, (unsigned long long)looked1,
           bytes ? ns / 1000.0 / bytes : 0.0);
    fwpt_symbols_pdb_close(s);
}

TEST(outside_the_code_is_not_known)
{
    CHECK(referee());
    struct fwpt_symbols_pdb *s = referee() ? open_demo("pdbdemo.pdb", BASE) : NULL;
    if (!s)
        return;
    struct fwpt_resolver r = fwpt_symbols_pdb_resolver(s);
    struct fwpt_resolved a;
    uint64_t probes[] = {BASE - 1, BASE, BASE + 0x40, BASE + 0xfff, BASE + demo.size, 0};
    for (unsigned k = 0; k < demo.nsec; k++)
        if (!(demo.sec[k].flags & 0x20000000u)) /* .rdata, .data: not code */
            probes[5] = BASE + demo.sec[k].rva;
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        CHECK_EQ(fwpt_resolve(&r, probes[i], &a), 0);
        CHECK(a.function == NULL && a.file == NULL && a.line == 0 && a.function_entry == 0 && a.inlined == 0);
    }
    /* the same PDB at another base: the same names, moved */
    struct fwpt_symbols_pdb *s2 = open_demo("pdbdemo.pdb", 0x100000000ull);
    if (s2) {
        struct fwpt_resolver r2 = fwpt_symbols_pdb_resolver(s2);
        CHECK_EQ(fwpt_resolve(&r2, 0x100000000ull + procs[1].rva + 1, &a), 1);
        CHECK_STR(a.function, procs[1].name);
        CHECK_EQ(a.function_entry, 0x100000000ull + procs[1].rva);
        fwpt_symbols_pdb_close(s2);
    }
    fwpt_symbols_pdb_close(s);
}

/* The image's CodeView entry as llvm-readobj prints it, and the PDB's signature as llvm-pdbutil prints it. */
TEST(codeview_entry)
{
    NEED_REFEREE();
    struct fwpt_codeview cv;
    char err[300], guid[40], line[600], want_guid[64] = "";
    unsigned want_age = 0;
    CHECK_EQ(fwpt_pe_codeview(demo.image, demo.size, &cv, err, sizeof err), 0);
    fwpt_guid_text(cv.guid, guid);
    char args[700];
    snprintf(args, sizeof args, "%s/pdbdemo.pdb", build_dir());
    pdbutil_summary(args, want_guid, sizeof want_guid, &want_age);
    CHECK_STR(guid, want_guid);
    CHECK_EQ(cv.age, want_age);
    CHECK_STR(cv.path, "pdbdemo.pdb"); /* /pdbaltpath:%_PDB% */
    /* the same bytes as llvm-readobj's PDBGUID line */
    snprintf(args, sizeof args, "llvm-readobj-14 --coff-debug-directory '%s/pdbdemo.efi' 2>/dev/null || "
             "llvm-readobj --coff-debug-directory '%s/pdbdemo.efi'", build_dir(), build_dir());
    FILE *p = popen(args, "r");
    unsigned g[16], seen = 0;
    while (p && fgets(line, sizeof line, p)) {
        char *q = strstr(line, "PDBGUID: (");
        if (q && sscanf(q + 10, "%x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x", &g[0], &g[1], &g[2], &g[3], &g[4],
                        &g[5], &g[6], &g[7], &g[8], &g[9], &g[10], &g[11], &g[12], &g[13], &g[14], &g[15]) == 16) {
            seen = 1;
            for (int i = 0; i < 16; i++)
                CHECK_EQ(cv.guid[i], g[i]);
        }
    }
    if (p)
        pclose(p);
    CHECK(seen);
    /* every cut of the image: an answer or a refusal, never a read past the end (ASan would say) */
    size_t ok = 0;
    for (size_t n = 0; n <= demo.size; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, demo.image, n);
        int rc = fwpt_pe_codeview(cut, n, &cv, err, sizeof err);
        ok += rc == 0;
        CHECK(rc == 0 || err[0]);
        free(cut);
    }
    CHECK(ok > 0 && ok < demo.size); /* the whole image reads, the headers alone do not */
}

/* got: the status of an open into *s (read after the call: the arguments are evaluated first). */
static void refused(enum fwpt_status got, enum fwpt_status want, struct fwpt_symbols_pdb **s, const char *err,
                    const char *path, const char *says)
{
    CHECK_EQ(got, want);
    CHECK(*s == NULL);
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, says) != NULL);
    if (!strstr(err, says))
        fprintf(stderr, "  expected \"%s\" in: %s\n", says, err);
    printf("symbols_pdb: refused: %s\n", err);
}

/* pdbdemo-changed.pdb is the PDB of a build with one function changed: the traced pdbdemo.efi refuses it. */
TEST(another_build_refused)
{
    NEED_REFEREE();
    char pdb[600], err[600];
    snprintf(pdb, sizeof pdb, "%s/pdbdemo-changed.pdb", build_dir());
    struct fwpt_symbols_pdb *s = (struct fwpt_symbols_pdb *)&s;
    refused(fwpt_symbols_open_pdb(&s, pdb, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_INVAL, &s, err, pdb,
            "another build's PDB");
    /* with its own image it opens, and its walk is another size */
    char efi[600];
    snprintf(efi, sizeof efi, "%s/pdbdemo-changed.efi", build_dir());
    struct pe changed;
    CHECK(load_pe(efi, &changed));
    CHECK_EQ(fwpt_symbols_open_pdb(&s, pdb, changed.image, changed.size, BASE, err, sizeof err), FWPT_OK);
    if (s) {
        struct fwpt_resolver r = fwpt_symbols_pdb_resolver(s);
        struct fwpt_resolved a;
        CHECK_EQ(fwpt_resolve(&r, BASE + procs[0].rva, &a), 1);
        CHECK_STR(a.function, procs[0].name);
        fwpt_symbols_pdb_close(s);
    }
    free(changed.image);
}

TEST(bad_files_refused)
{
    NEED_REFEREE();
    char path[600], err[600];
    struct fwpt_symbols_pdb *s = (struct fwpt_symbols_pdb *)&s;
    snprintf(path, sizeof path, "%s/no-such.pdb", scratch());
    refused(fwpt_symbols_open_pdb(&s, path, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_IO, &s, err, path,
            "No such file");
    snprintf(path, sizeof path, "%s/pdbdemo.efi", build_dir());
    refused(fwpt_symbols_open_pdb(&s, path, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_INVAL, &s, err, path,
            "not a PDB");
    refused(fwpt_symbols_open_pdb(&s, scratch(), demo.image, demo.size, BASE, err, sizeof err), FWPT_E_INVAL, &s, err,
            scratch(), "not a regular file");
    /* the PDB cut after its first 4 KiB block: llvm-pdbutil fails on it, and says why */
    char src[600];
    snprintf(src, sizeof src, "%s/pdbdemo.pdb", build_dir());
    size_t n;
    uint8_t *pdb = (uint8_t *)slurp(src, &n);
    CHECK(pdb && n > 8192);
    snprintf(path, sizeof path, "%s/cut.pdb", scratch());
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(pdb, 1, 4096, f) == 4096);
    if (f)
        fclose(f);
    refused(fwpt_symbols_open_pdb(&s, path, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_INVAL, &s, err, path,
            "dump failed");
    free(pdb);
    /* an image without a CodeView entry (its bytes zeroed), none at all */
    uint8_t *zero = calloc(1, demo.size);
    refused(fwpt_symbols_open_pdb(&s, src, zero, demo.size, BASE, err, sizeof err), FWPT_E_INVAL, &s, err, src,
            "names no PDB: no PE/COFF image at the load base");
    refused(fwpt_symbols_open_pdb(&s, src, NULL, 0, BASE, err, sizeof err), FWPT_E_INVAL, &s, err, src,
            "no image bytes");
    free(zero);
}

TEST(missing_tools_refused)
{
    NEED_REFEREE();
    char src[600], err[600];
    snprintf(src, sizeof src, "%s/pdbdemo.pdb", build_dir());
    struct fwpt_symbols_pdb *s = (struct fwpt_symbols_pdb *)&s;
    setenv("FWPT_LLVM_PDBUTIL", "/nonexistent/llvm-pdbutil", 1);
    refused(fwpt_symbols_open_pdb(&s, src, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_IO, &s, err, src,
            "needs /nonexistent/llvm-pdbutil (Debian package llvm-14 or llvm), not found");
    unsetenv("FWPT_LLVM_PDBUTIL");
    setenv("FWPT_LLVM_SYMBOLIZER", "/nonexistent/llvm-symbolizer", 1);
    refused(fwpt_symbols_open_pdb(&s, src, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_IO, &s, err, src,
            "needs /nonexistent/llvm-symbolizer");
    setenv("FWPT_LLVM_SYMBOLIZER", "no-such-llvm-symbolizer", 1); /* a name: looked for in PATH */
    refused(fwpt_symbols_open_pdb(&s, src, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_IO, &s, err, src,
            "needs no-such-llvm-symbolizer (");
    setenv("FWPT_LLVM_SYMBOLIZER", "llvm-symbolizer", 1);
    CHECK_EQ(fwpt_symbols_open_pdb(&s, src, demo.image, demo.size, BASE, err, sizeof err), FWPT_OK);
    fwpt_symbols_pdb_close(s);
    unsetenv("FWPT_LLVM_SYMBOLIZER");
}

/* A helper that answers the first question and exits: the failure is recorded once, naming the PDB; later answers
 * carry the function only; nothing hangs or crashes. */
TEST(helper_dies)
{
    NEED_REFEREE();
    char script[600], err[600], src[600];
    snprintf(script, sizeof script, "%s/one-answer.sh", scratch());
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\nhead -n 1 | llvm-symbolizer \"$@\"\n");
    fclose(f);
    chmod(script, 0755);
    setenv("FWPT_LLVM_SYMBOLIZER", script, 1);
    snprintf(src, sizeof src, "%s/pdbdemo.pdb", build_dir());
    struct fwpt_symbols_pdb *s = NULL;
    CHECK_EQ(fwpt_symbols_open_pdb(&s, src, demo.image, demo.size, BASE, err, sizeof err), FWPT_OK);
    unsetenv("FWPT_LLVM_SYMBOLIZER");
    if (!s)
        return;
    struct fwpt_resolver r = fwpt_symbols_pdb_resolver(s);
    struct fwpt_resolved a;
    CHECK(fwpt_symbols_pdb_failure(s) == NULL);
    CHECK_EQ(fwpt_resolve(&r, BASE + procs[2].rva + 2, &a), 1);
    CHECK_STR(a.function, procs[2].name);
    CHECK(a.file == NULL && a.line == 0);
    const char *why = fwpt_symbols_pdb_failure(s);
    CHECK(why && strstr(why, src) && strstr(why, "llvm-symbolizer stopped answering"));
    if (why)
        printf("symbols_pdb: %s\n", why);
    CHECK_EQ(fwpt_resolve(&r, BASE + procs[3].rva + 1, &a), 1);
    CHECK_STR(a.function, procs[3].name);
    fwpt_symbols_pdb_close(s);
}

TEST(either_kind)
{
    NEED_REFEREE();
    char path[600], err[600];
    CHECK_EQ(fwpt_symfile_kind("\x7f" "ELF\2", 5), FWPT_SYMFILE_ELF);
    CHECK_EQ(fwpt_symfile_kind(FWPT_PDB_MAGIC, FWPT_PDB_MAGIC_SIZE), FWPT_SYMFILE_PDB);
    CHECK_EQ(fwpt_symfile_kind(FWPT_PDB_MAGIC, FWPT_PDB_MAGIC_SIZE - 1), FWPT_SYMFILE_UNKNOWN);
    CHECK_EQ(fwpt_symfile_kind("MZ", 2), FWPT_SYMFILE_UNKNOWN);
    struct fwpt_symfile f;
    snprintf(path, sizeof path, "%s/pdbdemo.pdb", build_dir());
    CHECK_EQ(fwpt_symbols_open_any(&f, path, demo.image, demo.size, BASE, err, sizeof err), FWPT_OK);
    CHECK_EQ(f.kind, FWPT_SYMFILE_PDB);
    struct fwpt_resolver r = fwpt_symfile_resolver(&f);
    struct fwpt_resolved a;
    CHECK_EQ(fwpt_resolve(&r, BASE + procs[4].rva, &a), 1);
    CHECK_STR(a.function, procs[4].name);
    fwpt_symfile_close(&f);
    snprintf(path, sizeof path, "%s/fwpt.so", build_dir());
    CHECK_EQ(fwpt_symbols_open_any(&f, path, NULL, 0, BASE, err, sizeof err), FWPT_OK);
    CHECK_EQ(f.kind, FWPT_SYMFILE_ELF);
    r = fwpt_symfile_resolver(&f);
    CHECK(r.resolve != NULL);
    fwpt_symfile_close(&f);
    snprintf(path, sizeof path, "%s/pdbdemo.efi", build_dir());
    CHECK_EQ(fwpt_symbols_open_any(&f, path, demo.image, demo.size, BASE, err, sizeof err), FWPT_E_INVAL);
    CHECK(strstr(err, path) && strstr(err, "neither an ELF file nor a PDB"));
    CHECK_EQ(f.kind, FWPT_SYMFILE_UNKNOWN);
    fwpt_symfile_close(&f);
}

int main(int argc, char **argv)
{
    atexit(cleanup);
    int rc = check_run(argc, argv, "test_symbols_pdb");
    free(demo.image);
    return rc;
}
