"""all.py — the pairs of bench/compare/all.sh (see there for what and why):
each row's benchwatch run and classic-tool run on the same work, in
alternating order, PAIRS times; per row the median of the pairs' ratios
(benchwatch / classic), their lowest and highest, and how many pairs.

Environment (set by all.sh): BW (benchwatch binary), CONF (a [daemon]
nice = 0 configuration), DIR (work folder: the test file, outputs), SECS,
PAIRS, ROWS (the rows to run, by name; empty: all), SIZE (the disk rows'
test file), CHASE (the pointer chase built from memlat_chase.c), LOOP
(a read-only direct-io loop device over the test file, or empty),
HTTP_URL, SEED_URL (empty: not run), MYSQL_* (empty MYSQL_PORT: not run),
CAP_CGROUP and CAP (a cgroup v1 blkio group whose processes' reads of
LOOP are capped at CAP a second, or empty), FIX_LOOP, FIX_CTL, FIX_US and
FIX_SEQ_US (a loop device over the test file whose every read is late by
what FIX_CTL, the slowdisk fixture's delay_us, says: FIX_US for
disklatfix, FIX_SEQ_US for seqdiskfix; or empty), CLIENT_CPUS and SERVER_CPUS
(the CPUs of the server rows' clients and of their servers, which all.sh
has pinned there; empty: shared), PIN_CPU (the CPU of both tools of the
rows of CPU_ROWS; empty: unpinned).
"""
import json, os, re, resource, shutil, statistics, subprocess, sys, time

E = os.environ
BW, CONF, DIR = E["BW"], E["CONF"], E["DIR"]
SECS, PAIRS = int(E.get("SECS", "3")), int(E.get("PAIRS", "7"))
FILE = os.path.join(DIR, "disk.dat")
SIZE = E.get("SIZE", "1G")
BEFORE = E.get("BEFORE", "")  # another build's benchwatch, run beside
current = "bw"                # whose runs: "bw", "before" or "classic"
SERVER_ROWS = ("http", "mysql", "seed")
CLIENT_CPUS = E.get("CLIENT_CPUS", "")
PIN_CPU = E.get("PIN_CPU", "")  # the CPU rows' tools' CPU; empty: unpinned
CPU_ROWS = ("cpu", "threads", "memory", "memlat")
pin = []                      # the current row's clients' taskset, or none
cgroup = ""                   # the current row's blkio cgroup, or none


class Skip(Exception):
    """A row that cannot run here, and why."""


def run(cmd, cwd=None):
    """stdout of cmd (which must succeed), and its user+system CPU seconds."""
    if not shutil.which(cmd[0]):
        raise Skip("needs %s" % os.path.basename(cmd[0]))
    join = None
    if cgroup:
        # the throttle hands out its budget per 100 ms slice: a run that
        # starts within one of the last run's end inherits what it left
        # (at a cap of 20000 a second, 62000 reads in a 3-s run that
        # followed fio at once; 60000 after a pause)
        time.sleep(0.5)
        join = lambda: open(os.path.join(cgroup, "cgroup.procs"), "w").write(str(os.getpid()))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(pin + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, cwd=cwd, preexec_fn=join)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (cmd[0], p.returncode,
                                                   (p.stderr or p.stdout)[-400:]))
    return p.stdout, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def bw(plugin, *params):
    """benchwatch's JSON report of one run: {metric name: [samples]}."""
    binary = BEFORE if current == "before" else BW
    # at this script's niceness, as the classic tools run (nice -n -5 all.sh
    # lifts both alike on a machine others share)
    out, _ = run([binary, "--config", CONF, "run", plugin] + list(params) +
                 ["--nice=%d" % os.nice(0), "--format=json"])
    doc = json.loads(out)
    if not doc.get("success"):
        raise RuntimeError("benchwatch %s: %s" % (plugin, doc.get("error")))
    return {m["name"]: m["samples"] for m in doc["metrics"]}


def pick(doc, name, quantile=None, **labels):
    for s in doc[name]:
        if all(s["labels"].get(k) == v for k, v in labels.items()):
            return s["quantiles"][quantile] if quantile else s["value"]
    raise RuntimeError("no %s%s in benchwatch's report" % (name, labels))


def grab(pattern, text, what):
    m = re.search(pattern, text)
    if not m:
        raise RuntimeError("no %s in: %s" % (what, text[-300:]))
    return float(m.group(1))


def sysbench_rate(args):
    """events/s (or bytes/s for memory), as sysbench prints them."""
    out, _ = run(["sysbench"] + args + ["--time=%d" % SECS, "run"])
    m = re.search(r"\(([0-9.]+) MiB/sec\)", out)
    if m:
        return float(m.group(1)) * 1048576
    m = re.search(r"events per second:\s*([0-9.]+)", out)
    if m:
        return float(m.group(1))
    # threads prints no rate: its events over its total time
    return (grab(r"total number of events:\s*([0-9]+)", out, "events") /
            grab(r"total time:\s*([0-9.]+)s", out, "total time"))


# ---- the rows: (name, classic tool, benchwatch's figure, the classic's) ----

def cpu_bw():
    d = bw("cpu", "max_prime=10000", "threads=1", "duration=%ds" % SECS)
    return pick(d, "benchwatch_cpu_events_per_second")


def threads_bw():
    d = bw("threads", "threads=1", "yields=1000", "locks=8", "duration=%ds" % SECS)
    return pick(d, "benchwatch_threads_events_per_second")


def memory_bw():
    d = bw("memory", "block_size=1k", "oper=write", "duration=%ds" % SECS)
    return pick(d, "benchwatch_memory_bytes_per_second", operation="write")


def memlat_bw():
    d = bw("memory", "mode=latency", "size=256M", "stride=64", "duration=1000ms")
    return pick(d, "benchwatch_memory_load_latency_seconds") * 1e9


def memlat_ref():
    if not E.get("CHASE"):
        raise Skip("needs a C compiler for memlat_chase.c")
    out, _ = run([E["CHASE"], str(256 << 20), "64", "1000"])
    return float(out.split()[0])


def disk_bw(path=FILE):
    d = bw("disk", "path=" + path, "size=" + SIZE, "mode=randread", "block_size=16k",
           "iodepth=8", "duration=%ds" % SECS)
    return pick(d, "benchwatch_disk_iops", op="read")


def disk_fio(path=FILE):
    # the command, on benchwatch's test file: fio's defaults
    # (random map, randrepeat) as a user types it
    out, _ = run(["fio", "--name=compare", "--filename=" + path, "--size=" + SIZE,
                  "--rw=randread", "--bs=16k", "--direct=1", "--ioengine=libaio",
                  "--iodepth=8", "--time_based", "--runtime=%d" % SECS,
                  "--output-format=json"])
    return json.loads(out)["jobs"][0]["read"]["iops"]


def capped(f):
    """f on the loop device, its reads capped at CAP a second: a device
    whose pace is known, where both tools must report CAP."""
    def g():
        if not E.get("CAP_CGROUP"):
            raise Skip("needs root, cgroup v1 blkio and a free loop device")
        got = f(E["LOOP"])
        if got < 0.95 * float(E["CAP"]):
            print("  diskcap: %.0f reads/s, under the cap %s: the device, not the cap, "
                  "set this run's pace" % (got, E["CAP"]), flush=True)
        return got
    return g


def disklat_bw(path=FILE):
    size = ["size=" + SIZE] if path == FILE else []
    d = bw("disklat", "path=" + path, *size, "rate=100",
           "duration=%ds" % max(SECS, 3))
    return pick(d, "benchwatch_disklat_latency_seconds", "0.5") * 1e6


def disklat_ioping(path=FILE):
    out, _ = run(["ioping", "-D", "-q", "-p", "1", "-i", "10ms",
                  "-w", "%ds" % max(SECS, 3), path])
    return statistics.median(float(l.split()[5]) / 1e3 for l in out.splitlines()
                             if l.strip())


def fixed(f, delay="FIX_US"):
    """f on the loop device whose every read is late by E[delay]
    microseconds: a device of known latency, where both tools' figures
    must be what that delay allows, on the same path."""
    def g():
        if not E.get("FIX_LOOP"):
            raise Skip("needs root, FUSE (fuse3) and a free loop device")
        try:
            with open(E["FIX_CTL"], "w") as ctl:
                ctl.write(E[delay])
        except OSError as err:  # the fixture is gone: this row fails, not all
            raise RuntimeError("cannot set the fixture's delay: %s" % err)
        return f(E["FIX_LOOP"])
    return g


seq_last = {}


def seqread_bw():
    if not E.get("LOOP"):
        raise Skip("needs root and a free loop device")
    for src, v in seq_bw(E["LOOP"]).items():
        seq_last[current, src] = v
    return seq_last[current, "cache"]


def seqread_hdparm():
    if not E.get("LOOP"):
        raise Skip("needs root and a free loop device")
    for src, v in seq_hdparm(E["LOOP"]).items():
        seq_last["classic", src] = v
    return seq_last["classic", "cache"]


def seq_bw(path):
    """benchwatch seqread's two figures, {"cache": B/s, "disk": B/s}."""
    d = bw("seqread", "path=" + path)
    return {src: pick(d, "benchwatch_seqread_bytes_per_second", source=src)
            for src in ("cache", "disk")}


def seq_hdparm(path):
    """hdparm -Tt's two figures in bytes a second (its MB are MiB)."""
    out, _ = run(["hdparm", "-Tt", path])
    return {"cache": grab(r"cached reads:.*= *([0-9.]+) MB/sec", out, "-T") * 1048576,
            "disk": grab(r"disk reads:.*= *([0-9.]+) MB/sec", out, "-t") * 1048576}


def http_bw():
    if not E.get("HTTP_URL"):
        raise Skip("needs nginx")
    d = bw("http", "url=" + E["HTTP_URL"], "concurrency=50", "keepalive=yes",
           "threads=1", "duration=%ds" % SECS)
    return pick(d, "benchwatch_http_requests_per_second")


def http_wrk():
    if not E.get("HTTP_URL"):
        raise Skip("needs nginx")
    out, _ = run(["wrk", "-t1", "-c50", "-d%ds" % SECS, E["HTTP_URL"]])
    return grab(r"Requests/sec:\s*([0-9.]+)", out, "Requests/sec")


def mysql_args():
    if not E.get("MYSQL_PORT"):
        raise Skip("needs MariaDB")
    return ["host=127.0.0.1", "port=" + E["MYSQL_PORT"], "user=" + E["MYSQL_USER"],
            "password_file=" + E["MYSQL_PWFILE"], "database=" + E["MYSQL_DB"],
            "tables=4", "table_size=10000", "threads=4"]


def mysql_bw():
    d = bw("mysql", *mysql_args(), "duration=%ds" % SECS)
    return pick(d, "benchwatch_mysql_transactions_per_second")


def mysql_sb():
    mysql_args()
    pw = open(E["MYSQL_PWFILE"]).read().strip()
    out, _ = run(["sysbench", "/usr/share/sysbench/oltp_read_write.lua",
                  "--db-driver=mysql", "--mysql-host=127.0.0.1",
                  "--mysql-port=" + E["MYSQL_PORT"], "--mysql-user=" + E["MYSQL_USER"],
                  "--mysql-password=" + pw, "--mysql-db=" + E["MYSQL_DB"],
                  "--tables=4", "--table-size=10000", "--threads=4",
                  "--time=%d" % SECS, "run"])
    return grab(r"transactions:\s*[0-9]+\s*\(([0-9.]+) per sec", out, "transactions")


SEED_N = int(E.get("SEED_REQUESTS", "20000"))


def seed_bw():
    if not E.get("SEED_URL"):
        raise Skip("needs nginx and squid")
    d = bw("http", "url=" + E["SEED_URL"], "method=HEAD", "concurrency=500",
           "requests=%d" % SEED_N, "keepalive=no", "timeout=30s")
    return pick(d, "benchwatch_http_requests_per_second")


def seed_ab():
    if not E.get("SEED_URL"):
        raise Skip("needs nginx and squid")
    out, _ = run(["ab", "-i", "-q", "-s", "30", "-c", "500", "-n", str(SEED_N),
                  E["SEED_URL"]])
    return grab(r"Requests per second:\s*([0-9.]+)", out, "Requests per second")


ROWS = [
    ("cpu", "sysbench cpu, max_prime 10000", cpu_bw,
     lambda: sysbench_rate(["cpu", "--cpu-max-prime=10000", "--threads=1"])),
    ("threads", "sysbench threads", threads_bw,
     lambda: sysbench_rate(["threads", "--threads=1", "--thread-yields=1000",
                            "--thread-locks=8"])),
    ("memory", "sysbench memory, 1k writes", memory_bw,
     lambda: sysbench_rate(["memory", "--memory-block-size=1K",
                            "--memory-oper=write"])),
    ("memlat", "a pointer chase, 256M", memlat_bw, memlat_ref),
    ("disk", "fio, 16k randread qd 8", disk_bw, disk_fio),
    ("diskcap", "the same, reads capped", capped(disk_bw), capped(disk_fio)),
    ("disklat", "ioping -D, p50", disklat_bw, disklat_ioping),
    ("disklatfix", "the same, reads delayed", fixed(disklat_bw), fixed(disklat_ioping)),
    ("seqread", "hdparm -T (cached)", seqread_bw, seqread_hdparm),
    ("seqdisk", "hdparm -t (disk)", None, None),
    ("seqdiskfix", "the same, reads delayed",
     fixed(lambda p: seq_bw(p)["disk"], "FIX_SEQ_US"),
     fixed(lambda p: seq_hdparm(p)["disk"], "FIX_SEQ_US")),
    ("http", "wrk -t1 -c50, keep-alive", http_bw, http_wrk),
    ("mysql", "sysbench oltp_read_write", mysql_bw, mysql_sb),
    ("seed", "ab -c 500 via nginx, squids", seed_bw, seed_ab),
]


def load():
    return open("/proc/loadavg").read().split()[0]


seq_rounds = []


def pairs(name, ours, theirs):
    """PAIRS rounds, the order rotating (a drift hits all alike), after one
    run of each left out (caches, a server's buffers, first connections);
    {who: [ratio to the classic tool's run of the same round]}."""
    global pin, cgroup
    cgroup = E.get("CAP_CGROUP", "") if name == "diskcap" else ""
    if name in SERVER_ROWS:
        pin = ["taskset", "-c", CLIENT_CPUS] if CLIENT_CPUS else []
    else:
        pin = ["taskset", "-c", PIN_CPU] if PIN_CPU and name in CPU_ROWS else []
    runs = [("bw", ours), ("classic", theirs)] + ([("before", ours)] if BEFORE else [])
    if name != "seqread":
        for who, f in runs:
            with_build(who, f)
    ratios = {who: [] for who, _ in runs if who != "classic"}
    classic = []
    for i in range(PAIRS):
        k = i % len(runs)
        got = {who: with_build(who, f) for who, f in runs[k:] + runs[:k]}
        for who in ratios:
            ratios[who].append(got[who] / got["classic"])
        classic.append(got["classic"])
        print("  %-8s pair %d: %s  ratio %s  load %s" % (
            name, i + 1, "  ".join("%s %.6g" % kv for kv in got.items()),
            " / ".join("%.3f" % ratios[w][-1] for w in ratios), load()), flush=True)
        if name == "seqread":
            seq_rounds.append(dict(seq_last))
    ratios["self"] = own(classic)
    return ratios


def own(figures):
    """The classic tool against itself: each round's run over the round
    before's (the noise floor)."""
    return [b / a for a, b in zip(figures, figures[1:])]


def with_build(who, f):
    """f() with benchwatch from the build under test or, who == "before",
    from BEFORE (and BEFORE_PLUGIN_DIR)."""
    global current
    current = who
    if who != "before":
        return f()
    old = os.environ.get("BENCHWATCH_PLUGIN_DIR")
    if E.get("BEFORE_PLUGIN_DIR"):
        os.environ["BENCHWATCH_PLUGIN_DIR"] = E["BEFORE_PLUGIN_DIR"]
    try:
        return f()
    finally:
        if old is None:
            os.environ.pop("BENCHWATCH_PLUGIN_DIR", None)
        else:
            os.environ["BENCHWATCH_PLUGIN_DIR"] = old


def seqdisk_ratios():
    """seqdisk's ratios come from the seqread row's runs."""
    if not seq_rounds:
        raise Skip("runs with the seqread row")
    ratios = {who: [r[who, "disk"] / r["classic", "disk"] for r in seq_rounds]
              for who in ("bw", "before") if (who, "disk") in seq_rounds[0]}
    ratios["self"] = own([r["classic", "disk"] for r in seq_rounds])
    return ratios


def cells(r):
    return ["%.3f" % statistics.median(r), spread(r)]


def spread(r):
    return "%.2f .. %.2f" % (min(r), max(r)) if r else ""


def row(name, classic, ours, theirs):
    try:
        r = seqdisk_ratios() if name == "seqdisk" else pairs(name, ours, theirs)
    except Skip as why:
        return [name, classic] + (["", ""] if BEFORE else []) + ["not run: %s" % why, "", "", ""]
    except RuntimeError as err:
        print("  %s: %s" % (name, err), flush=True)
        return [name, classic] + (["", ""] if BEFORE else []) + ["failed", "", "", ""]
    before = cells(r["before"]) if BEFORE else []
    return [name, classic] + before + cells(r["bw"]) + [spread(r["self"]), str(len(r["bw"]))]


def main():
    want = E.get("ROWS", "").split()
    print("%s, %d CPUs, load %s; %d rounds of %d s runs, order rotating, nice %d%s"
          % (time.strftime("%Y-%m-%d %H:%M"), os.cpu_count(),
             " ".join(open("/proc/loadavg").read().split()[:3]), PAIRS, SECS, os.nice(0),
             "; before: " + BEFORE if BEFORE else ""), flush=True)
    if CLIENT_CPUS:
        print("http, mysql, seed: the servers on CPUs %s, both clients on CPUs %s"
              % (E.get("SERVER_CPUS", ""), CLIENT_CPUS), flush=True)
    else:
        print("http, mysql, seed: servers and clients share the CPUs", flush=True)
    print("%s: both tools on %s; the disk rows on any CPU"
          % (", ".join(CPU_ROWS), "CPU " + PIN_CPU if PIN_CPU else "any CPU"), flush=True)
    table = [row(*r) for r in ROWS if not want or r[0] in want]
    print("\nload at the end %s; ratio: benchwatch / classic, the median of the pairs;"
          "\nclassic's own: each round's classic run / the round before's (the noise floor)"
          % " ".join(open("/proc/loadavg").read().split()[:3]))
    if BEFORE:
        print("\n| probe | classic tool | before | spread | ratio | spread | classic's own "
              "| pairs |")
        print("|---|---|--:|---|--:|---|---|--:|")
    else:
        print("\n| probe | classic tool | ratio | spread | classic's own | pairs |")
        print("|---|---|--:|---|---|--:|")
    for r in table:
        print("| %s |" % " | ".join(r))


main()
