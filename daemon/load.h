/* load.h — is the host busy right now?
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
#ifndef BENCHWATCH_LOAD_H
#define BENCHWATCH_LOAD_H

/* Thresholds; 0 disables a check. PSI in percent, load per CPU. */
struct load_limits {
        double max_load;
        double max_psi_cpu;
        double max_psi_io;
        double max_psi_memory;
};

/* 1 when some signal is above its limit (*ret_why, malloc'd, says which:
 * "cpu pressure 41.2% > 25%"), 0 when not, -ENOMEM. Unreadable files are
 * skipped. */
int load_busy(const struct load_limits *lim, char **ret_why);

/* "some avg10" of a PSI file: 0, -ENOENT/-EACCES..., or -EINVAL when the
 * file does not look like PSI. */
int load_read_psi(const char *path, double *ret_avg10);
/* The 1-minute figure of a loadavg file. */
int load_read_loadavg(const char *path, double *ret_load1);

#endif
