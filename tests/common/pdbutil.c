#include "tests/common/pdbutil.h"

FILE *pdbutil_popen(const char *args)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "llvm-pdbutil %s 2>/dev/null || llvm-pdbutil-14 %s", args, args);
    return popen(cmd, "r");
}

void pdbutil_summary(const char *pdb, char *guid, size_t cap, unsigned *age)
{
    char args[800], line[512], g[64] = "?";
    snprintf(args, sizeof args, "dump --summary '%s'", pdb);
    *age = 0;
    FILE *p = pdbutil_popen(args);
    while (p && fgets(line, sizeof line, p)) {
        sscanf(line, " GUID: %63s", g);
        sscanf(line, " Age: %u", age);
    }
    if (p)
        pclose(p);
    snprintf(guid, cap, "%s", g);
}
