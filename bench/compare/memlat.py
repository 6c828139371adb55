"""memlat.py BENCHWATCH TMP ROUNDS MS SWEEP_MS STRIDE SWEEP — the runs and the table of
bench/compare/memlat.sh (see there for what is compared and why):
benchwatch's memory latency mode and the independent pointer chase
(TMP/chase, built from memlat_chase.c) at the same sizes, interleaved,
their medians side by side, and with SWEEP=1 where each cache level ends.
"""
import glob, json, math, os, statistics, subprocess, sys

BW, TMP = sys.argv[1], sys.argv[2]
ROUNDS, MS, SWEEP_MS, STRIDE = map(int, sys.argv[3:7])
SWEEP = sys.argv[7] == "1"
K, M = 1024, 1024 * 1024


def fmt(b):
    """16k, 4M, 1G: as people write sizes (and as the size label reads)."""
    for unit, f in (("G", 1 << 30), ("M", M), ("k", K)):
        if b >= f and b % f == 0:
            return "%d%s" % (b // f, unit)
    return str(b)


def parse(s):
    s = s.strip()
    mult = {"K": K, "k": K, "M": M, "G": 1 << 30}.get(s[-1:], 1)
    return int(s[:-1] if mult > 1 else s) * mult


def caches():
    """{'L1d': bytes, 'L2': ..., 'L3': ...} of cpu0, from /sys."""
    out = {}
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        rd = lambda n: open(os.path.join(d, n)).read().strip()
        kind = rd("type")
        if kind == "Instruction":
            continue
        name = "L%s%s" % (rd("level"), "d" if kind == "Data" else "")
        out[name] = (parse(rd("size")), rd("shared_cpu_list"))
    return out


labels_seen = []


def ours(size, ms):
    p = subprocess.run([BW, "--config", os.path.join(TMP, "nice0.conf"), "run",
                        "memory", "mode=latency", "size=%s" % fmt(size),
                        "stride=%d" % STRIDE, "duration=%dms" % ms,
                        "--format=json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("benchwatch failed (%d): %s" % (p.returncode, p.stderr))
    doc = json.loads(p.stdout)
    for fam in doc["metrics"]:
        if fam["name"] == "benchwatch_memory_load_latency_seconds":
            s = fam["samples"][0]
            if not labels_seen:
                labels_seen.append(s["labels"])
            return s["value"] * 1e9
    sys.exit("no benchwatch_memory_load_latency_seconds in the output")


def ref(size, ms):
    out = subprocess.run([os.path.join(TMP, "chase"), str(size), str(STRIDE),
                          str(ms)], stdout=subprocess.PIPE, check=True,
                         text=True).stdout
    return float(out.split()[0])


cs = caches()
print("caches of cpu0 (/sys/devices/system/cpu/cpu0/cache):")
for name, (size, shared) in cs.items():
    print("  %-4s %6s  shared by CPUs %s" % (name, fmt(size), shared))
print("stride %d bytes; ratio = benchwatch / reference\n" % STRIDE)

sizes = {16 * K, 256 * K, 4 * M, 32 * M, 256 * M}
sizes |= {size for size, _ in cs.values()}
sizes = sorted(sizes)
rows = {s: ([], []) for s in sizes}
for r in range(ROUNDS):
    for s in sizes:
        a, b = ours(s, MS), ref(s, MS)
        rows[s][0].append(a)
        rows[s][1].append(b)
        print("  round %d %6s: benchwatch %8.2f ns  reference %8.2f ns  %.3f"
              % (r + 1, fmt(s), a, b, a / b), flush=True)
print("\nlabels of the figure: %s" % json.dumps(labels_seen[0], sort_keys=True))
print("\n%d rounds of %d ms; ns per load, median and (a busy host only ever "
      "adds time) minimum" % (ROUNDS, MS))
print("%8s %11s %11s %7s %11s %11s %7s" % ("size", "bw median", "ref median",
                                         "ratio", "bw min", "ref min", "ratio"))
for s in sizes:
    a, b = statistics.median(rows[s][0]), statistics.median(rows[s][1])
    c, d = min(rows[s][0]), min(rows[s][1])
    print("%8s %11.2f %11.2f %7.3f %11.2f %11.2f %7.3f"
          % (fmt(s), a, b, a / b, c, d, c / d))

if not SWEEP:
    sys.exit(0)

grid = []
s = 4 * K
while s <= 512 * M:
    grid += [s, s * 3 // 2]
    s *= 2
grid = [g for g in grid if g <= 512 * M]
print("\nsweep, one round of %d ms per size and tool:" % SWEEP_MS)
print("%8s %14s %14s %9s" % ("size", "benchwatch ns", "reference ns", "x prev"))
curve, prev = [], None
for g in grid:
    a, b = ours(g, SWEEP_MS), ref(g, SWEEP_MS)
    curve.append((g, a, b))
    print("%8s %14.2f %14.2f %9s" % (fmt(g), a, b,
          "%.2f" % (a / prev) if prev else ""), flush=True)
    prev = a


def at(size, col):
    """Latency at size, log-interpolated on the sweep."""
    pts = [(math.log(g), math.log(v[col - 1])) for g, *v in curve]
    x = math.log(min(max(size, curve[0][0]), curve[-1][0]))
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            return math.exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return math.exp(pts[-1][1])


def crossing(target, lo, hi, col):
    """Smallest sweep size in [lo, hi] where the latency reaches target."""
    for (g0, *v0), (g1, *v1) in zip(curve, curve[1:]):
        y0, y1 = v0[col - 1], v1[col - 1]
        if g1 < lo or g0 > hi or not (y0 < target <= y1):
            continue
        f = (math.log(target) - math.log(y0)) / (math.log(y1) - math.log(y0))
        return math.exp(math.log(g0) + f * (math.log(g1) - math.log(g0)))
    return None


levels = sorted(cs.items(), key=lambda kv: kv[1][0])
print("\nsteps: half-way (geometric) from the plateau at a quarter of the "
      "cache to the one above")
print("%-5s %7s %10s %10s %12s %12s" % ("cache", "size", "below ns",
                                         "above ns", "benchwatch", "reference"))
for i, (name, (size, _)) in enumerate(levels):
    above = levels[i + 1][1][0] // 4 if i + 1 < len(levels) else 8 * size
    above = max(above, 2 * size)
    cells = []
    for col in (1, 2):
        lo, hi = at(size / 4, col), at(above, col)
        x = crossing(math.sqrt(lo * hi), size / 4, above, col)
        if hi < 1.5 * lo:  # no level of its own: nothing to place
            cells.append((lo, hi, "no step"))
            continue
        cells.append((lo, hi, "%s (%.2fx)" % (fmt(int(x) // K * K), x / size)
                      if x else "none"))
    print("%-5s %7s %10.2f %10.2f %12s %12s" % (
        name, fmt(size), cells[0][0], cells[0][1], cells[0][2], cells[1][2]))
print("DRAM  (above the last cache, at %s): benchwatch %.2f ns, reference %.2f ns"
      % (fmt(8 * levels[-1][1][0]), at(8 * levels[-1][1][0], 1),
         at(8 * levels[-1][1][0], 2)))
