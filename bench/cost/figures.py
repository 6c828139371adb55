"""figures.py — what bench/cost/cost.py and durations.py both read from a
run's JSON report: each plugin's main figure, and the run-to-run noise of a
list of them (the robust coefficient of variation)."""
import json
import statistics as st

# each plugin's main figures, the first one a run has is the one judged
MAIN = {"cpu": ["events_per_second"], "threads": ["events_per_second"],
        "memory": ["bytes_per_second", "load_latency_seconds"], "disk": ["iops"],
        "seqread": ["bytes_per_second"], "disklat": ["latency_seconds"]}


def main_figure(path, plugin):
    d = json.load(open(path))
    for figure in MAIN[plugin]:
        # a summary's figure is its median (disklat's judged p50)
        vals = [s["value"] if "value" in s else s["quantiles"]["0.5"]
                for m in d["metrics"] if m["name"] == "benchwatch_%s_%s" % (plugin, figure)
                for s in m["samples"]]
        if vals:
            return sum(vals)
    return 0


def robust_cv(xs):
    """1.4826 MAD / median: the noise, not moved by one wild run."""
    med = st.median(xs)
    return 1.4826 * st.median(abs(x - med) for x in xs) / med if med else float("nan")
