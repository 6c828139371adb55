#!/usr/bin/env python3
"""queries.py URL DASHBOARD_JSON INSTANCE — for bench/fleet-sim.sh: the time
the shipped Grafana dashboard's queries take against a receiver (Prometheus
or VictoriaMetrics, both answer /api/v1/query_range).

Every target expression of every panel is run as Grafana runs it, a range
query over the last hour at a 15 s step, twice: with $instance set to one
host (INSTANCE) and $probe to all, the view of one host, and with both set
to all (.+), the whole fleet at once; the two template variables' own
queries (label values) are timed too.  Prints per view: the number of
queries, the sum of their times, the slowest one, and the series returned."""
import json
import sys
import time
import urllib.parse
import urllib.request


def exprs(dash):
    for p in dash.get("panels", []):
        for t in p.get("targets", []):
            if t.get("expr"):
                yield p.get("title", ""), t["expr"]


def timed(url, params):
    t0 = time.monotonic()
    with urllib.request.urlopen(url + "?" + urllib.parse.urlencode(params), timeout=600) as r:
        doc = json.load(r)
    dt = time.monotonic() - t0
    res = doc.get("data", {})
    n = len(res.get("result", [])) if isinstance(res, dict) else len(res)
    return dt, n


def main():
    base, dash, inst = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
    now = time.time()
    rng = {"start": "%.0f" % (now - 3600), "end": "%.0f" % now, "step": "15"}
    dt, n = timed(base + "/api/v1/label/instance/values",
                  {"match[]": "benchwatch_probe_success", "start": rng["start"], "end": rng["end"]})
    print("variables   instance values: %.3f s, %d hosts" % (dt, n))
    for view, ival in (("one host", inst), ("all hosts", ".+")):
        total, worst, series, k = 0.0, (0.0, ""), 0, 0
        for title, e in exprs(dash):
            q = e.replace("$instance", ival).replace("$probe", ".+")
            dt, n = timed(base + "/api/v1/query_range", dict(rng, query=q))
            total += dt
            series += n
            k += 1
            if dt > worst[0]:
                worst = (dt, title)
        print("%-11s %d queries: %.2f s in all, slowest %.2f s (%s), %d series returned" %
              (view, k, total, worst[0], worst[1], series))


main()
