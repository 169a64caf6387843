/* fwpt — one `trace TARGET` run: caps -> plan -> memory -> ToPA -> start -> target -> stop ->
 * readback -> decode -> files. */
#ifndef FWPT_EFI_SESSION_H
#define FWPT_EFI_SESSION_H

#include <efi.h>
#include "arch/caps.h"
#include "efi/cpu_hw.h"
#include "efi/options.h"
#include "efi/volume.h"

struct fwpt_session_env {
    EFI_HANDLE image;
    struct fwpt_volume *volume;
    const struct fwpt_cpu *cpu;  /* the hardware backend */
    struct fwpt_cpu_hw *hw;
    const struct fwpt_caps *caps;
    const struct fwpt_efi_options *opt;
};

/* EFI_UNSUPPORTED when PT is not usable (after saying why), EFI_SUCCESS after a trace. */
EFI_STATUS fwpt_session_run(const struct fwpt_session_env *env);

#endif
