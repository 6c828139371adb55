"""cost.py WORK ROUNDS NCPU — bench/cost/cost.sh's table: per probe of the
built-in configuration, the median CPU seconds of a run (WORK/PROBE.R.cpu),
its cost per hour and share of the host, the run-to-run noise of its main
figure (robust CV of WORK/PROBE.R.json) and the delay to flag a 15% loss
that noise implies (lab/detector/detector.sh: 3 runs at <= 3%, 4 at
<= 6%).  WORK/done lists "probe plugin interval" per line.
"""
import os, re, statistics as st, sys
from figures import main_figure, robust_cv
work, rounds, ncpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def seconds(text):
    m = re.fullmatch(r"([\d.]+)(ms|s|min|h|d)", text)
    return float(m.group(1)) * {"ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}[m.group(2)]
total = total_rd = 0
print("\n%-15s %9s %10s %9s %8s %9s %9s %15s" % ("probe", "interval", "cpu s/run", "cpu s/h",
                                                 "% host", "MB read/h", "noise", "15% loss in"))
for line in open(os.path.join(work, "done")):
    probe, plugin, every = line.split()
    iv = seconds(every)
    cpu = st.median(float(open("%s/%s.%d.cpu" % (work, probe, r)).read()) for r in range(1, rounds + 1))
    figs = [main_figure("%s/%s.%d.json" % (work, probe, r), plugin) for r in range(1, rounds + 1)]
    cv = robust_cv(figs)
    runs = 3 if cv <= 0.03 else 4 if cv <= 0.06 else float("nan")
    per_h = cpu * 3600 / iv
    total += per_h
    rd = st.median(float(open("%s/%s.%d.read" % (work, probe, r)).read())
                   for r in range(1, rounds + 1)) * 3600 / iv / 1e6
    total_rd += rd
    delay = "%d runs, %.0f min" % (runs, runs * iv / 60) if runs == runs else "> 4 runs"
    print("%-15s %9s %10.2f %9.1f %7.2f%% %9.1f %8.1f%% %15s" % (probe, every, cpu, per_h,
          100 * per_h / (3600 * ncpu), rd, 100 * cv, delay))
print("%-15s %9s %10s %9.1f %7.2f%% %9.1f" % ("in all", "", "", total, 100 * total / (3600 * ncpu),
                                             total_rd))
print("\n(goal: <= 0.25% of the host's CPU; the daemon itself, idle between runs, adds well under 0.01%)")
