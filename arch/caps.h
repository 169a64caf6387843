/* fwpt — Intel PT capability enumeration: a pure function of CPUID register values
 * (SDM "Detection of Intel Processor Trace and Capability Enumeration"). */
#ifndef FWPT_ARCH_CAPS_H
#define FWPT_ARCH_CAPS_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/cpu.h"
#include "arch/errata.h"
#include "base/text.h"

/* The raw CPUID values enumeration depends on, as read (or as recorded in a dump). */
struct fwpt_cpuid_snapshot {
    uint32_t max_basic_leaf;       /* CPUID.0:EAX */
    char vendor[13];               /* CPUID.0:EBX,EDX,ECX, NUL-terminated */
    uint32_t leaf1_eax;            /* family/model/stepping signature; 0 if unknown */
    uint32_t leaf7_ebx;            /* CPUID.(7,0):EBX; valid only if max_basic_leaf >= 7 */
    bool has_leaf14_0;             /* leaf 14H subleaf 0 was read (max_basic_leaf >= 0x14) */
    struct fwpt_cpuid_regs leaf14_0;
    bool has_leaf14_1;             /* subleaf 1 was read (leaf14_0.eax >= 1) */
    struct fwpt_cpuid_regs leaf14_1;
    bool has_leaf1a;               /* hybrid core type, CPUID.1AH:EAX */
    uint32_t leaf1a_eax;
    uint32_t max_ext_leaf;         /* CPUID.80000000H:EAX; 0 = not read / not recorded */
    uint32_t maxphyaddr;           /* CPUID.80000008H:EAX[7:0]; 0 = unknown (then 36 is assumed) */
};

/* Why PT is or is not usable. */
#define FWPT_CAPS_REASON_LIST(X)                                                                \
    X(USABLE, "Intel PT is usable")                                                             \
    X(NOT_INTEL, "the vendor is not GenuineIntel")                                              \
    X(MAX_LEAF_BELOW_14, "the highest basic CPUID leaf is below 14H")                           \
    X(LEAF7_BIT_CLEAR, "CPUID.(EAX=07H,ECX=0):EBX[25] (Intel PT) is clear")                     \
    X(LEAF14_EMPTY, "CPUID leaf 14H reports no Intel PT features")                              \
    X(NO_OUTPUT_SCHEME, "neither ToPA nor single-range output is enumerated")                   \
    X(INCONSISTENT, "the CPUID values are inconsistent")

enum fwpt_caps_reason {
#define FWPT_CAPS_REASON_ENUM(n, m) FWPT_CAPS_##n,
    FWPT_CAPS_REASON_LIST(FWPT_CAPS_REASON_ENUM)
#undef FWPT_CAPS_REASON_ENUM
};

struct fwpt_caps {
    struct fwpt_cpuid_snapshot raw;
    uint32_t family, model, stepping; /* display family/model (extended fields folded in) */
    bool intel_pt;                    /* CPUID.(7,0):EBX[25] */
    uint32_t max_subleaf;             /* CPUID.(14H,0):EAX */
    /* CPUID.(14H,0):EBX — names follow Linux intel_pt/caps */
    bool cr3_filtering, psb_cyc, ip_filtering, mtc, ptwrite, power_event_trace, psb_pmi_preserve,
        event_trace, tnt_disable;
    /* CPUID.(14H,0):ECX */
    bool topa_output, topa_multiple_entries, single_range_output, output_subsys, payloads_lip;
    /* CPUID.(14H,1) */
    uint32_t num_address_ranges;
    uint32_t mtc_periods, cycle_thresholds, psb_periods; /* bitmaps */
    bool subleaf1_known;              /* the four values above come from a real subleaf 1 */
    uint32_t maxphyaddr;              /* effective (36 when unknown) */
    uint32_t core_type;               /* CPUID.1AH:EAX[31:24] (0x20 Atom/E-core, 0x40 Core/P-core), 0 if none */
    /* verdict */
    bool pt_supported;
    enum fwpt_caps_reason reason;
    const char *detail; /* extra words for INCONSISTENT (static string), else NULL */
    /* A data quirk that did not change the verdict (static string), else NULL: subleaf 1 all-zero
     * or not recorded although CPUID.(14H,0):EAX >= 1 (its values are then treated as none), or
     * leaf 14H filled while CPUID.(7,0):EBX[25] is clear (reported, still not usable). */
    const char *note;
};

/* Read the snapshot through a CPU backend, honouring max leaf rules (CPUID.0:EAX first; leaf 14H
 * only when max_basic_leaf >= 14H; subleaf 1 only when CPUID.(14H,0):EAX >= 1). */
enum fwpt_status fwpt_caps_read(const struct fwpt_cpu *cpu, struct fwpt_cpuid_snapshot *snap);
/* Pure: registers -> capabilities and verdict. The verdict's reasons are tested in list order:
 * NOT_INTEL, MAX_LEAF_BELOW_14 (also when the max leaf is below 7: leaf 7 is then unknown),
 * LEAF7_BIT_CLEAR (the SDM's detection bit; leaf 14H values are still parsed and reported),
 * LEAF14_EMPTY (CPUID.(14H,0) EAX, EBX and ECX all zero), NO_OUTPUT_SCHEME (neither ECX[0] nor ECX[2]),
 * INCONSISTENT (values that contradict each other: ToPA multiple entries without ToPA output;
 * mtc/psb_cyc/ip_filtering with no subleaf 1; in a non-zero subleaf 1: mtc without MTC periods,
 * psb_cyc without CYC thresholds or PSB periods, ip_filtering without address ranges or ranges
 * without ip_filtering). */
void fwpt_caps_parse(const struct fwpt_cpuid_snapshot *snap, struct fwpt_caps *caps);
const char *fwpt_caps_reason_msg(enum fwpt_caps_reason r);
/* The processor of the capabilities, for the errata table: known when CPUID.1:EAX was read. */
void fwpt_caps_cpu_id(const struct fwpt_caps *caps, struct fwpt_cpu_id *id);
const char *fwpt_caps_reason_name(enum fwpt_caps_reason r);

/* The full human report (identity, every capability, bitmaps, MAXPHYADDR, verdict + reason, the
 * errata of the processor),
 * identical on the EFI console, in \fwpt\caps.txt and from `fwpt caps`. */
void fwpt_caps_report(const struct fwpt_caps *caps, const struct fwpt_sink *o);
/* One JSON object (Linux intel_pt/caps names + pt_supported + reason + "errata", the array of
 * fwpt_errata_json), newline-terminated. */
void fwpt_caps_json(const struct fwpt_caps *caps, const struct fwpt_sink *o);

#endif
