/* conf_daemon.c — the [daemon] section's options: one declarative table
 * (names, types, defaults, ranges, units, help) that the loader parses
 * against, `check-config` and the man page describe, and the rest of the
 * daemon reads by index (CFG_D_*, conf_daemon.h).  Install locations come
 * from configure. */
#include "core/conf_daemon.h"

#include <math.h>
#include <stddef.h>

#include "core/param.h"

#ifndef PLUGINDIR
#define PLUGINDIR "/usr/local/lib/benchwatch"
#endif
/* From configure's --localstatedir (Makefile.am); builds without it (the
 * fuzzers) get the packaged locations. */
#ifndef BW_STATE_DIR
#define BW_STATE_DIR "/var/lib/benchwatch"
#endif
#ifndef BW_CACHE_DIR
#define BW_CACHE_DIR "/var/cache/benchwatch"
#endif

static const char *const ioprio_classes[] = { "best-effort", "idle", NULL };
/* in the order of priority.h's PRIO_CPU_* */
static const char *const cpu_policies[] = { "other", "batch", "idle", NULL };

const struct bw_param_def conf_daemon_options[] = {
        [CFG_D_INTERVAL] = CONF_DAEMON_OPT_INTERVAL("time between two runs of a "
                                                    "probe, unless its section sets "
                                                    "interval"),
        [CFG_D_TIMEOUT] = CONF_DAEMON_OPT_TIMEOUT("a run still going after this is "
                                                  "killed and counts as failed"),
        [CFG_D_SPLAY] = { .name = "splay", .type = BW_PARAM_DOUBLE,
                .default_value = "0.1", .min = 0, .max = 1,
                .unit = "fraction of interval",
                .help = "each wait (and the first) is lengthened by a random "
                        "0..splay x interval so probes and hosts drift apart" },
        [CFG_D_FIRST_SPLAY] = { .name = "first_splay", .type = BW_PARAM_DURATION,
                .default_value = "30s", .min = 0, .max = 86400, .unit = "s",
                .help = "the first run of each probe after start waits at most this "
                        "(and at most splay x interval)" },
        [CFG_D_NICE] = { .name = "nice", .type = BW_PARAM_INT,
                .default_value = "10", .min = 0, .max = 19,
                .help = "CPU niceness of the processes that run probes" },
        [CFG_D_IOPRIO_CLASS] = { .name = "ioprio_class", .type = BW_PARAM_ENUM,
                .default_value = "best-effort", .choices = ioprio_classes,
                .help = "I/O scheduling class of probe runs" },
        [CFG_D_IOPRIO_LEVEL] = { .name = "ioprio_level", .type = BW_PARAM_INT,
                .default_value = "7", .min = 0, .max = 7,
                .help = "best-effort I/O priority, 0 highest .. 7 lowest" },
        [CFG_D_CPU_POLICY] = { .name = "cpu_policy", .type = BW_PARAM_ENUM,
                .default_value = "idle", .choices = cpu_policies,
                .help = "CPU scheduling policy of the daemon's runs of CPU-bound "
                        "probes (cpu, threads, memory): idle (SCHED_IDLE: any other "
                        "work preempts them at once), batch (SCHED_BATCH) or other "
                        "(the usual policy, at nice); `run` and `sweep` use other" },
        [CFG_D_CACHE_DIR] = { .name = "cache_dir", .type = BW_PARAM_STRING,
                .default_value = BW_CACHE_DIR,
                .help = "scratch files of probes (disk test files)" },
        [CFG_D_STATE_DIR] = { .name = "state_dir", .type = BW_PARAM_STRING,
                .default_value = BW_STATE_DIR,
                .help = "persistent state: baselines, last results" },
        [CFG_D_PLUGIN_DIR] = { .name = "plugin_dir", .type = BW_PARAM_STRING,
                .default_value = PLUGINDIR,
                .help = "where plugins are loaded from "
                        "($BENCHWATCH_PLUGIN_DIR overrides it)" },
        [CFG_D_MAX_LOAD] = { .name = "max_load", .type = BW_PARAM_DOUBLE,
                .default_value = "0", .min = 0, .max = 1000,
                .unit = "per CPU",
                .help = "defer a run while the 1-minute load average divided "
                        "by the number of CPUs is above this; 0: never" },
        [CFG_D_MAX_PSI_CPU] = { .name = "max_psi_cpu", .type = BW_PARAM_DOUBLE,
                .default_value = "25", .min = 0, .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of /proc/pressure/cpu "
                        "is above this; 0: never" },
        [CFG_D_MAX_PSI_IO] = { .name = "max_psi_io", .type = BW_PARAM_DOUBLE,
                .default_value = "25", .min = 0, .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of /proc/pressure/io "
                        "is above this; 0: never" },
        [CFG_D_MAX_PSI_MEMORY] = { .name = "max_psi_memory",
                .type = BW_PARAM_DOUBLE, .default_value = "10", .min = 0,
                .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of "
                        "/proc/pressure/memory is above this; 0: never" },
        [CFG_D_DUTY_CYCLE] = { .name = "duty_cycle", .type = BW_PARAM_DOUBLE,
                .default_value = "0.1", .min = 0.001, .max = 1,
                .unit = "fraction of time",
                .help = "at most this share of wall time is spent running "
                        "probes: a run of d seconds is followed by at least "
                        "d x (1/duty_cycle - 1) without any; 1: no limit" },
        [CFG_D_HISTORY_SIZE] = { .name = "history_size", .type = BW_PARAM_SIZE,
                .default_value = "8M", .min = 64 * 1024, .max = 1024.0 * 1024 * 1024,
                .unit = "bytes",
                .help = "most bytes of each probe's history in state_dir "
                        "(benchwatch history); when full, the oldest half goes" },
        [CFG_D_YIELD] = { .name = "yield", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "look at the host for half a second before a run and "
                        "defer it while there is no room for it (room) or "
                        "others need the disks or memory; stop a run that "
                        "takes CPU from others (yield_cpu_wait), is starved "
                        "of CPU itself, or meets others' disk I/O or memory "
                        "stalls (yield_io, yield_memory; checked every 250 ms, "
                        "two samples in a row) and count it as deferred; no: "
                        "runs always start when due and go to their end" },
        [CFG_D_YIELD_CPU] = { .name = "yield_cpu", .type = BW_PARAM_DOUBLE,
                .default_value = "50", .min = 0, .max = 100, .unit = "%",
                .help = PARAM_OBSOLETE_HELP "a probe runs when the host has "
                        "room for it, not by others' share of the host: see "
                        "room and yield_cpu_wait" },
        [CFG_D_YIELD_IO] = { .name = "yield_io", .type = BW_PARAM_SIZE,
                .default_value = "10M", .min = 0, .max = 1e15, .unit = "bytes/s",
                .help = "yield a probe that does disk I/O while processes other "
                        "than it read and write more than this per second on the "
                        "host's disks; 0: never" },
        [CFG_D_YIELD_MEMORY] = { .name = "yield_memory", .type = BW_PARAM_DOUBLE,
                .default_value = "10", .min = 0, .max = 100, .unit = "%",
                .help = "yield while some task stalls on memory (PSI) more than "
                        "this share of the time; 0: never" },
        [CFG_D_ROOM] = { .name = "room", .type = BW_PARAM_DOUBLE,
                .default_value = "0.8", .min = 0, .max = 100, .unit = "x the CPUs needed",
                .help = "a run starts when the CPUs it may run on had at least "
                        "this many times the CPUs the probe keeps busy idle "
                        "over the half second before (its last run's CPU time "
                        "per second; before its first, its threads), steal "
                        "left out; 0: never waits for room" },
        [CFG_D_YIELD_CPU_WAIT] = { .name = "yield_cpu_wait", .type = BW_PARAM_DOUBLE,
                .default_value = "10", .min = 0, .max = 100, .unit = "%",
                .help = "yield while other tasks wait for a CPU this many "
                        "percentage points of the time more than before the "
                        "run (PSI cpu some, less the probe's own waits); 0: "
                        "never" },
        [CFG_D_COUNT] = { .name = NULL },
};

double conf_daemon_mean_period(const struct bw_param_value *v, double interval,
                               double run_seconds)
{
        double period = interval * (1 + fmin(v[CFG_D_SPLAY].d, 1.0) / 2);
        double dc = v[CFG_D_DUTY_CYCLE].d;
        /* the next run starts after this one's end and its pause */
        if (isfinite(run_seconds))
                period = fmax(period, dc > 0 && dc < 1 ? run_seconds / dc : run_seconds);
        return period;
}
