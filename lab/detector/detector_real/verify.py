"""lab/detector/detector_real/verify.py — a helper of lab/detector/detector-real.sh.

verify.py JSON FAMILY: "status runs change% lo% hi% decided failing-series"
"""
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("error - - - - - -")
    sys.exit(0)
rows = r.get("results", [])
main = [x for x in rows if x["metric"].startswith(sys.argv[2] + "{")]
main.sort(key=lambda x: 'op="read"' not in x["metric"])
bad = [x["metric"].split("{")[0].replace("benchwatch_", "", 1) +
       ("{q=%s}" % x["metric"].split('quantile="')[1].split('"')[0] if 'quantile="' in x["metric"] else "")
       for x in rows if x["verdict"] == "REGRESSION"]
m = main[0] if main else {}
pc = lambda k: "%+.1f" % (100 * m[k]) if k in m else "-"
print(r.get("status", "error"), m.get("runs", "-"), pc("change"), pc("change_low"),
      pc("change_high"), m.get("decided", "-"), ",".join(bad) or "-")
