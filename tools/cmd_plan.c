/* fwpt plan — the output plan and the ToPA tables fwpt would build for given capabilities and
 * options: the same CPU flags as `fwpt caps` (this machine, --profile, or CPUID registers), plus
 * --size, --region, --mode stop|ring, --single-range, --pmi, --entries-per-table.
 * Tables are built in host memory at illustrative physical addresses and validated.
 * Exit status: 0 plan printed, 1 plan refused (the option and the rule are named), 2 bad usage. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/caps.h"
#include "arch/cpu_replay.h"
#include "tools/commands.h"
#include "topa/plan.h"
#include "topa/validate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fwpt plan [CPU] [--size N] [--region N] [--mode stop|ring] [--single-range] [--pmi]\n"
            "                 [--entries-per-table N] [--phys ADDR] [--max-entries N]\n"
            "CPU:   nothing (this machine), --profile NAME (fwpt caps --list-profiles), or registers as in\n"
            "       fwpt caps: --leaf7-ebx X --leaf14-0 EAX,EBX,ECX,EDX [--leaf14-1 EAX,EBX,ECX,EDX]\n"
            "       [--maxphyaddr N] [--vendor GenuineIntel] [--max-leaf X]\n"
            "       [--leaf1-eax X | --family-model-stepping F/M/S] [--leaf1a-eax X]\n"
            "sizes: 4096, 64K, 2M, 0x1000. --size default 2M, --region default 64K (multi-entry ToPA).\n"
            "--entries-per-table 2..512 (default 512 = one 4K page; smaller values chain tables).\n"
            "--phys: where the illustrative allocation starts (default 0x100000000).\n"
            "exit: 0 plan printed, 1 plan refused, 2 bad usage.\n");
}

static int bad(const char *opt, const char *why, const char *val) { return fwpt_arg_bad("fwpt plan", opt, why, val); }

static const char *const plan_options[] = {"--size", "--region", "--mode", "--entries-per-table", "--phys",
                                           "--max-entries", NULL};

int fwpt_cmd_plan(int argc, char **argv)
{
    struct fwpt_cpuid_snapshot snap;
    struct fwpt_caps caps;
    struct fwpt_plan_options opt = {0, 0, FWPT_PLAN_STOP, false, false, 0};
    struct fwpt_cpu_args cpu;
    uint64_t phys = 0x100000000ull, max_entries = 64;

    fwpt_cpu_args_init(&cpu, "fwpt plan");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--single-range")) {
            opt.single_range = true;
            continue;
        } else if (!strcmp(o, "--pmi")) {
            opt.pmi = true;
            continue;
        }
        if (strncmp(o, "--", 2))
            return bad(o, "unexpected argument (see fwpt plan --help)", NULL);
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!fwpt_arg_in(o, plan_options) && !fwpt_arg_in(o, fwpt_cpu_value_options))
            return bad(o, "unknown option (see fwpt plan --help)", NULL);
        if (!v)
            return bad(o, "needs a value", NULL);
        uint64_t n;
        if (!strcmp(o, "--size")) {
            if (fwpt_parse_size(v, &opt.total_size) || !opt.total_size)
                return bad(o, "expected a size such as 2M, 64K or 4096", v);
        } else if (!strcmp(o, "--region")) {
            if (fwpt_parse_size(v, &opt.region_size) || !opt.region_size)
                return bad(o, "expected a size such as 64K", v);
        } else if (!strcmp(o, "--mode")) {
            if (!strcmp(v, "stop"))
                opt.mode = FWPT_PLAN_STOP;
            else if (!strcmp(v, "ring"))
                opt.mode = FWPT_PLAN_RING;
            else
                return bad(o, "expected stop or ring", v);
        } else if (!strcmp(o, "--entries-per-table")) {
            if (fwpt_parse_u64(v, 0, &n) || n > 100000)
                return bad(o, "expected a number", v);
            opt.entries_per_table = (unsigned)n;
        } else if (!strcmp(o, "--phys")) {
            if (fwpt_parse_u64(v, 0, &phys) || (phys & 0xfff))
                return bad(o, "expected a 4K-aligned address", v);
        } else if (!strcmp(o, "--max-entries")) {
            if (fwpt_parse_u64(v, 0, &max_entries) || !max_entries)
                return bad(o, "expected a number", v);
        } else if (fwpt_cpu_arg(&cpu, o, v)) {
            return 2;
        }
    }
    if (fwpt_cpu_args_snapshot(&cpu, &snap))
        return 2; /* bad usage, or this machine's CPUID could not be read (said) */
    fwpt_caps_parse(&snap, &caps);

    struct fwpt_sink out = fwpt_file_sink(stdout);
    struct fwpt_plan plan;
    struct fwpt_plan_error err;
    if (fwpt_plan_make(&caps, &opt, &plan, &err) != FWPT_OK) {
        /* on stderr: nothing is planned. The setting as given (--size 6K: ...), or the processor's reason. */
        struct fwpt_sink es = fwpt_file_sink(stderr);
        fwpt_puts(&es, "plan refused: ");
        fwpt_plan_error_print(&err, true, &es);
        if (!caps.pt_supported)
            fprintf(stderr, ": %s (%s); describe another with --profile NAME or its CPUID registers (fwpt plan --help)",
                    fwpt_caps_reason_msg(caps.reason), cpu.recorded || cpu.profile ? "the processor described" : "this machine");
        fputc('\n', stderr);
        return 1;
    }
    fwpt_plan_print(&plan, &out);

    /* Lay the plan out at illustrative physical addresses: tables first, then regions. */
    uint64_t cursor = phys;
    uint64_t *table_phys = calloc(plan.table_count + 1, sizeof *table_phys);
    uint64_t *region_phys = calloc(plan.region_count + 1, sizeof *region_phys);
    for (unsigned i = 0; i < plan.tables.count; i++) {
        table_phys[i] = cursor;
        cursor += plan.tables.bytes;
    }
    uint64_t region_start = (cursor + plan.regions.align - 1) & ~(plan.regions.align - 1);
    for (unsigned i = 0; i < plan.regions.count; i++)
        region_phys[i] = region_start + (uint64_t)i * plan.regions.bytes;
    /* Only the tables need host memory to print them; regions stay unmapped. */
    size_t tbytes = plan.table_count ? (size_t)plan.table_count * 0x1000 : 0x1000;
    void *tmem = calloc(1, tbytes);
    struct fwpt_physmem mem;
    fwpt_physmem_init(&mem, false);
    fwpt_physmem_add(&mem, phys, tbytes, tmem);
    struct fwpt_output_regs regs;
    enum fwpt_status st = fwpt_plan_apply(&plan, &mem, region_phys, table_phys, &regs);
    int rc = 0;
    if (st != FWPT_OK) {
        printf("tables: %s\n", fwpt_status_msg(st));
        rc = 1;
    } else {
        printf("IA32_RTIT_OUTPUT_BASE:      0x%016llx\n", (unsigned long long)regs.output_base);
        printf("IA32_RTIT_OUTPUT_MASK_PTRS: 0x%016llx\n", (unsigned long long)regs.output_mask_ptrs);
        printf("IA32_RTIT_CTL output bits:  0x%llx\n", (unsigned long long)regs.ctl_bits);
        if (plan.scheme != FWPT_SCHEME_SINGLE_RANGE) {
            printf("tables (at illustrative addresses from 0x%llx):\n", (unsigned long long)phys);
            fwpt_topa_print_tables(&mem, regs.output_base, (unsigned)max_entries, &out);
        } else {
            printf("range: 0x%llx..0x%llx\n", (unsigned long long)region_phys[0],
                   (unsigned long long)(region_phys[0] + plan.region_size - 1));
        }
        struct fwpt_violation v[16];
        struct fwpt_validate_out vo = {v, 16, 0, 0, false, {0}};
        struct fwpt_validate_in vi = {&caps, &mem, regs.ctl_bits, regs.output_base, regs.output_mask_ptrs, 0, NULL, 0};
        st = fwpt_validate(&vi, &vo);
        printf("validation: %s (%zu violation%s)\n", st == FWPT_OK ? "accepted" : fwpt_status_msg(st), vo.count,
               vo.count == 1 ? "" : "s");
        for (size_t i = 0; i < vo.count && i < 16; i++)
            printf("  %s %s: %s (table 0x%llx entry %d)\n", v[i].warning ? "warning" : "error",
                   fwpt_topa_rule_name(v[i].rule), fwpt_topa_rule_text(v[i].rule), (unsigned long long)v[i].table,
                   v[i].entry == FWPT_NO_ENTRY ? -1 : (int)v[i].entry);
        if (st != FWPT_OK)
            rc = 1;
    }
    free(tmem);
    free(table_phys);
    free(region_phys);
    return rc;
}
