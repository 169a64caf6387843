/* fwpt — replay CPU backend and built-in CPU profiles. Freestanding. */
#include "arch/cpu_replay.h"
#include "base/text.h"

#define LEAF_EXT_BASE 0x80000000u
#define LEAF_EXT_ADDR 0x80000008u

/* Values copied from rows of tests/data/cpuid_leaf14.tsv (columns max_basic_leaf, vendor,
 * family_model_stepping, leaf7_ebx, l14_0_*, l14_1_*, leaf_1a_eax, leaf_80000008_eax). */
static const struct fwpt_cpu_profile profiles[] = {
    /* Broadwell: CPUID.(14H,0):EAX = 0 (no subleaf 1), single-entry ToPA only, CR3 filtering only. */
    {"broadwell", "Intel(R) Core(TM) i7-5600U CPU @ 2.60GHz", "6/61/4",
     "src/VBox/VMM/VMMR3/cpus/Intel_Core_i7_5600U.h", 0x14, "GenuineIntel", 0x000306d4, 0x021c2fbb,
     {0x00000000, 0x00000001, 0x00000001, 0x00000000}, {0, 0, 0, 0}, 0, 0x00003027},
    {"skylake", "Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz", "6/94/3",
     "src/VBox/VMM/VMMR3/cpus/Intel_Core_i7_6700K.h", 0x16, "GenuineIntel", 0x000506e3, 0x029c6fbf,
     {0x00000001, 0x0000000f, 0x00000007, 0x00000000}, {0x02490002, 0x003f3fff, 0x00000000, 0x00000000}, 0,
     0x00003027},
    {"skylake-sp", "Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz", "6/85/4",
     "tests/intel/x86-64/skylake/intel-xeon-gold-6154-cpu-dual.test.xz", 0x16, "GenuineIntel", 0x00050654,
     0xd39ffffb, {0x00000001, 0x0000000f, 0x00000007, 0x00000000},
     {0x02490002, 0x003f3fff, 0x00000000, 0x00000000}, 0, 0x0000302e},
    {"goldmont", "Intel(R) Celeron(R) CPU J3455 @ 1.50GHz", "6/92/9",
     "tests/intel/x86-atom/goldmont/intel-celeron-cpu-j3455.test", 0x15, "GenuineIntel", 0x000506c9,
     0x2294e283, {0x00000001, 0x0000000f, 0x80000007, 0x00000000},
     {0x02490002, 0x003fffff, 0x00000000, 0x00000000}, 0, 0x00003027},
    {"goldmont-plus", "Intel(R) Celeron(R) J4105 CPU @ 1.50GHz", "6/122/1",
     "tests/intel/x86-atom/goldmont-plus/intel-celeron-j4105-cpu.test", 0x18, "GenuineIntel", 0x000706a1,
     0x2294e287, {0x00000001, 0x0000003f, 0x80000007, 0x00000000},
     {0x02490002, 0x003fffff, 0x00000000, 0x00000000}, 0, 0x00003027},
    {"tremont", "Intel(R) Celeron(R) N5100 @ 1.10GHz", "6/156/0",
     "tests/intel/x86-atom/tremont/intel-celeron-n5100.test", 0x1b, "GenuineIntel", 0x000906c0, 0x2394a2c3,
     {0x00000001, 0x0000007f, 0x80000007, 0x00000000}, {0x02490002, 0x003fffff, 0x00000000, 0x00000000},
     0x20000000, 0x00003027},
    {"tigerlake", "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", "6/140/1",
     "tests/intel/x86-64/willow-cove/11th-gen-intel-core-i7-1165g7.test", 0x1b, "GenuineIntel", 0x000806c1,
     0xf3bfa7eb, {0x00000001, 0x0000004f, 0x00000007, 0x00000000},
     {0x02490002, 0x003f1fff, 0x00000000, 0x00000000}, 0x00000000, 0x00003027},
    {"alderlake-p", "12th Gen Intel(R) Core(TM) i9-12900K", "6/151/2",
     "tests/intel/x86-64/golden-cove/12th-gen-intel-core-i9-12900k.test", 0x20, "GenuineIntel", 0x00090672,
     0x239ca7eb, {0x00000001, 0x0000005f, 0x00000007, 0x00000000},
     {0x02490002, 0x003f003f, 0x00000000, 0x00000000}, 0x40000001, 0x0000302e},
    {"gracemont-e", "12th Gen Intel(R) Core(TM) i9-12900K", "6/151/2",
     "tests/intel/x86-64/golden-cove/12th-gen-intel-core-i9-12900k.test", 0x20, "GenuineIntel", 0x00090672,
     0x239ca7eb, {0x00000001, 0x0000005f, 0x80000007, 0x00000000},
     {0x02490002, 0x003f1fff, 0x00000000, 0x00000000}, 0x20000001, 0x0000302e},
    {"alderlake-n", "Intel(R) Core(TM) i3-N305", "6/190/0", "tests/intel/x86-atom/gracemont/intel-core-i3-n305.test",
     0x20, "GenuineIntel", 0x000b06e0, 0x239ca7eb, {0x00000001, 0x000001ff, 0x80000007, 0x00000000},
     {0x02490002, 0x003fffff, 0x00000000, 0x00000000}, 0x20000001, 0x00003027},
    {"arrowlake-p", "Intel(R) Core(TM) Ultra 5 245K", "6/198/2",
     "tests/intel/x86-64/lion-cove/intel-core-ultra-5-245k.test", 0x23, "GenuineIntel", 0x000c0662, 0x239ca7eb,
     {0x00000001, 0x0000015f, 0x00000007, 0x00000000}, {0x02490002, 0x003f003f, 0x00000000, 0x00000000},
     0x40000003, 0x0000302e},
    {"arrowlake-e", "Intel(R) Core(TM) Ultra 5 245K", "6/198/2",
     "tests/intel/x86-64/lion-cove/intel-core-ultra-5-245k.test", 0x23, "GenuineIntel", 0x000c0662, 0x239ca7eb,
     {0x00000001, 0x0000015f, 0x80000007, 0x00000000}, {0x02490002, 0x003f003f, 0x00000000, 0x00000000},
     0x20000003, 0x0000302e},
    /* Comet Lake with CPUID.(7,0):EBX[25] clear yet leaf 14H filled: not usable (leaf 7 rules). */
    {"cometlake-nopt", "Intel(R) Core(TM) i5-10600K CPU @ 4.10GHz", "6/165/5",
     "tests/intel/x86-64/skylake/intel-core-i5-10600k-cpu.test", 0x16, "GenuineIntel", 0x000a0655, 0x009c67ab,
     {0x00000001, 0x0000000f, 0x00000003, 0x00000000}, {0x02490002, 0x003f3fff, 0x00000000, 0x00000000}, 0,
     0x00003027},
    /* Haswell: no PT, max basic leaf 0DH. */
    {"haswell", "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz", "6/60/3",
     "tests/intel/x86-64/haswell/intel-core-i7-4770-cpu.test", 0x0d, "GenuineIntel", 0x000306c3, 0x000027ab,
     {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0x00003027},
    {"amd-zen3", "AMD EPYC 7713 64-Core Processor", "25/1/1", "tests/amd/zen3/amd-epyc-7713-64-core-processor.test.xz",
     0x10, "AuthenticAMD", 0x00a00f11, 0x219c97a9, {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0x00003030},
};

size_t fwpt_cpu_profile_count(void) { return sizeof profiles / sizeof profiles[0]; }

const struct fwpt_cpu_profile *fwpt_cpu_profile_at(size_t i)
{
    return i < fwpt_cpu_profile_count() ? &profiles[i] : NULL;
}

const struct fwpt_cpu_profile *fwpt_cpu_profile_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < fwpt_cpu_profile_count(); i++)
        if (fwpt_strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

void fwpt_cpu_profile_snapshot(const struct fwpt_cpu_profile *p, struct fwpt_cpuid_snapshot *s)
{
    fwpt_memset(s, 0, sizeof *s);
    s->max_basic_leaf = p->max_basic_leaf;
    fwpt_memcpy(s->vendor, p->vendor, 12);
    s->leaf1_eax = p->leaf1_eax;
    if (p->max_basic_leaf >= 0x7)
        s->leaf7_ebx = p->leaf7_ebx;
    if (p->max_basic_leaf >= 0x14) {
        s->has_leaf14_0 = true;
        s->leaf14_0 = p->leaf14_0;
        if (p->leaf14_0.eax >= 1) {
            s->has_leaf14_1 = true;
            s->leaf14_1 = p->leaf14_1;
        }
    }
    if (p->max_basic_leaf >= 0x1a) {
        s->has_leaf1a = true;
        s->leaf1a_eax = p->leaf1a_eax;
    }
    s->max_ext_leaf = LEAF_EXT_ADDR;
    s->maxphyaddr = p->leaf80000008_eax & 0xffu;
}

/* ---- the backend ---- */

static void vendor_regs(const char *vendor, struct fwpt_cpuid_regs *r)
{
    uint32_t w[3] = {0, 0, 0};
    for (int i = 0; i < 12 && vendor[i]; i++)
        w[i / 4] |= (uint32_t)(unsigned char)vendor[i] << (8 * (i % 4));
    r->ebx = w[0]; /* "Genu" */
    r->edx = w[1]; /* "ineI" */
    r->ecx = w[2]; /* "ntel" */
}

static const struct fwpt_cpuid_entry *lookup(const struct fwpt_replay *r, uint32_t leaf, uint32_t subleaf)
{
    for (unsigned i = 0; i < r->n_entries; i++)
        if (r->entries[i].leaf == leaf &&
            (r->entries[i].subleaf == subleaf || r->entries[i].subleaf == FWPT_CPUID_ANY_SUBLEAF))
            return &r->entries[i];
    return NULL;
}

static void derive_max(struct fwpt_replay *r)
{
    const struct fwpt_cpuid_entry *e0 = lookup(r, 0, 0), *ext = lookup(r, LEAF_EXT_BASE, 0);
    struct fwpt_cpuid_regs intel;
    vendor_regs("GenuineIntel", &intel);
    r->max_basic_leaf = e0 ? e0->regs.eax : 0;
    r->intel = e0 && e0->regs.ebx == intel.ebx && e0->regs.edx == intel.edx && e0->regs.ecx == intel.ecx;
    r->max_ext_leaf = ext ? ext->regs.eax : 0;
}

enum fwpt_status fwpt_replay_init_table(struct fwpt_replay *r, const struct fwpt_cpuid_entry *e, unsigned n)
{
    fwpt_memset(r, 0, sizeof *r);
    if (n > FWPT_REPLAY_MAX_ENTRIES)
        return FWPT_E_NOMEM;
    fwpt_memcpy(r->entries, e, n * sizeof *e);
    r->n_entries = n;
    if (!lookup(r, 0, 0))
        return FWPT_E_INVAL;
    derive_max(r);
    return FWPT_OK;
}

static void add(struct fwpt_replay *r, uint32_t leaf, uint32_t subleaf, uint32_t a, uint32_t b, uint32_t c,
                uint32_t d)
{
    struct fwpt_cpuid_entry *e = &r->entries[r->n_entries++];
    e->leaf = leaf;
    e->subleaf = subleaf;
    e->regs.eax = a;
    e->regs.ebx = b;
    e->regs.ecx = c;
    e->regs.edx = d;
}

void fwpt_replay_init_snapshot(struct fwpt_replay *r, const struct fwpt_cpuid_snapshot *s)
{
    struct fwpt_cpuid_regs v = {0, 0, 0, 0};
    fwpt_memset(r, 0, sizeof *r);
    vendor_regs(s->vendor, &v);
    add(r, 0, FWPT_CPUID_ANY_SUBLEAF, s->max_basic_leaf, v.ebx, v.ecx, v.edx);
    add(r, 1, FWPT_CPUID_ANY_SUBLEAF, s->leaf1_eax, 0, 0, 0);
    add(r, 7, 0, 0, s->leaf7_ebx, 0, 0);
    if (s->has_leaf14_0) {
        add(r, 0x14, 0, s->leaf14_0.eax, s->leaf14_0.ebx, s->leaf14_0.ecx, s->leaf14_0.edx);
        if (s->has_leaf14_1)
            add(r, 0x14, 1, s->leaf14_1.eax, s->leaf14_1.ebx, s->leaf14_1.ecx, s->leaf14_1.edx);
    }
    if (s->has_leaf1a)
        add(r, 0x1a, FWPT_CPUID_ANY_SUBLEAF, s->leaf1a_eax, 0, 0, 0);
    if (s->max_ext_leaf || s->maxphyaddr) {
        uint32_t max_ext = s->max_ext_leaf ? s->max_ext_leaf : LEAF_EXT_ADDR;
        if (s->maxphyaddr && max_ext < LEAF_EXT_ADDR)
            max_ext = LEAF_EXT_ADDR;
        add(r, LEAF_EXT_BASE, FWPT_CPUID_ANY_SUBLEAF, max_ext, 0, 0, 0);
        if (s->maxphyaddr)
            add(r, LEAF_EXT_ADDR, FWPT_CPUID_ANY_SUBLEAF, s->maxphyaddr, 0, 0, 0);
    }
    derive_max(r);
}

void fwpt_replay_init_profile(struct fwpt_replay *r, const struct fwpt_cpu_profile *p)
{
    struct fwpt_cpuid_snapshot s;
    fwpt_cpu_profile_snapshot(p, &s);
    fwpt_replay_init_snapshot(r, &s);
    /* keep the full recorded 80000008H:EAX (linear address bits in [15:8]) */
    for (unsigned i = 0; i < r->n_entries; i++)
        if (r->entries[i].leaf == LEAF_EXT_ADDR)
            r->entries[i].regs.eax = p->leaf80000008_eax;
}

enum fwpt_status fwpt_replay_cpuid(struct fwpt_replay *r, uint32_t leaf, uint32_t subleaf,
                                   struct fwpt_cpuid_regs *out)
{
    const struct fwpt_cpuid_entry *e;
    if (r->n_asked < FWPT_REPLAY_LOG) {
        r->asked_leaf[r->n_asked] = leaf;
        r->asked_subleaf[r->n_asked] = subleaf;
    }
    r->n_asked++;
    fwpt_memset(out, 0, sizeof *out);
    /* SDM CPUID: an input above the max basic or extended leaf returns the highest basic leaf's
     * data on Intel; AMD documents zeros. */
    if ((leaf < LEAF_EXT_BASE && leaf > r->max_basic_leaf) ||
        (leaf >= LEAF_EXT_BASE && (r->max_ext_leaf < LEAF_EXT_BASE || leaf > r->max_ext_leaf))) {
        if (!r->intel)
            return FWPT_OK;
        leaf = r->max_basic_leaf;
    }
    e = lookup(r, leaf, subleaf);
    if (e)
        *out = e->regs;
    return FWPT_OK; /* a leaf the recording does not hold reads as zeros (reserved) */
}

static enum fwpt_status replay_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    return fwpt_replay_cpuid((struct fwpt_replay *)ctx, leaf, subleaf, out);
}

static enum fwpt_status replay_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)msr;
    ((struct fwpt_replay *)ctx)->n_rdmsr++;
    *value = 0;
    return FWPT_E_FAULT; /* a recording has no MSRs: #GP, as on a CPU without them */
}

static enum fwpt_status replay_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    (void)msr;
    (void)value;
    ((struct fwpt_replay *)ctx)->n_wrmsr++;
    return FWPT_E_FAULT;
}

struct fwpt_cpu fwpt_replay_cpu(struct fwpt_replay *r)
{
    struct fwpt_cpu c = {"replay", r, replay_cpuid, replay_rdmsr, replay_wrmsr, NULL};
    return c;
}

const struct fwpt_cpu_profile *fwpt_cpu_profile_closest(const struct fwpt_cpu_id *id, bool *matched)
{
    const struct fwpt_cpu_profile *def = fwpt_cpu_profile_find(FWPT_PROFILE_DEFAULT);
    *matched = false;
    if (!id->known || !id->intel)
        return def;
    for (size_t i = 0; i < fwpt_cpu_profile_count(); i++) {
        struct fwpt_cpuid_snapshot snap;
        struct fwpt_caps caps;
        fwpt_cpu_profile_snapshot(&profiles[i], &snap);
        fwpt_caps_parse(&snap, &caps);
        /* only a profile whose processor has Intel PT can be emulated by the software tracer */
        if (caps.pt_supported && caps.family == id->family && caps.model == id->model) {
            *matched = true;
            return &profiles[i];
        }
    }
    return def;
}
