/* sysparse.h — the kernel's counter files, read as text.
 *
 * A run's evidence (evidence.h) comes from files the kernel writes under
 * /proc and /sys: one number per sysfs attribute, "key value" lines
 * (cgroup cpu.stat, /proc/meminfo), a CPU list ("0-3,5"), a block
 * device's stat line, the process's cgroup membership.  These are their
 * parsers, pure functions apart from the reads so that a test feeds them
 * text and a fuzzer feeds them anything (tests/fuzz/fuzz_sysparse.c).
 * Counters are unsigned decimal integers: a sign, a fraction, an empty
 * field, trailing garbage or a value past 2^64 is refused (-EINVAL or
 * -ERANGE), never read as some other number.  Nothing here logs. */
#ifndef BENCHWATCH_SYSPARSE_H
#define BENCHWATCH_SYSPARSE_H

#include <stddef.h>
#include <stdint.h>

/* One unsigned decimal number, white space around it allowed (a sysfs
 * attribute's "123\n").  0, -EINVAL or -ERANGE. */
int sysparse_u64(const char *text, uint64_t *ret);

/* The number of CPUs in a list as /sys/devices/system/cpu/online writes
 * it: "0-3,5,7-8\n" is 7; "" (none online, never seen) is refused.
 * Ranges must ascend and ids stay below SYSPARSE_MAX_CPU.  ids (may be
 * NULL) gets the first max_ids of them. */
#define SYSPARSE_MAX_CPU 65536
int sysparse_cpulist(const char *text, unsigned *ids, unsigned max_ids, unsigned *ret_count);

/* The number on the line that starts with `key`, followed by ':' or
 * white space: cgroup cpu.stat's "nr_throttled 12", /proc/meminfo's
 * "MemTotal:       24683748 kB" (a "kB" after the number multiplies it by
 * 1024: bytes).  -ENOENT when no line has the key, -EINVAL when its value
 * is not a counter. */
int sysparse_keyed(const char *text, const char *key, double *ret);

/* /sys/block/DEV/stat (Documentation/admin-guide/iostats.rst): the first
 * eleven fields; milliseconds as the kernel counts them.  Later kernels'
 * discard and flush fields may follow and are ignored. */
struct sysparse_blockstat {
        double reads, read_ms;      /* fields 1 and 4 */
        double writes, write_ms;    /* fields 5 and 8 */
        double in_flight;           /* field 9: a level, not a counter */
        double io_ms, queue_ms;     /* fields 10 and 11 */
};
int sysparse_blockstat(const char *text, struct sysparse_blockstat *ret);

/* /proc/PID/cgroup: where the process sits in the cgroup v1 hierarchy
 * that has the cpu controller ("cpu,cpuacct" and "/system.slice/x") and
 * in the v2 one (the "0::" line).  A member is NULL when its line is
 * missing; a path that is not absolute or has a ".." component (a cgroup
 * outside our namespace: "/../..") is left out as unreachable.  0 (even
 * when nothing was found), -EINVAL for a malformed line, -ENOMEM. */
struct sysparse_cgroup {
        char *v1_controllers, *v1_path;
        char *v2_path;
};
int sysparse_cgroup(const char *text, struct sysparse_cgroup *ret);
void sysparse_cgroup_clear(struct sysparse_cgroup *c);

#endif
