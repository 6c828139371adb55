/* app.h — what every subcommand starts from: the plugins and the
 * configuration, loaded once, with errors reported once.
 *
 * Exit codes (documented in --help and the man page):
 *   0 success, 1 a run failed or a regression was found,
 *   2 bad usage or bad configuration, 3 environment (no plugins, I/O). */
#ifndef BENCHWATCH_APP_H
#define BENCHWATCH_APP_H

#include <stdbool.h>

#include "core/conf.h"
#include "core/loader.h"
#include "core/runner.h"

enum {
        EXIT_OK = 0,
        EXIT_FAILED = 1,
        EXIT_USAGE = 2,
        EXIT_ENV = 3,
};

/* The configuration file read without --config; the built-in text when
 * it is absent. */
#define APP_DEFAULT_CONFIG SYSCONFDIR "/benchwatch/benchwatch.conf"

struct app {
        const char *config_path; /* NULL: the default, or built-in if absent */
        struct plugin_registry *reg;
        struct config *cfg;
        bool plugins_on_demand; /* load only the plugins the config names */
};

/* Load plugins and configuration; logs what is wrong; returns an exit
 * code (EXIT_OK on success). */
int app_init(struct app *app);
void app_done(struct app *app);
/* Loads a configuration against the app's plugins (used for reload). */
int app_load_config(struct app *app, struct config **ret, char **ret_error);

const struct bw_param_value *app_daemon_option(const struct app *app,
                                               const char *name);
/* The app's shorthands for runspec.h: a run spec for a probe with the
 * daemon's directories and priorities. */
void app_run_spec(const struct app *app, const char *probe,
                  const struct bw_plugin *plugin, const struct param_set *ps,
                  double timeout, struct run_spec *ret);
/* The [daemon] yield limits (all 0 when yield = no and !force). */
void app_yield_limits(const struct app *app, bool force, struct yield_limits *ret);
/* Makes sure a directory exists (mkdir -p, mode 0750). */
int app_ensure_dir(const char *path);
/* A warning naming the obsolete options the configuration sets. */
void app_warn_obsolete(const struct app *app);

#endif
