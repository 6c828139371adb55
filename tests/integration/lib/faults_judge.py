"""faults_judge.py DIR — for faults_judge.sh: a kept campaign directory made
up to hold the cases the hour of faults misjudged, and a stand-in
Prometheus query API serving what the receiver would hold.  Writes DIR
(faults.log, journal.json, monitor.jsonl, unit.txt, textfile.txt,
state/history-*.txt), serves on a free port, prints the port, and serves
until killed.

The cases (t: seconds after the start; T0 the start's epoch):
  - garbage at 31 s into a cpu process 1.4 s old, whose run's result
    (a success) was logged at 30.8 s: nothing left to hit (the old judge
    took the next run's success for the hit run's);
  - stop_child at 41 s into a cpu process 0.5 s old, and that run's result
    a success at 42 s: a real breach, which must still be reported;
  - stop_child logged at 51 s into a cpu process 1.0 s old (a 1 s run),
    whose result (a success) the daemon journaled 5 ms after that line:
    faults.sh logs a fault after sending it, and a stopped process writes
    nothing, so the result was on its way before (the hour of seed 3232
    at 4312755 took it for a hit);
  - two cpu runs at the same millisecond (the clock stepped back over the
    daemon's earlier runs) with different values: Prometheus holds one;
  - five disk runs Prometheus lacks, dropped and counted by two daemons
    (2 by one killed later, 1 by the next), the final textfile saying 0,
    and two still in the spool at the end (a literal-only snappy block);
  - cpu's latency 20% higher over its last 30 runs with no fault near
    them: a verdict replay raises without any run near a fault;
  - web's latency 40% higher only in the runs within 15 s after nginx came
    back (four times; 5 runs each), with verdicts: the faults' doing;
  - the daemon's clock 101 s ahead from 270 s to 300 s, over nginx's first
    time away (280-300 s): the runs at 381-401 s carry timestamps that
    would be jumped ones of that time, and are not (the runs came in
    order);
  - db every 10 s from 1100 s, MariaDB away 1259-1378 s, the clock 421 s
    ahead over 1148-1322 s and 301 s ahead over 1346-1502 s: the run after
    MariaDB came back (1380 s) carries a timestamp that reads as a run of
    the first jump, made while MariaDB was away, and also as its own; the
    journal's results (each run's end) tell which;
  - disk's median latency in the hour of faults of seed 3232: 17-18 us in
    most of the first 15 runs, 45-75 us in most after; the daemon entered
    a regression at its 16th counted run, and its reference learnt no
    more: replay's reference must hold those 15 runs (less those near a
    fault), not the first 100 (the judge of 4312755 took the verdicts for
    the faults');
  - db's transactions/s in the hour of faults (seed 3131): its 171
    counted runs, those near a fault (here the Pushgateway coming back 3 s
    before them) marked, every 20 s from 2000 s.  They swing between 300
    and 900 with the host's load, and its verdicts, at the end, are runs
    far from any fault: replay still raises them without the runs near a
    fault when the reference spans the daemon's (the judge of 1f9cdfc
    took the first 100 runs not near a fault instead, reaching into the
    slow runs at the end, and so raised nothing).
"""
import http.server
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import urllib.parse

d = sys.argv[1]
T0 = 1796000000.0
os.makedirs(os.path.join(d, "state"), exist_ok=True)
rnd = random.Random(31)
CPU = 'benchwatch_cpu_latency_seconds{max_prime="10000",quantile="0.5",threads="1"}'
WEB = 'benchwatch_http_latency_seconds{quantile="0.5"}'
DISK = 'benchwatch_disk_iops{mode="randread"}'


def line(t, state, v, key, counted=1):
    return "%.3f %d %s %.9g - %s" % (t, counted, state, v, key)


faults = ["0.0 %.3f start seed=1 duration=1200" % T0,
          "31.2 %.3f garbage pid=10 age=1.400" % (T0 + 31),
          "41.2 %.3f stop_child pid=11 age=0.500" % (T0 + 41),
          "51.2 %.3f stop_child pid=12 age=1.000" % (T0 + 51)]
journal = [(30.8, "cpu", 1), (42.0, "cpu", 1), (51.005, "cpu", 1), (60.0, "cpu", 1)]
# web: nginx away and back four times; runs every 5 s from 100 s
ups = [300.0, 500.0, 700.0, 900.0]
for u in ups:
    faults.append("%.1f %.3f nginx_down for=20s" % (u - 20, T0 + u - 20))
    faults.append("%.1f %.3f nginx_up" % (u, T0 + u))
faults.append("270.0 %.3f clock_jump ahead=101s until=%d" % (T0 + 270, T0 + 300))
faults.append("300.0 %.3f clock_back" % (T0 + 300))
for at, ahead, back in ((1148, 421, 1322), (1346, 301, 1502)):
    faults.append("%.1f %.3f clock_jump ahead=%ds until=%d" % (at, T0 + at, ahead, T0 + back))
    faults.append("%.1f %.3f clock_back" % (back, T0 + back))
faults.append("1259.0 %.3f mariadb_down for=119s" % (T0 + 1259))
faults.append("1378.0 %.3f mariadb_up" % (T0 + 1378))
faults.sort(key=lambda l: float(l.split()[0]))


def clock(t):
    """The daemon's clock at real time t."""
    for at, ahead, back in ((270, 101, 300), (1148, 421, 1322), (1346, 301, 1502)):
        if at <= t - T0 < back:
            return t + ahead
    return t

hist = {"cpu": [], "web": [], "disk": [], "db": []}
prom = {}  # probe -> {series key: {ms: value}}


def stored(probe, key, t, v):
    prom.setdefault(probe, {}).setdefault(key, {})[round(t * 1000)] = v
    prom[probe].setdefault("benchwatch_probe_success", {})[round(t * 1000)] = 1.0


# cpu: 120 runs every 5 s from 100 s; the last 30 20% slower
for i in range(120):
    t = T0 + 100 + 5 * i + 0.257
    v = 2.22e-4 * (1 + rnd.gauss(0, 0.01)) * (1.2 if i >= 90 else 1)
    hist["cpu"].append((clock(t), v, CPU, t))
    stored("cpu", CPU, clock(t), v)
# two runs at one millisecond: the history has both, Prometheus the later
t = T0 + 50.257
hist["cpu"] += [(t, 2.2e-4, CPU, t), (t, 2.4e-4, CPU, t + 0.001)]
stored("cpu", CPU, t, 2.4e-4)
# web: 300 runs every 3 s from 100 s; slow within 15 s after nginx is back
for i in range(300):
    t = T0 + 100 + 3 * i + 0.5
    down = any(u - 20 <= t - T0 < u for u in ups)
    if down:
        continue  # failed runs: no figures
    after = any(0 <= t - T0 - u <= 15 for u in ups)
    v = 5.3e-5 * (1 + rnd.gauss(0, 0.01)) * (1.4 if after else 1)
    hist["web"].append((clock(t), v, WEB, t))
    stored("web", WEB, clock(t), v)
# db: every 10 s from 1100 s; failures (no figures) while MariaDB is away
DB = 'benchwatch_mysql_transactions_per_second{mix="read_write"}'
for i in range(50):
    t = T0 + 1100 + 10 * i + 0.5
    if 1259 <= t - T0 <= 1378:
        continue
    hist["db"].append((clock(t), 500.0, DB, t))
    stored("db", DB, clock(t), 500.0)
    journal.append((t + 1.0 - T0, "db", 1))
# db, again: the hour's transactions/s ("*": a run near a fault)
HOUR = """
    339 372 346* 671* 676 613 242 235 724 775 639 769 758 653 760 185 211 170 510 869
    815 489* 868* 752* 812 733 718 708 734* 811* 306 839 845 704 868 644 891 761 306*
    353 379 394 324 327 382 250 334* 364* 337* 361 355 365 310 386 483 368 166* 407* 316
    793 887 910 579 962 739 787 756 866 1020 802 908 890* 680 787 783 748* 969* 920 730
    671 832 729* 736 761 845 760 625 409* 627* 718 916 784 611 370 753 778 819 223* 603*
    621 335* 351* 345 360 367 354 332 358* 358* 363 283 317 337 396 130 586* 413* 333
    366* 309* 277 351 320 358 240 404 303 296 233 167 204 318 288 360 322 317 223 285
    261 241 284 340 345 339 349 341 305 159 180 321 300 302 262 206 192 242 181 336 222
    301 347 344 318 297 324 353 374 291 182 245 267
""".split()
DB_TX = 'benchwatch_mysql_transactions_per_second{mix="read_write",threads="1"}'
for i, v in enumerate(HOUR):
    t = T0 + 2000 + 20 * i + 0.5
    if v.endswith("*"):
        faults.append("%.1f %.3f pgw_down for=5s" % (t - 8 - T0, t - 8))
        faults.append("%.1f %.3f pgw_up" % (t - 3 - T0, t - 3))
    hist["db"].append((t, float(v.rstrip("*")), DB_TX, t))
    stored("db", DB_TX, t, float(v.rstrip("*")))
# disk's median latency (us) in the hour of faults of seed 3232: its
# first 80 counted runs ("*": near a fault)
HOUR_DISK = """
    71.2 18 49.4 18.8 18 17* 57.6* 50.9 16.2 16.8* 17 17* 17.3* 69.1* 62.7* 68.1* 19.1* 67.1* 68.1 71.2
    58.6 70.1 17.8 67.1* 68.1* 66 63.2 73.2 59.6 57.6 43.3 43.3 46.8* 50.4 70.1 73.2 67.1* 54* 56.1* 48.4*
    67.1 66 57.1* 62.2* 46.3 59.1 18 70.1 68.1* 61.2* 71.2 50.9 60.7* 63.2 59.6* 68.1* 64.8 46.8 56.1 47.4
    56.1* 71.2* 70.1 69.1 61.7 49.4* 74.2* 65.3* 62.7 56.1 50.4* 70.1* 68.1 60.7 17 46.8 61.7 46.3 72.2 17.8
""".split()
DISK_P50 = ('benchwatch_disk_latency_seconds{block_size="16k",direct="yes",iodepth="1",'
            'mode="randread",op="read",quantile="0.5",threads="1"}')
for i, v in enumerate(HOUR_DISK):
    t = T0 + 6000 + 20 * i + 0.5
    if v.endswith("*"):
        faults.append("%.1f %.3f pgw_down for=5s" % (t - 8 - T0, t - 8))
        faults.append("%.1f %.3f pgw_up" % (t - 3 - T0, t - 3))
    hist["disk"].append((t, float(v.rstrip("*")) * 1e-6, DISK_P50, t))
    stored("disk", DISK_P50, t, float(v.rstrip("*")) * 1e-6)
faults.sort(key=lambda l: float(l.split()[0]))
# disk: 20 runs, the last 5 not in Prometheus (dropped, counted)
for i in range(20):
    t = T0 + 100 + 11 * i + 0.75
    hist["disk"].append((clock(t), 1000.0, DISK, t))
    if i < 15:
        stored("disk", DISK, clock(t), 1000.0)



def uvarint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7f) | (0x80 if n > 0x7f else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(num, wt, payload):
    if wt == 2:
        return uvarint(num << 3 | 2) + uvarint(len(payload)) + payload
    return uvarint(num << 3 | wt) + payload


def spool_file(path, probe, t):
    """A remote-write request of one run, as the spool holds it."""
    ts = b""
    for name, value in (("__name__", DISK.split("{")[0]), ("probe", probe), ("job", "benchwatch")):
        ts += field(1, 2, field(1, 2, name.encode()) + field(2, 2, value.encode()))
    import struct
    ts += field(2, 2, field(1, 1, struct.pack("<d", 1000.0)) +
                field(2, 0, uvarint(round(t * 1000))))
    req = field(1, 2, ts)
    block = uvarint(len(req))
    for i in range(0, len(req), 256):  # literals of at most 256 bytes
        chunk = req[i:i + 256]
        block += bytes([60 << 2, len(chunk) - 1]) + chunk
    with open(path, "wb") as f:
        f.write(block)


os.makedirs(os.path.join(d, "state", "remote-write"), exist_ok=True)
for n, (t, _, _, _) in enumerate(hist["disk"][-2:]):
    spool_file(os.path.join(d, "state", "remote-write", "%020d.rw" % (n + 1)), "disk", t)

# the states the daemon would have written: replay them here
sys.path.insert(0, os.environ["FAULTS_DIR"])
import faults as F  # noqa: E402
REPLAYED = {CPU: True, WEB: True, DB_TX: False, DISK_P50: True}  # the series with verdicts: lower is better?


def states_of(runs, key):
    """The states the daemon's detector gives the series key's runs."""
    vals = [v for _, v, k, _ in runs if k == key]
    if key not in REPLAYED:
        return ["O"] * len(vals)
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
        p = subprocess.run([os.environ["BENCHWATCH"], "-c", conf.name, "replay", "-",
                            "--format=json"] + (["--lower-is-better"] if REPLAYED[key] else []),
                           input="".join("%.17g\n" % v for v in vals), text=True,
                           capture_output=True)
    return [{"regression": "R", "learning": "L"}.get(r["state"].lower(), "O")
            for r in json.loads(p.stdout)["results"]]


for probe, runs in hist.items():
    runs.sort(key=lambda r: r[3])  # in the order they were made
    states = {key: iter(states_of(runs, key)) for key in {r[2] for r in runs}}
    with open(os.path.join(d, "state", "history-%s.txt" % probe), "w") as f:
        f.write("benchwatch-history 1\n")
        for t, v, key, _ in runs:
            f.write(line(t, next(states[key]), v, key) + "\n")

with open(os.path.join(d, "faults.log"), "w") as f:
    f.write("\n".join(faults) + "\n")
with open(os.path.join(d, "journal.json"), "w") as f:
    for t, probe, ok in journal:
        f.write(json.dumps({"__REALTIME_TIMESTAMP": str(int((T0 + t) * 1e6)),
                            "BENCHWATCH_PROBE": probe, "BENCHWATCH_SUCCESS": str(ok),
                            "MESSAGE": "run"}) + "\n")
with open(os.path.join(d, "monitor.jsonl"), "w") as f:
    for pid, n in ((40, 1), (40, 2), (52, 1)):
        f.write(json.dumps({"ev": "dropped", "pid": pid, "n": n, "t": T0 + 200}) + "\n")
with open(os.path.join(d, "unit.txt"), "w") as f:
    f.write("NRestarts 1\nActiveState active\nafter_stop_processes 0\ncache_left \n"
            "tables_left 0\n")
with open(os.path.join(d, "textfile.txt"), "w") as f:
    f.write("benchwatch_remote_write_dropped_total 0\n")
with open(os.path.join(d, "files.log"), "w") as f:
    f.write(json.dumps({"t": T0, "when": "end", "files": 3, "torn": [],
                        "partial_last_lines": 0, "temps": 0}) + "\n")


class Query(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)["query"][0]
        probe = q.split('probe="')[1].split('"')[0]
        result = []
        for key, samples in prom.get(probe, {}).items():
            name, _, rest = key.partition("{")
            m = dict(F.LABEL.findall(rest))
            m.update(__name__=name, job="benchwatch", instance="faults", probe=probe)
            result.append({"metric": m, "values": [[ms / 1000, repr(v)]
                                                   for ms, v in sorted(samples.items())]})
        body = json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                         "result": result}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


s = http.server.HTTPServer(("127.0.0.1", 0), Query)
print(s.server_address[1], flush=True)
s.serve_forever()
