/* fwpt — the PDB resolver backend (tools/symbols_pdb.h) over LLVM's tools.
 *
 * What llvm-symbolizer 14 needs: it does not open a PDB alone ("not recognized as a valid object file"); it takes a
 * PE/COFF image and opens the PDB its CodeView entry names (else the file of that name beside the image), and reads
 * everything else from the PDB. The traced image (img-BASE.bin) is the image as loaded, not the file layout, so it
 * is not handed over: a stand-in PE32+ file of headers and one section holding a debug directory whose RSDS entry
 * names this PDB by its absolute path (with the traced image's GUID and age) is written to a temporary file, opened
 * once by the helper and unlinked. Addresses go over as RVAs (--relative-address): runtime address - load base.
 * llvm-symbolizer 14's JSON answers carry no function start ("StartAddress":""), so names and entries come from the
 * procedure symbols (S_GPROC32, S_LPROC32: segment:offset and code size) and the section headers that
 * `llvm-pdbutil dump` prints, read once at open. */
#include "tools/symbols_pdb.h"
#include "tools/resolve_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/sideband.h"

extern char **environ;

#define ADDR_CACHE_SLOTS 16384 /* a power of two: a miss costs a round trip to the helper */
#define REPLY_TIMEOUT_MS 30000 /* one answer of llvm-symbolizer; the first one reads the PDB */
#define MAX_SECTIONS 96        /* PE/COFF: at most 96 sections in an image */

struct pfunc {
    uint64_t start, end; /* runtime, end exclusive */
    uint32_t seg, off;   /* as the PDB gives it, until the sections are known */
    int global;          /* S_GPROC32 (preferred among symbols at one address) */
    char *name;
};

struct psection {
    uint32_t rva, size, flags;
};

struct fwpt_symbols_pdb {
    char *path;
    uint64_t base;
    struct pfunc *funcs;
    size_t nfuncs, capfuncs;
    struct psection sec[MAX_SECTIONS];
    size_t nsec;
    struct fwpt_resolve_cache cache;
    char **files; /* file names the helper gave, each kept once (the answers point to them) */
    size_t nfiles, capfiles;
    pid_t pid; /* the llvm-symbolizer helper, 0 when none */
    int fd;    /* its stdin and stdout (a socket pair: a write after it died fails with EPIPE, no SIGPIPE) */
    char *reply;
    size_t reply_have, reply_cap;
    char failure[600];
};

static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    if (!err || !n)
        return;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

enum fwpt_symfile_kind fwpt_symfile_kind(const void *head, size_t n)
{
    if (n >= 4 && !memcmp(head, "\x7f" "ELF", 4))
        return FWPT_SYMFILE_ELF;
    if (n >= FWPT_PDB_MAGIC_SIZE && !memcmp(head, FWPT_PDB_MAGIC, FWPT_PDB_MAGIC_SIZE))
        return FWPT_SYMFILE_PDB;
    return FWPT_SYMFILE_UNKNOWN;
}

void fwpt_guid_text(const uint8_t g[16], char out[40])
{
    snprintf(out, 40, "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", rd32(g), rd16(g + 4), rd16(g + 6), g[8],
             g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* PE/COFF specification: the MS-DOS stub's e_lfanew at 0x3c, "PE\0\0", the COFF file header (20 bytes), the
 * optional header (PE32 magic 0x10b: data directories at 96; PE32+ 0x20b: at 112), data directory 6 = Debug; each
 * debug directory entry is 28 bytes (Type at 12, SizeOfData at 16, AddressOfRawData at 20); type 2 = CODEVIEW,
 * whose data is "RSDS", the GUID, the age and the NUL-terminated PDB path. */
int fwpt_pe_codeview(const uint8_t *img, size_t size, struct fwpt_codeview *cv, char *err, size_t n)
{
    memset(cv, 0, sizeof *cv);
    if (size >= 2 && img[0] == 'V' && img[1] == 'Z') {
        say(err, n, "a TE image (its headers stripped): not supported");
        return -1;
    }
    if (size < 0x40 || img[0] != 'M' || img[1] != 'Z') {
        say(err, n, "no PE/COFF image at the load base (no MZ header)");
        return -1;
    }
    uint64_t pe = rd32(img + 0x3c);
    if (pe + 24 > size || memcmp(img + pe, "PE\0\0", 4)) {
        say(err, n, "no PE signature at +0x%llx", (unsigned long long)pe);
        return -1;
    }
    uint64_t opt = pe + 24, optsize = rd16(img + pe + 20);
    if (opt + optsize > size || optsize < 2) {
        say(err, n, "the optional header ends past the image's %zu bytes", size);
        return -1;
    }
    uint16_t magic = rd16(img + opt);
    uint64_t count_at = magic == 0x20b ? 108 : magic == 0x10b ? 92 : 0;
    if (!count_at) {
        say(err, n, "optional header magic 0x%x is neither PE32 nor PE32+", magic);
        return -1;
    }
    if (count_at + 4 > optsize || rd32(img + opt + count_at) <= 6 || count_at + 4 + 7 * 8 > optsize) {
        say(err, n, "no debug directory (data directory 6)");
        return -1;
    }
    uint64_t dir = rd32(img + opt + count_at + 4 + 6 * 8), dirsize = rd32(img + opt + count_at + 4 + 6 * 8 + 4);
    if (!dir || !dirsize) {
        say(err, n, "no debug directory (data directory 6 is empty)");
        return -1;
    }
    if (dir + dirsize > size) {
        say(err, n, "the debug directory at +0x%llx ends past the image's %zu bytes", (unsigned long long)dir, size);
        return -1;
    }
    for (uint64_t e = dir; e + 28 <= dir + dirsize; e += 28) {
        if (rd32(img + e + 12) != 2)
            continue;
        uint64_t len = rd32(img + e + 16), at = rd32(img + e + 20);
        if (!at || at + len > size || len < 4) {
            say(err, n, "the CodeView entry (+0x%llx, %llu bytes) is not inside the image's %zu bytes",
                (unsigned long long)at, (unsigned long long)len, size);
            return -1;
        }
        if (memcmp(img + at, "RSDS", 4)) {
            say(err, n, "the CodeView entry is not an RSDS record (%.4s): not a PDB 7.0 signature",
                memcmp(img + at, "NB10", 4) ? "?" : "NB10");
            return -1;
        }
        if (len < 25) {
            say(err, n, "the RSDS record is %llu bytes: shorter than its GUID, age and path", (unsigned long long)len);
            return -1;
        }
        memcpy(cv->guid, img + at + 4, 16);
        cv->age = rd32(img + at + 20);
        size_t k = 0;
        for (uint64_t i = at + 24; i < at + len && img[i] && k + 1 < sizeof cv->path; i++)
            cv->path[k++] = (char)img[i];
        cv->path[k] = 0;
        return 0;
    }
    say(err, n, "no CodeView entry in the debug directory");
    return -1;
}

/* ---- LLVM's tools ---- */

/* The tool: $ENV when set (a path, or a name looked for in PATH), else NAME or NAME-14 (Debian 12's llvm-14
 * package) found in PATH. */
static int find_tool(const char *name, const char *env, char *out, size_t cap)
{
    const char *e = getenv(env);
    if (e && *e && strchr(e, '/')) {
        snprintf(out, cap, "%s", e);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *suffixes[] = {"", "-14"};
    if (e && *e)
        name = e, suffixes[1] = "";
    for (size_t s = 0; s < sizeof suffixes / sizeof *suffixes; s++)
        for (const char *p = path; *p;) {
            size_t len = strcspn(p, ":");
            snprintf(out, cap, "%.*s/%s%s", (int)len, p, name, suffixes[s]);
            if (len && access(out, X_OK) == 0)
                return 1;
            p += len + (p[len] == ':');
        }
    snprintf(out, cap, "%s", name);
    return 0;
}

/* Starts argv with stdout to *out_fd (a pipe, or the socket fd when sock >= 0 for both stdin and stdout) and
 * stderr to errfd (or /dev/null when -1). Returns the pid, or -1. */
static pid_t spawn(char *const argv[], int in_out_sock, int *out_fd, int errfd)
{
    posix_spawn_file_actions_t fa;
    int pfd[2] = {-1, -1};
    if (in_out_sock < 0) {
        if (pipe(pfd) != 0)
            return -1;
        fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
        fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    }
    posix_spawn_file_actions_init(&fa);
    if (in_out_sock >= 0) {
        posix_spawn_file_actions_adddup2(&fa, in_out_sock, 0);
        posix_spawn_file_actions_adddup2(&fa, in_out_sock, 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    }
    if (errfd >= 0)
        posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (pfd[1] >= 0)
        close(pfd[1]);
    if (rc != 0) {
        if (pfd[0] >= 0)
            close(pfd[0]);
        errno = rc;
        return -1;
    }
    if (out_fd)
        *out_fd = pfd[0];
    return pid;
}

/* Waits for pid: up to ms milliseconds, then SIGKILL (it is our own child). Returns its wait status. */
static int reap(pid_t pid, int ms)
{
    int st = 0;
    for (int waited = 0;; waited += 10) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return st;
        if (waited >= ms) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            return st;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

/* ---- reading `llvm-pdbutil dump --summary --symbols --section-headers` ---- */

struct dump {
    char guid[64];
    int have_guid, have_age;
    uint32_t age;
    char pending[512]; /* the procedure whose address line comes next */
    int pending_global;
    uint32_t cur_sec; /* SECTION HEADER #n being read, 0: none */
    int orig;         /* past "Original Section Headers" (before an OMAP reordering): not the image's */
};

static enum fwpt_status add_func(struct fwpt_symbols_pdb *s, const char *name, int global, uint32_t seg,
                                 uint32_t off, uint32_t size)
{
    if (s->nfuncs == s->capfuncs) {
        size_t cap = s->capfuncs ? 2 * s->capfuncs : 256;
        struct pfunc *f = realloc(s->funcs, cap * sizeof *f);
        if (!f)
            return FWPT_E_NOMEM;
        s->funcs = f;
        s->capfuncs = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return FWPT_E_NOMEM;
    s->funcs[s->nfuncs++] = (struct pfunc){.seg = seg, .off = off, .end = size, .global = global, .name = copy};
    return FWPT_OK;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static enum fwpt_status dump_line(struct fwpt_symbols_pdb *s, struct dump *d, char *line)
{
    line[strcspn(line, "\r\n")] = 0;
    const char *t = skip_ws(line);
    unsigned long long a, b, c;
    char word[32];
    if (!d->have_guid && !strncmp(t, "GUID: {", 7)) {
        snprintf(d->guid, sizeof d->guid, "%s", t + 6);
        d->have_guid = 1;
        return FWPT_OK;
    }
    if (!d->have_age && sscanf(t, "Age: %llu", &a) == 1) {
        d->age = (uint32_t)a;
        d->have_age = 1;
        return FWPT_OK;
    }
    if (strstr(t, "Original Section Headers")) {
        d->orig = 1;
        d->cur_sec = 0;
        return FWPT_OK;
    }
    if (!d->orig && sscanf(t, "SECTION HEADER #%llu", &a) == 1) {
        d->cur_sec = a >= 1 && a <= MAX_SECTIONS ? (uint32_t)a : 0;
        if (d->cur_sec && d->cur_sec > s->nsec)
            s->nsec = d->cur_sec;
        return FWPT_OK;
    }
    if (d->cur_sec && sscanf(t, "%llx %31s", &a, word) == 2 && a <= UINT32_MAX) {
        struct psection *sec = &s->sec[d->cur_sec - 1]; /* "1000 virtual address", "12D virtual size", "60000020 flags" */
        if (!strcmp(t + strcspn(t, " "), " virtual address")) {
            sec->rva = (uint32_t)a;
            return FWPT_OK;
        }
        if (!strcmp(t + strcspn(t, " "), " virtual size")) {
            sec->size = (uint32_t)a;
            return FWPT_OK;
        }
        if (!strcmp(t + strcspn(t, " "), " flags")) {
            sec->flags = (uint32_t)a;
            return FWPT_OK;
        }
    }
    /* "  72 | S_GPROC32 [size = 52] `name`", then "parent = 0, end = 276, addr = 0001:0000, code size = 39" */
    const char *bar = strstr(t, "| S_");
    if (bar) {
        d->pending[0] = 0;
        const char *kind = bar + 2;
        size_t klen = strcspn(kind, " ");
        static const char *const procs[] = {"S_GPROC32", "S_LPROC32", "S_GPROC32_ID", "S_LPROC32_ID",
                                            "S_LPROC32_DPC", "S_LPROC32_DPC_ID"};
        for (size_t i = 0; i < sizeof procs / sizeof *procs; i++)
            if (klen == strlen(procs[i]) && !strncmp(kind, procs[i], klen)) {
                const char *q1 = strchr(kind, '`'), *q2 = strrchr(kind, '`');
                if (q1 && q2 > q1 + 1) {
                    snprintf(d->pending, sizeof d->pending, "%.*s", (int)(q2 - q1 - 1), q1 + 1);
                    d->pending_global = kind[2] == 'G';
                }
            }
        return FWPT_OK;
    }
    const char *addr = strstr(t, "addr = ");
    if (d->pending[0] && addr && sscanf(addr, "addr = %llu:%llu, code size = %llu", &a, &b, &c) == 3) {
        enum fwpt_status st = FWPT_OK;
        if (a >= 1 && a <= MAX_SECTIONS && b <= UINT32_MAX && c <= UINT32_MAX)
            st = add_func(s, d->pending, d->pending_global, (uint32_t)a, (uint32_t)b, (uint32_t)c);
        d->pending[0] = 0;
        return st;
    }
    return FWPT_OK;
}

static int func_order(const void *a, const void *b)
{
    const struct pfunc *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->global != y->global)
        return y->global - x->global;
    return strcmp(x->name, y->name);
}

/* Runs llvm-pdbutil over the PDB once and reads its signature, sections and procedures into s and d (summary_only:
 * the signature only). */
static enum fwpt_status read_dump(struct fwpt_symbols_pdb *s, struct dump *d, int summary_only, char *err, size_t n)
{
    char tool[512];
    if (!find_tool("llvm-pdbutil", "FWPT_LLVM_PDBUTIL", tool, sizeof tool)) {
        say(err, n, "%s: reading a PDB needs %s (Debian package llvm-14 or llvm), not found", s->path, tool);
        return FWPT_E_IO;
    }
    FILE *errs = tmpfile();
    char *argv[] = {tool, "dump", "--summary", "--symbols", "--section-headers", s->path, NULL};
    if (summary_only)
        argv[3] = s->path, argv[4] = NULL;
    int fd = -1;
    pid_t pid = spawn(argv, -1, &fd, errs ? fileno(errs) : -1);
    if (pid < 0) {
        say(err, n, "%s: cannot run %s: %s", s->path, tool, strerror(errno));
        if (errs)
            fclose(errs);
        return FWPT_E_IO;
    }
    FILE *in = fdopen(fd, "r");
    enum fwpt_status st = in ? FWPT_OK : FWPT_E_NOMEM;
    char *line = NULL;
    size_t cap = 0;
    while (in && getline(&line, &cap, in) >= 0)
        if (st == FWPT_OK)
            st = dump_line(s, d, line); /* read to the end even after a failure: the tool must not block */
    free(line);
    if (in)
        fclose(in);
    else
        close(fd);
    int ws = reap(pid, 10000);
    if (st == FWPT_OK && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)) {
        char why[300] = "";
        if (errs && fseek(errs, 0, SEEK_SET) == 0 && fgets(why, sizeof why, errs))
            why[strcspn(why, "\r\n")] = 0;
        say(err, n, "%s: %s dump failed (%s %d)%s%s", s->path, tool, WIFEXITED(ws) ? "exit" : "signal",
            WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), why[0] ? ": " : "", why);
        st = FWPT_E_INVAL;
    } else if (st == FWPT_E_NOMEM) {
        say(err, n, "%s: out of memory for its symbols", s->path);
    }
    if (errs)
        fclose(errs);
    return st;
}

/* Places the procedures at their runtime addresses (load base + the section's RVA + offset) and sorts them. */
static enum fwpt_status place_funcs(struct fwpt_symbols_pdb *s, char *err, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        struct pfunc f = s->funcs[i];
        if (f.seg > s->nsec || !s->sec[f.seg - 1].rva) { /* a section the PDB does not list: not placed */
            free(f.name);
            continue;
        }
        f.start = s->base + s->sec[f.seg - 1].rva + f.off;
        f.end = f.start + f.end; /* end held the code size */
        s->funcs[k++] = f;
    }
    s->nfuncs = k;
    if (!k) {
        say(err, n, "%s: no procedure symbols (S_GPROC32/S_LPROC32) in its sections: a stripped PDB?", s->path);
        return FWPT_E_INVAL;
    }
    qsort(s->funcs, s->nfuncs, sizeof *s->funcs, func_order);
    for (size_t i = 0; i < s->nfuncs; i++)
        if (s->funcs[i].end == s->funcs[i].start) {
            size_t j = i + 1;
            while (j < s->nfuncs && s->funcs[j].start == s->funcs[i].start)
                j++;
            s->funcs[i].end = j < s->nfuncs ? s->funcs[j].start : s->funcs[i].start + 1;
        }
    return FWPT_OK;
}

/* ---- the llvm-symbolizer helper ---- */

/* The stand-in image: MZ header, PE32+ headers with one section (".rdata" at RVA 0x1000, file offset 0x200) that
 * holds the debug directory (one CODEVIEW entry) and the RSDS record naming pdb_abs. */
static int write_standin(const char *file, const struct fwpt_codeview *cv, const char *pdb_abs)
{
    size_t plen = strlen(pdb_abs) + 1, data = 28 + 24 + plen, raw = (data + 0x1ff) & ~(size_t)0x1ff;
    if (plen > 4096)
        return -1;
    size_t total = 0x200 + raw;
    uint8_t *b = calloc(1, total);
    if (!b)
        return -1;
    b[0] = 'M', b[1] = 'Z';
    wr32(b + 0x3c, 0x40);
    uint8_t *pe = b + 0x40, *opt = pe + 24, *sh = opt + 240, *d = b + 0x200;
    memcpy(pe, "PE\0\0", 4);
    wr16(pe + 4, 0x8664);   /* Machine: AMD64 */
    wr16(pe + 6, 1);        /* NumberOfSections */
    wr16(pe + 20, 240);     /* SizeOfOptionalHeader */
    wr16(pe + 22, 0x0022);  /* EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE */
    wr16(opt, 0x20b);       /* PE32+ */
    wr32(opt + 24, 0x10000000); /* ImageBase (8 bytes): any; addresses go over relative to it */
    wr32(opt + 32, 0x1000); /* SectionAlignment */
    wr32(opt + 36, 0x200);  /* FileAlignment */
    wr16(opt + 48, 6);      /* MajorSubsystemVersion */
    wr32(opt + 56, (uint32_t)(0x1000 + ((data + 0xfff) & ~(size_t)0xfff))); /* SizeOfImage */
    wr32(opt + 60, 0x200);  /* SizeOfHeaders */
    wr16(opt + 68, 10);     /* Subsystem: EFI application */
    wr32(opt + 108, 16);    /* NumberOfRvaAndSizes */
    wr32(opt + 112 + 6 * 8, 0x1000); /* Debug directory RVA */
    wr32(opt + 112 + 6 * 8 + 4, 28);
    memcpy(sh, ".rdata", 6);
    wr32(sh + 8, (uint32_t)data);  /* VirtualSize */
    wr32(sh + 12, 0x1000);         /* VirtualAddress */
    wr32(sh + 16, (uint32_t)raw);  /* SizeOfRawData */
    wr32(sh + 20, 0x200);          /* PointerToRawData */
    wr32(sh + 36, 0x40000040);     /* INITIALIZED_DATA | MEM_READ */
    wr32(d + 12, 2);               /* Type: CODEVIEW */
    wr32(d + 16, (uint32_t)(24 + plen));
    wr32(d + 20, 0x1000 + 28);     /* AddressOfRawData */
    wr32(d + 24, 0x200 + 28);      /* PointerToRawData */
    memcpy(d + 28, "RSDS", 4);
    memcpy(d + 32, cv->guid, 16);
    wr32(d + 48, cv->age);
    memcpy(d + 52, pdb_abs, plen);
    FILE *f = fopen(file, "wb");
    int ok = f && fwrite(b, 1, total, f) == total;
    if (f && fclose(f) != 0)
        ok = 0;
    free(b);
    return ok ? 0 : -1;
}

static void helper_stop(struct fwpt_symbols_pdb *s, int ms)
{
    if (s->fd >= 0) {
        shutdown(s->fd, SHUT_WR); /* end of its input: it exits */
        close(s->fd);
        s->fd = -1;
    }
    if (s->pid > 0)
        reap(s->pid, ms);
    s->pid = 0;
}

static void helper_failed(struct fwpt_symbols_pdb *s, const char *why)
{
    if (!s->failure[0])
        snprintf(s->failure, sizeof s->failure, "%s: llvm-symbolizer stopped answering (%s): file and line not "
                 "known after this", s->path, why);
    if (s->pid > 0)
        kill(s->pid, SIGKILL);
    helper_stop(s, 1000);
}

/* One line of the helper's answer (without its newline) into s->reply; NULL on a timeout, EOF or error. */
static const char *helper_line(struct fwpt_symbols_pdb *s, const char **why)
{
    for (;;) {
        char *nl = s->reply_have ? memchr(s->reply, '\n', s->reply_have) : NULL;
        if (nl) {
            *nl = 0;
            return s->reply;
        }
        if (s->reply_have + 4097 > s->reply_cap) {
            if (s->reply_cap >= (64u << 20)) {
                *why = "an answer longer than 64 MiB";
                return NULL;
            }
            size_t cap = s->reply_cap ? 2 * s->reply_cap : 16384;
            char *r = realloc(s->reply, cap);
            if (!r) {
                *why = "out of memory";
                return NULL;
            }
            s->reply = r;
            s->reply_cap = cap;
        }
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        int pr = poll(&p, 1, REPLY_TIMEOUT_MS);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0) {
            *why = "no answer within 30 s";
            return NULL;
        }
        ssize_t got = pr < 0 ? -1 : recv(s->fd, s->reply + s->reply_have, s->reply_cap - s->reply_have - 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            *why = got == 0 ? "it exited" : strerror(errno);
            return NULL;
        }
        s->reply_have += (size_t)got;
    }
}

/* The reply line consumed: what follows its newline moves to the front. */
static void helper_consume(struct fwpt_symbols_pdb *s)
{
    size_t used = strlen(s->reply) + 1;
    memmove(s->reply, s->reply + used, s->reply_have - used);
    s->reply_have -= used;
}

struct frames {
    unsigned count;
    char file[4096];
    uint64_t line;
    char cur_file[4096];
    uint64_t cur_line;
    int have_line;
};

static int each_frame(void *ctx)
{
    struct frames *f = ctx;
    f->count++; /* innermost first: the last frame is the function's own */
    snprintf(f->file, sizeof f->file, "%s", f->cur_file);
    f->line = f->have_line ? f->cur_line : 0;
    return 0;
}

static const char *intern_file(struct fwpt_symbols_pdb *s, const char *file)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i], file))
            return s->files[i];
    if (s->nfiles == s->capfiles) {
        size_t cap = s->capfiles ? 2 * s->capfiles : 32;
        char **f = realloc(s->files, cap * sizeof *f);
        if (!f)
            return NULL;
        s->files = f;
        s->capfiles = cap;
    }
    char *copy = strdup(file);
    if (copy)
        s->files[s->nfiles++] = copy;
    return copy;
}

/* Asks the helper about rva: the outermost frame's file and line, and whether there are inlined frames. 0, or -1
 * with why (s->failure is set by the caller). A JSON "Error" answer is an answer: nothing known. */
static int helper_ask(struct fwpt_symbols_pdb *s, uint64_t rva, struct fwpt_resolved *r, const char **why,
                      char *error_text, size_t error_cap)
{
    char q[40];
    int len = snprintf(q, sizeof q, "0x%llx\n", (unsigned long long)rva);
    if (send(s->fd, q, (size_t)len, MSG_NOSIGNAL) != len) {
        *why = strerror(errno);
        return -1;
    }
    const char *line = helper_line(s, why);
    if (!line)
        return -1;
    char addr[40] = "";
    const char *av = fwpt_json_value(line, "Address");
    if (!av || !fwpt_json_string(av, addr, sizeof addr) || strtoull(addr, NULL, 16) != rva) {
        *why = "an answer for another address";
        return -1;
    }
    const char *sym = fwpt_json_value(line, "Symbol");
    if (!sym) {
        const char *e = fwpt_json_value(line, "Message");
        if (error_text && error_cap)
            snprintf(error_text, error_cap, "%s", "an error without a message");
        if (e && error_text)
            fwpt_json_string(e, error_text, error_cap);
        helper_consume(s);
        return 0;
    }
    struct frames *f = calloc(1, sizeof *f);
    if (!f) {
        *why = "out of memory";
        return -1;
    }
    struct fwpt_json_field fields[] = {
        {.key = "FileName", .str = f->cur_file, .cap = sizeof f->cur_file},
        {.key = "Line", .num = &f->cur_line, .have = &f->have_line},
    };
    int rc = fwpt_json_array(sym, fields, 2, each_frame, f);
    if (rc != 0) {
        free(f);
        *why = "an answer that is not the JSON it prints";
        return -1;
    }
    if (f->file[0] && f->line > 0 && f->line <= UINT32_MAX) {
        r->file = intern_file(s, f->file);
        r->line = r->file ? (uint32_t)f->line : 0;
    }
    r->inlined = f->count > 1;
    free(f);
    helper_consume(s);
    return 0;
}

static enum fwpt_status helper_start(struct fwpt_symbols_pdb *s, const struct fwpt_codeview *cv, char *err, size_t n)
{
    char tool[512];
    if (!find_tool("llvm-symbolizer", "FWPT_LLVM_SYMBOLIZER", tool, sizeof tool)) {
        say(err, n, "%s: reading a PDB needs %s (Debian package llvm-14 or llvm), not found", s->path, tool);
        return FWPT_E_IO;
    }
    char abs[4096];
    if (!realpath(s->path, abs)) {
        say(err, n, "%s: %s", s->path, strerror(errno));
        return FWPT_E_IO;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[600], image[700], obj[760];
    snprintf(dir, sizeof dir, "%s/fwpt-pdb.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        say(err, n, "%s: cannot make a temporary directory %s: %s", s->path, dir, strerror(errno));
        return FWPT_E_IO;
    }
    snprintf(image, sizeof image, "%s/image.efi", dir);
    if (write_standin(image, cv, abs) != 0) {
        say(err, n, "%s: cannot write %s: %s", s->path, image, strerror(errno));
        rmdir(dir);
        return FWPT_E_IO;
    }
    snprintf(obj, sizeof obj, "--obj=%s", image);
    char *argv[] = {tool, obj, "--output-style=JSON", "--inlines", "--relative-address", "--no-demangle", NULL};
    int sv[2];
    enum fwpt_status st = FWPT_E_IO;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        say(err, n, "%s: socketpair: %s", s->path, strerror(errno));
        goto out;
    }
    s->pid = spawn(argv, sv[1], NULL, -1);
    close(sv[1]);
    s->fd = sv[0];
    if (s->pid < 0) {
        s->pid = 0;
        say(err, n, "%s: cannot run %s: %s", s->path, tool, strerror(errno));
        goto out;
    }
    /* the first question opens the stand-in and the PDB: an error answer here refuses the PDB */
    struct fwpt_resolved r = {0};
    const char *why = NULL;
    char error_text[400] = "";
    if (helper_ask(s, s->funcs[0].start - s->base, &r, &why, error_text, sizeof error_text) != 0) {
        say(err, n, "%s: %s does not answer (%s)", s->path, tool, why);
        goto out;
    }
    if (error_text[0]) {
        say(err, n, "%s: %s cannot read it: %s", s->path, tool, error_text);
        st = FWPT_E_INVAL;
        goto out;
    }
    st = FWPT_OK;
out:
    unlink(image); /* the helper keeps what it opened */
    rmdir(dir);
    if (st != FWPT_OK)
        helper_stop(s, 1000);
    return st;
}

/* The file at path is a regular file beginning with the PDB magic: FWPT_OK, else why in err. */
static enum fwpt_status check_magic(const char *path, char *err, size_t err_size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(err, err_size, "%s: %s", path, strerror(errno));
        return FWPT_E_IO;
    }
    struct stat stt;
    uint8_t head[FWPT_PDB_MAGIC_SIZE];
    ssize_t got = fstat(fd, &stt) == 0 && S_ISREG(stt.st_mode) ? read(fd, head, sizeof head) : -2;
    int e = errno;
    close(fd);
    if (got == -2) {
        say(err, err_size, "%s: not a regular file", path);
        return FWPT_E_INVAL;
    }
    if (got < 0) {
        say(err, err_size, "%s: %s", path, strerror(e));
        return FWPT_E_IO;
    }
    if (fwpt_symfile_kind(head, (size_t)got) != FWPT_SYMFILE_PDB) {
        say(err, err_size, "%s: not a PDB (no \"Microsoft C/C++ MSF 7.00\" header)", path);
        return FWPT_E_INVAL;
    }
    return FWPT_OK;
}

int fwpt_pdb_tools(char *err, size_t err_size)
{
    char tool[512];
    static const char *const names[][2] = {{"llvm-pdbutil", "FWPT_LLVM_PDBUTIL"},
                                           {"llvm-symbolizer", "FWPT_LLVM_SYMBOLIZER"}};
    for (size_t i = 0; i < 2; i++)
        if (!find_tool(names[i][0], names[i][1], tool, sizeof tool)) {
            say(err, err_size, "reading a PDB needs %s (Debian package llvm-14 or llvm), not found", tool);
            return 0;
        }
    return 1;
}

enum fwpt_status fwpt_pdb_signature(const char *path, char guid[40], uint32_t *age, char *err, size_t err_size)
{
    guid[0] = 0;
    *age = 0;
    enum fwpt_status st = check_magic(path, err, err_size);
    if (st != FWPT_OK)
        return st;
    struct fwpt_symbols_pdb *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        say(err, err_size, "%s: out of memory", path);
        return FWPT_E_NOMEM;
    }
    s->fd = -1;
    struct dump d = {0};
    st = read_dump(s, &d, 1, err, err_size);
    if (st == FWPT_OK && (!d.have_guid || !d.have_age)) {
        say(err, err_size, "%s: llvm-pdbutil printed no GUID and age for it", path);
        st = FWPT_E_INVAL;
    }
    if (st == FWPT_OK) {
        size_t len = strnlen(d.guid, 39); /* "{8-4-4-4-12}" */
        memcpy(guid, d.guid, len);
        guid[len] = 0;
        *age = d.age;
    }
    fwpt_symbols_pdb_close(s);
    return st;
}

enum fwpt_status fwpt_symbols_open_pdb(struct fwpt_symbols_pdb **out, const char *path, const uint8_t *image,
                                       size_t size, uint64_t load_base, char *err, size_t err_size)
{
    *out = NULL;
    say(err, err_size, "%s", "");
    enum fwpt_status mst = check_magic(path, err, err_size);
    if (mst != FWPT_OK)
        return mst;
    struct fwpt_codeview cv;
    char why[300];
    if (!image || fwpt_pe_codeview(image, size, &cv, why, sizeof why) != 0) {
        say(err, err_size, "%s: the traced image at 0x%llx names no PDB: %s", path, (unsigned long long)load_base,
            image ? why : "no image bytes");
        return FWPT_E_INVAL;
    }
    struct fwpt_symbols_pdb *s = calloc(1, sizeof *s);
    if (!s || fwpt_resolve_cache_init(&s->cache, ADDR_CACHE_SLOTS, 14) != 0 || !(s->path = strdup(path))) {
        if (s)
            fwpt_resolve_cache_free(&s->cache);
        free(s);
        say(err, err_size, "%s: out of memory", path);
        return FWPT_E_NOMEM;
    }
    s->fd = -1;
    s->base = load_base;
    struct dump d = {0};
    enum fwpt_status st = read_dump(s, &d, 0, err, err_size);
    if (st != FWPT_OK)
        goto fail;
    char want[40];
    fwpt_guid_text(cv.guid, want);
    st = FWPT_E_INVAL;
    if (!d.have_guid || !d.have_age) {
        say(err, err_size, "%s: llvm-pdbutil printed no GUID and age for it", path);
        goto fail;
    }
    if (strcasecmp(d.guid, want) || d.age != cv.age) {
        say(err, err_size, "%s: another build's PDB: it is %s age %u, the traced image names %s age %u (%s)", path,
            d.guid, d.age, want, cv.age, cv.path);
        goto fail;
    }
    st = place_funcs(s, err, err_size);
    if (st != FWPT_OK)
        goto fail;
    st = helper_start(s, &cv, err, err_size);
    if (st != FWPT_OK)
        goto fail;
    *out = s;
    return FWPT_OK;
fail:
    fwpt_symbols_pdb_close(s);
    return st;
}

void fwpt_symbols_pdb_close(struct fwpt_symbols_pdb *s)
{
    if (!s)
        return;
    helper_stop(s, 2000);
    for (size_t i = 0; i < s->nfuncs; i++)
        free(s->funcs[i].name);
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    free(s->funcs);
    fwpt_resolve_cache_free(&s->cache);
    free(s->reply);
    free(s->path);
    free(s);
}

static const struct pfunc *find_func(const struct fwpt_symbols_pdb *s, uint64_t address)
{
    size_t lo = 0, hi = s->nfuncs; /* the first function starting after address */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->funcs[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0) { /* the nearest start at or below address whose range holds it (the first of equal starts) */
        size_t first = lo - 1;
        while (first > 0 && s->funcs[first - 1].start == s->funcs[first].start)
            first--;
        if (address < s->funcs[first].end)
            return &s->funcs[first];
        lo = first;
        if (address - s->funcs[first].start > (1u << 24))
            break;
    }
    return NULL;
}

static int in_code(const struct fwpt_symbols_pdb *s, uint64_t address)
{
    if (address < s->base)
        return 0;
    uint64_t rva = address - s->base;
    for (size_t i = 0; i < s->nsec; i++)
        if ((s->sec[i].flags & 0x20000020u) && s->sec[i].rva <= rva && rva < (uint64_t)s->sec[i].rva + s->sec[i].size)
            return 1; /* IMAGE_SCN_MEM_EXECUTE or IMAGE_SCN_CNT_CODE */
    return 0;
}

static int lookup(struct fwpt_symbols_pdb *s, uint64_t address, struct fwpt_resolved *r)
{
    *r = (struct fwpt_resolved){0};
    if (!in_code(s, address))
        return 0;
    const struct pfunc *f = find_func(s, address);
    if (f) {
        r->function = f->name;
        r->function_entry = f->start;
    }
    if (s->pid > 0) {
        const char *why = NULL;
        if (helper_ask(s, address - s->base, r, &why, NULL, 0) != 0) {
            r->file = NULL, r->line = 0, r->inlined = 0;
            helper_failed(s, why);
        }
    }
    return r->function || r->file;
}

static int lookup_any(void *ctx, uint64_t address, struct fwpt_resolved *r) { return lookup(ctx, address, r); }

static int resolve(void *ctx, uint64_t address, struct fwpt_resolved *out)
{
    struct fwpt_symbols_pdb *s = ctx;
    return fwpt_resolve_cached(&s->cache, address, out, lookup_any, s);
}

struct fwpt_resolver fwpt_symbols_pdb_resolver(struct fwpt_symbols_pdb *s)
{
    return (struct fwpt_resolver){.resolve = resolve, .ctx = s};
}

void fwpt_symbols_pdb_stats(const struct fwpt_symbols_pdb *s, uint64_t *cached, uint64_t *looked_up,
                            size_t *functions)
{
    *cached = s->cache.cached;
    *looked_up = s->cache.looked_up;
    *functions = s->nfuncs;
}

const char *fwpt_symbols_pdb_failure(const struct fwpt_symbols_pdb *s)
{
    return s->failure[0] ? s->failure : NULL;
}

/* ---- either kind ---- */

enum fwpt_status fwpt_symbols_open_any(struct fwpt_symfile *out, const char *path, const uint8_t *image, size_t size,
                                       uint64_t load_base, char *err, size_t err_size)
{
    *out = (struct fwpt_symfile){0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(err, err_size, "%s: %s", path, strerror(errno));
        return FWPT_E_IO;
    }
    uint8_t head[FWPT_PDB_MAGIC_SIZE];
    ssize_t got = read(fd, head, sizeof head);
    int e = errno;
    close(fd);
    if (got < 0) {
        say(err, err_size, "%s: %s", path, strerror(e));
        return FWPT_E_IO;
    }
    enum fwpt_symfile_kind kind = fwpt_symfile_kind(head, (size_t)got);
    enum fwpt_status st;
    if (kind == FWPT_SYMFILE_ELF)
        st = fwpt_symbols_open(&out->elf, path, load_base, err, err_size);
    else if (kind == FWPT_SYMFILE_PDB)
        st = fwpt_symbols_open_pdb(&out->pdb, path, image, size, load_base, err, err_size);
    else {
        say(err, err_size, "%s: neither an ELF file nor a PDB", path);
        return FWPT_E_INVAL;
    }
    if (st == FWPT_OK)
        out->kind = kind;
    return st;
}

struct fwpt_resolver fwpt_symfile_resolver(struct fwpt_symfile *f)
{
    if (f->kind == FWPT_SYMFILE_ELF)
        return fwpt_symbols_resolver(f->elf);
    if (f->kind == FWPT_SYMFILE_PDB)
        return fwpt_symbols_pdb_resolver(f->pdb);
    return (struct fwpt_resolver){0};
}

void fwpt_symfile_close(struct fwpt_symfile *f)
{
    fwpt_symbols_close(f->elf);
    fwpt_symbols_pdb_close(f->pdb);
    *f = (struct fwpt_symfile){0};
}
