/* fwpt — the version, once: the app's banner, the "fwpt" member of sideband.json, fwpt.pc and fwpt_version(). */
#ifndef FWPT_VERSION_H
#define FWPT_VERSION_H

#include "fwpt/export.h"

#define FWPT_VERSION_MAJOR 0
#define FWPT_VERSION_MINOR 2
/* "MAJOR.MINOR", from the two numbers above (the Makefile reads them for fwpt.pc) */
#define FWPT_VERSION_STR_(x) #x
#define FWPT_VERSION_STR(x) FWPT_VERSION_STR_(x)
#define FWPT_VERSION FWPT_VERSION_STR(FWPT_VERSION_MAJOR) "." FWPT_VERSION_STR(FWPT_VERSION_MINOR)

FWPT_BEGIN_DECLS

/* FWPT_VERSION of the library linked (which may differ from the header a caller was compiled with). */
FWPT_API const char *fwpt_version(void);

FWPT_END_DECLS

#endif
