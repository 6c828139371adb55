#!/usr/bin/env python3
"""faults.py — the checks and the report of tests/faults/faults.sh.

The campaign script injects the faults; this file judges what they did, so
that the judging can be read (and rerun on a kept directory) on its own:

  faults.py monitor LEADER OUT.jsonl [STATE_DIR]
      Until SIGTERM, ten times a second from the host's /proc: every
      `benchwatch __child` in the container (the PID namespace of LEADER)
      whose parent is no longer a `benchwatch daemon` is an orphan, and how
      long it lives on is recorded; one alive longer than MAX_RUN seconds
      outlived its deadline.  Every 5 s, each daemon's RssAnon (and where
      it lies: the main heap, other anonymous maps, libraries' own pages),
      the host's busy CPU share over those 5 s (/proc/stat: every
      process's, the campaign's and its neighbours'), and the daemon's
      benchwatch_remote_write_dropped_total from the textfile in STATE_DIR
      (a counter each daemon starts at 0: a kill -9 takes its count along).
      A scan of /proc is not atomic: an orphan is one whose parent, read
      again on its own, is not a daemon, and its end is its /proc entry
      gone (or a zombie), not a scan that missed it.
  faults.py files STATE_DIR WHEN
      Parses every history, baseline, spool and textfile file in STATE_DIR
      (the baseline's FNV-1a checksum too); one JSON line on stdout: how
      many files, which are torn and why.
  faults.py report DIR STATE_DIR PROM_URL SEED DURATION
      Reads what the campaign left in DIR (faults.log, monitor.jsonl,
      files.log, journal.json, unit.txt, textfile.txt) and Prometheus, prints
      the report, and exits 1 when an invariant broke.
"""
import bisect
import errno
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
# the longest probe timeout of the campaign's configuration (tests/faults/faults.sh)
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


def rss_split(pid):
    """RssAnon's parts (kB): the main heap, other anonymous maps (malloc's
    thread arenas, stacks), private pages of mapped files (libraries)."""
    heap = anon = lib = 0
    name = ""
    with open("/proc/%s/smaps" % pid) as f:
        for line in f:
            if "-" in line.split(" ", 1)[0]:
                parts = line.split()
                name = parts[5] if len(parts) > 5 else ""
            elif line.startswith("Anonymous:"):
                kb = int(line.split()[1])
                if name == "[heap]":
                    heap += kb
                elif name == "" or name.startswith("["):
                    anon += kb
                else:
                    lib += kb
    return heap, anon, lib


def daemon_parent(pidns, ppid):
    """What the parent of a probe process is, read on its own: None when it
    is a `benchwatch daemon` of the container, else a word on what it is."""
    try:
        if os.readlink("/proc/%d/ns/pid" % ppid) != pidns:
            return "pid %d outside the container" % ppid
        argv = proc_cmdline(ppid)
        state = proc_stat(ppid)[0]
    except OSError as e:
        return "pid %d %s" % (ppid, "gone" if e.errno in (errno.ENOENT, errno.ESRCH)
                              else "unreadable: " + e.strerror)
    if len(argv) >= 2 and argv[0].endswith(b"benchwatch") and argv[1] == b"daemon" \
            and state not in ("Z", "X"):
        return None
    return "pid %d: %s (%s)" % (ppid, b" ".join(argv[:3]).decode(errors="replace"), state)


def child_alive(pid, start):
    """The probe process pid (started at start) still there, not a zombie."""
    try:
        state, _, st = proc_stat(pid)
    except OSError:
        return False
    return st == start and state not in ("Z", "X")


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


def cpu_times():
    """(busy, total) jiffies of the host, from /proc/stat's cpu line."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    total = sum(v[:8])
    return total - idle, total


def textfile_value(path, name):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name + " ") or line.startswith(name + "{"):
                    return float(line.rsplit(" ", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def monitor(leader, out, state_dir=None):
    pidns = os.readlink("/proc/%s/ns/pid" % leader)
    last_cpu = cpu_times()
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
                    # the scan may have missed the daemon: ask the parent
                    why = daemon_parent(pidns, ppid)
                    if why is None:
                        emit(ev="misread", pid=pid, ppid=ppid)
                    else:
                        orphans[pid] = (now, start, why)
                age = uptime - start / tick
                if alive and age > MAX_RUN and pid not in overlong:
                    overlong.add(pid)
                    emit(ev="overlong", pid=pid, age=round(age, 2), state=state)
            for pid in list(orphans):
                t0, start, why = orphans[pid]
                if not child_alive(pid, start):
                    del orphans[pid]
                    emit(ev="orphan", pid=pid, lived=round(now - t0, 3), parent=why)
            if now - last_rss >= 5:
                last_rss = now
                busy, total = cpu_times()
                if total > last_cpu[1]:
                    emit(ev="host", busy=round((busy - last_cpu[0]) / (total - last_cpu[1]), 3))
                last_cpu = (busy, total)
                mains = [d for d, main in daemons.items() if main]
                if state_dir and len(mains) == 1:
                    # only a textfile this daemon wrote (not its predecessor's)
                    tf = os.path.join(state_dir, "benchwatch.prom")
                    try:
                        born = now - (uptime - proc_stat(mains[0])[2] / tick)
                        n = textfile_value(tf, "benchwatch_remote_write_dropped_total") \
                            if os.stat(tf).st_mtime > born else None
                    except (OSError, ValueError, IndexError):
                        n = None
                    if n is not None:
                        emit(ev="dropped", pid=mains[0], n=n)
                for d in mains:
                    try:
                        heap, anon, lib = rss_split(d)
                        emit(ev="rss", pid=d, kb=rss_anon(d), heap=heap, anon=anon, lib=lib)
                    except (OSError, ValueError, IndexError):
                        pass
            time.sleep(0.1)
        for pid, (t0, _, why) in orphans.items():
            emit(ev="orphan_alive", pid=pid, lived=round(time.time() - t0, 3), parent=why)


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


def proto_fields(b):
    """(field number, wire type, value) of a protobuf message: an int for
    varints and fixed widths, bytes for length-delimited fields."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def spooled_runs(state):
    """(probe, timestamp in ms) of the runs still in the remote-write spool
    (sent at the daemon's next start: not lost)."""
    out = set()
    d = os.path.join(state, "remote-write")
    for name in os.listdir(d) if os.path.isdir(d) else []:
        if not re.fullmatch(r"\d{20}\.rw", name):
            continue
        try:
            with open(os.path.join(d, name), "rb") as f:
                req = unsnappy(f.read())
            for num, _, ts in proto_fields(req):
                if num != 1:
                    continue
                labels, stamps = {}, []
                for n2, _, v in proto_fields(ts):
                    if n2 == 1:
                        kv = {a: b for a, _, b in proto_fields(v)}
                        labels[kv.get(1, b"").decode()] = kv.get(2, b"").decode()
                    elif n2 == 2:
                        stamps += [x for a, _, x in proto_fields(v) if a == 2]
                if labels.get("probe"):
                    out.update((labels["probe"], t) for t in stamps)
        except (OSError, ValueError, IndexError):
            pass
    return out


def remote_write_check(state, prom):
    """Per probe: runs in the history, and of those, the ones Prometheus
    lacks at their own timestamp, or holds with another value.  Two runs
    of a probe at the same millisecond (the daemon's clock stepped back
    over its own earlier runs: clock_jump) are one sample to Prometheus,
    which keeps one of them: counted apart, as "shared"."""
    out = {}
    spooled = spooled_runs(state)
    for name in sorted(os.listdir(state)):
        m = re.fullmatch(r"history-(.*)\.txt", name)
        if not m:
            continue
        probe = m.group(1)
        got = prom_series(prom, probe)
        lines, seen = [], {}
        for line in read_lines(os.path.join(state, name))[1:]:
            f = line.split(None, 5)
            if len(f) < 6:
                continue
            ts = round(float(f[0]) * 1000)
            sname, _, rest = f[5].partition("{")
            labels = dict(LABEL.findall(rest))
            labels.update(job="benchwatch", instance="faults", probe=probe)
            k = series_key(sname, labels)
            lines.append((ts, k, float(f[3])))
            seen[(ts, k)] = seen.get((ts, k), 0) + 1
        shared = {ts for (ts, _), n in seen.items() if n > 1}
        runs, lost, wrong = set(), set(), 0
        for ts, k, v in lines:
            runs.add(ts)
            if ts in shared or (probe, ts) in spooled:
                continue
            if ts not in got.get(k, {}):
                lost.add(ts)
            elif abs(got[k][ts] - v) > 1e-6 * abs(v):
                wrong += 1
        succ = got.get(series_key("benchwatch_probe_success",
                                  {"job": "benchwatch", "instance": "faults",
                                   "probe": probe}), {})
        extra = {t for t, v in succ.items() if v == 1 and t not in runs}
        out[probe] = {"runs": len(runs), "lost": len(lost), "wrong_value": wrong,
                      "unexplained": len(extra), "shared": len(shared),
                      "spooled": sum(1 for t in runs if (probe, t) in spooled),
                      "failed_runs_stored": sum(1 for v in succ.values() if v == 0)}
    return out


def dropped_total(mon, final):
    """benchwatch_remote_write_dropped_total over the campaign's daemons:
    each starts at 0 and a kill -9 takes its count along, so the sum of
    each one's last value the monitor saw (the final textfile's for the
    last one)."""
    per, last = {}, None
    for e in mon:
        if e["ev"] == "dropped":
            per[e["pid"]] = max(per.get(e["pid"], 0), e["n"])
            last = e["pid"]
    if last is None:
        return final
    per[last] = max(per[last], final)
    return sum(per.values())


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


# faults.sh logs a SIGSTOP after sending it, and the daemon journals a
# result a few ms after reading it: a result journaled up to this long
# after the stop's line was written before the stop (a stopped process
# writes nothing more, and its pipe stays open until the deadline; the
# hour of seed 3232 saw 5 ms).  Not after a kill: its pipe's end comes at
# once, and a message it cut short must fail the run.
STOP_LOG_LAG = 0.05


def hit_run(epoch, kind, detail, results):
    """The result of the run a probe-process fault hit, and whether that
    result was logged before the fault (the process was on its way out:
    nothing to hit).  faults.sh logs the process's age: its run is the
    first result from its start on.  Without it, the next result."""
    m = re.search(r"\bage=([0-9.]+)", detail)
    if not m:
        return next((r for r in results if r[0] >= epoch), None), False
    start = epoch - float(m.group(1))
    run = next((r for r in results if r[0] >= start), None)
    lag = STOP_LOG_LAG if kind == "stop_child" else 0
    return run, run is not None and run[0] < epoch + lag


# ---- verdicts ----------------------------------------------------------------

SETTLE = 15.0       # seconds after a fault during which a probe's runs are "near" it
EVIDENCE_RUNS = 10  # counted runs before a verdict that carried its evidence
REFERENCE_RUNS = 100  # [regression] reference_runs, the campaign's (the default)
# a probe's own fault: its server away (the disk probe reads a file it
# keeps: the full file system does not reach its figures, only its writes,
# which fail the run)
OWN_FAULT = {"web": ("nginx_down", "nginx_up"), "db": ("mariadb_down", "mariadb_up")}
SERVER_UP = ("rw_up", "pgw_up", "nginx_up", "mariadb_up")


def fault_events(lines):
    """(epoch, kind, detail) of every injected fault and repair."""
    out = []
    for line in lines:
        f = line.split()
        if len(f) < 3 or f[2] in ("start", "unit_state") or "skipped" in line:
            continue
        try:
            out.append((float(f[1]), f[2], " ".join(f[3:])))
        except ValueError:
            pass
    return out


def clock_jumps(events, end):
    """(from, to, seconds ahead) of each jump of the daemon's wall clock."""
    out, cur = [], None
    for t, kind, detail in events:
        m = re.search(r"ahead=(\d+)s", detail)
        if kind == "clock_jump" and m:
            cur = (t, float(m.group(1)))
        elif kind == "clock_back" and cur:
            out.append((cur[0], t, cur[1]))
            cur = None
    if cur:
        out.append((cur[0], end, cur[1]))
    return out


JUMP_SLACK = 2.0  # walljump.c reads its file once a second; faults.sh logs after writing it


def real_times(stamps, jumps, ends=None):
    """A series' history timestamps (the daemon's clock, in the order the
    runs were made) on the real clock.  A timestamp may be a run's own or
    one made ahead by a jump.  A run ended with a successful result in the
    journal (ends: their real times, sorted) within MAX_RUN of its start:
    the reading that has one; else, the runs came in order, the earliest
    reading not before the run before it."""
    out, prev = [], float("-inf")
    for ts in stamps:
        cands = [ts] + [ts - ahead for t0, t1, ahead in jumps
                        if t0 - JUMP_SLACK <= ts - ahead < t1 + JUMP_SLACK]
        if ends is not None and len(cands) > 1:
            ended = [c for c in cands if ended_within(ends, c - JUMP_SLACK, c + MAX_RUN)]
            cands = ended or cands
        later = [c for c in cands if c >= prev - JUMP_SLACK]
        t = min(later) if later else max(cands)
        out.append(t)
        prev = max(prev, t)
    return out


def ended_within(ends, t0, t1):
    i = bisect.bisect_left(ends, t0)
    return i < len(ends) and ends[i] <= t1


def spans(events, probe, end):
    """(from, to, during, what): when a fault could move the probe's
    figures.  during: the fault held the probe itself (its server away,
    its file system full), when a run must fail or not count; the other
    spans are SETTLE seconds after a fault: a daemon's restart, a server
    back or started (its start-up's CPU), the probe's own fault ended."""
    out = []
    down, up = OWN_FAULT.get(probe, (None, None))
    since = None
    for t, kind, _ in events:
        if kind == down and since is None:
            since = t
        elif kind == up and since is not None:
            out.append((since, t, True, kind.replace("_up", "").replace("_freed", "") + " away"))
            since = None
        if kind == "kill_daemon":
            out.append((t, t + SETTLE, False, "a daemon restart"))
        if kind in SERVER_UP:
            out.append((t - 1, t + SETTLE, False, kind.replace("_up", "") + " started"))
    if since is not None:
        out.append((since, end, True, down + " until the end"))
    return out


def history_series(state):
    """{(probe, key): [(t, counted, state, value)]} from the histories."""
    out = {}
    for name in os.listdir(state):
        m = re.fullmatch(r"history-(.*)\.txt", name)
        if not m:
            continue
        for line in read_lines(os.path.join(state, name))[1:]:
            f = line.split(None, 5)
            if len(f) == 6:
                try:
                    out.setdefault((m.group(1), f[5]), []).append(
                        (float(f[0]), f[1] == "1", f[2], float(f[3])))
                except ValueError:
                    pass
    return out


def in_spans(t, sp, during_only=False):
    return next((w for w in sp if w[0] <= t <= w[1] and (w[2] or not during_only)), None)


def host_busy(mon, times):
    """The median host busy share (the monitor's 5-s samples) over times."""
    host = [(e["t"], e["busy"]) for e in mon if e["ev"] == "host"]
    got = []
    for t in times:
        b = next((b for ht, b in host if ht >= t), None)
        if b is not None:
            got.append(b)
    got.sort()
    return got[len(got) // 2] if got else None


def fault_runs_in_references(state, lines, results=()):
    """Counted runs of a reference (a series' first REFERENCE_RUNS counted
    runs) made while a fault held their probe."""
    events = fault_events(lines)
    end = max((t for t, _, _ in events), default=0) + 1
    jumps = clock_jumps(events, end)
    out = {}
    for (probe, key), runs in sorted(history_series(state).items()):
        sp = spans(events, probe, end)
        ends = sorted(t for t, p, ok, _ in results if p == probe and ok)
        real = dict(zip(range(len(runs)), real_times([r[0] for r in runs], jumps, ends)))
        for i in [i for i, r in enumerate(runs) if r[1]][:REFERENCE_RUNS]:
            r = runs[i]
            w = in_spans(real[i], sp, during_only=True)
            if w:
                out[(probe, r[0])] = "%s at %.3f (%s)" % (probe, r[0], w[3])
    return [out[k] for k in sorted(out)]


def replay(values, lower, reference_runs=REFERENCE_RUNS):
    """Regressions `benchwatch replay` raises on values (counted runs, in
    order), with the campaign's [regression] settings (the defaults) but
    reference_runs; None without a benchwatch to run ($BENCHWATCH), or
    when it refuses (a reference_runs under the detector's least)."""
    bw = os.environ.get("BENCHWATCH")
    if not bw or not values:
        return None
    import subprocess
    import tempfile
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
            conf.write("[regression]\nreference_runs = %d\n" % max(reference_runs, 1))
            conf.flush()
            p = subprocess.run([bw, "-c", conf.name, "replay", "-", "--format=json"] +
                               (["--lower-is-better"] if lower else []),
                               input="".join("%.17g\n" % v for v in values), text=True,
                               capture_output=True, timeout=60)
        return json.loads(p.stdout)["regressions"]
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        return None


def lower_is_better(key):
    return "_seconds" in key.split("{")[0] and "per_second" not in key.split("{")[0]


def verdict_episodes(state, lines, mon, end, results=()):
    """Each series' regression verdicts, with the faults near the runs
    behind them, and `benchwatch replay` of its counted runs without any
    run near a fault (SETTLE seconds after one, or while it held the probe):
    a verdict that replay still raises was not the faults' doing.  The
    replay's reference spans the daemon's at its first verdict (the runs
    of its first REFERENCE_RUNS counted ones, or of those before the
    verdict when it came sooner: a reference in a regression learns no
    more, less those near a fault): taking the first REFERENCE_RUNS runs
    not near a fault instead would reach into later runs, and a figure
    that moves with the host (MariaDB's transactions at one thread
    doubled while the host was busy in the hour of faults; the disk's
    median latency, which went from 17 to 60 us after 12 runs in the hour
    of seed 3232 at 4312755) would then hold the later level in its
    reference and raise nothing."""
    events = fault_events(lines)
    jumps = clock_jumps(events, end)
    t0 = float(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    out = []
    for (probe, key), runs in sorted(history_series(state).items()):
        n = sum(1 for r in runs if r[2] == "R")
        if not n:
            continue
        sp = spans(events, probe, end)
        ends = sorted(t for t, p, ok, _ in results if p == probe and ok)
        real = real_times([r[0] for r in runs], jumps, ends)
        counted = [(t, r) for t, r in zip(real, runs) if r[1]]
        first = next(i for i, r in enumerate(runs) if r[2] == "R")
        ev = [(t, r) for t, r in counted if r[0] <= runs[first][0]][-EVIDENCE_RUNS:]
        learnt = next((i for i, (_, r) in enumerate(counted) if r[2] == "R"), len(counted))
        ref = counted[:min(REFERENCE_RUNS, learnt)]
        near = sorted({w[3] for w in (in_spans(t, sp) for t, _ in ev) if w})
        far = [r[3] for t, r in counted if not in_spans(t, sp)]
        far_ref = sum(1 for t, _ in ref if not in_spans(t, sp))
        lower = lower_is_better(key)
        all_r, far_r = replay([r[3] for _, r in counted], lower), replay(far, lower, far_ref)
        med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
        hb = host_busy(mon, [t for t, _ in ev])
        hr = host_busy(mon, [t for t, _ in ref])
        faults_did = far_r is None or far_r == 0
        text = ("%s %s: %d verdict(s), the first at %.0f s; its last %d counted runs %.4g "
                "against the median %.4g of its reference's; host busy %s during those runs, "
                "%s during the reference's; %s; replay of its %d counted runs: %s regression(s), "
                "of the %d not near a fault: %s -> %s" % (
                    probe, key, n, ev[-1][0] - t0 if ev else 0, len(ev),
                    med([r[3] for _, r in ev]), med([r[3] for _, r in ref]),
                    "?" if hb is None else "%.0f%%" % (hb * 100),
                    "?" if hr is None else "%.0f%%" % (hr * 100),
                    "faults near those runs: " + ", ".join(near) if near else "no fault near those runs",
                    len(counted), "?" if all_r is None else all_r, len(far),
                    "?" if far_r is None else far_r,
                    "the faults' doing" if faults_did else "not the faults' doing"))
        out.append({"faults": faults_did, "text": text})
    return out


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
            len(late), ORPHAN_LIMIT, ", ".join("%s s (parent %s)" % (e["lived"], e.get("parent", "?"))
                                               for e in late)))
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
    hit_ok, hit_lost, hit_after = [], 0, 0
    for rel, epoch, kind, detail in faults:
        if kind not in ("kill_child", "stop_child", "garbage"):
            continue
        # a hang whose deadline falls after the campaign's end is ended by
        # the end itself (systemd sends SIGCONT with a stop's SIGTERM), not
        # by the deadline: nothing to judge
        if kind == "stop_child" and start is not None and \
                epoch + STOP_DEADLINE_MAX > start + duration:
            continue
        nxt, after = hit_run(epoch, kind, detail, results)
        if after:
            hit_after += 1
            continue
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
    episodes = verdict_episodes(state, read_lines(os.path.join(d, "faults.log")), mon,
                                start + duration if start else time.time(), results)
    near = [e for e in episodes if e["faults"]]
    if near:
        bad.append("%d series with regression verdicts the faults made (or replay could not "
                   "tell): %s" % (len(near), "; ".join(e["text"] for e in near[:3])))
    ref_during = fault_runs_in_references(state, read_lines(os.path.join(d, "faults.log")),
                                          results)
    if ref_during:
        bad.append("%d run(s) counted in a reference while a fault held their probe: %s"
                   % (len(ref_during), "; ".join(ref_during[:3])))

    try:
        rw = remote_write_check(state, prom)
    except (OSError, ValueError) as e:
        rw = {}
        bad.append("cannot read Prometheus: %s" % e)
    dropped = dropped_total(mon, textfile_counter(os.path.join(d, "textfile.txt"),
                                                  "benchwatch_remote_write_dropped_total"))
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
    if unit.get("state_temps_left", "").strip():
        bad.append("temporary files of interrupted writes left in the state directory: %s"
                   % unit["state_temps_left"])

    # memory: per daemon, RssAnon after its first REF seconds (ten minutes,
    # or a sixth of a short campaign) is the reference
    ref_age = min(600.0, duration / 6.0)
    by_pid = {}
    for e in rss:
        by_pid.setdefault(e["pid"], []).append((e["t"], e["kb"]))
    mem_lines, growth = [], []
    split = {(e["pid"], e["t"]): e for e in rss if "heap" in e}
    judged, longest = 0, 0.0
    for pid, s in by_pid.items():
        t0 = s[0][0]
        longest = max(longest, s[-1][0] - t0)
        ref = next((kb for t, kb in s if t - t0 >= ref_age), None)
        if ref:
            judged += 1
            worst = max(kb for t, kb in s if t - t0 >= ref_age)
            if worst > ref * (1 + RSS_GROWTH):
                growth.append("daemon %d: RssAnon %d kB after %.0f s, %d kB later" % (pid, ref, ref_age, worst))
        mem_lines.append("  daemon pid %d: %.0f s, RssAnon %s kB" % (
            pid, s[-1][0] - t0, " ".join(str(kb) for _, kb in s[::max(1, len(s) // 12)])))
        last = split.get((pid, s[-1][0]))
        if last:
            mem_lines.append("    at its last sample: heap %d, other anonymous %d, libraries %d kB"
                             % (last["heap"], last["anon"], last["lib"]))
    # the ten minutes of the issue: a shorter campaign shows, does not judge
    if growth and duration >= 1200:
        bad.append("memory grew: " + "; ".join(growth))

    ok = sum(1 for r in results if r[2])
    failed = len(results) - ok
    P = print
    P("== fault campaign: seed %s, %d s (replay: tests/faults/faults.sh %d %s) ==" % (seed, duration, duration, seed))
    P("faults injected: %d  %s" % (len(faults), "  ".join("%s=%d" % kv for kv in sorted(kinds.items()))))
    if skipped:
        P("faults skipped (nothing to hit): %s" % "  ".join("%s=%d" % kv for kv in sorted(skipped.items())))
    P("runs: %d completed, %d failed (journal); in the history: %d" % (
        ok, failed, sum(v["runs"] for v in rw.values())))
    P("remote write: lost %d, counted dropped %d (all daemons), wrong values %d, unexplained %d; "
      "runs sharing a timestamp with another (clock stepped back; one sample) %d; still spooled "
      "at the end (sent at the next start) %d; per probe %s" % (
        lost, dropped, sum(v["wrong_value"] for v in rw.values()),
        sum(v["unexplained"] for v in rw.values()), sum(v["shared"] for v in rw.values()),
        sum(v["spooled"] for v in rw.values()),
        " ".join("%s=%d/%d" % (p, v["runs"] - v["lost"], v["runs"]) for p, v in rw.items())))
    P("files: %d checks, %d files at the last, torn %d, partial last lines (allowed) %d" % (
        len(checks), checks[-1]["files"] if checks else 0, len(torn),
        max((c["partial_last_lines"] for c in checks), default=0)))
    lived = sorted(e["lived"] for e in orphans)
    P("orphans: %d, lived max %.3f s (limit %.1f), over the limit %d; past their deadline %d"
      "; scans that missed a live daemon (not orphans) %d" % (
        len(orphans), lived[-1] if lived else 0, ORPHAN_LIMIT, len(late), len(overlong),
        sum(1 for e in mon if e["ev"] == "misread")))
    P("restarts: NRestarts=%s, daemons seen %d, watchdog timeouts %d, unit state %s" % (
        unit.get("NRestarts", "?"), len(daemons), len(watchdog), unit.get("ActiveState", "?")))
    P("verdicts: regression %d in %d series: made by the faults %d, raised without any run near "
      "a fault too %d; runs counted in a reference while a fault held their probe %d" % (
        len(regressions), len(episodes), len(near), len(episodes) - len(near), len(ref_during)))
    for e in episodes:
        P("  " + e["text"])
    P("fault-hit runs counted as success %d (lost with their daemon %d; "
      "faults that came after their run's result, nothing hit %d)"
      % (len(hit_ok), hit_lost, hit_after))
    P("left behind after stop + cleanup: processes %s, cache [%s], tables %s, "
      "temporary files in the state directory [%s]" % (
        unit.get("after_stop_processes", "?"), unit.get("cache_left", "").strip(),
        unit.get("tables_left", "?"), unit.get("state_temps_left", "").strip()))
    P("daemon memory over time (RssAnon, flat within %d%% after %.0f s%s; %d "
      "daemon(s) lived past it, the longest %.0f s):" % (
        RSS_GROWTH * 100, ref_age, "" if duration >= 1200 else "; shown, not judged under 20 min",
        judged, longest))
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
    if len(argv) in (4, 5) and argv[1] == "monitor":
        monitor(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
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
