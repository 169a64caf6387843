/* fwpt — progress lines while the app works for long: every few seconds a line with
 * the time spent, the trace bytes and the instructions done, while it decodes (on the console), and while the
 * software backend single-steps (from the #DB handler: written to the COM1 UART directly, never through the
 * firmware's console, whose graphics driver allocates pool memory: the stepped code may hold the pool lock).
 * The interval is the app's progress=N (efi/options.h).
 * Time is the TSC, its rate measured once over a Stall. */
#ifndef FWPT_EFI_PROGRESS_H
#define FWPT_EFI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include "base/text.h"

static inline uint64_t fwpt_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

struct fwpt_app_progress {
    const char *what;   /* the line's first word: "packets", "flow", "soft" */
    uint64_t tsc_hz;    /* 0: off */
    uint64_t start, next, every; /* TSC ticks */
    uint64_t total;     /* trace bytes (0: not shown) */
};

/* A line every 'seconds' (0: never). tsc_hz 0: measured here (a 2 ms Stall). */
void fwpt_app_progress_start(struct fwpt_app_progress *p, const char *what, uint64_t total, uint64_t tsc_hz,
                             uint64_t seconds);
static inline bool fwpt_app_progress_due(const struct fwpt_app_progress *p, uint64_t tsc)
{
    return p->tsc_hz && tsc >= p->next;
}
/* "flow: 10 s: 123456 of 2097152 trace bytes (5%), 12345678 instructions, 1234567/s", and the next deadline.
 * steps: also "N steps" (single-stepping; 0: not shown). */
void fwpt_app_progress_line(struct fwpt_app_progress *p, const struct fwpt_sink *o, uint64_t tsc, uint64_t bytes,
                            uint64_t insns, uint64_t steps);

/* A 16550 UART at COM1 (I/O 0x3F8), found by its scratch register; the sink writes to it directly (polled, "\n"
 * as "\r\n"), and drops a byte while the divisor latch is open (the firmware is reprogramming it). */
bool fwpt_uart_present(void);
struct fwpt_sink fwpt_uart_sink(void);

#endif
