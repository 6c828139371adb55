#!/usr/bin/env python3
"""lab/cost/memstall.py — what a run of the memory probe leaves behind on this
host: a co-located web server's latency during and right after the run,
the free pages the guest reports to the hypervisor (virtio-balloon free
page reporting: the host takes them back, and the next touch of each page
faults on the host), steal, and the time the next allocation takes.

A web neighbour (nginx, 1 worker, a 4 kB file on 127.0.0.1) is driven the
whole time at a constant RATE (open loop, `benchwatch run http rate=`, back
to back slices of 1 s, each with its own p50/p99/p99.9).  In each round
every variant runs once, in an order rotated from round to round: PRE
seconds of quiet, the variant's probe run (`benchwatch run ...` under
SCHED_IDLE, as the daemon runs CPU-bound probes), POST seconds after it.
The variant `none` runs nothing: its windows are the noise floor and the
pair each variant's windows are compared with (same round, same offsets).
Per variant: the neighbour's p99 in the slices that overlap the run, in
those that start 0-5 s after its end and 5-POST s after, as ratios to
`none`'s slices at the same offsets in the same round (median and range
over rounds); MiB the guest reported to the host (/sys/module/
page_reporting/parameters/reported_kib, when the kernel has it) and steal
(/proc/stat) in those windows; the probe's own figure and run time (the
figure's noise: its spread over rounds).  Then the next allocation:
mmap and first touch of TOUCH MiB 0.2 s and 8 s after a run of the
first variant (pages not yet reported, and reported).

With NOISE=1 there is no neighbour: each variant's probe runs ROUNDS
times, interleaved, at nice 0 (as `benchwatch run`), and the figures the
detector judges are printed with their run-to-run noise (robust CV,
1.4826 x MAD / median, and the range): dram's triad bytes per CPU-second
and per second, latency's seconds per load (CPU time already), and the
run's wall time.

Usage: lab/cost/memstall.py [BUILD_DIR [ROUNDS]]   (defaults: ., 6)
Env:   VARIANTS ("none=;dram256=memory mode=dram size=256M;..."), RATE
       (requests/s, default a quarter of a 3 s closed-loop run), PRE (3),
       POST (12), PORT (18096), TOUCH (256), OUT (keep the raw data here)
"""
import json, os, random, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
BW = os.path.join(BUILD, "benchwatch")
PRE, POST = float(os.environ.get("PRE", "3")), float(os.environ.get("POST", "12"))
PORT = int(os.environ.get("PORT", "18096"))
TOUCH = int(os.environ.get("TOUCH", "256"))
DEFAULT = ("none=;dram256=memory mode=dram size=256M;dram128=memory mode=dram size=128M;"
           "lat256=memory mode=latency size=256M;lat128=memory mode=latency size=128M")
VARIANTS = [(v.split("=", 1)[0], v.split("=", 1)[1].split())
            for v in os.environ.get("VARIANTS", DEFAULT).split(";") if v]
REPORTED = "/sys/module/page_reporting/parameters/reported_kib"
os.environ.setdefault("BENCHWATCH_PLUGIN_DIR", os.path.join(BUILD, "plugins", ".libs"))
if not os.access(BW, os.X_OK):
    sys.exit("lab/cost/memstall.py: no benchwatch in %s" % BUILD)

def metrics(doc):
    return {m["name"]: m["samples"] for m in doc.get("metrics", [])}


if os.environ.get("NOISE") == "1":
    figs = {}
    for r in range(ROUNDS):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        for name, args in order:
            if not args:
                continue
            t = time.time()
            out = subprocess.run([BW, "run"] + args + ["--format=json"], capture_output=True, text=True)
            t = time.time() - t
            try:
                m = metrics(json.loads(out.stdout))
            except ValueError:
                continue
            f = figs.setdefault(name, {})
            f.setdefault("wall s", []).append(t)
            for key, metric, op in (("triad B/cpu-s", "benchwatch_memory_bytes_per_cpu_second", "triad"),
                                    ("triad B/s", "benchwatch_memory_bytes_per_second", "triad"),
                                    ("s/load", "benchwatch_memory_load_latency_seconds", None)):
                for smp in m.get(metric, []):
                    if op is None or smp["labels"].get("operation") == op:
                        f.setdefault(key, []).append(smp["value"])
    print("%-12s %-14s %12s %9s %s" % ("variant", "figure", "median", "noise", "range/median"))
    for name, f in figs.items():
        for key, xs in f.items():
            med = statistics.median(xs)
            mad = statistics.median(abs(x - med) for x in xs)
            print("%-12s %-14s %12.4g %8.1f%% %.3f..%.3f (n %d)" % (name, key, med, 148.26 * mad / med,
                  min(xs) / med, max(xs) / med, len(xs)))
    sys.exit(0)
NGINX = shutil.which("nginx") or shutil.which("/usr/sbin/nginx")
if not NGINX:
    sys.exit("lab/cost/memstall.py: needs nginx")
W = tempfile.mkdtemp(prefix="bw-memstall.", dir="/var/tmp")
os.chmod(W, 0o755)
os.makedirs(os.path.join(W, "www"))
with open(os.path.join(W, "www", "index.html"), "wb") as f:
    f.write(os.urandom(3000).hex()[:4096].encode())
with open(os.path.join(W, "nginx.conf"), "w") as f:
    f.write("""worker_processes 1; daemon off; pid %(w)s/nginx.pid; error_log %(w)s/err.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path %(w)s/b; proxy_temp_path %(w)s/p;
  fastcgi_temp_path %(w)s/f; uwsgi_temp_path %(w)s/u; scgi_temp_path %(w)s/s;
  server { listen 127.0.0.1:%(p)d backlog=4096; root %(w)s/www; } }
""" % {"w": W, "p": PORT})
with open(os.path.join(W, "client.conf"), "w") as f:
    f.write("[daemon]\nnice = 0\nstate_dir = %s/cs\ncache_dir = %s/cc\n" % (W, W))
nginx = subprocess.Popen([NGINX, "-p", W, "-c", os.path.join(W, "nginx.conf")])
URL = "http://127.0.0.1:%d/index.html" % PORT


def cleanup():
    nginx.terminate()
    nginx.wait()
    if os.environ.get("OUT"):
        shutil.copytree(W, os.environ["OUT"], dirs_exist_ok=True)
    shutil.rmtree(W, ignore_errors=True)


for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", PORT), 0.2).close()
        break
    except OSError:
        time.sleep(0.05)


def http(extra, dur):
    out = subprocess.run([BW, "-c", os.path.join(W, "client.conf"), "run", "http", "url=" + URL,
                          "concurrency=8", "duration=%gs" % dur, "timeout=5s", "--nice=0",
                          "--format=json"] + extra, capture_output=True, text=True)
    try:
        return metrics(json.loads(out.stdout))
    except ValueError:
        return None


RATE = os.environ.get("RATE")
if not RATE:
    m = http([], 3)
    RATE = str(int(m["benchwatch_http_requests_per_second"][0]["value"] * 0.25))
print("lab/cost/memstall.py: %d rounds, variants %s; web rate %s/s; PRE %g s, POST %g s"
      % (ROUNDS, ", ".join(v for v, _ in VARIANTS), RATE, PRE, POST), flush=True)

slices, samples, stop = [], [], threading.Event()


def neighbour():
    while not stop.is_set():
        t0 = time.time()
        m = http(["rate=" + RATE], 1)
        t1 = time.time()
        if m:
            lat = m["benchwatch_http_latency_seconds"][0]
            slices.append((t0, t1, lat["quantiles"]["0.99"], lat["quantiles"]["0.999"],
                           lat["quantiles"]["0.5"]))


def read_counters():
    try:
        rep = int(open(REPORTED).read())
    except OSError:
        rep = -1
    f = open("/proc/stat").readline().split()[1:]
    return rep, int(f[7]), sum(int(x) for x in f[:8])


def sampler():
    while not stop.is_set():
        samples.append((time.time(),) + read_counters())
        time.sleep(0.1)


threads = [threading.Thread(target=neighbour), threading.Thread(target=sampler)]
for t in threads:
    t.start()


def probe(args):
    """one probe run under SCHED_IDLE: (start, end, json) or an empty run"""
    t0 = time.time()
    if not args:
        return t0, t0, None
    out = subprocess.run(["chrt", "--idle", "0", BW, "run"] + args + ["--nice=10", "--format=json"],
                         capture_output=True, text=True)
    t1 = time.time()
    try:
        return t0, t1, json.loads(out.stdout)
    except ValueError:
        return t0, t1, None


def touch(mib):
    import mmap
    t = time.time()
    m = mmap.mmap(-1, mib << 20)
    for i in range(0, mib << 20, 4096):
        m[i] = 1
    m.close()
    return time.time() - t


runs = []
try:
    time.sleep(2)
    for r in range(ROUNDS):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        for name, args in order:
            time.sleep(PRE)
            t0, t1, doc = probe(args)
            time.sleep(POST)
            runs.append({"round": r, "v": name, "t0": t0, "t1": t1, "doc": doc})
        print("round %d/%d done %s" % (r + 1, ROUNDS, time.strftime("%T")), flush=True)
    stop.set()
    for t in threads:
        t.join()
    touches = []
    first = [a for n, a in VARIANTS if a][0]
    for r in range(ROUNDS if TOUCH else 0):
        for wait in ((0.2, 8) if r % 2 == 0 else (8, 0.2)):
            probe(first)
            time.sleep(wait)
            touches.append((wait, touch(TOUCH)))
            time.sleep(3)
    json.dump({"slices": slices, "samples": samples, "touches": touches,
               "runs": [dict(r, doc=None) for r in runs]}, open(os.path.join(W, "raw.json"), "w"))
finally:
    stop.set()
    cleanup()


def window(t0, t1):
    """slices whose middle lies in [t0, t1): their p99s, and the counters"""
    sl = [s for s in slices if t0 <= (s[0] + s[1]) / 2 < t1]
    sm = [s for s in samples if t0 <= s[0] < t1]
    rep = (sm[-1][1] - sm[0][1]) / 1024 if len(sm) > 1 and sm[0][1] >= 0 else float("nan")
    steal = 100 * (sm[-1][2] - sm[0][2]) / max(sm[-1][3] - sm[0][3], 1) if len(sm) > 1 else float("nan")
    p99 = statistics.median(s[2] for s in sl) if sl else float("nan")
    return p99, rep, steal, sl


def med_range(xs):
    xs = [x for x in xs if x == x]
    if not xs:
        return "-"
    return "%.3g (%.3g..%.3g)" % (statistics.median(xs), min(xs), max(xs))


print("\nper variant: the median of the neighbour's 1-s p99s in each window over the same "
      "window of `none` in the same round (median (range) over rounds); MiB reported "
      "to the host and steal % in the window")
ctrl = {r["round"]: r for r in runs if r["v"] == "none"}
print("%-8s %-22s %-22s %-22s %-16s %-16s %-12s %s" % (
    "variant", "p99 during run", "p99 0-5 s after", "p99 5-%g s after" % POST,
    "MiB rep. 0-%gs" % POST, "steal% during", "run s", "figure (noise: range/median)"))
for name, args in VARIANTS:
    rs = [r for r in runs if r["v"] == name]
    cols = {k: [] for k in ("during", "a5", "a12", "rep", "steal", "len", "fig")}
    for r in rs:
        c = ctrl.get(r["round"])
        if not c:
            continue
        d = max(r["t1"] - r["t0"], 1.0)
        for key, (a, b) in (("during", (0, d)), ("a5", (d, d + 5)), ("a12", (d + 5, d + POST))):
            x = window(r["t0"] + a, r["t0"] + b)[0]
            y = window(c["t0"] + a, c["t0"] + b)[0]
            cols[key].append(x / y if y == y and y > 0 else float("nan"))
        cols["rep"].append(window(r["t1"], r["t1"] + POST)[1])
        cols["steal"].append(window(r["t0"], r["t1"] + 0.2)[2])
        cols["len"].append(r["t1"] - r["t0"])
        if r["doc"]:
            m = metrics(r["doc"])
            if "benchwatch_memory_bytes_per_second" in m:
                cols["fig"].append([s["value"] for s in m["benchwatch_memory_bytes_per_second"]
                                    if s["labels"].get("operation") == "triad"][0] / 1e9)
            elif "benchwatch_memory_load_latency_seconds" in m:
                cols["fig"].append(m["benchwatch_memory_load_latency_seconds"][0]["value"] * 1e9)
    f = cols["fig"]
    fig = ("%.4g %s, noise %.1f%%" % (statistics.median(f), "GB/s triad" if "dram" in " ".join(args)
                                       else "ns/load", 100 * (max(f) - min(f)) / statistics.median(f))
           if f else "-")
    print("%-8s %-22s %-22s %-22s %-16s %-16s %-12s %s" % (
        name, med_range(cols["during"]), med_range(cols["a5"]), med_range(cols["a12"]),
        med_range(cols["rep"]), med_range(cols["steal"]), med_range(cols["len"]), fig))
# pooled over rounds: each window's slices' p99s, their median and upper
# quartile over those of `none`'s same windows
print("\npooled over rounds: median and upper quartile of the 1-s p99s in each window, "
      "over `none`'s in the same windows")
def q(xs, f):
    xs = sorted(xs)
    return xs[min(int(f * len(xs)), len(xs) - 1)] if xs else float("nan")
for name, args in VARIANTS:
    cells = []
    for key in ("during", "0-5", "5-end"):
        xs, ys = [], []
        for r in (r for r in runs if r["v"] == name):
            c = ctrl.get(r["round"])
            if not c:
                continue
            d = max(r["t1"] - r["t0"], 1.0)
            a, b = {"during": (0, d), "0-5": (d, d + 5), "5-end": (d + 5, d + POST)}[key]
            xs += [s[2] for s in window(r["t0"] + a, r["t0"] + b)[3]]
            ys += [s[2] for s in window(c["t0"] + a, c["t0"] + b)[3]]
        cells.append("%s %.2f/%.2f (n %d)" % (key, q(xs, .5) / q(ys, .5) if ys else float("nan"),
                                            q(xs, .75) / q(ys, .75) if ys else float("nan"), len(xs)))
    print("%-10s %s" % (name, "   ".join(cells)))
for wait in (0.2, 8) if touches else ():
    ts = [t for w, t in touches if w == wait]
    print("next allocation: mmap and first touch of %d MiB, %g s after a run of %s: %s s"
          % (TOUCH, wait, [n for n, a in VARIANTS if a][0], med_range(ts)))
