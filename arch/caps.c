/* fwpt — Intel PT capability enumeration (SDM Vol. 3C "Detection of Intel Processor Trace and
 * Capability Enumeration"; CPUID leaf 14H in Vol. 2A). Freestanding: runs in firmware too. */
#include "arch/caps.h"
#include "arch/rtit.h"
#include "base/json.h"
#include <stddef.h>

#define CPUID_LEAF_VENDOR   0x0u
#define CPUID_LEAF_FMS      0x1u
#define CPUID_LEAF_EXT_FEAT 0x7u
#define CPUID_LEAF_PT       0x14u
#define CPUID_LEAF_HYBRID   0x1au
#define CPUID_EXT_MAX       0x80000000u
#define CPUID_EXT_ADDR      0x80000008u
#define CPUID1A_EAX_CORE_TYPE FWPT_FIELD(31, 24)
#define CPUID80000008_EAX_MAXPHYADDR FWPT_FIELD(7, 0)
#define MAXPHYADDR_DEFAULT 36u /* SDM: when CPUID.80000008H is unavailable, MAXPHYADDR is 36 */

static const char *const reason_names[] = {
    "usable", "not_intel", "max_leaf_below_14", "leaf7_bit_clear", "leaf14_empty", "no_output_scheme",
    "inconsistent",
};
static const char *const reason_msgs[] = {
#define FWPT_CAPS_REASON_MSG(n, m) m,
    FWPT_CAPS_REASON_LIST(FWPT_CAPS_REASON_MSG)
#undef FWPT_CAPS_REASON_MSG
};
_Static_assert(sizeof reason_names / sizeof reason_names[0] == sizeof reason_msgs / sizeof reason_msgs[0],
               "one lower-case name per reason");

const char *fwpt_caps_reason_name(enum fwpt_caps_reason r)
{
    return (unsigned)r < sizeof reason_names / sizeof reason_names[0] ? reason_names[r] : "unknown";
}

const char *fwpt_caps_reason_msg(enum fwpt_caps_reason r)
{
    return (unsigned)r < sizeof reason_msgs / sizeof reason_msgs[0] ? reason_msgs[r] : "unknown reason";
}

void fwpt_caps_cpu_id(const struct fwpt_caps *c, struct fwpt_cpu_id *id)
{
    fwpt_memset(id, 0, sizeof *id);
    id->known = c->raw.leaf1_eax != 0;
    id->intel = fwpt_strcmp(c->raw.vendor, "GenuineIntel") == 0;
    id->family = c->family;
    id->model = c->model;
    id->stepping = c->stepping;
    id->stepping_known = id->known;
}

/* ---- the capabilities, each once ---- */

/* Each capability of CPUID leaf 14H once: its name (Linux's intel_pt/caps file, which perf reads), the
 * register and bits that enumerate it (SDM Vol. 2A CPUID leaf 14H), its field, and how it is shown.
 * The parser, the report and the JSON are made from this table. */
enum cap_reg { CAP_14_0_EBX, CAP_14_0_ECX, CAP_14_1_EAX, CAP_14_1_EBX };
enum cap_kind { CAP_BOOL, CAP_DEC, CAP_BITMAP };
struct cap_field {
    const char *name;
    enum cap_reg reg;
    uint64_t mask;
    size_t offset;     /* in struct fwpt_caps: a bool (CAP_BOOL) or a uint32_t */
    enum cap_kind kind;
};
#define CAP(name, reg, mask, kind) {#name, reg, mask, offsetof(struct fwpt_caps, name), kind}
static const struct cap_field cap_fields[] = {
    CAP(cr3_filtering, CAP_14_0_EBX, CPUID14_0_EBX_CR3_FILTERING, CAP_BOOL),
    CAP(psb_cyc, CAP_14_0_EBX, CPUID14_0_EBX_PSB_CYC, CAP_BOOL),
    CAP(ip_filtering, CAP_14_0_EBX, CPUID14_0_EBX_IP_FILTERING, CAP_BOOL),
    CAP(mtc, CAP_14_0_EBX, CPUID14_0_EBX_MTC, CAP_BOOL),
    CAP(ptwrite, CAP_14_0_EBX, CPUID14_0_EBX_PTWRITE, CAP_BOOL),
    CAP(power_event_trace, CAP_14_0_EBX, CPUID14_0_EBX_POWER_EVENT_TRACE, CAP_BOOL),
    CAP(psb_pmi_preserve, CAP_14_0_EBX, CPUID14_0_EBX_PSB_PMI_PRESERVE, CAP_BOOL),
    CAP(event_trace, CAP_14_0_EBX, CPUID14_0_EBX_EVENT_TRACE, CAP_BOOL),
    CAP(tnt_disable, CAP_14_0_EBX, CPUID14_0_EBX_TNT_DISABLE, CAP_BOOL),
    CAP(topa_output, CAP_14_0_ECX, CPUID14_0_ECX_TOPA_OUTPUT, CAP_BOOL),
    CAP(topa_multiple_entries, CAP_14_0_ECX, CPUID14_0_ECX_TOPA_MULTIPLE, CAP_BOOL),
    CAP(single_range_output, CAP_14_0_ECX, CPUID14_0_ECX_SINGLE_RANGE, CAP_BOOL),
    CAP(output_subsys, CAP_14_0_ECX, CPUID14_0_ECX_OUTPUT_SUBSYS, CAP_BOOL),
    CAP(payloads_lip, CAP_14_0_ECX, CPUID14_0_ECX_PAYLOADS_LIP, CAP_BOOL),
    CAP(num_address_ranges, CAP_14_1_EAX, CPUID14_1_EAX_NUM_ADDR_RANGES, CAP_DEC),
    CAP(mtc_periods, CAP_14_1_EAX, CPUID14_1_EAX_MTC_PERIODS, CAP_BITMAP),
    CAP(cycle_thresholds, CAP_14_1_EBX, CPUID14_1_EBX_CYCLE_THRESHOLDS, CAP_BITMAP),
    CAP(psb_periods, CAP_14_1_EBX, CPUID14_1_EBX_PSB_PERIODS, CAP_BITMAP),
};
#undef CAP
#define CAP_COUNT (sizeof cap_fields / sizeof cap_fields[0])

static uint32_t cap_get(const struct fwpt_caps *c, const struct cap_field *f)
{
    const char *p = (const char *)c + f->offset;
    return f->kind == CAP_BOOL ? *(const bool *)p : *(const uint32_t *)p;
}

static void cap_set(struct fwpt_caps *c, const struct cap_field *f, uint32_t reg)
{
    char *p = (char *)c + f->offset;
    if (f->kind == CAP_BOOL)
        *(bool *)p = (reg & f->mask) != 0;
    else
        *(uint32_t *)p = (uint32_t)FWPT_GET(f->mask, reg);
}

/* ---- reading through the CPU interface ---- */

static void put_vendor(char vendor[13], const struct fwpt_cpuid_regs *r)
{
    const uint32_t w[3] = {r->ebx, r->edx, r->ecx}; /* SDM: "GenuineIntel" is EBX, EDX, ECX */
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 4; b++)
            vendor[i * 4 + b] = (char)((w[i] >> (8 * b)) & 0xff);
    vendor[12] = '\0';
}

enum fwpt_status fwpt_caps_read(const struct fwpt_cpu *cpu, struct fwpt_cpuid_snapshot *snap)
{
    struct fwpt_cpuid_regs r;
    enum fwpt_status st;

    if (!cpu || !snap)
        return FWPT_E_INVAL;
    fwpt_memset(snap, 0, sizeof *snap);
    if ((st = fwpt_cpuid(cpu, CPUID_LEAF_VENDOR, 0, &r)) != FWPT_OK)
        return st;
    snap->max_basic_leaf = r.eax;
    put_vendor(snap->vendor, &r);
    if (snap->max_basic_leaf >= CPUID_LEAF_FMS) {
        if ((st = fwpt_cpuid(cpu, CPUID_LEAF_FMS, 0, &r)) != FWPT_OK)
            return st;
        snap->leaf1_eax = r.eax;
    }
    if (snap->max_basic_leaf >= CPUID_LEAF_EXT_FEAT) {
        if ((st = fwpt_cpuid(cpu, CPUID_LEAF_EXT_FEAT, 0, &r)) != FWPT_OK)
            return st;
        snap->leaf7_ebx = r.ebx;
    }
    /* Above the max leaf Intel answers with the highest basic leaf's data (QEMU too): never ask. */
    if (snap->max_basic_leaf >= CPUID_LEAF_PT) {
        if ((st = fwpt_cpuid(cpu, CPUID_LEAF_PT, 0, &snap->leaf14_0)) != FWPT_OK)
            return st;
        snap->has_leaf14_0 = true;
        if (snap->leaf14_0.eax >= 1) { /* CPUID.(14H,0):EAX is the highest subleaf */
            if ((st = fwpt_cpuid(cpu, CPUID_LEAF_PT, 1, &snap->leaf14_1)) != FWPT_OK)
                return st;
            snap->has_leaf14_1 = true;
        }
    }
    if (snap->max_basic_leaf >= CPUID_LEAF_HYBRID) {
        if ((st = fwpt_cpuid(cpu, CPUID_LEAF_HYBRID, 0, &r)) != FWPT_OK)
            return st;
        snap->has_leaf1a = true;
        snap->leaf1a_eax = r.eax;
    }
    if ((st = fwpt_cpuid(cpu, CPUID_EXT_MAX, 0, &r)) != FWPT_OK)
        return st;
    /* Only a value in the 8000xxxxH range is a max extended leaf; anything else is basic-leaf data. */
    if ((r.eax & 0xffff0000u) == CPUID_EXT_MAX) {
        snap->max_ext_leaf = r.eax;
        if (r.eax >= CPUID_EXT_ADDR) {
            if ((st = fwpt_cpuid(cpu, CPUID_EXT_ADDR, 0, &r)) != FWPT_OK)
                return st;
            snap->maxphyaddr = (uint32_t)FWPT_GET(CPUID80000008_EAX_MAXPHYADDR, r.eax);
        }
    }
    return FWPT_OK;
}

/* ---- pure parsing ---- */

static bool regs_zero(const struct fwpt_cpuid_regs *r) { return !(r->eax | r->ebx | r->ecx | r->edx); }

static bool regs_equal(const struct fwpt_cpuid_regs *a, const struct fwpt_cpuid_regs *b)
{
    return a->eax == b->eax && a->ebx == b->ebx && a->ecx == b->ecx && a->edx == b->edx;
}

static const char *inconsistency(const struct fwpt_caps *c)
{
    if (c->topa_multiple_entries && !c->topa_output)
        return "topa_multiple_entries (CPUID.(14H,0):ECX[1]) is set but topa_output (ECX[0]) is clear";
    if (c->max_subleaf == 0 && (c->mtc || c->psb_cyc || c->ip_filtering))
        return "mtc, psb_cyc or ip_filtering is set but CPUID.(14H,0):EAX = 0 leaves no subleaf 1 to "
               "enumerate their periods or ranges";
    if (!c->subleaf1_known)
        return NULL;
    if (c->mtc && !c->mtc_periods)
        return "mtc is set but the MTC period bitmap (CPUID.(14H,1):EAX[31:16]) is empty";
    if (c->psb_cyc && (!c->cycle_thresholds || !c->psb_periods))
        return "psb_cyc is set but the cycle threshold or PSB period bitmap (CPUID.(14H,1):EBX) is empty";
    if (c->ip_filtering && !c->num_address_ranges)
        return "ip_filtering is set but CPUID.(14H,1):EAX[2:0] enumerates no address range";
    if (!c->ip_filtering && c->num_address_ranges)
        return "CPUID.(14H,1):EAX[2:0] enumerates address ranges but ip_filtering is clear";
    return NULL;
}

void fwpt_caps_parse(const struct fwpt_cpuid_snapshot *snap, struct fwpt_caps *c)
{
    const struct fwpt_cpuid_snapshot *s = snap;
    uint32_t base_family;

    fwpt_memset(c, 0, sizeof *c);
    c->raw = *s;
    c->raw.vendor[12] = '\0';
    base_family = (uint32_t)FWPT_GET(FWPT_FIELD(11, 8), s->leaf1_eax);
    c->family = base_family;
    if (base_family == 0xf) /* SDM CPUID.1: display family adds Extended_Family_ID only for 0FH */
        c->family += (uint32_t)FWPT_GET(FWPT_FIELD(27, 20), s->leaf1_eax);
    c->model = (uint32_t)FWPT_GET(FWPT_FIELD(7, 4), s->leaf1_eax);
    if (base_family == 0x6 || base_family == 0xf) /* ...and Extended_Model_ID for 06H and 0FH */
        c->model += (uint32_t)FWPT_GET(FWPT_FIELD(19, 16), s->leaf1_eax) << 4;
    c->stepping = (uint32_t)FWPT_GET(FWPT_FIELD(3, 0), s->leaf1_eax);
    c->maxphyaddr = s->maxphyaddr ? s->maxphyaddr : MAXPHYADDR_DEFAULT;
    if (s->has_leaf1a)
        c->core_type = (uint32_t)FWPT_GET(CPUID1A_EAX_CORE_TYPE, s->leaf1a_eax);
    c->intel_pt = s->max_basic_leaf >= CPUID_LEAF_EXT_FEAT && (s->leaf7_ebx & CPUID7_0_EBX_INTEL_PT);

    /* Leaf 14H is parsed whenever it was read, so the report shows it even when PT is refused. */
    if (s->has_leaf14_0) {
        c->max_subleaf = s->leaf14_0.eax;
        for (unsigned i = 0; i < CAP_COUNT; i++)
            if (cap_fields[i].reg == CAP_14_0_EBX || cap_fields[i].reg == CAP_14_0_ECX)
                cap_set(c, &cap_fields[i], cap_fields[i].reg == CAP_14_0_EBX ? s->leaf14_0.ebx : s->leaf14_0.ecx);
        if (c->max_subleaf >= 1) {
            if (!s->has_leaf14_1)
                c->note = "CPUID.(14H,1) was not recorded although CPUID.(14H,0):EAX >= 1: address "
                          "ranges and MTC/CYC/PSB bitmaps unknown, treated as none";
            else if (regs_zero(&s->leaf14_1))
                c->note = "CPUID.(14H,1) reads all-zero although CPUID.(14H,0):EAX >= 1 (a dump "
                          "artifact): address ranges and MTC/CYC/PSB bitmaps treated as none";
            else if (regs_equal(&s->leaf14_1, &s->leaf14_0))
                c->note = "CPUID.(14H,1) repeats subleaf 0 (the dump ignored ECX): address ranges and "
                          "MTC/CYC/PSB bitmaps treated as none";
            else
                c->subleaf1_known = true;
        }
        for (unsigned i = 0; i < CAP_COUNT && c->subleaf1_known; i++)
            if (cap_fields[i].reg == CAP_14_1_EAX || cap_fields[i].reg == CAP_14_1_EBX)
                cap_set(c, &cap_fields[i], cap_fields[i].reg == CAP_14_1_EAX ? s->leaf14_1.eax : s->leaf14_1.ebx);
    }

    /* The verdict: first failing rule wins (order documented in caps.h). */
    if (fwpt_strcmp(c->raw.vendor, "GenuineIntel") != 0)
        c->reason = FWPT_CAPS_NOT_INTEL;
    else if (s->max_basic_leaf < CPUID_LEAF_PT)
        c->reason = FWPT_CAPS_MAX_LEAF_BELOW_14;
    else if (!c->intel_pt) {
        c->reason = FWPT_CAPS_LEAF7_BIT_CLEAR;
        if (s->has_leaf14_0 && !regs_zero(&s->leaf14_0))
            c->note = "leaf 14H is filled although CPUID.(7,0):EBX[25] is clear; the SDM makes "
                      "EBX[25] the detection bit, so PT is not used (leaf 14H shown as read)";
    } else if (!s->has_leaf14_0 || !(s->leaf14_0.eax | s->leaf14_0.ebx | s->leaf14_0.ecx))
        c->reason = FWPT_CAPS_LEAF14_EMPTY;
    else if (!c->topa_output && !c->single_range_output)
        c->reason = FWPT_CAPS_NO_OUTPUT_SCHEME;
    else if ((c->detail = inconsistency(c)) != NULL)
        c->reason = FWPT_CAPS_INCONSISTENT;
    else
        c->reason = FWPT_CAPS_USABLE;
    c->pt_supported = c->reason == FWPT_CAPS_USABLE;
}

/* ---- printers ---- */

static const char *core_type_name(uint32_t t)
{
    switch (t) {
    case 0x20: return "Atom, E-core";
    case 0x40: return "Core, P-core";
    default: return "unknown";
    }
}

static void put_label(const struct fwpt_sink *o, const char *label) { fwpt_put_padded(o, label, 24); }

static void put_regs(const struct fwpt_sink *o, const struct fwpt_cpuid_regs *r)
{
    fwpt_puts(o, "EAX ");
    fwpt_put_hex(o, r->eax, 8);
    fwpt_puts(o, " EBX ");
    fwpt_put_hex(o, r->ebx, 8);
    fwpt_puts(o, " ECX ");
    fwpt_put_hex(o, r->ecx, 8);
    fwpt_puts(o, " EDX ");
    fwpt_put_hex(o, r->edx, 8);
}

void fwpt_caps_report(const struct fwpt_caps *c, const struct fwpt_sink *o)
{
    const struct fwpt_cpuid_snapshot *s = &c->raw;

    fwpt_puts(o, "Intel Processor Trace capabilities\n");
    put_label(o, "vendor");
    fwpt_puts(o, s->vendor[0] ? s->vendor : "(none)");
    fwpt_putc(o, '\n');
    put_label(o, "family/model/stepping");
    fwpt_printf(o, "%u/%u/%u (family 0x%x model 0x%x stepping 0x%x, CPUID.1:EAX %08x)\n", c->family, c->model,
                c->stepping, c->family, c->model, c->stepping, s->leaf1_eax);
    put_label(o, "max basic leaf");
    fwpt_put_0x(o, s->max_basic_leaf);
    fwpt_putc(o, '\n');
    put_label(o, "max extended leaf");
    if (s->max_ext_leaf)
        fwpt_put_0x(o, s->max_ext_leaf);
    else
        fwpt_puts(o, "n/a");
    fwpt_putc(o, '\n');
    put_label(o, "CPUID.(07H,0):EBX");
    if (s->max_basic_leaf >= CPUID_LEAF_EXT_FEAT) {
        fwpt_put_hex(o, s->leaf7_ebx, 8);
        fwpt_puts(o, c->intel_pt ? " (EBX[25] Intel PT = 1)\n" : " (EBX[25] Intel PT = 0)\n");
    } else {
        fwpt_puts(o, "n/a (above the max basic leaf)\n");
    }
    put_label(o, "CPUID.(14H,0)");
    if (s->has_leaf14_0)
        put_regs(o, &s->leaf14_0);
    else
        fwpt_puts(o, "n/a (above the max basic leaf)");
    fwpt_putc(o, '\n');
    put_label(o, "CPUID.(14H,1)");
    if (s->has_leaf14_1)
        put_regs(o, &s->leaf14_1);
    else if (s->has_leaf14_0 && s->leaf14_0.eax == 0)
        fwpt_puts(o, "n/a (CPUID.(14H,0):EAX = 0: no subleaf 1)");
    else if (s->has_leaf14_0)
        fwpt_puts(o, "not recorded");
    else
        fwpt_puts(o, "n/a");
    fwpt_putc(o, '\n');
    put_label(o, "CPUID.1AH:EAX");
    if (s->has_leaf1a) {
        fwpt_put_hex(o, s->leaf1a_eax, 8);
        if (c->core_type) {
            fwpt_puts(o, " (core_type ");
            fwpt_put_0x(o, c->core_type);
            fwpt_puts(o, ": ");
            fwpt_puts(o, core_type_name(c->core_type));
            fwpt_putc(o, ')');
        } else {
            fwpt_puts(o, " (not hybrid)");
        }
    } else {
        fwpt_puts(o, "n/a");
    }
    fwpt_putc(o, '\n');
    put_label(o, "MAXPHYADDR");
    fwpt_put_dec(o, c->maxphyaddr);
    fwpt_puts(o, s->maxphyaddr ? " bits\n" : " bits (CPUID.80000008H not available: SDM default)\n");
    fwpt_puts(o, "capabilities (Linux intel_pt/caps names)\n");
    for (unsigned i = 0; i < CAP_COUNT; i++) {
        uint32_t v = cap_get(c, &cap_fields[i]);
        fwpt_puts(o, "  ");
        fwpt_put_padded(o, cap_fields[i].name, 22);
        if (cap_fields[i].kind == CAP_BITMAP)
            fwpt_put_0x(o, v);
        else
            fwpt_put_dec(o, v);
        fwpt_putc(o, '\n');
    }
    put_label(o, "verdict");
    fwpt_puts(o, c->pt_supported ? "Intel PT usable (" : "Intel PT not usable (");
    fwpt_puts(o, fwpt_caps_reason_name(c->reason));
    fwpt_puts(o, "): ");
    fwpt_puts(o, fwpt_caps_reason_msg(c->reason));
    if (c->detail) {
        fwpt_puts(o, ": ");
        fwpt_puts(o, c->detail);
    }
    fwpt_putc(o, '\n');
    if (c->note) {
        put_label(o, "note");
        fwpt_puts(o, c->note);
        fwpt_putc(o, '\n');
    }
    struct fwpt_cpu_id id;
    fwpt_caps_cpu_id(c, &id);
    fwpt_errata_report(&id, o);
}

/* "k": "XXXXXXXX", or null when the register was not read. */
static void json_reg_or_null(struct fwpt_json *j, const char *k, bool have, uint32_t v)
{
    if (have)
        fwpt_json_reg(j, k, v);
    else
        fwpt_json_null(j, k);
}

static void json_regs(struct fwpt_json *j, const char *k, bool have, const struct fwpt_cpuid_regs *r)
{
    if (!have) {
        fwpt_json_null(j, k);
        return;
    }
    fwpt_json_open(j, k, '[');
    fwpt_json_reg(j, NULL, r->eax);
    fwpt_json_reg(j, NULL, r->ebx);
    fwpt_json_reg(j, NULL, r->ecx);
    fwpt_json_reg(j, NULL, r->edx);
    fwpt_json_close(j, ']');
}

void fwpt_caps_json(const struct fwpt_caps *c, const struct fwpt_sink *o)
{
    const struct fwpt_cpuid_snapshot *s = &c->raw;
    struct fwpt_json j;
    fwpt_json_init(&j, o);
    fwpt_json_open(&j, NULL, '{');
    fwpt_json_str(&j, "vendor", s->vendor);
    fwpt_json_dec(&j, "family", c->family);
    fwpt_json_dec(&j, "model", c->model);
    fwpt_json_dec(&j, "stepping", c->stepping);
    json_reg_or_null(&j, "leaf1_eax", true, s->leaf1_eax);
    fwpt_json_hex(&j, "max_basic_leaf", s->max_basic_leaf);
    fwpt_json_hex(&j, "max_ext_leaf", s->max_ext_leaf);
    json_reg_or_null(&j, "leaf7_ebx", s->max_basic_leaf >= CPUID_LEAF_EXT_FEAT, s->leaf7_ebx);
    fwpt_json_bool(&j, "intel_pt", c->intel_pt);
    json_regs(&j, "leaf14_0", s->has_leaf14_0, &s->leaf14_0);
    json_regs(&j, "leaf14_1", s->has_leaf14_1, &s->leaf14_1);
    json_reg_or_null(&j, "leaf1a_eax", s->has_leaf1a, s->leaf1a_eax);
    fwpt_json_hex(&j, "core_type", c->core_type);
    fwpt_json_dec(&j, "maxphyaddr", c->maxphyaddr);
    fwpt_json_dec(&j, "max_subleaf", c->max_subleaf);
    /* Linux intel_pt/caps files read 0/1 and hex bitmaps: same values here. */
    for (unsigned i = 0; i < CAP_COUNT; i++) {
        if (cap_fields[i].kind == CAP_BITMAP)
            fwpt_json_hex(&j, cap_fields[i].name, cap_get(c, &cap_fields[i]));
        else
            fwpt_json_dec(&j, cap_fields[i].name, cap_get(c, &cap_fields[i]));
    }
    fwpt_json_bool(&j, "subleaf1_known", c->subleaf1_known);
    fwpt_json_bool(&j, "pt_supported", c->pt_supported);
    fwpt_json_str(&j, "reason", fwpt_caps_reason_name(c->reason));
    fwpt_json_str(&j, "reason_msg", fwpt_caps_reason_msg(c->reason));
    fwpt_json_str(&j, "detail", c->detail);
    fwpt_json_str(&j, "note", c->note);
    struct fwpt_cpu_id id;
    fwpt_caps_cpu_id(c, &id);
    fwpt_json_key(&j, "errata");
    fwpt_errata_json(&id, o);
    fwpt_json_close(&j, '}');
    fwpt_putc(o, '\n');
}
