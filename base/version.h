/* fwpt — the version, once (include/fwpt/version.h: FWPT_VERSION, FWPT_VERSION_MAJOR/MINOR, fwpt_version). */
#ifndef FWPT_BASE_VERSION_H
#define FWPT_BASE_VERSION_H

#include "fwpt/version.h"

#endif
