#!/usr/bin/env python3
"""Analysis of lab/cost/contention.sh's runs (see there for what was run).

usage: contention.py RUNS.tsv

Prints, per probe and condition, the coefficient of variation (stdev/mean)
of the wall-clock figure and of the CPU-time figure with 90% bootstrap
intervals (runs resampled with replacement, 1000 times, fixed seed) and
each figure's median change against quiet; then the CPU-time figure's
error against the others' share of the CPU; then whether the time the
hypervisor stole is in the threads' CPU time.
"""
import random
import re
import statistics
import sys

USER_HZ = 100
FIGURES = {  # probe: (wall-clock family, CPU-time family, label filter)
    "cpu": ("benchwatch_cpu_events_per_second", "benchwatch_cpu_events_per_cpu_second", ""),
    "threads": ("benchwatch_threads_events_per_second",
                "benchwatch_threads_events_per_cpu_second", ""),
    "block": ("benchwatch_memory_bytes_per_second", "benchwatch_memory_bytes_per_cpu_second", ""),
    "dram": ("benchwatch_memory_bytes_per_second", "benchwatch_memory_bytes_per_cpu_second",
             'operation="triad"'),
    "latency": ("benchwatch_memory_loads_per_second", "benchwatch_memory_loads_per_cpu_second", ""),
}
LINE = re.compile(r'^(\w+)(\{[^}]*\})?\s+(\S+)$')


def figure(text, family, want):
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m.group(1) == family and want in (m.group(2) or ""):
            return float(m.group(3))
    return None


def parse_stat(s):
    """{'cpu': [8 fields], 'cpu0': [...], ...} from the joined /proc/stat lines."""
    out = {}
    for line in s.split(";"):
        f = line.split()
        if f:
            out[f[0]] = [float(x) for x in f[1:9]]
    return out


def shares(before, after, cpu_s):
    a, b = parse_stat(before), parse_stat(after)
    d = [y - x for x, y in zip(a["cpu"], b["cpu"])]
    total = sum(d)
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    others = max(busy - cpu_s * USER_HZ, 0) / total if total > 0 else 0
    steal = d[7] / total if total > 0 else 0
    per_cpu = []
    for k in a:
        if k != "cpu" and k in b:
            dd = [y - x for x, y in zip(a[k], b[k])]
            per_cpu.append(dd[7] / sum(dd) if sum(dd) > 0 else 0)
    return others, steal, max(per_cpu) if per_cpu else steal


def cv(xs):
    return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else float("nan")


def boot_cv(xs, rng, n=1000):
    if len(xs) < 3:
        return float("nan"), float("nan")
    vals = sorted(cv([rng.choice(xs) for _ in xs]) for _ in range(n))
    return vals[int(0.05 * n)], vals[int(0.95 * n) - 1]


def load(path):
    runs = []
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            rnd, cond, probe, fpath, s0, s1, cpu_s = line.rstrip("\n").split("\t")
            try:
                text = open(fpath, encoding="utf-8").read()
            except OSError:
                continue
            wall_f, cpu_f, want = FIGURES[probe]
            wall, cpu = figure(text, wall_f, want), figure(text, cpu_f, want)
            if not wall or not cpu:
                continue
            others, steal, steal_max = shares(s0, s1, float(cpu_s or 0))
            runs.append(dict(round=int(rnd), cond=cond, probe=probe, wall=wall, cpu=cpu,
                             others=others, steal=steal, steal_max=steal_max,
                             worker=figure(text, "benchwatch_cpu_worker_cpu_seconds", ""),
                             delay=figure(text, "benchwatch_probe_run_delay_ratio", ""),
                             total=figure(text, "benchwatch_cpu_total_time_seconds", "")))
    return runs


def noise_table(runs, conds, rng):
    print("Run-to-run noise (CV, 90% bootstrap interval) and median change against quiet")
    print("%-8s %-6s %3s  %-24s %-24s %8s %8s %7s" %
          ("probe", "cond", "n", "wall-clock CV", "CPU-time CV", "wall chg", "cpu chg", "others"))
    for probe in FIGURES:
        quiet = [r for r in runs if r["probe"] == probe and r["cond"] == "quiet"]
        qw = statistics.median([r["wall"] for r in quiet]) if quiet else float("nan")
        qc = statistics.median([r["cpu"] for r in quiet]) if quiet else float("nan")
        for cond in conds:
            rs = [r for r in runs if r["probe"] == probe and r["cond"] == cond]
            if len(rs) < 2:
                continue
            w, c = [r["wall"] for r in rs], [r["cpu"] for r in rs]
            wl, wh = boot_cv(w, rng)
            cl, ch = boot_cv(c, rng)
            print("%-8s %-6s %3d  %5.1f%% [%5.1f, %5.1f]%%   %5.1f%% [%5.1f, %5.1f]%%   %+7.1f%% %+7.1f%% %6.0f%%" %
                  (probe, cond, len(rs), 100 * cv(w), 100 * wl, 100 * wh, 100 * cv(c),
                   100 * cl, 100 * ch, 100 * (statistics.median(w) / qw - 1),
                   100 * (statistics.median(c) / qc - 1),
                   100 * statistics.median([r["others"] for r in rs])))


BINS = [0, 0.10, 0.20, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80, 0.90, 1.01]


def error_table(runs):
    print()
    print("CPU-time figure's error against others' share of the CPU (all conditions):")
    print("median |figure / quiet median - 1| per bin of others' share, n in brackets;"
          " 'noise' = quiet CV")
    print("%-8s %7s " % ("probe", "noise") +
          " ".join("%5.0f-%-3.0f%%" % (100 * lo, 100 * hi)
                   for lo, hi in zip(BINS, BINS[1:])).replace("101", "100"))
    limits = []
    for probe in FIGURES:
        rs = [r for r in runs if r["probe"] == probe]
        quiet = [r["cpu"] for r in rs if r["cond"] == "quiet"]
        if len(quiet) < 2:
            continue
        q, noise = statistics.median(quiet), cv(quiet)
        cells, limit = [], None
        for lo, hi in zip(BINS, BINS[1:]):
            errs = [abs(r["cpu"] / q - 1) for r in rs if lo <= r["others"] < hi]
            if not errs:
                cells.append("%10s" % "-")
                continue
            e = statistics.median(errs)
            cells.append("%5.1f%% (%2d)" % (100 * e, len(errs)))
            if limit is None and e > noise and len(errs) >= 3:
                limit = lo
        limits.append(limit)
        print("%-8s %6.1f%% " % (probe, 100 * noise) + " ".join(cells) +
              ("   error > noise from %.0f%%" % (100 * limit) if limit is not None else
               "   error <= noise in every bin"))
    known = [x for x in limits if x is not None]
    if known:
        print("lowest share at which a probe's CPU-time error exceeds its quiet noise: %.0f%%"
              % (100 * min(known)))


def steal_check(runs):
    """One worker thread: its wall time is its CPU time, plus the time it
    waited for a CPU (run delay), plus the time stolen while it ran if the
    kernel leaves steal out of CPU time.  So the rest, wall - CPU - run
    delay, is ~0 if stolen time counts as CPU time, and follows the steal
    of the vCPU it ran on if not."""
    rs = [r for r in runs if r["probe"] == "cpu" and r["worker"] and r["total"]]
    if not rs:
        return
    print()
    print("Is stolen time in the thread CPU time? cpu probe, 1 thread, shares of its wall time"
          " (medians):")
    print("  %-6s %3s %10s %10s %12s %12s %11s" % ("cond", "n", "on CPU", "run delay",
                                                  "rest", "steal(vCPU)", "host steal"))
    for cond in sorted({r["cond"] for r in rs}):
        c = [r for r in rs if r["cond"] == cond]
        on = statistics.median([r["worker"] / r["total"] for r in c])
        d = [r["delay"] for r in c if r["delay"] is not None]
        rest = [1 - r["worker"] / r["total"] - r["delay"] for r in c if r["delay"] is not None]
        print("  %-6s %3d %9.1f%% %10s %12s %11.1f%% %10.1f%%" % (
            cond, len(c), 100 * on,
            "%.1f%%" % (100 * statistics.median(d)) if d else "-",
            "%.1f%%" % (100 * statistics.median(rest)) if rest else "-",
            100 * statistics.median([r["steal_max"] for r in c]),
            100 * statistics.median([r["steal"] for r in c])))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    if not runs:
        sys.exit("contention.py: no runs with both figures in " + sys.argv[1])
    conds = []
    for r in runs:
        if r["cond"] not in conds:
            conds.append(r["cond"])
    conds.sort(key=lambda c: c != "quiet")
    rng = random.Random(28)
    noise_table(runs, conds, rng)
    error_table(runs)
    steal_check(runs)


if __name__ == "__main__":
    main()
