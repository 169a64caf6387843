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
int fwpt_cmd_report(int argc, char **argv);

/* A sink writing to a stdio stream. */
struct fwpt_sink fwpt_file_sink(FILE *f);

/* CPUID register arguments (tools/cpuid_args.c), for caps and plan: a 32-bit hex value (0 ok,
 * -1 bad); "EAX,EBX,ECX,EDX" in hex (0 ok, -1 bad, 1 for a not-read marker such as n/a, or four
 * of them, as pasted from cpuid_leaf14.tsv). */
int fwpt_arg_hex32(const char *s, uint32_t *out);
bool fwpt_arg_is_marker(const char *s); /* n/a, absent, not_in_dump_format: a register not read */
int fwpt_arg_regs(const char *s, struct fwpt_cpuid_regs *r);
/* opt is one of the NULL-terminated names: so "needs a value" is said only of real options. */
bool fwpt_arg_in(const char *opt, const char *const *names);

#endif
