#include "base/version.h"

const char *fwpt_version(void)
{
    return FWPT_VERSION;
}
