/* fwpt — Intel PT errata keyed by the processor (Intel specification updates of each family).
 * Freestanding: built into the EFI application too. */
#include "arch/errata.h"
#include "base/json.h"

static const struct fwpt_erratum_info infos[] = {
#define FWPT_ERRATUM_INFO_DECODE(field, name, aliases, what) {#name, aliases, what, true},
#define FWPT_ERRATUM_INFO_TRACE(field, name, aliases, what) {#name, aliases, what, false},
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_INFO_DECODE)
    FWPT_ERRATA_TRACE_LIST(FWPT_ERRATUM_INFO_TRACE)
#undef FWPT_ERRATUM_INFO_DECODE
#undef FWPT_ERRATUM_INFO_TRACE
};
_Static_assert(sizeof infos / sizeof infos[0] == FWPT_ERRATUM_COUNT, "one info per erratum");
_Static_assert(sizeof(struct fwpt_errata) == FWPT_ERRATUM_DECODE_COUNT * sizeof(bool),
               "one struct fwpt_errata field per decoder erratum in FWPT_ERRATA_DECODE_LIST");
_Static_assert(FWPT_ERRATUM_COUNT <= 32, "the model table's masks are 32 bits");

#define E(name) (1u << FWPT_ERRATUM_##name)

/* Families of parts that share one set of errata (the specification updates of each part). */
#define BROADWELL (E(BDM70) | E(BDM64) | E(BDM106))
#define SKYLAKE_CLIENT (E(BDM70) | E(SKD007) | E(SKD022) | E(SKD010) | E(SKL014) | E(SKL168))
#define SKYLAKE_SERVER (E(BDM70) | E(SKD022) | E(SKL014) | E(SKZ84))
#define SAPPHIRE_RAPIDS (E(BDM70) | E(SKD022) | E(SKZ84))
#define ICELAKE_CLIENT (E(BDM70) | E(SKD022) | E(SKL014))
#define HYBRID (E(BDM70) | E(SKD022) | E(APL11))
#define GOLDMONT (E(APL12) | E(APL11))
#define ATOM (E(APL11))

static const struct errata_model {
    uint16_t family;
    uint8_t model;
    uint32_t mask;
} models[] = {
    /* Broadwell client, Iris Pro, server, Xeon D */
    {6, 0x3d, BROADWELL}, {6, 0x47, BROADWELL}, {6, 0x4f, BROADWELL}, {6, 0x56, BROADWELL},
    /* Skylake, Kaby Lake, Coffee Lake, Comet Lake (client) */
    {6, 0x4e, SKYLAKE_CLIENT}, {6, 0x5e, SKYLAKE_CLIENT}, {6, 0x8e, SKYLAKE_CLIENT}, {6, 0x9e, SKYLAKE_CLIENT},
    {6, 0xa5, SKYLAKE_CLIENT}, {6, 0xa6, SKYLAKE_CLIENT},
    /* Skylake/Cascade Lake server, Ice Lake server and Xeon D */
    {6, 0x55, SKYLAKE_SERVER}, {6, 0x6a, SKYLAKE_SERVER}, {6, 0x6c, SKYLAKE_SERVER},
    /* Sapphire Rapids, Emerald Rapids, Granite Rapids, Diamond Rapids */
    {6, 0x8f, SAPPHIRE_RAPIDS}, {6, 0xad, SAPPHIRE_RAPIDS}, {6, 0xae, SAPPHIRE_RAPIDS},
    {6, 0xcf, SAPPHIRE_RAPIDS}, {0x13, 0x01, SAPPHIRE_RAPIDS},
    /* Cannon Lake, Ice Lake, Rocket Lake (client); Tiger Lake also TGL052 */
    {6, 0x66, ICELAKE_CLIENT}, {6, 0x7d, ICELAKE_CLIENT}, {6, 0x7e, ICELAKE_CLIENT},
    {6, 0x8c, ICELAKE_CLIENT | E(TGL052)}, {6, 0x8d, ICELAKE_CLIENT | E(TGL052)},
    {6, 0xa7, ICELAKE_CLIENT}, {6, 0xa8, ICELAKE_CLIENT},
    /* Alder Lake (ADL037), Raptor Lake (RPL017), Meteor, Arrow, Lunar, Panther, Wildcat, Nova Lake */
    {6, 0x97, HYBRID | E(TGL052)}, {6, 0x9a, HYBRID | E(TGL052)}, {6, 0xaa, HYBRID}, {6, 0xac, HYBRID},
    {6, 0xb5, HYBRID}, {6, 0xb7, HYBRID | E(TGL052)}, {6, 0xba, HYBRID | E(TGL052)}, {6, 0xbd, HYBRID},
    {6, 0xbf, HYBRID | E(TGL052)}, {6, 0xc5, HYBRID}, {6, 0xc6, HYBRID}, {6, 0xcc, HYBRID},
    {6, 0xd5, HYBRID}, {0x12, 0x01, HYBRID}, {0x12, 0x03, HYBRID},
    /* Goldmont: Apollo Lake, Denverton */
    {6, 0x5c, GOLDMONT}, {6, 0x5f, GOLDMONT},
    /* Goldmont Plus, Tremont, Crestmont, Darkmont parts (Gemini Lake ... Clearwater Forest) */
    {6, 0x7a, ATOM}, {6, 0x86, ATOM}, {6, 0x96, ATOM}, {6, 0x9c, ATOM}, {6, 0xaf, ATOM}, {6, 0xb6, ATOM},
    {6, 0xdd, ATOM},
};

static uint32_t mask_of(const struct fwpt_cpu_id *id)
{
    if (!id || !id->known || !id->intel)
        return 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (models[i].family == id->family && models[i].model == id->model)
            return models[i].mask;
    return 0;
}

void fwpt_errata_for_cpu(const struct fwpt_cpu_id *id, struct fwpt_errata *out)
{
    uint32_t m = mask_of(id);
#define FWPT_ERRATUM_SET(field, name, aliases, what) out->field = (m & E(name)) != 0;
    FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_SET)
#undef FWPT_ERRATUM_SET
}

const struct fwpt_erratum_info *fwpt_erratum_info(enum fwpt_erratum e)
{
    return (unsigned)e < FWPT_ERRATUM_COUNT ? &infos[e] : NULL;
}

bool fwpt_erratum_applies(enum fwpt_erratum e, const struct fwpt_cpu_id *id)
{
    return (unsigned)e < FWPT_ERRATUM_COUNT && (mask_of(id) & (1u << e));
}

size_t fwpt_errata_model_count(void) { return sizeof models / sizeof models[0]; }

void fwpt_errata_model_at(size_t i, uint32_t *family, uint32_t *model, uint32_t *mask)
{
    const struct errata_model *m = i < fwpt_errata_model_count() ? &models[i] : NULL;
    *family = m ? m->family : 0;
    *model = m ? m->model : 0;
    *mask = m ? m->mask : 0;
}

/* ---- --cpu FAMILY/MODEL[/STEPPING] ---- */

/* One '/'-separated field: decimal or 0x-hex, at most max. */
static const char *parse_field(const char **p, uint32_t max, uint32_t *v, const char *what)
{
    char buf[24];
    size_t n = 0;
    uint64_t x;
    while (**p && **p != '/') {
        if (n + 1 >= sizeof buf)
            return what; /* longer than any number in range */
        buf[n++] = *(*p)++;
    }
    buf[n] = '\0';
    if (!n || fwpt_parse_u64(buf, 0, &x) != 0 || x > max)
        return what;
    *v = (uint32_t)x;
    return NULL;
}

enum fwpt_status fwpt_cpu_parse_why(const char *s, struct fwpt_cpu_id *out, const char **why)
{
    struct fwpt_cpu_id id;
    const char *bad, *p = s;

    if (why)
        *why = NULL;
    if (!s || !out) {
        if (why)
            *why = "no value";
        return FWPT_E_INVAL;
    }
    fwpt_memset(&id, 0, sizeof id);
    if (!*s) {
        if (why)
            *why = "empty: expected FAMILY/MODEL[/STEPPING] or none";
        return FWPT_E_INVAL;
    }
    if (!fwpt_strcmp(s, "none")) {
        *out = id;
        return FWPT_OK;
    }
    /* Display family is at most 0FH + FFH (extended family), model 8 bits, stepping 4 bits (CPUID.1:EAX). */
    bad = parse_field(&p, 270, &id.family, "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)");
    if (!bad && id.family == 0)
        bad = "FAMILY is not a number from 1 to 270 (decimal or 0x-hex)";
    if (!bad && *p != '/')
        bad = "expected FAMILY/MODEL[/STEPPING] or none";
    if (!bad) {
        p++;
        bad = parse_field(&p, 255, &id.model, "MODEL is not a number from 0 to 255 (decimal or 0x-hex)");
    }
    if (!bad && *p == '/') {
        p++;
        bad = parse_field(&p, 15, &id.stepping, "STEPPING is not a number from 0 to 15 (decimal or 0x-hex)");
        id.stepping_known = true;
        if (!bad && *p)
            bad = "more than three fields: expected FAMILY/MODEL[/STEPPING]";
    }
    if (bad) {
        if (why)
            *why = bad;
        return FWPT_E_INVAL;
    }
    id.known = true;
    id.intel = true;
    *out = id;
    return FWPT_OK;
}

enum fwpt_status fwpt_cpu_parse(const char *s, struct fwpt_cpu_id *out) { return fwpt_cpu_parse_why(s, out, NULL); }

/* ---- printers ---- */

void fwpt_errata_report(const struct fwpt_cpu_id *id, const struct fwpt_sink *o)
{
    uint32_t m = mask_of(id);

    fwpt_put_padded(o, "errata", 24);
    if (!id || !id->known) {
        fwpt_puts(o, "unknown (no processor signature)\n");
        return;
    }
    if (!id->intel) {
        fwpt_puts(o, "none (errata are listed for Intel processors only)\n");
        return;
    }
    if (!m) {
        fwpt_printf(o, "none known for family %u model %u\n", id->family, id->model);
        return;
    }
    fwpt_puts(o, "decoder: worked around when decoding; trace: avoided by the trace settings\n");
    for (unsigned e = 0; e < FWPT_ERRATUM_COUNT; e++) {
        if (!(m & (1u << e)))
            continue;
        fwpt_puts(o, "  ");
        fwpt_put_padded(o, infos[e].name, 8);
        fwpt_put_padded(o, infos[e].decoder ? "decoder" : "trace", 9);
        fwpt_put_padded(o, infos[e].aliases[0] ? infos[e].aliases : "-", 22);
        fwpt_puts(o, infos[e].what);
        fwpt_putc(o, '\n');
    }
}

static void json_aliases(struct fwpt_json *j, const char *a)
{
    fwpt_json_open(j, "aliases", '[');
    for (const char *p = a; *p;) {
        size_t n = 0;
        while (p[n] && p[n] != ' ')
            n++;
        fwpt_json_strn(j, NULL, p, n); /* names are letters and digits: nothing to escape */
        p += n;
        while (*p == ' ')
            p++;
    }
    fwpt_json_close(j, ']');
}

void fwpt_errata_json(const struct fwpt_cpu_id *id, const struct fwpt_sink *o)
{
    uint32_t m = mask_of(id);
    struct fwpt_json j;
    fwpt_json_init(&j, o);
    fwpt_json_open(&j, NULL, '[');
    for (unsigned e = 0; e < FWPT_ERRATUM_COUNT; e++) {
        if (!(m & (1u << e)))
            continue;
        fwpt_json_open(&j, NULL, '{');
        fwpt_json_str(&j, "name", infos[e].name);
        json_aliases(&j, infos[e].aliases);
        fwpt_json_str(&j, "kind", infos[e].decoder ? "decoder" : "trace");
        fwpt_json_str(&j, "what", infos[e].what);
        fwpt_json_close(&j, '}');
    }
    fwpt_json_close(&j, ']');
}
