/* cmd_cleanup.c — `cleanup`: remove what the probes left on disk or in
 * servers (test files, sbtest tables), for every configured probe or for
 * the probes and plugins named on the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/run_args.h"
#include "core/log.h"
#include "detect/tracker.h"
#include "util/parse.h"

/* One probe (or plugin) to clean up, with its parameters resolved. */
struct cleanup_target {
        const char *name;
        const struct bw_plugin *plugin;
        struct param_set *params;
        double timeout;
};

/* Runs t's cleanup; named: the user asked for it by name. */
static int clean_one(struct app *app, const struct cleanup_target *t, bool named)
{
        if (!t->plugin->cleanup) {
                if (named)
                        printf("%s '%s': nothing to clean up\n", t->plugin->name, t->name);
                return EXIT_OK;
        }
        struct run_spec spec;
        app_run_spec(app, t->name, t->plugin, t->params, t->timeout, &spec);
        spec.cleanup = true;
        struct result *res = runner_run_sync(&spec);
        int ex = EXIT_OK;
        if (res && res->success)
                printf("%s '%s': cleaned up\n", t->plugin->name, t->name);
        else {
                log_error("%s probe '%s': cleanup failed: %s", t->plugin->name, t->name,
                          res ? res->error : "out of memory");
                ex = EXIT_FAILED;
        }
        result_free(res);
        return ex;
}

int cmd_cleanup(struct app *app, int argc, char **argv)
{
        for (int i = 1; i < argc; i++) {
                if (argv[i][0] != '-')
                        continue;
                bool help = cli_is_help(argv[i]);
                if (!help)
                        cli_reject("cleanup", argv[i]);
                fprintf(help ? stdout : stderr,
                        "Usage: benchwatch cleanup [PROBE [NAME=VALUE ...] ...]\n\n"
                        "Removes the test files and tables that the configured probes\n"
                        "(or the named ones, which may also be plugin names) created.\n"
                        "NAME=VALUE words after a name override its parameters as in\n"
                        "`benchwatch run`, e.g. `cleanup disk path=/srv/bench.dat` for a\n"
                        "file that `run disk path=/srv/bench.dat` made.\n");
                return help ? EXIT_OK : EXIT_USAGE;
        }
        if (argc > 1 && strchr(argv[1], '=')) {
                log_error("cleanup: '%s' must follow a probe or plugin name", argv[1]);
                return EXIT_USAGE;
        }
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        bool named = argc > 1;
        size_t n = 0;
        struct cleanup_target *ts = calloc((size_t)argc + app->cfg->n_probes, sizeof(*ts));
        if (!ts) {
                app_done(app);
                return EXIT_ENV;
        }
        /* every name with the NAME=VALUE words after it (or every configured
         * probe this host has: an absent one made nothing), all resolved
         * before anything is removed */
        for (size_t i = 0; !named && i < app->cfg->n_probes; i++) {
                if (app->cfg->probes[i].absent)
                        continue;
                struct cleanup_target *t = &ts[n++];
                t->name = app->cfg->probes[i].name;
                if (run_args_resolve_probe(app, t->name, NULL, 0, &t->plugin, &t->params,
                                           &t->timeout) != EXIT_OK)
                        ex = EXIT_USAGE;
        }
        for (int i = 1; i < argc; i++) {
                int k = 0;
                while (i + 1 + k < argc && strchr(argv[i + 1 + k], '='))
                        k++;
                struct cleanup_target *t = &ts[n++];
                t->name = argv[i];
                if (run_args_resolve_probe(app, t->name, argv + i + 1, k, &t->plugin,
                                           &t->params, &t->timeout) != EXIT_OK)
                        ex = EXIT_USAGE;
                i += k;
        }
        for (size_t i = 0; ex != EXIT_USAGE && i < n; i++)
                if (clean_one(app, &ts[i], named) != EXIT_OK)
                        ex = EXIT_FAILED;
        for (size_t i = 0; i < n; i++)
                param_set_free(ts[i].params);
        free(ts);
        app_done(app);
        return ex;
}
