#!/usr/bin/env python3
"""remote_write_check.py — for remote_write.sh: what a receiver holds of a
probe, compared with what the daemon itself recorded.

  remote_write_check.py prom|vm URL PROBE HISTORY TEXTFILE INSTANCE [EXTRA=V]

Reads every raw sample of {job="benchwatch",probe=PROBE} back (Prometheus:
a range-vector instant query, which returns stored samples with their own
timestamps; VictoriaMetrics: /api/v1/export), then asserts:
  - each run the daemon recorded in its history file (timestamp, series,
    value) is there, at that timestamp in ms, with that value;
  - the runs are exactly those: benchwatch_probe_success has one sample
    per distinct history timestamp, no more, no fewer;
  - the last run's every series of the textfile (name, labels, value) is
    there at the run's timestamp (benchwatch_probe_last_run_timestamp_
    seconds), bit for bit in Prometheus, to 12 digits in VictoriaMetrics, with job="benchwatch", instance=INSTANCE and the extra label
    added, and nothing else is stored at that timestamp.
Prints "runs=N series=M" on success; exits 1 with the reason otherwise."""
import json, re, sys, urllib.parse, urllib.request

kind, url, probe, history, textfile, instance = sys.argv[1:7]
extra = dict(a.split("=", 1) for a in sys.argv[7:])
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def die(msg):
    print("remote_write_check: " + msg, file=sys.stderr)
    sys.exit(1)


def key(name, labels):
    return name + "{" + ",".join('%s="%s"' % kv for kv in sorted(labels.items())
                                 if kv[1] != "") + "}"


def parse_series(text):
    name, _, rest = text.partition("{")
    return name, dict(LABEL.findall(rest))


def fetch():
    sel = '{job="benchwatch",probe="%s"}' % probe
    got = {}  # key -> {ts_ms: value}
    if kind == "prom":
        q = urllib.parse.urlencode({"query": sel + "[1d]"})
        d = json.load(urllib.request.urlopen(url + "/api/v1/query?" + q))
        for s in d["data"]["result"]:
            m = s["metric"]
            got[key(m.pop("__name__"), m)] = {
                round(float(t) * 1000): float(v) for t, v in s["values"]}
    else:
        q = urllib.parse.urlencode({"match[]": sel, "start": "0"})
        for line in urllib.request.urlopen(url + "/api/v1/export?" + q):
            s = json.loads(line)
            m = s["metric"]
            got[key(m.pop("__name__"), m)] = dict(zip(s["timestamps"], s["values"]))
    return got


def target(labels):
    labels = dict(labels, job="benchwatch", instance=instance, probe=probe)
    labels.update(extra)
    return labels


def same(stored, sent, series):
    """Prometheus keeps every bit; VictoriaMetrics keeps values as decimals
    of 12 significant digits (its documented storage format), with an
    exponent shared by a block of the series' values: a value near 0 beside
    larger ones keeps fewer (a change ratio of -1.7763568394002489e-15, the
    rounding of a change of 0, came back as -1.77635e-15; CI, 7 December),
    so the tolerance is of the largest value of the series too."""
    if kind == "prom":
        return stored == sent or (stored != stored and sent != sent)
    scale = max([abs(sent)] + [abs(x) for x in series.values() if x == x])
    return abs(stored - sent) <= 1e-11 * scale


got = fetch()
runs = set()
for line in open(history):
    f = line.split(None, 5)
    if len(f) < 6 or f[0] == "benchwatch-history":
        continue
    ts = round(float(f[0]) * 1000)
    runs.add(ts)
    name, labels = parse_series(f[5].strip())
    k = key(name, target(labels))
    if k not in got or ts not in got[k]:
        die("run at %d: %s not stored at that time (stored: %s)"
            % (ts, k, sorted(got.get(k, {}))[-5:]))
    v, want = got[k][ts], float(f[3])
    if abs(v - want) > 1e-6 * abs(want):
        die("run at %d: %s = %r, the daemon recorded %r" % (ts, k, v, want))

succ = got.get(key("benchwatch_probe_success", target({})), {})
if set(succ) != runs:
    die("runs stored %s, runs the daemon made %s"
        % (sorted(succ), sorted(runs)))

last = None
want_last = {}
for line in open(textfile):
    if line.startswith("#") or ('probe="%s"' % probe) not in line:
        continue
    series, value = line.rsplit(" ", 1)
    name, labels = parse_series(series)
    want_last[key(name, target(labels))] = float(value)
    if name == "benchwatch_probe_last_run_timestamp_seconds":
        last = round(float(value) * 1000)
if last not in runs:
    die("the textfile's last run %s is not among the runs %s" % (last, sorted(runs)))
for k, v in want_last.items():
    if last not in got.get(k, {}):
        die("last run: %s not stored at %d" % (k, last))
    if not same(got[k][last], v, got[k]):
        die("last run: %s = %r, the textfile says %r" % (k, got[k][last], v))
extra_series = [k for k, s in got.items() if last in s and k not in want_last]
if extra_series:
    die("last run: stored but not in the textfile: %s" % extra_series)
print("runs=%d series=%d" % (len(runs), len(want_last)))
