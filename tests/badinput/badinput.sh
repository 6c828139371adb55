#!/bin/sh
# badinput.sh — `make check` entry of the bad-input table: every row of
# tests/badinput/cases.tsv through the real binary (see run.py).
: "${top_srcdir:?run through make check}"
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exec python3 "$top_srcdir/tests/badinput/run.py" "$top_srcdir/tests/badinput/cases.tsv"
