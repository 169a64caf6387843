#include "tests/common/tool_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

int tool_run(const char *cmd, const char *args, char *out, size_t cap)
{
    const char *b = getenv("FWPT_BUILD");
    char line[4096];
    snprintf(line, sizeof line, "\"%s/fwpt\" %s %s 2>&1", b && *b ? b : "build", cmd, args);
    FILE *f = popen(line, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
