/* fwpt — the summary walk on several cores (see parallel_host.h). */
#include "analyze/parallel_host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define BLOCK_CACHE (1u << 16) /* as the host tool's: 64 KiB of code map without a collision */
#define PATH_CACHE (1u << 14)
static size_t block_cache(const struct fwpt_par_setup *s) { return s->block_cache ? s->block_cache : BLOCK_CACHE; }
static size_t path_cache(const struct fwpt_par_setup *s) { return s->path_cache ? s->path_cache : PATH_CACHE; }
#define PIECES_PER_JOB 4       /* pieces of unequal work even out between the threads */

static void *host_resize(void *ctx, void *old, size_t size)
{
    (void)ctx;
    if (!size) {
        free(old);
        return NULL;
    }
    return realloc(old, size);
}
const struct fwpt_resize fwpt_parallel_resize = {host_resize, NULL};

unsigned fwpt_parallel_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* What one walk counted. */
struct counts {
    struct fwpt_sumprof prof;
    struct fwpt_edges edges;
    uint8_t *cov;
    struct fwpt_flow_event *errors;
    size_t nerrors, cap;
    bool retstack_error;  /* a compressed RET found the stack empty */
    bool oom;
    uint64_t skipped;     /* trace bytes its errors cost */
    uint64_t insns;       /* instructions it walked while counting */
    uint64_t path_hits, path_misses, blocks;
};

/* A thread's tables, kept from one of its pieces to the next (the code is the same). */
struct worker {
    struct fwpt_flow_block *cache;
    struct fwpt_flow_chain *paths;
    struct fwpt_flow_chain_cold *cold;
    uint32_t gen;             /* walks so far (fwpt_summary_reuse) */
    struct fwpt_modules mods; /* its own lookup cache over the caller's modules */
    bool ready;               /* the tables are made */
};

struct piece {
    uint64_t start, end;      /* the PSB it starts at (the first: the trace's first); where it stops */
    struct fwpt_flow *f;      /* its decoder, where it stopped */
    struct fwpt_flow *first;  /* a copy at its first stop (not the first piece), NULL when it had none */
    bool eos;                 /* f walked to the trace's end */
    uint64_t skipped_first, insns_first;
    double cpu;               /* its walk's CPU time */
    double cpu_stitch;        /* its joining, walking again and merging */
    int done;                 /* walked (atomic: set by its thread, read by the one stitching) */
    struct counts c;
};

struct run {
    const struct fwpt_par_setup *s;
    struct fwpt_profile *prof; /* the first piece's tree may go in early (fwpt_sumprof_spill) */
    size_t max_nodes;         /* nodes the profile holds */
    bool log;                 /* keep the profile's frame changes (its frame hook is set) */
    struct piece *pieces;
    unsigned npieces, next;
    int failed;
    pthread_mutex_t lock;     /* cpu_threads, cpu_longest, cpu_tables */
    double cpu_threads, cpu_longest, cpu_tables;
    /* the stitching, in piece order, by whichever thread holds stitch_lock (the others walk meanwhile) */
    pthread_mutex_t stitch_lock;
    unsigned stitched;        /* pieces joined and merged (atomic) */
    int stop;                 /* a piece walked to the trace's end was merged: the rest count nothing (atomic) */
    struct fwpt_parallel_out *out;
    pthread_mutex_t gate_lock; /* setup->gate: turns in ticket order */
    pthread_cond_t gate_turn;
    uint64_t tickets, turns_done;
    struct fwpt_modules mods;  /* setup->mods as it was before the threads started */
};

static void gate_enter(struct run *r)
{
    if (!r->s->gate)
        return;
    pthread_mutex_lock(&r->gate_lock);
    for (uint64_t t = r->tickets++; t >= r->turns_done + r->s->gate;)
        pthread_cond_wait(&r->gate_turn, &r->gate_lock);
    pthread_mutex_unlock(&r->gate_lock);
}

static void gate_leave(struct run *r)
{
    if (!r->s->gate)
        return;
    pthread_mutex_lock(&r->gate_lock);
    r->turns_done++;
    pthread_cond_broadcast(&r->gate_turn);
    pthread_mutex_unlock(&r->gate_lock);
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_event(void *ctx, const struct fwpt_flow_event *ev)
{
    struct counts *c = ctx;
    if (ev->kind != FWPT_FLOW_ERROR)
        return;
    if (ev->status == FWPT_E_RETSTACK)
        c->retstack_error = true;
    if (c->nerrors == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct fwpt_flow_event *v = realloc(c->errors, cap * sizeof *v);
        if (!v) {
            c->oom = true;
            return;
        }
        c->errors = v;
        c->cap = cap;
    }
    c->errors[c->nerrors++] = *ev;
}

/* direct: the profile the walk counts straight into (it goes on where that one's counts end); else a call tree
 * of its own (faster: its calls find their nodes from hints), from the root (known) or under unknown frames,
 * with no more nodes than the profile can hold (past that, the piece is walked again straight into it) */
static bool counts_init(struct counts *c, const struct fwpt_par_setup *s, bool log, struct fwpt_profile *direct,
                        bool known, size_t max_nodes)
{
    memset(c, 0, sizeof *c);
    if (s->profile && direct)
        fwpt_sumprof_init_direct(&c->prof, direct);
    if (s->profile && !direct && fwpt_sumprof_init(&c->prof, s->mods, known, log, &fwpt_parallel_resize) != FWPT_OK)
        return false;
    c->prof.max_nodes = (uint32_t)max_nodes;
    if (s->edges && fwpt_edges_init(&c->edges, NULL, 0, &fwpt_parallel_resize) != FWPT_OK)
        return false;
    if (s->cov_size && !(c->cov = calloc(1, s->cov_size)))
        return false;
    return true;
}

static void counts_free(struct counts *c)
{
    if (c->prof.nodes)
        fwpt_sumprof_free(&c->prof);
    fwpt_edges_free(&c->edges);
    free(c->cov);
    free(c->errors);
    memset(c, 0, sizeof *c);
}

static void sum_setup(struct fwpt_sum *sum, struct fwpt_flow *f, struct worker *w, struct counts *c,
                      const struct fwpt_par_setup *s)
{
    fwpt_summary_reuse(sum, f, w->paths, path_cache(s), w->cold, ++w->gen);
    sum->prof = s->profile ? &c->prof : NULL;
    sum->edges = s->edges ? &c->edges : NULL;
    sum->cov = c->cov;
    sum->cov_mask = s->cov_size ? s->cov_size - 1 : 0;
    sum->mods = s->mods ? &w->mods : NULL;
    sum->on_event = on_event;
    sum->ev_ctx = c;
    fwpt_summary_configure(sum);
}

static void sum_done(struct fwpt_sum *sum, struct counts *c)
{
    fwpt_summary_flush(sum);
    c->path_hits += sum->path_hits;
    c->path_misses += sum->path_misses;
    c->blocks += sum->blocks;
}

static struct fwpt_flow *new_flow(const struct fwpt_par_setup *s, struct worker *w)
{
    struct fwpt_flow *f = malloc(fwpt_flow_size());
    if (!f)
        return NULL;
    /* E_NOSYNC: at its end; the block cache is emptied once (worker_init): blocks are the same for every piece */
    if (fwpt_flow_init(f, s->trace, s->len, s->read, s->read_ctx, NULL, 0) == FWPT_E_INVAL ||
        fwpt_flow_use_cache(f, w->cache, block_cache(s)) != FWPT_OK) {
        free(f);
        return NULL;
    }
    if (s->errata)
        fwpt_flow_set_errata(f, s->errata);
    fwpt_flow_set_filter(f, s->filter, s->n_filter);
    fwpt_flow_set_iflags(f, s->iflags);
    if (s->runaway_limit)
        fwpt_flow_set_runaway_limit(f, s->runaway_limit);
    return f;
}

/* Piece k: from its PSB to its first stop without counting (a copy kept there), then counting to the first
 * stop at or after its end. The first piece counts from the trace's start. */
static int walk_piece(struct run *r, struct worker *w, unsigned k)
{
    const struct fwpt_par_setup *s = r->s;
    struct piece *p = &r->pieces[k];
    struct fwpt_sum sum;
    if (!counts_init(&p->c, s, r->log, NULL, k == 0, r->max_nodes) || !(p->f = new_flow(s, w)))
        return -1;
    if (k == 0 && s->profile) {
        /* the first piece's tree goes into the profile early if it grows large (nothing is merged before it) */
        p->c.prof.spill = r->prof;
        p->c.prof.spill_nodes = (uint32_t)(r->max_nodes / 4);
    }
    sum_setup(&sum, p->f, w, &p->c, s);
    if (k > 0) {
        if (fwpt_flow_sync_set(p->f, p->start) != FWPT_OK) {
            p->eos = true; /* cut() found a PSB there: not reached */
            return 0;
        }
        sum.counting = 0;
        sum.stop_at = p->start;
        if (fwpt_summary_walk(&sum) != FWPT_OK) {
            p->eos = true; /* nothing the pieces before cannot say */
            return 0;
        }
        if (!(p->first = malloc(fwpt_flow_size())))
            return -1;
        fwpt_flow_copy(p->first, p->f);
        p->skipped_first = fwpt_flow_bytes_skipped(p->f);
        p->insns_first = fwpt_flow_insns(p->f);
        fwpt_summary_count_from_here(&sum);
    }
    sum.stop_at = p->end;
    p->eos = fwpt_summary_walk(&sum) != FWPT_OK;
    sum_done(&sum, &p->c);
    p->c.skipped = fwpt_flow_bytes_skipped(p->f) - p->skipped_first;
    p->c.insns = fwpt_flow_insns(p->f) - p->insns_first;
    return p->c.oom ? -1 : 0;
}

/* mods: a copy of the caller's modules taken before the threads start (the thread stitching looks modules up in
 * the caller's for the profile's frame hook, which keeps its last find there) */
static bool worker_init(struct worker *w, const struct fwpt_par_setup *s, const struct fwpt_modules *mods)
{
    memset(w, 0, sizeof *w);
    w->cache = malloc(block_cache(s) * sizeof *w->cache);
    w->paths = aligned_alloc(64, path_cache(s) * sizeof *w->paths);
    w->cold = malloc(path_cache(s) * sizeof *w->cold);
    if (s->mods)
        w->mods = *mods;
    if (!w->cache || !w->paths || !w->cold)
        return false;
    struct fwpt_flow *f = malloc(fwpt_flow_size()); /* empties the block cache */
    if (!f || fwpt_flow_init(f, s->trace, 0, s->read, s->read_ctx, w->cache, block_cache(s)) == FWPT_E_INVAL) {
        free(f);
        return false; /* (no trace given: E_NOSYNC) */
    }
    struct fwpt_sum sum; /* and the paths */
    fwpt_summary_init(&sum, f, w->paths, path_cache(s), w->cold);
    free(f);
    w->ready = true;
    return true;
}

static void worker_free(struct worker *w)
{
    free(w->cache);
    free(w->paths);
    free(w->cold);
}

static void stitch_ready(struct run *r, struct worker *w);

static void *thread_main(void *arg)
{
    struct run *r = arg;
    gate_enter(r);
    double t0 = thread_cpu();
    struct worker w;
    if (!worker_init(&w, r->s, &r->mods)) {
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
        worker_free(&w);
        gate_leave(r);
        return NULL;
    }
    double t_tables = thread_cpu() - t0;
    for (;;) {
        if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED) || __atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            break;
        unsigned k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
        if (k >= r->npieces)
            break;
        double tp = thread_cpu();
        if (walk_piece(r, &w, k) != 0)
            __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
        r->pieces[k].cpu = thread_cpu() - tp;
        __atomic_store_n(&r->pieces[k].done, 1, __ATOMIC_SEQ_CST);
        stitch_ready(r, &w);
        gate_leave(r);
        gate_enter(r);
    }
    gate_leave(r);
    worker_free(&w);
    double t = thread_cpu() - t0;
    pthread_mutex_lock(&r->lock);
    r->cpu_tables += t_tables;
    r->cpu_threads += t;
    if (t > r->cpu_longest)
        r->cpu_longest = t;
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* Where the pieces start: PSBs about len / n apart (the first piece starts at the trace's start). */
static unsigned cut(const struct fwpt_par_setup *s, unsigned n, uint64_t *starts)
{
    struct fwpt_pkt_decoder d;
    unsigned m = 1;
    starts[0] = 0;
    fwpt_pkt_init(&d, s->trace, s->len);
    for (unsigned i = 1; i < n; i++) {
        uint64_t want = (uint64_t)s->len * i / n;
        if (want <= starts[m - 1])
            want = starts[m - 1] + 1;
        if (want >= s->len || fwpt_pkt_sync_set(&d, (size_t)want - 1) != FWPT_OK || fwpt_pkt_sync_forward(&d) != FWPT_OK)
            break;
        if (d.offset > starts[m - 1])
            starts[m++] = d.offset;
    }
    return m;
}

/* The piece after seq's stop, walked again from there, counting straight into prof (the decoders did not agree
 * at the seam, or the piece's call tree cannot be placed under prof's open frames). */
static int walk_again(const struct fwpt_par_setup *s, struct worker *w, const struct fwpt_flow *seq, struct piece *p,
                      struct fwpt_profile *prof)
{
    struct fwpt_sum sum;
    counts_free(&p->c);
    if (!counts_init(&p->c, s, false, prof, true, 0))
        return -1;
    struct fwpt_flow *f = seq ? malloc(fwpt_flow_size()) : new_flow(s, w); /* no seq: the first piece, from the start */
    if (!f)
        return -1;
    if (seq) {
        fwpt_flow_copy(f, seq);
        fwpt_flow_use_cache(f, w->cache, block_cache(s)); /* blocks are the same in any cache: only speed differs */
    }
    free(p->f);
    p->f = f;
    sum_setup(&sum, f, w, &p->c, s);
    if (seq)
        fwpt_summary_count_from_here(&sum);
    sum.stop_at = p->end;
    p->eos = fwpt_summary_walk(&sum) != FWPT_OK;
    sum_done(&sum, &p->c);
    p->c.skipped = fwpt_flow_bytes_skipped(f) - (seq ? fwpt_flow_bytes_skipped(seq) : 0);
    p->c.insns = fwpt_flow_insns(f) - (seq ? fwpt_flow_insns(seq) : 0);
    return p->c.oom ? -1 : 0;
}

/* The stitching thread's tables (the decoders walked again point to its block cache). */
static bool stitch_worker(struct worker *w, const struct fwpt_par_setup *s, const struct fwpt_modules *mods)
{
    if (!worker_init(w, s, mods)) {
        worker_free(w);
        return false;
    }
    return true;
}

static int add_counts(const struct fwpt_par_setup *s, struct counts *c, struct fwpt_profile *prof, struct fwpt_parallel_out *out)
{
    if (s->profile && fwpt_sumprof_merge(&c->prof, prof) != FWPT_OK)
        return -1;
    if (s->edges)
        fwpt_edges_merge(&out->edges, &c->edges);
    for (size_t i = 0; c->cov && i < s->cov_size; i++)
        out->cov[i] += c->cov[i];
    if (c->nerrors) {
        struct fwpt_flow_event *v = realloc(out->errors, (out->nerrors + c->nerrors) * sizeof *v);
        if (!v)
            return -1;
        memcpy(v + out->nerrors, c->errors, c->nerrors * sizeof *v);
        out->errors = v;
        out->nerrors += c->nerrors;
    }
    out->bytes_skipped += c->skipped;
    out->insns += c->insns;
    out->path_hits += c->path_hits;
    out->path_misses += c->path_misses;
    out->blocks += c->blocks;
    return 0;
}

/* Piece k after the pieces before it: it counts from where its decoder agrees with the one before, and its call
 * tree goes under the frames open by then; else it is walked again from where the one before stopped. The
 * piece before is then no longer needed. -1: out of memory. */
static int stitch_piece(struct run *r, struct worker *w, unsigned k)
{
    const struct fwpt_par_setup *s = r->s;
    struct fwpt_parallel_out *out = r->out;
    struct piece *p = &r->pieces[k], *prev = k ? &r->pieces[k - 1] : NULL;
    bool joined = true;
    if (prev) {
        if (prev->eos) {
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED); /* the one before walked to the end */
            return 0;
        }
        enum fwpt_flow_seam m = p->first ? fwpt_flow_seam_compare(prev->f, p->first) : FWPT_FLOW_SEAM_DIFFERENT;
        joined = m == FWPT_FLOW_SEAM_SAME || (m == FWPT_FLOW_SEAM_SAME_STACK_TOP && !p->c.retstack_error);
        out->seams_joined += joined;
    }
    if (!joined || (s->profile && !fwpt_sumprof_mergeable(&p->c.prof, r->prof->depth))) {
        double ta = thread_cpu();
        if ((!w->ready && !stitch_worker(w, s, &r->mods)) || walk_again(s, w, prev ? prev->f : NULL, p, r->prof) != 0)
            return -1;
        out->pieces_again++;
        out->cpu_again += thread_cpu() - ta;
    }
    double tm = thread_cpu();
    if (add_counts(s, &p->c, r->prof, out) != 0)
        return -1;
    out->cpu_merge += thread_cpu() - tm;
    counts_free(&p->c);
    if (prev) {
        free(prev->f);
        free(prev->first);
        prev->f = prev->first = NULL;
    }
    return 0;
}

/* Stitches the pieces walked in order, as far as they are done, unless another thread is at it: that one looks
 * again when it is through, so a piece done meanwhile waits at most until then. */
static void stitch_ready(struct run *r, struct worker *w)
{
    for (;;) {
        unsigned k = __atomic_load_n(&r->stitched, __ATOMIC_SEQ_CST);
        if (k >= r->npieces || !__atomic_load_n(&r->pieces[k].done, __ATOMIC_SEQ_CST) ||
            __atomic_load_n(&r->stop, __ATOMIC_RELAXED) || __atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            return;
        if (pthread_mutex_trylock(&r->stitch_lock) != 0)
            return;
        for (k = r->stitched; k < r->npieces && __atomic_load_n(&r->pieces[k].done, __ATOMIC_SEQ_CST) &&
                              !r->stop && !r->failed; k++) {
            double t = thread_cpu();
            if (stitch_piece(r, w, k) != 0)
                __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
            r->pieces[k].cpu_stitch = thread_cpu() - t;
            r->out->cpu_stitch += r->pieces[k].cpu_stitch;
            __atomic_store_n(&r->stitched, k + 1, __ATOMIC_SEQ_CST);
        }
        pthread_mutex_unlock(&r->stitch_lock);
    }
}

static bool pow2_or_0(size_t n) { return !(n & (n - 1)); }

/* The run on jobs idle cores, from each piece's CPU time: every thread sets up its tables, then, whenever it is
 * free, first stitches the pieces walked in order as far as they are done (unless another thread is stitching),
 * then takes the next piece; what is left is stitched when the last is done. Events in time order. */
static double idle_schedule(const struct run *r, unsigned jobs, double tables)
{
    double t[256], fin_max = 0, stitch_end = 0;
    bool busy[256];
    unsigned next = 0, m = 0, n = r->npieces, left = jobs;
    double *fin = malloc((n + 1) * sizeof *fin);
    if (!fin)
        return 0;
    for (unsigned j = 0; j < jobs; j++) {
        t[j] = tables;
        busy[j] = true;
    }
    while (left) {
        unsigned j = jobs;
        for (unsigned i = 0; i < jobs; i++)
            if (busy[i] && (j == jobs || t[i] < t[j]))
                j = i;
        if (stitch_end <= t[j])
            for (; m < next && fin[m] <= t[j]; m++)
                stitch_end = t[j] += r->pieces[m].cpu_stitch;
        if (next < n) {
            fin[next] = t[j] += r->pieces[next].cpu;
            fin_max = t[j] > fin_max ? t[j] : fin_max;
            next++;
        } else {
            busy[j] = false;
            left--;
        }
    }
    double end = fin_max > stitch_end ? fin_max : stitch_end;
    for (; m < n; m++)
        end += r->pieces[m].cpu_stitch;
    free(fin);
    return end;
}

enum fwpt_status fwpt_parallel_run(const struct fwpt_par_setup *s, struct fwpt_profile *prof,
                                   struct fwpt_parallel_out *out)
{
    memset(out, 0, sizeof *out);
    if (!pow2_or_0(s->block_cache) || !pow2_or_0(s->path_cache) || !pow2_or_0(s->cov_size))
        return FWPT_E_INVAL; /* tables indexed by address bits */
    if (s->edges && fwpt_edges_init(&out->edges, NULL, 0, &fwpt_parallel_resize) != FWPT_OK)
        return FWPT_E_NOMEM;
    if (s->cov_size && !(out->cov = calloc(1, s->cov_size))) {
        fwpt_edges_free(&out->edges);
        return FWPT_E_NOMEM;
    }
    const size_t piece_bytes = s->piece_bytes ? s->piece_bytes : 64 * 1024;
    unsigned jobs = s->jobs ? s->jobs : 1;
    unsigned want = jobs > 1 ? jobs * PIECES_PER_JOB : 1;
    if (want > 1 && (uint64_t)s->len / piece_bytes < want)
        want = (unsigned)(s->len / piece_bytes) ? (unsigned)(s->len / piece_bytes) : 1;
    struct run r = {.s = s, .prof = prof, .max_nodes = s->profile ? prof->nodes_cap : 0,
                    .log = s->profile && prof->frame_hook, .pieces = calloc(want, sizeof *r.pieces),
                    .lock = PTHREAD_MUTEX_INITIALIZER, .stitch_lock = PTHREAD_MUTEX_INITIALIZER, .out = out,
                    .gate_lock = PTHREAD_MUTEX_INITIALIZER, .gate_turn = PTHREAD_COND_INITIALIZER,
                    .mods = s->mods ? *s->mods : (struct fwpt_modules){0}};
    uint64_t *starts = malloc(want * sizeof *starts);
    struct worker w;
    bool have_w = false;
    enum fwpt_status rc = FWPT_E_NOMEM;
    double t_split = thread_cpu();
    if (!r.pieces || !starts)
        goto out;
    r.npieces = cut(s, want, starts);
    for (unsigned k = 0; k < r.npieces; k++) {
        r.pieces[k].start = starts[k];
        r.pieces[k].end = k + 1 < r.npieces ? starts[k + 1] : FWPT_SUM_NO_STOP;
    }
    out->pieces = r.npieces;
    out->cpu_split = thread_cpu() - t_split;
    if (jobs > r.npieces)
        jobs = r.npieces;
    pthread_t tid[256];
    unsigned started = 0;
    if (jobs > 256)
        jobs = 256;
    for (unsigned t = 1; t < jobs; t++)
        if (pthread_create(&tid[started], NULL, thread_main, &r) == 0)
            started++;
    thread_main(&r); /* this thread works too */
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    out->cpu_threads = r.cpu_threads;
    out->cpu_longest = r.cpu_longest;
    out->cpu_tables = r.cpu_tables;
    for (unsigned k = 0; k < r.npieces; k++)
        out->cpu_piece_max = r.pieces[k].cpu > out->cpu_piece_max ? r.pieces[k].cpu : out->cpu_piece_max;
    memset(&w, 0, sizeof w); /* its tables made when a piece is walked again */
    have_w = true;
    stitch_ready(&r, &w); /* what the threads left (a thread stops looking when another is stitching) */
    if (r.failed)
        goto out;
    out->cpu_idle = out->cpu_split + idle_schedule(&r, jobs, jobs ? out->cpu_tables / jobs : 0);
    rc = FWPT_OK;
out:
    for (unsigned k = 0; r.pieces && k < want; k++) {
        counts_free(&r.pieces[k].c);
        free(r.pieces[k].f);
        free(r.pieces[k].first);
    }
    if (have_w)
        worker_free(&w);
    free(r.pieces);
    free(starts);
    return rc;
}

void fwpt_parallel_out_free(struct fwpt_parallel_out *out)
{
    fwpt_edges_free(&out->edges);
    free(out->cov);
    free(out->errors);
    memset(out, 0, sizeof *out);
}
