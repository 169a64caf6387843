/* fwpt — a function's counts per source line (see annotate.h). */
#include "render/annotate.h"
#include "base/json.h"
#include "render/flame.h"

#define CONTEXT 2 /* lines without counts shown before, after and between the lines with counts */

size_t fwpt_annotate_group(struct fwpt_annotation *a)
{
    a->nfns = 0;
    for (size_t i = 0; i < a->n; i++) {
        struct fwpt_resolved r;
        fwpt_resolve(a->resolver, a->addrs[i].addr, &r);
        if (!r.function)
            continue;
        struct fwpt_annotate_fn *last = a->nfns ? &a->fns[a->nfns - 1] : NULL;
        if (last && last->entry == r.function_entry && !fwpt_strcmp(last->name, r.function)) {
            last->n = i - last->first + 1; /* an address between that no symbol covers: inside it all the same */
            last->count += a->addrs[i].count;
            continue;
        }
        a->fns[a->nfns++] = (struct fwpt_annotate_fn){r.function, r.function_entry, a->addrs[i].count, i, 1};
    }
    return a->nfns;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* needle in hay, ignoring case */
static bool contains(const char *hay, const char *needle)
{
    size_t nn = fwpt_strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < nn && hay[k] && lower(hay[k]) == lower(needle[k]))
            k++;
        if (k == nn)
            return true;
    }
    return !nn;
}

/* The edit distance of a and b ignoring case, when both are at most 63 characters; else a large number. */
static unsigned distance(const char *a, const char *b)
{
    size_t na = fwpt_strlen(a), nb = fwpt_strlen(b);
    if (na > 63 || nb > 63)
        return 1000;
    unsigned row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= na; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= nb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (lower(a[i - 1]) != lower(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

static bool near_name(const char *func, const char *name)
{
    size_t n = fwpt_strlen(func), m = fwpt_strlen(name);
    size_t most = n < 8 ? 2 : n / 4; /* edits: at least as many as the lengths differ by */
    if (contains(name, func) || contains(func, name))
        return true;
    return (n > m ? n - m : m - n) <= most && distance(func, name) <= most;
}

/* "Module+0xOFF" of addr, or "0xADDR" outside every module */
static void put_where(const struct fwpt_annotation *a, uint64_t addr, const struct fwpt_sink *o)
{
    if (a->mods && fwpt_image_module_find(a->mods, addr, NULL))
        fwpt_image_module_put_where(a->mods, o, addr, 0);
    else
        fwpt_put_0x(o, addr);
}

/* Up to max functions whose name is near func (or, with func NULL, any), by count descending: "A (Module+0xOFF),
 * B (...)"; returns how many were named. */
static unsigned put_names(const struct fwpt_annotation *a, const char *func, unsigned max, const struct fwpt_sink *o)
{
    uint64_t below = UINT64_MAX; /* the next one named counts less than this, or as much but comes later */
    size_t after = (size_t)-1;
    unsigned shown = 0;
    for (; shown < max; shown++) {
        size_t best = (size_t)-1;
        for (size_t i = 0; i < a->nfns; i++) {
            const struct fwpt_annotate_fn *f = &a->fns[i];
            if (f->count > below || (f->count == below && (after == (size_t)-1 || i <= after)))
                continue;
            if (func && !near_name(func, f->name))
                continue;
            if (best == (size_t)-1 || f->count > a->fns[best].count)
                best = i;
        }
        if (best == (size_t)-1)
            break;
        below = a->fns[best].count;
        after = best;
        fwpt_puts(o, shown ? ", " : "");
        fwpt_puts(o, a->fns[best].name);
        fwpt_puts(o, " (");
        put_where(a, a->fns[best].entry, o);
        fwpt_puts(o, ")");
    }
    return shown;
}

/* The modules named name ("Module" of Module+0xOFF or Module!NAME: n characters); 0: none. */
static bool module_named(const struct fwpt_annotation *a, const char *name, size_t n)
{
    for (size_t m = 0; a->mods && m < a->mods->n; m++)
        if (fwpt_strlen(a->mods->v[m].name) == n && !fwpt_strncmp(a->mods->v[m].name, name, n))
            return true;
    return false;
}

/* Is entry in a module named name (n characters)? */
static bool in_module(const struct fwpt_annotation *a, uint64_t entry, const char *name, size_t n)
{
    const struct fwpt_module *m = a->mods ? fwpt_image_module_at(a->mods, entry, 0) : NULL;
    return m && fwpt_strlen(m->name) == n && !fwpt_strncmp(m->name, name, n);
}

/* "Module+0xOFF": the function holding that address. */
static size_t select_at(const struct fwpt_annotation *a, const char *func, size_t mlen, uint64_t off, size_t *sel,
                        const struct fwpt_sink *err)
{
    uint64_t addr = 0;
    bool found = false;
    for (size_t m = 0; a->mods && m < a->mods->n && !found; m++) {
        const struct fwpt_module *mod = &a->mods->v[m];
        if (fwpt_strlen(mod->name) == mlen && !fwpt_strncmp(mod->name, func, mlen) && off < mod->size)
            addr = mod->base + off, found = true;
    }
    if (!found) {
        fwpt_puts(err, module_named(a, func, mlen) ? "the offset is past the end of the module"
                                                   : "no traced module by that name");
        return 0;
    }
    struct fwpt_resolved r;
    fwpt_resolve(a->resolver, addr, &r);
    if (!r.function) {
        fwpt_printf(err, "no function symbol covers 0x%lx (no symbol file for the module, or not in a function)",
                    (unsigned long)addr);
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < a->nfns; i++)
        if (a->fns[i].entry == r.function_entry)
            sel[k++] = i;
    if (!k) {
        fwpt_printf(err, "%s (", r.function);
        put_where(a, r.function_entry, err);
        fwpt_puts(err, ") did not run in the trace");
    }
    return k;
}

size_t fwpt_annotate_select(const struct fwpt_annotation *a, const char *func, size_t *sel, const struct fwpt_sink *err)
{
    size_t len = fwpt_strlen(func);
    /* Module+0xOFF */
    for (size_t p = len; p-- > 0;) {
        uint64_t off;
        if (func[p] == '+' && p && p + 3 <= len && func[p + 1] == '0' && (func[p + 2] == 'x' || func[p + 2] == 'X') &&
            fwpt_parse_u64(func + p + 1, 1, &off) == 0)
            return select_at(a, func, p, off, sel, err);
    }
    const char *bang = NULL, *name = func;
    for (const char *s = func; *s; s++)
        if (*s == '!')
            bang = s;
    size_t mlen = bang ? (size_t)(bang - func) : 0;
    if (bang) {
        name = bang + 1;
        if (!module_named(a, func, mlen)) {
            fwpt_puts(err, "no traced module by that name");
            return 0;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < a->nfns; i++)
        if (!fwpt_strcmp(a->fns[i].name, name) && (!bang || in_module(a, a->fns[i].entry, func, mlen)))
            sel[k++] = i;
    if (k)
        return k;
    if (!a->nfns) {
        fwpt_puts(err, "the symbol files name no function that ran in the trace");
        return 0;
    }
    fwpt_puts(err, "no function by that name ran in the trace (of those the symbol files name); ");
    char junk[1];
    struct fwpt_bufsink jb;
    struct fwpt_sink none = fwpt_bufsink_init(&jb, junk, 0); /* counts only */
    if (put_names(a, name, 8, &none)) {
        fwpt_puts(err, "near names: ");
        put_names(a, name, 8, err);
    } else {
        fwpt_puts(err, "none is near; the functions that ran most: ");
        put_names(a, NULL, 5, err);
    }
    return 0;
}

/* ---- the lines of one function ---- */

static bool same_file(const char *x, const char *y) { return x == y || (x && y && !fwpt_strcmp(x, y)); }

static const char *basename(const char *f)
{
    const char *b = f;
    for (; *f; f++)
        if (*f == '/' || *f == '\\')
            b = f + 1;
    return b;
}

/* Orders rows: the main file first, then the other files by name, the rows without a line last; by line within
 * a file. */
static int row_before(const struct fwpt_annotate_row *x, const struct fwpt_annotate_row *y, const char *main)
{
    int rx = !x->file ? 2 : same_file(x->file, main) ? 0 : 1, ry = !y->file ? 2 : same_file(y->file, main) ? 0 : 1;
    if (rx != ry)
        return rx < ry;
    if (rx == 1) {
        int c = fwpt_strcmp(x->file, y->file);
        if (c)
            return c < 0;
    }
    return x->line < y->line;
}

/* The rows of f into a->rows (sorted by row_before), its main file (the entry's, else the one with most counts) and
 * entry line; returns how many. */
static size_t rows_of(struct fwpt_annotation *a, const struct fwpt_annotate_fn *f, const char **main, uint32_t *eline)
{
    struct fwpt_resolved r;
    fwpt_resolve(a->resolver, f->entry, &r);
    *main = r.file;
    *eline = r.file ? r.line : 0;
    size_t nr = 0;
    for (size_t i = f->first; i < f->first + f->n; i++) {
        fwpt_resolve(a->resolver, a->addrs[i].addr, &r);
        const char *file = r.line ? r.file : NULL;
        size_t k = 0;
        while (k < nr && !(same_file(a->rows[k].file, file) && a->rows[k].line == (file ? r.line : 0)))
            k++;
        if (k == nr)
            a->rows[nr++] = (struct fwpt_annotate_row){file, file ? r.line : 0, 0, 0};
        a->rows[k].count += a->addrs[i].count;
        a->rows[k].inlined |= r.inlined ? 1 : 0;
    }
    if (!*main) {
        uint64_t most = 0;
        for (size_t k = 0; k < nr; k++)
            if (a->rows[k].file && (!*main || a->rows[k].count > most))
                *main = a->rows[k].file, most = a->rows[k].count;
    }
    for (size_t k = 1; k < nr; k++) { /* insertion sort: a function has few lines */
        struct fwpt_annotate_row t = a->rows[k];
        size_t j = k;
        while (j && row_before(&t, &a->rows[j - 1], *main))
            a->rows[j] = a->rows[j - 1], j--;
        a->rows[j] = t;
    }
    return nr;
}

/* How one function is written: text or HTML. */
struct style {
    bool html;
    const struct fwpt_sink *o;
};

/* s right-aligned in width */
static void put_right(const struct fwpt_sink *o, const char *s, unsigned width)
{
    for (size_t n = fwpt_strlen(s); n < width; n++)
        fwpt_putc(o, ' ');
    fwpt_puts(o, s);
}

static void put_html_n(const struct fwpt_sink *o, const char *s, size_t n)
{
    char c[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        c[0] = s[i];
        fwpt_put_xml(o, c);
    }
}

/* One line: count and share (has: the line has counts), its place (label: FILE:LINE for other files, else the
 * line number), the source text (NULL: none). */
static void put_row(const struct style *st, bool has, uint64_t count, uint64_t total, const char *file, uint32_t line,
                    const char *text, size_t tlen)
{
    char cnt[24] = "", pct[16] = "", place[24];
    struct fwpt_bufsink b;
    struct fwpt_sink s;
    if (has) {
        s = fwpt_bufsink_init(&b, cnt, sizeof cnt - 1);
        fwpt_put_dec(&s, count);
        cnt[b.len] = 0;
        s = fwpt_bufsink_init(&b, pct, sizeof pct - 1);
        fwpt_flame_put_percent(&s, count, total);
        pct[b.len] = 0;
    }
    s = fwpt_bufsink_init(&b, place, sizeof place - 1);
    if (line)
        fwpt_put_dec(&s, line);
    else
        fwpt_puts(&s, "no line");
    place[b.len] = 0;
    const struct fwpt_sink *o = st->o;
    if (st->html) {
        fwpt_printf(o, "<tr><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">", cnt, pct);
        if (file) {
            fwpt_put_xml(o, basename(file));
            fwpt_puts(o, ":");
        }
        fwpt_printf(o, "%s</td><td class=\"src\">", place);
        if (text)
            put_html_n(o, text, tlen);
        fwpt_puts(o, "</td></tr>\n");
        return;
    }
    put_right(o, cnt, 10);
    fwpt_puts(o, " ");
    put_right(o, pct, 7);
    if (file) {
        fwpt_puts(o, "  ");
        fwpt_puts(o, basename(file));
        fwpt_printf(o, ":%s", place);
    } else {
        fwpt_puts(o, " ");
        put_right(o, place, 6);
    }
    if (text) {
        fwpt_puts(o, "  ");
        fwpt_putn(o, text, tlen);
    }
    fwpt_puts(o, "\n");
}

/* A note between the rows (a file not found, other files, a gap). */
static void put_note(const struct style *st, const char *what, const char *file)
{
    if (st->html) {
        fwpt_puts(st->o, "<tr><td colspan=\"4\" class=\"a\">");
        fwpt_put_xml(st->o, what);
        if (file)
            fwpt_put_xml(st->o, file);
        fwpt_puts(st->o, "</td></tr>\n");
        return;
    }
    fwpt_puts(st->o, what);
    if (file)
        fwpt_puts(st->o, file);
    fwpt_puts(st->o, "\n");
}

/* The text of file's line, or NULL; *missing set when the file cannot be read. */
static const char *source_line(const struct fwpt_annotation *a, const char *file, uint32_t line, size_t *len,
                               int *rc)
{
    const char *s = NULL;
    *len = 0;
    *rc = a->source && a->source->line && file ? a->source->line(a->source->ctx, file, line, &s, len) : -1;
    return *rc == 1 ? s : NULL;
}

/* The main file's rows rows[0..nm), with the source around them when it can be read. */
static void put_main(const struct style *st, const struct fwpt_annotation *a, const char *main, uint32_t eline,
                     size_t nm, uint64_t total)
{
    size_t len;
    int rc;
    if (!nm)
        return;
    source_line(a, main, a->rows[0].line, &len, &rc);
    if (rc < 0) {
        put_note(st, "source file not found (the counts per line alone): ", main);
        for (size_t k = 0; k < nm; k++)
            put_row(st, true, a->rows[k].count, total, NULL, a->rows[k].line, NULL, 0);
        return;
    }
    uint32_t first = a->rows[0].line, last = a->rows[nm - 1].line;
    if (eline && eline < first && first - eline <= 4 * CONTEXT)
        first = eline; /* the function's first line */
    first = first > CONTEXT ? first - CONTEXT : 1;
    size_t k = 0;
    bool gap = false;
    for (uint32_t l = first; l <= last + CONTEXT; l++) {
        while (k < nm && a->rows[k].line < l)
            k++;
        bool has = k < nm && a->rows[k].line == l;
        /* near a line with counts (or the entry line): shown; else part of a gap */
        bool near = has || l == eline || (k < nm && a->rows[k].line - l <= CONTEXT) ||
                    (k > 0 && l - a->rows[k - 1].line <= CONTEXT);
        if (!near) {
            if (!gap)
                put_note(st, "         ...", NULL);
            gap = true;
            continue;
        }
        gap = false;
        const char *text = source_line(a, main, l, &len, &rc);
        if (!text && l > last)
            break; /* past the end of the file */
        put_row(st, has, has ? a->rows[k].count : 0, total, NULL, l, text, len);
    }
}

static void put_function(const struct style *st, struct fwpt_annotation *a, size_t fn)
{
    const struct fwpt_annotate_fn *f = &a->fns[fn];
    const struct fwpt_sink *o = st->o;
    const char *main;
    uint32_t eline;
    size_t nr = rows_of(a, f, &main, &eline);
    const char *unit = a->ticks ? "TSC ticks" : "instructions";
    /* the header */
    if (st->html) {
        fwpt_puts(o, "<h3>");
        fwpt_put_xml(o, f->name);
        fwpt_puts(o, "</h3>\n<p><span class=\"a\">");
    } else {
        fwpt_puts(o, f->name);
        fwpt_puts(o, "  ");
    }
    put_where(a, f->entry, o);
    fwpt_puts(o, st->html ? " " : "  ");
    fwpt_put_0x(o, f->entry);
    fwpt_printf(o, "%s: %lu %s (", st->html ? "</span>" : "", (unsigned long)f->count, unit);
    fwpt_flame_put_percent(o, f->count, a->total);
    fwpt_printf(o, "%% of %lu in the trace)%s", (unsigned long)a->total, st->html ? "<br>\n" : "\n");
    fwpt_puts(o, "source: ");
    if (main) {
        if (st->html)
            fwpt_put_xml(o, main);
        else
            fwpt_puts(o, main);
        if (eline)
            fwpt_printf(o, " (the entry at line %u)", eline);
    } else {
        fwpt_puts(o, "not known (no line of the symbol files covers it)");
    }
    fwpt_puts(o, st->html ? "<br>\n" : "\n");
    fwpt_puts(o, "each instruction counts at the line of its address; code inlined from another function counts at "
                 "that function's line");
    if (a->dropped)
        fwpt_printf(o, "; %lu %s at addresses the table had no room for are counted nowhere", (unsigned long)a->dropped,
                    unit);
    if (st->html) {
        fwpt_puts(o, "</p>\n<table class=\"prof\">\n<tr><th>count</th><th>%</th><th>line</th><th>source</th></tr>\n");
    } else {
        fwpt_puts(o, "\n");
        put_right(o, a->ticks ? "ticks" : "insns", 10);
        fwpt_puts(o, "       %   line  source\n");
    }
    /* the main file, then the others, then what has no line */
    size_t nm = 0;
    while (nm < nr && a->rows[nm].file && same_file(a->rows[nm].file, main))
        nm++;
    put_main(st, a, main, eline, nm, f->count);
    const char *cur = NULL;
    int cur_rc = 0;
    for (size_t k = nm; k < nr; k++) {
        const struct fwpt_annotate_row *w = &a->rows[k];
        size_t len;
        int rc;
        const char *text = source_line(a, w->file, w->line, &len, &rc);
        if (k == nm && w->file)
            put_note(st, "in other files (code inlined from them):", NULL);
        if (w->file && !same_file(w->file, cur)) {
            cur = w->file;
            cur_rc = rc;
            if (cur_rc < 0)
                put_note(st, "source file not found: ", w->file);
        }
        if (!w->file) {
            put_row(st, true, w->count, f->count, NULL, 0, NULL, 0);
            continue;
        }
        put_row(st, true, w->count, f->count, w->file, w->line, text, len);
    }
    if (st->html)
        fwpt_puts(o, "</table>\n");
}

void fwpt_annotate_text(struct fwpt_annotation *a, size_t fn, const struct fwpt_sink *o)
{
    const struct style st = {false, o};
    put_function(&st, a, fn);
}

void fwpt_annotate_html(struct fwpt_annotation *a, unsigned top, const struct fwpt_sink *o)
{
    if (!fwpt_annotate_group(a))
        return;
    fwpt_printf(o, "<h2>Source lines of the top functions</h2>\n<p>The %u function%s with the most %s (self), line "
                   "by line.</p>\n<div id=\"fwpt-lines\">\n"
                   "<style>#fwpt-lines td.src { white-space: pre; font-family: monospace; }</style>\n", (unsigned)(a->nfns < top ? a->nfns : top),
                a->nfns == 1 || top == 1 ? "" : "s", a->ticks ? "TSC ticks" : "instructions");
    const struct style st = {true, o};
    uint64_t below = UINT64_MAX;
    size_t after = (size_t)-1;
    for (unsigned shown = 0; shown < top; shown++) {
        size_t best = (size_t)-1;
        for (size_t i = 0; i < a->nfns; i++) {
            const struct fwpt_annotate_fn *f = &a->fns[i];
            if (f->count > below || (f->count == below && (after == (size_t)-1 || i <= after)))
                continue;
            if (best == (size_t)-1 || f->count > a->fns[best].count)
                best = i;
        }
        if (best == (size_t)-1)
            break;
        below = a->fns[best].count;
        after = best;
        put_function(&st, a, best);
    }
    fwpt_puts(o, "</div>\n");
}

void fwpt_annotate_jsonl(struct fwpt_annotation *a, size_t fn, const struct fwpt_sink *o)
{
    const struct fwpt_annotate_fn *f = &a->fns[fn];
    const char *main;
    uint32_t eline;
    size_t nr = rows_of(a, f, &main, &eline);
    const struct fwpt_module *m = a->mods ? fwpt_image_module_find(a->mods, f->entry, NULL) : NULL;
    struct fwpt_json j;
    fwpt_json_init(&j, o);
    fwpt_json_open(&j, NULL, '{');
    fwpt_json_str(&j, "type", "annotate");
    fwpt_json_str(&j, "function", f->name);
    fwpt_json_hex(&j, "entry", f->entry);
    if (m) {
        fwpt_json_str(&j, "module", m->name);
        fwpt_json_hex(&j, "module_offset", f->entry - m->base);
    }
    fwpt_json_str(&j, "unit", a->ticks ? "ticks" : "insns");
    fwpt_json_dec(&j, "count", f->count);
    fwpt_json_dec(&j, "total", a->total);
    if (a->dropped)
        fwpt_json_dec(&j, "dropped", a->dropped);
    if (main)
        fwpt_json_str(&j, "file", main);
    if (eline)
        fwpt_json_dec(&j, "line", eline);
    fwpt_json_close(&j, '}');
    fwpt_puts(o, "\n");
    for (size_t k = 0; k < nr; k++) {
        const struct fwpt_annotate_row *w = &a->rows[k];
        fwpt_json_init(&j, o);
        fwpt_json_open(&j, NULL, '{');
        fwpt_json_str(&j, "type", "annotate_line");
        fwpt_json_str(&j, "function", f->name);
        fwpt_json_hex(&j, "entry", f->entry);
        if (w->file) {
            fwpt_json_str(&j, "file", w->file);
            fwpt_json_dec(&j, "line", w->line);
        }
        if (w->inlined)
            fwpt_json_bool(&j, "inlined", true);
        fwpt_json_dec(&j, "count", w->count);
        fwpt_json_close(&j, '}');
        fwpt_puts(o, "\n");
    }
}
