/* badreport.c — a plugin whose report shows a parameter it does not have
 * (a BW_SHOW_PARAM line): the loader must refuse it. Test-only. */
#include "core/plugin.h"

static const struct bw_param_def params[] = {
        { .name = "url", .type = BW_PARAM_STRING, .default_value = "", .help = "url" },
        { .name = NULL },
};

static const struct bw_report_line report[] = {
        { .label = "Server", .show = BW_SHOW_PARAM, .figure = "host" },
        { .label = NULL },
};

static int run(const struct bw_run *run, const struct bw_host *h)
{
        return 0;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "badreport",
        .params = params,
        .run = run,
        .report = report,
};
