/* fwpt — the version, once: the app's banner and the "fwpt" member of sideband.json. */
#ifndef FWPT_BASE_VERSION_H
#define FWPT_BASE_VERSION_H

#define FWPT_VERSION "0.2"

#endif
