/* run_args.h — what the run-like commands (run, sweep, cleanup) share: a
 * probe named on the command line with its NAME=VALUE overrides, and the
 * --nice, --ionice and --yield options of one run.
 *
 * It lives beside the commands rather than in one of them, so that no
 * command calls another's code (tools/check-layers holds a cmd_*.c to its
 * cmd_* entry point). */
#ifndef BENCHWATCH_RUN_ARGS_H
#define BENCHWATCH_RUN_ARGS_H

#include <getopt.h>
#include <stdbool.h>

#include "cmd/app.h"
#include "core/yield.h"

/* The probe PROBE (configured probe or plugin
 * name) with NAME=VALUE overrides; logs and returns an exit code. */
int run_args_resolve_probe(const struct app *app, const char *name, char *const *assign,
                           int n_assign, const struct bw_plugin **ret_plugin,
                           struct param_set **ret_params, double *ret_timeout);

/* The priority of one run of a run-like command: --nice and --ionice when
 * given; else a configured probe's is the daemon's ([daemon] nice and
 * ioprio_*) and a plugin's a classic tool's (nice 0, the I/O priority left
 * as it is), so that a one-off run compares with sysbench or fio run by
 * hand.  The CPU policy is always SCHED_OTHER, the classic tools' ([daemon]
 * cpu_policy is the daemon's). */
struct run_overrides {
        bool nice_set, ionice_set, yield;
        int nice, io_class, io_level;
        struct yield_limits limits;   /* filled by run_args_override_apply */
};
#define RUN_OPT_NICE 0x100
#define RUN_OPT_IONICE 0x101
#define RUN_OPT_YIELD 0x102
#define RUN_OVERRIDE_OPTIONS \
        { "nice", required_argument, NULL, RUN_OPT_NICE }, \
        { "ionice", required_argument, NULL, RUN_OPT_IONICE }, \
        { "yield", no_argument, NULL, RUN_OPT_YIELD }
#define RUN_OVERRIDE_HELP \
        "  --nice=N                         CPU nice value of the run, -20 .. 19\n" \
        "  --ionice=CLASS[:LEVEL]           I/O priority: idle, best-effort or\n" \
        "                                   realtime, level 0 .. 7 (default 4)\n" \
        "                                   (without them a plugin runs at nice 0 and\n" \
        "                                   the default I/O priority, as a classic\n" \
        "                                   tool; a configured probe at the daemon's)\n" \
        "  --yield                          stop when other work needs the CPU,\n" \
        "                                   disks or memory ([daemon] yield_*)\n"
/* A --timeout=DUR value in *ret: within [daemon] timeout's range (100ms
 * .. 1d), the same for a one-off run as for the daemon's; 0, or -EINVAL. */
int run_args_timeout_parse(const char *arg, double *ret);

/* 1 when opt was one of RUN_OVERRIDE_OPTIONS and its value good, 0 when
 * opt is another option, -EINVAL (logged) for a bad value. */
int run_args_override_parse(struct run_overrides *o, int opt, const char *arg);
/* configured: the probe is one of the configuration's.  Returns where the
 * priority came from (PRIO_FROM_*, for result->priority_from). */
const char *run_args_override_apply(const struct app *app, struct run_overrides *o,
                                    bool configured, struct run_spec *spec);

#endif
