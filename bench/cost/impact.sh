#!/bin/bash
# bench/cost/impact.sh — what benchwatch's daemon costs a co-located workload,
# measured: "low impact, measured and enforced".
#
# Two workloads, one after the other, each in blocks of BLOCK seconds that
# alternate without (A) and with (B) the daemon, in the order ABBA ABBA...
# (so a linear drift of the machine hits both alike):
#   web  nginx (1 worker) serving a 4 kB static file on 127.0.0.1, driven
#        at a constant RATE (open loop: `benchwatch run http rate=`, latency
#        from each request's intended send time) well below its capacity
#        (RATE_FRACTION of a closed-loop run, unless RATE is given), as
#        back-to-back runs of SLICE seconds, each with its own figures;
#   cpu  `sysbench cpu --threads=THREADS --time=SLICE --histogram=on`
#        back to back: events/s and the pooled latency histogram.
# In a B block `benchwatch daemon` runs with the built-in configuration
# (probes cpu, threads, memory, disk at their real intervals, durations and
# default nice/ionice/deferral/yield), written out as a file only so that
# its state_dir, cache_dir (under /var/tmp: a disk, for the disk probe) and
# textfile are private; it is started at the block's start and stopped at
# its end, state kept from block to block.  Each probe run's start and end
# come from the daemon's own lines (--verbose --print, time-stamped as they
# arrive); a slice that overlaps a run or the AFTER seconds after its end
# (10: on a VM the host takes freed memory back 2-4 s after a run, and
# slices 10 s after runs look like those without the daemon) is "during
# probe runs".
#
# Printed: the workload's throughput change and p50/p99/p99.9 latency
# change, overall and during probe runs only, against all A blocks pooled,
# with the spread over B blocks and, as the noise floor, over A blocks;
# the steady state's change with its 90% interval (the ABBA pairs of blocks
# resampled with replacement, BOOT=1000 times), and against the B blocks'
# own slices outside runs (the host's block-to-block noise, which the A
# blocks share only by turns, then on both sides; B blocks resampled);
# the runs that ran, failed, yielded or were deferred (the textfile's
# benchwatch_probe_deferred_total); and the daemon's cost: CPU seconds
# (/proc/PID/stat utime+stime, and with cutime+cstime of its reaped probe
# runs), bytes through read/write (rchar/wchar) and to/from the block layer
# (read_bytes/write_bytes) of /proc/PID/io — Linux adds a reaped child's
# I/O counts to its parent's (wait_task_zombie), so probe runs are
# included — and wake-ups (voluntary + involuntary context switches of the
# daemon's threads, /proc/PID/task/*/status; its own, not its probes'),
# per hour of the daemon's life after its start-up (reported apart: a
# service starts once a boot).  Then the same as a table for the README.
# Goals: overall throughput loss <= 1 %, overall p99 increase <= 5 %, for
# a daemon left on: judged at the steady state (below).
#
# Notes: a fresh daemon runs every probe's first run within first_splay
# (30 s) of its start, so probes take a far larger share of a B block than
# of a daemon's life at the built-in intervals (10-30 min).  The steady
# state is therefore estimated from what was measured: the share of time
# probes take at the built-in intervals (each probe's mean run length plus
# AFTER over its interval) and the B slices outside and during each probe's
# runs mixed in those proportions; "during probe runs" is what each run costs.  Then, per
# probe, the steady state with that probe's interval 2, 4 and 12 times
# longer and without it: which probe costs the workload what.  Per block
# the host's CPU pressure (PSI) is printed too: other work on the host shows
# there, and the spread of the A blocks is the noise floor a change must
# clear.  Web latencies pooled over slices mix each slice's distribution,
# from their latency histograms (a build before that: interpolated between
# each slice's quantiles); cpu's pool sysbench's histograms.
#
# Usage: bench/cost/impact.sh [BUILD_DIR [BLOCK_SECONDS [BLOCKS]]]
#        (defaults: ., 300 s, 4 blocks per workload = 10 min per condition)
#        a short trial: bench/cost/impact.sh . 60 4
#        ANALYZE=DIR bench/cost/impact.sh: the figures again from the raw data
#        an earlier run kept in DIR (OUT=DIR)
# Env:   WORKLOADS ("web cpu"), RATE (requests/s; default RATE_FRACTION,
#        0.25, of the measured capacity), CONC (8 connections), SLICE (1 s),
#        THREADS (nproc: sysbench threads), PORT (18095), SETTLE (3 s
#        between blocks), OUT (keep the raw data in this directory),
#        AFTER (10 s: how long after a run its effects are counted as the
#        run's; also with ANALYZE), BOOT (1000 resamplings for the 90%
#        intervals; also with ANALYZE), CPU_POLICY (other, batch or idle:
#        the built-in configuration's probes written out as a file with
#        [daemon] cpu_policy set, to compare the CPU-bound probes'
#        scheduling policies; unset: the built-in configuration itself).
# Not part of `make check`: it takes 40 minutes and its figures are for people.
set -u
export LC_ALL=C
# analyze: the figures, from the raw data in $W
analyze() {
python3 - "$W" "${RATE:-0}" "$BLOCK" "$BLOCKS" "$SLICE" "$THREADS" <<'EOF'
import bisect, json, math, os, random, re, sys
W, RATE, BLOCK, NBLOCKS, SLICE, THREADS = sys.argv[1], float(sys.argv[2]), \
    int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
QS = (0.5, 0.99, 0.999)

def parse_web(f):
    try:
        doc = json.load(open(f))
    except (OSError, ValueError):
        return None
    m = {x["name"]: x["samples"] for x in doc.get("metrics", [])}
    try:
        lat = m["benchwatch_http_latency_seconds"][0]
        q = lat["quantiles"]
        xs = [lat["min"], q["0.5"], q["0.9"], q["0.95"], q["0.99"], q["0.999"], lat["max"]]
        ps = [0, 0.5, 0.9, 0.95, 0.99, 0.999, 1]
        for i in range(1, len(xs)):
            xs[i] = max(xs[i], xs[i - 1])
        d = {"n": m["benchwatch_http_complete_requests"][0]["value"],
             "t": m["benchwatch_http_time_taken_seconds"][0]["value"],
             "failed": sum(s["value"] for s in m["benchwatch_http_failed_requests"])}
        # the histogram pools slices exactly; data from a build without it
        # falls back on interpolating between the quantiles
        if "histogram" in lat:
            d["hist"] = {le: n for le, n in lat["histogram"]}
        else:
            d["dist"] = (lat["count"], xs, ps)
        return d
    except (KeyError, IndexError):
        return None

HIST = re.compile(r"^\s*([0-9.]+) \|\**\s+(\d+)\s*$")
def parse_cpu(f):
    d = {"hist": {}, "failed": 0}
    try:
        for line in open(f):
            h = HIST.match(line)
            if h:
                v = float(h.group(1)) / 1e3
                d["hist"][v] = d["hist"].get(v, 0) + int(h.group(2))
            elif "total number of events:" in line:
                d["n"] = float(line.split()[-1])
            elif line.strip().startswith("total time:"):
                d["t"] = float(line.split()[-1].rstrip("s"))
    except OSError:
        return None
    return d if "n" in d and "t" in d else None

slices = []
for line in open(os.path.join(W, "slices.tsv")):
    wl, cond, blk, t0, t1, rc, f = line.rstrip("\n").split("\t")
    f = os.path.join(W, "slices", os.path.basename(f)) # also where OUT keeps it
    s = {"wl": wl, "cond": cond, "blk": int(blk), "t0": float(t0), "t1": float(t1)}
    s["fig"] = (parse_web if wl == "web" else parse_cpu)(f) if rc == "0" else None
    slices.append(s)

# probe runs, from the daemon's time-stamped lines
runs, counts, dstats = {}, {}, {}
for line in open(os.path.join(W, "daemon.tsv")) if os.path.exists(os.path.join(W, "daemon.tsv")) else []:
    v = line.rstrip("\n").split("\t")
    tag, tstart, t0, t1 = v[0], float(v[1]), float(v[2]), float(v[3])
    base, end_, tck = [float(x) for x in v[4:14]], [float(x) for x in v[14:24]], float(v[24])
    def cnt(c):
        ut, st, cut, cst, rchar, wchar, rb, wb, cwb, csw = c
        return {"self": (ut + st) / tck, "all": (ut + st + cut + cst) / tck, "rchar": rchar,
                "wchar": wchar, "read_bytes": rb, "write_bytes": wb, "cancelled": cwb, "csw": csw}
    wl, blk = tag.rsplit(".", 1)
    b, e = cnt(base), cnt(end_)
    dstats[(wl, int(blk))] = dict({k: e[k] - b[k] for k in e}, life=t1 - t0, busy=v[25] == "yes",
                                  t0=t0, t1=t1, startup=b, startup_s=t0 - tstart)
    c = counts.setdefault(wl, {"ok": 0, "failed": 0, "yielded": 0, "stopped": 0,
                               "deferred_log": 0, "deferred_total": 0, "reasons": {}})
    rl, cur = runs.setdefault((wl, int(blk)), []), None
    for l in open(os.path.join(W, "daemon.%s.log" % tag)):
        t, _, msg = l.rstrip("\n").partition(" ")
        t = float(t)
        if "': started (pid " in msg:
            cur = [t, None, msg.split("'")[1], None]
            continue
        if "deferred, host busy" in msg:
            c["deferred_log"] += 1
        end = None
        if "': ok in " in msg:
            end = "ok"
        elif "': FAILED after " in msg:
            end = "failed"
        elif "yielded to other work" in msg:
            end = "yielded"
        elif "interrupted by the stop" in msg:
            end = "stopped"
        if end and cur:
            cur[1], cur[3] = t, end
            rl.append(cur)
            c[end] += 1
            cur = None
    if cur:
        cur[1], cur[3] = t1, "stopped"
        rl.append(cur)
    for l in open(os.path.join(W, "prom.%s" % tag)):
        m = re.match(r'^benchwatch_probe_deferred_total\{(.*)\}\s+(\S+)', l)
        if m:
            r = re.search(r'reason="([^"]*)"', m.group(1))
            c["deferred_total"] += float(m.group(2))
            k = r.group(1) if r else "?"
            c["reasons"][k] = c["reasons"].get(k, 0) + float(m.group(2))

psi = {}
if os.path.exists(os.path.join(W, "blocks.tsv")):
    for line in open(os.path.join(W, "blocks.tsv")):
        wl, cond, blk, t0, t1, stall = line.rstrip("\n").split("\t")
        psi[(wl, int(blk))] = 100 * float(stall) / 1e6 / (float(t1) - float(t0))

# a run's effect on the workload outlasts its process (freed memory handed
# back, I/O completing, caches refilling): a slice up to AFTER seconds after
# a run's end counts as during it, and so does that time in the run's share
AFTER = float(os.environ.get("AFTER", "10"))

def overlaps(s):
    return any(a < s["t1"] and b + AFTER > s["t0"] for a, b, _, _ in runs.get((s["wl"], s["blk"]), []))

def mix_quantile(dists, q):
    dists = [d for d in dists if d[0] > 0]
    if not dists:
        return float("nan")
    total = sum(d[0] for d in dists)
    def cdf(x):
        acc = 0.0
        for n, xs, ps in dists:
            if x >= xs[-1]:
                acc += n
            elif x > xs[0]:
                i = bisect.bisect_right(xs, x)
                x0, x1 = xs[i - 1], xs[i]
                acc += n * (ps[i] if x1 <= x0 else ps[i - 1] + (ps[i] - ps[i - 1]) * (x - x0) / (x1 - x0))
        return acc / total
    lo = max(min(d[1][0] for d in dists), 1e-9)
    hi = max(d[1][-1] for d in dists)
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if cdf(mid) < q:
            lo = mid
        else:
            hi = mid
    return hi

def hist_quantile(hist, q):
    total = sum(hist.values())
    if not total:
        return float("nan")
    acc = 0
    for v in sorted(hist):
        acc += hist[v]
        if acc >= q * total:
            return v
    return max(hist)

def figures(ss, weight=lambda s: 1.0):
    """throughput and pooled p50/p99/p99.9 of a set of slices, each slice's
    time and requests counted weight(slice) times"""
    n = t = failed = freq = 0.0
    dists, hist = [], {}
    for s in ss:
        f, w = s["fig"], weight(s)
        if f is None:
            t += w * (s["t1"] - s["t0"])
            failed += 1
            continue
        n += w * f["n"]
        t += w * f["t"]
        freq += f.get("failed", 0)
        if "dist" in f:
            dists.append((w * f["dist"][0], f["dist"][1], f["dist"][2]))
        for v, k in f.get("hist", {}).items():
            hist[v] = hist.get(v, 0) + w * k
    r = {"tput": n / t if t else float("nan"), "slices": len(ss), "failed": failed,
         "failed_requests": freq}
    for q in QS:
        r[q] = hist_quantile(hist, q) if hist else mix_quantile(dists, q)
    return r

def pct(a, b):
    return (a / b - 1) * 100 if b and not math.isnan(a) and not math.isnan(b) else float("nan")

def fq(v, unit):
    if math.isnan(v):
        return "-"
    if unit == "s":
        for scale, u in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
            if v >= scale or u == "µs":
                return "%.3g %s" % (v / scale, u)
    return "%.4g" % v

def fb(v):
    for scale, u in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "k")):
        if v >= scale:
            return "%.3g%s" % (v / scale, u)
    return "%d" % v

def spread(vals):
    vals = [v for v in vals if not math.isnan(v)]
    return "%+.2f..%+.2f" % (min(vals), max(vals)) if vals else "-"

# The steady state: a fresh daemon runs every probe within a minute of its
# start, so probes take a larger share of the short B blocks than of a
# daemon's life.  At the built-in intervals they take share = sum over
# probes of (mean length of a run that ran to the end + AFTER) / interval; the
# overall figures at that share mix the B slices outside probe runs and
# those during them in that proportion of time.
UNIT = {"ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}
intervals = {}
for l in open(os.path.join(W, "check.ours")):
    m = re.match(r"^\s+(\S+)\s+plugin\s+\S+\s+every\s+([0-9.]+)(ms|s|min|h|d)?,", l)
    if m:
        intervals[m.group(1)] = float(m.group(2)) * UNIT[m.group(3) or "s"]
lengths = {}
for rl in runs.values():
    for a, b, name, end in rl:
        if end == "ok":
            lengths.setdefault(name, []).append(b - a + AFTER)
share = {k: sum(v) / len(v) / intervals[k] for k, v in lengths.items() if k in intervals}
steady = sum(share.values())
unmeasured = sorted(set(intervals) - set(lengths))
print("\nsteady state: probes run (with the %g s after each run) %.2f%% of the time at the "
      "built-in intervals (%s)%s"
      % (AFTER, 100 * steady, ", ".join("%s %.1f s every %gs" % (k, sum(v) / len(v), intervals[k])
                                 for k, v in sorted(lengths.items()) if k in intervals),
         "; no run to the end of %s: not counted" % ", ".join(unmeasured) if unmeasured else ""))

def probe_of(s):
    """the probe whose run a slice overlaps, else the one whose last AFTER
    seconds it overlaps (the latest), or None"""
    rl = runs.get((s["wl"], s["blk"]), [])
    during = [name for a, b, name, _ in rl if a < s["t1"] and b > s["t0"]]
    if during:
        return during[0]
    after = [(b, name) for a, b, name, _ in rl if b <= s["t0"] < b + AFTER]
    return max(after)[1] if after else None

def steady_figures(Bo, Bp, sh=None):
    """the B figures with each probe's runs taking its share sh[probe] of
    the time (default: at the built-in intervals) and the slices outside
    probe runs the rest; slices of a probe without a share count nothing"""
    sh = share if sh is None else sh
    tt = lambda ss: sum(x["fig"]["t"] if x["fig"] else x["t1"] - x["t0"] for x in ss)
    to = tt(Bo)
    tp = {k: tt([x for x in Bp if probe_of(x) == k]) for k in sh}
    if not to or not any(tp.values()):
        return figures(Bo or Bp)
    rest = 1 - sum(v for k, v in sh.items() if tp[k])
    def weight(x):
        k = probe_of(x)
        if k is None:
            return rest / to
        return sh[k] / tp[k] if tp.get(k) else 0.0
    return figures(Bo + Bp, weight)

def bootstrap(units, est, keys, seed):
    """90% intervals of the figures est(units) returns (a dict over keys; None:
    no estimate from that draw), the units resampled with replacement BOOT
    times (a fixed seed: the same data give the same interval)"""
    rnd, boot = random.Random(seed), {k: [] for k in keys}
    for _ in range(BOOT if len(units) > 1 else 0):
        e = est(rnd.choices(units, k=len(units)))
        for k in keys if e else ():
            if not math.isnan(e[k]):
                boot[k].append(e[k])
    out = {}
    for k in keys:
        v = sorted(boot[k])
        out[k] = (v[int(0.05 * (len(v) - 1))], v[int(0.95 * (len(v) - 1))]) if v else None
    return out

def interval90(ws, keys):
    """the steady-state change of each figure in keys against the A blocks,
    90% interval: the blocks taken in their ABBA pairs (neighbours in time,
    one without and one with the daemon) and the pairs resampled"""
    blocks = sorted({s["blk"] for s in ws})
    pairs = [blocks[i:i + 2] for i in range(0, len(blocks) - 1, 2)]
    of = {k: [s for s in ws if s["blk"] == k] for k in blocks}
    def est(drawn):
        A, Bo, Bp = [], [], []
        for x in (x for p in drawn for k in p for x in of[k]):
            (A if x["cond"] == "A" else Bp if overlaps(x) else Bo).append(x)
        if not A or not (Bo or Bp):
            return None
        fa, fs = figures(A), steady_figures(Bo, Bp)
        return {k: pct(fs[k], fa[k]) for k in keys}
    return bootstrap(pairs, est, keys, 1)

def within_b(ws, keys):
    """the steady state against the B blocks' own slices outside probe runs
    (AFTER makes those like the A blocks: the outside% column), and its 90%
    interval over the B blocks resampled: block-to-block noise of the host,
    which the A blocks share only by turns, is on both sides"""
    bb = sorted({s["blk"] for s in ws if s["cond"] == "B"})
    of = {k: [s for s in ws if s["blk"] == k] for k in bb}
    def est(blocks):
        B = [x for k in blocks for x in of[k]]
        Bo, Bp = [x for x in B if not overlaps(x)], [x for x in B if overlaps(x)]
        fo, fs = figures(Bo), steady_figures(Bo, Bp)
        return {k: pct(fs[k], fo[k]) for k in keys}
    point, iv = est(bb), bootstrap(bb, est, keys, 2)
    return {k: (point[k], iv[k]) for k in keys}

def fi(iv):
    return "%+.1f..%+.1f%%" % iv if iv else "-"

BOOT = int(os.environ.get("BOOT", "1000"))
rows, costs, verdicts = [], [], []
for wl in dict.fromkeys(s["wl"] for s in slices):
    ws = [s for s in slices if s["wl"] == wl]
    A = [s for s in ws if s["cond"] == "A"]
    B = [s for s in ws if s["cond"] == "B"]
    Bp = [s for s in B if overlaps(s)]
    Bo = [s for s in B if not overlaps(s)]
    fA, fB, fBp, fBo = figures(A), figures(B), figures(Bp), figures(Bo)
    fS = steady_figures(Bo, Bp)
    ci = interval90(ws, ("tput", 0.5, 0.99, 0.999))
    wb = within_b(ws, ("tput", 0.5, 0.99, 0.999))
    ablocks = sorted({s["blk"] for s in A})
    bblocks = sorted({s["blk"] for s in B})
    pa = {k: figures([s for s in A if s["blk"] == k]) for k in ablocks}
    pb = {k: figures([s for s in B if s["blk"] == k]) for k in bblocks}
    pbp = {k: figures([s for s in Bp if s["blk"] == k]) for k in bblocks}
    name = "web %d req/s" % RATE if wl == "web" else "cpu %d threads" % THREADS
    # probe time within the B blocks' workload windows
    ptime = btime = 0.0
    for k in bblocks:
        bs = [s for s in B if s["blk"] == k]
        w0, w1 = min(s["t0"] for s in bs), max(s["t1"] for s in bs)
        btime += w1 - w0
        ptime += sum(max(0, min(b + AFTER, w1) - max(a, w0)) for a, b, _, _ in runs.get((wl, k), []))
    print("\n== %s: %d slices without, %d with the daemon (%d during probe runs); "
          "failed slices %d / %d, failed requests %d / %d"
          % (name, len(A), len(B), len(Bp), fA["failed"], fB["failed"],
             fA["failed_requests"], fB["failed_requests"]))
    print("probe runs took %.1f%% of the B blocks' time (at the built-in intervals: %.2f%%)"
          % (100 * ptime / btime if btime else 0, 100 * steady))
    print("%-12s %10s %10s %9s  %-15s %-15s %10s %9s %-15s %9s %9s %s" % ("figure", "without", "with",
          "change%", "B blocks", "A blocks(noise)", "in-probe", "change%", "B blocks", "outside%",
          "steady%", "steady 90% interval"))
    for key, label in (("tput", "throughput/s"), (0.5, "p50"), (0.99, "p99"), (0.999, "p99.9")):
        unit = "" if key == "tput" else "s"
        ch = pct(fB[key], fA[key])
        chp = pct(fBp[key], fA[key])
        sb = spread([pct(pb[k][key], fA[key]) for k in bblocks])
        sa = spread([pct(pa[k][key], fA[key]) for k in ablocks])
        sbp = spread([pct(pbp[k][key], fA[key]) for k in bblocks])
        chs = pct(fS[key], fA[key])
        print("%-12s %10s %10s %+9.2f  %-15s %-15s %10s %+9.2f %-15s %+9.2f %+9.2f %s" % (label,
              fq(fA[key], unit), fq(fB[key], unit), ch, sb, sa, fq(fBp[key], unit), chp, sbp,
              pct(fBo[key], fA[key]), chs, fi(ci[key])))
        rows.append((name, label, fq(fA[key], unit), fq(fB[key], unit), ch, sb, sa, chs,
                     fi(ci[key]), fq(fBp[key], unit), chp, sbp))
    print("steady state against the B blocks' own slices outside probe runs (90%% interval, "
          "B blocks resampled): %s" % ", ".join("%s %+.2f%% (%s)" % (label, wb[key][0], fi(wb[key][1]))
          for key, label in (("tput", "throughput"), (0.5, "p50"), (0.99, "p99"), (0.999, "p99.9"))))
    # what each probe's share costs: the steady state without that probe,
    # and with its interval 2, 4 and 12 times the built-in one
    if Bp:
        print("steady-state p99 change by probe (its interval x1, x2, x4, x12; without it), "
              "against the A blocks | against the B blocks' slices outside runs:")
        fBo99 = figures(Bo)[0.99]
        for k in sorted(share):
            cells, own = [], []
            for mult in (1, 2, 4, 12, None):
                sh = dict(share)
                if mult is None:
                    sh.pop(k)
                else:
                    sh[k] = share[k] / mult
                p99s = steady_figures(Bo, Bp, sh)[0.99]
                cells.append("%+.1f%%" % pct(p99s, fA[0.99]))
                own.append("%+.1f%%" % pct(p99s, fBo99))
            print("  %-15s %5.1f s every %-6gs share %.2f%%: %s | %s" % (k, share[k] * intervals[k],
                  intervals[k], 100 * share[k], "  ".join(cells), "  ".join(own)))
    print("per block: cond, throughput/s, p50, p99, p99.9, share of time in probe runs, "
          "host CPU pressure (PSI some: share of time a task waited for a CPU)")
    for k in sorted(set(ablocks) | set(bblocks)):
        bs = [s for s in ws if s["blk"] == k]
        f = figures(bs)
        w0, w1 = min(s["t0"] for s in bs), max(s["t1"] for s in bs)
        sh = sum(max(0, min(b + AFTER, w1) - max(a, w0)) for a, b, _, _ in runs.get((wl, k), [])) / (w1 - w0)
        ps = psi.get((wl, k))
        print("  %2d %s %10s %9s %9s %9s %6.1f%% %8s" % (k, bs[0]["cond"], fq(f["tput"], ""),
              fq(f[0.5], "s"), fq(f[0.99], "s"), fq(f[0.999], "s"), 100 * sh,
              "%.1f%%" % ps if ps is not None else "-"))
    # the goals are for a daemon left on: judged at the steady state
    loss = -pct(fS["tput"], fA["tput"])
    p99 = pct(fS[0.99], fA[0.99])
    ok = loss <= 1 and p99 <= 5
    # the goals are only told apart from noise when the blocks without the
    # daemon agree with each other better than the goal, and probes ran
    noise_t = max([abs(pct(pa[k]["tput"], fA["tput"])) for k in ablocks] + [0])
    noise_99 = max([abs(pct(pa[k][0.99], fA[0.99])) for k in ablocks] + [0])
    why = []
    if noise_t > 1 or noise_99 > 5:
        why.append("blocks without the daemon differ by up to %.1f%% in throughput and %.1f%% "
                   "in p99 among themselves" % (noise_t, noise_99))
    if not Bp:
        why.append("no probe ran during the workload (all deferred)")
    # and when the 90% interval lies on one side of the goal
    iv = ci[0.99]
    if iv and iv[0] <= 5 < iv[1]:
        why.append("the p99 change's 90%% interval, %s, holds the goal" % fi(iv))
    verdicts.append("%s, at the steady state: throughput loss %.2f%% (goal <= 1%%), p99 %+.2f%% "
                    "(90%% interval %s; goal <= +5%%): %s%s; against the B blocks' own slices "
                    "outside runs: throughput %+.2f%%, p99 %+.2f%% (90%% interval %s)"
                    % (name, loss, p99, fi(iv), "met" if ok else "NOT met",
                       "; inconclusive: " + "; ".join(why) if why else "",
                       wb["tput"][0], wb[0.99][0], fi(wb[0.99][1])))
    # the daemon's cost
    ds = [dstats[(wl, k)] for k in bblocks if (wl, k) in dstats]
    c = counts.get(wl, {})
    if ds:
        life = sum(d["life"] for d in ds)
        per_h = lambda key: sum(d[key] for d in ds) / life * 3600
        ph = {k: per_h(k) for k in ("self", "all", "rchar", "wchar", "read_bytes", "write_bytes",
                                      "cancelled", "csw")}
        yielded = c["yielded"]
        before = max(c["deferred_total"] - yielded, 0)
        print("daemon: %.0f s alive; runs: %d ran to the end (%d failed), %d yielded during the run, "
              "%d deferred before starting (benchwatch_probe_deferred_total %d = yielded + deferred; "
              "by reason %s; %d deferral lines logged), %d cut by the stop"
              % (life, c["ok"] + c["failed"], c["failed"], yielded, before, c["deferred_total"],
                 ", ".join("%s %d" % kv for kv in sorted(c["reasons"].items())), c["deferred_log"],
                 c["stopped"]))
        print("daemon per hour: CPU %.2f s itself, %.1f s with its probe runs; rchar %s wchar %s; "
              "read_bytes %s write_bytes %s (cancelled %s); wake-ups %.0f"
              % (ph["self"], ph["all"], fb(ph["rchar"]), fb(ph["wchar"]), fb(ph["read_bytes"]),
                 fb(ph["write_bytes"]), fb(ph["cancelled"]), ph["csw"]))
        su = {k: sum(d["startup"][k] for d in ds) / len(ds) for k in ("self", "read_bytes", "rchar", "csw")}
        print("daemon start-up (mean of %d, %.2f s each; not in the figures per hour): CPU %.3f s, "
              "rchar %s, read_bytes %s, %d context switches" % (len(ds),
              sum(d["startup_s"] for d in ds) / len(ds), su["self"], fb(su["rchar"]),
              fb(su["read_bytes"]), su["csw"]))
        if any(d["busy"] for d in ds):
            print("  (a probe was still running when a block's counters were read: it is not in them)")
        costs.append((name, c["ok"] + c["failed"], yielded, before, 100 * ptime / btime if btime else 0, ph))

print("\n== for the README (blocks of %d s, %d per workload; change against all blocks "
      "without the daemon; spread: per block with the daemon, and without it as the noise floor)\n"
      % (BLOCK, NBLOCKS))
print("| workload | figure | without | with | change | per block | noise | steady state (%.2f%% probes) "
      "| its 90%% interval | during probe runs | change | per block |" % (100 * steady))
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(("| %s | %s | %s | %s | %+.2f%% | %s | %s | %+.2f%% | %s | %s | %+.2f%% | %s |" % r).replace("+nan%", "-"))
print("\n| workload | runs ran / yielded / deferred | probe share of time | daemon CPU s/h (self / with probes) "
      "| read / write bytes/h (block layer) | rchar / wchar per h | wake-ups/h |")
print("|---|---|---|---|---|---|---|")
for name, ran, yl, dfr, share, ph in costs:
    print("| %s | %d / %d / %d | %.1f%% | %.2f / %.1f | %s / %s | %s / %s | %.0f |"
          % (name, ran, yl, dfr, share, ph["self"], ph["all"], fb(ph["read_bytes"]),
             fb(ph["write_bytes"]), fb(ph["rchar"]), fb(ph["wchar"]), ph["csw"]))
print()
for v in verdicts:
    print(v)
EOF
}

if [ -n "${ANALYZE:-}" ]; then
        # the parameters of the run that measured, then its analysis
        # shellcheck disable=SC1091
        . "$ANALYZE/params" || exit 2
        W=$ANALYZE
        analyze
        exit
fi
build=$(cd "${1:-.}" && pwd)
BLOCK=${2:-300}
BLOCKS=${3:-4}
WORKLOADS=${WORKLOADS:-web cpu}
SLICE=${SLICE:-1}
CONC=${CONC:-8}
THREADS=${THREADS:-$(nproc)}
PORT=${PORT:-18095}
SETTLE=${SETTLE:-3}
RATE_FRACTION=${RATE_FRACTION:-0.25}
BW=$build/benchwatch
[ -x "$BW" ] || { echo "bench/cost/impact.sh: no benchwatch in $build" >&2; exit 2; }
[ $((BLOCKS % 2)) -eq 0 ] && [ "$BLOCKS" -ge 2 ] ||
        { echo "bench/cost/impact.sh: BLOCKS must be even (as many with as without)" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/cost/impact.sh: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }
command -v nginx >/dev/null || PATH=$PATH:/usr/sbin
for t in python3 pgrep; do
        command -v $t >/dev/null || { echo "bench/cost/impact.sh: needs $t" >&2; exit 2; }
done
case " $WORKLOADS " in *" web "*) command -v nginx >/dev/null ||
        { echo "bench/cost/impact.sh: the web workload needs nginx" >&2; exit 2; } ;; esac
case " $WORKLOADS " in *" cpu "*) command -v sysbench >/dev/null ||
        { echo "bench/cost/impact.sh: the cpu workload needs sysbench" >&2; exit 2; } ;; esac
export BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$build/plugins/.libs}
W=$(mktemp -d /var/tmp/bw-impact.XXXXXX)
pids=""
D=""
cleanup() {
        [ -n "$D" ] && kill "$D" 2>/dev/null
        for p in $pids; do kill "$p" 2>/dev/null; done
        wait 2>/dev/null
        bw_daemon cleanup >/dev/null 2>&1
        if [ -n "${OUT:-}" ]; then
                mkdir -p "$OUT" && cp -r "$W"/. "$OUT"/ && echo "raw data in $OUT"
        fi
        rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/state" "$W/cache" "$W/www" "$W/slices" "$W/nginx-tmp"

# The built-in configuration itself (no configuration file), with private
# places: benchwatch takes state_dir and cache_dir from systemd's
# $STATE_DIRECTORY and $CACHE_DIRECTORY, and its textfile (a relative path)
# lands in state_dir.
DCONF=()
if [ -n "${CPU_POLICY:-}" ]; then
        # the built-in configuration's probes (daemon/core/conf.c), and the policy
        DCONF=(-c "$W/daemon.conf")
        cat > "$W/daemon.conf" <<EOF
[daemon]
interval = 30min
timeout = 1min
cpu_policy = $CPU_POLICY
[probe cpu]
plugin = cpu
interval = 10min
duration = 2s
[probe threads]
plugin = threads
duration = 2s
[probe memory]
plugin = memory
mode = dram
interval = 20min
duration = 2s
[probe memory-latency]
plugin = memory
mode = latency
duration = 2s
[probe disk]
plugin = disklat
size = 1G
rate = 100
duration = 5s
[textfile]
path = benchwatch.prom
EOF
fi
bw_daemon() { STATE_DIRECTORY=$W/state CACHE_DIRECTORY=$W/cache "$BW" "${DCONF[@]}" "$@"; }
bw_daemon check-config > "$W/check.ours" || exit 2
[ -n "${CPU_POLICY:-}" ] || grep -q '<built-in>' "$W/check.ours" ||
        { echo "bench/cost/impact.sh: a configuration file is installed; this measures the built-in configuration" >&2; exit 2; }
# the workload's own client: at nice 0, as a real workload runs
printf '[daemon]\nnice = 0\nstate_dir = %s/cstate\ncache_dir = %s/ccache\n' "$W" "$W" > "$W/client.conf"

now_us() { echo "${EPOCHREALTIME/./}"; }
# stamp: each line of stdin with the time it arrived
stamp() {
        local l
        while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done
}

start_nginx() {
        head -c 3000 /dev/urandom | base64 -w 75 > "$W/www/index.html" # 4 kB
        chmod 755 "$W" "$W/www" # nginx's workers may run as another user
        cat > "$W/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process on;
pid $W/nginx.pid;
error_log $W/nginx.error.log warn;
events { worker_connections 4096; }
http {
    # no access log: its writes would count as the host's disk I/O, which
    # is what makes the daemon's disk probe yield
    access_log off;
    client_body_temp_path $W/nginx-tmp/body;
    proxy_temp_path $W/nginx-tmp/proxy;
    fastcgi_temp_path $W/nginx-tmp/fastcgi;
    uwsgi_temp_path $W/nginx-tmp/uwsgi;
    scgi_temp_path $W/nginx-tmp/scgi;
    default_type text/html;
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        root $W/www;
    }
}
EOF
        nginx -p "$W" -c "$W/nginx.conf" > "$W/nginx.out" 2>&1 &
        pids="$pids $!"
        local i
        for i in $(seq 100); do
                (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
                sleep 0.05
        done
        echo "bench/cost/impact.sh: nginx did not come up on port $PORT" >&2
        cat "$W/nginx.out" "$W/nginx.error.log" >&2 2>/dev/null
        return 1
}

URL=http://127.0.0.1:$PORT/index.html
measure_rate() {
        [ -n "${RATE:-}" ] && return 0
        "$BW" -c "$W/client.conf" run http url="$URL" concurrency="$CONC" duration=5s \
            --nice=0 --format=json > "$W/capacity.json" || {
                echo "bench/cost/impact.sh: capacity run failed" >&2; return 1; }
        CAPACITY=$(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
print([f for f in doc["metrics"] if f["name"] == "benchwatch_http_requests_per_second"][0]["samples"][0]["value"])' \
            "$W/capacity.json")
        RATE=$(awk -v c="$CAPACITY" -v f="$RATE_FRACTION" 'BEGIN { printf "%d", c * f }')
        echo "web: capacity ${CAPACITY%.*} requests/s (closed loop, $CONC connections, 5 s); rate $RATE requests/s"
}

# slice_web FILE / slice_cpu FILE: one slice of the workload, its figures in FILE
slice_web() {
        "$BW" -c "$W/client.conf" run http url="$URL" rate="$RATE" concurrency="$CONC" \
            duration="${SLICE}s" timeout=5s --nice=0 --format=json > "$1" 2> "$1.err"
}
slice_cpu() {
        sysbench cpu --threads="$THREADS" --time="$SLICE" --histogram=on run > "$1" 2>&1
}

# run_block WORKLOAD COND BLOCK: slices back to back for BLOCK seconds
# (and the host's CPU pressure over the block: other work shows there)
psi_cpu() {
        local _ tot=0
        [ -r /proc/pressure/cpu ] && read -r _ _ _ _ tot < /proc/pressure/cpu
        echo "${tot#total=}"
}
run_block() {
        local end=$(( $(now_us) + BLOCK * 1000000 )) i=0 t0 t1 rc f
        local b0=$EPOCHREALTIME p0
        p0=$(psi_cpu)
        while (( ${EPOCHREALTIME/./} + SLICE * 1000000 <= end )); do
                f=$W/slices/$1.$3.$i
                t0=$EPOCHREALTIME
                "slice_$1" "$f"
                rc=$?
                t1=$EPOCHREALTIME
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$t0" "$t1" "$rc" "$f" >> "$W/slices.tsv"
                i=$((i + 1))
        done
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$b0" "$EPOCHREALTIME" \
            "$(( $(psi_cpu) - p0 ))" >> "$W/blocks.tsv"
}

# counters: the daemon's utime stime cutime cstime (ticks), rchar wchar
# read_bytes write_bytes cancelled_write_bytes, context switches of its threads
counters() {
        awk '{ sub(/^.*\) /, ""); printf "%s %s %s %s ", $12, $13, $14, $15 }' "/proc/$D/stat"
        awk '{ v[$1] = $2 } END { printf "%s %s %s %s %s ", v["rchar:"], v["wchar:"],
                v["read_bytes:"], v["write_bytes:"], v["cancelled_write_bytes:"] }' "/proc/$D/io"
        cat /proc/"$D"/task/*/status 2>/dev/null |
                awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

# daemon_start TAG: the daemon, and its counters once it has started (its
# start-up, once per boot for a service, is counted apart from its hours)
daemon_start() {
        rm -f "$W/state/benchwatch.prom" # the counts of one daemon, not of the one before
        exec {logfd}> >(stamp > "$W/daemon.$1.log") # ends at the daemon's exit
        D_T0=$EPOCHREALTIME
        # a simple command, not the bw_daemon function: $! must be the
        # daemon itself (a function in the background is a subshell)
        STATE_DIRECTORY=$W/state CACHE_DIRECTORY=$W/cache "$BW" "${DCONF[@]}" -v daemon --print \
                >&"$logfd" 2>&1 {logfd}>&- &
        D=$!
        exec {logfd}>&-
        local i=0
        until grep -q ' started: ' "$W/daemon.$1.log" 2>/dev/null || [ $i -ge 100 ]; do
                sleep 0.05
                i=$((i + 1))
        done
        D_READY=$EPOCHREALTIME
        D_BASE=$(counters)
}

# daemon_stop TAG: once no probe runs (its children reaped and counted),
# the daemon's counters, then SIGTERM
daemon_stop() {
        local i=0 busy=no
        while [ -n "$(pgrep -P "$D")" ]; do
                i=$((i + 1))
                [ $i -gt 300 ] && { busy=yes; break; }
                sleep 0.1
        done
        local t=$EPOCHREALTIME c
        c=$(counters)
        cp "$W/state/benchwatch.prom" "$W/prom.$1" 2>/dev/null || : > "$W/prom.$1"
        kill -TERM "$D"
        wait "$D"
        D=""
        printf '%s %s %s %s %s %s %s %s\n' "$1" "$D_T0" "$D_READY" "$t" "$D_BASE" "$c" \
            "$(getconf CLK_TCK)" "$busy" | tr ' ' '\t' >> "$W/daemon.tsv"
}

echo "bench/cost/impact.sh: $(nproc) CPUs, $(uname -r); blocks of ${BLOCK}s, $BLOCKS per workload (ABBA...), slices of ${SLICE}s"
echo "daemon: $(grep -c ' plugin ' "$W/check.ours") probes of the built-in configuration:"
grep ' plugin ' "$W/check.ours"
case " $WORKLOADS " in *" web "*) start_nginx && measure_rate || exit 1 ;; esac
for wl in $WORKLOADS; do
        for b in $(seq 0 $((BLOCKS - 1))); do
                case $((b % 4)) in 1|2) cond=B ;; *) cond=A ;; esac
                sleep "$SETTLE"
                printf '%s block %d/%d (%s) %s\n' "$wl" $((b + 1)) "$BLOCKS" \
                    "$([ $cond = B ] && echo "with the daemon" || echo "without")" "$(date +%T)"
                [ $cond = B ] && daemon_start "$wl.$b"
                run_block "$wl" "$cond" "$b"
                [ $cond = B ] && daemon_stop "$wl.$b"
        done
done

printf 'RATE=%s\nBLOCK=%s\nBLOCKS=%s\nSLICE=%s\nTHREADS=%s\n' "${RATE:-0}" "$BLOCK" "$BLOCKS" "$SLICE" "$THREADS" > "$W/params"
analyze
