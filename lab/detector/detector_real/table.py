"""lab/detector/detector_real/table.py — a helper of lab/detector/detector-real.sh.

table.py TABLE BUILD...: the summary, one row per scenario x neighbour x
figure, with each build's values side by side (in the order given: "today"
beside "new"): the values of its repetitions, their median [min..max] when
they are numbers (the leading number of values such as "3 (3 counted)"),
and how many repetitions met the target.  TABLE's lines are tab-separated:
scenario neighbour build repetition figure value target verdict.
"""
import re, statistics, sys
table, builds = sys.argv[1], sys.argv[2:]
rows, order = {}, []
for line in open(table):
    v = line.rstrip("\n").split("\t")
    if len(v) != 8:
        continue
    scen, neigh, build, rep, fig, value, target, verdict = v
    key = (scen, neigh, fig)
    if key not in rows:
        rows[key] = {"target": target, "by": {}}
        order.append(key)
    rows[key]["by"].setdefault(build, []).append((int(rep), value, verdict))
NUM = re.compile(r"^[<>]?(-?[0-9]+(?:\.[0-9]+)?)")


def cell(vals):
    if not vals:
        return "-"
    vals.sort()
    text = " | ".join(v for _, v, _ in vals)
    nums = [NUM.match(v) for _, v, _ in vals]
    if len(vals) > 1 and all(nums):
        xs = [float(m.group(1)) for m in nums]
        text += "  (med %g [%g..%g])" % (statistics.median(xs), min(xs), max(xs))
    judged = [x for _, _, x in vals if x in ("met", "MISSED")]
    if judged:
        text += "  %d/%d met" % (judged.count("met"), len(judged))
    return text


head = ["scenario", "neighbour", "figure", "target"] + builds
lines = [head] + [[k[0], k[1], k[2], rows[k]["target"]] +
                  [cell(rows[k]["by"].get(b, [])) for b in builds] for k in order]
w = [max(len(x[i]) for x in lines) for i in range(len(head))]
for x in lines:
    print("  ".join(c.ljust(w[i]) for i, c in enumerate(x)).rstrip())
