#!/usr/bin/env python3
"""faults.py — the checks and the report of bench/faults/faults.sh.

The campaign script injects the faults; this file judges what they did, so
that the judging can be read (and rerun on a kept directory) on its own:

  faults.py monitor LEADER OUT.jsonl
      Until SIGTERM, ten times a second from the host's /proc: every
      `benchwatch __child` in the container (the PID namespace of LEADER)
      whose parent is no longer a `benchwatch daemon` is an orphan, and how
      long it lives on is recorded; one alive longer than MAX_RUN seconds
      outlived its deadline.  Every 5 s, each daemon's RssAnon.
  faults.py files STATE_DIR WHEN
      Parses every history, baseline, spool and textfile file in STATE_DIR
      (the baseline's FNV-1a checksum too); one JSON line on stdout: how
      many files, which are torn and why.
  faults.py report DIR STATE_DIR PROM_URL SEED DURATION
      Reads what the campaign left in DIR (faults.log, monitor.jsonl,
      files.log, journal.json, unit.txt, textfile.txt) and Prometheus, prints
      the report, and exits 1 when an invariant broke.
"""
import json
import os
import re
import signal
import sys
import time
import urllib.parse
import urllib.request

MAX_RUN = 30 + 1.5      # the longest probe timeout of the campaign, and slack
ORPHAN_LIMIT = 1.0      # the promise: gone within a second
RSS_GROWTH = 0.10
# the longest probe timeout of the campaign's configuration (bench/faults/faults.sh)
STOP_DEADLINE_MAX = 30.0
KINDS = ("kill_child", "kill_daemon", "stop_child", "enospc", "rw_down", "pgw_down",
         "nginx_down", "mariadb_down", "reload_good", "reload_bad", "clock_jump",
         "garbage")


# ---- monitor ------------------------------------------------------------------

def proc_cmdline(pid):
    with open("/proc/%s/cmdline" % pid, "rb") as f:
        return f.read().split(b"\0")


def proc_stat(pid):
    with open("/proc/%s/stat" % pid) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return rest[0], int(rest[1]), int(rest[19])  # state, ppid, starttime


def rss_anon(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return None


def scan(pidns, init):
    daemons, children = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            # read every time: a cached answer would outlive a reused pid
            if os.readlink("/proc/%s/ns/pid" % pid) != pidns:
                continue
            argv = proc_cmdline(pid)
            if len(argv) < 2 or not argv[0].endswith(b"benchwatch"):
                continue
            if argv[1] == b"daemon":
                # the service's main process, not a probe process between
                # its spawn and its exec (which still shows the daemon's argv)
                daemons[int(pid)] = proc_stat(pid)[1] == init
            elif argv[1] == b"__child":
                children[int(pid)] = proc_stat(pid)
        except OSError:
            pass
    return daemons, children


def monitor(leader, out):
    pidns = os.readlink("/proc/%s/ns/pid" % leader)
    tick = os.sysconf("SC_CLK_TCK")
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    orphans, overlong, seen_daemons = {}, set(), set()
    last_rss = 0.0
    with open(out, "a") as f:
        def emit(**ev):
            ev["t"] = round(time.time(), 3)
            f.write(json.dumps(ev) + "\n")
            f.flush()
        while not stop:
            now = time.time()
            with open("/proc/uptime") as u:
                uptime = float(u.read().split()[0])
            daemons, children = scan(pidns, int(leader))
            for d, main in daemons.items():
                if main and d not in seen_daemons:
                    seen_daemons.add(d)
                    emit(ev="daemon", pid=d)
            for pid, (state, ppid, start) in children.items():
                alive = state not in ("Z", "X")
                if alive and ppid not in daemons and pid not in orphans:
                    orphans[pid] = now
                age = uptime - start / tick
                if alive and age > MAX_RUN and pid not in overlong:
                    overlong.add(pid)
                    emit(ev="overlong", pid=pid, age=round(age, 2), state=state)
            for pid in list(orphans):
                st = children.get(pid)
                if st is None or st[0] in ("Z", "X"):
                    emit(ev="orphan", pid=pid, lived=round(now - orphans.pop(pid), 3))
            if now - last_rss >= 5:
                last_rss = now
                for d in (d for d, main in daemons.items() if main):
                    try:
                        emit(ev="rss", pid=d, kb=rss_anon(d))
                    except OSError:
                        pass
            time.sleep(0.1)
        for pid, t0 in orphans.items():
            emit(ev="orphan_alive", pid=pid, lived=round(time.time() - t0, 3))


# ---- files --------------------------------------------------------------------

def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def check_history(data):
    lines = data.split(b"\n")
    partial = lines.pop() != b""   # a last line without its newline: allowed
    if not lines or lines[0] != b"benchwatch-history 1":
        return "bad header", partial
    for n, line in enumerate(lines[1:], 2):
        f = line.split(None, 5)
        try:
            if len(f) < 6 or f[1] not in (b"0", b"1") or f[2] not in (b"L", b"O", b"R"):
                raise ValueError
            float(f[0]), float(f[3])
            if f[4] != b"-":    # no reference yet
                float(f[4])
        except ValueError:
            return "line %d does not parse: %r" % (n, line[:80]), partial
    return None, partial


def check_baseline(data):
    if not data.startswith(b"benchwatch-baseline "):
        return "bad header"
    if not data.endswith(b"\n"):
        return "no final newline"
    body, _, last = data[:-1].rpartition(b"\n")
    f = last.split()
    if len(f) != 3 or f[0] != b"end":
        return "no end line"
    want = int(f[2], 16)
    got = fnv1a64(body + b"\n")
    if got != want:
        return "checksum %016x, end line says %016x" % (got, want)
    return None


def varint(b, i):
    n = shift = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        n |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return n, i


def unsnappy(b):
    """A raw snappy block (the remote-write framing)."""
    want, i = varint(b, 0)
    out = bytearray()
    while i < len(b):
        tag = b[i]
        i += 1
        kind = tag & 3
        if kind == 0:
            n = tag >> 2
            if n >= 60:
                k = n - 59
                n = int.from_bytes(b[i:i + k], "little")
                i += k
            n += 1
            if i + n > len(b):
                raise ValueError("literal past the end")
            out += b[i:i + n]
            i += n
            continue
        if kind == 1:
            n, off = ((tag >> 2) & 7) + 4, ((tag >> 5) << 8) | b[i]
            i += 1
        elif kind == 2:
            n, off = (tag >> 2) + 1, int.from_bytes(b[i:i + 2], "little")
            i += 2
        else:
            n, off = (tag >> 2) + 1, int.from_bytes(b[i:i + 4], "little")
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("bad copy offset")
        for _ in range(n):
            out.append(out[-off])
    if len(out) != want:
        raise ValueError("length %d, header says %d" % (len(out), want))
    return bytes(out)


def walk_proto(b):
    """Every field of a protobuf message, to its exact end."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 1:
            i += 8
        elif wt == 2:
            n, i = varint(b, i)
            i += n
        elif wt == 5:
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
        if i > len(b):
            raise ValueError("field past the end")


def check_spool(data):
    try:
        walk_proto(unsnappy(data))
    except (ValueError, IndexError) as e:
        return "not a snappy remote-write request: %s" % e
    return None


SAMPLE = re.compile(rb'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEInfNa]+$')


def check_textfile(data):
    if data and not data.endswith(b"\n"):
        return "no final newline"
    for n, line in enumerate(data.split(b"\n")[:-1], 1):
        if line and not line.startswith(b"#") and not SAMPLE.match(line):
            return "line %d: %r" % (n, line[:80])
    return None


def files(state, when):
    torn, partial, n, temps = [], 0, 0, 0
    for dirpath, _, names in os.walk(state):
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, state)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue  # gone meanwhile: replaced or sent
            why = None
            if re.fullmatch(r"history-.*\.txt", name):
                why, p = check_history(data)
                partial += p
            elif re.fullmatch(r"baseline-.*\.txt", name):
                why = check_baseline(data)
            elif rel.startswith("remote-write/"):
                if not re.fullmatch(r"\d{20}\.rw", name):
                    temps += 1
                    continue
                why = check_spool(data)
            elif name == "benchwatch.prom":
                why = check_textfile(data)
            else:
                continue
            n += 1
            if why:
                torn.append("%s: %s" % (rel, why))
    print(json.dumps({"t": round(time.time(), 3), "when": when, "files": n,
                      "torn": torn, "partial_last_lines": partial, "temps": temps}))


# ---- report -------------------------------------------------------------------

def read_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def jsonl(path):
    out = []
    for line in read_lines(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def series_key(name, labels):
    return name + "{" + ",".join('%s="%s"' % kv for kv in sorted(labels.items())
                                 if kv[1] != "") + "}"


def prom_series(prom, probe):
    sel = '{job="benchwatch",probe="%s"}[7d]' % probe
    q = urllib.parse.urlencode({"query": sel, "time": time.time() + 3 * 3600})
    d = json.load(urllib.request.urlopen(prom + "/api/v1/query?" + q, timeout=30))
    got = {}
    for s in d["data"]["result"]:
        m = s["metric"]
        got[series_key(m.pop("__name__"), m)] = {
            round(float(t) * 1000): float(v) for t, v in s["values"]}
    return got


def remote_write_check(state, prom):
    """Per probe: runs in the history, and of those, the ones Prometheus
    lacks at their own timestamp, or holds with another value."""
    out = {}
    for name in sorted(os.listdir(state)):
        m = re.fullmatch(r"history-(.*)\.txt", name)
        if not m:
            continue
        probe = m.group(1)
        got = prom_series(prom, probe)
        runs, lost, wrong = set(), set(), 0
        for line in read_lines(os.path.join(state, name))[1:]:
            f = line.split(None, 5)
            if len(f) < 6:
                continue
            ts = round(float(f[0]) * 1000)
            runs.add(ts)
            sname, _, rest = f[5].partition("{")
            labels = dict(LABEL.findall(rest))
            labels.update(job="benchwatch", instance="faults", probe=probe)
            k = series_key(sname, labels)
            if ts not in got.get(k, {}):
                lost.add(ts)
            elif abs(got[k][ts] - float(f[3])) > 1e-6 * abs(float(f[3])):
                wrong += 1
        succ = got.get(series_key("benchwatch_probe_success",
                                  {"job": "benchwatch", "instance": "faults",
                                   "probe": probe}), {})
        extra = {t for t, v in succ.items() if v == 1 and t not in runs}
        out[probe] = {"runs": len(runs), "lost": len(lost), "wrong_value": wrong,
                      "unexplained": len(extra),
                      "failed_runs_stored": sum(1 for v in succ.values() if v == 0)}
    return out


def textfile_counter(path, name):
    total = 0.0
    for line in read_lines(path):
        if line.startswith(name):
            try:
                total += float(line.rsplit(" ", 1)[1])
            except ValueError:
                pass
    return total


def journal_results(path):
    """(realtime s, probe, success, error) of every run result, in order."""
    res = []
    for e in jsonl(path):
        if "BENCHWATCH_PROBE" in e and "BENCHWATCH_SUCCESS" in e:
            res.append((int(e["__REALTIME_TIMESTAMP"]) / 1e6, e["BENCHWATCH_PROBE"],
                        e["BENCHWATCH_SUCCESS"] == "1", e.get("BENCHWATCH_ERROR", "")))
    return res


def report(d, state, prom, seed, duration):
    bad = []
    faults, kinds, skipped, states, notes = [], {}, {}, [], []
    start = None
    for line in read_lines(os.path.join(d, "faults.log")):
        f = line.split()
        if len(f) < 3:
            continue
        rel, epoch, kind = float(f[0]), float(f[1]), f[2]
        if kind == "start":
            start = epoch
            continue
        if "skipped" in line:
            skipped[kind] = skipped.get(kind, 0) + 1
            continue
        if kind == "unit_state":
            states.append((rel, " ".join(f[3:])))
            continue
        if kind not in KINDS:
            notes.append(line)
            continue
        faults.append((rel, epoch, kind, " ".join(f[3:])))
        kinds[kind] = kinds.get(kind, 0) + 1

    if states:
        bad.append("unit not active (or on its way back) %d time(s) in 2-s checks, first at "
                   "%.0f s: %s, last at %.0f s: %s" % (len(states), states[0][0], states[0][1],
                                                       states[-1][0], states[-1][1]))
    mon = jsonl(os.path.join(d, "monitor.jsonl"))
    orphans = [e for e in mon if e["ev"] in ("orphan", "orphan_alive")]
    late = [e for e in orphans if e["lived"] > ORPHAN_LIMIT or e["ev"] == "orphan_alive"]
    overlong = [e for e in mon if e["ev"] == "overlong"]
    rss = [e for e in mon if e["ev"] == "rss" and e.get("kb")]
    # a probe process between spawn and exec shows the daemon's argv: a
    # daemon is one sampled more than once
    n_rss = {}
    for e in rss:
        n_rss[e["pid"]] = n_rss.get(e["pid"], 0) + 1
    rss = [e for e in rss if n_rss[e["pid"]] > 1]
    daemons = [e for e in mon if e["ev"] == "daemon" and n_rss.get(e["pid"], 0) > 1]
    if late:
        bad.append("%d orphan(s) lived over %.1f s: %s" % (
            len(late), ORPHAN_LIMIT, ", ".join("%s s" % e["lived"] for e in late)))
    if overlong:
        bad.append("%d probe process(es) outlived their deadline" % len(overlong))

    checks = jsonl(os.path.join(d, "files.log"))
    torn = [(c["when"], t) for c in checks for t in c["torn"]]
    if torn:
        bad.append("%d torn file(s): %s" % (len(torn), "; ".join("%s after %s" % (t, w) for w, t in torn[:5])))
    if not checks:
        bad.append("no file check ran")

    unit = dict(l.split(" ", 1) for l in read_lines(os.path.join(d, "unit.txt")) if " " in l)
    jpath = os.path.join(d, "journal.json")
    results = journal_results(jpath)
    watchdog = [e for e in jsonl(jpath) if "atchdog timeout" in e.get("MESSAGE", "")]
    if watchdog:
        bad.append("%d watchdog timeout(s)" % len(watchdog))

    # the run a fault hit (probes never overlap: the next result) must fail,
    # unless its daemon died first (then the run is lost with it, no result)
    starts = [int(e["__REALTIME_TIMESTAMP"]) / 1e6 for e in jsonl(jpath)
              if re.match(r"benchwatch \S+ started: ", str(e.get("MESSAGE", "")))]
    hit_ok, hit_lost = [], 0
    for rel, epoch, kind, detail in faults:
        if kind not in ("kill_child", "stop_child", "garbage"):
            continue
        # a hang whose deadline falls after the campaign's end is ended by
        # the end itself (systemd sends SIGCONT with a stop's SIGTERM), not
        # by the deadline: nothing to judge
        if kind == "stop_child" and start is not None and \
                epoch + STOP_DEADLINE_MAX > start + duration:
            continue
        nxt = next((r for r in results if r[0] >= epoch), None)
        if nxt and any(epoch <= s <= nxt[0] for s in starts):
            hit_lost += 1
        elif nxt and nxt[2]:
            hit_ok.append("%s at %.0f s: %s run succeeded" % (kind, rel, nxt[1]))
    if hit_ok:
        bad.append("a run hit by a fault counted as a success: " + "; ".join(hit_ok))

    regressions = []
    for name in os.listdir(state):
        if name.startswith("history-"):
            for line in read_lines(os.path.join(state, name))[1:]:
                f = line.split(None, 5)
                if len(f) == 6 and f[2] == "R":
                    regressions.append("%s %s %s" % (name[8:-4], f[0], f[5]))
    if regressions:
        bad.append("%d regression verdict(s): %s" % (len(regressions), regressions[:3]))

    try:
        rw = remote_write_check(state, prom)
    except (OSError, ValueError) as e:
        rw = {}
        bad.append("cannot read Prometheus: %s" % e)
    dropped = textfile_counter(os.path.join(d, "textfile.txt"),
                               "benchwatch_remote_write_dropped_total")
    lost = sum(v["lost"] for v in rw.values())
    if lost > dropped:
        bad.append("%d run(s) lost by remote write (%d counted dropped)" % (lost, dropped))
    if any(v["wrong_value"] or v["unexplained"] for v in rw.values()):
        bad.append("remote write: wrong values or runs not in the history: %s" % rw)

    if unit.get("after_stop_processes", "0") != "0":
        bad.append("benchwatch processes left after the stop: %s" % unit["after_stop_processes"])
    if unit.get("cache_left", "").strip():
        bad.append("left in the cache directory after cleanup: %s" % unit["cache_left"])
    if unit.get("tables_left", "0").strip() not in ("0", ""):
        bad.append("tables left after cleanup: %s" % unit["tables_left"])

    # memory: per daemon, RssAnon after its first REF seconds (ten minutes,
    # or a sixth of a short campaign) is the reference
    ref_age = min(600.0, duration / 6.0)
    by_pid = {}
    for e in rss:
        by_pid.setdefault(e["pid"], []).append((e["t"], e["kb"]))
    mem_lines, growth = [], []
    for pid, s in by_pid.items():
        t0 = s[0][0]
        ref = next((kb for t, kb in s if t - t0 >= ref_age), None)
        if ref:
            worst = max(kb for t, kb in s if t - t0 >= ref_age)
            if worst > ref * (1 + RSS_GROWTH):
                growth.append("daemon %d: RssAnon %d kB after %.0f s, %d kB later" % (pid, ref, ref_age, worst))
        mem_lines.append("  daemon pid %d: %.0f s, RssAnon %s kB" % (
            pid, s[-1][0] - t0, " ".join(str(kb) for _, kb in s[::max(1, len(s) // 12)])))
    # the ten minutes of the issue: a shorter campaign shows, does not judge
    if growth and duration >= 1200:
        bad.append("memory grew: " + "; ".join(growth))

    ok = sum(1 for r in results if r[2])
    failed = len(results) - ok
    P = print
    P("== fault campaign: seed %s, %d s (replay: bench/faults/faults.sh %d %s) ==" % (seed, duration, duration, seed))
    P("faults injected: %d  %s" % (len(faults), "  ".join("%s=%d" % kv for kv in sorted(kinds.items()))))
    if skipped:
        P("faults skipped (nothing to hit): %s" % "  ".join("%s=%d" % kv for kv in sorted(skipped.items())))
    P("runs: %d completed, %d failed (journal); in the history: %d" % (
        ok, failed, sum(v["runs"] for v in rw.values())))
    P("remote write: lost %d, counted dropped %d, wrong values %d, unexplained %d; per probe %s" % (
        lost, dropped, sum(v["wrong_value"] for v in rw.values()),
        sum(v["unexplained"] for v in rw.values()),
        " ".join("%s=%d/%d" % (p, v["runs"] - v["lost"], v["runs"]) for p, v in rw.items())))
    P("files: %d checks, %d files at the last, torn %d, partial last lines (allowed) %d" % (
        len(checks), checks[-1]["files"] if checks else 0, len(torn),
        max((c["partial_last_lines"] for c in checks), default=0)))
    lived = sorted(e["lived"] for e in orphans)
    P("orphans: %d, lived max %.3f s (limit %.1f), over the limit %d; past their deadline %d" % (
        len(orphans), lived[-1] if lived else 0, ORPHAN_LIMIT, len(late), len(overlong)))
    P("restarts: NRestarts=%s, daemons seen %d, watchdog timeouts %d, unit state %s" % (
        unit.get("NRestarts", "?"), len(daemons), len(watchdog), unit.get("ActiveState", "?")))
    P("verdicts: regression %d; fault-hit runs counted as success %d (lost with their daemon %d)"
      % (len(regressions), len(hit_ok), hit_lost))
    P("left behind after stop + cleanup: processes %s, cache [%s], tables %s" % (
        unit.get("after_stop_processes", "?"), unit.get("cache_left", "").strip(),
        unit.get("tables_left", "?")))
    P("daemon memory over time (RssAnon, flat within %d%% after %.0f s%s):" % (
        RSS_GROWTH * 100, ref_age, "" if duration >= 1200 else "; shown, not judged under 20 min"))
    for g in growth:
        P("  grew: " + g)
    for m in mem_lines:
        P(m)
    if bad:
        P("INVARIANTS BROKEN:")
        for b in bad:
            P("  - " + b)
        return 1
    P("every invariant held")
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "monitor":
        monitor(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "files":
        files(argv[2], argv[3])
        return 0
    if len(argv) == 7 and argv[1] == "report":
        return report(argv[2], argv[3], argv[4], argv[5], float(argv[6]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
