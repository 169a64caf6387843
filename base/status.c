#include "base/status.h"

static const char *const status_names[] = {
#define FWPT_STATUS_NAME(n, m) #n,
    FWPT_STATUS_LIST(FWPT_STATUS_NAME)
#undef FWPT_STATUS_NAME
};

static const char *const status_msgs[] = {
#define FWPT_STATUS_MSG(n, m) m,
    FWPT_STATUS_LIST(FWPT_STATUS_MSG)
#undef FWPT_STATUS_MSG
};

const char *fwpt_status_name(enum fwpt_status s)
{
    if ((unsigned)s >= FWPT_STATUS_COUNT)
        return "E_UNKNOWN";
    return status_names[s];
}

const char *fwpt_status_msg(enum fwpt_status s)
{
    if ((unsigned)s >= FWPT_STATUS_COUNT)
        return "unknown status";
    return status_msgs[s];
}
