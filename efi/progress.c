/* fwpt — progress lines (see progress.h). */
#include <efi.h>
#include <efilib.h>
#include "efi/progress.h"

void fwpt_app_progress_start(struct fwpt_app_progress *p, const char *what, uint64_t total, uint64_t tsc_hz,
                             uint64_t seconds)
{
    p->what = what;
    p->total = total;
    p->tsc_hz = 0;
    if (!seconds)
        return;
    if (!tsc_hz) {
        uint64_t t0 = fwpt_rdtsc();
        uefi_call_wrapper(BS->Stall, 1, 2000);
        tsc_hz = (fwpt_rdtsc() - t0) * 500;
    }
    p->tsc_hz = tsc_hz;
    p->start = fwpt_rdtsc();
    p->every = seconds * tsc_hz;
    p->next = p->start + p->every;
}

void fwpt_app_progress_line(struct fwpt_app_progress *p, const struct fwpt_sink *o, uint64_t tsc, uint64_t bytes,
                            uint64_t insns, uint64_t steps)
{
    p->next = tsc + p->every;
    uint64_t s = (tsc - p->start) / p->tsc_hz;
    fwpt_printf(o, "%s: %lu s: ", p->what, s);
    if (steps)
        fwpt_printf(o, "%lu steps, ", steps);
    if (p->total)
        fwpt_printf(o, "%lu of %lu trace bytes (%lu%%), ", bytes, p->total, bytes * 100 / p->total);
    else
        fwpt_printf(o, "%lu trace bytes, ", bytes);
    fwpt_printf(o, "%lu instructions, %lu/s\n", insns, s ? (steps ? steps : insns) / s : 0);
}

/* ---- COM1 (SDM: IN/OUT; the 16550's registers: THR/SCR at +0/+7, LCR +3 with DLAB in bit 7, LSR +5 with THRE
 * in bit 5) ---- */
#define COM1 0x3f8

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

bool fwpt_uart_present(void)
{
    uint8_t old = inb(COM1 + 7);
    outb(COM1 + 7, 0x5a);
    bool ok = inb(COM1 + 7) == 0x5a;
    outb(COM1 + 7, 0xa5);
    ok = ok && inb(COM1 + 7) == 0xa5;
    outb(COM1 + 7, old);
    return ok;
}

static void uart_putc(char c)
{
    if (inb(COM1 + 3) & 0x80)
        return; /* DLAB: +0 is the divisor latch now */
    for (unsigned i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
        ;
    outb(COM1, (uint8_t)c);
}

static void uart_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            uart_putc('\r');
        uart_putc(s[i]);
    }
}

struct fwpt_sink fwpt_uart_sink(void)
{
    struct fwpt_sink s = {uart_write, NULL};
    return s;
}
