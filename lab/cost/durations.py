"""durations.py WORK ROUNDS A B — lab/cost/durations.sh's table: per probe
(WORK/done: "probe plugin" a line) and duration, the median CPU seconds of a
run and the robust coefficient of variation (1.4826 MAD / median) of its
main figure, as bench/cost/cost.py judges it, each with a 90% interval from
1000 resamplings of the runs; and the ratio of the two noises.
"""
import os, random, statistics as st, sys
# figures.py is bench/cost/cost.py's, beside it in the product's bench/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "cost"))
from figures import main_figure, robust_cv as rcv
work, rounds, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def interval(xs, f, n=1000):
    rng = random.Random(29)
    vals = sorted(f([rng.choice(xs) for _ in xs]) for _ in range(n))
    return vals[int(0.05 * n)], vals[int(0.95 * n) - 1]
print("\n%-15s %5s %10s %22s %9s %8s" % ("probe", "run", "cpu s/run", "noise (90% interval)",
                                          "median", "ratio"))
for line in open(os.path.join(work, "done")):
    probe, plugin = line.split()
    figs, cv = {}, {}
    for d in (a, b):
        cpu = st.median(float(open("%s/%s.%s.%d.cpu" % (work, probe, d, r)).read())
                        for r in range(1, rounds + 1))
        figs[d] = [main_figure("%s/%s.%s.%d.json" % (work, probe, d, r), plugin)
                   for r in range(1, rounds + 1)]
        cv[d] = rcv(figs[d])
        lo, hi = interval(figs[d], rcv)
        print("%-15s %5s %10.3f %7.1f%% (%4.1f .. %4.1f) %8.4g %8s" % (
            probe, d, cpu, 100 * cv[d], 100 * lo, 100 * hi, st.median(figs[d]),
            "" if d == a else "x%.2f" % (cv[b] / cv[a] if cv[a] else float("nan"))))
    rng = random.Random(30)
    idx = list(range(rounds))
    ratios = []
    for _ in range(1000):
        s = [rng.choice(idx) for _ in idx]
        ca = rcv([figs[a][i] for i in s])
        ratios.append(rcv([figs[b][i] for i in s]) / ca if ca else float("inf"))
    ratios.sort()
    print("%-15s %5s %10s noise %s/%s: 90%% interval x%.2f .. x%.2f; figure %s/%s x%.3f" % (
        "", "", "", b, a, ratios[50], ratios[949], b, a,
        st.median(figs[b]) / st.median(figs[a])))
