"""lab/detector/detector_real/refstat.py — a helper of lab/detector/detector-real.sh.

refstat.py FAMILY STATE_DIR: what the pinned reference of the main figure implies —
its noise, lag-1 autocorrelation and how many counted runs a 15% step
needs by the CUSUM's arithmetic (detector.c's estimate redone from the
reference runs the state file keeps; a diagnostic, not a measurement), and
the best any detector can do there: a one-sided CUSUM told the level, the
noise and the correlation, its allowance matched to the step and its alarm
set for 1 false alarm in 10,000 runs, on the whitened runs (Siegmund's
approximation of its average run lengths)
"""
import glob, math, statistics, sys
fam, state = sys.argv[1], sys.argv[2]
vals = None
for path in glob.glob(state + "/baseline-*.txt"):
    key = None
    for line in open(path):
        w = line.split()
        if w and w[0] == "series":
            key = w[1]
        elif w and w[0] == "values" and key and key.startswith(fam + "{"):
            if vals is None or 'op="read"' in key or 'quantile="0.5"' in key:
                vals = [float(x) for x in w[1:]]
if not vals or len(vals) < 3:
    print("reference runs not found in the state file")
    sys.exit(0)
n = len(vals)
lg = [math.log(x) for x in vals]
m0 = statistics.median(lg)
s0 = max(1.4826 * statistics.median([abs(x - m0) for x in lg]), 1e-4)
w = [m0 + s0 * max(-2.5, min(2.5, (x - m0) / s0)) for x in lg]
m = sum(w) / n
s = max(math.sqrt(sum((x - m) ** 2 for x in w) / (n - 1)) / 0.98872, 1e-4)
r = [(x - m) / s for x in w]
den = sum(x * x for x in r)
raw = sum(r[i] * r[i - 1] for i in range(1, n)) / den if den else 0.0  # flat: none
rho = max(0.0, min(0.8, raw + (1 + 3 * raw) / n))
z = min(2.75, -math.log(0.85) / s)
first = min(2.75, z / math.sqrt(1 - rho * rho)) - 0.6
later = min(2.75, z * math.sqrt((1 - rho) / (1 + rho))) - 0.6
need = 1 if first >= 8.5 else (1 + math.ceil((8.5 - first) / later) if later > 0 else float("inf"))


def siegmund_arl(shift, k, h):
    """average run length of a CUSUM (allowance k, alarm h) at a mean shift"""
    b, d = h + 1.166, shift - k
    if abs(d) < 1e-9:
        return b * b
    return math.inf if -2 * d * b > 700 else (math.exp(-2 * d * b) + 2 * d * b - 1) / (2 * d * d)


def oracle_runs(step):
    """runs to flag a steady step (in noise units a run), alarm at 1 in 10,000;
    at least one"""
    lo, hi = 0.01, 200.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if siegmund_arl(0, step / 2, mid) < 10000 else (lo, mid)
    return max(1.0, siegmund_arl(step, step / 2, lo))


best = oracle_runs(-math.log(0.85) / s * math.sqrt((1 - rho) / (1 + rho)))
print("reference of %d runs: noise %.1f%% a run, lag-1 autocorrelation %.2f (%.2f before the "
      "small-sample correction); a steady 15%% step adds %.2f then %.2f a run to the CUSUM "
      "(alarm 8.5): about %s counted runs to flag; the best possible (a CUSUM told the level, "
      "noise and correlation): %.1f on average" % (n, 100 * s, rho, raw, first, later, need, best))
