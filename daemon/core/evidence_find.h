/* evidence_find.h — where a host keeps the counters of evidence.h.
 *
 * Finding the sources walks directories (every CPU's topology, every
 * memory controller, every block device) and tries the kernel log, perf
 * and each NVMe controller: too slow to repeat around every run, so it is
 * done once, when the host is opened, into the list of files a snapshot
 * reads (evidence.c).  This header is that list's shape, shared by the
 * two files only.  Nothing here logs. */
#ifndef BENCHWATCH_EVIDENCE_FIND_H
#define BENCHWATCH_EVIDENCE_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evidence.h"
#include "core/evidence_read.h"
#include "core/kmsg.h"

/* Files kept open between snapshots (evidence_read.h); past it, a file is
 * opened per read.  A daemon's soft limit is 1024 descriptors. */
#define EVIDENCE_MAX_KEPT 384

/* Where a counter file's value goes in a snapshot: cpufreq's are in kHz
 * (mean of scaling_cur_freq, lowest scaling_max_freq, highest
 * cpuinfo_max_freq); the others are summed. */
enum evidence_slot {
        EVIDENCE_S_CUR_HZ,
        EVIDENCE_S_SCALING_MAX,
        EVIDENCE_S_CPUINFO_MAX,
        EVIDENCE_S_CORE_EVENTS,
        EVIDENCE_S_PKG_EVENTS,
        EVIDENCE_S_PKG_MS,
        EVIDENCE_S_EDAC_CE,
        EVIDENCE_S_EDAC_UE,
        EVIDENCE_N_SLOTS
};

struct evidence_reading {
        struct evidence_file file;
        enum evidence_slot slot;
};

struct evidence_host {
        char *root;
        struct evidence_reading *reads;
        size_t n_reads, cap_reads;
        struct evidence_file governor[EVIDENCE_CPU_SAMPLE];
        size_t n_governors;
        struct evidence_file cgroup_stat[EVIDENCE_MAX_CGROUP_LEVELS]; /* own group first */
        size_t n_cgroup;
        struct evidence_file meminfo, online;   /* path NULL: absent */
        char *disk_name[EVIDENCE_MAX_DISKS];
        struct evidence_file disk_stat[EVIDENCE_MAX_DISKS];
        size_t n_disks;
        size_t n_kept;                  /* files kept open */
        char *nvme_name[EVIDENCE_MAX_NVME], *nvme_dev[EVIDENCE_MAX_NVME];
        size_t n_nvme;
        struct kmsg_reader *kmsg;
        struct kmsg_counts kmsg_last;   /* at the last snapshot */
        bool has[EVIDENCE_N_SOURCES];
        char why[EVIDENCE_N_SOURCES][96]; /* why a source is absent */
};

/* Fills h (h->root set) with every source found.  0 or -ENOMEM. */
int evidence_find_all(struct evidence_host *h, uint64_t kmsg_after_seq);
/* Closes and frees every file of h's lists. */
void evidence_find_clear(struct evidence_host *h);

#endif
