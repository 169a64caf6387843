/* fwpt tests — the real firmware traces make bench records (tests/bench/firmware-traces.sh): every
 * FWPT_BENCH_FW/TARGET/fwpt/ directory holding a trace.pt (and the img-BASE.bin images beside it). */
#ifndef FWPT_TESTS_FW_TRACES_H
#define FWPT_TESTS_FW_TRACES_H

struct fw_trace {
    char name[64];   /* TARGET, e.g. "read-file" */
    char dir[4096];  /* FWPT_BENCH_FW/TARGET/fwpt */
};

/* The traces in name order into *out (malloc'd, the caller frees it): how many; 0 when FWPT_BENCH_FW is
 * unset (a line on stdout says so); -1 when it is set but unreadable or holds none (said on stderr,
 * prefixed with 'who'). */
int fw_traces(const char *who, struct fw_trace **out);

/* FWPT_BENCH_FW unset: set it to $FWPT_BUILD/bench/fw (else build/bench/fw) when that is there, so the
 * tests find the traces make bench recorded in this build. */
void fw_traces_default(void);

#endif
