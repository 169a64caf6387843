/* fwpt host tool — CPUID register arguments and the CPU they describe, shared by `fwpt caps` and `fwpt plan`. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "arch/cpu_replay.h"
#include "tools/commands.h"
#include "tools/cpu_host.h"

bool fwpt_arg_is_marker(const char *s)
{
    return !strcmp(s, "n/a") || !strcmp(s, "absent") || !strcmp(s, "not_in_dump_format");
}

int fwpt_arg_hex32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (fwpt_parse_u64(s, 1, &v) || v > 0xffffffffull)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int fwpt_arg_regs(const char *s, struct fwpt_cpuid_regs *r)
{
    char buf[128], *p[4], *c;
    int n = 0;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    if (fwpt_arg_is_marker(buf))
        return 1;
    p[n++] = buf;
    for (c = buf; *c; c++)
        if (*c == ',') {
            if (n == 4)
                return -1;
            *c = '\0';
            p[n++] = c + 1;
        }
    if (n != 4)
        return -1;
    if (fwpt_arg_is_marker(p[0]) && fwpt_arg_is_marker(p[1]) && fwpt_arg_is_marker(p[2]) &&
        fwpt_arg_is_marker(p[3]))
        return 1;
    if (fwpt_arg_hex32(p[0], &r->eax) || fwpt_arg_hex32(p[1], &r->ebx) || fwpt_arg_hex32(p[2], &r->ecx) ||
        fwpt_arg_hex32(p[3], &r->edx))
        return -1;
    return 0;
}

bool fwpt_arg_in(const char *opt, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(opt, *names))
            return true;
    return false;
}

/* Inverse of the display rule of CPUID.1:EAX (extended family/model fields). */
static int parse_fms(const char *s, uint32_t *eax)
{
    unsigned f, m, st;
    char tail;
    uint32_t base_f, ext_f = 0, base_m = 0, ext_m = 0;
    if (sscanf(s, "%u/%u/%u%c", &f, &m, &st, &tail) != 3 || st > 15 || m > 255 || f > 15 + 255 || f == 0)
        return -1;
    base_f = f >= 15 ? 15 : f;
    if (f >= 15)
        ext_f = f - 15;
    if (base_f == 6 || base_f == 15) {
        base_m = m & 15;
        ext_m = m >> 4;
    } else {
        if (m > 15)
            return -1;
        base_m = m;
    }
    *eax = (ext_f << 20) | (ext_m << 16) | (base_f << 8) | (base_m << 4) | st;
    return 0;
}

const char *const fwpt_cpu_value_options[] = {"--profile",    "--leaf7-ebx", "--leaf14-0", "--leaf14-1",
                                              "--maxphyaddr", "--vendor",    "--max-leaf", "--leaf1-eax",
                                              "--family-model-stepping", "--leaf1a-eax", NULL};

void fwpt_cpu_args_init(struct fwpt_cpu_args *c, const char *cmd)
{
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    strcpy(c->snap.vendor, "GenuineIntel");
}

int fwpt_cpu_arg(struct fwpt_cpu_args *c, const char *o, const char *v)
{
    struct fwpt_cpuid_snapshot *snap = &c->snap;
    int rc;
    if (!strcmp(o, "--profile")) {
        if (!(c->profile = fwpt_cpu_profile_find(v)))
            return fwpt_arg_bad(c->cmd, o, "no such profile (fwpt caps --list-profiles)", v);
        return 0;
    }
    c->recorded = true;
    if (!strcmp(o, "--leaf7-ebx")) {
        if (fwpt_arg_hex32(v, &snap->leaf7_ebx))
            return fwpt_arg_bad(c->cmd, o, "expected a 32-bit hex value", v);
    } else if (!strcmp(o, "--leaf14-0")) {
        rc = fwpt_arg_regs(v, &c->r14_0);
        if (rc < 0)
            return fwpt_arg_bad(c->cmd, o, "expected EAX,EBX,ECX,EDX in hex (or n/a)", v);
        c->have_14_0 = rc == 0;
    } else if (!strcmp(o, "--leaf14-1")) {
        rc = fwpt_arg_regs(v, &c->r14_1);
        if (rc < 0)
            return fwpt_arg_bad(c->cmd, o, "expected EAX,EBX,ECX,EDX in hex (or absent/not_in_dump_format/n/a)", v);
        c->have_14_1 = rc == 0;
    } else if (!strcmp(o, "--maxphyaddr")) {
        uint64_t n;
        if (fwpt_parse_u64(v, 0, &n) || n < 1 || n > 64)
            return fwpt_arg_bad(c->cmd, o, "expected a bit count 1..64 (decimal)", v);
        snap->maxphyaddr = (uint32_t)n;
        snap->max_ext_leaf = 0x80000008u;
    } else if (!strcmp(o, "--vendor")) {
        if (strlen(v) != 12)
            return fwpt_arg_bad(c->cmd, o, "expected a 12-character vendor string such as GenuineIntel", v);
        strcpy(snap->vendor, v);
    } else if (!strcmp(o, "--max-leaf")) {
        if (fwpt_arg_hex32(v, &c->max_leaf) || c->max_leaf >= 0x80000000u)
            return fwpt_arg_bad(c->cmd, o, "expected a basic leaf number in hex", v);
        c->have_max = true;
    } else if (!strcmp(o, "--leaf1-eax")) {
        if (fwpt_arg_hex32(v, &snap->leaf1_eax))
            return fwpt_arg_bad(c->cmd, o, "expected a 32-bit hex value", v);
    } else if (!strcmp(o, "--family-model-stepping")) {
        if (parse_fms(v, &snap->leaf1_eax))
            return fwpt_arg_bad(c->cmd, o, "expected FAMILY/MODEL/STEPPING in decimal, e.g. 6/94/3", v);
    } else if (!strcmp(o, "--leaf1a-eax")) {
        if (fwpt_arg_is_marker(v))
            return 0;
        if (fwpt_arg_hex32(v, &snap->leaf1a_eax))
            return fwpt_arg_bad(c->cmd, o, "expected a 32-bit hex value (or n/a)", v);
        c->have_1a = true;
    }
    return 0;
}

int fwpt_cpu_args_snapshot(struct fwpt_cpu_args *c, struct fwpt_cpuid_snapshot *snap)
{
    if (c->profile && c->recorded)
        return fwpt_arg_bad(c->cmd, "--profile", "cannot be combined with register options", NULL);
    *snap = c->snap;
    if (c->profile) {
        fwpt_cpu_profile_snapshot(c->profile, snap);
    } else if (c->recorded) {
        uint32_t max_leaf = c->have_max ? c->max_leaf : c->have_1a ? 0x1a : c->have_14_0 ? 0x14 : 0x0d;
        if (c->have_14_0 && max_leaf < 0x14)
            return fwpt_arg_bad(c->cmd, "--leaf14-0", "given but --max-leaf is below 14H (leaf 14H would not be read)",
                                NULL);
        if (c->have_1a && max_leaf < 0x1a)
            return fwpt_arg_bad(c->cmd, "--leaf1a-eax", "given but --max-leaf is below 1AH", NULL);
        snap->max_basic_leaf = max_leaf;
        if (max_leaf >= 0x14) {
            snap->has_leaf14_0 = c->have_14_0;
            snap->leaf14_0 = c->r14_0;
            /* as fwpt_caps_read: subleaf 1 exists only when CPUID.(14H,0):EAX >= 1 */
            snap->has_leaf14_1 = c->have_14_0 && c->have_14_1 && c->r14_0.eax >= 1;
            if (snap->has_leaf14_1)
                snap->leaf14_1 = c->r14_1;
        }
        snap->has_leaf1a = c->have_1a;
        if (!c->have_1a)
            snap->leaf1a_eax = 0;
    } else {
        struct fwpt_cpu cpu = fwpt_host_cpu();
        enum fwpt_status st = fwpt_caps_read(&cpu, snap);
        if (st != FWPT_OK) {
            fprintf(stderr, "%s: reading CPUID failed: %s\n", c->cmd, fwpt_status_msg(st));
            return 1;
        }
    }
    return 0;
}
