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

int fwpt_cmd_caps(int argc, char **argv)
{
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_caps caps;
    struct fwpt_sink out = fwpt_file_sink(stdout);
    struct fwpt_cpu_args cpu;
    bool json = false, require = false;

    fwpt_cpu_args_init(&cpu, "fwpt caps");
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
        if (!fwpt_arg_in(o, fwpt_cpu_value_options))
            return bad(o, "unknown option (see fwpt caps --help)", NULL);
        if (!v)
            return bad(o, "needs a value", NULL);
        i++;
        if (fwpt_cpu_arg(&cpu, o, v))
            return 2;
    }
    int rc = fwpt_cpu_args_snapshot(&cpu, &snap);
    if (rc)
        return rc;
    fwpt_caps_parse(&snap, &caps);
    if (json)
        fwpt_caps_json(&caps, &out);
    else
        fwpt_caps_report(&caps, &out);
    fflush(stdout);
    return require && !caps.pt_supported ? 3 : 0;
}
