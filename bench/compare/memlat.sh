#!/bin/bash
# bench/memlat.sh — benchwatch's memory latency mode beside an independent
# pointer chase, and the cache steps beside the cache sizes in /sys.
#
# lmbench (lat_mem_rd) is not in Debian, so the reference is a small C
# program written here, sharing no code with the plugin: it shuffles the
# line order with Fisher-Yates and links the lines in that order (the
# plugin runs Sattolo's algorithm in place), first-touches with memset, and
# reports the median of seven timed laps.  Like the plugin it chases one
# pointer per `stride` bytes in random order over a 2 MiB aligned buffer
# asked for transparent huge pages, so both measure the same thing.
#
#   bench/memlat.sh [-r ROUNDS] [-t MS] [-s MS] [-S STRIDE] [-n]
#
# 1. Comparison: at 16K, 256K, 4M, 32M, 256M and the L1d, L2 and LLC sizes,
#    ROUNDS rounds of benchwatch then the reference (interleaved), MS
#    milliseconds each (default 3 rounds of 1000 ms); ns per load of both,
#    their medians and minima and the ratios benchwatch / reference (should
#    be ~1.00).
# 2. Sweep: both at sizes from 4K to 512M in steps of 1.5x and 4/3x, one
#    round of -s MS (default 500); then, for each cache level, the size at
#    which the latency has climbed half-way (geometrically) from the plateau
#    below the cache (a quarter of its size) to the one above, which should
#    fall near the cache's size ("no step" when the latency above is not
#    1.5x the one below: a cache that does not show as a level, as a VM's
#    L3 shared with busy neighbours).  -n skips the sweep.
#
# BENCHWATCH names the benchwatch binary (default: benchwatch on PATH; for a
# build tree also set BENCHWATCH_PLUGIN_DIR=plugins/.libs).  CC compiles the
# reference (default cc).  Not part of `make check`.
set -euo pipefail

rounds=3 ms=1000 sweep_ms=500 stride=64 sweep=1
while getopts "r:t:s:S:nh" opt; do
        case $opt in
        r) rounds=$OPTARG ;;
        t) ms=$OPTARG ;;
        s) sweep_ms=$OPTARG ;;
        S) stride=$OPTARG ;;
        n) sweep=0 ;;
        *) sed -n '2,30p' "$0"; exit 2 ;;
        esac
done
bw=${BENCHWATCH:-benchwatch}
cc=${CC:-cc}
for tool in "$bw" "$cc" python3; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/bw-memlat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '[daemon]\nnice = 0\n' > "$tmp/nice0.conf"

cat > "$tmp/chase.c" <<'EOF'
/* chase BYTES STRIDE MS: ns per dependent load over a random cycle of
 * BYTES/STRIDE lines; median of 7 laps of MS/7 milliseconds each. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double seconds(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t state = 0x2545F4914F6CDD1DULL;
static uint64_t xorshift64(void)
{
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
}

static int by_value(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

#define HOP p = (char **)*p;
#define HOP8 HOP HOP HOP HOP HOP HOP HOP HOP

int main(int argc, char **argv)
{
        if (argc != 4)
                return 2;
        size_t bytes = strtoull(argv[1], NULL, 10);
        size_t stride = strtoull(argv[2], NULL, 10);
        double lap = atof(argv[3]) / 1e3 / 7;
        size_t lines = bytes / stride, two_mb = (size_t)2 << 20;
        char *raw = mmap(NULL, bytes + two_mb, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED || lines < 2)
                return 1;
        char *base = (char *)(((uintptr_t)raw + two_mb - 1) & ~(uintptr_t)(two_mb - 1));
        madvise(base, bytes, MADV_HUGEPAGE);
        memset(base, 0, bytes);
        uint32_t *order = malloc(lines * sizeof(*order));
        if (!order)
                return 1;
        for (size_t i = 0; i < lines; i++)
                order[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--) {
                size_t j = xorshift64() % (i + 1);
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
        }
        for (size_t k = 0; k < lines; k++)
                *(char **)(base + (size_t)order[k] * stride) =
                        base + (size_t)order[(k + 1) % lines] * stride;
        char **p = (char **)(base + (size_t)order[0] * stride);
        free(order);
        for (size_t k = 0; k < lines; k++) /* warm up: one lap */
                p = (char **)*p;
        double ns[7];
        for (int r = 0; r < 7; r++) {
                uint64_t n = 0;
                double t0 = seconds(), t;
                do {
                        for (int k = 0; k < 512; k++) {
                                HOP8
                        }
                        n += 4096;
                        t = seconds();
                } while (t - t0 < lap);
                ns[r] = (t - t0) * 1e9 / (double)n;
        }
        qsort(ns, 7, sizeof(ns[0]), by_value);
        printf("%.4f%s\n", ns[3], p ? "" : " ");
        return 0;
}
EOF
"$cc" -O2 -o "$tmp/chase" "$tmp/chase.c"

exec python3 - "$bw" "$tmp" "$rounds" "$ms" "$sweep_ms" "$stride" "$sweep" <<'PY'
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
PY
