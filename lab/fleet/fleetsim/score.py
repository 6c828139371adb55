#!/usr/bin/env python3
"""score.py INJECTED ALERTS_JSON RATIOS_JSON — for lab/fleet/fleet-sim.sh: which
hosts the cohort alerts fired for, against the injected ones.

INJECTED: `instance kind` lines (kind disk or cpu) from fleetsim.
ALERTS_JSON: the /api/v1/alerts answer of Prometheus or vmalert.
RATIOS_JSON: a /api/v1/query answer for benchwatch:throughput:cohort_ratio.

Prints one line per kind: the injected hosts, those BenchwatchThroughput-
BelowCohort fired for (firing, not pending) on the kind's main figure
(disk_iops, cpu_events_per_second), precision and recall; every other
alert name that fired, with its count (the target is none); and the
spread of the cohort ratio of the main figure among clean and injected
hosts (what the cohort's floor has to separate).  A host whose CPU is the
slower model runs threads and memory slower too: an alert on those figures
of such a host is right, not false (counted apart).  Exit 0 when precision
and recall are both 1 and nothing else fired, else 1."""
import json
import sys

FIGURE = {"disk": "disk_iops", "cpu": "cpu_events_per_second"}
# the figures the injected slowness moves (fleetsim.c: S_DISK; S_CPU, S_MEM)
MOVED = {"disk": ("disk_",), "cpu": ("cpu_", "threads_", "memory_")}


def alerts_of(doc):
    data = doc.get("data") or {}
    if isinstance(data, list):
        return data
    return data.get("alerts") or []  # vmalert 1.79 says null for none


def quantiles(v):
    if not v:
        return "-"
    v = sorted(v)
    q = lambda p: v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]
    return "min %.3f p1 %.3f median %.3f max %.3f (n=%d)" % (v[0], q(0.01), q(0.5), v[-1], len(v))


def main():
    injected = {}
    for line in open(sys.argv[1]):
        inst, kind = line.split()
        injected[inst] = kind
    alerts = [a for a in alerts_of(json.load(open(sys.argv[2])))
              if a.get("state") == "firing"]
    ratios = json.load(open(sys.argv[3]))["data"]["result"]
    cohort = {}
    other = {}
    for a in alerts:
        name = a["labels"].get("alertname")
        if name == "BenchwatchThroughputBelowCohort":
            cohort.setdefault(a["labels"]["instance"], set()).add(a["labels"].get("figure"))
        else:
            other[name] = other.get(name, 0) + 1
    ok = not other
    for kind in ("disk", "cpu"):
        want = {h for h, k in injected.items() if k == kind}
        fig = FIGURE[kind]
        got = {h for h, figs in cohort.items() if fig in figs}
        tp = len(want & got)
        prec = tp / len(got) if got else float("nan")
        rec = tp / len(want) if want else float("nan")
        ok = ok and prec == 1 and rec == 1
        clean = [float(r["value"][1]) for r in ratios
                 if r["metric"].get("figure") == fig and r["metric"]["instance"] not in injected]
        inj = [float(r["value"][1]) for r in ratios
               if r["metric"].get("figure") == fig and injected.get(r["metric"]["instance"]) == kind]
        print("%-4s injected %d fired %d right %d precision %.3f recall %.3f" %
              (kind, len(want), len(got), tp, prec, rec))
        print("     cohort ratio of %s: clean hosts %s" % (fig, quantiles(clean)))
        print("     %s injected hosts %s" % (" " * len(fig), quantiles(inj)))
    hosts = set(cohort)
    allinj = set(injected)
    tp = len(hosts & allinj)
    print("hosts with a cohort alert on any figure %d, injected %d, both %d: precision %.3f recall %.3f" %
          (len(hosts), len(allinj), tp, tp / len(hosts) if hosts else float("nan"),
           tp / len(allinj) if allinj else float("nan")))
    false, also = {}, {}
    for h, figs in cohort.items():
        for f in figs:
            k = injected.get(h)
            if k and f == FIGURE[k]:
                continue
            if k and f.startswith(MOVED[k]):
                also[f] = also.get(f, 0) + 1
            else:
                false[f] = false.get(f, 0) + 1
    ok = ok and not false
    print("cohort alerts on another figure the injection slowed (right): %s" %
          (", ".join("%s %d" % kv for kv in sorted(also.items())) or "none"))
    print("cohort alerts on a figure not injected (false): %s" %
          (", ".join("%s %d" % kv for kv in sorted(false.items())) or "none"))
    print("other alerts firing: %s" % (", ".join("%s x%d" % kv for kv in sorted(other.items())) or "none"))
    return 0 if ok else 1


sys.exit(main())
