/* fwpt — ToPA PMI handler (SDM Table "Intel PT ToPA PMI and XSAVES/XRSTORS Management"). */
#include "topa/pmi.h"
#include "base/text.h"

static bool read_entry(const struct fwpt_physmem *mem, uint64_t table, unsigned i, struct fwpt_topa_entry *e)
{
    uint64_t raw;
    if (!fwpt_physmem_read64(mem, fwpt_topa_entry_addr(table, i), &raw))
        return false;
    fwpt_topa_decode(raw, e);
    return true;
}

static bool write_entry(const struct fwpt_physmem *mem, uint64_t table, unsigned i, const struct fwpt_topa_entry *e)
{
    return fwpt_physmem_write64(mem, fwpt_topa_entry_addr(table, i), fwpt_topa_encode(e));
}

static struct fwpt_topa_entry take_region(struct fwpt_pmi_pool *p)
{
    struct fwpt_topa_entry e = {0};
    e.base = p->region_phys[p->next++];
    e.size_enc = p->size_enc;
    e.intr = p->int_on_new;
    return e;
}

enum fwpt_status fwpt_pmi_update_tables(const struct fwpt_pmi_request *rq, struct fwpt_pmi_result *res)
{
    fwpt_memset(res, 0, sizeof *res);
    const struct fwpt_physmem *mem = rq->mem;
    struct fwpt_pmi_pool *pool = rq->pool;
    unsigned cap = rq->capacity, grow = rq->grow_by ? rq->grow_by : 1;
    if (cap < 2 || rq->current_index >= cap)
        return FWPT_E_INVAL;
    /* The table's last entry: its END entry, or the last slot when it has none. */
    unsigned end = cap;
    struct fwpt_topa_entry e, end_entry = {0};
    for (unsigned i = 0; i < cap; i++) {
        if (!read_entry(mem, rq->table_base, i, &e))
            return FWPT_E_INVAL;
        if (e.end) {
            end = i;
            end_entry = e;
            break;
        }
    }
    unsigned avail = pool->count - pool->next;
    if (end < cap && end + grow < cap) {
        /* Space to grow: add entries after the last region entry, END moves after them. */
        if (avail < grow)
            return FWPT_E_NOMEM;
        for (unsigned i = 0; i < grow; i++) {
            struct fwpt_topa_entry r = take_region(pool);
            write_entry(mem, rq->table_base, end + i, &r);
        }
        write_entry(mem, rq->table_base, end + grow, &end_entry);
        res->action = FWPT_PMI_GROW;
        res->end_index = end + grow;
        res->entries_added = grow;
        return FWPT_OK;
    }
    /* No space: an upcoming entry becomes END=1 (the existing END, else the last slot). */
    unsigned end_at = end < cap ? end : cap - 1;
    if (end_at <= rq->current_index)
        return FWPT_E_INVAL;
    struct fwpt_topa_entry new_end = {0};
    new_end.end = true;
    if (rq->new_table) {
        /* Output moves to a new table: fill it from the pool, END -> itself (the next PMI moves on). */
        unsigned n = avail < cap - 1 ? avail : cap - 1;
        if (!n)
            return FWPT_E_NOMEM;
        if (!fwpt_physmem_ptr(mem, rq->new_table, (uint64_t)cap * TOPA_ENTRY_SIZE_BYTES))
            return FWPT_E_INVAL;
        fwpt_memset(fwpt_physmem_ptr(mem, rq->new_table, (uint64_t)cap * TOPA_ENTRY_SIZE_BYTES), 0,
                    (size_t)cap * TOPA_ENTRY_SIZE_BYTES);
        for (unsigned i = 0; i < n; i++) {
            struct fwpt_topa_entry r = take_region(pool);
            write_entry(mem, rq->new_table, i, &r);
        }
        struct fwpt_topa_entry self = {0};
        self.end = true;
        self.base = rq->new_table;
        write_entry(mem, rq->new_table, n, &self);
        new_end.base = rq->new_table;
        write_entry(mem, rq->table_base, end_at, &new_end);
        res->action = FWPT_PMI_NEW_TABLE;
        res->end_index = end_at;
        res->entries_added = n;
        return FWPT_OK;
    }
    /* Circular: END -> this table; filled regions 0..MaskOrTableOffset-1 point at unused ones. */
    if (avail < rq->current_index)
        return FWPT_E_NOMEM;
    for (unsigned i = 0; i < rq->current_index; i++) {
        if (!read_entry(mem, rq->table_base, i, &e))
            return FWPT_E_INVAL;
        if (i < sizeof res->replaced_phys / sizeof res->replaced_phys[0])
            res->replaced_phys[i] = e.base;
        struct fwpt_topa_entry r = take_region(pool);
        r.size_enc = e.size_enc;
        r.intr = e.intr || pool->int_on_new;
        r.stop = e.stop;
        write_entry(mem, rq->table_base, i, &r);
    }
    new_end.base = rq->table_base;
    write_entry(mem, rq->table_base, end_at, &new_end);
    res->action = FWPT_PMI_CIRCULAR;
    res->end_index = end_at;
    res->regions_replaced = rq->current_index;
    return FWPT_OK;
}

enum fwpt_status fwpt_pmi_handle(const struct fwpt_cpu *cpu, struct fwpt_pmi_request *rq, struct fwpt_pmi_result *res)
{
    fwpt_memset(res, 0, sizeof *res);
    uint64_t global, ctl, base, ptrs, status;
    enum fwpt_status st = fwpt_rdmsr(cpu, MSR_IA32_PERF_GLOBAL_STATUS, &global);
    if (st != FWPT_OK)
        return st;
    if (!(global & PERF_GLOBAL_STATUS_TRACE_TOPA_PMI))
        return FWPT_OK; /* not ours */
    if ((st = fwpt_rdmsr(cpu, MSR_IA32_RTIT_CTL, &ctl)) != FWPT_OK)
        return st;
    if ((ctl & RTIT_CTL_TRACEEN) && (st = fwpt_wrmsr(cpu, MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACEEN)) != FWPT_OK)
        return st;
    if ((st = fwpt_rdmsr(cpu, MSR_IA32_RTIT_OUTPUT_BASE, &base)) != FWPT_OK ||
        (st = fwpt_rdmsr(cpu, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, &ptrs)) != FWPT_OK ||
        (st = fwpt_rdmsr(cpu, MSR_IA32_RTIT_STATUS, &status)) != FWPT_OK)
        goto restore;
    rq->table_base = base;
    rq->current_index = (unsigned)fwpt_mask_ptrs_index(ptrs);
    st = fwpt_pmi_update_tables(rq, res);
    if (st != FWPT_OK)
        goto restore;
    /* "ToPA PMI": write 1 to bit 55 of IA32_GLOBAL_STATUS_RESET; "PMI Preservation": clear PendTopaPMI. */
    if ((st = fwpt_wrmsr(cpu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, PERF_GLOBAL_STATUS_TRACE_TOPA_PMI)) != FWPT_OK)
        goto restore;
    if ((status & RTIT_STATUS_PENDTOPAPMI) && (ctl & RTIT_CTL_TRACEEN))
        st = fwpt_wrmsr(cpu, MSR_IA32_RTIT_STATUS, status & ~RTIT_STATUS_PENDTOPAPMI);
restore:
    if (ctl & RTIT_CTL_TRACEEN) {
        enum fwpt_status st2 = fwpt_wrmsr(cpu, MSR_IA32_RTIT_CTL, ctl); /* restore saved IA32_RTIT_CTL */
        if (st == FWPT_OK)
            st = st2;
    }
    return st;
}
