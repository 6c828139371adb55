"""lab/detector/detector_real/http_rate.py — a helper of lab/detector/detector-real.sh.

http_rate.py JSON: the requests per second of a `benchwatch run http
--format=json` result (the web neighbour's capacity), as an integer.
"""
import json, sys
doc = json.load(open(sys.argv[1]))
vals = [f["samples"][0]["value"] for f in doc["metrics"]
        if f["name"] == "benchwatch_http_requests_per_second"]
if not vals:
    sys.exit("bench: no benchwatch_http_requests_per_second in " + sys.argv[1])
print("%d" % vals[0])
