/* Capability enumeration over every row of tests/data/cpuid_leaf14.tsv (a copy of shared/data's), the
 * replay backend, fwpt_caps_read's leaf rules (QEMU's above-max answers), and `fwpt caps --json`. */
#include <stdbool.h>
#include "arch/caps.h"
#include "arch/cpu_replay.h"
#include "arch/rtit.h"
#include "tests/check.h"
#include "tests/common/tool_run.h"

/* ---- a small JSON reader: validates one object and finds top-level keys ---- */

struct json {
    const char *s;
    size_t i, n;
};

static void jws(struct json *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\n' || j->s[j->i] == '\t' || j->s[j->i] == '\r'))
        j->i++;
}

static bool jvalue(struct json *j);

static bool jstring(struct json *j)
{
    if (j->i >= j->n || j->s[j->i] != '"')
        return false;
    for (j->i++; j->i < j->n; j->i++) {
        char c = j->s[j->i];
        if (c == '\\') {
            j->i++;
            continue;
        }
        if ((unsigned char)c < 0x20)
            return false;
        if (c == '"') {
            j->i++;
            return true;
        }
    }
    return false;
}

static bool jvalue(struct json *j)
{
    jws(j);
    if (j->i >= j->n)
        return false;
    char c = j->s[j->i];
    if (c == '"')
        return jstring(j);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->i++;
        jws(j);
        if (j->i < j->n && j->s[j->i] == close) {
            j->i++;
            return true;
        }
        for (;;) {
            if (c == '{') {
                jws(j);
                if (!jstring(j))
                    return false;
                jws(j);
                if (j->i >= j->n || j->s[j->i++] != ':')
                    return false;
            }
            if (!jvalue(j))
                return false;
            jws(j);
            if (j->i >= j->n)
                return false;
            if (j->s[j->i] == ',') {
                j->i++;
                continue;
            }
            if (j->s[j->i] == close) {
                j->i++;
                return true;
            }
            return false;
        }
    }
    if (!strncmp(j->s + j->i, "true", 4) || !strncmp(j->s + j->i, "null", 4)) {
        j->i += 4;
        return true;
    }
    if (!strncmp(j->s + j->i, "false", 5)) {
        j->i += 5;
        return true;
    }
    size_t st = j->i;
    if (c == '-')
        j->i++;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
        j->i++;
    return j->i > st;
}

/* The whole text is exactly one JSON object followed by a newline. */
static bool json_valid_object(const char *s)
{
    struct json j = {s, 0, strlen(s)};
    jws(&j);
    if (j.i >= j.n || s[j.i] != '{' || !jvalue(&j))
        return false;
    return j.i + 1 == j.n && s[j.i] == '\n';
}

/* Raw text of the value of top-level key k ("" if absent). Keys are unique, values flat. */
static const char *json_get(const char *s, const char *k, char *buf, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", k);
    const char *p = strstr(s, pat);
    buf[0] = '\0';
    if (!p)
        return buf;
    struct json j = {s, (size_t)(p - s) + strlen(pat), strlen(s)};
    size_t st = j.i;
    if (!jvalue(&j))
        return buf;
    size_t len = j.i - st < cap - 1 ? j.i - st : cap - 1;
    memcpy(buf, s + st, len);
    buf[len] = '\0';
    return buf;
}

static int json_count_key(const char *s, const char *k)
{
    char pat[64];
    int n = 0;
    snprintf(pat, sizeof pat, "\"%s\":", k);
    for (const char *p = s; (p = strstr(p, pat)); p++)
        n++;
    return n;
}

/* ---- rendering to strings ---- */

static char outbuf[16384];

static const char *render(const struct fwpt_caps *c, bool json)
{
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, outbuf, sizeof outbuf - 1);
    if (json)
        fwpt_caps_json(c, &o);
    else
        fwpt_caps_report(c, &o);
    CHECK_EQ(b.overflow, 0);
    outbuf[b.len < sizeof outbuf - 1 ? b.len : sizeof outbuf - 1] = '\0';
    return outbuf;
}

static const char *const cap_names[] = {
    "cr3_filtering", "psb_cyc", "ip_filtering", "mtc", "ptwrite", "power_event_trace", "psb_pmi_preserve",
    "event_trace", "tnt_disable", "topa_output", "topa_multiple_entries", "single_range_output",
    "output_subsys", "payloads_lip", "num_address_ranges", "mtc_periods", "cycle_thresholds", "psb_periods",
};
#define N_CAPS (sizeof cap_names / sizeof cap_names[0])

/* ---- the data file ---- */

#define MAX_ROWS 400
#define MAX_COLS 32
struct row {
    char *col[MAX_COLS];
    int ncol;
    int line;
};
static struct row rows[MAX_ROWS];
static int nrows;
static char *header[MAX_COLS];
static int nheader;

static int colidx(const char *name)
{
    for (int i = 0; i < nheader; i++)
        if (!strcmp(header[i], name))
            return i;
    fprintf(stderr, "test_caps: data file has no column '%s'\n", name);
    exit(1);
}

static const char *col(const struct row *r, const char *name)
{
    int i = colidx(name);
    return i < r->ncol ? r->col[i] : "";
}

static int split(char *line, char **out)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    out[n++] = p;
    for (; *p; p++)
        if (*p == '\t' && n < MAX_COLS) {
            *p = '\0';
            out[n++] = p + 1;
        }
    return n;
}

static bool load_rows(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cpuid_leaf14.tsv", check_data_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "test_caps: FATAL: cannot open %s (tests/data, or FWPT_DATA=DIR holding cpuid_leaf14.tsv)\n", path);
        return false;
    }
    char line[4096];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (ln == 1) {
            nheader = split(strdup(line), header);
            continue;
        }
        if (nrows == MAX_ROWS)
            break;
        rows[nrows].ncol = split(strdup(line), rows[nrows].col);
        rows[nrows].line = ln;
        nrows++;
    }
    fclose(f);
    return true;
}

/* The data file's rows, read once on first use; false (and a failed check) when it cannot be read. */
static bool need_rows(void)
{
    static int loaded, ok;
    if (!loaded) {
        loaded = 1;
        ok = load_rows();
    }
    if (!ok)
        CHECK(!"tests/data/cpuid_leaf14.tsv read");
    return ok;
}

static bool is_marker(const char *s)
{
    return !strcmp(s, "n/a") || !strcmp(s, "absent") || !strcmp(s, "not_in_dump_format");
}

static uint32_t hex32(const char *s)
{
    uint64_t v = 0;
    if (fwpt_parse_u64(s, 1, &v) || v > 0xffffffffull) {
        fprintf(stderr, "test_caps: bad hex '%s'\n", s);
        check_failed++;
    }
    return (uint32_t)v;
}

static bool row_regs(const struct row *r, const char *prefix, struct fwpt_cpuid_regs *out)
{
    char k[32];
    const char *v[4];
    const char *names[4] = {"eax", "ebx", "ecx", "edx"};
    int markers = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(k, sizeof k, "%s_%s", prefix, names[i]);
        v[i] = col(r, k);
        markers += is_marker(v[i]);
    }
    CHECK(markers == 0 || markers == 4); /* a subleaf is recorded whole or not at all */
    if (markers)
        return false;
    out->eax = hex32(v[0]);
    out->ebx = hex32(v[1]);
    out->ecx = hex32(v[2]);
    out->edx = hex32(v[3]);
    return true;
}

/* The snapshot fwpt_caps_read would have taken on that processor. */
static void row_snapshot(const struct row *r, struct fwpt_cpuid_snapshot *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->vendor, sizeof s->vendor, "%s", col(r, "vendor"));
    s->max_basic_leaf = hex32(col(r, "max_basic_leaf"));
    s->leaf1_eax = hex32(col(r, "family_model_stepping"));
    s->leaf7_ebx = hex32(col(r, "leaf7_ebx"));
    s->has_leaf14_0 = row_regs(r, "l14_0", &s->leaf14_0);
    CHECK_EQ(s->has_leaf14_0, s->max_basic_leaf >= 0x14); /* n/a exactly when above the max leaf */
    if (s->has_leaf14_0 && s->leaf14_0.eax >= 1)
        s->has_leaf14_1 = row_regs(r, "l14_1", &s->leaf14_1);
    else {
        struct fwpt_cpuid_regs unused;
        (void)row_regs(r, "l14_1", &unused); /* recorded by some tools even then; never read */
    }
    const char *la = col(r, "leaf_1a_eax");
    if (!is_marker(la)) {
        s->has_leaf1a = true;
        s->leaf1a_eax = hex32(la);
    }
    CHECK_EQ(s->has_leaf1a, s->max_basic_leaf >= 0x1a);
    s->max_ext_leaf = 0x80000008u;
    s->maxphyaddr = (uint32_t)atoi(col(r, "maxphyaddr"));
    CHECK_EQ(s->maxphyaddr, hex32(col(r, "leaf_80000008_eax")) & 0xff);
}

static const struct row *find_row(const char *cpu_name, const char *core_type, const char *source_part)
{
    for (int i = 0; i < nrows; i++)
        if (strstr(col(&rows[i], "cpu_name"), cpu_name) && (!core_type || !strcmp(col(&rows[i], "core_type"), core_type)) &&
            (!source_part || strstr(col(&rows[i], "source_file"), source_part)))
            return &rows[i];
    fprintf(stderr, "test_caps: no row for '%s'\n", cpu_name);
    check_failed++;
    return NULL;
}

static bool caps_equal(const struct fwpt_caps *a, const struct fwpt_caps *b)
{
    return a->family == b->family && a->model == b->model && a->stepping == b->stepping &&
           a->intel_pt == b->intel_pt && a->max_subleaf == b->max_subleaf && a->cr3_filtering == b->cr3_filtering &&
           a->psb_cyc == b->psb_cyc && a->ip_filtering == b->ip_filtering && a->mtc == b->mtc &&
           a->ptwrite == b->ptwrite && a->power_event_trace == b->power_event_trace &&
           a->psb_pmi_preserve == b->psb_pmi_preserve && a->event_trace == b->event_trace &&
           a->tnt_disable == b->tnt_disable && a->topa_output == b->topa_output &&
           a->topa_multiple_entries == b->topa_multiple_entries && a->single_range_output == b->single_range_output &&
           a->output_subsys == b->output_subsys && a->payloads_lip == b->payloads_lip &&
           a->num_address_ranges == b->num_address_ranges && a->mtc_periods == b->mtc_periods &&
           a->cycle_thresholds == b->cycle_thresholds && a->psb_periods == b->psb_periods &&
           a->subleaf1_known == b->subleaf1_known && a->maxphyaddr == b->maxphyaddr && a->core_type == b->core_type &&
           a->pt_supported == b->pt_supported && a->reason == b->reason;
}

/* ---- every row: invariants ---- */

static void check_row(const struct row *r)
{
    struct fwpt_cpuid_snapshot s;
    struct fwpt_caps c;
    char buf[256];
    unsigned f, m, st;
    int before = (int)check_failed;

    row_snapshot(r, &s);
    fwpt_caps_parse(&s, &c);

    /* identity against the data file's own decoding */
    CHECK(sscanf(col(r, "fms_decoded"), "%u/%u/%u", &f, &m, &st) == 3);
    CHECK_EQ(c.family, f);
    CHECK_EQ(c.model, m);
    CHECK_EQ(c.stepping, st);
    CHECK_EQ(c.maxphyaddr, s.maxphyaddr);
    const char *ct = col(r, "core_type");
    CHECK_EQ(c.core_type, !strcmp(ct, "Atom(E-core)") ? 0x20u : !strcmp(ct, "Core(P-core)") ? 0x40u : 0u);

    /* verdict invariants */
    bool intel = !strcmp(s.vendor, "GenuineIntel");
    CHECK_EQ(c.reason == FWPT_CAPS_NOT_INTEL, !intel);
    CHECK_EQ(c.pt_supported, c.reason == FWPT_CAPS_USABLE);
    CHECK_EQ(c.intel_pt, (s.leaf7_ebx & CPUID7_0_EBX_INTEL_PT) != 0);
    if (c.pt_supported) {
        CHECK(intel && c.intel_pt && s.has_leaf14_0 && s.max_basic_leaf >= 0x14);
        CHECK(c.topa_output || c.single_range_output);
        CHECK(!c.topa_multiple_entries || c.topa_output);
        CHECK(c.detail == NULL);
    }
    if (c.reason == FWPT_CAPS_LEAF7_BIT_CLEAR && s.has_leaf14_0 && (s.leaf14_0.ebx | s.leaf14_0.ecx))
        CHECK(c.note != NULL); /* leaf 14H shown although not used */
    /* flags are exactly the register bits when leaf 14H was read, else zero */
    uint32_t ebx = s.has_leaf14_0 ? s.leaf14_0.ebx : 0, ecx = s.has_leaf14_0 ? s.leaf14_0.ecx : 0;
    CHECK_EQ(c.cr3_filtering, (ebx >> 0) & 1);
    CHECK_EQ(c.psb_cyc, (ebx >> 1) & 1);
    CHECK_EQ(c.ip_filtering, (ebx >> 2) & 1);
    CHECK_EQ(c.mtc, (ebx >> 3) & 1);
    CHECK_EQ(c.ptwrite, (ebx >> 4) & 1);
    CHECK_EQ(c.power_event_trace, (ebx >> 5) & 1);
    CHECK_EQ(c.psb_pmi_preserve, (ebx >> 6) & 1);
    CHECK_EQ(c.event_trace, (ebx >> 7) & 1);
    CHECK_EQ(c.tnt_disable, (ebx >> 8) & 1);
    CHECK_EQ(c.topa_output, (ecx >> 0) & 1);
    CHECK_EQ(c.topa_multiple_entries, (ecx >> 1) & 1);
    CHECK_EQ(c.single_range_output, (ecx >> 2) & 1);
    CHECK_EQ(c.output_subsys, (ecx >> 3) & 1);
    CHECK_EQ(c.payloads_lip, (ecx >> 31) & 1);
    /* bitmaps only from a real subleaf 1 */
    if (c.mtc_periods || c.cycle_thresholds || c.psb_periods || c.num_address_ranges)
        CHECK(c.subleaf1_known && s.has_leaf14_1 && c.max_subleaf >= 1);
    if (c.subleaf1_known) {
        CHECK_EQ(c.num_address_ranges, s.leaf14_1.eax & 7);
        CHECK_EQ(c.mtc_periods, s.leaf14_1.eax >> 16);
        CHECK_EQ(c.cycle_thresholds, s.leaf14_1.ebx & 0xffff);
        CHECK_EQ(c.psb_periods, s.leaf14_1.ebx >> 16);
        CHECK(c.num_address_ranges <= FWPT_MAX_ADDR_RANGES);
    }
    if (c.max_subleaf >= 1 && !c.subleaf1_known && c.reason != FWPT_CAPS_NOT_INTEL)
        CHECK(c.note != NULL); /* the quirk is reported */
    /* hybrid parts: E-cores (and every Atom with PT in the data) use linear-address payloads */
    if (c.pt_supported && c.core_type == 0x40)
        CHECK(!c.payloads_lip);
    if (c.pt_supported && c.core_type == 0x20)
        CHECK(c.payloads_lip);

    /* the human report names every capability, the vendor and the verdict */
    const char *rep = render(&c, false);
    for (size_t k = 0; k < N_CAPS; k++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\n  %s ", cap_names[k]);
        CHECK(strstr(rep, pat) != NULL);
    }
    CHECK(strstr(rep, s.vendor) != NULL);
    CHECK(strstr(rep, "MAXPHYADDR") && strstr(rep, "verdict"));
    CHECK(strstr(rep, fwpt_caps_reason_msg(c.reason)) != NULL);
    CHECK(strstr(rep, c.pt_supported ? "verdict                 Intel PT usable (usable)"
                                     : "verdict                 Intel PT not usable (") != NULL);
    CHECK(strstr(rep, "\nerrata                  ") != NULL); /* the errata of the processor */

    /* the JSON object parses, has every name once, and says the same things */
    const char *js = render(&c, true);
    CHECK(json_valid_object(js));
    for (size_t k = 0; k < N_CAPS; k++)
        CHECK_EQ(json_count_key(js, cap_names[k]), 1);
    CHECK_STR(json_get(js, "pt_supported", buf, sizeof buf), c.pt_supported ? "true" : "false");
    char want[64];
    snprintf(want, sizeof want, "\"%s\"", fwpt_caps_reason_name(c.reason));
    CHECK_STR(json_get(js, "reason", buf, sizeof buf), want);
    snprintf(want, sizeof want, "\"0x%x\"", c.mtc_periods);
    CHECK_STR(json_get(js, "mtc_periods", buf, sizeof buf), want);
    snprintf(want, sizeof want, "%u", c.num_address_ranges);
    CHECK_STR(json_get(js, "num_address_ranges", buf, sizeof buf), want);
    CHECK_EQ(json_count_key(js, "errata"), 1); /* the errata of the processor */

    /* the replay backend answers like that processor: fwpt_caps_read gets the same capabilities */
    struct fwpt_replay rp;
    struct fwpt_cpu cpu;
    struct fwpt_cpuid_snapshot s2;
    struct fwpt_caps c2;
    fwpt_replay_init_snapshot(&rp, &s);
    cpu = fwpt_replay_cpu(&rp);
    CHECK_EQ(fwpt_caps_read(&cpu, &s2), FWPT_OK);
    fwpt_caps_parse(&s2, &c2);
    bool not_recorded = c.max_subleaf >= 1 && !s.has_leaf14_1; /* replay reads zeros there instead */
    if (not_recorded) {
        CHECK(s2.has_leaf14_1 && !c2.subleaf1_known && c2.note != NULL);
        CHECK_EQ(c2.reason, c.reason);
    } else {
        CHECK(caps_equal(&c, &c2));
        CHECK_EQ(s2.has_leaf14_1, s.has_leaf14_1);
    }
    for (unsigned k = 0; k < rp.n_asked && k < FWPT_REPLAY_LOG; k++) {
        if (rp.asked_leaf[k] < 0x80000000u)
            CHECK(rp.asked_leaf[k] <= s.max_basic_leaf); /* never above the max basic leaf */
        if (rp.asked_leaf[k] == 0x14 && rp.asked_subleaf[k] == 1)
            CHECK(s.leaf14_0.eax >= 1);
    }
    if ((int)check_failed != before)
        fprintf(stderr, "  ^ row at line %d: %s\n", r->line, col(r, "cpu_name"));
}

/* every row of the data file: the invariants above */
TEST(every_row_invariants)
{
    if (!need_rows())
        return;
    CHECK(nrows >= 200); /* 220 rows when written */
    for (int i = 0; i < nrows; i++)
        check_row(&rows[i]);
}

/* the verdicts over the data file, counted by the data file's own notes */
TEST(verdicts_counted_by_notes)
{
    unsigned reason_count[8] = {0};
    if (!need_rows())
        return;
    for (int i = 0; i < nrows; i++) {
        struct fwpt_cpuid_snapshot s;
        struct fwpt_caps c;
        row_snapshot(&rows[i], &s);
        fwpt_caps_parse(&s, &c);
        reason_count[c.reason]++;
    }
    unsigned not_intel = 0, no_pt_note = 0, bit_clear_note = 0, usable_expected = 0;
    for (int i = 0; i < nrows; i++) {
        const char *n = col(&rows[i], "notes");
        bool intel = !strcmp(col(&rows[i], "vendor"), "GenuineIntel");
        not_intel += !intel;
        no_pt_note += intel && strstr(n, "no PT (leaf7.EBX[25]=0)") != NULL;
        bit_clear_note += intel && strstr(n, "leaf7.EBX[25]=0 but leaf 0x14 non-zero") != NULL;
        usable_expected += intel && !strstr(n, "no PT") && !strstr(n, "leaf7.EBX[25]=0");
    }
    CHECK_EQ(reason_count[FWPT_CAPS_NOT_INTEL], not_intel);
    CHECK_EQ(reason_count[FWPT_CAPS_MAX_LEAF_BELOW_14] + reason_count[FWPT_CAPS_LEAF7_BIT_CLEAR],
             no_pt_note + bit_clear_note);
    CHECK_EQ(reason_count[FWPT_CAPS_LEAF7_BIT_CLEAR], 3); /* two Comet Lake parts and the Spreadtrum */
    CHECK_EQ(reason_count[FWPT_CAPS_USABLE], usable_expected);
    CHECK_EQ(reason_count[FWPT_CAPS_INCONSISTENT] + reason_count[FWPT_CAPS_NO_OUTPUT_SCHEME] +
                 reason_count[FWPT_CAPS_LEAF14_EMPTY], 0);
    printf("rows: %d; usable %u, not_intel %u, max_leaf_below_14 %u, leaf7_bit_clear %u\n", nrows,
           reason_count[FWPT_CAPS_USABLE], reason_count[FWPT_CAPS_NOT_INTEL],
           reason_count[FWPT_CAPS_MAX_LEAF_BELOW_14], reason_count[FWPT_CAPS_LEAF7_BIT_CLEAR]);
}

/* ---- representative parts, exact values ---- */

static void parse_row(const struct row *r, struct fwpt_caps *c)
{
    struct fwpt_cpuid_snapshot s;
    memset(c, 0, sizeof *c);
    if (!r)
        return;
    row_snapshot(r, &s);
    fwpt_caps_parse(&s, c);
}

TEST(representative_parts)
{
    struct fwpt_caps c;
    if (!need_rows())
        return;

    /* Broadwell i7-5600U: one ToPA entry, no subleaf 1 */
    parse_row(find_row("i7-5600U", NULL, "VBox"), &c);
    CHECK(c.pt_supported);
    CHECK_EQ(c.reason, FWPT_CAPS_USABLE);
    CHECK_EQ(c.family, 6);
    CHECK_EQ(c.model, 61);
    CHECK_EQ(c.stepping, 4);
    CHECK_EQ(c.max_subleaf, 0);
    CHECK(c.topa_output && !c.topa_multiple_entries && !c.single_range_output && !c.output_subsys);
    CHECK(c.cr3_filtering && !c.psb_cyc && !c.ip_filtering && !c.mtc && !c.ptwrite && !c.power_event_trace);
    CHECK(!c.raw.has_leaf14_1 && !c.subleaf1_known);
    CHECK_EQ(c.num_address_ranges, 0);
    CHECK_EQ(c.mtc_periods | c.cycle_thresholds | c.psb_periods, 0);
    CHECK_EQ(c.maxphyaddr, 39);
    CHECK(c.note == NULL && c.detail == NULL);
    CHECK(strstr(render(&c, false), "CPUID.(14H,1)           n/a (CPUID.(14H,0):EAX = 0: no subleaf 1)\n") != NULL);

    /* Skylake i7-6700K: 2 ranges, MTC 0x249, CYC 0x3fff, PSB 0x3f */
    parse_row(find_row("i7-6700K", NULL, "VBox"), &c);
    CHECK(c.pt_supported);
    CHECK_EQ(c.model, 94);
    CHECK_EQ(c.num_address_ranges, 2);
    CHECK_EQ(c.mtc_periods, 0x249);
    CHECK_EQ(c.cycle_thresholds, 0x3fff);
    CHECK_EQ(c.psb_periods, 0x3f);
    CHECK(c.cr3_filtering && c.psb_cyc && c.ip_filtering && c.mtc && !c.ptwrite && !c.power_event_trace);
    CHECK(c.topa_output && c.topa_multiple_entries && c.single_range_output && !c.payloads_lip);
    CHECK_EQ(c.core_type, 0);
    const char *rep = render(&c, false);
    CHECK(strstr(rep, "\n  mtc_periods           0x249\n") != NULL);
    CHECK(strstr(rep, "\n  cycle_thresholds      0x3fff\n") != NULL);
    CHECK(strstr(rep, "\n  psb_periods           0x3f\n") != NULL);
    CHECK(strstr(rep, "\n  num_address_ranges    2\n") != NULL);
    CHECK(strstr(rep, "family/model/stepping   6/94/3 (family 0x6 model 0x5e stepping 0x3, CPUID.1:EAX 000506e3)\n"));

    /* Hybrid Alder Lake i9-12900K: the E-core sets LIP, the P-core does not */
    parse_row(find_row("i9-12900K", "Atom(E-core)", NULL), &c);
    CHECK(c.pt_supported);
    CHECK_EQ(c.core_type, 0x20);
    CHECK(c.payloads_lip && c.ptwrite && c.psb_pmi_preserve && !c.power_event_trace && !c.event_trace);
    CHECK_EQ(c.cycle_thresholds, 0x1fff);
    CHECK_EQ(c.psb_periods, 0x3f);
    CHECK(strstr(render(&c, false), "(core_type 0x20: Atom, E-core)") != NULL);
    parse_row(find_row("i9-12900K", "Core(P-core)", NULL), &c);
    CHECK(c.pt_supported && !c.payloads_lip);
    CHECK_EQ(c.core_type, 0x40);
    CHECK_EQ(c.cycle_thresholds, 0x3f);
    /* Arrow Lake: event_trace (EBX[8]) on both core types */
    parse_row(find_row("Ultra 5 245K", "Core(P-core)", NULL), &c);
    CHECK(c.tnt_disable && c.ptwrite && !c.event_trace);
    /* Goldmont (not hybrid): LIP without leaf 1AH */
    parse_row(find_row("J3455", NULL, NULL), &c);
    CHECK(c.pt_supported && c.payloads_lip && !c.raw.has_leaf1a);
    CHECK_EQ(c.core_type, 0);
    CHECK_EQ(c.cycle_thresholds, 0xffff);

    /* Comet Lake i5-10600K: leaf 7 bit 25 clear yet leaf 14H filled */
    parse_row(find_row("i5-10600K", NULL, NULL), &c);
    CHECK(!c.pt_supported && !c.intel_pt);
    CHECK_EQ(c.reason, FWPT_CAPS_LEAF7_BIT_CLEAR);
    CHECK(c.topa_output && c.topa_multiple_entries && !c.single_range_output);
    CHECK_EQ(c.num_address_ranges, 2);
    CHECK_EQ(c.mtc_periods, 0x249);
    CHECK(c.note != NULL && strstr(c.note, "EBX[25]") != NULL);
    rep = render(&c, false);
    CHECK(strstr(rep, "Intel PT not usable (leaf7_bit_clear)") != NULL);
    CHECK(strstr(rep, "EAX 00000001 EBX 0000000f ECX 00000003 EDX 00000000") != NULL);
    parse_row(find_row("W-1290P", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_LEAF7_BIT_CLEAR);

    /* AMD: not Intel, no leaf 14H read */
    parse_row(find_row("EPYC 7713", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_NOT_INTEL);
    CHECK(!c.pt_supported && !c.raw.has_leaf14_0 && !c.topa_output);
    CHECK_EQ(c.family, 25);
    CHECK_EQ(c.model, 1);
    CHECK_EQ(c.maxphyaddr, 48);
    parse_row(find_row("Hygon", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_NOT_INTEL);
    parse_row(find_row("ZHAOXIN", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_NOT_INTEL);

    /* Haswell: max leaf 0DH */
    parse_row(find_row("i7-4770 ", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_MAX_LEAF_BELOW_14);
    /* Spreadtrum: leaf 14H all zero and bit 25 clear: no note (nothing filled) */
    parse_row(find_row("Spreadtrum", NULL, NULL), &c);
    CHECK_EQ(c.reason, FWPT_CAPS_LEAF7_BIT_CLEAR);
    CHECK(c.note == NULL);

    /* Quirks: subleaf 1 all-zero (Xeon Gold 6130), subleaf 1 not in the dump format (i5-6600K) */
    parse_row(find_row("Gold 6130", NULL, NULL), &c);
    CHECK(c.pt_supported && !c.subleaf1_known && c.raw.has_leaf14_1);
    CHECK(c.note != NULL && strstr(c.note, "all-zero") != NULL);
    CHECK_EQ(c.num_address_ranges | c.mtc_periods | c.cycle_thresholds | c.psb_periods, 0);
    CHECK(strstr(render(&c, false), "\nnote                    CPUID.(14H,1) reads all-zero") != NULL);
    parse_row(find_row("i5-6600K", NULL, NULL), &c);
    CHECK(c.pt_supported && !c.subleaf1_known && !c.raw.has_leaf14_1);
    CHECK(c.note != NULL && strstr(c.note, "not recorded") != NULL);
    CHECK(strstr(render(&c, false), "CPUID.(14H,1)           not recorded\n") != NULL);
}

/* ---- synthetic verdict rules ---- */

static void synth(struct fwpt_cpuid_snapshot *s, uint32_t l14_0_eax, uint32_t ebx, uint32_t ecx, uint32_t l14_1_eax,
                  uint32_t l14_1_ebx)
{
    memset(s, 0, sizeof *s);
    strcpy(s->vendor, "GenuineIntel");
    s->max_basic_leaf = 0x16;
    s->leaf1_eax = 0x000506e3;
    s->leaf7_ebx = CPUID7_0_EBX_INTEL_PT;
    s->has_leaf14_0 = true;
    s->leaf14_0.eax = l14_0_eax;
    s->leaf14_0.ebx = ebx;
    s->leaf14_0.ecx = ecx;
    if (l14_0_eax >= 1) {
        s->has_leaf14_1 = true;
        s->leaf14_1.eax = l14_1_eax;
        s->leaf14_1.ebx = l14_1_ebx;
    }
}

static enum fwpt_caps_reason verdict(const struct fwpt_cpuid_snapshot *s, const char **detail)
{
    struct fwpt_caps c;
    fwpt_caps_parse(s, &c);
    if (detail)
        *detail = c.detail;
    CHECK_EQ(c.pt_supported, c.reason == FWPT_CAPS_USABLE);
    CHECK_EQ(c.detail != NULL, c.reason == FWPT_CAPS_INCONSISTENT);
    return c.reason;
}

TEST(verdict_rules)
{
    struct fwpt_cpuid_snapshot s;
    const char *d;

    synth(&s, 1, 0xf, 7, 0x02490002, 0x003f3fff);
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_USABLE);
    synth(&s, 0, 0, 0, 0, 0);
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_LEAF14_EMPTY);
    synth(&s, 0, 1, 0, 0, 0);
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_NO_OUTPUT_SCHEME);
    synth(&s, 0, 1, CPUID14_0_ECX_OUTPUT_SUBSYS, 0, 0); /* trace transport alone is no memory output */
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_NO_OUTPUT_SCHEME);
    synth(&s, 0, 1, CPUID14_0_ECX_SINGLE_RANGE, 0, 0);
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_USABLE);
    synth(&s, 0, 1, CPUID14_0_ECX_SINGLE_RANGE | CPUID14_0_ECX_TOPA_MULTIPLE, 0, 0);
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    CHECK(d && strstr(d, "topa_multiple_entries"));
    synth(&s, 0, CPUID14_0_EBX_MTC, 1, 0, 0); /* mtc with no subleaf 1 */
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    synth(&s, 1, 0xf, 7, 0x00000002, 0x003f3fff); /* mtc but no MTC period */
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    CHECK(d && strstr(d, "MTC period"));
    synth(&s, 1, 0xf, 7, 0x02490002, 0x003f0000); /* psb_cyc but no CYC threshold */
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    synth(&s, 1, 0xb, 7, 0x02490002, 0x003f3fff); /* ranges without ip_filtering */
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    synth(&s, 1, 0xf, 7, 0x02490000, 0x003f3fff); /* ip_filtering without ranges */
    CHECK_EQ(verdict(&s, &d), FWPT_CAPS_INCONSISTENT);
    synth(&s, 1, 0xf, 7, 0x00000001, 0x0000000f); /* subleaf 1 repeats subleaf 0: quirk, not verdict */
    s.leaf14_1 = s.leaf14_0;
    {
        struct fwpt_caps c;
        fwpt_caps_parse(&s, &c);
        CHECK_EQ(c.reason, FWPT_CAPS_USABLE);
        CHECK(!c.subleaf1_known && c.note && strstr(c.note, "repeats"));
    }
    /* order: vendor first, then max leaf, then leaf 7 */
    synth(&s, 1, 0xf, 7, 0x02490002, 0x003f3fff);
    strcpy(s.vendor, "AuthenticAMD");
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_NOT_INTEL);
    synth(&s, 1, 0xf, 7, 0x02490002, 0x003f3fff);
    s.max_basic_leaf = 0xd;
    s.leaf7_ebx = 0;
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_MAX_LEAF_BELOW_14);
    s.max_basic_leaf = 0x14;
    CHECK_EQ(verdict(&s, NULL), FWPT_CAPS_LEAF7_BIT_CLEAR);
    s.max_basic_leaf = 6; /* leaf 7 itself unread: its bit cannot count */
    s.leaf7_ebx = CPUID7_0_EBX_INTEL_PT;
    {
        struct fwpt_caps c;
        fwpt_caps_parse(&s, &c);
        CHECK(!c.intel_pt);
        CHECK_EQ(c.reason, FWPT_CAPS_MAX_LEAF_BELOW_14);
    }
    /* names and messages */
    CHECK_STR(fwpt_caps_reason_name(FWPT_CAPS_MAX_LEAF_BELOW_14), "max_leaf_below_14");
    CHECK_STR(fwpt_caps_reason_name(FWPT_CAPS_INCONSISTENT), "inconsistent");
    CHECK_STR(fwpt_caps_reason_msg(FWPT_CAPS_NOT_INTEL), "the vendor is not GenuineIntel");
    CHECK_STR(fwpt_caps_reason_name((enum fwpt_caps_reason)99), "unknown");
    /* MAXPHYADDR unknown: the SDM default 36 */
    synth(&s, 1, 0xf, 7, 0x02490002, 0x003f3fff);
    {
        struct fwpt_caps c;
        fwpt_caps_parse(&s, &c);
        CHECK_EQ(c.maxphyaddr, 36);
    }
}

/* ---- fwpt_caps_read through the replay backend ---- */

#define VENDOR_INTEL 0x756e6547u, 0x6c65746eu, 0x49656e69u /* EBX "Genu", ECX "ntel", EDX "ineI" */

TEST(replay_read_rules)
{
    struct fwpt_replay rp;
    struct fwpt_cpu cpu;
    struct fwpt_cpuid_snapshot s;
    struct fwpt_caps c;
    struct fwpt_cpuid_regs r;

    /* QEMU with a max basic leaf of 0DH answers leaf 14H with leaf 0DH data: never read it */
    const struct fwpt_cpuid_entry qemu[] = {
        {0, FWPT_CPUID_ANY_SUBLEAF, {0xd, VENDOR_INTEL}},
        {1, FWPT_CPUID_ANY_SUBLEAF, {0x000506e3, 0, 0, 0}},
        {7, 0, {0, 0x029c6fbf, 0, 0}}, /* even with bit 25 set */
        {0xd, 0, {0x7, 0x340, 0x340, 0}},
        {0xd, 1, {0xf, 0x3c0, 0x100, 0}},
        {0x80000000u, FWPT_CPUID_ANY_SUBLEAF, {0x80000008u, 0, 0, 0}},
        {0x80000008u, FWPT_CPUID_ANY_SUBLEAF, {0x3028, 0, 0, 0}},
    };
    CHECK_EQ(fwpt_replay_init_table(&rp, qemu, sizeof qemu / sizeof qemu[0]), FWPT_OK);
    CHECK_EQ(rp.max_basic_leaf, 0xd);
    CHECK(rp.intel);
    cpu = fwpt_replay_cpu(&rp);
    /* the backend itself reproduces the quirk */
    CHECK_EQ(fwpt_replay_cpuid(&rp, 0x14, 0, &r), FWPT_OK);
    CHECK(r.eax == 0x7 && r.ebx == 0x340 && r.ecx == 0x340);
    CHECK_EQ(fwpt_replay_cpuid(&rp, 0x14, 1, &r), FWPT_OK);
    CHECK(r.eax == 0xf && r.ebx == 0x3c0 && r.ecx == 0x100);
    CHECK_EQ(fwpt_replay_cpuid(&rp, 0x80000009u, 0, &r), FWPT_OK); /* above max extended: same rule */
    CHECK_EQ(r.eax, 0x7);
    rp.n_asked = 0;
    CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_OK);
    CHECK_STR(s.vendor, "GenuineIntel");
    CHECK_EQ(s.max_basic_leaf, 0xd);
    CHECK(!s.has_leaf14_0 && !s.has_leaf14_1 && !s.has_leaf1a);
    CHECK_EQ(s.leaf14_0.eax | s.leaf14_0.ebx | s.leaf14_0.ecx | s.leaf14_0.edx, 0);
    CHECK_EQ(s.leaf7_ebx, 0x029c6fbf);
    CHECK_EQ(s.maxphyaddr, 0x28);
    CHECK_EQ(s.max_ext_leaf, 0x80000008u);
    /* exactly: 0, 1, 7, 80000000H, 80000008H */
    CHECK_EQ(rp.n_asked, 5);
    CHECK(rp.asked_leaf[0] == 0 && rp.asked_leaf[1] == 1 && rp.asked_leaf[2] == 7 &&
          rp.asked_leaf[3] == 0x80000000u && rp.asked_leaf[4] == 0x80000008u);
    fwpt_caps_parse(&s, &c);
    CHECK_EQ(c.reason, FWPT_CAPS_MAX_LEAF_BELOW_14);
    CHECK(!c.topa_output && !c.single_range_output && !c.cr3_filtering && !c.psb_cyc);
    CHECK_EQ(c.max_subleaf | c.num_address_ranges | c.mtc_periods | c.cycle_thresholds, 0);
    CHECK(strstr(render(&c, false), "CPUID.(14H,0)           n/a (above the max basic leaf)\n") != NULL);

    /* no 80000000H recorded on an Intel CPU: the answer is basic-leaf data, not a max */
    const struct fwpt_cpuid_entry noext[] = {
        {0, FWPT_CPUID_ANY_SUBLEAF, {0xd, VENDOR_INTEL}},
        {0xd, 0, {0x80000009u, 0x340, 0x340, 0}},
    };
    CHECK_EQ(fwpt_replay_init_table(&rp, noext, 2), FWPT_OK);
    cpu = fwpt_replay_cpu(&rp);
    CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_OK);
    /* leaf 0DH's EAX 80000009H looks like an extended max; a real CPU cannot tell either, so
     * the read takes it, but 80000008H then answers leaf 0DH data too: EAX[7:0] = 9 */
    CHECK_EQ(s.max_ext_leaf, 0x80000009u);
    const struct fwpt_cpuid_entry noext2[] = {
        {0, FWPT_CPUID_ANY_SUBLEAF, {0xd, VENDOR_INTEL}},
        {0xd, 0, {0x207, 0x340, 0x340, 0}},
    };
    CHECK_EQ(fwpt_replay_init_table(&rp, noext2, 2), FWPT_OK);
    cpu = fwpt_replay_cpu(&rp);
    CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_OK);
    CHECK_EQ(s.max_ext_leaf, 0);
    CHECK_EQ(s.maxphyaddr, 0);
    fwpt_caps_parse(&s, &c);
    CHECK_EQ(c.maxphyaddr, 36);

    /* AMD answers zeros above the max */
    const struct fwpt_cpuid_entry amd[] = {
        {0, FWPT_CPUID_ANY_SUBLEAF, {0x10, 0x68747541u, 0x444d4163u, 0x69746e65u}}, /* "AuthenticAMD" */
        {0x10, 0, {1, 2, 3, 4}},
    };
    CHECK_EQ(fwpt_replay_init_table(&rp, amd, 2), FWPT_OK);
    CHECK(!rp.intel);
    CHECK_EQ(fwpt_replay_cpuid(&rp, 0x14, 0, &r), FWPT_OK);
    CHECK_EQ(r.eax | r.ebx | r.ecx | r.edx, 0);
    cpu = fwpt_replay_cpu(&rp);
    CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_OK);
    CHECK_STR(s.vendor, "AuthenticAMD");
    fwpt_caps_parse(&s, &c);
    CHECK_EQ(c.reason, FWPT_CAPS_NOT_INTEL);

    /* table errors */
    CHECK_EQ(fwpt_replay_init_table(&rp, amd + 1, 1), FWPT_E_INVAL);
    CHECK_EQ(fwpt_replay_init_table(&rp, amd, FWPT_REPLAY_MAX_ENTRIES + 1), FWPT_E_NOMEM);
    CHECK_EQ(fwpt_caps_read(NULL, &s), FWPT_E_INVAL);

    /* MSRs: a recording has none */
    uint64_t v = 123;
    CHECK_EQ(fwpt_replay_init_table(&rp, qemu, 3), FWPT_OK);
    cpu = fwpt_replay_cpu(&rp);
    CHECK_EQ(fwpt_rdmsr(&cpu, MSR_IA32_RTIT_CTL, &v), FWPT_E_FAULT);
    CHECK_EQ(v, 0);
    CHECK_EQ(fwpt_wrmsr(&cpu, MSR_IA32_RTIT_CTL, 1), FWPT_E_FAULT);
    CHECK_EQ(rp.n_rdmsr, 1);
    CHECK_EQ(rp.n_wrmsr, 1);
    CHECK_STR(cpu.name, "replay");
}

/* A CPU whose k-th CPUID fails: every failure is returned, none is swallowed. */
struct failing {
    struct fwpt_replay rp;
    unsigned calls, fail_at;
};
static enum fwpt_status failing_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    struct failing *f = ctx;
    if (f->calls++ == f->fail_at)
        return FWPT_E_IO;
    return fwpt_replay_cpuid(&f->rp, leaf, subleaf, out);
}
static enum fwpt_status no_rdmsr(void *ctx, uint32_t m, uint64_t *v)
{
    (void)ctx, (void)m, (void)v;
    return FWPT_E_FAULT;
}
static enum fwpt_status no_wrmsr(void *ctx, uint32_t m, uint64_t v)
{
    (void)ctx, (void)m, (void)v;
    return FWPT_E_FAULT;
}

TEST(read_faults_returned)
{
    const struct fwpt_cpu_profile *p = fwpt_cpu_profile_find("alderlake-p");
    struct failing f;
    struct fwpt_cpu cpu = {"failing", &f, failing_cpuid, no_rdmsr, no_wrmsr, NULL};
    struct fwpt_cpuid_snapshot s;
    unsigned total;
    CHECK(p != NULL);
    if (!p)
        return;
    fwpt_replay_init_profile(&f.rp, p);
    f.calls = 0;
    f.fail_at = ~0u;
    CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_OK);
    total = f.calls;
    CHECK_EQ(total, 8); /* 0, 1, 7, 14H.0, 14H.1, 1AH, 80000000H, 80000008H */
    for (unsigned k = 0; k < total; k++) {
        f.calls = 0;
        f.fail_at = k;
        CHECK_EQ(fwpt_caps_read(&cpu, &s), FWPT_E_IO);
        CHECK_EQ(f.calls, k + 1); /* stops at the failure */
    }
}

/* ---- built-in profiles ---- */

TEST(builtin_profiles)
{
    if (!need_rows())
        return;
    const char *want[] = {"broadwell", "skylake", "tremont", "gracemont-e", "alderlake-p", "amd-zen3"};
    CHECK(fwpt_cpu_profile_count() >= 6);
    CHECK(fwpt_cpu_profile_at(fwpt_cpu_profile_count()) == NULL);
    CHECK(fwpt_cpu_profile_find("no-such-cpu") == NULL);
    CHECK(fwpt_cpu_profile_find(NULL) == NULL);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(fwpt_cpu_profile_find(want[i]) != NULL);
    for (size_t i = 0; i < fwpt_cpu_profile_count(); i++) {
        const struct fwpt_cpu_profile *p = fwpt_cpu_profile_at(i);
        struct fwpt_cpuid_snapshot s, s2;
        struct fwpt_caps c, c2;
        struct fwpt_replay rp;
        struct fwpt_cpu cpu;
        int before = (int)check_failed;
        CHECK(fwpt_cpu_profile_find(p->name) == p); /* names unique */
        fwpt_cpu_profile_snapshot(p, &s);
        fwpt_caps_parse(&s, &c);
        fwpt_replay_init_profile(&rp, p);
        cpu = fwpt_replay_cpu(&rp);
        CHECK_EQ(fwpt_caps_read(&cpu, &s2), FWPT_OK);
        fwpt_caps_parse(&s2, &c2);
        CHECK(caps_equal(&c, &c2));
        /* copied from the data file: the row named by source and cpu_name has the same values */
        bool found = false;
        for (int k = 0; k < nrows && !found; k++) {
            const struct row *r = &rows[k];
            struct fwpt_cpuid_snapshot rs;
            if (strcmp(col(r, "source_file"), p->source) || strcmp(col(r, "cpu_name"), p->cpu_name))
                continue;
            row_snapshot(r, &rs);
            if (rs.has_leaf1a && rs.leaf1a_eax != p->leaf1a_eax)
                continue; /* the other core type of the same dump */
            found = true;
            struct fwpt_caps rc;
            fwpt_caps_parse(&rs, &rc);
            CHECK(caps_equal(&c, &rc));
            CHECK_EQ(s.max_basic_leaf, rs.max_basic_leaf);
            CHECK_EQ(s.leaf7_ebx, rs.leaf7_ebx);
            CHECK_STR(p->fms, col(r, "fms_decoded"));
        }
        CHECK(found);
        if ((int)check_failed != before)
            fprintf(stderr, "  ^ profile %s\n", p->name);
    }
    struct fwpt_caps c;
    struct fwpt_cpuid_snapshot s;
#define PROFILE_CAPS(n) (fwpt_cpu_profile_snapshot(fwpt_cpu_profile_find(n), &s), fwpt_caps_parse(&s, &c))
    PROFILE_CAPS("broadwell");
    CHECK(c.pt_supported && c.topa_output && !c.topa_multiple_entries);
    PROFILE_CAPS("skylake");
    CHECK(c.pt_supported && c.topa_multiple_entries && c.num_address_ranges == 2);
    PROFILE_CAPS("tremont");
    CHECK(c.pt_supported && c.payloads_lip && c.core_type == 0x20 && c.power_event_trace && c.ptwrite);
    PROFILE_CAPS("gracemont-e");
    CHECK(c.pt_supported && c.payloads_lip && c.core_type == 0x20);
    PROFILE_CAPS("alderlake-p");
    CHECK(c.pt_supported && !c.payloads_lip && c.core_type == 0x40);
    PROFILE_CAPS("amd-zen3");
    CHECK_EQ(c.reason, FWPT_CAPS_NOT_INTEL);
    PROFILE_CAPS("haswell");
    CHECK_EQ(c.reason, FWPT_CAPS_MAX_LEAF_BELOW_14);
    PROFILE_CAPS("cometlake-nopt");
    CHECK_EQ(c.reason, FWPT_CAPS_LEAF7_BIT_CLEAR);
}


/* The whole report for one part, byte for byte (the EFI console prints the same bytes). */
TEST(golden_report_skylake)
{
    static const char want[] =
        "Intel Processor Trace capabilities\n"
        "vendor                  GenuineIntel\n"
        "family/model/stepping   6/94/3 (family 0x6 model 0x5e stepping 0x3, CPUID.1:EAX 000506e3)\n"
        "max basic leaf          0x16\n"
        "max extended leaf       0x80000008\n"
        "CPUID.(07H,0):EBX       029c6fbf (EBX[25] Intel PT = 1)\n"
        "CPUID.(14H,0)           EAX 00000001 EBX 0000000f ECX 00000007 EDX 00000000\n"
        "CPUID.(14H,1)           EAX 02490002 EBX 003f3fff ECX 00000000 EDX 00000000\n"
        "CPUID.1AH:EAX           n/a\n"
        "MAXPHYADDR              39 bits\n"
        "capabilities (Linux intel_pt/caps names)\n"
        "  cr3_filtering         1\n"
        "  psb_cyc               1\n"
        "  ip_filtering          1\n"
        "  mtc                   1\n"
        "  ptwrite               0\n"
        "  power_event_trace     0\n"
        "  psb_pmi_preserve      0\n"
        "  event_trace           0\n"
        "  tnt_disable           0\n"
        "  topa_output           1\n"
        "  topa_multiple_entries 1\n"
        "  single_range_output   1\n"
        "  output_subsys         0\n"
        "  payloads_lip          0\n"
        "  num_address_ranges    2\n"
        "  mtc_periods           0x249\n"
        "  cycle_thresholds      0x3fff\n"
        "  psb_periods           0x3f\n"
        "verdict                 Intel PT usable (usable): Intel PT is usable\n"
        "errata                  decoder: worked around when decoding; trace: avoided by the trace settings\n"
        "  BDM70   decoder  SKD024 SKL021 KBL021  PSB+ may contain FUP and MODE.Exec while tracing is off, ahead of a TIP.PGE\n"
        "  SKD007  decoder  SKL049 KBL041         OVF may follow the first byte of a multi-byte CYC (the rest of the CYC is missing)\n"
        "  SKD022  decoder  SKL024 KBL023         a VM entry that clears TraceEn may write a FUP before the TIP.PGD\n"
        "  SKD010  decoder  SKD014 SKL033 KBL030  the FUP or TIP.PGE that should follow an OVF may be missing\n"
        "  SKL014  decoder  KBL014                TIP.PGD of a direct branch that clears FilterEn may have no IP payload\n"
        "  SKL168  decoder  -                     a CYC (and its MTC) just before a PSB may be dropped\n";
    struct fwpt_cpuid_snapshot s;
    struct fwpt_caps c;
    fwpt_cpu_profile_snapshot(fwpt_cpu_profile_find("skylake"), &s);
    fwpt_caps_parse(&s, &c);
    CHECK_STR(render(&c, false), want);
    /* a small sink: the overflow is counted, never lost silently */
    char small[64];
    struct fwpt_bufsink b;
    struct fwpt_sink o = fwpt_bufsink_init(&b, small, sizeof small);
    fwpt_caps_report(&c, &o);
    CHECK_EQ(b.len + b.overflow, strlen(want));
}

/* ---- the host tool ---- */

static int run_tool(const char *args, char *out, size_t cap) { return tool_run("caps", args, out, cap); }

static void tool_row(const struct row *r, const char *extra, char *out, size_t cap)
{
    char args[1024];
    if (!r) {
        out[0] = '\0';
        return;
    }
    snprintf(args, sizeof args,
             "--json --vendor %s --max-leaf %s --leaf1-eax %s --leaf7-ebx %s --leaf14-0 %s,%s,%s,%s "
             "--leaf14-1 %s,%s,%s,%s --maxphyaddr %s --leaf1a-eax %s %s",
             col(r, "vendor"), col(r, "max_basic_leaf"), col(r, "family_model_stepping"), col(r, "leaf7_ebx"),
             col(r, "l14_0_eax"), col(r, "l14_0_ebx"), col(r, "l14_0_ecx"), col(r, "l14_0_edx"), col(r, "l14_1_eax"),
             col(r, "l14_1_ebx"), col(r, "l14_1_ecx"), col(r, "l14_1_edx"), col(r, "maxphyaddr"), col(r, "leaf_1a_eax"),
             extra);
    CHECK_EQ(run_tool(args, out, cap), 0);
}

/* The built tool, or a failed check. */
static bool need_tool(void)
{
    char path[1024];
    if (tool_find(path, sizeof path))
        return true;
    CHECK(!"fwpt tool present");
    return false;
}

/* every row of the data file through the tool: byte-identical to the library's JSON */
TEST(tool_every_row_as_library)
{
    static char out[16384];
    if (!need_rows() || !need_tool())
        return;
    for (int i = 0; i < nrows; i++) {
        struct fwpt_cpuid_snapshot s;
        struct fwpt_caps c;
        int before = (int)check_failed;
        tool_row(&rows[i], "", out, sizeof out);
        row_snapshot(&rows[i], &s);
        fwpt_caps_parse(&s, &c);
        CHECK(json_valid_object(out));
        CHECK_STR(out, render(&c, true));
        if ((int)check_failed != before)
            fprintf(stderr, "  ^ tool on row at line %d\n", rows[i].line);
    }
}

/* values read from the output, for the examples */
TEST(tool_example_values)
{
    static char out[16384];
    char v[256];
    if (!need_rows() || !need_tool())
        return;
    const struct row *sel[] = {
        find_row("i7-5600U", NULL, "VBox"), find_row("i7-6700K", NULL, "VBox"),
        find_row("i9-12900K", "Atom(E-core)", NULL), find_row("i5-10600K", NULL, NULL),
        find_row("EPYC 7713", NULL, NULL),
    };
    tool_row(sel[1], "", out, sizeof out);
    CHECK_STR(json_get(out, "mtc_periods", v, sizeof v), "\"0x249\"");
    CHECK_STR(json_get(out, "psb_periods", v, sizeof v), "\"0x3f\"");
    CHECK_STR(json_get(out, "cycle_thresholds", v, sizeof v), "\"0x3fff\"");
    CHECK_STR(json_get(out, "num_address_ranges", v, sizeof v), "2");
    CHECK_STR(json_get(out, "pt_supported", v, sizeof v), "true");
    tool_row(sel[0], "", out, sizeof out);
    CHECK_STR(json_get(out, "topa_output", v, sizeof v), "1");
    CHECK_STR(json_get(out, "topa_multiple_entries", v, sizeof v), "0");
    CHECK_STR(json_get(out, "leaf14_1", v, sizeof v), "null");
    tool_row(sel[2], "", out, sizeof out);
    CHECK_STR(json_get(out, "payloads_lip", v, sizeof v), "1");
    CHECK_STR(json_get(out, "core_type", v, sizeof v), "\"0x20\"");
    tool_row(sel[3], "", out, sizeof out);
    CHECK_STR(json_get(out, "reason", v, sizeof v), "\"leaf7_bit_clear\"");
    CHECK_STR(json_get(out, "pt_supported", v, sizeof v), "false");
    tool_row(sel[4], "", out, sizeof out);
    CHECK_STR(json_get(out, "reason", v, sizeof v), "\"not_intel\"");
    CHECK_STR(json_get(out, "errata", v, sizeof v), "[]"); /* errata are listed for Intel only */
}

/* Broadwell: two decoder errata and BDM106 (BranchEn forced), exactly */
TEST(tool_errata_of_profiles)
{
    static char out[16384];
    if (!need_tool())
        return;
    CHECK_EQ(run_tool("--profile broadwell --json", out, sizeof out), 0);
    static char ev[1024];
    CHECK_STR(json_get(out, "errata", ev, sizeof ev),
              "[{\"name\":\"BDM70\",\"aliases\":[\"SKD024\",\"SKL021\",\"KBL021\"],\"kind\":\"decoder\",\"what\":"
              "\"PSB+ may contain FUP and MODE.Exec while tracing is off, ahead of a TIP.PGE\"},{\"name\":\"BDM64\","
              "\"aliases\":[],\"kind\":\"decoder\",\"what\":\"a TSX abort right after a branch may write an incorrect "
              "TIP or TNT before the abort's TIP\"},{\"name\":\"BDM106\",\"aliases\":[],\"kind\":\"trace\",\"what\":"
              "\"BranchEn must be 1: fwpt always sets it on these models\"}]");
    /* Tiger Lake: the single-range output erratum (TGL052) in the same table as the decoder errata */
    CHECK_EQ(run_tool("--profile tigerlake", out, sizeof out), 0);
    CHECK(strstr(out, "\n  SKL014  decoder  KBL014                TIP.PGD") != NULL);
    CHECK(strstr(out, "\n  TGL052  trace    ADL037 RPL017         single-range output above 4 KiB") != NULL);
    CHECK(strstr(out, "BDM106") == NULL);
}

/* the minimal form: defaults GenuineIntel, max leaf 14H */
TEST(tool_register_options)
{
    static char out[16384];
    char v[256];
    if (!need_tool())
        return;
    CHECK_EQ(run_tool("--leaf7-ebx 029c6fbf --leaf14-0 1,f,7,0 --leaf14-1 02490002,003f3fff,0,0 --maxphyaddr 39 --json",
                      out, sizeof out), 0);
    CHECK(json_valid_object(out));
    CHECK_STR(json_get(out, "pt_supported", v, sizeof v), "true");
    CHECK_STR(json_get(out, "vendor", v, sizeof v), "\"GenuineIntel\"");
    CHECK_STR(json_get(out, "maxphyaddr", v, sizeof v), "39");
    CHECK_EQ(run_tool("--leaf7-ebx 0x029c6fbf --leaf14-0 0x1,0xf,0x7,0x0 --family-model-stepping 6/94/3 --json", out,
                      sizeof out), 0);
    CHECK_STR(json_get(out, "leaf1_eax", v, sizeof v), "\"000506e3\"");
    CHECK_STR(json_get(out, "model", v, sizeof v), "94");
    CHECK_STR(json_get(out, "reason", v, sizeof v), "\"usable\""); /* subleaf 1 not given: a note */
    CHECK(strstr(json_get(out, "note", v, sizeof v), "not recorded") != NULL);
    CHECK_EQ(run_tool("--leaf7-ebx 029c6fbf --leaf14-0 0,f,7,0 --json", out, sizeof out), 0);
    CHECK_STR(json_get(out, "reason", v, sizeof v), "\"inconsistent\""); /* mtc with EAX = 0 */
    CHECK_EQ(run_tool("--profile skylake", out, sizeof out), 0);
    CHECK(strstr(out, "Intel PT usable (usable)") && strstr(out, "  mtc_periods           0x249\n"));
    CHECK_EQ(run_tool("--profile haswell --require-pt", out, sizeof out), 3);
    CHECK_EQ(run_tool("--list-profiles", out, sizeof out), 0);
    CHECK(strstr(out, "broadwell") && strstr(out, "alderlake-p"));
}

/* the host itself: always a report */
TEST(tool_host_report)
{
    static char out[16384];
    if (!need_tool())
        return;
    CHECK_EQ(run_tool("", out, sizeof out), 0);
    CHECK(strstr(out, "verdict ") != NULL);
    CHECK_EQ(run_tool("--json", out, sizeof out), 0);
    CHECK(json_valid_object(out));
}

/* bad options name themselves */
TEST(tool_bad_options)
{
    static char out[16384];
    if (!need_tool())
        return;
    CHECK_EQ(run_tool("--leaf14-0 1,2,3", out, sizeof out), 2);
    CHECK(strstr(out, "--leaf14-0") != NULL);
    CHECK_EQ(run_tool("--leaf7-ebx zz", out, sizeof out), 2);
    CHECK(strstr(out, "--leaf7-ebx") && strstr(out, "'zz'"));
    CHECK_EQ(run_tool("--maxphyaddr 99", out, sizeof out), 2);
    CHECK(strstr(out, "--maxphyaddr") != NULL);
    CHECK_EQ(run_tool("--frobnicate 1", out, sizeof out), 2);
    CHECK(strstr(out, "--frobnicate") && strstr(out, "unknown option"));
    CHECK_EQ(run_tool("--profile nosuch", out, sizeof out), 2);
    CHECK(strstr(out, "--profile") && strstr(out, "nosuch"));
    CHECK_EQ(run_tool("--vendor Intel", out, sizeof out), 2);
    CHECK_EQ(run_tool("--leaf7-ebx", out, sizeof out), 2);
    CHECK(strstr(out, "--leaf7-ebx: needs a value") != NULL);
    CHECK_EQ(run_tool("--max-leaf d --leaf14-0 1,f,7,0", out, sizeof out), 2);
    CHECK_EQ(run_tool("--family-model-stepping 6/94", out, sizeof out), 2);
    CHECK_EQ(run_tool("--profile skylake --leaf7-ebx 0", out, sizeof out), 2);
}

/* backend=auto: the built-in profile closest to the processor (family/model), else the named default */
TEST(profile_closest)
{
    bool m = true;
    struct fwpt_cpu_id id = {.known = true, .intel = true, .family = 6, .model = 94, .stepping = 3};
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "skylake");
    CHECK(m);
    id.model = 61;
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "broadwell");
    CHECK(m);
    id.model = 156;
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "tremont");
    CHECK(m);
    id.model = 151; /* two profiles (P- and E-core) share 6/151: the first, the P-core */
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "alderlake-p");
    CHECK(m);
    id.model = 165; /* Comet Lake's profile has no Intel PT: it cannot be emulated, the default is */
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "skylake");
    CHECK(!m);
    id.model = 60; /* Haswell: no PT either */
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, "skylake");
    CHECK(!m);
    id.model = 200; /* unknown model */
    m = true;
    CHECK_STR(fwpt_cpu_profile_closest(&id, &m)->name, FWPT_PROFILE_DEFAULT);
    CHECK(!m);
    struct fwpt_cpu_id amd = {.known = true, .intel = false, .family = 25, .model = 1};
    m = true;
    CHECK_STR(fwpt_cpu_profile_closest(&amd, &m)->name, "skylake"); /* QEMU TCG -cpu max: AuthenticAMD */
    CHECK(!m);
    struct fwpt_cpu_id none = {0};
    m = true;
    CHECK_STR(fwpt_cpu_profile_closest(&none, &m)->name, "skylake");
    CHECK(!m);
}

TEST_MAIN("test_caps")
