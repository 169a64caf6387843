/* Host-side check of a soft-selftest case saved by the EFI app (\fwpt-soft\CASE\): libipt's
 * instruction decoder (pt_insn_*, code from pages.bin) decodes trace.pt, and the result must be
 * exactly the single-stepped ground truth (gt.bin) that the processor would have traced (IP filter,
 * TraceStop, ring wrap = newest part, ToPA stop = oldest part; rules in meta.txt). With a witness
 * file from the QEMU plugin (tests/qemu/plugin/insn_trace.c), also compares what the emulator
 * executed with the ground truth: the only allowed differences are inserted runs of instructions
 * that the single-stepped flow cannot see (interrupt handlers with TF clear), repeated IPs of REP
 * iterations, and the trampoline around the call.
 *   soft_ptxed DIR [WITNESS]   -> exit 0 when everything matches
 *   soft_ptxed --ips DIR       -> the IPs libipt decodes from a session's trace.pt + img-BASE.bin
 *   soft_ptxed --session-witness DIR WITNESS -> that decoded flow (a whole, unfiltered call) vs the witness */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/ipt_insn.h"

#define PAGE 4096u
#define TRAMPOLINE_HEAD 4u  /* pushfq; orq; popfq; call *%rax before the target's first instruction */
#define TRAMPOLINE_TAIL 3u  /* pushfq; andq; popfq after the final RET, before the end marker */
#define IRETQ_FLAG ((uint64_t)1 << 63) /* witness entry is an IRETQ (insn_trace.c) */

struct page {
    uint64_t addr;
    const uint8_t *bytes;
    size_t len; /* PAGE for pages.bin, the file size for img-BASE.bin */
};
static struct page *pages;
static size_t npages;

static void *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    ((char *)p)[n] = 0;
    *len = (size_t)n;
    return p;
}

static int read_mem(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
    (void)asid, (void)ctx;
    size_t done = 0;
    while (done < size) {
        uint64_t a = ip + done;
        const struct page *pg = NULL;
        for (size_t i = 0; i < npages; i++)
            if (a >= pages[i].addr && a - pages[i].addr < pages[i].len) {
                pg = &pages[i];
                break;
            }
        if (!pg)
            break;
        size_t chunk = pg->len - (size_t)(a - pg->addr);
        if (chunk > size - done)
            chunk = size - done;
        memcpy(buffer + done, pg->bytes + (a - pg->addr), chunk);
        done += chunk;
    }
    return done ? (int)done : -pte_nomap;
}

/* libipt over trace[0..tlen): IPs of the instructions, in order. Returns the libipt error (0 at
 * the end of the trace); *off: trace offset reached. */
static int decode(const uint8_t *trace, size_t tlen, uint64_t *got, size_t cap, size_t *n, uint64_t *off)
{
    struct ipt_ip_list v = {got, 0, cap};
    struct ipt_insn_sink s = {.insn = ipt_ip_list_add, .ctx = &v};
    int err = ipt_insn_walk(trace, tlen, read_mem, NULL, &s, off);
    *n = v.n;
    return err;
}

/* --ips DIR: a session's saved \fwpt\ directory (trace.pt + img-BASE.bin): print the IPs libipt
 * decodes, one per line (0x%016x), for comparison with `fwpt flow`. */
static int compare_witness(const char *path, const uint64_t *gt, size_t ngt);

static int session_ips(const char *dir, const char *witness)
{
    size_t tlen = 0;
    uint8_t *trace = slurp(dir, "trace.pt", &tlen);
    if (!trace) {
        fprintf(stderr, "soft_ptxed: %s: no trace.pt\n", dir);
        return 1;
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -E '^img-[0-9a-fA-F]+\\.bin$'", dir);
    FILE *ls = popen(cmd, "r");
    char line[256];
    pages = calloc(256, sizeof *pages);
    while (ls && fgets(line, sizeof line, ls) && npages < 256) {
        line[strcspn(line, "\n")] = 0;
        size_t len = 0;
        uint8_t *b = slurp(dir, line, &len);
        if (!b)
            continue;
        pages[npages].addr = strtoull(line + 4, NULL, 16);
        pages[npages].bytes = b;
        pages[npages].len = len;
        npages++;
    }
    if (ls)
        pclose(ls);
    size_t cap = 1u << 24, n = 0;
    uint64_t *got = malloc(cap * sizeof *got), off = 0;
    int err = decode(trace, tlen, got, cap, &n, &off);
    if (witness) { /* the whole call was traced: the decoded flow is the ground truth */
        int wfail = err != 0 || compare_witness(witness, got, n);
        printf("soft_ptxed: %s: %zu decoded instructions vs the witness: %s\n", dir, n, wfail ? "FAIL" : "PASS");
        return wfail;
    }
    for (size_t i = 0; i < n; i++)
        printf("0x%016" PRIx64 "\n", got[i]);
    if (err)
        fprintf(stderr, "soft_ptxed: libipt error %s at trace offset 0x%" PRIx64 "\n", pt_errstr(pt_errcode(err)), off);
    fprintf(stderr, "soft_ptxed: %s: libipt decoded %zu instructions from %zu images\n", dir, n, npages);
    return err != 0;
}

static uint64_t meta_u64(const char *meta, const char *key)
{
    const char *p = strstr(meta, key);
    return p ? strtoull(p + strlen(key), NULL, 0) : 0;
}

/* The witness (QEMU plugin: what the guest executed) against the ground truth gt: equal but for
 * inserted runs ending in IRETQ (interrupt handlers with TF clear), REP iterations and the
 * trampoline. Returns 0 when that holds. */
static int compare_witness(const char *path, const uint64_t *gt, size_t ngt)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("soft_ptxed: no witness file %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size_t nw = (size_t)ftell(f) / 8;
    fseek(f, 0, SEEK_SET);
    uint64_t *w = malloc((nw + 1) * sizeof *w);
    if (fread(w, 8, nw, f) != nw)
        nw = 0;
    fclose(f);
    size_t k = 0, j = 0, inserted = 0, blocks = 0, reps = 0, odd_starts = 0;
    uint64_t first_insert = 0;
    /* The trampoline (and any interrupt taken in it) runs before the target's entry. */
    while (k < nw && ngt && w[k] != gt[0])
        k++;
    size_t head = k;
    for (size_t t = 0; t < k; t++)
        if (w[t] & IRETQ_FLAG) { /* an interrupt taken before the first instruction */
            head = TRAMPOLINE_HEAD + (k - t - 1);
            inserted += t + 1 - TRAMPOLINE_HEAD;
            blocks++;
            first_insert = w[TRAMPOLINE_HEAD];
        }
    int wfail = 0;
    while (j < ngt && k < nw) {
        if ((w[k] & ~IRETQ_FLAG) == gt[j]) {
            k++, j++;
            continue;
        }
        if (j && w[k] == gt[j - 1]) {
            k++, reps++; /* a REP iteration executes the same instruction again */
            continue;
        }
        /* An inserted run (interrupt handler with TF clear): it ends with an IRETQ back to
         * exactly the next stepped instruction, or into the REP instruction it interrupted. */
        size_t k2 = k;
        while (k2 < nw && !((w[k2] & IRETQ_FLAG) && k2 + 1 < nw &&
                            (w[k2 + 1] == gt[j] || (j && w[k2 + 1] == gt[j - 1]))))
            k2++;
        if (k2 >= nw) {
            printf("soft_ptxed: witness DIFFERS at stepped #%zu (0x%" PRIx64 ") / executed #%zu (0x%" PRIx64 ")\n",
                   j, gt[j], k, (uint64_t)(w[k] & ~IRETQ_FLAG));
            wfail = 1;
            break;
        }
        if (!blocks)
            first_insert = w[k];
        else if (w[k] != first_insert)
            odd_starts++; /* every inserted run must enter through the same interrupt stub */
        blocks++;
        inserted += k2 + 1 - k;
        k = k2 + 1;
    }
    /* After the final RET: the trampoline's tail, maybe with an interrupt taken in it. */
    for (size_t t = k; j == ngt && t < nw; t++)
        if (w[t] & IRETQ_FLAG) {
            blocks++;
            inserted += t + 1 - k;
            k = t + 1;
        }
    size_t tail = nw - k;
    if (!wfail && (j != ngt || tail > TRAMPOLINE_TAIL || head < TRAMPOLINE_HEAD)) {
        printf("soft_ptxed: witness DIFFERS at the end: stepped %zu of %zu matched, %zu executed left over\n", j,
               ngt, tail);
        wfail = 1;
    }
    if (!wfail && odd_starts) {
        printf("soft_ptxed: witness DIFFERS: %zu of %zu inserted runs do not start at the interrupt stub 0x%" PRIx64 "\n",
               odd_starts, blocks, first_insert);
        wfail = 1;
    }
    if (!wfail)
        printf("soft_ptxed: witness: %zu executed = %zu stepped + %zu REP iterations + %zu in %zu inserted runs"
               " (TF clear: interrupt handlers; first at 0x%" PRIx64 ") + %u trampoline\n",
               nw, ngt, reps, inserted, blocks, first_insert, (unsigned)(head + tail));
    free(w);
    return wfail;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: soft_ptxed DIR [WITNESS]\n");
        return 2;
    }
    if (!strcmp(argv[1], "--ips"))
        return argc > 2 ? session_ips(argv[2], NULL) : 2;
    if (!strcmp(argv[1], "--session-witness"))
        return argc > 3 ? session_ips(argv[2], argv[3]) : 2;
    const char *dir = argv[1];
    size_t tlen = 0, glen = 0, plen = 0, mlen = 0;
    uint8_t *trace = slurp(dir, "trace.pt", &tlen);
    uint64_t *gt = slurp(dir, "gt.bin", &glen);
    uint8_t *pg = slurp(dir, "pages.bin", &plen);
    char *meta = slurp(dir, "meta.txt", &mlen);
    if (!trace || !gt || !pg || !meta) {
        fprintf(stderr, "soft_ptxed: %s: missing trace.pt, gt.bin, pages.bin or meta.txt\n", dir);
        return 1;
    }
    npages = plen / (8 + PAGE);
    pages = calloc(npages + 1, sizeof *pages);
    for (size_t i = 0; i < npages; i++) {
        memcpy(&pages[i].addr, pg + i * (8 + PAGE), 8);
        pages[i].bytes = pg + i * (8 + PAGE) + 8;
        pages[i].len = PAGE;
    }
    size_t ngt = glen / 8;
    int wrapped = (int)meta_u64(meta, "wrapped="), stopped = (int)meta_u64(meta, "stopped=");
    uint64_t fa = meta_u64(meta, "filter_a="), fb = meta_u64(meta, "filter_b=");
    size_t traced_end = (size_t)meta_u64(meta, "traced_end=");
    if (traced_end > ngt)
        traced_end = ngt;

    /* libipt */
    uint64_t *got = malloc((ngt + 16) * sizeof *got);
    size_t n = 0;
    uint64_t off = 0;
    int err = decode(trace, tlen, got, ngt + 16, &n, &off);

    /* what the processor traced: PacketEn (filter) up to TraceStop; ring = newest, stop = oldest */
    uint64_t *want = malloc((ngt + 1) * sizeof *want);
    size_t nwant = 0;
    for (size_t i = 0; i < traced_end; i++)
        if (gt[i] >= fa && gt[i] <= fb)
            want[nwant++] = gt[i];
    size_t skip = 0;
    if (wrapped && n <= nwant)
        skip = nwant - n, nwant = n;
    else if (stopped && n <= nwant)
        nwant = n;
    int fail = 0;
    if (err && !(stopped || wrapped)) {
        printf("soft_ptxed: %s: libipt error %s at trace offset 0x%" PRIx64 " after %zu instructions\n", dir,
               pt_errstr(pt_errcode(err)), off, n);
        fail = 1;
    }
    size_t i = 0;
    while (i < n && i < nwant && got[i] == want[skip + i])
        i++;
    if (i != n || n != nwant) {
        printf("soft_ptxed: %s: FIRST DIFFERENCE at %zu: libipt 0x%" PRIx64 ", ground truth 0x%" PRIx64
               " (libipt %zu, expected %zu)\n", dir, i, i < n ? got[i] : 0, i < nwant ? want[skip + i] : 0, n, nwant);
        fail = 1;
    } else {
        printf("soft_ptxed: %s: libipt decoded %zu instructions = ground truth (%zu stepped%s%s%s)\n", dir, n, ngt,
               wrapped ? ", ring wrapped: newest part" : "", stopped ? ", stopped: oldest part" : "",
               fa || fb != ~0ull ? ", IP filter" : "");
    }

    if (argc > 2)
        fail |= compare_witness(argv[2], gt, ngt);
    printf("soft_ptxed: %s: %s\n", dir, fail ? "FAIL" : "PASS");
    free(got), free(want), free(trace), free(gt), free(pg), free(meta), free(pages);
    return fail;
}
