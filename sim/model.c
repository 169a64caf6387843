/* fwpt — output logic and RTIT MSR model (SDM "Trace Output", "Enabling and Configuration MSRs").
 * The entry checks here are written separately from topa/validate.c on purpose: the tests compare
 * the two (validator says bad <=> the model raises an operational error on that entry). */
#include "sim/model.h"
#include "base/text.h"

#define APIC_BASE_DEFAULT 0xfee00900ull /* FEE00000H, enabled, BSP */
#define MAX_TABLE_ENTRIES ((RTIT_TABLE_OFFSET_MAX / TOPA_ENTRY_SIZE_BYTES) + 1)

static uint32_t model_maxphy(const struct fwpt_model *m) { return m->caps.maxphyaddr ? m->caps.maxphyaddr : 36; }
static uint64_t phys_reserved(const struct fwpt_model *m)
{
    uint32_t b = model_maxphy(m);
    return b >= 64 ? 0 : ~((1ull << b) - 1);
}

void fwpt_model_init(struct fwpt_model *m, const struct fwpt_caps *caps, const struct fwpt_physmem *mem)
{
    fwpt_memset(m, 0, sizeof *m);
    m->caps = *caps;
    m->mem = mem;
    m->restricted.have_apic = true;
    m->restricted.apic_base_msr = APIC_BASE_DEFAULT;
    m->table_wrap_entries = MAX_TABLE_ENTRIES;
    m->output_mask_ptrs = RTIT_MASK_LOWERMASK;
    m->error_rule = FWPT_RULE_COUNT;
    fwpt_replay_init_snapshot(&m->replay, &caps->raw);
}

void fwpt_model_init_snapshot(struct fwpt_model *m, const struct fwpt_cpuid_snapshot *snap,
                              const struct fwpt_physmem *mem)
{
    struct fwpt_caps caps;
    fwpt_caps_parse(snap, &caps);
    fwpt_model_init(m, &caps, mem);
}

/* ---- CPUID: the recorded processor's answers (arch/cpu_replay, above-max-leaf rule included) ---- */
enum fwpt_status fwpt_model_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    struct fwpt_model *m = ctx;
    if (m->cpuid_fn)
        return m->cpuid_fn(m->cpuid_ctx, leaf, subleaf, out);
    return fwpt_replay_cpuid(&m->replay, leaf, subleaf, out);
}

/* ---- output logic ---- */
static void sync_msrs(struct fwpt_model *m)
{
    /* The processor keeps the MSRs current with proc_trace_*; exact once TraceEn=0 (SDM). */
    if (!(m->ctl & RTIT_CTL_TOPA))
        return;
    m->output_base = m->proc_trace_table_base;
    m->output_mask_ptrs = FWPT_PUT(RTIT_MASK_OUTPUTOFFSET, m->proc_trace_output_offset) |
                          FWPT_PUT(RTIT_MASK_MASKORTABLEOFFSET, m->proc_trace_table_offset / TOPA_ENTRY_SIZE_BYTES) |
                          RTIT_MASK_LOWERMASK;
}

static void op_error(struct fwpt_model *m, enum fwpt_topa_rule rule, uint64_t table, uint32_t entry)
{
    /* SDM "Operational Errors": STATUS.Error set, TriggerEn cleared, buffered packets may be lost. */
    m->status |= RTIT_STATUS_ERROR;
    m->status &= ~RTIT_STATUS_TRIGGEREN;
    m->region_valid = false;
    m->error_rule = rule;
    m->error_table = table;
    m->error_entry = entry;
    m->stats.errors++;
}

static void signal_pmi(struct fwpt_model *m)
{
    /* SDM "ToPA PMI": IA32_PERF_GLOBAL_STATUS.Trace_ToPA_PMI; with InjectPsbPmiOnEnable the PMI is
     * also recorded in STATUS.PendTopaPMI ("PMI Preservation"). */
    m->perf_global_status |= PERF_GLOBAL_STATUS_TRACE_TOPA_PMI;
    if (m->ctl & RTIT_CTL_INJECTPSBPMI)
        m->status |= RTIT_STATUS_PENDTOPAPMI;
    m->stats.pmis++;
}

/* proc_trace_table_offset points at an entry: read it, follow END, or raise the error the SDM
 * lists for it ("ToPA Errors": the error is raised when the offending entry is reached). */
static void reach_entry(struct fwpt_model *m, bool at_enable)
{
    m->region_valid = false;
    for (unsigned hops = 0; hops < 4; hops++) {
        uint64_t table = m->proc_trace_table_base;
        uint32_t index = (uint32_t)(m->proc_trace_table_offset / TOPA_ENTRY_SIZE_BYTES);
        uint64_t addr = table + m->proc_trace_table_offset;
        if (fwpt_restricted_smrr(&m->restricted, addr, TOPA_ENTRY_SIZE_BYTES)) {
            op_error(m, FWPT_RULE_SMRR, table, index); /* Table 'Restricted Memory': ToPA table in SMRR */
            return;
        }
        uint64_t raw;
        if (!fwpt_physmem_read64(m->mem, addr, &raw)) {
            op_error(m, FWPT_RULE_UNMAPPED, table, index);
            return;
        }
        bool end = raw & TOPA_ENTRY_END, stop = raw & TOPA_ENTRY_STOP, intr = raw & TOPA_ENTRY_INT;
        uint64_t base = raw & ~(FWPT_BIT(TOPA_ENTRY_BASE_SHIFT) - 1);
        if (raw & TOPA_ENTRY_RESERVED_LOW) {
            op_error(m, FWPT_RULE_RESERVED_BITS, table, index);
            return;
        }
        if (base & phys_reserved(m)) {
            op_error(m, FWPT_RULE_ADDR_MAXPHYADDR, table, index);
            return;
        }
        if (end) {
            /* END=1: STOP and INT must be 0; never in entry 0; single-region parts: back to OUTPUT_BASE. */
            if (stop || intr) {
                op_error(m, FWPT_RULE_END_STOP_INT, table, index);
                return;
            }
            if (index == 0) {
                op_error(m, FWPT_RULE_END_ENTRY0, table, index);
                return;
            }
            if (!m->caps.topa_multiple_entries && base != m->output_base) {
                op_error(m, FWPT_RULE_SINGLE_END_BASE, table, index);
                return;
            }
            m->proc_trace_table_base = base;
            m->proc_trace_table_offset = 0;
            m->proc_trace_output_offset = 0;
            m->stats.ends_followed++;
            at_enable = false; /* the region reached through END starts at offset 0 */
            continue;
        }
        if (!m->caps.topa_multiple_entries && index != 0) {
            op_error(m, FWPT_RULE_SINGLE_NOT_END, table, index);
            return;
        }
        uint64_t size = TOPA_REGION_MIN << FWPT_GET(TOPA_ENTRY_SIZE, raw);
        if (base % size) {
            op_error(m, FWPT_RULE_REGION_ALIGN, table, index);
            return;
        }
        if (at_enable && m->proc_trace_output_offset >= size) {
            op_error(m, FWPT_RULE_OUTPUT_OFFSET, table, index);
            return;
        }
        m->region_valid = true;
        m->region_base = base;
        m->region_size = size;
        m->region_stop = stop;
        m->region_int = intr;
        return;
    }
    /* An END chain longer than the model follows without storing a byte (every table's entry 0
     * would be END, which is itself an error): treat as the first rule such a chain breaks. */
    op_error(m, FWPT_RULE_END_ENTRY0, m->proc_trace_table_base, 0);
}

static bool single_range_ok(struct fwpt_model *m)
{
    uint64_t mask = (m->output_mask_ptrs & RTIT_MASK_PTRS_MASK) | RTIT_MASK_LOWERMASK;
    uint64_t offset = FWPT_GET(RTIT_MASK_OUTPUTOFFSET, m->output_mask_ptrs);
    /* "Single-Range Output Errors" */
    if ((mask + 1) & mask) {
        op_error(m, FWPT_RULE_SR_MASK, m->output_base, FWPT_NO_ENTRY);
        return false;
    }
    if (m->output_base & mask) {
        op_error(m, FWPT_RULE_SR_BASE_MASK, m->output_base, FWPT_NO_ENTRY);
        return false;
    }
    if (offset > mask) {
        op_error(m, FWPT_RULE_SR_OFFSET, m->output_base, FWPT_NO_ENTRY);
        return false;
    }
    return true;
}

static void trace_enable(struct fwpt_model *m)
{
    m->stats.enables++;
    /* TriggerEn follows TraceEn unless Stopped or Error is already set (SDM "Trigger Enable"). */
    if (m->status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR))
        return;
    m->status |= RTIT_STATUS_TRIGGEREN | RTIT_STATUS_CONTEXTEN | RTIT_STATUS_FILTEREN;
    if ((m->ctl & RTIT_CTL_INJECTPSBPMI) && (m->status & RTIT_STATUS_PENDTOPAPMI))
        signal_pmi(m); /* "PMI Preservation": a pended ToPA PMI fires again on enable */
    if (m->ctl & RTIT_CTL_FABRICEN)
        return;
    if (m->ctl & RTIT_CTL_TOPA) {
        m->proc_trace_table_base = m->output_base;
        m->proc_trace_table_offset = FWPT_GET(RTIT_MASK_MASKORTABLEOFFSET, m->output_mask_ptrs) * TOPA_ENTRY_SIZE_BYTES;
        m->proc_trace_output_offset = FWPT_GET(RTIT_MASK_OUTPUTOFFSET, m->output_mask_ptrs);
        if (m->output_base & 0xfffull) {
            op_error(m, FWPT_RULE_TABLE_ALIGN, m->output_base, FWPT_NO_ENTRY);
            return;
        }
        reach_entry(m, true);
        sync_msrs(m);
    } else {
        (void)single_range_ok(m);
    }
}

static bool store_byte(struct fwpt_model *m, uint64_t addr, uint8_t b)
{
    if (fwpt_restricted_smrr(&m->restricted, addr, 1))
        return false; /* reaching SMRR is an operational error */
    if (fwpt_restricted_apic(&m->restricted, addr, 1)) {
        m->stats.bytes_apic++; /* not routed to the APIC page; no error (SDM) */
        return true;
    }
    uint8_t *p = fwpt_physmem_ptr(m->mem, addr, 1);
    if (p) {
        *p = b;
        m->stats.bytes_stored++;
    } else {
        m->stats.bytes_unmapped++;
    }
    return true;
}

static void count_packet_bytes(struct fwpt_model *m, uint64_t n)
{
    uint64_t cnt = FWPT_GET(RTIT_STATUS_PACKETBYTECNT, m->status) + n;
    uint64_t max = FWPT_GET(RTIT_STATUS_PACKETBYTECNT, RTIT_STATUS_PACKETBYTECNT);
    if (cnt > max)
        cnt = max; /* the model saturates PacketByteCnt (17 bits) */
    m->status = (m->status & ~RTIT_STATUS_PACKETBYTECNT) | FWPT_PUT(RTIT_STATUS_PACKETBYTECNT, cnt);
}
static void count_packet_byte(struct fwpt_model *m) { count_packet_bytes(m, 1); }

/* Fast path: a run of bytes into ordinary, mapped, unrestricted memory. */
static bool bulk_store(struct fwpt_model *m, uint64_t addr, const uint8_t *src, uint64_t run)
{
    if (run < 2 || fwpt_restricted_smrr(&m->restricted, addr, run) || fwpt_restricted_apic(&m->restricted, addr, run))
        return false;
    uint8_t *p = fwpt_physmem_ptr(m->mem, addr, run);
    if (!p)
        return false;
    fwpt_memcpy(p, src, run);
    m->stats.bytes_stored += run;
    count_packet_bytes(m, run);
    return true;
}

size_t fwpt_model_emit(struct fwpt_model *m, const uint8_t *bytes, size_t n)
{
    size_t stored = 0;
    m->stats.bytes_in += n;
    for (size_t i = 0; i < n; i++) {
        if (!(m->ctl & RTIT_CTL_TRACEEN) || !(m->status & RTIT_STATUS_TRIGGEREN) || (m->ctl & RTIT_CTL_FABRICEN)) {
            m->stats.bytes_dropped += n - i;
            break;
        }
        if (m->ctl & RTIT_CTL_TOPA) {
            if (!m->region_valid) {
                m->stats.bytes_dropped += n - i;
                break;
            }
            uint64_t addr = m->region_base + m->proc_trace_output_offset;
            uint64_t run = m->region_size - m->proc_trace_output_offset;
            if (run > n - i)
                run = n - i;
            if (bulk_store(m, addr, bytes + i, run)) {
                stored += run;
                i += run - 1;
                m->proc_trace_output_offset += run;
            } else {
                if (!store_byte(m, addr, bytes[i])) {
                    op_error(m, FWPT_RULE_SMRR, m->proc_trace_table_base,
                             (uint32_t)(m->proc_trace_table_offset / TOPA_ENTRY_SIZE_BYTES));
                    m->stats.bytes_dropped += n - i;
                    break;
                }
                stored++;
                count_packet_byte(m);
                m->proc_trace_output_offset++;
            }
            if (m->proc_trace_output_offset < m->region_size)
                continue;
            /* The region is full. */
            m->stats.regions_filled++;
            if (m->region_stop) {
                /* "ToPA STOP": Stopped set, TriggerEn cleared, OutputOffset = region size. */
                m->status |= RTIT_STATUS_STOPPED;
                m->status &= ~RTIT_STATUS_TRIGGEREN;
                if (m->region_int)
                    signal_pmi(m); /* STOP happens before INT */
                m->region_valid = false;
                continue;
            }
            if (m->region_int)
                signal_pmi(m);
            m->proc_trace_table_offset += TOPA_ENTRY_SIZE_BYTES;
            m->proc_trace_output_offset = 0;
            if (m->proc_trace_table_offset / TOPA_ENTRY_SIZE_BYTES >= m->table_wrap_entries) {
                m->proc_trace_table_offset = 0; /* maximum table size reached: back to the table's start */
                m->stats.wraps++;
            }
            reach_entry(m, false);
        } else {
            uint64_t mask = (m->output_mask_ptrs & RTIT_MASK_PTRS_MASK) | RTIT_MASK_LOWERMASK;
            uint64_t offset = FWPT_GET(RTIT_MASK_OUTPUTOFFSET, m->output_mask_ptrs);
            /* trace_store_phys_addr := (OutputBase & ~OutputMask) + (OutputOffset & OutputMask) */
            uint64_t addr = (m->output_base & ~mask) + (offset & mask);
            if (!store_byte(m, addr, bytes[i])) {
                op_error(m, FWPT_RULE_SMRR, m->output_base, FWPT_NO_ENTRY);
                m->stats.bytes_dropped += n - i;
                break;
            }
            stored++;
            count_packet_byte(m);
            uint64_t next = (offset + 1) & mask;
            if (!next)
                m->stats.wraps++;
            m->output_mask_ptrs = (m->output_mask_ptrs & ~RTIT_MASK_OUTPUTOFFSET) | FWPT_PUT(RTIT_MASK_OUTPUTOFFSET, next);
        }
    }
    sync_msrs(m);
    return stored;
}

/* ---- MSRs ---- */
static enum fwpt_status gp(struct fwpt_model *m)
{
    m->stats.gp++;
    return FWPT_E_FAULT;
}

static bool is_rtit_msr(const struct fwpt_model *m, uint32_t msr)
{
    switch (msr) {
    case MSR_IA32_RTIT_CTL:
    case MSR_IA32_RTIT_STATUS:
        return true;
    case MSR_IA32_RTIT_OUTPUT_BASE:
    case MSR_IA32_RTIT_OUTPUT_MASK_PTRS:
        return m->caps.topa_output || m->caps.single_range_output;
    case MSR_IA32_RTIT_CR3_MATCH:
        return m->caps.cr3_filtering;
    default:
        if (msr >= MSR_IA32_RTIT_ADDR0_A && msr < MSR_IA32_RTIT_ADDRn_A(FWPT_MAX_ADDR_RANGES))
            return (msr - MSR_IA32_RTIT_ADDR0_A) / 2 < m->caps.num_address_ranges;
        return false;
    }
}

static bool in_rtit_space(uint32_t msr)
{
    return (msr >= MSR_IA32_RTIT_OUTPUT_BASE && msr <= MSR_IA32_RTIT_OUTPUT_MASK_PTRS) ||
           (msr >= MSR_IA32_RTIT_CTL && msr <= MSR_IA32_RTIT_CR3_MATCH) ||
           (msr >= MSR_IA32_RTIT_ADDR0_A && msr < MSR_IA32_RTIT_ADDRn_A(FWPT_MAX_ADDR_RANGES));
}

enum fwpt_status fwpt_model_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct fwpt_model *m = ctx;
    if (in_rtit_space(msr) && (!m->caps.intel_pt || !is_rtit_msr(m, msr)))
        return gp(m); /* SDM: RTIT MSRs #GP when Intel PT (or the feature) is not supported */
    switch (msr) {
    case MSR_IA32_RTIT_CTL: *value = m->ctl; return FWPT_OK;
    case MSR_IA32_RTIT_STATUS: *value = m->status; return FWPT_OK;
    case MSR_IA32_RTIT_OUTPUT_BASE: *value = m->output_base; return FWPT_OK;
    case MSR_IA32_RTIT_OUTPUT_MASK_PTRS: *value = m->output_mask_ptrs | RTIT_MASK_LOWERMASK; return FWPT_OK;
    case MSR_IA32_RTIT_CR3_MATCH: *value = m->cr3_match; return FWPT_OK;
    case MSR_IA32_PERF_GLOBAL_STATUS: *value = m->perf_global_status; return FWPT_OK;
    case MSR_IA32_APIC_BASE:
        if (!m->restricted.have_apic)
            return gp(m);
        *value = m->restricted.apic_base_msr;
        return FWPT_OK;
    case MSR_IA32_SMRR_PHYSBASE:
    case MSR_IA32_SMRR_PHYSMASK:
        if (!m->restricted.have_smrr)
            return gp(m);
        *value = msr == MSR_IA32_SMRR_PHYSBASE ? m->restricted.smrr_physbase : m->restricted.smrr_physmask;
        return FWPT_OK;
    default:
        if (msr >= MSR_IA32_RTIT_ADDR0_A && msr < MSR_IA32_RTIT_ADDRn_A(FWPT_MAX_ADDR_RANGES)) {
            unsigned n = (msr - MSR_IA32_RTIT_ADDR0_A) / 2;
            *value = (msr & 1) ? m->addr_b[n] : m->addr_a[n];
            return FWPT_OK;
        }
        return gp(m); /* not modelled */
    }
}

/* A field holding an encoding that must be set in a CPUID bitmap (CPUID.(14H,1)). */
static bool encoding_ok(uint64_t value, uint32_t bitmap, bool supported)
{
    if (!supported)
        return value == 0; /* the field is reserved */
    return value < 32 && (bitmap & (1u << value));
}

/* IA32_RTIT_CTL bits that #GP for these capabilities (SDM Table "IA32_RTIT_CTL MSR"). */
static bool ctl_ok(const struct fwpt_model *m, uint64_t v)
{
    const struct fwpt_caps *c = &m->caps;
    if (v & RTIT_CTL_RESERVED_ALWAYS)
        return false;
    if (((v & RTIT_CTL_CYCEN) && !c->psb_cyc) || ((v & RTIT_CTL_CR3FILTER) && !c->cr3_filtering) ||
        ((v & RTIT_CTL_PWREVTEN) && !c->power_event_trace) ||
        ((v & (RTIT_CTL_PTWEN | RTIT_CTL_FUPONPTW)) && !c->ptwrite) ||
        ((v & RTIT_CTL_FABRICEN) && !c->output_subsys) || ((v & RTIT_CTL_TOPA) && !c->topa_output) ||
        ((v & RTIT_CTL_MTCEN) && !c->mtc) || ((v & RTIT_CTL_EVENTEN) && !c->event_trace) ||
        ((v & RTIT_CTL_DISTNT) && !c->tnt_disable) || ((v & RTIT_CTL_INJECTPSBPMI) && !c->psb_pmi_preserve))
        return false;
    if (!encoding_ok(FWPT_GET(RTIT_CTL_MTCFREQ, v), c->mtc_periods, c->mtc) ||
        !encoding_ok(FWPT_GET(RTIT_CTL_CYCTHRESH, v), c->cycle_thresholds, c->psb_cyc) ||
        !encoding_ok(FWPT_GET(RTIT_CTL_PSBFREQ, v), c->psb_periods, c->psb_cyc))
        return false;
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++) {
        uint64_t cfg = FWPT_GET(RTIT_CTL_ADDRn_CFG(n), v);
        if (cfg && (n >= c->num_address_ranges || cfg > RTIT_ADDR_CFG_TRACESTOP))
            return false;
    }
    /* TraceEn with ToPA=0 and FabricEn=0 selects single range: #GP when it is not enumerated. */
    if ((v & RTIT_CTL_TRACEEN) && !(v & (RTIT_CTL_TOPA | RTIT_CTL_FABRICEN)) && !c->single_range_output)
        return false;
    return true;
}

static bool canonical(uint64_t v) { return (uint64_t)((int64_t)(v << 16) >> 16) == v; }

enum fwpt_status fwpt_model_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    struct fwpt_model *m = ctx;
    if (in_rtit_space(msr) && (!m->caps.intel_pt || !is_rtit_msr(m, msr)))
        return gp(m);
    bool tracing = (m->ctl & RTIT_CTL_TRACEEN) != 0;
    /* "General Considerations": RTIT MSRs other than CTL #GP while TraceEn=1. */
    if (tracing && in_rtit_space(msr) && msr != MSR_IA32_RTIT_CTL)
        return gp(m);
    switch (msr) {
    case MSR_IA32_RTIT_CTL: {
        if (!ctl_ok(m, value))
            return gp(m);
        /* "Other Writes to IA32_RTIT_CTL": a change while TraceEn=1 #GPs unless it clears TraceEn. */
        if (tracing && (value & RTIT_CTL_TRACEEN) && value != m->ctl)
            return gp(m);
        uint64_t old = m->ctl;
        m->ctl = value;
        if (!(old & RTIT_CTL_TRACEEN) && (value & RTIT_CTL_TRACEEN)) {
            trace_enable(m);
        } else if ((old & RTIT_CTL_TRACEEN) && !(value & RTIT_CTL_TRACEEN)) {
            /* Disable: buffers flushed, MSRs exact, TriggerEn (and the enables derived from it) clear. */
            m->status &= ~(RTIT_STATUS_TRIGGEREN | RTIT_STATUS_CONTEXTEN | RTIT_STATUS_FILTEREN);
            m->region_valid = false;
            if (old & RTIT_CTL_TOPA) {
                m->ctl = old; /* sync with the ToPA view that was active */
                sync_msrs(m);
                m->ctl = value;
            }
        }
        return FWPT_OK;
    }
    case MSR_IA32_RTIT_STATUS: {
        if (value & RTIT_STATUS_RESERVED)
            return gp(m);
        /* FilterEn, ContextEn, TriggerEn: writes ignored. */
        uint64_t ro = RTIT_STATUS_FILTEREN | RTIT_STATUS_CONTEXTEN | RTIT_STATUS_TRIGGEREN;
        m->status = (m->status & ro) | (value & ~ro);
        return FWPT_OK;
    }
    case MSR_IA32_RTIT_OUTPUT_BASE:
        if (value & (RTIT_OUTPUT_BASE_RESERVED_LOW | phys_reserved(m)))
            return gp(m);
        m->output_base = value;
        return FWPT_OK;
    case MSR_IA32_RTIT_OUTPUT_MASK_PTRS:
        m->output_mask_ptrs = value | RTIT_MASK_LOWERMASK; /* LowerMask is forced to 1s */
        return FWPT_OK;
    case MSR_IA32_RTIT_CR3_MATCH:
        if (value & RTIT_CR3_MATCH_RESERVED)
            return gp(m);
        m->cr3_match = value;
        return FWPT_OK;
    case MSR_IA32_PERF_GLOBAL_STATUS:
        return gp(m); /* read-only */
    case MSR_IA32_PERF_GLOBAL_STATUS_RESET:
        m->perf_global_status &= ~(value & PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
        return FWPT_OK;
    case MSR_IA32_APIC_BASE:
        m->restricted.apic_base_msr = value;
        return FWPT_OK;
    default:
        if (msr >= MSR_IA32_RTIT_ADDR0_A && msr < MSR_IA32_RTIT_ADDRn_A(FWPT_MAX_ADDR_RANGES)) {
            if (!canonical(value))
                return gp(m);
            unsigned n = (msr - MSR_IA32_RTIT_ADDR0_A) / 2;
            if (msr & 1)
                m->addr_b[n] = value;
            else
                m->addr_a[n] = value;
            return FWPT_OK;
        }
        return gp(m); /* SMRR is writable only in SMM; other MSRs are not modelled */
    }
}

struct fwpt_cpu fwpt_model_cpu(struct fwpt_model *m)
{
    struct fwpt_cpu c = {"model", m, fwpt_model_cpuid, fwpt_model_rdmsr, fwpt_model_wrmsr, NULL};
    return c;
}
