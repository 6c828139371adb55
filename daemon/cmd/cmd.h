/* cmd.h — the subcommands of the one `benchwatch` executable. Each
 * takes the arguments after its name (argv[0] is the command) and the
 * already parsed common options, and returns an exit code (app.h). */
#ifndef BENCHWATCH_CMD_H
#define BENCHWATCH_CMD_H

#include "cmd/app.h"

int cmd_run(struct app *app, int argc, char **argv);
int cmd_plugins(struct app *app, int argc, char **argv);
int cmd_config(struct app *app, int argc, char **argv);
int cmd_cleanup(struct app *app, int argc, char **argv);
int cmd_daemon(struct app *app, int argc, char **argv);
int cmd_sweep(struct app *app, int argc, char **argv);
int cmd_verify(struct app *app, int argc, char **argv);
int cmd_baseline(struct app *app, int argc, char **argv);
int cmd_push(struct app *app, int argc, char **argv);
int cmd_replay(struct app *app, int argc, char **argv);
int cmd_history(struct app *app, int argc, char **argv);
int cmd_status(struct app *app, int argc, char **argv);

#endif
