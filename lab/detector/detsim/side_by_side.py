#!/usr/bin/env python3
"""side_by_side.py — lab/detector/detector.sh's table: today's detector (a base
commit's detsim, its "new" column) beside this tree's, row by row.

Usage: side_by_side.py TODAY.txt NEW.txt BASE

Both files are detsim tables: a header, then rows of
"figure  noise model  sd% | value(s) | target  met".  A row is matched
by its figure, noise model and sd; a row today's table lacks shows "-".
"""
import re
import sys

MODELS = ("gaussian", "student-t3", "2% outliers", "AR(1) 0.5", "AR(1) 0.3")
ROW = re.compile(r"^(.*?) +(%s) +(\d+)%% \| (.*)$" % "|".join(re.escape(m) for m in MODELS))


def rows(path):
    """{(figure, model, sd): [cells]} and the header lines."""
    table, head = {}, []
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return table, head
    for line in lines:
        m = ROW.match(line)
        if not m:
            if line and not line.startswith("figure"):
                head.append(line)
            continue
        cells = [c.strip() for c in m.group(4).split("|")]
        key = (m.group(1).strip(), m.group(2).strip(), m.group(3))
        table[key] = cells
    return table, head


def main():
    today, _ = rows(sys.argv[1])
    new, head = rows(sys.argv[2])
    base = sys.argv[3]
    for line in head:
        if not line.startswith(("every target", "some target")):
            print(line)
    print("%-34s %-12s %4s | %-27s | %-34s | %s" %
          ("figure", "noise model", "sd", "today (%s)" % base, "new", "target"))
    for key, cells in new.items():
        was = today.get(key)
        # today's detsim printed "old | new | target": its middle cell
        t = was[1] if was and len(was) >= 3 else (was[0] if was else "-")
        print("%-34s %-12s %3s%% | %-27s | %-34s | %s" %
              (key[0], key[1], key[2], t, cells[0], cells[1] if len(cells) > 1 else ""))
    for line in head:
        if line.startswith(("every target", "some target")):
            print("\n" + line)


if __name__ == "__main__":
    main()
