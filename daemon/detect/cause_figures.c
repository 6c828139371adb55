/* cause_figures.c — see cause_figures.h. */
#include "detect/cause_figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first sample of family matching the labels, or NAN. */
static double one(const struct result *res, const char *family, const char *name,
                  const char *value)
{
        const char *match[] = { name, value, NULL };
        const struct sample *s = result_find_sample(res, family, name ? match : NULL);
        return s ? s->value : NAN;
}

/* The sum of every sample of family, or NAN when it has none. */
static double sum(const struct result *res, const char *family)
{
        const struct family *f = result_find(res, family);
        double total = 0;
        if (!f || !f->n_samples)
                return NAN;
        for (size_t i = 0; i < f->n_samples; i++)
                total += f->samples[i].value;
        return total;
}

/* The run's disk: the first device of its benchwatch_disk_info, else the
 * only one of its evidence; "" when neither says. */
static void run_device(const struct result *res, char *buf, size_t size)
{
        const struct sample *s = result_find_sample(res, "benchwatch_disk_info", NULL);
        const char *dev = s ? result_sample_label(s, "device") : NULL;
        const struct family *f = result_find(res, "benchwatch_probe_disk_queue_depth");
        if (!dev && f && f->n_samples == 1)
                dev = result_sample_label(&f->samples[0], "device");
        snprintf(buf, size, "%.*s", dev ? (int)strcspn(dev, ",") : 0, dev ? dev : "");
}

static void disk_figures(const struct result *res, struct cause_run *r)
{
        char dev[128];
        run_device(res, dev, sizeof(dev));
        if (!*dev)
                return;
        const char *rd[] = { "device", dev, "op", "read", NULL };
        const char *wr[] = { "device", dev, "op", "write", NULL };
        const struct sample *s;
        if ((s = result_find_sample(res, "benchwatch_probe_disk_seconds_per_io", rd)))
                r->f[CAUSE_F_DISK_READ] = s->value;
        if ((s = result_find_sample(res, "benchwatch_probe_disk_seconds_per_io", wr)))
                r->f[CAUSE_F_DISK_WRITE] = s->value;
        r->f[CAUSE_F_DISK_QUEUE] = one(res, "benchwatch_probe_disk_queue_depth", "device", dev);
}

/* The larger of two levels, either NAN when absent. */
static double larger(double a, double b)
{
        return isnan(a) ? b : isnan(b) ? a : fmax(a, b);
}

/* A gpu run's faults: its ECC errors, remapped rows and PCIe replays
 * since the GPU's previous run (gpu_health.h), whether a remapping
 * waits or failed, its Xids, and its link during the copies. */
static void gpu_fault_figures(const struct result *res, struct cause_run *r)
{
        const char *const since = "benchwatch_gpu_ecc_errors_since_last_run";
        r->f[CAUSE_F_GPU_ECC_CE] = one(res, since, "type", "corrected");
        r->f[CAUSE_F_GPU_ECC_UE] = one(res, since, "type", "uncorrected");
        r->f[CAUSE_F_GPU_REMAPPED] = sum(res, "benchwatch_gpu_remapped_rows_since_last_run");
        r->f[CAUSE_F_GPU_REMAP_WAIT] = larger(one(res, "benchwatch_gpu_remapped_rows_pending",
                                                  NULL, NULL),
                                              one(res, "benchwatch_gpu_remapped_rows_failure",
                                                  NULL, NULL));
        r->f[CAUSE_F_GPU_XID] = one(res, "benchwatch_gpu_xid_errors", NULL, NULL);
        r->f[CAUSE_F_GPU_REPLAYS] = one(res, "benchwatch_gpu_pcie_replays_since_last_run", NULL,
                                        NULL);
        r->f[CAUSE_F_GPU_LINK_GEN] = one(res, "benchwatch_gpu_pcie_link_generation", NULL, NULL);
        r->f[CAUSE_F_GPU_LINK_WIDTH] = one(res, "benchwatch_gpu_pcie_link_width", NULL, NULL);
}

/* A gpu run's health (one GPU a run): the share of the run its clocks
 * were held for heat and for power, summed over those reasons (each a
 * share of the same run; they may overlap, so capped at 1), its SM
 * clock, and its faults. */
static void gpu_figures(const struct result *res, struct cause_run *r)
{
        static const char *const heat[] = { "hw_thermal", "sw_thermal", NULL };
        static const char *const power[] = { "hw_power_brake", "sw_power_cap", "hw_slowdown",
                                             NULL };
        const char *const *which[] = { heat, power };
        const int f[] = { CAUSE_F_GPU_HEAT, CAUSE_F_GPU_POWER };
        for (size_t k = 0; k < 2; k++) {
                double total = NAN;
                for (const char *const *reason = which[k]; *reason; reason++) {
                        double v = one(res, "benchwatch_gpu_clock_event_ratio", "reason", *reason);
                        if (!isnan(v))
                                total = isnan(total) ? v : total + v;
                }
                r->f[f[k]] = isnan(total) ? NAN : fmin(total, 1);
        }
        r->f[CAUSE_F_GPU_CLOCK] = one(res, "benchwatch_gpu_sm_clock_hertz", NULL, NULL);
        gpu_fault_figures(res, r);
}

void cause_figures_of(const struct result *res, struct cause_run *r)
{
        static const struct { int f; const char *family, *label, *value; } direct[] = {
                { CAUSE_F_THROTTLED, "benchwatch_probe_cpu_throttled_ratio", NULL, NULL },
                { CAUSE_F_THROTTLED_S, "benchwatch_probe_cpu_throttled_seconds", NULL, NULL },
                { CAUSE_F_CLOCK, "benchwatch_probe_cpu_clock_hertz", NULL, NULL },
                { CAUSE_F_SCALING_MAX, "benchwatch_probe_cpu_max_hertz", "limit", "scaling" },
                { CAUSE_F_RUN_DELAY, "benchwatch_probe_run_delay_ratio", NULL, NULL },
                { CAUSE_F_OTHERS_CPU, "benchwatch_probe_others_cpu_ratio", NULL, NULL },
                { CAUSE_F_STEAL, "benchwatch_probe_steal_ratio", NULL, NULL },
                { CAUSE_F_EDAC_CE, "benchwatch_probe_edac_corrected_errors", NULL, NULL },
                { CAUSE_F_EDAC_UE, "benchwatch_probe_edac_uncorrected_errors", NULL, NULL },
                { CAUSE_F_HW_CORRUPTED, "benchwatch_probe_memory_hardware_corrupted_bytes", NULL,
                  NULL },
                { CAUSE_F_MEM_PRESSURE, "benchwatch_probe_pressure_ratio", "resource", "memory" },
                { CAUSE_F_MAJOR_FAULTS, "benchwatch_probe_major_page_faults", NULL, NULL },
                { CAUSE_F_MEM_TOTAL, "benchwatch_probe_memory_total_bytes", NULL, NULL },
                { CAUSE_F_CPUS_ONLINE, "benchwatch_probe_cpus_online", NULL, NULL },
                { CAUSE_F_OTHERS_IO, "benchwatch_probe_others_disk_bytes_per_second", NULL, NULL },
                { CAUSE_F_LOG_IO_ERROR, "benchwatch_probe_kernel_log_events", "kind", "io_error" },
                { CAUSE_F_LOG_RESET, "benchwatch_probe_kernel_log_events", "kind", "reset" },
                { CAUSE_F_LOG_MACHINE_CHECK, "benchwatch_probe_kernel_log_events", "kind",
                  "machine_check" },
                { CAUSE_F_LOG_EDAC, "benchwatch_probe_kernel_log_events", "kind", "edac" },
                { CAUSE_F_LOG_XID, "benchwatch_probe_kernel_log_events", "kind", "xid" },
        };
        cause_run_init(r);
        for (size_t i = 0; i < sizeof(direct) / sizeof(*direct); i++)
                r->f[direct[i].f] = one(res, direct[i].family, direct[i].label, direct[i].value);
        /* the runner's share waited, as the share got; not of a probe that
         * waits on a device or a server: each short wake-up of its threads
         * waits for a CPU too, a share of little time on a CPU that moves
         * with anything (a disk twice as slow: 0.43 to 0.28 on this VM)
         * and says nothing of a neighbour.  Its run delay, the share of
         * the run, does (tracker.h counts its runs by it too). */
        if (!res->io_bound)
                r->f[CAUSE_F_ON_CPU] = 1 - one(res, "benchwatch_probe_cpu_wait_ratio", NULL,
                                               NULL);
        gpu_figures(res, r);
        r->f[CAUSE_F_CPU_HEAT] = sum(res, "benchwatch_probe_thermal_throttle_events");
        r->f[CAUSE_F_NVME_HEAT] = sum(res, "benchwatch_probe_nvme_thermal_transitions");
        r->f[CAUSE_F_NVME_MEDIA] = sum(res, "benchwatch_probe_nvme_media_errors");
        disk_figures(res, r);
}
