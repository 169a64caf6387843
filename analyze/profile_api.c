/* fwpt — the public calls of include/fwpt/summary.h that the profile and the summary walk do not have themselves:
 * the profile's size and what a caller reads of it, and the summary walk straight into a profile. */
#include "analyze/profile.h"
#include "analyze/summary.h"
#include "analyze/sumprof.h"

size_t fwpt_profile_size(void)
{
    return sizeof(struct fwpt_profile);
}

const struct fwpt_profile_func *fwpt_profile_func_at(const struct fwpt_profile *p, size_t i)
{
    if (!p || !p->funcs || i > p->funcs_mask || p->funcs[i].entry == FWPT_FLOW_NO_IP)
        return NULL;
    return &p->funcs[i];
}

uint64_t fwpt_profile_insns(const struct fwpt_profile *p, uint64_t *dropped)
{
    if (dropped)
        *dropped = p->dropped;
    return p->insns;
}

enum fwpt_status fwpt_summary_profile(struct fwpt_flow *f, struct fwpt_profile *p, uint64_t *errors)
{
    struct fwpt_sum s;
    struct fwpt_sumprof sp;
    fwpt_summary_init(&s, f, NULL, 0, NULL); /* blocks only: the path cache's tables are not public */
    fwpt_sumprof_init_direct(&sp, p);
    s.prof = &sp;
    s.mods = p->mods;
    fwpt_summary_configure(&s);
    enum fwpt_status st;
    while ((st = fwpt_summary_walk(&s)) == FWPT_OK)
        ;
    fwpt_summary_flush(&s);
    if (errors)
        *errors = s.errors;
    return st == FWPT_E_EOS ? FWPT_OK : st;
}
