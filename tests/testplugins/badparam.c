/* badparam.c — a plugin whose descriptor names parameters it does not have
 * (concurrency_param): the loader must refuse it. Test-only. */
#include "core/plugin.h"

static const struct bw_param_def params[] = {
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1", .min = 1,
          .max = 8, .help = "threads" },
        { .name = NULL },
};

static int run(const struct bw_run *run, const struct bw_host *h)
{
        return 0;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "badparam",
        .params = params,
        .concurrency_param = "thread",
        .run = run,
};
