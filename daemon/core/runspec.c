/* runspec.c — see runspec.h. */
#include "core/runspec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void runspec_fill(const struct config *cfg, const char *plugin_dir, const char *probe,
                  const struct bw_plugin *plugin, const struct param_set *ps,
                  double timeout, struct run_spec *ret)
{
        const struct param_set *d = cfg->daemon;
        *ret = (struct run_spec){
                .probe = probe, .plugin = plugin, .params = ps,
                .plugin_dir = plugin_dir,
                .cache_dir = d->values[CFG_D_CACHE_DIR].s,
                .state_dir = d->values[CFG_D_STATE_DIR].s,
                .timeout = timeout,
                .nice = (int)d->values[CFG_D_NICE].i,
                /* config: 0 best-effort, 1 idle; kernel: 2 and 3 */
                .ioprio_class = (int)d->values[CFG_D_IOPRIO_CLASS].i + 2,
                .ioprio_level = (int)d->values[CFG_D_IOPRIO_LEVEL].i,
                .cpu_policy = plugin->caps & BW_CAP_CPU_BOUND ?
                        (int)d->values[CFG_D_CPU_POLICY].i : 0,
        };
}

void runspec_yield_limits(const struct config *cfg, bool force, struct yield_limits *ret)
{
        const struct bw_param_value *v = cfg->daemon->values;
        *ret = (struct yield_limits){ 0 };
        if (!force && !v[CFG_D_YIELD].b)
                return;
        ret->cpu_wait = v[CFG_D_YIELD_CPU_WAIT].d;
        ret->starved = true;
        ret->io = (double)v[CFG_D_YIELD_IO].i;
        ret->memory = v[CFG_D_YIELD_MEMORY].d;
}

int runspec_ensure_dir(const char *path)
{
        if (!*path)
                return -ENOENT; /* as mkdir("") says */
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = 0;
                if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                        int r = -errno;
                        free(p);
                        return r;
                }
                *s = '/';
        }
        int r = mkdir(p, 0750) < 0 && errno != EEXIST ? -errno : 0;
        free(p);
        return r;
}
