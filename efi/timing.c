/* fwpt — the app's time report: when the trace has timing packets, the flow decoded once more with time,
 * the ticks spread over the instructions (analyze/time_spread), and the call's duration and the modules and
 * functions that took most of it printed on the console. */
#include <efi.h>
#include <efilib.h>
#include "efi/timing.h"
#include "efi/pipeline.h"
#include "efi/pool.h"
#include "analyze/time_spread.h"
#include "render/profile_print.h"

#define TIME_FUNCS 4096u   /* functions the time profile tells apart (power of two) */
#define TIME_NODES 16384u  /* call-tree nodes */
#define TIME_HASH 32768u   /* power of two */
#define TIME_HELD 16384u   /* instructions held between two time changes */

void fwpt_efi_time_report(struct fwpt_flow *f, const struct fwpt_time_config *tcfg, uint64_t crystal_hz,
                          struct fwpt_modules *mods, bool soft, unsigned top, const struct fwpt_sink *out,
                          uint64_t *pool)
{
    size_t nm = mods ? mods->n : 0;
    uint64_t *mod = fwpt_pool_counted(pool, (nm + 1) * sizeof *mod, false);
    struct fwpt_profile_func *funcs = fwpt_pool_counted(pool, TIME_FUNCS * sizeof *funcs, false);
    struct fwpt_profile_node *nodes = fwpt_pool_counted(pool, TIME_NODES * sizeof *nodes, false);
    uint32_t *hash = fwpt_pool_counted(pool, TIME_HASH * sizeof *hash, false);
    struct fwpt_flow_event *held = fwpt_pool_counted(pool, TIME_HELD * sizeof *held, false);
    struct fwpt_profile *prof = fwpt_pool_counted(pool, sizeof *prof, false);
    struct fwpt_time_spread *t = fwpt_pool_counted(pool, sizeof *t, false);
    if (!mod || !funcs || !nodes || !hash || !held || !prof || !t) {
        fwpt_puts(out, "time: not enough pool memory for the time profile\n");
    } else {
        fwpt_profile_init(prof, mods, mod, funcs, TIME_FUNCS, nodes, TIME_NODES, hash, TIME_HASH);
        fwpt_time_spread_init(t, prof, held, TIME_HELD);
        fwpt_flow_set_time(f, tcfg);
        struct fwpt_flow_event ev;
        while (fwpt_flow_next(f, &ev) == FWPT_OK) {
            uint64_t tsc;
            bool ok = fwpt_flow_time(f, &tsc) == FWPT_OK;
            fwpt_time_spread_add(t, &ev, tsc, ok);
        }
        fwpt_time_spread_end(t);
        fwpt_time_spread_duration(t, tcfg, crystal_hz, soft, out);
        if (t->ticks)
            fwpt_profile_print(prof, NULL, out, top); /* where the time went: modules, then functions */
    }
    void *v[] = {mod, funcs, nodes, hash, held, prof, t};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++)
        fwpt_pool_free(v[i]);
}
