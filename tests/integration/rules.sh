#!/bin/sh
# rules.sh — the shipped Prometheus rules load (promtool check rules) and
# behave (promtool test rules): each alert fires on the series that should
# fire it, after its `for`, and not on its neighbours (another host or job,
# a short blip, a group of fewer than 3 hosts, another parameter set); the
# recording rules compute the fleet ratios they promise.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v promtool >/dev/null 2>&1 ||
  { echo "SKIP: promtool not installed (Debian package: prometheus)"; exit 77; }
promtool check rules "$srcdir/conf/benchwatch.rules.yml" || exit 1
promtool test rules "$srcdir/tests/rules/benchwatch.rules.test.yml" || exit 1
