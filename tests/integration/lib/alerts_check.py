#!/usr/bin/env python3
"""alerts_check.py — what alerts.sh asks of the webhook log and of Prometheus.

  hook LOG [--since T] [--status firing|resolved] [--name ALERT]
           [-l LABEL=VALUE ...] [--all]
      The first alert (or with --all every one) of the notifications in LOG
      (webhook.py's JSON lines) that arrived after UNIX time T, with that
      status, alert name and labels, printed as one JSON object with the
      time it arrived ("received"); exit 1 when there is none.

  query PROM EXPR [--at T]
      EXPR evaluated by the Prometheus at PROM, now or at UNIX time T: one
      line per sample, labels then value (a range selector: labels then
      every value in the range); exit 1 when the result is empty.

  dashboard PROM DASHBOARD.json START END [--expect-empty SUBSTRING::WHY ...]
      Every panel query of a Grafana dashboard run against PROM over
      [START, END] (query_range), with the template variables resolved as
      Grafana would: each `label_values(SELECTOR, LABEL)` variable is asked
      of Prometheus (the variables before it substituted) and every value
      it has is selected, written as Grafana writes a multi-value variable
      into a regex matcher, (a|b).  Prints, per panel, the series each
      target returned; fails, naming them, on panels that returned nothing,
      on variables without values and on variables the queries use that
      the dashboard does not define.  A target whose expression contains
      SUBSTRING may be empty for the reason WHY (printed), but a panel must
      still show something, unless every target of it may be empty.
"""
import json
import re
import sys
import urllib.parse
import urllib.request


def alerts_in(log, since):
    for line in open(log):
        entry = json.loads(line)
        if entry["received"] < since:
            continue
        for alert in entry["notification"].get("alerts", []):
            yield dict(alert, received=entry["received"])


def cmd_hook(args):
    log, since, status, name, labels, every = args[0], 0.0, None, None, {}, False
    rest = args[1:]
    while rest:
        opt = rest.pop(0)
        if opt == "--since":
            since = float(rest.pop(0))
        elif opt == "--status":
            status = rest.pop(0)
        elif opt == "--name":
            name = rest.pop(0)
        elif opt == "-l":
            k, v = rest.pop(0).split("=", 1)
            labels[k] = v
        elif opt == "--all":
            every = True
        else:
            raise SystemExit("hook: unknown option " + opt)
    if name is not None:
        labels["alertname"] = name
    found = False
    for alert in alerts_in(log, since):
        if status and alert["status"] != status:
            continue
        if any(alert["labels"].get(k) != v for k, v in labels.items()):
            continue
        print(json.dumps(alert, sort_keys=True))
        found = True
        if not every:
            break
    return 0 if found else 1


def api(prom, path, params):
    url = "%s/api/v1/%s?%s" % (prom, path, urllib.parse.urlencode(params, doseq=True))
    with urllib.request.urlopen(url, timeout=10) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise SystemExit("%s: %s" % (url, body))
    return body["data"]


def show_labels(metric):
    return "{" + ",".join('%s="%s"' % kv for kv in sorted(metric.items())) + "}"


def cmd_query(args):
    prom, expr, rest = args[0], args[1], args[2:]
    params = {"query": expr}
    if len(rest) == 2 and rest[0] == "--at":
        params["time"] = rest[1]
    elif rest:
        raise SystemExit("query: unknown arguments " + " ".join(rest))
    data = api(prom, "query", params)
    result = data["result"]
    if data["resultType"] == "scalar":
        result = [{"metric": {}, "value": result}]
    for sample in result:
        values = sample["values"] if "values" in sample else [sample["value"]]
        print(show_labels(sample["metric"]), " ".join(v[1] for v in values))
    return 0 if result else 1


VAR = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")


def substitute(expr, values):
    """Grafana's interpolation of multi-value variables into a regex matcher;
    returns the expression and the names it used that are not defined."""
    unknown = []

    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name.isdigit():          # $1 of label_replace
            return m.group(0)
        if name not in values:
            unknown.append(name)
            return m.group(0)
        vals = [re.escape(v).replace("\\", "\\\\") for v in values[name]]
        return vals[0] if len(vals) == 1 else "(" + "|".join(vals) + ")"
    return VAR.sub(one, expr), unknown


def template_values(prom, dash, start, end, problems):
    values = {}
    for var in dash.get("templating", {}).get("list", []):
        if var.get("type") != "query":
            continue
        q = var.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        q, unknown = substitute(q, values)
        m = re.match(r"^\s*label_values\((.*),\s*(\w+)\s*\)\s*$", q, re.S)
        if unknown or not m:
            problems.append("variable %s: cannot resolve %r" % (var["name"], q))
            values[var["name"]] = []
            continue
        series = api(prom, "series", {"match[]": m.group(1), "start": start, "end": end})
        vals = sorted({s[m.group(2)] for s in series if m.group(2) in s})
        print("variable %s = %s   (%s)" % (var["name"], vals, q))
        if not vals:
            problems.append("variable %s: %s has no values" % (var["name"], q))
        values[var["name"]] = vals
    return values


def cmd_dashboard(args):
    prom, path, start, end = args[0], args[1], float(args[2]), float(args[3])
    allowed = {}
    rest = args[4:]
    while rest:
        if rest.pop(0) != "--expect-empty":
            raise SystemExit("dashboard: unknown option")
        k, why = rest.pop(0).split("::", 1)
        allowed[k] = why
    dash = json.load(open(path))
    problems = []
    values = template_values(prom, dash, start, end, problems)
    panels = []
    for p in dash.get("panels", []):
        panels.append(p)
        panels.extend(p.get("panels", []))       # panels inside collapsed rows
    step = max(1, int((end - start) / 200))
    for p in panels:
        if p.get("type") == "row":
            continue
        targets = [t for t in p.get("targets", []) if t.get("expr")]
        if not targets:
            problems.append("panel %r has no query" % p.get("title"))
            continue
        total = 0
        print("panel %r" % p.get("title"))
        for t in targets:
            expr, unknown = substitute(t["expr"], values)
            if unknown:
                problems.append("panel %r: undefined variable(s) %s" % (p.get("title"), unknown))
                continue
            n = len(api(prom, "query_range", {"query": expr, "start": start,
                                              "end": end, "step": step})["result"])
            total += n
            why = [w for k, w in allowed.items() if k in t["expr"]]
            note = " (may be empty: %s)" % why[0] if n == 0 and why else ""
            print("    %3d series  %s%s" % (n, expr, note))
        # a panel all of whose queries may be empty may show nothing
        if total == 0 and not all(any(k in t["expr"] for k in allowed) for t in targets):
            problems.append("panel %r returned nothing" % p.get("title"))
    for problem in problems:
        print("FAIL: dashboard: " + problem, file=sys.stderr)
    return 1 if problems else 0


def main():
    cmds = {"hook": cmd_hook, "query": cmd_query, "dashboard": cmd_dashboard}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        raise SystemExit(__doc__)
    sys.exit(cmds[sys.argv[1]](sys.argv[2:]))


if __name__ == "__main__":
    main()
