/* plugin.h — the one interface between the benchwatch core and its plugins.
 *
 * A plugin is a shared object that exports one symbol, `benchwatch_plugin`, a
 * `struct bw_plugin` describing what it measures: its name, what it needs
 * (capabilities), a declarative table of typed parameters and the callbacks.
 * The core parses and validates every parameter value against that table, so
 * a plugin never parses strings; the core also offers its services (emit a
 * figure, log, report progress, ask whether to stop) through `struct bw_host`,
 * which a unit test can replace with a recording fake.
 *
 * BW_PLUGIN_ABI_VERSION is bumped whenever any struct here changes; the
 * loader refuses a plugin built for another version.  struct bw_hist
 * (daemon/util/hist.h) crosses the boundary too: plugins fill histograms
 * with hist.h's inline recorder and hand them to h->latency(), so its
 * layout is part of the ABI.  BW_PLUGIN_DEFINE exports the size the plugin
 * was built with (BW_PLUGIN_HIST_SYMBOL) and the loader refuses a plugin
 * whose histogram is not the core's. */
#ifndef BENCHWATCH_PLUGIN_H
#define BENCHWATCH_PLUGIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BW_PLUGIN_ABI_VERSION 3
#define BW_PLUGIN_SYMBOL "benchwatch_plugin"
#define BW_PLUGIN_HIST_SYMBOL "benchwatch_plugin_hist_size"

#include "util/hist.h" /* struct bw_hist: part of the ABI, see above */

/* Capabilities; `benchwatch plugins` lists them, and the core acts on: */
enum {
        /* refused before it runs, "plugin X needs root", unless benchwatch
         * runs as root (e.g. opening a block device) */
        BW_CAP_NEEDS_ROOT = 1u << 0,
        /* the run's disk I/O is watched too when the probe yields to the
         * host (yield.h); host steal does not exclude its runs (tracker.h) */
        BW_CAP_DISK_IO = 1u << 1,
        /* talks to a server: others' CPU use does not exclude its runs,
         * host steal does (tracker.h) */
        BW_CAP_NETWORK = 1u << 2,
        /* keeps a CPU busy all the run (cpu, threads, memory): the daemon
         * runs it under [daemon] cpu_policy (SCHED_IDLE by default), so
         * the host's own work preempts it at once */
        BW_CAP_CPU_BOUND = 1u << 3,
        /* waits on a device other than a disk (a GPU): counted and starved
         * by its threads' waits per second, as a disk probe is (tracker.h,
         * yield.h), not by the share of their wants a CPU-bound one is */
        BW_CAP_DEVICE = 1u << 4,
};
/* The capabilities of a probe whose work waits on something other than
 * the CPU: a disk, a server or a device. */
#define BW_CAP_WAITS (BW_CAP_DISK_IO | BW_CAP_NETWORK | BW_CAP_DEVICE)

enum bw_param_type {
        BW_PARAM_INT,      /* int64 in [min, max]                     -> .i */
        BW_PARAM_DOUBLE,   /* double in [min, max]                    -> .d */
        BW_PARAM_BOOL,     /* yes/no, true/false, on/off, 1/0         -> .b */
        BW_PARAM_STRING,   /* free text (may be empty)                -> .s */
        BW_PARAM_ENUM,     /* one of .choices; index in .i, name in .s     */
        BW_PARAM_DURATION, /* "500ms", "2s", "15min", "1h"; seconds   -> .d */
        BW_PARAM_SIZE,     /* "16k", "1M", "4G"; bytes                -> .i */
};

enum {
        /* The value changes what the figures mean (max_prime, block_size...):
         * it becomes a label on every metric of the run. */
        BW_PARAM_LABEL = 1u << 0,
        /* May be given several times (http `header`); the values arrive in
         * .list / .n_list, and .s holds the last one. */
        BW_PARAM_MULTI = 1u << 1,
        /* A secret: never printed, logged or put into a label. */
        BW_PARAM_SECRET = 1u << 2,
};

struct bw_param_def {
        const char *name;
        enum bw_param_type type;
        const char *default_value; /* in the same syntax a user writes */
        double min, max;           /* numeric range; min == max == 0: any */
        const char *const *choices; /* BW_PARAM_ENUM: NULL-terminated list */
        const char *unit;          /* for help text: "s", "bytes", "IOPS" */
        const char *help;
        unsigned flags;
        /* NULL, or "mode=randrw" / "mode=randwrite|randrw|write": the
         * parameter means something only when another parameter has one of
         * these values.  Otherwise it is not a label of the run's figures
         * (rwmix_read on a randread run would only multiply series). */
        const char *applies;
};

struct bw_param_value {
        int64_t i;
        double d;
        bool b;
        const char *s;            /* the value as given (normalised text) */
        const char *const *list;  /* BW_PARAM_MULTI only */
        size_t n_list;
        bool is_set;              /* given by the user, not the default */
};

/* One run of a probe: values[k] belongs to plugin->params[k]. */
struct bw_run {
        const char *probe;        /* instance name, e.g. "root-disk" */
        const struct bw_param_value *values;
        const char *cache_dir;    /* where scratch files may live */
        const char *state_dir;    /* persistent state (baselines...) */
        double deadline;          /* CLOCK_MONOTONIC seconds; the run is
                                     killed after it, so finish before */
};

/* Services of the core.  Labels are NULL-terminated name/value pairs
 * { "op", "read", NULL }; figure names are the part after
 * "benchwatch_<plugin>_", in base units (seconds, bytes).
 *
 * Threads: every callback here is thread-safe.  A plugin's worker threads
 * may emit (gauge, counter, latency, info), log, fail, count progress and
 * ask stopping() at the same time as each other and as the run's own
 * thread; the host serialises what it records (the daemon's child.c and
 * the tests' fakehost.c both take a lock around every figure and failure
 * they keep).  Emitting is not free, though: emit at the end of a run, not
 * per event.  The host copies what it keeps before the call returns. */
struct bw_host {
        void *ctx;
        void (*gauge)(const struct bw_host *h, const char *name,
                      const char *help, const char *const *labels, double v);
        void (*counter)(const struct bw_host *h, const char *name,
                        const char *help, const char *const *labels,
                        double v);
        /* A latency distribution in seconds (exported as a summary with
         * quantiles 0.5 ... 0.999 and quantile="1" for the maximum). */
        void (*latency)(const struct bw_host *h, const char *name,
                        const char *help, const char *const *labels,
                        const struct bw_hist *hist);
        /* Informational text for the terminal/journal (priority as syslog),
         * logged as the daemon's own lines are: the journal gets the
         * priority, and debug lines show only under --verbose; in the
         * journal a notice or info line the probe's last run said too is
         * logged at debug level (notes.h), so say a fact once a run and
         * in the same words. */
        void (*log)(const struct bw_host *h, int priority, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
        /* Records why the run failed and returns err (a -errno value), so a
         * plugin can `return h->fail(h, -ENOSPC, "cannot create '%s'", p);`.
         * The first failure recorded wins. */
        int (*fail)(const struct bw_host *h, int err, const char *fmt, ...)
                __attribute__((format(printf, 3, 4)));
        /* Count finished units of work (events, requests, I/Os) for the
         * progress display. Cheap (an atomic add); call it freely. */
        void (*progress)(const struct bw_host *h, uint64_t n);
        /* True once the run was asked to stop (SIGTERM: a stop, or the death
         * of the daemon): wind down within a second.  An orphaned run (the
         * daemon died) gets a tenth of one before its group is killed, so
         * nothing a run leaves may need the plugin to undo it (an unnamed
         * O_TMPFILE, a marked temporary the next run removes).  The core
         * owns SIGTERM (blocked in every thread but its own watcher); a
         * plugin never changes its disposition or mask. */
        bool (*stopping)(const struct bw_host *h);
        /* An info metric as node_exporter spells them (value 1, the facts
         * in labels, e.g. benchwatch_disk_info{device="vda",model=...}):
         * `family` is the whole name, benchwatch_..._info, shared by the
         * plugins that describe the same kind of thing; it gets the given
         * labels only, not the run's parameter labels, so PromQL joins on
         * it work. */
        void (*info)(const struct bw_host *h, const char *family,
                     const char *help, const char *const *labels);
};

/* One line of the plugin's terminal report (`run`'s table format), so the
 * report can read like the classic tool's summary (ab's for http).  Figures
 * are named as emitted (short names); an array ends with { .label = NULL }. */
enum bw_report_show {
        BW_SHOW_HEADING,     /* the label alone; over indented lines (labels
                                that start with a space) only when one of
                                them prints; "" (a blank line) only when
                                the line after it prints */
        BW_SHOW_VALUE,       /* the figure (summed over its samples) */
        BW_SHOW_PARAM,       /* the text of parameter `figure` (the loader
                                checks that it is one) */
        BW_SHOW_MEAN,        /* mean of a latency figure */
        BW_SHOW_RECIPROCAL,  /* 1 / figure, e.g. time per request from RPS */
        BW_SHOW_PERCENTILES, /* ab's "Percentage of the requests served
                                within a certain time" block (ms, with
                                `decimals` digits: ab's 0 by default) */
};

struct bw_report_line {
        const char *label;
        enum bw_report_show show;
        const char *figure;
        double scale;            /* applied to the number; 0 means 1 */
        const char *times_param; /* and multiplied by this numeric param */
        const char *unit;        /* printed after the number */
        int decimals;            /* digits after the decimal point */
};

/* What a cleanup did, for `benchwatch cleanup` to say ("removed 2; left
 * 1 not its own alone"): the things it removed, and those it found where
 * its own would be but left alone, not being the probe's (each named in
 * a notice).  Gauges of the cleanup's result, never of a run. */
#define BW_CLEANUP_REMOVED "cleanup_removed"
#define BW_CLEANUP_LEFT "cleanup_left_alone"
static inline void bw_cleanup_report(const struct bw_host *h, unsigned removed, unsigned left)
{
        h->gauge(h, BW_CLEANUP_REMOVED, "What the cleanup removed", NULL, removed);
        h->gauge(h, BW_CLEANUP_LEFT, "What the cleanup found but left alone: not the probe's "
                 "own", NULL, left);
}

struct bw_plugin {
        uint32_t abi_version;   /* BW_PLUGIN_ABI_VERSION */
        const char *name;       /* [a-z][a-z0-9_]*, the metric prefix */
        const char *description;
        uint32_t caps;          /* BW_CAP_* */
        const struct bw_param_def *params; /* ends with { .name = NULL } */
        /* The parameter `sweep` varies by default ("threads"), or NULL;
         * the loader checks that it is one of params. */
        const char *concurrency_param;
        /* Figure that `sweep` ranks levels by, e.g. "events_per_second". */
        const char *throughput_metric;

        /* Cross-parameter checks before a run is started (e.g. a write mode
         * on a block device). Optional. Return 0 or h->fail(...).  The core
         * calls it in its own process when it loads a configuration
         * (check-config reports it with file and line) and before `run`
         * forks, with a host that records only the failure; the child calls
         * it again before `run`.  So: quick, no threads, no figures, and no
         * I/O beyond looking (stat): everything that can be known before a
         * run belongs here, not in `run`.
         * -ENODEV (with h->fail saying what is missing) means the host
         * lacks what the plugin measures, e.g. a GPU plugin without the
         * NVIDIA driver or a GPU (looking may dlopen() a library, and ask
         * it how many GPUs there are, as NVML's nvmlInit does): not
         * a configuration error; the configuration keeps the probe, the
         * daemon leaves it out with one log line at each load, and `run`
         * exits 3 (environment). */
        int (*check)(const struct bw_run *run, const struct bw_host *h);
        /* Measure and emit the figures. Returns 0 or a -errno value.
         * -EBUSY (through h->fail, saying why) means the run made way for
         * other work on what it measures (another process on its GPU):
         * like a run the core stops to yield (yield.h), a deferral,
         * neither counted nor a failure, retried later. */
        int (*run)(const struct bw_run *run, const struct bw_host *h);
        /* Remove what the plugin left on disk or in a server (test files,
         * tables) for `benchwatch cleanup`, and say with
         * bw_cleanup_report() how many it removed and how many it left
         * alone. Optional. */
        int (*cleanup)(const struct bw_run *run, const struct bw_host *h);
        /* How `run` shows the figures at the terminal; NULL: a generic
         * sysbench-like list. */
        const struct bw_report_line *report;
};

/* Declares the exported descriptor: BW_PLUGIN_DEFINE = { ... };, and
 * beside it the size of struct bw_hist the plugin was built with. */
#define BW_PLUGIN_DEFINE \
        extern const uint32_t benchwatch_plugin_hist_size; \
        __attribute__((visibility("default"))) \
        const uint32_t benchwatch_plugin_hist_size = sizeof(struct bw_hist); \
        extern const struct bw_plugin benchwatch_plugin; \
        __attribute__((visibility("default"))) \
        const struct bw_plugin benchwatch_plugin

#endif
