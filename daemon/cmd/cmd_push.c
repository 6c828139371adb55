/* cmd_push.c — `benchwatch push --delete [PROBE ...]`: remove this host's
 * groups from the Pushgateway when a host or a probe is decommissioned, so
 * its last figures stop being scraped as if they were current. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "sink/sink_pushgateway.h"

int cmd_push(struct app *app, int argc, char **argv)
{
        bool del = argc > 1 && !strcmp(argv[1], "--delete");
        if (!del) {
                bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
                if (!help)
                        log_error(argc > 1 ? "push: unknown option '%s' (only --delete)" :
                                  "push: say --delete%s", argc > 1 ? argv[1] : "");
                fprintf(help ? stdout : stderr, "Usage: benchwatch push --delete [PROBE ...]\n\n"
                                                "Deletes this host's groups "
                                                "(job/benchwatch/instance/<host>/probe/<probe>)\n"
                                                "from the Pushgateway of the [pushgateway] "
                                                "section: of every configured\n"
                                                "probe and the host's own "
                                                "(job/benchwatch/instance/<host>: its info\n"
                                                "metrics), or of the named probes (which need not "
                                                "be configured any more).\n");
                return help ? EXIT_OK : EXIT_USAGE;
        }
        for (int i = 2; i < argc; i++)
                if (argv[i][0] == '-')
                        return cli_reject("push --delete", argv[i]);
        int ex = app_init(app);
        if (ex != EXIT_OK)
                return ex;
        const struct param_set *opts = conf_section(app->cfg, "pushgateway");
        if (!opts) {
                log_error("push --delete: %s has no [pushgateway] section", app->cfg->source);
                app_done(app);
                return EXIT_USAGE;
        }
        /* every probe's group, and the host's (its info metrics) */
        size_t n = argc > 2 ? (size_t)(argc - 2) : app->cfg->n_probes + 1;
        const char *probes[n + 1];
        for (size_t i = 0; i < n; i++)
                probes[i] = argc > 2 ? argv[2 + i] :
                            i < app->cfg->n_probes ? app->cfg->probes[i].name : "";
        char *why = NULL;
        if (sink_pushgateway_delete(opts, probes, n, &why) < 0) {
                log_error("push --delete: %s", why ? why : "failed");
                ex = EXIT_FAILED;
        } else {
                for (size_t i = 0; i < n; i++)
                        if (*probes[i])
                                printf("deleted group of probe '%s'\n", probes[i]);
                        else
                                printf("deleted the host's group (benchwatch_host_info, "
                                       "benchwatch_build_info)\n");
        }
        free(why);
        app_done(app);
        return ex;
}
