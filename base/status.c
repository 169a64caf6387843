#include "base/status.h"

/* Indexed by value: a number the table does not hold (retired, or past the end) stays NULL. A value given twice
 * is an error of -Woverride-init (-Wextra). */
static const char *const status_names[FWPT_STATUS_COUNT] = {
#define FWPT_STATUS_NAME(n, v, m) [v] = #n,
    FWPT_STATUS_LIST(FWPT_STATUS_NAME)
#undef FWPT_STATUS_NAME
};

static const char *const status_msgs[FWPT_STATUS_COUNT] = {
#define FWPT_STATUS_MSG(n, v, m) [v] = m,
    FWPT_STATUS_LIST(FWPT_STATUS_MSG)
#undef FWPT_STATUS_MSG
};

/* The list is in the order of the values, so FWPT_STATUS_COUNT is one past the highest. */
#define FWPT_STATUS_BELOW_COUNT(n, v, m) _Static_assert(v < FWPT_STATUS_COUNT, #n " is out of order in FWPT_STATUS_LIST");
FWPT_STATUS_LIST(FWPT_STATUS_BELOW_COUNT)
#undef FWPT_STATUS_BELOW_COUNT

const char *fwpt_status_name(enum fwpt_status s)
{
    if ((unsigned)s >= FWPT_STATUS_COUNT || !status_names[s])
        return "E_UNKNOWN";
    return status_names[s];
}

const char *fwpt_status_msg(enum fwpt_status s)
{
    if ((unsigned)s >= FWPT_STATUS_COUNT || !status_msgs[s])
        return "unknown status";
    return status_msgs[s];
}
