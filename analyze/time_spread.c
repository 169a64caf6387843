/* fwpt — where the time went (see time_spread.h). */
#include "analyze/time_spread.h"

void fwpt_time_spread_init(struct fwpt_time_spread *t, struct fwpt_profile *p, struct fwpt_flow_event *buf,
                           uint32_t cap)
{
    fwpt_memset(t, 0, sizeof *t);
    t->p = p;
    t->q = buf;
    t->cap = cap;
    if (p)
        p->unit = FWPT_PROFILE_UNIT_TICKS;
}

/* One item with its ticks to the profile and the hook. */
static void give(struct fwpt_time_spread *t, const struct fwpt_flow_event *e, uint64_t w)
{
    if (t->p)
        fwpt_profile_add_weight(t->p, e, w);
    if (t->also)
        t->also(t->also_ctx, e, w);
}

/* The held items to the profile, d ticks shared by their instructions (the first d % n get one more). */
static void flush(struct fwpt_time_spread *t, uint64_t d)
{
    uint64_t each = t->ninsn ? d / t->ninsn : 0, extra = t->ninsn ? d % t->ninsn : 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const struct fwpt_flow_event *e = &t->q[i];
        uint64_t w = 0;
        if (e->kind == FWPT_FLOW_INSN) {
            w = each + (extra ? 1 : 0);
            if (extra)
                extra--;
            if (!d)
                t->unweighted++;
            if (t->addrs)
                fwpt_addr_counts_add(t->addrs, e->ip, w);
        }
        give(t, e, w);
    }
    t->ticks += d;
    t->n = t->ninsn = 0;
}

static void hold(struct fwpt_time_spread *t, const struct fwpt_flow_event *ev)
{
    if (t->n == t->cap)
        flush(t, 0); /* no room: these count no ticks */
    t->q[t->n++] = *ev;
    if (ev->kind == FWPT_FLOW_INSN)
        t->ninsn++;
}

void fwpt_time_spread_add(struct fwpt_time_spread *t, const struct fwpt_flow_event *ev, uint64_t tsc, bool tsc_ok)
{
    if (ev->kind != FWPT_FLOW_INSN) {
        if (ev->kind == FWPT_FLOW_OVERFLOW || ev->kind == FWPT_FLOW_ERROR || ev->kind == FWPT_FLOW_ENABLED ||
            ev->kind == FWPT_FLOW_DISABLED) {
            flush(t, 0); /* what ran in between is not known: no ticks across it */
            t->have = false;
            give(t, ev, 0);
        } else {
            hold(t, ev);
        }
        return;
    }
    if (tsc_ok) {
        if (!t->have_span) {
            t->have_span = true;
            t->first_tsc = t->last_tsc = tsc;
        } else if (tsc > t->last_tsc) {
            t->last_tsc = tsc;
        }
    }
    if (!t->have || t->last_ok != tsc_ok) {
        flush(t, 0);
        hold(t, ev);
        flush(t, 0); /* a change point with nothing before it: its instruction counts none */
        t->have = true;
        t->last = tsc;
        t->last_ok = tsc_ok;
        return;
    }
    hold(t, ev);
    if (tsc == t->last)
        return;
    uint64_t d = tsc > t->last ? tsc - t->last : 0; /* a later MTC may put the estimate back: no time then */
    flush(t, d);
    if (tsc > t->last)
        t->last = tsc;
}

void fwpt_time_spread_end(struct fwpt_time_spread *t) { flush(t, 0); }

void fwpt_time_spread_duration(const struct fwpt_time_spread *t, const struct fwpt_time_config *c, uint64_t crystal_hz,
                               bool soft, const struct fwpt_sink *o)
{
    if (!t->have_span) {
        fwpt_puts(o, "time: no TSC in the trace (the ticks count from the first MTC or CYC)\n");
    } else {
        uint64_t d = t->last_tsc - t->first_tsc, hz = 0;
        if (crystal_hz && c->cpuid_15_eax && c->cpuid_15_ebx)
            hz = crystal_hz * c->cpuid_15_ebx / c->cpuid_15_eax; /* SDM CPUID leaf 15H: TSC = crystal * EBX/EAX */
        else if (c->nom_freq)
            hz = (uint64_t)c->nom_freq * 100000000u; /* MSR_PLATFORM_INFO's ratio of the 100 MHz bus clock */
        fwpt_printf(o, "time: %lu TSC ticks from the first instruction with a time to the last", d);
        if (hz) {
            uint64_t ns = d * 1000000000 / hz; /* fwpt_printf pads no digits: the three decimals by hand */
            fwpt_printf(o, " (%lu.%c%c%c us at %lu MHz)", ns / 1000, (char)('0' + ns / 100 % 10),
                        (char)('0' + ns / 10 % 10), (char)('0' + ns % 10), hz / 1000000);
        }
        else
            fwpt_puts(o, " (the TSC rate is not known: no CPUID 15H crystal clock, no nominal ratio)");
        fwpt_printf(o, "; %lu ticks spread over the instructions\n", t->ticks);
    }
    if (soft)
        fwpt_puts(o, "time: note: the software backend single-stepped this call: the times are those of "
                     "single-stepping (an exception per instruction), not the call's real speed\n");
}
