"""lab/detector/causes/follow.py — a helper of lab/detector/causes.sh.

Follows a daemon's runs through its textfile (replaced atomically after
every run) and waits for a phase of an injection to end:

  follow.py learn TEXTFILE TIMEOUT PROBE...
      until each probe's latest run has its reference pinned
      (benchwatch_baseline_timestamp_seconds); prints one line a probe
      ("cpu: pinned after 12 runs (11 counted)"); exit 1 on TIMEOUT seconds,
      naming the probes still learning.
  follow.py ref TEXTFILE PROBE FAMILY
      the pinned reference of the probe's series of FAMILY (op="read" and
      the median preferred), as a number.
  follow.py regress TEXTFILE SINCE MAXRUNS SETTLE ERRLOG OFFSET OUT PROBE...
      after the injection at SINCE (UNIX time; runs that began before it do
      not count): each probe's runs until it has been in regression for
      SETTLE runs, or has had MAXRUNS runs without one; then writes OUT, a
      JSON list with, per probe: runs after the injection, the run (1 = the
      first after it) that entered a regression, the cause label the
      textfile carried (benchwatch_regression_cause) on each regressed run,
      and the daemon's last verdict line for the probe in ERRLOG after
      byte OFFSET (the line made when the regression is entered or its
      cause changes), split into the figure and the cause with its
      evidence.
"""
import json, os, re, sys, time

LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)\s*$')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
NAN = float("nan")


def parse(text):
    """{probe: [(name, labels, value)]}"""
    probes = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        labels = dict(LABEL.findall(m.group(2) or ""))
        probes.setdefault(labels.pop("probe", ""), []).append((m.group(1), labels, value))
    return probes


def one(samples, name, **want):
    for n, labels, v in samples:
        if n == name and all(labels.get(k) == x for k, x in want.items()):
            return v
    return NAN


def run_of(samples):
    """The run's facts the phases need."""
    pinned = any(n == "benchwatch_baseline_timestamp_seconds" for n, _, _ in samples)
    nreg = sum(int(v) for n, _, v in samples if n == "benchwatch_regression")
    cause = [l.get("cause", "?") for n, l, v in samples
             if n == "benchwatch_regression_cause" and v == 1]
    return {"start": one(samples, "benchwatch_probe_last_run_timestamp_seconds"),
            "success": one(samples, "benchwatch_probe_success") == 1,
            "counted": one(samples, "benchwatch_probe_counted") == 1,
            "pinned": pinned, "nreg": nreg, "cause": cause[0] if cause else ""}


class Follower:
    """New runs of the probes, as they come."""

    def __init__(self, path, probes, since=0.0):
        self.path, self.probes, self.since = path, probes, since
        self.ident, self.seen = None, {}

    def poll(self):
        try:
            st = os.stat(self.path)
            ident = (st.st_ino, st.st_mtime_ns, st.st_size)
            if ident == self.ident:
                return []
            self.ident = ident
            with open(self.path) as f:
                probes = parse(f.read())
        except FileNotFoundError:
            return []
        new = []
        for p in self.probes:
            r = run_of(probes.get(p, []))
            if not r["start"] >= self.since or self.seen.get(p) == r["start"]:
                continue
            self.seen[p] = r["start"]
            r["probe"] = p
            new.append(r)
        return new


def learn(path, timeout, probes):
    f = Follower(path, probes)
    runs = {p: [0, 0] for p in probes}
    pinned, alarms = set(), []
    end = time.time() + timeout
    while time.time() < end and len(pinned) < len(probes):
        for r in f.poll():
            p = r["probe"]
            runs[p][0] += 1
            runs[p][1] += r["counted"]
            if r["nreg"]:
                alarms.append(p)
            if r["pinned"] and p not in pinned:
                pinned.add(p)
                print("   %s: reference pinned after %d runs (%d counted)" % (p, *runs[p]))
        time.sleep(0.1)
    if alarms:
        print("   (a regression during the reference: %s)" % ", ".join(sorted(set(alarms))))
    left = [p for p in probes if p not in pinned]
    if left:
        print("   no reference within %d s: %s" % (timeout, ", ".join(
            "%s (%d runs, %d counted)" % (p, *runs[p]) for p in left)))
        return 1
    return 0


def ref(path, probe, family):
    with open(path) as f:
        samples = parse(f.read()).get(probe, [])
    best = None
    for n, labels, v in samples:
        if n != "benchwatch_baseline" or labels.get("metric") != family:
            continue
        key = (labels.get("metric_quantile") not in (None, "0.5"), labels.get("op") != "read")
        if best is None or key < best[0]:
            best = (key, v)
    if best is None:
        return 1
    print("%.6g" % best[1])
    return 0


VERDICT = re.compile(r"probe '([^']+)': (.*?)(?:; cause: (.*))?$")


def verdict_lines(errlog, offset):
    """{probe: (figure, cause sentence)} of the last verdict line of each."""
    out = {}
    try:
        with open(errlog, "rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        i = line.find("probe '")
        m = VERDICT.match(line[i:]) if i >= 0 else None
        if not m or " since " not in m.group(2):
            continue
        figure = re.sub(r" \(95% CI [^)]*\)", "", m.group(2).split(" since ")[0])
        out[m.group(1)] = (figure, m.group(3) or "")
    return out


def regress(path, since, maxruns, settle, errlog, offset, out, probes):
    f = Follower(path, probes, since)
    st = {p: {"probe": p, "runs": 0, "counted": 0, "failed": 0, "entered": 0,
              "labels": [], "regressed_runs": 0, "final": ""} for p in probes}

    def done(s):
        return s["regressed_runs"] >= settle or (not s["entered"] and s["runs"] >= maxruns)

    # a bound on the wall time too: a probe whose runs stop coming
    end = time.time() + 600
    while time.time() < end and not all(done(s) for s in st.values()):
        for r in f.poll():
            s = st[r["probe"]]
            s["runs"] += 1
            s["counted"] += r["counted"]
            s["failed"] += not r["success"]
            if not r["nreg"]:
                continue
            if not s["entered"]:
                s["entered"] = s["runs"]
            s["regressed_runs"] += 1
            s["labels"].append(r["cause"])
            s["final"] = r["cause"]
        time.sleep(0.1)
    lines = verdict_lines(errlog, offset)
    for p, s in st.items():
        s["figure"], s["sentence"] = lines.get(p, ("", ""))
    with open(out, "w") as f:
        json.dump(list(st.values()), f)
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "learn" and len(argv) >= 5:
        return learn(argv[2], float(argv[3]), argv[4:])
    if cmd == "ref" and len(argv) == 5:
        return ref(argv[2], argv[3], argv[4])
    if cmd == "regress" and len(argv) >= 10:
        return regress(argv[2], float(argv[3]), int(argv[4]), int(argv[5]), argv[6],
                       int(argv[7]), argv[8], argv[9:])
    print(__doc__.split("\n\n", 1)[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
