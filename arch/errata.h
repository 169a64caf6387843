/* fwpt — Intel PT decoder errata, keyed by the processor (Intel specification updates; the same
 * erratum carries other names in other families' documents, e.g. BDM70 = SKD024 = SKL021).
 * A pure function of the CPU signature: which packet sequences a decoder must accept because
 * the processor writes them although the SDM's packet rules say otherwise. */
#ifndef FWPT_ARCH_ERRATA_H
#define FWPT_ARCH_ERRATA_H

#include <stdbool.h>
#include <stdint.h>

/* One bit per erratum a decoder works around. */
struct fwpt_errata {
    bool bdm70;  /* PSB+ may contain FUP and MODE.Exec while tracing is off, ahead of a TIP.PGE */
    bool bdm64;  /* an incorrect TIP may precede the TIP of a TSX abort */
    bool skd007; /* OVF may follow the first byte of a multi-byte CYC (rest of the CYC missing) */
    bool skd022; /* VM entry that clears TraceEn may write FUP before TIP.PGD */
    bool skd010; /* the FUP (or TIP.PGE) after OVF may be missing */
    bool skl014; /* TIP.PGD of a direct branch that clears FilterEn may have no IP payload */
    bool apl12;  /* OVF may be followed by a FUP although FilterEn is clear */
    bool apl11;  /* OVF may be followed by TIP.PGD */
    bool skl168; /* a CYC (and its MTC) just before a PSB may be dropped */
    bool skz84;  /* with VMX TSC offsetting/scaling, TMA is corrupt and followed by a bogus byte */
};

/* The processor a trace was recorded on. known == false: no CPU given (decode robustly, no
 * processor-specific workaround). */
struct fwpt_cpu_id {
    bool known;
    bool intel;              /* vendor GenuineIntel (errata apply to Intel processors only) */
    uint32_t family, model;  /* display family/model, extended fields folded in */
    uint32_t stepping;
    bool stepping_known;
};

/* The errata of a processor (all false when !id->known or not Intel). */
void fwpt_errata_for_cpu(const struct fwpt_cpu_id *id, struct fwpt_errata *out);

#endif
