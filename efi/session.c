/* fwpt — the trace session (see session.h). */
#include <efi.h>
#include <efilib.h>
#include "efi/console.h"
#include "efi/session.h"

EFI_STATUS fwpt_session_run(const struct fwpt_session_env *env)
{
    struct fwpt_sink o = fwpt_screen_sink();
    const struct fwpt_caps *caps = env->caps;
    fwpt_puts(&o, "trace: target ");
    fwpt_puts(&o, fwpt_target_name(env->opt->target));
    fwpt_puts(&o, "\n");
    if (!caps->pt_supported) {
        fwpt_puts(&o, "trace: Intel PT is not usable on this processor: ");
        fwpt_puts(&o, fwpt_caps_reason_msg(caps->reason));
        fwpt_puts(&o, "; nothing traced\n");
        return EFI_UNSUPPORTED;
    }
    fwpt_puts(&o, "trace: the hardware trace path is not available in this build\n");
    return EFI_UNSUPPORTED;
}
