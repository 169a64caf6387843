/* fwpt — folded stacks, flame graph (SVG) and Trace Event Format of the call tree (see flame.h). */
#include "render/flame.h"
#include "base/json.h"
#include "render/names.h"

/* ---- names and text ---- */

/* h/100 with two decimals ("12.05") */
static void put_hundredths(const struct fwpt_sink *o, uint64_t h)
{
    fwpt_printf(o, "%lu.%c%c", h / 100, (char)('0' + h % 100 / 10), (char)('0' + h % 10));
}

void fwpt_flame_put_percent(const struct fwpt_sink *o, uint64_t v, uint64_t total)
{
    uint64_t h = total ? (v * 10000 + total / 2) / total : 0; /* hundredths of a percent, rounded */
    put_hundredths(o, h);
}

void fwpt_flame_frame_name(const struct fwpt_names *n, uint64_t entry, char out[FWPT_FRAME_NAME_MAX])
{
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, out, FWPT_FRAME_NAME_MAX - 1);
    if (entry == FWPT_FLOW_NO_IP) {
        fwpt_puts(&s, "(root)");
        out[b.len] = 0;
        return;
    }
    struct fwpt_resolved r;
    if (n && fwpt_resolve(n->resolver, entry, &r) && r.function) { /* the build's name first */
        fwpt_name_put(&s, &r, entry);
        out[b.len] = 0;
        return;
    }
    for (size_t i = 0; n && i < n->nsyms; i++) {
        if (n->syms[i].addr == entry && n->syms[i].name && n->syms[i].name[0]) {
            for (const char *c = n->syms[i].name; *c && *c != ' '; c++)
                fwpt_putc(&s, *c);
            out[b.len] = 0;
            return;
        }
    }
    const struct fwpt_module *m = n && n->mods ? fwpt_image_module_find(n->mods, entry, NULL) : NULL;
    if (m) {
        fwpt_puts(&s, m->name);
        fwpt_puts(&s, "+");
        fwpt_put_0x(&s, entry - m->base);
    } else {
        fwpt_put_0x(&s, entry);
    }
    out[b.len] = 0;
}

/* ---- folded stacks ---- */

/* flamegraph.pl splits frames at ';' and the count at the last space: neither may be in a name. */
static void put_folded_name(const struct fwpt_sink *o, const char *s)
{
    for (; *s; s++)
        fwpt_putc(o, *s == ';' ? ':' : *s == ' ' ? '_' : *s);
}

static void put_folded_path(const struct fwpt_profile *p, const struct fwpt_names *names, uint32_t n,
                            const struct fwpt_sink *o)
{
    uint32_t path[FWPT_FLAME_MAX_DEPTH + 1];
    uint32_t k = 0;
    for (uint32_t x = n; x && k < FWPT_FLAME_MAX_DEPTH; x = p->nodes[x].parent)
        path[k++] = x;
    char name[FWPT_FRAME_NAME_MAX];
    fwpt_puts(o, "(root)");
    while (k--) {
        fwpt_flame_frame_name(names, p->nodes[path[k]].entry, name);
        fwpt_putc(o, ';');
        put_folded_name(o, name);
    }
}

void fwpt_flame_folded_write(struct fwpt_profile *p, const struct fwpt_names *names, const struct fwpt_sink *out)
{
    for (uint32_t n = 0;;) {
        if (p->nodes[n].insns && p->nodes[n].depth <= FWPT_FLAME_MAX_DEPTH) {
            put_folded_path(p, names, n, out);
            fwpt_printf(out, " %lu\n", p->nodes[n].insns);
        }
        n = fwpt_profile_next_node(p, n, p->nodes[n].depth >= FWPT_FLAME_MAX_DEPTH);
        if (!n)
            break;
    }
}

/* ---- flame graph ---- */

#define FRAME_H 16
#define PAD 10
#define TOP 52
#define BOTTOM 28

/* A warm colour from the name (the same name, the same colour), as flame graphs use. */
static void put_colour(const struct fwpt_sink *o, const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    fwpt_printf(o, "rgb(%u,%u,%u)", 205 + (h & 0xff) % 50, 90 + ((h >> 8) & 0xff) % 140, ((h >> 16) & 0xff) % 60);
}

/* hundredths of a pixel, printed as pixels with two decimals */
static void put_px(const struct fwpt_sink *o, uint64_t h) { put_hundredths(o, h); }

static uint64_t scale_x(uint64_t x, uint64_t total)
{
    return PAD * 100 + (total ? x * (uint64_t)(FWPT_FLAME_WIDTH - 2 * PAD) * 100 / total : 0);
}

/* The page's script (inside CDATA: valid in the SVG document and in HTML's inline SVG). Frames are <g class="f">
 * with data-x (first instruction, relative to the root), data-n (instructions with callees), data-d (depth).
 * #search=REGEX searches at load; #selftest clicks the widest frame of depth 2 (else 1) and writes what it saw into
 * the text #fwpt-selftest as JSON (for a headless browser's --dump-dom). */
static const char flame_js[] =
    "(function () {\n"
    "var svg = document.getElementById('fwpt-flame');\n"
    "var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad');\n"
    "var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));\n"
    "var details = svg.querySelector('#fwpt-details'), matchedText = svg.querySelector('#fwpt-matched');\n"
    "var zoomed = null;\n"
    "function fit(name, w) {\n"
    "  var chars = Math.floor((w - 6) / 7);\n"
    "  if (chars < 3) return '';\n"
    "  return name.length <= chars ? name : name.substring(0, chars - 2) + '..';\n"
    "}\n"
    "function draw(g, x, w) {\n"
    "  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
    "  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
    "  t.setAttribute('x', (x + 3).toFixed(2)); t.textContent = fit(g.fwptName, w);\n"
    "}\n"
    "frames.forEach(function (g) {\n"
    "  var r = g.querySelector('rect');\n"
    "  g.fwptName = g.querySelector('text').textContent;\n"
    "  g.fwptX = +g.getAttribute('data-x'); g.fwptN = +g.getAttribute('data-n'); g.fwptD = +g.getAttribute('data-d');\n"
    "  g.fwptFill = r.getAttribute('fill');\n"
    "  g.fwptX0 = +r.getAttribute('x'); g.fwptW0 = +r.getAttribute('width');\n"
    "  draw(g, g.fwptX0, g.fwptW0);\n"
    "  g.addEventListener('click', function () { zoom(g); });\n"
    "  g.addEventListener('mouseover', function () { details.textContent = g.querySelector('title').textContent; });\n"
    "  g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "});\n"
    "function zoom(z) {\n"
    "  zoomed = z;\n"
    "  var x0 = z.fwptX, n0 = z.fwptN, span = W - 2 * PAD;\n"
    "  frames.forEach(function (g) {\n"
    "    var inside = g.fwptX >= x0 && g.fwptX + g.fwptN <= x0 + n0 && g.fwptD >= z.fwptD;\n"
    "    var above = g.fwptD < z.fwptD && g.fwptX <= x0 && g.fwptX + g.fwptN >= x0 + n0;\n"
    "    g.style.display = inside || above ? '' : 'none';\n"
    "    g.style.opacity = above ? '0.5' : '';\n"
    "    if (inside) draw(g, PAD + (g.fwptX - x0) * span / n0, g.fwptN * span / n0);\n"
    "    else if (above) draw(g, PAD, span);\n"
    "  });\n"
    "  svg.querySelector('#fwpt-unzoom').style.display = '';\n"
    "}\n"
    "function unzoom() {\n"
    "  zoomed = null;\n"
    "  frames.forEach(function (g) { g.style.display = ''; g.style.opacity = ''; draw(g, g.fwptX0, g.fwptW0); });\n"
    "  svg.querySelector('#fwpt-unzoom').style.display = 'none';\n"
    "}\n"
    "function search(re) {\n"
    "  var rx = new RegExp(re), hits = [], end = -1, sum = 0, total = frames.length ? frames[0].fwptN : 0;\n"
    "  frames.forEach(function (g) {\n"
    "    var hit = rx.test(g.fwptName);\n"
    "    g.querySelector('rect').setAttribute('fill', hit ? 'rgb(230,0,230)' : g.fwptFill);\n"
    "    if (hit) hits.push(g);\n"
    "  });\n"
    "  hits.sort(function (a, b) { return a.fwptX - b.fwptX || b.fwptN - a.fwptN; });\n"
    "  hits.forEach(function (g) { if (g.fwptX >= end) { sum += g.fwptN; end = g.fwptX + g.fwptN; } });\n"
    "  matchedText.textContent = 'Matched: ' + hits.length + ' frames, ' + (total ? 100 * sum / total : 0).toFixed(2) + '%';\n"
    "  return sum;\n"
    "}\n"
    "function clearSearch() {\n"
    "  frames.forEach(function (g) { g.querySelector('rect').setAttribute('fill', g.fwptFill); });\n"
    "  matchedText.textContent = ' ';\n"
    "}\n"
    "svg.querySelector('#fwpt-unzoom').addEventListener('click', unzoom);\n"
    "svg.querySelector('#fwpt-search').addEventListener('click', function () {\n"
    "  var re = window.prompt('Search frames (regular expression)', '');\n"
    "  if (re) search(re); else clearSearch();\n"
    "});\n"
    "var hash = decodeURIComponent(window.location.hash || '');\n"
    "if (hash.indexOf('#search=') === 0) search(hash.substring(8));\n"
    "if (hash === '#selftest') {\n"
    "  var best = null;\n"
    "  [2, 1].forEach(function (d) {\n"
    "    if (!best) frames.forEach(function (g) { if (g.fwptD === d && (!best || g.fwptN > best.fwptN)) best = g; });\n"
    "  });\n"
    "  var res = {frames: frames.length, zoomed: null};\n"
    "  if (best) {\n"
    "    best.dispatchEvent(new MouseEvent('click', {bubbles: true}));\n"
    "    var r = best.querySelector('rect'), shown = 0, hidden = 0, widths = {};\n"
    "    frames.forEach(function (g) {\n"
    "      if (g.style.display === 'none') hidden++; else { shown++; widths[g.fwptName] = +g.querySelector('rect').getAttribute('width'); }\n"
    "    });\n"
    "    res.zoomed = best.fwptName; res.zoomed_n = best.fwptN; res.x = +r.getAttribute('x'); res.width = +r.getAttribute('width');\n"
    "    res.shown = shown; res.hidden = hidden; res.widths = widths;\n"
    "    res.search_sum = search('^' + best.fwptName.replace(/[^A-Za-z0-9_]/g, '\\\\$&') + '$');\n"
    "    unzoom();\n"
    "    res.unzoomed_width = +r.getAttribute('width');\n"
    "  }\n"
    "  svg.querySelector('#fwpt-selftest').textContent = JSON.stringify(res);\n"
    "}\n"
    "})();\n";

void fwpt_flame_svg(struct fwpt_profile *p, const struct fwpt_names *names, const char *title, int standalone,
                    const struct fwpt_sink *o)
{
    fwpt_profile_calltree_totals(p);
    const uint64_t total = p->nodes[0].total;
    uint32_t maxd = 0;
    uint64_t frames = 0, deep = 0;
    for (uint32_t n = 0;;) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        if (d->depth > FWPT_FLAME_MAX_DEPTH)
            deep++;
        else if (d->total || !n) {
            frames++;
            if (d->depth > maxd)
                maxd = d->depth;
        }
        n = fwpt_profile_next_node(p, n, d->depth > FWPT_FLAME_MAX_DEPTH || (!d->total && n));
        if (!n)
            break;
    }
    const uint32_t height = TOP + (maxd + 1) * FRAME_H + BOTTOM;
    if (standalone)
        fwpt_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    fwpt_printf(o, "<svg id=\"fwpt-flame\" version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
                   "height=\"%u\" viewBox=\"0 0 %u %u\" data-width=\"%u\" data-pad=\"%u\" data-total=\"%lu\" "
                   "data-frames=\"%lu\">\n",
                FWPT_FLAME_WIDTH, height, FWPT_FLAME_WIDTH, height, FWPT_FLAME_WIDTH, PAD, total, frames);
    fwpt_puts(o, "<style>#fwpt-flame text { font-family: monospace; font-size: 12px; fill: #000; }\n"
                 "#fwpt-flame g.f { cursor: pointer; }\n#fwpt-flame g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
                 "#fwpt-flame .button { fill: #00c; cursor: pointer; }\n#fwpt-flame .title { font-size: 16px; }</style>\n");
    fwpt_printf(o, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f0\"/>\n", FWPT_FLAME_WIDTH, height);
    fwpt_printf(o, "<text class=\"title\" x=\"%u\" y=\"22\" text-anchor=\"middle\">", FWPT_FLAME_WIDTH / 2);
    fwpt_put_xml(o, title);
    fwpt_puts(o, "</text>\n");
    fwpt_printf(o, "<text x=\"%u\" y=\"40\">%lu %s, %lu frames; width: %s with callees; "
                   "click a frame to zoom",
                PAD, total, fwpt_profile_unit(p, false), frames, fwpt_profile_unit(p, false));
    if (deep)
        fwpt_printf(o, "; %lu call-tree nodes deeper than %u left out", deep, FWPT_FLAME_MAX_DEPTH);
    fwpt_puts(o, "</text>\n");
    fwpt_printf(o, "<text id=\"fwpt-unzoom\" class=\"button\" x=\"%u\" y=\"40\" style=\"display:none\">Reset zoom</text>\n",
                FWPT_FLAME_WIDTH - 220);
    fwpt_printf(o, "<text id=\"fwpt-search\" class=\"button\" x=\"%u\" y=\"40\">Search</text>\n", FWPT_FLAME_WIDTH - 90);
    fwpt_printf(o, "<text id=\"fwpt-matched\" x=\"%u\" y=\"%u\"> </text>\n", FWPT_FLAME_WIDTH - 300, height - 10);
    fwpt_printf(o, "<text id=\"fwpt-details\" x=\"%u\" y=\"%u\"> </text>\n", PAD, height - 10);
    fwpt_printf(o, "<text id=\"fwpt-selftest\" x=\"%u\" y=\"%u\" style=\"display:none\"></text>\n", PAD, height - 2);
    /* frames, depth first; x of the next child at each depth in cursor[] */
    static uint64_t cursor[FWPT_FLAME_MAX_DEPTH + 2]; /* static: 2 KiB off the firmware stack */
    char name[FWPT_FRAME_NAME_MAX];
    cursor[0] = 0;
    for (uint32_t n = 0;;) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        int skip = d->depth > FWPT_FLAME_MAX_DEPTH || (!d->total && n);
        if (!skip) {
            uint64_t x = cursor[d->depth];
            cursor[d->depth] += d->total;
            cursor[d->depth + 1] = x;
            uint64_t x0 = scale_x(x, total), x1 = scale_x(x + d->total, total);
            uint32_t y = TOP + (maxd - d->depth) * FRAME_H;
            fwpt_flame_frame_name(names, d->entry, name);
            fwpt_printf(o, "<g class=\"f\" data-x=\"%lu\" data-n=\"%lu\" data-d=\"%u\"><title>", x, d->total, d->depth);
            fwpt_put_xml(o, name);
            fwpt_printf(o, ": %lu %s (", d->total, fwpt_profile_unit(p, false));
            fwpt_flame_put_percent(o, d->total, total);
            fwpt_printf(o, "%%), %lu self, %lu call%s</title><rect x=\"", d->insns, d->calls, d->calls == 1 ? "" : "s");
            put_px(o, x0);
            fwpt_puts(o, "\" y=\"");
            fwpt_put_dec(o, y);
            fwpt_puts(o, "\" width=\"");
            put_px(o, x1 - x0);
            fwpt_printf(o, "\" height=\"%u\" rx=\"2\" fill=\"", FRAME_H - 1);
            put_colour(o, name);
            fwpt_puts(o, "\"/><text x=\"");
            put_px(o, x0 + 300);
            fwpt_printf(o, "\" y=\"%u\">", y + 12);
            fwpt_put_xml(o, name);
            fwpt_puts(o, "</text></g>\n");
        }
        n = fwpt_profile_next_node(p, n, skip);
        if (!n)
            break;
    }
    fwpt_puts(o, "<script type=\"text/javascript\"><![CDATA[\n");
    fwpt_puts(o, flame_js);
    fwpt_puts(o, "]]></script>\n</svg>\n");
}

/* ---- Trace Event Format ---- */

static void chrome_slice(struct fwpt_chrome *c, const struct fwpt_profile *p, uint32_t k, uint64_t end)
{
    char name[FWPT_FRAME_NAME_MAX];
    const struct fwpt_profile_node *d = &p->nodes[c->node[k]];
    fwpt_flame_frame_name(c->names, d->entry, name);
    fwpt_puts(c->out, c->slices++ ? ",\n{\"name\":" : "{\"name\":");
    fwpt_put_json_str(c->out, name);
    fwpt_printf(c->out, ",\"cat\":\"call\",\"ph\":\"X\",\"ts\":%lu,\"dur\":%lu,\"pid\":1,\"tid\":1,\"args\":{\"entry\":\"",
                c->start[k], end - c->start[k]);
    fwpt_put_0x(c->out, d->entry);
    fwpt_printf(c->out, "\",\"depth\":%u}}", k + 1);
}

static void chrome_frame(void *ctx, const struct fwpt_profile *p, enum fwpt_frame_op op, uint32_t node)
{
    struct fwpt_chrome *c = ctx;
    if (op == FWPT_FRAME_PUSH && c->depth < FWPT_PROFILE_DEPTH) {
        c->start[c->depth] = p->insns;
        c->node[c->depth] = node;
        c->depth++;
    } else if (op == FWPT_FRAME_POP && c->depth) {
        chrome_slice(c, p, c->depth - 1, p->insns);
        c->depth--;
    } else if (op == FWPT_FRAME_DROP_OUTER && c->depth) {
        chrome_slice(c, p, 0, p->insns); /* the profile forgets it: it ends here */
        for (uint32_t k = 1; k < c->depth; k++) {
            c->start[k - 1] = c->start[k];
            c->node[k - 1] = c->node[k];
        }
        c->depth--;
    }
}

void fwpt_flame_chrome_begin(struct fwpt_chrome *c, struct fwpt_profile *p, const struct fwpt_names *n,
                       const struct fwpt_sink *out)
{
    fwpt_memset(c, 0, sizeof *c);
    c->out = out;
    c->names = n;
    p->frame_hook = chrome_frame;
    p->frame_ctx = c;
    fwpt_puts(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"instructions: ts is the index of a call's "
                   "first instruction, dur its instructions with callees\"},\n\"traceEvents\":[\n");
}

void fwpt_flame_chrome_end(struct fwpt_chrome *c, struct fwpt_profile *p)
{
    while (c->depth) {
        chrome_slice(c, p, c->depth - 1, p->insns);
        c->depth--;
    }
    p->frame_hook = NULL;
    fwpt_puts(c->out, "\n]}\n");
}
