/* conf_builtin.c — the configuration benchwatch runs when no file
 * exists (see conf_builtin.h), as the text a file would hold, so it goes
 * through the same loader and its errors, and `check-config` shows it. */
#include "core/conf_builtin.h"

/* 1-second runs for cpu, threads and memory latency: in 30 interleaved runs
 * of each their figures' noise at 1 s was no worse than at 2 s, for half the
 * CPU (lab/cost/durations.sh, docs/reports/cost.md), so the intervals, and with
 * them the delays to a verdict, stay.  The DRAM run stays at 2 s: most of
 * its CPU is the first touch of its arrays (2.1 CPU s at 1 s, 2.3 at 2 s)
 * and its noise rose at 1 s. */
const char conf_builtin_default[] =
        "# benchwatch's built-in configuration, used when no configuration\n"
        "# file exists: probes that need no server, 1- and 2-second runs every\n"
        "# 10 to 30 minutes (about 0.25% of a 2-core host; a 15% loss is flagged\n"
        "# after 3 to 4 runs). See benchwatch.conf for every option.\n"
        "[daemon]\n"
        "interval = 30min\n"
        "timeout = 1min\n"
        "\n"
        "[probe cpu]\n"
        "plugin = cpu\n"
        "interval = 10min\n"
        "duration = 1s\n"
        "\n"
        "[probe threads]\n"
        "plugin = threads\n"
        "duration = 1s\n"
        "\n"
        "# DRAM bandwidth (STREAM copy and triad far beyond the last-level\n"
        "# cache): what a slower DIMM or a lost memory channel changes\n"
        "[probe memory]\n"
        "plugin = memory\n"
        "mode = dram\n"
        "interval = 20min\n"
        "duration = 2s\n"
        "\n"
        "# memory latency (a dependent pointer chase far beyond the last-level\n"
        "# cache, as lmbench's lat_mem_rd): what a lower memory speed changes\n"
        "[probe memory-latency]\n"
        "plugin = memory\n"
        "mode = latency\n"
        "duration = 1s\n"
        "\n"
        "# every probe's latest figures, for node_exporter's textfile collector\n"
        "[textfile]\n"
        "path = benchwatch.prom\n";

/* A disk's read latency as ioping -D measures it: 500 reads of 4 kB a
 * run, one at a time, 10 ms apart, where the saturating disk plugin read
 * about 50,000 (1.7 GB an hour, and up to a CPU of the host's hypervisor
 * while it ran: bench/compare/ioping.sh); its p50 is as steady from run to run.
 * 1 GiB: larger than the caches of disks (64 to 512 MiB on HDDs), so the
 * device itself answers; written once, kept in cache_dir.  Named after
 * its plugin, as the others: a probe named "disk" here would take the
 * word from the disk plugin, and `benchwatch run disk threads=40` would
 * run this probe (and refuse threads=). */
const char conf_builtin_disk[] =
        "\n"
        "# a disk's read latency (ioping -D: a 4 kB O_DIRECT read every 10 ms\n"
        "# at random offsets of a 1 GiB test file); the disk plugin measures\n"
        "# IOPS where a probe of it is configured\n"
        "[probe disklat]\n"
        "plugin = disklat\n"
        "size = 1G\n"
        "rate = 100\n"
        "duration = 5s\n";
