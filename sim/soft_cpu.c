/* fwpt — the software trace CPU (see sim/soft_cpu.h). */
#include "sim/soft_cpu.h"
#include "decode/insn.h"

/* ---- the CPU: CPUID from the profile (through the model), MSRs the model's ---- */
static enum fwpt_status replay_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    return fwpt_replay_cpuid(ctx, leaf, subleaf, out);
}

static enum fwpt_status soft_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct fwpt_cpuid_regs *out)
{
    struct fwpt_soft *s = ctx;
    enum fwpt_status st = fwpt_model_cpuid(&s->model, leaf, subleaf, out);
    if (st == FWPT_OK && leaf == 0x15) {
        /* CPUID leaf 15H as the software encoder keeps time: its crystal clock is the TSC itself (one TSC tick per
         * CTC tick, soft_enc's tsc_per_ctc), at the TSC rate measured at init */
        out->eax = out->ebx = 1;
        out->ecx = s->tsc_hz <= 0xffffffffu ? (uint32_t)s->tsc_hz : 0;
    }
    return st;
}

static enum fwpt_status soft_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
    struct fwpt_soft *s = ctx;
    return fwpt_model_rdmsr(&s->model, msr, value);
}

static enum fwpt_status soft_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
    struct fwpt_soft *s = ctx;
    if (msr == MSR_IA32_RTIT_CTL && s->enc_running && (s->model.ctl & RTIT_CTL_TRACEEN) &&
        !(value & RTIT_CTL_TRACEEN)) {
        /* TraceEn 1->0: what the processor still holds goes out before the bit clears. */
        enum fwpt_status st = fwpt_soft_enc_stop(&s->enc, s->last_time);
        if (st != FWPT_OK && s->stats.enc_status == FWPT_OK)
            s->stats.enc_status = st;
        s->enc_running = 0;
    }
    return fwpt_model_wrmsr(&s->model, msr, value);
}

static enum fwpt_status soft_emit(void *ctx, const uint8_t *b, size_t n)
{
    struct fwpt_soft *s = ctx;
    s->stats.bytes += n;
    fwpt_model_emit(&s->model, b, n);
    return FWPT_OK; /* STOP, errors, drops: the model's business, visible in its MSRs */
}

enum fwpt_status fwpt_soft_setup(struct fwpt_soft *s, const char *profile, const struct fwpt_physmem *mem,
                                 uint64_t *gt, size_t gt_cap)
{
    fwpt_memset(s, 0, sizeof *s);
    s->gt = gt;
    s->gt_cap = gt_cap;
    s->max_steps = FWPT_SOFT_MAX_STEPS;
    s->profile = profile ? fwpt_cpu_profile_find(profile) : NULL;
    if (profile && !s->profile)
        return FWPT_E_INVAL;
    if (!s->profile)
        return FWPT_OK; /* stepping only: no CPU to program */
    fwpt_replay_init_profile(&s->replay, s->profile);
    fwpt_cpu_profile_snapshot(s->profile, &s->snap);
    fwpt_caps_parse(&s->snap, &s->caps);
    fwpt_model_init(&s->model, &s->caps, mem);
    s->model.cpuid_fn = replay_cpuid;
    s->model.cpuid_ctx = &s->replay;
    s->cpu = (struct fwpt_cpu){.name = "soft", .ctx = s, .cpuid = soft_cpuid, .rdmsr = soft_rdmsr,
                               .wrmsr = soft_wrmsr, .fence = NULL};
    return FWPT_OK;
}

const struct fwpt_cpu *fwpt_soft_cpu(struct fwpt_soft *s)
{
    return &s->cpu;
}

void fwpt_soft_begin(struct fwpt_soft *s, uint64_t entry_ip, uint64_t time, int record_only)
{
    s->record_only = record_only;
    s->gt_count = 0;
    s->gt_start = 0;
    s->traced_end = 0;
    fwpt_memset(&s->stats, 0, sizeof s->stats);
    s->stats.tsc_start = s->last_time = time;
    if (record_only || !s->profile)
        return;
    struct fwpt_soft_enc_config cfg = {.ctl = s->model.ctl, .cpl = 0, .tsc_per_ctc = 1};
    for (unsigned n = 0; n < FWPT_MAX_ADDR_RANGES; n++)
        cfg.addr_a[n] = s->model.addr_a[n], cfg.addr_b[n] = s->model.addr_b[n];
    fwpt_soft_enc_init(&s->enc, &cfg, soft_emit, s);
    s->enc_running = 1;
    fwpt_soft_note_error(s, fwpt_soft_enc_start(&s->enc, entry_ip, time), entry_ip);
    if (!fwpt_soft_enc_triggered(&s->enc)) /* TraceStop at the entry */
        s->model.status = (s->model.status | RTIT_STATUS_STOPPED) & ~RTIT_STATUS_TRIGGEREN;
}

void fwpt_soft_note_error(struct fwpt_soft *s, enum fwpt_status st, uint64_t ip)
{
    if (st != FWPT_OK && s->stats.enc_status == FWPT_OK) {
        s->stats.enc_status = st;
        s->stats.enc_error_ip = ip;
    }
}

void fwpt_soft_feed(struct fwpt_soft *s, const struct fwpt_soft_insn *si)
{
    uint64_t ip = si->ip;
    s->last_time = si->time;
    if (s->gt_ring || s->gt_count < s->gt_cap) /* a full gt keeps its oldest entries unless gt_ring */
        s->stats.lost += (uint64_t)fwpt_soft_keep_newest(s->gt, s->gt_cap, &s->gt_count, &s->gt_start, ip);
    else
        s->stats.lost++;
    s->stats.insns++;
    if (s->record_only || fwpt_soft_enc_triggered(&s->enc))
        s->traced_end = s->stats.insns;
    if (s->record_only)
        return;
    int stopped_before = !fwpt_soft_enc_triggered(&s->enc);
    fwpt_soft_note_error(s, fwpt_soft_enc_step(&s->enc, si), ip);
    if (!stopped_before && !fwpt_soft_enc_triggered(&s->enc)) {
        /* TraceStop: IA32_RTIT_STATUS.Stopped set, TriggerEn clear (SDM "TraceStop"). */
        s->model.status = (s->model.status | RTIT_STATUS_STOPPED) & ~RTIT_STATUS_TRIGGEREN;
        s->traced_end = s->stats.insns;
    }
}

void fwpt_soft_end_at(struct fwpt_soft *s, uint64_t ip, uint64_t time)
{
    if (!s->record_only && s->enc_running)
        fwpt_soft_note_error(s, fwpt_soft_enc_end_at(&s->enc, ip, time), ip);
}

int fwpt_soft_step_end(struct fwpt_soft *s, uint64_t rip, uint64_t now)
{
    s->stats.steps++;
    if (rip == s->stop_ip)
        return 1; /* the call returned */
    if (!s->record_only && !s->stats.steps_at_stop && (s->model.status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR)))
        s->stats.steps_at_stop = s->stats.steps;
    if (s->stats.steps_at_stop && s->stats.steps - s->stats.steps_at_stop >= FWPT_SOFT_AFTER_STOP) {
        s->stats.untraced_rest = 1; /* no packet is written any more: the rest runs at full speed */
        return 1;
    }
    if (s->record_only && s->record_limit && s->gt_count >= s->record_limit) {
        s->stats.record_limit_hit = 1;
        return 1;
    }
    if (s->stats.steps >= s->max_steps) {
        s->stats.step_limit_hit = 1;
        fwpt_soft_end_at(s, rip, now); /* the trace ends where the stepped flow does */
        return 1;
    }
    return 0;
}

int fwpt_soft_keep_newest(uint64_t *buf, size_t cap, size_t *n, size_t *start, uint64_t v)
{
    if (*n < cap) {
        size_t i = *start + *n;
        buf[i >= cap ? i - cap : i] = v;
        ++*n;
        return 0;
    }
    if (!cap)
        return 1;
    buf[*start] = v; /* the oldest gives way */
    if (++*start == cap)
        *start = 0;
    return 1;
}

static void reverse(uint64_t *a, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        uint64_t t = a[i];
        a[i] = a[j - 1];
        a[j - 1] = t;
    }
}

void fwpt_soft_ring_order(uint64_t *buf, size_t n, size_t *start)
{
    size_t k = *start;
    if (k && k < n) { /* rotate left by k: three reversals */
        reverse(buf, k);
        reverse(buf + k, n - k);
        reverse(buf, n);
    }
    *start = 0;
}

/* ---- verify and report ---- */
static void put_ip_line(const struct fwpt_sink *o, const char *what, size_t i, uint64_t ip)
{
    fwpt_puts(o, what);
    fwpt_put_dec(o, i);
    fwpt_puts(o, ": ");
    fwpt_put_0x(o, ip);
    fwpt_putc(o, '\n');
}

/* PacketEn at ip under the traced configuration (every stepped instruction when only recording:
 * the hardware run's own filter is not modelled then). */
static int traced(const struct fwpt_soft *s, uint64_t ip)
{
    return s->record_only || fwpt_soft_enc_filter_en(&s->enc.cfg, ip);
}

/* The i-th oldest ground-truth entry held. */
static uint64_t gt_at(const struct fwpt_soft *s, size_t i)
{
    size_t k = s->gt_start + i;
    return s->gt[k >= s->gt_cap ? k - s->gt_cap : k];
}

/* the verdict into *v (when given): failed, with why */
static int verify_failed(struct fwpt_verify *v, const char *reason)
{
    if (v)
        *v = (struct fwpt_verify){.result = FWPT_VERIFY_FAILED, .reason = reason};
    return 1;
}

/* the single-stepped flow did not fit its buffer: nothing was compared, the verdict into *v (when given) is not run */
static int verify_not_run(struct fwpt_verify *v)
{
    if (v)
        *v = (struct fwpt_verify){.result = FWPT_VERIFY_NOT_RUN, .reason = FWPT_VERIFY_GT_DID_NOT_FIT};
    return 2;
}

int fwpt_soft_verify_scope(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, uint64_t n_all, int wrapped,
                           int stopped, const struct fwpt_sink *o, struct fwpt_verify *v)
{
    /* the oldest part (output stopped, no wrap) can be compared as far as both buffers go, unless the ground truth
     * kept the newest (gt_ring); the newest part (no stop, or a wrap before it), where the ground truth and the
     * decoded flow both end where tracing ended (gt_ring: the caller's buffer kept the newest n too); any other part
     * cannot */
    const bool partial = (s->stats.lost || n < n_all) && stopped && !wrapped && !(s->gt_ring && s->stats.lost);
    const bool tail = (s->stats.lost || n < n_all) && (!stopped || wrapped) && s->gt_ring;
    if (s->stats.lost && !partial && !tail) {
        fwpt_puts(o, "verify: ground truth incomplete (");
        fwpt_put_dec(o, s->stats.lost);
        fwpt_puts(o, s->gt_ring ? " of the oldest instructions gave way: it keeps the newest, for a ring, but the "
                                  "output stopped and the part to compare is the oldest)\n"
                                : " instructions did not fit)\n");
        return verify_not_run(v);
    }
    if (n < n_all && !partial && !tail) {
        fwpt_printf(o, "verify: decoded flow incomplete (%lu of %lu instructions kept)\n", (unsigned long)n,
                    (unsigned long)n_all);
        return verify_failed(v, "the decoded flow is incomplete");
    }
    /* What the processor traces: instructions where PacketEn held (IP filter), before a TraceStop; gt[0] is the
     * instruction recorded after 'base' others (those that gave way in a ring) */
    const size_t base = s->gt_ring ? (size_t)s->stats.lost : 0;
    size_t end = s->traced_end > base ? s->traced_end - base : 0, total = 0;
    if (end > s->gt_count)
        end = s->gt_count;
    for (size_t i = 0; i < end; i++)
        total += traced(s, gt_at(s, i));
    size_t skip = 0, want = total, doff = 0;
    /* stepping abandoned at the step limit: the trace ends where it did (fwpt_soft_end_at) */
    const char *how = s->stats.step_limit_hit ? "all that was stepped before the step limit" : "the whole call";
    if (n == 0 && total != 0) { /* an empty suffix or prefix matches anything: not a verification */
        fwpt_printf(o, "verify: FAILED: nothing decoded, but %lu instructions were traced\n", (unsigned long)total);
        return verify_failed(v, "nothing decoded, but instructions were traced");
    }
    if (tail) {
        want = n < total ? n : total; /* aligned at the end: the newest 'want' of both */
        skip = total - want;
        doff = n - want;
        how = wrapped ? "the newest part (ring wrapped)" : "the newest part";
    } else if (wrapped && n <= total) {
        skip = total - n; /* the ring kept the newest part */
        want = n;
        how = "the newest part (ring wrapped)";
    } else if (stopped && n <= total) {
        want = n; /* the buffer filled: the oldest part */
        how = "the oldest part (output stopped)";
    } else if (partial) {
        want = n = total; /* more decoded than the ground truth holds: its length */
        how = "the oldest part (output stopped)";
    }
    if (tail && want == 0) {
        fwpt_puts(o, "verify: ground truth incomplete (");
        fwpt_put_dec(o, s->stats.lost);
        fwpt_puts(o, " instructions gave way; none of those kept was traced)\n");
        return verify_not_run(v);
    }
    /* the newest part: decoded[doff] is instruction dbase of the whole decoded flow */
    const size_t dbase = tail ? (size_t)(n_all - n) + doff : 0;
    decoded += doff;
    n -= doff;
    size_t j = 0, k = 0;
    for (size_t i = 0; i < end && j < want; i++) {
        uint64_t g = gt_at(s, i);
        if (!traced(s, g))
            continue;
        if (k++ < skip)
            continue;
        if (j >= n || decoded[j] != g) {
            fwpt_puts(o, "verify: FIRST DIFFERENCE at instruction ");
            fwpt_put_dec(o, dbase + j);
            fwpt_putc(o, '\n');
            if (j)
                put_ip_line(o, "  both      #", dbase + j - 1, decoded[j - 1]);
            if (j < n)
                put_ip_line(o, "  decoded   #", dbase + j, decoded[j]);
            else
                fwpt_puts(o, "  decoded   (end of trace)\n");
            put_ip_line(o, "  stepped   #", base + i, g);
            return verify_failed(v, "the decoded flow differs from the single-stepped one");
        }
        j++;
    }
    if (j != want || n != want) {
        fwpt_puts(o, "verify: FIRST DIFFERENCE at instruction ");
        fwpt_put_dec(o, dbase + j);
        fwpt_puts(o, ": decoded ");
        fwpt_put_dec(o, n);
        fwpt_puts(o, " instructions, single-stepped and traced ");
        fwpt_put_dec(o, want);
        fwpt_putc(o, '\n');
        return verify_failed(v, "the decoded flow differs from the single-stepped one");
    }
    /* else every decoded instruction was compared after all */
    const bool cut_short = (partial || tail) && n < n_all;
    fwpt_puts(o, "verified: ");
    if (cut_short)
        fwpt_printf(o, tail ? "the newest %lu of %lu" : "the first %lu of %lu", (unsigned long)n, (unsigned long)n_all);
    else
        fwpt_put_dec(o, n);
    fwpt_puts(o, " instructions decoded = single-stepped (");
    fwpt_puts(o, how);
    if (total != s->gt_count) {
        fwpt_puts(o, "; ");
        fwpt_put_dec(o, s->gt_count - total);
        fwpt_puts(o, " stepped instructions outside the filter or after TraceStop");
    }
    fwpt_puts(o, ")");
    if (cut_short)
        fwpt_puts(o, tail ? "; the rest was not compared: the ground truth or the decoded flow kept only the newest part "
                            "of it"
                          : "; the rest was not compared: the ground truth or the decoded flow did not fit its buffer");
    fwpt_puts(o, "\n");
    if (v)
        *v = (struct fwpt_verify){.result = FWPT_VERIFY_PASSED,
                                  .scope = !cut_short ? FWPT_VERIFY_WHOLE : tail ? FWPT_VERIFY_NEWEST : FWPT_VERIFY_FIRST,
                                  .compared = n, .total = cut_short ? n_all : n, .part = how};
    return 0;
}

int fwpt_soft_verify(const struct fwpt_soft *s, const uint64_t *decoded, size_t n, uint64_t n_all, int wrapped, int stopped,
                     const struct fwpt_sink *o)
{
    return fwpt_soft_verify_scope(s, decoded, n, n_all, wrapped, stopped, o, NULL);
}

void fwpt_soft_report(const struct fwpt_soft *s, const struct fwpt_sink *o)
{
    const struct fwpt_soft_enc_counts *c = &s->enc.counts;
    uint64_t dt = s->stats.tsc_end - s->stats.tsc_start;
    fwpt_printf(o,
                "soft: profile %s, %lu steps, %lu instructions (%lu without a trap), "
                "%lu TSC ticks/step (%lu steps/s), ",
                s->profile ? s->profile->name : "?", s->stats.steps, s->stats.insns, s->stats.shadow_fixups,
                s->stats.steps ? dt / s->stats.steps : 0, dt && s->tsc_hz ? s->stats.steps * s->tsc_hz / dt : 0);
    fwpt_printf(o, "%lu REP iterations, %lu packet bytes: PSB %lu TNT %lu TIP %lu PGE %lu PGD %lu RETcomp %lu",
                s->stats.rep_iterations, s->stats.bytes, c->psb, c->tnt, c->tip, c->tip_pge, c->tip_pgd,
                c->ret_compressed);
    if (s->stats.enc_status != FWPT_OK)
        fwpt_printf(o, "; ERROR %s at 0x%lx", fwpt_status_name(s->stats.enc_status), s->stats.enc_error_ip);
    if (s->stats.step_limit_hit)
        fwpt_printf(o, "; step limit of %lu steps reached: the trace ends there (FUP + TIP.PGD), the rest of the call ran "
                       "untraced", (unsigned long)s->max_steps);
    if (s->stats.record_limit_hit)
        fwpt_printf(o, "; recording ended after the %lu instructions verify needs, the rest of the call ran at full "
                       "speed", (unsigned long)s->record_limit);
    if (s->stats.untraced_rest)
        fwpt_printf(o, "; output stopped at step %lu: stepping ended %lu steps later, the rest of the call ran "
                       "untraced at full speed", s->stats.steps_at_stop, (unsigned long)FWPT_SOFT_AFTER_STOP);
    fwpt_putc(o, '\n');
}
