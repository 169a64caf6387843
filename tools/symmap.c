/* fwpt — matching the symbol files of --symbols to the traced images (tools/symmap.h). Candidates are ranked by
 * what the trace recorded (CodeView path, FV file GUID, name); the first whose code agrees with the traced image is
 * used: an ELF file's executable sections against the traced bytes (read through elfutils' libelf), a PDB's
 * GUID and age against the image's CodeView RSDS entry (a PDB holds no code). docs/symbols.md says the rules and
 * why. */
#define _XOPEN_SOURCE 700
#include "tools/symmap.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "tools/symbols_dw.h"
#include "tools/symbols_pdb.h"

#define GUID_LEN 36

/* A symbol file found or named. */
struct cand {
    char *path;
    char name[256];          /* its file name without the extension (and without a _GUID suffix) */
    char guid[GUID_LEN + 1]; /* lower-case FV file GUID its name or the build's as-built INF gives, "" none */
    int given;               /* named by an argument itself (not found in a directory) */
    int at_set;              /* FILE@BASE */
    uint64_t at;
    int dir;                 /* the directory argument it was found in, -1: none */
    int bad;                 /* refused once (said): not tried again */
    int used;                /* matched to an image */
    int tried;               /* compared with an image by its name (what it said is said) */
    int valid;               /* fwpt_symbols_open took it once */
    int pdb;                 /* 1: a PDB (its magic), 0: not, -1: not looked at yet */
    char pdb_guid[40];       /* a PDB's signature, read once (pdb_age valid when pdb_guid[0]) */
    uint32_t pdb_age;
};

struct xref {
    char guid[GUID_LEN + 1];
    char name[256];
};

/* An opened symbol file of either kind: what answers and how it closes. */
struct backend {
    struct fwpt_resolver r;
    void (*close)(void *obj);
    const char *(*failure)(const void *obj); /* NULL, or why its answers stopped (a PDB's helper) */
    void *obj;
};

struct mod {
    uint64_t lo, hi; /* runtime range answered for */
    struct backend b;
    char name[64]; /* the image's (for a late warning) */
};

struct slot { /* what image i got */
    const char *file;
    const char *how;
};

struct fwpt_symmap {
    const char *cmd;
    FILE *msg;
    int quiet;
    struct cand *c;
    size_t nc, capc;
    struct xref *x;
    size_t nx, capx;
    char **infs; /* as-built INF files (.../OUTPUT/NAME.inf) */
    size_t ninf, capinf;
    struct dirarg { const char *path; size_t files; int used, tried; } *dirs;
    size_t ndirs;
    struct mod *mods;
    size_t nmods;
    struct slot *slots;
    size_t nimages;
    size_t tried; /* images some candidate was tried for */
    int no_pdb;   /* LLVM's PDB tools are missing (said once): PDBs are not read */
};

__attribute__((format(printf, 2, 3))) static void say(const struct fwpt_symmap *m, const char *fmt, ...)
{
    va_list ap;
    fprintf(m->msg, "%s: ", m->cmd);
    va_start(ap, fmt);
    vfprintf(m->msg, fmt, ap);
    va_end(ap);
    fputc('\n', m->msg);
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t nc = *cap ? *cap * 2 : 32;
    void *p = realloc(v, nc * size);
    if (!p) {
        fprintf(stderr, "fwpt: out of memory\n");
        exit(1);
    }
    *cap = nc;
    return p;
}

struct fwpt_symmap *fwpt_symmap_new(const char *cmd, FILE *msg, int quiet)
{
    struct fwpt_symmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cmd = cmd;
    m->msg = msg;
    m->quiet = quiet;
    return m;
}

static int is_guid(const char *s, size_t n)
{
    if (n != GUID_LEN)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static void lower_guid(char *out, const char *in)
{
    for (size_t i = 0; i < GUID_LEN; i++)
        out[i] = (char)tolower((unsigned char)in[i]);
    out[GUID_LEN] = 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcasecmp(path + n - e, ext);
}

static struct cand *add_cand(struct fwpt_symmap *m, const char *path, int dir)
{
    m->c = grow(m->c, &m->capc, m->nc, sizeof *m->c);
    struct cand *c = &m->c[m->nc++];
    memset(c, 0, sizeof *c);
    c->path = strdup(path);
    c->dir = dir;
    c->pdb = -1;
    const char *b = base_name(path);
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
    if (n >= sizeof c->name)
        n = sizeof c->name - 1;
    memcpy(c->name, b, n);
    c->name[n] = 0;
    /* EDK2 copies the .debug of a module whose name another module shares to NAME_FILEGUID.debug */
    if (n > GUID_LEN + 1 && c->name[n - GUID_LEN - 1] == '_' && is_guid(c->name + n - GUID_LEN, GUID_LEN)) {
        lower_guid(c->guid, c->name + n - GUID_LEN);
        c->name[n - GUID_LEN - 1] = 0;
    }
    return c;
}

/* ---- a directory: its symbol files, Guid.xref and as-built INF files ---- */
static struct fwpt_symmap *walking;
static int walk_dir;

/* Guid.xref: "GUID NAME" lines, read whole (getline: the tail of a long line is never taken for a line of its own) */
static void read_xref(struct fwpt_symmap *m, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, g[64], name[256];
    size_t cap = 0;
    while (f && getline(&line, &cap, f) >= 0)
        if (sscanf(line, "%63s %255s", g, name) == 2 && is_guid(g, strlen(g))) {
            m->x = grow(m->x, &m->capx, m->nx, sizeof *m->x);
            lower_guid(m->x[m->nx].guid, g);
            snprintf(m->x[m->nx++].name, sizeof m->x[0].name, "%s", name);
        }
    free(line);
    if (f)
        fclose(f);
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    struct fwpt_symmap *m = walking;
    if (type != FTW_F)
        return 0;
    m->dirs[walk_dir].files++;
    const char *b = base_name(path);
    if (!strcmp(b, "Guid.xref"))
        read_xref(m, path);
    else if (has_ext(b, ".inf") && strstr(path, "/OUTPUT/")) {
        m->infs = grow(m->infs, &m->capinf, m->ninf, sizeof *m->infs);
        m->infs[m->ninf++] = strdup(path);
    } else if (has_ext(b, ".debug") || has_ext(b, ".so") || has_ext(b, ".pdb"))
        add_cand(m, path, walk_dir);
    return 0;
}

/* An as-built INF (EDK2 writes Build/.../MODULE/OUTPUT/NAME.inf with "FILE_GUID = ..."): the GUID of the
 * .debug files of that module's build folder (MODULE/DEBUG/NAME.debug). */
static void read_inf(struct fwpt_symmap *m, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, guid[GUID_LEN + 1] = "";
    size_t cap = 0;
    while (f && getline(&line, &cap, f) >= 0) { /* whole lines, as read_xref */
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "FILE_GUID", 9))
            continue;
        p = strchr(p, '=');
        if (!p)
            break;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (is_guid(p, strspn(p, "0123456789abcdefABCDEF-")))
            lower_guid(guid, p);
        break;
    }
    free(line);
    if (f)
        fclose(f);
    const char *out = strstr(path, "/OUTPUT/");
    if (!guid[0] || !out)
        return;
    size_t prefix = (size_t)(out - path);
    char stem[256];
    snprintf(stem, sizeof stem, "%s", base_name(path));
    stem[strlen(stem) - 4] = 0; /* ".inf" */
    for (size_t i = 0; i < m->nc; i++) {
        struct cand *c = &m->c[i];
        if (!c->guid[0] && !strncmp(c->path, path, prefix) && !strncmp(c->path + prefix, "/DEBUG/", 7) &&
            !strcmp(c->name, stem))
            memcpy(c->guid, guid, sizeof c->guid);
    }
}

/* One --symbols argument: a file, FILE@BASE, or a directory (searched). */
static void add_arg(struct fwpt_symmap *m, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        m->dirs = realloc(m->dirs, (m->ndirs + 1) * sizeof *m->dirs);
        if (!m->dirs)
            exit(1);
        m->dirs[m->ndirs] = (struct dirarg){arg, 0, 0, 0};
        walking = m;
        walk_dir = (int)m->ndirs++;
        if (nftw(arg, walk_one, 32, FTW_PHYS) != 0)
            say(m, "--symbols %s: searching it stopped: %s (using the files found before)", arg, strerror(errno));
        return;
    }
    if (stat(arg, &st) == 0) {
        add_cand(m, arg, -1)->given = 1;
        return;
    }
    const char *at = strrchr(arg, '@');
    uint64_t base;
    if (at && at != arg && fwpt_parse_u64(at + 1, 1, &base) == 0) {
        char *file = strndup(arg, (size_t)(at - arg));
        if (file && stat(file, &st) == 0 && !S_ISDIR(st.st_mode)) {
            struct cand *c = add_cand(m, file, -1);
            c->given = c->at_set = 1;
            c->at = base;
        } else {
            say(m, "--symbols %s: %s: %s (no names from it)", arg, file ? file : "?",
                file && stat(file, &st) == 0 ? "a directory cannot be placed at an address" : strerror(errno));
        }
        free(file);
        return;
    }
    say(m, "--symbols %s: %s (no names from it)", arg, strerror(errno));
}

/* ---- the byte check ---- */
struct check {
    int agrees;
    int stale; /* what disagrees says the file is of another build (the warning adds "stale build?") */
    uint64_t compared;
    char why[512]; /* what disagrees, as the warning says it */
    uint64_t at;   /* image offset of the first difference (closest match: the largest) */
};

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Each executable section of the ELF file at fd (SHF_ALLOC|SHF_EXECINSTR, ELF "Section Header" flags) against the
 * traced image, the file placed at `place` (runtime = place + ELF address: docs/symbols.md). A loaded image
 * differs from the file only in the 8-byte absolute pointers the PE loader relocated (PE/COFF "Base Relocation
 * Types": IMAGE_REL_BASED_DIR64 adds the load delta): a difference is accepted where the 8 bytes around it read as
 * the file's value + delta. The address rule places ELF address 0 at the load base, so the ELF's link base is 0
 * and delta = place. */
static void byte_check(int fd, uint64_t place, const struct fwpt_symmap_image *im, struct check *k)
{
    *k = (struct check){0};
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    size_t shstr = 0;
    if (!elf || elf_getshdrstrndx(elf, &shstr) != 0) {
        snprintf(k->why, sizeof k->why, "its sections cannot be read (%s)", elf_errmsg(-1));
        goto out;
    }
    const uint64_t recorded = im->code ? (im->code_size < im->size ? im->code_size : im->size) : 0;
    const uint64_t delta = place;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
            !sh.sh_size)
            continue;
        const char *sname = elf_strptr(elf, shstr, sh.sh_name);
        sname = sname ? sname : "?";
        const uint64_t rt = place + sh.sh_addr, off = rt - im->base;
        if (rt < im->base || off > im->size || sh.sh_size > im->size - off) {
            snprintf(k->why, sizeof k->why, "%s (0x%llx bytes at +0x%llx) does not fit in the traced image's 0x%llx "
                     "bytes", sname, (unsigned long long)sh.sh_size, (unsigned long long)off,
                     (unsigned long long)im->size);
            goto out;
        }
        if (sh.sh_type == SHT_NOBITS) {
            snprintf(k->why, sizeof k->why, "%s holds no bytes in the file (an objcopy --only-keep-debug file?): "
                     "nothing to compare", sname);
            goto out;
        }
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < sh.sh_size) {
            snprintf(k->why, sizeof k->why, "%s cannot be read (%s)", sname, elf_errmsg(-1));
            goto out;
        }
        const uint8_t *e = d->d_buf;
        uint64_t n = off >= recorded ? 0 : recorded - off < sh.sh_size ? recorded - off : sh.sh_size;
        const uint8_t *t = n ? im->code + off : NULL; /* no bytes recorded (code NULL): nothing read */
        for (uint64_t i = 0; i < n; i++) {
            if (t[i] == e[i])
                continue;
            uint64_t p = i >= 7 ? i - 7 : 0, ok = 0;
            for (; p <= i && p + 8 <= n; p++)
                if (le64(t + p) == le64(e + p) + delta) {
                    ok = 1;
                    break;
                }
            if (!ok) {
                k->at = off + i;
                k->stale = 1;
                snprintf(k->why, sizeof k->why, "%s differs at +0x%llx", sname, (unsigned long long)(off + i));
                goto out;
            }
            i = p + 7;
        }
        k->compared += n;
    }
    if (!k->compared) {
        snprintf(k->why, sizeof k->why, "nothing to compare: the trace recorded 0x%llx bytes of the image, none of "
                 "its code", (unsigned long long)recorded);
        goto out;
    }
    k->agrees = 1;
out:
    if (elf)
        elf_end(elf);
}

static void close_elf(void *obj)
{
    fwpt_symbols_close(obj);
}

static void close_pdb(void *obj)
{
    fwpt_symbols_pdb_close(obj);
}

static const char *pdb_failure(const void *obj)
{
    return fwpt_symbols_pdb_failure(obj);
}

static void backend_close(struct backend *b)
{
    if (b->close)
        b->close(b->obj);
    *b = (struct backend){0};
}

/* The PDB c for image im placed at `place`. A PDB holds no code: its "code agrees" check is its GUID and age
 * against the image's CodeView RSDS entry (PE/COFF specification, "Debug Directory (Image Only)"), which the linker
 * writes from the same link. The signature is read once per file, the LLVM tools looked for once per run. */
static int try_pdb(struct fwpt_symmap *m, struct cand *c, const struct fwpt_symmap_image *im, uint64_t place,
                   struct backend *b, struct check *k)
{
    char err[700];
    if (m->no_pdb) {
        c->bad = 1;
        return 0;
    }
    if (!fwpt_pdb_tools(err, sizeof err)) {
        say(m, "symbols for %s: %s: %s (no names from PDBs)", im->name, c->path, err);
        m->no_pdb = c->bad = 1;
        return 0;
    }
    if (!c->pdb_guid[0] && fwpt_pdb_signature(c->path, c->pdb_guid, &c->pdb_age, err, sizeof err) != FWPT_OK) {
        say(m, "symbols for %s: %s", im->name, err);
        c->bad = 1;
        return 0;
    }
    const uint64_t recorded = im->code ? (im->code_size < im->size ? im->code_size : im->size) : 0;
    if (place < im->base || place - im->base >= recorded) {
        snprintf(k->why, sizeof k->why, "the trace recorded none of its bytes at 0x%llx: no CodeView entry to "
                 "compare the PDB's GUID/age with", (unsigned long long)place);
        return 0;
    }
    const uint8_t *head = im->code + (place - im->base);
    const size_t n = (size_t)(recorded - (place - im->base));
    struct fwpt_codeview cv;
    char why[300], have[40];
    if (fwpt_pe_codeview(head, n, &cv, why, sizeof why) != 0) {
        snprintf(k->why, sizeof k->why, "the traced image names no PDB: %s", why);
        return 0;
    }
    fwpt_guid_text(cv.guid, have);
    if (strcasecmp(have, c->pdb_guid) || cv.age != c->pdb_age) {
        k->stale = 1;
        snprintf(k->why, sizeof k->why, "the PDB's GUID/age %s/%u differs from the image's %s/%u", c->pdb_guid,
                 c->pdb_age, have, cv.age);
        return 0;
    }
    struct fwpt_symbols_pdb *p;
    if (fwpt_symbols_open_pdb(&p, c->path, head, n, place, err, sizeof err) != FWPT_OK) {
        say(m, "symbols for %s: %s", im->name, err);
        c->bad = 1;
        return 0;
    }
    k->agrees = 1;
    *b = (struct backend){fwpt_symbols_pdb_resolver(p), close_pdb, pdb_failure, p};
    return 1;
}

/* The candidate c for image im placed at `place`: 1 and *b opened when it agrees; else *k says why not (an
 * unreadable or refused file is said at once and marked bad). */
static int try_cand(struct fwpt_symmap *m, struct cand *c, const struct fwpt_symmap_image *im, uint64_t place,
                    struct backend *b, struct check *k)
{
    char err[512];
    *b = (struct backend){0};
    *k = (struct check){0};
    if (c->bad)
        return 0;
    c->tried = 1;
    if (c->dir >= 0)
        m->dirs[c->dir].tried = 1;
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && c->pdb < 0) {
        uint8_t magic[FWPT_PDB_MAGIC_SIZE];
        ssize_t got = pread(fd, magic, sizeof magic, 0);
        c->pdb = got > 0 && fwpt_symfile_kind(magic, (size_t)got) == FWPT_SYMFILE_PDB;
    }
    if (fd >= 0 && c->pdb == 1) {
        close(fd);
        return try_pdb(m, c, im, place, b, k);
    }
    /* the first time: fwpt_symbols_open says what is wrong with the file; after that the bytes are compared
     * first and the file opened for the one image that agrees */
    struct fwpt_symbols *s = NULL;
    enum fwpt_status st = fd < 0 ? FWPT_E_IO : FWPT_OK;
    if (fd >= 0 && !c->valid)
        st = fwpt_symbols_open(&s, c->path, place, err, sizeof err);
    else if (fd < 0)
        snprintf(err, sizeof err, "%s: %s", c->path, strerror(errno));
    if (st == FWPT_OK) {
        c->valid = 1;
        byte_check(fd, place, im, k);
        if (k->agrees && !s)
            st = fwpt_symbols_open(&s, c->path, place, err, sizeof err);
    }
    if (fd >= 0)
        close(fd);
    if (st != FWPT_OK) {
        say(m, "symbols for %s: %s", im->name, err);
        c->bad = 1;
        return 0;
    }
    if (!k->agrees) {
        fwpt_symbols_close(s);
        return 0;
    }
    *b = (struct backend){fwpt_symbols_resolver(s), close_elf, NULL, s};
    return 1;
}

static void warn_stale(const struct fwpt_symmap *m, const struct fwpt_symmap_image *im, const struct cand *c,
                       const struct check *k)
{
    say(m, "symbols for %s do not match the traced image: %s%s: %s", im->name, k->why,
        k->stale ? " (stale build?)" : "", c->path);
}

static void use(struct fwpt_symmap *m, size_t i, const struct fwpt_symmap_image *im, struct cand *c,
                const struct backend *b, const char *how)
{
    m->mods = realloc(m->mods, (m->nmods + 1) * sizeof *m->mods);
    if (!m->mods)
        exit(1);
    /* an image recorded past the end of the address space answers up to its end (base + size would wrap below
     * base: nothing would ever answer for a matched image) */
    const uint64_t hi = im->size > UINT64_MAX - im->base ? UINT64_MAX : im->base + im->size;
    m->mods[m->nmods] = (struct mod){im->base, hi, *b, ""};
    snprintf(m->mods[m->nmods++].name, sizeof m->mods[0].name, "%s", im->name);
    m->slots[i] = (struct slot){c->path, how};
    c->used = 1;
    if (c->dir >= 0)
        m->dirs[c->dir].used = 1;
}

/* ---- ranking: what the trace recorded of image im against candidate c ---- */
struct ranked {
    struct cand *c;
    int score; /* (CodeView suffix) * 4 + FV file GUID * 2 + name */
};

/* The CodeView path's file and the candidate's have the same extension (".../pdbdemo.pdb" and pdbdemo.pdb). */
static int same_ext(const char *cv, const struct cand *c)
{
    const char *b = cv + strlen(cv);
    while (b > cv && b[-1] != '/' && b[-1] != '\\')
        b--;
    const char *x = strrchr(b, '.'), *y = strrchr(base_name(c->path), '.');
    return x && y && !strcasecmp(x, y);
}

/* 1 + the directories the CodeView path and the file's path share at their ends, when the names agree; else 0.
 * The CodeView path is the build's: .../X64/MdeModulePkg/Core/Dxe/DxeMain/DEBUG/DxeCore.dll (or .pdb). */
static int codeview_suffix(const char *cv, const struct cand *c)
{
    if (!cv || !*cv)
        return 0;
    const char *b = cv + strlen(cv);
    while (b > cv && b[-1] != '/' && b[-1] != '\\')
        b--;
    const char *dot = strrchr(b, '.');
    size_t n = dot ? (size_t)(dot - b) : strlen(b);
    if (strlen(c->name) != n || strncasecmp(b, c->name, n)) /* a Windows build's paths may differ in case */
        return 0;
    int k = 1;
    const char *p = b, *q = base_name(c->path); /* walk back a directory at a time */
    while (p > cv && q > c->path) {
        const char *pe = p - 1, *qe = q - 1; /* the separators */
        const char *ps = pe, *qs = qe;
        while (ps > cv && ps[-1] != '/' && ps[-1] != '\\')
            ps--;
        while (qs > c->path && qs[-1] != '/')
            qs--;
        if (pe - ps != qe - qs || pe == ps || strncasecmp(ps, qs, (size_t)(pe - ps)))
            break;
        k++;
        p = ps, q = qs;
    }
    return k;
}

/* The image's name is the file's name, or is it with an extension (--image hello.efi@ADDR names "hello.efi"). */
static int same_name(const char *file_name, const char *image_name)
{
    size_t n = strlen(file_name);
    return !strncmp(file_name, image_name, n) &&
           (!image_name[n] || (image_name[n] == '.' && !strchr(image_name + n + 1, '.')));
}

static int rank_order(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->score != y->score)
        return y->score - x->score;
    return strcmp(x->c->path, y->c->path);
}

static const char *how_of(int score)
{
    return score >= 4 ? "CodeView path" : score >= 2 ? "FV file GUID" : "name";
}

/* Image i by its CodeView path, FV file GUID and name: 1 when a candidate agrees (used), 0 when none does (each
 * one tried said), -1 when there was none. */
static int match_named(struct fwpt_symmap *m, size_t i, const struct fwpt_symmap_image *im)
{
    char guid[GUID_LEN + 1] = "";
    const char *xname = NULL;
    if (im->fv_guid && is_guid(im->fv_guid, strlen(im->fv_guid)))
        lower_guid(guid, im->fv_guid);
    for (size_t j = 0; guid[0] && j < m->nx && !xname; j++)
        if (!strcmp(m->x[j].guid, guid))
            xname = m->x[j].name;
    struct ranked *r = calloc(m->nc + 1, sizeof *r);
    size_t nr = 0;
    for (size_t j = 0; r && j < m->nc; j++) {
        struct cand *c = &m->c[j];
        if (c->at_set || (c->guid[0] && guid[0] && strcmp(c->guid, guid)))
            continue; /* placed by hand, or the build says it is another FV file's */
        int cv = codeview_suffix(im->codeview, c);
        cv = cv ? 2 * cv + same_ext(im->codeview, c) : 0; /* the file the CodeView path names first: a PDB */
        int g = (c->guid[0] && !strcmp(c->guid, guid)) || (xname && !c->guid[0] && !strcmp(c->name, xname));
        int nm = same_name(c->name, im->name);
        if (cv || g || nm)
            r[nr++] = (struct ranked){c, cv * 4 + g * 2 + nm};
    }
    if (!nr) {
        free(r);
        return -1;
    }
    m->tried++;
    qsort(r, nr, sizeof *r, rank_order);
    struct check *k = calloc(nr, sizeof *k);
    struct backend s = {0};
    size_t win = nr;
    for (size_t j = 0; k && j < nr; j++) {
        if (win < nr && r[j].score < r[win].score)
            break;
        struct backend t;
        if (!try_cand(m, r[j].c, im, im->base, &t, &k[j]))
            continue;
        if (win == nr) {
            win = j, s = t;
            continue;
        }
        /* a second file of the same rank agrees too: the first (by path) is used, the choice said */
        say(m, "symbols for %s: two symbol files agree with the traced image: %s, %s; using %s", im->name,
            r[win].c->path, r[j].c->path, r[win].c->path);
        backend_close(&t);
    }
    if (win < nr) {
        use(m, i, im, r[win].c, &s, how_of(r[win].score));
    } else {
        for (size_t j = 0; k && j < nr; j++)
            if (!r[j].c->bad && k[j].why[0])
                warn_stale(m, im, r[j].c, &k[j]);
    }
    free(k);
    free(r);
    return win < nr;
}

void fwpt_symmap_match(struct fwpt_symmap *m, const char *const *args, size_t nargs,
                       const struct fwpt_symmap_image *im, size_t n)
{
    elf_version(EV_CURRENT);
    m->slots = calloc(n + 1, sizeof *m->slots);
    m->nimages = n;
    if (!m->slots)
        return;
    for (size_t a = 0; a < nargs; a++)
        add_arg(m, args[a]);
    for (size_t j = 0; j < m->ninf; j++)
        read_inf(m, m->infs[j]);
    /* by hand: FILE@BASE, in the image holding BASE */
    for (size_t j = 0; j < m->nc; j++) {
        struct cand *c = &m->c[j];
        if (!c->at_set)
            continue;
        size_t i = 0;
        while (i < n && !(im[i].base <= c->at && c->at - im[i].base < im[i].size))
            i++;
        if (i == n) {
            say(m, "--symbols %s@0x%llx: no traced image holds 0x%llx (no names from it)", c->path,
                (unsigned long long)c->at, (unsigned long long)c->at);
            continue;
        }
        struct backend s;
        struct check k;
        if (m->slots[i].file)
            say(m, "--symbols %s@0x%llx: image %s already has %s (not used)", c->path, (unsigned long long)c->at,
                im[i].name, m->slots[i].file);
        else if (try_cand(m, c, &im[i], c->at, &s, &k))
            use(m, i, &im[i], c, &s, "FILE@BASE");
        else if (!c->bad)
            warn_stale(m, &im[i], c, &k);
    }
    for (size_t i = 0; i < n; i++)
        if (!m->slots[i].file)
            match_named(m, i, &im[i]);
    /* a file named by itself that no name ties to an image (a gnu-efi .so for BOOTX64): the image whose bytes it
     * agrees with; none: the warning for the one it comes closest to (the latest first difference) */
    for (size_t j = 0; j < m->nc; j++) {
        struct cand *c = &m->c[j];
        if (!c->given || c->at_set || c->used || c->bad)
            continue;
        const int said = c->tried; /* compared by name already, and said why not */
        size_t best = n;
        struct check bk = {0};
        int any = 0;
        for (size_t i = 0; i < n && !c->bad; i++) {
            if (m->slots[i].file)
                continue;
            struct backend s;
            struct check k;
            if (try_cand(m, c, &im[i], im[i].base, &s, &k)) {
                use(m, i, &im[i], c, &s, c->pdb == 1 ? "PDB GUID/age" : "code bytes");
                any = 1;
            } else if (k.at && (best == n || k.at > bk.at)) {
                best = i, bk = k;
            }
        }
        if (!any && !c->bad && !said && best < n)
            warn_stale(m, &im[best], c, &bk);
        else if (!any && !c->bad && !said && c->pdb == 1)
            say(m, "--symbols %s: the CodeView entry of none of the %zu traced images names this PDB's GUID/age "
                "%s/%u (no names from it)", c->path, n, c->pdb_guid, c->pdb_age);
        else if (!any && !c->bad && !said)
            say(m, "--symbols %s: its code agrees with none of the %zu traced images (no names from it)", c->path, n);
    }
    for (size_t d = 0; d < m->ndirs; d++)
        if (!m->dirs[d].used && !m->dirs[d].tried) {
            char names[600] = "";
            size_t len = 0;
            for (size_t i = 0; i < n && len < 400; i++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", im[i].name);
            say(m, "--symbols %s: no symbol file there for any traced image (%zu file%s searched for NAME.debug, "
                "NAME.so, NAME.pdb, NAME_GUID.debug, Guid.xref and OUTPUT/NAME.inf by CodeView path, FV file GUID and "
                "name, for: %s%s)", m->dirs[d].path, m->dirs[d].files, m->dirs[d].files == 1 ? "" : "s", names,
                len >= 400 ? ", ..." : "");
        }
    /* sorted by base: the resolver's binary search */
    for (size_t a = 1; a < m->nmods; a++)
        for (size_t b = a; b > 0 && m->mods[b - 1].lo > m->mods[b].lo; b--) {
            struct mod t = m->mods[b];
            m->mods[b] = m->mods[b - 1];
            m->mods[b - 1] = t;
        }
}

static int resolve(void *ctx, uint64_t address, struct fwpt_resolved *out)
{
    struct fwpt_symmap *m = ctx;
    size_t lo = 0, hi = m->nmods; /* the first module starting above address */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->mods[mid].lo <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo && address < m->mods[lo - 1].hi)
        return m->mods[lo - 1].b.r.resolve(m->mods[lo - 1].b.r.ctx, address, out);
    *out = (struct fwpt_resolved){0};
    return 0;
}

struct fwpt_resolver fwpt_symmap_resolver(struct fwpt_symmap *m)
{
    return (struct fwpt_resolver){.resolve = m && m->nmods ? resolve : NULL, .ctx = m};
}

const char *fwpt_symmap_file(const struct fwpt_symmap *m, size_t i, const char **how)
{
    if (i >= m->nimages || !m->slots[i].file)
        return NULL;
    if (how)
        *how = m->slots[i].how;
    return m->slots[i].file;
}

void fwpt_symmap_summary(const struct fwpt_symmap *m)
{
    for (size_t i = 0; i < m->nmods; i++) { /* a PDB's helper that stopped answering: its later lines are missing */
        const char *why = m->mods[i].b.failure ? m->mods[i].b.failure(m->mods[i].b.obj) : NULL;
        if (why)
            say(m, "symbols for %s: %s", m->mods[i].name, why);
    }
    if (m->quiet)
        return;
    static const char *const hows[] = {"CodeView path", "FV file GUID", "name", "code bytes", "PDB GUID/age",
                                       "FILE@BASE"};
    char by[256] = "";
    size_t len = 0, matched = 0;
    for (size_t h = 0; h < sizeof hows / sizeof *hows; h++) {
        size_t k = 0;
        for (size_t i = 0; i < m->nimages; i++)
            k += m->slots[i].file && !strcmp(m->slots[i].how, hows[h]);
        matched += k;
        if (k)
            len += (size_t)snprintf(by + len, sizeof by - len, "%s%zu by %s", len ? ", " : "", k, hows[h]);
    }
    fprintf(m->msg, "names: %zu of %zu traced images matched (%s%s%zu without a symbol file)\n", matched, m->nimages,
            by, len ? "; " : "", m->nimages - matched);
}

void fwpt_symmap_free(struct fwpt_symmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nmods; i++)
        backend_close(&m->mods[i].b);
    for (size_t i = 0; i < m->nc; i++)
        free(m->c[i].path);
    for (size_t i = 0; i < m->ninf; i++)
        free(m->infs[i]);
    free(m->infs);
    free(m->c);
    free(m->x);
    free(m->dirs);
    free(m->mods);
    free(m->slots);
    free(m);
}
