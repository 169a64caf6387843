/* fwpt tests — random x86-64 programs, their executed instruction flow (ground truth) and the
 * Intel PT packet stream the processor would emit for that execution (encoded with libipt).
 *
 * The generator chooses every branch outcome and indirect target from a seeded RNG, executes
 * the program's control flow on a model of the stack, and emits packets by the SDM rules:
 * TNT bits per conditional branch (and per compressed RET), TIP with the shortest IP
 * compression against Last IP (sometimes a longer legal one), RET compression against a
 * 64-entry CALL stack (SDM "Indirect Transfer Compression for Returns (RET)"), PSB+ (Last IP and the CALL stack reset), FUP+TIP for
 * injected interrupts, FUP+TIP.PGD / TIP.PGD / TIP.PGE, OVF+FUP. Hosted C (tests only). */
#ifndef FWPT_TESTS_PROGEN_H
#define FWPT_TESTS_PROGEN_H

#include <stddef.h>
#include <stdint.h>

/* Feature switches (all on by default). */
#define PROGEN_F_INTERRUPT  0x01u /* FUP + TIP to a handler, IRETQ back (TIP) */
#define PROGEN_F_DISABLE    0x02u /* FUP + TIP.PGD, TIP.PGD on indirect branches, later TIP.PGE */
#define PROGEN_F_OVERFLOW   0x04u /* OVF + FUP after lost execution */
#define PROGEN_F_PSB        0x08u /* PSB+ every so often */
#define PROGEN_F_LOOSE_IPC  0x10u /* sometimes a longer (still legal) IP compression */
#define PROGEN_F_RET_CLOBBER 0x20u /* mov %rax,(%rsp); ret -> uncompressed RET */
#define PROGEN_F_ALL        0x3fu
/* RET compression model. Set: the SDM's (SDM "Indirect Transfer Compression for Returns (RET)" step 3) -- every near RET pops, also an
 * uncompressed one, so later RETs may compress against the entries below. Clear: the processor
 * is modelled conservatively -- an uncompressed RET empties the stack -- which every decoder
 * model decodes the same way (libipt does not pop on uncompressed RETs). */
#define PROGEN_F_RETC_SDM_POP 0x40u

struct progen_cfg {
    uint64_t seed;
    unsigned nfuncs;       /* 0: chosen from the seed */
    size_t max_insns;      /* traced instructions before the final disable */
    unsigned features;     /* PROGEN_F_* */
    unsigned psb_period;   /* approximate trace bytes between PSB+ (0: chosen from the seed) */
    int no_truth;          /* count executed instructions (ntruth) without recording them */
    unsigned extra_plain;  /* percent of extra straight-line instructions (longer blocks); 0: none */
    int biased;            /* each conditional branch mostly goes one way (as in compiled code) */
    /* Timing packets (PROGEN_T_*; none by default): a clock advances by a few core cycles per instruction (and
     * between packets); TSC (+ TMA with MTC) and CBR in every PSB+, now and then a TSC outside; an MTC before
     * the first packet after each CTC period of 2^mtc_freq; a CYC (the cycles since the last) before most
     * CYC-eligible packets (TNT, TIP, TIP.PGE/PGD, FUP); with PROGEN_T_CBR the ratio changes now and then
     * (a CBR outside PSB+). One CTC tick is ctc_ratio TSC ticks
     * (CPUID 15H EBX/EAX = ctc_ratio/1); TSC ticks = core cycles * nom_freq / CBR. The random choices are
     * drawn apart from the program's, so the flow is the same with any timing. */
    unsigned timing;
    unsigned mtc_freq;     /* IA32_RTIT_CTL.MTCFreq */
    unsigned ctc_ratio;    /* TSC ticks per CTC tick (0: 4) */
    unsigned nom_freq;     /* the max non-turbo ratio (0: 16) */
};
#define PROGEN_T_TSC 0x1u
#define PROGEN_T_MTC 0x2u
#define PROGEN_T_CYC 0x4u
#define PROGEN_T_CBR 0x8u

enum progen_event_kind {
    PROGEN_EV_ENABLED = 1, /* TIP.PGE: tracing (re)starts at ip */
    PROGEN_EV_DISABLED,    /* TIP.PGD (after FUP: async, at = ip) */
    PROGEN_EV_INTERRUPT,   /* FUP(from) + TIP(to) */
    PROGEN_EV_OVERFLOW,    /* OVF, resumes at ip */
};

struct progen_event {
    uint32_t kind;
    uint32_t async;        /* DISABLED: 1 when bound to a FUP (not to a branch) */
    size_t index;          /* number of truth instructions before the event */
    uint64_t ip;           /* ENABLED/OVERFLOW: resume IP; DISABLED: FUP IP or 0; INTERRUPT: from */
    uint64_t to;           /* INTERRUPT: handler */
};

struct progen_insn {
    uint64_t ip;
    uint8_t size;
};

struct progen {
    uint64_t base;          /* load address of code[] */
    uint8_t *code;
    size_t code_size;
    uint8_t *trace;
    size_t trace_size;
    struct progen_insn *truth; /* executed instructions while tracing was enabled */
    size_t ntruth;
    struct progen_event *events;
    size_t nevents;
    /* counts of what was emitted, for coverage checks */
    unsigned long n_tsc, n_mtc, n_cyc, n_cbr;
    unsigned long n_tnt_bits, n_tip, n_ret_compressed, n_ret_tip, n_psb, n_interrupts,
        n_disables, n_enables, n_overflows, n_zero_len_calls;
};

/* Builds program, execution and trace. Returns 0, or -1 when out of memory / encoder failure. */
int progen_build(const struct progen_cfg *cfg, struct progen *out);
void progen_free(struct progen *p);

#endif
