/* Trace test cases in text (tests/cases/NAME.ptt, after libipt's .ptt files): each file is one named case holding
 * the code, the packets, and what `fwpt flow` and `fwpt dump` print for them. The runner writes the case as a saved
 * \fwpt\ directory (trace.pt, img-BASE.bin, sideband.json) in a temporary directory, runs build/fwpt on it and
 * compares the output byte for byte, naming the file, line and first line that differs.
 *
 *     build/tests/test_cases                 every case;  build/tests/test_cases 'tnt_*' psb_plus: those named
 *     build/tests/test_cases --update [NAME]  rewrite the @flow and @dump sections from the tool (review the diff!)
 *
 * The format: lines before the first section and lines starting with '#' outside @flow/@dump are comments.
 *     @code ADDR [NAME]   Intel-syntax assembly (GNU as, .intel_syntax noprefix, 64-bit; `#` comments), placed at
 *                         ADDR (hex) by ld, kept as the .text bytes (objcopy -O binary); an image named NAME
 *                         (default "code") in sideband.json
 *     @bytes ADDR [NAME]  the same from hex bytes ("90 90 f4"; `#` comments)
 *     @packets            one packet a line, in the words `fwpt dump` prints it, encoded by sim/soft_enc:
 *                         psb, psbend, pad, ovf, stop, tnt !!. (tnt.8 / tnt.64 force the size), fup/tip/tip.pge/
 *                         tip.pgd 0x10000 (the shortest IPBytes against Last IP) or IPC: PAYLOAD as dump prints it
 *                         (3: 0x000000010000, 0: suppressed; a trailing "ip ..." is ignored), mode.exec cs.l if
 *                         (or 64-bit / 32-bit / 16-bit), mode.tsx intx abrt, pip cr3 0xb000, nr, vmcs 0x..,
 *                         tsc/cbr/mtc/cyc/mnt VALUE, tma CTC 0x.., FC 0x.., ptw 1: 0x.., ip, exstop ip,
 *                         mwait hints: 0x.., ext: 0x.., pwre c1.2, hw, pwrx last: c1, deepest: c6, int, timer,
 *                         store, hw, bbp type N, items 4 bytes, bip id N: 0x.., bep ip,
 *                         cfe type 1, vector 0xe, ip, evd type 0: 0x.., trig trbv 0xa1, ip, mult, icnt 3;
 *                         raw 02 82 ...: bytes as they are (corrupt traces)
 *     @flow [ARGS]        the expected output of `fwpt flow DIR ARGS`; `fwpt flow DIR ARGS --slow-print` must print
 *                         the same, and the decoder's fwpt_flow_next (with and without the block cache),
 *                         fwpt_flow_next_run and fwpt_flow_next_batch must read the same instructions and events
 *     @dump [ARGS]        the expected output of `fwpt dump DIR ARGS`
 * An expected section holds stdout as printed, then each line of stderr as "stderr: LINE", then "exit N" when the
 * exit status is not 0; every line is literal (no comments) up to the next line starting with '@'. */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode/packet.h"
#include "sim/soft_enc.h"
#include "tests/check.h"
#include "tests/common/flow_ways.h"
#include "tests/common/mem_sink.h"
#include "tests/common/tool_run.h"

#define CASES_DIR "tests/cases"
#define MAX_LINES 4096
#define MAX_IMAGES 8

static bool update;
static char tool[PATH_MAX], tmp[PATH_MAX];

/* ---- the file ---- */
struct ptt {
    char path[PATH_MAX];
    char *text;          /* the file, split in place into lines */
    char *line[MAX_LINES];
    unsigned nlines;
};

/* A section: its header line index, its first and end line index (exclusive). */
struct section {
    unsigned head, first, end;
};

static bool ptt_load(struct ptt *f, const char *path)
{
    size_t n;
    snprintf(f->path, sizeof f->path, "%s", path);
    f->text = slurp(path, &n);
    if (!f->text) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return false;
    }
    f->text = realloc(f->text, n + 1);
    f->text[n] = 0;
    f->nlines = 0;
    for (char *p = f->text; *p;) {
        if (f->nlines == MAX_LINES) {
            fprintf(stderr, "%s: more than %d lines\n", path, MAX_LINES);
            free(f->text);
            return false;
        }
        f->line[f->nlines++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = 0;
        p = nl + 1;
    }
    return true;
}

static bool is_head(const char *l, const char *name)
{
    size_t k = strlen(name);
    return l[0] == '@' && !strncmp(l + 1, name, k) && (l[1 + k] == 0 || l[1 + k] == ' ');
}

static struct section section_at(const struct ptt *f, unsigned head)
{
    struct section s = {head, head + 1, head + 1};
    while (s.end < f->nlines && f->line[s.end][0] != '@')
        s.end++;
    return s;
}

/* Failures name the file and line, as a compiler does. */
static void fail_at(const struct ptt *f, unsigned line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%u: [%s] ", f->path, line + 1, check_case_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    CHECK(!"case as its file says");
}

/* ---- code ---- */
struct image {
    uint64_t base;
    char name[64];
    uint8_t *code;
    size_t size;
};

static bool run_cmd(const struct ptt *f, unsigned line, const char *what, const char *cmd)
{
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fail_at(f, line, "%s failed (its messages above): %s", what, cmd);
        return false;
    }
    return true;
}

/* @code: the .s keeps the .ptt's line numbers, so that GNU as names the case's lines in its messages. */
static bool assemble(const struct ptt *f, struct section s, struct image *im)
{
    char src[PATH_MAX + 16], cmd[4 * PATH_MAX];
    snprintf(src, sizeof src, "%s/code.s", tmp);
    FILE *o = fopen(src, "w");
    if (!o) {
        fail_at(f, s.head, "%s: %s", src, strerror(errno));
        return false;
    }
    fprintf(o, ".intel_syntax noprefix; .code64; .text");
    for (unsigned i = 0; i < s.end; i++)
        fprintf(o, "%s\n", i >= s.first ? f->line[i] : "");
    fclose(o);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && rm -f code.o && as --64 -o code.o code.s 2>&1 | sed 's|^code.s:|%s:|' >&2 && test -s code.o && "
             "ld -m elf_x86_64 -z noexecstack -Ttext=0x%llx -e 0x%llx -o code.elf code.o && "
             "objcopy -O binary -j .text code.elf code.bin && rm -f code.o code.elf",
             tmp, f->path, (unsigned long long)im->base, (unsigned long long)im->base);
    if (!run_cmd(f, s.head, "assembling the code", cmd))
        return false;
    char bin[PATH_MAX + 16];
    snprintf(bin, sizeof bin, "%s/code.bin", tmp);
    im->code = (uint8_t *)slurp(bin, &im->size);
    unlink(bin);
    if (!im->code || !im->size) {
        fail_at(f, s.head, "no code assembled");
        return false;
    }
    return true;
}

static bool hex_bytes(const struct ptt *f, unsigned line, const char *text, uint8_t **out, size_t *n)
{
    for (const char *p = text; *p && *p != '#';) {
        if (*p == ' ' || *p == '\t' || *p == ',') {
            p++;
            continue;
        }
        char *end;
        unsigned long v = strtoul(p, &end, 16);
        if (end == p || v > 0xff || (*end && !strchr(" \t,#", *end))) {
            fail_at(f, line, "not a hex byte: '%.20s'", p);
            return false;
        }
        *out = realloc(*out, *n + 1);
        (*out)[(*n)++] = (uint8_t)v;
        p = end;
    }
    return true;
}

static bool image_head(const struct ptt *f, unsigned line, struct image *im)
{
    const char *l = f->line[line];
    char *end;
    l = strchr(l, ' ');
    im->base = l ? strtoull(l, &end, 16) : 0;
    if (!l || end == l + 1 || (*end && *end != ' ')) {
        fail_at(f, line, "expected %s ADDR [NAME]", f->line[line]);
        return false;
    }
    while (*end == ' ')
        end++;
    snprintf(im->name, sizeof im->name, "%s", *end ? end : "code");
    return true;
}

/* ---- packets ---- */
#define MAX_TOKENS 16
struct words {
    char *w[MAX_TOKENS];
    unsigned n;
};

/* Words of a packet's payload: split at white space and commas; a ':' ending a word goes. */
static void split(char *s, struct words *t)
{
    t->n = 0;
    for (char *p = strtok(s, " \t,"); p && t->n < MAX_TOKENS; p = strtok(NULL, " \t,")) {
        size_t k = strlen(p);
        if (k > 1 && p[k - 1] == ':')
            p[k - 1] = 0;
        t->w[t->n++] = p;
    }
}

static bool num(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return end != s && !*end && !errno;
}

/* The value after the word key ("cr3 0xb000", "type 1"). */
static bool after(const struct words *t, const char *key, uint64_t *v)
{
    for (unsigned i = 0; i + 1 < t->n; i++)
        if (!strcmp(t->w[i], key))
            return num(t->w[i + 1], v);
    return false;
}

static bool has(const struct words *t, const char *word)
{
    for (unsigned i = 0; i < t->n; i++)
        if (!strcmp(t->w[i], word))
            return true;
    return false;
}

/* Every word is one of words (a space-separated list) or the value after one of keys. */
static const char *stray(const struct words *t, const char *words, const char *keys)
{
    for (unsigned i = 0; i < t->n; i++) {
        char w[40];
        snprintf(w, sizeof w, " %s ", t->w[i]);
        char list[256];
        snprintf(list, sizeof list, " %s ", words);
        if (strstr(list, w))
            continue;
        snprintf(list, sizeof list, " %s ", keys);
        if (strstr(list, w) && i + 1 < t->n) {
            i++;
            continue;
        }
        return t->w[i];
    }
    return NULL;
}

static int type_of(const char *name)
{
    for (int k = 1; k < FWPT_PKT_COUNT; k++)
        if (!strcmp(name, fwpt_pkt_type_name((enum fwpt_pkt_type)k)))
            return k;
    return -1;
}

struct trace {
    struct fwpt_soft_enc enc;
    struct mem bytes;
    uint8_t bip_bytes; /* the BIP payload size of the last BBP */
};

static enum fwpt_status trace_emit(void *ctx, const uint8_t *b, size_t n)
{
    mem_write(&((struct trace *)ctx)->bytes, (const char *)b, n);
    return FWPT_OK;
}

/* One packet line: its packet into the trace; false (said with the line) when it is not one. */
static bool packet(const struct ptt *f, unsigned line, struct trace *tr)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", f->line[line]);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
    char *name = strtok(buf, " \t");
    if (!name)
        return true; /* blank or comment */
    char *rest = strtok(NULL, "");
    struct words t;
    split(rest ? rest : (char[]){0}, &t);
    if (!strcmp(name, "raw")) {
        uint8_t *b = NULL;
        size_t n = 0;
        char hex[512] = "";
        for (unsigned i = 0; i < t.n; i++)
            strcat(strcat(hex, " "), t.w[i]);
        if (!hex_bytes(f, line, hex, &b, &n))
            return false;
        trace_emit(tr, b, n);
        free(b);
        return true;
    }
    struct fwpt_packet p;
    memset(&p, 0, sizeof p);
    int type = !strcmp(name, "tnt") ? FWPT_PKT_TNT_8 : type_of(name);
    if (type < 0) {
        fail_at(f, line, "no packet is called '%s'", name);
        return false;
    }
    p.type = (uint8_t)type;
    uint64_t v = 0, w = 0;
    const char *bad = NULL;
    bool ok = true;
    switch (type) {
    case FWPT_PKT_PAD: case FWPT_PKT_PSB: case FWPT_PKT_PSBEND: case FWPT_PKT_STOP: case FWPT_PKT_OVF:
        bad = stray(&t, "", "");
        break;
    case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: {
        const char *s = t.n == 1 ? t.w[0] : "";
        size_t k = strlen(s);
        ok = k > 0 && k <= 47 && strspn(s, "!.") == k;
        for (size_t i = 0; ok && i < k; i++)
            p.tnt.bits |= (uint64_t)(s[i] == '!') << i;
        p.tnt.count = (uint8_t)k;
        if (!strcmp(name, "tnt") && k > 6)
            p.type = FWPT_PKT_TNT_64;
        break;
    }
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        if (t.n == 1 && !strcmp(t.w[0], "suppressed")) {
            p.ip.suppressed = true;
        } else if (t.n == 1 && num(t.w[0], &v)) {
            if (fwpt_soft_enc_ip(&tr->enc, (unsigned)type, v) != FWPT_OK)
                ok = false;
            return ok || (fail_at(f, line, "cannot encode"), false);
        } else if (t.n >= 2 && num(t.w[0], &w) && (num(t.w[1], &v) || !strcmp(t.w[1], "suppressed"))) {
            p.ip.ipc = (uint8_t)w; /* IPC: PAYLOAD [ip X], as dump prints it */
            p.ip.payload = v;
            ok = w <= 7 && (t.n == 2 || (t.n == 4 && !strcmp(t.w[2], "ip")));
        } else {
            ok = false;
        }
        break;
    case FWPT_PKT_PIP:
        ok = after(&t, "cr3", &p.pip.cr3);
        p.pip.nr = has(&t, "nr");
        bad = stray(&t, "nr", "cr3");
        break;
    case FWPT_PKT_MODE_EXEC:
        p.mode_exec.csl = has(&t, "cs.l") || (has(&t, "64-bit") && !has(&t, "cs.d"));
        p.mode_exec.csd = has(&t, "cs.d") || (has(&t, "32-bit") && !has(&t, "cs.l"));
        p.mode_exec.iflag = has(&t, "if");
        bad = stray(&t, "cs.l cs.d if 64-bit 32-bit 16-bit unknown", "");
        break;
    case FWPT_PKT_MODE_TSX:
        p.mode_tsx.intx = has(&t, "intx");
        p.mode_tsx.abrt = has(&t, "abrt");
        bad = stray(&t, "intx abrt", "");
        break;
    case FWPT_PKT_TSC: case FWPT_PKT_CBR: case FWPT_PKT_MTC: case FWPT_PKT_CYC: case FWPT_PKT_VMCS: case FWPT_PKT_MNT:
        ok = t.n == 1 && num(t.w[0], &v);
        p.tsc.tsc = v; /* the union's first 64-bit member, for each */
        if (type == FWPT_PKT_CBR || type == FWPT_PKT_MTC) {
            ok = ok && v <= 0xff;
            p.cbr.ratio = (uint8_t)v; /* cbr.ratio and mtc.ctc share their byte */
        }
        break;
    case FWPT_PKT_TMA:
        ok = after(&t, "CTC", &v) && after(&t, "FC", &w) && v <= 0xffff && w <= 0x1ff;
        p.tma.ctc = (uint16_t)v, p.tma.fc = (uint16_t)w;
        bad = stray(&t, "", "CTC FC");
        break;
    case FWPT_PKT_PTW:
        ok = t.n >= 2 && num(t.w[0], &w) && w <= 1 && num(t.w[1], &p.ptw.payload);
        p.ptw.plc = (uint8_t)w;
        p.ptw.ip = has(&t, "ip");
        ok = ok && t.n == 2u + p.ptw.ip;
        break;
    case FWPT_PKT_EXSTOP: case FWPT_PKT_BEP:
        p.exstop.ip = has(&t, "ip"); /* exstop.ip and bep.ip share their byte */
        bad = stray(&t, "ip", "");
        break;
    case FWPT_PKT_MWAIT:
        ok = after(&t, "hints", &v) && after(&t, "ext", &w) && v <= 0xffffffffu && w <= 0xffffffffu;
        p.mwait.hints = (uint32_t)v, p.mwait.ext = (uint32_t)w;
        bad = stray(&t, "", "hints ext");
        break;
    case FWPT_PKT_PWRE: {
        unsigned a, b;
        char c;
        ok = t.n >= 1 && sscanf(t.w[0], "c%u.%u%c", &a, &b, &c) == 2 && a < 16 && b < 16;
        p.pwre.state = (uint8_t)a, p.pwre.sub_state = (uint8_t)b;
        p.pwre.hw = has(&t, "hw");
        ok = ok && t.n == 1u + p.pwre.hw;
        break;
    }
    case FWPT_PKT_PWRX: {
        unsigned a = 99, b = 99;
        for (unsigned i = 0; i + 1 < t.n; i++) {
            if (!strcmp(t.w[i], "last"))
                sscanf(t.w[i + 1], "c%u", &a);
            if (!strcmp(t.w[i], "deepest"))
                sscanf(t.w[i + 1], "c%u", &b);
        }
        ok = a < 16 && b < 16;
        p.pwrx.last = (uint8_t)a, p.pwrx.deepest = (uint8_t)b;
        p.pwrx.wake_reason = (uint8_t)(has(&t, "int") | has(&t, "timer") << 1 | has(&t, "store") << 2 | has(&t, "hw") << 3);
        bad = stray(&t, "int timer store hw", "last deepest");
        break;
    }
    case FWPT_PKT_BBP:
        ok = after(&t, "type", &v) && after(&t, "items", &w) && (w == 4 || w == 8) && v <= 0x1f;
        p.bbp.type = (uint8_t)v, p.bbp.sz = w == 4, p.bbp.item_bytes = (uint8_t)w;
        tr->bip_bytes = (uint8_t)w;
        bad = stray(&t, "bytes", "type items");
        break;
    case FWPT_PKT_BIP:
        ok = t.n == 3 && after(&t, "id", &v) && v <= 0x1f && num(t.w[2], &p.bip.value) && tr->bip_bytes;
        p.bip.id = (uint8_t)v, p.bip.bytes = tr->bip_bytes;
        break;
    case FWPT_PKT_CFE:
        ok = after(&t, "type", &v) && after(&t, "vector", &w) && v <= 0x1f && w <= 0xff;
        p.cfe.type = (uint8_t)v, p.cfe.vector = (uint8_t)w, p.cfe.ip = has(&t, "ip");
        bad = stray(&t, "ip", "type vector");
        break;
    case FWPT_PKT_EVD:
        ok = t.n == 3 && after(&t, "type", &v) && v <= 0x3f && num(t.w[2], &p.evd.payload);
        p.evd.type = (uint8_t)v;
        break;
    case FWPT_PKT_TRIG:
        ok = after(&t, "trbv", &v) && v <= 0xff;
        p.trig.trbv = (uint8_t)v, p.trig.ip = has(&t, "ip"), p.trig.mult = has(&t, "mult");
        p.trig.icntv = after(&t, "icnt", &w);
        ok = ok && w <= 0xffff;
        p.trig.icnt = (uint16_t)w;
        bad = stray(&t, "ip mult", "trbv icnt");
        break;
    default:
        ok = false;
    }
    if (bad || !ok) {
        fail_at(f, line, "%s: cannot read '%s'%s%s", name, rest ? rest : "", bad ? ": stray word " : "",
                bad ? bad : "");
        return false;
    }
    if (fwpt_soft_enc_packet(&tr->enc, &p) != FWPT_OK) {
        fail_at(f, line, "%s: sim/soft_enc cannot encode it", name);
        return false;
    }
    return true;
}

/* ---- the tool ---- */

/* `fwpt CMD trace ARGS` in the temporary directory: stdout, "stderr: " lines, "exit N" (malloc'd). */
static char *tool_output(const char *cmd, const char *args)
{
    char line[3 * PATH_MAX];
    snprintf(line, sizeof line, "cd '%s' && '%s' %s trace %s >out.txt 2>err.txt", tmp, tool, cmd, args);
    int st = system(line);
    int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    size_t no, ne;
    snprintf(line, sizeof line, "%s/out.txt", tmp);
    char *out = slurp(line, &no);
    snprintf(line, sizeof line, "%s/err.txt", tmp);
    char *err = slurp(line, &ne);
    size_t cap = no + 2 * ne + 64;
    char *r = malloc(cap), *q = r;
    memcpy(q, out ? out : "", no), q += no;
    if (no && q[-1] != '\n')
        q += sprintf(q, "\n"); /* the last line without its newline: the comparison shows it */
    for (char *e = err, *end = err + ne; e && e < end;) {
        char *nl = memchr(e, '\n', (size_t)(end - e));
        size_t k = nl ? (size_t)(nl - e) : (size_t)(end - e);
        q += sprintf(q, "stderr: %.*s\n", (int)k, e);
        e += k + 1;
    }
    if (code)
        q += sprintf(q, "exit %d\n", code);
    *q = 0;
    free(out);
    free(err);
    return r;
}

/* The section's lines joined, each with its newline. */
static char *joined(const struct ptt *f, struct section s)
{
    size_t n = 1;
    for (unsigned i = s.first; i < s.end; i++)
        n += strlen(f->line[i]) + 1;
    char *r = malloc(n), *q = r;
    *q = 0;
    for (unsigned i = s.first; i < s.end; i++)
        q += sprintf(q, "%s\n", f->line[i]);
    return r;
}

/* Byte for byte; on a difference, the first line that differs, as diff would show it. */
static void compare(const struct ptt *f, struct section s, const char *what, const char *want, const char *got)
{
    if (!strcmp(want, got)) {
        CHECK(1);
        return;
    }
    unsigned k = 0;
    const char *w = want, *g = got;
    for (;;) {
        const char *wn = strchr(w, '\n'), *gn = strchr(g, '\n');
        size_t wl = wn ? (size_t)(wn - w) : strlen(w), gl = gn ? (size_t)(gn - g) : strlen(g);
        if (wl != gl || memcmp(w, g, wl) || !wn != !gn) {
            fail_at(f, s.first + k, "%s differs at its line %u:\n-%.*s%s\n+%.*s%s", what, k + 1, (int)wl, w,
                    *w ? "" : "(the end)", (int)gl, g, *g ? "" : "(the end)");
            return;
        }
        w = wn + 1, g = gn + 1, k++;
    }
}

/* --update: the file again, each expected section replaced by its output. */
static void rewrite(const struct ptt *f, const struct section *s, char *const *out, unsigned n)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s.new", f->path);
    FILE *o = fopen(path, "w");
    if (!o) {
        fail_at(f, 0, "%s: %s", path, strerror(errno));
        return;
    }
    for (unsigned i = 0, k = 0; i < f->nlines; i++) {
        if (k < n && i == s[k].first) {
            fputs(out[k], o);
            i = s[k++].end - 1;
            continue;
        }
        fprintf(o, "%s\n", f->line[i]);
    }
    for (unsigned k = 0; k < n; k++)
        if (s[k].first >= f->nlines)
            fputs(out[k], o); /* the last section, empty */
    CHECK(fclose(o) == 0 && rename(path, f->path) == 0);
    printf("updated %s: review the new output with git diff before committing it\n", f->path);
}

/* ---- the decoder's ways to read the flow ---- */
struct images {
    const struct image *im;
    unsigned n;
};

static size_t read_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    const struct images *c = ctx;
    for (unsigned k = 0; k < c->n; k++)
        if (ip >= c->im[k].base && ip - c->im[k].base < c->im[k].size) {
            *bytes = c->im[k].code + (ip - c->im[k].base);
            return c->im[k].size - (ip - c->im[k].base);
        }
    return 0;
}

/* One line per instruction (ip, size) or event (every field); a run gives no class, so none is shown. */
static void put(void *ctx, const struct fwpt_flow_event *ev)
{
    char l[160];
    int k = ev->kind == FWPT_FLOW_INSN
                ? snprintf(l, sizeof l, "insn %llx %u\n", (unsigned long long)ev->ip, ev->size)
                : snprintf(l, sizeof l, "event %u ip %u:%llx to %llx off %llx status %u detail %u sync %u async %u data %llx\n",
                           ev->kind, ev->ip_valid, (unsigned long long)ev->ip, (unsigned long long)ev->to,
                           (unsigned long long)ev->offset, ev->status, ev->detail, ev->sync, ev->async,
                           (unsigned long long)ev->data);
    mem_write(ctx, l, (size_t)k);
}

/* fwpt_flow_next (the tool's --slow-print) with and without the block cache, fwpt_flow_next_run and
 * fwpt_flow_next_batch (the listing) read the same instructions and events in the same order. */
static void ways_agree(const struct ptt *f, unsigned line, const struct trace *tr, const struct images *c, bool iflags)
{
    static const struct { enum flow_way way; bool cache; const char *name; } ways[] = {
        {FLOW_WAY_NEXT, true, "next"}, {FLOW_WAY_NEXT, false, "next without cache"},
        {FLOW_WAY_RUN, true, "next_run"}, {FLOW_WAY_BATCH, true, "next_batch"}};
    static struct fwpt_flow fl;
    static struct fwpt_flow_block cache[64];
    struct mem t[4] = {{0}};
    for (unsigned w = 0; w < 4; w++) {
        fwpt_flow_init(&fl, (const uint8_t *)tr->bytes.p, tr->bytes.n, read_code, (void *)c, ways[w].cache ? cache : NULL, ways[w].cache ? 64 : 0);
        fwpt_flow_set_iflags(&fl, iflags);
        flow_way_read(&fl, ways[w].way, 100000, put, &t[w]);
        char what[64];
        snprintf(what, sizeof what, "fwpt_flow_%s (against next)", ways[w].name);
        if (w)
            compare(f, (struct section){line, line, line}, what, t[0].p ? t[0].p : "", t[w].p ? t[w].p : "");
    }
    CHECK(t[0].n > 0);
    for (unsigned w = 0; w < 4; w++)
        free(t[w].p);
}

/* ---- one case ---- */
static void run_case(void)
{
    struct ptt f;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.ptt", CASES_DIR, check_case_name);
    if (!ptt_load(&f, path)) {
        CHECK(!"case file readable");
        return;
    }
    struct image im[MAX_IMAGES];
    unsigned nim = 0;
    struct trace tr = {0};
    fwpt_soft_enc_init(&tr.enc, &(struct fwpt_soft_enc_config){0}, trace_emit, &tr);
    struct section exp[8];
    char *cmd[8];
    unsigned nexp = 0, npackets = 0;
    bool ok = true;
    for (unsigned i = 0; i < f.nlines && ok; i++) {
        const char *l = f.line[i];
        if (l[0] != '@')
            continue;
        struct section s = section_at(&f, i);
        if (is_head(l, "code") || is_head(l, "bytes")) {
            if (nim == MAX_IMAGES) {
                fail_at(&f, i, "more than %d images", MAX_IMAGES);
                ok = false;
                break;
            }
            struct image *m = &im[nim];
            memset(m, 0, sizeof *m);
            ok = image_head(&f, i, m);
            if (ok && l[1] == 'c')
                ok = assemble(&f, s, m);
            for (unsigned k = s.first; ok && l[1] == 'b' && k < s.end; k++)
                ok = hex_bytes(&f, k, f.line[k], &m->code, &m->size);
            nim += ok;
        } else if (is_head(l, "packets")) {
            for (unsigned k = s.first; ok && k < s.end; k++)
                ok = packet(&f, k, &tr);
            npackets++;
        } else if ((is_head(l, "flow") || is_head(l, "dump")) && nexp < 8) {
            cmd[nexp] = (char *)l + 1;
            exp[nexp++] = s;
        } else {
            fail_at(&f, i, "no section is called '%s' (@code, @bytes, @packets, @flow, @dump)", l);
            ok = false;
        }
        i = s.end - 1;
    }
    if (ok && (npackets != 1 || !nexp)) {
        fail_at(&f, 0, "a case has one @packets section and at least one @flow or @dump");
        ok = false;
    }
    if (ok) {
        /* the saved directory: trace.pt, the images, sideband.json naming them */
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/trace", tmp);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/trace/trace.pt", tmp);
        write_file(p, tr.bytes.p ? tr.bytes.p : "", tr.bytes.n);
        snprintf(p, sizeof p, "%s/trace/sideband.json", tmp);
        FILE *sb = fopen(p, "w");
        CHECK(sb != NULL);
        if (!sb)
            return;
        fprintf(sb, "{\"images\":[");
        for (unsigned k = 0; k < nim; k++) {
            char img[PATH_MAX + 64];
            snprintf(img, sizeof img, "%s/trace/img-%llx.bin", tmp, (unsigned long long)im[k].base);
            write_file(img, im[k].code, im[k].size);
            fprintf(sb, "%s{\"name\":\"%s\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\"}",
                    k ? "," : "", im[k].name, (unsigned long long)im[k].base, im[k].size,
                    (unsigned long long)im[k].base);
        }
        fprintf(sb, "]}\n");
        fclose(sb);
        char *got[8];
        for (unsigned k = 0; k < nexp; k++) {
            char c[8], *args = strchr(cmd[k], ' ');
            snprintf(c, sizeof c, "%.4s", cmd[k]);
            got[k] = tool_output(c, args ? args + 1 : "");
            if (!update) {
                char *want = joined(&f, exp[k]);
                compare(&f, exp[k], cmd[k], want, got[k]);
                free(want);
            }
            if (!strcmp(c, "flow")) {
                ways_agree(&f, exp[k].head, &tr, &(struct images){im, nim}, args && strstr(args, "--iflags"));
                /* the one-event-at-a-time printer reads the flow another way: the same bytes */
                char slow_args[512];
                snprintf(slow_args, sizeof slow_args, "%s --slow-print", args ? args + 1 : "");
                char *slow = tool_output("flow", slow_args);
                compare(&f, exp[k], "flow --slow-print (against flow)", got[k], slow);
                free(slow);
            }
        }
        if (update)
            rewrite(&f, exp, got, nexp);
        for (unsigned k = 0; k < nexp; k++)
            free(got[k]);
        char rm[3 * PATH_MAX];
        snprintf(rm, sizeof rm, "rm -rf '%s/trace' '%s'/*.txt", tmp, tmp);
        CHECK(system(rm) == 0);
    }
    for (unsigned k = 0; k < nim; k++)
        free(im[k].code);
    free(tr.bytes.p);
    free(f.text);
}

int main(int argc, char **argv)
{
    /* --update is ours; the rest picks cases as tests/check.h does */
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--update"))
            update = true;
        else
            argv[n++] = argv[i];
    }
    argc = n;
    char rel[PATH_MAX];
    TOOL_FIND_OR_END(rel, "test_cases");
    if (!realpath(rel, tool)) {
        perror(rel);
        return 1;
    }
    glob_t g;
    if (glob(CASES_DIR "/*.ptt", 0, NULL, &g) || !g.gl_pathc) {
        fprintf(stderr, "%s: no *.ptt case (run from the checkout's top directory)\n", CASES_DIR);
        CHECK(!"cases present");
        return check_summary("test_cases");
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *b = g.gl_pathv[i] + strlen(CASES_DIR "/");
        check_register(strndup(b, strlen(b) - 4), run_case, g.gl_pathv[i], 1);
    }
    snprintf(tmp, sizeof tmp, "%s/fwpt-cases.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) {
        perror(tmp);
        return 1;
    }
    int rc = check_run(argc, argv, "test_cases");
    char rm[PATH_MAX + 16];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmp); /* what a failed case left there too */
    if (system(rm) != 0)
        fprintf(stderr, "%s: not removed\n", tmp);
    return rc;
}
