#!/usr/bin/env python3
"""queries.py URL DASHBOARD_JSON INSTANCE [RANGE] — for lab/fleet/fleet-sim.sh: the time
the shipped Grafana dashboard's queries take against a receiver (Prometheus
or VictoriaMetrics, both answer /api/v1/query_range).

Every target expression is run as Grafana runs it, a range query over
RANGE seconds (the receivers' lookback: a sixth of an hour when the
simulation runs time ten times faster) at a step of RANGE/120: the whole
dashboard with $instance set to one host (INSTANCE) and $probe to all, the
view an operator opens for a host; and the panels of the fleet rows (the
recording rules', benchwatch:... and instance:benchwatch...) with both set
to all (.+), the view of the whole fleet.  The instance variable's own
query (label values) is timed too.  A query is given TIMEOUT seconds (120).
Prints per view: the number of queries, the sum of their times, the slowest
one, and the series returned."""
import json
import re
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
    try:
        with urllib.request.urlopen(url + "?" + urllib.parse.urlencode(params), timeout=TIMEOUT) as r:
            body = r.read()
    except Exception as e:  # a time-out or a refusal: its time, no series
        print("  %s: %s" % (params.get("query", url)[:60], e))
        return time.monotonic() - t0, 0
    dt = time.monotonic() - t0
    # counted, not parsed: a fleet-wide answer is hundreds of megabytes
    if b'"metric"' in body:
        return dt, body.count(b'"metric"')
    return dt, len(json.loads(body).get("data", []))


TIMEOUT = 120


def main():
    base, dash, inst = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
    span = float(sys.argv[4]) if len(sys.argv) > 4 else 3600
    now = time.time()
    rng = {"start": "%.0f" % (now - span), "end": "%.0f" % now, "step": "%g" % (span / 120)}
    dt, n = timed(base + "/api/v1/label/instance/values",
                  {"match[]": "benchwatch_probe_success", "start": rng["start"], "end": rng["end"]})
    print("variables   instance values: %.3f s, %d hosts" % (dt, n))
    for view, ival in (("one host", inst), ("fleet rows", ".+")):
        total, worst, series, k = 0.0, (0.0, ""), 0, 0
        for title, e in exprs(dash):
            if view == "fleet rows" and not re.search(r"[a-z_]:[a-z_]", e):
                continue
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
