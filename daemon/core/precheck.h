/* precheck.h — a plugin's `check` callback run in the core, without a child:
 * at configuration load (so check-config names the probe with file and
 * line) and by `run` before forking, so a bad combination of parameters is a
 * usage error and never a failed run.  The child calls `check` again: it is
 * the authority on a run. */
#ifndef BENCHWATCH_PRECHECK_H
#define BENCHWATCH_PRECHECK_H

#include "core/plugin.h"

/* Runs p->check (if any) on values for probe. Returns 0, or a -errno value
 * with the plugin's reason in *ret_error (malloc'd; NULL when out of
 * memory); -EPERM "plugin X needs root" for a BW_CAP_NEEDS_ROOT plugin
 * when benchwatch does not run as root. */
int precheck_run(const struct bw_plugin *p, const char *probe,
                 const struct bw_param_value *values, const char *cache_dir,
                 const char *state_dir, char **ret_error);

#endif
