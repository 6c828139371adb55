"""lab/detector/causes/table.py — a helper of lab/detector/causes.sh.

table.py ROWS: the injection table, as Markdown, and its summary line.
ROWS is tab-separated, one line an injection:
  name  kind  expected  host  result
kind: "real" (injected on this host), "fixture" (a real slowdown beside
counters replayed under BENCHWATCH_EVIDENCE_ROOT) or "absent" (not
producible here: result is the reason); expected: the cause labels that are
right, comma-separated; host: 1 when the injection reaches the whole host
(then every regressed probe must be named "host", and none ever
"component"); result: follow.py regress's JSON file.

A verdict is right when the cause the textfile carried at the probe's last
regressed run is expected (a whole-host injection: "host", and no run of it
named "component").  Exit 0 when at least 90% of the verdicts are right, no
whole-host injection was named as a component and every cause named came
with its evidence in the daemon's log; 1 otherwise.
"""
import json, sys


def cell(text):
    return (text or "").replace("|", "\\|")


def verdict_of(p):
    if p["entered"]:
        text = "entered after %d run%s" % (p["entered"], "" if p["entered"] == 1 else "s")
        return text + (": " + p["figure"] if p["figure"] else "")
    return "none in %d runs%s" % (p["runs"], " (%d failed)" % p["failed"] if p["failed"] else "")


def named_of(p):
    seen = []
    for label in p["labels"]:
        if not seen or seen[-1] != label:
            seen.append(label or "(none)")
    return " → ".join(seen) or "-"


def main(path):
    out = ["| injection | probe | expected cause | verdict | cause named | right? | evidence |",
           "|---|---|---|---|---|---|---|"]
    right = verdicts = host_as_component = unsaid = missed = absent = 0
    for line in open(path):
        v = line.rstrip("\n").split("\t")
        if len(v) != 5:
            continue
        name, kind, expected, host, result = v
        label = name + (" (fixture)" if kind == "fixture" else "")
        want = expected.split(",")
        if kind == "absent":
            absent += 1
            out.append("| %s | - | %s | not producible here | - | - | %s |" % (
                cell(label), cell(" or ".join(want)), cell(result)))
            continue
        try:
            probes = json.load(open(result))
        except (OSError, ValueError) as e:
            missed += 1
            out.append("| %s | - | %s | no result (%s) | - | NO | |" % (
                cell(label), cell(" or ".join(want)), cell(str(e))))
            continue
        if host == "1" and not any(p["entered"] for p in probes):
            missed += 1  # a whole-host injection none of whose probes entered
        for p in probes:
            ok = "-" if host != "1" or any(q["entered"] for q in probes) else "NO (no verdict)"
            if p["entered"]:
                verdicts += 1
                component = host == "1" and "component" in p["labels"]
                host_as_component += component
                good = p["final"] in want and not component
                right += good
                ok = "yes" if good else "NO"
                if p["final"] and not p["sentence"]:
                    unsaid += 1
            elif host != "1":
                missed += 1
                ok = "NO (no verdict)"
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                cell(label), cell(p["probe"]), cell(" or ".join(want)), cell(verdict_of(p)),
                cell(named_of(p)), ok, cell(p["sentence"])))
    print("\n".join(out))
    # an injection without a verdict is a wrong answer too
    share = right / (verdicts + missed) if verdicts + missed else 0
    met = verdicts > 0 and share >= 0.9 and host_as_component == 0 and unsaid == 0
    print()
    print("right: %d of %d verdicts and injections without one (%.0f%%, target >= 90%%); "
          "whole-host injections named as a "
          "component: %d (target 0); causes named without their evidence: %d (target 0); "
          "injections without a verdict: %d; not producible here: %d — %s" % (
              right, verdicts + missed, 100 * share, host_as_component, unsaid, missed, absent,
              "met" if met else "MISSED"))
    return 0 if met else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n", 1)[1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
