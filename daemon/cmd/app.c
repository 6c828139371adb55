/* app.c — see app.h. */
#include "cmd/app.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/runspec.h"
#include "detect/tracker.h"
#include "sink/sink.h"
#include "util/strutil.h"


static const struct bw_plugin *lookup(void *userdata, const char *name)
{
        return loader_find(userdata, name);
}

static const char *plugin_name(void *userdata, size_t i)
{
        return loader_name(userdata, i);
}

/* A sink section's check: what the sink would refuse when the daemon
 * makes it, said when the configuration is read (check-config, a start,
 * a reload alike), before anything is made. */
static int check_sink(const char *section, const struct param_set *opts, const char *state_dir,
                      char **ret_error)
{
        const struct sink_type *t = sink_type_find(section);
        const struct sink_env env = { .state_dir = state_dir };
        return t && t->check ? t->check(opts, &env, ret_error) : 0;
}

/* The optional sections: every sink's, and [regression]. */
static const struct cfg_section_type *section_types(void)
{
        static struct cfg_section_type types[16];
        size_t n = 0;
        for (; sink_types[n] && n + 2 < 16; n++) {
                types[n].name = sink_types[n]->section;
                types[n].options = sink_types[n]->options;
                types[n].check = check_sink;
        }
        types[n].name = "regression";
        types[n].options = tracker_options;
        types[n].check = tracker_check;
        return types;
}

int app_load_config(struct app *app, struct config **ret, char **ret_error)
{
        struct cfg_env env = {
                .lookup = lookup, .plugin_name = plugin_name,
                .userdata = app->reg, .sections = section_types(),
        };
        const char *path = app->config_path ? app->config_path : APP_DEFAULT_CONFIG;
        int r = conf_load_file(&env, path, ret, ret_error);
        if (r == -ENOENT && !app->config_path) {
                free(*ret_error);
                *ret_error = NULL;
                r = conf_load_builtin_with(&env, path, ret, ret_error);
        }
        /* plugins refused while loading (on demand: the configured ones) */
        if (app->reg->warnings) {
                log_warning("%s", app->reg->warnings);
                free(app->reg->warnings);
                app->reg->warnings = NULL;
        }
        return r;
}

int app_init(struct app *app)
{
        char *why = NULL;
        const char *dir = loader_default_dir(NULL);
        if ((app->plugins_on_demand ? loader_open_on_demand(dir, &app->reg, &why)
                                    : loader_open(dir, &app->reg, &why)) < 0) {
                log_error("%s", why ? why : "cannot load plugins");
                free(why);
                return EXIT_ENV;
        }
        int r = app_load_config(app, &app->cfg, &why);
        if (r < 0) {
                log_error("%s", why ? why : strerror(-r));
                free(why);
                app_done(app); /* callers return at once on failure */
                return r == -ENOENT ? EXIT_ENV : EXIT_USAGE;
        }
        return EXIT_OK;
}

void app_done(struct app *app)
{
        conf_free(app->cfg);
        loader_free(app->reg);
        app->cfg = NULL;
        app->reg = NULL;
}

const struct bw_param_value *app_daemon_option(const struct app *app,
                                               const char *name)
{
        int i = param_index(conf_daemon_options, name);
        return i >= 0 ? &app->cfg->daemon->values[i] : NULL;
}

void app_run_spec(const struct app *app, const char *probe,
                  const struct bw_plugin *plugin, const struct param_set *ps,
                  double timeout, struct run_spec *ret)
{
        runspec_fill(app->cfg, app->reg->dir, probe, plugin, ps, timeout, ret);
}

void app_yield_limits(const struct app *app, bool force, struct yield_limits *ret)
{
        runspec_yield_limits(app->cfg, force, ret);
}

void app_warn_obsolete(const struct app *app)
{
        char *list = conf_obsolete(app->cfg);
        if (list)
                log_warning("%s: %s: obsolete and ignored (see benchwatch.conf(5): the "
                            "detector accumulates evidence across runs, and a probe runs "
                            "when the host has room for it and counts by what its own "
                            "threads got)", app->cfg->source, list);
        free(list);
}

int app_ensure_dir(const char *path)
{
        return runspec_ensure_dir(path);
}
