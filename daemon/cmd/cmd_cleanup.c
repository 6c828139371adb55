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
#include "util/strutil.h"

/* One probe (or plugin) to clean up, with its parameters resolved. */
struct cleanup_target {
        const char *name;
        const struct bw_plugin *plugin;
        struct param_set *params;
        double timeout;
};

/* The plugin's bw_cleanup_report() figure `what` of res; -1 when it
 * gave none. */
static double reported(const struct result *res, const char *plugin, const char *what)
{
        char *family = str_printf("benchwatch_%s_%s", plugin, what);
        const struct family *f = family ? result_find(res, family) : NULL;
        free(family);
        return f && f->n_samples ? f->samples[0].value : -1;
}

/* "cleaned up", or what the cleanup said it did. */
static void say_done(const struct cleanup_target *t, const struct result *res)
{
        double removed = reported(res, t->plugin->name, BW_CLEANUP_REMOVED);
        double left = reported(res, t->plugin->name, BW_CLEANUP_LEFT);
        printf("%s '%s': ", t->plugin->name, t->name);
        if (removed < 0 || left < 0) {
                printf("cleaned up\n");
                return;
        }
        if (removed > 0)
                printf("cleaned up, removed %.0f", removed);
        else
                printf("nothing of its own to remove");
        if (left > 0)
                printf("; left alone %.0f that %s not its own (see above)", left,
                       left == 1 ? "is" : "are");
        printf("\n");
}

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
                say_done(t, res);
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
