#!/bin/sh
# lab/cost/evidence-cost.sh — what the evidence snapshots around a run
# cost on this host (core/evidence.h; the budget: well under a
# millisecond for the pair), which sources the host has and why the others
# are absent, and the figures of one window.  Builds lab/cost/evidence_cost
# in BUILD_DIR first.
# Usage: lab/cost/evidence-cost.sh [BUILD_DIR [ROOT [N]]]   (default: . / 1000)
set -eu
build=$(cd "${1:-.}" && pwd)
make -s -C "$build" lab/cost/evidence_cost
"$build/lab/cost/evidence_cost" "${2:-/}" "${3:-1000}"
