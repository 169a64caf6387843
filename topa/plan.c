/* fwpt — output plan (SDM "Trace Output": single range, ToPA, single output region ToPA). */
#include "topa/plan.h"

#define PLAN_TABLE_PAGE 0x1000ull

static enum fwpt_status refuse(struct fwpt_plan_error *err, const char *option, const char *why)
{
    if (err) {
        err->option = option;
        err->why = why;
        err->has_value = false;
    }
    return FWPT_E_PLAN;
}

/* A refused setting with its value (the size it was given, or defaulted to). */
static enum fwpt_status refuse_value(struct fwpt_plan_error *err, const char *option, uint64_t value, const char *why)
{
    refuse(err, option, why);
    if (err) {
        err->value = value;
        err->has_value = true;
    }
    return FWPT_E_PLAN;
}

static void warn(struct fwpt_plan *p, const char *w)
{
    if (p->n_warnings < FWPT_PLAN_MAX_WARNINGS)
        p->warnings[p->n_warnings++] = w;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

enum fwpt_status fwpt_plan_make(const struct fwpt_caps *caps, const struct fwpt_plan_options *opt,
                                struct fwpt_plan *p, struct fwpt_plan_error *err)
{
    fwpt_memset(p, 0, sizeof *p);
    if (err)
        *err = (struct fwpt_plan_error){0};
    /* not a setting: the processor (option NULL) */
    if (!caps->pt_supported)
        return refuse(err, NULL, "Intel PT is not usable on this processor");
    uint64_t total = opt->total_size ? opt->total_size : FWPT_PLAN_DEFAULT_TOTAL;
    p->total_size = total;
    p->mode = opt->mode;
    if (opt->mode != FWPT_PLAN_STOP && opt->mode != FWPT_PLAN_RING)
        return refuse(err, "mode", "must be stop or ring");

    if (opt->single_range) {
        if (!caps->single_range_output)
            return refuse(err, "single-range", "CPUID.(14H,0):ECX[2] (single-range output) is clear");
        p->scheme = FWPT_SCHEME_SINGLE_RANGE;
    } else if (caps->topa_output && caps->topa_multiple_entries) {
        p->scheme = FWPT_SCHEME_TOPA_MULTI;
    } else if (caps->topa_output) {
        p->scheme = FWPT_SCHEME_TOPA_SINGLE;
    } else if (caps->single_range_output) {
        p->scheme = FWPT_SCHEME_SINGLE_RANGE;
    } else {
        /* Trace transport (FabricEn) is platform-specific: never used. */
        return refuse(err, NULL, "neither ToPA nor single-range output is enumerated (trace transport is not used)");
    }

    unsigned e = opt->entries_per_table ? opt->entries_per_table : FWPT_PLAN_ENTRIES_PER_PAGE;
    if (e < 2 || e > FWPT_PLAN_ENTRIES_PER_PAGE)
        return refuse_value(err, "entries-per-table", e, "must be 2..512 (one END entry and at least one region in a 4K table)");

    switch (p->scheme) {
    case FWPT_SCHEME_TOPA_MULTI: {
        uint64_t region = opt->region_size ? opt->region_size
                                           : (total < FWPT_PLAN_DEFAULT_REGION ? total : FWPT_PLAN_DEFAULT_REGION);
        int enc = fwpt_topa_size_enc(region);
        /* a refusal names the setting that was given: a region size derived from the total is the total's fault */
        if (enc < 0 && opt->region_size)
            return refuse_value(err, "region", region, "must be a power of two from 4K to 128M (ToPA Size encodings 0..15)");
        if (enc < 0)
            return refuse_value(err, "size", total, "must be a power of two from 4K to 32K, or a multiple of 64K (the default region size)");
        if ((total < region || total % region) && !opt->total_size)
            return refuse_value(err, "region", region, "must divide the total size (2M by default)");
        if (total < region || total % region)
            return refuse_value(err, "size", total, opt->region_size ? "must be a non-zero multiple of the region size"
                                                                     : "must be a multiple of 64K (the default region size)");
        if (total / region > FWPT_PLAN_MAX_REGIONS)
            return refuse_value(err, "size", total, "more than 65536 regions: use a larger region size");
        p->region_size = region;
        p->region_size_enc = (unsigned)enc;
        p->region_count = (unsigned)(total / region);
        p->entries_per_table = e;
        p->table_count = fwpt_topa_tables_needed(p->region_count, e);
        break;
    }
    case FWPT_SCHEME_TOPA_SINGLE: {
        int enc = fwpt_topa_size_enc(total);
        if (enc < 0)
            return refuse_value(err, "size", total, "single-entry ToPA (CPUID.(14H,0):ECX[1]=0) has one region: a power of two from 4K to 128M");
        if (opt->region_size && opt->region_size != total)
            return refuse_value(err, "region", opt->region_size, "single-entry ToPA has exactly one region: it must equal the total size");
        p->region_size = total;
        p->region_size_enc = (unsigned)enc;
        p->region_count = 1;
        p->entries_per_table = 2;
        p->table_count = 1;
        break;
    }
    case FWPT_SCHEME_SINGLE_RANGE:
        if (!pow2(total) || total < PLAN_TABLE_PAGE || total > FWPT_SINGLE_RANGE_MAX)
            return refuse_value(err, "size", total, "single-range output needs a power of two from 4K to 2G (OutputMask is contiguous low ones)");
        if (opt->region_size && opt->region_size != total)
            return refuse_value(err, "region", opt->region_size, "single-range output is one range: the region must equal the total size");
        if (opt->pmi)
            return refuse(err, "pmi", "single-range output has no INT entry");
        p->region_size = total;
        p->region_count = 1;
        if (p->mode == FWPT_PLAN_STOP) {
            warn(p, "single-range output has no STOP: the buffer is a ring and keeps the newest bytes");
            p->mode = FWPT_PLAN_RING;
        }
        if (total > FWPT_SINGLE_RANGE_ERRATA_LIMIT)
            warn(p, "single-range output above 4 KiB: errata TGL052/ADL037/RPL017 (trace may contain incorrect data)");
        break;
    }
    p->stop_on_last = p->scheme != FWPT_SCHEME_SINGLE_RANGE && p->mode == FWPT_PLAN_STOP;
    p->int_on_last = p->scheme != FWPT_SCHEME_SINGLE_RANGE && opt->pmi;
    p->regions.what = "output region";
    p->regions.count = p->region_count;
    p->regions.bytes = p->region_size;
    p->regions.align = p->region_size; /* naturally aligned (ToPA: base[size-1:12] = 0; single range: base & mask = 0) */
    p->tables.what = "ToPA table";
    p->tables.count = p->table_count;
    p->tables.bytes = p->table_count ? PLAN_TABLE_PAGE : 0;
    p->tables.align = p->table_count ? PLAN_TABLE_PAGE : 0;
    p->ctl_bits = p->scheme == FWPT_SCHEME_SINGLE_RANGE ? 0 : RTIT_CTL_TOPA;
    return FWPT_OK;
}

enum fwpt_status fwpt_plan_apply(const struct fwpt_plan *plan, const struct fwpt_physmem *mem,
                                 const uint64_t *region_phys, const uint64_t *table_phys,
                                 struct fwpt_output_regs *regs)
{
    for (unsigned i = 0; i < plan->region_count; i++)
        if (region_phys[i] & (plan->region_size - 1))
            return FWPT_E_INVAL;
    regs->ctl_bits = plan->ctl_bits;
    if (plan->scheme == FWPT_SCHEME_SINGLE_RANGE) {
        regs->output_base = region_phys[0];
        /* OutputMask = size - 1 (contiguous low ones); OutputOffset 0. */
        regs->output_mask_ptrs = FWPT_PUT(RTIT_MASK_PTRS_MASK, plan->region_size - 1) | RTIT_MASK_LOWERMASK;
        return FWPT_OK;
    }
    struct fwpt_topa_layout l = {
        .region_count = plan->region_count,
        .region_phys = region_phys,
        .region_size_enc = plan->region_size_enc,
        .table_count = plan->table_count,
        .table_phys = table_phys,
        .entries_per_table = plan->entries_per_table,
        .stop_on_last = plan->stop_on_last,
        .int_on_last = plan->int_on_last,
        .single_entry = plan->scheme == FWPT_SCHEME_TOPA_SINGLE,
    };
    enum fwpt_status st = fwpt_topa_build(mem, &l);
    if (st != FWPT_OK)
        return st;
    regs->output_base = table_phys[0];
    regs->output_mask_ptrs = fwpt_mask_ptrs_make(0, 0);
    return FWPT_OK;
}

const char *fwpt_plan_scheme_name(enum fwpt_plan_scheme s)
{
    switch (s) {
    case FWPT_SCHEME_TOPA_MULTI: return "ToPA (multiple entries)";
    case FWPT_SCHEME_TOPA_SINGLE: return "ToPA (single output region)";
    case FWPT_SCHEME_SINGLE_RANGE: return "single-range output";
    }
    return "?";
}

const char *fwpt_plan_mode_name(enum fwpt_plan_mode m) { return m == FWPT_PLAN_STOP ? "stop" : "ring"; }

static void put_size(const struct fwpt_sink *o, uint64_t v)
{
    if (v >= (1ull << 20) && !(v & ((1ull << 20) - 1))) {
        fwpt_put_dec(o, v >> 20);
        fwpt_putc(o, 'M');
    } else if (v >= 1024 && !(v & 1023)) {
        fwpt_put_dec(o, v >> 10);
        fwpt_putc(o, 'K');
    } else {
        fwpt_put_dec(o, v);
    }
}

void fwpt_plan_error_print(const struct fwpt_plan_error *e, bool host_options, const struct fwpt_sink *o)
{
    if (e->option) {
        if (host_options)
            fwpt_puts(o, "--");
        fwpt_puts(o, e->option);
        if (e->has_value) {
            fwpt_putc(o, host_options ? ' ' : '=');
            if (!fwpt_strcmp(e->option, "entries-per-table"))
                fwpt_put_dec(o, e->value);
            else
                put_size(o, e->value);
        }
        fwpt_puts(o, ": ");
    }
    fwpt_puts(o, e->why ? e->why : "refused");
}

void fwpt_plan_print(const struct fwpt_plan *p, const struct fwpt_sink *o)
{
    fwpt_printf(o, "scheme:      %s\nmode:        %s\ntotal size:  ", fwpt_plan_scheme_name(p->scheme),
                fwpt_plan_mode_name(p->mode));
    put_size(o, p->total_size);
    fwpt_puts(o, "\nregions:     ");
    fwpt_put_dec(o, p->region_count);
    fwpt_puts(o, " x ");
    put_size(o, p->region_size);
    if (p->scheme != FWPT_SCHEME_SINGLE_RANGE) {
        fwpt_puts(o, " (Size encoding ");
        fwpt_put_dec(o, p->region_size_enc);
        fwpt_puts(o, ")");
        if (p->stop_on_last)
            fwpt_puts(o, ", STOP on the last");
        if (p->int_on_last)
            fwpt_puts(o, ", INT on the last");
        fwpt_printf(o, "\ntables:      %u x 4K, %u", p->table_count, p->entries_per_table);
        fwpt_puts(o, p->scheme == FWPT_SCHEME_TOPA_SINGLE ? " entries (region, END -> own base)"
                                                          : " entries max (regions, then END)");
        fwpt_puts(o, p->mode == FWPT_PLAN_RING ? "; last END -> first table (ring)" : "; last END -> first table (never reached after STOP)");
    }
    fwpt_puts(o, "\nallocate:    ");
    fwpt_put_dec(o, p->regions.count);
    fwpt_puts(o, " x ");
    put_size(o, p->regions.bytes);
    fwpt_puts(o, " aligned to ");
    put_size(o, p->regions.align);
    fwpt_puts(o, " (");
    fwpt_puts(o, p->regions.what);
    fwpt_puts(o, ")");
    if (p->tables.count) {
        fwpt_puts(o, ", ");
        fwpt_put_dec(o, p->tables.count);
        fwpt_puts(o, " x 4K aligned to 4K (");
        fwpt_puts(o, p->tables.what);
        fwpt_puts(o, ")");
    }
    fwpt_puts(o, "\nIA32_RTIT_CTL: ToPA=");
    fwpt_put_dec(o, (p->ctl_bits & RTIT_CTL_TOPA) ? 1 : 0);
    fwpt_puts(o, " FabricEn=0\n");
    for (unsigned i = 0; i < p->n_warnings; i++) {
        fwpt_puts(o, "warning:     ");
        fwpt_puts(o, p->warnings[i]);
        fwpt_putc(o, '\n');
    }
}

void fwpt_topa_print_tables(const struct fwpt_physmem *mem, uint64_t output_base, unsigned max_entries,
                            const struct fwpt_sink *o)
{
    uint64_t table = output_base, first = output_base;
    unsigned index = 0, shown = 0;
    while (shown < max_entries) {
        uint64_t raw;
        if (!fwpt_physmem_read64(mem, fwpt_topa_entry_addr(table, index), &raw)) {
            fwpt_puts(o, "  (table memory not mapped)\n");
            return;
        }
        struct fwpt_topa_entry e;
        fwpt_topa_decode(raw, &e);
        fwpt_printf(o, "  table 0x%lx [%u] %016lx", table, index, raw);
        if (e.end) {
            fwpt_printf(o, "  END -> 0x%lx", e.base);
        } else {
            fwpt_printf(o, "  region 0x%lx size ", e.base);
            put_size(o, fwpt_topa_size_bytes(e.size_enc));
            if (e.stop)
                fwpt_puts(o, " STOP");
            if (e.intr)
                fwpt_puts(o, " INT");
        }
        fwpt_putc(o, '\n');
        shown++;
        if (e.end) {
            if (e.base == first || index == 0)
                return;
            table = e.base;
            index = 0;
        } else {
            index++;
        }
    }
}
