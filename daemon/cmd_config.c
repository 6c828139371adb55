/* cmd_config.c — `check-config` (validate without running) and `cleanup`
 * (remove what the probes left on disk or in servers), the two commands
 * that only walk the configured probes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "parse.h"

int cmd_check_config(struct app *app, int argc, char **argv)
{
        if (argc > 1) {
                printf("Usage: benchwatch [--config FILE] check-config\n\n"
                       "Loads and validates the configuration and its conf.d drop-ins;\n"
                       "prints every error with file and line. Exit 0 valid, 2 invalid.\n");
                return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? EXIT_USAGE : EXIT_OK;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        printf("%s: OK, %zu probe(s)\n", app->cfg->source, app->cfg->n_probes);
        for (size_t i = 0; i < app->cfg->n_probes; i++) {
                const struct probe_cfg *p = &app->cfg->probes[i];
                char iv[32], to[32];
                printf("  %-20s plugin %-8s every %s, timeout %s%s\n", p->name,
                       p->plugin->name, format_duration(p->interval, iv, sizeof(iv)),
                       format_duration(p->timeout, to, sizeof(to)),
                       p->enabled ? "" : " (disabled)");
        }
        for (size_t i = 0; i < app->cfg->n_sections; i++)
                printf("  [%s]\n", app->cfg->sections[i].name);
        app_done(app);
        return EXIT_OK;
}

static bool wanted(const char *name, int argc, char **argv)
{
        if (argc < 2)
                return true;
        for (int i = 1; i < argc; i++)
                if (!strcmp(argv[i], name))
                        return true;
        return false;
}

int cmd_cleanup(struct app *app, int argc, char **argv)
{
        if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
                printf("Usage: benchwatch cleanup [PROBE ...]\n\n"
                       "Removes the test files and tables that the configured probes\n"
                       "(or the named ones, which may also be plugin names) created.\n");
                return EXIT_OK;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        for (int i = 1; i < argc; i++)
                if (!config_find_probe(app->cfg, argv[i]) && !registry_find(app->reg, argv[i])) {
                        log_error("cleanup: unknown probe or plugin '%s'", argv[i]);
                        ex = EXIT_USAGE;
                }
        for (size_t i = 0; ex == EXIT_OK && i < app->cfg->n_probes + app->reg->n; i++) {
                bool configured = i < app->cfg->n_probes;
                const char *name = configured ? app->cfg->probes[i].name
                                              : app->reg->plugins[i - app->cfg->n_probes]->name;
                if (!configured && argc < 2)
                        continue; /* plugins' defaults only when named */
                if (!wanted(name, argc, argv))
                        continue;
                const struct bw_plugin *plugin;
                struct param_set *ps;
                double timeout;
                if (resolve_probe(app, name, NULL, 0, &plugin, &ps, &timeout) != EXIT_OK)
                        continue;
                if (!plugin->cleanup) {
                        param_set_free(ps);
                        continue;
                }
                struct run_spec spec;
                app_run_spec(app, name, plugin, ps, timeout, &spec);
                spec.cleanup = true;
                struct result *res = runner_run_sync(&spec);
                if (res && res->success)
                        printf("%s '%s': cleaned up\n", plugin->name, name);
                else {
                        log_error("%s probe '%s': cleanup failed: %s", plugin->name, name,
                                  res ? res->error : "out of memory");
                        ex = EXIT_FAILED;
                }
                result_free(res);
                param_set_free(ps);
        }
        app_done(app);
        return ex;
}
