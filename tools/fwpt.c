/* fwpt host tool: decodes saved traces and explains capabilities on Linux. */
#include <stdio.h>
#include <string.h>
#include "tools/commands.h"

static void file_write(void *ctx, const char *s, size_t n) { fwrite(s, 1, n, (FILE *)ctx); }

struct fwpt_sink fwpt_file_sink(FILE *f)
{
    struct fwpt_sink s = {file_write, f};
    return s;
}

int fwpt_arg_bad(const char *cmd, const char *opt, const char *why, const char *val)
{
    fprintf(stderr, "%s: %s: %s%s%s%s\n", cmd, opt, why, val ? " ('" : "", val ? val : "", val ? "')" : "");
    return 2;
}

int fwpt_arg_unknown(const char *cmd, const char *what, const char *a, void (*usage)(FILE *f))
{
    fprintf(stderr, "%s: %s '%s'\n", cmd, what, a);
    usage(stderr);
    return 2;
}

int fwpt_arg_operand(const char *cmd, const char *what, const char **slot, const char *a)
{
    if (!*slot) {
        *slot = a;
        return 0;
    }
    fprintf(stderr, "%s: more than one %s ('%s', '%s')\n", cmd, what, *slot, a);
    return 2;
}

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"caps", fwpt_cmd_caps, "Intel PT capabilities of this CPU or of given CPUID registers"},
    {"plan", fwpt_cmd_plan, "output plan and ToPA tables for capabilities and options"},
    {"dump", fwpt_cmd_dump, "decode a trace file into packets"},
    {"flow", fwpt_cmd_flow, "decode a trace into the executed instruction flow"},
    {"report", fwpt_cmd_report, "one self-contained HTML page of a saved trace: run, profiles, flame graph, call tree"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: fwpt COMMAND [options]   (fwpt COMMAND --help for its options)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-6s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "fwpt: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
