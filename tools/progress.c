/* fwpt host tool — the progress line (see progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tools/progress.h"

#define CHECK_EVERY (1u << 16) /* instructions and events between looks at the clock: under 1 ms of decoding */
#define REFRESH 0.25           /* seconds between lines */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int fwpt_progress_stdout_is_file(void)
{
    struct stat so;
    return !isatty(STDOUT_FILENO) && fstat(STDOUT_FILENO, &so) == 0 && !S_ISFIFO(so.st_mode) && !S_ISSOCK(so.st_mode);
}

void fwpt_progress_start(struct fwpt_progress *p, const char *what, const char *unit, uint64_t total_bytes, int quiet)
{
    double delay = 1.0;
    const char *e = getenv("FWPT_PROGRESS_DELAY_MS");
    if (e && *e)
        delay = atof(e) / 1000.0;
    p->on = !quiet && isatty(STDERR_FILENO);
    p->what = what;
    p->unit = unit;
    p->total = total_bytes;
    p->t0 = now();
    p->next = p->t0 + delay;
    p->check_at = 0;
    p->width = 0;
    p->lines = 0;
}

/* 1234567 -> "1.2M", 45678 -> "45.7k", 123 -> "123" */
static void human(char *out, size_t cap, double v)
{
    if (v >= 1e9)
        snprintf(out, cap, "%.1fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(out, cap, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, cap, "%.1fk", v / 1e3);
    else
        snprintf(out, cap, "%.0f", v);
}

void fwpt_progress_tick(struct fwpt_progress *p, uint64_t bytes, uint64_t insns, uint64_t events)
{
    p->check_at = insns + events + CHECK_EVERY;
    double t = now();
    if (t < p->next)
        return;
    p->next = t + REFRESH;
    double dt = t - p->t0 > 1e-9 ? t - p->t0 : 1e-9;
    char b[32], tb[32], n[32], r[32], line[160];
    human(b, sizeof b, (double)bytes);
    human(tb, sizeof tb, (double)p->total);
    human(n, sizeof n, (double)insns);
    human(r, sizeof r, (double)insns / dt);
    int len;
    if (p->total)
        len = snprintf(line, sizeof line, "%s: %s of %s trace bytes (%u%%), %s %s, %s/s", p->what, b, tb,
                       (unsigned)(bytes >= p->total ? 100 : bytes * 100 / p->total), n, p->unit, r);
    else
        len = snprintf(line, sizeof line, "%s: %s trace bytes, %s %s, %s/s", p->what, b, n, p->unit, r);
    if (len < 0)
        return;
    if ((unsigned)len >= sizeof line)
        len = sizeof line - 1;
    /* one line, rewritten in place: spaces cover what a longer line before left */
    fprintf(stderr, "\r%s%*s", line, p->width > (unsigned)len ? (int)(p->width - (unsigned)len) : 0, "");
    fflush(stderr);
    if ((unsigned)len > p->width)
        p->width = (unsigned)len;
    p->lines++;
}

void fwpt_progress_end(struct fwpt_progress *p)
{
    if (p->width) {
        fprintf(stderr, "\r%*s\r", (int)p->width, "");
        fflush(stderr);
    }
    p->width = 0;
    p->on = 0;
}
