#!/usr/bin/env python3
# bench/cost/busy_host.py — the table of bench/cost/busy-host.sh, from each
# phase's files: the probes' histories (state_dir/history-PROBE.txt: one
# line per tracked figure per run, "time counted state value reference
# key") and the textfile's deferral counts.
#
# Usage: busy_host.py WORK NEIGHBOUR... -- BUILD...
import os
import re
import statistics
import sys

# The figure each built-in probe is judged by, and whether higher is better.
JUDGED = {
    "cpu": (r"^benchwatch_cpu_events_per_second\{", True),
    "threads": (r"^benchwatch_threads_events_per_second\{", True),
    "memory": (r'^benchwatch_memory_bytes_per_second\{.*operation="triad"', True),
    "memory-latency": (r"^benchwatch_memory_load_latency_seconds\{", False),
    "disklat": (r'^benchwatch_disklat_latency_seconds\{.*quantile="0.5"', False),
}


def history(path):
    """runs: {time: counted}, figures: [value], entered: regressions."""
    runs, figures, entered, state = {}, {}, 0, {}
    if not os.path.exists(path):
        return runs, figures, entered
    with open(path) as f:
        for line in f:
            p = line.split(" ", 5)
            if len(p) < 6 or p[0] == "benchwatch-history":
                continue
            t, counted, st, value, key = p[0], p[1] == "1", p[2], p[3], p[5].strip()
            runs[t] = runs.get(t, False) or counted
            if st == "R" and state.get(key) != "R":
                entered += 1
            state[key] = st
            figures.setdefault(key, []).append(float(value))
    return runs, figures, entered


def deferred(prom, probe):
    total = 0.0
    if not os.path.exists(prom):
        return 0
    pat = re.compile(r'^benchwatch_probe_deferred_total\{probe="%s",reason="[a-z]+"\} (\S+)'
                     % re.escape(probe))
    with open(prom) as f:
        for line in f:
            m = pat.match(line)
            if m:
                total += float(m.group(1))
    return int(total)


def judged(figures, probe):
    pat, _ = JUDGED[probe]
    for key, values in figures.items():
        if re.search(pat, key):
            return statistics.median(values)
    return None


def main():
    args = sys.argv[1:]
    work, rest = args[0], args[1:]
    cut = rest.index("--")
    neighbours, builds = rest[:cut], rest[cut + 1:]
    alone = {}
    print("| neighbour | build | probe | runs due | done | counted | deferred or yielded "
          "| regressions entered | judged figure / alone |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|")
    totals = []
    for nb in neighbours:
        for b in builds:
            d = os.path.join(work, "%s-%s" % (nb, b))
            due_all = done_all = counted_all = 0
            for probe in JUDGED:
                runs, figures, entered = history(os.path.join(d, "state",
                                                              "history-%s.txt" % probe))
                n_def = deferred(os.path.join(d, "bw.prom"), probe)
                if not runs and not n_def and not os.path.exists(
                        os.path.join(d, "state", "history-%s.txt" % probe)):
                    continue  # not configured (ONLY)
                done, counted = len(runs), sum(runs.values())
                due = done + n_def
                med = judged(figures, probe)
                if nb == neighbours[0] and med:
                    alone[(b, probe)] = med
                base = alone.get((b, probe))
                ratio = "%.3f" % (med / base) if med and base else "-"
                print("| %s | %s | %s | %d | %d | %d | %d | %d | %s |"
                      % (nb, b, probe, due, done, counted, n_def, entered, ratio))
                due_all += due
                done_all += done
                counted_all += counted
            totals.append((nb, b, due_all, done_all, counted_all))
    print()
    for nb, b, due, done, counted in totals:
        share = 100.0 * counted / due if due else 0
        print("%s / %s: %d runs due, %d done, %d counted: %.0f%% done and counted"
              % (nb, b, due, done, counted, share))


if __name__ == "__main__":
    main()
