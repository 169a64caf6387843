/* fwpt caps — the Intel PT capability report for this machine, a built-in profile, or CPUID
 * registers given on the command line (e.g. copied from a row of cpuid_leaf14.tsv).
 * Exit status: 0 report printed (whatever the verdict; with --require-pt only when PT is usable),
 * 2 bad usage, 3 report printed but PT not usable and --require-pt given, 1 CPUID read failed. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "arch/caps.h"
#include "arch/cpu_replay.h"
#include "tools/commands.h"
#include "tools/cpu_host.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fwpt caps [--json] [--require-pt]                 this machine (CPUID)\n"
            "       fwpt caps --profile NAME [--json]                 a built-in CPU profile\n"
            "       fwpt caps --list-profiles\n"
            "       fwpt caps --leaf7-ebx X [--leaf14-0 EAX,EBX,ECX,EDX] [--leaf14-1 EAX,EBX,ECX,EDX]\n"
            "                 [--maxphyaddr N] [--vendor GenuineIntel] [--max-leaf X]\n"
            "                 [--leaf1-eax X | --family-model-stepping F/M/S] [--leaf1a-eax X] [--json]\n"
            "registers are hex (0x optional); --maxphyaddr and F/M/S are decimal.\n"
            "--leaf14-0 n/a: leaf 14H above the max leaf; --leaf14-1 absent|not_in_dump_format|n/a:\n"
            "subleaf 1 not recorded. Without --max-leaf the max basic leaf is 14H when --leaf14-0 has\n"
            "values (1AH with --leaf1a-eax), else 0DH.\n"
            "exit: 0 report printed (with --require-pt: and PT usable), 3 PT not usable with\n"
            "--require-pt, 2 bad usage, 1 CPUID could not be read.\n");
}

static int bad(const char *opt, const char *why, const char *val) { return fwpt_arg_bad("fwpt caps", opt, why, val); }

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

static const char *const value_options[] = {"--profile", "--leaf7-ebx", "--leaf14-0", "--leaf14-1", "--maxphyaddr", "--vendor", "--max-leaf", "--leaf1-eax", "--family-model-stepping", "--leaf1a-eax", NULL};

int fwpt_cmd_caps(int argc, char **argv)
{
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_caps caps;
    struct fwpt_sink out = fwpt_file_sink(stdout);
    const struct fwpt_cpu_profile *profile = NULL;
    bool json = false, require = false, recorded = false, have_max = false, have_14_0 = false,
         have_14_1 = false, have_1a = false;
    uint32_t max_leaf = 0;
    struct fwpt_cpuid_regs r14_0 = {0, 0, 0, 0}, r14_1 = {0, 0, 0, 0};
    int rc;

    memset(&snap, 0, sizeof snap);
    strcpy(snap.vendor, "GenuineIntel");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--json")) {
            json = true;
            continue;
        } else if (!strcmp(o, "--require-pt")) {
            require = true;
            continue;
        } else if (!strcmp(o, "--list-profiles")) {
            for (size_t k = 0; k < fwpt_cpu_profile_count(); k++) {
                const struct fwpt_cpu_profile *p = fwpt_cpu_profile_at(k);
                printf("%-16s %-8s %s\n", p->name, p->fms, p->cpu_name);
            }
            return 0;
        }
        if (strncmp(o, "--", 2) != 0)
            return bad(o, "unexpected argument (see fwpt caps --help)", NULL);
        if (!fwpt_arg_in(o, value_options))
            return bad(o, "unknown option (see fwpt caps --help)", NULL);
        if (!v)
            return bad(o, "needs a value", NULL);
        i++;
        if (!strcmp(o, "--profile")) {
            if (!(profile = fwpt_cpu_profile_find(v)))
                return bad(o, "no such profile (fwpt caps --list-profiles)", v);
            continue;
        }
        recorded = true;
        if (!strcmp(o, "--leaf7-ebx")) {
            if (fwpt_arg_hex32(v, &snap.leaf7_ebx))
                return bad(o, "expected a 32-bit hex value", v);
        } else if (!strcmp(o, "--leaf14-0")) {
            rc = fwpt_arg_regs(v, &r14_0);
            if (rc < 0)
                return bad(o, "expected EAX,EBX,ECX,EDX in hex (or n/a)", v);
            have_14_0 = rc == 0;
        } else if (!strcmp(o, "--leaf14-1")) {
            rc = fwpt_arg_regs(v, &r14_1);
            if (rc < 0)
                return bad(o, "expected EAX,EBX,ECX,EDX in hex (or absent/not_in_dump_format/n/a)", v);
            have_14_1 = rc == 0;
        } else if (!strcmp(o, "--maxphyaddr")) {
            uint64_t n;
            if (fwpt_parse_u64(v, 0, &n) || n < 1 || n > 64)
                return bad(o, "expected a bit count 1..64 (decimal)", v);
            snap.maxphyaddr = (uint32_t)n;
            snap.max_ext_leaf = 0x80000008u;
        } else if (!strcmp(o, "--vendor")) {
            if (strlen(v) != 12)
                return bad(o, "expected a 12-character vendor string such as GenuineIntel", v);
            strcpy(snap.vendor, v);
        } else if (!strcmp(o, "--max-leaf")) {
            if (fwpt_arg_hex32(v, &max_leaf) || max_leaf >= 0x80000000u)
                return bad(o, "expected a basic leaf number in hex", v);
            have_max = true;
        } else if (!strcmp(o, "--leaf1-eax")) {
            if (fwpt_arg_hex32(v, &snap.leaf1_eax))
                return bad(o, "expected a 32-bit hex value", v);
        } else if (!strcmp(o, "--family-model-stepping")) {
            if (parse_fms(v, &snap.leaf1_eax))
                return bad(o, "expected FAMILY/MODEL/STEPPING in decimal, e.g. 6/94/3", v);
        } else if (!strcmp(o, "--leaf1a-eax")) {
            if (fwpt_arg_is_marker(v))
                continue;
            if (fwpt_arg_hex32(v, &snap.leaf1a_eax))
                return bad(o, "expected a 32-bit hex value (or n/a)", v);
            have_1a = true;
        } else {
            return bad(o, "unknown option (see fwpt caps --help)", NULL);
        }
    }
    if (profile && recorded)
        return bad("--profile", "cannot be combined with register options", NULL);

    if (profile) {
        fwpt_cpu_profile_snapshot(profile, &snap);
    } else if (recorded) {
        if (!have_max)
            max_leaf = have_1a ? 0x1a : have_14_0 ? 0x14 : 0x0d;
        if (have_14_0 && max_leaf < 0x14)
            return bad("--leaf14-0", "given but --max-leaf is below 14H (leaf 14H would not be read)", NULL);
        if (have_1a && max_leaf < 0x1a)
            return bad("--leaf1a-eax", "given but --max-leaf is below 1AH", NULL);
        snap.max_basic_leaf = max_leaf;
        if (max_leaf >= 0x14) {
            snap.has_leaf14_0 = have_14_0;
            snap.leaf14_0 = r14_0;
            /* as fwpt_caps_read: subleaf 1 exists only when CPUID.(14H,0):EAX >= 1 */
            snap.has_leaf14_1 = have_14_0 && have_14_1 && r14_0.eax >= 1;
            if (snap.has_leaf14_1)
                snap.leaf14_1 = r14_1;
        }
        snap.has_leaf1a = have_1a;
        if (!have_1a)
            snap.leaf1a_eax = 0;
    } else {
        struct fwpt_cpu cpu = fwpt_host_cpu();
        enum fwpt_status st = fwpt_caps_read(&cpu, &snap);
        if (st != FWPT_OK) {
            fprintf(stderr, "fwpt caps: reading CPUID failed: %s\n", fwpt_status_msg(st));
            return 1;
        }
    }
    fwpt_caps_parse(&snap, &caps);
    if (json)
        fwpt_caps_json(&caps, &out);
    else
        fwpt_caps_report(&caps, &out);
    fflush(stdout);
    return require && !caps.pt_supported ? 3 : 0;
}
