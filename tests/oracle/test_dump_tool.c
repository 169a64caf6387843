/* fwpt dump end to end: the streams of tests/common/pkt_stream (every packet type libipt encodes, and in every
 * third stream BBP/BIP/BEP/CFE/EVD/TRIG hand-encoded from the SDM tables) written to files and dumped by
 * $FWPT_BUILD/fwpt, the way a user runs it.
 *  1. Valid streams, --format jsonl: one object per packet; offset, type (libipt's name), size, then exactly
 *     the keys the schema of docs/formats.md lists for the type, in its order, with the values the generator encoded
 *     (IPs from the generator's own model of the SDM table). Where libipt can read the stream, pt_pkt_next
 *     gives the same offsets, types and sizes. --format text: one line per packet, offset and name in place.
 *     Exit status 0, nothing on stderr.
 *  2. --offset N at a packet boundary: the same packets as the whole file's dump from N on (IPs may differ
 *     until the next PSB resets Last IP; from there the lines are identical). --sync --offset X for any
 *     byte X: exactly the whole dump's lines from the first PSB at or after X (of PSBs back to back, the
 *     last), or exit 1 when there is none.
 *  3. Corrupted copies (bit flips, deleted bytes, truncations, overwritten bytes): no crash and no hang; the
 *     output equals decode/packet's own loop (fwpt_pkt_next, and fwpt_pkt_sync_forward after each error)
 *     printed by render/pkt_print; every error line is {"offset":N,"error":NAME} with a documented NAME; exit
 *     status 1 exactly when there were errors, with the counts on stderr.
 *  4. The traces of generated programs (tests/common/progen: PSB+, OVF, interrupts, enables and disables,
 *     as the flow tests use them): the dump reads each to its end, packet by packet as libipt does.
 *  5. Usage errors: exit 2 and the option or file named.
 * FWPT_DUMP_SEEDS overrides the number of streams. */
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode/packet.h"
#include "render/pkt_print.h"
#include "tests/check.h"
#include "tests/common/pkt_stream.h"
#include "tests/common/progen.h"
#include "tests/common/progen_check.h"
#include "tests/common/tool_run.h"

static char tool[1024], dir[64], file[128], errfile[128];
static struct pkt_stream st;
static uint8_t cbuf[PKT_STREAM_BYTES];
static int dir_made;

/* The temporary directory every case writes its files into (file: the trace, errfile: the tool's stderr), made
 * once on first use; false (a failed check) when it cannot be. */
static bool need_dir(void)
{
    if (!dir_made) {
        snprintf(dir, sizeof dir, "/tmp/fwpt-dump-XXXXXX");
        dir_made = mkdtemp(dir) != NULL;
        snprintf(file, sizeof file, "%s/s.pt", dir);
        snprintf(errfile, sizeof errfile, "%s/stderr", dir);
    }
    if (!dir_made)
        CHECK(!"temporary directory made");
    return dir_made;
}

/* ---- running the tool ---- */

struct run {
    char *out;   /* stdout, NUL-terminated */
    size_t len;
    int status;  /* exit status; -1 when killed by a signal or by the time limit */
    char err[512]; /* the start of stderr */
};

static void run_tool(struct run *r, const char *args)
{
    char cmd[2048];
    /* a time limit: a hang is a failure, not a stuck test */
    snprintf(cmd, sizeof cmd, "timeout 20 \"%s\" dump %s 2>\"%s\"", tool, args, errfile);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16;
    r->out = malloc(cap);
    r->len = 0;
    for (size_t n; p && (n = fread(r->out + r->len, 1, cap - r->len - 1, p)) > 0;) {
        r->len += n;
        if (cap - r->len < 2)
            r->out = realloc(r->out, cap *= 2);
    }
    r->out[r->len] = 0;
    int ws = p ? pclose(p) : -1;
    r->status = ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) != 124 ? WEXITSTATUS(ws) : -1;
    FILE *e = fopen(errfile, "r");
    size_t n = e ? fread(r->err, 1, sizeof r->err - 1, e) : 0;
    r->err[n] = 0;
    if (e)
        fclose(e);
}

/* Line k of s (0-based): its start, and its length without the newline; NULL past the last. */
static const char *line_at(const char *s, size_t k, size_t *n)
{
    for (; k && s; k--) {
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    if (!s || !*s)
        return NULL;
    const char *e = strchr(s, '\n');
    *n = e ? (size_t)(e - s) : strlen(s);
    return s;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* ---- one flat JSON object ---- */

#define MAXKEYS 16
struct obj {
    int n;
    char key[MAXKEYS][24];
    char val[MAXKEYS][72]; /* strings without their quotes */
    char str[MAXKEYS];     /* 1: the value was a string */
};

/* Parses {"k":v,...} (no nesting, no escapes: the schema has none). 0 on any deviation. */
static int parse_obj(const char *s, size_t len, struct obj *o)
{
    const char *e = s + len;
    o->n = 0;
    if (s >= e || *s++ != '{')
        return 0;
    while (s < e && o->n < MAXKEYS) {
        if (*s++ != '"')
            return 0;
        const char *k = s;
        while (s < e && *s != '"')
            s++;
        if (s >= e || (size_t)(s - k) >= sizeof o->key[0])
            return 0;
        memcpy(o->key[o->n], k, (size_t)(s - k));
        o->key[o->n][s - k] = 0;
        if (++s >= e || *s++ != ':')
            return 0;
        const char *v;
        o->str[o->n] = s < e && *s == '"';
        if (o->str[o->n]) {
            v = ++s;
            while (s < e && *s != '"')
                s++;
            if (s >= e)
                return 0;
        } else {
            v = s;
            while (s < e && *s != ',' && *s != '}')
                s++;
        }
        if ((size_t)(s - v) >= sizeof o->val[0] || s == v)
            return 0;
        memcpy(o->val[o->n], v, (size_t)(s - v));
        o->val[o->n][s - v] = 0;
        s += o->str[o->n];
        o->n++;
        if (s < e && *s == ',') {
            s++;
            continue;
        }
        return s + 1 == e && *s == '}';
    }
    return 0;
}

/* ---- the schema of docs/formats.md, written out independently of render/pkt_print.c ---- */

enum kind { DEC, HEX, BOOL, BITS };
struct field {
    const char *key;
    enum kind kind;
};
struct schema {
    uint8_t type;
    const char *name;         /* libipt's name */
    struct field f[5]; /* up to four, then a NULL key */
};
static const struct schema schema[] = {
    {FWPT_PKT_PAD, "pad", {{0}}},
    {FWPT_PKT_PSB, "psb", {{0}}},
    {FWPT_PKT_PSBEND, "psbend", {{0}}},
    {FWPT_PKT_OVF, "ovf", {{0}}},
    {FWPT_PKT_STOP, "stop", {{0}}},
    {FWPT_PKT_TNT_8, "tnt.8", {{"bits", BITS}}},
    {FWPT_PKT_TNT_64, "tnt.64", {{"bits", BITS}}},
    {FWPT_PKT_TIP, "tip", {{"ipc", DEC}, {"payload", HEX}, {"ip", HEX}}},
    {FWPT_PKT_TIP_PGE, "tip.pge", {{"ipc", DEC}, {"payload", HEX}, {"ip", HEX}}},
    {FWPT_PKT_TIP_PGD, "tip.pgd", {{"ipc", DEC}, {"payload", HEX}, {"ip", HEX}}},
    {FWPT_PKT_FUP, "fup", {{"ipc", DEC}, {"payload", HEX}, {"ip", HEX}}},
    {FWPT_PKT_PIP, "pip", {{"cr3", HEX}, {"nr", BOOL}}},
    {FWPT_PKT_MODE_EXEC, "mode.exec", {{"csl", BOOL}, {"csd", BOOL}, {"if", BOOL}, {"mode", DEC}}},
    {FWPT_PKT_MODE_TSX, "mode.tsx", {{"intx", BOOL}, {"abrt", BOOL}}},
    {FWPT_PKT_TSC, "tsc", {{"tsc", HEX}}},
    {FWPT_PKT_CBR, "cbr", {{"ratio", DEC}}},
    {FWPT_PKT_MTC, "mtc", {{"ctc", DEC}}},
    {FWPT_PKT_TMA, "tma", {{"ctc", DEC}, {"fc", DEC}}},
    {FWPT_PKT_CYC, "cyc", {{"value", DEC}}},
    {FWPT_PKT_VMCS, "vmcs", {{"base", HEX}}},
    {FWPT_PKT_MNT, "mnt", {{"payload", HEX}}},
    {FWPT_PKT_PTW, "ptw", {{"payload", HEX}, {"bytes", DEC}, {"ip", BOOL}}},
    {FWPT_PKT_EXSTOP, "exstop", {{"ip", BOOL}}},
    {FWPT_PKT_MWAIT, "mwait", {{"hints", DEC}, {"ext", DEC}}},
    {FWPT_PKT_PWRE, "pwre", {{"state", DEC}, {"sub_state", DEC}, {"hw", BOOL}}},
    {FWPT_PKT_PWRX, "pwrx", {{"last", DEC}, {"deepest", DEC}, {"wake_reason", DEC}}},
    {FWPT_PKT_BBP, "bbp", {{"btype", DEC}, {"sz", DEC}, {"item_bytes", DEC}}},
    {FWPT_PKT_BIP, "bip", {{"id", DEC}, {"value", HEX}, {"bytes", DEC}}},
    {FWPT_PKT_BEP, "bep", {{"ip", BOOL}}},
    {FWPT_PKT_CFE, "cfe", {{"cfe_type", DEC}, {"vector", DEC}, {"ip", BOOL}}},
    {FWPT_PKT_EVD, "evd", {{"evd_type", DEC}, {"payload", HEX}}},
    {FWPT_PKT_TRIG, "trig", {{"trbv", DEC}, {"ip", BOOL}, {"mult", BOOL}, {"icnt", DEC}}},
};

static const struct schema *schema_of(uint8_t type)
{
    for (size_t i = 0; i < sizeof schema / sizeof schema[0]; i++)
        if (schema[i].type == type)
            return &schema[i];
    return NULL;
}

/* The value the generator encoded for key k of packet e. */
static uint64_t want(const struct fwpt_packet *e, const char *k)
{
#define K(s) (!strcmp(k, s))
    switch (e->type) {
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        return K("ipc") ? e->ip.ipc : K("payload") ? e->ip.payload : e->ip.ip;
    case FWPT_PKT_PIP: return K("cr3") ? e->pip.cr3 : e->pip.nr;
    case FWPT_PKT_MODE_EXEC:
        return K("csl") ? e->mode_exec.csl : K("csd") ? e->mode_exec.csd : K("if") ? e->mode_exec.iflag
                                                                                   : e->mode_exec.mode;
    case FWPT_PKT_MODE_TSX: return K("intx") ? e->mode_tsx.intx : e->mode_tsx.abrt;
    case FWPT_PKT_TSC: return e->tsc.tsc;
    case FWPT_PKT_CBR: return e->cbr.ratio;
    case FWPT_PKT_MTC: return e->mtc.ctc;
    case FWPT_PKT_TMA: return K("ctc") ? e->tma.ctc : e->tma.fc;
    case FWPT_PKT_CYC: return e->cyc.value;
    case FWPT_PKT_VMCS: return e->vmcs.base;
    case FWPT_PKT_MNT: return e->mnt.payload;
    case FWPT_PKT_PTW: return K("payload") ? e->ptw.payload : K("bytes") ? e->ptw.bytes : e->ptw.ip;
    case FWPT_PKT_EXSTOP: return e->exstop.ip;
    case FWPT_PKT_MWAIT: return K("hints") ? e->mwait.hints : e->mwait.ext;
    case FWPT_PKT_PWRE: return K("state") ? e->pwre.state : K("sub_state") ? e->pwre.sub_state : e->pwre.hw;
    case FWPT_PKT_PWRX: return K("last") ? e->pwrx.last : K("deepest") ? e->pwrx.deepest : e->pwrx.wake_reason;
    case FWPT_PKT_BBP: return K("btype") ? e->bbp.type : K("sz") ? e->bbp.sz : e->bbp.item_bytes;
    case FWPT_PKT_BIP: return K("id") ? e->bip.id : K("value") ? e->bip.value : e->bip.bytes;
    case FWPT_PKT_BEP: return e->bep.ip;
    case FWPT_PKT_CFE: return K("cfe_type") ? e->cfe.type : K("vector") ? e->cfe.vector : e->cfe.ip;
    case FWPT_PKT_EVD: return K("evd_type") ? e->evd.type : e->evd.payload;
    case FWPT_PKT_TRIG: return K("trbv") ? e->trig.trbv : K("ip") ? e->trig.ip : K("mult") ? e->trig.mult : e->trig.icnt;
    default: return 0;
    }
#undef K
}

/* A value as the schema writes it: decimal integer, "0x..." string (lowercase, no leading zeros), boolean. */
static int value_is(const struct obj *o, int i, enum kind kind, uint64_t v)
{
    char s[72];
    switch (kind) {
    case DEC: snprintf(s, sizeof s, "%llu", (unsigned long long)v); return !o->str[i] && !strcmp(o->val[i], s);
    case HEX: snprintf(s, sizeof s, "0x%llx", (unsigned long long)v); return o->str[i] && !strcmp(o->val[i], s);
    case BOOL: return !o->str[i] && !strcmp(o->val[i], v ? "true" : "false");
    default: return 0;
    }
}

static unsigned long n_lines_checked, n_libipt_checked;

/* One JSON line against the generator's packet; 1 when it is exactly what the schema says. skip_ip: do not
 * compare the reconstructed IP (a dump that started without Last IP). */
static int check_obj(const char *line, size_t len, const struct fwpt_packet *e, int skip_ip)
{
    struct obj o;
    const struct schema *sc = schema_of(e->type);
    char s[72];
    if (!sc || !parse_obj(line, len, &o) || o.n < 3 || strcmp(o.key[0], "offset") || strcmp(o.key[1], "type") ||
        strcmp(o.key[2], "size") || !value_is(&o, 0, DEC, e->offset) || !o.str[1] || strcmp(o.val[1], sc->name) ||
        !value_is(&o, 2, DEC, e->size))
        return 0;
    int i = 3;
    for (const struct field *f = sc->f; f->key; f++) {
        if ((sc->type == FWPT_PKT_TIP || sc->type == FWPT_PKT_TIP_PGE || sc->type == FWPT_PKT_TIP_PGD ||
             sc->type == FWPT_PKT_FUP) && e->ip.suppressed && strcmp(f->key, "ipc"))
            continue; /* IPBytes 000b: no payload, no ip */
        if (sc->type == FWPT_PKT_TRIG && !e->trig.icntv && !strcmp(f->key, "icnt"))
            continue; /* ICNTV clear: no instruction count */
        if (i >= o.n || strcmp(o.key[i], f->key))
            return 0;
        if (f->kind == BITS) {
            unsigned n = e->tnt.count;
            for (unsigned b = 0; b < n; b++)
                s[b] = (e->tnt.bits >> b) & 1 ? 'T' : 'N';
            s[n] = 0;
            if (!o.str[i] || strcmp(o.val[i], s))
                return 0;
        } else if (!(skip_ip && !strcmp(f->key, "ip") && f->kind == HEX) && !value_is(&o, i, f->kind, want(e, f->key))) {
            return 0;
        }
        i++;
    }
    if (i != o.n)
        return 0; /* a key the schema does not list */
    n_lines_checked++;
    return 1;
}

/* libipt's name for a packet it decoded. */
static const char *ipt_name(const struct pt_packet *p)
{
    static const struct { enum pt_packet_type t; const char *n; } names[] = {
        {ppt_pad, "pad"}, {ppt_psb, "psb"}, {ppt_psbend, "psbend"}, {ppt_fup, "fup"}, {ppt_tip, "tip"},
        {ppt_tip_pge, "tip.pge"}, {ppt_tip_pgd, "tip.pgd"}, {ppt_tnt_8, "tnt.8"}, {ppt_tnt_64, "tnt.64"},
        {ppt_pip, "pip"}, {ppt_vmcs, "vmcs"}, {ppt_cbr, "cbr"}, {ppt_tsc, "tsc"}, {ppt_tma, "tma"},
        {ppt_mtc, "mtc"}, {ppt_cyc, "cyc"}, {ppt_stop, "stop"}, {ppt_ovf, "ovf"}, {ppt_mnt, "mnt"},
        {ppt_exstop, "exstop"}, {ppt_mwait, "mwait"}, {ppt_pwre, "pwre"}, {ppt_pwrx, "pwrx"}, {ppt_ptw, "ptw"},
    };
    if (p->type == ppt_mode)
        return p->payload.mode.leaf == pt_mol_exec ? "mode.exec" : "mode.tsx";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].t == p->type)
            return names[i].n;
    return "?";
}

/* The jsonl dump of a whole valid stream, line by line against libipt's pt_pkt_next: offset, type, size, and
 * the IP and TNT payloads. */
static void check_libipt(const char *out, const uint8_t *b, size_t len, unsigned seed)
{
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)b;
    cfg.end = (uint8_t *)b + len;
    struct pt_packet_decoder *d = pt_pkt_alloc_decoder(&cfg);
    pt_pkt_sync_set(d, 0);
    struct pt_packet p;
    size_t k = 0, n;
    const char *l;
    int ok = 1;
    uint64_t last_ip = 0;
    for (;; k++) {
        uint64_t off = 0;
        pt_pkt_get_offset(d, &off);
        int r = pt_pkt_next(d, &p, sizeof p);
        l = line_at(out, k, &n);
        if (r <= 0)
            break;
        struct obj o;
        char want_off[24], want_size[8];
        snprintf(want_off, sizeof want_off, "%llu", (unsigned long long)off);
        snprintf(want_size, sizeof want_size, "%u", p.size);
        if (!l || !parse_obj(l, n, &o) || o.n < 3 || strcmp(o.val[0], want_off) || strcmp(o.val[1], ipt_name(&p)) ||
            strcmp(o.val[2], want_size)) {
            fprintf(stderr, "seed %u: libipt packet %zu (%s at %llu, %u bytes) vs line '%.*s'\n", seed, k,
                    ipt_name(&p), (unsigned long long)off, p.size, l ? (int)n : 6, l ? l : "(none)");
            ok = 0;
            break;
        }
        /* the payloads libipt reads: IPBytes and raw IP (the IP from the model of the SDM table, Last IP
         * reset at PSB), TNT bits (libipt: bit N-1 is the oldest) */
        char v[72];
        if (p.type == ppt_psb)
            last_ip = 0;
        if (p.type == ppt_fup || p.type == ppt_tip || p.type == ppt_tip_pge || p.type == ppt_tip_pgd) {
            unsigned ipc = p.payload.ip.ipc;
            snprintf(v, sizeof v, "%u", ipc);
            int good = o.n == (ipc ? 6 : 4) && !strcmp(o.key[3], "ipc") && !strcmp(o.val[3], v);
            if (ipc) {
                last_ip = pkt_stream_model_ip(last_ip, ipc, p.payload.ip.ip);
                snprintf(v, sizeof v, "0x%llx", (unsigned long long)p.payload.ip.ip);
                good &= !strcmp(o.key[4], "payload") && !strcmp(o.val[4], v);
                snprintf(v, sizeof v, "0x%llx", (unsigned long long)last_ip);
                good &= !strcmp(o.key[5], "ip") && !strcmp(o.val[5], v);
            }
            ok &= good;
        } else if (p.type == ppt_tnt_8 || p.type == ppt_tnt_64) {
            unsigned nb = p.payload.tnt.bit_size;
            for (unsigned i = 0; i < nb; i++)
                v[i] = (p.payload.tnt.payload >> (nb - 1 - i)) & 1 ? 'T' : 'N';
            v[nb] = 0;
            ok &= o.n == 4 && !strcmp(o.key[3], "bits") && !strcmp(o.val[3], v);
        }
        if (!ok) {
            fprintf(stderr, "seed %u: libipt's payload of packet %zu (%s at %llu) vs line '%.*s'\n", seed, k,
                    ipt_name(&p), (unsigned long long)off, (int)n, l);
            break;
        }
        n_libipt_checked++;
    }
    CHECK(ok);
    CHECK(ok && l == NULL); /* libipt reached the end where the dump did */
    pt_pkt_free_decoder(d);
}

/* Text line k: "%016llx  NAME" (then two spaces or more and the payload, or nothing). */
static int text_line_is(const char *l, size_t n, uint64_t off, const char *name)
{
    char head[64];
    int h = snprintf(head, sizeof head, "%016llx  %s", (unsigned long long)off, name);
    return n >= (size_t)h && !memcmp(l, head, (size_t)h) && (n == (size_t)h || l[h] == ' ');
}

/* ---- 1. and 2.: a valid stream ---- */

/* b[0..n) as the file, dumped whole as JSON lines: a valid trace gives exit status 0 and nothing on stderr. */
static void dump_valid(struct run *r, const uint8_t *b, size_t n)
{
    char args[512];
    write_file(file, b, n);
    snprintf(args, sizeof args, "\"%s\" --format jsonl", file);
    run_tool(r, args);
    CHECK_EQ(r->status, 0);
    CHECK_STR(r->err, "");
}

static void check_valid(unsigned seed, int with_new)
{
    struct run r, full;
    char args[512];
    dump_valid(&full, st.buf, st.len);
    CHECK_EQ(count_lines(full.out), st.nexp);
    int ok = 1;
    for (size_t k = 0; k < st.nexp && ok; k++) {
        size_t n;
        const char *l = line_at(full.out, k, &n);
        if (!l || !check_obj(l, n, &st.exp[k], 0)) {
            fprintf(stderr, "seed %u: packet %zu (type %u at %llu): line '%.*s'\n", seed, k, st.exp[k].type,
                    (unsigned long long)st.exp[k].offset, l ? (int)n : 6, l ? l : "(none)");
            ok = 0;
        }
    }
    CHECK(ok);
    if (!with_new)
        check_libipt(full.out, st.buf, st.len, seed);

    /* text: the same packets, offset and name first */
    snprintf(args, sizeof args, "\"%s\"", file);
    run_tool(&r, args);
    CHECK_EQ(r.status, 0);
    CHECK_EQ(count_lines(r.out), st.nexp);
    ok = 1;
    for (size_t k = 0; k < st.nexp && ok; k++) {
        size_t n;
        const char *l = line_at(r.out, k, &n);
        const struct schema *sc = schema_of(st.exp[k].type);
        ok = l && sc && text_line_is(l, n, st.exp[k].offset, sc->name);
    }
    CHECK(ok);
    free(r.out);

    /* --offset at a packet boundary (streams without blocks: inside one, the bytes mean something else) */
    if (!with_new && st.nexp > 2) {
        size_t k0 = 1 + pkt_stream_rn(&st, (unsigned)st.nexp - 1), psb = k0;
        while (psb < st.nexp && st.exp[psb].type != FWPT_PKT_PSB)
            psb++;
        snprintf(args, sizeof args, "\"%s\" --format jsonl --offset %llu", file,
                 (unsigned long long)st.exp[k0].offset);
        run_tool(&r, args);
        CHECK_EQ(r.status, 0);
        CHECK_EQ(count_lines(r.out), st.nexp - k0);
        ok = 1;
        for (size_t k = k0; k < st.nexp && ok; k++) {
            size_t n, fn;
            const char *l = line_at(r.out, k - k0, &n), *fl = line_at(full.out, k, &fn);
            ok = l && check_obj(l, n, &st.exp[k], k < psb) && (k < psb || (n == fn && !memcmp(l, fl, n)));
        }
        CHECK(ok);
        free(r.out);
    }

    /* --sync --offset X, X any byte: the whole dump from the first PSB at or after X */
    size_t x = pkt_stream_rn(&st, (unsigned)st.len + 1), k = 0;
    while (k < st.nexp && (st.exp[k].type != FWPT_PKT_PSB || st.exp[k].offset < x))
        k++;
    /* PSBs back to back are one run of 02 82 pairs: the sync point is its last 16 bytes (packet.h, as libipt) */
    while (k + 1 < st.nexp && st.exp[k + 1].type == FWPT_PKT_PSB && st.exp[k + 1].offset == st.exp[k].offset + 16)
        k++;
    snprintf(args, sizeof args, "\"%s\" --format jsonl --sync --offset %zu", file, x);
    run_tool(&r, args);
    if (k < st.nexp) {
        size_t n;
        const char *from = line_at(full.out, k, &n);
        CHECK_EQ(r.status, 0);
        CHECK_STR(r.out, from);
    } else {
        char want[128];
        snprintf(want, sizeof want, "fwpt dump: no PSB at or after offset %zu\n", x);
        CHECK_EQ(r.status, 1);
        CHECK_STR(r.out, "");
        CHECK_STR(r.err, want);
    }
    free(r.out);
    free(full.out);
}

/* ---- 3.: a corrupted copy ---- */

struct memsink {
    char *s;
    size_t n, cap;
};
static void mem_write(void *ctx, const char *s, size_t n)
{
    struct memsink *m = ctx;
    if (m->n + n + 1 > m->cap)
        m->s = realloc(m->s, m->cap = 2 * (m->n + n + 1));
    memcpy(m->s + m->n, s, n);
    m->n += n;
    m->s[m->n] = 0;
}

/* What docs/host-tool.md and docs/formats.md promise the dump prints: each packet; at an error the error, then on from the next PSB. */
static char *expected_dump(const uint8_t *b, size_t len, int jsonl, unsigned long *pkts, unsigned long *errs)
{
    struct memsink m = {calloc(1, 1), 0, 1};
    struct fwpt_sink o = {mem_write, &m};
    struct fwpt_pkt_decoder dec;
    struct fwpt_packet p;
    fwpt_pkt_init(&dec, b, len);
    fwpt_pkt_sync_set(&dec, 0);
    *pkts = *errs = 0;
    for (;;) {
        enum fwpt_status s = fwpt_pkt_next(&dec, &p);
        if (s == FWPT_E_EOS)
            break;
        if (s != FWPT_OK) {
            ++*errs;
            (jsonl ? fwpt_pkt_print_error_json : fwpt_pkt_print_error_text)(&o, p.offset, s);
            if (fwpt_pkt_sync_forward(&dec) != FWPT_OK)
                break;
            continue;
        }
        ++*pkts;
        (jsonl ? fwpt_pkt_print_json : fwpt_pkt_print_text)(&o, &p);
    }
    return m.s;
}

static unsigned long n_corrupt, n_error_lines;

static void check_corrupt(unsigned seed, size_t clen)
{
    write_file(file, cbuf, clen);
    for (int jsonl = 0; jsonl < 2; jsonl++) {
        char args[512];
        snprintf(args, sizeof args, "\"%s\"%s", file, jsonl ? " --format jsonl" : "");
        struct run r;
        run_tool(&r, args);
        unsigned long pkts, errs;
        char *want = expected_dump(cbuf, clen, jsonl, &pkts, &errs);
        /* a copy without any PSB is dumped all the same, and said (exit 1) */
        struct fwpt_pkt_decoder sync;
        fwpt_pkt_init(&sync, cbuf, clen);
        const int no_psb = fwpt_pkt_sync_forward(&sync) != FWPT_OK;
        CHECK_EQ(r.status, errs || no_psb ? 1 : 0); /* run_tool gives -1 for a signal or the time limit */
        if (strcmp(r.out, want)) {
            fprintf(stderr, "seed %u: the dump of a corrupted copy (%zu bytes, %s) differs\n", seed, clen,
                    jsonl ? "jsonl" : "text");
            CHECK(!"dump of a corrupted copy");
        }
        char cnt[600] = "";
        if (no_psb)
            snprintf(cnt, sizeof cnt, "fwpt dump: %s: no PSB in its %zu bytes: not an Intel PT trace, or cut before its "
                     "first PSB; nothing decoded\n", file, clen);
        if (errs)
            snprintf(cnt + strlen(cnt), sizeof cnt - strlen(cnt),
                     "fwpt dump: %lu packets, %lu errors (resynchronized at the next PSB after each)\n", pkts, errs);
        CHECK_STR(r.err, cnt);
        if (jsonl) {
            /* every error line as docs/formats.md documents it */
            size_t n;
            const char *l;
            int ok = 1;
            for (size_t k = 0; (l = line_at(r.out, k, &n)); k++) {
                struct obj o;
                if (!parse_obj(l, n, &o))
                    ok = 0;
                else if (o.n == 2 && !strcmp(o.key[0], "offset") && !strcmp(o.key[1], "error")) {
                    ok &= o.str[1] && (!strcmp(o.val[1], "truncated") || !strcmp(o.val[1], "bad_opcode") ||
                                       !strcmp(o.val[1], "bad_ipc") || !strcmp(o.val[1], "bad_packet"));
                    ok &= strtoull(o.val[0], NULL, 10) < clen;
                    n_error_lines++;
                }
            }
            CHECK(ok);
        }
        free(want);
        free(r.out);
    }
    n_corrupt++;
}

/* ---- 1.-3.: the streams ---- */

/* Seed s's stream (every third with the new packet types): 1./2. its dump checked as a valid stream, then 3. two
 * corrupted copies of it (the generator's random numbers run on through both: a seed is checked whole). */
static void check_seed(unsigned s)
{
    st.rng = 0x2545f4914f6cdd1dull * s + 7;
    int with_new = s % 3 == 0;
    pkt_stream_build(&st, 20 + pkt_stream_rn(&st, s % 10 == 0 ? 2000 : 200), with_new);
    CHECK_EQ(st.enc_errors, 0);
    check_valid(s, with_new);
    for (int v = 0; v < 2; v++)
        check_corrupt(s, pkt_stream_corrupt(&st, cbuf));
}

/* The seeds of one kind (with_new: every third; else the others); FWPT_DUMP_SEEDS sets the count (300). */
static void check_seeds(int with_new)
{
    if (!need_dir())
        return;
    const char *env = getenv("FWPT_DUMP_SEEDS");
    unsigned seeds = env ? (unsigned)atoi(env) : 300;
    n_lines_checked = n_libipt_checked = n_corrupt = n_error_lines = 0;
    for (unsigned s = 1; s <= seeds; s++)
        if ((s % 3 == 0) == with_new)
            check_seed(s);
    printf("dump lines checked against the generator: %lu; packets against libipt: %lu; corrupted files: %lu (error "
           "lines: %lu)\n", n_lines_checked, n_libipt_checked, n_corrupt, n_error_lines);
}

/* 1. valid streams of the packet types libipt encodes: the JSON lines against the schema and the generator, the
 * packets against libipt, the text lines; 2. --offset and --sync --offset; 3. corrupted copies: the output of
 * decode/packet's own loop, well-formed error lines, exit 1 and the counts on stderr */
TEST(libipt_types_streams_and_corruptions)
{
    check_seeds(0);
}

/* the same for the streams that also hold BBP/BIP/BEP/CFE/EVD/TRIG (checked against the generator's record) */
TEST(new_types_streams_and_corruptions)
{
    check_seeds(1);
}

/* ---- 4.: program traces ---- */

static unsigned long n_programs;

/* 4. the traces of generated programs: the dump reads each to its end, packet by packet as libipt does */
TEST(program_traces_read_to_end)
{
    if (!need_dir())
        return;
    n_programs = n_libipt_checked = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct progen_cfg cfg = {.seed = seed, .max_insns = 20000, .features = PROGEN_F_ALL, .biased = (int)(seed & 1)};
        struct progen p;
        if (!progen_build_checked(&cfg, &p))
            continue;
        struct run r;
        dump_valid(&r, p.trace, p.trace_size);
        check_libipt(r.out, p.trace, p.trace_size, (unsigned)seed);
        free(r.out);
        progen_free(&p);
        n_programs++;
    }
    printf("program traces: %lu; packets against libipt: %lu\n", n_programs, n_libipt_checked);
}

/* ---- the progress line ---- */

/* A dump to a file shows the progress line on a terminal's stderr (no delay: at the first look at the clock),
 * counting packets, and clears it; --quiet, -q, a dump to the terminal itself or into a pipe show none. */
TEST(progress_line_on_terminal)
{
    static char out[1 << 16];
    if (!need_dir())
        return;
    char args[512];
    int status;
    st.rng = 0x2545f4914f6cdd1dull;
    pkt_stream_build(&st, 2000, 0);
    write_file(file, st.buf, st.len);
    snprintf(args, sizeof args, "dump \"%s\"", file);
    size_t n = run_on_pty(tool, args, 1, "0", out, sizeof out, &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(n > 20 && !strncmp(out, "\rfwpt dump: ", 12));
    CHECK(strstr(out, " trace bytes (") && strstr(out, " packets, ") && strstr(out, "/s"));
    CHECK(n >= 2 && out[n - 1] == '\r' && !strchr(out, '\n')); /* one line, cleared at the end */
    static const char *const none[] = {"dump \"%s\" --quiet", "dump \"%s\" -q --format jsonl", "dump \"%s\" | cat"};
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
        snprintf(args, sizeof args, none[k], file);
        CHECK_EQ(run_on_pty(tool, args, 1, "0", out, sizeof out, &status), 0);
    }
    snprintf(args, sizeof args, "dump \"%s\"", file); /* to the terminal: the packets, no line */
    n = run_on_pty(tool, args, 0, "0", out, sizeof out, &status);
    CHECK(n > 1000 && !strstr(out, "fwpt dump: "));
}

/* ---- 5.: usage ---- */

/* usage errors: exit 2 and the option or file named; an empty file, a file without PSB: said, exit 1 */
TEST(usage_errors_named)
{
    if (!need_dir())
        return;
    static const struct {
        const char *args, *err; /* err: what stderr must contain */
        int status;
    } cases[] = {
        {"F --format xml", "--format: expected 'text' or 'jsonl', got 'xml'", 2},
        {"F --format", "--format: expected 'text' or 'jsonl', got '(nothing)'", 2},
        {"F --offset 12abc", "--offset: expected a number, got '12abc'", 2},
        {"D --symbols", "fwpt dump: --symbols: expected a symbol file, a directory or FILE@BASE, got '(nothing)'", 2},
        {"F --offset 0x100000", "--offset 1048576 is beyond the end of", 2},
        {"F --bogus", "unknown option '--bogus'", 2},
        {"F F", "more than one FILE", 2},
        {"", "no FILE given", 2},
        {"D/missing.pt", "cannot open", 1},
        {"D", "is a directory without trace.pt", 1},
        {"E --sync", "empty.pt: empty (0 bytes): nothing to decode\n", 1},
    };
    char empty[160];
    snprintf(empty, sizeof empty, "%s/empty.pt", dir);
    write_file(empty, (const uint8_t *)"", 0);
    uint8_t pads[64] = {0};
    snprintf(file, sizeof file, "%s/s.pt", dir);
    write_file(file, pads, sizeof pads);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024] = "";
        for (const char *a = cases[i].args; *a; a++) {
            size_t l = strlen(args);
            if (*a == 'F' || *a == 'D' || *a == 'E')
                snprintf(args + l, sizeof args - l, "%s", *a == 'F' ? file : *a == 'D' ? dir : empty);
            else
                snprintf(args + l, sizeof args - l, "%c", *a);
        }
        struct run r;
        run_tool(&r, args);
        if (r.status != cases[i].status || !strstr(r.err, cases[i].err) || r.len) {
            fprintf(stderr, "fwpt dump %s: status %d, stderr '%s'\n", args, r.status, r.err);
            CHECK(!"usage error");
        } else {
            CHECK(1);
        }
        free(r.out);
    }
    /* an empty file is no dump, and said; 64 PADs are 64 lines, but no trace (no PSB): said, exit 1 */
    char args[256], want[400];
    snprintf(args, sizeof args, "\"%s\"", empty);
    struct run r;
    run_tool(&r, args);
    CHECK_EQ(r.status, 1);
    CHECK_EQ(r.len, 0);
    snprintf(want, sizeof want, "fwpt dump: %s: empty (0 bytes): nothing to decode\n", empty);
    CHECK_STR(r.err, want);
    free(r.out);
    snprintf(args, sizeof args, "\"%s\" --offset 0x3f", file);
    run_tool(&r, args);
    CHECK_EQ(r.status, 1);
    CHECK_STR(r.out, "000000000000003f  pad\n");
    snprintf(want, sizeof want, "fwpt dump: %s: no PSB in its 64 bytes: not an Intel PT trace, or cut before its first "
             "PSB; nothing decoded\n", file);
    CHECK_STR(r.err, want);
    free(r.out);
    unlink(empty);
}

int main(int argc, char **argv)
{
    TOOL_FIND_OR_END(tool, "test_dump_tool");
    int rc = check_run(argc, argv, "test_dump_tool");
    if (dir_made) {
        unlink(file);
        unlink(errfile);
        rmdir(dir);
    }
    return rc;
}
