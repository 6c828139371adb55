"""lab/detector/detector_real/watch.py — a helper of lab/detector/detector-real.sh.

watch.py TEXTFILE SINCE PROBE=FAMILY...: one tab-separated line per new run
of a probe, on stdout and appended to $LOG:
  probe start duration counted steal psi_cpu psi_io psi_memory pinned value
  reference ratio change evidence regression noise n_regressed entered left
  judged
for the probe's main figure FAMILY (op="read" preferred); n_regressed,
entered and left cover every series of the probe ("-": none).  pinned: the
reference is pinned (benchwatch_baseline_timestamp_seconds); judged: the run
got a verdict (benchwatch_baseline: from [regression] min_runs runs on since
the detector of 73ee4a6, only once pinned before).
"""
import os, re, sys, time
path, since, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
target = dict(a.split("=", 1) for a in sys.argv[4:])
LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)\s*$')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
SERIES = ("benchwatch_regression", "benchwatch_baseline",
          "benchwatch_baseline_timestamp_seconds", "benchwatch_regression_ratio",
          "benchwatch_regression_change_ratio", "benchwatch_regression_evidence",
          "benchwatch_baseline_noise_ratio")

def parse(text):
    probes = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        name, value = m.group(1), float(m.group(3))
        labels = dict(LABEL.findall(m.group(2) or ""))
        p = probes.setdefault(labels.pop("probe", ""), {"fam": {}, "ser": {}})
        if name in SERIES:
            metric = labels.pop("metric", "?")
            q = labels.pop("metric_quantile", None)
            rest = ",".join("%s=%s" % kv for kv in sorted(labels.items()))
            key = (metric, q, rest)
            p["ser"].setdefault(key, {})[name] = value
        else:
            p["fam"].setdefault(name, []).append((labels, value))
    return probes

def one(p, name, **want):
    for labels, v in p["fam"].get(name, []):
        if all(labels.get(k) == x for k, x in want.items()):
            return v
    return float("nan")

def short(key):
    metric, q, _ = key
    s = metric.replace("benchwatch_", "", 1)
    return s + ("{q=%s}" % q if q else "")

def main_series(p, fam):
    # a gauge's series, or a latency summary's median
    keys = [k for k in p["ser"] if k[0] == fam and k[1] in (None, "0.5")]
    keys.sort(key=lambda k: ("op=read" not in k[2], k[2]))
    return keys[0] if keys else None

last_id, seen, state = None, {}, {}
out = open(log, "a")
while True:
    try:
        st = os.stat(path)
        ident = (st.st_ino, st.st_mtime_ns, st.st_size)
        if ident != last_id:
            last_id = ident
            with open(path) as f:
                probes = parse(f.read())
            for name, p in probes.items():
                ts = one(p, "benchwatch_probe_last_run_timestamp_seconds")
                if name not in target or not ts > since or seen.get(name) == ts:
                    continue
                if one(p, "benchwatch_probe_success") != 1:
                    continue
                seen[name] = ts
                fam = target[name]
                k = main_series(p, fam)
                s = p["ser"].get(k, {}) if k else {}
                value = one(p, fam, op="read")
                if value != value:
                    value = one(p, fam, quantile="0.5")
                if value != value:
                    value = one(p, fam)
                entered, left, nreg = [], [], 0
                for key, sv in p["ser"].items():
                    r = int(sv.get("benchwatch_regression", 0))
                    nreg += r
                    was = state.get((name, key), 0)
                    if r and not was:
                        entered.append(short(key))
                    if was and not r:
                        left.append(short(key))
                    state[(name, key)] = r
                nan = float("nan")
                row = [name, "%.3f" % ts,
                       "%.3f" % one(p, "benchwatch_probe_duration_seconds"),
                       "%d" % one(p, "benchwatch_probe_counted"),
                       "%.4f" % one(p, "benchwatch_probe_steal_ratio"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="cpu"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="io"),
                       "%.4f" % one(p, "benchwatch_probe_pressure_ratio", resource="memory"),
                       "1" if "benchwatch_baseline_timestamp_seconds" in s else "0",
                       "%.6g" % value,
                       "%.6g" % s.get("benchwatch_baseline", nan),
                       "%.4f" % s.get("benchwatch_regression_ratio", nan),
                       "%.4f" % s.get("benchwatch_regression_change_ratio", nan),
                       "%.3f" % s.get("benchwatch_regression_evidence", nan),
                       "%d" % s.get("benchwatch_regression", 0),
                       "%.4f" % s.get("benchwatch_baseline_noise_ratio", nan),
                       "%d" % nreg, ",".join(entered) or "-", ",".join(left) or "-",
                       "1" if "benchwatch_baseline" in s else "0"]
                line = "\t".join(row)
                print(line, flush=True)
                print(line, file=out, flush=True)
    except FileNotFoundError:
        pass
    except BrokenPipeError:
        sys.exit(0)
    time.sleep(0.1)
