#!/usr/bin/env python3
"""Which of the disk probe's judged figures the host's steal moves, from
lab/cost/steal-counted.sh's runs of the `after` daemon (each run's steal from
runs.tsv, its figures from `benchwatch history disk --format=csv`).

usage: steal-counted.py RUNS.tsv HISTORY.csv [WHO]

Prints, per figure, its median over the runs with steal below 15% and
with steal of 20% or more, and their ratio, with a 90% bootstrap interval
(runs resampled within each group, 1000 times, fixed seed).
"""
import csv
import random
import statistics
import sys

FIGURES = (("iops", "benchwatch_disk_iops{"), ("p50", 'quantile="0.5"'),
           ("p95", 'quantile="0.95"'), ("p99", 'quantile="0.99"'))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    who = sys.argv[3] if len(sys.argv) > 3 else "after"
    steal = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == who and p[4] != "NA":
                steal[round(float(p[1]))] = float(p[4])
    rows = list(csv.DictReader(open(sys.argv[2], encoding="utf-8")))
    times = sorted({r["time"] for r in rows})
    if len(times) != len(steal):
        sys.exit("steal-counted.py: %d runs in the history, %d in %s" %
                 (len(times), len(steal), sys.argv[1]))
    by_time = dict(zip(times, [steal[k] for k in sorted(steal)]))
    rng = random.Random(28)
    print("disk figures against the host's steal (runs of '%s'):" % who)
    for name, sub in FIGURES:
        lo = [float(r["value"]) for r in rows if sub in r["metric"] and by_time[r["time"]] < 0.15]
        hi = [float(r["value"]) for r in rows if sub in r["metric"] and by_time[r["time"]] >= 0.20]
        if len(lo) < 2 or len(hi) < 2:
            continue
        boot = sorted(statistics.median([rng.choice(hi) for _ in hi]) /
                      statistics.median([rng.choice(lo) for _ in lo]) for _ in range(1000))
        print("  %-5s steal < 15%%: n=%2d median %-10.4g steal >= 20%%: n=%2d median %-10.4g"
              " ratio %.2f [%.2f, %.2f]" % (name, len(lo), statistics.median(lo), len(hi),
                                            statistics.median(hi),
                                            statistics.median(hi) / statistics.median(lo),
                                            boot[50], boot[949]))


if __name__ == "__main__":
    main()
