#!/bin/sh
# rules.sh — the shipped Prometheus rules load (promtool check rules) and
# behave (promtool test rules): each alert fires on the series that should
# fire it, after its `for`, and not on its neighbours (another host or job,
# a short blip, a group of fewer than 3 hosts, another parameter set); the
# recording rules compute the cohort ratios they promise; and on a
# synthetic fleet of 22 hosts in two cohorts (tests/rules/cohort_fleet.py)
# one host 20% below its cohort fires while a whole cohort 30% below the
# other does not.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v promtool >/dev/null 2>&1 ||
  { echo "SKIP: promtool not installed (Debian package: prometheus)"; exit 77; }
promtool check rules "$srcdir/conf/benchwatch.rules.yml" || exit 1
promtool test rules "$srcdir/tests/rules/benchwatch.rules.test.yml" || exit 1
fleet=$(mktemp /tmp/bw-cohort.XXXXXX.yml)
trap 'rm -f "$fleet"' EXIT
python3 "$srcdir/tests/rules/cohort_fleet.py" "$srcdir/conf/benchwatch.rules.yml" > "$fleet" || exit 1
promtool test rules "$fleet" || exit 1
