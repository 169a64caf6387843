/* fwpt — the replay CPU backend: answers CPUID from a recorded profile, the way the recorded
 * processor would (above the max leaf an Intel CPU returns the highest basic leaf's data), and
 * refuses every RDMSR/WRMSR with FWPT_E_FAULT (a recording holds no MSRs, so no PT MSRs either).
 * Built-in profiles are rows of tests/data/cpuid_leaf14.tsv, a copy of shared/data (values copied, source named). */
#ifndef FWPT_ARCH_CPU_REPLAY_H
#define FWPT_ARCH_CPU_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/caps.h"
#include "arch/cpu.h"
#include "arch/errata.h"

/* One recorded answer. subleaf FWPT_CPUID_ANY_SUBLEAF: the leaf ignores ECX. */
#define FWPT_CPUID_ANY_SUBLEAF 0xffffffffu
struct fwpt_cpuid_entry {
    uint32_t leaf, subleaf;
    struct fwpt_cpuid_regs regs;
};

/* A recorded processor: the registers enumeration reads, copied from one row of the data file. */
struct fwpt_cpu_profile {
    const char *name;      /* "broadwell", "skylake", "tremont", "alderlake-p", "gracemont-e", ... */
    const char *cpu_name;  /* brand string as in the dump */
    const char *fms;       /* family/model/stepping as decoded in the data file ("6/94/3") */
    const char *source;    /* source_file column of the row */
    uint32_t max_basic_leaf;
    char vendor[13];
    uint32_t leaf1_eax, leaf7_ebx;
    struct fwpt_cpuid_regs leaf14_0, leaf14_1; /* leaf14_1 all-zero when CPUID.(14H,0):EAX = 0 */
    uint32_t leaf1a_eax;                       /* meaningful when max_basic_leaf >= 1AH */
    uint32_t leaf80000008_eax;                 /* MAXPHYADDR in [7:0] */
};

size_t fwpt_cpu_profile_count(void);
const struct fwpt_cpu_profile *fwpt_cpu_profile_at(size_t i); /* NULL past the end */
const struct fwpt_cpu_profile *fwpt_cpu_profile_find(const char *name); /* NULL if unknown */
/* The profile the software tracer emulates by default: when no built-in profile has the processor's
 * family and model (or the processor is not Intel). */
#define FWPT_PROFILE_DEFAULT "skylake"
/* The built-in profile closest to a processor: the first with Intel PT whose family and model are id's
 * (*matched set), else FWPT_PROFILE_DEFAULT (*matched clear). Never NULL. */
const struct fwpt_cpu_profile *fwpt_cpu_profile_closest(const struct fwpt_cpu_id *id, bool *matched);
/* The snapshot fwpt_caps_read would produce on that processor (pure). */
void fwpt_cpu_profile_snapshot(const struct fwpt_cpu_profile *p, struct fwpt_cpuid_snapshot *snap);

#define FWPT_REPLAY_MAX_ENTRIES 24
#define FWPT_REPLAY_LOG 32
struct fwpt_replay {
    struct fwpt_cpuid_entry entries[FWPT_REPLAY_MAX_ENTRIES];
    unsigned n_entries;
    uint32_t max_basic_leaf, max_ext_leaf; /* from the recorded leaf 0 / 80000000H */
    bool intel;                            /* above-max rule: Intel repeats the highest basic leaf */
    /* What was asked, in order (tests check that enumeration never reads above the max leaf). */
    uint32_t asked_leaf[FWPT_REPLAY_LOG], asked_subleaf[FWPT_REPLAY_LOG];
    unsigned n_asked;                      /* may exceed FWPT_REPLAY_LOG; the log keeps the first */
    unsigned n_rdmsr, n_wrmsr;
};

/* From a table of recorded answers (leaf 0 must be present; 80000000H optional).
 * FWPT_E_INVAL when leaf 0 is missing, FWPT_E_NOMEM when the table is too long. */
enum fwpt_status fwpt_replay_init_table(struct fwpt_replay *r, const struct fwpt_cpuid_entry *e, unsigned n);
/* From a snapshot: answers exactly what the snapshot recorded (leaves 0, 1, 7, 14H.0/1, 1AH,
 * 80000000H, 80000008H), zeros for other leaves at or below the max. */
void fwpt_replay_init_snapshot(struct fwpt_replay *r, const struct fwpt_cpuid_snapshot *snap);
void fwpt_replay_init_profile(struct fwpt_replay *r, const struct fwpt_cpu_profile *p);
/* The CPU interface over r (r must outlive it). name is "replay". */
struct fwpt_cpu fwpt_replay_cpu(struct fwpt_replay *r);
/* CPUID as the recorded CPU answers it; other backends (model, soft) may delegate CPUID here. */
enum fwpt_status fwpt_replay_cpuid(struct fwpt_replay *r, uint32_t leaf, uint32_t subleaf,
                                   struct fwpt_cpuid_regs *out);

#endif
