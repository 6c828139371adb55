/* busy.h — is the host busy right now?
 *
 * A benchmark run on a host that is already short of CPU, I/O or memory
 * both hurts the host's real work and measures noise, so the scheduler asks
 * here before each run and defers it when the host is busy.  The signals
 * are the kernel's pressure stall information ("some avg10" of
 * /proc/pressure/{cpu,io,memory}: the share of the last 10 s in which some
 * task waited for that resource) and the 1-minute load average per CPU.
 * A signal the kernel does not offer (no PSI before 4.20 or with psi=0) is
 * skipped, not treated as busy.  Nothing here logs.
 *
 * The files are read under /proc, or under $BENCHWATCH_PROC_DIR when set:
 * a test hook, so tests can make the host look busy or idle at will. */
#ifndef BENCHWATCH_BUSY_H
#define BENCHWATCH_BUSY_H

/* Thresholds; 0 disables a check. PSI in percent, load per CPU. */
struct busy_limits {
        double max_load;
        double max_psi_cpu;
        double max_psi_io;
        double max_psi_memory;
};

/* 1 when some signal is above its limit (*ret_why, malloc'd, says which:
 * "cpu pressure 41.2% > 25%"; *ret_reason, static, names the resource:
 * "cpu", "io", "memory" or "load"), 0 when not, -ENOMEM. Unreadable files
 * are skipped.  ret_reason may be NULL. */
int busy_check(const struct busy_limits *lim, const char **ret_reason, char **ret_why);

/* What the host went through during a run, from two snapshots: the
 * share of all CPU time the hypervisor stole (the steal column of
 * /proc/stat; neighbours on the same physical host), and for cpu, io and
 * memory the share of the run's wall time in which some task waited for
 * it (PSI "some total", the probe's own waits included).  A figure the
 * kernel does not offer is NAN. */
enum { BUSY_PSI_CPU, BUSY_PSI_IO, BUSY_PSI_MEMORY, BUSY_N_PSI };
extern const char *const busy_psi_names[BUSY_N_PSI];

struct busy_snapshot {
        double cpu_total, cpu_steal;   /* jiffies; NAN when unreadable */
        double psi_total[BUSY_N_PSI];  /* microseconds; NAN when unreadable */
        double mono;                   /* now_mono() */
};

struct busy_window {
        double steal;                  /* 0..1 or NAN */
        double pressure[BUSY_N_PSI];   /* 0..1 or NAN */
};

struct result;

void busy_snapshot_take(struct busy_snapshot *ret);
void busy_window_between(const struct busy_snapshot *a, const struct busy_snapshot *b,
                         struct busy_window *ret);
/* The window beside a run's figures: benchwatch_probe_steal_ratio and
 * benchwatch_probe_pressure_ratio{resource} (what is known of them). */
int busy_window_add_metrics(const struct busy_window *w, struct result *res);

/* "some avg10" of a PSI file: 0, -ENOENT/-EACCES..., or -EINVAL when the
 * file does not look like PSI. */
int busy_read_psi(const char *path, double *ret_avg10);
/* The 1-minute figure of a loadavg file. */
int busy_read_loadavg(const char *path, double *ret_load1);

#endif
