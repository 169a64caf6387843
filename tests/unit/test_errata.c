/* The errata table: exact errata per processor, --cpu parsing, the printers, and agreement with
 * the conformance corpus (../shared/conformance/libipt/manifest.tsv, FWPT_CONFORMANCE overrides the
 * directory): every NAME@cpu_F_M errata case's processor has that erratum, and no processor has a
 * decoder erratum the corpus has no case for. */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>
#include "arch/errata.h"
#include "tests/check.h"
#include "tests/common/refusal.h"
#include "tests/common/tool_run.h"

static struct fwpt_cpu_id intel(uint32_t family, uint32_t model)
{
    struct fwpt_cpu_id id = {true, true, family, model, 0, false};
    return id;
}

static struct fwpt_errata errata_of(uint32_t family, uint32_t model)
{
    struct fwpt_errata e;
    struct fwpt_cpu_id id = intel(family, model);
    memset(&e, 0xa5, sizeof e); /* every field must be written */
    fwpt_errata_for_cpu(&id, &e);
    return e;
}

static bool same(struct fwpt_errata a, struct fwpt_errata b) { return memcmp(&a, &b, sizeof a) == 0; }

static const struct fwpt_errata none = {0};
static const struct fwpt_errata bdw = {.bdm70 = true, .bdm64 = true};

/* the errata of each known family/model */
TEST(errata_per_model)
{
    const struct fwpt_errata skl = {.bdm70 = true, .skd007 = true, .skd022 = true, .skd010 = true, .skl014 = true,
                                    .skl168 = true};
    const struct fwpt_errata skx = {.bdm70 = true, .skd022 = true, .skl014 = true, .skz84 = true};
    const struct fwpt_errata spr = {.bdm70 = true, .skd022 = true, .skz84 = true};
    const struct fwpt_errata icl = {.bdm70 = true, .skd022 = true, .skl014 = true};
    const struct fwpt_errata adl = {.bdm70 = true, .skd022 = true, .apl11 = true};
    const struct fwpt_errata apl = {.apl12 = true, .apl11 = true};
    const struct fwpt_errata atom = {.apl11 = true};

    CHECK(same(errata_of(6, 61), bdw));
    CHECK(same(errata_of(6, 0x47), bdw));
    CHECK(same(errata_of(6, 79), bdw));
    CHECK(same(errata_of(6, 86), bdw));
    CHECK(same(errata_of(6, 78), skl));
    CHECK(same(errata_of(6, 94), skl));
    CHECK(same(errata_of(6, 142), skl));
    CHECK(same(errata_of(6, 166), skl));
    CHECK(same(errata_of(6, 85), skx));
    CHECK(same(errata_of(6, 106), skx));
    CHECK(same(errata_of(6, 143), spr));
    CHECK(same(errata_of(19, 1), spr));
    CHECK(same(errata_of(6, 102), icl));
    CHECK(same(errata_of(6, 140), icl));
    CHECK(same(errata_of(6, 168), icl));
    CHECK(same(errata_of(6, 151), adl));
    CHECK(same(errata_of(6, 198), adl));
    CHECK(same(errata_of(18, 3), adl));
    CHECK(same(errata_of(6, 92), apl));
    CHECK(same(errata_of(6, 95), apl));
    CHECK(same(errata_of(6, 122), atom));
    CHECK(same(errata_of(6, 221), atom));
}

/* unknown models, and families that share a model number */
TEST(unknown_models_have_none)
{
    CHECK(same(errata_of(6, 1), none));
    CHECK(same(errata_of(6, 190), none)); /* Alder Lake-N: no case in the corpus */
    CHECK(same(errata_of(15, 61), none));
    CHECK(same(errata_of(18, 2), none));
    CHECK(same(errata_of(19, 3), none));
}

/* the stepping does not matter */
TEST(stepping_does_not_matter)
{
    struct fwpt_cpu_id id = intel(6, 61);
    struct fwpt_errata e;
    id.stepping = 4;
    id.stepping_known = true;
    fwpt_errata_for_cpu(&id, &e);
    CHECK(same(e, bdw));
}

/* not Intel (an AMD signature, and a Broadwell signature on another vendor), not known */
TEST(not_intel_or_unknown_have_none)
{
    struct fwpt_errata e;
    struct fwpt_cpu_id id = intel(25, 33);
    id.intel = false;
    fwpt_errata_for_cpu(&id, &e);
    CHECK(same(e, none));
    id = intel(6, 61);
    id.intel = false;
    memset(&e, 0xa5, sizeof e);
    fwpt_errata_for_cpu(&id, &e);
    CHECK(same(e, none));
    CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_BDM70, &id));
    id = intel(6, 61);
    id.known = false;
    memset(&e, 0xa5, sizeof e);
    fwpt_errata_for_cpu(&id, &e);
    CHECK(same(e, none));
    memset(&e, 0xa5, sizeof e);
    fwpt_errata_for_cpu(NULL, &e);
    CHECK(same(e, none));
}

/* trace-setting errata: BDM106 on Broadwell; TGL052 = ADL037 = RPL017 */
TEST(trace_setting_errata)
{
    struct fwpt_cpu_id id = intel(6, 61);
    CHECK(fwpt_erratum_applies(FWPT_ERRATUM_BDM106, &id));
    CHECK(fwpt_erratum_applies(FWPT_ERRATUM_BDM64, &id));
    CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_TGL052, &id));
    CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_COUNT, &id));
    static const uint32_t tgl052[] = {140, 141, 151, 154, 183, 186, 191};
    for (size_t k = 0; k < sizeof tgl052 / sizeof tgl052[0]; k++) {
        id = intel(6, tgl052[k]);
        CHECK(fwpt_erratum_applies(FWPT_ERRATUM_TGL052, &id));
        CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_BDM106, &id));
    }
    id = intel(6, 78);
    CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_TGL052, &id));
    CHECK(!fwpt_erratum_applies(FWPT_ERRATUM_BDM106, &id));
    CHECK(fwpt_erratum_applies(FWPT_ERRATUM_SKL168, &id));
}

/* each erratum's name, aliases, text and kind */
TEST(erratum_info)
{
    CHECK_EQ(FWPT_ERRATUM_COUNT, 12);
    CHECK_EQ(FWPT_ERRATUM_DECODE_COUNT, 10);
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_BDM70)->name, "BDM70");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_BDM70)->aliases, "SKD024 SKL021 KBL021");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_SKD010)->aliases, "SKD014 SKL033 KBL030");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_SKZ84)->name, "SKZ84");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_SKZ84)->aliases, "");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_TGL052)->aliases, "ADL037 RPL017");
    CHECK_STR(fwpt_erratum_info(FWPT_ERRATUM_BDM106)->name, "BDM106");
    CHECK(fwpt_erratum_info(FWPT_ERRATUM_APL11)->decoder);
    CHECK(!fwpt_erratum_info(FWPT_ERRATUM_BDM106)->decoder);
    CHECK(!fwpt_erratum_info(FWPT_ERRATUM_TGL052)->decoder);
    CHECK(fwpt_erratum_info(FWPT_ERRATUM_COUNT) == NULL);
    for (unsigned e = 0; e < FWPT_ERRATUM_COUNT; e++) {
        const struct fwpt_erratum_info *i = fwpt_erratum_info((enum fwpt_erratum)e);
        CHECK(i && i->name[0] && i->what[0]);
        CHECK_EQ(i->decoder, e < FWPT_ERRATUM_DECODE_COUNT);
    }
}

/* the model table: no family/model twice, every row has an erratum */
TEST(model_table_rows_distinct)
{
    size_t n = fwpt_errata_model_count();
    CHECK_EQ(n, 49);
    for (size_t i = 0; i < n; i++) {
        uint32_t f, m, mask;
        fwpt_errata_model_at(i, &f, &m, &mask);
        CHECK(mask != 0 && mask < (1u << FWPT_ERRATUM_COUNT));
        for (size_t j = i + 1; j < n; j++) {
            uint32_t f2, m2, mask2;
            fwpt_errata_model_at(j, &f2, &m2, &mask2);
            CHECK(f != f2 || m != m2);
        }
    }
    uint32_t f = 1, m = 1, mask = 1;
    fwpt_errata_model_at(n, &f, &m, &mask);
    CHECK(f == 0 && m == 0 && mask == 0);
}

/* --cpu values: FAMILY/MODEL[/STEPPING], decimal or 0x-hex, or none */
TEST(cpu_parse_accepts)
{
    struct fwpt_cpu_id id;

    memset(&id, 0xa5, sizeof id);
    CHECK_EQ(fwpt_cpu_parse("6/61", &id), FWPT_OK);
    CHECK(id.known && id.intel && !id.stepping_known);
    CHECK_EQ(id.family, 6);
    CHECK_EQ(id.model, 61);
    CHECK_EQ(id.stepping, 0);
    CHECK_EQ(fwpt_cpu_parse("6/94/3", &id), FWPT_OK);
    CHECK(id.known && id.intel && id.stepping_known);
    CHECK_EQ(id.model, 94);
    CHECK_EQ(id.stepping, 3);
    CHECK_EQ(fwpt_cpu_parse("0x6/0x3d/0xf", &id), FWPT_OK);
    CHECK_EQ(id.family, 6);
    CHECK_EQ(id.model, 0x3d);
    CHECK_EQ(id.stepping, 15);
    CHECK_EQ(fwpt_cpu_parse("19/1", &id), FWPT_OK);
    CHECK_EQ(id.family, 19);
    CHECK_EQ(fwpt_cpu_parse("270/255/15", &id), FWPT_OK);
    CHECK_EQ(id.family, 270);
    CHECK_EQ(id.model, 255);
    CHECK_EQ(fwpt_cpu_parse("006/061", &id), FWPT_OK); /* leading zeros are decimal, not octal */
    CHECK_EQ(id.model, 61);
    memset(&id, 0xa5, sizeof id);
    CHECK_EQ(fwpt_cpu_parse("none", &id), FWPT_OK);
    CHECK(!id.known && !id.intel && !id.stepping_known);
    CHECK_EQ(id.family, 0);
}

/* errors: *out untouched, a reason */
TEST(cpu_parse_refusals_say_why)
{
    struct fwpt_cpu_id id;
    const char *why;
    static const struct refusal bad[] = {
        {"6", "expected FAMILY/MODEL[/STEPPING] or none"},
        {"6/x", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"6/61/1/2", "more than three fields: expected FAMILY/MODEL[/STEPPING]"},
        {"", "empty: expected FAMILY/MODEL[/STEPPING] or none"},
        {"non\xd0\xb5", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"}, /* Cyrillic ie */
        {"None", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"4294967302/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"99999999999999999999999/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"6/18446744073709551677", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"0/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"271/1", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"6/256", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"6/0x100", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"6/61/16", "STEPPING is not a number from 0 to 15 (decimal or 0x-hex)"},
        {"6/61/", "STEPPING is not a number from 0 to 15 (decimal or 0x-hex)"},
        {"6//61", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"-6/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {" 6/61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
        {"6/61 ", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"6/0x", "MODEL is not a number from 0 to 255 (decimal or 0x-hex)"},
        {"6.61", "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        memset(&id, 0xa5, sizeof id);
        why = NULL;
        CHECK_EQ(fwpt_cpu_parse_why(bad[k].args, &id, &why), FWPT_E_INVAL);
        CHECK_STR(why, bad[k].says);
        CHECK_EQ(id.family, 0xa5a5a5a5u);
        CHECK_EQ(fwpt_cpu_parse(bad[k].args, &id), FWPT_E_INVAL);
    }
    CHECK_EQ(fwpt_cpu_parse(NULL, &id), FWPT_E_INVAL);
    CHECK_EQ(fwpt_cpu_parse("6/61", NULL), FWPT_E_INVAL);
    why = "x";
    CHECK_EQ(fwpt_cpu_parse_why("6/61", &id, &why), FWPT_OK);
    CHECK(why == NULL);
}

static char text[4096];
static struct fwpt_bufsink bs;

static const char *render(const struct fwpt_cpu_id *id, bool json)
{
    struct fwpt_sink o = fwpt_bufsink_init(&bs, text, sizeof text - 1);
    if (json)
        fwpt_errata_json(id, &o);
    else
        fwpt_errata_report(id, &o);
    text[bs.len] = '\0';
    return bs.overflow ? "(overflow)" : text;
}

/* the errata report in text and JSON: per processor, none known, not Intel, unknown */
TEST(errata_printers_text_and_json)
{
    struct fwpt_cpu_id id = intel(6, 61);
    CHECK_STR(render(&id, false),
              "errata                  decoder: worked around when decoding; trace: avoided by the trace settings\n"
              "  BDM70   decoder  SKD024 SKL021 KBL021  PSB+ may contain FUP and MODE.Exec while tracing is off, "
              "ahead of a TIP.PGE\n"
              "  BDM64   decoder  -                     a TSX abort right after a branch may write an incorrect TIP "
              "or TNT before the abort's TIP\n"
              "  BDM106  trace    -                     BranchEn must be 1: fwpt always sets it on these models\n");
    id = intel(6, 92);
    CHECK_STR(render(&id, true),
              "[{\"name\":\"APL12\",\"aliases\":[],\"kind\":\"decoder\",\"what\":\"OVF may be followed by a FUP "
              "although FilterEn is clear (outside TIP.PGE/TIP.PGD)\"},{\"name\":\"APL11\",\"aliases\":[],\"kind\":"
              "\"decoder\",\"what\":\"OVF may be followed by a TIP.PGD (TraceEn or ContextEn cleared during the "
              "overflow)\"}]");
    id = intel(6, 140);
    const char *js = render(&id, true);
    CHECK(strstr(js, "{\"name\":\"BDM70\",\"aliases\":[\"SKD024\",\"SKL021\",\"KBL021\"],\"kind\":\"decoder\"") == js + 1);
    CHECK(strstr(js, "{\"name\":\"TGL052\",\"aliases\":[\"ADL037\",\"RPL017\"],\"kind\":\"trace\",") != NULL);
    id = intel(6, 1);
    CHECK_STR(render(&id, false), "errata                  none known for family 6 model 1\n");
    CHECK_STR(render(&id, true), "[]");
    id.intel = false;
    CHECK_STR(render(&id, false), "errata                  none (errata are listed for Intel processors only)\n");
    id.known = false;
    CHECK_STR(render(&id, false), "errata                  unknown (no processor signature)\n");
    CHECK_STR(render(&id, true), "[]");
}

/* ---- --cpu on fwpt dump and fwpt flow ---- */

static char out[8192], dir[64], path[128];

/* A fresh directory dir holding trace.pt (path), a PSB and a PSBEND; false (checked) when it cannot be made.
 * The caller removes it with remove_tool_dir. */
static bool make_tool_dir(void)
{
    char args[256];
    FILE *f;
    static const unsigned char trace[] = {/* PSB, PSBEND (SDM: PSB is 02 82 repeated 8 times; PSBEND 02 23) */
                                          0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                          0x02, 0x82, 0x02, 0x82, 0x02, 0x23};
    snprintf(dir, sizeof dir, "/tmp/fwpt-test-errata-%d", (int)getpid());
    snprintf(args, sizeof args, "mkdir -p %s", dir);
    CHECK_EQ(system(args), 0);
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    CHECK((f = fopen(path, "wb")) != NULL);
    if (!f)
        return false;
    fwrite(trace, 1, sizeof trace, f);
    fclose(f);
    return true;
}

static void remove_tool_dir(void)
{
    char args[256];
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CHECK_EQ(system(args), 0);
}

/* dump: the output does not change with --cpu; flow takes it */
TEST(cpu_option_keeps_dump_output)
{
    char args[256];
    if (!make_tool_dir())
        return;
    static char plain[8192];
    snprintf(args, sizeof args, "%s", path);
    CHECK_EQ(tool_run("dump", args, plain, sizeof plain), 0);
    static const char *const good[] = {"6/61", "0x6/0x4e/3", "none", "19/1"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        snprintf(args, sizeof args, "%s --cpu %s", path, good[k]);
        CHECK_EQ(tool_run("dump", args, out, sizeof out), 0);
        CHECK_STR(out, plain);
        snprintf(args, sizeof args, "--cpu=%s %s", good[k], path);
        /* taken (a refused --cpu exits 2); the trace then has no code to decode: exit 1, and said */
        CHECK_EQ(tool_run("flow", args, out, sizeof out), 1);
        CHECK(strstr(out, "no code to decode with") != NULL);
    }
    remove_tool_dir();
}

/* bad values: exit 2, naming the option */
TEST(cpu_option_refusals_exit_2)
{
    char args[256];
    if (!make_tool_dir())
        return;
    static const struct {
        const char *cmd, *opt, *says;
    } bad[] = {
        {"dump", "--cpu 6", "fwpt dump: --cpu: expected FAMILY/MODEL[/STEPPING] or none, got '6'\n"},
        {"flow", "--cpu 6/61/1/2",
         "fwpt flow: --cpu: more than three fields: expected FAMILY/MODEL[/STEPPING], got '6/61/1/2'\n"},
        {"flow", "--cpu=6/x", "fwpt flow: --cpu: MODEL is not a number from 0 to 255 (decimal or 0x-hex), got '6/x'\n"},
        {"dump", "--cpu", "fwpt dump: --cpu: expected FAMILY/MODEL[/STEPPING] or none, got '(nothing)'\n"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(args, sizeof args, "%s %s", path, bad[k].opt);
        CHECK_EQ(tool_run(bad[k].cmd, args, out, sizeof out), 2);
        CHECK_STR(out, bad[k].says);
    }
    remove_tool_dir();
}

/* both subcommands' help name --cpu */
TEST(help_names_cpu_option)
{
    CHECK_EQ(tool_run("dump", "--help", out, sizeof out), 0);
    CHECK(strstr(out, "[--cpu F/M[/S]|none]") != NULL);
    CHECK_EQ(tool_run("flow", "--help", out, sizeof out), 0);
    CHECK(strstr(out, "  --cpu F/M[/S]  the Intel processor") != NULL);
}

/* flow DIR: the "cpu" of sideband.json; a malformed one is reported, none is silent */
TEST(flow_dir_reads_sideband_cpu)
{
    char args[256];
    FILE *f;
    if (!make_tool_dir())
        return;
    snprintf(path, sizeof path, "%s/sideband.json", dir);
    CHECK((f = fopen(path, "w")) != NULL);
    if (!f)
        return;
    fputs("{\"images\":[],\"cpu\":{\"vendor\":\"GenuineIntel\",\"family\":6,\"model\":78,\"stepping\":3,"
          "\"signature\":\"0x406e3\"}}\n", f);
    fclose(f);
    CHECK_EQ(tool_run("flow", dir, out, sizeof out), 1); /* no image with code: nothing decoded, said */
    CHECK(strstr(out, "no image with code (0 in its sideband.json)") != NULL);
    CHECK(strstr(out, "cpu") == NULL);
    CHECK((f = fopen(path, "w")) != NULL);
    if (!f)
        return;
    fputs("{\"images\":[],\"cpu\":\"6/78\"}\n", f);
    fclose(f);
    CHECK_EQ(tool_run("flow", dir, out, sizeof out), 1);
    char want[256];
    snprintf(want, sizeof want, "fwpt flow: %s: no usable \"cpu\" object (decoding without processor errata)\n", path);
    CHECK(strstr(out, want) != NULL);
    snprintf(args, sizeof args, "%s --cpu 6/78", dir); /* --cpu wins: the sideband's cpu is not read */
    CHECK_EQ(tool_run("flow", args, out, sizeof out), 1);
    CHECK(strstr(out, "cpu") == NULL);
    remove_tool_dir();
}

/* ---- the conformance corpus ---- */

static int erratum_by_lower_name(const char *s, size_t n)
{
    for (unsigned e = 0; e < FWPT_ERRATUM_DECODE_COUNT; e++) {
        const char *name = fwpt_erratum_info((enum fwpt_erratum)e)->name;
        size_t k;
        for (k = 0; k < n && name[k] && (name[k] | 0x20) == s[k]; k++)
            ;
        if (k == n && !name[k])
            return (int)e;
    }
    return -1;
}

/* Every NAME@cpu_F_M errata case's processor has that erratum, and no processor has a decoder erratum the corpus
 * has no case for. When the corpus is not there (a checkout alone), says so loudly and checks only that it is
 * absent, not unreadable. */
TEST(conformance_corpus_agrees)
{
    const char *dir = getenv("FWPT_CONFORMANCE");
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/libipt/manifest.tsv", dir && *dir ? dir : "../shared/conformance");
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr,
                "test_errata: NOT RUN: the conformance corpus check: cannot open %s (run from the checkout's top "
                "directory beside shared/, or set FWPT_CONFORMANCE)\n",
                path);
        CHECK_EQ(errno, ENOENT);
        return;
    }
    /* per decoder erratum and model: a case was seen */
    static bool seen[FWPT_ERRATUM_DECODE_COUNT][300][256];
    unsigned cases = 0, per[FWPT_ERRATUM_DECODE_COUNT] = {0};
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab || !strncmp(line, "name\t", 5))
            continue;
        *tab = '\0';
        const char *cpu = tab + 1;
        size_t n = strcspn(line, "-@");
        int e = erratum_by_lower_name(line, n);
        if (e < 0)
            continue; /* not an errata case */
        unsigned fam, mod;
        char c;
        CHECK(sscanf(cpu, "%u/%u%c", &fam, &mod, &c) == 3 && c == '\t');
        if (fam >= 300 || mod >= 256)
            continue;
        struct fwpt_cpu_id id = intel(fam, mod);
        if (!fwpt_erratum_applies((enum fwpt_erratum)e, &id))
            fprintf(stderr, "test_errata: corpus case %s (cpu %u/%u): %s not set\n", line, fam, mod,
                    fwpt_erratum_info((enum fwpt_erratum)e)->name);
        CHECK(fwpt_erratum_applies((enum fwpt_erratum)e, &id));
        /* the case directory is named after the same cpu */
        char want[32];
        snprintf(want, sizeof want, "@cpu_%u_%u", fam, mod);
        CHECK(strstr(line, want) != NULL && strlen(strstr(line, want)) == strlen(want));
        seen[e][fam][mod] = true;
        cases++;
        per[e]++;
    }
    fclose(f);
    CHECK_EQ(cases, 270);
    for (unsigned e = 0; e < FWPT_ERRATUM_DECODE_COUNT; e++)
        CHECK(per[e] > 0);
    /* the other way: no model has a decoder erratum the corpus has no case for */
    for (size_t i = 0; i < fwpt_errata_model_count(); i++) {
        uint32_t fam, mod, mask;
        fwpt_errata_model_at(i, &fam, &mod, &mask);
        for (unsigned e = 0; e < FWPT_ERRATUM_DECODE_COUNT; e++) {
            if (!(mask & (1u << e)))
                continue;
            if (!seen[e][fam][mod])
                fprintf(stderr, "test_errata: %s set for %u/%u but the corpus has no case for it\n",
                        fwpt_erratum_info((enum fwpt_erratum)e)->name, fam, mod);
            CHECK(seen[e][fam][mod]);
        }
    }
}

TEST_MAIN("errata")
