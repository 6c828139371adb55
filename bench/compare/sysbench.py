"""sysbench.py BENCHWATCH ROUNDS SECONDS FILTER PER_CPU — the runs and the table of
bench/compare/sysbench.sh (see there for what is compared and why): each
case run by benchwatch and by the classic tool (sysbench, mbw) with the
same parameters, interleaved, every pair printed, then the median of the
pair ratios and each tool's run-to-run CV against its target.
"""
import atexit, json, os, re, resource, shutil, statistics, subprocess, sys
import tempfile

BW, ROUNDS, SECS, ONLY = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
PER_CPU = sys.argv[5] == "1"
MIB = 1048576.0
cpu_used = [0.0]  # user+system seconds of the last command

# benchwatch runs probes at nice 10 by default, sysbench at nice 0: on a
# machine with anything else running that alone would skew the ratios.
fd, NICE0 = tempfile.mkstemp(prefix="bw-bench-", suffix=".conf")
os.write(fd, b"[daemon]\nnice = 0\n")
os.close(fd)
atexit.register(os.unlink, NICE0)


def run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_used[0] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return p.stdout


def bw_run(plugin, params):
    out = run([BW, "--config", NICE0, "run", plugin] + params +
              ["duration=%ds" % SECS, "--format=json"])
    doc = json.loads(out)
    if not doc.get("success", False):
        sys.exit("benchwatch %s failed: %s" % (plugin, doc.get("error")))
    return doc


def bw_value(doc, metric, **labels):
    name = "benchwatch_%s_%s" % (doc["plugin"], metric)
    for fam in doc["metrics"]:
        if fam["name"] != name:
            continue
        for s in fam["samples"]:
            if all(s["labels"].get(k) == v for k, v in labels.items()):
                return s["value"]
    sys.exit("no %s%s in benchwatch's output" % (name, labels))


def sysbench(args):
    out = run(["sysbench"] + args + ["--time=%d" % SECS, "run"])
    m = re.search(r"([0-9.]+) MiB transferred \(([0-9.]+) MiB/sec", out)
    if m:
        if PER_CPU:
            return float(m.group(1)) * MIB / cpu_used[0]
        return float(m.group(2)) * MIB
    if PER_CPU:
        ev = re.search(r"total number of events:\s*([0-9]+)", out)
        return float(ev.group(1)) / cpu_used[0]
    m = re.search(r"events per second:\s*([0-9.]+)", out)
    if m:
        return float(m.group(1))
    # threads prints no rate: events over total time, as the others do
    ev = re.search(r"total number of events:\s*([0-9]+)", out)
    t = re.search(r"total time:\s*([0-9.]+)s", out)
    return float(ev.group(1)) / float(t.group(1))


def mbw(array_mib):
    out = run(["mbw", "-q", "-n", "10", "-t", "0", str(array_mib)])
    return float(re.search(r"AVG.*Copy:\s*([0-9.]+) MiB/s", out).group(1)) * MIB


def bw_rate(plugin, params, metric, **labels):
    """The figure, or with -c the work done per CPU-second."""
    doc = bw_run(plugin, params)
    if PER_CPU:
        total = metric.replace("_per_second", "_total")
        return bw_value(doc, total, **labels) / cpu_used[0]
    return bw_value(doc, metric, **labels)


def block_case(name, bw_params, sb_params, oper):
    return (name,
            lambda: bw_rate("memory", bw_params, "bytes_per_second",
                            operation=oper),
            lambda: sysbench(["memory"] + sb_params), "bytes/s", "match")


def rate_case(plugin, bw_params, sb_params):
    return ("%s %s" % (plugin, " ".join(bw_params)),
            lambda: bw_rate(plugin, bw_params, "events_per_second"),
            lambda: sysbench([plugin] + sb_params), "events/s", "match")


dram_doc = {}


def dram(op):
    def f():
        doc = bw_run("memory", ["mode=dram"])
        dram_doc["ws"] = bw_value(doc, "working_set_bytes")
        dram_doc["triad"] = bw_value(doc, "bytes_per_second", operation="triad")
        return bw_value(doc, "bytes_per_second", operation="copy") if op == "copy" \
            else dram_doc["triad"]
    return f


CASES = [
    rate_case("cpu", ["max_prime=10000", "threads=1"],
              ["--cpu-max-prime=10000", "--threads=1"]),
    rate_case("cpu", ["max_prime=20000", "threads=2"],
              ["--cpu-max-prime=20000", "--threads=2"]),
    rate_case("threads", ["threads=1", "yields=1000", "locks=8"],
              ["--threads=1", "--thread-yields=1000", "--thread-locks=8"]),
    rate_case("threads", ["threads=2", "yields=1000", "locks=8"],
              ["--threads=2", "--thread-yields=1000", "--thread-locks=8"]),
    block_case("memory block 1k write seq", ["block_size=1k", "oper=write"],
               ["--memory-block-size=1K", "--memory-oper=write"], "write"),
    block_case("memory block 1k read seq", ["block_size=1k", "oper=read"],
               ["--memory-block-size=1K", "--memory-oper=read"], "read"),
    block_case("memory block 1k write rnd",
               ["block_size=1k", "oper=write", "access=rnd"],
               ["--memory-block-size=1K", "--memory-oper=write",
                "--memory-access-mode=rnd"], "write"),
    block_case("memory block 16k write seq", ["block_size=16k"],
               ["--memory-block-size=16K"], "write"),
    block_case("memory block 1M write seq 2 threads local",
               ["block_size=1M", "threads=2", "scope=local"],
               ["--memory-block-size=1M", "--threads=2", "--memory-scope=local"],
               "write"),
    ("memory dram copy vs sysbench 1G-block write", dram("copy"),
     lambda: sysbench(["memory", "--memory-block-size=1G",
                       "--memory-total-size=10T"]), "bytes/s", "at least"),
]
if shutil.which("mbw"):
    CASES += [
        ("memory dram copy vs mbw memcpy", dram("copy"),
         lambda: mbw(int(dram_doc.get("ws", 3 * 256 * MIB) / 3 / MIB)),
         "bytes/s", "at least"),
        ("memory dram triad vs mbw memcpy", dram("triad"),
         lambda: mbw(int(dram_doc.get("ws", 3 * 256 * MIB) / 3 / MIB)),
         "bytes/s", "at least"),
    ]
else:
    print("mbw not installed: DRAM mode compared with sysbench only")

if PER_CPU:
    CASES = [c for c in CASES if c[4] == "match" and "threads=2" not in c[0]]
print("%d rounds of %d s per tool, interleaved; ratio = benchwatch / classic%s"
      % (ROUNDS, SECS, ", per CPU-second" if PER_CPU else ""))
def cv(v):
    """coefficient of variation, percent"""
    return 100 * statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else float("nan")

summary = []
for name, ours, theirs, unit, goal in CASES:
    if ONLY and ONLY not in name:
        continue
    ratios, xs, ys = [], [], []
    for i in range(ROUNDS):
        a = ours()
        b = theirs()
        ratios.append(a / b)
        xs.append(a)
        ys.append(b)
        print("  %-45s round %d: benchwatch %14.1f  classic %14.1f %s  %.3f"
              % (name, i + 1, a, b, unit, a / b), flush=True)
    med = statistics.median(ratios)
    ok = 0.95 <= med <= 1.05 if goal == "match" else med >= 1.0
    summary.append((name, med, min(ratios), max(ratios), cv(xs), cv(ys), goal, ok))

# the steadiness of each tool's figure: run-to-run coefficient of variation
print("\n%-45s %7s %7s %7s %7s %7s  %s" % ("case", "median", "min", "max", "CV bw", "CV cl.",
                                           "target"))
for name, med, lo, hi, cva, cvb, goal, ok in summary:
    print("%-45s %7.3f %7.3f %7.3f %6.1f%% %6.1f%%  %s %s" % (
        name, med, lo, hi, cva, cvb, "1.00 +-5%" if goal == "match" else ">= 1.00",
        "ok" if ok else "MISSED"))
