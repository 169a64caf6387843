/* fwpt — Intel PT decoder errata, keyed by the processor (Intel specification updates; the same
 * erratum carries other names in other families' documents, e.g. BDM70 = SKD024 = SKL021).
 * A pure function of the CPU signature: which packet sequences a decoder must accept because
 * the processor writes them although the SDM's packet rules say otherwise. */
#ifndef FWPT_ARCH_ERRATA_H
#define FWPT_ARCH_ERRATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "base/text.h"

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

/* ---- the errata table: one list for the decoder, the printers (caps report, JSON) and the docs ---- */

/* X(field, NAME, aliases, what): the decoder errata, in the order of struct fwpt_errata's fields.
 * NAME is the erratum's name in the first specification update that listed it; aliases are its
 * names in other families' specification updates; what: one line on what it does to a trace. */
#define FWPT_ERRATA_DECODE_LIST(X)                                                                    \
    X(bdm70, BDM70, "SKD024 SKL021 KBL021",                                                           \
      "PSB+ may contain FUP and MODE.Exec while tracing is off, ahead of a TIP.PGE")                  \
    X(bdm64, BDM64, "",                                                                               \
      "a TSX abort right after a branch may write an incorrect TIP or TNT before the abort's TIP")    \
    X(skd007, SKD007, "SKL049 KBL041",                                                                \
      "OVF may follow the first byte of a multi-byte CYC (the rest of the CYC is missing)")           \
    X(skd022, SKD022, "SKL024 KBL023", "a VM entry that clears TraceEn may write a FUP before the TIP.PGD") \
    X(skd010, SKD010, "SKD014 SKL033 KBL030", "the FUP or TIP.PGE that should follow an OVF may be missing") \
    X(skl014, SKL014, "KBL014", "TIP.PGD of a direct branch that clears FilterEn may have no IP payload") \
    X(apl12, APL12, "", "OVF may be followed by a FUP although FilterEn is clear (outside TIP.PGE/TIP.PGD)") \
    X(apl11, APL11, "", "OVF may be followed by a TIP.PGD (TraceEn or ContextEn cleared during the overflow)") \
    X(skl168, SKL168, "", "a CYC (and its MTC) just before a PSB may be dropped")                     \
    X(skz84, SKZ84, "",                                                                               \
      "in a VMX guest with TSC offsetting or scaling, TMA has corrupt CTC/FastCounter and a bogus byte follows")

/* X(field, NAME, aliases, what): errata the trace settings avoid (no decoder workaround); what says
 * how fwpt avoids it. */
#define FWPT_ERRATA_TRACE_LIST(X)                                                                     \
    X(bdm106, BDM106, "", "BranchEn must be 1: fwpt always sets it on these models")                  \
    X(tgl052, TGL052, "ADL037 RPL017",                                                                \
      "single-range output above 4 KiB may contain incorrect data: fwpt plans ToPA, warns otherwise")

#define FWPT_ERRATA_LIST(X) FWPT_ERRATA_DECODE_LIST(X) FWPT_ERRATA_TRACE_LIST(X)

/* FWPT_ERRATUM_BDM70, ...: decoder errata first (FWPT_ERRATUM_DECODE_COUNT of them), then trace ones. */
enum fwpt_erratum {
#define FWPT_ERRATUM_ENUM(field, name, aliases, what) FWPT_ERRATUM_##name,
    FWPT_ERRATA_LIST(FWPT_ERRATUM_ENUM)
#undef FWPT_ERRATUM_ENUM
    FWPT_ERRATUM_COUNT
};
#define FWPT_ERRATUM_COUNT_DECODE_(field, name, aliases, what) +1
#define FWPT_ERRATUM_DECODE_COUNT (0 FWPT_ERRATA_DECODE_LIST(FWPT_ERRATUM_COUNT_DECODE_))

struct fwpt_erratum_info {
    const char *name;    /* "BDM70" */
    const char *aliases; /* "SKD024 SKL021 KBL021" ("" when none), space-separated */
    const char *what;    /* one line */
    bool decoder;        /* true: the decoder works around it (a struct fwpt_errata field); false: trace settings */
};

/* NULL when e is out of range. */
const struct fwpt_erratum_info *fwpt_erratum_info(enum fwpt_erratum e);
/* Whether erratum e (decoder or trace) applies to the processor (false when !id->known or not Intel). */
bool fwpt_erratum_applies(enum fwpt_erratum e, const struct fwpt_cpu_id *id);

/* The model table, for documentation and tests: row i (i < fwpt_errata_model_count()) is one
 * family/model and the errata applying to it, as a bit mask (1u << enum fwpt_erratum). */
size_t fwpt_errata_model_count(void);
void fwpt_errata_model_at(size_t i, uint32_t *family, uint32_t *model, uint32_t *mask);

/* "FAMILY/MODEL[/STEPPING]" (each decimal or 0x-hex; family 1..270, model 0..255, stepping 0..15;
 * an Intel processor is assumed, as libipt's ptxed --cpu does) or "none" (known = false).
 * FWPT_OK, or FWPT_E_INVAL with *why (when why is not NULL) set to a static line saying what is
 * wrong; *out is written only on success. */
enum fwpt_status fwpt_cpu_parse_why(const char *s, struct fwpt_cpu_id *out, const char **why);
enum fwpt_status fwpt_cpu_parse(const char *s, struct fwpt_cpu_id *out);

/* The errata of the processor as a table: a heading line ("errata" + padding + a summary), then
 * one line per erratum that applies (name, decoder|trace, aliases, what). Shared by the EFI
 * console, caps.txt and `fwpt caps`. */
void fwpt_errata_report(const struct fwpt_cpu_id *id, const struct fwpt_sink *o);
/* A JSON array of the errata that apply: [{"name":..,"aliases":[..],"kind":"decoder"|"trace","what":..}]. */
void fwpt_errata_json(const struct fwpt_cpu_id *id, const struct fwpt_sink *o);

#endif
