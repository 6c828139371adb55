/* cause.h — the most likely cause of a regression, with its numbers.
 *
 * A verdict that says only "cpu events/s -14%" leaves the operator to
 * find out whether the CPU got slower or the host did something to the
 * run.  Each run carries its evidence (core/evidence_window.h, and the
 * runner's and scheduler's figures: run delay, others' CPU, steal,
 * pressure); this compares the evidence of the runs that entered the
 * regression with that of the reference's runs and names the cause from
 * a fixed set, in this order, the first whose evidence holds:
 *   inventory        MemTotal or the online CPUs differ from the reference's;
 *                    of a gpu probe, its PCIe link trained to a lower
 *                    generation or fewer lanes during the copies
 *   kernel_log       I/O errors, resets, machine checks or GPU Xids logged;
 *                    of a gpu probe, the Xid errors NVML reported for it
 *   memory_errors    EDAC corrected or uncorrected errors, HardwareCorrupted;
 *                    of a gpu probe, its ECC errors and remapped rows
 *   heat             the CPUs throttled for heat, or the NVMe controller;
 *                    of a gpu probe, the GPU's clocks held for heat
 *   cpu_quota        the daemon's cgroup throttled by its CPU quota
 *   clock            the effective clock below the reference's; of a gpu
 *                    probe, the GPU's SM clock, or its clocks held for
 *                    power (the CPUs' heat and clock set no GPU figure and
 *                    are not its cause)
 *   hypervisor       the hypervisor stole CPU time (of a tail whose
 *                    median held, CAUSE_TAIL_MIN_WAIT, unless the run
 *                    waited more)
 *   memory_pressure  tasks stalled on memory (PSI, any task's), or the
 *                    probe's own major page faults; before the neighbour:
 *                    a probe that pages sleeps and wakes for its pages,
 *                    and each wake-up waits for a CPU on a busy host (its
 *                    run delay rises with the stalls), while a neighbour
 *                    taking the CPU stalls no one on memory
 *   neighbour        the probe's threads waited for a CPU (run delay,
 *                    on-CPU ratio); of a tail whose median held (tail
 *                    below), by CAUSE_TAIL_MIN_WAIT
 *   disk_queue       a deeper queue on the disk: others' I/O
 *   disk_device      the disk took longer per I/O at the same queue
 *   host             independent probes (another resource) regressed
 *                    too, or the probe's other devices (gpu=all's other
 *                    GPUs) regressed in the same figure from the same time
 *   component        none of these: the component itself (of a gpu probe,
 *                    with its PCIe replays where they rose); said with the
 *                    probes of other resources that ran since in no
 *                    regression, or that none did where nothing else
 *                    told it from the host (then the whole host slowing
 *                    where no counter shows, as a VM's may, is not ruled
 *                    out); of a tail whose median held, said as likely
 *                    held up where no counter shows as the part's fault
 * Each rule is a simple threshold: the evidence must be there in at least
 * half of the regressed runs, and beyond the reference runs' spread (their
 * 90th percentile, or 10th where lower is the sign) by a margin that a
 * person would call clear (CAUSE_* below); counts of events must exceed
 * what a reference run had.  A cause is never named without the numbers
 * that made it, and the component is never blamed while other resources
 * regressed with it.  A cause that reaches every probe alike (a CPU quota,
 * the clock, heat, the hypervisor, a neighbour, memory pressure), found
 * while independent probes regressed together, is said as part of the
 * host's event ("host": "the memory and disklat probes regressed within
 * 30min too; CPU quota: throttled in 50% ..."): one event, not one per
 * probe.  Pure computation; nothing here logs. */
#ifndef BENCHWATCH_CAUSE_H
#define BENCHWATCH_CAUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "detect/detector.h"

enum cause_kind {
        CAUSE_INVENTORY,
        CAUSE_KERNEL_LOG,
        CAUSE_MEMORY_ERRORS,
        CAUSE_HEAT,
        CAUSE_CPU_QUOTA,
        CAUSE_CLOCK,
        CAUSE_HYPERVISOR,
        CAUSE_MEMORY_PRESSURE,
        CAUSE_NEIGHBOUR,
        CAUSE_DISK_QUEUE,
        CAUSE_DISK_DEVICE,
        CAUSE_HOST,
        CAUSE_COMPONENT,
        CAUSE_N_KINDS
};
/* For Prometheus (cause="cpu_quota") and for people ("CPU quota"). */
extern const char *const cause_labels[CAUSE_N_KINDS];
extern const char *const cause_names[CAUSE_N_KINDS];

/* The figures a run's evidence has (cause_figures.h reads them from a
 * result); NAN where the run has none. */
enum cause_figure {
        CAUSE_F_THROTTLED,      /* ratio of quota periods */
        CAUSE_F_THROTTLED_S,    /* seconds */
        CAUSE_F_CLOCK,          /* hertz */
        CAUSE_F_SCALING_MAX,    /* hertz */
        CAUSE_F_ON_CPU,         /* ratio: 1 - benchwatch_probe_cpu_wait_ratio, of a
                                 * CPU-bound run (not res->io_bound) */
        CAUSE_F_RUN_DELAY,      /* ratio of the run */
        CAUSE_F_OTHERS_CPU,     /* ratio of the host's CPU time */
        CAUSE_F_STEAL,          /* ratio */
        CAUSE_F_CPU_HEAT,       /* events, cores and packages */
        CAUSE_F_NVME_HEAT,      /* thermal management transitions */
        CAUSE_F_EDAC_CE,        /* events */
        CAUSE_F_EDAC_UE,        /* events */
        CAUSE_F_HW_CORRUPTED,   /* bytes, a level */
        CAUSE_F_MEM_PRESSURE,   /* ratio (PSI some) */
        CAUSE_F_MEM_TOTAL,      /* bytes */
        CAUSE_F_CPUS_ONLINE,
        CAUSE_F_DISK_READ,      /* seconds per read of the run's disk */
        CAUSE_F_DISK_WRITE,     /* seconds per write */
        CAUSE_F_DISK_QUEUE,     /* mean I/Os in flight */
        CAUSE_F_OTHERS_IO,      /* others' disk bytes per second */
        CAUSE_F_LOG_IO_ERROR,   /* kernel log records, by kind */
        CAUSE_F_LOG_RESET,
        CAUSE_F_LOG_MACHINE_CHECK,
        CAUSE_F_LOG_EDAC,
        CAUSE_F_LOG_XID,
        CAUSE_F_NVME_MEDIA,     /* media errors */
        CAUSE_F_GPU_HEAT,       /* ratio of the run a GPU's clocks were held for
                                 * heat (NVML: HW and SW thermal) */
        CAUSE_F_GPU_POWER,      /* ratio held for power (power brake, SW power
                                 * cap) or by the board (HW slowdown) */
        CAUSE_F_GPU_CLOCK,      /* hertz, the GPU's SM clock during the run */
        CAUSE_F_MAJOR_FAULTS,   /* the probe process's major page faults */
        CAUSE_F_GPU_ECC_CE,     /* a GPU's ECC errors since its previous run */
        CAUSE_F_GPU_ECC_UE,
        CAUSE_F_GPU_REMAPPED,   /* its memory rows remapped since, both kinds */
        CAUSE_F_GPU_REMAP_WAIT, /* 1: a row remapping waits for a reset or failed */
        CAUSE_F_GPU_XID,        /* Xid errors NVML reported during the run */
        CAUSE_F_GPU_REPLAYS,    /* PCIe replays since its previous run */
        CAUSE_F_GPU_LINK_GEN,   /* its PCIe link during the copies */
        CAUSE_F_GPU_LINK_WIDTH,
        CAUSE_N_FIGURES
};

struct cause_run {
        double f[CAUSE_N_FIGURES];
};

/* The reference's runs, figure by figure: the median, the 10th and 90th
 * percentiles of the runs that had it, and how many had it. */
struct cause_reference {
        double median[CAUSE_N_FIGURES], low[CAUSE_N_FIGURES], high[CAUSE_N_FIGURES];
        size_t n[CAUSE_N_FIGURES];
};

/* Summarises runs[0..n) (NAN figures left out); 0 or -ENOMEM. */
int cause_reference_of(const struct cause_run *runs, size_t n, struct cause_reference *ret);

/* A run whose every figure is NAN. */
void cause_run_init(struct cause_run *r);

struct cause_input {
        const struct cause_run *runs;   /* the runs that entered the regression */
        size_t n_runs;
        const struct cause_reference *ref;
        enum detector_direction direction;
        double change;                  /* the figure's change: -0.14 */
        const char *plugin;             /* this probe's plugin ("cpu", "disk") */
        /* plugins of the other probes that entered a regression within
         * others_window seconds (NULL-terminated; NULL: none) */
        const char *const *others;
        double others_window;
        /* plugins of the other probes judged on a run counted since the
         * probe's regression began, in no regression (NULL-terminated):
         * what tells the component from the whole host; NULL: not known
         * (verify, or a daemon started since).  Of a probe bound to the
         * CPU, only those bound to it too: a disk or a server as fast as
         * before says nothing of the host's CPUs */
        const char *const *ran_clean;
        /* of a probe bound to the CPU, the other probes that ran so but
         * wait on a device or a server (result.io_bound), left out of
         * ran_clean (NULL-terminated; NULL: none) */
        const char *const *ran_clean_waiting;
        /* the probe's other devices (the gpu probe's other GPUs, gpu=all)
         * with a run counted since its regression began, each of their
         * figures judged in no regression (NULL-terminated; NULL: none):
         * parts of the same kind on the same host, as fast as before */
        const char *const *devices_clean;
        /* the probe's other devices whose same figure is in regression
         * too, their change between the same runs as this one's (each
         * device's last run before its regression and first in it
         * overlap; NULL-terminated; NULL: none): the host's, or what all
         * its parts share (a driver, the chassis' power), not this part's */
        const char *const *devices_regressed;
        /* of a latency quantile above the median (a p99) of a probe bound
         * to the CPU whose median of the same events is judged in no
         * regression, nor any figure of the probe but such tails (its
         * rate), the share of events above it (0.01); else 0.  A
         * slower part slows every event; a run held up now and then (a
         * task that took the CPU, the hypervisor) slows its slowest
         * events only, and waits of a percent or two of the run are then
         * the whole story (the neighbour's and hypervisor's thresholds
         * are CAUSE_TAIL_MIN_WAIT's, not CAUSE_MIN_*) */
        double tail;
};

struct cause {
        enum cause_kind kind;
        const char *label, *name;       /* cause_labels[kind], cause_names[kind] */
        char *evidence;                 /* malloc'd: "throttled in 41% of ..." */
        unsigned matched;               /* bit per kind whose evidence held */
};

#define CAUSE_MIN_THROTTLED 0.05   /* of the quota periods, and beyond the reference */
#define CAUSE_MIN_STEAL 0.02
#define CAUSE_MIN_RUN_DELAY 0.05
#define CAUSE_MIN_ON_CPU_DROP 0.05
#define CAUSE_TAIL_MIN_WAIT 0.005  /* run delay or steal of a tail's verdict,
                                    * and 3 times the reference's median and
                                    * this above it */
/* What the sentence of a cause read on a tail says (tracker_cause.c keeps
 * such a cause only while it holds). */
#define CAUSE_TAIL_NOTE "the median one and the rate as in the reference"
#define CAUSE_MIN_PRESSURE 0.05
#define CAUSE_MIN_MAJOR_FAULTS 256 /* major page faults in a run (each a read
                                    * from swap or a file), and beyond the
                                    * reference */
#define CAUSE_CLOCK_DROP 0.05      /* below the reference's 10th percentile */
#define CAUSE_MIN_GPU_HELD 0.05    /* of the run a GPU's clocks held back, and
                                    * beyond the reference */
#define CAUSE_DISK_SLOWER 0.15     /* device time per I/O above the 90th */
#define CAUSE_QUEUE_DEEPER 1.5     /* times the reference's 90th, and +0.5 */

/* The most likely cause: 0 (*ret filled; cause_clear frees it), -EINVAL
 * (no runs, no reference, or a direction of none), -ENOMEM. */
int cause_find(const struct cause_input *in, struct cause *ret);
/* The cause spelt label (cause_labels[]), its evidence NULL, as stored
 * and read back: 0, or -ENOENT for a label no kind has (NULL too). */
int cause_of_label(const char *label, struct cause *ret);
void cause_clear(struct cause *c);

#endif
