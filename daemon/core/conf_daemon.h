/* conf_daemon.h — the [daemon] section's options (conf_daemon.c): their
 * table and the indices the daemon reads them by; and the definitions of
 * a run's interval and timeout, which a [probe NAME] section may set too
 * (conf.c). */
#ifndef BENCHWATCH_CONF_DAEMON_H
#define BENCHWATCH_CONF_DAEMON_H

#include "core/plugin.h"

/* Indices into conf_daemon_options and config->daemon->values. */
enum {
        CFG_D_INTERVAL,
        CFG_D_TIMEOUT,
        CFG_D_SPLAY,
        CFG_D_NICE,
        CFG_D_IOPRIO_CLASS,   /* .i: 0 best-effort, 1 idle */
        CFG_D_IOPRIO_LEVEL,
        CFG_D_CACHE_DIR,
        CFG_D_STATE_DIR,
        CFG_D_PLUGIN_DIR,
        CFG_D_MAX_LOAD,
        CFG_D_MAX_PSI_CPU,
        CFG_D_MAX_PSI_IO,
        CFG_D_MAX_PSI_MEMORY,
        CFG_D_DUTY_CYCLE,
        CFG_D_HISTORY_SIZE,   /* .i: bytes */
        CFG_D_YIELD,          /* .b */
        CFG_D_YIELD_CPU,      /* obsolete, ignored */
        CFG_D_YIELD_IO,       /* .i: bytes per second */
        CFG_D_YIELD_MEMORY,
        CFG_D_FIRST_SPLAY,    /* .d: seconds */
        CFG_D_CPU_POLICY,     /* .i: PRIO_CPU_* (priority.h) */
        CFG_D_ROOM,           /* .d: x the CPUs a probe needs */
        CFG_D_YIELD_CPU_WAIT, /* .d: percentage points */
        CFG_D_COUNT
};

extern const struct bw_param_def conf_daemon_options[];

/* How long, on average, from the start of one run of a probe to the next
 * where nothing defers it, by the scheduler's rules (scheduler.c) and the
 * [daemon] values v (config->daemon->values): the interval lengthened by
 * half the splay, or, where runs are long, a run of run_seconds and the
 * duty cycle's pause after it (run_seconds / duty_cycle).  run_seconds
 * NAN: unknown, left out. */
double conf_daemon_mean_period(const struct bw_param_value *v, double interval,
                               double run_seconds);

/* The option definitions [daemon] and [probe NAME] share, with their own
 * help text. */
#define CONF_DAEMON_OPT_INTERVAL(text) { .name = "interval", .type = BW_PARAM_DURATION, \
        .default_value = "1h", .min = 1, .max = 30 * 86400.0, .unit = "s", \
        .help = text }
#define CONF_DAEMON_OPT_TIMEOUT(text) { .name = "timeout", .type = BW_PARAM_DURATION, \
        .default_value = "5min", .min = 0.1, .max = 86400, .unit = "s", \
        .help = text }

#endif
