/* fwpt report DIR -o FILE: the report page of a saved \fwpt\ directory (render/report), the same bytes the
 * app writes to \fwpt\report.html for that trace. The decoding is `fwpt flow DIR --report FILE`'s. */
#include <stdio.h>
#include <string.h>
#include "tools/commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: fwpt report DIR -o FILE [flow options]\n"
               "  DIR            a saved \\fwpt\\ directory (trace.pt, sideband.json, img-BASE.bin)\n"
               "  -o FILE        the HTML page to write: the run, the module and function profiles, the flame\n"
               "                 graph and a collapsible call tree; one file, no outside assets\n"
               "  flow options   any option of `fwpt flow` with its value: --cpu, --filter, --image, --symbols,\n"
               "                 --by, ... (see fwpt flow --help); the exit status is fwpt flow's\n");
}

int fwpt_cmd_report(int argc, char **argv)
{
    const char *out = NULL, *dir = NULL;
    char *args[64];
    int n = 0;
    args[n++] = "flow";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "fwpt report: %s needs a FILE\n", a);
                return 2;
            }
            out = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            if (n + 2 >= 60) {
                fprintf(stderr, "fwpt report: too many options\n");
                return 2;
            }
            args[n++] = argv[i]; /* a flow option, with its value when it takes one (fwpt flow checks both) */
            const char *expect = fwpt_flow_option_value(a);
            if (expect && i + 1 >= argc) {
                fprintf(stderr, "fwpt report: %s: expected %s, got nothing (it is the last argument)\n", a, expect);
                return 2;
            }
            if (expect)
                args[n++] = argv[++i];
        } else if (fwpt_arg_operand("fwpt report", "DIR", &dir, a)) {
            return 2;
        }
    }
    if (!dir || !out) {
        fprintf(stderr, "fwpt report: %s\n", !dir ? "no DIR given" : "no output file given (-o FILE)");
        usage(stderr);
        return 2;
    }
    args[n++] = (char *)dir;
    args[n++] = "--report";
    args[n++] = (char *)out;
    args[n] = NULL;
    return fwpt_cmd_flow(n, args);
}
