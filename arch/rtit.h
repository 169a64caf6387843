/* fwpt — Intel PT MSR numbers and bit fields (SDM Vol. 3C, "Trace Packets and MSRs"/"Intel PT MSRs").
 * Named masks only: no bare bit numbers elsewhere in the code. */
#ifndef FWPT_ARCH_RTIT_H
#define FWPT_ARCH_RTIT_H

#include <stdint.h>

#define FWPT_BIT(n) (1ull << (n))
#define FWPT_FIELD(hi, lo) (((~0ull) >> (63 - (hi))) & ~(FWPT_BIT(lo) - 1))
/* Extract/insert a field given its mask. */
#define FWPT_GET(mask, v) (((uint64_t)(v) & (mask)) / ((mask) & -(mask)))
#define FWPT_PUT(mask, x) (((uint64_t)(x) * ((mask) & -(mask))) & (mask))

/* ---- MSR numbers ---- */
#define MSR_IA32_APIC_BASE          0x0000001bu
#define MSR_PLATFORM_INFO           0x000000ceu
#define MSR_IA32_MTRRCAP            0x000000feu
#define MSR_IA32_SMRR_PHYSBASE      0x000001f2u
#define MSR_IA32_SMRR_PHYSMASK      0x000001f3u
#define MSR_IA32_PERF_GLOBAL_STATUS 0x0000038eu
#define MSR_IA32_RTIT_OUTPUT_BASE   0x00000560u
#define MSR_IA32_RTIT_OUTPUT_MASK_PTRS 0x00000561u
#define MSR_IA32_RTIT_CTL           0x00000570u
#define MSR_IA32_RTIT_STATUS        0x00000571u
#define MSR_IA32_RTIT_CR3_MATCH     0x00000572u
#define MSR_IA32_RTIT_ADDR0_A       0x00000580u
#define MSR_IA32_RTIT_ADDRn_A(n)    (0x00000580u + 2u * (n))
#define MSR_IA32_RTIT_ADDRn_B(n)    (0x00000581u + 2u * (n))
#define FWPT_MAX_ADDR_RANGES        4

/* ---- IA32_RTIT_CTL ---- */
#define RTIT_CTL_TRACEEN     FWPT_BIT(0)
#define RTIT_CTL_CYCEN       FWPT_BIT(1)
#define RTIT_CTL_OS          FWPT_BIT(2)
#define RTIT_CTL_USER        FWPT_BIT(3)
#define RTIT_CTL_PWREVTEN    FWPT_BIT(4)
#define RTIT_CTL_FUPONPTW    FWPT_BIT(5)
#define RTIT_CTL_FABRICEN    FWPT_BIT(6)
#define RTIT_CTL_CR3FILTER   FWPT_BIT(7)
#define RTIT_CTL_TOPA        FWPT_BIT(8)
#define RTIT_CTL_MTCEN       FWPT_BIT(9)
#define RTIT_CTL_TSCEN       FWPT_BIT(10)
#define RTIT_CTL_DISRETC     FWPT_BIT(11)
#define RTIT_CTL_PTWEN       FWPT_BIT(12)
#define RTIT_CTL_BRANCHEN    FWPT_BIT(13)
#define RTIT_CTL_MTCFREQ     FWPT_FIELD(17, 14)
#define RTIT_CTL_CYCTHRESH   FWPT_FIELD(22, 19)
#define RTIT_CTL_PSBFREQ     FWPT_FIELD(27, 24)
#define RTIT_CTL_EVENTEN     FWPT_BIT(31)
#define RTIT_CTL_ADDRn_CFG(n) FWPT_FIELD(35 + 4 * (n), 32 + 4 * (n))
#define RTIT_CTL_DISTNT      FWPT_BIT(55)
#define RTIT_CTL_INJECTPSBPMI FWPT_BIT(56)
/* ADDRn_CFG values */
#define RTIT_ADDR_CFG_OFF       0u
#define RTIT_ADDR_CFG_FILTER    1u
#define RTIT_ADDR_CFG_TRACESTOP 2u
/* Bits that are reserved on every implementation (18, 23, 30:28, 54:48, 63:57). */
#define RTIT_CTL_RESERVED_ALWAYS (FWPT_BIT(18) | FWPT_BIT(23) | FWPT_FIELD(30, 28) | FWPT_FIELD(54, 48) | FWPT_FIELD(63, 57))

/* ---- IA32_RTIT_STATUS ---- */
#define RTIT_STATUS_FILTEREN      FWPT_BIT(0)
#define RTIT_STATUS_CONTEXTEN     FWPT_BIT(1)
#define RTIT_STATUS_TRIGGEREN     FWPT_BIT(2)
#define RTIT_STATUS_ERROR         FWPT_BIT(4)
#define RTIT_STATUS_STOPPED       FWPT_BIT(5)
#define RTIT_STATUS_PENDPSB       FWPT_BIT(6)
#define RTIT_STATUS_PENDTOPAPMI   FWPT_BIT(7)
#define RTIT_STATUS_PACKETBYTECNT FWPT_FIELD(48, 32)
#define RTIT_STATUS_RESERVED      (FWPT_BIT(3) | FWPT_FIELD(31, 8) | FWPT_FIELD(63, 49))

/* ---- IA32_RTIT_OUTPUT_MASK_PTRS ---- */
#define RTIT_MASK_LOWERMASK        FWPT_FIELD(6, 0)   /* forced to 1s */
#define RTIT_MASK_MASKORTABLEOFFSET FWPT_FIELD(31, 7) /* ToPA: table offset (entry index << 3) */
#define RTIT_MASK_OUTPUTOFFSET     FWPT_FIELD(63, 32)

/* ---- ToPA table entry (SDM "ToPA Table Entry Format") ---- */
#define TOPA_ENTRY_END   FWPT_BIT(0)
#define TOPA_ENTRY_INT   FWPT_BIT(2)
#define TOPA_ENTRY_STOP  FWPT_BIT(4)
#define TOPA_ENTRY_SIZE  FWPT_FIELD(9, 6)
#define TOPA_ENTRY_BASE_SHIFT 12
#define TOPA_ENTRY_RESERVED_LOW (FWPT_BIT(1) | FWPT_BIT(3) | FWPT_BIT(5) | FWPT_FIELD(11, 10))
#define TOPA_SIZE_MAX_ENC 15u  /* 0 = 4K ... 15 = 128M */

/* ---- IA32_PERF_GLOBAL_STATUS ---- */
#define PERF_GLOBAL_STATUS_TRACE_TOPA_PMI FWPT_BIT(55)

/* ---- CPUID leaf 14H, subleaf 0 ---- */
#define CPUID14_0_EBX_CR3_FILTERING      FWPT_BIT(0)
#define CPUID14_0_EBX_PSB_CYC            FWPT_BIT(1)
#define CPUID14_0_EBX_IP_FILTERING       FWPT_BIT(2) /* also TraceStop, and PT MSRs preserved across warm reset */
#define CPUID14_0_EBX_MTC                FWPT_BIT(3)
#define CPUID14_0_EBX_PTWRITE            FWPT_BIT(4)
#define CPUID14_0_EBX_POWER_EVENT_TRACE  FWPT_BIT(5)
#define CPUID14_0_EBX_PSB_PMI_PRESERVE   FWPT_BIT(6)
#define CPUID14_0_EBX_EVENT_TRACE        FWPT_BIT(7)
#define CPUID14_0_EBX_TNT_DISABLE        FWPT_BIT(8)
#define CPUID14_0_ECX_TOPA_OUTPUT        FWPT_BIT(0)
#define CPUID14_0_ECX_TOPA_MULTIPLE      FWPT_BIT(1)
#define CPUID14_0_ECX_SINGLE_RANGE       FWPT_BIT(2)
#define CPUID14_0_ECX_OUTPUT_SUBSYS      FWPT_BIT(3)
#define CPUID14_0_ECX_PAYLOADS_LIP       FWPT_BIT(31)
/* subleaf 1 */
#define CPUID14_1_EAX_NUM_ADDR_RANGES    FWPT_FIELD(2, 0)
#define CPUID14_1_EAX_MTC_PERIODS        FWPT_FIELD(31, 16)
#define CPUID14_1_EBX_CYCLE_THRESHOLDS   FWPT_FIELD(15, 0)
#define CPUID14_1_EBX_PSB_PERIODS        FWPT_FIELD(31, 16)

#define CPUID7_0_EBX_INTEL_PT            FWPT_BIT(25)

/* ---- topa: output, restricted memory, PMI (SDM "Trace Output", "Restricted Memory Access") ---- */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x00000390u
#define MSR_IA32_MTRR_DEF_TYPE      0x000002ffu
#define MSR_IA32_MTRR_PHYSBASE(n)   (0x00000200u + 2u * (n))
#define MSR_IA32_MTRR_PHYSMASK(n)   (0x00000201u + 2u * (n))
#define MSR_IA32_MTRR_FIX64K_00000  0x00000250u /* 8 x 64K: 00000H-7FFFFH */
#define MSR_IA32_MTRR_FIX16K_80000  0x00000258u /* 8 x 16K: 80000H-9FFFFH */
#define MSR_IA32_MTRR_FIX16K_A0000  0x00000259u /* 8 x 16K: A0000H-BFFFFH */
#define MSR_IA32_MTRR_FIX4K(n)      (0x00000268u + (n)) /* n = 0..7: 8 x 4K from C0000H + n * 8000H */
#define RTIT_OUTPUT_BASE_RESERVED_LOW FWPT_FIELD(6, 0)   /* IA32_RTIT_OUTPUT_BASE[6:0] reserved */
#define RTIT_MASK_PTRS_MASK        FWPT_FIELD(31, 0)      /* single-range OutputMask[31:0] */
#define RTIT_TABLE_OFFSET_MAX      0x0ffffff8ull          /* maximum proc_trace_table_offset */
#define RTIT_CR3_MATCH_RESERVED    FWPT_FIELD(4, 0)
#define APIC_BASE_ADDR             FWPT_FIELD(51, 12)     /* IA32_APIC_BASE: APIC page base */
#define APIC_PAGE_SIZE             0x1000ull
#define SMRR_PHYSBASE_BASE         FWPT_FIELD(31, 12)
#define SMRR_PHYSBASE_TYPE         FWPT_FIELD(7, 0)
#define SMRR_PHYSMASK_MASK         FWPT_FIELD(31, 12)
#define SMRR_PHYSMASK_VALID        FWPT_BIT(11)
#define MTRRCAP_VCNT               FWPT_FIELD(7, 0)       /* IA32_MTRRCAP: variable MTRR count */
#define MTRRCAP_FIX                FWPT_BIT(8)            /* IA32_MTRRCAP: fixed-range MTRRs supported */
#define MTRRCAP_SMRR               FWPT_BIT(11)           /* IA32_MTRRCAP: SMRR interface supported */
#define MTRR_DEF_TYPE_TYPE         FWPT_FIELD(7, 0)
#define MTRR_DEF_TYPE_FE           FWPT_BIT(10)           /* fixed-range MTRRs enabled */
#define MTRR_DEF_TYPE_E            FWPT_BIT(11)           /* MTRRs enabled; clear: all memory is UC */
#define MTRR_PHYSBASE_TYPE         FWPT_FIELD(7, 0)
#define MTRR_PHYSMASK_VALID        FWPT_BIT(11)
#define MTRR_TYPE_UC               0u
#define MTRR_TYPE_WB               6u
#define TOPA_ENTRY_SIZE_BYTES      8u
#define TOPA_REGION_MIN            0x1000ull              /* Size encoding 0 = 4K */

#endif
