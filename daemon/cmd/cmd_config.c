/* cmd_config.c — `check-config`: load and validate the configuration
 * without running anything, and show what it configures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "detect/tracker.h"
#include "util/format.h"

int cmd_config(struct app *app, int argc, char **argv)
{
        if (argc > 1) {
                bool help = cli_is_help(argv[1]);
                if (!help)
                        cli_reject("check-config", argv[1]);
                fprintf(help ? stdout : stderr,
                        "Usage: benchwatch check-config [--config FILE]\n\n"
                        "Loads and validates the configuration and its conf.d drop-ins;\n"
                        "prints every error with file and line. Exit 0 valid, 2 invalid.\n");
                return help ? EXIT_OK : EXIT_USAGE;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        app_warn_obsolete(app);
        printf("%s: OK, %zu probe(s)\n", app->cfg->source, app->cfg->n_probes);
        if (!app->config_path && !strcmp(app->cfg->source, "<built-in>"))
                printf("  (no %s: the built-in configuration, and the drop-ins of the "
                       "conf.d beside it)\n", APP_DEFAULT_CONFIG);
        printf("  state_dir %s, cache_dir %s\n", app_daemon_option(app, "state_dir")->s,
               app_daemon_option(app, "cache_dir")->s);
        for (size_t i = 0; i < app->cfg->n_probes; i++) {
                const struct probe_cfg *p = &app->cfg->probes[i];
                char iv[32], to[32];
                printf("  %-20s plugin %-8s every %s, timeout %s%s%s%s\n", p->name,
                       p->plugin->name, format_duration(p->interval, iv, sizeof(iv)),
                       format_duration(p->timeout, to, sizeof(to)),
                       p->absent ? " (absent here: " : p->enabled ? "" : " (disabled)",
                       p->absent ? p->absent : "", p->absent ? ")" : "");
        }
        for (size_t i = 0; i < app->cfg->n_sections; i++)
                printf("  [%s]\n", app->cfg->sections[i].name);
        app_done(app);
        return EXIT_OK;
}
