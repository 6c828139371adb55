#!/usr/bin/env python3
"""device.py — reads what lab/gpu/device.sh collected: the gpu plugin's
runs (`benchwatch run gpu --format=json`) and classic.py's, in pairs.

  device.py args PLUGIN.json     the classic's arguments for the same GPU,
                                 bytes and shape as that run of the plugin
  device.py pairs DIR            the ratio plugin / classic of each figure
                                 over DIR/pair-*/{plugin,classic}.json: the
                                 median, the spread (min .. max) and
                                 whether the median is within 5%; writes
                                 DIR/ratios.json; exit 1 when one is not
  device.py neighbour DIR        the runs beside another process
                                 (DIR/neighbour-N.json, and what the
                                 neighbour said when its context was on
                                 the GPU in DIR/neighbour-N.ready): each
                                 made way (how long after the neighbour
                                 appeared) or waited, and says why; exit 1
                                 if one did neither
"""
import glob
import json
import os
import statistics
import sys

FIGURES = [  # the plugin's family, the classic's key, a unit for people
    ("benchwatch_gpu_memory_copy_bytes_per_second", "copy_bytes_per_second", 1e9, "GB/s"),
    ("benchwatch_gpu_memory_triad_bytes_per_second", "triad_bytes_per_second", 1e9, "GB/s"),
    ("benchwatch_gpu_gemm_flop_per_second", "gemm_flop_per_second", 1e12, "TFLOP/s"),
    ("benchwatch_gpu_host_to_device_bytes_per_second", "h2d_bytes_per_second", 1e9, "GB/s"),
    ("benchwatch_gpu_device_to_host_bytes_per_second", "d2h_bytes_per_second", 1e9, "GB/s"),
]
WITHIN = 0.05


def load(path):
    """The JSON in path; a run that printed none (a usage error, a crash) as
    a failed one."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"success": False, "error": "no result in %s (%s)" % (path, e)}


def sample(run, family):
    """(value, labels) of the run's first sample of family, or None."""
    for m in run.get("metrics", []):
        if m["name"] == family and m["samples"]:
            return m["samples"][0]["value"], m["samples"][0]["labels"]
    return None


def classic_args(run):
    """classic.py's arguments for the GPU, bytes and shape of a plugin run."""
    p = run["params"]
    array = sample(run, "benchwatch_gpu_memory_array_bytes")
    gemm = sample(run, "benchwatch_gpu_gemm_flop_per_second")
    info = sample(run, "benchwatch_gpu_info")
    if not info:
        raise SystemExit("the run names no GPU (no benchwatch_gpu_info): %s" % run.get("error"))
    size = p["copy_size"]
    units = {"k": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    copy_bytes = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
    args = ["--gpu", info[1]["gpu"], "--copy-bytes", str(copy_bytes)]
    if array:
        args += ["--array-bytes", str(int(array[0]))]
    labels = gemm[1] if gemm else {"m": p["gemm_m"], "n": p["gemm_n"], "k": p["gemm_k"]}
    args += ["--m", labels["m"], "--n", labels["n"], "--k", labels["k"]]
    return args


def pairs(d):
    rows, engines, ok = [], set(), True
    dirs = sorted(glob.glob(os.path.join(d, "pair-*")))
    runs = [(load(os.path.join(p, "plugin.json")), load(os.path.join(p, "classic.json")))
            for p in dirs if os.path.exists(os.path.join(p, "classic.json"))]
    if not runs:
        raise SystemExit("no pairs in %s" % d)
    print("%-24s %14s %14s %7s %14s %s" % ("figure", "plugin", "classic", "ratio",
                                            "spread", "pairs"))
    for family, key, scale, unit in FIGURES:
        ratios, ours, theirs = [], [], []
        for plugin, classic in runs:
            s = sample(plugin, family) if plugin.get("success") else None
            if s is None or not classic.get(key):
                continue
            if family.endswith("gemm_flop_per_second"):
                engines.add(s[1].get("engine"))
            ours.append(s[0])
            theirs.append(classic[key])
            ratios.append(s[0] / classic[key])
        if not ratios:
            print("%-26s (no pair has it)" % key)
            ok = False
            continue
        med = statistics.median(ratios)
        good = abs(med - 1) <= WITHIN
        ok &= good
        rows.append({"figure": family, "classic": key, "ratios": ratios, "median": med,
                     "min": min(ratios), "max": max(ratios), "within_5_percent": good,
                     "plugin_median": statistics.median(ours),
                     "classic_median": statistics.median(theirs)})
        print("%-24s %6.1f %-7s %6.1f %-7s %7.3f %6.3f..%-6.3f %d%s" % (
            key, statistics.median(ours) / scale, unit, statistics.median(theirs) / scale, unit,
            med, min(ratios), max(ratios), len(ratios), "" if good else "  OUTSIDE 5%"))
    print("GEMM engine: %s; %d pairs, plugin and classic alternating first" %
          (", ".join(sorted(e for e in engines if e)) or "-", len(runs)))
    with open(os.path.join(d, "ratios.json"), "w") as f:
        json.dump({"pairs": len(runs), "engines": sorted(e for e in engines if e),
                   "figures": rows}, f, indent=1)
    return 0 if ok else 1


def neighbour(d):
    ok, seen = True, 0
    for path in sorted(glob.glob(os.path.join(d, "neighbour-*.json"))):
        run, seen = load(path), seen + 1
        ready = path[:-len(".json")] + ".ready"
        nb = load(ready) if os.path.exists(ready) and os.path.getsize(ready) else {}
        err = run.get("error") or ""
        made_way = "made way for process" in err and "not counted" in err
        waited = "busy:" in err and "waits for an idle GPU" in err
        good = not run.get("success") and (made_way or waited)
        ok &= good
        after = ""
        if made_way and nb.get("ready"):
            after = ", %.2fs after the neighbour's context" % (
                run["started"] + run["duration"] - nb["ready"])
        print("%s: %s (run %.1fs%s)%s" % (os.path.basename(path),
                                          err or "success: counted beside a neighbour",
                                          run.get("duration", 0), after,
                                          "" if good else "  WRONG: neither made way nor waited"))
        if made_way and nb.get("neighbour_pid") and str(nb["neighbour_pid"]) not in err:
            print("  (made way for another pid than the neighbour's %s: a PID namespace?)" %
                  nb["neighbour_pid"])
    if not seen:
        raise SystemExit("no neighbour runs in %s" % d)
    return 0 if ok else 1


def main(argv):
    if len(argv) == 3 and argv[1] == "args":
        print(" ".join(classic_args(load(argv[2]))))
        return 0
    if len(argv) == 3 and argv[1] == "pairs":
        return pairs(argv[2])
    if len(argv) == 3 and argv[1] == "neighbour":
        return neighbour(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
