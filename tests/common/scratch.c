#include "tests/common/scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

const char *build_dir(void)
{
    return getenv("FWPT_BUILD") ? getenv("FWPT_BUILD") : "build";
}

const char *ovmf_debug_fd(void)
{
    return getenv("FWPT_OVMF_DEBUG") ? getenv("FWPT_OVMF_DEBUG") : "../shared/ovmf-debug/OVMF.fd";
}

const char *ovmf_debug_dir(void)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s", ovmf_debug_fd());
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    return dir;
}

const char *scratch_dir(const char *prefix)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "%s/%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", prefix);
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return tmpdir;
}

void scratch_remove(const char *test)
{
    char cmd[400];
    if (tmpdir[0] && !getenv("FWPT_TEST_KEEP")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "%s: could not remove %s\n", test, tmpdir);
    }
}
