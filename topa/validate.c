/* fwpt — validation of output configuration (SDM "ToPA Errors", "Single-Range Output Errors",
 * "Restricted Memory Access"). */
#include "topa/validate.h"
#include "base/text.h"

#define TABLE_ALIGN_MASK 0xfffull

static const char *const rule_names[] = {
#define RULE_NAME(n, t) #n,
    FWPT_TOPA_RULE_LIST(RULE_NAME)
#undef RULE_NAME
};
static const char *const rule_texts[] = {
#define RULE_TEXT(n, t) t,
    FWPT_TOPA_RULE_LIST(RULE_TEXT)
#undef RULE_TEXT
};

const char *fwpt_topa_rule_name(enum fwpt_topa_rule r) { return r < FWPT_RULE_COUNT ? rule_names[r] : "?"; }
const char *fwpt_topa_rule_text(enum fwpt_topa_rule r) { return r < FWPT_RULE_COUNT ? rule_texts[r] : "?"; }

static uint32_t maxphy(const struct fwpt_caps *c) { return c->maxphyaddr ? c->maxphyaddr : 36; }
static uint64_t above_maxphy_mask(uint32_t m) { return m >= 64 ? 0 : ~(FWPT_BIT(m) - 1); }
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

bool fwpt_restricted_apic(const struct fwpt_restricted *r, uint64_t base, uint64_t len)
{
    return r && r->have_apic && overlaps(base, len, r->apic_base_msr & APIC_BASE_ADDR, APIC_PAGE_SIZE);
}

/* SMRR covers [PhysBase & PhysMask, + ~PhysMask + 1) below 4G (contiguous mask, as SMM code sets it). */
bool fwpt_restricted_smrr(const struct fwpt_restricted *r, uint64_t base, uint64_t len)
{
    if (!r || !r->have_smrr || !(r->smrr_physmask & SMRR_PHYSMASK_VALID))
        return false;
    uint64_t mask = r->smrr_physmask & SMRR_PHYSMASK_MASK;
    uint64_t start = r->smrr_physbase & mask;
    uint64_t size = (~mask & 0xffffffffull) + 1;
    return overlaps(base, len, start, size);
}

static bool var_range(const struct fwpt_restricted *r, unsigned i, uint32_t maxphyaddr, uint64_t *start, uint64_t *size)
{
    if (!(r->mtrr_physmask[i] & MTRR_PHYSMASK_VALID))
        return false;
    uint64_t addr_mask = FWPT_FIELD(maxphyaddr - 1, 12);
    uint64_t mask = r->mtrr_physmask[i] & addr_mask;
    *start = r->mtrr_physbase[i] & mask;
    *size = (~mask & addr_mask) + 0x1000;
    return true;
}

/* The type the fixed-range MTRRs give the byte at addr (< 1 MiB). */
static unsigned fixed_type(const struct fwpt_restricted *r, uint64_t addr)
{
    unsigned reg, sub;
    if (addr < 0x80000) { /* FIX64K_00000 */
        reg = 0;
        sub = (unsigned)(addr >> 16);
    } else if (addr < 0xc0000) { /* FIX16K_80000, FIX16K_A0000 */
        reg = 1 + (unsigned)((addr - 0x80000) >> 17);
        sub = (unsigned)((addr >> 14) & 7);
    } else { /* FIX4K_C0000 .. FIX4K_F8000 */
        reg = 3 + (unsigned)((addr - 0xc0000) >> 15);
        sub = (unsigned)((addr >> 12) & 7);
    }
    return (unsigned)(r->mtrr_fixed[reg] >> (8 * sub)) & 0xff;
}

/* SDM "MTRR Precedences": MTRRs disabled (E clear) make all memory UC; below 1 MiB the fixed-range MTRRs decide
 * when enabled (FE); elsewhere a UC variable range wins, then WB ranges, then the default type. */
bool fwpt_restricted_uc(const struct fwpt_restricted *r, uint64_t base, uint64_t len, uint32_t maxphyaddr)
{
    if (!r || !r->have_mtrr || !len)
        return false;
    if (!(r->mtrr_def_type & MTRR_DEF_TYPE_E))
        return true;
    if (!maxphyaddr)
        maxphyaddr = 36;
    if ((r->mtrr_def_type & MTRR_DEF_TYPE_FE) && r->have_fixed && base < 0x100000) {
        /* the fixed ranges' sub-ranges are at least 4K: one look per 4K page below 1 MiB */
        uint64_t end = base + len < 0x100000 ? base + len : 0x100000;
        for (uint64_t a = base & ~0xfffull; a < end; a += 0x1000)
            if (fixed_type(r, a) == MTRR_TYPE_UC)
                return true;
        if (base + len <= 0x100000)
            return false;
        len -= 0x100000 - base;
        base = 0x100000;
    }
    bool covered_wb = false;
    for (unsigned i = 0; i < r->n_var && i < FWPT_MAX_VAR_MTRR; i++) {
        uint64_t s, z;
        if (!var_range(r, i, maxphyaddr, &s, &z) || !overlaps(base, len, s, z))
            continue;
        unsigned type = (unsigned)FWPT_GET(MTRR_PHYSBASE_TYPE, r->mtrr_physbase[i]);
        if (type == MTRR_TYPE_UC)
            return true; /* UC wins over every other type (SDM "Precedences of Cache Types") */
        if (type == MTRR_TYPE_WB && base >= s && base + len <= s + z)
            covered_wb = true;
    }
    return !covered_wb && FWPT_GET(MTRR_DEF_TYPE_TYPE, r->mtrr_def_type) == MTRR_TYPE_UC;
}

enum fwpt_topa_rule fwpt_topa_check_entry(const struct fwpt_caps *caps, uint64_t table_base, uint64_t index,
                                          uint64_t raw, bool check_offset, uint64_t output_offset)
{
    struct fwpt_topa_entry e;
    fwpt_topa_decode(raw, &e);
    bool single = !caps->topa_multiple_entries;
    if (e.reserved)
        return FWPT_RULE_RESERVED_BITS;
    if (e.base & above_maxphy_mask(maxphy(caps)))
        return FWPT_RULE_ADDR_MAXPHYADDR;
    if (e.end) {
        if (e.stop || e.intr)
            return FWPT_RULE_END_STOP_INT;
        if (index == 0)
            return FWPT_RULE_END_ENTRY0;
        if (single && e.base != table_base)
            return FWPT_RULE_SINGLE_END_BASE;
        return FWPT_RULE_COUNT;
    }
    if (single && index >= 1)
        return FWPT_RULE_SINGLE_NOT_END;
    uint64_t size = fwpt_topa_size_bytes(e.size_enc);
    if (e.base & (size - 1))
        return FWPT_RULE_REGION_ALIGN;
    if (check_offset && output_offset >= size)
        return FWPT_RULE_OUTPUT_OFFSET;
    return FWPT_RULE_COUNT;
}

static bool is_warning(enum fwpt_topa_rule r)
{
    return r == FWPT_RULE_UC_MEMORY || r == FWPT_RULE_STATUS_SET || r == FWPT_RULE_WALK_LIMIT;
}

static enum fwpt_status rule_status(enum fwpt_topa_rule r)
{
    switch (r) {
    case FWPT_RULE_SR_MASK:
    case FWPT_RULE_SR_BASE_MASK:
    case FWPT_RULE_SR_OFFSET:
        return FWPT_E_SINGLE_RANGE;
    case FWPT_RULE_APIC_PAGE:
    case FWPT_RULE_SMRR:
        return FWPT_E_RESTRICTED;
    default:
        return FWPT_E_TOPA;
    }
}

#define MAX_SEEN_TABLES 256
struct vctx {
    struct fwpt_validate_out *out;
    enum fwpt_status status;
    bool quiet; /* second pass: only the region/table overlap check reports */
    unsigned n_ext;
    struct {
        uint64_t base, end;
    } ext[MAX_SEEN_TABLES]; /* the part of each table the walk read */
};

static void report(struct vctx *c, enum fwpt_topa_rule r, uint64_t table, uint32_t entry, uint64_t value)
{
    if (c->quiet && r != FWPT_RULE_REGION_OVER_TABLE)
        return;
    struct fwpt_violation v = {r, is_warning(r), table, entry, value};
    if (c->out->count < c->out->cap)
        c->out->v[c->out->count] = v;
    c->out->count++;
    if (!v.warning) {
        c->out->errors++;
        if (c->status == FWPT_OK)
            c->status = rule_status(r);
    }
}

static void first_error(struct vctx *c, enum fwpt_topa_rule r, uint64_t table, uint32_t entry, uint64_t value)
{
    if (!c->quiet && !c->out->has_first) {
        c->out->has_first = true;
        c->out->first = (struct fwpt_violation){r, false, table, entry, value};
    }
}

/* Returns true when the range overlaps SMRR (an operational error once output reaches it). */
static bool check_restricted(struct vctx *c, const struct fwpt_validate_in *in, uint64_t base, uint64_t len,
                             uint64_t table, uint32_t entry, uint64_t value, bool is_output)
{
    const struct fwpt_restricted *r = in->restricted;
    if (!r)
        return false;
    bool smrr = fwpt_restricted_smrr(r, base, len);
    if (fwpt_restricted_apic(r, base, len))
        report(c, FWPT_RULE_APIC_PAGE, table, entry, value);
    if (smrr)
        report(c, FWPT_RULE_SMRR, table, entry, value);
    if (is_output && fwpt_restricted_uc(r, base, len, maxphy(in->caps)))
        report(c, FWPT_RULE_UC_MEMORY, table, entry, value);
    return smrr;
}

static void record_extent(struct vctx *c, uint64_t table, uint64_t index)
{
    uint64_t end = fwpt_topa_entry_addr(table, index + 1);
    for (unsigned i = 0; i < c->n_ext; i++)
        if (c->ext[i].base == table) {
            if (end > c->ext[i].end)
                c->ext[i].end = end;
            return;
        }
    if (c->n_ext < MAX_SEEN_TABLES) {
        c->ext[c->n_ext].base = table;
        c->ext[c->n_ext].end = end;
        c->n_ext++;
    }
}

static void validate_topa(struct vctx *c, const struct fwpt_validate_in *in)
{
    const struct fwpt_caps *caps = in->caps;
    uint64_t table = in->output_base;
    uint64_t index = fwpt_mask_ptrs_index(in->output_mask_ptrs);
    uint64_t offset = fwpt_mask_ptrs_offset(in->output_mask_ptrs);
    if (table & TABLE_ALIGN_MASK) {
        report(c, FWPT_RULE_TABLE_ALIGN, table, FWPT_NO_ENTRY, in->output_base);
        first_error(c, FWPT_RULE_TABLE_ALIGN, table, FWPT_NO_ENTRY, in->output_base);
        return;
    }
    uint64_t start_table = table, start_index = index;
    uint64_t seen[MAX_SEEN_TABLES];
    unsigned n_seen = 0;
    uint64_t reported_table = ~0ull;
    /* With Stopped or Error already set TriggerEn stays 0: the current entry is never used. */
    bool check_offset = !(in->status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR));
    unsigned limit = in->max_steps ? in->max_steps : (1u << 20);
    for (unsigned step = 0;; step++) {
        if (step >= limit) {
            report(c, FWPT_RULE_WALK_LIMIT, table, (uint32_t)index, 0);
            return;
        }
        uint64_t addr = fwpt_topa_entry_addr(table, index), raw;
        if (!fwpt_physmem_read64(in->mem, addr, &raw)) {
            report(c, FWPT_RULE_UNMAPPED, table, (uint32_t)index, addr);
            first_error(c, FWPT_RULE_UNMAPPED, table, (uint32_t)index, addr);
            return;
        }
        if (!c->quiet)
            record_extent(c, table, index);
        if (fwpt_restricted_smrr(in->restricted, addr, TOPA_ENTRY_SIZE_BYTES)) {
            /* Table 'Restricted Memory': the ToPA read pointer entering SMRR is an error. */
            report(c, FWPT_RULE_SMRR, table, (uint32_t)index, raw);
            first_error(c, FWPT_RULE_SMRR, table, (uint32_t)index, raw);
            return;
        }
        if (table != reported_table && in->restricted) {
            reported_table = table; /* the table itself, once per table */
            if (fwpt_restricted_apic(in->restricted, addr, TOPA_ENTRY_SIZE_BYTES))
                report(c, FWPT_RULE_APIC_PAGE, table, (uint32_t)index, raw);
        }
        struct fwpt_topa_entry e;
        fwpt_topa_decode(raw, &e);
        bool fatal = false;
        /* Every rule this entry breaks (the processor reports the first; we name them all). */
        if (e.reserved) {
            report(c, FWPT_RULE_RESERVED_BITS, table, (uint32_t)index, raw);
            fatal = true;
        }
        if (e.base & above_maxphy_mask(maxphy(caps))) {
            report(c, FWPT_RULE_ADDR_MAXPHYADDR, table, (uint32_t)index, raw);
            fatal = true;
        }
        if (e.end) {
            if (e.stop || e.intr) {
                report(c, FWPT_RULE_END_STOP_INT, table, (uint32_t)index, raw);
                fatal = true;
            }
            if (index == 0) {
                report(c, FWPT_RULE_END_ENTRY0, table, (uint32_t)index, raw);
                fatal = true;
            }
            if (!caps->topa_multiple_entries && e.base != in->output_base) {
                report(c, FWPT_RULE_SINGLE_END_BASE, table, (uint32_t)index, raw);
                fatal = true;
            }
        } else {
            uint64_t size = fwpt_topa_size_bytes(e.size_enc);
            if (!caps->topa_multiple_entries && index >= 1) {
                report(c, FWPT_RULE_SINGLE_NOT_END, table, (uint32_t)index, raw);
                fatal = true;
            }
            if (e.base & (size - 1)) {
                report(c, FWPT_RULE_REGION_ALIGN, table, (uint32_t)index, raw);
                fatal = true;
            }
            if (check_offset && offset >= size) {
                report(c, FWPT_RULE_OUTPUT_OFFSET, table, (uint32_t)index, raw);
                fatal = true;
            }
            if (c->quiet) {
                /* second pass: the output must not overwrite any table the walk read */
                for (unsigned t = 0; t < c->n_ext; t++)
                    if (overlaps(e.base, size, c->ext[t].base, c->ext[t].end - c->ext[t].base)) {
                        report(c, FWPT_RULE_REGION_OVER_TABLE, table, (uint32_t)index, raw);
                        break;
                    }
            }
            if (!c->quiet && check_restricted(c, in, e.base, size, table, (uint32_t)index, raw, true) && !fatal) {
                /* the output pointer reaches SMRR inside this region: error there */
                first_error(c, FWPT_RULE_SMRR, table, (uint32_t)index, raw);
                return;
            }
        }
        if (fatal) {
            enum fwpt_topa_rule r = fwpt_topa_check_entry(caps, in->caps->topa_multiple_entries ? table : in->output_base,
                                                          index, raw, check_offset, offset);
            first_error(c, r, table, (uint32_t)index, raw);
            return; /* the processor stops tracing here: later entries are never reached */
        }
        check_offset = false;
        if (e.end) {
            for (unsigned i = 0; i < n_seen; i++)
                if (seen[i] == e.base)
                    return; /* loop closed: every reachable entry was checked */
            if (n_seen < MAX_SEEN_TABLES)
                seen[n_seen++] = e.base;
            table = e.base;
            index = 0;
            if (table == start_table && start_index == 0)
                return;
            continue;
        }
        if (e.stop)
            return; /* the region fills, tracing stops */
        index++;
        if (index * TOPA_ENTRY_SIZE_BYTES > RTIT_TABLE_OFFSET_MAX)
            index = 0; /* maximum table size: wrap to the table's first entry */
        if (table == start_table && index == start_index)
            return;
    }
}

static void validate_single_range(struct vctx *c, const struct fwpt_validate_in *in)
{
    uint64_t base = in->output_base;
    uint64_t mask = (in->output_mask_ptrs & RTIT_MASK_PTRS_MASK) | RTIT_MASK_LOWERMASK;
    uint64_t offset = fwpt_mask_ptrs_offset(in->output_mask_ptrs);
    enum fwpt_topa_rule first = FWPT_RULE_COUNT;
    if (mask & (mask + 1)) {
        report(c, FWPT_RULE_SR_MASK, base, FWPT_NO_ENTRY, in->output_mask_ptrs);
        first = FWPT_RULE_SR_MASK;
    }
    if (base & mask) {
        report(c, FWPT_RULE_SR_BASE_MASK, base, FWPT_NO_ENTRY, in->output_mask_ptrs);
        if (first == FWPT_RULE_COUNT)
            first = FWPT_RULE_SR_BASE_MASK;
    }
    if (offset > mask) {
        report(c, FWPT_RULE_SR_OFFSET, base, FWPT_NO_ENTRY, in->output_mask_ptrs);
        if (first == FWPT_RULE_COUNT)
            first = FWPT_RULE_SR_OFFSET;
    }
    if (first != FWPT_RULE_COUNT) {
        first_error(c, first, base, FWPT_NO_ENTRY, in->output_mask_ptrs);
        return;
    }
    if (check_restricted(c, in, base & ~mask, mask + 1, base, FWPT_NO_ENTRY, in->output_mask_ptrs, true))
        first_error(c, FWPT_RULE_SMRR, base, FWPT_NO_ENTRY, in->output_mask_ptrs);
}

enum fwpt_status fwpt_validate(const struct fwpt_validate_in *in, struct fwpt_validate_out *out)
{
    struct vctx c;
    fwpt_memset(&c, 0, sizeof c);
    c.out = out;
    c.status = FWPT_OK;
    out->count = out->errors = 0;
    out->has_first = false;
    const struct fwpt_caps *caps = in->caps;
    bool topa = (in->ctl & RTIT_CTL_TOPA) != 0;
    if (in->output_base & (RTIT_OUTPUT_BASE_RESERVED_LOW | above_maxphy_mask(maxphy(caps))))
        report(&c, FWPT_RULE_OUTPUT_BASE_GP, in->output_base, FWPT_NO_ENTRY, in->output_base);
    if ((in->ctl & RTIT_CTL_FABRICEN) || (topa && !caps->topa_output) || (!topa && !caps->single_range_output))
        report(&c, FWPT_RULE_CTL_SCHEME, in->output_base, FWPT_NO_ENTRY, in->ctl);
    if (in->status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))
        report(&c, FWPT_RULE_STATUS_SET, in->output_base, FWPT_NO_ENTRY, in->status);
    if (c.status != FWPT_OK)
        return c.status; /* the WRMSR itself would fault: the tables are never reached */
    if (topa) {
        validate_topa(&c, in);
        c.quiet = true; /* the tables are known now: check the regions against them */
        validate_topa(&c, in);
    }
    else
        validate_single_range(&c, in);
    return c.status;
}
