/* runspec.h — what a run of a configured probe gets from [daemon]: its
 * directories, priorities, CPU policy and yield limits.
 *
 * The scheduler (core) and the commands (cmd) start runs alike; this is
 * where a configuration and a plugin directory become a struct run_spec,
 * so that the scheduler needs the configuration and the plugin registry,
 * not the command line's struct app. */
#ifndef BENCHWATCH_RUNSPEC_H
#define BENCHWATCH_RUNSPEC_H

#include <stdbool.h>

#include "core/conf.h"
#include "core/runner.h"
#include "core/yield.h"

/* A run spec for probe (of plugin, with parameters ps) with cfg's [daemon]
 * directories and priorities; plugin_dir is where the child finds it. */
void runspec_fill(const struct config *cfg, const char *plugin_dir, const char *probe,
                  const struct bw_plugin *plugin, const struct param_set *ps,
                  double timeout, struct run_spec *ret);
/* The [daemon] yield limits (all 0 when yield = no and !force). */
void runspec_yield_limits(const struct config *cfg, bool force, struct yield_limits *ret);
/* Makes sure a directory exists (mkdir -p, mode 0750). */
int runspec_ensure_dir(const char *path);

#endif
