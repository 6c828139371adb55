#!/bin/sh
# dashboard.sh — every metric the shipped Grafana dashboard and Prometheus
# rules query is one benchwatch really emits (check_metric_names.py reads
# the emitted names from the source).  Then the same check must FAIL on a
# dashboard with a misspelt metric, on a misspelt metric="..." matcher, and
# on a source tree where a plugin stopped emitting a figure the dashboard
# uses: a checker that passes everything would prove nothing.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
check="$srcdir/tests/integration/lib/check_metric_names.py"
dash="$srcdir/conf/grafana-dashboard.json"
rules="$srcdir/conf/benchwatch.rules.yml"

tmp=$(mktemp -d /tmp/bw-dashboard.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT

python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dash" ||
  { echo "FAIL: $dash is not valid JSON"; exit 1; }

echo "== the shipped dashboard and rules"
python3 "$check" "$srcdir" "$dash" "$rules" || { echo "FAIL: unknown metric names above"; exit 1; }

fails_on() { # description, srcdir, dashboard
        if python3 "$check" "$2" "$3" "$rules" >"$tmp/out" 2>&1; then
                echo "FAIL: the checker accepted $1"; cat "$tmp/out"; exit 1
        fi
        grep ERROR "$tmp/out"
        echo "ok: rejected $1"
}

echo "== negative controls"
sed 's/benchwatch_disk_iops{/benchwatch_disk_iopz{/' "$dash" >"$tmp/typo.json"
cmp -s "$dash" "$tmp/typo.json" && { echo "FAIL: control not applied (no benchwatch_disk_iops in the dashboard?)"; exit 1; }
fails_on "a misspelt metric" "$srcdir" "$tmp/typo.json"

sed 's/metric=\\"benchwatch_disk_iops\\"/metric=\\"benchwatch_disk_iopz\\"/' "$dash" >"$tmp/figure.json"
cmp -s "$dash" "$tmp/figure.json" && { echo "FAIL: control not applied (no metric=\"benchwatch_disk_iops\" matcher?)"; exit 1; }
fails_on "a misspelt metric= matcher" "$srcdir" "$tmp/figure.json"

# A copy of the parts of the tree the checker reads, where the disk plugin
# no longer emits "iops".
mkdir -p "$tmp/src" || exit 99
cp "$srcdir/Makefile.am" "$tmp/src/" && cp -r "$srcdir/daemon" "$tmp/src/" &&
  cp -r "$srcdir/plugins" "$tmp/src/" && chmod -R u+w "$tmp/src" || exit 99
sed -i 's/"iops"/"ops"/' "$tmp/src/plugins/disk.c"
fails_on "a figure no plugin emits any more" "$tmp/src" "$dash"
exit 0
