/* fwpt — the host's resolver backend over elfutils' libdwfl/libdw (tools/symbols_dw.h). The function symbols
 * are read once into a table sorted by address (the per-function cache: a lookup is a binary search). On the
 * first lookup inside a function, libdw is asked once for everything the function's addresses can answer: the
 * line-table rows of its range (DWARF 5 "Line Number Information": each row holds from its address to the next
 * row's) and the ranges of the DW_TAG_inlined_subroutine entries below its DIE; every later address of it is two
 * binary searches, no libdw call (the per-address walk, kept for what the function's table does not cover, answers
 * the same: test_symbols compares the two on every byte of DxeCore's .text). In front of both, a direct-mapped
 * per-address cache of whole answers. */
#include "tools/symbols_dw.h"
#include "tools/resolve_cache.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ADDR_CACHE_SLOTS 4096 /* a power of two */

struct range {
    uint64_t lo, hi; /* runtime addresses, hi exclusive */
};

/* One stretch of a function's line rows: from start to the next row's start the same answer. */
struct row {
    uint64_t start;   /* runtime address */
    const char *file; /* NULL: no line there (before the first row, or after an end_sequence row) */
    uint32_t line;
};

/* What a function's addresses answer, read from libdw once (build_table): valid for the addresses inside both
 * the function's symbol range and scope (its DIE's ranges). */
struct table {
    struct row *rows; /* sorted, rows[0].start == the function's start */
    size_t nrows;
    struct range *scope, *inl; /* sorted; inl: the inlined subroutines' ranges, merged */
    size_t nscope, ninl;
    int whole_inlined; /* the DIE itself is an inlined subroutine */
};

struct func {
    uint64_t start, end; /* runtime addresses, end exclusive */
    const char *name;
    int rank; /* among symbols at one address: global 2, weak 1, local 0 */
    int have_scope;
    Dwarf_Die scope; /* the unit's child DIE last found holding an address of this function */
    int table_state; /* 0: not read yet, 1: table holds, -1: the per-address walk answers for this function */
    struct table table;
};

struct fwpt_symbols {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    uint64_t base;  /* runtime load base */
    uint64_t shift; /* runtime address - libdwfl's address of the same byte */
    struct func *funcs;
    size_t nfuncs;
    struct fwpt_resolve_cache cache;
    struct { uint64_t start, end; } code[16]; /* runtime ranges of the executable sections */
    size_t ncode;
    struct joined { const char *file; char *path; } *joined; /* relative line-table names joined to comp_dir */
    size_t njoined, capjoined;
    uint64_t tabled; /* answers from the functions' tables (the others: the per-address walk) */
    int no_tables; /* fwpt_symbols_set_tables(s, 0): every answer through the per-address walk */
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

/* The file itself holds whatever DWARF there is: no search of /usr/lib/debug or debuginfod. */
static int no_separate_debuginfo(Dwfl_Module *m, void **u, const char *mn, Dwarf_Addr b, const char *f,
                                 const char *dl, GElf_Word crc, char **name)
{
    (void)m, (void)u, (void)mn, (void)b, (void)f, (void)dl, (void)crc, (void)name;
    return -1;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_separate_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* A whole x86-64 ELF file: the class, machine and every header, section and segment inside the file's size. */
static enum fwpt_status check_elf(const char *path, int fd, char *err, size_t n)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        say(err, n, "%s: %s", path, strerror(errno));
        return FWPT_E_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        say(err, n, "%s: not a regular file", path);
        return FWPT_E_INVAL;
    }
    uint64_t size = (uint64_t)st.st_size;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    enum fwpt_status s = FWPT_E_INVAL;
    GElf_Ehdr eh;
    size_t shnum = 0, phnum = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        say(err, n, "%s: not an ELF file (%s)", path, size < EI_NIDENT ? "shorter than an ELF header"
                                                                       : "no ELF header");
        goto out;
    }
    if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        say(err, n, "%s: an ELF file for %s, machine %u: symbols for x86-64 images need an x86-64 ELF file", path,
            gelf_getclass(elf) == ELFCLASS64 ? "64 bits" : "32 bits", (unsigned)eh.e_machine);
        goto out;
    }
    if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) {
        say(err, n, "%s: ELF type %u is not a linked image (executable or shared object)", path,
            (unsigned)eh.e_type);
        goto out;
    }
    if (elf_getshdrnum(elf, &shnum) != 0 || elf_getphdrnum(elf, &phnum) != 0 ||
        eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > size || eh.e_phoff + (uint64_t)phnum * eh.e_phentsize > size) {
        say(err, n, "%s: truncated: its headers end past the file's %llu bytes", path, (unsigned long long)size);
        goto out;
    }
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_offset + ph.p_filesz > size) {
            say(err, n, "%s: truncated: segment %zu ends past the file's %llu bytes", path, i,
                (unsigned long long)size);
            goto out;
        }
    }
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > size)) {
            say(err, n, "%s: truncated: section %zu ends past the file's %llu bytes", path, elf_ndxscn(scn),
                (unsigned long long)size);
            goto out;
        }
    }
    s = FWPT_OK;
out:
    if (elf)
        elf_end(elf);
    return s;
}

static int func_order(const void *a, const void *b)
{
    const struct func *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return y->rank - x->rank; /* the preferred alias first */
}

/* The function symbols, sorted; a symbol without a size ends where the next function starts. */
static enum fwpt_status read_funcs(struct fwpt_symbols *s, const char *path, char *err, size_t n)
{
    int count = dwfl_module_getsymtab(s->mod);
    if (count < 0) {
        say(err, n, "%s: no symbol table (%s)", path, dwfl_errmsg(-1));
        return FWPT_E_INVAL;
    }
    s->funcs = calloc((size_t)count + 1, sizeof *s->funcs);
    if (!s->funcs) {
        say(err, n, "%s: out of memory for %d symbols", path, count);
        return FWPT_E_NOMEM;
    }
    for (int i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
            continue;
        struct func *f = &s->funcs[s->nfuncs++];
        f->start = addr + s->shift;
        f->end = f->start + sym.st_size;
        f->name = name;
        f->rank = GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 2 : GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 0;
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

enum fwpt_status fwpt_symbols_open(struct fwpt_symbols **out, const char *path, uint64_t load_base, char *err,
                                   size_t err_size)
{
    *out = NULL;
    say(err, err_size, "%s", "");
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(err, err_size, "%s: %s", path, strerror(errno));
        return FWPT_E_IO;
    }
    enum fwpt_status st = check_elf(path, fd, err, err_size);
    close(fd);
    if (st != FWPT_OK)
        return st;
    struct fwpt_symbols *s = calloc(1, sizeof *s);
    if (!s || fwpt_resolve_cache_init(&s->cache, ADDR_CACHE_SLOTS, 12) != 0) {
        free(s);
        say(err, err_size, "%s: out of memory", path);
        return FWPT_E_NOMEM;
    }
    s->base = load_base;
    st = FWPT_E_INVAL;
    s->dwfl = dwfl_begin(&callbacks);
    if (!s->dwfl) {
        say(err, err_size, "%s: %s", path, dwfl_errmsg(-1));
        goto fail;
    }
    dwfl_report_begin(s->dwfl);
    const char *slash = strrchr(path, '/');
    /* add_p_vaddr: a shared object's bias is load_base (an executable's is 0 whatever the base: shift covers it) */
    s->mod = dwfl_report_elf(s->dwfl, slash ? slash + 1 : path, path, -1, load_base, true);
    dwfl_report_end(s->dwfl, NULL, NULL);
    Dwarf_Addr bias = 0;
    if (!s->mod || !dwfl_module_getelf(s->mod, &bias)) {
        say(err, err_size, "%s: %s", path, dwfl_errmsg(-1));
        goto fail;
    }
    s->shift = load_base - bias; /* runtime = ELF address + load_base; libdwfl's = ELF address + bias */
    Elf *elf = dwfl_module_getelf(s->mod, &bias);
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && s->ncode < 16; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR)) {
            s->code[s->ncode].start = sh.sh_addr + load_base;
            s->code[s->ncode++].end = sh.sh_addr + sh.sh_size + load_base;
        }
    }
    st = read_funcs(s, path, err, err_size);
    if (st != FWPT_OK)
        goto fail;
    *out = s;
    return FWPT_OK;
fail:
    fwpt_symbols_close(s);
    return st;
}

void fwpt_symbols_close(struct fwpt_symbols *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->njoined; i++)
        free(s->joined[i].path);
    free(s->joined);
    for (size_t i = 0; s->funcs && i < s->nfuncs; i++) {
        free(s->funcs[i].table.rows);
        free(s->funcs[i].table.scope);
        free(s->funcs[i].table.inl);
    }
    free(s->funcs);
    fwpt_resolve_cache_free(&s->cache);
    free(s);
}

static struct func *find_func(struct fwpt_symbols *s, uint64_t address)
{
    size_t lo = 0, hi = s->nfuncs; /* the first function starting after address */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->funcs[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the nearest start at or below address whose range holds it (the first of equal starts: the preferred alias) */
    while (lo > 0) {
        struct func *f = &s->funcs[lo - 1];
        size_t first = lo - 1;
        while (first > 0 && s->funcs[first - 1].start == f->start)
            first--;
        if (address < s->funcs[first].end)
            return &s->funcs[first];
        lo = first;
        if (address - s->funcs[first].start > (1u << 24))
            break; /* nothing that large encloses it */
    }
    return NULL;
}

/* 1 when pc lies in a DW_TAG_inlined_subroutine below die: the scopes holding pc, walked down from the unit
 * (libdw's dwarf_getscopes finds none in GCC's LTO units, where every concrete DIE has an abstract origin). */
/* The child of parent whose code ranges hold pc, in *out: 1 when there is one. */
static int holder(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out)
{
    if (dwarf_child(parent, out) != 0)
        return 0;
    do
        if (dwarf_haspc(out, pc) > 0)
            return 1;
    while (dwarf_siblingof(out, out) == 0);
    return 0;
}

static int in_inlined(Dwarf_Die *unit, Dwarf_Addr pc, struct func *f)
{
    Dwarf_Die cur, child;
    if (f && f->have_scope && dwarf_haspc(&f->scope, pc) > 0) {
        cur = f->scope; /* the function's own DIE: the unit's other children are not scanned again */
    } else {
        if (!holder(unit, pc, &cur))
            return 0;
        if (f) {
            f->scope = cur;
            f->have_scope = 1;
        }
    }
    for (int depth = 0; depth < 64; depth++) {
        if (dwarf_tag(&cur) == DW_TAG_inlined_subroutine)
            return 1;
        if (!holder(&cur, pc, &child))
            return 0;
        cur = child;
    }
    return 0;
}

/* A relative name of the line table as addr2line prints it: after the unit's compilation directory (DWARF 5
 * "Line Number Information": a relative entry is relative to DW_AT_comp_dir). Made once per name. */
static const char *full_path(struct fwpt_symbols *s, Dwfl_Line *line, const char *file)
{
    const char *dir = dwfl_line_comp_dir(line);
    if (file[0] == '/' || !dir || !*dir)
        return file;
    for (size_t i = 0; i < s->njoined; i++)
        if (s->joined[i].file == file)
            return s->joined[i].path;
    if (s->njoined == s->capjoined) {
        size_t cap = s->capjoined ? 2 * s->capjoined : 64;
        struct joined *j = realloc(s->joined, cap * sizeof *j);
        if (!j)
            return file;
        s->joined = j;
        s->capjoined = cap;
    }
    size_t n = strlen(dir) + strlen(file) + 2;
    char *path = malloc(n);
    if (!path)
        return file;
    snprintf(path, n, "%s/%s", dir, file);
    s->joined[s->njoined++] = (struct joined){file, path};
    return path;
}

/* ---- a function's table: its line rows and inlined ranges, read from libdw once ---- */

static int push_range(struct range **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        struct range *w = realloc(*v, c * sizeof *w);
        if (!w)
            return -1;
        *v = w;
        *cap = c;
    }
    (*v)[(*n)++] = (struct range){lo, hi};
    return 0;
}

/* die's code ranges (DWARF 5 "Code Addresses, Ranges and Base Addresses"; dwarf_haspc asks the same), the empty
 * ones left out, plus off (to runtime addresses), appended to *v. -1: out of memory. */
static int die_ranges(Dwarf_Die *die, uint64_t off, struct range **v, size_t *n, size_t *cap)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t o = 0;
    while ((o = dwarf_ranges(die, o, &base, &lo, &hi)) > 0)
        if (lo < hi && push_range(v, n, cap, lo + off, hi + off))
            return -1;
    return 0;
}

static int has_code(Dwarf_Die *die)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t o = 0;
    while ((o = dwarf_ranges(die, o, &base, &lo, &hi)) > 0)
        if (lo < hi)
            return 1;
    return 0;
}

/* The ranges of the DW_TAG_inlined_subroutine entries below parent (level levels below the function's DIE),
 * reached as in_inlined walks: only through entries that have code ranges, 63 levels at most. */
static int collect_inlined(Dwarf_Die *parent, int level, uint64_t off, struct table *t, size_t *cap)
{
    Dwarf_Die c;
    if (level >= 63 || dwarf_child(parent, &c) != 0)
        return 0;
    do {
        if (dwarf_tag(&c) == DW_TAG_inlined_subroutine) {
            if (die_ranges(&c, off, &t->inl, &t->ninl, cap))
                return -1;
        } else if (has_code(&c) && collect_inlined(&c, level + 1, off, t, cap)) {
            return -1;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
    return 0;
}

static int range_order(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : 0;
}

/* Sorts and merges overlapping or touching ranges. */
static void merge_ranges(struct range *v, size_t *n)
{
    if (*n < 2)
        return;
    qsort(v, *n, sizeof *v, range_order);
    size_t k = 0;
    for (size_t i = 1; i < *n; i++) {
        if (v[i].lo <= v[k].hi) {
            if (v[i].hi > v[k].hi)
                v[k].hi = v[i].hi;
        } else {
            v[++k] = v[i];
        }
    }
    *n = k + 1;
}

/* 1 when a sorted, disjoint list holds address. */
static int in_ranges(const struct range *v, size_t n, uint64_t address)
{
    size_t lo = 0, hi = n; /* the first range starting after address */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].lo <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && address < v[lo - 1].hi;
}

/* Row i of the unit's line table: its address (the unit's, as libdw keeps it) and whether it ends a sequence. */
static int row_addr(Dwarf_Die *cu, size_t i, Dwarf_Addr *addr, bool *end)
{
    Dwarf_Addr bias;
    Dwfl_Line *l = dwfl_onesrcline(cu, i);
    Dwarf_Line *dl = l ? dwfl_dwarf_line(l, &bias) : NULL;
    if (!dl || dwarf_lineaddr(dl, addr) != 0 || dwarf_lineendsequence(dl, end) != 0)
        return -1;
    return 0;
}

static int push_row(struct fwpt_symbols *s, struct table *t, size_t *cap, uint64_t start, Dwarf_Die *cu,
                    size_t i, bool known)
{
    const char *file = NULL;
    int lineno = 0;
    if (known) {
        Dwfl_Line *line = dwfl_onesrcline(cu, i);
        file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        file = file && lineno > 0 ? full_path(s, line, file) : NULL;
    }
    if (t->nrows && t->rows[t->nrows - 1].start == start) { /* rows at one address: the last one answers */
        t->rows[t->nrows - 1] = (struct row){start, file, file ? (uint32_t)lineno : 0};
        return 0;
    }
    if (t->nrows == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        struct row *w = realloc(t->rows, c * sizeof *w);
        if (!w)
            return -1;
        t->rows = w;
        *cap = c;
    }
    t->rows[t->nrows++] = (struct row){start, file, file ? (uint32_t)lineno : 0};
    return 0;
}

/* f's table, when its whole range lies in one compile unit that holds it: the line rows over the range as
 * dwfl_module_getsrc finds them (the last row at or below an address; none when that row ends a sequence), the
 * function's DIE (the unit's child holding its start: its ranges are the table's scope) and the inlined
 * subroutines below it. Otherwise (or out of memory) f->table_state = -1: the per-address walk answers. */
static void build_table(struct fwpt_symbols *s, struct func *f)
{
    struct table *t = &f->table;
    f->table_state = -1;
    Dwarf_Addr a0 = f->start - s->shift, a1 = f->end - 1 - s->shift, cubias = 0, bias1 = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(s->mod, a0, &cubias);
    if (!cu || dwfl_module_addrdie(s->mod, a1, &bias1) != cu || bias1 != cubias)
        return;
    const uint64_t off = s->shift + cubias; /* the unit's address + off = runtime address */
    struct range *ur = NULL;
    size_t nur = 0, cap = 0;
    int whole = 0;
    if (die_ranges(cu, off, &ur, &nur, &cap))
        goto fail;
    for (size_t i = 0; i < nur; i++)
        whole |= ur[i].lo <= f->start && f->end <= ur[i].hi;
    free(ur);
    if (!whole)
        return; /* lookup's unit check would differ between its addresses */
    Dwarf_Die die;
    if (!holder(cu, a0 - cubias, &die))
        return;
    cap = 0;
    if (die_ranges(&die, off, &t->scope, &t->nscope, &cap))
        goto fail;
    merge_ranges(t->scope, &t->nscope);
    t->whole_inlined = dwarf_tag(&die) == DW_TAG_inlined_subroutine;
    cap = 0;
    if (!t->whole_inlined && collect_inlined(&die, 0, off, t, &cap))
        goto fail;
    merge_ranges(t->inl, &t->ninl);
    size_t nlines = 0;
    cap = 0;
    if (dwfl_getsrclines(cu, &nlines) != 0 || nlines == 0) {
        if (push_row(s, t, &cap, f->start, cu, 0, false))
            goto fail;
    } else {
        /* dwfl_module_getsrc's search: the last row whose address is at or below the function's start */
        const Dwarf_Addr x = a0 - cubias, xend = f->end - off;
        size_t l = 0, u = nlines - 1;
        Dwarf_Addr ra;
        bool end;
        while (l < u) {
            size_t idx = u - (u - l) / 2;
            if (row_addr(cu, idx, &ra, &end))
                goto fail;
            if (x < ra)
                u = idx - 1;
            else
                l = idx;
        }
        if (row_addr(cu, l, &ra, &end) || push_row(s, t, &cap, f->start, cu, l, !end && ra <= x))
            goto fail;
        for (size_t i = l + 1; i < nlines; i++) {
            if (row_addr(cu, i, &ra, &end))
                goto fail;
            if (ra >= xend)
                break;
            if (ra > x && push_row(s, t, &cap, ra + off, cu, i, !end))
                goto fail;
        }
    }
    f->table_state = 1;
    return;
fail:
    free(t->rows);
    free(t->scope);
    free(t->inl);
    *t = (struct table){0};
}

/* The answer of f's table for address (in f and in its scope): file, line and inlined. */
static void from_table(const struct table *t, uint64_t address, struct fwpt_resolved *r)
{
    size_t lo = 1, hi = t->nrows; /* rows[0] starts at the function: the first row starting after address */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    r->file = t->rows[lo - 1].file;
    r->line = t->rows[lo - 1].line;
    r->inlined = t->whole_inlined || in_ranges(t->inl, t->ninl, address);
}

static int lookup(struct fwpt_symbols *s, uint64_t address, struct fwpt_resolved *r)
{
    *r = (struct fwpt_resolved){0};
    size_t c = 0;
    while (c < s->ncode && !(s->code[c].start <= address && address < s->code[c].end))
        c++;
    if (c == s->ncode)
        return 0; /* not code: the headers, data, or line rows of functions the linker discarded (at 0) */
    struct func *f = find_func(s, address);
    if (f) {
        r->function = f->name;
        r->function_entry = f->start;
        if (!s->no_tables) {
            if (!f->table_state)
                build_table(s, f);
            if (f->table_state > 0 && in_ranges(f->table.scope, f->table.nscope, address)) {
                s->tabled++;
                from_table(&f->table, address, r);
                return 1;
            }
        }
    }
    Dwarf_Addr a = address - s->shift, cubias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(s->mod, a, &cubias);
    if (!cu || dwarf_haspc(cu, a - cubias) <= 0)
        return r->function != NULL; /* no compile unit covers it: a line-table row there is a discarded function's */
    Dwfl_Line *line = dwfl_module_getsrc(s->mod, a);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file && lineno > 0) {
        r->file = full_path(s, line, file);
        r->line = (uint32_t)lineno;
    }
    r->inlined = in_inlined(cu, a - cubias, f);
    return r->function || r->file;
}

static int lookup_any(void *ctx, uint64_t address, struct fwpt_resolved *r) { return lookup(ctx, address, r); }

static int resolve(void *ctx, uint64_t address, struct fwpt_resolved *out)
{
    struct fwpt_symbols *s = ctx;
    return fwpt_resolve_cached(&s->cache, address, out, lookup_any, s);
}

struct fwpt_resolver fwpt_symbols_resolver(struct fwpt_symbols *s)
{
    return (struct fwpt_resolver){.resolve = resolve, .ctx = s};
}

void fwpt_symbols_stats(const struct fwpt_symbols *s, uint64_t *cached, uint64_t *looked_up)
{
    *cached = s->cache.cached;
    *looked_up = s->cache.looked_up;
}

uint64_t fwpt_symbols_tabled(const struct fwpt_symbols *s) { return s->tabled; }

void fwpt_symbols_set_tables(struct fwpt_symbols *s, int on)
{
    s->no_tables = !on;
    fwpt_resolve_cache_clear(&s->cache);
}
