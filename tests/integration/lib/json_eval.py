"""json_eval.py FILE EXPR — lib.sh's json(): EXPR evaluated with r bound to the
parsed FILE (a `benchwatch run --format=json` result) and the helpers
samples(name, **labels), value(name, **labels) and summary(name, **labels).
False fails (exit 1, the expression printed), True is silent, any other
value is printed.
"""
import json, sys
r = json.load(open(sys.argv[1]))
def samples(name, **labels):
    for m in r.get("metrics", []):
        if m["name"] == name:
            for s in m["samples"]:
                if all(s["labels"].get(k) == v for k, v in labels.items()):
                    yield s
def value(name, **labels):
    for s in samples(name, **labels):
        return s["value"]
    raise SystemExit("no sample %s %s" % (name, labels))
def summary(name, **labels):
    for s in samples(name, **labels):
        return s
    raise SystemExit("no summary %s %s" % (name, labels))
v = eval(sys.argv[2])
if v is False:
    raise SystemExit("false: " + sys.argv[2])
if v is not True:
    print(v)
