"""seed-proxy.py WORK ROUNDS TOPOLOGY:PORT... — bench/compare/seed-proxy.sh's
table: per topology, ab's and benchwatch's figures of each round
(WORK/ab.TOPO.R, WORK/bw.TOPO.R) in the seed's layout, their medians and
ratio, then each tool's ranking of the topologies.  Exit 0 when every
target is met (benchwatch's RPS >= ab's, no failures where ab had none,
the same ranking), 1 otherwise.
"""
import re, statistics as st, sys
work, rounds, topos = sys.argv[1], int(sys.argv[2]), [t.split(":")[0] for t in sys.argv[3:]]
lines = [
    ("Concurrency Level", r"Concurrency Level:\s+(\d+)", ""),
    ("Complete requests", r"Complete requests:\s+(\d+)", ""),
    ("Failed requests", r"Failed requests:\s+(\d+)", ""),
    ("Total transferred", r"Total transferred:\s+(\d+) bytes", "bytes"),
    ("Requests per second", r"Requests per second:\s+([\d.]+)", "[#/sec] (mean)"),
    ("Time per request", r"Time per request:\s+([\d.]+) \[ms\] \(mean\)", "[ms] (mean)"),
    ("Time per request", r"Time per request:\s+([\d.]+) \[ms\] \(mean, across", "[ms] (mean, across all concurrent requests)"),
    ("Transfer rate", r"Transfer rate:\s+([\d.]+)", "[Kbytes/sec] received"),
]
def figures(tool, topo, r):
    text = open("%s/%s.%s.%d" % (work, tool, topo, r)).read()
    out = []
    for _, rx, _ in lines:
        m = re.search(rx, text)
        out.append(float(m.group(1)) if m else float("nan"))
    return out
ok = True
rank = {"ab": {}, "bw": {}}
for topo in topos:
    ab = [figures("ab", topo, r) for r in range(1, rounds + 1)]
    bw = [figures("bw", topo, r) for r in range(1, rounds + 1)]
    if any(x != x for row in ab + bw for x in row):
        bad = [t for t, rows in (("ab", ab), ("benchwatch", bw)) if any(x != x for r in rows for x in r)]
        print("\n== %s: no figures from %s (see %s/{ab,bw}.%s.*)" % (topo, " and ".join(bad), work, topo))
        ok = False
        continue
    abm = [st.median(col) for col in zip(*ab)]
    bwm = [st.median(col) for col in zip(*bw)]
    paired = st.median(b[4] / a[4] for a, b in zip(ab, bw))
    print("\n== %s (median of %d rounds)" % (topo, rounds))
    print("%-24s %14s %14s %7s" % ("", "ab", "benchwatch", "ratio"))
    for (label, _, unit), a, b in zip(lines, abm, bwm):
        ratio = "%7.3f" % (b / a) if a else "      -"
        if label == "Requests per second":
            ratio = "%7.3f" % paired
        print("%-24s %14.2f %14.2f %s %s" % (label + ":", a, b, ratio, unit))
    print("requests/s per round: ab %s, benchwatch %s" % (
        "/".join("%.0f" % x[4] for x in ab), "/".join("%.0f" % x[4] for x in bw)))
    rank["ab"][topo], rank["bw"][topo] = abm[4], bwm[4]
    if paired < 1:
        print("BELOW TARGET: benchwatch's requests/s %.3f x ab's" % paired)
        ok = False
    if max(x[2] for x in ab) == 0 and max(x[2] for x in bw) > 0:
        print("BELOW TARGET: benchwatch had failed requests where ab had none")
        ok = False
order = {t: sorted(rank[t], key=rank[t].get, reverse=True) for t in rank}
print("\nranking by requests/s: ab %s; benchwatch %s" % (" > ".join(order["ab"]), " > ".join(order["bw"])))
if order["ab"] != order["bw"]:
    print("NOTE: the tools rank the topologies differently (close medians swap on a noisy host)")
    ok = False
print("PASS: every target met" if ok else "some targets missed (above)")
sys.exit(0 if ok else 1)
