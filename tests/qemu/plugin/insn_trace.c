/* fwpt — an outside witness for the software trace backend: a QEMU TCG plugin that records every
 * instruction the guest executes between the markers in efi/soft.c's trampoline
 * (xchg %bx,%bx = 66 87 DB before the traced call, xchg %cx,%cx = 66 87 C9 after it), leaving out
 * the #DB handler: the first instruction executed after the trampoline's `call *%rax` (FF D0) is
 * the vector-1 entry stub; from every execution of it up to the IRETQ (48 CF) nothing is recorded.
 * Interrupt handlers (timer) that run inside the call with TF clear ARE recorded: they are what a
 * single-stepped trace cannot see (docs/soft-backend.md). Run N's IPs go to OUT.N (little-endian u64 each; bit 63
 * set on an IRETQ).
 *   qemu-system-x86_64 ... -plugin build/tests/insn_trace.so,out=/tmp/witness
 * One vCPU (OVMF under TCG runs the app on the BSP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/qemu/plugin/qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum kind { K_OTHER, K_MARK_ON, K_MARK_OFF, K_IRETQ, K_CALL_RAX };
#define KIND_SHIFT 56
#define VADDR_MASK ((1ull << KIND_SHIFT) - 1)
#define IRETQ_FLAG (1ull << 63) /* in the output: this entry is an IRETQ */

static char out_prefix[4096] = "insn_trace";
static int on, in_handler, after_call;
static uint64_t stub;
static unsigned run;
static uint64_t *ips;
static size_t n, cap;
static unsigned long long handler_insns;

static void flush_run(void)
{
    char path[4200], msg[4400];
    snprintf(path, sizeof path, "%s.%u", out_prefix, run);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(ips, sizeof *ips, n, f);
        fclose(f);
    }
    snprintf(msg, sizeof msg, "insn_trace: run %u: %zu instructions recorded, %llu in the #DB path left out, stub 0x%llx -> %s\n",
             run, n, handler_insns, (unsigned long long)stub, path);
    qemu_plugin_outs(msg);
}

static void exec_cb(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    uint64_t v = (uint64_t)(uintptr_t)udata;
    uint64_t vaddr = v & VADDR_MASK;
    unsigned kind = (unsigned)(v >> KIND_SHIFT);
    if (!on) {
        if (kind == K_MARK_ON) {
            on = 1, in_handler = 0, after_call = 0, stub = 0, n = 0, handler_insns = 0;
            run++;
        }
        return;
    }
    if (after_call) {
        after_call = 0;
        stub = vaddr; /* TF was set by POPFQ: the trap after the CALL enters the #DB stub */
    }
    if (in_handler || (stub && vaddr == stub)) {
        in_handler = kind != K_IRETQ;
        handler_insns++;
        return;
    }
    if (kind == K_MARK_OFF) {
        on = 0;
        flush_run();
        return;
    }
    if (kind == K_CALL_RAX && !stub)
        after_call = 1;
    if (n == cap) {
        cap = cap ? cap * 2 : 1 << 16;
        ips = realloc(ips, cap * sizeof *ips);
        if (!ips)
            abort();
    }
    /* IRETQ outside the #DB path ends an interrupt handler: flagged so the checker can find the
     * exact end of each inserted run. */
    ips[n++] = vaddr | (kind == K_IRETQ ? IRETQ_FLAG : 0);
    if (stub && vaddr == stub)
        in_handler = 1;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t count = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint8_t *b = qemu_plugin_insn_data(insn);
        size_t sz = qemu_plugin_insn_size(insn);
        unsigned kind = K_OTHER;
        if (sz == 3 && b[0] == 0x66 && b[1] == 0x87 && b[2] == 0xdb)
            kind = K_MARK_ON;
        else if (sz == 3 && b[0] == 0x66 && b[1] == 0x87 && b[2] == 0xc9)
            kind = K_MARK_OFF;
        else if (sz == 2 && b[0] == 0x48 && b[1] == 0xcf)
            kind = K_IRETQ;
        else if (sz == 2 && b[0] == 0xff && b[1] == 0xd0)
            kind = K_CALL_RAX;
        uint64_t v = (qemu_plugin_insn_vaddr(insn) & VADDR_MASK) | ((uint64_t)kind << KIND_SHIFT);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_cb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)v);
    }
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id, (void)udata;
    char msg[128];
    snprintf(msg, sizeof msg, "insn_trace: %u runs\n", run);
    qemu_plugin_outs(msg);
    free(ips);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
        if (!strncmp(argv[i], "out=", 4))
            snprintf(out_prefix, sizeof out_prefix, "%s", argv[i] + 4);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
