/* fwpt — the host's resolver backend over elfutils' libdwfl/libdw (tools/symbols_dw.h). The function symbols
 * are read once into a table sorted by address (the per-function cache: a lookup is a binary search); line rows
 * and inlined scopes are asked of libdw once per address and kept in a direct-mapped per-address cache. */
#include "tools/symbols_dw.h"

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

struct func {
    uint64_t start, end; /* runtime addresses, end exclusive */
    const char *name;
    int rank; /* among symbols at one address: global 2, weak 1, local 0 */
    int have_scope;
    Dwarf_Die scope; /* the unit's child DIE last found holding an address of this function */
};

struct addr_slot {
    uint64_t address;
    int valid, known;
    struct fwpt_resolved r;
};

struct fwpt_symbols {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    uint64_t base;  /* runtime load base */
    uint64_t shift; /* runtime address - libdwfl's address of the same byte */
    struct func *funcs;
    size_t nfuncs;
    struct addr_slot *cache;
    struct { uint64_t start, end; } code[16]; /* runtime ranges of the executable sections */
    size_t ncode;
    struct joined { const char *file; char *path; } *joined; /* relative line-table names joined to comp_dir */
    size_t njoined, capjoined;
    uint64_t cached, looked_up;
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
    if (!s || !(s->cache = calloc(ADDR_CACHE_SLOTS, sizeof *s->cache))) {
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
    free(s->funcs);
    free(s->cache);
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

static int resolve(void *ctx, uint64_t address, struct fwpt_resolved *out)
{
    struct fwpt_symbols *s = ctx;
    struct addr_slot *slot = &s->cache[(address ^ (address >> 12)) & (ADDR_CACHE_SLOTS - 1)];
    if (slot->valid && slot->address == address) {
        s->cached++;
        *out = slot->r;
        return slot->known;
    }
    s->looked_up++;
    slot->known = lookup(s, address, &slot->r);
    slot->address = address;
    slot->valid = 1;
    *out = slot->r;
    return slot->known;
}

struct fwpt_resolver fwpt_symbols_resolver(struct fwpt_symbols *s)
{
    return (struct fwpt_resolver){.resolve = resolve, .ctx = s};
}

void fwpt_symbols_stats(const struct fwpt_symbols *s, uint64_t *cached, uint64_t *looked_up)
{
    *cached = s->cached;
    *looked_up = s->looked_up;
}
