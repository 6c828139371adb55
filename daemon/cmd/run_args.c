/* run_args.c — see run_args.h. */
#include "cmd/run_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf_daemon.h"
#include "core/log.h"
#include "core/precheck.h"
#include "core/priority.h"

int run_args_timeout_parse(const char *arg, double *ret)
{
        struct param_set *ps = NULL;
        char *why = NULL;
        int r = param_set_new(conf_daemon_options, &ps, &why);
        if (r >= 0)
                r = param_set_assign(ps, "timeout", arg, &why);
        if (r >= 0)
                *ret = ps->values[CFG_D_TIMEOUT].d;
        else
                log_error("--%s", why ? why : strerror(-r)); /* "timeout: '2d' is ..." */
        free(why);
        param_set_free(ps);
        return r < 0 ? -EINVAL : 0;
}

static void list_choices(const struct app *app)
{
        fprintf(stderr, "  plugins:");
        for (size_t i = 0; i < app->reg->n; i++)
                fprintf(stderr, " %s", app->reg->plugins[i]->name);
        fprintf(stderr, "\n  configured probes (%s):", app->cfg->source);
        for (size_t i = 0; i < app->cfg->n_probes; i++)
                fprintf(stderr, " %s", app->cfg->probes[i].name);
        fprintf(stderr, "\n");
}

int run_args_resolve_probe(const struct app *app, const char *name, char *const *assign,
                           int n_assign, const struct bw_plugin **ret_plugin,
                           struct param_set **ret_params, double *ret_timeout)
{
        const struct probe_cfg *pc = conf_find_probe(app->cfg, name);
        const struct bw_plugin *plugin = pc ? pc->plugin : loader_find(app->reg, name);
        struct param_set *ps = NULL;
        char *why = NULL;
        if (!plugin) {
                log_error("unknown probe or plugin '%s'; choose one of:", name);
                list_choices(app);
                return EXIT_USAGE;
        }
        int r = pc ? param_set_copy(pc->params, &ps) : param_set_new(plugin->params, &ps, &why);
        for (int i = 0; r >= 0 && i < n_assign; i++)
                r = param_set_assign_kv(ps, assign[i], &why);
        if (r < 0) {
                log_error("%s probe '%s': command line: %s%s", plugin->name, name,
                          why ? why : strerror(-r),
                          r == -ENOENT ? " (see `benchwatch plugins`)" : "");
                free(why);
                param_set_free(ps);
                return EXIT_USAGE;
        }
        r = precheck_run(plugin, name, ps->values, app_daemon_option(app, "cache_dir")->s,
                         app_daemon_option(app, "state_dir")->s, &why);
        if (r < 0) {
                log_error("%s probe '%s': %s", plugin->name, name, why ? why : strerror(-r));
                free(why);
                param_set_free(ps);
                /* -ENODEV: nothing to measure here (no driver): the host's */
                return r == -ENODEV ? EXIT_ENV : EXIT_USAGE;
        }
        *ret_plugin = plugin;
        *ret_params = ps;
        *ret_timeout = pc ? pc->timeout : app_daemon_option(app, "timeout")->d;
        return EXIT_OK;
}

int run_args_override_parse(struct run_overrides *o, int opt, const char *arg)
{
        int r;
        if (opt == RUN_OPT_NICE) {
                r = priority_parse_nice(arg, &o->nice);
                o->nice_set = r >= 0;
        } else if (opt == RUN_OPT_YIELD) {
                o->yield = true;
                return 1;
        } else if (opt == RUN_OPT_IONICE) {
                r = priority_parse_ionice(arg, &o->io_class, &o->io_level);
                o->ionice_set = r >= 0;
        } else {
                return 0;
        }
        if (r < 0)
                log_error("invalid --%s value '%s'%s", opt == RUN_OPT_NICE ? "nice" : "ionice", arg,
                          opt == RUN_OPT_NICE ? " (-20 .. 19)"
                                              : " (idle, best-effort[:0-7] or realtime[:0-7])");
        return r < 0 ? r : 1;
}

const char *run_args_override_apply(const struct app *app, struct run_overrides *o,
                                    bool configured, struct run_spec *spec)
{
        if (o->yield) {
                app_yield_limits(app, true, &o->limits);
                spec->yield = &o->limits;
        }
        if (!configured) {
                spec->nice = 0;
                spec->ioprio_class = PRIO_IO_NONE;
                spec->ioprio_level = 0;
        }
        /* the classic tools' policy: figures comparable with sysbench's */
        spec->cpu_policy = PRIO_CPU_OTHER;
        if (o->nice_set)
                spec->nice = o->nice;
        if (o->ionice_set) {
                spec->ioprio_class = o->io_class;
                spec->ioprio_level = o->io_level;
        }
        return o->nice_set || o->ionice_set ? PRIO_FROM_COMMAND_LINE
               : configured ? PRIO_FROM_DAEMON : PRIO_FROM_ONE_OFF;
}
