#!/bin/sh
# The fault campaign's one-minute version (tests/faults/faults.sh 60): benchwatch
# under systemd in the nspawn container, every kind of fault once, every
# invariant checked.  A failure prints the seed; `tests/faults/faults.sh 60 SEED`
# replays it.  Skips (77, with the reason) where nspawn, debootstrap, a loop
# device or a server it starts cannot run.
: "${top_srcdir:?run through make check}"
exec bash "$top_srcdir/tests/faults/faults.sh" 60
