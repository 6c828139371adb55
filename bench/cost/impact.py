#!/usr/bin/env python3
"""bench/cost/impact.py — the figures of bench/cost/impact.sh, from the raw data a run
of it leaves in a directory (its $W, or what OUT= kept): the workloads'
slices (slices.tsv and slices/), the daemon's time-stamped lines and
counters (daemon.*.log, daemon.tsv, prom.*), the blocks' CPU pressure
(blocks.tsv) and the configuration's probes and intervals (check.ours).
What is printed and how it is estimated is described atop bench/cost/impact.sh.
DIR may be several runs' directories joined by ':' (runs of the same
configuration): their blocks are pooled, numbered on after each other's, so
more blocks narrow the intervals as one longer run's would.

Usage: bench/cost/impact.py DIR[:DIR...] RATE BLOCK BLOCKS SLICE THREADS [OLTP_RATE]
Env:   AFTER (10 s), BOOT (1000), as bench/cost/impact.sh.
"""
import bisect, json, math, os, random, re, sys
W, RATE, BLOCK, NBLOCKS, SLICE, THREADS = sys.argv[1], float(sys.argv[2]), \
    int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
OLTP_RATE = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
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

# each run's directory and the number its blocks start from
DIRS, offset = [], 0
for d in W.split(":"):
    DIRS.append((d, offset))
    offset += 1 + max(int(l.split("\t")[2]) for l in open(os.path.join(d, "slices.tsv")))

slices = []
for line, (D, off) in ((l, d) for d in DIRS for l in open(os.path.join(d[0], "slices.tsv"))):
    wl, cond, blk, t0, t1, rc, f = line.rstrip("\n").split("\t")
    f = os.path.join(D, "slices", os.path.basename(f)) # also where OUT keeps it
    s = {"wl": wl, "cond": cond, "blk": int(blk) + off, "t0": float(t0), "t1": float(t1)}
    s["fig"] = (parse_web if wl == "web" else parse_cpu)(f) if rc == "0" else None
    slices.append(s)

# probe runs, from the daemon's time-stamped lines
runs, counts, dstats = {}, {}, {}
for line, (D, off) in ((l, d) for d in DIRS if os.path.exists(os.path.join(d[0], "daemon.tsv"))
                       for l in open(os.path.join(d[0], "daemon.tsv"))):
    v = line.rstrip("\n").split("\t")
    tag, tstart, t0, t1 = v[0], float(v[1]), float(v[2]), float(v[3])
    base, end_, tck = [float(x) for x in v[4:14]], [float(x) for x in v[14:24]], float(v[24])
    def cnt(c):
        ut, st, cut, cst, rchar, wchar, rb, wb, cwb, csw = c
        return {"self": (ut + st) / tck, "all": (ut + st + cut + cst) / tck, "rchar": rchar,
                "wchar": wchar, "read_bytes": rb, "write_bytes": wb, "cancelled": cwb, "csw": csw}
    wl, blk = tag.rsplit(".", 1)
    blk = int(blk) + off
    b, e = cnt(base), cnt(end_)
    dstats[(wl, blk)] = dict({k: e[k] - b[k] for k in e}, life=t1 - t0, busy=v[25] == "yes",
                                  t0=t0, t1=t1, startup=b, startup_s=t0 - tstart)
    c = counts.setdefault(wl, {"ok": 0, "failed": 0, "yielded": 0, "stopped": 0,
                               "deferred_log": 0, "deferred_total": 0, "reasons": {}})
    rl, cur = runs.setdefault((wl, blk), []), None
    for l in open(os.path.join(D, "daemon.%s.log" % tag)):
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
    for l in open(os.path.join(D, "prom.%s" % tag)):
        m = re.match(r'^benchwatch_probe_deferred_total\{(.*)\}\s+(\S+)', l)
        if m:
            r = re.search(r'reason="([^"]*)"', m.group(1))
            c["deferred_total"] += float(m.group(2))
            k = r.group(1) if r else "?"
            c["reasons"][k] = c["reasons"].get(k, 0) + float(m.group(2))

psi = {}
for line, (D, off) in ((l, d) for d in DIRS if os.path.exists(os.path.join(d[0], "blocks.tsv"))
                       for l in open(os.path.join(d[0], "blocks.tsv"))):
        wl, cond, blk, t0, t1, stall = line.rstrip("\n").split("\t")
        psi[(wl, int(blk) + off)] = 100 * float(stall) / 1e6 / (float(t1) - float(t0))

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
for l in open(os.path.join(DIRS[0][0], "check.ours")):
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
    name = {"web": "web %d req/s" % RATE, "oltp": "oltp %d tx/s" % OLTP_RATE}.get(
        wl, "cpu %d threads" % THREADS)
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
    # issue 29's targets, judged against the B blocks' own slices outside
    # runs: p99 <= +5% with the upper end of its 90% interval <= +8%, p99.9
    # <= +20% (web); p99 <= +5% (oltp); throughput unchanged: its 90%
    # interval within +-1% (the goal above; a constant-rate workload moves
    # by a few requests that finish after their slice, e.g. -0.03% with an
    # interval of -0.0..-0.0%, which "holds 0" would call a change)
    if wl in ("web", "oltp"):
        tiv = wb["tput"][1]
        checks = [("p99 %+.2f%% <= +5%%" % wb[0.99][0], wb[0.99][0] <= 5),
                  ("throughput %+.2f%% (90%% interval %s) within +-1%%" % (wb["tput"][0], fi(tiv)),
                   bool(tiv) and -1 <= tiv[0] and tiv[1] <= 1)]
        if wl == "web":
            iv99 = wb[0.99][1]
            checks[1:1] = [("p99's 90%% interval's upper end %s <= +8%%"
                            % ("%+.1f%%" % iv99[1] if iv99 else "-"), bool(iv99) and iv99[1] <= 8),
                           ("p99.9 %+.2f%% <= +20%%" % wb[0.999][0], wb[0.999][0] <= 20)]
        verdicts.append("%s, issue 29's targets (steady state against the B blocks' slices "
                        "outside runs): %s" % (name, "; ".join(
                            "%s: %s" % (t, "met" if ok_ else "NOT met") for t, ok_ in checks)))
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
