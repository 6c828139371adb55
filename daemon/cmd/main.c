/* main.c — the `benchwatch` command line: common options, then one of the
 * subcommands in cmd.h.  `__child` is the runner's internal entry
 * point (child.h) and deliberately undocumented. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/child.h"
#include "core/log.h"

static const struct {
        const char *name;
        int (*fn)(struct app *app, int argc, char **argv);
        const char *help;
} commands[] = {
        { "run", cmd_run,
          "run PROBE [NAME=VALUE ...] [PROBE ...] [--format=table|prometheus|json]\n"
          "                         run a probe (a configured one or a plugin) once;\n"
          "                         several: one after the other, side by side" },
        { "plugins", cmd_plugins,
          "plugins [PLUGIN]      list plugins, their parameters, defaults and units" },
        { "status", cmd_status,
          "status [--format=table|json]\n"
          "                         what the daemon is doing: last and next runs, references,\n"
          "                         verdicts, sinks; exit 1 when a probe fails or regressed" },
        { "check-config", cmd_config,
          "check-config          validate the configuration without running" },
        { "daemon", cmd_daemon,
          "daemon                run every probe on its interval (the service)" },
        { "sweep", cmd_sweep,
          "sweep PROBE PARAM=V1,V2,... [NAME=VALUE ...] [--plot=FILE.svg]\n"
          "                         run a probe at several levels and find the knee" },
        { "verify", cmd_verify,
          "verify [--probe NAME ...] [--format=table|json]\n"
          "                         run the probes until the comparison with the reference is "
          "clear" },
        { "baseline", cmd_baseline,
          "baseline show|reset|accept [PROBE ...] | import PROBE FILE\n"
          "                         show the pinned references, forget them, take the\n"
          "                         recent level as the new normal, or seed one from a history" },
        { "replay", cmd_replay,
          "replay FILE [--format=table|json] [--lower-is-better]\n"
          "                         run a series through the detector: what it would flag" },
        { "history", cmd_history,
          "history PROBE [--since DURATION] [--format=table|csv|json] [--plot FILE.svg]\n"
          "                         the figures the daemon recorded, with reference and verdict" },
        { "push", cmd_push,
          "push --delete [PROBE ...]\n"
          "                         delete this host's groups from the Pushgateway" },
        { "cleanup", cmd_cleanup,
          "cleanup [PROBE [NAME=VALUE ...] ...]\n"
          "                         remove test files/tables the probes created" },
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: benchwatch [--config FILE] [--verbose] COMMAND [ARGS...]\n"
                   "       (--config and --verbose may also follow the command)\n\n"
                   "Keeps running small, bounded micro-benchmarks and reports them.\n\n"
                   "Commands:\n");
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(f, "  %s\n", commands[i].help);
        fprintf(f, "\nOptions:\n"
                   "  -c, --config FILE   configuration (default %s/benchwatch/benchwatch.conf\n"
                   "                      plus conf.d/*.conf; built-in defaults if absent)\n"
                   "  -v, --verbose       debug messages\n"
                   "  -h, --help          this help; COMMAND --help for a command's\n"
                   "      --version       print the version\n\n"
                   "Exit status: 0 success, 1 a run failed (status: a probe failing or in\n"
                   "regression), 2 bad usage or configuration,\n"
                   "3 environment problem (plugins, files).\n"
                   "Environment: BENCHWATCH_PLUGIN_DIR overrides the plugin directory.\n",
                SYSCONFDIR);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "config", required_argument, NULL, 'c' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { 0 },
        };
        struct app app = { 0 };
        int c;
        if (argc > 1 && !strcmp(argv[1], CHILD_SUBCOMMAND))
                return child_main(argc, argv);
        /* a probe process that dies early must not take us with it; every
         * child gets default dispositions back (runner.c) */
        signal(SIGPIPE, SIG_IGN);
        while ((c = cli_getopt(NULL, argc, argv, "+c:vh", opts)) != -1) {
                switch (c) {
                case 'c':
                        app.config_path = optarg;
                        break;
                case 'v':
                        log_set_level(LOG_DEBUG);
                        break;
                case 'h':
                        usage(stdout);
                        return EXIT_OK;
                case 'V':
                        printf("benchwatch %s\n", PACKAGE_VERSION);
                        return EXIT_OK;
                default:
                        usage(stderr);
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc) {
                log_error("which command?");
                usage(stderr);
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
                if (strcmp(argv[optind], commands[i].name))
                        continue;
                char **args = argv + optind;
                int n = argc - optind;
                if (cli_take_common(&app, &n, args) != EXIT_OK) {
                        usage(stderr);
                        return EXIT_USAGE;
                }
                optind = 0; /* reinitialise getopt: the command parses its own */
                return commands[i].fn(&app, n, args);
        }
        log_error("unknown command '%s'", argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
}
