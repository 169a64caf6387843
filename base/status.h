/* fwpt — one status enum for every function that can fail (DESIGN: "Errors are values"). The list, the enum and
 * its name and message calls are public: include/fwpt/status.h. */
#ifndef FWPT_BASE_STATUS_H
#define FWPT_BASE_STATUS_H

#include "fwpt/status.h"

#endif
