/* evidence.h — what the host did over a run, from the kernel's counters.
 *
 * Every verdict should say why (DESIGN.md): a figure that got worse
 * because the daemon's cgroup was throttled, the clock dropped, the CPUs
 * throttled for heat, DIMMs reported corrected errors, the disk took
 * longer per I/O or logged resets is a different finding from the
 * component itself getting slower.  So beside each run's figures the
 * runner records a snapshot of these counters before the run and one
 * after, and the window between them becomes figures of the result
 * (evidence_window.h), which the cause engine (detect/cause.h) reads.
 *
 * Sources, each found once when the host is opened (evidence_host_new:
 * directories and device lists are discovered then, not per snapshot) and
 * "not available" where the host lacks it or refuses it:
 *   cgroup_cpu        the daemon's cgroup's cpu.stat (v2 nr_periods,
 *                     nr_throttled, throttled_usec; v1 cpu,cpuacct's
 *                     throttled_time in ns), and its ancestors' (a quota
 *                     above throttles the group too)
 *   perf_clock        cycles / on-CPU time of the probe (perfclock.h)
 *   cpufreq           scaling_cur_freq (the clock when perf has none),
 *                     scaling_max_freq, cpuinfo_max_freq, scaling_governor
 *                     of up to EVIDENCE_CPU_SAMPLE online CPUs spread over
 *                     the CPU list
 *   thermal_throttle  core_ and package_throttle_count, each core and
 *                     each package counted once, and the packages'
 *                     package_throttle_total_time_ms
 *   edac              ce_count and ue_count of every memory controller
 *   meminfo           MemTotal, HardwareCorrupted
 *   cpu_online        the number of online CPUs
 *   block_stat        /sys/block/DEV/stat of each physical disk
 *   nvme_health       each NVMe controller's SMART log (nvme_health.h)
 *   kernel_log        /dev/kmsg records by kind (kmsg.h)
 * PSI, steal and others' CPU and disk use are busy.h's and yield.h's,
 * the probe's run delay, time on a CPU and share waited for one
 * rundelay.h's (the runner adds them): they are not read again here.
 *
 * Every path is under a root directory ("/" on a host; a fixture tree in
 * the tests).  A value that is missing, unreadable, truncated, not a
 * counter or went backwards is NAN in the window, never a wrong number.
 * Nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_H
#define BENCHWATCH_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evidence_read.h"
#include "core/kmsg.h"
#include "core/nvme_health.h"

enum evidence_source {
        EVIDENCE_CGROUP_CPU,
        EVIDENCE_PERF_CLOCK,
        EVIDENCE_CPUFREQ,
        EVIDENCE_THERMAL,
        EVIDENCE_EDAC,
        EVIDENCE_MEMINFO,
        EVIDENCE_CPU_ONLINE,
        EVIDENCE_BLOCK,
        EVIDENCE_NVME,
        EVIDENCE_KMSG,
        EVIDENCE_N_SOURCES
};
/* "cgroup_cpu", "perf_clock", ...: the names above */
extern const char *const evidence_source_names[EVIDENCE_N_SOURCES];

#define EVIDENCE_CPU_SAMPLE 8          /* CPUs whose cpufreq files are read */
#define EVIDENCE_MAX_DISKS 16
#define EVIDENCE_MAX_NVME 8
#define EVIDENCE_MAX_CGROUP_LEVELS 8
#define EVIDENCE_GOVERNOR_MAX 48

enum { EVIDENCE_CORE, EVIDENCE_PACKAGE, EVIDENCE_N_SCOPES };

/* One snapshot.  Counters as the kernel keeps them (NAN: not read). */
struct evidence {
        double mono;                    /* now_mono() */
        struct evidence_cgroup_stat cgroup[EVIDENCE_MAX_CGROUP_LEVELS];
        /* the probe's, since it started (evidence_take_end's probe) */
        double cycles, task_ns;         /* perf */
        double cur_hz, scaling_max_hz, cpuinfo_max_hz;
        char governor[EVIDENCE_GOVERNOR_MAX]; /* "" unknown; "performance",
                                               * "powersave,performance" */
        double throttle_events[EVIDENCE_N_SCOPES], throttle_ms[EVIDENCE_N_SCOPES];
        double edac_ce, edac_ue;
        double mem_total, hw_corrupted; /* bytes */
        double cpus_online;
        struct evidence_disk {
                double reads, read_ms, writes, write_ms, io_ms, queue_ms;
        } disk[EVIDENCE_MAX_DISKS];
        struct nvme_health nvme[EVIDENCE_MAX_NVME];
        bool nvme_ok[EVIDENCE_MAX_NVME];
        bool kmsg_ok;
        /* kernel log records counted since the host was opened, at this
         * snapshot and at the one before it (the previous run's end) */
        struct kmsg_counts kmsg, kmsg_prev;
};

struct evidence_host;

/* Discovers the sources under root.  kmsg_after_seq: the kernel log's
 * sequence number to go on after (evidence_host_kmsg_seq of a previous
 * daemon, kept in the state directory), or KMSG_FROM_NOW.  0 or -ENOMEM:
 * a source that is missing is recorded as such, not an error. */
int evidence_host_new(const char *root, uint64_t kmsg_after_seq, struct evidence_host **ret);
void evidence_host_free(struct evidence_host *h);

/* Whether a source was found, and if not why ("no
 * /sys/devices/system/edac/mc", "Permission denied"; static or owned by
 * h).  perf_clock is tried on the daemon itself at discovery; a run's own
 * perf events may still be refused. */
bool evidence_host_has(const struct evidence_host *h, enum evidence_source s);
const char *evidence_host_why_absent(const struct evidence_host *h, enum evidence_source s);
/* "thermal_throttle (no ...), edac (...)"; NULL when every source is
 * there or out of memory; malloc'd (for `status`). */
char *evidence_host_absent_text(const struct evidence_host *h);

/* The time each level of the daemon's cgroup (its own first) was held by
 * its CPU quota so far, in seconds (one read of each level's cpu.stat;
 * NAN where unread); no level without the cgroup_cpu source (h may be
 * NULL). */
struct evidence_throttled {
        double seconds[EVIDENCE_MAX_CGROUP_LEVELS];
        size_t n;
};
void evidence_host_throttled(struct evidence_host *h, struct evidence_throttled *ret);
/* The most any one level was held between a and b, in seconds: each
 * level's quota holds the whole group, and a level held long before
 * (its total the largest) may hold it no more.  NAN when no level was
 * read both times and went on. */
double evidence_throttled_between(const struct evidence_throttled *a,
                                  const struct evidence_throttled *b);

size_t evidence_host_n_disks(const struct evidence_host *h);
const char *evidence_host_disk(const struct evidence_host *h, size_t i);     /* "nvme0n1" */
size_t evidence_host_n_nvme(const struct evidence_host *h);
const char *evidence_host_nvme(const struct evidence_host *h, size_t i);     /* "nvme0" */
size_t evidence_host_n_cgroup_levels(const struct evidence_host *h);
/* The files a snapshot reads (and of them, kept open), beside an NVMe
 * admin command per controller and a kernel log poll: the cost of a
 * snapshot grows with them (lab/cost/evidence-cost.sh). */
size_t evidence_host_n_files(const struct evidence_host *h, size_t *ret_kept);
/* The kernel log's next sequence number, to keep across restarts. */
uint64_t evidence_host_kmsg_seq(const struct evidence_host *h);

/* What the runner watches of the probe process (NULL: not watched). */
struct perfclock;
struct evidence_probe {
        const struct perfclock *perf;
};

/* A snapshot before a run: the counters only (the levels a window
 * reports, cpufreq's, memory's and the online CPUs, are read at the end,
 * and the probe does not exist yet).  Reads the new kernel log records. */
void evidence_take_start(struct evidence_host *h, struct evidence *ret);
/* A snapshot after a run: the counters, the levels and the probe's
 * figures (which count from the probe's start; probe may be NULL). */
void evidence_take_end(struct evidence_host *h, const struct evidence_probe *probe,
                       struct evidence *ret);

#endif
