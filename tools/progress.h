/* fwpt host tool — a progress line on stderr for long decodes and listings: bytes of the trace decoded (and the
 * percent), instructions (fwpt dump: packets), their rate. Shown only when stderr is a terminal, not --quiet, and
 * the work has run for about a second; refreshed a few times a second on one line (\r), cleared at the end.
 *
 *     struct fwpt_progress p;
 *     fwpt_progress_start(&p, "fwpt flow", "instructions", trace_size, quiet);
 *     for (...) fwpt_progress(&p, bytes_done, insns, events);   // cheap: a look at the clock every 64K of them
 *     fwpt_progress_end(&p);
 *
 * FWPT_PROGRESS_DELAY_MS (environment) changes the second of delay (tests). */
#ifndef FWPT_TOOLS_PROGRESS_H
#define FWPT_TOOLS_PROGRESS_H

#include <stdint.h>

struct fwpt_progress {
    int on;               /* stderr is a terminal and not quiet */
    const char *what;
    const char *unit;     /* what the count counts: "instructions", "packets" */
    uint64_t total;       /* trace bytes (0: no percent) */
    double t0, next;      /* start; when the next line is due */
    uint64_t check_at;    /* look at the clock once insns + events reach this */
    unsigned width;       /* the line on the terminal (0: none) */
    unsigned long lines;  /* lines shown */
};

void fwpt_progress_start(struct fwpt_progress *p, const char *what, const char *unit, uint64_t total_bytes, int quiet);
/* stdout goes to a file (or /dev/null), not to a terminal, a pipe or a socket: a listing on the terminal is its own
 * progress, and through a pipe it is a pager's or grep's output on the same terminal, so those show no line. */
int fwpt_progress_stdout_is_file(void);
void fwpt_progress_tick(struct fwpt_progress *p, uint64_t bytes, uint64_t insns, uint64_t events);
static inline void fwpt_progress(struct fwpt_progress *p, uint64_t bytes, uint64_t insns, uint64_t events)
{
    if (p->on && insns + events >= p->check_at)
        fwpt_progress_tick(p, bytes, insns, events);
}
/* Clears the line (before anything else goes to stderr). */
void fwpt_progress_end(struct fwpt_progress *p);

#endif
