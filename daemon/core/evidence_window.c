/* evidence_window.c — see evidence_window.h. */
#include "core/evidence_window.h"

#include <math.h>
#include <string.h>

/* b - a of a counter; NAN when either is unknown or it went back. */
static double delta(double a, double b)
{
        return isfinite(a) && isfinite(b) && b >= a ? b - a : NAN;
}

static double ratio(double num, double den)
{
        return isfinite(num) && isfinite(den) && den > 0 ? num / den : NAN;
}

/* The most throttled level of the cgroup and its throttled time. */
static void throttling(const struct evidence_host *h, const struct evidence *a,
                       const struct evidence *b, struct evidence_window *w)
{
        w->throttled_ratio = w->throttled_seconds = NAN;
        for (size_t i = 0; i < evidence_host_n_cgroup_levels(h); i++) {
                double periods = delta(a->cgroup[i].periods, b->cgroup[i].periods);
                double throttled = delta(a->cgroup[i].throttled, b->cgroup[i].throttled);
                double us = delta(a->cgroup[i].throttled_us, b->cgroup[i].throttled_us);
                double r = periods > 0 ? throttled / periods :
                           periods == 0 && throttled == 0 ? 0 : NAN;
                if (r > 1)
                        r = 1; /* not fmin(): NAN stays NAN */
                if (isnan(r) || r <= w->throttled_ratio)
                        continue;
                w->throttled_ratio = r;
                w->throttled_seconds = us / 1e6;
        }
}

static void clock_of(const struct evidence *b, struct evidence_window *w)
{
        w->clock_hz = NAN;
        w->clock_source = NULL;
        if (isfinite(b->cycles) && b->task_ns >= EVIDENCE_MIN_PERF_NS && b->cycles > 0) {
                w->clock_hz = b->cycles / b->task_ns * 1e9;
                w->clock_source = "perf";
        } else if (isfinite(b->cur_hz) && b->cur_hz > 0) {
                w->clock_hz = b->cur_hz;
                w->clock_source = "cpufreq";
        }
}

static void disk_of(const struct evidence_disk *a, const struct evidence_disk *b,
                    double seconds, struct evidence_window_disk *w)
{
        double reads = delta(a->reads, b->reads), writes = delta(a->writes, b->writes);
        w->read_s_per_io = ratio(delta(a->read_ms, b->read_ms) / 1e3, reads);
        w->write_s_per_io = ratio(delta(a->write_ms, b->write_ms) / 1e3, writes);
        w->busy_ratio = ratio(delta(a->io_ms, b->io_ms) / 1e3, seconds);
        if (w->busy_ratio > 1)
                w->busy_ratio = 1; /* tick rounding; fmin() would turn NAN into 1 */
        w->queue_depth = ratio(delta(a->queue_ms, b->queue_ms) / 1e3, seconds);
        w->ios = reads + writes;
}

static void nvme_of(const struct nvme_health *a, const struct nvme_health *b,
                    struct evidence_window_nvme *w)
{
        w->ok = true;
        w->critical_warning = b->critical_warning;
        w->temperature_celsius = b->temperature_celsius;
        w->used_ratio = b->percentage_used;
        w->media_errors = delta(a->media_errors, b->media_errors);
        for (int t = 0; t < 2; t++) {
                w->thermal_transitions[t] =
                        delta(a->thermal_transitions[t], b->thermal_transitions[t]);
                w->thermal_seconds[t] = delta(a->thermal_seconds[t], b->thermal_seconds[t]);
        }
}

static void kmsg_of(const struct evidence *a, const struct evidence *b,
                    struct evidence_window *w)
{
        w->kmsg_ok = a->kmsg_ok && b->kmsg_ok;
        for (int k = 0; k < KMSG_N_KINDS; k++)
                w->kmsg[k] = w->kmsg_ok ? delta((double)a->kmsg_prev.kind[k],
                                                (double)b->kmsg.kind[k]) : NAN;
        w->kmsg_lost = w->kmsg_ok ? delta((double)a->kmsg_prev.lost, (double)b->kmsg.lost) : NAN;
}

void evidence_window_between(const struct evidence_host *h, const struct evidence *a,
                             const struct evidence *b, struct evidence_window *w)
{
        memset(w, 0, sizeof(*w));
        w->seconds = b->mono - a->mono;
        throttling(h, a, b, w);
        clock_of(b, w);
        w->scaling_max_hz = b->scaling_max_hz;
        w->cpuinfo_max_hz = b->cpuinfo_max_hz;
        memcpy(w->governor, b->governor, sizeof(w->governor));
        for (int s = 0; s < EVIDENCE_N_SCOPES; s++) {
                w->throttle_events[s] = delta(a->throttle_events[s], b->throttle_events[s]);
                w->throttle_seconds[s] = delta(a->throttle_ms[s], b->throttle_ms[s]) / 1e3;
        }
        w->edac_ce = delta(a->edac_ce, b->edac_ce);
        w->edac_ue = delta(a->edac_ue, b->edac_ue);
        w->mem_total = b->mem_total;
        w->hw_corrupted = b->hw_corrupted;
        w->cpus_online = b->cpus_online;
        w->n_disks = evidence_host_n_disks(h);
        for (size_t i = 0; i < w->n_disks; i++)
                disk_of(&a->disk[i], &b->disk[i], w->seconds, &w->disk[i]);
        w->n_nvme = evidence_host_n_nvme(h);
        for (size_t i = 0; i < w->n_nvme; i++)
                if (a->nvme_ok[i] && b->nvme_ok[i])
                        nvme_of(&a->nvme[i], &b->nvme[i], &w->nvme[i]);
        kmsg_of(a, b, w);
}

/* ---- as metric families ----------------------------------------------------- */

/* Adds v unless it is unknown or an earlier add failed (*r < 0). */
static void add(int *r, struct result *res, const char *name, const char *help,
                const char *const *labels, double v)
{
        if (*r >= 0 && isfinite(v))
                *r = result_add(res, name, help, METRIC_GAUGE, labels, v, NULL);
}

static void add_cpu(int *r, const struct evidence_window *w, struct result *res)
{
        const char *src[] = { "source", w->clock_source, NULL };
        const char *scaling[] = { "limit", "scaling", NULL };
        const char *hardware[] = { "limit", "hardware", NULL };
        const char *gov[] = { "governor", w->governor, NULL };
        add(r, res, "benchwatch_probe_cpu_throttled_ratio",
            "Share of the CPU quota periods during the run in which the daemon's cgroup (or "
            "one above it) was throttled (cpu.stat nr_throttled / nr_periods)", NULL,
            w->throttled_ratio);
        add(r, res, "benchwatch_probe_cpu_throttled_seconds",
            "Time the daemon's cgroup was throttled during the run (cpu.stat)", NULL,
            w->throttled_seconds);
        if (w->clock_source)
                add(r, res, "benchwatch_probe_cpu_clock_hertz",
                    "Effective CPU clock of the run: the probe's cycles per second on a CPU "
                    "(perf), or the mean scaling_cur_freq at its end (cpufreq)", src,
                    w->clock_hz);
        static const char max_help[] =
                "Highest CPU clock allowed: by cpufreq's policy (scaling, the lowest of the "
                "CPUs) and by the hardware (cpuinfo_max_freq)";
        add(r, res, "benchwatch_probe_cpu_max_hertz", max_help, scaling, w->scaling_max_hz);
        add(r, res, "benchwatch_probe_cpu_max_hertz", max_help, hardware, w->cpuinfo_max_hz);
        if (*w->governor)
                add(r, res, "benchwatch_probe_cpufreq_governor_info",
                    "The cpufreq governors in use (scaling_governor), comma-separated", gov, 1);
}

static void add_thermal_memory(int *r, const struct evidence_window *w, struct result *res)
{
        static const char *const scope[EVIDENCE_N_SCOPES] = { "core", "package" };
        for (int s = 0; s < EVIDENCE_N_SCOPES; s++) {
                const char *lv[] = { "scope", scope[s], NULL };
                add(r, res, "benchwatch_probe_thermal_throttle_events",
                    "Thermal throttling events of the CPUs during the run, each core or package "
                    "once (thermal_throttle/*_throttle_count)", lv, w->throttle_events[s]);
                add(r, res, "benchwatch_probe_thermal_throttle_seconds",
                    "Time the CPUs spent throttled for heat during the run, summed over cores "
                    "or packages (thermal_throttle/*_throttle_total_time_ms)", lv,
                    w->throttle_seconds[s]);
        }
        add(r, res, "benchwatch_probe_edac_corrected_errors",
            "Corrected memory errors reported by EDAC during the run", NULL, w->edac_ce);
        add(r, res, "benchwatch_probe_edac_uncorrected_errors",
            "Uncorrected memory errors reported by EDAC during the run", NULL, w->edac_ue);
        add(r, res, "benchwatch_probe_memory_hardware_corrupted_bytes",
            "Memory the kernel took out of use for hardware errors (HardwareCorrupted)", NULL,
            w->hw_corrupted);
        add(r, res, "benchwatch_probe_memory_total_bytes", "MemTotal at the run's end", NULL,
            w->mem_total);
        add(r, res, "benchwatch_probe_cpus_online", "Online CPUs at the run's end", NULL,
            w->cpus_online);
}

static void add_disk(int *r, const char *dev, const struct evidence_window_disk *d,
                     struct result *res)
{
        const char *rd[] = { "device", dev, "op", "read", NULL };
        const char *wr[] = { "device", dev, "op", "write", NULL };
        const char *lv[] = { "device", dev, NULL };
        static const char per_io_help[] =
                "Device time per completed I/O of the disk during the run, all its users' I/O "
                "(/sys/block/DEV/stat ticks / I/Os: iostat's r_await, w_await)";
        add(r, res, "benchwatch_probe_disk_seconds_per_io", per_io_help, rd, d->read_s_per_io);
        add(r, res, "benchwatch_probe_disk_seconds_per_io", per_io_help, wr, d->write_s_per_io);
        add(r, res, "benchwatch_probe_disk_busy_ratio",
            "Share of the run in which the disk had I/O in flight (io_ticks: iostat's %util)",
            lv, d->busy_ratio);
        add(r, res, "benchwatch_probe_disk_queue_depth",
            "Mean I/Os in flight on the disk during the run (time_in_queue: iostat's aqu-sz)",
            lv, d->queue_depth);
}

static void add_nvme(int *r, const char *dev, const struct evidence_window_nvme *n,
                     struct result *res)
{
        static const char *const level[2] = { "t1", "t2" };
        const char *lv[] = { "device", dev, NULL };
        if (!n->ok)
                return;
        add(r, res, "benchwatch_probe_nvme_critical_warning",
            "The NVMe controller's critical warning bits at the run's end (SMART log byte 0)",
            lv, n->critical_warning);
        add(r, res, "benchwatch_probe_nvme_temperature_celsius",
            "The NVMe controller's composite temperature at the run's end", lv,
            n->temperature_celsius);
        add(r, res, "benchwatch_probe_nvme_used_ratio",
            "The NVMe device's estimate of its life used (SMART percentage used / 100)", lv,
            n->used_ratio);
        add(r, res, "benchwatch_probe_nvme_media_errors",
            "Media and data integrity errors the NVMe controller counted during the run", lv,
            n->media_errors);
        for (int t = 0; t < 2; t++) {
                const char *tl[] = { "device", dev, "level", level[t], NULL };
                add(r, res, "benchwatch_probe_nvme_thermal_transitions",
                    "Times the NVMe controller entered thermal management (T1: light, T2: "
                    "heavy throttling) during the run", tl, n->thermal_transitions[t]);
                add(r, res, "benchwatch_probe_nvme_thermal_seconds",
                    "Time the NVMe controller spent in thermal management during the run", tl,
                    n->thermal_seconds[t]);
        }
}

static void add_kmsg(int *r, const struct evidence_window *w, struct result *res)
{
        if (!w->kmsg_ok)
                return;
        for (int k = 0; k < KMSG_N_KINDS; k++) {
                const char *lv[] = { "kind", kmsg_kind_names[k], NULL };
                add(r, res, "benchwatch_probe_kernel_log_events",
                    "Kernel log records of the kind since the previous run's end (/dev/kmsg)",
                    lv, w->kmsg[k]);
        }
        add(r, res, "benchwatch_probe_kernel_log_lost_records",
            "Kernel log records overwritten before they were read, since the previous run's "
            "end", NULL, w->kmsg_lost);
}

/* Whether name is in the comma-separated list (NULL: every name); with
 * prefix, whether an item starts with name followed by 'n' (nvme0 of
 * nvme0n1). */
static bool listed(const char *list, const char *name, bool prefix)
{
        size_t n = strlen(name);
        for (const char *p = list; p && *p;) {
                size_t len = strcspn(p, ",");
                if (prefix ? len > n && !strncmp(p, name, n) && p[n] == 'n'
                           : len == n && !strncmp(p, name, n))
                        return true;
                p += len + (p[len] == ',');
        }
        return !list;
}

int evidence_window_add_metrics(const struct evidence_host *h, const struct evidence_window *w,
                                const char *devices, struct result *res)
{
        int r = 0;
        add_cpu(&r, w, res);
        add_thermal_memory(&r, w, res);
        for (size_t i = 0; i < w->n_disks; i++)
                if (listed(devices, evidence_host_disk(h, i), false))
                        add_disk(&r, evidence_host_disk(h, i), &w->disk[i], res);
        for (size_t i = 0; i < w->n_nvme; i++)
                if (listed(devices, evidence_host_nvme(h, i), true))
                        add_nvme(&r, evidence_host_nvme(h, i), &w->nvme[i], res);
        add_kmsg(&r, w, res);
        return r;
}
