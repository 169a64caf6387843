/* fwpt host tool — one function per subcommand, each in tools/cmd_NAME.c. */
#ifndef FWPT_TOOLS_COMMANDS_H
#define FWPT_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>
#include "arch/caps.h"
#include "base/text.h"

/* argv[0] is the subcommand name. Return the process exit status. */
int fwpt_cmd_caps(int argc, char **argv);
int fwpt_cmd_plan(int argc, char **argv);
int fwpt_cmd_dump(int argc, char **argv);
int fwpt_cmd_flow(int argc, char **argv);
/* What fwpt flow's option a takes as its value ("a FILE to write"), NULL when it takes none (fwpt report passes
 * the pair on). */
const char *fwpt_flow_option_value(const char *a);
int fwpt_cmd_report(int argc, char **argv);

/* A sink writing to a stdio stream. */
struct fwpt_sink fwpt_file_sink(FILE *f);

/* The bad-usage messages of the commands' argument loops (tools/fwpt.c), on stderr, each beginning with cmd
 * ("fwpt caps"); each returns 2, the bad-usage exit status. fwpt_arg_bad: "CMD: OPT: WHY", and " ('VAL')" when
 * a value is given. fwpt_arg_unknown: "CMD: WHAT 'A'" for an option the command does not take (WHAT: "unknown
 * option"), then the usage. fwpt_arg_operand: the first operand into *slot (0 returned); a second one is
 * "CMD: more than one WHAT ('FIRST', 'A')". */
int fwpt_arg_bad(const char *cmd, const char *opt, const char *why, const char *val);
int fwpt_arg_unknown(const char *cmd, const char *what, const char *a, void (*usage)(FILE *f));
int fwpt_arg_operand(const char *cmd, const char *what, const char **slot, const char *a);
/* fwpt flow's and fwpt dump's options: tables read by one parser (tools/options.h). */

/* CPUID register arguments (tools/cpuid_args.c), for caps and plan: a 32-bit hex value (0 ok,
 * -1 bad); "EAX,EBX,ECX,EDX" in hex (0 ok, -1 bad, 1 for a not-read marker such as n/a, or four
 * of them, as pasted from cpuid_leaf14.tsv). */
int fwpt_arg_hex32(const char *s, uint32_t *out);
bool fwpt_arg_is_marker(const char *s); /* n/a, absent, not_in_dump_format: a register not read */
int fwpt_arg_regs(const char *s, struct fwpt_cpuid_regs *r);
/* opt is one of the NULL-terminated names: so "needs a value" is said only of real options. */
bool fwpt_arg_in(const char *opt, const char *const *names);

/* The CPU that caps and plan describe (tools/cpuid_args.c): this machine, --profile NAME, or CPUID registers
 * (--leaf7-ebx, --leaf14-0, --leaf14-1, --maxphyaddr, --vendor, --max-leaf, --leaf1-eax,
 * --family-model-stepping, --leaf1a-eax), with the same options, rules and messages in both commands. */
struct fwpt_cpu_args {
    const char *cmd; /* "fwpt caps": the messages' prefix */
    const struct fwpt_cpu_profile *profile;
    bool recorded, have_max, have_14_0, have_14_1, have_1a;
    uint32_t max_leaf;
    struct fwpt_cpuid_regs r14_0, r14_1;
    struct fwpt_cpuid_snapshot snap; /* the registers given so far */
};
/* The CPU options that take a value (NULL-terminated). */
extern const char *const fwpt_cpu_value_options[];
void fwpt_cpu_args_init(struct fwpt_cpu_args *c, const char *cmd);
/* o (one of fwpt_cpu_value_options) with its value v: 0 taken, 2 bad (said on stderr). */
int fwpt_cpu_arg(struct fwpt_cpu_args *c, const char *o, const char *v);
/* The CPU described, as fwpt_caps_read would snapshot it: 0; 2 bad usage (said); 1 CPUID of this machine could
 * not be read (said). */
int fwpt_cpu_args_snapshot(struct fwpt_cpu_args *c, struct fwpt_cpuid_snapshot *snap);

#endif
