/* fwpt — time from timing packets (SDM Vol. 3C, Intel Processor Trace, "Tracking Time"): TSC, TMA,
 * MTC, CYC and CBR turned into an estimate of the timestamp counter after every packet, plus the
 * calibration that converts CYC's core cycles into TSC ticks. Pure functions of the packets and the
 * configuration (CPUID 15H, MTCFreq, the max non-turbo ratio); no allocation, no libc. The estimate is
 * the one libipt computes (its dump tool, and pt_insn_time of its decoders), so that both can be
 * compared line by line. */
#ifndef FWPT_DECODE_TIME_H
#define FWPT_DECODE_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include "base/status.h"
#include "decode/packet.h"

/* The fixed-point shift of the FastCounter-per-cycle ratio (fcr): fcr = (TSC ticks << 8) / cycles. */
#define FWPT_TIME_FCR_SHIFT 8

struct fwpt_time_config {
    uint32_t cpuid_15_eax;    /* CPUID.15H:EAX, the denominator of the TSC / core crystal clock ratio (0: unknown) */
    uint32_t cpuid_15_ebx;    /* CPUID.15H:EBX, its numerator (0: unknown) */
    uint8_t mtc_freq;         /* IA32_RTIT_CTL.MTCFreq (0..15): MTC carries CTC[MTCFreq+7:MTCFreq] */
    uint8_t nom_freq;         /* the max non-turbo ratio (P1 / bus clock; 0: unknown), to turn CBR into cycles */
    bool skl168;              /* SKL168: a CYC (and its MTC) right before a PSB may be dropped */
    bool keep_tcal_on_ovf;    /* keep the calibration across an OVF (default: start it again) */
    bool no_tcal;             /* do not calibrate (CYC then gives no time) */
};

/* The time: what the packets so far say about the TSC. */
struct fwpt_time_tsc {
    uint64_t tsc;      /* the estimate */
    uint64_t base;     /* the TSC at the last TSC/MTC, FastCounter removed (time at CTC granularity) */
    uint64_t fc;       /* TSC ticks added since base (TMA's FastCounter, then CYCs) */
    uint32_t ctc;      /* CTC of the last MTC (or TMA's CTC bits) */
    uint32_t ctc_cyc;  /* CTC when the CYC accumulation last started */
    uint32_t lost_mtc, lost_cyc;
    uint8_t cbr;
    bool have_tsc, have_tma, have_mtc, have_cbr;
};

/* The calibration: TSC ticks per core cycle, measured between two MTCs (or two TSCs in PSB+), or P1/CBR. */
struct fwpt_time_cal {
    uint64_t fcr, min_fcr, max_fcr; /* calibrated when min_fcr <= max_fcr */
    uint64_t tsc;                   /* the last TSC */
    uint64_t cyc_tsc, cyc_mtc;      /* cycles since the last TSC, the last MTC */
    uint32_t ctc;                   /* CTC of the last MTC */
    uint32_t lost_mtc;
    bool have_mtc, check_skl168;
};

struct fwpt_time {
    struct fwpt_time_config cfg;
    struct fwpt_time_tsc t;
    struct fwpt_time_cal cal;
    bool in_psb; /* between PSB and PSBEND: TSC and CBR are status (calibrate differently) */
};

/* What one packet did to the time: up to three diagnostics, in the order they arose. */
enum fwpt_time_diag_kind {
    FWPT_TIME_DIAG_CAL_QUERY,  /* the calibration was needed and missing ("calibration error") */
    FWPT_TIME_DIAG_CALIBRATE,  /* calibrating failed ("error calibrating time") */
    FWPT_TIME_DIAG_UPDATE,     /* updating the time failed ("error updating time") */
};
struct fwpt_time_step {
    bool timing;     /* the packet is one of TSC, TMA, MTC, CYC, CBR */
    bool show_time;  /* the packet changes the time (TSC, TMA, MTC, CYC) */
    bool show_fcr;   /* the packet changes the calibration (TSC, MTC, CBR) */
    unsigned ndiag;
    struct {
        uint8_t kind;            /* enum fwpt_time_diag_kind */
        enum fwpt_status status; /* FWPT_E_NO_CALIBRATION: a CYC dropped for want of calibration */
    } diag[3];
};

void fwpt_time_init(struct fwpt_time *tm, const struct fwpt_time_config *cfg);
/* Back to the state before the first packet (after a decode error, the dump starts again at a PSB). */
void fwpt_time_reset(struct fwpt_time *tm);
/* Apply one packet (any type: the others are ignored, PSB/PSBEND/OVF change the calibration). */
void fwpt_time_packet(struct fwpt_time *tm, const struct fwpt_packet *pkt, struct fwpt_time_step *st);

/* The estimate: FWPT_E_NO_TIME before the first TSC (*tsc is then what MTC/CYC accumulated, from 0). */
enum fwpt_status fwpt_time_tsc(const struct fwpt_time *tm, uint64_t *tsc, uint32_t *lost_mtc, uint32_t *lost_cyc);
/* The calibration (fcr, FWPT_TIME_FCR_SHIFT fraction bits): FWPT_E_NO_TIME when there is none yet. */
enum fwpt_status fwpt_time_fcr(const struct fwpt_time *tm, uint64_t *fcr);


/* ---- showing the time as libipt's ptdump does (--time / --tcal, --time-delta, --no-wall-clock) ---- */

struct fwpt_time_show {
    bool time;           /* a "tsc" column after TSC, TMA, MTC, CYC */
    bool tcal;           /* an "fcr" column after TSC, MTC, CBR (not with time) */
    bool delta;          /* the change since the last value shown, "+a0000" / "-1c0" */
    bool no_wall_clock;  /* before the first TSC, show what MTC/CYC accumulated instead of "<unavailable>" */
    uint64_t last_tsc, last_fcr;
};

/* The column after the packet just applied (st): false when there is none. *id is "tsc" or "fcr",
 * text (at least 32 bytes) e.g. "00000000000a0000", "+18", "-1c0", "+0.250", "<unavailable>". When the
 * value is missing, *err is its status (shown as "error printing time"), else FWPT_OK. */
bool fwpt_time_column(const struct fwpt_time *tm, struct fwpt_time_show *sh, const struct fwpt_time_step *st,
                      const char **id, char *text, enum fwpt_status *err);

/* The words ptdump uses for a diagnostic's kind: "calibration error", "error calibrating time",
 * "error updating time"; "error printing time" for FWPT_TIME_DIAG_PRINT. */
#define FWPT_TIME_DIAG_PRINT 3
const char *fwpt_time_diag_what(unsigned kind);

#endif
