"""compare_table.py — read by compare.sh's checks (exec'd, not run): number(CELL)
turns a cell of `benchwatch run A B`'s table ("26.2k", "64.5 µs") into a
float in base units; table(PATH) returns the probe names of the header
and {row title: {probe: cell}}, cells cut where each probe's name ends
(they are right-aligned), the row title being the text before the first.
"""
import json, re, sys
UNITS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
MULT = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
def number(cell):
    m = re.fullmatch(r"(-?[0-9.]+(?:e[-+]?[0-9]+)?)([kMG]?)(?: (ns|µs|ms|s))?", cell)
    if not m:
        raise SystemExit("not a figure: %r" % cell)
    return float(m.group(1)) * MULT[m.group(2)] * UNITS.get(m.group(3) or "", 1)
def table(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    head = next(l for l in lines if l.startswith(" probe "))
    names = head.split()[1:]
    ends = [head.index(n, head.index(names[i - 1]) + len(names[i - 1]) if i else 0) + len(n)
            for i, n in enumerate(names)]
    rows = {}
    for l in lines[lines.index(head):]:
        if not l.strip() or len(l) < ends[-1]:
            continue
        parts = re.split(r"\s{2,}", l[:ends[0]].strip())
        title, cells = parts[0], [parts[-1]]
        for i in range(1, len(ends)):
            cells.append(l[ends[i - 1]:ends[i]].strip())
        rows[title] = dict(zip(names, cells))
    return names, rows
