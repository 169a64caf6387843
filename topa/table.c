/* fwpt — ToPA entry encoding and table construction (SDM "ToPA Table Entry Format"). */
#include "topa/table.h"
#include "base/text.h"

#define TOPA_ENTRY_BASE_MASK (~(FWPT_BIT(TOPA_ENTRY_BASE_SHIFT) - 1))
#define TOPA_TABLE_PAGE 0x1000ull
#define TOPA_MAX_ENTRIES_PER_PAGE (TOPA_TABLE_PAGE / TOPA_ENTRY_SIZE_BYTES)

void fwpt_physmem_init(struct fwpt_physmem *m, bool identity)
{
    fwpt_memset(m, 0, sizeof *m);
    m->identity = identity;
}

enum fwpt_status fwpt_physmem_add(struct fwpt_physmem *m, uint64_t phys, uint64_t len, void *ptr)
{
    if (!len || phys + len < phys)
        return FWPT_E_INVAL;
    for (unsigned i = 0; i < m->count; i++) {
        const struct fwpt_physmem_range *r = &m->ranges[i];
        if (phys < r->phys + r->len && r->phys < phys + len)
            return FWPT_E_INVAL;
    }
    if (m->count >= FWPT_PHYSMEM_MAX)
        return FWPT_E_NOMEM;
    m->ranges[m->count].phys = phys;
    m->ranges[m->count].len = len;
    m->ranges[m->count].ptr = ptr;
    m->count++;
    return FWPT_OK;
}

void *fwpt_physmem_ptr(const struct fwpt_physmem *m, uint64_t phys, uint64_t len)
{
    if (phys + len < phys)
        return NULL;
    if (m->identity)
        return (void *)(uintptr_t)phys;
    for (unsigned i = 0; i < m->count; i++) {
        const struct fwpt_physmem_range *r = &m->ranges[i];
        if (phys >= r->phys && phys - r->phys <= r->len && len <= r->len - (phys - r->phys))
            return (uint8_t *)r->ptr + (phys - r->phys);
    }
    return NULL;
}

bool fwpt_physmem_read64(const struct fwpt_physmem *m, uint64_t phys, uint64_t *v)
{
    const void *p = fwpt_physmem_ptr(m, phys, 8);
    if (!p)
        return false;
    fwpt_memcpy(v, p, 8);
    return true;
}

bool fwpt_physmem_write64(const struct fwpt_physmem *m, uint64_t phys, uint64_t v)
{
    void *p = fwpt_physmem_ptr(m, phys, 8);
    if (!p)
        return false;
    fwpt_memcpy(p, &v, 8);
    return true;
}

int fwpt_topa_size_enc(uint64_t bytes)
{
    for (unsigned e = 0; e <= TOPA_SIZE_MAX_ENC; e++)
        if (fwpt_topa_size_bytes(e) == bytes)
            return (int)e;
    return -1;
}

uint64_t fwpt_topa_encode(const struct fwpt_topa_entry *e)
{
    uint64_t v = (e->base & TOPA_ENTRY_BASE_MASK) | FWPT_PUT(TOPA_ENTRY_SIZE, e->size_enc) | e->reserved;
    if (e->end)
        v |= TOPA_ENTRY_END;
    if (e->intr)
        v |= TOPA_ENTRY_INT;
    if (e->stop)
        v |= TOPA_ENTRY_STOP;
    return v;
}

void fwpt_topa_decode(uint64_t raw, struct fwpt_topa_entry *e)
{
    e->base = raw & TOPA_ENTRY_BASE_MASK;
    e->size_enc = (unsigned)FWPT_GET(TOPA_ENTRY_SIZE, raw);
    e->end = (raw & TOPA_ENTRY_END) != 0;
    e->intr = (raw & TOPA_ENTRY_INT) != 0;
    e->stop = (raw & TOPA_ENTRY_STOP) != 0;
    e->reserved = raw & TOPA_ENTRY_RESERVED_LOW;
}

unsigned fwpt_topa_tables_needed(unsigned regions, unsigned entries_per_table)
{
    if (entries_per_table < 2 || !regions)
        return regions ? 0 : 1;
    unsigned per = entries_per_table - 1;
    return (regions + per - 1) / per;
}

static bool put_entry(const struct fwpt_physmem *mem, uint64_t table, unsigned index, const struct fwpt_topa_entry *e)
{
    return fwpt_physmem_write64(mem, fwpt_topa_entry_addr(table, index), fwpt_topa_encode(e));
}

enum fwpt_status fwpt_topa_build(const struct fwpt_physmem *mem, const struct fwpt_topa_layout *l)
{
    if (!l->region_count || l->region_size_enc > TOPA_SIZE_MAX_ENC || !l->table_count)
        return FWPT_E_INVAL;
    if (l->single_entry) {
        /* SDM "Single Output Region ToPA Implementation": one region, then END -> this table's base. */
        if (l->region_count != 1 || l->table_count != 1)
            return FWPT_E_INVAL;
    } else if (l->entries_per_table < 2 || l->entries_per_table > TOPA_MAX_ENTRIES_PER_PAGE ||
               fwpt_topa_tables_needed(l->region_count, l->entries_per_table) != l->table_count) {
        return FWPT_E_INVAL;
    }
    for (unsigned t = 0; t < l->table_count; t++) {
        void *page = fwpt_physmem_ptr(mem, l->table_phys[t], TOPA_TABLE_PAGE);
        if (!page || (l->table_phys[t] & (TOPA_TABLE_PAGE - 1)))
            return page ? FWPT_E_INVAL : FWPT_E_NOMEM;
        fwpt_memset(page, 0, TOPA_TABLE_PAGE); /* entries zeroed before they are filled */
    }
    unsigned per = l->single_entry ? 1 : l->entries_per_table - 1;
    unsigned r = 0;
    for (unsigned t = 0; t < l->table_count; t++) {
        unsigned i = 0;
        for (; i < per && r < l->region_count; i++, r++) {
            struct fwpt_topa_entry e = {0};
            e.base = l->region_phys[r];
            e.size_enc = l->region_size_enc;
            bool last = r + 1 == l->region_count;
            e.stop = last && l->stop_on_last;
            e.intr = last && l->int_on_last;
            if (!put_entry(mem, l->table_phys[t], i, &e))
                return FWPT_E_NOMEM;
        }
        struct fwpt_topa_entry end = {0};
        end.end = true;
        /* Chain to the next table; the last table closes the ring at the first table. */
        end.base = t + 1 < l->table_count ? l->table_phys[t + 1] : l->table_phys[0];
        if (!put_entry(mem, l->table_phys[t], i, &end))
            return FWPT_E_NOMEM;
    }
    return FWPT_OK;
}
