/* blockdev.h — which physical block device a disk figure was measured on.
 *
 * A figure says little to a fleet operator without the device behind it:
 * "is this host's disk slower than other hosts' disks of the same model?"
 * needs the model, and "what changed?" needs the firmware and the I/O
 * scheduler.  The path a probe uses (a test file, or a device) is resolved
 * through sysfs the way node_exporter's node_disk_info names devices:
 * the filesystem's device, a partition to its disk, device-mapper and md
 * to the disks beneath (several, comma-separated, for an array), a loop
 * device to the device holding its backing file.  What cannot be resolved
 * (tmpfs, overlay, NFS: no block device) is said plainly. */
#ifndef BENCHWATCH_BLOCKDEV_H
#define BENCHWATCH_BLOCKDEV_H

#include <stdbool.h>

#include "core/plugin.h"

struct blockdev_info {
        bool resolved;
        char device[256];    /* "vda", "nvme0n1", "sda,sdb" */
        char model[128];     /* of the first device, "" when sysfs has none */
        char firmware[64];
        char serial[128];
        char rotational[4];  /* "0" or "1" */
        char scheduler[32];  /* the one in use: "mq-deadline", "none" */
        char why[256];       /* !resolved: why not */
};

/* Emit benchwatch_disk_info{device,model,firmware,serial,rotational,
 * scheduler} for path (with reason= instead when it cannot be resolved). */
void blockdev_report(const struct bw_host *h, const char *path);

#endif
