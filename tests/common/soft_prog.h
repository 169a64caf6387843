/* fwpt tests — random x86-64 programs laid out sparsely in a 64-bit address space, and one random
 * execution of them as the sequence of retired instructions (IP, size, class, next IP) that the
 * software trace encoder (sim/soft_enc) consumes. Branch outcomes and indirect targets come from
 * a seeded RNG; calls only go to higher-numbered functions and, once the budget is spent, branches
 * only go forward, so every walk ends with the outermost RET leaving the program. Hosted C. */
#ifndef FWPT_TESTS_SOFT_PROG_H
#define FWPT_TESTS_SOFT_PROG_H

#include <stddef.h>
#include <stdint.h>
#include "sim/soft_enc.h"

struct soft_prog_cfg {
    uint64_t seed;
    uint64_t base;     /* address of function 0 */
    uint64_t spread;   /* functions are placed at random offsets below base + spread (<= 1 GiB) */
    unsigned nfuncs;   /* 2..200 */
    size_t budget;     /* instructions before branches are forced forward */
    int chain;         /* function i starts with "call f(i+1)": call depth nfuncs (RET stack overflow) */
    int ret_clobber;   /* some RETs return elsewhere (as after "mov %rax,(%rsp)"): uncompressed */
};

struct soft_prog_func {
    uint64_t addr;
    uint8_t *code;
    size_t size;
};

struct soft_prog {
    struct soft_prog_func *funcs;
    unsigned nfuncs;
    uint64_t caller_ret;        /* where the outermost RET goes (outside every function) */
    struct fwpt_soft_insn *flow; /* the execution; the last entry has leaves = 1 */
    size_t nflow;
};

int soft_prog_build(const struct soft_prog_cfg *cfg, struct soft_prog *p);
void soft_prog_free(struct soft_prog *p);
/* Copy code bytes at [ip, ip+n) into buf; returns bytes copied (0 when ip is not code). */
size_t soft_prog_read(const struct soft_prog *p, uint64_t ip, uint8_t *buf, size_t n);
/* The same as a libipt read_memory_callback_t (ctx: the soft_prog): -pte_nomap outside the code. */
struct pt_asid;
int soft_prog_ipt_read(uint8_t *buf, size_t n, const struct pt_asid *asid, uint64_t ip, void *ctx);

#endif
