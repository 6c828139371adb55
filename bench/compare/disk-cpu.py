#!/usr/bin/env python3
"""bench/compare/disk-cpu.py — the rounds of disk-cpu.sh (see there).

argv: ROUNDS SECONDS FILE SIZE IODEPTH CONF; env BENCHWATCH, IRQ.  Per run
and tool: the IOPS it reported; the reads its disk completed
(/proc/diskstats, the device under FILE); its own user and system CPU and
voluntary context switches (getrusage of the child); the interrupts of
the /proc/interrupts lines whose name contains IRQ; all per read."""
import json
import os
import resource
import statistics
import subprocess
import sys

ROUNDS, SECS, FILE, SIZE, DEPTH, CONF = (int(sys.argv[1]), sys.argv[2], sys.argv[3],
                                         sys.argv[4], sys.argv[5], sys.argv[6])
BW = os.environ.get("BENCHWATCH", "benchwatch")
IRQ = os.environ.get("IRQ", "-req")


def disk_name(path):
    dev = os.stat(path).st_dev
    uevent = "/sys/dev/block/%d:%d/uevent" % (os.major(dev), os.minor(dev))
    try:
        for line in open(uevent):
            if line.startswith("DEVNAME="):
                return line.split("=", 1)[1].strip()
    except OSError as err:
        sys.exit("disk-cpu: %s is on no block device whose reads "
                 "/proc/diskstats counts (%s)" % (path, err))
    sys.exit("disk-cpu: no DEVNAME in %s" % uevent)


DISK = disk_name(FILE)


def reads_done():
    for line in open("/proc/diskstats"):
        f = line.split()
        if f[2] == DISK:
            return int(f[3])
    sys.exit("disk-cpu: %s is not in /proc/diskstats" % DISK)


def irqs():
    total = 0
    for line in open("/proc/interrupts"):
        f = line.split()
        if f and f[0].endswith(":") and IRQ in f[-1]:
            total += sum(int(x) for x in f[1:] if x.isdigit())
    return total


def run(argv):
    """argv's standard output; its error output and exit on failure."""
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("disk-cpu: %s exited with %d: %s" % (argv[0], p.returncode,
                                                     (p.stderr or p.stdout)[-400:]))
    return p.stdout


def fio():
    out = run(["fio", "--name=diskcpu", "--filename=" + FILE, "--rw=randread",
               "--bs=16k", "--direct=1", "--ioengine=libaio", "--iodepth=" + DEPTH,
               "--size=" + SIZE, "--time_based", "--runtime=" + SECS,
               "--output-format=json"])
    return json.loads(out[out.index("{"):])["jobs"][0]["read"]["iops"]


def bench():
    out = run([BW, "-c", CONF, "run", "disk", "path=" + FILE, "size=" + SIZE,
               "mode=randread", "block_size=16k", "iodepth=" + DEPTH,
               "duration=" + SECS, "--nice=0", "--format=json"])
    for m in json.loads(out)["metrics"]:
        if m["name"] == "benchwatch_disk_iops":
            return m["samples"][0]["value"]
    sys.exit("disk-cpu: no benchwatch_disk_iops in benchwatch's report")


def measured(tool):
    r0, d0, i0 = resource.getrusage(resource.RUSAGE_CHILDREN), reads_done(), irqs()
    iops = tool()
    r1, d1, i1 = resource.getrusage(resource.RUSAGE_CHILDREN), reads_done(), irqs()
    n = max(d1 - d0, 1)
    return {"iops": iops, "reads": d1 - d0,
            "usr_us": (r1.ru_utime - r0.ru_utime) / n * 1e6,
            "sys_us": (r1.ru_stime - r0.ru_stime) / n * 1e6,
            "vcsw": (r1.ru_nvcsw - r0.ru_nvcsw) / n,
            "irq": (i1 - i0) / n}


COLS = ("iops", "reads", "usr_us", "sys_us", "vcsw", "irq")
FMT = {"iops": "%9.0f", "reads": "%9d", "usr_us": "%7.2f", "sys_us": "%7.2f",
       "vcsw": "%6.3f", "irq": "%6.3f"}
print("device %s, interrupts: /proc/interrupts lines named *%s*; %d rounds of %s-s runs, "
      "16k random O_DIRECT reads at queue depth %s" % (DISK, IRQ, ROUNDS, SECS, DEPTH))
print("round tool             iops     reads usr_us sys_us  vcsw/r irq/r   (per read the device completed)")
got = {"fio": [], "benchwatch": []}
for i in range(ROUNDS):
    order = [("fio", fio), ("benchwatch", bench)]
    for name, tool in (order if i % 2 == 0 else order[::-1]):
        m = measured(tool)
        got[name].append(m)
        print("%5d %-10s " % (i + 1, name) + " ".join(FMT[c] % m[c] for c in COLS), flush=True)
print("\nmedians    " + " ".join("%9s" % c for c in COLS))
for name, ms in got.items():
    print("%-10s " % name + " ".join(FMT[c] % statistics.median(m[c] for m in ms)
                                     for c in COLS))
