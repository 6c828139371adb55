/* cli.h — command-line helpers every subcommand shares: the common options
 * (`--config FILE`, `--verbose`) accepted before or after the command, and
 * option parsing that names what it rejects, so a usage error is never the
 * usage text alone. */
#ifndef BENCHWATCH_CLI_H
#define BENCHWATCH_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "cmd/app.h"

/* Removes the common options from a command's arguments (argv[0] is the
 * command; parsing stops at "--"), storing them in app.  Updates *argc.
 * Returns EXIT_OK, or EXIT_USAGE after logging what is wrong. */
int cli_take_common(struct app *app, int *argc, char **argv);

/* getopt_long() for command cmd (NULL: the top level) that logs one line
 * naming a rejected option and why; returns '?' for it.  Reentry with
 * optind = 0 as getopt_long. */
int cli_getopt(const char *cmd, int argc, char *const *argv,
               const char *shortopts, const struct option *longopts);

/* Logs "CMD: unexpected argument 'ARG'" (or "unknown option" when it looks
 * like one) and returns EXIT_USAGE. */
int cli_reject(const char *cmd, const char *arg);
/* Whether arg asks for a command's usage: "--help" or "-h". */
bool cli_is_help(const char *arg);

#endif
