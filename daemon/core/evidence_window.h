/* evidence_window.h — what a run got and what the host did meanwhile.
 *
 * Two snapshots of evidence.h, before and after a run, become the run's
 * evidence: differences of counters over the window, levels at its end,
 * and ratios in base units.  A figure whose source is absent, or whose
 * counter was unreadable at either end or went backwards (a reset, a
 * wrap), is NAN and is not added to the result: an absent figure is said
 * to be absent (evidence_host_absent_text), never reported as 0.
 *
 * The figures and the metric families they become (all gauges; the
 * detector never judges benchwatch_probe_*, baseline.h):
 *   throttled_ratio     benchwatch_probe_cpu_throttled_ratio: nr_throttled
 *                       / nr_periods of the cgroup level most throttled
 *                       (0 when no quota period ran: nothing can throttle)
 *   throttled_seconds   benchwatch_probe_cpu_throttled_seconds: its
 *                       throttled time
 *   clock_hz            benchwatch_probe_cpu_clock_hertz{source}: "perf",
 *                       the probe's cycles per second on a CPU; else
 *                       "cpufreq", the mean scaling_cur_freq of the
 *                       sampled CPUs at the run's end
 *   scaling_max_hz,     benchwatch_probe_cpu_max_hertz{limit="scaling",
 *   cpuinfo_max_hz      "hardware"}; governor:
 *                       benchwatch_probe_cpufreq_governor_info{governor}
 *   throttle_events[],  benchwatch_probe_thermal_throttle_events{scope=
 *   throttle_seconds[]  "core","package"}, _thermal_throttle_seconds{scope=
 *                       "package"} (cores' times are not read: cost)
 *   edac_ce, edac_ue    benchwatch_probe_edac_corrected_errors,
 *                       _edac_uncorrected_errors
 *   hw_corrupted,       benchwatch_probe_memory_hardware_corrupted_bytes,
 *   mem_total,          _memory_total_bytes, _cpus_online (levels: the
 *   cpus_online         host's inventory)
 *   disk[]              benchwatch_probe_disk_seconds_per_io{device,op=
 *                       "read","write"} (device time per completed I/O,
 *                       iostat's r_await/w_await), _disk_busy_ratio{device}
 *                       (%util), _disk_queue_depth{device} (aqu-sz)
 *   nvme[]              benchwatch_probe_nvme_critical_warning{device},
 *                       _nvme_temperature_celsius, _nvme_used_ratio,
 *                       _nvme_media_errors (in the window),
 *                       _nvme_thermal_transitions{device,level="t1","t2"},
 *                       _nvme_thermal_seconds{device,level}
 *   kmsg[]              benchwatch_probe_kernel_log_events{kind} since the
 *                       snapshot before `before` (the previous run's end),
 *                       and _kernel_log_lost_records
 * Nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_WINDOW_H
#define BENCHWATCH_EVIDENCE_WINDOW_H

#include "core/evidence.h"
#include "core/result.h"

struct evidence_window_disk {
        double read_s_per_io, write_s_per_io;
        double busy_ratio, queue_depth;
        double ios;                     /* completed in the window */
};

struct evidence_window_nvme {
        bool ok;
        unsigned critical_warning;
        double temperature_celsius, used_ratio;
        double media_errors;
        double thermal_transitions[2], thermal_seconds[2];
};

struct evidence_window {
        double seconds;
        double throttled_ratio, throttled_seconds;
        double clock_hz;
        const char *clock_source;       /* "perf", "cpufreq" or NULL */
        double scaling_max_hz, cpuinfo_max_hz;
        char governor[EVIDENCE_GOVERNOR_MAX];
        double throttle_events[EVIDENCE_N_SCOPES], throttle_seconds[EVIDENCE_N_SCOPES];
        double edac_ce, edac_ue;
        double mem_total, hw_corrupted, cpus_online;
        size_t n_disks;
        struct evidence_window_disk disk[EVIDENCE_MAX_DISKS];
        size_t n_nvme;
        struct evidence_window_nvme nvme[EVIDENCE_MAX_NVME];
        bool kmsg_ok;
        double kmsg[KMSG_N_KINDS], kmsg_lost;
};

/* The clock from perf needs at least this much of the probe on a CPU:
 * below it the two counters' start-up skew is not negligible. */
#define EVIDENCE_MIN_PERF_NS 1e6

void evidence_window_between(const struct evidence_host *h, const struct evidence *before,
                             const struct evidence *after, struct evidence_window *ret);
/* Adds the window's known figures to res (the families above).  The
 * disk and NVMe figures only of the disks in devices, a comma-separated
 * list as benchwatch_disk_info{device} has it ("sda,sdb"; an NVMe
 * controller goes with its namespaces: nvme0 with "nvme0n1"); NULL: of
 * every disk, "": of none (a probe that does no disk I/O).  0 or
 * -ENOMEM/-EINVAL from result_add. */
int evidence_window_add_metrics(const struct evidence_host *h, const struct evidence_window *w,
                                const char *devices, struct result *res);

#endif
