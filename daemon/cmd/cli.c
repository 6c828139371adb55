/* cli.c — see cli.h. */
#include "cmd/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

static const char *prefix_of(const char *cmd)
{
        return cmd ? cmd : "";
}

static const char *sep_of(const char *cmd)
{
        return cmd ? ": " : "";
}

/* Takes common option arg (next: the word after it) into app; *ret_used
 * is how many words it took (0: arg is not one).  -EINVAL: no value. */
static int common_option(const char *arg, const char *next, struct app *app,
                         int *ret_used)
{
        if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v")) {
                log_set_level(LOG_DEBUG);
                *ret_used = 1;
                return 0;
        }
        if (!strncmp(arg, "--config=", 9) || (!strncmp(arg, "-c", 2) && arg[2])) {
                app->config_path = arg + (arg[1] == '-' ? 9 : 2);
                *ret_used = 1;
                return 0;
        }
        if (strcmp(arg, "--config") && strcmp(arg, "-c")) {
                *ret_used = 0;
                return 0;
        }
        if (!next)
                return -EINVAL;
        app->config_path = next;
        *ret_used = 2;
        return 0;
}

int cli_take_common(struct app *app, int *argc, char **argv)
{
        int out = 1, i = 1;
        while (i < *argc && strcmp(argv[i], "--")) {
                int used;
                if (common_option(argv[i], i + 1 < *argc ? argv[i + 1] : NULL,
                                  app, &used) < 0) {
                        log_error("%s: option '%s' needs a value (a FILE)",
                                  argv[0], argv[i]);
                        return EXIT_USAGE;
                }
                if (!used)
                        argv[out++] = argv[i++];
                i += used;
        }
        while (i < *argc)
                argv[out++] = argv[i++];
        argv[out] = NULL;
        *argc = out;
        return EXIT_OK;
}

/* Names the option as the user wrote it: a long one without its
 * "=value", a short one by its letter. */
static void report(const char *cmd, const char *what, const char *word,
                   int opt, const char *why)
{
        if (strncmp(word, "--", 2) && opt)
                log_error("%s%s%s '-%c'%s", prefix_of(cmd), sep_of(cmd), what,
                          opt, why);
        else
                log_error("%s%s%s '%.*s'%s", prefix_of(cmd), sep_of(cmd), what,
                          (int)strcspn(word, "="), word, why);
}

int cli_getopt(const char *cmd, int argc, char *const *argv,
               const char *shortopts, const struct option *longopts)
{
        char opts[64];
        /* a leading ':' (after '+') tells a missing value from an unknown
         * option */
        int plus = shortopts[0] == '+';
        snprintf(opts, sizeof(opts), "%s:%s", plus ? "+" : "", shortopts + plus);
        opterr = 0;
        int c = getopt_long(argc, argv, opts, longopts, NULL);
        if (c != '?' && c != ':')
                return c;
        const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        if (c == ':')
                report(cmd, "option", word, optopt, " needs a value");
        else if (optopt && !strncmp(word, "--", 2))
                report(cmd, "option", word, optopt, " takes no value");
        else
                report(cmd, "unknown option", word, optopt, "");
        return '?';
}

bool cli_is_help(const char *arg)
{
        return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int cli_reject(const char *cmd, const char *arg)
{
        log_error("%s: %s '%s'", cmd,
                  arg[0] == '-' && arg[1] ? "unknown option" : "unexpected argument",
                  arg);
        return EXIT_USAGE;
}
