"""lab/detector/detector_real/clean.py — a helper of lab/detector/detector-real.sh.

clean.py LOG STDERR REF: the clean scenario's per-probe figures, the runs
around every regression entered, and "TOTAL <entered> <logged>" last:
entered counts the series of the textfile that entered a regression, logged
the daemon's verdict lines (one when a probe enters a regression, whatever
the number of its series, with its cause; not the lines a changed cause
adds).
"""
import re, statistics, sys
log, err, ref = sys.argv[1], sys.argv[2], int(sys.argv[3])
F = ("probe start dur counted steal pcpu pio pmem pinned value ref ratio change ev "
     "reg noise nreg entered left judged").split()
runs = []
for line in open(log):
    v = line.rstrip("\n").split("\t")
    if len(v) == len(F):
        runs.append(dict(zip(F, v)))
num = lambda r, k: float(r[k])
def mm(xs):
    xs = [x for x in xs if x == x]
    return (statistics.median(xs), max(xs)) if xs else (float("nan"), float("nan"))
VERDICT = re.compile(r"probe '[^']+': .* since .*, against the reference")
logged = sum(1 for l in open(err) if VERDICT.search(l) and "the cause named before" not in l)
print("   %-8s %5s %7s %7s %8s %6s %13s %13s %13s %13s %7s" % (
    "probe", "runs", "judged", "uncount", "regress", "recov", "steal med/max",
    "psi cpu", "psi io", "psi mem", "noise"))
total = 0
for probe in sorted({r["probe"] for r in runs}):
    rs = [r for r in runs if r["probe"] == probe]
    ent = sum(len(r["entered"].split(",")) for r in rs if r["entered"] != "-")
    rec = sum(len(r["left"].split(",")) for r in rs if r["left"] != "-")
    total += ent
    judged = sum(1 for r in rs if r["judged"] == "1")
    unc = sum(1 for r in rs if r["counted"] == "0")
    cols = ["%5.1f/%-6.1f" % tuple(100 * x for x in mm([num(r, k) for r in rs]))
            for k in ("steal", "pcpu", "pio", "pmem")]
    noise = rs[-1]["noise"]
    print("   %-8s %5d %7d %7d %8d %6d %13s %13s %13s %13s %6.1f%%" % (
        probe, len(rs), judged, unc, ent, rec, cols[0], cols[1], cols[2], cols[3],
        100 * float(noise) if noise != "nan" else float("nan")))
print("   (steal and pressure in % of the run, median/max over all runs; noise: the main "
      "figure's reference noise per run; uncount: runs not counted, judged only)")
for i, r in enumerate(runs):
    if r["entered"] == "-":
        continue
    rs = [x for x in runs if x["probe"] == r["probe"]]
    k = rs.index(r)
    print("   regression entered: probe %s run %d: %s; its runs around it:" % (
        r["probe"], k + 1, r["entered"]))
    print("      %5s %7s %7s %7s %7s %7s %7s %7s %7s %4s" % (
        "run", "counted", "steal%", "psicpu%", "psiio%", "psimem%", "ratio", "change%", "evid", "nreg"))
    for j in range(max(0, k - 6), min(len(rs), k + 3)):
        x = rs[j]
        print("      %5d %7s %7.1f %7.1f %7.1f %7.1f %7.3f %7.1f %7.2f %4s%s" % (
            j + 1, x["counted"], 100 * num(x, "steal"), 100 * num(x, "pcpu"),
            100 * num(x, "pio"), 100 * num(x, "pmem"), num(x, "ratio"), 100 * num(x, "change"),
            num(x, "ev"), x["nreg"], "  <- " + x["entered"] if j == k else ""))
print("TOTAL %d %d" % (total, logged))
