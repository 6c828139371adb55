/* badabi.c — a plugin built for another ABI version: the loader must refuse
 * it with a message saying what to do. Test-only. */
#include "core/plugin.h"

static int run(const struct bw_run *run, const struct bw_host *h)
{
        return 0;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION + 1,
        .name = "badabi",
        .run = run,
};
